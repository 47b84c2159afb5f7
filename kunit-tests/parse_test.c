// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: packets a remote sender crafts to get past the rules. Tiny
 * and overlapping fragments (RFC 1858, RFC 3128, RFC 7112) and IPv6
 * header chains longer than the parser walks are refused; BIG TCP packets
 * (lengths of 0, over 64 KiB) and IPv6 packets whose length the stack
 * takes from the skb are parsed to their L4 header.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "util.h"

static struct mmbt_pkt_desc tcp_desc(bool v6)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_TCP, .ttl = 64, .sport = 40000, .dport = 22,
		.tcp_flags = TCPHDR_SYN, .tcp_opt_len = 12, .payload_len = 20,
	};

	d.saddr[0] = 10;
	d.daddr[0] = 10;
	d.daddr[3] = 2;
	return d;
}

/* Cut @skb's packet to @len bytes, its length field too. */
static void cut(struct sk_buff *skb, bool v6, unsigned int len)
{
	skb_trim(skb, len);
	if (v6) {
		ipv6_hdr(skb)->payload_len = htons(len - sizeof(struct ipv6hdr));
	} else {
		ip_hdr(skb)->tot_len = htons(len);
		ip_send_check(ip_hdr(skb));
	}
}

static int parse(struct kunit *test, struct sk_buff *skb, struct mmb_pkt *pkt)
{
	int err;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	err = mmb_parse(skb, pkt);
	kfree_skb(skb);
	return err;
}

/* An IPv4 fragment of @d: @frag_off (host order, flags and offset), cut to @len. */
static int parse_frag4(struct kunit *test, struct mmbt_pkt_desc d, u16 frag_off,
		       unsigned int len, struct mmb_pkt *pkt)
{
	struct sk_buff *skb;

	d.frag_off = frag_off;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	if (len)
		cut(skb, false, len);
	return parse(test, skb, pkt);
}

static void parse_evil_fragments4_test(struct kunit *test)
{
	struct mmbt_pkt_desc tcp = tcp_desc(false), udp = tcp;
	struct mmb_pkt pkt;

	udp.proto = IPPROTO_UDP;
	/* A first fragment with the whole TCP header, options included. */
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 32, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4 | MMB_KF_FRAG);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO + 2, 2), 22);
	/* Without its options, without its flags, with its ports only: refused. */
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 24, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 8, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 4, &pkt), -EBADMSG);
	/*
	 * The stack keeps a multiple of 8 bytes of a fragment before the
	 * last: a 20-byte TCP header alone keeps 16, one with 4 bytes more
	 * all of it; the 36 bytes of a 32-byte header's fragment, 32.
	 */
	tcp.tcp_opt_len = 0;
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 20, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 24, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.end, 20 + 24);
	tcp.tcp_opt_len = 12;
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF, 20 + 36, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.end, 20 + 32);
	/* The same cuts of a whole packet are the stack's to judge (it drops them). */
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, 0, 20 + 8, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], 0);
	/* UDP: 8 bytes of header. */
	KUNIT_EXPECT_EQ(test, parse_frag4(test, udp, IP_MF, 20 + 8, &pkt), 0);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, udp, IP_MF, 20 + 7, &pkt), -EBADMSG);
	/* A TCP fragment at offset 1 (8 bytes) lands on the first one's flags. */
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, 1, 0, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, IP_MF | 1, 0, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, tcp, 2, 0, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_FRAG | MMB_KF_LATER);
	KUNIT_EXPECT_EQ(test, parse_frag4(test, udp, 1, 0, &pkt), 0);
}

/*
 * IPv6 with a fragment header (offset in bytes, @more) in place of the
 * 8-byte destination options the builder puts before L4; cut to @len.
 */
static int parse_frag6(struct kunit *test, struct mmbt_pkt_desc d, u16 offset, bool more,
		       unsigned int len, struct mmb_pkt *pkt)
{
	struct sk_buff *skb;
	u8 *fh;

	d.l3_opt_len = 8;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ipv6_hdr(skb)->nexthdr = NEXTHDR_FRAGMENT;
	fh = skb->data + sizeof(struct ipv6hdr);
	fh[0] = d.proto;
	fh[1] = 0;
	put_unaligned_be16(offset | more, fh + 2);
	put_unaligned_be32(0x12345678, fh + 4);
	if (len)
		cut(skb, true, len);
	return parse(test, skb, pkt);
}

static void parse_evil_fragments6_test(struct kunit *test)
{
	struct mmbt_pkt_desc tcp = tcp_desc(true), udp = tcp;
	struct mmb_pkt pkt;

	udp.proto = IPPROTO_UDP;
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 0, true, 48 + 32, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4 | MMB_KF_FRAG);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO + 2, 2), 22);
	/* RFC 7112: the first fragment carries the whole header chain. */
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 0, true, 48 + 31, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 0, true, 48 + 8, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 0, true, 48, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag6(test, udp, 0, true, 48 + 8, &pkt), 0);
	KUNIT_EXPECT_EQ(test, parse_frag6(test, udp, 0, true, 48 + 4, &pkt), -EBADMSG);
	/* Later fragments: no L4; at offset 8 over a TCP header, refused. */
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 8, true, 0, &pkt), -EBADMSG);
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 16, false, 0, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_FRAG | MMB_KF_LATER);
	KUNIT_EXPECT_EQ(test, parse_frag6(test, udp, 8, false, 0, &pkt), 0);
	/*
	 * An atomic fragment (offset 0, no more: RFC 6946) is a whole packet
	 * to the stack, and to mmb: no fragment to note, its L4 header read.
	 */
	KUNIT_EXPECT_EQ(test, parse_frag6(test, tcp, 0, false, 0, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO + 2, 2), 22);
	KUNIT_EXPECT_EQ(test, pkt.l4off, 48);
}

/*
 * The parser walks 16 IPv6 extension headers; beyond that the L4 header is
 * out of its sight, and the packet is refused rather than passed unjudged.
 */
static void parse_long_chain_test(struct kunit *test)
{
	struct mmb_pkt pkt;
	struct net_device *lo = init_net.loopback_dev;

	KUNIT_EXPECT_EQ(test, parse(test, mmbt_pkt_chain6(lo, 16), &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4);
	KUNIT_EXPECT_EQ(test, pkt.l4off, 40 + 16 * 8);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO + 2, 2), 53);
	KUNIT_EXPECT_EQ(test, parse(test, mmbt_pkt_chain6(lo, 17), &pkt), -E2BIG);
}

#define BIG	(100 * 1000)

/* A TCP packet of BIG bytes as GRO builds it, and its port read back. */
static void parse_big_tcp_test(struct kunit *test)
{
	struct mmbt_pkt_desc d4 = tcp_desc(false), d6 = tcp_desc(true);
	struct mmb_match_spec m = { .field = MMB_FIELD_TCP_DPORT, .op = MMB_OP_EQ,
				    .plen = 16, .vlen = 2, .value = { 0, 22 } };
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	u8 *hbh;

	/* IPv4 BIG TCP (6.3 on): a total length of 0. */
	d4.payload_len = BIG - 20 - 32;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d4);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ip_hdr(skb)->tot_len = 0;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	skb_shinfo(skb)->gso_size = 1448;
	skb_shinfo(skb)->gso_segs = DIV_ROUND_UP(d4.payload_len, 1448);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.end, BIG);
	KUNIT_EXPECT_EQ(test, pkt.l7off, 20 + 32);
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));
	kfree_skb(skb);

	/*
	 * IPv6 BIG TCP: a payload length of 0 and a hop-by-hop header with a
	 * jumbo payload option (the builder's destination options, rewritten).
	 */
	d6.l3_opt_len = 8;
	d6.payload_len = BIG - 48 - 32;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d6);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ipv6_hdr(skb)->payload_len = 0;
	ipv6_hdr(skb)->nexthdr = NEXTHDR_HOP;
	hbh = skb->data + sizeof(struct ipv6hdr);
	hbh[2] = IPV6_TLV_JUMBO;
	hbh[3] = 4;
	put_unaligned_be32(BIG - 40, hbh + 4);
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV6;
	skb_shinfo(skb)->gso_size = 1428;
	skb_shinfo(skb)->gso_segs = DIV_ROUND_UP(d6.payload_len, 1428);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.end, BIG);
	KUNIT_EXPECT_EQ(test, pkt.l4off, 48);
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));

	/*
	 * Not a GSO packet, no jumbo option: ipv6_rcv() still takes the
	 * packet to be as long as the skb, and so does mmb.
	 */
	hbh[2] = 1;	/* PadN */
	skb_shinfo(skb)->gso_type = 0;
	skb_shinfo(skb)->gso_size = 0;
	skb_shinfo(skb)->gso_segs = 0;
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.end, BIG);
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));
	kfree_skb(skb);
}

static struct kunit_case mmb_parse_cases[] = {
	KUNIT_CASE(parse_evil_fragments4_test),
	KUNIT_CASE(parse_evil_fragments6_test),
	KUNIT_CASE(parse_long_chain_test),
	KUNIT_CASE(parse_big_tcp_test),
	{}
};

static struct kunit_suite mmb_parse_suite = {
	.name = "mmb-parse",
	.test_cases = mmb_parse_cases,
};

kunit_test_suites(&mmb_parse_suite);
