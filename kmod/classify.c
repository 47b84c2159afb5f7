// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: classifying a packet, the datapath's part of the tables. For each
 * mask of the ruleset (or, with many masks, the flow cache first): mask
 * the header image, probe the mask's table, and judge the rules of the
 * entry found, reading their slow-path matches where they have any.
 *
 *   image ─mask─> key ─hash─> filter word? ─> bucket ─> entry ─> rules
 */
#include <linux/random.h>

#include "tables.h"

/* The accept and drop of @rule, without its rewrites. */
void mmb_verdict_judge(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	if (rule->accept)
		v->accept = true;
	if (rule->drop && (rule->drop_rate >= MMB_RATE_ALWAYS ||
			   reciprocal_scale(get_random_u32(), MMB_RATE_ALWAYS) <
			   rule->drop_rate))
		v->drop = true;
}

/* The rewrites of @rule, among the lowest handles of @v's, in order. */
void mmb_verdict_rewrites(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	unsigned int i;

	if (!rule->rewrite)
		return;
	/* Keep the lowest handles, sorted: the order rewrites apply in. */
	if (v->nrw == MMB_MAX_REWRITES) {
		if (v->rw[v->nrw - 1]->handle < rule->handle)
			return;
		v->nrw--;
	}
	for (i = v->nrw; i > 0 && v->rw[i - 1]->handle > rule->handle; i--)
		v->rw[i] = v->rw[i - 1];
	v->rw[i] = rule;
	v->nrw++;
}

void mmb_verdict_add(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	mmb_verdict_judge(v, rule);
	mmb_verdict_rewrites(v, rule);
}

/*
 * A stateful rule @pkt matches: ignored for a packet of a known
 * connection; for another, among those its connection will keep, the
 * lowest handles, in order. The accept and drop of those wait for
 * mmb_conn_verdict(): a packet that may not start a connection does not
 * get them. A rule not kept is judged at once.
 */
static bool mmb_verdict_stateful(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	unsigned int i;

	if (v->conn)
		return false;
	if (v->nsf == MMB_CONN_RULES) {
		/* One is left out: no connection is made (mmb_conn_create()). */
		v->sf_lost = true;
		if (v->sf[v->nsf - 1]->handle < rule->handle) {
			mmb_verdict_judge(v, rule);
			return true;
		}
		v->nsf--;
		mmb_verdict_judge(v, v->sf[v->nsf]);
	}
	for (i = v->nsf; i > 0 && v->sf[i - 1]->handle > rule->handle; i--)
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

/* The verdict of @rule, whose == matches and residues @pkt holds. */
static __always_inline void mmb_verdict_rule(const struct mmb_rule *rule,
					     const struct mmb_pkt *pkt,
					     struct sk_buff *skb, struct mmb_verdict *v)
{
	if (!mmb_rule_slow_holds(rule, pkt, skb))
		return;
	if (unlikely(rule->stateful)) {
		if (!mmb_verdict_stateful(v, rule))
			return;
		mmb_stats_count(rule->stats, skb);
		mmb_verdict_rewrites(v, rule);
		return;
	}
	mmb_stats_count(rule->stats, skb);
	mmb_verdict_add(v, rule);
}

/* Every rule of a table entry that @pkt matches. */
void mmb_verdict_entry(const struct mmb_entry *e, const struct mmb_pkt *pkt,
		       struct sk_buff *skb, struct mmb_verdict *v)
{
	unsigned long hot = READ_ONCE(e->hot);
	const struct mmb_rule *lone;
	const struct mmb_rvec *rv;
	unsigned int i;

	if (hot) {		/* a lone simple rule: the entry's line has it all */
		mmb_stats_count((__force struct mmb_pcpu_stats __percpu *)(hot & ~MMB_HOT_FLAGS),
				skb);
		if (hot & MMB_HOT_ACCEPT)
			v->accept = true;
		if (hot & MMB_HOT_DROP)
			v->drop = true;
		return;
	}
	rv = rcu_dereference(e->rules);
	lone = mmb_rvec_lone(rv);
	if (lone) {		/* no list: the rule alone, without residues */
		mmb_verdict_rule(lone, pkt, skb, v);
		return;
	}
	if (rv->flags & MMB_RV_SIMPLE) {
		for (i = 0; i < rv->n; i++)
			mmb_stats_count(rv->r[i].stats, skb);
		if (rv->flags & MMB_RV_ACCEPT)
			v->accept = true;
		if (rv->flags & MMB_RV_DROP)
			v->drop = true;
		return;
	}
	for (i = 0; i < rv->n; i++) {
		const struct mmb_rref *r = &rv->r[i];

		if (mmb_rref_resid(rv, r, pkt))
			mmb_verdict_rule(r->rule, pkt, skb, v);
	}
}

/*
 * Add to @v the verdict of every rule @pkt matches. With BH off (the datapath) a
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
			return;
	}
	for (i = 0; i < mv->n; i++) {
		const struct mmb_mask *mask = mv->m[i];
		const struct mmb_entry *e;

		mmb_mask_key(mask, &pkt->key, key);
		e = mmb_lookup(rs, mask, rcu_dereference(mask->tbl), key, true);
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
