// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: attaching the rx_handler to devices, and letting go of them when
 * they are unregistered or leave the namespace.
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
	free_percpu(md->drops);
	free_percpu(md->stats);
	kfree(md);
}

int mmb_dev_enable(struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct mmb_net *mn = mmb_pernet(dev_net(dev));
	struct mmb_dev *md;
	int err;

	ASSERT_RTNL();
	if (mmb_dev_get_rtnl(dev)) {
		NL_SET_ERR_MSG(extack, "mmb is already enabled on this device");
		return -EEXIST;
	}
	if (dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "mmb cannot be enabled on a loopback device");
		return -EINVAL;
	}
	/* l3mdev hands a VRF's packets over after the rx_handler ran. */
	if (netif_is_l3_master(dev)) {
		NL_SET_ERR_MSG(extack,
			       "a VRF device receives no packets itself: enable mmb on its member devices");
		return -EINVAL;
	}
	if (netdev_is_rx_handler_busy(dev)) {
		NL_SET_ERR_MSG(extack,
			       "device already has an rx_handler (bridge, bond, team, macvlan or OVS port?)");
		return -EBUSY;
	}

	md = kzalloc(sizeof(*md), GFP_KERNEL_ACCOUNT);
	if (!md)
		return -ENOMEM;
	md->stats = netdev_alloc_pcpu_stats(struct mmb_pcpu_stats);
	md->drops = netdev_alloc_pcpu_stats(struct mmb_pcpu_drops);
	if (!md->stats || !md->drops) {
		err = -ENOMEM;
		goto err_free;
	}
	md->dev = dev;
	md->mn = mn;

	err = netdev_rx_handler_register(dev, mmb_hook, md);
	if (err) {
		NL_SET_ERR_MSG(extack, "device does not accept an rx_handler");
		goto err_free;
	}
	netdev_hold(dev, &md->dev_tracker, GFP_KERNEL);
	dev_disable_lro(dev);
	list_add_tail_rcu(&md->list, &mn->devs);
	mn->dev_gen++;
	return 0;

err_free:
	mmb_dev_free(md);
	return err;
}

static void mmb_dev_detach(struct mmb_dev *md)
{
	struct net_device *dev = md->dev;

	list_del_rcu(&md->list);
	md->mn->dev_gen++;
	/* Waits until no CPU runs the handler on this device any more. */
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
