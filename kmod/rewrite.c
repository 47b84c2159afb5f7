// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: "mod" targets. A field is rewritten as (bytes & ~mask) | value, one
 * aligned 16-bit word at a time; every word that changes is accounted for
 * in the checksums that cover it, whatever the skb's ip_summed:
 *
 *   IPv4 header      the header checksum; addresses also the L4 pseudo-header
 *   IPv6 addresses   the L4 pseudo-header (TCP, UDP, ICMPv6)
 *   L4 header        the L4 checksum
 *   anything no checksum covers: skb->csum of CHECKSUM_COMPLETE
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

#include "mmb.h"

/* Where the L4 checksum of the packet is, or -1 if it has none to keep. */
static int mmb_l4_csum_off(const struct sk_buff *skb, const struct mmb_pkt *pkt)
{
	const struct mmb_key *k = &pkt->key;

	if (!(k->b[MMB_IMG_FLAGS] & MMB_KF_L4))
		return -1;
	switch (k->b[MMB_IMG_L4PROTO]) {
	case IPPROTO_TCP:
		return pkt->l4off + offsetof(struct tcphdr, check);
	case IPPROTO_UDP:
		/* A zero UDP checksum means none (IPv4). */
		if (skb->ip_summed != CHECKSUM_PARTIAL &&
		    !get_unaligned((__be16 *)&k->b[MMB_IMG_L4_HI + 2]))
			return -1;
		return pkt->l4off + offsetof(struct udphdr, check);
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return pkt->l4off + 2;
	}
	return -1;
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
			  __be16 old, __be16 new, int l4csum)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	bool pseudo, is_csum;

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
		if (l4csum >= 0 && pkt->key.b[MMB_IMG_L4PROTO] != IPPROTO_ICMP)
			inet_proto_csum_replace2((__sum16 *)(skb->data + l4csum),
						 skb, old, new, true);
		/*
		 * That took the change off skb->csum, as IPv4 needs (its header
		 * checksum moved too); IPv6 has no header checksum.
		 */
		if (!v4)
			mmb_csum_complete(skb, old, new);
		return;
	}
	is_csum = l4csum >= 0 && pkt->l4off + off == l4csum;
	if (l4csum >= 0 && !is_csum)
		inet_proto_csum_replace2((__sum16 *)(skb->data + l4csum), skb,
					 old, new, false);
	else
		mmb_csum_complete(skb, old, new);
}

/*
 * A TCP option of fixed size is rewritten in place, as an L4 header field
 * at the offset it has in this packet; @f describes it then. False if the
 * packet does not have the option, or has it with another size.
 */
static bool mmb_mod_opt(const struct sk_buff *skb, const struct mmb_pkt *pkt,
			struct mmb_field_info *f)
{
	u8 buf[MAX_TCP_OPTION_SPACE];
	unsigned int off;
	const u8 *data;

	if (mmb_tcp_opt_find(skb, pkt, f->hoff, buf, &data, &off) != f->bits / 8)
		return false;
	f->hdr = MMB_HDR_L4;
	f->hoff = off;
	f->len = f->bits / 8;
	f->mask = (1U << f->bits) - 1;
	f->shift = 0;
	return true;
}

static int mmb_mod(struct sk_buff *skb, const struct mmb_pkt *pkt,
		   const struct mmb_target *t, const u8 *value)
{
	const struct mmb_field_info *f = mmb_field(t->field);
	struct mmb_field_info opt;
	int l4csum = mmb_l4_csum_off(skb, pkt);
	u8 mask[18] = {}, val[18] = {};
	unsigned int i, base, start, end;
	u8 *h;

	if (f->hdr == MMB_HDR_TCPOPT) {
		opt = *f;
		if (!mmb_mod_opt(skb, pkt, &opt))
			return 0;
		f = &opt;
	}
	base = f->hdr == MMB_HDR_L4 ? pkt->l4off : 0;
	start = f->hoff & ~1U;
	end = ALIGN(f->hoff + f->len, 2);

	if (skb_ensure_writable(skb, base + end))
		return -ENOMEM;
	if (l4csum >= 0 && skb_ensure_writable(skb, l4csum + 2))
		return -ENOMEM;
	/* The field's bits and value, laid out over [start, end). */
	if (f->len == 16) {
		for (i = 0; i < 16; i++) {
			unsigned int bits = clamp_t(int, t->plen - i * 8, 0, 8);

			mask[f->hoff - start + i] = bits ? 0xff << (8 - bits) : 0;
			val[f->hoff - start + i] = value[i];
		}
	} else {
		u32 m = f->mask, v = 0;

		for (i = 0; i < t->vlen; i++)
			v = v << 8 | value[i];
		if (f->len == 4 && t->plen < 32)
			m = t->plen ? ~0U << (32 - t->plen) : 0;
		v <<= f->shift;
		for (i = 0; i < f->len; i++) {
			unsigned int sh = (f->len - 1 - i) * 8;

			mask[f->hoff - start + i] = m >> sh;
			val[f->hoff - start + i] = v >> sh;
		}
	}
	h = skb->data + base;
	for (i = start; i < end; i += 2) {
		__be16 old = get_unaligned((__be16 *)(h + i)), new;
		u8 *nb = (u8 *)&new, *ob = (u8 *)&old;

		nb[0] = (ob[0] & ~mask[i - start]) | (val[i - start] & mask[i - start]);
		nb[1] = (ob[1] & ~mask[i - start + 1]) | (val[i - start + 1] & mask[i - start + 1]);
		if (new == old)
			continue;
		put_unaligned(new, (__be16 *)(h + i));
		mmb_csum_word(skb, pkt, f, i, old, new, l4csum);
	}
	if (l4csum >= 0 && pkt->key.b[MMB_IMG_L4PROTO] == IPPROTO_UDP &&
	    skb->ip_summed != CHECKSUM_PARTIAL &&
	    !get_unaligned((__sum16 *)(skb->data + l4csum)))
		put_unaligned(CSUM_MANGLED_0, (__sum16 *)(skb->data + l4csum));
	return 0;
}

/* Apply the mod targets of @rule to @skb, which is not shared. */
int mmb_rewrite(struct sk_buff *skb, const struct mmb_pkt *pkt,
		const struct mmb_rule *rule)
{
	const struct mmb_target *t = mmb_rule_targets(rule);
	unsigned int i;
	int err;

	for (i = 0; i < rule->ntargets; i++) {
		if (t[i].type != MMB_TARGET_MOD)
			continue;
		err = mmb_mod(skb, pkt, &t[i], mmb_target_value(rule, &t[i]));
		if (err)
			return err;
	}
	skb_clear_hash(skb);
	return 0;
}
