/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: rate limits and meters (limit.c), a rule's "limit [over] RATE/UNIT
 * [burst N] [per FIELD[/PREFIX] [size N]]". docs/limit.md is the user's
 * side.
 */
#ifndef _MMB_LIMIT_H
#define _MMB_LIMIT_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/siphash.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>

#include "pkt.h"

/* A limit as given (MMB_RULE_A_LIMIT); rate 0: the rule has none. */
struct mmb_limit_spec {
	u32 rate;		/* packets per @unit */
	u32 unit;		/* seconds: 1, 60, 3600, 86400 */
	u32 burst;
	u32 size;		/* a meter's keys */
	u16 per;		/* a meter's key field */
	u8 plen;		/* of it, the bits kept */
	bool over;
	bool meter;		/* @per, @plen and @size mean something */
};

/* A meter's slots come in buckets of this many: a key is looked for in its bucket's. */
#define MMB_METER_WAYS		8

/*
 * A bucket of a meter's table: MMB_METER_WAYS slots, each a key and its
 * bucket of tokens, 32 bytes a slot, in two parts so that a packet reads
 * as few cache lines as it can, and those few packed together. The head,
 * one line in an array of heads (8 bytes a key: 512 KiB for 65535 keys),
 * has each slot's sequence and tag (16 bits of its key's hash), and
 * @busy: a time before which no slot of the bucket is idle. A packet of a
 * key the bucket does not hold finds no tag of its own there, and while
 * @busy is ahead, no room either: a flood of new keys against a full
 * table reads the head alone. The slots, three lines in an array of their
 * own, have each slot's time (GCRA's, see struct mmb_limit) and key: read
 * for a key found, or for room once @busy has passed.
 *
 * @seq[i] is even while slot i is stable, odd while one CPU gives it to a
 * new key (0: never used); readers never wait for it: a slot being given
 * is skipped. A slot's time only grows (a token taken moves it on; a key
 * given an idle slot, at or before now, sets it after now), so the least
 * of the times read is a bound that stays true: @busy is one, written by
 * a packet that found no room (a bound written late, lower, is still one).
 */
struct mmb_meter_head {
	u32 seq[MMB_METER_WAYS];
	union {
		u16 tag[MMB_METER_WAYS];
		u64 tags[2];	/* the same, two words at a time (mmb_meter_tag_in()) */
	};
	atomic64_t busy;
	u64 pad;
};

struct mmb_meter_slots {
	atomic64_t tat[MMB_METER_WAYS];
	u64 key[MMB_METER_WAYS][2];
};

/*
 * Counted by the packet path, with BH off: raw_cpu_inc(), which on a
 * kernel whose per-CPU adds are not one instruction (UML) saves no
 * interrupt state per packet; the packets of a flood of new keys are
 * each counted here.
 */
struct mmb_limit_pcpu {
	u64 evicted;		/* idle keys whose slot went to another */
	u64 full;		/* keys that found no slot: beyond their rate */
};

/*
 * A rule's limit, made with the rule (mmb_limit_new()) and freed with it.
 * A bucket is the time its next packet's token is free (GCRA, the
 * "theoretical arrival time"), in ns of the monotonic clock: a packet is
 * within the rate if that time is no more than @tau - @cost ahead of now,
 * and then moves it on by @cost. Taken with one cmpxchg, no lock.
 */
struct mmb_limit {
	struct mmb_limit_spec spec;
	u64 cost;		/* ns of rate per packet: unit / rate */
	u64 tau;		/* ns of burst: burst * cost */
	/* a meter's key: where it is in the image */
	u8 img, len, shift, family, l4;
	bool precise;		/* a burst shorter than two ticks: mmb_limit_now() */
	u32 fmask, vmask;	/* of a key of up to 32 bits */
	u64 amask[2];		/* of an IPv6 address, as its bytes lie */
	hsiphash_key_t seed;	/* the rule's own: collisions cannot be aimed */
	u32 nbuckets;		/* a meter's: spec.size / MMB_METER_WAYS, rounded up */
	struct mmb_limit_pcpu __percpu *pcpu;
	/*
	 * Of nbuckets buckets, the last with the rest of spec.size (1 to 8
	 * slots): one allocation, the heads, then the slots.
	 */
	struct mmb_meter_head *head;
	struct mmb_meter_slots *slots;
	atomic64_t tat ____cacheline_aligned_in_smp;	/* a plain limit's bucket */
};

extern const struct nla_policy mmb_limit_policy[MMB_LIMIT_A_MAX + 1];

int mmb_limit_parse(const struct nlattr *attr, struct mmb_limit_spec *ls,
		    struct netlink_ext_ack *extack);
int mmb_limit_put(struct sk_buff *skb, const struct mmb_limit *l);
int mmb_limit_put_stats(struct sk_buff *skb, const struct mmb_limit *l);
const char *mmb_limit_check(const struct mmb_limit_spec *ls, u8 family, u8 l4, bool stateful);
struct mmb_limit *mmb_limit_new(const struct mmb_limit_spec *ls);
void mmb_limit_free(struct mmb_limit *l);
void mmb_limit_reset(struct mmb_limit *l);
bool mmb_limit_same(const struct mmb_limit *a, const struct mmb_limit *b);
u32 mmb_limit_hash(const struct mmb_limit *l, u32 h);

/*
 * The datapath's clock for @l, ns: the monotonic time at the last tick
 * (cheaper than reading the clock source), unless @l's burst lasts less
 * than two ticks. With that clock, the packets of a tick all see one time
 * and the bucket gives at most its burst per tick: a rate above burst x HZ
 * would not be reached (10000/second burst 5 would give 1250 a second at
 * HZ=250).
 */
static inline u64 mmb_limit_now(const struct mmb_limit *l)
{
	return l->precise ? ktime_get_ns() : ktime_get_coarse_ns();
}

bool mmb_limit_take(struct mmb_limit *l, const struct mmb_pkt *pkt, u64 now);
bool mmb_limit_peek(struct mmb_limit *l, const struct mmb_pkt *pkt, u64 now);
bool mmb_bucket_take(atomic64_t *tat, u64 cost, u64 tau, u64 now);
void mmb_limit_counts(const struct mmb_limit *l, u64 *evicted, u64 *full);

/*
 * Does a rule of limit @l apply to @pkt, all of whose other matches hold?
 * Takes a token if it is within the rate.
 */
static inline bool mmb_limit_applies(struct mmb_limit *l, const struct mmb_pkt *pkt)
{
	return mmb_limit_take(l, pkt, mmb_limit_now(l));
}

#endif /* _MMB_LIMIT_H */
