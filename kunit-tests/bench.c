// SPDX-License-Identifier: GPL-2.0
/*
 * mmb classifier microbenchmark, run by scripts/bench (suite "bench-mmb",
 * outside the test glob: it measures, it never fails on numbers). Prints
 * one "bench:" line per measurement: ns and TSC cycles per packet for the
 * classification step (mask, hash, probe, compare) and for parse +
 * classification, on prepared packets that match no rule (the firewall
 * case), and control-plane times.
 */
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../kmod/mmb.h"
#include "util.h"

#define NPKT 1024
#define ROUNDS 2000

struct bench {
	struct sk_buff *skb[NPKT];
	struct mmb_pkt pkt[NPKT];
	struct rnd_state rs;
};

static void packets(struct kunit *test, struct bench *b)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	unsigned int i;

	for (i = 0; i < NPKT; i++) {
		u32 s = prandom_u32_state(&b->rs), t = prandom_u32_state(&b->rs);

		memcpy(d.saddr, &s, 4);
		memcpy(d.daddr, &t, 4);
		d.sport = prandom_u32_state(&b->rs);
		d.dport = prandom_u32_state(&b->rs);
		b->skb[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, b->skb[i]);
		KUNIT_ASSERT_EQ(test, mmb_parse(b->skb[i], &b->pkt[i]), 0);
	}
}

static void free_packets(struct bench *b)
{
	unsigned int i;

	for (i = 0; i < NPKT; i++)
		kfree_skb(b->skb[i]);
}

static struct mmb_match_spec m32(u16 field, u32 v, u8 plen)
{
	const struct mmb_field_info *f = mmb_field(field);
	struct mmb_match_spec m = { .field = field, .plen = plen ?: f->bits };
	int i;

	m.vlen = mmb_field_size(f->bits);
	for (i = m.vlen - 1; i >= 0; i--, v >>= 8)
		m.value[i] = v;
	return m;
}

/*
 * Noise from the shared host only ever adds time: each figure is the best
 * of REPS repetitions.
 */
#define REPS 5

static void measure(struct kunit *test, struct bench *b, const struct mmb_ruleset *rs,
		    const char *what)
{
	u64 t0, c0, ns1 = U64_MAX, cy1 = U64_MAX, ns2 = U64_MAX, cy2 = U64_MAX, cy3 = U64_MAX;
	unsigned int r, i, k, drops = 0;
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	rcu_read_lock();
	local_bh_disable();
	for (k = 0; k < REPS; k++) {
		t0 = ktime_get_ns();
		c0 = mmbt_tsc();
		for (r = 0; r < ROUNDS / REPS; r++)
			for (i = 0; i < NPKT; i++) {
				mmb_classify(rs, &b->pkt[i], b->skb[i], &v);
				drops += v.drop;
			}
		ns1 = min(ns1, ktime_get_ns() - t0);
		cy1 = min(cy1, mmbt_tsc() - c0);
		t0 = ktime_get_ns();
		c0 = mmbt_tsc();
		for (r = 0; r < ROUNDS / REPS / 4; r++)
			for (i = 0; i < NPKT; i++) {
				mmb_parse(b->skb[i], &pkt);
				mmb_classify(rs, &pkt, b->skb[i], &v);
				drops += v.drop;
			}
		ns2 = min(ns2, ktime_get_ns() - t0);
		cy2 = min(cy2, mmbt_tsc() - c0);
		c0 = mmbt_tsc();
		for (r = 0; r < ROUNDS / REPS / 4; r++)
			for (i = 0; i < NPKT; i++)
				drops += mmb_parse(b->skb[i], &pkt);
		cy3 = min(cy3, mmbt_tsc() - c0);
	}
	local_bh_enable();
	rcu_read_unlock();
	r = ROUNDS / REPS * NPKT;
	kunit_info(test, "bench: %-30s classify %4llu ns %5llu cycles | parse+classify %4llu ns %5llu cycles | parse %4llu cycles | matched %u\n",
		   what, ns1 / r, cy1 / r, ns2 / (r / 4), cy2 / (r / 4), cy3 / (r / 4), drops);
}

struct tuple {
	u32 saddr, daddr;
	u16 sport, dport;
};

static struct mmb_rule *five_tuple(struct bench *b, u32 handle, struct tuple *tu,
				   struct mmb_stats_pool *pool)
{
	struct mmb_rule_spec *s = kzalloc(sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	if (!s)
		return NULL;
	tu->saddr = prandom_u32_state(&b->rs);
	tu->daddr = prandom_u32_state(&b->rs);
	tu->sport = prandom_u32_state(&b->rs);
	tu->dport = prandom_u32_state(&b->rs);
	s->nmatches = 5;
	s->m[0] = m32(MMB_FIELD_IP_SADDR, tu->saddr, 0);
	s->m[1] = m32(MMB_FIELD_IP_DADDR, tu->daddr, 0);
	s->m[2] = m32(MMB_FIELD_IP_PROTO, IPPROTO_UDP, 0);
	s->m[3] = m32(MMB_FIELD_UDP_SPORT, tu->sport, 0);
	s->m[4] = m32(MMB_FIELD_UDP_DPORT, tu->dport, 0);
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	rule = mmb_rule_create(s, pool, NULL);
	kfree(s);
	if (IS_ERR(rule))
		return NULL;
	rule->handle = handle;
	return rule;
}

/* A packet of @t's flow. */
static void tuple_desc(struct mmbt_pkt_desc *d, const struct tuple *t)
{
	put_unaligned_be32(t->saddr, d->saddr);
	put_unaligned_be32(t->daddr, d->daddr);
	d->sport = t->sport;
	d->dport = t->dport;
}

/*
 * Many flows (NCOLD, as many as the perf runs' pktgen sends), so that a
 * large table is read from memory rather than from the caches: images only,
 * classified against one skb (the counters read its length).
 */
#define NCOLD 65536

static void cold_images(struct kunit *test, struct mmb_pkt *img, const struct tuple *tu,
			unsigned int n, struct rnd_state *rs)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	unsigned int i;

	for (i = 0; i < NCOLD; i++) {
		struct sk_buff *skb;

		if (tu) {
			tuple_desc(&d, &tu[prandom_u32_state(rs) % n]);
		} else {
			put_unaligned_be32(prandom_u32_state(rs), d.saddr);
			put_unaligned_be32(prandom_u32_state(rs), d.daddr);
			d.sport = prandom_u32_state(rs);
			d.dport = prandom_u32_state(rs);
		}
		skb = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, mmb_parse(skb, &img[i]), 0);
		kfree_skb(skb);
	}
}

static void measure_cold(struct kunit *test, const struct mmb_pkt *img, struct sk_buff *skb,
			 const struct mmb_ruleset *rs, const char *what)
{
	unsigned int r, i, k, drops = 0;
	u64 c0, cy = U64_MAX;
	struct mmb_verdict v;

	rcu_read_lock();
	local_bh_disable();
	for (k = 0; k < REPS; k++) {
		c0 = mmbt_tsc();
		for (r = 0; r < 4; r++)
			for (i = 0; i < NCOLD; i++) {
				mmb_classify(rs, &img[i], skb, &v);
				drops += v.drop;
			}
		cy = min(cy, mmbt_tsc() - c0);
	}
	local_bh_enable();
	rcu_read_unlock();
	kunit_info(test, "bench: %-30s classify, %u flows %5llu cycles | matched %u\n",
		   what, NCOLD, cy / (4 * NCOLD), drops);
}

/* Packets of NPKT random rules among the first @n: every one matches. */
static void hit_packets(struct kunit *test, struct bench *h, struct bench *b,
			const struct tuple *tu, unsigned int n)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	unsigned int i;

	for (i = 0; i < NPKT; i++) {
		tuple_desc(&d, &tu[prandom_u32_state(&b->rs) % n]);
		kfree_skb(h->skb[i]);
		h->skb[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, h->skb[i]);
		KUNIT_ASSERT_EQ(test, mmb_parse(h->skb[i], &h->pkt[i]), 0);
	}
}

static void bench_rules_test(struct kunit *test)
{
	static const unsigned int sizes[] = { 1, 1000, 10000, 100000 };
	struct bench *b = vzalloc(sizeof(*b)), *h = vzalloc(sizeof(*h));
	struct tuple *tu = vcalloc(100001, sizeof(*tu));
	struct mmb_pkt *img = vcalloc(NCOLD, sizeof(*img));
	struct mmb_ruleset *rs;
	struct mmb_rules *r;
	unsigned int n = 0, k;
	char what[40];
	u64 t;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, tu);
	KUNIT_ASSERT_NOT_NULL(test, img);
	prandom_seed_state(&b->rs, 1);
	packets(test, b);
	r = mmbt_rules_new(test);	/* added to in place, as single adds are */
	rs = mmbt_rs(r);
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		/* As a batch of the rules up to this size hands out counters. */
		struct mmb_stats_pool pool = { .want = sizes[k] - n };
		u64 tins = 0, t1;

		t = ktime_get_ns();
		for (; n < sizes[k]; n++) {
			struct mmb_rule *rule = five_tuple(b, n + 1, &tu[n], &pool);

			KUNIT_ASSERT_NOT_NULL(test, rule);
			t1 = ktime_get_ns();
			KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
			tins += ktime_get_ns() - t1;
		}
		mmb_stats_pool_end(&pool);
		kunit_info(test, "bench: load to %u five-tuple rules: %llu us (%llu us inserting)\n",
			   sizes[k], (ktime_get_ns() - t) / 1000, tins / 1000);
		snprintf(what, sizeof(what), "%u five-tuple rules", sizes[k]);
		measure(test, b, rs, what);
		hit_packets(test, h, b, tu, n);
		snprintf(what, sizeof(what), "%u five-tuple rules, hits", sizes[k]);
		measure(test, h, rs, what);
		if (sizes[k] < 10000)
			continue;
		cold_images(test, img, NULL, n, &b->rs);
		snprintf(what, sizeof(what), "%u five-tuple rules", sizes[k]);
		measure_cold(test, img, b->skb[0], rs, what);
		cold_images(test, img, tu, n, &b->rs);
		snprintf(what, sizeof(what), "%u five-tuple rules, hits", sizes[k]);
		measure_cold(test, img, b->skb[0], rs, what);
	}
	/* One add and one delete at 100k rules. */
	{
		struct mmb_rule *rule = five_tuple(b, n + 1, &tu[n], NULL);

		KUNIT_ASSERT_NOT_NULL(test, rule);
		t = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
		kunit_info(test, "bench: one add at %u rules: %llu ns\n", n,
			   ktime_get_ns() - t);
		t = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, mmbt_remove(r, mmb_ruleset_find(rs, n / 2)), 0);
		kunit_info(test, "bench: one delete at %u rules: %llu ns\n", n,
			   ktime_get_ns() - t);
	}
	t = ktime_get_ns();
	mmbt_rules_done(test, r);
	kunit_info(test, "bench: free %u rules: %llu us\n", n, (ktime_get_ns() - t) / 1000);
	free_packets(b);
	free_packets(h);
	vfree(b);
	vfree(h);
	vfree(tu);
	vfree(img);
}

/*
 * M masks: source and destination prefixes of M different length pairs,
 * without the flow cache and with two sizes of it (NPKT flows).
 */
static void bench_masks_test(struct kunit *test)
{
	static const unsigned int counts[] = { 1, 8, 26, 64 };
	static const unsigned int caches[] = { 0, 8, 1024, 4096 };
	unsigned int saved = mmb_cache_entries, k, i, j;
	struct bench *b = vzalloc(sizeof(*b));
	char what[40];

	KUNIT_ASSERT_NOT_NULL(test, b);
	prandom_seed_state(&b->rs, 2);
	packets(test, b);
	for (k = 0; k < ARRAY_SIZE(counts) * ARRAY_SIZE(caches); k++) {
		unsigned int cache = caches[k % ARRAY_SIZE(caches)];
		struct mmb_rules *r;

		/* The same rules each time: the cache is the only difference. */
		prandom_seed_state(&b->rs, 3 + k / ARRAY_SIZE(caches));
		mmb_cache_entries = cache;
		r = mmbt_rules_new(test);
		for (i = 0; i < counts[k / ARRAY_SIZE(caches)]; i++) {
			for (j = 0; j < 16; j++) {
				struct mmb_rule_spec *s = kzalloc(sizeof(*s), GFP_KERNEL);
				struct mmb_rule *rule;

				KUNIT_ASSERT_NOT_NULL(test, s);
				s->nmatches = 2;
				s->m[0] = m32(MMB_FIELD_IP_SADDR, prandom_u32_state(&b->rs),
					      8 + i % 25);
				s->m[1] = m32(MMB_FIELD_IP_DADDR, prandom_u32_state(&b->rs),
					      8 + i / 25 * 8);
				s->ntargets = 1;
				s->t[0].type = MMB_TARGET_DROP;
				s->t[0].rate = MMB_RATE_ALWAYS;
				rule = mmb_rule_create(s, NULL, NULL);
				kfree(s);
				KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
				KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
			}
		}
		snprintf(what, sizeof(what), "%u masks x 16, cache %u",
			 counts[k / ARRAY_SIZE(caches)], cache);
		measure(test, b, mmbt_rs(r), what);
		mmbt_rules_done(test, r);
	}
	mmb_cache_entries = saved;
	free_packets(b);
	vfree(b);
}

static struct kunit_case mmb_bench_cases[] = {
	KUNIT_CASE(bench_rules_test),
	KUNIT_CASE(bench_masks_test),
	{}
};

static struct kunit_suite mmb_bench_suite = {
	.name = "bench-mmb",
	.test_cases = mmb_bench_cases,
};

kunit_test_suites(&mmb_bench_suite);
