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
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>
#include <net/udp.h>

#include "../kmod/mmb.h"
#include "../kmod/rewrite.h"
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

/*
 * Fields whose rewrite changes how the packet is parsed or summed: lengths,
 * protocols, offsets, fragmentation, checksums. "mod" refuses them.
 */
static bool structural(unsigned int id)
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
	if (mmb_parse(skb, &pkt) || mmb_rewrite_rule(skb, &pkt, rule)) {
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
				if (structural(f) || !applies(mmb_field(f), &d))
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
	KUNIT_ASSERT_EQ(test, mmb_rewrite_rule(skb, &pkt, rule), 0);
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

/* A rule of "all" with @n mod targets (field, value of up to 4 bytes). */
static struct mmb_rule *mods(struct kunit *test, unsigned int n, const u16 *field,
			     const u32 *value)
{
	struct mmb_rule_spec *spec = kunit_kzalloc(test, sizeof(*spec), GFP_KERNEL);
	struct mmb_rule *rule;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, spec);
	spec->nmatches = 1;
	spec->m[0].field = MMB_FIELD_ALL;
	spec->ntargets = n;
	for (i = 0; i < n; i++) {
		struct mmb_target_spec *t = &spec->t[i];
		u32 v = value[i];
		int k;

		t->type = MMB_TARGET_MOD;
		t->field = field[i];
		t->plen = mmb_field(field[i])->bits;
		t->vlen = mmb_field_size(t->plen);
		for (k = t->vlen - 1; k >= 0; k--, v >>= 8)
			t->value[k] = v;
	}
	rule = mmb_rule_create(spec, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	return rule;
}

/*
 * A VXLAN packet as a local tunnel hands it to a veth: outer IPv4 + UDP +
 * VXLAN + inner Ethernet, then an inner TCP packet whose checksum is left
 * to offload (CHECKSUM_PARTIAL, csum_start at the inner TCP header; the
 * field holds the inner pseudo-header's sum). The outer UDP checksum is 0
 * (none), or, with @outer_csum, computed in full as udp_set_csum() does
 * (local checksum offload: as if the inner checksum were filled in).
 */
#define VXLAN_OUTER	(20 + 8 + 8 + ETH_HLEN)

static struct sk_buff *vxlan_packet(struct kunit *test, bool outer_csum)
{
	struct mmbt_pkt_desc d = kinds[0];
	struct sk_buff *in, *skb;
	struct iphdr *iph, *iiph;
	struct tcphdr *th;
	struct udphdr *uh;
	unsigned int ilen;

	fill(&d);
	in = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, in);
	ilen = in->len;
	skb = alloc_skb(VXLAN_OUTER + ilen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, VXLAN_OUTER);
	skb_put_data(skb, in->data, ilen);
	kfree_skb(in);
	iph = (struct iphdr *)skb->data;
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(skb->len);
	iph->saddr = htonl(0x0a000102);
	iph->daddr = htonl(0x0a000202);
	ip_send_check(iph);
	uh = (struct udphdr *)(iph + 1);
	uh->source = htons(40001);
	uh->dest = htons(4789);
	uh->len = htons(skb->len - 20);
	skb->data[28] = 0x08;				/* VXLAN: VNI valid */
	skb->data[28 + 8 + 12] = 0x08;			/* inner EtherType IPv4 */
	iiph = (struct iphdr *)(skb->data + VXLAN_OUTER);
	th = (struct tcphdr *)((u8 *)iiph + iiph->ihl * 4);
	skb->protocol = htons(ETH_P_IP);
	skb->dev = init_net.loopback_dev;
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, 20);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = (u8 *)th - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);
	th->check = ~tcp_v4_check(skb->len - ((u8 *)th - skb->data), iiph->saddr,
				  iiph->daddr, 0);
	if (outer_csum) {
		uh->check = udp_v4_check(skb->len - 20, iph->saddr, iph->daddr,
					 lco_csum(skb));
		if (!uh->check)
			uh->check = CSUM_MANGLED_0;
	}
	return skb;
}

/* The outer UDP checksum once the offload filled in the inner one. */
static bool vxlan_outer_csum_ok(struct sk_buff *skb)
{
	struct iphdr *iph = ip_hdr(skb), *iiph = (struct iphdr *)(skb->data + VXLAN_OUTER);
	unsigned int tlen = skb->len - VXLAN_OUTER - iiph->ihl * 4;
	struct tcphdr *th = (struct tcphdr *)((u8 *)iiph + iiph->ihl * 4);
	struct udphdr *uh = (struct udphdr *)(iph + 1);
	__sum16 inner;

	th->check = 0;
	inner = tcp_v4_check(tlen, iiph->saddr, iiph->daddr, csum_partial(th, tlen, 0));
	th->check = inner;
	return !udp_v4_check(skb->len - 20, iph->saddr, iph->daddr,
			     csum_partial(uh, skb->len - 20, 0));
}

/*
 * Outer addresses and ports of a tunnel packet rewritten while the inner
 * checksum is offloaded: the outer UDP checksum is this packet's own
 * (none, or complete), not a pseudo-header seed, and the inner seed is
 * not touched.
 */
static void rewrite_tunnel_offload_test(struct kunit *test)
{
	static const u16 field[] = { MMB_FIELD_IP_SADDR, MMB_FIELD_UDP_SPORT, MMB_FIELD_IP_TTL };
	static const u32 value[] = { 0x0a0001fe, 50000, 9 };
	struct mmb_rule *rule = mods(test, ARRAY_SIZE(field), field, value);
	unsigned int csum;

	for (csum = 0; csum < 2; csum++) {
		struct sk_buff *skb = vxlan_packet(test, csum);
		struct iphdr *iiph = (struct iphdr *)(skb->data + VXLAN_OUTER);
		struct tcphdr *th = (struct tcphdr *)((u8 *)iiph + iiph->ihl * 4);
		__sum16 seed = th->check;
		struct mmb_pkt pkt;

		KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
		KUNIT_ASSERT_EQ(test, mmb_rewrite_rule(skb, &pkt, rule), 0);
		KUNIT_EXPECT_EQ(test, ntohl(ip_hdr(skb)->saddr), 0x0a0001fe);
		KUNIT_EXPECT_EQ(test, ntohs(((struct udphdr *)(ip_hdr(skb) + 1))->source), 50000);
		KUNIT_EXPECT_EQ(test, ip_fast_csum(ip_hdr(skb), 5), 0);
		KUNIT_EXPECT_EQ(test, th->check, seed);
		if (csum)
			KUNIT_EXPECT_TRUE(test, vxlan_outer_csum_ok(skb));
		else
			KUNIT_EXPECT_EQ(test, ((struct udphdr *)(ip_hdr(skb) + 1))->check, 0);
		kfree_skb(skb);
	}

	/*
	 * A GSO tunnel packet with outer checksums: the outer field is the
	 * outer pseudo-header's sum, which segmentation completes.
	 */
	{
		struct sk_buff *skb = vxlan_packet(test, false);
		struct udphdr *uh = (struct udphdr *)(ip_hdr(skb) + 1);
		struct mmb_pkt pkt;

		uh->check = ~udp_v4_check(skb->len - 20, ip_hdr(skb)->saddr,
					  ip_hdr(skb)->daddr, 0);
		skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4 | SKB_GSO_UDP_TUNNEL_CSUM;
		skb_shinfo(skb)->gso_size = 100;
		skb_shinfo(skb)->gso_segs = 1;
		KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
		KUNIT_ASSERT_EQ(test, mmb_rewrite_rule(skb, &pkt, rule), 0);
		uh = (struct udphdr *)(ip_hdr(skb) + 1);
		KUNIT_EXPECT_EQ(test, uh->check,
				(__sum16)~udp_v4_check(skb->len - 20, ip_hdr(skb)->saddr,
						       ip_hdr(skb)->daddr, 0));
		kfree_skb(skb);
	}
	mmb_rule_free(rule);
}

/*
 * An L3 rewrite of a packet without an L4 checksum (a later fragment)
 * whose IPv4 header lies in a page fragment but for its first 8 bytes, as
 * some drivers build skbs: the header checksum must be written in the
 * packet, not past the linear data.
 */
static void rewrite_header_in_frag_test(struct kunit *test)
{
	static const u16 field[] = { MMB_FIELD_IP_TTL };
	static const u32 value[] = { 7 };
	struct mmb_rule *rule = mods(test, 1, field, value);
	struct mmbt_pkt_desc d = kinds[0];
	struct sk_buff *flat, *skb;
	struct mmb_pkt pkt;
	struct page *page;

	fill(&d);
	d.frag_off = 100;
	flat = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, flat);
	page = alloc_page(GFP_KERNEL);
	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_data(skb, flat->data, 8);
	memcpy(page_address(page), flat->data + 8, flat->len - 8);
	skb_fill_page_desc(skb, 0, page, 0, flat->len - 8);
	skb->len += flat->len - 8;
	skb->data_len = flat->len - 8;
	skb->truesize += PAGE_SIZE;
	skb->protocol = htons(ETH_P_IP);
	skb->dev = init_net.loopback_dev;
	skb_reset_network_header(skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_EQ(test, mmb_rewrite_rule(skb, &pkt, rule), 0);
	KUNIT_ASSERT_EQ(test, skb_linearize(skb), 0);
	KUNIT_EXPECT_EQ(test, ip_hdr(skb)->ttl, 7);
	KUNIT_EXPECT_EQ(test, ip_fast_csum(skb->data, ip_hdr(skb)->ihl), 0);
	kfree_skb(skb);
	kfree_skb(flat);
	mmb_rule_free(rule);
}

/* Headers of a TCP segment whose data @skb points at. */
static bool seg_ok(struct kunit *test, struct sk_buff *seg, u8 ttl, u16 win)
{
	int hlen = -skb_network_offset(seg);
	struct iphdr *iph = ip_hdr(seg);
	struct tcphdr *th = (struct tcphdr *)((u8 *)iph + iph->ihl * 4);
	bool ok;

	__skb_push(seg, hlen);
	ok = iph->ttl == ttl && ntohs(th->window) == win &&
	     mmbt_csums_ok(seg, false, iph->ihl * 4, IPPROTO_TCP);
	__skb_pull(seg, hlen);
	return ok;
}

/*
 * A fraglist GRO packet of three TCP segments, each with its own headers
 * (the second one also held by someone else, as a tap holds it):
 * segmentation takes only addresses and ports from the first, so every
 * segment must carry TTL and window rewrites, and the shared one must be
 * left alone (a private copy takes its place).
 */
static void rewrite_fraglist_test(struct kunit *test)
{
	static const u16 field[] = { MMB_FIELD_IP_TTL, MMB_FIELD_TCP_WIN };
	static const u32 value[] = { 9, 1000 };
	struct mmb_rule *rule = mods(test, 2, field, value);
	struct mmb_verdict v = { .nrw = 1, .rw = { rule } };
	struct mmbt_pkt_desc d = kinds[0];
	struct sk_buff *head, *seg[2], *held, *s;
	struct mmb_pkt pkt;
	unsigned int i, n;

	fill(&d);
	d.l3_opt_len = 0;
	head = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, head);
	for (i = 0; i < 2; i++) {
		d.seq += d.payload_len;
		seg[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
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
	held = skb_get(seg[0]);

	KUNIT_ASSERT_EQ(test, mmb_parse(head, &pkt), 0);
	KUNIT_ASSERT_EQ(test, mmb_rewrite(head, &pkt, &v), 0);
	KUNIT_EXPECT_EQ(test, ip_hdr(head)->ttl, 9);
	n = 0;
	skb_walk_frags(head, s) {
		KUNIT_EXPECT_TRUE_MSG(test, seg_ok(test, s, 9, 1000), "segment %u", n + 2);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_PTR_NE(test, skb_shinfo(head)->frag_list, held);
	KUNIT_EXPECT_TRUE(test, seg_ok(test, held, 64, 512));
	kfree_skb(held);
	kfree_skb(head);
	mmb_rule_free(rule);
}

/* A mod of a structural field is refused, and names the field. */
static void rewrite_structural_refused_test(struct kunit *test)
{
	struct mmb_rule_spec *spec = kunit_kzalloc(test, sizeof(*spec), GFP_KERNEL);
	struct mmb_rule_err err;
	struct mmb_rule *rule;
	unsigned int f, refused = 0;

	KUNIT_ASSERT_NOT_NULL(test, spec);
	for (f = 0; f <= MMB_FIELD_MAX; f++) {
		const struct mmb_field_info *fi = mmb_field(f);

		if (fi->hdr != MMB_HDR_L3 && fi->hdr != MMB_HDR_L4)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, !!(fi->flags & MMB_FIELD_F_NO_MOD), structural(f),
				    "%s", fi->name);
		memset(spec, 0, sizeof(*spec));
		spec->nmatches = 1;
		spec->m[0].field = MMB_FIELD_ALL;
		spec->ntargets = 1;
		spec->t[0].type = MMB_TARGET_MOD;
		spec->t[0].field = f;
		spec->t[0].plen = fi->bits;
		spec->t[0].vlen = mmb_field_size(fi->bits);
		err.msg = NULL;
		rule = mmb_rule_create(spec, NULL, &err);
		if (!structural(f)) {
			KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(rule), "%s", fi->name);
			if (!IS_ERR(rule))
				mmb_rule_free(rule);
			continue;
		}
		refused++;
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(rule), -EINVAL, "%s", fi->name);
		KUNIT_EXPECT_NOT_NULL_MSG(test, err.msg, "%s", fi->name);
		KUNIT_EXPECT_EQ_MSG(test, err.part, MMB_ERR_TARGET_FIELD, "%s", fi->name);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(err.text, fi->name),
					  "%s: \"%s\"", fi->name, err.text);
	}
	KUNIT_EXPECT_EQ(test, refused, 17);
}

/*
 * A connection's mapping as NAT wrote it field by field: each address that
 * differs, then each port (mmb_rewrite_field()); the naive form of
 * mmb_rewrite_ends().
 */
static int ends_naive(struct sk_buff *skb, const struct mmb_pkt *pkt, u8 manip,
		      const u8 *sa, __be16 sp, const u8 *da, __be16 dp)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	bool tcp = pkt->key.b[MMB_IMG_L4PROTO] == IPPROTO_TCP;
	unsigned int alen = v4 ? 4 : 16, so = v4 ? 12 : 8, dof = v4 ? 16 : 24;
	int err = 0;

	if ((manip & MMB_MANIP_SRC) && memcmp(skb->data + so, sa, alen))
		err = mmb_rewrite_field(skb, pkt, v4 ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP6_SADDR,
					sa, alen, alen * 8);
	if (!err && (manip & MMB_MANIP_DST) && memcmp(skb->data + dof, da, alen))
		err = mmb_rewrite_field(skb, pkt, v4 ? MMB_FIELD_IP_DADDR : MMB_FIELD_IP6_DADDR,
					da, alen, alen * 8);
	if (!err && (manip & MMB_MANIP_SRC) &&
	    get_unaligned((__be16 *)(skb->data + pkt->l4off)) != sp)
		err = mmb_rewrite_field(skb, pkt, tcp ? MMB_FIELD_TCP_SPORT : MMB_FIELD_UDP_SPORT,
					(const u8 *)&sp, 2, 16);
	if (!err && (manip & MMB_MANIP_DST) &&
	    get_unaligned((__be16 *)(skb->data + pkt->l4off + 2)) != dp)
		err = mmb_rewrite_field(skb, pkt, tcp ? MMB_FIELD_TCP_DPORT : MMB_FIELD_UDP_DPORT,
					(const u8 *)&dp, 2, 16);
	return err;
}

/* A new value for an address (or a port) of @len bytes: the same, one word changed, or any. */
static void ends_value(struct rnd_state *rs, u8 *v, const u8 *cur, unsigned int len)
{
	unsigned int i, how = prandom_u32_state(rs) % 3;

	memcpy(v, cur, len);
	if (how == 1) {
		i = prandom_u32_state(rs) % (len / 2) * 2;
		v[i] ^= 1 + prandom_u32_state(rs) % 255;
	} else if (how == 2) {
		for (i = 0; i < len; i++)
			v[i] = prandom_u32_state(rs);
	}
}

/*
 * mmb_rewrite_ends(), a connection's mapping of addresses and ports in one
 * step, against the same mapping field by field (ends_naive()): the same
 * bytes, ip_summed and skb->csum, on random TCP and UDP packets (IPv4 with
 * and without options, IPv6 with and without an extension header, UDP
 * without a checksum in both), with each ip_summed (none; complete; partial with the
 * field a seed; partial at another header, the field a checksum), cloned
 * or not, and random mappings of either side or both, some of whose words
 * stay. And the checksums of those with none left to offload are valid.
 */
static void rewrite_ends_differential_test(struct kunit *test)
{
	static const struct mmbt_pkt_desc shapes[] = {
		{ .proto = IPPROTO_TCP, .ttl = 64, .tcp_flags = 0x10, .payload_len = 20 },
		{ .proto = IPPROTO_TCP, .ttl = 64, .tcp_flags = 0x10, .l3_opt_len = 4,
		  .tcp_opt_len = 12, .tcp_opts = opts, .payload_len = 33 },
		{ .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 },
		{ .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 9, .no_udp_csum = true },
		{ .v6 = true, .proto = IPPROTO_TCP, .ttl = 64, .tcp_flags = 0x10,
		  .l3_opt_len = 8, .payload_len = 31 },
		{ .v6 = true, .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 12 },
		/* Not valid in IPv6, but a sender can send it: left as it is. */
		{ .v6 = true, .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 7,
		  .no_udp_csum = true },
	};
	unsigned int n, same = 0, changed = 0, valid = 0, modes[4] = {};
	struct rnd_state rs;

	prandom_seed_state(&rs, 38);
	for (n = 0; n < 4000; n++) {
		struct mmbt_pkt_desc d = shapes[prandom_u32_state(&rs) % ARRAY_SIZE(shapes)];
		unsigned int mode = prandom_u32_state(&rs) % 4, alen = d.v6 ? 16 : 4, i;
		u8 manip = 1 + prandom_u32_state(&rs) % 3, sa[16], da[16], orig[160];
		bool cloned = !(prandom_u32_state(&rs) % 4);
		struct sk_buff *a, *b, *ca = NULL, *cb = NULL;
		struct mmb_pkt pa, pb;
		u32 r = prandom_u32_state(&rs) & 0xffff;
		__be16 sp, dp, port;
		unsigned int l4off;

		for (i = 0; i < 16; i++) {
			d.saddr[i] = prandom_u32_state(&rs);
			d.daddr[i] = prandom_u32_state(&rs);
		}
		d.sport = prandom_u32_state(&rs);
		d.dport = prandom_u32_state(&rs);
		d.seq = prandom_u32_state(&rs);
		d.payload_seed = prandom_u32_state(&rs);
		a = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, a);
		KUNIT_ASSERT_EQ(test, mmb_parse(a, &pa), 0);
		l4off = pa.l4off;
		if (mode == 1) {
			a->ip_summed = CHECKSUM_COMPLETE;
			a->csum = csum_partial(a->data, a->len, (__force __wsum)r);
		} else if (mode == 2 && !d.no_udp_csum) {
			/* The field holds the pseudo-header's sum. */
			unsigned int f = d.proto == IPPROTO_TCP ? offsetof(struct tcphdr, check) :
				offsetof(struct udphdr, check), len = a->len - l4off;
			__sum16 seed = d.v6 ?
				~csum_ipv6_magic(&ipv6_hdr(a)->saddr, &ipv6_hdr(a)->daddr, len,
						 d.proto, 0) :
				~csum_tcpudp_magic(ip_hdr(a)->saddr, ip_hdr(a)->daddr, len,
						   d.proto, 0);

			a->ip_summed = CHECKSUM_PARTIAL;
			a->csum_start = a->data + l4off - a->head;
			a->csum_offset = f;
			put_unaligned(seed, (__sum16 *)(a->data + l4off + f));
		} else if (mode == 3 || mode == 2) {
			/* Another header's offload (a tunnel's inner): in the payload. */
			mode = 3;
			a->ip_summed = CHECKSUM_PARTIAL;
			a->csum_start = a->data + pa.l7off - a->head;
			a->csum_offset = 0;
		}
		modes[mode]++;
		b = skb_copy(a, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, b);
		if (cloned) {
			ca = skb_clone(a, GFP_KERNEL);
			cb = skb_clone(b, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, ca);
			KUNIT_ASSERT_NOT_NULL(test, cb);
		}
		KUNIT_ASSERT_EQ(test, mmb_parse(b, &pb), 0);
		KUNIT_ASSERT_LE(test, a->len, sizeof(orig));
		memcpy(orig, a->data, a->len);
		ends_value(&rs, sa, a->data + (d.v6 ? 8 : 12), alen);
		ends_value(&rs, da, a->data + (d.v6 ? 24 : 16), alen);
		port = get_unaligned((__be16 *)(a->data + l4off));
		ends_value(&rs, (u8 *)&sp, (u8 *)&port, 2);
		port = get_unaligned((__be16 *)(a->data + l4off + 2));
		ends_value(&rs, (u8 *)&dp, (u8 *)&port, 2);

		KUNIT_ASSERT_EQ(test, ends_naive(a, &pa, manip, sa, sp, da, dp), 0);
		KUNIT_ASSERT_EQ(test, mmb_rewrite_ends(b, &pb, manip, sa, sp, da, dp), 0);
		KUNIT_ASSERT_EQ(test, a->len, b->len);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(a->data, b->data, a->len), 0,
				    "case %u: mode %u manip %u v6 %d proto %u", n, mode, manip,
				    d.v6, d.proto);
		KUNIT_EXPECT_EQ(test, (int)a->ip_summed, (int)b->ip_summed);
		/* The same sum, if not in the same 32 bits. */
		if (a->ip_summed == CHECKSUM_COMPLETE)
			KUNIT_EXPECT_EQ(test, (__force u16)csum_fold(a->csum),
					(__force u16)csum_fold(b->csum));
		if (a->ip_summed == CHECKSUM_PARTIAL)
			KUNIT_EXPECT_EQ(test, skb_checksum_start_offset(a),
					skb_checksum_start_offset(b));
		if (!memcmp(orig, b->data, b->len))
			same++;
		else
			changed++;
		if (mode < 2 && d.v6 && d.no_udp_csum) {
			KUNIT_EXPECT_EQ(test, get_unaligned((u16 *)(b->data + l4off + 6)), 0);
			valid++;
		} else if (mode < 2) {
			KUNIT_EXPECT_TRUE(test, mmbt_csums_ok(b, d.v6, l4off, d.proto));
			valid++;
		}
		/* skb->csum still sums the packet as it now is. */
		if (mode == 1)
			KUNIT_EXPECT_EQ(test, (__force u16)csum_fold(b->csum),
					(__force u16)csum_fold(csum_partial(b->data, b->len,
									    (__force __wsum)r)));
		/* A clone's data stays as it was. */
		if (cloned)
			KUNIT_EXPECT_EQ(test, memcmp(cb->data, orig, cb->len), 0);
		kfree_skb(ca);
		kfree_skb(cb);
		kfree_skb(a);
		kfree_skb(b);
	}
	kunit_info(test, "%u changed, %u unchanged, %u checked in full; modes %u %u %u %u",
		   changed, same, valid, modes[0], modes[1], modes[2], modes[3]);
	KUNIT_EXPECT_GT(test, changed, 3000);
	KUNIT_EXPECT_GT(test, modes[2], 500);
	KUNIT_EXPECT_GT(test, modes[3], 500);
}

static struct kunit_case mmb_rewrite_cases[] = {
	KUNIT_CASE(rewrite_all_fields_test),
	KUNIT_CASE(rewrite_partial_test),
	KUNIT_CASE(rewrite_ends_differential_test),
	KUNIT_CASE(rewrite_structural_refused_test),
	KUNIT_CASE(rewrite_tunnel_offload_test),
	KUNIT_CASE(rewrite_header_in_frag_test),
	KUNIT_CASE(rewrite_fraglist_test),
	{}
};

static struct kunit_suite mmb_rewrite_suite = {
	.name = "mmb-rewrite",
	.test_cases = mmb_rewrite_cases,
};

kunit_test_suites(&mmb_rewrite_suite);
