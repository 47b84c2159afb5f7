// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the datapath. Runs in softirq under RCU for every frame received on
 * an enabled device, before the protocol handlers (ip_rcv, ipv6_rcv):
 * parse, classify, then drop, or rewrite and pass on to the stack.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "conn.h"
#include "mmb.h"
#include "rewrite.h"

/* What drop monitors see of each cause (uapi/linux/mmb.h lists them). */
static const enum skb_drop_reason mmb_drop_reasons[MMB_DROP_MAX] = {
	[MMB_DROP_RULE]		= SKB_DROP_REASON_NETFILTER_DROP,
	[MMB_DROP_FRAGMENT]	= SKB_DROP_REASON_IP_INHDR,
	[MMB_DROP_HEADER]	= SKB_DROP_REASON_IP_INHDR,
	[MMB_DROP_NOMEM]	= SKB_DROP_REASON_NOMEM,
	[MMB_DROP_CONN]		= SKB_DROP_REASON_NETFILTER_DROP,
	[MMB_DROP_UNMAPPED]	= SKB_DROP_REASON_IP_INHDR,
};

static rx_handler_result_t mmb_drop(struct mmb_dev *md, struct sk_buff *skb,
				    enum mmb_count why)
{
	mmb_stats_count(md->stats, skb);
	mmb_counts_add(md->counts, why, skb);
	kfree_skb_reason(skb, mmb_drop_reasons[why]);
	return RX_HANDLER_CONSUMED;
}

rx_handler_result_t mmb_hook(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	const struct mmb_ruleset *rs;
	/*
	 * Written before they are read; without this, the kernels' automatic
	 * zeroing of stack variables spent two "rep stos" of 352 bytes on
	 * every frame, rules or not.
	 */
	struct mmb_verdict v __uninitialized;
	struct mmb_pkt pkt __uninitialized;
	struct mmb_dev *md;
	bool stateful;
	int err;

	/* Frames we sent to ourselves (dev_loopback_xmit) are not ingress. */
	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;

	md = rcu_dereference(skb->dev->rx_handler_data);
	rs = mmb_rules_get(&md->mn->rules);
	if (!rs || !mmb_ruleset_count(rs))
		goto pass;
	err = mmb_parse(skb, &pkt);
	if (unlikely(err)) {
		if (err == -EBADMSG)
			return mmb_drop(md, skb, MMB_DROP_FRAGMENT);
		if (err == -E2BIG)
			return mmb_drop(md, skb, MMB_DROP_HEADER);
		/* Not IP, or malformed: the stack's to judge. */
		mmb_counts_add(md->counts, err == -EAFNOSUPPORT ? MMB_COUNT_NOT_IP :
				MMB_COUNT_MALFORMED, skb);
		goto pass;
	}

	mmb_verdict_init(&v);
	stateful = mmb_ruleset_stateful(rs);
	if (unlikely(stateful && (pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_LATER))) {
		/* Its first fragment's connection, or no connection. */
		if (mmb_frag_lookup(&md->mn->frags, &md->mn->conns, &pkt, &v))
			return mmb_drop(md, skb, MMB_DROP_UNMAPPED);
	} else if (stateful) {
		mmb_conn_lookup(&md->mn->conns, &pkt, skb, &v);
	}
	mmb_classify_rules(rs, &pkt, skb, &v);
	if (v.conn || v.nsf) {
		err = mmb_conn_verdict(&md->mn->conns, &pkt, skb, &v);
		if (unlikely(err))
			return mmb_drop(md, skb, err == -ENOSPC ? MMB_DROP_CONN : MMB_DROP_NOMEM);
	}
	if (v.drop && !v.accept)
		return mmb_drop(md, skb, MMB_DROP_RULE);
	mmb_verdict_settle(&v);
	/* A first fragment: what its datagram's later ones are to get. */
	if (unlikely(stateful && (pkt.key.b[MMB_IMG_FLAGS] & (MMB_KF_FRAG | MMB_KF_LATER)) ==
		     MMB_KF_FRAG))
		mmb_frag_note(&md->mn->frags, &pkt, &v);
	if (!v.nrw && !mmb_conn_rewrites(v.conn))
		goto pass;

	/* skb_share_check(), with the drop counted and its reason given. */
	if (skb_shared(skb)) {
		struct sk_buff *nskb = skb_clone(skb, GFP_ATOMIC);

		if (unlikely(!nskb))
			return mmb_drop(md, skb, MMB_DROP_NOMEM);
		consume_skb(skb);
		*pskb = skb = nskb;
	}
	if (mmb_rewrite(skb, &pkt, &v))
		return mmb_drop(md, skb, MMB_DROP_NOMEM);
	mmb_counts_add(md->counts, MMB_COUNT_REWRITTEN, skb);
pass:
	mmb_stats_count(md->stats, skb);
	return RX_HANDLER_PASS;
}
