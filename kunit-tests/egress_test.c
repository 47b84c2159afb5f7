// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the way out. Rules that judge leaving packets ("out",
 * "leaving"), the netdev egress hook of an enabled device, and the
 * connections the host's own packets start there. Packets leave through
 * dev_queue_xmit() and arrive through netif_receive_skb() on a device of
 * the test's own, in the initial namespace, whose rules the test sets.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "util.h"

struct egt {
	struct kunit *test;
	struct mmbt_capdev *cd;	/* what it transmitted: cd->sent */
	struct net_device *dev;
	struct mmb_net *mn;
	int iif;		/* what egt_send()'s packets came in on: forwarded */
};

/* The namespace's rules and connections are emptied; the device goes next. */
static void egt_free(void *data)
{
	struct egt *e = data;
	struct mmb_txn txn;

	if (!mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_EMPTY))
		mmb_txn_commit(&txn);
	mmb_conns_flush(&e->mn->conns);
}

/* "out @name" (or "out != @name"), as netlink gives it. */
static struct mmb_match_spec egt_out(u8 op, const char *name)
{
	struct mmb_match_spec m = mmbt_match_in(op, name);

	m.field = MMB_FIELD_OUT;
	return m;
}

/* A device of the test's own called @name ("mmbe%d": the next free one), enabled. */
static struct egt *egt_new_named(struct kunit *test, const char *name)
{
	struct egt *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	e->mn = mmb_pernet(&init_net);
	e->cd = mmbt_capdev_new(test, name);
	e->dev = e->cd->dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, egt_free, e), 0);
	/* Both ways on one device, no routes: rp-filter is rpf_test.c's. */
	e->mn->conns.rpf = false;
	return e;
}

static struct egt *egt_new(struct kunit *test)
{
	return egt_new_named(test, "mmbe%d");
}

static struct mmbt_pkt_desc egt_pkt(bool v6, u8 proto, u16 sport, u16 dport, bool back)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = TCPHDR_SYN, .payload_len = 10,
	};
	u8 *a = back ? d.daddr : d.saddr, *b = back ? d.saddr : d.daddr;

	if (v6) {
		a[0] = 0xfd;
		a[15] = 1;
		b[0] = 0xfd;
		b[15] = 2;
	} else {
		a[0] = 10;
		a[3] = 1;
		b[0] = 10;
		b[3] = 2;
	}
	return d;
}

/* Send @d out of the test device: 1 if it left, 0 if the egress hook dropped it. */
static int egt_send(struct egt *e, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);
	struct ethhdr *eth;
	int before = e->cd->sent.n, rc;

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	eth = skb_push(skb, ETH_HLEN);
	memset(eth, 0, ETH_HLEN);
	eth->h_dest[5] = 2;
	ether_addr_copy(eth->h_source, e->dev->dev_addr);
	eth->h_proto = skb->protocol;
	skb_reset_mac_header(skb);
	skb->skb_iif = e->iif;
	rc = dev_queue_xmit(skb);
	KUNIT_EXPECT_EQ(e->test, e->cd->sent.n - before, rc == NET_XMIT_SUCCESS ? 1 : 0);
	return rc == NET_XMIT_SUCCESS;
}

static u64 egt_count(struct egt *e, enum mmb_count what)
{
	u64 n[MMB_COUNT_MAX];

	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(e->dev)->counts, n);
	rtnl_unlock();
	return n[what];
}

/* Receive @d on the test device: 1 if mmb let it in, 0 if it dropped it. */
static int egt_receive(struct egt *e, const struct mmbt_pkt_desc *d)
{
	u64 before = egt_count(e, MMB_DROP_RULE);
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	mmbt_receive(mmbt_frame(e->dev, skb));
	return egt_count(e, MMB_DROP_RULE) == before;
}

static struct mmb_rule *egt_rule(struct egt *e, bool stateful, u8 target,
				 const struct mmb_match_spec *m, unsigned int n)
{
	return mmbt_rule_add(e->test, &e->mn->rules, stateful, target, m, n);
}

static u64 egt_rule_packets(const struct mmb_rule *rule)
{
	struct mmb_stats st;

	mmb_stats_read(rule->stats, &st);
	return st.packets;
}

/* What the checks of a rule's way refuse, and the bit every rule's key has. */
static void egress_rule_way_test(struct kunit *test)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_ACCEPT;

	/*
	 * out mmbe-w: leaving, with the id of the device's name in the image's
	 * ifindex slot; the rule holds the name while it lives.
	 */
	s->nmatches = 1;
	s->m[0] = egt_out(MMB_OP_EQ, "mmbe-w");
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_TRUE(test, rule->out);
	KUNIT_EXPECT_EQ(test, s->img.mask.b[MMB_IMG_FLAGS] & MMB_KF_OUT, MMB_KF_OUT);
	KUNIT_EXPECT_EQ(test, s->img.key.b[MMB_IMG_FLAGS] & MMB_KF_OUT, MMB_KF_OUT);
	KUNIT_EXPECT_NE(test, mmb_ifname_find("mmbe-w"), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&s->img.key.b[MMB_IMG_IFINDEX]),
			mmb_ifname_find("mmbe-w"));
	mmb_rule_free(rule);
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbe-w"), 0);

	/* "out" takes a name, not an ifindex; a valid one. */
	s->m[0] = mmbt_match(MMB_FIELD_OUT, MMB_OP_EQ, 7);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_MATCH_VALUE);
	s->m[0] = egt_out(MMB_OP_EQ, "a/b");
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_MATCH_VALUE);

	/* all: arriving, and says so in its key. */
	s->m[0] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_FALSE(test, rule->out);
	KUNIT_EXPECT_EQ(test, s->img.mask.b[MMB_IMG_FLAGS] & MMB_KF_OUT, MMB_KF_OUT);
	KUNIT_EXPECT_EQ(test, s->img.key.b[MMB_IMG_FLAGS] & MMB_KF_OUT, 0);
	mmb_rule_free(rule);

	/* leaving: the flag alone. */
	s->m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_TRUE(test, rule->out);
	KUNIT_EXPECT_EQ(test, s->img.key.b[MMB_IMG_FLAGS] & MMB_KF_OUT, MMB_KF_OUT);
	mmb_rule_free(rule);

	/* Refused, each at the match at fault. */
	s->nmatches = 2;
	s->m[0] = mmbt_match_in(MMB_OP_EQ, "eth0");
	s->m[1] = egt_out(MMB_OP_EQ, "mmbe-w");
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_MATCH);
	KUNIT_EXPECT_EQ(test, err.index, 0);
	s->m[0] = egt_out(MMB_OP_NE, "mmbe-w");
	s->m[1] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.index, 1);
	s->nmatches = 1;
	s->m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_NE, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	s->m[0] = egt_out(MMB_OP_LT, "mmbe-w");
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);

	/* masquerade: stateful, leaving. */
	s->t[0].type = MMB_TARGET_MASQUERADE;
	s->m[0] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	s->stateful = true;
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_TARGET);
	s->m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	s->stateful = false;
	KUNIT_EXPECT_EQ(test, PTR_ERR(mmb_rule_create(s, NULL, &err)), -EINVAL);
	s->stateful = true;
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_TRUE(test, rule->nat);
	KUNIT_EXPECT_TRUE(test, rule->out);
	mmb_rule_free(rule);
}

/* Enabling registers the egress hook; disabling takes it away again. */
static void egress_hook_registered_test(struct kunit *test)
{
	struct egt *e = egt_new(test);

	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(e->dev->nf_hooks_egress));
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, mmb_dev_disable(e->dev, NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(e->dev->nf_hooks_egress));
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, mmb_dev_enable(e->dev, NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(e->dev->nf_hooks_egress));
}

/*
 * A leaving rule judges what leaves by its device and nothing that
 * arrives; an arriving rule the other way round. IPv4 and IPv6 alike.
 */
static void egress_drop_way_test(struct kunit *test)
{
	struct egt *e = egt_new(test);
	struct mmb_match_spec m[2];
	struct mmb_rule *out, *in;
	struct mmbt_pkt_desc d;
	int v6;

	m[0] = egt_out(MMB_OP_EQ, e->dev->name);
	m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	out = egt_rule(e, false, MMB_TARGET_DROP, m, 2);
	m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 123);
	in = egt_rule(e, false, MMB_TARGET_DROP, m, 2);

	for (v6 = 0; v6 < 2; v6++) {
		d = egt_pkt(v6, IPPROTO_UDP, 40000, 53, false);
		KUNIT_EXPECT_EQ(test, egt_send(e, &d), 0);
		KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
		d = egt_pkt(v6, IPPROTO_UDP, 40000, 123, false);
		KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
		KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 0);
		d = egt_pkt(v6, IPPROTO_UDP, 40000, 80, false);
		KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
	}
	KUNIT_EXPECT_EQ(test, egt_rule_packets(out), 2);
	KUNIT_EXPECT_EQ(test, egt_rule_packets(in), 2);
	/* Two drops each way, counted on the device. */
	KUNIT_EXPECT_EQ(test, egt_count(e, MMB_DROP_RULE), 4);

	/* "out" of another device matches nothing here. */
	mmbt_remove(&e->mn->rules, out);
	m[0] = egt_out(MMB_OP_EQ, "mmbe-other");
	m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	egt_rule(e, false, MMB_TARGET_DROP, m, 2);
	d = egt_pkt(false, IPPROTO_UDP, 40000, 53, false);
	KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
}

/* A leaving rule rewrites what leaves; the frame's link-layer header stays. */
static void egress_rewrite_test(struct kunit *test)
{
	struct egt *e = egt_new(test);
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	struct mmbt_target t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_TTL, .vlen = 1,
				 .value = { 9 } };
	struct mmbt_pkt_desc d = egt_pkt(false, IPPROTO_UDP, 40000, 53, false);
	const struct iphdr *iph = (const struct iphdr *)(e->cd->sent.buf + ETH_HLEN);

	mmbt_rule_targets(test, &e->mn->rules, false, &m, 1, &t, 1);
	KUNIT_ASSERT_EQ(test, egt_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(e->cd->sent.buf + 12), ETH_P_IP);
	KUNIT_EXPECT_TRUE(test, ether_addr_equal(e->cd->sent.buf + 6, e->dev->dev_addr));
	KUNIT_EXPECT_EQ(test, iph->ttl, 9);
	KUNIT_EXPECT_EQ(test, ip_fast_csum(iph, iph->ihl), 0);
	KUNIT_EXPECT_EQ(test, egt_count(e, MMB_COUNT_REWRITTEN), 1);
	/* Arriving packets are not a leaving rule's. */
	KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
	KUNIT_EXPECT_EQ(test, egt_count(e, MMB_COUNT_REWRITTEN), 1);
}

/*
 * The host's own connection: a stateful leaving rule starts it as its
 * first packet leaves, and its replies are let in past a drop of
 * everything else that arrives; a packet arriving that is no reply is not.
 */
static void egress_own_connection_test(struct kunit *test)
{
	struct egt *e = egt_new(test);
	struct mmb_match_spec m[2];
	struct mmbt_pkt_desc d;
	int v6, proto;

	m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	egt_rule(e, false, MMB_TARGET_DROP, m, 1);
	m[0] = egt_out(MMB_OP_EQ, e->dev->name);
	egt_rule(e, true, MMB_TARGET_ACCEPT, m, 1);

	for (v6 = 0; v6 < 2; v6++) {
		for (proto = 0; proto < 2; proto++) {
			u8 p = proto ? IPPROTO_TCP : IPPROTO_UDP;
			unsigned int before = atomic_read(&e->mn->conns.count);

			/* Nothing has left yet: the reply is dropped. */
			d = egt_pkt(v6, p, 53, 40000 + proto, true);
			d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
			KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 0);
			d = egt_pkt(v6, p, 40000 + proto, 53, false);
			KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), before + 1);
			d = egt_pkt(v6, p, 53, 40000 + proto, true);
			d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
			KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
			/* Another port of the same hosts is no reply. */
			d = egt_pkt(v6, p, 53, 41000, true);
			KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 0);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), before + 1);
		}
	}
}

/*
 * An arriving connection's packets leaving again are not judged as new:
 * a stateful leaving rule starts no second connection for them. One that
 * mmb saw arrive (forwarded) gets its connection's rules once, there; the
 * host's own packets of it get them as they leave.
 */
static void egress_no_second_connection_test(struct kunit *test)
{
	struct egt *e = egt_new(test);
	struct mmb_match_spec m;
	struct mmbt_pkt_desc d;
	struct mmb_rule *in;

	m = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	in = egt_rule(e, true, MMB_TARGET_ACCEPT, &m, 1);
	m = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	egt_rule(e, true, MMB_TARGET_ACCEPT, &m, 1);

	d = egt_pkt(false, IPPROTO_UDP, 40000, 53, false);
	KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
	KUNIT_EXPECT_EQ(test, egt_rule_packets(in), 1);
	/* Forwarded on: judged as it arrived. */
	e->iif = e->dev->ifindex;
	KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, egt_rule_packets(in), 1);
	/* The host's own reply: judged as it leaves, by the connection's rule. */
	e->iif = 0;
	d = egt_pkt(false, IPPROTO_UDP, 53, 40000, true);
	KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, egt_rule_packets(in), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
}

/*
 * "out" names a device: a rule may name one that does not exist yet, and
 * judges what leaves by it from its first packet once it is made.
 */
static void egress_out_later_test(struct kunit *test)
{
	struct mmb_rules *rules = &mmb_pernet(&init_net)->rules;
	struct mmb_match_spec m[2];
	struct mmbt_pkt_desc d;
	struct mmb_rule *rule;
	struct egt *e;
	int v6;

	m[0] = egt_out(MMB_OP_EQ, "mmbe-late");
	m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	rule = mmbt_rule_add(test, rules, false, MMB_TARGET_DROP, m, 2);
	/* No such device yet: it is made and enabled now. */
	e = egt_new_named(test, "mmbe-late");
	for (v6 = 0; v6 < 2; v6++) {
		d = egt_pkt(v6, IPPROTO_UDP, 40000, 53, false);
		KUNIT_EXPECT_EQ(test, egt_send(e, &d), 0);
		d = egt_pkt(v6, IPPROTO_UDP, 40000, 80, false);
		KUNIT_EXPECT_EQ(test, egt_send(e, &d), 1);
		/* Arriving, it is no leaving rule's. */
		d = egt_pkt(v6, IPPROTO_UDP, 40000, 53, false);
		KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
	}
	KUNIT_EXPECT_EQ(test, egt_rule_packets(rule), 2);
	KUNIT_EXPECT_EQ(test, egt_count(e, MMB_DROP_RULE), 2);
}

/*
 * A connection an arriving rule gives an ID offset (no mapping: its
 * offsets go as it arrives), and a leaving rule maps its source: two of
 * its packets judged arriving before the first leaves (one NAPI batch)
 * leave with the one offset each, though the leaving judgement's copy
 * maps the source as it leaves. A packet of the host's own is mapped whole.
 */
static void egress_offsets_once_test(struct kunit *test)
{
	struct mmbt_target in = { .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_IP_ID };
	struct mmbt_target out = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR,
				   .vlen = 4, .value = { 203, 0, 113, 9 } };
	struct egt *e = egt_new(test);
	const struct iphdr *iph = (const struct iphdr *)(e->cd->sent.buf + ETH_HLEN);
	struct mmbt_pkt_desc d = egt_pkt(false, IPPROTO_UDP, 40000, 53, false);
	struct mmb_match_spec m;

	m = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	mmbt_rule_targets(test, &e->mn->rules, true, &m, 1, &in, 1);
	m = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	mmbt_rule_targets(test, &e->mn->rules, true, &m, 1, &out, 1);

	/* Both arrive (each given the offset there: its ID is 0x1234 + k)... */
	KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
	KUNIT_EXPECT_EQ(test, egt_receive(e, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
	/* ...then leave, forwarded, as they arrived: the same ID, source mapped. */
	e->iif = e->dev->ifindex;
	KUNIT_ASSERT_EQ(test, egt_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, ntohs(iph->id), 0x1234);
	KUNIT_EXPECT_EQ(test, iph->saddr, htonl(0xcb007109));
	KUNIT_ASSERT_EQ(test, egt_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, ntohs(iph->id), 0x1234);
	KUNIT_EXPECT_EQ(test, iph->saddr, htonl(0xcb007109));
	KUNIT_EXPECT_EQ(test, ip_fast_csum(iph, iph->ihl), 0);
	/* The host's own packet of the tuple: mapped whole. */
	e->iif = 0;
	KUNIT_ASSERT_EQ(test, egt_send(e, &d), 1);
	KUNIT_EXPECT_EQ(test, iph->saddr, htonl(0xcb007109));
	KUNIT_EXPECT_EQ(test, ip_fast_csum(iph, iph->ihl), 0);
}

static struct kunit_case egress_cases[] = {
	KUNIT_CASE(egress_rule_way_test),
	KUNIT_CASE(egress_hook_registered_test),
	KUNIT_CASE(egress_drop_way_test),
	KUNIT_CASE(egress_rewrite_test),
	KUNIT_CASE(egress_own_connection_test),
	KUNIT_CASE(egress_no_second_connection_test),
	KUNIT_CASE(egress_out_later_test),
	KUNIT_CASE(egress_offsets_once_test),
	{}
};

static struct kunit_suite egress_suite = {
	.name = "mmb-egress",
	.test_cases = egress_cases,
};

kunit_test_suite(egress_suite);
