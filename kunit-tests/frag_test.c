// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: fragments of a connection's datagrams get its verdict and
 * rewrites (frag.c), through the datapath's steps as mmb_hook() takes
 * them; and the rewrite of a cloned fraglist GRO packet leaves the
 * original's segments and links alone.
 */
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/frag.h"
#include "../kmod/nat.h"
#include "../kmod/rewrite.h"
#include "../kmod/test.h"
#include "util.h"

struct ft {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
	struct mmb_frags mf;
};

static void ft_free(void *data)
{
	struct ft *f = data;

	mmb_frags_exit(&f->mf);
	mmb_conns_exit(&f->mc);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct ft *ft_new(struct kunit *test)
{
	struct ft *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->dev = mmbt_netdev_create(test);
	f->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&f->mc, &init_net), 0);
	/* Both ways on one device without routes: rpf_test.c checks rp-filter. */
	f->mc.rpf = false;
	if (mmb_frags_init(&f->mf)) {
		mmb_conns_exit(&f->mc);
		KUNIT_FAIL_AND_ABORT(test, "no fragment map");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ft_free, f), 0);
	WRITE_ONCE(mmb_test_points.clock, -1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return f;
}

static void ft_wait(unsigned int secs)
{
	WRITE_ONCE(mmb_test_points.clock, mmb_test_points.clock + secs * HZ);
}

static const u8 ft_nat4[4] = { 203, 0, 113, 1 };
static const u8 ft_client[4] = { 10, 0, 0, 1 }, ft_server[4] = { 10, 0, 1, 100 };

/*
 * A UDP packet @from:@sport -> @to:@dport of IP ID @id: a first fragment
 * (@frag_off IP_MF), a later one (an offset) or whole (0). A later one's
 * "ports" are payload bytes, which must come out as they went in.
 */
static struct sk_buff *ft_pkt(struct ft *f, const u8 *from, u16 sport, const u8 *to,
			      u16 dport, u16 id, u16 frag_off)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .sport = sport, .dport = dport,
		.payload_len = 16, .frag_off = frag_off,
	};
	struct sk_buff *skb;

	memcpy(d.saddr, from, 4);
	memcpy(d.daddr, to, 4);
	skb = mmbt_pkt_build(f->dev, &d);
	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	ip_hdr(skb)->id = htons(id);
	ip_send_check(ip_hdr(skb));
	return skb;
}

/*
 * @skb through mmb_hook()'s steps (stateful rules): 1 it passes
 * (rewritten), 0 a rule drops it, -ENOENT it is an unmapped fragment.
 */
static int ft_run(struct ft *f, struct sk_buff *skb)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(f->r);
	ret = mmb_parse(skb, &pkt);
	if (ret)
		goto out;
	mmb_verdict_init(&v);
	if (pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_LATER) {
		ret = mmb_frag_lookup(&f->mf, &f->mc, &pkt, &v);
		if (ret)
			goto out;
	} else {
		mmb_conn_lookup(&f->mc, &pkt, skb, &v);
	}
	mmb_classify_rules(rs, &pkt, skb, &v);
	if (v.conn || v.nsf)
		ret = mmb_conn_verdict(&f->mc, &pkt, skb, &v);
	if (ret || (v.drop && !v.accept))
		goto out;
	if ((pkt.key.b[MMB_IMG_FLAGS] & (MMB_KF_FRAG | MMB_KF_LATER)) == MMB_KF_FRAG)
		mmb_frag_note(&f->mf, &pkt, &v);
	if (v.nrw || mmb_conn_rewrites(v.conn))
		ret = mmb_rewrite(skb, &pkt, &v);
	if (!ret)
		ret = 1;
out:
	local_bh_enable();
	rcu_read_unlock();
	return ret;
}

/* ft_run() of an ft_pkt() no one looks at after. */
static int ft_send(struct ft *f, const u8 *from, u16 sport, const u8 *to, u16 dport, u16 id,
		   u16 frag_off)
{
	struct sk_buff *skb = ft_pkt(f, from, sport, to, dport, id, frag_off);
	int ret = ft_run(f, skb);

	kfree_skb(skb);
	return ret;
}

/* Source NAT and an ID shuffle: the source and ID of @skb, as it left. */
static void ft_expect(struct ft *f, struct sk_buff *skb, const u8 *src, u16 id,
		      u16 sport, u16 dport)
{
	struct iphdr *iph = ip_hdr(skb);
	u8 *l4 = (u8 *)iph + iph->ihl * 4;

	KUNIT_EXPECT_EQ(f->test, memcmp(&iph->saddr, src, 4), 0);
	KUNIT_EXPECT_EQ(f->test, ntohs(iph->id), id);
	KUNIT_EXPECT_EQ(f->test, ip_fast_csum(iph, iph->ihl), 0);
	KUNIT_EXPECT_EQ(f->test, get_unaligned_be16(l4), sport);
	KUNIT_EXPECT_EQ(f->test, get_unaligned_be16(l4 + 2), dport);
}

/*
 * add-stateful ip-proto udp mod ip-saddr NAT shuffle udp-sport 20000-20999
 * shuffle ip-id
 */
static void ft_snat(struct ft *f)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	struct mmbt_target t[3] = {
		{ .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 },
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_UDP_SPORT, .vlen = 4,
		  .value = { 20000 >> 8, 20000 & 0xff, 20999 >> 8, 20999 & 0xff } },
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_IP_ID },
	};

	memcpy(t[0].value, ft_nat4, 4);
	mmbt_rule_targets(f->test, f->r, true, &m, 1, t, 3);
}

/*
 * The later fragments of a NATed datagram get its first fragment's new
 * source and ID, and nothing else changes (their "ports" are payload, not
 * the mapped port):
 * the datagram can be reassembled. One whose first fragment never came
 * is dropped, as is one whose entry expired (30 s), while its connection
 * lives on.
 */
static void frag_snat_test(struct kunit *test)
{
	struct ft *f = ft_new(test);
	struct sk_buff *skb;
	u16 id, port;

	ft_snat(f);
	skb = ft_pkt(f, ft_client, 5000, ft_server, 53, 0x1234, IP_MF);
	KUNIT_ASSERT_EQ(test, ft_run(f, skb), 1);
	id = ntohs(ip_hdr(skb)->id);
	port = get_unaligned_be16(skb->data + ip_hdrlen(skb));
	KUNIT_EXPECT_TRUE(test, port >= 20000 && port <= 20999);
	ft_expect(f, skb, ft_nat4, id, port, 53);
	kfree_skb(skb);

	/* Its later fragments, the last one too. */
	skb = ft_pkt(f, ft_client, 0x4142, ft_server, 0x4344, 0x1234, IP_MF | 3);
	KUNIT_EXPECT_EQ(test, ft_run(f, skb), 1);
	ft_expect(f, skb, ft_nat4, id, 0x4142, 0x4344);
	kfree_skb(skb);
	skb = ft_pkt(f, ft_client, 0x4546, ft_server, 0x4748, 0x1234, 6);
	KUNIT_EXPECT_EQ(test, ft_run(f, skb), 1);
	ft_expect(f, skb, ft_nat4, id, 0x4546, 0x4748);
	kfree_skb(skb);

	/* Another datagram's later fragment: never half translated. */
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 1, ft_server, 2, 0x1235, 3), -ENOENT);

	/* A reply: the connection lives for 120 s; the entry for 30. */
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_server, 53, ft_nat4, port, 7, 0), 1);
	ft_wait(29);
	skb = ft_pkt(f, ft_client, 1, ft_server, 2, 0x1234, 6);
	KUNIT_EXPECT_EQ(test, ft_run(f, skb), 1);
	ft_expect(f, skb, ft_nat4, id, 1, 2);
	kfree_skb(skb);
	ft_wait(2);
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 1, ft_server, 2, 0x1234, 6), -ENOENT);
}

/*
 * With stateful rules, a datagram of no connection is judged as before,
 * its later fragments by the rules alone (here: passed on untouched).
 */
static void frag_untracked_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	struct mmbt_target t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 };
	struct ft *f = ft_new(test);
	struct sk_buff *skb;

	memcpy(t.value, ft_nat4, 4);
	mmbt_rule_targets(test, f->r, true, &m, 1, &t, 1);
	skb = ft_pkt(f, ft_client, 5000, ft_server, 53, 0x1234, IP_MF);
	KUNIT_EXPECT_EQ(test, ft_run(f, skb), 1);
	ft_expect(f, skb, ft_client, 0x1234, 5000, 53);
	kfree_skb(skb);
	skb = ft_pkt(f, ft_client, 1, ft_server, 2, 0x1234, 3);
	KUNIT_EXPECT_EQ(test, ft_run(f, skb), 1);
	ft_expect(f, skb, ft_client, 0x1234, 1, 2);
	kfree_skb(skb);
	/* One whose first fragment was not seen could be a connection's. */
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 1, ft_server, 2, 0x1236, 3), -ENOENT);
}

/*
 * An entry left alone for 2^31 jiffies and more (25 days at 1000 Hz) is
 * as expired as at 31 s: a later fragment of its key is dropped (not
 * passed as its datagram of no connection was), and a new datagram of that
 * key, a connection's, is no conflict with it.
 */
static void frag_wrap_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_SPORT, MMB_OP_EQ, 5001);
	struct ft *f = ft_new(test);

	mmbt_rule_add(test, f->r, true, MMB_TARGET_ACCEPT, &m, 1);
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 5000, ft_server, 53, 0x1234, IP_MF), 1);
	ft_wait((1U << 31) / HZ + 100);
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 1, ft_server, 2, 0x1234, 3), -ENOENT);
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 5001, ft_server, 53, 0x1234, IP_MF), 1);
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 1, ft_server, 2, 0x1234, 3), 1);
}

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

/*
 * A forged first fragment with another datagram's (src, dst, proto, id)
 * must not take over its entry: that datagram's later fragments are
 * dropped (a conflict), never passed untranslated (private source) or
 * handed to another connection. A retransmitted first fragment, the same
 * again, is no conflict.
 */
static void frag_poison_untracked_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmbt_target t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 };
	struct ft *f = ft_new(test);
	struct sk_buff *skb;
	int ret;

	memcpy(t.value, ft_nat4, 4);
	mmbt_rule_targets(test, f->r, true, &m, 1, &t, 1);
	skb = ft_pkt(f, ft_client, 5000, ft_server, 53, 0x1234, IP_MF);
	KUNIT_ASSERT_EQ(test, ft_run(f, skb), 1);
	KUNIT_EXPECT_EQ(test, memcmp(&ip_hdr(skb)->saddr, ft_nat4, 4), 0);
	kfree_skb(skb);
	KUNIT_ASSERT_EQ(test, ft_send(f, ft_client, 5000, ft_server, 53, 0x1234, IP_MF), 1);
	skb = ft_pkt(f, ft_client, 1, ft_server, 2, 0x1234, 2);
	KUNIT_EXPECT_EQ(test, ft_run(f, skb), 1);
	KUNIT_EXPECT_EQ(test, memcmp(&ip_hdr(skb)->saddr, ft_nat4, 4), 0);
	kfree_skb(skb);
	/* The forger: same addresses and ID, a port no stateful rule has. */
	KUNIT_EXPECT_EQ(test, ft_send(f, ft_client, 7777, ft_server, 9999, 0x1234, IP_MF), 1);
	/* The victim's later fragment: translated, or dropped; never leaked. */
	skb = ft_pkt(f, ft_client, 1, ft_server, 2, 0x1234, 3);
	ret = ft_run(f, skb);
	KUNIT_EXPECT_TRUE_MSG(test, ret != 1 || !memcmp(&ip_hdr(skb)->saddr, ft_nat4, 4),
			      "later fragment passed with source %pI4", &ip_hdr(skb)->saddr);
	kfree_skb(skb);
}

static void frag_poison_reply_test(struct kunit *test)
{
	static const u8 other[4] = { 10, 0, 0, 2 };
	struct ft *f = ft_new(test);
	struct sk_buff *skb;
	u16 pa, pb;
	int ret;

	ft_snat(f);
	skb = ft_pkt(f, ft_client, 5000, ft_server, 53, 1, 0);
	KUNIT_ASSERT_EQ(test, ft_run(f, skb), 1);
	pa = get_unaligned_be16(skb->data + ip_hdrlen(skb));
	kfree_skb(skb);
	skb = ft_pkt(f, other, 6000, ft_server, 53, 2, 0);
	KUNIT_ASSERT_EQ(test, ft_run(f, skb), 1);
	pb = get_unaligned_be16(skb->data + ip_hdrlen(skb));
	kfree_skb(skb);
	/* The server's fragmented answer to A, ID 0x777. */
	skb = ft_pkt(f, ft_server, 53, ft_nat4, pa, 0x777, IP_MF);
	KUNIT_ASSERT_EQ(test, ft_run(f, skb), 1);
	KUNIT_EXPECT_EQ(test, memcmp(&ip_hdr(skb)->daddr, ft_client, 4), 0);
	kfree_skb(skb);
	/* Forged (spoofing the server) first fragment to B's port, same ID. */
	skb = ft_pkt(f, ft_server, 53, ft_nat4, pb, 0x777, IP_MF);
	KUNIT_ASSERT_EQ(test, ft_run(f, skb), 1);
	KUNIT_EXPECT_EQ(test, memcmp(&ip_hdr(skb)->daddr, other, 4), 0);
	kfree_skb(skb);
	/* A's later fragment. */
	skb = ft_pkt(f, ft_server, 1, ft_nat4, 2, 0x777, 3);
	ret = ft_run(f, skb);
	KUNIT_EXPECT_TRUE_MSG(test, ret != 1 || !memcmp(&ip_hdr(skb)->daddr, ft_client, 4),
			      "A's later fragment delivered to %pI4", &ip_hdr(skb)->daddr);
	kfree_skb(skb);
}

static struct kunit_case mmb_frag_cases[] = {
	KUNIT_CASE(frag_poison_untracked_test),
	KUNIT_CASE(frag_poison_reply_test),
	KUNIT_CASE(frag_snat_test),
	KUNIT_CASE(frag_untracked_test),
	KUNIT_CASE(frag_wrap_test),
	KUNIT_CASE(frag_fraglist_clone_test),
	{}
};

static struct kunit_suite mmb_frag_suite = {
	.name = "mmb-frag",
	.test_cases = mmb_frag_cases,
};

kunit_test_suites(&mmb_frag_suite);
