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
bool mmb_tokens_take(struct mmb_tokens *b, unsigned int rate, unsigned int burst);

#endif /* _MMB_BUCKET_H */
