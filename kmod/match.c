// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: matches, the datapath's side. After a probe found a table entry,
 * each of its rules' matches that the mask could not express (!=, <, >,
 * prefixes of a value the mask does not pin, payloads, TCP options by kind
 * or by value) is checked here on the packet. mmb_match_holds() is also
 * the reference semantics that the tests' naive classifier applies to
 * every match.
 */
#include <linux/ipv6.h>

#include "rule.h"
#include "tcpopt.h"

bool mmb_op_holds(u8 op, int cmp)
{
	switch (op) {
	case MMB_OP_EQ:
		return cmp == 0;
	case MMB_OP_NE:
		return cmp != 0;
	case MMB_OP_LT:
		return cmp < 0;
	case MMB_OP_GT:
		return cmp > 0;
	case MMB_OP_LE:
		return cmp <= 0;
	case MMB_OP_GE:
		return cmp >= 0;
	}
	return false;
}

static unsigned int mmb_payload_base(unsigned int id, const struct mmb_pkt *pkt)
{
	switch (id) {
	case MMB_FIELD_IP_PAYLOAD:
		return pkt->l4off;
	case MMB_FIELD_IP6_PAYLOAD:
		return sizeof(struct ipv6hdr);
	}
	return pkt->l7off;
}

/* Compare the first @plen bits of two 16-byte addresses. */
static int mmb_prefix_cmp(const u8 *a, const u8 *b, unsigned int plen)
{
	unsigned int i;

	for (i = 0; plen; i++) {
		unsigned int bits = min(plen, 8U);
		u8 m = 0xff << (8 - bits);

		if ((a[i] ^ b[i]) & m)
			return (a[i] & m) < (b[i] & m) ? -1 : 1;
		plen -= bits;
	}
	return 0;
}

/*
 * Does match @m, of value @value, hold for a packet? The reference
 * semantics of a match: the datapath's slow path and the tests' naive
 * classifier both ask this.
 */
bool mmb_match_holds(const struct mmb_match *m, const u8 *value, const struct mmb_pkt *pkt,
		     const struct sk_buff *skb)
{
	const struct mmb_field_info *f = mmb_field(m->field);
	const struct mmb_key *k = &pkt->key;
	int cmp;

	if (f->family && k->b[MMB_IMG_FAMILY] != f->family)
		return false;
	if (f->l4 && (k->b[MMB_IMG_L4PROTO] != f->l4 ||
		      !(k->b[MMB_IMG_FLAGS] & MMB_KF_L4)))
		return false;

	if (m->field == MMB_FIELD_ALL)
		return true;
	if (f->hdr == MMB_HDR_MARK) {
		u32 v = skb->mark & get_unaligned_be32(value + 4), want = get_unaligned_be32(value);

		return mmb_op_holds(m->op, v < want ? -1 : v > want);
	}
	if (f->hdr == MMB_HDR_TCPOPT)
		return mmb_tcpopt_match(m, value, f, pkt, skb);
	if (m->field == MMB_FIELD_NET_PROTO) {
		u8 fam = mmb_value_u32(value, m->vlen) == MMB_ETH_IP4 ? 4 : 6;

		cmp = k->b[MMB_IMG_FAMILY] != fam;
	} else if (!f->bits) {
		unsigned int base = mmb_payload_base(m->field, pkt);
		u8 buf[MMB_PAYLOAD_MAX];
		const u8 *p;

		if (base + m->vlen > pkt->end)
			return false;
		p = skb_header_pointer(skb, base, m->vlen, buf);
		if (!p)
			return false;
		cmp = memcmp(p, value, m->vlen);
	} else if (f->len == 16) {
		cmp = mmb_prefix_cmp(&k->b[f->img], value, m->plen);
	} else {
		u32 v = (mmb_img_read(k, f->img, f->len) & f->mask) >> f->shift;
		/* An "in" match's value: the id of its name, then the name. */
		u32 want = mmb_value_u32(value, min_t(unsigned int, m->vlen, 4));

		if (m->plen < f->bits) {
			u32 pm = m->plen ? ~0U << (32 - m->plen) : 0;

			v &= pm;
			want &= pm;
		}
		cmp = v < want ? -1 : v > want;
	}
	return mmb_op_holds(m->op, cmp);
}

/* The same for a match as given. */
bool mmb_match_eval(const struct mmb_match_spec *ms, const struct mmb_pkt *pkt,
		    const struct sk_buff *skb)
{
	const struct mmb_match m = {
		.field = ms->field, .op = ms->op, .plen = ms->plen, .vlen = ms->vlen,
		.kind = ms->kind,
	};

	return mmb_match_holds(&m, ms->value, pkt, skb);
}

bool mmb_rule_match_slow(const struct mmb_rule *rule, const struct mmb_pkt *pkt,
			 const struct sk_buff *skb)
{
	const u8 *value = mmb_rule_values(rule);
	u32 slow = rule->slow;
	unsigned int i;

	/* Values follow one another in match order. */
	for (i = 0; slow; i++, slow >>= 1) {
		if ((slow & 1) && !mmb_match_holds(&rule->m[i], value, pkt, skb))
			return false;
		value += rule->m[i].vlen;
	}
	return true;
}

