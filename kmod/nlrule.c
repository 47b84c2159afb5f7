// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the rule and table commands of the generic netlink family. Rules
 * as netlink carries them become specs (struct mmb_rule_spec) and, checked
 * and compiled by rule.c, rules; each command is one transaction of the
 * namespace's rules (ruleset.c). Where a refused rule came from stays on
 * this side (struct mmb_nl_where): rule.c says which match or target, and
 * the extended ACK points at its attribute.
 */
#include <linux/rtnetlink.h>
#include <net/sock.h>

#include "nl.h"
#include "test.h"

const struct nla_policy mmb_match_policy[MMB_MATCH_A_MAX + 1] = {
	[MMB_MATCH_A_FIELD]	= NLA_POLICY_MAX(NLA_U16, MMB_FIELD_MAX),
	[MMB_MATCH_A_OP]	= NLA_POLICY_MAX(NLA_U8, MMB_OP_MAX),
	[MMB_MATCH_A_VALUE]	= { .type = NLA_BINARY, .len = MMB_PAYLOAD_MAX },
	[MMB_MATCH_A_PREFIX]	= NLA_POLICY_MAX(NLA_U8, 128),
	[MMB_MATCH_A_KIND]	= NLA_POLICY_MIN(NLA_U8, 2),
	[MMB_MATCH_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[MMB_MATCH_A_MASK]	= { .type = NLA_U32 },
};

/* Not const: 6.1's policy takes a plain pointer. */
static struct netlink_range_validation mmb_rate_range = {
	.min = 1,
	.max = MMB_RATE_ALWAYS,
};

static const struct nla_policy mmb_target_policy[MMB_TARGET_A_MAX + 1] = {
	[MMB_TARGET_A_TYPE]	= NLA_POLICY_MAX(NLA_U8, MMB_TARGET_MAX),
	[MMB_TARGET_A_FIELD]	= NLA_POLICY_MAX(NLA_U16, MMB_FIELD_MAX),
	[MMB_TARGET_A_VALUE]	= { .type = NLA_BINARY, .len = MMB_OPT_DATA_MAX },
	[MMB_TARGET_A_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_rate_range),
	[MMB_TARGET_A_PREFIX]	= NLA_POLICY_MAX(NLA_U8, 128),
	[MMB_TARGET_A_KIND]	= NLA_POLICY_MIN(NLA_U8, 2),
	[MMB_TARGET_A_INVERT]	= { .type = NLA_FLAG },
	[MMB_TARGET_A_MASK]	= { .type = NLA_U32 },
	[MMB_TARGET_A_REJECT]	= NLA_POLICY_MAX(NLA_U8, MMB_REJECT_MAX),
};

static const struct nla_policy mmb_ctcount_policy[MMB_CTCOUNT_A_MAX + 1] = {
	[MMB_CTCOUNT_A_LIMIT]	= { .type = NLA_U32 },	/* its range: mmb_nl_parse_ctcount() */
	[MMB_CTCOUNT_A_OVER]	= { .type = NLA_FLAG },
	[MMB_CTCOUNT_A_PER]	= { .type = NLA_U16 },
	[MMB_CTCOUNT_A_PREFIX]	= NLA_POLICY_RANGE(NLA_U8, 1, 128),
	[MMB_CTCOUNT_A_SIZE]	= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy mmb_rule_policy[MMB_RULE_A_MAX + 1] = {
	[MMB_RULE_A_HANDLE]	= NLA_POLICY_MIN(NLA_U32, 1),
	[MMB_RULE_A_MATCHES]	= NLA_POLICY_NESTED_ARRAY(mmb_match_policy),
	[MMB_RULE_A_TARGETS]	= NLA_POLICY_NESTED_ARRAY(mmb_target_policy),
	[MMB_RULE_A_STATEFUL]	= { .type = NLA_FLAG },
	[MMB_RULE_A_PRIORITY]	= { .type = NLA_U32 },
	[MMB_RULE_A_CONN_PRIORITY] = { .type = NLA_U32 },
	[MMB_RULE_A_COMMENT]	= { .type = NLA_NUL_STRING, .len = MMB_COMMENT_MAX },
	[MMB_RULE_A_LIMIT]	= NLA_POLICY_NESTED(mmb_limit_policy),
	[MMB_RULE_A_CTCOUNT]	= NLA_POLICY_NESTED(mmb_ctcount_policy),
	[MMB_RULE_A_LOG]	= NLA_POLICY_NESTED(mmb_log_policy),
	[MMB_RULE_A_OFFLOAD]	= { .type = NLA_FLAG },
};

const struct nla_policy mmb_rule_cmd_policy[MMB_A_RULE + 1] = {
	[MMB_A_RULE]		= NLA_POLICY_NESTED(mmb_rule_policy),
};

static const struct nla_policy mmb_batch_op_policy[MMB_BATCH_A_MAX + 1] = {
	[MMB_BATCH_A_CMD]	= NLA_POLICY_RANGE(NLA_U8, MMB_CMD_DEV_ENABLE, MMB_CMD_SET),
	[MMB_BATCH_A_RULE]	= NLA_POLICY_NESTED(mmb_rule_policy),
	[MMB_BATCH_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[MMB_BATCH_A_SETTINGS]	= NLA_POLICY_NESTED(mmb_set_policy),
};

const struct nla_policy mmb_batch_policy[MMB_A_CHECK + 1] = {
	[MMB_A_OP]		= NLA_POLICY_NESTED(mmb_batch_op_policy),
	[MMB_A_CHECK]		= { .type = NLA_FLAG },
};

/*
 * The generic netlink core validates a request against its command's
 * policy before the handler runs, nested attributes included: each
 * NLA_POLICY_NESTED and NLA_POLICY_NESTED_ARRAY is followed down with its
 * own policy, strictly. The handlers then only index nested attributes
 * (the NULL policy), instead of validating every level once more for each
 * level above it. Every command that reaches these handlers has a policy
 * in mmb_genl_ops.
 */
int mmb_nla_nested(struct nlattr **tb, int maxtype, const struct nlattr *nla,
		   struct netlink_ext_ack *extack)
{
	return nla_parse_nested(tb, maxtype, nla, NULL, extack);
}

/* Where each part of a rule being added came from, for its errors. */
struct mmb_nl_where {
	const struct nlattr *m[MMB_MAX_MATCHES];	/* a match */
	const struct nlattr *mv[MMB_MAX_MATCHES];	/* its value */
	const struct nlattr *t[MMB_MAX_TARGETS];	/* a target */
	const struct nlattr *tf[MMB_MAX_TARGETS];	/* its field */
	const struct nlattr *tv[MMB_MAX_TARGETS];	/* its value */
	const struct nlattr *limit;			/* MMB_RULE_A_LIMIT */
	const struct nlattr *cc;			/* ct count */
};

/* A rule being added: its spec and where its parts came from. */
struct mmb_nl_rule {
	struct mmb_rule_spec spec;
	struct mmb_nl_where at;
	struct net *net;		/* of the request */
};

/* Point the extended ACK at what @err says is wrong. */
static void mmb_nl_rule_err(struct netlink_ext_ack *extack, const struct mmb_nl_where *at,
			    const struct mmb_rule_err *err)
{
	const struct nlattr *attr = NULL;

	switch (err->part) {
	case MMB_ERR_MATCH:
		attr = at->m[err->index];
		break;
	case MMB_ERR_MATCH_VALUE:
		attr = at->mv[err->index];
		break;
	case MMB_ERR_TARGET:
		attr = at->t[err->index];
		break;
	case MMB_ERR_TARGET_FIELD:
		attr = at->tf[err->index];
		break;
	case MMB_ERR_TARGET_VALUE:
		attr = at->tv[err->index];
		break;
	case MMB_ERR_LIMIT:
		attr = at->limit;
		break;
	case MMB_ERR_CTCOUNT:
		attr = at->cc;
		break;
	}
	mmb_nl_err_attr(extack, attr, err->msg, err->text);
}

/*
 * An "in" or "out" match: MMB_MATCH_A_IFNAME, the name (rule.c checks
 * it), or an older mmbctl's ifindex in a 4-byte value, taken as that
 * device's name.
 */
static int mmb_nl_parse_dev(struct mmb_match_spec *m, struct nlattr **tb,
			    const struct nlattr *attr, struct mmb_nl_rule *r,
			    unsigned int i, struct netlink_ext_ack *extack)
{
	const struct nlattr *v = tb[MMB_MATCH_A_VALUE];
	bool in = m->field == MMB_FIELD_IN;
	struct net_device *dev;

	m->vlen = MMB_IN_VLEN;
	if (tb[MMB_MATCH_A_PREFIX] || tb[MMB_MATCH_A_MASK]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_MATCH_A_PREFIX] ?: tb[MMB_MATCH_A_MASK],
				    "a device's match takes no prefix or mask");
		return -EINVAL;
	}
	if (tb[MMB_MATCH_A_IFNAME]) {
		if (v) {
			NL_SET_ERR_MSG_ATTR(extack, v,
					    "a device's match takes a name, not a value too");
			return -EINVAL;
		}
		r->at.mv[i] = tb[MMB_MATCH_A_IFNAME];
		strscpy((char *)m->value + 4, nla_data(tb[MMB_MATCH_A_IFNAME]), IFNAMSIZ);
		return 0;
	}
	if (!v || nla_len(v) != 4) {
		if (in)
			NL_SET_ERR_MSG_ATTR(extack, v ?: attr,
					    "\"in\" takes an interface name (MMB_MATCH_A_IFNAME)");
		else
			NL_SET_ERR_MSG_ATTR(extack, v ?: attr,
					    "\"out\" takes an interface name (MMB_MATCH_A_IFNAME)");
		return -EINVAL;
	}
	rcu_read_lock();
	dev = dev_get_by_index_rcu(r->net, be32_to_cpu(nla_get_be32(v)));
	if (dev)
		strscpy((char *)m->value + 4, dev->name, IFNAMSIZ);
	rcu_read_unlock();
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, v, "no device of this ifindex in this namespace");
		return -ENODEV;
	}
	return 0;
}

/*
 * A meta-mark's value (4 bytes, @value of @vlen) gets its mask after it,
 * from @mask (default all ones), as the rule keeps it (MMB_MARK_VLEN); a
 * mask is for meta-mark only, and not 0.
 */
static int mmb_nl_mark(u16 field, u8 *value, u8 *vlen, const struct nlattr *mask,
		       struct netlink_ext_ack *extack)
{
	if (field != MMB_FIELD_META_MARK) {
		if (!mask)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, mask, "a mask is for meta-mark only");
		return -EINVAL;
	}
	if (mask && !nla_get_u32(mask)) {
		NL_SET_ERR_MSG_ATTR(extack, mask,
				    "a meta-mark mask of 0 leaves no bit to match or set");
		return -EINVAL;
	}
	if (*vlen != 4)
		return 0;	/* rule.c refuses it, pointing at the value */
	put_unaligned_be32(mask ? be32_to_cpu(nla_get_be32(mask)) : U32_MAX, value + 4);
	*vlen = MMB_MARK_VLEN;
	return 0;
}

static int mmb_nl_parse_match(const struct nlattr *attr, struct mmb_nl_rule *r,
			      unsigned int i, struct netlink_ext_ack *extack)
{
	struct mmb_match_spec *m = &r->spec.m[i];
	struct nlattr *tb[MMB_MATCH_A_MAX + 1];
	const struct mmb_field_info *f;
	int err;

	err = mmb_nla_nested(tb, MMB_MATCH_A_MAX, attr, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_MATCH_A_FIELD))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	r->at.m[i] = attr;
	r->at.mv[i] = tb[MMB_MATCH_A_VALUE] ?: attr;
	m->field = nla_get_u16(tb[MMB_MATCH_A_FIELD]);
	f = mmb_field(m->field);
	m->op = tb[MMB_MATCH_A_OP] ? nla_get_u8(tb[MMB_MATCH_A_OP]) : MMB_OP_EQ;
	m->plen = tb[MMB_MATCH_A_PREFIX] ? nla_get_u8(tb[MMB_MATCH_A_PREFIX]) : f->bits;
	if (tb[MMB_MATCH_A_KIND]) {
		if (m->field != MMB_FIELD_TCP_OPT) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MMB_MATCH_A_KIND],
					    "an option kind is for tcp-opt only");
			return -EINVAL;
		}
		m->kind = nla_get_u8(tb[MMB_MATCH_A_KIND]);
	}
	if (mmb_field_is_dev(m->field))
		return mmb_nl_parse_dev(m, tb, attr, r, i, extack);
	if (tb[MMB_MATCH_A_IFNAME]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_MATCH_A_IFNAME],
				    "an interface name is for \"in\" and \"out\" only");
		return -EINVAL;
	}
	if (tb[MMB_MATCH_A_VALUE]) {
		m->vlen = nla_len(tb[MMB_MATCH_A_VALUE]);
		memcpy(m->value, nla_data(tb[MMB_MATCH_A_VALUE]), m->vlen);
	} else if (m->field != MMB_FIELD_ALL && f->hdr != MMB_HDR_TCPOPT) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "match has no value");
		return -EINVAL;
	}
	return mmb_nl_mark(m->field, m->value, &m->vlen, tb[MMB_MATCH_A_MASK], extack);
}

static int mmb_nl_parse_target(const struct nlattr *attr, struct mmb_nl_rule *r,
			       unsigned int i, struct netlink_ext_ack *extack)
{
	struct mmb_target_spec *t = &r->spec.t[i];
	struct nlattr *tb[MMB_TARGET_A_MAX + 1];
	int err;

	err = mmb_nla_nested(tb, MMB_TARGET_A_MAX, attr, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_TARGET_A_TYPE))
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	r->at.t[i] = attr;
	r->at.tf[i] = tb[MMB_TARGET_A_FIELD] ?: attr;
	r->at.tv[i] = tb[MMB_TARGET_A_VALUE] ?: attr;
	t->type = nla_get_u8(tb[MMB_TARGET_A_TYPE]);
	t->rate = tb[MMB_TARGET_A_RATE] ? nla_get_u32(tb[MMB_TARGET_A_RATE]) :
					  MMB_RATE_ALWAYS;
	if (tb[MMB_TARGET_A_REJECT]) {
		if (t->type != MMB_TARGET_REJECT) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MMB_TARGET_A_REJECT],
					    "only reject takes an answer");
			return -EINVAL;
		}
		t->reject = nla_get_u8(tb[MMB_TARGET_A_REJECT]);
		r->at.tv[i] = tb[MMB_TARGET_A_REJECT];	/* errors about it point there */
	}
	if (t->type == MMB_TARGET_REJECT && tb[MMB_TARGET_A_RATE]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_TARGET_A_RATE], "only drop takes a rate");
		return -EINVAL;
	}
	if (t->type != MMB_TARGET_MOD && t->type != MMB_TARGET_MAP &&
	    t->type != MMB_TARGET_SHUFFLE && t->type != MMB_TARGET_STRIP &&
	    t->type != MMB_TARGET_ADD) {
		if (!tb[MMB_TARGET_A_MASK])
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_TARGET_A_MASK], "a mask is for meta-mark only");
		return -EINVAL;
	}
	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_TARGET_A_FIELD))
		return -EINVAL;
	/* Optional: a shuffle's value (a port range), an added option's data. */
	if ((t->type == MMB_TARGET_MOD || t->type == MMB_TARGET_MAP) &&
	    NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_TARGET_A_VALUE))
		return -EINVAL;
	if (tb[MMB_TARGET_A_KIND])
		t->kind = nla_get_u8(tb[MMB_TARGET_A_KIND]);
	t->invert = nla_get_flag(tb[MMB_TARGET_A_INVERT]);
	t->field = nla_get_u16(tb[MMB_TARGET_A_FIELD]);
	if (tb[MMB_TARGET_A_VALUE]) {
		t->vlen = nla_len(tb[MMB_TARGET_A_VALUE]);
		memcpy(t->value, nla_data(tb[MMB_TARGET_A_VALUE]), t->vlen);
	}
	t->plen = tb[MMB_TARGET_A_PREFIX] ? nla_get_u8(tb[MMB_TARGET_A_PREFIX]) :
					    mmb_field(t->field)->bits;
	if (tb[MMB_TARGET_A_RATE]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_TARGET_A_RATE], "only drop takes a rate");
		return -EINVAL;
	}
	if (t->type != MMB_TARGET_MOD)
		return mmb_nl_mark(MMB_FIELD_ALL, t->value, &t->vlen, tb[MMB_TARGET_A_MASK],
				   extack);
	return mmb_nl_mark(t->field, t->value, &t->vlen, tb[MMB_TARGET_A_MASK], extack);
}

/*
 * What is wrong with comment @c of @len bytes: -EILSEQ if it is not UTF-8
 * (RFC
 * 3629: no overlong form, surrogate or code point over U+10FFFF: -j prints
 * it in JSON), -EINVAL if it holds a control character, C0, DEL or C1 (a
 * line of "list" is one line, and a terminal prints it), or 0.
 */
static int mmb_nl_comment_bad(const u8 *c, size_t len)
{
	size_t i, k, n;
	u32 cp, min;

	for (i = 0; i < len; i += n + 1) {
		cp = c[i];
		n = 0;
		if (cp < 0x80) {
			if (cp < 0x20 || cp == 0x7f)
				break;
			continue;
		}
		if ((cp & 0xe0) == 0xc0) {
			n = 1;
			min = 0x80;
		} else if ((cp & 0xf0) == 0xe0) {
			n = 2;
			min = 0x800;
		} else if ((cp & 0xf8) == 0xf0) {
			n = 3;
			min = 0x10000;
		} else {
			return -EILSEQ;
		}
		if (n >= len - i)
			return -EILSEQ;
		cp &= 0x3f >> n;
		for (k = 1; k <= n; k++) {
			if ((c[i + k] & 0xc0) != 0x80)
				return -EILSEQ;
			cp = cp << 6 | (c[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return -EILSEQ;
		if (cp <= 0x9f)
			break;
	}
	return i < len ? -EINVAL : 0;
}

/*
 * A rule's comment: 1 to MMB_COMMENT_MAX bytes (the policy) of text
 * (mmb_nl_comment_bad()), nothing but NULs after its first NUL (list
 * gives back what was sent).
 */
static int mmb_nl_parse_comment(const struct nlattr *attr, struct mmb_rule_spec *spec,
				struct netlink_ext_ack *extack)
{
	const char *c = nla_data(attr);
	size_t len = strnlen(c, nla_len(attr));
	int bad;

	spec->clen = 0;
	if (!len) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "a comment is 1 to 128 bytes");
		return -EINVAL;
	}
	/* The policy found a NUL; anything after it would be lost. */
	if (memchr_inv(c + len, 0, nla_len(attr) - len)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "a comment holds no NUL before its end");
		return -EINVAL;
	}
	bad = mmb_nl_comment_bad((const u8 *)c, len);
	if (bad == -EILSEQ) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "a comment is UTF-8 text");
		return -EINVAL;
	}
	if (bad) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a comment holds no control character (newline, tab, ...)");
		return -EINVAL;
	}
	memcpy(spec->comment, c, len);
	spec->comment[len] = '\0';
	spec->clen = len;
	return 0;
}

/*
 * MMB_RULE_A_OFFLOAD: the fast path for the connections of a stateful rule
 * that lets them pass (accept, or NAT and mods: no drop); a leaving rule is
 * refused by rule.c (docs/offload.md).
 */
static int mmb_nl_parse_offload(struct nlattr **tb, struct mmb_rule_spec *spec,
				struct netlink_ext_ack *extack)
{
	unsigned int i;

	spec->offload = nla_get_flag(tb[MMB_RULE_A_OFFLOAD]);
	if (!spec->offload)
		return 0;
	if (!spec->stateful) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_RULE_A_OFFLOAD],
				    "offload is for stateful rules: it applies to connections");
		return -EINVAL;
	}
	for (i = 0; i < spec->ntargets; i++)
		if (spec->t[i].type == MMB_TARGET_DROP || spec->t[i].type == MMB_TARGET_REJECT) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MMB_RULE_A_OFFLOAD],
					    "offload is for rules that let their connections pass (accept, NAT), not drop");
			return -EINVAL;
		}
	return 0;
}

static int mmb_nl_parse_rule(struct nlattr **tb, struct mmb_nl_rule *r,
			     struct netlink_ext_ack *extack)
{
	struct mmb_rule_spec *spec = &r->spec;
	const struct nlattr *a;
	int rem, err;

	nla_for_each_nested(a, tb[MMB_RULE_A_MATCHES], rem) {
		if (spec->nmatches == MMB_MAX_MATCHES) {
			NL_SET_ERR_MSG_ATTR(extack, a, "more than 32 matches");
			return -E2BIG;
		}
		err = mmb_nl_parse_match(a, r, spec->nmatches++, extack);
		if (err)
			return err;
	}
	/* The policy skips what follows a broken element; a rule must not. */
	if (rem > 0) {
		NL_SET_ERR_MSG_ATTR(extack, a, "match overruns the list of matches");
		return -EINVAL;
	}
	nla_for_each_nested(a, tb[MMB_RULE_A_TARGETS], rem) {
		if (spec->ntargets == MMB_MAX_TARGETS) {
			NL_SET_ERR_MSG_ATTR(extack, a, "more than 16 targets");
			return -E2BIG;
		}
		err = mmb_nl_parse_target(a, r, spec->ntargets++, extack);
		if (err)
			return err;
	}
	if (rem > 0) {
		NL_SET_ERR_MSG_ATTR(extack, a, "target overruns the list of targets");
		return -EINVAL;
	}
	return 0;
}

/* "ct count" (MMB_RULE_A_CTCOUNT, or none: @attr NULL), into r->spec.cc. */
static int mmb_nl_parse_ctcount(const struct nlattr *attr, struct mmb_nl_rule *r,
				struct netlink_ext_ack *extack)
{
	struct mmb_cc_spec *s = &r->spec.cc;
	struct nlattr *tb[MMB_CTCOUNT_A_MAX + 1];
	int err;

	memset(s, 0, sizeof(*s));
	r->at.cc = attr;
	if (!attr)
		return 0;
	err = mmb_nla_nested(tb, MMB_CTCOUNT_A_MAX, attr, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_CTCOUNT_A_LIMIT))
		return -EINVAL;
	if ((tb[MMB_CTCOUNT_A_PREFIX] || tb[MMB_CTCOUNT_A_SIZE]) && !tb[MMB_CTCOUNT_A_PER]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_CTCOUNT_A_PREFIX] ?: tb[MMB_CTCOUNT_A_SIZE],
				    "a prefix and a size are of a count per key (MMB_CTCOUNT_A_PER)");
		return -EINVAL;
	}
	if (nla_get_u32(tb[MMB_CTCOUNT_A_LIMIT]) > MMB_CTCOUNT_LIMIT_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_CTCOUNT_A_LIMIT],
				    "ct count takes at most 16777215 connections");
		return -EINVAL;
	}
	if (tb[MMB_CTCOUNT_A_SIZE] && nla_get_u32(tb[MMB_CTCOUNT_A_SIZE]) > MMB_CTCOUNT_SIZE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_CTCOUNT_A_SIZE],
				    "ct count size: 1 to 1048576 keys");
		return -EINVAL;
	}
	s->set = true;
	s->limit = nla_get_u32(tb[MMB_CTCOUNT_A_LIMIT]);
	s->over = nla_get_flag(tb[MMB_CTCOUNT_A_OVER]);
	if (tb[MMB_CTCOUNT_A_PER])
		s->per = nla_get_u16(tb[MMB_CTCOUNT_A_PER]);
	if (tb[MMB_CTCOUNT_A_PREFIX])
		s->plen = nla_get_u8(tb[MMB_CTCOUNT_A_PREFIX]);
	if (tb[MMB_CTCOUNT_A_SIZE])
		s->size = nla_get_u32(tb[MMB_CTCOUNT_A_SIZE]);
	return 0;
}

/* A rule's "ct count", as it was given. */
static int mmb_nl_put_ctcount(struct sk_buff *skb, const struct mmb_cc *cc)
{
	struct mmb_cc_spec s;
	struct nlattr *nest;

	if (!cc)
		return 0;
	mmb_cc_spec_of(cc, &s);
	nest = nla_nest_start(skb, MMB_RULE_A_CTCOUNT);
	if (!nest || nla_put_u32(skb, MMB_CTCOUNT_A_LIMIT, s.limit) ||
	    (s.over && nla_put_flag(skb, MMB_CTCOUNT_A_OVER)) ||
	    (s.per && (nla_put_u16(skb, MMB_CTCOUNT_A_PER, s.per) ||
		       nla_put_u32(skb, MMB_CTCOUNT_A_SIZE, s.size))) ||
	    (s.plen && nla_put_u8(skb, MMB_CTCOUNT_A_PREFIX, s.plen)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A new rule from the attributes of an add (@tb, of the nest @attr); the
 * handle comes with its transaction. r->spec.img holds its mask and key.
 */
static struct mmb_rule *mmb_nl_rule_new(const struct nlattr *attr, struct nlattr **tb,
					struct mmb_nl_rule *r, struct mmb_stats_pool *pool,
					struct netlink_ext_ack *extack)
{
	struct mmb_rule_err err;
	struct mmb_rule *rule;
	int ret;

	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_RULE_A_MATCHES) ||
	    NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_RULE_A_TARGETS))
		return ERR_PTR(-EINVAL);
	if (tb[MMB_RULE_A_HANDLE]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_RULE_A_HANDLE],
				    "handles are chosen by the kernel");
		return ERR_PTR(-EINVAL);
	}
	/* Only what is parsed is cleared: a batch parses 100k of these. */
	r->spec.nmatches = 0;
	r->spec.ntargets = 0;
	r->spec.clen = 0;
	r->spec.limit.rate = 0;
	r->at.limit = tb[MMB_RULE_A_LIMIT];
	if (tb[MMB_RULE_A_LIMIT]) {
		ret = mmb_limit_parse(tb[MMB_RULE_A_LIMIT], &r->spec.limit, extack);
		if (ret)
			return ERR_PTR(ret);
	}
	ret = mmb_nl_parse_ctcount(tb[MMB_RULE_A_CTCOUNT], r, extack);
	if (ret)
		return ERR_PTR(ret);
	r->spec.log = false;
	if (tb[MMB_RULE_A_LOG]) {
		ret = mmb_log_nl_parse(tb[MMB_RULE_A_LOG], &r->spec, extack);
		if (ret)
			return ERR_PTR(ret);
	}
	if (tb[MMB_RULE_A_COMMENT]) {
		ret = mmb_nl_parse_comment(tb[MMB_RULE_A_COMMENT], &r->spec, extack);
		if (ret)
			return ERR_PTR(ret);
	}
	r->spec.stateful = nla_get_flag(tb[MMB_RULE_A_STATEFUL]);
	r->spec.prio = tb[MMB_RULE_A_PRIORITY] ? nla_get_u32(tb[MMB_RULE_A_PRIORITY]) : 0;
	r->spec.conn_prio = tb[MMB_RULE_A_CONN_PRIORITY] ?
			    nla_get_u32(tb[MMB_RULE_A_CONN_PRIORITY]) : r->spec.prio;
	if (tb[MMB_RULE_A_CONN_PRIORITY] && !r->spec.stateful) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_RULE_A_CONN_PRIORITY],
				    "a connection priority is for stateful rules only");
		return ERR_PTR(-EINVAL);
	}
	ret = mmb_nl_parse_rule(tb, r, extack);
	if (ret)
		return ERR_PTR(ret);
	ret = mmb_nl_parse_offload(tb, &r->spec, extack);
	if (ret)
		return ERR_PTR(ret);
	err.msg = NULL;
	rule = mmb_rule_create(&r->spec, pool, &err);
	if (IS_ERR(rule) && err.msg)
		mmb_nl_rule_err(extack, &r->at, &err);
	return rule;
}

static int mmb_nl_rule_attrs(struct genl_info *info, struct nlattr **tb)
{
	if (GENL_REQ_ATTR_CHECK(info, MMB_A_RULE))
		return -EINVAL;
	return mmb_nla_nested(tb, MMB_RULE_A_MAX, info->attrs[MMB_A_RULE], info->extack);
}

/* Add the rule, in place, and answer with its handle. */
static int mmb_nl_rule_insert(struct mmb_net *mn, struct mmb_rule *rule,
			      const struct mmb_rule_image *img, struct sk_buff *reply,
			      struct nlattr *nest)
{
	struct mmb_txn txn;
	u32 handle;
	int err;

	err = mmb_txn_begin(&mn->rules, &txn, MMB_TXN_INPLACE);
	if (err)
		return err;
	err = mmb_txn_add(&txn, rule, img);
	/* Once published, the rule is the ruleset's: a del may free it. */
	handle = rule->handle;
	if (err) {
		mmb_txn_abort(&txn);
		return err;
	}
	mmb_txn_commit(&txn);
	mmb_test_added(mn, handle);
	nla_put_u32(reply, MMB_RULE_A_HANDLE, handle);
	nla_nest_end(reply, nest);
	return 0;
}

int mmb_nl_rule_add(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_net *mn = mmb_pernet(genl_info_net(info));
	struct nlattr *tb[MMB_RULE_A_MAX + 1];
	struct mmb_nl_rule *r;
	struct mmb_rule *rule;
	struct sk_buff *reply;
	struct nlattr *nest;
	void *hdr;
	int err;

	err = mmb_nl_rule_attrs(info, tb);
	if (err)
		return err;
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->net = genl_info_net(info);
	rule = mmb_nl_rule_new(info->attrs[MMB_A_RULE], tb, r, NULL, info->extack);
	if (IS_ERR(rule)) {
		err = PTR_ERR(rule);
		goto err_spec;
	}
	/* Everything that can fail after the rule is published, first. */
	err = -ENOMEM;
	reply = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!reply)
		goto err_rule;
	hdr = genlmsg_put_reply(reply, info, &mmb_genl_family, 0, MMB_CMD_RULE_ADD);
	nest = hdr ? nla_nest_start(reply, MMB_A_RULE) : NULL;
	if (!nest)
		goto err_reply;
	err = mmb_nl_rule_insert(mn, rule, &r->spec.img, reply, nest);
	if (err)
		goto err_reply;
	kfree(r);
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);

err_reply:
	nlmsg_free(reply);
err_rule:
	mmb_rule_free(rule);
err_spec:
	kfree(r);
	return err;
}

/*
 * The second half of committing @txn (published already), with no lock
 * held: the old rules freed, and the connections of the stateful rules it
 * ended end now.
 */
static void mmb_nl_txn_finish(struct mmb_net *mn, struct mmb_txn *txn)
{
	mmb_txn_finish(txn);
	mmb_test_finish(mn, txn->ended);
	if (txn->ended)
		mmb_conns_kick(&mn->conns);
}

/* Commit @txn; the connections of the stateful rules it ended end now. */
static void mmb_nl_txn_commit(struct mmb_net *mn, struct mmb_txn *txn)
{
	mmb_txn_publish(txn);
	mmb_nl_txn_finish(mn, txn);
}

/* Delete the rule of @attr (a handle) in @txn, or say there is none. */
static int mmb_nl_txn_del(struct mmb_txn *txn, const struct nlattr *attr,
			  struct netlink_ext_ack *extack)
{
	int err = mmb_txn_del(txn, nla_get_u32(attr));

	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(extack, attr, "no rule with this handle");
	return err;
}

int mmb_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_net *mn = mmb_pernet(genl_info_net(info));
	struct nlattr *tb[MMB_RULE_A_MAX + 1];
	struct mmb_txn txn;
	int err;

	err = mmb_nl_rule_attrs(info, tb);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[MMB_A_RULE], tb,
			      MMB_RULE_A_HANDLE))
		return -EINVAL;
	err = mmb_txn_begin(&mn->rules, &txn, MMB_TXN_INPLACE);
	if (err)
		return err;
	err = mmb_nl_txn_del(&txn, tb[MMB_RULE_A_HANDLE], info->extack);
	if (err) {
		mmb_txn_abort(&txn);
		return err;
	}
	mmb_nl_txn_commit(mn, &txn);
	return 0;
}

int mmb_nl_rule_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_net *mn = mmb_pernet(genl_info_net(info));
	struct mmb_txn txn;
	int err;

	err = mmb_txn_begin(&mn->rules, &txn, MMB_TXN_EMPTY);
	if (!err)
		mmb_nl_txn_commit(mn, &txn);
	return err;
}

/* What a batch applies after its rules: how many enable and set operations. */
struct mmb_nl_batch_late {
	unsigned int enables;
	unsigned int sets;
};

/*
 * One operation of a batch, in its transaction @txn. Enable and set are
 * only checked and counted in @late here; mmb_nl_batch_commit() applies
 * them.
 */
static int mmb_nl_batch_op(const struct nlattr *op, struct mmb_txn *txn,
			   struct mmb_nl_rule *r, struct mmb_stats_pool *pool,
			   struct mmb_nl_batch_late *late, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MMB_BATCH_A_MAX + 1], *rtb[MMB_RULE_A_MAX + 1];
	struct mmb_rule *rule;
	u8 cmd;
	int err;

	err = mmb_nla_nested(tb, MMB_BATCH_A_MAX, op, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, op, tb, MMB_BATCH_A_CMD))
		return -EINVAL;
	cmd = nla_get_u8(tb[MMB_BATCH_A_CMD]);
	switch (cmd) {
	case MMB_CMD_RULE_FLUSH:
		return mmb_txn_flush(txn);
	case MMB_CMD_DEV_ENABLE:
		if (NL_REQ_ATTR_CHECK(extack, op, tb, MMB_BATCH_A_IFNAME))
			return -EINVAL;
		late->enables++;
		return 0;
	case MMB_CMD_SET:
		if (NL_REQ_ATTR_CHECK(extack, op, tb, MMB_BATCH_A_SETTINGS))
			return -EINVAL;
		late->sets++;
		return mmb_nl_settings_apply(NULL, tb[MMB_BATCH_A_SETTINGS], extack);
	case MMB_CMD_RULE_ADD:
	case MMB_CMD_RULE_DEL:
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_BATCH_A_CMD],
				    "a batch holds add, del, flush, enable and set operations");
		return -EOPNOTSUPP;
	}
	if (NL_REQ_ATTR_CHECK(extack, op, tb, MMB_BATCH_A_RULE))
		return -EINVAL;
	err = mmb_nla_nested(rtb, MMB_RULE_A_MAX, tb[MMB_BATCH_A_RULE], extack);
	if (err)
		return err;
	if (cmd == MMB_CMD_RULE_DEL) {
		if (NL_REQ_ATTR_CHECK(extack, tb[MMB_BATCH_A_RULE], rtb, MMB_RULE_A_HANDLE))
			return -EINVAL;
		return mmb_nl_txn_del(txn, rtb[MMB_RULE_A_HANDLE], extack);
	}
	rule = mmb_nl_rule_new(tb[MMB_BATCH_A_RULE], rtb, r, pool, extack);
	if (IS_ERR(rule))
		return PTR_ERR(rule);
	err = mmb_txn_add(txn, rule, &r->spec.img);
	if (err)
		mmb_rule_free(rule);
	return err;
}

/*
 * The operation @op of a batch if its command is @cmd; its attributes in
 * @tb. False for an operation mmb_nl_batch_op() would refuse.
 */
static bool mmb_nl_batch_is(const struct nlattr *op, u8 cmd, struct nlattr **tb)
{
	if (nla_type(op) != MMB_A_OP ||
	    mmb_nla_nested(tb, MMB_BATCH_A_MAX, op, NULL) || !tb[MMB_BATCH_A_CMD])
		return false;
	return nla_get_u8(tb[MMB_BATCH_A_CMD]) == cmd;
}

/*
 * Under RTNL, plan each name or pattern the batch enables (@plan): those
 * enabled already, or given twice, once. On an error nothing stays
 * prepared.
 */
static int mmb_nl_batch_prepare(struct genl_info *info, struct mmb_dev_plan *plan)
{
	const struct nlattr *ops = genlmsg_data(info->genlhdr), *op;
	struct nlattr *tb[MMB_BATCH_A_MAX + 1];
	int rem, err;

	mmb_dev_plan_init(plan, genl_info_net(info));
	nla_for_each_attr(op, ops, genlmsg_len(info->genlhdr), rem) {
		if (!mmb_nl_batch_is(op, MMB_CMD_DEV_ENABLE, tb))
			continue;
		err = mmb_dev_plan_name(plan, nla_data(tb[MMB_BATCH_A_IFNAME]), true,
					info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, tb[MMB_BATCH_A_IFNAME]);
			mmb_dev_plan_abort(plan);
			return err;
		}
	}
	return 0;
}

/*
 * Commit a checked batch: find which rules it adds again (the step of the
 * commit that allocates), prepare the devices it enables, then publish
 * the rules, attach the devices and apply the settings, none of which can
 * fail. Names enabled already stay as they are; a name that no device has
 * yet is remembered, and its device attached as it appears. Under RTNL, only what
 * must be: the devices' steps, and publishing between them (a device
 * attached sees the new rules); the grace period and the walk of the
 * connections after it come once RTNL is released. A batch that is only
 * to be checked (@check) stops short of publishing and undoes the rest.
 */
static int mmb_nl_batch_commit(struct mmb_net *mn, struct mmb_txn *txn,
			       struct genl_info *info, const struct mmb_nl_batch_late *late,
			       bool check)
{
	const struct nlattr *ops = genlmsg_data(info->genlhdr), *op;
	struct nlattr *tb[MMB_BATCH_A_MAX + 1];
	struct mmb_dev_plan plan;
	int rem, err;

	if (check)	/* never published: building its tables again gains nothing */
		txn->rebuilt = true;
	err = mmb_txn_prepare(txn);
	if (err) {
		mmb_txn_abort(txn);
		return err;
	}
	if (late->enables) {
		rtnl_lock();
		err = mmb_nl_batch_prepare(info, &plan);
		if (err) {
			rtnl_unlock();
			mmb_txn_abort(txn);
			return err;
		}
	}
	if (check) {		/* everything that could fail did not: undo it all */
		if (late->enables) {
			mmb_dev_plan_abort(&plan);
			rtnl_unlock();
		}
		mmb_txn_abort(txn);
		return 0;
	}
	mmb_txn_publish(txn);
	if (late->enables) {
		mmb_dev_plan_commit(&plan);
		rtnl_unlock();
	}
	mmb_nl_txn_finish(mn, txn);
	if (!late->sets)
		return 0;
	nla_for_each_attr(op, ops, genlmsg_len(info->genlhdr), rem)
		if (mmb_nl_batch_is(op, MMB_CMD_SET, tb))
			mmb_nl_settings_apply(&mn->conns, tb[MMB_BATCH_A_SETTINGS], NULL);
	return 0;
}

int mmb_nl_rule_batch(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_net *mn = mmb_pernet(genl_info_net(info));
	const struct nlattr *ops = genlmsg_data(info->genlhdr), *op;
	struct nlattr *tb[MMB_BATCH_A_MAX + 1];
	struct mmb_nl_batch_late late = {};
	struct mmb_stats_pool pool = {};
	struct mmb_nl_rule *r;
	struct mmb_txn txn;
	int rem, len, err;

	if (GENL_REQ_ATTR_CHECK(info, MMB_A_OP))
		return -EINVAL;
	r = kmalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->net = genl_info_net(info);
	/* info->attrs keeps one MMB_A_OP; the message holds them all. */
	len = genlmsg_len(info->genlhdr);
	nla_for_each_attr(op, ops, len, rem)
		pool.want++;
	/*
	 * A batch that begins with a flush (mmbctl import's, a saved file
	 * applied again) starts from no rules: a copy of the current ones
	 * would be built only to be thrown away.
	 */
	err = mmb_txn_begin_batch(&mn->rules, &txn,
				  mmb_nl_batch_is(ops, MMB_CMD_RULE_FLUSH, tb) ?
				  MMB_TXN_EMPTY : MMB_TXN_COPY, pool.want);
	if (err)
		goto out;
	nla_for_each_attr(op, ops, len, rem) {
		if (nla_type(op) != MMB_A_OP)
			continue;
		err = mmb_nl_batch_op(op, &txn, r, &pool, &late, info->extack);
		if (err)
			break;
		cond_resched();
	}
	if (err)
		mmb_txn_abort(&txn);
	else
		err = mmb_nl_batch_commit(mn, &txn, info, &late,
					  nla_get_flag(info->attrs[MMB_A_CHECK]));
out:
	mmb_stats_pool_end(&pool);
	kfree(r);
	return err;
}

static int mmb_nl_put_value(struct sk_buff *skb, int type, const u8 *v,
			    unsigned int len)
{
	return len ? nla_put(skb, type, len, v) : 0;
}

/*
 * A match's or target's value (@len bytes at @v) as netlink carries it: a
 * meta-mark's as 4 bytes, its mask apart (@mtype) unless all ones.
 */
static int mmb_nl_put_fvalue(struct sk_buff *skb, unsigned int field, int type, int mtype,
			     const u8 *v, unsigned int len)
{
	u32 mask;

	if (field != MMB_FIELD_META_MARK || len != MMB_MARK_VLEN)
		return mmb_nl_put_value(skb, type, v, len);
	mask = get_unaligned_be32(v + 4);
	return nla_put(skb, type, 4, v) ||
	       (mask != U32_MAX && nla_put_be32(skb, mtype, cpu_to_be32(mask)));
}

static int mmb_nl_put_matches(struct sk_buff *skb, const struct mmb_rule *rule)
{
	const struct mmb_match *m;
	struct nlattr *list, *nest;
	const u8 *value;

	list = nla_nest_start(skb, MMB_RULE_A_MATCHES);
	if (!list)
		return -EMSGSIZE;
	for (m = rule->m, value = mmb_rule_values(rule); m < rule->m + rule->nmatches;
	     value += m->vlen, m++) {
		nest = nla_nest_start(skb, m - rule->m + 1);
		if (!nest ||
		    nla_put_u16(skb, MMB_MATCH_A_FIELD, m->field) ||
		    nla_put_u8(skb, MMB_MATCH_A_OP, m->op) ||
		    (mmb_field_is_dev(m->field) ?
		     nla_put_string(skb, MMB_MATCH_A_IFNAME, (const char *)value + 4) :
		     mmb_nl_put_fvalue(skb, m->field, MMB_MATCH_A_VALUE, MMB_MATCH_A_MASK,
				       value, m->vlen)) ||
		    (m->kind && nla_put_u8(skb, MMB_MATCH_A_KIND, m->kind)) ||
		    (m->plen != mmb_field(m->field)->bits &&
		     nla_put_u8(skb, MMB_MATCH_A_PREFIX, m->plen)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int mmb_nl_put_targets(struct sk_buff *skb, const struct mmb_rule *rule)
{
	struct nlattr *list, *nest;
	unsigned int i;

	list = nla_nest_start(skb, MMB_RULE_A_TARGETS);
	if (!list)
		return -EMSGSIZE;
	/* A verdict is a rule's only target, kept in its flags. */
	if (mmb_rule_verdict_only(rule)) {
		nest = nla_nest_start(skb, 1);
		if (!nest || nla_put_u8(skb, MMB_TARGET_A_TYPE, rule->accept ?
					MMB_TARGET_ACCEPT : rule->reject ?
					MMB_TARGET_REJECT : rule->drop ?
					MMB_TARGET_DROP : MMB_TARGET_COUNT) ||
		    (rule->reject > MMB_REJECT_DEFAULT + 1 &&
		     nla_put_u8(skb, MMB_TARGET_A_REJECT, rule->reject - 1)) ||
		    (rule->drop && rule->drop_rate != MMB_RATE_ALWAYS &&
		     nla_put_u32(skb, MMB_TARGET_A_RATE, rule->drop_rate)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	for (i = 0; i < rule->ntargets; i++) {
		const struct mmb_target *t = &mmb_rule_targets(rule)[i];

		nest = nla_nest_start(skb, i + 1);
		if (!nest || nla_put_u8(skb, MMB_TARGET_A_TYPE, t->type) ||
		    (t->kind && nla_put_u8(skb, MMB_TARGET_A_KIND, t->kind)) ||
		    (t->invert && nla_put_flag(skb, MMB_TARGET_A_INVERT)) ||
		    nla_put_u16(skb, MMB_TARGET_A_FIELD, t->field) ||
		    ((t->vlen || t->type == MMB_TARGET_MOD) &&
		     (t->field == MMB_FIELD_META_MARK ?
		      mmb_nl_put_fvalue(skb, t->field, MMB_TARGET_A_VALUE, MMB_TARGET_A_MASK,
					mmb_target_value(rule, t), t->vlen) :
		      nla_put(skb, MMB_TARGET_A_VALUE, t->vlen, mmb_target_value(rule, t)))) ||
		    (t->plen != mmb_field(t->field)->bits &&
		     nla_put_u8(skb, MMB_TARGET_A_PREFIX, t->plen)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int mmb_nl_rule_fill(struct sk_buff *skb, const struct mmb_rule *rule,
			    struct netlink_callback *cb, unsigned long gen)
{
	void *hdr = mmb_nl_dump_put(skb, cb, MMB_CMD_RULE_GET, gen);
	struct nlattr *nest;

	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, MMB_A_RULE);
	if (!nest ||
	    nla_put_u32(skb, MMB_RULE_A_HANDLE, rule->handle) ||
	    mmb_nl_put_matches(skb, rule) ||
	    mmb_nl_put_targets(skb, rule) ||
	    (rule->stateful && nla_put_flag(skb, MMB_RULE_A_STATEFUL)) ||
	    (rule->prio && nla_put_u32(skb, MMB_RULE_A_PRIORITY, rule->prio)) ||
	    (rule->conn_prio != rule->prio &&
	     nla_put_u32(skb, MMB_RULE_A_CONN_PRIORITY, rule->conn_prio)) ||
	    (rule->clen && nla_put_string(skb, MMB_RULE_A_COMMENT, mmb_rule_comment(rule))) ||
	    (rule->limit && mmb_limit_put(skb, rule->limit)) ||
	    mmb_nl_put_ctcount(skb, rule->cc) ||
	    (rule->log && mmb_log_nl_put(skb, rule->log)) ||
	    (rule->offload && nla_put_flag(skb, MMB_RULE_A_OFFLOAD)) ||
	    mmb_nl_put_stats(skb, MMB_RULE_A_STATS, rule->stats, NULL, rule)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int mmb_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mmb_nl_dump_ctx *ctx = (struct mmb_nl_dump_ctx *)cb->ctx;
	struct mmb_net *mn = mmb_pernet(sock_net(skb->sk));
	struct mmb_ruleset *rs;
	struct mmb_rule *rule;
	u32 handle;
	int err = 0;

	if (ctx->next == MMB_NL_DUMP_END)
		return 0;
	mmb_rules_lock(&mn->rules);
	rs = mmb_rules_locked(&mn->rules);
	mmb_nl_dump_gen(cb, mmb_ruleset_gen(rs));
	while (ctx->next <= U32_MAX) {
		handle = max_t(u64, ctx->next, 1);
		rule = mmb_ruleset_next(rs, &handle);
		if (!rule) {
			ctx->next = MMB_NL_DUMP_END;
			break;
		}
		err = mmb_nl_rule_fill(skb, rule, cb, mmb_ruleset_gen(rs));
		if (err)
			break;
		ctx->next = (u64)handle + 1;
	}
	mmb_rules_unlock(&mn->rules);
	/* A rule that an empty message cannot hold ends the dump with an error. */
	return skb->len ?: err;
}

/* Zero @rule's counters (mmb_stats_reset()): packets, bytes, options not added. */
static void mmb_nl_rule_reset_one(struct mmb_rule *rule)
{
	mmb_stats_reset(rule->stats);
	if (rule->opts)
		atomic64_set(mmb_rule_nofit(rule), 0);
	mmb_limit_reset(rule->limit);
}

int mmb_nl_rule_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_net *mn = mmb_pernet(genl_info_net(info));
	struct nlattr *tb[MMB_RULE_A_MAX + 1];
	struct mmb_ruleset *rs;
	struct mmb_rule *rule;
	u32 handle = 1, want = 0;
	int err;

	if (info->attrs[MMB_A_RULE]) {
		err = mmb_nla_nested(tb, MMB_RULE_A_MAX, info->attrs[MMB_A_RULE], info->extack);
		if (err)
			return err;
		if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[MMB_A_RULE], tb,
				      MMB_RULE_A_HANDLE))
			return -EINVAL;
		want = nla_get_u32(tb[MMB_RULE_A_HANDLE]);
		handle = want;
	}
	mmb_rules_lock(&mn->rules);
	rs = mmb_rules_locked(&mn->rules);
	err = 0;
	while ((rule = mmb_ruleset_next(rs, &handle))) {
		if (want && handle != want)
			break;
		mmb_nl_rule_reset_one(rule);
		if (want || handle == U32_MAX)
			break;
		handle++;
		cond_resched();
	}
	if (want && (!rule || handle != want)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MMB_RULE_A_HANDLE],
				    "no rule with this handle");
		err = -ENOENT;
	}
	mmb_rules_unlock(&mn->rules);
	return err;
}

/*
 * The fields of a table's @tmask, named by the == matches of a rule in it:
 * those whose bits the table's mask has, an address with the prefix the
 * table keeps of it (tuple merging may keep a shorter one, or none).
 */
static int mmb_nl_put_mask_fields(struct sk_buff *skb, const struct mmb_rule *rule,
				  const struct mmb_key *tmask)
{
	const struct mmb_match *m;
	struct nlattr *list, *nest;
	unsigned int j, n = 0;
	const u8 *value;

	list = nla_nest_start(skb, MMB_TABLE_A_FIELDS);
	if (!list)
		return -EMSGSIZE;
	for (m = rule->m, value = mmb_rule_values(rule); m < rule->m + rule->nmatches;
	     value += m->vlen, m++) {
		struct mmb_key fmask = {};
		unsigned int plen = 0, bits = 0;

		if (!mmb_match_mask(rule, m, value, &fmask))
			continue;
		for (j = 0; j < MMB_KEY_WORDS; j++) {
			bits += hweight64(fmask.w[j]);
			plen += hweight64(fmask.w[j] & tmask->w[j]);
		}
		if (!plen || (plen != bits && !mmb_field_is_addr(m->field)))
			continue;
		if (plen == bits)
			plen = m->plen;
		nest = nla_nest_start(skb, ++n);
		if (!nest || nla_put_u16(skb, MMB_MATCH_A_FIELD, m->field) ||
		    (plen != mmb_field(m->field)->bits &&
		     nla_put_u8(skb, MMB_MATCH_A_PREFIX, plen)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int mmb_nl_table_fill(struct sk_buff *skb, unsigned int index,
			     const struct mmb_table_info *info,
			     struct netlink_callback *cb, unsigned long gen)
{
	void *hdr = mmb_nl_dump_put(skb, cb, MMB_CMD_TABLE_GET, gen);
	struct nlattr *nest;

	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, MMB_A_TABLE);
	if (!nest ||
	    nla_put_u32(skb, MMB_TABLE_A_INDEX, index) ||
	    (info->first && mmb_nl_put_mask_fields(skb, info->first, &info->mask)) ||
	    nla_put_u32(skb, MMB_TABLE_A_ENTRIES, info->entries) ||
	    nla_put_u32(skb, MMB_TABLE_A_RULES, info->rules) ||
	    nla_put_u32(skb, MMB_TABLE_A_BUCKETS, info->buckets) ||
	    nla_put_u32(skb, MMB_TABLE_A_CHAIN_MAX, info->chain_max) ||
	    nla_put_u32(skb, MMB_TABLE_A_PRIORITY, info->prio) ||
	    nla_put_u64_64bit(skb, MMB_TABLE_A_HITS, info->hits, MMB_TABLE_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int mmb_nl_table_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mmb_nl_dump_ctx *ctx = (struct mmb_nl_dump_ctx *)cb->ctx;
	struct mmb_net *mn = mmb_pernet(sock_net(skb->sk));
	struct mmb_table_info info;
	struct mmb_ruleset *rs;
	int err = 0;

	if (ctx->next == MMB_NL_DUMP_END)
		return 0;
	mmb_rules_lock(&mn->rules);
	rs = mmb_rules_locked(&mn->rules);
	mmb_nl_dump_gen(cb, mmb_ruleset_gen(rs));
	for (;;) {
		if (mmb_ruleset_table(rs, ctx->next, &info)) {
			ctx->next = MMB_NL_DUMP_END;
			break;
		}
		err = mmb_nl_table_fill(skb, ctx->next, &info, cb, mmb_ruleset_gen(rs));
		if (err)
			break;
		ctx->next++;
	}
	mmb_rules_unlock(&mn->rules);
	return skb->len ?: err;
}
