// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: module and per-namespace life cycle.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "mmb.h"

unsigned int mmb_net_id __read_mostly;

static int __net_init mmb_net_init(struct net *net)
{
	struct mmb_net *mn = mmb_pernet(net);

	INIT_LIST_HEAD(&mn->devs);
	return 0;
}

static void __net_exit mmb_net_exit(struct net *net)
{
	struct mmb_net *mn = mmb_pernet(net);

	rtnl_lock();
	mmb_dev_disable_all(mn);
	rtnl_unlock();
}

static struct pernet_operations mmb_net_ops = {
	.init = mmb_net_init,
	.exit = mmb_net_exit,
	.id = &mmb_net_id,
	.size = sizeof(struct mmb_net),
};

static int __init mmb_init(void)
{
	int err;

	err = register_pernet_subsys(&mmb_net_ops);
	if (err)
		return err;
	err = mmb_dev_notifier_register();
	if (err)
		goto err_pernet;
	err = mmb_genl_register();
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	mmb_dev_notifier_unregister();
err_pernet:
	unregister_pernet_subsys(&mmb_net_ops);
	return err;
}

static void __exit mmb_exit(void)
{
	mmb_genl_unregister();
	mmb_dev_notifier_unregister();
	unregister_pernet_subsys(&mmb_net_ops);
}

module_init(mmb_init);
module_exit(mmb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmb: middlebox and firewall on the netdev rx_handler");
MODULE_AUTHOR("The mmb developers");
MODULE_ALIAS_GENL_FAMILY(MMB_GENL_NAME);
