// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the rewrite of a cloned fraglist GRO packet leaves the
 * original's segments and links alone.
 */
#include <linux/ip.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "../kmod/rewrite.h"
#include "util.h"

/* NOP, MSS 1460 (data at TCP offset 2..3 of the option, 23..24 of the header), NOPs */
static const u8 ft_opts[8] = { 1, 2, 4, 0x05, 0xb4, 1, 1, 1 };

/* The MSS option's value in fraglist segment @seg (its data at skb->data). */
static u16 ft_seg_mss(const struct sk_buff *seg)
{
	return get_unaligned_be16(skb_network_header(seg) + 20 + 20 + 3);
}

/*
 * A fraglist GRO packet cloned (as a tap clones it) and the clone
 * rewritten: the segments carry an MSS option, the head none, so that
 * the head's own rewrite copies nothing. The original's list must keep
 * its segments, their links and their bytes; the clone's segments are
 * rewritten.
 */
static void frag_fraglist_clone_test(struct kunit *test)
{
	struct mmb_rule_spec *spec = kunit_kzalloc(test, sizeof(*spec), GFP_KERNEL);
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .ttl = 64, .sport = 1234, .dport = 80, .tcp_flags = 0x10,
		.payload_len = 40, .seq = 1000,
		.saddr = { 10, 1, 2, 3 }, .daddr = { 192, 0, 2, 77 },
	};
	struct net_device *dev = init_net.loopback_dev;
	struct sk_buff *head, *clone, *seg[2], *s;
	struct mmb_verdict v = { .nrw = 1 };
	struct mmb_rule *rule;
	struct mmb_pkt pkt;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, spec);
	spec->nmatches = 1;
	spec->m[0].field = MMB_FIELD_ALL;
	spec->ntargets = 1;
	spec->t[0].type = MMB_TARGET_MOD;
	spec->t[0].field = MMB_FIELD_TCP_OPT_MSS;
	spec->t[0].plen = mmb_field(MMB_FIELD_TCP_OPT_MSS)->bits;
	spec->t[0].vlen = mmb_field_size(spec->t[0].plen);
	put_unaligned_be16(1200, spec->t[0].value);
	rule = mmb_rule_create(spec, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	v.rw[0] = rule;

	head = mmbt_pkt_build(dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, head);
	d.tcp_opt_len = sizeof(ft_opts);
	d.tcp_opts = ft_opts;
	for (i = 0; i < 2; i++) {
		d.seq += d.payload_len;
		seg[i] = mmbt_pkt_build(dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, seg[i]);
		seg[i]->ip_summed = CHECKSUM_UNNECESSARY;
		__skb_pull(seg[i], 20 + 20 + d.tcp_opt_len);	/* at its data */
		head->len += seg[i]->len;
		head->data_len += seg[i]->len;
		head->truesize += seg[i]->truesize;
	}
	skb_shinfo(head)->frag_list = seg[0];
	seg[0]->next = seg[1];
	skb_shinfo(head)->gso_type = SKB_GSO_TCPV4 | SKB_GSO_FRAGLIST;
	skb_shinfo(head)->gso_size = d.payload_len;
	skb_shinfo(head)->gso_segs = 3;
	head->ip_summed = CHECKSUM_UNNECESSARY;
	ip_hdr(head)->tot_len = htons(head->len);
	ip_send_check(ip_hdr(head));

	clone = skb_clone(head, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, clone);
	KUNIT_ASSERT_EQ(test, mmb_parse(clone, &pkt), 0);
	KUNIT_ASSERT_EQ(test, mmb_rewrite(clone, &pkt, &v), 0);

	/* The original: its segments, linked as they were, unchanged. */
	KUNIT_EXPECT_PTR_EQ(test, skb_shinfo(head)->frag_list, seg[0]);
	KUNIT_EXPECT_PTR_EQ(test, seg[0]->next, seg[1]);
	KUNIT_EXPECT_NULL(test, seg[1]->next);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ_MSG(test, ft_seg_mss(seg[i]), 1460, "segment %u", i + 2);
	/* The clone: its own copies, rewritten. */
	i = 0;
	skb_walk_frags(clone, s) {
		if (i < 2)
			KUNIT_EXPECT_PTR_NE(test, s, seg[i]);
		KUNIT_EXPECT_EQ_MSG(test, ft_seg_mss(s), 1200, "segment %u", i + 2);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, 2);
	kfree_skb(clone);
	kfree_skb(head);
	mmb_rule_free(rule);
}

static struct kunit_case mmb_frag_cases[] = {
	KUNIT_CASE(frag_fraglist_clone_test),
	{}
};

static struct kunit_suite mmb_frag_suite = {
	.name = "mmb-frag",
	.test_cases = mmb_frag_cases,
};

kunit_test_suites(&mmb_frag_suite);
