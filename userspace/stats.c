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

static int stats_cb(const struct nlmsghdr *nlh, void *data)
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
	return MNL_CB_OK;
}

static int conns_cb(const struct nlmsghdr *nlh, void *data)
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

int do_show_stats(int argc, char **argv)
{
	int ret;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	print_open_object(NULL);
	ret = cmd_ask(MMB_CMD_STATS_GET, stats_cb, NULL);
	if (!ret)
		ret = cmd_ask(MMB_CMD_SETTINGS_GET, conns_cb, NULL);
	print_close_object();
	print_finish();
	return ret;
}
