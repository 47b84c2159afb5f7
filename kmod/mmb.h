/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: internal declarations shared by the module's files and its KUnit
 * tests.
 */
#ifndef _MMB_H
#define _MMB_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/u64_stats_sync.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "compat.h"
#include "../uapi/linux/mmb.h"

/*
 * Per-CPU counters of a device or a rule; written only in softirq. Sixteen
 * bytes, as aligned: a rule's counters, read on every packet that matches
 * it, never straddle two cache lines (at 24 bytes a quarter of them did).
 */
struct mmb_pcpu_stats {
	u64_stats_t packets;
	u64_stats_t bytes;
	struct u64_stats_sync syncp;
} __aligned(2 * sizeof(u64));

struct mmb_stats {
	u64 packets;
	u64 bytes;
};

void mmb_stats_read(struct mmb_pcpu_stats __percpu *pcpu, struct mmb_stats *st);

/* Why the datapath dropped a packet; counted per device and per CPU. */
enum mmb_drop {
	MMB_DROP_RULE,		/* a rule's drop target */
	MMB_DROP_FRAGMENT,	/* a fragment hiding or overlapping L4 */
	MMB_DROP_HEADER,	/* an IPv6 header chain too long to walk */
	MMB_DROP_NOMEM,		/* no memory to copy or write it */
	MMB_DROP_MAX
};

struct mmb_pcpu_drops {
	u64_stats_t n[MMB_DROP_MAX];	/* wire packets */
	struct u64_stats_sync syncp;
};

void mmb_drops_read(struct mmb_pcpu_drops __percpu *pcpu, u64 *n);

/*
 * Rules' counters come from blocks of up to MMB_STATS_BLOCK (stats.c): one
 * per-CPU allocation serves a batch's rules in turn, each of which holds a
 * reference on its block. A pool hands them out; @want is how many rules
 * its user still expects to create (a batch's ops), so that a block is no
 * larger than needed.
 */
struct mmb_stats_block;

struct mmb_stats_pool {
	struct mmb_stats_block *blk;
	unsigned int want;
};

struct mmb_pcpu_stats __percpu *mmb_stats_take(struct mmb_stats_pool *pool,
					       struct mmb_stats_block **blk);
void mmb_stats_put(struct mmb_stats_block *blk);
void mmb_stats_pool_end(struct mmb_stats_pool *pool);

/* Count a packet of @segs GRO segments and @len bytes in this CPU's counters. */
static inline void mmb_stats_add(struct mmb_pcpu_stats __percpu *pcpu,
				 unsigned int segs, unsigned int len)
{
	struct mmb_pcpu_stats *s = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->packets, segs);
	u64_stats_add(&s->bytes, len);
	u64_stats_update_end(&s->syncp);
}

static inline void mmb_stats_count(struct mmb_pcpu_stats __percpu *pcpu,
				   const struct sk_buff *skb)
{
	mmb_stats_add(pcpu, skb_shinfo(skb)->gso_segs ?: 1, skb->len);
}

/*
 * The canonical header image of a packet: fixed offsets whatever the IP
 * options, IPv6 extension headers and TCP options. Rule masks and keys
 * refer to it; it is compared in 16-byte chunks of two u64 words.
 *
 *   0  family (4 or 6)      1  L4 protocol       2  MMB_KF_* flags
 *   3  TCP window scale (its option's value, if of its size)
 *   4  L4 header bytes 0-3 (ports; ICMP type, code, checksum)
 *   8  ingress ifindex (big endian)
 *  12  TCP options present: bit (field - MMB_FIELD_TCP_OPT_MSS) for each
 *      named one, the last bit for any option at all
 *  13  MMB_OPTV_* (which option values of 3 and 14 are there)
 *  14  TCP MSS (its option's value, if of its size)
 *  20  IPv4 header bytes 0-19 (addresses in chunk 2)
 *  24  IPv6 header bytes 0-39 (addresses in chunks 2 and 3)
 *  64  L4 header bytes 4-19
 *
 * TCP options in the image follow the slow path's reading of them
 * (mmb_tcp_opt_find()): the first option of a kind counts, a malformed one
 * ends the list. Then "tcp-opt-mss 1460" or "! tcp-opt-sackp" is a key in
 * a table like any other field.
 */
#define MMB_KEY_CHUNKS		5
#define MMB_IMG_FAMILY		0
#define MMB_IMG_L4PROTO		1
#define MMB_IMG_FLAGS		2
#define MMB_IMG_WSCALE		3
#define MMB_IMG_L4_LO		4
#define MMB_IMG_IFINDEX		8
#define MMB_IMG_OPTS		12
#define MMB_IMG_OPTV		13
#define MMB_IMG_MSS		14
#define MMB_IMG_IP4		20
#define MMB_IMG_IP6		24
#define MMB_IMG_L4_HI		64

#define MMB_KF_L4		0x01	/* the whole fixed L4 header is there */
#define MMB_KF_FRAG		0x02	/* an IP fragment */
#define MMB_KF_LATER		0x04	/* a fragment other than the first */

#define MMB_OPTV_MSS		0x01	/* the MSS option has its 2 bytes */
#define MMB_OPTV_WSCALE		0x02	/* the window scale its byte */

/*
 * The length of the TCP option at @i of the @n bytes of options @o: 1 for
 * a NOP, 0 where the list ends (end of list, or a malformed option). The
 * one reading of option lists, for the parser and the rules' slow path.
 */
static inline unsigned int mmb_tcp_opt_len(const u8 *o, unsigned int i, unsigned int n)
{
	if (i >= n || o[i] == TCPOPT_EOL)
		return 0;
	if (o[i] == TCPOPT_NOP)
		return 1;
	if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
		return 0;
	return o[i + 1];
}

/* The bit of a TCP option field at MMB_IMG_OPTS. */
static inline u8 mmb_opt_bit(unsigned int field)
{
	return BIT(field - MMB_FIELD_TCP_OPT_MSS);
}

/* By option kind, the bit of its field (0: no field of its own); field.c. */
extern u8 mmb_opt_kind_bits[256];

struct mmb_chunk {
	u64 w[2];
};

struct mmb_key {
	union {
		struct mmb_chunk c[MMB_KEY_CHUNKS];
		u8 b[MMB_KEY_CHUNKS * 16];
	};
};

/*
 * A parsed packet; offsets count from the network header (skb->data), in
 * 32 bits: a BIG TCP packet is longer than 64 KiB.
 */
struct mmb_pkt {
	struct mmb_key key;
	u32 l4off;		/* L4 header */
	u32 l7off;		/* L4 payload (after TCP options, UDP, ICMP) */
	u32 end;		/* end of the IP packet */
};

int mmb_parse(struct sk_buff *skb, struct mmb_pkt *pkt);

/* Where a field lives: in the header (for rewrites) and in the image. */
/* MMB_HDR_TCPOPT: an option's data; hoff is its kind. */
enum {
	MMB_HDR_NONE, MMB_HDR_META, MMB_HDR_L3, MMB_HDR_L4, MMB_HDR_PAYLOAD,
	MMB_HDR_TCPOPT,
};

struct mmb_field_info {
	const char *name;
	u8 family;		/* 0, 4 or 6 */
	u8 l4;			/* 0 or the IP protocol of its header */
	u8 bits;		/* 0: byte string */
	u8 flags;		/* MMB_FIELD_F_* */
	u8 hdr;			/* MMB_HDR_* */
	u8 hoff;		/* byte offset in that header */
	u8 len;			/* bytes spanned: 1, 2, 3, 4 or 16 */
	u8 shift;		/* value = (bytes & mask) >> shift */
	u32 mask;		/* bits of the bytes (len <= 4) */
	u8 img;			/* image offset of the first byte */
};

void __init mmb_fields_init(void);
const struct mmb_field_info *mmb_field(unsigned int id);
u32 mmb_img_read(const struct mmb_key *key, unsigned int off, unsigned int len);

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
	const struct nlattr *attr;	/* for errors, while adding: the match */
	const struct nlattr *vattr;	/* and its value */
};

struct mmb_target_spec {
	u8 type;
	u16 field;
	u8 plen;
	u8 vlen;
	u32 rate;
	u8 value[16];
	const struct nlattr *attr;
	const struct nlattr *fattr;	/* its field */
	const struct nlattr *vattr;
};

/* The mask and key of a rule's == matches: where its tables keep it. */
struct mmb_rule_image {
	struct mmb_key mask;
	struct mmb_key key;
};

struct mmb_rule_spec {
	unsigned int nmatches;
	unsigned int ntargets;
	struct mmb_match_spec m[MMB_MAX_MATCHES];
	struct mmb_target_spec t[MMB_MAX_TARGETS];
	struct mmb_rule_image img;	/* of the rule created last from it */
};

/*
 * A match as a rule keeps it, 8 bytes; its value, vlen bytes, is among the
 * rule's values (mmb_match_value()).
 */
struct mmb_match {
	u16 field;
	u8 op;
	u8 plen;
	u8 vlen;
	u8 kind;
	u16 voff;		/* of its value in the rule's values */
};

/* A target as a rule keeps it; a mod's value is among the rule's values. */
struct mmb_target {
	u8 type;
	u8 plen;
	u8 vlen;
	u16 field;
	u16 voff;
	u32 rate;		/* of a drop, millionths */
};

/*
 * A compiled rule, in one allocation: this header, its matches, its targets
 * and their values (a five-tuple drop rule takes 113 bytes). Immutable
 * once published; each ruleset holding it holds a reference (a
 * transaction's new ruleset shares the old one's rules), and the last
 * reference frees it after a grace period. The mask and key of its ==
 * matches are not kept: mmb_rule_key() computes them again (a rule being
 * added takes them from its spec).
 */
struct mmb_rule {
	u32 handle;
	refcount_t ref;
	u8 nmatches;
	u8 ntargets;
	u8 family;		/* 0, 4 or 6: what its fields pin it to */
	u8 l4;			/* 0 or an IP protocol, likewise */
	bool accept;
	bool drop;
	bool rewrite;
	u32 slow;		/* bit i: match i is checked after the probe */
	u32 drop_rate;		/* millionths */
	struct mmb_pcpu_stats __percpu *stats;
	struct mmb_stats_block *sblk;	/* where @stats lives */
	struct rcu_head rcu;
	struct mmb_match m[];	/* then the targets, then the values */
};

static inline const struct mmb_target *mmb_rule_targets(const struct mmb_rule *rule)
{
	return (const struct mmb_target *)&rule->m[rule->nmatches];
}

static inline const u8 *mmb_rule_values(const struct mmb_rule *rule)
{
	return (const u8 *)(mmb_rule_targets(rule) + rule->ntargets);
}

static inline const u8 *mmb_match_value(const struct mmb_rule *rule,
					const struct mmb_match *m)
{
	return mmb_rule_values(rule) + m->voff;
}

static inline const u8 *mmb_target_value(const struct mmb_rule *rule,
					 const struct mmb_target *t)
{
	return mmb_rule_values(rule) + t->voff;
}

struct mmb_rule *mmb_rule_create(struct mmb_rule_spec *spec, struct mmb_stats_pool *pool,
				 struct netlink_ext_ack *extack);
u32 mmb_rule_key(const struct mmb_rule *rule, struct mmb_key *mask, struct mmb_key *key);
void mmb_rule_free(struct mmb_rule *rule);
void mmb_rule_put(struct mmb_rule *rule);
int mmb_tcp_opt_find(const struct sk_buff *skb, const struct mmb_pkt *pkt, u8 kind,
		     u8 *buf, const u8 **data, unsigned int *off);
bool mmb_rule_match_slow(const struct mmb_rule *rule, const struct mmb_pkt *pkt,
			 const struct sk_buff *skb);
bool mmb_match_holds(const struct mmb_match *m, const u8 *value, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb);
bool mmb_match_eval(const struct mmb_match_spec *m, const struct mmb_pkt *pkt,
		    const struct sk_buff *skb);

/* The rules of a namespace: per-mask hash tables (classify.c). */
struct mmb_ruleset;

struct mmb_verdict {
	bool accept;
	bool drop;
	unsigned int nrw;
#define MMB_MAX_REWRITES 32
	const struct mmb_rule *rw[MMB_MAX_REWRITES];
};

int __init mmb_classify_init(void);
void mmb_classify_exit(void);
struct mmb_ruleset *mmb_ruleset_create(void);
void mmb_ruleset_live(struct mmb_ruleset *rs, const struct mmb_ruleset *prev);
void mmb_ruleset_destroy(struct mmb_ruleset *rs);
int mmb_ruleset_insert(struct mmb_ruleset *rs, struct mmb_rule *rule);
int mmb_ruleset_insert_image(struct mmb_ruleset *rs, struct mmb_rule *rule,
			     const struct mmb_rule_image *img);
int mmb_ruleset_copy(struct mmb_ruleset *to, struct mmb_ruleset *from);
int mmb_ruleset_remove(struct mmb_ruleset *rs, struct mmb_rule *rule);
struct mmb_rule *mmb_ruleset_find(struct mmb_ruleset *rs, u32 handle);
struct mmb_rule *mmb_ruleset_next(struct mmb_ruleset *rs, u32 *handle);
unsigned int mmb_ruleset_count(const struct mmb_ruleset *rs);
unsigned long mmb_ruleset_gen(const struct mmb_ruleset *rs);
/* What "show tables" reports of one mask. */
struct mmb_table_info {
	unsigned int entries;
	unsigned int rules;
	unsigned int buckets;
	unsigned int chain_max;	/* most entries in one bucket */
	u64 hits;
	const struct mmb_rule *first;	/* its == matches define the mask */
};

int mmb_ruleset_table(struct mmb_ruleset *rs, unsigned int index,
		      struct mmb_table_info *info);
extern unsigned int mmb_cache_entries;
void mmb_ruleset_cache_stats(const struct mmb_ruleset *rs, u64 *hits, u64 *misses);
void mmb_classify(const struct mmb_ruleset *rs, const struct mmb_pkt *pkt,
		  struct sk_buff *skb, struct mmb_verdict *v);

/*
 * Test points: KUnit tests step in between two steps of a change there, as
 * another CPU could. Nothing outside the tests sets them.
 */
struct mmb_net;

struct mmb_test_points {
	/* @rs hands objects the datapath may name over to call_rcu() */
	void (*free)(struct mmb_ruleset *rs);
	/* a rule add published rule @handle and dropped the lock */
	void (*added)(struct mmb_net *mn, u32 handle);
};

#if IS_ENABLED(CONFIG_MMB_KUNIT_TEST)
extern struct mmb_test_points mmb_test_points;

static inline void mmb_test_free(struct mmb_ruleset *rs)
{
	if (mmb_test_points.free)
		mmb_test_points.free(rs);
}

static inline void mmb_test_added(struct mmb_net *mn, u32 handle)
{
	if (mmb_test_points.added)
		mmb_test_points.added(mn, handle);
}
#else
static inline void mmb_test_free(struct mmb_ruleset *rs)
{
}

static inline void mmb_test_added(struct mmb_net *mn, u32 handle)
{
}
#endif

/* rewrite.c */
int mmb_rewrite_rule(struct sk_buff *skb, const struct mmb_pkt *pkt,
		     const struct mmb_rule *rule);
int mmb_rewrite(struct sk_buff *skb, const struct mmb_pkt *pkt, const struct mmb_verdict *v);

/*
 * One device mmb is enabled on. It is the device's rx_handler_data; the
 * datapath reaches it under RCU, the control path under RTNL.
 */
struct mmb_dev {
	struct net_device *dev;
	struct mmb_net *mn;
	netdevice_tracker dev_tracker;
	struct list_head list;		/* in mmb_net.devs, RTNL */
	struct mmb_pcpu_stats __percpu *stats;	/* every packet */
	struct mmb_pcpu_drops __percpu *drops;	/* those mmb dropped, by cause */
};

/* Per network namespace state. */
struct mmb_net {
	struct list_head devs;		/* enabled devices, RTNL */
	unsigned long dev_gen;		/* bumped as devs changes, RTNL */
	struct mutex lock;		/* serialises rule changes */
	struct mmb_ruleset __rcu *rules;
	u32 next_handle;		/* under lock */
};

extern unsigned int mmb_net_id;

static inline struct mmb_net *mmb_pernet(const struct net *net)
{
	return net_generic(net, mmb_net_id);
}

/* dev.c: attaching to devices */
int mmb_dev_enable(struct net_device *dev, struct netlink_ext_ack *extack);
int mmb_dev_disable(struct net_device *dev, struct netlink_ext_ack *extack);
struct mmb_dev *mmb_dev_get_rtnl(const struct net_device *dev);
void mmb_dev_disable_all(struct mmb_net *mn);
int mmb_dev_notifier_register(void);
void mmb_dev_notifier_unregister(void);

/* hook.c: the datapath */
rx_handler_result_t mmb_hook(struct sk_buff **pskb);

/* netlink.c: the generic netlink family */
int __init mmb_genl_register(void);
void mmb_genl_unregister(void);

#endif /* _MMB_H */
