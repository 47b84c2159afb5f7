/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: a token bucket without a lock (bucket.c), for what the datapath
 * does rarely and must not do often: reject's answers (reject.c), log's
 * lines (log.c).
 */
#ifndef _MMB_BUCKET_H
#define _MMB_BUCKET_H

#include <linux/atomic.h>

/*
 * @credit tokens, refilled by whoever moves @stamp (the jiffies of the
 * last refill) with a cmpxchg, taken with atomic_dec_if_positive().
 */
struct mmb_tokens {
	atomic_t credit;
	u32 stamp;
};

void mmb_tokens_init(struct mmb_tokens *b, unsigned int burst);
bool mmb_tokens_take_per(struct mmb_tokens *b, unsigned int rate, unsigned int per,
			 unsigned int burst);

/* @rate tokens a second. */
static inline bool mmb_tokens_take(struct mmb_tokens *b, unsigned int rate, unsigned int burst)
{
	return mmb_tokens_take_per(b, rate, 1, burst);
}

#endif /* _MMB_BUCKET_H */
