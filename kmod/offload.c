// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the fast path of offloaded connections (docs/offload.md).
 *
 * A connection an offload rule started (MMB_CONN_OFFLOAD, allocated as a
 * struct mmb_conn_ext) keeps a route per direction. Once it is assured
 * (TCP established, UDP replied: mmb_conn_offloaded()), a packet that mmb
 * judged and passed in the rx_handler, rewritten already (its connection's
 * NAT, the rules' mods), is sent from there: the checks ip_forward() and
 * ip6_forward() make, the TTL or hop limit decremented, the link header
 * from the neighbour's cache, dev_queue_xmit() on the route's device (its
 * egress hook, mmb's leaving judgement among them, tc and the qdisc apply).
 * A packet any check refuses goes on to ip_rcv()/ipv6_rcv() untouched.
 *
 * The route of a direction is looked up by the first packet of that
 * direction that finds the connection offloaded and no valid route: the
 * lookup ip_rcv() would make for it (ip_route_input_noref(),
 * ip6_route_input_lookup()), on the packet as mmb passes it, so the route
 * is the stack's own for that packet: policy routing by device and mark,
 * rp_filter, forwarding off (an unreachable route). The entry is held; it
 * is checked on every use (dst_check() of an obsolete entry, as
 * nf_flow_dst_check(): a route added, removed or changed, a device down or
 * gone, forwarding switched, an address added moves IPv4's generation and
 * IPv6's serial number), and replaced by the next lookup when it fails.
 * The slot keeps what else the lookup read (the packet's DSCP and flow
 * label, the way in's rp_filter and kin: mmb_fast_forwarding()), and a
 * packet with others looks again; it is pinned to the device its first
 * lookup was made for, and a packet of the direction on another one goes
 * to the stack. A route pins nothing: only routes that forward are held
 * (mmb_fast_route()), a device that unregisters has the entries through
 * it dropped (mmb_fast_drop() from mmb's notifier, when its count says
 * some may be held) or moved to the blackhole device
 * by the kernel (dst_dev_put()), and a namespace leaving has all of them
 * dropped before any exit (pre_exit). The entries are otherwise dropped
 * when the connection is freed, a grace period after it left the table by
 * any way (mmb_conn_free()): no CPU can cache one after that.
 *
 * Everything here runs in softirq under RCU: no lock, no allocation but
 * what a route lookup itself makes (only when a route is cached).
 */
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/arp.h>
#include <net/dst.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip_fib.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/lwtunnel.h>
#include <net/ndisc.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/xfrm.h>

#include "compat.h"
#include "conn.h"
#include "mmb.h"
#include "nat.h"
#include "offload.h"
#include "test.h"

/* Is IPsec in the way: policies on forwarded or sent packets, or a decrypted packet? */
static bool mmb_fast_xfrm(const struct net *net, const struct sk_buff *skb)
{
#ifdef CONFIG_XFRM
	return READ_ONCE(net->xfrm.policy_count[XFRM_POLICY_FWD]) ||
	       READ_ONCE(net->xfrm.policy_count[XFRM_POLICY_OUT]) || secpath_exists(skb);
#else
	return false;
#endif
}

/* Does @net route by policy rules of its own (not only the main and local tables)? */
static bool mmb_fast_rules(const struct net *net, u8 family)
{
	if (family == 4)
		return fib4_has_custom_rules(net);
#if IS_ENABLED(CONFIG_IPV6)
	return fib6_has_custom_rules(net);
#else
	return true;
#endif
}

/* The L4 header's check: TCP's flags; @l4 bytes in the linear head. */
static enum mmb_fast mmb_fast_l4(const struct sk_buff *skb, unsigned int l4, u8 proto)
{
	if (proto == IPPROTO_TCP) {
		const struct tcphdr *th;

		if (skb_headlen(skb) < l4 + sizeof(*th))
			return MMB_FAST_HEADER;
		th = (const struct tcphdr *)(skb->data + l4);
		if (th->syn || th->fin || th->rst)
			return MMB_FAST_TCP_FLAGS;
		return MMB_FAST_OK;
	}
	return skb_headlen(skb) < l4 + sizeof(struct udphdr) ? MMB_FAST_HEADER : MMB_FAST_OK;
}

/* An IPv4 packet's header, as ip_rcv() and ip_forward() want it. */
static enum mmb_fast mmb_fast_hdr4(const struct sk_buff *skb, const struct mmb_conn *c)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;

	if (skb->protocol != htons(ETH_P_IP) || skb_headlen(skb) < sizeof(*iph) ||
	    iph->version != 4 || iph->ihl != 5 || iph->protocol != c->orig.t.proto ||
	    (iph->frag_off & htons(IP_MF | IP_OFFSET)) || ntohs(iph->tot_len) != skb->len ||
	    ip_fast_csum(iph, iph->ihl))
		return MMB_FAST_HEADER;
	if (iph->ttl <= 1)
		return MMB_FAST_TTL;
	return mmb_fast_l4(skb, sizeof(*iph), iph->protocol);
}

static enum mmb_fast mmb_fast_hdr6(const struct sk_buff *skb, const struct mmb_conn *c)
{
	const struct ipv6hdr *ip6h = (const struct ipv6hdr *)skb->data;
	int st, dt;

	if (skb->protocol != htons(ETH_P_IPV6) || skb_headlen(skb) < sizeof(*ip6h) ||
	    ip6h->version != 6 || ip6h->nexthdr != c->orig.t.proto ||
	    ntohs(ip6h->payload_len) + sizeof(*ip6h) != skb->len)
		return MMB_FAST_HEADER;
	/* What ip6_forward() refuses or answers: not unicast beyond the link. */
	st = ipv6_addr_type(&ip6h->saddr);
	dt = ipv6_addr_type(&ip6h->daddr);
	if (!(st & IPV6_ADDR_UNICAST) || !(dt & IPV6_ADDR_UNICAST) ||
	    ((st | dt) & (IPV6_ADDR_LINKLOCAL | IPV6_ADDR_LOOPBACK | IPV6_ADDR_MULTICAST)))
		return MMB_FAST_ROUTE;
	if (ip6h->hop_limit <= 1)
		return MMB_FAST_TTL;
	return mmb_fast_l4(skb, sizeof(*ip6h), ip6h->nexthdr);
}

/*
 * Is forwarding on where @skb came in? If so, *@key is what the input
 * route lookup of @skb depends on besides its addresses and that device
 * (mmb_fast_route() looks again when it changes): IPv4, its DSCP (a
 * route's tos) and the device's rp_filter, accept_local, src_valid_mark
 * and route_localnet, each as fib_validate_source() and
 * ip_route_input_slow() read it with "all" (none of their sysctls moves
 * the routing generation when it tightens); IPv6, its traffic class's
 * DSCP and its flow label (a multipath route's hash). ECN is not in it:
 * no lookup reads it, and it may change from packet to packet.
 */
static bool mmb_fast_forwarding(const struct sk_buff *skb, u8 family, u32 *key)
{
	const struct inet6_dev *idev;

	if (family == 4) {
		struct in_device *in = __in_dev_get_rcu(skb->dev);
		int rpf;

		if (!in || !IN_DEV_FORWARD(in))
			return false;
		/* 1 strict, anything else on loose (__fib_validate_source()). */
		rpf = IN_DEV_RPFILTER(in);
		*key = (rpf == 1 ? 1 : rpf ? 2 : 0) | !!IN_DEV_ACCEPT_LOCAL(in) << 2 |
		       !!IN_DEV_SRC_VMARK(in) << 3 | !!IN_DEV_ROUTE_LOCALNET(in) << 4 |
		       (((const struct iphdr *)skb->data)->tos & ~INET_ECN_MASK) << 8;
		return true;
	}
	/* ipv6.disable=1: no devconf_all; ipv6_rcv() is not even registered. */
	if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_mod_enabled() ||
	    READ_ONCE(dev_net(skb->dev)->ipv6.devconf_all->forwarding) <= 0)
		return false;
	/* ipv6_rcv() drops what comes in where IPv6 is off. */
	idev = __in6_dev_get(skb->dev);
	*key = ntohl(ip6_flowinfo((const struct ipv6hdr *)skb->data)) &
	       ~(INET_ECN_MASK << IPV6_TCLASS_SHIFT);
	return idev && !READ_ONCE(idev->cnf.disable_ipv6) &&
	       !READ_ONCE(dev_net(skb->dev)->ipv6.devconf_all->proxy_ndp);
}

/*
 * The stack's input route for @skb (the lookup ip_rcv() would make),
 * held; NULL if there is none. @skb is left without a route, as it came.
 */
static struct dst_entry *mmb_fast_lookup(struct sk_buff *skb, u8 family, u32 *cookie)
{
	struct dst_entry *dst;
	int err;

	*cookie = 0;
	if (family == 4) {
		const struct iphdr *iph = (const struct iphdr *)skb->data;

		err = ip_route_input_noref(skb, iph->daddr, iph->saddr, iph->tos, skb->dev);
		mmb_test_fast_looked(dev_net(skb->dev));
		if (err) {
			skb_dst_drop(skb);
			return NULL;
		}
		dst = skb_dst(skb);
		if (dst && !dst_hold_safe(dst))
			dst = NULL;
		skb_dst_drop(skb);
		return dst;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		const struct ipv6hdr *ip6h = (const struct ipv6hdr *)skb->data;
		struct flowi6 fl6 = {
			.flowi6_iif = skb->dev->ifindex,
			.daddr = ip6h->daddr,
			.saddr = ip6h->saddr,
			.flowlabel = ip6_flowinfo(ip6h),
			.flowi6_mark = skb->mark,
			.flowi6_proto = ip6h->nexthdr,
		};

		/* Held (no RT6_LOOKUP_F_DST_NOREF); an error is a route too. */
		dst = ip6_route_input_lookup(dev_net(skb->dev), skb->dev, &fl6, skb,
					     RT6_LOOKUP_F_HAS_SADDR);
		mmb_test_fast_looked(dev_net(skb->dev));
		if (dst)
			*cookie = rt6_get_cookie((const struct rt6_info *)dst);
		return dst;
	}
#else
	return NULL;
#endif
}

/* Is @dst a route that forwards out of @out (its device, as read), another device than @in? */
static enum mmb_fast mmb_fast_forwards(const struct dst_entry *dst, const struct net_device *out,
				       const struct net_device *in, u8 family)
{
	if (dst->error || out == in || dst->lwtstate)
		return MMB_FAST_ROUTE;
	if (dst_xfrm(dst))
		return MMB_FAST_XFRM;
	if (family == 4) {
		const struct rtable *rt = (const struct rtable *)dst;

		if (rt->rt_type != RTN_UNICAST || rt->rt_gw_family == AF_INET6 ||
		    (rt->rt_flags & (RTCF_LOCAL | RTCF_BROADCAST | RTCF_MULTICAST)))
			return MMB_FAST_ROUTE;
		return MMB_FAST_OK;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (((const struct rt6_info *)dst)->rt6i_flags & (RTF_LOCAL | RTF_ANYCAST | RTF_REJECT))
		return MMB_FAST_ROUTE;
	return MMB_FAST_OK;
#else
	return MMB_FAST_ROUTE;
#endif
}

/*
 * Routes the slots hold, counted per device (a bucket of its namespace and
 * ifindex; consecutive ifindexes of a namespace fall in different ones):
 * a device that unregisters has the connections walked for routes through
 * it only when its bucket counts some (mmb_fast_routes_through()). Touched
 * when a route is cached or let go, never for a packet that uses one.
 */
#define MMB_FAST_BUCKETS	1024
static atomic_t mmb_fast_counts[MMB_FAST_BUCKETS];

static u16 mmb_fast_bucket(const struct net_device *dev)
{
	return (net_hash_mix(dev_net(dev)) + (u32)dev->ifindex) & (MMB_FAST_BUCKETS - 1);
}

/* May a slot hold a route through @dev? (false: none does) */
bool mmb_fast_routes_through(const struct net_device *dev)
{
	return atomic_read(&mmb_fast_counts[mmb_fast_bucket(dev)]);
}

/* Let go of @dst, the route a slot held, counted in @bucket. */
static void mmb_fast_put(struct dst_entry *dst, u16 bucket)
{
	atomic_dec(&mmb_fast_counts[bucket]);
	dst_release(dst);
}

/*
 * A slot (mmb_fast_route.dst) is NULL, a route, MMB_FAST_BUSY while the
 * one CPU that claimed it (a cmpxchg from what it saw) looks a route up,
 * MMB_FAST_NONE when that lookup found no route the fast path may take, or
 * MMB_FAST_DEAD once the namespace is leaving (never filled again). Only the
 * claimer writes the device, cookie, key and bucket, before it publishes
 * the route (cmpxchg from MMB_FAST_BUSY; readers load it with acquire and
 * load it again after them, so they go together); whoever takes a route
 * out of a slot claims it first (or closes it for good) and reads its
 * bucket then. Others meanwhile send their packets to the stack.
 *
 * A route that does not forward (an error route: unreachable, rp_filter, a
 * local or blackhole one) is never held: an error route may be cached
 * nowhere in the stack (IPv4's on lo, !do_cache) or the namespace's own
 * (ip6_null_entry), and a held one would keep lo registered or be released
 * after IPv6 freed it. MMB_FAST_NONE keeps the routing generation of its
 * lookup (rt_genid_ipv4(), fib6_sernum) in the cookie: the next lookup is
 * made when the tables change, not for every packet. (The markers:
 * offload.h.)
 */
/* The routing tables' generation of @net for @family: moves on any change. */
static u32 mmb_fast_gen(const struct net *net, u8 family)
{
	if (family == 4)
		return rt_genid_ipv4(net);
#if IS_ENABLED(CONFIG_IPV6)
	return atomic_read(&net->ipv6.fib6_sernum);
#else
	return 0;
#endif
}

/*
 * The route cached for @dir of @c, valid for @skb, or a new one (not when
 * @peek); NULL if there is none. *@why says why not. The route forwards
 * (mmb_fast_forwards()).
 */
static struct dst_entry *mmb_fast_route(struct sk_buff *skb, struct mmb_conn *c, u8 dir,
					u32 key, bool peek, enum mmb_fast *why)
{
	struct mmb_fast_route *fr = &mmb_conn_ext(c)->fast[dir];
	u8 family = c->orig.t.family;
	struct net *net = dev_net(skb->dev);
	/* Pairs with the claimer's publishing cmpxchg: its device and cookie come with it. */
	struct dst_entry *dst = smp_load_acquire(&fr->dst);
	struct dst_entry *found;
	u32 cookie, gen, fkey;
	u16 bucket = 0;
	int iif;

	*why = MMB_FAST_UNCACHED;
	if (dst == MMB_FAST_BUSY || dst == MMB_FAST_DEAD)
		return NULL;
	iif = READ_ONCE(fr->iif);
	cookie = READ_ONCE(fr->cookie);
	fkey = READ_ONCE(fr->key);
	/*
	 * The device, cookie and key read, then the slot again: a claimer
	 * that replaced the route meanwhile wrote MMB_FAST_BUSY before them
	 * (its cmpxchg), so those of another route are not paired with this
	 * one.
	 */
	smp_rmb();
	if (READ_ONCE(fr->dst) != dst)
		return NULL;
	/*
	 * Pinned to the device its first lookup was made for, as
	 * nf_flow_table's tuple has its iif: a packet of the direction that
	 * comes in on another device is the stack's to judge (rp_filter,
	 * martians), and the slot is left alone, unless that device is gone.
	 */
	if (iif && iif != skb->dev->ifindex && dev_get_by_index_rcu(net, iif)) {
		*why = MMB_FAST_IIF;
		return NULL;
	}
	/* Looked up for this way in and all else the lookup depended on. */
	if (iif == skb->dev->ifindex && fkey == key) {
		if (dst == MMB_FAST_NONE && cookie == mmb_fast_gen(net, family)) {
			*why = MMB_FAST_ROUTE;
			return NULL;
		}
		if (mmb_fast_held(dst) && (!READ_ONCE(dst->obsolete) || dst_check(dst, cookie)))
			return dst;
	}
	if (peek)
		return NULL;
	/* Stale, of another key, unpinned or none: claimed, and a stale one dropped. */
	if (cmpxchg(&fr->dst, dst, MMB_FAST_BUSY) != dst)
		return NULL;
	if (mmb_fast_held(dst))
		mmb_fast_put(dst, READ_ONCE(fr->bucket));
	*why = MMB_FAST_ROUTE;
	/* Before the lookup: a change during it moves it on, and is seen. */
	gen = mmb_fast_gen(net, family);
	found = mmb_fast_lookup(skb, family, &cookie);
	if (found && (found->error ||
		      mmb_fast_forwards(found, READ_ONCE(found->dev), skb->dev, family))) {
		dst_release(found);
		found = NULL;
	}
	/*
	 * The tables changed during the lookup: what it found may be stale
	 * already, with a cookie (IPv6's, read after it, as nf_flow_table and
	 * the sockets read theirs) of after the change, that would pass
	 * dst_check() for good. Not kept: the slot is given back empty, the
	 * packet goes to the stack and the next one looks again.
	 */
	if (found && mmb_fast_gen(net, family) != gen) {
		dst_release(found);
		*why = MMB_FAST_UNCACHED;
		/* Unless the namespace's leaving took the slot meanwhile. */
		cmpxchg(&fr->dst, MMB_FAST_BUSY, NULL);
		return NULL;
	}
	if (found) {
		dst = found;
		/* Counted before it is seen: a device's unregister then walks for it. */
		bucket = mmb_fast_bucket(found->dev);
		atomic_inc(&mmb_fast_counts[bucket]);
	} else {
		dst = MMB_FAST_NONE;
		cookie = gen;
	}
	WRITE_ONCE(fr->iif, skb->dev->ifindex);
	WRITE_ONCE(fr->cookie, cookie);
	WRITE_ONCE(fr->key, key);
	WRITE_ONCE(fr->bucket, bucket);
	/*
	 * Published after its device and cookie (a full barrier; pairs with
	 * the acquire above), unless the namespace's leaving took the slot.
	 */
	if (cmpxchg(&fr->dst, MMB_FAST_BUSY, dst) != MMB_FAST_BUSY) {
		if (found)
			mmb_fast_put(found, bucket);
		return NULL;
	}
	return found;
}

/*
 * The neighbour of @dst's next hop on @out (its device, as read) for @skb,
 * if it is reachable with a cached header.
 */
static struct neighbour *mmb_fast_neigh(const struct sk_buff *skb, const struct dst_entry *dst,
					struct net_device *out, u8 family)
{
	struct neighbour *n;

	if (family == 4) {
		const struct rtable *rt = (const struct rtable *)dst;
		__be32 daddr = ((const struct iphdr *)skb->data)->daddr;

		n = __ipv4_neigh_lookup_noref(out, (__force u32)rt_nexthop(rt, daddr));
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		const struct rt6_info *rt = (const struct rt6_info *)dst;
		const struct ipv6hdr *ip6h = (const struct ipv6hdr *)skb->data;

		n = __ipv6_neigh_lookup_noref(out, rt6_nexthop(rt, &ip6h->daddr));
#else
		n = NULL;
#endif
	}
	if (!n || !(READ_ONCE(n->nud_state) & NUD_CONNECTED) || !READ_ONCE(n->hh.hh_len))
		return NULL;
	return n;
}

/*
 * May @skb, a packet of offloaded connection @c going @dir, take the fast
 * path? If so, *@dstp and *@np are its route and next hop (under RCU,
 * not held). @peek (a trace, whose packet is mmb's own copy): no route
 * cached, looked up or replaced, and the room of the copy not asked.
 * Nothing of @skb changes.
 */
enum mmb_fast mmb_fast_check(struct sk_buff *skb, struct mmb_conn *c, u8 dir, bool peek,
			     struct dst_entry **dstp, struct neighbour **np)
{
	u8 family = c->orig.t.family;
	struct net_device *out;
	struct dst_entry *dst;
	enum mmb_fast why;
	struct neighbour *n;
	unsigned int mtu;
	u32 key;

	if (skb->pkt_type != PACKET_HOST || skb_sk_is_prefetched(skb) || skb_shared(skb) ||
	    skb_dst(skb) || skb_vlan_tag_present(skb))
		return MMB_FAST_NOT_FORWARD;
#ifdef CONFIG_NET_SWITCHDEV
	if (skb->offload_l3_fwd_mark)
		return MMB_FAST_NOT_FORWARD;
#endif
	/* LRO's merged packets are refused by ip_forward() (skb_warn_if_lro()). */
	if (skb_is_gso(skb) && !skb_shinfo(skb)->gso_type)
		return MMB_FAST_HEADER;
	why = family == 4 ? mmb_fast_hdr4(skb, c) : mmb_fast_hdr6(skb, c);
	if (why)
		return why;
	if (!mmb_fast_forwarding(skb, family, &key))
		return MMB_FAST_FORWARDING;
	if (mmb_fast_xfrm(dev_net(skb->dev), skb))
		return MMB_FAST_XFRM;
	/*
	 * The cached route is keyed by the way in, the DSCP and flow label,
	 * not the mark or ports: with policy rules (ip rule, ip -6 rule, a
	 * VRF's), those may choose another one, so the stack routes every
	 * packet.
	 */
	if (mmb_fast_rules(dev_net(skb->dev), family))
		return MMB_FAST_ROUTE;
	dst = mmb_fast_route(skb, c, dir, key, peek, &why);
	if (!dst)
		return why;
	/*
	 * Its device read once: a route whose fib entry is freed meanwhile is
	 * moved to the blackhole device (dst_dev_put(); the route itself is
	 * held, its metrics counted, IPv6's fib entry RCU's), and the neighbour
	 * and the device it is sent on must be of the same one.
	 */
	out = READ_ONCE(dst->dev);
	/* Checked when cached; again, as a device may have left the route since. */
	why = mmb_fast_forwards(dst, out, skb->dev, family);
	if (why)
		return why;
	/*
	 * Down, or its carrier lost: the stack's to route (IPv6 marks the
	 * route's next hop linkdown without a new serial number, and with
	 * ignore_routes_with_linkdown or a multipath route chooses another).
	 */
	if (!netif_running(out) || !(READ_ONCE(out->flags) & IFF_UP) || !netif_carrier_ok(out))
		return MMB_FAST_DEV_DOWN;
	if (family == 4) {
		mtu = ip_dst_mtu_maybe_forward(dst, true);
	} else {
#if IS_ENABLED(CONFIG_IPV6)
		mtu = max_t(unsigned int, ip6_dst_mtu_maybe_forward(dst, true), IPV6_MIN_MTU);
#else
		mtu = 0;
#endif
	}
	/*
	 * The transport header as ip_rcv_core() and ipv6_rcv_core() set it (no
	 * options or extension headers here): the GSO length check below and
	 * the output's (qdisc_pkt_len_init(), TSO) read it, and a tap's GSO
	 * packet may come with another (its csum_start).
	 */
	skb_set_transport_header(skb, skb_network_offset(skb) +
				 (family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)));
	/* Over the MTU, whether DF says so or not: the stack fragments or answers. */
	if (skb->len > mtu && !(skb_is_gso(skb) && skb_gso_validate_network_len(skb, mtu)))
		return MMB_FAST_MTU;
	n = mmb_fast_neigh(skb, dst, out, family);
	if (!n)
		return MMB_FAST_NEIGH;
	*dstp = dst;
	*np = n;
	return MMB_FAST_OK;
}

/*
 * Send @skb, judged and passed on @md's device, a packet of @c going @dir,
 * by the fast path if it may; true if it did (the skb is gone), false if
 * it goes on to the stack unchanged.
 */
bool mmb_fast_xmit(struct mmb_dev *md, struct sk_buff *skb, struct mmb_conn *c, u8 dir)
{
	struct dst_entry *dst;
	struct neighbour *n;

	if (mmb_fast_check(skb, c, dir, false, &dst, &n))
		return false;
	/*
	 * neigh_hh_output() writes the link header before the data, and the
	 * TTL is written: a head shared with a clone (a capture's on the way
	 * in) or too little room is copied first, as ip_forward()'s skb_cow()
	 * does; without the memory, the stack gets the packet unchanged.
	 */
	if (unlikely(skb_cow(skb, HH_DATA_ALIGN(READ_ONCE(n->hh.hh_len)))))
		return false;
	/* As ip_rcv_core() does: a sender's socket (a veth's peer) is not kept. */
	skb_orphan(skb);
	if (c->orig.t.family == 4) {
		struct iphdr *iph = (struct iphdr *)skb->data;

		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		IPCB(skb)->flags = IPSKB_FORWARDED;
		if (READ_ONCE(dev_net(skb->dev)->ipv4.sysctl_ip_fwd_update_priority))
			skb->priority = rt_tos2priority(iph->tos);
		ip_decrease_ttl(iph);
	} else {
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
		((struct ipv6hdr *)skb->data)->hop_limit--;
	}
	skb_forward_csum(skb);
	skb_clear_tstamp(skb);
	/* Counted as the hook counts what it passes, and as sent on. */
	mmb_stats_count(md->stats, skb);
	mmb_counts_add(md->counts, MMB_COUNT_OFFLOADED, skb);
	/* The route's device as mmb_fast_check() read it. */
	skb->dev = n->dev;
	skb_dst_set_noref(skb, dst);
	neigh_hh_output(&n->hh, skb);
	return true;
}

/* Drop @x's routes: its connection is being freed, a grace period after it left. */
void mmb_fast_release(struct mmb_conn_ext *x)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(x->fast); i++) {
		/* Never busy: its claimer was done a grace period ago. */
		if (mmb_fast_held(x->fast[i].dst))
			mmb_fast_put(x->fast[i].dst, x->fast[i].bucket);
		x->fast[i].dst = NULL;
	}
}

/*
 * Drop @x's routes through @dev (a device unregistering), or all of them
 * for good (@dev NULL: the namespace is leaving, nothing is cached again).
 * A CPU may still be using one under RCU, unheld: dst_release() frees it a
 * grace period after the last reference went (dst_destroy_rcu()), as it
 * does for the stack's own. Process context.
 */
void mmb_fast_drop(struct mmb_conn_ext *x, const struct net_device *dev)
{
	u16 bucket = dev ? mmb_fast_bucket(dev) : 0;
	struct dst_entry *dst;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(x->fast); i++) {
		struct mmb_fast_route *fr = &x->fast[i];

		if (!dev) {
			/*
			 * A claimer busy with a lookup finds it taken, and lets
			 * its route go; no one writes the slot after this.
			 */
			dst = xchg(&fr->dst, MMB_FAST_DEAD);
			if (mmb_fast_held(dst))
				mmb_fast_put(dst, READ_ONCE(fr->bucket));
			continue;
		}
		/*
		 * Counted in @dev's bucket: through it, or moved off it to the
		 * blackhole device already (its fib entry freed before this
		 * notifier ran), or another's sharing the bucket (looked up
		 * again). Claimed (its bucket is the claimer's to read), then
		 * emptied.
		 */
		dst = READ_ONCE(fr->dst);
		if (!mmb_fast_held(dst) || READ_ONCE(fr->bucket) != bucket ||
		    cmpxchg(&fr->dst, dst, MMB_FAST_BUSY) != dst)
			continue;
		mmb_fast_put(dst, READ_ONCE(fr->bucket));
		/* Unless the namespace's leaving closed it meanwhile (a veth's peer). */
		cmpxchg(&fr->dst, MMB_FAST_BUSY, NULL);
	}
}
