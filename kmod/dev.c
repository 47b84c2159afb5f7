// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: attaching the rx_handler and the netdev egress hook to devices, and
 * letting go of them when they are unregistered or leave the namespace;
 * the names and patterns a namespace has enabled, whose devices are
 * attached as they appear.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/stringify.h>

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
	if (md->ifid)
		mmb_ifname_put(md->ifname);
	free_percpu(md->counts);
	free_percpu(md->stats);
	kfree(md);
}

/*
 * Check that mmb can be enabled on @dev, allocate what it needs there and
 * register its egress hook (which may fail: memory, a kernel without
 * netdev egress hooks), idle until the device is attached; then
 * mmb_dev_attach() cannot fail while RTNL is still held. Two steps, so
 * that a batch checks all its devices before it commits anything.
 */
struct mmb_dev *mmb_dev_prepare(struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct mmb_dev *md;
	int err;

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
	/*
	 * netdev_rx_handler_register() refuses it (an ipvlan device): found
	 * here, or a batch would fail to attach it after it committed.
	 */
	if (dev->priv_flags & IFF_NO_RX_HANDLER) {
		NL_SET_ERR_MSG(extack,
			       "device takes no rx_handler (an ipvlan device?)");
		return ERR_PTR(-EINVAL);
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
	strscpy(md->ifname, dev->name, IFNAMSIZ);
	md->ifid = mmb_ifname_get(md->ifname);
	if (!md->ifid) {
		mmb_dev_free(md);
		return ERR_PTR(-ENOMEM);
	}
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
	err = nf_register_net_hook(dev_net(dev), &md->out);
	if (err) {
		NL_SET_ERR_MSG(extack, "device does not accept a netdev egress hook");
		mmb_dev_free(md);
		return ERR_PTR(err);
	}
	return md;
}

/*
 * Give up a prepared device that was not attached: its egress hook
 * unregistered, and freed once no CPU runs the hook (unregistering does
 * not wait for those that entered it).
 */
void mmb_dev_unprepare(struct mmb_dev *md)
{
	nf_unregister_net_hook(dev_net(md->dev), &md->out);
	synchronize_net();
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
		mmb_dev_unprepare(md);
		return err;
	}
	netdev_hold(dev, &md->dev_tracker, GFP_KERNEL);
	dev_disable_lro(dev);
	list_add_tail_rcu(&md->list, &md->mn->devs);
	md->mn->dev_gen++;
	/* The egress hook judges from now on (mmb_hook_out()). */
	WRITE_ONCE(md->attached, true);
	return 0;
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
	WRITE_ONCE(md->attached, false);
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

static void mmb_enabled_free(struct mmb_enabled *e)
{
	list_del(&e->list);
	kfree(e);
}

/* Detach every device of @mn and forget its names: the namespace ends. */
void mmb_dev_disable_all(struct mmb_net *mn)
{
	struct mmb_enabled *e, *etmp;
	struct mmb_dev *md, *tmp;

	ASSERT_RTNL();
	mn->live = false;
	list_for_each_entry_safe(md, tmp, &mn->devs, list)
		mmb_dev_detach(md);
	list_for_each_entry_safe(e, etmp, &mn->enabled, list)
		mmb_enabled_free(e);
}

struct mmb_enabled *mmb_dev_enabled_find(struct mmb_net *mn, const char *name)
{
	struct mmb_enabled *e;

	list_for_each_entry(e, &mn->enabled, list)
		if (!strncmp(e->name, name, IFNAMSIZ))
			return e;
	return NULL;
}

/* The first enabled name or pattern that stands for the device name @name. */
static struct mmb_enabled *mmb_dev_enabled_for(struct mmb_net *mn, const char *name,
					       const struct mmb_enabled *skip)
{
	struct mmb_enabled *e;

	list_for_each_entry(e, &mn->enabled, list)
		if (e != skip && mmb_ifname_matches(e->name, name))
			return e;
	return NULL;
}

void mmb_dev_plan_init(struct mmb_dev_plan *p, struct net *net)
{
	p->net = net;
	INIT_LIST_HEAD(&p->names);
	INIT_LIST_HEAD(&p->devs);
}

static bool mmb_dev_planned(const struct mmb_dev_plan *p, const struct net_device *dev)
{
	const struct mmb_dev *md;

	list_for_each_entry(md, &p->devs, list)
		if (md->dev == dev)
			return true;
	return false;
}

/* The names and patterns @mn has enabled, and @p would add. */
static unsigned int mmb_dev_enabled_count(struct mmb_net *mn, const struct mmb_dev_plan *p)
{
	const struct mmb_enabled *e;
	unsigned int n = 0;

	list_for_each_entry(e, &mn->enabled, list)
		n++;
	list_for_each_entry(e, &p->names, list)
		n++;
	return n;
}

/*
 * Under RTNL, plan to enable the name or pattern @name in @p: checked,
 * and each device it stands for that is not attached prepared (the step
 * that can fail). A pattern passes over the devices mmb cannot be enabled
 * on by nature (loopback, VRF); a name refuses them. With @again, a name
 * enabled already (or planned) is no error: nothing is done for it.
 */
int mmb_dev_plan_name(struct mmb_dev_plan *p, const char *name, bool again,
		      struct netlink_ext_ack *extack)
{
	struct mmb_net *mn = mmb_pernet(p->net);
	bool pattern = mmb_ifname_is_pattern(name);
	const char *why = mmb_ifname_invalid(name, true);
	struct net_device *dev;
	struct mmb_enabled *e;
	struct mmb_dev *md;

	ASSERT_RTNL();
	if (why) {
		mmb_nl_err_attr(extack, NULL, why, "");
		return -EINVAL;
	}
	if (mmb_dev_enabled_find(mn, name)) {
		if (again)
			return 0;
		NL_SET_ERR_MSG(extack, "mmb is already enabled on this name");
		return -EEXIST;
	}
	list_for_each_entry(e, &p->names, list)
		if (!strncmp(e->name, name, IFNAMSIZ))
			return 0;
	if (mmb_dev_enabled_count(mn, p) >= MMB_ENABLED_MAX) {
		NL_SET_ERR_MSG(extack, "at most " __stringify(MMB_ENABLED_MAX)
			       " names and patterns are enabled in a namespace (a pattern stands for many)");
		return -ENOSPC;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	strscpy(e->name, name, IFNAMSIZ);
	list_add_tail(&e->list, &p->names);
	for_each_netdev(p->net, dev) {
		if (!mmb_ifname_matches(name, dev->name) || mmb_dev_get_rtnl(dev) ||
		    mmb_dev_planned(p, dev))
			continue;
		if (pattern && ((dev->flags & IFF_LOOPBACK) || netif_is_l3_master(dev)))
			continue;
		md = mmb_dev_prepare(dev, extack);
		if (IS_ERR(md))
			return PTR_ERR(md);	/* the caller aborts the plan */
		md->by = e;
		list_add_tail(&md->list, &p->devs);
	}
	return 0;
}

/* Give up what @p prepared: one wait for the CPUs in its devices' hooks. */
void mmb_dev_plan_abort(struct mmb_dev_plan *p)
{
	struct mmb_enabled *e, *etmp;
	struct mmb_dev *md, *tmp;

	list_for_each_entry(md, &p->devs, list)
		nf_unregister_net_hook(dev_net(md->dev), &md->out);
	if (!list_empty(&p->devs))
		synchronize_net();
	list_for_each_entry_safe(md, tmp, &p->devs, list)
		mmb_dev_free(md);
	list_for_each_entry_safe(e, etmp, &p->names, list)
		mmb_enabled_free(e);
}

/* Apply @p, under the RTNL held since it was made: cannot fail. */
void mmb_dev_plan_commit(struct mmb_dev_plan *p)
{
	struct mmb_net *mn = mmb_pernet(p->net);
	struct mmb_dev *md, *tmp;

	ASSERT_RTNL();
	list_splice_tail_init(&p->names, &mn->enabled);
	/* A device enabled by its index, of a name now enabled: the name's. */
	list_for_each_entry(md, &mn->devs, list)
		if (!md->by)
			md->by = mmb_dev_enabled_for(mn, md->dev->name, NULL);
	list_for_each_entry_safe(md, tmp, &p->devs, list) {
		list_del(&md->list);
		/*
		 * Cannot fail: the device was free of a handler under this
		 * RTNL, and its egress hook was registered as it was prepared.
		 */
		WARN_ON_ONCE(mmb_dev_attach(md, NULL));
	}
	mn->dev_gen++;
}

/*
 * Forget the enabled name or pattern @name of @net: its devices that no
 * other one stands for are detached. Under RTNL.
 */
int mmb_dev_forget(struct net *net, const char *name, struct netlink_ext_ack *extack)
{
	struct mmb_net *mn = mmb_pernet(net);
	struct mmb_enabled *e = mmb_dev_enabled_find(mn, name);
	struct mmb_dev *md, *tmp;

	ASSERT_RTNL();
	if (!e) {
		NL_SET_ERR_MSG(extack, "mmb is not enabled on this name or pattern");
		return -ENOENT;
	}
	list_for_each_entry_safe(md, tmp, &mn->devs, list) {
		if (md->by != e)
			continue;
		md->by = mmb_dev_enabled_for(mn, md->dev->name, e);
		if (!md->by)
			mmb_dev_detach(md);
	}
	mmb_enabled_free(e);
	mn->dev_gen++;
	return 0;
}

/*
 * A device of @mn that is registered (created, or moved in) or renamed:
 * attached if an enabled name stands for it, before it can pass a packet
 * (a device is down as it registers, moves or is renamed). One that
 * cannot be is counted and logged: it passes its packets unfiltered.
 */
static void mmb_dev_appears(struct mmb_net *mn, struct net_device *dev)
{
	struct mmb_enabled *e = mmb_dev_enabled_for(mn, dev->name, NULL);
	struct mmb_dev *md;
	int err;

	if (!e)
		return;
	if (mmb_ifname_is_pattern(e->name) &&
	    ((dev->flags & IFF_LOOPBACK) || netif_is_l3_master(dev)))
		return;
	md = mmb_dev_prepare(dev, NULL);
	if (!IS_ERR(md)) {
		md->by = e;
		err = mmb_dev_attach(md, NULL);
		if (!err) {
			mn->dev_gen++;
			return;
		}
		md = ERR_PTR(err);
	}
	e->failed++;
	mn->dev_gen++;
	net_warn_ratelimited("mmb: %s (enabled as %s) could not be attached (%ld): its packets pass unfiltered\n",
			     dev->name, e->name, PTR_ERR(md));
}

/* An attached device renamed: its name's id, and whether it stays. */
static void mmb_dev_renamed(struct mmb_dev *md)
{
	struct net_device *dev = md->dev;
	struct mmb_net *mn = md->mn;
	u32 id, old;

	if (md->by) {
		md->by = mmb_dev_enabled_for(mn, dev->name, NULL);
		if (!md->by) {
			mmb_dev_detach(md);
			return;
		}
	}
	id = mmb_ifname_get(dev->name);
	if (!id)
		net_warn_ratelimited("mmb: no memory for the new name of %s: no \"in\" or \"out\" rule matches it\n",
				     dev->name);
	/* Packets of the device meanwhile, if any, match its old name or none. */
	old = md->ifid;
	WRITE_ONCE(md->ifid, id);
	if (old)
		mmb_ifname_put(md->ifname);
	strscpy(md->ifname, dev->name, IFNAMSIZ);
	mn->dev_gen++;
}

/*
 * NETDEV_UNREGISTER arrives both when a device goes away and, in its old
 * namespace, when it moves to another one: in both cases mmb lets go.
 * NETDEV_REGISTER arrives when a device is created and, in its new
 * namespace, when it moves in; NETDEV_CHANGENAME when it is renamed.
 */
static int mmb_dev_event(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct mmb_net *mn;
	struct mmb_dev *md;

	switch (event) {
	case NETDEV_UNREGISTER:
		md = mmb_dev_get_rtnl(dev);
		if (md)
			mmb_dev_detach(md);
		/* Routes through it offloaded connections hold (as nf_flow_table_cleanup()). */
		mn = mmb_pernet(dev_net(dev));
		if (mn && mn->live)
			mmb_conns_fast_drop(&mn->conns, dev);
		break;
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
		md = mmb_dev_get_rtnl(dev);
		if (md) {
			if (event == NETDEV_CHANGENAME)
				mmb_dev_renamed(md);
			break;
		}
		/* A namespace being set up has no state yet, and enables nothing. */
		mn = mmb_pernet(dev_net(dev));
		if (mn && mn->live)
			mmb_dev_appears(mn, dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block mmb_dev_notifier = {
	.notifier_call = mmb_dev_event,
};

/*
 * The netdev egress hook point sits behind two static keys that the first
 * egress hook registered turns on and the last one unregistered turns off,
 * each time patching __dev_queue_xmit() while other CPUs run it. mmb holds
 * both for as long as it is loaded: enabling and disabling devices then
 * patches no code under traffic (a device toggled under load left an int3
 * in __dev_queue_xmit() in qemu's TCG), and the cost with no egress hook
 * is a load and a test per packet sent, as with tc's clsact anywhere.
 */
void mmb_dev_keys_hold(void)
{
#ifdef CONFIG_NET_EGRESS
	net_inc_egress_queue();
#endif
#ifdef CONFIG_JUMP_LABEL
	static_key_slow_inc(&nf_hooks_needed[NFPROTO_NETDEV][NF_NETDEV_EGRESS]);
#endif
}

void mmb_dev_keys_release(void)
{
#ifdef CONFIG_JUMP_LABEL
	static_key_slow_dec(&nf_hooks_needed[NFPROTO_NETDEV][NF_NETDEV_EGRESS]);
#endif
#ifdef CONFIG_NET_EGRESS
	net_dec_egress_queue();
#endif
}

int mmb_dev_notifier_register(void)
{
	return register_netdevice_notifier(&mmb_dev_notifier);
}

/* Replays NETDEV_UNREGISTER for every device, which detaches them all. */
void mmb_dev_notifier_unregister(void)
{
	unregister_netdevice_notifier(&mmb_dev_notifier);
}
