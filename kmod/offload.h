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

bool mmb_fast_xmit(struct mmb_dev *md, struct sk_buff *skb, struct mmb_conn *c, u8 dir);
enum mmb_fast mmb_fast_check(struct sk_buff *skb, struct mmb_conn *c, u8 dir, bool peek,
			     struct dst_entry **dstp, struct neighbour **np);
void mmb_fast_release(struct mmb_conn_ext *x);

#endif /* _MMB_OFFLOAD_H */
