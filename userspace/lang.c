// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: the rule language, words to a struct urule and back.
 *
 *   RULE   := [ priority N ] [ conn-priority N ] MATCH... TARGET...
 *             (N: 0 to 4294967295, higher wins; conn-priority: add-stateful)
 *   MATCH  := [ ! ] FIELD [ [ OP ] VALUE ] | all | LIMIT   (LIMIT: limit.c)
 *   OP     := == | != | < | > | <= | >=
 *   TARGET := drop [ PERCENT ] | accept | mod FIELD VALUE | count   (targets.c)
 *             | log [ prefix TEXT ] [ level LEVEL ]   (log.c: the rule's, not a target)
 *             | offload   (add-stateful, not drop: its connections' fast path)
 *   then, last, an optional comment TEXT (1 to 128 bytes, no control character)
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../uapi/linux/mmb_fields.h"
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
	return islower((unsigned char)w[0]) && (field_lookup(w) >= 0 || ecn_alias(w) >= 0 ||
						!strcmp(w, "limit"));
}

/* A field of a connection's tuple: rewriting it per connection is NAT. */
static bool field_is_endpoint(int f)
{
	return f == MMB_FIELD_IP_SADDR || f == MMB_FIELD_IP_DADDR || f == MMB_FIELD_IP6_SADDR ||
	       f == MMB_FIELD_IP6_DADDR || f == MMB_FIELD_TCP_SPORT || f == MMB_FIELD_TCP_DPORT ||
	       f == MMB_FIELD_UDP_SPORT || f == MMB_FIELD_UDP_DPORT;
}

/*
 * Can @w be a match's value, rather than what comes after the match (a
 * match, ct count, a target, offload, the comment)?
 */
static bool is_value(const char *w)
{
	return !target_follows(w) && !starts_match(w) && strcmp(w, "ct");
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

	/* An interface's name is never bare: "in all", "in drop" name interfaces. */
	if (have_op || (i < argc && (is_value(argv[i]) || m->field == MMB_FIELD_IN ||
				     m->field == MMB_FIELD_OUT))) {
		if (i == argc)
			return err_word(AT(argv + i), "missing VALUE of %s", argv[m->argi]);
		if (value_parse(m->field, argv[i], m->value, &m->vlen, &m->plen, err, sizeof(err)))
			return err_word(AT(argv + i), "%s", err);
		m->vargi = AT(argv + i);
		if (m->field == MMB_FIELD_META_MARK && m->vlen == 8 &&
		    (m->value[0] & ~m->value[4] || m->value[1] & ~m->value[5] ||
		     m->value[2] & ~m->value[6] || m->value[3] & ~m->value[7]))
			return err_word(AT(argv + i),
					"the meta-mark value has bits outside its mask: it never matches");
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

/* Edit distance of two short words (capped at 8 characters each way). */
static int distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, j, d[25][25];

	if (la > 24 || lb > 24)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;

			d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
	return d[la][lb];
}

/* Netfilter's words that mean something else here, and what to say. */
static const struct {
	const char *word;
	const char *say;
} nf_words[] = {
	{ "jump", "mmb has no chains: order rules with priority N (mmbctl import translates nft chains)" },
	{ "goto", "mmb has no chains: order rules with priority N (mmbctl import translates nft chains)" },
	{ "return", "mmb has no chains: order rules with priority N (mmbctl import translates nft chains)" },
	{ "counter", "a rule that only counts is \"count\"; every rule counts its packets and bytes: mmbctl -s list" },
	{ "snat", "source NAT is add-stateful ... mod ip-saddr ADDRESS" },
	{ "dnat", "destination NAT is add-stateful ... map ip-daddr ADDRESS" },
	{ "masquerade", "source NAT is add-stateful ... mod ip-saddr ADDRESS" },
	{ "ct", "connection tracking is add-stateful RULE" },
	{ "state", "connection tracking is add-stateful RULE" },
	{ "iif", "the input interface is \"in IFACE\"" },
	{ "iifname", "the input interface is \"in IFACE\"" },
};

/*
 * A word that is neither a field nor a target: say which it could have
 * been (after a match, a misspelled target is as likely as a field), the
 * nearest word of the language, or what a netfilter word is here.
 */
static int unknown_word(char **argv, int i, bool after_match)
{
	const char *w = argv[i], *best = NULL, *what = after_match ? "target or field" : "field";
	const struct target_kind *k;
	char lower[32];
	unsigned int j;
	int f, d, bestd = 3;

	for (j = 0; j < sizeof(lower) - 1 && w[j]; j++)
		lower[j] = tolower((unsigned char)w[j]);
	lower[j] = '\0';
	for (j = 0; j < sizeof(nf_words) / sizeof(nf_words[0]); j++)
		if (!strcmp(lower, nf_words[j].word))
			return err_word(AT(argv + i), "unknown %s \"%s\": %s", what, w,
					nf_words[j].say);
	if (strcmp(lower, w) && (target_by_name(lower) || field_lookup(lower) >= 0))
		return err_word(AT(argv + i), "unknown %s \"%s\", did you mean \"%s\"?", what, w,
				lower);
	for (f = 0; f < __MMB_FIELD_MAX; f++) {
		d = distance(lower, field_name(f));
		if (d < bestd) {
			bestd = d;
			best = field_name(f);
		}
	}
	for (k = target_kinds; after_match && k->name; k++) {
		d = distance(lower, k->name);
		if (d < bestd || (d == bestd && best && strlen(k->name) > 2)) {
			bestd = d;
			best = k->name;
		}
	}
	/* A short word is near too much: two edits of "in" are anything. */
	if (best && bestd < (int)strlen(w) / 2 + 1)
		return err_word(AT(argv + i), "unknown %s \"%s\", did you mean \"%s\"?", what, w,
				best);
	return err_word(AT(argv + i), "unknown %s \"%s\" (mmbctl help fields, help targets)",
			what, w);
}

/* Is @w one of the words that come before a rule's matches? */
static bool is_rule_word(const char *w)
{
	return !strcmp(w, "priority") || !strcmp(w, "conn-priority");
}

/* "priority N", "conn-priority N" at word *@pi: once each, before the matches. */
static int parse_rule_word(int argc, char **argv, int *pi, struct urule *r, bool *seen,
			   bool *seen_conn)
{
	int i = *pi;
	bool conn = argv[i][0] == 'c';
	unsigned long long v;
	char *end;

	if (conn ? *seen_conn : *seen)
		return err_word(AT(argv + i), "%s is given twice", argv[i]);
	if (conn && !r->stateful)
		return err_word(AT(argv + i), "conn-priority is for add-stateful rules");
	if (i + 1 == argc)
		return err_word(AT(argv + i + 1), "missing N of %s", argv[i]);
	errno = 0;
	v = strtoull(argv[i + 1], &end, 10);
	if (!isdigit((unsigned char)argv[i + 1][0]) || *end || errno || v > UINT32_MAX)
		return err_word(AT(argv + i + 1), "%s takes 0 to 4294967295, not \"%s\"",
				argv[i], argv[i + 1]);
	if (conn) {
		r->conn_prio = v;
		r->has_conn_prio = true;
		r->conn_prio_argi = AT(argv + i + 1);
		*seen_conn = true;
	} else {
		r->prio = v;
		r->prio_argi = AT(argv + i + 1);
		*seen = true;
	}
	*pi = i + 2;
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
	if (is_rule_word(argv[i]))
		return err_word(AT(argv + i), "%s comes first, before the matches", argv[i]);
	m->field = field_lookup(argv[i]);
	alias = m->field < 0 ? ecn_alias(argv[i]) : -1;
	if (alias >= 0) {
		parse_ecn_alias(m, alias, neg);
		*pi = i + 1;
		r->nm++;
		return 0;
	}
	if (m->field < 0)
		return unknown_word(argv, i, r->nm > 0);
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
	if (!k && is_rule_word(argv[i]))
		return err_word(AT(argv + i), "%s comes first, before the matches", argv[i]);
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

static const char *l4_name(int l4)
{
	return l4 == 6 ? "tcp" : l4 == 17 ? "udp" : l4 == 1 ? "icmp" : l4 == 58 ? "icmp6" : NULL;
}

/*
 * What the kernel would refuse, or compile into a rule that never matches,
 * caught here with the word: fields of IPv4 and IPv6 (or net-proto) in
 * one rule, fields of two L4 protocols, and an ip-proto that is not the
 * protocol of the rule's other fields.
 */
static int pin(int argi, int family, int l4, int *rfamily, int *rl4, int *fargi, int *largi)
{
	char other[16];

	if (family) {
		if (*rfamily && *rfamily != family)
			return err_word(argi, "rule mixes IPv4 and IPv6 fields (%s)",
					cur.w[*fargi]);
		*rfamily = family;
		*fargi = argi;
	}
	if (l4) {
		if (*rl4 && *rl4 != l4) {
			if (l4_name(*rl4))
				snprintf(other, sizeof(other), "%s", l4_name(*rl4));
			else
				snprintf(other, sizeof(other), "protocol %d", *rl4);
			if (!strcmp(cur.w[*largi], "ip-proto"))
				return err_word(argi, "rule mixes fields of different L4 protocols (%s says %s)",
						cur.w[*largi], other);
			return err_word(argi, "rule mixes fields of different L4 protocols (%s is %s's)",
					cur.w[*largi], other);
		}
		*rl4 = l4;
		*largi = argi;
	}
	return 0;
}

static int urule_check(const struct urule *r)
{
	int rfamily = 0, rl4 = 0, fargi = 0, largi = 0, i, err;

	for (i = 0; i < r->nm; i++) {
		const struct umatch *m = &r->m[i];
		int family = mmb_field_names[m->field].family, l4 = mmb_field_names[m->field].l4;

		/* IPv4's protocol is the L4 one (ip6-next may be an extension header's). */
		if ((m->field == MMB_FIELD_IP_PROTO || m->field == MMB_FIELD_L4_PROTO) &&
		    m->op == MMB_OP_EQ && m->plen == 8 &&
		    m->vlen == 1)
			l4 = m->value[0];
		if (m->field == MMB_FIELD_NET_PROTO && m->plen == 16 && m->vlen == 2 &&
		    (m->op == MMB_OP_EQ || m->op == MMB_OP_NE)) {
			unsigned int v = m->value[0] << 8 | m->value[1];

			if (v == 0x0800 || v == 0x86dd)
				family = (v == 0x0800) == (m->op == MMB_OP_EQ) ? 4 : 6;
		}
		err = pin(m->argi, family, l4, &rfamily, &rl4, &fargi, &largi);
		if (err)
			return err;
	}
	for (i = 0; i < r->nt; i++) {
		const struct utarget *t = &r->t[i];
		int family = 0, l4 = 0;

		if (t->type == MMB_TARGET_COUNT && r->nt > 1)
			return err_word(t->argi,
					"count is a rule's only target: every rule counts its packets (mmbctl -s list)");
		if (t->type == MMB_TARGET_COUNT && r->stateful)
			return err_word(t->argi, "count is for add: a stateful rule counts its connections' packets");

		if (t->type == MMB_TARGET_STRIP || t->type == MMB_TARGET_ADD) {
			l4 = 6;
		} else if (t->type == MMB_TARGET_MOD || t->type == MMB_TARGET_MAP ||
			   t->type == MMB_TARGET_SHUFFLE) {
			family = mmb_field_names[t->field].family;
			l4 = mmb_field_names[t->field].l4;
		}
		err = pin(t->fargi, family, l4, &rfamily, &rl4, &fargi, &largi);
		if (err)
			return err;
		if (t->type == MMB_TARGET_REJECT && t->reject == MMB_REJECT_TCP_RESET && rl4 != 6)
			return err_word(t->vargi,
					"with tcp-reset is for TCP rules only (ip-proto tcp, or a tcp- field)");
	}
	return limit_check(r, rfamily, rl4);
}

/* comment TEXT at word *@pi: the rule's last words. */
static int parse_comment(int argc, char **argv, int *pi, struct urule *r)
{
	int i = *pi + 1;
	const char *c;
	size_t len, j;

	if (i == argc)
		return err_word(AT(argv + i), "missing TEXT of comment (quote it: comment \"ssh from office\")");
	c = argv[i];
	len = strlen(c);
	if (!len || len > MMB_COMMENT_MAX)
		return err_word(AT(argv + i), "a comment is 1 to %d bytes, not %zu",
				MMB_COMMENT_MAX, len);
	for (j = 0; j < len; j++)
		if ((unsigned char)c[j] < 0x20 || c[j] == 0x7f)
			return err_word(AT(argv + i),
					"a comment holds no control character (newline, tab, ...)");
	if (i + 1 < argc)
		return err_word(AT(argv + i + 1),
				"the comment comes last (quote a comment of several words)");
	memcpy(r->comment, c, len + 1);
	r->comment_argi = AT(argv + i);
	*pi = i + 1;
	return 0;
}

int urule_parse(int argc, char **argv, int i, struct urule *r)
{
	bool seen = false, seen_conn = false;
	int err;

	/* Each match and target is cleared as it is parsed: -f parses 100k. */
	r->nm = 0;
	r->nt = 0;
	r->prio = 0;
	r->has_conn_prio = false;
	r->prio_argi = 0;
	r->conn_prio_argi = 0;
	r->comment[0] = '\0';
	r->comment_argi = 0;
	r->limit.rate = 0;
	memset(&r->cc, 0, sizeof(r->cc));
	r->log = false;
	r->offload = false;
	r->offload_argi = 0;
	while (i < argc && is_rule_word(argv[i])) {
		err = parse_rule_word(argc, argv, &i, r, &seen, &seen_conn);
		if (err)
			return err;
	}
	r->conn_prio = r->has_conn_prio ? r->conn_prio : r->prio;
	while (i < argc && !target_by_name(argv[i]) && strcmp(argv[i], "offload")) {
		if (!strcmp(argv[i], "comment"))
			return err_word(AT(argv + i), "the comment comes last, after the targets");
		if (!strcmp(argv[i], "limit"))
			err = limit_parse(argc, argv, &i, r);
		else if (!strcmp(argv[i], "ct"))
			err = ctcount_parse(argc, argv, &i, r);
		else
			err = parse_match(argc, argv, &i, r);
		if (err)
			return err;
	}
	if (!r->nm)
		return err_word(AT(argv + i), "a rule needs a match first (\"all\" for every packet)");
	while (i < argc) {
		if (!strcmp(argv[i], "comment") && (r->nt || r->log)) {
			err = parse_comment(argc, argv, &i, r);
			if (err)
				return err;
			continue;
		}
		if (!strcmp(argv[i], "log")) {
			err = urule_parse_log(argc, argv, &i, r);
			if (err)
				return err;
			continue;
		}
		if (!strcmp(argv[i], "offload")) {
			if (r->offload)
				return err_word(AT(argv + i), "offload is given twice");
			if (!r->stateful)
				return err_word(AT(argv + i),
						"offload is for add-stateful rules: it applies to connections");
			r->offload = true;
			r->offload_argi = AT(argv + i++);
			continue;
		}
		err = parse_target(argc, argv, &i, r);
		if (err)
			return err;
	}
	/* "log count": count goes without saying, as when the kernel gives it back. */
	if (r->log && r->nt == 1 && r->t[0].type == MMB_TARGET_COUNT)
		r->nt = 0;
	if (!r->nt && r->log && r->stateful)
		return err_word(r->log_argi,
				"a stateful rule needs a verdict besides log (accept, drop): it logs the packets that start connections");
	if (!r->nt && !r->log)
		return err_word(AT(argv + i), "a rule needs a target: %s", target_names());
	for (i = 0; r->offload && i < r->nt; i++)
		if (r->t[i].type == MMB_TARGET_DROP || r->t[i].type == MMB_TARGET_REJECT)
			return err_word(r->offload_argi,
					"offload is for rules that let their connections pass (accept, NAT), not drop");
	return urule_check(r);
}

void urule_comment(const struct urule *r, char *buf, size_t len)
{
	size_t off = 0;
	const char *c;

	buf[0] = '\0';
	if (!r->comment[0] || len < 16)
		return;
	off = snprintf(buf, len, " comment \"");
	/* Within double quotes a shell (and -f) takes \" \\ \$ \` as the character. */
	for (c = r->comment; *c && off + 4 < len; c++) {
		if (strchr("\"\\$`", *c))
			buf[off++] = '\\';
		buf[off++] = *c;
	}
	buf[off++] = '"';
	buf[off] = '\0';
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
	if (r->prio) {
		snprintf(w, sizeof(w), "priority %u", r->prio);
		off = append(buf, len, off, w);
	}
	if (r->stateful && r->conn_prio != r->prio) {
		snprintf(w, sizeof(w), "conn-priority %u", r->conn_prio);
		off = append(buf, len, off, w);
	}
	for (i = 0; i < r->nm; i++) {
		match_format(&r->m[i], w, sizeof(w));
		off = append(buf, len, off, w);
	}
	if (r->limit.rate) {
		limit_format(&r->limit, w, sizeof(w));
		off = append(buf, len, off, w);
	}
	ctcount_format(r, w, sizeof(w));
	if (w[0])
		off = append(buf, len, off, w);
	for (i = 0; i < r->nt; i++) {
		k = target_by_type(r->t[i].type);
		if (k)
			k->format(&r->t[i], w, sizeof(w));
		else
			snprintf(w, sizeof(w), "target-%d", r->t[i].type);
		off = append(buf, len, off, w);
	}
	if (r->offload)
		append(buf, len, off, "offload");
}
