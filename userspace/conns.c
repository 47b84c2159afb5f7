// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl show connections, flush connections, monitor: the connection
 * table, as conntrack -L, -F and -E show it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>

#include "../uapi/linux/mmb.h"
#include "mmbctl.h"
#include "print.h"

/* Each state: its word in "set timeout", and in listings. */
static const struct {
	const char *setting;
	const char *name;
} states[__MMB_CONN_STATE_MAX] = {
	[MMB_CONN_TCP_SYN_SENT]		= { "tcp-syn-sent", "syn-sent" },
	[MMB_CONN_TCP_SYN_RECV]		= { "tcp-syn-recv", "syn-recv" },
	[MMB_CONN_TCP_ESTABLISHED]	= { "tcp-established", "established" },
	[MMB_CONN_TCP_FIN_WAIT]		= { "tcp-fin-wait", "fin-wait" },
	[MMB_CONN_TCP_CLOSE_WAIT]	= { "tcp-close-wait", "close-wait" },
	[MMB_CONN_TCP_LAST_ACK]		= { "tcp-last-ack", "last-ack" },
	[MMB_CONN_TCP_TIME_WAIT]	= { "tcp-time-wait", "time-wait" },
	[MMB_CONN_TCP_CLOSE]		= { "tcp-close", "close" },
	[MMB_CONN_TCP_SYN_SENT2]	= { "tcp-syn-sent2", "syn-sent2" },
	[MMB_CONN_UDP_UNREPLIED]	= { "udp-unreplied", "unreplied" },
	[MMB_CONN_UDP_REPLIED]		= { "udp-replied", "replied" },
	[MMB_CONN_ICMP]			= { "icmp", "icmp" },
};

/* The state "set timeout" calls @w, or -1. */
int conn_state_lookup(const char *w)
{
	int i;

	for (i = 0; i < __MMB_CONN_STATE_MAX; i++)
		if (!strcmp(w, states[i].setting))
			return i;
	return strcmp(w, "tcp-unacknowledged") ? -1 : CONN_TIMEOUT_UNACK;
}

const char *conn_state_setting(int state)
{
	if (state == CONN_TIMEOUT_UNACK)
		return "tcp-unacknowledged";
	return state >= 0 && state < __MMB_CONN_STATE_MAX ? states[state].setting : "?";
}

static const char *proto_name(unsigned int proto)
{
	switch (proto) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 1:
		return "icmp";
	case 58:
		return "icmp6";
	}
	return "?";
}

/* An address attribute as text; "?" if it is neither 4 nor 16 bytes. */
static void addr_format(const struct nlattr *a, char *buf, size_t len)
{
	int af;

	snprintf(buf, len, "?");
	if (!a)
		return;
	af = mnl_attr_get_payload_len(a) == 4 ? AF_INET :
	     mnl_attr_get_payload_len(a) == 16 ? AF_INET6 : 0;
	if (af)
		inet_ntop(af, mnl_attr_get_payload(a), buf, len);
}

static unsigned int attr_be16(const struct nlattr *a)
{
	return a && !mnl_attr_validate(a, MNL_TYPE_U16) ? ntohs(mnl_attr_get_u16(a)) : 0;
}

/* One direction: "10.0.0.1:40000 -> 10.0.1.1:80 packets 5 bytes 400". */
static void print_dir(const char *key, const struct nlattr *tuple, const struct nlattr *stats)
{
	struct attrs t = {}, st = {};
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], w[160];
	bool v6;

	if (tuple)
		attrs_nested(tuple, &t);
	if (stats)
		attrs_nested(stats, &st);
	addr_format(t.tb[MMB_TUPLE_A_SADDR], src, sizeof(src));
	addr_format(t.tb[MMB_TUPLE_A_DADDR], dst, sizeof(dst));
	v6 = strchr(src, ':') != NULL;
	print_open_object(key);
	print_string("src", NULL, src);
	print_string("dst", NULL, dst);
	if (t.tb[MMB_TUPLE_A_SPORT]) {
		snprintf(w, sizeof(w), v6 ? "[%s]:%u -> [%s]:%u" : "%s:%u -> %s:%u", src,
			 attr_be16(t.tb[MMB_TUPLE_A_SPORT]), dst,
			 attr_be16(t.tb[MMB_TUPLE_A_DPORT]));
		print_u64("sport", NULL, attr_be16(t.tb[MMB_TUPLE_A_SPORT]));
		print_u64("dport", NULL, attr_be16(t.tb[MMB_TUPLE_A_DPORT]));
	} else {
		snprintf(w, sizeof(w), "%s -> %s id %u", src, dst,
			 attr_be16(t.tb[MMB_TUPLE_A_ICMP_ID]));
		print_u64("id", NULL, attr_be16(t.tb[MMB_TUPLE_A_ICMP_ID]));
		if (t.tb[MMB_TUPLE_A_ICMP_TYPE])
			print_u64("type", NULL, mnl_attr_get_u8(t.tb[MMB_TUPLE_A_ICMP_TYPE]));
	}
	print_string(NULL, " %s", w);
	print_u64("packets", " packets %llu", attr_u64(st.tb[MMB_STATS_A_PACKETS]));
	print_u64("bytes", " bytes %llu", attr_u64(st.tb[MMB_STATS_A_BYTES]));
	print_close_object();
}

/*
 * A connection, as the member @key of an object or an element (NULL);
 * @event (monitor) says what happened to it, or is NULL.
 */
void print_conn(const char *key, const struct nlattr *conn, const char *const *event)
{
	struct attrs c;
	const struct nlattr *h;
	unsigned int proto, state;

	attrs_nested(conn, &c);
	if (!c.tb[MMB_CONN_A_PROTO] || !c.tb[MMB_CONN_A_STATE])
		return;
	proto = mnl_attr_get_u8(c.tb[MMB_CONN_A_PROTO]);
	state = mnl_attr_get_u8(c.tb[MMB_CONN_A_STATE]);
	print_open_object(key);
	if (event) {
		print_string("event", NULL, event[0]);
		print_text("[%s] ", event[1]);
	}
	print_string("proto", "%s", proto_name(proto));
	print_string("state", proto == 6 || proto == 17 ? " %s" : NULL,
		     state < __MMB_CONN_STATE_MAX ? states[state].name : "?");
	print_u64("timeout", " %llus", attr_u32(c.tb[MMB_CONN_A_TIMEOUT]));
	print_dir("orig", c.tb[MMB_CONN_A_ORIG], c.tb[MMB_CONN_A_STATS_ORIG]);
	print_text(", reply");
	print_dir("reply", c.tb[MMB_CONN_A_REPLY], c.tb[MMB_CONN_A_STATS_REPLY]);
	print_bool("assured", " assured", c.tb[MMB_CONN_A_ASSURED] != NULL);
	print_bool("offloaded", " offloaded", c.tb[MMB_CONN_A_OFFLOADED] != NULL);
	print_open_array("rules");
	print_text(" rules");
	if (c.tb[MMB_CONN_A_RULES]) {
		mnl_attr_for_each_nested(h, c.tb[MMB_CONN_A_RULES])
			print_element_u64(" %llu", attr_u32(h));
	}
	print_close_array();
	print_close_object();
	print_text("\n");
}

static int conn_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a;

	attrs_parse(nlh, &a);
	if (a.tb[MMB_A_CONN])
		print_conn(NULL, a.tb[MMB_A_CONN], NULL);
	return MNL_CB_OK;
}

int do_show_connections(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret = EXIT_OK;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	req = mmb_req_new(MMB_CMD_CONN_GET, NLM_F_DUMP);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	print_open_array(NULL);
	/* Printed as they come: connections change with every packet, no retry. */
	if (mmb_nl_talk(req, conn_cb, NULL, &err))
		ret = err_kernel(&err);
	print_close_array();
	print_finish();
	mmb_req_free(req);
	return ret;
}

int do_flush_connections(int argc, char **argv)
{
	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	return cmd_ask(MMB_CMD_CONN_FLUSH, NULL, NULL);
}

/* One event: a line of text, or one JSON object per line. */
static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	static const char *const events[][2] = {
		{ "new", "NEW" }, { "update", "UPDATE" }, { "destroy", "DESTROY" },
	};
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const char *const *event;
	struct attrs a;

	if (g->cmd < MMB_CMD_CONN_NEW || g->cmd > MMB_CMD_CONN_DESTROY)
		return MNL_CB_OK;
	event = events[g->cmd - MMB_CMD_CONN_NEW];
	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_CONN])
		return MNL_CB_OK;
	print_init(stdout, print_is_json(), false);
	print_conn(NULL, a.tb[MMB_A_CONN], event);
	print_finish();
	return MNL_CB_OK;
}

int do_monitor(int argc, char **argv)
{
	struct mmb_nl_err err;

	if (argc > 1 && !strcmp(argv[1], "log"))
		return do_monitor_log(argc, argv);
	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word (monitor log: logged packets)");
	if (mmb_nl_monitor(event_cb, NULL, &err))
		return err_kernel(&err);
	return EXIT_OK;
}
