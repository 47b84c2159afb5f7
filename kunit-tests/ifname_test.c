// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: devices by name. The registry of names (ids, references,
 * what a name or pattern may be), names and patterns enabled before their
 * devices exist and attached as the devices register, are renamed or move
 * in, "in" rules by name through the hook, and the netlink side: errors
 * that name the attribute, batches that apply whole, dumps.
 */
#include <linux/etherdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "../kmod/mmb.h"
#include "nlt.h"
#include "util.h"

/* A device called @name (or a template with %d), registered in init_net. */
static struct net_device *ift_dev(struct kunit *test, const char *name)
{
	struct net_device *dev = alloc_netdev(0, name, NET_NAME_UNKNOWN, mmbt_setup);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, register_netdev(dev), 0);
	return dev;
}

/* Enable @name in @net as MMB_CMD_DEV_ENABLE does. */
static int ift_enable(struct net *net, const char *name)
{
	struct mmb_dev_plan plan;
	int err;

	rtnl_lock();
	mmb_dev_plan_init(&plan, net);
	err = mmb_dev_plan_name(&plan, name, false, NULL);
	if (err)
		mmb_dev_plan_abort(&plan);
	else
		mmb_dev_plan_commit(&plan);
	rtnl_unlock();
	return err;
}

static int ift_forget(struct net *net, const char *name)
{
	int err;

	rtnl_lock();
	err = mmb_dev_forget(net, name, NULL);
	rtnl_unlock();
	return err;
}

/* A test's names of init_net are forgotten at its end, whatever happens. */
static void ift_forget_all(void *unused)
{
	struct mmb_net *mn = mmb_pernet(&init_net);
	struct mmb_enabled *e, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(e, tmp, &mn->enabled, list)
		mmb_dev_forget(&init_net, e->name, NULL);
	rtnl_unlock();
}

static void ift_init_net(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ift_forget_all, NULL), 0);
}

/* net/core/dev.h's since 6.9; the suites are built into the kernel. */
int dev_change_name(struct net_device *dev, const char *newname);

static int ift_rename(struct net_device *dev, const char *name)
{
	int err;

	rtnl_lock();
	err = dev_change_name(dev, name);
	rtnl_unlock();
	return err;
}

static u32 ift_id(struct net_device *dev)
{
	u32 id;

	rcu_read_lock();
	id = mmb_dev_ifid(dev);
	rcu_read_unlock();
	return id;
}

static const struct mmb_enabled *ift_entry(struct net *net, const char *name)
{
	const struct mmb_enabled *e;

	rtnl_lock();
	e = mmb_dev_enabled_find(mmb_pernet(net), name);
	rtnl_unlock();
	return e;
}

static u64 ift_rule_drops(struct net_device *dev)
{
	u64 n[MMB_COUNT_MAX];

	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(dev)->counts, n);
	rtnl_unlock();
	return n[MMB_DROP_RULE];
}

/* --- the registry --------------------------------------------------------- */

static void ifname_registry_test(struct kunit *test)
{
	unsigned int n = mmb_ifname_count();
	u32 a = mmb_ifname_get("mmbreg0"), b = mmb_ifname_get("mmbreg1");

	KUNIT_EXPECT_NE(test, a, 0);
	KUNIT_EXPECT_NE(test, b, 0);
	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, mmb_ifname_get("mmbreg0"), a);
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbreg0"), a);
	KUNIT_EXPECT_EQ(test, mmb_ifname_count(), n + 2);
	mmb_ifname_put("mmbreg0");
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbreg0"), a);
	mmb_ifname_put("mmbreg0");
	mmb_ifname_put("mmbreg1");
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbreg0"), 0);
	KUNIT_EXPECT_EQ(test, mmb_ifname_count(), n);
	/* Freed ids are not handed out again. */
	b = mmb_ifname_get("mmbreg0");
	KUNIT_EXPECT_NE(test, b, a);
	mmb_ifname_put("mmbreg0");
}

static void ifname_valid_test(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, mmb_ifname_invalid("eth0", false));
	KUNIT_EXPECT_NULL(test, mmb_ifname_invalid("123456789012345", false));
	KUNIT_EXPECT_NULL(test, mmb_ifname_invalid("ppp*", true));
	KUNIT_EXPECT_NULL(test, mmb_ifname_invalid("*", true));
	KUNIT_EXPECT_NULL(test, mmb_ifname_invalid("eth0.10", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("1234567890123456", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("a/b", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("a b", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("a:1", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("..", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("p*p", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("**", true));
	KUNIT_EXPECT_NOT_NULL(test, mmb_ifname_invalid("ppp*", false));
	KUNIT_EXPECT_TRUE(test, mmb_ifname_matches("ppp*", "ppp0"));
	KUNIT_EXPECT_TRUE(test, mmb_ifname_matches("ppp*", "ppp"));
	KUNIT_EXPECT_FALSE(test, mmb_ifname_matches("ppp*", "pp0"));
	KUNIT_EXPECT_TRUE(test, mmb_ifname_matches("*", "lo"));
	KUNIT_EXPECT_TRUE(test, mmb_ifname_matches("eth0", "eth0"));
	KUNIT_EXPECT_FALSE(test, mmb_ifname_matches("eth0", "eth00"));
}

/* --- attaching as devices appear ---------------------------------------- */

/* A name enabled first: its device is attached as it registers, again after each recreation. */
static void ifname_register_test(struct kunit *test)
{
	struct net_device *dev;
	int i;

	ift_init_net(test);
	KUNIT_ASSERT_EQ(test, ift_enable(&init_net, "mmbn0"), 0);
	KUNIT_EXPECT_EQ(test, ift_enable(&init_net, "mmbn0"), -EEXIST);
	for (i = 0; i < 3; i++) {
		dev = ift_dev(test, "mmbn0");
		KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
		KUNIT_EXPECT_EQ(test, ift_id(dev), mmb_ifname_find("mmbn0"));
		KUNIT_EXPECT_NE(test, ift_id(dev), 0);
		mmbt_netdev_destroy(dev);
	}
	/* Another name is not attached; forgotten, the name attaches nothing. */
	dev = ift_dev(test, "mmbn1");
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	mmbt_netdev_destroy(dev);
	KUNIT_EXPECT_EQ(test, ift_forget(&init_net, "mmbn0"), 0);
	KUNIT_EXPECT_EQ(test, ift_forget(&init_net, "mmbn0"), -ENOENT);
	dev = ift_dev(test, "mmbn0");
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	mmbt_netdev_destroy(dev);
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbn0"), 0);
}

/* A pattern: devices that exist and that appear; forgetting it detaches them. */
static void ifname_pattern_test(struct kunit *test)
{
	struct net_device *a, *b, *c;

	ift_init_net(test);
	a = ift_dev(test, "mmbp%d");
	KUNIT_ASSERT_EQ(test, ift_enable(&init_net, "mmbp*"), 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(a));
	b = ift_dev(test, "mmbp%d");
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(b));
	c = ift_dev(test, "mmbq%d");
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(c));
	KUNIT_EXPECT_NE(test, ift_id(a), ift_id(b));
	/* b's name also enabled alone: forgetting the pattern keeps b. */
	KUNIT_ASSERT_EQ(test, ift_enable(&init_net, b->name), 0);
	KUNIT_EXPECT_EQ(test, ift_forget(&init_net, "mmbp*"), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(a));
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(b));
	mmbt_netdev_destroy(a);
	mmbt_netdev_destroy(b);
	mmbt_netdev_destroy(c);
}

/*
 * A namespace holds at most MMB_ENABLED_MAX names and patterns (an admin's
 * loop, a script enabling every container's veth by name): the next is
 * refused with ENOSPC and a message, in a plan of many names too, and
 * nothing of it is kept; one forgotten makes room again.
 */
static void ifname_cap_test(struct kunit *test)
{
	struct mmb_net *mn = mmb_pernet(&init_net);
	struct netlink_ext_ack extack = {};
	struct mmb_dev_plan plan;
	struct mmb_enabled *e;
	char name[IFNAMSIZ];
	unsigned int i, n = 0;
	int err;

	ift_init_net(test);
	for (i = 0; i < MMB_ENABLED_MAX; i++) {
		snprintf(name, sizeof(name), "mmbk%u", i);
		KUNIT_ASSERT_EQ(test, ift_enable(&init_net, name), 0);
	}
	KUNIT_EXPECT_EQ(test, ift_enable(&init_net, "mmbk*"), -ENOSPC);
	rtnl_lock();
	mmb_dev_plan_init(&plan, &init_net);
	err = mmb_dev_plan_name(&plan, "mmbkx", false, &extack);
	mmb_dev_plan_abort(&plan);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, -ENOSPC);
	KUNIT_EXPECT_NOT_NULL(test, strstr(extack._msg ?: "", "at most 4096 names"));
	list_for_each_entry(e, &mn->enabled, list)
		n++;
	KUNIT_EXPECT_EQ(test, n, MMB_ENABLED_MAX);
	/* A plan counts its own names: two in one plan, room for one. */
	KUNIT_ASSERT_EQ(test, ift_forget(&init_net, "mmbk7"), 0);
	rtnl_lock();
	mmb_dev_plan_init(&plan, &init_net);
	err = mmb_dev_plan_name(&plan, "mmbky", false, NULL);
	if (!err)
		err = mmb_dev_plan_name(&plan, "mmbkz", false, NULL);
	mmb_dev_plan_abort(&plan);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, -ENOSPC);
	KUNIT_EXPECT_EQ(test, ift_enable(&init_net, "mmbk*"), 0);
}

/* Renamed to an enabled name: attached; away from it: detached; the id follows the name. */
static void ifname_rename_test(struct kunit *test)
{
	struct net_device *dev;
	u32 id;

	ift_init_net(test);
	KUNIT_ASSERT_EQ(test, ift_enable(&init_net, "mmbr-on"), 0);
	dev = ift_dev(test, "mmbr-off");
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_ASSERT_EQ(test, ift_rename(dev, "mmbr-on"), 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, ift_id(dev), mmb_ifname_find("mmbr-on"));
	KUNIT_ASSERT_EQ(test, ift_rename(dev, "mmbr-off"), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbr-on"), 0);

	/* Enabled as this device (not by name): it stays, under its new name's id. */
	rtnl_lock();
	KUNIT_EXPECT_EQ(test, mmb_dev_enable(dev, NULL), 0);
	rtnl_unlock();
	id = ift_id(dev);
	KUNIT_EXPECT_EQ(test, id, mmb_ifname_find("mmbr-off"));
	KUNIT_ASSERT_EQ(test, ift_rename(dev, "mmbr-other"), 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_NE(test, ift_id(dev), id);
	KUNIT_EXPECT_EQ(test, ift_id(dev), mmb_ifname_find("mmbr-other"));
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbr-off"), 0);
	mmbt_netdev_destroy(dev);
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbr-other"), 0);
}

static rx_handler_result_t ift_other_handler(struct sk_buff **pskb)
{
	return RX_HANDLER_PASS;
}

/* A device of the name that another rx_handler holds: counted, not attached. */
static void ifname_busy_test(struct kunit *test)
{
	struct net_device *dev;

	ift_init_net(test);
	KUNIT_ASSERT_EQ(test, ift_enable(&init_net, "mmbb*"), 0);
	dev = ift_dev(test, "mmbx%d");
	rtnl_lock();
	KUNIT_ASSERT_EQ(test, netdev_rx_handler_register(dev, ift_other_handler, NULL), 0);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, ift_rename(dev, "mmbb0"), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, ift_entry(&init_net, "mmbb*")->failed, 1);
	/* Enabling its name now is refused, and remembers nothing. */
	KUNIT_EXPECT_EQ(test, ift_enable(&init_net, "mmbb0"), -EBUSY);
	KUNIT_EXPECT_NULL(test, ift_entry(&init_net, "mmbb0"));
	rtnl_lock();
	netdev_rx_handler_unregister(dev);
	rtnl_unlock();
	mmbt_netdev_destroy(dev);
}

/* A device that moves into a namespace with its name enabled is attached there. */
static void ifname_netns_test(struct kunit *test)
{
	struct net *net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	struct net_device *dev;
	int err;

	KUNIT_ASSERT_FALSE(test, IS_ERR(net));
	KUNIT_ASSERT_EQ(test, ift_enable(net, "mmbm*"), 0);
	/* The name is enabled in @net only; it keeps its name as it moves. */
	dev = ift_dev(test, "mmbm%d");
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	rtnl_lock();
	err = dev_change_net_namespace(dev, net, "mmbm%d");
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	/* Back in init_net, which enabled no such name: let go. */
	rtnl_lock();
	err = dev_change_net_namespace(dev, &init_net, "mmbt%d");
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	put_net(net);
	mmbt_netdev_destroy(dev);
}

/* --- "in" rules by name, through the hook -------------------------------- */

static void ift_send(struct net_device *dev, unsigned int n)
{
	while (n--) {
		struct sk_buff *skb = mmbt_skb_udp4(dev, 8);

		if (skb)
			mmbt_receive(skb);
	}
}

/*
 * "in NAME drop" added before any device has the name; the device
 * appears, is recreated, renamed: its packets are dropped from the first,
 * a device of another name's are not; "in != NAME" the other way round.
 */
static void ifname_in_rule_test(struct kunit *test)
{
	struct mmb_rules *rules = &mmb_pernet(&init_net)->rules;
	struct mmb_match_spec in = mmbt_match_in(MMB_OP_EQ, "mmbi-wan");
	struct net_device *dev, *other;
	struct mmb_rule *rule;
	int i;

	ift_init_net(test);
	rule = mmbt_rule_add(test, rules, false, MMB_TARGET_DROP, &in, 1);
	KUNIT_ASSERT_EQ(test, ift_enable(&init_net, "mmbi-*"), 0);
	for (i = 0; i < 2; i++) {
		dev = ift_dev(test, "mmbi-wan");
		KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
		ift_send(dev, 3);
		KUNIT_EXPECT_EQ(test, ift_rule_drops(dev), 3);
		mmbt_netdev_destroy(dev);
	}
	other = ift_dev(test, "mmbi-lan");
	ift_send(other, 2);
	KUNIT_EXPECT_EQ(test, ift_rule_drops(other), 0);
	/* Renamed (down) to the rule's name: its packets are dropped. */
	KUNIT_ASSERT_EQ(test, ift_rename(other, "mmbi-wan"), 0);
	ift_send(other, 2);
	KUNIT_EXPECT_EQ(test, ift_rule_drops(other), 2);
	KUNIT_EXPECT_EQ(test, mmbt_remove(rules, rule), 0);

	in = mmbt_match_in(MMB_OP_NE, "mmbi-wan");
	rule = mmbt_rule_add(test, rules, false, MMB_TARGET_DROP, &in, 1);
	ift_send(other, 1);
	KUNIT_EXPECT_EQ(test, ift_rule_drops(other), 2);
	KUNIT_ASSERT_EQ(test, ift_rename(other, "mmbi-lan"), 0);
	ift_send(other, 1);
	KUNIT_EXPECT_EQ(test, ift_rule_drops(other), 3);
	KUNIT_EXPECT_EQ(test, mmbt_remove(rules, rule), 0);
	mmbt_netdev_destroy(other);
}

/* Rules refuse what is not one interface's name. */
static void ifname_in_check_test(struct kunit *test)
{
	static const char * const bad[] = { "", "eth*", "a/b", "a b", "." };
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule_err err = {};
	struct mmb_rule *rule;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->nmatches = 1;
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		s->m[0] = mmbt_match_in(MMB_OP_EQ, bad[i]);
		rule = mmb_rule_create(s, NULL, &err);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(rule), -EINVAL, "name \"%s\"", bad[i]);
		KUNIT_EXPECT_EQ(test, err.part, MMB_ERR_MATCH_VALUE);
	}
	/* The old form, a 4-byte value, is netlink's to convert: refused here. */
	s->m[0] = mmbt_match(MMB_FIELD_IN, MMB_OP_EQ, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mmb_rule_create(s, NULL, &err)), -EINVAL);
	s->m[0] = mmbt_match_in(MMB_OP_LT, "eth0");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mmb_rule_create(s, NULL, &err)), -EINVAL);
	/* Taken: the rule holds the name, freeing it lets go. */
	s->m[0] = mmbt_match_in(MMB_OP_EQ, "mmbc-x");
	rule = mmb_rule_create(s, NULL, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_NE(test, mmb_ifname_find("mmbc-x"), 0);
	mmb_rule_free(rule);
	KUNIT_EXPECT_EQ(test, mmb_ifname_find("mmbc-x"), 0);
}

/* --- netlink ---------------------------------------------------------------- */

/* add in @name drop, with the name as @type (MMB_MATCH_A_IFNAME, or a value); its offset. */
static unsigned int ift_nl_in_rule(struct nlt *t, u16 type, const void *v, unsigned int len)
{
	unsigned int rule, list, nest, off;

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IN);
	off = nlt_put(t, type, v, len);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_DROP);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_nest_end(t, rule);
	return off;
}

struct ift_seen {
	char in[IFNAMSIZ];		/* the "in" of the last rule dumped */
	unsigned int devs, names, waiting;
	char enabled[4][IFNAMSIZ];
};

static void ift_rule_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *r = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_RULE), *ms, *m, *n;
	struct ift_seen *seen = arg;
	int rem;

	if (!r)
		return;
	ms = nla_find_nested(r, MMB_RULE_A_MATCHES);
	if (!ms)
		return;
	nla_for_each_nested(m, ms, rem) {
		n = nla_find_nested(m, MMB_MATCH_A_IFNAME);
		if (n)
			strscpy(seen->in, nla_data(n), IFNAMSIZ);
		KUNIT_EXPECT_NULL(t->test, nla_find_nested(m, MMB_MATCH_A_VALUE));
	}
}

static void ift_dev_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *e = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_ENABLED);
	struct nlattr *n = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_ATTACHED);
	struct nlattr *dev = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_IFNAME);
	struct ift_seen *seen = arg;

	/* Devices of this suite's names; another suite's may be attached still. */
	if (nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_IFINDEX)) {
		if (dev && !strncmp(nla_data(dev), "mmbl-", 5))
			seen->devs++;
		return;
	}
	KUNIT_ASSERT_NOT_NULL(t->test, e);
	KUNIT_ASSERT_NOT_NULL(t->test, n);
	if (seen->names < ARRAY_SIZE(seen->enabled))
		strscpy(seen->enabled[seen->names], nla_data(e), IFNAMSIZ);
	seen->names++;
	seen->waiting += !nla_get_u32(n);
}

static void ifname_netlink_test(struct kunit *test)
{
	static const char * const bad[] = { "", "a/b", "a b", "p*p", "**", "..", "x:1" };
	struct ift_seen seen = {};
	struct net_device *dev;
	unsigned int off, i;
	struct nlt t;
	__be32 idx;

	ift_init_net(test);
	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);

	/* Names and patterns refused, the ACK at the name. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
		off = nlt_put(&t, MMB_A_IFNAME, bad[i], strlen(bad[i]) + 1);
		KUNIT_EXPECT_EQ_MSG(test, nlt_send(&t), -EINVAL, "\"%s\"", bad[i]);
		KUNIT_EXPECT_EQ(test, t.offs, off);
	}
	nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
	off = nlt_put(&t, MMB_A_IFNAME, "1234567890123456", 17);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	nlt_begin(&t, t.family, MMB_CMD_DEV_DISABLE);
	off = nlt_put(&t, MMB_A_IFNAME, "mmbl-none", 10);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ENOENT);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	/* A name no device has yet, and a pattern: waiting. */
	nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
	nlt_put(&t, MMB_A_IFNAME, "mmbl-wan", 9);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
	nlt_put(&t, MMB_A_IFNAME, "mmbl-v*", 8);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_dump_each(&t, MMB_CMD_DEV_GET, ift_dev_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.devs, 0);
	KUNIT_EXPECT_EQ(test, seen.names, 2);
	KUNIT_EXPECT_EQ(test, seen.waiting, 2);
	KUNIT_EXPECT_STREQ(test, seen.enabled[0], "mmbl-wan");
	KUNIT_EXPECT_STREQ(test, seen.enabled[1], "mmbl-v*");

	dev = ift_dev(test, "mmbl-v%d");
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	memset(&seen, 0, sizeof(seen));
	nlt_dump_each(&t, MMB_CMD_DEV_GET, ift_dev_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.devs, 1);
	KUNIT_EXPECT_EQ(test, seen.waiting, 1);

	/* Rules: a name of no device is taken; a pattern is not, the ACK at it. */
	off = ift_nl_in_rule(&t, MMB_MATCH_A_IFNAME, "mmbl-v*", 8);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	ift_nl_in_rule(&t, MMB_MATCH_A_IFNAME, "mmbl-gone", 10);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_dump_each(&t, MMB_CMD_RULE_GET, ift_rule_cb, &seen);
	KUNIT_EXPECT_STREQ(test, seen.in, "mmbl-gone");
	/* An older mmbctl's ifindex: stored, and dumped, as the name. */
	idx = cpu_to_be32(dev->ifindex);
	ift_nl_in_rule(&t, MMB_MATCH_A_VALUE, &idx, 4);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_dump_each(&t, MMB_CMD_RULE_GET, ift_rule_cb, &seen);
	KUNIT_EXPECT_STREQ(test, seen.in, dev->name);
	idx = cpu_to_be32(0x7fffffff);
	off = ift_nl_in_rule(&t, MMB_MATCH_A_VALUE, &idx, 4);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ENODEV);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	/* Forgetting the pattern detaches its device. */
	nlt_begin(&t, t.family, MMB_CMD_DEV_DISABLE);
	nlt_put(&t, MMB_A_IFNAME, "mmbl-v*", 8);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	mmbt_netdev_destroy(dev);
	nlt_close(&t);
}

/* A batch with a bad name applies nothing; one with a missing device's name applies. */
static void ifname_batch_test(struct kunit *test)
{
	struct ift_seen seen = {};
	struct net_device *dev;
	unsigned int op, off;
	struct nlt t;

	ift_init_net(test);
	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	op = nlt_nest(&t, MMB_A_OP);
	nlt_u8(&t, MMB_BATCH_A_CMD, MMB_CMD_DEV_ENABLE);
	nlt_put(&t, MMB_BATCH_A_IFNAME, "mmbk-a", 7);
	nlt_nest_end(&t, op);
	op = nlt_nest(&t, MMB_A_OP);
	nlt_u8(&t, MMB_BATCH_A_CMD, MMB_CMD_DEV_ENABLE);
	off = nlt_put(&t, MMB_BATCH_A_IFNAME, "mm*bk", 6);
	nlt_nest_end(&t, op);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	nlt_dump_each(&t, MMB_CMD_DEV_GET, ift_dev_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.names, 0);

	/* The same name twice, and again: taken once. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	for (off = 0; off < 2; off++) {
		op = nlt_nest(&t, MMB_A_OP);
		nlt_u8(&t, MMB_BATCH_A_CMD, MMB_CMD_DEV_ENABLE);
		nlt_put(&t, MMB_BATCH_A_IFNAME, "mmbk-a", 7);
		nlt_nest_end(&t, op);
	}
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_dump_each(&t, MMB_CMD_DEV_GET, ift_dev_cb, &seen);
	KUNIT_EXPECT_EQ(test, seen.names, 1);
	KUNIT_EXPECT_EQ(test, seen.waiting, 1);
	dev = ift_dev(test, "mmbk-a");
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	mmbt_netdev_destroy(dev);
	nlt_close(&t);
}

/* --- an egress hook the device does not take -------------------------------- */

static unsigned int ift_nf_pass(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	return NF_ACCEPT;
}

/*
 * A device whose egress hooks are full (netfilter takes 1024 a device):
 * enabling its name fails whole, with the error, and nothing stays
 * enabled, neither the name nor the device half attached; with room
 * again, the same enable attaches it.
 */
static void ifname_egress_full_test(struct kunit *test)
{
	unsigned int i, n = 1024;
	struct nf_hook_ops *ops = kunit_kcalloc(test, n, sizeof(*ops), GFP_KERNEL);
	struct net_device *dev;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	ift_init_net(test);
	dev = ift_dev(test, "mmbef0");
	for (i = 0; i < n; i++) {
		ops[i] = (struct nf_hook_ops){
			.hook = ift_nf_pass, .dev = dev, .pf = NFPROTO_NETDEV,
			.hooknum = NF_NETDEV_EGRESS, .priority = 1,
		};
		KUNIT_ASSERT_EQ(test, nf_register_net_hook(&init_net, &ops[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, ift_enable(&init_net, "mmbef0"), -E2BIG);
	KUNIT_EXPECT_NULL(test, ift_entry(&init_net, "mmbef0"));
	rtnl_lock();
	KUNIT_EXPECT_NULL(test, mmb_dev_get_rtnl(dev));
	rtnl_unlock();
	nf_unregister_net_hook(&init_net, &ops[n - 1]);
	KUNIT_EXPECT_EQ(test, ift_enable(&init_net, "mmbef0"), 0);
	KUNIT_EXPECT_NOT_NULL(test, ift_entry(&init_net, "mmbef0"));
	rtnl_lock();
	KUNIT_EXPECT_NOT_NULL(test, mmb_dev_get_rtnl(dev));
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, ift_forget(&init_net, "mmbef0"), 0);
	for (i = 0; i < n - 1; i++)
		nf_unregister_net_hook(&init_net, &ops[i]);
	mmbt_netdev_destroy(dev);
}

static struct kunit_case ifname_cases[] = {
	KUNIT_CASE(ifname_registry_test),
	KUNIT_CASE(ifname_egress_full_test),
	KUNIT_CASE(ifname_valid_test),
	KUNIT_CASE(ifname_register_test),
	KUNIT_CASE(ifname_pattern_test),
	KUNIT_CASE(ifname_cap_test),
	KUNIT_CASE(ifname_rename_test),
	KUNIT_CASE(ifname_busy_test),
	KUNIT_CASE(ifname_netns_test),
	KUNIT_CASE(ifname_in_rule_test),
	KUNIT_CASE(ifname_in_check_test),
	KUNIT_CASE(ifname_netlink_test),
	KUNIT_CASE(ifname_batch_test),
	{}
};

static struct kunit_suite ifname_suite = {
	.name = "mmb-ifname",
	.test_cases = ifname_cases,
};

kunit_test_suite(ifname_suite);
