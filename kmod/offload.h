/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: the fast path of offloaded connections (offload.c, docs/offload.md).
 * A packet of a connection an offload rule started, established both ways,
 * is sent from the rx_handler to its next hop on the route its direction
 * caches, after mmb judged (and rewrote) it; anything unusual goes on to
 * the Linux stack as it is.
 */
#ifndef _MMB_OFFLOAD_H
#define _MMB_OFFLOAD_H

#include <linux/skbuff.h>

#include "../uapi/linux/mmb.h"

struct mmb_conn;
struct mmb_conn_ext;
struct mmb_dev;

/* The connection a packet judged in the rx_handler may take the fast path with. */
struct mmb_fast_hit {
	struct mmb_conn *c;
	u8 dir;
};

/* A route slot's markers (offload.c): claimed, no route, namespace leaving. */
#define MMB_FAST_BUSY	((struct dst_entry *)1UL)
#define MMB_FAST_NONE	((struct dst_entry *)2UL)
#define MMB_FAST_DEAD	((struct dst_entry *)3UL)

/* Is a slot's value a route (held)? */
static inline bool mmb_fast_held(const struct dst_entry *dst)
{
	return (unsigned long)dst > (unsigned long)MMB_FAST_DEAD;
}

bool mmb_fast_xmit(struct mmb_dev *md, struct sk_buff *skb, struct mmb_conn *c, u8 dir);
enum mmb_fast mmb_fast_check(struct sk_buff *skb, struct mmb_conn *c, u8 dir, bool peek,
			     struct dst_entry **dstp, struct neighbour **np);
void mmb_fast_release(struct mmb_conn_ext *x);
void mmb_fast_drop(struct mmb_conn_ext *x, const struct net_device *dev);
bool mmb_fast_routes_through(const struct net_device *dev);

#endif /* _MMB_OFFLOAD_H */
