// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: ct count, a per-key cap on connections (ctcount.h has the picture;
 * docs/conncount.md the user's side).
 *
 *   classify   mmb_cc_judge(): a rule with a count matches a packet only
 *              if its key's count (with the packet's own connection, for a
 *              packet of none) is within the cap (or, "over", beyond it);
 *              a packet of no connection notes the rule in its verdict
 *   create     mmb_cc_charge(): before the connection goes into the table,
 *              each noted rule that no verdict cut off is charged, under
 *              its bucket's lock; a rule whose cap let the packet through
 *              is charged only within the cap (two CPUs racing for the
 *              last place: one gets it, the other's packet is dropped)
 *   end        mmb_cc_release(): every way a connection leaves the table
 *              (conn.c: mmb_conn_unlink(), mmb_conn_free()) and a TCP
 *              close (time-wait, close: connstate.c) give its charges
 *              back, once: whoever takes a pointer out (xchg) gives it
 *
 * No allocation on the packet path: the table is allocated with its rule,
 * and a key that finds no room (@size keys held, or its bucket full) is
 * counted as over its cap: a flood of new keys fills the table up to its
 * size and no further, and cannot push out the keys it holds.
 */
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "conn.h"
#include "rule.h"
#include "ruleset.h"

/* Is @per a field a count may be kept per (an address)? */
static bool mmb_cc_field_ok(u16 per)
{
	return per == MMB_FIELD_IP_SADDR || per == MMB_FIELD_IP_DADDR ||
	       per == MMB_FIELD_IP6_SADDR || per == MMB_FIELD_IP6_DADDR;
}

/*
 * "ct count" of a rule (@stateful, leaving if @out): sane, and the family
 * its PER field pins the rule to (as a match on that field would).
 */
int mmb_cc_check(const struct mmb_cc_spec *s, bool stateful, bool out, u8 *family,
		 struct mmb_rule_err *err)
{
	const struct mmb_field_info *f;

	if (!s->set)
		return 0;
	if (out) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0,
			     "ct count judges arriving packets: not in a leaving rule (out, leaving)");
		return -EINVAL;
	}
	if (s->limit > MMB_CTCOUNT_LIMIT_MAX || (!s->limit && !s->over)) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0,
			     "ct count takes 1 to 16777215 connections (over: 0 to 16777215)");
		return -EINVAL;
	}
	if (s->over && stateful) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0,
			     "ct count over in a stateful rule would start the connections it counts only once over: use add, with a verdict (drop, reject)");
		return -EINVAL;
	}
	if (!s->per) {
		if (s->size > 1 || s->plen) {
			mmb_rule_err(err, MMB_ERR_CTCOUNT, 0,
				     "ct count without per keeps one count: no size, no prefix");
			return -EINVAL;
		}
		return 0;
	}
	if (!mmb_cc_field_ok(s->per)) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0,
			     "ct count per takes an address: ip-saddr, ip-daddr, ip6-saddr, ip6-daddr");
		return -EINVAL;
	}
	f = mmb_field(s->per);
	if (s->plen > f->bits) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0, "ct count per: prefix longer than the address");
		return -EINVAL;
	}
	if (s->size > MMB_CTCOUNT_SIZE_MAX) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0, "ct count size: 1 to 1048576 keys");
		return -EINVAL;
	}
	if (*family && *family != f->family) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0,
			     "ct count per: an address of another family than the rule's");
		return -EINVAL;
	}
	*family = f->family;
	return 0;
}

/* A key table for checked @s, empty; NULL without memory. Process context. */
struct mmb_cc *mmb_cc_create(const struct mmb_cc_spec *s)
{
	u32 size = s->per ? (s->size ?: MMB_CTCOUNT_SIZE_DEFAULT) : 1;
	/* Twice the slots of the keys, at least one bucket. */
	u32 nb = max_t(u32, roundup_pow_of_two(size) * 2 / MMB_CC_SLOTS, 1);
	struct mmb_cc *cc;
	u32 i, j;

	cc = kvzalloc(struct_size(cc, b, nb), GFP_KERNEL_ACCOUNT);
	if (!cc)
		return NULL;
	refcount_set(&cc->ref, 1);
	atomic_set(&cc->keys, 0);
	cc->limit = s->limit;
	cc->size = size;
	cc->mask = nb - 1;
	cc->per = s->per;
	cc->plen = s->per ? (s->plen ?: mmb_field(s->per)->bits) : 0;
	cc->over = s->over;
	get_random_bytes(&cc->seed, sizeof(cc->seed));
	for (i = 0; i < nb; i++) {
		spin_lock_init(&cc->b[i].lock);
		cc->b[i].cc = cc;
		for (j = 0; j < MMB_CC_SLOTS; j++)
			cc->b[i].s[j].idx = j;
	}
	return cc;
}

/*
 * Drop a reference: the rule's, or a charge's. Any context: the last may
 * be a connection's, ended under RCU by the collector or a flush, where a
 * vmalloc()ed table cannot be freed at once.
 */
void mmb_cc_put(struct mmb_cc *cc)
{
	if (cc && refcount_dec_and_test(&cc->ref))
		kvfree_rcu(cc, rcu);
}

/* @cc as given (list, dump): the prefix only if it is not the whole address. */
void mmb_cc_spec_of(const struct mmb_cc *cc, struct mmb_cc_spec *s)
{
	*s = (struct mmb_cc_spec){
		.set = true, .over = cc->over, .per = cc->per, .limit = cc->limit,
		.size = cc->per ? cc->size : 0,
		.plen = cc->per && cc->plen != mmb_field(cc->per)->bits ? cc->plen : 0,
	};
}

/* Do @a and @b count alike (a reload's mmb_rule_same())? Either may be NULL. */
bool mmb_cc_same(const struct mmb_cc *a, const struct mmb_cc *b)
{
	if (!a || !b)
		return a == b;
	return a->limit == b->limit && a->over == b->over && a->per == b->per &&
	       a->plen == b->plen && a->size == b->size;
}

u32 mmb_cc_hash(const struct mmb_cc *cc, u32 h)
{
	if (!cc)
		return h;
	return jhash_3words(cc->limit, cc->size, cc->per | (u32)cc->plen << 16 |
			    (u32)cc->over << 24, h);
}

/* @pkt's key: its PER address under the prefix; false if it has none. */
static bool mmb_cc_key(const struct mmb_cc *cc, const struct mmb_pkt *pkt, u32 *key)
{
	const struct mmb_field_info *f;
	u8 *k = (u8 *)key;
	unsigned int i;

	memset(key, 0, 16);
	if (!cc->per)
		return true;
	f = mmb_field(cc->per);
	if (pkt->key.b[MMB_IMG_FAMILY] != f->family)
		return false;
	for (i = 0; i < f->len; i++)
		k[i] = pkt->key.b[f->img + i] & mmb_prefix_mask(cc->plen, i);
	return true;
}

static struct mmb_cc_bucket *mmb_cc_bucket(const struct mmb_cc *cc, const u32 *key)
{
	return (struct mmb_cc_bucket *)&cc->b[siphash(key, 16, &cc->seed) & cc->mask];
}

static bool mmb_cc_key_is(const struct mmb_cc_slot *s, const u32 *key)
{
	return READ_ONCE(s->key[0]) == key[0] && READ_ONCE(s->key[1]) == key[1] &&
	       READ_ONCE(s->key[2]) == key[2] && READ_ONCE(s->key[3]) == key[3];
}

/*
 * Without the lock (classification): the count of @pkt's key, and whether
 * a new key would find room. A change on another CPU meanwhile may be
 * missed; the charge, under the lock, decides.
 */
void mmb_cc_peek(const struct mmb_cc *cc, const struct mmb_pkt *pkt, struct mmb_cc_peek *p)
{
	const struct mmb_cc_bucket *b;
	u32 key[4], n;
	unsigned int i;

	p->count = 0;
	p->room = false;
	p->key = mmb_cc_key(cc, pkt, key);
	if (!p->key)
		return;
	b = mmb_cc_bucket(cc, key);
	for (i = 0; i < MMB_CC_SLOTS; i++) {
		n = smp_load_acquire(&b->s[i].count);	/* the key is written before it */
		if (!n) {
			p->room = true;
			continue;
		}
		if (mmb_cc_key_is(&b->s[i], key)) {
			p->count = n;
			p->room = true;
			return;
		}
	}
	if (atomic_read(&cc->keys) >= cc->size)
		p->room = false;
}

/*
 * Does the count @p hold, for a packet that would start a connection
 * (@first: its own counts too) or one of a connection? A new key that
 * finds no room is over any cap.
 */
bool mmb_cc_holds(const struct mmb_cc *cc, const struct mmb_cc_peek *p, bool first)
{
	u64 n = (u64)p->count + first;

	if (first && !p->room)
		return cc->over;
	return cc->over ? n > cc->limit : n <= cc->limit;
}

/*
 * Classification: does @rule's count let it match @pkt, whose other
 * matches it holds? A packet of no connection notes @rule in @v, to be
 * charged if it starts one; with the cap that let it through if the rule
 * is not "over". A stateful rule is ignored by packets of a connection.
 */
bool mmb_cc_judge(const struct mmb_rule *rule, const struct mmb_pkt *pkt,
		  struct mmb_verdict *v)
{
	struct mmb_cc_peek p;
	bool holds;

	if (v->conn && !v->bind && rule->stateful)
		return true;
	mmb_cc_peek(rule->cc, pkt, &p);
	if (!p.key)
		return false;
	holds = mmb_cc_holds(rule->cc, &p, !v->conn);
	if (v->conn)
		return holds;
	if (v->ncc == MMB_CC_CONN) {
		v->cc_lost = true;
		return holds;
	}
	if (holds && !rule->cc->over)
		v->cc_held |= BIT(v->ncc);
	v->cc[v->ncc++] = rule;
	return holds;
}

/*
 * Charge @pkt's key in @cc: one more connection, within the cap if
 * @capped; the slot, or NULL (over the cap, or no room for a new key).
 * Takes a reference on @cc for the charge.
 */
static struct mmb_cc_slot *mmb_cc_take(struct mmb_cc *cc, const struct mmb_pkt *pkt,
				       bool capped)
{
	struct mmb_cc_slot *s, *free = NULL;
	struct mmb_cc_bucket *b;
	unsigned int i;
	u32 key[4];

	if (!mmb_cc_key(cc, pkt, key))
		return NULL;
	b = mmb_cc_bucket(cc, key);
	spin_lock_bh(&b->lock);
	for (i = 0; i < MMB_CC_SLOTS; i++) {
		s = &b->s[i];
		if (!s->count) {
			free = free ?: s;
			continue;
		}
		if (mmb_cc_key_is(s, key)) {
			if (capped && s->count >= cc->limit) {
				spin_unlock_bh(&b->lock);
				return NULL;
			}
			WRITE_ONCE(s->count, s->count + 1);
			goto out;
		}
	}
	if (!free)
		goto full;
	if (atomic_inc_return(&cc->keys) > cc->size) {
		atomic_dec(&cc->keys);
		goto full;
	}
	s = free;
	for (i = 0; i < 4; i++)
		WRITE_ONCE(s->key[i], key[i]);
	smp_store_release(&s->count, 1);	/* the key before the count: mmb_cc_peek() */
out:
	spin_unlock_bh(&b->lock);
	refcount_inc(&cc->ref);
	return s;
full:
	spin_unlock_bh(&b->lock);
	return NULL;
}

/* Give back the charge of slot @s, and its reference on its table. */
static void mmb_cc_give(struct mmb_cc_slot *s)
{
	struct mmb_cc_bucket *b = container_of(s - s->idx, struct mmb_cc_bucket, s[0]);
	struct mmb_cc *cc = b->cc;

	spin_lock_bh(&b->lock);
	if (!WARN_ON_ONCE(!s->count)) {
		WRITE_ONCE(s->count, s->count - 1);
		if (!s->count)
			atomic_dec(&cc->keys);
	}
	spin_unlock_bh(&b->lock);
	mmb_cc_put(cc);
}

/*
 * Charge new connection @c, not in the table yet, to the count rules its
 * first packet @pkt noted in @v that no verdict cut off. 0, or -ENOSPC:
 * more count rules than a connection keeps, or a cap that let the packet
 * through is reached meanwhile (another CPU's connection took the last
 * place). On an error the caller frees @c, which gives back what it took.
 */
int mmb_cc_charge(struct mmb_conn *c, const struct mmb_pkt *pkt, const struct mmb_verdict *v)
{
	struct mmb_cc_slot *s;
	unsigned int i, n = 0;

	if (unlikely(v->cc_lost)) {
		net_warn_ratelimited("mmb: a packet matched more than %u ct count rules, dropping it\n",
				     MMB_CC_CONN);
		return -ENOSPC;
	}
	for (i = 0; i < v->ncc; i++) {
		const struct mmb_rule *rule = v->cc[i];
		bool capped = v->cc_held & BIT(i);

		if (mmb_verdict_cut(v, rule->prio))
			continue;
		s = mmb_cc_take(rule->cc, pkt, capped);
		if (s)
			c->cc[n++] = s;
		else if (capped)
			return -ENOSPC;
	}
	if (n)
		__set_bit(MMB_CONN_COUNTED, &c->status);	/* not published yet */
	return 0;
}

/*
 * A SYN of the original direction on counted TCP connection @c, closed
 * (its places given back): mmb would take it as a new incarnation of @c,
 * which nothing would count. @c ends instead (as nf_conntrack ends the old
 * entry), and the SYN is judged as the first packet of a new connection.
 */
bool mmb_cc_reborn(struct mmb_conns *mc, struct mmb_conn *c, u8 dir, const struct mmb_pkt *pkt)
{
	u8 state = READ_ONCE(c->state);
	u8 flags = pkt->key.b[MMB_IMG_L4_HI + 9];	/* byte 13 of the TCP header */

	if (dir != MMB_DIR_ORIG || c->orig.t.proto != IPPROTO_TCP ||
	    (state != MMB_CONN_TCP_TIME_WAIT && state != MMB_CONN_TCP_CLOSE) ||
	    !(pkt->key.b[MMB_IMG_FLAGS] & MMB_KF_L4) ||
	    (flags & (TCPHDR_SYN | TCPHDR_ACK | TCPHDR_RST | TCPHDR_FIN)) != TCPHDR_SYN)
		return false;
	mmb_conn_kill(mc, c, MMB_CSTAT_ENDED);
	return true;
}

/* @c's charges, given back; once, whoever calls first. */
void mmb_cc_release(struct mmb_conn *c)
{
	struct mmb_cc_slot *s;
	unsigned int i;

	for (i = 0; i < MMB_CC_CONN; i++) {
		s = xchg(&c->cc[i], NULL);
		if (s)
			mmb_cc_give(s);
	}
}

/* @from is replaced in the table by @to: its charges go with it. */
void mmb_cc_move(struct mmb_conn *to, struct mmb_conn *from)
{
	unsigned int i;

	for (i = 0; i < MMB_CC_CONN; i++)
		to->cc[i] = xchg(&from->cc[i], NULL);
}

/* The count of @pkt's key (trace); 0 if it has none. */
u32 mmb_cc_count(const struct mmb_cc *cc, const struct mmb_pkt *pkt)
{
	struct mmb_cc_peek p;

	mmb_cc_peek(cc, pkt, &p);
	return p.count;
}
