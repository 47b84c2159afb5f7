/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: a token bucket without a lock (bucket.c), for what the datapath
 * does rarely and must not do often: reject's answers (reject.c), log's
 * lines (log.c).
 */
#ifndef _MMB_BUCKET_H
#define _MMB_BUCKET_H

#include <linux/atomic.h>
#include <linux/jiffies.h>

/*
 * @credit tokens, refilled by whoever moves @at with a cmpxchg, taken with
 * atomic_dec_if_positive(). @at: the jiffies of the last refill (low 32
 * bits) and the part of a token earned by then, in 1/(HZ * per) (high 32).
 */
struct mmb_tokens {
	atomic_t credit;
	atomic64_t at;
};

void mmb_tokens_init(struct mmb_tokens *b, unsigned int burst);
bool mmb_tokens_take_at(struct mmb_tokens *b, unsigned int rate, unsigned int per,
			unsigned int burst, u32 now);

/* The jiffies of @b's last refill; set, a refill then with no fraction kept. */
static inline u32 mmb_tokens_stamp(const struct mmb_tokens *b)
{
	return (u32)atomic64_read(&b->at);
}

static inline void mmb_tokens_set_stamp(struct mmb_tokens *b, u32 stamp)
{
	atomic64_set(&b->at, stamp);
}

static inline bool mmb_tokens_take_per(struct mmb_tokens *b, unsigned int rate,
				       unsigned int per, unsigned int burst)
{
	return mmb_tokens_take_at(b, rate, per, burst, (u32)jiffies);
}

/* @rate tokens a second. */
static inline bool mmb_tokens_take(struct mmb_tokens *b, unsigned int rate, unsigned int burst)
{
	return mmb_tokens_take_per(b, rate, 1, burst);
}

#endif /* _MMB_BUCKET_H */
