/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: rewriting packets (rewrite.c). The contract: a packet's rewrites
 * run in two phases on @pkt, its view (offsets, end) that every step keeps
 * true: the in-place ones first, in rule order, then those that change the
 * packet's length, each of which moves the view as it moves bytes. Every
 * checksum stays valid whatever the skb's ip_summed, GSO and GRO packets
 * included. mmb_rewrite_field() is the in-place step for one field, for
 * mod targets and for a connection's per-direction values alike.
 */
#ifndef _MMB_REWRITE_H
#define _MMB_REWRITE_H

#include "ruleset.h"

int mmb_l4csum_field(u8 proto);
int mmb_rewrite_info(struct sk_buff *skb, const struct mmb_pkt *pkt,
		     const struct mmb_field_info *f, const u8 *value, unsigned int vlen,
		     unsigned int plen);
int mmb_rewrite_field(struct sk_buff *skb, const struct mmb_pkt *pkt, unsigned int field,
		      const u8 *value, unsigned int vlen, unsigned int plen);
int mmb_rewrite_ends(struct sk_buff *skb, const struct mmb_pkt *pkt, u8 manip,
		     const void *saddr, __be16 sport, const void *daddr, __be16 dport);
int mmb_rewrite_rule(struct sk_buff *skb, struct mmb_pkt *pkt, const struct mmb_rule *rule);
int mmb_rewrite(struct sk_buff *skb, struct mmb_pkt *pkt, const struct mmb_verdict *v);

#endif /* _MMB_REWRITE_H */
