// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * mmbctl trace: ask the kernel what it would do with one packet, described
 * by field values or given as hex bytes, and print its answer: the rules
 * that apply (as list prints them), the connection, the verdict, the
 * packet before and after rewriting.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "../uapi/linux/mmb_fields.h"
#include "mmbctl.h"
#include "print.h"
#include "rule.h"

/*
 * Bytes of hex a trace takes: a jumbo frame's packet. The answer carries it
 * twice (as traced, as rewritten), within what a read of the socket takes.
 */
#define TRACE_PACKET_MAX 9000

/* What the words ask for. */
struct trace_req {
	uint32_t ifindex;
	int family, proto;		/* 0: not said */
	int family_argi, proto_argi;
	uint8_t *bytes;			/* hex BYTES */
	int nbytes;
	int bytes_argi;
};

/* --- the words ---------------------------------------------------------- */

static int hex_digit(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* hex BYTES: the words from @i on, each hex digits, with or without 0x. */
static int parse_hex(int argc, char **argv, int i, struct trace_req *t)
{
	int j;

	if (i >= argc)
		return err_word(AT(argv + i), "hex needs the packet's bytes");
	t->bytes = malloc(TRACE_PACKET_MAX);
	if (!t->bytes)
		return err_sys("allocating a packet", ENOMEM);
	t->bytes_argi = AT(argv + i);
	for (; i < argc; i++) {
		const char *w = argv[i];

		if (w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
			w += 2;
		for (j = 0; w[j]; j++)
			if (!isxdigit((unsigned char)w[j]))
				return err_word(AT(argv + i), "not hex bytes");
		if (!j || j % 2)
			return err_word(AT(argv + i), "hex bytes come in pairs of digits");
		for (j = 0; w[j]; j += 2) {
			if (t->nbytes == TRACE_PACKET_MAX)
				return err_word(AT(argv + i), "a packet is at most %d bytes",
						TRACE_PACKET_MAX);
			t->bytes[t->nbytes++] = hex_digit(w[j]) << 4 | hex_digit(w[j + 1]);
		}
	}
	return 0;
}

/* Set what a field says of the packet's family (@fam) or protocol (@proto). */
static int pin(int *have, int *have_argi, int want, int argi, const char *what)
{
	if (!want)
		return 0;
	if (*have && *have != want)
		return err_word(argi, "%s does not go with word %d's", what, *have_argi);
	*have = want;
	*have_argi = argi;
	return 0;
}

/* The family net-proto, ip-proto or ip6-next name, or the protocol they (and l4-proto) do. */
static int parse_structural(int field, const uint8_t *value, int vlen, int argi,
			    struct trace_req *t)
{
	unsigned int v = vlen == 2 ? value[0] << 8 | value[1] : value[0];

	if (field == MMB_FIELD_NET_PROTO) {
		if (v != 0x0800 && v != 0x86dd)
			return err_word(argi, "a traced packet is ip4 or ip6");
		return pin(&t->family, &t->family_argi, v == 0x0800 ? 4 : 6, argi, "the family");
	}
	if (field != MMB_FIELD_L4_PROTO &&
	    pin(&t->family, &t->family_argi, field == MMB_FIELD_IP_PROTO ? 4 : 6, argi,
		"the family"))
		return EXIT_USAGE;
	return pin(&t->proto, &t->proto_argi, v, argi, "the protocol");
}

/*
 * FIELD VALUE pairs into MMB_TRACE_A_FIELDS of @req, and what they pin;
 * "in IFACE"; "hex BYTES..." to the end.
 */
static int parse_words(int argc, char **argv, struct mmb_req *req, struct trace_req *t)
{
	struct nlattr *fields = NULL, *m, *a;
	char msg[160];
	uint8_t value[MMB_PAYLOAD_MAX];
	int i, field, vlen, plen, n = 0, ret;
	bool seen[__MMB_FIELD_MAX] = {};

	for (i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "hex")) {
			if (n)
				return err_word(AT(argv + i), "a packet is given as fields or as hex, not both");
			return parse_hex(argc, argv, i + 1, t);
		}
		field = field_lookup(argv[i]);
		if (field < 0)
			return err_word(AT(argv + i), "unknown field \"%s\" (fields: mmbctl help fields)",
					argv[i]);
		if (i + 1 >= argc)
			return err_word(AT(argv + i + 1), "%s needs a value", argv[i]);
		if (field == MMB_FIELD_OUT || field == MMB_FIELD_LEAVING)
			return err_word(AT(argv + i), "a trace judges an arriving packet: %s has no place in it",
					argv[i]);
		if (field == MMB_FIELD_IN) {
			if (t->ifindex)
				return err_word(AT(argv + i), "in is given twice");
			t->ifindex = mmb_nl_dry ? 1 : if_nametoindex(argv[i + 1]);
			if (!t->ifindex)
				return err_word(AT(argv + i + 1), "no interface \"%s\"", argv[i + 1]);
			continue;
		}
		if (seen[field])
			return err_word(AT(argv + i), "%s is given twice", argv[i]);
		seen[field] = true;
		if (value_parse(field, argv[i + 1], value, &vlen, &plen, msg, sizeof(msg)))
			return err_word(AT(argv + i + 1), "%s", msg);
		if (plen != field_bits(field))
			return err_word(AT(argv + i + 1), "a traced packet's address takes no prefix");
		if (field == MMB_FIELD_NET_PROTO || field == MMB_FIELD_IP_PROTO ||
		    field == MMB_FIELD_IP6_NEXT || field == MMB_FIELD_L4_PROTO) {
			ret = parse_structural(field, value, vlen, AT(argv + i + 1), t);
			if (ret)
				return ret;
			continue;
		}
		if ((field_flags(field) & MMB_FIELD_F_NO_MOD) || !field_bits(field) ||
		    field_is_opt(field))
			return err_word(AT(argv + i),
					"mmb makes %s; give the packet as hex BYTES to set it",
					argv[i]);
		if (pin(&t->family, &t->family_argi, mmb_field_names[field].family, AT(argv + i),
			"the family") ||
		    pin(&t->proto, &t->proto_argi, mmb_field_names[field].l4, AT(argv + i),
			"the protocol"))
			return EXIT_USAGE;
		if (!fields)
			fields = mnl_attr_nest_start(req->nlh, MMB_TRACE_A_FIELDS);
		m = mnl_attr_nest_start(req->nlh, ++n);
		mmb_req_token(req, m, AT(argv + i));
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put_u16(req->nlh, MMB_MATCH_A_FIELD, field);
		mmb_req_token(req, a, AT(argv + i));
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put(req->nlh, MMB_MATCH_A_VALUE, vlen, value);
		mmb_req_token(req, a, AT(argv + i + 1));
		mnl_attr_nest_end(req->nlh, m);
	}
	if (fields)
		mnl_attr_nest_end(req->nlh, fields);
	return 0;
}

/* --- the answer --------------------------------------------------------- */

/* The rules a trace names, with their text from a dump of the rules. */
struct trace_rules {
	int n;
	uint32_t handle[256];
	char *text[256];
	struct urule r;
};

static int rules_cb(const struct nlmsghdr *nlh, void *data)
{
	struct trace_rules *tr = data;
	struct attrs a, stats;
	char text[URULE_TEXT_MAX], quoted[2 * URULE_TEXT_MAX], log[URULE_LOG_MAX];
	uint32_t handle;
	int i;

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_RULE] || urule_decode(a.tb[MMB_A_RULE], &tr->r, &handle, &stats))
		return MNL_CB_OK;
	for (i = 0; i < tr->n && tr->handle[i] != handle; i++)
		;
	if (i == tr->n || tr->text[i])
		return MNL_CB_OK;
	urule_format(&tr->r, text, sizeof(text));
	words_quote(text, quoted, sizeof(quoted));
	urule_log(&tr->r, log, sizeof(log));
	if (asprintf(&tr->text[i], "%s %s%s", tr->r.stateful ? "add-stateful" : "add", quoted,
		     log) < 0)
		tr->text[i] = NULL;
	return MNL_CB_OK;
}

/* "ip 192.0.2.1 -> 192.0.2.2 ttl 64 ... tcp 1024 -> 80 flags S ...", or what can be read. */
static void packet_text(const uint8_t *p, size_t n, char *buf, size_t len)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	unsigned int l4 = 0, proto = 256, off = 0, frag = 0;
	size_t o = 0;

#define OUT(...) (o += snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__))
	buf[0] = 0;
	if (n >= 20 && p[0] >> 4 == 4 && (p[0] & 15) >= 5) {
		inet_ntop(AF_INET, p + 12, src, sizeof(src));
		inet_ntop(AF_INET, p + 16, dst, sizeof(dst));
		frag = (p[6] << 8 | p[7]) & 0x1fff;
		OUT("ip %s -> %s dscp %u ecn %u ttl %u id %u len %u", src, dst, p[1] >> 2, p[1] & 3,
		    p[8], p[4] << 8 | p[5], p[2] << 8 | p[3]);
		if (p[6] & 0x40)
			OUT(" df");
		if (p[6] & 0x20)
			OUT(" mf");
		if (frag)
			OUT(" frag-offset %u", frag);
		proto = p[9];
		off = (p[0] & 15) * 4;
	} else if (n >= 40 && p[0] >> 4 == 6) {
		inet_ntop(AF_INET6, p + 8, src, sizeof(src));
		inet_ntop(AF_INET6, p + 24, dst, sizeof(dst));
		OUT("ip6 %s -> %s traffic-class %u flow-label %u hop-limit %u len %u", src, dst,
		    (p[0] & 15) << 4 | p[1] >> 4, (p[1] & 15) << 16 | p[2] << 8 | p[3], p[7],
		    p[4] << 8 | p[5]);
		proto = p[6];
		off = 40;
	} else {
		OUT("%zu bytes, not an IP header mmbctl can read", n);
		return;
	}
	if (frag)
		return;
	l4 = n - off;
	if (proto == 6 && l4 >= 20) {
		static const char flags[] = "FSRPAUEC";
		const uint8_t *h = p + off;
		char f[9];
		int i, k = 0;

		for (i = 0; i < 8; i++)
			if (h[13] & (1 << i))
				f[k++] = flags[i];
		f[k] = 0;
		OUT(" tcp %u -> %u flags %s seq %u ack %u win %u", h[0] << 8 | h[1], h[2] << 8 | h[3],
		    k ? f : "none", (unsigned int)(h[4] << 24 | h[5] << 16 | h[6] << 8 | h[7]),
		    (unsigned int)(h[8] << 24 | h[9] << 16 | h[10] << 8 | h[11]),
		    h[14] << 8 | h[15]);
		if ((h[12] >> 4) > 5)
			OUT(" options %u bytes", (h[12] >> 4) * 4 - 20);
	} else if (proto == 17 && l4 >= 8) {
		OUT(" udp %u -> %u", p[off] << 8 | p[off + 1], p[off + 2] << 8 | p[off + 3]);
	} else if ((proto == 1 || proto == 58) && l4 >= 4) {
		OUT(" %s type %u code %u", proto == 1 ? "icmp" : "icmp6", p[off], p[off + 1]);
		if (l4 >= 8 && p[off] == (proto == 1 ? 8 : 128))
			OUT(" id %u", p[off + 4] << 8 | p[off + 5]);
	} else {
		OUT(" proto %u", proto);
	}
#undef OUT
}

static void print_packet(const char *key, const char *label, const struct nlattr *a)
{
	const uint8_t *p = mnl_attr_get_payload(a);
	size_t n = mnl_attr_get_payload_len(a), i;
	char *hex = malloc(2 * n + 1), text[512];

	if (!hex)
		return;
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", p[i]);
	hex[2 * n] = 0;
	packet_text(p, n, text, sizeof(text));
	print_open_object(key);
	print_text("%s", label);
	print_string("text", " %s\n", text);
	print_string("hex", "  %s\n", hex);
	print_close_object();
	free(hex);
}

static const char *const how_names[][2] = {
	[MMB_TRACE_MATCHED] = { "matched", "matches" },
	[MMB_TRACE_STATEFUL] = { "stateful", "matches (stateful)" },
	[MMB_TRACE_IGNORED] = { "ignored", "matches, not applied (a known connection's packet)" },
	[MMB_TRACE_CONN] = { "connection", "applies as the connection's" },
	[MMB_TRACE_CUT] = { "cut", "matches, cut off by a verdict of higher priority" },
	[MMB_TRACE_LIMITED] = { "limited", "matches, not applied: its limit leaves it out (no token taken)" },
	[MMB_TRACE_CTCOUNT] = { "ct-count", "its matches hold, its ct count does not: not applied" },
};

static const char *const verdict_names[][2] = {
	[MMB_TRACE_PASS] = { "pass", "pass: to the stack (no rule accepts or drops it)" },
	[MMB_TRACE_ACCEPT] = { "accept", "accept" },
	[MMB_TRACE_DROP] = { "drop", "drop" },
	[MMB_TRACE_DROP_RANDOM] = { "drop-random", "drop, by chance (a rule's drop PERCENT)" },
};

static const char *const parse_names[][2] = {
	[MMB_TRACE_PARSED] = { "parsed", NULL },
	[MMB_TRACE_MALFORMED] = { "malformed",
				  "an IP header mmb cannot read: not judged, the stack drops it" },
	[MMB_TRACE_BAD_FRAGMENT] = { "bad-fragment",
				     "a fragment hiding or overlapping the L4 header: dropped" },
	[MMB_TRACE_LONG_CHAIN] = { "long-chain",
				   "an IPv6 header chain longer than mmb walks: dropped" },
};

/* A packet of an offloaded connection: the fast path, or why not (docs/offload.md). */
static const char *const fast_names[][2] = {
	[MMB_FAST_OK] = { "yes", "yes, sent on from the rx_handler" },
	[MMB_FAST_NOT_FORWARD] = { "not-forward", "no: not a plain packet to forward" },
	[MMB_FAST_HEADER] = { "header",
			      "no: IP options, extension headers, a fragment or a bad header" },
	[MMB_FAST_TCP_FLAGS] = { "tcp-flags", "no: SYN, FIN or RST (the state changes)" },
	[MMB_FAST_TTL] = { "ttl", "no: TTL or hop limit 1 (the stack sends time exceeded)" },
	[MMB_FAST_FORWARDING] = { "forwarding", "no: forwarding is off where it arrives" },
	[MMB_FAST_XFRM] = { "xfrm", "no: IPsec policies" },
	[MMB_FAST_ROUTE] = { "route", "no: no route forwards it (local, unreachable, back out)" },
	[MMB_FAST_DEV_DOWN] = { "dev-down", "no: the way out is down or has no carrier" },
	[MMB_FAST_MTU] = { "mtu", "no: over the route's MTU (the stack answers or fragments)" },
	[MMB_FAST_NEIGH] = { "neigh", "no: the next hop's neighbour is not reachable" },
	[MMB_FAST_ROOM] = { "room", "no: its head is shared or too short" },
	[MMB_FAST_UNCACHED] = { "uncached",
				"not yet: the next packet of its direction looks up its route" },
	[MMB_FAST_IIF] = { "iif", "no: it came in on another device than its route is for" },
};

#define NAMED(tbl, v) ((v) < sizeof(tbl) / sizeof(tbl[0]) ? (v) : 0)

static void print_rules(const struct nlattr *nest, struct trace_rules *tr)
{
	const struct nlattr *r;
	struct attrs ra;
	int i = 0;
	unsigned int how;

	print_open_array("rules");
	mnl_attr_for_each_nested(r, nest) {
		attrs_nested(r, &ra);
		how = ra.tb[MMB_TRACE_RULE_A_HOW] ? mnl_attr_get_u8(ra.tb[MMB_TRACE_RULE_A_HOW]) : 0;
		how = NAMED(how_names, how);
		print_open_object(NULL);
		print_u64("handle", "rule %llu", attr_u32(ra.tb[MMB_TRACE_RULE_A_HANDLE]));
		print_string("how", NULL, how_names[how][0]);
		print_text(" %s", how_names[how][1]);
		if (ra.tb[MMB_TRACE_RULE_A_CTCOUNT])
			print_u64("ct_count", " (its key holds %llu connections)",
				  attr_u32(ra.tb[MMB_TRACE_RULE_A_CTCOUNT]));
		if (i < tr->n && tr->text[i])
			print_string("rule", ": %s", tr->text[i]);
		if (ra.tb[MMB_TRACE_RULE_A_LOG]) {
			print_bool("log", NULL, true);
			print_text(" (would log it; a trace logs nothing)");
		}
		print_close_object();
		print_text("\n");
		i++;
	}
	print_close_array();
}

/* Handles of the answer's rules, for their text. */
static void rules_wanted(const struct nlattr *nest, struct trace_rules *tr)
{
	const struct nlattr *r;
	struct attrs ra;

	mnl_attr_for_each_nested(r, nest) {
		if (tr->n == 256)
			break;
		attrs_nested(r, &ra);
		tr->handle[tr->n++] = attr_u32(ra.tb[MMB_TRACE_RULE_A_HANDLE]);
	}
}

struct trace_answer {
	char *msg;		/* a copy of the answer */
	size_t len;
};

static int answer_cb(const struct nlmsghdr *nlh, void *data)
{
	struct trace_answer *ans = data;

	free(ans->msg);
	ans->msg = malloc(nlh->nlmsg_len);
	if (!ans->msg)
		return MNL_CB_ERROR;
	memcpy(ans->msg, nlh, nlh->nlmsg_len);
	ans->len = nlh->nlmsg_len;
	return MNL_CB_OK;
}

static int print_answer(const struct nlmsghdr *nlh)
{
	struct trace_rules *tr = calloc(1, sizeof(*tr));
	struct attrs a, t;
	struct mmb_nl_err err;
	struct mmb_req *req;
	unsigned int v, parse;
	int i;

	if (!tr)
		return err_sys("allocating rules", ENOMEM);
	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_TRACE]) {
		free(tr);
		fprintf(stderr, "Error: the kernel's answer has no trace\n");
		return EXIT_FAIL;
	}
	attrs_nested(a.tb[MMB_A_TRACE], &t);
	if (t.tb[MMB_TRACE_A_RULES])
		rules_wanted(t.tb[MMB_TRACE_A_RULES], tr);
	if (tr->n) {
		req = mmb_req_new(MMB_CMD_RULE_GET, NLM_F_DUMP);
		/* Without their text the rules are still named by handle. */
		if (req)
			mmb_nl_dump(req, rules_cb, tr, &err);
		mmb_req_free(req);
	}
	print_open_object(NULL);
	if (t.tb[MMB_TRACE_A_PACKET])
		print_packet("packet", "packet", t.tb[MMB_TRACE_A_PACKET]);
	parse = NAMED(parse_names, t.tb[MMB_TRACE_A_PARSE] ?
		      mnl_attr_get_u8(t.tb[MMB_TRACE_A_PARSE]) : 0);
	print_string("parse", NULL, parse_names[parse][0]);
	if (parse_names[parse][1])
		print_text("parse: %s\n", parse_names[parse][1]);
	if (t.tb[MMB_TRACE_A_RULES])
		print_rules(t.tb[MMB_TRACE_A_RULES], tr);
	if (a.tb[MMB_A_CONN]) {
		v = t.tb[MMB_TRACE_A_CONN_DIR] ? mnl_attr_get_u8(t.tb[MMB_TRACE_A_CONN_DIR]) : 0;
		print_string("direction", NULL, v ? "reply" : "original");
		print_bool("related", NULL, t.tb[MMB_TRACE_A_RELATED] != NULL);
		print_text("connection (%s%s): ", t.tb[MMB_TRACE_A_RELATED] ? "related, " : "",
			   v ? "reply direction" : "original direction");
		print_conn("connection", a.tb[MMB_A_CONN], NULL);
	} else {
		print_text(t.tb[MMB_TRACE_A_CONN_NEW] ? "connection: none; one would start\n" :
			   t.tb[MMB_TRACE_A_CONN_SPOOFED] ?
			   "connection: none; none starts: its source routes back through another device (rp-filter)\n" :
			   "connection: none\n");
	}
	print_bool("conn_new", NULL, t.tb[MMB_TRACE_A_CONN_NEW] != NULL);
	print_bool("conn_spoofed", NULL, t.tb[MMB_TRACE_A_CONN_SPOOFED] != NULL);
	v = NAMED(verdict_names, t.tb[MMB_TRACE_A_VERDICT] ?
		  mnl_attr_get_u8(t.tb[MMB_TRACE_A_VERDICT]) : 0);
	print_string("verdict", NULL, verdict_names[v][0]);
	print_text("verdict %s\n", verdict_names[v][1]);
	if (t.tb[MMB_TRACE_A_REJECT]) {
		const char *name = reject_name(mnl_attr_get_u8(t.tb[MMB_TRACE_A_REJECT]));

		print_string("reject", NULL, name ?: "none");
		if (name)
			print_text("would reject with %s (a trace sends nothing)\n", name);
		else
			print_text("would reject without an answer: the packet is one never answered\n");
	}
	if (t.tb[MMB_TRACE_A_RESULT])
		print_packet("rewritten", "rewritten", t.tb[MMB_TRACE_A_RESULT]);
	if (t.tb[MMB_TRACE_A_FAST]) {
		v = NAMED(fast_names, mnl_attr_get_u8(t.tb[MMB_TRACE_A_FAST]));
		print_string("fast_path", NULL, fast_names[v][0]);
		print_text("fast path: %s\n", fast_names[v][1]);
	}
	print_close_object();
	print_finish();
	for (i = 0; i < tr->n; i++)
		free(tr->text[i]);
	free(tr);
	return EXIT_OK;
}

int do_trace(int argc, char **argv)
{
	struct trace_answer ans = {};
	struct trace_req t = {};
	struct mmb_nl_err err;
	struct mmb_req *req;
	struct nlattr *nest, *a;
	int ret;

	if (argc < 2)
		return err_word(AT(argv + 1), "trace what? FIELD VALUE... or hex BYTES");
	req = mmb_req_new_size(MMB_CMD_TRACE, NLM_F_ACK, TRACE_PACKET_MAX + 4096);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	nest = mnl_attr_nest_start(req->nlh, MMB_A_TRACE);
	ret = parse_words(argc, argv, req, &t);
	if (ret)
		goto out;
	if (t.ifindex)
		mnl_attr_put_u32(req->nlh, MMB_TRACE_A_IFINDEX, t.ifindex);
	if (t.bytes) {
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put(req->nlh, MMB_TRACE_A_PACKET, t.nbytes, t.bytes);
		mmb_req_token(req, a, t.bytes_argi);
	} else {
		mnl_attr_put_u8(req->nlh, MMB_TRACE_A_FAMILY, t.family ?: 4);
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		mnl_attr_put_u8(req->nlh, MMB_TRACE_A_PROTO, t.proto ?: 6);
		if (t.proto)
			mmb_req_token(req, a, t.proto_argi);
	}
	mnl_attr_nest_end(req->nlh, nest);
	if (mmb_nl_talk(req, answer_cb, &ans, &err))
		ret = err_kernel(&err);
	else if (mmb_nl_dry)
		ret = EXIT_OK;
	else if (!ans.msg)
		ret = err_sys("reading the answer", EPROTO);
	else
		ret = print_answer((const struct nlmsghdr *)ans.msg);
out:
	free(ans.msg);
	free(t.bytes);
	mmb_req_free(req);
	return ret;
}
