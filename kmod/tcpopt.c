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

#include "ruleset.h"
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

/* --- option lists rebuilt: strip, add, and mods that change a length ------- */

/* The sizes an option's data may have on the wire. */
static bool mmb_opt_size_ok(u8 kind, unsigned int len)
{
	switch (kind) {
	case TCPOPT_MSS:
		return len == TCPOLEN_MSS - 2;
	case TCPOPT_WINDOW:
		return len == TCPOLEN_WINDOW - 2;
	case TCPOPT_SACK_PERM:
		return !len;
	case TCPOPT_TIMESTAMP:
		return len == TCPOLEN_TIMESTAMP - 2;
	case TCPOPT_SACK:
		return len && len <= 4 * TCPOLEN_SACK_PERBLOCK && !(len % TCPOLEN_SACK_PERBLOCK);
	case TCPOPT_FASTOPEN:	/* a request, or a cookie (RFC 7413) */
		return !len || (len >= 4 && len <= 16 && !(len % 2));
	case TCPOPT_MPTCP:	/* its subtype at least */
		return len >= 1;
	}
	return len <= MMB_OPT_DATA_MAX;
}

/* A target on an option list, @i of its rule: strip, add, mod of its data. */
int mmb_tcpopt_check_target(const struct mmb_target_spec *t, unsigned int i,
			    struct mmb_rule_err *err)
{
	const struct mmb_field_info *f = mmb_field(t->field);
	u8 kind;

	if (!f || f->hdr != MMB_HDR_TCPOPT) {
		mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i, "strip and add take a TCP option");
		return -EINVAL;
	}
	if (t->field != MMB_FIELD_TCP_OPT && t->kind) {
		mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i, "only tcp-opt takes a kind");
		return -EINVAL;
	}
	if (t->invert && t->type != MMB_TARGET_STRIP) {
		mmb_rule_err(err, MMB_ERR_TARGET, i, "only strip takes !");
		return -EINVAL;
	}
	kind = t->field == MMB_FIELD_TCP_OPT ? t->kind : f->hoff;
	if (t->type == MMB_TARGET_STRIP) {
		if (t->vlen) {
			mmb_rule_err(err, MMB_ERR_TARGET_VALUE, i, "strip takes no value");
			return -EINVAL;
		}
		if (!kind && t->invert) {
			mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i, "strip ! takes an option to keep");
			return -EINVAL;
		}
		return 0;
	}
	if (kind < 2) {
		mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i, "tcp-opt takes a kind (2 to 255) here");
		return -EINVAL;
	}
	if (t->type == MMB_TARGET_MOD && kind == TCPOPT_SACK_PERM) {
		mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i, "tcp-opt-sackp has no data to rewrite");
		return -EINVAL;
	}
	if (t->vlen > MMB_OPT_DATA_MAX) {
		mmb_rule_err(err, MMB_ERR_TARGET_VALUE, i, "TCP option data is at most 38 bytes");
		return -EINVAL;
	}
	if (!mmb_opt_size_ok(kind, t->vlen)) {
		mmb_rule_err(err, MMB_ERR_TARGET_VALUE, i,
			     "value has the wrong size for this TCP option");
		return -EINVAL;
	}
	return f->bits ? mmb_check_value(f, t->field, t->value, t->vlen, f->bits,
					 MMB_ERR_TARGET_VALUE, i, err) : 0;
}

/* An option list being rebuilt: each option's kind and data, no NOPs. */
struct mmb_optlist {
	unsigned int n;
	unsigned int bytes;		/* on the wire, unpadded */
	struct {
		u8 kind;
		u8 len;			/* of its data */
		const u8 *data;		/* in the copy of the packet's, or a rule's value */
	} o[MAX_TCP_OPTION_SPACE / 2];
};

/* The @n bytes of options @o; false if malformed (left alone then). */
static bool mmb_optlist_read(struct mmb_optlist *l, const u8 *o, unsigned int n)
{
	unsigned int i = 0, len;

	l->n = 0;
	l->bytes = 0;
	while (i < n && o[i] != TCPOPT_EOL) {	/* after the end: padding */
		len = mmb_tcp_opt_len(o, i, n);
		if (!len)
			return false;
		if (len > 1) {
			l->o[l->n].kind = o[i];
			l->o[l->n].len = len - 2;
			l->o[l->n].data = o + i + 2;
			l->n++;
			l->bytes += len;
		}
		i += len;
	}
	return true;
}

static int mmb_optlist_find(const struct mmb_optlist *l, u8 kind)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->o[i].kind == kind)
			return i;
	return -1;
}

static u8 mmb_target_kind(const struct mmb_target *t)
{
	return t->field == MMB_FIELD_TCP_OPT ? t->kind : mmb_field(t->field)->hoff;
}

/* Does @rule strip options of @kind? */
static bool mmb_optlist_strips(const struct mmb_rule *rule, u8 kind)
{
	const struct mmb_target *t = mmb_rule_targets(rule);
	bool keep = false, inverted = false;
	unsigned int i;

	for (i = 0; i < rule->ntargets; i++) {
		u8 k;

		if (t[i].type != MMB_TARGET_STRIP)
			continue;
		k = mmb_target_kind(&t[i]);
		if (!t[i].invert && (!k || k == kind))
			return true;
		if (t[i].invert) {
			inverted = true;
			keep |= k == kind;
		}
	}
	return inverted && !keep;
}

/* @rule's option targets on @l: mods, strips, adds. True if @l changed. */
static bool mmb_optlist_apply(struct mmb_optlist *l, const struct mmb_rule *rule, bool count)
{
	const struct mmb_target *t = mmb_rule_targets(rule);
	unsigned int i, j, k;
	bool changed = false;
	int at;

	for (i = 0; i < rule->ntargets; i++) {
		if (t[i].type != MMB_TARGET_MOD || !mmb_target_is_opts(t[i].type, t[i].field))
			continue;
		at = mmb_optlist_find(l, mmb_target_kind(&t[i]));
		if (at < 0 || (l->o[at].len == t[i].vlen &&
			       !memcmp(l->o[at].data, mmb_target_value(rule, &t[i]), t[i].vlen)))
			continue;
		if (l->bytes + t[i].vlen - l->o[at].len > MAX_TCP_OPTION_SPACE) {
			/* A counter in the rule, not the rule. */
			if (count)
				atomic64_inc(mmb_rule_nofit(rule));
			continue;
		}
		l->bytes += t[i].vlen - l->o[at].len;
		l->o[at].len = t[i].vlen;
		l->o[at].data = mmb_target_value(rule, &t[i]);
		changed = true;
	}
	for (j = 0, k = 0; j < l->n; j++) {
		if (mmb_optlist_strips(rule, l->o[j].kind)) {
			l->bytes -= 2 + l->o[j].len;
			changed = true;
			continue;
		}
		l->o[k++] = l->o[j];
	}
	l->n = k;
	for (i = 0; i < rule->ntargets; i++) {
		u8 kind = mmb_target_kind(&t[i]);

		if (t[i].type != MMB_TARGET_ADD || mmb_optlist_find(l, kind) >= 0)
			continue;
		if (l->bytes + 2 + t[i].vlen > MAX_TCP_OPTION_SPACE) {
			if (count)
				atomic64_inc(mmb_rule_nofit(rule));
			continue;
		}
		l->o[l->n].kind = kind;
		l->o[l->n].len = t[i].vlen;
		l->o[l->n].data = mmb_target_value(rule, &t[i]);
		l->n++;
		l->bytes += 2 + t[i].vlen;
		changed = true;
	}
	return changed;
}

/* @l into @buf, padded with end-of-list bytes to 4; its length. */
static unsigned int mmb_optlist_write(const struct mmb_optlist *l, u8 *buf)
{
	unsigned int i, p = 0;

	for (i = 0; i < l->n; i++) {
		buf[p++] = l->o[i].kind;
		buf[p++] = l->o[i].len + 2;
		memcpy(buf + p, l->o[i].data, l->o[i].len);
		p += l->o[i].len;
	}
	while (p % 4)
		buf[p++] = TCPOPT_EOL;
	return p;
}

/*
 * Can @skb's header change by @delta bytes (a multiple of 4)? Its IP
 * length must still fit, and the segments of a GSO packet must keep
 * some payload.
 */
static bool mmb_tcpopt_fits(const struct sk_buff *skb, const struct mmb_pkt *pkt, int delta)
{
	const u8 *b = pkt->key.b;

	if (skb->encapsulation)
		return false;	/* an inner header's offsets would move */
	if (skb_is_gso(skb) && !(skb_shinfo(skb)->gso_type & SKB_GSO_FRAGLIST) &&
	    skb_shinfo(skb)->gso_size <= max(delta, 0) + 8)
		return false;
	if (b[MMB_IMG_FAMILY] == 4)
		return ntohs(ip_hdr(skb)->tot_len) + delta <= U16_MAX;
	return ntohs(ipv6_hdr(skb)->payload_len) + delta <= U16_MAX;
}

/*
 * Move the headers (from the link layer's) before the options by @delta
 * bytes towards the head, so that the new options end where the old ones
 * did: the payload stays where it is. The headers are writable.
 */
static int mmb_tcpopt_move(struct sk_buff *skb, const struct mmb_pkt *pkt, int delta)
{
	unsigned int pre = 0, keep = pkt->l4off + sizeof(struct tcphdr);
	int cso = skb->ip_summed == CHECKSUM_PARTIAL ? skb_checksum_start_offset(skb) : -1;
	u8 *start;

	if (skb_mac_header_was_set(skb) && skb_mac_header(skb) <= skb->data)
		pre = skb->data - skb_mac_header(skb);
	if (delta > 0 && skb_cow_head(skb, pre + delta))
		return -ENOMEM;
	start = skb->data - pre;
	memmove(start - delta, start, pre + keep);
	if (delta > 0)
		__skb_push(skb, delta);
	else
		__skb_pull(skb, -delta);
	if (skb_mac_header_was_set(skb))
		skb->mac_header -= delta;
	skb->network_header -= delta;
	if (skb_transport_header_was_set(skb))
		skb->transport_header -= delta;
	if (cso >= 0 && cso < (int)pkt->l7off)
		skb->csum_start -= delta;	/* in the headers that moved */
	return 0;
}

/*
 * The new options @nb (@m bytes) in place of the @n in @old, with every
 * length and checksum that covers them; *@moved: by how much the packet
 * grew. Left alone if the change cannot be made.
 */
static int mmb_tcpopt_put(struct sk_buff *skb, struct mmb_pkt *pkt, const u8 *old,
			  unsigned int n, const u8 *nb, unsigned int m, int *moved)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	int delta = (int)m - (int)n, err, csum_off;
	__be32 oldlen = htonl(pkt->end - pkt->l4off);
	__be32 newlen = htonl(pkt->end - pkt->l4off + delta);
	__be16 oldw, neww, newlen16;
	__sum16 oldsum;
	__wsum hdr, len, complete;
	struct tcphdr *th;
	bool seed = false;

	if (!mmb_tcpopt_fits(skb, pkt, delta))
		return 0;
	if (skb_ensure_writable(skb, pkt->l7off))
		return -ENOMEM;
	if (delta) {
		err = mmb_tcpopt_move(skb, pkt, delta);
		if (err)
			return err;
	}
	th = (struct tcphdr *)(skb->data + pkt->l4off);
	memcpy(th + 1, nb, m);
	oldw = ((__be16 *)th)[6];
	th->doff = (sizeof(*th) + m) / 4;
	neww = ((__be16 *)th)[6];
	oldsum = th->check;

	/*
	 * The L4 checksum: the header's words (all at even offsets, and the
	 * payload moved by a multiple of 4) and the pseudo-header's length.
	 */
	hdr = csum_sub(csum_partial(nb, m, 0), csum_partial(old, n, 0));
	hdr = csum_add(hdr, csum_sub((__force __wsum)neww, (__force __wsum)oldw));
	len = csum_sub((__force __wsum)newlen, (__force __wsum)oldlen);
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		csum_off = skb_checksum_start_offset(skb);
		seed = csum_off == pkt->l4off && skb->csum_offset == offsetof(struct tcphdr, check);
	}
	if (seed)	/* the pseudo-header's sum, for the offload to finish */
		th->check = ~csum_fold(csum_add(csum_unfold(th->check), len));
	else
		th->check = csum_fold(csum_add(~csum_unfold(th->check), csum_add(hdr, len)));

	/* The IP length, and what skb->csum, if complete, sums of the bytes. */
	complete = csum_add(hdr, csum_sub((__force __wsum)th->check, (__force __wsum)oldsum));
	if (v4 && ip_hdr(skb)->tot_len) {
		struct iphdr *iph = ip_hdr(skb);
		__be16 tot = htons(ntohs(iph->tot_len) + delta);

		csum_replace2(&iph->check, iph->tot_len, tot);
		iph->tot_len = tot;	/* the header's sum is unchanged */
	} else if (!v4 && ipv6_hdr(skb)->payload_len) {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		newlen16 = htons(ntohs(ip6h->payload_len) + delta);
		complete = csum_add(complete, csum_sub((__force __wsum)newlen16,
						       (__force __wsum)ip6h->payload_len));
		ip6h->payload_len = newlen16;
	}
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->csum = csum_add(skb->csum, complete);

	if (delta > 0 && skb_is_gso(skb) && !(skb_shinfo(skb)->gso_type & SKB_GSO_FRAGLIST)) {
		struct skb_shared_info *shinfo = skb_shinfo(skb);

		/* Each segment as large as before at most. */
		skb_decrease_gso_size(shinfo, delta);
		shinfo->gso_type |= SKB_GSO_DODGY;
		shinfo->gso_segs = DIV_ROUND_UP(skb->len - pkt->l7off - delta, shinfo->gso_size);
	}
	pkt->l7off += delta;
	pkt->end += delta;
	*moved = delta;
	return 0;
}

/*
 * The option targets of @v's rules on @skb, which is not shared, after the
 * in-place rewrites: the list rebuilt once (see the uapi header). *@delta:
 * how many bytes the packet grew by (< 0: shrank).
 */
int mmb_tcpopt_rewrite(struct sk_buff *skb, struct mmb_pkt *pkt, const struct mmb_verdict *v,
		       int *delta)
{
	u8 old[MAX_TCP_OPTION_SPACE], nb[MAX_TCP_OPTION_SPACE];
	const u8 *b = pkt->key.b;
	struct mmb_optlist l;
	bool changed = false;
	unsigned int i, n;

	if (b[MMB_IMG_L4PROTO] != IPPROTO_TCP || !(b[MMB_IMG_FLAGS] & MMB_KF_L4) ||
	    (b[MMB_IMG_FLAGS] & MMB_KF_FRAG))
		return 0;	/* a fragment's length is its datagram's */
	n = pkt->l7off - pkt->l4off - sizeof(struct tcphdr);
	if (skb_copy_bits(skb, pkt->l4off + sizeof(struct tcphdr), old, n) ||
	    !mmb_optlist_read(&l, old, n))
		return 0;
	for (i = 0; i < v->nrw; i++)
		if (v->rw[i]->opts)
			changed |= mmb_optlist_apply(&l, v->rw[i], !v->trace);
	if (!changed)
		return 0;
	return mmb_tcpopt_put(skb, pkt, old, n, nb, mmb_optlist_write(&l, nb), delta);
}
