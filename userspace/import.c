// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl import [-n] [-c] FILE|-: an nftables ruleset, as "nft -j list
 * ruleset" prints it (libnftables-json(5)), translated into one mmbctl -f
 * transaction with rule priorities, or printed as that file (-n).
 *
 * A base chain is flattened into first-match order: every rule it reaches
 * (through jumps and gotos) becomes one or more mmb rules whose priority
 * falls with their position; the chain's policy is the lowest rule. A
 * rule's matches are a disjunction of conjunctions (sets and
 * concatenations expand into alternatives); each conjunction is one mmb
 * rule. What has no mmb meaning is refused, naming the table, chain, rule
 * handle and expression, and nothing is applied.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "mmbctl.h"

#ifndef MMB_HAVE_JANSSON
int do_import(int argc, char **argv)
{
	fprintf(stderr, "Error: this mmbctl was built without jansson (libjansson-dev): "
		"no import\n");
	return EXIT_FAIL;
}
#else
#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../uapi/linux/mmb_fields.h"
#include "mmbctl.h"
#include "rule.h"

/* Bounds: the input, nft's rules, mmb rules made, alternatives of one rule. */
#define IMPORT_MAX_BYTES	(256u << 20)
#define IMPORT_MAX_NFT_RULES	200000
#define IMPORT_MAX_RULES	1000000
#define IMPORT_MAX_ALTS		65536
#define IMPORT_MAX_DEPTH	16	/* nft's own jump stack */
#define IMPORT_MAX_STEPS	1000000	/* rules visited flattening, all chains */
#define IMPORT_MAX_NEST		1024	/* flatten() calls in progress */
#define TERM_MAX		32	/* an mmb rule's matches */

struct sbuf {
	char *p;
	size_t len, cap;
};

static int sb_grow(struct sbuf *s, size_t more)
{
	char *p;
	size_t cap;

	if (s->len + more + 1 <= s->cap)
		return 0;
	cap = (s->len + more + 1) * 2 + 4096;
	p = realloc(s->p, cap);
	if (!p)
		return -1;
	s->p = p;
	s->cap = cap;
	return 0;
}

static int sb_add(struct sbuf *s, const char *str, size_t n)
{
	if (sb_grow(s, n))
		return -1;
	memcpy(s->p + s->len, str, n);
	s->len += n;
	s->p[s->len] = '\0';
	return 0;
}

static int sb_printf(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sb_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || sb_grow(s, n))
		return -1;
	va_start(ap, fmt);
	vsnprintf(s->p + s->len, n + 1, fmt, ap);
	va_end(ap);
	s->len += n;
	return 0;
}

/*
 * One conjunction: mmb match words, and what they imply. A family or L4
 * protocol a match asks for (meta nfproto, meta l4proto) is kept aside and
 * written only if no match names a field that implies it (tcp-dport
 * implies TCP, in IPv4 and IPv6 alike).
 *
 * In a netdev chain nft's matches may also hold of frames that are not IP
 * (ARP, VLAN, LLDP: iif, meta mark, meta protocol !=), which mmb never
 * judges: @nonip says so, and @noip that the matches hold of no IP packet
 * (meta protocol != ip together with != ip6), which mmb cannot write.
 */
struct conj {
	char *text;		/* words, space-separated; malloc'ed */
	int nterms;
	int fam;		/* 0, 4 or 6: what the matches allow */
	bool fam_said;		/* a field of the family is among the words */
	int l4;			/* 0 or the L4 protocol the matches allow */
	bool l4_said;
	bool nonip;		/* nft's matches hold of some non-IP frames too */
	bool noip;		/* ... and of no IP packet */
	char dev[16];		/* the device of a netdev chain, or "" */
};

struct dnf {
	struct conj *c;
	int n, cap;
};

/*
 * A rule of a chain: its tree, or where its element of the "nftables"
 * array ({"rule": ...}) is in the input, parsed again each time it is
 * flattened (load_stream()).
 */
struct rule_ref {
	json_t *tree;
	size_t off, len;
};

struct chain {
	const char *family, *table, *name;
	json_t *obj;
	struct rule_ref *rules;
	int nrules, cap;
	bool base;
};

struct nset {
	const char *family, *table, *name;
	json_t *elem;
	bool is_map;
};

/* Where flattening goes on when a chain returns: the rest of its caller. */
struct frame {
	struct chain *chain;
	int next;
	const struct frame *up;
	int depth;		/* of @chain's jumps */
};

struct out_rule {
	size_t off;		/* its words in imp->words */
	unsigned int group;	/* same group, same priority */
	bool stateful;
	bool lowest;		/* the policy: priority 0 */
	unsigned int conn_group;	/* stateful: its connections' priority */
	size_t from;		/* what it came from, in imp->from */
};

struct imp {
	const char *in;		/* the input, where rules are kept as text */
	struct chain *chains;
	int nchains, ccap;
	struct nset *sets;
	int nsets, scap;
	/* The base chain being flattened. */
	struct chain *base;
	const char *policy;
	bool stateful;		/* after ct state established,related accept */
	bool marked;		/* a meta mark set came before */
	unsigned int est_group;	/* that rule's place */
	bool at_policy;		/* what emit() writes is the policy's drop */
	unsigned long steps;	/* rules visited by flatten(), all chains */
	int nest;		/* flatten() calls in progress */
	/* The rule being translated, for errors. */
	struct chain *at_chain;
	json_int_t at_handle;
	/* Output. */
	struct sbuf words;
	struct out_rule *out;
	size_t nout, ocap;
	unsigned int group;
	bool lowest;		/* what emit() writes is the policy */
	struct sbuf head;	/* enable lines, comments */
	/*
	 * Where each line of the translation came from, for errors found
	 * applying it: NUL-ended texts ("table inet t, chain c, rule handle
	 * 4"), the last one's chain and handle, and those of the head's lines.
	 */
	struct sbuf from;
	size_t from_last;
	const struct chain *from_chain;
	json_int_t from_handle;
	bool from_lowest;
	size_t *head_from;
	size_t nhead, hcap;
};

/*
 * The lines of a translation being applied, for mmbctl's errors: where
 * each came from (err_origin).
 */
static struct {
	char *text;		/* imp->from */
	size_t *at;		/* line 3 onwards: offsets in text; (size_t)-1: none */
	size_t n;
} lines_from;

/* Where the rule being translated came from, in @im->from; -1: no memory. */
static size_t origin_here(struct imp *im)
{
	const struct chain *c = im->at_chain;
	size_t at = im->from.len;

	if (im->from.p && c == im->from_chain && im->at_handle == im->from_handle &&
	    im->lowest == im->from_lowest)
		return im->from_last;
	if (!c ? sb_printf(&im->from, "the translation") :
	    im->at_handle >= 0 ?
	    sb_printf(&im->from, "table %s %s, chain %s, rule handle %" JSON_INTEGER_FORMAT,
		      c->family, c->table, c->name, im->at_handle) :
	    sb_printf(&im->from, "table %s %s, chain %s%s", c->family, c->table, c->name,
		      im->lowest ? ", policy drop" : ""))
		return (size_t)-1;
	im->from.len++;		/* keep the NUL */
	im->from_chain = c;
	im->from_handle = im->at_handle;
	im->from_lowest = im->lowest;
	im->from_last = at;
	return at;
}

/*
 * For err_origin: what line @line of the translation came from; the flush
 * before the rules (line 2) came from no rule of the input.
 */
static const char *import_origin(unsigned int line)
{
	static char own[64];

	if (line < 3 || line - 3 >= lines_from.n || lines_from.at[line - 3] == (size_t)-1) {
		snprintf(own, sizeof(own), "line %u of its translation (import -n)", line);
		return own;
	}
	return lines_from.text + lines_from.at[line - 3];
}

/* Errors: "table FAMILY NAME, chain NAME, rule handle N: EXPR: what". */
static int refuse(struct imp *im, const json_t *expr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(struct imp *im, const json_t *expr, const char *fmt, ...)
{
	char *js = expr ? json_dumps(expr, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	va_list ap;

	fprintf(stderr, "Error: ");
	if (im->at_chain)
		fprintf(stderr, "table %s %s, chain %s", im->at_chain->family,
			im->at_chain->table, im->at_chain->name);
	if (im->at_chain && im->at_handle >= 0)
		fprintf(stderr, ", rule handle %" JSON_INTEGER_FORMAT, im->at_handle);
	if (js)
		fprintf(stderr, "%s%.200s%s", im->at_chain ? ": " : "", js,
			strlen(js) > 200 ? "..." : "");
	fprintf(stderr, "%s", im->at_chain || js ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (js) {
		json_free_t free_fn;

		json_get_alloc_funcs(NULL, &free_fn);
		free_fn(js);
	}
	return EXIT_USAGE;
}

static int nomem(void)
{
	return err_sys("import", ENOMEM);
}

/* --- conjunctions ------------------------------------------------------ */

static void dnf_free(struct dnf *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		free(d->c[i].text);
	free(d->c);
	d->c = NULL;
	d->n = d->cap = 0;
}

static int dnf_push(struct dnf *d, const struct conj *c)
{
	if (d->n == d->cap) {
		int cap = d->cap * 2 + 4;
		struct conj *p = realloc(d->c, cap * sizeof(*p));

		if (!p)
			return -1;
		d->c = p;
		d->cap = cap;
	}
	d->c[d->n++] = *c;
	return 0;
}

/* The family and L4 protocol a field name implies (mmb_fields.h). */
static void field_implies(const char *word, int *fam, int *l4)
{
	int f = field_lookup(word);

	*fam = f >= 0 ? mmb_field_names[f].family : 0;
	*l4 = f >= 0 ? mmb_field_names[f].l4 : 0;
}

/*
 * An alternative of one match: up to eight words-with-values ("ip-saddr
 * 10.0.0.0/8", "tcp-dport >= 1000"), and a family and L4 protocol it asks
 * for without saying them (0: none); @nonip: in nft it holds of some
 * frames that are not IP too (struct conj).
 */
struct alt {
	char terms[8][112];
	int nterms;
	int fam, l4;
	bool nonip, noip;
};

struct alts {
	struct alt *a;
	int n, cap;
};

static struct alt *alts_new(struct alts *as)
{
	struct alt *a;

	if (as->n == as->cap) {
		int cap = as->cap * 2 + 4;

		if (cap > IMPORT_MAX_ALTS * 2)
			return NULL;
		a = realloc(as->a, cap * sizeof(*a));
		if (!a)
			return NULL;
		as->a = a;
		as->cap = cap;
	}
	a = &as->a[as->n++];
	memset(a, 0, sizeof(*a));
	return a;
}

/* alts_new() failed on @as: too many alternatives (refused), or no memory. */
static int alts_fail(struct imp *im, const json_t *expr, const struct alts *as)
{
	if (as->n >= IMPORT_MAX_ALTS)
		return refuse(im, expr, "more than %d mmb rules from one rule", IMPORT_MAX_ALTS);
	return nomem();
}

static int alt_term(struct alt *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int alt_term(struct alt *a, const char *fmt, ...)
{
	va_list ap;

	if (a->nterms == 8)
		return -1;
	va_start(ap, fmt);
	vsnprintf(a->terms[a->nterms++], sizeof(a->terms[0]), fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * @c and @a together, into @out; false if they cannot both hold (IPv4 and
 * IPv6, TCP and UDP), or on no memory (*@err set).
 */
static bool conj_and(const struct conj *c, const struct alt *a, struct conj *out, int *err)
{
	struct conj r = *c;
	struct sbuf s = { 0 };
	bool skip[8];
	int i, fam, l4, n = 0;

	r.nonip = c->nonip && a->nonip;
	r.noip = c->noip || a->noip;
	if (a->fam && r.fam && a->fam != r.fam) {
		/* IPv4 and IPv6: some non-IP frames may still match in nft */
		if (!r.nonip)
			return false;
		r.noip = true;
	}
	if ((a->l4 && r.l4 && a->l4 != r.l4) || (r.noip && !r.nonip))
		return false;
	if (a->fam)
		r.fam = a->fam;
	if (a->l4)
		r.l4 = a->l4;
	for (i = 0; i < a->nterms; i++) {
		char name[32], op[8], dev[20];

		sscanf(a->terms[i], "%31s", name);
		skip[i] = false;
		if (r.dev[0] && !strcmp(name, "in")) {
			/* iif/iifname in a netdev chain: its device, or no packet */
			bool ne = sscanf(a->terms[i], "in %7s %19s", op, dev) == 2;

			if (ne == !strcmp(ne ? dev : a->terms[i] + 3, r.dev))
				return false;
			skip[i] = true;
			continue;
		}
		field_implies(name, &fam, &l4);
		if (!strcmp(name, "ip-proto") || !strcmp(name, "ip6-next"))
			l4 = 0;	/* an operator may follow: not implied */
		if ((fam && r.fam && fam != r.fam) || (l4 && r.l4 && l4 != r.l4))
			return false;
		if (fam) {
			r.fam = fam;
			r.fam_said = true;
		}
		if (l4) {
			r.l4 = l4;
			r.l4_said = true;
		}
	}
	for (i = 0; i < a->nterms; i++)
		n += !skip[i];
	if (r.nterms + n > TERM_MAX) {
		*err = -2;
		return false;
	}
	if ((c->text && sb_add(&s, c->text, strlen(c->text))) || sb_add(&s, "", 0)) {
		*err = -1;
		free(s.p);
		return false;
	}
	for (i = 0; i < a->nterms; i++) {
		if (skip[i])
			continue;
		if ((s.len && sb_add(&s, " ", 1)) ||
		    sb_add(&s, a->terms[i], strlen(a->terms[i]))) {
			*err = -1;
			free(s.p);
			return false;
		}
	}
	r.nterms += n;
	r.text = s.p;
	*out = r;
	return true;
}

/* @d AND (any of @as), in place. */
static int dnf_and(struct imp *im, const json_t *expr, struct dnf *d, const struct alts *as)
{
	struct dnf r = { 0 };
	int i, j, err = 0;

	for (i = 0; i < d->n; i++) {
		for (j = 0; j < as->n; j++) {
			struct conj c;

			if (!conj_and(&d->c[i], &as->a[j], &c, &err)) {
				if (err)
					goto fail;
				continue;
			}
			if (r.n == IMPORT_MAX_ALTS) {
				free(c.text);
				dnf_free(&r);
				return refuse(im, expr, "more than %d mmb rules from one rule",
					      IMPORT_MAX_ALTS);
			}
			if (dnf_push(&r, &c)) {
				free(c.text);
				err = -1;
				goto fail;
			}
		}
	}
	dnf_free(d);
	*d = r;
	return 0;
fail:
	dnf_free(&r);
	if (err == -2)
		return refuse(im, expr, "more than %d matches in one mmb rule", TERM_MAX);
	return nomem();
}

static int dnf_copy(const struct dnf *from, struct dnf *to)
{
	int i;

	memset(to, 0, sizeof(*to));
	for (i = 0; i < from->n; i++) {
		struct conj c = from->c[i];

		c.text = from->c[i].text ? strdup(from->c[i].text) : NULL;
		if ((from->c[i].text && !c.text) || dnf_push(to, &c)) {
			free(c.text);
			dnf_free(to);
			return -1;
		}
	}
	return 0;
}

/* --- values ------------------------------------------------------------ */

struct named_value {
	const char *name;
	unsigned int value;
};

static const struct named_value icmp_types[] = {
	{ "echo-reply", 0 }, { "destination-unreachable", 3 }, { "source-quench", 4 },
	{ "redirect", 5 }, { "echo-request", 8 }, { "router-advertisement", 9 },
	{ "router-solicitation", 10 }, { "time-exceeded", 11 }, { "parameter-problem", 12 },
	{ "timestamp-request", 13 }, { "timestamp-reply", 14 }, { "info-request", 15 },
	{ "info-reply", 16 }, { "address-mask-request", 17 }, { "address-mask-reply", 18 },
	{}
}, icmp6_types[] = {
	{ "destination-unreachable", 1 }, { "packet-too-big", 2 }, { "time-exceeded", 3 },
	{ "parameter-problem", 4 }, { "echo-request", 128 }, { "echo-reply", 129 },
	{ "mld-listener-query", 130 }, { "mld-listener-report", 131 },
	{ "mld-listener-done", 132 }, { "mld-listener-reduction", 132 },
	{ "nd-router-solicit", 133 }, { "nd-router-advert", 134 },
	{ "nd-neighbor-solicit", 135 }, { "nd-neighbor-advert", 136 },
	{ "nd-redirect", 137 }, { "router-renumbering", 138 },
	{ "ind-neighbor-solicit", 141 }, { "ind-neighbor-advert", 142 },
	{ "mld2-listener-report", 143 },
	{}
}, dscps[] = {
	{ "cs0", 0 }, { "cs1", 8 }, { "cs2", 16 }, { "cs3", 24 }, { "cs4", 32 },
	{ "cs5", 40 }, { "cs6", 48 }, { "cs7", 56 }, { "af11", 10 }, { "af12", 12 },
	{ "af13", 14 }, { "af21", 18 }, { "af22", 20 }, { "af23", 22 }, { "af31", 26 },
	{ "af32", 28 }, { "af33", 30 }, { "af41", 34 }, { "af42", 36 }, { "af43", 38 },
	{ "va", 44 }, { "ef", 46 }, { "le", 1 },
	{}
}, ecns[] = {
	{ "not-ect", 0 }, { "ect1", 1 }, { "ect0", 2 }, { "ce", 3 },
	{}
}, tcp_flags[] = {
	{ "fin", 0x01 }, { "syn", 0x02 }, { "rst", 0x04 }, { "psh", 0x08 },
	{ "ack", 0x10 }, { "urg", 0x20 }, { "ecn", 0x40 }, { "cwr", 0x80 },
	{}
}, icmp_codes[] = {
	/* nft's names (icmp_code_type), as it prints them */
	{ "net-unreachable", 0 }, { "host-unreachable", 1 }, { "prot-unreachable", 2 },
	{ "port-unreachable", 3 }, { "frag-needed", 4 }, { "net-prohibited", 9 },
	{ "host-prohibited", 10 }, { "admin-prohibited", 13 },
	{}
}, icmp6_codes[] = {
	{ "no-route", 0 }, { "admin-prohibited", 1 }, { "addr-unreachable", 3 },
	{ "port-unreachable", 4 }, { "policy-fail", 5 }, { "reject-route", 6 },
	{}
}, nfprotos[] = {
	/* meta nfproto: NFPROTO_IPV4, NFPROTO_IPV6 */
	{ "ipv4", 2 }, { "ipv6", 10 },
	{}
}, ethertypes[] = {
	/* meta protocol: the ethertypes nft names */
	{ "ip", 0x0800 }, { "ip6", 0x86dd }, { "arp", 0x0806 }, { "vlan", 0x8100 },
	{ "8021q", 0x8100 }, { "8021ad", 0x88a8 },
	{}
};

/* mmb's one-bit fields of the TCP flags, by bit. */
static const char *const tcp_flag_field[8] = {
	"tcp-fin", "tcp-syn", "tcp-rst", "tcp-push", "tcp-ack", "tcp-urg", "tcp-ece", "tcp-cwr",
};

static int lookup_name(const struct named_value *t, const char *s, unsigned long long *v)
{
	for (; t->name; t++) {
		if (!strcmp(t->name, s)) {
			*v = t->value;
			return 0;
		}
	}
	return -1;
}

/* What kind of value a left-hand side takes. */
enum kind {
	K_NUM,		/* a number, maybe named */
	K_ADDR4,
	K_ADDR6,
	K_IFACE,
};

/*
 * A left-hand side nft has and mmb can say: the mmb field (NULL: special),
 * its width, the kind of its values and the names they may have.
 */
struct lhs {
	const char *field;
	int bits;
	enum kind kind;
	const struct named_value *names;
	int fam, l4;		/* what the field implies */
	bool l4proto;		/* meta l4proto / ip protocol: l4-proto, ip-proto */
	bool protonames;	/* ip6 nexthdr: a number, or a name of protocol */
	bool nfproto;		/* meta nfproto / protocol: net-proto */
	bool ethertype;		/* meta protocol (nfproto: meta nfproto) */
	bool flags;		/* tcp flags */
	bool th;		/* th sport/dport: the L4 protocol's */
	const char *th_field;	/* "sport" or "dport" */
	bool mark;		/* meta mark */
};

static const struct {
	const char *proto, *field, *mmb;
	enum kind kind;
	const struct named_value *names;
} payloads[] = {
	{ "ip", "version", "ip-ver", K_NUM, NULL },
	{ "ip", "hdrlength", "ip-ihl", K_NUM, NULL },
	{ "ip", "dscp", "ip-dscp", K_NUM, dscps },
	{ "ip", "ecn", "ip-ecn", K_NUM, ecns },
	{ "ip", "length", "ip-len", K_NUM, NULL },
	{ "ip", "id", "ip-id", K_NUM, NULL },
	{ "ip", "ttl", "ip-ttl", K_NUM, NULL },
	{ "ip", "checksum", "ip-checksum", K_NUM, NULL },
	{ "ip", "saddr", "ip-saddr", K_ADDR4, NULL },
	{ "ip", "daddr", "ip-daddr", K_ADDR4, NULL },
	{ "ip6", "version", "ip6-ver", K_NUM, NULL },
	{ "ip6", "dscp", "ip6-dscp", K_NUM, dscps },
	{ "ip6", "ecn", "ip6-ecn", K_NUM, ecns },
	{ "ip6", "flowlabel", "ip6-flow-label", K_NUM, NULL },
	{ "ip6", "length", "ip6-len", K_NUM, NULL },
	{ "ip6", "hoplimit", "ip6-hop-limit", K_NUM, NULL },
	{ "ip6", "saddr", "ip6-saddr", K_ADDR6, NULL },
	{ "ip6", "daddr", "ip6-daddr", K_ADDR6, NULL },
	{ "tcp", "sport", "tcp-sport", K_NUM, NULL },
	{ "tcp", "dport", "tcp-dport", K_NUM, NULL },
	{ "tcp", "sequence", "tcp-seq-num", K_NUM, NULL },
	{ "tcp", "ackseq", "tcp-ack-num", K_NUM, NULL },
	{ "tcp", "doff", "tcp-offset", K_NUM, NULL },
	{ "tcp", "window", "tcp-win", K_NUM, NULL },
	{ "tcp", "checksum", "tcp-checksum", K_NUM, NULL },
	{ "tcp", "urgptr", "tcp-urg-ptr", K_NUM, NULL },
	{ "udp", "sport", "udp-sport", K_NUM, NULL },
	{ "udp", "dport", "udp-dport", K_NUM, NULL },
	{ "udp", "length", "udp-len", K_NUM, NULL },
	{ "udp", "checksum", "udp-checksum", K_NUM, NULL },
	{ "icmp", "type", "icmp-type", K_NUM, icmp_types },
	{ "icmp", "code", "icmp-code", K_NUM, icmp_codes },
	{ "icmp", "checksum", "icmp-checksum", K_NUM, NULL },
	{ "icmpv6", "type", "icmp6-type", K_NUM, icmp6_types },
	{ "icmpv6", "code", "icmp6-code", K_NUM, icmp6_codes },
	{ "icmpv6", "checksum", "icmp6-checksum", K_NUM, NULL },
};

static void lhs_field(struct lhs *l, const char *mmb)
{
	int f = field_lookup(mmb);

	l->field = mmb;
	l->bits = field_bits(f);
	l->fam = mmb_field_names[f].family;
	l->l4 = mmb_field_names[f].l4;
}

/* A left-hand side expression; 0, or refused. */
static int lhs_parse(struct imp *im, const json_t *expr, const json_t *left, struct lhs *l)
{
	const char *proto, *field, *key;
	unsigned int i;

	memset(l, 0, sizeof(*l));
	if (!json_unpack((json_t *)left, "{s:{s:s, s:s}}", "payload", "protocol", &proto,
			 "field", &field)) {
		if (!strcmp(proto, "ip") && !strcmp(field, "protocol")) {
			l->l4proto = true;
			l->fam = 4;
			return 0;
		}
		if (!strcmp(proto, "tcp") && !strcmp(field, "flags")) {
			lhs_field(l, "tcp-flags");
			l->flags = true;
			l->names = tcp_flags;
			return 0;
		}
		if (!strcmp(proto, "th") && (!strcmp(field, "sport") || !strcmp(field, "dport"))) {
			l->th = true;
			l->th_field = field;
			l->field = !strcmp(field, "sport") ? "th-sport" : "th-dport";
			l->bits = 16;
			return 0;
		}
		if (!strcmp(proto, "ip6") && !strcmp(field, "nexthdr")) {
			/* the IPv6 header's own field: the first header after it */
			lhs_field(l, "ip6-next");
			l->kind = K_NUM;
			l->protonames = true;
			return 0;
		}
		for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
			if (strcmp(payloads[i].proto, proto) || strcmp(payloads[i].field, field))
				continue;
			lhs_field(l, payloads[i].mmb);
			l->kind = payloads[i].kind;
			l->names = payloads[i].names;
			return 0;
		}
		return refuse(im, expr, "%s %s has no mmb field", proto, field);
	}
	if (!json_unpack((json_t *)left, "{s:{s:s}}", "meta", "key", &key)) {
		if (!strcmp(key, "l4proto")) {
			l->l4proto = true;
			return 0;
		}
		if (!strcmp(key, "nfproto")) {
			if (!strcmp(im->base->family, "netdev"))
				return refuse(im, expr, "meta nfproto in a netdev chain is netdev's, "
					      "never ipv4 or ipv6 (nft refuses it there): say "
					      "meta protocol ip or ip6");
			l->nfproto = true;
			l->names = nfprotos;
			return 0;
		}
		if (!strcmp(key, "protocol")) {
			l->nfproto = true;
			l->ethertype = true;
			l->names = ethertypes;
			return 0;
		}
		if (!strcmp(key, "iifname") || !strcmp(key, "iif")) {
			l->field = "in";
			l->kind = K_IFACE;
			return 0;
		}
		if (!strcmp(key, "mark")) {
			if (im->marked)
				return refuse(im, expr, "meta mark after a meta mark set in the "
					      "same chain: mmb's rules see the mark a packet came "
					      "with, not one another rule sets");
			lhs_field(l, "meta-mark");
			l->kind = K_NUM;
			l->mark = true;
			return 0;
		}
		return refuse(im, expr, "meta %s has no mmb field", key);
	}
	if (json_is_object(left) && json_object_get(left, "payload") &&
	    json_object_get(json_object_get(left, "payload"), "base"))
		return refuse(im, expr, "raw payload expressions have no mmb field");
	return refuse(im, expr, "this expression has no mmb meaning");
}

/*
 * getprotobyname() (@port: getservbyname()) of @s, remembered: glibc reads
 * the file anew each call, a handful of system calls (dear in UML: an
 * import of 10k rules spent most of its time there) for the few names a
 * ruleset repeats. -1 if there is none.
 */
static int name_number(const char *s, bool port)
{
	static struct {
		char name[24];
		bool port;
		int num;
	} memo[32];
	static unsigned int n;
	const struct servent *se;
	const struct protoent *p;
	unsigned int i;
	int num;

	for (i = 0; i < n; i++)
		if (memo[i].port == port && !strcmp(memo[i].name, s))
			return memo[i].num;
	if (port) {
		se = getservbyname(s, NULL);
		num = se ? ntohs(se->s_port) : -1;
	} else {
		p = getprotobyname(s);
		num = p ? p->p_proto : -1;
	}
	if (n < sizeof(memo) / sizeof(memo[0]) && strlen(s) < sizeof(memo[0].name)) {
		strcpy(memo[n].name, s);
		memo[n].port = port;
		memo[n++].num = num;
	}
	return num;
}

/* A number, or a name of @l's values; -1 if neither. */
static int value_num(const struct lhs *l, const json_t *v, unsigned long long *out)
{
	const char *s;
	char *end;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -1;
		*out = json_integer_value(v);
	} else if (json_is_string(v)) {
		s = json_string_value(v);
		if (l->names && !lookup_name(l->names, s, out))
			return 0;
		if (l->l4proto || l->protonames) {
			int p = name_number(s, false);

			if (!strcmp(s, "icmpv6") || !strcmp(s, "ipv6-icmp"))
				*out = 58;
			else if (p >= 0)
				*out = p;
			else
				return -1;
			return 0;
		}
		if (l->bits == 16 && l->field && strstr(l->field, "port")) {
			int port = name_number(s, true);

			if (port >= 0) {
				*out = port;
				return 0;
			}
		}
		errno = 0;
		*out = strtoull(s, &end, 0);
		if (errno || end == s || *end)
			return -1;
	} else if (json_is_array(v) && l->flags) {
		/* flags: a list of names ORed */
		size_t i;
		json_t *e;
		unsigned long long b;

		*out = 0;
		json_array_foreach(v, i, e) {
			if (value_num(l, e, &b))
				return -1;
			*out |= b;
		}
	} else {
		return -1;
	}
	if (l->bits && l->bits < 64 && *out >> l->bits)
		return -1;
	return 0;
}

/* The mmb word of an L4 protocol. */
static void proto_word(unsigned long long p, char *buf, size_t len)
{
	const char *n = p == 6 ? "tcp" : p == 17 ? "udp" : p == 1 ? "icmp" : p == 58 ? "icmp6" :
			NULL;

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "%llu", p);
}

/* An address with an optional prefix: "10.0.0.0/8"; 0, or -1. */
static int addr_text(int fam, const json_t *v, char *buf, size_t len, uint8_t *bytes, int *plen)
{
	const char *a;
	int l = fam == 4 ? 32 : 128;
	json_int_t pl;

	if (json_is_string(v)) {
		a = json_string_value(v);
	} else if (!json_unpack((json_t *)v, "{s:{s:s, s:I}}", "prefix", "addr", &a, "len", &pl)) {
		if (pl < 0 || pl > l)
			return -1;
		l = pl;
	} else {
		return -1;
	}
	if (inet_pton(fam == 4 ? AF_INET : AF_INET6, a, bytes) != 1)
		return -1;
	*plen = l;
	if (l == (fam == 4 ? 32 : 128))
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s/%d", a, l);
	return 0;
}

typedef unsigned __int128 u128;

static u128 addr_u128(const uint8_t *b, int bytes)
{
	u128 v = 0;
	int i;

	for (i = 0; i < bytes; i++)
		v = v << 8 | b[i];
	return v;
}

/* The prefixes that cover [lo, hi] exactly, each an alternative. */
static int range_prefixes(struct imp *im, const json_t *expr, const struct lhs *l,
			  u128 lo, u128 hi, struct alts *as)
{
	int bits = l->kind == K_ADDR4 ? 32 : 128, n, i;
	char a[INET6_ADDRSTRLEN];
	uint8_t b[16];
	u128 last;

	for (;;) {
		struct alt *al;

		/* The largest block that starts at lo and ends by hi. */
		for (n = 0; n < bits; n++) {
			u128 size;

			if (n + 1 == 128) {
				if (!lo && !~hi)
					n = 128;
				break;
			}
			size = (u128)1 << (n + 1);
			if ((lo & (size - 1)) || lo + (size - 1) > hi)
				break;
		}
		for (i = 0; i < bits / 8; i++)
			b[bits / 8 - 1 - i] = (uint8_t)(lo >> (8 * i));
		inet_ntop(bits == 32 ? AF_INET : AF_INET6, b, a, sizeof(a));
		al = alts_new(as);
		if (!al)
			return alts_fail(im, expr, as);
		if (n == bits)
			alt_term(al, "%s %s/0", l->field, a);
		else if (n)
			alt_term(al, "%s %s/%d", l->field, a, bits - n);
		else
			alt_term(al, "%s %s", l->field, a);
		if (n == bits)
			return 0;
		last = lo + (((u128)1 << n) - 1);
		if (last >= hi)
			return 0;
		lo = last + 1;
	}
}

/*
 * The family of a value of meta nfproto (NFPROTO_IPV4 2, NFPROTO_IPV6 10)
 * or meta protocol (the ethertype: 0x0800, 0x86dd): 4, 6; 0 another
 * ethertype (a frame that is not IP); -1 none of those.
 */
static int nf_family(const struct lhs *l, const json_t *v)
{
	unsigned long long n;

	if (value_num(l, v, &n))
		return -1;
	if (l->ethertype)
		return n == 0x0800 ? 4 : n == 0x86dd ? 6 : n <= 0xffff ? 0 : -1;
	return n == 2 ? 4 : n == 10 ? 6 : -1;
}

/*
 * The alternatives of "LHS == V" for one value V of a set or the right
 * side: a value, a prefix, a range. @neg: LHS != V (a conjunction of
 * one term each, which the caller ANDs).
 */
static int value_alts(struct imp *im, const json_t *expr, const struct lhs *l,
		      const json_t *v, bool neg, struct alts *as)
{
	const char *op = neg ? "!=" : "";
	unsigned long long n, lo, hi;
	json_t *elem, *r0, *r1;
	char t[96], pw[16];
	struct alt *a;

	elem = json_is_object(v) ? json_object_get(v, "elem") : NULL;
	if (elem)
		v = json_object_get(elem, "val");
	if (!v)
		return refuse(im, expr, "a set element without a value");
	if (l->kind == K_ADDR4 || l->kind == K_ADDR6) {
		uint8_t b0[16], b1[16];
		int plen, fam = l->kind == K_ADDR4 ? 4 : 6;

		if (!json_unpack((json_t *)v, "{s:[oo]}", "range", &r0, &r1)) {

			int full = fam == 4 ? 32 : 128, p1;

			if (addr_text(fam, r0, t, sizeof(t), b0, &plen) ||
			    addr_text(fam, r1, t, sizeof(t), b1, &p1) || plen != full ||
			    p1 != full || addr_u128(b0, full / 8) > addr_u128(b1, full / 8))
				return refuse(im, expr,
					      "an address range of two addresses expected");
			if (neg)
				return refuse(im, expr, "!= of an address range has no mmb match");
			return range_prefixes(im, expr, l, addr_u128(b0, full / 8),
					      addr_u128(b1, full / 8), as);
		}
		if (addr_text(fam, v, t, sizeof(t), b0, &plen))
			return refuse(im, expr, "not an IPv%d address or prefix", fam);
		a = alts_new(as);
		if (!a)
			return alts_fail(im, expr, as);
		alt_term(a, "%s%s%s %s", l->field, neg ? " " : "", op, t);
		return 0;
	}
	if (l->kind == K_IFACE) {
		const char *s = json_string_value(v);

		if (!s || !*s || strlen(s) >= 16 || strpbrk(s, "*?[\\ \t\"'#/"))
			return refuse(im, expr, "an interface name without wildcards expected");
		a = alts_new(as);
		if (!a)
			return alts_fail(im, expr, as);
		alt_term(a, "in%s%s %s", neg ? " " : "", op, s);
		a->nonip = true;
		return 0;
	}
	if (!json_unpack((json_t *)v, "{s:[oo]}", "range", &r0, &r1)) {
		if (value_num(l, r0, &lo) || value_num(l, r1, &hi) || lo > hi)
			return refuse(im, expr, "not a range of values of this field");
		if (l->l4proto || l->nfproto || l->flags)
			return refuse(im, expr, "a range of this field has no mmb match");
		if (neg) {
			/* not in [lo, hi]: below or above it */
			if (lo > 0) {
				a = alts_new(as);
				if (!a)
					return alts_fail(im, expr, as);
				alt_term(a, "%s < %llu", l->field ?: "?", lo);
				a->nonip = l->mark;
			}
			if (l->bits >= 64 || hi < (1ull << l->bits) - 1) {
				a = alts_new(as);
				if (!a)
					return alts_fail(im, expr, as);
				alt_term(a, "%s > %llu", l->field ?: "?", hi);
				a->nonip = l->mark;
			}
			return 0;
		}
		a = alts_new(as);
		if (!a)
			return alts_fail(im, expr, as);
		if (lo == hi) {
			alt_term(a, "%s %llu", l->field, lo);
		} else {
			alt_term(a, "%s >= %llu", l->field, lo);
			alt_term(a, "%s <= %llu", l->field, hi);
		}
		a->nonip = l->mark;
		return 0;
	}
	if (json_is_object(v) && json_object_get(v, "prefix"))
		return refuse(im, expr, "a prefix of a field that is no address");
	if (l->nfproto) {
		int fam = nf_family(l, v);

		if (fam < 0)
			return refuse(im, expr, l->ethertype ?
				      "not an ethertype (ip, ip6, arp, vlan ... or a 16-bit "
				      "number)" :
				      "meta nfproto of another family than ipv4 (2) and ipv6 (10)");
		a = alts_new(as);
		if (!a)
			return alts_fail(im, expr, as);
		/* != and another ethertype's ==: also frames that are not IP */
		a->nonip = neg || !fam;
		if (!fam)
			a->noip = !neg;	/* ==: no IP packet; !=: every one */
		else
			a->fam = neg ? (fam == 4 ? 6 : 4) : fam;
		return 0;
	}
	if (value_num(l, v, &n))
		return refuse(im, expr, "not a value of this field");
	if (l->l4proto) {
		proto_word(n, pw, sizeof(pw));
		if (neg) {
			/* ip protocol: ip-proto (IPv4 only); meta l4proto: l4-proto */
			a = alts_new(as);
			if (!a)
				return alts_fail(im, expr, as);
			alt_term(a, "%s != %s", l->fam == 4 ? "ip-proto" : "l4-proto", pw);
			a->fam = l->fam;
			return 0;
		}
		a = alts_new(as);
		if (!a)
			return alts_fail(im, expr, as);
		a->l4 = n;
		a->fam = l->fam;
		if (!n)
			return refuse(im, expr, "L4 protocol 0 has no mmb match");
		return 0;
	}
	a = alts_new(as);
	if (!a)
		return alts_fail(im, expr, as);
	if (l->protonames) {
		proto_word(n, pw, sizeof(pw));
		alt_term(a, "%s%s%s %s", l->field, neg ? " " : "", op, pw);
	} else {
		alt_term(a, "%s%s%s %llu", l->field, neg ? " " : "", op, n);
	}
	a->nonip = l->mark;
	return 0;
}

/*
 * For "!= @set" of an empty set: what holds of every packet that has the
 * field, so that the rule keeps its family and protocol (ip saddr != @none
 * holds of IPv4 only, tcp dport != @none of TCP only). One alternative.
 */
static int field_any(const struct lhs *l, struct alts *as)
{
	struct alt *a = alts_new(as);

	if (!a)
		return nomem();
	if (l->kind == K_ADDR4) {
		alt_term(a, "%s 0.0.0.0/0", l->field);
	} else if (l->kind == K_ADDR6) {
		alt_term(a, "%s ::/0", l->field);
	} else if (l->kind == K_IFACE || l->mark || l->nfproto) {
		a->nonip = true;	/* every frame has them */
	} else if (l->l4proto) {
		alt_term(a, "%s >= 0", l->fam == 4 ? "ip-proto" : "l4-proto");
		a->fam = l->fam;
	} else {
		alt_term(a, "%s >= 0", l->field);
	}
	return 0;
}

/* A named set of the rule's table: its elements, or NULL (refused). */
static const json_t *set_elems(struct imp *im, const json_t *expr, const char *name)
{
	int i;

	for (i = 0; i < im->nsets; i++) {
		struct nset *s = &im->sets[i];

		if (strcmp(s->name, name) || strcmp(s->table, im->at_chain->table) ||
		    strcmp(s->family, im->at_chain->family))
			continue;
		if (s->is_map) {
			refuse(im, expr, "@%s is a map: maps have no mmb meaning", name);
			return NULL;
		}
		return s->elem ?: json_array();
	}
	refuse(im, expr, "no set @%s in table %s %s", name, im->at_chain->family,
	       im->at_chain->table);
	return NULL;
}

/* The right side as a list of elements: a set, a named set or one value. */
static int right_elems(struct imp *im, const json_t *expr, const json_t *right,
		       const json_t **elems, bool *single)
{
	const json_t *s;

	*single = false;
	if (json_is_string(right) && json_string_value(right)[0] == '@') {
		*elems = set_elems(im, expr, json_string_value(right) + 1);
		return *elems ? 0 : EXIT_USAGE;
	}
	s = json_is_object(right) ? json_object_get(right, "set") : NULL;
	if (s) {
		if (json_is_array(s)) {
			*elems = s;
		} else {
			/* a one-element set may be printed bare */
			*elems = right;
			*single = true;
		}
		return 0;
	}
	*elems = right;
	*single = true;
	return 0;
}

/* The alternatives of a concatenation's one element: ANDed parts. */
static int concat_alts(struct imp *im, const json_t *expr, const struct lhs *ls, int n,
		       const json_t *v, struct alts *as)
{
	const json_t *parts = json_is_object(v) ? json_object_get(v, "concat") : NULL;
	struct alts part = { 0 }, acc = { 0 }, next = { 0 };
	struct alt *a;
	int i, j, k, ret = 0;

	if (json_is_object(v) && json_object_get(v, "elem"))
		parts = json_object_get(json_object_get(json_object_get(v, "elem"), "val"),
					"concat");
	if (!json_is_array(parts) || (int)json_array_size(parts) != n)
		return refuse(im, expr, "a concatenation's element of %d parts expected", n);
	a = alts_new(&acc);
	if (!a)
		return nomem();
	a->nonip = true;	/* no part yet: holds of every frame */
	for (i = 0; i < n && !ret; i++) {
		part.n = 0;
		ret = value_alts(im, expr, &ls[i], json_array_get(parts, i), false, &part);
		if (ret)
			break;
		next.n = 0;
		for (j = 0; j < acc.n && !ret; j++) {
			for (k = 0; k < part.n; k++) {
				struct alt *x = &acc.a[j], *y = &part.a[k], *z;
				int t;

				if ((x->fam && y->fam && x->fam != y->fam) ||
				    (x->l4 && y->l4 && x->l4 != y->l4))
					continue;
				if (x->nterms + y->nterms > 8) {
					ret = refuse(im, expr, "a concatenation too long for mmb");
					break;
				}
				z = alts_new(&next);
				if (!z) {
					ret = alts_fail(im, expr, &next);
					break;
				}
				*z = *x;
				for (t = 0; t < y->nterms; t++)
					strcpy(z->terms[z->nterms++], y->terms[t]);
				z->fam = x->fam ?: y->fam;
				z->l4 = x->l4 ?: y->l4;
				/* the parts hold together (conj_and()) */
				z->nonip = x->nonip && y->nonip;
				z->noip = x->noip || y->noip;
			}
		}
		{
			struct alts tmp = acc;

			acc = next;
			next = tmp;
		}
	}
	for (j = 0; j < acc.n && !ret; j++) {
		a = alts_new(as);
		if (!a) {
			ret = alts_fail(im, expr, as);
			break;
		}
		*a = acc.a[j];
	}
	free(part.a);
	free(acc.a);
	free(next.a);
	return ret;
}

/* tcp flags: op "in" (any of), == or != a value, or the & of a mask. */
static int flags_alts(struct imp *im, const json_t *expr, const struct lhs *l, const char *op,
		      const json_t *mask, const json_t *right, struct alts *as)
{
	unsigned long long m = 0xff, v;
	struct alt *a;
	int b;

	if (mask && value_num(l, mask, &m))
		return refuse(im, expr, "not a mask of TCP flags");
	if (value_num(l, right, &v))
		return refuse(im, expr, "not a value of TCP flags");
	if (!strcmp(op, "in")) {
		/* any of the flags set (within the mask) */
		v &= m;
		for (b = 0; b < 8; b++) {
			if (!(v >> b & 1))
				continue;
			a = alts_new(as);
			if (!a)
				return nomem();
			alt_term(a, "%s", tcp_flag_field[b]);
		}
		if (!as->n)
			return refuse(im, expr, "no flag to test");
		return 0;
	}
	if (v & ~m)
		return refuse(im, expr, "a value with flags outside its mask never matches");
	if (!mask) {
		a = alts_new(as);
		if (!a)
			return nomem();
		if (!strcmp(op, "=="))
			alt_term(a, "tcp-flags %llu", v);
		else if (!strcmp(op, "!="))
			alt_term(a, "tcp-flags != %llu", v);
		else
			return refuse(im, expr, "TCP flags compare with ==, != or in");
		return 0;
	}
	if (!strcmp(op, "==")) {
		/* each flag of the mask as the value says: one rule */
		a = alts_new(as);
		if (!a)
			return nomem();
		if (m == 0xff) {
			alt_term(a, "tcp-flags %llu", v);
			return 0;
		}
		for (b = 0; b < 8; b++)
			if (m >> b & 1)
				alt_term(a, "%s %llu", tcp_flag_field[b], v >> b & 1);
		return 0;
	}
	if (!strcmp(op, "!=")) {
		/* some flag of the mask differs */
		for (b = 0; b < 8; b++) {
			if (!(m >> b & 1))
				continue;
			a = alts_new(as);
			if (!a)
				return nomem();
			alt_term(a, "%s %d", tcp_flag_field[b], !(v >> b & 1));
		}
		return 0;
	}
	return refuse(im, expr, "TCP flags compare with ==, != or in");
}

/* ct state: what a rule asks of the connection. */
enum ct_want { CT_NONE, CT_NEW, CT_EST };

static int ct_state(struct imp *im, const json_t *expr, const char *op, const json_t *right,
		    enum ct_want *want)
{
	bool est = false, rel = false, new = false, other = false;
	const json_t *e;
	size_t i;

	if (strcmp(op, "in") && strcmp(op, "=="))
		return refuse(im, expr, "ct state only as a set of states to be in");
	if (json_is_string(right)) {
		e = right;
		goto one;
	}
	if (json_is_object(right) && json_object_get(right, "set"))
		right = json_object_get(right, "set");
	if (!json_is_array(right))
		return refuse(im, expr, "ct state of unknown states");
	json_array_foreach(right, i, e) {
one:
		if (!json_is_string(e))
			other = true;
		else if (!strcmp(json_string_value(e), "established"))
			est = true;
		else if (!strcmp(json_string_value(e), "related"))
			rel = true;
		else if (!strcmp(json_string_value(e), "new"))
			new = true;
		else
			other = true;
		if (json_is_string(right))
			break;
	}
	if (!other && est && rel && !new) {
		*want = CT_EST;
		return 0;
	}
	if (!other && new && !est && !rel) {
		*want = CT_NEW;
		return 0;
	}
	return refuse(im, expr, "mmb's connections say established,related (a connection's "
		      "packets) or new (the first): no other set of states");
}

/* One match statement ANDed into @d. */
/* Is @v a JSON integer of 0 to 2^32 - 1? Then *@out is it. */
static bool json_u32(const json_t *v, unsigned long long *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 0xffffffffLL)
		return false;
	*out = json_integer_value(v);
	return true;
}

/* Is @v nft's "meta mark" expression? */
static bool is_meta_mark(const json_t *v)
{
	const char *key;

	return !json_unpack((json_t *)v, "{s:{s:s}}", "meta", "key", &key) && !strcmp(key, "mark");
}

/* meta mark & MASK == VALUE (or !=): meta-mark VALUE/MASK. */
static int mark_masked(struct imp *im, const json_t *expr, const char *op, const json_t *mask,
		       const json_t *right, struct dnf *d)
{
	unsigned long long m, v;
	struct alts as = { 0 };
	struct alt *a;
	int ret;

	if (strcmp(op, "==") && strcmp(op, "!="))
		return refuse(im, expr, "meta mark & MASK compares with == or != only");
	if (!json_is_integer(mask) || !json_is_integer(right))
		return refuse(im, expr, "meta mark & MASK compares numbers only");
	if (!json_u32(mask, &m) || !m || !json_u32(right, &v))
		return refuse(im, expr, "a mark and its mask are 32-bit numbers, the mask not 0");
	if (v & ~m)
		return refuse(im, expr, "a value with bits outside its mask never matches");
	a = alts_new(&as);
	if (!a)
		return nomem();
	alt_term(a, "meta-mark%s 0x%llx/0x%llx", strcmp(op, "!=") ? "" : " !=", v, m);
	a->nonip = true;
	ret = dnf_and(im, expr, d, &as);
	free(as.a);
	return ret;
}

/*
 * @d AND (any of @as), where @as's words are of th-sport or th-dport: per
 * conjunction, the port field of its L4 protocol (TCP or UDP).
 */
static int th_and(struct imp *im, const json_t *expr, struct dnf *d, const struct alts *as)
{
	struct dnf out = { 0 };
	struct alts th = { 0 };
	int i, ret = 0;

	th.a = malloc(as->n * sizeof(*th.a));
	th.n = th.cap = as->n;
	if (!th.a && as->n)
		ret = nomem();
	for (i = 0; i < d->n && !ret; i++) {
		struct dnf one = { 0 };
		const char *pf = d->c[i].l4 == 6 ? "tcp" : "udp";
		int j, t;

		for (j = 0; j < as->n; j++) {
			th.a[j] = as->a[j];
			for (t = 0; t < as->a[j].nterms; t++)
				snprintf(th.a[j].terms[t], sizeof(th.a[j].terms[t]), "%s%s", pf,
					 as->a[j].terms[t] + 2);
		}
		if (dnf_push(&one, &d->c[i])) {
			ret = nomem();
			break;
		}
		d->c[i].text = NULL;
		ret = dnf_and(im, expr, &one, &th);
		for (j = 0; j < one.n && !ret; j++) {
			if (out.n == IMPORT_MAX_ALTS) {
				ret = refuse(im, expr, "more than %d mmb rules from one rule",
					     IMPORT_MAX_ALTS);
				break;
			}
			if (dnf_push(&out, &one.c[j])) {
				ret = nomem();
				break;
			}
			one.c[j].text = NULL;
		}
		dnf_free(&one);
	}
	free(th.a);
	dnf_free(d);
	*d = out;
	return ret;
}

static int match_and(struct imp *im, const json_t *expr, struct dnf *d, enum ct_want *ct)
{
	const json_t *left, *right, *elems, *mask = NULL, *e;
	struct lhs ls[8];
	struct alts as = { 0 };
	const char *op, *key;
	int ret = 0, n = 1, i;
	bool single, neg;
	size_t k;

	if (json_unpack((json_t *)json_object_get(expr, "match"), "{s:s, s:o, s:o}", "op", &op,
			"left", &left, "right", &right))
		return refuse(im, expr, "a match of op, left and right expected");
	if (!json_unpack((json_t *)left, "{s:{s:s}}", "ct", "key", &key)) {
		if (strcmp(key, "state"))
			return refuse(im, expr, "ct %s has no mmb meaning", key);
		if (strcmp(im->base->family, "netdev") == 0)
			return refuse(im, expr, "ct state at netdev ingress: nf_conntrack has seen "
				      "no packet there yet");
		if (json_integer_value(json_object_get(im->base->obj, "prio")) < -200)
			return refuse(im, expr, "ct state in a chain of priority below -200: "
				      "nf_conntrack has seen no packet there yet");
		return ct_state(im, expr, op, right, ct);
	}
	if (json_is_object(left) && json_object_get(left, "&")) {
		const json_t *and = json_object_get(left, "&");

		if (!json_is_array(and) || json_array_size(and) != 2)
			return refuse(im, expr, "a bitwise and of two operands expected");
		ret = lhs_parse(im, expr, json_array_get(and, 0), &ls[0]);
		if (ret)
			return ret;
		if (!ls[0].flags && !ls[0].mark)
			return refuse(im, expr, "a bitwise and has an mmb match on TCP flags and "
				      "meta mark only");
		mask = json_array_get(and, 1);
		if (ls[0].mark)
			return mark_masked(im, expr, op, mask, right, d);
	} else if (json_is_object(left) && json_object_get(left, "concat")) {
		const json_t *parts = json_object_get(left, "concat");

		n = json_array_size(parts);
		if (!json_is_array(parts) || n < 1 || n > 8)
			return refuse(im, expr, "a concatenation of 1 to 8 fields expected");
		for (i = 0; i < n; i++) {
			ret = lhs_parse(im, expr, json_array_get(parts, i), &ls[i]);
			if (ret)
				return ret;
			if (ls[i].flags || ls[i].th || ls[i].nfproto)
				return refuse(im, expr, "this field in a concatenation has no mmb "
					      "match");
		}
		if (strcmp(op, "==") && strcmp(op, "in"))
			return refuse(im, expr, "a concatenation compares with == only");
	} else {
		ret = lhs_parse(im, expr, left, &ls[0]);
		if (ret)
			return ret;
	}
	if (ls[0].th) {
		/* th sport/dport: the port of the L4 protocol every alternative has */
		for (i = 0; i < d->n; i++)
			if (d->c[i].l4 != 6 && d->c[i].l4 != 17)
				return refuse(im, expr,
					      "th %s needs meta l4proto tcp or udp first (mmb has ports of TCP and UDP only)",
					      ls[0].th_field);
	}
	if (ls[0].flags) {
		if (json_is_object(right) && json_object_get(right, "set"))
			return refuse(im, expr, "a set of TCP flag values has no mmb match: "
				      "write a rule for each value");
		if (json_is_string(right) && json_string_value(right)[0] == '@')
			return refuse(im, expr, "a named set of TCP flag values has no mmb match: "
				      "write a rule for each value");
		ret = flags_alts(im, expr, &ls[0], op, mask, right, &as);
		goto and;
	}
	ret = right_elems(im, expr, right, &elems, &single);
	if (ret)
		return ret;
	neg = !strcmp(op, "!=");
	if (n > 1) {
		if (single) {
			ret = concat_alts(im, expr, ls, n, elems, &as);
		} else {
			json_array_foreach(elems, k, e) {
				ret = concat_alts(im, expr, ls, n, e, &as);
				if (ret)
					break;
			}
		}
		goto and;
	}
	if (!strcmp(op, "<") || !strcmp(op, ">") || !strcmp(op, "<=") || !strcmp(op, ">=")) {
		unsigned long long v;
		struct alt *a;

		if (!single || ls[0].kind != K_NUM || ls[0].l4proto || ls[0].nfproto || ls[0].th)
			return refuse(im, expr, "%s compares a number field with a number", op);
		if (value_num(&ls[0], elems, &v))
			return refuse(im, expr, "not a value of this field");
		a = alts_new(&as);
		if (!a)
			return nomem();
		alt_term(a, "%s %s %llu", ls[0].field, op, v);
		a->nonip = ls[0].mark;
		goto and;
	}
	if (strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "in"))
		return refuse(im, expr, "operator %s has no mmb meaning", op);
	if (single) {
		ret = value_alts(im, expr, &ls[0], elems, neg, &as);
		goto and;
	}
	if (neg && !json_array_size(elems)) {
		/* not in an empty set: every packet that has the field */
		ret = field_any(&ls[0], &as);
		goto and;
	}
	json_array_foreach(elems, k, e) {
		if (neg) {
			/* not in the set: every element's != (a conjunction) */
			struct alts one = { 0 };

			ret = value_alts(im, expr, &ls[0], e, true, &one);
			if (!ret && one.n != 1)
				ret = refuse(im, expr, "!= of a set of ranges has no mmb match");
			if (!ret && one.a[0].nterms > 1)
				ret = refuse(im, expr, "this != has no mmb match");
			if (!ret)
				ret = ls[0].th ? th_and(im, expr, d, &one) : dnf_and(im, expr, d, &one);
			free(one.a);
			if (ret)
				break;
			continue;
		}
		ret = value_alts(im, expr, &ls[0], e, false, &as);
		if (ret)
			break;
	}
	if (neg && !ret) {
		free(as.a);
		return 0;
	}
and:
	if (!ret)
		ret = ls[0].th ? th_and(im, expr, d, &as) : dnf_and(im, expr, d, &as);
	free(as.a);
	return ret;
}

/* --- statements -------------------------------------------------------- */

/*
 * meta mark set VALUE as mmb's mod meta-mark VALUE[/MASK], which is
 * iptables' --set-xmark: mark = (mark & ~MASK) ^ VALUE. nft writes a
 * masked set as (mark & A) | B or (mark & A) ^ B, or mark | B, mark & A.
 */
static int mark_set(struct imp *im, const json_t *e, char *buf, size_t len)
{
	const json_t *m = json_object_get(e, "mangle"), *v, *op, *and = NULL;
	unsigned long long keep = 0xffffffffULL, val = 0, mask;
	const char *name = NULL;
	bool is_or = false;

	if (json_unpack((json_t *)m, "{s:o, s:o}", "key", &op, "value", &v) || !is_meta_mark(op))
		return refuse(im, e, "a mangle of anything but meta mark has no mmb meaning");
	if (json_is_integer(v)) {
		if (!json_u32(v, &val))
			return refuse(im, e, "a mark is a 32-bit number");
		snprintf(buf, len, "mod meta-mark 0x%llx", val);
		im->marked = true;
		return 0;
	}
	/* (mark & A) OP B, mark OP B, mark & A */
	if (json_is_object(v) && json_object_size(v) == 1) {
		name = json_object_iter_key(json_object_iter((json_t *)v));
		op = json_object_get(v, name);
	} else {
		op = NULL;
	}
	if (!name || !json_is_array(op) || json_array_size(op) != 2)
		return refuse(im, e, "this meta mark set has no mmb form");
	if (!strcmp(name, "&")) {
		and = op;
	} else if (!strcmp(name, "|") || !strcmp(name, "^")) {
		const json_t *l = json_array_get(op, 0), *r = json_array_get(op, 1);

		is_or = !strcmp(name, "|");
		if (!json_u32(r, &val))
			return refuse(im, e, "this meta mark set has no mmb form");
		if (json_is_object(l) && json_object_get(l, "&"))
			and = json_object_get(l, "&");
		else if (!is_meta_mark(l))
			return refuse(im, e, "this meta mark set has no mmb form");
	} else {
		return refuse(im, e, "this meta mark set has no mmb form");
	}
	if (and) {
		const json_t *l = json_array_get(and, 0), *r = json_array_get(and, 1);

		if (!json_is_array(and) || json_array_size(and) != 2 || !is_meta_mark(l) ||
		    !json_u32(r, &keep))
			return refuse(im, e, "this meta mark set has no mmb form");
	}
	/* (mark & keep) | val == (mark & ~(~keep | val)) ^ val */
	mask = ~keep & 0xffffffffULL;
	if (is_or)
		mask |= val;
	if (!mask)
		return refuse(im, e, "meta mark set meta mark ^ VALUE (no bit cleared) has no "
			      "mmb form: mod meta-mark clears the bits of a mask first");
	snprintf(buf, len, "mod meta-mark 0x%llx/0x%llx", val, mask);
	im->marked = true;
	return 0;
}

/* reject [with ...] as mmb's words; 0, or refused. */
static int reject_words(struct imp *im, const json_t *e, char *buf, size_t len)
{
	static const struct {
		const char *type, *code, *mmb;
	} codes[] = {
		{ "icmpx", "port-unreachable", "port-unreachable" },
		{ "icmpx", "admin-prohibited", "admin-prohibited" },
		{ "icmpx", "host-unreachable", "host-unreachable" },
		{ "icmpx", "no-route", "net-unreachable" },
		{ "icmp", "port-unreachable", "port-unreachable" },
		{ "icmp", "admin-prohibited", "admin-prohibited" },
		{ "icmp", "host-unreachable", "host-unreachable" },
		{ "icmp", "net-unreachable", "net-unreachable" },
		{ "icmpv6", "port-unreachable", "port-unreachable" },
		{ "icmpv6", "admin-prohibited", "admin-prohibited" },
		{ "icmpv6", "addr-unreachable", "host-unreachable" },
		{ "icmpv6", "no-route", "net-unreachable" },
	};
	const json_t *r = json_object_get(e, "reject");
	const char *type = NULL, *code = NULL;
	unsigned int i;

	if (json_is_null(r) || (json_is_object(r) && !json_object_size(r))) {
		/* nft's default: ICMP port unreachable, for TCP too */
		snprintf(buf, len, "reject with port-unreachable");
		return 0;
	}
	if (json_unpack((json_t *)r, "{s:s, s?s}", "type", &type, "expr", &code))
		return refuse(im, e, "a reject of type and code expected");
	if (!strcmp(type, "tcp reset")) {
		snprintf(buf, len, "reject with tcp-reset");
		return 0;
	}
	if (!code)
		code = "port-unreachable";
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (strcmp(codes[i].type, type) || strcmp(codes[i].code, code))
			continue;
		snprintf(buf, len, "reject with %s", codes[i].mmb);
		return 0;
	}
	return refuse(im, e, "reject with %s %s has no mmb answer (mmb answers tcp-reset, "
		      "port-unreachable, host-unreachable, net-unreachable, admin-prohibited)",
		      type, code);
}

/* A reject of ICMP (IPv4) or ICMPv6 answers one family: every rule must be of it. */
static int reject_family(struct imp *im, const json_t *e, const struct dnf *d)
{
	const char *type = NULL;
	int fam, i;

	if (json_unpack((json_t *)json_object_get(e, "reject"), "{s:s}", "type", &type))
		return 0;
	fam = !strcmp(type, "icmp") ? 4 : !strcmp(type, "icmpv6") ? 6 : 0;
	for (i = 0; fam && i < d->n; i++)
		if (d->c[i].fam != fam)
			return refuse(im, e, "reject with %s on a rule that does not match IPv%d "
				      "only: say the family (e.g. meta nfproto ipv%d)", type, fam, fam);
	return 0;
}

/* The rule's comment as " comment \"TEXT\"" (quoted for -f), or "". */
static int comment_words(struct imp *im, const json_t *rule, char *buf, size_t len)
{
	const json_t *c = json_object_get(rule, "comment");
	const unsigned char *p;
	size_t off;

	buf[0] = '\0';
	if (!c)
		return 0;
	if (!json_is_string(c) || !json_string_length(c) ||
	    json_string_length(c) > MMB_COMMENT_MAX)
		return refuse(im, rule, "a comment of 1 to %d bytes expected", MMB_COMMENT_MAX);
	off = snprintf(buf, len, " comment \"");
	for (p = (const unsigned char *)json_string_value(c); *p; p++) {
		/* C0, DEL and C1 (U+0080 to U+009F), as the kernel refuses them */
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return refuse(im, rule, "a comment with a control character (mmb keeps "
				      "printable text only)");
		if (off + 4 >= len)
			break;
		if (strchr("\"\\$`", *p))
			buf[off++] = '\\';
		buf[off++] = *p;
	}
	buf[off++] = '"';
	buf[off] = '\0';
	return 0;
}

/* --- flattening -------------------------------------------------------- */

static struct chain *chain_find(struct imp *im, const char *family, const char *table,
				const char *name)
{
	int i;

	for (i = 0; i < im->nchains; i++) {
		struct chain *c = &im->chains[i];

		if (!strcmp(c->name, name) && !strcmp(c->table, table) &&
		    !strcmp(c->family, family))
			return c;
	}
	return NULL;
}

/*
 * A netdev chain's @verdict on what may be a frame that is not IP (ARP,
 * VLAN, LLDP): nft drops it (rejects it, marks it), mmb passes it as it
 * is. An accept or a count of such frames changes nothing (mmb counts
 * only what it judges); anything else is refused.
 */
static int nonip_check(struct imp *im, const json_t *expr, const struct conj *c,
		       const char *verdict)
{
	if (!c->nonip || !strncmp(verdict, "accept", 6) || !strncmp(verdict, "count", 5))
		return 0;
	if (im->at_policy)
		return refuse(im, expr, "policy drop of a netdev chain drops frames that are "
			      "not IP too (ARP, VLAN, LLDP ...); mmb judges IPv4 and IPv6 "
			      "only and passes other frames untouched: say policy accept and "
			      "end the chain with meta protocol { ip, ip6 } drop");
	return refuse(im, expr, "in a netdev chain this %s frames that are not IP (ARP, "
		      "VLAN, LLDP ...); mmb judges IPv4 and IPv6 only and passes other "
		      "frames untouched: match meta protocol { ip, ip6 } in the rule",
		      !strncmp(verdict, "mod", 3) ? "marks" :
		      !strncmp(verdict, "reject", 6) ? "rejects" : "drops");
}

/*
 * Write the rules of @d with a verdict: each conjunction one mmb rule,
 * with the family and L4 protocol it asks for and no field says.
 */
static int emit(struct imp *im, const json_t *expr, const struct dnf *d, const char *verdict,
		bool stateful)
{
	int i, ret;

	if (!im->lowest)
		im->group++;	/* the policy's rules are 0, and take no place */
	for (i = 0; i < d->n; i++) {
		const struct conj *c = &d->c[i];
		struct out_rule *o;
		size_t start = im->words.len;
		char pw[16];
		int extra = 0;

		ret = nonip_check(im, expr, c, verdict);
		if (ret)
			return ret;
		if (c->noip)
			continue;	/* no IP packet: nothing mmb judges */
		if (im->nout == IMPORT_MAX_RULES)
			return refuse(im, expr, "more than %d mmb rules", IMPORT_MAX_RULES);
		if (im->nout == im->ocap) {
			size_t cap = im->ocap * 2 + 1024;

			o = realloc(im->out, cap * sizeof(*o));
			if (!o)
				return nomem();
			im->out = o;
			im->ocap = cap;
		}
		if (c->l4 && !c->l4_said) {
			/*
			 * An L4 protocol no field implies: meta l4proto's
			 * l4-proto; ip-proto where the rule is of IPv4 (it says
			 * the family too).
			 */
			proto_word(c->l4, pw, sizeof(pw));
			if (c->fam == 6 && !c->fam_said) {
				sb_printf(&im->words, "net-proto ip6 ");
				extra++;
			}
			sb_printf(&im->words, "%s %s ", c->fam == 4 ? "ip-proto" : "l4-proto", pw);
			extra++;
		} else if (c->fam && !c->fam_said) {
			sb_printf(&im->words, "net-proto ip%d ", c->fam);
			extra++;
		}
		if (c->nterms + extra > TERM_MAX) {
			im->words.len = start;
			return refuse(im, expr, "more than %d matches in one mmb rule", TERM_MAX);
		}
		if (c->text && *c->text)
			sb_printf(&im->words, "%s ", c->text);
		else if (!extra)
			sb_printf(&im->words, "all ");
		if (sb_printf(&im->words, "%s", verdict) || sb_add(&im->words, "", 0))
			return nomem();
		im->words.len++;	/* keep the NUL: rules are C strings */
		o = &im->out[im->nout++];
		o->off = start;
		o->from = origin_here(im);
		if (o->from == (size_t)-1)
			return nomem();
		o->group = im->group;
		o->stateful = stateful;
		o->lowest = im->lowest;
		o->conn_group = im->est_group;
	}
	return 0;
}

static int flatten(struct imp *im, struct chain *ch, int start, const struct dnf *prefix,
		   const struct frame *up, bool jumped, int depth, bool *ended);

/*
 * The tree of the rule @r: its own, or one parsed from its text (the
 * array's element {"rule": RULE}) into *@owned, for the caller to let go.
 */
static const json_t *rule_get(struct imp *im, const struct rule_ref *r, json_t **owned)
{
	*owned = NULL;
	if (r->tree)
		return r->tree;
	/* It parsed as it was read: this fails for want of memory only. */
	*owned = json_loadb(im->in + r->off, r->len, JSON_REJECT_DUPLICATES, NULL);
	return json_object_get(*owned, "rule");
}

/* A rule of one ct state match, counters and accept only? */
static bool uncond_ct_only(const json_t *exprs)
{
	const json_t *e;
	int matches = 0;
	size_t k;

	json_array_foreach(exprs, k, e)
		if (json_object_get(e, "match"))
			matches++;
	return matches == 1;
}

/*
 * nft's established rule accepts the replies to every connection
 * nf_conntrack tracks, the host's own (a resolver's, apt's) among them;
 * mmb knows the connections its stateful rules start. A stateful rule of
 * what leaves (every enabled device's egress) starts one for each of the
 * host's own flows, its replies ranked where the established rule is
 * (conn-priority), as the arriving rules' connections are: one rule, at
 * the established rule's place, of the chain's family (@d: its prefix).
 */
static int emit_own(struct imp *im, const json_t *rule, struct dnf *d)
{
	struct alts as = { 0 };
	struct alt *a = alts_new(&as);
	int ret;

	if (!a)
		return nomem();
	alt_term(a, "leaving");
	ret = dnf_and(im, rule, d, &as);
	free(as.a);
	return ret ?: emit(im, rule, d, "accept", true);
}

/*
 * Where packets of @prefix go when the chain of @up's callee ends: the
 * rest of the calling chains, down to the base chain's policy.
 */
static int emit_cont(struct imp *im, const json_t *expr, const struct frame *up,
		     const struct dnf *prefix)
{
	bool ended = false;
	int ret;

	if (!up) {
		if (!strcmp(im->policy, "accept") && !im->stateful)
			return emit(im, expr, prefix, "accept", false);
		im->at_policy = true;
		ret = emit(im, expr, prefix, im->policy, false);
		im->at_policy = false;
		return ret;
	}
	ret = flatten(im, up->chain, up->next, prefix, up->up, false, up->depth, &ended);
	if (ret || ended)
		return ret;
	return emit_cont(im, expr, up->up, prefix);
}

/*
 * The rules of @ch from @start, each ANDed with @prefix; @up: where a
 * return goes. @jumped: the caller's rules follow these as they are (a
 * jump), so an unconditional return needs nothing. *@ended: every packet
 * of @prefix got a verdict here.
 */
static int flatten(struct imp *im, struct chain *ch, int start, const struct dnf *prefix,
		   const struct frame *up, bool jumped, int depth, bool *ended)
{
	struct chain *saved_chain = im->at_chain;
	json_int_t saved_handle = im->at_handle;
	json_t *owned = NULL;
	int i, ret = 0;

	*ended = false;
	if (depth > IMPORT_MAX_DEPTH)
		return refuse(im, NULL, "jumps nested more than %d deep (or a loop)",
			      IMPORT_MAX_DEPTH);
	/* Each return that continues a caller nests too: bound the stack. */
	if (im->nest >= IMPORT_MAX_NEST)
		return refuse(im, NULL, "more than %d returns continue callers in one path "
			      "through the chains", IMPORT_MAX_NEST);
	if (++im->steps > IMPORT_MAX_STEPS)
		return refuse(im, NULL, "flattening the jumps visits more than %d rules "
			      "(a chain is copied at every jump that reaches it)",
			      IMPORT_MAX_STEPS);
	im->nest++;
	for (i = start; i < ch->nrules && !ret && !*ended; i++) {
		const json_t *rule, *exprs, *e, *verdict = NULL;
		char mark[64] = "", rej[64] = "", cmt[2 * MMB_COMMENT_MAX + 16], vtext[400];
		enum ct_want ct = CT_NONE;
		const char *vname = NULL;
		bool uncond = true, counted = false;
		struct dnf d;
		size_t k;

		json_decref(owned);	/* the rule before's, kept as text */
		rule = rule_get(im, &ch->rules[i], &owned);
		if (!rule) {
			ret = nomem();
			break;
		}
		im->at_chain = ch;
		im->at_handle = -1;
		json_unpack((json_t *)rule, "{s:I}", "handle", &im->at_handle);
		/* Each jump copies its chain: a tree of jumps grows as width^depth. */
		if (++im->steps > IMPORT_MAX_STEPS) {
			ret = refuse(im, NULL, "flattening the jumps visits more than %d rules "
				     "(a chain is copied at every jump that reaches it)",
				     IMPORT_MAX_STEPS);
			break;
		}
		exprs = json_object_get(rule, "expr");
		if (!json_is_array(exprs)) {
			ret = refuse(im, rule, "a rule without expressions");
			break;
		}
		if (dnf_copy(prefix, &d)) {
			ret = nomem();
			break;
		}
		json_array_foreach(exprs, k, e) {
			const char *key = json_is_object(e) && json_object_size(e) == 1 ?
					  json_object_iter_key(json_object_iter((json_t *)e)) : "";

			if (verdict) {
				ret = refuse(im, e, "a statement after the verdict");
			} else if (!strcmp(key, "match")) {
				ret = match_and(im, e, &d, &ct);
				uncond = false;
			} else if (!strcmp(key, "counter")) {
				if (!json_is_object(json_object_get(e, "counter")) &&
				    !json_is_null(json_object_get(e, "counter")))
					ret = refuse(im, e, "a named counter has no mmb meaning "
						     "(each mmb rule counts its own packets)");
				counted = true;
			} else if (!strcmp(key, "mangle")) {
				if (mark[0])
					ret = refuse(im, e, "a second meta mark set in one rule");
				else
					ret = mark_set(im, e, mark, sizeof(mark));
			} else if (!strcmp(key, "reject")) {
				ret = reject_words(im, e, rej, sizeof(rej));
				verdict = e;
				vname = key;
			} else if (!strcmp(key, "accept") || !strcmp(key, "drop") ||
				   !strcmp(key, "return")) {
				verdict = e;
				vname = key;
			} else if (!strcmp(key, "jump") || !strcmp(key, "goto")) {
				verdict = e;
				vname = key;
			} else if (!strcmp(key, "xt")) {
				ret = refuse(im, e, "an iptables-nft xt match or target has no mmb "
					     "meaning (translate it with iptables-restore-translate)");
			} else {
				ret = refuse(im, e, "the statement \"%s\" has no mmb meaning", key);
			}
			if (ret)
				break;
		}
		if (!ret)
			ret = comment_words(im, rule, cmt, sizeof(cmt));
		if (!ret && rej[0])
			ret = reject_family(im, verdict, &d);
		if (ret) {
			dnf_free(&d);
			break;
		}
		if (ct == CT_EST && (mark[0] || rej[0]))
			ret = refuse(im, rule, "ct state established,related with a mark or a "
				     "reject has no mmb translation");
		if (ret) {
			dnf_free(&d);
			break;
		}
		if (ct == CT_EST) {
			if (ch != im->base || i != 0 || !uncond_ct_only(exprs) ||
			    !vname || strcmp(vname, "accept"))
				ret = refuse(im, rule, "ct state established,related translates as "
					     "the first rule of a prerouting base chain, with "
					     "accept and no other match");
			else if (!strcmp(im->policy, "accept"))
				ret = refuse(im, rule, "ct state established,related accept with a "
					     "policy accept: mmb would make a connection of every "
					     "flow; say policy drop");
			else
				im->stateful = true;
			/* its place: the priority of the connections' packets */
			im->est_group = im->group + 1;
			if (!ret && im->stateful)
				ret = emit_own(im, rule, &d);
			else
				im->group++;
			dnf_free(&d);
			if (ret)
				break;
			continue;
		}
		if (ct == CT_NEW && !im->stateful) {
			ret = refuse(im, rule, "ct state new without ct state established,related "
				     "accept as the chain's first rule: an mmb connection accepts "
				     "its later packets, nft's rule does not");
			dnf_free(&d);
			break;
		}
		/*
		 * A mark is a rule of its own just above the verdict's: it
		 * applies to what the verdict's rule decides (an accept, a
		 * jump's rules), and not to a connection's later packets,
		 * which nft's established rule accepts before they get here.
		 */
		if (mark[0]) {
			snprintf(vtext, sizeof(vtext), "%s%s", mark, cmt);
			ret = emit(im, rule, &d, vtext, false);
			if (ret) {
				dnf_free(&d);
				break;
			}
		}
		if (!vname) {
			/* a bare counter: mmb's count (a mark counts already) */
			if (counted && !mark[0]) {
				snprintf(vtext, sizeof(vtext), "count%s", cmt);
				ret = emit(im, rule, &d, vtext, false);
			}
			dnf_free(&d);
			if (ret)
				break;
			continue;
		}
		if (!strcmp(vname, "accept") || !strcmp(vname, "drop") ||
		    !strcmp(vname, "reject")) {
			snprintf(vtext, sizeof(vtext), "%s%s", rej[0] ? rej : vname, cmt);
			ret = emit(im, verdict, &d, vtext,
				   im->stateful && !strcmp(vname, "accept"));
			*ended = uncond;
		} else if (!strcmp(vname, "return")) {
			if (!(uncond && jumped))
				ret = emit_cont(im, verdict, up, &d);
			*ended = uncond;
		} else {
			const char *target = NULL;
			struct chain *to;
			struct frame f = { ch, i + 1, up, depth };
			bool sub_ended;

			json_unpack((json_t *)json_object_get(verdict, vname), "{s:s}", "target",
				    &target);
			to = target ? chain_find(im, ch->family, ch->table, target) : NULL;
			if (!to) {
				ret = refuse(im, verdict, "no chain to %s to", vname);
			} else if (to->base) {
				ret = refuse(im, verdict, "a %s to a base chain", vname);
			} else if (!strcmp(vname, "jump")) {
				ret = flatten(im, to, 0, &d, &f, true, depth + 1, &sub_ended);
			} else {
				ret = flatten(im, to, 0, &d, up, false, depth + 1, &sub_ended);
				im->at_chain = ch;
				if (!ret && !sub_ended)
					ret = emit_cont(im, verdict, up, &d);
				*ended = uncond;
			}
		}
		dnf_free(&d);
	}
	json_decref(owned);
	if (!ret) {
		im->at_chain = saved_chain;
		im->at_handle = saved_handle;
	}
	im->nest--;
	return ret;
}

/* --- the ruleset ------------------------------------------------------- */

/*
 * Index a rule of chain @name of table @family @table: @tree, or the
 * element {"rule": ...} that is the @len bytes of the input at @off.
 */
static int add_rule_ref(struct imp *im, const char *family, const char *table,
			const char *name, json_t *tree, size_t off, size_t len)
{
	struct chain *c;

	c = im->nchains && !strcmp(im->chains[im->nchains - 1].name, name) &&
	    !strcmp(im->chains[im->nchains - 1].table, table) &&
	    !strcmp(im->chains[im->nchains - 1].family, family) ?
	    &im->chains[im->nchains - 1] : chain_find(im, family, table, name);
	if (!c) {
		/* A tree for the message (the arena frees it). */
		if (!tree)
			tree = json_object_get(json_loadb(im->in + off, len,
							  JSON_REJECT_DUPLICATES, NULL), "rule");
		return refuse(im, tree, "a rule of a chain not listed before it");
	}
	if (c->nrules == c->cap) {
		int cap = c->cap * 2 + 16;
		struct rule_ref *r = realloc(c->rules, cap * sizeof(*r));

		if (!r)
			return nomem();
		c->rules = r;
		c->cap = cap;
	}
	c->rules[c->nrules++] = (struct rule_ref){ tree, off, len };
	return 0;
}

static int add_rule(struct imp *im, json_t *rule)
{
	const char *family, *table, *name;

	if (json_unpack(rule, "{s:s, s:s, s:s}", "family", &family, "table", &table,
			"chain", &name))
		return refuse(im, rule, "a rule without family, table and chain");
	return add_rule_ref(im, family, table, name, rule, 0, 0);
}

/* A rule of the input kept as text (load_stream()): where, and its chain. */
struct text_rule {
	size_t off, len;
	const char *family, *table, *chain;
};

/*
 * Index one element of the "nftables" array: @o, or with @o NULL the rule
 * @tr (one that came after the metainfo and names its chain). *@meta: the
 * metainfo came; *@nrules: rules so far.
 */
static int load_elem(struct imp *im, json_t *o, const struct text_rule *tr, bool *meta,
		     int *nrules)
{
	json_int_t schema = -1;
	const char *key;
	json_t *v;

	if (!o) {
		if (++*nrules > IMPORT_MAX_NFT_RULES)
			return refuse(im, NULL, "more than %d rules", IMPORT_MAX_NFT_RULES);
		return add_rule_ref(im, tr->family, tr->table, tr->chain, NULL, tr->off, tr->len);
	}
	key = json_is_object(o) && json_object_size(o) == 1 ?
	      json_object_iter_key(json_object_iter(o)) : NULL;
	if (!key)
		return refuse(im, o, "an object of one member expected");
	v = json_object_get(o, key);
	if (!strcmp(key, "metainfo")) {
		if (json_unpack(v, "{s:I}", "json_schema_version", &schema) || schema != 1)
			return refuse(im, o, "json_schema_version 1 expected (nft 0.9.x "
				      "to 1.1)");
		*meta = true;
	} else if (!*meta) {
		return refuse(im, o, "no metainfo first: not nft -j output");
	} else if (!strcmp(key, "chain")) {
		struct chain *c;

		if (im->nchains == im->ccap) {
			int cap = im->ccap * 2 + 16;

			c = realloc(im->chains, cap * sizeof(*c));
			if (!c)
				return nomem();
			im->chains = c;
			im->ccap = cap;
		}
		c = &im->chains[im->nchains];
		memset(c, 0, sizeof(*c));
		if (json_unpack(v, "{s:s, s:s, s:s}", "family", &c->family, "table",
				&c->table, "name", &c->name))
			return refuse(im, o, "a chain without family, table and name");
		c->obj = v;
		c->base = json_object_get(v, "hook") != NULL;
		im->nchains++;
	} else if (!strcmp(key, "rule")) {
		if (++*nrules > IMPORT_MAX_NFT_RULES)
			return refuse(im, NULL, "more than %d rules", IMPORT_MAX_NFT_RULES);
		return add_rule(im, v);
	} else if (!strcmp(key, "set") || !strcmp(key, "map")) {
		struct nset *s;

		if (im->nsets == im->scap) {
			int cap = im->scap * 2 + 16;

			s = realloc(im->sets, cap * sizeof(*s));
			if (!s)
				return nomem();
			im->sets = s;
			im->scap = cap;
		}
		s = &im->sets[im->nsets];
		memset(s, 0, sizeof(*s));
		if (json_unpack(v, "{s:s, s:s, s:s}", "family", &s->family, "table",
				&s->table, "name", &s->name))
			return refuse(im, o, "a set without family, table and name");
		s->elem = json_object_get(v, "elem");
		s->is_map = !strcmp(key, "map");
		if (s->elem && !json_is_array(s->elem))
			return refuse(im, o, "a set's elements are an array");
		im->nsets++;
	}
	/* tables, counters, flowtables...: only what rules use matters */
	return 0;
}

/* The whole tree of the input: its "nftables" array, element by element. */
static int load(struct imp *im, json_t *root)
{
	json_t *list = json_object_get(root, "nftables"), *o;
	int nrules = 0, ret;
	bool meta = false;
	size_t i;

	if (!json_is_object(root) || !json_is_array(list))
		return refuse(im, NULL, "not nft -j output: no \"nftables\" array");
	json_array_foreach(list, i, o) {
		ret = load_elem(im, o, NULL, &meta, &nrules);
		if (ret)
			return ret;
	}
	if (!meta)
		return refuse(im, NULL, "no metainfo: not nft -j output");
	return 0;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Does @p (before @end) start with @c? Then past it and the space after. */
static bool skip_tok(const char **p, const char *end, const char *c)
{
	size_t n = strlen(c);

	if ((size_t)(end - *p) < n || memcmp(*p, c, n))
		return false;
	*p = skip_ws(*p + n, end);
	return true;
}

/*
 * If @o is a rule that names its chain, keep it as text in @tr (its
 * strings from @prev's where they are the same, else held from the tree).
 */
static bool rule_as_text(json_t *o, struct text_rule *tr, const struct text_rule *prev)
{
	json_t *v = json_object_size(o) == 1 ? json_object_get(o, "rule") : NULL;
	json_t *f = json_object_get(v, "family"), *t = json_object_get(v, "table");
	json_t *c = json_object_get(v, "chain");

	if (!json_is_object(v) || !json_is_string(f) || !json_is_string(t) || !json_is_string(c))
		return false;
	if (prev && prev->chain && !strcmp(prev->chain, json_string_value(c)) &&
	    !strcmp(prev->table, json_string_value(t)) &&
	    !strcmp(prev->family, json_string_value(f))) {
		tr->family = prev->family;
		tr->table = prev->table;
		tr->chain = prev->chain;
		return true;
	}
	/* The arena frees them with the rest. */
	tr->family = json_string_value(json_incref(f));
	tr->table = json_string_value(json_incref(t));
	tr->chain = json_string_value(json_incref(c));
	return true;
}

/*
 * The input @in (@len bytes) read an element of its "nftables" array at a
 * time, each parsed by jansson; a rule's tree is let go once its place is
 * known, and its text parsed again where it is flattened. The whole tree
 * of a ruleset takes some 19 bytes per byte of JSON, 100 MB for 10k rules,
 * and where page faults are dear (UML: a round trip through the host each)
 * touching it cost more than the rest of the import; this way the memory
 * of one rule's tree serves the next. Only the frame, {"nftables": [...]}
 * as nft prints it, is read here; the elements are indexed once all of
 * them parsed, so a refusal never comes before a JSON error. -1: input of
 * another shape, or that jansson refused: it is to be parsed whole (its
 * errors are jansson's).
 */
static int load_stream(struct imp *im, const char *in, size_t len)
{
	const char *p = skip_ws(in, in + len), *end = in + len;
	struct text_rule *tr = NULL;
	json_t **tree = NULL;
	size_t n = 0, cap = 0, k;
	bool meta = false, done;
	json_error_t jerr;
	int nrules = 0, ret = -1;

	if (!skip_tok(&p, end, "{") || !skip_tok(&p, end, "\"nftables\"") ||
	    !skip_tok(&p, end, ":") || !skip_tok(&p, end, "["))
		return -1;
	done = skip_tok(&p, end, "]");
	while (!done) {
		json_t *o = json_loadb(p, end - p, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES,
				       &jerr);

		if (!o)
			goto out;
		if (n == cap) {
			size_t c = cap * 2 + 1024;
			struct text_rule *t = realloc(tr, c * sizeof(*t));
			json_t **j = t ? realloc(tree, c * sizeof(*j)) : NULL;

			if (t)
				tr = t;
			if (!j) {
				json_decref(o);
				ret = nomem();
				goto out;
			}
			tree = j;
			cap = c;
		}
		tr[n] = (struct text_rule){ .off = p - in, .len = jerr.position };
		tree[n] = o;
		if (meta && rule_as_text(o, &tr[n], n ? &tr[n - 1] : NULL)) {
			json_decref(o);
			tree[n] = NULL;
		} else if (json_object_size(o) == 1 && json_object_get(o, "metainfo")) {
			meta = true;	/* rules after it go as text */
		}
		n++;
		p = skip_ws(p + jerr.position, end);
		if (skip_tok(&p, end, "]"))
			done = true;
		else if (!skip_tok(&p, end, ","))
			goto out;
	}
	if (!skip_tok(&p, end, "}") || p != end)
		goto out;
	meta = false;
	for (k = 0, ret = 0; k < n && !ret; k++)
		ret = load_elem(im, tree[k], &tr[k], &meta, &nrules);
	if (!ret && !meta)
		ret = refuse(im, NULL, "no metainfo: not nft -j output");
out:
	if (ret == -1)		/* parsed whole, all again */
		for (k = 0; k < n; k++)
			json_decref(tree[k]);
	free(tr);
	free(tree);
	return ret;
}

/* What packets a base chain sees, to refuse two chains that see the same. */
struct scope {
	struct chain *c;
	const char *dev;	/* netdev; NULL: prerouting */
	int fam;		/* prerouting: 4, 6, 0 both */
};

static bool scopes_meet(const struct scope *a, const struct scope *b)
{
	if (a->dev && b->dev)
		return !strcmp(a->dev, b->dev);
	if (a->dev || b->dev)
		return true;
	return !a->fam || !b->fam || a->fam == b->fam;
}

/* A base chain: checked, its devices enabled, its rules flattened. */
/* The next line of the head comes from the base chain being translated. */
static int head_from(struct imp *im)
{
	size_t *p, at = origin_here(im);

	if (at == (size_t)-1)
		return -1;
	if (im->nhead == im->hcap) {
		im->hcap = im->hcap * 2 + 16;
		p = realloc(im->head_from, im->hcap * sizeof(*p));
		if (!p)
			return -1;
		im->head_from = p;
	}
	im->head_from[im->nhead++] = at;
	return 0;
}

static int import_base(struct imp *im, struct chain *c, struct scope *sc, int *nsc)
{
	const char *type = NULL, *hook = NULL, *policy = "accept";
	json_t *dev = json_object_get(c->obj, "dev"), *d;
	struct dnf prefix = { 0 };
	struct conj empty = { 0 };
	int ret = 0, i, j, first = *nsc;
	bool ended;
	size_t k;

	im->at_chain = c;
	im->at_handle = -1;
	im->marked = false;
	if (json_unpack(c->obj, "{s?s, s?s, s?s}", "type", &type, "hook", &hook,
			"policy", &policy))
		return refuse(im, NULL, "a base chain's \"type\", \"hook\" and \"policy\" "
			      "are strings");
	if (!hook)
		return refuse(im, NULL, "a base chain without \"hook\"");
	if (!c->nrules && !strcmp(policy, "accept"))
		return 0;	/* changes nothing */
	if (!type || strcmp(type, "filter"))
		return refuse(im, NULL, "a base chain of type %s: mmb translates type filter",
			      type ?: "(none)");
	if (strcmp(policy, "accept") && strcmp(policy, "drop"))
		return refuse(im, NULL, "policy %s", policy);
	if (!strcmp(c->family, "netdev")) {
		if (strcmp(hook, "ingress"))
			return refuse(im, NULL, "netdev hook %s: mmb translates ingress", hook);
		if (!dev)
			return refuse(im, NULL, "a netdev ingress chain without \"dev\" (nft 1.0.6 "
				      "leaves it out of its JSON: add \"dev\": \"IFACE\" to the "
				      "chain object)");
		if (!json_is_string(dev) && (!json_is_array(dev) || !json_array_size(dev)))
			return refuse(im, NULL, "\"dev\" is a name or an array of names");
	} else if (!strcmp(c->family, "ip") || !strcmp(c->family, "ip6") ||
		   !strcmp(c->family, "inet")) {
		if (!strcmp(hook, "ingress"))
			return refuse(im, NULL, "an inet ingress chain: mmb translates netdev "
				      "ingress chains; write its rules in a table netdev chain of "
				      "its device, meta nfproto ipv4 and ipv6 as meta protocol ip "
				      "and ip6, and its policy drop as a last rule meta protocol "
				      "{ ip, ip6 } drop (an inet ingress chain sees IP only)");
		if (strcmp(hook, "prerouting"))
			return refuse(im, NULL, "hook %s: mmb classifies what devices receive, "
				      "before routing (prerouting, netdev ingress)", hook);
		dev = NULL;
	} else {
		return refuse(im, NULL, "family %s has no mmb meaning", c->family);
	}
	/* Its scopes, each checked against the chains before it. */
	for (i = 0; i < (dev && json_is_array(dev) ? (int)json_array_size(dev) : 1); i++) {
		struct scope s = { c, NULL, 0 };

		if (dev) {
			d = json_is_array(dev) ? json_array_get(dev, i) : dev;
			s.dev = json_string_value(d);
			if (!s.dev || !*s.dev || strlen(s.dev) >= 16 ||
			    strpbrk(s.dev, " \t\"'#\\"))
				return refuse(im, d, "not an interface name");
		} else {
			s.fam = !strcmp(c->family, "ip") ? 4 : !strcmp(c->family, "ip6") ? 6 : 0;
		}
		for (j = 0; j < first; j++)
			if (scopes_meet(&sc[j], &s))
				return refuse(im, NULL, "this base chain and table %s %s, chain %s "
					      "see the same packets: mmb merges no two chains "
					      "(put their rules in one)", sc[j].c->family,
					      sc[j].c->table, sc[j].c->name);
		sc[(*nsc)++] = s;
	}
	/* The prefix: in DEV per device, or the family of an ip/ip6 chain. */
	for (i = first; i < *nsc; i++) {
		struct conj cj = empty;

		if (sc[i].dev) {
			cj.text = malloc(strlen(sc[i].dev) + 4);
			if (!cj.text || head_from(im) || sb_printf(&im->head, "enable %s\n", sc[i].dev)) {
				free(cj.text);
				dnf_free(&prefix);
				return nomem();
			}
			sprintf(cj.text, "in %s", sc[i].dev);
			snprintf(cj.dev, sizeof(cj.dev), "%s", sc[i].dev);
			cj.nterms = 1;
			cj.nonip = true;	/* a netdev chain sees every frame */
		}
		cj.fam = sc[i].fam;
		if (dnf_push(&prefix, &cj)) {
			free(cj.text);
			dnf_free(&prefix);
			return nomem();
		}
	}
	(void)k;
	im->base = c;
	im->policy = policy;
	im->stateful = false;
	ret = flatten(im, c, 0, &prefix, NULL, false, 0, &ended);
	im->at_chain = c;
	im->at_handle = -1;
	if (!ret && !ended && !strcmp(policy, "drop")) {
		im->lowest = true;
		im->at_policy = true;
		ret = emit(im, NULL, &prefix, "drop", false);
		im->at_policy = false;
		im->lowest = false;
	}
	dnf_free(&prefix);
	return ret;
}

/*
 * jansson's memory: a few large chunks, each faulted in with one call and
 * never returned piece by piece. A 10k-rule ruleset (5 MB of JSON) parsed
 * whole makes a tree of some 100 MB of small objects; where page faults
 * are dear (UML: each one is a round trip through the host) faulting them
 * in one by one took seconds. Read element by element (load_stream()),
 * the first chunk, 4 MiB, is most often the only one.
 */
struct chunk {
	struct chunk *next;
	size_t size, used;
};

static struct chunk *arena;
static size_t arena_hint = 4 << 20;

/*
 * Blocks carry their size class in a 16-byte header; freed ones wait on
 * their class's list for the next allocation of it (jansson's arrays and
 * buffers grow by allocating anew and freeing the old).
 */
#define ARENA_CLASSES 96

static void *arena_free_list[ARENA_CLASSES];

static unsigned int arena_class(size_t n, size_t *size)
{
	unsigned int k;

	if (n <= 1024) {
		*size = (n + 15) & ~(size_t)15;
		return *size / 16;		/* 0 to 64 */
	}
	for (k = 11; ((size_t)1 << k) < n; k++)
		;
	*size = (size_t)1 << k;
	return 65 + k - 11;			/* 65 to 95 */
}

static void *arena_alloc(size_t n)
{
	struct chunk *c = arena;
	unsigned int k;
	size_t size;
	char *p;

	if (n > ((size_t)1 << 40))
		return NULL;
	k = arena_class(n, &size);
	if (arena_free_list[k]) {
		p = arena_free_list[k];
		arena_free_list[k] = *(void **)p;
		return p;
	}
	if (!c || c->size - c->used < size + 16) {
		size_t csize = arena_hint > size + 16 + 64 ? arena_hint : size + 16 + 64;

		c = mmap(NULL, csize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		madvise(c, csize, MADV_POPULATE_WRITE);
		c->next = arena;
		c->size = csize;
		c->used = 64;
		arena = c;
		arena_hint = 16u << 20;	/* the next ones (a whole tree's was sized from the input) */
	}
	p = (char *)c + c->used;
	c->used += size + 16;
	*(unsigned int *)p = k;
	return p + 16;
}

static void arena_free(void *p)
{
	unsigned int k;

	if (!p)
		return;
	k = *(unsigned int *)((char *)p - 16);
	*(void **)p = arena_free_list[k];
	arena_free_list[k] = p;
}

static void arena_release(void)
{
	if (getenv("MMB_ARENA_DEBUG")) {
		struct chunk *c;

		for (c = arena; c; c = c->next)
			fprintf(stderr, "chunk %zu used %zu\n", c->size, c->used);
	}
	while (arena) {
		struct chunk *c = arena;

		arena = c->next;
		munmap(c, c->size);
	}
	memset(arena_free_list, 0, sizeof(arena_free_list));
}

/* Read all of @f, at most IMPORT_MAX_BYTES. */
static int read_input(const char *name, FILE *f, char **buf, size_t *len)
{
	size_t cap = 1 << 16, got;
	struct stat st;
	char *p;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (size_t)st.st_size < IMPORT_MAX_BYTES)
		cap = st.st_size + 1;
	p = malloc(cap);
	if (p)
		madvise((void *)(((uintptr_t)p + 4095) & ~(uintptr_t)4095),
			cap > 8192 ? cap - 8192 : 0, MADV_POPULATE_WRITE);

	*len = 0;
	if (!p)
		return nomem();
	while ((got = fread(p + *len, 1, cap - *len, f)) > 0) {
		*len += got;
		if (*len > IMPORT_MAX_BYTES) {
			free(p);
			fprintf(stderr, "Error: %s: more than %u MiB\n", name,
				IMPORT_MAX_BYTES >> 20);
			return EXIT_USAGE;
		}
		if (*len == cap) {
			char *q = realloc(p, cap *= 2);

			if (!q) {
				free(p);
				return nomem();
			}
			p = q;
		}
	}
	if (ferror(f)) {
		free(p);
		return err_sys(name, errno);
	}
	*buf = p;
	return 0;
}

static void import_free(struct imp *im)
{
	int i;

	for (i = 0; i < im->nchains; i++)
		free(im->chains[i].rules);
	free(im->chains);
	free(im->sets);
	free(im->words.p);
	free(im->out);
	free(im->head.p);
	free(im->from.p);
	free(im->head_from);
}

/* The translation of what load() indexed, as the text of a -f file, into @text. */
static int translate(struct imp *im, const char *name, struct sbuf *text)
{
	struct scope *sc;
	int i, nsc = 0, ret = 0;
	size_t r;

	/* A scope per device of a netdev chain, one for any other chain. */
	for (i = 0; i < im->nchains; i++) {
		json_t *dev = json_object_get(im->chains[i].obj, "dev");

		nsc += json_is_array(dev) && json_array_size(dev) ? json_array_size(dev) : 1;
	}
	sc = calloc(nsc ?: 1, sizeof(*sc));
	nsc = 0;
	if (!sc)
		return nomem();
	for (i = 0; i < im->nchains && !ret; i++)
		if (im->chains[i].base)
			ret = import_base(im, &im->chains[i], sc, &nsc);
	free(sc);
	if (ret)
		return ret;
	/* The name on one line: a control character in it becomes '?'. */
	if (sb_printf(text, "# mmbctl import of "))
		return nomem();
	for (; *name; name++)
		if (sb_printf(text, "%c", (unsigned char)*name < 0x20 || *name == 0x7f ? '?' : *name))
			return nomem();
	if (sb_printf(text, ": %zu rules, first match as priorities\nflush\n", im->nout))
		return nomem();
	for (r = 0; r < im->nout; r++) {
		const struct out_rule *o = &im->out[r];

		unsigned int prio = o->lowest ? 0 : im->group - o->group + 1;

		if (o->stateful && sb_printf(text, "add-stateful priority %u conn-priority %u %s\n",
					     prio, im->group - o->conn_group + 1,
					     im->words.p + o->off))
			return nomem();
		if (!o->stateful && sb_printf(text, "add priority %u %s\n", prio,
					      im->words.p + o->off))
			return nomem();
	}
	if (im->head.len && sb_add(text, im->head.p, im->head.len))
		return nomem();
	/* Lines 3 on: the rules, then the head's. */
	lines_from.at = malloc((im->nout + im->nhead + 1) * sizeof(size_t));
	if (!lines_from.at)
		return nomem();
	for (r = 0; r < im->nout; r++)
		lines_from.at[r] = im->out[r].from;
	for (r = 0; r < im->nhead; r++)
		lines_from.at[im->nout + r] = im->head_from[r];
	lines_from.n = im->nout + im->nhead;
	lines_from.text = im->from.p;
	im->from.p = NULL;
	return 0;
}

static void import_usage(void)
{
	fprintf(stderr, "Usage: mmbctl import [ -n ] [ -c ] FILE\n");
}

int do_import(int argc, char **argv)
{
	bool dry = false, check = false;
	const char *name = NULL;
	struct sbuf text = { 0 };
	struct imp im = { .at_handle = -1 };
	json_error_t jerr;
	json_t *root;
	char *in = NULL;
	size_t len;
	FILE *f;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n"))
			dry = true;
		else if (!strcmp(argv[i], "-c"))
			check = true;
		else if (name)
			return err_word(i, "unexpected word after FILE");
		else if (argv[i][0] == '-' && argv[i][1])
			return err_word(i, "unknown option \"%s\", try -n or -c", argv[i]);
		else
			name = argv[i];
	}
	if (!name) {
		import_usage();
		return err_word(argc, "missing FILE (- for standard input)");
	}
	if (dry && check)
		return err_word(argc - 1, "-n prints, -c checks in the kernel: one of them");
	f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	if (!f)
		return err_sys(name, errno);
	ret = read_input(name, f, &in, &len);
	if (f != stdin)
		fclose(f);
	if (ret)
		return ret;
	json_set_alloc_funcs(arena_alloc, arena_free);
	im.in = in;
	ret = load_stream(&im, in, len);
	if (ret == -1) {
		/* The tree takes some 19 bytes per byte of nft's JSON. */
		arena_hint = len < (12u << 20) ? len * 20 + (1 << 20) : 256u << 20;
		root = json_loadb(in, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!root) {
			arena_release();
			import_free(&im);
			free(in);
			fprintf(stderr, "Error: %s:%d:%d: not JSON: %s\n", name, jerr.line,
				jerr.column, jerr.text);
			return EXIT_USAGE;
		}
		ret = load(&im, root);
	}
	if (!ret)
		ret = translate(&im, name, &text);
	/* The trees go with their chunks, json_decref() not needed. */
	arena_release();
	import_free(&im);
	free(in);
	if (ret)
		goto out;
	if (dry) {
		fwrite(text.p, 1, text.len, stdout);
		goto out;
	}
	opt_check = check;
	err_origin = import_origin;
	ret = batch_text(name, text.p, text.len);
	err_origin = NULL;
	text.p = NULL;	/* batch_text took it */
out:
	free(lines_from.at);
	free(lines_from.text);
	memset(&lines_from, 0, sizeof(lines_from));
	free(text.p);
	return ret;
}

#endif /* MMB_HAVE_JANSSON */
