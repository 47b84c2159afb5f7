// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on arriving and leaving stateful rules composed
 * (a connection an arriving rule started, judged by the leaving stateful
 * rules as its first packet leaves). The device, routes and packets of
 * compose_test.c: one enabled device, a route to the servers through it
 * (so replies wait for the leaving judgement), rp-filter off.
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

/* What the device transmitted last, and how many frames. */
static struct {
	int n;
	unsigned int len;
	u8 buf[256];
} atkc_sent;

/* What the stack got last after mmb's hook, and how many packets. */
static struct {
	int n;
	unsigned int len;
	u8 buf[256];
} atkc_got;

static netdev_tx_t atkc_xmit(struct sk_buff *skb, struct net_device *dev)
{
	atkc_sent.n++;
	atkc_sent.len = min_t(unsigned int, skb->len, sizeof(atkc_sent.buf));
	skb_copy_bits(skb, 0, atkc_sent.buf, atkc_sent.len);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops atkc_ops = {
	.ndo_start_xmit = atkc_xmit,
};

static void atkc_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &atkc_ops;
	dev->tx_queue_len = 0;
	dev->priv_flags |= IFF_NO_QUEUE;
	eth_hw_addr_random(dev);
}

static int atkc_tap_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt,
			struct net_device *orig)
{
	atkc_got.n++;
	atkc_got.len = min_t(unsigned int, skb->len, sizeof(atkc_got.buf));
	skb_copy_bits(skb, 0, atkc_got.buf, atkc_got.len);
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

struct atkc {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_net *mn;
	struct packet_type pt4, pt6;
};

/* 10.0.0.0/24 and fd00::/64 are the inside; 10.0.1.0/24, fd00:1::/64 the servers. */
static const u8 atkc_client4[4] = { 10, 0, 0, 1 };
static const u8 atkc_server4[4] = { 10, 0, 1, 2 };
static const u8 atkc_outside4[4] = { 10, 0, 0, 8 };	/* what the source is mapped to */
static const u8 atkc_client6[16] = { 0xfd, [15] = 1 };
static const u8 atkc_server6[16] = { 0xfd, 0, 0, 1, [15] = 2 };
static const u8 atkc_outside6[16] = { 0xfd, [15] = 8 };

/* "ip route add @dst/@plen dev @dev", or del. */
static void atkc_route(struct kunit *test, struct net_device *dev, bool v6, bool del)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned int alen = v6 ? 16 : 4, len;
	struct {
		struct nlmsghdr nlh;
		struct rtmsg rtm;
		u8 attrs[64];
	} req = {};
	struct msghdr msg = {};
	struct nlmsghdr *ans;
	struct socket *sock;
	struct nlattr *a;
	struct kvec iov;
	u8 rx[512];

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE,
					       &sock), 0);
	req.nlh.nlmsg_type = del ? RTM_DELROUTE : RTM_NEWROUTE;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (del ? 0 : NLM_F_CREATE | NLM_F_EXCL);
	req.rtm.rtm_family = v6 ? AF_INET6 : AF_INET;
	req.rtm.rtm_dst_len = v6 ? 64 : 24;
	req.rtm.rtm_table = RT_TABLE_MAIN;
	req.rtm.rtm_protocol = RTPROT_STATIC;
	req.rtm.rtm_scope = RT_SCOPE_LINK;
	req.rtm.rtm_type = RTN_UNICAST;
	len = NLMSG_ALIGN(NLMSG_LENGTH(sizeof(req.rtm)));
	a = (struct nlattr *)((u8 *)&req + len);
	a->nla_type = RTA_DST;
	a->nla_len = nla_attr_size(alen);
	memcpy(nla_data(a), v6 ? atkc_server6 : atkc_server4, alen);
	((u8 *)nla_data(a))[alen - 1] = 0;	/* the servers' prefix */
	len += nla_total_size(alen);
	a = (struct nlattr *)((u8 *)&req + len);
	a->nla_type = RTA_OIF;
	a->nla_len = nla_attr_size(4);
	*(u32 *)nla_data(a) = dev->ifindex;
	len += nla_total_size(4);
	req.nlh.nlmsg_len = len;
	msg.msg_name = &sa;
	msg.msg_namelen = sizeof(sa);
	iov.iov_base = &req;
	iov.iov_len = len;
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(sock, &msg, &iov, 1, len), (int)len);
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = rx;
	iov.iov_len = sizeof(rx);
	KUNIT_ASSERT_GT(test, kernel_recvmsg(sock, &msg, &iov, 1, sizeof(rx), 0), 0);
	sock_release(sock);
	ans = (struct nlmsghdr *)rx;
	KUNIT_ASSERT_EQ(test, ans->nlmsg_type, NLMSG_ERROR);
	KUNIT_ASSERT_EQ(test, ((struct nlmsgerr *)nlmsg_data(ans))->error, 0);
}

static void atkc_flush(struct atkc *e)
{
	struct mmb_txn txn;

	if (!mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_EMPTY))
		mmb_txn_commit(&txn);
	mmb_conns_flush(&e->mn->conns);
}

static void atkc_free(void *data)
{
	struct atkc *e = data;

	mmb_test_points.bind = NULL;
	mmb_test_points.found = NULL;
	dev_remove_pack(&e->pt4);
	dev_remove_pack(&e->pt6);
	atkc_flush(e);
	e->mn->conns.rpf = true;
	/* Its routes go with it. */
	unregister_netdev(e->dev);
	free_netdev(e->dev);
}

static struct atkc *atkc_new(struct kunit *test)
{
	struct atkc *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->test = test;
	e->mn = mmb_pernet(&init_net);
	e->dev = alloc_netdev(0, "mmbk%d", NET_NAME_UNKNOWN, atkc_setup);
	KUNIT_ASSERT_NOT_NULL(test, e->dev);
	KUNIT_ASSERT_EQ(test, register_netdev(e->dev), 0);
	e->pt4.dev = e->dev;
	e->pt4.type = htons(ETH_P_IP);
	e->pt4.func = atkc_tap_rcv;
	e->pt6 = e->pt4;
	e->pt6.type = htons(ETH_P_IPV6);
	dev_add_pack(&e->pt4);
	dev_add_pack(&e->pt6);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, atkc_free, e), 0);
	rtnl_lock();
	err = dev_open(e->dev, NULL);
	if (!err)
		err = mmb_dev_enable(e->dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	atkc_route(test, e->dev, false, false);
	atkc_route(test, e->dev, true, false);
	e->mn->conns.rpf = false;
	atkc_sent.n = 0;
	atkc_got.n = 0;
	return e;
}

/* @a:@sport -> @b:@dport, a TCP SYN or a UDP datagram. */
static struct mmbt_pkt_desc atkc_pkt(bool v6, u8 proto, const u8 *a, u16 sport,
				     const u8 *b, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = TCPHDR_SYN, .payload_len = 10, .seq = 1000,
	};

	memcpy(d.saddr, a, v6 ? 16 : 4);
	memcpy(d.daddr, b, v6 ? 16 : 4);
	return d;
}

static struct sk_buff *atkc_leaving(struct atkc *e, const struct mmbt_pkt_desc *d)
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
static int atkc_send(struct atkc *e, const struct mmbt_pkt_desc *d)
{
	int before = atkc_sent.n, rc;

	rc = dev_queue_xmit(atkc_leaving(e, d));
	KUNIT_EXPECT_EQ(e->test, atkc_sent.n - before, rc == NET_XMIT_SUCCESS ? 1 : 0);
	return rc == NET_XMIT_SUCCESS;
}

/* Receive @d on the device: 1 if mmb let it in (the stack got it), else 0. */
static int atkc_receive(struct atkc *e, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(e->dev, d);
	int before = atkc_got.n;

	KUNIT_ASSERT_NOT_NULL(e->test, skb);
	mmbt_receive(mmbt_frame(e->dev, skb));
	return atkc_got.n - before;
}

static u64 atkc_count(struct atkc *e, enum mmb_count what)
{
	u64 n[MMB_COUNT_MAX];

	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(e->dev)->counts, n);
	rtnl_unlock();
	return n[what];
}

/* The live connection whose original tuple is @d's, or NULL. */
static struct mmb_conn *atkc_conn(struct atkc *e, const struct mmbt_pkt_desc *d)
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

/*
 * The router of docs/router.md "After routing" with an arriving stateful
 * rule beside it: "add-stateful in DEV accept" and "add-stateful out DEV
 * ip-saddr INSIDE map ip-saddr OUTSIDE" (the source NAT of masquerade,
 * with an address the test chooses). Both families, TCP and UDP.
 */
static struct mmb_rule *atkc_rule_out(struct atkc *e, bool v6)
{
	struct mmb_match_spec m[2];
	struct mmbt_target t = { .type = MMB_TARGET_MAP };

	m[0] = mmbt_match(MMB_FIELD_LEAVING, MMB_OP_EQ, 1);
	m[1] = mmbt_match(v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0);
	memcpy(m[1].value, v6 ? atkc_client6 : atkc_client4, v6 ? 16 : 4);
	m[1].vlen = v6 ? 16 : 4;
	m[1].plen = v6 ? 64 : 24;
	t.field = v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR;
	t.vlen = v6 ? 16 : 4;
	memcpy(t.value, v6 ? atkc_outside6 : atkc_outside4, t.vlen);
	return mmbt_rule_targets(e->test, &e->mn->rules, true, m, 2, &t, 1);
}

/*
 * Receive on the device an ICMP error from @from to @to (port unreachable)
 * quoting the headers of @q: 1 if mmb let it in, else 0.
 */
static int atkc_receive_error(struct atkc *e, const u8 *from, const u8 *to,
			      const struct mmbt_pkt_desc *q)
{
	unsigned int l3len = q->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	u8 proto = q->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	u16 type = q->v6 ? ICMPV6_DEST_UNREACH << 8 | ICMPV6_PORT_UNREACH :
		   ICMP_DEST_UNREACH << 8 | ICMP_PORT_UNREACH;
	struct mmbt_pkt_desc d = atkc_pkt(q->v6, proto, from, type, to, 0);
	struct sk_buff *skb, *quoted;
	int before = atkc_got.n;
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
	return atkc_got.n - before;
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
	struct atkc *e = atkc_new(test);
	struct mmb_match_spec m[2];
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? atkc_client6 : atkc_client4;
		const u8 *server = v6 ? atkc_server6 : atkc_server4;
		const u8 *outside = v6 ? atkc_outside6 : atkc_outside4;
		u64 drops = atkc_count(e, MMB_DROP_RULE);
		struct mmbt_pkt_desc q;
		struct mmb_conn *c;

		/* Only what goes to port 80 starts one; nothing else comes in. */
		atkc_rule_out(e, v6);
		m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
		mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, m, 1);
		m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, m, 2);

		q = atkc_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, atkc_receive(e, &q), 1);
		c = atkc_conn(e, &q);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_OUT_PENDING, &c->status));
		/* The sender's error about the unmapped SYN: a packet of none. */
		KUNIT_EXPECT_EQ(test, atkc_receive_error(e, server, client, &q), 0);
		KUNIT_EXPECT_EQ(test, atkc_count(e, MMB_DROP_RULE), drops + 1);
		/* The SYN leaves mapped all the same. */
		KUNIT_EXPECT_EQ(test, atkc_send(e, &q), 1);
		c = atkc_conn(e, &q);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_MAPPED, &c->status));
		/* An error about the SYN as it left is the connection's. */
		q = atkc_pkt(v6, IPPROTO_TCP, outside, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, atkc_receive_error(e, server, outside, &q), 1);
		KUNIT_EXPECT_EQ(test, atkc_count(e, MMB_DROP_RULE), drops + 1);
		atkc_flush(e);
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
	struct atkc *e = atkc_new(test);
	struct mmb_match_spec m[2];
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? atkc_client6 : atkc_client4;
		const u8 *server = v6 ? atkc_server6 : atkc_server4;
		u64 drops = atkc_count(e, MMB_DROP_RULE);
		struct mmbt_pkt_desc q;
		struct mmb_rule *out;
		struct mmb_conn *c;
		struct mmb_txn txn;

		out = atkc_rule_out(e, v6);
		m[0] = mmbt_match_in(MMB_OP_EQ, e->dev->name);
		mmbt_rule_add(test, &e->mn->rules, false, MMB_TARGET_DROP, m, 1);
		m[1] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, m, 2);

		q = atkc_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, atkc_receive(e, &q), 1);
		c = atkc_conn(e, &q);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_OUT_PENDING, &c->status));
		KUNIT_ASSERT_EQ(test, mmb_txn_begin(&e->mn->rules, &txn, MMB_TXN_INPLACE), 0);
		KUNIT_ASSERT_EQ(test, mmb_txn_del(&txn, out->handle), 0);
		mmb_txn_commit(&txn);
		/* It leaves as it is; its reply is its own. */
		KUNIT_EXPECT_EQ(test, atkc_send(e, &q), 1);
		KUNIT_ASSERT_PTR_EQ(test, atkc_conn(e, &q), c);
		q = atkc_pkt(v6, IPPROTO_TCP, server, 80, client, 40000);
		q.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
		KUNIT_EXPECT_EQ(test, atkc_receive(e, &q), 1);
		KUNIT_EXPECT_EQ(test, atkc_count(e, MMB_DROP_RULE), drops);
		KUNIT_EXPECT_TRUE(test, test_bit(MMB_CONN_SEEN_REPLY, &c->status));
		atkc_flush(e);
	}
}

static struct {
	struct atkc *e;
	struct sk_buff *skb;	/* the copy, built before: the test point is atomic */
	unsigned int verdict, runs;
} atkc_race;

/* Another CPU's copy of the first packet leaves, whole, meanwhile. */
static void atkc_race_found(struct mmb_conn *c)
{
	struct atkc *e = atkc_race.e;
	struct mmb_dev *md;

	if (atkc_race.runs++)
		return;
	md = rcu_dereference(e->dev->rx_handler_data);
	atkc_race.verdict = mmb_hook_out(md, atkc_race.skb, NULL);
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
	struct atkc *e = atkc_new(test);
	struct mmb_match_spec m;
	int v6;

	m = mmbt_match_in(MMB_OP_EQ, e->dev->name);
	for (v6 = 0; v6 < 2; v6++) {
		const u8 *client = v6 ? atkc_client6 : atkc_client4;
		const u8 *server = v6 ? atkc_server6 : atkc_server4;
		const u8 *outside = v6 ? atkc_outside6 : atkc_outside4;
		u64 unmapped = atkc_count(e, MMB_DROP_UNMAPPED);
		struct mmbt_pkt_desc d;
		struct mmb_conn *c;

		mmbt_rule_add(test, &e->mn->rules, true, MMB_TARGET_ACCEPT, &m, 1);
		atkc_rule_out(e, v6);
		d = atkc_pkt(v6, IPPROTO_TCP, client, 40000, server, 80);
		KUNIT_EXPECT_EQ(test, atkc_receive(e, &d), 1);
		memset(&atkc_race, 0, sizeof(atkc_race));
		atkc_race.e = e;
		atkc_race.skb = atkc_leaving(e, &d);
		skb_set_network_header(atkc_race.skb, ETH_HLEN);
		mmb_test_points.found = atkc_race_found;
		KUNIT_EXPECT_EQ(test, atkc_send(e, &d), 0);
		mmb_test_points.found = NULL;
		kfree_skb(atkc_race.skb);
		KUNIT_EXPECT_EQ(test, atkc_race.verdict, NF_ACCEPT);
		KUNIT_EXPECT_EQ(test, atkc_count(e, MMB_DROP_UNMAPPED), unmapped + 1);
		if (atkc_sent.n)
			KUNIT_EXPECT_NE(test, memcmp(atkc_sent.buf + ETH_HLEN + (v6 ? 8 : 12),
						     client, v6 ? 16 : 4), 0);
		c = atkc_conn(e, &d);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_EQ(test, memcmp(&c->reply.t.dst, outside, v6 ? 16 : 4), 0);
		atkc_flush(e);
	}
}

static struct kunit_case atkc_cases[] = {
	KUNIT_CASE(atkc_remote_error_test),
	KUNIT_CASE(atkc_rules_gone_test),
	KUNIT_CASE(atkc_stale_copy_test),
	{}
};

static struct kunit_suite atkc_suite = {
	.name = "mmb-atkc",
	.test_cases = atkc_cases,
};

kunit_test_suite(atkc_suite);
