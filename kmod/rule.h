/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: rules. A rule as given (a spec: what netlink carries and "list"
 * shows) is checked and compiled (rule.c) into a rule: the mask and key of
 * its exact part, where its tables keep it, and the matches left to check
 * per packet (match.c).
 */
#ifndef _MMB_RULE_H
#define _MMB_RULE_H

#include <linux/if.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>

#include "limit.h"
#include "ctcount.h"
#include "pkt.h"
#include "stats.h"

/* EtherTypes of MMB_FIELD_NET_PROTO's values. */
#define MMB_ETH_IP4	0x0800
#define MMB_ETH_IP6	0x86dd

/* A rule as given: what netlink carries, what "list" shows. */
#define MMB_MAX_MATCHES		32
#define MMB_MAX_TARGETS		16

struct mmb_match_spec {
	u16 field;
	u8 op;
	u8 plen;		/* prefix length of an address, else its bits */
	u8 vlen;		/* 0: a presence test (TCP options) */
	u8 kind;		/* of MMB_FIELD_TCP_OPT; 0: any option */
	u8 value[MMB_PAYLOAD_MAX];
};

/*
 * The value of an "in" or "out" match: the id of the name (be32,
 * ifname.c), then the name, NUL-padded. The spec carries the name; rule
 * creation puts the id, which the key holds, and the rule holds the name's
 * reference.
 */
#define MMB_IN_VLEN		(4 + IFNAMSIZ)

/* Does a match on @field name a device ("in", "out")? */
static inline bool mmb_field_is_dev(unsigned int field)
{
	return field == MMB_FIELD_IN || field == MMB_FIELD_OUT;
}

/* ifname.c: interface names and their ids */
extern u32 mmb_ifname_next;
u32 mmb_ifname_get(const char *name);
void mmb_ifname_put(const char *name);
u32 mmb_ifname_find(const char *name);
unsigned int mmb_ifname_count(void);
const char *mmb_ifname_invalid(const char *s, bool pattern);
bool mmb_ifname_is_pattern(const char *pat);
bool mmb_ifname_matches(const char *pat, const char *name);

/* A TCP option's data: 40 bytes of options, less kind and length. */
#define MMB_OPT_DATA_MAX	38

struct mmb_target_spec {
	u8 type;
	u16 field;
	u8 plen;
	u8 vlen;
	u8 kind;		/* of MMB_FIELD_TCP_OPT; 0: none (strip: all) */
	bool invert;		/* strip all but this option */
	u8 reject;		/* a reject's answer, enum mmb_reject */
	u32 rate;
	u8 value[MMB_OPT_DATA_MAX];
};

/* The mask and key of a rule's == matches: where its tables keep it. */
struct mmb_rule_image {
	struct mmb_key mask;
	struct mmb_key key;
};

struct mmb_rule_spec {
	unsigned int nmatches;
	unsigned int ntargets;
	bool stateful;
	u32 prio;
	u32 conn_prio;		/* of a stateful rule's connections */
	struct mmb_match_spec m[MMB_MAX_MATCHES];
	struct mmb_target_spec t[MMB_MAX_TARGETS];
	struct mmb_rule_image img;	/* of the rule created last from it */
	u8 clen;			/* bytes of @comment; 0: none */
	char comment[MMB_COMMENT_MAX + 1];
	struct mmb_limit_spec limit;	/* rate 0: none */
	struct mmb_cc_spec cc;		/* ct count (ctcount.h) */
	bool log;			/* log [prefix @log_prefix] [level @log_level] */
	u8 log_level;
	u8 log_plen;
	char log_prefix[MMB_LOG_PREFIX_MAX + 1];
	u32 log_rate, log_per, log_burst;	/* 0: the module's */
	bool offload;			/* its connections take the fast path */
};

/*
 * A meta-mark match or mod keeps its value and then its mask, be32 each
 * (netlink carries the mask apart: MMB_MATCH_A_MASK, MMB_TARGET_A_MASK).
 */
#define MMB_MARK_VLEN		8

/*
 * A match as a rule keeps it, 5 bytes. Its value, vlen bytes, is among the
 * rule's values (mmb_rule_values()), after those of the matches before it:
 * a walk over the matches steps over the values as it goes.
 */
struct mmb_match {
	u8 field;
	u8 op;
	u8 plen;
	u8 vlen;
	u8 kind;
};

/*
 * A target as a rule keeps it, 10 bytes; a mod's value is among the rule's
 * values. Accept, drop and reject are kept in the rule's flags instead.
 */
struct mmb_target {
	u8 type;
	u8 plen;
	u8 vlen;
	u8 kind;		/* of an option target on MMB_FIELD_TCP_OPT */
	u16 field;
	u16 voff;
	bool invert;		/* of a strip */
};

/*
 * A compiled rule, in one allocation: this header, its matches, its targets
 * (aligned) and their values (a five-tuple drop rule takes 103 bytes), then
 * its comment, if it has one, NUL-terminated. A
 * rule that accepts or drops (its only target then) keeps no target: its
 * flags and drop_rate say it (mmb_rule_verdict_only()). A rule with option
 * targets keeps the count of options it could not add after its values
 * (mmb_rule_nofit()): rare, so neither per CPU nor in every rule.
 * Immutable once published; each ruleset holding it holds a reference (a
 * transaction's new ruleset shares the old one's rules), and the last
 * reference frees it after a grace period. The mask and key of its ==
 * matches are not kept: mmb_rule_key() computes them again (a rule being
 * added takes them from its spec). A stateful rule has a word before its
 * header: its successor (mmb_rule_succ()).
 */
struct mmb_rule {
	u32 handle;
	refcount_t ref;
	u8 nmatches;
	u8 ntargets;
	u8 family;		/* 0, 4 or 6: what its fields pin it to */
	u8 l4;			/* 0 or an IP protocol, likewise */
	u8 cache;		/* of mmb_rule_caches[] it came from, + 1; 0: kmalloc */
	bool dead;		/* unpublished: its connections end (READ_ONCE) */
	bool accept:1;
	bool drop:1;
	bool rewrite:1;		/* rewrites each packet it matches (mod) */
	bool nat:1;		/* rewrites its connections' packets (map, shuffle) */
	bool stateful:1;	/* its matches create connections */
	bool opts:1;		/* has option targets that may change a list's length */
	bool out:1;		/* judges leaving packets (MMB_FIELD_LEAVING) */
	bool offload:1;		/* its connections take the fast path (offload.c) */
	u8 clen;		/* bytes of its comment, after the rest (mmb_rule_comment()) */
	u8 reject;		/* a drop that answers: enum mmb_reject + 1; 0: none */
	u32 slow;		/* bit i: match i is checked after the probe */
	u32 drop_rate;		/* millionths */
	u32 prio;		/* higher wins (docs/priorities.md) */
	u32 conn_prio;		/* its connections' later packets' (stateful) */
	struct mmb_pcpu_stats __percpu *stats;
	struct mmb_stats_block *sblk;	/* where @stats lives */
	struct rcu_head rcu;
	struct mmb_limit *limit;	/* its limit's buckets (limit.c), or NULL */
	struct mmb_cc *cc;	/* ct count: its key table, or NULL (ctcount.h) */
	struct mmb_log *log;	/* its log's words and bucket (log.c); NULL: none */
	struct mmb_match m[];	/* then the targets, the values, [nofit] */
};

/*
 * The successor of stateful @rule: the rule of the same content that a
 * transaction added as it took @rule out (a reload, mmb_rule_same()),
 * which @rule's connections go on with. NULL while @rule is published,
 * and for good if it ended (dead) instead. Set once, when the transaction
 * commits, with a reference that @rule drops when it is freed. It lives in
 * the word before the rule's header: only stateful rules pay for it.
 */
static inline struct mmb_rule __rcu **mmb_rule_succ(const struct mmb_rule *rule)
{
	return (struct mmb_rule __rcu **)rule - 1;
}

/*
 * What stateful @rule is now: the last of its successors, or itself. Its
 * connections judge and count by that rule, and show its handle; they end
 * if it is dead. Under RCU (a successor is freed a grace period after the
 * last rule before it is).
 */
static inline struct mmb_rule *mmb_rule_live(const struct mmb_rule *rule)
{
	struct mmb_rule *next;

	while ((next = rcu_dereference(*mmb_rule_succ(rule))))
		rule = next;
	return (struct mmb_rule *)rule;
}

/*
 * Is a target of @type on @field one of the option list's (strip, add, a
 * mod of an option other than MSS and window scale), applied after the
 * in-place rewrites?
 */
static inline bool mmb_target_is_opts(u8 type, u16 field)
{
	const struct mmb_field_info *f;

	if (type == MMB_TARGET_STRIP || type == MMB_TARGET_ADD)
		return true;
	if (type != MMB_TARGET_MOD)
		return false;
	f = mmb_field(field);
	return f && f->hdr == MMB_HDR_TCPOPT && !f->bits;
}

static inline const struct mmb_target *mmb_rule_targets(const struct mmb_rule *rule)
{
	return PTR_ALIGN((const struct mmb_target *)&rule->m[rule->nmatches],
			 __alignof__(struct mmb_target));
}

static inline const u8 *mmb_rule_values(const struct mmb_rule *rule)
{
	return (const u8 *)(mmb_rule_targets(rule) + rule->ntargets);
}

/*
 * Options @rule could not add, counted after its values; for a rule with
 * option targets (rule->opts) only.
 */
static inline atomic64_t *mmb_rule_nofit(const struct mmb_rule *rule)
{
	const struct mmb_target *last = &mmb_rule_targets(rule)[rule->ntargets - 1];

	return (atomic64_t *)PTR_ALIGN(mmb_rule_values(rule) + last->voff + last->vlen,
				       __alignof__(atomic64_t));
}

/* Bytes of @rule's values: its matches', then its targets'. */
unsigned int mmb_rule_values_len(const struct mmb_rule *rule);

/* @rule's comment ("" if none): its last bytes (rule.h's picture). */
static inline const char *mmb_rule_comment(const struct mmb_rule *rule)
{
	if (!rule->clen)
		return "";
	if (rule->opts)
		return (const char *)(mmb_rule_nofit(rule) + 1);
	return (const char *)mmb_rule_values(rule) + mmb_rule_values_len(rule);
}

/* Does @rule only count (MMB_TARGET_COUNT): no verdict, no target kept? */
static inline bool mmb_rule_count_only(const struct mmb_rule *rule)
{
	return !rule->ntargets && !rule->accept && !rule->drop;
}

/*
 * Does @rule, without residues where it is, match every packet that hits
 * its entry, and accept or drop each (no slow matches, no dice)?
 */
static __always_inline bool mmb_rule_sure(const struct mmb_rule *rule)
{
	return !rule->slow && !rule->stateful && !rule->limit && !rule->cc &&
	       (rule->accept || (rule->drop && rule->drop_rate >= MMB_RATE_ALWAYS));
}

/* Is a target "mod tcp-opt-mss pmtu" (0: from the route, leaving rules only)? */
static inline bool mmb_target_mss_pmtu(u8 type, u16 field, const u8 *value, u8 vlen)
{
	return type == MMB_TARGET_MOD && field == MMB_FIELD_TCP_OPT_MSS && vlen == 2 &&
	       !value[0] && !value[1];
}

/* Does @rule keep no target, accepting or dropping? */
static inline bool mmb_rule_verdict_only(const struct mmb_rule *rule)
{
	return !rule->ntargets;
}

static inline const u8 *mmb_target_value(const struct mmb_rule *rule,
					 const struct mmb_target *t)
{
	return mmb_rule_values(rule) + t->voff;
}

/*
 * What is wrong with a rule as given, for the caller to point at: the rule
 * as a whole, or match or target @index, or its field or its value. @msg is
 * static text; @text, if not empty, the same with the field named.
 */
enum {
	MMB_ERR_RULE,
	MMB_ERR_MATCH,
	MMB_ERR_MATCH_VALUE,
	MMB_ERR_TARGET,
	MMB_ERR_TARGET_FIELD,
	MMB_ERR_TARGET_VALUE,
	MMB_ERR_LIMIT,
	MMB_ERR_CTCOUNT,
};

struct mmb_rule_err {
	const char *msg;
	char text[80];
	u8 part;		/* MMB_ERR_* */
	u8 index;
};

static inline void mmb_rule_err(struct mmb_rule_err *err, int part, unsigned int index,
				const char *msg)
{
	if (err) {
		err->msg = msg;
		err->text[0] = '\0';
		err->part = part;
		err->index = index;
	}
}

struct mmb_rule *mmb_rule_create(struct mmb_rule_spec *spec, struct mmb_stats_pool *pool,
				 struct mmb_rule_err *err);
u32 mmb_rule_key(const struct mmb_rule *rule, struct mmb_key *mask, struct mmb_key *key);
bool mmb_match_mask(const struct mmb_rule *rule, const struct mmb_match *m, const u8 *value,
		    struct mmb_key *mask);
void mmb_rule_free(struct mmb_rule *rule);
int __init mmb_rule_caches_init(void);
void mmb_rule_caches_exit(void);
bool mmb_field_is_endpoint(unsigned int id);
bool mmb_field_is_addr(unsigned int id);
bool mmb_target_is_nat(const struct mmb_target *t, bool stateful);
void mmb_rule_put(struct mmb_rule *rule);
void mmb_rule_succeed(struct mmb_rule *rule, struct mmb_rule *heir);
void mmb_rule_drain(void);
u32 mmb_rule_hash(const struct mmb_rule *rule);
bool mmb_rule_same(const struct mmb_rule *a, const struct mmb_rule *b);
u32 mmb_value_u32(const u8 *v, unsigned int len);
int mmb_check_value(const struct mmb_field_info *f, unsigned int id,
		    const u8 *value, unsigned int vlen, unsigned int plen,
		    int part, unsigned int index, struct mmb_rule_err *err);

/* match.c: the datapath's per-candidate checks, the reference semantics */
bool mmb_op_holds(u8 op, int cmp);
bool mmb_rule_match_slow(const struct mmb_rule *rule, const struct mmb_pkt *pkt,
			 const struct sk_buff *skb);
bool mmb_match_holds(const struct mmb_match *m, const u8 *value, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb);
bool mmb_match_eval(const struct mmb_match_spec *m, const struct mmb_pkt *pkt,
		    const struct sk_buff *skb);

#endif /* _MMB_RULE_H */
