/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: ct count, a per-key cap on connections (ctcount.c;
 * docs/conncount.md is the user's side). A rule with "ct count [over] N
 * [per FIELD[/PREFIX]] [size N]" owns a key table, allocated with it:
 *
 *   mmb_cc ─ b[]: bucket ─ lock, slot[16]: key, count
 *
 * A key (the packet's PER address under PREFIX, or none) holds the count
 * of the live connections charged to it: those whose first packet matched
 * the rule's other matches, the rule then cut off by no verdict, that the
 * table confirmed. A connection keeps pointers to the slots it is charged
 * to (struct mmb_conn.cc), and gives them back, once (an xchg), when it
 * leaves the table or, TCP, closes. Counts change under the bucket's lock,
 * on first packets only; classification reads them without it.
 */
#ifndef _MMB_CTCOUNT_H
#define _MMB_CTCOUNT_H

#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>

struct mmb_conn;
struct mmb_rule;
struct mmb_rule_err;
struct mmb_verdict;
struct mmb_pkt;

/* Count rules a connection is charged to, at most. */
#define MMB_CC_CONN		3
/* Slots in a bucket: a key is kept in the bucket its hash names. */
#define MMB_CC_SLOTS		16

/* "ct count" as given: what netlink carries, what "list" shows. */
struct mmb_cc_spec {
	bool set;
	bool over;
	u8 plen;		/* of @per's address; its bits if not given */
	u16 per;		/* enum mmb_field, an address; 0: one key */
	u32 limit;
	u32 size;		/* keys; 0: the default (with @per), 1 without */
};

struct mmb_cc_slot {
	u32 key[4];		/* the address under the prefix, zero-padded */
	u32 count;		/* connections; 0: free (written under the lock) */
	u8 idx;			/* of this slot in its bucket */
};

struct mmb_cc_bucket {
	spinlock_t lock;	/* the counts of its slots, the keys of free ones */
	struct mmb_cc *cc;
	struct mmb_cc_slot s[MMB_CC_SLOTS];
};

/*
 * A rule's key table. Its rule and each charge hold a reference: a
 * connection may outlive the rule that counted it (a stateless one).
 */
struct mmb_cc {
	refcount_t ref;
	atomic_t keys;		/* slots in use, at most @size */
	u32 limit;
	u32 size;
	u32 mask;		/* buckets - 1 */
	u16 per;
	u8 plen;
	bool over;
	siphash_key_t seed;	/* per table: remote senders cannot aim at a bucket */
	struct rcu_head rcu;
	struct mmb_cc_bucket b[];
};

int mmb_cc_check(const struct mmb_cc_spec *s, bool stateful, bool out, u8 *family,
		 struct mmb_rule_err *err);
struct mmb_cc *mmb_cc_create(const struct mmb_cc_spec *s);
void mmb_cc_put(struct mmb_cc *cc);
void mmb_cc_spec_of(const struct mmb_cc *cc, struct mmb_cc_spec *s);
bool mmb_cc_same(const struct mmb_cc *a, const struct mmb_cc *b);
u32 mmb_cc_hash(const struct mmb_cc *cc, u32 h);

/* What a packet's key holds now: its count, and whether a new key finds room. */
struct mmb_cc_peek {
	bool key;		/* the packet has the key's field (its family) */
	bool room;		/* the key is there, or a free slot is */
	u32 count;
};

void mmb_cc_peek(const struct mmb_cc *cc, const struct mmb_pkt *pkt, struct mmb_cc_peek *p);
bool mmb_cc_holds(const struct mmb_cc *cc, const struct mmb_cc_peek *p, bool first);
bool mmb_cc_judge(const struct mmb_rule *rule, const struct mmb_pkt *pkt,
		  struct mmb_verdict *v);
int mmb_cc_charge(struct mmb_conn *c, const struct mmb_pkt *pkt, const struct mmb_verdict *v);
void mmb_cc_release(struct mmb_conn *c);
void mmb_cc_move(struct mmb_conn *to, struct mmb_conn *from);
struct mmb_conns;
bool mmb_cc_reborn(struct mmb_conns *mc, struct mmb_conn *c, u8 dir, const struct mmb_pkt *pkt);
u32 mmb_cc_count(const struct mmb_cc *cc, const struct mmb_pkt *pkt);

#endif /* _MMB_CTCOUNT_H */
