// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: rewriting packets. The contract (rewrite.h): a packet's rewrites
 * are applied in two phases on a view of the packet (struct mmb_pkt, its
 * offsets and end) that every step keeps true: first the in-place ones,
 * in rule order (mod targets, and through mmb_rewrite_field() a
 * connection's per-direction values), then those that change the
 * packet's length (TCP option lists: strip, add, a mod of an option's
 * data; tcpopt.c), which move the view's offsets as they move bytes.
 *
 * In place, a field is rewritten as (bytes & ~mask) | value, one aligned
 * 16-bit word at a time; every word that changes is accounted for in the
 * checksums that cover it, whatever the skb's ip_summed:
 *
 *   IPv4 header      the header checksum; addresses also the L4 pseudo-header
 *   IPv6 addresses   the L4 pseudo-header (TCP, UDP, ICMPv6)
 *   L4 header        the L4 checksum
 *   anything no checksum covers: skb->csum of CHECKSUM_COMPLETE
 *
 * The L4 checksum field holds one of two things. Usually the checksum
 * itself, which every change it covers moves. But when the checksum is
 * left to be computed later (CHECKSUM_PARTIAL with csum_start at this L4
 * header, or the outer UDP header of a UDP tunnel's GSO packet, whose
 * segmentation computes it), it holds the pseudo-header's sum only, and
 * only pseudo-header changes move it. A CHECKSUM_PARTIAL packet whose
 * csum_start is another header's (a tunnel's inner TCP) has a real
 * checksum here (or none), updated as such, without skb->csum.
 *
 * A fraglist GRO packet keeps each segment's headers in its own skb, and
 * segmentation takes only addresses and ports from the first: each
 * segment is rewritten too.
 *
 * Headers start at even offsets, so the words are aligned in every sum.
 */
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/tcp.h>

#include "conn.h"
#include "nat.h"
#include "rewrite.h"
#include "tcpopt.h"

/* The L4 checksum field of a packet, and what it holds. */
struct mmb_l4csum {
	int off;		/* from the network header; -1: none to keep */
	bool seed;		/* the pseudo-header's sum only (see above) */
};

/* Where the checksum of an L4 header of protocol @proto is; -1: none. */
int mmb_l4csum_field(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return offsetof(struct tcphdr, check);
	case IPPROTO_UDP:
		return offsetof(struct udphdr, check);
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return 2;
	}
	return -1;
}

static struct mmb_l4csum mmb_l4csum(const struct sk_buff *skb, const struct mmb_pkt *pkt)
{
	const struct mmb_key *k = &pkt->key;
	struct mmb_l4csum c = { .off = -1 };
	u8 proto = k->b[MMB_IMG_L4PROTO];
	int field;

	if (!(k->b[MMB_IMG_FLAGS] & MMB_KF_L4))
		return c;
	field = mmb_l4csum_field(proto);
	if (field < 0)
		return c;
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		if (skb_checksum_start_offset(skb) == pkt->l4off && skb->csum_offset == field)
			c.seed = true;
		else if (proto == IPPROTO_UDP && skb_is_gso(skb) &&
			 (skb_shinfo(skb)->gso_type & SKB_GSO_UDP_TUNNEL_CSUM))
			c.seed = true;
	}
	/* A zero UDP checksum that is no seed means none. */
	if (proto == IPPROTO_UDP && !c.seed &&
	    !get_unaligned((__be16 *)&k->b[MMB_IMG_L4_HI + 2]))
		return c;
	c.off = pkt->l4off + field;
	return c;
}

/* Account for @old -> @new, in the pseudo-header if @pseudo, in @c's field. */
static void mmb_l4csum_update(struct sk_buff *skb, const struct mmb_l4csum *c,
			      __be16 old, __be16 new, bool pseudo)
{
	__sum16 *sum = (__sum16 *)(skb->data + c->off);

	/*
	 * On CHECKSUM_PARTIAL, inet_proto_csum_replace2() treats the field as
	 * a seed; it is one only if c->seed, else another header's offload.
	 */
	if (skb->ip_summed == CHECKSUM_PARTIAL && !c->seed)
		csum_replace2(sum, old, new);
	else
		inet_proto_csum_replace2(sum, skb, old, new, pseudo);
}

static void mmb_csum_complete(struct sk_buff *skb, __be16 old, __be16 new)
{
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->csum = csum_add(csum_sub(skb->csum, (__force __wsum)old),
				     (__force __wsum)new);
}

/* Account for the word at @off changing from @old to @new. */
static void mmb_csum_word(struct sk_buff *skb, const struct mmb_pkt *pkt,
			  const struct mmb_field_info *f, unsigned int off,
			  __be16 old, __be16 new, const struct mmb_l4csum *c)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	bool pseudo;

	if (f->hdr == MMB_HDR_L3) {
		/* addresses: v4 12..19, v6 8..39 */
		pseudo = v4 ? off >= 12 : off >= 8;
		if (v4 && off != offsetof(struct iphdr, check))
			csum_replace2(&ip_hdr(skb)->check, old, new);
		else if (v4 || !pseudo)
			mmb_csum_complete(skb, old, new);	/* nothing covers it */
		if (!pseudo)
			return;
		/* ICMPv4 has no pseudo-header. */
		if (c->off >= 0 && pkt->key.b[MMB_IMG_L4PROTO] != IPPROTO_ICMP)
			mmb_l4csum_update(skb, c, old, new, true);
		/*
		 * That took the change off skb->csum, as IPv4 needs (its header
		 * checksum moved too); IPv6 has no header checksum.
		 */
		if (!v4)
			mmb_csum_complete(skb, old, new);
		return;
	}
	if (c->off >= 0 && pkt->l4off + off != c->off)
		mmb_l4csum_update(skb, c, old, new, false);
	else
		mmb_csum_complete(skb, old, new);
}

/* A UDP checksum that comes out 0 is sent as all ones. */
static void mmb_udp_mangle(struct sk_buff *skb, const struct mmb_pkt *pkt,
			   const struct mmb_l4csum *c)
{
	if (c->off >= 0 && !c->seed && pkt->key.b[MMB_IMG_L4PROTO] == IPPROTO_UDP &&
	    !get_unaligned((__sum16 *)(skb->data + c->off)))
		put_unaligned(CSUM_MANGLED_0, (__sum16 *)(skb->data + c->off));
}

/* The bits of a field's value, laid out as its bytes over [start, ...). */
static void mmb_field_bytes(const struct mmb_field_info *f, unsigned int start,
			    const u8 *value, unsigned int vlen, unsigned int plen,
			    u8 *mask, u8 *val)
{
	unsigned int i;

	if (f->len == 16) {
		for (i = 0; i < 16; i++) {
			mask[f->hoff - start + i] = mmb_prefix_mask(plen, i);
			val[f->hoff - start + i] = value[i];
		}
	} else {
		u32 m = f->mask, v = 0;

		for (i = 0; i < vlen; i++)
			v = v << 8 | value[i];
		if (f->len == 4 && plen < 32)
			m = plen ? ~0U << (32 - plen) : 0;
		v <<= f->shift;
		for (i = 0; i < f->len; i++) {
			unsigned int sh = (f->len - 1 - i) * 8;

			mask[f->hoff - start + i] = m >> sh;
			val[f->hoff - start + i] = v >> sh;
		}
	}
}

/*
 * What a rewrite of @f needs writable: the field, the L4 checksum, and,
 * for an IPv4 header field, the whole header with its checksum.
 */
static unsigned int mmb_writable(const struct mmb_field_info *f, const struct mmb_pkt *pkt,
				 unsigned int end, const struct mmb_l4csum *c)
{
	unsigned int n = end;

	if (c->off >= 0)
		n = max_t(unsigned int, n, c->off + 2);
	if (f->hdr == MMB_HDR_L3 && pkt->key.b[MMB_IMG_FAMILY] == 4)
		n = max_t(unsigned int, n, (pkt->key.b[MMB_IMG_IP4] & 0xf) * 4);
	return n;
}

/*
 * Set field @f of @skb, which is not shared, to @value (@vlen bytes, @plen
 * bits of it for an address prefix), keeping every checksum. A TCP option
 * the packet lacks (or has with another size) is left alone. The in-place
 * step of mod targets (mmb_rewrite_field()), and of a connection's
 * mappings, which also name places no field names (an echo's identifier,
 * a SACK block's edge) with an mmb_field_info of their own.
 */
int mmb_rewrite_info(struct sk_buff *skb, const struct mmb_pkt *pkt,
		     const struct mmb_field_info *f, const u8 *value, unsigned int vlen,
		     unsigned int plen)
{
	struct mmb_l4csum c = mmb_l4csum(skb, pkt);
	u8 mask[18] = {}, val[18] = {};
	unsigned int i, base, start, end;
	struct mmb_field_info opt;
	u8 *h;

	if (f->hdr == MMB_HDR_TCPOPT) {
		opt = *f;
		if (!mmb_tcpopt_locate(skb, pkt, &opt))
			return 0;
		f = &opt;
	}
	base = f->hdr == MMB_HDR_L4 ? pkt->l4off : 0;
	start = f->hoff & ~1U;
	end = ALIGN(f->hoff + f->len, 2);
	if (skb_ensure_writable(skb, mmb_writable(f, pkt, base + end, &c)))
		return -ENOMEM;
	mmb_field_bytes(f, start, value, vlen, plen, mask, val);
	h = skb->data + base;
	for (i = start; i < end; i += 2) {
		__be16 old = get_unaligned((__be16 *)(h + i)), new;
		u8 *nb = (u8 *)&new, *ob = (u8 *)&old;

		nb[0] = (ob[0] & ~mask[i - start]) | (val[i - start] & mask[i - start]);
		nb[1] = (ob[1] & ~mask[i - start + 1]) | (val[i - start + 1] & mask[i - start + 1]);
		if (new == old)
			continue;
		put_unaligned(new, (__be16 *)(h + i));
		mmb_csum_word(skb, pkt, f, i, old, new, &c);
	}
	mmb_udp_mangle(skb, pkt, &c);
	return 0;
}

int mmb_rewrite_field(struct sk_buff *skb, const struct mmb_pkt *pkt, unsigned int field,
		      const u8 *value, unsigned int vlen, unsigned int plen)
{
	return mmb_rewrite_info(skb, pkt, mmb_field(field), value, vlen, plen);
}

/*
 * Set the @len bytes (a multiple of 4) at @p to @value's, 32 bits at a
 * time; the change of their sum goes into *@d. False: none changed.
 */
static __always_inline bool mmb_ends_addr(u8 *p, const void *value, unsigned int len,
					  __wsum *d)
{
	bool moved = false;
	__be32 old, new;
	unsigned int i;

	for (i = 0; i < len; i += 4) {
		old = get_unaligned((__be32 *)(p + i));
		new = get_unaligned((const __be32 *)(value + i));
		if (new == old)
			continue;
		put_unaligned(new, (__be32 *)(p + i));
		*d = csum_add(*d, csum_sub((__force __wsum)new, (__force __wsum)old));
		moved = true;
	}
	return moved;
}

/* The same for the port at @p, a 16-bit word at an even offset. */
static __always_inline bool mmb_ends_port(u8 *p, __be16 value, __wsum *d)
{
	__be16 old = get_unaligned((__be16 *)p);

	if (value == old)
		return false;
	put_unaligned(value, (__be16 *)p);
	*d = csum_add(*d, csum_sub((__force __wsum)(__force u32)value,
				   (__force __wsum)(__force u32)old));
	return true;
}

/*
 * @c's checksum after a change of @d in what it covers: in the pseudo-
 * header (@pseudo) or its own header. What mmb_l4csum_update() does word
 * by word, and inet_proto_csum_replace_by_diff() (whose arguments differ
 * between the kernels) for a whole change.
 */
static void mmb_l4csum_diff(struct sk_buff *skb, const struct mmb_l4csum *c, __wsum d,
			    bool pseudo)
{
	__sum16 *sum = (__sum16 *)(skb->data + c->off);

	if (skb->ip_summed != CHECKSUM_PARTIAL || !c->seed) {
		csum_replace_by_diff(sum, d);
		if (skb->ip_summed == CHECKSUM_COMPLETE && pseudo)
			skb->csum = ~csum_sub(d, skb->csum);
	} else if (pseudo) {
		*sum = ~csum_fold(csum_add(d, csum_unfold(*sum)));
	}
}

/*
 * A connection's mapping, on a TCP or UDP packet that has its ports (no
 * later fragment), @skb not shared: its source address and port set to
 * @saddr and @sport if @manip has MMB_MANIP_SRC, its destination's to
 * @daddr and @dport if MMB_MANIP_DST. The bytes and every checksum over
 * them end as mmb_rewrite_field() leaves them, field by field, but each
 * checksum moves once, by the sum of the changes: the addresses' (the IPv4
 * header's, the pseudo-header's) and the ports' (the L4 header's). With
 * what all of them need found once: where the L4 checksum is, what must
 * be writable.
 */
int mmb_rewrite_ends(struct sk_buff *skb, const struct mmb_pkt *pkt, u8 manip,
		     const void *saddr, __be16 sport, const void *daddr, __be16 dport)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4, addrs = false, ports = false;
	struct mmb_l4csum c = mmb_l4csum(skb, pkt);
	unsigned int alen = v4 ? 4 : 16, n;
	__wsum da = 0, dp = 0;
	u8 *nh, *th;

	/* The ports; the L4 header starts past the IP header: that is covered. */
	n = pkt->l4off + 2 * sizeof(__be16);
	if (c.off >= 0)
		n = max_t(unsigned int, n, c.off + 2);
	if (skb_ensure_writable(skb, n))
		return -ENOMEM;
	nh = skb->data;
	th = nh + pkt->l4off;
	if (manip & MMB_MANIP_SRC) {
		addrs |= mmb_ends_addr(nh + (v4 ? offsetof(struct iphdr, saddr) :
					     offsetof(struct ipv6hdr, saddr)), saddr, alen, &da);
		ports |= mmb_ends_port(th, sport, &dp);
	}
	if (manip & MMB_MANIP_DST) {
		addrs |= mmb_ends_addr(nh + (v4 ? offsetof(struct iphdr, daddr) :
					     offsetof(struct ipv6hdr, daddr)), daddr, alen, &da);
		ports |= mmb_ends_port(th + 2, dport, &dp);
	}
	if (addrs && v4)
		csum_replace_by_diff(&((struct iphdr *)nh)->check, da);
	if (c.off >= 0) {
		if (addrs)
			mmb_l4csum_diff(skb, &c, da, true);
		if (ports)
			mmb_l4csum_diff(skb, &c, dp, false);
	} else if (ports && skb->ip_summed == CHECKSUM_COMPLETE) {
		/* Nothing covers the ports but skb->csum. */
		skb->csum = csum_add(skb->csum, dp);
	}
	/* IPv6 has no header checksum: the addresses move skb->csum too. */
	if (addrs && !v4 && skb->ip_summed == CHECKSUM_COMPLETE)
		skb->csum = csum_add(skb->csum, da);
	if (addrs || ports)
		mmb_udp_mangle(skb, pkt, &c);
	return 0;
}

/* The in-place targets of @rule on @skb, one skb, which is not shared. */
/*
 * mod tcp-opt-mss pmtu: a leaving segment's MSS lowered to what its route
 * takes (the route's MTU less the IP and TCP headers); one without the
 * option, or with a smaller MSS, or without a route, is left alone.
 */
static int mmb_rewrite_mss_pmtu(struct sk_buff *skb, struct mmb_pkt *pkt)
{
	struct mmb_field_info f = *mmb_field(MMB_FIELD_TCP_OPT_MSS);
	const struct dst_entry *dst = skb_dst(skb);
	const u8 *b = pkt->key.b, *cur;
	unsigned int hdrs, mtu;
	__be16 mss, buf;

	if (!dst || !(b[MMB_IMG_OPTV] & MMB_OPTV_MSS))
		return 0;
	hdrs = sizeof(struct tcphdr) +
	       (b[MMB_IMG_FAMILY] == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr));
	mtu = dst_mtu(dst);
	/*
	 * Compared with the MSS the segment carries now, not the image's: a
	 * rule before this one in the verdict (a connection's, applied here)
	 * may have lowered it, and pmtu only ever lowers.
	 */
	if (mtu <= hdrs || !mmb_tcpopt_locate(skb, pkt, &f))
		return 0;
	cur = skb_header_pointer(skb, pkt->l4off + f.hoff, sizeof(buf), &buf);
	if (!cur || get_unaligned_be16(cur) <= mtu - hdrs)
		return 0;
	mss = htons(mtu - hdrs);
	return mmb_rewrite_field(skb, pkt, MMB_FIELD_TCP_OPT_MSS, (const u8 *)&mss, 2, 16);
}

int mmb_rewrite_rule(struct sk_buff *skb, struct mmb_pkt *pkt, const struct mmb_rule *rule)
{
	const struct mmb_target *t = mmb_rule_targets(rule);
	unsigned int i;
	int err;

	for (i = 0; i < rule->ntargets; i++) {
		const u8 *value = mmb_target_value(rule, &t[i]);

		if (t[i].type != MMB_TARGET_MOD || (rule->nat && mmb_target_is_nat(&t[i], true)) ||
		    mmb_target_is_opts(t[i].type, t[i].field))
			continue;
		if (t[i].field == MMB_FIELD_META_MARK) {
			/* iptables' MARK --set-xmark VALUE/MASK */
			skb->mark = (skb->mark & ~get_unaligned_be32(value + 4)) ^
				    get_unaligned_be32(value);
			continue;
		}
		if (mmb_target_mss_pmtu(t[i].type, t[i].field, value, t[i].vlen))
			err = mmb_rewrite_mss_pmtu(skb, pkt);
		else
			err = mmb_rewrite_field(skb, pkt, t[i].field, value, t[i].vlen, t[i].plen);
		if (err)
			return err;
	}
	skb_clear_hash(skb);
	return 0;
}

/*
 * Every rewrite of @v on one skb: its connection's (NAT: mappings,
 * offsets), then the in-place ones of each rule, in rule order, then the
 * option lists' (which may change the length by *@delta), on the view the
 * first phases leave.
 */
static int mmb_rewrite_one(struct sk_buff *skb, struct mmb_pkt *pkt,
			   const struct mmb_verdict *v, int *delta)
{
	bool opts = false;
	unsigned int i;
	int err;

	*delta = 0;
	if (mmb_conn_rewrites(v->conn) && v->manip) {
		err = v->related ? mmb_nat_icmp(skb, pkt, v->conn, v->dir) :
				   mmb_nat_packet(skb, pkt, v->conn, v->dir, v->manip);
		if (err)
			return err;
	}
	for (i = 0; i < v->nrw; i++) {
		err = mmb_rewrite_rule(skb, pkt, v->rw[i]);
		if (err)
			return err;
		opts |= v->rw[i]->opts;
	}
	return opts ? mmb_tcpopt_rewrite(skb, pkt, v, delta) : 0;
}

/*
 * The segments of a fraglist GRO packet, each with its own headers before
 * its data: made private (as skb_segment_list() makes them), parsed and
 * rewritten like the first. A segment's headers may change length: they
 * are not in its length nor in the packet's, and segmentation finds them
 * by the segment's network header. The list hangs off the head's shared
 * info, which a clone shares with its original: the head is made private
 * first (skb_unclone(), as skb_segment_list() needed too), so that
 * relinking a copied segment leaves the original's list as it was.
 */
static int mmb_rewrite_fraglist(struct sk_buff *skb, const struct mmb_verdict *v)
{
	struct sk_buff **link, *seg;
	struct mmb_pkt pkt __uninitialized;
	int hlen, err, delta;

	if (skb_unclone(skb, GFP_ATOMIC))
		return -ENOMEM;
	for (link = &skb_shinfo(skb)->frag_list; (seg = *link); link = &seg->next) {
		if (skb_shared(seg)) {
			struct sk_buff *nseg = skb_clone(seg, GFP_ATOMIC);

			if (!nseg)
				return -ENOMEM;
			nseg->next = seg->next;
			*link = nseg;
			consume_skb(seg);
			seg = nseg;
		}
		hlen = -skb_network_offset(seg);
		if (hlen < 0 || hlen > skb_headroom(seg))
			continue;
		__skb_push(seg, hlen);
		delta = 0;
		err = mmb_parse(seg, &pkt) ? 0 : mmb_rewrite_one(seg, &pkt, v, &delta);
		if (err)
			return err;
		__skb_pull(seg, hlen + delta);	/* its data, as before */
	}
	return 0;
}

/*
 * Apply the rewrites of @v to @skb, which is not shared, and to each
 * segment of a fraglist GRO packet; @pkt is its view, kept true.
 */
int mmb_rewrite(struct sk_buff *skb, struct mmb_pkt *pkt, const struct mmb_verdict *v)
{
	int delta, err = mmb_rewrite_one(skb, pkt, v, &delta);

	if (err || !skb_is_gso(skb) || !(skb_shinfo(skb)->gso_type & SKB_GSO_FRAGLIST))
		return err;
	return mmb_rewrite_fraglist(skb, v);
}
