// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on issue 40's log, limit and ct count (mmb-atk40b).
 * Each case is a defect found by attack, seen failing before its fix.
 */
#include <kunit/test.h>
#include <net/netlink.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "util.h"

#define A40B_T0	(1000 * NSEC_PER_SEC)

/* A limit's attribute of @rate/@unit burst @burst; *@bat is the burst's. */
static struct sk_buff *a40b_limit_attr(struct kunit *test, u32 rate, u32 unit, u32 burst,
				       struct nlattr **nest, struct nlattr **bat)
{
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	*nest = nla_nest_start(skb, MMB_RULE_A_LIMIT);
	KUNIT_ASSERT_NOT_NULL(test, *nest);
	KUNIT_ASSERT_EQ(test, nla_put_u32(skb, MMB_LIMIT_A_RATE, rate), 0);
	KUNIT_ASSERT_EQ(test, nla_put_u32(skb, MMB_LIMIT_A_UNIT, unit), 0);
	*bat = (struct nlattr *)skb_tail_pointer(skb);
	KUNIT_ASSERT_EQ(test, nla_put_u32(skb, MMB_LIMIT_A_BURST, burst), 0);
	nla_nest_end(skb, *nest);
	return skb;
}

/*
 * limit 1/day burst 1000000: the bucket's depth, burst x unit / rate, is
 * 8.64e19 ns, past 2^64 (tau wrapped to 1.26e19) and past 2^63, where the
 * bucket's signed "is its time ahead of now" reads a bucket owed for
 * over 292 years as one long past: full. Once 106752 packets had taken
 * their token at once, the next found the bucket full again, and all
 * passed (with over: none applied). nft refuses such a limit
 * (-EOVERFLOW); so does mmb, at the burst, and what it takes holds.
 */
static void atk40b_limit_deep(struct kunit *test)
{
	struct netlink_ext_ack ext = {};
	struct mmb_limit_spec ls;
	struct nlattr *nest, *bat;
	struct sk_buff *skb;
	struct mmb_limit *l;
	unsigned int i, n;
	int err;

	skb = a40b_limit_attr(test, 1, 86400, MMB_LIMIT_BURST_MAX, &nest, &bat);
	err = mmb_limit_parse(nest, &ls, &ext);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, ext.bad_attr, (const struct nlattr *)bat);
	KUNIT_EXPECT_NOT_NULL(test, ext._msg);
	if (!err) {
		/* What it did: more than the burst, at one time. */
		l = mmb_limit_new(&ls);
		KUNIT_ASSERT_NOT_NULL(test, l);
		for (i = 0, n = 0; i < MMB_LIMIT_BURST_MAX + 10; i++)
			n += mmb_limit_take(l, NULL, A40B_T0);
		KUNIT_EXPECT_LE(test, n, MMB_LIMIT_BURST_MAX);
		mmb_limit_free(l);
	}
	kfree_skb(skb);

	/* The deepest taken, 1000000 at 1/hour (1.14 years): the burst, no more. */
	memset(&ext, 0, sizeof(ext));
	skb = a40b_limit_attr(test, 1, 3600, MMB_LIMIT_BURST_MAX, &nest, &bat);
	KUNIT_ASSERT_EQ(test, mmb_limit_parse(nest, &ls, &ext), 0);
	kfree_skb(skb);
	l = mmb_limit_new(&ls);
	KUNIT_ASSERT_NOT_NULL(test, l);
	for (i = 0, n = 0; i < MMB_LIMIT_BURST_MAX + 10; i++)
		n += mmb_limit_take(l, NULL, A40B_T0);
	KUNIT_EXPECT_EQ(test, n, MMB_LIMIT_BURST_MAX);
	KUNIT_EXPECT_FALSE(test, mmb_limit_take(l, NULL, A40B_T0 + 3599 * NSEC_PER_SEC));
	KUNIT_EXPECT_TRUE(test, mmb_limit_take(l, NULL, A40B_T0 + 3600 * NSEC_PER_SEC));
	mmb_limit_free(l);
}

static struct kunit_case atk40b_cases[] = {
	KUNIT_CASE(atk40b_limit_deep),
	{}
};

static struct kunit_suite atk40b_suite = {
	.name = "mmb-atk40b",
	.test_cases = atk40b_cases,
};

kunit_test_suite(atk40b_suite);
