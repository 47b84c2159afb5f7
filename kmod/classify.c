// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: tuple space search. Rules whose exact parts use the same bits of the
 * header image share a mask; each mask has a hash table keyed by the masked
 * image, in which rules with the same key share an entry. A packet costs
 * one probe per mask, however many rules there are. The masked key is built
 * and compared in 16-byte chunks of two u64 words, over the chunks the mask
 * touches only.
 *
 * Readers (the datapath) run under RCU and never block. Writers hold the
 * namespace's lock; every change is published with one pointer store, so a
 * packet sees a rule entirely or not at all.
 */
#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/prefetch.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "mmb.h"

/* A rule of an entry, with its counters: all a simple rule's hit reads. */
struct mmb_rref {
	struct mmb_rule *rule;
	struct mmb_pcpu_stats __percpu *stats;
};

/* Every rule of the list only accepts or always drops, without slow checks. */
#define MMB_RV_SIMPLE	0x1
#define MMB_RV_ACCEPT	0x2	/* one of them accepts */
#define MMB_RV_DROP	0x4	/* one of them drops */

/*
 * The rules of one entry, in handle order, never changed once published,
 * freed after a grace period; the last list of an entry takes the entry
 * along (@dead). A packet that hits a simple list counts the rules and has
 * its verdict without reading them.
 */
struct mmb_rvec {
	struct rcu_head rcu;
	struct mmb_entry *dead;		/* to free with the list */
	u32 n;
	u16 flags;			/* MMB_RV_* */
	u8 dead_nkey;			/* chunks of key of @dead */
	struct mmb_rref r[];
};

/* Append @rule to a list being built (flags start as MMB_RV_SIMPLE). */
static void mmb_rvec_add(struct mmb_rvec *rv, struct mmb_rule *rule)
{
	rv->r[rv->n].rule = rule;
	rv->r[rv->n].stats = rule->stats;
	rv->n++;
	if (rule->slow || rule->rewrite ||
	    (rule->drop && rule->drop_rate < MMB_RATE_ALWAYS))
		rv->flags &= ~MMB_RV_SIMPLE;
	if (rule->accept)
		rv->flags |= MMB_RV_ACCEPT;
	if (rule->drop)
		rv->flags |= MMB_RV_DROP;
}

/*
 * An entry is one cache line when its key has up to two chunks (an IPv4
 * five-tuple): all that a probe reads, whether it hits the entry or walks
 * past it. It is linked into its mask's table by next[table->ver]; a resize
 * links it into the new table by the other link while readers may still
 * walk the old one (as Open vSwitch's flow table does). @hot holds what a
 * hit on a lone simple rule needs, its counters and its verdict, so that
 * such a hit (the common case: one rule per key) never reads the list.
 */
struct mmb_entry {
	struct mmb_entry __rcu *next[2];
	unsigned long hot;		/* counters | MMB_HOT_*, or 0: read @rules */
	struct mmb_rvec __rcu *rules;
	struct mmb_chunk key[];		/* the mask's chunks only */
};

#define MMB_HOT_ACCEPT	0x1UL
#define MMB_HOT_DROP	0x2UL
#define MMB_HOT_FLAGS	(MMB_HOT_ACCEPT | MMB_HOT_DROP)

/* The hot word of a list: nonzero for one simple rule. */
static unsigned long mmb_rvec_hot(const struct mmb_rvec *rv)
{
	unsigned long hot;

	/* Per-CPU counters are aligned: their low bits are free. */
	BUILD_BUG_ON(__alignof__(struct mmb_pcpu_stats) <= MMB_HOT_FLAGS);
	if (rv->n != 1 || !(rv->flags & MMB_RV_SIMPLE))
		return 0;
	hot = (__force unsigned long)rv->r[0].stats;
	if (rv->flags & MMB_RV_ACCEPT)
		hot |= MMB_HOT_ACCEPT;
	if (rv->flags & MMB_RV_DROP)
		hot |= MMB_HOT_DROP;
	return hot;
}

/* The rule list @e publishes; writers only. */
static struct mmb_rvec *mmb_entry_rules(const struct mmb_entry *e)
{
	return rcu_dereference_protected(e->rules, true);
}

/* Set @rv as @e's list and its hot word; readers may already see @e. */
static void mmb_entry_set_rules(struct mmb_entry *e, struct mmb_rvec *rv)
{
	rcu_assign_pointer(e->rules, rv);
	WRITE_ONCE(e->hot, mmb_rvec_hot(rv));
}

/* The next entry of a chain in table version @ver. */
static __always_inline struct mmb_entry *mmb_entry_next(const struct mmb_entry *e, u8 ver)
{
	return rcu_dereference_check(e->next[ver], true);
}

/*
 * Entries come from caches of their own, packed densely: a large table
 * then spans half the pages it did when entries shared kmalloc's slabs
 * with other objects of their size, and a probe misses the TLB less.
 */
#define MMB_ENTRY_SHORT	2		/* chunks of key of the first cache */

static struct kmem_cache *mmb_entry_caches[2];

static size_t mmb_entry_size(unsigned int nkey)
{
	return struct_size_t(struct mmb_entry, key, nkey);
}

static struct kmem_cache *mmb_entry_cache(unsigned int nkey)
{
	return mmb_entry_caches[nkey > MMB_ENTRY_SHORT];
}

int __init mmb_classify_init(void)
{
	slab_flags_t flags = SLAB_HWCACHE_ALIGN | SLAB_ACCOUNT | SLAB_NO_MERGE;

	/* An entry with a short key is one cache line. */
	BUILD_BUG_ON(struct_size_t(struct mmb_entry, key, MMB_ENTRY_SHORT) > SMP_CACHE_BYTES);

	mmb_entry_caches[0] = kmem_cache_create("mmb_entry", mmb_entry_size(MMB_ENTRY_SHORT),
						0, flags, NULL);
	mmb_entry_caches[1] = kmem_cache_create("mmb_entry_long",
						mmb_entry_size(MMB_KEY_CHUNKS), 0, flags, NULL);
	if (!mmb_entry_caches[0] || !mmb_entry_caches[1]) {
		mmb_classify_exit();
		return -ENOMEM;
	}
	return 0;
}

/* After every entry is freed (rcu_barrier() for the last ones). */
void mmb_classify_exit(void)
{
	kmem_cache_destroy(mmb_entry_caches[1]);
	kmem_cache_destroy(mmb_entry_caches[0]);
}

static void mmb_rvec_free_rcu(struct rcu_head *head)
{
	struct mmb_rvec *rv = container_of(head, struct mmb_rvec, rcu);

	if (rv->dead)
		kmem_cache_free(mmb_entry_cache(rv->dead_nkey), rv->dead);
	kfree(rv);
}

/* A list of one rule (to be published with its entry). */
static struct mmb_rvec *mmb_rvec_one(struct mmb_rule *rule)
{
	struct mmb_rvec *rv = kzalloc(struct_size(rv, r, 1), GFP_KERNEL_ACCOUNT);

	if (rv) {
		rv->flags = MMB_RV_SIMPLE;
		mmb_rvec_add(rv, rule);
	}
	return rv;
}

/*
 * Each group of four chains has a filter of the hashes of its entries, 64
 * bits: each entry sets five of them, chosen by a second mix of its hash.
 * A probe whose five bits are not all set reads neither the chains nor
 * their heads: a packet that matches nothing (most of what a firewall
 * sees) reads one word per mask. With three entries for every four
 * buckets (100k rules), one probe in 560 finds its bits set by others, one
 * in 230 with as many entries as buckets (a summary of 16 bits per chain
 * let one in 90 and one in 56 through, at the same size). The filters sit
 * in an array of their own, an eighth of the heads' size (256 KiB for 100k
 * rules), which stays in the CPU's caches where the heads and entries do
 * not.
 *
 * Writers set the bits before linking an entry and recompute the word
 * after unlinking one: a reader that sees a stale word sees the chains as
 * they were before the change.
 */
#define MMB_FILTER_SHIFT	2	/* four buckets per filter word */

static __always_inline u64 mmb_filter_bits(u64 hash)
{
	/* A second odd multiplier mixes all 64 bits into the top 32. */
	u32 f = (hash * 0xc2b2ae3d27d4eb4fULL) >> 32;

	return BIT_ULL(f & 63) | BIT_ULL(f >> 6 & 63) | BIT_ULL(f >> 12 & 63) |
	       BIT_ULL(f >> 18 & 63) | BIT_ULL(f >> 24 & 63);
}

/*
 * A chain, and beside its head the counters of the first rule of its first
 * entry: a probe that passes the filter starts fetching the counters of
 * the rule it most likely hits as it fetches the entry, and a hit in a
 * large table waits for two cache misses in a row (head, then entry and
 * counters) instead of three. A stale hint costs a useless prefetch only.
 */
struct mmb_bucket {
	struct mmb_entry __rcu *head;
	struct mmb_pcpu_stats __percpu *hint;
};

struct mmb_table {
	struct rcu_head rcu;
	u32 size_mask;			/* buckets - 1 */
	u8 ver;
	u64 *filter;			/* per four buckets, after the heads */
	struct mmb_bucket buckets[];
};

#define MMB_TABLE_MIN 16

struct mmb_mask {
	struct mmb_key m;
	u8 chunk[MMB_KEY_CHUNKS];	/* chunks the mask touches */
	u8 n;
	unsigned int entries;
	u32 seed[4 * MMB_KEY_CHUNKS];	/* one per 32-bit word of the key */
	unsigned long resize_gp;	/* grace period of the last resize */
	struct mmb_table __rcu *tbl;
	struct rcu_head rcu;
};

struct mmb_mvec {
	struct rcu_head rcu;
	unsigned int n;
	struct mmb_key any;		/* the bits any of the masks looks at */
	struct mmb_mask *m[];
};

/*
 * With many masks a packet costs a probe per mask. Then a per-CPU cache
 * keyed by the header image under the union of all masks sits in front of
 * them (packets of a flow differ in IP ID, checksums, sequence numbers, but
 * not there): a hit yields the table entries the image probes to, whose
 * rules then go through the slow-path checks as always, in one hash and one
 * 80-byte compare. Images found in more than MMB_CACHE_HITS masks are not
 * cached.
 *
 * Every change of the ruleset bumps rs->gen after publishing the change
 * and before it hands anything it unpublished to call_rcu(): a cache entry
 * filled under an older generation is never used again, and the table
 * entries of a current one are alive. A packet that reads the old
 * generation started its RCU read section before the objects were handed
 * over, so what it finds stays alive until it is done. Writers never free
 * such objects themselves: mmb_retire() queues them on the ruleset and
 * mmb_ruleset_changed() hands them over after the bump. An entry also names
 * the mask list it was keyed under, so a packet that reads a new list
 * before the bump never takes an entry keyed under another union of masks.
 */
#define MMB_CACHE_HITS		4
#define MMB_CACHE_MIN_MASKS	4
#define MMB_CACHE_WAYS		4	/* entries of a set */

struct mmb_cache_entry {
	unsigned long gen;		/* 0: empty */
	const struct mmb_mvec *mv;
	struct mmb_key key;		/* masked by mv->any */
	const struct mmb_entry *e[MMB_CACHE_HITS];	/* the first n */
};

struct mmb_cache {
	u64 hits;
	u64 misses;
	unsigned int victim;
	struct mmb_cache_entry e[];
};

unsigned int mmb_cache_entries = 4096;
module_param_named(cache_entries, mmb_cache_entries, uint, 0644);
MODULE_PARM_DESC(cache_entries,
		 "Per-CPU flow cache entries of a ruleset with many masks (0: none)");

struct mmb_ruleset {
	bool live;			/* readers may see it */
	struct mmb_mvec __rcu *masks;
	struct xarray rules;		/* handle -> rule */
	unsigned int nrules;		/* read by the datapath */
	unsigned long gen;		/* bumped by every change */
	struct rcu_head *retired;	/* unpublished, freed after the bump */
	struct mmb_cache **cache;	/* per CPU; set once, under the lock */
	unsigned int cache_bits;	/* of the number of sets */
	u32 cache_seed[4 * MMB_KEY_CHUNKS];	/* one per 32-bit image word */
};

/*
 * Free @head with @free once no reader can see it. For a live ruleset that
 * waits for mmb_ruleset_changed(), which hands it to call_rcu() after it
 * told the flow cache; no reader sees a ruleset that is not live yet.
 */
static void mmb_retire(struct mmb_ruleset *rs, struct rcu_head *head, rcu_callback_t free)
{
	if (!rs->live) {
		free(head);
		return;
	}
	head->func = free;
	head->next = rs->retired;
	rs->retired = head;
}

/*
 * Publish that the ruleset changed, after the change itself, then free
 * what the change retired: in this order a packet never takes a flow cache
 * entry that names a freed object.
 */
static void mmb_ruleset_changed(struct mmb_ruleset *rs)
{
	struct rcu_head *head = rs->retired, *next;

	/* Pairs with mmb_classify(): who sees the new gen sees the change. */
	smp_store_release(&rs->gen, rs->gen + 1);
	rs->retired = NULL;
	if (head)
		mmb_test_free(rs);
	for (; head; head = next) {
		next = head->next;
		call_rcu(head, head->func);
	}
}

/* The masked chunks of @key under @mask, compacted. */
static __always_inline void mmb_mask_key(const struct mmb_mask *mask,
					 const struct mmb_key *key,
			 struct mmb_chunk *out)
{
	unsigned int i;

	for (i = 0; i < mask->n; i++) {
		const struct mmb_chunk *k = &key->c[mask->chunk[i]];
		const struct mmb_chunk *m = &mask->m.c[mask->chunk[i]];

		out[i].w[0] = k->w[0] & m->w[0];
		out[i].w[1] = k->w[1] & m->w[1];
	}
}

/* The XOR compare of a masked key with an entry's: true when equal. */
static __always_inline bool mmb_key_equal(const struct mmb_chunk *a,
					  const struct mmb_chunk *b,
			  unsigned int n)
{
	u64 diff = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		diff |= (a[i].w[0] ^ b[i].w[0]) | (a[i].w[1] ^ b[i].w[1]);
	return !diff;
}

/*
 * NH, the hash of UMAC: a sum of 64-bit products of seeded 32-bit word
 * pairs. The products are exact, so keys that differ give sums that differ
 * with high probability, whichever bits they differ in; the multiplies are
 * independent, so a five-tuple key costs about as much as one of them.
 * A multiply by the golden ratio of the folded sum mixes every bit of it
 * into the upper bits, which a table or the cache takes. (Truncated 64-bit
 * products lost the top bits of a word and crowded keys that differ there
 * into a few chains.)
 */
static __always_inline u64 mmb_nh(const u32 *w, const u32 *seed, unsigned int n)
{
	u64 h = 0;
	unsigned int i;

	for (i = 0; i < n; i += 2)
		h += (u64)(u32)(w[i] + seed[i]) * (u32)(w[i + 1] + seed[i + 1]);
	return (h ^ h >> 32) * GOLDEN_RATIO_64;
}

/*
 * Keys come from the configuration, and rules often differ in one field
 * only (ports, the last octet of an address): every bit of the key must
 * reach the bucket index and the filter bits.
 */
static __always_inline u64 mmb_key_hash(const struct mmb_chunk *k,
					unsigned int n, const u32 *seed)
{
	return mmb_nh((const u32 *)k, seed, n * sizeof(*k) / sizeof(u32));
}

/* The bucket of a key's hash: from its upper half, the best mixed. */
static __always_inline u32 mmb_bucket_of(const struct mmb_table *t, u64 hash)
{
	return (u32)(hash >> 32) & t->size_mask;
}

static __always_inline u64 *mmb_filter_word(const struct mmb_table *t, u32 i)
{
	return &t->filter[i >> MMB_FILTER_SHIFT];
}

static struct mmb_table *mmb_table_alloc(unsigned int size, u8 ver)
{
	struct mmb_table *t;

	BUILD_BUG_ON(MMB_TABLE_MIN >> MMB_FILTER_SHIFT < 1);
	t = kvzalloc(struct_size(t, buckets, size) +
		     (size >> MMB_FILTER_SHIFT) * sizeof(*t->filter), GFP_KERNEL_ACCOUNT);
	if (t) {
		t->size_mask = size - 1;
		t->ver = ver;
		t->filter = (u64 *)&t->buckets[size];
	}
	return t;
}

static void mmb_table_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct mmb_table, rcu));
}

static struct mmb_table *mmb_tbl(const struct mmb_mask *mask)
{
	return rcu_dereference_protected(mask->tbl, true);
}

/*
 * The entry of @key; readers under RCU, writers under the lock. Entries
 * keep no hash: the key compare reads the line the walk reads anyway.
 * The datapath (@prefetch) starts fetching the hinted counters too.
 */
static __always_inline struct mmb_entry *mmb_lookup(const struct mmb_mask *mask,
						    const struct mmb_table *t,
						    const struct mmb_chunk *key, bool prefetch)
{
	u64 hash = mmb_key_hash(key, mask->n, mask->seed);
	u32 i = mmb_bucket_of(t, hash);
	struct mmb_entry *e;

	if (~READ_ONCE(*mmb_filter_word(t, i)) & mmb_filter_bits(hash))
		return NULL;
	if (prefetch) {
		struct mmb_pcpu_stats __percpu *stats = READ_ONCE(t->buckets[i].hint);

		if (stats)
			prefetchw(raw_cpu_ptr(stats));
	}
	for (e = rcu_dereference_check(t->buckets[i].head, true); e; e = mmb_entry_next(e, t->ver))
		if (mmb_key_equal(e->key, key, mask->n))
			return e;
	return NULL;
}

/* The first entry of bucket @i; writers only. */
static struct mmb_entry *mmb_bucket_first(const struct mmb_table *t, u32 i)
{
	return rcu_dereference_protected(t->buckets[i].head, true);
}

/* The hash of an entry's key, which writers recompute rather than store. */
static u64 mmb_entry_hash(const struct mmb_mask *mask, const struct mmb_entry *e)
{
	return mmb_key_hash(e->key, mask->n, mask->seed);
}

/* Point the hint of bucket @i at the chain's first rule; after each change. */
static void mmb_bucket_hint(struct mmb_table *t, u32 i)
{
	struct mmb_entry *e = mmb_bucket_first(t, i);

	WRITE_ONCE(t->buckets[i].hint, e ? mmb_entry_rules(e)->r[0].stats : NULL);
}

/* Link @e, an entry of @mask, into @t, which readers may see. */
static void mmb_bucket_add(const struct mmb_mask *mask, struct mmb_table *t,
			   struct mmb_entry *e)
{
	u64 hash = mmb_entry_hash(mask, e), *f;
	u32 i = mmb_bucket_of(t, hash);

	f = mmb_filter_word(t, i);
	WRITE_ONCE(*f, *f | mmb_filter_bits(hash));
	/* Readers of @t do not see @e yet: its link here is its own. */
	RCU_INIT_POINTER(e->next[t->ver], mmb_bucket_first(t, i));
	/* A release: who finds the entry finds its bits and its link. */
	rcu_assign_pointer(t->buckets[i].head, e);
	mmb_bucket_hint(t, i);
}

/* Unlink @e; readers standing on it still find the rest of the chain. */
static void mmb_bucket_del(const struct mmb_mask *mask, struct mmb_table *t,
			   struct mmb_entry *e)
{
	u32 i = mmb_bucket_of(t, mmb_entry_hash(mask, e));
	u32 j, first = round_down(i, 1 << MMB_FILTER_SHIFT);
	struct mmb_entry __rcu **link = &t->buckets[i].head;
	struct mmb_entry *pos;
	u64 bits = 0;

	while ((pos = rcu_dereference_protected(*link, true)) != e)
		link = &pos->next[t->ver];
	rcu_assign_pointer(*link, rcu_dereference_protected(e->next[t->ver], true));
	/* The word's bits of the entries left in its four chains. */
	for (j = first; j < first + (1 << MMB_FILTER_SHIFT); j++)
		for (pos = mmb_bucket_first(t, j); pos; pos = mmb_entry_next(pos, t->ver))
			bits |= mmb_filter_bits(mmb_entry_hash(mask, pos));
	WRITE_ONCE(*mmb_filter_word(t, i), bits);
	mmb_bucket_hint(t, i);
}

/*
 * Double the table of a mask of @rs when it holds more entries than
 * buckets. In a ruleset readers may see, the old table stays readable for
 * a grace period; one that is still being built (a transaction's) has no
 * readers, and is spared the waits: 100k rules grow a table 13 times.
 */
static int mmb_table_grow(struct mmb_ruleset *rs, struct mmb_mask *mask)
{
	struct mmb_table *old = mmb_tbl(mask), *t;
	struct mmb_entry *e;
	unsigned int i;

	/* Readers of the table before last must be gone: we reuse its nodes. */
	if (rs->live)
		cond_synchronize_rcu(mask->resize_gp);
	t = mmb_table_alloc((old->size_mask + 1) * 2, !old->ver);
	if (!t)
		return -ENOMEM;
	for (i = 0; i <= old->size_mask; i++)
		for (e = mmb_bucket_first(old, i); e; e = mmb_entry_next(e, old->ver))
			mmb_bucket_add(mask, t, e);
	rcu_assign_pointer(mask->tbl, t);
	mask->resize_gp = get_state_synchronize_rcu();
	mmb_retire(rs, &old->rcu, mmb_table_free_rcu);
	return 0;
}

static struct mmb_mvec *mmb_masks(const struct mmb_ruleset *rs)
{
	return rcu_dereference_protected(rs->masks, true);
}

static struct mmb_mask *mmb_mask_find(struct mmb_ruleset *rs,
				      const struct mmb_key *m)
{
	struct mmb_mvec *mv = mmb_masks(rs);
	unsigned int i;

	for (i = 0; mv && i < mv->n; i++)
		if (!memcmp(&mv->m[i]->m, m, sizeof(*m)))
			return mv->m[i];
	return NULL;
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
		kvfree(t);
		return NULL;
	}
	mask->m = *m;
	for (i = 0; i < MMB_KEY_CHUNKS; i++)
		if (i == 0 || m->c[i].w[0] || m->c[i].w[1])
			mask->chunk[mask->n++] = i;
	get_random_bytes(mask->seed, sizeof(mask->seed));
	mask->resize_gp = get_state_synchronize_rcu();
	RCU_INIT_POINTER(mask->tbl, t);
	return mask;
}

/* Free @e, of a mask of @nkey chunks, and its list; no reader sees them. */
static void mmb_entry_free(struct mmb_entry *e, unsigned int nkey)
{
	kfree(mmb_entry_rules(e));
	kmem_cache_free(mmb_entry_cache(nkey), e);
}

/*
 * Free a mask no reader can see any more, with its entries: it was never
 * published, or a grace period passed since it was unpublished, which
 * also covers the readers of a table a resize replaced before that.
 */
static void mmb_mask_destroy(struct mmb_mask *mask)
{
	struct mmb_table *t = mmb_tbl(mask);
	struct mmb_entry *e, *next;
	unsigned int i;

	for (i = 0; i <= t->size_mask; i++) {
		for (e = mmb_bucket_first(t, i); e; e = next) {
			next = mmb_entry_next(e, t->ver);
			mmb_entry_free(e, mask->n);
		}
		if (!(i & 1023))
			cond_resched();
	}
	kvfree(t);
	kfree(mask);
}

/* A mask whose last entry went; its table is empty. */
static void mmb_mask_free_rcu(struct rcu_head *head)
{
	struct mmb_mask *mask = container_of(head, struct mmb_mask, rcu);

	kvfree(rcu_dereference_protected(mask->tbl, true));
	kfree(mask);
}

static void mmb_mvec_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct mmb_mvec, rcu));
}

/* Publish the mask list with @add appended, or without @del. */
static int mmb_masks_update(struct mmb_ruleset *rs, struct mmb_mask *add,
			    struct mmb_mask *del)
{
	struct mmb_mvec *old = mmb_masks(rs), *mv;
	unsigned int i, j, n = old ? old->n : 0;

	mv = kzalloc(struct_size(mv, m, n + 1), GFP_KERNEL_ACCOUNT);
	if (!mv)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (old->m[i] != del)
			mv->m[mv->n++] = old->m[i];
	if (add)
		mv->m[mv->n++] = add;
	for (i = 0; i < mv->n; i++)
		for (j = 0; j < MMB_KEY_CHUNKS; j++) {
			mv->any.c[j].w[0] |= mv->m[i]->m.c[j].w[0];
			mv->any.c[j].w[1] |= mv->m[i]->m.c[j].w[1];
		}
	rcu_assign_pointer(rs->masks, mv);
	if (old)
		mmb_retire(rs, &old->rcu, mmb_mvec_free_rcu);
	return 0;
}

/* Publish @e's rules with @add inserted in handle order, or without @del. */
static int mmb_rules_update(struct mmb_ruleset *rs, struct mmb_mask *mask,
			    struct mmb_entry *e, struct mmb_rule *add, struct mmb_rule *del)
{
	struct mmb_rvec *old = mmb_entry_rules(e), *rv;
	unsigned int i, n = old->n;
	struct mmb_table *t = mmb_tbl(mask);

	rv = kzalloc(struct_size(rv, r, n + 1), GFP_KERNEL_ACCOUNT);
	if (!rv)
		return -ENOMEM;
	rv->flags = MMB_RV_SIMPLE;
	for (i = 0; i < n; i++) {
		struct mmb_rule *rule = old->r[i].rule;

		if (add && rule->handle > add->handle) {
			mmb_rvec_add(rv, add);
			add = NULL;
		}
		if (rule != del)
			mmb_rvec_add(rv, rule);
	}
	if (add)
		mmb_rvec_add(rv, add);
	mmb_entry_set_rules(e, rv);
	mmb_bucket_hint(t, mmb_bucket_of(t, mmb_entry_hash(mask, e)));
	mmb_retire(rs, &old->rcu, mmb_rvec_free_rcu);
	return 0;
}

/* The cache set of a whole image. */
static u32 mmb_cache_set(const struct mmb_ruleset *rs, const struct mmb_key *key)
{
	return mmb_nh((const u32 *)key->b, rs->cache_seed,
		      ARRAY_SIZE(rs->cache_seed)) >> (64 - rs->cache_bits);
}

static bool mmb_image_equal(const struct mmb_key *a, const struct mmb_key *b)
{
	return mmb_key_equal(a->c, b->c, MMB_KEY_CHUNKS);
}

static void mmb_cache_free(struct mmb_cache **cache)
{
	unsigned int cpu;

	if (!cache)
		return;
	for_each_possible_cpu(cpu)
		kvfree(cache[cpu]);
	kfree(cache);
}

/* Give @rs a cache once it has enough masks. Without memory it has none. */
static void mmb_cache_create(struct mmb_ruleset *rs)
{
	unsigned int entries = READ_ONCE(mmb_cache_entries), cpu;
	struct mmb_cache **cache;

	if (rs->cache)
		return;
	if (entries < 2 * MMB_CACHE_WAYS)	/* at least two sets */
		return;
	rs->cache_bits = min(ilog2(entries / MMB_CACHE_WAYS), 20);
	cache = kcalloc(nr_cpu_ids, sizeof(*cache), GFP_KERNEL_ACCOUNT);
	if (!cache)
		return;
	/*
	 * Online CPUs only: a machine may claim many more possible ones. A CPU
	 * that comes up later classifies without a cache until the next
	 * ruleset.
	 */
	for_each_online_cpu(cpu) {
		cache[cpu] = kvzalloc_node(struct_size(cache[cpu], e,
						       MMB_CACHE_WAYS << rs->cache_bits),
					   GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!cache[cpu]) {
			mmb_cache_free(cache);
			return;
		}
	}
	get_random_bytes(rs->cache_seed, sizeof(rs->cache_seed));
	/* Readers see the seed and the zeroed entries before the pointer. */
	smp_store_release(&rs->cache, cache);
}

void mmb_ruleset_cache_stats(const struct mmb_ruleset *rs, u64 *hits, u64 *misses)
{
	unsigned int cpu;

	*hits = 0;
	*misses = 0;
	if (!rs->cache)
		return;
	for_each_possible_cpu(cpu) {
		if (!rs->cache[cpu])
			continue;
		*hits += READ_ONCE(rs->cache[cpu]->hits);
		*misses += READ_ONCE(rs->cache[cpu]->misses);
	}
}

struct mmb_ruleset *mmb_ruleset_create(void)
{
	struct mmb_ruleset *rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);

	if (rs) {
		xa_init(&rs->rules);
		rs->gen = 1;
	}
	return rs;
}

/*
 * Before @rs is published in place of @prev (or of nothing): from now on,
 * readers may see it. Its generation follows @prev's, so that a dump that
 * spans the swap sees the generation change.
 */
void mmb_ruleset_live(struct mmb_ruleset *rs, const struct mmb_ruleset *prev)
{
	rs->live = true;
	if (prev)
		rs->gen = prev->gen + 1;
}

/* Free a ruleset no reader can see any more. */
void mmb_ruleset_destroy(struct mmb_ruleset *rs)
{
	struct mmb_mvec *mv = mmb_masks(rs);
	struct mmb_rule *rule;
	unsigned long handle;
	unsigned int i;

	WARN_ON_ONCE(rs->retired);
	for (i = 0; mv && i < mv->n; i++)
		mmb_mask_destroy(mv->m[i]);
	kfree(mv);
	xa_for_each(&rs->rules, handle, rule) {
		mmb_rule_put(rule);
		if (!(handle & 1023))
			cond_resched();
	}
	xa_destroy(&rs->rules);
	mmb_cache_free(rs->cache);
	kfree(rs);
}

/* Insert @rule, whose mask and key (mmb_rule_key()) @img holds. */
int mmb_ruleset_insert_image(struct mmb_ruleset *rs, struct mmb_rule *rule,
			     const struct mmb_rule_image *img)
{
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	struct mmb_mask *mask, *new_mask = NULL;
	struct mmb_table *t;
	struct mmb_entry *e;
	int err;

	err = xa_insert(&rs->rules, rule->handle, rule, GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	err = -ENOMEM;
	mask = mmb_mask_find(rs, &img->mask);
	if (!mask) {
		mask = mmb_mask_create(&img->mask);
		if (!mask)
			goto err_xa;
		new_mask = mask;
	}
	mmb_mask_key(mask, &img->key, key);
	e = mmb_lookup(mask, mmb_tbl(mask), key, false);
	if (e) {
		/* An existing entry: one published list replaces another. */
		err = mmb_rules_update(rs, mask, e, rule, NULL);
		if (err)
			goto err_xa;
	} else {
		struct mmb_rvec *rv;

		e = kmem_cache_zalloc(mmb_entry_cache(mask->n), GFP_KERNEL);
		if (!e)
			goto err_mask;
		rv = mmb_rvec_one(rule);
		if (!rv)
			goto err_entry;		/* e has no list yet: NULL */
		memcpy(e->key, key, mask->n * sizeof(*key));
		mmb_entry_set_rules(e, rv);
		if (mask->entries > mmb_tbl(mask)->size_mask) {
			err = mmb_table_grow(rs, mask);
			if (err)
				goto err_entry;
		}
		t = mmb_tbl(mask);
		mmb_bucket_add(mask, t, e);
		mask->entries++;
		/* A new mask is published last, with its table complete. */
		if (new_mask) {
			err = mmb_masks_update(rs, new_mask, NULL);
			if (err)
				goto err_mask;	/* its table holds e */
			if (mmb_masks(rs)->n >= MMB_CACHE_MIN_MASKS)
				mmb_cache_create(rs);
		}
	}
	WRITE_ONCE(rs->nrules, rs->nrules + 1);
	mmb_ruleset_changed(rs);
	return 0;

err_entry:
	mmb_entry_free(e, mask->n);
err_mask:
	if (new_mask)
		mmb_mask_destroy(new_mask);
err_xa:
	xa_erase(&rs->rules, rule->handle);
	return err;
}

int mmb_ruleset_insert(struct mmb_ruleset *rs, struct mmb_rule *rule)
{
	struct mmb_rule_image img;

	mmb_rule_key(rule, &img.mask, &img.key);
	return mmb_ruleset_insert_image(rs, rule, &img);
}

/*
 * Unpublish @rule and free it after a grace period. Nothing changes if
 * that fails. Allocates, so may sleep; never waits for a grace period.
 */
int mmb_ruleset_remove(struct mmb_ruleset *rs, struct mmb_rule *rule)
{
	struct mmb_chunk key[MMB_KEY_CHUNKS];
	struct mmb_key rmask, rkey;
	struct mmb_mask *mask;
	struct mmb_table *t;
	struct mmb_entry *e;
	struct mmb_rvec *rv;
	int err;

	mmb_rule_key(rule, &rmask, &rkey);
	mask = mmb_mask_find(rs, &rmask);
	mmb_mask_key(mask, &rkey, key);
	t = mmb_tbl(mask);
	e = mmb_lookup(mask, t, key, false);
	rv = mmb_entry_rules(e);
	if (rv->n > 1) {
		err = mmb_rules_update(rs, mask, e, NULL, rule);
		if (err)
			return err;
	} else {
		mmb_bucket_del(mask, t, e);
		/* The entry goes with its last list, after a grace period. */
		rv->dead = e;
		rv->dead_nkey = mask->n;
		mmb_retire(rs, &rv->rcu, mmb_rvec_free_rcu);
		/* An empty mask left published (no memory) is harmless. */
		if (!--mask->entries && !mmb_masks_update(rs, NULL, mask))
			mmb_retire(rs, &mask->rcu, mmb_mask_free_rcu);
	}
	xa_erase(&rs->rules, rule->handle);
	WRITE_ONCE(rs->nrules, rs->nrules - 1);
	mmb_ruleset_changed(rs);
	mmb_rule_put(rule);
	return 0;
}

/* Put every rule of @from into @to too (an unpublished ruleset). */
int mmb_ruleset_copy(struct mmb_ruleset *to, struct mmb_ruleset *from)
{
	struct mmb_rule *rule;
	unsigned long handle;
	int err;

	xa_for_each(&from->rules, handle, rule) {
		refcount_inc(&rule->ref);
		err = mmb_ruleset_insert(to, rule);
		if (err) {
			refcount_dec(&rule->ref);
			return err;
		}
		if (!(handle & 1023))
			cond_resched();
	}
	return 0;
}

struct mmb_rule *mmb_ruleset_find(struct mmb_ruleset *rs, u32 handle)
{
	return xa_load(&rs->rules, handle);
}

/* The first rule with a handle >= *handle, which is set to it. */
struct mmb_rule *mmb_ruleset_next(struct mmb_ruleset *rs, u32 *handle)
{
	unsigned long h = *handle;
	struct mmb_rule *rule = xa_find(&rs->rules, &h, U32_MAX, XA_PRESENT);

	*handle = h;
	return rule;
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
	t = mmb_tbl(mask);
	memset(info, 0, sizeof(*info));
	info->buckets = t->size_mask + 1;
	for (i = 0; i <= t->size_mask; i++) {
		unsigned int chain = 0;

		for (e = mmb_bucket_first(t, i); e; e = mmb_entry_next(e, t->ver)) {
			const struct mmb_rvec *rv = mmb_entry_rules(e);

			info->chain_max = max(info->chain_max, ++chain);
			info->entries++;
			info->rules += rv->n;
			for (j = 0; j < rv->n; j++) {
				mmb_stats_read(rv->r[j].stats, &st);
				info->hits += st.packets;
			}
			if (!info->first)
				info->first = rv->r[0].rule;
		}
		cond_resched();
	}
	return 0;
}

/* Readers may call it without the lock. */
unsigned int mmb_ruleset_count(const struct mmb_ruleset *rs)
{
	return READ_ONCE(rs->nrules);
}

/* The generation of @rs: a dump that sees it change saw two rulesets. */
unsigned long mmb_ruleset_gen(const struct mmb_ruleset *rs)
{
	return rs->gen;
}

static void mmb_verdict_add(struct mmb_verdict *v, const struct mmb_rule *rule)
{
	unsigned int i;

	if (rule->accept)
		v->accept = true;
	if (rule->drop && (rule->drop_rate >= MMB_RATE_ALWAYS ||
			   reciprocal_scale(get_random_u32(), MMB_RATE_ALWAYS) <
			   rule->drop_rate))
		v->drop = true;
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

/* Every rule of a table entry that @pkt matches. */
static void mmb_verdict_entry(const struct mmb_entry *e, const struct mmb_pkt *pkt,
			      struct sk_buff *skb, struct mmb_verdict *v)
{
	unsigned long hot = READ_ONCE(e->hot);
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
		const struct mmb_rule *rule = rv->r[i].rule;

		if (rule->slow && !mmb_rule_match_slow(rule, pkt, skb))
			continue;
		mmb_stats_count(rule->stats, skb);
		mmb_verdict_add(v, rule);
	}
}

/*
 * Look @pkt up in this CPU's cache. On a hit the verdict is made and *@hit
 * set; on a miss, the entry to fill after the probes is returned, with its
 * key and mask list set and its generation 0 (not valid yet).
 */
static noinline struct mmb_cache_entry *
mmb_cache_lookup(const struct mmb_ruleset *rs, struct mmb_cache *c,
		 const struct mmb_mvec *mv, unsigned long gen,
		 const struct mmb_pkt *pkt, struct sk_buff *skb,
		 struct mmb_verdict *v, bool *hit)
{
	struct mmb_cache_entry *set, *ce;
	struct mmb_key flow __uninitialized;	/* written first, every packet */
	unsigned int i, j;

	for (i = 0; i < MMB_KEY_CHUNKS; i++) {
		flow.c[i].w[0] = pkt->key.c[i].w[0] & mv->any.c[i].w[0];
		flow.c[i].w[1] = pkt->key.c[i].w[1] & mv->any.c[i].w[1];
	}
	set = &c->e[mmb_cache_set(rs, &flow) * MMB_CACHE_WAYS];
	for (i = 0; i < MMB_CACHE_WAYS; i++) {
		ce = &set[i];
		if (ce->gen == gen && ce->mv == mv && mmb_image_equal(&ce->key, &flow)) {
			c->hits++;
			for (j = 0; j < MMB_CACHE_HITS && ce->e[j]; j++)
				mmb_verdict_entry(ce->e[j], pkt, skb, v);
			*hit = true;
			return NULL;
		}
	}
	c->misses++;
	/* Refill a stale entry of the set, or else each in turn. */
	for (i = 0; i < MMB_CACHE_WAYS && set[i].gen == gen; i++)
		;
	ce = &set[i < MMB_CACHE_WAYS ? i : c->victim++ % MMB_CACHE_WAYS];
	ce->gen = 0;
	ce->key = flow;
	ce->mv = mv;
	return ce;
}

/*
 * The verdict of every rule @pkt matches. With BH off (the datapath) a
 * ruleset with a cache looks there first; elsewhere a softirq on the same
 * CPU could tear a cache entry, so the cache is left alone.
 */
void mmb_classify(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
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

	v->accept = false;
	v->drop = false;
	v->nrw = 0;
	if (!mv)
		return;
	if (c) {
		ce = mmb_cache_lookup(rs, c, mv, gen, pkt, skb, v, &hit);
		if (hit)
			return;
	}
	for (i = 0; i < mv->n; i++) {
		const struct mmb_mask *mask = mv->m[i];
		const struct mmb_entry *e;

		mmb_mask_key(mask, &pkt->key, key);
		e = mmb_lookup(mask, rcu_dereference(mask->tbl), key, true);
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
