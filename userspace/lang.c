// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: the rule language, words to a struct urule and back.
 *
 *   RULE   := MATCH... TARGET...
 *   MATCH  := [ ! ] FIELD [ [ OP ] VALUE ] | all
 *   OP     := == | != | < | > | <= | >=
 *   TARGET := drop [ PERCENT ] | accept | mod FIELD VALUE   (targets.c)
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"
#include "rule.h"

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

/* A field of a connection's tuple: rewriting it per connection is NAT. */
static bool field_is_endpoint(int f)
{
	return f == MMB_FIELD_IP_SADDR || f == MMB_FIELD_IP_DADDR || f == MMB_FIELD_IP6_SADDR ||
	       f == MMB_FIELD_IP6_DADDR || f == MMB_FIELD_TCP_SPORT || f == MMB_FIELD_TCP_DPORT ||
	       f == MMB_FIELD_UDP_SPORT || f == MMB_FIELD_UDP_DPORT;
}

/* Can @w be a match's value, rather than what comes after the match? */
static bool is_value(const char *w)
{
	return !target_by_name(w) && !starts_match(w);
}

/* An option kind: decimal, 0xHEX or xHEX, 0 to 255; -1 if @w is none. */
int opt_kind(const char *w)
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

/* "ip-ce", "! ip-ect0": an alias of an ECN value, as a match. */
static void parse_ecn_alias(struct umatch *m, int value, bool neg)
{
	m->field = MMB_FIELD_IP_ECN;
	m->plen = 2;
	m->vlen = 1;
	m->value[0] = value;
	m->op = neg ? MMB_OP_NE : MMB_OP_EQ;
}

/*
 * What follows a match's field at word @i: a value (after an operator, or
 * as the next word), or nothing for a bare flag or option. The next word
 * goes to *@pi.
 */
static int parse_match_value(int argc, char **argv, int i, bool have_op, struct umatch *m,
			     int *pi)
{
	char err[160];

	if (have_op || (i < argc && is_value(argv[i]))) {
		if (i == argc)
			return err_word(AT(argv + i), "missing VALUE of %s", argv[m->argi]);
		if (value_parse(m->field, argv[i], m->value, &m->vlen, &m->plen, err, sizeof(err)))
			return err_word(AT(argv + i), "%s", err);
		m->vargi = AT(argv + i);
		i++;
	} else if (field_bits(m->field) == 1) {
		m->vlen = 1;
		m->value[0] = 1;		/* a bare flag: set */
		m->plen = 1;
	} else if (field_is_opt(m->field)) {
		m->plen = field_bits(m->field);	/* a bare option: present */
	} else {
		return err_word(m->argi, "%s needs a value", argv[m->argi]);
	}
	*pi = i;
	return 0;
}

static int parse_match(int argc, char **argv, int *pi, struct urule *r)
{
	struct umatch *m = &r->m[r->nm];
	int i = *pi, op = MMB_OP_EQ, alias, err;
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
	m->field = field_lookup(argv[i]);
	alias = m->field < 0 ? ecn_alias(argv[i]) : -1;
	if (alias >= 0) {
		parse_ecn_alias(m, alias, neg);
		*pi = i + 1;
		r->nm++;
		return 0;
	}
	if (m->field < 0)
		return err_word(AT(argv + i), "unknown field \"%s\"", argv[i]);
	i++;
	if (m->field == MMB_FIELD_TCP_OPT && i < argc && is_value(argv[i]) &&
	    op_lookup(argv[i]) < 0) {
		m->kind = opt_kind(argv[i]);
		if (m->kind < 2)
			return err_word(AT(argv + i), "a TCP option kind is 2 to 255");
		i++;
	}
	if (i < argc && op_lookup(argv[i]) >= 0) {
		op = op_lookup(argv[i++]);
		have_op = true;
	}
	if (m->field == MMB_FIELD_ALL) {
		if (neg || have_op)
			return err_word(m->argi, "\"all\" takes no operator and no !");
		*pi = i;
	} else {
		err = parse_match_value(argc, argv, i, have_op, m, pi);
		if (err)
			return err;
	}
	m->op = neg ? op_negate(op) : op;
	r->nm++;
	return 0;
}

static int parse_target(int argc, char **argv, int *pi, struct urule *r)
{
	struct utarget *t = &r->t[r->nt];
	const struct target_kind *k;
	int i = *pi, err;

	if (r->nt == URULE_MAX_TARGETS)
		return err_word(AT(argv + i), "more than %d targets", URULE_MAX_TARGETS);
	k = target_by_name(argv[i]);
	if (!k && starts_match(argv[i]))
		return err_word(AT(argv + i), "matches come before targets");
	if (!k)
		return err_word(AT(argv + i), "unknown target \"%s\": %s", argv[i],
				target_names());
	if (!k->parse)
		return err_word(AT(argv + i), "target \"%s\" is not supported yet", argv[i]);
	memset(t, 0, sizeof(*t));
	t->type = k->type;
	t->argi = t->fargi = t->vargi = AT(argv + i);
	err = k->parse(argc, argv, pi, t);
	if (err)
		return err;
	if (!r->stateful && (t->type == MMB_TARGET_MAP || t->type == MMB_TARGET_SHUFFLE ||
			     t->type == MMB_TARGET_MASQUERADE))
		return err_word(t->argi, "%s is per connection: it needs add-stateful", argv[i]);
	if (t->type == MMB_TARGET_MAP && !field_is_endpoint(t->field))
		return err_word(t->fargi, "map takes an address or a TCP or UDP port");
	r->nt++;
	return 0;
}

int urule_parse(int argc, char **argv, int i, struct urule *r)
{
	int err;

	/* Each match and target is cleared as it is parsed: -f parses 100k. */
	r->nm = 0;
	r->nt = 0;
	while (i < argc && !target_by_name(argv[i])) {
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
		return err_word(AT(argv + i), "a rule needs a target: %s", target_names());
	return 0;
}

static size_t append(char *buf, size_t len, size_t off, const char *s)
{
	if (off < len)
		snprintf(buf + off, len - off, "%s%s", off ? " " : "", s);
	return off + strlen(s) + (off ? 1 : 0);
}

/* A match as the words that give it back. */
static void match_format(const struct umatch *m, char *w, size_t len)
{
	char v[160], name[40];

	if (m->field == MMB_FIELD_ALL) {
		snprintf(w, len, "all");
		return;
	}
	value_format(m->field, m->value, m->vlen, m->plen, v, sizeof(v));
	snprintf(name, sizeof(name), m->kind ? "%s %d" : "%s", field_name(m->field), m->kind);
	if (field_is_opt(m->field) && !m->vlen)
		snprintf(w, len, "%s%s", m->op == MMB_OP_NE ? "! " : "", name);
	else if (field_bits(m->field) == 1 && m->op == MMB_OP_EQ && m->value[0] == 1)
		snprintf(w, len, "%s", name);
	else if (m->op == MMB_OP_EQ)
		snprintf(w, len, "%s %s", name, v);
	else
		snprintf(w, len, "%s %s %s", name, op_name(m->op), v);
}

void urule_format(const struct urule *r, char *buf, size_t len)
{
	const struct target_kind *k;
	char w[240];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->nm; i++) {
		match_format(&r->m[i], w, sizeof(w));
		off = append(buf, len, off, w);
	}
	for (i = 0; i < r->nt; i++) {
		k = target_by_type(r->t[i].type);
		if (k)
			k->format(&r->t[i], w, sizeof(w));
		else
			snprintf(w, sizeof(w), "target-%d", r->t[i].type);
		off = append(buf, len, off, w);
	}
}
