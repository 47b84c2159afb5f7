// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: "mod" rewrites every header field (and the TCP options that can
 * be rewritten in place, at odd offsets too) to the value asked, and the
 * checksums stay valid: checked by full recomputation, for each ip_summed.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/prandom.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "../kmod/mmb.h"
#include "util.h"

/* NOP, MSS 1460 (data at TCP offset 23: odd), NOP, window scale 7, NOPs */
static const u8 opts[12] = { 1, 2, 4, 0x05, 0xb4, 1, 3, 3, 7, 1, 1, 1 };

static const struct mmbt_pkt_desc kinds[] = {
	{ .proto = IPPROTO_TCP, .ttl = 64, .sport = 1234, .dport = 80, .tcp_flags = 0x18,
	  .l3_opt_len = 4, .tcp_opt_len = 12, .tcp_opts = opts, .payload_len = 33,
	  .payload_seed = 3 },
	{ .proto = IPPROTO_UDP, .ttl = 64, .sport = 1234, .dport = 53, .payload_len = 17 },
	{ .proto = IPPROTO_UDP, .ttl = 64, .sport = 1234, .dport = 53, .payload_len = 9,
	  .no_udp_csum = true },
	{ .proto = IPPROTO_ICMP, .ttl = 64, .sport = 8 << 8, .payload_len = 21 },
	{ .v6 = true, .proto = IPPROTO_TCP, .ttl = 64, .sport = 1234, .dport = 80,
	  .tcp_flags = 0x02, .l3_opt_len = 8, .tcp_opt_len = 12, .tcp_opts = opts,
	  .payload_len = 31 },
	{ .v6 = true, .proto = IPPROTO_UDP, .ttl = 64, .sport = 1234, .dport = 53,
	  .payload_len = 12 },
	{ .v6 = true, .proto = IPPROTO_ICMPV6, .ttl = 64, .sport = 128 << 8, .payload_len = 7 },
};

/* Fields whose rewrite changes how the packet is parsed or summed. */
static bool skip_field(unsigned int id)
{
	switch (id) {
	case MMB_FIELD_IP_VER: case MMB_FIELD_IP_IHL: case MMB_FIELD_IP_LEN:
	case MMB_FIELD_IP_PROTO: case MMB_FIELD_IP_CHECKSUM:
	case MMB_FIELD_IP_FLAGS: case MMB_FIELD_IP_MF: case MMB_FIELD_IP_FRAG_OFFSET:
	case MMB_FIELD_IP6_VER: case MMB_FIELD_IP6_LEN: case MMB_FIELD_IP6_NEXT:
	case MMB_FIELD_ICMP_CHECKSUM: case MMB_FIELD_ICMP6_CHECKSUM:
	case MMB_FIELD_UDP_LEN: case MMB_FIELD_UDP_CHECKSUM:
	case MMB_FIELD_TCP_OFFSET: case MMB_FIELD_TCP_CHECKSUM:
		return true;
	}
	return false;
}

static void fill(struct mmbt_pkt_desc *d)
{
	static const u8 s4[] = { 10, 1, 2, 3 }, d4[] = { 192, 0, 2, 77 };
	static const u8 s6[] = { 0xfd, 0, 0, 1, [15] = 5 }, d6[] = { 0x20, 1, 0xd, 0xb8, [15] = 9 };

	memcpy(d->saddr, d->v6 ? s6 : s4, d->v6 ? 16 : 4);
	memcpy(d->daddr, d->v6 ? d6 : d4, d->v6 ? 16 : 4);
	d->seq = 0x11223344;
}

static bool applies(const struct mmb_field_info *f, const struct mmbt_pkt_desc *d)
{
	/* Fixed-size TCP options, rewritten in place (the packets have them). */
	if (f->hdr == MMB_HDR_TCPOPT)
		return f->bits && d->tcp_opts;
	if (f->hdr != MMB_HDR_L3 && f->hdr != MMB_HDR_L4)
		return false;
	if (f->family && f->family != (d->v6 ? 6 : 4))
		return false;
	return !f->l4 || f->l4 == d->proto;
}

static void rand_value(struct rnd_state *rs, const struct mmb_field_info *f,
		       struct mmb_target_spec *t)
{
	unsigned int i;

	t->vlen = mmb_field_size(f->bits);
	t->plen = f->bits;
	for (i = 0; i < t->vlen; i++)
		t->value[i] = prandom_u32_state(rs);
	if (f->bits < 32) {
		u32 v = prandom_u32_state(rs) & ((1U << f->bits) - 1);

		for (i = t->vlen; i-- > 0; v >>= 8)
			t->value[i] = v;
	}
}

static int rewrite_one(struct kunit *test, const struct mmbt_pkt_desc *d,
		       unsigned int field, u8 summed, struct rnd_state *rs)
{
	struct mmb_rule_spec *spec;
	struct mmb_match_spec m = {};
	struct mmb_rule *rule;
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	int ok = 0;

	spec = kzalloc(sizeof(*spec), GFP_KERNEL);
	skb = mmbt_pkt_build(init_net.loopback_dev, d);
	if (!spec || !skb)
		goto out;
	spec->nmatches = 1;
	spec->m[0].field = MMB_FIELD_ALL;
	spec->ntargets = 1;
	spec->t[0].type = MMB_TARGET_MOD;
	spec->t[0].field = field;
	rand_value(rs, mmb_field(field), &spec->t[0]);
	rule = mmb_rule_create(spec, NULL, NULL);
	if (IS_ERR(rule)) {
		KUNIT_FAIL(test, "%s: rule refused", mmb_field(field)->name);
		goto out;
	}
	skb->ip_summed = summed;
	if (summed == CHECKSUM_COMPLETE)
		skb->csum = csum_partial(skb->data, skb->len, 0);
	if (mmb_parse(skb, &pkt) || mmb_rewrite(skb, &pkt, rule)) {
		KUNIT_FAIL(test, "%s: parse or rewrite failed", mmb_field(field)->name);
		goto out_rule;
	}
	/* The field now holds the value... */
	m.field = field;
	m.op = MMB_OP_EQ;
	m.plen = mmb_field(field)->bits;
	m.vlen = spec->t[0].vlen;
	memcpy(m.value, spec->t[0].value, m.vlen);
	KUNIT_EXPECT_EQ(test, mmb_parse(skb, &pkt), 0);
	if (!mmb_match_eval(&m, &pkt, skb)) {
		KUNIT_FAIL(test, "%s: value not written", mmb_field(field)->name);
		goto out_rule;
	}
	/* ...and every checksum is right. */
	if (!mmbt_csums_ok(skb, d->v6, pkt.l4off, d->proto)) {
		KUNIT_FAIL(test, "%s (v%d, proto %u, summed %u): bad checksum",
			   mmb_field(field)->name, d->v6 ? 6 : 4, d->proto, summed);
		goto out_rule;
	}
	if (summed == CHECKSUM_COMPLETE &&
	    csum_fold(skb->csum) != csum_fold(csum_partial(skb->data, skb->len, 0))) {
		KUNIT_FAIL(test, "%s (v%d, proto %u): skb->csum stale",
			   mmb_field(field)->name, d->v6 ? 6 : 4, d->proto);
		goto out_rule;
	}
	ok = 1;
out_rule:
	mmb_rule_free(rule);
out:
	kfree_skb(skb);
	kfree(spec);
	return ok;
}

static void rewrite_all_fields_test(struct kunit *test)
{
	static const u8 summed[] = { CHECKSUM_NONE, CHECKSUM_COMPLETE, CHECKSUM_UNNECESSARY };
	struct rnd_state rs;
	unsigned int k, f, s, round, n = 0, ok = 0;

	prandom_seed_state(&rs, 42);
	for (round = 0; round < 8; round++) {
		for (k = 0; k < ARRAY_SIZE(kinds); k++) {
			struct mmbt_pkt_desc d = kinds[k];

			fill(&d);
			for (f = 0; f <= MMB_FIELD_MAX; f++) {
				if (skip_field(f) || !applies(mmb_field(f), &d))
					continue;
				for (s = 0; s < ARRAY_SIZE(summed); s++) {
					n++;
					ok += rewrite_one(test, &d, f, summed[s], &rs);
				}
			}
		}
	}
	kunit_info(test, "%u of %u rewrites kept every checksum", ok, n);
	KUNIT_EXPECT_EQ(test, ok, n);
	KUNIT_EXPECT_GT(test, n, 1000);
}

/* CHECKSUM_PARTIAL (GRO, veth): the field holds the pseudo-header sum. */
static void rewrite_partial_test(struct kunit *test)
{
	static const u8 new4[] = { 172, 16, 0, 1 };
	struct mmbt_pkt_desc d = kinds[0];
	struct mmb_rule_spec *spec;
	struct mmb_rule *rule;
	struct sk_buff *skb;
	struct mmb_pkt pkt;
	struct iphdr *iph;
	struct tcphdr *th;
	unsigned int len;
	__sum16 want;

	fill(&d);
	spec = kunit_kzalloc(test, sizeof(*spec), GFP_KERNEL);
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, spec);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	iph = ip_hdr(skb);
	th = (void *)(skb->data + iph->ihl * 4);
	len = skb->len - iph->ihl * 4;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = (u8 *)th - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);
	th->check = ~tcp_v4_check(len, iph->saddr, iph->daddr, 0);

	spec->nmatches = 1;
	spec->m[0].field = MMB_FIELD_ALL;
	spec->ntargets = 2;
	spec->t[0].type = MMB_TARGET_MOD;
	spec->t[0].field = MMB_FIELD_IP_SADDR;
	spec->t[0].vlen = 4;
	spec->t[0].plen = 32;
	memcpy(spec->t[0].value, new4, 4);
	spec->t[1].type = MMB_TARGET_MOD;
	spec->t[1].field = MMB_FIELD_TCP_DPORT;
	spec->t[1].vlen = 2;
	spec->t[1].plen = 16;
	spec->t[1].value[0] = 1;
	rule = mmb_rule_create(spec, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_EQ(test, mmb_rewrite(skb, &pkt, rule), 0);
	iph = ip_hdr(skb);
	th = (void *)(skb->data + iph->ihl * 4);
	KUNIT_EXPECT_EQ(test, memcmp(&iph->saddr, new4, 4), 0);
	KUNIT_EXPECT_EQ(test, ntohs(th->dest), 256);
	KUNIT_EXPECT_EQ(test, ip_fast_csum(iph, iph->ihl), 0);
	/* Only the pseudo-header part changed: a port is not in it. */
	want = ~tcp_v4_check(len, iph->saddr, iph->daddr, 0);
	KUNIT_EXPECT_EQ(test, th->check, want);
	mmb_rule_free(rule);
	kfree_skb(skb);
}

static struct kunit_case mmb_rewrite_cases[] = {
	KUNIT_CASE(rewrite_all_fields_test),
	KUNIT_CASE(rewrite_partial_test),
	{}
};

static struct kunit_suite mmb_rewrite_suite = {
	.name = "mmb-rewrite",
	.test_cases = mmb_rewrite_cases,
};

kunit_test_suites(&mmb_rewrite_suite);
