// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl show stats: what the hook did in this namespace, summed over its
 * enabled interfaces and CPUs, with the flow cache's and the connection
 * table's counters.
 */
#include <linux/genetlink.h>

#include "../uapi/linux/mmb.h"

#include "mmbctl.h"
#include "print.h"

int show_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a, st = {};

	attrs_parse(nlh, &a);
	if (a.tb[MMB_A_STATS])
		attrs_nested(a.tb[MMB_A_STATS], &st);
	print_u64("interfaces", "interfaces %llu", attr_u32(a.tb[MMB_A_DEVICES]));
	print_dev_counts(&st);
	print_text("\n");
	/* No cache: the rules have too few masks to need one. */
	if (st.tb[MMB_STATS_A_CACHE_HITS]) {
		print_open_object("flow_cache");
		print_u64("hits", "flow-cache hits %llu",
			  attr_u64(st.tb[MMB_STATS_A_CACHE_HITS]));
		print_u64("misses", " misses %llu\n", attr_u64(st.tb[MMB_STATS_A_CACHE_MISSES]));
		print_close_object();
	}
	/* The rules' meters summed: only when a rule has one (docs/limit.md). */
	if (st.tb[MMB_STATS_A_LIMIT_EVICTED]) {
		print_open_object("meters");
		print_u64("evicted", "meters evicted %llu",
			  attr_u64(st.tb[MMB_STATS_A_LIMIT_EVICTED]));
		print_u64("full", " full %llu\n", attr_u64(st.tb[MMB_STATS_A_LIMIT_FULL]));
		print_close_object();
	}
	/* Packets log rules matched and did not log, over their rate (docs/log.md). */
	if (st.tb[MMB_STATS_A_LOG_SUPPRESSED])
		print_u64("log_suppressed", "log-suppressed %llu\n",
			  attr_u64(st.tb[MMB_STATS_A_LOG_SUPPRESSED]));
	return MNL_CB_OK;
}

int show_conns_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a, s = {};

	attrs_parse(nlh, &a);
	if (a.tb[MMB_A_SETTINGS])
		attrs_nested(a.tb[MMB_A_SETTINGS], &s);
	print_open_object("connections");
	print_u64("count", "connections %llu ", attr_u32(s.tb[MMB_SET_A_CONN_COUNT]));
	print_conn_counters(s.tb[MMB_SET_A_CONN_STATS]);
	print_close_object();
	return MNL_CB_OK;
}

/*
 * -P: the namespace's counters, each interface's and each rule's, as
 * Prometheus metrics: the same callbacks as show stats, show interfaces and
 * list -j print through, each in its scope.
 */
static int show_stats_prom(char **argv)
{
	int ret;

	print_prom_scope("global");
	print_open_object(NULL);
	ret = cmd_ask(MMB_CMD_STATS_GET, show_stats_cb, NULL);
	if (!ret)
		ret = cmd_ask(MMB_CMD_SETTINGS_GET, show_conns_cb, NULL);
	print_close_object();
	if (!ret) {
		print_prom_scope("interface");
		ret = do_show_interfaces(1, argv);
	}
	if (!ret) {
		print_prom_scope("rule");
		ret = do_list(1, argv);
	}
	if (!ret)
		print_prom_emit(stdout);
	return ret;
}

int do_show_stats(int argc, char **argv)
{
	int ret;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	if (print_is_prom())
		return show_stats_prom(argv);
	print_open_object(NULL);
	ret = cmd_ask(MMB_CMD_STATS_GET, show_stats_cb, NULL);
	if (!ret)
		ret = cmd_ask(MMB_CMD_SETTINGS_GET, show_conns_cb, NULL);
	print_close_object();
	print_finish();
	return ret;
}
