// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the datapath. Runs with BH off under RCU for every frame received
 * on an enabled device (in softirq, before the protocol handlers: ip_rcv,
 * ipv6_rcv), and for every packet that leaves by one (its netdev egress
 * hook): parse, classify, then drop, or rewrite and pass on.
 */
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>

#include "conn.h"
#include "mmb.h"
#include "nat.h"
#include "offload.h"
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

/*
 * skb_share_check() for an arriving packet mmb writes (pktgen's are
 * shared): *@pskb replaced by a clone; false, unchanged, without memory.
 */
static bool mmb_hook_unshare(struct sk_buff **pskb)
{
	struct sk_buff *nskb;

	if (!skb_shared(*pskb))
		return true;
	nskb = skb_clone(*pskb, GFP_ATOMIC);
	if (unlikely(!nskb))
		return false;
	consume_skb(*pskb);
	*pskb = nskb;
	return true;
}

/*
 * Judge @skb, arriving on @md's device or, @out, leaving by it; its
 * network header at skb->data. Returns -1 to let it go on, or the cause
 * to drop it for (the caller drops it). An arriving shared skb that is to
 * be rewritten is replaced by a clone (*@pskb); a leaving one cannot be,
 * and is dropped (no sender of this kind is known to share skbs with a
 * device it does not own: pktgen owns its device).
 */
static __always_inline int mmb_judge(struct mmb_dev *md, const struct mmb_ruleset *rs,
				     struct sk_buff **pskb, bool out, struct mmb_fast_hit *fh)
{
	struct sk_buff *skb = *pskb;
	/*
	 * Written before they are read; without this, the kernels' automatic
	 * zeroing of stack variables spent two "rep stos" of 352 bytes on
	 * every frame, rules or not.
	 */
	struct mmb_verdict v __uninitialized;
	struct mmb_pkt pkt __uninitialized;
	bool stateful;
	int err;

	err = mmb_parse(skb, &pkt);
	if (unlikely(err)) {
		if (err == -EBADMSG)
			return MMB_DROP_FRAGMENT;
		if (err == -E2BIG)
			return MMB_DROP_HEADER;
		/* Not IP, or malformed: the stack's to judge. */
		mmb_counts_add(md->counts, err == -EAFNOSUPPORT ? MMB_COUNT_NOT_IP :
				MMB_COUNT_MALFORMED, skb);
		return -1;
	}
	mmb_verdict_init(&v);
	if (out) {
		mmb_img_dev(&pkt, READ_ONCE(md->ifid), true);
		v.out = true;
	}
	stateful = mmb_ruleset_stateful(rs);
	v.outsf = mmb_ruleset_outsf(rs);
	if (unlikely(stateful && (pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_LATER))) {
		/* Its first fragment's connection, or no connection. */
		if (mmb_frag_lookup(&md->mn->frags, &md->mn->conns, &pkt, &v))
			return MMB_DROP_UNMAPPED;
	} else if (stateful) {
		mmb_conn_lookup(&md->mn->conns, &pkt, skb, &v);
	}
	if (unlikely(v.held))
		return MMB_DROP_UNMAPPED;
	if (out && v.conn) {
		v.seen = mmb_judged_in(skb);
		/*
		 * The first packet of one an arriving rule started: the leaving
		 * rules' too, and the end of its replies' wait if there are none
		 * left (deleted since it started).
		 */
		v.bind = v.seen && !v.related &&
			 !(pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_LATER) &&
			 mmb_conn_unjudged(v.conn, v.dir) &&
			 (v.outsf || test_bit(MMB_CONN_OUT_PENDING, &v.conn->status));
	}
	/* Leaving, only its connection's source mapping may be left to do. */
	if (!out || mmb_ruleset_out(rs))
		mmb_classify_rules(rs, &pkt, skb, &v);
	if (v.conn || v.nsf || (out && v.outsf)) {
		err = mmb_conn_verdict(&md->mn->conns, &pkt, skb, &v);
		if (unlikely(err))
			return err == -ENOSPC ? MMB_DROP_CONN :
			       err == -EAGAIN ? MMB_DROP_UNMAPPED : MMB_DROP_NOMEM;
	}
	if (v.drop && !v.accept) {
		/* The answer's path: only for packets a reject rule drops. */
		if (unlikely(v.reject))
			mmb_reject(&md->mn->reject, skb, &pkt, v.reject->reject - 1, out);
		return MMB_DROP_RULE;
	}
	mmb_verdict_settle(&v);
	/* A first fragment: what its datagram's later ones are to get. */
	if (unlikely(stateful && (pkt.key.b[MMB_IMG_FLAGS] & (MMB_KF_FRAG | MMB_KF_LATER)) ==
		     MMB_KF_FRAG))
		mmb_frag_note(&md->mn->frags, &pkt, &v);
	/* Arriving, of an offloaded connection: the fast path may send it (offload.c). */
	if (!out && v.conn && !v.related && mmb_conn_offloaded(v.conn)) {
		fh->c = v.conn;
		fh->dir = v.dir;
	}
	/* Destination before routing, source after (nat.c). */
	if (mmb_conn_rewrites(v.conn) && !v.bound)
		v.manip = mmb_nat_manip(v.conn, v.dir, v.related, out, v.seen);
	if (!v.nrw && !(mmb_conn_rewrites(v.conn) && v.manip))
		return -1;

	/* skb_share_check(), with the drop counted and its reason given. */
	if (skb_shared(skb)) {
		if (out || !mmb_hook_unshare(pskb))
			return MMB_DROP_NOMEM;
		skb = *pskb;
	}
	if (mmb_rewrite(skb, &pkt, &v))
		return MMB_DROP_NOMEM;
	mmb_counts_add(md->counts, MMB_COUNT_REWRITTEN, skb);
	return -1;
}

rx_handler_result_t mmb_hook(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	const struct mmb_ruleset *rs;
	struct mmb_dev *md;
	int why;

	/* Frames we sent to ourselves (dev_loopback_xmit) are not ingress. */
	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;

	md = rcu_dereference(skb->dev->rx_handler_data);
	rs = mmb_rules_get(&md->mn->rules);
	if (rs && mmb_ruleset_count(rs)) {
		struct mmb_fast_hit fh = { .c = NULL };

		/*
		 * Two VLAN tags (or more), the outer one of VLAN 0 (priority
		 * only): the core strips the inner one after this handler and
		 * gives the packet it carries to the stack without calling the
		 * handler again (__netif_receive_skb_core()). Stripped here as
		 * the core does, the packet is judged now; one of a VLAN with
		 * a device goes to that device (another round), as the core
		 * would send it.
		 */
		while (unlikely(skb_vlan_tag_present(skb) && !skb_vlan_tag_get_id(skb) &&
				eth_type_vlan(skb->protocol))) {
			__vlan_hwaccel_clear_tag(skb);
			skb = skb_vlan_untag(skb);
			*pskb = skb;
			if (!skb)
				return RX_HANDLER_CONSUMED;
			if (skb_vlan_tag_get_id(skb) &&
			    __vlan_find_dev_deep_rcu(skb->dev, skb->vlan_proto,
						     skb_vlan_tag_get_id(skb)))
				return RX_HANDLER_ANOTHER;
		}

		why = mmb_judge(md, rs, pskb, false, &fh);
		skb = *pskb;
		if (why >= 0)
			return mmb_drop(md, skb, why);
		/* Shared (pktgen's): copied as ip_rcv() would; no memory: the stack's. */
		if (fh.c && mmb_hook_unshare(pskb)) {
			skb = *pskb;
			if (mmb_fast_xmit(md, skb, fh.c, fh.dir))
				return RX_HANDLER_CONSUMED;
		}
	}
	mmb_stats_count(md->stats, skb);
	return RX_HANDLER_PASS;
}

/* Judge a leaving packet whose network header is @nh bytes in; BH off. */
static int mmb_hook_out_judge(struct mmb_dev *md, const struct mmb_ruleset *rs,
			      struct sk_buff *skb, int nh)
{
	int why;

	__skb_pull(skb, nh);
	why = mmb_judge(md, rs, &skb, true, NULL);
	__skb_push(skb, nh);
	if (why >= 0)
		mmb_counts_add(md->counts, why, skb);
	return why;
}

/*
 * The netdev egress hook of every enabled device (dev.c): the packets
 * that leave by it, after routing, the host's own among them, before tc's
 * egress and the qdisc. With no rule for leaving packets and no NAT rule
 * (whose connections' sources are mapped here), it is two loads and a test.
 */
unsigned int mmb_hook_out(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	struct mmb_dev *md = priv;
	const struct mmb_ruleset *rs;
	int nh, why;

	rs = mmb_rules_get(&md->mn->rules);
	if (!rs || !(mmb_ruleset_out(rs) | mmb_ruleset_nat(rs)))
		return NF_ACCEPT;
	/* Prepared by a transaction not yet committed (dev.c): not enabled. */
	if (unlikely(!READ_ONCE(md->attached)))
		return NF_ACCEPT;
	/*
	 * A frame a VLAN device hands down, its tag not yet in the data, left
	 * by that device: judged there if it is enabled, not again here, as
	 * arriving tagged frames are the VLAN device's alone.
	 */
	if (skb_vlan_tag_present(skb))
		return NF_ACCEPT;
	/* The link layer's header is built: the network header goes first. */
	nh = skb_network_offset(skb);
	if (unlikely(nh < 0 || nh > skb_headlen(skb)))
		return NF_ACCEPT;
	/*
	 * __dev_queue_xmit() runs the hook with BH off, as the datapath
	 * expects (per-CPU counters and caches, connections' bit locks that
	 * a softirq on this CPU may also take); a packet socket's qdisc
	 * bypass (nf_hook_direct_egress()) runs it with BH on.
	 */
	if (likely(softirq_count())) {
		why = mmb_hook_out_judge(md, rs, skb, nh);
	} else {
		local_bh_disable();
		why = mmb_hook_out_judge(md, rs, skb, nh);
		local_bh_enable();
	}
	if (why >= 0)
		return NF_DROP;
	return NF_ACCEPT;
}
