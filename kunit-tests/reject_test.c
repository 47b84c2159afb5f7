// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: reject (kmod/reject.c). The RSTs it builds, byte by byte, for
 * both families; which packets get which answer and which get none; the
 * checksum check; the namespace's budget of answers; the verdict that
 * carries a reject, and the rules refused.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "nlt.h"
#include "util.h"

static const u8 rj_a4[4] = { 192, 0, 2, 1 }, rj_b4[4] = { 198, 51, 100, 7 };
static const u8 rj_a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 rj_b6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 5, [15] = 2 };

/* A packet from a to b, parsed into @pkt; freed by the test's end. */
static struct sk_buff *rj_pkt(struct kunit *test, struct mmbt_pkt_desc *d, struct mmb_pkt *pkt)
{
	struct sk_buff *skb;

	if (!d->saddr[0] && !d->saddr[15])
		memcpy(d->saddr, d->v6 ? rj_a6 : rj_a4, d->v6 ? 16 : 4);
	if (!d->daddr[0] && !d->daddr[15])
		memcpy(d->daddr, d->v6 ? rj_b6 : rj_b4, d->v6 ? 16 : 4);
	d->ttl = d->ttl ?: 64;
	skb = mmbt_pkt_build(init_net.loopback_dev, d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->pkt_type = PACKET_HOST;
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, pkt), 0);
	return skb;
}

/* The RST for @d's segment: checked for what every RST has; its TCP header. */
static const struct tcphdr *rj_rst(struct kunit *test, struct mmbt_pkt_desc *d,
				   struct sk_buff **out)
{
	unsigned int nh = d->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct mmb_pkt pkt;
	struct sk_buff *skb = rj_pkt(test, d, &pkt), *rst;
	const struct tcphdr *th;

	KUNIT_EXPECT_EQ(test, mmb_reject_answer(skb, &pkt, MMB_REJECT_DEFAULT, false),
			MMB_REJECT_TCP_RESET);
	rst = mmb_reject_rst(skb, &pkt);
	kfree_skb(skb);
	KUNIT_ASSERT_NOT_NULL(test, rst);
	*out = rst;
	KUNIT_EXPECT_EQ(test, rst->len, nh + sizeof(struct tcphdr));
	KUNIT_EXPECT_TRUE(test, mmbt_csums_ok(rst, d->v6, nh, IPPROTO_TCP));
	if (d->v6) {
		const struct ipv6hdr *ip6 = (const void *)rst->data;

		KUNIT_EXPECT_EQ(test, (int)ip6->version, 6);
		KUNIT_EXPECT_EQ(test, ip6->nexthdr, IPPROTO_TCP);
		KUNIT_EXPECT_EQ(test, ntohs(ip6->payload_len), sizeof(struct tcphdr));
		KUNIT_EXPECT_EQ(test, ip6->hop_limit, 64);
		KUNIT_EXPECT_EQ(test, memcmp(&ip6->saddr, d->daddr, 16), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&ip6->daddr, d->saddr, 16), 0);
		KUNIT_EXPECT_EQ(test, rst->protocol, htons(ETH_P_IPV6));
	} else {
		const struct iphdr *iph = (const void *)rst->data;

		KUNIT_EXPECT_EQ(test, (int)iph->version, 4);
		KUNIT_EXPECT_EQ(test, (int)iph->ihl, 5);
		KUNIT_EXPECT_EQ(test, iph->protocol, IPPROTO_TCP);
		KUNIT_EXPECT_EQ(test, ntohs(iph->tot_len), 40);
		KUNIT_EXPECT_EQ(test, iph->frag_off, htons(IP_DF));
		KUNIT_EXPECT_EQ(test, memcmp(&iph->saddr, d->daddr, 4), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&iph->daddr, d->saddr, 4), 0);
		KUNIT_EXPECT_EQ(test, rst->protocol, htons(ETH_P_IP));
	}
	th = (const void *)(rst->data + nh);
	KUNIT_EXPECT_EQ(test, ntohs(th->source), d->dport);
	KUNIT_EXPECT_EQ(test, ntohs(th->dest), d->sport);
	KUNIT_EXPECT_EQ(test, (int)th->doff, 5);
	KUNIT_EXPECT_TRUE(test, th->rst);
	KUNIT_EXPECT_FALSE(test, th->syn || th->fin || th->psh || th->urg);
	KUNIT_EXPECT_EQ(test, th->window, 0);
	return th;
}

/* A SYN: RST|ACK, seq 0, ack its seq + 1 (the SYN's one). */
static void rj_rst_syn(struct kunit *test, bool v6)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN,
		.sport = 40000, .dport = 80, .seq = 0xfffffff0,
	};
	const struct tcphdr *th;
	struct sk_buff *rst;

	th = rj_rst(test, &d, &rst);
	KUNIT_EXPECT_TRUE(test, th->ack);
	KUNIT_EXPECT_EQ(test, ntohl(th->seq), 0);
	KUNIT_EXPECT_EQ(test, ntohl(th->ack_seq), 0xfffffff1);
	kfree_skb(rst);
}

static void rj_rst_syn4(struct kunit *test)
{
	rj_rst_syn(test, false);
}

static void rj_rst_syn6(struct kunit *test)
{
	rj_rst_syn(test, true);
}

/* A segment with ACK: a bare RST whose seq is its ack_seq, whatever its data. */
static void rj_rst_ack(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .tcp_flags = TCPHDR_ACK | TCPHDR_PSH,
		.sport = 40000, .dport = 25, .seq = 1000, .payload_len = 100,
		.tcp_opt_len = 12,
	};
	const struct tcphdr *th;
	struct sk_buff *rst;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		d.v6 = v6;
		memset(d.saddr, 0, 16);
		memset(d.daddr, 0, 16);
		th = rj_rst(test, &d, &rst);
		KUNIT_EXPECT_FALSE(test, th->ack);
		KUNIT_EXPECT_EQ(test, ntohl(th->seq), 0xabcdef01);	/* mmbt_pkt_build()'s ack */
		KUNIT_EXPECT_EQ(test, th->ack_seq, 0);
		kfree_skb(rst);
	}
}

/* No ACK, a FIN with data behind options: ack = seq + data + FIN (RFC 793). */
static void rj_rst_fin(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.v6 = true, .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_FIN,
		.sport = 1, .dport = 2, .seq = 5000, .payload_len = 33, .tcp_opt_len = 8,
	};
	const struct tcphdr *th;
	struct sk_buff *rst;

	th = rj_rst(test, &d, &rst);
	KUNIT_EXPECT_TRUE(test, th->ack);
	KUNIT_EXPECT_EQ(test, ntohl(th->seq), 0);
	KUNIT_EXPECT_EQ(test, ntohl(th->ack_seq), 5000 + 33 + 1);
	kfree_skb(rst);
}

/* The answer @how gives @d's packet, or none (MMB_REJECT_DEFAULT). */
static u8 rj_answer(struct kunit *test, struct mmbt_pkt_desc d, u8 how, u8 pkt_type)
{
	struct mmb_pkt pkt;
	struct sk_buff *skb = rj_pkt(test, &d, &pkt);
	u8 a;

	skb->pkt_type = pkt_type;
	a = mmb_reject_answer(skb, &pkt, how, false);
	kfree_skb(skb);
	return a;
}

/* Which answer for which packet. */
static void rj_answers(struct kunit *test)
{
	const struct mmbt_pkt_desc tcp = { .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN,
					   .sport = 1000, .dport = 22 };
	const struct mmbt_pkt_desc udp = { .proto = IPPROTO_UDP, .sport = 1000, .dport = 53,
					   .payload_len = 4 };
	struct mmbt_pkt_desc d;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		d = tcp;
		d.v6 = v6;
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
				MMB_REJECT_TCP_RESET);
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_TCP_RESET, PACKET_HOST),
				MMB_REJECT_TCP_RESET);
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_HOST_UNREACH, PACKET_HOST),
				MMB_REJECT_HOST_UNREACH);
		/* Not to a frame sent to a link-layer broadcast or multicast address. */
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_BROADCAST),
				MMB_REJECT_DEFAULT);
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_MULTICAST),
				MMB_REJECT_DEFAULT);
		/* Never to a RST. */
		d.tcp_flags = TCPHDR_RST | TCPHDR_ACK;
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
				MMB_REJECT_DEFAULT);
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_PORT_UNREACH, PACKET_HOST),
				MMB_REJECT_DEFAULT);
		d = udp;
		d.v6 = v6;
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
				MMB_REJECT_PORT_UNREACH);
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_ADMIN_PROHIBITED, PACKET_HOST),
				MMB_REJECT_ADMIN_PROHIBITED);
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_NET_UNREACH, PACKET_HOST),
				MMB_REJECT_NET_UNREACH);
		/* Multicast destinations and sources, unspecified ones. */
		memset(d.daddr, 0, 16);
		if (v6) {
			d.daddr[0] = 0xff;
			d.daddr[1] = 0x02;
			d.daddr[15] = 1;
		} else {
			d.daddr[0] = 224;
			d.daddr[3] = 1;
		}
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
				MMB_REJECT_DEFAULT);
		d = udp;
		d.v6 = v6;
		memset(d.saddr, 0, 16);
		if (v6) {
			d.saddr[0] = 0xff;
			d.saddr[1] = 0x0e;
			d.saddr[15] = 9;
		} else {
			memset(d.saddr, 0xff, 4);	/* 255.255.255.255 */
		}
		KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
				MMB_REJECT_DEFAULT);
		d = udp;
		d.v6 = v6;
		if (!v6) {
			memset(d.daddr, 0xff, 4);
			KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
					MMB_REJECT_DEFAULT);
			d.daddr[0] = 127;
			memcpy(d.saddr, d.daddr, 4);
			memcpy(d.daddr, rj_b4, 4);
			/* A loopback source arriving from the wire. */
			KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
					MMB_REJECT_DEFAULT);
		}
	}
}

/* ICMP: informational messages are answered, errors never; later fragments never. */
static void rj_no_answer(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_ICMP, .sport = ICMP_ECHO << 8,
				   .payload_len = 8 };

	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_PORT_UNREACH);
	d.sport = ICMP_DEST_UNREACH << 8 | ICMP_PORT_UNREACH;
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_DEFAULT);
	d.sport = ICMP_TIME_EXCEEDED << 8;
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_HOST_UNREACH, PACKET_HOST),
			MMB_REJECT_DEFAULT);
	d.sport = 200 << 8;		/* unknown: taken as an error, as icmp_send() does */
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_DEFAULT);
	d.v6 = true;
	d.proto = IPPROTO_ICMPV6;
	d.sport = ICMPV6_ECHO_REQUEST << 8;
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_PORT_UNREACH);
	d.sport = ICMPV6_DEST_UNREACH << 8;
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_DEFAULT);
	d.sport = ICMPV6_PKT_TOOBIG << 8;
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_DEFAULT);
	/* A later fragment (offset 1480 bytes), and a first one, of UDP. */
	d = (struct mmbt_pkt_desc){ .proto = IPPROTO_UDP, .frag_off = 185, .payload_len = 16 };
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_DEFAULT);
	d.frag_off = IP_MF;
	d.sport = 1;
	d.dport = 2;
	KUNIT_EXPECT_EQ(test, rj_answer(test, d, MMB_REJECT_DEFAULT, PACKET_HOST),
			MMB_REJECT_PORT_UNREACH);
}

/* A segment whose checksum is wrong is not answered. */
static void rj_csum(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN,
				   .sport = 1000, .dport = 22, .payload_len = 10 };
	struct mmb_pkt pkt;
	struct sk_buff *skb;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		d.v6 = v6;
		memset(d.saddr, 0, 16);
		memset(d.daddr, 0, 16);
		skb = rj_pkt(test, &d, &pkt);
		skb->ip_summed = CHECKSUM_NONE;
		KUNIT_EXPECT_TRUE(test, mmb_reject_csum_ok(skb, &pkt));
		skb->data[pkt.l4off + 16] ^= 0x40;	/* the TCP checksum */
		KUNIT_EXPECT_FALSE(test, mmb_reject_csum_ok(skb, &pkt));
		/* Checked by the device already: taken as it is. */
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		KUNIT_EXPECT_TRUE(test, mmb_reject_csum_ok(skb, &pkt));
		kfree_skb(skb);
	}
}

/* The budget: a burst, then nothing within the same second. */
static void rj_limit(struct kunit *test)
{
	unsigned int rate = mmb_reject_rate, burst = mmb_reject_burst, i, n = 0;
	struct mmb_reject_limit l;

	mmb_reject_rate = 1;	/* a token a second: none comes back during the test */
	mmb_reject_burst = 5;
	mmb_reject_limit_init(&l);
	for (i = 0; i < 100; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 5);
	/* A second later, the rate's share comes back; ten later, never over the burst. */
	mmb_tokens_set_stamp(&l.b, mmb_tokens_stamp(&l.b) - HZ);
	mmb_reject_rate = 3;
	for (i = 0, n = 0; i < 100; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 3);
	mmb_tokens_set_stamp(&l.b, mmb_tokens_stamp(&l.b) - 10 * HZ);
	for (i = 0, n = 0; i < 100; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 5);
	/*
	 * A stamp ahead of the jiffies a CPU read (another moved it since):
	 * no time passed, nothing comes back (a refill there once gave a burst
	 * per race under a flood on many CPUs).
	 */
	mmb_reject_rate = 1000;
	mmb_tokens_set_stamp(&l.b, (u32)jiffies + 3);
	for (i = 0, n = 0; i < 100; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 0);
	/*
	 * reject_burst lowered while the credit is full: the lower burst
	 * holds at once (e2e reject.sh's flood got 50 + its rate's share).
	 */
	mmb_reject_rate = 1;
	mmb_reject_burst = 50;
	mmb_reject_limit_init(&l);
	mmb_reject_burst = 20;
	for (i = 0, n = 0; i < 100; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 20);
	mmb_reject_rate = 0;	/* no limit */
	for (i = 0, n = 0; i < 100; i++)
		n += mmb_reject_allow(&l);
	KUNIT_EXPECT_EQ(test, n, 100);
	mmb_reject_rate = rate;
	mmb_reject_burst = burst;
}

/* A rule of @nt targets, the first "reject with @how"; its error, or the rule. */
static struct mmb_rule *rj_rule(struct kunit *test, const struct mmb_match_spec *m,
				unsigned int nm, u8 how, bool stateful, bool and_mod,
				struct mmb_rule_err *err)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(s->m, m, nm * sizeof(*m));
	s->nmatches = nm;
	s->stateful = stateful;
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_REJECT;
	s->t[0].reject = how;
	s->t[0].rate = MMB_RATE_ALWAYS;
	if (and_mod) {
		s->t[1] = (struct mmb_target_spec){
			.type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_TTL, .plen = 8, .vlen = 1,
			.value = { 9 }, .rate = MMB_RATE_ALWAYS,
		};
		s->ntargets = 2;
	}
	err->msg = NULL;
	return mmb_rule_create(s, NULL, err);
}

/* What a rule may not be: rewriting, stateful, a RST for what is not TCP. */
static void rj_refused(struct kunit *test)
{
	struct mmb_match_spec udp = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_match_spec tcp = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec proto = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	struct mmb_rule_err err;
	struct mmb_rule *rule;

	rule = rj_rule(test, &udp, 1, MMB_REJECT_TCP_RESET, false, false, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rule), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg ?: "", "tcp-reset"));
	rule = rj_rule(test, &tcp, 1, MMB_REJECT_DEFAULT, false, true, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rule), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg ?: "", "only target"));
	rule = rj_rule(test, &tcp, 1, MMB_REJECT_DEFAULT, true, false, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rule), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(err.msg ?: "", "stateless"));
	rule = rj_rule(test, &tcp, 1, MMB_REJECT_MAX + 1, false, false, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rule), -EINVAL);
	rule = rj_rule(test, &proto, 1, MMB_REJECT_TCP_RESET, false, false, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_TRUE(test, rule->drop);
	KUNIT_EXPECT_EQ(test, rule->reject, MMB_REJECT_TCP_RESET + 1);
	mmb_rule_free(rule);
}

/*
 * Classify @skb by @r's rules (the ruleset taken before the RCU section:
 * mmbt_rs() takes a mutex).
 */
static void rj_classify(struct mmb_rules *r, struct mmb_pkt *pkt, struct sk_buff *skb,
			struct mmb_verdict *v)
{
	struct mmb_ruleset *rs = mmbt_rs(r);

	rcu_read_lock();
	mmb_classify(rs, pkt, skb, v);
	rcu_read_unlock();
}

/*
 * The verdict: a reject drops and names its rule; an accept of its
 * priority, or a verdict of a higher one, takes the answer away; of two
 * rejecting rules the lower handle answers.
 */
static void rj_verdict(struct kunit *test)
{
	struct mmb_match_spec tcp = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 22);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc d = { .proto = IPPROTO_TCP, .tcp_flags = TCPHDR_SYN,
				   .sport = 1000, .dport = 22 };
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *rj, *rj2, *acc;
	struct mmb_rule_err err;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	struct sk_buff *skb = rj_pkt(test, &d, &pkt);

	all.vlen = 0;
	rj = rj_rule(test, &tcp, 1, MMB_REJECT_HOST_UNREACH, false, false, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rj));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rj, NULL), 0);
	rj_classify(r, &pkt, skb, &v);
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	KUNIT_EXPECT_PTR_EQ(test, v.reject, (const struct mmb_rule *)rj);
	/* A second rejecting rule, of a higher handle: the first answers. */
	rj2 = rj_rule(test, &all, 1, MMB_REJECT_DEFAULT, false, false, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rj2));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rj2, NULL), 0);
	rj_classify(r, &pkt, skb, &v);
	KUNIT_EXPECT_PTR_EQ(test, v.reject, (const struct mmb_rule *)rj);
	/* An accept of the same priority: no drop, no answer. */
	acc = mmbt_rule_add(test, r, false, MMB_TARGET_ACCEPT, &tcp, 1);
	rj_classify(r, &pkt, skb, &v);
	KUNIT_EXPECT_TRUE(test, v.accept);
	KUNIT_EXPECT_EQ(test, mmbt_remove(r, acc), 0);
	/* A plain drop of a higher priority: dropped without an answer. */
	rj2 = mmbt_rule_make(test, false, &tcp, 1,
			     &(struct mmbt_target){ .type = MMB_TARGET_DROP }, 1);
	rj2->prio = 5;
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rj2, NULL), 0);
	rj_classify(r, &pkt, skb, &v);
	KUNIT_EXPECT_TRUE(test, v.drop && !v.accept);
	KUNIT_EXPECT_NULL(test, v.reject);
	kfree_skb(skb);
	mmbt_rules_done(test, r);
}

/*
 * Over netlink: "udp-dport 53 reject with @how", its answer attribute's
 * offset in *@at; and the same on a drop (@drop). The request's error.
 */
static int rj_nl_add(struct nlt *t, u8 how, bool drop, unsigned int *at)
{
	unsigned int rule, list, nest;
	u8 port[2] = { 0, 53 };

	nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
	rule = nlt_nest(t, MMB_A_RULE);
	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	nest = nlt_nest(t, 1);
	nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_UDP_DPORT);
	nlt_put(t, MMB_MATCH_A_VALUE, port, 2);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	nlt_u8(t, MMB_TARGET_A_TYPE, drop ? MMB_TARGET_DROP : MMB_TARGET_REJECT);
	*at = nlt_u8(t, MMB_TARGET_A_REJECT, how);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nlt_nest_end(t, rule);
	return nlt_send(t);
}

/* The extended ACK points at the answer's attribute; a good one is taken. */
static void rj_netlink(struct kunit *test)
{
	unsigned int at;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	KUNIT_EXPECT_EQ(test, rj_nl_add(&t, MMB_REJECT_TCP_RESET, false, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "tcp-reset"));
	KUNIT_EXPECT_EQ(test, rj_nl_add(&t, MMB_REJECT_ADMIN_PROHIBITED, true, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	/* The policy: an answer past the last is refused there. */
	KUNIT_EXPECT_EQ(test, rj_nl_add(&t, MMB_REJECT_MAX + 1, false, &at), -ERANGE);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_EQ(test, rj_nl_add(&t, MMB_REJECT_ADMIN_PROHIBITED, false, &at), 0);
	KUNIT_EXPECT_NE(test, t.handle, 0);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case mmb_reject_cases[] = {
	KUNIT_CASE(rj_rst_syn4),
	KUNIT_CASE(rj_rst_syn6),
	KUNIT_CASE(rj_rst_ack),
	KUNIT_CASE(rj_rst_fin),
	KUNIT_CASE(rj_answers),
	KUNIT_CASE(rj_no_answer),
	KUNIT_CASE(rj_csum),
	KUNIT_CASE(rj_limit),
	KUNIT_CASE(rj_refused),
	KUNIT_CASE(rj_verdict),
	KUNIT_CASE(rj_netlink),
	{}
};

static struct kunit_suite mmb_reject_suite = {
	.name = "mmb-reject",
	.test_cases = mmb_reject_cases,
};

kunit_test_suite(mmb_reject_suite);
