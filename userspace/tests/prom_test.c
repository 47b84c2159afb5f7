// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl -P show stats on fixed answers: the callbacks of show stats, show
 * interfaces and list are given kernel messages built here (two devices,
 * two rules, every counter a different number) and print in Prometheus'
 * format. The output goes to stdout for tests/promcheck.py (the format's
 * rules) and is compared with tests/prom_expected.txt; every counter of
 * the answers must appear with its number. Prints TAP.
 *
 * usage: tests/prom_test EXPECTED [OUTPUT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "../uapi/linux/mmb.h"
#include "mmbctl.h"
#include "print.h"
#include "rule.h"

bool opt_stats;
bool opt_check;
static int n, failed;

static void result(bool ok, const char *name)
{
	n++;
	if (!ok)
		failed++;
	printf("%sok %d - prom: %s\n", ok ? "" : "not ", n, name);
}

static char buf[16384];

static struct nlmsghdr *msg(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = 0;
	return nlh;
}

/* The counters of one hook, each @base + its attribute number. */
static void hook_stats(struct nlmsghdr *nlh, uint16_t type, uint64_t base, bool cache)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	uint16_t a;

	for (a = MMB_STATS_A_PACKETS; a < __MMB_STATS_A_MAX; a++) {
		if (a == MMB_STATS_A_NOFIT ||
		    (!cache && (a == MMB_STATS_A_CACHE_HITS || a == MMB_STATS_A_CACHE_MISSES ||
				a == MMB_STATS_A_LOG_SUPPRESSED)))
			continue;
		mnl_attr_put_u64(nlh, a, base + a);
	}
	mnl_attr_nest_end(nlh, nest);
}

static void feed(void)
{
	static const char *const ifnames[] = { "eth0", "we\"ird\\" };
	struct nlattr *nest, *conn, *rule;
	struct nlmsghdr *nlh;
	struct urule r;
	struct mmb_req *req;
	char *argv[8];
	int i;
	uint16_t a;

	print_prom_scope("global");
	print_open_object(NULL);
	nlh = msg();
	mnl_attr_put_u32(nlh, MMB_A_DEVICES, 2);
	hook_stats(nlh, MMB_A_STATS, 1000, true);
	show_stats_cb(nlh, NULL);
	nlh = msg();
	nest = mnl_attr_nest_start(nlh, MMB_A_SETTINGS);
	mnl_attr_put_u32(nlh, MMB_SET_A_CONN_COUNT, 7);
	conn = mnl_attr_nest_start(nlh, MMB_SET_A_CONN_STATS);
	for (a = MMB_CONN_STATS_A_CREATED; a < __MMB_CONN_STATS_A_MAX; a++)
		mnl_attr_put_u64(nlh, a, 2000 + a);
	mnl_attr_nest_end(nlh, conn);
	mnl_attr_nest_end(nlh, nest);
	show_conns_cb(nlh, NULL);
	print_close_object();

	print_prom_scope("interface");
	print_open_array(NULL);
	for (i = 0; i < 2; i++) {
		nlh = msg();
		mnl_attr_put_u32(nlh, MMB_A_IFINDEX, 3 + i);
		mnl_attr_put_strz(nlh, MMB_A_IFNAME, ifnames[i]);
		hook_stats(nlh, MMB_A_DEV_STATS, 3000 + 100 * i, false);
		show_dev_cb(nlh, NULL);
	}
	print_close_array();

	print_prom_scope("rule");
	print_open_array(NULL);
	for (i = 0; i < 2; i++) {
		char w[2][40] = { "tcp-dport", "22" };

		/* A rule as mmbctl sends it, then its handle and counters. */
		argv[0] = w[0];
		argv[1] = w[1];
		argv[2] = i ? "add" : "drop";
		argv[3] = "tcp-opt-sackp";
		cur.n = i ? 4 : 3;
		cur.w = argv;
		if (urule_parse(cur.n, argv, 0, &r))
			return;
		req = mmb_req_new(MMB_CMD_RULE_GET, 0);
		urule_put(req, &r);
		nlh = msg();
		memcpy(mnl_nlmsg_get_payload_tail(nlh), mnl_nlmsg_get_payload_offset(req->nlh, 4),
		       req->nlh->nlmsg_len - MNL_NLMSG_HDRLEN - 4);
		rule = mnl_nlmsg_get_payload_tail(nlh);
		nlh->nlmsg_len += req->nlh->nlmsg_len - MNL_NLMSG_HDRLEN - 4;
		mnl_attr_put_u32(nlh, MMB_RULE_A_HANDLE, 5 + i);
		nest = mnl_attr_nest_start(nlh, MMB_RULE_A_STATS);
		mnl_attr_put_u64(nlh, MMB_STATS_A_PACKETS, 4000 + i);
		mnl_attr_put_u64(nlh, MMB_STATS_A_BYTES, 5000 + i);
		if (i)
			mnl_attr_put_u64(nlh, MMB_STATS_A_NOFIT, 6000 + i);
		mnl_attr_nest_end(nlh, nest);
		/* The rule's nest grows over what was put after it. */
		rule->nla_len = (char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)rule;
		mmb_req_free(req);
		list_rule_cb(nlh, &r);
	}
	print_close_array();
}

int main(int argc, char **argv)
{
	char *out = NULL, *want = NULL, line[256];
	size_t len = 0, wlen = 0;
	FILE *f = open_memstream(&out, &len), *w;
	char *p;
	int i;

	print_init_prom(f);
	feed();
	print_prom_emit(f);
	fclose(f);
	if (argc > 2) {
		w = fopen(argv[2], "w");
		if (w) {
			fputs(out, w);
			fclose(w);
		}
	}
	w = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (w) {
		FILE *m = open_memstream(&want, &wlen);

		while (fgets(line, sizeof(line), w))
			fputs(line, m);
		fclose(m);
		fclose(w);
	}
	result(want && !strcmp(out, want), "show stats -P prints tests/prom_expected.txt");
	/* Every counter the answers held, by its number. */
	for (i = 0; i < 2; i++) {
		char num[32];
		uint16_t a;
		bool all = true;

		for (a = MMB_STATS_A_PACKETS; a < __MMB_STATS_A_MAX; a++) {
			/* A rule's own: options not added, a meter's keys. */
			if (a == MMB_STATS_A_NOFIT || a == MMB_STATS_A_LIMIT_EVICTED ||
			    a == MMB_STATS_A_LIMIT_FULL || (i && (a == MMB_STATS_A_CACHE_HITS ||
							     a == MMB_STATS_A_CACHE_MISSES ||
							     a == MMB_STATS_A_LOG_SUPPRESSED)))
				continue;
			snprintf(num, sizeof(num), " %u\n", (i ? 3100 : 1000) + a);
			if (!strstr(out, num))
				all = false;
		}
		result(all, i ? "every counter of an interface is a sample" :
				"every counter of the namespace is a sample");
	}
	p = strstr(out, "mmb_rule_nofit_total{rule=\"6\"} 6001\n");
	result(p && strstr(out, "mmb_rule_packets_total{rule=\"5\"} 4000\n") &&
	       strstr(out, "mmb_rule_bytes_total{rule=\"6\"} 5001\n") &&
	       !strstr(out, "mmb_rule_nofit_total{rule=\"5\"}"),
	       "each rule's counters, labelled by handle");
	result(strstr(out, "mmb_interface_packets_total{interface=\"we\\\"ird\\\\\"} 3102\n") != NULL,
	       "an interface's name is escaped in its label");
	result(strstr(out, "mmb_connection_events_total{event=\"capped\"} 2012\n") &&
	       strstr(out, "mmb_connections 7\n") && strstr(out, "# TYPE mmb_connections gauge\n"),
	       "the connection table's counters and count");
	{
		char e[16];

		prom_escape(e, sizeof(e), "e\xc3\xa9\xff\"");
		result(!strcmp(e, "e\xc3\xa9\xef\xbf\xbd\\\""),
		       "a label keeps UTF-8 and makes a stray byte U+FFFD");
		prom_escape(e, 6, "ab\xe2\x82\xac");
		result(!strcmp(e, "ab"), "a label cut short cuts no character in two");
	}
	printf("1..%d\n", n);
	free(out);
	free(want);
	return failed != 0;
}
