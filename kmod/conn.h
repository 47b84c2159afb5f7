/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: the connection table of a namespace (conn.c), the life of a
 * connection (connstate.c) and its part in a packet's verdict.
 *
 *   mmb_conns ─ ht (rhashtable) ─ node: orig ──┐
 *       │                       └ node: reply ─┴─ mmb_conn ─ rules[] ─ rule
 *       ├─ count, max, timeouts[state], tcp_loose, rpf
 *       └─ gc: a delayed work that walks the table in slices
 *
 * A connection is in the table twice, under the tuple of each direction,
 * so that a packet finds it, and its direction, with one lookup. Lookups
 * run under RCU without a lock; inserts and removals take the table's
 * bucket locks (rhashtable), and the one of two CPUs that loses the race to
 * create a connection uses the winner's. A connection's state changes
 * under its own lock (a bit spinlock), taken only when a packet changes
 * it. It ends when it expires (checked on every lookup: an expired
 * connection is never used), when one of its rules ends, or on a flush;
 * it is freed a grace period after it left the table. It enters the table
 * in two steps, its reply node then its original one, and is CONFIRMED after
 * both: until then no packet uses it, and whoever ends it only marks it
 * DYING, for its creator to take it out once both nodes are in.
 *
 * The hash is hsiphash (SipHash-1-3 on 64-bit), keyed by a boot-time secret
 * mixed with the table's own random seed (rhashtable's, new for every
 * namespace and on every rehash): remote senders cannot aim tuples at one
 * bucket. An IPv4 tuple is hashed by its bytes that are not padding.
 */
#ifndef _MMB_CONN_H
#define _MMB_CONN_H

#include <linux/rhashtable.h>
#include <linux/workqueue.h>

#include "ruleset.h"

enum {
	MMB_DIR_ORIG,		/* as the first packet went */
	MMB_DIR_REPLY,
};

/*
 * What identifies a direction of a connection: addresses, ports (an echo's
 * identifier as the source port of requests and the destination port of
 * replies), family and protocol; MMB_TUPLE_LEN bytes, zero-padded. @dir
 * is not part of it: it says which of its connection's tuples this is.
 */
struct mmb_tuple {
	union {
		__be32 ip;
		struct in6_addr in6;
	} src, dst;
	__be16 sport;
	__be16 dport;
	u8 family;		/* 4 or 6 */
	u8 proto;
	u8 dir;			/* MMB_DIR_* */
	u8 pad;
};

#define MMB_TUPLE_LEN	offsetof(struct mmb_tuple, dir)

/* The identity of two tuples: four words and the first six bytes of the fifth. */
static inline bool mmb_tuple_equal(const struct mmb_tuple *a, const struct mmb_tuple *b)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;
#ifdef __LITTLE_ENDIAN
	const u64 tail = 0x0000ffffffffffffULL;
#else
	const u64 tail = 0xffffffffffff0000ULL;
#endif

	BUILD_BUG_ON(sizeof(struct mmb_tuple) != 40 || MMB_TUPLE_LEN != 38);
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) |
		 ((x[4] ^ y[4]) & tail));
}

struct mmb_conn_node {
	struct rhash_head node;
	struct mmb_tuple t;
};

/* Bits of mmb_conn.status. */
enum {
	MMB_CONN_DYING,		/* leaving the table: no packet may use it */
	MMB_CONN_SEEN_REPLY,	/* a packet went the other way */
	MMB_CONN_ASSURED,	/* seen both ways and, TCP, established once */
	MMB_CONN_LOCKED,	/* bit_spin_lock(): changes of state and fin */
	MMB_CONN_MAPPED,	/* NAT: the reply tuple is not the original inverted */
	MMB_CONN_EXT,		/* a struct mmb_conn_ext, with offsets (nat.h) */
	MMB_CONN_CONFIRMED,	/* in the table both ways: whoever ends it unlinks it */
	MMB_CONN_UNLINKED,	/* taken out of the table (once), freed after a grace period */
	MMB_CONN_SNAT_ORIG,	/* NAT: the original direction leaves by an enabled device... */
	MMB_CONN_SNAT_REPLY,	/* ...the reply one too: its egress hook maps the source */
	MMB_CONN_MASQ,		/* masquerade: ends when its address leaves the host */
	/*
	 * The leaving judgement of a connection an arriving rule started: its
	 * first packet, as it leaves by an enabled device, is judged by the
	 * leaving stateful rules too, once (conn.c, mmb_conn_bind()).
	 */
	MMB_CONN_OUT_CLAIM,	/* a CPU took it (or it started leaving) */
	MMB_CONN_OUT_DONE,	/* it is over: the connection is judged both ways */
	MMB_CONN_OUT_PENDING,	/* its first packet leaves by an enabled device: no
				 * packet of the reply direction is its own until DONE
				 */
	MMB_CONN_COUNTED,	/* charged to ct count rules (ctcount.c) */
	MMB_CONN_OFFLOAD,	/* an offload rule's: a struct mmb_conn_ext, whose
				 * routes the fast path caches (offload.c)
				 */
	MMB_CONN_LOOSE,		/* TCP picked up mid-stream: window scales unknown */
	MMB_CONN_OFFS_ORIG,	/* NAT: the original direction's offsets, and... */
	MMB_CONN_OFFS_REPLY,	/* ...the reply's, are the egress hook's (nat.c) */
};

/*
 * mmb_conn.fin of a TCP connection: BIT(dir) for each direction that sent
 * a FIN, and MMB_FIN_LAST if the second one came from the reply direction.
 */
#define MMB_FIN_LAST	0x4

/*
 * What a TCP connection keeps of a direction's sequence space (as
 * nf_conntrack's ip_ct_tcp_state), to tell a segment in the window, a
 * RST above all, from a blind one (connstate.c).
 */
struct mmb_tcp_win {
	u32 end;		/* the highest seq + len this direction sent */
	u32 maxend;		/* the highest ack + window the other way allows */
	u32 maxwin;		/* the largest window this direction advertised */
	u32 maxack;		/* the highest ack this direction sent */
};

/* Both directions of a TCP connection; by direction, what fits in bytes. */
struct mmb_tcp_track {
	struct mmb_tcp_win win[2];
	u8 wscale[2];		/* its window scale, from its SYN */
	u8 flags[2];		/* MMB_WIN_* */
};

/* Bits of mmb_tcp_track.flags. */
#define MMB_WIN_SEEN	0x01	/* end and maxend are known */
#define MMB_WIN_WSCALE	0x02	/* its SYN offered a window scale */
#define MMB_WIN_MAXACK	0x04	/* maxack is known */

/*
 * Four cache lines: a packet of the original direction reads the first
 * (its tuple, timeout and status) and writes the third (counters; its
 * rules are read there too); one of the reply direction reads the second
 * as well, and @iif of the fourth. The fourth is read by TCP segments
 * that move the window or end the connection, and when a connection
 * starts. The state's lock is a bit of @status.
 */
struct mmb_conn {
	struct mmb_conn_node orig;	/* MMB_DIR_ORIG */
	u32 timeout;			/* jiffies at which it expires */
	u8 state;			/* enum mmb_conn_state */
	u8 fin;				/* TCP: BIT(dir) per FIN, MMB_FIN_LAST */
	u8 nrules;
	unsigned long status;		/* MMB_CONN_* bits */

	struct mmb_conn_node reply;	/* MMB_DIR_REPLY */
	struct rcu_head rcu;

	atomic64_t packets[2];		/* by direction */
	atomic64_t bytes[2];
	struct mmb_rule *rules[MMB_CONN_RULES];	/* references held */

	/* The fourth line: what only some packets read. */
	struct mmb_tcp_track tcp;	/* TCP: each direction's sequence window */
	/*
	 * The device the original direction came in on, where replies may not
	 * come in (mmb_conn_iif()); 0 if they may: the route to the reply's
	 * source goes out of it too (a one-armed router), or rp-filter is off.
	 */
	int iif;
	struct mmb_cc_slot *cc[MMB_CC_CONN];	/* ct count charges (ctcount.c) */
};

/* Counters of a connection table, per CPU. */
enum mmb_conn_stat {
	MMB_CSTAT_CREATED,
	MMB_CSTAT_EVICTED,
	MMB_CSTAT_REFUSED,
	MMB_CSTAT_EXPIRED,
	MMB_CSTAT_ENDED,
	MMB_CSTAT_NOMEM,
	MMB_CSTAT_NAT_FULL,
	MMB_CSTAT_SPOOFED,	/* new ones refused by the reverse-path check */
	MMB_CSTAT_WRONG_IIF,	/* replies on the original direction's device */
	MMB_CSTAT_MANY_RULES,
	MMB_CSTAT_CAPPED,
	MMB_CSTAT_MAX
};

struct mmb_conn_stats {
	u64 n[MMB_CSTAT_MAX];
};

struct mmb_conns {
	struct rhashtable ht;
	atomic_t count;
	u32 max;			/* READ_ONCE: settings change it */
	bool tcp_loose;
	bool rpf;			/* rp-filter: a reverse-path check, and iif */
	bool shared;			/* in conn_max_total: not the initial namespace */
	u32 timeouts[__MMB_CONN_STATE_MAX];	/* jiffies */
	u32 tcp_unack;			/* jiffies: established, no reply seen, at most */
	struct mmb_conn_stats __percpu *stats;
	struct net *net;
	struct mutex lock;		/* settings, flush, GC's walk */
	struct delayed_work gc;
	struct work_struct masq;	/* ends masqueraded connections of a lost address */
	atomic_t masq_gen;		/* addresses lost so far (mmb_masq_lost()) */
	unsigned int gc_slot;		/* the GC's next bucket, of a table of... */
	unsigned int gc_size;		/* ...this many */
	struct mem_cgroup *memcg;	/* charged for the connections, or NULL */
};

/* Connections of all namespaces at most (module parameter conn_max_total). */
extern unsigned int mmb_conn_max_total;
u32 mmb_conn_default_max_total(void);
u32 mmb_conns_default_max(bool shared);
unsigned int mmb_conns_total(void);

int __init mmb_conn_cache_init(void);
void mmb_conn_cache_exit(void);
int mmb_conns_init(struct mmb_conns *mc, struct net *net);
void mmb_conns_exit(struct mmb_conns *mc);
void mmb_conns_flush(struct mmb_conns *mc);
void mmb_conns_fast_drop(struct mmb_conns *mc, const struct net_device *dev);
void mmb_conns_kick(struct mmb_conns *mc);
int mmb_masq_notifiers_register(void);
void mmb_masq_notifiers_unregister(void);
void mmb_conns_gc(struct mmb_conns *mc, unsigned int budget);
bool mmb_conns_gc_run(struct mmb_conns *mc, unsigned int budget);
void mmb_conns_stats(struct mmb_conns *mc, u64 *n);

static inline void mmb_conn_stat(struct mmb_conns *mc, enum mmb_conn_stat what)
{
	this_cpu_inc(mc->stats->n[what]);
}

/* Now, for timeouts: jiffies, or the KUnit tests' clock. */
u32 mmb_conn_now(void);

/* Is @c in the table both ways (confirmed) and not ending: may it be used? */
static inline bool mmb_conn_live(const struct mmb_conn *c)
{
	return (READ_ONCE(c->status) & (BIT(MMB_CONN_DYING) | BIT(MMB_CONN_CONFIRMED))) ==
	       BIT(MMB_CONN_CONFIRMED);
}

static inline bool mmb_conn_expired(const struct mmb_conn *c, u32 now)
{
	return (s32)(READ_ONCE(c->timeout) - now) <= 0;
}

/*
 * Is a packet of @c going @dir one whose leaving judgement is yet to come
 * (its original direction, no reply seen, not claimed)?
 */
static inline bool mmb_conn_unjudged(const struct mmb_conn *c, u8 dir)
{
	return dir == MMB_DIR_ORIG &&
	       !(READ_ONCE(c->status) & (BIT(MMB_CONN_OUT_CLAIM) | BIT(MMB_CONN_SEEN_REPLY)));
}

/* Is @c's leaving judgement taken by a CPU and not over (or did it fail)? */
static inline bool mmb_conn_out_held(const struct mmb_conn *c)
{
	return (READ_ONCE(c->status) & (BIT(MMB_CONN_OUT_CLAIM) | BIT(MMB_CONN_OUT_DONE))) ==
	       BIT(MMB_CONN_OUT_CLAIM);
}

/*
 * May @c's packets take the fast path: an offload rule's, seen both ways
 * and, TCP, established (not closing)?
 */
static inline bool mmb_conn_offloaded(const struct mmb_conn *c)
{
	unsigned long s = READ_ONCE(c->status);

	if ((s & (BIT(MMB_CONN_OFFLOAD) | BIT(MMB_CONN_ASSURED))) !=
	    (BIT(MMB_CONN_OFFLOAD) | BIT(MMB_CONN_ASSURED)))
		return false;
	if (c->orig.t.proto == IPPROTO_TCP)
		return READ_ONCE(c->state) == MMB_CONN_TCP_ESTABLISHED;
	return c->orig.t.proto == IPPROTO_UDP;
}

/* Does @c, if any, rewrite its packets (NAT, offsets)? */
static inline bool mmb_conn_rewrites(const struct mmb_conn *c)
{
	return c && (READ_ONCE(c->status) & (BIT(MMB_CONN_MAPPED) | BIT(MMB_CONN_EXT)));
}

static inline struct mmb_conn *mmb_conn_of(struct mmb_conn_node *n)
{
	if (n->t.dir == MMB_DIR_REPLY)
		return container_of(n, struct mmb_conn, reply);
	return container_of(n, struct mmb_conn, orig);
}

unsigned int mmb_conn_size(void);
u32 mmb_conn_hash(const struct mmb_tuple *t, u32 seed);
bool mmb_conn_tuple(const struct mmb_pkt *pkt, struct mmb_tuple *t);
bool mmb_conn_related_tuple(const struct sk_buff *skb, const struct mmb_pkt *pkt,
			    struct mmb_tuple *t);
void mmb_tuple_invert(const struct mmb_tuple *t, struct mmb_tuple *r);
struct mmb_conn *mmb_conn_find(struct mmb_conns *mc, const struct mmb_tuple *t, u8 *dir);
void mmb_conn_lookup_tuple(struct mmb_conns *mc, const struct mmb_tuple *t,
			   struct mmb_verdict *v);
struct mmb_conn *mmb_conn_peek(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			       const struct sk_buff *skb, u8 *dir, bool *related, bool outsf);
bool mmb_conn_would_start(struct mmb_conns *mc, const struct mmb_pkt *pkt,
			  const struct sk_buff *skb);
bool mmb_conn_spoofed(struct mmb_conns *mc, const struct mmb_pkt *pkt,
		      const struct net_device *dev);
void mmb_conn_kill(struct mmb_conns *mc, struct mmb_conn *c, enum mmb_conn_stat why);

/* The datapath's steps, before and after classification (conn.c). */
void mmb_conn_lookup(struct mmb_conns *mc, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb, struct mmb_verdict *v);
int mmb_conn_verdict(struct mmb_conns *mc, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb, struct mmb_verdict *v);

/* connstate.c: what a packet does to a connection's state. */
void mmb_conn_timeouts_init(struct mmb_conns *mc);
void mmb_conn_init_state(struct mmb_conns *mc, struct mmb_conn *c,
			 const struct mmb_pkt *pkt, u32 now);
int mmb_conn_first_state(const struct mmb_pkt *pkt, bool loose, u8 *fin);
bool mmb_conn_csum_ok(const struct mmb_pkt *pkt, const struct sk_buff *skb);
void mmb_conn_count(struct mmb_conn *c, u8 dir, const struct sk_buff *skb);
void mmb_conn_update(struct mmb_conns *mc, struct mmb_conn *c, u8 dir,
		     const struct mmb_pkt *pkt, const struct sk_buff *skb);
bool mmb_conn_evictable(const struct mmb_conn *c);
u8 mmb_tcp_step(u8 state, u8 *fin, u8 dir, u8 flags);

/* nlconn.c: events for the monitor group. */
void mmb_conn_event(struct mmb_conns *mc, const struct mmb_conn *c, u8 cmd);

#endif /* _MMB_CONN_H */
