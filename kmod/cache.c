// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the per-CPU flow cache of a ruleset with many masks (tables.h says
 * what it holds and why its entries stay valid). A set of MMB_CACHE_WAYS
 * entries per hash of the image under the union of the masks; a hit gives
 * the table entries the image probed to, in one hash and one 80-byte
 * compare, and their rules are judged as on a miss.
 *
 *   cache[cpu] ── e[set * WAYS + way]: gen, mask list, masked image, entries
 */
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "tables.h"

unsigned int mmb_cache_entries = 4096;
module_param_named(cache_entries, mmb_cache_entries, uint, 0644);
MODULE_PARM_DESC(cache_entries,
		 "Per-CPU flow cache entries of a ruleset with many masks (0: none)");

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

void mmb_cache_free(struct mmb_cache **cache)
{
	unsigned int cpu;

	if (!cache)
		return;
	for_each_possible_cpu(cpu)
		kvfree(cache[cpu]);
	kfree(cache);
}

/* Give @rs a cache once it has enough masks. Without memory it has none. */
void mmb_cache_create(struct mmb_ruleset *rs)
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

/* The lookups of @rs's cache that hit and missed; false if it has none. */
bool mmb_ruleset_cache_stats(const struct mmb_ruleset *rs, u64 *hits, u64 *misses)
{
	unsigned int cpu;

	*hits = 0;
	*misses = 0;
	if (!rs->cache)
		return false;
	for_each_possible_cpu(cpu) {
		if (!rs->cache[cpu])
			continue;
		*hits += READ_ONCE(rs->cache[cpu]->hits);
		*misses += READ_ONCE(rs->cache[cpu]->misses);
	}
	return true;
}

/* Count a lookup; at the end of a window, judge it. */
static void mmb_cache_window(struct mmb_cache *c, bool hit)
{
	c->window_hits += hit;
	if (++c->window < MMB_CACHE_WINDOW)
		return;
	c->sparse = c->window_hits * MMB_CACHE_POOR < c->window;
	c->window = 0;
	c->window_hits = 0;
}

/*
 * Look @pkt up in this CPU's cache. On a hit the verdict is made and *@hit
 * set; on a miss, the entry to fill after the probes is returned, with its
 * key and mask list set and its generation 0 (not valid yet).
 */
noinline struct mmb_cache_entry *
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
			mmb_cache_window(c, true);
			for (j = 0; j < MMB_CACHE_HITS && ce->e[j]; j++)
				mmb_verdict_entry(ce->e[j], pkt, skb, v);
			*hit = true;
			return NULL;
		}
	}
	c->misses++;
	mmb_cache_window(c, false);
	/* Refill a stale entry of the set, or else each in turn. */
	for (i = 0; i < MMB_CACHE_WAYS && set[i].gen == gen; i++)
		;
	ce = &set[i < MMB_CACHE_WAYS ? i : c->victim++ % MMB_CACHE_WAYS];
	ce->gen = 0;
	ce->key = flow;
	ce->mv = mv;
	return ce;
}
