// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: classifying a packet, the datapath's part of the tables. For each
 * mask of the ruleset (or, with many masks, the flow cache first): mask
 * the header image, probe the mask's table, and judge the rules of the
 * entry found, reading their slow-path matches where they have any.
 *
 *   image ─sieve bit?─mask─> key ─hash─> filter word? ─> bucket ─> entry ─> rules
 */
#include <linux/random.h>

#include "log.h"
#include "tables.h"
#include "test.h"

/* Does @rule drop this packet (its dice say so, if it has dice)? */
static bool mmb_rule_drops(const struct mmb_rule *rule)
{
	return rule->drop && (rule->drop_rate >= MMB_RATE_ALWAYS ||
			      reciprocal_scale(get_random_u32(), MMB_RATE_ALWAYS) <
			      rule->drop_rate);
}

/* The accept and drop of @rule at priority @prio, without its rewrites. */
void mmb_verdict_judge_at(struct mmb_verdict *v, const struct mmb_rule *rule, u32 prio)
{
	bool drop = mmb_rule_drops(rule);

	if (!rule->accept && !drop)
		return;
	mmb_verdict_decide(v, prio, rule->accept, drop);
	/* Not cut off; of the rules that reject at its priority, the first by handle. */
	if (unlikely(rule->reject) && v->prio == prio &&
	    (!v->reject || rule->handle < v->reject->handle))
		v->reject = rule;
}

/* The accept and drop of @rule, without its rewrites. */
void mmb_verdict_judge(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	mmb_verdict_judge_at(v, rule, rule->prio);
}

/* Does rewrite @a (of priority @pa) come before @b's (@pb)? */
static bool mmb_rewrite_before(const struct mmb_rule *a, u32 pa, const struct mmb_rule *b,
			       u32 pb)
{
	return pa != pb ? pa > pb : a->handle < b->handle;
}

/*
 * The rewrites of @rule at priority @prio, among the first of @v's in the
 * order they apply in: by descending priority, then handle. Those a
 * verdict cut off are not taken; those it cuts off later sort last and
 * go first when the list is full, and mmb_verdict_settle() drops the rest.
 */
void mmb_verdict_rewrites_at(struct mmb_verdict *v, const struct mmb_rule *rule, u32 prio)
{
	unsigned int i;

	if (!rule->rewrite || mmb_verdict_cut(v, prio))
		return;
	if (v->nrw == MMB_MAX_REWRITES) {
		if (mmb_rewrite_before(v->rw[v->nrw - 1], v->rwprio[v->nrw - 1], rule, prio))
			return;
		v->nrw--;
	}
	for (i = v->nrw; i > 0 && mmb_rewrite_before(rule, prio, v->rw[i - 1], v->rwprio[i - 1]);
	     i--) {
		v->rw[i] = v->rw[i - 1];
		v->rwprio[i] = v->rwprio[i - 1];
	}
	v->rw[i] = rule;
	v->rwprio[i] = prio;
	v->nrw++;
}

void mmb_verdict_rewrites(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	mmb_verdict_rewrites_at(v, rule, rule->prio);
}

void mmb_verdict_add(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	mmb_verdict_judge(v, rule);
	mmb_verdict_rewrites(v, rule);
}

/* Once the verdict is known: the rewrites it cut off go. */
void mmb_verdict_settle(struct mmb_verdict *v)
{
	while (v->nrw && mmb_verdict_cut(v, v->rwprio[v->nrw - 1]))
		v->nrw--;
}

/*
 * Does stateful rule @k, kept by a connection, cut off @e (of the same
 * packet)? Its accept or drop, of a higher priority, applies whenever the
 * connection is made, and mmb_conn_start() then leaves out every rule it
 * cut off: @e would not have been kept anyway. A first-match chain's
 * accepts, each stateful (mmbctl import), are such rules.
 */
static bool mmb_sf_covers(const struct mmb_rule *k, const struct mmb_rule *e)
{
	return (k->accept || (k->drop && k->drop_rate >= MMB_RATE_ALWAYS)) && !k->limit &&
	       !k->cc && k->prio > e->prio;
}

/* Is @e, left out of a full @v (with @rule, kept if not @e), covered by one kept? */
static bool mmb_sf_covered(const struct mmb_verdict *v, const struct mmb_rule *rule,
			   const struct mmb_rule *e)
{
	unsigned int i;

	for (i = 0; i < v->nsf; i++)
		if (mmb_sf_covers(v->sf[i], e))
			return true;
	return rule != e && mmb_sf_covers(rule, e);
}

/*
 * A stateful rule @pkt matches: ignored for a packet of a known
 * connection (but the first of one judged leaving now, @v->bind), or if
 * a verdict cut it off; for another, among those its
 * connection will keep, the first by descending priority, then handle.
 * The accept and drop of those wait for mmb_conn_verdict(): a packet that
 * may not start a connection does not get them. A rule not kept is judged
 * at once; one a verdict has cut off since, or a kept one covers
 * (mmb_sf_covers()), is just left out.
 */
static bool mmb_verdict_stateful(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	const struct mmb_rule *last;
	unsigned int i;

	if ((v->conn && !v->bind) || mmb_verdict_cut(v, rule->prio))
		return false;
	if (v->nsf == MMB_CONN_RULES) {
		last = v->sf[v->nsf - 1];
		if (mmb_rewrite_before(last, last->prio, rule, rule->prio))
			last = rule;
		else
			v->nsf--;
		if (!mmb_verdict_cut(v, last->prio) && !mmb_sf_covered(v, rule, last)) {
			/* One is left out: no connection is made (mmb_conn_create()). */
			v->sf_lost = true;
			mmb_verdict_judge(v, last);
		}
		if (last == rule)
			return true;
	}
	for (i = v->nsf;
	     i > 0 && mmb_rewrite_before(rule, rule->prio, v->sf[i - 1], v->sf[i - 1]->prio);
	     i--)
		v->sf[i] = v->sf[i - 1];
	v->sf[i] = rule;
	v->nsf++;
	return true;
}

/* Does @pkt, which probed to @rv's entry, hold @r's residues? */
static __always_inline bool mmb_rref_resid(const struct mmb_rvec *rv, const struct mmb_rref *r,
					   const struct mmb_pkt *pkt)
{
	return !r->nres || mmb_resid_match(mmb_rvec_res(rv) + r->res, r->nres, &pkt->key);
}

/* Does @pkt, which holds @rule's == matches and residues, hold its slow ones? */
static __always_inline bool mmb_rule_slow_holds(const struct mmb_rule *rule,
						const struct mmb_pkt *pkt,
						const struct sk_buff *skb)
{
	return !rule->slow || mmb_rule_match_slow(rule, pkt, skb);
}

/*
 * Below a rule with a limit that waits (mmb_verdict_limit()), must a rule
 * of priority @prio that applies wait to be counted? That rule's verdict,
 * if its limit lets it apply, may cut this one off, which then counts and
 * logs nothing (mmb_verdict_limits()). Past MMB_MAX_COUNTS, no.
 */
static __always_inline bool mmb_verdict_counts_later(const struct mmb_verdict *v, u32 prio)
{
	return unlikely(v->nlim) && prio < v->limprio && v->ncnt < MMB_MAX_COUNTS;
}

/*
 * Count (and log, if @logs) @rule, which applies, in @stats, its counters
 * (a simple reference's copy of them, which spares reading the rule), or
 * note it to count later. Its verdict is taken at once all the same:
 * verdicts combine in any order.
 */
static __always_inline void mmb_verdict_count(struct mmb_verdict *v, const struct mmb_rule *rule,
					      struct mmb_pcpu_stats __percpu *stats, u32 prio,
					      bool logs, struct sk_buff *skb)
{
	if (mmb_verdict_counts_later(v, prio)) {
		v->cnt[v->ncnt++] = rule;
		return;
	}
	mmb_stats_count(stats, skb);
	if (unlikely(logs))
		mmb_log_packet(rule, skb, v->out);
}

/*
 * @rule, whose matches @pkt holds, if its limit lets it apply (limit.c)
 * and no verdict cut it off: its limit is asked only then, so a packet
 * that a rule of higher priority decides takes no token.
 */
static void mmb_verdict_limited(struct mmb_verdict *v, const struct mmb_rule *rule,
				const struct mmb_pkt *pkt, struct sk_buff *skb)
{
	if (mmb_verdict_cut(v, rule->prio) || !mmb_limit_applies(rule->limit, pkt))
		return;
	mmb_verdict_count(v, rule, rule->stats, rule->prio, rule->log, skb);
	mmb_verdict_add(v, rule);
}

/*
 * A stateless rule with a limit, whose matches hold: it waits until every
 * table is probed (a rule of higher priority in a later table or entry
 * may cut it off); past MMB_MAX_LIMITS of them, asked at once.
 */
static void mmb_verdict_limit(struct mmb_verdict *v, const struct mmb_rule *rule,
			      const struct mmb_pkt *pkt, struct sk_buff *skb)
{
	if (v->nlim == MMB_MAX_LIMITS) {
		mmb_verdict_limited(v, rule, pkt, skb);
		return;
	}
	if (!v->nlim || rule->prio > v->limprio)
		v->limprio = rule->prio;
	v->lim[v->nlim++] = rule;
}

/* The rules with a limit that waited, by descending priority, then handle. */
static noinline void mmb_verdict_limits(struct mmb_verdict *v, const struct mmb_pkt *pkt,
					struct sk_buff *skb)
{
	const struct mmb_rule *rule;
	unsigned int i, j, n = v->nlim;

	for (i = 1; i < n; i++) {
		rule = v->lim[i];
		for (j = i; j > 0 && mmb_rewrite_before(rule, rule->prio, v->lim[j - 1],
							v->lim[j - 1]->prio); j--)
			v->lim[j] = v->lim[j - 1];
		v->lim[j] = rule;
	}
	v->nlim = 0;
	for (i = 0; i < n; i++)
		mmb_verdict_limited(v, v->lim[i], pkt, skb);
	/* The rules that applied below them, if the verdict leaves them uncut. */
	for (i = 0; i < v->ncnt; i++) {
		const struct mmb_rule *rule = v->cnt[i];

		if (mmb_verdict_cut(v, rule->prio))
			continue;
		mmb_stats_count(rule->stats, skb);
		if (unlikely(rule->log))
			mmb_log_packet(rule, skb, v->out);
	}
	v->ncnt = 0;
}

/*
 * A verdict at priority @prio that the header image under the tables'
 * masks decides alone: no table of lower priority can change it.
 */
static __always_inline void mmb_verdict_floor(struct mmb_verdict *v, u32 prio)
{
	if ((u64)prio + 1 > v->floor)
		v->floor = (u64)prio + 1;
}

/*
 * @rule, without residues where it is, is cut off: it does not apply, but
 * if it is sure, its priority bounds the verdict's all the same, whatever
 * cut it off (a rule with a slow match, say): the floor stays the image's.
 */
static __always_inline void mmb_verdict_cut_rule(struct mmb_verdict *v,
						 const struct mmb_rule *rule)
{
	if (mmb_rule_sure(rule))
		mmb_verdict_floor(v, rule->prio);
}

/*
 * The verdict of @rule, whose == matches and residues @pkt holds; @exact:
 * it has no residues.
 */
static __always_inline void mmb_verdict_rule(const struct mmb_rule *rule,
					     const struct mmb_pkt *pkt, struct sk_buff *skb,
					     struct mmb_verdict *v, bool exact)
{
	if (mmb_verdict_cut(v, rule->prio)) {
		if (exact)
			mmb_verdict_cut_rule(v, rule);
		return;
	}
	if (!mmb_rule_slow_holds(rule, pkt, skb))
		return;
	if (unlikely(rule->cc) && !mmb_cc_judge(rule, pkt, v))
		return;
	if (unlikely(rule->limit)) {
		mmb_verdict_limit(v, rule, pkt, skb);
		return;
	}
	if (unlikely(rule->stateful)) {
		if (!mmb_verdict_stateful(v, rule))
			return;
		mmb_verdict_count(v, rule, rule->stats, rule->prio, rule->log, skb);
		mmb_verdict_rewrites(v, rule);
		return;
	}
	mmb_verdict_count(v, rule, rule->stats, rule->prio, rule->log, skb);
	mmb_verdict_add(v, rule);
	if (exact && mmb_rule_sure(rule))
		mmb_verdict_floor(v, rule->prio);
}

/*
 * The verdict of a simple rule (MMB_RR_SIMPLE) whose residues @pkt holds,
 * as mmb_verdict_rule() makes it, from its reference alone: the rule is
 * not read.
 */
static __always_inline void mmb_verdict_rref(const struct mmb_rref *r, struct sk_buff *skb,
					     struct mmb_verdict *v)
{
	if (!mmb_verdict_cut(v, r->prio)) {
		mmb_verdict_count(v, r->rule, r->stats, r->prio, false, skb);
		mmb_verdict_decide(v, r->prio, r->flags & MMB_RR_ACCEPT, r->flags & MMB_RR_DROP);
	}
	/* Sure: without residues, it decides for the image alone. */
	if (!r->nres)
		mmb_verdict_floor(v, r->prio);
}

/*
 * Every rule of a table entry that @pkt matches, but those a verdict found
 * cut off, which are not counted either.
 */
void mmb_verdict_entry(const struct mmb_entry *e, const struct mmb_pkt *pkt,
		       struct sk_buff *skb, struct mmb_verdict *v)
{
	unsigned long hot = READ_ONCE(e->hot);
	const struct mmb_rule *lone;
	const struct mmb_rvec *rv;
	unsigned int i;

	/*
	 * A lone simple rule of priority 0: the entry's line has it all, but
	 * the rule, which a count that waits needs (taken from the list then).
	 */
	if (hot && !mmb_verdict_counts_later(v, 0)) {
		mmb_verdict_floor(v, 0);
		if (mmb_verdict_cut(v, 0))
			return;
		mmb_stats_count((__force struct mmb_pcpu_stats __percpu *)(hot & ~MMB_HOT_FLAGS),
				skb);
		mmb_verdict_decide(v, 0, hot & MMB_HOT_ACCEPT, hot & MMB_HOT_DROP);
		return;
	}
	rv = rcu_dereference(e->rules);
	lone = mmb_rvec_lone(rv);
	if (lone) {		/* no list: the rule alone, without residues */
		mmb_verdict_rule(lone, pkt, skb, v, true);
		return;
	}
	if (rv->flags & MMB_RV_SIMPLE) {
		/* Those of the list's highest priority decide; the others are cut off. */
		if (!rv->n)
			return;
		mmb_verdict_floor(v, rv->prio);
		if (mmb_verdict_cut(v, rv->prio))
			return;
		for (i = 0; i < rv->n; i++)
			if (rv->r[i].prio == rv->prio)
				mmb_verdict_count(v, rv->r[i].rule, rv->r[i].stats, rv->prio,
						  false, skb);
		mmb_verdict_decide(v, rv->prio, rv->flags & MMB_RV_ACCEPT,
				   rv->flags & MMB_RV_DROP);
		return;
	}
	for (i = 0; i < rv->n; i++) {
		const struct mmb_rref *r = &rv->r[i];

		/*
		 * A rule cut off is not read: without residues, if it is
		 * sure, it bounds the verdict's priority all the same.
		 */
		if (mmb_verdict_cut(v, r->prio)) {
			if (!r->nres && (r->flags & MMB_RR_SURE))
				mmb_verdict_floor(v, r->prio);
			continue;
		}
		if (!mmb_rref_resid(rv, r, pkt))
			continue;
		if (r->flags & MMB_RR_SIMPLE)
			mmb_verdict_rref(r, skb, v);
		else
			mmb_verdict_rule(r->rule, pkt, skb, v, !r->nres);
	}
}

/*
 * Add to @v the verdict of every rule @pkt matches, but those a verdict of
 * higher priority cuts off. With BH off (the datapath) a
 * ruleset with a cache looks there first; elsewhere a softirq on the same
 * CPU could tear a cache entry, so the cache is left alone.
 */
void mmb_classify_rules(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
			struct sk_buff *skb, struct mmb_verdict *v)
{
	/* Pairs with mmb_ruleset_changed(): read before the masks. */
	unsigned long gen = smp_load_acquire(&rs->gen);
	/* Pairs with mmb_cache_create(): the seed is set. */
	struct mmb_cache **cache = smp_load_acquire(&rs->cache);
	const struct mmb_mvec *mv = rcu_dereference(rs->masks);
	struct mmb_cache *c = cache && softirq_count() ? cache[smp_processor_id()] : NULL;
	struct mmb_cache_entry *ce = NULL;
	/* Masked before it is read: no automatic zeroing per packet. */
	struct mmb_chunk key[MMB_KEY_CHUNKS] __uninitialized;
	unsigned int i, n = 0;
	bool hit = false;

	if (!mv)
		return;
	if (c && unlikely(c->sparse) && ++c->tick % MMB_CACHE_SAMPLE)
		c = NULL;	/* the cache does not pay: most packets skip it */
	if (c) {
		ce = mmb_cache_lookup(rs, c, mv, gen, pkt, skb, v, &hit);
		if (hit)
			goto limits;
	}
	for (i = 0; i < mv->n; i++) {
		const struct mmb_mask *mask = mv->m[i];
		const struct mmb_entry *e;

		/*
		 * The early stop: this table and those after it hold no rule of
		 * a priority a verdict found leaves uncut. When the image alone
		 * decided that verdict (v->floor), the cache entry lists the
		 * entries found so far: its packets' verdicts were found by the
		 * same rules, from the same image. A verdict of a rule with
		 * residues, slow matches or dice cuts the rest off all the same
		 * (nothing of lower priority applies or is counted), but another
		 * packet of the image may not match that rule: with a cache
		 * entry to fill, the walk goes on for it (what it finds is cut
		 * off), and without one (or past what one holds), it stops.
		 */
		if ((u64)mmb_mvec_prio(mv)[i] + 1 < v->floor)
			break;
		if ((!ce || n > MMB_CACHE_HITS) && mmb_verdict_cut(v, mmb_mvec_prio(mv)[i]))
			break;
		mmb_test_probe(i);
		if (mask->wild) {	/* a catch-all: no hash, no chain */
			e = rcu_dereference(mask->wild_e[mmb_wild_index(mask, pkt->key.b)]);
		} else if ((!ce || mmb_sieve_cacheable(mv, mask)) &&
			   !mmb_sieve_pass(mask, &pkt->key)) {
			mmb_test_sieved(i);
			continue;	/* no entry has the packet's bit */
		} else if (mask->n == 1) {
			/* Chunk 0 alone (IPv4 addresses, ports): unrolled. */
			mmb_mask_key_n(mask, &pkt->key, key, 1);
			e = mmb_lookup_n(rs, mask, rcu_dereference(mask->tbl), key, 1, true);
		} else {
			mmb_mask_key(mask, &pkt->key, key);
			e = mmb_lookup(rs, mask, rcu_dereference(mask->tbl), key, true);
		}
		if (!e)
			continue;
		if (ce && n < MMB_CACHE_HITS)
			ce->e[n] = e;
		n++;
		mmb_verdict_entry(e, pkt, skb, v);
	}
	if (ce && n <= MMB_CACHE_HITS) {
		if (n < MMB_CACHE_HITS)
			ce->e[n] = NULL;
		ce->gen = gen;
	}
limits:
	if (unlikely(v->nlim))
		mmb_verdict_limits(v, pkt, skb);
}

/*
 * For a trace: call @fn for every rule @pkt matches, stateful or not, in
 * the order of the tables; nothing is counted or cached. Under RCU.
 */
void mmb_classify_each(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
		       const struct sk_buff *skb,
		       void (*fn)(void *arg, const struct mmb_rule *rule), void *arg)
{
	const struct mmb_mvec *mv = rcu_dereference(rs->masks);
	struct mmb_chunk key[MMB_KEY_CHUNKS] __uninitialized;
	unsigned int i, j;

	for (i = 0; mv && i < mv->n; i++) {
		const struct mmb_mask *mask = mv->m[i];
		const struct mmb_rule *lone;
		const struct mmb_entry *e;
		const struct mmb_rvec *rv;

		mmb_mask_key(mask, &pkt->key, key);
		e = mmb_lookup(rs, mask, rcu_dereference(mask->tbl), key, false);
		if (!e)
			continue;
		rv = rcu_dereference(e->rules);
		lone = mmb_rvec_lone(rv);
		if (lone && mmb_rule_slow_holds(lone, pkt, skb))
			fn(arg, lone);
		for (j = 0; !lone && j < rv->n; j++)
			if (mmb_rref_resid(rv, &rv->r[j], pkt) &&
			    mmb_rule_slow_holds(rv->r[j].rule, pkt, skb))
				fn(arg, rv->r[j].rule);
	}
}
