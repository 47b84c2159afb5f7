// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: reject, a drop that answers. Only packets a reject rule drops come
 * here (hook.c), with BH off under RCU, at either hook:
 *
 *   mmb_reject_answer()  which answer, or none (never to an ICMP error, a
 *                        RST, a later fragment, a multicast or broadcast
 *                        address, a source no answer can go to)
 *   mmb_reject_allow()   the namespace's budget, a lockless token bucket
 *   checksum             a packet whose TCP or UDP checksum is wrong is
 *                        not answered (it may not be what it says), nor
 *                        one ip_rcv() or ipv6_rcv() drops as corrupt (an
 *                        IPv4 header checksum wrong, a length past the
 *                        packet's end), nor one from the host's own address
 *   RST                  built here (mmb_reject_rst()), routed back to the
 *                        source, sent by ip_local_out() / ip6_local_out()
 *   ICMP                 __icmp_send() / icmp6_send(): the kernel's own,
 *                        with its quote, source choice and rate limits; an
 *                        arriving IPv4 packet gets the input route ip_rcv()
 *                        would give it first (icmp_send() needs one), a
 *                        packet socket's leaving one (from the host's own
 *                        address only) its output route
 *
 * Nothing here is a netfilter module's: mmb needs neither nf_reject_ipv4
 * nor nf_tables nor nf_conntrack. Leaving packets (the egress hook, in
 * __dev_queue_xmit() before the qdisc or a packet socket's qdisc bypass,
 * no lock held) are answered the same way; an answer is never answered,
 * so one cannot start a loop.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/moduleparam.h>
#include <net/addrconf.h>
#include <net/icmp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/tcp.h>

#include "reject.h"

/* As the kernel's net.ipv4.icmp_msgs_per_sec and icmp_msgs_burst. */
unsigned int mmb_reject_rate = 1000;
module_param_named(reject_rate, mmb_reject_rate, uint, 0644);
MODULE_PARM_DESC(reject_rate, "Answers (RSTs, ICMP errors) a second per namespace (0: no limit)");
unsigned int mmb_reject_burst = 50;
module_param_named(reject_burst, mmb_reject_burst, uint, 0644);
MODULE_PARM_DESC(reject_burst, "Answers in a burst per namespace");

void mmb_reject_limit_init(struct mmb_reject_limit *l)
{
	mmb_tokens_init(&l->b, READ_ONCE(mmb_reject_burst));
}

/* Take a token of the namespace's budget (bucket.c): only rejected packets touch it. */
bool mmb_reject_allow(struct mmb_reject_limit *l)
{
	return mmb_tokens_take(&l->b, READ_ONCE(mmb_reject_rate), READ_ONCE(mmb_reject_burst));
}

/* Is @type an ICMP message never answered: an error, or one unknown (as icmp_send())? */
static bool mmb_icmp_is_err(u8 type)
{
	return type > NR_ICMP_TYPES || icmp_is_err(type);
}

/* Can an IPv4 answer go from @daddr back to @saddr? */
static bool mmb_reject_addrs4(__be32 saddr, __be32 daddr, bool out)
{
	if (ipv4_is_multicast(saddr) || ipv4_is_lbcast(saddr) || ipv4_is_zeronet(saddr) ||
	    ipv4_is_multicast(daddr) || ipv4_is_lbcast(daddr) || ipv4_is_zeronet(daddr))
		return false;
	/* Loopback sources do not arrive from the wire; the host's own may leave. */
	return out || !ipv4_is_loopback(saddr);
}

/*
 * Can an IPv6 answer go from @daddr back to @saddr? Neither loopback
 * (ipv6_rcv() drops it from the wire; a RST from ::1 would leave by it)
 * nor IPv4-mapped.
 */
static bool mmb_reject_addrs6(const struct in6_addr *saddr, const struct in6_addr *daddr)
{
	int st = ipv6_addr_type(saddr), dt = ipv6_addr_type(daddr);
	int never = IPV6_ADDR_MULTICAST | IPV6_ADDR_LOOPBACK | IPV6_ADDR_MAPPED;

	return !(st & never) && st != IPV6_ADDR_ANY && !(dt & never) && dt != IPV6_ADDR_ANY;
}

u8 mmb_reject_answer(const struct sk_buff *skb, const struct mmb_pkt *pkt, u8 how, bool out)
{
	u8 flags = pkt->key.b[MMB_IMG_FLAGS], l4 = pkt->key.b[MMB_IMG_L4PROTO];
	bool whole = flags & MMB_KF_L4;
	u8 buf[40];
	const u8 *h;

	if (flags & MMB_KF_LATER)
		return MMB_REJECT_DEFAULT;
	/* Frames to a link-layer broadcast or multicast address. */
	if (!out && skb->pkt_type != PACKET_HOST)
		return MMB_REJECT_DEFAULT;
	if (pkt->key.b[MMB_IMG_FAMILY] == 4) {
		h = skb_header_pointer(skb, 0, sizeof(struct iphdr), buf);
		if (!h || !mmb_reject_addrs4(((const struct iphdr *)h)->saddr,
					     ((const struct iphdr *)h)->daddr, out))
			return MMB_REJECT_DEFAULT;
	} else {
		h = skb_header_pointer(skb, 0, sizeof(struct ipv6hdr), buf);
		if (!h || !mmb_reject_addrs6(&((const struct ipv6hdr *)h)->saddr,
					     &((const struct ipv6hdr *)h)->daddr))
			return MMB_REJECT_DEFAULT;
	}
	if (l4 == IPPROTO_TCP && whole) {
		h = skb_header_pointer(skb, pkt->l4off, sizeof(struct tcphdr), buf);
		if (!h || ((const struct tcphdr *)h)->rst)
			return MMB_REJECT_DEFAULT;
		return how == MMB_REJECT_DEFAULT ? MMB_REJECT_TCP_RESET : how;
	}
	/* An ICMP error's header is all it takes to know it is one. */
	if (l4 == IPPROTO_ICMP || l4 == IPPROTO_ICMPV6) {
		h = skb_header_pointer(skb, pkt->l4off, 1, buf);
		if (!h || (l4 == IPPROTO_ICMP ? mmb_icmp_is_err(*h) : !(*h & ICMPV6_INFOMSG_MASK)))
			return MMB_REJECT_DEFAULT;
	}
	/* A rule "with tcp-reset" judges TCP only: a TCP packet without a whole header. */
	if (how == MMB_REJECT_TCP_RESET)
		return MMB_REJECT_DEFAULT;
	return how == MMB_REJECT_DEFAULT ? MMB_REJECT_PORT_UNREACH : how;
}

/*
 * Would ip_rcv() or ipv6_rcv() take @pkt's IP header: as long as the
 * packet it says (GSO's BIG TCP packets say 0), for IPv4 with its
 * checksum right? A corrupt one's source may be anyone's.
 */
static bool mmb_reject_ip_ok(const struct sk_buff *skb, const struct mmb_pkt *pkt)
{
	union {
		struct iphdr ip;
		struct ipv6hdr ip6;
		u8 opts[60];
	} _h;
	const struct ipv6hdr *ip6;
	const struct iphdr *iph;
	u32 len;

	if (pkt->key.b[MMB_IMG_FAMILY] == 4) {
		iph = skb_header_pointer(skb, 0, sizeof(_h.ip), &_h.ip);
		if (!iph || iph_totlen(skb, iph) > skb->len)
			return false;
		iph = skb_header_pointer(skb, 0, iph->ihl * 4, &_h);
		return iph && !ip_fast_csum(iph, iph->ihl);
	}
	ip6 = skb_header_pointer(skb, 0, sizeof(_h.ip6), &_h.ip6);
	if (!ip6)
		return false;
	len = ipv6_payload_len(skb, ip6);
	return !len || sizeof(*ip6) + len <= skb->len;
}

/*
 * Is @pkt's IP header one the stack would take (mmb_reject_ip_ok()), and
 * its TCP or UDP checksum right (or not to be checked: a fragment)?
 */
bool mmb_reject_csum_ok(const struct sk_buff *skb, const struct mmb_pkt *pkt)
{
	u8 flags = pkt->key.b[MMB_IMG_FLAGS], l4 = pkt->key.b[MMB_IMG_L4PROTO];
	u32 len = pkt->end - pkt->l4off;
	union {
		struct iphdr ip;
		struct ipv6hdr ip6;
		struct udphdr uh;
	} _h;
	const struct ipv6hdr *ip6;
	const struct udphdr *uh;
	__wsum csum;

	if (!mmb_reject_ip_ok(skb, pkt))
		return false;
	if ((l4 != IPPROTO_TCP && l4 != IPPROTO_UDP) || !(flags & MMB_KF_L4) ||
	    (flags & MMB_KF_FRAG) || skb_csum_unnecessary(skb))
		return true;
	if (l4 == IPPROTO_UDP && pkt->key.b[MMB_IMG_FAMILY] == 4) {
		uh = skb_header_pointer(skb, pkt->l4off, sizeof(_h.uh), &_h.uh);
		if (!uh || !uh->check)
			return true;
	}
	csum = skb_checksum(skb, pkt->l4off, len, 0);
	if (pkt->key.b[MMB_IMG_FAMILY] == 4) {
		const struct iphdr *iph = skb_header_pointer(skb, 0, sizeof(_h.ip), &_h.ip);

		return iph && !csum_tcpudp_magic(iph->saddr, iph->daddr, len, l4, csum);
	}
	ip6 = skb_header_pointer(skb, 0, sizeof(_h.ip6), &_h.ip6);
	return ip6 && !csum_ipv6_magic(&ip6->saddr, &ip6->daddr, len, l4, csum);
}

/* The RST's TCP header for the segment @oth with @payload bytes of data (RFC 793). */
static void mmb_reject_rst_tcp(struct tcphdr *th, const struct tcphdr *oth, u32 payload)
{
	memset(th, 0, sizeof(*th));
	th->source = oth->dest;
	th->dest = oth->source;
	th->doff = sizeof(*th) / 4;
	th->rst = 1;
	if (oth->ack) {
		th->seq = oth->ack_seq;
	} else {
		th->ack = 1;
		th->ack_seq = htonl(ntohl(oth->seq) + oth->syn + oth->fin + payload);
	}
}

/*
 * The RST answering TCP segment @pkt of @skb (network header at
 * skb->data): addresses and ports swapped, checksums complete, TTL or hop
 * limit 64 until its route says otherwise; NULL without memory.
 */
struct sk_buff *mmb_reject_rst(const struct sk_buff *skb, const struct mmb_pkt *pkt)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	unsigned int nh = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	union {
		struct iphdr ip;
		struct ipv6hdr ip6;
	} _oh;
	struct tcphdr _oth, *th;
	const struct tcphdr *oth;
	struct sk_buff *nskb;
	const void *oh;
	__wsum csum;

	oh = skb_header_pointer(skb, 0, nh, &_oh);
	oth = skb_header_pointer(skb, pkt->l4off, sizeof(_oth), &_oth);
	if (!oh || !oth)
		return NULL;
	nskb = alloc_skb(LL_MAX_HEADER + nh + sizeof(*th), GFP_ATOMIC);
	if (!nskb)
		return NULL;
	skb_reserve(nskb, LL_MAX_HEADER);
	skb_reset_network_header(nskb);
	skb_put(nskb, nh);
	skb_set_transport_header(nskb, nh);
	th = skb_put(nskb, sizeof(*th));
	mmb_reject_rst_tcp(th, oth, pkt->end - pkt->l7off);
	csum = csum_partial(th, sizeof(*th), 0);
	if (v4) {
		const struct iphdr *oiph = oh;
		struct iphdr *iph = ip_hdr(nskb);

		*iph = (struct iphdr){
			.version = 4, .ihl = sizeof(*iph) / 4, .ttl = 64,
			.tot_len = htons(nh + sizeof(*th)), .frag_off = htons(IP_DF),
			.protocol = IPPROTO_TCP, .saddr = oiph->daddr, .daddr = oiph->saddr,
		};
		th->check = csum_tcpudp_magic(iph->saddr, iph->daddr, sizeof(*th), IPPROTO_TCP,
					      csum);
		ip_send_check(iph);
		nskb->protocol = htons(ETH_P_IP);
	} else {
		const struct ipv6hdr *oip6 = oh;
		struct ipv6hdr *ip6 = ipv6_hdr(nskb);

		ip6_flow_hdr(ip6, 0, 0);
		ip6->payload_len = htons(sizeof(*th));
		ip6->nexthdr = IPPROTO_TCP;
		ip6->hop_limit = 64;
		ip6->saddr = oip6->daddr;
		ip6->daddr = oip6->saddr;
		th->check = csum_ipv6_magic(&ip6->saddr, &ip6->daddr, sizeof(*th), IPPROTO_TCP,
					    csum);
		nskb->protocol = htons(ETH_P_IPV6);
	}
	nskb->ip_summed = CHECKSUM_NONE;
	return nskb;
}

/* Route @nskb, an IPv4 RST, and send it. */
static void mmb_reject_send_rst4(struct net *net, struct sk_buff *nskb)
{
	struct tcphdr *th = tcp_hdr(nskb);
	struct iphdr *iph = ip_hdr(nskb);
	struct flowi4 fl4 = {
		.daddr = iph->daddr, .saddr = iph->saddr,
		.flowi4_proto = IPPROTO_TCP,
		/* From the destination's address: a forwarded packet's is not the host's. */
		.flowi4_flags = FLOWI_FLAG_ANYSRC,
		.fl4_sport = th->source, .fl4_dport = th->dest,
	};
	struct rtable *rt = ip_route_output_key(net, &fl4);

	if (IS_ERR(rt)) {
		kfree_skb(nskb);
		return;
	}
	skb_dst_set(nskb, &rt->dst);
	/* Never to a (subnet) broadcast source. */
	if (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)) {
		kfree_skb(nskb);
		return;
	}
	iph->ttl = ip4_dst_hoplimit(&rt->dst);
	ip_local_out(net, NULL, nskb);
}

/* Route @nskb, an IPv6 RST answering a packet of @dev, and send it. */
static void mmb_reject_send_rst6(struct net *net, const struct net_device *dev,
				 struct sk_buff *nskb)
{
	struct tcphdr *th = tcp_hdr(nskb);
	struct ipv6hdr *ip6 = ipv6_hdr(nskb);
	struct flowi6 fl6 = {
		.daddr = ip6->daddr, .saddr = ip6->saddr,
		.flowi6_proto = IPPROTO_TCP,
		.fl6_sport = th->source, .fl6_dport = th->dest,
	};
	struct dst_entry *dst;

	if (__ipv6_addr_needs_scope_id(ipv6_addr_type(&fl6.daddr)))
		fl6.flowi6_oif = dev->ifindex;
	dst = ip6_route_output(net, NULL, &fl6);
	if (dst->error) {
		dst_release(dst);
		kfree_skb(nskb);
		return;
	}
	skb_dst_set(nskb, dst);
	ip6->hop_limit = ip6_dst_hoplimit(dst);
	ip6_local_out(net, NULL, nskb);
}

/* The ICMP and ICMPv6 codes of each answer. */
static const u8 mmb_reject_icmp[MMB_REJECT_MAX + 1][2] = {
	[MMB_REJECT_PORT_UNREACH]	= { ICMP_PORT_UNREACH, ICMPV6_PORT_UNREACH },
	[MMB_REJECT_HOST_UNREACH]	= { ICMP_HOST_UNREACH, ICMPV6_ADDR_UNREACH },
	[MMB_REJECT_NET_UNREACH]	= { ICMP_NET_UNREACH, ICMPV6_NOROUTE },
	[MMB_REJECT_ADMIN_PROHIBITED]	= { ICMP_PKT_FILTERED, ICMPV6_ADM_PROHIBITED },
};

/*
 * A leaving frame without a route is a packet socket's (or one nft's
 * netdev fwd or dup sent): answered only if it comes from one of the
 * host's own addresses, an IPv4 one given the output route the host would
 * choose for it first.
 */
static bool mmb_reject_unrouted(struct sk_buff *skb, bool v4)
{
	struct net *net = dev_net(skb->dev);
	const struct iphdr *iph;
	struct flowi4 fl4 = {};
	struct rtable *rt;

	if (!v4)
		return ipv6_chk_addr(net, &ipv6_hdr(skb)->saddr, NULL, 0);
	iph = ip_hdr(skb);
	if (inet_addr_type_dev_table(net, skb->dev, iph->saddr) != RTN_LOCAL)
		return false;
	fl4.daddr = iph->daddr;
	fl4.saddr = iph->saddr;
	fl4.flowi4_oif = skb->dev->ifindex;
	fl4.flowi4_mark = skb->mark;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return false;
	skb_dst_set(skb, &rt->dst);
	return true;
}

/*
 * Send @answer about @skb, our own (not shared): an arriving IPv4 packet
 * first gets the route ip_rcv() would find (icmp_send() needs one), which
 * also says whether its destination is a broadcast and whether its source
 * is one the host would take there (a martian, rp_filter).
 */
static void mmb_reject_send(struct sk_buff *skb, const struct mmb_pkt *pkt, u8 answer,
			    bool out)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	struct ip_options opts = {};
	struct sk_buff *nskb;
	struct rtable *rt;

	/*
	 * From a driver or a packet socket's ring, the IP header may not all
	 * be in the linear part yet (icmp_send() wants it there).
	 */
	if (!pskb_may_pull(skb, v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)))
		return;
	/* From the wire with one of the host's own addresses as its source: forged. */
	if (!v4 && !out && ipv6_chk_addr(dev_net(skb->dev), &ipv6_hdr(skb)->saddr, NULL, 0))
		return;
	if (v4 && !out) {
		const struct iphdr *iph = ip_hdr(skb);

		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		skb_dst_drop(skb);
		if (ip_route_input_noref(skb, iph->daddr, iph->saddr, iph->tos, skb->dev))
			return;
	}
	if (out && !skb_dst(skb) && !mmb_reject_unrouted(skb, v4))
		return;
	if (v4) {
		rt = skb_rtable(skb);
		if (!rt || (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)))
			return;
		/*
		 * Nor from a subnet's broadcast address, which neither the
		 * route nor icmp_send() refuses: the answer would go to every
		 * host of the subnet (RFC 1812 4.3.2.7).
		 */
		if (inet_addr_type_dev_table(dev_net(skb->dev), skb->dev,
					     ip_hdr(skb)->saddr) == RTN_BROADCAST)
			return;
	}
	if (answer == MMB_REJECT_TCP_RESET) {
		nskb = mmb_reject_rst(skb, pkt);
		if (nskb && v4)
			mmb_reject_send_rst4(dev_net(skb->dev), nskb);
		else if (nskb)
			mmb_reject_send_rst6(dev_net(skb->dev), skb->dev, nskb);
		return;
	}
	/* The quote is the packet's, without the link layer's padding. */
	if (skb->len > pkt->end && pskb_trim_rcsum(skb, pkt->end))
		return;
	if (v4) {
		__icmp_send(skb, ICMP_DEST_UNREACH, mmb_reject_icmp[answer][0], 0, &opts);
	} else {
		struct inet6_skb_parm parm = {
			.iif = out ? skb->skb_iif : skb->dev->ifindex,
		};

		__icmpv6_send(skb, ICMPV6_DEST_UNREACH, mmb_reject_icmp[answer][1], 0, &parm);
	}
}

/*
 * Answer @skb, which a reject rule (@how, enum mmb_reject) drops, arriving
 * or @out leaving; network header at skb->data. The caller drops @skb
 * after; a shared one is answered from a clone.
 */
void mmb_reject(struct mmb_reject_limit *l, struct sk_buff *skb, const struct mmb_pkt *pkt,
		u8 how, bool out)
{
	u8 answer = mmb_reject_answer(skb, pkt, how, out);
	struct sk_buff *nskb;

	/*
	 * The budget before the checksum: under a flood, once it is spent, a
	 * packet costs two reads here and nothing more.
	 */
	if (answer == MMB_REJECT_DEFAULT || !mmb_reject_allow(l) ||
	    !mmb_reject_csum_ok(skb, pkt))
		return;
	if (!skb_shared(skb)) {
		mmb_reject_send(skb, pkt, answer, out);
		return;
	}
	nskb = skb_clone(skb, GFP_ATOMIC);
	if (!nskb)
		return;
	mmb_reject_send(nskb, pkt, answer, out);
	consume_skb(nskb);
}
