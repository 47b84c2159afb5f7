// SPDX-License-Identifier: GPL-2.0
/*
 * mmb meter microbenchmark, run by scripts/bench (suite "bench-mmb-meter",
 * outside the test glob: it measures, it never fails on numbers). TSC
 * cycles per packet, best of the rounds, of a flood of UDP packets to one
 * address and port from 1M distinct IPv4 sources (at random), against the
 * rule "ip-daddr 10.9.0.1 udp-dport 2000 limit over 1/minute burst 1 per
 * ip-saddr drop" (perf-guest's meter row), the table full of busy keys:
 * what each flood packet costs, step by step:
 *
 *  - the loop alone (a new source written into the packet's image), the
 *    datapath's clock, the keyed hash;
 *  - the meter's verdict (mmb_limit_take()) on 1M sources in a table of
 *    65535 keys (full: each packet reads its bucket and finds no room),
 *    in a table of 64 keys (the same work, all in the CPU's cache: what
 *    the cache misses cost is the difference), and on 1024 sources that
 *    each have a slot (a key found);
 *  - the whole classification, the plain rule "ip-daddr 10.9.0.1
 *    udp-dport 2000 drop" against the meter's rule.
 */
#include <linux/prandom.h>
#include <linux/siphash.h>

#include "../kmod/mmb.h"
#include "util.h"

#define BM_PKTS		8192
#define BM_ROUNDS	64

struct bm {
	struct kunit *test;
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	u8 *saddr;		/* the source in pkt's image */
	u32 x;			/* xorshift32 */
	u32 mask;		/* of the sources' numbers: 1M or 1024 of them */
};

/* The next source, 10.0.0.0 + a random number under mask + 1. */
static __always_inline void bm_next(struct bm *b)
{
	b->x ^= b->x << 13;
	b->x ^= b->x >> 17;
	b->x ^= b->x << 5;
	put_unaligned_be32(0x0a000000 | (b->x & b->mask), b->saddr);
}

enum bm_what { BM_LOOP, BM_NOW, BM_SIPHASH, BM_HSIPHASH, BM_TAKE, BM_CLASSIFY };

/* Cycles per packet of @what, best of BM_ROUNDS rounds of BM_PKTS packets. */
static u64 bm_run(struct bm *b, enum bm_what what, struct mmb_limit *l,
		  const struct mmb_ruleset *rs, unsigned int *yes)
{
	static const siphash_key_t sk = { { 1, 2 } };
	static const hsiphash_key_t hk = { { 1, 2 } };
	u64 c0, best = U64_MAX, sink = 0;
	struct mmb_verdict v;
	unsigned int i, k;

	*yes = 0;
	rcu_read_lock();
	for (k = 0; k < BM_ROUNDS; k++) {
		c0 = mmbt_tsc();
		for (i = 0; i < BM_PKTS; i++) {
			bm_next(b);
			switch (what) {
			case BM_LOOP:
				break;
			case BM_NOW:
				sink += ktime_get_coarse_ns();
				break;
			case BM_SIPHASH:
				sink += siphash_2u64(b->x, 0, &sk);
				break;
			case BM_HSIPHASH:
				sink += hsiphash_1u32(b->x, &hk);
				break;
			case BM_TAKE:
				*yes += mmb_limit_take(l, &b->pkt, mmb_limit_now(l));
				break;
			case BM_CLASSIFY:
				mmb_classify(rs, &b->pkt, b->skb, &v);
				*yes += v.drop;
				break;
			}
		}
		best = min(best, mmbt_tsc() - c0);
	}
	rcu_read_unlock();
	/* The hashes are not optimized away. */
	if (sink == 1)
		*yes += 1;
	*yes /= BM_ROUNDS;
	return best / BM_PKTS;
}

static struct mmb_limit_spec bm_spec(u32 size)
{
	return (struct mmb_limit_spec){
		.rate = 1, .unit = 60, .burst = 1, .over = true, .meter = true,
		.per = MMB_FIELD_IP_SADDR, .plen = 32, .size = size,
	};
}

/* A meter of @size keys, filled by a flood's first 262144 packets. */
static struct mmb_limit *bm_meter(struct bm *b, u32 size)
{
	struct mmb_limit_spec ls = bm_spec(size);
	struct mmb_limit *l = mmb_limit_new(&ls);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(b->test, l);
	for (i = 0; i < 262144; i++) {
		bm_next(b);
		mmb_limit_take(l, &b->pkt, mmb_limit_now(l));
	}
	return l;
}

static void bm_line(struct bm *b, const char *what, u64 cycles, unsigned int yes)
{
	kunit_info(b->test, "bench: meter: %-58s %5llu cycles | applied %u of %u\n", what,
		   cycles, yes, BM_PKTS);
}

/* The same, with @l's counters. */
static void bm_line_meter(struct bm *b, const char *what, u64 cycles, unsigned int yes,
			  struct mmb_limit *l)
{
	u64 evicted, full;

	mmb_limit_counts(l, &evicted, &full);
	kunit_info(b->test, "bench: meter: %-58s %5llu cycles | applied %u of %u | evicted %llu full %llu\n",
		   what, cycles, yes, BM_PKTS, evicted, full);
}

/* The rule of perf-guest's meter rows, with its limit or without (@ls NULL). */
static struct mmb_rule *bm_rule(struct kunit *test, struct mmb_rules *r,
				const struct mmb_limit_spec *ls)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[0] = mmbt_match(MMB_FIELD_IP_DADDR, MMB_OP_EQ, 0x0a090001);
	s->m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 2000);
	s->nmatches = 2;
	s->t[0] = (struct mmb_target_spec){ .type = MMB_TARGET_DROP, .rate = MMB_RATE_ALWAYS };
	s->ntargets = 1;
	if (ls)
		s->limit = *ls;
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

static void bench_meter_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .sport = 1000, .dport = 2000,
		.saddr = { 10, 0, 0, 1 }, .daddr = { 10, 9, 0, 1 }, .payload_len = 18,
	};
	struct mmb_limit_spec ls = bm_spec(65535);
	struct bm *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct mmb_rules *r;
	struct mmb_limit *l;
	unsigned int yes;
	u64 c, dc;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->test = test;
	b->x = 2463534242;
	b->mask = 0xfffff;
	b->skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, b->skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(b->skb, &b->pkt), 0);
	b->saddr = &b->pkt.key.b[mmb_field(MMB_FIELD_IP_SADDR)->img];

	c = bm_run(b, BM_LOOP, NULL, NULL, &yes);
	bm_line(b, "the loop alone (a new source)", c, yes);
	dc = bm_run(b, BM_NOW, NULL, NULL, &yes) - c;
	bm_line(b, "+ the clock (ktime_get_coarse_ns())", dc, yes);
	dc = bm_run(b, BM_SIPHASH, NULL, NULL, &yes) - c;
	bm_line(b, "+ siphash_2u64", dc, yes);
	dc = bm_run(b, BM_HSIPHASH, NULL, NULL, &yes) - c;
	bm_line(b, "+ hsiphash_1u32", dc, yes);

	l = bm_meter(b, 65535);
	dc = bm_run(b, BM_TAKE, l, NULL, &yes) - c;
	bm_line_meter(b, "+ meter verdict, 1M sources, 65535 keys (full)", dc, yes, l);
	mmb_limit_free(l);
	l = bm_meter(b, 64);
	dc = bm_run(b, BM_TAKE, l, NULL, &yes) - c;
	bm_line_meter(b, "+ meter verdict, 1M sources, 64 keys (full, in cache)", dc, yes, l);
	mmb_limit_free(l);
	b->mask = 1023;
	l = bm_meter(b, 65535);
	dc = bm_run(b, BM_TAKE, l, NULL, &yes) - c;
	bm_line_meter(b, "+ meter verdict, 1024 sources, 65535 keys (each found)", dc, yes, l);
	mmb_limit_free(l);
	b->mask = 0xfffff;

	r = mmbt_rules_new(test);
	bm_rule(test, r, NULL);
	dc = bm_run(b, BM_CLASSIFY, NULL, mmbt_rs(r), &yes) - c;
	bm_line(b, "+ classify, plain drop rule, 1M sources", dc, yes);
	mmbt_rules_done(test, r);
	r = mmbt_rules_new(test);
	bm_rule(test, r, &ls);
	bm_run(b, BM_CLASSIFY, NULL, mmbt_rs(r), &yes);	/* fills the table */
	dc = bm_run(b, BM_CLASSIFY, NULL, mmbt_rs(r), &yes) - c;
	bm_line(b, "+ classify, the meter's rule, 1M sources (full)", dc, yes);
	mmbt_rules_done(test, r);
	kfree_skb(b->skb);
}

static struct kunit_case bench_meter_cases[] = {
	KUNIT_CASE(bench_meter_test),
	{}
};

static struct kunit_suite bench_meter_suite = {
	.name = "bench-mmb-meter",
	.test_cases = bench_meter_cases,
};

kunit_test_suite(bench_meter_suite);
