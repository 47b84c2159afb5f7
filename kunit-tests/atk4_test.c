// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on the way out (the egress hook, NAT in two halves,
 * masquerade), each a defect found (or a case that held) and kept as a
 * test. Packets leave through dev_queue_xmit() and arrive through
 * netif_receive_skb() on a device of the test's own in the initial
 * namespace, both ways on one device (no routes: rp-filter off).
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "util.h"

struct a4 {
	struct kunit *test;
	struct mmbt_capdev *cd;	/* what it transmitted: cd->sent */
	struct net_device *dev;
	struct mmb_net *mn;
	int iif;		/* what a4_send()'s packets came in on: forwarded */
};

/* The namespace's rules and connections, emptied. */
static void a4_flush(struct a4 *e)
{
	struct mmb_txn txn;

	if (!mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_EMPTY))
		mmb_txn_commit(&txn);
	mmb_conns_flush(&e->mn->conns);
}

static void a4_free(void *data)
{
	struct a4 *e = data;

	a4_flush(e);
	e->mn->conns.rpf = true;
	/* The device goes next (mmbt_capdev_new()). */
}

static struct a4 *a4_new(struct kunit *test)
{
	struct a4 *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	e->mn = mmb_pernet(&init_net);
	e->cd = mmbt_capdev_new(test, "mmba%d");
	e->dev = e->cd->dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, a4_free, e), 0);
	e->mn->conns.rpf = false;
	return e;
}

/* 10.0.0.@a:@sport -> 10.0.0.@b:@dport (fd00::@a, fd00::@b). */
static struct mmbt_pkt_desc a4_pkt(bool v6, u8 proto, u8 a, u16 sport, u8 b, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = TCPHDR_SYN, .payload_len = 10,
	};

	if (v6) {
		d.saddr[0] = 0xfd;
		d.saddr[15] = a;
		d.daddr[0] = 0xfd;
		d.daddr[15] = b;
	} else {
		d.saddr[0] = 10;
		d.saddr[3] = a;
		d.daddr[0] = 10;
		d.daddr[3] = b;
	}
	return d;
}

/* Send @d out of the test device: 1 if it left, 0 if the egress hook dropped it. */
static int a4_send(struct a4 *e, const struct mmbt_pkt_desc *d)
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

static u64 a4_count(struct a4 *e, enum mmb_count what)
{
	u64 n[MMB_COUNT_MAX];

	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(e->dev)->counts, n);
	rtnl_unlock();
	return n[what];
}

static u64 a4_cstat(struct a4 *e, enum mmb_conn_stat what)
{
	u64 n[MMB_CSTAT_MAX];

	mmb_conns_stats(&e->mn->conns, n);
	return n[what];
}

/* Receive @d on the test device: 1 if mmb let it in, 0 if it dropped it. */
static int a4_receive(struct a4 *e, const struct mmbt_pkt_desc *d)
{
	u64 before = a4_count(e, MMB_DROP_RULE) + a4_count(e, MMB_DROP_CONN);
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	mmbt_receive(mmbt_frame(e->dev, skb));
	return a4_count(e, MMB_DROP_RULE) + a4_count(e, MMB_DROP_CONN) == before;
}

static struct mmb_rule *a4_rule(struct a4 *e, bool stateful, u8 target,
				const struct mmb_match_spec *m, unsigned int n)
{
	return mmbt_rule_add(e->test, &e->mn->rules, stateful, target, m, n);
}

/* A map of the address field @field (host @host of the tests' prefix). */
static struct mmbt_target a4_map(bool v6, bool src, u8 host)
{
	struct mmbt_target t = { .type = MMB_TARGET_MAP };

	if (v6) {
		t.field = src ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP6_DADDR;
		t.vlen = 16;
		t.value[0] = 0xfd;
		t.value[15] = host;
	} else {
		t.field = src ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP_DADDR;
		t.vlen = 4;
		t.value[0] = 10;
		t.value[3] = host;
	}
	return t;
}

/*
 * A connection mapped whole as its packets arrive (destination NAT; source
 * NAT whose packets do not leave by an enabled device's egress hook, as
 * the route lookup at its start found) has packets that leave with tuples
 * the table does not hold: the original direction's destination mapped,
 * the replies' destination mapped back. A stateful leaving rule that
 * matches them (add-stateful leaving accept: track what the host sends)
 * used to start a connection for each, whose reply tuple is the first
 * one's: the insert collided, the packet was dropped as "no free port"
 * (nat_full, conn), every packet of every such connection. A packet mmb
 * saw arrive belongs to the connection it was judged by.
 */
static void atk4_translated_leaving_test(struct kunit *test)
{
	struct a4 *e = a4_new(test);
	struct mmb_match_spec m[2];
	struct mmbt_pkt_desc d;
	struct mmbt_target t;
	int v6, src;

	for (v6 = 0; v6 < 2; v6++) {
		for (src = 0; src < 2; src++) {
			u64 full = a4_cstat(e, MMB_CSTAT_NAT_FULL);
			u64 drops = a4_count(e, MMB_DROP_CONN);

			/* DNAT of .2:53 to .9, or SNAT of .1 to .8. */
			m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
			m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
			t = a4_map(v6, src, src ? 8 : 9);
			mmbt_rule_targets(test, &e->mn->rules, true, m, 2, &t, 1);
			m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
			a4_rule(e, true, MMB_TARGET_ACCEPT, m, 1);

			d = a4_pkt(v6, IPPROTO_UDP, 1, 40000, 2, 53);
			KUNIT_EXPECT_EQ(test, a4_receive(e, &d), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
			/* Forwarded on, as mapped: no second connection, not dropped. */
			e->iif = e->dev->ifindex;
			d = a4_pkt(v6, IPPROTO_UDP, src ? 8 : 1, 40000, src ? 2 : 9, 53);
			KUNIT_EXPECT_EQ(test, a4_send(e, &d), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
			/* The reply, mapped back as it arrived, forwarded on. */
			e->iif = 0;
			d = a4_pkt(v6, IPPROTO_UDP, src ? 2 : 9, 53, src ? 8 : 1, 40000);
			KUNIT_EXPECT_EQ(test, a4_receive(e, &d), 1);
			e->iif = e->dev->ifindex;
			d = a4_pkt(v6, IPPROTO_UDP, 2, 53, 1, 40000);
			KUNIT_EXPECT_EQ(test, a4_send(e, &d), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
			KUNIT_EXPECT_EQ(test, a4_cstat(e, MMB_CSTAT_NAT_FULL), full);
			KUNIT_EXPECT_EQ(test, a4_count(e, MMB_DROP_CONN), drops);
			e->iif = 0;
			a4_flush(e);
		}
	}
}

static struct kunit_case atk4_cases[] = {
	KUNIT_CASE(atk4_translated_leaving_test),
	{}
};

static struct kunit_suite atk4_suite = {
	.name = "mmb-atk4",
	.test_cases = atk4_cases,
};

kunit_test_suite(atk4_suite);
