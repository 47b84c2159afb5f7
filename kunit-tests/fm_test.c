// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the early stop by a verdict that the header image does not
 * decide alone (issues 39 and 43). A rule with residues (merged into a
 * table of a shorter mask) or a slow match (a port range) that accepts or
 * drops cuts off every rule of lower priority, so the lookup stops there
 * too; but another packet of the same image under the tables' masks may
 * miss that rule, so a lookup that fills a flow cache entry goes on. The
 * packets here come in pairs that share that image and differ where only
 * the deciding rule looks, each pair sent again and again through the
 * cache (BH off, as the datapath), and every verdict and count is checked
 * against the naive evaluation of the ordered rules.
 */
#include <linux/prandom.h>
#include <net/tcp.h>

#include "../kmod/tables.h"
#include "../kmod/test.h"
#include "util.h"

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

static u64 fmt_hits(const struct mmb_rule *rule)
{
	struct mmb_stats st;

	mmb_stats_read(rule->stats, &st);
	return st.packets;
}

static unsigned int fmt_probes;

static void fmt_probe(unsigned int i)
{
	fmt_probes++;
}

static void fmt_free(void *data)
{
	WRITE_ONCE(mmb_test_points.probe, NULL);
}

static struct mmb_rule *fmt_add(struct kunit *test, struct mmb_rules *r, u32 prio, bool accept,
				const struct mmb_match_spec *m, unsigned int nm)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s->m, m, nm * sizeof(*m));
	s->nmatches = nm;
	s->ntargets = 1;
	s->t[0].type = accept ? MMB_TARGET_ACCEPT : MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = prio;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

static struct mmb_match_spec fmt_prefix(u16 field, u32 a, u8 plen)
{
	struct mmb_match_spec m = mmbt_match(field, MMB_OP_EQ, a);

	m.plen = plen;
	return m;
}

/*
 * The verdict of packet @desc, through the cache (@cache: BH off, as the
 * datapath) or not; the tables it probed.
 */
static unsigned int fmt_judge_desc(struct kunit *test, struct mmb_rules *r,
				   const struct mmbt_pkt_desc *desc, struct mmb_verdict *v,
				   bool cache)
{
	struct mmb_ruleset *rs = mmbt_rs(r);
	struct sk_buff *skb;
	struct mmb_pkt pkt;

	skb = mmbt_pkt_build(init_net.loopback_dev, desc);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	fmt_probes = 0;
	rcu_read_lock();
	if (cache)
		local_bh_disable();
	mmb_classify(rs, &pkt, skb, v);
	if (cache)
		local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return fmt_probes;
}

/* The verdict of a TCP packet @s -> @d, port @dport, as fmt_judge_desc(). */
static unsigned int fmt_judge(struct kunit *test, struct mmb_rules *r, u32 s, u32 d, u16 dport,
			      struct mmb_verdict *v, bool cache)
{
	struct mmbt_pkt_desc desc = { .proto = IPPROTO_TCP, .ttl = 64, .sport = 40000,
				      .dport = dport, .tcp_flags = TCPHDR_ACK };

	put_unaligned_be32(s, desc.saddr);
	put_unaligned_be32(d, desc.daddr);
	return fmt_judge_desc(test, r, &desc, v, cache);
}

/* Fillers of priority 1 in three tables of their own: the ruleset has a cache. */
static void fmt_fillers(struct kunit *test, struct mmb_rules *r)
{
	struct mmb_match_spec m;

	m = fmt_prefix(MMB_FIELD_IP_DADDR, 0xac100000, 12);
	fmt_add(test, r, 1, false, &m, 1);
	/* (None of them looks at a source address past /8 or a destination port.) */
	m = mmbt_match(MMB_FIELD_IP_TTL, MMB_OP_EQ, 7);
	fmt_add(test, r, 1, false, &m, 1);
	m = mmbt_match(MMB_FIELD_IP_DSCP, MMB_OP_EQ, 10);
	fmt_add(test, r, 1, false, &m, 1);
}

/*
 * A first-match policy whose top rules are not decided by the image: R, a
 * /16 merged into the table of a /8 (a residue), and P, a port range (a
 * slow match), above a block list S of lower priority that every packet
 * here is in. Without the cache, a packet R or P accepts stops there,
 * probing nothing of S's; through it, the walk goes on for the cache
 * entry, and its twin (R's residue or P's range missed, the image under
 * the tables' masks the same) that takes the entry still finds S: S drops
 * it, and S counts it, every time.
 */
static void fm_cut_cache_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *rr, *p, *s;
	struct mmb_match_spec m[4];
	struct mmb_verdict v;
	unsigned int round, all, probes;
	u64 hr, hp, hs;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fmt_free, NULL), 0);
	fmt_fillers(test, r);
	/* S: the block list, priority 5, merged into the /12's table. */
	m[0] = fmt_prefix(MMB_FIELD_IP_DADDR, 0xc0a80000, 16);
	s = fmt_add(test, r, 5, false, m, 1);
	/* A /8 makes the table; R, a /16 of priority 10, joins it with a residue. */
	m[0] = fmt_prefix(MMB_FIELD_IP_SADDR, 0x14000000, 8);
	fmt_add(test, r, 2, false, m, 1);
	m[0] = fmt_prefix(MMB_FIELD_IP_SADDR, 0x0a010000, 16);
	rr = fmt_add(test, r, 10, true, m, 1);
	/* P: a port range from 11.0.0.0/8, priority 20. */
	m[0] = fmt_prefix(MMB_FIELD_IP_SADDR, 0x0b000000, 8);
	m[1] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	m[2] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_GE, 1000);
	m[3] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_LE, 2000);
	p = fmt_add(test, r, 20, true, m, 4);
	KUNIT_ASSERT_NOT_NULL(test, mmbt_rs(r)->cache);

	WRITE_ONCE(mmb_test_points.probe, fmt_probe);
	all = fmt_judge(test, r, 0x0c000001, 0x0a090909, 80, &v, false);
	KUNIT_EXPECT_TRUE(test, !v.drop && !v.accept);
	KUNIT_EXPECT_EQ(test, all, 4U);
	/* Without a cache entry to fill: R and P stop the lookup at their table. */
	probes = fmt_judge(test, r, 0x0a010203, 0xc0a80101, 80, &v, false);
	KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
	KUNIT_EXPECT_EQ(test, probes, 1U);
	probes = fmt_judge(test, r, 0x0b000001, 0xc0a80101, 1500, &v, false);
	KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
	KUNIT_EXPECT_EQ(test, probes, 1U);
	hr = fmt_hits(rr);
	hp = fmt_hits(p);
	hs = fmt_hits(s);
	for (round = 0; round < 40; round++) {
		/* R accepts 10.1.x.x. */
		fmt_judge(test, r, 0x0a010203, 0xc0a80101, 80, &v, true);
		KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
		KUNIT_EXPECT_EQ(test, v.prio, 10U);
		/* Its twin, 10.2.x.x: R's residue misses, S drops. */
		fmt_judge(test, r, 0x0a020203, 0xc0a80101, 80, &v, true);
		KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
		KUNIT_EXPECT_EQ(test, v.prio, 5U);
		/* P accepts port 1500 from 11/8; port 2500 is S's. */
		fmt_judge(test, r, 0x0b000001, 0xc0a80101, 1500, &v, true);
		KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
		KUNIT_EXPECT_EQ(test, v.prio, 20U);
		fmt_judge(test, r, 0x0b000001, 0xc0a80101, 2500, &v, true);
		KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
		KUNIT_EXPECT_EQ(test, v.prio, 5U);
	}
	KUNIT_EXPECT_EQ(test, fmt_hits(rr) - hr, 40ULL);
	KUNIT_EXPECT_EQ(test, fmt_hits(p) - hp, 40ULL);
	/* S counts the twins only: the lookups R and P stopped never reached it. */
	KUNIT_EXPECT_EQ(test, fmt_hits(s) - hs, 80ULL);
	mmbt_rules_done(test, r);
}

/* --- the catch-all: a table of no key but the family and the way --------- */

struct fmt_want {
	bool accept, drop;
	unsigned int nrw, nsf;
};

/* An IPv4 and an IPv6 packet, each twice (the second time from the cache). */
static void fmt_wild_check(struct kunit *test, struct mmb_rules *r, const char *step,
			   struct fmt_want w4, struct fmt_want w6)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .sport = 5, .dport = 6,
				   .saddr = { 10, 0, 0, 1 }, .daddr = { 10, 0, 0, 2 } };
	struct mmb_verdict v;
	unsigned int k;

	for (k = 0; k < 4; k++) {
		const struct fmt_want *w = k & 2 ? &w6 : &w4;

		d.v6 = k & 2;
		if (d.v6) {
			d.saddr[0] = 0x20;
			d.daddr[0] = 0x20;
		}
		fmt_judge_desc(test, r, &d, &v, true);
		if (v.accept != w->accept || v.drop != w->drop || v.nrw != w->nrw ||
		    v.nsf != w->nsf)
			KUNIT_FAIL(test,
				   "%s, IPv%d%s: accept %d drop %d rewrites %u stateful %u, want %d %d %u %u",
				   step, d.v6 ? 6 : 4, k & 1 ? " again" : "", v.accept, v.drop,
				   v.nrw, v.nsf, w->accept, w->drop, w->nrw, w->nsf);
	}
}

/*
 * Rules on nothing but the family and the way, priority 0, as the default
 * of an ordered set: found without a hash, through the cache, as they come
 * and go: alone, beside a family's drop, a rewrite in the family's entry
 * (mod ip-ttl is IPv4's), a stateful rule in the default's, deleted and
 * added again in place.
 */
static void fm_wild_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmbt_target ttl = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_TTL,
				   .vlen = 1, .value = { 9 } };
	struct mmbt_target acc = { .type = MMB_TARGET_ACCEPT };
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_match_spec v4 = mmbt_match(MMB_FIELD_NET_PROTO, MMB_OP_EQ, 0x0800);
	const struct mmb_ruleset *rs;
	const struct mmb_mvec *mv;
	struct mmb_rule *a, *w, *f;
	unsigned int i, wild = 0;
	u64 ha;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fmt_free, NULL), 0);
	fmt_fillers(test, r);
	a = fmt_add(test, r, 0, true, &all, 1);
	KUNIT_ASSERT_NOT_NULL(test, mmbt_rs(r)->cache);
	ha = fmt_hits(a);
	fmt_wild_check(test, r, "all accept", (struct fmt_want){ true, false, 0, 0 },
		       (struct fmt_want){ true, false, 0, 0 });
	KUNIT_EXPECT_EQ(test, fmt_hits(a) - ha, 4ULL);
	f = fmt_add(test, r, 0, false, &v4, 1);
	fmt_wild_check(test, r, "and IPv4 drop", (struct fmt_want){ true, true, 0, 0 },
		       (struct fmt_want){ true, false, 0, 0 });
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, a), 0);
	fmt_wild_check(test, r, "all accept deleted", (struct fmt_want){ false, true, 0, 0 },
		       (struct fmt_want){ false, false, 0, 0 });
	w = mmbt_rule_targets(test, r, false, &all, 1, &ttl, 1);
	fmt_wild_check(test, r, "all mod ip-ttl", (struct fmt_want){ false, true, 1, 0 },
		       (struct fmt_want){ false, false, 0, 0 });
	a = fmt_add(test, r, 0, true, &all, 1);
	fmt_wild_check(test, r, "all accept again", (struct fmt_want){ true, true, 1, 0 },
		       (struct fmt_want){ true, false, 0, 0 });
	mmbt_rule_targets(test, r, true, &all, 1, &acc, 1);
	fmt_wild_check(test, r, "add-stateful all accept", (struct fmt_want){ true, true, 1, 1 },
		       (struct fmt_want){ true, false, 0, 1 });
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, w), 0);
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, f), 0);
	fmt_wild_check(test, r, "rewrite and drop deleted", (struct fmt_want){ true, false, 0, 1 },
		       (struct fmt_want){ true, false, 0, 1 });
	/* The catch-all's table, and the family's, had no hashing to do. */
	rs = mmbt_rs(r);
	rcu_read_lock();
	mv = rcu_dereference(rs->masks);
	for (i = 0; i < mv->n; i++)
		wild += mv->m[i]->wild;
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, wild, 1U);
	mmbt_rules_done(test, r);
}

/* --- randomized: ordered rules, pairs of packets, through the cache ------ */

#define FMT_RULES	600
#define FMT_PAIRS	300

struct fmt_ctx {
	struct mmb_rule_spec spec[FMT_RULES];
	struct mmb_rule *rule[FMT_RULES];
	u64 hits[FMT_RULES];
};

/* Prefixes of any length, a protocol, an exact port, a range or none. */
static void fmt_rule(struct rnd_state *rs, struct mmb_rule_spec *s, unsigned int prio)
{
	unsigned int n = 0, lo;
	bool udp = rnd(rs, 3) == 0;
	u16 dport = udp ? MMB_FIELD_UDP_DPORT : MMB_FIELD_TCP_DPORT;

	memset(s, 0, sizeof(*s));
	/* Few networks, so that rules overlap and merge. */
	s->m[n++] = fmt_prefix(MMB_FIELD_IP_SADDR, 0x0a000000 | rnd(rs, 4) << 16 |
			       rnd(rs, 65536), 8 + rnd(rs, 25));
	if (rnd(rs, 2))
		s->m[n++] = fmt_prefix(MMB_FIELD_IP_DADDR, 0xc0a80000 | rnd(rs, 65536),
				       16 + rnd(rs, 17));
	if (rnd(rs, 4)) {
		s->m[n++] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ,
				       udp ? IPPROTO_UDP : IPPROTO_TCP);
		switch (rnd(rs, 3)) {
		case 0:
			s->m[n++] = mmbt_match(dport, MMB_OP_EQ, 20 + rnd(rs, 8));
			break;
		case 1:
			lo = rnd(rs, 40);
			s->m[n++] = mmbt_match(dport, MMB_OP_GE, lo);
			s->m[n++] = mmbt_match(dport, MMB_OP_LE, lo + rnd(rs, 10));
			break;
		}
	}
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = rnd(rs, 2) ? MMB_TARGET_ACCEPT : MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = prio;
}

/* A packet in rule @s's box, and its twin: a host bit or the port moved. */
static void fmt_pair(struct rnd_state *rs, const struct mmb_rule_spec *s,
		     struct mmbt_pkt_desc *d, struct mmbt_pkt_desc *twin)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->ttl = 64;
	d->proto = rnd(rs, 3) ? IPPROTO_TCP : IPPROTO_UDP;
	d->sport = 40000;
	d->dport = rnd(rs, 60);
	put_unaligned_be32(0x0a000000 | prandom_u32_state(rs) % 0x40000, d->saddr);
	put_unaligned_be32(0xc0a80000 | rnd(rs, 65536), d->daddr);
	for (i = 0; i < s->nmatches; i++) {
		const struct mmb_match_spec *m = &s->m[i];
		u32 host = m->plen < 32 ? ~0U >> m->plen : 0;
		u8 *a;

		if (m->field == MMB_FIELD_IP_PROTO)
			d->proto = m->value[0];
		if ((m->field == MMB_FIELD_TCP_DPORT || m->field == MMB_FIELD_UDP_DPORT) &&
		    m->op != MMB_OP_LE)
			d->dport = get_unaligned_be16(m->value);
		if (m->field != MMB_FIELD_IP_SADDR && m->field != MMB_FIELD_IP_DADDR)
			continue;
		a = m->field == MMB_FIELD_IP_SADDR ? d->saddr : d->daddr;
		put_unaligned_be32((get_unaligned_be32(m->value) & ~host) |
				   (get_unaligned_be32(a) & host), a);
	}
	*twin = *d;
	if (rnd(rs, 2)) {
		twin->dport = d->dport + 1 + rnd(rs, 12);
	} else {
		i = rnd(rs, 24);
		twin->saddr[1 + i / 8] ^= 0x80 >> i % 8;
	}
}

/* One packet through the cache: the first matching rule (the highest) decides and counts. */
static bool fmt_check(struct kunit *test, struct fmt_ctx *c, const struct mmb_ruleset *rs,
		      const struct mmbt_pkt_desc *d, unsigned int n)
{
	struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, d);
	int first = -1;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	unsigned int i;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	rcu_read_lock();
	local_bh_disable();
	mmb_classify(rs, &pkt, skb, &v);
	local_bh_enable();
	rcu_read_unlock();
	for (i = 0; i < n && first < 0; i++)
		if (mmbt_spec_matches(&c->spec[i], &pkt, skb))
			first = i;
	kfree_skb(skb);
	ok = first < 0 ? !v.accept && !v.drop :
	     v.accept == c->rule[first]->accept && v.drop == c->rule[first]->drop &&
	     v.prio == c->rule[first]->prio;
	/* Rules above the first match nothing; the first counts the packet. */
	for (i = 0; ok && first >= 0 && i <= first; i++) {
		u64 got = fmt_hits(c->rule[i]) - c->hits[i];

		ok = got == (i == first);
	}
	for (i = 0; i < n; i++)
		c->hits[i] = fmt_hits(c->rule[i]);
	if (!ok)
		KUNIT_FAIL(test, "first match %d: accept %d drop %d prio %u", first, v.accept,
			   v.drop, v.prio);
	return ok;
}

static void fmt_run(struct kunit *test, struct fmt_ctx *c, struct mmb_rules *r,
		    struct rnd_state *rs, const char *phase)
{
	const struct mmb_ruleset *set = mmbt_rs(r);
	struct mmbt_pkt_desc d, t;
	unsigned int p, k;

	for (k = 0; k < FMT_RULES; k++)
		c->hits[k] = fmt_hits(c->rule[k]);
	for (p = 0; p < FMT_PAIRS; p++) {
		fmt_pair(rs, &c->spec[rnd(rs, FMT_RULES)], &d, &t);
		for (k = 0; k < 3; k++)
			if (!fmt_check(test, c, set, &d, FMT_RULES) ||
			    !fmt_check(test, c, set, &t, FMT_RULES)) {
				kunit_info(test, "%s: pair %u, round %u", phase, p, k);
				return;
			}
	}
}

/*
 * Ordered rules of many masks, prefixes of every length (merged with
 * residues), ports exact and in ranges; loaded in place in rule order,
 * then built again as a batch builds them.
 */
static void fm_pairs_test(struct kunit *test)
{
	struct fmt_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_table_info info;
	struct rnd_state rs;
	struct mmb_txn txn;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	prandom_seed_state(&rs, 0x666d7430);
	for (i = 0; i < FMT_RULES; i++) {
		fmt_rule(&rs, &c->spec[i], FMT_RULES - i);
		c->rule[i] = mmb_rule_create(&c->spec[i], NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(c->rule[i]));
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, c->rule[i], NULL), 0);
	}
	KUNIT_ASSERT_NOT_NULL(test, mmbt_rs(r)->cache);
	fmt_run(test, c, r, &rs, "in place");
	KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &txn, MMB_TXN_COPY), 0);
	KUNIT_ASSERT_EQ(test, mmb_txn_prepare(&txn), 0);
	mmb_txn_commit(&txn);
	KUNIT_ASSERT_NOT_NULL(test, mmbt_rs(r)->cache);
	fmt_run(test, c, r, &rs, "rebuilt");
	for (i = 0; !mmbt_table(r, i, &info); i++)
		;
	kunit_info(test, "%u ordered rules in %u tables", FMT_RULES, i);
	mmbt_rules_done(test, r);
}

static struct kunit_case fm_cases[] = {
	KUNIT_CASE(fm_cut_cache_test),
	KUNIT_CASE(fm_wild_test),
	KUNIT_CASE_SLOW(fm_pairs_test),
	{}
};

static struct kunit_suite fm_suite = {
	.name = "mmb-fm",
	.test_cases = fm_cases,
};

kunit_test_suite(fm_suite);
