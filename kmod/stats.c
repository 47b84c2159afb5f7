// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: per-CPU packet counters of devices and rules.
 */
#include <linux/slab.h>

#include "stats.h"

void mmb_stats_read(struct mmb_pcpu_stats __percpu *pcpu, struct mmb_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct mmb_pcpu_stats *s = per_cpu_ptr(pcpu, cpu);
		u64 packets, bytes;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			packets = u64_stats_read(&s->packets);
			bytes = u64_stats_read(&s->bytes);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		st->packets += packets;
		st->bytes += bytes;
	}
}

/*
 * Zero counters that the datapath goes on writing, without a lock and
 * without writing another CPU's: what they hold now, summed, is taken from
 * this CPU's (as nft resets its counters), so the sum is 0 but for packets
 * counted since the read, which stay counted. Process context.
 */
void mmb_stats_reset(struct mmb_pcpu_stats __percpu *pcpu)
{
	struct mmb_pcpu_stats *s;
	struct mmb_stats st;

	mmb_stats_read(pcpu, &st);
	local_bh_disable();	/* the datapath writes in softirq */
	s = this_cpu_ptr(pcpu);
	u64_stats_update_begin(&s->syncp);
	u64_stats_set(&s->packets, u64_stats_read(&s->packets) - st.packets);
	u64_stats_set(&s->bytes, u64_stats_read(&s->bytes) - st.bytes);
	u64_stats_update_end(&s->syncp);
	local_bh_enable();
}

/* A device's counts (MMB_COUNT_MAX of them), summed over CPUs. */
void mmb_counts_read(struct mmb_pcpu_counts __percpu *pcpu, u64 *n)
{
	u64 v[MMB_COUNT_MAX];
	unsigned int start, i;
	int cpu;

	memset(n, 0, MMB_COUNT_MAX * sizeof(*n));
	for_each_possible_cpu(cpu) {
		const struct mmb_pcpu_counts *d = per_cpu_ptr(pcpu, cpu);

		do {
			start = u64_stats_fetch_begin(&d->syncp);
			for (i = 0; i < MMB_COUNT_MAX; i++)
				v[i] = u64_stats_read(&d->n[i]);
		} while (u64_stats_fetch_retry(&d->syncp, start));
		for (i = 0; i < MMB_COUNT_MAX; i++)
			n[i] += v[i];
	}
}

/*
 * Counters for 64 rules take one per-CPU allocation instead of 64: loading
 * 100k rules (bench-mmb) spent 17 of its 107 ms in the per-CPU allocator.
 * A block lives as long as its last rule.
 */
#define MMB_STATS_BLOCK 64

struct mmb_stats_block {
	refcount_t ref;		/* the pool's while it hands out, and each rule's */
	unsigned int used;
	unsigned int size;
	struct mmb_pcpu_stats __percpu *pcpu;
};

static struct mmb_stats_block *mmb_stats_block_new(unsigned int size)
{
	struct mmb_stats_block *blk;
	unsigned int i;
	int cpu;

	blk = kmalloc(sizeof(*blk), GFP_KERNEL_ACCOUNT);
	if (!blk)
		return NULL;
	blk->pcpu = __alloc_percpu_gfp(size * sizeof(struct mmb_pcpu_stats),
				       __alignof__(struct mmb_pcpu_stats), GFP_KERNEL_ACCOUNT);
	if (!blk->pcpu) {
		kfree(blk);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		for (i = 0; i < size; i++)
			u64_stats_init(&per_cpu_ptr(blk->pcpu, cpu)[i].syncp);
	refcount_set(&blk->ref, 1);
	blk->used = 0;
	blk->size = size;
	return blk;
}

void mmb_stats_put(struct mmb_stats_block *blk)
{
	if (refcount_dec_and_test(&blk->ref)) {
		free_percpu(blk->pcpu);
		kfree(blk);
	}
}

/* Counters for one rule, whose reference on their block goes to @blk. */
struct mmb_pcpu_stats __percpu *mmb_stats_take(struct mmb_stats_pool *pool,
					       struct mmb_stats_block **blk)
{
	struct mmb_stats_block *b = pool->blk;

	if (!b || b->used == b->size) {
		b = mmb_stats_block_new(clamp(pool->want, 1U, MMB_STATS_BLOCK));
		if (!b)
			return NULL;
		mmb_stats_pool_end(pool);
		pool->blk = b;
	}
	if (pool->want)
		pool->want--;
	refcount_inc(&b->ref);
	*blk = b;
	return b->pcpu + b->used++;
}

/* Done handing out: the block in hand stays only for the rules it serves. */
void mmb_stats_pool_end(struct mmb_stats_pool *pool)
{
	if (pool->blk)
		mmb_stats_put(pool->blk);
	pool->blk = NULL;
}
