// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the generic netlink family, spoken over a kernel netlink
 * socket as mmbctl speaks it. Each malformed request is refused with an
 * extended ACK that points at the attribute at fault, and changes nothing;
 * a batch applies all or nothing; and thousands of random corruptions of
 * valid requests never crash, and never leave a failed request half done.
 */
#include <linux/genetlink.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "../kmod/mmb.h"
#include "../kmod/test.h"
#include "nlt.h"
#include "util.h"

/* The rules of the test's namespace. */
static struct mmb_rules *nlt_owner(void)
{
	return &mmb_pernet(&init_net)->rules;
}

/* Its ruleset, as the datapath sees it. */
static struct mmb_ruleset *nlt_rules(void)
{
	return mmbt_rs(nlt_owner());
}

struct nlt_state {
	const struct mmb_ruleset *rs;
	unsigned int nrules;
	u32 next_handle;
};

static struct nlt_state nlt_state(void)
{
	struct mmb_rules *r = nlt_owner();
	struct nlt_state s;

	mmb_rules_lock(r);
	s.rs = mmb_rules_locked(r);
	s.nrules = mmb_ruleset_count(s.rs);
	s.next_handle = r->next_handle;
	mmb_rules_unlock(r);
	return s;
}

/* A request that failed must have changed nothing. */
static void nlt_expect_unchanged(struct kunit *test, const struct nlt_state *before,
				 const char *what)
{
	struct nlt_state now = nlt_state();

	KUNIT_EXPECT_PTR_EQ_MSG(test, now.rs, before->rs, "%s: ruleset replaced", what);
	KUNIT_EXPECT_EQ_MSG(test, now.nrules, before->nrules, "%s: rules", what);
	KUNIT_EXPECT_EQ_MSG(test, now.next_handle, before->next_handle, "%s: handles", what);
}

/* One match: field, then the value in the field's width. */
static unsigned int nlt_match(struct nlt *t, u16 idx, u16 field, u32 v)
{
	unsigned int nest = nlt_nest(t, idx), size = mmb_field_size(mmb_field(field)->bits);
	u8 val[4];
	int i;

	nlt_u16(t, MMB_MATCH_A_FIELD, field);
	for (i = size - 1; i >= 0; i--, v >>= 8)
		val[i] = v;
	nlt_put(t, MMB_MATCH_A_VALUE, val + 0, size);
	nlt_nest_end(t, nest);
	return nest;
}

/* A drop target, then the end of the rule nest at @rule. */
static void nlt_drop_end(struct nlt *t, unsigned int rule)
{
	unsigned int list = nlt_nest(t, MMB_RULE_A_TARGETS), nest = nlt_nest(t, 1);

	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_DROP);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_nest_end(t, rule);
}

/* A five-tuple UDP drop rule, in a nest of @type. */
static void nlt_five_tuple(struct nlt *t, u16 type, u32 saddr, u16 dport)
{
	unsigned int rule = nlt_nest(t, type), list;

	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nlt_match(t, 1, MMB_FIELD_IP_SADDR, saddr);
	nlt_match(t, 2, MMB_FIELD_IP_DADDR, 0x0a090001);
	nlt_match(t, 3, MMB_FIELD_IP_PROTO, IPPROTO_UDP);
	nlt_match(t, 4, MMB_FIELD_UDP_SPORT, 1000);
	nlt_match(t, 5, MMB_FIELD_UDP_DPORT, dport);
	nlt_nest_end(t, list);
	nlt_drop_end(t, rule);
}

/* A batch's add of a five-tuple rule. */
static void nlt_op_add(struct nlt *t, u32 saddr, u16 dport)
{
	unsigned int op = nlt_nest(t, MMB_A_OP);

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	nlt_five_tuple(t, MMB_BATCH_A_RULE, saddr, dport);
	nlt_nest_end(t, op);
}

/*
 * A batch's add of "tcp-dport @dport strip ! tcp-opt-mss add tcp-opt 253
 * 0xabcd mod tcp-opt 30 0x01": option targets, with kinds, a flag and values.
 */
static void nlt_op_add_opts(struct nlt *t, u16 dport)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), rule, list, nest;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_BATCH_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nlt_match(t, 1, MMB_FIELD_TCP_DPORT, dport);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_STRIP);
	nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT_MSS);
	nlt_put(t, MMB_TARGET_A_INVERT, NULL, 0);
	nlt_nest_end(t, nest);
	nest = nlt_nest(t, 2);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ADD);
	nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT);
	nlt_u8(t, MMB_TARGET_A_KIND, 253);
	nlt_put(t, MMB_TARGET_A_VALUE, "\xab\xcd", 2);
	nlt_nest_end(t, nest);
	nest = nlt_nest(t, 3);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_MOD);
	nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT);
	nlt_u8(t, MMB_TARGET_A_KIND, 30);
	nlt_put(t, MMB_TARGET_A_VALUE, "\x01", 1);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_nest_end(t, rule);
	nlt_nest_end(t, op);
}

/* A batch's del of rule @handle; returns the offset of its handle. */
static unsigned int nlt_op_del(struct nlt *t, u32 handle)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), rule, off;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_DEL);
	rule = nlt_nest(t, MMB_BATCH_A_RULE);
	off = nlt_u32(t, MMB_RULE_A_HANDLE, handle);
	nlt_nest_end(t, rule);
	nlt_nest_end(t, op);
	return off;
}

static void netlink_add_del_test(struct kunit *test)
{
	struct nlt t;
	struct nlt_state before;
	unsigned int hoff, rule;
	u32 h;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	before = nlt_state();

	nlt_begin(&t, t.family, MMB_CMD_RULE_ADD);
	nlt_five_tuple(&t, MMB_A_RULE, 0x0a010001, 2000);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	h = t.handle;
	KUNIT_EXPECT_EQ(test, h, before.next_handle);
	KUNIT_EXPECT_EQ(test, nlt_state().nrules, before.nrules + 1);
	KUNIT_EXPECT_NOT_NULL(test, mmb_ruleset_find(nlt_rules(), h));

	nlt_begin(&t, t.family, MMB_CMD_RULE_DEL);
	rule = nlt_nest(&t, MMB_A_RULE);
	hoff = nlt_u32(&t, MMB_RULE_A_HANDLE, h);
	nlt_nest_end(&t, rule);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlt_state().nrules, before.nrules);

	/* Again: no such rule, and the ACK names the handle. */
	before = nlt_state();
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ENOENT);
	KUNIT_EXPECT_EQ(test, t.offs, hoff);
	KUNIT_EXPECT_STREQ(test, t.msg, "no rule with this handle");
	nlt_expect_unchanged(test, &before, "del of a deleted rule");
	nlt_close(&t);
}

/* At the test point "added": a del from another CPU frees the rule at once. */
static void del_added(struct mmb_net *mn, u32 handle)
{
	struct mmb_txn txn;

	if (mmb_txn_begin(&mn->rules, &txn, MMB_TXN_INPLACE))
		return;
	if (mmb_txn_del(&txn, handle))
		mmb_txn_abort(&txn);
	else
		mmb_txn_commit(&txn);
	rcu_barrier();		/* freed (and, with init_on_free, zeroed) */
}

/*
 * An add's reply names the handle the rule got, even when the rule is gone
 * before the reply is written: once the lock is dropped, the rule belongs
 * to the ruleset, and a del or flush in parallel (the family has
 * parallel_ops) may free it.
 */
static void netlink_add_reply_test(struct kunit *test)
{
	struct nlt_state before;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	before = nlt_state();
	nlt_begin(&t, t.family, MMB_CMD_RULE_ADD);
	nlt_five_tuple(&t, MMB_A_RULE, 0x0a010001, 2000);
	mmb_test_points.added = del_added;
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	mmb_test_points.added = NULL;
	KUNIT_EXPECT_EQ(test, t.handle, before.next_handle);
	KUNIT_EXPECT_NULL(test, mmb_ruleset_find(nlt_rules(), before.next_handle));
	nlt_close(&t);
}

/*
 * Malformed rules. Each case builds an add request with one fault; the
 * ACK must carry the error, point at the attribute the builder marks (or,
 * for a missing attribute, name its type and the nest it is missing from),
 * and leave the rules as they were.
 */
enum nlt_fault {
	F_FIELD_RANGE,		/* field number past the last field */
	F_OP_RANGE,		/* operator past the last one */
	F_VALUE_LONG,		/* a 65-byte value */
	F_PREFIX_RANGE,		/* prefix length 129 */
	F_FIELD_SIZE,		/* a u16 attribute of 3 bytes */
	F_NOT_NESTED,		/* a match without NLA_F_NESTED */
	F_UNKNOWN_ATTR,		/* attribute type past MMB_MATCH_A_MAX */
	F_NO_FIELD,		/* a match without its field */
	F_HANDLE,		/* a handle in an add */
	F_VALUE_FIT,		/* two bytes of value for ip-ttl's one */
	F_VALUE_BITS,		/* 64 in ip-dscp's six bits */
	F_RATE,			/* drop rate 0 */
	F_MIXED_FAMILY,		/* ip-saddr with ip6-hop-limit */
	F_TOO_MANY,		/* 33 matches */
	F_NO_TARGETS,		/* no MMB_RULE_A_TARGETS at all */
	F_NO_MATCHES,		/* no MMB_RULE_A_MATCHES at all */
	F_EMPTY_TARGETS,	/* MMB_RULE_A_TARGETS without a target */
	F_TRUNCATED,		/* a nested attribute longer than its parent */
	F_TARGET_TYPE,		/* target type past the last */
	F_KIND_NOT_OPT,		/* an option kind on ip-ttl */
	F_MOD_STRUCTURAL,	/* mod ip-len: the packet's structure */
	F_OPT_KIND,		/* strip tcp-opt 1 (a NOP is padding) */
	F_STRIP_VALUE,		/* strip tcp-opt-mss with a value */
	F_ADD_SIZE,		/* add tcp-opt-timestamp with 3 bytes */
	F_INVERT_ADD,		/* add with the strip ! flag */
	F_IN_PREFIX,		/* in NAME with a prefix of 0 bits: would match any */
	F_IN_MASK,		/* in NAME with a mask */
	F_MAX
};

#define NLT_STRUCTURAL "ip-len describes the packet's structure and cannot be rewritten"

static const struct {
	int err;
	const char *msg;	/* NULL: the policy's own words */
	int miss_type;		/* 0: the ACK names the attribute itself */
} nlt_faults[F_MAX] = {
	[F_FIELD_RANGE]		= { -ERANGE },
	[F_OP_RANGE]		= { -ERANGE },
	[F_VALUE_LONG]		= { -ERANGE },
	[F_PREFIX_RANGE]	= { -ERANGE },
	[F_FIELD_SIZE]		= { -EINVAL },
	[F_NOT_NESTED]		= { -EINVAL },
	[F_UNKNOWN_ATTR]	= { -EINVAL },
	[F_NO_FIELD]		= { -EINVAL, NULL, MMB_MATCH_A_FIELD },
	[F_HANDLE]		= { -EINVAL, "handles are chosen by the kernel" },
	[F_VALUE_FIT]		= { -EINVAL, "value has the wrong size for its field" },
	[F_VALUE_BITS]		= { -ERANGE, "value does not fit in the field" },
	[F_RATE]		= { -ERANGE },
	[F_MIXED_FAMILY]	= { -EINVAL, "rule mixes IPv4 and IPv6 fields" },
	[F_TOO_MANY]		= { -E2BIG, "more than 32 matches" },
	[F_NO_TARGETS]		= { -EINVAL, NULL, MMB_RULE_A_TARGETS },
	[F_NO_MATCHES]		= { -EINVAL, NULL, MMB_RULE_A_MATCHES },
	[F_EMPTY_TARGETS]	= { -EINVAL, "a rule needs 1 to 16 targets" },
	[F_TRUNCATED]		= { -EINVAL, "match overruns the list of matches" },
	[F_TARGET_TYPE]		= { -ERANGE },
	[F_KIND_NOT_OPT]	= { -EINVAL, "an option kind is for tcp-opt only" },
	[F_MOD_STRUCTURAL]	= { -EINVAL, NLT_STRUCTURAL },
	[F_OPT_KIND]		= { -ERANGE },
	[F_STRIP_VALUE]		= { -EINVAL, "strip takes no value" },
	[F_ADD_SIZE]		= { -EINVAL, "value has the wrong size for this TCP option" },
	[F_INVERT_ADD]		= { -EINVAL, "only strip takes !" },
	[F_IN_PREFIX]		= { -EINVAL, "a device's match takes no prefix or mask" },
	[F_IN_MASK]		= { -EINVAL, "a device's match takes no prefix or mask" },
};

/* Build the add request of @fault; returns the offset the ACK must name. */
static int nlt_build_fault(struct nlt *t, enum nlt_fault fault)
{
	unsigned int rule, list, nest, bad = 0, i;
	u8 big[MMB_PAYLOAD_MAX + 1] = {};
	u8 ttl[2] = { 1, 0 };

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	if (fault == F_HANDLE)
		bad = nlt_u32(t, MMB_RULE_A_HANDLE, 7);
	if (fault == F_NO_MATCHES) {
		bad = rule;
		goto targets;
	}
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nlt_match(t, 1, MMB_FIELD_IP_SADDR, 0x0a000001);
	nest = t->len;
	switch (fault) {
	case F_FIELD_RANGE:
		nest = nlt_nest(t, 2);
		bad = nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_MAX + 1);
		break;
	case F_OP_RANGE:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_TTL);
		bad = nlt_u8(t, MMB_MATCH_A_OP, MMB_OP_MAX + 1);
		nlt_u8(t, MMB_MATCH_A_VALUE, 1);
		break;
	case F_VALUE_LONG:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_UDP_PAYLOAD);
		bad = nlt_put(t, MMB_MATCH_A_VALUE, big, sizeof(big));
		break;
	case F_PREFIX_RANGE:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_DADDR);
		nlt_u32(t, MMB_MATCH_A_VALUE, 0);
		bad = nlt_u8(t, MMB_MATCH_A_PREFIX, 129);
		break;
	case F_FIELD_SIZE:
		nest = nlt_nest(t, 2);
		bad = nlt_put(t, MMB_MATCH_A_FIELD, big, 3);
		break;
	case F_NOT_NESTED:
		nest = nlt_put(t, 2, NULL, 0);
		bad = nest;
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_TTL);
		nlt_u8(t, MMB_MATCH_A_VALUE, 1);
		break;
	case F_UNKNOWN_ATTR:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_TTL);
		nlt_u8(t, MMB_MATCH_A_VALUE, 1);
		bad = nlt_u8(t, MMB_MATCH_A_MAX + 1, 1);
		break;
	case F_NO_FIELD:
		nest = nlt_nest(t, 2);
		bad = nest;
		nlt_u8(t, MMB_MATCH_A_VALUE, 1);
		break;
	case F_VALUE_FIT:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_TTL);
		bad = nlt_put(t, MMB_MATCH_A_VALUE, ttl, 2);
		break;
	case F_VALUE_BITS:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_DSCP);
		bad = nlt_u8(t, MMB_MATCH_A_VALUE, 64);
		break;
	case F_MIXED_FAMILY:
		bad = nlt_match(t, 2, MMB_FIELD_IP6_HOP_LIMIT, 1);
		break;
	case F_TOO_MANY:
		for (i = 2; i <= MMB_MAX_MATCHES + 1; i++) {
			nest = nlt_match(t, i, MMB_FIELD_IP_TTL, 1);
			if (i == MMB_MAX_MATCHES + 1)
				bad = nest;
		}
		break;
	case F_TRUNCATED:
		nest = nlt_nest(t, 2);
		bad = nest;
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_TTL);
		break;
	case F_IN_PREFIX:
	case F_IN_MASK:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IN);
		nlt_u8(t, MMB_MATCH_A_OP, MMB_OP_NE);
		nlt_put(t, MMB_MATCH_A_IFNAME, "lan", 4);
		if (fault == F_IN_PREFIX)
			bad = nlt_u8(t, MMB_MATCH_A_PREFIX, 0);
		else
			bad = nlt_u32(t, MMB_MATCH_A_MASK, 1);
		break;
	case F_KIND_NOT_OPT:
		nest = nlt_nest(t, 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_TTL);
		nlt_u8(t, MMB_MATCH_A_VALUE, 1);
		bad = nlt_u8(t, MMB_MATCH_A_KIND, 2);
		break;
	default:
		break;
	}
	if (nest != t->len)
		nlt_nest_end(t, nest);
	if (fault == F_TRUNCATED)	/* claims 8 bytes more than it has */
		((struct nlattr *)(t->buf + nest))->nla_len += 8;
	nlt_nest_end(t, list);
targets:
	if (fault == F_NO_TARGETS) {
		bad = rule;
	} else if (fault == F_EMPTY_TARGETS) {
		bad = -1;	/* the rule as a whole: no attribute to name */
		nlt_nest_end(t, nlt_nest(t, MMB_RULE_A_TARGETS));
	} else {
		list = nlt_nest(t, MMB_RULE_A_TARGETS);
		nest = nlt_nest(t, 1);
		if (fault == F_TARGET_TYPE) {
			bad = nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_MAX + 1);
		} else if (fault == F_MOD_STRUCTURAL) {
			nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_MOD);
			bad = nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_IP_LEN);
			nlt_u16(t, MMB_TARGET_A_VALUE, 100);
		} else if (fault == F_OPT_KIND) {
			nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_STRIP);
			nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT);
			bad = nlt_u8(t, MMB_TARGET_A_KIND, 1);
		} else if (fault == F_STRIP_VALUE) {
			nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_STRIP);
			nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT_MSS);
			bad = nlt_u16(t, MMB_TARGET_A_VALUE, 1400);
		} else if (fault == F_ADD_SIZE) {
			nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ADD);
			nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT_TIMESTAMP);
			bad = nlt_put(t, MMB_TARGET_A_VALUE, "abc", 3);
		} else if (fault == F_INVERT_ADD) {
			bad = nest;	/* the target as a whole */
			nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ADD);
			nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT_SACKP);
			nlt_put(t, MMB_TARGET_A_INVERT, NULL, 0);
		} else {
			nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_DROP);
			if (fault == F_RATE)
				bad = nlt_u32(t, MMB_TARGET_A_RATE, 0);
		}
		nlt_nest_end(t, nest);
		nlt_nest_end(t, list);
	}
	nlt_nest_end(t, rule);
	return bad;
}

static void netlink_refusals_test(struct kunit *test)
{
	struct nlt_state before;
	struct nlt t;
	int f, bad;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	/* One rule in place, which no refusal may touch. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_ADD);
	nlt_five_tuple(&t, MMB_A_RULE, 0x0a010001, 2000);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	before = nlt_state();
	for (f = 0; f < F_MAX; f++) {
		bad = nlt_build_fault(&t, f);
		KUNIT_EXPECT_EQ_MSG(test, nlt_send(&t), nlt_faults[f].err,
				    "fault %d: \"%s\"", f, t.msg);
		if (nlt_faults[f].miss_type) {
			KUNIT_EXPECT_EQ_MSG(test, t.miss_type, nlt_faults[f].miss_type,
					    "fault %d", f);
			KUNIT_EXPECT_EQ_MSG(test, t.miss_nest, bad, "fault %d", f);
		} else if (bad >= 0) {
			KUNIT_EXPECT_EQ_MSG(test, t.offs, bad, "fault %d: \"%s\"", f, t.msg);
		}
		/* A missing attribute is named by type, without words. */
		if (nlt_faults[f].msg)
			KUNIT_EXPECT_STREQ_MSG(test, t.msg, nlt_faults[f].msg, "fault %d", f);
		else if (!nlt_faults[f].miss_type)
			KUNIT_EXPECT_NE_MSG(test, t.msg[0], 0, "fault %d: no message", f);
		nlt_expect_unchanged(test, &before, "refused add");
	}
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

/* Batches: one faulty operation anywhere, and none of them applies. */
static void netlink_batch_test(struct kunit *test)
{
	static const struct {
		u8 cmd;
		int err;
	} bad_cmds[] = {
		{ MMB_CMD_CONN_NEW, -ERANGE },
		{ MMB_CMD_RULE_GET, -EOPNOTSUPP },
	};
	unsigned int op, hoff, i;
	struct nlt_state before;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	before = nlt_state();
	/* add, add, del of a handle that does not exist */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlt_op_add(&t, 0x0a010001, 2000);
	nlt_op_add(&t, 0x0a010002, 2000);
	hoff = nlt_op_del(&t, before.next_handle + 5);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ENOENT);
	KUNIT_EXPECT_EQ(test, t.offs, hoff);
	nlt_expect_unchanged(test, &before, "batch with a bad del");

	/* add, add, del of the first add: one rule, handles used up by two. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlt_op_add(&t, 0x0a010001, 2000);
	nlt_op_add(&t, 0x0a010002, 2000);
	nlt_op_del(&t, before.next_handle);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlt_state().nrules, 1);
	KUNIT_EXPECT_EQ(test, nlt_state().next_handle, before.next_handle + 2);
	KUNIT_EXPECT_NULL(test, mmb_ruleset_find(nlt_rules(), before.next_handle));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ruleset_find(nlt_rules(), before.next_handle + 1));

	/*
	 * A batch op with a command out of range is refused by the policy;
	 * one in range that a batch does not hold, by the handler.
	 */
	before = nlt_state();
	for (i = 0; i < ARRAY_SIZE(bad_cmds); i++) {
		nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
		op = nlt_nest(&t, MMB_A_OP);
		nlt_u8(&t, MMB_BATCH_A_CMD, MMB_CMD_RULE_FLUSH);
		nlt_nest_end(&t, op);
		op = nlt_nest(&t, MMB_A_OP);
		hoff = nlt_u8(&t, MMB_BATCH_A_CMD, bad_cmds[i].cmd);
		nlt_nest_end(&t, op);
		KUNIT_EXPECT_EQ_MSG(test, nlt_send(&t), bad_cmds[i].err, "command %u",
				    bad_cmds[i].cmd);
		KUNIT_EXPECT_EQ(test, t.offs, hoff);
		nlt_expect_unchanged(test, &before, "batch with a command it does not hold");
	}
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

/* A transaction commits in the middle of a dump: one more rule. */
/* @n five-tuple drop rules, sources from @saddr up, in batches of ten. */
static void nlt_add_rules(struct nlt *t, unsigned int n, u32 saddr)
{
	unsigned int i, j;

	for (i = 0; i < n; i += 10) {
		nlt_begin(t, t->family, MMB_CMD_RULE_BATCH);
		for (j = i; j < i + 10 && j < n; j++)
			nlt_op_add(t, saddr + j, 2000);
		KUNIT_ASSERT_EQ(t->test, nlt_send(t), 0);
	}
}

static void nlt_commit_one(struct nlt *t)
{
	nlt_begin(t, t->family, MMB_CMD_RULE_BATCH);
	nlt_op_add(t, 0x0a7f0001, 7);
	KUNIT_EXPECT_EQ(t->test, nlt_send(t), 0);
}

/* One rule per mask: a source prefix of @plen bits, and @extra more fields. */
/*
 * Add a rule on the fields of @set (bit i: field i of ten exact IPv4 and
 * UDP fields). Rules on different sets of three have masks of which none
 * is within another: each gets a table of its own.
 */
static void nlt_op_add_fields(struct nlt *t, unsigned int set)
{
	static const u16 fields[] = {
		MMB_FIELD_IP_DSCP, MMB_FIELD_IP_ECN, MMB_FIELD_IP_LEN, MMB_FIELD_IP_ID,
		MMB_FIELD_IP_TTL, MMB_FIELD_IP_CHECKSUM, MMB_FIELD_UDP_SPORT,
		MMB_FIELD_UDP_DPORT, MMB_FIELD_UDP_LEN, MMB_FIELD_UDP_CHECKSUM,
	};
	unsigned int op = nlt_nest(t, MMB_A_OP), rule, list, i, idx = 1;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_BATCH_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (set & BIT(i))
			nlt_match(t, idx++, fields[i], 1);
	nlt_nest_end(t, list);
	nlt_drop_end(t, rule);
	nlt_nest_end(t, op);
}

/*
 * A dump takes several calls of the kernel, each resuming where the last
 * stopped; a transaction between two of them must show as NLM_F_DUMP_INTR
 * (mmbctl then dumps again), or a listing could be half of one ruleset and
 * half of the next. Rules: 300 of them, several skbs; tables: 210 masks.
 */
static void netlink_dump_consistent_test(struct kunit *test)
{
	struct nlt t, *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	unsigned int i, n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	nlt_open(test, &t);
	nlt_open(test, u);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	nlt_add_rules(&t, 300, 0x0a010000);
	KUNIT_EXPECT_FALSE(test, nlt_dump(&t, MMB_CMD_RULE_GET, NULL, NULL, &n));
	KUNIT_EXPECT_EQ(test, n, 300);
	KUNIT_EXPECT_TRUE(test, nlt_dump(&t, MMB_CMD_RULE_GET, nlt_commit_one, u, &n));
	KUNIT_EXPECT_FALSE(test, nlt_dump(&t, MMB_CMD_RULE_GET, NULL, NULL, &n));
	KUNIT_EXPECT_EQ(test, n, 301);

	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	/*
	 * Every set of four of ten fields: 210 tables, more than the first
	 * part of a dump holds, so that a change after it is spanned.
	 */
	for (i = 0, n = 0; i < BIT(10); i++) {
		if (hweight32(i) != 4)
			continue;
		if (!(n++ % 8))
			nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
		nlt_op_add_fields(&t, i);
		if (!(n % 8))
			KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	}
	if (n % 8)
		KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_FALSE(test, nlt_dump(&t, MMB_CMD_TABLE_GET, NULL, NULL, &n));
	KUNIT_EXPECT_EQ(test, n, 210);
	KUNIT_EXPECT_TRUE(test, nlt_dump(&t, MMB_CMD_TABLE_GET, nlt_commit_one, u, &n));
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(u);
	nlt_close(&t);
}

static void nlt_flush_between(struct nlt *t)
{
	KUNIT_EXPECT_EQ(t->test, nlt_flush(t), 0);
}

/*
 * A dump whose later parts find nothing left to send still says that it
 * spanned a change: its end is flagged, not only the messages of another
 * generation (there are none). One that had sent everything before the
 * change is not.
 */
static void netlink_dump_end_flagged_test(struct kunit *test)
{
	struct nlt t, *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	nlt_open(test, &t);
	nlt_open(test, u);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	nlt_add_rules(&t, 300, 0x0a010000);
	KUNIT_EXPECT_TRUE(test, nlt_dump(&t, MMB_CMD_RULE_GET, nlt_flush_between, u, &n));
	KUNIT_EXPECT_LT(test, n, 300);
	/*
	 * Two parts (36 of these rules fill a part of 8 KiB): the first read
	 * takes the first, and the kernel makes the second (the last rules)
	 * as it returns; the change comes after it, before the end is made:
	 * the listing is whole all the same.
	 */
	nlt_add_rules(&t, 60, 0x0a020000);
	KUNIT_EXPECT_FALSE(test, nlt_dump(&t, MMB_CMD_RULE_GET, nlt_flush_between, u, &n));
	KUNIT_EXPECT_EQ(test, n, 60);
	nlt_close(u);
	nlt_close(&t);
}

/*
 * The largest rule (32 payload matches of 64 bytes, 16 option targets of
 * 38 bytes, a comment of 128) does not fit the first skb of a socket that
 * has read nothing: its dump ends with -EMSGSIZE, not as if there were no
 * rule.
 */
static void netlink_dump_big_rule_test(struct kunit *test)
{
	struct nlt t, *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	unsigned int op, rule, list, nest, i, n = 0;
	struct nlmsghdr *nlh;
	char cmt[MMB_COMMENT_MAX + 1];
	bool done = false;
	u8 val[64];
	int rem, err = 0;

	KUNIT_ASSERT_NOT_NULL(test, u);
	memset(val, 0x5a, sizeof(val));
	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	op = nlt_nest(&t, MMB_A_OP);
	nlt_u8(&t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	rule = nlt_nest(&t, MMB_BATCH_A_RULE);
	list = nlt_nest(&t, MMB_RULE_A_MATCHES);
	for (i = 0; i < MMB_MAX_MATCHES; i++) {
		nest = nlt_nest(&t, i + 1);
		nlt_u16(&t, MMB_MATCH_A_FIELD, MMB_FIELD_TCP_PAYLOAD);
		val[0] = i;
		nlt_put(&t, MMB_MATCH_A_VALUE, val, sizeof(val));
		nlt_nest_end(&t, nest);
	}
	nlt_nest_end(&t, list);
	list = nlt_nest(&t, MMB_RULE_A_TARGETS);
	for (i = 0; i < MMB_MAX_TARGETS; i++) {
		nest = nlt_nest(&t, i + 1);
		nlt_u8(&t, MMB_TARGET_A_TYPE, MMB_TARGET_ADD);
		nlt_u16(&t, MMB_TARGET_A_FIELD, MMB_FIELD_TCP_OPT);
		nlt_u8(&t, MMB_TARGET_A_KIND, 240 + i);
		nlt_put(&t, MMB_TARGET_A_VALUE, val, MMB_OPT_DATA_MAX);
		nlt_nest_end(&t, nest);
	}
	nlt_nest_end(&t, list);
	memset(cmt, 'c', MMB_COMMENT_MAX);
	cmt[MMB_COMMENT_MAX] = 0;
	nlt_put(&t, MMB_RULE_A_COMMENT, cmt, sizeof(cmt));
	nlt_nest_end(&t, rule);
	nlt_nest_end(&t, op);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);

	nlt_open_bare(test, u, t.family);
	nlt_begin(u, u->family, MMB_CMD_RULE_GET);
	nlt_hdr(u)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlt_xmit(u);
	while (!done) {
		rem = nlt_rx(u);
		KUNIT_ASSERT_GT(test, rem, 0);
		for (nlh = (void *)u->rx; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR) {
				err = *(int *)nlmsg_data(nlh);
				done = true;
				break;
			}
			n++;
		}
	}
	/* The rule, or an error: never an empty list that looks whole. */
	KUNIT_EXPECT_TRUE(test, n == 1 || err == -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(u);
	nlt_close(&t);
}

/*
 * A rule keeps no target when it accepts or drops (its only target then);
 * a dump gives its targets back all the same, in the order they were
 * given. Each case: a rule of "tcp-dport 80" and up to three targets, a type
 * and a field (mod of tcp-sport to 443, strip, add of option 253 with one
 * byte) or a rate (drop).
 */
struct nlt_tg {
	u8 type;
	u16 field;
	u32 rate;
};

struct nlt_tgs {
	unsigned int n;
	struct nlt_tg tg[3];
};

static void nlt_add_targets(struct nlt *t, const struct nlt_tgs *w)
{
	unsigned int rule, list, nest, i;

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nlt_match(t, 1, MMB_FIELD_TCP_DPORT, 80);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	for (i = 0; i < w->n; i++) {
		const struct nlt_tg *g = &w->tg[i];

		nest = nlt_nest(t, i + 1);
		nlt_u8(t, MMB_TARGET_A_TYPE, g->type);
		if (g->rate)
			nlt_u32(t, MMB_TARGET_A_RATE, g->rate);
		if (g->field)
			nlt_u16(t, MMB_TARGET_A_FIELD, g->field);
		if (g->field == MMB_FIELD_TCP_OPT)
			nlt_u8(t, MMB_TARGET_A_KIND, 253);
		if (g->type == MMB_TARGET_ADD)
			nlt_put(t, MMB_TARGET_A_VALUE, "\x05", 1);
		if (g->type == MMB_TARGET_MOD)
			nlt_put(t, MMB_TARGET_A_VALUE, "\x01\xbb", 2);
		nlt_nest_end(t, nest);
	}
	nlt_nest_end(t, list);
	nlt_nest_end(t, rule);
}

static void nlt_targets_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *rule, *list, *tg, *a;
	struct nlt_tgs *got = arg;
	int rem;

	rule = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_RULE);
	KUNIT_ASSERT_NOT_NULL(t->test, rule);
	list = nla_find_nested(rule, MMB_RULE_A_TARGETS);
	KUNIT_ASSERT_NOT_NULL(t->test, list);
	nla_for_each_nested(tg, list, rem) {
		struct nlt_tg *g = &got->tg[got->n];

		if (got->n++ == ARRAY_SIZE(got->tg))
			return;
		a = nla_find_nested(tg, MMB_TARGET_A_TYPE);
		g->type = a ? nla_get_u8(a) : 0xff;
		a = nla_find_nested(tg, MMB_TARGET_A_FIELD);
		g->field = a ? nla_get_u16(a) : 0;
		a = nla_find_nested(tg, MMB_TARGET_A_RATE);
		g->rate = a ? nla_get_u32(a) : 0;
	}
}

static void netlink_dump_targets_test(struct kunit *test)
{
	static const struct nlt_tgs cases[] = {
		{ 1, { { MMB_TARGET_DROP } } },
		{ 1, { { MMB_TARGET_ACCEPT } } },
		{ 1, { { MMB_TARGET_DROP, 0, 250000 } } },
		{ 1, { { MMB_TARGET_MOD, MMB_FIELD_TCP_SPORT } } },
		{ 3, { { MMB_TARGET_STRIP, MMB_FIELD_TCP_OPT_MSS },
		       { MMB_TARGET_ADD, MMB_FIELD_TCP_OPT },
		       { MMB_TARGET_MOD, MMB_FIELD_TCP_SPORT } } },
	};
	struct mmb_rule *rule;
	struct nlt_tgs got;
	unsigned int i;
	struct nlt t;
	bool verdict;

	nlt_open(test, &t);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
		nlt_add_targets(&t, &cases[i]);
		KUNIT_ASSERT_EQ_MSG(test, nlt_send(&t), 0, "case %u", i);
		rule = mmb_ruleset_find(nlt_rules(), t.handle);
		KUNIT_ASSERT_NOT_NULL(test, rule);
		/* A verdict, always a rule's one target, is in its flags only. */
		verdict = cases[i].tg[0].type == MMB_TARGET_DROP ||
			  cases[i].tg[0].type == MMB_TARGET_ACCEPT;
		KUNIT_EXPECT_EQ_MSG(test, rule->ntargets, verdict ? 0 : cases[i].n, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, (bool)rule->drop,
				    cases[i].tg[0].type == MMB_TARGET_DROP, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, (bool)rule->accept,
				    cases[i].tg[0].type == MMB_TARGET_ACCEPT, "case %u", i);
		memset(&got, 0, sizeof(got));
		KUNIT_EXPECT_EQ(test, nlt_dump_each(&t, MMB_CMD_RULE_GET, nlt_targets_cb, &got), 1);
		KUNIT_EXPECT_EQ_MSG(test, got.n, cases[i].n, "case %u", i);
		KUNIT_EXPECT_MEMEQ_MSG(test, got.tg, cases[i].tg, sizeof(got.tg), "case %u", i);
	}
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

/*
 * Random corruptions of valid batches: one attribute left out (its nests
 * shortened to match), its length, type or nested flag changed, a byte of
 * it set at random, or the message cut short. Whatever comes back, the
 * kernel must not crash; a refused batch changes nothing; what is accepted
 * leaves the rules consistent with their tables.
 */
#define NFUZZ 4000

/* Remove attribute @k of the request and shorten the nests around it. */
static void nlt_drop_attr(struct nlt *t, unsigned int k)
{
	unsigned int off = t->attr[k];
	unsigned int size = NLA_ALIGN(((struct nlattr *)(t->buf + off))->nla_len);
	int p;

	memmove(t->buf + off, t->buf + off + size, t->len - off - size);
	t->len -= size;
	for (p = t->parent[k]; p >= 0; p = t->parent[p])
		((struct nlattr *)(t->buf + t->attr[p]))->nla_len -= size;
}

static void nlt_corrupt(struct nlt *t, struct rnd_state *rs)
{
	u32 r = prandom_u32_state(rs);
	struct nlattr *a = (struct nlattr *)(t->buf + t->attr[r % t->nattrs]);
	unsigned int len = a->nla_len;

	switch (r >> 16 & 15) {
	case 0:		/* a length, about right or anything */
		a->nla_len = r & 0x100 ? len + (int)(r >> 24 & 15) - 8 : r >> 20;
		break;
	case 1:		/* a type, keeping the nested flag */
	case 2:
		a->nla_type = (a->nla_type & NLA_F_NESTED) | (r >> 24 & 7);
		break;
	case 3:		/* the nested flag */
		a->nla_type ^= NLA_F_NESTED;
		break;
	case 4:		/* a byte of its payload */
	case 5:
		if (len > NLA_HDRLEN)
			((u8 *)a)[NLA_HDRLEN + (r >> 24) % (len - NLA_HDRLEN)] = r >> 8;
		break;
	case 6:		/* the message cut short, inside this attribute */
		t->len = (u8 *)a - t->buf + (r >> 24) % len;
		break;
	case 7:		/* a byte anywhere */
		t->buf[NLMSG_HDRLEN + GENL_HDRLEN +
		       (r >> 8) % (t->len - NLMSG_HDRLEN - GENL_HDRLEN)] = r >> 24;
		break;
	default:	/* the attribute left out, its nests still well formed */
		nlt_drop_attr(t, r % t->nattrs);
		break;
	}
}

static void netlink_fuzz_test(struct kunit *test)
{
	unsigned int ok = 0, refused = 0, n, i;
	struct mmb_table_info info;
	struct nlt_state before;
	struct mmb_ruleset *rs;
	struct rnd_state rnds;
	struct nlt t;

	nlt_open(test, &t);
	/* The rule with option targets, as it is, is accepted. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlt_op_add_opts(&t, 80);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	prandom_seed_state(&rnds, 42);
	for (n = 0; n < NFUZZ; n++) {
		unsigned int nops = 1 + prandom_u32_state(&rnds) % 3;

		if (n % 64 == 0)
			KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
		before = nlt_state();
		nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
		for (i = 0; i < nops; i++) {
			if (n % 2)	/* TCP option targets: kinds, a flag, data */
				nlt_op_add_opts(&t, prandom_u32_state(&rnds));
			else
				nlt_op_add(&t, prandom_u32_state(&rnds),
					   prandom_u32_state(&rnds));
		}
		nlt_corrupt(&t, &rnds);
		if (nlt_send(&t)) {
			refused++;
			nlt_expect_unchanged(test, &before, "refused corrupt batch");
		} else {
			ok++;
		}
	}
	/* What was accepted is consistent: every rule sits in a table. */
	mmb_rules_lock(nlt_owner());
	rs = mmb_rules_locked(nlt_owner());
	n = 0;
	for (i = 0; !mmb_ruleset_table(rs, i, &info); i++)
		n += info.rules;
	KUNIT_EXPECT_EQ(test, n, mmb_ruleset_count(rs));
	mmb_rules_unlock(nlt_owner());
	kunit_info(test, "%u corrupt batches refused, %u accepted", refused, ok);
	/* Both outcomes happen: corruptions of values and padding pass. */
	KUNIT_EXPECT_GT(test, refused, NFUZZ / 4);
	KUNIT_EXPECT_GT(test, ok, NFUZZ / 20);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case mmb_netlink_cases[] = {
	KUNIT_CASE(netlink_add_del_test),
	KUNIT_CASE(netlink_add_reply_test),
	KUNIT_CASE(netlink_refusals_test),
	KUNIT_CASE(netlink_batch_test),
	KUNIT_CASE(netlink_dump_consistent_test),
	KUNIT_CASE(netlink_dump_end_flagged_test),
	KUNIT_CASE(netlink_dump_big_rule_test),
	KUNIT_CASE(netlink_dump_targets_test),
	KUNIT_CASE(netlink_fuzz_test),
	{}
};

static struct kunit_suite mmb_netlink_suite = {
	.name = "mmb-netlink",
	.test_cases = mmb_netlink_cases,
};

kunit_test_suites(&mmb_netlink_suite);
