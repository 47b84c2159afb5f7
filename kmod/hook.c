// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the datapath. Runs in softirq under RCU for every frame received on
 * an enabled device, before the protocol handlers (ip_rcv, ipv6_rcv).
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "mmb.h"

static void mmb_count(struct mmb_dev *md, const struct sk_buff *skb)
{
	struct mmb_pcpu_stats *s = this_cpu_ptr(md->stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->packets, skb_shinfo(skb)->gso_segs ?: 1);
	u64_stats_add(&s->bytes, skb->len);
	u64_stats_update_end(&s->syncp);
}

rx_handler_result_t mmb_hook(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct mmb_dev *md;

	/* Frames we sent to ourselves (dev_loopback_xmit) are not ingress. */
	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;

	md = rcu_dereference(skb->dev->rx_handler_data);
	mmb_count(md, skb);
	return RX_HANDLER_PASS;
}
