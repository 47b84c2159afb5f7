// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: NAT and per-connection rewrites. Packets go through the
 * datapath's steps (lookup, classification, the connection's verdict,
 * the rewrite) and come out to be read: addresses, ports, sequence
 * numbers, and every checksum by full recomputation; translated ICMP
 * errors are compared byte for byte with the error the sender would have
 * got with no NAT in the way.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/nat.h"
#include "../kmod/rewrite.h"
#include "../kmod/test.h"
#include "util.h"

struct nt {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
};

static void nt_kfree_skb(void *skb)
{
	kfree_skb(skb);
}

static void nt_free(void *data)
{
	struct nt *n = data;

	mmb_conns_exit(&n->mc);
}

static struct nt *nt_new(struct kunit *test)
{
	struct nt *n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, n);
	n->test = test;
	n->dev = mmbt_netdev_create(test);
	n->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&n->mc, &init_net), 0);
	/* Both ways on one device without routes: rpf_test.c checks rp-filter. */
	n->mc.rpf = false;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nt_free, n), 0);
	return n;
}

/* add-stateful MATCHES TARGETS */
static void nt_rule(struct nt *n, const struct mmb_match_spec *m, unsigned int nm,
		    const struct mmbt_target *t, unsigned int nt)
{
	mmbt_rule_targets(n->test, n->r, true, m, nm, t, nt);
}

static const u8 nt_nat4[4] = { 203, 0, 113, 1 };
static const u8 nt_nat6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

/* map (or mod) of an address to the NAT address of the family */
static struct mmbt_target nt_addr(u8 type, bool v6, bool src)
{
	struct mmbt_target t = { .type = type, .vlen = v6 ? 16 : 4 };

	if (v6)
		t.field = src ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP6_DADDR;
	else
		t.field = src ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP_DADDR;
	memcpy(t.value, v6 ? nt_nat6 : nt_nat4, t.vlen);
	return t;
}

/* Host @h: clients below 100 (10.0.0.h, fd00::h), servers (10.0.1.h, fd00:0:0:1::h). */
static void nt_host(u8 *addr, bool v6, u8 h)
{
	memset(addr, 0, 16);
	if (v6) {
		addr[0] = 0xfd;
		addr[7] = h >= 100;
		addr[15] = h;
	} else {
		addr[0] = 10;
		addr[2] = h >= 100;
		addr[3] = h;
	}
}

static struct mmbt_pkt_desc nt_pkt(bool v6, u8 proto, u8 from, u16 sport, u8 to, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = proto == IPPROTO_TCP ? TCPHDR_SYN : 0, .payload_len = 12,
		.seq = 1000,
	};

	nt_host(d.saddr, v6, from);
	nt_host(d.daddr, v6, to);
	return d;
}

/*
 * @skb through the datapath's steps, rewrites included, in softirq under
 * RCU; *@ret: 1 it passes, 0 a rule drops it, or the error that drops it.
 * The skb is the caller's to free.
 */
static struct sk_buff *nt_run(struct nt *n, struct sk_buff *skb, int *ret,
			      struct mmb_verdict *out)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(n->test, skb);
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(n->r);
	*ret = mmb_parse(skb, &pkt);
	if (!*ret) {
		mmb_verdict_init(&v);
		if (mmb_ruleset_stateful(rs))
			mmb_conn_lookup(&n->mc, &pkt, skb, &v);
		mmb_classify_rules(rs, &pkt, skb, &v);
		if (v.conn || v.nsf)
			*ret = mmb_conn_verdict(&n->mc, &pkt, skb, &v);
		if (!*ret && (v.nrw || mmb_conn_rewrites(v.conn)))
			*ret = mmb_rewrite(skb, &pkt, &v);
		if (!*ret)
			*ret = !(v.drop && !v.accept);
		if (out)
			*out = v;
	}
	local_bh_enable();
	rcu_read_unlock();
	return skb;
}

/* Send @d; the packet that comes out, which passed with valid checksums. */
static struct sk_buff *nt_send(struct nt *n, const struct mmbt_pkt_desc *d,
			       struct mmb_verdict *v)
{
	unsigned int l4off = d->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct sk_buff *skb;
	int ret;

	skb = nt_run(n, mmbt_pkt_build(n->dev, d), &ret, v);
	KUNIT_EXPECT_EQ(n->test, ret, 1);
	KUNIT_EXPECT_TRUE(n->test, mmbt_csums_ok(skb, d->v6, l4off, d->proto));
	kunit_add_action(n->test, nt_kfree_skb, skb);
	return skb;
}

static const u8 *nt_saddr(const struct sk_buff *skb, bool v6)
{
	return skb->data + (v6 ? 8 : 12);
}

static const u8 *nt_daddr(const struct sk_buff *skb, bool v6)
{
	return skb->data + (v6 ? 24 : 16);
}

static u16 nt_port(const struct sk_buff *skb, bool v6, bool src)
{
	return get_unaligned_be16(skb->data + (v6 ? 40 : 20) + (src ? 0 : 2));
}

static u64 nt_stat(struct nt *n, enum mmb_conn_stat what)
{
	u64 s[MMB_CSTAT_MAX];

	mmb_conns_stats(&n->mc, s);
	return s[what];
}

/*
 * Source NAT: the client's packets leave from the NAT address, with their
 * port while no other connection has it; replies find their way back.
 * TCP and UDP, IPv4 and IPv6.
 */
static void nat_snat_test(struct kunit *test)
{
	unsigned int fam, p;

	for (fam = 0; fam < 2; fam++) {
		for (p = 0; p < 2; p++) {
			bool v6 = fam;
			u8 proto = p ? IPPROTO_UDP : IPPROTO_TCP;
			u16 dport = p ? MMB_FIELD_UDP_DPORT : MMB_FIELD_TCP_DPORT;
			struct mmb_match_spec m = mmbt_match(dport, MMB_OP_EQ, 80);
			struct mmbt_target t = nt_addr(MMB_TARGET_MOD, v6, true);
			const u8 *nat = v6 ? nt_nat6 : nt_nat4;
			unsigned int alen = v6 ? 16 : 4;
			struct nt *n = nt_new(test);
			struct mmbt_pkt_desc d;
			struct sk_buff *skb;
			u8 client[16];
			u16 port2;

			nt_rule(n, &m, 1, &t, 1);
			d = nt_pkt(v6, proto, 1, 5000, 200, 80);
			skb = nt_send(n, &d, NULL);
			KUNIT_EXPECT_MEMEQ(test, nt_saddr(skb, v6), nat, alen);
			KUNIT_EXPECT_MEMEQ(test, nt_daddr(skb, v6), d.daddr, alen);
			KUNIT_EXPECT_EQ(test, nt_port(skb, v6, true), 5000);

			/* The reply, to the NAT address, goes to the client. */
			d = nt_pkt(v6, proto, 200, 80, 1, 5000);
			memcpy(d.daddr, nat, alen);
			d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
			skb = nt_send(n, &d, NULL);
			nt_host(client, v6, 1);
			KUNIT_EXPECT_MEMEQ(test, nt_daddr(skb, v6), client, alen);
			KUNIT_EXPECT_MEMEQ(test, nt_saddr(skb, v6), d.saddr, alen);
			KUNIT_EXPECT_EQ(test, nt_port(skb, v6, false), 5000);

			/* Another client, same port: it gets another one. */
			d = nt_pkt(v6, proto, 2, 5000, 200, 80);
			skb = nt_send(n, &d, NULL);
			KUNIT_EXPECT_MEMEQ(test, nt_saddr(skb, v6), nat, alen);
			port2 = nt_port(skb, v6, true);
			KUNIT_EXPECT_NE(test, port2, 5000);
			KUNIT_EXPECT_GE(test, port2, 1024);
			d = nt_pkt(v6, proto, 200, 80, 2, port2);
			memcpy(d.daddr, nat, alen);
			d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
			skb = nt_send(n, &d, NULL);
			nt_host(client, v6, 2);
			KUNIT_EXPECT_MEMEQ(test, nt_daddr(skb, v6), client, alen);
			KUNIT_EXPECT_EQ(test, nt_port(skb, v6, false), 5000);
			KUNIT_EXPECT_EQ(test, nt_stat(n, MMB_CSTAT_CREATED), 2);
		}
	}
}

/* Destination NAT of a prefix and a port: port forwarding, both ways. */
static void nat_dnat_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
	struct mmbt_target t[2] = {
		{ .type = MMB_TARGET_MAP, .field = MMB_FIELD_IP_DADDR, .vlen = 4, .plen = 16,
		  .value = { 10, 9 } },
		{ .type = MMB_TARGET_MAP, .field = MMB_FIELD_TCP_DPORT, .vlen = 2,
		  .value = { 8080 >> 8, 8080 & 0xff } },
	};
	const u8 inside[4] = { 10, 9, 1, 200 }, public[4] = { 10, 0, 1, 200 };
	struct nt *n = nt_new(test);
	struct mmbt_pkt_desc d;
	struct sk_buff *skb;

	nt_rule(n, &m, 1, t, 2);
	d = nt_pkt(false, IPPROTO_TCP, 1, 4000, 200, 80);
	skb = nt_send(n, &d, NULL);
	KUNIT_EXPECT_MEMEQ(test, nt_daddr(skb, false), inside, 4);
	KUNIT_EXPECT_EQ(test, nt_port(skb, false, false), 8080);
	KUNIT_EXPECT_EQ(test, nt_port(skb, false, true), 4000);

	d = nt_pkt(false, IPPROTO_TCP, 1, 8080, 1, 4000);
	memcpy(d.saddr, inside, 4);
	d.tcp_flags = TCPHDR_SYN | TCPHDR_ACK;
	skb = nt_send(n, &d, NULL);
	KUNIT_EXPECT_MEMEQ(test, nt_saddr(skb, false), public, 4);
	KUNIT_EXPECT_EQ(test, nt_port(skb, false, true), 80);
	KUNIT_EXPECT_EQ(test, nt_port(skb, false, false), 4000);
}

/*
 * Port selection: 60 000 new connections from distinct clients to one
 * server, shuffled into a range of 1 000 ports. The first take every port
 * of the range once, never one in use; the rest are refused, counted,
 * and leave the table as it was.
 */
static void nat_pick_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmbt_target t[2] = {
		nt_addr(MMB_TARGET_MOD, false, true),
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_UDP_SPORT, .vlen = 4,
		  .value = { 20000 >> 8, 20000 & 0xff, 20999 >> 8, 20999 & 0xff } },
	};
	struct nt *n = nt_new(test);
	unsigned int i, ok = 0, found = 0, bad = 0;
	struct mmb_tuple r = {};
	u8 dir;

	nt_rule(n, &m, 1, t, 2);
	for (i = 0; i < 60000; i++) {
		struct mmbt_pkt_desc d = nt_pkt(false, IPPROTO_UDP, 1, 1024 + i, 200, 53);
		struct sk_buff *skb;
		int ret;

		skb = nt_run(n, mmbt_pkt_build(n->dev, &d), &ret, NULL);
		if (ret == 1) {
			u16 port = get_unaligned_be16(skb->data + 20);

			ok++;
			bad += port < 20000 || port > 20999 ||
			       memcmp(skb->data + 12, nt_nat4, 4);
		} else if (ret != -ENOSPC) {
			bad++;
		}
		kfree_skb(skb);
		if (!(i % 1024))
			cond_resched();
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, ok, 1000);
	KUNIT_EXPECT_EQ(test, nt_stat(n, MMB_CSTAT_CREATED), 1000);
	KUNIT_EXPECT_EQ(test, nt_stat(n, MMB_CSTAT_NAT_FULL), 59000);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->mc.count), 1000);

	/* Each port of the range is one connection's. */
	r.family = 4;
	r.proto = IPPROTO_UDP;
	nt_host((u8 *)&r.src, false, 200);
	memcpy(&r.dst, nt_nat4, 4);
	r.sport = htons(53);
	rcu_read_lock();
	for (i = 20000; i <= 20999; i++) {
		r.dport = htons(i);
		found += mmb_conn_find(&n->mc, &r, &dir) && dir == MMB_DIR_REPLY;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, found, 1000);
}

/*
 * Up to 93% of a range of 10 000 ports used, every pick finds a port: the
 * odds that one of these 9 300 finds none in its 248 looks are below one
 * in a million. Picks that walk to the next free port pile up in runs of
 * taken ports: nf_nat's rounds of 128, 64, 32, 16 and 8 adjacent ports
 * refused some here in 4 runs of 4.
 */
static void nat_pick_spread_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmbt_target t[2] = {
		nt_addr(MMB_TARGET_MOD, false, true),
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_UDP_SPORT, .vlen = 4,
		  .value = { 20000 >> 8, 20000 & 0xff, 29999 >> 8, 29999 & 0xff } },
	};
	struct nt *n = nt_new(test);
	unsigned int i, ok = 0;

	nt_rule(n, &m, 1, t, 2);
	/* 9 300 connections: none evicted, even with little memory. */
	mmbt_conn_cap(test, MMB_CONN_MAX_LIMIT);
	n->mc.max = MMB_CONN_MAX_LIMIT;
	for (i = 0; i < 9300; i++) {
		struct mmbt_pkt_desc d = nt_pkt(false, IPPROTO_UDP, 1 + i % 64, 1024 + i, 200, 53);
		struct sk_buff *skb;
		int ret;

		skb = nt_run(n, mmbt_pkt_build(n->dev, &d), &ret, NULL);
		ok += ret == 1;
		kfree_skb(skb);
		if (!(i % 1024))
			cond_resched();
	}
	KUNIT_EXPECT_EQ(test, ok, 9300);
	KUNIT_EXPECT_EQ(test, nt_stat(n, MMB_CSTAT_NAT_FULL), 0);
}

/*
 * An ICMP error around @quote (@qlen bytes), from @src to @dst, its
 * checksums computed in full.
 */
static struct sk_buff *nt_icmp_error(struct nt *n, bool v6, const u8 *src, const u8 *dst,
				     u8 type, u8 code, const u8 *quote, unsigned int qlen)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, .ttl = 64,
		.sport = type << 8 | code, .payload_len = qlen,
	};
	unsigned int l4off = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct sk_buff *skb;
	__wsum sum;
	u8 *l4;

	memcpy(d.saddr, src, v6 ? 16 : 4);
	memcpy(d.daddr, dst, v6 ? 16 : 4);
	skb = mmbt_pkt_build(n->dev, &d);
	KUNIT_ASSERT_NOT_NULL(n->test, skb);
	l4 = skb->data + l4off;
	memset(l4 + 2, 0, 6);	/* checksum, unused */
	memcpy(l4 + 8, quote, qlen);
	sum = csum_partial(l4, 8 + qlen, 0);
	if (v6)
		put_unaligned(csum_ipv6_magic(&ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr,
					      8 + qlen, IPPROTO_ICMPV6, sum), (__sum16 *)(l4 + 2));
	else
		put_unaligned(csum_fold(sum), (__sum16 *)(l4 + 2));
	return skb;
}

/*
 * ICMP errors about NATed packets, translated: the error a router sends
 * the NAT address about a source-NATed packet (IPv4, time exceeded), and
 * the one a destination-NATed server sends itself (IPv6, port
 * unreachable). Each must come out as the error its sender would have got
 * with no NAT in the way: byte for byte, every checksum with it.
 */
static void nat_icmp_test(struct kunit *test)
{
	unsigned int fam;

	for (fam = 0; fam < 2; fam++) {
		bool v6 = fam;
		struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
		/* v4: source NAT, the error from a router; v6: DNAT, from the server */
		struct mmbt_target t = nt_addr(MMB_TARGET_MAP, v6, !v6);
		struct mmbt_pkt_desc d = nt_pkt(v6, IPPROTO_UDP, 1, 5000, 200, 53);
		struct sk_buff *pre, *post, *err, *want;
		u8 router[16], from[16];
		struct nt *n = nt_new(test);
		u8 type, code;
		int ret;

		nt_rule(n, &m, 1, &t, 1);
		pre = mmbt_pkt_build(n->dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, pre);
		kunit_add_action(test, nt_kfree_skb, pre);
		post = nt_send(n, &d, NULL);
		KUNIT_ASSERT_EQ(test, post->len, pre->len);
		KUNIT_EXPECT_MEMNEQ(test, post->data, pre->data, pre->len);

		nt_host(router, v6, 250);
		if (v6) {
			type = ICMPV6_DEST_UNREACH;
			code = ICMPV6_PORT_UNREACH;
			memcpy(from, nt_nat6, 16);	/* the server, inside */
		} else {
			type = ICMP_TIME_EXCEEDED;
			code = ICMP_EXC_TTL;
			memcpy(from, router, 4);
		}
		/* To the quoted packet's source, as it left the NAT. */
		err = nt_icmp_error(n, v6, from, nt_saddr(post, v6), type, code, post->data,
				    post->len);
		err = nt_run(n, err, &ret, NULL);
		kunit_add_action(test, nt_kfree_skb, err);
		KUNIT_EXPECT_EQ(test, ret, 1);

		/* What the client would have got: about its own packet. */
		want = nt_icmp_error(n, v6, v6 ? d.daddr : router, d.saddr, type, code,
				     pre->data, pre->len);
		kunit_add_action(test, nt_kfree_skb, want);
		KUNIT_ASSERT_EQ(test, err->len, want->len);
		KUNIT_EXPECT_MEMEQ(test, err->data, want->data, want->len);
		KUNIT_EXPECT_TRUE(test, mmbt_csums_ok(err, v6, v6 ? 40 : 20,
						      v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP));
	}
}

/* TCP options: NOP, NOP, a SACK option of two blocks. */
#define NT_SACK_LEN	20

static void nt_sack(u8 *opt, u32 a, u32 b, u32 c, u32 e)
{
	opt[0] = TCPOPT_NOP;
	opt[1] = TCPOPT_NOP;
	opt[2] = TCPOPT_SACK;
	opt[3] = 18;
	put_unaligned_be32(a, opt + 4);
	put_unaligned_be32(b, opt + 8);
	put_unaligned_be32(c, opt + 12);
	put_unaligned_be32(e, opt + 16);
}

/* An ACK segment between @from and @to with @seq and SACK options @opt. */
static struct mmbt_pkt_desc nt_seg(u8 from, u16 sport, u8 to, u16 dport, u32 seq, const u8 *opt)
{
	struct mmbt_pkt_desc d = nt_pkt(false, IPPROTO_TCP, from, sport, to, dport);

	d.tcp_flags = TCPHDR_ACK;
	d.seq = seq;
	d.tcp_opts = opt;
	d.tcp_opt_len = NT_SACK_LEN;
	return d;
}

static u32 nt_be32(const struct sk_buff *skb, unsigned int off)
{
	return get_unaligned_be32(skb->data + off);
}

/*
 * Shuffled sequence numbers: each direction's move by its offset, the
 * acknowledgments and SACK blocks of the other direction back, across the
 * wrap of 2^32.
 */
static void nat_seq_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
	struct mmbt_target t[2] = {
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_TCP_SEQ_NUM },
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_TCP_ACK_NUM },
	};
	struct nt *n = nt_new(test);
	struct mmbt_pkt_desc d;
	struct mmb_conn_ext *x;
	struct mmb_verdict v;
	struct sk_buff *skb;
	u8 opt[NT_SACK_LEN];

	nt_rule(n, &m, 1, t, 2);
	d = nt_pkt(false, IPPROTO_TCP, 1, 4000, 200, 80);
	d.seq = 1000;
	skb = nt_send(n, &d, &v);
	KUNIT_ASSERT_NOT_NULL(test, v.conn);
	KUNIT_ASSERT_TRUE(test, test_bit(MMB_CONN_EXT, &v.conn->status));
	KUNIT_EXPECT_FALSE(test, test_bit(MMB_CONN_MAPPED, &v.conn->status));
	x = mmb_conn_ext(v.conn);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 24), 1000 + x->seq[MMB_DIR_ORIG]);

	/* From now on, offsets that wrap. */
	x->seq[MMB_DIR_ORIG] = 0xfffffff0;
	x->seq[MMB_DIR_REPLY] = 0x20;

	/* The server's segment: its seq moves, its ack and SACK go back. */
	nt_sack(opt, 0x8, 0x18, 0x100000000ULL - 8, 0x4);
	d = nt_seg(200, 80, 1, 4000, 0xffffffe8, opt);
	skb = nt_send(n, &d, NULL);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 24), 0x8);			/* seq + 0x20 */
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 28), 0xabcdef01 + 0x10);	/* ack - orig */
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 44), 0x18);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 48), 0x28);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 52), 0x8);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 56), 0x14);

	/* The client's: seq moves by the wrapping offset, ack and SACK back by 0x20. */
	nt_sack(opt, 0x10, 0x20, 0x30, 0x40);
	d = nt_seg(1, 4000, 200, 80, 0x20, opt);
	skb = nt_send(n, &d, NULL);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 24), 0x10);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 28), 0xabcdef01 - 0x20);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 44), 0xfffffff0);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 48), 0x0);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 52), 0x10);
	KUNIT_EXPECT_EQ(test, nt_be32(skb, 56), 0x20);
}

/*
 * shuffle ip-id and ip6-flow-label: the original direction's packets get
 * the connection's ID offset and flow label, the replies keep theirs.
 */
/* The IPv6 flow label, or the IPv4 ID, of @skb. */
static u32 nt_id_label(const struct sk_buff *skb, bool v6)
{
	return v6 ? get_unaligned_be32(skb->data) & 0xfffff : get_unaligned_be16(skb->data + 4);
}

static void nat_id_label_test(struct kunit *test)
{
	unsigned int fam;

	for (fam = 0; fam < 2; fam++) {
		bool v6 = fam;
		struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
		struct mmbt_target t = {
			.type = MMB_TARGET_SHUFFLE,
			.field = v6 ? MMB_FIELD_IP6_FLOW_LABEL : MMB_FIELD_IP_ID,
		};
		struct nt *n = nt_new(test);
		struct mmbt_pkt_desc d;
		struct mmb_conn_ext *x;
		struct mmb_verdict v;
		struct sk_buff *skb;

		nt_rule(n, &m, 1, &t, 1);
		d = nt_pkt(v6, IPPROTO_UDP, 1, 5000, 200, 53);
		skb = nt_send(n, &d, &v);
		KUNIT_ASSERT_NOT_NULL(test, v.conn);
		x = mmb_conn_ext(v.conn);
		KUNIT_EXPECT_EQ(test, nt_id_label(skb, v6),
				v6 ? x->label : (u16)(0x1234 + x->ipid));
		/* The reply keeps its own (the builder's 7, or 0x1234). */
		d = nt_pkt(v6, IPPROTO_UDP, 200, 53, 1, 5000);
		skb = nt_send(n, &d, NULL);
		KUNIT_EXPECT_EQ(test, nt_id_label(skb, v6), v6 ? 7 : 0x1234);
	}
}

/* @d built on @n's device, freed at the test's end. */
static struct sk_buff *nt_built(struct nt *n, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(n->dev, d);

	KUNIT_ASSERT_NOT_NULL(n->test, skb);
	kunit_add_action(n->test, nt_kfree_skb, skb);
	return skb;
}

/*
 * @skb (freed at the test's end by the caller's nt_built()) through a
 * hook's steps as mmb_judge() takes them: arriving (!@out), or leaving,
 * @seen arriving or not (the host's own); the connection's rewrites those
 * mmb_nat_manip() gives this hook. *@manip: what they were. @found: is its
 * tuple one of a connection's (a reply mapped as it arrived is not, as it
 * leaves)?
 */
static struct sk_buff *nt_hook(struct nt *n, struct sk_buff *skb, bool out, bool seen,
			       bool found, u8 *manip)
{
	unsigned int l4off = skb->protocol == htons(ETH_P_IPV6) ? sizeof(struct ipv6hdr) :
			     sizeof(struct iphdr);
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int err;

	KUNIT_ASSERT_EQ(n->test, mmb_parse(skb, &pkt), 0);
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(n->r);
	mmb_verdict_init(&v);
	v.out = out;
	mmb_conn_lookup(&n->mc, &pkt, skb, &v);
	KUNIT_EXPECT_EQ(n->test, !!v.conn, found);
	v.seen = out && seen;
	mmb_classify_rules(rs, &pkt, skb, &v);
	err = mmb_conn_verdict(&n->mc, &pkt, skb, &v);
	*manip = mmb_conn_rewrites(v.conn) ? mmb_nat_manip(v.conn, v.dir, false, out, v.seen) : 0;
	v.manip = *manip;
	if (!err && (v.nrw || *manip))
		err = mmb_rewrite(skb, &pkt, &v);
	local_bh_enable();
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(n->test, err, 0);
	KUNIT_EXPECT_TRUE(n->test, mmbt_csums_ok(skb, skb->protocol == htons(ETH_P_IPV6), l4off,
						 skb->data[skb->protocol == htons(ETH_P_IPV6) ?
							   6 : 9]));
	return skb;
}

/*
 * A connection whose packets leave by enabled devices both ways (as
 * mmb_conn_snat_where() finds on a router): a client's packet gets nothing
 * of the source NAT as it arrives, not even its offsets (what the router
 * itself says about it quotes it as sent), and all of it as it leaves,
 * ending up as a packet mapped whole in one place does; the host's own
 * packet of that tuple is mapped whole as it leaves.
 * A reply is mapped whole as it arrives (its destination changes), and
 * gets nothing more as it leaves. TCP and UDP, IPv4 and IPv6, with and
 * without an extension.
 */
static void nat_split_test(struct kunit *test)
{
	unsigned int k;

	for (k = 0; k < 8; k++) {
		bool v6 = k & 1, ext = k & 2;
		u8 proto = k & 4 ? IPPROTO_TCP : IPPROTO_UDP;
		struct mmb_match_spec m = mmbt_match(proto == IPPROTO_TCP ? MMB_FIELD_TCP_DPORT :
						     MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
		struct mmbt_target t[2] = {
			nt_addr(MMB_TARGET_MOD, v6, true),
			{ .type = MMB_TARGET_SHUFFLE,
			  .field = v6 ? MMB_FIELD_IP6_FLOW_LABEL : MMB_FIELD_IP_ID },
		};
		struct nt *n = nt_new(test);
		struct sk_buff *whole, *skb, *sent;
		struct mmbt_pkt_desc d, r;
		struct mmb_verdict v;
		u8 manip, client[16];

		nt_rule(n, &m, 1, t, ext ? 2 : 1);
		d = nt_pkt(v6, proto, 1, 5000, 200, 53);
		whole = nt_send(n, &d, &v);
		KUNIT_ASSERT_NOT_NULL(test, v.conn);
		KUNIT_EXPECT_EQ(test, test_bit(MMB_CONN_EXT, &v.conn->status), ext);
		__set_bit(MMB_CONN_SNAT_ORIG, &v.conn->status);
		__set_bit(MMB_CONN_SNAT_REPLY, &v.conn->status);
		mmb_nat_offsets_where(v.conn);

		sent = nt_built(n, &d);
		skb = nt_hook(n, nt_built(n, &d), false, false, true, &manip);
		KUNIT_EXPECT_EQ(test, manip, 0);
		KUNIT_ASSERT_EQ(test, skb->len, sent->len);
		KUNIT_EXPECT_MEMEQ(test, skb->data, sent->data, sent->len);
		skb = nt_hook(n, skb, true, true, true, &manip);
		KUNIT_EXPECT_EQ(test, manip, MMB_MANIP_ALL);
		KUNIT_ASSERT_EQ(test, skb->len, whole->len);
		KUNIT_EXPECT_MEMEQ(test, skb->data, whole->data, whole->len);

		/* The host's own packet of the tuple: all of it as it leaves. */
		skb = nt_hook(n, nt_built(n, &d), true, false, true, &manip);
		KUNIT_EXPECT_EQ(test, manip, MMB_MANIP_ALL);
		KUNIT_EXPECT_MEMEQ(test, skb->data, whole->data, whole->len);

		/* The reply, to the NAT address: the client's as it arrives. */
		r = nt_pkt(v6, proto, 200, 53, 1, 5000);
		memcpy(r.daddr, v6 ? nt_nat6 : nt_nat4, v6 ? 16 : 4);
		r.tcp_flags = proto == IPPROTO_TCP ? TCPHDR_SYN | TCPHDR_ACK : 0;
		skb = nt_hook(n, nt_built(n, &r), false, false, true, &manip);
		KUNIT_EXPECT_EQ(test, manip, MMB_MANIP_ALL);
		nt_host(client, v6, 1);
		KUNIT_EXPECT_MEMEQ(test, nt_daddr(skb, v6), client, v6 ? 16 : 4);
		KUNIT_EXPECT_EQ(test, nt_port(skb, v6, false), 5000);
		whole = skb_copy(skb, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, whole);
		kunit_add_action(test, nt_kfree_skb, whole);
		skb = nt_hook(n, skb, true, true, false, &manip);
		KUNIT_EXPECT_EQ(test, manip, 0);
		KUNIT_EXPECT_MEMEQ(test, skb->data, whole->data, whole->len);
	}
}

static struct kunit_case mmb_nat_cases[] = {
	KUNIT_CASE(nat_id_label_test),
	KUNIT_CASE(nat_snat_test),
	KUNIT_CASE(nat_dnat_test),
	KUNIT_CASE(nat_pick_test),
	KUNIT_CASE(nat_pick_spread_test),
	KUNIT_CASE(nat_icmp_test),
	KUNIT_CASE(nat_seq_test),
	KUNIT_CASE(nat_split_test),
	{}
};

static struct kunit_suite mmb_nat_suite = {
	.name = "mmb-nat",
	.test_cases = mmb_nat_cases,
};

kunit_test_suite(mmb_nat_suite);
