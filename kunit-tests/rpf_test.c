// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: where a connection's packets may come in (rp-filter). Two
 * devices of a router, up, with routes: "lan" to the inside
 * (198.51.100.0/24, 100.64.0.0/24, 2001:db8:1::/64, 2001:db8:3::/64),
 * "wan" to the outside (203.0.113.0/24, 2001:db8:2::/64); 192.0.2.128/25
 * is a blackhole, 192.0.2.9 and 2001:db8:9::9 have no route. Packets go
 * through the datapath's steps against rules and a table of the test's
 * own.
 */
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/frag.h"
#include "../kmod/rewrite.h"
#include "../kmod/test.h"
#include "util.h"

struct rpf {
	struct kunit *test;
	struct net_device *lan, *wan;
	struct mmb_rules *r;
	struct mmb_conns mc;
};

static const u8 rpf_in4[4] = { 198, 51, 100, 5 };
static const u8 rpf_out4[4] = { 203, 0, 113, 7 };
static const u8 rpf_hair4[4] = { 100, 64, 0, 9 };	/* inside, through lan too */
static const u8 rpf_none4[4] = { 192, 0, 2, 9 };
static const u8 rpf_hole4[4] = { 192, 0, 2, 200 };
static const u8 rpf_in6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 5 };
static const u8 rpf_out6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 7 };
static const u8 rpf_hair6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 3, [15] = 9 };
static const u8 rpf_none6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 9, [15] = 9 };

/*
 * "ip route add @dst/@plen dev @dev" (or "type blackhole", without @dev);
 * "ip route del" with @del.
 */
static void rpf_route(struct kunit *test, struct net_device *dev, bool v6, const u8 *dst,
		      u8 plen, u8 type, bool del)
{
	mmbt_route(test, &init_net, dev, v6, dst, plen, type, del);
}

static const u8 rpf_hole4_net[4] = { 192, 0, 2, 128 };

static void rpf_hole_del(void *test)
{
	rpf_route(test, NULL, false, rpf_hole4_net, 25, RTN_BLACKHOLE, true);
}

static void rpf_free(void *data)
{
	struct rpf *f = data;

	mmb_conns_exit(&f->mc);
	/* Their routes go with them. */
	mmbt_netdev_destroy(f->lan);
	mmbt_netdev_destroy(f->wan);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct rpf *rpf_new(struct kunit *test)
{
	static const u8 in4[4] = { 198, 51, 100 }, out4[4] = { 203, 0, 113 };
	static const u8 hair4[4] = { 100, 64 };
	static const u8 in6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 };
	static const u8 out6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2 };
	static const u8 hair6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 3 };
	struct rpf *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->lan = mmbt_netdev_create_up(test);
	f->wan = mmbt_netdev_create_up(test);
	f->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&f->mc, &init_net), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rpf_free, f), 0);
	rpf_route(test, f->lan, false, in4, 24, RTN_UNICAST, false);
	rpf_route(test, f->lan, false, hair4, 24, RTN_UNICAST, false);
	rpf_route(test, f->wan, false, out4, 24, RTN_UNICAST, false);
	rpf_route(test, f->lan, true, in6, 64, RTN_UNICAST, false);
	rpf_route(test, f->lan, true, hair6, 64, RTN_UNICAST, false);
	rpf_route(test, f->wan, true, out6, 64, RTN_UNICAST, false);
	WRITE_ONCE(mmb_test_points.clock, 1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return f;
}

/* A TCP packet (UDP without @flags) from @src:@sport to @dst:@dport. */
static struct mmbt_pkt_desc rpf_pkt(bool v6, const u8 *src, u16 sport, const u8 *dst,
				    u16 dport, u8 flags)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = flags ? IPPROTO_TCP : IPPROTO_UDP, .ttl = 64,
		.sport = sport, .dport = dport, .tcp_flags = flags, .payload_len = 10,
	};

	memcpy(d.saddr, src, v6 ? 16 : 4);
	memcpy(d.daddr, dst, v6 ? 16 : 4);
	return d;
}

/*
 * Judge @d's packet, in on @dev, as mmb_hook() does, in softirq under RCU:
 * 1 if it passes, 0 if a rule drops it, or the error that drops it.
 */
static int rpf_send(struct rpf *f, struct net_device *dev, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(dev, d);

	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	return mmbt_judge(f->r, &f->mc, skb);
}

/* Would the reverse-path check refuse a connection to @d's packet, in on @dev? */
static bool rpf_spoofed(struct rpf *f, struct net_device *dev, bool v6, const u8 *src)
{
	struct mmbt_pkt_desc d = rpf_pkt(v6, src, 1000, v6 ? rpf_out6 : rpf_out4, 80, TCPHDR_SYN);
	struct sk_buff *skb = mmbt_pkt_build(dev, &d);
	struct mmb_pkt pkt;
	bool spoofed;

	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	KUNIT_ASSERT_EQ(f->test, mmb_parse(skb, &pkt), 0);
	rcu_read_lock();
	spoofed = mmb_conn_spoofed(&f->mc, &pkt, dev);
	rcu_read_unlock();
	kfree_skb(skb);
	return spoofed;
}

static u64 rpf_stat(struct rpf *f, enum mmb_conn_stat what)
{
	u64 n[MMB_CSTAT_MAX];

	mmb_conns_stats(&f->mc, n);
	return n[what];
}

/* The README's reflexive ACL: the inside's clients may open connections, nothing else. */
static void rpf_reflexive(struct rpf *f, bool v6)
{
	struct mmb_match_spec m[2];

	if (v6) {
		m[0] = mmbt_match(MMB_FIELD_IP6_SADDR, MMB_OP_EQ, 0);
		memcpy(m[0].value, rpf_in6, 16);
		m[0].plen = 64;
	} else {
		m[0] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0xc6336400);
		m[0].plen = 24;
	}
	m[1] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	mmbt_rule_add(f->test, f->r, true, MMB_TARGET_ACCEPT, m, 1);
	mmbt_rule_add(f->test, f->r, false, MMB_TARGET_DROP, &m[1], 1);
}

/* The check's decisions one by one, both families. */
static void rpf_decisions_test(struct kunit *test)
{
	struct rpf *f = rpf_new(test);
	unsigned int i;

	rpf_route(test, NULL, false, rpf_hole4_net, 25, RTN_BLACKHOLE, false);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rpf_hole_del, test), 0);
	for (i = 0; i < 2; i++) {
		bool v6 = i;

		/* The source routes back through the device it came in on, or not. */
		KUNIT_EXPECT_FALSE(test, rpf_spoofed(f, f->lan, v6, v6 ? rpf_in6 : rpf_in4));
		KUNIT_EXPECT_TRUE(test, rpf_spoofed(f, f->wan, v6, v6 ? rpf_in6 : rpf_in4));
		KUNIT_EXPECT_FALSE(test, rpf_spoofed(f, f->wan, v6, v6 ? rpf_out6 : rpf_out4));
		KUNIT_EXPECT_TRUE(test, rpf_spoofed(f, f->lan, v6, v6 ? rpf_out6 : rpf_out4));
		KUNIT_EXPECT_FALSE(test, rpf_spoofed(f, f->lan, v6, v6 ? rpf_hair6 : rpf_hair4));
		/* No route back at all: refused wherever it comes in. */
		KUNIT_EXPECT_TRUE(test, rpf_spoofed(f, f->lan, v6, v6 ? rpf_none6 : rpf_none4));
		KUNIT_EXPECT_TRUE(test, rpf_spoofed(f, f->wan, v6, v6 ? rpf_none6 : rpf_none4));
	}
	/* A blackhole is no way back. */
	KUNIT_EXPECT_TRUE(test, rpf_spoofed(f, f->lan, false, rpf_hole4));
	KUNIT_EXPECT_TRUE(test, rpf_spoofed(f, f->wan, false, rpf_hole4));
	/* rp-filter off: nothing is refused. */
	WRITE_ONCE(f->mc.rpf, false);
	KUNIT_EXPECT_FALSE(test, rpf_spoofed(f, f->wan, false, rpf_in4));
	KUNIT_EXPECT_FALSE(test, rpf_spoofed(f, f->wan, true, rpf_in6));
	KUNIT_EXPECT_FALSE(test, rpf_spoofed(f, f->lan, false, rpf_none4));
}

/*
 * Issue 37, item 5: one SYN from the outside with an inside source, to an
 * outside host's port, starts no connection; its "reply", the outside
 * host's SYN to the inside host's port, is dropped as any other. The
 * inside's own connections work.
 */
static void rpf_forged_family(struct kunit *test, bool v6)
{
	const u8 *in = v6 ? rpf_in6 : rpf_in4, *out = v6 ? rpf_out6 : rpf_out4;
	struct rpf *f = rpf_new(test);
	struct mmbt_pkt_desc d;

	rpf_reflexive(f, v6);
	d = rpf_pkt(v6, in, 22, out, 4444, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_SPOOFED), 1);
	d = rpf_pkt(v6, out, 4444, in, 22, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 0);
	d = rpf_pkt(v6, out, 4444, in, 22, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 0);
	/* UDP alike. */
	d = rpf_pkt(v6, in, 53, out, 5353, 0);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 0);
	d = rpf_pkt(v6, out, 5353, in, 53, 0);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_SPOOFED), 2);
	/* The inside's client, from the inside: a connection, its replies pass. */
	d = rpf_pkt(v6, in, 40000, out, 80, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	d = rpf_pkt(v6, out, 80, in, 40000, TCPHDR_SYN | TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 1);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_CREATED), 1);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_SPOOFED), 2);
	kunit_release_action(test, rpf_free, f);	/* for the other family's */
}

static void rpf_forged_test(struct kunit *test)
{
	rpf_forged_family(test, false);
	rpf_forged_family(test, true);
}

/*
 * A refused packet is judged by its stateless rules alone: with no rule
 * but the stateful accept, it passes, as without mmb, and starts nothing;
 * the stateful rule's accept does not outweigh a stateless drop.
 */
static void rpf_stateless_verdict_test(struct kunit *test)
{
	struct rpf *f = rpf_new(test);
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0xc6336400);
	struct mmb_match_spec port = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 4444);
	struct mmbt_pkt_desc d = rpf_pkt(false, rpf_in4, 22, rpf_out4, 4444, TCPHDR_SYN);

	m.plen = 24;
	mmbt_rule_add(test, f->r, true, MMB_TARGET_ACCEPT, &m, 1);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	mmbt_rule_add(test, f->r, false, MMB_TARGET_DROP, &port, 1);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_SPOOFED), 2);
	/* From the inside, the accept wins and the connection starts. */
	d = rpf_pkt(false, rpf_in4, 22, rpf_out4, 4444, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 1);
}

/*
 * A reply that comes in on the device the connection's first packet came
 * in on is not its reply: a packet of no connection, dropped by the ACL,
 * counted. Unless the replying host is reached through that device too
 * (a one-armed router): then its replies come in there.
 */
static void rpf_wrong_iif_family(struct kunit *test, bool v6)
{
	const u8 *in = v6 ? rpf_in6 : rpf_in4, *out = v6 ? rpf_out6 : rpf_out4;
	const u8 *hair = v6 ? rpf_hair6 : rpf_hair4;
	struct rpf *f = rpf_new(test);
	struct mmbt_pkt_desc d;

	rpf_reflexive(f, v6);
	d = rpf_pkt(v6, in, 40000, out, 80, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	d = rpf_pkt(v6, out, 80, in, 40000, TCPHDR_SYN | TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 0);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_WRONG_IIF), 1);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->wan, &d), 1);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_WRONG_IIF), 1);
	/* The original direction may come in there, of course. */
	d = rpf_pkt(v6, in, 40000, out, 80, TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	/* One-armed: the inside host's other inside peer answers through lan. */
	d = rpf_pkt(v6, in, 40001, hair, 80, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	d = rpf_pkt(v6, hair, 80, in, 40001, TCPHDR_SYN | TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_WRONG_IIF), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 2);
	/* rp-filter off: connections made then take replies from anywhere. */
	WRITE_ONCE(f->mc.rpf, false);
	d = rpf_pkt(v6, in, 40002, out, 80, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	d = rpf_pkt(v6, out, 80, in, 40002, TCPHDR_SYN | TCPHDR_ACK);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_WRONG_IIF), 1);
	kunit_release_action(test, rpf_free, f);	/* for the other family's */
}

static void rpf_wrong_iif_test(struct kunit *test)
{
	rpf_wrong_iif_family(test, false);
	rpf_wrong_iif_family(test, true);
}

/*
 * A packet that the verdict drops leaves no connection behind: a stateful
 * drop, or a stateful rule's match overruled by a stateless drop; an
 * accept still beats a drop.
 */
static void rpf_dropped_test(struct kunit *test)
{
	struct rpf *f = rpf_new(test);
	struct mmb_match_spec udp = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0xc6336400);
	struct mmb_match_spec port = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 25);
	struct mmbt_target dscp = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_DSCP,
				    .vlen = 1, .value = { 8 } };
	struct mmbt_pkt_desc d;

	mmbt_rule_add(test, f->r, true, MMB_TARGET_DROP, &udp, 1);
	d = rpf_pkt(false, rpf_in4, 5000, rpf_out4, 53, 0);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	/* A stateful rewrite of the inside's packets, and a stateless drop of port 25. */
	m.plen = 24;
	mmbt_rule_targets(test, f->r, true, &m, 1, &dscp, 1);
	mmbt_rule_add(test, f->r, false, MMB_TARGET_DROP, &port, 1);
	d = rpf_pkt(false, rpf_in4, 40000, rpf_out4, 25, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 0);
	d = rpf_pkt(false, rpf_in4, 40000, rpf_out4, 80, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 1);
	/* A stateful accept beats the drop: the connection starts. */
	port = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 443);
	mmbt_rule_add(test, f->r, true, MMB_TARGET_ACCEPT, &port, 1);
	mmbt_rule_add(test, f->r, false, MMB_TARGET_DROP, &port, 1);
	d = rpf_pkt(false, rpf_in4, 40000, rpf_out4, 443, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, rpf_send(f, f->lan, &d), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mc.count), 2);
	KUNIT_EXPECT_EQ(test, rpf_stat(f, MMB_CSTAT_CREATED), 2);
}

/* @d (IPv4 UDP, ID @id, @frag_off) through mmb_hook()'s steps with fragment map @mf. */
static int rpf_frag_send(struct rpf *f, struct mmb_frags *mf, struct net_device *dev,
			 struct mmbt_pkt_desc *d, u16 id, u16 frag_off, u8 *src_out)
{
	struct sk_buff *skb;
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	d->frag_off = frag_off;
	skb = mmbt_pkt_build(dev, d);
	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	ip_hdr(skb)->id = htons(id);
	ip_send_check(ip_hdr(skb));
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(f->r);
	ret = mmb_parse(skb, &pkt);
	if (ret)
		goto out;
	mmb_verdict_init(&v);
	if (pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_LATER) {
		ret = mmb_frag_lookup(mf, &f->mc, &pkt, &v);
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
		mmb_frag_note(mf, &pkt, &v);
	if (v.nrw || mmb_conn_rewrites(v.conn))
		ret = mmb_rewrite(skb, &pkt, &v);
	if (!ret)
		ret = 1;
	memcpy(src_out, &ip_hdr(skb)->saddr, 4);
out:
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return ret;
}

/*
 * An off-path forger on the outside device sends a first fragment with an
 * inside client's addresses and ID: the client's later fragments still
 * leave translated (a fragment is of its datagram only on the device its
 * first came in on), or are dropped, never with the inside source.
 */
static void rpf_frag_poison_test(struct kunit *test)
{
	static const u8 nat[4] = { 203, 0, 113, 1 };
	struct rpf *f = rpf_new(test);
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0xc6336400);
	struct mmbt_target t = { .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 };
	struct mmb_frags *mf = kunit_kzalloc(test, sizeof(*mf), GFP_KERNEL);
	struct mmbt_pkt_desc d;
	u8 src[4];
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, mf);
	KUNIT_ASSERT_EQ(test, mmb_frags_init(mf), 0);
	m.plen = 24;
	memcpy(t.value, nat, 4);
	mmbt_rule_targets(test, f->r, true, &m, 1, &t, 1);
	/* The inside client's datagram, first fragment, on lan. */
	d = rpf_pkt(false, rpf_in4, 5000, rpf_out4, 53, 0);
	KUNIT_EXPECT_EQ(test, rpf_frag_send(f, mf, f->lan, &d, 0x4242, IP_MF, src), 1);
	KUNIT_EXPECT_EQ(test, memcmp(src, nat, 4), 0);
	/* Off-path forger on wan: the client's source, same ID. */
	d = rpf_pkt(false, rpf_in4, 1, rpf_out4, 2, 0);
	ret = rpf_frag_send(f, mf, f->wan, &d, 0x4242, IP_MF, src);
	kunit_info(test, "forged first fragment on wan: %d, spoofed %llu", ret,
		   rpf_stat(f, MMB_CSTAT_SPOOFED));
	/* The client's later fragment. */
	d = rpf_pkt(false, rpf_in4, 5000, rpf_out4, 53, 0);
	ret = rpf_frag_send(f, mf, f->lan, &d, 0x4242, 3, src);
	KUNIT_EXPECT_TRUE_MSG(test, ret != 1 || !memcmp(src, nat, 4),
			      "later fragment left with source %pI4", src);
	mmb_frags_exit(mf);
}

static struct kunit_case mmb_rpf_cases[] = {
	KUNIT_CASE(rpf_frag_poison_test),
	KUNIT_CASE(rpf_decisions_test),
	KUNIT_CASE(rpf_forged_test),
	KUNIT_CASE(rpf_stateless_verdict_test),
	KUNIT_CASE(rpf_wrong_iif_test),
	KUNIT_CASE(rpf_dropped_test),
	{}
};

static struct kunit_suite mmb_rpf_suite = {
	.name = "mmb-rpf",
	.test_cases = mmb_rpf_cases,
};

kunit_test_suite(mmb_rpf_suite);
