// SPDX-License-Identifier: GPL-2.0
/*
 * mmb classifier benchmark, ordered ClassBench-like sets (suite
 * "bench-mmb-fm", run by scripts/bench; it reports, it never fails on
 * numbers). Issues 39 and 43: what a lookup costs on a first-match set of
 * 10k rules (mixed accept and drop, each rule a priority of its own, and a
 * default "add priority 0 all accept"), per packet, in ns and TSC cycles,
 * with the tables it probes and the rules it matches:
 *
 *   - random headers (most match no rule but the default), with and
 *     without the default rule;
 *   - rule-drawn headers (each a point in the box of a rule picked at
 *     random), first match, and the same rules all at priority 0 (every
 *     matching rule counted, nothing stops the walk), with mixed actions
 *     and, as make perf's corpus, every action drop.
 *
 * The rules are drawn here the way scripts/classbench.py draws a set
 * (a protocol, a port class per side, prefix lengths from a seed's spikes
 * spread by a smoothness, addresses down a skewed trie), in the order
 * drawn, the all-wildcard rule left out, and loaded as one batch (the
 * tables built again at commit, as mmbctl -f does). Each figure is the
 * best of a few rounds over 1024 packets, without the flow cache (BH on)
 * and with it (BH off, as in the datapath): relative numbers within one
 * run are what count on a shared host.
 */
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "../kmod/mmb.h"
#include "../kmod/tables.h"
#include "../kmod/test.h"
#include "util.h"

#define FM_RULES	10000
#define FM_PKTS		1024
#define FM_REPS		15
#define FM_ROUNDS	16		/* passes over the packets per rep */
#define FM_CLUSTERS	16

struct fm_rule {
	u32 sa, da;
	u8 sl, dl;
	u8 proto;			/* 0: any */
	bool accept;
	u16 sp[2], dp[2];		/* ranges, inclusive */
};

/* make perf's ordered sets (scripts/fm-sets), if made */
struct fm_set {
	const char *name;
	const struct fm_rule *r;
	unsigned int n;
};

#if __has_include("fm_sets.h")
#include "fm_sets.h"
#else
static const struct fm_set fm_sets[] = {};
#endif

struct fm {
	struct fm_rule rule[FM_RULES];
	unsigned int nrules;		/* of @rule: FM_RULES, or a set's */
	struct mmb_rule_spec spec;
	u32 base[FM_CLUSTERS], path[FM_CLUSTERS];
	struct sk_buff *skb[FM_PKTS];
	struct mmb_pkt pkt[FM_PKTS];
};

static unsigned long fm_probes;

static void fm_probe(unsigned int i)
{
	fm_probes++;
}

static unsigned long fm_sieved;

static void fm_sieve(unsigned int i)
{
	fm_sieved++;
}

static void fm_free(void *data)
{
	WRITE_ONCE(mmb_test_points.probe, NULL);
	WRITE_ONCE(mmb_test_points.sieved, NULL);
}

static u32 fm_rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

/* A prefix length: one of the spikes, spread binomially by smoothness 4. */
static u8 fm_plen(struct rnd_state *rs, const u8 *spikes, unsigned int n)
{
	int len = spikes[fm_rnd(rs, n)], i, d = 0;

	if (!len || len == 32)
		return len;
	for (i = 0; i < 4; i++)
		d += fm_rnd(rs, 2);
	return clamp(len + d - 2, 1, 32);
}

/* An address down a skewed trie: a cluster, then its heavy path mostly. */
static u32 fm_addr(struct rnd_state *rs, struct fm *b)
{
	unsigned int k = min(fm_rnd(rs, FM_CLUSTERS), fm_rnd(rs, FM_CLUSTERS));
	u32 coin = prandom_u32_state(rs) & prandom_u32_state(rs), a = b->base[k];
	int bit;

	for (bit = 19; bit >= 0; bit--)
		if (coin & BIT(bit) && fm_rnd(rs, 5) < 3)
			a ^= BIT(bit);
	return a ^ (b->path[k] & 0xfffff);
}

/* A port class: wildcard, high, low, a range or an exact port (weights /20). */
static void fm_port(struct rnd_state *rs, u16 *p, const u8 *w)
{
	static const u16 em[] = { 20, 21, 22, 23, 25, 53, 80, 110, 123, 143, 161, 389,
				  443, 445, 993, 1433, 1521, 3306, 3389, 5060, 8080 };
	unsigned int x = fm_rnd(rs, 20), c = 0;

	while (x >= w[c])
		x -= w[c++];
	switch (c) {
	case 0:
		p[0] = 0;
		p[1] = 65535;
		break;
	case 1:
		p[0] = 1024;
		p[1] = 65535;
		break;
	case 2:
		p[0] = 0;
		p[1] = 1023;
		break;
	case 3:
		p[0] = 1000 + fm_rnd(rs, 60000);
		p[1] = p[0] + fm_rnd(rs, 1000);
		break;
	default:
		p[0] = em[fm_rnd(rs, ARRAY_SIZE(em))];
		p[1] = p[0];
	}
}

/*
 * An ACL-like rule, a source prefix of /10 or longer: random headers seldom
 * fall in a rule (the default decides them, as in make perf's ordered sets).
 */
static void fm_draw(struct rnd_state *rs, struct fm *b, struct fm_rule *r)
{
	static const u8 ss[] = { 12, 16, 16, 20, 24, 24, 24, 28, 32, 32, 32, 32 };
	static const u8 ds[] = { 0, 0, 16, 24, 24, 24, 28, 32, 32, 32, 32, 32 };
	static const u8 sw[] = { 14, 3, 0, 1, 2 }, dw[] = { 3, 2, 1, 3, 11 };
	unsigned int p;

	do {
		memset(r, 0, sizeof(*r));
		p = fm_rnd(rs, 20);
		r->proto = p < 12 ? IPPROTO_TCP : p < 17 ? IPPROTO_UDP : p < 19 ? 0 :
			   IPPROTO_ICMP;
		r->sl = fm_plen(rs, ss, ARRAY_SIZE(ss));
		r->dl = fm_plen(rs, ds, ARRAY_SIZE(ds));
		r->sa = r->sl ? fm_addr(rs, b) & ~(u32)(0xffffffffULL >> r->sl) : 0;
		r->da = r->dl ? fm_addr(rs, b) & ~(u32)(0xffffffffULL >> r->dl) : 0;
		r->sp[1] = 65535;
		r->dp[1] = 65535;
		if (r->proto == IPPROTO_TCP || r->proto == IPPROTO_UDP) {
			fm_port(rs, r->sp, sw);
			fm_port(rs, r->dp, dw);
		}
	} while (!r->sl);
	r->accept = fm_rnd(rs, 2);
}

static unsigned int fm_ports(struct mmb_rule_spec *s, unsigned int n, u16 field, const u16 *p)
{
	if (p[0] == 0 && p[1] == 65535)
		return n;
	if (p[0] == p[1]) {
		s->m[n++] = mmbt_match(field, MMB_OP_EQ, p[0]);
		return n;
	}
	s->m[n++] = mmbt_match(field, MMB_OP_GE, p[0]);
	s->m[n++] = mmbt_match(field, MMB_OP_LE, p[1]);
	return n;
}

/* Rule @r as a spec at priority @prio; @drop: whatever its action. */
static void fm_spec(struct mmb_rule_spec *s, const struct fm_rule *r, u32 prio, bool drop)
{
	unsigned int n = 0;

	memset(s, 0, sizeof(*s));
	if (r->sl) {
		s->m[n] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, r->sa);
		s->m[n++].plen = r->sl;
	}
	if (r->dl) {
		s->m[n] = mmbt_match(MMB_FIELD_IP_DADDR, MMB_OP_EQ, r->da);
		s->m[n++].plen = r->dl;
	}
	if (r->proto)
		s->m[n++] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, r->proto);
	if (r->proto == IPPROTO_TCP) {
		n = fm_ports(s, n, MMB_FIELD_TCP_SPORT, r->sp);
		n = fm_ports(s, n, MMB_FIELD_TCP_DPORT, r->dp);
	} else if (r->proto == IPPROTO_UDP) {
		n = fm_ports(s, n, MMB_FIELD_UDP_SPORT, r->sp);
		n = fm_ports(s, n, MMB_FIELD_UDP_DPORT, r->dp);
	}
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = r->accept && !drop ? MMB_TARGET_ACCEPT : MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = prio;
}

enum fm_load { FM_ORDERED, FM_NODEFAULT, FM_FLAT, FM_FLATDROP };

/*
 * The set into @r as one batch in place of its rules: first match (+
 * default), or flat at priority 0; @nrules of its rules (0: the default
 * alone).
 */
static void fm_fill(struct kunit *test, struct fm *b, struct mmb_rules *r, enum fm_load how,
		    unsigned int nrules, unsigned int *tables)
{
	bool ordered = how == FM_ORDERED || how == FM_NODEFAULT;
	struct mmb_table_info info;
	struct mmb_rule *rule;
	struct mmb_txn txn;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &txn, MMB_TXN_EMPTY), 0);
	for (i = 0; i < nrules; i++) {
		fm_spec(&b->spec, &b->rule[i], ordered ? nrules - i : 0, how == FM_FLATDROP);
		rule = mmb_rule_create(&b->spec, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
		KUNIT_ASSERT_EQ(test, mmb_txn_add(&txn, rule, NULL), 0);
	}
	if (how == FM_ORDERED) {	/* add priority 0 all accept */
		memset(&b->spec, 0, sizeof(b->spec));
		b->spec.m[0] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
		b->spec.nmatches = 1;
		b->spec.ntargets = 1;
		b->spec.t[0].type = MMB_TARGET_ACCEPT;
		rule = mmb_rule_create(&b->spec, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
		KUNIT_ASSERT_EQ(test, mmb_txn_add(&txn, rule, NULL), 0);
	}
	mmb_txn_commit(&txn);
	for (*tables = 0; !mmbt_table(r, *tables, &info); (*tables)++)
		;
}

static struct mmb_rules *fm_load(struct kunit *test, struct fm *b, enum fm_load how,
				 unsigned int *tables)
{
	struct mmb_rules *r = mmbt_rules_new(test);

	fm_fill(test, b, r, how, b->nrules, tables);
	return r;
}

#define FM_MAX_TABLES	64

/*
 * The tables' sieves of @rs off (each saved in @saved) or back on: the
 * lookup as it was without them, for A/B runs in one boot. No writer runs
 * meanwhile, and the bench is the only reader.
 */
static void fm_sieves(const struct mmb_ruleset *rs, u64 **saved, bool on)
{
	const struct mmb_mvec *mv;
	unsigned int i;

	rcu_read_lock();
	mv = rcu_dereference(rs->masks);
	for (i = 0; mv && i < mv->n && i < FM_MAX_TABLES; i++) {
		if (!on)
			saved[i] = mv->m[i]->sieve;
		WRITE_ONCE(mv->m[i]->sieve, on ? saved[i] : NULL);
	}
	rcu_read_unlock();
}

static unsigned int fm_matched;

static void fm_count(void *arg, const struct mmb_rule *rule)
{
	fm_matched++;
}

/*
 * The table entries @pkt hits in every table of @rs (no early stop): more
 * than MMB_CACHE_HITS, and the flow cache does not keep its image.
 */
static unsigned int fm_entries(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt)
{
	const struct mmb_mvec *mv = rcu_dereference(rs->masks);
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	unsigned int i, n = 0;

	for (i = 0; mv && i < mv->n; i++) {
		mmb_mask_key(mv->m[i], &pkt->key, key);
		n += !!mmb_lookup(rs, mv->m[i], rcu_dereference(mv->m[i]->tbl), key, false);
	}
	return n;
}

/* Time the lookups of @r on the packets, without and with the flow cache. */
static void fm_measure(struct kunit *test, struct fm *b, struct mmb_rules *r,
		       unsigned int tables, const char *what)
{
	const struct mmb_ruleset *rs = mmbt_rs(r);
	u64 ns[3] = { U64_MAX, U64_MAX, U64_MAX }, cy[3] = { U64_MAX, U64_MAX, U64_MAX }, t, c;
	unsigned int rep, k, i, run, decided = 0, accepted = 0, hit = 0, many = 0;
	/* no cache with sieves (0), without (2), without, with; the cache (1) */
	static const u8 runs[] = { 0, 2, 2, 0, 1 };
	unsigned long probes, sieved;
	u64 *saved[FM_MAX_TABLES];
	struct mmb_verdict v;

	rcu_read_lock();
	fm_matched = 0;
	for (i = 0; i < FM_PKTS; i++) {
		mmb_classify_each(rs, &b->pkt[i], b->skb[i], fm_count, NULL);
		k = fm_entries(rs, &b->pkt[i]);
		hit += k;
		many += k > MMB_CACHE_HITS;
	}
	fm_probes = 0;
	fm_sieved = 0;
	WRITE_ONCE(mmb_test_points.probe, fm_probe);
	WRITE_ONCE(mmb_test_points.sieved, fm_sieve);
	for (i = 0; i < FM_PKTS; i++) {
		mmb_classify(rs, &b->pkt[i], b->skb[i], &v);
		decided += v.accept || v.drop;
		accepted += v.accept;
	}
	WRITE_ONCE(mmb_test_points.probe, NULL);
	WRITE_ONCE(mmb_test_points.sieved, NULL);
	probes = fm_probes;
	sieved = fm_sieved;
	for (run = 0; run < ARRAY_SIZE(runs); run++) {
		if (runs[run] == 2)
			fm_sieves(rs, saved, false);
		if (runs[run] == 1)	/* as the datapath: the cache is used with BH off */
			local_bh_disable();
		for (rep = 0; rep < FM_REPS; rep++) {
			t = ktime_get_ns();
			c = mmbt_tsc();
			for (k = 0; k < FM_ROUNDS; k++)
				for (i = 0; i < FM_PKTS; i++)
					mmb_classify(rs, &b->pkt[i], b->skb[i], &v);
			ns[runs[run]] = min(ns[runs[run]], ktime_get_ns() - t);
			cy[runs[run]] = min(cy[runs[run]], mmbt_tsc() - c);
		}
		if (runs[run] == 1)
			local_bh_enable();
		if (runs[run] == 2)
			fm_sieves(rs, saved, true);
	}
	rcu_read_unlock();
	k = FM_ROUNDS * FM_PKTS;
	kunit_info(test, "bench: fm %-34s %2u tables %3lu.%02lu probes (%3lu.%02lu sieved) %3u.%02u entries (%4u > %u) %4u.%02u rules/pkt | %5llu ns %6llu cycles (without sieves %6llu), cache %5llu ns %6llu cycles | accepted %u dropped %u of %u\n",
		   what, tables, probes / FM_PKTS, probes % FM_PKTS * 100 / FM_PKTS,
		   sieved / FM_PKTS, sieved % FM_PKTS * 100 / FM_PKTS,
		   hit / FM_PKTS, hit % FM_PKTS * 100 / FM_PKTS, many, MMB_CACHE_HITS,
		   fm_matched / FM_PKTS, fm_matched % FM_PKTS * 100 / FM_PKTS,
		   ns[0] / k, cy[0] / k, cy[2] / k, ns[1] / k, cy[1] / k, accepted,
		   decided - accepted, FM_PKTS);
}

/* A buffer read through between two lookups: twice a large second-level cache. */
#define FM_EVICT	(4U << 20)
#define FM_COLD_PKTS	256

static u64 fm_sink;	/* what the evicting reads summed: they are not optimised out */

static int fm_cmp_u64(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * The median cycles of a lookup in @rs of each of FM_COLD_PKTS packets,
 * each after a read through @evict: the lookup's lines come from the
 * last-level cache or memory. @cy is scratch.
 */
static u64 fm_cold_median(const struct mmb_ruleset *rs, struct fm *b, const u64 *evict, u64 *cy)
{
	struct mmb_verdict v;
	unsigned int i, j;
	u64 c, sum = 0;

	for (i = 0; i < FM_COLD_PKTS; i++) {
		for (j = 0; j < FM_EVICT / 8; j += L1_CACHE_BYTES / 8)
			sum += READ_ONCE(evict[j]);
		c = mmbt_tsc();
		mmb_classify(rs, &b->pkt[i], b->skb[i], &v);
		cy[i] = mmbt_tsc() - c;
	}
	WRITE_ONCE(fm_sink, sum);
	sort(cy, FM_COLD_PKTS, sizeof(*cy), fm_cmp_u64, NULL);
	return cy[FM_COLD_PKTS / 2];
}

/*
 * A lookup in @r after a read through a buffer that evicts the tables
 * from the CPU's first- and second-level caches, as the stack's work
 * between two packets does in the datapath (make perf), where the hot
 * loops above keep every line at hand: what the lines a lookup touches
 * cost. With the sieves, without, and the default rule alone.
 */
static void fm_cold(struct kunit *test, struct fm *b, struct mmb_rules *r, const char *what)
{
	struct mmb_rules *dflt = mmbt_rules_new(test);
	u64 *saved[FM_MAX_TABLES], *cy, with, without, alone;
	unsigned int tables;
	u64 *evict;

	fm_fill(test, b, dflt, FM_ORDERED, 0, &tables);
	evict = vmalloc(FM_EVICT);
	cy = kunit_kcalloc(test, FM_COLD_PKTS, sizeof(*cy), GFP_KERNEL);
	if (!evict || !cy) {
		vfree(evict);
		KUNIT_FAIL(test, "no memory for the cold lookups");
		return;
	}
	memset(evict, 1, FM_EVICT);
	rcu_read_lock();
	with = fm_cold_median(mmbt_rs(r), b, evict, cy);
	fm_sieves(mmbt_rs(r), saved, false);
	without = fm_cold_median(mmbt_rs(r), b, evict, cy);
	fm_sieves(mmbt_rs(r), saved, true);
	alone = fm_cold_median(mmbt_rs(dflt), b, evict, cy);
	rcu_read_unlock();
	vfree(evict);
	mmbt_rules_done(test, dflt);
	kunit_info(test, "bench: fm cold %s: a lookup after its tables left the caches, median of %u: %llu cycles (without sieves %llu, the default alone %llu)\n",
		   what, FM_COLD_PKTS, with, without, alone);
}

static void fm_free_packets(struct fm *b)
{
	unsigned int i;

	for (i = 0; i < FM_PKTS; i++) {
		kfree_skb(b->skb[i]);
		b->skb[i] = NULL;
	}
}

enum fm_traffic {
	FM_RANDOM,		/* random headers, TCP or UDP */
	FM_DRAWN,		/* each in the box of a random rule */
	FM_PERF,		/* make perf's random: UDP, 1.0.0.0-223.255.255.255 */
};

/* A random address of make perf's random traffic (pktgen's range). */
static u32 fm_perf_addr(struct rnd_state *rs)
{
	return 0x01000000 + fm_rnd(rs, 0xdfffffff - 0x01000000 + 1);
}

/* Packets of random headers or in random rules' boxes. */
static void fm_packets(struct kunit *test, struct fm *b, struct rnd_state *rs,
		       enum fm_traffic kind)
{
	unsigned int i;

	for (i = 0; i < FM_PKTS; i++) {
		struct mmbt_pkt_desc d = { .ttl = 64, .payload_len = 18 };
		const struct fm_rule *r = &b->rule[fm_rnd(rs, b->nrules)];
		u32 sa = prandom_u32_state(rs), da = prandom_u32_state(rs);

		d.proto = fm_rnd(rs, 3) ? IPPROTO_TCP : IPPROTO_UDP;
		d.sport = prandom_u32_state(rs);
		d.dport = prandom_u32_state(rs);
		if (kind == FM_PERF) {
			d.proto = IPPROTO_UDP;
			sa = fm_perf_addr(rs);
			da = fm_perf_addr(rs);
		}
		/* a rule of a protocol the packet builder knows */
		while (kind == FM_DRAWN && r->proto && r->proto != IPPROTO_TCP &&
		       r->proto != IPPROTO_UDP && r->proto != IPPROTO_ICMP)
			r = &b->rule[fm_rnd(rs, b->nrules)];
		if (kind == FM_DRAWN) {
			if (r->sl)
				sa = r->sa | (sa & (u32)(0xffffffffULL >> r->sl));
			if (r->dl)
				da = r->da | (da & (u32)(0xffffffffULL >> r->dl));
			if (r->proto)
				d.proto = r->proto;
			if (r->proto == IPPROTO_ICMP)
				d.sport = 8 << 8;	/* an echo request */
			else if (r->proto)	/* a port of each range */
				d.sport = r->sp[0] + fm_rnd(rs, r->sp[1] - r->sp[0] + 1);
			if (r->proto && r->proto != IPPROTO_ICMP)
				d.dport = r->dp[0] + fm_rnd(rs, r->dp[1] - r->dp[0] + 1);
		}
		put_unaligned_be32(sa, d.saddr);
		put_unaligned_be32(da, d.daddr);
		b->skb[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, b->skb[i]);
		KUNIT_ASSERT_EQ(test, mmb_parse(b->skb[i], &b->pkt[i]), 0);
	}
}

/*
 * Each table of @r's ruleset, in the order a lookup probes them: its mask
 * (the image's words 0-3: family and protocol, ports, source, destination;
 * "+" if it keeps more), entries, highest priority, its sieve (the word,
 * the bits kept of it, the share of the bitmap set) and, of the packets,
 * how many its sieve passes and how many hit an entry.
 */
static void fm_tables(struct kunit *test, struct fm *b, struct mmb_rules *r, const char *what)
{
	const struct mmb_ruleset *rs = mmbt_rs(r);
	const struct mmb_mvec *mv;
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	unsigned int i, k, pass, hit, set, walk;
	const struct mmb_entry *e;
	const struct mmb_rvec *rv;
	const struct mmb_mask *mask;

	rcu_read_lock();
	mv = rcu_dereference(rs->masks);
	for (i = 0; mv && i < mv->n; i++) {
		mask = mv->m[i];
		pass = 0;
		hit = 0;
		walk = 0;
		for (k = 0; k < FM_PKTS; k++) {
			pass += mmb_sieve_pass(mask, &b->pkt[k].key);
			mmb_mask_key(mask, &b->pkt[k].key, key);
			e = mmb_lookup(rs, mask, rcu_dereference(mask->tbl), key, false);
			if (!e)
				continue;
			hit++;
			rv = rcu_dereference(e->rules);
			walk += mmb_rvec_lone(rv) ? 1 : rv->n;
		}
		set = mask->sieve ? bitmap_weight((unsigned long *)mask->sieve, MMB_SIEVE_BITS) : 0;
		kunit_info(test, "bench: fm table %s %2u: mask %08x %08x %08x %08x%s entries %5u prio %5u | sieve %s word %u%s bits %2u set %4u/%u | passed %4u hit %4u of %u, %u rules in the entries hit\n",
			   what, i, get_unaligned_be32(&mask->m.b[0]),
			   get_unaligned_be32(&mask->m.b[4]), get_unaligned_be32(&mask->m.b[8]),
			   get_unaligned_be32(&mask->m.b[12]), mask->n > 1 ? "+" : " ",
			   mask->entries, mask->prio, mask->sieve ? "on" : "--",
			   mask->sieve_off / 4, mask->sieve_shift == 4 ? "lo" : "hi",
			   hweight32(mask->sieve_mask),
			   set, 1U << hweight32(mask->sieve_mask), pass, hit, FM_PKTS, walk);
	}
	rcu_read_unlock();
}

enum fm_step { FM_REFS, FM_PARSE, FM_HOOK };

/*
 * TSC cycles per packet of one step of the datapath on the packets, BH off
 * under RCU as in the rx_handler, best of FM_REPS: FM_REFS the reference
 * the hook's caller holds taken and dropped (all the other steps do that
 * too), FM_PARSE mmb_parse() alone, FM_HOOK the whole of mmb_hook(). Each
 * pass changes the packets' source addresses (in the headers, as pktgen's
 * random addresses): the images never repeat within the flow cache's
 * reach, as in a flood of random headers.
 */
static u64 fm_time(struct fm *b, enum fm_step step)
{
	struct mmb_pkt pkt __uninitialized;
	unsigned int rep, k, i;
	u64 best = U64_MAX, c;
	struct sk_buff *skb;
	__be32 *saddr;

	local_bh_disable();
	rcu_read_lock();
	for (rep = 0; rep < FM_REPS; rep++) {
		c = mmbt_tsc();
		for (k = 0; k < FM_ROUNDS; k++) {
			for (i = 0; i < FM_PKTS; i++) {
				skb = b->skb[i];
				saddr = &((struct iphdr *)skb->data)->saddr;
				*saddr ^= (__force __be32)((k + 1) * 0x9e3779b9);
				skb_get(skb);
				if (step == FM_PARSE)
					mmb_parse(skb, &pkt);
				if (step != FM_HOOK || mmb_hook(&skb) == RX_HANDLER_PASS)
					kfree_skb(skb);
				*saddr ^= (__force __be32)((k + 1) * 0x9e3779b9);
			}
		}
		best = min(best, mmbt_tsc() - c);
	}
	rcu_read_unlock();
	local_bh_enable();
	return best / (FM_ROUNDS * FM_PKTS);
}

/*
 * The whole rx_handler, mmb_hook(), on the packets as they arrive on an
 * enabled device: without rules, with the default rule alone, and with
 * the ordered set; what parsing and the reference cost; everything but the
 * reference, per packet.
 */
static void fm_hook(struct kunit *test, struct fm *b, const char *what)
{
	struct mmb_net *mn = mmb_pernet(&init_net);
	unsigned int i, tables, set_tables, dropped = 0;
	struct net_device *dev;
	struct sk_buff *skb;
	u64 refs, parse, none, dflt, set = U64_MAX, nosieve = U64_MAX, t;
	u64 *saved[FM_MAX_TABLES];
	const struct mmb_ruleset *rs;
	unsigned int k;
	int err;

	dev = mmbt_netdev_create(test);
	rtnl_lock();
	err = mmb_dev_enable(dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	for (i = 0; i < FM_PKTS; i++)
		b->skb[i]->dev = dev;

	refs = fm_time(b, FM_REFS);
	parse = fm_time(b, FM_PARSE);
	none = fm_time(b, FM_HOOK);
	fm_fill(test, b, &mn->rules, FM_ORDERED, 0, &tables);
	dflt = fm_time(b, FM_HOOK);
	fm_fill(test, b, &mn->rules, FM_ORDERED, b->nrules, &set_tables);
	/* Without the sieves and with them, in turn: off, on, on, off. */
	rs = mmbt_rs(&mn->rules);
	for (k = 0; k < 4; k++) {
		bool on = k == 1 || k == 2;

		if (!on)
			fm_sieves(rs, saved, false);
		t = fm_time(b, FM_HOOK);
		if (!on)
			fm_sieves(rs, saved, true);
		if (on)
			set = min(set, t);
		else
			nosieve = min(nosieve, t);
	}
	/* What the set drops of them (a rule's verdict: the rest pass). */
	local_bh_disable();
	rcu_read_lock();
	for (i = 0; i < FM_PKTS; i++) {
		skb = skb_get(b->skb[i]);
		if (mmb_hook(&skb) == RX_HANDLER_PASS)
			kfree_skb(skb);
		else
			dropped++;
	}
	rcu_read_unlock();
	local_bh_enable();
	fm_fill(test, b, &mn->rules, FM_FLAT, 0, &tables);	/* no rules */
	for (i = 0; i < FM_PKTS; i++)
		b->skb[i]->dev = init_net.loopback_dev;
	mmbt_netdev_destroy(dev);
	kunit_info(test, "bench: fm hook, %s, first match + default (%u tables): reference %llu, parse %llu cycles | hook less reference: no rules %llu, default alone %llu, set %llu (without sieves %llu) cycles | dropped %u of %u\n",
		   what, set_tables, refs, parse - refs, none - refs, dflt - refs, set - refs,
		   nosieve - refs, dropped, FM_PKTS);
}

static void fm_run(struct kunit *test, struct fm *b, enum fm_load how, const char *what)
{
	unsigned int tables;
	struct mmb_rules *r = fm_load(test, b, how, &tables);

	fm_measure(test, b, r, tables, what);
	mmbt_rules_done(test, r);
}

/*
 * One of make perf's ordered sets (scripts/fm-sets) as make perf loads it:
 * its tables, the hook and the lookup on make perf's random traffic, the
 * lookup on rule-drawn packets.
 */
static void fm_set_run(struct kunit *test, struct fm *b, struct rnd_state *rs,
		       const struct fm_set *set)
{
	char what[48];
	struct mmb_rules *r;
	unsigned int tables;

	if (WARN_ON(set->n > FM_RULES))
		return;
	memcpy(b->rule, set->r, set->n * sizeof(*set->r));
	b->nrules = set->n;
	fm_packets(test, b, rs, FM_PERF);
	r = fm_load(test, b, FM_ORDERED, &tables);
	fm_tables(test, b, r, set->name);
	snprintf(what, sizeof(what), "%s, random (perf), first match + default", set->name);
	fm_measure(test, b, r, tables, what);
	fm_cold(test, b, r, set->name);
	mmbt_rules_done(test, r);
	snprintf(what, sizeof(what), "%s, random (perf)", set->name);
	fm_hook(test, b, what);
	fm_free_packets(b);

	fm_packets(test, b, rs, FM_DRAWN);
	snprintf(what, sizeof(what), "%s, rule-drawn, first match + default", set->name);
	fm_run(test, b, FM_ORDERED, what);
	fm_free_packets(b);
}

static void bench_fm_test(struct kunit *test)
{
	struct fm *b = mmbt_vzalloc(test, sizeof(*b));
	struct rnd_state rs;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fm_free, NULL), 0);
	prandom_seed_state(&rs, 0x666d3339);
	for (i = 0; i < FM_CLUSTERS; i++) {
		b->base[i] = prandom_u32_state(&rs) & 0xfff00000;
		b->path[i] = prandom_u32_state(&rs);
	}
	for (i = 0; i < FM_RULES; i++)
		fm_draw(&rs, b, &b->rule[i]);

	b->nrules = FM_RULES;
	fm_packets(test, b, &rs, FM_RANDOM);
	fm_hook(test, b, "random");
	fm_run(test, b, FM_ORDERED, "random, first match + default");
	fm_run(test, b, FM_NODEFAULT, "random, first match, no default");
	fm_run(test, b, FM_FLATDROP, "random, prio 0, all drop");
	fm_free_packets(b);

	fm_packets(test, b, &rs, FM_DRAWN);
	fm_run(test, b, FM_ORDERED, "rule-drawn, first match + default");
	fm_run(test, b, FM_FLAT, "rule-drawn, prio 0");
	fm_run(test, b, FM_FLATDROP, "rule-drawn, prio 0, all drop");
	fm_free_packets(b);

	for (i = 0; i < ARRAY_SIZE(fm_sets); i++)
		fm_set_run(test, b, &rs, &fm_sets[i]);
}

static struct kunit_case bench_fm_cases[] = {
	KUNIT_CASE_SLOW(bench_fm_test),
	{}
};

static struct kunit_suite bench_fm_suite = {
	.name = "bench-mmb-fm",
	.test_cases = bench_fm_cases,
};

kunit_test_suite(bench_fm_suite);
