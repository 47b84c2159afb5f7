// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the per-mask hash tables of a ruleset (see tables.h for the
 * picture): putting a rule into the table of its mask, taking it out,
 * growing a table, and the filters and bucket hints that keep a probe to
 * one or two cache misses. ruleset.c calls in here; classify.c probes
 * with mmb_lookup().
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "tables.h"

/*
 * A list of @n rules, to fill in, with room for @cap rules (@n or more)
 * and @res_cap residues.
 */
static struct mmb_rvec *mmb_rvec_alloc_room(unsigned int n, unsigned int cap,
					    unsigned int res_cap)
{
	struct mmb_rvec *rv;

	/* Past a few pages (thousands of rules of one key), from vmalloc. */
	rv = kvzalloc(struct_size(rv, r, cap) + res_cap * sizeof(struct mmb_resid),
		      GFP_KERNEL_ACCOUNT);
	if (rv) {
		rv->n = n;
		rv->cap = cap;
		rv->res_cap = res_cap;
		rv->flags = MMB_RV_SIMPLE;
	}
	return rv;
}

/* A list of @n rules with up to @nres residues, to fill in. */
static struct mmb_rvec *mmb_rvec_alloc(unsigned int n, unsigned int nres)
{
	return mmb_rvec_alloc_room(n, n, nres);
}

/*
 * Does @rule only accept or always drop (without an answer), with nothing
 * to check after the probe but its residues? (A rule that only counts
 * decides nothing: it must not raise a verdict's floor.)
 */
static bool mmb_rule_simple(const struct mmb_rule *rule)
{
	return !rule->slow && !rule->rewrite && !rule->stateful && !rule->reject &&
	       !rule->limit && !rule->cc && !rule->log &&
	       (rule->accept || rule->drop) &&
	       !(rule->drop && rule->drop_rate < MMB_RATE_ALWAYS);
}

/*
 * Make @rule, with its @nres residues @res (after the list's), rule @i of
 * @rv; @first: the first rule put into @rv.
 */
static void mmb_rvec_put(struct mmb_rvec *rv, unsigned int i, bool first, struct mmb_rule *rule,
			 const struct mmb_resid *res, unsigned int nres)
{
	struct mmb_rref *r = &rv->r[i];

	r->rule = rule;
	r->stats = rule->stats;
	BUILD_BUG_ON(MMB_KEY_WORDS > U8_MAX);	/* a rule's residues in nres */
	r->res = rv->nres;
	r->nres = nres;
	r->prio = rule->prio;
	r->flags = mmb_rule_sure(rule) ? MMB_RR_SURE : 0;
	if (mmb_rule_simple(rule))
		r->flags |= MMB_RR_SIMPLE | (rule->accept ? MMB_RR_ACCEPT : 0) |
			    (rule->drop ? MMB_RR_DROP : 0);
	memcpy(mmb_rvec_res(rv) + rv->nres, res, nres * sizeof(*res));
	rv->nres += nres;
	if (nres || !mmb_rule_simple(rule))
		rv->flags &= ~MMB_RV_SIMPLE;
	/* The verdict of the highest priority's rules only. */
	if (first || rule->prio > rv->prio) {
		rv->flags &= ~(MMB_RV_ACCEPT | MMB_RV_DROP);
		rv->prio = rule->prio;
	} else if (rule->prio < rv->prio) {
		return;
	}
	if (rule->accept)
		rv->flags |= MMB_RV_ACCEPT;
	if (rule->drop)
		rv->flags |= MMB_RV_DROP;
}

/* Make @rule, with its @nres residues @res, rule @i of a list being built. */
static void mmb_rvec_add(struct mmb_rvec *rv, unsigned int i, struct mmb_rule *rule,
			 const struct mmb_resid *res, unsigned int nres)
{
	mmb_rvec_put(rv, i, i == 0, rule, res, nres);
}

/* @rule as an entry's rules pointer, without a list. */
static struct mmb_rvec *mmb_rvec_of_lone(struct mmb_rule *rule)
{
	/* Rules are allocated aligned: their low bit is free. */
	return (struct mmb_rvec *)((unsigned long)rule | MMB_RULES_LONE);
}

/* The hot word of counters @stats with a verdict. */
static unsigned long mmb_hot_word(struct mmb_pcpu_stats __percpu *stats, bool accept,
				  bool drop)
{
	unsigned long hot = (__force unsigned long)stats;

	/* Per-CPU counters are aligned: their low bits are free. */
	BUILD_BUG_ON(__alignof__(struct mmb_pcpu_stats) <= MMB_HOT_FLAGS);
	if (accept)
		hot |= MMB_HOT_ACCEPT;
	if (drop)
		hot |= MMB_HOT_DROP;
	return hot;
}

/*
 * The hot word of a list or a lone rule: nonzero for one simple rule of
 * priority 0 (the word has no room for another).
 */
static unsigned long mmb_rvec_hot(const struct mmb_rvec *rv)
{
	const struct mmb_rule *lone = mmb_rvec_lone(rv);

	if (lone)
		return mmb_rule_simple(lone) && !lone->prio ?
		       mmb_hot_word(lone->stats, lone->accept, lone->drop) : 0;
	if (rv->n != 1 || !(rv->flags & MMB_RV_SIMPLE) || rv->prio)
		return 0;
	return mmb_hot_word(rv->r[0].stats, rv->flags & MMB_RV_ACCEPT, rv->flags & MMB_RV_DROP);
}

/* The rules pointer @e publishes, a list or a lone rule, for a writer of @rs. */
static struct mmb_rvec *mmb_entry_rules(const struct mmb_ruleset *rs,
					const struct mmb_entry *e)
{
	return mmb_wderef(rs, e->rules);
}

/* How many rules @e holds, for a writer of @rs. */
static unsigned int mmb_entry_nrules(const struct mmb_ruleset *rs, const struct mmb_entry *e)
{
	const struct mmb_rvec *rv = mmb_entry_rules(rs, e);

	return mmb_rvec_lone(rv) ? 1 : rv->n;
}

/* Rule @i of @e, with its residues (@res, @nres), for a writer of @rs. */
static struct mmb_rule *mmb_entry_rule(const struct mmb_ruleset *rs, const struct mmb_entry *e,
				       unsigned int i, const struct mmb_resid **res,
				       unsigned int *nres)
{
	const struct mmb_rvec *rv = mmb_entry_rules(rs, e);
	struct mmb_rule *lone = mmb_rvec_lone(rv);

	if (lone) {
		*res = NULL;
		*nres = 0;
		return lone;
	}
	*res = mmb_rvec_res(rv) + rv->r[i].res;
	*nres = rv->r[i].nres;
	return rv->r[i].rule;
}

/*
 * Set @rv (a list, or a lone rule's pointer) as @e's rules, and its hot
 * word; readers may already see @e.
 */
static void mmb_entry_set_rules(struct mmb_entry *e, struct mmb_rvec *rv)
{
	rcu_assign_pointer(e->rules, rv);
	WRITE_ONCE(e->hot, mmb_rvec_hot(rv));
}

/*
 * Entries come from caches of their own, packed densely: a large table
 * then spans half the pages it did when entries shared kmalloc's slabs
 * with other objects of their size, and a probe misses the TLB less.
 * A key of one chunk (an IPv4 five-tuple: pkt.h) makes a 48-byte entry,
 * packed without padding to a line: half of them span two lines, which a
 * probe fetches at once; the other caches align entries to lines.
 */
enum { MMB_ENTRY_ONE, MMB_ENTRY_SHORT, MMB_ENTRY_LONG, MMB_ENTRY_CACHES };

static struct kmem_cache *mmb_entry_caches[MMB_ENTRY_CACHES];

static size_t mmb_entry_size(unsigned int nkey)
{
	return struct_size_t(struct mmb_entry, key, nkey);
}

static struct kmem_cache *mmb_entry_cache(unsigned int nkey)
{
	return mmb_entry_caches[nkey <= 1 ? MMB_ENTRY_ONE :
				nkey == 2 ? MMB_ENTRY_SHORT : MMB_ENTRY_LONG];
}

int __init mmb_tables_init(void)
{
	slab_flags_t flags = SLAB_ACCOUNT | SLAB_NO_MERGE;

	/* An entry with a key of two chunks is one cache line. */
	BUILD_BUG_ON(mmb_entry_size(2) > SMP_CACHE_BYTES);

	mmb_entry_caches[MMB_ENTRY_ONE] = kmem_cache_create("mmb_entry_1", mmb_entry_size(1),
							    0, flags, NULL);
	mmb_entry_caches[MMB_ENTRY_SHORT] = kmem_cache_create("mmb_entry", mmb_entry_size(2), 0,
							      flags | SLAB_HWCACHE_ALIGN, NULL);
	mmb_entry_caches[MMB_ENTRY_LONG] = kmem_cache_create("mmb_entry_long",
							     mmb_entry_size(MMB_KEY_CHUNKS), 0,
							     flags | SLAB_HWCACHE_ALIGN, NULL);
	if (!mmb_entry_caches[MMB_ENTRY_ONE] || !mmb_entry_caches[MMB_ENTRY_SHORT] ||
	    !mmb_entry_caches[MMB_ENTRY_LONG]) {
		mmb_tables_exit();
		return -ENOMEM;
	}
	return 0;
}

/* After every entry is freed (rcu_barrier() for the last ones). */
void mmb_tables_exit(void)
{
	int i;

	for (i = MMB_ENTRY_CACHES - 1; i >= 0; i--)
		kmem_cache_destroy(mmb_entry_caches[i]);
}

static void mmb_rvec_free_rcu(struct rcu_head *head)
{
	struct mmb_rvec *rv = container_of(head, struct mmb_rvec, rcu);

	if (rv->dead)
		kmem_cache_free(mmb_entry_cache(rv->dead_nkey), rv->dead);
	kvfree(rv);
}

/* A list of one rule (to be published with its entry). */
static struct mmb_rvec *mmb_rvec_one(struct mmb_rule *rule, const struct mmb_resid *res,
				     unsigned int nres)
{
	struct mmb_rvec *rv = mmb_rvec_alloc(1, nres);

	if (rv)
		mmb_rvec_add(rv, 0, rule, res, nres);
	return rv;
}

static void mmb_table_free(struct mmb_table *t)
{
	if (t) {
		kvfree(t->filter);
		kvfree(t->buckets);
		kfree(t);
	}
}

static struct mmb_table *mmb_table_alloc(unsigned int size, u8 ver)
{
	struct mmb_table *t;

	BUILD_BUG_ON(MMB_TABLE_MIN >> MMB_FILTER_SHIFT < 1);
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	t->size_mask = size - 1;
	t->ver = ver;
	t->buckets = kvcalloc(size, sizeof(*t->buckets), GFP_KERNEL_ACCOUNT);
	t->filter = kvcalloc(size >> MMB_FILTER_SHIFT, sizeof(*t->filter), GFP_KERNEL_ACCOUNT);
	if (!t->buckets || !t->filter) {
		mmb_table_free(t);
		return NULL;
	}
	return t;
}

static void mmb_table_free_rcu(struct rcu_head *head)
{
	mmb_table_free(container_of(head, struct mmb_table, rcu));
}

static struct mmb_table *mmb_tbl(const struct mmb_ruleset *rs, const struct mmb_mask *mask)
{
	return mmb_wderef(rs, mask->tbl);
}

/* The first entry of bucket @i, for a writer of @rs. */
static struct mmb_entry *mmb_bucket_first(const struct mmb_ruleset *rs,
					  const struct mmb_table *t, u32 i)
{
	return mmb_wderef(rs, t->buckets[i].head);
}

/* The hash of an entry's key, which writers recompute rather than store. */
static u64 mmb_entry_hash(const struct mmb_mask *mask, const struct mmb_entry *e)
{
	return mmb_key_hash(e->key, mask->n, mask->seed);
}

/* Point the hint of bucket @i at the chain's first rule; after each change. */
static void mmb_bucket_hint(const struct mmb_ruleset *rs, struct mmb_table *t, u32 i)
{
	struct mmb_entry *e = mmb_bucket_first(rs, t, i);
	const struct mmb_resid *res;
	unsigned int nres;

	WRITE_ONCE(t->buckets[i].hint, e ? mmb_entry_rule(rs, e, 0, &res, &nres)->stats : NULL);
}

/* Link @e, an entry of @mask, into @t, which readers may see. */
static void mmb_bucket_add(const struct mmb_ruleset *rs, const struct mmb_mask *mask,
			   struct mmb_table *t, struct mmb_entry *e)
{
	u64 hash = mmb_entry_hash(mask, e), *f;
	u32 i = mmb_bucket_of(t, hash);

	f = mmb_filter_word(t, i);
	WRITE_ONCE(*f, *f | mmb_filter_bits(hash));
	/* Readers of @t do not see @e yet: its link here is its own. */
	RCU_INIT_POINTER(e->next[t->ver], mmb_bucket_first(rs, t, i));
	/* A release: who finds the entry finds its bits and its link. */
	rcu_assign_pointer(t->buckets[i].head, e);
	mmb_bucket_hint(rs, t, i);
}

/* Unlink @e; readers standing on it still find the rest of the chain. */
static void mmb_bucket_del(const struct mmb_ruleset *rs, const struct mmb_mask *mask,
			   struct mmb_table *t, struct mmb_entry *e)
{
	u32 i = mmb_bucket_of(t, mmb_entry_hash(mask, e));
	u32 j, first = round_down(i, 1 << MMB_FILTER_SHIFT);
	struct mmb_entry __rcu **link = &t->buckets[i].head;
	struct mmb_entry *pos;
	u64 bits = 0;

	while ((pos = mmb_wderef(rs, *link)) != e)
		link = &pos->next[t->ver];
	rcu_assign_pointer(*link, mmb_wderef(rs, e->next[t->ver]));
	/* The word's bits of the entries left in its four chains. */
	for (j = first; j < first + (1 << MMB_FILTER_SHIFT); j++)
		for (pos = mmb_bucket_first(rs, t, j); pos; pos = mmb_entry_next(rs, pos, t->ver))
			bits |= mmb_filter_bits(mmb_entry_hash(mask, pos));
	WRITE_ONCE(*mmb_filter_word(t, i), bits);
	mmb_bucket_hint(rs, t, i);
}

/*
 * Double the table of a mask of @rs when it holds more entries than
 * buckets. In a ruleset readers may see, the old table stays readable for
 * a grace period; one that is still being built (a transaction's) has no
 * readers, and is spared the waits: 100k rules grow a table 13 times.
 */
static int mmb_table_grow(struct mmb_ruleset *rs, struct mmb_mask *mask)
{
	struct mmb_table *old = mmb_tbl(rs, mask), *t;
	struct mmb_entry *e;
	unsigned int i;

	/* Readers of the table before last must be gone: we reuse its nodes. */
	if (rs->live)
		cond_synchronize_rcu(mask->resize_gp);
	t = mmb_table_alloc((old->size_mask + 1) * 2, !old->ver);
	if (!t)
		return -ENOMEM;
	for (i = 0; i <= old->size_mask; i++)
		for (e = mmb_bucket_first(rs, old, i); e; e = mmb_entry_next(rs, e, old->ver))
			mmb_bucket_add(rs, mask, t, e);
	rcu_assign_pointer(mask->tbl, t);
	mask->resize_gp = get_state_synchronize_rcu();
	mmb_retire(rs, &old->rcu, mmb_table_free_rcu);
	return 0;
}

static struct mmb_mvec *mmb_masks(const struct mmb_ruleset *rs)
{
	return mmb_wderef(rs, rs->masks);
}

static struct mmb_mask *mmb_mask_find(struct mmb_ruleset *rs, const struct mmb_key *m)
{
	struct mmb_mvec *mv = mmb_masks(rs);
	unsigned int i;

	for (i = 0; mv && i < mv->n; i++)
		if (!memcmp(&mv->m[i]->m, m, sizeof(*m)))
			return mv->m[i];
	return NULL;
}

/* --- the sieve (tables.h) ---------------------------------------------- */

/*
 * A sieve looks at the 12 highest bits of one half of an image word: half
 * @h (0 the upper 16 bits, 1 the lower) of word @w. MMB_SIEVE_HALVES of
 * them, some of which a sieve may not look at (mmb_sieve_half_ok()).
 */
#define MMB_SIEVE_HALVES	(MMB_KEY_CHUNKS * 4 * 2)
#define MMB_SIEVE_SAMPLE	2048

/* May a sieve look at half @h (mmb_sieve_point()'s)? Not at the way or the device. */
static bool mmb_sieve_half_ok(unsigned int h)
{
	return h / 2 != MMB_IMG_FAMILY / 4 && h / 2 != MMB_IMG_IFINDEX / 4;
}

/* Point @mask's sieve at half @h. */
static void mmb_sieve_point(struct mmb_mask *mask, unsigned int h)
{
	mask->sieve_off = h / 2 * 4;
	mask->sieve_shift = h % 2 ? 4 : 20;
	mask->sieve_mask = 0xfffU << mask->sieve_shift;
}

/*
 * The sieve bits [*lo, *hi] of @mask's half that a packet matching @rule
 * may have (none if *lo > *hi), by the rule's exact part (@rm and @rk, its
 * mmb_rule_key()) and by its slow <, <=, >, >= and == matches of a 16-bit
 * field there (port ranges). A superset: other bits the rule fixes there
 * (not a prefix of the half) and its other slow matches are left out.
 */
static void mmb_sieve_span(const struct mmb_mask *mask, const struct mmb_rule *rule,
			   const struct mmb_key *rm, const struct mmb_key *rk, u32 *lo, u32 *hi)
{
	unsigned int off = mask->sieve_off + (mask->sieve_shift == 4 ? 2 : 0), i, fixed;
	u32 m16 = get_unaligned_be16(&rm->b[off]), k16 = get_unaligned_be16(&rk->b[off]);
	const struct mmb_match *m;
	const u8 *value;
	u32 v;

	/* The leading bits the exact part fixes, up to 12. */
	fixed = min_t(unsigned int, 16 - fls(~m16 & 0xffff), MMB_SIEVE_ORDER);
	*lo = (k16 >> 4) & ~(BIT(MMB_SIEVE_ORDER - fixed) - 1) & (MMB_SIEVE_BITS - 1);
	*hi = *lo | (BIT(MMB_SIEVE_ORDER - fixed) - 1);
	if (!rule->slow)
		return;
	value = mmb_rule_values(rule);
	for (i = 0, m = rule->m; i < rule->nmatches; value += m->vlen, i++, m++) {
		const struct mmb_field_info *f = mmb_field(m->field);

		if (!(rule->slow & BIT(i)) || m->field == MMB_FIELD_ALL ||
		    m->field == MMB_FIELD_NET_PROTO || f->img != off || f->len != 2 ||
		    f->bits != 16 || f->mask != 0xffff || f->shift ||
		    f->hdr == MMB_HDR_MARK || f->hdr == MMB_HDR_TCPOPT || m->plen < f->bits)
			continue;
		v = mmb_value_u32(value, min_t(unsigned int, m->vlen, 4));
		switch (m->op) {
		case MMB_OP_EQ:
			*lo = max(*lo, v >> 4);
			*hi = min(*hi, v >> 4);
			break;
		case MMB_OP_GE:
			*lo = max(*lo, v >> 4);
			break;
		case MMB_OP_GT:
			*lo = max(*lo, (v + 1) >> 4);
			break;
		case MMB_OP_LE:
			*hi = min(*hi, v >> 4);
			break;
		case MMB_OP_LT:
			if (!v)
				*lo = MMB_SIEVE_BITS;	/* nothing is below 0 */
			else
				*hi = min(*hi, (v - 1) >> 4);
			break;
		}
	}
}

/*
 * @rule, of mask and key @rm and @rk, comes into @mask's table (@add) or
 * leaves it: the bits of its span are set before it is linked, and go with
 * the last rule of theirs after it is unlinked.
 */
static void mmb_sieve_rule(struct mmb_mask *mask, const struct mmb_rule *rule,
			   const struct mmb_key *rm, const struct mmb_key *rk, bool add)
{
	u32 i, lo, hi;
	u64 w = 0;

	if (!mask->sieve)
		return;
	mmb_sieve_span(mask, rule, rm, rk, &lo, &hi);
	if (!lo && hi == MMB_SIEVE_BITS - 1) {
		/* Every bit: counted apart, as no per-bit count is touched. */
		if (add && !mask->sieve_all++) {
			for (i = 0; i < MMB_SIEVE_BITS / 64; i++)
				WRITE_ONCE(mask->sieve[i], ~0ULL);
		} else if (!add && !--mask->sieve_all) {
			for (i = 0; i < MMB_SIEVE_BITS; i++) {
				w = i % 64 ? w : 0;
				w |= (u64)!!mask->sieve_n[i] << (i % 64);
				if (i % 64 == 63)
					WRITE_ONCE(mask->sieve[i / 64], w);
			}
		}
		return;
	}
	for (i = lo; i <= hi; i++) {
		if (mask->sieve_n[i] == U8_MAX)
			continue;	/* saturated: set for good */
		if (add && !mask->sieve_n[i]++ && !mask->sieve_all)
			WRITE_ONCE(mask->sieve[i / 64], mask->sieve[i / 64] | BIT_ULL(i % 64));
		else if (!add && !--mask->sieve_n[i] && !mask->sieve_all)
			WRITE_ONCE(mask->sieve[i / 64], mask->sieve[i / 64] & ~BIT_ULL(i % 64));
	}
}

/* The same for @rule, whose mask and key are computed. */
static void mmb_sieve_rule_key(struct mmb_mask *mask, const struct mmb_rule *rule, bool add)
{
	struct mmb_key rm, rk;

	if (!mask->sieve)
		return;
	mmb_rule_key(rule, &rm, &rk);
	mmb_sieve_rule(mask, rule, &rm, &rk, add);
}

/*
 * A sieve for a new @mask, on the half with the most bits the mask keeps
 * (of equals, the last: in IPv4 the destination, then the source, then the
 * ports); none for a wild table, or without memory.
 */
static void mmb_sieve_create(struct mmb_mask *mask)
{
	unsigned int h, best = 0, bits = 0, n;

	if (mask->wild)
		return;
	for (h = 0; h < MMB_SIEVE_HALVES; h++) {
		if (!mmb_sieve_half_ok(h))
			continue;
		n = hweight16(get_unaligned_be16(&mask->m.b[h * 2]) & 0xfff0);
		if (!best || n >= bits) {
			bits = n;
			best = h;
		}
	}
	mask->sieve = kzalloc(MMB_SIEVE_BITS / 8, GFP_KERNEL_ACCOUNT);
	mask->sieve_n = kvcalloc(MMB_SIEVE_BITS, sizeof(*mask->sieve_n), GFP_KERNEL_ACCOUNT);
	if (!mask->sieve || !mask->sieve_n) {
		kfree(mask->sieve);
		kvfree(mask->sieve_n);
		mask->sieve = NULL;
		mask->sieve_n = NULL;
		return;
	}
	mmb_sieve_point(mask, best);
}

static void mmb_sieve_free(struct mmb_mask *mask)
{
	kfree(mask->sieve);
	kvfree(mask->sieve_n);
}

/*
 * The mask and key of a rule of @mask's entry @e with residues @res (what
 * mmb_rule_key() gives, without reading its matches again): the table's
 * mask and the entry's key, and the whole words of its residues.
 */
static void mmb_sieve_key(const struct mmb_mask *mask, const struct mmb_entry *e,
			  const struct mmb_resid *res, unsigned int nres,
			  struct mmb_key *rm, struct mmb_key *rk)
{
	unsigned int j;

	*rm = mask->m;
	memset(rk, 0, sizeof(*rk));
	for (j = 0; j < mask->n; j++)
		rk->c[mask->chunk[j]] = e->key[j];
	for (j = 0; j < nres; j++) {
		rm->w[res[j].word] = res[j].mask;
		rk->w[res[j].word] = res[j].key;
	}
}

/* Add the span of @rule (@rm, @rk) in each half @mask's sieve may look at to @seen and @full. */
static void mmb_sieve_seen(struct mmb_mask *mask, const struct mmb_rule *rule,
			   const struct mmb_key *rm, const struct mmb_key *rk, u64 *seen,
			   unsigned long *full)
{
	unsigned int h;
	u32 lo, hi;

	for (h = 0; h < MMB_SIEVE_HALVES; h++) {
		if (!mmb_sieve_half_ok(h) || test_bit(h, full))
			continue;
		mmb_sieve_point(mask, h);
		mmb_sieve_span(mask, rule, rm, rk, &lo, &hi);
		if (!lo && hi == MMB_SIEVE_BITS - 1)
			__set_bit(h, full);
		else if (lo <= hi)
			bitmap_set((unsigned long *)(seen + h * MMB_SIEVE_BITS / 64), lo,
				   hi - lo + 1);
	}
}

/*
 * Point the sieve of @mask, of @rs that no reader sees (a batch's tables,
 * built), at the half whose bits its rules' spans cover least: the fewest
 * packets of random headers pass. The spans are those of the rules of up
 * to MMB_SIEVE_SAMPLE entries spread over the table (a big table's
 * choice costs no more than a small one's); then every rule's bits are
 * set. Another half than the current one only if it passes an eighth of
 * the values fewer (a recount costs up to a span's bits per rule); none
 * at all if every value passes, which would cost each packet a line of
 * the sieve for nothing. @seen is scratch of MMB_SIEVE_BITS bits per half.
 */
static void mmb_sieve_choose(struct mmb_ruleset *rs, struct mmb_mask *mask, u64 *seen)
{
	struct mmb_table *t = mmb_tbl(rs, mask);
	unsigned int h, best = 0, best_n = UINT_MAX, n, i, j, nres, stride, k = 0, cur, cur_n = 0;
	DECLARE_BITMAP(full, MMB_SIEVE_HALVES);
	const struct mmb_resid *res;
	struct mmb_key rm, rk;
	struct mmb_rule *rule;
	struct mmb_entry *e;

	if (!mask->sieve)
		return;
	cur = mask->sieve_off / 2 + (mask->sieve_shift == 4);
	memset(seen, 0, MMB_SIEVE_HALVES * MMB_SIEVE_BITS / 8);
	bitmap_zero(full, MMB_SIEVE_HALVES);
	stride = max(mask->entries / MMB_SIEVE_SAMPLE, 1U);
	for (i = 0; i <= t->size_mask; i++) {
		for (e = mmb_bucket_first(rs, t, i); e; e = mmb_entry_next(rs, e, t->ver)) {
			if (k++ % stride)
				continue;
			for (j = 0; j < mmb_entry_nrules(rs, e); j++) {
				rule = mmb_entry_rule(rs, e, j, &res, &nres);
				mmb_sieve_key(mask, e, res, nres, &rm, &rk);
				mmb_sieve_seen(mask, rule, &rm, &rk, seen, full);
			}
		}
		cond_resched();
	}
	for (h = 0; h < MMB_SIEVE_HALVES; h++) {
		if (!mmb_sieve_half_ok(h))
			continue;
		n = test_bit(h, full) ? MMB_SIEVE_BITS :
		    bitmap_weight((unsigned long *)&seen[h * MMB_SIEVE_BITS / 64], MMB_SIEVE_BITS);
		if (h == cur)
			cur_n = n;
		if (n < best_n) {
			best = h;
			best_n = n;
		}
	}
	if (best_n + MMB_SIEVE_BITS / 8 > cur_n) {
		best = cur;
		best_n = cur_n;
	}
	if (best_n >= MMB_SIEVE_BITS) {
		/* Every rule's bits are a superset of the sample's: all set. */
		mmb_sieve_free(mask);
		mask->sieve = NULL;
		mask->sieve_n = NULL;
		return;
	}
	mmb_sieve_point(mask, best);
	if (best == cur)
		return;		/* its counts are of that half already */
	memset(mask->sieve, 0, MMB_SIEVE_BITS / 8);
	memset(mask->sieve_n, 0, MMB_SIEVE_BITS * sizeof(*mask->sieve_n));
	mask->sieve_all = 0;
	for (i = 0; i <= t->size_mask; i++) {
		for (e = mmb_bucket_first(rs, t, i); e; e = mmb_entry_next(rs, e, t->ver)) {
			for (j = 0; j < mmb_entry_nrules(rs, e); j++) {
				rule = mmb_entry_rule(rs, e, j, &res, &nres);
				mmb_sieve_key(mask, e, res, nres, &rm, &rk);
				mmb_sieve_rule(mask, rule, &rm, &rk, true);
			}
		}
		cond_resched();
	}
}

/* Does @m keep nothing but the family and the way (struct mmb_mask's wild)? */
static bool mmb_mask_wild(const struct mmb_key *m)
{
	unsigned int i;

	for (i = 0; i < sizeof(m->b); i++)
		if (m->b[i] & ~(i == MMB_IMG_FAMILY ? 0xff : i == MMB_IMG_FLAGS ? MMB_KF_OUT : 0))
			return false;
	return true;
}

static struct mmb_mask *mmb_mask_create(const struct mmb_key *m)
{
	struct mmb_mask *mask;
	struct mmb_table *t;
	unsigned int i;

	mask = kzalloc(sizeof(*mask), GFP_KERNEL_ACCOUNT);
	t = mmb_table_alloc(MMB_TABLE_MIN, 0);
	if (!mask || !t) {
		kfree(mask);
		mmb_table_free(t);
		return NULL;
	}
	mask->m = *m;
	for (i = 0; i < MMB_KEY_CHUNKS; i++)
		if (i == 0 || m->c[i].w[0] || m->c[i].w[1])
			mask->chunk[mask->n++] = i;
	mask->wild = mmb_mask_wild(m);
	mmb_sieve_create(mask);
	get_random_bytes(mask->seed, sizeof(mask->seed));
	mask->resize_gp = get_state_synchronize_rcu();
	RCU_INIT_POINTER(mask->tbl, t);
	return mask;
}

/* Free @e, of a mask of @nkey chunks, and its list; no reader sees them. */
static void mmb_entry_free(const struct mmb_ruleset *rs, struct mmb_entry *e,
			   unsigned int nkey)
{
	struct mmb_rvec *rv = mmb_entry_rules(rs, e);

	if (!mmb_rvec_lone(rv))
		kvfree(rv);
	kmem_cache_free(mmb_entry_cache(nkey), e);
}

/*
 * Free a mask of @rs that no reader can see any more, with its entries: it
 * was never published, or a grace period passed since it was unpublished,
 * which also covers the readers of a table a resize replaced before that.
 */
static void mmb_mask_destroy(const struct mmb_ruleset *rs, struct mmb_mask *mask)
{
	struct mmb_table *t = mmb_tbl(rs, mask);
	struct mmb_entry *e, *next;
	unsigned int i;

	for (i = 0; i <= t->size_mask; i++) {
		for (e = mmb_bucket_first(rs, t, i); e; e = next) {
			next = mmb_entry_next(rs, e, t->ver);
			mmb_entry_free(rs, e, mask->n);
		}
		if (!(i & 1023))
			cond_resched();
	}
	mmb_table_free(t);
	mmb_sieve_free(mask);
	kfree(mask);
}

/* A mask whose last entry went; its table is empty. */
static void mmb_mask_free_rcu(struct rcu_head *head)
{
	struct mmb_mask *mask = container_of(head, struct mmb_mask, rcu);

	/* A grace period after it was unpublished: no reader is left. */
	mmb_table_free(rcu_dereference_protected(mask->tbl, 1));
	mmb_sieve_free(mask);
	kfree(mask);
}

static void mmb_mvec_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct mmb_mvec, rcu));
}

/* Free the masks of @mv, a list of @rs that no reader can see. */
static void mmb_mvec_destroy(struct mmb_ruleset *rs, struct mmb_mvec *mv)
{
	unsigned int i;

	for (i = 0; mv && i < mv->n; i++)
		mmb_mask_destroy(rs, mv->m[i]);
	kvfree(mv);
}

/* Free every mask of @rs, which no reader can see. */
void mmb_tables_destroy(struct mmb_ruleset *rs)
{
	mmb_mvec_destroy(rs, mmb_masks(rs));
}

/* How many tables @rs has, for its writer. */
unsigned int mmb_tables_count(const struct mmb_ruleset *rs)
{
	const struct mmb_mvec *mv = mmb_masks(rs);

	return mv ? mv->n : 0;
}

/* The priority @mask has in a list being built: @prio if it is @raise. */
static u32 mmb_mask_prio(const struct mmb_mask *mask, const struct mmb_mask *raise, u32 prio)
{
	return mask == raise ? prio : mask->prio;
}

/*
 * A new mask list, not published: the current one with @add appended, or
 * without @del, and @raise (if not NULL) at priority @prio, in lookup
 * order (by descending priority; as before among equals).
 */
static struct mmb_mvec *mmb_masks_build(struct mmb_ruleset *rs, struct mmb_mask *add,
					struct mmb_mask *del, struct mmb_mask *raise, u32 prio)
{
	struct mmb_mvec *old = mmb_masks(rs), *mv;
	unsigned int i, j, n = old ? old->n : 0;
	struct mmb_mask *m;
	u32 *p;

	/* Past a few pages (thousands of tables), from vmalloc. */
	mv = kvzalloc(struct_size(mv, m, n + 1) + (n + 1) * sizeof(u32), GFP_KERNEL_ACCOUNT);
	if (!mv)
		return NULL;
	for (i = 0; i < n; i++)
		if (old->m[i] != del)
			mv->m[mv->n++] = old->m[i];
	if (add)
		mv->m[mv->n++] = add;
	/* Insertion sort: the list is in order but for one mask at most. */
	for (i = 1; i < mv->n; i++) {
		m = mv->m[i];
		for (j = i; j > 0 && mmb_mask_prio(mv->m[j - 1], raise, prio) <
				     mmb_mask_prio(m, raise, prio); j--)
			mv->m[j] = mv->m[j - 1];
		mv->m[j] = m;
	}
	p = (u32 *)mmb_mvec_prio(mv);
	for (i = 0; i < mv->n; i++) {
		p[i] = mmb_mask_prio(mv->m[i], raise, prio);
		for (j = 0; j < MMB_KEY_CHUNKS; j++) {
			mv->any.c[j].w[0] |= mv->m[i]->m.c[j].w[0];
			mv->any.c[j].w[1] |= mv->m[i]->m.c[j].w[1];
		}
	}
	return mv;
}

/* Publish @mv, from mmb_masks_build(), in place of the current list. */
static void mmb_masks_publish(struct mmb_ruleset *rs, struct mmb_mvec *mv)
{
	struct mmb_mvec *old = mmb_masks(rs);

	rcu_assign_pointer(rs->masks, mv);
	if (old)
		mmb_retire(rs, &old->rcu, mmb_mvec_free_rcu);
}

/* Publish the mask list with @add appended, or without @del. */
static int mmb_masks_update(struct mmb_ruleset *rs, struct mmb_mask *add,
			    struct mmb_mask *del)
{
	struct mmb_mvec *mv = mmb_masks_build(rs, add, del, NULL, 0);

	if (!mv)
		return -ENOMEM;
	mmb_masks_publish(rs, mv);
	return 0;
}

/*
 * Lists of this many rules or more that a ruleset no reader sees makes get
 * half as much room again: a batch that puts thousands of rules into one
 * entry (port ranges of one protocol) then takes each in place, where a
 * new list each time copied all the rules before it, n^2 / 2 in all.
 */
#define MMB_RVEC_ROOM_MIN	16

/*
 * Take @add (and its @nres residues @res) into @rv, a list with room for
 * them that no reader sees, in handle order: rules come in that order in a
 * batch, so the place is found from the end.
 */
static void mmb_rvec_insert(struct mmb_rvec *rv, struct mmb_rule *add,
			    const struct mmb_resid *res, unsigned int nres)
{
	unsigned int i = rv->n;

	while (i && rv->r[i - 1].rule->handle > add->handle)
		i--;
	memmove(&rv->r[i + 1], &rv->r[i], (rv->n - i) * sizeof(rv->r[0]));
	mmb_rvec_put(rv, i, !rv->n, add, res, nres);
	rv->n++;
}

/*
 * Publish @e's rules with @add (and its @nres residues @res) inserted in
 * handle order, or without @del: as a list, or as a lone rule if one rule
 * without residues is left. A list of a ruleset no reader sees takes @add
 * in place if it has room.
 */
static int mmb_rules_update(struct mmb_ruleset *rs, struct mmb_mask *mask,
			    struct mmb_entry *e, struct mmb_rule *add,
			    const struct mmb_resid *res, unsigned int nres,
			    struct mmb_rule *del)
{
	unsigned int i, j = 0, n = mmb_entry_nrules(rs, e), kept = 0, kept_res = 0, onres;
	unsigned int cap, res_cap;
	struct mmb_rvec *old = mmb_entry_rules(rs, e), *rv;
	struct mmb_table *t = mmb_tbl(rs, mask);
	struct mmb_rule *rule, *last = add;
	const struct mmb_resid *ores;

	if (!rs->live && add && !del && !mmb_rvec_lone(old) && old->n < old->cap &&
	    old->nres + nres <= old->res_cap) {
		mmb_rvec_insert(old, add, res, nres);
		mmb_entry_set_rules(e, old);
		mmb_bucket_hint(rs, t, mmb_bucket_of(t, mmb_entry_hash(mask, e)));
		return 0;
	}

	for (i = 0; i < n; i++) {
		rule = mmb_entry_rule(rs, e, i, &ores, &onres);
		if (rule != del) {
			kept++;
			kept_res += onres;
			last = rule;
		}
	}
	if (kept + !!add == 1 && !kept_res && !(add && nres)) {
		rv = mmb_rvec_of_lone(last);
	} else {
		cap = kept + !!add;
		res_cap = kept_res + nres;
		if (!rs->live && add && cap >= MMB_RVEC_ROOM_MIN) {
			cap += cap / 2;
			res_cap = max(res_cap, min(res_cap + res_cap / 2, U16_MAX));
		}
		rv = mmb_rvec_alloc_room(kept + !!add, cap, res_cap);
		if (!rv)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			rule = mmb_entry_rule(rs, e, i, &ores, &onres);
			if (add && rule->handle > add->handle) {
				mmb_rvec_add(rv, j++, add, res, nres);
				add = NULL;
			}
			if (rule != del)
				mmb_rvec_add(rv, j++, rule, ores, onres);
		}
		if (add)
			mmb_rvec_add(rv, j, add, res, nres);
	}
	mmb_entry_set_rules(e, rv);
	mmb_bucket_hint(rs, t, mmb_bucket_of(t, mmb_entry_hash(mask, e)));
	if (!mmb_rvec_lone(old))
		mmb_retire(rs, &old->rcu, mmb_rvec_free_rcu);
	return 0;
}

/* A new entry of @mask for @key, holding @rule, linked into its table. */
static int mmb_entry_add(struct mmb_ruleset *rs, struct mmb_mask *mask,
			 const struct mmb_chunk *key, struct mmb_rule *rule,
			 const struct mmb_resid *res, unsigned int nres)
{
	struct mmb_entry *e;
	struct mmb_rvec *rv;
	int err = -ENOMEM;

	e = kmem_cache_zalloc(mmb_entry_cache(mask->n), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	rv = nres ? mmb_rvec_one(rule, res, nres) : mmb_rvec_of_lone(rule);
	if (!rv)
		goto err_entry;		/* e has no list yet: NULL */
	memcpy(e->key, key, mask->n * sizeof(*key));
	mmb_entry_set_rules(e, rv);
	if (mask->entries > mmb_tbl(rs, mask)->size_mask) {
		err = mmb_table_grow(rs, mask);
		if (err)
			goto err_entry;
	}
	mmb_bucket_add(rs, mask, mmb_tbl(rs, mask), e);
	if (mask->wild)
		rcu_assign_pointer(mask->wild_e[mmb_wild_index(mask, (const u8 *)e->key)], e);
	mask->entries++;
	return 0;

err_entry:
	mmb_entry_free(rs, e, mask->n);
	return err;
}

/* Are the bits of @t all among those of @m? */
static bool mmb_key_within(const struct mmb_key *t, const struct mmb_key *m)
{
	unsigned int i;

	for (i = 0; i < MMB_KEY_WORDS; i++)
		if (t->w[i] & ~m->w[i])
			return false;
	return true;
}

/* The words of a rule's mask @img->mask that @mask leaves out, as residues. */
static unsigned int mmb_resid_of(const struct mmb_mask *mask, const struct mmb_rule_image *img,
				 struct mmb_resid *res)
{
	unsigned int i, n = 0;

	for (i = 0; i < MMB_KEY_WORDS; i++)
		if (img->mask.w[i] & ~mask->m.w[i])
			res[n++] = (struct mmb_resid){
				.mask = img->mask.w[i],
				.key = img->key.w[i] & img->mask.w[i],
				.word = i,
			};
	return n;
}

/* Shorten the prefix of @len bytes at @m to a multiple of @step bits. */
static void mmb_prefix_relax(u8 *m, unsigned int len, unsigned int step)
{
	unsigned int i, plen = 0;

	while (plen < len * 8 && m[plen / 8] & (0x80 >> plen % 8))
		plen++;
	for (i = 0; i < len; i++)		/* not a prefix: leave it */
		if (m[i] != mmb_prefix_mask(plen, i))
			return;
	for (i = 0; i < len; i++)
		m[i] = mmb_prefix_mask(round_down(plen, step), i);
}

/*
 * The mask of a new table for a rule of mask @m and key @k: its address
 * prefixes shortened to a multiple of an eighth of their bits (4 for IPv4,
 * 16 for IPv6), so that rules whose prefixes differ a little share it.
 */
static void mmb_mask_relax(const struct mmb_key *m, const struct mmb_key *k,
			   struct mmb_key *out)
{
	*out = *m;
	if (m->b[MMB_IMG_FAMILY] != 0xff)
		return;
	if (k->b[MMB_IMG_FAMILY] == 4) {
		mmb_prefix_relax(&out->b[MMB_IMG_IP4_SADDR], 4, 4);
		mmb_prefix_relax(&out->b[MMB_IMG_IP4_DADDR], 4, 4);
	} else {
		mmb_prefix_relax(&out->b[MMB_IMG_IP6 + 8], 16, 16);
		mmb_prefix_relax(&out->b[MMB_IMG_IP6 + 24], 16, 16);
	}
}

static unsigned int mmb_key_bits(const struct mmb_key *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < MMB_KEY_WORDS; i++)
		n += hweight64(m->w[i]);
	return n;
}

/*
 * How many rules an entry of @mask, which keeps @bits bits, may take from
 * masks other than its own.
 * Each of them costs a residue compare for every packet that hits the
 * entry: an entry of a table that keeps the family and the L4 protocol
 * alone is hit by every packet of its protocol, so it takes one rule of
 * another mask, in an entry of its own, and no more. With up to 32 there,
 * FW-like rulesets of 10k rules lost a fifth of their throughput to those
 * compares. Other tables take MMB_MERGE_LIMIT, those of port-range rules
 * too, which also keep the flag of a whole L4 header: limiting them as
 * well made more tables and lost more than it saved (FW 0.81 -> 0.74 of
 * the rate without a filter).
 */
static unsigned int mmb_merge_limit(const struct mmb_ruleset *rs, const struct mmb_mask *mask,
				    unsigned int bits)
{
	/* Which way a rule judges is in every mask: it makes none finer. */
	unsigned int coarse = hweight8(mask->m.b[MMB_IMG_FAMILY]) +
			      hweight8(mask->m.b[MMB_IMG_L4PROTO]) +
			      hweight8(mask->m.b[MMB_IMG_FLAGS] & MMB_KF_OUT);

	/*
	 * A rebuild places the widest rules first: the table of a protocol
	 * alone (and its L4 flag) comes early, and would take 32 rules of
	 * every narrower mask into the one entry each packet of the protocol
	 * hits. There it takes one, as the family's table does.
	 */
	if (rs->rebuilding)
		coarse += hweight8(mask->m.b[MMB_IMG_FLAGS] & MMB_KF_L4);
	return bits > coarse ? MMB_MERGE_LIMIT : 1;
}

/*
 * Where a rule of mask and key @img goes: the table, among those whose
 * mask is within the rule's, with the most bits and, of those, the fewest
 * rules under the rule's key, as long as that entry has room (the table
 * of the rule's own mask always has); NULL if none. @e is the entry.
 */
static struct mmb_mask *mmb_mask_choose(struct mmb_ruleset *rs,
					const struct mmb_rule_image *img,
					struct mmb_entry **e)
{
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	struct mmb_mvec *mv = mmb_masks(rs);
	unsigned int i, best_bits = 0, best_n = 0;
	struct mmb_mask *best = NULL;

	*e = NULL;
	for (i = 0; mv && i < mv->n; i++) {
		struct mmb_mask *mask = mv->m[i];
		unsigned int bits, n = 0;
		struct mmb_entry *pos;

		if (!mmb_key_within(&mask->m, &img->mask))
			continue;
		mmb_mask_key(mask, &img->key, key);
		pos = mmb_lookup(rs, mask, mmb_tbl(rs, mask), key, false);
		if (pos)
			n = mmb_entry_nrules(rs, pos);
		bits = mmb_key_bits(&mask->m);
		if (n >= mmb_merge_limit(rs, mask, bits) &&
		    memcmp(&mask->m, &img->mask, sizeof(img->mask)))
			continue;
		if (best && (bits < best_bits || (bits == best_bits && n >= best_n)))
			continue;
		best = mask;
		best_bits = bits;
		best_n = n;
		*e = pos;
	}
	return best;
}

/*
 * Put @rule, whose mask and key (mmb_rule_key()) @img holds, into a table:
 * mmb_mask_choose()'s, or a new one for the relaxation of its mask (its
 * own mask if a table for the relaxation is there but full). Nothing
 * changes if that fails; nothing is retired then either, since every step
 * that can fail comes before anything is unpublished.
 */
int mmb_tables_insert(struct mmb_ruleset *rs, struct mmb_rule *rule,
		      const struct mmb_rule_image *img)
{
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	struct mmb_resid res[MMB_KEY_WORDS];
	struct mmb_mask *mask, *new_mask = NULL;
	struct mmb_mvec *raised = NULL;
	struct mmb_entry *e;
	unsigned int nres;
	int err;

	mask = mmb_mask_choose(rs, img, &e);
	if (!mask) {
		struct mmb_key relaxed;

		mmb_mask_relax(&img->mask, &img->key, &relaxed);
		mask = mmb_mask_create(mmb_mask_find(rs, &relaxed) ? &img->mask : &relaxed);
		if (!mask)
			return -ENOMEM;
		mask->prio = rule->prio;
		new_mask = mask;
	} else if (rule->prio > mask->prio) {
		/* The table's new priority, in order, once the rule is in. */
		raised = mmb_masks_build(rs, NULL, NULL, mask, rule->prio);
		if (!raised)
			return -ENOMEM;
	}
	nres = mmb_resid_of(mask, img, res);
	/* Its bits before it is linked (undone below if it is not). */
	mmb_sieve_rule(mask, rule, &img->mask, &img->key, true);
	if (e) {	/* an existing entry: one published list replaces another */
		err = mmb_rules_update(rs, mask, e, rule, res, nres, NULL);
		goto out;
	}
	mmb_mask_key(mask, &img->key, key);
	err = mmb_entry_add(rs, mask, key, rule, res, nres);
	if (err || !new_mask)
		goto out;
	/* A new mask is published last, with its table complete. */
	err = mmb_masks_update(rs, new_mask, NULL);
	if (!err && mmb_masks(rs)->n >= MMB_CACHE_MIN_MASKS)
		mmb_cache_create(rs);
out:
	if (err)
		mmb_sieve_rule(mask, rule, &img->mask, &img->key, false);
	if (err && new_mask)
		mmb_mask_destroy(rs, new_mask);		/* its table may hold the entry */
	if (raised && err) {
		kvfree(raised);
	} else if (raised) {
		mask->prio = rule->prio;
		mmb_masks_publish(rs, raised);
	}
	return err;
}

/* A rule in the order of a rebuild: the bits of its mask, then its handle. */
struct mmb_rebuild_ent {
	struct mmb_rule *rule;
	unsigned int bits;
};

static int mmb_rebuild_cmp(const void *a, const void *b)
{
	const struct mmb_rebuild_ent *x = a, *y = b;

	if (x->bits != y->bits)
		return x->bits < y->bits ? -1 : 1;
	return x->rule->handle < y->rule->handle ? -1 : x->rule->handle > y->rule->handle;
}

/* Choose the word of every sieve of @rs, whose tables are built (no reader sees them). */
static void mmb_sieves_choose(struct mmb_ruleset *rs)
{
	struct mmb_mvec *mv = mmb_masks(rs);
	unsigned int i;
	u64 *seen;

	seen = kvmalloc(MMB_SIEVE_HALVES * MMB_SIEVE_BITS / 8, GFP_KERNEL);
	if (!seen)
		return;		/* the sieves stay on the words they were made for */
	for (i = 0; mv && i < mv->n; i++) {
		mmb_sieve_choose(rs, mv->m[i], seen);
		cond_resched();
	}
	kvfree(seen);
}

/*
 * Put every rule of @rs into its tables (none, or those of a rule list
 * left aside), the widest masks first; on failure (-ENOMEM) what was
 * placed stays, for the caller to destroy.
 */
static int mmb_tables_place_all(struct mmb_ruleset *rs)
{
	struct mmb_rebuild_ent *v;
	struct mmb_rule_image img;
	struct mmb_rule *rule;
	unsigned long handle;
	unsigned int i, n = 0;
	int err = 0;

	if (!rs->nrules)
		return 0;
	v = kvmalloc_array(rs->nrules, sizeof(*v), GFP_KERNEL_ACCOUNT);
	if (!v)
		return -ENOMEM;
	xa_for_each(&rs->rules, handle, rule) {
		if (WARN_ON_ONCE(n == rs->nrules))
			break;
		mmb_rule_key(rule, &img.mask, &img.key);
		v[n].rule = rule;
		v[n++].bits = mmb_key_bits(&img.mask);
	}
	sort(v, n, sizeof(*v), mmb_rebuild_cmp, NULL);
	rs->rebuilding = true;
	for (i = 0; i < n && !err; i++) {
		mmb_rule_key(v[i].rule, &img.mask, &img.key);
		err = mmb_tables_insert(rs, v[i].rule, &img);
		if (!(i & 1023))
			cond_resched();
	}
	rs->rebuilding = false;
	kvfree(v);
	return err;
}

/*
 * Build the tables of @rs, a ruleset no reader sees (a transaction's, before
 * it is published), again from its rules, the widest masks first: whatever
 * order the rules came in, each table is made for the widest rules that
 * need it, and the narrower ones that come after find it (see "Tuple
 * merging" in docs/architecture.md). In the order an ordered ACL is
 * written in (exceptions first), the same greedy placement kept 2-4 times
 * more tables: each narrow rule made a table of its relaxation, which the
 * wide rules after it could not use. The old tables stay until the new
 * ones are complete, and stay if the new ones are no fewer; on failure
 * (-ENOMEM) they are @rs's again, unchanged. With @max_tables or fewer
 * tables, they are not built again. Either way the sieves are then pointed
 * at the words that suit the entries (mmb_sieve_choose()).
 */
int mmb_tables_rebuild(struct mmb_ruleset *rs, unsigned int max_tables)
{
	struct mmb_mvec *old = mmb_masks(rs);
	int err = 0;

	if (WARN_ON_ONCE(rs->live))
		return -EBUSY;
	if (!old || old->n <= max_tables)
		goto out;
	RCU_INIT_POINTER(rs->masks, NULL);
	err = mmb_tables_place_all(rs);
	/* No fewer tables (a set that came widest first): keep the old ones. */
	if (err || mmb_tables_count(rs) >= old->n) {
		mmb_tables_destroy(rs);
		RCU_INIT_POINTER(rs->masks, old);
	} else {
		mmb_mvec_destroy(rs, old);
	}
out:
	/* Rebuilt or not, the batch's tables are complete: point their sieves. */
	mmb_sieves_choose(rs);
	return err;
}

/*
 * Build the tables of @rs, a ruleset no reader sees whose rules are in no
 * table yet (rs->unplaced), the widest masks first, as the rebuild does.
 * On failure (-ENOMEM) it has none.
 */
int mmb_tables_build(struct mmb_ruleset *rs)
{
	int err;

	if (WARN_ON_ONCE(rs->live || mmb_masks(rs)))
		return -EBUSY;
	err = mmb_tables_place_all(rs);
	if (err) {
		mmb_tables_destroy(rs);
		RCU_INIT_POINTER(rs->masks, NULL);
		return err;
	}
	mmb_sieves_choose(rs);
	return 0;
}

/* The table and entry of @rule in @rs: one of a mask within the rule's. */
static struct mmb_mask *mmb_rule_find(struct mmb_ruleset *rs, struct mmb_rule *rule,
				      struct mmb_entry **e)
{
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	struct mmb_mvec *mv = mmb_masks(rs);
	const struct mmb_resid *res;
	struct mmb_key rmask, rkey;
	unsigned int i, j, nres;

	mmb_rule_key(rule, &rmask, &rkey);
	for (i = 0; mv && i < mv->n; i++) {
		struct mmb_mask *mask = mv->m[i];

		if (!mmb_key_within(&mask->m, &rmask))
			continue;
		mmb_mask_key(mask, &rkey, key);
		*e = mmb_lookup(rs, mask, mmb_tbl(rs, mask), key, false);
		if (!*e)
			continue;
		for (j = 0; j < mmb_entry_nrules(rs, *e); j++)
			if (mmb_entry_rule(rs, *e, j, &res, &nres) == rule)
				return mask;
	}
	return NULL;
}

/*
 * Take @rule out of its table; what it leaves unused (its entry, its mask)
 * is retired. Nothing changes if that fails.
 */
int mmb_tables_remove(struct mmb_ruleset *rs, struct mmb_rule *rule)
{
	struct mmb_entry *e = NULL;
	struct mmb_mask *mask;
	struct mmb_table *t;
	struct mmb_rvec *rv;

	mask = mmb_rule_find(rs, rule, &e);
	if (WARN_ON_ONCE(!mask))
		return -ENOENT;
	t = mmb_tbl(rs, mask);
	if (mmb_entry_nrules(rs, e) > 1) {
		int err = mmb_rules_update(rs, mask, e, NULL, NULL, 0, rule);

		if (!err)	/* unlinked: its bits may go */
			mmb_sieve_rule_key(mask, rule, false);
		return err;
	}
	rv = mmb_entry_rules(rs, e);
	if (mmb_rvec_lone(rv)) {
		/* No list to take the entry along: an empty one does. */
		rv = mmb_rvec_alloc(0, 0);
		if (!rv)
			return -ENOMEM;
	}
	if (mask->wild)
		RCU_INIT_POINTER(mask->wild_e[mmb_wild_index(mask, (const u8 *)e->key)], NULL);
	mmb_bucket_del(rs, mask, t, e);
	mmb_sieve_rule_key(mask, rule, false);
	/* The entry goes with its last list, after a grace period. */
	rv->dead = e;
	rv->dead_nkey = mask->n;
	mmb_retire(rs, &rv->rcu, mmb_rvec_free_rcu);
	/* An empty mask left published (no memory) is harmless. */
	if (!--mask->entries && !mmb_masks_update(rs, NULL, mask))
		mmb_retire(rs, &mask->rcu, mmb_mask_free_rcu);
	return 0;
}

/* Describe the mask at @index; -ENOENT past the last. Under the lock. */
int mmb_ruleset_table(struct mmb_ruleset *rs, unsigned int index,
		      struct mmb_table_info *info)
{
	struct mmb_mvec *mv = mmb_masks(rs);
	struct mmb_mask *mask;
	struct mmb_table *t;
	struct mmb_entry *e;
	struct mmb_stats st;
	unsigned int i, j;

	if (!mv || index >= mv->n)
		return -ENOENT;
	mask = mv->m[index];
	t = mmb_tbl(rs, mask);
	memset(info, 0, sizeof(*info));
	info->buckets = t->size_mask + 1;
	info->mask = mask->m;
	info->prio = mask->prio;
	for (i = 0; i <= t->size_mask; i++) {
		unsigned int chain = 0;

		for (e = mmb_bucket_first(rs, t, i); e; e = mmb_entry_next(rs, e, t->ver)) {
			unsigned int n = mmb_entry_nrules(rs, e), merged = 0, nres;
			const struct mmb_resid *res;
			const struct mmb_rule *rule;

			info->chain_max = max(info->chain_max, ++chain);
			info->entries++;
			info->rules += n;
			for (j = 0; j < n; j++) {
				rule = mmb_entry_rule(rs, e, j, &res, &nres);
				merged += !!nres;
				mmb_stats_read(rule->stats, &st);
				info->hits += st.packets;
				if (!info->first)
					info->first = rule;
			}
			info->merged_max = max(info->merged_max, merged);
		}
		cond_resched();
	}
	return 0;
}
