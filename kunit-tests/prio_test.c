// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: rule priorities (docs/priorities.md). The classifier against
 * a naive evaluator of an ordered chain, on random rules of many masks and
 * priorities, through merged tables and the flow cache, while rules come
 * and go; the early stop of the lookup; what rewrites and stateful rules
 * of a priority a verdict cuts off do, and what a connection's priority
 * weighs.
 */
#include <linux/prandom.h>
#include <linux/sort.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/tables.h"
#include "../kmod/test.h"
#include "util.h"

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

static struct mmb_match_spec mt(u16 field, u8 op, u32 v)
{
	return mmbt_match(field, op, v);
}

/* --- the naive evaluator ------------------------------------------------- */

#define PR_RULES 480
#define PR_PKTS 700

struct pr_ctx {
	struct mmb_rule_spec spec[PR_RULES];
	struct mmb_rule *rule[PR_RULES];	/* NULL: not in the ruleset */
	u64 hits[PR_RULES];
	unsigned int order[PR_RULES];		/* the chain: live rules, sorted */
	unsigned int n;
	unsigned int agree, decided, cut, rewritten;
};

static struct pr_ctx *pr_sort_ctx;

/* The chain's order: descending priority, then handle (insertion). */
static int pr_cmp(const void *a, const void *b)
{
	const struct mmb_rule *ra = pr_sort_ctx->rule[*(const unsigned int *)a];
	const struct mmb_rule *rb = pr_sort_ctx->rule[*(const unsigned int *)b];

	if (ra->prio != rb->prio)
		return ra->prio > rb->prio ? -1 : 1;
	return ra->handle < rb->handle ? -1 : 1;
}

static void pr_chain(struct pr_ctx *c)
{
	unsigned int i;

	c->n = 0;
	for (i = 0; i < PR_RULES; i++)
		if (c->rule[i])
			c->order[c->n++] = i;
	pr_sort_ctx = c;
	sort(c->order, c->n, sizeof(c->order[0]), pr_cmp, NULL);
}

/* What the chain says of a packet: first match, a priority at a time. */
struct pr_want {
	bool accept, drop, decided;
	u32 prio;
	unsigned int nrw;
	const struct mmb_rule *rw[PR_RULES];
	bool match[PR_RULES];
};

/*
 * Walk the rules as an nftables chain would, in order: each group of
 * equal priority is judged whole (accept beats drop), and the first group
 * that accepts or drops ends the walk; the rewrites of the rules walked
 * over apply, in the order walked.
 */
static void pr_naive(struct pr_ctx *c, const struct mmb_pkt *pkt, const struct sk_buff *skb,
		     struct pr_want *w)
{
	unsigned int k, i;

	memset(w, 0, sizeof(*w));
	for (k = 0; k < c->n; k++) {
		const struct mmb_rule *rule;

		i = c->order[k];
		rule = c->rule[i];
		if (w->decided && rule->prio < w->prio)
			break;
		w->match[i] = mmbt_spec_matches(&c->spec[i], pkt, skb);
		if (!w->match[i])
			continue;
		if (rule->rewrite)
			w->rw[w->nrw++] = rule;
		if (rule->accept || rule->drop) {
			w->decided = true;
			w->prio = rule->prio;
			w->accept |= rule->accept;
			w->drop |= rule->drop;
		}
	}
	/* The rest, for the counters: matched, but cut off. */
	for (; k < c->n; k++) {
		i = c->order[k];
		w->match[i] = mmbt_spec_matches(&c->spec[i], pkt, skb);
	}
}

/* --- random rules and packets at their edges ----------------------------- */

static const u16 pr_ports[] = { 22, 53, 80, 443, 1521, 8080 };

static u32 pr_addr4(struct rnd_state *rs)
{
	return 0x0a000000 | rnd(rs, 4) << 16 | (prandom_u32_state(rs) & 0xffff);
}

static void pr_addr6(struct rnd_state *rs, u8 *a)
{
	memset(a, 0, 16);
	a[0] = 0xfd;
	a[5] = rnd(rs, 4);
	a[14] = rnd(rs, 256);
	a[15] = rnd(rs, 256);
}

static void pr_match_addr(struct rnd_state *rs, struct mmb_match_spec *m, bool v6, bool src)
{
	if (v6) {
		*m = mt(src ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP6_DADDR, MMB_OP_EQ, 0);
		pr_addr6(rs, m->value);
		m->plen = 56 + rnd(rs, 73);
	} else {
		*m = mt(src ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP_DADDR, MMB_OP_EQ, pr_addr4(rs));
		m->plen = 18 + rnd(rs, 15);
	}
	if (!rnd(rs, 25))
		m->op = MMB_OP_NE;
}

/*
 * A rule like those of a router's ACL: prefixes, a protocol, exact ports,
 * ranges or exclusions, now and then an option or payload match; accept,
 * drop or a rewrite; a priority from a few
 * (ties) or from many (first match).
 */
static void pr_rule(struct rnd_state *rs, struct mmb_rule_spec *s)
{
	bool v6 = !rnd(rs, 4);
	u8 proto = rnd(rs, 5) ? (rnd(rs, 2) ? IPPROTO_TCP : IPPROTO_UDP) : 0;
	u16 dport = proto == IPPROTO_TCP ? MMB_FIELD_TCP_DPORT : MMB_FIELD_UDP_DPORT;
	u16 sport = proto == IPPROTO_TCP ? MMB_FIELD_TCP_SPORT : MMB_FIELD_UDP_SPORT;
	unsigned int n = 0, lo, t = 0, i;

	memset(s, 0, sizeof(*s));
	if (rnd(rs, 8))
		pr_match_addr(rs, &s->m[n++], v6, true);
	if (rnd(rs, 3))
		pr_match_addr(rs, &s->m[n++], v6, false);
	if (proto) {
		s->m[n++] = mt(v6 ? MMB_FIELD_IP6_NEXT : MMB_FIELD_IP_PROTO, MMB_OP_EQ, proto);
		switch (rnd(rs, 5)) {
		case 0:
			lo = pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))];
			s->m[n++] = mt(dport, MMB_OP_GE, lo);
			s->m[n++] = mt(dport, MMB_OP_LE, lo + rnd(rs, 100));
			break;
		case 1:
			s->m[n++] = mt(dport, MMB_OP_NE, pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))]);
			break;
		case 2:
		case 3:
			s->m[n++] = mt(dport, MMB_OP_EQ, pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))]);
			break;
		}
		if (!rnd(rs, 6))
			s->m[n++] = mt(sport, MMB_OP_EQ, pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))]);
		if (proto == IPPROTO_TCP && !rnd(rs, 6)) {
			s->m[n] = mt(MMB_FIELD_TCP_OPT_MSS, rnd(rs, 2) ? MMB_OP_EQ : MMB_OP_NE, 0);
			s->m[n++].vlen = 0;	/* present, or absent */
		}
		if (proto == IPPROTO_UDP && !rnd(rs, 6)) {
			s->m[n] = mt(MMB_FIELD_UDP_PAYLOAD, rnd(rs, 4) ? MMB_OP_EQ : MMB_OP_NE, 0);
			s->m[n].vlen = 1 + rnd(rs, 3);
			s->m[n].value[0] = rnd(rs, 2);
			for (i = 1; i < s->m[n].vlen; i++)
				s->m[n].value[i] = s->m[n].value[0] + i * 7;
			n++;
		}
	}
	if (!n || (n == 1 && s->m[0].op == MMB_OP_NE))	/* not nearly every packet */
		pr_match_addr(rs, &s->m[n++], v6, true);
	s->nmatches = n;
	switch (rnd(rs, 6)) {
	case 0:		/* a rewrite: no verdict (accept and drop come alone) */
		s->t[t] = (struct mmb_target_spec){
			.type = MMB_TARGET_MOD, .vlen = 1, .plen = 8,
			.field = v6 ? MMB_FIELD_IP6_HOP_LIMIT : MMB_FIELD_IP_TTL,
		};
		s->t[t++].value[0] = 1 + rnd(rs, 200);
		break;
	default:
		s->t[t].type = rnd(rs, 3) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
		s->t[t++].rate = MMB_RATE_ALWAYS;
	}
	s->ntargets = t;
	s->prio = rnd(rs, 3) ? rnd(rs, 4) * 10 : rnd(rs, 1000);
}

/* A packet of @s's family inside its prefixes and at the edges of its ports. */
static void pr_packet(struct rnd_state *rs, const struct mmb_rule_spec *s,
		      struct mmbt_pkt_desc *d, u8 *opts)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->v6 = rnd(rs, 2);
	d->proto = rnd(rs, 2) ? IPPROTO_TCP : IPPROTO_UDP;
	d->ttl = 64;
	d->sport = pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))];
	d->dport = pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))] + rnd(rs, 3) * rnd(rs, 60);
	d->payload_len = rnd(rs, 5);
	d->payload_seed = rnd(rs, 2);
	d->tcp_flags = TCPHDR_ACK;
	if (rnd(rs, 2)) {	/* MSS 1460, NOP padded */
		static const u8 mss[4] = { 2, 4, 0x05, 0xb4 };

		memcpy(opts, mss, 4);
		d->tcp_opts = opts;
		d->tcp_opt_len = 4;
	}
	for (i = 0; i < s->nmatches; i++) {
		const struct mmb_match_spec *m = &s->m[i];

		switch (m->field) {
		case MMB_FIELD_IP6_SADDR:
		case MMB_FIELD_IP6_DADDR:
		case MMB_FIELD_IP6_NEXT:
			d->v6 = true;
			break;
		case MMB_FIELD_IP_SADDR:
		case MMB_FIELD_IP_DADDR:
		case MMB_FIELD_IP_PROTO:
			d->v6 = false;
			break;
		}
	}
	if (d->v6) {
		pr_addr6(rs, d->saddr);
		pr_addr6(rs, d->daddr);
	} else {
		put_unaligned_be32(pr_addr4(rs), d->saddr);
		put_unaligned_be32(pr_addr4(rs), d->daddr);
	}
	for (i = 0; i < s->nmatches; i++) {
		const struct mmb_match_spec *m = &s->m[i];
		unsigned int len = d->v6 ? 16 : 4, b;
		u8 *a;

		switch (m->field) {
		case MMB_FIELD_IP_PROTO:
		case MMB_FIELD_IP6_NEXT:
			d->proto = m->value[0];
			break;
		case MMB_FIELD_TCP_DPORT:
		case MMB_FIELD_UDP_DPORT:
			/* the value, or a neighbour: both edges of a range */
			d->dport = get_unaligned_be16(m->value) + (int)rnd(rs, 3) - 1;
			break;
		case MMB_FIELD_TCP_SPORT:
		case MMB_FIELD_UDP_SPORT:
			d->sport = get_unaligned_be16(m->value) + (rnd(rs, 4) ? 0 : 1);
			break;
		case MMB_FIELD_IP_SADDR:
		case MMB_FIELD_IP_DADDR:
		case MMB_FIELD_IP6_SADDR:
		case MMB_FIELD_IP6_DADDR:
			a = m->field == MMB_FIELD_IP_SADDR || m->field == MMB_FIELD_IP6_SADDR ?
			    d->saddr : d->daddr;
			for (b = 0; b < len * 8 && b < m->plen; b++) {
				u8 bit = 0x80 >> (b % 8);

				a[b / 8] = (a[b / 8] & ~bit) | (m->value[b / 8] & bit);
			}
			/* One time in six the neighbouring prefix. */
			if (!rnd(rs, 6) && m->plen)
				a[(m->plen - 1) / 8] ^= 0x80 >> ((m->plen - 1) % 8);
			break;
		}
	}
}

/* --- the differential test ----------------------------------------------- */

static u64 pr_hits(const struct mmb_rule *rule)
{
	struct mmb_stats st;

	mmb_stats_read(rule->stats, &st);
	return st.packets;
}

static void pr_classify(const struct mmb_ruleset *rs, struct mmb_pkt *pkt, struct sk_buff *skb,
			struct mmb_verdict *v)
{
	rcu_read_lock();
	local_bh_disable();
	mmb_classify(rs, pkt, skb, v);
	mmb_verdict_settle(v);
	local_bh_enable();
	rcu_read_unlock();
}

/* Each packet twice (the second from the flow cache, if it has it). */
static void pr_check(struct kunit *test, struct pr_ctx *c, struct mmb_rules *r,
		     struct rnd_state *rs, const char *phase)
{
	struct mmb_ruleset *set = mmbt_rs(r);
	struct mmb_verdict *v = kunit_kzalloc(test, 2 * sizeof(*v), GFP_KERNEL);
	struct pr_want *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	u8 opts[4];
	unsigned int p, i, k, live;

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, w);
	pr_chain(c);
	for (i = 0; i < PR_RULES; i++)
		c->hits[i] = c->rule[i] ? pr_hits(c->rule[i]) : 0;
	for (p = 0; p < PR_PKTS; p++) {
		struct mmbt_pkt_desc d;
		struct mmb_pkt pkt;
		struct sk_buff *skb;

		do
			i = rnd(rs, PR_RULES);
		while (!c->rule[i]);
		pr_packet(rs, &c->spec[i], &d, opts);
		skb = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
		pr_classify(set, &pkt, skb, &v[0]);
		pr_classify(set, &pkt, skb, &v[1]);
		pr_naive(c, &pkt, skb, w);
		for (k = 0; k < 2; k++) {
			bool ok = v[k].accept == w->accept && v[k].drop == w->drop &&
				  (!w->decided || v[k].prio == w->prio) &&
				  v[k].nrw == min_t(unsigned int, w->nrw, MMB_MAX_REWRITES);

			for (i = 0; ok && i < v[k].nrw; i++)
				ok = v[k].rw[i] == w->rw[i];
			if (!ok) {
				KUNIT_FAIL(test,
					   "%s: packet %u (%s, %s): accept %d drop %d prio %u rewrites %u; the chain: %d %d %u %u",
					   phase, p, k ? "again" : "first", d.v6 ? "IPv6" : "IPv4",
					   v[k].accept, v[k].drop, v[k].prio, v[k].nrw,
					   w->accept, w->drop, w->prio, w->nrw);
				kfree_skb(skb);
				return;
			}
		}
		/* Rules not cut off count each packet they match; others none. */
		for (i = 0; i < PR_RULES; i++) {
			u64 got;

			if (!c->rule[i])
				continue;
			got = pr_hits(c->rule[i]) - c->hits[i];
			c->hits[i] += got;
			if (!w->match[i] ? got != 0 :
			    (!w->decided || c->rule[i]->prio >= w->prio) ? got != 2 : got > 2) {
				KUNIT_FAIL(test,
					   "%s: packet %u rule %u (priority %u): counted %llu, matched %d",
					   phase, p, i, c->rule[i]->prio, got, w->match[i]);
				kfree_skb(skb);
				return;
			}
		}
		c->agree++;
		c->decided += w->decided;
		c->rewritten += !!w->nrw;
		for (i = 0, live = 0; i < PR_RULES; i++)
			live += c->rule[i] && w->match[i] && w->decided &&
				c->rule[i]->prio < w->prio;
		c->cut += !!live;
		kfree_skb(skb);
	}
}

/* Rule @i of @c, made from its spec, into @r. */
static void pr_put(struct kunit *test, struct pr_ctx *c, struct mmb_rules *r, unsigned int i)
{
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	rule = mmb_rule_create(&c->spec[i], NULL, &err);
	if (IS_ERR(rule))
		KUNIT_FAIL(test, "rule %u refused: %s (part %u, %u)", i, err.msg, err.part,
			   err.index);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	/* Half by the image their creation left, as netlink adds them. */
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, i % 2 ? &c->spec[i].img : NULL), 0);
	c->rule[i] = rule;
}

static void pr_add(struct kunit *test, struct pr_ctx *c, struct mmb_rules *r,
		   struct rnd_state *rs, unsigned int i)
{
	pr_rule(rs, &c->spec[i]);
	pr_put(test, c, r, i);
}

static void pr_del(struct kunit *test, struct pr_ctx *c, struct mmb_rules *r, unsigned int i)
{
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, c->rule[i]), 0);
	c->rule[i] = NULL;
}

/* The rules built again into a new ruleset, as a batch builds them. */
static void pr_rebuild(struct kunit *test, struct mmb_rules *r)
{
	struct mmb_txn txn;

	KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &txn, MMB_TXN_COPY), 0);
	KUNIT_ASSERT_EQ(test, mmb_txn_prepare(&txn), 0);
	mmb_txn_commit(&txn);
}

static unsigned int pr_tables(struct mmb_rules *r, u32 *top)
{
	struct mmb_table_info info;
	unsigned int n = 0;
	u32 last = U32_MAX;

	while (!mmbt_table(r, n, &info)) {
		/* Each table no higher than the one before: the lookup order. */
		if (info.prio > last)
			return 0;
		last = info.prio;
		if (!n)
			*top = info.prio;
		n++;
	}
	return n;
}

static void prio_differential_test(struct kunit *test)
{
	struct pr_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test);
	struct rnd_state rs;
	unsigned int i, ntables;
	u64 hits, misses;
	u32 top = 0;

	prandom_seed_state(&rs, 0x707269);
	/* Three quarters of the rules, in order of handle, any priority. */
	for (i = 0; i < PR_RULES * 3 / 4; i++)
		pr_add(test, c, r, &rs, i);
	ntables = pr_tables(r, &top);
	KUNIT_EXPECT_GT(test, ntables, 4);	/* merged, and with a flow cache */
	pr_check(test, c, r, &rs, "added");
	/* A third of them go; the rest come, higher and lower; some go again. */
	for (i = 0; i < PR_RULES * 3 / 4; i++)
		if (c->rule[i] && !rnd(&rs, 3))
			pr_del(test, c, r, i);
	pr_check(test, c, r, &rs, "deleted");
	for (i = PR_RULES * 3 / 4; i < PR_RULES; i++) {
		pr_add(test, c, r, &rs, i);
		if (i % 3 == 0) {
			unsigned int j = rnd(&rs, i);

			if (c->rule[j])
				pr_del(test, c, r, j);
		}
	}
	KUNIT_EXPECT_GT(test, pr_tables(r, &top), 0);	/* still in order */
	pr_check(test, c, r, &rs, "interleaved");
	pr_rebuild(test, r);
	KUNIT_EXPECT_GT(test, pr_tables(r, &top), 0);
	pr_check(test, c, r, &rs, "rebuilt");
	mmb_ruleset_cache_stats(mmbt_rs(r), &hits, &misses);
	kunit_info(test, "%u tables, %u packets agree: %u decided, %u with rules cut off, %u rewritten; cache %llu hits %llu misses",
		   ntables, c->agree, c->decided, c->cut, c->rewritten, hits, misses);
	/* The edges must have given every kind of outcome, many times. */
	KUNIT_EXPECT_GT(test, c->cut, PR_PKTS / 10);
	KUNIT_EXPECT_GT(test, c->rewritten, PR_PKTS / 20);
	KUNIT_EXPECT_LT(test, c->decided, c->agree);
	KUNIT_EXPECT_GT(test, hits, 0);
}

/*
 * Rules of one key: UDP over IPv4 and a port range, an exclusion or a
 * payload each (checked after the probe), now and then a source prefix
 * (merged in with residues, or a table of its own), any priority and
 * verdict. A batch puts them all into one entry, in place once its list
 * has room (mmb_rules_update()); the verdicts and counts stay the chain's.
 */
static void pr_rule_key(struct rnd_state *rs, struct mmb_rule_spec *s)
{
	unsigned int n = 0, lo;

	memset(s, 0, sizeof(*s));
	s->m[n++] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	if (!rnd(rs, 8)) {
		s->m[n] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, pr_addr4(rs));
		s->m[n++].plen = 8 + rnd(rs, 9);
	}
	switch (rnd(rs, 3)) {
	case 0:
		lo = pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))];
		s->m[n++] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_GE, lo);
		s->m[n++] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_LE, lo + rnd(rs, 100));
		break;
	case 1:
		s->m[n++] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_NE,
			       pr_ports[rnd(rs, ARRAY_SIZE(pr_ports))]);
		break;
	default:
		s->m[n] = mt(MMB_FIELD_UDP_PAYLOAD, MMB_OP_EQ, 0);
		s->m[n].vlen = 1;
		s->m[n++].value[0] = rnd(rs, 2);
	}
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = rnd(rs, 2) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = rnd(rs, 2) ? rnd(rs, 4) * 10 : rnd(rs, 1000);
}

static void prio_one_key_test(struct kunit *test)
{
	struct pr_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_table_info info;
	struct rnd_state rs;
	unsigned int i, most = 0, entries = 0;

	prandom_seed_state(&rs, 0x6b6579);
	for (i = 0; i < PR_RULES; i++) {
		pr_rule_key(&rs, &c->spec[i]);
		pr_put(test, c, r, i);
	}
	pr_check(test, c, r, &rs, "one key, added");
	pr_rebuild(test, r);
	for (i = 0; !mmbt_table(r, i, &info); i++)
		if (info.rules > most) {
			most = info.rules;
			entries = info.entries;
		}
	/* One entry holds most of them: its list grew in place. */
	KUNIT_EXPECT_GT(test, most, PR_RULES / 2);
	KUNIT_EXPECT_EQ(test, entries, 1);
	pr_check(test, c, r, &rs, "one key, rebuilt");
	/* A third go, others come in their places; built again. */
	for (i = 0; i < PR_RULES; i++)
		if (!rnd(&rs, 3)) {
			pr_del(test, c, r, i);
			pr_rule_key(&rs, &c->spec[i]);
			pr_put(test, c, r, i);
		}
	pr_check(test, c, r, &rs, "one key, changed");
	pr_rebuild(test, r);
	pr_check(test, c, r, &rs, "one key, rebuilt again");
}

/* --- the early stop ------------------------------------------------------ */

static unsigned int pr_probes;

static void pr_probe(unsigned int i)
{
	pr_probes++;
}

static void pr_stop_free(void *data)
{
	WRITE_ONCE(mmb_test_points.probe, NULL);
}

static struct mmb_rule *pr_rule_add(struct kunit *test, struct mmb_rules *r, u32 prio,
				    bool stateful, const struct mmb_match_spec *m,
				    unsigned int nm, const struct mmbt_target *t, unsigned int nt)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s->m, m, nm * sizeof(*m));
	s->nmatches = nm;
	s->ntargets = nt;
	s->stateful = stateful;
	s->prio = prio;
	s->conn_prio = prio;
	for (i = 0; i < nt; i++) {
		s->t[i].type = t[i].type;
		s->t[i].field = t[i].field;
		s->t[i].vlen = t[i].vlen;
		s->t[i].plen = t[i].plen ?: (t[i].field ? mmb_field(t[i].field)->bits : 0);
		s->t[i].rate = MMB_RATE_ALWAYS;
		memcpy(s->t[i].value, t[i].value, t[i].vlen);
	}
	rule = mmb_rule_create(s, NULL, &err);
	if (IS_ERR(rule))
		KUNIT_FAIL(test, "rule refused: %s", err.msg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

static const struct mmbt_target pr_accept = { .type = MMB_TARGET_ACCEPT };
static const struct mmbt_target pr_drop = { .type = MMB_TARGET_DROP };

/* The probes and verdict of a UDP packet from 10.0.@net.@host to port @dport. */
static unsigned int pr_probe_pkt(struct kunit *test, struct mmb_rules *r, u8 net, u8 host,
				 u16 dport, struct mmb_verdict *v)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .sport = 1000, .dport = dport,
		.saddr = { 10, 0, net, host }, .daddr = { 10, 9, 9, 9 },
	};
	struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	/* Read under the rules' mutex: not within the RCU section. */
	struct mmb_ruleset *rs = mmbt_rs(r);
	struct mmb_pkt pkt;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	pr_probes = 0;
	/* Not in softirq: no flow cache, every lookup probes. */
	rcu_read_lock();
	err = mmb_parse(skb, &pkt);
	if (!err) {
		mmb_classify(rs, &pkt, skb, v);
		mmb_verdict_settle(v);
	}
	rcu_read_unlock();
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, err, 0);
	return pr_probes;
}

/* How many tables have a priority of @prio or more: what a lookup decided at @prio probes. */
static unsigned int pr_tables_at(struct mmb_rules *r, u32 prio)
{
	struct mmb_table_info info;
	unsigned int i, n = 0;

	for (i = 0; !mmbt_table(r, i, &info); i++)
		n += info.prio >= prio;
	return n;
}

/*
 * An ordered policy: a block list of /24s, an exception of one host
 * inside it above, services below, a default at the bottom. A packet an
 * exact rule decides probes the tables of that priority and above only;
 * a table of equal priority is still probed (accept beats drop there); a
 * verdict of a rule with a slow match (!=) stops it too; deleting the
 * top rule leaves its table's bound, which stops nothing wrongly.
 */
static void prio_early_stop_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_match_spec m[3];
	struct mmb_rule *except;
	struct mmb_verdict v;
	unsigned int i, all;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_stop_free, NULL), 0);
	WRITE_ONCE(mmb_test_points.probe, pr_probe);
	/* Services, priority 10. */
	m[0] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	pr_rule_add(test, r, 10, false, m, 2, &pr_accept, 1);
	m[1] = mt(MMB_FIELD_UDP_SPORT, MMB_OP_EQ, 7);
	pr_rule_add(test, r, 10, false, m, 2, &pr_accept, 1);
	m[0] = mt(MMB_FIELD_IP_DADDR, MMB_OP_EQ, 0x0a090909);
	m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 99);
	pr_rule_add(test, r, 10, false, m, 2, &pr_accept, 1);
	/* The default, priority 0. */
	m[0] = mt(MMB_FIELD_NET_PROTO, MMB_OP_EQ, 0x0800);
	pr_rule_add(test, r, 0, false, m, 1, &pr_drop, 1);
	/* The block list, priority 100, added last: its table goes first. */
	for (i = 0; i < 8; i++) {
		m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000 | i << 8);
		m[0].plen = 24;
		pr_rule_add(test, r, 100, false, m, 1, &pr_drop, 1);
	}
	/* An exception inside a blocked /24, priority 200. */
	m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000305);
	except = pr_rule_add(test, r, 200, false, m, 1, &pr_accept, 1);
	all = pr_tables_at(r, 0);
	KUNIT_EXPECT_GE(test, all, 4U);
	KUNIT_EXPECT_LT(test, pr_tables_at(r, 100), all);

	/* Not blocked: the service accepts; the default's table is not probed. */
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 20, 1, 53, &v), pr_tables_at(r, 10));
	KUNIT_EXPECT_LT(test, pr_tables_at(r, 10), all);
	KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
	KUNIT_EXPECT_EQ(test, v.prio, 10U);
	/* Blocked: the block list's tables and those above, no more. */
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 2, 1, 53, &v), pr_tables_at(r, 100));
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	KUNIT_EXPECT_EQ(test, v.prio, 100U);
	/* The exception: accepted, above the block list. */
	KUNIT_EXPECT_LE(test, pr_probe_pkt(test, r, 3, 5, 53, &v), pr_tables_at(r, 100));
	KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
	KUNIT_EXPECT_EQ(test, v.prio, 200U);
	/* Not a service: the default drops, after every table. */
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 20, 1, 54, &v), all);
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	KUNIT_EXPECT_EQ(test, v.prio, 0U);

	/* An accept of the block list's priority in another table: probed, and wins. */
	m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 123);
	pr_rule_add(test, r, 100, false, m, 1, &pr_accept, 1);
	KUNIT_EXPECT_GE(test, pr_tables_at(r, 100), 2U);
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 2, 1, 123, &v), pr_tables_at(r, 100));
	KUNIT_EXPECT_TRUE(test, v.accept);
	KUNIT_EXPECT_EQ(test, v.prio, 100U);

	/*
	 * A decision by a slow match (!=) at 300 stops the lookup there too
	 * (nothing below applies); one that fills a flow cache entry goes on
	 * (mmb-fm checks that).
	 */
	m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_NE, 124);
	pr_rule_add(test, r, 300, false, m, 1, &pr_accept, 1);
	KUNIT_EXPECT_LT(test, pr_tables_at(r, 300), pr_tables_at(r, 100));
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 2, 1, 53, &v), pr_tables_at(r, 300));
	KUNIT_EXPECT_TRUE(test, v.accept && !v.drop);
	KUNIT_EXPECT_EQ(test, v.prio, 300U);
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 20, 1, 53, &v), pr_tables_at(r, 300));
	KUNIT_EXPECT_EQ(test, v.prio, 300U);

	/* The exception goes: the block list drops its host again. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, except), 0);
	KUNIT_EXPECT_EQ(test, pr_probe_pkt(test, r, 3, 5, 124, &v), pr_tables_at(r, 100));
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	KUNIT_EXPECT_EQ(test, v.prio, 100U);
}

/* --- rewrites and priorities --------------------------------------------- */

static struct mmbt_target pr_mod_ttl(u8 ttl)
{
	struct mmbt_target t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_TTL, .vlen = 1 };

	t.value[0] = ttl;
	return t;
}

/*
 * Rewrites apply from the rules the verdict does not cut off: those of
 * its priority and above, by descending priority, then handle; with no
 * verdict, every one.
 */
static void prio_rewrite_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_match_spec m[2];
	struct mmbt_target t[2];
	struct mmb_rule *low, *mid, *high, *same;
	struct mmb_verdict v;

	m[0] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	t[0] = pr_mod_ttl(5);
	low = pr_rule_add(test, r, 5, false, m, 1, t, 1);
	t[0] = pr_mod_ttl(20);
	high = pr_rule_add(test, r, 20, false, m, 1, t, 1);
	/* An accept of port 53 at 10, and a rewrite of port 53 at 10. */
	m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	pr_rule_add(test, r, 10, false, m, 2, &pr_accept, 1);
	t[0] = pr_mod_ttl(10);
	mid = pr_rule_add(test, r, 10, false, m, 2, t, 1);
	/* A rewrite of the accept's priority, another mask. */
	m[1] = mt(MMB_FIELD_UDP_SPORT, MMB_OP_EQ, 1000);
	t[0] = pr_mod_ttl(11);
	same = pr_rule_add(test, r, 10, false, m, 2, t, 1);

	/* Accepted at 10: the rule at 5 is cut off; 20 first, then 10s by handle. */
	pr_probe_pkt(test, r, 1, 1, 53, &v);
	KUNIT_EXPECT_TRUE(test, v.accept);
	KUNIT_ASSERT_EQ(test, v.nrw, 3U);
	KUNIT_EXPECT_PTR_EQ(test, v.rw[0], (const struct mmb_rule *)high);
	KUNIT_EXPECT_PTR_EQ(test, v.rw[1], (const struct mmb_rule *)mid);
	KUNIT_EXPECT_PTR_EQ(test, v.rw[2], (const struct mmb_rule *)same);
	/* No verdict: every rewrite that matches, 20, 10, 5. */
	pr_probe_pkt(test, r, 1, 1, 54, &v);
	KUNIT_EXPECT_FALSE(test, v.accept || v.drop);
	KUNIT_ASSERT_EQ(test, v.nrw, 3U);
	KUNIT_EXPECT_PTR_EQ(test, v.rw[0], (const struct mmb_rule *)high);
	KUNIT_EXPECT_PTR_EQ(test, v.rw[1], (const struct mmb_rule *)same);
	KUNIT_EXPECT_PTR_EQ(test, v.rw[2], (const struct mmb_rule *)low);
	/* A drop at 30 cuts every rewrite off. */
	m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	pr_rule_add(test, r, 30, false, m, 2, &pr_drop, 1);
	pr_probe_pkt(test, r, 1, 1, 53, &v);
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	KUNIT_EXPECT_EQ(test, v.nrw, 0U);
	/* Equal priorities keep the old meaning: an accept at 30 beats the drop. */
	pr_rule_add(test, r, 30, false, m, 1, &pr_accept, 1);
	pr_probe_pkt(test, r, 1, 1, 53, &v);
	KUNIT_EXPECT_TRUE(test, v.accept && v.drop);
	KUNIT_EXPECT_EQ(test, v.prio, 30U);
}

/* --- stateful rules and connections -------------------------------------- */

struct pr_ct {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
};

static void pr_ct_free(void *data)
{
	struct pr_ct *c = data;

	mmb_conns_exit(&c->mc);
}

static struct pr_ct *pr_ct_new(struct kunit *test)
{
	struct pr_ct *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->dev = mmbt_netdev_create(test);
	c->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&c->mc, &init_net), 0);
	c->mc.rpf = false;	/* both ways on one device */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pr_ct_free, c), 0);
	return c;
}

/* 1 if a TCP packet 10.0.0.@from:@sport -> 10.0.0.@to:@dport passes, as the hook judges it. */
static int pr_ct_send(struct pr_ct *c, u8 from, u16 sport, u8 to, u16 dport, u8 flags)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = flags, .saddr = { 10, 0, 0, from }, .daddr = { 10, 0, 0, to },
	};
	struct sk_buff *skb = mmbt_pkt_build(c->dev, &d);

	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	return mmbt_judge(c->r, &c->mc, skb);
}

static struct mmb_rule *pr_stateful(struct kunit *test, struct mmb_rules *r, u32 prio,
				    u32 conn_prio, u16 dport)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[0] = mt(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, dport);
	s->nmatches = 1;
	s->t[0].type = MMB_TARGET_ACCEPT;
	s->ntargets = 1;
	s->stateful = true;
	s->prio = prio;
	s->conn_prio = conn_prio;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

#define SYN TCPHDR_SYN
#define SYNACK (TCPHDR_SYN | TCPHDR_ACK)
#define ACK TCPHDR_ACK

/*
 * The nft idiom "ct state established,related accept; ip saddr @bad drop;
 * tcp dport 80 ct state new accept; policy drop": the service's stateful
 * rule below the block list, its connections above it (conn-priority). A
 * blocked client starts no connection; another does, and its packets both
 * ways pass rules below the connection's priority that would drop them.
 * With the connection at the rule's own priority, the block list's rule
 * on replies drops them.
 */
static void prio_stateful_test(struct kunit *test)
{
	struct pr_ct *c = pr_ct_new(test);
	struct mmb_match_spec m[2];
	struct mmb_rule *svc;

	/* The default: drop, priority 0. */
	m[0] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	pr_rule_add(test, c->r, 0, false, m, 1, &pr_drop, 1);
	/* The block list, 100: client 66, and server port 80's replies (a test of rank). */
	m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000042);
	pr_rule_add(test, c->r, 100, false, m, 1, &pr_drop, 1);
	m[0] = mt(MMB_FIELD_TCP_SPORT, MMB_OP_EQ, 80);
	m[1] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a0000c8);
	pr_rule_add(test, c->r, 100, false, m, 2, &pr_drop, 1);
	/* The service at 10, its connections at 1000 (established first). */
	svc = pr_stateful(test, c->r, 10, 1000, 80);

	/* Blocked: dropped, and no connection. */
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 66, 2000, 200, 80, SYN), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->mc.count), 0);
	/* Another client: its connection, both ways, over the block list. */
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 1, 2000, 200, 80, SYN), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->mc.count), 1);
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 200, 80, 1, 2000, SYNACK), 1);
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 1, 2000, 200, 80, ACK), 1);
	/* Not the service: the default drops. */
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 1, 2001, 200, 81, SYN), 0);

	/* The same with the connections at the service's priority: replies dropped. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(c->r, svc), 0);
	mmb_conns_flush(&c->mc);
	pr_stateful(test, c->r, 10, 10, 80);
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 2, 3000, 200, 80, SYN), 1);
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 200, 80, 2, 3000, SYNACK), 0);

	/* A stateful rule above a block list opens for a blocked client. */
	pr_stateful(test, c->r, 150, 150, 22);
	KUNIT_EXPECT_EQ(test, pr_ct_send(c, 66, 4000, 200, 22, SYN), 1);
}

static struct kunit_case prio_cases[] = {
	KUNIT_CASE(prio_differential_test),
	KUNIT_CASE(prio_one_key_test),
	KUNIT_CASE(prio_early_stop_test),
	KUNIT_CASE(prio_rewrite_test),
	KUNIT_CASE(prio_stateful_test),
	{}
};

static struct kunit_suite prio_suite = {
	.name = "mmb-prio",
	.test_cases = prio_cases,
};

kunit_test_suite(prio_suite);
