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
	atomic64_set(&b->at, (u32)jiffies);
}

/*
 * Take a token at jiffies @now: the bucket gains @rate tokens every @per
 * seconds (1 to 86400), up to @burst, by whoever moves the stamp (a
 * cmpxchg), and each taker takes one (atomic_dec_if_positive()). The part
 * of a token earned by the time of the stamp is kept with it, so that a
 * rate that is no whole number of tokens a jiffy is met; time during which
 * the bucket is full earns nothing (nor does more than fills it: an idle
 * bucket is full again, the next token a whole interval away). A @rate of
 * 0: no limit, nothing touched.
 */
bool mmb_tokens_take_at(struct mmb_tokens *b, unsigned int rate, unsigned int per,
			unsigned int burst, u32 now)
{
	u64 span = (u64)HZ * clamp_t(unsigned int, per, 1, 86400);
	int max = min_t(unsigned int, burst, INT_MAX);
	s64 at = atomic64_read(&b->at);
	u32 delta = now - (u32)at;
	u64 fill, gain, rem = 0;
	int old, new, incr;

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
	if (old >= max || delta >= fill) {
		gain = max;
	} else {
		/* In 1/span of a token: the time's, and the part the stamp kept. */
		gain = div64_u64_rem((u64)rate * delta + ((u64)at >> 32), span, &rem);
		if (!gain)
			return atomic_dec_if_positive(&b->credit) >= 0;
		if (gain >= max)
			rem = 0;
	}
	incr = min_t(u64, gain, max);
	if (atomic64_try_cmpxchg(&b->at, &at, (s64)(rem << 32 | now))) {
		old = atomic_read(&b->credit);
		do {
			new = old > max - incr ? max : old + incr;
		} while (!atomic_try_cmpxchg(&b->credit, &old, new));
	}
	return atomic_dec_if_positive(&b->credit) >= 0;
}
