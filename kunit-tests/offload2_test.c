// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the fast path's second review (issue 41). A router in a
 * namespace of its own: "lan" (198.51.100.0/24, 2001:db8:1::/64), "wan"
 * (203.0.113.0/24, 2001:db8:2::/64, the server 203.0.113.7 and
 * 2001:db8:2::7 permanent neighbours there) and "alt" (another way in
 * and out), forwarding on. A UDP connection an offload rule started,
 * replied to, is offloaded; what its cached route depends on is changed
 * under it, and the namespace dies with routes held.
 */
#include <linux/completion.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/net_namespace.h>
#include <net/route.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/nat.h"
#include "../kmod/offload.h"
#include "../kmod/test.h"
#include "util.h"

struct o2 {
	struct kunit *test;
	struct net *net;
	struct net_device *lan, *wan, *alt;
	struct mmb_conns *mc;
	struct mmb_rules *r;
	bool v6;
	u32 label;		/* IPv6: the flow label of its packets, if not 0 */
};

/* Route lookups the fast path made (mmb_test_points.fast_looked). */
static unsigned int o2_looked;

static void o2_count_looked(struct net *net)
{
	o2_looked++;
}

/* The first lookup changes the tables before its cookie is read (IPv6's flush). */
static void o2_change_looked(struct net *net)
{
	if (!o2_looked++)
		rt_genid_bump_ipv6(net);
}

/*
 * Walks of table o2_walked's connections for a device's routes
 * (mmb_test_points.fast_walk); not of other namespaces' tables, whose
 * devices an earlier test's namespace may be unregistering meanwhile.
 */
static unsigned int o2_walks;
static struct mmb_conns *o2_walked;

static void o2_count_walk(struct mmb_conns *mc)
{
	if (mc == READ_ONCE(o2_walked))
		o2_walks++;
}

static const u8 o2_client4[4] = { 198, 51, 100, 5 };
static const u8 o2_server4[4] = { 203, 0, 113, 7 };
static const u8 o2_lan4[4] = { 198, 51, 100 };
static const u8 o2_lan_addr4[4] = { 198, 51, 100, 1 };
static const u8 o2_wan4[4] = { 203, 0, 113 };
static const u8 o2_client6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 5 };
static const u8 o2_server6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 7 };
static const u8 o2_lan6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 };
static const u8 o2_wan6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2 };
static const u8 o2_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0x72, 0x07 };

#define IPV6_FLOWLABEL_MASK_HOST	0x000fffffU

static const u8 *o2_client(const struct o2 *o)
{
	return o->v6 ? o2_client6 : o2_client4;
}

static const u8 *o2_server(const struct o2 *o)
{
	return o->v6 ? o2_server6 : o2_server4;
}

/* The namespace leaves (if the test did not end it), then its devices, back in init_net. */
static void o2_free(void *data)
{
	struct o2 *o = data;

	if (o->net) {
		put_net(o->net);
		net_ns_barrier();
	}
	WRITE_ONCE(mmb_test_points.fast_looked, NULL);
	WRITE_ONCE(mmb_test_points.fast_walk, NULL);
	rcu_barrier();
	if (o->lan)
		mmbt_netdev_destroy(o->lan);
	if (o->wan)
		mmbt_netdev_destroy(o->wan);
	if (o->alt)
		mmbt_netdev_destroy(o->alt);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

/* A test device, up, moved into @o's namespace, forwarding. */
static struct net_device *o2_dev(struct o2 *o)
{
	struct net_device *dev = mmbt_netdev_create(o->test);
	int err;

	rtnl_lock();
	err = dev_change_net_namespace(dev, o->net, "mmbo%d");
	if (!err)
		err = dev_open(dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(o->test, err, 0);
	mmbt_forwarding(dev, true, true);
	return dev;
}

/* add-stateful ip-proto udp (ip6-next udp) accept offload */
static void o2_rule(struct o2 *o)
{
	struct mmb_match_spec m = mmbt_match(o->v6 ? MMB_FIELD_IP6_NEXT : MMB_FIELD_IP_PROTO,
					     MMB_OP_EQ, IPPROTO_UDP);

	mmbt_rule_add_accept(o->test, o->r, &m, 1, true);
}

static struct mmbt_pkt_desc o2_pkt(const struct o2 *o, bool reply)
{
	struct mmbt_pkt_desc d = {
		.v6 = o->v6, .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 10,
		.sport = reply ? 53 : 1000, .dport = reply ? 1000 : 53,
	};

	memcpy(d.saddr, reply ? o2_server(o) : o2_client(o), o->v6 ? 16 : 4);
	memcpy(d.daddr, reply ? o2_client(o) : o2_server(o), o->v6 ? 16 : 4);
	return d;
}

/* @d's packet, in on @dev, with room for a link header (as a driver leaves). */
static struct sk_buff *o2_skb(struct o2 *o, struct net_device *dev,
			      const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(dev, d);

	KUNIT_ASSERT_NOT_NULL(o->test, skb);
	KUNIT_ASSERT_EQ(o->test, skb_cow_head(skb, 64), 0);
	if (d->v6 && o->label) {
		__be32 *w = (__be32 *)skb->data;

		*w = htonl((ntohl(*w) & ~IPV6_FLOWLABEL_MASK_HOST) | o->label);
	}
	return skb;
}

/*
 * The router, IPv6 or not: lan, wan and alt up in a new namespace,
 * forwarding, a route to each side, the server a neighbour; the client's
 * flow started (on lan) and replied to (on wan): offloaded.
 */
static struct o2 *o2_new(struct kunit *test, bool v6)
{
	struct mmbt_pkt_desc d, r;
	struct o2 *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, o);
	o->test = test;
	o->v6 = v6;
	o->r = mmbt_rules_new(test);
	o->net = mmbt_netns_new(test, &o->lan);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, o2_free, o), 0);
	rtnl_lock();
	err = dev_open(o->lan, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	mmbt_forwarding(o->lan, true, true);
	o->wan = o2_dev(o);
	o->alt = o2_dev(o);
	o->mc = &mmb_pernet(o->net)->conns;
	mmbt_route(test, o->net, o->lan, v6, v6 ? o2_lan6 : o2_lan4, v6 ? 64 : 24,
		   RTN_UNICAST, false);
	mmbt_route(test, o->net, o->wan, v6, v6 ? o2_wan6 : o2_wan4, v6 ? 64 : 24,
		   RTN_UNICAST, false);
	mmbt_neigh(test, o->wan, v6, o2_server(o), o2_mac);
	WRITE_ONCE(mmb_test_points.clock, 1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	o2_rule(o);
	d = o2_pkt(o, false);
	r = o2_pkt(o, true);
	KUNIT_ASSERT_EQ(test, mmbt_judge(o->r, o->mc, o2_skb(o, o->lan, &d)), 1);
	KUNIT_ASSERT_EQ(test, mmbt_judge(o->r, o->mc, o2_skb(o, o->wan, &r)), 1);
	return o;
}

/* The connection of @skb's flow, and its direction: under RCU. */
static struct mmb_conn *o2_find(struct o2 *o, struct sk_buff *skb, u8 *dir)
{
	struct mmb_tuple t = {};
	struct mmb_pkt pkt;
	struct mmb_conn *c;

	KUNIT_ASSERT_EQ(o->test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_TRUE(o->test, mmb_conn_tuple(&pkt, &t));
	c = mmb_conn_find(o->mc, &t, dir);
	KUNIT_EXPECT_NOT_NULL(o->test, c);
	return c;
}

/*
 * Why mmb_fast_check() sends @d's packet, in on @dev, back to the normal
 * path, or MMB_FAST_OK; the way out it would take in *@out (if @out).
 */
static enum mmb_fast o2_check(struct o2 *o, struct net_device *dev,
			      const struct mmbt_pkt_desc *d, struct net_device **out)
{
	struct sk_buff *skb = o2_skb(o, dev, d);
	enum mmb_fast why = MMB_FAST_UNCACHED;
	struct dst_entry *dst = NULL;
	struct neighbour *n;
	struct mmb_conn *c;
	u8 dir;

	rcu_read_lock();
	local_bh_disable();
	c = o2_find(o, skb, &dir);
	if (c)
		why = mmb_fast_check(skb, c, dir, false, &dst, &n);
	if (out)
		*out = why ? NULL : dst->dev;
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return why;
}

/* What the slot of the client's direction holds (a route, a marker, NULL). */
static struct dst_entry *o2_slot(struct o2 *o)
{
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct sk_buff *skb = o2_skb(o, init_net.loopback_dev, &d);
	struct dst_entry *dst = NULL;
	struct mmb_conn *c;
	u8 dir;

	rcu_read_lock();
	c = o2_find(o, skb, &dir);
	if (c)
		dst = READ_ONCE(mmb_conn_ext(c)->fast[MMB_DIR_ORIG].dst);
	rcu_read_unlock();
	kfree_skb(skb);
	return dst;
}

/* "sysctl net.ipv4.conf.@dev.@attr=@v" (@dev NULL: all), which flushes nothing. */
static void o2_conf4(struct o2 *o, struct net_device *dev, int attr, int v)
{
	rtnl_lock();
	if (dev)
		ipv4_devconf_set(__in_dev_get_rtnl(dev), attr, v);
	else
		WRITE_ONCE(o->net->ipv4.devconf_all->data[attr - 1], v);
	rtnl_unlock();
}

/*
 * rp_filter tightened after the route was cached: a spoofed source (the
 * client's address is routed out of alt) is no longer forwarded; the
 * stack's lookup refuses it (looked up again: no route to forward on).
 * Loosened again, the route is cached again. The same with "all".
 */
static void offload2_rp_filter_test(struct kunit *test)
{
	struct o2 *o = o2_new(test, false);
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct net_device *out;

	/* An address on lan: without one, loose mode refuses too (last_resort). */
	mmbt_addr(test, o->lan, false, o2_lan_addr4, 24, false);
	mmbt_route(test, o->net, o->alt, false, o2_client4, 32, RTN_UNICAST, false);
	KUNIT_ASSERT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
	o2_conf4(o, o->lan, IPV4_DEVCONF_RP_FILTER, 1);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_ROUTE);
	KUNIT_EXPECT_PTR_EQ(test, o2_slot(o), MMB_FAST_NONE);
	/* Loose: the client's address has a route (out of alt). */
	o2_conf4(o, o->lan, IPV4_DEVCONF_RP_FILTER, 2);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	o2_conf4(o, o->lan, IPV4_DEVCONF_RP_FILTER, 0);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	/* all.rp_filter=1 applies to lan too (the larger of the two). */
	o2_conf4(o, NULL, IPV4_DEVCONF_RP_FILTER, 1);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_ROUTE);
	o2_conf4(o, NULL, IPV4_DEVCONF_RP_FILTER, 0);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
}

/*
 * A packet of the direction in on another device (alt) goes to the stack
 * and leaves the route cached for lan alone; once lan is gone, alt's
 * packets take the fast path (pinned to alt).
 */
static void offload2_iif_test(struct kunit *test)
{
	struct o2 *o = o2_new(test, false);
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct dst_entry *before;
	struct net_device *out;

	KUNIT_ASSERT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	before = o2_slot(o);
	KUNIT_EXPECT_TRUE(test, mmb_fast_held(before));
	KUNIT_EXPECT_EQ(test, o2_check(o, o->alt, &d, NULL), MMB_FAST_IIF);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->alt, &d, NULL), MMB_FAST_IIF);
	KUNIT_EXPECT_PTR_EQ(test, o2_slot(o), before);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, o2_slot(o), before);
	mmbt_netdev_destroy(o->lan);
	o->lan = NULL;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->alt, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->alt, &d, &out), MMB_FAST_OK);
}

/*
 * A route chosen by DSCP (ip route ... tos): a packet of the flow with
 * another DSCP looks its route up again and takes the one its DSCP
 * chooses; ECN alone changes nothing (no lookup).
 */
static void offload2_dscp_test(struct kunit *test)
{
	struct o2 *o = o2_new(test, false);
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct net_device *out;

	mmbt_neigh(test, o->alt, false, o2_server4, o2_mac);
	mmbt_route_tos(o->test, o->net, o->alt, false, o2_server4, 32, 0x10, RTN_UNICAST, false);
	WRITE_ONCE(mmb_test_points.fast_looked, o2_count_looked);
	o2_looked = 0;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
	d.tos = 0x10;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->alt);
	KUNIT_EXPECT_EQ(test, o2_looked, 2);
	/* ECT(1), then CE: the same route, no lookup. */
	d.tos = 0x11;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->alt);
	d.tos = 0x13;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_looked, 2);
	d.tos = 0;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
	KUNIT_EXPECT_EQ(test, o2_looked, 3);
}

/*
 * IPv6: another flow label (a multipath route hashes it) or traffic
 * class DSCP is looked up again; the same ones, or ECN, are not.
 */
static void offload2_flowlabel_test(struct kunit *test)
{
	struct o2 *o = o2_new(test, true);
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct net_device *out;

	WRITE_ONCE(mmb_test_points.fast_looked, o2_count_looked);
	o2_looked = 0;
	o->label = 0x12345;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_looked, 1);
	o->label = 0x54321;
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_looked, 2);
	d.tos = 0x03;		/* CE */
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_looked, 2);
	d.tos = 0xb8;		/* EF */
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_looked, 3);
}

/*
 * IPv6: the tables change between the lookup and the reading of the
 * route's cookie. The route is not kept (a cookie of after the change
 * would pass every check): the packet goes to the stack and the next one
 * looks the route up again.
 */
static void offload2_cookie_test(struct kunit *test)
{
	struct o2 *o = o2_new(test, true);
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct net_device *out;

	o2_looked = 0;
	WRITE_ONCE(mmb_test_points.fast_looked, o2_change_looked);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_UNCACHED);
	KUNIT_EXPECT_PTR_EQ(test, o2_slot(o), NULL);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
	KUNIT_EXPECT_EQ(test, o2_looked, 2);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_EQ(test, o2_looked, 2);
}

/*
 * The way out loses its carrier: its packets go to the stack (IPv6 moves
 * no serial number for it, and may route elsewhere), and come back to the
 * fast path with the carrier.
 */
static void o2_carrier(struct kunit *test, bool v6)
{
	struct o2 *o = o2_new(test, v6);
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct net_device *out;

	KUNIT_ASSERT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	netif_carrier_off(o->wan);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_DEV_DOWN);
	netif_carrier_on(o->wan);
	KUNIT_EXPECT_EQ(test, o2_check(o, o->lan, &d, &out), MMB_FAST_OK);
	KUNIT_EXPECT_PTR_EQ(test, out, o->wan);
}

static void offload2_carrier4_test(struct kunit *test)
{
	o2_carrier(test, false);
}

static void offload2_carrier6_test(struct kunit *test)
{
	o2_carrier(test, true);
}

/*
 * A device that unregisters has the connections walked only if a route
 * through it may be held: an unrelated one (alt) is not walked for; wan,
 * the cached route's, is, and the route is dropped.
 */
static void offload2_unregister_test(struct kunit *test)
{
	struct o2 *o = o2_new(test, false);
	struct mmbt_pkt_desc d = o2_pkt(o, false);

	KUNIT_ASSERT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_EXPECT_TRUE(test, mmb_fast_routes_through(o->wan));
	KUNIT_EXPECT_FALSE(test, mmb_fast_routes_through(o->alt));
	o2_walks = 0;
	WRITE_ONCE(o2_walked, o->mc);
	WRITE_ONCE(mmb_test_points.fast_walk, o2_count_walk);
	mmbt_netdev_destroy(o->alt);
	o->alt = NULL;
	KUNIT_EXPECT_EQ(test, o2_walks, 0);
	KUNIT_EXPECT_TRUE(test, mmb_fast_held(o2_slot(o)));
	mmbt_netdev_destroy(o->wan);
	o->wan = NULL;
	KUNIT_EXPECT_EQ(test, o2_walks, 1);
	KUNIT_EXPECT_PTR_EQ(test, o2_slot(o), NULL);
}

/* The tuple of the client's flow. */
static struct mmb_tuple o2_tuple(struct o2 *o)
{
	struct mmbt_pkt_desc d = o2_pkt(o, false);
	struct sk_buff *skb = o2_skb(o, init_net.loopback_dev, &d);
	struct mmb_tuple t = {};
	struct mmb_pkt pkt;

	KUNIT_ASSERT_EQ(o->test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_TRUE(o->test, mmb_conn_tuple(&pkt, &t));
	kfree_skb(skb);
	return t;
}

/* What the exit of the namespace under test finds (o2_net_exit()). */
static struct {
	struct net *net;
	struct dst_entry *dst;		/* a route a slot held, held by the test too */
	struct mmb_tuple t;		/* its connection's */
	struct completion done;		/* the namespace's cleanup ran the exit */
	bool ran;
	bool dead;			/* both slots closed */
	int refs;			/* the route's references then, the test's among them */
} o2_exit;

/*
 * After every pre_exit and the device exits (their routes freed by RCU:
 * waited for here), before mmb's exit and IPv6's: the test's reference is
 * let go now, as an IPv6 route's counts are its namespace's.
 */
static void __net_exit o2_net_exit(struct net *net)
{
	struct mmb_conn *c;
	u8 dir;

	if (net != o2_exit.net || o2_exit.ran)
		return;
	o2_exit.ran = true;
	rcu_barrier();
	o2_exit.refs = rcuref_read(&o2_exit.dst->__rcuref);
	rcu_read_lock();
	c = mmb_conn_find(&mmb_pernet(net)->conns, &o2_exit.t, &dir);
	o2_exit.dead = c && READ_ONCE(mmb_conn_ext(c)->fast[0].dst) == MMB_FAST_DEAD &&
		       READ_ONCE(mmb_conn_ext(c)->fast[1].dst) == MMB_FAST_DEAD;
	rcu_read_unlock();
	dst_release(o2_exit.dst);
	o2_exit.dst = NULL;
	complete(&o2_exit.done);
}

static struct pernet_operations o2_net_ops = {
	.exit = o2_net_exit,
};

/*
 * The namespace dies while its connection holds a route each way: they
 * are dropped before any exit (pre_exit), and the stack's go with its
 * devices; the test's reference is the last one left.
 */
static void o2_netns_dies(struct kunit *test, bool v6)
{
	struct o2 *o = o2_new(test, v6);
	struct mmbt_pkt_desc d = o2_pkt(o, false), r = o2_pkt(o, true);
	struct dst_entry *dst;
	struct net *net;

	mmbt_neigh(test, o->lan, v6, o2_client(o), o2_mac);
	KUNIT_ASSERT_EQ(test, o2_check(o, o->lan, &d, NULL), MMB_FAST_OK);
	KUNIT_ASSERT_EQ(test, o2_check(o, o->wan, &r, NULL), MMB_FAST_OK);
	dst = o2_slot(o);
	KUNIT_ASSERT_TRUE(test, mmb_fast_held(dst));
	/* The slot holds it: it may be held here too. */
	dst_hold(dst);
	memset(&o2_exit, 0, sizeof(o2_exit));
	o2_exit.net = o->net;
	o2_exit.dst = dst;
	o2_exit.t = o2_tuple(o);
	init_completion(&o2_exit.done);
	KUNIT_ASSERT_EQ(test, register_pernet_subsys(&o2_net_ops), 0);
	net = o->net;
	o->net = NULL;
	put_net(net);
	/* The cleanup's (net_ns_barrier() does not wait for one not begun yet). */
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&o2_exit.done, 30 * HZ), 0);
	net_ns_barrier();
	unregister_pernet_subsys(&o2_net_ops);
	KUNIT_ASSERT_TRUE(test, o2_exit.ran);
	KUNIT_EXPECT_TRUE(test, o2_exit.dead);
	KUNIT_EXPECT_EQ(test, o2_exit.refs, 1);
}

static void offload2_netns_dies4_test(struct kunit *test)
{
	o2_netns_dies(test, false);
}

static void offload2_netns_dies6_test(struct kunit *test)
{
	o2_netns_dies(test, true);
}

static struct kunit_case offload2_cases[] = {
	KUNIT_CASE(offload2_rp_filter_test),
	KUNIT_CASE(offload2_iif_test),
	KUNIT_CASE(offload2_dscp_test),
	KUNIT_CASE(offload2_flowlabel_test),
	KUNIT_CASE(offload2_cookie_test),
	KUNIT_CASE(offload2_carrier4_test),
	KUNIT_CASE(offload2_carrier6_test),
	KUNIT_CASE(offload2_unregister_test),
	KUNIT_CASE(offload2_netns_dies4_test),
	KUNIT_CASE(offload2_netns_dies6_test),
	{}
};

static struct kunit_suite offload2_suite = {
	.name = "mmb-offload2",
	.test_cases = offload2_cases,
};

kunit_test_suite(offload2_suite);
