// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: ct count, a per-key cap on connections (kmod/ctcount.c).
 * Packets go through the datapath's steps against rules and a connection
 * table of the test's own; time moves with the test clock.
 */
#include <linux/kthread.h>
#include <net/genetlink.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/test.h"
#include "nlt.h"
#include "util.h"

struct cc {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
};

static void cc_free(void *data)
{
	struct cc *c = data;

	mmb_conns_exit(&c->mc);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct cc *cc_new(struct kunit *test)
{
	struct cc *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->dev = mmbt_netdev_create(test);
	c->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&c->mc, &init_net), 0);
	c->mc.rpf = false;	/* both ways on one device, no routes */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cc_free, c), 0);
	WRITE_ONCE(mmb_test_points.clock, -1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return c;
}

static void cc_wait(unsigned int secs)
{
	WRITE_ONCE(mmb_test_points.clock, mmb_test_points.clock + secs * HZ);
}

/* A spec of "MATCH [ct count [over] LIMIT per PER[/PLEN] size SIZE] TARGET". */
static struct mmb_rule_spec *cc_spec(struct kunit *test, bool stateful, u8 target,
				     const struct mmb_match_spec *m, u32 limit, bool over,
				     u16 per, u8 plen, u32 size)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[0] = *m;
	s->nmatches = 1;
	s->ntargets = 1;
	s->stateful = stateful;
	s->t[0].type = target;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->cc = (struct mmb_cc_spec){ .set = true, .limit = limit, .over = over, .per = per,
				      .plen = plen, .size = size };
	return s;
}

static struct mmb_rule *cc_rule_at(struct cc *c, u32 prio, bool stateful, u8 target,
				   const struct mmb_match_spec *m, u32 limit, bool over, u16 per,
				   u8 plen, u32 size)
{
	struct mmb_rule_spec *s = cc_spec(c->test, stateful, target, m, limit, over, per, plen,
					  size);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	s->prio = prio;
	s->conn_prio = prio;
	rule = mmb_rule_create(s, NULL, &err);

	if (IS_ERR(rule))
		KUNIT_FAIL(c->test, "rule refused: %s", err.msg);
	KUNIT_ASSERT_FALSE(c->test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(c->test, mmbt_insert(c->r, rule, NULL), 0);
	return rule;
}

static struct mmb_rule *cc_rule(struct cc *c, bool stateful, u8 target,
				const struct mmb_match_spec *m, u32 limit, bool over, u16 per,
				u8 plen, u32 size)
{
	return cc_rule_at(c, 0, stateful, target, m, limit, over, per, plen, size);
}

/* A TCP segment from client @from (10.0.0.x / fd00::x) port @sport to 10.0.1.200:22. */
static struct mmbt_pkt_desc cc_pkt(bool v6, u16 from, u16 sport, u8 flags)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_TCP, .ttl = 64, .sport = sport, .dport = 22,
		.tcp_flags = flags, .seq = 0xabcdef00U,
	};

	if (v6) {
		d.saddr[0] = 0xfd;
		d.saddr[14] = from >> 8;
		d.saddr[15] = from;
		d.daddr[0] = 0xfd;
		d.daddr[7] = 1;
		d.daddr[15] = 200;
	} else {
		d.saddr[0] = 10;
		d.saddr[2] = from >> 8;
		d.saddr[3] = from;
		d.daddr[0] = 10;
		d.daddr[2] = 1;
		d.daddr[3] = 200;
	}
	return d;
}

/* The reply of @d (the server's). */
static struct mmbt_pkt_desc cc_reply(const struct mmbt_pkt_desc *d, u8 flags)
{
	struct mmbt_pkt_desc r = *d;

	memcpy(r.saddr, d->daddr, 16);
	memcpy(r.daddr, d->saddr, 16);
	r.sport = d->dport;
	r.dport = d->sport;
	r.tcp_flags = flags;
	return r;
}

/* 1: @d passes, 0: dropped by a rule, or the error that drops it. */
static int cc_send(struct cc *c, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(c->dev, d);

	if (!skb)
		return -ENOMEM;
	return mmbt_judge(c->r, &c->mc, skb);
}

/* Connections the key table of @rule counts, over all keys (read unlocked: quiet). */
static u32 cc_total(const struct mmb_rule *rule)
{
	const struct mmb_cc *cc = rule->cc;
	u32 i, j, n = 0;

	for (i = 0; i <= cc->mask; i++)
		for (j = 0; j < MMB_CC_SLOTS; j++)
			n += READ_ONCE(cc->b[i].s[j].count);
	return n;
}

/* What the key of @d holds in @rule's table. */
static u32 cc_key(struct cc *c, const struct mmb_rule *rule, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(c->dev, d);
	struct mmb_pkt pkt;
	u32 n;

	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	KUNIT_ASSERT_EQ(c->test, mmb_parse(skb, &pkt), 0);
	n = mmb_cc_count(rule->cc, &pkt);
	kfree_skb(skb);
	return n;
}

static u32 cc_conns(struct cc *c)
{
	return atomic_read(&c->mc.count);
}

/*
 * add-stateful tcp-dport 22 ct count 3 per SADDR accept, then all drop:
 * a fourth connection from one source falls to the drop, another source
 * has its own three; both families.
 */
static void cc_cap_family(struct kunit *test, bool v6)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_rule *rule;
	struct mmbt_pkt_desc d;
	unsigned int i;

	rule = cc_rule(c, true, MMB_TARGET_ACCEPT, &ssh, 3, false,
		       v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR, 0, 0);
	mmbt_rule_add(test, c->r, false, MMB_TARGET_DROP, &all, 1);
	for (i = 0; i < 3; i++) {
		d = cc_pkt(v6, 1, 40000 + i, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
		/* Its later packets, both ways, pass: they are its connection's. */
		d.tcp_flags = TCPHDR_ACK;
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	}
	d = cc_pkt(v6, 1, 40003, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 0);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 3);
	KUNIT_EXPECT_EQ(test, cc_key(c, rule, &d), 3);
	/* The fourth again: still over. The first three's packets still pass. */
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 0);
	d = cc_pkt(v6, 1, 40001, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	d = cc_reply(&d, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	/* Another source: its own three. */
	for (i = 0; i < 4; i++) {
		d = cc_pkt(v6, 2, 40000 + i, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), i < 3);
	}
	KUNIT_EXPECT_EQ(test, cc_conns(c), 6);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&rule->cc->keys), 2);
	mmb_conns_flush(&c->mc);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rule->cc->keys), 0);
}

static void conncount_cap_test(struct kunit *test)
{
	cc_cap_family(test, false);
	cc_cap_family(test, true);
}

/*
 * per ip-saddr/24: the sources of one /24 share a count; without per, the
 * rule keeps one count for all.
 */
static void conncount_prefix_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec web = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
	struct mmb_rule *one;
	struct mmbt_pkt_desc d;

	cc_rule(c, true, MMB_TARGET_ACCEPT, &ssh, 2, false, MMB_FIELD_IP_SADDR, 24, 0);
	d = cc_pkt(false, 1, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	d = cc_pkt(false, 2, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	/* 10.0.0.3: the same /24, over; 10.0.1.3: another /24. */
	d = cc_pkt(false, 3, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);	/* no rule: passed, untracked */
	KUNIT_EXPECT_EQ(test, cc_conns(c), 2);
	d = cc_pkt(false, 256 + 3, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 3);
	/* One count for the rule. */
	one = cc_rule(c, true, MMB_TARGET_ACCEPT, &web, 2, false, 0, 0, 0);
	d = cc_pkt(false, 1, 40000, TCPHDR_SYN);
	d.dport = 80;
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	d = cc_pkt(false, 256 + 9, 40000, TCPHDR_SYN);
	d.dport = 80;
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	d = cc_pkt(true, 5, 40000, TCPHDR_SYN);
	d.dport = 80;
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 5);
	KUNIT_EXPECT_EQ(test, cc_total(one), 2);
}

/*
 * The count goes down on every way out: a TCP close (RST), the GC after a
 * timeout, a flush, the deletion of the rule; a new connection then fits.
 */
static void conncount_end_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_rule *rule;
	struct mmbt_pkt_desc d;
	struct mmb_txn txn;
	unsigned int i;

	rule = cc_rule(c, true, MMB_TARGET_ACCEPT, &ssh, 2, false, MMB_FIELD_IP_SADDR, 0, 0);
	for (i = 0; i < 2; i++) {
		d = cc_pkt(false, 1, 40000 + i, TCPHDR_SYN);
		KUNIT_ASSERT_EQ(test, cc_send(c, &d), 1);
	}
	d = cc_pkt(false, 1, 40002, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);	/* passed untracked: no rule */
	KUNIT_EXPECT_EQ(test, cc_conns(c), 2);
	KUNIT_EXPECT_EQ(test, cc_key(c, rule, &d), 2);

	/* TCP: the client's RST: close, no longer counted. */
	d = cc_pkt(false, 1, 40000, TCPHDR_RST);
	KUNIT_ASSERT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_key(c, rule, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 2);	/* in close, still in the table */
	d = cc_pkt(false, 1, 40002, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 3);
	KUNIT_EXPECT_EQ(test, cc_key(c, rule, &d), 2);
	/* The closed one leaves the table later: counted once, not twice. */
	cc_wait(11);
	mmb_conns_gc(&c->mc, 16);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 2);
	KUNIT_EXPECT_EQ(test, cc_key(c, rule, &d), 2);

	/* The timeout of syn-sent (120 s), by the GC: both go. */
	cc_wait(121);
	mmb_conns_gc(&c->mc, 16);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 0);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rule->cc->keys), 0);

	/* A flush of the connections. */
	for (i = 0; i < 3; i++) {
		d = cc_pkt(false, 1, 41000 + i, TCPHDR_SYN);
		cc_send(c, &d);
	}
	KUNIT_EXPECT_EQ(test, cc_total(rule), 2);
	mmb_conns_flush(&c->mc);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 0);
	for (i = 0; i < 2; i++) {
		d = cc_pkt(false, 1, 42000 + i, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	}
	KUNIT_EXPECT_EQ(test, cc_total(rule), 2);

	/* The rule deleted: its connections end, its table gives them back. */
	refcount_inc(&rule->ref);	/* to look at it after */
	KUNIT_ASSERT_EQ(test, mmb_txn_begin(c->r, &txn, MMB_TXN_INPLACE), 0);
	KUNIT_ASSERT_EQ(test, mmb_txn_del(&txn, rule->handle), 0);
	mmb_txn_commit(&txn);
	mmb_conns_kick(&c->mc);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 0);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 0);
	/* Only the rule's own reference on its table is left. */
	KUNIT_EXPECT_EQ(test, refcount_read(&rule->cc->ref), 1);
	mmb_rule_put(rule);
}

/*
 * A SYN on the tuple of a counted TCP connection that closed (a new
 * incarnation, for the table) is counted as a new connection: the old one
 * ends, and a client cannot reuse its ports to get past the cap.
 */
static void conncount_reborn_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_rule *rule;
	struct mmbt_pkt_desc d;
	u64 n[MMB_CSTAT_MAX];

	rule = cc_rule(c, true, MMB_TARGET_ACCEPT, &ssh, 1, false, MMB_FIELD_IP_SADDR, 0, 0);
	mmbt_rule_add(test, c->r, false, MMB_TARGET_DROP, &all, 1);
	d = cc_pkt(false, 1, 40000, TCPHDR_SYN);
	KUNIT_ASSERT_EQ(test, cc_send(c, &d), 1);
	d.tcp_flags = TCPHDR_RST;
	KUNIT_ASSERT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 0);
	/* The same tuple again: a new connection, counted. */
	d.tcp_flags = TCPHDR_SYN;
	d.seq += 1000;
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_total(rule), 1);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 1);
	mmb_conns_stats(&c->mc, n);
	KUNIT_EXPECT_EQ(test, n[MMB_CSTAT_CREATED], 2);
	/* So the cap of 1 holds: another port is refused. */
	d = cc_pkt(false, 1, 40001, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 0);
	/* Its later packets are the new connection's. */
	d = cc_pkt(false, 1, 40000, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
}

/* "tcp-dport 22 ct count @limit per ip-saddr accept" and "all drop", loaded whole. */
static unsigned int cc_load(struct cc *c, u32 limit, struct mmb_rule **counted)
{
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_target drop = { .type = MMB_TARGET_DROP };
	struct mmb_rule_err err = {};
	struct mmb_rule *rule, *rest;
	struct mmb_txn txn;

	rule = mmb_rule_create(cc_spec(c->test, true, MMB_TARGET_ACCEPT, &ssh, limit, false,
				       MMB_FIELD_IP_SADDR, 0, 0), NULL, &err);
	KUNIT_ASSERT_FALSE(c->test, IS_ERR(rule));
	*counted = rule;
	rest = mmbt_rule_make(c->test, false, &all, 1, &drop, 1);
	KUNIT_ASSERT_EQ(c->test, mmb_txn_begin(c->r, &txn, MMB_TXN_COPY), 0);
	KUNIT_ASSERT_EQ(c->test, mmb_txn_flush(&txn), 0);
	KUNIT_ASSERT_EQ(c->test, mmb_txn_add(&txn, rule, NULL), 0);
	KUNIT_ASSERT_EQ(c->test, mmb_txn_add(&txn, rest, NULL), 0);
	mmb_txn_commit(&txn);
	if (txn.ended)
		mmb_conns_kick(&c->mc);
	return txn.ended;
}

/*
 * A reload that adds the rule back unchanged hands its connections over
 * (they pass), and its counts start again from 0 (as nft's re-created
 * meter): docs/conncount.md, Reloads. A changed cap is another rule.
 */
static void conncount_reload_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_rule *old, *heir;
	struct mmbt_pkt_desc d;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, cc_load(c, 2, &old), 0);
	for (i = 0; i < 3; i++) {
		d = cc_pkt(false, 1, 40000 + i, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), i < 2);
	}
	KUNIT_EXPECT_EQ(test, cc_load(c, 2, &heir), 0);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 2);
	d = cc_pkt(false, 1, 40001, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	/* The heir's table starts empty: two more. */
	KUNIT_EXPECT_EQ(test, cc_total(heir), 0);
	for (i = 0; i < 3; i++) {
		d = cc_pkt(false, 1, 41000 + i, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), i < 2);
	}
	KUNIT_EXPECT_EQ(test, cc_total(heir), 2);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 4);
	/* Another cap: another rule, whose connections end. */
	KUNIT_EXPECT_EQ(test, cc_load(c, 3, &heir), 1);
	KUNIT_EXPECT_EQ(test, cc_conns(c), 0);
	KUNIT_EXPECT_EQ(test, cc_total(heir), 0);
}

/*
 * A stateless "ct count over 2 per ip-saddr reject"-like rule (drop here)
 * above a stateful accept: it counts the connections its first packets
 * started through the stateful rule, and drops the third; its count
 * outlives its deletion until those connections end.
 */
static void conncount_over_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_rule *over;
	struct mmbt_pkt_desc d;
	struct mmb_cc *cc;
	unsigned int i;

	mmbt_rule_add(test, c->r, true, MMB_TARGET_ACCEPT, &ssh, 1);
	/* Above the accept: at equal priority accept beats drop. */
	over = cc_rule_at(c, 10, false, MMB_TARGET_DROP, &ssh, 2, true, MMB_FIELD_IP_SADDR, 0, 0);
	for (i = 0; i < 4; i++) {
		d = cc_pkt(false, 1, 40000 + i, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, cc_send(c, &d), i < 2);
	}
	KUNIT_EXPECT_EQ(test, cc_conns(c), 2);
	KUNIT_EXPECT_EQ(test, cc_total(over), 2);
	/* Packets of the two: 2 is not over 2, they pass. */
	d = cc_pkt(false, 1, 40001, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	/* Another source: its own two. */
	d = cc_pkt(false, 2, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_total(over), 3);
	/* Deleted: the connections still hold its table; they end, it goes. */
	cc = over->cc;
	refcount_inc(&cc->ref);
	KUNIT_ASSERT_EQ(test, mmbt_remove(c->r, over), 0);
	mmb_rules_barrier();
	KUNIT_EXPECT_EQ(test, refcount_read(&cc->ref), 4);	/* ours and 3 charges */
	mmb_conns_flush(&c->mc);
	KUNIT_EXPECT_EQ(test, refcount_read(&cc->ref), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&cc->keys), 0);
	mmb_cc_put(cc);

	/*
	 * A large (vmalloc()ed) table whose last reference is a connection's,
	 * dropped by a flush under RCU: freed after a grace period, quietly.
	 */
	over = cc_rule_at(c, 10, false, MMB_TARGET_DROP, &ssh, 2, true, MMB_FIELD_IP_SADDR, 0,
			  MMB_CTCOUNT_SIZE_MAX);
	d = cc_pkt(false, 1, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, cc_total(over), 1);
	KUNIT_ASSERT_EQ(test, mmbt_remove(c->r, over), 0);
	mmb_rules_barrier();
	mmb_conns_flush(&c->mc);
	mmb_conns_gc(&c->mc, 16);
	rcu_barrier();
}

/*
 * A SYN flood from 2000 sources: the table keeps at most @size keys (a
 * key that finds no room is over its cap: no connection through this
 * rule), and keys come back as the connections time out.
 */
static void conncount_flood_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_rule *rule;
	struct mmbt_pkt_desc d;
	unsigned int i, passed = 0;

	rule = cc_rule(c, true, MMB_TARGET_ACCEPT, &ssh, 1, false, MMB_FIELD_IP_SADDR, 0, 64);
	mmbt_rule_add(test, c->r, false, MMB_TARGET_DROP, &all, 1);
	for (i = 0; i < 2000; i++) {
		d = cc_pkt(false, 1 + i, 40000, TCPHDR_SYN);
		passed += cc_send(c, &d) == 1;
	}
	KUNIT_EXPECT_LE(test, atomic_read(&rule->cc->keys), 64);
	KUNIT_EXPECT_EQ(test, passed, atomic_read(&rule->cc->keys));
	KUNIT_EXPECT_EQ(test, cc_conns(c), passed);
	KUNIT_EXPECT_EQ(test, cc_total(rule), passed);
	/* A table of 64 keys has room for most of them: at least 56 went in. */
	KUNIT_EXPECT_GE(test, passed, 56);
	cc_wait(121);
	mmb_conns_gc(&c->mc, 256);
	KUNIT_EXPECT_EQ(test, atomic_read(&rule->cc->keys), 0);
	d = cc_pkt(false, 3000, 40000, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, cc_send(c, &d), 1);
}

struct cc_thread {
	struct cc *c;
	struct completion done;
	unsigned int base, passed;
};

#define CC_TRIES	400

/* Open connections from one source, each on a port of its own. */
static int cc_thread_fn(void *data)
{
	struct cc_thread *th = data;
	struct mmbt_pkt_desc d;
	unsigned int i;

	for (i = 0; i < CC_TRIES; i++) {
		d = cc_pkt(false, 1, th->base + i, TCPHDR_SYN);
		th->passed += cc_send(th->c, &d) == 1;
		if (!(i % 16))
			cond_resched();
	}
	complete(&th->done);
	return 0;
}

/*
 * Two threads race to open connections from one source under a cap of 5,
 * while connections are flushed now and then: the key never holds more
 * than 5, and every count comes back to 0 with the connections.
 */
static void conncount_race_test(struct kunit *test)
{
	struct cc *c = cc_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_rule *rule;
	struct cc_thread th[2];
	struct mmbt_pkt_desc d = cc_pkt(false, 1, 1, TCPHDR_SYN);
	unsigned int i, round, max = 0, n;

	rule = cc_rule(c, true, MMB_TARGET_ACCEPT, &ssh, 5, false, MMB_FIELD_IP_SADDR, 0, 0);
	mmbt_rule_add(test, c->r, false, MMB_TARGET_DROP, &all, 1);
	for (round = 0; round < 4; round++) {
		for (i = 0; i < ARRAY_SIZE(th); i++) {
			struct task_struct *task;

			th[i] = (struct cc_thread){ .c = c,
						    .base = 1024 + round * 4096 + i * 2048 };
			init_completion(&th[i].done);
			task = kthread_run(cc_thread_fn, &th[i], "mmbt-cc/%u", i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		}
		for (i = 0; i < 50; i++) {
			n = cc_key(c, rule, &d);
			max = max(max, n);
			if (i == 25)
				mmb_conns_flush(&c->mc);
			cond_resched();
		}
		for (i = 0; i < ARRAY_SIZE(th); i++)
			wait_for_completion(&th[i].done);
		n = cc_key(c, rule, &d);
		KUNIT_EXPECT_LE(test, n, 5);
		KUNIT_EXPECT_EQ(test, n, cc_conns(c));
		KUNIT_EXPECT_LE(test, th[0].passed + th[1].passed, 10);
		mmb_conns_flush(&c->mc);
		KUNIT_EXPECT_EQ(test, cc_total(rule), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&rule->cc->keys), 0);
	}
	KUNIT_EXPECT_LE(test, max, 5);
}

/* Rules refused, each with its reason. */
static void conncount_check_test(struct kunit *test)
{
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec v6 = mmbt_match(MMB_FIELD_IP6_HOP_LIMIT, MMB_OP_EQ, 64);
	struct mmb_match_spec out = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	static const struct {
		bool stateful, v6, out, over;
		u32 limit;
		u16 per;
		u8 plen;
		u32 size;
		const char *says;
	} bad[] = {
		{ true, false, false, false, 0, 0, 0, 0, "1 to" },
		{ false, false, false, false, 0x1000000, 0, 0, 0, "1 to" },
		{ true, false, false, true, 3, 0, 0, 0, "stateful" },
		{ true, false, false, false, 3, 0, 0, 5, "one count" },
		{ true, false, false, false, 3, MMB_FIELD_TCP_DPORT, 0, 0, "address" },
		{ true, false, false, false, 3, MMB_FIELD_IP_SADDR, 33, 0, "prefix" },
		{ true, false, false, false, 3, MMB_FIELD_IP_SADDR, 0, MMB_CTCOUNT_SIZE_MAX + 1,
		  "size" },
		{ true, true, false, false, 3, MMB_FIELD_IP_SADDR, 0, 0, "family" },
		{ false, false, true, false, 3, 0, 0, 0, "leaving" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct mmb_rule_spec *s = cc_spec(test, bad[i].stateful, MMB_TARGET_ACCEPT,
						  bad[i].v6 ? &v6 : bad[i].out ? &out : &ssh,
						  bad[i].limit, bad[i].over, bad[i].per,
						  bad[i].plen, bad[i].size);
		struct mmb_rule_err err = {};
		struct mmb_rule *rule = mmb_rule_create(s, NULL, &err);

		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(rule), "case %u taken", i);
		if (!IS_ERR(rule)) {
			mmb_rule_put(rule);
			continue;
		}
		KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_CTCOUNT);
		KUNIT_EXPECT_NOT_NULL_MSG(test, err.msg ? strstr(err.msg, bad[i].says) : NULL,
					  "case %u: %s", i, err.msg);
	}
	/* A limit and a ct count in one rule: one qualifier a rule. */
	{
		struct mmb_rule_spec *s = cc_spec(test, false, MMB_TARGET_DROP, &ssh, 3, true, 0,
						  0, 0);
		struct mmb_rule_err err = {};
		struct mmb_rule *rule;

		s->limit = (struct mmb_limit_spec){ .rate = 10, .unit = 1, .burst = 5 };
		rule = mmb_rule_create(s, NULL, &err);
		KUNIT_EXPECT_TRUE(test, IS_ERR(rule));
		if (!IS_ERR(rule))
			mmb_rule_put(rule);
		KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_CTCOUNT);
		KUNIT_EXPECT_NOT_NULL(test, err.msg ? strstr(err.msg, "not both") : NULL);
	}
}

/* A rule add with a ct count, the nest given or broken as asked. */
struct cc_nl {
	u32 limit;
	bool over, no_limit;
	int per, plen;		/* -1: none */
	u32 size;
	bool has_size;
	unsigned int nest, loff, poff, soff;
};

static void cc_nl_add(struct nlt *t, struct cc_nl *a)
{
	__be16 p22 = cpu_to_be16(22);
	unsigned int rule, list, nest;

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_TCP_DPORT);
	nlt_put(t, MMB_MATCH_A_VALUE, &p22, 2);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ACCEPT);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	a->nest = nlt_nest(t, MMB_RULE_A_CTCOUNT);
	if (!a->no_limit)
		a->loff = nlt_u32(t, MMB_CTCOUNT_A_LIMIT, a->limit);
	if (a->over)
		nlt_put(t, MMB_CTCOUNT_A_OVER, NULL, 0);
	if (a->per >= 0)
		a->poff = nlt_u16(t, MMB_CTCOUNT_A_PER, a->per);
	if (a->plen >= 0)
		nlt_u8(t, MMB_CTCOUNT_A_PREFIX, a->plen);
	if (a->has_size)
		a->soff = nlt_u32(t, MMB_CTCOUNT_A_SIZE, a->size);
	nlt_nest_end(t, a->nest);
	nlt_nest_end(t, rule);
}

struct cc_seen {
	unsigned int n;
	bool has;
	u32 limit, size;
	u16 per;
	u8 plen;
	bool over;
};

static void cc_rule_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *r = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_RULE), *n, *a;
	struct cc_seen *seen = arg;

	if (!r)
		return;
	seen->n++;
	n = nla_find_nested(r, MMB_RULE_A_CTCOUNT);
	seen->has = n;
	if (!n)
		return;
	a = nla_find_nested(n, MMB_CTCOUNT_A_LIMIT);
	seen->limit = a ? nla_get_u32(a) : 0;
	seen->over = nla_find_nested(n, MMB_CTCOUNT_A_OVER);
	a = nla_find_nested(n, MMB_CTCOUNT_A_PER);
	seen->per = a ? nla_get_u16(a) : 0;
	a = nla_find_nested(n, MMB_CTCOUNT_A_PREFIX);
	seen->plen = a ? nla_get_u8(a) : 0;
	a = nla_find_nested(n, MMB_CTCOUNT_A_SIZE);
	seen->size = a ? nla_get_u32(a) : 0;
}

/* Netlink: refusals at the attribute (or the nest), and what is taken comes back. */
static void conncount_netlink_test(struct kunit *test)
{
	struct cc_seen seen = {};
	struct cc_nl a;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	/* No limit. */
	a = (struct cc_nl){ .no_limit = true, .per = -1, .plen = -1 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.miss_type, MMB_CTCOUNT_A_LIMIT);
	/* A limit over the maximum: at it. */
	a = (struct cc_nl){ .limit = MMB_CTCOUNT_LIMIT_MAX + 1, .per = -1, .plen = -1 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.loff);
	/* 0 without over: at the nest, with the reason. */
	a = (struct cc_nl){ .limit = 0, .per = -1, .plen = -1 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.nest);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "ct count"));
	/* over in a stateful rule. */
	a = (struct cc_nl){ .limit = 3, .over = true, .per = -1, .plen = -1 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.nest);
	/* A size over the maximum, a size without per, a field that is no address. */
	a = (struct cc_nl){ .limit = 3, .per = MMB_FIELD_IP_SADDR, .plen = -1,
			    .size = MMB_CTCOUNT_SIZE_MAX + 1, .has_size = true };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.soff);
	a = (struct cc_nl){ .limit = 3, .per = -1, .plen = -1, .size = 5, .has_size = true };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.soff);
	a = (struct cc_nl){ .limit = 3, .per = MMB_FIELD_TCP_SPORT, .plen = -1 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.nest);
	/* A prefix of 0 (the policy) and one too long for IPv4. */
	a = (struct cc_nl){ .limit = 3, .per = MMB_FIELD_IP_SADDR, .plen = 0 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ERANGE);
	a = (struct cc_nl){ .limit = 3, .per = MMB_FIELD_IP_SADDR, .plen = 33 };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	nlt_dump_each(&t, MMB_CMD_RULE_GET, cc_rule_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.n, 0);

	/* Taken, and given back as given (the size as kept). */
	a = (struct cc_nl){ .limit = 3, .per = MMB_FIELD_IP6_SADDR, .plen = 64, .size = 100,
			    .has_size = true };
	cc_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_dump_each(&t, MMB_CMD_RULE_GET, cc_rule_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.n, 1);
	KUNIT_EXPECT_TRUE(test, seen.has);
	KUNIT_EXPECT_EQ(test, seen.limit, 3);
	KUNIT_EXPECT_FALSE(test, seen.over);
	KUNIT_EXPECT_EQ(test, seen.per, MMB_FIELD_IP6_SADDR);
	KUNIT_EXPECT_EQ(test, seen.plen, 64);
	KUNIT_EXPECT_EQ(test, seen.size, 100);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case conncount_cases[] = {
	KUNIT_CASE(conncount_cap_test),
	KUNIT_CASE(conncount_prefix_test),
	KUNIT_CASE(conncount_end_test),
	KUNIT_CASE(conncount_reborn_test),
	KUNIT_CASE(conncount_reload_test),
	KUNIT_CASE(conncount_over_test),
	KUNIT_CASE(conncount_flood_test),
	KUNIT_CASE(conncount_race_test),
	KUNIT_CASE(conncount_check_test),
	KUNIT_CASE(conncount_netlink_test),
	{}
};

static struct kunit_suite conncount_suite = {
	.name = "mmb-conncount",
	.test_cases = conncount_cases,
};

kunit_test_suite(conncount_suite);
