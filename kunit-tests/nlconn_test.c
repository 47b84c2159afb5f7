// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: connections and settings over the generic netlink family.
 * Settings are checked whole before any applies; a stateful rule's flag
 * goes in and comes back; packets through a device's hook create
 * connections that the dump shows, field by field, and the monitor group
 * hears of; a flush and a rule's deletion end them.
 */
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/prandom.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "nlt.h"
#include "util.h"

static struct mmb_conns *nlc_conns(void)
{
	return &mmb_pernet(&init_net)->conns;
}

static void nlc_rpf_on(void *data)
{
	WRITE_ONCE(nlc_conns()->rpf, true);
}

/* Both ways through one device without routes: rp-filter off (rpf_test.c checks it). */
static void nlc_rpf_off(struct kunit *test)
{
	WRITE_ONCE(nlc_conns()->rpf, false);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nlc_rpf_on, NULL), 0);
}

/* The settings, from a MMB_CMD_SETTINGS_GET: @tb indexed by MMB_SET_A_*. */
static void nlc_settings(struct nlt *t, struct nlattr **tb, struct nlattr **timeouts)
{
	struct nlattr *s;

	nlt_begin(t, t->family, MMB_CMD_SETTINGS_GET);
	KUNIT_ASSERT_EQ(t->test, nlt_send(t), 0);
	KUNIT_ASSERT_GT(t->test, t->reply_len, 0);
	s = nlmsg_find_attr((struct nlmsghdr *)t->reply, GENL_HDRLEN, MMB_A_SETTINGS);
	KUNIT_ASSERT_NOT_NULL(t->test, s);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(tb, MMB_SET_A_MAX, s, NULL, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(t->test, tb[MMB_SET_A_TIMEOUTS]);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(timeouts, __MMB_CONN_STATE_MAX,
						  tb[MMB_SET_A_TIMEOUTS], NULL, NULL), 0);
}

/* A set of one timeout; returns the offset of its value. */
static unsigned int nlc_timeout(struct nlt *t, int state, u32 secs)
{
	unsigned int set = nlt_nest(t, MMB_A_SETTINGS), nest, off;

	nest = nlt_nest(t, MMB_SET_A_TIMEOUTS);
	off = nlt_u32(t, state + 1, secs);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, set);
	return off;
}

/*
 * The defaults are nf_conntrack's; a set changes what it names; one bad
 * value refuses the whole set, the ACK pointing at it, and nothing changes.
 */
static void nlconn_settings_test(struct kunit *test)
{
	struct nlattr *tb[MMB_SET_A_MAX + 1], *to[__MMB_CONN_STATE_MAX + 1];
	struct mmb_conns *mc = nlc_conns();
	u32 max = READ_ONCE(mc->max);
	unsigned int set, nest, off;
	struct nlt t;

	nlt_open(test, &t);
	nlc_settings(&t, tb, to);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[MMB_SET_A_CONN_MAX]), max);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[MMB_SET_A_TCP_LOOSE]), 1);
	KUNIT_EXPECT_EQ(test, nla_get_u32(to[MMB_CONN_TCP_ESTABLISHED + 1]), 432000);
	KUNIT_EXPECT_EQ(test, nla_get_u32(to[MMB_CONN_UDP_UNREPLIED + 1]), 30);
	KUNIT_EXPECT_EQ(test, nla_get_u32(to[MMB_CONN_ICMP + 1]), 30);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[MMB_SET_A_CONN_SIZE]), mmb_conn_size());

	/* Everything at once. */
	nlt_begin(&t, t.family, MMB_CMD_SET);
	set = nlt_nest(&t, MMB_A_SETTINGS);
	nlt_u32(&t, MMB_SET_A_CONN_MAX, 77);
	nlt_u8(&t, MMB_SET_A_TCP_LOOSE, 0);
	off = nlt_nest(&t, MMB_SET_A_TIMEOUTS);
	nlt_u32(&t, MMB_CONN_UDP_REPLIED + 1, 7);
	nlt_u32(&t, MMB_CONN_TCP_CLOSE + 1, MMB_TIMEOUT_MAX);
	nlt_nest_end(&t, off);
	nlt_nest_end(&t, set);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlc_settings(&t, tb, to);
	KUNIT_EXPECT_EQ(test, nla_get_u32(tb[MMB_SET_A_CONN_MAX]), 77);
	KUNIT_EXPECT_EQ(test, nla_get_u8(tb[MMB_SET_A_TCP_LOOSE]), 0);
	KUNIT_EXPECT_EQ(test, nla_get_u32(to[MMB_CONN_UDP_REPLIED + 1]), 7);
	KUNIT_EXPECT_EQ(test, nla_get_u32(to[MMB_CONN_TCP_CLOSE + 1]), MMB_TIMEOUT_MAX);
	KUNIT_EXPECT_EQ(test, mc->timeouts[MMB_CONN_UDP_REPLIED], 7 * HZ);

	/* A bad timeout among good settings: none applies. */
	nlt_begin(&t, t.family, MMB_CMD_SET);
	set = nlt_nest(&t, MMB_A_SETTINGS);
	nlt_u32(&t, MMB_SET_A_CONN_MAX, 99);
	nest = nlt_nest(&t, MMB_SET_A_TIMEOUTS);
	nlt_u32(&t, MMB_CONN_UDP_REPLIED + 1, 9);
	off = nlt_u32(&t, MMB_CONN_ICMP + 1, 0);
	nlt_nest_end(&t, nest);
	nlt_nest_end(&t, set);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ERANGE);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->max), 77);
	KUNIT_EXPECT_EQ(test, mc->timeouts[MMB_CONN_UDP_REPLIED], 7 * HZ);

	/* Out of range, unknown, read only. */
	nlt_begin(&t, t.family, MMB_CMD_SET);
	off = nlc_timeout(&t, MMB_CONN_ICMP, MMB_TIMEOUT_MAX + 1);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ERANGE);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	nlt_begin(&t, t.family, MMB_CMD_SET);
	off = nlc_timeout(&t, __MMB_CONN_STATE_MAX, 5);
	KUNIT_EXPECT_NE(test, nlt_send(&t), 0);
	nlt_begin(&t, t.family, MMB_CMD_SET);
	set = nlt_nest(&t, MMB_A_SETTINGS);
	off = nlt_u32(&t, MMB_SET_A_CONN_MAX, MMB_CONN_MAX_LIMIT + 1);
	nlt_nest_end(&t, set);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ERANGE);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	nlt_begin(&t, t.family, MMB_CMD_SET);
	set = nlt_nest(&t, MMB_A_SETTINGS);
	off = nlt_u32(&t, MMB_SET_A_CONN_COUNT, 1);
	nlt_nest_end(&t, set);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_STREQ(test, t.msg, "read only");
	nlt_begin(&t, t.family, MMB_CMD_SET);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);	/* no MMB_A_SETTINGS */
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->max), 77);

	/* Back as it was. */
	nlt_begin(&t, t.family, MMB_CMD_SET);
	set = nlt_nest(&t, MMB_A_SETTINGS);
	nlt_u32(&t, MMB_SET_A_CONN_MAX, max);
	nlt_u8(&t, MMB_SET_A_TCP_LOOSE, 1);
	off = nlt_nest(&t, MMB_SET_A_TIMEOUTS);
	nlt_u32(&t, MMB_CONN_UDP_REPLIED + 1, 120);
	nlt_u32(&t, MMB_CONN_TCP_CLOSE + 1, 10);
	nlt_nest_end(&t, off);
	nlt_nest_end(&t, set);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_close(&t);
}

/*
 * A request to add a stateful rule, udp-dport @port accept (or mod of
 * @mod_field, then the offset of that field is returned).
 */
/* A rule's matches: "udp-dport @port". */
static void nlc_match_dport(struct nlt *t, u16 port)
{
	unsigned int list = nlt_nest(t, MMB_RULE_A_MATCHES), nest = nlt_nest(t, 1);
	__be16 p = htons(port);

	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_UDP_DPORT);
	nlt_put(t, MMB_MATCH_A_VALUE, &p, 2);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
}

/*
 * add-stateful udp-dport @port, then accept or, with @type, a target of
 * @field (mod and map set 10.0.0.9); the offset of the target's field.
 */
static unsigned int nlc_stateful(struct nlt *t, u16 port, u8 type, u16 mod_field)
{
	unsigned int rule, list, nest, off = 0;

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	nlc_match_dport(t, port);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	if (mod_field) {
		nlt_u8(t, MMB_TARGET_A_TYPE, type);
		off = nlt_u16(t, MMB_TARGET_A_FIELD, mod_field);
		if (type != MMB_TARGET_SHUFFLE)
			nlt_put(t, MMB_TARGET_A_VALUE, "\x0a\0\0\x09", 4);
	} else {
		nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ACCEPT);
	}
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	nlt_nest_end(t, rule);
	return off;
}

/* What a dump of connections found. */
struct nlc_seen {
	unsigned int n;
	u8 proto, state;
	__be32 saddr, daddr;
	__be16 sport, dport, reply_sport;
	u64 packets, reply_packets;
	u32 rule;
};

static void nlc_conn_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[MMB_CONN_A_MAX + 1], *tu[MMB_TUPLE_A_MAX + 1], *ts[MMB_STATS_A_MAX + 1];
	struct nlattr *a = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_CONN), *r;
	struct nlc_seen *s = arg;

	s->n++;
	KUNIT_ASSERT_NOT_NULL(t->test, a);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(tb, MMB_CONN_A_MAX, a, NULL, NULL), 0);
	s->proto = nla_get_u8(tb[MMB_CONN_A_PROTO]);
	s->state = nla_get_u8(tb[MMB_CONN_A_STATE]);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(tu, MMB_TUPLE_A_MAX, tb[MMB_CONN_A_ORIG],
						  NULL, NULL), 0);
	s->saddr = nla_get_in_addr(tu[MMB_TUPLE_A_SADDR]);
	s->daddr = nla_get_in_addr(tu[MMB_TUPLE_A_DADDR]);
	s->sport = nla_get_be16(tu[MMB_TUPLE_A_SPORT]);
	s->dport = nla_get_be16(tu[MMB_TUPLE_A_DPORT]);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(tu, MMB_TUPLE_A_MAX, tb[MMB_CONN_A_REPLY],
						  NULL, NULL), 0);
	s->reply_sport = nla_get_be16(tu[MMB_TUPLE_A_SPORT]);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(ts, MMB_STATS_A_MAX,
						  tb[MMB_CONN_A_STATS_ORIG], NULL, NULL), 0);
	s->packets = nla_get_u64(ts[MMB_STATS_A_PACKETS]);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(ts, MMB_STATS_A_MAX,
						  tb[MMB_CONN_A_STATS_REPLY], NULL, NULL), 0);
	s->reply_packets = nla_get_u64(ts[MMB_STATS_A_PACKETS]);
	r = nla_find_nested(tb[MMB_CONN_A_RULES], 1);
	s->rule = r ? nla_get_u32(r) : 0;
}

static struct nlc_seen nlc_dump(struct nlt *t)
{
	struct nlc_seen s = {};

	KUNIT_EXPECT_EQ(t->test, nlt_dump_each(t, MMB_CMD_CONN_GET, nlc_conn_cb, &s), s.n);
	return s;
}

/* Receive a UDP packet on @dev from 10.0.0.1:@sport to 10.0.1.1:@dport. */
static void nlc_udp(struct net_device *dev, u16 sport, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .sport = sport, .dport = dport,
		.saddr = { 10, 0, 0, 1 }, .daddr = { 10, 0, 1, 1 }, .payload_len = 4,
	};
	struct sk_buff *skb = mmbt_pkt_build(dev, &d);

	if (skb)
		mmbt_receive(mmbt_frame(dev, skb));
}

static bool nlc_has_flag(struct nlt *t, const struct nlmsghdr *nlh)
{
	struct nlattr *a = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_RULE);

	return a && nla_find_nested(a, MMB_RULE_A_STATEFUL);
}

static void nlc_rule_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
	*(unsigned int *)arg += nlc_has_flag(t, nlh);
}

/* One event from the monitor group: its command, and its connection's state. */
static u8 nlc_event(struct nlt *t, u8 *state)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)t->rx;
	struct nlattr *a, *s;

	KUNIT_ASSERT_GT(t->test, nlt_rx(t), 0);
	a = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_CONN);
	KUNIT_ASSERT_NOT_NULL(t->test, a);
	s = nla_find_nested(a, MMB_CONN_A_STATE);
	*state = s ? nla_get_u8(s) : 0xff;
	return ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
}

/*
 * Through a device's hook: connections appear in the dump with their
 * tuples, counters and rule, the monitor hears of them, a flush and the
 * deletion of their rule end them. A stateful NAT is taken, a bad shuffle not.
 */
static void nlconn_dump_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct nlt t, *ev = kunit_kzalloc(test, sizeof(*ev), GFP_KERNEL);
	unsigned int flags = 0, attr;
	struct nlc_seen s;
	u32 handle;
	u8 state;

	KUNIT_ASSERT_NOT_NULL(test, ev);
	nlc_rpf_off(test);
	nlt_open(test, &t);
	nlt_open(test, ev);
	KUNIT_ASSERT_NE(test, ev->events, 0);
	KUNIT_ASSERT_EQ(test, nlt_join_events(ev), 0);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	nlc_stateful(&t, 53, 0, 0);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	handle = t.handle;
	nlt_dump_each(&t, MMB_CMD_RULE_GET, nlc_rule_cb, &flags);
	KUNIT_EXPECT_EQ(test, flags, 1);

	nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
	nlt_u32(&t, MMB_A_IFINDEX, dev->ifindex);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	nlc_udp(dev, 5000, 53);
	KUNIT_EXPECT_EQ(test, nlc_event(ev, &state), MMB_CMD_CONN_NEW);
	KUNIT_EXPECT_EQ(test, state, MMB_CONN_UDP_UNREPLIED);
	nlc_udp(dev, 5000, 53);
	s = nlc_dump(&t);
	KUNIT_EXPECT_EQ(test, s.n, 1);
	KUNIT_EXPECT_EQ(test, s.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, s.state, MMB_CONN_UDP_UNREPLIED);
	KUNIT_EXPECT_EQ(test, s.saddr, htonl(0x0a000001));
	KUNIT_EXPECT_EQ(test, s.daddr, htonl(0x0a000101));
	KUNIT_EXPECT_EQ(test, s.sport, htons(5000));
	KUNIT_EXPECT_EQ(test, s.dport, htons(53));
	KUNIT_EXPECT_EQ(test, s.reply_sport, htons(53));
	KUNIT_EXPECT_EQ(test, s.packets, 2);
	KUNIT_EXPECT_EQ(test, s.reply_packets, 0);
	KUNIT_EXPECT_EQ(test, s.rule, handle);

	/* A flush of connections: the rule stays, the connection goes. */
	nlt_begin(&t, t.family, MMB_CMD_CONN_FLUSH);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlc_event(ev, &state), MMB_CMD_CONN_DESTROY);
	KUNIT_EXPECT_EQ(test, nlc_dump(&t).n, 0);
	for (s.n = 0; s.n < 3; s.n++)
		nlc_udp(dev, 6000 + s.n, 53);
	KUNIT_EXPECT_EQ(test, nlc_dump(&t).n, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&nlc_conns()->count), 3);

	/* The rule's deletion ends them at once. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_DEL);
	attr = nlt_nest(&t, MMB_A_RULE);
	nlt_u32(&t, MMB_RULE_A_HANDLE, handle);
	nlt_nest_end(&t, attr);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlc_dump(&t).n, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&nlc_conns()->count), 0);

	/*
	 * A stateful mod of an address is NAT, and taken; a shuffle of an
	 * address is refused, the ACK at the target's field.
	 */
	nlc_stateful(&t, 53, MMB_TARGET_MOD, MMB_FIELD_IP_SADDR);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	attr = nlc_stateful(&t, 54, MMB_TARGET_SHUFFLE, MMB_FIELD_IP_SADDR);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, attr);

	nlt_begin(&t, t.family, MMB_CMD_DEV_DISABLE);
	nlt_u32(&t, MMB_A_IFINDEX, dev->ifindex);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_close(ev);
	nlt_close(&t);
}

/* A batch's "add udp-dport @port accept"; with no target if @bad. */
static void nlc_op_add(struct nlt *t, u16 port, bool bad)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), rule, list, nest;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_BATCH_A_RULE);
	nlc_match_dport(t, port);
	if (!bad) {
		list = nlt_nest(t, MMB_RULE_A_TARGETS);
		nest = nlt_nest(t, 1);
		nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_ACCEPT);
		nlt_nest_end(t, nest);
		nlt_nest_end(t, list);
	}
	nlt_nest_end(t, rule);
	nlt_nest_end(t, op);
}

/* A batch's "enable @name"; the offset of the name. */
static unsigned int nlc_op_enable(struct nlt *t, const char *name)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), off;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_DEV_ENABLE);
	off = nlt_put(t, MMB_BATCH_A_IFNAME, name, strlen(name) + 1);
	nlt_nest_end(t, op);
	return off;
}

/* A batch's "set conn-max @max"; the offset of the value. */
static unsigned int nlc_op_set(struct nlt *t, u32 max)
{
	unsigned int op = nlt_nest(t, MMB_A_OP), set, off;

	nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_SET);
	set = nlt_nest(t, MMB_BATCH_A_SETTINGS);
	off = nlt_u32(t, MMB_SET_A_CONN_MAX, max);
	nlt_nest_end(t, set);
	nlt_nest_end(t, op);
	return off;
}

static void nlc_count_cb(struct nlt *t, const struct nlmsghdr *nlh, void *arg)
{
}

/*
 * A batch that enables devices and sets settings, as "mmbctl save" writes
 * and "-f" applies: everything applies, or (a name no device can have, a
 * device that cannot take mmb, a bad setting, a bad rule) nothing does, the
 * ACK naming the attribute. Enabling an enabled name in a batch is no
 * error; a name no device has is remembered.
 */
static void nlconn_batch_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmb_conns *mc = nlc_conns();
	u32 max = READ_ONCE(mc->max);
	unsigned int off;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);

	/* A name no device can have, last: no rule, no device, no setting. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlc_op_add(&t, 53, false);
	nlc_op_enable(&t, dev->name);
	nlc_op_set(&t, 55);
	off = nlc_op_enable(&t, "no/such/dev");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_EQ(test, nlt_dump_each(&t, MMB_CMD_RULE_GET, nlc_count_cb, NULL), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->max), max);

	/* A device that cannot take mmb (loopback). */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlc_op_enable(&t, dev->name);
	off = nlc_op_enable(&t, "lo");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));

	/* A bad setting, a bad rule. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlc_op_enable(&t, dev->name);
	off = nlc_op_set(&t, 0);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ERANGE);
	KUNIT_EXPECT_EQ(test, t.offs, off);
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlc_op_enable(&t, dev->name);
	nlc_op_set(&t, 55);
	nlc_op_add(&t, 53, true);
	KUNIT_EXPECT_NE(test, nlt_send(&t), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->max), max);

	/* All of it, the device named twice. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlc_op_enable(&t, dev->name);
	nlc_op_set(&t, 55);
	nlc_op_add(&t, 53, false);
	nlc_op_enable(&t, dev->name);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlt_dump_each(&t, MMB_CMD_RULE_GET, nlc_count_cb, NULL), 1);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->max), 55);

	/* Again, after a flush: the same state, no error. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	off = nlt_nest(&t, MMB_A_OP);
	nlt_u8(&t, MMB_BATCH_A_CMD, MMB_CMD_RULE_FLUSH);
	nlt_nest_end(&t, off);
	nlc_op_set(&t, 56);
	nlc_op_enable(&t, dev->name);
	nlc_op_add(&t, 53, false);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_EQ(test, nlt_dump_each(&t, MMB_CMD_RULE_GET, nlc_count_cb, NULL), 1);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->max), 56);

	/* Enabling it outside a batch is still an error. */
	nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
	nlt_u32(&t, MMB_A_IFINDEX, dev->ifindex);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EEXIST);

	/* A name no device has (yet) is remembered: the batch applies. */
	nlt_begin(&t, t.family, MMB_CMD_RULE_BATCH);
	nlc_op_enable(&t, "nosuchdev0");
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	nlt_begin(&t, t.family, MMB_CMD_DEV_DISABLE);
	nlt_put(&t, MMB_A_IFNAME, "nosuchdev0", 11);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	/* Names are the namespace's: forgotten, or the next test's device of it is taken. */
	nlt_begin(&t, t.family, MMB_CMD_DEV_DISABLE);
	nlt_put(&t, MMB_A_IFNAME, dev->name, strlen(dev->name) + 1);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));

	WRITE_ONCE(mc->max, max);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
	mmbt_netdev_destroy(dev);
}

/* A trace of UDP from @saddr:@sport to @daddr:@dport arriving on @ifindex. */
static void nlc_trace_udp(struct nlt *t, u32 ifindex, const char *saddr, u16 sport,
			  const char *daddr, u16 dport)
{
	const struct { u16 field; const void *v; unsigned int len; } f[] = {
		{ MMB_FIELD_IP_SADDR, saddr, 4 }, { MMB_FIELD_IP_DADDR, daddr, 4 },
		{ MMB_FIELD_UDP_SPORT, &(__be16){ htons(sport) }, 2 },
		{ MMB_FIELD_UDP_DPORT, &(__be16){ htons(dport) }, 2 },
	};
	unsigned int trace, list, nest, i;

	nlt_begin(t, t->family, MMB_CMD_TRACE);
	trace = nlt_nest(t, MMB_A_TRACE);
	nlt_u32(t, MMB_TRACE_A_IFINDEX, ifindex);
	nlt_u8(t, MMB_TRACE_A_FAMILY, 4);
	nlt_u8(t, MMB_TRACE_A_PROTO, IPPROTO_UDP);
	list = nlt_nest(t, MMB_TRACE_A_FIELDS);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		nest = nlt_nest(t, i + 1);
		nlt_u16(t, MMB_MATCH_A_FIELD, f[i].field);
		nlt_put(t, MMB_MATCH_A_VALUE, f[i].v, f[i].len);
		nlt_nest_end(t, nest);
	}
	nlt_nest_end(t, list);
	nlt_nest_end(t, trace);
}

/* What a trace answered. */
struct nlc_traced {
	u8 verdict, how;
	u32 handle;
	unsigned int nrules;
	bool conn, conn_new;
	int dir;
};

static struct nlc_traced nlc_traced(struct nlt *t)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)t->reply;
	struct nlattr *tb[MMB_TRACE_A_MAX + 1], *r, *a;
	struct nlc_traced s = { .dir = -1 };
	int rem;

	KUNIT_ASSERT_GT(t->test, t->reply_len, 0);
	a = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_TRACE);
	KUNIT_ASSERT_NOT_NULL(t->test, a);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(tb, MMB_TRACE_A_MAX, a, NULL, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(t->test, tb[MMB_TRACE_A_VERDICT]);
	KUNIT_ASSERT_NOT_NULL(t->test, tb[MMB_TRACE_A_RULES]);
	KUNIT_EXPECT_EQ(t->test, nla_get_u8(tb[MMB_TRACE_A_PARSE]), MMB_TRACE_PARSED);
	s.verdict = nla_get_u8(tb[MMB_TRACE_A_VERDICT]);
	nla_for_each_nested(r, tb[MMB_TRACE_A_RULES], rem) {
		s.nrules++;
		s.handle = nla_get_u32(nla_find_nested(r, MMB_TRACE_RULE_A_HANDLE));
		s.how = nla_get_u8(nla_find_nested(r, MMB_TRACE_RULE_A_HOW));
	}
	s.conn = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_CONN);
	s.conn_new = tb[MMB_TRACE_A_CONN_NEW];
	if (tb[MMB_TRACE_A_CONN_DIR])
		s.dir = nla_get_u8(tb[MMB_TRACE_A_CONN_DIR]);
	return s;
}

/*
 * A trace answers what the hook does with a packet, and changes nothing:
 * the first packet of a reflexive ACL's connection is accepted by its
 * stateful rule and would start one, but none starts and no counter
 * moves; once a real packet started it, the reply's trace finds it, in
 * the reply direction, without counting the reply. Bad requests are
 * refused at the attribute.
 */
static void nlconn_trace_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	unsigned int off, trace, list, nest;
	struct nlc_traced r;
	struct nlc_seen s;
	u32 handle;
	struct nlt t;

	nlc_rpf_off(test);
	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	nlt_begin(&t, t.family, MMB_CMD_DEV_ENABLE);
	nlt_u32(&t, MMB_A_IFINDEX, dev->ifindex);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	nlc_stateful(&t, 53, 0, 0);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	handle = t.handle;

	nlc_trace_udp(&t, dev->ifindex, "\x0a\0\0\x01", 1000, "\x0a\0\x01\x01", 53);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	r = nlc_traced(&t);
	KUNIT_EXPECT_EQ(test, r.verdict, MMB_TRACE_ACCEPT);
	KUNIT_EXPECT_EQ(test, r.nrules, 1);
	KUNIT_EXPECT_EQ(test, r.handle, handle);
	KUNIT_EXPECT_EQ(test, r.how, MMB_TRACE_STATEFUL);
	KUNIT_EXPECT_TRUE(test, r.conn_new);
	KUNIT_EXPECT_FALSE(test, r.conn);
	KUNIT_EXPECT_EQ(test, nlc_dump(&t).n, 0);

	/* Another port: no rule, passed on. */
	nlc_trace_udp(&t, dev->ifindex, "\x0a\0\0\x01", 1000, "\x0a\0\x01\x01", 54);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	r = nlc_traced(&t);
	KUNIT_EXPECT_EQ(test, r.verdict, MMB_TRACE_PASS);
	KUNIT_EXPECT_EQ(test, r.nrules, 0);
	KUNIT_EXPECT_FALSE(test, r.conn_new);

	nlc_udp(dev, 1000, 53);
	s = nlc_dump(&t);
	KUNIT_ASSERT_EQ(test, s.n, 1);
	nlc_trace_udp(&t, dev->ifindex, "\x0a\0\x01\x01", 53, "\x0a\0\0\x01", 1000);
	KUNIT_ASSERT_EQ(test, nlt_send(&t), 0);
	r = nlc_traced(&t);
	KUNIT_EXPECT_EQ(test, r.verdict, MMB_TRACE_ACCEPT);
	KUNIT_EXPECT_TRUE(test, r.conn);
	KUNIT_EXPECT_EQ(test, r.dir, 1);
	KUNIT_EXPECT_EQ(test, r.how, MMB_TRACE_CONN);
	s = nlc_dump(&t);
	KUNIT_EXPECT_EQ(test, s.n, 1);
	KUNIT_EXPECT_EQ(test, s.packets, 1);
	KUNIT_EXPECT_EQ(test, s.reply_packets, 0);
	KUNIT_EXPECT_EQ(test, s.state, MMB_CONN_UDP_UNREPLIED);

	/* Refused: a family that is none, a field mmb makes, both forms, no device. */
	nlt_begin(&t, t.family, MMB_CMD_TRACE);
	trace = nlt_nest(&t, MMB_A_TRACE);
	off = nlt_u8(&t, MMB_TRACE_A_FAMILY, 5);
	nlt_u8(&t, MMB_TRACE_A_PROTO, IPPROTO_UDP);
	nlt_nest_end(&t, trace);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	nlt_begin(&t, t.family, MMB_CMD_TRACE);
	trace = nlt_nest(&t, MMB_A_TRACE);
	nlt_u8(&t, MMB_TRACE_A_FAMILY, 4);
	nlt_u8(&t, MMB_TRACE_A_PROTO, IPPROTO_UDP);
	list = nlt_nest(&t, MMB_TRACE_A_FIELDS);
	nest = nlt_nest(&t, 1);
	off = nlt_u16(&t, MMB_MATCH_A_FIELD, MMB_FIELD_IP_LEN);
	nlt_put(&t, MMB_MATCH_A_VALUE, "\0\x28", 2);
	nlt_nest_end(&t, nest);
	nlt_nest_end(&t, list);
	nlt_nest_end(&t, trace);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	nlt_begin(&t, t.family, MMB_CMD_TRACE);
	trace = nlt_nest(&t, MMB_A_TRACE);
	off = nlt_put(&t, MMB_TRACE_A_PACKET, "\x45\0\0\x14", 4);
	nlt_u8(&t, MMB_TRACE_A_FAMILY, 4);
	nlt_nest_end(&t, trace);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	nlt_begin(&t, t.family, MMB_CMD_TRACE);
	trace = nlt_nest(&t, MMB_A_TRACE);
	off = nlt_u32(&t, MMB_TRACE_A_IFINDEX, 0x7fffffff);
	nlt_put(&t, MMB_TRACE_A_PACKET, "\x45\0\0\x14", 4);
	nlt_nest_end(&t, trace);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -ENODEV);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	/* An answer's attribute in a request. */
	nlt_begin(&t, t.family, MMB_CMD_TRACE);
	trace = nlt_nest(&t, MMB_A_TRACE);
	nlt_put(&t, MMB_TRACE_A_PACKET, "\x45\0\0\x14", 4);
	off = nlt_u8(&t, MMB_TRACE_A_VERDICT, 0);
	nlt_nest_end(&t, trace);
	KUNIT_EXPECT_EQ(test, nlt_send(&t), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, off);

	KUNIT_EXPECT_EQ(test, nlc_dump(&t).n, 1);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
	mmbt_netdev_destroy(dev);
}

/* What the stack received after mmb's hook, seen by a tap on the device. */
struct nlc_tap {
	struct packet_type pt4, pt6;
	unsigned int seen, len;
	u8 data[256];
};

static struct nlc_tap *nlc_tap;

static int nlc_tap_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt,
		       struct net_device *orig)
{
	struct nlc_tap *tap = nlc_tap;

	if (tap) {
		tap->seen++;
		tap->len = min_t(unsigned int, skb->len, sizeof(tap->data));
		skb_copy_bits(skb, 0, tap->data, tap->len);
	}
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

/* A stateless rule of @nm matches and one target, in init_net's rules. */
static struct mmb_rule *nlc_rule(struct kunit *test, const struct mmb_match_spec *m,
				 unsigned int nm, u8 type, u16 field, u32 value)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->nmatches = nm;
	memcpy(s->m, m, nm * sizeof(*m));
	s->ntargets = 1;
	s->t[0].type = type;
	s->t[0].rate = MMB_RATE_ALWAYS;
	if (type == MMB_TARGET_MOD) {
		s->t[0].field = field;
		s->t[0].plen = mmb_field(field)->bits;
		s->t[0].vlen = mmb_field_size(s->t[0].plen);
		for (i = s->t[0].vlen - 1; i >= 0; i--, value >>= 8)
			s->t[0].value[i] = value & 0xff;
	}
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(&mmb_pernet(&init_net)->rules, rule, NULL), 0);
	return rule;
}

/*
 * The trace judged against the datapath: 400 random packets (IPv4 and
 * IPv6; TCP, UDP, ICMP; TTLs and ports about the rules' values, random
 * TOS and payloads), each traced and
 * then received on the device. The trace's verdict is what the hook did (a
 * drop counted, or the packet handed on), and its rewritten packet is,
 * byte for byte, what the stack got after the hook.
 */
static void nlconn_trace_datapath_test(struct kunit *test)
{
	static const u16 ports[] = { 53, 80, 999, 1000, 4242 };
	/* Either side of the rules' bounds: ip-ttl < 10, ip6-hop-limit > 200. */
	static const u8 ttls[] = { 1, 5, 9, 10, 64, 200, 201, 255 };
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmb_rule *rules[6];
	struct mmb_match_spec m[1];
	struct rnd_state rs;
	struct nlc_tap *tap;
	unsigned int i, n = 0, drops = 0, rewrites = 0;
	struct nlattr **tb, *a;
	struct nlt *t;
	u64 *cnt;

	/* Off the stack: a debug kernel's frame limit. */
	tap = kunit_kzalloc(test, sizeof(*tap), GFP_KERNEL);
	tb = kunit_kcalloc(test, MMB_TRACE_A_MAX + 1, sizeof(*tb), GFP_KERNEL);
	cnt = kunit_kcalloc(test, MMB_COUNT_MAX, sizeof(*cnt), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, tap);
	KUNIT_ASSERT_NOT_NULL(test, tb);
	KUNIT_ASSERT_NOT_NULL(test, cnt);
	nlt_open(test, t);
	KUNIT_ASSERT_EQ(test, nlt_flush(t), 0);
	nlt_begin(t, t->family, MMB_CMD_DEV_ENABLE);
	nlt_u32(t, MMB_A_IFINDEX, dev->ifindex);
	KUNIT_ASSERT_EQ(test, nlt_send(t), 0);
	m[0] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	rules[n++] = nlc_rule(test, m, 1, MMB_TARGET_DROP, 0, 0);
	m[0] = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
	rules[n++] = nlc_rule(test, m, 1, MMB_TARGET_ACCEPT, 0, 0);
	m[0] = mmbt_match(MMB_FIELD_IP_TTL, MMB_OP_LT, 10);
	rules[n++] = nlc_rule(test, m, 1, MMB_TARGET_DROP, 0, 0);
	m[0] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	rules[n++] = nlc_rule(test, m, 1, MMB_TARGET_MOD, MMB_FIELD_IP_TTL, 33);
	m[0] = mmbt_match(MMB_FIELD_IP6_HOP_LIMIT, MMB_OP_GT, 200);
	rules[n++] = nlc_rule(test, m, 1, MMB_TARGET_MOD, MMB_FIELD_IP6_DSCP, 5);
	m[0] = mmbt_match(MMB_FIELD_UDP_SPORT, MMB_OP_LT, 1000);
	rules[n++] = nlc_rule(test, m, 1, MMB_TARGET_MOD, MMB_FIELD_UDP_SPORT, 7);

	nlc_tap = tap;
	tap->pt4.dev = dev;
	tap->pt4.type = htons(ETH_P_IP);
	tap->pt4.func = nlc_tap_rcv;
	tap->pt6 = tap->pt4;
	tap->pt6.type = htons(ETH_P_IPV6);
	dev_add_pack(&tap->pt4);
	dev_add_pack(&tap->pt6);
	prandom_seed_state(&rs, 21);
	for (i = 0; i < 400; i++) {
		struct mmbt_pkt_desc d = {
			.v6 = prandom_u32_state(&rs) & 1,
			.ttl = ttls[prandom_u32_state(&rs) % ARRAY_SIZE(ttls)],
			.tos = prandom_u32_state(&rs),
			.sport = ports[prandom_u32_state(&rs) % ARRAY_SIZE(ports)],
			.dport = ports[prandom_u32_state(&rs) % ARRAY_SIZE(ports)],
			.saddr = { 10, 0, 0, 1 }, .daddr = { 10, 0, 1, 1 },
			.payload_len = prandom_u32_state(&rs) % 64,
			.payload_seed = i,
		};
		unsigned int trace, seen, dropped;
		struct sk_buff *skb;
		u8 verdict;

		d.proto = i % 3 == 0 ? IPPROTO_TCP : i % 3 == 1 ? IPPROTO_UDP :
			  d.v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
		if (d.v6) {
			d.saddr[0] = 0xfd;
			d.daddr[0] = 0xfd;
		}
		skb = mmbt_pkt_build(dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		nlt_begin(t, t->family, MMB_CMD_TRACE);
		trace = nlt_nest(t, MMB_A_TRACE);
		nlt_u32(t, MMB_TRACE_A_IFINDEX, dev->ifindex);
		nlt_put(t, MMB_TRACE_A_PACKET, skb->data, skb->len);
		nlt_nest_end(t, trace);
		KUNIT_ASSERT_EQ(test, nlt_send(t), 0);
		a = nlmsg_find_attr((struct nlmsghdr *)t->reply, GENL_HDRLEN, MMB_A_TRACE);
		KUNIT_ASSERT_NOT_NULL(test, a);
		KUNIT_ASSERT_EQ(test, nla_parse_nested(tb, MMB_TRACE_A_MAX, a, NULL, NULL), 0);
		verdict = nla_get_u8(tb[MMB_TRACE_A_VERDICT]);

		rtnl_lock();
		mmb_counts_read(mmb_dev_get_rtnl(dev)->counts, cnt);
		rtnl_unlock();
		dropped = cnt[MMB_DROP_RULE];
		seen = tap->seen;
		mmbt_receive(mmbt_frame(dev, skb));
		rtnl_lock();
		mmb_counts_read(mmb_dev_get_rtnl(dev)->counts, cnt);
		rtnl_unlock();
		if (verdict == MMB_TRACE_DROP) {
			drops++;
			KUNIT_EXPECT_EQ_MSG(test, cnt[MMB_DROP_RULE], dropped + 1, "packet %u", i);
			KUNIT_EXPECT_EQ_MSG(test, tap->seen, seen, "packet %u", i);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, cnt[MMB_DROP_RULE], dropped, "packet %u", i);
		KUNIT_ASSERT_EQ_MSG(test, tap->seen, seen + 1, "packet %u", i);
		a = tb[MMB_TRACE_A_RESULT] ?: tb[MMB_TRACE_A_PACKET];
		rewrites += !!tb[MMB_TRACE_A_RESULT];
		KUNIT_EXPECT_EQ_MSG(test, tap->len, min_t(u32, nla_len(a), sizeof(tap->data)),
				    "packet %u", i);
		KUNIT_EXPECT_MEMEQ_MSG(test, tap->data, nla_data(a), tap->len, "packet %u", i);
	}
	dev_remove_pack(&tap->pt4);
	dev_remove_pack(&tap->pt6);
	nlc_tap = NULL;
	/* Each outcome came up. */
	KUNIT_EXPECT_GT(test, drops, 20);
	KUNIT_EXPECT_GT(test, rewrites, 20);
	KUNIT_EXPECT_GT(test, 400 - drops - rewrites, 20);
	for (i = 0; i < n; i++)
		mmbt_remove(&mmb_pernet(&init_net)->rules, rules[i]);
	KUNIT_EXPECT_EQ(test, nlt_flush(t), 0);
	nlt_close(t);
	mmbt_netdev_destroy(dev);
}

static struct kunit_case mmb_nlconn_cases[] = {
	KUNIT_CASE(nlconn_settings_test),
	KUNIT_CASE(nlconn_dump_test),
	KUNIT_CASE(nlconn_batch_test),
	KUNIT_CASE(nlconn_trace_test),
	KUNIT_CASE(nlconn_trace_datapath_test),
	{}
};

static struct kunit_suite mmb_nlconn_suite = {
	.name = "mmb-nlconn",
	.test_cases = mmb_nlconn_cases,
};

kunit_test_suites(&mmb_nlconn_suite);
