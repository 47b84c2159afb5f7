/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: per-CPU counters of devices and rules (stats.c).
 */
#ifndef _MMB_STATS_H
#define _MMB_STATS_H

#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/u64_stats_sync.h>

/*
 * Per-CPU counters of a device or a rule; written only in softirq. Sixteen
 * bytes, as aligned: a rule's counters, read on every packet that matches
 * it, never straddle two cache lines (at 24 bytes a quarter of them did).
 */
struct mmb_pcpu_stats {
	u64_stats_t packets;
	u64_stats_t bytes;
	struct u64_stats_sync syncp;
} __aligned(2 * sizeof(u64));

struct mmb_stats {
	u64 packets;
	u64 bytes;
};

void mmb_stats_read(struct mmb_pcpu_stats __percpu *pcpu, struct mmb_stats *st);
void mmb_stats_reset(struct mmb_pcpu_stats __percpu *pcpu);

/*
 * What the datapath counts of a device's packets besides their number, per
 * CPU: why it dropped them, then what else it did with those it passed on.
 */
enum mmb_count {
	MMB_DROP_RULE,		/* a rule's drop target */
	MMB_DROP_FRAGMENT,	/* a fragment hiding or overlapping L4 */
	MMB_DROP_HEADER,	/* an IPv6 header chain too long to walk */
	MMB_DROP_NOMEM,		/* no memory to copy or write it */
	MMB_DROP_CONN,		/* the connection table is full */
	MMB_DROP_UNMAPPED,	/* a later fragment whose datagram is not mapped */
	MMB_DROP_MAX,		/* the causes of drops end here */
	MMB_COUNT_REWRITTEN = MMB_DROP_MAX,	/* passed on rewritten */
	MMB_COUNT_NOT_IP,	/* not IPv4 or IPv6: passed on, not judged */
	MMB_COUNT_MALFORMED,	/* an IP header mmb cannot read: the stack judges */
	MMB_COUNT_OFFLOADED,	/* sent on by the fast path (offload.c) */
	MMB_COUNT_MAX
};

struct mmb_pcpu_counts {
	u64_stats_t n[MMB_COUNT_MAX];	/* wire packets */
	struct u64_stats_sync syncp;
};

void mmb_counts_read(struct mmb_pcpu_counts __percpu *pcpu, u64 *n);

/* The wire packets @skb stands for: a GRO packet's segments, else one. */
static inline unsigned int mmb_segs(const struct sk_buff *skb)
{
	return skb_shinfo(skb)->gso_segs ?: 1;
}

static inline void mmb_counts_add(struct mmb_pcpu_counts __percpu *pcpu,
				  enum mmb_count what, const struct sk_buff *skb)
{
	struct mmb_pcpu_counts *c = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&c->syncp);
	u64_stats_add(&c->n[what], mmb_segs(skb));
	u64_stats_update_end(&c->syncp);
}

/*
 * Rules' counters come from blocks of up to MMB_STATS_BLOCK (stats.c): one
 * per-CPU allocation serves a batch's rules in turn, each of which holds a
 * reference on its block. A pool hands them out; @want is how many rules
 * its user still expects to create (a batch's ops), so that a block is no
 * larger than needed.
 */
struct mmb_stats_block;

struct mmb_stats_pool {
	struct mmb_stats_block *blk;
	unsigned int want;
};

struct mmb_pcpu_stats __percpu *mmb_stats_take(struct mmb_stats_pool *pool,
					       struct mmb_stats_block **blk);
void mmb_stats_put(struct mmb_stats_block *blk);
void mmb_stats_pool_end(struct mmb_stats_pool *pool);

/* Count a packet of @segs GRO segments and @len bytes in this CPU's counters. */
static inline void mmb_stats_add(struct mmb_pcpu_stats __percpu *pcpu,
				 unsigned int segs, unsigned int len)
{
	struct mmb_pcpu_stats *s = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->packets, segs);
	u64_stats_add(&s->bytes, len);
	u64_stats_update_end(&s->syncp);
}

static inline void mmb_stats_count(struct mmb_pcpu_stats __percpu *pcpu,
				   const struct sk_buff *skb)
{
	mmb_stats_add(pcpu, mmb_segs(skb), skb->len);
}

#endif /* _MMB_STATS_H */
