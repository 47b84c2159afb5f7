// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: log (kmod/log.c). The line, byte for byte as the netfilter
 * logger writes it, of IPv4 and IPv6 TCP, UDP, ICMP and ICMPv6 packets,
 * with options, fragments, an ICMP error's quote, a mark, and truncated
 * packets; the rule's token bucket under a flood, each packet over it
 * counted; and the netlink words refused with the attribute named.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <net/ip.h>

#include "../kmod/mmb.h"
#include "nlt.h"
#include "util.h"

static const u8 lg_a4[4] = { 192, 0, 2, 1 }, lg_b4[4] = { 198, 51, 100, 7 };
static const u8 lg_a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 lg_b6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 5, [15] = 2 };
static const u8 lg_mac[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0 };

/* A packet from a to b, its network header at skb->data; freed by the test's end. */
static struct sk_buff *lg_pkt(struct kunit *test, struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb;

	memcpy(d->saddr, d->v6 ? lg_a6 : lg_a4, d->v6 ? 16 : 4);
	memcpy(d->daddr, d->v6 ? lg_b6 : lg_b4, d->v6 ? 16 : 4);
	if (!d->ttl)
		d->ttl = 64;
	skb = mmbt_pkt_build(init_net.loopback_dev, d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	return skb;
}

/* The line of @skb arriving on eth0 (@in) or leaving by eth1, prefix "P: ". */
static const char *lg_line(struct kunit *test, struct sk_buff *skb, bool in,
			   struct mmb_log_rec *rec)
{
	char *buf = kunit_kzalloc(test, MMB_LOG_LINE, GFP_KERNEL);
	struct mmb_log_rec r;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = mmb_log_format(buf, MMB_LOG_LINE, skb, "P: ", in ? "eth0" : NULL,
			     in ? NULL : "eth1", in ? lg_mac : NULL, in ? sizeof(lg_mac) : 0,
			     rec ?: &r);
	KUNIT_EXPECT_EQ(test, len, strlen(buf));
	kfree_skb(skb);
	return buf;
}

static void lg_tcp4(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .tos = 0xb8, .frag_off = IP_DF, .tcp_flags = 0x12,
		.sport = 40000, .dport = 22, .tcp_opt_len = 4,
	};
	struct mmb_log_rec rec;

	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), true, &rec),
			   "P: IN=eth0 OUT= MAC=02:00:00:00:00:01:02:00:00:00:00:02:08:00 SRC=192.0.2.1 DST=198.51.100.7 LEN=44 TOS=0x18 PREC=0xA0 TTL=64 ID=4660 DF PROTO=TCP SPT=40000 DPT=22 WINDOW=512 RES=0x00 ACK SYN URGP=0 ");
	KUNIT_EXPECT_EQ(test, rec.family, 4);
	KUNIT_EXPECT_EQ(test, rec.proto, IPPROTO_TCP);
	KUNIT_EXPECT_TRUE(test, rec.ports);
	KUNIT_EXPECT_EQ(test, rec.sport, 40000);
	KUNIT_EXPECT_EQ(test, rec.dport, 22);
	KUNIT_EXPECT_EQ(test, rec.len, 44);
	KUNIT_EXPECT_EQ(test, memcmp(&rec.saddr.a4, lg_a4, 4), 0);
	/* Every flag, in the logger's order, and the reserved bits. */
	d.tcp_flags = 0xff;
	d.tcp_opt_len = 0;
	d.tos = 0;
	d.frag_off = 0;
	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=40 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=TCP SPT=40000 DPT=22 WINDOW=512 RES=0x00 CWR ECE URG ACK PSH RST SYN FIN URGP=0 ");
}

static void lg_udp6(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.v6 = true, .proto = IPPROTO_UDP, .tos = 0x2e, .sport = 5353, .dport = 53,
		.payload_len = 12,
	};
	struct mmb_log_rec rec;
	struct sk_buff *skb;

	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), true, &rec),
			   "P: IN=eth0 OUT= MAC=02:00:00:00:00:01:02:00:00:00:00:02:08:00 SRC=2001:0db8:0000:0000:0000:0000:0000:0001 DST=2001:0db8:0005:0000:0000:0000:0000:0002 LEN=60 TC=46 HOPLIMIT=64 FLOWLBL=7 PROTO=UDP SPT=5353 DPT=53 LEN=20 ");
	KUNIT_EXPECT_EQ(test, rec.family, 6);
	KUNIT_EXPECT_EQ(test, rec.len, 60);
	KUNIT_EXPECT_EQ(test, memcmp(&rec.daddr.a6, lg_b6, 16), 0);
	/* Behind a destination options header: the ports are read past it. */
	d.l3_opt_len = 16;
	d.tos = 0;
	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, NULL),
			   "P: IN= OUT=eth1 SRC=2001:0db8:0000:0000:0000:0000:0000:0001 DST=2001:0db8:0005:0000:0000:0000:0000:0002 LEN=76 TC=0 HOPLIMIT=64 FLOWLBL=7 PROTO=UDP SPT=5353 DPT=53 LEN=20 ");
	/* ESP: nothing past it is read, and the record says ESP, not 0. */
	d.l3_opt_len = 0;
	skb = lg_pkt(test, &d);
	skb->data[6] = NEXTHDR_ESP;
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, false, &rec),
			   "P: IN= OUT=eth1 SRC=2001:0db8:0000:0000:0000:0000:0000:0001 DST=2001:0db8:0005:0000:0000:0000:0000:0002 LEN=60 TC=0 HOPLIMIT=64 FLOWLBL=7 ");
	KUNIT_EXPECT_EQ(test, rec.proto, NEXTHDR_ESP);
	KUNIT_EXPECT_FALSE(test, rec.ports);
	/* A destination options header cut short: the record names it. */
	d.l3_opt_len = 16;
	skb = lg_pkt(test, &d);
	skb_trim(skb, sizeof(struct ipv6hdr) + 1);
	lg_line(test, skb, false, &rec);
	KUNIT_EXPECT_EQ(test, rec.proto, NEXTHDR_DEST);
}

/* IPv4 options are not printed (nft's default), but stepped over. */
static void lg_udp4_opts(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .l3_opt_len = 8, .sport = 1, .dport = 65535,
	};
	struct sk_buff *skb = lg_pkt(test, &d);

	skb->mark = 0x2a;
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=36 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=UDP SPT=1 DPT=65535 LEN=8 MARK=0x2a ");
}

static void lg_icmp(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_ICMP, .sport = ICMP_ECHO << 8,
	};
	struct mmb_log_rec rec;

	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, &rec),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=28 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=ICMP TYPE=8 CODE=0 ID=16962 SEQ=0 ");
	KUNIT_EXPECT_TRUE(test, rec.icmp);
	KUNIT_EXPECT_FALSE(test, rec.ports);
	KUNIT_EXPECT_EQ(test, rec.type, ICMP_ECHO);
	d = (struct mmbt_pkt_desc){ .v6 = true, .proto = IPPROTO_ICMPV6,
				    .sport = ICMPV6_ECHO_REQUEST << 8 };
	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, &rec),
			   "P: IN= OUT=eth1 SRC=2001:0db8:0000:0000:0000:0000:0000:0001 DST=2001:0db8:0005:0000:0000:0000:0000:0002 LEN=48 TC=0 HOPLIMIT=64 FLOWLBL=7 PROTO=ICMPv6 TYPE=128 CODE=0 ID=16962 SEQ=0 ");
	KUNIT_EXPECT_EQ(test, rec.type, ICMPV6_ECHO_REQUEST);
	/* An echo cut short: what the logger says of it. */
	d = (struct mmbt_pkt_desc){ .proto = IPPROTO_ICMP, .sport = ICMP_TIMESTAMP << 8 };
	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=28 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=ICMP TYPE=13 CODE=0 INCOMPLETE [8 bytes] ");
}

/* An ICMP error quotes its packet: logged in brackets, once. */
static void lg_icmp_error(struct kunit *test)
{
	struct mmbt_pkt_desc in = { .proto = IPPROTO_UDP, .sport = 4000, .dport = 53 };
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_ICMP, .sport = ICMP_DEST_UNREACH << 8 | ICMP_FRAG_NEEDED,
		.payload_len = 28,
	};
	struct sk_buff *inner = lg_pkt(test, &in), *skb = lg_pkt(test, &d);

	/* The quote after the 8 bytes of ICMP header, and the next hop's MTU. */
	memcpy(skb->data + 28, inner->data, 28);
	put_unaligned_be16(1400, skb->data + 26);
	kfree_skb(inner);
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=56 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=ICMP TYPE=3 CODE=4 [SRC=192.0.2.1 DST=198.51.100.7 LEN=28 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=UDP SPT=4000 DPT=53 LEN=8 ] MTU=1400 ");
}

static void lg_fragments(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .frag_off = IP_MF | 185, .sport = 1, .dport = 2,
	};

	/* A later fragment: its protocol, no ports (they are not there). */
	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=28 TOS=0x00 PREC=0x00 TTL=64 ID=4660 MF FRAG:185 PROTO=UDP ");
	/* A first fragment: MF, and its ports. */
	d.frag_off = IP_MF;
	KUNIT_EXPECT_STREQ(test, lg_line(test, lg_pkt(test, &d), false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=28 TOS=0x00 PREC=0x00 TTL=64 ID=4660 MF PROTO=UDP SPT=1 DPT=2 LEN=8 ");
}

/* An IPv6 fragment header: FRAG:offset, INCOMPLETE if more, its ID. */
static void lg_fragment6(struct kunit *test)
{
	struct mmbt_pkt_desc d = {
		.v6 = true, .proto = IPPROTO_TCP, .l3_opt_len = 8, .sport = 1, .dport = 2,
	};
	struct sk_buff *skb = lg_pkt(test, &d);
	u8 *fh = skb->data + sizeof(struct ipv6hdr);

	/* The destination options header made a fragment header: offset 64, more. */
	skb->data[6] = NEXTHDR_FRAGMENT;
	fh[0] = IPPROTO_TCP;
	fh[1] = 0;
	put_unaligned_be16(64 | 1, fh + 2);
	put_unaligned_be32(0xdeadbeef, fh + 4);
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, false, NULL),
			   "P: IN= OUT=eth1 SRC=2001:0db8:0000:0000:0000:0000:0000:0001 DST=2001:0db8:0005:0000:0000:0000:0000:0002 LEN=68 TC=0 HOPLIMIT=64 FLOWLBL=7 FRAG:64 INCOMPLETE ID:deadbeef PROTO=TCP ");
}

/* Cut short: the logger's words for what is missing, and nothing after. */
static void lg_truncated(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_TCP, .sport = 1, .dport = 2 };
	struct sk_buff *skb = lg_pkt(test, &d);

	skb_trim(skb, 30);
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, false, NULL),
			   "P: IN= OUT=eth1 SRC=192.0.2.1 DST=198.51.100.7 LEN=40 TOS=0x00 PREC=0x00 TTL=64 ID=4660 PROTO=TCP INCOMPLETE [10 bytes] ");
	skb = lg_pkt(test, &d);
	skb_trim(skb, 12);
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, true, NULL),
			   "P: IN=eth0 OUT= MAC=02:00:00:00:00:01:02:00:00:00:00:02:08:00 TRUNCATED");
	d = (struct mmbt_pkt_desc){ .v6 = true, .proto = IPPROTO_UDP };
	skb = lg_pkt(test, &d);
	skb_trim(skb, 44);
	KUNIT_EXPECT_STREQ(test, lg_line(test, skb, false, NULL),
			   "P: IN= OUT=eth1 SRC=2001:0db8:0000:0000:0000:0000:0000:0001 DST=2001:0db8:0005:0000:0000:0000:0000:0002 LEN=48 TC=0 HOPLIMIT=64 FLOWLBL=7 PROTO=UDP INCOMPLETE [4 bytes] ");
}

/* A line longer than its buffer is cut, NUL-terminated, never overrun. */
static void lg_short_buffer(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .sport = 1, .dport = 2 };
	struct sk_buff *skb = lg_pkt(test, &d);
	struct mmb_log_rec rec;
	char buf[24];

	memset(buf, 'x', sizeof(buf));
	KUNIT_EXPECT_EQ(test, mmb_log_format(buf, 20, skb, "P: ", "eth0", NULL, NULL, 0, &rec),
			19);
	KUNIT_EXPECT_STREQ(test, buf, "P: IN=eth0 OUT= MAC");
	KUNIT_EXPECT_EQ(test, buf[20], 'x');
	kfree_skb(skb);
}

/*
 * A flood on one rule: a burst at once, then the rate's share; every
 * packet over it counted suppressed, exactly, none logged.
 */
static void lg_limit(struct kunit *test)
{
	unsigned int rate = mmb_log_rate, burst = mmb_log_burst, i, n = 0;
	struct mmb_log_net ln;
	struct mmb_log *l;

	KUNIT_ASSERT_EQ(test, mmb_log_net_init(&ln), 0);
	mmb_log_rate = 1;	/* a token a second: none comes back during the test */
	mmb_log_burst = 10;
	l = mmb_log_new("P: ", 3, 4);
	KUNIT_ASSERT_NOT_NULL(test, l);
	for (i = 0; i < 10000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 10);
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(&ln), 10000 - n);
	/* Two seconds later: two more, still counted exactly. */
	mmb_tokens_set_stamp(&l->bucket, mmb_tokens_stamp(&l->bucket) - 2 * HZ);
	for (i = 0, n = 0; i < 10000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(&ln), 20000 - 12);
	/* A minute idle: the whole burst again, no more. */
	mmb_tokens_set_stamp(&l->bucket, mmb_tokens_stamp(&l->bucket) - 60 * HZ);
	for (i = 0, n = 0; i < 10000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 10);
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(&ln), 30000 - 22);
	/* A burst lowered while the bucket holds more: no more than it at once. */
	mmb_tokens_set_stamp(&l->bucket, mmb_tokens_stamp(&l->bucket) - 60 * HZ);
	KUNIT_EXPECT_TRUE(test, mmb_log_admit(l, &ln));	/* full again: 9 left */
	mmb_log_burst = 2;
	for (i = 0, n = 0; i < 100; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(&ln), 30000 - 22 + 98);
	mmb_log_burst = 10;
	/* No limit: all of them, none suppressed. */
	mmb_log_rate = 0;
	for (i = 0, n = 0; i < 1000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 1000);
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(&ln), 30000 - 22 + 98);
	kfree(l);
	/* A rule's own: 2 a minute, burst 3, whatever the module's. */
	mmb_log_rate = 1000;
	mmb_log_burst = 1000;
	l = mmb_log_new_rate("P: ", 3, 4, 2, 60, 3);
	KUNIT_ASSERT_NOT_NULL(test, l);
	for (i = 0, n = 0; i < 10000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 3);
	/* half a minute: one */
	mmb_tokens_set_stamp(&l->bucket, mmb_tokens_stamp(&l->bucket) - 30 * HZ);
	for (i = 0, n = 0; i < 10000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 1);
	/* an hour: the burst, no more */
	mmb_tokens_set_stamp(&l->bucket, mmb_tokens_stamp(&l->bucket) - 3600 * HZ);
	for (i = 0, n = 0; i < 10000; i++)
		n += mmb_log_admit(l, &ln);
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(&ln), 60000 - 29 + 98);
	mmb_log_rate = rate;
	mmb_log_burst = burst;
	kfree(l);
	mmb_log_net_exit(&ln);
}

/*
 * Through the classifier: a log rule's packets take its tokens and, over
 * them, count as its namespace's suppressed; a rule without log (a lone
 * simple one, its entry's hot word) touches neither.
 */
static void lg_datapath(struct kunit *test)
{
	unsigned int rate = mmb_log_rate, burst = mmb_log_burst, i;
	struct mmb_match_spec m53 = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_match_spec m54 = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 54);
	struct mmbt_target drop = { .type = MMB_TARGET_DROP };
	struct mmb_log_net *ln = &mmb_pernet(&init_net)->log;
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *rule;
	u64 s0;

	mmb_log_rate = 1;
	mmb_log_burst = 3;
	/* As mmb_rule_create() does for a spec with log words: before it is published. */
	rule = mmbt_rule_make(test, false, &m53, 1, &drop, 1);
	rule->log = mmb_log_new("mmb-log test: ", 14, 7);
	KUNIT_ASSERT_NOT_NULL(test, rule->log);
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	rule = mmbt_rule_make(test, false, &m54, 1, &drop, 1);
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
	s0 = mmb_log_suppressed(ln);
	for (i = 0; i < 20; i++) {
		struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .sport = 1, .dport = 53 };

		KUNIT_EXPECT_EQ(test, mmbt_judge(r, NULL, lg_pkt(test, &d)), 0);
	}
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(ln) - s0, 20 - 3);
	for (i = 0; i < 20; i++) {
		struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .sport = 1, .dport = 54 };

		KUNIT_EXPECT_EQ(test, mmbt_judge(r, NULL, lg_pkt(test, &d)), 0);
	}
	KUNIT_EXPECT_EQ(test, mmb_log_suppressed(ln) - s0, 20 - 3);
	mmb_log_rate = rate;
	mmb_log_burst = burst;
	mmbt_rules_done(test, r);
}

/* The same words are the same log (a reload's heirs); another prefix or level is not. */
static void lg_same(struct kunit *test)
{
	struct mmb_log *a = mmb_log_new("ab", 2, 4), *b = mmb_log_new("ab", 2, 4);
	struct mmb_log *c = mmb_log_new("ac", 2, 4), *d = mmb_log_new("ab", 2, 6);

	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	KUNIT_EXPECT_TRUE(test, mmb_log_same(a, b));
	KUNIT_EXPECT_FALSE(test, mmb_log_same(a, c));
	KUNIT_EXPECT_FALSE(test, mmb_log_same(a, d));
	KUNIT_EXPECT_FALSE(test, mmb_log_same(a, NULL));
	KUNIT_EXPECT_TRUE(test, mmb_log_same(NULL, NULL));
	kfree(a);
	kfree(b);
	kfree(c);
	kfree(d);
}

/*
 * Over netlink: "udp-dport 53 count" with MMB_RULE_A_LOG holding @prefix
 * (NULL: none; @plen bytes and a NUL), @level (> 255: none) and, if
 * @extra, an attribute only the kernel sends. The offset of the attribute
 * at fault is in *@at (the prefix's, the level's or the extra one's).
 */
static int lg_nl_add(struct nlt *t, const char *prefix, unsigned int plen, unsigned int level,
		     u16 extra, unsigned int *at)
{
	unsigned int rule, list, nest;
	u8 port[2] = { 0, 53 };
	char p[80] = {};

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
	nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_COUNT);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	nest = nlt_nest(t, MMB_RULE_A_LOG);
	if (prefix) {
		memcpy(p, prefix, plen);
		*at = nlt_put(t, MMB_LOG_A_PREFIX, p, plen + 1);
	}
	if (level <= 255)
		*at = nlt_u8(t, MMB_LOG_A_LEVEL, level);
	if (extra)
		*at = nlt_u32(t, extra, 1);
	nlt_nest_end(t, nest);
	nlt_nest_end(t, rule);
	return nlt_send(t);
}

/* The extended ACK names the attribute at fault; good words are taken. */
static void lg_netlink(struct kunit *test)
{
	static const char long_prefix[] =
		"0123456789012345678901234567890123456789012345678901234567890123X";
	unsigned int at;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_ASSERT_EQ(test, nlt_flush(&t), 0);
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, long_prefix, 65, 256, 0, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "1 to 64 bytes"));
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "a\nb", 3, 256, 0, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "control character"));
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "", 0, 256, 0, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	/* The policy: a level past debug, an attribute of the records. */
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "ok ", 3, 8, 0, &at), -ERANGE);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "ok ", 3, 256, MMB_LOG_A_HANDLE, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	/* A period without a rate is refused; a burst alone is taken. */
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "ok ", 3, 256, MMB_LOG_A_PER, &at), -EINVAL);
	KUNIT_EXPECT_EQ(test, t.offs, at);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t.msg, "needs a rate"));
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "ok ", 3, 256, MMB_LOG_A_BURST, &at), 0);
	/* UTF-8 is no control character; 64 bytes, level 7; no words at all. */
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, "\xe2\x86\x92 ", 4, 256, 0, &at), 0);
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, long_prefix, 64, 7, 0, &at), 0);
	KUNIT_EXPECT_NE(test, t.handle, 0);
	KUNIT_EXPECT_EQ(test, lg_nl_add(&t, NULL, 0, 256, 0, &at), 0);
	KUNIT_EXPECT_EQ(test, nlt_flush(&t), 0);
	nlt_close(&t);
}

static struct kunit_case mmb_log_cases[] = {
	KUNIT_CASE(lg_tcp4),
	KUNIT_CASE(lg_udp6),
	KUNIT_CASE(lg_udp4_opts),
	KUNIT_CASE(lg_icmp),
	KUNIT_CASE(lg_icmp_error),
	KUNIT_CASE(lg_fragments),
	KUNIT_CASE(lg_fragment6),
	KUNIT_CASE(lg_truncated),
	KUNIT_CASE(lg_short_buffer),
	KUNIT_CASE(lg_limit),
	KUNIT_CASE(lg_datapath),
	KUNIT_CASE(lg_same),
	KUNIT_CASE(lg_netlink),
	{}
};

static struct kunit_suite mmb_log_suite = {
	.name = "mmb-log",
	.test_cases = mmb_log_cases,
};

kunit_test_suite(mmb_log_suite);
