// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: parsing a received packet into the canonical header image. Every
 * read is bounds-checked with skb_header_pointer(), so paged, cloned and
 * truncated skbs are fine; nothing is pulled or written here. Its copy
 * buffers are only read once filled: __uninitialized spares them the
 * kernels' automatic zeroing on every packet.
 *
 * A packet is as long as the stack will take it to be: IPv4's total length
 * or IPv6's payload length, or, when GRO built a BIG TCP packet (a length
 * of 0), the skb's; offsets are 32 bits. Fragments that would hide the L4
 * header from the rules are refused, as iptables refuses them (RFC 1858,
 * RFC 3128, RFC 7112): a first fragment without the whole L4 header (TCP
 * options included), and a TCP fragment at offset 8 that overlaps the
 * first one's header. So is an IPv6 header chain longer than the parser
 * walks: rules could not see its L4 header.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "mmb.h"
#include "tcpopt.h"

#define MMB_MAX_EXTHDRS 16

/* The protocols whose L4 header rules look at. */
static bool mmb_l4_known(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6;
}

/* A first fragment that lacks its L4 header, or part of it. */
static int mmb_first_fragment(const struct mmb_pkt *pkt, u8 proto)
{
	if (mmb_l4_known(proto) && !(pkt->key.b[MMB_IMG_FLAGS] & MMB_KF_L4))
		return -EBADMSG;
	return 0;
}

/*
 * The fixed L4 header: bytes 0-3 and 4-19 go to their image slots. Fixed
 * sizes per protocol, so that every copy is a few moves.
 */
static __always_inline void mmb_parse_l4(const struct sk_buff *skb,
					 struct mmb_pkt *pkt, u8 proto)
{
	unsigned int hlen, l7;
	u8 buf[sizeof(struct tcphdr)] __uninitialized;
	const u8 *h;

	switch (proto) {
	case IPPROTO_TCP:
		hlen = sizeof(struct tcphdr);
		break;
	case IPPROTO_UDP:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		hlen = 8;
		break;
	default:
		return;
	}
	if (pkt->l4off + hlen > pkt->end)
		return;
	h = skb_header_pointer(skb, pkt->l4off, hlen, buf);
	if (!h)
		return;
	if (proto == IPPROTO_TCP) {
		l7 = pkt->l4off + (h[12] >> 4) * 4;
		if (l7 < pkt->l4off + hlen || l7 > pkt->end)
			return;		/* bad data offset: no L4 fields */
		memcpy(&pkt->key.b[MMB_IMG_L4_HI], h + 4, sizeof(struct tcphdr) - 4);
		pkt->l7off = l7;
		if (l7 > pkt->l4off + hlen)
			mmb_tcpopt_image(skb, pkt);
	} else {
		/* UDP payload after its header, ICMP's after type/code/csum */
		l7 = pkt->l4off + (proto == IPPROTO_UDP ? 8 : 4);
		memcpy(&pkt->key.b[MMB_IMG_L4_HI], h + 4, 4);
	}
	memcpy(&pkt->key.b[MMB_IMG_L4_LO], h, 4);
	pkt->l7off = l7;
	pkt->key.b[MMB_IMG_FLAGS] |= MMB_KF_L4;
}

static int mmb_parse_ipv4(const struct sk_buff *skb, struct mmb_pkt *pkt)
{
	struct iphdr buf __uninitialized;
	const struct iphdr *iph;
	unsigned int hlen, tot;

	iph = skb_header_pointer(skb, 0, sizeof(buf), &buf);
	if (!iph || iph->version != 4 || iph->ihl < 5)
		return -EINVAL;
	hlen = iph->ihl * 4;
	tot = iph_totlen(skb, iph);	/* 0 in a BIG TCP packet: skb->len */
	if (tot < hlen || skb->len < hlen)
		return -EINVAL;
	pkt->end = min(tot, skb->len);
	pkt->l4off = hlen;
	pkt->l7off = hlen;
	pkt->key.b[MMB_IMG_FAMILY] = 4;
	pkt->key.b[MMB_IMG_L4PROTO] = iph->protocol;
	memcpy(&pkt->key.b[MMB_IMG_IP4], iph, offsetof(struct iphdr, saddr));
	memcpy(&pkt->key.b[MMB_IMG_IP4_SADDR], &iph->saddr, 4);
	memcpy(&pkt->key.b[MMB_IMG_IP4_DADDR], &iph->daddr, 4);
	if (ip_is_fragment(iph)) {
		unsigned int offset = ntohs(iph->frag_off) & IP_OFFSET;

		pkt->key.b[MMB_IMG_FLAGS] |= MMB_KF_FRAG;
		pkt->fragid = ntohs(iph->id);
		if (offset) {
			pkt->key.b[MMB_IMG_FLAGS] |= MMB_KF_LATER;
			/* Bytes 8-15 of a TCP header: its flags (RFC 1858). */
			return offset == 1 && iph->protocol == IPPROTO_TCP ? -EBADMSG : 0;
		}
		/*
		 * The stack keeps a multiple of 8 bytes of a fragment before
		 * the last (ip_frag_queue()): the first is judged on those, or
		 * the bytes past them would be judged, and the next fragment's
		 * there reassembled (TCP options out of a rule's sight).
		 */
		pkt->end = hlen + ((pkt->end - hlen) & ~7U);
		mmb_parse_l4(skb, pkt, iph->protocol);
		return mmb_first_fragment(pkt, iph->protocol);
	}
	mmb_parse_l4(skb, pkt, iph->protocol);
	return 0;
}

/*
 * Walk the IPv6 extension headers from *@off to the upper-layer protocol,
 * *@next at *@off. 0: go on to the L4 header; 1: a later fragment, which
 * has none; -EBADMSG, -E2BIG: refused (see mmb_parse()).
 */
static int mmb_parse_exthdrs(const struct sk_buff *skb, struct mmb_pkt *pkt, u8 *next,
			     unsigned int *off, bool *first)
{
	unsigned int n, len;

	for (n = 0; ; n++) {
		u8 eb[8] __uninitialized;
		const u8 *eh;

		if (*next != NEXTHDR_HOP && *next != NEXTHDR_ROUTING &&
		    *next != NEXTHDR_DEST && *next != NEXTHDR_FRAGMENT &&
		    *next != NEXTHDR_AUTH)
			return 0;
		if (n == MMB_MAX_EXTHDRS)
			return -E2BIG;	/* its L4 header is beyond what rules see */
		eh = *off + 8 <= pkt->end ? skb_header_pointer(skb, *off, 8, eb) : NULL;
		if (!eh) {
			if (*first)	/* RFC 7112: the whole chain comes first */
				return -EBADMSG;
			*next = NEXTHDR_NONE;	/* truncated chain */
			return 0;
		}
		if (*next == NEXTHDR_FRAGMENT &&
		    !(get_unaligned_be16(eh + 2) & (IP6_OFFSET | IP6_MF))) {
			/* An atomic fragment (RFC 6946): a whole packet to the stack. */
			len = 8;
		} else if (*next == NEXTHDR_FRAGMENT) {
			unsigned int offset = get_unaligned_be16(eh + 2) & IP6_OFFSET;

			pkt->key.b[MMB_IMG_FLAGS] |= MMB_KF_FRAG;
			pkt->fragid = get_unaligned_be32(eh + 4);
			if (offset) {
				pkt->key.b[MMB_IMG_FLAGS] |= MMB_KF_LATER;
				pkt->key.b[MMB_IMG_L4PROTO] = eh[0];
				pkt->l4off = *off + 8;
				pkt->l7off = pkt->l4off;
				/* Over a TCP header, as in IPv4. */
				return offset == 8 && eh[0] == IPPROTO_TCP ? -EBADMSG : 1;
			}
			*first = true;
			len = 8;
		} else if (*next == NEXTHDR_AUTH) {
			len = (eh[1] + 2) * 4;
		} else {
			len = (eh[1] + 1) * 8;
		}
		*next = eh[0];
		*off += len;
	}
}

static int mmb_parse_ipv6(const struct sk_buff *skb, struct mmb_pkt *pkt)
{
	struct ipv6hdr buf __uninitialized;
	const struct ipv6hdr *ip6;
	unsigned int off = sizeof(*ip6), len;
	bool first = false;
	int ret;
	u8 next;

	ip6 = skb_header_pointer(skb, 0, sizeof(buf), &buf);
	if (!ip6 || ip6->version != 6 || skb->len < sizeof(*ip6))
		return -EINVAL;
	len = ipv6_payload_len(skb, ip6);	/* BIG TCP GSO: the skb's */
	/*
	 * A length of 0 before a hop-by-hop header is a jumbogram's (RFC
	 * 2675; GRO's BIG TCP packets carry one): ipv6_rcv() then does not
	 * trim the packet to its length, and neither do we.
	 */
	if (!len && ip6->nexthdr == NEXTHDR_HOP)
		pkt->end = skb->len;
	else
		pkt->end = min_t(unsigned int, sizeof(*ip6) + len, skb->len);
	pkt->key.b[MMB_IMG_FAMILY] = 6;
	memcpy(&pkt->key.b[MMB_IMG_IP6], ip6, sizeof(*ip6));
	next = ip6->nexthdr;
	ret = mmb_parse_exthdrs(skb, pkt, &next, &off, &first);
	if (ret)
		return ret < 0 ? ret : 0;
	pkt->key.b[MMB_IMG_L4PROTO] = next;
	pkt->l4off = min_t(unsigned int, off, pkt->end);
	pkt->l7off = pkt->l4off;
	mmb_parse_l4(skb, pkt, next);
	return first ? mmb_first_fragment(pkt, next) : 0;
}

/*
 * 0 and a filled @pkt for an IPv4 or IPv6 packet; -EAFNOSUPPORT for
 * another protocol, -EINVAL for an IP header it cannot read: the stack
 * judges both (it drops what is malformed); -EBADMSG for
 * a fragment that hides or overlaps an L4 header, -E2BIG for an IPv6
 * header chain too long to walk: those mmb drops.
 */
int mmb_parse(struct sk_buff *skb, struct mmb_pkt *pkt)
{
	unsigned int i;

	/* Word stores: a memset() of this size becomes a slow "rep stos". */
	for (i = 0; i < MMB_KEY_CHUNKS; i++) {
		pkt->key.c[i].w[0] = 0;
		pkt->key.c[i].w[1] = 0;
	}
	mmb_img_dev(pkt, mmb_dev_ifid(skb->dev), false);
	switch (skb->protocol) {
	case htons(ETH_P_IP):
		return mmb_parse_ipv4(skb, pkt);
	case htons(ETH_P_IPV6):
		return mmb_parse_ipv6(skb, pkt);
	}
	return -EAFNOSUPPORT;
}
