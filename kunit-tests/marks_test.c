// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: rules that only count, resetting counters, the packet's mark
 * (matched and set, IPv4 and IPv6) and comments. Packets go through the
 * classifier and the rewrites as the hook runs them; the netlink side is
 * checked for its refusals, each at its attribute, and for what dumps give
 * back.
 */
#include <linux/ipv6.h>
#include <net/genetlink.h>

#include "../kmod/mmb.h"
#include "../kmod/rewrite.h"
#include "nlt.h"
#include "util.h"

struct mk {
	struct kunit *test;
	struct mmb_rules *r;
	struct net_device *dev;
	struct mmb_conns *mc;	/* for stateful rules, or NULL */
};

static void mk_init(struct kunit *test, struct mk *k)
{
	k->test = test;
	k->r = mmbt_rules_new(test);
	k->dev = init_net.loopback_dev;
	k->mc = NULL;
}

/* A UDP packet to port @dport, of IPv6 if @v6, with mark @mark. */
static struct sk_buff *mk_pkt(struct mk *k, bool v6, u16 dport, u32 mark)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_UDP, .ttl = 64, .sport = 1024, .dport = dport,
		.payload_len = 16,
	};
	struct sk_buff *skb;

	d.saddr[v6 ? 15 : 3] = 1;
	d.daddr[v6 ? 15 : 3] = 2;
	if (v6) {
		d.saddr[0] = 0x20;
		d.daddr[0] = 0x20;
	} else {
		d.saddr[0] = 192;
		d.daddr[0] = 192;
	}
	skb = mmbt_pkt_build(k->dev, &d);
	KUNIT_ASSERT_NOT_NULL(k->test, skb);
	skb->mark = mark;
	return skb;
}

/*
 * @skb through the rules as the hook takes it: 1 passed (its mark then
 * in *@mark), 0 dropped. The skb is freed.
 */
static int mk_run(struct mk *k, struct sk_buff *skb, u32 *mark)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(k->r);
	ret = mmb_parse(skb, &pkt);
	KUNIT_EXPECT_EQ(k->test, ret, 0);
	if (!ret) {
		mmb_verdict_init(&v);
		if (k->mc && mmb_ruleset_stateful(rs))
			mmb_conn_lookup(k->mc, &pkt, skb, &v);
		mmb_classify_rules(rs, &pkt, skb, &v);
		if (k->mc && (v.conn || v.nsf))
			KUNIT_EXPECT_EQ(k->test, mmb_conn_verdict(k->mc, &pkt, skb, &v), 0);
		if (v.drop && !v.accept) {
			ret = 0;
		} else {
			mmb_verdict_settle(&v);
			ret = v.nrw ? mmb_rewrite(skb, &pkt, &v) : 0;
			KUNIT_EXPECT_EQ(k->test, ret, 0);
			ret = 1;
		}
	}
	local_bh_enable();
	rcu_read_unlock();
	if (mark)
		*mark = skb->mark;
	kfree_skb(skb);
	return ret;
}

/* A rule of priority @prio: @m, and one target: @type (accept, drop, count) or @t. */
static struct mmb_rule *mk_rule(struct mk *k, u32 prio, const struct mmb_match_spec *m,
				unsigned int nm, u8 type, const struct mmb_target_spec *t)
{
	struct mmb_rule_spec *s = kunit_kzalloc(k->test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(k->test, s);
	memcpy(s->m, m, nm * sizeof(*m));
	s->nmatches = nm;
	s->ntargets = 1;
	s->prio = prio;
	s->conn_prio = prio;
	if (t) {
		s->t[0] = *t;
	} else {
		s->t[0].type = type;
		s->t[0].rate = MMB_RATE_ALWAYS;
	}
	rule = mmb_rule_create(s, NULL, &err);
	if (IS_ERR(rule))
		KUNIT_FAIL(k->test, "rule refused: %s", err.msg);
	KUNIT_ASSERT_FALSE(k->test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(k->test, mmbt_insert(k->r, rule, NULL), 0);
	return rule;
}

static struct mmb_match_spec mk_mark_match(u8 op, u32 v, u32 mask)
{
	struct mmb_match_spec m = { .field = MMB_FIELD_META_MARK, .op = op, .plen = 32,
				    .vlen = MMB_MARK_VLEN };

	put_unaligned_be32(v, m.value);
	put_unaligned_be32(mask, m.value + 4);
	return m;
}

static struct mmb_target_spec mk_mark_mod(u32 v, u32 mask)
{
	struct mmb_target_spec t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_META_MARK,
				     .plen = 32, .vlen = MMB_MARK_VLEN };

	put_unaligned_be32(v, t.value);
	put_unaligned_be32(mask, t.value + 4);
	return t;
}

static u64 mk_packets(const struct mmb_rule *rule, u64 *bytes)
{
	struct mmb_stats st;

	mmb_stats_read(rule->stats, &st);
	if (bytes)
		*bytes = st.bytes;
	return st.packets;
}

/*
 * A count rule counts and decides nothing: the rules below it judge, in
 * its own entry (a list of rules of one key), in another table, and as a
 * lone rule of priority 0; a verdict above it cuts it off, uncounted.
 */
static void marks_count_test(struct kunit *test)
{
	struct mmb_match_spec dns = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_match_spec ntp = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 123);
	struct mmb_match_spec src = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0xc0000001);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmb_rule *cnt, *drop, *cnt0, *acc;
	unsigned int len, i;
	struct sk_buff *skb;
	u64 bytes;
	struct mk k;

	mk_init(test, &k);
	cnt = mk_rule(&k, 10, &dns, 1, MMB_TARGET_COUNT, NULL);
	drop = mk_rule(&k, 5, &dns, 1, MMB_TARGET_DROP, NULL);
	cnt0 = mk_rule(&k, 0, &ntp, 1, MMB_TARGET_COUNT, NULL);
	KUNIT_EXPECT_TRUE(test, mmb_rule_count_only(cnt));
	KUNIT_EXPECT_FALSE(test, mmb_rule_count_only(drop));

	skb = mk_pkt(&k, false, 53, 0);
	len = skb->len;
	KUNIT_EXPECT_EQ(test, mk_run(&k, skb, NULL), 0);	/* the drop below judges */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, true, 53, 0), NULL), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(cnt, &bytes), 3);
	KUNIT_EXPECT_EQ(test, bytes, len + 2 * (len + 20));
	KUNIT_EXPECT_EQ(test, mk_packets(drop, NULL), 3);

	/* Alone, it passes what it counts. */
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, i & 1, 123, 0), NULL), 1);
	KUNIT_EXPECT_EQ(test, mk_packets(cnt0, NULL), 4);

	/* Beside a drop of another table at its priority: the drop decides. */
	mk_rule(&k, 0, &all, 1, MMB_TARGET_DROP, NULL);
	KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, false, 123, 0), NULL), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(cnt0, NULL), 5);

	/* An accept above cuts the count rule off: not counted. */
	acc = mk_rule(&k, 20, &src, 1, MMB_TARGET_ACCEPT, NULL);
	KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, false, 53, 0), NULL), 1);
	KUNIT_EXPECT_EQ(test, mk_packets(acc, NULL), 1);
	KUNIT_EXPECT_EQ(test, mk_packets(cnt, NULL), 3);
	KUNIT_EXPECT_EQ(test, mk_packets(drop, NULL), 3);

	/* Reset: zero, then exact again. */
	mmb_stats_reset(cnt->stats);
	KUNIT_EXPECT_EQ(test, mk_packets(cnt, &bytes), 0);
	KUNIT_EXPECT_EQ(test, bytes, 0);
	KUNIT_EXPECT_EQ(test, mk_packets(drop, NULL), 3);
	KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, true, 53, 0), NULL), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(cnt, &bytes), 1);
	KUNIT_EXPECT_EQ(test, bytes, len + 20);
	mmbt_rules_done(test, k.r);
}

/* count is a rule's only target, of a stateless rule. */
static void marks_count_check_test(struct kunit *test)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[0] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	s->nmatches = 1;
	s->ntargets = 2;
	s->t[0].type = MMB_TARGET_COUNT;
	s->t[1].type = MMB_TARGET_ACCEPT;
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rule), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_TARGET);
	KUNIT_EXPECT_EQ(test, err.index, 0);
	s->ntargets = 1;
	s->stateful = true;
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rule), -EINVAL);
}

/*
 * mod meta-mark VALUE/MASK: mark = (mark & ~MASK) ^ VALUE, in both
 * families; the rules that set it match the mark the packet came with.
 */
static void marks_set_test(struct kunit *test)
{
	struct mmb_match_spec dns = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_match_spec ntp = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 123);
	struct mmb_match_spec seven = mk_mark_match(MMB_OP_EQ, 7, U32_MAX);
	struct mmb_target_spec set7 = mk_mark_mod(7, U32_MAX);
	struct mmb_target_spec x = mk_mark_mod(0x10, 0xf0);
	struct mmb_target_spec set9 = mk_mark_mod(9, U32_MAX);
	unsigned int v6;
	u32 mark;
	struct mk k;

	mk_init(test, &k);
	mk_rule(&k, 0, &dns, 1, 0, &set7);
	mk_rule(&k, 0, &ntp, 1, 0, &x);
	/* A rule on the mark sees the one the packet brought, not 7. */
	mk_rule(&k, 0, &seven, 1, 0, &set9);
	for (v6 = 0; v6 < 2; v6++) {
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 53, 0), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 7);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 53, 0xabc), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 7);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 123, 0xff00), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 0xff10);
		/* xmark flips what is outside the mask in VALUE: here none. */
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 123, 0xfff3), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 0xff13);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 80, 7), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 9);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 80, 6), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 6);
		/* Marked at 53 with 7, the 7 rule does not see it: 7, not 9. */
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 53, 1), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 7);
	}
	mmbt_rules_done(test, k.r);
}

static void mk_conns_exit(void *mc)
{
	mmb_conns_exit(mc);
}

/* A UDP packet @from -> @to (last address bytes), ports @sport -> @dport. */
static struct sk_buff *mk_udp(struct mk *k, bool v6, u8 from, u16 sport, u8 to, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_UDP, .ttl = 64, .sport = sport, .dport = dport,
		.payload_len = 8,
	};
	struct sk_buff *skb;

	d.saddr[0] = v6 ? 0xfd : 10;
	d.daddr[0] = d.saddr[0];
	d.saddr[v6 ? 15 : 3] = from;
	d.daddr[v6 ? 15 : 3] = to;
	skb = mmbt_pkt_build(k->dev, &d);
	KUNIT_ASSERT_NOT_NULL(k->test, skb);
	return skb;
}

/*
 * A stateful rule's mark is its connections': the first packet, the later
 * ones and the replies get it; a packet of no connection of it does not.
 */
static void marks_stateful_test(struct kunit *test)
{
	struct mmb_match_spec dns = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_target_spec set22 = mk_mark_mod(22, U32_MAX);
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_conns *mc = kunit_kzalloc(test, sizeof(*mc), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;
	unsigned int v6;
	u32 mark;
	struct mk k;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, mc);
	mk_init(test, &k);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(mc, &init_net), 0);
	mc->rpf = false;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mk_conns_exit, mc), 0);
	k.mc = mc;
	s->m[0] = dns;
	s->nmatches = 1;
	s->t[0] = set22;
	s->ntargets = 1;
	s->stateful = true;
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(k.r, rule, NULL), 0);
	for (v6 = 0; v6 < 2; v6++) {
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_udp(&k, v6, 2, 4000, 9, 53), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 22);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_udp(&k, v6, 9, 53, 2, 4000), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 22);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_udp(&k, v6, 2, 4000, 9, 53), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 22);
		/* Not of its connection: unmarked. */
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_udp(&k, v6, 9, 54, 2, 4000), &mark), 1);
		KUNIT_EXPECT_EQ(test, mark, 0);
	}
	/* The connections end before the rules go (the actions, in reverse). */
}

/* meta-mark matches: exact, under a mask, compared, negated; both families. */
static void marks_match_test(struct kunit *test)
{
	struct mmb_match_spec m[] = {
		mk_mark_match(MMB_OP_EQ, 7, U32_MAX),
		mk_mark_match(MMB_OP_EQ, 0x10, 0xf0),
		mk_mark_match(MMB_OP_GE, 0xf0000000, U32_MAX),
	};
	static const struct {
		u32 mark;
		int passes;
	} cases[] = {
		{ 7, 0 }, { 8, 1 }, { 0, 1 }, { 0x11, 0 }, { 0x1f, 0 }, { 0x20, 1 },
		{ 0xf10, 0 }, { 0xefffffff, 1 }, { 0xf0000000, 0 }, { 0xffffffff, 0 },
	};
	struct mmb_match_spec ne = mk_mark_match(MMB_OP_NE, 0, 0x0f000000);
	struct mmb_match_spec p = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 99);
	struct mmb_match_spec both[2] = { p, ne };
	unsigned int i, v6;
	struct mk k;

	mk_init(test, &k);
	for (i = 0; i < ARRAY_SIZE(m); i++)
		mk_rule(&k, 0, &m[i], 1, MMB_TARGET_DROP, NULL);
	mk_rule(&k, 0, both, 2, MMB_TARGET_DROP, NULL);
	for (v6 = 0; v6 < 2; v6++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			KUNIT_EXPECT_EQ_MSG(test, mk_run(&k, mk_pkt(&k, v6, 80, cases[i].mark),
							 NULL),
					    cases[i].passes, "mark %#x v6 %u", cases[i].mark, v6);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 99, 0x01000000), NULL), 0);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, v6, 99, 0x10ffffff), NULL), 1);
	}
	mmbt_rules_done(test, k.r);
}

/* --- netlink --------------------------------------------------------------- */

/*
 * add: one match (@field, @v of @vlen, @mmask: MMB_MATCH_A_MASK if not
 * 0, *@mask_off its offset), one target (@ttype; a meta-mark mod of @tv
 * and @tmask if MMB_TARGET_MOD); a comment if @comment. Offsets of the
 * value (*@voff) and the comment (*@coff).
 */
struct mk_nl {
	u16 field;
	const void *v;
	unsigned int vlen;
	u32 mmask;
	bool has_mmask;		/* put mmask even if 0 */
	u8 ttype;
	u32 tv, tmask;
	const char *comment;
	unsigned int clen;	/* with its NUL */
	bool two_targets, stateful;
	unsigned int voff, moff, toff, tmoff, coff;
};

static void mk_nl_add(struct nlt *t, struct mk_nl *a)
{
	unsigned int rule, list, nest;

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, a->field);
	a->voff = nlt_put(t, MMB_MATCH_A_VALUE, a->v, a->vlen);
	if (a->mmask || a->has_mmask)
		a->moff = nlt_u32(t, MMB_MATCH_A_MASK, (__force u32)cpu_to_be32(a->mmask));
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	a->toff = nest;
	nlt_u8(t, MMB_TARGET_A_TYPE, a->ttype);
	if (a->ttype == MMB_TARGET_MOD) {
		__be32 v = cpu_to_be32(a->tv);

		nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_META_MARK);
		nlt_put(t, MMB_TARGET_A_VALUE, &v, 4);
		if (a->tmask != U32_MAX)
			a->tmoff = nlt_u32(t, MMB_TARGET_A_MASK,
					   (__force u32)cpu_to_be32(a->tmask));
	}
	nlt_nest_end(t, nest);
	if (a->two_targets) {
		nest = nlt_nest(t, 2);
		nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ACCEPT);
		nlt_nest_end(t, nest);
	}
	nlt_nest_end(t, list);
	if (a->stateful)
		nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	if (a->comment)
		a->coff = nlt_put(t, MMB_RULE_A_COMMENT, a->comment, a->clen);
	nlt_nest_end(t, rule);
}

/* What a dump of the rules says of the one rule added. */
struct mk_seen {
	char comment[MMB_COMMENT_MAX + 8];
	u8 ttype;
	u32 mark, mask, tmask;
	bool has_mask, has_tmask;
	unsigned int n;
};

static void mk_rule_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *r = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_RULE), *a, *n;
	struct mk_seen *seen = arg;

	if (!r)
		return;
	seen->n++;
	a = nla_find_nested(r, MMB_RULE_A_COMMENT);
	if (a)
		strscpy(seen->comment, nla_data(a), sizeof(seen->comment));
	a = nla_find_nested(r, MMB_RULE_A_MATCHES);
	n = a ? nla_find_nested(a, 1) : NULL;
	if (n && nla_find_nested(n, MMB_MATCH_A_VALUE) &&
	    nla_len(nla_find_nested(n, MMB_MATCH_A_VALUE)) == 4) {
		seen->mark = be32_to_cpu(nla_get_be32(nla_find_nested(n, MMB_MATCH_A_VALUE)));
		a = nla_find_nested(n, MMB_MATCH_A_MASK);
		seen->has_mask = a;
		if (a)
			seen->mask = be32_to_cpu(nla_get_be32(a));
	}
	a = nla_find_nested(r, MMB_RULE_A_TARGETS);
	n = a ? nla_find_nested(a, 1) : NULL;
	if (n) {
		seen->ttype = nla_get_u8(nla_find_nested(n, MMB_TARGET_A_TYPE));
		a = nla_find_nested(n, MMB_TARGET_A_MASK);
		seen->has_tmask = a;
		if (a)
			seen->tmask = be32_to_cpu(nla_get_be32(a));
	}
}

/* Refusals, each at its attribute; and what is taken comes back as given. */
static void marks_netlink_test(struct kunit *test)
{
	/* Off the stack: a debug kernel's frame limit. */
	char *longc = kunit_kzalloc(test, MMB_COMMENT_MAX + 2, GFP_KERNEL);
	__be32 v7 = cpu_to_be32(7), v10 = cpu_to_be32(0x10);
	u8 v5[5] = { 0, 0, 0, 0, 7 };
	struct mk_seen seen = {};
	__be16 p53 = cpu_to_be16(53);
	struct mk_nl a;
	struct nlt t;

	KUNIT_ASSERT_NOT_NULL(test, longc);
	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);

	/* A mask on another field; a mask of 0; a value outside its mask. */
	a = (struct mk_nl){ .field = MMB_FIELD_UDP_DPORT, .v = &p53, .vlen = 2,
			    .mmask = 0xff, .ttype = MMB_TARGET_DROP };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.moff);
	a = (struct mk_nl){ .field = MMB_FIELD_META_MARK, .v = &v10, .vlen = 4,
			    .has_mmask = true, .ttype = MMB_TARGET_DROP };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.moff);
	a.mmask = 0x0f;
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.voff);
	/* Over 32 bits. */
	a = (struct mk_nl){ .field = MMB_FIELD_META_MARK, .v = v5, .vlen = 5,
			    .ttype = MMB_TARGET_DROP };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.voff);
	/* A mod's mask of 0. */
	a = (struct mk_nl){ .field = MMB_FIELD_UDP_DPORT, .v = &p53, .vlen = 2,
			    .ttype = MMB_TARGET_MOD, .tv = 1, .tmask = 0 };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.tmoff);
	/* count and another target; count in a stateful rule. */
	a = (struct mk_nl){ .field = MMB_FIELD_UDP_DPORT, .v = &p53, .vlen = 2,
			    .ttype = MMB_TARGET_COUNT, .two_targets = true };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.toff);
	a = (struct mk_nl){ .field = MMB_FIELD_UDP_DPORT, .v = &p53, .vlen = 2,
			    .ttype = MMB_TARGET_COUNT, .stateful = true };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	/* Comments: too long, a newline, empty. */
	memset(longc, 'c', MMB_COMMENT_MAX + 2);
	longc[MMB_COMMENT_MAX + 1] = '\0';
	a = (struct mk_nl){ .field = MMB_FIELD_UDP_DPORT, .v = &p53, .vlen = 2,
			    .ttype = MMB_TARGET_COUNT, .comment = longc,
			    .clen = MMB_COMMENT_MAX + 2 };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.coff);
	a.comment = "two\nlines";
	a.clen = 10;
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.coff);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "control"));
	a.comment = "";
	a.clen = 1;
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, a.coff);
	nlt_dump_each(&t, MMB_CMD_RULE_GET, mk_rule_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.n, 0);

	/* Taken: 128 bytes of comment, a masked mark, a count. */
	longc[MMB_COMMENT_MAX] = '\0';
	longc[0] = '"';
	longc[5] = ' ';
	a = (struct mk_nl){ .field = MMB_FIELD_META_MARK, .v = &v10, .vlen = 4, .mmask = 0xf0,
			    .ttype = MMB_TARGET_COUNT, .comment = longc,
			    .clen = MMB_COMMENT_MAX + 1 };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_dump_each(&t, MMB_CMD_RULE_GET, mk_rule_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.n, 1);
	KUNIT_EXPECT_STREQ(test, seen.comment, longc);
	KUNIT_EXPECT_EQ(test, seen.ttype, MMB_TARGET_COUNT);
	KUNIT_EXPECT_EQ(test, seen.mark, 0x10);
	KUNIT_EXPECT_TRUE(test, seen.has_mask);
	KUNIT_EXPECT_EQ(test, seen.mask, 0xf0);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);

	/* A whole mask is not given back; a mod's mask is. */
	a = (struct mk_nl){ .field = MMB_FIELD_META_MARK, .v = &v7, .vlen = 4,
			    .mmask = 0xffffffff, .ttype = MMB_TARGET_MOD, .tv = 3, .tmask = 0x0f };
	mk_nl_add(&t, &a);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	memset(&seen, 0, sizeof(seen));
	nlt_dump_each(&t, MMB_CMD_RULE_GET, mk_rule_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.mark, 7);
	KUNIT_EXPECT_FALSE(test, seen.has_mask);
	KUNIT_EXPECT_EQ(test, seen.comment[0], '\0');
	KUNIT_EXPECT_EQ(test, seen.ttype, MMB_TARGET_MOD);
	KUNIT_EXPECT_TRUE(test, seen.has_tmask);
	KUNIT_EXPECT_EQ(test, seen.tmask, 0x0f);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

/* MMB_CMD_RULE_RESET: one rule's counters, every rule's, a handle of none. */
static void marks_reset_test(struct kunit *test)
{
	struct mmb_rules *rules = &mmb_pernet(&init_net)->rules;
	__be16 p53 = cpu_to_be16(53), p80 = cpu_to_be16(80);
	struct mmb_rule *r53, *r80;
	unsigned int i, rule, off;
	struct mk k = { .test = test, .r = rules, .dev = init_net.loopback_dev, .mc = NULL };
	struct mk_nl a;
	u32 h53, h80;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	a = (struct mk_nl){ .field = MMB_FIELD_UDP_DPORT, .v = &p53, .vlen = 2,
			    .ttype = MMB_TARGET_COUNT };
	mk_nl_add(&t, &a);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	h53 = t.handle;
	a.v = &p80;
	a.ttype = MMB_TARGET_ACCEPT;
	mk_nl_add(&t, &a);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	h80 = t.handle;
	mmb_rules_lock(rules);
	r53 = mmb_ruleset_find(mmb_rules_locked(rules), h53);
	r80 = mmb_ruleset_find(mmb_rules_locked(rules), h80);
	mmb_rules_unlock(rules);
	KUNIT_ASSERT_NOT_NULL(test, r53);
	KUNIT_ASSERT_NOT_NULL(test, r80);
	for (i = 0; i < 6; i++) {
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, i & 1, 53, 0), NULL), 1);
		KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, i & 1, 80, 0), NULL), 1);
	}
	KUNIT_EXPECT_EQ(test, mk_packets(r53, NULL), 6);
	KUNIT_EXPECT_EQ(test, mk_packets(r80, NULL), 6);

	/* One rule's. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_RESET);
	rule = nlt_nest(&t, MMB_A_RULE);
	nlt_u32(&t, MMB_RULE_A_HANDLE, h53);
	nlt_nest_end(&t, rule);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(r53, NULL), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(r80, NULL), 6);
	/* A handle of no rule: refused at it, nothing reset. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_RESET);
	rule = nlt_nest(&t, MMB_A_RULE);
	off = nlt_u32(&t, MMB_RULE_A_HANDLE, h80 + 100);
	nlt_nest_end(&t, rule);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ENOENT);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_EQ(test, mk_packets(r80, NULL), 6);
	/* Counted again from 0, exactly. */
	KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, false, 53, 0), NULL), 1);
	KUNIT_EXPECT_EQ(test, mk_packets(r53, NULL), 1);
	/* Every rule's. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_RESET);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(r53, NULL), 0);
	KUNIT_EXPECT_EQ(test, mk_packets(r80, NULL), 0);
	KUNIT_EXPECT_EQ(test, mk_run(&k, mk_pkt(&k, true, 80, 0), NULL), 1);
	KUNIT_EXPECT_EQ(test, mk_packets(r80, NULL), 1);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case marks_cases[] = {
	KUNIT_CASE(marks_count_test),
	KUNIT_CASE(marks_count_check_test),
	KUNIT_CASE(marks_set_test),
	KUNIT_CASE(marks_match_test),
	KUNIT_CASE(marks_stateful_test),
	KUNIT_CASE(marks_netlink_test),
	KUNIT_CASE(marks_reset_test),
	{}
};

static struct kunit_suite marks_suite = {
	.name = "mmb-marks",
	.test_cases = marks_cases,
};

kunit_test_suite(marks_suite);
