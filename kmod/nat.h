/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: NAT and the other per-connection rewrites (nat.c).
 *
 * A connection's mapping is in its two tuples: the original one is what
 * its first packet carried, the reply one what replies carry, which is the
 * original as mapped, inverted. A packet of one direction is rewritten to
 * look like the other direction's tuple inverted: with no mapping that is
 * what it already carries, and only connections with MMB_CONN_MAPPED pay
 * for the comparison. Offsets (shuffled sequence numbers, IPv4 IDs) and a
 * flow label live in an extension, struct mmb_conn_ext, which connections
 * with MMB_CONN_EXT are allocated with.
 *
 *   orig.t   10.0.0.5:1234 -> 192.0.2.1:80    what the client sends
 *   reply.t  192.0.2.1:80 -> 203.0.113.1:40000  what the server answers
 *
 *   client's packets: source becomes reply.t's destination (and port)
 *   server's packets: destination becomes orig.t's source (and port)
 */
#ifndef _MMB_NAT_H
#define _MMB_NAT_H

#include "conn.h"

/* What an extension rewrites (mmb_conn_ext.what). */
#define MMB_NAT_SEQ_ORIG	0x01	/* sequence numbers sent the original way */
#define MMB_NAT_SEQ_REPLY	0x02	/* sequence numbers sent the reply way */
#define MMB_NAT_IPID		0x04	/* IPv4 IDs, the original way */
#define MMB_NAT_LABEL		0x08	/* IPv6 flow labels, the original way */

struct mmb_conn_ext {
	struct mmb_conn c;
	u32 seq[2];		/* added to the sequence numbers each direction sends */
	u32 label;		/* the flow label of the original direction */
	u16 ipid;		/* added to the IDs of the original direction */
	u8 what;		/* MMB_NAT_* */
	/*
	 * MMB_CONN_OFFLOAD: each direction's route, held, checked on every
	 * use, the device its packets came in on when it was looked up and
	 * what else the lookup depended on (offload.c). Within the slab
	 * object's size (320 bytes) either way.
	 */
	struct mmb_fast_route {
		struct dst_entry *dst;	/* or MMB_FAST_BUSY; freed by RCU */
		u32 cookie;		/* IPv6: rt6_get_cookie() */
		int iif;
		u32 key;		/* what the lookup depended on (mmb_fast_forwarding()) */
		u16 bucket;		/* the held route's count (mmb_fast_counts) */
	} fast[2];
};

/* What the rules of a new connection ask of it. */
struct mmb_nat_plan {
	struct mmb_tuple m;	/* its first packet's tuple, mapped */
	u16 lo, hi;		/* the range of a port to pick; hi 0: none */
	bool src;		/* the source port is picked, else the destination's */
	bool keep;		/* m's own port, unless another connection has it */
	bool masq;		/* m's source is the leaving device's address */
	u8 what;		/* MMB_NAT_* */
};

static inline struct mmb_conn_ext *mmb_conn_ext(const struct mmb_conn *c)
{
	return container_of((struct mmb_conn *)c, struct mmb_conn_ext, c);
}

int mmb_nat_plan(const struct mmb_verdict *v, const struct mmb_tuple *t,
		 const struct net_device *dev, struct mmb_nat_plan *p);
void mmb_nat_ext_init(struct mmb_conn_ext *x, u8 what);
int mmb_nat_pick(struct mmb_conns *mc, struct mmb_conn *c, const struct mmb_nat_plan *p);
int mmb_nat_packet(struct sk_buff *skb, const struct mmb_pkt *pkt, const struct mmb_conn *c,
		   u8 dir, u8 manip);
bool mmb_nat_later(const struct mmb_conn *c, u8 dir);
void mmb_nat_offsets_where(struct mmb_conn *c);
bool mmb_nat_offsets_out(const struct mmb_conn *c, u8 dir);
u8 mmb_nat_manip(const struct mmb_conn *c, u8 dir, bool related, bool out, bool seen);
int mmb_nat_icmp(struct sk_buff *skb, const struct mmb_pkt *pkt, const struct mmb_conn *c,
		 u8 dir);

#endif /* _MMB_NAT_H */
