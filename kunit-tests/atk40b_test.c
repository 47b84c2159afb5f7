// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on issue 40's log, limit and ct count (mmb-atk40b).
 * Each case is a defect found by attack, seen failing before its fix.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/test.h"
#include "util.h"

#define A40B_T0	(1000 * NSEC_PER_SEC)

/* A limit's attribute of @rate/@unit burst @burst; *@bat is the burst's. */
static struct sk_buff *a40b_limit_attr(struct kunit *test, u32 rate, u32 unit, u32 burst,
				       struct nlattr **nest, struct nlattr **bat)
{
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	*nest = nla_nest_start(skb, MMB_RULE_A_LIMIT);
	KUNIT_ASSERT_NOT_NULL(test, *nest);
	KUNIT_ASSERT_EQ(test, nla_put_u32(skb, MMB_LIMIT_A_RATE, rate), 0);
	KUNIT_ASSERT_EQ(test, nla_put_u32(skb, MMB_LIMIT_A_UNIT, unit), 0);
	*bat = (struct nlattr *)skb_tail_pointer(skb);
	KUNIT_ASSERT_EQ(test, nla_put_u32(skb, MMB_LIMIT_A_BURST, burst), 0);
	nla_nest_end(skb, *nest);
	return skb;
}

/*
 * limit 1/day burst 1000000: the bucket's depth, burst x unit / rate, is
 * 8.64e19 ns, past 2^64 (tau wrapped to 1.26e19) and past 2^63, where the
 * bucket's signed "is its time ahead of now" reads a bucket owed for
 * over 292 years as one long past: full. Once 106752 packets had taken
 * their token at once, the next found the bucket full again, and all
 * passed (with over: none applied). nft refuses such a limit
 * (-EOVERFLOW); so does mmb, at the burst, and what it takes holds.
 */
static void atk40b_limit_deep(struct kunit *test)
{
	struct netlink_ext_ack ext = {};
	struct mmb_limit_spec ls;
	struct nlattr *nest, *bat;
	struct sk_buff *skb;
	struct mmb_limit *l;
	unsigned int i, n;
	int err;

	skb = a40b_limit_attr(test, 1, 86400, MMB_LIMIT_BURST_MAX, &nest, &bat);
	err = mmb_limit_parse(nest, &ls, &ext);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, ext.bad_attr, (const struct nlattr *)bat);
	KUNIT_EXPECT_NOT_NULL(test, ext._msg);
	if (!err) {
		/* What it did: more than the burst, at one time. */
		l = mmb_limit_new(&ls);
		KUNIT_ASSERT_NOT_NULL(test, l);
		for (i = 0, n = 0; i < MMB_LIMIT_BURST_MAX + 10; i++)
			n += mmb_limit_take(l, NULL, A40B_T0);
		KUNIT_EXPECT_LE(test, n, MMB_LIMIT_BURST_MAX);
		mmb_limit_free(l);
	}
	kfree_skb(skb);

	/* The deepest taken, 1000000 at 1/hour (1.14 years): the burst, no more. */
	memset(&ext, 0, sizeof(ext));
	skb = a40b_limit_attr(test, 1, 3600, MMB_LIMIT_BURST_MAX, &nest, &bat);
	KUNIT_ASSERT_EQ(test, mmb_limit_parse(nest, &ls, &ext), 0);
	kfree_skb(skb);
	l = mmb_limit_new(&ls);
	KUNIT_ASSERT_NOT_NULL(test, l);
	for (i = 0, n = 0; i < MMB_LIMIT_BURST_MAX + 10; i++)
		n += mmb_limit_take(l, NULL, A40B_T0);
	KUNIT_EXPECT_EQ(test, n, MMB_LIMIT_BURST_MAX);
	KUNIT_EXPECT_FALSE(test, mmb_limit_take(l, NULL, A40B_T0 + 3599 * NSEC_PER_SEC));
	KUNIT_EXPECT_TRUE(test, mmb_limit_take(l, NULL, A40B_T0 + 3600 * NSEC_PER_SEC));
	mmb_limit_free(l);
}

/*
 * A meter's slot given 2^31 times (its keys' buckets idle at once: a high
 * rate, a flood of sources that a small table keeps evicting): its
 * sequence wrapped to 0, "never used". The next packet that came by (its
 * own key's, or a key's whose slot lies past it) was given it with a full
 * bucket, busy or not, and without a look past it: a burst more than the
 * rate (here 2 packets of a burst of 1), a busy key evicted.
 */
static void atk40b_meter_seq_wrap(struct kunit *test)
{
	struct mmb_limit_spec ls = {
		.rate = 1, .unit = 1, .burst = 1, .meter = true, .per = MMB_FIELD_IP_SADDR,
		.plen = 32, .size = 1,
	};
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN, .ttl = 64, .sport = 40000,
		.dport = 22, .saddr = { 192, 0, 2, 1 }, .daddr = { 198, 51, 100, 7 },
	};
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmb_limit *l = mmb_limit_new(&ls);
	unsigned int i, n = 0;
	struct sk_buff *skb;
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, l);
	skb = mmbt_pkt_build(dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	/* The slot after 2^31 - 1 keys, the last one's bucket idle. */
	l->head[0].seq[0] = 0xfffffffe;
	l->slots[0].key[0][0] = 0xdead;
	atomic64_set(&l->slots[0].tat[0], 0);
	for (i = 0; i < 10; i++)
		n += mmb_limit_take(l, &pkt, A40B_T0);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_NE(test, l->head[0].seq[0], 0);
	kfree_skb(skb);
	mmb_limit_free(l);
}

/* A device of the test's own, enabled: what the stack got is cd->got. */
struct a40b_env {
	struct kunit *test;
	struct mmbt_capdev *cd;
	struct net_device *dev;
	struct mmb_net *mn;
};

static const u8 a40b_servers[4] = { 10, 0, 1, 0 };

static void a40b_env_free(void *data)
{
	struct a40b_env *e = data;
	struct mmb_txn txn;

	if (!mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_EMPTY))
		mmb_txn_commit(&txn);
	mmb_conns_flush(&e->mn->conns);
	e->mn->conns.rpf = true;
	WRITE_ONCE(mmb_test_points.frozen, false);
	/* The device goes next (mmbt_capdev_new()). */
}

/* compose_test.c's router: one enabled device, the servers routed through it. */
static struct a40b_env *a40b_env_new(struct kunit *test)
{
	struct a40b_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	e->mn = mmb_pernet(&init_net);
	e->cd = mmbt_capdev_new(test, "mmbk%d");
	e->dev = e->cd->dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, a40b_env_free, e), 0);
	mmbt_route(test, &init_net, e->dev, false, a40b_servers, 24, RTN_UNICAST, false);
	e->mn->conns.rpf = false;
	WRITE_ONCE(mmb_test_points.clock, -1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return e;
}

/* A TCP segment of 10.0.0.1:@sport to server 10.0.1.2:22. */
static struct mmbt_pkt_desc a40b_tcp(u16 sport, u8 flags, u32 seq)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .ttl = 64, .sport = sport, .dport = 22,
		.tcp_flags = flags, .seq = seq,
		.saddr = { 10, 0, 0, 1 }, .daddr = { 10, 0, 1, 2 },
	};

	return d;
}

static int a40b_receive(struct a40b_env *e, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);
	int before = e->cd->got.n;

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	mmbt_receive(mmbt_frame(e->dev, skb));
	return e->cd->got.n - before;
}

/* Forward @d out of the device (mmb saw it arrive): 1 if it left. */
static int a40b_send(struct a40b_env *e, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);
	struct ethhdr *eth;

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	eth = skb_push(skb, ETH_HLEN);
	memset(eth, 0, ETH_HLEN);
	eth->h_dest[5] = 2;
	ether_addr_copy(eth->h_source, e->dev->dev_addr);
	eth->h_proto = skb->protocol;
	skb_reset_mac_header(skb);
	skb->skb_iif = e->dev->ifindex;
	return dev_queue_xmit(skb) == NET_XMIT_SUCCESS;
}

static u32 a40b_cc_total(const struct mmb_rule *rule)
{
	const struct mmb_cc *cc = rule->cc;
	u32 i, j, n = 0;

	for (i = 0; i <= cc->mask; i++)
		for (j = 0; j < MMB_CC_SLOTS; j++)
			n += READ_ONCE(cc->b[i].s[j].count);
	return n;
}

/*
 * "add-stateful tcp-dport 22 ct count 1 per ip-saddr accept" beside a
 * leaving stateful rule: the connection is replaced as its first packet
 * leaves (mmb_conn_swap()), and the replacement took its charge but not
 * its "counted" mark. Closed (its place given back), a SYN on its tuple
 * was taken as the same connection reopened, not as a new one counted
 * (mmb_cc_reborn() asks only counted ones): a client reusing its port
 * held connections past its cap. A replacement is as counted as the
 * connection it replaces.
 */
static void atk40b_cc_swap_counted(struct kunit *test)
{
	struct a40b_env *e = a40b_env_new(test);
	struct mmb_match_spec ssh = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec out = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmbt_pkt_desc d;
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[0] = ssh;
	s->nmatches = 1;
	s->ntargets = 1;
	s->stateful = true;
	s->t[0].type = MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->cc = (struct mmb_cc_spec){ .set = true, .limit = 1, .per = MMB_FIELD_IP_SADDR };
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(rule), "%s", err.msg);
	KUNIT_ASSERT_EQ(test, mmbt_insert(&e->mn->rules, rule, NULL), 0);
	mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, &all, 1);
	mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, &out, 1);

	d = a40b_tcp(40000, TCPHDR_SYN, 1000);
	KUNIT_ASSERT_EQ(test, a40b_receive(e, &d), 1);
	KUNIT_ASSERT_EQ(test, a40b_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, a40b_cc_total(rule), 1);
	/* Another port: over the cap. */
	d = a40b_tcp(40001, TCPHDR_SYN, 1000);
	KUNIT_EXPECT_EQ(test, a40b_receive(e, &d), 0);
	/* The client resets it: its place is given back. */
	d = a40b_tcp(40000, TCPHDR_RST, 1001);
	KUNIT_EXPECT_EQ(test, a40b_receive(e, &d), 1);
	KUNIT_EXPECT_EQ(test, a40b_cc_total(rule), 0);
	/* The same tuple again: a new connection, counted. */
	d = a40b_tcp(40000, TCPHDR_SYN, 5000);
	KUNIT_EXPECT_EQ(test, a40b_receive(e, &d), 1);
	KUNIT_EXPECT_EQ(test, a40b_cc_total(rule), 1);
	/* So the cap holds: another port is refused. */
	d = a40b_tcp(40001, TCPHDR_SYN, 1000);
	KUNIT_EXPECT_EQ(test, a40b_receive(e, &d), 0);
}

static struct kunit_case atk40b_cases[] = {
	KUNIT_CASE(atk40b_limit_deep),
	KUNIT_CASE(atk40b_cc_swap_counted),
	KUNIT_CASE(atk40b_meter_seq_wrap),
	{}
};

static struct kunit_suite atk40b_suite = {
	.name = "mmb-atk40b",
	.test_cases = atk40b_cases,
};

kunit_test_suite(atk40b_suite);
