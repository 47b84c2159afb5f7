// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl set, mmbctl show settings: the connection table's settings of
 * the namespace, and its counters.
 *
 *   set SETTING [ SETTING ]...
 *   SETTING := timeout STATE SECONDS | conn-max N | tcp-loose { on | off } |
 *              rp-filter { on | off }
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "../uapi/linux/mmb.h"
#include "mmbctl.h"
#include "print.h"

/* A decimal number from @min to @max at word @i; -1 after an error. */
static long long number_at(char **argv, int i, long long min, long long max, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(argv[i], &end, 10);
	if (argv[i][0] < '0' || argv[i][0] > '9' || *end || errno || v < (unsigned long long)min ||
	    v > (unsigned long long)max) {
		err_word(AT(argv + i), "%s is a number from %lld to %lld", what, min, max);
		return -1;
	}
	return v;
}

/* The settings of one "set", each with the word of its value. */
struct settings {
	long long conn_max;
	int loose;
	int rpf;
	long long timeout[CONN_TIMEOUT_UNACK + 1];
	int argi_max, argi_timeout[CONN_TIMEOUT_UNACK + 1];
};

/* One SETTING at argv[*pi] into @s. */
static int setting_parse(int argc, char **argv, int *pi, struct settings *s)
{
	int i = *pi, state;

	if (!strcmp(argv[i], "timeout")) {
		if (++i == argc)
			return err_word(AT(argv + i), "missing STATE after timeout");
		state = conn_state_lookup(argv[i]);
		if (state < 0)
			return err_word(AT(argv + i),
					"unknown state \"%s\" (\"mmbctl help states\" lists them)",
					argv[i]);
		if (++i == argc)
			return err_word(AT(argv + i), "missing SECONDS of %s", argv[i - 1]);
		s->timeout[state] = number_at(argv, i, 1, MMB_TIMEOUT_MAX, "a timeout");
		s->argi_timeout[state] = AT(argv + i);
		if (s->timeout[state] < 0)
			return EXIT_USAGE;
	} else if (!strcmp(argv[i], "conn-max")) {
		if (++i == argc)
			return err_word(AT(argv + i), "missing N after conn-max");
		s->conn_max = number_at(argv, i, 1, MMB_CONN_MAX_LIMIT, "conn-max");
		s->argi_max = AT(argv + i);
		if (s->conn_max < 0)
			return EXIT_USAGE;
	} else if (!strcmp(argv[i], "tcp-loose")) {
		if (++i == argc || (strcmp(argv[i], "on") && strcmp(argv[i], "off")))
			return err_word(AT(argv + i), "tcp-loose is on or off");
		s->loose = !strcmp(argv[i], "on");
	} else if (!strcmp(argv[i], "rp-filter")) {
		if (++i == argc || (strcmp(argv[i], "on") && strcmp(argv[i], "off")))
			return err_word(AT(argv + i), "rp-filter is on or off");
		s->rpf = !strcmp(argv[i], "on");
	} else {
		return err_word(AT(argv + i),
				"unknown setting \"%s\": timeout, conn-max, tcp-loose or rp-filter",
				argv[i]);
	}
	*pi = i + 1;
	return 0;
}

static void settings_put(struct mmb_req *req, const struct settings *s)
{
	struct nlattr *set, *timeouts = NULL, *a;
	int i;

	set = mnl_attr_nest_start(req->nlh, MMB_A_SETTINGS);
	if (s->conn_max) {
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put_u32(req->nlh, MMB_SET_A_CONN_MAX, s->conn_max);
		mmb_req_token(req, a, s->argi_max);
	}
	if (s->loose >= 0)
		mnl_attr_put_u8(req->nlh, MMB_SET_A_TCP_LOOSE, s->loose);
	if (s->rpf >= 0)
		mnl_attr_put_u8(req->nlh, MMB_SET_A_RP_FILTER, s->rpf);
	if (s->timeout[CONN_TIMEOUT_UNACK]) {
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put_u32(req->nlh, MMB_SET_A_TCP_UNACK, s->timeout[CONN_TIMEOUT_UNACK]);
		mmb_req_token(req, a, s->argi_timeout[CONN_TIMEOUT_UNACK]);
	}
	for (i = 0; i < __MMB_CONN_STATE_MAX; i++) {
		if (!s->timeout[i])
			continue;
		if (!timeouts)
			timeouts = mnl_attr_nest_start(req->nlh, MMB_SET_A_TIMEOUTS);
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put_u32(req->nlh, i + 1, s->timeout[i]);
		mmb_req_token(req, a, s->argi_timeout[i]);
	}
	if (timeouts)
		mnl_attr_nest_end(req->nlh, timeouts);
	mnl_attr_nest_end(req->nlh, set);
}

/*
 * "set SETTING..." (argv[0] is "set") as MMB_A_SETTINGS in @req; 0 or an
 * exit code. -f puts it in a batch.
 */
int settings_encode(struct mmb_req *req, int argc, char **argv)
{
	struct settings s = { .loose = -1, .rpf = -1 };
	int i = 1, ret;

	if (argc < 2)
		return err_word(AT(argv + 1),
				"missing SETTING: timeout, conn-max, tcp-loose or rp-filter");
	while (i < argc) {
		ret = setting_parse(argc, argv, &i, &s);
		if (ret)
			return ret;
	}
	settings_put(req, &s);
	return 0;
}

/* All settings of the command apply together, or none (the kernel checks all first). */
int do_set(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret;

	req = mmb_req_new(MMB_CMD_SET, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = settings_encode(req, argc, argv);
	if (!ret)
		ret = mmb_nl_talk(req, NULL, NULL, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

static void print_timeouts(const struct nlattr *nest, const struct nlattr *unack)
{
	const char *un = conn_state_setting(CONN_TIMEOUT_UNACK);
	const struct nlattr *a;

	print_open_object("timeouts");
	print_text("timeout");
	if (nest) {
		mnl_attr_for_each_nested(a, nest) {
			const char *name = conn_state_setting(mnl_attr_get_type(a) - 1);

			print_text(" %s", name);
			print_u64(name, " %llu", attr_u32(a));
		}
	}
	if (unack) {
		print_text(" %s", un);
		print_u64(un, " %llu", attr_u32(unack));
	}
	print_close_object();
	print_text("\n");
}

/* The connection table's counters (MMB_SET_A_CONN_STATS): one line. */
void print_conn_counters(const struct nlattr *nest)
{
	struct attrs st = {};

	if (nest)
		attrs_nested(nest, &st);
	print_open_object("stats");
	print_u64("created", "created %llu", attr_u64(st.tb[MMB_CONN_STATS_A_CREATED]));
	print_u64("evicted", " evicted %llu", attr_u64(st.tb[MMB_CONN_STATS_A_EVICTED]));
	print_u64("refused", " refused %llu", attr_u64(st.tb[MMB_CONN_STATS_A_REFUSED]));
	print_u64("expired", " expired %llu", attr_u64(st.tb[MMB_CONN_STATS_A_EXPIRED]));
	print_u64("ended", " ended %llu", attr_u64(st.tb[MMB_CONN_STATS_A_ENDED]));
	print_u64("nomem", " nomem %llu", attr_u64(st.tb[MMB_CONN_STATS_A_NOMEM]));
	print_u64("nat_full", " nat-full %llu", attr_u64(st.tb[MMB_CONN_STATS_A_NAT_FULL]));
	print_u64("spoofed", " spoofed %llu", attr_u64(st.tb[MMB_CONN_STATS_A_SPOOFED]));
	print_u64("wrong_iif", " wrong-iif %llu", attr_u64(st.tb[MMB_CONN_STATS_A_WRONG_IIF]));
	print_u64("many_rules", " many-rules %llu", attr_u64(st.tb[MMB_CONN_STATS_A_MANY_RULES]));
	print_u64("capped", " capped %llu", attr_u64(st.tb[MMB_CONN_STATS_A_CAPPED]));
	print_close_object();
	print_text("\n");
}

static int settings_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a, s;

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_SETTINGS])
		return MNL_CB_OK;
	attrs_nested(a.tb[MMB_A_SETTINGS], &s);
	print_open_object(NULL);
	print_u64("conn_max", "conn-max %llu", attr_u32(s.tb[MMB_SET_A_CONN_MAX]));
	print_bool("tcp_loose", NULL, s.tb[MMB_SET_A_TCP_LOOSE] &&
		   mnl_attr_get_u8(s.tb[MMB_SET_A_TCP_LOOSE]));
	print_text(" tcp-loose %s\n", s.tb[MMB_SET_A_TCP_LOOSE] &&
		   mnl_attr_get_u8(s.tb[MMB_SET_A_TCP_LOOSE]) ? "on" : "off");
	print_bool("rp_filter", NULL, s.tb[MMB_SET_A_RP_FILTER] &&
		   mnl_attr_get_u8(s.tb[MMB_SET_A_RP_FILTER]));
	if (s.tb[MMB_SET_A_RP_FILTER])
		print_text("rp-filter %s\n", mnl_attr_get_u8(s.tb[MMB_SET_A_RP_FILTER]) ?
			   "on" : "off");
	print_u64("connections", "connections %llu", attr_u32(s.tb[MMB_SET_A_CONN_COUNT]));
	print_u64("conn_size", " bytes-per-connection %llu\n",
		  attr_u32(s.tb[MMB_SET_A_CONN_SIZE]));
	print_timeouts(s.tb[MMB_SET_A_TIMEOUTS], s.tb[MMB_SET_A_TCP_UNACK]);
	print_conn_counters(s.tb[MMB_SET_A_CONN_STATS]);
	print_close_object();
	return MNL_CB_OK;
}

int do_show_settings(int argc, char **argv)
{
	int ret;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	ret = cmd_ask(MMB_CMD_SETTINGS_GET, settings_cb, NULL);
	print_finish();
	return ret;
}
