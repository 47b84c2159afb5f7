// SPDX-License-Identifier: GPL-2.0
/*
 * mmb classifier benchmark, priorities (suite "bench-mmb-prio", run by
 * scripts/bench; it reports, it never fails on numbers): the tables a
 * lookup probes on an ordered ACL-like ruleset (first match: every rule a
 * priority of its own), with the early stop,
 * against the same rules at one priority, where every table is probed.
 * Probes are counted at the KUnit test point; times are the best of a few
 * rounds, without the flow cache.
 */
#include <linux/ktime.h>
#include <linux/prandom.h>

#include "../kmod/tables.h"
#include "../kmod/test.h"
#include "util.h"

#define BP_RULES 2000
#define BP_PKTS 1024
#define BP_REPS 5

struct bp {
	struct mmb_rule_spec spec[BP_RULES];
	struct sk_buff *skb[BP_PKTS];
	struct mmb_pkt pkt[BP_PKTS];
};

static unsigned long bp_probes;

static void bp_probe(unsigned int i)
{
	bp_probes++;
}

static void bp_free(void *data)
{
	WRITE_ONCE(mmb_test_points.probe, NULL);
}

static u32 bp_rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

static u32 bp_addr(struct rnd_state *rs)
{
	return 0x0a000000 | bp_rnd(rs, 8) << 16 | (prandom_u32_state(rs) & 0xffff);
}

/*
 * An ACL's rule: a source prefix, often a destination, a protocol and
 * port; prefixes of @min bits or more.
 */
static void bp_rule(struct rnd_state *rs, struct mmb_rule_spec *s, unsigned int min)
{
	static const u16 ports[] = { 22, 53, 80, 443, 1521, 8080 };
	unsigned int n = 0;

	memset(s, 0, sizeof(*s));
	s->m[n] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, bp_addr(rs));
	s->m[n++].plen = min + bp_rnd(rs, 33 - min);
	if (bp_rnd(rs, 4)) {
		s->m[n] = mmbt_match(MMB_FIELD_IP_DADDR, MMB_OP_EQ, bp_addr(rs));
		s->m[n++].plen = min + bp_rnd(rs, 33 - min);
	}
	if (bp_rnd(rs, 4)) {
		s->m[n++] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
		s->m[n++] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ,
				       ports[bp_rnd(rs, ARRAY_SIZE(ports))]);
	}
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = bp_rnd(rs, 2) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
}

/* The rules, first match (@ordered: rule i of n at priority n - i) or flat. */
static struct mmb_rules *bp_load(struct kunit *test, struct bp *b, bool ordered,
				 unsigned int *tables)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_table_info info;
	struct mmb_rule *rule;
	unsigned int i;

	for (i = 0; i < BP_RULES; i++) {
		b->spec[i].prio = ordered ? BP_RULES - i : 0;
		rule = mmb_rule_create(&b->spec[i], NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, &b->spec[i].img), 0);
	}
	for (*tables = 0; !mmbt_table(r, *tables, &info); (*tables)++)
		;
	return r;
}

static void bp_measure(struct kunit *test, struct bp *b, struct mmb_rules *r,
		       unsigned int tables, const char *what, unsigned int min)
{
	const struct mmb_ruleset *rs = mmbt_rs(r);
	u64 best = U64_MAX, t;
	unsigned int rep, i, decided = 0;
	struct mmb_verdict v;

	for (rep = 0; rep < BP_REPS; rep++) {
		bp_probes = 0;
		decided = 0;
		rcu_read_lock();	/* BH on: no flow cache, every lookup probes */
		t = ktime_get_ns();
		for (i = 0; i < BP_PKTS; i++) {
			mmb_classify(rs, &b->pkt[i], b->skb[i], &v);
			decided += v.accept || v.drop;
		}
		t = ktime_get_ns() - t;
		rcu_read_unlock();
		best = min(best, t);
	}
	kunit_info(test, "bench: %-28s /%u+ %u rules %3u tables: %6lu.%02lu probes/packet, classify %5llu ns (decided %u of %u)\n",
		   what, min, BP_RULES, tables, bp_probes / BP_PKTS,
		   bp_probes % BP_PKTS * 100 / BP_PKTS, best / BP_PKTS, decided, BP_PKTS);
}

/* Rules with prefixes of @min bits or more, and packets of their own. */
static void bp_run(struct kunit *test, struct bp *b, unsigned int min)
{
	struct mmb_rules *r;
	struct rnd_state rs;
	unsigned int i, tables;

	prandom_seed_state(&rs, 0x62707269);
	for (i = 0; i < BP_RULES; i++)
		bp_rule(&rs, &b->spec[i], min);
	/* Packets inside a random rule's prefixes: the ACL's own traffic. */
	for (i = 0; i < BP_PKTS; i++) {
		const struct mmb_rule_spec *s = &b->spec[bp_rnd(&rs, BP_RULES)];
		struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .sport = 1000 };
		unsigned int k;

		put_unaligned_be32(bp_addr(&rs), d.saddr);
		put_unaligned_be32(bp_addr(&rs), d.daddr);
		d.dport = 53;
		for (k = 0; k < s->nmatches; k++) {
			const struct mmb_match_spec *m = &s->m[k];
			u32 host = m->plen < 32 ? ~0U >> m->plen : 0;
			u8 *a = m->field == MMB_FIELD_IP_SADDR ? d.saddr : d.daddr;

			if (m->field == MMB_FIELD_UDP_DPORT)
				d.dport = get_unaligned_be16(m->value);
			if (m->field != MMB_FIELD_IP_SADDR && m->field != MMB_FIELD_IP_DADDR)
				continue;
			put_unaligned_be32((get_unaligned_be32(m->value) & ~host) |
					   (get_unaligned_be32(a) & host), a);
		}
		b->skb[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, b->skb[i]);
		KUNIT_ASSERT_EQ(test, mmb_parse(b->skb[i], &b->pkt[i]), 0);
	}
	r = bp_load(test, b, true, &tables);
	bp_measure(test, b, r, tables, "ordered ACL, first match", min);
	mmbt_rules_done(test, r);
	r = bp_load(test, b, false, &tables);
	bp_measure(test, b, r, tables, "same rules, one priority", min);
	mmbt_rules_done(test, r);
	for (i = 0; i < BP_PKTS; i++)
		kfree_skb(b->skb[i]);
}

/*
 * Wide prefixes (/12 and up) make tables whose bounds differ; narrower
 * ones (/16 and up) relax into a few tables each holding high and low
 * rules, which stop nothing: tuple merging ignores priorities.
 */
static void bench_prio_test(struct kunit *test)
{
	struct bp *b = mmbt_vzalloc(test, sizeof(*b));

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, bp_free, NULL), 0);
	WRITE_ONCE(mmb_test_points.probe, bp_probe);
	bp_run(test, b, 12);
	bp_run(test, b, 16);
}

static struct kunit_case bench_prio_cases[] = {
	KUNIT_CASE(bench_prio_test),
	{}
};

static struct kunit_suite bench_prio_suite = {
	.name = "bench-mmb-prio",
	.test_cases = bench_prio_cases,
};

kunit_test_suite(bench_prio_suite);
