// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl add|del|flush|list: the rule language.
 *
 *   RULE   := MATCH... TARGET...
 *   MATCH  := [ ! ] FIELD [ [ OP ] VALUE ] | all
 *   OP     := == | != | < | > | <= | >=
 *   TARGET := drop [ PERCENT ] | accept | mod FIELD VALUE
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

static const char *const unsupported_targets[] = { "strip", "add", "map", "shuffle" };

/* Words that stand for "ip-ecn == N". */
static const struct {
	const char *name;
	int value;
} ecn_aliases[] = {
	{ "ip-non-ect", 0 }, { "ip-ect1", 1 }, { "ip-ect0", 2 }, { "ip-ce", 3 },
};

static int ecn_alias(const char *w)
{
	unsigned int i;

	/* Cheap refusal: this runs per word. The aliases are ip-[nec]... */
	if (w[0] != 'i' || w[1] != 'p' || w[2] != '-' || !strchr("nec", w[3]))
		return -1;
	for (i = 0; i < sizeof(ecn_aliases) / sizeof(ecn_aliases[0]); i++)
		if (!strcmp(w, ecn_aliases[i].name))
			return ecn_aliases[i].value;
	return -1;
}

static bool is_target(const char *w)
{
	unsigned int i;

	switch (w[0]) {		/* runs per word: most are refused here */
	case 'd':		/* drop */
	case 'a':		/* accept, add */
	case 'm':		/* mod, map */
	case 's':		/* strip, shuffle */
		break;
	default:
		return false;
	}
	if (!strcmp(w, "drop") || !strcmp(w, "accept") || !strcmp(w, "mod"))
		return true;
	for (i = 0; i < sizeof(unsupported_targets) / sizeof(unsupported_targets[0]); i++)
		if (!strcmp(w, unsupported_targets[i]))
			return true;
	return false;
}

static int op_lookup(const char *w)
{
	int op;

	if (w[0] != '=' && w[0] != '!' && w[0] != '<' && w[0] != '>')
		return -1;
	for (op = 0; op <= MMB_OP_MAX; op++)
		if (!strcmp(w, op_name(op)))
			return op;
	return -1;
}

static int op_negate(int op)
{
	static const int neg[] = {
		[MMB_OP_EQ] = MMB_OP_NE, [MMB_OP_NE] = MMB_OP_EQ,
		[MMB_OP_LT] = MMB_OP_GE, [MMB_OP_GE] = MMB_OP_LT,
		[MMB_OP_GT] = MMB_OP_LE, [MMB_OP_LE] = MMB_OP_GT,
	};

	return neg[op];
}

/*
 * Could @w start the next match rather than be a value? Field names start
 * with a letter; numbers and most addresses are refused at the first
 * character, without a lookup (-f asks this of 200k values in 100k rules).
 */
static bool starts_match(const char *w)
{
	if (w[0] == '!')
		return !w[1];
	return islower((unsigned char)w[0]) && (field_lookup(w) >= 0 || ecn_alias(w) >= 0);
}

/* An option kind: decimal, 0xHEX or xHEX, 2 to 255; -1 if @w is none. */
static int opt_kind(const char *w)
{
	const char *p = w;
	unsigned long v;
	char *end;
	int base = 10;

	if (!strncmp(p, "0x", 2) || *p == 'x') {
		p += *p == 'x' ? 1 : 2;
		base = 16;
	}
	if (!isxdigit((unsigned char)*p))
		return -1;
	v = strtoul(p, &end, base);
	return *end || v > 255 ? -1 : (int)v;
}

static int parse_value_at(int field, char **argv, int i, uint8_t *value,
			  int *vlen, int *plen)
{
	char err[160];

	if (value_parse(field, argv[i], value, vlen, plen, err, sizeof(err)))
		return err_word(AT(argv + i), "%s", err);
	return 0;
}

static int parse_field_at(char **argv, int i)
{
	int f = field_lookup(argv[i]);

	if (f >= 0)
		return f;
	return -err_word(AT(argv + i), "unknown field \"%s\"", argv[i]);
}

static int parse_match(int argc, char **argv, int *pi, struct urule *r)
{
	struct umatch *m = &r->m[r->nm];
	int i = *pi, f, op = MMB_OP_EQ, alias, err;
	bool neg = false, have_op = false;

	if (r->nm == URULE_MAX_MATCHES)
		return err_word(AT(argv + i), "more than %d matches", URULE_MAX_MATCHES);
	if (argv[i][0] == '!' && !argv[i][1]) {
		neg = true;
		if (++i == argc)
			return err_word(AT(argv + i), "missing FIELD after !");
	}
	memset(m, 0, sizeof(*m));
	m->argi = m->vargi = AT(argv + i);
	f = field_lookup(argv[i]);
	alias = f < 0 ? ecn_alias(argv[i]) : -1;
	if (alias >= 0) {
		m->field = MMB_FIELD_IP_ECN;
		m->plen = 2;
		m->vlen = 1;
		m->value[0] = alias;
		m->op = neg ? MMB_OP_NE : MMB_OP_EQ;
		*pi = i + 1;
		r->nm++;
		return 0;
	}
	if (f < 0)
		return -parse_field_at(argv, i);	/* its error */
	m->field = f;
	i++;
	if (f == MMB_FIELD_TCP_OPT && i < argc && !is_target(argv[i]) &&
	    !starts_match(argv[i]) && op_lookup(argv[i]) < 0) {
		m->kind = opt_kind(argv[i]);
		if (m->kind < 2)
			return err_word(AT(argv + i), "a TCP option kind is 2 to 255");
		i++;
	}
	if (i < argc && op_lookup(argv[i]) >= 0) {
		op = op_lookup(argv[i++]);
		have_op = true;
	}
	if (f == MMB_FIELD_ALL) {
		if (neg || have_op)
			return err_word(m->argi, "\"all\" takes no operator and no !");
	} else if (have_op || (i < argc && !is_target(argv[i]) && !starts_match(argv[i]))) {
		if (i == argc)
			return err_word(AT(argv + i), "missing VALUE of %s", argv[m->argi]);
		err = parse_value_at(f, argv, i, m->value, &m->vlen, &m->plen);
		if (err)
			return err;
		m->vargi = AT(argv + i);
		i++;
	} else if (field_bits(f) == 1) {
		m->vlen = 1;
		m->value[0] = 1;		/* a bare flag: set */
		m->plen = 1;
	} else if (field_is_opt(f)) {
		m->plen = field_bits(f);	/* a bare option: present */
	} else {
		return err_word(m->argi, "%s needs a value", argv[m->argi]);
	}
	m->op = neg ? op_negate(op) : op;
	*pi = i;
	r->nm++;
	return 0;
}

static int parse_target(int argc, char **argv, int *pi, struct urule *r)
{
	struct utarget *t = &r->t[r->nt];
	int i = *pi, f, err;
	unsigned int k;

	if (r->nt == URULE_MAX_TARGETS)
		return err_word(AT(argv + i), "more than %d targets", URULE_MAX_TARGETS);
	memset(t, 0, sizeof(*t));
	t->argi = t->vargi = AT(argv + i);
	if (!strcmp(argv[i], "drop")) {
		t->type = MMB_TARGET_DROP;
		t->rate = MMB_RATE_ALWAYS;
		if (++i < argc && !is_target(argv[i])) {
			char *end;
			double pct = strtod(argv[i], &end);

			if (end == argv[i] || *end || !(pct > 0 && pct <= 100) ||
			    !llround(pct * 10000))
				return err_word(AT(argv + i),
						"drop takes a percentage in (0, 100], at least 0.0001");
			t->rate = llround(pct * 10000);
			t->vargi = AT(argv + i);
			i++;
		}
	} else if (!strcmp(argv[i], "accept")) {
		t->type = MMB_TARGET_ACCEPT;
		i++;
	} else if (!strcmp(argv[i], "mod")) {
		t->type = MMB_TARGET_MOD;
		if (++i == argc)
			return err_word(AT(argv + i), "missing FIELD after mod");
		f = parse_field_at(argv, i);
		if (f < 0)
			return -f;
		if (field_flags(f) & MMB_FIELD_F_NO_MOD)
			return err_word(AT(argv + i),
					"%s describes the packet's structure and cannot be rewritten",
					field_name(f));
		t->field = f;
		t->fargi = AT(argv + i);
		if (++i == argc)
			return err_word(AT(argv + i), "missing VALUE of %s", field_name(f));
		err = parse_value_at(f, argv, i, t->value, &t->vlen, &t->plen);
		if (err)
			return err;
		t->vargi = AT(argv + i);
		i++;
	} else {
		for (k = 0; k < sizeof(unsupported_targets) / sizeof(unsupported_targets[0]); k++)
			if (!strcmp(argv[i], unsupported_targets[k]))
				return err_word(AT(argv + i), "target \"%s\" is not supported yet",
						argv[i]);
		if (starts_match(argv[i]))
			return err_word(AT(argv + i), "matches come before targets");
		return err_word(AT(argv + i), "unknown target \"%s\": drop, accept or mod",
				argv[i]);
	}
	*pi = i;
	r->nt++;
	return 0;
}

int urule_parse(int argc, char **argv, int i, struct urule *r)
{
	int err;

	/* Each match and target is cleared as it is parsed: -f parses 100k. */
	r->nm = 0;
	r->nt = 0;
	while (i < argc && !is_target(argv[i])) {
		err = parse_match(argc, argv, &i, r);
		if (err)
			return err;
	}
	if (!r->nm)
		return err_word(AT(argv + i), "a rule needs a match first (\"all\" for every packet)");
	while (i < argc) {
		err = parse_target(argc, argv, &i, r);
		if (err)
			return err;
	}
	if (!r->nt)
		return err_word(AT(argv + i), "a rule needs a target: drop, accept or mod");
	return 0;
}

static size_t append(char *buf, size_t len, size_t off, const char *s)
{
	if (off < len)
		snprintf(buf + off, len - off, "%s%s", off ? " " : "", s);
	return off + strlen(s) + (off ? 1 : 0);
}

void urule_format(const struct urule *r, char *buf, size_t len)
{
	char v[160], w[240], name[40];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->nm; i++) {
		const struct umatch *m = &r->m[i];

		if (m->field == MMB_FIELD_ALL) {
			off = append(buf, len, off, "all");
			continue;
		}
		value_format(m->field, m->value, m->vlen, m->plen, v, sizeof(v));
		snprintf(name, sizeof(name), m->kind ? "%s %d" : "%s", field_name(m->field),
			 m->kind);
		if (field_is_opt(m->field) && !m->vlen)
			snprintf(w, sizeof(w), "%s%s", m->op == MMB_OP_NE ? "! " : "", name);
		else if (field_bits(m->field) == 1 && m->op == MMB_OP_EQ && m->value[0] == 1)
			snprintf(w, sizeof(w), "%s", name);
		else if (m->op == MMB_OP_EQ)
			snprintf(w, sizeof(w), "%s %s", name, v);
		else
			snprintf(w, sizeof(w), "%s %s %s", name, op_name(m->op), v);
		off = append(buf, len, off, w);
	}
	for (i = 0; i < r->nt; i++) {
		const struct utarget *t = &r->t[i];

		if (t->type == MMB_TARGET_ACCEPT) {
			snprintf(w, sizeof(w), "accept");
		} else if (t->type == MMB_TARGET_DROP && t->rate == MMB_RATE_ALWAYS) {
			snprintf(w, sizeof(w), "drop");
		} else if (t->type == MMB_TARGET_DROP) {
			snprintf(w, sizeof(w), "drop %.6g", t->rate / 10000.0);
		} else {
			value_format(t->field, t->value, t->vlen, t->plen, v, sizeof(v));
			snprintf(w, sizeof(w), "mod %s %s", field_name(t->field), v);
		}
		off = append(buf, len, off, w);
	}
}

/* --- netlink ------------------------------------------------------------ */

void urule_put(struct mmb_req *req, const struct urule *r)
{
	struct nlattr *rule, *list, *nest, *a;
	int i;

	rule = mnl_attr_nest_start(req->nlh, MMB_A_RULE);
	list = mnl_attr_nest_start(req->nlh, MMB_RULE_A_MATCHES);
	for (i = 0; i < r->nm; i++) {
		const struct umatch *m = &r->m[i];

		nest = mnl_attr_nest_start(req->nlh, i + 1);
		mmb_req_token(req, nest, m->argi);
		mnl_attr_put_u16(req->nlh, MMB_MATCH_A_FIELD, m->field);
		if (m->op != MMB_OP_EQ)	/* the kernel's default */
			mnl_attr_put_u8(req->nlh, MMB_MATCH_A_OP, m->op);
		if (m->kind)
			mnl_attr_put_u8(req->nlh, MMB_MATCH_A_KIND, m->kind);
		if (m->vlen) {
			a = mnl_nlmsg_get_payload_tail(req->nlh);
			mnl_attr_put(req->nlh, MMB_MATCH_A_VALUE, m->vlen, m->value);
			mmb_req_token(req, a, m->vargi);
		}
		if (m->plen != field_bits(m->field))
			mnl_attr_put_u8(req->nlh, MMB_MATCH_A_PREFIX, m->plen);
		mnl_attr_nest_end(req->nlh, nest);
	}
	mnl_attr_nest_end(req->nlh, list);
	list = mnl_attr_nest_start(req->nlh, MMB_RULE_A_TARGETS);
	for (i = 0; i < r->nt; i++) {
		const struct utarget *t = &r->t[i];

		nest = mnl_attr_nest_start(req->nlh, i + 1);
		mmb_req_token(req, nest, t->argi);
		mnl_attr_put_u8(req->nlh, MMB_TARGET_A_TYPE, t->type);
		if (t->type == MMB_TARGET_DROP && t->rate != MMB_RATE_ALWAYS) {
			a = mnl_nlmsg_get_payload_tail(req->nlh);
			mnl_attr_put_u32(req->nlh, MMB_TARGET_A_RATE, t->rate);
			mmb_req_token(req, a, t->vargi);
		}
		if (t->type == MMB_TARGET_MOD) {
			a = mnl_nlmsg_get_payload_tail(req->nlh);
			mnl_attr_put_u16(req->nlh, MMB_TARGET_A_FIELD, t->field);
			mmb_req_token(req, a, t->fargi);
			a = mnl_nlmsg_get_payload_tail(req->nlh);
			mnl_attr_put(req->nlh, MMB_TARGET_A_VALUE, t->vlen, t->value);
			mmb_req_token(req, a, t->vargi);
		}
		mnl_attr_nest_end(req->nlh, nest);
	}
	mnl_attr_nest_end(req->nlh, list);
	mnl_attr_nest_end(req->nlh, rule);
}

static int handle_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == MMB_RULE_A_HANDLE &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		*(uint32_t *)data = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int added_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a;

	attrs_parse(nlh, &a);
	if (a.tb[MMB_A_RULE])
		mnl_attr_parse_nested(a.tb[MMB_A_RULE], handle_cb, data);
	return MNL_CB_OK;
}

int do_add(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	uint32_t handle = 0;
	struct urule *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return err_sys("allocating a rule", ENOMEM);
	ret = urule_parse(argc, argv, 1, r);
	if (ret)
		goto out;
	req = mmb_req_new(MMB_CMD_RULE_ADD, NLM_F_ACK);
	if (!req) {
		ret = err_sys("allocating a request", ENOMEM);
		goto out;
	}
	urule_put(req, r);
	if (mmb_nl_talk(req, added_cb, &handle, &err)) {
		ret = err_kernel(&err);
	} else if (print_is_json()) {
		print_open_object(NULL);
		print_u64("handle", NULL, handle);
		print_close_object();
		print_finish();
	}
	mmb_req_free(req);
out:
	free(r);
	return ret;
}

/* "del HANDLE": 0 and the handle put in @req, or an exit code. */
int handle_put(struct mmb_req *req, int argc, char **argv)
{
	struct nlattr *rule, *a;
	unsigned long h;
	char *end;

	if (argc < 2)
		return err_word(AT(argv + argc), "missing HANDLE");
	if (argc > 2)
		return err_word(AT(argv + 2), "unexpected word after HANDLE");
	errno = 0;
	h = strtoul(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || !h || h > UINT32_MAX || argv[1][0] == '-')
		return err_word(AT(argv + 1), "HANDLE is a number from \"mmbctl list\"");
	rule = mnl_attr_nest_start(req->nlh, MMB_A_RULE);
	a = mnl_nlmsg_get_payload_tail(req->nlh);
	mnl_attr_put_u32(req->nlh, MMB_RULE_A_HANDLE, h);
	mmb_req_token(req, a, AT(argv + 1));
	mnl_attr_nest_end(req->nlh, rule);
	return 0;
}

static int handle_req(int argc, char **argv, uint8_t cmd)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret;

	req = mmb_req_new(cmd, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = handle_put(req, argc, argv);
	if (!ret)
		ret = mmb_nl_talk(req, NULL, NULL, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

int do_del(int argc, char **argv)
{
	return handle_req(argc, argv, MMB_CMD_RULE_DEL);
}

int do_flush(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	req = mmb_req_new(MMB_CMD_RULE_FLUSH, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = mmb_nl_talk(req, NULL, NULL, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

/* --- list ---------------------------------------------------------------- */

/* A rule the kernel sent back, as words; -1 if it makes no sense. */
static int decode_rule(const struct nlattr *attr, struct urule *r, uint32_t *handle,
		       struct attrs *stats)
{
	struct attrs ra, ma, ta;
	const struct nlattr *n;

	memset(r, 0, sizeof(*r));
	attrs_nested(attr, &ra);
	if (!ra.tb[MMB_RULE_A_HANDLE] || !ra.tb[MMB_RULE_A_MATCHES] ||
	    !ra.tb[MMB_RULE_A_TARGETS])
		return -1;
	*handle = mnl_attr_get_u32(ra.tb[MMB_RULE_A_HANDLE]);
	mnl_attr_for_each_nested(n, ra.tb[MMB_RULE_A_MATCHES]) {
		struct umatch *m = &r->m[r->nm];

		attrs_nested(n, &ma);
		if (r->nm == URULE_MAX_MATCHES || !ma.tb[MMB_MATCH_A_FIELD])
			return -1;
		m->field = mnl_attr_get_u16(ma.tb[MMB_MATCH_A_FIELD]);
		if (m->field > MMB_FIELD_MAX)
			return -1;
		m->op = ma.tb[MMB_MATCH_A_OP] ? mnl_attr_get_u8(ma.tb[MMB_MATCH_A_OP]) : 0;
		m->plen = ma.tb[MMB_MATCH_A_PREFIX] ?
			  mnl_attr_get_u8(ma.tb[MMB_MATCH_A_PREFIX]) : field_bits(m->field);
		m->kind = ma.tb[MMB_MATCH_A_KIND] ? mnl_attr_get_u8(ma.tb[MMB_MATCH_A_KIND]) : 0;
		if (ma.tb[MMB_MATCH_A_VALUE]) {
			m->vlen = mnl_attr_get_payload_len(ma.tb[MMB_MATCH_A_VALUE]);
			if (m->vlen > MMB_PAYLOAD_MAX)
				return -1;
			memcpy(m->value, mnl_attr_get_payload(ma.tb[MMB_MATCH_A_VALUE]), m->vlen);
		}
		r->nm++;
	}
	mnl_attr_for_each_nested(n, ra.tb[MMB_RULE_A_TARGETS]) {
		struct utarget *t = &r->t[r->nt];

		attrs_nested(n, &ta);
		if (r->nt == URULE_MAX_TARGETS || !ta.tb[MMB_TARGET_A_TYPE])
			return -1;
		t->type = mnl_attr_get_u8(ta.tb[MMB_TARGET_A_TYPE]);
		t->rate = ta.tb[MMB_TARGET_A_RATE] ?
			  mnl_attr_get_u32(ta.tb[MMB_TARGET_A_RATE]) : MMB_RATE_ALWAYS;
		if (t->type == MMB_TARGET_MOD) {
			if (!ta.tb[MMB_TARGET_A_FIELD] || !ta.tb[MMB_TARGET_A_VALUE])
				return -1;
			t->field = mnl_attr_get_u16(ta.tb[MMB_TARGET_A_FIELD]);
			t->vlen = mnl_attr_get_payload_len(ta.tb[MMB_TARGET_A_VALUE]);
			if (t->field > MMB_FIELD_MAX || t->vlen > 16)
				return -1;
			t->plen = field_bits(t->field);
			memcpy(t->value, mnl_attr_get_payload(ta.tb[MMB_TARGET_A_VALUE]), t->vlen);
		}
		r->nt++;
	}
	memset(stats, 0, sizeof(*stats));
	if (ra.tb[MMB_RULE_A_STATS])
		attrs_nested(ra.tb[MMB_RULE_A_STATS], stats);
	return 0;
}

static void print_rule_json(const struct urule *r)
{
	char v[160];
	int i;

	print_open_array("matches");
	for (i = 0; i < r->nm; i++) {
		const struct umatch *m = &r->m[i];

		print_open_object(NULL);
		print_string("field", NULL, field_name(m->field));
		print_string("op", NULL, op_name(m->op));
		if (m->kind)
			print_u64("kind", NULL, m->kind);
		if (m->field != MMB_FIELD_ALL && m->vlen) {
			value_format(m->field, m->value, m->vlen, m->plen, v, sizeof(v));
			print_string("value", NULL, v);
		}
		print_close_object();
	}
	print_close_array();
	print_open_array("targets");
	for (i = 0; i < r->nt; i++) {
		const struct utarget *t = &r->t[i];
		static const char *const names[] = { "drop", "accept", "mod" };

		print_open_object(NULL);
		print_string("target", NULL, t->type <= MMB_TARGET_MAX ? names[t->type] : "?");
		if (t->type == MMB_TARGET_DROP)
			print_u64("rate_ppm", NULL, t->rate);
		if (t->type == MMB_TARGET_MOD) {
			value_format(t->field, t->value, t->vlen, t->plen, v, sizeof(v));
			print_string("field", NULL, field_name(t->field));
			print_string("value", NULL, v);
		}
		print_close_object();
	}
	print_close_array();
}

static int list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct urule *r = data;
	struct attrs a, stats;
	uint32_t handle;
	char text[4096];

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_RULE] || decode_rule(a.tb[MMB_A_RULE], r, &handle, &stats))
		return MNL_CB_OK;
	urule_format(r, text, sizeof(text));
	print_open_object(NULL);
	print_u64("handle", NULL, handle);
	print_string("rule", "add %s", text);
	print_u64(NULL, " # handle %llu", handle);
	print_open_object("stats");
	print_u64("packets", " packets %llu", attr_u64(stats.tb[MMB_STATS_A_PACKETS]));
	print_u64("bytes", " bytes %llu", attr_u64(stats.tb[MMB_STATS_A_BYTES]));
	print_close_object();
	print_rule_json(r);
	print_close_object();
	print_text("\n");
	return MNL_CB_OK;
}

int do_list(int argc, char **argv)
{
	struct urule *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return err_sys("allocating a rule", ENOMEM);
	ret = cmd_dump(argc, argv, MMB_CMD_RULE_GET, list_cb, r);
	free(r);
	return ret;
}

/* --- show tables ---------------------------------------------------------- */

static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a, ta, fa;
	const struct nlattr *n;
	char buf[64];

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_TABLE])
		return MNL_CB_OK;
	attrs_nested(a.tb[MMB_A_TABLE], &ta);
	if (!ta.tb[MMB_TABLE_A_INDEX])
		return MNL_CB_OK;
	print_open_object(NULL);
	print_u64("index", "table %llu:", attr_u32(ta.tb[MMB_TABLE_A_INDEX]));
	print_open_array("fields");
	buf[0] = '\0';
	if (ta.tb[MMB_TABLE_A_FIELDS]) {
		mnl_attr_for_each_nested(n, ta.tb[MMB_TABLE_A_FIELDS]) {
			int field, plen;

			attrs_nested(n, &fa);
			if (!fa.tb[MMB_MATCH_A_FIELD])
				continue;
			field = mnl_attr_get_u16(fa.tb[MMB_MATCH_A_FIELD]);
			if (field > MMB_FIELD_MAX)
				continue;
			plen = fa.tb[MMB_MATCH_A_PREFIX] ?
			       mnl_attr_get_u8(fa.tb[MMB_MATCH_A_PREFIX]) : field_bits(field);
			if (plen != field_bits(field))
				snprintf(buf, sizeof(buf), "%s/%d", field_name(field), plen);
			else
				snprintf(buf, sizeof(buf), "%s", field_name(field));
			print_element(" %s", buf);
		}
	}
	if (!buf[0])
		print_text(" (protocol only)");
	print_close_array();
	print_u64("entries", "  entries %llu", attr_u32(ta.tb[MMB_TABLE_A_ENTRIES]));
	print_u64("rules", " rules %llu", attr_u32(ta.tb[MMB_TABLE_A_RULES]));
	print_u64("hits", " hits %llu", attr_u64(ta.tb[MMB_TABLE_A_HITS]));
	print_u64("buckets", " buckets %llu", attr_u32(ta.tb[MMB_TABLE_A_BUCKETS]));
	print_u64("chain_max", " chain-max %llu", attr_u32(ta.tb[MMB_TABLE_A_CHAIN_MAX]));
	print_close_object();
	print_text("\n");
	return MNL_CB_OK;
}

int do_show_tables(int argc, char **argv)
{
	return cmd_dump(argc, argv, MMB_CMD_TABLE_GET, table_cb, NULL);
}
