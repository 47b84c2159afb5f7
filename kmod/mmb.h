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
#include "log.h"
#include "reject.h"
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
	struct mmb_enabled *by;		/* the name that enabled it, or NULL, RTNL */
	u32 ifid;			/* of @ifname (ifname.c), READ_ONCE */
	char ifname[IFNAMSIZ];		/* the device's name as interned, RTNL */
	bool attached;			/* not only prepared: the egress hook judges */
	netdevice_tracker dev_tracker;
	struct list_head list;		/* in mmb_net.devs, RTNL */
	struct mmb_pcpu_stats __percpu *stats;	/* every packet */
	struct mmb_pcpu_counts __percpu *counts; /* drops by cause, rewrites, ... */
	struct nf_hook_ops out;		/* the device's egress hook, mmb_hook_out() */
};

/*
 * A name or pattern enabled in a namespace (MMB_CMD_DEV_ENABLE): every
 * device it stands for is attached, now or as it appears.
 */
struct mmb_enabled {
	struct list_head list;		/* in mmb_net.enabled, RTNL */
	unsigned int failed;		/* devices that appeared and were not attached */
	char name[IFNAMSIZ];
};

/* Per network namespace state. */
struct mmb_net {
	struct list_head devs;		/* enabled devices, RTNL */
	struct list_head enabled;	/* struct mmb_enabled, RTNL */
	bool live;			/* between init and exit, RTNL */
	unsigned long dev_gen;		/* bumped as devs changes, RTNL */
	struct mmb_rules rules;
	struct mmb_conns conns;
	struct mmb_frags frags;
	struct mmb_reject_limit reject;	/* answers (reject.c) */
	struct mmb_log_net log;		/* log.c */
};

extern unsigned int mmb_net_id;

static inline struct mmb_net *mmb_pernet(const struct net *net)
{
	return net_generic(net, mmb_net_id);
}

/*
 * Names being enabled, checked and prepared: a command's or a batch's;
 * mmb_dev_plan_commit() then applies them, which cannot fail.
 */
struct mmb_dev_plan {
	struct net *net;
	struct list_head names;		/* new struct mmb_enabled */
	struct list_head devs;		/* prepared struct mmb_dev */
};

/* dev.c: attaching to devices */
struct mmb_dev *mmb_dev_prepare(struct net_device *dev, struct netlink_ext_ack *extack);
void mmb_dev_unprepare(struct mmb_dev *md);
int mmb_dev_attach(struct mmb_dev *md, struct netlink_ext_ack *extack);
int mmb_dev_enable(struct net_device *dev, struct netlink_ext_ack *extack);
int mmb_dev_disable(struct net_device *dev, struct netlink_ext_ack *extack);
struct mmb_dev *mmb_dev_get_rtnl(const struct net_device *dev);
void mmb_dev_disable_all(struct mmb_net *mn);
void mmb_dev_plan_init(struct mmb_dev_plan *p, struct net *net);
int mmb_dev_plan_name(struct mmb_dev_plan *p, const char *name, bool again,
		      struct netlink_ext_ack *extack);
void mmb_dev_plan_commit(struct mmb_dev_plan *p);
void mmb_dev_plan_abort(struct mmb_dev_plan *p);
int mmb_dev_forget(struct net *net, const char *name, struct netlink_ext_ack *extack);
struct mmb_enabled *mmb_dev_enabled_find(struct mmb_net *mn, const char *name);
void mmb_dev_keys_hold(void);
void mmb_dev_keys_release(void);
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

/*
 * Did mmb judge @skb as it arrived? A forwarded packet came in on a device
 * (skb_iif); those the host sends have none. Asked of a leaving packet.
 * Under RCU.
 */
static inline bool mmb_judged_in(const struct sk_buff *skb)
{
	const struct net_device *in;

	if (!skb->skb_iif)
		return false;
	in = dev_get_by_index_rcu(dev_net(skb->dev), skb->skb_iif);
	return mmb_dev_filtered(in);
}

/*
 * The id of the name of @dev, which "in" (and "out") rules match, for the
 * header image; the one place that says it. A device mmb is attached to
 * has it cached (mmb_dev.ifid, kept as the device is renamed); any other,
 * 0, which no name has. Under RCU.
 */
static inline u32 mmb_dev_ifid(const struct net_device *dev)
{
	const struct mmb_dev *md;

	if (rcu_access_pointer(dev->rx_handler) != mmb_hook)
		return 0;
	md = rcu_dereference(dev->rx_handler_data);
	return md ? READ_ONCE(md->ifid) : 0;
}

/* netlink.c: the generic netlink family */
int __init mmb_genl_register(void);
void mmb_genl_unregister(void);

#endif /* _MMB_H */
