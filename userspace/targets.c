// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: the targets of the rule language, each described once: its
 * word, how its words are read, how it goes into a netlink message and
 * comes back out, and how it is printed as words and as JSON. A target
 * the kernel does not know yet has only a word (refused with "not
 * supported yet").
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

/* Does @w begin what may follow a target's words: a target, offload, the comment? */
bool target_follows(const char *w)
{
	return target_by_name(w) || !strcmp(w, "comment") || !strcmp(w, "offload");
}

/* drop [PERCENT] */
static int drop_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	int i = *pi + 1;

	t->rate = MMB_RATE_ALWAYS;
	if (i < argc && !target_follows(argv[i])) {
		char *end;
		double pct = strtod(argv[i], &end);

		if (end == argv[i] || *end || !(pct > 0 && pct <= 100) || !llround(pct * 10000))
			return err_word(AT(argv + i),
					"drop takes a percentage in (0, 100], at least 0.0001");
		t->rate = llround(pct * 10000);
		t->vargi = AT(argv + i);
		i++;
	}
	*pi = i;
	return 0;
}

static void drop_encode(struct mmb_req *req, const struct utarget *t)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(req->nlh);

	if (t->rate == MMB_RATE_ALWAYS)
		return;
	mnl_attr_put_u32(req->nlh, MMB_TARGET_A_RATE, t->rate);
	mmb_req_token(req, a, t->vargi);
}

static int drop_decode(const struct attrs *ta, struct utarget *t)
{
	t->rate = ta->tb[MMB_TARGET_A_RATE] ? mnl_attr_get_u32(ta->tb[MMB_TARGET_A_RATE]) :
					      MMB_RATE_ALWAYS;
	return 0;
}

static void drop_format(const struct utarget *t, char *buf, size_t len)
{
	if (t->rate == MMB_RATE_ALWAYS)
		snprintf(buf, len, "drop");
	else
		snprintf(buf, len, "drop %.6g", t->rate / 10000.0);
}

static void drop_json(const struct utarget *t)
{
	print_u64("rate_ppm", NULL, t->rate);
}

/* accept */
static int accept_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	++*pi;
	return 0;
}

static void accept_format(const struct utarget *t, char *buf, size_t len)
{
	snprintf(buf, len, "accept");
}

/* count: no words of its own */
static void count_format(const struct utarget *t, char *buf, size_t len)
{
	snprintf(buf, len, "count");
}

/* reject [with ANSWER]: the words of enum mmb_reject, nft's where it has them */
static const char *const reject_names[MMB_REJECT_MAX + 1] = {
	[MMB_REJECT_DEFAULT]		= "",
	[MMB_REJECT_TCP_RESET]		= "tcp-reset",
	[MMB_REJECT_PORT_UNREACH]	= "port-unreachable",
	[MMB_REJECT_HOST_UNREACH]	= "host-unreachable",
	[MMB_REJECT_NET_UNREACH]	= "net-unreachable",
	[MMB_REJECT_ADMIN_PROHIBITED]	= "admin-prohibited",
};

const char *reject_name(int reject)
{
	return reject > 0 && reject <= MMB_REJECT_MAX ? reject_names[reject] : NULL;
}

static int reject_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	int i = *pi + 1, r;

	t->reject = MMB_REJECT_DEFAULT;
	if (i < argc && !strcmp(argv[i], "with")) {
		if (++i == argc)
			return err_word(AT(argv + i - 1),
					"with takes tcp-reset, port-unreachable, host-unreachable, net-unreachable or admin-prohibited");
		for (r = MMB_REJECT_TCP_RESET; r <= MMB_REJECT_MAX; r++)
			if (!strcmp(argv[i], reject_names[r]))
				break;
		if (r > MMB_REJECT_MAX)
			return err_word(AT(argv + i),
					"with takes tcp-reset, port-unreachable, host-unreachable, net-unreachable or admin-prohibited");
		t->reject = r;
		t->vargi = AT(argv + i);
		i++;
	}
	*pi = i;
	return 0;
}

static void reject_encode(struct mmb_req *req, const struct utarget *t)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(req->nlh);

	if (t->reject == MMB_REJECT_DEFAULT)
		return;
	mnl_attr_put_u8(req->nlh, MMB_TARGET_A_REJECT, t->reject);
	mmb_req_token(req, a, t->vargi);
}

static int reject_decode(const struct attrs *ta, struct utarget *t)
{
	t->reject = ta->tb[MMB_TARGET_A_REJECT] ? mnl_attr_get_u8(ta->tb[MMB_TARGET_A_REJECT]) :
						  MMB_REJECT_DEFAULT;
	return 0;
}

static void reject_format(const struct utarget *t, char *buf, size_t len)
{
	const char *name = reject_name(t->reject);

	if (t->reject == MMB_REJECT_DEFAULT)
		snprintf(buf, len, "reject");
	else if (name)
		snprintf(buf, len, "reject with %s", name);
	else
		snprintf(buf, len, "reject with answer-%d", t->reject);
}

static void reject_json(const struct utarget *t)
{
	if (t->reject != MMB_REJECT_DEFAULT)
		print_string("with", NULL, reject_name(t->reject) ?: "unknown");
}

/* Never called: urule_parse() reads log's words into the rule (log.c). */
static int log_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	return err_word(AT(argv + *pi), "log is a rule's words, not a target's");
}

/* masquerade: no words of its own either */
static void masquerade_format(const struct utarget *t, char *buf, size_t len)
{
	snprintf(buf, len, "masquerade");
}

/* A target's value: a field's, or an option's data (0xHEX, up to 38 bytes). */
static int opt_value_parse(struct utarget *t, const char *w, char *err, size_t errlen)
{
	uint8_t v[MMB_PAYLOAD_MAX];
	int vlen = 0, plen = 0;	/* an option's data: "0x" is none, and no prefix */

	if (!field_is_opt(t->field) || field_bits(t->field)) {
		if (value_parse(t->field, w, v, &vlen, &plen, err, errlen))
			return -1;
		if (vlen > TARGET_VALUE_MAX) {
			snprintf(err, errlen, "a value set by a target is 1 to %d bytes",
				 TARGET_VALUE_MAX);
			return -1;
		}
	} else if (strcmp(w, "0x") &&
		   (value_parse(MMB_FIELD_TCP_PAYLOAD, w, v, &vlen, &plen, err, errlen) ||
		    vlen > TARGET_VALUE_MAX)) {
		snprintf(err, errlen, "TCP option data is 0x and 0 to %d hex bytes",
			 TARGET_VALUE_MAX);
		return -1;
	}
	t->plen = plen;
	memcpy(t->value, v, vlen);
	t->vlen = vlen;
	return 0;
}

/* The option a target names, as words: "tcp-opt-mss", "tcp-opt 253", "all". */
static void opt_name(const struct utarget *t, char *buf, size_t len)
{
	if (t->field == MMB_FIELD_TCP_OPT && !t->kind)
		snprintf(buf, len, "all");
	else if (t->kind)
		snprintf(buf, len, "%s %d", field_name(t->field), t->kind);
	else
		snprintf(buf, len, "%s", field_name(t->field));
}

/* strip [!] OPTION, strip all, add OPTION [VALUE] */
static int opt_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	const char *word = argv[*pi];
	bool strip = t->type == MMB_TARGET_STRIP;
	char err[160];
	int i = *pi + 1, f;

	if (strip && i < argc && !strcmp(argv[i], "!")) {
		t->invert = true;
		i++;
	}
	if (i == argc)
		return err_word(AT(argv + i), "missing OPTION after %s", word);
	t->fargi = AT(argv + i);
	if (strip && !t->invert && !strcmp(argv[i], "all")) {
		t->field = MMB_FIELD_TCP_OPT;
		*pi = i + 1;
		return 0;
	}
	f = field_lookup(argv[i]);
	if (f < 0 || !field_is_opt(f))
		return err_word(AT(argv + i), "%s takes a TCP option (tcp-opt-mss, ..., tcp-opt KIND%s)",
				word, strip && !t->invert ? ", or all" : "");
	t->field = f;
	t->plen = field_bits(f);
	if (f == MMB_FIELD_TCP_OPT) {
		if (++i == argc || (t->kind = opt_kind(argv[i])) < 2)
			return err_word(AT(argv + i), "tcp-opt takes a KIND, 2 to 255");
	}
	*pi = ++i;
	if (i == argc || target_follows(argv[i]))
		return 0;	/* add: the value is optional (tcp-opt-sackp has none) */
	if (strip)
		return err_word(AT(argv + i), "strip takes no value");
	if (opt_value_parse(t, argv[i], err, sizeof(err)))
		return err_word(AT(argv + i), "%s", err);
	t->vargi = AT(argv + i);
	*pi = i + 1;
	return 0;
}

/* An option's data as words: a number for MSS and window scale, else 0xHEX. */
static void opt_value(const struct utarget *t, char *buf, size_t len)
{
	int i, n;

	if (field_bits(t->field)) {
		value_format(t->field, t->value, t->vlen, t->plen, buf, len);
		return;
	}
	n = snprintf(buf, len, "0x");
	for (i = 0; i < t->vlen && n + 3 < (int)len; i++)
		n += snprintf(buf + n, len - n, "%02x", t->value[i]);
}

static void opt_format(const struct utarget *t, char *buf, size_t len)
{
	char name[40], v[100];
	const char *type = t->type == MMB_TARGET_STRIP ? "strip" :
			   t->type == MMB_TARGET_ADD ? "add" : "mod";

	opt_name(t, name, sizeof(name));
	opt_value(t, v, sizeof(v));
	if (t->type == MMB_TARGET_STRIP)
		snprintf(buf, len, "strip %s%s", t->invert ? "! " : "", name);
	else if (t->type == MMB_TARGET_ADD && !t->vlen)
		snprintf(buf, len, "%s %s", type, name);
	else
		snprintf(buf, len, "%s %s %s", type, name, v);
}

static void opt_json(const struct utarget *t)
{
	char v[100];

	print_string("field", NULL, t->field == MMB_FIELD_TCP_OPT && !t->kind ? "all" :
				     field_name(t->field));
	if (t->kind)
		print_u64("kind", NULL, t->kind);
	if (t->invert)
		print_bool("invert", NULL, true);
	if (t->type != MMB_TARGET_STRIP) {
		opt_value(t, v, sizeof(v));
		print_string("value", NULL, v);
	}
}

/* mod FIELD VALUE, map FIELD VALUE */
static int mod_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	const char *word = argv[*pi];
	char err[160];
	int i = *pi + 1, f;

	if (i == argc)
		return err_word(AT(argv + i), "missing FIELD after %s", word);
	f = field_lookup(argv[i]);
	if (f < 0)
		return err_word(AT(argv + i), "unknown field \"%s\"", argv[i]);
	if (field_flags(f) & MMB_FIELD_F_NO_MOD)
		return err_word(AT(argv + i),
				"%s describes the packet's structure and cannot be rewritten",
				field_name(f));
	t->field = f;
	t->fargi = AT(argv + i);
	if (f == MMB_FIELD_TCP_OPT) {
		if (++i == argc || (t->kind = opt_kind(argv[i])) < 2)
			return err_word(AT(argv + i), "%s tcp-opt takes a KIND, 2 to 255", word);
	}
	if (++i == argc)
		return err_word(AT(argv + i), "missing VALUE of %s", field_name(f));
	/* mod tcp-opt-mss pmtu: the leaving route's MTU (uapi: MSS 0). */
	if (f == MMB_FIELD_TCP_OPT_MSS && !strcmp(word, "mod") && !strcmp(argv[i], "pmtu")) {
		t->vlen = 2;
		t->plen = 16;
		t->value[0] = 0;
		t->value[1] = 0;
	} else if (opt_value_parse(t, argv[i], err, sizeof(err))) {
		return err_word(AT(argv + i), "%s", err);
	}
	t->vargi = AT(argv + i);
	*pi = i + 1;
	return 0;
}

/* mod, map, shuffle, strip, add: the field (kind, !) and the value given. */
static void mod_encode(struct mmb_req *req, const struct utarget *t)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(req->nlh);

	mnl_attr_put_u16(req->nlh, MMB_TARGET_A_FIELD, t->field);
	if (t->kind)
		mnl_attr_put_u8(req->nlh, MMB_TARGET_A_KIND, t->kind);
	if (t->invert)
		mnl_attr_put(req->nlh, MMB_TARGET_A_INVERT, 0, NULL);
	mmb_req_token(req, a, t->fargi);
	a = mnl_nlmsg_get_payload_tail(req->nlh);
	/* meta-mark VALUE/MASK: the mask apart. */
	if (t->field == MMB_FIELD_META_MARK && t->vlen == 8) {
		mnl_attr_put(req->nlh, MMB_TARGET_A_VALUE, 4, t->value);
		mnl_attr_put(req->nlh, MMB_TARGET_A_MASK, 4, t->value + 4);
	} else if (t->vlen || t->vargi != t->argi) {
		/* A value given may be empty: an option's data ("0x"). */
		mnl_attr_put(req->nlh, MMB_TARGET_A_VALUE, t->vlen, t->value);
	}
	if (t->plen != field_bits(t->field))
		mnl_attr_put_u8(req->nlh, MMB_TARGET_A_PREFIX, t->plen);
	mmb_req_token(req, a, t->vargi);
}

static int mod_decode(const struct attrs *ta, struct utarget *t)
{
	const struct nlattr *v = ta->tb[MMB_TARGET_A_VALUE];

	if (!ta->tb[MMB_TARGET_A_FIELD] ||
	    (!v && (t->type == MMB_TARGET_MOD || t->type == MMB_TARGET_MAP)))
		return -1;
	t->field = mnl_attr_get_u16(ta->tb[MMB_TARGET_A_FIELD]);
	t->vlen = v ? mnl_attr_get_payload_len(v) : 0;
	if (t->field > MMB_FIELD_MAX || t->vlen > (int)sizeof(t->value))
		return -1;
	t->plen = ta->tb[MMB_TARGET_A_PREFIX] ? mnl_attr_get_u8(ta->tb[MMB_TARGET_A_PREFIX]) :
						field_bits(t->field);
	t->kind = ta->tb[MMB_TARGET_A_KIND] ? mnl_attr_get_u8(ta->tb[MMB_TARGET_A_KIND]) : 0;
	t->invert = ta->tb[MMB_TARGET_A_INVERT];
	if (v)
		memcpy(t->value, mnl_attr_get_payload(v), t->vlen);
	if (ta->tb[MMB_TARGET_A_MASK]) {
		if (t->vlen != 4 || mnl_attr_get_payload_len(ta->tb[MMB_TARGET_A_MASK]) != 4)
			return -1;
		memcpy(t->value + 4, mnl_attr_get_payload(ta->tb[MMB_TARGET_A_MASK]), 4);
		t->vlen = 8;
	}
	return 0;
}

static void mod_format(const struct utarget *t, char *buf, size_t len)
{
	char v[160];

	if (field_is_opt(t->field) && !field_bits(t->field)) {
		opt_format(t, buf, len);
		return;
	}

	value_format(t->field, t->value, t->vlen, t->plen, v, sizeof(v));
	if (t->field == MMB_FIELD_TCP_OPT_MSS && t->type == MMB_TARGET_MOD && t->vlen == 2 &&
	    !t->value[0] && !t->value[1])
		snprintf(v, sizeof(v), "pmtu");
	snprintf(buf, len, "%s %s %s", t->type == MMB_TARGET_MAP ? "map" : "mod",
		 field_name(t->field), v);
}

static void mod_json(const struct utarget *t)
{
	char v[160];

	if (field_is_opt(t->field) && !field_bits(t->field)) {
		opt_json(t);
		return;
	}

	value_format(t->field, t->value, t->vlen, t->plen, v, sizeof(v));
	print_string("field", NULL, field_name(t->field));
	print_string("value", NULL, v);
}

/* shuffle FIELD [FIRST-LAST], the range for a port */
static int shuffle_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	int i = *pi + 1, f;
	unsigned long lo, hi;
	char *end;

	if (i == argc)
		return err_word(AT(argv + i), "missing FIELD after shuffle");
	f = field_lookup(argv[i]);
	if (f < 0)
		return err_word(AT(argv + i), "unknown field \"%s\"", argv[i]);
	t->field = f;
	t->plen = field_bits(f);
	t->fargi = AT(argv + i);
	*pi = ++i;
	if (i == argc || !isdigit((unsigned char)argv[i][0]))
		return 0;
	lo = strtoul(argv[i], &end, 10);
	if (*end != '-' || !isdigit((unsigned char)end[1]))
		return err_word(AT(argv + i), "a port range is FIRST-LAST");
	hi = strtoul(end + 1, &end, 10);
	if (*end || !lo || lo > hi || hi > 65535)
		return err_word(AT(argv + i),
				"a port range is FIRST-LAST, 1 <= FIRST <= LAST <= 65535");
	t->value[0] = lo >> 8;
	t->value[1] = lo;
	t->value[2] = hi >> 8;
	t->value[3] = hi;
	t->vlen = 4;
	t->vargi = AT(argv + i);
	*pi = i + 1;
	return 0;
}

static void shuffle_format(const struct utarget *t, char *buf, size_t len)
{
	if (t->vlen == 4)
		snprintf(buf, len, "shuffle %s %u-%u", field_name(t->field),
			 t->value[0] << 8 | t->value[1], t->value[2] << 8 | t->value[3]);
	else
		snprintf(buf, len, "shuffle %s", field_name(t->field));
}

static void shuffle_json(const struct utarget *t)
{
	print_string("field", NULL, field_name(t->field));
	if (t->vlen == 4) {
		print_u64("first", NULL, t->value[0] << 8 | t->value[1]);
		print_u64("last", NULL, t->value[2] << 8 | t->value[3]);
	}
}

const struct target_kind target_kinds[] = {
	{ .name = "drop", .type = MMB_TARGET_DROP, .parse = drop_parse,
	  .encode = drop_encode, .decode = drop_decode, .format = drop_format,
	  .json = drop_json },
	{ .name = "accept", .type = MMB_TARGET_ACCEPT, .parse = accept_parse,
	  .format = accept_format },
	{ .name = "mod", .type = MMB_TARGET_MOD, .parse = mod_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = mod_format,
	  .json = mod_json },
	{ .name = "strip", .type = MMB_TARGET_STRIP, .parse = opt_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = opt_format,
	  .json = opt_json },
	{ .name = "add", .type = MMB_TARGET_ADD, .parse = opt_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = opt_format,
	  .json = opt_json },
	{ .name = "map", .type = MMB_TARGET_MAP, .parse = mod_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = mod_format,
	  .json = mod_json },
	{ .name = "shuffle", .type = MMB_TARGET_SHUFFLE, .parse = shuffle_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = shuffle_format,
	  .json = shuffle_json },
	{ .name = "masquerade", .type = MMB_TARGET_MASQUERADE, .parse = accept_parse,
	  .format = masquerade_format },
	{ .name = "count", .type = MMB_TARGET_COUNT, .parse = accept_parse,
	  .format = count_format },
	{ .name = "reject", .type = MMB_TARGET_REJECT, .parse = reject_parse,
	  .encode = reject_encode, .decode = reject_decode, .format = reject_format,
	  .json = reject_json },
	/* log: the rule's words (log.c), which urule_parse() reads itself */
	{ .name = "log", .type = -1, .parse = log_parse },
	{ .name = NULL }
};

/* The target @w names, or NULL. Runs per word of a rule: cheap refusals. */
const struct target_kind *target_by_name(const char *w)
{
	const struct target_kind *k;

	switch (w[0]) {
	case 'd':		/* drop */
	case 'a':		/* accept, add */
	case 'm':		/* mod, map */
	case 's':		/* strip, shuffle */
	case 'c':		/* count */
	case 'r':		/* reject */
	case 'l':		/* log */
		break;
	default:
		return NULL;
	}
	for (k = target_kinds; k->name; k++)
		if (!strcmp(w, k->name))
			return k;
	return NULL;
}

/* The target of kernel type @type, or NULL. */
const struct target_kind *target_by_type(int type)
{
	const struct target_kind *k;

	for (k = target_kinds; k->name; k++)
		if (k->type >= 0 && k->type == type)
			return k;
	return NULL;
}

/* The targets mmbctl can send, for messages: "drop, accept or mod". */
const char *target_names(void)
{
	static char names[128];
	const struct target_kind *k;
	size_t off = 0;
	int n = 0, i = 0;

	if (names[0])
		return names;
	for (k = target_kinds; k->name; k++)
		n += k->parse != NULL;
	for (k = target_kinds; k->name; k++) {
		if (!k->parse)
			continue;
		off += snprintf(names + off, sizeof(names) - off, "%s%s",
				!i ? "" : i == n - 1 ? " or " : ", ", k->name);
		i++;
	}
	return names;
}
