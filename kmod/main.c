// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: module and per-namespace life cycle.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "mmb.h"
#include "test.h"

unsigned int mmb_net_id __read_mostly;

/*
 * Not set, or set to 0 (at load or later): sized as nf_conntrack_max is
 * (mmb_conn_default_max_total()); 0 never means "none at all".
 */
unsigned int mmb_conn_max_total __read_mostly;

static int mmb_conn_max_total_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err = kstrtouint(val, 0, &n);

	if (err)
		return err;
	if (n > MMB_CONN_MAX_LIMIT * 4U)
		return -ERANGE;
	WRITE_ONCE(mmb_conn_max_total, n ?: mmb_conn_default_max_total());
	return 0;
}

static const struct kernel_param_ops mmb_conn_max_total_ops = {
	.set = mmb_conn_max_total_set,
	.get = param_get_uint,
};

module_param_cb(conn_max_total, &mmb_conn_max_total_ops, &mmb_conn_max_total, 0644);
MODULE_PARM_DESC(conn_max_total,
		 "Connections in all network namespaces but the initial one at most (0: as nf_conntrack_max)");

#if IS_ENABLED(CONFIG_MMB_KUNIT_TEST)
struct mmb_test_points mmb_test_points;
#endif

static int __net_init mmb_net_init(struct net *net)
{
	struct mmb_net *mn = mmb_pernet(net);

	int err;

	INIT_LIST_HEAD(&mn->devs);
	INIT_LIST_HEAD(&mn->enabled);
	mmb_reject_limit_init(&mn->reject);
	err = mmb_rules_init(&mn->rules);
	if (err)
		return err;
	err = mmb_conns_init(&mn->conns, net);
	if (err)
		goto err_rules;
	err = mmb_frags_init(&mn->frags);
	if (err)
		goto err_conns;
	err = mmb_log_net_init(&mn->log);
	if (err)
		goto err_frags;
	/* Devices registered from now on are attached if their name is enabled. */
	rtnl_lock();
	mn->live = true;
	rtnl_unlock();
	return 0;

err_frags:
	mmb_frags_exit(&mn->frags);
err_conns:
	mmb_conns_exit(&mn->conns);
err_rules:
	mmb_rules_exit(&mn->rules);
	return err;
}

static void __net_exit mmb_net_exit(struct net *net)
{
	struct mmb_net *mn = mmb_pernet(net);

	rtnl_lock();
	mmb_dev_disable_all(mn);
	rtnl_unlock();
	/* No device can reach the connections and rules any more. */
	mmb_log_net_exit(&mn->log);
	mmb_frags_exit(&mn->frags);
	mmb_conns_exit(&mn->conns);
	mmb_rules_exit(&mn->rules);
}

/*
 * Before any namespace exit (lo unregistering, IPv6's routes freed): the
 * routes offloaded connections hold are dropped, and none is cached again
 * (offload.c).
 */
static void __net_exit mmb_net_pre_exit(struct net *net)
{
	mmb_conns_fast_drop(&mmb_pernet(net)->conns, NULL);
}

/*
 * The connections freed by call_rcu release routes, which free theirs by
 * call_rcu in turn (dst_destroy_rcu(): an IPv6 route's counts are its
 * namespace's): all done before the exits after mmb's (IPv6's) run.
 */
static void __net_exit mmb_net_exit_batch(struct list_head *net_list)
{
	rcu_barrier();
	rcu_barrier();
}

static struct pernet_operations mmb_net_ops = {
	.init = mmb_net_init,
	.pre_exit = mmb_net_pre_exit,
	.exit = mmb_net_exit,
	.exit_batch = mmb_net_exit_batch,
	.id = &mmb_net_id,
	.size = sizeof(struct mmb_net),
};

static int __init mmb_init(void)
{
	int err;

	mmb_fields_init();
	if (!mmb_conn_max_total)
		mmb_conn_max_total = mmb_conn_default_max_total();
	err = mmb_tables_init();
	if (err)
		return err;
	err = mmb_rule_caches_init();
	if (err)
		goto err_classify;
	err = mmb_conn_cache_init();
	if (err)
		goto err_rule_caches;
	err = mmb_rules_module_init();
	if (err)
		goto err_conn;
	mmb_dev_keys_hold();
	err = register_pernet_subsys(&mmb_net_ops);
	if (err)
		goto err_keys;
	err = mmb_dev_notifier_register();
	if (err)
		goto err_pernet;
	err = mmb_masq_notifiers_register();
	if (err)
		goto err_notifier;
	err = mmb_genl_register();
	if (err)
		goto err_masq;
	return 0;

err_masq:
	mmb_masq_notifiers_unregister();
err_notifier:
	mmb_dev_notifier_unregister();
err_pernet:
	unregister_pernet_subsys(&mmb_net_ops);
err_keys:
	mmb_dev_keys_release();
	rcu_barrier();
	mmb_rules_module_exit();
	rcu_barrier();
	rcu_barrier();
err_conn:
	mmb_conn_cache_exit();
err_rule_caches:
	mmb_rule_caches_exit();
err_classify:
	mmb_tables_exit();
	return err;
}

static void __exit mmb_exit(void)
{
	mmb_genl_unregister();
	mmb_masq_notifiers_unregister();
	mmb_dev_notifier_unregister();
	unregister_pernet_subsys(&mmb_net_ops);
	mmb_dev_keys_release();
	/* Replaced rulesets queued to their worker, which frees them. */
	rcu_barrier();
	mmb_rules_module_exit();
	/* Connections freed with call_rcu, then the rules they held. */
	rcu_barrier();
	rcu_barrier();
	/* And the successors of those rules, one grace period after another. */
	mmb_rule_drain();
	mmb_conn_cache_exit();
	mmb_rule_caches_exit();
	mmb_tables_exit();
}

module_init(mmb_init);
module_exit(mmb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmb: middlebox and firewall on the netdev rx_handler");
MODULE_AUTHOR("The mmb developers");
MODULE_ALIAS_GENL_FAMILY(MMB_GENL_NAME);
