// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: rate limits and meters (kmod/limit.c). The bucket's
 * arithmetic on a clock the test sets; "over"; threads taking tokens at
 * once; a meter's keys, prefixes and families; eviction at size and its
 * count; keys that collide; the datapath asking the limit last; the
 * limits netlink refuses, each pointing at its attribute.
 */
#include <linux/kthread.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "../kmod/bucket.h"
#include "nlt.h"
#include "util.h"

#define LM_SEC	NSEC_PER_SEC
/* A time far from 0, as the monotonic clock is some time after boot. */
#define LM_T0	(1000 * LM_SEC)

static struct mmb_limit *lm_new(struct kunit *test, u32 rate, u32 unit, u32 burst, bool over)
{
	struct mmb_limit_spec ls = { .rate = rate, .unit = unit, .burst = burst, .over = over };
	struct mmb_limit *l = mmb_limit_new(&ls);

	KUNIT_ASSERT_NOT_NULL(test, l);
	return l;
}

static struct mmb_limit *lm_meter(struct kunit *test, u32 rate, u32 burst, u16 per, u8 plen,
				  u32 size)
{
	struct mmb_limit_spec ls = {
		.rate = rate, .unit = 1, .burst = burst, .meter = true, .per = per,
		.plen = plen, .size = size,
	};
	struct mmb_limit *l = mmb_limit_new(&ls);

	KUNIT_ASSERT_NOT_NULL(test, l);
	return l;
}

/* How many of @n packets at @now the limit lets apply. */
static unsigned int lm_take(struct mmb_limit *l, const struct mmb_pkt *pkt, u64 now,
			    unsigned int n)
{
	unsigned int i, yes = 0;

	for (i = 0; i < n; i++)
		yes += mmb_limit_take(l, pkt, now);
	return yes;
}

/* 10/second burst 5: 5 at once, one a tenth of a second later, never more than 5. */
static void lm_bucket(struct kunit *test)
{
	struct mmb_limit *l = lm_new(test, 10, 1, 5, false);

	KUNIT_EXPECT_EQ(test, l->cost, 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, l->tau, 500 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0, 20), 5);
	/* 99 ms: not a token yet; 100 ms: one. */
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 99 * NSEC_PER_MSEC, 3), 0);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 100 * NSEC_PER_MSEC, 3), 1);
	/* 350 ms later: 3 more (the half token is kept). */
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 450 * NSEC_PER_MSEC, 10), 3);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 500 * NSEC_PER_MSEC, 10), 1);
	/* An hour idle: the burst again, not 36000. */
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 3600 * LM_SEC, 100), 5);
	/* A clock read behind another CPU's (the stamp ahead of now): nothing extra. */
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 3599 * LM_SEC, 10), 0);
	mmb_limit_free(l);

	/* Units: 3/minute is one token each 20 s; 1/day, one a day. */
	l = lm_new(test, 3, 60, 1, false);
	KUNIT_EXPECT_EQ(test, l->cost, 20 * LM_SEC);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0, 5), 1);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 19 * LM_SEC, 5), 0);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0 + 20 * LM_SEC, 5), 1);
	mmb_limit_free(l);
	l = lm_new(test, 1, 86400, 2, false);
	KUNIT_EXPECT_EQ(test, l->cost, 86400 * LM_SEC);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0, 5), 2);
	mmb_limit_free(l);
	/* The highest rate: a packet a nanosecond. */
	l = lm_new(test, MMB_LIMIT_RATE_MAX, 1, MMB_LIMIT_BURST_MAX, false);
	KUNIT_EXPECT_EQ(test, l->cost, 1);
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0, 10), 10);
	mmb_limit_free(l);
}

/*
 * A flood over one second, a packet every 2 us, each seeing the clock the
 * datapath gives the limit (mmb_limit_now()): the time at the last tick,
 * or, for a burst shorter than two ticks, the time itself. Whatever the
 * rate and the tick, the rule applies to the rate's packets and the
 * burst, no fewer (with the tick's time alone, a burst per tick).
 */
static void lm_tick(struct kunit *test)
{
	static const u32 specs[][2] = {		/* rate/second, burst */
		{ 10, 5 }, { 100, 1 }, { 300, 5 }, { 1000, 2 }, { 10000, 5 },
		{ 50000, 20 }, { 100000, 1 }, { 100000, 1000 },
	};
	unsigned int i, yes;
	u64 t, now;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		struct mmb_limit *l = lm_new(test, specs[i][0], 1, specs[i][1], false);

		yes = 0;
		for (t = 0; t < LM_SEC; t += 2 * NSEC_PER_USEC) {
			now = LM_T0 + (l->precise ? t : rounddown(t, TICK_NSEC));
			yes += mmb_limit_take(l, NULL, now);
		}
		KUNIT_EXPECT_GE_MSG(test, yes, specs[i][0] - specs[i][0] / 100,
				    "%u/second burst %u, HZ %u", specs[i][0], specs[i][1], HZ);
		KUNIT_EXPECT_LE_MSG(test, yes, specs[i][0] + specs[i][1],
				    "%u/second burst %u, HZ %u", specs[i][0], specs[i][1], HZ);
		mmb_limit_free(l);
	}
}

/*
 * The log's and reject's bucket: a rate that is no whole number of
 * tokens a jiffy (HZ * 3 / 2 a second) keeps its fractions; a flood of
 * ten takes a jiffy for ten seconds gets the burst and ten seconds of
 * the rate, not a token a jiffy. 3 a minute: 29 in ten minutes from an
 * empty bucket (at 20 s, 40 s, ... 580 s).
 */
static void lm_tokens(struct kunit *test)
{
	unsigned int rate = HZ * 3 / 2, burst = 5, yes = 0, i, k;
	struct mmb_tokens b;
	u32 now = 1000;

	atomic_set(&b.credit, burst);
	atomic64_set(&b.at, now);
	for (i = 0; i < 10 * HZ; i++) {
		now++;
		for (k = 0; k < 10; k++)
			yes += mmb_tokens_take_at(&b, rate, 1, burst, now);
	}
	/* less the first jiffy's 1.5, earned while the bucket was full */
	KUNIT_EXPECT_GE(test, yes, 10 * rate + burst - 2);
	KUNIT_EXPECT_LE(test, yes, 10 * rate + burst);
	/* Idle for a minute: the burst again, no more. */
	now += 60 * HZ;
	for (k = 0, yes = 0; k < 100; k++)
		yes += mmb_tokens_take_at(&b, rate, 1, burst, now);
	KUNIT_EXPECT_EQ(test, yes, burst);
	/* 3 a minute (per 60): a token each 20 s, fractions kept across takes. */
	atomic_set(&b.credit, 0);
	atomic64_set(&b.at, now);
	for (i = 0, yes = 0; i < 600 * HZ; i += HZ / 2)
		yes += mmb_tokens_take_at(&b, 3, 60, 1, now + i);
	KUNIT_EXPECT_EQ(test, yes, 29);
	/*
	 * 1 a day, burst 1, full and idle: its token, then none for a day
	 * (time while full earns nothing), then one.
	 */
	now += 700 * HZ;
	atomic_set(&b.credit, 1);
	atomic64_set(&b.at, now - 5000 * HZ);
	KUNIT_EXPECT_TRUE(test, mmb_tokens_take_at(&b, 1, 86400, 1, now));
	KUNIT_EXPECT_FALSE(test, mmb_tokens_take_at(&b, 1, 86400, 1, now + HZ));
	KUNIT_EXPECT_FALSE(test, mmb_tokens_take_at(&b, 1, 86400, 1, now + 86400 * HZ - 1));
	KUNIT_EXPECT_TRUE(test, mmb_tokens_take_at(&b, 1, 86400, 1, now + 86400 * HZ));
}

/* over: the packets beyond the rate; a trace's peek takes nothing. */
static void lm_over(struct kunit *test)
{
	struct mmb_limit *l = lm_new(test, 10, 1, 5, true);
	unsigned int i;

	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_FALSE(test, mmb_limit_peek(l, NULL, LM_T0));
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_FALSE(test, mmb_limit_take(l, NULL, LM_T0));
	KUNIT_EXPECT_TRUE(test, mmb_limit_peek(l, NULL, LM_T0));
	KUNIT_EXPECT_EQ(test, lm_take(l, NULL, LM_T0, 10), 10);
	/* A token later, one packet within again, not applying. */
	KUNIT_EXPECT_FALSE(test, mmb_limit_take(l, NULL, LM_T0 + 100 * NSEC_PER_MSEC));
	KUNIT_EXPECT_TRUE(test, mmb_limit_take(l, NULL, LM_T0 + 100 * NSEC_PER_MSEC));
	mmb_limit_free(l);
}

#define LM_THREADS	4
#define LM_TAKES	20000

struct lm_thread {
	struct mmb_limit *l;
	atomic64_t *clock;	/* NULL: a fixed time */
	unsigned int passed;
	struct completion done;
};

static int lm_thread_fn(void *arg)
{
	struct lm_thread *th = arg;
	unsigned int i;
	u64 now = LM_T0;

	for (i = 0; i < LM_TAKES; i++) {
		if (th->clock)
			now = atomic64_add_return(NSEC_PER_MSEC, th->clock);
		th->passed += mmb_bucket_take(&th->l->tat, th->l->cost, th->l->tau, now);
		if (!(i % 64))
			cond_resched();
	}
	complete(&th->done);
	return 0;
}

/* Threads taking at once: @clock NULL, all at one time; else a shared clock. */
static unsigned int lm_race(struct kunit *test, struct mmb_limit *l, atomic64_t *clock)
{
	struct lm_thread th[LM_THREADS];
	unsigned int i, passed = 0;

	for (i = 0; i < LM_THREADS; i++) {
		struct task_struct *task;

		th[i] = (struct lm_thread){ .l = l, .clock = clock };
		init_completion(&th[i].done);
		task = kthread_create(lm_thread_fn, &th[i], "mmbt-limit/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		kthread_bind(task, i % num_online_cpus());
		wake_up_process(task);
	}
	for (i = 0; i < LM_THREADS; i++) {
		wait_for_completion(&th[i].done);
		passed += th[i].passed;
	}
	return passed;
}

/*
 * Many threads, on every CPU there is, taking tokens of one bucket: never
 * more than the burst at one time, nor more than burst + refill over a
 * clock that moves.
 */
static void lm_threads(struct kunit *test)
{
	struct mmb_limit *l = lm_new(test, 1000, 1, 50, false);
	atomic64_t clock = ATOMIC64_INIT(LM_T0);
	unsigned int passed;
	u64 elapsed;

	KUNIT_EXPECT_EQ(test, lm_race(test, l, NULL), 50);
	mmb_limit_free(l);
	l = lm_new(test, 1000, 1, 50, false);
	passed = lm_race(test, l, &clock);
	elapsed = atomic64_read(&clock) - LM_T0;
	/* 1000/s: a token per ms of the clock, which each take moves by 1 ms. */
	KUNIT_EXPECT_LE(test, (u64)passed, 50 + div_u64(elapsed, l->cost));
	KUNIT_EXPECT_GE(test, (u64)passed, div_u64(elapsed, l->cost) / 2);
	mmb_limit_free(l);
}

static const u8 lm_a4[4] = { 192, 0, 2, 1 }, lm_b4[4] = { 192, 0, 2, 2 };
static const u8 lm_c4[4] = { 192, 0, 3, 1 }, lm_d4[4] = { 198, 51, 100, 7 };
static const u8 lm_a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 lm_b6[16] = { 0x20, 0x01, 0x0d, 0xb8, [8] = 0x55, [15] = 2 };
static const u8 lm_c6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };

/* A TCP SYN from @saddr to port @dport, parsed into @pkt; NULL-free by the caller. */
static struct sk_buff *lm_pkt(struct kunit *test, bool v6, const u8 *saddr, u16 dport,
			      struct mmb_pkt *pkt)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN, .ttl = 64,
		.sport = 40000, .dport = dport,
	};
	struct sk_buff *skb;

	memcpy(d.saddr, saddr, v6 ? 16 : 4);
	memcpy(d.daddr, v6 ? lm_c6 : lm_d4, v6 ? 16 : 4);
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, pkt), 0);
	return skb;
}

/* A meter per source: each its own burst; another family's packet does not apply. */
static void lm_meter_keys(struct kunit *test)
{
	struct mmb_limit *l = lm_meter(test, 10, 3, MMB_FIELD_IP_SADDR, 32, 64);
	struct mmb_pkt a, b, six;
	struct sk_buff *sa = lm_pkt(test, false, lm_a4, 22, &a);
	struct sk_buff *sb = lm_pkt(test, false, lm_b4, 22, &b);
	struct sk_buff *s6 = lm_pkt(test, true, lm_a6, 22, &six);

	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0, 10), 3);
	KUNIT_EXPECT_EQ(test, lm_take(l, &b, LM_T0, 10), 3);
	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0, 10), 0);
	KUNIT_EXPECT_EQ(test, lm_take(l, &six, LM_T0, 10), 0);
	/* 100 ms later, one each. */
	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0 + 100 * NSEC_PER_MSEC, 10), 1);
	KUNIT_EXPECT_EQ(test, lm_take(l, &b, LM_T0 + 100 * NSEC_PER_MSEC, 10), 1);
	mmb_limit_free(l);
	/* With over, a packet without the key does not apply either. */
	l = lm_meter(test, 10, 3, MMB_FIELD_IP_SADDR, 32, 64);
	l->spec.over = true;
	KUNIT_EXPECT_EQ(test, lm_take(l, &six, LM_T0, 10), 0);
	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0, 10), 7);
	mmb_limit_free(l);
	/* Per destination port: one bucket for all the sources. */
	l = lm_meter(test, 10, 3, MMB_FIELD_TCP_DPORT, 16, 64);
	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0, 2), 2);
	KUNIT_EXPECT_EQ(test, lm_take(l, &b, LM_T0, 2), 1);
	KUNIT_EXPECT_EQ(test, lm_take(l, &six, LM_T0, 2), 0);
	mmb_limit_free(l);
	kfree_skb(sa);
	kfree_skb(sb);
	kfree_skb(s6);
}

/* Prefixes: a /24 of IPv4 sources is one key, a /64 of IPv6 ones. */
static void lm_meter_prefix(struct kunit *test)
{
	struct mmb_limit *l = lm_meter(test, 10, 4, MMB_FIELD_IP_SADDR, 24, 64);
	struct mmb_pkt a, b, c, a6, b6, c6;
	struct sk_buff *skb[6] = {
		lm_pkt(test, false, lm_a4, 22, &a), lm_pkt(test, false, lm_b4, 22, &b),
		lm_pkt(test, false, lm_c4, 22, &c), lm_pkt(test, true, lm_a6, 22, &a6),
		lm_pkt(test, true, lm_b6, 22, &b6), lm_pkt(test, true, lm_c6, 22, &c6),
	};
	unsigned int i;

	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0, 3), 3);
	KUNIT_EXPECT_EQ(test, lm_take(l, &b, LM_T0, 3), 1);	/* the same /24 */
	KUNIT_EXPECT_EQ(test, lm_take(l, &c, LM_T0, 5), 4);	/* another */
	mmb_limit_free(l);
	l = lm_meter(test, 10, 4, MMB_FIELD_IP6_SADDR, 64, 64);
	KUNIT_EXPECT_EQ(test, lm_take(l, &a6, LM_T0, 3), 3);
	KUNIT_EXPECT_EQ(test, lm_take(l, &b6, LM_T0, 3), 1);	/* the same /64 */
	KUNIT_EXPECT_EQ(test, lm_take(l, &c6, LM_T0, 5), 4);	/* another */
	KUNIT_EXPECT_EQ(test, lm_take(l, &a, LM_T0, 5), 0);	/* IPv4: no key */
	mmb_limit_free(l);
	for (i = 0; i < ARRAY_SIZE(skb); i++)
		kfree_skb(skb[i]);
}

/* How many slots of @l hold a key. */
static unsigned int lm_keys(const struct mmb_limit *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->spec.size; i++)
		n += READ_ONCE(l->head[i / MMB_METER_WAYS].seq[i % MMB_METER_WAYS]) != 0;
	return n;
}

/* A meter's key of an IPv4 source @addr, as if a packet came. */
static bool lm_key_take(struct mmb_limit *l, u32 addr, u64 now)
{
	struct mmb_pkt pkt = {};

	pkt.key.b[MMB_IMG_FAMILY] = 4;
	put_unaligned_be32(addr, &pkt.key.b[mmb_field(MMB_FIELD_IP_SADDR)->img]);
	return mmb_limit_take(l, &pkt, now);
}

/*
 * A table at its size: a new key finds no slot while all are busy (beyond
 * its rate, counted as full); once they are idle (full buckets), new keys
 * take their slots, each eviction counted; never more keys than the size.
 */
static void lm_evict(struct kunit *test)
{
	struct mmb_limit *l = lm_meter(test, 10, 2, MMB_FIELD_IP_SADDR, 32, 8);
	u64 evicted, full, t1 = LM_T0 + 100 * NSEC_PER_MSEC;
	unsigned int i, within = 0;

	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_TRUE(test, lm_key_take(l, 0x0a000000 + i, LM_T0));
	KUNIT_EXPECT_EQ(test, lm_keys(l), 8);
	/* All busy (each owes a token until t1): the ninth is beyond. */
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 0x0a0000ff, LM_T0));
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, evicted, 0);
	KUNIT_EXPECT_EQ(test, full, 1);
	/* The old ones still have their buckets. */
	KUNIT_EXPECT_TRUE(test, lm_key_take(l, 0x0a000000, LM_T0));
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 0x0a000000, LM_T0));
	/* At t1 the other seven are full again: 1000 new keys take their slots. */
	for (i = 0; i < 1000; i++)
		within += lm_key_take(l, 0x0b000000 + i, t1 + i);
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, lm_keys(l), 8);
	KUNIT_EXPECT_GE(test, within, 7);
	KUNIT_EXPECT_EQ(test, evicted, within);
	KUNIT_EXPECT_EQ(test, full, 1 + 1000 - within);
	/* Reset counters zeroes them. */
	mmb_limit_reset(l);
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, evicted + full, 0);
	/* and counts on from zero: a new key, every slot busy. */
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 0x0c000000, t1 + 1000));
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, evicted, 0);
	KUNIT_EXPECT_EQ(test, full, 1);
	mmb_limit_free(l);
}

/*
 * Keys that collide: in a table of one slot every key does. The second
 * key waits for the first to be idle; its bucket is its own, not the
 * first's. Two rules' tables hash with different seeds.
 */
static void lm_collide(struct kunit *test)
{
	struct mmb_limit *l = lm_meter(test, 10, 2, MMB_FIELD_IP_SADDR, 32, 1);
	struct mmb_limit *m = lm_meter(test, 10, 2, MMB_FIELD_IP_SADDR, 32, 1);
	u64 t1 = LM_T0 + 200 * NSEC_PER_MSEC, evicted, full;

	KUNIT_EXPECT_TRUE(test, lm_key_take(l, 1, LM_T0));
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 2, LM_T0));
	KUNIT_EXPECT_TRUE(test, lm_key_take(l, 1, LM_T0));
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 1, LM_T0));
	/* At t1 key 1 is idle: key 2 takes the slot with a full bucket of its own. */
	KUNIT_EXPECT_TRUE(test, lm_key_take(l, 2, t1));
	KUNIT_EXPECT_TRUE(test, lm_key_take(l, 2, t1));
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 2, t1));
	KUNIT_EXPECT_FALSE(test, lm_key_take(l, 1, t1));
	mmb_limit_counts(l, &evicted, &full);
	KUNIT_EXPECT_EQ(test, evicted, 1);
	KUNIT_EXPECT_EQ(test, full, 2);
	KUNIT_EXPECT_NE(test, memcmp(&l->seed, &m->seed, sizeof(l->seed)), 0);
	mmb_limit_free(l);
	mmb_limit_free(m);
}

/* "tcp-dport 22 LIMIT drop" of priority @prio, with limit @ls, in @r. */
static struct mmb_rule *lm_limited_drop(struct kunit *test, struct mmb_rules *r, u32 prio,
					struct mmb_limit_spec ls)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[0] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	s->nmatches = 1;
	s->t[0] = (struct mmb_target_spec){ .type = MMB_TARGET_DROP, .rate = MMB_RATE_ALWAYS };
	s->ntargets = 1;
	s->prio = prio;
	s->limit = ls;
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

/*
 * In a ruleset: "tcp-dport 22 limit over 1/hour burst 5 drop". Packets
 * to another port take no token; of port 22's, the first 5 pass, the rest
 * drop, and the rule counts the ones it applied to. A rule of higher
 * priority that decides cuts the limit off: no token taken, though it
 * comes after the limit's rule in their entry (a later handle).
 */
static void lm_classify(struct kunit *test)
{
	const struct mmb_limit_spec over5 = { .rate = 1, .unit = 3600, .burst = 5, .over = true };
	struct mmb_match_spec m22 = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_ruleset *rs;
	struct mmb_rule *rule, *acc;
	struct mmb_verdict v;
	struct mmb_stats st;
	struct mmb_pkt p22, p80;
	struct sk_buff *s22 = lm_pkt(test, false, lm_a4, 22, &p22);
	struct sk_buff *s80 = lm_pkt(test, false, lm_a4, 80, &p80);
	unsigned int i, dropped = 0;

	rule = lm_limited_drop(test, r, 0, over5);
	/* A sure accept of a higher priority for port 22, for a while. */
	acc = mmbt_rule_make(test, false, &m22, 1,
			     &(struct mmbt_target){ .type = MMB_TARGET_ACCEPT }, 1);
	acc->prio = 9;
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, acc, NULL), 0);
	rs = mmbt_rs(r);
	rcu_read_lock();
	for (i = 0; i < 20; i++) {
		mmb_classify(rs, &p22, s22, &v);
		KUNIT_EXPECT_TRUE(test, v.accept);
		mmb_classify(rs, &p80, s80, &v);
		KUNIT_EXPECT_FALSE(test, v.drop || v.accept);
	}
	rcu_read_unlock();
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, acc), 0);
	rs = mmbt_rs(r);
	rcu_read_lock();
	for (i = 0; i < 20; i++) {
		mmb_classify(rs, &p22, s22, &v);
		dropped += v.drop;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, dropped, 15);
	mmb_stats_read(rule->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 15);
	kfree_skb(s22);
	kfree_skb(s80);
	mmbt_rules_done(test, r);
}

/*
 * Rules of lower priority found after a rule with a limit wait for it: a
 * packet its limit lets it drop is counted by none of them (issue 40's
 * "tcp-syn ... limit ... drop" above an accept that logs and counts). An
 * accept of priority 5 in a table of its own (a rule read), then one of
 * priority 0 alone in its entry (the entry's hot word).
 */
static void lm_waits(struct kunit *test)
{
	struct mmb_match_spec mtcp = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	struct mmb_match_spec msrc = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ,
						get_unaligned_be32(lm_a4));
	const struct mmbt_target acc = { .type = MMB_TARGET_ACCEPT };
	const struct mmb_limit_spec over2 = { .rate = 1, .unit = 3600, .burst = 2, .over = true };
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *lim, *a5, *a0;
	unsigned int i, dropped = 0;
	struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_stats st;
	struct mmb_pkt p22;
	struct sk_buff *s22 = lm_pkt(test, false, lm_a4, 22, &p22);

	lim = lm_limited_drop(test, r, 10, over2);
	a5 = mmbt_rule_make(test, false, &mtcp, 1, &acc, 1);
	a5->prio = 5;
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, a5, NULL), 0);
	a0 = mmbt_rule_make(test, false, &msrc, 1, &acc, 1);
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, a0, NULL), 0);
	rs = mmbt_rs(r);
	rcu_read_lock();
	/* The burst: the limit lets two by, which the accept of 5 takes. */
	for (i = 0; i < 6; i++) {
		mmb_classify(rs, &p22, s22, &v);
		KUNIT_EXPECT_EQ(test, v.drop, i >= 2);
		KUNIT_EXPECT_EQ(test, v.accept, i < 2);
		dropped += v.drop;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, dropped, 4);
	mmb_stats_read(lim->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 4);
	mmb_stats_read(a5->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 2);
	mmb_stats_read(a0->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 0);
	/* Without the accept of 5: the one of 0, from its hot word, waits too. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, a5), 0);
	rs = mmbt_rs(r);
	rcu_read_lock();
	for (i = 0; i < 3; i++) {
		mmb_classify(rs, &p22, s22, &v);
		KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	}
	rcu_read_unlock();
	mmb_stats_read(a0->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 0);
	mmb_stats_read(lim->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 7);
	kfree_skb(s22);
	mmbt_rules_done(test, r);
}

/*
 * Seven accepts of priority 5 wait to be counted behind a limit of 10
 * that never applies; a limit of 3 that drops while it has a token is cut
 * off by them: asked for no token, counted nowhere. Without the accepts,
 * its token is still there and it drops.
 */
static void lm_waits_many(struct kunit *test)
{
	struct mmb_match_spec m22 = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	const struct mmbt_target acc = { .type = MMB_TARGET_ACCEPT };
	const struct mmb_limit_spec never = { .rate = 1000, .unit = 1, .burst = 1000,
					      .over = true };
	const struct mmb_limit_spec once = { .rate = 1, .unit = 3600, .burst = 1 };
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *l10, *l3, *a[7];
	struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_stats st;
	struct mmb_pkt p22;
	struct sk_buff *s22 = lm_pkt(test, false, lm_a4, 22, &p22);
	unsigned int i;

	l10 = lm_limited_drop(test, r, 10, never);
	for (i = 0; i < ARRAY_SIZE(a); i++) {
		a[i] = mmbt_rule_make(test, false, &m22, 1, &acc, 1);
		a[i]->prio = 5;
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, a[i], NULL), 0);
	}
	l3 = lm_limited_drop(test, r, 3, once);
	rs = mmbt_rs(r);
	rcu_read_lock();
	mmb_classify(rs, &p22, s22, &v);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
	for (i = 0; i < ARRAY_SIZE(a); i++) {
		mmb_stats_read(a[i]->stats, &st);
		KUNIT_EXPECT_EQ(test, st.packets, 1);
	}
	mmb_stats_read(l3->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 0);
	for (i = 0; i < ARRAY_SIZE(a); i++)
		KUNIT_ASSERT_EQ(test, mmbt_remove(r, a[i]), 0);
	rs = mmbt_rs(r);
	rcu_read_lock();
	mmb_classify(rs, &p22, s22, &v);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	mmb_stats_read(l3->stats, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 1);
	kfree_skb(s22);
	mmbt_rules_done(test, r);
}

/* A rule "tcp-dport 22 ... drop" with limit attributes @fn puts; its error. */
static int lm_nl_add(struct nlt *t, bool stateful, u16 field,
		     void (*fn)(struct nlt *t, unsigned int *at), unsigned int *at)
{
	unsigned int rule, list, nest;
	u8 port[2] = { 0, 22 }, addr[4] = { 192, 0, 2, 1 };

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, field);
	if (field == MMB_FIELD_TCP_DPORT)
		nlt_put(t, MMB_MATCH_A_VALUE, port, 2);
	else
		nlt_put(t, MMB_MATCH_A_VALUE, addr, 4);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, stateful ? MMB_TARGET_ACCEPT : MMB_TARGET_DROP);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	if (stateful)
		nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	nest = nlt_nest(t, MMB_RULE_A_LIMIT);
	*at = nest;
	fn(t, at);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, rule);
	return nlt_send(t);
}

static void lm_nl_good(struct nlt *t, unsigned int *at)
{
	nlt_u32(t, MMB_LIMIT_A_RATE, 10);
	nlt_u32(t, MMB_LIMIT_A_UNIT, 1);
}

static void lm_nl_rate0(struct nlt *t, unsigned int *at)
{
	*at = nlt_u32(t, MMB_LIMIT_A_RATE, 0);
	nlt_u32(t, MMB_LIMIT_A_UNIT, 1);
}

static void lm_nl_unit(struct nlt *t, unsigned int *at)
{
	nlt_u32(t, MMB_LIMIT_A_RATE, 10);
	*at = nlt_u32(t, MMB_LIMIT_A_UNIT, 7);
}

static void lm_nl_burst0(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	*at = nlt_u32(t, MMB_LIMIT_A_BURST, 0);
}

static void lm_nl_burst_huge(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	*at = nlt_u32(t, MMB_LIMIT_A_BURST, MMB_LIMIT_BURST_MAX + 1);
}

static void lm_nl_size0(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	nlt_u16(t, MMB_LIMIT_A_PER, MMB_FIELD_IP_SADDR);
	*at = nlt_u32(t, MMB_LIMIT_A_SIZE, 0);
}

static void lm_nl_size_huge(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	nlt_u16(t, MMB_LIMIT_A_PER, MMB_FIELD_IP_SADDR);
	*at = nlt_u32(t, MMB_LIMIT_A_SIZE, MMB_LIMIT_SIZE_MAX + 1);
}

static void lm_nl_per_payload(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	*at = nlt_u16(t, MMB_LIMIT_A_PER, MMB_FIELD_TCP_PAYLOAD);
}

static void lm_nl_per_mark(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	*at = nlt_u16(t, MMB_LIMIT_A_PER, MMB_FIELD_META_MARK);
}

static void lm_nl_prefix(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	nlt_u16(t, MMB_LIMIT_A_PER, MMB_FIELD_IP_SADDR);
	*at = nlt_u8(t, MMB_LIMIT_A_PREFIX, 33);
}

static void lm_nl_prefix_alone(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	*at = nlt_u8(t, MMB_LIMIT_A_PREFIX, 24);
}

static void lm_nl_per6(struct nlt *t, unsigned int *at)
{
	lm_nl_good(t, at);
	nlt_u16(t, MMB_LIMIT_A_PER, MMB_FIELD_IP6_SADDR);
	nlt_u8(t, MMB_LIMIT_A_PREFIX, 64);
	nlt_u32(t, MMB_LIMIT_A_SIZE, 1024);
}

static void lm_nl_no_unit(struct nlt *t, unsigned int *at)
{
	nlt_u32(t, MMB_LIMIT_A_RATE, 10);
}

/* What netlink refuses, each error at its attribute; good limits are taken. */
static void lm_netlink(struct kunit *test)
{
	static const struct {
		void (*fn)(struct nlt *t, unsigned int *at);
		int err;
		const char *msg;
	} bad[] = {
		{ lm_nl_rate0, -ERANGE, NULL },
		{ lm_nl_unit, -EINVAL, "unit" },
		{ lm_nl_burst0, -ERANGE, NULL },
		{ lm_nl_burst_huge, -ERANGE, NULL },
		{ lm_nl_size0, -ERANGE, NULL },
		{ lm_nl_size_huge, -ERANGE, NULL },
		{ lm_nl_per_payload, -EINVAL, "key" },
		{ lm_nl_per_mark, -EINVAL, "key" },
		{ lm_nl_prefix, -EINVAL, "prefix" },
		{ lm_nl_prefix_alone, -EINVAL, "per" },
	};
	unsigned int i, at;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, lm_nl_add(&t, false, MMB_FIELD_TCP_DPORT, bad[i].fn, &at),
				    bad[i].err, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, t.offs, at, "case %u", i);
		if (bad[i].msg)
			KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(t.msg, bad[i].msg), "case %u: %s",
						  i, t.msg);
	}
	/* No unit: the missing attribute is named. */
	KUNIT_EXPECT_EQ(test, lm_nl_add(&t, false, MMB_FIELD_TCP_DPORT, lm_nl_no_unit, &at),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, t.miss_type, MMB_LIMIT_A_UNIT);
	/* Stateful: at the limit. */
	KUNIT_EXPECT_EQ(test, lm_nl_add(&t, true, MMB_FIELD_TCP_DPORT, lm_nl_good, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "stateless"));
	/* An IPv6 key in an IPv4 rule: at the limit. */
	KUNIT_EXPECT_EQ(test, lm_nl_add(&t, false, MMB_FIELD_IP_SADDR, lm_nl_per6, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "family"));
	KUNIT_EXPECT_EQ(test, lm_nl_add(&t, false, MMB_FIELD_TCP_DPORT, lm_nl_good, &at), 0);
	KUNIT_EXPECT_NE(test, t.handle, 0);
	KUNIT_EXPECT_EQ(test, lm_nl_add(&t, false, MMB_FIELD_TCP_DPORT, lm_nl_per6, &at), 0);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case mmb_limit_cases[] = {
	KUNIT_CASE(lm_bucket),
	KUNIT_CASE(lm_over),
	KUNIT_CASE(lm_tick),
	KUNIT_CASE(lm_tokens),
	KUNIT_CASE(lm_threads),
	KUNIT_CASE(lm_meter_keys),
	KUNIT_CASE(lm_meter_prefix),
	KUNIT_CASE(lm_evict),
	KUNIT_CASE(lm_collide),
	KUNIT_CASE(lm_classify),
	KUNIT_CASE(lm_waits),
	KUNIT_CASE(lm_waits_many),
	KUNIT_CASE(lm_netlink),
	{}
};

static struct kunit_suite mmb_limit_suite = {
	.name = "mmb-limit",
	.test_cases = mmb_limit_cases,
};

kunit_test_suite(mmb_limit_suite);
