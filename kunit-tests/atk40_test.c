// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on issue 40's actions (reject, count, marks,
 * comments). Each case is a defect found by attack, seen failing before
 * its fix: the reject budget after a long quiet, answers to destinations
 * the stack would drop.
 */
#include <kunit/test.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
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
	l.stamp = (u32)jiffies - 0x80000000u - HZ;
	for (i = 0, n = 0; i < 10; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 5);
	/* Almost 2^32 ago: as good as a second ahead, nothing back yet. */
	l.stamp = (u32)jiffies + HZ / 2;
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

static struct kunit_case atk40_cases[] = {
	KUNIT_CASE(atk40_budget_quiet),
	KUNIT_CASE(atk40_dst6),
	{}
};

static struct kunit_suite atk40_suite = {
	.name = "mmb-atk40",
	.test_cases = atk40_cases,
};
kunit_test_suite(atk40_suite);
