/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: a namespace's state, the devices mmb is enabled on, and the entry
 * points of the module's parts. Each part has a header of its own:
 *
 *   stats.h    per-CPU counters          pkt.h      header image, parse
 *   tcpopt.h   TCP options               rule.h     rules, matches
 *   ruleset.h  a namespace's rules,      tables.h   inside a ruleset
 *              transactions, classify
 *   rewrite.h  rewriting packets         test.h     the tests' hooks
 *   conn.h     the connection table       frag.h     fragments' connections
 */
#ifndef _MMB_H
#define _MMB_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "compat.h"
#include "conn.h"
#include "frag.h"
#include "ruleset.h"
#include "stats.h"
#include "../uapi/linux/mmb.h"

/*
 * One device mmb is enabled on. It is the device's rx_handler_data and
 * its egress hook's private data; the datapath reaches it under RCU, the
 * control path under RTNL.
 */
struct mmb_dev {
	struct net_device *dev;
	struct mmb_net *mn;
	netdevice_tracker dev_tracker;
	struct list_head list;		/* in mmb_net.devs, RTNL */
	struct mmb_pcpu_stats __percpu *stats;	/* every packet */
	struct mmb_pcpu_counts __percpu *counts; /* drops by cause, rewrites, ... */
	struct nf_hook_ops out;		/* the device's egress hook, mmb_hook_out() */
};

/* Per network namespace state. */
struct mmb_net {
	struct list_head devs;		/* enabled devices, RTNL */
	unsigned long dev_gen;		/* bumped as devs changes, RTNL */
	struct mmb_rules rules;
	struct mmb_conns conns;
	struct mmb_frags frags;
};

extern unsigned int mmb_net_id;

static inline struct mmb_net *mmb_pernet(const struct net *net)
{
	return net_generic(net, mmb_net_id);
}

/* dev.c: attaching to devices */
struct mmb_dev *mmb_dev_prepare(struct net_device *dev, struct netlink_ext_ack *extack);
void mmb_dev_unprepare(struct mmb_dev *md);
int mmb_dev_attach(struct mmb_dev *md, struct netlink_ext_ack *extack);
int mmb_dev_enable(struct net_device *dev, struct netlink_ext_ack *extack);
int mmb_dev_disable(struct net_device *dev, struct netlink_ext_ack *extack);
struct mmb_dev *mmb_dev_get_rtnl(const struct net_device *dev);
void mmb_dev_disable_all(struct mmb_net *mn);
int mmb_dev_notifier_register(void);
void mmb_dev_notifier_unregister(void);

/* hook.c: the datapath */
rx_handler_result_t mmb_hook(struct sk_buff **pskb);
unsigned int mmb_hook_out(void *priv, struct sk_buff *skb, const struct nf_hook_state *state);

/* Is mmb enabled on @dev (NULL: no)? Under RCU or RTNL. */
static inline bool mmb_dev_filtered(const struct net_device *dev)
{
	return dev && rcu_access_pointer(dev->rx_handler) == mmb_hook;
}

/* netlink.c: the generic netlink family */
int __init mmb_genl_register(void);
void mmb_genl_unregister(void);

#endif /* _MMB_H */
