// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on issue 40's actions (reject, count, marks,
 * comments). Each case is a defect found by attack, seen failing before
 * its fix: the reject budget after a long quiet.
 */
#include <kunit/test.h>
#include "../kmod/mmb.h"

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

static struct kunit_case atk40_cases[] = {
	KUNIT_CASE(atk40_budget_quiet),
	{}
};

static struct kunit_suite atk40_suite = {
	.name = "mmb-atk40",
	.test_cases = atk40_cases,
};
kunit_test_suite(atk40_suite);
