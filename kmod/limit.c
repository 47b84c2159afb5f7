// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: rate limits and meters. A rule with a limit applies only to the
 * packets within its rate (or, "over", beyond it); classify.c asks once
 * every other match of the rule holds, so a packet the rule does not
 * match takes no token and costs nothing here.
 *
 *   plain limit   one bucket per rule: an atomic64 cmpxchg, no lock
 *   meter         one bucket per key ("per FIELD[/PREFIX]") in a table of
 *                 spec.size slots made with the rule, in buckets of
 *                 MMB_METER_WAYS: a key hashes (HalfSipHash, the rule's
 *                 own random key) to a bucket and is looked for there, its
 *                 tag first; a new key takes the bucket's first never used or
 *                 idle slot (bucket of tokens full again: nothing of its
 *                 rate is owed), or, if none, is beyond its rate
 *
 * A bucket is GCRA's "theoretical arrival time": the time at which the
 * bucket is full again. A packet at @now is within the rate if that time
 * is at most tau - cost ahead of @now, and moves it cost further; a packet
 * beyond it changes nothing. The same as nft's bucket of tokens_max =
 * burst * cost nanoseconds, refilled by the nanosecond, in one word.
 */
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>

#include "rule.h"
#include "limit.h"

/* Not const: 6.1's policy takes them so (as nlrule.c's mmb_rate_range). */
static struct netlink_range_validation mmb_limit_rate_range = {
	.min = 1, .max = MMB_LIMIT_RATE_MAX,
};

static struct netlink_range_validation mmb_limit_unit_range = { .min = 1, .max = 86400 };

static struct netlink_range_validation mmb_limit_burst_range = {
	.min = 1, .max = MMB_LIMIT_BURST_MAX,
};

static struct netlink_range_validation mmb_limit_size_range = {
	.min = 1, .max = MMB_LIMIT_SIZE_MAX,
};

const struct nla_policy mmb_limit_policy[MMB_LIMIT_A_MAX + 1] = {
	[MMB_LIMIT_A_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_limit_rate_range),
	[MMB_LIMIT_A_UNIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_limit_unit_range),
	[MMB_LIMIT_A_BURST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_limit_burst_range),
	[MMB_LIMIT_A_OVER]	= { .type = NLA_FLAG },
	[MMB_LIMIT_A_PER]	= NLA_POLICY_MAX(NLA_U16, MMB_FIELD_MAX),
	[MMB_LIMIT_A_PREFIX]	= NLA_POLICY_RANGE(NLA_U8, 1, 128),
	[MMB_LIMIT_A_SIZE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_limit_size_range),
};

/* The deepest bucket, in ns (see mmb_limit_parse()). */
#define MMB_LIMIT_TAU_MAX	BIT_ULL(62)

/* Can @f be a meter's key: a field of the IP or L4 header with a value? */
static bool mmb_limit_keyable(const struct mmb_field_info *f)
{
	return f && f->bits && (f->hdr == MMB_HDR_L3 || f->hdr == MMB_HDR_L4);
}

/* MMB_RULE_A_LIMIT (validated by the policy) into @ls. */
int mmb_limit_parse(const struct nlattr *attr, struct mmb_limit_spec *ls,
		    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MMB_LIMIT_A_MAX + 1];
	const struct mmb_field_info *f;
	int err;

	err = nla_parse_nested(tb, MMB_LIMIT_A_MAX, attr, mmb_limit_policy, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_LIMIT_A_RATE) ||
	    NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_LIMIT_A_UNIT))
		return -EINVAL;
	memset(ls, 0, sizeof(*ls));
	ls->rate = nla_get_u32(tb[MMB_LIMIT_A_RATE]);
	ls->unit = nla_get_u32(tb[MMB_LIMIT_A_UNIT]);
	if (ls->unit != 1 && ls->unit != 60 && ls->unit != 3600 && ls->unit != 86400) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_LIMIT_A_UNIT],
				    "a limit's unit is a second, minute, hour or day (1, 60, 3600, 86400)");
		return -EINVAL;
	}
	ls->burst = tb[MMB_LIMIT_A_BURST] ? nla_get_u32(tb[MMB_LIMIT_A_BURST]) :
					    MMB_LIMIT_BURST_DEFAULT;
	/*
	 * The bucket's depth, burst x unit / rate in ns, within 2^62 (146
	 * years): a bucket's time is compared to now signed, and one owed
	 * for over 2^63 ns would read as long past, full again (nft refuses
	 * a depth past 2^64 too).
	 */
	if (ls->burst > div64_u64(MMB_LIMIT_TAU_MAX,
				  div_u64((u64)ls->unit * NSEC_PER_SEC, ls->rate) ?: 1)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_LIMIT_A_BURST],
				    "a burst of over 146 years of the rate: a smaller burst or a higher rate");
		return -EINVAL;
	}
	ls->over = nla_get_flag(tb[MMB_LIMIT_A_OVER]);
	if (!tb[MMB_LIMIT_A_PER]) {
		if (tb[MMB_LIMIT_A_PREFIX] || tb[MMB_LIMIT_A_SIZE]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MMB_LIMIT_A_PREFIX] ?: tb[MMB_LIMIT_A_SIZE],
					    "a prefix and a size are a meter's: with per FIELD");
			return -EINVAL;
		}
		return 0;
	}
	ls->meter = true;
	ls->per = nla_get_u16(tb[MMB_LIMIT_A_PER]);
	f = mmb_field(ls->per);
	if (!mmb_limit_keyable(f)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_LIMIT_A_PER],
				    "a meter's key is a field of the IP or L4 header with a value (an address, a port, ...)");
		return -EINVAL;
	}
	ls->plen = tb[MMB_LIMIT_A_PREFIX] ? nla_get_u8(tb[MMB_LIMIT_A_PREFIX]) : f->bits;
	if (ls->plen > f->bits) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_LIMIT_A_PREFIX],
				    "the key's prefix is longer than its field");
		return -EINVAL;
	}
	ls->size = tb[MMB_LIMIT_A_SIZE] ? nla_get_u32(tb[MMB_LIMIT_A_SIZE]) :
					  MMB_LIMIT_SIZE_DEFAULT;
	return 0;
}

/* MMB_RULE_A_LIMIT of a dump: the limit as given. */
int mmb_limit_put(struct sk_buff *skb, const struct mmb_limit *l)
{
	const struct mmb_limit_spec *ls = &l->spec;
	struct nlattr *nest = nla_nest_start(skb, MMB_RULE_A_LIMIT);

	if (!nest || nla_put_u32(skb, MMB_LIMIT_A_RATE, ls->rate) ||
	    nla_put_u32(skb, MMB_LIMIT_A_UNIT, ls->unit) ||
	    nla_put_u32(skb, MMB_LIMIT_A_BURST, ls->burst) ||
	    (ls->over && nla_put_flag(skb, MMB_LIMIT_A_OVER)) ||
	    (ls->meter && (nla_put_u16(skb, MMB_LIMIT_A_PER, ls->per) ||
			   nla_put_u8(skb, MMB_LIMIT_A_PREFIX, ls->plen) ||
			   nla_put_u32(skb, MMB_LIMIT_A_SIZE, ls->size))))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

void mmb_limit_counts(const struct mmb_limit *l, u64 *evicted, u64 *full)
{
	int cpu;

	*evicted = 0;
	*full = 0;
	if (!l->pcpu)
		return;
	for_each_possible_cpu(cpu) {
		const struct mmb_limit_pcpu *p = per_cpu_ptr(l->pcpu, cpu);

		*evicted += READ_ONCE(p->evicted);
		*full += READ_ONCE(p->full);
	}
}

/* A meter's counters, into its rule's MMB_RULE_A_STATS. */
int mmb_limit_put_stats(struct sk_buff *skb, const struct mmb_limit *l)
{
	u64 evicted, full;

	if (!l || !l->spec.meter)
		return 0;
	mmb_limit_counts(l, &evicted, &full);
	if (nla_put_u64_64bit(skb, MMB_STATS_A_LIMIT_EVICTED, evicted, MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_LIMIT_FULL, full, MMB_STATS_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * Zero a meter's counters (reset counters): their sums are taken off on
 * this CPU, as the rules' counters are (stats.c). A CPU's counts are
 * written by that CPU alone, without an atomic: a zero written from here
 * between its load and its store would be undone, its old count back.
 * Racing packets may be kept.
 */
void mmb_limit_reset(struct mmb_limit *l)
{
	struct mmb_limit_pcpu *p;
	u64 evicted, full;

	if (!l || !l->pcpu)
		return;
	mmb_limit_counts(l, &evicted, &full);
	local_bh_disable();	/* the datapath counts in softirq */
	p = this_cpu_ptr(l->pcpu);
	WRITE_ONCE(p->evicted, p->evicted - evicted);
	WRITE_ONCE(p->full, p->full - full);
	local_bh_enable();
}

/*
 * What is wrong with limit @ls in a rule pinned to @family and @l4, or
 * NULL: a meter's key of another family or protocol would never be found.
 */
const char *mmb_limit_check(const struct mmb_limit_spec *ls, u8 family, u8 l4, bool stateful)
{
	const struct mmb_field_info *f;

	if (stateful)
		return "limit judges each packet: for stateless rules only (add, not add-stateful)";
	if (!ls->meter)
		return NULL;
	f = mmb_field(ls->per);
	if (family && f->family && f->family != family)
		return "the meter's key is a field of the other IP family than the rule's";
	if (l4 && f->l4 && f->l4 != l4)
		return "the meter's key is a field of another L4 protocol than the rule's";
	return NULL;
}

/* The meter's key of @pkt (false: it has none: another family, no such header). */
static __always_inline bool mmb_meter_key(const struct mmb_limit *l, const struct mmb_pkt *pkt,
					  u64 key[2])
{
	const struct mmb_key *k = &pkt->key;

	if (l->family && k->b[MMB_IMG_FAMILY] != l->family)
		return false;
	if (l->l4 && (k->b[MMB_IMG_L4PROTO] != l->l4 || !(k->b[MMB_IMG_FLAGS] & MMB_KF_L4)))
		return false;
	if (l->len == 16) {
		memcpy(key, &k->b[l->img], 16);
		key[0] &= l->amask[0];
		key[1] &= l->amask[1];
	} else {
		key[0] = ((mmb_img_read(k, l->img, l->len) & l->fmask) >> l->shift) & l->vmask;
		key[1] = 0;
	}
	return true;
}

bool mmb_bucket_take(atomic64_t *tat, u64 cost, u64 tau, u64 now)
{
	s64 old = atomic64_read(tat);
	u64 base;

	do {
		base = (s64)((u64)old - now) > 0 ? (u64)old : now;
		if (base + cost - now > tau)
			return false;
	} while (!atomic64_try_cmpxchg(tat, &old, base + cost));
	return true;
}

/* Would bucket @tat let a packet through at @now (nothing taken)? */
static bool mmb_bucket_peek(const atomic64_t *tat, u64 cost, u64 tau, u64 now)
{
	u64 t = atomic64_read(tat);
	u64 base = (s64)(t - now) > 0 ? t : now;

	return base + cost - now <= tau;
}

/* Is the bucket @tat full again at @now: nothing owed, its key idle? */
static bool mmb_bucket_idle(const atomic64_t *tat, u64 now)
{
	return (s64)((u64)atomic64_read(tat) - now) <= 0;
}

enum {
	MMB_METER_WITHIN,
	MMB_METER_BEYOND,
	MMB_METER_AGAIN,	/* the slot changed hands while being read */
};

/* A token of slot @i of bucket @hd, @sl, found holding the key at @seq. */
static int mmb_meter_slot_take(const struct mmb_limit *l, struct mmb_meter_head *hd,
			       struct mmb_meter_slots *sl, unsigned int i, u32 seq, u64 now)
{
	s64 old = atomic64_read(&sl->tat[i]);
	u64 base;

	for (;;) {
		base = (s64)((u64)old - now) > 0 ? (u64)old : now;
		if (base + l->cost - now > l->tau)
			break;
		if (atomic64_try_cmpxchg(&sl->tat[i], &old, base + l->cost))
			return MMB_METER_WITHIN;
		/* Pairs with the full barrier of the claim in mmb_meter_claim(). */
		smp_rmb();
		if (READ_ONCE(hd->seq[i]) != seq)
			return MMB_METER_AGAIN;
	}
	/* The bucket read before the slot's sequence: as above. */
	smp_rmb();
	return READ_ONCE(hd->seq[i]) == seq ? MMB_METER_BEYOND : MMB_METER_AGAIN;
}

/*
 * The sequence of a slot given once more after @seq: never 0 again, which
 * says "never used" (a slot given 2^31 times was then given to the next
 * key that came by, idle or not, with a full bucket, and keys past it in
 * their bucket were not found: a second bucket).
 */
static u32 mmb_meter_next(u32 seq)
{
	return seq + 2 ?: 2;
}

/*
 * Give slot @i of bucket @hd, @sl, seen at @seq (never used, or idle), to
 * @key of tag @tag, with the first packet's token taken; false if another
 * CPU got there first or its key is no longer idle.
 */
static bool mmb_meter_claim(struct mmb_limit *l, struct mmb_meter_head *hd,
			    struct mmb_meter_slots *sl, unsigned int i, u32 seq, const u64 key[2],
			    u16 tag, u64 now)
{
	if (cmpxchg(&hd->seq[i], seq, seq + 1) != seq)
		return false;
	if (seq && !mmb_bucket_idle(&sl->tat[i], now)) {
		/* Its key took a token meanwhile: it stays. */
		smp_store_release(&hd->seq[i], mmb_meter_next(seq));
		return false;
	}
	WRITE_ONCE(hd->tag[i], tag);
	WRITE_ONCE(sl->key[i][0], key[0]);
	WRITE_ONCE(sl->key[i][1], key[1]);
	atomic64_set(&sl->tat[i], now + l->cost);
	/* Pairs with the acquire in mmb_meter_find(): tag, key and bucket first. */
	smp_store_release(&hd->seq[i], mmb_meter_next(seq));
	if (seq)
		raw_cpu_inc(l->pcpu->evicted);
	return true;
}

/*
 * Look for @key (of tag @tag) in the first @n slots of bucket @hd, @sl:
 * its slot's index, with its sequence in @seq; else MMB_METER_WAYS, @seq
 * 0 and the first slot never used in @room (MMB_METER_WAYS: none).
 */
static unsigned int mmb_meter_find(struct mmb_meter_head *hd, struct mmb_meter_slots *sl,
				   unsigned int n, const u64 key[2], u16 tag, u32 *seq,
				   unsigned int *room)
{
	unsigned int i;
	u32 s;

	*room = MMB_METER_WAYS;
	for (i = 0; i < n; i++) {
		/* Pairs with the release in mmb_meter_claim(). */
		s = smp_load_acquire(&hd->seq[i]);
		/* Being given to a key: skipped, never waited for. */
		if (s & 1)
			continue;
		if (!s) {
			/* Never used: no key lies past it (but racing). */
			*room = i;
			break;
		}
		if (READ_ONCE(hd->tag[i]) != tag || READ_ONCE(sl->key[i][0]) != key[0] ||
		    READ_ONCE(sl->key[i][1]) != key[1])
			continue;
		/* Tag and key read before the sequence again: not torn by a claim. */
		smp_rmb();
		if (READ_ONCE(hd->seq[i]) != s)
			continue;
		*seq = s;
		return i;
	}
	*seq = 0;
	return MMB_METER_WAYS;
}

/* Is no slot of bucket @hd idle before its bound @busy, still ahead at @now? */
static __always_inline bool mmb_meter_busy(const struct mmb_meter_head *hd, u64 now)
{
	return (s64)((u64)atomic64_read(&hd->busy) - now) > 0;
}

/*
 * May a slot of bucket @hd hold a key of tag @tag? Its 8 tags are
 * compared two words at a time: a lane of 16 bits equal to @tag is a lane
 * of 0 once XORed with it, which the classic test finds. False: none
 * does, or did as they were read (a claim racing with it is one that
 * mmb_meter_find() may skip all the same).
 */
static __always_inline bool mmb_meter_tag_in(const struct mmb_meter_head *hd, u16 tag)
{
	const u64 ones = 0x0001000100010001ULL, tops = 0x8000800080008000ULL;
	u64 x0 = READ_ONCE(hd->tags[0]) ^ (tag * ones);
	u64 x1 = READ_ONCE(hd->tags[1]) ^ (tag * ones);

	return (((x0 - ones) & ~x0) | ((x1 - ones) & ~x1)) & tops;
}

/*
 * The first idle slot of the first @n of bucket @hd, @sl at @now, with its
 * sequence in @seq, or MMB_METER_WAYS; if none and @bound, the bucket's
 * busy bound set anew.
 */
static unsigned int mmb_meter_idle(struct mmb_meter_head *hd, struct mmb_meter_slots *sl,
				   unsigned int n, u64 now, u32 *seq, bool bound)
{
	u64 t, least = U64_MAX;
	unsigned int i;
	u32 s;

	for (i = 0; i < n; i++) {
		/* Pairs with the release in mmb_meter_claim(): the time is the key's. */
		s = smp_load_acquire(&hd->seq[i]);
		if (s & 1) {
			bound = false;	/* its time is the new key's, unknown */
			continue;
		}
		t = atomic64_read(&sl->tat[i]);
		if ((s64)(t - now) <= 0) {
			*seq = s;
			return i;
		}
		least = min(least, t);
	}
	if (bound)
		atomic64_set(&hd->busy, least);
	return MMB_METER_WAYS;
}

/*
 * The meter's verdict on @key at @now: its bucket's, found in the slots
 * of its hash's bucket; a new key's first packet is within the rate (a
 * full bucket) if a slot there is free or idle, else beyond it. With
 * @peek nothing is taken or given. Keys are hashed with the rule's own
 * key by HalfSipHash, the kernel's keyed hash for hash tables (SipHash-1-3
 * on 64-bit CPUs, half SipHash's cost per packet of a flood): its top bits
 * pick the bucket, its low 16 are the key's tag (the same bits only in a
 * table of over 2^16 buckets, where a tag then filters less).
 */
static bool mmb_meter_within(struct mmb_limit *l, const u64 key[2], u64 now, bool peek)
{
	/* A key but an IPv6 address is of 32 bits at most: hashed as one word. */
	u32 h = l->len == 16 ? hsiphash_4u32(lower_32_bits(key[0]), upper_32_bits(key[0]),
					     lower_32_bits(key[1]), upper_32_bits(key[1]),
					     &l->seed) :
			       hsiphash_1u32(key[0], &l->seed);
	u32 bi = reciprocal_scale(h, l->nbuckets);
	struct mmb_meter_head *hd = &l->head[bi];
	struct mmb_meter_slots *sl = &l->slots[bi];
	/* The last bucket has the rest of the size. */
	unsigned int n = min_t(u32, MMB_METER_WAYS, l->spec.size - bi * MMB_METER_WAYS);
	unsigned int tries, i, room;
	u16 tag = h;
	u32 s;
	int ret;

	/*
	 * A flood of new keys against a full table: no slot has the key's
	 * tag, every one was used, and none is idle before @busy: the
	 * bucket's head line, no loop. A slot is first given only once every
	 * slot before it was (mmb_meter_find()'s @room): the last one used
	 * says that all were.
	 */
	if (!mmb_meter_tag_in(hd, tag) && READ_ONCE(hd->seq[n - 1]) && mmb_meter_busy(hd, now))
		goto full;
	/*
	 * The key's slot, or an idle one: its time is read next (for reading:
	 * a key held beyond its rate only reads it, and its line stays shared
	 * by the CPUs its packets come in on).
	 */
	prefetch(sl->tat);
	for (tries = 0; tries < 4; tries++) {
		i = mmb_meter_find(hd, sl, n, key, tag, &s, &room);
		if (i < MMB_METER_WAYS) {
			if (peek)
				return mmb_bucket_peek(&sl->tat[i], l->cost, l->tau, now);
			ret = mmb_meter_slot_take(l, hd, sl, i, s, now);
			if (ret != MMB_METER_AGAIN)
				return ret == MMB_METER_WITHIN;
			continue;
		}
		/* A new key: no slot never used, and none idle before @busy? */
		if (room == MMB_METER_WAYS) {
			if (mmb_meter_busy(hd, now))
				break;
			room = mmb_meter_idle(hd, sl, n, now, &s, !peek);
		}
		if (peek)
			return room != MMB_METER_WAYS;
		if (room == MMB_METER_WAYS)
			break;
		if (mmb_meter_claim(l, hd, sl, room, s, key, tag, now))
			return true;
	}
full:
	if (!peek)
		raw_cpu_inc(l->pcpu->full);
	return false;
}

/*
 * Does the rule of limit @l apply to @pkt (whose other matches hold) at
 * @now: within the rate, or beyond it with "over"? Takes a token if
 * within. A packet without the meter's key: no.
 */
bool mmb_limit_take(struct mmb_limit *l, const struct mmb_pkt *pkt, u64 now)
{
	u64 key[2];

	if (!l->spec.meter)
		return mmb_bucket_take(&l->tat, l->cost, l->tau, now) != l->spec.over;
	if (!mmb_meter_key(l, pkt, key))
		return false;
	return mmb_meter_within(l, key, now, false) != l->spec.over;
}

/* The same, for a trace: nothing taken, no key given a slot. */
bool mmb_limit_peek(struct mmb_limit *l, const struct mmb_pkt *pkt, u64 now)
{
	u64 key[2];

	if (!l->spec.meter)
		return mmb_bucket_peek(&l->tat, l->cost, l->tau, now) != l->spec.over;
	if (!mmb_meter_key(l, pkt, key))
		return false;
	return mmb_meter_within(l, key, now, true) != l->spec.over;
}

/* Where a meter's key lies in the image, and its masks. */
static void mmb_limit_layout(struct mmb_limit *l)
{
	const struct mmb_field_info *f = mmb_field(l->spec.per);
	u8 am[16] = {};
	unsigned int i;

	l->img = f->img;
	l->len = f->len;
	l->shift = f->shift;
	l->family = f->family;
	l->l4 = f->l4;
	l->fmask = f->mask;
	if (f->len == 16) {
		for (i = 0; i < l->spec.plen; i++)
			am[i / 8] |= 0x80 >> (i % 8);
		memcpy(l->amask, am, sizeof(am));
		return;
	}
	/* A prefix of a value of f->bits bits: its top plen bits. */
	l->vmask = l->spec.plen ? GENMASK(f->bits - 1, f->bits - l->spec.plen) : 0;
}

/* The limit of a new rule, with full buckets; NULL without memory. */
struct mmb_limit *mmb_limit_new(const struct mmb_limit_spec *ls)
{
	struct mmb_limit *l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);

	if (!l)
		return NULL;
	l->spec = *ls;
	l->cost = div_u64((u64)ls->unit * NSEC_PER_SEC, ls->rate);
	l->tau = l->cost * ls->burst;
	l->precise = l->tau < 2 * TICK_NSEC;
	atomic64_set(&l->tat, 0);	/* long past: full */
	if (!ls->meter)
		return l;
	mmb_limit_layout(l);
	get_random_bytes(&l->seed, sizeof(l->seed));
	/* A head is one line (mmb_meter_tag_in() reads its tags as two words). */
	BUILD_BUG_ON(sizeof(struct mmb_meter_head) != 64);
	l->nbuckets = DIV_ROUND_UP(ls->size, MMB_METER_WAYS);
	l->pcpu = alloc_percpu_gfp(struct mmb_limit_pcpu, GFP_KERNEL_ACCOUNT);
	/* One allocation, the heads then the slots: 256 bytes a bucket. */
	l->head = kvcalloc(l->nbuckets, sizeof(*l->head) + sizeof(*l->slots),
			   GFP_KERNEL_ACCOUNT);
	if (!l->pcpu || !l->head) {
		mmb_limit_free(l);
		return NULL;
	}
	l->slots = (struct mmb_meter_slots *)(l->head + l->nbuckets);
	return l;
}

/* With its rule, after a grace period (softirq: kvfree() defers a vfree). */
void mmb_limit_free(struct mmb_limit *l)
{
	if (!l)
		return;
	kvfree(l->head);	/* and the slots */
	free_percpu(l->pcpu);
	kfree(l);
}

/* Do @a and @b (either NULL: none) limit alike? */
bool mmb_limit_same(const struct mmb_limit *a, const struct mmb_limit *b)
{
	if (!a || !b)
		return a == b;
	return a->spec.rate == b->spec.rate && a->spec.unit == b->spec.unit &&
	       a->spec.burst == b->spec.burst && a->spec.over == b->spec.over &&
	       a->spec.meter == b->spec.meter &&
	       (!a->spec.meter || (a->spec.per == b->spec.per && a->spec.plen == b->spec.plen &&
				   a->spec.size == b->spec.size));
}

/* @h and what limit @l (NULL: none) does, as mmb_limit_same() compares it. */
u32 mmb_limit_hash(const struct mmb_limit *l, u32 h)
{
	if (!l)
		return h;
	h = jhash_3words(l->spec.rate, l->spec.unit, l->spec.burst, h);
	if (!l->spec.meter)
		return jhash_1word(l->spec.over, h);
	return jhash_3words(l->spec.over | (u32)l->spec.plen << 8 | (u32)l->spec.per << 16,
			    l->spec.size, 1, h);
}
