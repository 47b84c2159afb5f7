/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: the rules of a namespace (ruleset.c owns them) and the classifier
 * (classify.c) that judges packets by them.
 *
 * A namespace's rules are a struct mmb_rules: a lock, the ruleset the
 * datapath sees, and the next handle. Every change goes through a
 * transaction: one change made in place (add, del), published as it is
 * made, or a new ruleset built aside from a copy of the current one (a
 * batch) or from nothing (flush) and published whole at commit. Handles
 * are handed out, generations kept and old rulesets freed there and
 * nowhere else. The connection table's flush and GC will hang off the same
 * owner.
 */
#ifndef _MMB_RULESET_H
#define _MMB_RULESET_H

#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "rule.h"

struct mmb_ruleset;
struct mmb_conn;

/* The rules of a namespace. */
struct mmb_rules {
	struct mutex lock;		/* serialises changes and dumps */
	struct mmb_ruleset __rcu *cur;	/* what the datapath sees */
	u32 next_handle;		/* under lock; 0 once all are used */
};

int mmb_rules_init(struct mmb_rules *r);
void mmb_rules_exit(struct mmb_rules *r);

/* The ruleset the datapath sees; under RCU. */
static inline const struct mmb_ruleset *mmb_rules_get(const struct mmb_rules *r)
{
	return rcu_dereference(r->cur);
}

/* For dumps: the current ruleset, which stays while the lock is held. */
void mmb_rules_lock(struct mmb_rules *r);
void mmb_rules_unlock(struct mmb_rules *r);
struct mmb_ruleset *mmb_rules_locked(struct mmb_rules *r);

enum mmb_txn_how {
	MMB_TXN_INPLACE,	/* one change to the current ruleset */
	MMB_TXN_COPY,		/* a new ruleset, from a copy of the current one */
	MMB_TXN_EMPTY,		/* a new ruleset, from nothing */
};

struct mmb_heir;

/*
 * A transaction; the owner's lock is held from begin to commit (or its
 * first half, publish) or abort.
 */
struct mmb_txn {
	struct mmb_rules *r;
	struct mmb_ruleset *rs;		/* where changes go */
	u32 next_handle;
	u32 first;			/* the first handle it could hand out */
	bool aside;			/* @rs is new: published at commit */
	bool prepared;			/* @heirs are known */
	bool rebuilt;			/* aside: its tables were built again */
	unsigned int ended;		/* stateful rules it ended, after commit */
	unsigned int nheirs;
	struct mmb_heir *heirs;		/* the stateful rules it added, by content */
	struct mmb_ruleset *old;	/* replaced, until mmb_txn_finish() */
};

int mmb_txn_begin(struct mmb_rules *r, struct mmb_txn *t, enum mmb_txn_how how);
int mmb_txn_begin_batch(struct mmb_rules *r, struct mmb_txn *t, enum mmb_txn_how how,
			unsigned int nops);
int mmb_txn_add(struct mmb_txn *t, struct mmb_rule *rule, const struct mmb_rule_image *img);
int mmb_txn_del(struct mmb_txn *t, u32 handle);
int mmb_txn_flush(struct mmb_txn *t);
int mmb_txn_prepare(struct mmb_txn *t);
void mmb_txn_publish(struct mmb_txn *t);
void mmb_txn_finish(struct mmb_txn *t);
void mmb_txn_commit(struct mmb_txn *t);
void mmb_txn_abort(struct mmb_txn *t);
void mmb_rules_barrier(void);

/* Reading a ruleset: writers, dumps (under the lock), and tests. */
struct mmb_rule *mmb_ruleset_find(struct mmb_ruleset *rs, u32 handle);
struct mmb_rule *mmb_ruleset_next(struct mmb_ruleset *rs, u32 *handle);
unsigned int mmb_ruleset_count(const struct mmb_ruleset *rs);
unsigned int mmb_ruleset_stateful(const struct mmb_ruleset *rs);
unsigned int mmb_ruleset_out(const struct mmb_ruleset *rs);
unsigned int mmb_ruleset_nat(const struct mmb_ruleset *rs);
unsigned int mmb_ruleset_outsf(const struct mmb_ruleset *rs);
unsigned long mmb_ruleset_gen(const struct mmb_ruleset *rs);

/* What "show tables" reports of one mask (table.c). */
struct mmb_table_info {
	unsigned int entries;
	unsigned int rules;
	unsigned int buckets;
	unsigned int chain_max;	/* most entries in one bucket */
	unsigned int merged_max;	/* most rules with residues in one entry */
	u32 prio;			/* at least its rules' highest */
	u64 hits;
	const struct mmb_rule *first;	/* its == matches name the mask's fields */
	struct mmb_key mask;		/* within the mask of each of its rules */
};

int mmb_ruleset_table(struct mmb_ruleset *rs, unsigned int index,
		      struct mmb_table_info *info);

/*
 * Which of a connection's rewrites a packet gets at a hook (mmb_nat_manip()),
 * as netfilter splits them: the destination (and the offsets) where it
 * first meets mmb, before routing; the source as it leaves, after routing.
 */
#define MMB_MANIP_DST		0x01	/* destination address and port, offsets */
#define MMB_MANIP_SRC		0x02	/* source address and port */
#define MMB_MANIP_ALL		(MMB_MANIP_DST | MMB_MANIP_SRC)

/*
 * The verdict of every rule a packet matches: that of the highest priority
 * among the rules that accept or drop it (@prio), where accept beats
 * drop; drop beats rewrites; and the rules with rewrites of that priority
 * or higher (until mmb_verdict_settle(), some of lower priority too), by
 * descending priority (@rwprio), then handle. Rules of lower priority than
 * a verdict are cut off: they do not apply. @floor is 1 + the highest
 * priority a rule decided at whose match the header image under the
 * tables' masks decides alone (no slow matches, no residues, no dice):
 * the lookup stops before a table of lower priority. A packet of
 * a known connection (@conn, in direction @dir) gets its connection's rules
 * too, and stateful rules do not apply to it again; one of no connection
 * collects the stateful rules it matches (@sf, the lowest handles), for
 * the connection it starts, and gets their accept and drop only if it may
 * start one (mmb_conn_verdict()); no connection is made if there are more
 * (@sf_lost). An ICMP error @related to @conn gets only its rules' accept
 * and drop. A drop at @prio by a rule that rejects (the lowest handle of
 * those) answers the packet (@reject).
 */
struct mmb_verdict {
	bool accept;
	bool drop;
	bool related;
	bool trace;		/* a trace's: counts nothing */
	bool out;		/* a leaving packet's, in the egress hook */
	bool seen;		/* ...that mmb judged as it arrived (forwarded) */
	bool bind;		/* ...the first of @conn, judged leaving now (conn.c) */
	bool bound;		/* ...and bound: @manip is set */
	bool held;		/* ...a copy of one whose judgement another CPU holds */
	bool outsf;		/* the ruleset has stateful leaving rules */
	u8 manip;		/* of @conn's mapping, what this hook does (MMB_MANIP_*) */
	u8 dir;
	u8 nsf;
	bool sf_lost;		/* more stateful rules matched than @sf holds */
	u8 ncnt;		/* of @cnt */
	unsigned int nrw;
	u32 prio;		/* of @accept and @drop, when either is set */
	u64 floor;
	struct mmb_conn *conn;
	const struct mmb_rule *reject;	/* of the drops at @prio, the first rejecting one */
	const struct mmb_rule *sf[MMB_CONN_RULES];
#define MMB_MAX_REWRITES 32
	const struct mmb_rule *rw[MMB_MAX_REWRITES];
	u32 rwprio[MMB_MAX_REWRITES];
	/* rules with a limit whose matches hold, asked once the tables are probed */
#define MMB_MAX_LIMITS 8
	unsigned int nlim;
	u32 limprio;		/* the highest of theirs, when @nlim */
	const struct mmb_rule *lim[MMB_MAX_LIMITS];
	/*
	 * Rules that applied below @limprio, counted (and logged) once the
	 * limits have decided, if their verdict left them uncut.
	 */
#define MMB_MAX_COUNTS 8
	const struct mmb_rule *cnt[MMB_MAX_COUNTS];
	u8 ncc;			/* ct count rules a packet of no connection met */
	u8 cc_held;		/* bit i: @cc[i]'s cap let it through */
	bool cc_lost;		/* more than @cc holds */
	const struct mmb_rule *cc[MMB_CC_CONN];
};

static inline void mmb_verdict_init(struct mmb_verdict *v)
{
	v->accept = false;
	v->drop = false;
	v->related = false;
	v->trace = false;
	v->out = false;
	v->seen = false;
	v->bind = false;
	v->bound = false;
	v->held = false;
	v->outsf = false;
	v->manip = MMB_MANIP_ALL;	/* traces and tests: all at once */
	v->nsf = 0;
	v->sf_lost = false;
	v->nrw = 0;
	v->nlim = 0;
	v->ncnt = 0;
	v->prio = 0;
	v->floor = 0;
	v->conn = NULL;
	v->reject = NULL;
	v->ncc = 0;
	v->cc_held = 0;
	v->cc_lost = false;
}

/* Is a rule of priority @prio cut off by @v's verdict so far? */
static __always_inline bool mmb_verdict_cut(const struct mmb_verdict *v, u32 prio)
{
	return (v->accept || v->drop) && prio < v->prio;
}

/*
 * An accept or a drop (not neither) at priority @prio: it replaces a
 * verdict of lower priority, joins one of its own, and is cut off by one
 * of higher.
 */
static __always_inline void mmb_verdict_decide(struct mmb_verdict *v, u32 prio, bool accept,
					       bool drop)
{
	if (v->accept || v->drop) {
		if (prio < v->prio)
			return;
		if (prio > v->prio) {
			v->accept = false;
			v->drop = false;
			v->reject = NULL;
		}
	}
	v->prio = prio;
	v->accept |= accept;
	v->drop |= drop;
}

void mmb_verdict_judge(struct mmb_verdict *v, const struct mmb_rule *rule);
void mmb_verdict_judge_at(struct mmb_verdict *v, const struct mmb_rule *rule, u32 prio);
void mmb_verdict_add(struct mmb_verdict *v, const struct mmb_rule *rule);
void mmb_verdict_rewrites(struct mmb_verdict *v, const struct mmb_rule *rule);
void mmb_verdict_rewrites_at(struct mmb_verdict *v, const struct mmb_rule *rule, u32 prio);
void mmb_verdict_settle(struct mmb_verdict *v);

int __init mmb_tables_init(void);
void mmb_tables_exit(void);
int __init mmb_rules_module_init(void);
void mmb_rules_module_exit(void);
extern unsigned int mmb_cache_entries;
bool mmb_ruleset_cache_stats(const struct mmb_ruleset *rs, u64 *hits, u64 *misses);
bool mmb_ruleset_meter_counts(struct mmb_ruleset *rs, u64 *evicted, u64 *full);
void mmb_classify_rules(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
			struct sk_buff *skb, struct mmb_verdict *v);

void mmb_classify_each(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
		       const struct sk_buff *skb,
		       void (*fn)(void *arg, const struct mmb_rule *rule), void *arg);

/* The verdict of the rules alone, from a fresh @v (tests, benchmarks). */
static inline void mmb_classify(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
				struct sk_buff *skb, struct mmb_verdict *v)
{
	mmb_verdict_init(v);
	mmb_classify_rules(rs, pkt, skb, v);
}

#endif /* _MMB_RULESET_H */
