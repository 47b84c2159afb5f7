// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: "ct count", a per-key cap on connections (docs/conncount.md).
 *
 *   CTCOUNT := ct count [ over ] N [ per FIELD[/PREFIX] ] [ size N ]
 *   FIELD   := ip-saddr | ip-daddr | ip6-saddr | ip6-daddr
 *
 * Among a rule's matches (nft's "ct count over 3" is an expression like
 * its matches); one per rule. Words to MMB_RULE_A_CTCOUNT and back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "mmbctl.h"
#include "nl.h"
#include "print.h"
#include "rule.h"

static bool cc_per_ok(int field)
{
	return field == MMB_FIELD_IP_SADDR || field == MMB_FIELD_IP_DADDR ||
	       field == MMB_FIELD_IP6_SADDR || field == MMB_FIELD_IP6_DADDR;
}

/* A decimal number from @lo to @hi, all of @w; -1 if it is not one. */
static long long cc_number(const char *w, long long lo, long long hi)
{
	char *end;
	long long v;

	if (*w < '0' || *w > '9')
		return -1;
	errno = 0;
	v = strtoll(w, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	return v;
}

/* "ct count ..." at word *@pi ("ct"). */
int ctcount_parse(int argc, char **argv, int *pi, struct urule *r)
{
	struct uctcount *c = &r->cc;
	int i = *pi, field;
	long long v;
	char *slash;
	char name[40];

	if (c->set)
		return err_word(AT(argv + i), "a rule takes one ct count");
	if (i + 1 == argc || strcmp(argv[i + 1], "count"))
		return err_word(AT(argv + i + (i + 1 < argc)), "ct takes count: ct count [over] N [per FIELD[/PREFIX]] [size N]");
	memset(c, 0, sizeof(*c));
	c->set = true;
	c->argi = AT(argv + i);
	i += 2;
	if (i < argc && !strcmp(argv[i], "over")) {
		if (r->stateful)
			return err_word(AT(argv + i), "ct count over in add-stateful would start the connections it counts only once over: use add, with drop or reject");
		c->over = true;
		i++;
	}
	if (i == argc)
		return err_word(AT(argv + i - 1), "missing N of ct count: the connections a key may hold");
	v = cc_number(argv[i], c->over ? 0 : 1, MMB_CTCOUNT_LIMIT_MAX);
	if (v < 0)
		return err_word(AT(argv + i), "ct count takes %s to %u connections, not \"%s\"",
				c->over ? "0" : "1", MMB_CTCOUNT_LIMIT_MAX, argv[i]);
	c->limit = v;
	c->limit_argi = AT(argv + i);
	i++;
	if (i < argc && !strcmp(argv[i], "per")) {
		if (++i == argc)
			return err_word(AT(argv + i - 1), "per takes ip-saddr, ip-daddr, ip6-saddr or ip6-daddr");
		snprintf(name, sizeof(name), "%s", argv[i]);
		slash = strchr(name, '/');
		if (slash)
			*slash = '\0';
		field = field_lookup(name);
		if (field < 0 || !cc_per_ok(field))
			return err_word(AT(argv + i), "per takes ip-saddr, ip-daddr, ip6-saddr or ip6-daddr, not \"%s\"",
					name);
		c->per = field;
		c->per_argi = AT(argv + i);
		if (slash) {
			v = cc_number(slash + 1, 1, field_bits(field));
			if (v < 0)
				return err_word(AT(argv + i), "a prefix of %s is 1 to %d bits, not \"%s\"",
						name, field_bits(field), slash + 1);
			c->plen = v;
		}
		i++;
	}
	if (i < argc && !strcmp(argv[i], "size")) {
		if (!c->per)
			return err_word(AT(argv + i), "size is of a count per key: ct count N per FIELD size N");
		if (++i == argc)
			return err_word(AT(argv + i - 1), "missing N of size: the keys kept at most");
		v = cc_number(argv[i], 1, MMB_CTCOUNT_SIZE_MAX);
		if (v < 0)
			return err_word(AT(argv + i), "size takes 1 to %u keys, not \"%s\"",
					MMB_CTCOUNT_SIZE_MAX, argv[i]);
		c->size = v;
		c->size_argi = AT(argv + i);
		i++;
	}
	*pi = i;
	return 0;
}

/* MMB_RULE_A_CTCOUNT of @r, if it has one; its errors point at its words. */
void ctcount_put(struct mmb_req *req, const struct urule *r)
{
	const struct uctcount *c = &r->cc;
	struct nlattr *nest;

	if (!c->set)
		return;
	mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), c->argi);
	nest = mnl_attr_nest_start(req->nlh, MMB_RULE_A_CTCOUNT);
	mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), c->limit_argi);
	mnl_attr_put_u32(req->nlh, MMB_CTCOUNT_A_LIMIT, c->limit);
	if (c->over)
		mnl_attr_put(req->nlh, MMB_CTCOUNT_A_OVER, 0, NULL);
	if (c->per) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), c->per_argi);
		mnl_attr_put_u16(req->nlh, MMB_CTCOUNT_A_PER, c->per);
		if (c->plen)
			mnl_attr_put_u8(req->nlh, MMB_CTCOUNT_A_PREFIX, c->plen);
	}
	if (c->size) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), c->size_argi);
		mnl_attr_put_u32(req->nlh, MMB_CTCOUNT_A_SIZE, c->size);
	}
	mnl_attr_nest_end(req->nlh, nest);
}

/* MMB_RULE_A_CTCOUNT as the kernel sent it: 0, or -1 if it makes no sense. */
int ctcount_decode(const struct nlattr *attr, struct urule *r)
{
	struct uctcount *c = &r->cc;
	const struct nlattr *a;

	memset(c, 0, sizeof(*c));
	if (!attr)
		return 0;
	c->set = true;
	mnl_attr_for_each_nested(a, attr) {
		switch (mnl_attr_get_type(a)) {
		case MMB_CTCOUNT_A_LIMIT:
			if (mnl_attr_validate(a, MNL_TYPE_U32))
				return -1;
			c->limit = mnl_attr_get_u32(a);
			break;
		case MMB_CTCOUNT_A_OVER:
			c->over = true;
			break;
		case MMB_CTCOUNT_A_PER:
			if (mnl_attr_validate(a, MNL_TYPE_U16))
				return -1;
			c->per = mnl_attr_get_u16(a);
			break;
		case MMB_CTCOUNT_A_PREFIX:
			if (mnl_attr_validate(a, MNL_TYPE_U8))
				return -1;
			c->plen = mnl_attr_get_u8(a);
			break;
		case MMB_CTCOUNT_A_SIZE:
			if (mnl_attr_validate(a, MNL_TYPE_U32))
				return -1;
			c->size = mnl_attr_get_u32(a);
			break;
		}
	}
	/* The default size is not said again (list and save as given). */
	if (c->size == MMB_CTCOUNT_SIZE_DEFAULT)
		c->size = 0;
	return 0;
}

/* The words of @r's ct count ("" if none). */
void ctcount_format(const struct urule *r, char *buf, size_t len)
{
	const struct uctcount *c = &r->cc;
	int off;

	buf[0] = '\0';
	if (!c->set)
		return;
	off = snprintf(buf, len, "ct count %s%u", c->over ? "over " : "", c->limit);
	if (c->per && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - off, " per %s", field_name(c->per) ?: "?");
	if (c->per && c->plen && off >= 0 && (size_t)off < len)
		off += snprintf(buf + off, len - off, "/%d", c->plen);
	if (c->size && off >= 0 && (size_t)off < len)
		snprintf(buf + off, len - off, " size %u", c->size);
}

/* JSON: "ct_count": { "limit", "over", "per", "prefix", "size" }. */
void ctcount_json(const struct urule *r)
{
	const struct uctcount *c = &r->cc;

	if (!c->set)
		return;
	print_open_object("ct_count");
	print_u64("limit", NULL, c->limit);
	print_bool("over", NULL, c->over);
	if (c->per) {
		print_string("per", NULL, field_name(c->per) ?: "?");
		print_u64("prefix", NULL, c->plen ? c->plen : field_bits(c->per));
		print_u64("size", NULL, c->size ? c->size : MMB_CTCOUNT_SIZE_DEFAULT);
	}
	print_close_object();
}
