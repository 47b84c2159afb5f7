// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: reloads. A transaction that flushes the rules and adds them
 * again, as "mmbctl -f" of a saved file does, keeps the connections of
 * the stateful rules it adds again unchanged (their packets pass, their
 * NAT mappings stay), and ends those of rules it adds back different in
 * any match or target. Packets go through the datapath's steps, rewrites
 * included; the rules' references are counted back to what the test holds.
 */
#include <linux/delay.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "../kmod/nat.h"
#include "../kmod/rewrite.h"
#include "../kmod/test.h"
#include "nlt.h"
#include "util.h"

struct rl {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
	bool v6;
	u32 seq[2];		/* the next of the client's, the server's */
};

static void rl_free(void *data)
{
	struct rl *l = data;

	mmb_conns_exit(&l->mc);
	mmbt_netdev_destroy(l->dev);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct rl *rl_new(struct kunit *test, bool v6)
{
	struct rl *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->test = test;
	l->v6 = v6;
	l->dev = mmbt_netdev_create(test);
	l->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&l->mc, &init_net), 0);
	/* Both ways on one device without routes: rpf_test.c checks rp-filter. */
	l->mc.rpf = false;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rl_free, l), 0);
	/* Time stands still: nothing expires. */
	WRITE_ONCE(mmb_test_points.clock, 1000 * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return l;
}

/* How a reload adds the rules back: as they were, or one thing changed. */
enum rl_how {
	RL_SAME,
	RL_NAT_ADDR,		/* the SNAT rule maps to another address */
	RL_NAT_PORTS,		/* its port range is another */
	RL_MATCH_VALUE,		/* it matches another port */
	RL_MATCH_OP,		/* with another operator */
	RL_MATCH_MORE,		/* with one more match */
	RL_STATELESS,		/* the accept rule is not stateful */
	RL_VERDICT,		/* the stateful rule drops */
	RL_HOW_MAX
};

static const char *const rl_how_name[RL_HOW_MAX] = {
	"the same", "another NAT address", "another port range", "another match value",
	"another operator", "one more match", "no longer stateful", "another verdict",
};

static const u8 rl_nat4[4] = { 203, 0, 113, 1 };
static const u8 rl_nat6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

/* The rules in the test's ruleset, as one reload added them. */
struct rl_rules {
	struct mmb_rule *snat;		/* add-stateful tcp-dport 80 shuffle tcp-sport mod saddr */
	struct mmb_rule *accept;	/* add-stateful tcp-dport 80 accept */
	struct mmb_rule *drop;		/* add all drop */
};

/* Port range of the SNAT rule's shuffle: a new connection picks anew. */
#define RL_PORT_LO	20000
#define RL_PORT_HI	29999

/*
 * The rules, made as @how says, each with a reference of the test's own
 * (dropped by rl_put()); not added yet.
 */
static void rl_make(struct rl *l, enum rl_how how, struct rl_rules *out)
{
	struct mmb_match_spec m[2] = {
		mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80),
		mmbt_match(MMB_FIELD_TCP_SPORT, MMB_OP_GT, 1023),
	};
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_target t[2] = {
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_TCP_SPORT, .vlen = 4 },
		{ .type = MMB_TARGET_MOD, .vlen = l->v6 ? 16 : 4 },
	};
	struct mmbt_target accept = {
		.type = how == RL_VERDICT ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT,
	};
	u16 hi = how == RL_NAT_PORTS ? RL_PORT_HI - 1 : RL_PORT_HI;

	put_unaligned_be16(RL_PORT_LO, t[0].value);
	put_unaligned_be16(hi, t[0].value + 2);
	t[1].field = l->v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR;
	memcpy(t[1].value, l->v6 ? rl_nat6 : rl_nat4, t[1].vlen);
	if (how == RL_NAT_ADDR)
		t[1].value[t[1].vlen - 1] = 2;
	if (how == RL_MATCH_VALUE)
		m[0] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 81);
	if (how == RL_MATCH_OP)
		m[0] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_LE, 80);
	out->snat = mmbt_rule_make(l->test, true, m, how == RL_MATCH_MORE ? 2 : 1, t, 2);
	out->accept = mmbt_rule_make(l->test, how != RL_STATELESS, m, 1, &accept, 1);
	out->drop = mmbt_rule_make(l->test, false, &all, 1, &(struct mmbt_target){
		.type = MMB_TARGET_DROP }, 1);
	refcount_inc(&out->snat->ref);
	refcount_inc(&out->accept->ref);
	refcount_inc(&out->drop->ref);
}

static void rl_put(struct rl_rules *rules)
{
	mmb_rule_put(rules->snat);
	mmb_rule_put(rules->accept);
	mmb_rule_put(rules->drop);
}

/*
 * Load @rules (rl_make()) as "mmbctl -f" of a saved file does: one batch
 * that flushes, then adds each; the connections of the rules it ended end
 * (the kick). How many stateful rules it ended.
 */
static unsigned int rl_load(struct rl *l, struct rl_rules *rules)
{
	struct mmb_txn txn;

	KUNIT_ASSERT_EQ(l->test, mmb_txn_begin(l->r, &txn, MMB_TXN_COPY), 0);
	KUNIT_ASSERT_EQ(l->test, mmb_txn_flush(&txn), 0);
	KUNIT_ASSERT_EQ(l->test, mmb_txn_add(&txn, rules->snat, NULL), 0);
	KUNIT_ASSERT_EQ(l->test, mmb_txn_add(&txn, rules->accept, NULL), 0);
	KUNIT_ASSERT_EQ(l->test, mmb_txn_add(&txn, rules->drop, NULL), 0);
	mmb_txn_commit(&txn);
	if (txn.ended)
		mmb_conns_kick(&l->mc);
	return txn.ended;
}

/* Client 10.0.0.1 (fd00::1) port 40000, server 10.0.1.200 (fd00:0:0:1::c8) port 80. */
static void rl_host(bool v6, bool server, u8 *addr)
{
	memset(addr, 0, 16);
	if (v6) {
		addr[0] = 0xfd;
		addr[7] = server;
		addr[15] = server ? 200 : 1;
	} else {
		addr[0] = 10;
		addr[2] = server;
		addr[3] = server ? 200 : 1;
	}
}

/*
 * The next segment of the client's (@nat_port 0), or of the server's to
 * NAT address:@nat_port; a SYN starts its side's sequence anew.
 */
static struct mmbt_pkt_desc rl_pkt(struct rl *l, u16 nat_port, u8 flags)
{
	u32 *seq = &l->seq[!!nat_port];
	struct mmbt_pkt_desc d = {
		.v6 = l->v6, .proto = IPPROTO_TCP, .ttl = 64, .tcp_flags = flags,
		.payload_len = flags & TCPHDR_SYN ? 0 : 100,
	};

	if (flags & TCPHDR_SYN)
		*seq = nat_port ? 500000 : 1000;
	d.seq = *seq;
	*seq += d.payload_len + !!(flags & TCPHDR_SYN);

	if (!nat_port) {
		rl_host(l->v6, false, d.saddr);
		rl_host(l->v6, true, d.daddr);
		d.sport = 40000;
		d.dport = 80;
	} else {
		rl_host(l->v6, true, d.saddr);
		memcpy(d.daddr, l->v6 ? rl_nat6 : rl_nat4, l->v6 ? 16 : 4);
		d.sport = 80;
		d.dport = nat_port;
	}
	return d;
}

/*
 * @d through the datapath's steps, rewrites included, in softirq under
 * RCU: 1 it passes, 0 a rule drops it, or the error that drops it. The
 * packet as it leaves in *@out (to be freed), if it passes.
 */
static int rl_send(struct rl *l, const struct mmbt_pkt_desc *d, struct sk_buff **out)
{
	struct sk_buff *skb = mmbt_pkt_build(l->dev, d);
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	KUNIT_ASSERT_NOT_NULL(l->test, skb);
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
	}
	local_bh_enable();
	rcu_read_unlock();
	if (ret == 1 && out)
		*out = skb;
	else
		kfree_skb(skb);
	return ret;
}

static u16 rl_port(const struct sk_buff *skb, bool v6, bool src)
{
	return get_unaligned_be16(skb->data + (v6 ? 40 : 20) + (src ? 0 : 2));
}

/* The client's segment: it passes; the NAT port it leaves from. */
static u16 rl_client(struct rl *l, u8 flags)
{
	struct mmbt_pkt_desc d = rl_pkt(l, 0, flags);
	struct sk_buff *skb = NULL;
	u16 port = 0;

	KUNIT_EXPECT_EQ(l->test, rl_send(l, &d, &skb), 1);
	if (skb) {
		port = rl_port(skb, l->v6, true);
		KUNIT_EXPECT_TRUE(l->test, port >= RL_PORT_LO && port <= RL_PORT_HI);
		KUNIT_EXPECT_EQ(l->test, rl_port(skb, l->v6, false), 80);
		kfree_skb(skb);
	}
	return port;
}

/*
 * The server's segment to NAT address:@port: 1 if it passes, to the
 * client's address and port 40000; 0 if it is dropped.
 */
static int rl_server(struct rl *l, u16 port, u8 flags)
{
	struct mmbt_pkt_desc d = rl_pkt(l, port, flags);
	struct sk_buff *skb = NULL;
	u8 client[16];
	int ret;

	ret = rl_send(l, &d, &skb);
	if (skb) {
		rl_host(l->v6, false, client);
		KUNIT_EXPECT_EQ(l->test, rl_port(skb, l->v6, false), 40000);
		KUNIT_EXPECT_EQ(l->test, memcmp(skb->data + (l->v6 ? 24 : 16), client,
						l->v6 ? 16 : 4), 0);
		kfree_skb(skb);
	}
	return ret;
}

/* Open the client's connection through SNAT: its NAT port. */
static u16 rl_connect(struct rl *l)
{
	u16 port = rl_client(l, TCPHDR_SYN);

	KUNIT_EXPECT_EQ(l->test, rl_server(l, port, TCPHDR_SYN | TCPHDR_ACK), 1);
	KUNIT_EXPECT_EQ(l->test, rl_client(l, TCPHDR_ACK), port);
	KUNIT_EXPECT_EQ(l->test, atomic_read(&l->mc.count), 1);
	return port;
}

static u64 rl_stat(struct rl *l, enum mmb_conn_stat what)
{
	u64 n[MMB_CSTAT_MAX];

	mmb_conns_stats(&l->mc, n);
	return n[what];
}

/*
 * The handles of the rules the client's connection judges by, as "show
 * connections" lists them, in @h (2); false if it has no connection.
 */
static bool rl_conn_rules(struct rl *l, u32 *h)
{
	struct mmbt_pkt_desc d = rl_pkt(l, 0, TCPHDR_ACK);
	struct sk_buff *skb = mmbt_pkt_build(l->dev, &d);
	struct mmb_conn *c;
	struct mmb_tuple t;
	struct mmb_pkt pkt;
	unsigned int i;
	u8 dir;

	KUNIT_ASSERT_NOT_NULL(l->test, skb);
	KUNIT_ASSERT_EQ(l->test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_TRUE(l->test, mmb_conn_tuple(&pkt, &t));
	kfree_skb(skb);
	rcu_read_lock();
	c = mmb_conn_find(&l->mc, &t, &dir);
	if (c) {
		KUNIT_EXPECT_EQ(l->test, c->nrules, 2);
		for (i = 0; i < 2 && i < c->nrules; i++)
			h[i] = mmb_rule_live(READ_ONCE(c->rules[i]))->handle;
	}
	rcu_read_unlock();
	return c;
}

/* The connection goes on: both ways, the same mapping, the rules of @rules. */
static void rl_goes_on(struct rl *l, u16 port, const struct rl_rules *rules)
{
	u32 h[2] = {};

	KUNIT_EXPECT_EQ(l->test, rl_server(l, port, TCPHDR_ACK), 1);
	KUNIT_EXPECT_EQ(l->test, rl_client(l, TCPHDR_ACK), port);
	KUNIT_EXPECT_EQ(l->test, atomic_read(&l->mc.count), 1);
	KUNIT_EXPECT_TRUE(l->test, rl_conn_rules(l, h));
	KUNIT_EXPECT_EQ(l->test, h[0], rules->snat->handle);
	KUNIT_EXPECT_EQ(l->test, h[1], rules->accept->handle);
}

/*
 * A connection through SNAT survives a reload that adds its rules back
 * unchanged, and another, back to back, and a third after packets: its
 * packets pass both ways with the same NAT port, its connection lists the
 * new handles, and the packets count on the new rules. IPv4 and IPv6.
 */
static void reload_keeps_test(struct kunit *test)
{
	unsigned int fam, i;

	for (fam = 0; fam < 2; fam++) {
		struct rl *l = rl_new(test, fam);
		struct rl_rules gen[4];
		struct mmb_stats st;
		u16 port;

		for (i = 0; i < 4; i++)
			rl_make(l, RL_SAME, &gen[i]);
		KUNIT_ASSERT_EQ(test, rl_load(l, &gen[0]), 0);
		port = rl_connect(l);
		rl_goes_on(l, port, &gen[0]);

		/* A reload: nothing ends. */
		KUNIT_EXPECT_EQ(test, rl_load(l, &gen[1]), 0);
		KUNIT_EXPECT_NE(test, gen[1].snat->handle, gen[0].snat->handle);
		rl_goes_on(l, port, &gen[1]);
		mmb_stats_read(gen[1].snat->stats, &st);
		KUNIT_EXPECT_EQ(test, st.packets, 2);

		/* Two more, back to back, with no packet between them. */
		KUNIT_EXPECT_EQ(test, rl_load(l, &gen[2]), 0);
		KUNIT_EXPECT_EQ(test, rl_load(l, &gen[3]), 0);
		rl_goes_on(l, port, &gen[3]);
		mmb_stats_read(gen[3].snat->stats, &st);
		KUNIT_EXPECT_EQ(test, st.packets, 2);
		mmb_stats_read(gen[2].snat->stats, &st);
		KUNIT_EXPECT_EQ(test, st.packets, 0);
		KUNIT_EXPECT_EQ(test, rl_stat(l, MMB_CSTAT_ENDED), 0);
		KUNIT_EXPECT_EQ(test, rl_stat(l, MMB_CSTAT_CREATED), 1);

		/* A new connection gets the new rules. */
		mmb_conns_flush(&l->mc);
		port = rl_connect(l);
		rl_goes_on(l, port, &gen[3]);
		for (i = 0; i < 4; i++)
			rl_put(&gen[i]);
	}
}

/*
 * A reload that adds the connection's rules back with any match, target,
 * verdict or flag changed ends it, as a reload that drops them does: the
 * server's packets of it are dropped (by "all drop").
 */
static void reload_differs_test(struct kunit *test)
{
	unsigned int fam, how;

	for (fam = 0; fam < 2; fam++) {
		for (how = RL_SAME + 1; how < RL_HOW_MAX; how++) {
			struct rl *l = rl_new(test, fam);
			struct rl_rules a, b;
			u16 port;

			rl_make(l, RL_SAME, &a);
			rl_make(l, how, &b);
			KUNIT_ASSERT_EQ(test, rl_load(l, &a), 0);
			port = rl_connect(l);
			KUNIT_EXPECT_GE_MSG(test, rl_load(l, &b), 1, "%s", rl_how_name[how]);
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&l->mc.count), 0, "%s",
					    rl_how_name[how]);
			KUNIT_EXPECT_EQ_MSG(test, rl_stat(l, MMB_CSTAT_ENDED), 1, "%s",
					    rl_how_name[how]);
			KUNIT_EXPECT_EQ_MSG(test, rl_server(l, port, TCPHDR_ACK), 0, "%s",
					    rl_how_name[how]);
			rl_put(&a);
			rl_put(&b);
		}
	}
}

/*
 * After a reload, the connection ends with the rule it goes on with: a
 * del of the new rule, or a batch that takes it out and adds nothing.
 */
static void reload_then_del_test(struct kunit *test)
{
	unsigned int fam, inplace;

	for (fam = 0; fam < 2; fam++) {
		for (inplace = 0; inplace < 2; inplace++) {
			struct rl *l = rl_new(test, fam);
			struct rl_rules a, b;
			struct mmb_txn txn;
			u16 port;

			rl_make(l, RL_SAME, &a);
			rl_make(l, RL_SAME, &b);
			KUNIT_ASSERT_EQ(test, rl_load(l, &a), 0);
			port = rl_connect(l);
			KUNIT_ASSERT_EQ(test, rl_load(l, &b), 0);
			/* No packet between: the connection still holds the old rules. */
			KUNIT_ASSERT_EQ(test, mmb_txn_begin(l->r, &txn, inplace ?
							    MMB_TXN_INPLACE : MMB_TXN_COPY), 0);
			KUNIT_ASSERT_EQ(test, mmb_txn_del(&txn, b.accept->handle), 0);
			mmb_txn_commit(&txn);
			KUNIT_EXPECT_EQ(test, txn.ended, 1);
			KUNIT_EXPECT_EQ(test, rl_server(l, port, TCPHDR_ACK), 0);
			KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
			KUNIT_EXPECT_EQ(test, rl_stat(l, MMB_CSTAT_ENDED), 1);
			rl_put(&a);
			rl_put(&b);
		}
	}
}

/*
 * References: a rule taken out holds its successor, a connection the rule
 * it goes on with; once the rules are flushed and the connection ended,
 * each rule is held by the test alone, or by the test and the rule before
 * it until that one is freed.
 */
static void reload_refs_test(struct kunit *test)
{
	struct rl *l = rl_new(test, false);
	struct rl_rules gen[3];
	struct mmb_txn txn;
	unsigned int i;
	u16 port;

	for (i = 0; i < 3; i++)
		rl_make(l, RL_SAME, &gen[i]);
	KUNIT_ASSERT_EQ(test, rl_load(l, &gen[0]), 0);
	port = rl_connect(l);
	KUNIT_ASSERT_EQ(test, rl_load(l, &gen[1]), 0);
	rl_goes_on(l, port, &gen[1]);
	KUNIT_ASSERT_EQ(test, rl_load(l, &gen[2]), 0);
	rl_goes_on(l, port, &gen[2]);
	mmb_rules_barrier();
	/* The test's, the ruleset's, the connection's, the one before it's. */
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[2].snat->ref), 4);
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[2].drop->ref), 2);
	/* The test's, and the successor's of the one before. */
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[1].snat->ref), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[0].snat->ref), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[0].drop->ref), 1);

	/* A flush of everything: the connection ends. */
	KUNIT_ASSERT_EQ(test, mmb_txn_begin(l->r, &txn, MMB_TXN_EMPTY), 0);
	mmb_txn_commit(&txn);
	KUNIT_EXPECT_EQ(test, txn.ended, 2);
	mmb_conns_kick(&l->mc);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->mc.count), 0);
	mmb_rules_barrier();
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[2].snat->ref), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[2].accept->ref), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&gen[2].drop->ref), 1);
	for (i = 0; i < 3; i++) {
		rl_put(&gen[i]);
		mmb_rules_barrier();
		if (i < 2) {
			KUNIT_EXPECT_EQ(test, refcount_read(&gen[i + 1].snat->ref), 1);
			KUNIT_EXPECT_EQ(test, refcount_read(&gen[i + 1].accept->ref), 1);
		}
	}
}

/* --- RTNL ----------------------------------------------------------------------------- */

/* What the commits of rules through netlink found when they finished. */
static struct {
	unsigned int finished;	/* how many finished */
	unsigned int ended;	/* rules they ended, in all */
	unsigned int rtnl;	/* how many of them with RTNL held */
} rl_seen;

/*
 * Test point: a commit is about to end the connections of the rules it
 * ended. Is RTNL free? Whoever else holds it lets go in time; this task
 * never would, and the wait ends at the ceiling.
 */
static void rl_finish(struct mmb_net *mn, unsigned int ended)
{
	unsigned long end = jiffies + 60 * HZ;

	rl_seen.finished++;
	rl_seen.ended += ended;
	while (!rtnl_trylock()) {
		if (time_after(jiffies, end)) {
			rl_seen.rtnl++;
			return;
		}
		usleep_range(1000, 2000);
	}
	rtnl_unlock();
}

static void rl_finish_off(void *data)
{
	WRITE_ONCE(mmb_test_points.finish, NULL);
}

/* A batch's "add-stateful udp-dport @port accept"; or "add" (@stateful false). */
static void rl_op_add(struct nlt *t, u16 port, bool stateful)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), rule, list, nest;
	__be16 p = htons(port);

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_BATCH_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_UDP_DPORT);
	nlt_put(t, MMB_MATCH_A_VALUE, &p, 2);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ACCEPT);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	if (stateful)
		nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	nlt_nest_end(t, rule);
	nlt_nest_end(t, op);
}

/* A batch as "mmbctl save" writes it: flush, enable @dev, then the rules. */
static void rl_batch(struct nlt *t, struct net_device *dev, u16 port, bool stateful)
{
	unsigned int op;

	nlt_begin(t, t->family, MMB_CMD_RULE_BATCH);
	op = nlt_nest(t, MMB_A_OP);
	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_FLUSH);
	nlt_nest_end(t, op);
	op = nlt_nest(t, MMB_A_OP);
	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_DEV_ENABLE);
	nlt_put(t, MMB_BATCH_A_IFNAME, dev->name, strlen(dev->name) + 1);
	nlt_nest_end(t, op);
	rl_op_add(t, port, stateful);
}

/*
 * A batch with enable lines takes RTNL for the devices; the grace period
 * and the walk of the connections that end its rules come after it let go.
 * The same batch again keeps its stateful rule (nothing ends, no grace
 * period); one that changes it ends it.
 */
static void reload_rtnl_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	memset(&rl_seen, 0, sizeof(rl_seen));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rl_finish_off, NULL), 0);
	WRITE_ONCE(mmb_test_points.finish, rl_finish);

	rl_batch(&t, dev, 53, true);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	rl_batch(&t, dev, 53, true);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, rl_seen.ended, 0);
	rl_batch(&t, dev, 53, false);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, rl_seen.ended, 1);
	KUNIT_EXPECT_EQ(test, rl_seen.finished, 3);
	KUNIT_EXPECT_EQ(test, rl_seen.rtnl, 0);
	rl_finish_off(NULL);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	/* The name the batches enabled is remembered: forgotten for the next tests. */
	nlt_begin(&t, t.family, MMB_CMD_DEV_DISABLE);
	nlt_put(&t, MMB_A_IFNAME, dev->name, strlen(dev->name) + 1);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_close(&t);
	mmbt_netdev_destroy(dev);
}

static struct kunit_case mmb_reload_cases[] = {
	KUNIT_CASE(reload_keeps_test),
	KUNIT_CASE(reload_differs_test),
	KUNIT_CASE(reload_then_del_test),
	KUNIT_CASE(reload_refs_test),
	KUNIT_CASE(reload_rtnl_test),
	{}
};

static struct kunit_suite mmb_reload_suite = {
	.name = "mmb-reload",
	.test_cases = mmb_reload_cases,
};

kunit_test_suite(mmb_reload_suite);
