/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: internal declarations shared by the module's files and its KUnit
 * tests.
 */
#ifndef _MMB_H
#define _MMB_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "compat.h"
#include "../uapi/linux/mmb.h"

/* Per-CPU counters of one enabled device; written only in softirq. */
struct mmb_pcpu_stats {
	u64_stats_t packets;
	u64_stats_t bytes;
	struct u64_stats_sync syncp;
};

struct mmb_stats {
	u64 packets;
	u64 bytes;
};

/*
 * One device mmb is enabled on. It is the device's rx_handler_data; the
 * datapath reaches it under RCU, the control path under RTNL.
 */
struct mmb_dev {
	struct net_device *dev;
	netdevice_tracker dev_tracker;
	struct list_head list;		/* in mmb_net.devs, RTNL */
	struct mmb_pcpu_stats __percpu *stats;
};

/* Per network namespace state. */
struct mmb_net {
	struct list_head devs;		/* enabled devices, RTNL */
};

extern unsigned int mmb_net_id;

static inline struct mmb_net *mmb_pernet(const struct net *net)
{
	return net_generic(net, mmb_net_id);
}

/* dev.c: attaching to devices */
int mmb_dev_enable(struct net_device *dev, struct netlink_ext_ack *extack);
int mmb_dev_disable(struct net_device *dev, struct netlink_ext_ack *extack);
struct mmb_dev *mmb_dev_get_rtnl(const struct net_device *dev);
void mmb_dev_disable_all(struct mmb_net *mn);
void mmb_dev_stats_read(const struct mmb_dev *md, struct mmb_stats *st);
int mmb_dev_notifier_register(void);
void mmb_dev_notifier_unregister(void);

/* hook.c: the datapath */
rx_handler_result_t mmb_hook(struct sk_buff **pskb);

/* netlink.c: the generic netlink family */
int __init mmb_genl_register(void);
void mmb_genl_unregister(void);

#endif /* _MMB_H */
