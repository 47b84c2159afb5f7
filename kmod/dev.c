// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: attaching the rx_handler and the netdev egress hook to devices, and
 * letting go of them when they are unregistered or leave the namespace.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "mmb.h"

struct mmb_dev *mmb_dev_get_rtnl(const struct net_device *dev)
{
	ASSERT_RTNL();
	if (rtnl_dereference(dev->rx_handler) != mmb_hook)
		return NULL;
	return rtnl_dereference(dev->rx_handler_data);
}

static void mmb_dev_free(struct mmb_dev *md)
{
	free_percpu(md->counts);
	free_percpu(md->stats);
	kfree(md);
}

/*
 * Check that mmb can be enabled on @dev and allocate what it needs there;
 * mmb_dev_attach() then cannot fail while RTNL is still held. Two steps,
 * so that a batch checks all its devices before it commits anything.
 */
struct mmb_dev *mmb_dev_prepare(struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct mmb_dev *md;

	ASSERT_RTNL();
	if (mmb_dev_get_rtnl(dev)) {
		NL_SET_ERR_MSG(extack, "mmb is already enabled on this device");
		return ERR_PTR(-EEXIST);
	}
	if (dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "mmb cannot be enabled on a loopback device");
		return ERR_PTR(-EINVAL);
	}
	/* l3mdev hands a VRF's packets over after the rx_handler ran. */
	if (netif_is_l3_master(dev)) {
		NL_SET_ERR_MSG(extack,
			       "a VRF device receives no packets itself: enable mmb on its member devices");
		return ERR_PTR(-EINVAL);
	}
	if (netdev_is_rx_handler_busy(dev)) {
		NL_SET_ERR_MSG(extack,
			       "device already has an rx_handler (bridge, bond, team, macvlan or OVS port?)");
		return ERR_PTR(-EBUSY);
	}

	md = kzalloc(sizeof(*md), GFP_KERNEL_ACCOUNT);
	if (!md)
		return ERR_PTR(-ENOMEM);
	md->stats = netdev_alloc_pcpu_stats(struct mmb_pcpu_stats);
	md->counts = netdev_alloc_pcpu_stats(struct mmb_pcpu_counts);
	if (!md->stats || !md->counts) {
		mmb_dev_free(md);
		return ERR_PTR(-ENOMEM);
	}
	md->dev = dev;
	md->mn = mmb_pernet(dev_net(dev));
	INIT_LIST_HEAD(&md->list);
	/*
	 * Leaving packets: after routing and postrouting, before tc's egress
	 * (nf_hook_egress() runs first in __dev_queue_xmit()). Of the netdev
	 * family's hooks, mmb's runs after nft's netdev egress chains of
	 * priority 0 and below.
	 */
	md->out = (struct nf_hook_ops){
		.hook = mmb_hook_out,
		.priv = md,
		.dev = dev,
		.pf = NFPROTO_NETDEV,
		.hooknum = NF_NETDEV_EGRESS,
		.priority = 0,
	};
	return md;
}

/* Give up a prepared device that was not attached. */
void mmb_dev_unprepare(struct mmb_dev *md)
{
	mmb_dev_free(md);
}

/* Attach a prepared device, under the RTNL that was held since. */
int mmb_dev_attach(struct mmb_dev *md, struct netlink_ext_ack *extack)
{
	struct net_device *dev = md->dev;
	int err;

	ASSERT_RTNL();
	err = netdev_rx_handler_register(dev, mmb_hook, md);
	if (err) {
		NL_SET_ERR_MSG(extack, "device does not accept an rx_handler");
		goto free;
	}
	err = nf_register_net_hook(dev_net(dev), &md->out);
	if (err) {
		NL_SET_ERR_MSG(extack, "device does not accept a netdev egress hook");
		goto rx_handler;
	}
	netdev_hold(dev, &md->dev_tracker, GFP_KERNEL);
	dev_disable_lro(dev);
	list_add_tail_rcu(&md->list, &md->mn->devs);
	md->mn->dev_gen++;
	return 0;

rx_handler:
	netdev_rx_handler_unregister(dev);
free:
	mmb_dev_free(md);
	return err;
}

int mmb_dev_enable(struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct mmb_dev *md = mmb_dev_prepare(dev, extack);

	if (IS_ERR(md))
		return PTR_ERR(md);
	return mmb_dev_attach(md, extack);
}

static void mmb_dev_detach(struct mmb_dev *md)
{
	struct net_device *dev = md->dev;

	list_del_rcu(&md->list);
	md->mn->dev_gen++;
	nf_unregister_net_hook(dev_net(dev), &md->out);
	/* Waits until no CPU runs either hook on this device any more. */
	netdev_rx_handler_unregister(dev);
	netdev_put(dev, &md->dev_tracker);
	mmb_dev_free(md);
}

int mmb_dev_disable(struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct mmb_dev *md = mmb_dev_get_rtnl(dev);

	if (!md) {
		NL_SET_ERR_MSG(extack, "mmb is not enabled on this device");
		return -ENOENT;
	}
	mmb_dev_detach(md);
	return 0;
}

void mmb_dev_disable_all(struct mmb_net *mn)
{
	struct mmb_dev *md, *tmp;

	ASSERT_RTNL();
	list_for_each_entry_safe(md, tmp, &mn->devs, list)
		mmb_dev_detach(md);
}

/*
 * NETDEV_UNREGISTER arrives both when a device goes away and, in its old
 * namespace, when it moves to another one: in both cases mmb lets go.
 */
static int mmb_dev_event(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mmb_dev *md;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	md = mmb_dev_get_rtnl(dev);
	if (md)
		mmb_dev_detach(md);
	return NOTIFY_DONE;
}

static struct notifier_block mmb_dev_notifier = {
	.notifier_call = mmb_dev_event,
};

int mmb_dev_notifier_register(void)
{
	return register_netdevice_notifier(&mmb_dev_notifier);
}

/* Replays NETDEV_UNREGISTER for every device, which detaches them all. */
void mmb_dev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&mmb_dev_notifier);
}
