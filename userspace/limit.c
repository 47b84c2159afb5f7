// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: a rule's limit, among its matches (docs/limit.md):
 *
 *   limit [rate] [over] RATE/UNIT [burst N [packets]] [per FIELD[/PREFIX] [size N]]
 *   UNIT := second | minute | hour | day
 *
 * ("rate" and "packets" as nft writes them; never printed.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../uapi/linux/mmb_fields.h"
#include "mmbctl.h"
#include "print.h"
#include "rule.h"

static const struct {
	const char *name;
	uint32_t secs;
} units[] = {
	{ "second", 1 }, { "minute", 60 }, { "hour", 3600 }, { "day", 86400 },
};

static const char *unit_name(uint32_t secs)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].secs == secs)
			return units[i].name;
	return NULL;
}

/* A decimal number of @min to @max at word @i: 0, or an error there. */
static int limit_number(char **argv, int i, const char *what, unsigned long min,
			unsigned long max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(argv[i], &end, 10);
	if (argv[i][0] < '0' || argv[i][0] > '9' || *end || errno || v < min || v > max)
		return err_word(AT(argv + i), "%s is %lu to %lu", what, min, max);
	*out = v;
	return 0;
}

/* Can @field be a meter's key: a field of the IP or L4 header with a value? */
static bool limit_keyable(int field)
{
	return field > MMB_FIELD_ALL && field != MMB_FIELD_IN && field != MMB_FIELD_OUT &&
	       field != MMB_FIELD_LEAVING && field != MMB_FIELD_META_MARK &&
	       field != MMB_FIELD_NET_PROTO && mmb_field_names[field].bits &&
	       !field_is_opt(field);
}

/* per FIELD[/PREFIX] at word @i. */
static int limit_per(char **argv, int i, struct ulimit *l)
{
	char name[64], *slash;
	snprintf(name, sizeof(name), "%s", argv[i]);
	slash = strchr(name, '/');
	if (slash)
		*slash = '\0';
	l->per = field_lookup(name);
	l->per_argi = AT(argv + i);
	if (l->per < 0)
		return err_word(AT(argv + i), "unknown field \"%s\" after per", name);
	if (!limit_keyable(l->per))
		return err_word(AT(argv + i),
				"%s is no meter's key: per takes a field of the IP or L4 header with a value (ip-saddr, ip6-saddr/64, tcp-dport, ...)",
				name);
	l->plen = field_bits(l->per);
	if (slash) {
		unsigned long v;
		char *end;

		errno = 0;
		v = strtoul(slash + 1, &end, 10);
		if (slash[1] < '0' || slash[1] > '9' || *end || errno || v < 1 ||
		    v > (unsigned long)field_bits(l->per))
			return err_word(AT(argv + i), "the prefix of %s is 1 to %d", name,
					field_bits(l->per));
		l->plen = v;
	}
	return 0;
}

int limit_parse(int argc, char **argv, int *pi, struct urule *r)
{
	struct ulimit *l = &r->limit;
	int i = *pi + 1, err;
	char *slash, *end;
	unsigned long long v;
	const char *unit;
	size_t u;

	if (l->rate)
		return err_word(AT(argv + *pi), "a rule has one limit");
	if (r->stateful)
		return err_word(AT(argv + *pi),
				"limit judges each packet: for add, not add-stateful");
	memset(l, 0, sizeof(*l));
	l->per = -1;
	l->argi = AT(argv + *pi);
	if (i < argc && !strcmp(argv[i], "rate"))
		i++;
	if (i < argc && !strcmp(argv[i], "over")) {
		l->over = true;
		i++;
	}
	if (i == argc)
		return err_word(AT(argv + i), "missing RATE/UNIT after limit (10/second, 3/minute, ...)");
	l->rate_argi = AT(argv + i);
	slash = strchr(argv[i], '/');
	errno = 0;
	v = strtoull(argv[i], &end, 10);
	if (argv[i][0] < '0' || argv[i][0] > '9' || end != slash || errno)
		return err_word(AT(argv + i), "a limit's rate is RATE/UNIT: 10/second, 3/minute, 100/hour, 1000/day");
	if (!v || v > MMB_LIMIT_RATE_MAX)
		return err_word(AT(argv + i), "a limit's rate is 1 to %d packets a unit",
				MMB_LIMIT_RATE_MAX);
	l->rate = v;
	unit = slash + 1;
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (!strcmp(unit, units[u].name))
			break;
	if (u == sizeof(units) / sizeof(units[0]))
		return err_word(AT(argv + i), "unknown unit \"%s\": second, minute, hour or day",
				unit);
	l->unit = units[u].secs;
	l->burst = MMB_LIMIT_BURST_DEFAULT;
	i++;
	if (i < argc && !strcmp(argv[i], "burst")) {
		if (++i == argc)
			return err_word(AT(argv + i), "missing N after burst");
		err = limit_number(argv, i, "a burst", 1, MMB_LIMIT_BURST_MAX, &l->burst);
		if (err)
			return err;
		l->burst_argi = AT(argv + i);
		l->has_burst = true;
		i++;
		if (i < argc && !strcmp(argv[i], "packets"))
			i++;
	}
	if (i < argc && !strcmp(argv[i], "per")) {
		if (++i == argc)
			return err_word(AT(argv + i), "missing FIELD[/PREFIX] after per");
		err = limit_per(argv, i, l);
		if (err)
			return err;
		l->size = MMB_LIMIT_SIZE_DEFAULT;
		i++;
		if (i < argc && !strcmp(argv[i], "size")) {
			if (++i == argc)
				return err_word(AT(argv + i), "missing N after size");
			err = limit_number(argv, i, "a meter's size", 1, MMB_LIMIT_SIZE_MAX, &l->size);
			if (err)
				return err;
			l->size_argi = AT(argv + i);
			i++;
		}
	} else if (i < argc && !strcmp(argv[i], "size")) {
		return err_word(AT(argv + i), "size is a meter's: limit ... per FIELD size N");
	}
	*pi = i;
	return 0;
}

/* A meter's key against the rule's family and L4 protocol (lang.c's urule_check()). */
int limit_check(const struct urule *r, int family, int l4)
{
	const struct ulimit *l = &r->limit;

	if (!l->rate || l->per < 0 || !l->size)
		return 0;
	if (family && mmb_field_names[l->per].family &&
	    mmb_field_names[l->per].family != family)
		return err_word(l->per_argi, "the meter's key %s is of the other IP family than the rule's fields",
				field_name(l->per));
	if (l4 && mmb_field_names[l->per].l4 && mmb_field_names[l->per].l4 != l4)
		return err_word(l->per_argi, "the meter's key %s is of another L4 protocol than the rule's fields",
				field_name(l->per));
	return 0;
}

void limit_put(struct mmb_req *req, const struct urule *r)
{
	const struct ulimit *l = &r->limit;
	struct nlattr *nest;

	if (!l->rate)
		return;
	nest = mnl_attr_nest_start(req->nlh, MMB_RULE_A_LIMIT);
	mmb_req_token(req, nest, l->argi);
	mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), l->rate_argi);
	mnl_attr_put_u32(req->nlh, MMB_LIMIT_A_RATE, l->rate);
	mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), l->rate_argi);
	mnl_attr_put_u32(req->nlh, MMB_LIMIT_A_UNIT, l->unit);
	if (l->burst != MMB_LIMIT_BURST_DEFAULT) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), l->burst_argi);
		mnl_attr_put_u32(req->nlh, MMB_LIMIT_A_BURST, l->burst);
	}
	if (l->over)
		mnl_attr_put(req->nlh, MMB_LIMIT_A_OVER, 0, NULL);
	if (l->size) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), l->per_argi);
		mnl_attr_put_u16(req->nlh, MMB_LIMIT_A_PER, l->per);
		if (l->plen != field_bits(l->per)) {
			mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), l->per_argi);
			mnl_attr_put_u8(req->nlh, MMB_LIMIT_A_PREFIX, l->plen);
		}
		if (l->size != MMB_LIMIT_SIZE_DEFAULT) {
			mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), l->size_argi);
			mnl_attr_put_u32(req->nlh, MMB_LIMIT_A_SIZE, l->size);
		}
	}
	mnl_attr_nest_end(req->nlh, nest);
}

/* MMB_RULE_A_LIMIT of a dump: 0, or -1 if it makes no sense. */
int limit_decode(const struct nlattr *attr, struct urule *r)
{
	struct ulimit *l = &r->limit;
	struct attrs la;

	memset(l, 0, sizeof(*l));
	l->per = -1;
	if (!attr)
		return 0;
	attrs_nested(attr, &la);
	if (!la.tb[MMB_LIMIT_A_RATE] || !la.tb[MMB_LIMIT_A_UNIT])
		return -1;
	l->rate = mnl_attr_get_u32(la.tb[MMB_LIMIT_A_RATE]);
	l->unit = mnl_attr_get_u32(la.tb[MMB_LIMIT_A_UNIT]);
	l->burst = la.tb[MMB_LIMIT_A_BURST] ? mnl_attr_get_u32(la.tb[MMB_LIMIT_A_BURST]) :
					      MMB_LIMIT_BURST_DEFAULT;
	l->over = la.tb[MMB_LIMIT_A_OVER] != NULL;
	if (!l->rate || !unit_name(l->unit))
		return -1;
	if (la.tb[MMB_LIMIT_A_PER]) {
		l->per = mnl_attr_get_u16(la.tb[MMB_LIMIT_A_PER]);
		if (l->per > MMB_FIELD_MAX)
			return -1;
		l->plen = la.tb[MMB_LIMIT_A_PREFIX] ? mnl_attr_get_u8(la.tb[MMB_LIMIT_A_PREFIX]) :
						      field_bits(l->per);
		l->size = la.tb[MMB_LIMIT_A_SIZE] ? mnl_attr_get_u32(la.tb[MMB_LIMIT_A_SIZE]) :
						    MMB_LIMIT_SIZE_DEFAULT;
	}
	return 0;
}

/* The words that give the limit back (save reads them with -f). */
void limit_format(const struct ulimit *l, char *buf, size_t len)
{
	int off;

	off = snprintf(buf, len, "limit%s %u/%s burst %u", l->over ? " over" : "", l->rate,
		       unit_name(l->unit) ?: "?", l->burst);
	if (l->size && off > 0 && (size_t)off < len) {
		if (l->plen != field_bits(l->per))
			snprintf(buf + off, len - off, " per %s/%d size %u", field_name(l->per),
				 l->plen, l->size);
		else
			snprintf(buf + off, len - off, " per %s size %u", field_name(l->per),
				 l->size);
	}
}

void limit_json(const struct ulimit *l)
{
	print_open_object("limit");
	print_bool("over", NULL, l->over);
	print_u64("rate", NULL, l->rate);
	print_string("unit", NULL, unit_name(l->unit) ?: "?");
	print_u64("burst", NULL, l->burst);
	if (l->size) {
		print_string("per", NULL, field_name(l->per));
		print_u64("prefix", NULL, l->plen);
		print_u64("size", NULL, l->size);
	}
	print_close_object();
}
