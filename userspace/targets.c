// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: the targets of the rule language, each described once: its
 * word, how its words are read, how it goes into a netlink message and
 * comes back out, and how it is printed as words and as JSON. A target
 * the kernel does not know yet has only a word (refused with "not
 * supported yet"). New targets (strip, add) are rows here.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

/* drop [PERCENT] */
static int drop_parse(int argc, char **argv, int *pi, struct utarget *t)
{
	int i = *pi + 1;

	t->rate = MMB_RATE_ALWAYS;
	if (i < argc && !target_by_name(argv[i])) {
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
	if (++i == argc)
		return err_word(AT(argv + i), "missing VALUE of %s", field_name(f));
	if (value_parse(f, argv[i], t->value, &t->vlen, &t->plen, err, sizeof(err)))
		return err_word(AT(argv + i), "%s", err);
	t->vargi = AT(argv + i);
	*pi = i + 1;
	return 0;
}

static void mod_encode(struct mmb_req *req, const struct utarget *t)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(req->nlh);

	mnl_attr_put_u16(req->nlh, MMB_TARGET_A_FIELD, t->field);
	mmb_req_token(req, a, t->fargi);
	a = mnl_nlmsg_get_payload_tail(req->nlh);
	if (t->vlen)
		mnl_attr_put(req->nlh, MMB_TARGET_A_VALUE, t->vlen, t->value);
	if (t->plen != field_bits(t->field))
		mnl_attr_put_u8(req->nlh, MMB_TARGET_A_PREFIX, t->plen);
	mmb_req_token(req, a, t->vargi);
}

static int mod_decode(const struct attrs *ta, struct utarget *t)
{
	const struct nlattr *v = ta->tb[MMB_TARGET_A_VALUE];

	if (!ta->tb[MMB_TARGET_A_FIELD] || (!v && t->type != MMB_TARGET_SHUFFLE))
		return -1;
	t->field = mnl_attr_get_u16(ta->tb[MMB_TARGET_A_FIELD]);
	t->vlen = v ? mnl_attr_get_payload_len(v) : 0;
	if (t->field > MMB_FIELD_MAX || t->vlen > (int)sizeof(t->value))
		return -1;
	t->plen = ta->tb[MMB_TARGET_A_PREFIX] ? mnl_attr_get_u8(ta->tb[MMB_TARGET_A_PREFIX]) :
						field_bits(t->field);
	if (v)
		memcpy(t->value, mnl_attr_get_payload(v), t->vlen);
	return 0;
}

static void mod_format(const struct utarget *t, char *buf, size_t len)
{
	char v[160];

	value_format(t->field, t->value, t->vlen, t->plen, v, sizeof(v));
	snprintf(buf, len, "%s %s %s", t->type == MMB_TARGET_MAP ? "map" : "mod",
		 field_name(t->field), v);
}

static void mod_json(const struct utarget *t)
{
	char v[160];

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
	{ .name = "strip", .type = -1 },
	{ .name = "add", .type = -1 },
	{ .name = "map", .type = MMB_TARGET_MAP, .parse = mod_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = mod_format,
	  .json = mod_json },
	{ .name = "shuffle", .type = MMB_TARGET_SHUFFLE, .parse = shuffle_parse,
	  .encode = mod_encode, .decode = mod_decode, .format = shuffle_format,
	  .json = shuffle_json },
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
