/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: what a ruleset is made of, for the files that build it (ruleset.c,
 * table.c, cache.c) and the one that reads it per packet (classify.c).
 *
 *   ruleset ─ masks (mvec) ─ mask ─ table ─ bucket ─ entry ─ rules (rvec) ─ rule
 *      │      one per set of    │      │     a chain  one per   in handle
 *      │      image bits        │      │              key       order
 *      │                        │      └ filter: 64 bits per four buckets
 *      ├─ rules (xarray): handle -> rule
 *      ├─ cache: per CPU, image -> the entries it probes to (many masks)
 *      └─ gen, retired: see "The order of changes" below
 *
 * Tuple space search: rules whose exact parts use the same bits of the
 * header image share a mask; each mask has a hash table keyed by the
 * masked image, in which rules with the same key share an entry. A packet
 * costs one probe per mask, however many rules there are; the masked key
 * is built and compared in 16-byte chunks of two u64 words, over the
 * chunks the mask touches only.
 *
 * Readers (the datapath) run under RCU and never block. Writers hold the
 * lock of the ruleset's owner (struct mmb_rules), or work on a ruleset no
 * reader can see (one a transaction builds, or one a grace period after
 * its last reader); every change is published with one pointer store, so
 * a packet sees a rule entirely or not at all.
 *
 * The order of changes. A ruleset with many masks has a per-CPU flow
 * cache, whose entries name table entries. Every change publishes itself,
 * then bumps rs->gen, and only then hands what it unpublished (entries,
 * rule lists, masks, mask lists, tables) to call_rcu(): a cache entry
 * filled under an older generation is never used again, and one filled
 * under the current one names live entries, since a packet that read the
 * old generation started its RCU read section before the objects were
 * handed over. Writers never free such objects themselves: mmb_retire()
 * queues them on the ruleset and mmb_ruleset_changed() hands them over
 * after the bump.
 */
#ifndef _MMB_TABLES_H
#define _MMB_TABLES_H

#include <linux/hash.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/prefetch.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "ruleset.h"

struct mmb_ruleset {
	bool live;			/* readers may see it */
	bool rebuilding;		/* mmb_tables_rebuild() places its rules */
	bool unplaced;			/* its rules are not in tables yet: prepare builds them */
	struct mutex *lock;		/* its owner's, which writers hold */
	struct mmb_mvec __rcu *masks;
	struct xarray rules;		/* handle -> rule */
	unsigned int nrules;		/* read by the datapath */
	unsigned int nstateful;		/* of them stateful; likewise */
	unsigned int nout;		/* of them judging leaving packets; likewise */
	unsigned int nnat;		/* of them mapping connections (NAT); likewise */
	unsigned int noutsf;		/* of them stateful and leaving; likewise */
	unsigned long gen;		/* bumped by every change */
	struct rcu_head *retired;	/* unpublished, freed after the bump */
	struct mmb_cache **cache;	/* per CPU; set once, under the lock */
	unsigned int cache_bits;	/* of the number of sets */
	u32 cache_seed[4 * MMB_KEY_CHUNKS];	/* one per 32-bit image word */
	struct rcu_work free_work;	/* replaced: freed a grace period later */
};

/*
 * May the caller change @rs, or read what it publishes without RCU? Its
 * owner's lock is held, or no reader can see it: lockdep checks the first.
 */
static inline bool mmb_ruleset_writer(const struct mmb_ruleset *rs)
{
	return !rs->live || lockdep_is_held(rs->lock);
}

/* A pointer @rs publishes, read by its writer. */
#define mmb_wderef(rs, p) rcu_dereference_protected(p, mmb_ruleset_writer(rs))

void mmb_retire(struct mmb_ruleset *rs, struct rcu_head *head, rcu_callback_t free);
void mmb_ruleset_changed(struct mmb_ruleset *rs);

/* --- rule lists -------------------------------------------------------- */

/*
 * Tuple merging. A rule need not sit in the table of its own mask: it may
 * sit in one whose mask is a relaxation of it (fewer bits: shorter address
 * prefixes, fields left out), beside the rules of other masks that relax
 * to the same one. Then the words of its mask that the table's leaves out
 * are compared per packet after the probe, with the same AND/XOR; such a
 * word is a residue. With tables for a few dozen relaxed masks instead of
 * one per mask, a realistic ruleset costs a few dozen probes per packet,
 * not hundreds (table.c says where a rule goes).
 */
struct mmb_resid {
	u64 mask;
	u64 key;		/* masked */
	u32 word;		/* of the image, u64 */
};

/*
 * A rule of an entry, with its counters, priority and, for a rule that only
 * accepts or always drops (MMB_RR_SIMPLE), its verdict: all a hit on such a
 * rule reads, residues or not (a packet in many rules' boxes reads none of
 * them), and what a walk needs to skip a rule a verdict cut off.
 */
struct mmb_rref {
	struct mmb_rule *rule;
	struct mmb_pcpu_stats __percpu *stats;
	u16 res;		/* its residues: the list's res[res, res + nres) */
	u8 nres;
	u8 flags;		/* MMB_RR_* */
	u32 prio;		/* the rule's */
};

#define MMB_RR_SIMPLE	0x1	/* nothing to check but its residues, no rewrite */
#define MMB_RR_ACCEPT	0x2	/* ...and it accepts */
#define MMB_RR_DROP	0x4	/* ...or always drops */
#define MMB_RR_SURE	0x8	/* mmb_rule_sure() */

/*
 * Every rule of the list only accepts or always drops, without slow
 * checks or residues: a hit on the entry is a hit on each of them, and the
 * verdict is that of those of the highest priority (@prio of the list).
 */
#define MMB_RV_SIMPLE	0x1
#define MMB_RV_ACCEPT	0x2	/* one of those of the highest priority accepts */
#define MMB_RV_DROP	0x4	/* one of them drops */

/*
 * The rules of one entry, in handle order, never changed once published,
 * freed after a grace period; the last list of an entry takes the entry
 * along (@dead). A packet that hits a simple list counts the rules and has
 * its verdict without reading them. The residues follow room for @cap
 * rules in the same allocation (mmb_rvec_res()); a list of a ruleset no
 * reader sees may have room for more rules and residues, taken in place
 * (mmb_rules_update()).
 */
struct mmb_rvec {
	struct rcu_head rcu;
	struct mmb_entry *dead;		/* to free with the list */
	u32 n;
	u8 flags;			/* MMB_RV_* */
	u8 dead_nkey;			/* chunks of key of @dead */
	u16 nres;
	u32 prio;			/* the highest of its rules' */
	u32 cap;			/* rules it has room for, @n or more */
	u32 res_cap;			/* residues it has room for */
	struct mmb_rref r[];
};

/*
 * An entry whose one rule has no residues (the common case: one rule per
 * key, in the table of its own mask) has no list: its rules pointer is
 * the rule's, tagged with MMB_RULES_LONE. That saves the list's 72 bytes
 * per such rule; readers see either form.
 */
#define MMB_RULES_LONE	0x1UL

/* The lone rule @rv stands for, or NULL if @rv is a list. */
static __always_inline struct mmb_rule *mmb_rvec_lone(const struct mmb_rvec *rv)
{
	unsigned long p = (unsigned long)rv;

	return p & MMB_RULES_LONE ? (struct mmb_rule *)(p & ~MMB_RULES_LONE) : NULL;
}

/* The residues of @rv's rules, after them. */
static __always_inline struct mmb_resid *mmb_rvec_res(const struct mmb_rvec *rv)
{
	return (struct mmb_resid *)&rv->r[rv->cap];
}

/* Does @key hold the @n residues at @res? */
static __always_inline bool mmb_resid_match(const struct mmb_resid *res, unsigned int n,
					    const struct mmb_key *key)
{
	u64 diff = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		diff |= (key->w[res[i].word] & res[i].mask) ^ res[i].key;
	return !diff;
}

/*
 * A relaxed table takes at most this many rules per key: past it, a rule
 * goes to a table with more of its bits. Each packet whose key hits such
 * an entry compares up to this many residues; the table of a rule's own
 * mask has no limit (its rules have no residues).
 */
#define MMB_MERGE_LIMIT	32

/*
 * A batch's tables are built again at commit when there are more than
 * MMB_REBUILD_MIN (fewer gain nothing: a five-tuple set has one). Adds and
 * dels in place go where they can; the next batch builds them again.
 */
#define MMB_REBUILD_MIN		4

/*
 * A batch of this many operations or more (mmb_txn_begin_batch()) builds
 * its tables once, widest masks first, when it is committed: its rules,
 * and those it copies, are not placed one by one as they come, only to be
 * placed all again by the rebuild.
 */
#define MMB_UNPLACED_MIN	1024

/* --- entries, buckets, tables, masks ------------------------------------ */

/*
 * An entry is 48 bytes when its key has one chunk (an IPv4 five-tuple),
 * one cache line when it has two: all that a probe reads, whether it hits
 * the entry or walks past it. It is linked into its mask's table by
 * next[table->ver]; a resize links it into the new table by the other
 * link while readers may still walk the old one (as Open vSwitch's flow
 * table does). @hot holds what a hit on a lone simple rule of priority 0
 * needs, its counters and its verdict, so that such a hit (the common
 * case: one rule per key) never reads the list or the rule.
 */
struct mmb_entry {
	struct mmb_entry __rcu *next[2];
	unsigned long hot;		/* counters | MMB_HOT_*, or 0: read @rules */
	struct mmb_rvec __rcu *rules;	/* or a lone rule (MMB_RULES_LONE) */
	struct mmb_chunk key[];		/* the mask's chunks only */
};

#define MMB_HOT_ACCEPT	0x1UL
#define MMB_HOT_DROP	0x2UL
#define MMB_HOT_FLAGS	(MMB_HOT_ACCEPT | MMB_HOT_DROP)

/*
 * Each group of four chains has a filter of the hashes of its entries, 64
 * bits: each entry sets five of them, chosen by a second mix of its hash.
 * A probe whose five bits are not all set reads neither the chains nor
 * their heads: a packet that matches nothing (most of what a firewall
 * sees) reads one word per mask. The filters sit in an array of their own,
 * an eighth of the heads' size, which stays in the CPU's caches where the
 * heads and entries do not (docs/architecture.md has the numbers).
 *
 * Writers set the bits before linking an entry and recompute the word
 * after unlinking one: a reader that sees a stale word sees the chains as
 * they were before the change.
 */
#define MMB_FILTER_SHIFT	2	/* four buckets per filter word */

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

/*
 * The buckets and the filter words are allocations of their own, each a
 * power of two in size: in one, a large table's 18 bytes per bucket took
 * a block of twice its size from the page allocator.
 */
struct mmb_table {
	struct rcu_head rcu;
	u32 size_mask;			/* buckets - 1 */
	u8 ver;
	u64 *filter;			/* per four buckets */
	struct mmb_bucket *buckets;
};

#define MMB_TABLE_MIN 16

/*
 * A mask that keeps nothing but the family and the way its rules judge
 * (their other matches, if any, are slow: "all", a default at the end of
 * an ordered policy, "net-proto ip4") has at most four keys, and every
 * packet hits one of them: a lookup takes the entry from @wild_e (by
 * mmb_wild_index()) without masking, hashing or walking a chain. The
 * entries stay in the table too, for writers.
 */
#define MMB_WILD_ENTRIES	4

/*
 * The sieve of a table: a bit per value of the 12 highest bits of one half
 * of a 32-bit word of the image (the top of an address, of a port), set
 * while a rule of the table may match a packet of that value: by its exact
 * bits there (whether the table's mask keeps them or its entry checks them
 * as residues) and by its port ranges. A packet whose bit is clear matches
 * no rule of the table, and the lookup skips it without masking, hashing
 * or reading its filter: a packet that matches nothing but an ordered
 * set's default (what a firewall passes most) reads a bit of each table,
 * from sieves of 512 bytes that stay in the CPU's first-level cache, where
 * the filters, a table's eighth, do not. The half is the one with the most
 * bits of the mask when the table is made, and the one whose values the
 * rules cover least when a batch builds its tables (rules cluster in the
 * address space and in the ports: a random packet's bit is seldom set).
 * Writers count the rules of each bit (saturating: a bit of 255 stays set;
 * a rule of every bit is counted in @sieve_all), set the bits before the
 * rule is linked and clear them after the last rule of theirs is
 * unlinked: a reader sees the table as before or after a change.
 */
#define MMB_SIEVE_ORDER		12
#define MMB_SIEVE_BITS		BIT(MMB_SIEVE_ORDER)

struct mmb_mask {
	struct mmb_key m;
	u8 chunk[MMB_KEY_CHUNKS];	/* chunks the mask touches */
	u8 n;
	bool wild;			/* its entries are in @wild_e */
	u8 sieve_off;			/* the sieve's word: its byte in the image */
	u8 sieve_shift;			/* 20: the upper half, 4: the lower */
	u32 sieve_mask;			/* of the word, host order, before the shift */
	u64 *sieve;			/* MMB_SIEVE_BITS bits, or NULL: none */
	u8 *sieve_n;			/* writers': rules of each bit */
	unsigned int sieve_all;		/* writers': rules of every bit */
	unsigned int entries;
	u32 seed[4 * MMB_KEY_CHUNKS];	/* one per 32-bit word of the key */
	unsigned long resize_gp;	/* grace period of the last resize */
	u32 prio;			/* at least its rules' highest; writers' */
	struct mmb_table __rcu *tbl;
	struct mmb_entry __rcu *wild_e[MMB_WILD_ENTRIES];
	struct rcu_head rcu;
};

/* The sieve's bit of the image, or of an entry's key, at @b (of its word). */
static __always_inline u32 mmb_sieve_index(const struct mmb_mask *mask, const u8 *b)
{
	return (get_unaligned_be32(b) & mask->sieve_mask) >> mask->sieve_shift;
}

/* May @key, a packet's image, hit an entry of @mask (by its sieve)? */
static __always_inline bool mmb_sieve_pass(const struct mmb_mask *mask,
					   const struct mmb_key *key)
{
	const u64 *sieve = mask->sieve;
	u32 i;

	if (!sieve)
		return true;
	i = mmb_sieve_index(mask, &key->b[mask->sieve_off]);
	return READ_ONCE(sieve[i / 64]) & BIT_ULL(i % 64);
}

/* The slot in @mask->wild_e of the image (or an entry's key) at @b. */
static __always_inline unsigned int mmb_wild_index(const struct mmb_mask *mask, const u8 *b)
{
	unsigned int i = (b[MMB_IMG_FAMILY] & mask->m.b[MMB_IMG_FAMILY]) == 6 ? 2 : 0;

	if (b[MMB_IMG_FLAGS] & mask->m.b[MMB_IMG_FLAGS])
		i++;
	return i;
}

/*
 * The masks of a ruleset, in lookup order: by descending priority (the
 * highest of each table's rules, or more), which follow the masks in the
 * same allocation (mmb_mvec_prio()). A table's priority is raised with a
 * new list, in order; it is not lowered when its rules go (a bound is
 * enough), until a batch builds the tables again. The lookup stops before
 * a table whose priority is below a verdict found (classify.c), as Open
 * vSwitch's classifier does with its subtables' maximum priorities.
 */
struct mmb_mvec {
	struct rcu_head rcu;
	unsigned int n;
	struct mmb_key any;		/* the bits any of the masks looks at */
	struct mmb_mask *m[];		/* then u32 prio[n] */
};

/*
 * Does @mask's sieve look only at bits of @mv's masks (@mv->any)? A flow
 * cache entry is filled for every image of the same bits there: a sieve
 * that reads other bits (a rule's residues, its port ranges) could skip a
 * table for one of them and not for another, and is not used then.
 */
static __always_inline bool mmb_sieve_cacheable(const struct mmb_mvec *mv,
						const struct mmb_mask *mask)
{
	u32 any = get_unaligned_be32(&mv->any.b[mask->sieve_off]);

	return (any & mask->sieve_mask) == mask->sieve_mask;
}

/* The priorities of @mv's tables, as they were when it was published. */
static __always_inline const u32 *mmb_mvec_prio(const struct mmb_mvec *mv)
{
	return (const u32 *)&mv->m[mv->n];
}

int mmb_tables_insert(struct mmb_ruleset *rs, struct mmb_rule *rule,
		      const struct mmb_rule_image *img);
int mmb_tables_remove(struct mmb_ruleset *rs, struct mmb_rule *rule);
void mmb_tables_destroy(struct mmb_ruleset *rs);
int mmb_tables_rebuild(struct mmb_ruleset *rs, unsigned int max_tables);
int mmb_tables_build(struct mmb_ruleset *rs);
unsigned int mmb_tables_count(const struct mmb_ruleset *rs);

/* --- the flow cache (cache.c) ------------------------------------------ */

/*
 * With many masks a packet costs a probe per mask. Then a per-CPU cache
 * keyed by the header image under the union of all masks sits in front of
 * them (packets of a flow differ in IP ID, checksums, sequence numbers, but
 * not there): a hit yields the table entries the image probes to, whose
 * rules then go through the slow-path checks as always, in one hash and one
 * 80-byte compare. Images found in more than MMB_CACHE_HITS masks are not
 * cached. An entry also names the mask list it was keyed under, so a
 * packet that reads a new list before the generation's bump never takes
 * an entry keyed under another union of masks.
 */
#define MMB_CACHE_HITS		8
#define MMB_CACHE_MIN_MASKS	4
#define MMB_CACHE_WAYS		4	/* entries of a set */

struct mmb_cache_entry {
	unsigned long gen;		/* 0: empty */
	const struct mmb_mvec *mv;
	struct mmb_key key;		/* masked by mv->any */
	const struct mmb_entry *e[MMB_CACHE_HITS];	/* the first n */
};

/*
 * Traffic with no locality (every packet a new flow, as in a flood of
 * random headers) never hits, and each lookup and fill then only adds its
 * cost. Per window of MMB_CACHE_WINDOW lookups a CPU checks its hit rate;
 * below one in MMB_CACHE_POOR, only one packet in MMB_CACHE_SAMPLE looks
 * in the cache during the next window, which is enough to notice when
 * flows come back.
 */
#define MMB_CACHE_WINDOW	1024
#define MMB_CACHE_POOR		8
#define MMB_CACHE_SAMPLE	16

struct mmb_cache {
	u64 hits;
	u64 misses;
	unsigned int victim;
	unsigned int window;		/* lookups this window */
	unsigned int window_hits;
	unsigned int tick;		/* packets, while sparse */
	bool sparse;			/* the last window hit poorly */
	struct mmb_cache_entry e[];
};

void mmb_cache_create(struct mmb_ruleset *rs);
void mmb_cache_free(struct mmb_cache **cache);
struct mmb_cache_entry *mmb_cache_lookup(const struct mmb_ruleset *rs, struct mmb_cache *c,
					 const struct mmb_mvec *mv, unsigned long gen,
					 const struct mmb_pkt *pkt, struct sk_buff *skb,
					 struct mmb_verdict *v, bool *hit);

/* The verdict of every rule of a table entry @pkt matches; classify.c. */
void mmb_verdict_entry(const struct mmb_entry *e, const struct mmb_pkt *pkt,
		       struct sk_buff *skb, struct mmb_verdict *v);

/* --- the probe, for the datapath and for writers ------------------------ */

/* The masked chunks of @key under @mask, of @n chunks, compacted. */
static __always_inline void mmb_mask_key_n(const struct mmb_mask *mask,
					   const struct mmb_key *key,
					   struct mmb_chunk *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct mmb_chunk *k = &key->c[mask->chunk[i]];
		const struct mmb_chunk *m = &mask->m.c[mask->chunk[i]];

		out[i].w[0] = k->w[0] & m->w[0];
		out[i].w[1] = k->w[1] & m->w[1];
	}
}

/* The masked chunks of @key under @mask, compacted. */
static __always_inline void mmb_mask_key(const struct mmb_mask *mask,
					 const struct mmb_key *key,
					 struct mmb_chunk *out)
{
	mmb_mask_key_n(mask, key, out, mask->n);
}

/* The XOR compare of a masked key with an entry's: true when equal. */
static __always_inline bool mmb_key_equal(const struct mmb_chunk *a,
					  const struct mmb_chunk *b, unsigned int n)
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
 * into the upper bits, which a table or the cache takes.
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

static __always_inline u64 mmb_filter_bits(u64 hash)
{
	/* A second odd multiplier mixes all 64 bits into the top 32. */
	u32 f = (hash * 0xc2b2ae3d27d4eb4fULL) >> 32;

	return BIT_ULL(f & 63) | BIT_ULL(f >> 6 & 63) | BIT_ULL(f >> 12 & 63) |
	       BIT_ULL(f >> 18 & 63) | BIT_ULL(f >> 24 & 63);
}

/* The next entry of a chain of @rs in table version @ver. */
static __always_inline struct mmb_entry *mmb_entry_next(const struct mmb_ruleset *rs,
							const struct mmb_entry *e, u8 ver)
{
	return rcu_dereference_check(e->next[ver], mmb_ruleset_writer(rs));
}

/*
 * The entry of @key (@n chunks, @mask's) in @t, a table of @mask of @rs;
 * readers under RCU, writers as mmb_ruleset_writer() says. Entries keep no
 * hash: the key compare reads the line the walk reads anyway. The datapath
 * (@prefetch) starts fetching the hinted counters too. A constant @n
 * unrolls the mask, hash and compare.
 */
static __always_inline struct mmb_entry *mmb_lookup_n(const struct mmb_ruleset *rs,
						      const struct mmb_mask *mask,
						      const struct mmb_table *t,
						      const struct mmb_chunk *key, unsigned int n,
						      bool prefetch)
{
	u64 hash = mmb_key_hash(key, n, mask->seed);
	u32 i = mmb_bucket_of(t, hash);
	struct mmb_entry *e;

	if (~READ_ONCE(*mmb_filter_word(t, i)) & mmb_filter_bits(hash))
		return NULL;
	if (prefetch) {
		struct mmb_pcpu_stats __percpu *stats = READ_ONCE(t->buckets[i].hint);

		if (stats)
			prefetchw(raw_cpu_ptr(stats));
	}
	e = rcu_dereference_check(t->buckets[i].head, mmb_ruleset_writer(rs));
	for (; e; e = mmb_entry_next(rs, e, t->ver))
		if (mmb_key_equal(e->key, key, n))
			return e;
	return NULL;
}

/* mmb_lookup_n() of @mask's chunks: the probe of any table. */
static __always_inline struct mmb_entry *mmb_lookup(const struct mmb_ruleset *rs,
						    const struct mmb_mask *mask,
						    const struct mmb_table *t,
						    const struct mmb_chunk *key, bool prefetch)
{
	return mmb_lookup_n(rs, mask, t, key, mask->n, prefetch);
}

#endif /* _MMB_TABLES_H */
