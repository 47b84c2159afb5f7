// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: TCP options, all of them here. An option list is read one way only
 * (mmb_tcp_opt_len(), tcpopt.h): the first option of a kind counts, a
 * malformed one ends the list. The parser puts the named options into the
 * header image, so that "tcp-opt-mss 1460" or "! tcp-opt-sackp" is a key
 * in a table like any other field; the rest (ordered comparisons, byte
 * strings, any option by kind) is matched here per packet. MSS and window
 * scale are rewritten in place, as L4 header fields at the offset they
 * have in the packet.
 *
 *   image byte  MMB_IMG_OPTS    bit of each named option, last bit: any
 *               MMB_IMG_OPTV    MMB_OPTV_*: MSS and window scale are there
 *               MMB_IMG_MSS     the MSS, MMB_IMG_WSCALE the window scale
 */
#include <net/tcp.h>

#include "rule.h"
#include "tcpopt.h"

u8 mmb_opt_kind_bits[256] __ro_after_init;

/* After the field table is set: the bit of each named option, by kind. */
void __init mmb_tcpopt_init(void)
{
	unsigned int i;

	for (i = MMB_FIELD_TCP_OPT_MSS; i < MMB_FIELD_TCP_OPT; i++)
		mmb_opt_kind_bits[mmb_field(i)->hoff] = mmb_opt_bit(i);
}

/* The image's option bytes: which named options, MSS and window scale. */
void mmb_tcpopt_image(const struct sk_buff *skb, struct mmb_pkt *pkt)
{
	unsigned int n = pkt->l7off - pkt->l4off - sizeof(struct tcphdr), i, len;
	u8 buf[MAX_TCP_OPTION_SPACE] __uninitialized;
	u8 *k = pkt->key.b, seen = 0, bit;
	const u8 *o;

	o = skb_header_pointer(skb, pkt->l4off + sizeof(struct tcphdr), n, buf);
	if (!o)
		return;
	for (i = 0; (len = mmb_tcp_opt_len(o, i, n)); i += len) {
		if (len == 1)
			continue;	/* NOP */
		bit = mmb_opt_kind_bits[o[i]];
		if (bit & ~seen) {	/* the first of its kind */
			if (o[i] == TCPOPT_MSS && len == TCPOLEN_MSS) {
				k[MMB_IMG_MSS] = o[i + 2];
				k[MMB_IMG_MSS + 1] = o[i + 3];
				k[MMB_IMG_OPTV] |= MMB_OPTV_MSS;
			} else if (o[i] == TCPOPT_WINDOW && len == TCPOLEN_WINDOW) {
				k[MMB_IMG_WSCALE] = o[i + 2];
				k[MMB_IMG_OPTV] |= MMB_OPTV_WSCALE;
			}
		}
		seen |= bit | mmb_opt_bit(MMB_FIELD_TCP_OPT);
	}
	k[MMB_IMG_OPTS] = seen;
}

/*
 * The first TCP option of @kind (0: any) of the packet. Returns the length
 * of its data, which *@data points at (in the skb, or copied to @buf of
 * MAX_TCP_OPTION_SPACE bytes), and sets *@off to the data's offset in the
 * TCP header; -1 if there is none. A malformed option ends the walk.
 */
int mmb_tcpopt_find(const struct sk_buff *skb, const struct mmb_pkt *pkt, u8 kind,
		    u8 *buf, const u8 **data, unsigned int *off)
{
	int n = pkt->l7off - pkt->l4off - (int)sizeof(struct tcphdr);
	unsigned int i, len;
	const u8 *o;

	if (n <= 0)
		return -1;
	o = skb_header_pointer(skb, pkt->l4off + sizeof(struct tcphdr), n, buf);
	if (!o)
		return -1;
	for (i = 0; (len = mmb_tcp_opt_len(o, i, n)); i += len) {
		if (len > 1 && (!kind || o[i] == kind)) {
			*data = o + i + 2;
			*off = sizeof(struct tcphdr) + i + 2;
			return len - 2;
		}
	}
	return -1;
}

/* A TCP option match (reference semantics, as all of mmb_match_holds). */
bool mmb_tcpopt_match(const struct mmb_match *m, const u8 *value,
		      const struct mmb_field_info *f, const struct mmb_pkt *pkt,
		      const struct sk_buff *skb)
{
	u8 buf[MAX_TCP_OPTION_SPACE];
	const u8 *data;
	unsigned int off;
	int dlen, cmp;

	dlen = mmb_tcpopt_find(skb, pkt, m->field == MMB_FIELD_TCP_OPT ? m->kind : f->hoff,
			       buf, &data, &off);
	if (!m->vlen)
		return (dlen >= 0) == (m->op == MMB_OP_EQ);
	if (dlen < 0)
		return false;
	if (f->bits) {
		u32 v, want = mmb_value_u32(value, m->vlen);

		if (dlen != m->vlen)
			return false;	/* not this option's size: malformed */
		v = mmb_value_u32(data, dlen);
		cmp = v < want ? -1 : v > want;
	} else {
		if (m->vlen > dlen)
			return false;
		cmp = memcmp(data, value, m->vlen);
	}
	return mmb_op_holds(m->op, cmp);
}

/* A match on a TCP option, @index of its rule: presence, or a value. */
int mmb_tcpopt_check(const struct mmb_field_info *f, const struct mmb_match_spec *m,
		     unsigned int index, struct mmb_rule_err *err)
{
	if ((!m->vlen || !f->bits) && m->op != MMB_OP_EQ && m->op != MMB_OP_NE) {
		mmb_rule_err(err, MMB_ERR_MATCH, index, "only == and != apply to this TCP option");
		return -EINVAL;
	}
	if (!m->vlen)
		return 0;
	if (m->field == MMB_FIELD_TCP_OPT && !m->kind) {
		mmb_rule_err(err, MMB_ERR_MATCH_VALUE, index,
			     "tcp-opt takes a value only after a kind");
		return -EINVAL;
	}
	if (m->field == MMB_FIELD_TCP_OPT_SACKP) {
		mmb_rule_err(err, MMB_ERR_MATCH_VALUE, index, "tcp-opt-sackp carries no data");
		return -EINVAL;
	}
	if (!f->bits && m->vlen > MAX_TCP_OPTION_SPACE - 2) {
		mmb_rule_err(err, MMB_ERR_MATCH_VALUE, index,
			     "TCP option data is at most 38 bytes");
		return -EINVAL;
	}
	return mmb_check_value(f, m->field, m->value, m->vlen, m->plen, MMB_ERR_MATCH_VALUE,
			       index, err);
}

/*
 * The image bits a TCP option match pins (@off, @mb, @vb), if it can be
 * put in the mask: presence or absence of a named option (or of any), the
 * value of MSS or window scale with ==. Returns how many bytes, 0 if none.
 */
unsigned int mmb_tcpopt_compile(const struct mmb_match *m, const u8 *value,
				u8 *off, u8 *mb, u8 *vb)
{
	u8 bit = mmb_opt_bit(m->field);

	if (m->field == MMB_FIELD_TCP_OPT && m->kind)
		return 0;	/* any kind: the slow path walks the options */
	if (!m->vlen) {
		off[0] = MMB_IMG_OPTS;
		mb[0] = bit;
		vb[0] = m->op == MMB_OP_EQ ? bit : 0;
		return 1;
	}
	if (m->op != MMB_OP_EQ)
		return 0;
	off[0] = MMB_IMG_OPTV;
	off[1] = m->field == MMB_FIELD_TCP_OPT_MSS ? MMB_IMG_MSS : MMB_IMG_WSCALE;
	off[2] = MMB_IMG_MSS + 1;
	mb[0] = m->field == MMB_FIELD_TCP_OPT_MSS ? MMB_OPTV_MSS : MMB_OPTV_WSCALE;
	vb[0] = mb[0];
	switch (m->field) {
	case MMB_FIELD_TCP_OPT_MSS:
		mb[1] = 0xff;
		vb[1] = value[0];
		mb[2] = 0xff;
		vb[2] = value[1];
		return 3;
	case MMB_FIELD_TCP_OPT_WSCALE:
		mb[1] = 0xff;
		vb[1] = value[0];
		return 2;
	}
	return 0;	/* byte strings: compared per packet */
}

/*
 * A TCP option of fixed size is rewritten in place, as an L4 header field
 * at the offset it has in this packet; @f, a copy of its field's layout,
 * is made to describe it so. False if the packet does not have the option,
 * or has it with another size.
 */
bool mmb_tcpopt_locate(const struct sk_buff *skb, const struct mmb_pkt *pkt,
		       struct mmb_field_info *f)
{
	u8 buf[MAX_TCP_OPTION_SPACE];
	unsigned int off;
	const u8 *data;

	if (mmb_tcpopt_find(skb, pkt, f->hoff, buf, &data, &off) != f->bits / 8)
		return false;
	f->hdr = MMB_HDR_L4;
	f->hoff = off;
	f->len = f->bits / 8;
	f->mask = (1U << f->bits) - 1;
	f->shift = 0;
	return true;
}
