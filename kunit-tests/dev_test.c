// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: attaching to devices, counting what the hook sees, and
 * letting go of devices that disappear.
 */
#include <linux/rtnetlink.h>
#include <net/ip.h>

#include "../kmod/mmb.h"
#include "util.h"

static int mmbt_enable(struct net_device *dev)
{
	int err;

	rtnl_lock();
	err = mmb_dev_enable(dev, NULL);
	rtnl_unlock();
	return err;
}

static int mmbt_disable(struct net_device *dev)
{
	int err;

	rtnl_lock();
	err = mmb_dev_disable(dev, NULL);
	rtnl_unlock();
	return err;
}

static void mmbt_stats(struct net_device *dev, struct mmb_stats *st)
{
	rtnl_lock();
	mmb_stats_read(mmb_dev_get_rtnl(dev)->stats, st);
	rtnl_unlock();
}

static void dev_enable_disable_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);

	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_EQ(test, mmbt_enable(dev), 0);
	KUNIT_EXPECT_TRUE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(dev->rx_handler),
			    (rx_handler_func_t *)mmb_hook);
	KUNIT_EXPECT_EQ(test, mmbt_enable(dev), -EEXIST);
	KUNIT_EXPECT_EQ(test, mmbt_disable(dev), 0);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(dev->rx_handler));
	KUNIT_EXPECT_EQ(test, mmbt_disable(dev), -ENOENT);
	mmbt_netdev_destroy(dev);
}

static void dev_count_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmb_stats st;
	struct sk_buff *skb;
	int i;

	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	for (i = 0; i < 10; i++) {
		skb = mmbt_skb_udp4(dev, i);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		mmbt_receive(skb);
	}
	/* A frame a tap holds a reference to is seen too. */
	skb = mmbt_skb_udp4(dev, 100);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_get(skb);
	mmbt_receive(skb);
	kfree_skb(skb);

	mmbt_stats(dev, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 11);
	/* 10 x 28 bytes of headers + 0..9 bytes payload, then 128 bytes */
	KUNIT_EXPECT_EQ(test, st.bytes, 10 * 28 + 45 + 128);
	mmbt_netdev_destroy(dev);
}

/* What a protocol handler bound to the test device received. */
static struct {
	int count;
	int same;
	const u8 *want;
	unsigned int len;
} delivered;

static int deliver_rcv(struct sk_buff *skb, struct net_device *dev,
		       struct packet_type *pt, struct net_device *orig_dev)
{
	delivered.count++;
	if (skb->len == delivered.len && !skb_linearize(skb) &&
	    !memcmp(skb->data, delivered.want, skb->len))
		delivered.same++;
	kfree_skb(skb);
	return 0;
}

static void dev_passes_unchanged_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct packet_type pt = {
		.type = htons(ETH_P_IP),
		.func = deliver_rcv,
		.dev = dev,
	};
	struct sk_buff *skb;
	u8 want[64];
	int i;

	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	dev_add_pack(&pt);
	memset(&delivered, 0, sizeof(delivered));
	for (i = 0; i < 5; i++) {
		skb = mmbt_skb_udp4(dev, 36);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, skb->len, sizeof(want));
		memcpy(want, skb->data, sizeof(want));
		delivered.want = want;
		delivered.len = sizeof(want);
		mmbt_receive(skb);
	}
	dev_remove_pack(&pt);
	KUNIT_EXPECT_EQ(test, delivered.count, 5);
	KUNIT_EXPECT_EQ(test, delivered.same, 5);
	mmbt_netdev_destroy(dev);
}

static void dev_reenable_counts_afresh_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmb_stats st;

	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	mmbt_receive(mmbt_skb_udp4(dev, 4));
	KUNIT_ASSERT_EQ(test, mmbt_disable(dev), 0);
	mmbt_receive(mmbt_skb_udp4(dev, 4));
	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	mmbt_stats(dev, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 0);
	mmbt_receive(mmbt_skb_udp4(dev, 4));
	mmbt_stats(dev, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 1);
	mmbt_netdev_destroy(dev);
}

static rx_handler_result_t other_handler(struct sk_buff **pskb)
{
	return RX_HANDLER_PASS;
}

static void dev_busy_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);

	rtnl_lock();
	KUNIT_ASSERT_EQ(test, netdev_rx_handler_register(dev, other_handler,
							 NULL), 0);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, mmbt_enable(dev), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(dev->rx_handler),
			    (rx_handler_func_t *)other_handler);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	rtnl_lock();
	netdev_rx_handler_unregister(dev);
	rtnl_unlock();
	mmbt_netdev_destroy(dev);
}

static void dev_loopback_refused_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mmbt_enable(init_net.loopback_dev), -EINVAL);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(init_net.loopback_dev));
}

static void dev_unregister_detaches_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmb_net *mn = mmb_pernet(&init_net);
	struct mmb_dev *md;
	bool listed = false;

	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	mmbt_netdev_destroy(dev);
	rtnl_lock();
	list_for_each_entry(md, &mn->devs, list)
		listed |= md->dev == dev;
	rtnl_unlock();
	KUNIT_EXPECT_FALSE(test, listed);
}

/* A drop rule on one field's value, in the test namespace's live rules. */
static struct mmb_rule *dev_add_drop(struct kunit *test, u16 field, u32 value)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->nmatches = 1;
	s->m[0].field = field;
	s->m[0].op = MMB_OP_EQ;
	s->m[0].plen = mmb_field(field)->bits;
	s->m[0].vlen = mmb_field_size(s->m[0].plen);
	put_unaligned_be32(value << (32 - 8 * s->m[0].vlen), s->m[0].value);
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmbt_insert(&mmb_pernet(&init_net)->rules, rule, NULL), 0);
	return rule;
}

static void dev_del_rule(struct mmb_rule *rule)
{
	mmbt_remove(&mmb_pernet(&init_net)->rules, rule);
}

/*
 * Each drop is counted under its cause: a rule's, a tiny first fragment
 * (refused whatever the rules), an IPv6 header chain too long to walk.
 */
static void dev_drop_causes_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	struct mmbt_pkt_desc d = { .proto = IPPROTO_TCP, .ttl = 64, .dport = 22,
				   .frag_off = IP_MF, .payload_len = 40 };
	struct mmb_rule *rule;
	struct mmb_stats st;
	struct sk_buff *skb;
	u64 n[MMB_COUNT_MAX];

	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	rule = dev_add_drop(test, MMB_FIELD_UDP_DPORT, 53);
	mmbt_receive(mmbt_skb_udp4(dev, 10));		/* to port 53 */
	skb = mmbt_pkt_build(dev, &d);			/* first fragment: whole */
	KUNIT_ASSERT_NOT_NULL(test, skb);
	mmbt_receive(mmbt_frame(dev, skb));
	skb = mmbt_pkt_build(dev, &d);			/* cut inside TCP */
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_trim(skb, 20 + 12);
	ip_hdr(skb)->tot_len = htons(20 + 12);
	ip_send_check(ip_hdr(skb));
	mmbt_receive(mmbt_frame(dev, skb));
	mmbt_receive(mmbt_frame(dev, mmbt_pkt_chain6(dev, 16)));
	mmbt_receive(mmbt_frame(dev, mmbt_pkt_chain6(dev, 17)));
	mmbt_receive(mmbt_frame(dev, mmbt_pkt_chain6(dev, 17)));

	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(dev)->counts, n);
	rtnl_unlock();
	mmbt_stats(dev, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 6);
	KUNIT_EXPECT_EQ(test, n[MMB_DROP_RULE], 2);	/* UDP to 53, v4 and v6 */
	KUNIT_EXPECT_EQ(test, n[MMB_DROP_FRAGMENT], 1);
	KUNIT_EXPECT_EQ(test, n[MMB_DROP_HEADER], 2);
	KUNIT_EXPECT_EQ(test, n[MMB_DROP_NOMEM], 0);
	dev_del_rule(rule);
	mmbt_netdev_destroy(dev);
}

/* l3mdev hands a VRF's packets over after the rx_handler ran: refused. */
static void dev_vrf_refused_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);

	dev->priv_flags |= IFF_L3MDEV_MASTER;
	KUNIT_EXPECT_EQ(test, mmbt_enable(dev), -EINVAL);
	KUNIT_EXPECT_FALSE(test, mmbt_enabled(dev));
	dev->priv_flags &= ~IFF_L3MDEV_MASTER;
	mmbt_netdev_destroy(dev);
}

/*
 * A device without a link-layer header (as tun, WireGuard and IP tunnels
 * are) hands the stack packets at their IP header: mmb judges them there.
 */
static void dev_l3_device_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .dport = 53,
				   .payload_len = 8 };
	struct net_device *dev;
	struct mmb_rule *rule;
	struct mmb_stats st;
	struct sk_buff *skb;
	u64 n[MMB_COUNT_MAX];

	dev = mmbt_netdev_create_l3(test);
	KUNIT_ASSERT_EQ(test, mmbt_enable(dev), 0);
	rule = dev_add_drop(test, MMB_FIELD_UDP_DPORT, 53);
	skb = mmbt_pkt_build(dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	mmbt_receive(skb);
	d.dport = 54;
	skb = mmbt_pkt_build(dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	mmbt_receive(skb);
	rtnl_lock();
	mmb_counts_read(mmb_dev_get_rtnl(dev)->counts, n);
	rtnl_unlock();
	mmbt_stats(dev, &st);
	KUNIT_EXPECT_EQ(test, st.packets, 2);
	KUNIT_EXPECT_EQ(test, n[MMB_DROP_RULE], 1);
	dev_del_rule(rule);
	mmbt_netdev_destroy(dev);
}

static struct kunit_case mmb_dev_cases[] = {
	KUNIT_CASE(dev_enable_disable_test),
	KUNIT_CASE(dev_count_test),
	KUNIT_CASE(dev_passes_unchanged_test),
	KUNIT_CASE(dev_reenable_counts_afresh_test),
	KUNIT_CASE(dev_busy_test),
	KUNIT_CASE(dev_loopback_refused_test),
	KUNIT_CASE(dev_vrf_refused_test),
	KUNIT_CASE(dev_l3_device_test),
	KUNIT_CASE(dev_unregister_detaches_test),
	KUNIT_CASE(dev_drop_causes_test),
	{}
};

static struct kunit_suite mmb_dev_suite = {
	.name = "mmb-dev",
	.test_cases = mmb_dev_cases,
};

kunit_test_suites(&mmb_dev_suite);
