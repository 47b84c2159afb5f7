// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: TCP option lists rebuilt (strip, add, mods that change a
 * length). Each packet that comes out is compared byte for byte with the
 * packet built with the expected options from the start (its lengths and
 * checksums computed in full), in every ip_summed state; GSO packets are
 * segmented afterwards and every segment checked; random lists and
 * targets are compared with a naive reference written apart from the
 * datapath's code.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/prandom.h>
#include <net/gso.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "../kmod/rewrite.h"
#include "../kmod/ruleset.h"
#include "util.h"

static void to_free_rule(void *rule)
{
	mmb_rule_free(rule);
}

/* A rule of "all" with these targets, freed when the test ends. */
static struct mmb_rule *to_rule(struct kunit *test, const struct mmbt_target *t,
				unsigned int nt)
{
	const struct mmb_match_spec all = { .field = MMB_FIELD_ALL };
	struct mmb_rule *rule = mmbt_rule_make(test, false, &all, 1, t, nt);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, to_free_rule, rule), 0);
	return rule;
}

/* Targets, written short. */
#define STRIP(f)	{ .type = MMB_TARGET_STRIP, .field = MMB_FIELD_TCP_OPT_##f }
#define KEEP(f)		{ .type = MMB_TARGET_STRIP, .field = MMB_FIELD_TCP_OPT_##f, .invert = true }
#define STRIP_ALL	{ .type = MMB_TARGET_STRIP, .field = MMB_FIELD_TCP_OPT }
#define ADD_MSS(hi, lo)	{ .type = MMB_TARGET_ADD, .field = MMB_FIELD_TCP_OPT_MSS, .vlen = 2, \
			  .value = { hi, lo } }
#define ADD_SACKP	{ .type = MMB_TARGET_ADD, .field = MMB_FIELD_TCP_OPT_SACKP }
#define KIND(t, k, n, ...) { .type = MMB_TARGET_##t, .field = MMB_FIELD_TCP_OPT, .kind = (k), \
			  .vlen = (n), .value = { __VA_ARGS__ } }

/*
 * Linux's SYN options are MSS 1460, SACK-permitted, timestamps (8, 10,
 * ...), a NOP and window scale 7.
 */

struct to_case {
	const char *name;
	u8 in[40], nin;
	struct mmbt_target t[4];
	unsigned int nt;
	u8 out[40], nout;	/* as built */
	u64 nofit;
};

static const struct to_case to_cases[] = {
	{ "strip tcp-opt-mss add tcp-opt-mss 1452",
	  { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 3, 7 }, 20,
	  { STRIP(MSS), ADD_MSS(0x05, 0xac) }, 2,
	  { 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 3, 3, 7, 2, 4, 0x05, 0xac, 0 }, 20 },
	{ "strip ! tcp-opt-mss strip ! tcp-opt-wscale",
	  { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 3, 7 }, 20,
	  { KEEP(MSS), KEEP(WSCALE) }, 2, { 2, 4, 0x05, 0xb4, 3, 3, 7, 0 }, 8 },
	{ "strip all", { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 3, 7 }, 20,
	  { STRIP_ALL }, 1, {}, 0 },
	{ "strip tcp-opt-timestamp (data segment)", { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 }, 12,
	  { STRIP(TIMESTAMP) }, 1, {}, 0 },
	{ "add tcp-opt 253 0xabcd", { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 }, 12,
	  { KIND(ADD, 253, 2, 0xab, 0xcd) }, 1,
	  { 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 253, 4, 0xab, 0xcd, 0, 0 }, 16 },
	{ "add tcp-opt-sackp to a list without", { 2, 4, 0x05, 0xb4 }, 4,
	  { ADD_SACKP }, 1, { 2, 4, 0x05, 0xb4, 4, 2, 0, 0 }, 8 },
	{ "add to no options at all", {}, 0, { ADD_MSS(0x02, 0x18) }, 1, { 2, 4, 2, 24 }, 4 },
	{ "mod tcp-opt 253, longer", { 253, 4, 1, 2 }, 4,
	  { KIND(MOD, 253, 6, 9, 8, 7, 6, 5, 4) }, 1, { 253, 8, 9, 8, 7, 6, 5, 4 }, 8 },
	{ "mod tcp-opt-timestamp, same size, NOPs dropped", { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 },
	  12,
	  { { .type = MMB_TARGET_MOD, .field = MMB_FIELD_TCP_OPT_TIMESTAMP, .vlen = 8,
	      .value = { 9, 9, 9, 9, 0, 0, 0, 1 } } }, 1,
	  { 8, 10, 9, 9, 9, 9, 0, 0, 0, 1, 0, 0 }, 12 },
	{ "strip an option not there: untouched", { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 }, 12,
	  { STRIP(SACK) }, 1, { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 }, 12 },
	{ "add an option there already: untouched",
	  { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 3, 7 }, 20,
	  { ADD_MSS(0x04, 0xb0) }, 1,
	  { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 3, 7 }, 20 },
	{ "add to a full list: counted, untouched",
	  { 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 5, 26, [36] = 3, 3, 7, 0 }, 40,
	  { ADD_MSS(0x05, 0x78) }, 1, { 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 5, 26, [36] = 3, 3, 7, 0 },
	  40, 1 },
	{ "add what fits and count what does not", { 5, 34 }, 36,
	  { ADD_SACKP, KIND(ADD, 8, 8, 1, 2, 3, 4, 5, 6, 7, 8) }, 2,
	  { 5, 34, [34] = 4, 2 }, 36, 1 },
	{ "a malformed list is left alone", { 2, 4, 0x05, 0xb4, 8, 12, 0, 0 }, 8,
	  { STRIP(MSS) }, 1, { 2, 4, 0x05, 0xb4, 8, 12, 0, 0 }, 8 },
	{ "after the end of the list: padding, dropped", { 3, 3, 7, 0, 0xff, 0xff, 0xff, 0xff }, 8,
	  { STRIP(MSS), ADD_SACKP }, 2, { 3, 3, 7, 4, 2, 0, 0, 0 }, 8 },
	{ "add before strip in a rule: strip applies first", { 2, 4, 0x05, 0xb4 }, 4,
	  { ADD_MSS(0x03, 0xe8), STRIP(MSS) }, 2, { 2, 4, 0x03, 0xe8 }, 4 },
};

static const u8 to_src4[4] = { 10, 0, 0, 1 }, to_dst4[4] = { 10, 0, 0, 2 };
static const u8 to_src6[16] = { 0xfd, [15] = 1 }, to_dst6[16] = { 0xfd, [15] = 2 };

static struct mmbt_pkt_desc to_desc(bool v6, const u8 *opts, unsigned int nopts,
				    unsigned int payload)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = IPPROTO_TCP, .ttl = 64, .sport = 40000, .dport = 80,
		.tcp_flags = TCPHDR_ACK, .seq = 7, .payload_len = payload, .payload_seed = 3,
		.tcp_opts = opts, .tcp_opt_len = nopts,
	};

	memcpy(d.saddr, v6 ? to_src6 : to_src4, v6 ? 16 : 4);
	memcpy(d.daddr, v6 ? to_dst6 : to_dst4, v6 ? 16 : 4);
	return d;
}

/* The pseudo-header sum a CHECKSUM_PARTIAL packet carries in its field. */
static __sum16 to_seed(const struct sk_buff *skb, bool v6, unsigned int l4off)
{
	unsigned int len = skb->len - l4off;

	if (v6)
		return ~tcp_v6_check(len, &ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr, 0);
	return ~tcp_v4_check(len, ip_hdr(skb)->saddr, ip_hdr(skb)->daddr, 0);
}

static void to_summed(struct sk_buff *skb, u8 summed, bool v6, unsigned int l4off)
{
	skb->ip_summed = summed;
	if (summed == CHECKSUM_COMPLETE)
		skb->csum = csum_partial(skb->data, skb->len, 0);
	if (summed == CHECKSUM_PARTIAL) {
		skb->csum_start = skb->data + l4off - skb->head;
		skb->csum_offset = offsetof(struct tcphdr, check);
		tcp_hdr(skb)->check = to_seed(skb, v6, l4off);
	}
}

/* @rules on @skb through the rewrite step, as the hook runs it. */
static int to_run(struct sk_buff *skb, struct mmb_rule **rules, unsigned int n)
{
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	unsigned int i;
	int err;

	err = mmb_parse(skb, &pkt);
	if (err)
		return err;
	mmb_verdict_init(&v);
	for (i = 0; i < n; i++)
		v.rw[v.nrw++] = rules[i];
	return mmb_rewrite(skb, &pkt, &v);
}

/*
 * @skb (in state @summed) against @want, built with valid checksums: the
 * same bytes, but for a CHECKSUM_PARTIAL packet's field, which must hold
 * its seed; a CHECKSUM_COMPLETE packet's sum must be its bytes'.
 */
static bool to_same(struct kunit *test, const char *name, struct sk_buff *skb,
		    struct sk_buff *want, u8 summed, bool v6)
{
	unsigned int l4off = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);

	if (summed == CHECKSUM_PARTIAL) {
		skb_set_transport_header(want, l4off);
		to_summed(want, CHECKSUM_PARTIAL, v6, l4off);
		if (skb_checksum_start_offset(skb) != l4off) {
			KUNIT_FAIL(test, "%s (v%d): csum_start moved off the TCP header", name,
				   v6 ? 6 : 4);
			return false;
		}
	}
	if (skb->len != want->len || skb_linearize(skb) ||
	    memcmp(skb->data, want->data, want->len)) {
		KUNIT_FAIL(test, "%s (v%d, summed %u): %u bytes, %u wanted, or others", name,
			   v6 ? 6 : 4, summed, skb->len, want->len);
		print_hex_dump(KERN_INFO, "got:  ", DUMP_PREFIX_OFFSET, 16, 1, skb->data,
			       min(skb->len, 96U), false);
		print_hex_dump(KERN_INFO, "want: ", DUMP_PREFIX_OFFSET, 16, 1, want->data,
			       min(want->len, 96U), false);
		return false;
	}
	if (summed == CHECKSUM_COMPLETE &&
	    csum_fold(skb->csum) != csum_fold(csum_partial(skb->data, skb->len, 0))) {
		KUNIT_FAIL(test, "%s (v%d): skb->csum is not the bytes' sum", name, v6 ? 6 : 4);
		return false;
	}
	return true;
}

/* Each case, IPv4 and IPv6, with and without payload, in each ip_summed state. */
static void tcpopt_cases_test(struct kunit *test)
{
	static const u8 summed[] = {
		CHECKSUM_NONE, CHECKSUM_UNNECESSARY, CHECKSUM_COMPLETE, CHECKSUM_PARTIAL,
	};
	static const unsigned int payloads[] = { 0, 1000 };
	unsigned int c, fam, p, s, n = 0, ok = 0;

	for (c = 0; c < ARRAY_SIZE(to_cases); c++) {
		const struct to_case *tc = &to_cases[c];
		struct mmb_rule *rule = to_rule(test, tc->t, tc->nt);

		for (fam = 0; fam < 2; fam++) {
			for (p = 0; p < ARRAY_SIZE(payloads); p++) {
				for (s = 0; s < ARRAY_SIZE(summed); s++) {
					struct mmbt_pkt_desc din, dout;
					struct sk_buff *skb, *want;
					unsigned int l4off = fam ? 40 : 20;

					din = to_desc(fam, tc->in, tc->nin, payloads[p]);
					dout = to_desc(fam, tc->out, tc->nout, payloads[p]);
					skb = mmbt_pkt_build(init_net.loopback_dev, &din);
					want = mmbt_pkt_build(init_net.loopback_dev, &dout);
					KUNIT_ASSERT_NOT_NULL(test, skb);
					KUNIT_ASSERT_NOT_NULL(test, want);
					skb_set_transport_header(skb, l4off);
					to_summed(skb, summed[s], fam, l4off);
					n++;
					if (to_run(skb, &rule, 1))
						KUNIT_FAIL(test, "%s: rewrite failed", tc->name);
					else
						ok += to_same(test, tc->name, skb, want,
							      summed[s], fam);
					kfree_skb(skb);
					kfree_skb(want);
				}
			}
		}
		/* Counted once per packet it did not fit: 16 packets a case. */
		KUNIT_EXPECT_EQ_MSG(test, rule->opts ? (u64)atomic64_read(mmb_rule_nofit(rule)) : 0,
				    tc->nofit * 16, "%s", tc->name);
	}
	KUNIT_EXPECT_EQ(test, ok, n);
}

/*
 * A GSO packet (a TSO or GRO super-packet, CHECKSUM_PARTIAL) whose header
 * grows: gso_size drops by as much, and segmenting it gives segments no
 * larger than before, each with the option, valid checksums, and the
 * payload in order.
 */
static void tcpopt_gso_test(struct kunit *test)
{
	static const struct mmbt_target t[] = { KIND(ADD, 253, 6, 1, 2, 3, 4, 5, 6) };
	static const u8 opts[] = { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct mmb_rule *rule = to_rule(test, t, 1);
	unsigned int fam, mss = 1000, payload = 3500;

	for (fam = 0; fam < 2; fam++) {
		struct mmbt_pkt_desc d = to_desc(fam, opts, sizeof(opts), payload);
		unsigned int l4off = fam ? 40 : 20, hdr = l4off + 20 + 12, segs = 0, got = 0;
		struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, &d), *segl, *seg;
		struct skb_shared_info *sh;

		KUNIT_ASSERT_NOT_NULL(test, skb);
		skb_set_transport_header(skb, l4off);
		to_summed(skb, CHECKSUM_PARTIAL, fam, l4off);
		sh = skb_shinfo(skb);
		sh->gso_size = mss;
		sh->gso_type = fam ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
		sh->gso_segs = DIV_ROUND_UP(payload, mss);
		KUNIT_ASSERT_EQ(test, to_run(skb, &rule, 1), 0);
		sh = skb_shinfo(skb);
		KUNIT_EXPECT_EQ(test, sh->gso_size, mss - 8);
		KUNIT_EXPECT_EQ(test, sh->gso_segs, DIV_ROUND_UP(payload, mss - 8));
		KUNIT_EXPECT_TRUE(test, sh->gso_type & SKB_GSO_DODGY);
		KUNIT_EXPECT_EQ(test, (unsigned int)tcp_hdr(skb)->doff, (20 + 20) / 4);
		KUNIT_EXPECT_EQ(test, tcp_hdr(skb)->check, to_seed(skb, fam, l4off));

		skb_reset_mac_header(skb);
		skb->mac_len = 0;
		segl = skb_gso_segment(skb, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segl));
		skb_list_walk_safe(segl, seg, segl) {
			struct tcphdr *th = (void *)(seg->data + l4off);
			unsigned int len = seg->len - l4off - th->doff * 4, i;
			const u8 *data = (u8 *)th + th->doff * 4;
			bool good = true;

			segs++;
			good &= seg->len <= mss + hdr;
			good &= th->doff == 10 && ((u8 *)th)[30] == 253 && ((u8 *)th)[31] == 8;
			good &= mmbt_csums_ok(seg, fam, l4off, IPPROTO_TCP);
			good &= ntohl(th->seq) == 7 + got;
			for (i = 0; i < len; i++)
				good &= data[i] == (u8)(3 + (got + i) * 7);
			got += len;
			if (!good)
				KUNIT_FAIL(test, "v%d: segment %u (%u bytes) not as it should be",
					   fam ? 6 : 4, segs, seg->len);
			kfree_skb(seg);
		}
		KUNIT_EXPECT_EQ(test, got, payload);
		KUNIT_EXPECT_EQ(test, segs, DIV_ROUND_UP(payload, mss - 8));
		kfree_skb(skb);
	}
}

/*
 * A fraglist GRO packet (forwarding's GRO: three TCP segments, each with
 * its own headers, the first's IP length that of them all): every segment
 * gets the option, and segmentation gives three packets, each with the
 * option, its own length and valid checksums.
 */
static void tcpopt_fraglist_test(struct kunit *test)
{
	static const struct mmbt_target t[] = { KIND(ADD, 253, 2, 0xab, 0xcd) };
	static const u8 opts[] = { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct mmb_rule *rule = to_rule(test, t, 1);
	struct mmbt_pkt_desc d = to_desc(false, opts, sizeof(opts), 500);
	struct sk_buff *head, *seg, *segl;
	unsigned int i, n = 0, got = 0;

	head = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, head);
	for (i = 0; i < 2; i++) {
		struct sk_buff **link = i ? &seg->next : &skb_shinfo(head)->frag_list;

		d.seq += d.payload_len;
		seg = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, seg);
		seg->ip_summed = CHECKSUM_UNNECESSARY;
		skb_set_transport_header(seg, 20);
		__skb_pull(seg, 20 + 20 + sizeof(opts));	/* at its data */
		head->len += seg->len;
		head->data_len += seg->len;
		head->truesize += seg->truesize;
		*link = seg;
	}
	skb_set_transport_header(head, 20);
	skb_shinfo(head)->gso_type = SKB_GSO_TCPV4 | SKB_GSO_FRAGLIST;
	skb_shinfo(head)->gso_size = d.payload_len;
	skb_shinfo(head)->gso_segs = 3;
	head->ip_summed = CHECKSUM_UNNECESSARY;
	ip_hdr(head)->tot_len = htons(head->len);
	ip_send_check(ip_hdr(head));

	KUNIT_ASSERT_EQ(test, to_run(head, &rule, 1), 0);
	/* The segments' headers are not in the packet's length. */
	KUNIT_EXPECT_EQ(test, head->len, 20 + 20 + 16 + 3 * 500);
	KUNIT_EXPECT_EQ(test, ntohs(ip_hdr(head)->tot_len), head->len);
	KUNIT_EXPECT_EQ(test, ip_fast_csum(ip_hdr(head), 5), 0);
	skb_walk_frags(head, seg) {	/* at their data, as before */
		KUNIT_EXPECT_EQ(test, seg->len, 500);
		KUNIT_EXPECT_EQ(test, -skb_network_offset(seg), 20 + 20 + 16);
	}

	skb_reset_mac_header(head);
	head->mac_len = 0;
	segl = skb_gso_segment(head, NETIF_F_SG | NETIF_F_GSO_FRAGLIST);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segl));
	skb_list_walk_safe(segl, seg, segl) {
		struct tcphdr *th;
		bool good;

		n++;
		KUNIT_ASSERT_EQ(test, skb_linearize(seg), 0);
		th = (void *)(seg->data + 20);
		good = seg->len == 20 + 20 + 16 + 500 &&
		       ntohs(ip_hdr(seg)->tot_len) == seg->len &&
		       th->doff == 9 && ((u8 *)th)[30] == 253 && ((u8 *)th)[31] == 4 &&
		       ntohl(th->seq) == 7 + got &&
		       mmbt_csums_ok(seg, false, 20, IPPROTO_TCP);
		if (!good)
			KUNIT_FAIL(test, "segment %u (%u bytes) not as it should be", n, seg->len);
		got += 500;
		kfree_skb(seg);
	}
	KUNIT_EXPECT_EQ(test, n, 3);
	kfree_skb(head);
}

/* --- differential: random lists and targets against a naive reference ---- */

/* An option list as the reference keeps it: [kind, data...] per option. */
struct to_ref {
	unsigned int n;
	struct {
		u8 kind, len, data[38];
	} o[20];
};

/* false: malformed (the reference leaves such a list alone too). */
static bool to_ref_read(struct to_ref *r, const u8 *o, unsigned int n)
{
	unsigned int i = 0;

	r->n = 0;
	while (i < n) {
		if (o[i] == 0)
			break;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
			return false;
		r->o[r->n].kind = o[i];
		r->o[r->n].len = o[i + 1] - 2;
		memcpy(r->o[r->n].data, o + i + 2, o[i + 1] - 2);
		r->n++;
		i += o[i + 1];
	}
	return true;
}

static unsigned int to_ref_bytes(const struct to_ref *r)
{
	unsigned int i, b = 0;

	for (i = 0; i < r->n; i++)
		b += 2 + r->o[i].len;
	return b;
}

static u8 to_kind(const struct mmbt_target *t)
{
	return t->field == MMB_FIELD_TCP_OPT ? t->kind : mmb_field(t->field)->hoff;
}

/* The semantics as documented, one rule: mods, strips, adds; *@nofit counted. */
static bool to_ref_apply(struct to_ref *r, const struct mmbt_target *t, unsigned int nt,
			 unsigned int *nofit)
{
	bool changed = false, any_keep = false;
	unsigned int i, j;

	for (i = 0; i < nt; i++) {
		if (t[i].type != MMB_TARGET_MOD)
			continue;
		for (j = 0; j < r->n && r->o[j].kind != to_kind(&t[i]); j++)
			;
		if (j == r->n || (r->o[j].len == t[i].vlen &&
				  !memcmp(r->o[j].data, t[i].value, t[i].vlen)))
			continue;
		if (to_ref_bytes(r) - r->o[j].len + t[i].vlen > 40) {
			++*nofit;
			continue;
		}
		r->o[j].len = t[i].vlen;
		memcpy(r->o[j].data, t[i].value, t[i].vlen);
		changed = true;
	}
	for (i = 0; i < nt; i++)
		any_keep |= t[i].type == MMB_TARGET_STRIP && t[i].invert;
	for (j = 0; j < r->n; j++) {
		bool strip = false, keep = false;

		for (i = 0; i < nt; i++) {
			if (t[i].type != MMB_TARGET_STRIP)
				continue;
			if (t[i].invert)
				keep |= to_kind(&t[i]) == r->o[j].kind;
			else
				strip |= !to_kind(&t[i]) || to_kind(&t[i]) == r->o[j].kind;
		}
		if (strip || (any_keep && !keep)) {
			for (i = j; i + 1 < r->n; i++)
				r->o[i] = r->o[i + 1];
			r->n--;
			j--;
			changed = true;
		}
	}
	for (i = 0; i < nt; i++) {
		if (t[i].type != MMB_TARGET_ADD)
			continue;
		for (j = 0; j < r->n && r->o[j].kind != to_kind(&t[i]); j++)
			;
		if (j < r->n)
			continue;
		if (to_ref_bytes(r) + 2 + t[i].vlen > 40) {
			++*nofit;
			continue;
		}
		r->o[r->n].kind = to_kind(&t[i]);
		r->o[r->n].len = t[i].vlen;
		memcpy(r->o[r->n].data, t[i].value, t[i].vlen);
		r->n++;
		changed = true;
	}
	return changed;
}

static unsigned int to_ref_write(const struct to_ref *r, u8 *o)
{
	unsigned int i, p = 0;

	for (i = 0; i < r->n; i++) {
		o[p] = r->o[i].kind;
		o[p + 1] = r->o[i].len + 2;
		memcpy(o + p + 2, r->o[i].data, r->o[i].len);
		p += 2 + r->o[i].len;
	}
	for (; p % 4; p++)
		o[p] = 0;
	return p;
}

/* Kinds to draw from: named ones, two of no name. */
static const u8 to_kinds[] = { 2, 3, 4, 5, 8, 34, 30, 200, 253 };

/* An option's data of a size its kind takes. */
static unsigned int to_rand_data(struct rnd_state *rs, u8 kind, u8 *data)
{
	unsigned int len, i;

	switch (kind) {
	case 2:
		len = 2;
		break;
	case 3:
		len = 1;
		break;
	case 4:
		len = 0;
		break;
	case 5:
		len = 8 * (1 + prandom_u32_state(rs) % 3);
		break;
	case 8:
		len = 8;
		break;
	case 34:
		len = 4 * (prandom_u32_state(rs) % 2);
		break;
	case 30:
		len = 1 + prandom_u32_state(rs) % 6;
		break;
	default:
		len = prandom_u32_state(rs) % 7;
	}
	for (i = 0; i < len; i++)
		data[i] = prandom_u32_state(rs);
	return len;
}

/* A random list of at most 40 bytes, NOPs here and there, a multiple of 4. */
static unsigned int to_rand_list(struct rnd_state *rs, u8 *o)
{
	unsigned int p = 0, want = prandom_u32_state(rs) % 6, i;
	u8 data[38];

	for (i = 0; i < want; i++) {
		u8 kind = to_kinds[prandom_u32_state(rs) % ARRAY_SIZE(to_kinds)];
		unsigned int len = to_rand_data(rs, kind, data);

		if (!(prandom_u32_state(rs) % 3) && p < 40)
			o[p++] = 1;
		if (p + 2 + len > 40)
			break;
		o[p] = kind;
		o[p + 1] = len + 2;
		memcpy(o + p + 2, data, len);
		p += 2 + len;
	}
	if (prandom_u32_state(rs) % 8 == 0 && p >= 2)
		o[p - 1] = 0xff;	/* sometimes malformed: a length past the end */
	while (p % 4)
		o[p++] = prandom_u32_state(rs) % 2;	/* NOP or end-of-list padding */
	return p;
}

static void to_rand_target(struct rnd_state *rs, struct mmbt_target *t)
{
	static const u16 named[] = {
		MMB_FIELD_TCP_OPT_MSS, MMB_FIELD_TCP_OPT_WSCALE, MMB_FIELD_TCP_OPT_SACKP,
		MMB_FIELD_TCP_OPT_SACK, MMB_FIELD_TCP_OPT_TIMESTAMP,
		MMB_FIELD_TCP_OPT_FAST_OPEN,
	};
	u8 kind = to_kinds[prandom_u32_state(rs) % ARRAY_SIZE(to_kinds)];
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->field = MMB_FIELD_TCP_OPT;
	t->kind = kind;
	for (i = 0; i < ARRAY_SIZE(named); i++)
		if (mmb_field(named[i])->hoff == kind)
			t->field = named[i];
	if (t->field != MMB_FIELD_TCP_OPT)
		t->kind = 0;
	switch (prandom_u32_state(rs) % 5) {
	case 0:
		t->type = MMB_TARGET_STRIP;
		if (!(prandom_u32_state(rs) % 6)) {
			t->field = MMB_FIELD_TCP_OPT;	/* all */
			t->kind = 0;
		}
		break;
	case 1:
		t->type = MMB_TARGET_STRIP;
		t->invert = true;
		break;
	case 2:
		if (kind != 2 && kind != 3 && kind != 4) {
			t->type = MMB_TARGET_MOD;
			t->vlen = to_rand_data(rs, kind, t->value);
			break;
		}
		fallthrough;
	default:
		t->type = MMB_TARGET_ADD;
		t->vlen = to_rand_data(rs, kind, t->value);
	}
}

static void tcpopt_differential_test(struct kunit *test)
{
	static const u8 summed[] = { CHECKSUM_NONE, CHECKSUM_COMPLETE, CHECKSUM_PARTIAL };
	unsigned int round, ok = 0, rounds = 3000, changed = 0;
	/* Off the stack: a debug kernel's frame limit. */
	struct to_ref *ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, ref);
	prandom_seed_state(&rs, 19);
	for (round = 0; round < rounds; round++) {
		struct mmbt_target t[3][4];
		struct mmb_rule *rules[3];
		unsigned int nr = 1 + prandom_u32_state(&rs) % 3, nt[3], i, j, nin, nout;
		unsigned int nofit = 0, got = 0, fam = round % 2, l4off = fam ? 40 : 20;
		u8 in[40], out[44];
		struct mmbt_pkt_desc din, dout;
		struct sk_buff *skb, *want;
		bool diff = false, good;
		u8 s = summed[prandom_u32_state(&rs) % ARRAY_SIZE(summed)];

		nin = to_rand_list(&rs, in);
		for (i = 0; i < nr; i++) {
			nt[i] = 1 + prandom_u32_state(&rs) % 4;
			for (j = 0; j < nt[i]; j++)
				to_rand_target(&rs, &t[i][j]);
			rules[i] = to_rule(test, t[i], nt[i]);
		}
		if (to_ref_read(ref, in, nin)) {
			for (i = 0; i < nr; i++)
				diff |= to_ref_apply(ref, t[i], nt[i], &nofit);
		}
		nout = diff ? to_ref_write(ref, out) : nin;
		if (!diff)
			memcpy(out, in, nin);
		changed += diff;
		din = to_desc(fam, in, nin, prandom_u32_state(&rs) % 200);
		dout = to_desc(fam, out, nout, din.payload_len);
		skb = mmbt_pkt_build(init_net.loopback_dev, &din);
		want = mmbt_pkt_build(init_net.loopback_dev, &dout);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_NOT_NULL(test, want);
		skb_set_transport_header(skb, l4off);
		to_summed(skb, s, fam, l4off);
		good = !to_run(skb, rules, nr) && to_same(test, "random", skb, want, s, fam);
		for (i = 0; i < nr; i++)
			if (rules[i]->opts)
				got += atomic64_read(mmb_rule_nofit(rules[i]));
		if (good && got != nofit)
			KUNIT_FAIL(test, "round %u: %u options counted as not fitting, %u wanted",
				   round, got, nofit);
		ok += good && got == nofit;
		if (!good)
			print_hex_dump(KERN_INFO, "options in: ", DUMP_PREFIX_NONE, 40, 1, in, nin,
				       false);
		kfree_skb(skb);
		kfree_skb(want);
		for (i = 0; i < nr; i++)
			kunit_release_action(test, to_free_rule, rules[i]);
		if (!(round % 256))
			cond_resched();
	}
	kunit_info(test, "%u of %u random lists as the reference has them (%u changed)",
		   ok, rounds, changed);
	KUNIT_EXPECT_EQ(test, ok, rounds);
	KUNIT_EXPECT_GT(test, changed, rounds / 3);
}

static struct kunit_case mmb_tcpopt_cases[] = {
	KUNIT_CASE(tcpopt_cases_test),
	KUNIT_CASE(tcpopt_gso_test),
	KUNIT_CASE(tcpopt_fraglist_test),
	KUNIT_CASE(tcpopt_differential_test),
	{}
};

static struct kunit_suite mmb_tcpopt_suite = {
	.name = "mmb-tcpopt",
	.test_cases = mmb_tcpopt_cases,
};

kunit_test_suite(mmb_tcpopt_suite);
