// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: arriving and leaving stateful rules compose (issue 38), as
 * netfilter's one conntrack entry meets prerouting, forward and
 * postrouting. A connection an arriving rule starts is judged by the
 * leaving stateful rules too when its first packet leaves by an enabled
 * device: their source mapping binds to it (replies are mapped back),
 * their drop drops the packet and ends it. Packets arrive through
 * netif_receive_skb() and leave through dev_queue_xmit() on one enabled
 * device of the test's own (forwarded: skb_iif is the device), with a
 * route to the servers through it (so replies wait for the leaving
 * judgement) and rp-filter off.
 */
#include <linux/etherdevice.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/test.h"
#include "util.h"

/* A router of one device: what it sent and what its stack got are @cd's. */
struct cmp {
	struct kunit *test;
	struct mmbt_capdev *cd;
	struct net_device *dev;
	struct mmb_net *mn;
};

/* 10.0.0.0/24 and fd00::/64 are the inside; 10.0.1.0/24, fd00:1::/64 the servers. */
static const u8 cmp_client4[4] = { 10, 0, 0, 1 };
static const u8 cmp_server4[4] = { 10, 0, 1, 2 };
static const u8 cmp_outside4[4] = { 10, 0, 0, 8 };	/* what the source is mapped to */
static const u8 cmp_client6[16] = { 0xfd, [15] = 1 };
static const u8 cmp_server6[16] = { 0xfd, 0, 0, 1, [15] = 2 };
static const u8 cmp_outside6[16] = { 0xfd, [15] = 8 };

/* "ip route add SERVERS dev @dev", or del. */
static void cmp_route(struct kunit *test, struct net_device *dev, bool v6, bool del)
{
	u8 dst[16];

	memcpy(dst, v6 ? cmp_server6 : cmp_server4, v6 ? 16 : 4);
	dst[v6 ? 15 : 3] = 0;	/* the servers' prefix */
	mmbt_route(test, &init_net, dev, v6, dst, v6 ? 64 : 24, RTN_UNICAST, del);
}

static void cmp_flush(struct cmp *e)
{
	struct mmb_txn txn;

	if (!mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_EMPTY))
		mmb_txn_commit(&txn);
	mmb_conns_flush(&e->mn->conns);
}

static void cmp_free(void *data)
{
	struct cmp *e = data;

	mmb_test_points.bind = NULL;
	mmb_test_points.found = NULL;
	mmb_test_points.half_in = NULL;
	mmb_test_points.probe = NULL;
	cmp_flush(e);
	e->mn->conns.rpf = true;
	/* The device goes next (mmbt_capdev_new()), its routes with it. */
}

static struct cmp *cmp_new(struct kunit *test)
{
	struct cmp *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	e->mn = mmb_pernet(&init_net);
	e->cd = mmbt_capdev_new(test, "mmbc%d");
	e->dev = e->cd->dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cmp_free, e), 0);
	cmp_route(test, e->dev, false, false);
	cmp_route(test, e->dev, true, false);
	e->mn->conns.rpf = false;
	return e;
}

/* @a:@sport -> @b:@dport, a TCP SYN or a UDP datagram. */
static struct mmbt_pkt_desc cmp_pkt(bool v6, u8 proto, const u8 *a, u16 sport, const u8 *b,
				    u16 dport)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = TCPHDR_SYN, .payload_len = 10, .seq = 1000,
	};

	memcpy(d.saddr, a, v6 ? 16 : 4);
	memcpy(d.daddr, b, v6 ? 16 : 4);
	return d;
}

static struct sk_buff *cmp_leaving(struct cmp *e, const struct mmbt_pkt_desc *d)
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
	skb->skb_iif = e->dev->ifindex;		/* forwarded: mmb saw it arrive */
	return skb;
}

/* Forward @d out of the device: 1 if it left, 0 if the egress hook dropped it. */
static int cmp_send(struct cmp *e, const struct mmbt_pkt_desc *d)
{
	int before = e->cd->sent.n, rc;

	rc = dev_queue_xmit(cmp_leaving(e, d));
	KUNIT_EXPECT_EQ(e->test, e->cd->sent.n - before, rc == NET_XMIT_SUCCESS ? 1 : 0);
	return rc == NET_XMIT_SUCCESS;
}

/* Receive @d on the device: 1 if mmb let it in (the stack got it), else 0. */
static int cmp_receive(struct cmp *e, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);
	int before = e->cd->got.n;

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	mmbt_receive(mmbt_frame(e->dev, skb));
	return e->cd->got.n - before;
}

static u64 cmp_count(struct cmp *e, enum mmb_count what)
{
	u64 n[MMB_COUNT_MAX];

	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(e->dev)->counts, n);
	rtnl_unlock();
	return n[what];
}

/* The live connection whose original tuple is @d's, or NULL. */
static struct mmb_conn *cmp_conn(struct cmp *e, const struct mmbt_pkt_desc *d)
{
	struct mmb_tuple t = {
		.family = d->v6 ? 6 : 4, .proto = d->proto, .dir = MMB_DIR_ORIG,
		.sport = htons(d->sport), .dport = htons(d->dport),
	};
	struct mmb_conn *c;
	u8 dir;

	memcpy(&t.src, d->saddr, d->v6 ? 16 : 4);
	memcpy(&t.dst, d->daddr, d->v6 ? 16 : 4);
	rcu_read_lock();
	c = mmb_conn_find(&e->mn->conns, &t, &dir);
	if (c && (dir != MMB_DIR_ORIG || !mmb_conn_live(c)))
		c = NULL;
	rcu_read_unlock();
	return c;	/* the tests' own: nothing frees it under them */
}

/* The source (address and port) of the IP packet in @buf, with checksums valid. */
static void cmp_expect_src(struct kunit *test, const u8 *l3, unsigned int len, bool v6,
			   u8 proto, const u8 *addr, u16 port)
{
	unsigned int l4off = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);

	KUNIT_ASSERT_GT(test, len, l4off + 4);
	KUNIT_EXPECT_EQ(test, memcmp(l3 + (v6 ? 8 : 12), addr, v6 ? 16 : 4), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(l3 + l4off), port);
	if (!v6)
		KUNIT_EXPECT_EQ(test, ip_fast_csum(l3, 5), 0);
	KUNIT_EXPECT_EQ(test, mmbt_l4_csum(l3, l4off, len - l4off, v6, proto), 0);
}

static void cmp_expect_dst(struct kunit *test, const u8 *l3, unsigned int len, bool v6,
			   u8 proto, const u8 *addr, u16 port)
{
	unsigned int l4off = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);

	KUNIT_ASSERT_GT(test, len, l4off + 4);
	KUNIT_EXPECT_EQ(test, memcmp(l3 + (v6 ? 24 : 16), addr, v6 ? 16 : 4), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(l3 + l4off + 2), port);
	if (!v6)
		KUNIT_EXPECT_EQ(test, ip_fast_csum(l3, 5), 0);
	KUNIT_EXPECT_EQ(test, mmbt_l4_csum(l3, l4off, len - l4off, v6, proto), 0);
}

/*
 * The router of docs/router.md "After routing" with an arriving stateful
 * rule beside it: "add-stateful in DEV accept" and "add-stateful out DEV
 * ip-saddr INSIDE map ip-saddr OUTSIDE" (the source NAT of masquerade,
 * with an address the test chooses). Both families, TCP and UDP.
 */
static struct mmb_rule *cmp_rule_out(struct cmp *e, bool v6)
{
	struct mmb_match_spec m[2];
	struct mmbt_target t = { .type = MMB_TARGET_MAP };

	m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	m[1] = mmbt_match(v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0);
	memcpy(m[1].value, v6 ? cmp_client6 : cmp_client4, v6 ? 16 : 4);
	m[1].vlen = v6 ? 16 : 4;
	m[1].plen = v6 ? 64 : 24;
	t.field = v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR;
	t.vlen = v6 ? 16 : 4;
	memcpy(t.value, v6 ? cmp_outside6 : cmp_outside4, t.vlen);
	return mmbt_rule_targets(e->test, &e->mn->rules, true, m, 2, &t, 1);
}

static void cmp_rules(struct cmp *e, bool v6)
{
	struct mmb_match_spec m = mmbt_match_in(MMB_OP_EQ, e->dev->name);

	mmbt_rule_add(e->test, &e->mn->rules, true, MMB_TARGET_ACCEPT, &m, 1);
	cmp_rule_out(e, v6);
}

static void compose_snat_test(struct kunit *test)
{
	static const u8 protos[] = { IPPROTO_TCP, IPPROTO_UDP };
	struct cmp *e = cmp_new(test);
	struct mmbt_pkt_desc d;
	struct mmb_conn *c;
	unsigned int p;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		unsigned int alen = v6 ? 16 : 4;

		cmp_rules(e, v6);
		for (p = 0; p < ARRAY_SIZE(protos); p++) {
			u8 proto = protos[p];

			/* In: the arriving rule starts it; replies wait. */
			d = cmp_pkt(v6, proto, client, 40000 + p, server, 80);
			KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
			c = cmp_conn(e, &d);
			KUNIT_ASSERT_NOT_NULL(test, c);
			KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_OUT_PENDING, &c->status));
			KUNIT_EXPECT_FALSE(test, test_bit(MMB_CONN_MAPPED, &c->status));
			/* Out: the leaving rule maps its source, on the same connection. */
			KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
			cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN,
				       e->cd->sent.len - ETH_HLEN, v6, proto, outside, 40000 + p);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), (int)p + 1);
			c = cmp_conn(e, &d);
			KUNIT_ASSERT_NOT_NULL(test, c);
			KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_MAPPED, &c->status));
			KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_OUT_DONE, &c->status));
			KUNIT_EXPECT_EQ(test, memcmp(&c->reply.t.dst, outside, alen), 0);
			KUNIT_EXPECT_EQ(test, c->nrules, 2);
			/* A later packet of it leaves mapped too. */
			d.payload_seed = 7;
			KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
			KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
			cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN,
				       e->cd->sent.len - ETH_HLEN, v6, proto, outside, 40000 + p);
			/* The reply, to the mapped address, is mapped back as it arrives. */
			d = cmp_pkt(v6, proto, server, 80, outside, 40000 + p);
			d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
			d.ack = 1000 + 10 + 1;	/* the client's SYN, with its 10 bytes */
			KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
			cmp_expect_dst(test, e->cd->got.buf, e->cd->got.len, v6, proto, client,
				       40000 + p);
			KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_SEEN_REPLY, &c->status));
		}
		cmp_flush(e);
	}
}

/*
 * A reply before the leaving judgement (a remote sender guessing the
 * unmapped tuple) is not the connection's: it is judged as a packet of
 * none (here: dropped by "in DEV drop"), and does not mark the connection
 * as answered, whose first packet then leaves mapped all the same.
 */
static void compose_early_reply_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m[2];
	struct mmbt_pkt_desc d;
	struct mmb_conn *c;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		u64 drops = cmp_count(e, MMB_DROP_RULE);

		/* Only what goes to port 80 starts one; nothing else comes in. */
		cmp_rule_out(e, v6);
		m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
		mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, m, 1);
		m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, m, 2);

		d = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		d = cmp_pkt(v6, IPPROTO_TCP, server, 80, client, 40000);
		d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 0);
		KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_RULE), drops + 1);
		d = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		c = cmp_conn(e, &d);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_FALSE(test, test_bit(MMB_CONN_SEEN_REPLY, &c->status));
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN, e->cd->sent.len - ETH_HLEN, v6,
			       IPPROTO_TCP, outside, 40000);
		/* The unmapped tuple is nobody's now: still dropped. */
		d = cmp_pkt(v6, IPPROTO_TCP, server, 80, client, 40000);
		d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 0);
		d = cmp_pkt(v6, IPPROTO_TCP, server, 80, outside, 40000);
		d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		cmp_expect_dst(test, e->cd->got.buf, e->cd->got.len, v6, IPPROTO_TCP, client,
			       40000);
		cmp_flush(e);
	}
}

/*
 * A drop on the way out: "add-stateful out DEV tcp-dport 81 drop" beside
 * "add-stateful in DEV accept". The first packet is dropped as it leaves
 * and its connection ends with it (nf_conntrack's unconfirmed entry): no
 * half-made connection is left to accept replies; the next copy starts
 * afresh and is dropped again.
 */
static void compose_drop_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m[2];
	struct mmbt_pkt_desc d;
	int v6, i;

	m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, m, 1);
	m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 81);
	mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_DROP, m, 2);
	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;

		for (i = 0; i < 2; i++) {
			u64 drops = cmp_count(e, MMB_DROP_RULE);

			d = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 81);
			KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
			KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 0);
			KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_RULE), drops + 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 0);
			KUNIT_EXPECT_NULL(test, cmp_conn(e, &d));
		}
		/* Port 80 is not dropped: its connection is judged both ways and stays. */
		d = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		KUNIT_EXPECT_NOT_NULL(test, cmp_conn(e, &d));
		KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
		mmb_conns_flush(&e->mn->conns);
	}
}

/*
 * A packet socket's qdisc bypass runs the egress hook with BH on (the
 * kernel's nf_hook_direct_egress()): mmb judges with BH off all the same,
 * as its per-CPU counters and caches and its connections' bit locks need.
 * The probe of the classifier's tables sees which.
 */
static struct {
	unsigned int probes, bh_on;
} cmp_bh;

static void cmp_bh_probe(unsigned int i)
{
	cmp_bh.probes++;
	if (!softirq_count())
		cmp_bh.bh_on++;
}

static void compose_bh_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmbt_pkt_desc d;
	struct sk_buff *skb;
	struct mmb_dev *md;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		cmp_rules(e, v6);
		d = cmp_pkt(v6, IPPROTO_UDP, v6 ? cmp_client6 : cmp_client4, 40000,
			    v6 ? cmp_server6 : cmp_server4, 53);
		skb = cmp_leaving(e, &d);
		memset(&cmp_bh, 0, sizeof(cmp_bh));
		WRITE_ONCE(mmb_test_points.probe, cmp_bh_probe);
		KUNIT_EXPECT_EQ(test, softirq_count(), 0UL);
		rcu_read_lock();
		md = rcu_dereference(e->dev->rx_handler_data);
		mmb_hook_out(md, skb, NULL);
		rcu_read_unlock();
		WRITE_ONCE(mmb_test_points.probe, NULL);
		kfree_skb(skb);
		KUNIT_EXPECT_GT(test, cmp_bh.probes, 0U);
		KUNIT_EXPECT_EQ(test, cmp_bh.bh_on, 0U);
		cmp_flush(e);
	}
}

/*
 * Two CPUs leaving copies of the same first packet (a retransmitted SYN):
 * the second copy meets the connection while the first CPU holds its
 * leaving judgement (the test point runs it there). Exactly one decides
 * and binds; the other copy is dropped (unmapped), never sent with the
 * inside source; the connection is mapped once.
 */
static struct {
	struct cmp *e;
	struct sk_buff *skb;	/* the copy, built before: the test point is atomic */
	unsigned int verdict, runs;
} cmp_race;

static void cmp_race_bind(struct mmb_conns *mc, struct mmb_conn *c)
{
	struct cmp *e = cmp_race.e;
	struct mmb_dev *md;

	if (cmp_race.runs++)
		return;
	md = rcu_dereference(e->dev->rx_handler_data);
	cmp_race.verdict = mmb_hook_out(md, cmp_race.skb, NULL);
}

static void compose_race_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmbt_pkt_desc d;
	struct mmb_conn *c;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		u64 unmapped = cmp_count(e, MMB_DROP_UNMAPPED);

		cmp_rules(e, v6);
		d = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		memset(&cmp_race, 0, sizeof(cmp_race));
		cmp_race.e = e;
		cmp_race.skb = cmp_leaving(e, &d);
		skb_set_network_header(cmp_race.skb, ETH_HLEN);
		mmb_test_points.bind = cmp_race_bind;
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		mmb_test_points.bind = NULL;
		kfree_skb(cmp_race.skb);
		KUNIT_EXPECT_EQ(test, cmp_race.runs, 1);
		KUNIT_EXPECT_EQ(test, cmp_race.verdict, NF_DROP);
		KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_UNMAPPED), unmapped + 1);
		cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN, e->cd->sent.len - ETH_HLEN, v6,
			       IPPROTO_TCP, outside, 40000);
		KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
		c = cmp_conn(e, &d);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_EQ(test, memcmp(&c->reply.t.dst, outside, v6 ? 16 : 4), 0);
		/* A copy after it: mapped by the one binding, no other made. */
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN, e->cd->sent.len - ETH_HLEN, v6,
			       IPPROTO_TCP, outside, 40000);
		KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 1);
		KUNIT_EXPECT_PTR_EQ(test, cmp_conn(e, &d), c);
		cmp_flush(e);
	}
}

/*
 * A port clash: another connection already has the mapped tuple (the same
 * client port, from another inside host). The leaving judgement picks
 * another port, as a connection started leaving does.
 */
static void compose_clash_test(struct kunit *test)
{
	static const u8 other4[4] = { 10, 0, 0, 2 };
	static const u8 other6[16] = { 0xfd, [15] = 2 };
	struct cmp *e = cmp_new(test);
	struct mmbt_pkt_desc d;
	struct mmb_conn *c;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		u16 port;

		cmp_rules(e, v6);
		d = cmp_pkt(v6, IPPROTO_UDP, v6 ? cmp_client6 : cmp_client4, 40000, server, 53);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		d = cmp_pkt(v6, IPPROTO_UDP, v6 ? other6 : other4, 40000, server, 53);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&e->mn->conns.count), 2);
		c = cmp_conn(e, &d);
		KUNIT_ASSERT_NOT_NULL(test, c);
		port = ntohs(c->reply.t.dport);
		KUNIT_EXPECT_NE(test, port, 40000);
		cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN, e->cd->sent.len - ETH_HLEN, v6,
			       IPPROTO_UDP, outside, port);
		/* Its reply comes back to the other host. */
		d = cmp_pkt(v6, IPPROTO_UDP, server, 53, outside, port);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		cmp_expect_dst(test, e->cd->got.buf, e->cd->got.len, v6, IPPROTO_UDP,
			       v6 ? other6 : other4, 40000);
		cmp_flush(e);
	}
}

/*
 * An ICMP error about the first packet of a connection whose replies wait
 * for its leaving judgement (the router's own time exceeded: TTL 1) is
 * still the connection's: its rules judge it (accept, beside "add leaving
 * icmp-type 11 drop"), as nf_conntrack attaches the entry of the packet
 * an error is about. Only replies proper wait.
 */
static void compose_related_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m[2];
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		unsigned int l3len = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
		u8 proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		struct mmbt_pkt_desc d, q;
		struct sk_buff *syn, *err;
		__sum16 sum;
		u8 *l3;

		cmp_rules(e, v6);
		m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
		m[1] = mmbt_match(v6 ? MMB_FIELD_ICMP6_TYPE : MMB_FIELD_ICMP_TYPE, MMB_OP_EQ,
				  v6 ? ICMPV6_TIME_EXCEED : ICMP_TIME_EXCEEDED);
		mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, m, 2);
		q = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &q), 1);
		KUNIT_ASSERT_NOT_NULL(test, cmp_conn(e, &q));
		/* The router's time exceeded, quoting the SYN's headers. */
		d = cmp_pkt(v6, proto, server, (v6 ? ICMPV6_TIME_EXCEED : ICMP_TIME_EXCEEDED) << 8,
			    client, 0);
		d.payload_len = l3len + 8;
		err = cmp_leaving(e, &d);
		err->skb_iif = 0;
		syn = mmbt_pkt_build(e->dev, &q);
		KUNIT_ASSERT_NOT_NULL(test, syn);
		l3 = err->data + ETH_HLEN;
		skb_copy_bits(syn, 0, l3 + l3len + 8, l3len + 8);
		kfree_skb(syn);
		put_unaligned(0, (__sum16 *)(l3 + l3len + 2));
		sum = mmbt_l4_csum(l3, l3len, 8 + l3len + 8, v6, proto);
		put_unaligned(sum, (__sum16 *)(l3 + l3len + 2));
		KUNIT_ASSERT_EQ(test, mmbt_l4_csum(l3, l3len, 8 + l3len + 8, v6, proto), 0);
		KUNIT_EXPECT_EQ(test, dev_queue_xmit(err), NET_XMIT_SUCCESS);
		KUNIT_EXPECT_EQ(test, e->cd->sent.len, ETH_HLEN + l3len + 8 + l3len + 8);
		cmp_flush(e);
	}
}

/*
 * mod tcp-opt-mss pmtu only ever lowers, whatever lowered the MSS before
 * it in the same verdict: here the router's own SYN-ACK of a connection
 * an arriving rule started ("add-stateful in DEV tcp-dport 80 mod
 * tcp-opt-mss 1000"), whose rules apply as it leaves, beside "add leaving
 * tcp-syn mod tcp-opt-mss pmtu" with a route of MTU 1400 (1360 from it).
 * The image holds the MSS as parsed (1460): pmtu compared with that and
 * wrote 1360, raising what the arriving rule lowered. A segment the
 * arriving rule left at 1460 is still lowered to the route's.
 */
static void compose_pmtu_test(struct kunit *test)
{
	static const u8 mss1460[4] = { TCPOPT_MSS, TCPOLEN_MSS, 0x05, 0xb4 };
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m[2];
	struct mmbt_target t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_TCP_OPT_MSS,
				 .vlen = 2 };
	int v6, port, err;

	rtnl_lock();
	err = dev_set_mtu(e->dev, 1400);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
	put_unaligned_be16(1000, t.value);
	mmbt_rule_targets(test, &e->mn->rules, true, m, 2, &t, 1);
	m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	m[1] = mmbt_match(MMB_FIELD_TCP_SYN, MMB_OP_EQ, 1);
	put_unaligned_be16(0, t.value);			/* pmtu */
	mmbt_rule_targets(test, &e->mn->rules, false, m, 2, &t, 1);
	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_server6 : cmp_server4;	/* routed by the device */
		const u8 *router = v6 ? cmp_client6 : cmp_client4;
		unsigned int l3len = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
		unsigned int l4off = ETH_HLEN + l3len;
		u16 want[2] = { 1000, v6 ? 1340 : 1360 };

		for (port = 0; port < 2; port++) {
			struct mmbt_pkt_desc d;
			struct dst_entry *dst;
			struct sk_buff *skb;

			/* Port 80: the arriving rule's connection; 81: none. */
			d = cmp_pkt(v6, IPPROTO_TCP, client, 5000, router, 80 + port);
			d.tcp_opts = mss1460;
			d.tcp_opt_len = 4;
			KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
			d = cmp_pkt(v6, IPPROTO_TCP, router, 80 + port, client, 5000);
			d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
			d.tcp_opts = mss1460;
			d.tcp_opt_len = 4;
			skb = cmp_leaving(e, &d);
			skb->skb_iif = 0;		/* the router's own */
			if (v6) {
				struct flowi6 fl6 = { .flowi6_oif = e->dev->ifindex };

				memcpy(&fl6.daddr, client, 16);
				dst = ip6_route_output(&init_net, NULL, &fl6);
			} else {
				struct flowi4 fl4 = { .flowi4_oif = e->dev->ifindex };
				struct rtable *rt;

				memcpy(&fl4.daddr, client, 4);
				rt = ip_route_output_key(&init_net, &fl4);
				KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
				dst = &rt->dst;
			}
			KUNIT_ASSERT_EQ(test, dst->error, 0);
			KUNIT_EXPECT_EQ(test, dst_mtu(dst), 1400);
			skb_dst_set(skb, dst);
			KUNIT_EXPECT_EQ(test, dev_queue_xmit(skb), NET_XMIT_SUCCESS);
			KUNIT_ASSERT_GE(test, e->cd->sent.len, l4off + 24);
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(e->cd->sent.buf + l4off + 22),
					want[port]);
			KUNIT_EXPECT_EQ(test, mmbt_l4_csum(e->cd->sent.buf + ETH_HLEN, l3len,
							   e->cd->sent.len - l4off, v6,
							   IPPROTO_TCP), 0);
		}
	}
}

static struct kunit_case compose_cases[] = {
	KUNIT_CASE(compose_snat_test),
	KUNIT_CASE(compose_early_reply_test),
	KUNIT_CASE(compose_drop_test),
	KUNIT_CASE(compose_race_test),
	KUNIT_CASE(compose_bh_test),
	KUNIT_CASE(compose_clash_test),
	KUNIT_CASE(compose_related_test),
	KUNIT_CASE(compose_pmtu_test),
	{}
};

static struct kunit_suite compose_suite = {
	.name = "mmb-compose",
	.test_cases = compose_cases,
};

/*
 * Attacks on the composition (a remote sender's ICMP errors, an admin's
 * reload, a stale copy racing the swap), on the same device and routes.
 */
/*
 * Receive on the device an ICMP error from @from to @to (port unreachable)
 * quoting the headers of @q: 1 if mmb let it in, else 0.
 */
static int cmp_receive_error(struct cmp *e, const u8 *from, const u8 *to,
			     const struct mmbt_pkt_desc *q)
{
	unsigned int l3len = q->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	u8 proto = q->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	u16 type = q->v6 ? ICMPV6_DEST_UNREACH << 8 | ICMPV6_PORT_UNREACH :
		   ICMP_DEST_UNREACH << 8 | ICMP_PORT_UNREACH;
	struct mmbt_pkt_desc d = cmp_pkt(q->v6, proto, from, type, to, 0);
	struct sk_buff *skb, *quoted;
	int before = e->cd->got.n;
	__sum16 sum;
	u8 *l3;

	d.payload_len = l3len + 8;
	skb = mmbt_pkt_build(e->dev, &d);
	quoted = mmbt_pkt_build(e->dev, q);
	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	KUNIT_ASSERT_NOT_NULL(e->test, quoted);
	l3 = skb->data;
	skb_copy_bits(quoted, 0, l3 + l3len + 8, l3len + 8);
	kfree_skb(quoted);
	put_unaligned(0, (__sum16 *)(l3 + l3len + 2));
	sum = mmbt_l4_csum(l3, l3len, 8 + l3len + 8, q->v6, proto);
	put_unaligned(sum, (__sum16 *)(l3 + l3len + 2));
	KUNIT_EXPECT_EQ(e->test, mmbt_l4_csum(l3, l3len, 8 + l3len + 8, q->v6, proto), 0);
	mmbt_receive(mmbt_frame(e->dev, skb));
	return e->cd->got.n - before;
}

/*
 * A remote sender's ICMP error (port unreachable) quoting the first packet
 * of a connection whose replies wait for its leaving judgement, unmapped,
 * arriving before that packet left (its next hop being resolved, a queue,
 * a drop on the way): any ICMP error about it was the connection's (the
 * exception made for the router's own time exceeded, which is only ever
 * seen leaving), so it passed "in DEV drop" to the client and could tear
 * its connection down. nf_conntrack has no entry to find for it before
 * the first packet leaves: only the host's own error is the connection's.
 * Once the first packet left mapped, an error quoting it as it left is
 * the connection's.
 */
static void atkc_remote_error_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m[2];
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		u64 drops = cmp_count(e, MMB_DROP_RULE);
		struct mmbt_pkt_desc q;
		struct mmb_conn *c;

		/* Only what goes to port 80 starts one; nothing else comes in. */
		cmp_rule_out(e, v6);
		m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
		mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, m, 1);
		m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, m, 2);

		q = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &q), 1);
		c = cmp_conn(e, &q);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_OUT_PENDING, &c->status));
		/* The sender's error about the unmapped SYN: a packet of none. */
		KUNIT_EXPECT_EQ(test, cmp_receive_error(e, server, client, &q), 0);
		KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_RULE), drops + 1);
		/* The SYN leaves mapped all the same. */
		KUNIT_EXPECT_EQ(test, cmp_send(e, &q), 1);
		c = cmp_conn(e, &q);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_MAPPED, &c->status));
		/* An error about the SYN as it left is the connection's. */
		q = cmp_pkt(v6, IPPROTO_TCP, outside, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive_error(e, server, outside, &q), 1);
		KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_RULE), drops + 1);
		cmp_flush(e);
	}
}

/*
 * The leaving stateful rules deleted while a connection waits for its
 * leaving judgement (an admin's reload under traffic): its first packet
 * left with no leaving stateful rule to judge it, and nothing ended the
 * wait, so its replies were nobody's for as long as it lived (here:
 * dropped by "in DEV drop"), and so were those of every copy after it.
 * Its first packet leaving ends the wait, whatever the rules now.
 */
static void atkc_rules_gone_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m[2];
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		u64 drops = cmp_count(e, MMB_DROP_RULE);
		struct mmbt_pkt_desc q;
		struct mmb_rule *out;
		struct mmb_conn *c;
		struct mmb_txn txn;

		out = cmp_rule_out(e, v6);
		m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
		mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, m, 1);
		m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, m, 2);

		q = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &q), 1);
		c = cmp_conn(e, &q);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_OUT_PENDING, &c->status));
		KUNIT_ASSERT_EQ(test, mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_INPLACE), 0);
		KUNIT_ASSERT_EQ(test, mmb_txn_del(&txn, out->handle), 0);
		mmb_txn_commit(&txn);
		/* It leaves as it is; its reply is its own. */
		KUNIT_EXPECT_EQ(test, cmp_send(e, &q), 1);
		KUNIT_ASSERT_PTR_EQ(test, cmp_conn(e, &q), c);
		q = cmp_pkt(v6, IPPROTO_TCP, server, 80, client, 40000);
		q.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
		q.ack = 1000 + 10 + 1;	/* the client's SYN, with its 10 bytes */
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &q), 1);
		KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_RULE), drops);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_SEEN_REPLY, &c->status));
		cmp_flush(e);
	}
}

static struct {
	struct cmp *e;
	struct sk_buff *skb;	/* the copy, built before: the test point is atomic */
	unsigned int verdict, runs;
} cmp_stale;

/* Another CPU's copy of the first packet leaves, whole, meanwhile. */
static void cmp_stale_found(struct mmb_conn *c)
{
	struct cmp *e = cmp_stale.e;
	struct mmb_dev *md;

	if (cmp_stale.runs++)
		return;
	md = rcu_dereference(e->dev->rx_handler_data);
	cmp_stale.verdict = mmb_hook_out(md, cmp_stale.skb, NULL);
}

/*
 * Two copies of a first packet leaving on two CPUs (a SYN retransmitted,
 * RPS): one finds the connection, the other claims its leaving judgement,
 * binds the source mapping and replaces it before the first looks at its
 * judgement. The first, holding the replaced connection (claimed, never
 * judged, not mapped), took it as judged and left with the inside source
 * address: what "unmapped" drops exist to prevent. It is dropped unmapped.
 */
static void atkc_stale_copy_test(struct kunit *test)
{
	struct cmp *e = cmp_new(test);
	struct mmb_match_spec m;
	int v6;

	m = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		u64 unmapped = cmp_count(e, MMB_DROP_UNMAPPED);
		struct mmbt_pkt_desc d;
		struct mmb_conn *c;

		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, &m, 1);
		cmp_rule_out(e, v6);
		d = cmp_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, cmp_receive(e, &d), 1);
		memset(&cmp_stale, 0, sizeof(cmp_stale));
		cmp_stale.e = e;
		cmp_stale.skb = cmp_leaving(e, &d);
		skb_set_network_header(cmp_stale.skb, ETH_HLEN);
		mmb_test_points.found = cmp_stale_found;
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 0);
		mmb_test_points.found = NULL;
		kfree_skb(cmp_stale.skb);
		KUNIT_EXPECT_EQ(test, cmp_stale.verdict, NF_ACCEPT);
		KUNIT_EXPECT_EQ(test, cmp_count(e, MMB_DROP_UNMAPPED), unmapped + 1);
		if (e->cd->sent.n)
			KUNIT_EXPECT_NE(test, memcmp(e->cd->sent.buf + ETH_HLEN + (v6 ? 8 : 12),
						     client, v6 ? 16 : 4), 0);
		c = cmp_conn(e, &d);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_EQ(test, memcmp(&c->reply.t.dst, outside, v6 ? 16 : 4), 0);
		cmp_flush(e);
	}
}

/* What mmb_masq_lost() does, here between masquerade's pick and the table. */
static void cmp_masq_lost(struct mmb_conns *mc, struct mmb_conn *c)
{
	atomic_inc(&mc->masq_gen);
}

/*
 * An address lost between masquerade's pick of it and its connection's
 * place in the table: the walk its loss started had passed, so the
 * connection lived on with an address the host no longer has (its packets
 * leaving with it, its replies lost) until it timed out. A masqueraded
 * connection that sees the count of losses move meanwhile walks the table
 * again, which ends it if its address is gone.
 */
static void atkc_masq_race_test(struct kunit *test)
{
	struct mmbt_target t = { .type = MMB_TARGET_MASQUERADE };
	struct cmp *e = cmp_new(test);
	struct mmb_conns *mc = &e->mn->conns;
	struct mmb_match_spec m;
	int v6;

	m = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	mmbt_rule_targets(test, &e->mn->rules, true, &m, 1, &t, 1);
	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? cmp_client6 : cmp_client4;
		const u8 *server = v6 ? cmp_server6 : cmp_server4;
		const u8 *outside = v6 ? cmp_outside6 : cmp_outside4;
		struct mmbt_pkt_desc d, d2;

		mmbt_addr(test, e->dev, v6, outside, v6 ? 64 : 24, false);
		flush_work(&mc->masq);
		/* No loss meanwhile: no walk. */
		d = cmp_pkt(v6, IPPROTO_UDP, client, 40000, server, 53);
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d), 1);
		cmp_expect_src(test, e->cd->sent.buf + ETH_HLEN, e->cd->sent.len - ETH_HLEN, v6,
			       IPPROTO_UDP, outside, 40000);
		KUNIT_EXPECT_FALSE(test, work_pending(&mc->masq));
		/* A loss between the pick and the table: the table is walked again. */
		d2 = cmp_pkt(v6, IPPROTO_UDP, client, 40001, server, 53);
		mmb_test_points.half_in = cmp_masq_lost;
		KUNIT_EXPECT_EQ(test, cmp_send(e, &d2), 1);
		mmb_test_points.half_in = NULL;
		KUNIT_EXPECT_TRUE(test, work_pending(&mc->masq));
		flush_work(&mc->masq);
		/* The address is still the host's: the walk ends neither. */
		KUNIT_EXPECT_NOT_NULL(test, cmp_conn(e, &d));
		KUNIT_EXPECT_NOT_NULL(test, cmp_conn(e, &d2));
		/* Its loss ends both. */
		mmbt_addr(test, e->dev, v6, outside, v6 ? 64 : 24, true);
		flush_work(&mc->masq);
		KUNIT_EXPECT_NULL(test, cmp_conn(e, &d));
		KUNIT_EXPECT_NULL(test, cmp_conn(e, &d2));
		mmb_conns_flush(mc);
	}
}

static struct kunit_case atkc_cases[] = {
	KUNIT_CASE(atkc_remote_error_test),
	KUNIT_CASE(atkc_rules_gone_test),
	KUNIT_CASE(atkc_stale_copy_test),
	KUNIT_CASE(atkc_masq_race_test),
	{}
};

static struct kunit_suite atkc_suite = {
	.name = "mmb-atkc",
	.test_cases = atkc_cases,
};

kunit_test_suites(&compose_suite, &atkc_suite);
