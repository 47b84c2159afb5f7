// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the field table, the packet parser, match semantics, and the
 * per-mask classifier checked against a naive linear evaluation of every
 * rule on thousands of random rules and packets.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/prandom.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "../kmod/tables.h"
#include "../kmod/tcpopt.h"
#include "../kmod/test.h"
#include "util.h"

static struct mmb_match_spec mt(u16 field, u8 op, u32 v)
{
	return mmbt_match(field, op, v);
}

static const u8 v4a[4][4] = { { 10, 0, 0, 1 }, { 10, 0, 0, 2 }, { 10, 0, 1, 1 }, { 192, 0, 2, 9 } };
static const u8 v6a[4][16] = {
	{ 0xfd, 0, [15] = 1 }, { 0xfd, 0, [15] = 2 }, { 0xfd, 0, 0, 1, [15] = 1 },
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 9 },
};

static struct mmbt_pkt_desc tcp4(void)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .tos = 0xb9, .ttl = 64, .sport = 40000,
		.dport = 80, .seq = 0x01020304, .tcp_flags = 0x12, .payload_len = 6,
	};

	memcpy(d.saddr, v4a[0], 4);
	memcpy(d.daddr, v4a[3], 4);
	return d;
}

static void field_table_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i <= MMB_FIELD_MAX; i++) {
		const struct mmb_field_info *f = mmb_field(i);

		KUNIT_ASSERT_NOT_NULL(test, f->name);
		if (f->hdr == MMB_HDR_L3 || f->hdr == MMB_HDR_L4 || f->hdr == MMB_HDR_META) {
			if (f->len == 16)
				KUNIT_EXPECT_EQ_MSG(test, f->bits, 128, "%s", f->name);
			else
				KUNIT_EXPECT_EQ_MSG(test, hweight32(f->mask), f->bits,
						    "%s", f->name);
			KUNIT_EXPECT_LE_MSG(test, f->img + f->len, sizeof(struct mmb_key),
					    "%s", f->name);
		}
		if (f->hdr == MMB_HDR_PAYLOAD)
			KUNIT_EXPECT_EQ_MSG(test, f->bits, 0, "%s", f->name);
	}
	KUNIT_EXPECT_NULL(test, mmb_field(MMB_FIELD_MAX + 1));
}

static void parse_ipv4_options_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = tcp4();
	struct sk_buff *skb;
	struct mmb_pkt pkt;

	d.l3_opt_len = 8;
	d.tcp_opt_len = 12;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FAMILY], 4);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_L4PROTO], IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4);
	KUNIT_EXPECT_EQ(test, pkt.l4off, 28);
	KUNIT_EXPECT_EQ(test, pkt.l7off, 28 + 32);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO + 2, 2), 80);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_HI, 4), 0x01020304);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_IP4_SADDR, 4), 0x0a000001);
	/* mmb is not attached to loopback: the id of no name. */
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_IFINDEX, 4), 0);
	kfree_skb(skb);
}

static void parse_ipv6_exthdr_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .v6 = true, .proto = IPPROTO_UDP, .ttl = 9,
				   .sport = 53, .dport = 5353, .l3_opt_len = 16,
				   .payload_len = 4 };
	struct mmb_match_spec m;
	struct sk_buff *skb;
	struct mmb_pkt pkt;

	memcpy(d.saddr, v6a[0], 16);
	memcpy(d.daddr, v6a[3], 16);
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FAMILY], 6);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_L4PROTO], IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4);
	KUNIT_EXPECT_EQ(test, pkt.l4off, 40 + 16);
	KUNIT_EXPECT_EQ(test, pkt.l7off, 40 + 16 + 8);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO + 2, 2), 5353);
	/* the first next-header field is the option header's */
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_IP6 + 6], NEXTHDR_DEST);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_IP6 + 8], 0xfd);
	/* l4-proto (nft's meta l4proto) is the protocol past them; ip6-next is not */
	m = mt(MMB_FIELD_L4_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));
	m.op = MMB_OP_NE;
	KUNIT_EXPECT_FALSE(test, mmb_match_eval(&m, &pkt, skb));
	m = mt(MMB_FIELD_IP6_NEXT, MMB_OP_EQ, IPPROTO_UDP);
	KUNIT_EXPECT_FALSE(test, mmb_match_eval(&m, &pkt, skb));
	m = mt(MMB_FIELD_IP6_NEXT, MMB_OP_EQ, NEXTHDR_DEST);
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));
	kfree_skb(skb);
}

static void parse_fragments_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = tcp4();
	struct sk_buff *skb;
	struct mmb_pkt pkt;

	d.frag_off = IP_MF;			/* first fragment: L4 is there */
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_L4 | MMB_KF_FRAG);
	kfree_skb(skb);

	d.frag_off = 100;			/* later fragment: no L4 */
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_FLAGS], MMB_KF_FRAG | MMB_KF_LATER);
	KUNIT_EXPECT_EQ(test, pkt.key.b[MMB_IMG_L4PROTO], IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, mmb_img_read(&pkt.key, MMB_IMG_L4_LO, 4), 0);
	kfree_skb(skb);
}

/* Cut a packet at every byte: never a read past the end, L4 only if whole. */
static void parse_truncated_test(struct kunit *test)
{
	struct mmbt_pkt_desc d4 = tcp4();
	struct mmbt_pkt_desc d6 = { .v6 = true, .proto = IPPROTO_TCP, .ttl = 1,
				    .l3_opt_len = 8, .payload_len = 3 };
	const struct mmbt_pkt_desc *ds[] = { &d4, &d6 };
	unsigned int i, k, full;
	struct mmb_pkt pkt;

	d4.l3_opt_len = 4;
	for (i = 0; i < ARRAY_SIZE(ds); i++) {
		struct sk_buff *orig = mmbt_pkt_build(init_net.loopback_dev, ds[i]);
		unsigned int l4off = ds[i]->v6 ? 48 : 24;

		KUNIT_ASSERT_NOT_NULL(test, orig);
		full = orig->len;
		for (k = 0; k <= full; k++) {
			struct sk_buff *skb = skb_copy(orig, GFP_KERNEL);
			int err;

			KUNIT_ASSERT_NOT_NULL(test, skb);
			skb_trim(skb, k);
			err = mmb_parse(skb, &pkt);
			if (k < (ds[i]->v6 ? 40 : l4off)) {
				KUNIT_EXPECT_NE_MSG(test, err == 0 &&
						    (pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_L4),
						    true, "cut at %u", k);
			} else {
				KUNIT_EXPECT_EQ_MSG(test, err, 0, "cut at %u", k);
				KUNIT_EXPECT_EQ_MSG(test, !!(pkt.key.b[MMB_IMG_FLAGS] & MMB_KF_L4),
						    k >= l4off + 20, "cut at %u", k);
			}
			kfree_skb(skb);
		}
		kfree_skb(orig);
	}
}

/* Operators, negation, prefixes and payloads on a packet of known values. */
static void match_eval_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = tcp4();
	struct mmb_match_spec m;
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	const struct {
		u16 field;
		u8 op;
		u32 v;
		u8 plen;	/* 0: the field's bits */
		bool want;
	} cases[] = {
		{ MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80, 0, true },
		{ MMB_FIELD_TCP_DPORT, MMB_OP_NE, 80, 0, false },
		{ MMB_FIELD_TCP_DPORT, MMB_OP_LT, 81, 0, true },
		{ MMB_FIELD_TCP_DPORT, MMB_OP_LT, 80, 0, false },
		{ MMB_FIELD_TCP_DPORT, MMB_OP_LE, 80, 0, true },
		{ MMB_FIELD_TCP_DPORT, MMB_OP_GT, 79, 0, true },
		{ MMB_FIELD_TCP_DPORT, MMB_OP_GE, 81, 0, false },
		{ MMB_FIELD_UDP_DPORT, MMB_OP_NE, 80, 0, false },	/* not UDP */
		{ MMB_FIELD_IP6_HOP_LIMIT, MMB_OP_NE, 1, 0, false },	/* not IPv6 */
		{ MMB_FIELD_IP_TTL, MMB_OP_EQ, 64, 0, true },
		{ MMB_FIELD_IP_DSCP, MMB_OP_EQ, 0xb9 >> 2, 0, true },
		{ MMB_FIELD_IP_ECN, MMB_OP_EQ, 1, 0, true },
		{ MMB_FIELD_IP_ECN, MMB_OP_GT, 0, 0, true },
		{ MMB_FIELD_TCP_SYN, MMB_OP_EQ, 1, 0, true },
		{ MMB_FIELD_TCP_FIN, MMB_OP_EQ, 0, 0, true },
		{ MMB_FIELD_TCP_FLAGS, MMB_OP_EQ, 0x12, 0, true },
		{ MMB_FIELD_TCP_OFFSET, MMB_OP_EQ, 5, 0, true },
		{ MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000, 8, true },
		{ MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000100, 24, false },
		{ MMB_FIELD_IP_SADDR, MMB_OP_NE, 0x0a000100, 24, true },
		{ MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0xffffffff, 0, false },
		{ MMB_FIELD_IP_SADDR, MMB_OP_LT, 0x0a000002, 0, true },
		{ MMB_FIELD_IP_PROTO, MMB_OP_NE, IPPROTO_TCP, 0, false },
		{ MMB_FIELD_IP_PROTO, MMB_OP_GE, IPPROTO_TCP, 0, true },
		{ MMB_FIELD_L4_PROTO, MMB_OP_EQ, IPPROTO_TCP, 0, true },
		{ MMB_FIELD_L4_PROTO, MMB_OP_NE, IPPROTO_TCP, 0, false },
		{ MMB_FIELD_L4_PROTO, MMB_OP_EQ, IPPROTO_UDP, 0, false },
		{ MMB_FIELD_NET_PROTO, MMB_OP_EQ, 0x0800, 0, true },
		{ MMB_FIELD_NET_PROTO, MMB_OP_NE, 0x0800, 0, false },
		{ MMB_FIELD_IP_DF, MMB_OP_EQ, 0, 0, true },
		{ MMB_FIELD_ALL, MMB_OP_EQ, 0, 0, true },
	};
	unsigned int i;

	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		m = mt(cases[i].field, cases[i].op, cases[i].v);
		if (cases[i].plen)
			m.plen = cases[i].plen;
		KUNIT_EXPECT_EQ_MSG(test, mmb_match_eval(&m, &pkt, skb), cases[i].want,
				    "case %u: %s %u", i, mmb_field(cases[i].field)->name,
				    cases[i].op);
	}
	/* payload: bytes seed + 7i = 0, 7, 14, 21, ... after the TCP header */
	m = mt(MMB_FIELD_TCP_PAYLOAD, MMB_OP_EQ, 0);
	m.vlen = 3;
	m.value[0] = 0;
	m.value[1] = 7;
	m.value[2] = 14;
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));
	m.value[2] = 15;
	KUNIT_EXPECT_FALSE(test, mmb_match_eval(&m, &pkt, skb));
	m.op = MMB_OP_NE;
	KUNIT_EXPECT_TRUE(test, mmb_match_eval(&m, &pkt, skb));
	m.vlen = 7;	/* longer than the payload: cannot hold either way */
	KUNIT_EXPECT_FALSE(test, mmb_match_eval(&m, &pkt, skb));
	kfree_skb(skb);
}

/* --- TCP options ------------------------------------------------------- */

/* One option match: field, kind, op, value bytes (vlen 0: presence). */
struct opt_case {
	u16 field;
	u8 kind, op, vlen;
	u8 value[4];
	bool want;
};

static void opt_cases(struct kunit *test, const u8 *opts, unsigned int len, u8 proto,
		      const struct opt_case *c, unsigned int n, const char *what)
{
	struct mmbt_pkt_desc d = tcp4();
	struct mmb_match_spec m;
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	unsigned int i;

	d.proto = proto;
	d.tcp_opts = opts;
	d.tcp_opt_len = len;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	for (i = 0; i < n; i++) {
		memset(&m, 0, sizeof(m));
		m.field = c[i].field;
		m.kind = c[i].kind;
		m.op = c[i].op;
		m.vlen = c[i].vlen;
		m.plen = mmb_field(m.field)->bits;
		memcpy(m.value, c[i].value, m.vlen);
		KUNIT_EXPECT_EQ_MSG(test, mmb_match_eval(&m, &pkt, skb), c[i].want,
				    "%s, case %u: %s", what, i, mmb_field(m.field)->name);
	}
	kfree_skb(skb);
}

/*
 * Options are found by walking the list: presence, absence, numbers with
 * every operator, byte strings, tcp-opt KIND; malformed lists end the walk
 * and non-TCP packets match no option condition, not even an absence.
 */
static void match_tcp_opt_test(struct kunit *test)
{
	/* MSS 1460, NOP, WS 7, SACK-permitted, timestamp 0x01020304 0x05060708, NOPs */
	static const u8 opts[20] = { 2, 4, 0x05, 0xb4, 1, 3, 3, 7, 4, 2,
				     8, 10, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const u8 bad_len[4] = { 2, 0, 0x05, 0xb4 };
	static const u8 overrun[4] = { 1, 8, 10, 1 };
	static const u8 eol[8] = { 0, 0, 0, 0, 2, 4, 0x05, 0xb4 };
	static const struct opt_case full[] = {
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_EQ, 2, { 0x05, 0xb4 }, true },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_GT, 2, { 0x05, 0x78 }, true },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_LT, 2, { 0x05, 0x78 }, false },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_NE, 2, { 0x05, 0xb4 }, false },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_EQ, 0, {}, true },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_NE, 0, {}, false },
		{ MMB_FIELD_TCP_OPT_WSCALE, 0, MMB_OP_GE, 1, { 7 }, true },
		{ MMB_FIELD_TCP_OPT_WSCALE, 0, MMB_OP_LT, 1, { 7 }, false },
		{ MMB_FIELD_TCP_OPT_SACKP, 0, MMB_OP_EQ, 0, {}, true },
		{ MMB_FIELD_TCP_OPT_SACK, 0, MMB_OP_EQ, 0, {}, false },
		{ MMB_FIELD_TCP_OPT_SACK, 0, MMB_OP_NE, 0, {}, true },
		{ MMB_FIELD_TCP_OPT_TIMESTAMP, 0, MMB_OP_EQ, 2, { 1, 2 }, true },
		{ MMB_FIELD_TCP_OPT_TIMESTAMP, 0, MMB_OP_EQ, 2, { 1, 3 }, false },
		{ MMB_FIELD_TCP_OPT_TIMESTAMP, 0, MMB_OP_NE, 2, { 1, 3 }, true },
		{ MMB_FIELD_TCP_OPT_MPTCP, 0, MMB_OP_EQ, 0, {}, false },
		{ MMB_FIELD_TCP_OPT, 0, MMB_OP_EQ, 0, {}, true },
		{ MMB_FIELD_TCP_OPT, 3, MMB_OP_EQ, 0, {}, true },
		{ MMB_FIELD_TCP_OPT, 3, MMB_OP_EQ, 1, { 7 }, true },
		{ MMB_FIELD_TCP_OPT, 3, MMB_OP_EQ, 1, { 8 }, false },
		{ MMB_FIELD_TCP_OPT, 30, MMB_OP_NE, 0, {}, true },
		{ MMB_FIELD_TCP_OPT, 8, MMB_OP_EQ, 4, { 1, 2, 3, 4 }, true },
	};
	static const struct opt_case none[] = {
		{ MMB_FIELD_TCP_OPT, 0, MMB_OP_EQ, 0, {}, false },
		{ MMB_FIELD_TCP_OPT, 0, MMB_OP_NE, 0, {}, true },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_NE, 0, {}, true },
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_NE, 2, { 0, 0 }, false },
	};
	static const struct opt_case broken[] = {
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_EQ, 0, {}, false },
		{ MMB_FIELD_TCP_OPT, 0, MMB_OP_EQ, 0, {}, false },
	};
	static const struct opt_case udp[] = {
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_NE, 0, {}, false },
		{ MMB_FIELD_TCP_OPT, 0, MMB_OP_NE, 0, {}, false },
	};

	opt_cases(test, opts, sizeof(opts), IPPROTO_TCP, full, ARRAY_SIZE(full), "options");
	opt_cases(test, NULL, 0, IPPROTO_TCP, none, ARRAY_SIZE(none), "no options");
	opt_cases(test, NULL, 8, IPPROTO_TCP, none, ARRAY_SIZE(none), "NOPs");
	opt_cases(test, bad_len, 4, IPPROTO_TCP, broken, ARRAY_SIZE(broken), "length 0");
	opt_cases(test, overrun, 4, IPPROTO_TCP, broken, ARRAY_SIZE(broken), "overrun");
	opt_cases(test, eol, 8, IPPROTO_TCP, broken, ARRAY_SIZE(broken), "after EOL");
	opt_cases(test, NULL, 0, IPPROTO_UDP, udp, ARRAY_SIZE(udp), "UDP");
}

/* The kernel refuses option matches and rewrites it cannot honour. */
static void rule_tcp_opt_refused_test(struct kunit *test)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	static const struct {
		u16 field;
		u8 kind, op, vlen;
		u16 mod;	/* a target field instead, if set */
	} bad[] = {
		{ MMB_FIELD_TCP_OPT_SACKP, 0, MMB_OP_EQ, 1 },	/* no data */
		{ MMB_FIELD_TCP_OPT, 0, MMB_OP_EQ, 1 },		/* a value needs a kind */
		{ MMB_FIELD_TCP_OPT_SACK, 0, MMB_OP_LT, 1 },	/* byte string: == != */
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_GT, 0 },	/* presence: == != */
		{ MMB_FIELD_TCP_OPT_MSS, 0, MMB_OP_EQ, 1 },	/* wrong size */
		{ MMB_FIELD_TCP_OPT_SACK, 0, MMB_OP_EQ, 39 },	/* longer than any option */
		{ MMB_FIELD_ALL, 0, MMB_OP_EQ, 0, MMB_FIELD_TCP_OPT_TIMESTAMP },
		{ MMB_FIELD_UDP_DPORT, 0, MMB_OP_EQ, 2, MMB_FIELD_TCP_OPT_MSS },
	};
	struct mmb_rule *rule;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(s, 0, sizeof(*s));
		s->nmatches = 1;
		s->m[0].field = bad[i].field;
		s->m[0].kind = bad[i].kind;
		s->m[0].op = bad[i].op;
		s->m[0].vlen = bad[i].vlen;
		s->m[0].plen = mmb_field(bad[i].field)->bits;
		s->ntargets = 1;
		s->t[0].type = bad[i].mod ? MMB_TARGET_MOD : MMB_TARGET_DROP;
		s->t[0].rate = MMB_RATE_ALWAYS;
		s->t[0].field = bad[i].mod;
		s->t[0].vlen = 2;
		s->t[0].plen = 16;
		rule = mmb_rule_create(s, NULL, NULL);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(rule), "case %u", i);
		if (!IS_ERR(rule))
			mmb_rule_free(rule);
	}
	/* And takes the good ones: present, absent, a rewrite of the MSS. */
	memset(s, 0, sizeof(*s));
	s->nmatches = 2;
	s->m[0].field = MMB_FIELD_TCP_OPT_MSS;
	s->m[0].plen = 16;
	s->m[1].field = MMB_FIELD_TCP_OPT;
	s->m[1].kind = 30;
	s->m[1].op = MMB_OP_NE;
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_MOD;
	s->t[0].field = MMB_FIELD_TCP_OPT_MSS;
	s->t[0].vlen = 2;
	s->t[0].plen = 16;
	/* 1400: an MSS of 0 is "pmtu", the route's, for leaving rules only. */
	s->t[0].value[0] = 0x05;
	s->t[0].value[1] = 0x78;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	/* A named option's presence is in the mask; one by kind is not. */
	KUNIT_EXPECT_EQ(test, rule->slow, BIT(1));
	mmb_rule_free(rule);
}

/*
 * The rules of a batch take their counters from shared blocks of 64; each
 * rule's are its own, and a block outlives the pool until its last rule.
 */
static void rule_stats_pool_test(struct kunit *test)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_stats_pool pool = { .want = 70 };
	struct mmb_rule **r = kunit_kcalloc(test, 70, sizeof(*r), GFP_KERNEL);
	struct mmb_stats st;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, r);
	s->nmatches = 1;
	s->m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	for (i = 0; i < 70; i++) {
		r[i] = mmb_rule_create(s, &pool, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(r[i]));
	}
	mmb_stats_pool_end(&pool);
	KUNIT_EXPECT_PTR_EQ(test, r[0]->sblk, r[63]->sblk);
	KUNIT_EXPECT_PTR_NE(test, r[63]->sblk, r[64]->sblk);
	KUNIT_EXPECT_PTR_EQ(test, r[64]->sblk, r[69]->sblk);
	for (i = 1; i < 70; i++)
		KUNIT_EXPECT_PTR_NE(test, r[i]->stats, r[i - 1]->stats);
	local_bh_disable();
	mmb_stats_add(r[5]->stats, 1, 100);
	mmb_stats_add(r[64]->stats, 2, 300);
	local_bh_enable();
	for (i = 0; i < 70; i++) {
		mmb_stats_read(r[i]->stats, &st);
		KUNIT_EXPECT_EQ_MSG(test, st.packets, i == 5 ? 1 : i == 64 ? 2 : 0, "rule %u", i);
		KUNIT_EXPECT_EQ_MSG(test, st.bytes, i == 5 ? 100 : i == 64 ? 300 : 0, "rule %u", i);
	}
	/* Freed out of order; the blocks go with their last rules. */
	for (i = 0; i < 70; i++)
		mmb_rule_free(r[(i * 37) % 70]);
}

/* The 16-byte chunks of the image a compiled rule's mask touches. */
static unsigned int mask_chunks(const struct mmb_rule *rule)
{
	struct mmb_key mask, key;
	unsigned int i, bits = 0;

	mmb_rule_key(rule, &mask, &key);
	for (i = 0; i < MMB_KEY_CHUNKS; i++)
		if (mask.c[i].w[0] || mask.c[i].w[1])
			bits |= BIT(i);
	return bits;
}

/*
 * What goes into the mask: a five-tuple spans two chunks (ports and the L4
 * protocol in chunk 0, addresses in chunk 2; IPv4's protocol field is the
 * image's L4 protocol), a second == on bits already pinned to the same
 * value adds nothing, and one that wants other values is left to the slow
 * path, where it never holds.
 */
static void rule_compile_test(struct kunit *test)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_key mask, key;
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->nmatches = 5;
	s->m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000001);
	s->m[1] = mt(MMB_FIELD_IP_DADDR, MMB_OP_EQ, 0x0a000002);
	s->m[2] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	s->m[3] = mt(MMB_FIELD_UDP_SPORT, MMB_OP_EQ, 1000);
	s->m[4] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 2000);
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	/* An IPv4 five-tuple is all in chunk 0. */
	KUNIT_EXPECT_EQ(test, mask_chunks(rule), BIT(0));
	KUNIT_EXPECT_EQ(test, rule->slow, 0);
	mmb_rule_free(rule);

	/* ip-proto tcp with UDP ports: never true, checked per packet. */
	s->m[2] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_EQ(test, rule->slow, BIT(2));
	mmb_rule_free(rule);

	/* 10.0.0.0/8 and 10.1.0.0/16: the /16; 10.0.0.0/8 and 11.0.0.0/16: slow. */
	s->nmatches = 2;
	s->m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000);
	s->m[0].plen = 8;
	s->m[1] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a010000);
	s->m[1].plen = 16;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_EQ(test, rule->slow, 0);
	mmb_rule_key(rule, &mask, &key);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&mask.b[MMB_IMG_IP4_SADDR]), 0xffff0000);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(&key.b[MMB_IMG_IP4_SADDR]), 0x0a010000);
	mmb_rule_free(rule);
	s->m[1] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0b000000);
	s->m[1].plen = 16;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_EQ(test, rule->slow, BIT(1));
	mmb_rule_free(rule);

	/*
	 * TCP options: MSS == 1460 and the absence of SACK-permitted go into
	 * chunk 1 of the mask, the L4 protocol into chunk 0; MSS > 1000 and
	 * an option by kind are checked per packet.
	 */
	s->nmatches = 4;
	s->m[0] = mt(MMB_FIELD_TCP_OPT_MSS, MMB_OP_EQ, 1460);
	s->m[1] = mt(MMB_FIELD_TCP_OPT_SACKP, MMB_OP_NE, 0);
	s->m[1].vlen = 0;
	s->m[2] = mt(MMB_FIELD_TCP_OPT_MSS, MMB_OP_GT, 1000);
	s->m[3] = mt(MMB_FIELD_TCP_OPT, MMB_OP_EQ, 0);
	s->m[3].vlen = 0;
	s->m[3].kind = 30;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_EXPECT_EQ(test, rule->slow, BIT(2) | BIT(3));
	KUNIT_EXPECT_EQ(test, mask_chunks(rule), BIT(0) | BIT(1));
	mmb_rule_key(rule, &mask, &key);
	KUNIT_EXPECT_EQ(test, mask.b[MMB_IMG_OPTS], mmb_opt_bit(MMB_FIELD_TCP_OPT_SACKP));
	KUNIT_EXPECT_EQ(test, key.b[MMB_IMG_OPTS], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(&key.b[MMB_IMG_MSS]), 1460);
	KUNIT_EXPECT_EQ(test, key.b[MMB_IMG_OPTV], MMB_OPTV_MSS);
	mmb_rule_free(rule);
}

/* --- differential ------------------------------------------------------- */

static const u16 rand_fields[] = {
	MMB_FIELD_IP_SADDR, MMB_FIELD_IP_DADDR, MMB_FIELD_IP_PROTO, MMB_FIELD_IP_TTL,
	MMB_FIELD_IP_DSCP, MMB_FIELD_IP6_SADDR, MMB_FIELD_IP6_NEXT, MMB_FIELD_L4_PROTO,
	MMB_FIELD_IP6_HOP_LIMIT, MMB_FIELD_TCP_SPORT, MMB_FIELD_TCP_DPORT,
	MMB_FIELD_TCP_SYN, MMB_FIELD_TCP_FLAGS, MMB_FIELD_UDP_SPORT,
	MMB_FIELD_UDP_DPORT, MMB_FIELD_ICMP_TYPE, MMB_FIELD_IN, MMB_FIELD_UDP_PAYLOAD,
	MMB_FIELD_TCP_OPT_MSS, MMB_FIELD_TCP_OPT_WSCALE, MMB_FIELD_TCP_OPT_SACKP,
	MMB_FIELD_TCP_OPT_TIMESTAMP, MMB_FIELD_TCP_OPT_SACK, MMB_FIELD_TCP_OPT_FAST_OPEN,
	MMB_FIELD_TCP_OPT_MPTCP, MMB_FIELD_TCP_OPT,
	MMB_FIELD_NET_PROTO, MMB_FIELD_ALL,
};

static const u16 ports[] = { 53, 80, 443, 1000 };
static const u8 ttls[] = { 1, 63, 64, 255 };
static const u8 protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
static const u8 flagss[] = { 0x02, 0x12, 0x10, 0x11 };

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

static const u16 opt_mss[] = { 1200, 1460 };
static const u8 opt_kinds[] = { TCPOPT_SACK, TCPOPT_FASTOPEN, TCPOPT_MPTCP };

/*
 * A random TCP option list of 4 to 40 bytes: MSS, window scale, SACK
 * permitted, timestamps, SACK, fast open and MPTCP in any order, some
 * twice, some of the wrong size, NOPs between; sometimes cut by an option
 * that runs past the end or by an end-of-list, after which nothing counts.
 */
static unsigned int rand_tcp_opts(struct rnd_state *rs, u8 *o)
{
	unsigned int n = 0, k, i, len;

	for (k = rnd(rs, 5); k > 0 && n < 28; k--) {
		switch (rnd(rs, 10)) {
		case 0:
		case 1:
			o[n++] = TCPOPT_MSS;
			len = rnd(rs, 6) ? TCPOLEN_MSS : 3;
			o[n++] = len;
			put_unaligned_be16(opt_mss[rnd(rs, 2)], &o[n]);
			n += len - 2;
			break;
		case 2:
		case 3:
			o[n++] = TCPOPT_WINDOW;
			len = rnd(rs, 6) ? TCPOLEN_WINDOW : 4;
			o[n++] = len;
			for (i = 2; i < len; i++)
				o[n++] = 7 + rnd(rs, 2);
			break;
		case 4:
			o[n++] = TCPOPT_SACK_PERM;
			o[n++] = TCPOLEN_SACK_PERM;
			break;
		case 5:
			o[n++] = TCPOPT_TIMESTAMP;
			o[n++] = TCPOLEN_TIMESTAMP;
			for (i = 2; i < TCPOLEN_TIMESTAMP; i++)
				o[n++] = i;
			break;
		case 6:
			o[n++] = TCPOPT_NOP;
			break;
		case 7:
			o[n++] = rnd(rs, 2) ? TCPOPT_EOL : 77;	/* end, or a kind of no field */
			o[n++] = 2;
			break;
		case 8:
			o[n++] = TCPOPT_MSS;
			o[n++] = rnd(rs, 2) ? 1 : 60;		/* malformed */
			break;
		case 9:
			/* a SACK block, a cookie-less fast open, or MPTCP */
			o[n++] = opt_kinds[rnd(rs, ARRAY_SIZE(opt_kinds))];
			len = o[n - 1] == TCPOPT_SACK ? TCPOLEN_SACK_BASE + TCPOLEN_SACK_PERBLOCK :
			      o[n - 1] == TCPOPT_MPTCP ? 4 : 2;
			o[n++] = len;
			for (i = 2; i < len; i++)
				o[n++] = i;
			break;
		}
	}
	while (n % 4 || !n)
		o[n++] = TCPOPT_NOP;
	return n;
}

static void rand_match(struct rnd_state *rs, struct mmb_match_spec *m, int ifindex)
{
	u16 field = rand_fields[rnd(rs, ARRAY_SIZE(rand_fields))];
	const struct mmb_field_info *f = mmb_field(field);
	u8 op = rnd(rs, 3) ? MMB_OP_EQ : rnd(rs, MMB_OP_MAX + 1);
	unsigned int i;

	switch (field) {
	case MMB_FIELD_IP_SADDR:
	case MMB_FIELD_IP_DADDR:
		*m = mt(field, op, get_unaligned_be32(v4a[rnd(rs, 4)]));
		if (rnd(rs, 2)) {
			m->plen = rnd(rs, 33);
			if (m->op > MMB_OP_NE)
				m->op = MMB_OP_EQ;
		}
		return;
	case MMB_FIELD_IP6_SADDR:
		*m = mt(field, op, 0);
		memcpy(m->value, v6a[rnd(rs, 4)], 16);
		if (rnd(rs, 2)) {
			m->plen = rnd(rs, 129);
			if (m->op > MMB_OP_NE)
				m->op = MMB_OP_EQ;
		}
		return;
	case MMB_FIELD_IP_PROTO:
	case MMB_FIELD_IP6_NEXT:
	case MMB_FIELD_L4_PROTO:
		*m = mt(field, op, protos[rnd(rs, 3)]);
		return;
	case MMB_FIELD_IP_TTL:
	case MMB_FIELD_IP6_HOP_LIMIT:
		*m = mt(field, op, ttls[rnd(rs, 4)]);
		return;
	case MMB_FIELD_IP_DSCP:
		*m = mt(field, op, rnd(rs, 2) ? 46 : 0);
		return;
	case MMB_FIELD_TCP_FLAGS:
		*m = mt(field, op, flagss[rnd(rs, 4)]);
		return;
	case MMB_FIELD_TCP_SYN:
		*m = mt(field, op, rnd(rs, 2));
		return;
	case MMB_FIELD_ICMP_TYPE:
		*m = mt(field, op, rnd(rs, 2) ? 8 : 0);
		return;
	case MMB_FIELD_IN:
		*m = mmbt_match_in(op % 2, rnd(rs, 2) ? "lo" : "mmbt-none");
		return;
	case MMB_FIELD_NET_PROTO:
		*m = mt(field, op % 2, rnd(rs, 2) ? 0x0800 : 0x86dd);
		return;
	case MMB_FIELD_UDP_PAYLOAD:
		*m = mt(field, op % 2, 0);
		m->vlen = 1 + rnd(rs, 4);
		m->value[0] = rnd(rs, 2);
		for (i = 1; i < m->vlen; i++)
			m->value[i] = m->value[0] + i * 7;
		return;
	case MMB_FIELD_ALL:
		*m = mt(field, MMB_OP_EQ, 0);
		return;
	case MMB_FIELD_TCP_OPT_MSS:
	case MMB_FIELD_TCP_OPT_WSCALE:
		/* a value of the packets' options, any operator; or presence */
		*m = mt(field, op, field == MMB_FIELD_TCP_OPT_MSS ?
			opt_mss[rnd(rs, 2)] : 7 + rnd(rs, 2));
		if (!rnd(rs, 3)) {
			m->vlen = 0;
			m->op = op % 2;
		}
		return;
	case MMB_FIELD_TCP_OPT:
		*m = mt(field, op % 2, 0);
		m->vlen = 0;
		m->kind = rnd(rs, 2) ? 0 : TCPOPT_WINDOW;
		return;
	case MMB_FIELD_TCP_OPT_SACKP:
	case MMB_FIELD_TCP_OPT_TIMESTAMP:
	case MMB_FIELD_TCP_OPT_SACK:
	case MMB_FIELD_TCP_OPT_FAST_OPEN:
	case MMB_FIELD_TCP_OPT_MPTCP:
		*m = mt(field, op % 2, 0);	/* presence, absence */
		m->vlen = 0;
		return;
	}
	*m = mt(field, op, ports[rnd(rs, 4)]);
	(void)f;
}

/* Random packets share one option buffer: each is built before the next. */
static u8 rand_opts[MAX_TCP_OPTION_SPACE];

static void rand_packet(struct rnd_state *rs, struct mmbt_pkt_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->v6 = rnd(rs, 2);
	d->proto = protos[rnd(rs, 3)];
	if (d->v6 && d->proto == IPPROTO_ICMP)
		d->proto = IPPROTO_ICMPV6;
	d->tos = rnd(rs, 2) ? 46 << 2 : 0;
	d->ttl = ttls[rnd(rs, 4)];
	d->l3_opt_len = d->v6 ? 8 * rnd(rs, 2) : 4 * rnd(rs, 3);
	d->tcp_opt_len = 4 * rnd(rs, 2);
	if (rnd(rs, 2)) {
		d->tcp_opt_len = rand_tcp_opts(rs, rand_opts);
		d->tcp_opts = rand_opts;
	}
	d->tcp_flags = flagss[rnd(rs, 4)];
	d->sport = ports[rnd(rs, 4)];
	d->dport = ports[rnd(rs, 4)];
	if (d->proto == IPPROTO_ICMP || d->proto == IPPROTO_ICMPV6)
		d->sport = (rnd(rs, 2) ? 8 : 0) << 8;
	if (d->v6) {
		memcpy(d->saddr, v6a[rnd(rs, 4)], 16);
		memcpy(d->daddr, v6a[rnd(rs, 4)], 16);
	} else {
		memcpy(d->saddr, v4a[rnd(rs, 4)], 4);
		memcpy(d->daddr, v4a[rnd(rs, 4)], 4);
		d->frag_off = rnd(rs, 8) ? 0 : 64;
	}
	d->payload_len = rnd(rs, 6);
	d->payload_seed = rnd(rs, 2);
}

#define NRULES 300
#define NPACKETS 1500

struct diff_ctx {
	struct mmb_rule_spec spec[NRULES];
	struct mmb_rule *rule[NRULES];
	u64 hits[NRULES];
	struct mmb_verdict v, v2;	/* check_all()'s: off a debug kernel's stack */
};

static u64 rule_hits(const struct mmb_rule *rule)
{
	struct mmb_stats st;

	mmb_stats_read(rule->stats, &st);
	return st.packets;
}

/* Build @d, parse and classify it as the datapath does; returns the skb. */
static struct sk_buff *classify_one(struct kunit *test, const struct mmb_ruleset *rs,
				    const struct mmbt_pkt_desc *d, struct mmb_pkt *pkt,
				    struct mmb_verdict *v)
{
	struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, d);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, pkt), 0);
	rcu_read_lock();
	local_bh_disable();
	mmb_classify(rs, pkt, skb, v);
	local_bh_enable();
	rcu_read_unlock();
	return skb;
}

static void check_all(struct kunit *test, struct diff_ctx *c, struct mmb_ruleset *rs,
		      struct rnd_state *rnds, unsigned int *agree)
{
	struct mmb_verdict *v = &c->v, *v2 = &c->v2;
	struct mmbt_pkt_desc d;
	struct mmb_pkt pkt;
	unsigned int p, i;

	for (p = 0; p < NPACKETS; p++) {
		struct sk_buff *skb;
		bool want_drop = false, want_accept = false;

		rand_packet(rnds, &d);
		skb = classify_one(test, rs, &d, &pkt, v);
		/* Again, as a second packet of the flow (from the cache, if any). */
		rcu_read_lock();
		local_bh_disable();
		mmb_classify(rs, &pkt, skb, v2);
		local_bh_enable();
		rcu_read_unlock();
		KUNIT_EXPECT_EQ(test, v2->drop, v->drop);
		KUNIT_EXPECT_EQ(test, v2->accept, v->accept);
		for (i = 0; i < NRULES; i++) {
			u64 now = c->rule[i] ? rule_hits(c->rule[i]) : 0;
			u64 got = c->rule[i] ? now - c->hits[i] : 0;
			bool want = c->rule[i] && mmbt_spec_matches(&c->spec[i], &pkt, skb);

			c->hits[i] = now;
			if (got != (want ? 2 : 0)) {
				KUNIT_FAIL(test, "packet %u rule %u: %llu of 2, reference %d",
					   p, i, got, want);
				kfree_skb(skb);
				return;
			}
			(*agree)++;
			if (want && c->rule[i]->drop)
				want_drop = true;
			if (want && c->rule[i]->accept)
				want_accept = true;
		}
		KUNIT_EXPECT_EQ(test, v->drop, want_drop);
		KUNIT_EXPECT_EQ(test, v->accept, want_accept);
		kfree_skb(skb);
	}
}

static void classify_differential_test(struct kunit *test)
{
	struct rnd_state rnds;
	struct diff_ctx *c;
	struct mmb_ruleset *rs;
	struct mmb_rules *r;
	unsigned int i, j, valid = 0, agree = 0;
	int ifindex = init_net.loopback_dev->ifindex;
	u64 hits, misses;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	r = mmbt_rules_new(test);
	rs = mmbt_rs(r);
	KUNIT_ASSERT_NOT_NULL(test, c);
	prandom_seed_state(&rnds, 0x6d6d62);

	for (i = 0; i < NRULES; i++) {
		struct mmb_rule_spec *s = &c->spec[i];
		struct mmb_rule *rule;

		s->nmatches = 1 + rnd(&rnds, 4);
		for (j = 0; j < s->nmatches; j++)
			rand_match(&rnds, &s->m[j], ifindex);
		s->ntargets = 1;
		s->t[0].type = rnd(&rnds, 4) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
		s->t[0].rate = MMB_RATE_ALWAYS;
		rule = mmb_rule_create(s, NULL, NULL);
		if (IS_ERR(rule))
			continue;	/* e.g. IPv4 and IPv6 fields together */
		/* Half by the image their creation left, as netlink adds them. */
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, i % 2 ? &s->img : NULL), 0);
		c->rule[i] = rule;
		valid++;
	}
	KUNIT_EXPECT_GT(test, valid, NRULES / 3);
	check_all(test, c, rs, &rnds, &agree);

	/* Remove every other rule and check again. */
	for (i = 0; i < NRULES; i += 2) {
		if (!c->rule[i])
			continue;
		KUNIT_ASSERT_EQ(test, mmbt_remove(r, c->rule[i]), 0);
		c->rule[i] = NULL;
	}
	rcu_barrier();
	check_all(test, c, rs, &rnds, &agree);
	mmb_ruleset_cache_stats(rs, &hits, &misses);
	kunit_info(test, "%u valid rules, %u rule/packet verdicts agree, flow cache %llu hits %llu misses",
		   valid, agree, hits, misses);
	/*
	 * The small value space repeats images: the cache must have served,
	 * though few enough hit that it goes sparse (one packet in 16 looks).
	 */
	KUNIT_EXPECT_GT(test, hits, 50);
}

/*
 * Tuple merging, judged against the naive evaluation: 2000 rules shaped
 * like a real ACL (prefixes of every length on clustered addresses, TCP,
 * UDP or any protocol, exact ports and port ranges) have hundreds of masks;
 * they must share far fewer tables, and every packet must still count in
 * exactly the rules it matches, before and after most rules are deleted.
 */
#define NMERGE 2000
#define NMERGE_PKTS 1000

struct merge_ctx {
	struct mmb_rule_spec spec[NMERGE];
	struct mmb_rule *rule[NMERGE];
	struct mmb_key mask[NMERGE];
	u64 hits[NMERGE];
};

static u32 merge_addr(struct rnd_state *rs)
{
	/* Eight clusters of /16s, the low half random. */
	return 0x0a000000 | rnd(rs, 8) << 16 | (prandom_u32_state(rs) & 0xffff);
}

static void merge_rule(struct rnd_state *rs, struct mmb_rule_spec *s)
{
	static const u16 mports[] = { 22, 53, 80, 443, 1521, 8080 };
	u8 proto = rnd(rs, 5) ? (rnd(rs, 2) ? IPPROTO_TCP : IPPROTO_UDP) : 0;
	u16 sport = proto == IPPROTO_TCP ? MMB_FIELD_TCP_SPORT : MMB_FIELD_UDP_SPORT;
	u16 dport = proto == IPPROTO_TCP ? MMB_FIELD_TCP_DPORT : MMB_FIELD_UDP_DPORT;
	unsigned int n = 0, lo;

	memset(s, 0, sizeof(*s));
	s->m[n] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, merge_addr(rs));
	s->m[n++].plen = 8 + rnd(rs, 25);
	if (rnd(rs, 5)) {
		s->m[n] = mt(MMB_FIELD_IP_DADDR, MMB_OP_EQ, merge_addr(rs));
		s->m[n++].plen = 8 + rnd(rs, 25);
	}
	if (proto) {
		s->m[n++] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, proto);
		switch (rnd(rs, 4)) {
		case 0:
			lo = mports[rnd(rs, ARRAY_SIZE(mports))];
			s->m[n++] = mt(dport, MMB_OP_GE, lo);
			s->m[n++] = mt(dport, MMB_OP_LE, lo + rnd(rs, 100));
			break;
		case 1:
		case 2:
			s->m[n++] = mt(dport, MMB_OP_EQ, mports[rnd(rs, ARRAY_SIZE(mports))]);
			break;
		}
		if (!rnd(rs, 5))
			s->m[n++] = mt(sport, MMB_OP_EQ, mports[rnd(rs, ARRAY_SIZE(mports))]);
	}
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = rnd(rs, 4) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
}

/* A packet inside a random rule's prefixes, ports near its ports. */
static void merge_packet(struct rnd_state *rs, struct merge_ctx *c, struct mmbt_pkt_desc *d)
{
	static const u16 pports[] = { 22, 53, 80, 100, 443, 1521, 1600, 8080 };
	const struct mmb_rule_spec *s;
	unsigned int i;

	do
		s = &c->spec[rnd(rs, NMERGE)];
	while (!c->rule[s - c->spec]);
	memset(d, 0, sizeof(*d));
	d->proto = rnd(rs, 2) ? IPPROTO_TCP : IPPROTO_UDP;
	d->ttl = 64;
	d->sport = pports[rnd(rs, ARRAY_SIZE(pports))];
	d->dport = pports[rnd(rs, ARRAY_SIZE(pports))] + rnd(rs, 3) * rnd(rs, 50);
	put_unaligned_be32(merge_addr(rs), d->saddr);
	put_unaligned_be32(merge_addr(rs), d->daddr);
	for (i = 0; i < s->nmatches; i++) {
		const struct mmb_match_spec *m = &s->m[i];
		u32 host = m->plen < 32 ? ~0U >> m->plen : 0;
		u8 *a = m->field == MMB_FIELD_IP_SADDR ? d->saddr : d->daddr;

		if (m->field == MMB_FIELD_IP_PROTO)
			d->proto = m->value[0];
		if (m->field != MMB_FIELD_IP_SADDR && m->field != MMB_FIELD_IP_DADDR)
			continue;
		/* Its prefix, or (one time in eight) the neighbouring one. */
		put_unaligned_be32((get_unaligned_be32(m->value) & ~host) |
				   (get_unaligned_be32(a) & host), a);
		if (!rnd(rs, 8) && m->plen)
			a[(m->plen - 1) / 8] ^= 0x80 >> ((m->plen - 1) % 8);
	}
}

static void merge_check(struct kunit *test, struct rnd_state *rnds, struct merge_ctx *c,
			struct mmb_rules *r, unsigned int npkts)
{
	struct mmbt_pkt_desc d;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	unsigned int p, i, matched = 0;

	for (i = 0; i < NMERGE; i++)
		c->hits[i] = c->rule[i] ? rule_hits(c->rule[i]) : 0;
	for (p = 0; p < npkts; p++) {
		bool want_drop = false, want_accept = false;
		struct sk_buff *skb;

		merge_packet(rnds, c, &d);
		skb = classify_one(test, mmbt_rs(r), &d, &pkt, &v);
		for (i = 0; i < NMERGE; i++) {
			bool want;
			u64 now;

			if (!c->rule[i])
				continue;
			want = mmbt_spec_matches(&c->spec[i], &pkt, skb);
			now = rule_hits(c->rule[i]);
			if (now - c->hits[i] != want) {
				KUNIT_FAIL(test, "packet %u rule %u: counted %llu, reference %d",
					   p, i, now - c->hits[i], want);
				kfree_skb(skb);
				return;
			}
			c->hits[i] = now;
			matched += want;
			want_drop |= want && c->rule[i]->drop;
			want_accept |= want && c->rule[i]->accept;
		}
		KUNIT_EXPECT_EQ(test, v.drop, want_drop);
		KUNIT_EXPECT_EQ(test, v.accept, want_accept);
		kfree_skb(skb);
	}
	/* Most packets are built inside a rule: the check is not vacuous. */
	KUNIT_EXPECT_GT(test, matched, npkts / 2);
}

/*
 * Tables of @r, and the rules they hold; no entry holds more rules with
 * residues than the limit.
 */
static unsigned int merge_tables(struct kunit *test, struct mmb_rules *r, unsigned int *rules)
{
	struct mmb_table_info info;
	unsigned int i;

	*rules = 0;
	for (i = 0; !mmbt_table(r, i, &info); i++) {
		*rules += info.rules;
		KUNIT_EXPECT_LE(test, info.merged_max, MMB_MERGE_LIMIT);
	}
	return i;
}

static void classify_merge_test(struct kunit *test)
{
	struct merge_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test);
	unsigned int i, j, masks = 0, tables, rules, left = 0;
	struct mmb_key key;
	struct rnd_state rnds;

	KUNIT_ASSERT_NOT_NULL(test, c);
	prandom_seed_state(&rnds, 0x6d657267);
	for (i = 0; i < NMERGE; i++) {
		merge_rule(&rnds, &c->spec[i]);
		c->rule[i] = mmb_rule_create(&c->spec[i], NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(c->rule[i]));
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, c->rule[i], i % 2 ? &c->spec[i].img : NULL),
				0);
		mmb_rule_key(c->rule[i], &c->mask[i], &key);
		for (j = 0; j < i && memcmp(&c->mask[j], &c->mask[i], sizeof(key)); j++)
			;
		masks += j == i;
	}
	tables = merge_tables(test, r, &rules);
	kunit_info(test, "%u rules of %u masks in %u tables", NMERGE, masks, tables);
	KUNIT_EXPECT_EQ(test, rules, NMERGE);
	KUNIT_EXPECT_GT(test, masks, 300);
	KUNIT_EXPECT_LE(test, tables, 64);
	merge_check(test, &rnds, c, r, NMERGE_PKTS);

	/* Delete two rules in three, at random, and look again. */
	for (i = 0; i < NMERGE; i++) {
		if (rnd(&rnds, 3)) {
			KUNIT_ASSERT_EQ(test, mmbt_remove(r, c->rule[i]), 0);
			c->rule[i] = NULL;
		} else {
			left++;
		}
	}
	rcu_barrier();
	tables = merge_tables(test, r, &rules);
	KUNIT_EXPECT_EQ(test, rules, left);
	merge_check(test, &rnds, c, r, NMERGE_PKTS / 2);
}

/* One mask, thousands of entries: the table resizes many times. */
#define NMANY 5000

/*
 * A table that keeps the protocol alone is hit by every packet of the
 * protocol: it takes no second rule of another mask under a key. A /16
 * rule that fits the entry of a TTL-range rule gets a table of its own,
 * which a second /16 rule joins; a /8 rule of another protocol, which no
 * other table fits, starts an entry in the protocol's table.
 */
static void classify_merge_coarse_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_match_spec range[2] = {
		mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP),
		mt(MMB_FIELD_IP_TTL, MMB_OP_GE, 10),
	};
	struct mmb_match_spec net[2] = {
		mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000),
		mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP),
	};
	static const struct {
		u8 proto, src0, src1, ttl;
		bool drop;
		u8 hits[4];	/* of the four rules, after it */
	} pkts[] = {
		{ IPPROTO_UDP, 10, 0, 5, true, { 0, 1, 0, 0 } },
		{ IPPROTO_UDP, 10, 0, 64, true, { 1, 2, 0, 0 } },
		{ IPPROTO_UDP, 10, 1, 5, true, { 1, 2, 1, 0 } },
		{ IPPROTO_UDP, 10, 2, 5, false, { 1, 2, 1, 0 } },
		{ IPPROTO_TCP, 10, 2, 5, true, { 1, 2, 1, 1 } },
		{ IPPROTO_TCP, 11, 0, 64, false, { 1, 2, 1, 1 } },
	};
	struct mmb_rule *rule[4];
	struct mmb_table_info info;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	unsigned int i, j;

	net[0].plen = 16;
	rule[0] = mmbt_rule_add(test, r, false, MMB_TARGET_DROP, range, 2);
	rule[1] = mmbt_rule_add(test, r, false, MMB_TARGET_DROP, net, 2);
	net[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a010000);
	net[0].plen = 16;
	rule[2] = mmbt_rule_add(test, r, false, MMB_TARGET_DROP, net, 2);
	net[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000);
	net[0].plen = 8;
	net[1] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_TCP);
	rule[3] = mmbt_rule_add(test, r, false, MMB_TARGET_DROP, net, 2);

	/* The protocol's table: the range rule's entry, and the /8 rule's. */
	KUNIT_ASSERT_EQ(test, mmbt_table(r, 0, &info), 0);
	KUNIT_EXPECT_EQ(test, info.entries, 2);
	KUNIT_EXPECT_EQ(test, info.rules, 2);
	KUNIT_EXPECT_EQ(test, info.merged_max, 1);
	/* ip-saddr/16 and the protocol: both /16 rules, without residues. */
	KUNIT_ASSERT_EQ(test, mmbt_table(r, 1, &info), 0);
	KUNIT_EXPECT_EQ(test, info.entries, 2);
	KUNIT_EXPECT_EQ(test, info.rules, 2);
	KUNIT_EXPECT_EQ(test, info.merged_max, 0);
	KUNIT_EXPECT_NE(test, mmbt_table(r, 2, &info), 0);

	for (i = 0; i < ARRAY_SIZE(pkts); i++) {
		struct mmbt_pkt_desc d = {
			.proto = pkts[i].proto, .ttl = pkts[i].ttl, .sport = 999,
			.dport = 53, .saddr = { pkts[i].src0, pkts[i].src1, 5, 5 },
			.daddr = { 192, 0, 2, 1 },
		};

		kfree_skb(classify_one(test, mmbt_rs(r), &d, &pkt, &v));
		KUNIT_EXPECT_EQ_MSG(test, v.drop, pkts[i].drop, "packet %u", i);
		for (j = 0; j < ARRAY_SIZE(rule); j++)
			KUNIT_EXPECT_EQ_MSG(test, rule_hits(rule[j]), pkts[i].hits[j],
					    "packet %u, rule %u", i, j);
	}
	mmbt_rules_done(test, r);
}

static void classify_many_test(struct kunit *test)
{
	struct mmb_rule **rules = kunit_kcalloc(test, NMANY, sizeof(*rules), GFP_KERNEL);
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_ruleset *rs = mmbt_rs(r);
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64 };
	unsigned int i, round, hits;
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, rules);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < NMANY; i++) {
		s->nmatches = 3;
		s->m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000 + i);
		s->m[1] = mt(MMB_FIELD_UDP_SPORT, MMB_OP_EQ, 1000 + i % 7);
		s->m[2] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
		s->ntargets = 1;
		s->t[0].type = MMB_TARGET_DROP;
		s->t[0].rate = MMB_RATE_ALWAYS;
		rules[i] = mmb_rule_create(s, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(rules[i]));
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, rules[i], NULL), 0);
	}
	for (round = 0; round < 2; round++) {
		hits = 0;
		for (i = 0; i < NMANY; i += NMANY / 300 + round) {
			struct sk_buff *skb;
			u64 before;
			bool gone = !rules[i];

			put_unaligned_be32(0x0a000000 + i, d.saddr);
			d.sport = 1000 + i % 7;
			d.dport = 53;
			before = gone ? 0 : rule_hits(rules[i]);
			skb = classify_one(test, rs, &d, &pkt, &v);
			/* a deleted rule no longer matches; the others exactly once */
			KUNIT_EXPECT_EQ_MSG(test, v.drop, !gone, "rule %u", i);
			if (!gone)
				KUNIT_EXPECT_EQ(test, rule_hits(rules[i]), before + 1);
			hits += v.drop;
			/* The neighbour's port: no rule. */
			d.sport = 1000 + (i + 1) % 7;
			kfree_skb(skb);
			skb = classify_one(test, rs, &d, &pkt, &v);
			KUNIT_EXPECT_FALSE(test, v.drop);
			kfree_skb(skb);
		}
		KUNIT_EXPECT_GT(test, hits, 100);
		/* Then delete every other rule and look again. */
		for (i = 1; round == 0 && i < NMANY; i += 2) {
			KUNIT_ASSERT_EQ(test, mmbt_remove(r, rules[i]), 0);
			rules[i] = NULL;
		}
		rcu_barrier();
	}
	KUNIT_EXPECT_EQ(test, mmb_ruleset_count(rs), NMANY / 2);
}

/*
 * Rules sharing an entry: a list of accepts and always-drops is judged
 * without reading the rules (their counters still count every packet); a
 * random drop, a rewrite or a slow check in the list makes each rule be
 * read again. 1000 packets against a 50% drop: 500 +- 6 standard
 * deviations, while a list wrongly taken as simple drops all 1000.
 */
static void classify_entry_list_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .sport = 1000,
				   .dport = 53 };
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rules *owner = mmbt_rules_new(test);
	struct mmb_ruleset *rs = mmbt_rs(owner);
	struct mmb_rule *r[4];
	unsigned int i, drops = 0, accepts = 0;
	struct mmb_table_info info;
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, s);
	memcpy(d.saddr, v4a[0], 4);
	memcpy(d.daddr, v4a[1], 4);
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		memset(s, 0, sizeof(*s));
		s->nmatches = 1;
		s->m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
		s->ntargets = 1;
		s->t[0].type = MMB_TARGET_DROP;
		s->t[0].rate = MMB_RATE_ALWAYS;
		if (i == 0)
			s->t[0].type = MMB_TARGET_ACCEPT;
		if (i == 2)
			s->t[0].rate = MMB_RATE_ALWAYS / 2;
		if (i == 3) {		/* a slow check the packet fails */
			s->nmatches = 2;
			s->m[1] = mt(MMB_FIELD_UDP_SPORT, MMB_OP_GE, 2000);
		}
		r[i] = mmb_rule_create(s, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(r[i]));
	}
	/* accept + drop: simple. */
	KUNIT_ASSERT_EQ(test, mmbt_insert(owner, r[0], NULL), 0);
	KUNIT_ASSERT_EQ(test, mmbt_insert(owner, r[1], NULL), 0);
	kfree_skb(classify_one(test, rs, &d, &pkt, &v));
	KUNIT_EXPECT_TRUE(test, v.accept);
	KUNIT_EXPECT_TRUE(test, v.drop);
	KUNIT_EXPECT_EQ(test, rule_hits(r[0]), 1);
	KUNIT_EXPECT_EQ(test, rule_hits(r[1]), 1);
	/* A failing slow check: not counted, its drop not taken. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(owner, r[1]), 0);
	KUNIT_ASSERT_EQ(test, mmbt_insert(owner, r[3], NULL), 0);
	kfree_skb(classify_one(test, rs, &d, &pkt, &v));
	KUNIT_EXPECT_TRUE(test, v.accept);
	KUNIT_EXPECT_FALSE(test, v.drop);
	KUNIT_EXPECT_EQ(test, rule_hits(r[0]), 2);
	KUNIT_EXPECT_EQ(test, rule_hits(r[3]), 0);
	/* A 50% drop beside an accept. */
	KUNIT_ASSERT_EQ(test, mmbt_insert(owner, r[2], NULL), 0);
	for (i = 0; i < 1000; i++) {
		kfree_skb(classify_one(test, rs, &d, &pkt, &v));
		drops += v.drop;
		accepts += v.accept;
	}
	KUNIT_EXPECT_EQ(test, accepts, 1000);
	KUNIT_EXPECT_GT(test, drops, 405);
	KUNIT_EXPECT_LT(test, drops, 595);
	KUNIT_EXPECT_EQ(test, rule_hits(r[2]), 1000);
	KUNIT_EXPECT_EQ(test, rule_hits(r[0]), 1002);
	KUNIT_EXPECT_EQ(test, rule_hits(r[3]), 0);
	/*
	 * Down to the rule with a slow check: an entry without a list, whose
	 * rule is read after the probe (no hot word).
	 */
	KUNIT_ASSERT_EQ(test, mmbt_remove(owner, r[0]), 0);
	KUNIT_ASSERT_EQ(test, mmbt_remove(owner, r[2]), 0);
	kfree_skb(classify_one(test, rs, &d, &pkt, &v));
	KUNIT_EXPECT_FALSE(test, v.accept);
	KUNIT_EXPECT_FALSE(test, v.drop);
	KUNIT_EXPECT_EQ(test, rule_hits(r[3]), 0);
	d.sport = 2500;
	kfree_skb(classify_one(test, rs, &d, &pkt, &v));
	KUNIT_EXPECT_TRUE(test, v.drop);
	KUNIT_EXPECT_EQ(test, rule_hits(r[3]), 1);
	/* Its removal takes the entry, and the table, along. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(owner, r[3]), 0);
	kfree_skb(classify_one(test, rs, &d, &pkt, &v));
	KUNIT_EXPECT_FALSE(test, v.drop);
	KUNIT_EXPECT_EQ(test, mmbt_table(owner, 0, &info), -ENOENT);
	rcu_barrier();
}

/*
 * Rules that differ in one field only, wherever its bits sit in the image
 * (a port in the top bytes of a word, the last octet of an address), still
 * spread over the buckets: 4096 keys, a chain of 12 is already a one in a
 * million event for a uniform hash. A hash whose bucket index ignored some
 * bits of a word put every such rule into one chain.
 */
#define NSPREAD 4096

static void classify_spread_test(struct kunit *test)
{
	static const struct {
		u16 field;
		u32 base;
		const char *what;
	} cases[] = {
		{ MMB_FIELD_TCP_DPORT, 0, "tcp-dport" },
		{ MMB_FIELD_TCP_SPORT, 0, "tcp-sport" },
		{ MMB_FIELD_IP_DADDR, 0x0a000000, "ip-daddr, last octets" },
		{ MMB_FIELD_IP_SADDR, 0x0a000000, "ip-saddr, last octets" },
		{ MMB_FIELD_IP6_DADDR, 0, "ip6-daddr, last bytes" },
		{ MMB_FIELD_IP6_FLOW_LABEL, 0, "ip6-flow-label" },
	};
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_table_info info;
	unsigned int c, i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct mmb_rules *r = mmbt_rules_new(test);

		for (i = 0; i < NSPREAD; i++) {
			struct mmb_rule *rule;

			s->nmatches = 1;
			s->m[0] = mt(cases[c].field, MMB_OP_EQ, cases[c].base + i);
			s->ntargets = 1;
			s->t[0].type = MMB_TARGET_DROP;
			s->t[0].rate = MMB_RATE_ALWAYS;
			rule = mmb_rule_create(s, NULL, NULL);
			KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
			KUNIT_ASSERT_EQ(test, mmbt_insert(r, rule, NULL), 0);
		}
		KUNIT_ASSERT_EQ(test, mmbt_table(r, 0, &info), 0);
		KUNIT_EXPECT_EQ_MSG(test, info.entries, NSPREAD, "%s", cases[c].what);
		KUNIT_EXPECT_GE_MSG(test, info.buckets, NSPREAD / 2, "%s", cases[c].what);
		KUNIT_EXPECT_LE_MSG(test, info.chain_max, 12, "%s: %u buckets",
				    cases[c].what, info.buckets);
	}
}

/* --- flow cache ----------------------------------------------------------- */

struct cache_ctx {
	struct kunit *test;
	struct mmb_rules *r;
	struct mmb_ruleset *rs;
};

static void cache_ctx_init(struct cache_ctx *c, struct kunit *test)
{
	c->test = test;
	c->r = mmbt_rules_new(test);
	c->rs = mmbt_rs(c->r);
}

static struct mmb_rule *cache_add(struct cache_ctx *c, struct mmb_match_spec *m,
				  unsigned int n)
{
	struct mmb_rule_spec *s = kunit_kzalloc(c->test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;

	KUNIT_ASSERT_NOT_NULL(c->test, s);
	memcpy(s->m, m, n * sizeof(*m));
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(c->test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(c->test, mmbt_insert(c->r, rule, NULL), 0);
	return rule;
}

/* Classify the UDP packet 10.0.0.1:1000 -> 10.0.0.2:53 with 20 payload
 * bytes (byte 16 flipped if @flip) as the datapath does; the cache's hit
 * and miss deltas go to @hits, @misses.
 */
static bool cache_drop(struct cache_ctx *c, bool flip, u16 id, u64 *hits, u64 *misses)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .sport = 1000,
				   .dport = 53, .payload_len = 20, .no_udp_csum = true };
	u64 h0, m0, h1, m1;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	struct sk_buff *skb;

	memcpy(d.saddr, v4a[0], 4);
	memcpy(d.daddr, v4a[1], 4);
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	if (flip)
		skb->data[20 + 8 + 16] ^= 0xff;	/* beyond the header image */
	if (id) {			/* another packet of the same flow */
		ip_hdr(skb)->id = htons(id);
		ip_send_check(ip_hdr(skb));
	}
	KUNIT_ASSERT_EQ(c->test, mmb_parse(skb, &pkt), 0);
	mmb_ruleset_cache_stats(c->rs, &h0, &m0);
	rcu_read_lock();
	local_bh_disable();
	mmb_classify(c->rs, &pkt, skb, &v);
	local_bh_enable();
	rcu_read_unlock();
	mmb_ruleset_cache_stats(c->rs, &h1, &m1);
	*hits = h1 - h0;
	*misses = m1 - m0;
	kfree_skb(skb);
	return v.drop;
}

static void expect_classify(struct cache_ctx *c, bool flip, bool drop, bool hit,
			    unsigned int line)
{
	u64 h, m;

	KUNIT_EXPECT_EQ_MSG(c->test, cache_drop(c, flip, line, &h, &m), drop, "line %u", line);
	KUNIT_EXPECT_EQ_MSG(c->test, h, (u64)hit, "cache hits, line %u", line);
	KUNIT_EXPECT_EQ_MSG(c->test, m, (u64)!hit, "cache misses, line %u", line);
}

/* Five more masks that cache_drop()'s packet matches in none. */
static void cache_masks(struct cache_ctx *c)
{
	static const struct { u16 field; u32 value; } none[] = {
		{ MMB_FIELD_UDP_DPORT, 54 }, { MMB_FIELD_UDP_SPORT, 999 },
		{ MMB_FIELD_IP_PROTO, IPPROTO_TCP }, { MMB_FIELD_IP_DSCP, 4 },
		{ MMB_FIELD_IP_DADDR, 0x0a000009 },
	};
	struct mmb_match_spec m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(none); i++) {
		m = mt(none[i].field, MMB_OP_EQ, none[i].value);
		cache_add(c, &m, 1);
	}
}

/*
 * With enough masks the datapath answers the packets of a flow (here they
 * differ in IP ID and checksum) from the cache: every change of the rules
 * must show at once, slow-path conditions must still be checked per
 * packet, and images found in many masks are not cached.
 */
static void classify_cache_test(struct kunit *test)
{
	/* Fields of cache_drop()'s packet, each a mask of its own. */
	static const struct { u16 field; u32 value; } more[] = {
		{ MMB_FIELD_UDP_SPORT, 1000 }, { MMB_FIELD_IP_SADDR, 0x0a000001 },
		{ MMB_FIELD_IP_TTL, 64 }, { MMB_FIELD_UDP_LEN, 28 }, { MMB_FIELD_IP_LEN, 48 },
		{ MMB_FIELD_IP_DSCP, 0 }, { MMB_FIELD_IP_ECN, 0 }, { MMB_FIELD_IP_IHL, 5 },
		{ MMB_FIELD_IP_FRAG_OFFSET, 0 }, { MMB_FIELD_IP_DADDR, 0x0a000002 },
		{ MMB_FIELD_IP_PROTO, IPPROTO_UDP },
	};
	struct cache_ctx c;
	struct mmb_match_spec m[2];
	struct mmb_rule *r, *many[5];
	unsigned int i;
	u64 h, ms;

	cache_ctx_init(&c, test);
	/* Six masks, none matching the packet: no cache before the fourth. */
	m[0] = mt(MMB_FIELD_IP_TTL, MMB_OP_EQ, 1);
	cache_add(&c, m, 1);
	KUNIT_EXPECT_FALSE(test, cache_drop(&c, false, 0, &h, &ms));
	KUNIT_EXPECT_EQ(test, h + ms, 0);
	cache_masks(&c);
	expect_classify(&c, false, false, false, __LINE__);
	expect_classify(&c, false, false, true, __LINE__);

	/* A new matching rule (in an existing mask) shows on the next packet. */
	m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	r = cache_add(&c, m, 1);
	expect_classify(&c, false, true, false, __LINE__);
	expect_classify(&c, false, true, true, __LINE__);
	KUNIT_EXPECT_EQ(test, rule_hits(r), 2);
	/* Its removal too. */
	KUNIT_ASSERT_EQ(test, mmbt_remove(c.r, r), 0);
	expect_classify(&c, false, false, false, __LINE__);
	expect_classify(&c, false, false, true, __LINE__);

	/*
	 * A payload condition beyond the image: two packets with one image,
	 * cached once, judged each on its own bytes.
	 */
	m[0] = mt(MMB_FIELD_UDP_PAYLOAD, MMB_OP_EQ, 0);
	m[0].vlen = 20;
	for (i = 0; i < 20; i++)
		m[0].value[i] = i * 7;
	r = cache_add(&c, m, 1);
	expect_classify(&c, false, true, false, __LINE__);
	expect_classify(&c, true, false, true, __LINE__);
	expect_classify(&c, false, true, true, __LINE__);
	KUNIT_EXPECT_EQ(test, rule_hits(r), 2);
	KUNIT_ASSERT_EQ(test, mmbt_remove(c.r, r), 0);

	/* Many rules in one table entry: cached, each judged and counted. */
	for (i = 0; i < ARRAY_SIZE(many); i++) {
		m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
		m[1] = mt(MMB_FIELD_IP_TTL, MMB_OP_GT, 62 + i);
		many[i] = cache_add(&c, m, 2);
	}
	expect_classify(&c, false, true, false, __LINE__);
	expect_classify(&c, false, true, true, __LINE__);
	for (i = 0; i < ARRAY_SIZE(many); i++)
		KUNIT_EXPECT_EQ(test, rule_hits(many[i]), i < 2 ? 2 : 0);
	/*
	 * Found in more masks than a cache entry holds (MMB_CACHE_HITS):
	 * never cached.
	 */
	for (i = 0; i < ARRAY_SIZE(more); i++) {
		m[0] = mt(more[i].field, MMB_OP_EQ, more[i].value);
		r = cache_add(&c, m, 1);
	}
	expect_classify(&c, false, true, false, __LINE__);
	expect_classify(&c, false, true, false, __LINE__);
	KUNIT_EXPECT_EQ(test, rule_hits(r), 2);
	rcu_barrier();
}

/*
 * Every change that frees something a flow cache entry can name (a table
 * entry, its rule list, a mask) first publishes that the ruleset changed,
 * then hands the object over to be freed after a grace period. A packet
 * classified in between, as one arriving on another CPU then would be, must
 * not take a cache entry: one that named a freed table entry would read it
 * after that grace period and write counters through it. The test point
 * "free" runs that packet at the moment the objects are handed over, on
 * each kind of removal.
 */
static struct {
	struct cache_ctx *c;
	unsigned int calls;
	u64 hits;
	bool drop;
} window;

/* Classify @pkt @n times as the datapath does; the cache's lookups. */
static u64 cache_lookups(struct cache_ctx *c, struct mmb_pkt *pkt, struct sk_buff *skb,
			 unsigned int n, u64 *hits)
{
	u64 h0, m0, h1, m1;
	struct mmb_verdict v;
	unsigned int i;

	mmb_ruleset_cache_stats(c->rs, &h0, &m0);
	for (i = 0; i < n; i++) {
		rcu_read_lock();
		local_bh_disable();
		mmb_classify(c->rs, pkt, skb, &v);
		local_bh_enable();
		rcu_read_unlock();
		KUNIT_EXPECT_TRUE(c->test, v.drop);
	}
	mmb_ruleset_cache_stats(c->rs, &h1, &m1);
	*hits = h1 - h0;
	return h1 - h0 + m1 - m0;
}

/*
 * A window of packets that all miss (every one a new flow) makes most
 * packets skip the cache; packets of one flow then bring it back within a
 * window. Verdicts stay right throughout.
 */
static void classify_cache_sparse_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .dport = 53 };
	struct cache_ctx c;
	struct mmb_match_spec m = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	unsigned int i;
	u64 hits;

	cache_ctx_init(&c, test);
	cache_masks(&c);
	cache_add(&c, &m, 1);
	memcpy(d.saddr, v4a[0], 4);
	memcpy(d.daddr, v4a[1], 4);
	d.sport = 2000;
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	/* A window of new flows: source ports 2000 and up, all misses. */
	for (i = 0; i < MMB_CACHE_WINDOW; i++) {
		put_unaligned_be16(2000 + i, &pkt.key.b[MMB_IMG_L4_LO]);
		KUNIT_EXPECT_EQ(test, cache_lookups(&c, &pkt, skb, 1, &hits), 1);
		KUNIT_EXPECT_EQ(test, hits, 0);
	}
	/* Then one flow: one packet in MMB_CACHE_SAMPLE looks in the cache. */
	put_unaligned_be16(1000, &pkt.key.b[MMB_IMG_L4_LO]);
	KUNIT_EXPECT_EQ(test, cache_lookups(&c, &pkt, skb, MMB_CACHE_SAMPLE, &hits), 1);
	/* Its sampled lookups hit: after a window of them, every packet looks. */
	cache_lookups(&c, &pkt, skb, MMB_CACHE_WINDOW * MMB_CACHE_SAMPLE, &hits);
	KUNIT_EXPECT_EQ(test, cache_lookups(&c, &pkt, skb, MMB_CACHE_SAMPLE, &hits),
			MMB_CACHE_SAMPLE);
	KUNIT_EXPECT_EQ(test, hits, MMB_CACHE_SAMPLE);
	kfree_skb(skb);
}

static void free_window_classify(struct mmb_ruleset *rs)
{
	u64 h, m;

	if (rs != window.c->rs)
		return;
	window.calls++;
	window.drop |= cache_drop(window.c, false, 0, &h, &m);
	window.hits += h;
}

static void remove_in_window(struct cache_ctx *c, struct mmb_rule *r, bool drop_after,
			     unsigned int line)
{
	struct kunit *test = c->test;
	u64 h, m;

	/* Cached (by this packet, or already): the next one hits. */
	KUNIT_EXPECT_TRUE_MSG(test, cache_drop(c, false, 0, &h, &m), "line %u", line);
	expect_classify(c, false, true, true, line);
	window.c = c;
	window.calls = 0;
	window.hits = 0;
	window.drop = false;
	mmb_test_points.free = free_window_classify;
	KUNIT_EXPECT_EQ_MSG(test, mmbt_remove(c->r, r), 0, "line %u", line);
	mmb_test_points.free = NULL;
	KUNIT_EXPECT_GT_MSG(test, window.calls, 0, "no free in the window, line %u", line);
	KUNIT_EXPECT_EQ_MSG(test, window.hits, 0, "a packet took a stale cache entry, line %u",
			    line);
	KUNIT_EXPECT_EQ_MSG(test, window.drop, drop_after, "line %u", line);
	rcu_barrier();
	/* The window's packet may have filled the cache again, validly. */
	KUNIT_EXPECT_EQ_MSG(test, cache_drop(c, false, 0, &h, &m), drop_after, "line %u", line);
}

static void classify_cache_free_order_test(struct kunit *test)
{
	struct cache_ctx c;
	struct mmb_match_spec m[2];
	struct mmb_rule *a, *b;

	cache_ctx_init(&c, test);
	cache_masks(&c);

	/* A table entry freed, its mask keeping another entry. */
	m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	a = cache_add(&c, m, 1);
	remove_in_window(&c, a, false, __LINE__);

	/* One rule of two leaving an entry: the entry's rule list replaced. */
	a = cache_add(&c, m, 1);
	b = cache_add(&c, m, 1);
	remove_in_window(&c, a, true, __LINE__);
	remove_in_window(&c, b, false, __LINE__);

	/* The last entry of a mask: the mask goes too. */
	m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000001);
	m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	a = cache_add(&c, m, 2);
	remove_in_window(&c, a, false, __LINE__);
	rcu_barrier();
}

/*
 * 1024 flows that differ in two bytes of the source address, in a cache of
 * 1024 sets of 4: spread at random, a second pass misses about 20 of them
 * (flows of sets that got more than four). 64 rulesets, 64 seeds: a
 * cache hash that crowded the flows for some seeds (one in twenty did)
 * missed hundreds.
 */
static void classify_cache_spread_test(struct kunit *test)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .sport = 1000,
				   .dport = 2000, .no_udp_csum = true };
	unsigned int round, pass, i, worst = 0;
	struct mmb_match_spec m[1];
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	u64 h0, m0, h1, m1;

	if (mmb_cache_entries != 4096)
		kunit_skip(test, "cache_entries is not the default");
	for (round = 0; round < 64; round++) {
		struct cache_ctx c;

		cache_ctx_init(&c, test);
		m[0] = mt(MMB_FIELD_IP_TTL, MMB_OP_EQ, 1);
		cache_add(&c, m, 1);
		m[0] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 54);
		cache_add(&c, m, 1);
		m[0] = mt(MMB_FIELD_UDP_SPORT, MMB_OP_EQ, 999);
		cache_add(&c, m, 1);
		m[0] = mt(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a010203);
		cache_add(&c, m, 1);
		/*
		 * Pass 0 sends each flow's first two packets (the second hits,
		 * so the cache stays in use), pass 1 a third one.
		 */
		for (pass = 0; pass < 2; pass++) {
			mmb_ruleset_cache_stats(c.rs, &h0, &m0);
			for (i = 0; i < 2048; i++) {
				if (pass == 1 && i % 2)
					continue;
				struct sk_buff *skb;

				put_unaligned_be32(0x0ac80000 + i / 2, d.saddr);
				memcpy(d.daddr, v4a[1], 4);
				skb = mmbt_pkt_build(init_net.loopback_dev, &d);
				KUNIT_ASSERT_NOT_NULL(test, skb);
				KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
				rcu_read_lock();
				local_bh_disable();
				mmb_classify(c.rs, &pkt, skb, &v);
				local_bh_enable();
				rcu_read_unlock();
				KUNIT_EXPECT_FALSE(test, v.drop);
				kfree_skb(skb);
			}
			mmb_ruleset_cache_stats(c.rs, &h1, &m1);
			KUNIT_EXPECT_EQ(test, h1 - h0 + m1 - m0, pass ? 1024 : 2048);
		}
		worst = max_t(unsigned int, worst, m1 - m0);
		KUNIT_EXPECT_LE_MSG(test, m1 - m0, 100, "round %u", round);
		rcu_barrier();
		mmbt_rules_done(test, c.r);
	}
	kunit_info(test, "most second-pass misses: %u of 1024\n", worst);
}

static struct kunit_case mmb_classify_cases[] = {
	KUNIT_CASE(field_table_test),
	KUNIT_CASE(parse_ipv4_options_test),
	KUNIT_CASE(parse_ipv6_exthdr_test),
	KUNIT_CASE(parse_fragments_test),
	KUNIT_CASE(parse_truncated_test),
	KUNIT_CASE(match_eval_test),
	KUNIT_CASE(match_tcp_opt_test),
	KUNIT_CASE(rule_tcp_opt_refused_test),
	KUNIT_CASE(rule_compile_test),
	KUNIT_CASE(rule_stats_pool_test),
	KUNIT_CASE(classify_differential_test),
	KUNIT_CASE(classify_merge_test),
	KUNIT_CASE(classify_merge_coarse_test),
	KUNIT_CASE(classify_many_test),
	KUNIT_CASE(classify_entry_list_test),
	KUNIT_CASE(classify_spread_test),
	KUNIT_CASE(classify_cache_test),
	KUNIT_CASE(classify_cache_sparse_test),
	KUNIT_CASE(classify_cache_free_order_test),
	KUNIT_CASE(classify_cache_spread_test),
	{}
};

static struct kunit_suite mmb_classify_suite = {
	.name = "mmb-classify",
	.test_cases = mmb_classify_cases,
};

kunit_test_suites(&mmb_classify_suite);
