// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit helpers: crafted IPv4/IPv6 packets with valid checksums, and
 * checksum verification by full recomputation.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "util.h"

static unsigned int l4_hdr_len(const struct mmbt_pkt_desc *d)
{
	switch (d->proto) {
	case IPPROTO_TCP:
		return sizeof(struct tcphdr) + d->tcp_opt_len;
	case IPPROTO_UDP:
		return sizeof(struct udphdr);
	}
	return 8;	/* ICMP, ICMPv6 */
}

/* The L4 checksum over the packet as it is, 0 meaning valid. */
__sum16 mmbt_l4_csum(const u8 *l3, unsigned int l4off, unsigned int len,
		     bool v6, u8 proto)
{
	__wsum sum = csum_partial(l3 + l4off, len, 0);

	if (!v6 && proto == IPPROTO_ICMP)
		return csum_fold(sum);
	if (v6) {
		const struct ipv6hdr *ip6 = (const void *)l3;

		return csum_ipv6_magic(&ip6->saddr, &ip6->daddr, len, proto, sum);
	}
	return csum_tcpudp_magic(((const struct iphdr *)l3)->saddr,
				 ((const struct iphdr *)l3)->daddr, len, proto, sum);
}

static unsigned int l4_csum_off(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return offsetof(struct tcphdr, check);
	case IPPROTO_UDP:
		return offsetof(struct udphdr, check);
	}
	return 2;
}

struct sk_buff *mmbt_pkt_build(struct net_device *dev, const struct mmbt_pkt_desc *d)
{
	unsigned int l3len = d->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	unsigned int l4off = l3len + d->l3_opt_len;
	unsigned int l4len = l4_hdr_len(d) + d->payload_len;
	unsigned int total = l4off + l4len, i;
	struct sk_buff *skb;
	u8 *l3, *l4;
	__sum16 sum;

	skb = alloc_skb(NET_IP_ALIGN + ETH_HLEN + total, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_IP_ALIGN + ETH_HLEN);
	l3 = skb_put_zero(skb, total);
	l4 = l3 + l4off;
	if (d->v6) {
		struct ipv6hdr *ip6 = (void *)l3;

		ip6->version = 6;
		ip6->priority = d->tos >> 4;
		ip6->flow_lbl[0] = (d->tos & 0xf) << 4;
		ip6->flow_lbl[2] = 7;
		ip6->payload_len = htons(total - sizeof(*ip6));
		ip6->nexthdr = d->l3_opt_len ? NEXTHDR_DEST : d->proto;
		ip6->hop_limit = d->ttl;
		memcpy(&ip6->saddr, d->saddr, 16);
		memcpy(&ip6->daddr, d->daddr, 16);
		if (d->l3_opt_len) {	/* destination options, padded */
			l3[l3len] = d->proto;
			l3[l3len + 1] = d->l3_opt_len / 8 - 1;
			l3[l3len + 2] = 1;		/* PadN */
			l3[l3len + 3] = d->l3_opt_len - 4;
		}
	} else {
		struct iphdr *iph = (void *)l3;

		iph->version = 4;
		iph->ihl = (sizeof(*iph) + d->l3_opt_len) / 4;
		iph->tos = d->tos;
		iph->tot_len = htons(total);
		iph->id = htons(0x1234);
		iph->frag_off = htons(d->frag_off);
		iph->ttl = d->ttl;
		iph->protocol = d->proto;
		memcpy(&iph->saddr, d->saddr, 4);
		memcpy(&iph->daddr, d->daddr, 4);
		for (i = 0; i < d->l3_opt_len; i++)
			l3[l3len + i] = IPOPT_NOOP;
		ip_send_check(iph);
	}
	put_unaligned_be16(d->sport, l4);
	put_unaligned_be16(d->dport, l4 + 2);
	if (d->proto == IPPROTO_TCP) {
		struct tcphdr *th = (void *)l4;

		th->seq = htonl(d->seq);
		th->ack_seq = htonl(d->ack ?: 0xabcdef01);
		th->doff = (sizeof(*th) + d->tcp_opt_len) / 4;
		l4[13] = d->tcp_flags;
		th->window = htons(512);
		for (i = 0; i < d->tcp_opt_len; i++)
			l4[sizeof(*th) + i] = d->tcp_opts ? d->tcp_opts[i] : TCPOPT_NOP;
	} else if (d->proto == IPPROTO_UDP) {
		put_unaligned_be16(sizeof(struct udphdr) + d->payload_len, l4 + 4);
	} else {
		l4[0] = d->sport >> 8;		/* ICMP type and code */
		l4[1] = d->sport & 0xff;
		put_unaligned_be16(0, l4 + 2);	/* the checksum, summed next */
		put_unaligned_be16(0x4242, l4 + 4);
	}
	for (i = 0; i < d->payload_len; i++)
		l4[l4_hdr_len(d) + i] = d->payload_seed + i * 7;
	if (!(d->proto == IPPROTO_UDP && d->no_udp_csum)) {
		sum = mmbt_l4_csum(l3, l4off, l4len, d->v6, d->proto);
		if (!sum && d->proto == IPPROTO_UDP)
			sum = CSUM_MANGLED_0;
		put_unaligned(sum, (__sum16 *)(l4 + l4_csum_off(d->proto)));
	}
	skb->dev = dev;
	skb->protocol = htons(d->v6 ? ETH_P_IPV6 : ETH_P_IP);
	skb_reset_network_header(skb);
	skb_reset_mac_len(skb);
	return skb;
}

/*
 * An IPv6 UDP packet to port 53 behind @n destination option headers of 8
 * bytes each.
 */
struct sk_buff *mmbt_pkt_chain6(struct net_device *dev, unsigned int n)
{
	unsigned int len = sizeof(struct ipv6hdr) + n * 8 + sizeof(struct udphdr), i;
	struct sk_buff *skb = alloc_skb(NET_IP_ALIGN + ETH_HLEN + len, GFP_KERNEL);
	struct ipv6hdr *ip6;
	u8 *p;

	if (!skb)
		return NULL;
	skb_reserve(skb, NET_IP_ALIGN + ETH_HLEN);
	ip6 = skb_put_zero(skb, len);
	ip6->version = 6;
	ip6->payload_len = htons(len - sizeof(*ip6));
	ip6->nexthdr = n ? NEXTHDR_DEST : IPPROTO_UDP;
	ip6->hop_limit = 64;
	p = (u8 *)(ip6 + 1);
	for (i = 0; i < n; i++, p += 8) {
		p[0] = i + 1 < n ? NEXTHDR_DEST : IPPROTO_UDP;
		p[2] = 1;		/* PadN of 4 */
		p[3] = 4;
	}
	put_unaligned_be16(53, p + 2);
	put_unaligned_be16(sizeof(struct udphdr), p + 4);
	skb->protocol = htons(ETH_P_IPV6);
	skb->dev = dev;
	skb_reset_network_header(skb);
	return skb;
}

/* Are the IPv4 header checksum and the L4 checksum of @skb right? */
bool mmbt_csums_ok(const struct sk_buff *skb, bool v6, unsigned int l4off, u8 proto)
{
	const u8 *l3 = skb->data;
	unsigned int len = skb->len - l4off;
	__sum16 udp;

	if (!v6 && ip_fast_csum(l3, ((const struct iphdr *)l3)->ihl))
		return false;
	if (proto == IPPROTO_UDP) {
		udp = get_unaligned((const __sum16 *)(l3 + l4off + 6));
		if (!udp && !v6)
			return true;	/* no checksum */
	}
	return !mmbt_l4_csum(l3, l4off, len, v6, proto);
}
