// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: log, a rule's kernel log line per packet (docs/log.md).
 *
 *   LOG := log [ prefix TEXT ] [ level LEVEL ] [ rate N/UNIT ] [ burst N ]
 *          (TEXT: 1 to 64 bytes, no control character, put verbatim before
 *          IN=; LEVEL: emerg alert crit err warn notice info debug or 0-7,
 *          default warn, as nft; UNIT: second minute hour day; without
 *          them, the module's log_rate a second and log_burst)
 *
 * A rule's words, not a target of the kernel's: netlink carries it as
 * MMB_RULE_A_LOG, and "list" and "save" print it after the targets. And
 * "monitor log": the records of the "log" multicast group.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "../uapi/linux/mmb.h"
#include "mmbctl.h"
#include "nl.h"
#include "print.h"
#include "rule.h"

/* A rate's units: their words and seconds. */
static const struct {
	const char *name;
	uint32_t per;
} log_units[] = {
	{ "second", 1 }, { "minute", 60 }, { "hour", 3600 }, { "day", 86400 },
};

#define LOG_UNITS (sizeof(log_units) / sizeof(log_units[0]))

/* The syslog levels' names, as nft's. */
static const char *const log_levels[8] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
};

const char *log_level_name(int level)
{
	return level >= 0 && level < 8 ? log_levels[level] : "unknown";
}

/* log [prefix TEXT] [level LEVEL] at word *@pi, into @r. */
int urule_parse_log(int argc, char **argv, int *pi, struct urule *r)
{
	int i = *pi + 1, l;
	bool prefix = false, level = false, rate = false, burst = false;

	if (r->log)
		return err_word(AT(argv + *pi), "log given twice: a rule logs once");
	r->log = true;
	r->log_argi = AT(argv + *pi);
	r->log_level = MMB_LOG_LEVEL_DEFAULT;
	r->log_prefix[0] = '\0';
	r->log_rate = 0;
	r->log_per = 0;
	r->log_burst = 0;
	for (;;) {
		if (i < argc && !strcmp(argv[i], "prefix") && !prefix) {
			const char *c;
			size_t len, j;

			if (++i == argc)
				return err_word(AT(argv + i),
						"missing TEXT of prefix (quote it: log prefix \"ssh: \")");
			c = argv[i];
			len = strlen(c);
			if (!len || len > MMB_LOG_PREFIX_MAX)
				return err_word(AT(argv + i), "a log prefix is 1 to %d bytes, not %zu",
						MMB_LOG_PREFIX_MAX, len);
			for (j = 0; j < len; j++)
				if ((unsigned char)c[j] < 0x20 || c[j] == 0x7f)
					return err_word(AT(argv + i),
							"a log prefix holds no control character (newline, tab, ...)");
			memcpy(r->log_prefix, c, len + 1);
			r->log_prefix_argi = AT(argv + i);
			prefix = true;
			i++;
		} else if (i < argc && !strcmp(argv[i], "level") && !level) {
			char *end;

			if (++i == argc)
				return err_word(AT(argv + i),
						"missing LEVEL: emerg, alert, crit, err, warn, notice, info, debug or 0-7");
			for (l = 0; l < 8; l++)
				if (!strcmp(argv[i], log_levels[l]))
					break;
			if (l == 8) {
				l = (int)strtol(argv[i], &end, 10);
				if (*end || end == argv[i] || l < 0 || l > 7)
					return err_word(AT(argv + i),
							"unknown log level \"%s\": emerg, alert, crit, err, warn, notice, info, debug or 0-7",
							argv[i]);
			}
			r->log_level = l;
			r->log_level_argi = AT(argv + i);
			level = true;
			i++;
		} else if (i < argc && !strcmp(argv[i], "rate") && !rate) {
			unsigned long n;
			char *end;
			size_t u;

			if (++i == argc)
				return err_word(AT(argv + i),
						"missing N/UNIT of rate: lines a second, minute, hour or day (rate 5/second)");
			n = strtoul(argv[i], &end, 10);
			for (u = 0; *end == '/' && u < LOG_UNITS; u++)
				if (!strcmp(end + 1, log_units[u].name))
					break;
			if (end == argv[i] || *end != '/' || u == LOG_UNITS || !n || n > UINT32_MAX ||
			    argv[i][0] == '-')
				return err_word(AT(argv + i),
						"a log rate is N/second, N/minute, N/hour or N/day, N at least 1");
			r->log_rate = n;
			r->log_per = log_units[u].per;
			r->log_rate_argi = AT(argv + i);
			rate = true;
			i++;
		} else if (i < argc && !strcmp(argv[i], "burst") && !burst) {
			unsigned long n;
			char *end;

			if (++i == argc)
				return err_word(AT(argv + i), "missing N of burst");
			n = strtoul(argv[i], &end, 10);
			if (*end || end == argv[i] || argv[i][0] == '-' || !n || n > MMB_LOG_BURST_MAX)
				return err_word(AT(argv + i), "a log burst is 1 to %d lines",
						MMB_LOG_BURST_MAX);
			r->log_burst = n;
			r->log_burst_argi = AT(argv + i);
			burst = true;
			i++;
		} else {
			break;
		}
	}
	*pi = i;
	return 0;
}

/* MMB_RULE_A_LOG of @r, if it logs. */
void urule_put_log(struct mmb_req *req, const struct urule *r)
{
	struct nlattr *nest;

	if (!r->log)
		return;
	nest = mnl_attr_nest_start(req->nlh, MMB_RULE_A_LOG);
	mmb_req_token(req, nest, r->log_argi);
	if (r->log_prefix[0]) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->log_prefix_argi);
		mnl_attr_put_strz(req->nlh, MMB_LOG_A_PREFIX, r->log_prefix);
	}
	if (r->log_level != MMB_LOG_LEVEL_DEFAULT) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->log_level_argi);
		mnl_attr_put_u8(req->nlh, MMB_LOG_A_LEVEL, r->log_level);
	}
	if (r->log_rate) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->log_rate_argi);
		mnl_attr_put_u32(req->nlh, MMB_LOG_A_RATE, r->log_rate);
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->log_rate_argi);
		mnl_attr_put_u32(req->nlh, MMB_LOG_A_PER, r->log_per);
	}
	if (r->log_burst) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->log_burst_argi);
		mnl_attr_put_u32(req->nlh, MMB_LOG_A_BURST, r->log_burst);
	}
	mnl_attr_nest_end(req->nlh, nest);
}

/* MMB_RULE_A_LOG of a dump into @r: 0, or -1 if it makes no sense. */
int urule_decode_log(const struct nlattr *attr, struct urule *r)
{
	struct attrs la;
	const struct nlattr *p;

	attrs_nested(attr, &la);
	r->log = true;
	r->log_level = la.tb[MMB_LOG_A_LEVEL] ? mnl_attr_get_u8(la.tb[MMB_LOG_A_LEVEL]) :
						MMB_LOG_LEVEL_DEFAULT;
	p = la.tb[MMB_LOG_A_PREFIX];
	if (p && (mnl_attr_validate(p, MNL_TYPE_NUL_STRING) ||
		  mnl_attr_get_payload_len(p) > MMB_LOG_PREFIX_MAX + 1))
		return -1;
	strcpy(r->log_prefix, p ? mnl_attr_get_str(p) : "");
	r->log_rate = la.tb[MMB_LOG_A_RATE] ? mnl_attr_get_u32(la.tb[MMB_LOG_A_RATE]) : 0;
	r->log_per = la.tb[MMB_LOG_A_PER] ? mnl_attr_get_u32(la.tb[MMB_LOG_A_PER]) : 1;
	r->log_burst = la.tb[MMB_LOG_A_BURST] ? mnl_attr_get_u32(la.tb[MMB_LOG_A_BURST]) : 0;
	if (!r->log_rate)
		r->log_per = 0;
	/* A rule that only logs: its count target goes without saying. */
	if (r->nt == 1 && r->t[0].type == MMB_TARGET_COUNT)
		r->nt = 0;
	return 0;
}

/* @s in double quotes as a shell (and -f) reads it back. */
static void quote(const char *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[off++] = '"';
	for (; *s && off + 4 < len; s++) {
		if (strchr("\"\\$`", *s))
			buf[off++] = '\\';
		buf[off++] = *s;
	}
	buf[off++] = '"';
	buf[off] = '\0';
}

/* The word of a rate's unit, or NULL. */
static const char *log_unit(uint32_t per)
{
	size_t u;

	for (u = 0; u < LOG_UNITS; u++)
		if (log_units[u].per == per)
			return log_units[u].name;
	return NULL;
}

void urule_log(const struct urule *r, char *buf, size_t len)
{
	char q[2 * MMB_LOG_PREFIX_MAX + 16], lv[24] = "", rt[48] = "", bu[24] = "";

	buf[0] = '\0';
	if (!r->log)
		return;
	q[0] = '\0';
	if (r->log_prefix[0]) {
		strcpy(q, " prefix ");
		quote(r->log_prefix, q + 8, sizeof(q) - 8);
	}
	if (r->log_level != MMB_LOG_LEVEL_DEFAULT)
		snprintf(lv, sizeof(lv), " level %s", log_level_name(r->log_level));
	if (r->log_rate && log_unit(r->log_per))
		snprintf(rt, sizeof(rt), " rate %u/%s", r->log_rate, log_unit(r->log_per));
	else if (r->log_rate)
		snprintf(rt, sizeof(rt), " rate %u/%useconds", r->log_rate, r->log_per);
	if (r->log_burst)
		snprintf(bu, sizeof(bu), " burst %u", r->log_burst);
	snprintf(buf, len, " log%s%s%s%s", q, lv, rt, bu);
}

void urule_log_json(const struct urule *r)
{
	if (!r->log)
		return;
	print_open_object("log");
	if (r->log_prefix[0])
		print_string("prefix", NULL, r->log_prefix);
	print_string("level", NULL, log_level_name(r->log_level));
	if (r->log_rate) {
		print_u64("rate", NULL, r->log_rate);
		print_u64("per", NULL, r->log_per);
	}
	if (r->log_burst)
		print_u64("burst", NULL, r->log_burst);
	print_close_object();
}

/* An address attribute as text. */
static void addr(const struct nlattr *a, char *buf, size_t len)
{
	unsigned int n = a ? mnl_attr_get_payload_len(a) : 0;

	buf[0] = '\0';
	if (n == 4 || n == 16)
		inet_ntop(n == 4 ? AF_INET : AF_INET6, mnl_attr_get_payload(a), buf, len);
}

/* One logged packet: the kernel's line, or a JSON object per line. */
static int log_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	char s[64], d[64], mac[3 * 64] = "";
	const struct nlattr *m;
	struct attrs a, l;
	unsigned int i, n;

	if (g->cmd != MMB_CMD_LOG)
		return MNL_CB_OK;
	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_LOG])
		return MNL_CB_OK;
	attrs_nested(a.tb[MMB_A_LOG], &l);
	if (!l.tb[MMB_LOG_A_TEXT] || mnl_attr_validate(l.tb[MMB_LOG_A_TEXT], MNL_TYPE_NUL_STRING))
		return MNL_CB_OK;
	if (!print_is_json()) {
		printf("%s\n", mnl_attr_get_str(l.tb[MMB_LOG_A_TEXT]));
		fflush(stdout);
		return MNL_CB_OK;
	}
	print_init(stdout, true, false);
	print_open_object(NULL);
	if (l.tb[MMB_LOG_A_HANDLE])
		print_u64("handle", NULL, mnl_attr_get_u32(l.tb[MMB_LOG_A_HANDLE]));
	if (l.tb[MMB_LOG_A_PREFIX] &&
	    !mnl_attr_validate(l.tb[MMB_LOG_A_PREFIX], MNL_TYPE_NUL_STRING))
		print_string("prefix", NULL, mnl_attr_get_str(l.tb[MMB_LOG_A_PREFIX]));
	if (l.tb[MMB_LOG_A_LEVEL])
		print_string("level", NULL, log_level_name(mnl_attr_get_u8(l.tb[MMB_LOG_A_LEVEL])));
	if (l.tb[MMB_LOG_A_IN] && !mnl_attr_validate(l.tb[MMB_LOG_A_IN], MNL_TYPE_NUL_STRING))
		print_string("in", NULL, mnl_attr_get_str(l.tb[MMB_LOG_A_IN]));
	if (l.tb[MMB_LOG_A_OUT] && !mnl_attr_validate(l.tb[MMB_LOG_A_OUT], MNL_TYPE_NUL_STRING))
		print_string("out", NULL, mnl_attr_get_str(l.tb[MMB_LOG_A_OUT]));
	m = l.tb[MMB_LOG_A_MAC];
	if (m) {
		const unsigned char *p = mnl_attr_get_payload(m);
		size_t off = 0;

		n = mnl_attr_get_payload_len(m);
		for (i = 0; i < n && i < 64; i++)
			off += snprintf(mac + off, sizeof(mac) - off, "%s%02x", i ? ":" : "", p[i]);
		print_string("mac", NULL, mac);
	}
	if (l.tb[MMB_LOG_A_FAMILY])
		print_u64("family", NULL, mnl_attr_get_u8(l.tb[MMB_LOG_A_FAMILY]));
	addr(l.tb[MMB_LOG_A_SADDR], s, sizeof(s));
	addr(l.tb[MMB_LOG_A_DADDR], d, sizeof(d));
	if (s[0])
		print_string("saddr", NULL, s);
	if (d[0])
		print_string("daddr", NULL, d);
	if (l.tb[MMB_LOG_A_LEN])
		print_u64("len", NULL, mnl_attr_get_u32(l.tb[MMB_LOG_A_LEN]));
	if (l.tb[MMB_LOG_A_PROTO])
		print_u64("proto", NULL, mnl_attr_get_u8(l.tb[MMB_LOG_A_PROTO]));
	if (l.tb[MMB_LOG_A_SPORT])
		print_u64("sport", NULL, mnl_attr_get_u16(l.tb[MMB_LOG_A_SPORT]));
	if (l.tb[MMB_LOG_A_DPORT])
		print_u64("dport", NULL, mnl_attr_get_u16(l.tb[MMB_LOG_A_DPORT]));
	if (l.tb[MMB_LOG_A_ICMP_TYPE])
		print_u64("icmp_type", NULL, mnl_attr_get_u8(l.tb[MMB_LOG_A_ICMP_TYPE]));
	if (l.tb[MMB_LOG_A_ICMP_CODE])
		print_u64("icmp_code", NULL, mnl_attr_get_u8(l.tb[MMB_LOG_A_ICMP_CODE]));
	print_string("text", NULL, mnl_attr_get_str(l.tb[MMB_LOG_A_TEXT]));
	print_close_object();
	print_finish();
	fflush(stdout);
	return MNL_CB_OK;
}

/* monitor log: the packets log rules log, as they are logged. */
int do_monitor_log(int argc, char **argv)
{
	struct mmb_nl_err err;

	if (argc > 2)
		return err_word(AT(argv + 2), "unexpected word");
	if (mmb_nl_monitor_group(MMB_GENL_MCGRP_LOG, log_cb, NULL, &err))
		return err_kernel(&err);
	return EXIT_OK;
}
