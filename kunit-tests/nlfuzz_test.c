// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: random generic netlink messages to every command of the
 * family, in a namespace of their own. Attributes of any type (known ones
 * mostly), lengths, values and nesting at random, repeated ones, messages
 * cut short, dumps asked of commands that have none. Each message gets an
 * answer (an error, an acknowledgment or a dump) and nothing else: no
 * splat, no leak. A refused one changes nothing: the same ruleset, rule
 * count, next handle, enabled devices, connection settings and count; nor
 * does a trace (of random bytes, or of random field values), answered or
 * not. What was
 * accepted is consistent: every rule sits in a table. At the end the
 * namespace, with whatever it holds, is deleted.
 *
 * mmb_kunit.fuzz_messages sets how many (mmb_kunit.fuzz_nl_seed, the seed).
 */
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/ruleset.h"
#include "nlt.h"
#include "util.h"

static unsigned int fuzz_messages = 20000;
module_param(fuzz_messages, uint, 0444);
MODULE_PARM_DESC(fuzz_messages, "netlink messages mmb-nlfuzz sends");

static unsigned int fuzz_nl_seed = 1;
module_param(fuzz_nl_seed, uint, 0444);
MODULE_PARM_DESC(fuzz_nl_seed, "seed of mmb-nlfuzz");

#define NF_RX	32768

struct nf {
	struct nlt t;
	struct rnd_state rs;
	struct net *net;
	struct net_device *dev;
	u8 *rx;
	unsigned int acked, refused, dumps, unanswered, traced;
};

/* What a refused message must not have changed. */
struct nf_state {
	const struct mmb_ruleset *rs;
	unsigned int nrules;
	u32 next_handle;
	unsigned long dev_gen;
	u32 max;
	bool tcp_loose;
	u32 timeouts[__MMB_CONN_STATE_MAX];
	int conns;
};

static void nf_state(struct nf *f, struct nf_state *s)
{
	struct mmb_net *mn = mmb_pernet(f->net);

	mmb_rules_lock(&mn->rules);
	s->rs = mmb_rules_locked(&mn->rules);
	s->nrules = mmb_ruleset_count(s->rs);
	s->next_handle = mn->rules.next_handle;
	mmb_rules_unlock(&mn->rules);
	rtnl_lock();
	s->dev_gen = mn->dev_gen;
	rtnl_unlock();
	mutex_lock(&mn->conns.lock);
	s->max = mn->conns.max;
	s->tcp_loose = mn->conns.tcp_loose;
	memcpy(s->timeouts, mn->conns.timeouts, sizeof(s->timeouts));
	mutex_unlock(&mn->conns.lock);
	s->conns = atomic_read(&mn->conns.count);
}

static u32 nf_rand(struct nf *f, u32 n)
{
	return n ? prandom_u32_state(&f->rs) % n : 0;
}

/* A value worth trying: limits, small numbers, the test device's index. */
static u32 nf_value(struct nf *f)
{
	static const u32 v[] = { 0, 1, 2, 3, 4, 6, 17, 58, 64, 0x7f, 0x80, 0xff, 0x100,
				 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff };

	switch (nf_rand(f, 4)) {
	case 0:
		return prandom_u32_state(&f->rs);
	case 1:
		return f->dev->ifindex;
	case 2:
		return nf_rand(f, MMB_FIELD_MAX + 3);
	}
	return v[nf_rand(f, ARRAY_SIZE(v))];
}

static void nf_attrs(struct nf *f, unsigned int depth)
{
	unsigned int n = depth ? nf_rand(f, 6) : 1 + nf_rand(f, 4), i, j, k;
	struct nlt *t = &f->t;

	for (i = 0; i < n; i++) {
		u16 type = nf_rand(f, depth ? 16 : MMB_A_MAX + 2);
		u8 buf[48];
		u32 v = nf_value(f);
		u64 v64 = v;

		if (t->len + 512 > NLT_BUF || t->nattrs + 48 > ARRAY_SIZE(t->attr))
			return;
		switch (nf_rand(f, 10)) {
		case 0:
			nlt_put(t, type, NULL, 0);
			break;
		case 1:
			nlt_u8(t, type, v);
			break;
		case 2:
			nlt_u16(t, type, v);
			break;
		case 3:
			nlt_u32(t, type, v);
			break;
		case 4:
			nlt_put(t, type, &v64, sizeof(v64));
			break;
		case 5:			/* a name: the device's, or not */
			k = strlen(f->dev->name);
			if (nf_rand(f, 2)) {
				nlt_put(t, type, f->dev->name, k + nf_rand(f, 2));
				break;
			}
			k = nf_rand(f, 20);
			for (j = 0; j < k; j++)
				buf[j] = 'a' + nf_rand(f, 26);
			buf[k] = 0;
			nlt_put(t, type, buf, k + nf_rand(f, 2));
			break;
		case 6:
			k = nf_rand(f, sizeof(buf));
			for (j = 0; j < k; j++)
				buf[j] = nf_rand(f, 256);
			nlt_put(t, type, buf, k);
			break;
		case 7:			/* the same attribute, many times */
			k = 2 + nf_rand(f, 40);
			while (k-- && t->len + 64 < NLT_BUF && t->nattrs + 8 < ARRAY_SIZE(t->attr))
				nlt_u32(t, type, v);
			break;
		default:		/* a nest; now and then without its flag */
			if (depth >= 4) {
				nlt_u32(t, type, v);
				break;
			}
			k = nlt_nest(t, type);
			nf_attrs(f, depth + 1);
			nlt_nest_end(t, k);
			if (!nf_rand(f, 8))
				((struct nlattr *)(t->buf + k))->nla_type &= ~NLA_F_NESTED;
			break;
		}
	}
}

/* Random bytes of the field's width for a value, as a match or mod has. */
static void nf_value_of(struct nf *f, u16 type, u16 field)
{
	unsigned int n = 1 + nf_rand(f, 16), i;
	u8 v[16];

	if (field <= MMB_FIELD_MAX && nf_rand(f, 4))
		n = mmb_field_size(mmb_field(field)->bits);
	for (i = 0; i < n; i++)
		v[i] = nf_rand(f, 256);
	nlt_put(&f->t, type, v, n);
}

/* A rule as mmbctl would send it, its parts chosen at random. */
static void nf_rule(struct nf *f, u16 type)
{
	struct nlt *t = &f->t;
	unsigned int rule = nlt_nest(t, type), list, nest, i, n;
	u16 field;

	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	n = 1 + nf_rand(f, 3);
	for (i = 1; i <= n; i++) {
		nest = nlt_nest(t, i);
		field = nf_rand(f, MMB_FIELD_MAX + 2);
		nlt_u16(t, MMB_MATCH_A_FIELD, field);
		if (!nf_rand(f, 3))
			nlt_u8(t, MMB_MATCH_A_OP, nf_rand(f, MMB_OP_MAX + 2));
		if (field != MMB_FIELD_ALL || !nf_rand(f, 2))
			nf_value_of(f, MMB_MATCH_A_VALUE, field);
		if (!nf_rand(f, 4))
			nlt_u8(t, MMB_MATCH_A_PREFIX, nf_rand(f, 130));
		if (!nf_rand(f, 6))
			nlt_u8(t, MMB_MATCH_A_KIND, nf_rand(f, 256));
		nlt_nest_end(t, nest);
	}
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	n = 1 + nf_rand(f, 2);
	for (i = 1; i <= n; i++) {
		nest = nlt_nest(t, i);
		nlt_u8(t, MMB_TARGET_A_TYPE, nf_rand(f, MMB_TARGET_MAX + 2));
		if (nf_rand(f, 2)) {
			field = nf_rand(f, MMB_FIELD_MAX + 2);
			nlt_u16(t, MMB_TARGET_A_FIELD, field);
			if (nf_rand(f, 2))
				nf_value_of(f, MMB_TARGET_A_VALUE, field);
		}
		if (!nf_rand(f, 6))
			nlt_u32(t, MMB_TARGET_A_RATE, nf_value(f));
		if (!nf_rand(f, 6))
			nlt_u8(t, MMB_TARGET_A_KIND, nf_rand(f, 256));
		nlt_nest_end(t, nest);
	}
	nlt_nest_end(t, list);
	if (!nf_rand(f, 4))
		nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	nlt_nest_end(t, rule);
}

/* Settings at random, in a nest of @type. */
static void nf_settings(struct nf *f, u16 type)
{
	struct nlt *t = &f->t;
	unsigned int nest = nlt_nest(t, type);

	if (nf_rand(f, 2))
		nlt_u32(t, MMB_SET_A_CONN_MAX, nf_value(f));
	if (nf_rand(f, 2))
		nlt_u8(t, MMB_SET_A_TCP_LOOSE, nf_rand(f, 3));
	if (nf_rand(f, 2)) {
		unsigned int to = nlt_nest(t, MMB_SET_A_TIMEOUTS);

		nlt_u32(t, 1 + nf_rand(f, __MMB_CONN_STATE_MAX + 1), nf_value(f));
		nlt_nest_end(t, to);
	}
	nlt_nest_end(t, nest);
}

/*
 * A trace: a packet of random bytes, most with an IPv4 or IPv6 header's
 * first bytes, or field values at random for mmb to write.
 */
static void nf_trace(struct nf *f)
{
	static const u8 protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6, 0 };
	struct nlt *t = &f->t;
	unsigned int nest = nlt_nest(t, MMB_A_TRACE), list, m, i, n;
	u8 p[128];

	if (nf_rand(f, 3))
		nlt_u32(t, MMB_TRACE_A_IFINDEX, nf_rand(f, 4) ? f->dev->ifindex : nf_value(f));
	if (nf_rand(f, 2)) {
		n = nf_rand(f, sizeof(p) + 1);
		for (i = 0; i < n; i++)
			p[i] = nf_rand(f, 256);
		if (n > 40 && nf_rand(f, 4)) {
			bool v6 = nf_rand(f, 2);

			p[0] = v6 ? 0x60 : 0x45;
			p[v6 ? 6 : 9] = protos[nf_rand(f, ARRAY_SIZE(protos))];
			put_unaligned_be16(v6 ? n - 40 : n, p + (v6 ? 4 : 2));
			p[v6 ? 7 : 8] = nf_rand(f, 256);
		}
		nlt_put(t, MMB_TRACE_A_PACKET, p, n);
	} else {
		nlt_u8(t, MMB_TRACE_A_FAMILY, nf_rand(f, 4) ? 4 + 2 * nf_rand(f, 2) : nf_value(f));
		n = nf_rand(f, 4) ? protos[nf_rand(f, ARRAY_SIZE(protos))] : nf_value(f);
		nlt_u8(t, MMB_TRACE_A_PROTO, n);
		list = nlt_nest(t, MMB_TRACE_A_FIELDS);
		n = nf_rand(f, 5);
		for (i = 1; i <= n; i++) {
			u16 field = nf_rand(f, MMB_FIELD_MAX + 2);

			m = nlt_nest(t, i);
			nlt_u16(t, MMB_MATCH_A_FIELD, field);
			if (nf_rand(f, 8))
				nf_value_of(f, MMB_MATCH_A_VALUE, field);
			if (!nf_rand(f, 8))
				nlt_u8(t, MMB_MATCH_A_OP, nf_rand(f, MMB_OP_MAX + 2));
			nlt_nest_end(t, m);
		}
		nlt_nest_end(t, list);
	}
	nlt_nest_end(t, nest);
}

/* The attributes @cmd takes, with values at random. */
static void nf_request(struct nf *f, u8 cmd)
{
	struct nlt *t = &f->t;
	unsigned int nest, i, n;

	switch (cmd) {
	case MMB_CMD_DEV_ENABLE:
	case MMB_CMD_DEV_DISABLE:
		if (nf_rand(f, 2))
			nlt_u32(t, MMB_A_IFINDEX, nf_rand(f, 4) ? f->dev->ifindex : nf_value(f));
		else
			nlt_put(t, MMB_A_IFNAME, f->dev->name, strlen(f->dev->name) + 1);
		break;
	case MMB_CMD_RULE_ADD:
		nf_rule(f, MMB_A_RULE);
		break;
	case MMB_CMD_RULE_DEL:
		nest = nlt_nest(t, MMB_A_RULE);
		nlt_u32(t, MMB_RULE_A_HANDLE, nf_rand(f, 64));
		nlt_nest_end(t, nest);
		break;
	case MMB_CMD_RULE_BATCH:
		n = 1 + nf_rand(f, 4);
		for (i = 0; i < n; i++) {
			static const u8 ops[] = { MMB_CMD_RULE_ADD, MMB_CMD_RULE_ADD,
						  MMB_CMD_RULE_DEL, MMB_CMD_RULE_FLUSH,
						  MMB_CMD_DEV_ENABLE, MMB_CMD_SET };
			u8 op = ops[nf_rand(f, ARRAY_SIZE(ops))];

			nest = nlt_nest(t, MMB_A_OP);
			nlt_u8(t, MMB_BATCH_A_CMD, op);
			if (op == MMB_CMD_RULE_ADD) {
				nf_rule(f, MMB_BATCH_A_RULE);
			} else if (op == MMB_CMD_RULE_DEL) {
				unsigned int r = nlt_nest(t, MMB_BATCH_A_RULE);

				nlt_u32(t, MMB_RULE_A_HANDLE, nf_rand(f, 64));
				nlt_nest_end(t, r);
			} else if (op == MMB_CMD_DEV_ENABLE) {
				const char *name = nf_rand(f, 4) ? f->dev->name : "lo";

				nlt_put(t, MMB_BATCH_A_IFNAME, name, strlen(name) + 1);
			} else if (op == MMB_CMD_SET) {
				nf_settings(f, MMB_BATCH_A_SETTINGS);
			}
			nlt_nest_end(t, nest);
		}
		break;
	case MMB_CMD_SET:
		nf_settings(f, MMB_A_SETTINGS);
		break;
	case MMB_CMD_TRACE:
		nf_trace(f);
		break;
	}
}

/* One change to a request: an attribute's type, length, a byte, a flag. */
static void nf_mutate(struct nf *f)
{
	struct nlt *t = &f->t;
	struct nlattr *a;

	if (!t->nattrs)
		return;
	a = (struct nlattr *)(t->buf + t->attr[nf_rand(f, t->nattrs)]);
	switch (nf_rand(f, 5)) {
	case 0:
		a->nla_type = (a->nla_type & NLA_F_NESTED) | nf_rand(f, 12);
		break;
	case 1:
		a->nla_len = nf_rand(f, 2) ? a->nla_len + nf_rand(f, 9) - 4 : nf_rand(f, 65536);
		break;
	case 2:
		a->nla_type ^= NLA_F_NESTED;
		break;
	default:
		if (a->nla_len > NLA_HDRLEN)
			((u8 *)a)[NLA_HDRLEN + nf_rand(f, a->nla_len - NLA_HDRLEN)] =
				nf_rand(f, 256);
		break;
	}
}

static void nf_one(struct nf *f)
{
	u8 cmd = nf_rand(f, __MMB_CMD_MAX + 2);
	struct nf_state before, after;
	struct nlt *t = &f->t;
	int ret, err;

	nlt_begin(t, t->family, cmd);
	if (cmd == MMB_CMD_DEV_GET || cmd == MMB_CMD_RULE_GET || cmd == MMB_CMD_TABLE_GET ||
	    cmd == MMB_CMD_CONN_GET || cmd == MMB_CMD_SETTINGS_GET ? nf_rand(f, 4) : !nf_rand(f, 8))
		nlt_hdr(t)->nlmsg_flags |= NLM_F_DUMP;
	if (!nf_rand(f, 16))
		((struct genlmsghdr *)nlmsg_data(nlt_hdr(t)))->version = nf_rand(f, 256);
	if (nf_rand(f, 4)) {		/* as the command wants it, or nearly */
		nf_request(f, cmd);
		if (nf_rand(f, 2))
			nf_mutate(f);
	} else {
		nf_attrs(f, 0);
	}
	nlt_hdr(t)->nlmsg_len = t->len;
	if (!nf_rand(f, 16))		/* cut short, the header saying so */
		nlt_hdr(t)->nlmsg_len = t->len = NLMSG_HDRLEN + nf_rand(f, t->len - NLMSG_HDRLEN);
	else if (!nf_rand(f, 32))	/* the header lying */
		nlt_hdr(t)->nlmsg_len = nf_rand(f, 2 * t->len);

	nf_state(f, &before);
	KUNIT_ASSERT_EQ(t->test, nlt_try_xmit(t), (int)t->len);
	ret = nlt_answer(t, f->rx, NF_RX, &err);
	if (!ret)
		f->unanswered++;
	else if (ret == NLMSG_ERROR && err)
		f->refused++;
	else if (ret == NLMSG_DONE)
		f->dumps++;
	else
		f->acked++;
	/* A refused message changes nothing; nor does a trace or a read. */
	if ((ret == NLMSG_ERROR && err) || cmd == MMB_CMD_TRACE || cmd == MMB_CMD_STATS_GET) {
		nf_state(f, &after);
		KUNIT_EXPECT_PTR_EQ(t->test, after.rs, before.rs);
		KUNIT_EXPECT_EQ(t->test, after.nrules, before.nrules);
		KUNIT_EXPECT_EQ(t->test, after.next_handle, before.next_handle);
		KUNIT_EXPECT_EQ(t->test, after.dev_gen, before.dev_gen);
		KUNIT_EXPECT_EQ(t->test, after.max, before.max);
		KUNIT_EXPECT_EQ(t->test, after.tcp_loose, before.tcp_loose);
		KUNIT_EXPECT_MEMEQ(t->test, after.timeouts, before.timeouts,
				   sizeof(before.timeouts));
		KUNIT_EXPECT_EQ(t->test, after.conns, before.conns);
	}
	if (cmd == MMB_CMD_TRACE && ret == NLMSG_ERROR && !err)
		f->traced++;
}

/* Every rule of the namespace's ruleset sits in one of its tables. */
static void nf_consistent(struct nf *f)
{
	struct mmb_net *mn = mmb_pernet(f->net);
	struct mmb_table_info info;
	struct mmb_ruleset *rs;
	unsigned int i, n = 0;

	mmb_rules_lock(&mn->rules);
	rs = mmb_rules_locked(&mn->rules);
	for (i = 0; !mmb_ruleset_table(rs, i, &info); i++)
		n += info.rules;
	KUNIT_EXPECT_EQ(f->t.test, n, mmb_ruleset_count(rs));
	mmb_rules_unlock(&mn->rules);
}

static void nlfuzz_commands_test(struct kunit *test)
{
	struct nf *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->rx = kunit_kzalloc(test, NF_RX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->rx);
	/* A device in the namespace, for the device commands to find. */
	f->net = mmbt_netns_new(test, &f->dev);
	nlt_open_net(test, &f->t, f->net);
	prandom_seed_state(&f->rs, fuzz_nl_seed);

	for (i = 0; i < fuzz_messages; i++) {
		nf_one(f);
		if (i % 256 == 255) {
			nf_consistent(f);
			cond_resched();
		}
	}
	nf_consistent(f);
	kunit_info(test, "%u messages from seed %u: %u acknowledged (%u traces), %u dumps, %u refused, %u unanswered",
		   fuzz_messages, fuzz_nl_seed, f->acked, f->traced, f->dumps, f->refused,
		   f->unanswered);

	nlt_close(&f->t);
	mmbt_netns_done(test, f->net, f->dev);
	/* Every outcome happened; a message the core drops gets no answer. */
	KUNIT_EXPECT_GT(test, f->acked, 0);
	KUNIT_EXPECT_GT(test, f->traced, 0);
	KUNIT_EXPECT_GT(test, f->dumps, 0);
	KUNIT_EXPECT_GT(test, f->refused, fuzz_messages / 2);
	KUNIT_EXPECT_LT(test, f->unanswered, fuzz_messages / 8);
}

static struct kunit_case mmb_nlfuzz_cases[] = {
	KUNIT_CASE(nlfuzz_commands_test),
	{}
};

static struct kunit_suite mmb_nlfuzz_suite = {
	.name = "mmb-nlfuzz",
	.test_cases = mmb_nlfuzz_cases,
};

kunit_test_suite(mmb_nlfuzz_suite);
