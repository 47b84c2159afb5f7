// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the fast path of offloaded connections (offload.c). A router
 * of three devices, up: "lan" (198.51.100.0/24, forwarding on), "wan"
 * (203.0.113.0/24, next hop 203.0.113.7 a permanent neighbour with its
 * header cached) and "alt" (a /32 to 203.0.113.7 through it, added and
 * deleted by the tests). A connection an offload rule started, replied to,
 * is offloaded; each packet that must go back to the normal path is
 * refused by mmb_fast_check() for its reason, and the route its direction
 * caches follows the routing table.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/arp.h>
#include <net/ip.h>
#include <net/neighbour.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/nat.h"
#include "../kmod/offload.h"
#include "../kmod/test.h"
#include "util.h"

struct fastt {
	struct kunit *test;
	struct net_device *lan, *wan, *alt;
	struct mmb_rules *r;
	struct mmb_conns mc;
};

static const u8 fastt_client[4] = { 198, 51, 100, 5 };
static const u8 fastt_server[4] = { 203, 0, 113, 7 };
static const u8 fastt_lan_net[4] = { 198, 51, 100 };
static const u8 fastt_wan_net[4] = { 203, 0, 113 };
static const u8 fastt_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0x71, 0x07 };

static void fastt_free(void *data)
{
	struct fastt *f = data;

	mmb_conns_exit(&f->mc);
	rcu_barrier();
	mmbt_netdev_destroy(f->lan);
	mmbt_netdev_destroy(f->wan);
	if (f->alt)
		mmbt_netdev_destroy(f->alt);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

/* @addr a permanent neighbour of @dev, its header cached. */
static void fastt_neigh(struct kunit *test, struct net_device *dev, const u8 *addr)
{
	mmbt_neigh(test, dev, false, addr, fastt_mac);
}

static struct fastt *fastt_new(struct kunit *test)
{
	struct fastt *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->lan = mmbt_netdev_create_up(test);
	f->wan = mmbt_netdev_create_up(test);
	f->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&f->mc, &init_net), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fastt_free, f), 0);
	mmbt_route(test, &init_net, f->lan, false, fastt_lan_net, 24, RTN_UNICAST, false);
	mmbt_route(test, &init_net, f->wan, false, fastt_wan_net, 24, RTN_UNICAST, false);
	mmbt_forwarding(f->lan, true, false);
	mmbt_forwarding(f->wan, true, false);
	fastt_neigh(test, f->wan, fastt_server);
	WRITE_ONCE(mmb_test_points.clock, 1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return f;
}

/* add-stateful ip-proto udp [accept] [offload] */
static void fastt_rule(struct fastt *f, bool offload)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);

	mmbt_rule_add_accept(f->test, f->r, &m, 1, offload);
}

static struct mmbt_pkt_desc fastt_pkt(bool reply, unsigned int len)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .payload_len = len,
		.sport = reply ? 53 : 1000, .dport = reply ? 1000 : 53,
	};

	memcpy(d.saddr, reply ? fastt_server : fastt_client, 4);
	memcpy(d.daddr, reply ? fastt_client : fastt_server, 4);
	return d;
}

/* @d's packet, in on @dev, with room for a link header (as a driver leaves). */
static struct sk_buff *fastt_skb(struct fastt *f, struct net_device *dev,
				 const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(dev, d);

	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	KUNIT_ASSERT_EQ(f->test, skb_cow_head(skb, 64), 0);
	return skb;
}

/* The client's flow's tuple. */
static struct mmb_tuple fastt_tuple(struct fastt *f)
{
	struct mmbt_pkt_desc d = fastt_pkt(false, 10);
	struct sk_buff *skb = fastt_skb(f, f->lan, &d);
	struct mmb_tuple t = {};
	struct mmb_pkt pkt;

	KUNIT_ASSERT_EQ(f->test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_TRUE(f->test, mmb_conn_tuple(&pkt, &t));
	kfree_skb(skb);
	return t;
}

/* The connection of tuple @t, and its direction: under RCU. */
static struct mmb_conn *fastt_find(struct fastt *f, const struct mmb_tuple *t, u8 *dir)
{
	struct mmb_conn *c = mmb_conn_find(&f->mc, t, dir);

	KUNIT_EXPECT_NOT_NULL(f->test, c);
	return c;
}

/* The client's flow, started and replied to: its connection is offloaded. */
static void fastt_flow(struct fastt *f, bool offload)
{
	struct mmbt_pkt_desc d = fastt_pkt(false, 10), r = fastt_pkt(true, 10);

	fastt_rule(f, offload);
	KUNIT_ASSERT_EQ(f->test, mmbt_judge(f->r, &f->mc, fastt_skb(f, f->lan, &d)), 1);
	KUNIT_ASSERT_EQ(f->test, mmbt_judge(f->r, &f->mc, fastt_skb(f, f->wan, &r)), 1);
}

/*
 * Why mmb_fast_check() sends @skb (the client's flow, in on lan; consumed)
 * back to the normal path, or MMB_FAST_OK; the device of the route it
 * would take in *@out.
 */
static enum mmb_fast fastt_check(struct fastt *f, struct sk_buff *skb,
				 struct net_device **out)
{
	struct mmb_tuple t = fastt_tuple(f);
	struct dst_entry *dst = NULL;
	enum mmb_fast why;
	struct neighbour *n;
	struct mmb_conn *c;
	u8 dir = MMB_DIR_ORIG;

	rcu_read_lock();
	local_bh_disable();
	c = fastt_find(f, &t, &dir);
	why = c ? mmb_fast_check(skb, c, dir, false, &dst, &n) : MMB_FAST_UNCACHED;
	KUNIT_EXPECT_EQ(f->test, dir, MMB_DIR_ORIG);
	if (out)
		*out = why ? NULL : dst->dev;
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return why;
}

static enum mmb_fast fastt_why(struct fastt *f, const struct mmbt_pkt_desc *d)
{
	return fastt_check(f, fastt_skb(f, f->lan, d), NULL);
}

/* The device of the route the connection caches for its original direction. */
static struct net_device *fastt_cached(struct fastt *f)
{
	struct mmb_tuple t = fastt_tuple(f);
	struct net_device *dev = NULL;
	struct dst_entry *dst;
	struct mmb_conn *c;
	u8 dir;

	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	dst = c ? READ_ONCE(mmb_conn_ext(c)->fast[MMB_DIR_ORIG].dst) : NULL;
	if (mmb_fast_held(dst))
		dev = dst->dev;
	rcu_read_unlock();
	return dev;
}

/* Offloaded once replied to, by an offload rule only; its plain packet may go. */
static void offload_eligible_test(struct kunit *test)
{
	struct fastt *f = fastt_new(test);
	struct mmbt_pkt_desc d = fastt_pkt(false, 10);
	struct net_device *out;
	struct mmb_tuple t;
	struct mmb_conn *c;
	u8 dir;

	fastt_rule(f, true);
	KUNIT_ASSERT_EQ(test, mmbt_judge(f->r, &f->mc, fastt_skb(f, f->lan, &d)), 1);
	t = fastt_tuple(f);
	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	KUNIT_EXPECT_TRUE(test, c && test_bit(MMB_CONN_OFFLOAD, &c->status));
	KUNIT_EXPECT_FALSE(test, c && mmb_conn_offloaded(c));
	rcu_read_unlock();
	d = fastt_pkt(true, 10);
	KUNIT_ASSERT_EQ(test, mmbt_judge(f->r, &f->mc, fastt_skb(f, f->wan, &d)), 1);
	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	KUNIT_EXPECT_TRUE(test, c && mmb_conn_offloaded(c));
	rcu_read_unlock();
	d = fastt_pkt(false, 10);
	KUNIT_EXPECT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, f->wan);
	KUNIT_EXPECT_PTR_EQ(test, fastt_cached(f), f->wan);
}

/* Without offload, a connection replied to is not offloaded. */
static void offload_not_asked_test(struct kunit *test)
{
	struct fastt *f = fastt_new(test);
	struct mmb_tuple t;
	struct mmb_conn *c;
	u8 dir;

	fastt_flow(f, false);
	t = fastt_tuple(f);
	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	KUNIT_EXPECT_FALSE(test, c && test_bit(MMB_CONN_OFFLOAD, &c->status));
	KUNIT_EXPECT_FALSE(test, c && mmb_conn_offloaded(c));
	rcu_read_unlock();
}

/* Each packet the stack must see goes back to it, for its reason. */
static void offload_back_to_stack_test(struct kunit *test)
{
	struct fastt *f = fastt_new(test);
	struct mmbt_pkt_desc d;
	struct sk_buff *skb, *clone;
	static const u8 local4[4] = { 198, 51, 100, 1 };

	fastt_flow(f, true);
	d = fastt_pkt(false, 10);
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_OK);
	/* TTL 1: time exceeded is the stack's (and 0). */
	d.ttl = 1;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_TTL);
	d.ttl = 0;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_TTL);
	d.ttl = 2;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_OK);
	/* IPv4 options. */
	d = fastt_pkt(false, 10);
	d.l3_opt_len = 4;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_HEADER);
	/* Fragments, first and later. */
	d = fastt_pkt(false, 10);
	d.frag_off = IP_MF;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_HEADER);
	d.frag_off = 100;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_HEADER);
	/* Over the way out's MTU (1500), DF or not. */
	d = fastt_pkt(false, 1500);
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_MTU);
	d = fastt_pkt(false, 1500 - 28);
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_OK);
	/* A frame for another host's MAC. */
	d = fastt_pkt(false, 10);
	skb = fastt_skb(f, f->lan, &d);
	skb->pkt_type = PACKET_OTHERHOST;
	KUNIT_EXPECT_EQ(test, fastt_check(f, skb, NULL), MMB_FAST_NOT_FORWARD);
	/*
	 * Shared: not ours to write (the hook clones it first); its head
	 * shared with a clone (a tap's): mmb_fast_xmit() copies it.
	 */
	skb = fastt_skb(f, f->lan, &d);
	skb_get(skb);
	KUNIT_EXPECT_EQ(test, fastt_check(f, skb, NULL), MMB_FAST_NOT_FORWARD);
	kfree_skb(skb);
	skb = fastt_skb(f, f->lan, &d);
	clone = skb_clone(skb, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, clone);
	KUNIT_EXPECT_EQ(test, fastt_check(f, skb, NULL), MMB_FAST_OK);
	kfree_skb(clone);
	/* A bad IPv4 header checksum: ip_rcv() drops it. */
	skb = fastt_skb(f, f->lan, &d);
	((struct iphdr *)skb->data)->check ^= htons(1);
	KUNIT_EXPECT_EQ(test, fastt_check(f, skb, NULL), MMB_FAST_HEADER);
	/* A TCP packet of the UDP connection's tuple is not its. */
	d = fastt_pkt(false, 10);
	d.proto = IPPROTO_TCP;
	d.tcp_flags = TCPHDR_ACK;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_HEADER);
	/* The neighbour is not known: 203.0.113.8 has none. */
	d = fastt_pkt(false, 10);
	d.daddr[3] = 8;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_NEIGH);
	/* For the host itself. */
	mmbt_addr(test, f->lan, false, local4, 24, false);
	d = fastt_pkt(false, 10);
	memcpy(d.daddr, local4, 4);
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_ROUTE);
	mmbt_addr(test, f->lan, false, local4, 24, true);
#ifdef CONFIG_IP_MULTIPLE_TABLES
	/* Policy rules (ip rule): the route may depend on more than the way in. */
	d = fastt_pkt(false, 10);
	init_net.ipv4.fib_has_custom_rules = true;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_ROUTE);
	init_net.ipv4.fib_has_custom_rules = false;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_OK);
#endif
	/* Forwarding off on the way in. */
	mmbt_forwarding(f->lan, false, false);
	d = fastt_pkt(false, 10);
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_FORWARDING);
	mmbt_forwarding(f->lan, true, false);
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_OK);
}

/*
 * A head shared with a clone (a capture's) is copied before the fast path
 * writes the TTL and the link header: the clone keeps what it had.
 */
static void offload_copy_test(struct kunit *test)
{
	struct fastt *f = fastt_new(test);
	struct mmbt_pkt_desc d = fastt_pkt(false, 10);
	struct sk_buff *skb, *clone;
	struct mmb_conn *c = NULL;
	struct mmb_dev *md;
	struct mmb_tuple t;
	bool sent = false;
	u8 dir;
	int err;

	fastt_flow(f, true);
	/* Before the device is enabled: its name's id is read under RCU then. */
	t = fastt_tuple(f);
	rtnl_lock();
	err = mmb_dev_enable(f->lan, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	skb = fastt_skb(f, f->lan, &d);
	clone = skb_clone(skb, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, clone);
	rcu_read_lock();
	local_bh_disable();
	md = rcu_dereference(f->lan->rx_handler_data);
	if (clone && md)
		c = fastt_find(f, &t, &dir);
	if (c)
		sent = mmb_fast_xmit(md, skb, c, dir);
	local_bh_enable();
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, sent);
	if (!sent)
		kfree_skb(skb);
	if (clone)
		KUNIT_EXPECT_EQ(test, ((struct iphdr *)clone->data)->ttl, d.ttl);
	kfree_skb(clone);
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, mmb_dev_disable(f->lan, NULL), 0);
	rtnl_unlock();
}

/* The cached route follows the table: a route added, deleted, a device down. */
static void offload_route_test(struct kunit *test)
{
	struct fastt *f = fastt_new(test);
	struct mmbt_pkt_desc d = fastt_pkt(false, 10);
	struct net_device *out;
	struct dst_entry *before;
	struct mmb_tuple t;
	struct mmb_conn *c;
	u8 dir;

	fastt_flow(f, true);
	t = fastt_tuple(f);
	KUNIT_ASSERT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, f->wan);
	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	before = c ? READ_ONCE(mmb_conn_ext(c)->fast[MMB_DIR_ORIG].dst) : NULL;
	rcu_read_unlock();
	KUNIT_EXPECT_NOT_NULL(test, before);
	/* The same route serves the next packet. */
	KUNIT_ASSERT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	KUNIT_EXPECT_TRUE(test, c && READ_ONCE(mmb_conn_ext(c)->fast[MMB_DIR_ORIG].dst) == before);
	rcu_read_unlock();
	/* A /32 through alt: the cached route fails its check, alt's is cached. */
	f->alt = mmbt_netdev_create_up(test);
	fastt_neigh(test, f->alt, fastt_server);
	mmbt_route(test, &init_net, f->alt, false, fastt_server, 32, RTN_UNICAST, false);
	KUNIT_EXPECT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, f->alt);
	KUNIT_EXPECT_PTR_EQ(test, fastt_cached(f), f->alt);
	/* Deleted: back to wan. */
	mmbt_route(test, &init_net, f->alt, false, fastt_server, 32, RTN_UNICAST, true);
	KUNIT_EXPECT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, f->wan);
	/* wan down: its routes go, no route forwards there (the cached one fails). */
	rtnl_lock();
	dev_close(f->wan);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_ROUTE);
	KUNIT_EXPECT_PTR_NE(test, fastt_cached(f), f->wan);
	/* alt unregisters while a connection caches a route through it: it completes. */
	mmbt_route(test, &init_net, f->alt, false, fastt_server, 32, RTN_UNICAST, false);
	KUNIT_EXPECT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, f->alt);
	mmbt_netdev_destroy(f->alt);
	f->alt = NULL;
	KUNIT_EXPECT_EQ(test, fastt_why(f, &d), MMB_FAST_ROUTE);
}

/* A flush ends the connection; its routes are dropped with it (kmemleak, refcounts). */
static void offload_flush_test(struct kunit *test)
{
	struct fastt *f = fastt_new(test);
	struct mmbt_pkt_desc d = fastt_pkt(false, 10);
	struct mmbt_pkt_desc r = fastt_pkt(true, 10);
	enum mmb_fast why = MMB_FAST_UNCACHED;
	struct dst_entry *dst, *held[2] = {};
	struct net_device *out;
	unsigned int i, refs[2];
	struct sk_buff *skb;
	struct neighbour *n;
	struct mmb_tuple t;
	struct mmb_conn *c;
	u8 dir;

	fastt_flow(f, true);
	t = fastt_tuple(f);
	KUNIT_ASSERT_EQ(test, fastt_check(f, fastt_skb(f, f->lan, &d), &out), MMB_FAST_OK);
	/* The reply direction caches its own route, back out of lan. */
	fastt_neigh(test, f->lan, fastt_client);
	skb = fastt_skb(f, f->wan, &r);
	rcu_read_lock();
	local_bh_disable();
	c = fastt_find(f, &t, &dir);
	if (c)
		why = mmb_fast_check(skb, c, MMB_DIR_REPLY, false, &dst, &n);
	KUNIT_EXPECT_EQ(test, why, MMB_FAST_OK);
	if (!why)
		KUNIT_EXPECT_PTR_EQ(test, dst->dev, f->lan);
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	/* Each direction's route, held here too: the connection's reference counted. */
	rcu_read_lock();
	c = fastt_find(f, &t, &dir);
	for (i = 0; c && i < 2; i++) {
		dst = READ_ONCE(mmb_conn_ext(c)->fast[i].dst);
		if (mmb_fast_held(dst) && dst_hold_safe(dst)) {
			held[i] = dst;
			refs[i] = rcuref_read(&dst->__rcuref);
		}
	}
	rcu_read_unlock();
	KUNIT_ASSERT_NOT_NULL(test, held[0]);
	KUNIT_ASSERT_NOT_NULL(test, held[1]);
	mmb_conns_flush(&f->mc);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	/* The connection's references went with it, once each. */
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, rcuref_read(&held[i]->__rcuref), refs[i] - 1);
		dst_release(held[i]);
	}
}

/*
 * In a namespace of its own, whose table is mmb's: a route cached, deleted,
 * one more packet (its lookup finds an error route, on lo, cached nowhere
 * in the stack). No reference to lo stays behind (a held one kept
 * "ip netns del" waiting for lo for good), and the namespace leaves.
 */
static void offload_netns_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = fastt_pkt(false, 10), r = fastt_pkt(true, 10);
	struct fastt f = { .test = test };
	struct net_device *lan, *wan;
	struct dst_entry *dst = NULL;
	enum mmb_fast why = MMB_FAST_UNCACHED;
	struct net *net = mmbt_netns_new(test, &lan);
	struct mmb_conns *mc = &mmb_pernet(net)->conns;
	struct sk_buff *skb;
	struct neighbour *n;
	struct mmb_tuple t;
	struct mmb_conn *c;
	int lo_refs = 0, err;
	u8 dir;

	wan = mmbt_netdev_create(test);
	rtnl_lock();
	err = dev_change_net_namespace(wan, net, "mmbw%d");
	if (!err)
		err = dev_open(lan, NULL);
	if (!err)
		err = dev_open(wan, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	f.lan = lan;
	f.wan = wan;
	mmbt_route(test, net, lan, false, fastt_lan_net, 24, RTN_UNICAST, false);
	mmbt_route(test, net, wan, false, fastt_wan_net, 24, RTN_UNICAST, false);
	mmbt_forwarding(lan, true, false);
	mmbt_forwarding(wan, true, false);
	fastt_neigh(test, wan, fastt_server);
	f.r = mmbt_rules_new(test);
	fastt_rule(&f, true);
	KUNIT_ASSERT_EQ(test, mmbt_judge(f.r, mc, fastt_skb(&f, lan, &d)), 1);
	KUNIT_ASSERT_EQ(test, mmbt_judge(f.r, mc, fastt_skb(&f, wan, &r)), 1);
	t = fastt_tuple(&f);
	/* Cached; the route deleted; a packet, and one more (the miss is remembered). */
	for (err = 0; err < 3; err++) {
		if (err == 1) {
			mmbt_route(test, net, wan, false, fastt_wan_net, 24, RTN_UNICAST, true);
			rcu_barrier();
			lo_refs = netdev_refcnt_read(net->loopback_dev);
		}
		skb = fastt_skb(&f, lan, &d);
		rcu_read_lock();
		local_bh_disable();
		c = mmb_conn_find(mc, &t, &dir);
		KUNIT_EXPECT_NOT_NULL(test, c);
		if (c)
			why = mmb_fast_check(skb, c, dir, false, &dst, &n);
		local_bh_enable();
		rcu_read_unlock();
		kfree_skb(skb);
		KUNIT_EXPECT_EQ(test, why, err ? MMB_FAST_ROUTE : MMB_FAST_OK);
	}
	/* The error route the lookup made is gone once its grace period is. */
	rcu_barrier();
	KUNIT_ASSERT_EQ(test, netdev_refcnt_read(net->loopback_dev), lo_refs);
	/* The namespace leaves with its connection in mmb's table: it finishes. */
	rtnl_lock();
	err = dev_change_net_namespace(wan, &init_net, "mmbt%d");
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, 0);
	mmbt_netns_done(test, net, lan);
	mmbt_netdev_destroy(wan);
	net_ns_barrier();
}

static struct kunit_case offload_cases[] = {
	KUNIT_CASE(offload_eligible_test),
	KUNIT_CASE(offload_not_asked_test),
	KUNIT_CASE(offload_back_to_stack_test),
	KUNIT_CASE(offload_copy_test),
	KUNIT_CASE(offload_route_test),
	KUNIT_CASE(offload_flush_test),
	KUNIT_CASE(offload_netns_test),
	{}
};

static struct kunit_suite offload_suite = {
	.name = "mmb-offload",
	.test_cases = offload_cases,
};

kunit_test_suite(offload_suite);
