/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: reject, a drop that answers (reject.c): a TCP RST built here, or an
 * ICMP or ICMPv6 destination unreachable sent by the kernel's own
 * icmp_send() and icmp6_send(), which quote the packet and keep the
 * kernel's ICMP rate limits. docs/reject.md is the user's side.
 */
#ifndef _MMB_REJECT_H
#define _MMB_REJECT_H

#include "bucket.h"
#include "pkt.h"

/*
 * A namespace's budget of answers: a token bucket (bucket.c) of
 * mmb_reject_burst tokens, mmb_reject_rate a second, taken by the packets
 * a reject rule drops, and no other.
 */
struct mmb_reject_limit {
	struct mmb_tokens b;
};

extern unsigned int mmb_reject_rate;
extern unsigned int mmb_reject_burst;

void mmb_reject_limit_init(struct mmb_reject_limit *l);
bool mmb_reject_allow(struct mmb_reject_limit *l);

/*
 * What a rule's reject (enum mmb_reject) sends for @pkt, or
 * MMB_REJECT_DEFAULT for nothing: the packet is one never answered (an
 * ICMP error, a RST, a fragment but the first, a multicast or broadcast
 * address, a source no answer can go to).
 */
u8 mmb_reject_answer(const struct sk_buff *skb, const struct mmb_pkt *pkt, u8 how, bool out);
bool mmb_reject_csum_ok(const struct sk_buff *skb, const struct mmb_pkt *pkt);
struct sk_buff *mmb_reject_rst(const struct sk_buff *skb, const struct mmb_pkt *pkt);
void mmb_reject(struct mmb_reject_limit *l, struct sk_buff *skb, const struct mmb_pkt *pkt,
		u8 how, bool out);

#endif /* _MMB_REJECT_H */
