// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the datapath. Runs in softirq under RCU for every frame received on
 * an enabled device, before the protocol handlers (ip_rcv, ipv6_rcv):
 * parse, classify, then drop, or rewrite and pass on to the stack.
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "mmb.h"

static rx_handler_result_t mmb_drop(struct mmb_dev *md, struct sk_buff *skb)
{
	mmb_stats_count(md->stats, skb);
	mmb_stats_count(md->drops, skb);
	kfree_skb_reason(skb, SKB_DROP_REASON_NOT_SPECIFIED);
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
	unsigned int i;

	/* Frames we sent to ourselves (dev_loopback_xmit) are not ingress. */
	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;

	md = rcu_dereference(skb->dev->rx_handler_data);
	rs = rcu_dereference(md->mn->rules);
	if (!rs || !mmb_ruleset_count(rs) || mmb_parse(skb, &pkt))
		goto pass;

	mmb_classify(rs, &pkt, skb, &v);
	if (v.drop && !v.accept)
		return mmb_drop(md, skb);
	if (!v.nrw)
		goto pass;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;
	for (i = 0; i < v.nrw; i++)
		if (mmb_rewrite(skb, &pkt, v.rw[i]))
			return mmb_drop(md, skb);	/* no memory to write */
pass:
	mmb_stats_count(md->stats, skb);
	return RX_HANDLER_PASS;
}
