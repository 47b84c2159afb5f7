// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attacks on devices by name and on priorities, each a defect
 * found (or a case that held) and kept as a test.
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "../kmod/mmb.h"
#include "../kmod/tables.h"
#include "nlt.h"
#include "util.h"

/*
 * A device called @name (or a template with %d) in init_net; with
 * @no_rx_handler, one that refuses every rx_handler, as an ipvlan device
 * does (IFF_NO_RX_HANDLER, set before it registers).
 */
static struct net_device *atk3_dev(struct kunit *test, const char *name, bool no_rx_handler)
{
	struct net_device *dev = alloc_netdev(0, name, NET_NAME_UNKNOWN, mmbt_setup);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	if (no_rx_handler)
		dev->priv_flags |= IFF_NO_RX_HANDLER;
	KUNIT_ASSERT_EQ(test, register_netdev(dev), 0);
	return dev;
}

/* Enable @name in init_net as MMB_CMD_DEV_ENABLE does. */
static int atk3_enable(const char *name)
{
	struct mmb_dev_plan plan;
	int err;

	rtnl_lock();
	mmb_dev_plan_init(&plan, &init_net);
	err = mmb_dev_plan_name(&plan, name, false, NULL);
	if (err)
		mmb_dev_plan_abort(&plan);
	else
		mmb_dev_plan_commit(&plan);
	rtnl_unlock();
	return err;
}

static void atk3_forget_all(void *unused)
{
	struct mmb_net *mn = mmb_pernet(&init_net);
	struct mmb_enabled *e, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(e, tmp, &mn->enabled, list)
		mmb_dev_forget(&init_net, e->name, NULL);
	rtnl_unlock();
}

static const struct mmb_enabled *atk3_entry(const char *name)
{
	const struct mmb_enabled *e;

	rtnl_lock();
	e = mmb_dev_enabled_find(mmb_pernet(&init_net), name);
	rtnl_unlock();
	return e;
}

/*
 * A device that takes no rx_handler (ipvlan): enabling its name or a
 * pattern of it was "done" (0, the name remembered) while the attach at
 * commit failed, with a WARN, and the device passed every packet
 * unfiltered. It must be refused like a busy device, and counted as
 * failed when it appears under an enabled name.
 */
static void atk3_no_rx_handler_test(struct kunit *test)
{
	struct net_device *dev, *later;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, atk3_forget_all, NULL), 0);
	dev = atk3_dev(test, "atk3v0", true);
	KUNIT_EXPECT_EQ(test, atk3_enable("atk3v0"), -EINVAL);
	KUNIT_EXPECT_NULL(test, atk3_entry("atk3v0"));
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, atk3_enable("atk3v*"), -EINVAL);
	KUNIT_EXPECT_NULL(test, atk3_entry("atk3v*"));
	/* A pattern waiting for it: it appears, cannot be attached, is counted. */
	KUNIT_ASSERT_EQ(test, atk3_enable("atk3w*"), 0);
	later = atk3_dev(test, "atk3w%d", true);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(later));
	KUNIT_EXPECT_EQ(test, atk3_entry("atk3w*")->failed, 1);
	mmbt_netdev_destroy(later);
	mmbt_netdev_destroy(dev);
}

/*
 * Ids past the wrap: the counter came back to an id a name still holds
 * (a device renamed back and forth burns one id per rename; 2^32 of them
 * is a day) and gave it to a second name, whose "in" rules then matched
 * the first name's packets. An id held is skipped.
 */
static void atk3_ifid_wrap_test(struct kunit *test)
{
	u32 saved = mmb_ifname_next, held, fresh, again;

	held = mmb_ifname_get("atk3-held");
	KUNIT_ASSERT_NE(test, held, 0);
	/* Just before the held id, as after 2^32 more ids. */
	mmb_ifname_next = held - 1;
	fresh = mmb_ifname_get("atk3-fresh");
	KUNIT_EXPECT_NE(test, fresh, 0);
	KUNIT_EXPECT_NE(test, fresh, held);
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("atk3-held"), held);
	/* And at the very end of the range: 0 is no name's id. */
	mmb_ifname_next = U32_MAX;
	again = mmb_ifname_get("atk3-again");
	KUNIT_EXPECT_NE(test, again, 0);
	KUNIT_EXPECT_NE(test, again, held);
	KUNIT_EXPECT_NE(test, again, fresh);
	mmb_ifname_put("atk3-again");
	mmb_ifname_put("atk3-fresh");
	mmb_ifname_put("atk3-held");
	mmb_ifname_next = max(saved, mmb_ifname_next);
}

/* A batch op: add in @name drop. */
static void atk3_op_in_rule(struct nlt *t, const char *name)
{
	unsigned int op, rule, list, nest;

	op = nlt_nest(t, MMB_A_OP);
	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_BATCH_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IN);
	nlt_put(t, MMB_MATCH_A_IFNAME, name, strlen(name) + 1);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_DROP);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_nest_end(t, rule);
	nlt_nest_end(t, op);
}

/* A batch op: enable @name; its offset. */
static unsigned int atk3_op_enable(struct nlt *t, const char *name)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), off;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_DEV_ENABLE);
	off = nlt_put(t, MMB_BATCH_A_IFNAME, name, strlen(name) + 1);
	nlt_nest_end(t, op);
	return off;
}

/* Names interned once the rules freed meanwhile are. */
static unsigned int atk3_names(void)
{
	mmb_rules_barrier();
	return mmb_ifname_count();
}

/*
 * The references of names across batches that fail early (a bad name),
 * fail late (a device refused after the rules were built), are only
 * checked (-c), apply, and are flushed: each gives back what it took.
 */
static void atk3_batch_refs_test(struct kunit *test)
{
	struct net_device *dev, *norx;
	unsigned int n0, off;
	struct nlt t;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, atk3_forget_all, NULL), 0);
	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	dev = atk3_dev(test, "atk3bd", false);
	norx = atk3_dev(test, "atk3bn", true);
	n0 = atk3_names();

	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	atk3_op_in_rule(&t, "atk3-bq");
	atk3_op_enable(&t, "atk3bd");
	off = atk3_op_enable(&t, "atk3*b*");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, atk3_names(), n0);

	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	atk3_op_in_rule(&t, "atk3-bq");
	atk3_op_enable(&t, "atk3bd");
	off = atk3_op_enable(&t, "atk3bn");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_NULL(test, atk3_entry("atk3bd"));
	KUNIT_EXPECT_EQ(test, atk3_names(), n0);

	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlt_put(&t, MMB_A_CHECK, NULL, 0);
	atk3_op_in_rule(&t, "atk3-bq");
	atk3_op_enable(&t, "atk3bd");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_NULL(test, atk3_entry("atk3bd"));
	KUNIT_EXPECT_EQ(test, atk3_names(), n0);

	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	atk3_op_in_rule(&t, "atk3-bq");
	atk3_op_enable(&t, "atk3bd");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_NE(test, mmb_ifname_find("atk3-bq"), 0);
	KUNIT_EXPECT_EQ(test, atk3_names(), n0 + 2);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	KUNIT_EXPECT_EQ(test, atk3_names(), n0 + 1);
	atk3_forget_all(NULL);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, atk3_names(), n0);
	nlt_close(&t);
	mmbt_netdev_destroy(norx);
	mmbt_netdev_destroy(dev);
}

/* --- priorities at the edges of u32 ------------------------------------------ */

static struct mmb_rule *atk3_prio_rule(struct kunit *test, struct mmb_rules *r, u32 prio,
				       const struct mmb_match_spec *m, unsigned int nm,
				       u8 target)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s->m, m, nm * sizeof(*m));
	s->nmatches = nm;
	s->ntargets = 1;
	s->t[0].type = target;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = prio;
	s->conn_prio = prio;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	return rule;
}

/*
 * The verdict of UDP 10.0.0.@host -> 10.9.9.9:@dport, three times: once
 * outside softirq (no flow cache), twice within (a fill, then a hit);
 * the three must agree. 1 accept, 0 drop, 2 neither; *@prio its priority.
 */
static int atk3_verdict(struct kunit *test, struct mmb_rules *r, u8 host, u16 dport, u32 *prio)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .sport = 1000, .dport = dport,
		.saddr = { 10, 0, 0, host }, .daddr = { 10, 9, 9, 9 },
	};
	struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	struct mmb_ruleset *rs = mmbt_rs(r);	/* takes a mutex: before the RCU section */
	/* Three verdicts: off the stack (the debug kernel's frame limit). */
	struct mmb_verdict *v = kunit_kcalloc(test, 3, sizeof(*v), GFP_KERNEL);
	struct mmb_pkt pkt;
	int i, got[3];

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	rcu_read_lock();
	for (i = 0; i < 3; i++) {
		if (i)
			local_bh_disable();
		mmb_classify(rs, &pkt, skb, &v[i]);
		mmb_verdict_settle(&v[i]);
		if (i)
			local_bh_enable();
		got[i] = v[i].drop && !v[i].accept ? 0 : v[i].accept ? 1 : 2;
	}
	rcu_read_unlock();
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, got[1], got[0]);
	KUNIT_EXPECT_EQ(test, got[2], got[0]);
	KUNIT_EXPECT_EQ(test, v[1].prio, v[0].prio);
	KUNIT_EXPECT_EQ(test, v[2].prio, v[0].prio);
	*prio = v[0].prio;
	return got[0];
}

/*
 * Priorities 0 and 2^32 - 1: the early stop's bound (priority + 1, in 64
 * bits) at the top; accept beats drop at the top across tables; a bound
 * left by a deleted top rule stops nothing wrongly; the flow cache agrees.
 */
static void atk3_prio_extremes_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_table_info info;
	struct mmb_match_spec m[2];
	struct mmb_rule *top;
	unsigned int i;
	u32 prio;

	m[0] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000001);
	top = atk3_prio_rule(test, r, U32_MAX, m, 1, MMB_TARGET_DROP);
	m[0] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	m[1] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	atk3_prio_rule(test, r, U32_MAX, m, 2, MMB_TARGET_ACCEPT);
	atk3_prio_rule(test, r, 0, m, 1, MMB_TARGET_DROP);
	/* More masks, for a flow cache. */
	for (i = 0; i < 4; i++) {
		m[1] = mmbt_match(MMB_FIELD_IP_DADDR, MMB_OP_EQ, 0xc0000200 + i);
		m[1].plen = 24 + 2 * i;
		atk3_prio_rule(test, r, 7, m, 2, MMB_TARGET_ACCEPT);
	}
	KUNIT_EXPECT_NOT_NULL(test, mmbt_rs(r)->cache);

	/* Equal at the top, in two tables: accept beats drop. */
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 1, 53, &prio), 1);
	KUNIT_EXPECT_EQ(test, prio, U32_MAX);
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 1, 54, &prio), 0);
	KUNIT_EXPECT_EQ(test, prio, U32_MAX);
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 2, 54, &prio), 0);
	KUNIT_EXPECT_EQ(test, prio, 0U);
	/* Just below the top, in the top rule's table. */
	m[0] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000002);
	atk3_prio_rule(test, r, U32_MAX - 1, m, 1, MMB_TARGET_ACCEPT);
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 2, 54, &prio), 1);
	KUNIT_EXPECT_EQ(test, prio, U32_MAX - 1);
	/* The top rule goes; its table keeps its bound, the verdicts are right. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(r, top), 0);
	KUNIT_ASSERT_EQ(test, mmbt_table(r, 0, &info), 0);
	KUNIT_EXPECT_EQ(test, info.prio, U32_MAX);
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 1, 54, &prio), 0);
	KUNIT_EXPECT_EQ(test, prio, 0U);
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 1, 53, &prio), 1);
	KUNIT_EXPECT_EQ(test, prio, U32_MAX);
	KUNIT_EXPECT_EQ(test, atk3_verdict(test, r, 2, 54, &prio), 1);
	KUNIT_EXPECT_EQ(test, prio, U32_MAX - 1);
}

static struct kunit_case atk3_cases[] = {
	KUNIT_CASE(atk3_no_rx_handler_test),
	KUNIT_CASE(atk3_ifid_wrap_test),
	KUNIT_CASE(atk3_batch_refs_test),
	KUNIT_CASE(atk3_prio_extremes_test),
	{}
};

static struct kunit_suite atk3_suite = {
	.name = "mmb-atk3",
	.test_cases = atk3_cases,
};

kunit_test_suite(atk3_suite);
