// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the life of a connection in its table, from the other
 * CPUs' side: a connection ended while it is published, a packet that
 * loses the race to create one, a packet of more stateful rules than a
 * connection keeps, the module's cap over all namespaces, and a GC pass
 * while the table is resized.
 */
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/nat.h"
#include "../kmod/rewrite.h"
#include "../kmod/test.h"
#include "util.h"

struct cl {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
	/* what the test point does, once, between a connection's two inserts */
	void (*half_in)(struct cl *l, struct mmb_conn *c);
	struct sk_buff *skb;		/* a packet for it to send */
	int ret;			/* what that packet got */
	struct mmb_verdict v;
	unsigned int calls;
};

static struct cl *cl_current;

static void cl_half_in(struct mmb_conns *mc, struct mmb_conn *c)
{
	struct cl *l = READ_ONCE(cl_current);
	void (*fn)(struct cl *l, struct mmb_conn *c);

	if (!l || &l->mc != mc || !l->half_in)
		return;
	fn = l->half_in;
	l->half_in = NULL;	/* once, and not for what it sends */
	l->calls++;
	fn(l, c);
}

static void cl_free(void *data)
{
	struct cl *l = data;

	WRITE_ONCE(mmb_test_points.half_in, NULL);
	WRITE_ONCE(cl_current, NULL);
	mmb_conns_exit(&l->mc);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct cl *cl_new(struct kunit *test)
{
	struct cl *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->test = test;
	l->dev = mmbt_netdev_create(test);
	l->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&l->mc, &init_net), 0);
	/* Both ways on one device without routes: rpf_test.c checks rp-filter. */
	l->mc.rpf = false;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cl_free, l), 0);
	WRITE_ONCE(mmb_test_points.clock, 1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return l;
}

/* Arm the test point for @l's table. */
static void cl_arm(struct cl *l, void (*fn)(struct cl *l, struct mmb_conn *c))
{
	l->half_in = fn;
	WRITE_ONCE(cl_current, l);
	WRITE_ONCE(mmb_test_points.half_in, cl_half_in);
}

/* A UDP or TCP packet from client 10.0.0.@from (fd00::@from) to server 10.0.1.@to. */
static struct mmbt_pkt_desc cl_pkt(bool v6, u8 proto, u8 from, u16 sport, u8 to, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = proto == IPPROTO_TCP ? TCPHDR_SYN : 0, .payload_len = 10,
		.seq = 1000,
	};

	if (v6) {
		d.saddr[0] = 0xfd;
		d.saddr[15] = from;
		d.daddr[0] = 0xfd;
		d.daddr[7] = 1;
		d.daddr[15] = to;
	} else {
		d.saddr[0] = 10;
		d.saddr[3] = from;
		d.daddr[0] = 10;
		d.daddr[2] = 1;
		d.daddr[3] = to;
	}
	return d;
}

/*
 * @skb through the datapath's steps, rewrites included, as mmb_hook()
 * does in softirq under RCU. 1: it passes, 0: a rule drops it, or the
 * error that drops it. The skb stays the caller's.
 */
static int cl_run(struct cl *l, struct sk_buff *skb, struct mmb_verdict *out)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	if (!skb)
		return -ENOMEM;
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(l->r);
	ret = mmb_parse(skb, &pkt);
	if (!ret) {
		mmb_verdict_init(&v);
		if (mmb_ruleset_stateful(rs))
			mmb_conn_lookup(&l->mc, &pkt, skb, &v);
		mmb_classify_rules(rs, &pkt, skb, &v);
		if (v.conn || v.nsf)
			ret = mmb_conn_verdict(&l->mc, &pkt, skb, &v);
		if (!ret && (v.nrw || mmb_conn_rewrites(v.conn)))
			ret = mmb_rewrite(skb, &pkt, &v);
		if (!ret)
			ret = !(v.drop && !v.accept);
		if (out)
			*out = v;
	}
	local_bh_enable();
	rcu_read_unlock();
	return ret;
}

static int cl_send(struct cl *l, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(l->dev, d);
	int ret = cl_run(l, skb, NULL);

	kfree_skb(skb);
	return ret;
}

static u64 cl_stat(struct mmb_conns *mc, enum mmb_conn_stat what)
{
	u64 n[MMB_CSTAT_MAX];

	mmb_conns_stats(mc, n);
	return n[what];
}

/* The tuple of @d's packet. */
static struct mmb_tuple cl_tuple(struct cl *l, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(l->dev, d);
	struct mmb_tuple t = {};
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(l->test, skb);
	KUNIT_ASSERT_EQ(l->test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_TRUE(l->test, mmb_conn_tuple(&pkt, &t));
	kfree_skb(skb);
	return t;
}

/* Is there a node of @t in the table (a live connection's or not)? */
static bool cl_in_table(struct cl *l, const struct mmb_tuple *t)
{
	bool found;
	u8 dir;

	rcu_read_lock();
	found = mmb_conn_find(&l->mc, t, &dir);
	rcu_read_unlock();
	return found;
}

/* --- ended while it is published ----------------------------------------------- */

/*
 * What a flush does to every node it finds (mmb_conns_flush()), without
 * its rests between slices: the test point runs in softirq.
 */
static void cl_flush_now(struct cl *l, struct mmb_conn *half)
{
	struct rhashtable_iter iter;
	struct mmb_conn_node *n;

	rhashtable_walk_enter(&l->mc.ht, &iter);
	rhashtable_walk_start(&iter);
	while ((n = rhashtable_walk_next(&iter))) {
		if (IS_ERR(n))
			continue;
		mmb_conn_kill(&l->mc, mmb_conn_of(n), MMB_CSTAT_ENDED);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

/*
 * A flush finds a connection by its reply node before its orig node is
 * in: the connection is not left in the table (nor freed while in it);
 * its packet is dropped, as nf_conntrack drops one whose connection died
 * unconfirmed, and the next packet starts a new one. IPv4 and IPv6.
 */
static void conn_life_flush_half_family(struct kunit *test, bool v6)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc d = cl_pkt(v6, IPPROTO_UDP, 1, 5000, 200, 53);
	struct cl *l = cl_new(test);
	struct mmb_tuple t, r;

	mmbt_rule_add(test, l->r, true, MMB_TARGET_ACCEPT, &all, 1);
	t = cl_tuple(l, &d);
	mmb_tuple_invert(&t, &r);
	cl_arm(l, cl_flush_now);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), -ENOSPC);
	KUNIT_EXPECT_EQ(test, l->calls, 1);
	KUNIT_EXPECT_FALSE(test, cl_in_table(l, &t));
	KUNIT_EXPECT_FALSE(test, cl_in_table(l, &r));
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_ENDED), 1);
	/* Freed after a grace period, and no more than once. */
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_TRUE(test, cl_in_table(l, &t));
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 2);
	mmb_conns_flush(&l->mc);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	KUNIT_EXPECT_FALSE(test, cl_in_table(l, &t));
	rcu_barrier();
}

static void conn_life_flush_half_test(struct kunit *test)
{
	conn_life_flush_half_family(test, false);
}

static void conn_life_flush_half6_test(struct kunit *test)
{
	conn_life_flush_half_family(test, true);
}

static void cl_send_skb(struct cl *l, struct mmb_conn *half)
{
	l->ret = cl_run(l, l->skb, &l->v);
}

/*
 * With conn-max 1, another flow's first packet makes room while a
 * connection is half in, from the bucket that holds its reply node: it
 * is not evicted; the other packet is refused, and the connection is
 * whole and used.
 */
static void conn_life_evict_half_test(struct kunit *test)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc d = cl_pkt(false, IPPROTO_UDP, 1, 5000, 200, 53), e;
	const struct bucket_table *tbl;
	struct cl *l = cl_new(test);
	struct mmb_tuple t, r, u;
	unsigned int port, mask;
	u32 seed;

	mmbt_rule_add(test, l->r, true, MMB_TARGET_ACCEPT, &all, 1);
	l->mc.max = 1;
	t = cl_tuple(l, &d);
	mmb_tuple_invert(&t, &r);
	r.dir = MMB_DIR_ORIG;
	rcu_read_lock();
	tbl = rht_dereference_rcu(l->mc.ht.tbl, &l->mc.ht);
	seed = tbl->hash_rnd;
	mask = tbl->size - 1;
	rcu_read_unlock();
	/* A flow whose bucket is the one of @d's reply node: eviction starts there. */
	for (port = 1024; port < 65536; port++) {
		e = cl_pkt(false, IPPROTO_UDP, 2, port, 200, 53);
		u = cl_tuple(l, &e);
		if (!((mmb_conn_hash(&u, seed) ^ mmb_conn_hash(&r, seed)) & mask))
			break;
	}
	KUNIT_ASSERT_LT(test, port, 65536);
	l->skb = mmbt_pkt_build(l->dev, &e);
	KUNIT_ASSERT_NOT_NULL(test, l->skb);
	cl_arm(l, cl_send_skb);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	kfree_skb(l->skb);
	KUNIT_EXPECT_EQ(test, l->calls, 1);
	KUNIT_EXPECT_EQ(test, l->ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_EVICTED), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_REFUSED), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 1);
	KUNIT_EXPECT_TRUE(test, cl_in_table(l, &t));
	KUNIT_EXPECT_FALSE(test, cl_in_table(l, &u));
	rcu_barrier();
	/* Whole: the reply finds it. */
	e = cl_pkt(false, IPPROTO_UDP, 200, 53, 1, 5000);
	e.daddr[2] = 0;
	e.saddr[2] = 1;
	KUNIT_EXPECT_EQ(test, cl_send(l, &e), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	mmb_conns_flush(&l->mc);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	rcu_barrier();
}

struct cl_thread {
	struct cl *l;
	struct completion done;
	unsigned int seed, sent, passed;
	int errors;
	bool *stop;
};

#define CL_FLOWS	256
#define CL_PACKETS	4096

/* Open and use flows, both ways; a packet passes or its connection was flushed. */
static int cl_sender_fn(void *data)
{
	struct cl_thread *th = data;
	struct rnd_state rnd;
	unsigned int i, f;

	prandom_seed_state(&rnd, th->seed);
	for (i = 0; i < CL_PACKETS; i++) {
		struct mmbt_pkt_desc d;
		int ret;

		f = prandom_u32_state(&rnd) % CL_FLOWS;
		if (prandom_u32_state(&rnd) & 1) {
			d = cl_pkt(false, IPPROTO_UDP, 1 + f % 50, 5000 + f, 200, 53);
		} else {
			d = cl_pkt(false, IPPROTO_UDP, 200, 53, 1 + f % 50, 5000 + f);
			d.saddr[2] = 1;
			d.daddr[2] = 0;
		}
		ret = cl_send(th->l, &d);
		if (ret == 1)
			th->passed++;
		else if (ret != -ENOSPC)
			th->errors++;
		th->sent++;
		if (!(i % 16))
			cond_resched();
	}
	complete(&th->done);
	return 0;
}

static int cl_flusher_fn(void *data)
{
	struct cl_thread *th = data;

	while (!READ_ONCE(*th->stop)) {
		mmb_conns_flush(&th->l->mc);
		th->sent++;
		cond_resched();
	}
	complete(&th->done);
	return 0;
}

/*
 * Threads open and use flows while another flushes the table in a loop:
 * nothing is left behind, freed twice or used freed (the debug kernel's
 * KASAN and DEBUG_OBJECTS_RCU_HEAD watch), and the counts add up.
 */
static void conn_life_flush_stress_test(struct kunit *test)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct cl *l = cl_new(test);
	unsigned int i, total = mmb_conns_total();
	struct cl_thread th[3];
	bool stop = false;

	mmbt_rule_add(test, l->r, true, MMB_TARGET_ACCEPT, &all, 1);
	for (i = 0; i < ARRAY_SIZE(th); i++) {
		struct task_struct *task;

		th[i] = (struct cl_thread){ .l = l, .seed = 31 + i, .stop = &stop };
		init_completion(&th[i].done);
		task = kthread_run(i ? cl_sender_fn : cl_flusher_fn, &th[i], "mmbt-life/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 1; i < ARRAY_SIZE(th); i++) {
		wait_for_completion(&th[i].done);
		KUNIT_EXPECT_EQ(test, th[i].errors, 0);
		KUNIT_EXPECT_EQ(test, th[i].sent, CL_PACKETS);
		KUNIT_EXPECT_GT(test, th[i].passed, 0);
	}
	WRITE_ONCE(stop, true);
	wait_for_completion(&th[0].done);
	kunit_info(test, "%u flushes\n", th[0].sent);
	mmb_conns_flush(&l->mc);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.ht.nelems), 0);
	KUNIT_EXPECT_EQ(test, mmb_conns_total(), total);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED),
			cl_stat(&l->mc, MMB_CSTAT_ENDED));
	rcu_barrier();
}

/* --- the loser of a race to create a connection ------------------------------- */

/* Another CPU creates the same connection, whole, between our two inserts. */
static void cl_win(struct cl *l, struct mmb_conn *half)
{
	l->ret = cl_run(l, l->skb, &l->v);
}

/*
 * Two CPUs create the same NATed connection; the one whose orig node
 * finds the other's in place loses, and its packet leaves NATed as the
 * winner's connection says, not with the client's private address.
 */
static void conn_life_race_nat_family(struct kunit *test, bool v6)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmbt_target tg[2] = {
		{ .type = MMB_TARGET_MOD, .vlen = v6 ? 16 : 4,
		  .field = v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR },
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_UDP_SPORT, .vlen = 4,
		  .value = { 20000 >> 8, 20000 & 0xff, 20999 >> 8, 20999 & 0xff } },
	};
	struct mmbt_pkt_desc d = cl_pkt(v6, IPPROTO_UDP, 1, 5000, 200, 53);
	unsigned int l4 = v6 ? 40 : 20, alen = v6 ? 16 : 4, saddr = v6 ? 8 : 12;
	struct cl *l = cl_new(test);
	struct mmb_verdict v;
	struct sk_buff *skb;
	u16 port;

	tg[0].value[0] = v6 ? 0x20 : 203;
	tg[0].value[1] = v6 ? 0x01 : 0;
	tg[0].value[alen - 1] = 1;
	mmbt_rule_targets(test, l->r, true, &m, 1, tg, 2);
	l->skb = mmbt_pkt_build(l->dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, l->skb);
	skb = mmbt_pkt_build(l->dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	cl_arm(l, cl_win);
	KUNIT_EXPECT_EQ(test, cl_run(l, skb, &v), 1);
	KUNIT_EXPECT_EQ(test, l->calls, 1);
	KUNIT_EXPECT_EQ(test, l->ret, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	/* The loser's packet: in the winner's connection, rewritten as the winner's. */
	KUNIT_EXPECT_PTR_EQ(test, v.conn, l->v.conn);
	KUNIT_EXPECT_EQ(test, v.dir, MMB_DIR_ORIG);
	KUNIT_EXPECT_EQ(test, memcmp(skb->data + saddr, l->skb->data + saddr, alen), 0);
	KUNIT_EXPECT_EQ(test, skb->data[saddr], v6 ? 0x20 : 203);
	port = get_unaligned_be16(skb->data + l4);
	KUNIT_EXPECT_EQ(test, port, get_unaligned_be16(l->skb->data + l4));
	KUNIT_EXPECT_GE(test, port, 20000);
	KUNIT_EXPECT_LE(test, port, 20999);
	KUNIT_EXPECT_TRUE(test, mmbt_csums_ok(skb, v6, l4, IPPROTO_UDP));
	if (v.conn)
		KUNIT_EXPECT_EQ(test, atomic64_read(&v.conn->packets[MMB_DIR_ORIG]), 2);
	kfree_skb(skb);
	kfree_skb(l->skb);
	mmb_conns_flush(&l->mc);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	rcu_barrier();
}

static void conn_life_race_nat_test(struct kunit *test)
{
	conn_life_race_nat_family(test, false);
}

static void conn_life_race_nat6_test(struct kunit *test)
{
	conn_life_race_nat_family(test, true);
}

/* --- more stateful rules than a connection keeps -------------------------------- */

/*
 * Five stateful rules match a SYN, the last a drop: the connection could
 * keep only four. Neither the SYN nor its retransmission passes and no
 * connection is made (the drop decides first: a dropped packet starts
 * none). Five that rewrite: the rule left out would not rewrite the
 * connection's later packets, so none starts and the packets are dropped,
 * counted as many-rules.
 */
static void conn_life_many_rules_test(struct kunit *test)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc d = cl_pkt(false, IPPROTO_TCP, 1, 5000, 200, 80);
	struct mmbt_target ttl = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_TTL,
				   .vlen = 1, .value = { 60 } };
	struct cl *l = cl_new(test);
	unsigned int i;

	for (i = 0; i < 4; i++)
		mmbt_rule_targets(test, l->r, true, &all, 1, &ttl, 1);
	mmbt_rule_add(test, l->r, true, MMB_TARGET_DROP, &all, 1);
	KUNIT_EXPECT_NE(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_NE(test, cl_send(l, &d), 1);	/* the retransmitted SYN */
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 0);
	/* Five that rewrite. */
	l = cl_new(test);
	for (i = 0; i < 5; i++)
		mmbt_rule_targets(test, l->r, true, &all, 1, &ttl, 1);
	KUNIT_EXPECT_NE(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_NE(test, cl_send(l, &d), 1);	/* the retransmitted SYN */
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_MANY_RULES), 2);
	/* Four are kept: the connection is made as before. */
	d.sport = 5001;
	l = cl_new(test);
	for (i = 0; i < 4; i++)
		mmbt_rule_targets(test, l->r, true, &all, 1, &ttl, 1);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_MANY_RULES), 0);
}

/* add-stateful priority @prio [conn-priority @cprio] all @target, inserted. */
static struct mmb_rule *cl_prio_rule(struct cl *l, u8 target, u32 prio, u32 cprio)
{
	struct mmb_rule_spec *s = kunit_kzalloc(l->test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(l->test, s);
	s->m[0] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	s->nmatches = 1;
	s->ntargets = 1;
	s->t[0].type = target;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->stateful = true;
	s->prio = prio;
	s->conn_prio = cprio;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(l->test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(l->test, mmbt_insert(l->r, rule, NULL), 0);
	return rule;
}

/*
 * A first-match chain's accepts, each stateful (as mmbctl import writes
 * them): six match a SYN, at falling priorities. The connection keeps
 * four; the others are cut off by the first's accept, and a connection
 * keeps no rule its first packet's verdict cut off: leaving them out
 * changes nothing, the connection is made, the SYN passes; also with a
 * drop below them (the chain's policy), whatever its connection priority.
 * Five at one priority (all apply) are still too many.
 */
static void conn_life_many_ordered_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = cl_pkt(false, IPPROTO_TCP, 1, 5000, 200, 80);
	struct cl *l = cl_new(test);
	unsigned int i;

	for (i = 0; i < 6; i++)
		cl_prio_rule(l, MMB_TARGET_ACCEPT, 10 - i, 1000);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_MANY_RULES), 0);
	/* a drop below the accepts, the chain's policy: cut off too */
	l = cl_new(test);
	for (i = 0; i < 5; i++)
		cl_prio_rule(l, MMB_TARGET_ACCEPT, 10 - i, 10 - i);
	cl_prio_rule(l, MMB_TARGET_DROP, 0, 0);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	l = cl_new(test);
	for (i = 0; i < 4; i++)
		cl_prio_rule(l, MMB_TARGET_ACCEPT, 10 - i, 1000);
	cl_prio_rule(l, MMB_TARGET_DROP, 1, 2000);
	KUNIT_EXPECT_EQ(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_MANY_RULES), 0);
	/* one priority: all apply */
	l = cl_new(test);
	for (i = 0; i < 5; i++)
		cl_prio_rule(l, MMB_TARGET_ACCEPT, 5, 5);
	KUNIT_EXPECT_NE(test, cl_send(l, &d), 1);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_MANY_RULES), 1);
}

/* --- the module's cap -------------------------------------------------------------- */

/* @d's flow, and its reply: assured, it cannot be evicted. */
static int cl_assured(struct cl *l, struct mmbt_pkt_desc d)
{
	int ret = cl_send(l, &d);
	u8 a[16];

	swap(d.sport, d.dport);
	memcpy(a, d.saddr, 16);
	memcpy(d.saddr, d.daddr, 16);
	memcpy(d.daddr, a, 16);
	return ret == 1 ? cl_send(l, &d) : ret;
}

/*
 * Two namespaces' tables of conn-max 4 each, under a module cap that
 * leaves room for 6: the 7th connection is refused in whichever table
 * asks (none of its own to evict), counted there as capped; one that
 * ends makes room.
 */
static void conn_life_cap_test(struct kunit *test)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct cl *a = cl_new(test), *b = cl_new(test);
	struct mmbt_pkt_desc d;
	unsigned int i;

	struct cl *host = cl_new(test);

	/* Tables of namespaces other than the initial one, before any connection. */
	a->mc.shared = true;
	b->mc.shared = true;
	mmbt_rule_add(test, a->r, true, MMB_TARGET_ACCEPT, &all, 1);
	mmbt_rule_add(test, b->r, true, MMB_TARGET_ACCEPT, &all, 1);
	mmbt_rule_add(test, host->r, true, MMB_TARGET_ACCEPT, &all, 1);
	a->mc.max = 4;
	b->mc.max = 4;
	mmbt_conn_cap(test, mmb_conns_total() + 6);
	for (i = 0; i < 4; i++) {
		d = cl_pkt(false, IPPROTO_UDP, 1, 5000 + i, 200, 53);
		KUNIT_EXPECT_EQ(test, cl_assured(a, d), 1);
	}
	for (i = 0; i < 4; i++) {
		d = cl_pkt(false, IPPROTO_UDP, 2, 5000 + i, 200, 53);
		KUNIT_EXPECT_EQ(test, cl_assured(b, d), i < 2 ? 1 : -ENOSPC);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&a->mc.count), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->mc.count), 2);
	KUNIT_EXPECT_EQ(test, cl_stat(&b->mc, MMB_CSTAT_CAPPED), 2);
	KUNIT_EXPECT_EQ(test, cl_stat(&b->mc, MMB_CSTAT_REFUSED), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&a->mc, MMB_CSTAT_CAPPED), 0);
	/* The initial namespace's table is bounded by its conn-max alone. */
	for (i = 0; i < 8; i++) {
		d = cl_pkt(false, IPPROTO_UDP, 4, 5000 + i, 200, 53);
		KUNIT_EXPECT_EQ(test, cl_send(host, &d), 1);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&host->mc.count), 8);
	KUNIT_EXPECT_EQ(test, cl_stat(&host->mc, MMB_CSTAT_CAPPED), 0);
	/* Room again once A's go. */
	mmb_conns_flush(&a->mc);
	d = cl_pkt(false, IPPROTO_UDP, 2, 5003, 200, 53);
	KUNIT_EXPECT_EQ(test, cl_send(b, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->mc.count), 3);
	KUNIT_EXPECT_EQ(test, cl_stat(&b->mc, MMB_CSTAT_CAPPED), 2);
	KUNIT_EXPECT_EQ(test, cl_stat(&b->mc, MMB_CSTAT_EVICTED), 0);
}

/*
 * A namespace at the module's cap makes room among its own connections
 * that may go (unassured), as at its own conn-max: a flow of new ones
 * keeps coming up.
 */
static void conn_life_cap_evict_test(struct kunit *test)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct cl *l = cl_new(test);
	struct mmbt_pkt_desc d;
	unsigned int i, made = 0;

	l->mc.shared = true;
	mmbt_rule_add(test, l->r, true, MMB_TARGET_ACCEPT, &all, 1);
	mmbt_conn_cap(test, mmb_conns_total() + 50);
	for (i = 0; i < 400; i++) {
		d = cl_pkt(false, IPPROTO_UDP, 3, 7000 + i, 200, 53);
		made += cl_send(l, &d) == 1;
		KUNIT_ASSERT_LE(test, atomic_read(&l->mc.count), 50);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 50);
	KUNIT_EXPECT_GT(test, cl_stat(&l->mc, MMB_CSTAT_EVICTED), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED), made);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CREATED),
			50 + cl_stat(&l->mc, MMB_CSTAT_EVICTED));
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_CAPPED), 400 - made);
}

/*
 * The default cap is nf_conntrack_max's, and the default conn-max of no
 * namespace but the initial one exceeds it.
 */
static void conn_life_cap_default_test(struct kunit *test)
{
	u64 mem = (u64)totalram_pages() << PAGE_SHIFT;
	u32 n = mmb_conn_default_max_total();
	struct cl *l;

	kunit_info(test, "%llu MiB: conn_max_total %u\n", mem >> 20, n);
	if (mem > 4ULL * SZ_1G)
		KUNIT_EXPECT_EQ(test, n, 262144);
	else if (mem > SZ_1G)
		KUNIT_EXPECT_EQ(test, n, 65536);
	else
		KUNIT_EXPECT_EQ(test, n, max_t(u64, 1024, mem / 16384 / sizeof(void *)));
	mmbt_conn_cap(test, 2000);
	KUNIT_EXPECT_LE(test, mmb_conns_default_max(true), 2000);
	l = cl_new(test);
	KUNIT_EXPECT_FALSE(test, l->mc.shared);
	KUNIT_EXPECT_EQ(test, l->mc.max, mmb_conns_default_max(false));
}

/* --- the GC while the table is resized ------------------------------------------------ */

static void cl_rehash(struct cl *l)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		flush_work(&l->mc.ht.run_work);
}

static unsigned int cl_size(struct cl *l)
{
	unsigned int size;

	rcu_read_lock();
	size = rht_dereference_rcu(l->mc.ht.tbl, &l->mc.ht)->size;
	rcu_read_unlock();
	return size;
}

/* End @d's connection. */
static void cl_end(struct cl *l, const struct mmbt_pkt_desc *d)
{
	struct mmb_tuple t = cl_tuple(l, d);
	struct mmb_conn *c;
	u8 dir;

	rcu_read_lock();
	c = mmb_conn_find(&l->mc, &t, &dir);
	if (c)
		mmb_conn_kill(&l->mc, c, MMB_CSTAT_ENDED);
	rcu_read_unlock();
}

/*
 * The table grows and shrinks between every two runs of the GC: a pass
 * still ends, in about as many runs as without a resize.
 */
static void conn_life_gc_resize_test(struct kunit *test)
{
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct cl *l = cl_new(test);
	unsigned int i, runs, resizes = 0, size;
	struct mmbt_pkt_desc d;
	bool end = false;

	mmbt_rule_add(test, l->r, true, MMB_TARGET_ACCEPT, &all, 1);
	/*
	 * 70 connections, 140 nodes: 256 buckets. 30 more, 200 nodes: past
	 * 75%, 512. Without them again, below 30%: 256.
	 */
	for (i = 0; i < 70; i++) {
		d = cl_pkt(false, IPPROTO_UDP, 1, 1000 + i, 200, 53);
		KUNIT_ASSERT_EQ(test, cl_send(l, &d), 1);
	}
	cl_rehash(l);
	KUNIT_ASSERT_EQ(test, cl_size(l), 256);
	mutex_lock(&l->mc.lock);
	for (runs = 1; runs <= 100; runs++) {
		end = mmb_conns_gc_run(&l->mc, 8);
		if (end)
			break;
		size = cl_size(l);
		for (i = 0; i < 30; i++) {
			d = cl_pkt(false, IPPROTO_UDP, 2, 1000 + i, 200, 53);
			if (size == 256)
				cl_send(l, &d);
			else
				cl_end(l, &d);
		}
		cl_rehash(l);
		resizes += cl_size(l) != size;
	}
	mutex_unlock(&l->mc.lock);
	kunit_info(test, "%u runs, %u resizes\n", runs, resizes);
	KUNIT_EXPECT_TRUE(test, end);
	KUNIT_EXPECT_GE(test, resizes, 4);
	KUNIT_EXPECT_LE(test, runs, 60);
	/* Nothing ended that had not expired; then all of them expire. */
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_EXPIRED), 0);
	for (i = 0; i < 30; i++) {
		d = cl_pkt(false, IPPROTO_UDP, 2, 1000 + i, 200, 53);
		cl_end(l, &d);
	}
	WRITE_ONCE(mmb_test_points.clock, mmb_test_points.clock + 40 * HZ);
	for (i = 0; i < 4 && atomic_read(&l->mc.count); i++)
		mmb_conns_gc(&l->mc, 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	KUNIT_EXPECT_EQ(test, cl_stat(&l->mc, MMB_CSTAT_EXPIRED), 70);
	rcu_barrier();
}

static struct kunit_case mmb_conn_life_cases[] = {
	KUNIT_CASE(conn_life_flush_half_test),
	KUNIT_CASE(conn_life_flush_half6_test),
	KUNIT_CASE(conn_life_evict_half_test),
	KUNIT_CASE(conn_life_flush_stress_test),
	KUNIT_CASE(conn_life_race_nat_test),
	KUNIT_CASE(conn_life_race_nat6_test),
	KUNIT_CASE(conn_life_many_rules_test),
	KUNIT_CASE(conn_life_many_ordered_test),
	KUNIT_CASE(conn_life_cap_test),
	KUNIT_CASE(conn_life_cap_evict_test),
	KUNIT_CASE(conn_life_cap_default_test),
	KUNIT_CASE(conn_life_gc_resize_test),
	{}
};

static struct kunit_suite mmb_conn_life_suite = {
	.name = "mmb-conn-life",
	.test_cases = mmb_conn_life_cases,
};

kunit_test_suite(mmb_conn_life_suite);
