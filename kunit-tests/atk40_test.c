// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on issue 40's actions (reject, count, marks,
 * comments). Each case is a defect found by attack, seen failing before
 * its fix: the reject budget after a long quiet, answers to destinations
 * the stack would drop, a comment's bytes after a NUL, a comment that is
 * not UTF-8 text.
 */
#include <kunit/test.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <net/genetlink.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "nlt.h"
#include "util.h"

/*
 * No answer for over 2^31 jiffies (24.8 days at HZ=1000): the stamp reads
 * as ahead of jiffies, and was taken for one another CPU had just moved,
 * so the bucket got nothing back for as long again once the burst was
 * spent. A stamp that old is a full second ago.
 */
static void atk40_budget_quiet(struct kunit *test)
{
	unsigned int rate = mmb_reject_rate, burst = mmb_reject_burst, i, n = 0;
	struct mmb_reject_limit l;

	mmb_reject_rate = 1000;
	mmb_reject_burst = 5;
	mmb_reject_limit_init(&l);
	for (i = 0; i < 10; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 5);
	/* The last refill 2^31 + a second ago. */
	mmb_tokens_set_stamp(&l.b, (u32)jiffies - 0x80000000u - HZ);
	for (i = 0, n = 0; i < 10; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 5);
	/* Almost 2^32 ago: as good as a second ahead, nothing back yet. */
	mmb_tokens_set_stamp(&l.b, (u32)jiffies + HZ / 2);
	for (i = 0, n = 0; i < 10; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 0);
	mmb_reject_rate = rate;
	mmb_reject_burst = burst;
}

/* The answer to a TCP SYN from @saddr to @daddr (IPv6), arriving. */
static u8 atk40_answer6(struct kunit *test, const u8 *saddr, const u8 *daddr)
{
	struct mmbt_pkt_desc d = { .v6 = true, .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN,
				   .sport = 40000, .dport = 25, .ttl = 64 };
	struct mmb_pkt pkt;
	struct sk_buff *skb;
	u8 a;

	memcpy(d.saddr, saddr, 16);
	memcpy(d.daddr, daddr, 16);
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->pkt_type = PACKET_HOST;
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	a = mmb_reject_answer(skb, &pkt, MMB_REJECT_DEFAULT, false);
	kfree_skb(skb);
	return a;
}

/*
 * IPv6 from the wire to ::1 or to an IPv4-mapped address: ipv6_rcv()
 * drops the first (RFC 4291 2.5.3), and neither is an address a RST may
 * come from; mmb built one from ::1 and sent it on the wire (the kernel's
 * input route refuses IPv4's 127/8 before any answer).
 */
static void atk40_dst6(struct kunit *test)
{
	static const u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const u8 b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 5, [15] = 2 };
	static const u8 lo[16] = { [15] = 1 };
	static const u8 mapped[16] = { [10] = 0xff, [11] = 0xff, 198, 51, 100, 7 };

	KUNIT_EXPECT_EQ(test, atk40_answer6(test, a, b), MMB_REJECT_TCP_RESET);
	KUNIT_EXPECT_EQ(test, atk40_answer6(test, a, lo), MMB_REJECT_DEFAULT);
	KUNIT_EXPECT_EQ(test, atk40_answer6(test, a, mapped), MMB_REJECT_DEFAULT);
}

/* @d's packet, parsed into @pkt; the caller frees it. */
static struct sk_buff *atk40_pkt(struct kunit *test, const struct mmbt_pkt_desc *d,
				 struct mmb_pkt *pkt)
{
	struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, d);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->pkt_type = PACKET_HOST;
	skb->ip_summed = CHECKSUM_NONE;
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, pkt), 0);
	return skb;
}

/*
 * What ip_rcv() and ipv6_rcv() drop as corrupt, mmb answered (it answers
 * before them): an IPv4 header whose checksum is wrong (its source may be
 * anyone's: a UDP or TCP checksum covers the addresses, an ICMP or other
 * packet's does not), a packet shorter than its IP header says.
 */
static void atk40_corrupt(struct kunit *test)
{
	struct mmbt_pkt_desc udp = { .proto = IPPROTO_UDP, .sport = 1000, .dport = 53,
				     .payload_len = 8, .ttl = 64,
				     .saddr = { 192, 0, 2, 1 }, .daddr = { 198, 51, 100, 7 } };
	struct mmbt_pkt_desc echo = { .proto = IPPROTO_ICMP, .sport = ICMP_ECHO << 8,
				      .payload_len = 8, .ttl = 64,
				      .saddr = { 192, 0, 2, 1 }, .daddr = { 198, 51, 100, 7 } };
	struct mmbt_pkt_desc echo6 = { .v6 = true, .proto = IPPROTO_ICMPV6,
				       .sport = ICMPV6_ECHO_REQUEST << 8, .payload_len = 8,
				       .ttl = 64,
				       .saddr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
				       .daddr = { 0x20, 0x01, 0x0d, 0xb8, 0, 5, [15] = 2 } };
	struct mmb_pkt pkt;
	struct sk_buff *skb;
	struct iphdr *iph;

	/* Whole, then with a bit of its IPv4 header checksum flipped. */
	skb = atk40_pkt(test, &udp, &pkt);
	KUNIT_EXPECT_TRUE(test, mmb_reject_csum_ok(skb, &pkt));
	skb->data[offsetof(struct iphdr, check)] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, mmb_reject_csum_ok(skb, &pkt));
	kfree_skb(skb);
	skb = atk40_pkt(test, &echo, &pkt);
	KUNIT_EXPECT_EQ(test, mmb_reject_answer(skb, &pkt, MMB_REJECT_DEFAULT, false),
			MMB_REJECT_PORT_UNREACH);
	KUNIT_EXPECT_TRUE(test, mmb_reject_csum_ok(skb, &pkt));
	skb->data[offsetof(struct iphdr, saddr) + 3] ^= 0x40;	/* a source of someone else */
	KUNIT_EXPECT_FALSE(test, mmb_reject_csum_ok(skb, &pkt));
	kfree_skb(skb);
	/* 8 bytes longer than it is, its header checksum right. */
	skb = atk40_pkt(test, &echo, &pkt);
	iph = (struct iphdr *)skb->data;
	iph->tot_len = htons(ntohs(iph->tot_len) + 8);
	ip_send_check(iph);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_FALSE(test, mmb_reject_csum_ok(skb, &pkt));
	kfree_skb(skb);
	skb = atk40_pkt(test, &echo6, &pkt);
	KUNIT_EXPECT_TRUE(test, mmb_reject_csum_ok(skb, &pkt));
	((struct ipv6hdr *)skb->data)->payload_len =
		htons(ntohs(((struct ipv6hdr *)skb->data)->payload_len) + 8);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_FALSE(test, mmb_reject_csum_ok(skb, &pkt));
	kfree_skb(skb);
}

/* add udp-dport 53 count, with a comment attribute of @len bytes at @c. */
static unsigned int atk40_add_comment(struct nlt *t, const char *c, unsigned int len)
{
	__be16 p53 = cpu_to_be16(53);
	unsigned int rule, list, nest, off;

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_UDP_DPORT);
	nlt_put(t, MMB_MATCH_A_VALUE, &p53, 2);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_COUNT);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	off = nlt_put(t, MMB_RULE_A_COMMENT, c, len);
	nlt_nest_end(t, rule);
	return off;
}

/*
 * A comment with bytes after a NUL inside its attribute was taken, cut at
 * the NUL: what a caller sent is not what list gives back. Refused at the
 * attribute; one NUL at the end (or padding NULs after it) is the string.
 */
static void atk40_comment_nul(struct kunit *test)
{
	struct nlt t;
	unsigned int off;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	off = atk40_add_comment(&t, "ab\0cd", 6);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	off = atk40_add_comment(&t, "ab\0\0", 4);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

/*
 * A comment is text that -j prints as a JSON string and list prints to a
 * terminal: bytes that are not UTF-8 (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF) made -j's output no JSON at all, and
 * C1 control characters (U+0080 to U+009F) are control characters too.
 */
static void atk40_comment_utf8(struct kunit *test)
{
	static const char * const bad[] = {
		"\xff", "a\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xe2\x9c", "\x9b", "\xc2\x9b[2J", "\xf8\x88\x80\x80\x80",
	};
	static const char * const good[] = {
		"caf\xc3\xa9", "\xe2\x9c\x93 ok", "\xf0\x9f\x94\x92 ssh", "\xc2\xa0nbsp",
		"\xef\xbf\xbd", "\xf4\x8f\xbf\xbf",
	};
	unsigned int i, off;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		off = atk40_add_comment(&t, bad[i], strlen(bad[i]) + 1);
		KUNIT_EXPECT_EQ_MSG(test, nlt_send(&t), -EINVAL, "bad[%u]", i);
		KUNIT_EXPECT_EQ_MSG(test, t.offs, off, "bad[%u]", i);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		atk40_add_comment(&t, good[i], strlen(good[i]) + 1);
		KUNIT_EXPECT_EQ_MSG(test, nlt_send(&t), 0, "good[%u] %s", i, t.msg);
	}
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case atk40_cases[] = {
	KUNIT_CASE(atk40_budget_quiet),
	KUNIT_CASE(atk40_dst6),
	KUNIT_CASE(atk40_corrupt),
	KUNIT_CASE(atk40_comment_nul),
	KUNIT_CASE(atk40_comment_utf8),
	{}
};

static struct kunit_suite atk40_suite = {
	.name = "mmb-atk40",
	.test_cases = atk40_cases,
};

kunit_test_suite(atk40_suite);
