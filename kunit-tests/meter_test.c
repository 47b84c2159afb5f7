// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: a meter's buckets (kmod/limit.c). A size that is no multiple
 * of the bucket's 8 slots holds no more keys than the size; a bucket found
 * full writes a bound of its busy time that never keeps a new key from a
 * slot once one is idle, whether its keys took more tokens meanwhile or
 * not; a flood of 1M keys against a full table: every key found keeps its
 * bucket, and no new key gets one; a key held is found in a bucket that
 * new keys find full.
 */
#include "../kmod/mmb.h"
#include "util.h"

#define MT_SEC	NSEC_PER_SEC
#define MT_MS	NSEC_PER_MSEC
/* A time far from 0, as the monotonic clock is some time after boot. */
#define MT_T0	(1000 * MT_SEC)

/* A meter per IPv4 source, @rate/second burst 1, of @size keys. */
static struct mmb_limit *mt_meter(struct kunit *test, u32 rate, u32 size)
{
	struct mmb_limit_spec ls = {
		.rate = rate, .unit = 1, .burst = 1, .meter = true,
		.per = MMB_FIELD_IP_SADDR, .plen = 32, .size = size,
	};
	struct mmb_limit *l = mmb_limit_new(&ls);

	KUNIT_ASSERT_NOT_NULL(test, l);
	return l;
}

/* Does the meter let a packet from @addr through at @now (a token taken)? */
static bool mt_take(struct mmb_limit *l, u32 addr, u64 now)
{
	struct mmb_pkt pkt = {};

	pkt.key.b[MMB_IMG_FAMILY] = 4;
	put_unaligned_be32(addr, &pkt.key.b[mmb_field(MMB_FIELD_IP_SADDR)->img]);
	return mmb_limit_take(l, &pkt, now);
}

/* How many slots of @l hold a key. */
static unsigned int mt_keys(const struct mmb_limit *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->nbuckets * MMB_METER_WAYS; i++)
		n += READ_ONCE(l->head[i / MMB_METER_WAYS].seq[i % MMB_METER_WAYS]) != 0;
	return n;
}

/*
 * Sizes 1, 7, 10 and 8193: 1000 keys at once (all busy) find at most
 * size slots; each that found one passed, the others are counted full.
 */
static void mt_size(struct kunit *test)
{
	static const u32 sizes[] = { 1, 7, 10, 8193 };
	unsigned int i, k, within;
	struct mmb_limit *l;
	u64 evicted, full;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		l = mt_meter(test, 1, sizes[k]);
		within = 0;
		for (i = 0; i < 1000; i++)
			within += mt_take(l, 0x0a000000 + i, MT_T0);
		mmb_limit_counts(l, &evicted, &full);
		KUNIT_EXPECT_LE(test, mt_keys(l), sizes[k]);
		KUNIT_EXPECT_EQ(test, mt_keys(l), within);
		KUNIT_EXPECT_EQ(test, evicted, 0);
		KUNIT_EXPECT_EQ(test, full, 1000 - within);
		if (sizes[k] <= 10)
			KUNIT_EXPECT_GE(test, within, 1);
		mmb_limit_free(l);
	}
}

/*
 * One bucket (size 8), 10/second burst 1: 8 keys at T0 owe a token until
 * T0 + 100 ms. A new key before that is beyond (and writes the bound); at
 * T0 + 100 ms key 0 takes a token again (its time moves past the bound)
 * and a new key takes the first idle slot, key 1's, all the same.
 */
static void mt_bound(struct kunit *test)
{
	struct mmb_limit *l = mt_meter(test, 10, 8);
	u64 t1 = MT_T0 + 100 * MT_MS, evicted, full;
	unsigned int i;

	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_TRUE(test, mt_take(l, 0x0a000000 + i, MT_T0));
	KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0b000000, MT_T0 + 50 * MT_MS));
	KUNIT_EXPECT_EQ(test, atomic64_read(&l->head[0].busy), t1);
	KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0b000001, t1 - 1));
	/* Key 0 takes its next token at t1: a time past the bound. */
	KUNIT_EXPECT_TRUE(test, mt_take(l, 0x0a000000, t1));
	KUNIT_EXPECT_TRUE(test, mt_take(l, 0x0b000002, t1));
	KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0b000002, t1));
	/* Key 1's slot went to it; keys 0 and 2-7 keep theirs. */
	KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0a000000, t1));
	KUNIT_EXPECT_TRUE(test, mt_take(l, 0x0a000001, t1));
	mmb_limit_counts(l, &evicted, &full);
	/* Key 1 back: another idle key's slot, the second eviction. */
	KUNIT_EXPECT_EQ(test, evicted, 2);
	KUNIT_EXPECT_EQ(test, full, 2);
	KUNIT_EXPECT_EQ(test, mt_keys(l), 8);
	mmb_limit_free(l);
}

/*
 * A flood of 1M new keys against a table full of busy ones (1/second
 * burst 1, all in the same second): none gets a slot, each counted full,
 * and every key held keeps its bucket (its next packet is beyond, not a
 * fresh bucket's first).
 */
static void mt_flood(struct kunit *test)
{
	struct mmb_limit *l = mt_meter(test, 1, 4096);
	unsigned int i, held, within = 0;
	u64 evicted, full;

	for (i = 0; i < 4096 * 4; i++)
		mt_take(l, 0x0a000000 + i, MT_T0);
	held = mt_keys(l);
	KUNIT_EXPECT_LE(test, held, 4096);
	KUNIT_EXPECT_GE(test, held, 4096 * 9 / 10);
	mmb_limit_reset(l);
	for (i = 0; i < 1 << 20; i++)
		within += mt_take(l, 0x0b000000 + i, MT_T0 + 500 * MT_MS);
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, within, 0);
	KUNIT_EXPECT_EQ(test, evicted, 0);
	KUNIT_EXPECT_EQ(test, full, 1 << 20);
	KUNIT_EXPECT_EQ(test, mt_keys(l), held);
	/* The first 4096 keys: those held are beyond, the others still find no room. */
	for (i = 0; i < 4096 * 4; i++)
		within += mt_take(l, 0x0a000000 + i, MT_T0 + 500 * MT_MS);
	KUNIT_EXPECT_EQ(test, within, 0);
	mmb_limit_free(l);
}

/*
 * A bucket full of keys that still have tokens (10/second burst 4), its
 * busy bound ahead: a new key is beyond (mmb_meter_within() reads the
 * bucket's head alone for it), but each key held is still found there and
 * takes its three tokens left, then is beyond.
 */
static void mt_held(struct kunit *test)
{
	struct mmb_limit *l = mt_meter(test, 10, 8);
	u64 t1 = MT_T0 + 2 * MT_MS, evicted, full;
	unsigned int i, k;

	l->spec.burst = 4;
	l->tau = 4 * l->cost;
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_TRUE(test, mt_take(l, 0x0a000000 + i, MT_T0));
	KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0b000000, MT_T0 + MT_MS));
	KUNIT_EXPECT_EQ(test, atomic64_read(&l->head[0].busy), MT_T0 + 100 * MT_MS);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 8; i++)
			KUNIT_EXPECT_TRUE(test, mt_take(l, 0x0a000000 + i, t1));
		KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0b000001 + k, t1));
	}
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_FALSE(test, mt_take(l, 0x0a000000 + i, t1));
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, evicted, 0);
	KUNIT_EXPECT_EQ(test, full, 4);
	KUNIT_EXPECT_EQ(test, mt_keys(l), 8);
	mmb_limit_free(l);
}

static struct kunit_case mt_cases[] = {
	KUNIT_CASE(mt_size),
	KUNIT_CASE(mt_bound),
	KUNIT_CASE(mt_flood),
	KUNIT_CASE(mt_held),
	{}
};

static struct kunit_suite mt_suite = {
	.name = "mmb-meter",
	.test_cases = mt_cases,
};

kunit_test_suite(mt_suite);
