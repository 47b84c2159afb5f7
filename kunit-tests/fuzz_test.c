// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the datapath fed with random and mutated packets. Each packet
 * goes through mmb_hook(), as a driver hands it over, against a ruleset
 * that drops, rewrites headers and TCP options, tracks connections and
 * translates addresses. Packets come linear, paged (the IP header split
 * across fragments), cloned and shared, with every ip_summed state, some
 * as GSO packets, some with Ethernet padding after them.
 *
 * Three kinds of input:
 *   valid     random headers and options, checksums right;
 *   reshaped  header bytes (TCP options among them) set at random, then
 *             the checksums made right again;
 *   broken    bytes, lengths and cuts at random: only survival is asked.
 *
 * What a packet mmb passes must satisfy (valid and reshaped ones): its IP
 * length as before, plus what TCP options grew by, its IPv4 header checksum
 * and its L4 checksum right (computed as the NIC would for
 * CHECKSUM_PARTIAL), skb->csum the sum of its bytes for CHECKSUM_COMPLETE.
 * For every kind: the other holder of a cloned or shared packet sees the
 * bytes it had. A failure prints the seed and the packet; rerun it with
 * mmb_kunit.fuzz_seed=SEED mmb_kunit.fuzz_packets=N. The packets run in
 * parts of at most a million, each a case of its own (KUnit gives a case
 * five minutes; a debug kernel does about 20 000 packets a second).
 */
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "util.h"

static unsigned int fuzz_packets = 30000;
module_param(fuzz_packets, uint, 0444);
MODULE_PARM_DESC(fuzz_packets, "packets mmb-fuzz feeds the datapath");

static unsigned int fuzz_seed = 1;
module_param(fuzz_seed, uint, 0444);
MODULE_PARM_DESC(fuzz_seed, "seed of mmb-fuzz's first packet");

enum fz_kind { FZ_VALID, FZ_RESHAPED, FZ_BROKEN };
enum fz_layout { FZ_LINEAR, FZ_PAGED, FZ_CLONED, FZ_SHARED, FZ_LAYOUTS };

#define FZ_MAX_LEN	1600

struct fz {
	struct kunit *test;
	struct net_device *dev;
	struct rnd_state rs;
	u32 seed;
	/* the packet as built, network header first */
	u8 in[FZ_MAX_LEN];
	u8 scratch[FZ_MAX_LEN];
	unsigned int len;	/* bytes of the IP packet (its header says) */
	unsigned int pad;	/* Ethernet padding after it */
	unsigned int l4off;
	bool v6;
	u8 proto;
	u8 summed;
	bool gso;
	enum fz_kind kind;
	enum fz_layout layout;
	/* counts */
	unsigned int n, passed, dropped, rewritten, grown, shrunk, failures;
	unsigned int by_summed[4], by_layout[FZ_LAYOUTS], by_kind[3];
};

static u32 fz_rand(struct fz *f, u32 n)
{
	return n ? prandom_u32_state(&f->rs) % n : 0;
}

/* A TCP option list: well formed mostly, some of it malformed. */
static unsigned int fz_tcp_opts(struct fz *f, u8 *o)
{
	unsigned int len = 0, n, i, want = fz_rand(f, 41);

	if (!fz_rand(f, 8)) {			/* bytes at random */
		for (i = 0; i < want; i++)
			o[i] = fz_rand(f, 256);
		return want & ~3u;
	}
	while (len < want) {
		static const u8 kinds[][3] = {	/* kind, length, random extra */
			{ TCPOPT_MSS, 4, 0 }, { TCPOPT_WINDOW, 3, 0 },
			{ TCPOPT_SACK_PERM, 2, 0 }, { TCPOPT_TIMESTAMP, 10, 0 },
			{ TCPOPT_SACK, 10, 4 }, { TCPOPT_FASTOPEN, 2, 17 },
			{ TCPOPT_MPTCP, 4, 17 }, { 253, 2, 7 }, { TCPOPT_NOP, 1, 0 },
			{ TCPOPT_NOP, 1, 0 },
		};
		const u8 *k = kinds[fz_rand(f, ARRAY_SIZE(kinds))];
		u8 kind = k[0], olen = k[1];

		if (kind == TCPOPT_SACK)
			olen += 8 * fz_rand(f, k[2]);
		else
			olen += fz_rand(f, k[2]);
		if (len + olen > 40)
			break;
		o[len] = kind;
		if (olen > 1) {
			o[len + 1] = olen;
			for (i = 2; i < olen; i++)
				o[len + i] = fz_rand(f, 256);
		}
		len += olen;
	}
	n = round_up(len, 4);
	memset(o + len, TCPOPT_EOL, n - len);
	if (n && !fz_rand(f, 10))		/* one length byte wrong */
		o[fz_rand(f, n)] = fz_rand(f, 3) ? fz_rand(f, 3) : fz_rand(f, 256);
	return n;
}

static const u16 fz_ports[] = { 22, 53, 80, 443, 5000, 5001, 8000, 1024 };

static u16 fz_port(struct fz *f)
{
	return fz_rand(f, 4) ? fz_ports[fz_rand(f, ARRAY_SIZE(fz_ports))] : fz_rand(f, 65536);
}

static void fz_addr(struct fz *f, u8 *a)
{
	unsigned int i;

	if (fz_rand(f, 2)) {
		for (i = 0; i < 16; i++)
			a[i] = fz_rand(f, 256);
		return;
	}
	memset(a, 0, 16);
	a[0] = f->v6 ? 0x20 : 10;
	a[1] = f->v6 ? 0x01 : 0;
	a[f->v6 ? 15 : 3] = 1 + fz_rand(f, 4);
}

/* A valid packet with random headers, built by mmbt_pkt_build(). */
static struct sk_buff *fz_build(struct fz *f)
{
	static const u8 protos4[] = { IPPROTO_TCP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
				      IPPROTO_GRE };
	static const u8 protos6[] = { IPPROTO_TCP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6,
				      IPPROTO_GRE };
	struct mmbt_pkt_desc d = {};
	u8 opts[40];

	f->v6 = fz_rand(f, 2);
	d.v6 = f->v6;
	d.proto = d.v6 ? protos6[fz_rand(f, 5)] : protos4[fz_rand(f, 5)];
	d.tos = fz_rand(f, 256);
	d.ttl = fz_rand(f, 2) ? 64 : fz_rand(f, 256);
	if (fz_rand(f, 3))
		d.l3_opt_len = 0;
	else
		d.l3_opt_len = d.v6 ? 8 * (1 + fz_rand(f, 4)) : 4 * fz_rand(f, 11);
	if (d.proto == IPPROTO_TCP) {
		d.tcp_opt_len = fz_tcp_opts(f, opts);
		d.tcp_opts = opts;
		d.tcp_flags = fz_rand(f, 3) ? TCPHDR_SYN : fz_rand(f, 256);
	}
	d.no_udp_csum = !d.v6 && !fz_rand(f, 8);
	d.sport = fz_port(f);
	d.dport = fz_port(f);
	if (d.proto == IPPROTO_ICMP || d.proto == IPPROTO_ICMPV6)
		d.sport = fz_rand(f, 2) ? (d.v6 ? 128 : 8) << 8 : fz_rand(f, 65536);
	d.seq = prandom_u32_state(&f->rs);
	fz_addr(f, d.saddr);
	fz_addr(f, d.daddr);
	d.payload_len = fz_rand(f, 4) ? fz_rand(f, 64) : fz_rand(f, 1400);
	d.payload_seed = fz_rand(f, 256);
	f->proto = d.proto;
	f->l4off = (d.v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) + d.l3_opt_len;
	return mmbt_pkt_build(f->dev, &d);
}

/* Where the L4 checksum is, 0 for a protocol without one. */
static unsigned int fz_csum_off(u8 proto)
{
	if (proto == IPPROTO_TCP)
		return offsetof(struct tcphdr, check);
	if (proto == IPPROTO_UDP)
		return offsetof(struct udphdr, check);
	if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6)
		return offsetof(struct icmphdr, checksum);
	return 0;
}

static void fz_fix_csums(struct fz *f)
{
	u8 *l4 = f->in + f->l4off;
	unsigned int l4len = f->len - f->l4off, off;
	__sum16 sum;

	if (!f->v6) {
		struct iphdr *iph = (void *)f->in;

		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
	}
	off = fz_csum_off(f->proto);
	if (!off)
		return;
	if (f->proto == IPPROTO_UDP && !f->v6 && !get_unaligned((u16 *)(l4 + off)))
		return;		/* no checksum */
	put_unaligned(0, (u16 *)(l4 + off));
	sum = mmbt_l4_csum(f->in, f->l4off, l4len, f->v6, f->proto);
	if (f->proto == IPPROTO_UDP && !sum)
		sum = CSUM_MANGLED_0;
	put_unaligned(sum, (__sum16 *)(l4 + off));
}

/* Header bytes set at random, the packet's structure kept. */
static void fz_reshape(struct fz *f)
{
	unsigned int n = 1 + fz_rand(f, 4), hdr, i;

	if (f->proto == IPPROTO_TCP)
		hdr = f->l4off + (f->in[f->l4off + 12] >> 4) * 4;
	else
		hdr = f->l4off + 8;
	for (i = 0; i < n; i++) {
		unsigned int at = fz_rand(f, hdr);

		/* not the bytes that give lengths, protocols or offsets */
		if (!f->v6 && (at == 0 || at == 2 || at == 3 || at == 6 || at == 7 || at == 9))
			continue;
		if (f->v6 && (at == 0 || (at >= 4 && at < 7) ||
			      (at >= 40 && at < f->l4off)))
			continue;
		if (at >= f->l4off && f->proto == IPPROTO_TCP && at - f->l4off == 12)
			continue;
		if (at >= f->l4off && f->proto == IPPROTO_UDP && at - f->l4off >= 4)
			continue;
		f->in[at] = fz_rand(f, 256);
	}
	fz_fix_csums(f);
}

/* Anything: bytes, lengths, cuts. */
static void fz_break(struct fz *f)
{
	unsigned int n = 1 + fz_rand(f, 4), i;

	for (i = 0; i < n; i++) {
		switch (fz_rand(f, 6)) {
		case 0:
			f->len = fz_rand(f, f->len + 1);
			break;
		case 1:		/* a length field */
			if (f->v6)
				put_unaligned_be16(fz_rand(f, 65536), f->in + 4);
			else
				put_unaligned_be16(fz_rand(f, 65536), f->in + 2);
			break;
		case 2:		/* IHL, the version */
			f->in[0] = fz_rand(f, 256);
			break;
		case 3:		/* in the L4 header */
			if (f->l4off + 20 < f->len)
				f->in[f->l4off + fz_rand(f, 20)] = fz_rand(f, 256);
			break;
		default:
			if (f->len)
				f->in[fz_rand(f, min(f->len, 80u))] = fz_rand(f, 256);
			break;
		}
	}
	if (fz_rand(f, 2) && f->len >= 20 && !f->v6)
		fz_fix_csums(f);
}

/*
 * The skb the driver hands over: @f->in (and its padding) laid out as
 * f->layout asks, Ethernet header in front, f->summed set up.
 */
static struct sk_buff *fz_skb(struct fz *f)
{
	unsigned int total = f->len + f->pad, lin = total, off;
	struct sk_buff *skb;

	if (f->layout == FZ_PAGED)
		lin = fz_rand(f, total + 1);
	skb = alloc_skb(NET_IP_ALIGN + ETH_HLEN + lin, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_IP_ALIGN + ETH_HLEN);
	skb_put_data(skb, f->in, lin);
	for (off = lin; off < total; ) {
		unsigned int part = total - off, at = fz_rand(f, 64);
		struct page *page;

		if (off == lin && fz_rand(f, 2))
			part = 1 + fz_rand(f, part);	/* split in two frags */
		page = alloc_page(GFP_KERNEL);
		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(page_address(page) + at, f->in + off, part);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, at, part, PAGE_SIZE);
		off += part;
	}
	skb->protocol = htons(f->v6 ? ETH_P_IPV6 : ETH_P_IP);
	skb_reset_network_header(skb);
	skb = mmbt_frame(f->dev, skb);
	skb->ip_summed = f->summed;
	if (f->summed == CHECKSUM_COMPLETE) {
		skb->csum = skb_checksum(skb, 0, skb->len, 0);
	} else if (f->summed == CHECKSUM_PARTIAL) {
		skb->csum_start = skb_network_header(skb) - skb->head + f->l4off;
		skb->csum_offset = fz_csum_off(f->proto);
	}
	if (f->gso) {
		unsigned int hlen = f->l4off + (f->in[f->l4off + 12] >> 4) * 4;

		skb_shinfo(skb)->gso_size = max(1u, (f->len - hlen) / (2 + fz_rand(f, 8)));
		skb_shinfo(skb)->gso_type = f->v6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
		skb_shinfo(skb)->gso_segs = DIV_ROUND_UP(f->len - hlen,
							 skb_shinfo(skb)->gso_size);
	}
	return skb;
}

/* CHECKSUM_PARTIAL: the L4 checksum field holds the pseudo-header's sum. */
static void fz_partial(struct fz *f)
{
	u8 *l4 = f->in + f->l4off;
	unsigned int l4len = f->len - f->l4off, off = fz_csum_off(f->proto);
	__sum16 ph;

	if (f->v6)
		ph = ~csum_ipv6_magic(&((struct ipv6hdr *)f->in)->saddr,
				      &((struct ipv6hdr *)f->in)->daddr, l4len, f->proto, 0);
	else
		ph = ~csum_tcpudp_magic(((struct iphdr *)f->in)->saddr,
					((struct iphdr *)f->in)->daddr, l4len, f->proto, 0);
	put_unaligned(ph, (__sum16 *)(l4 + off));
}

/* Is the packet @p (@len bytes of IP) right, as @summed says it is? */
static const char *fz_check(struct fz *f, struct sk_buff *skb, const u8 *p, unsigned int len)
{
	unsigned int iplen, l4off = f->l4off, l4len, off;
	u8 *l4 = f->scratch + l4off;

	if (f->v6) {
		iplen = sizeof(struct ipv6hdr) + get_unaligned_be16(p + 4);
	} else {
		if (ip_fast_csum(p, p[0] & 15))
			return "IPv4 header checksum";
		iplen = get_unaligned_be16(p + 2);
	}
	if (iplen + f->pad != len)
		return "IP length and skb length disagree";
	if (f->proto == IPPROTO_TCP) {
		unsigned int doff = (p[l4off + 12] >> 4) * 4;

		if (doff < 20 || l4off + doff > iplen)
			return "TCP data offset";
	}
	if (skb->ip_summed == CHECKSUM_COMPLETE &&
	    csum_fold(skb->csum) != csum_fold(skb_checksum(skb, 0, skb->len, 0)))
		return "skb->csum is not the sum of the packet";
	off = fz_csum_off(f->proto);
	if (!off)
		return NULL;
	if (iplen > sizeof(f->scratch))
		return "IP length beyond the test's buffer";
	l4len = iplen - l4off;
	memcpy(f->scratch, p, iplen);
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		if (skb->csum_start != skb_network_header(skb) - skb->head + l4off ||
		    skb->csum_offset != off)
			return "csum_start or csum_offset moved";
		/* what the NIC does */
		put_unaligned(csum_fold(csum_partial(l4, l4len, 0)), (__sum16 *)(l4 + off));
	}
	if (f->proto == IPPROTO_UDP && !f->v6 && !get_unaligned((u16 *)(l4 + off)))
		return NULL;
	if (mmbt_l4_csum(f->scratch, l4off, l4len, f->v6, f->proto))
		return "L4 checksum";
	return NULL;
}

/* Report: the first 30 failures, the first one's packet in and out. */
static void fz_fail(struct fz *f, const char *what, const u8 *out, unsigned int len)
{
	f->failures++;
	if (f->failures > 30)
		return;
	KUNIT_FAIL(f->test, "seed %u (v%u proto %u kind %u layout %u summed %u gso %u pad %u): %s",
		   f->seed, f->v6 ? 6 : 4, f->proto, f->kind, f->layout, f->summed, f->gso,
		   f->pad, what);
	if (f->failures > 1)
		return;
	print_hex_dump(KERN_ERR, "mmb-fuzz in: ", DUMP_PREFIX_OFFSET, 16, 1, f->in,
		       f->len + f->pad, false);
	if (out)
		print_hex_dump(KERN_ERR, "mmb-fuzz out: ", DUMP_PREFIX_OFFSET, 16, 1, out, len,
			       false);
}

static void fz_one(struct fz *f)
{
	static const u8 summed[] = { CHECKSUM_NONE, CHECKSUM_UNNECESSARY, CHECKSUM_COMPLETE,
				     CHECKSUM_PARTIAL };
	struct sk_buff *skb, *other = NULL;
	rx_handler_result_t res;
	const char *bad;
	u8 *out;

	prandom_seed_state(&f->rs, f->seed);
	skb = fz_build(f);
	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	f->len = skb->len;
	memcpy(f->in, skb->data, skb->len);
	kfree_skb(skb);

	f->kind = fz_rand(f, 4) ? FZ_VALID : fz_rand(f, 2) ? FZ_RESHAPED : FZ_BROKEN;
	f->summed = summed[fz_rand(f, 4)];
	/* Metadata comes from the stack (GRO, veth), not from the wire. */
	if (f->summed == CHECKSUM_PARTIAL &&
	    ((f->proto != IPPROTO_TCP && f->proto != IPPROTO_UDP) || f->kind == FZ_BROKEN))
		f->summed = CHECKSUM_NONE;
	if (f->summed == CHECKSUM_PARTIAL && f->proto == IPPROTO_UDP && !f->v6 &&
	    !get_unaligned((u16 *)(f->in + f->l4off + 6)))
		f->summed = CHECKSUM_NONE;	/* no checksum: none to offload */
	f->gso = f->proto == IPPROTO_TCP && f->len > 600 && !fz_rand(f, 3) &&
		 f->summed == CHECKSUM_PARTIAL;
	f->pad = 0;
	if (f->summed != CHECKSUM_PARTIAL && !f->gso && !fz_rand(f, 8))
		f->pad = 1 + fz_rand(f, 30);
	memset(f->in + f->len, 0, f->pad);
	if (f->kind == FZ_RESHAPED)
		fz_reshape(f);
	else if (f->kind == FZ_BROKEN)
		fz_break(f);
	if (f->summed == CHECKSUM_PARTIAL)
		fz_partial(f);
	f->layout = fz_rand(f, FZ_LAYOUTS);

	skb = fz_skb(f);
	/* The checker passes what it is given (a test of the test). */
	if (f->kind != FZ_BROKEN && fz_check(f, skb, f->in, f->len + f->pad))
		fz_fail(f, "the input fails the check", NULL, 0);
	KUNIT_ASSERT_NOT_NULL(f->test, skb);
	if (f->layout == FZ_CLONED)
		other = skb_clone(skb, GFP_KERNEL);
	else if (f->layout == FZ_SHARED)
		other = skb_get(skb);
	f->n++;
	f->by_kind[f->kind]++;
	f->by_layout[f->layout]++;
	f->by_summed[f->summed]++;

	local_bh_disable();
	rcu_read_lock();
	res = mmb_hook(&skb);
	rcu_read_unlock();
	local_bh_enable();

	if (res == RX_HANDLER_CONSUMED) {
		f->dropped++;
	} else {
		f->passed++;
		out = kmalloc(skb->len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(f->test, out);
		KUNIT_ASSERT_EQ(f->test, skb_copy_bits(skb, 0, out, skb->len), 0);
		if (skb->len != f->len + f->pad || memcmp(out, f->in, skb->len))
			f->rewritten++;
		if (skb->len > f->len + f->pad)
			f->grown++;
		if (skb->len < f->len + f->pad)
			f->shrunk++;
		if (f->gso && !skb_shinfo(skb)->gso_size)
			fz_fail(f, "a GSO packet lost its gso_size", NULL, 0);
		if (f->kind != FZ_BROKEN) {
			bad = fz_check(f, skb, out, skb->len);
			if (bad)
				fz_fail(f, bad, out, skb->len);
		}
		kfree(out);
		kfree_skb(skb);
	}
	if (other) {
		out = kmalloc(other->len, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(f->test, out);
		KUNIT_ASSERT_EQ(f->test, skb_copy_bits(other, 0, out, other->len), 0);
		if (other->len != f->len + f->pad || memcmp(out, f->in, other->len))
			fz_fail(f, "the other holder's packet changed", out, other->len);
		kfree(out);
		kfree_skb(other);
	}
}

struct fz_rule {
	bool stateful;
	u16 field[2];		/* matches: field == value */
	u32 value[2];
	unsigned int nm;
	struct mmbt_target t[3];
	unsigned int nt;
};

#define FZ_MOD(f, n, ...) { .type = MMB_TARGET_MOD, .field = MMB_FIELD_##f, .vlen = (n), \
			    .value = { __VA_ARGS__ } }
#define FZ_OPT(ty, f)	{ .type = MMB_TARGET_##ty, .field = MMB_FIELD_TCP_OPT_##f }

static struct mmb_rule *fz_add(struct kunit *test, const struct fz_rule *r)
{
	static const struct mmbt_target drop = { .type = MMB_TARGET_DROP };
	struct mmb_match_spec m[2];
	struct mmb_rule *rule;
	unsigned int i;

	for (i = 0; i < r->nm; i++)
		m[i] = mmbt_match(r->field[i], MMB_OP_EQ, r->value[i]);
	if (r->nt)
		rule = mmbt_rule_make(test, r->stateful, m, r->nm, r->t, r->nt);
	else
		rule = mmbt_rule_make(test, r->stateful, m, r->nm, &drop, 1);
	KUNIT_ASSERT_EQ(test, mmbt_insert(&mmb_pernet(&init_net)->rules, rule, NULL), 0);
	return rule;
}

static void fz_rules(struct kunit *test, struct mmb_rule **rules, unsigned int *n)
{
	static const struct fz_rule r[] = {
		/* drop udp-dport 53 */
		{ .field = { MMB_FIELD_UDP_DPORT }, .value = { 53 }, .nm = 1 },
		/* tcp-dport 80 mod tcp-dport 8080 mod tcp-win 1000 */
		{ .field = { MMB_FIELD_TCP_DPORT }, .value = { 80 }, .nm = 1,
		  .t = { FZ_MOD(TCP_DPORT, 2, 8080 >> 8, 8080 & 0xff),
			 FZ_MOD(TCP_WIN, 2, 1000 >> 8, 1000 & 0xff) }, .nt = 2 },
		/* ip-ttl 64 mod ip-ttl 63 mod ip-dscp 46 mod ip-saddr 192.0.2.9 */
		{ .field = { MMB_FIELD_IP_TTL }, .value = { 64 }, .nm = 1,
		  .t = { FZ_MOD(IP_TTL, 1, 63), FZ_MOD(IP_DSCP, 1, 46),
			 FZ_MOD(IP_SADDR, 4, 192, 0, 2, 9) }, .nt = 3 },
		/* ip6-hop-limit 64 mod ip6-flow-label 0x12345 mod ip6-daddr 2001:db8::9 */
		{ .field = { MMB_FIELD_IP6_HOP_LIMIT }, .value = { 64 }, .nm = 1,
		  .t = { FZ_MOD(IP6_FLOW_LABEL, 4, 0, 1, 0x23, 0x45),
			 FZ_MOD(IP6_DADDR, 16, 0x20, 0x01, 0x0d, 0xb8, [15] = 9) }, .nt = 2 },
		/* tcp-syn 1 strip tcp-opt-timestamp add tcp-opt-mss 1400 */
		{ .field = { MMB_FIELD_TCP_SYN }, .value = { 1 }, .nm = 1,
		  .t = { FZ_OPT(STRIP, TIMESTAMP),
			 { .type = MMB_TARGET_ADD, .field = MMB_FIELD_TCP_OPT_MSS, .vlen = 2,
			   .value = { 1400 >> 8, 1400 & 0xff } } }, .nt = 2 },
		/* tcp-dport 443 strip ! tcp-opt-mss add tcp-opt-sackp */
		{ .field = { MMB_FIELD_TCP_DPORT }, .value = { 443 }, .nm = 1,
		  .t = { { .type = MMB_TARGET_STRIP, .field = MMB_FIELD_TCP_OPT_MSS,
			   .invert = true }, FZ_OPT(ADD, SACKP) }, .nt = 2 },
		/* tcp-sport 8000 mod tcp-opt 253 0x01020304050607 mod tcp-opt-mss 536 */
		{ .field = { MMB_FIELD_TCP_SPORT }, .value = { 8000 }, .nm = 1,
		  .t = { { .type = MMB_TARGET_MOD, .field = MMB_FIELD_TCP_OPT, .kind = 253,
			   .vlen = 7, .value = { 1, 2, 3, 4, 5, 6, 7 } },
			 FZ_MOD(TCP_OPT_MSS, 2, 536 >> 8, 536 & 0xff) }, .nt = 2 },
		/* tcp-dport 8000 strip tcp-opt (all) */
		{ .field = { MMB_FIELD_TCP_DPORT }, .value = { 8000 }, .nm = 1,
		  .t = { { .type = MMB_TARGET_STRIP, .field = MMB_FIELD_TCP_OPT } }, .nt = 1 },
		/* add-stateful tcp-dport 22 accept */
		{ .stateful = true, .field = { MMB_FIELD_TCP_DPORT }, .value = { 22 },
		  .nm = 1, .t = { { .type = MMB_TARGET_ACCEPT } }, .nt = 1 },
		/* add-stateful udp-dport 5000 ip-ver 4 mod ip-saddr 203.0.113.1 (SNAT) */
		{ .stateful = true, .field = { MMB_FIELD_UDP_DPORT, MMB_FIELD_IP_VER },
		  .value = { 5000, 4 }, .nm = 2,
		  .t = { FZ_MOD(IP_SADDR, 4, 203, 0, 113, 1) }, .nt = 1 },
		/* add-stateful tcp-dport 5001 ip6-ver 6 map ip6-daddr 2001:db8::5 */
		{ .stateful = true, .field = { MMB_FIELD_TCP_DPORT, MMB_FIELD_IP6_VER },
		  .value = { 5001, 6 }, .nm = 2,
		  .t = { { .type = MMB_TARGET_MAP, .field = MMB_FIELD_IP6_DADDR, .vlen = 16,
			   .value = { 0x20, 0x01, 0x0d, 0xb8, [15] = 5 } } }, .nt = 1 },
		/* add-stateful icmp-type 8 accept */
		{ .stateful = true, .field = { MMB_FIELD_ICMP_TYPE }, .value = { 8 },
		  .nm = 1, .t = { { .type = MMB_TARGET_ACCEPT } }, .nt = 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		rules[i] = fz_add(test, &r[i]);
	*n = ARRAY_SIZE(r);
}

#define FZ_PART_MAX	1000000
static unsigned int fz_parts[64];

static unsigned int fz_part_size(void)
{
	return max_t(unsigned int, FZ_PART_MAX,
		     DIV_ROUND_UP(fuzz_packets, ARRAY_SIZE(fz_parts)));
}

/* The parts of the run: packets [k * size, (k + 1) * size), at least one. */
static const void *fz_part_gen(const void *prev, char *desc)
{
	const unsigned int *k = prev ? (const unsigned int *)prev + 1 : fz_parts;
	unsigned int size = fz_part_size(), first = (k - fz_parts) * size;

	if (k > fz_parts && first >= fuzz_packets)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "packets %u to %u", first,
		 min(first + size, fuzz_packets));
	return k;
}

static void fuzz_datapath_test(struct kunit *test)
{
	const unsigned int *k = test->param_value;
	struct mmb_net *mn = mmb_pernet(&init_net);
	unsigned int nrules, i, first, last;
	struct mmb_rule *rules[16];
	struct fz *f;
	int err;

	first = (k - fz_parts) * fz_part_size();
	last = min(first + fz_part_size(), fuzz_packets);

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->dev = mmbt_netdev_create(test);
	/* Both ways through one device without routes: no reverse-path check. */
	WRITE_ONCE(mn->conns.rpf, false);
	rtnl_lock();
	err = mmb_dev_enable(f->dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	fz_rules(test, rules, &nrules);

	for (i = first; i < last; i++) {
		f->seed = fuzz_seed + i;
		fz_one(f);
		if (i % 4096 == 4095)
			cond_resched();
	}

	for (i = 0; i < nrules; i++)
		mmbt_remove(&mn->rules, rules[i]);
	mmb_conns_flush(&mn->conns);
	WRITE_ONCE(mn->conns.rpf, true);
	mmbt_netdev_destroy(f->dev);
	kunit_info(test, "%u packets from seed %u: %u passed (%u rewritten, %u grown, %u shrunk), %u dropped",
		   f->n, fuzz_seed + first, f->passed, f->rewritten, f->grown, f->shrunk,
		   f->dropped);
	kunit_info(test, "valid %u, reshaped %u, broken %u; linear %u, paged %u, cloned %u, shared %u",
		   f->by_kind[0], f->by_kind[1], f->by_kind[2], f->by_layout[0], f->by_layout[1],
		   f->by_layout[2], f->by_layout[3]);
	kunit_info(test, "ip_summed none %u, unnecessary %u, complete %u, partial %u",
		   f->by_summed[CHECKSUM_NONE], f->by_summed[CHECKSUM_UNNECESSARY],
		   f->by_summed[CHECKSUM_COMPLETE], f->by_summed[CHECKSUM_PARTIAL]);
	KUNIT_EXPECT_EQ(test, f->failures, 0);
	/* Every path was taken. */
	KUNIT_EXPECT_GT(test, f->dropped, f->n / 200);
	KUNIT_EXPECT_GT(test, f->rewritten, f->n / 10);
	KUNIT_EXPECT_GT(test, f->grown, f->n / 1000);
	KUNIT_EXPECT_GT(test, f->shrunk, f->n / 1000);
}

static struct kunit_case mmb_fuzz_cases[] = {
	KUNIT_CASE_PARAM(fuzz_datapath_test, fz_part_gen),
	{}
};

static struct kunit_suite mmb_fuzz_suite = {
	.name = "mmb-fuzz",
	.test_cases = mmb_fuzz_cases,
};

kunit_test_suite(mmb_fuzz_suite);
