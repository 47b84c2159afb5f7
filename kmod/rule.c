// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: rules, the control plane's side. A rule as given (matches, targets)
 * is checked, then compiled into the mask and key of its exact part, for
 * the per-mask hash tables, and the list of matches checked after the
 * probe (!=, <, >, payloads...), which match.c evaluates per packet. What
 * is wrong with a rule is said in a struct mmb_rule_err: which match or
 * target, which part of it; nlrule.c points the extended ACK there.
 */
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/slab.h>

#include "log.h"
#include "rule.h"
#include "tcpopt.h"

/* An address: a field with a prefix. */
bool mmb_field_is_addr(unsigned int id)
{
	return id == MMB_FIELD_IP_SADDR || id == MMB_FIELD_IP_DADDR ||
	       id == MMB_FIELD_IP6_SADDR || id == MMB_FIELD_IP6_DADDR;
}

/* A field of a connection's tuple: rewriting it per connection is NAT. */
bool mmb_field_is_endpoint(unsigned int id)
{
	return mmb_field_is_addr(id) || id == MMB_FIELD_TCP_SPORT || id == MMB_FIELD_TCP_DPORT ||
	       id == MMB_FIELD_UDP_SPORT || id == MMB_FIELD_UDP_DPORT;
}

u32 mmb_value_u32(const u8 *v, unsigned int len)
{
	u32 x = 0;

	while (len--)
		x = x << 8 | *v++;
	return x;
}

/* A value of a field: its length, that it fits, its prefix length. */
int mmb_check_value(const struct mmb_field_info *f, unsigned int id,
		    const u8 *value, unsigned int vlen, unsigned int plen,
		    int part, unsigned int index, struct mmb_rule_err *err)
{
	if (!f->bits) {
		if (vlen < 1 || vlen > MMB_PAYLOAD_MAX) {
			mmb_rule_err(err, part, index, "payload value must be 1 to 64 bytes");
			return -EINVAL;
		}
		return 0;
	}
	if (vlen != mmb_field_size(f->bits)) {
		mmb_rule_err(err, part, index, "value has the wrong size for its field");
		return -EINVAL;
	}
	if (f->bits < 32 && mmb_value_u32(value, vlen) >> f->bits) {
		mmb_rule_err(err, part, index, "value does not fit in the field");
		return -ERANGE;
	}
	if (plen > f->bits || (plen != f->bits && !mmb_field_is_addr(id))) {
		mmb_rule_err(err, part, index, "prefix length out of range for this field");
		return -EINVAL;
	}
	return 0;
}

/* The family and L4 protocol a field pins the rule to. */
static int mmb_check_proto(u8 family, u8 l4, u8 *rfamily, u8 *rl4,
			   int part, unsigned int index, struct mmb_rule_err *err)
{
	if (family) {
		if (*rfamily && *rfamily != family) {
			mmb_rule_err(err, part, index, "rule mixes IPv4 and IPv6 fields");
			return -EINVAL;
		}
		*rfamily = family;
	}
	if (l4) {
		if (*rl4 && *rl4 != l4) {
			mmb_rule_err(err, part, index,
				     "rule mixes fields of different L4 protocols");
			return -EINVAL;
		}
		*rl4 = l4;
	}
	return 0;
}

/* net-proto: IPv4 or IPv6, == or !=; sets the family it pins the rule to. */
static int mmb_check_net_proto(const struct mmb_match_spec *m, unsigned int i,
			       u8 *mfamily, struct mmb_rule_err *err)
{
	u32 proto = mmb_value_u32(m->value, m->vlen);

	if (proto != MMB_ETH_IP4 && proto != MMB_ETH_IP6) {
		mmb_rule_err(err, MMB_ERR_MATCH, i, "net-proto is ip4 (0x0800) or ip6 (0x86dd)");
		return -EINVAL;
	}
	if (m->op != MMB_OP_EQ && m->op != MMB_OP_NE) {
		mmb_rule_err(err, MMB_ERR_MATCH, i, "net-proto takes == or !=");
		return -EINVAL;
	}
	*mfamily = (proto == MMB_ETH_IP4) == (m->op == MMB_OP_EQ) ? 4 : 6;
	return 0;
}

/*
 * A meta-mark's value and mask (MMB_MARK_VLEN): a mask of 0 would match or
 * set nothing; a match's value has no bit its mask leaves out.
 */
static int mmb_check_mark(const u8 *value, unsigned int vlen, bool match, int part,
			  unsigned int index, struct mmb_rule_err *err)
{
	u32 v, mask;

	if (vlen != MMB_MARK_VLEN) {
		mmb_rule_err(err, part, index, "meta-mark takes a 32-bit value");
		return -EINVAL;
	}
	v = get_unaligned_be32(value);
	mask = get_unaligned_be32(value + 4);
	if (!mask) {
		mmb_rule_err(err, part, index, "a meta-mark mask of 0 leaves no bit to match or set");
		return -EINVAL;
	}
	if (match && (v & ~mask)) {
		mmb_rule_err(err, part, index,
			     "the meta-mark value has bits outside its mask: it never matches");
		return -EINVAL;
	}
	return 0;
}

/* Match @i of @n, a header field's or "all". */
static int mmb_check_match(const struct mmb_match_spec *m, unsigned int i, unsigned int n,
			   u8 *family, u8 *l4, struct mmb_rule_err *err)
{
	const struct mmb_field_info *f = mmb_field(m->field);
	u8 mfamily;
	int ret;

	if (!f) {
		mmb_rule_err(err, MMB_ERR_MATCH, i, "unknown field");
		return -EINVAL;
	}
	if (m->op > MMB_OP_MAX) {
		mmb_rule_err(err, MMB_ERR_MATCH, i, "unknown operator");
		return -EINVAL;
	}
	if (f->hdr == MMB_HDR_TCPOPT) {
		ret = mmb_tcpopt_check(f, m, i, err);
		return ret ?: mmb_check_proto(0, f->l4, family, l4, MMB_ERR_MATCH, i, err);
	}
	if (m->field == MMB_FIELD_ALL) {
		if (n != 1 || m->vlen || m->op != MMB_OP_EQ) {
			mmb_rule_err(err, MMB_ERR_MATCH, i,
				     "\"all\" takes no value and must be the only match");
			return -EINVAL;
		}
		return 0;
	}
	if (m->field == MMB_FIELD_META_MARK)
		return mmb_check_mark(m->value, m->vlen, true, MMB_ERR_MATCH_VALUE, i, err);
	if (mmb_field_is_dev(m->field)) {
		const char *why;

		if (m->vlen != MMB_IN_VLEN || m->value[MMB_IN_VLEN - 1]) {
			mmb_rule_err(err, MMB_ERR_MATCH_VALUE, i,
				     m->field == MMB_FIELD_IN ? "\"in\" takes an interface name" :
				     "\"out\" takes an interface name");
			return -EINVAL;
		}
		why = mmb_ifname_invalid((const char *)m->value + 4, false);
		if (why) {
			mmb_rule_err(err, MMB_ERR_MATCH_VALUE, i, why);
			return -EINVAL;
		}
		/* The name's id is matched whole (the fast path ignores a prefix). */
		if (m->plen != f->bits) {
			mmb_rule_err(err, MMB_ERR_MATCH, i, "a device's match takes no prefix");
			return -EINVAL;
		}
	} else {
		ret = mmb_check_value(f, m->field, m->value, m->vlen, m->plen,
				      MMB_ERR_MATCH_VALUE, i, err);
		if (ret)
			return ret;
	}
	if ((!f->bits || m->plen != f->bits || mmb_field_is_dev(m->field)) &&
	    m->op != MMB_OP_EQ && m->op != MMB_OP_NE) {
		mmb_rule_err(err, MMB_ERR_MATCH, i,
			     "only == and != apply to payloads, prefixes and interfaces");
		return -EINVAL;
	}
	mfamily = f->family;
	if (m->field == MMB_FIELD_NET_PROTO) {
		ret = mmb_check_net_proto(m, i, &mfamily, err);
		if (ret)
			return ret;
	}
	return mmb_check_proto(mfamily, f->l4, family, l4, MMB_ERR_MATCH, i, err);
}

/* A mod target's field: one that can be rewritten, with a value that fits. */
static int mmb_check_mod(const struct mmb_target_spec *t, unsigned int i,
			 u8 *family, u8 *l4, struct mmb_rule_err *err)
{
	const struct mmb_field_info *f = mmb_field(t->field);
	int ret;

	if (f && f->hdr == MMB_HDR_MARK)
		return mmb_check_mark(t->value, t->vlen, false, MMB_ERR_TARGET_VALUE, i, err);
	if (!f || (f->hdr != MMB_HDR_L3 && f->hdr != MMB_HDR_L4 && f->hdr != MMB_HDR_TCPOPT)) {
		mmb_rule_err(err, MMB_ERR_TARGET, i, "this field cannot be rewritten");
		return -EINVAL;
	}
	if (f->flags & MMB_FIELD_F_NO_MOD) {
		mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i,
			     "this field describes the packet's structure and cannot be rewritten");
		if (err)
			snprintf(err->text, sizeof(err->text),
				 "%s describes the packet's structure and cannot be rewritten",
				 f->name);
		return -EINVAL;
	}
	ret = mmb_check_value(f, t->field, t->value, t->vlen, t->plen, MMB_ERR_TARGET_VALUE,
			      i, err);
	return ret ?: mmb_check_proto(f->family, f->l4, family, l4, MMB_ERR_TARGET, i, err);
}

/* An option list's target: strip, add, or a mod that may change a length. */
static int mmb_check_opts(const struct mmb_target_spec *t, unsigned int i,
			  u8 *family, u8 *l4, struct mmb_rule_err *err)
{
	int ret = mmb_tcpopt_check_target(t, i, err);

	return ret ?: mmb_check_proto(0, IPPROTO_TCP, family, l4, MMB_ERR_TARGET, i, err);
}

static bool mmb_field_is_port(unsigned int id)
{
	return id == MMB_FIELD_TCP_SPORT || id == MMB_FIELD_TCP_DPORT ||
	       id == MMB_FIELD_UDP_SPORT || id == MMB_FIELD_UDP_DPORT;
}

/* shuffle FIELD [RANGE]: a port (with a range), sequence numbers, an ID, a label. */
static int mmb_check_shuffle(const struct mmb_target_spec *t, unsigned int i,
			     u8 *family, u8 *l4, struct mmb_rule_err *err)
{
	const struct mmb_field_info *f = mmb_field(t->field);

	if (mmb_field_is_port(t->field)) {
		u16 lo = get_unaligned_be16(t->value), hi = get_unaligned_be16(t->value + 2);

		if (t->vlen && (t->vlen != 4 || !lo || lo > hi)) {
			mmb_rule_err(err, MMB_ERR_TARGET_VALUE, i,
				     "a port range is FIRST-LAST, 1 <= FIRST <= LAST <= 65535");
			return -EINVAL;
		}
	} else if (t->field == MMB_FIELD_TCP_SEQ_NUM || t->field == MMB_FIELD_TCP_ACK_NUM ||
		   t->field == MMB_FIELD_IP_ID || t->field == MMB_FIELD_IP6_FLOW_LABEL) {
		if (t->vlen) {
			mmb_rule_err(err, MMB_ERR_TARGET_VALUE, i, "this shuffle takes no value");
			return -EINVAL;
		}
	} else {
		mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i,
			     "shuffle takes a port, tcp-seq-num, tcp-ack-num, ip-id or ip6-flow-label");
		return -EINVAL;
	}
	return mmb_check_proto(f->family, f->l4, family, l4, MMB_ERR_TARGET, i, err);
}

/*
 * reject [with ANSWER]: a verdict, the rule's only target, of a stateless
 * rule (a connection would add nothing to an answer per packet); a RST
 * answers TCP only (mmb_check_spec(), which knows the matches).
 */
static int mmb_check_reject(const struct mmb_target_spec *t, unsigned int i, unsigned int n,
			    bool stateful, struct mmb_rule_err *err)
{
	if (n != 1) {
		mmb_rule_err(err, MMB_ERR_TARGET, i,
			     "reject must be a rule's only target: it drops, and cannot accept or rewrite");
		return -EINVAL;
	}
	if (stateful) {
		mmb_rule_err(err, MMB_ERR_TARGET, i,
			     "reject answers each packet: for stateless rules only (add, not add-stateful)");
		return -EINVAL;
	}
	if (t->reject > MMB_REJECT_MAX) {
		mmb_rule_err(err, MMB_ERR_TARGET, i, "unknown reject answer");
		return -EINVAL;
	}
	return 0;
}

/*
 * Does @spec, whose fields pin it to L4 protocol @l4, judge TCP segments
 * only: a tcp- field, or ip-proto == tcp?
 */
static bool mmb_spec_tcp(const struct mmb_rule_spec *spec, u8 l4)
{
	unsigned int i;

	if (l4 == IPPROTO_TCP)
		return true;
	for (i = 0; i < spec->nmatches; i++)
		if ((spec->m[i].field == MMB_FIELD_IP_PROTO ||
		     spec->m[i].field == MMB_FIELD_L4_PROTO) && spec->m[i].op == MMB_OP_EQ &&
		    spec->m[i].vlen == 1 && spec->m[i].value[0] == IPPROTO_TCP)
			return true;
	return false;
}

/* Target @i of @n, of a stateful rule if @stateful. */
static int mmb_check_target(const struct mmb_target_spec *t, unsigned int i, unsigned int n,
			    bool stateful, u8 *family, u8 *l4, struct mmb_rule_err *err)
{
	if ((t->type == MMB_TARGET_MAP || t->type == MMB_TARGET_SHUFFLE ||
	     t->type == MMB_TARGET_MASQUERADE) && !stateful) {
		mmb_rule_err(err, MMB_ERR_TARGET, i,
			     "map, shuffle and masquerade are per connection: for stateful rules only");
		return -EINVAL;
	}
	switch (t->type) {
	case MMB_TARGET_DROP:
		if (!t->rate || t->rate > MMB_RATE_ALWAYS) {
			mmb_rule_err(err, MMB_ERR_TARGET, i, "drop rate must be in (0, 100] percent");
			return -EINVAL;
		}
		fallthrough;
	case MMB_TARGET_ACCEPT:
		if (n != 1) {
			mmb_rule_err(err, MMB_ERR_TARGET, i,
				     "drop and accept must be a rule's only target");
			return -EINVAL;
		}
		return 0;
	case MMB_TARGET_REJECT:
		return mmb_check_reject(t, i, n, stateful, err);
	case MMB_TARGET_STRIP:
	case MMB_TARGET_ADD:
		return mmb_check_opts(t, i, family, l4, err);
	case MMB_TARGET_MAP:
		if (!mmb_field_is_endpoint(t->field)) {
			mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i,
				     "map takes an address or a TCP or UDP port");
			return -EINVAL;
		}
		fallthrough;
	case MMB_TARGET_MOD:
		if (mmb_target_is_opts(t->type, t->field))
			return mmb_check_opts(t, i, family, l4, err);
		return mmb_check_mod(t, i, family, l4, err);
	case MMB_TARGET_SHUFFLE:
		return mmb_check_shuffle(t, i, family, l4, err);
	case MMB_TARGET_MASQUERADE:
		return 0;
	case MMB_TARGET_COUNT:
		if (n != 1) {
			mmb_rule_err(err, MMB_ERR_TARGET, i,
				     "count must be a rule's only target: every rule counts what it matches");
			return -EINVAL;
		}
		if (stateful) {
			mmb_rule_err(err, MMB_ERR_TARGET, i,
				     "count is for stateless rules: a stateful rule counts its connections' packets");
			return -EINVAL;
		}
		return 0;
	}
	mmb_rule_err(err, MMB_ERR_TARGET, i, "unknown target");
	return -EINVAL;
}

/* Does target @t, of a rule stateful if @stateful, belong to its connections? */
bool mmb_target_is_nat(const struct mmb_target *t, bool stateful)
{
	return t->type == MMB_TARGET_MAP || t->type == MMB_TARGET_SHUFFLE ||
	       t->type == MMB_TARGET_MASQUERADE ||
	       (stateful && t->type == MMB_TARGET_MOD && mmb_field_is_endpoint(t->field));
}

/* A stateful rule maps or shuffles each field once at most. */
static int mmb_check_nat(const struct mmb_rule_spec *spec, struct mmb_rule_err *err)
{
	unsigned int i, j;

	for (i = 0; spec->stateful && i < spec->ntargets; i++) {
		const struct mmb_target_spec *t = &spec->t[i];

		if (t->type != MMB_TARGET_MOD && t->type != MMB_TARGET_MAP &&
		    t->type != MMB_TARGET_SHUFFLE)
			continue;
		for (j = 0; j < i; j++) {
			if (spec->t[j].field != t->field ||
			    (spec->t[j].type == MMB_TARGET_MOD && t->type == MMB_TARGET_MOD &&
			     !mmb_field_is_endpoint(t->field)))
				continue;
			mmb_rule_err(err, MMB_ERR_TARGET_FIELD, i,
				     "this field is already mapped or shuffled by the rule");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Which way @spec judges (uapi: MMB_FIELD_LEAVING): *@out for leaving
 * packets. "leaving" is a plain == flag; "in" names the arriving device,
 * which a leaving packet's image does not hold (its "out" is there).
 */
static int mmb_check_dir(const struct mmb_rule_spec *spec, bool *out, struct mmb_rule_err *err)
{
	int in = -1, arriving = -1, leaving = -1, dev = -1;
	unsigned int i;

	for (i = 0; i < spec->nmatches; i++) {
		const struct mmb_match_spec *m = &spec->m[i];

		if (m->field == MMB_FIELD_IN)
			in = i;
		else if (m->field == MMB_FIELD_OUT)
			dev = i;
		else if (m->field != MMB_FIELD_LEAVING)
			continue;
		else if (m->op != MMB_OP_EQ)
			goto op;
		else if (m->value[0])
			leaving = i;
		else
			arriving = i;
	}
	*out = leaving >= 0 || dev >= 0;
	if (*out && arriving >= 0) {
		mmb_rule_err(err, MMB_ERR_MATCH, arriving,
			     "a rule with out or leaving judges leaving packets, not arriving ones");
		return -EINVAL;
	}
	if (*out && in >= 0) {
		mmb_rule_err(err, MMB_ERR_MATCH, in,
			     "a leaving rule cannot match the arriving device: use out");
		return -EINVAL;
	}
	return 0;
op:
	mmb_rule_err(err, MMB_ERR_MATCH, i, "leaving takes no operator but ==");
	return -EINVAL;
}

/* All of @spec; the family and L4 protocol it pins the rule to, its way. */
static int mmb_check_spec(const struct mmb_rule_spec *spec, u8 *family, u8 *l4, bool *out,
			  struct mmb_rule_err *err)
{
	unsigned int i;
	int ret;

	if (!spec->nmatches || spec->nmatches > MMB_MAX_MATCHES) {
		mmb_rule_err(err, MMB_ERR_RULE, 0, "a rule needs 1 to 32 matches");
		return -EINVAL;
	}
	if (!spec->ntargets || spec->ntargets > MMB_MAX_TARGETS) {
		mmb_rule_err(err, MMB_ERR_RULE, 0, "a rule needs 1 to 16 targets");
		return -EINVAL;
	}
	for (i = 0; i < spec->nmatches; i++) {
		ret = mmb_check_match(&spec->m[i], i, spec->nmatches, family, l4, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < spec->ntargets; i++) {
		ret = mmb_check_target(&spec->t[i], i, spec->ntargets, spec->stateful, family, l4,
				       err);
		if (ret)
			return ret;
	}
	if (spec->t[0].type == MMB_TARGET_REJECT && spec->t[0].reject == MMB_REJECT_TCP_RESET &&
	    !mmb_spec_tcp(spec, *l4)) {
		mmb_rule_err(err, MMB_ERR_TARGET_VALUE, 0,
			     "with tcp-reset is for TCP rules only (ip-proto tcp, or a tcp- field)");
		return -EINVAL;
	}
	ret = mmb_check_nat(spec, err);
	if (!ret)
		ret = mmb_check_dir(spec, out, err);
	if (!ret)
		ret = mmb_cc_check(&spec->cc, spec->stateful, *out, family, err);
	if (!ret && spec->offload && *out) {
		mmb_rule_err(err, MMB_ERR_RULE, 0,
			     "offload is for arriving rules: the fast path starts where a packet arrives");
		return -EINVAL;
	}
	for (i = 0; !ret && !*out && i < spec->ntargets; i++) {
		const struct mmb_target_spec *t = &spec->t[i];

		if (t->type == MMB_TARGET_MASQUERADE) {
			mmb_rule_err(err, MMB_ERR_TARGET, i,
				     "masquerade maps to the address of the device a packet leaves by: for a leaving rule (out or leaving)");
			return -EINVAL;
		}
		if (mmb_target_mss_pmtu(t->type, t->field, t->value, t->vlen)) {
			mmb_rule_err(err, MMB_ERR_TARGET_VALUE, i,
				     "an MSS from the route (pmtu, 0) is for a leaving rule (out or leaving)");
			return -EINVAL;
		}
	}
	return ret;
}

static void mmb_set(struct mmb_key *mask, struct mmb_key *key, unsigned int off,
		    u8 m, u8 v)
{
	mask->b[off] |= m;
	key->b[off] = (key->b[off] & ~m) | (v & m);
}

/*
 * The image bits of an == match on a header field (@off, @mb, @vb); how
 * many bytes, 0 if the match cannot go into a mask.
 */
static unsigned int mmb_compile_field(const struct mmb_match *m, const u8 *value,
				      const struct mmb_field_info *f, u8 *off, u8 *mb, u8 *vb)
{
	unsigned int i;

	if (m->op != MMB_OP_EQ || !f->bits || m->field == MMB_FIELD_NET_PROTO)
		return 0;
	if (f->len == 16) {
		for (i = 0; i < 16; i++) {
			mb[i] = mmb_prefix_mask(m->plen, i);
			vb[i] = value[i];
		}
	} else {
		u32 fmask = f->mask, v;

		if (mmb_field_is_addr(m->field))
			fmask = m->plen ? ~0U << (32 - m->plen) : 0;
		v = mmb_value_u32(value, min_t(unsigned int, m->vlen, 4)) << f->shift;
		for (i = 0; i < f->len; i++) {
			unsigned int sh = (f->len - 1 - i) * 8;

			mb[i] = fmask >> sh;
			vb[i] = v >> sh;
		}
	}
	for (i = 0; i < f->len; i++)
		off[i] = f->img + i;
	/*
	 * The image holds IPv4's protocol twice: as the L4 protocol of every
	 * family, which a rule on TCP or UDP fields constrains anyway, and in
	 * the header. A five-tuple then spans two chunks, not three.
	 */
	if (m->field == MMB_FIELD_IP_PROTO)
		off[0] = MMB_IMG_L4PROTO;
	return f->len;
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
	unsigned int i, n;

	if (f->hdr == MMB_HDR_TCPOPT)
		n = mmb_tcpopt_compile(m, value, off, mb, vb);
	else
		n = mmb_compile_field(m, value, f, off, mb, vb);
	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if ((key->b[off[i]] ^ vb[i]) & mask->b[off[i]] & mb[i])
			return false;
	for (i = 0; i < n; i++)
		mmb_set(mask, key, off[i], mb[i], vb[i]);
	return true;
}

/*
 * The image bits of == match @m of @rule, whose value is @value, added to
 * @mask; false if it has none (it is checked after the probe).
 */
bool mmb_match_mask(const struct mmb_rule *rule, const struct mmb_match *m, const u8 *value,
		    struct mmb_key *mask)
{
	struct mmb_key key = {};

	return !(rule->slow & BIT(m - rule->m)) && m->field != MMB_FIELD_ALL &&
	       mmb_compile_eq(mask, &key, m, value);
}

/*
 * The mask and key of the exact part of @rule, for the per-mask tables;
 * returns the matches left to the slow path (bit i for match i). Always
 * the same for the same rule: its tables find it again by them.
 */
u32 mmb_rule_key(const struct mmb_rule *rule, struct mmb_key *mask, struct mmb_key *key)
{
	const struct mmb_match *m;
	const u8 *value;
	u32 slow = 0;

	memset(mask, 0, sizeof(*mask));
	memset(key, 0, sizeof(*key));
	if (rule->family)
		mmb_set(mask, key, MMB_IMG_FAMILY, 0xff, rule->family);
	if (rule->l4) {
		mmb_set(mask, key, MMB_IMG_L4PROTO, 0xff, rule->l4);
		mmb_set(mask, key, MMB_IMG_FLAGS, MMB_KF_L4, MMB_KF_L4);
	}
	/* Every rule says which way it judges: arriving is a 0 there. */
	mmb_set(mask, key, MMB_IMG_FLAGS, MMB_KF_OUT, rule->out ? MMB_KF_OUT : 0);
	for (m = rule->m, value = mmb_rule_values(rule); m < rule->m + rule->nmatches;
	     value += m->vlen, m++)
		if (m->field != MMB_FIELD_ALL && !mmb_compile_eq(mask, key, m, value))
			slow |= BIT(m - rule->m);
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

/*
 * Does @spec accept, drop or only count (its only target then), which its
 * rule's flags say (count: neither accept nor drop)?
 */
static bool mmb_spec_verdict_only(const struct mmb_rule_spec *spec)
{
	return spec->t[0].type == MMB_TARGET_ACCEPT || spec->t[0].type == MMB_TARGET_DROP ||
	       spec->t[0].type == MMB_TARGET_COUNT || spec->t[0].type == MMB_TARGET_REJECT;
}

/* Has @spec option targets, whose rule keeps a count of the ones not added? */
static bool mmb_spec_opts(const struct mmb_rule_spec *spec)
{
	unsigned int i;

	for (i = 0; i < spec->ntargets; i++)
		if (mmb_target_is_opts(spec->t[i].type, spec->t[i].field))
			return true;
	return false;
}

/* The size of a rule for @spec, laid out as rule.h's accessors read it. */
static size_t mmb_spec_size(const struct mmb_rule_spec *spec)
{
	size_t n = ALIGN(sizeof(struct mmb_rule) + spec->nmatches * sizeof(struct mmb_match),
			 __alignof__(struct mmb_target));

	if (!mmb_spec_verdict_only(spec))
		n += spec->ntargets * sizeof(struct mmb_target);
	n += mmb_spec_values(spec);
	if (mmb_spec_opts(spec))
		n = ALIGN(n, __alignof__(atomic64_t)) + sizeof(atomic64_t);
	if (spec->clen)
		n += spec->clen + 1;
	return n;
}

/* Fill @rule, allocated for @spec, from it; and spec->img. */
static void mmb_rule_fill(struct mmb_rule *rule, struct mmb_rule_spec *spec)
{
	struct mmb_target *t;
	unsigned int i, off = 0;
	u8 *values;

	rule->nmatches = spec->nmatches;
	rule->ntargets = mmb_spec_verdict_only(spec) ? 0 : spec->ntargets;
	rule->stateful = spec->stateful;
	rule->offload = spec->offload;
	rule->opts = mmb_spec_opts(spec);
	t = (struct mmb_target *)mmb_rule_targets(rule);
	values = (u8 *)mmb_rule_values(rule);
	for (i = 0; i < spec->nmatches; i++) {
		const struct mmb_match_spec *ms = &spec->m[i];

		rule->m[i] = (struct mmb_match){
			.field = ms->field, .op = ms->op, .plen = ms->plen,
			.vlen = ms->vlen, .kind = ms->kind,
		};
		memcpy(values + off, ms->value, ms->vlen);
		off += ms->vlen;
	}
	if (spec->t[0].type == MMB_TARGET_ACCEPT) {
		rule->accept = true;
	} else if (spec->t[0].type == MMB_TARGET_DROP) {
		rule->drop = true;
		rule->drop_rate = spec->t[0].rate;
	} else if (spec->t[0].type == MMB_TARGET_REJECT) {
		rule->drop = true;
		rule->drop_rate = MMB_RATE_ALWAYS;
		rule->reject = spec->t[0].reject + 1;
	}
	for (i = 0; i < rule->ntargets; i++) {
		const struct mmb_target_spec *ts = &spec->t[i];

		t[i] = (struct mmb_target){
			.type = ts->type, .field = ts->field, .plen = ts->plen,
			.vlen = ts->vlen, .voff = off,
			.kind = ts->kind, .invert = ts->invert,
		};
		memcpy(values + off, ts->value, ts->vlen);
		off += ts->vlen;
		if (mmb_target_is_nat(&t[i], spec->stateful))
			rule->nat = true;
		else
			rule->rewrite = true;
	}
	rule->slow = mmb_rule_key(rule, &spec->img.mask, &spec->img.key);
	if (spec->clen) {
		rule->clen = spec->clen;
		memcpy((char *)mmb_rule_comment(rule), spec->comment, spec->clen);
	}
}

/*
 * Rules come from caches whose sizes are 16 bytes apart, up to 256 bytes
 * (larger ones from kmalloc): kmalloc's are 64 bytes apart there, and a
 * five-tuple drop rule of 109 bytes would take a 128-byte object.
 */
#define MMB_RULE_STEP		16
#define MMB_RULE_CACHES		(256 / MMB_RULE_STEP)

static struct kmem_cache *mmb_rule_caches[MMB_RULE_CACHES];

int __init mmb_rule_caches_init(void)
{
	char name[24];
	unsigned int i;

	BUILD_BUG_ON(MMB_RULE_STEP % __alignof__(struct mmb_rule));
	/* The smallest rule, "all" with a verdict, needs the first of them. */
	for (i = DIV_ROUND_UP(sizeof(struct mmb_rule), MMB_RULE_STEP) - 1;
	     i < MMB_RULE_CACHES; i++) {
		snprintf(name, sizeof(name), "mmb_rule_%u", (i + 1) * MMB_RULE_STEP);
		mmb_rule_caches[i] = kmem_cache_create(name, (i + 1) * MMB_RULE_STEP,
						       __alignof__(struct mmb_rule),
						       SLAB_ACCOUNT, NULL);
		if (!mmb_rule_caches[i]) {
			mmb_rule_caches_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/* After every rule is freed (rcu_barrier() for the last ones). */
void mmb_rule_caches_exit(void)
{
	unsigned int i;

	for (i = 0; i < MMB_RULE_CACHES; i++)
		kmem_cache_destroy(mmb_rule_caches[i]);
}

/*
 * Rules allocated and not freed yet, module-wide: a rule's successor is
 * freed a grace period after the rule, so a chain of them takes as many
 * to free, and module exit waits for all (mmb_rule_drain()).
 */
static atomic_t mmb_rules_alive = ATOMIC_INIT(0);

/* What a stateful rule has before its header: its successor. */
#define MMB_RULE_LEAD	ALIGN(sizeof(struct mmb_rule *), __alignof__(struct mmb_rule))

/*
 * A zeroed rule of @size bytes, with the cache it came from noted; a
 * @stateful one with its successor's word before it.
 */
static struct mmb_rule *mmb_rule_alloc(size_t size, bool stateful)
{
	size_t lead = stateful ? MMB_RULE_LEAD : 0;
	unsigned int i = DIV_ROUND_UP(size + lead, MMB_RULE_STEP) - 1;
	struct mmb_rule *rule;
	u8 cache = 0;
	void *p;

	if (i >= MMB_RULE_CACHES || !mmb_rule_caches[i]) {
		p = kzalloc(size + lead, GFP_KERNEL_ACCOUNT);
	} else {
		p = kmem_cache_zalloc(mmb_rule_caches[i], GFP_KERNEL);
		cache = i + 1;
	}
	if (!p)
		return NULL;
	atomic_inc(&mmb_rules_alive);
	rule = p + lead;
	rule->cache = cache;
	rule->stateful = stateful;	/* mmb_rule_free() finds the start by it */
	return rule;
}

/*
 * The ids of the names of @spec's "in" and "out" matches, put before each
 * name, with the references its rule holds. 0, or -ENOMEM with none taken.
 */
static int mmb_rule_ifnames_get(struct mmb_rule_spec *spec)
{
	unsigned int i, j;
	u32 id;

	for (i = 0; i < spec->nmatches; i++) {
		struct mmb_match_spec *m = &spec->m[i];

		if (!mmb_field_is_dev(m->field))
			continue;
		id = mmb_ifname_get((const char *)m->value + 4);
		if (!id) {
			for (j = 0; j < i; j++)
				if (mmb_field_is_dev(spec->m[j].field))
					mmb_ifname_put((const char *)spec->m[j].value + 4);
			return -ENOMEM;
		}
		put_unaligned_be32(id, m->value);
	}
	return 0;
}

/* Drop the references of @rule's "in" and "out" matches to their names. */
static void mmb_rule_ifnames_put(const struct mmb_rule *rule)
{
	const u8 *value = mmb_rule_values(rule);
	unsigned int i;

	for (i = 0; i < rule->nmatches; value += rule->m[i].vlen, i++)
		if (mmb_field_is_dev(rule->m[i].field))
			mmb_ifname_put((const char *)value + 4);
}

/*
 * A rule for @spec; spec->img then holds its mask and key, for its
 * insertion. Its counters come from @pool, or, without one, a block of its
 * own. @err, if given, says what is wrong with a refused one.
 */
struct mmb_rule *mmb_rule_create(struct mmb_rule_spec *spec, struct mmb_stats_pool *pool,
				 struct mmb_rule_err *err)
{
	struct mmb_stats_pool one = { .want = 1 };
	struct mmb_rule *rule;
	u8 family = 0, l4 = 0;
	bool out = false;
	int ret;

	/* A match keeps its field in a byte. */
	BUILD_BUG_ON(MMB_FIELD_MAX > U8_MAX);
	/* The count of options not added, aligned in the rule as in its size. */
	BUILD_BUG_ON(__alignof__(struct mmb_rule) < __alignof__(atomic64_t));
	ret = mmb_check_spec(spec, &family, &l4, &out, err);
	if (ret)
		return ERR_PTR(ret);
	if (spec->limit.rate && mmb_limit_check(&spec->limit, family, l4, spec->stateful)) {
		mmb_rule_err(err, MMB_ERR_LIMIT, 0,
			     mmb_limit_check(&spec->limit, family, l4, spec->stateful));
		return ERR_PTR(-EINVAL);
	}
	/* One qualifier a rule: a limit asked late would leave a count taken. */
	if (spec->limit.rate && spec->cc.set) {
		mmb_rule_err(err, MMB_ERR_CTCOUNT, 0, "a rule has a limit or a ct count, not both");
		return ERR_PTR(-EINVAL);
	}
	rule = mmb_rule_alloc(mmb_spec_size(spec), spec->stateful);
	if (!rule)
		return ERR_PTR(-ENOMEM);
	rule->stats = mmb_stats_take(pool ?: &one, &rule->sblk);
	mmb_stats_pool_end(&one);
	if (!rule->stats) {
		mmb_rule_free(rule);
		return ERR_PTR(-ENOMEM);
	}
	rule->limit = spec->limit.rate ? mmb_limit_new(&spec->limit) : NULL;
	if (spec->limit.rate && !rule->limit) {
		mmb_rule_free(rule);
		return ERR_PTR(-ENOMEM);
	}
	if (spec->cc.set) {
		rule->cc = mmb_cc_create(&spec->cc);
		if (!rule->cc) {
			mmb_rule_free(rule);
			return ERR_PTR(-ENOMEM);
		}
	}
	if (spec->log) {
		rule->log = mmb_log_new_rate(spec->log_prefix, spec->log_plen, spec->log_level,
					     spec->log_rate, spec->log_per, spec->log_burst);
		if (!rule->log) {
			mmb_rule_free(rule);
			return ERR_PTR(-ENOMEM);
		}
	}
	/*
	 * Last, as nothing can fail after it: until mmb_rule_fill() copies
	 * the names' ids into the rule, mmb_rule_free() cannot give them back.
	 */
	ret = mmb_rule_ifnames_get(spec);
	if (ret) {
		mmb_rule_free(rule);
		return ERR_PTR(ret);
	}
	refcount_set(&rule->ref, 1);
	rule->family = family;
	rule->l4 = l4;
	rule->prio = spec->prio;
	rule->conn_prio = spec->stateful ? spec->conn_prio : spec->prio;
	rule->out = out;
	mmb_rule_fill(rule, spec);
	return rule;
}

/* Free a rule that was never published, or that no reader can see any more. */
void mmb_rule_free(struct mmb_rule *rule)
{
	void *p = rule;

	mmb_rule_ifnames_put(rule);
	if (rule->stateful) {
		struct mmb_rule *next = rcu_dereference_protected(*mmb_rule_succ(rule), 1);

		if (next)
			mmb_rule_put(next);
		p -= MMB_RULE_LEAD;
	}
	if (rule->sblk)
		mmb_stats_put(rule->sblk);
	mmb_limit_free(rule->limit);
	mmb_cc_put(rule->cc);
	kfree(rule->log);
	if (rule->cache)
		kmem_cache_free(mmb_rule_caches[rule->cache - 1], p);
	else
		kfree(p);
	atomic_dec(&mmb_rules_alive);
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

/* Make @heir the successor of stateful @rule (rule.h), once, with a reference. */
void mmb_rule_succeed(struct mmb_rule *rule, struct mmb_rule *heir)
{
	refcount_inc(&heir->ref);
	rcu_assign_pointer(*mmb_rule_succ(rule), heir);
}

/*
 * Once no ruleset or connection holds a rule: wait for the rules being
 * freed, each chain of successors one grace period at a time, until a wait
 * frees nothing twice in a row (the first may only free connections, which
 * put their rules). Module exit; tests, with rules of their own held.
 */
void mmb_rule_drain(void)
{
	unsigned int stalled = 0;
	int n;

	while (atomic_read(&mmb_rules_alive) && stalled < 2) {
		n = atomic_read(&mmb_rules_alive);
		rcu_barrier();
		stalled = atomic_read(&mmb_rules_alive) < n ? 0 : stalled + 1;
	}
}

/* Bytes of @rule's values: its matches', then its targets'. */
unsigned int mmb_rule_values_len(const struct mmb_rule *rule)
{
	const struct mmb_target *last;
	unsigned int i, n = 0;

	if (rule->ntargets) {
		last = &mmb_rule_targets(rule)[rule->ntargets - 1];
		return last->voff + last->vlen;
	}
	for (i = 0; i < rule->nmatches; i++)
		n += rule->m[i].vlen;
	return n;
}

/* The flags that say what @rule does, in a word. */
static u32 mmb_rule_what(const struct mmb_rule *rule)
{
	return rule->nmatches | rule->ntargets << 8 | rule->stateful << 16 |
	       rule->accept << 17 | rule->drop << 18 | rule->offload << 19 |
	       (u32)rule->reject << 24;
}

/*
 * A hash of what @rule does (its matches, targets, values and verdict),
 * not of what it is (its handle, counters, references): the same for two
 * rules mmb_rule_same() finds alike.
 */
u32 mmb_rule_hash(const struct mmb_rule *rule)
{
	const struct mmb_target *t = mmb_rule_targets(rule);
	unsigned int i;
	u32 h;

	h = jhash_3words(mmb_rule_what(rule), rule->drop_rate, rule->prio, rule->conn_prio);
	h = jhash(rule->m, rule->nmatches * sizeof(rule->m[0]), h);
	for (i = 0; i < rule->ntargets; i++)
		h = jhash_3words(t[i].type | t[i].plen << 8 | t[i].vlen << 16 |
				 (u32)t[i].kind << 24, t[i].field | (u32)t[i].voff << 16,
				 t[i].invert, h);
	h = jhash(mmb_rule_comment(rule), rule->clen, h);
	h = mmb_limit_hash(rule->limit, h);
	h = mmb_cc_hash(rule->cc, h);
	return jhash(mmb_rule_values(rule), mmb_rule_values_len(rule), h);
}

/*
 * Do @a and @b do the same (as "list" would show them, handles and
 * counters aside): the same matches with the same operators and values,
 * the same targets, the same verdict and priorities, both stateful or
 * neither, the same comment, the same log words?
 */
bool mmb_rule_same(const struct mmb_rule *a, const struct mmb_rule *b)
{
	const struct mmb_target *ta = mmb_rule_targets(a), *tb = mmb_rule_targets(b);
	unsigned int i;

	/* A match is five bytes, no padding: compared whole. */
	BUILD_BUG_ON(sizeof(struct mmb_match) != 5);
	if (mmb_rule_what(a) != mmb_rule_what(b) || a->drop_rate != b->drop_rate ||
	    a->prio != b->prio || a->conn_prio != b->conn_prio || a->clen != b->clen ||
	    !mmb_cc_same(a->cc, b->cc) ||
	    memcmp(mmb_rule_comment(a), mmb_rule_comment(b), a->clen) ||
	    !mmb_log_same(a->log, b->log) ||
	    memcmp(a->m, b->m, a->nmatches * sizeof(a->m[0])) ||
	    !mmb_limit_same(a->limit, b->limit))
		return false;
	/* A target has a padding byte: field by field. */
	for (i = 0; i < a->ntargets; i++)
		if (ta[i].type != tb[i].type || ta[i].plen != tb[i].plen ||
		    ta[i].vlen != tb[i].vlen || ta[i].kind != tb[i].kind ||
		    ta[i].field != tb[i].field || ta[i].voff != tb[i].voff ||
		    ta[i].invert != tb[i].invert)
			return false;
	/* The same matches and targets: values of the same length. */
	return !memcmp(mmb_rule_values(a), mmb_rule_values(b), mmb_rule_values_len(a));
}
