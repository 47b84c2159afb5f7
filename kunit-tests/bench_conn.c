// SPDX-License-Identifier: GPL-2.0
/*
 * mmb connection table microbenchmark, run by scripts/bench (suite
 * "bench-mmb-conn", outside the test glob: it measures, it never fails on
 * numbers). With 1k, 100k and 1M live connections of a reflexive ACL:
 * TSC cycles per packet of an established connection (the lookup alone;
 * lookup and the connection's verdict; the whole judgement, rules
 * included), connections created per second on one CPU, and memory per
 * connection (slab object and table buckets).
 */
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/vmalloc.h>

#include "../kmod/conn.h"
#include "util.h"

#define NIMG	65536	/* packets per measurement: more than the caches hold */
#define REPS	5	/* the best of: noise only ever adds time */

struct bc {
	struct kunit *test;
	struct mmb_rules *r;
	struct mmb_conns mc;
	struct sk_buff *skb;	/* the counters read its length */
	struct mmb_pkt *img;	/* NIMG images */
	struct rnd_state rs;
};

/* The flow numbered @i: a client of 10.0.0.0/8 to a server, UDP. */
static void bc_flow(struct mmbt_pkt_desc *d, u32 i)
{
	struct rnd_state rs;

	prandom_seed_state(&rs, i + 1);
	put_unaligned_be32(0x0a000000 | (prandom_u32_state(&rs) & 0xffffff), d->saddr);
	put_unaligned_be32(prandom_u32_state(&rs) | 0x80000000, d->daddr);
	d->sport = prandom_u32_state(&rs);
	d->dport = prandom_u32_state(&rs);
}

/* Images of the flows @first + 0 .. NIMG - 1, or of random ones below @n. */
static void bc_images(struct bc *b, u32 first, u32 n)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	unsigned int i;

	for (i = 0; i < NIMG; i++) {
		struct sk_buff *skb;

		bc_flow(&d, n ? prandom_u32_state(&b->rs) % n : first + i);
		skb = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(b->test, skb);
		KUNIT_ASSERT_EQ(b->test, mmb_parse(skb, &b->img[i]), 0);
		kfree_skb(skb);
	}
}

/* mmb_hook()'s steps for one image; 1 if it passes. */
static int bc_judge(struct bc *b, const struct mmb_ruleset *rs, const struct mmb_pkt *pkt)
{
	struct mmb_verdict v;

	mmb_verdict_init(&v);
	mmb_conn_lookup(&b->mc, pkt, b->skb, &v);
	mmb_classify_rules(rs, pkt, b->skb, &v);
	if ((v.conn || v.nsf) && mmb_conn_verdict(&b->mc, pkt, b->skb, &v))
		return 0;
	return !(v.drop && !v.accept);
}

/* Create the connections of flows @from to @to - 1; the cycles it took, and *@ns. */
static u64 bc_create(struct bc *b, u32 from, u32 to, u64 *ns)
{
	u64 cycles = 0, c0, t0;
	u32 i, k;

	*ns = 0;
	for (; from < to; from += NIMG) {
		const struct mmb_ruleset *rs;

		bc_images(b, from, 0);
		k = min_t(u32, NIMG, to - from);
		rcu_read_lock();
		local_bh_disable();
		rs = mmb_rules_get(b->r);
		t0 = ktime_get_ns();
		c0 = mmbt_tsc();
		for (i = 0; i < k; i++)
			bc_judge(b, rs, &b->img[i]);
		cycles += mmbt_tsc() - c0;
		*ns += ktime_get_ns() - t0;
		local_bh_enable();
		rcu_read_unlock();
		cond_resched();		/* rhashtable grows in a worker */
	}
	return cycles;
}

/* Let the table's worker finish growing it, as other CPUs would; its buckets. */
static unsigned int bc_settle(struct bc *b)
{
	struct rhashtable *ht = &b->mc.ht;
	struct bucket_table *tbl;
	unsigned int i, size = 0;

	for (i = 0; i < 32; i++) {
		flush_work(&ht->run_work);
		rcu_read_lock();
		tbl = rht_dereference_rcu(ht->tbl, ht);
		size = tbl->size;
		if (!rht_grow_above_75(ht, tbl) && !rcu_access_pointer(tbl->future_tbl)) {
			rcu_read_unlock();
			break;
		}
		rcu_read_unlock();
		schedule_work(&ht->run_work);
	}
	return size;
}

enum { BC_LOOKUP, BC_CONN, BC_JUDGE, BC_MAX };

/* Cycles per packet of established connections, for each of BC_*. */
static void bc_measure(struct bc *b, u64 *best, unsigned int *passed)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	unsigned int k, i;
	u64 c0, c;

	for (i = 0; i < BC_MAX; i++)
		best[i] = U64_MAX;
	*passed = 0;
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(b->r);
	for (k = 0; k < REPS; k++) {
		c0 = mmbt_tsc();
		for (i = 0; i < NIMG; i++) {
			mmb_verdict_init(&v);
			mmb_conn_lookup(&b->mc, &b->img[i], b->skb, &v);
			*passed += !!v.conn;
		}
		c = mmbt_tsc() - c0;
		best[BC_LOOKUP] = min(best[BC_LOOKUP], c);
		c0 = mmbt_tsc();
		for (i = 0; i < NIMG; i++) {
			mmb_verdict_init(&v);
			mmb_conn_lookup(&b->mc, &b->img[i], b->skb, &v);
			if (v.conn)
				mmb_conn_verdict(&b->mc, &b->img[i], b->skb, &v);
		}
		c = mmbt_tsc() - c0;
		best[BC_CONN] = min(best[BC_CONN], c);
		c0 = mmbt_tsc();
		for (i = 0; i < NIMG; i++)
			bc_judge(b, rs, &b->img[i]);
		c = mmbt_tsc() - c0;
		best[BC_JUDGE] = min(best[BC_JUDGE], c);
	}
	local_bh_enable();
	rcu_read_unlock();
	for (i = 0; i < BC_MAX; i++)
		best[i] /= NIMG;
	*passed /= REPS;
}

static void bc_rules(struct bc *b)
{
	struct mmb_match_spec m = { .field = MMB_FIELD_IP_SADDR, .plen = 8, .vlen = 4 };
	const struct mmb_match_spec all = { .field = MMB_FIELD_ALL };

	m.value[0] = 10;
	mmbt_rule_add(b->test, b->r, true, MMB_TARGET_ACCEPT, &m, 1);
	mmbt_rule_add(b->test, b->r, false, MMB_TARGET_DROP, &all, 1);
}

static void bench_conns_test(struct kunit *test)
{
	static const u32 sizes[] = { 1000, 100000, 1000000 };
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	struct bc *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	unsigned int k, passed, buckets;
	u64 best[BC_MAX], cycles, ns;
	u32 n = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->test = test;
	b->img = vcalloc(NIMG, sizeof(*b->img));
	KUNIT_ASSERT_NOT_NULL(test, b->img);
	bc_flow(&d, 0);
	b->skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, b->skb);
	prandom_seed_state(&b->rs, 7);
	b->r = mmbt_rules_new(test);
	bc_rules(b);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&b->mc, &init_net), 0);
	b->mc.max = MMB_CONN_MAX_LIMIT;
	b->mc.rpf = false;	/* one device, no routes */
	mmbt_conn_cap(test, 2 * MMB_CONN_MAX_LIMIT);
	/* Nothing expires while it runs. */
	b->mc.timeouts[MMB_CONN_UDP_UNREPLIED] = 3600 * HZ;
	b->mc.timeouts[MMB_CONN_UDP_REPLIED] = 3600 * HZ;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		cycles = bc_create(b, n, sizes[k], &ns);
		kunit_info(test, "bench: create %u to %u connections: %llu cycles, %llu ns each: %llu per second\n",
			   n, sizes[k], cycles / (sizes[k] - n), ns / (sizes[k] - n),
			   div64_u64((u64)(sizes[k] - n) * NSEC_PER_SEC, max(ns, 1ULL)));
		n = sizes[k];
		buckets = bc_settle(b);
		bc_images(b, 0, n);
		bc_measure(b, best, &passed);
		kunit_info(test, "bench: %7u connections (%u live, %u buckets): established lookup %llu cycles | lookup+conn verdict %llu | whole judgement %llu | found %u of %u\n",
			   n, atomic_read(&b->mc.count), buckets, best[BC_LOOKUP], best[BC_CONN],
			   best[BC_JUDGE], passed, NIMG);
		kunit_info(test, "bench: %7u connections: memory %u B object + %u B buckets per connection\n",
			   n, mmb_conn_size(),
			   (unsigned int)((u64)buckets * sizeof(void *) / max(n, 1U)));
	}
	mmb_conns_exit(&b->mc);
	kfree_skb(b->skb);
	vfree(b->img);
}

static struct kunit_case mmb_bench_conn_cases[] = {
	KUNIT_CASE(bench_conns_test),
	{}
};

static struct kunit_suite mmb_bench_conn_suite = {
	.name = "bench-mmb-conn",
	.test_cases = mmb_bench_conn_cases,
};

kunit_test_suites(&mmb_bench_conn_suite);
