// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: rules. A rule as given (matches, targets) is checked, then compiled
 * into the mask and key of its exact part, for the per-mask hash tables,
 * and the list of matches checked after the probe (!=, <, >, payloads...).
 */
#include <linux/ipv6.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "mmb.h"

#define MMB_ETH_IP4	0x0800
#define MMB_ETH_IP6	0x86dd

static bool mmb_field_is_addr(unsigned int id)
{
	return id == MMB_FIELD_IP_SADDR || id == MMB_FIELD_IP_DADDR ||
	       id == MMB_FIELD_IP6_SADDR || id == MMB_FIELD_IP6_DADDR;
}

static u32 mmb_value_u32(const u8 *v, unsigned int len)
{
	u32 x = 0;

	while (len--)
		x = x << 8 | *v++;
	return x;
}

/* A value of a field: its length, that it fits, its prefix length. */
static int mmb_check_value(const struct mmb_field_info *f, unsigned int id,
			   const u8 *value, unsigned int vlen, unsigned int plen,
			   const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (!f->bits) {
		if (vlen < 1 || vlen > MMB_PAYLOAD_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "payload value must be 1 to 64 bytes");
			return -EINVAL;
		}
		return 0;
	}
	if (vlen != mmb_field_size(f->bits)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "value has the wrong size for its field");
		return -EINVAL;
	}
	if (f->bits < 32 && mmb_value_u32(value, vlen) >> f->bits) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "value does not fit in the field");
		return -ERANGE;
	}
	if (plen > f->bits || (plen != f->bits && !mmb_field_is_addr(id))) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "prefix length out of range for this field");
		return -EINVAL;
	}
	return 0;
}

/* The family and L4 protocol a field pins the rule to. */
static int mmb_check_proto(u8 family, u8 l4, u8 *rfamily, u8 *rl4,
			   const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (family) {
		if (*rfamily && *rfamily != family) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "rule mixes IPv4 and IPv6 fields");
			return -EINVAL;
		}
		*rfamily = family;
	}
	if (l4) {
		if (*rl4 && *rl4 != l4) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "rule mixes fields of different L4 protocols");
			return -EINVAL;
		}
		*rl4 = l4;
	}
	return 0;
}

/* A match on a TCP option: presence, or a value of the option's data. */
static int mmb_check_opt(const struct mmb_field_info *f, const struct mmb_match_spec *m,
			 struct netlink_ext_ack *extack)
{
	if (!m->vlen || !f->bits) {
		if (m->op != MMB_OP_EQ && m->op != MMB_OP_NE) {
			NL_SET_ERR_MSG_ATTR(extack, m->attr,
					    "only == and != apply to this TCP option");
			return -EINVAL;
		}
	}
	if (!m->vlen)
		return 0;
	if (m->field == MMB_FIELD_TCP_OPT && !m->kind) {
		NL_SET_ERR_MSG_ATTR(extack, m->vattr, "tcp-opt takes a value only after a kind");
		return -EINVAL;
	}
	if (m->field == MMB_FIELD_TCP_OPT_SACKP) {
		NL_SET_ERR_MSG_ATTR(extack, m->vattr, "tcp-opt-sackp carries no data");
		return -EINVAL;
	}
	if (!f->bits && m->vlen > MAX_TCP_OPTION_SPACE - 2) {
		NL_SET_ERR_MSG_ATTR(extack, m->vattr, "TCP option data is at most 38 bytes");
		return -EINVAL;
	}
	return mmb_check_value(f, m->field, m->value, m->vlen, m->plen, m->vattr, extack);
}

static int mmb_check_match(const struct mmb_match_spec *m, unsigned int n,
			   u8 *family, u8 *l4, struct netlink_ext_ack *extack)
{
	const struct mmb_field_info *f = mmb_field(m->field);
	u8 mfamily;
	int err;

	if (!f) {
		NL_SET_ERR_MSG_ATTR(extack, m->attr, "unknown field");
		return -EINVAL;
	}
	if (m->op > MMB_OP_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, m->attr, "unknown operator");
		return -EINVAL;
	}
	if (f->hdr == MMB_HDR_TCPOPT) {
		err = mmb_check_opt(f, m, extack);
		if (err)
			return err;
		return mmb_check_proto(0, f->l4, family, l4, m->attr, extack);
	}
	if (m->field == MMB_FIELD_ALL) {
		if (n != 1 || m->vlen || m->op != MMB_OP_EQ) {
			NL_SET_ERR_MSG_ATTR(extack, m->attr,
					    "\"all\" takes no value and must be the only match");
			return -EINVAL;
		}
		return 0;
	}
	err = mmb_check_value(f, m->field, m->value, m->vlen, m->plen, m->vattr,
			      extack);
	if (err)
		return err;
	if ((!f->bits || m->plen != f->bits || m->field == MMB_FIELD_IN) &&
	    m->op != MMB_OP_EQ && m->op != MMB_OP_NE) {
		NL_SET_ERR_MSG_ATTR(extack, m->attr,
				    "only == and != apply to payloads, prefixes and interfaces");
		return -EINVAL;
	}
	mfamily = f->family;
	if (m->field == MMB_FIELD_NET_PROTO) {
		u32 proto = mmb_value_u32(m->value, m->vlen);

		if (proto != MMB_ETH_IP4 && proto != MMB_ETH_IP6) {
			NL_SET_ERR_MSG_ATTR(extack, m->attr,
					    "net-proto is ip4 (0x0800) or ip6 (0x86dd)");
			return -EINVAL;
		}
		if (m->op != MMB_OP_EQ && m->op != MMB_OP_NE) {
			NL_SET_ERR_MSG_ATTR(extack, m->attr, "net-proto takes == or !=");
			return -EINVAL;
		}
		mfamily = (proto == MMB_ETH_IP4) == (m->op == MMB_OP_EQ) ? 4 : 6;
	}
	return mmb_check_proto(mfamily, f->l4, family, l4, m->attr, extack);
}

static int mmb_check_target(const struct mmb_target_spec *t, unsigned int n,
			    u8 *family, u8 *l4, struct netlink_ext_ack *extack)
{
	const struct mmb_field_info *f;
	int err;

	switch (t->type) {
	case MMB_TARGET_DROP:
		if (!t->rate || t->rate > MMB_RATE_ALWAYS) {
			NL_SET_ERR_MSG_ATTR(extack, t->attr,
					    "drop rate must be in (0, 100] percent");
			return -EINVAL;
		}
		fallthrough;
	case MMB_TARGET_ACCEPT:
		if (n != 1) {
			NL_SET_ERR_MSG_ATTR(extack, t->attr,
					    "drop and accept must be a rule's only target");
			return -EINVAL;
		}
		return 0;
	case MMB_TARGET_MOD:
		f = mmb_field(t->field);
		if (f && f->hdr == MMB_HDR_TCPOPT && !f->bits) {
			NL_SET_ERR_MSG_ATTR(extack, t->attr,
					    "of the TCP options only tcp-opt-mss and tcp-opt-wscale can be rewritten");
			return -EINVAL;
		}
		if (!f || (f->hdr != MMB_HDR_L3 && f->hdr != MMB_HDR_L4 &&
			   f->hdr != MMB_HDR_TCPOPT)) {
			NL_SET_ERR_MSG_ATTR(extack, t->attr, "this field cannot be rewritten");
			return -EINVAL;
		}
		if (f->flags & MMB_FIELD_F_NO_MOD) {
			mmb_err_structural(extack, t->fattr, f->name);
			return -EINVAL;
		}
		err = mmb_check_value(f, t->field, t->value, t->vlen, t->plen,
				      t->vattr, extack);
		if (err)
			return err;
		return mmb_check_proto(f->family, f->l4, family, l4, t->attr, extack);
	}
	NL_SET_ERR_MSG_ATTR(extack, t->attr, "unknown target");
	return -EINVAL;
}

static void mmb_set(struct mmb_key *mask, struct mmb_key *key, unsigned int off,
		    u8 m, u8 v)
{
	mask->b[off] |= m;
	key->b[off] = (key->b[off] & ~m) | (v & m);
}

/*
 * The image bits a TCP option match pins (@off, @mb, @vb), if it can be
 * put in the mask: presence or absence of a named option (or of any), the
 * value of MSS or window scale with ==. Returns how many bytes, 0 if none.
 */
static unsigned int mmb_compile_opt(const struct mmb_match *m, const u8 *value,
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
 * Put an == match (or a TCP option's absence) into @mask and @key; false
 * when it cannot go there, or when an earlier match wants other values of
 * some of its bits: the rule never matches, which the slow path finds out
 * per packet.
 */
static bool mmb_compile_eq(struct mmb_key *mask, struct mmb_key *key,
			   const struct mmb_match *m, const u8 *value)
{
	const struct mmb_field_info *f = mmb_field(m->field);
	u8 off[16], mb[16], vb[16];
	unsigned int i, n = f->len;

	if (f->hdr == MMB_HDR_TCPOPT) {
		n = mmb_compile_opt(m, value, off, mb, vb);
		if (!n)
			return false;
		goto merge;
	}
	if (m->op != MMB_OP_EQ || !f->bits || m->field == MMB_FIELD_NET_PROTO)
		return false;
	if (f->len == 16) {
		for (i = 0; i < 16; i++) {
			unsigned int bits = clamp_t(int, m->plen - i * 8, 0, 8);

			mb[i] = bits ? 0xff << (8 - bits) : 0;
			vb[i] = value[i];
		}
	} else {
		u32 fmask = f->mask, v;

		if (mmb_field_is_addr(m->field))
			fmask = m->plen ? ~0U << (32 - m->plen) : 0;
		v = mmb_value_u32(value, m->vlen) << f->shift;
		for (i = 0; i < f->len; i++) {
			unsigned int sh = (f->len - 1 - i) * 8;

			mb[i] = fmask >> sh;
			vb[i] = v >> sh;
		}
	}
	for (i = 0; i < n; i++)
		off[i] = f->img + i;
	/*
	 * The image holds IPv4's protocol twice: as the L4 protocol of every
	 * family, which a rule on TCP or UDP fields constrains anyway, and in
	 * the header. A five-tuple then spans two chunks, not three.
	 */
	if (m->field == MMB_FIELD_IP_PROTO)
		off[0] = MMB_IMG_L4PROTO;
merge:
	for (i = 0; i < n; i++)
		if ((key->b[off[i]] ^ vb[i]) & mask->b[off[i]] & mb[i])
			return false;
	for (i = 0; i < n; i++)
		mmb_set(mask, key, off[i], mb[i], vb[i]);
	return true;
}

/*
 * The mask and key of the exact part of @rule, for the per-mask tables;
 * returns the matches left to the slow path (bit i for match i). Always
 * the same for the same rule: its tables find it again by them.
 */
u32 mmb_rule_key(const struct mmb_rule *rule, struct mmb_key *mask, struct mmb_key *key)
{
	unsigned int i;
	u32 slow = 0;

	memset(mask, 0, sizeof(*mask));
	memset(key, 0, sizeof(*key));
	if (rule->family)
		mmb_set(mask, key, MMB_IMG_FAMILY, 0xff, rule->family);
	if (rule->l4) {
		mmb_set(mask, key, MMB_IMG_L4PROTO, 0xff, rule->l4);
		mmb_set(mask, key, MMB_IMG_FLAGS, MMB_KF_L4, MMB_KF_L4);
	}
	for (i = 0; i < rule->nmatches; i++) {
		const struct mmb_match *m = &rule->m[i];

		if (m->field != MMB_FIELD_ALL &&
		    !mmb_compile_eq(mask, key, m, mmb_match_value(rule, m)))
			slow |= BIT(i);
	}
	return slow;
}

/* Bytes of the values of @spec's matches and mod targets. */
static size_t mmb_spec_values(const struct mmb_rule_spec *spec)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < spec->nmatches; i++)
		n += spec->m[i].vlen;
	for (i = 0; i < spec->ntargets; i++)
		n += spec->t[i].vlen;
	return n;
}

/* Fill @rule, allocated for @spec, from it; and spec->img. */
static void mmb_rule_fill(struct mmb_rule *rule, struct mmb_rule_spec *spec)
{
	struct mmb_target *t = (struct mmb_target *)&rule->m[spec->nmatches];
	u8 *values = (u8 *)(t + spec->ntargets);
	unsigned int i, off = 0;

	rule->nmatches = spec->nmatches;
	rule->ntargets = spec->ntargets;
	for (i = 0; i < spec->nmatches; i++) {
		const struct mmb_match_spec *ms = &spec->m[i];

		rule->m[i] = (struct mmb_match){
			.field = ms->field, .op = ms->op, .plen = ms->plen,
			.vlen = ms->vlen, .kind = ms->kind, .voff = off,
		};
		memcpy(values + off, ms->value, ms->vlen);
		off += ms->vlen;
	}
	for (i = 0; i < spec->ntargets; i++) {
		const struct mmb_target_spec *ts = &spec->t[i];

		t[i] = (struct mmb_target){
			.type = ts->type, .field = ts->field, .plen = ts->plen,
			.vlen = ts->vlen, .rate = ts->rate, .voff = off,
		};
		memcpy(values + off, ts->value, ts->vlen);
		off += ts->vlen;
		if (ts->type == MMB_TARGET_ACCEPT) {
			rule->accept = true;
		} else if (ts->type == MMB_TARGET_DROP) {
			rule->drop = true;
			rule->drop_rate = ts->rate;
		} else {
			rule->rewrite = true;
		}
	}
	rule->slow = mmb_rule_key(rule, &spec->img.mask, &spec->img.key);
}

/*
 * A rule for @spec; spec->img then holds its mask and key, for its
 * insertion. Its counters come from @pool, or, without one, a block of its own.
 */
struct mmb_rule *mmb_rule_create(struct mmb_rule_spec *spec, struct mmb_stats_pool *pool,
				 struct netlink_ext_ack *extack)
{
	struct mmb_stats_pool one = { .want = 1 };
	struct mmb_rule *rule;
	u8 family = 0, l4 = 0;
	unsigned int i;
	int err;

	/* The targets follow the matches, aligned. */
	BUILD_BUG_ON(offsetof(struct mmb_rule, m) % __alignof__(struct mmb_target) ||
		     sizeof(struct mmb_match) % __alignof__(struct mmb_target));
	if (!spec->nmatches || spec->nmatches > MMB_MAX_MATCHES) {
		NL_SET_ERR_MSG(extack, "a rule needs 1 to 32 matches");
		return ERR_PTR(-EINVAL);
	}
	if (!spec->ntargets || spec->ntargets > MMB_MAX_TARGETS) {
		NL_SET_ERR_MSG(extack, "a rule needs 1 to 16 targets");
		return ERR_PTR(-EINVAL);
	}
	for (i = 0; i < spec->nmatches; i++) {
		err = mmb_check_match(&spec->m[i], spec->nmatches, &family, &l4,
				      extack);
		if (err)
			return ERR_PTR(err);
	}
	for (i = 0; i < spec->ntargets; i++) {
		err = mmb_check_target(&spec->t[i], spec->ntargets, &family, &l4,
				       extack);
		if (err)
			return ERR_PTR(err);
	}

	rule = kzalloc(struct_size(rule, m, spec->nmatches) +
		       spec->ntargets * sizeof(struct mmb_target) + mmb_spec_values(spec),
		       GFP_KERNEL_ACCOUNT);
	if (!rule)
		return ERR_PTR(-ENOMEM);
	rule->stats = mmb_stats_take(pool ?: &one, &rule->sblk);
	mmb_stats_pool_end(&one);
	if (!rule->stats) {
		kfree(rule);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&rule->ref, 1);
	rule->family = family;
	rule->l4 = l4;
	mmb_rule_fill(rule, spec);
	return rule;
}

/* Free a rule that was never published. */
void mmb_rule_free(struct mmb_rule *rule)
{
	mmb_stats_put(rule->sblk);
	kfree(rule);
}

static void mmb_rule_free_rcu(struct rcu_head *head)
{
	mmb_rule_free(container_of(head, struct mmb_rule, rcu));
}

/* Drop a ruleset's reference; readers may still see the rule meanwhile. */
void mmb_rule_put(struct mmb_rule *rule)
{
	if (refcount_dec_and_test(&rule->ref))
		call_rcu(&rule->rcu, mmb_rule_free_rcu);
}

static bool mmb_op_holds(u8 op, int cmp)
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
 * The first TCP option of @kind (0: any) of the packet. Returns the length
 * of its data, which *@data points at (in the skb, or copied to @buf of
 * MAX_TCP_OPTION_SPACE bytes), and sets *@off to the data's offset in the
 * TCP header; -1 if there is none. A malformed option ends the walk.
 */
int mmb_tcp_opt_find(const struct sk_buff *skb, const struct mmb_pkt *pkt, u8 kind,
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
static bool mmb_opt_eval(const struct mmb_match *m, const u8 *value,
			 const struct mmb_field_info *f, const struct mmb_pkt *pkt,
			 const struct sk_buff *skb)
{
	u8 buf[MAX_TCP_OPTION_SPACE];
	const u8 *data;
	unsigned int off;
	int dlen, cmp;

	dlen = mmb_tcp_opt_find(skb, pkt, m->field == MMB_FIELD_TCP_OPT ? m->kind : f->hoff,
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
	if (f->hdr == MMB_HDR_TCPOPT)
		return mmb_opt_eval(m, value, f, pkt, skb);
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
		u32 want = mmb_value_u32(value, m->vlen);

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
	unsigned long slow = rule->slow;
	unsigned int i;

	for_each_set_bit(i, &slow, MMB_MAX_MATCHES)
		if (!mmb_match_holds(&rule->m[i], mmb_match_value(rule, &rule->m[i]), pkt, skb))
			return false;
	return true;
}
