// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: a rule as netlink attributes, and back. Every attribute that
 * comes from a word of the command carries that word's index, so the
 * kernel's refusal can point at it (nl.c maps the offset back).
 */
#include <string.h>

#include "mmbctl.h"
#include "rule.h"

static void match_put(struct mmb_req *req, const struct umatch *m, int index)
{
	struct nlattr *nest, *a;

	nest = mnl_attr_nest_start(req->nlh, index);
	mmb_req_token(req, nest, m->argi);
	mnl_attr_put_u16(req->nlh, MMB_MATCH_A_FIELD, m->field);
	if (m->op != MMB_OP_EQ)	/* the kernel's default */
		mnl_attr_put_u8(req->nlh, MMB_MATCH_A_OP, m->op);
	if (m->kind)
		mnl_attr_put_u8(req->nlh, MMB_MATCH_A_KIND, m->kind);
	if (m->vlen) {
		a = mnl_nlmsg_get_payload_tail(req->nlh);
		/* "in", "out": the name, which the kernel keeps; others as bytes. */
		if (m->field == MMB_FIELD_IN || m->field == MMB_FIELD_OUT) {
			mnl_attr_put_strz(req->nlh, MMB_MATCH_A_IFNAME, (const char *)m->value);
		} else if (m->field == MMB_FIELD_META_MARK && m->vlen == 8) {
			/* VALUE/MASK: the mask apart */
			mnl_attr_put(req->nlh, MMB_MATCH_A_VALUE, 4, m->value);
			mmb_req_token(req, a, m->vargi);
			a = mnl_nlmsg_get_payload_tail(req->nlh);
			mnl_attr_put(req->nlh, MMB_MATCH_A_MASK, 4, m->value + 4);
		} else {
			mnl_attr_put(req->nlh, MMB_MATCH_A_VALUE, m->vlen, m->value);
		}
		mmb_req_token(req, a, m->vargi);
	}
	if (m->plen != field_bits(m->field))
		mnl_attr_put_u8(req->nlh, MMB_MATCH_A_PREFIX, m->plen);
	mnl_attr_nest_end(req->nlh, nest);
}

static void target_put(struct mmb_req *req, const struct utarget *t, int index)
{
	const struct target_kind *k = target_by_type(t->type);
	struct nlattr *nest;

	nest = mnl_attr_nest_start(req->nlh, index);
	mmb_req_token(req, nest, t->argi);
	mnl_attr_put_u8(req->nlh, MMB_TARGET_A_TYPE, t->type);
	if (k && k->encode)
		k->encode(req, t);
	mnl_attr_nest_end(req->nlh, nest);
}

void urule_put(struct mmb_req *req, const struct urule *r)
{
	struct nlattr *rule, *list;
	int i;

	rule = mnl_attr_nest_start(req->nlh, MMB_A_RULE);
	list = mnl_attr_nest_start(req->nlh, MMB_RULE_A_MATCHES);
	for (i = 0; i < r->nm; i++)
		match_put(req, &r->m[i], i + 1);
	mnl_attr_nest_end(req->nlh, list);
	list = mnl_attr_nest_start(req->nlh, MMB_RULE_A_TARGETS);
	for (i = 0; i < r->nt; i++)
		target_put(req, &r->t[i], i + 1);
	if (!r->nt) {		/* it only logs: a rule that only counts, and logs */
		struct utarget count = { .type = MMB_TARGET_COUNT, .argi = r->log_argi };

		target_put(req, &count, 1);
	}
	mnl_attr_nest_end(req->nlh, list);
	urule_put_log(req, r);
	if (r->stateful)
		mnl_attr_put(req->nlh, MMB_RULE_A_STATEFUL, 0, NULL);
	if (r->offload) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->offload_argi);
		mnl_attr_put(req->nlh, MMB_RULE_A_OFFLOAD, 0, NULL);
	}
	if (r->prio) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->prio_argi);
		mnl_attr_put_u32(req->nlh, MMB_RULE_A_PRIORITY, r->prio);
	}
	if (r->has_conn_prio) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->conn_prio_argi);
		mnl_attr_put_u32(req->nlh, MMB_RULE_A_CONN_PRIORITY, r->conn_prio);
	}
	if (r->comment[0]) {
		mmb_req_token(req, mnl_nlmsg_get_payload_tail(req->nlh), r->comment_argi);
		mnl_attr_put_strz(req->nlh, MMB_RULE_A_COMMENT, r->comment);
	}
	limit_put(req, r);
	ctcount_put(req, r);
	mnl_attr_nest_end(req->nlh, rule);
}

static int match_decode(const struct nlattr *n, struct umatch *m)
{
	struct attrs ma;

	attrs_nested(n, &ma);
	if (!ma.tb[MMB_MATCH_A_FIELD])
		return -1;
	m->field = mnl_attr_get_u16(ma.tb[MMB_MATCH_A_FIELD]);
	if (m->field > MMB_FIELD_MAX)
		return -1;
	m->op = ma.tb[MMB_MATCH_A_OP] ? mnl_attr_get_u8(ma.tb[MMB_MATCH_A_OP]) : MMB_OP_EQ;
	m->plen = ma.tb[MMB_MATCH_A_PREFIX] ?
		  mnl_attr_get_u8(ma.tb[MMB_MATCH_A_PREFIX]) : field_bits(m->field);
	m->kind = ma.tb[MMB_MATCH_A_KIND] ? mnl_attr_get_u8(ma.tb[MMB_MATCH_A_KIND]) : 0;
	if (ma.tb[MMB_MATCH_A_IFNAME]) {
		if (mnl_attr_validate(ma.tb[MMB_MATCH_A_IFNAME], MNL_TYPE_NUL_STRING) ||
		    mnl_attr_get_payload_len(ma.tb[MMB_MATCH_A_IFNAME]) > MMB_PAYLOAD_MAX)
			return -1;
		m->vlen = strlen(mnl_attr_get_str(ma.tb[MMB_MATCH_A_IFNAME])) + 1;
		memcpy(m->value, mnl_attr_get_str(ma.tb[MMB_MATCH_A_IFNAME]), m->vlen);
	} else if (ma.tb[MMB_MATCH_A_VALUE]) {
		m->vlen = mnl_attr_get_payload_len(ma.tb[MMB_MATCH_A_VALUE]);
		if (m->vlen > MMB_PAYLOAD_MAX)
			return -1;
		memcpy(m->value, mnl_attr_get_payload(ma.tb[MMB_MATCH_A_VALUE]), m->vlen);
	}
	if (ma.tb[MMB_MATCH_A_MASK]) {
		if (m->vlen != 4 || mnl_attr_get_payload_len(ma.tb[MMB_MATCH_A_MASK]) != 4)
			return -1;
		memcpy(m->value + 4, mnl_attr_get_payload(ma.tb[MMB_MATCH_A_MASK]), 4);
		m->vlen = 8;
	}
	return 0;
}

static int target_decode(const struct nlattr *n, struct utarget *t)
{
	const struct target_kind *k;
	struct attrs ta;

	attrs_nested(n, &ta);
	if (!ta.tb[MMB_TARGET_A_TYPE])
		return -1;
	t->type = mnl_attr_get_u8(ta.tb[MMB_TARGET_A_TYPE]);
	k = target_by_type(t->type);
	return k && k->decode ? k->decode(&ta, t) : 0;
}

/* A rule the kernel sent back: 0, or -1 if it makes no sense. */
int urule_decode(const struct nlattr *attr, struct urule *r, uint32_t *handle,
		 struct attrs *stats)
{
	const struct nlattr *n;
	struct attrs ra;

	memset(r, 0, sizeof(*r));
	attrs_nested(attr, &ra);
	if (!ra.tb[MMB_RULE_A_HANDLE] || !ra.tb[MMB_RULE_A_MATCHES] ||
	    !ra.tb[MMB_RULE_A_TARGETS])
		return -1;
	*handle = mnl_attr_get_u32(ra.tb[MMB_RULE_A_HANDLE]);
	r->stateful = ra.tb[MMB_RULE_A_STATEFUL] != NULL;
	r->offload = ra.tb[MMB_RULE_A_OFFLOAD] != NULL;
	if (ra.tb[MMB_RULE_A_PRIORITY])
		r->prio = mnl_attr_get_u32(ra.tb[MMB_RULE_A_PRIORITY]);
	r->conn_prio = r->prio;
	if (ra.tb[MMB_RULE_A_CONN_PRIORITY]) {
		r->conn_prio = mnl_attr_get_u32(ra.tb[MMB_RULE_A_CONN_PRIORITY]);
		r->has_conn_prio = r->conn_prio != r->prio;
	}
	if (ra.tb[MMB_RULE_A_COMMENT]) {
		if (mnl_attr_validate(ra.tb[MMB_RULE_A_COMMENT], MNL_TYPE_NUL_STRING) ||
		    mnl_attr_get_payload_len(ra.tb[MMB_RULE_A_COMMENT]) > MMB_COMMENT_MAX + 1)
			return -1;
		strcpy(r->comment, mnl_attr_get_str(ra.tb[MMB_RULE_A_COMMENT]));
	}
	if (ctcount_decode(ra.tb[MMB_RULE_A_CTCOUNT], r))
		return -1;
	mnl_attr_for_each_nested(n, ra.tb[MMB_RULE_A_MATCHES]) {
		if (r->nm == URULE_MAX_MATCHES || match_decode(n, &r->m[r->nm]))
			return -1;
		r->nm++;
	}
	mnl_attr_for_each_nested(n, ra.tb[MMB_RULE_A_TARGETS]) {
		if (r->nt == URULE_MAX_TARGETS || target_decode(n, &r->t[r->nt]))
			return -1;
		r->nt++;
	}
	if (limit_decode(ra.tb[MMB_RULE_A_LIMIT], r))
		return -1;
	if (ra.tb[MMB_RULE_A_LOG] && urule_decode_log(ra.tb[MMB_RULE_A_LOG], r))
		return -1;
	memset(stats, 0, sizeof(*stats));
	if (ra.tb[MMB_RULE_A_STATS])
		attrs_nested(ra.tb[MMB_RULE_A_STATS], stats);
	return 0;
}
