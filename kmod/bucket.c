// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: a token bucket without a lock. Only the packets that want a token
 * touch it (a rejected packet, a logged one), never the others.
 */
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "bucket.h"

/* A full bucket: @burst tokens. */
void mmb_tokens_init(struct mmb_tokens *b, unsigned int burst)
{
	atomic_set(&b->credit, min_t(unsigned int, burst, INT_MAX));
	b->stamp = (u32)jiffies;
}

/*
 * Take a token: the bucket gains @rate tokens every @per seconds (1 to
 * 86400), up to @burst, by whoever moves the stamp (a cmpxchg), and each
 * taker takes one (atomic_dec_if_positive()). A @rate of 0: no limit,
 * nothing touched. The time counted is at most what fills the bucket (a
 * @per at least, as the kernel's ICMP limit counts a second): an idle
 * bucket is full again.
 */
bool mmb_tokens_take_per(struct mmb_tokens *b, unsigned int rate, unsigned int per,
			 unsigned int burst)
{
	u64 span = (u64)HZ * clamp_t(unsigned int, per, 1, 86400);
	int max = min_t(unsigned int, burst, INT_MAX);
	u32 now = (u32)jiffies, stamp = READ_ONCE(b->stamp), delta = now - stamp;
	int old, new, incr;
	u64 fill;

	if (!rate)
		return true;
	/* A burst lowered since (a module parameter): no more than it from now on. */
	old = atomic_read(&b->credit);
	if (unlikely(old > max))
		atomic_cmpxchg(&b->credit, old, max);
	/*
	 * A stamp up to a second ahead of the jiffies read here was moved by
	 * another CPU since: no time passed. One further "ahead" is old:
	 * jiffies went past it by over 2^31 (24.8 days at HZ=1000 without a
	 * token taken), and taken as no time passed it held the bucket empty
	 * for as long again.
	 */
	if (!delta || delta > (u32)-HZ)
		return atomic_dec_if_positive(&b->credit) >= 0;
	fill = max_t(u64, span, div64_u64((u64)max * span, rate) + 1);
	incr = min_t(u64, div64_u64((u64)rate * min_t(u64, delta, fill), span), max);
	if (incr && cmpxchg(&b->stamp, stamp, now) == stamp) {
		old = atomic_read(&b->credit);
		do {
			new = old > max - incr ? max : old + incr;
		} while (!atomic_try_cmpxchg(&b->credit, &old, new));
	}
	return atomic_dec_if_positive(&b->credit) >= 0;
}
