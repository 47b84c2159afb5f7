// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the connection table (conn.h draws it): tuples, lookup, creation,
 * the end of connections, eviction when the table is full, and the GC
 * worker. What a packet does to a connection's state: connstate.c.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/processor.h>	/* cpu_relax(): 6.12's bit_spinlock.h misses it */
#include <linux/bit_spinlock.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/l3mdev.h>

#include "conn.h"
#include "mmb.h"
#include "nat.h"
#include "offload.h"
#include "test.h"

static struct kmem_cache *mmb_conn_cache __read_mostly;
static struct kmem_cache *mmb_conn_ext_cache __read_mostly;
static hsiphash_key_t mmb_conn_secret __read_mostly;

#define MMB_CONN_MIN_BUCKETS	256
#define MMB_EVICT_BUCKETS	8	/* scanned for a connection to evict */
#define MMB_GC_SLICE		1024	/* table nodes per run of the GC */
#define MMB_GC_INTERVAL		(5 * HZ)	/* between two walks of the table */
#define MMB_CONN_GFP		(GFP_ATOMIC | __GFP_NOWARN | __GFP_ACCOUNT)

u32 mmb_conn_now(void)
{
	u32 now;

	return mmb_test_now(&now) ? now : (u32)jiffies;
}

/*
 * hsiphash (SipHash-1-3 on 64-bit, HalfSipHash elsewhere), the kernel's
 * keyed hash for hash tables that remote senders fill. An IPv4 tuple is
 * hashed by its 14 bytes that are not padding (addresses, ports, family
 * and protocol: hsiphash_4u32(), two compressions instead of the five of
 * MMB_TUPLE_LEN), an IPv6 one whole; the family is in both, so no two
 * tuples are hashed from the same input.
 */
static u32 mmb_tuple_hashfn(const void *data, u32 len, u32 seed)
{
	const struct mmb_tuple *t = data;
	hsiphash_key_t key = mmb_conn_secret;

	key.key[0] ^= seed;
	if (t->family == 4)
		return hsiphash_4u32((__force u32)t->src.ip, (__force u32)t->dst.ip,
				     (__force u32)t->sport | (__force u32)t->dport << 16,
				     t->family | t->proto << 8, &key);
	return hsiphash(data, MMB_TUPLE_LEN, &key);
}

/* The bucket hash of @t in a table of seed @seed. */
u32 mmb_conn_hash(const struct mmb_tuple *t, u32 seed)
{
	return mmb_tuple_hashfn(t, MMB_TUPLE_LEN, seed);
}

/*
 * Before a node's tuple is compared, the other lines of its connection that
 * a packet found by it reads (struct mmb_conn) are asked for, so that in a
 * large table they come in while the node's own line does, not each a miss
 * after the last. An original node is its connection's first line, and the
 * packet reads the third (rules, counters) and, NATed, the second (the
 * mapped tuple); a reply node is the second, and the packet reads the first
 * (status, timeout), the third and the fourth (@iif). Not knowing which it
 * is until its line is in, it asks for the line before it and the two past
 * it: one of them is not needed (another object's, or the fourth; with
 * 128-byte lines, two are one).
 */
static __always_inline int mmb_tuple_cmpfn(struct rhashtable_compare_arg *arg,
					   const void *obj)
{
	const struct mmb_conn_node *n = obj;
	const size_t line = offsetof(struct mmb_conn, reply);

	/* Four 64-byte lines on a 64-bit kernel, as mmb_conn_cache_init() checks. */
	if (IS_ENABLED(CONFIG_64BIT)) {
		prefetch((const u8 *)n - line);
		prefetch((const u8 *)n + line);
		prefetch((const u8 *)n + 2 * line);
	}
	return !mmb_tuple_equal(arg->key, &n->t);
}

static const struct rhashtable_params mmb_conn_params = {
	.head_offset = offsetof(struct mmb_conn_node, node),
	.key_offset = offsetof(struct mmb_conn_node, t),
	.key_len = MMB_TUPLE_LEN,
	.hashfn = mmb_tuple_hashfn,
	.obj_cmpfn = mmb_tuple_cmpfn,
	.min_size = MMB_CONN_MIN_BUCKETS,
	.max_size = MMB_CONN_MAX_LIMIT,		/* twice as many nodes */
	.automatic_shrinking = true,
};

/* --- tuples ---------------------------------------------------------------- */

static void mmb_tuple_addrs(const u8 *img, struct mmb_tuple *t)
{
	if (t->family == 4) {
		memset(&t->src, 0, sizeof(t->src));
		memset(&t->dst, 0, sizeof(t->dst));
		memcpy(&t->src.ip, img + MMB_IMG_IP4_SADDR, 4);
		memcpy(&t->dst.ip, img + MMB_IMG_IP4_DADDR, 4);
	} else {
		memcpy(&t->src.in6, img + MMB_IMG_IP6 + 8, 16);
		memcpy(&t->dst.in6, img + MMB_IMG_IP6 + 24, 16);
	}
}

/*
 * The ports of an ICMP or ICMPv6 echo: its identifier as the source port
 * of a request, the destination port of a reply, so that a reply's tuple
 * is its request's inverted. False for any other ICMP message.
 */
static bool mmb_tuple_echo(struct mmb_tuple *t, u8 type, const u8 *id)
{
	u8 request = t->family == 4 ? ICMP_ECHO : ICMPV6_ECHO_REQUEST;
	u8 reply = t->family == 4 ? ICMP_ECHOREPLY : ICMPV6_ECHO_REPLY;

	if (t->proto != (t->family == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6))
		return false;
	if (type == request) {
		memcpy(&t->sport, id, 2);
		t->dport = 0;
	} else if (type == reply) {
		t->sport = 0;
		memcpy(&t->dport, id, 2);
	} else {
		return false;
	}
	return true;
}

/* The ports of L4 header @l4 (8 bytes) of protocol t->proto. */
static bool mmb_tuple_ports(struct mmb_tuple *t, const u8 *l4, const u8 *l4_hi)
{
	switch (t->proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		memcpy(&t->sport, l4, 2);
		memcpy(&t->dport, l4 + 2, 2);
		return true;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return mmb_tuple_echo(t, l4[0], l4_hi);
	}
	return false;
}

/* The tuple of @pkt: false for a packet no connection is kept for. */
bool mmb_conn_tuple(const struct mmb_pkt *pkt, struct mmb_tuple *t)
{
	const u8 *b = pkt->key.b;

	if ((b[MMB_IMG_FLAGS] & (MMB_KF_L4 | MMB_KF_LATER)) != MMB_KF_L4)
		return false;
	t->family = b[MMB_IMG_FAMILY];
	t->proto = b[MMB_IMG_L4PROTO];
	t->dir = MMB_DIR_ORIG;
	t->pad = 0;
	if (!mmb_tuple_ports(t, &b[MMB_IMG_L4_LO], &b[MMB_IMG_L4_HI]))
		return false;
	mmb_tuple_addrs(b, t);
	return true;
}

void mmb_tuple_invert(const struct mmb_tuple *t, struct mmb_tuple *r)
{
	*r = *t;
	r->src = t->dst;
	r->dst = t->src;
	r->sport = t->dport;
	r->dport = t->sport;
}

/*
 * Is @t its own reply (same address and port at both ends: a "land"
 * packet, spoofed when it comes in on a device)? Its two tuples would be
 * one key: it is not tracked.
 */
static bool mmb_tuple_self(const struct mmb_tuple *t)
{
	return t->sport == t->dport && !memcmp(&t->src, &t->dst, sizeof(t->src));
}

/* The quoted packet's L4 ports at @off, the quote ending at @end. */
static bool mmb_quote_ports(const struct sk_buff *skb, unsigned int off, unsigned int end,
			    struct mmb_tuple *t)
{
	u8 buf[8] __uninitialized;
	const u8 *h;

	if (off + 8 > end)
		return false;
	h = skb_header_pointer(skb, off, 8, buf);
	return h && mmb_tuple_ports(t, h, h + 4);
}

static bool mmb_quote_ipv4(const struct sk_buff *skb, const struct mmb_pkt *pkt,
			   unsigned int off, struct mmb_tuple *t)
{
	struct iphdr buf __uninitialized;
	const struct iphdr *iph;

	if (off + sizeof(buf) > pkt->end)
		return false;
	iph = skb_header_pointer(skb, off, sizeof(buf), &buf);
	/* A fragment other than the first quotes no ports. */
	if (!iph || iph->version != 4 || iph->ihl < 5 || iph->frag_off & htons(IP_OFFSET))
		return false;
	/* The error goes back to whoever sent the quoted packet. */
	if (memcmp(&iph->saddr, &pkt->key.b[MMB_IMG_IP4_DADDR], 4))
		return false;
	t->proto = iph->protocol;
	memset(&t->src, 0, sizeof(t->src));
	memset(&t->dst, 0, sizeof(t->dst));
	t->src.ip = iph->saddr;
	t->dst.ip = iph->daddr;
	return mmb_quote_ports(skb, off + iph->ihl * 4, pkt->end, t);
}

static bool mmb_quote_ipv6(const struct sk_buff *skb, const struct mmb_pkt *pkt,
			   unsigned int off, struct mmb_tuple *t)
{
	struct ipv6hdr buf __uninitialized;
	const struct ipv6hdr *ip6;

	if (off + sizeof(buf) > pkt->end)
		return false;
	ip6 = skb_header_pointer(skb, off, sizeof(buf), &buf);
	if (!ip6 || ip6->version != 6 ||
	    memcmp(&ip6->saddr, &pkt->key.b[MMB_IMG_IP6 + 24], 16))
		return false;
	/* Quoted extension headers are not walked: no connection is found. */
	t->proto = ip6->nexthdr;
	t->src.in6 = ip6->saddr;
	t->dst.in6 = ip6->daddr;
	return mmb_quote_ports(skb, off + sizeof(*ip6), pkt->end, t);
}

/*
 * For an ICMP or ICMPv6 error (unreachable, too big, time exceeded,
 * parameter problem), the tuple of a packet going back the way the quoted
 * one came: the quoted packet left as mapped, so this is the tuple the
 * connection knows the error's direction by.
 */
bool mmb_conn_related_tuple(const struct sk_buff *skb, const struct mmb_pkt *pkt,
			    struct mmb_tuple *t)
{
	const u8 *b = pkt->key.b;
	u8 type = b[MMB_IMG_L4_LO];
	struct mmb_tuple q;

	if ((b[MMB_IMG_FLAGS] & (MMB_KF_L4 | MMB_KF_LATER)) != MMB_KF_L4)
		return false;
	q.family = b[MMB_IMG_FAMILY];
	q.dir = MMB_DIR_ORIG;
	q.pad = 0;
	if (q.family == 4 && b[MMB_IMG_L4PROTO] == IPPROTO_ICMP &&
	    (type == ICMP_DEST_UNREACH || type == ICMP_TIME_EXCEEDED ||
	     type == ICMP_PARAMETERPROB)) {
		if (!mmb_quote_ipv4(skb, pkt, pkt->l4off + 8, &q))
			return false;
	} else if (q.family == 6 && b[MMB_IMG_L4PROTO] == IPPROTO_ICMPV6 &&
		   type >= ICMPV6_DEST_UNREACH && type <= ICMPV6_PARAMPROB) {
		if (!mmb_quote_ipv6(skb, pkt, pkt->l4off + 8, &q))
			return false;
	} else {
		return false;
	}
	mmb_tuple_invert(&q, t);
	return true;
}

/* --- lookup and the end of connections ------------------------------------ */

/* The connection with tuple @t, and the direction @t is in it; under RCU. */
struct mmb_conn *mmb_conn_find(struct mmb_conns *mc, const struct mmb_tuple *t, u8 *dir)
{
	struct mmb_conn_node *n = rhashtable_lookup(&mc->ht, t, mmb_conn_params);

	if (!n)
		return NULL;
	*dir = n->t.dir;
	return mmb_conn_of(n);
}

/*
 * Connections of all namespaces but the initial one (the host's, which its
 * own conn-max bounds), reserved or in their table: what conn_max_total
 * caps, so that containers cannot take the memory of the host.
 */
static atomic_t mmb_conns_all = ATOMIC_INIT(0);

unsigned int mmb_conns_total(void)
{
	return atomic_read(&mmb_conns_all);
}

/* A connection leaves @mc, or one reserved is not made after all. */
static void mmb_conns_unreserve(struct mmb_conns *mc)
{
	atomic_dec(&mc->count);
	if (mc->shared)
		atomic_dec(&mmb_conns_all);
}

static void mmb_conn_free(struct mmb_conn *c)
{
	unsigned int i;

	mmb_cc_release(c);
	for (i = 0; i < c->nrules; i++)
		mmb_rule_put((struct mmb_rule *)c->rules[i]);
	/* Its routes: after the grace period, no CPU can cache one any more. */
	if (test_bit(MMB_CONN_OFFLOAD, &c->status))
		mmb_fast_release(mmb_conn_ext(c));
	if (READ_ONCE(c->status) & (BIT(MMB_CONN_EXT) | BIT(MMB_CONN_OFFLOAD)))
		kmem_cache_free(mmb_conn_ext_cache, mmb_conn_ext(c));
	else
		kmem_cache_free(mmb_conn_cache, c);
}

static void mmb_conn_free_rcu(struct rcu_head *head)
{
	mmb_conn_free(container_of(head, struct mmb_conn, rcu));
}

/*
 * Take @c out of the table, once (whoever gets here first: a killer of a
 * confirmed connection or its creator); it is freed after a grace period.
 * A node not in the table is not found there: a creator whose orig node
 * did not go in removes its reply node alone.
 */
static void mmb_conn_unlink(struct mmb_conns *mc, struct mmb_conn *c)
{
	if (test_and_set_bit(MMB_CONN_UNLINKED, &c->status))
		return;
	if (test_bit(MMB_CONN_CONFIRMED, &c->status))
		mmb_conn_event(mc, c, MMB_CMD_CONN_DESTROY);
	rhashtable_remove_fast(&mc->ht, &c->orig.node, mmb_conn_params);
	rhashtable_remove_fast(&mc->ht, &c->reply.node, mmb_conn_params);
	mmb_conns_unreserve(mc);
	mmb_cc_release(c);
	call_rcu(&c->rcu, mmb_conn_free_rcu);
}

/*
 * End @c (once, whoever asks first), counted as @why. One not confirmed
 * yet is half in the table: it is only marked, and its creator takes it
 * out once both of its nodes are in (mmb_conn_confirm()).
 */
void mmb_conn_kill(struct mmb_conns *mc, struct mmb_conn *c, enum mmb_conn_stat why)
{
	if (test_and_set_bit(MMB_CONN_DYING, &c->status))
		return;
	mmb_conn_stat(mc, why);
	/* DYING set (a full barrier) before CONFIRMED is read: see mmb_conn_confirm(). */
	if (test_bit(MMB_CONN_CONFIRMED, &c->status))
		mmb_conn_unlink(mc, c);
}

/*
 * Both of @c's nodes are in: from now on whoever ends it takes it out.
 * False if it was asked to end meanwhile: it is taken out now.
 */
static bool mmb_conn_confirm(struct mmb_conns *mc, struct mmb_conn *c)
{
	set_bit(MMB_CONN_CONFIRMED, &c->status);
	/* CONFIRMED set before DYING is read, as DYING before CONFIRMED in a kill. */
	smp_mb__after_atomic();
	if (!test_bit(MMB_CONN_DYING, &c->status))
		return true;
	mmb_conn_unlink(mc, c);
	return false;
}

/*
 * One of the rules @c keeps has ended. A rule a transaction took out and
 * added again has a successor (rule.h): @c judges by the last one, and,
 * with @relink, holds it from now on instead: whichever CPU sees it first
 * makes the change; others may still read the old rule, which is freed a
 * grace period after its last holder let go. Under RCU.
 */
static bool mmb_conn_orphan(struct mmb_conn *c, bool relink)
{
	struct mmb_rule *rule, *live;
	unsigned int i;

	for (i = 0; i < c->nrules; i++) {
		rule = READ_ONCE(c->rules[i]);
		live = mmb_rule_live(rule);
		if (unlikely(live != rule) && relink) {
			/* Held by the rule before it, which is not freed yet. */
			refcount_inc(&live->ref);
			mmb_rule_put(cmpxchg(&c->rules[i], rule, live) == rule ? rule : live);
		}
		if (READ_ONCE(live->dead))
			return true;
	}
	return false;
}

/* May a packet use @c now? If not, it ends, unless it is ending already. */
static bool mmb_conn_alive(struct mmb_conns *mc, struct mmb_conn *c, u32 now)
{
	if (!mmb_conn_live(c))
		return false;
	if (mmb_conn_expired(c, now)) {
		mmb_conn_kill(mc, c, MMB_CSTAT_EXPIRED);
		return false;
	}
	if (mmb_conn_orphan(c, true)) {
		mmb_conn_kill(mc, c, MMB_CSTAT_ENDED);
		return false;
	}
	return true;
}

/*
 * Make room for @t: end an expired or evictable connection among those of
 * the buckets from @t's on (as nf_conntrack's early drop does).
 */
static bool mmb_conn_evict(struct mmb_conns *mc, const struct mmb_tuple *t, u32 now)
{
	struct bucket_table *tbl = rht_dereference_rcu(mc->ht.tbl, &mc->ht);
	unsigned int hash = rht_key_hashfn(&mc->ht, tbl, t, mmb_conn_params), i;
	struct mmb_conn_node *n;
	struct rhash_head *pos;

	for (i = 0; i < MMB_EVICT_BUCKETS; i++) {
		rht_for_each_entry_rcu(n, pos, tbl, (hash + i) & (tbl->size - 1), node) {
			struct mmb_conn *c = mmb_conn_of(n);

			/* Not one that is ending, nor one being published. */
			if (!mmb_conn_live(c))
				continue;
			if (mmb_conn_expired(c, now)) {
				mmb_conn_kill(mc, c, MMB_CSTAT_EXPIRED);
				return true;
			}
			if (mmb_conn_evictable(c)) {
				mmb_conn_kill(mc, c, MMB_CSTAT_EVICTED);
				return true;
			}
		}
	}
	return false;
}

/* --- where a connection's packets come in ---------------------------------- */

/*
 * Does the route from @dev's namespace (its VRF's table, if it is in one)
 * to @addr, of family @family, from @from (NULL: any source), go out of
 * @dev, through any of its next hops? Only a unicast route counts: not a
 * local address, a blackhole, a prohibit, nor no route at all (as the
 * kernel's strict reverse-path filter, rp_filter 1, which looks the
 * route up from the address the packet was sent to, so that source
 * routing rules apply). Under RCU.
 */
static bool mmb_route_via(const struct net_device *dev, u8 family, const void *addr,
			  const void *from)
{
	int l3mdev = l3mdev_master_ifindex_rcu(dev);

	if (family == 4) {
		struct flowi4 fl4 = {
			.daddr = *(const __be32 *)addr,
			.saddr = from ? *(const __be32 *)from : 0,
			.flowi4_iif = LOOPBACK_IFINDEX,
			.flowi4_l3mdev = l3mdev,
			.flowi4_scope = RT_SCOPE_UNIVERSE,
		};
		struct fib_result res;

		if (fib_lookup(dev_net(dev), &fl4, &res, FIB_LOOKUP_IGNORE_LINKSTATE))
			return false;
		return res.type == RTN_UNICAST && fib_info_nh_uses_dev(res.fi, dev);
	}
#if IS_REACHABLE(CONFIG_IPV6)
	{
		struct flowi6 fl6 = {
			.daddr = *(const struct in6_addr *)addr,
			.saddr = from ? *(const struct in6_addr *)from : in6addr_any,
			.flowi6_iif = LOOPBACK_IFINDEX,
			.flowi6_oif = dev->ifindex,	/* preferred, among next hops */
			.flowi6_l3mdev = l3mdev,
		};
		int flags = ipv6_addr_type(&fl6.daddr) & IPV6_ADDR_LINKLOCAL ?
			    RT6_LOOKUP_F_IFACE : 0;
		struct dst_entry *dst = ip6_route_lookup(dev_net(dev), &fl6, NULL, flags);
		const struct rt6_info *rt = dst_rt6_info(dst);
		bool via = !dst->error &&
			   !(rt->rt6i_flags & (RTF_REJECT | RTF_ANYCAST | RTF_LOCAL)) &&
			   (dst->dev == dev || l3mdev_master_ifindex_rcu(dst->dev) == dev->ifindex);

		dst_release(dst);
		return via;
	}
#else
	return false;
#endif
}

/*
 * Does route lookup @fl4 (@fl6) in @net give a unicast route out of a
 * device mmb is enabled on (its first next hop's)? Under RCU.
 */
static bool mmb_route4_filtered(struct net *net, struct flowi4 *fl4)
{
	struct fib_result res;

	if (fib_lookup(net, fl4, &res, FIB_LOOKUP_IGNORE_LINKSTATE))
		return false;
	return res.type == RTN_UNICAST && mmb_dev_filtered(FIB_RES_DEV(res));
}

static bool mmb_route6_filtered(struct net *net, struct flowi6 *fl6)
{
#if IS_REACHABLE(CONFIG_IPV6)
	struct dst_entry *dst = ip6_route_lookup(net, fl6, NULL, 0);
	const struct rt6_info *rt = dst_rt6_info(dst);
	bool via = !dst->error &&
		   !(rt->rt6i_flags & (RTF_REJECT | RTF_ANYCAST | RTF_LOCAL)) &&
		   mmb_dev_filtered(dst->dev);

	dst_release(dst);
	return via;
#else
	return false;
#endif
}

/* Does the route from @net to @addr go out of a device mmb is enabled on? */
static bool mmb_route_filtered(struct net *net, u8 family, const void *addr)
{
	if (family == 4) {
		struct flowi4 fl4 = {
			.daddr = *(const __be32 *)addr,
			.flowi4_iif = LOOPBACK_IFINDEX,
			.flowi4_scope = RT_SCOPE_UNIVERSE,
		};

		return mmb_route4_filtered(net, &fl4);
	}
	{
		struct flowi6 fl6 = {
			.daddr = *(const struct in6_addr *)addr,
			.flowi6_iif = LOOPBACK_IFINDEX,
		};

		return mmb_route6_filtered(net, &fl6);
	}
}

/*
 * Does the stack route @c's first packet @skb, which arrived on
 * skb->dev, out of a device mmb is enabled on? As the stack's input route
 * lookup will, policy routing included: from its device (iif, a VRF's
 * table), its source, its mark, its protocol and ports, to its destination
 * as mapped. A mark that the packet's own verdict sets is not seen (it is
 * set after this, as the packet is rewritten). Under RCU.
 */
static bool mmb_route_onward_filtered(const struct sk_buff *skb, const struct mmb_conn *c)
{
	const struct mmb_tuple *o = &c->orig.t, *r = &c->reply.t;
	bool ports = o->proto == IPPROTO_TCP || o->proto == IPPROTO_UDP;
	struct net_device *dev = skb->dev;

	if (o->family == 4) {
		struct flowi4 fl4 = {
			.daddr = r->src.ip,
			.saddr = o->src.ip,
			.flowi4_iif = dev->ifindex,
			.flowi4_l3mdev = l3mdev_master_ifindex_rcu(dev),
			.flowi4_mark = skb->mark,
			.flowi4_proto = o->proto,
			.flowi4_scope = RT_SCOPE_UNIVERSE,
			.fl4_sport = ports ? o->sport : 0,
			.fl4_dport = ports ? r->sport : 0,
		};

		return mmb_route4_filtered(dev_net(dev), &fl4);
	}
	{
		struct flowi6 fl6 = {
			.daddr = r->src.in6,
			.saddr = o->src.in6,
			.flowi6_iif = dev->ifindex,
			.flowi6_l3mdev = l3mdev_master_ifindex_rcu(dev),
			.flowi6_mark = skb->mark,
			.flowi6_proto = o->proto,
			.fl6_sport = ports ? o->sport : 0,
			.fl6_dport = ports ? r->sport : 0,
		};

		return mmb_route6_filtered(dev_net(dev), &fl6);
	}
}

/*
 * Where the packets of mapped connection @c leave: by an enabled device,
 * whose egress hook then maps their source after routing (nat.c,
 * mmb_nat_manip()), or not, and their source is mapped as they arrive.
 * Found once, by its first packet @skb, leaving if @out: the original
 * direction goes where the route to its mapped destination goes (for a
 * first packet that leaves, by its device); replies go where the route
 * to its source goes, and a connection of the host's own has none that
 * leave.
 */
static void mmb_conn_snat_where(struct mmb_conn *c, const struct sk_buff *skb, bool out)
{
	struct net *net = dev_net(skb->dev);
	u8 family = c->orig.t.family;
	bool reply;

	if (out || mmb_route_onward_filtered(skb, c))
		__set_bit(MMB_CONN_SNAT_ORIG, &c->status);
	if (out)
		reply = skb->skb_iif && mmb_route_filtered(net, family, &c->orig.t.src);
	else
		reply = mmb_route_filtered(net, family, &c->orig.t.src);
	if (reply)
		__set_bit(MMB_CONN_SNAT_REPLY, &c->status);
}

/*
 * May @t, which came in on @dev, start a connection? Not with rp-filter on
 * if the route back to its source goes out of another device: its source
 * is forged (a packet from an inside address on the outside device), and
 * the stack's own reverse-path filter, if any, runs too late to stop it
 * creating state. Loopback is not checked.
 */
static bool mmb_conn_forged(struct mmb_conns *mc, const struct mmb_tuple *t,
			    const struct net_device *dev)
{
	if (!READ_ONCE(mc->rpf) || (dev->flags & IFF_LOOPBACK))
		return false;
	/* A host without an address asking for one (DHCP), as the stack lets in. */
	if (t->family == 4 && !t->src.ip && t->dst.ip == htonl(INADDR_BROADCAST))
		return false;
	return !mmb_route_via(dev, t->family, &t->src, &t->dst);
}

/* For a trace: would the reverse-path check refuse a connection to @pkt? */
bool mmb_conn_spoofed(struct mmb_conns *mc, const struct mmb_pkt *pkt,
		      const struct net_device *dev)
{
	struct mmb_tuple t __uninitialized;

	return mmb_conn_tuple(pkt, &t) && mmb_conn_forged(mc, &t, dev);
}

/*
 * The device that @c's replies may not come in on: the one its original
 * direction came in on (@dev), unless the route to where replies come
 * from goes out of it too (a one-armed router, a hairpin): then 0, any.
 */
static int mmb_conn_iif(struct mmb_conns *mc, const struct mmb_conn *c,
			const struct net_device *dev)
{
	if (!READ_ONCE(mc->rpf) || (dev->flags & IFF_LOOPBACK) ||
	    mmb_route_via(dev, c->reply.t.family, &c->reply.t.src, NULL))
		return 0;
	return dev->ifindex;
}

/*
 * Is @c's packet in direction @dir, in on @dev, not one of its own? A
 * reply that comes in where the original direction did is not (it is a
 * packet of no connection).
 */
static __always_inline bool mmb_conn_wrong_iif(const struct mmb_conn *c, u8 dir,
					       const struct net_device *dev)
{
	return dir == MMB_DIR_REPLY && c->iif == dev->ifindex;
}

/*
 * Is a packet going @dir, of @c, a reply before @c's first packet was
 * judged leaving (MMB_CONN_OUT_PENDING)? It is not @c's, as nf_conntrack
 * has no reply for an entry it has not confirmed: none could be sent to
 * the tuple the leaving rules may still map, and one that guessed the
 * unmapped one would mark @c as answered before its leaving judgement.
 * An ICMP error about its first packet still is (the router's own, as
 * nf_conntrack attaches the entry of the packet an error is about). With
 * no leaving stateful rule left (@outsf: deleted since it started), none
 * waits: nothing is left to judge it leaving.
 */
static __always_inline bool mmb_conn_awaits(const struct mmb_conn *c, u8 dir, bool outsf)
{
	return outsf && dir == MMB_DIR_REPLY &&
	       (READ_ONCE(c->status) & (BIT(MMB_CONN_OUT_PENDING) | BIT(MMB_CONN_OUT_DONE))) ==
	       BIT(MMB_CONN_OUT_PENDING);
}

/* --- the datapath ------------------------------------------------------------ */

/*
 * The connection @pkt belongs to, or the one whose packet the ICMP error
 * @pkt quotes (*@related), whether alive or not; under RCU.
 */
static __always_inline struct mmb_conn *
mmb_conn_find_pkt(struct mmb_conns *mc, const struct mmb_pkt *pkt, const struct sk_buff *skb,
		  u8 *dir, bool *related)
{
	struct mmb_tuple t __uninitialized;

	*related = false;
	if (!mmb_conn_tuple(pkt, &t)) {
		if (!mmb_conn_related_tuple(skb, pkt, &t))
			return NULL;
		*related = true;
	}
	return mmb_conn_find(mc, &t, dir);
}

/*
 * Before classification: the connection @pkt belongs to, or the one an
 * ICMP error quotes a packet of, in @v.
 */
void mmb_conn_lookup(struct mmb_conns *mc, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb, struct mmb_verdict *v)
{
	struct mmb_conn *c;
	bool related;
	u8 dir;

	c = mmb_conn_find_pkt(mc, pkt, skb, &dir, &related);
	if (!c)
		return;
	/*
	 * Leaving, a copy of its first packet while another CPU judges it
	 * leaving (or after that failed): it would leave unmapped.
	 */
	if (unlikely(v->out && dir == MMB_DIR_ORIG && !related && mmb_conn_out_held(c))) {
		v->held = true;
		return;
	}
	/*
	 * Waiting for its leaving judgement, a reply is not its own, nor an
	 * ICMP error about its first packet but the host's own (the router's
	 * time exceeded, seen leaving only): one that arrives, or was seen
	 * arriving, a remote sender made, quoting a packet never sent.
	 */
	if (!mmb_conn_alive(mc, c, mmb_conn_now()) ||
	    (mmb_conn_awaits(c, dir, v->outsf) && (!related || !v->out || mmb_judged_in(skb))))
		return;
	if (unlikely(test_bit(MMB_CONN_COUNTED, &c->status)) && mmb_cc_reborn(mc, c, dir, pkt))
		return;
	/* Leaving by the device the original came in on is what replies do. */
	if (unlikely(!v->out && mmb_conn_wrong_iif(c, dir, skb->dev))) {
		mmb_conn_stat(mc, MMB_CSTAT_WRONG_IIF);
		return;
	}
	mmb_test_found(c);
	v->conn = c;
	v->dir = dir;
	v->related = related;
}

/*
 * The live connection of tuple @t, in @v: a later fragment's, by its first
 * fragment's tuple (frag.c).
 */
void mmb_conn_lookup_tuple(struct mmb_conns *mc, const struct mmb_tuple *t,
			   struct mmb_verdict *v)
{
	struct mmb_conn *c;
	u8 dir;

	c = mmb_conn_find(mc, t, &dir);
	if (!c)
		return;
	/* Leaving while another CPU judges its first fragment leaving: unmapped. */
	if (unlikely(v->out && dir == MMB_DIR_ORIG && mmb_conn_out_held(c))) {
		v->held = true;
		return;
	}
	if (!mmb_conn_alive(mc, c, mmb_conn_now()) || mmb_conn_awaits(c, dir, v->outsf))
		return;
	v->conn = c;
	v->dir = dir;
	v->related = false;
}

/*
 * For a trace: what mmb_conn_lookup() would find for @pkt, with nothing
 * changed (an expired or orphaned connection is not ended, only not
 * found); under RCU.
 */
struct mmb_conn *mmb_conn_peek(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			       const struct sk_buff *skb, u8 *dir, bool *related, bool outsf)
{
	struct mmb_conn *c = mmb_conn_find_pkt(mc, pkt, skb, dir, related);

	if (!c || !mmb_conn_live(c) || mmb_conn_expired(c, mmb_conn_now()) ||
	    mmb_conn_orphan(c, false) || mmb_conn_wrong_iif(c, *dir, skb->dev) ||
	    mmb_conn_awaits(c, *dir, outsf))	/* an arriving ICMP error about it too */
		return NULL;
	return c;
}

/* For a trace: would @pkt, which matched stateful rules, start a connection? */
bool mmb_conn_would_start(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			  const struct sk_buff *skb)
{
	struct mmb_tuple t __uninitialized;
	u8 fin = 0;

	return mmb_conn_tuple(pkt, &t) && !mmb_tuple_self(&t) &&
	       mmb_conn_first_state(pkt, READ_ONCE(mc->tcp_loose), &fin) >= 0 &&
	       mmb_conn_csum_ok(pkt, skb);
}

/* Memory for a connection, with an extension if @ext (its status says so). */
static struct mmb_conn *mmb_conn_new(struct mmb_conns *mc, bool ext, bool fast)
{
	struct mem_cgroup *old;
	struct mmb_conn *c;

	/* Charged to the memory cgroup of whoever made the namespace. */
	old = set_active_memcg(mc->memcg);
	if (ext || fast) {
		struct mmb_conn_ext *x = kmem_cache_alloc(mmb_conn_ext_cache, MMB_CONN_GFP);

		c = x ? &x->c : NULL;
	} else {
		c = kmem_cache_alloc(mmb_conn_cache, MMB_CONN_GFP);
	}
	set_active_memcg(old);
	if (c) {
		c->status = (ext ? BIT(MMB_CONN_EXT) : 0) | (fast ? BIT(MMB_CONN_OFFLOAD) : 0);
		memset(c->cc, 0, sizeof(c->cc));
		if (fast) {
			memset(mmb_conn_ext(c)->fast, 0, sizeof(mmb_conn_ext(c)->fast));
			if (!ext)
				mmb_nat_ext_init(mmb_conn_ext(c), 0);
		}
	}
	return c;
}

/*
 * A new connection for @t, starting in @state, with the rules of @v and,
 * if they ask for it (@p), a mapping and an extension.
 */
static struct mmb_conn *mmb_conn_alloc(struct mmb_conns *mc, const struct mmb_tuple *t,
				       const struct mmb_verdict *v,
				       const struct mmb_nat_plan *p, u8 state, u8 fin)
{
	bool ext = p && p->what, fast = false;
	struct mmb_conn *c;
	unsigned int i;

	for (i = 0; i < v->nsf; i++)
		fast |= v->sf[i]->offload;
	c = mmb_conn_new(mc, ext, fast);
	if (!c)
		return NULL;
	if (ext)
		mmb_nat_ext_init(mmb_conn_ext(c), p->what);
	c->orig.t = *t;
	mmb_tuple_invert(p ? &p->m : t, &c->reply.t);
	c->reply.t.dir = MMB_DIR_REPLY;
	c->state = state;
	c->fin = fin;
	c->status = (ext ? BIT(MMB_CONN_EXT) : 0) | (fast ? BIT(MMB_CONN_OFFLOAD) : 0);
	for (i = 0; i < 2; i++) {
		atomic64_set(&c->packets[i], 0);
		atomic64_set(&c->bytes[i], 0);
	}
	memset(&c->tcp, 0, sizeof(c->tcp));
	c->iif = 0;
	/* A rule being deleted may be down to no reference: it ends anyway. */
	for (c->nrules = 0; c->nrules < v->nsf; c->nrules++) {
		struct mmb_rule *rule = (struct mmb_rule *)v->sf[c->nrules];

		if (!refcount_inc_not_zero(&rule->ref)) {
			mmb_conn_free(c);
			return NULL;
		}
		c->rules[c->nrules] = rule;
	}
	return c;
}

/*
 * Publish @c, both ways, its reply tuple first: a mapped one may be taken
 * by then, and a picked port (@p) is picked again, once. If another CPU
 * published the same connection first, -EEXIST: @c is dropped, and the
 * packet joins the other one. -EADDRNOTAVAIL: another connection has the
 * reply tuple. Until both nodes are in and @c is confirmed, whoever finds
 * it through its reply node leaves it to this CPU (mmb_conn_kill()).
 */
static int mmb_conn_insert(struct mmb_conns *mc, struct mmb_conn *c,
			   const struct mmb_nat_plan *p)
{
	unsigned int tries = 2;
	int err;
	u8 dir;

	for (;;) {
		err = rhashtable_lookup_insert_fast(&mc->ht, &c->reply.node, mmb_conn_params);
		if (err != -EEXIST || mmb_conn_find(mc, &c->orig.t, &dir))
			break;
		err = -EADDRNOTAVAIL;
		if (!p || !p->hi || !--tries || mmb_nat_pick(mc, c, p))
			break;
	}
	if (err) {
		mmb_conns_unreserve(mc);
		mmb_conn_free(c);	/* no reader ever saw it */
		return err;
	}
	mmb_test_half_in(mc, c);
	err = rhashtable_lookup_insert_fast(&mc->ht, &c->orig.node, mmb_conn_params);
	if (err) {
		/* Killers left it to us: it goes, once, and unseen. */
		set_bit(MMB_CONN_DYING, &c->status);
		mmb_conn_unlink(mc, c);
	}
	return err;
}

/* No tuple to map a new connection to: it is refused, and counted. */
static int mmb_conn_nat_full(struct mmb_conns *mc)
{
	mmb_conn_stat(mc, MMB_CSTAT_NAT_FULL);
	net_warn_ratelimited("mmb: no free port to map a connection to, dropping packet\n");
	return -ENOSPC;
}

/* Pick @c's port, if @p asks for one; flag a mapping, before @c is seen. */
static int mmb_conn_map(struct mmb_conns *mc, struct mmb_conn *c,
			const struct mmb_nat_plan *p)
{
	struct mmb_tuple inv;

	if (mmb_nat_pick(mc, c, p)) {
		mmb_conns_unreserve(mc);
		mmb_conn_free(c);
		return mmb_conn_nat_full(mc);
	}
	mmb_tuple_invert(&c->orig.t, &inv);
	if (!mmb_tuple_equal(&inv, &c->reply.t))
		__set_bit(MMB_CONN_MAPPED, &c->status);
	return 0;
}

/*
 * Another CPU published @t's connection first: @pkt is one of its packets,
 * rewritten as they are; dropped if that one is not confirmed yet, or gone.
 */
static int mmb_conn_join(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			 const struct sk_buff *skb, struct mmb_verdict *v,
			 const struct mmb_tuple *t, u32 now)
{
	struct mmb_conn *c;
	u8 dir;

	c = mmb_conn_find(mc, t, &dir);
	if (!c || !mmb_conn_alive(mc, c, now) || mmb_conn_awaits(c, dir, v->outsf))
		return -ENOSPC;
	mmb_conn_update(mc, c, dir, pkt, skb);
	v->conn = c;
	v->dir = dir;
	return 0;
}

/*
 * Room for one more connection in @mc, for @t's, and in the module's cap,
 * by eviction in @mc if need be: 0, or -ENOSPC, counted.
 */
static int mmb_conns_reserve(struct mmb_conns *mc, const struct mmb_tuple *t,
			     const struct mmb_verdict *v, u32 now)
{
	if (unlikely(v->sf_lost)) {
		mmb_conn_stat(mc, MMB_CSTAT_MANY_RULES);
		net_warn_ratelimited("mmb: a packet matched more than %u stateful rules, dropping it\n",
				     MMB_CONN_RULES);
		return -ENOSPC;
	}
	if (atomic_inc_return(&mc->count) > READ_ONCE(mc->max) && !mmb_conn_evict(mc, t, now)) {
		atomic_dec(&mc->count);
		mmb_conn_stat(mc, MMB_CSTAT_REFUSED);
		net_warn_ratelimited("mmb: connection table full, dropping packet\n");
		return -ENOSPC;
	}
	/* At the cap, room is made in @mc alone: a namespace ends none of another's. */
	if (mc->shared && atomic_inc_return(&mmb_conns_all) > READ_ONCE(mmb_conn_max_total) &&
	    !mmb_conn_evict(mc, t, now)) {
		mmb_conns_unreserve(mc);
		mmb_conn_stat(mc, MMB_CSTAT_CAPPED);
		net_warn_ratelimited("mmb: conn_max_total connections in all namespaces, dropping packet\n");
		return -ENOSPC;
	}
	return 0;
}

/*
 * Masquerade picks a device's address before its connection is in the
 * table, and an address lost in between is not seen by the walk its loss
 * started: read the count of losses before the pick, and after the
 * connection is in, walk again if it moved (mmb_masq_lost()). Either the
 * new count is seen here or the walk sees the connection.
 */
static u32 mmb_conn_masq_gen(struct mmb_conns *mc)
{
	u32 gen = atomic_read(&mc->masq_gen);

	smp_rmb();	/* the count, then the addresses */
	return gen;
}

static void mmb_conn_masq_recheck(struct mmb_conns *mc, u32 gen)
{
	smp_mb();	/* the connection in the table, then the count */
	if (unlikely(atomic_read(&mc->masq_gen) != gen))
		schedule_work(&mc->masq);
}

/* The first packet of a connection: create it, or join a racing CPU's. */
static int mmb_conn_create(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			   const struct sk_buff *skb, struct mmb_verdict *v)
{
	struct mmb_nat_plan plan __uninitialized;
	struct mmb_tuple t __uninitialized;
	u32 now = mmb_conn_now();
	struct mmb_conn *c;
	int state, err;
	u8 fin = 0;
	bool nat;
	u32 gen;

	if (!mmb_conn_tuple(pkt, &t) || mmb_tuple_self(&t))
		return 0;	/* not tracked: its rules applied to it alone */
	gen = mmb_conn_masq_gen(mc);
	err = mmb_nat_plan(v, &t, v->out ? skb->dev : NULL, &plan);
	if (err < 0)
		return mmb_conn_nat_full(mc);
	nat = err;
	state = mmb_conn_first_state(pkt, READ_ONCE(mc->tcp_loose), &fin);
	if (state < 0 || !mmb_conn_csum_ok(pkt, skb))
		return 0;
	/* A leaving packet has no reverse path to check: routing chose its way. */
	if (!v->out && mmb_conn_forged(mc, &t, skb->dev)) {
		mmb_conn_stat(mc, MMB_CSTAT_SPOOFED);
		return -EXDEV;
	}
	err = mmb_conns_reserve(mc, &t, v, now);
	if (err)
		return err;
	c = mmb_conn_alloc(mc, &t, v, nat ? &plan : NULL, state, fin);
	if (!c) {
		mmb_conns_unreserve(mc);
		mmb_conn_stat(mc, MMB_CSTAT_NOMEM);
		return -ENOMEM;
	}
	if (unlikely(v->ncc) && mmb_cc_charge(c, pkt, v)) {
		mmb_conns_unreserve(mc);
		mmb_conn_free(c);
		return -ENOSPC;
	}
	mmb_conn_init_state(mc, c, pkt, now);
	c->iif = v->out ? 0 : mmb_conn_iif(mc, c, skb->dev);
	if (nat) {
		err = mmb_conn_map(mc, c, &plan);
		if (err)
			return err;
		if (test_bit(MMB_CONN_MAPPED, &c->status)) {
			mmb_conn_snat_where(c, skb, v->out);
			mmb_nat_offsets_where(c);
		}
		if (plan.masq)
			__set_bit(MMB_CONN_MASQ, &c->status);
	}
	/*
	 * Started leaving, it was judged leaving. Started arriving, its first
	 * packet is judged by the leaving stateful rules as it leaves by an
	 * enabled device (mmb_conn_bind()); if that is where the route takes
	 * it, replies wait for that judgement.
	 */
	if (v->out) {
		__set_bit(MMB_CONN_OUT_CLAIM, &c->status);
		__set_bit(MMB_CONN_OUT_DONE, &c->status);
	} else if (v->outsf && mmb_route_onward_filtered(skb, c)) {
		__set_bit(MMB_CONN_OUT_PENDING, &c->status);
	}
	err = mmb_conn_insert(mc, c, nat ? &plan : NULL);
	if (err == -EADDRNOTAVAIL)
		return mmb_conn_nat_full(mc);
	if (err == -EEXIST)
		return mmb_conn_join(mc, pkt, skb, v, &t, now);
	if (err) {
		mmb_conn_stat(mc, MMB_CSTAT_NOMEM);
		return -ENOMEM;
	}
	if (nat && plan.masq)
		mmb_conn_masq_recheck(mc, gen);
	mmb_conn_stat(mc, MMB_CSTAT_CREATED);
	mmb_conn_count(c, MMB_DIR_ORIG, skb);
	mmb_conn_event(mc, c, MMB_CMD_CONN_NEW);
	/* Ended before it was confirmed: its packet goes too, as nf_conntrack's. */
	if (!mmb_conn_confirm(mc, c))
		return -ENOSPC;
	if (!delayed_work_pending(&mc->gc))
		queue_delayed_work(system_power_efficient_wq, &mc->gc, MMB_GC_INTERVAL);
	v->conn = c;
	v->dir = MMB_DIR_ORIG;
	return 0;
}

/* @v without the stateful rules it matched: neither kept nor their rewrites. */
static void mmb_verdict_stateless(struct mmb_verdict *v)
{
	unsigned int i, n;

	for (i = 0, n = 0; i < v->nrw; i++)
		if (!v->rw[i]->stateful)
			v->rw[n++] = v->rw[i];
	v->nrw = n;
	v->nsf = 0;
	v->sf_lost = false;
}

/*
 * A packet of no connection that matched stateful rules: it gets their
 * accept and drop, at their priorities, and starts a connection with
 * those the verdict leaves uncut, unless the verdict drops it (as
 * nf_conntrack, which confirms a connection only once its first packet
 * made it through), or cuts them all off, or the reverse-path check
 * refuses it: then it is judged by its stateless rules alone, without the
 * stateful rules' rewrites.
 */
static int mmb_conn_start(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			  const struct sk_buff *skb, struct mmb_verdict *v)
{
	const struct mmb_rule *reject = v->reject;
	bool accept = v->accept, drop = v->drop;
	u32 prio = v->prio;
	unsigned int i;
	int err;

	for (i = 0; i < v->nsf; i++)
		mmb_verdict_judge(v, v->sf[i]);
	if (v->drop && !v->accept)
		return 0;
	/* Sorted by descending priority: those cut off are last. */
	while (v->nsf && mmb_verdict_cut(v, v->sf[v->nsf - 1]->prio))
		v->nsf--;
	if (!v->nsf)
		return 0;
	err = mmb_conn_create(mc, pkt, skb, v);
	if (err != -EXDEV)
		return err;
	v->accept = accept;
	v->drop = drop;
	v->prio = prio;
	v->reject = reject;
	mmb_verdict_stateless(v);
	return 0;
}

/*
 * What a connection keeps of its status when its leaving judgement
 * replaces it; counted too (its charges go with it, mmb_cc_move()), or a
 * SYN reopening it once closed would not be counted (mmb_cc_reborn()).
 */
#define MMB_CONN_KEPT	(BIT(MMB_CONN_ASSURED) | BIT(MMB_CONN_MASQ) | BIT(MMB_CONN_COUNTED) | \
			 BIT(MMB_CONN_LOOSE) | BIT(MMB_CONN_OFFS_ORIG) | BIT(MMB_CONN_OFFS_REPLY))

/*
 * The connection that replaces @c once its first packet was judged
 * leaving: a copy of it (state, windows, counters, offsets) holding @c's
 * rules and then those of @v (references taken), an extension if @c has
 * one or @what asks for one; not in the table, not confirmed. NULL if
 * there is no memory, or a rule is going.
 */
static struct mmb_conn *mmb_conn_copy(struct mmb_conns *mc, struct mmb_conn *c,
				      const struct mmb_verdict *v, u8 what)
{
	bool had = test_bit(MMB_CONN_EXT, &c->status);
	struct mmb_conn *n = mmb_conn_new(mc, had || what,
					  test_bit(MMB_CONN_OFFLOAD, &c->status));
	unsigned int i;

	if (!n)
		return NULL;
	if (had) {
		const struct mmb_conn_ext *y = mmb_conn_ext(c);
		struct mmb_conn_ext *x = mmb_conn_ext(n);

		memcpy(x->seq, y->seq, sizeof(x->seq));
		x->label = y->label;
		x->ipid = y->ipid;
		x->what = y->what;
	} else if (what) {
		mmb_nat_ext_init(mmb_conn_ext(n), what);
	}
	n->orig.t = c->orig.t;
	n->reply.t = c->reply.t;
	n->status |= (READ_ONCE(c->status) & MMB_CONN_KEPT) | BIT(MMB_CONN_OUT_CLAIM) |
		     BIT(MMB_CONN_OUT_DONE);
	/* Its state as the packets of @c that other CPUs judge leave it. */
	bit_spin_lock(MMB_CONN_LOCKED, &c->status);
	n->timeout = c->timeout;
	n->state = c->state;
	n->fin = c->fin;
	n->tcp = c->tcp;
	bit_spin_unlock(MMB_CONN_LOCKED, &c->status);
	for (i = 0; i < 2; i++) {
		atomic64_set(&n->packets[i], atomic64_read(&c->packets[i]));
		atomic64_set(&n->bytes[i], atomic64_read(&c->bytes[i]));
	}
	n->iif = c->iif;
	for (n->nrules = 0; n->nrules < c->nrules + v->nsf; n->nrules++) {
		struct mmb_rule *rule = n->nrules < c->nrules ?
					READ_ONCE(c->rules[n->nrules]) :
					(struct mmb_rule *)v->sf[n->nrules - c->nrules];

		if (!refcount_inc_not_zero(&rule->ref)) {
			mmb_conn_free(n);
			return NULL;
		}
		n->rules[n->nrules] = rule;
	}
	return n;
}

/*
 * Put @n in the table in the place of @c, which the caller made DYING
 * (so that nobody else takes it out): @n's reply node first (its tuple
 * may be new, and a picked port (@p) is picked again, once, if another
 * connection took it meanwhile), then its orig node in the place of @c's
 * in one step (rhashtable_replace_fast(): a lookup finds one or the
 * other), then @c's reply node out if it is not replaced. @n is not
 * confirmed yet. On an error nothing of @n is in the table (@n is freed),
 * and @c is still all there.
 */
static int mmb_conn_swap(struct mmb_conns *mc, struct mmb_conn *c, struct mmb_conn *n,
			 const struct mmb_nat_plan *p)
{
	bool same = mmb_tuple_equal(&n->reply.t, &c->reply.t);
	unsigned int tries = 2;
	int err;

	for (;;) {
		err = same ? rhashtable_replace_fast(&mc->ht, &c->reply.node, &n->reply.node,
						     mmb_conn_params) :
			     rhashtable_lookup_insert_fast(&mc->ht, &n->reply.node,
							   mmb_conn_params);
		if (err != -EEXIST)
			break;
		err = -EADDRNOTAVAIL;
		if (!p || !p->hi || !--tries || mmb_nat_pick(mc, n, p))
			break;
	}
	if (err) {
		mmb_conn_free(n);	/* no reader ever saw it */
		return err;
	}
	err = rhashtable_replace_fast(&mc->ht, &c->orig.node, &n->orig.node, mmb_conn_params);
	if (WARN_ON_ONCE(err)) {
		/* Readers may have found @n by its reply tuple: not confirmed, unused. */
		if (same)
			rhashtable_replace_fast(&mc->ht, &n->reply.node, &c->reply.node,
						mmb_conn_params);
		else
			rhashtable_remove_fast(&mc->ht, &n->reply.node, mmb_conn_params);
		call_rcu(&n->rcu, mmb_conn_free_rcu);
		return err;
	}
	if (!same)
		rhashtable_remove_fast(&mc->ht, &c->reply.node, mmb_conn_params);
	return 0;
}

/*
 * The first packet of @c, a connection an arriving rule started, leaves
 * by an enabled device (@skb's): it is judged by the leaving stateful
 * rules it matched too (@v's), as nf_conntrack's one entry meets the
 * forward and postrouting chains. One CPU claims the judgement; a copy
 * of the packet that meets @c meanwhile on another is dropped (it would
 * leave unmapped: mmb_conn_lookup()). Then:
 *
 * - a drop (and no accept) drops the packet and ends @c, as an
 *   unconfirmed conntrack entry dies with its packet: the next copy
 *   starts afresh;
 * - no leaving stateful rule left: @c is judged both ways as it is;
 * - otherwise @c is replaced in the table by a copy that holds their rules
 *   too and the source mapping they ask for (masquerade, mod ip-saddr,
 *   map, a shuffled source port), built on @c's own mapping: the mapping
 *   is in the reply tuple, the key of a node, which cannot change under
 *   readers of other CPUs. A connection whose source an arriving rule
 *   mapped keeps that mapping (nf_nat maps a source once); a leaving
 *   rule's destination mapping is not taken (routing chose the way);
 *   offsets a leaving rule asks for are taken only if @c has none.
 *
 * 0 (the packet goes on with @v), or -ENOSPC, -ENOMEM, -EAGAIN (another
 * CPU holds the judgement): the packet is dropped, and so is @c, but by
 * -EAGAIN.
 */
static int mmb_conn_bind(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			 const struct sk_buff *skb, struct mmb_verdict *v)
{
	struct mmb_nat_plan plan __uninitialized;
	struct mmb_tuple t __uninitialized;
	struct mmb_conn *c = v->conn, *n;
	bool had = test_bit(MMB_CONN_EXT, &c->status);
	/* @c's offsets left to this hook (nat.c, mmb_nat_manip()), not yet applied. */
	bool left = had && mmb_nat_offsets_out(c, v->dir);
	unsigned int i;
	int err, nat = 0;
	u32 gen = 0;

	if (test_and_set_bit(MMB_CONN_OUT_CLAIM, &c->status))
		return -EAGAIN;
	mmb_test_bind(mc, c);
	for (i = 0; i < v->nsf; i++)
		mmb_verdict_judge(v, v->sf[i]);
	if (v->drop && !v->accept) {
		mmb_conn_kill(mc, c, MMB_CSTAT_ENDED);
		return 0;
	}
	while (v->nsf && mmb_verdict_cut(v, v->sf[v->nsf - 1]->prio))
		v->nsf--;
	if (!v->nsf) {
		set_bit(MMB_CONN_OUT_DONE, &c->status);
		return 0;
	}
	if (v->sf_lost || c->nrules + v->nsf > MMB_CONN_RULES) {
		mmb_conn_stat(mc, MMB_CSTAT_MANY_RULES);
		net_warn_ratelimited("mmb: a connection matched more than %u stateful rules, dropping it\n",
				     MMB_CONN_RULES);
		mmb_conn_kill(mc, c, MMB_CSTAT_ENDED);
		return -ENOSPC;
	}
	/* The tuple as @c maps it so far; its source, unless already mapped. */
	mmb_tuple_invert(&c->reply.t, &t);
	t.dir = MMB_DIR_ORIG;
	if (!memcmp(&t.src, &c->orig.t.src, sizeof(t.src)) && t.sport == c->orig.t.sport) {
		gen = mmb_conn_masq_gen(mc);
		nat = mmb_nat_plan(v, &t, skb->dev, &plan);
		if (nat < 0) {
			mmb_conn_kill(mc, c, MMB_CSTAT_NAT_FULL);
			return -ENOSPC;
		}
		/*
		 * Its destination stays where routing sent it (nft's postrouting
		 * maps no destination either); offsets only if it has none.
		 */
		if (nat) {
			plan.m.dst = t.dst;
			plan.m.dport = t.dport;
			if (!plan.src)
				plan.hi = 0;
			if (had)
				plan.what = 0;
		}
	}
	n = mmb_conn_copy(mc, c, v, nat ? plan.what : 0);
	if (!n) {
		mmb_conn_kill(mc, c, MMB_CSTAT_NOMEM);
		return -ENOMEM;
	}
	if (nat) {
		mmb_tuple_invert(&plan.m, &n->reply.t);
		n->reply.t.dir = MMB_DIR_REPLY;
		if (mmb_nat_pick(mc, n, &plan)) {
			mmb_conn_free(n);
			mmb_conn_kill(mc, c, MMB_CSTAT_NAT_FULL);
			return -ENOSPC;
		}
		if (plan.masq)
			__set_bit(MMB_CONN_MASQ, &n->status);
	}
	mmb_tuple_invert(&n->orig.t, &t);
	if (!mmb_tuple_equal(&t, &n->reply.t)) {
		__set_bit(MMB_CONN_MAPPED, &n->status);
		/* Its source is mapped here, and where replies leave, if enabled. */
		mmb_conn_snat_where(n, skb, true);
		/* New offsets: where this packet gets them, as others judged with @c. */
		if (!had)
			mmb_nat_offsets_where(n);
	}
	/* Ended meanwhile (a flush, its rule deleted): its packet goes too. */
	if (test_and_set_bit(MMB_CONN_DYING, &c->status)) {
		mmb_conn_free(n);
		return -ENOSPC;
	}
	err = mmb_conn_swap(mc, c, n, nat ? &plan : NULL);
	if (err) {
		mmb_conn_stat(mc, err == -EADDRNOTAVAIL ? MMB_CSTAT_NAT_FULL : MMB_CSTAT_NOMEM);
		mmb_conn_unlink(mc, c);
		return err == -EADDRNOTAVAIL ? -ENOSPC : -ENOMEM;
	}
	if (nat > 0 && plan.masq)
		mmb_conn_masq_recheck(mc, gen);
	/* @n holds @c's place in the count; @c goes after a grace period. */
	set_bit(MMB_CONN_UNLINKED, &c->status);
	mmb_cc_move(n, c);
	mmb_conn_event(mc, c, MMB_CMD_CONN_DESTROY);
	call_rcu(&c->rcu, mmb_conn_free_rcu);
	mmb_conn_event(mc, n, MMB_CMD_CONN_NEW);
	if (!mmb_conn_confirm(mc, n))
		return -ENOSPC;
	v->conn = n;
	/*
	 * This packet's destination was mapped as it arrived, and @c's
	 * offsets unless left to this hook; its source is mapped now, and
	 * the offsets not yet applied (@c's left, or new ones) are.
	 */
	v->manip = MMB_MANIP_SRC | ((!had || left) && test_bit(MMB_CONN_EXT, &n->status) ?
				    MMB_MANIP_DST : 0);
	v->bound = true;
	return 0;
}

/*
 * A leaving packet of no connection, which mmb saw arrive: is it a packet
 * of a mapped connection whose tuple the table holds only inverted, as
 * one mapped whole as it arrived leaves (its destination mapped, or a
 * reply's with the source: nat.c, mmb_nat_manip())? Then it is that
 * connection's, in @v, and was judged by it as it arrived: it starts no
 * other (whose reply tuple would be that one's: refused, and the packet
 * dropped), and nothing of its mapping is left to do. Under RCU.
 */
static bool mmb_conn_mapped_in(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			       const struct sk_buff *skb, struct mmb_verdict *v)
{
	struct mmb_tuple t __uninitialized, r __uninitialized;
	struct mmb_conn *c;
	u8 dir;

	if (!mmb_conn_tuple(pkt, &t) || !mmb_judged_in(skb))
		return false;
	mmb_tuple_invert(&t, &r);
	c = mmb_conn_find(mc, &r, &dir);
	if (!c || !test_bit(MMB_CONN_MAPPED, &c->status))
		return false;
	/* A copy of its first packet, whose leaving judgement another CPU holds. */
	if (dir == MMB_DIR_REPLY && mmb_conn_out_held(c)) {
		v->held = true;
		return false;
	}
	dir = dir == MMB_DIR_ORIG ? MMB_DIR_REPLY : MMB_DIR_ORIG;
	if (!mmb_conn_alive(mc, c, mmb_conn_now()) || mmb_conn_awaits(c, dir, v->outsf))
		return false;
	v->conn = c;
	v->dir = dir;
	v->seen = true;
	return true;
}

/*
 * After classification: a packet of a known connection gets its rules and
 * moves its state on; one that matched stateful rules starts one; the
 * first packet of one an arriving rule started is judged leaving too
 * (mmb_conn_bind()). 0, or -ENOSPC (the table is full), -ENOMEM or
 * -EAGAIN (it would leave unmapped): the packet is to be dropped.
 */
int mmb_conn_verdict(struct mmb_conns *mc, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb, struct mmb_verdict *v)
{
	struct mmb_conn *c = v->conn;
	const struct mmb_rule *rule;
	unsigned int i;

	if (!c) {
		/* With stateful leaving rules, see whether it is the first of one mapped whole. */
		if (!v->nsf && !(v->out && v->outsf))
			return 0;
		if (v->out && mmb_conn_mapped_in(mc, pkt, skb, v)) {
			/* Its first packet, which an arriving rule mapped whole. */
			if (mmb_conn_unjudged(v->conn, v->dir))
				return mmb_conn_bind(mc, pkt, skb, v);
			mmb_verdict_stateless(v);
			return 0;
		}
		if (v->held)
			return -EAGAIN;
		return v->nsf ? mmb_conn_start(mc, pkt, skb, v) : 0;
	}
	/* Its rules judged it, and it moved the state, as it arrived. */
	if (v->out && v->seen) {
		if (v->bind)
			return mmb_conn_bind(mc, pkt, skb, v);
		/*
		 * Another CPU claimed its leaving judgement since the lookup,
		 * and may have replaced it: a copy of its first packet would
		 * leave unmapped.
		 */
		if (unlikely(v->dir == MMB_DIR_ORIG && !v->related && mmb_conn_out_held(c)))
			return -EAGAIN;
		return 0;
	}
	/* At their connection priority, which cuts off as any other. */
	for (i = 0; i < c->nrules; i++) {
		rule = mmb_rule_live(READ_ONCE(c->rules[i]));
		if (mmb_verdict_cut(v, rule->conn_prio))
			continue;
		mmb_stats_count(rule->stats, skb);
		mmb_verdict_judge_at(v, rule, rule->conn_prio);
		if (!v->related)
			mmb_verdict_rewrites_at(v, rule, rule->conn_prio);
	}
	/* A later fragment has no L4 header to move the state on with. */
	if (pkt->key.b[MMB_IMG_FLAGS] & MMB_KF_LATER)
		mmb_conn_count(c, v->dir, skb);
	else if (!v->related)
		mmb_conn_update(mc, c, v->dir, pkt, skb);
	return 0;
}

/* --- the table's life, flush and GC ---------------------------------------- */

/* End the connections that are expired or lost a rule, or, with @all, every one. */
/* Is the mapped source of masqueraded @c still an address of the host? */
static bool mmb_conn_masq_ok(struct mmb_conns *mc, const struct mmb_conn *c)
{
	const struct mmb_tuple *r = &c->reply.t;

	if (r->family == 4)
		return inet_addr_type(mc->net, r->dst.ip) == RTN_LOCAL;
#if IS_REACHABLE(CONFIG_IPV6)
	return ipv6_chk_addr(mc->net, &r->dst.in6, NULL, 0);
#else
	return false;
#endif
}

static void mmb_conns_sweep(struct mmb_conns *mc, bool all)
{
	struct rhashtable_iter iter;
	struct mmb_conn_node *n;
	unsigned int i;

	rhashtable_walk_enter(&mc->ht, &iter);
	do {
		rhashtable_walk_start(&iter);
		for (i = 0; i < MMB_GC_SLICE; i++) {
			n = rhashtable_walk_next(&iter);
			if (IS_ERR(n))
				continue;	/* -EAGAIN: a resize; the walk goes on */
			if (!n)
				break;
			if (all)
				mmb_conn_kill(mc, mmb_conn_of(n), MMB_CSTAT_ENDED);
			else if (test_bit(MMB_CONN_MASQ, &mmb_conn_of(n)->status) &&
				 !mmb_conn_masq_ok(mc, mmb_conn_of(n)))
				mmb_conn_kill(mc, mmb_conn_of(n), MMB_CSTAT_ENDED);
			else
				mmb_conn_alive(mc, mmb_conn_of(n), mmb_conn_now());
		}
		rhashtable_walk_stop(&iter);
		cond_resched();
	} while (n);
	rhashtable_walk_exit(&iter);
}

/*
 * Drop the routes offloaded connections cache through @dev, or all of
 * them for good (@dev NULL: the namespace is leaving). Process context.
 */
void mmb_conns_fast_drop(struct mmb_conns *mc, const struct net_device *dev)
{
	struct rhashtable_iter iter;
	struct mmb_conn_node *n;
	struct mmb_conn *c;

	if (!atomic_read(&mc->count))
		return;
	/* An unrelated device: no walk of a table of a million connections under RTNL. */
	if (dev && !mmb_fast_routes_through(dev))
		return;
	mmb_test_fast_walk(mc);
	rhashtable_walk_enter(&mc->ht, &iter);
	rhashtable_walk_start(&iter);
	while ((n = rhashtable_walk_next(&iter))) {
		if (IS_ERR(n))
			continue;	/* -EAGAIN: a resize; the walk goes on */
		c = mmb_conn_of(n);
		if (n == &c->orig && test_bit(MMB_CONN_OFFLOAD, &c->status))
			mmb_fast_drop(mmb_conn_ext(c), dev);
		if (need_resched()) {
			rhashtable_walk_stop(&iter);
			cond_resched();
			rhashtable_walk_start(&iter);
		}
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

void mmb_conns_flush(struct mmb_conns *mc)
{
	mmb_conns_sweep(mc, true);
}

/* Rules ended: so do their connections, now. */
void mmb_conns_kick(struct mmb_conns *mc)
{
	mmb_conns_sweep(mc, false);
}

static void mmb_conns_masq_work(struct work_struct *work)
{
	mmb_conns_kick(container_of(work, struct mmb_conns, masq));
}

/*
 * An address left a device of some namespace: its masqueraded connections
 * end (as nf_nat_masquerade's notifiers have it), in a walk of the
 * namespace's table, which also ends what expired. The inet6addr chain is
 * atomic: the walk is a work item either way.
 */
static void mmb_masq_lost(struct net_device *dev, unsigned long event)
{
	struct mmb_net *mn;

	if (event != NETDEV_DOWN)
		return;
	mn = mmb_pernet(dev_net(dev));
	if (mn && mn->conns.stats) {
		smp_mb__before_atomic();	/* the address gone, then counted */
		atomic_inc(&mn->conns.masq_gen);
		smp_mb__after_atomic();		/* counted, then the walk (mmb_conn_masq_gen()) */
		schedule_work(&mn->conns.masq);
	}
}

static int mmb_inetaddr_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	mmb_masq_lost(((struct in_ifaddr *)ptr)->ifa_dev->dev, event);
	return NOTIFY_DONE;
}

static int mmb_inet6addr_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	mmb_masq_lost(((struct inet6_ifaddr *)ptr)->idev->dev, event);
	return NOTIFY_DONE;
}

static struct notifier_block mmb_inetaddr_nb = { .notifier_call = mmb_inetaddr_event };
static struct notifier_block mmb_inet6addr_nb = { .notifier_call = mmb_inet6addr_event };

int mmb_masq_notifiers_register(void)
{
	int err = register_inetaddr_notifier(&mmb_inetaddr_nb);

	if (err)
		return err;
#if IS_REACHABLE(CONFIG_IPV6)
	err = register_inet6addr_notifier(&mmb_inet6addr_nb);
	if (err)
		unregister_inetaddr_notifier(&mmb_inetaddr_nb);
#endif
	return err;
}

void mmb_masq_notifiers_unregister(void)
{
#if IS_REACHABLE(CONFIG_IPV6)
	unregister_inet6addr_notifier(&mmb_inet6addr_nb);
#endif
	unregister_inetaddr_notifier(&mmb_inetaddr_nb);
}

/*
 * One run of the GC: the buckets from where the last run stopped, until
 * @budget nodes are seen. True when it reached the end of the table. A
 * resize moves every node (a new seed): while one is under way the walk
 * waits, and after it goes on at the same share of the new table, so
 * that a table that keeps growing and shrinking is still walked to its
 * end; what moved behind the walk is checked by the next one (and by
 * every lookup that finds it).
 */
bool mmb_conns_gc_run(struct mmb_conns *mc, unsigned int budget)
{
	const struct bucket_table *tbl;
	struct mmb_conn_node *n;
	u32 now = mmb_conn_now();
	struct rhash_head *pos;
	unsigned int seen = 0;
	bool end;

	rcu_read_lock();
	tbl = rht_dereference_rcu(mc->ht.tbl, &mc->ht);
	/* A rehash under way moves nodes out of @tbl: the walk waits for its end. */
	if (rcu_access_pointer(tbl->future_tbl)) {
		rcu_read_unlock();
		return false;
	}
	if (tbl->size != mc->gc_size) {
		mc->gc_slot = mc->gc_size ? (u64)mc->gc_slot * tbl->size / mc->gc_size : 0;
		mc->gc_size = tbl->size;
	}
	while (mc->gc_slot < tbl->size && seen < budget) {
		rht_for_each_entry_rcu(n, pos, tbl, mc->gc_slot, node) {
			mmb_conn_alive(mc, mmb_conn_of(n), now);
			seen++;
		}
		mc->gc_slot++;
	}
	end = mc->gc_slot >= tbl->size;
	if (end)
		mc->gc_slot = 0;
	rcu_read_unlock();
	return end;
}

/* Walk the whole table once, in runs of @budget nodes (tests). */
void mmb_conns_gc(struct mmb_conns *mc, unsigned int budget)
{
	mutex_lock(&mc->lock);
	while (!mmb_conns_gc_run(mc, budget))
		cond_resched();
	mutex_unlock(&mc->lock);
}

static void mmb_conns_gc_work(struct work_struct *work)
{
	struct mmb_conns *mc = container_of(to_delayed_work(work), struct mmb_conns, gc);
	bool end;

	mutex_lock(&mc->lock);
	end = mmb_conns_gc_run(mc, MMB_GC_SLICE);
	mutex_unlock(&mc->lock);
	/* Never for long at a time; idle once the table is empty. */
	if (!end)
		queue_delayed_work(system_power_efficient_wq, &mc->gc, 1);
	else if (atomic_read(&mc->count))
		queue_delayed_work(system_power_efficient_wq, &mc->gc, MMB_GC_INTERVAL);
}

void mmb_conns_stats(struct mmb_conns *mc, u64 *n)
{
	unsigned int i;
	int cpu;

	memset(n, 0, MMB_CSTAT_MAX * sizeof(*n));
	for_each_possible_cpu(cpu)
		for (i = 0; i < MMB_CSTAT_MAX; i++)
			n[i] += READ_ONCE(per_cpu_ptr(mc->stats, cpu)->n[i]);
}

/*
 * The default limit: 1/32768 of memory, as many as a 256-byte entry takes
 * 1/128 of; in a namespace other than the initial one (@shared), no more
 * than the module's cap.
 */
u32 mmb_conns_default_max(bool shared)
{
	u64 n = ((u64)totalram_pages() << PAGE_SHIFT) >> 15;

	if (shared)
		n = min_t(u64, n, READ_ONCE(mmb_conn_max_total));
	return clamp_t(u64, n, 1024, MMB_CONN_MAX_LIMIT);
}

/*
 * The default of the module's cap, sized as nf_conntrack_max: one per
 * 16 KiB of memory for every 8 bytes (a hash bucket's) it takes, 65536
 * above 1 GiB, 262144 above 4 GiB (64-bit), 1024 at least.
 */
u32 mmb_conn_default_max_total(void)
{
	u64 mem = (u64)totalram_pages() << PAGE_SHIFT;
	u64 n = mem / 16384 / sizeof(void *);

	if (IS_ENABLED(CONFIG_64BIT) && mem > 4ULL * SZ_1G)
		n = 262144;
	else if (mem > SZ_1G)
		n = 65536;
	return clamp_t(u64, n, 1024, MMB_CONN_MAX_LIMIT);
}

int mmb_conns_init(struct mmb_conns *mc, struct net *net)
{
	int err;

	/* First: an address notifier may queue it once @stats is set. */
	INIT_WORK(&mc->masq, mmb_conns_masq_work);
	mc->stats = alloc_percpu(struct mmb_conn_stats);
	if (!mc->stats)
		return -ENOMEM;
	err = rhashtable_init(&mc->ht, &mmb_conn_params);
	if (err) {
		free_percpu(mc->stats);
		return err;
	}
	atomic_set(&mc->count, 0);
	mc->shared = !net_eq(net, &init_net);
	mc->max = mmb_conns_default_max(mc->shared);
	mc->tcp_loose = true;
	mc->rpf = true;
	mmb_conn_timeouts_init(mc);
	mc->net = net;
	mutex_init(&mc->lock);
	INIT_DELAYED_WORK(&mc->gc, mmb_conns_gc_work);
	mc->gc_slot = 0;
	mc->gc_size = 0;
	/* The creator's (not insmod's for the initial namespace: no cgroup's). */
	mc->memcg = net != &init_net && current->mm ? get_mem_cgroup_from_mm(current->mm) : NULL;
	return 0;
}

/* Once no device reaches the table: nothing creates connections any more. */
void mmb_conns_exit(struct mmb_conns *mc)
{
	cancel_delayed_work_sync(&mc->gc);
	cancel_work_sync(&mc->masq);
	mmb_conns_flush(mc);
	rhashtable_destroy(&mc->ht);
	mem_cgroup_put(mc->memcg);
	mutex_destroy(&mc->lock);
	free_percpu(mc->stats);
}

int __init mmb_conn_cache_init(void)
{
	get_random_bytes(&mmb_conn_secret, sizeof(mmb_conn_secret));
	/* The cache lines of struct mmb_conn, as its comment has them. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     (offsetof(struct mmb_conn, reply) != 64 ||
		      offsetof(struct mmb_conn, packets) != 128 ||
		      offsetof(struct mmb_conn, tcp) != 192 || sizeof(struct mmb_conn) > 256));
	/* The offloaded connection's routes within the extension's slab object. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) && sizeof(struct mmb_conn_ext) > 320);
	mmb_conn_cache = kmem_cache_create("mmb_conn", sizeof(struct mmb_conn), 0,
					   SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT, NULL);
	if (!mmb_conn_cache)
		return -ENOMEM;
	mmb_conn_ext_cache = kmem_cache_create("mmb_conn_ext", sizeof(struct mmb_conn_ext), 0,
					       SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT, NULL);
	if (!mmb_conn_ext_cache) {
		kmem_cache_destroy(mmb_conn_cache);
		return -ENOMEM;
	}
	return 0;
}

/* Bytes a connection takes in its slab (the table's buckets aside). */
unsigned int mmb_conn_size(void)
{
	return kmem_cache_size(mmb_conn_cache);
}

/* After every connection is freed (rcu_barrier()). */
void mmb_conn_cache_exit(void)
{
	kmem_cache_destroy(mmb_conn_ext_cache);
	kmem_cache_destroy(mmb_conn_cache);
}
