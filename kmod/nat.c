// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: NAT and the other per-connection rewrites (nat.h draws the
 * tuples): what a new connection's rules ask of it, the choice of a port
 * no other connection has, and the rewriting of its packets and of the
 * ICMP errors that quote them.
 */
#include <linux/gcd.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/checksum.h>
#include <net/tcp.h>

#include "nat.h"
#include "rewrite.h"

#define MMB_PORT_FIRST		1024	/* a picked port's range, by default */
#define MMB_PORT_LAST		65535
#define MMB_PICK_TRIES		248	/* nf_nat's bound: 128 + 64 + 32 + 16 + 8 */

/* An echo's identifier, which no field names: where NAT rewrites it. */
static const struct mmb_field_info mmb_echo_id = {
	.name = "echo-id", .bits = 16, .hdr = MMB_HDR_L4, .hoff = 4, .len = 2, .mask = 0xffff,
};

/* --- what the rules ask ----------------------------------------------------- */

/* Put @value's first @plen bits into @addr, @len bytes. */
static void mmb_nat_prefix(u8 *addr, const u8 *value, unsigned int len, unsigned int plen)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		u8 mask = mmb_prefix_mask(plen, i);

		addr[i] = (addr[i] & ~mask) | (value[i] & mask);
	}
}

/* Apply map (or stateful mod) target @t of @rule to @m. */
static void mmb_nat_map(struct mmb_tuple *m, const struct mmb_rule *rule,
			const struct mmb_target *t)
{
	const u8 *value = mmb_target_value(rule, t);

	switch (t->field) {
	case MMB_FIELD_IP_SADDR:
		mmb_nat_prefix((u8 *)&m->src.ip, value, 4, t->plen);
		break;
	case MMB_FIELD_IP_DADDR:
		mmb_nat_prefix((u8 *)&m->dst.ip, value, 4, t->plen);
		break;
	case MMB_FIELD_IP6_SADDR:
		mmb_nat_prefix(m->src.in6.s6_addr, value, 16, t->plen);
		break;
	case MMB_FIELD_IP6_DADDR:
		mmb_nat_prefix(m->dst.in6.s6_addr, value, 16, t->plen);
		break;
	case MMB_FIELD_TCP_SPORT:
	case MMB_FIELD_UDP_SPORT:
		memcpy(&m->sport, value, 2);
		break;
	case MMB_FIELD_TCP_DPORT:
	case MMB_FIELD_UDP_DPORT:
		memcpy(&m->dport, value, 2);
		break;
	}
}

/* Shuffle target @t of @rule, into @p. */
static void mmb_nat_shuffle(struct mmb_nat_plan *p, const struct mmb_rule *rule,
			    const struct mmb_target *t)
{
	const u8 *value = mmb_target_value(rule, t);

	switch (t->field) {
	case MMB_FIELD_TCP_SPORT:
	case MMB_FIELD_UDP_SPORT:
	case MMB_FIELD_TCP_DPORT:
	case MMB_FIELD_UDP_DPORT:
		p->src = t->field == MMB_FIELD_TCP_SPORT || t->field == MMB_FIELD_UDP_SPORT;
		p->keep = false;
		p->lo = t->vlen ? get_unaligned_be16(value) : MMB_PORT_FIRST;
		p->hi = t->vlen ? get_unaligned_be16(value + 2) : MMB_PORT_LAST;
		break;
	case MMB_FIELD_TCP_SEQ_NUM:
		p->what |= MMB_NAT_SEQ_ORIG;
		break;
	case MMB_FIELD_TCP_ACK_NUM:
		p->what |= MMB_NAT_SEQ_REPLY;
		break;
	case MMB_FIELD_IP_ID:
		p->what |= MMB_NAT_IPID;
		break;
	case MMB_FIELD_IP6_FLOW_LABEL:
		p->what |= MMB_NAT_LABEL;
		break;
	}
}

/*
 * masquerade: the primary address of @dev, the device the first packet of
 * @m leaves by, for its destination (nf_nat_masquerade's choice), into
 * @m's source. Under RCU; false if the device has none. Only one of its
 * own: for a device without one, the kernel's choice is another device's
 * (an inside address would leave by the outside device).
 */
static bool mmb_nat_masq(struct mmb_tuple *m, const struct net_device *dev)
{
	if (m->family == 4) {
		struct in_device *in_dev = __in_dev_get_rcu(dev);

		m->src.ip = inet_select_addr(dev, m->dst.ip, RT_SCOPE_UNIVERSE);
		return m->src.ip && in_dev &&
		       inet_confirm_addr(dev_net(dev), in_dev, 0, m->src.ip, RT_SCOPE_UNIVERSE);
	}
#if IS_REACHABLE(CONFIG_IPV6)
	return !ipv6_dev_get_saddr(dev_net(dev), dev, &m->dst.in6, 0, &m->src.in6) &&
	       ipv6_chk_addr(dev_net(dev), &m->src.in6, dev, 1);
#else
	return false;
#endif
}

/*
 * What the stateful rules of @v ask of a connection of tuple @t, whose
 * first packet leaves by @dev (NULL: it arrives), in @p: 1 if something
 * (a mapping, an offset), 0 if nothing, -EADDRNOTAVAIL if it is to be
 * masqueraded and the device has no address. Rules apply in handle order.
 * A source address mapped with its port left alone keeps the port unless
 * another connection's reply tuple has it already; then, as nf_nat does,
 * another is picked (an echo's identifier likewise).
 */
int mmb_nat_plan(const struct mmb_verdict *v, const struct mmb_tuple *t,
		 const struct net_device *dev, struct mmb_nat_plan *p)
{
	bool sport = false, any = false;
	unsigned int i, j;

	for (i = 0; i < v->nsf; i++) {
		const struct mmb_rule *rule = v->sf[i];
		const struct mmb_target *tg = mmb_rule_targets(rule);

		if (!rule->nat)
			continue;
		if (!any) {
			memset(p, 0, sizeof(*p));
			p->m = *t;
			any = true;
		}
		for (j = 0; j < rule->ntargets; j++) {
			if (!mmb_target_is_nat(&tg[j], true))
				continue;
			sport |= tg[j].field == MMB_FIELD_TCP_SPORT ||
				 tg[j].field == MMB_FIELD_UDP_SPORT;
			if (tg[j].type == MMB_TARGET_SHUFFLE)
				mmb_nat_shuffle(p, rule, &tg[j]);
			else if (tg[j].type == MMB_TARGET_MASQUERADE)
				p->masq = true;
			else
				mmb_nat_map(&p->m, rule, &tg[j]);
		}
	}
	if (!any)
		return 0;
	if (p->masq && (!dev || !mmb_nat_masq(&p->m, dev)))
		return -EADDRNOTAVAIL;
	/* An echo reply starts no pick: its identifier is its destination port. */
	if (!p->hi && !sport && memcmp(&p->m.src, &t->src, sizeof(t->src)) &&
	    (t->proto == IPPROTO_TCP || t->proto == IPPROTO_UDP || !t->dport)) {
		p->src = true;
		p->keep = true;
		p->lo = t->proto == IPPROTO_TCP || t->proto == IPPROTO_UDP ? MMB_PORT_FIRST : 1;
		p->hi = MMB_PORT_LAST;
	}
	return p->hi || p->what || !mmb_tuple_equal(&p->m, t);
}

void mmb_nat_ext_init(struct mmb_conn_ext *x, u8 what)
{
	x->what = what;
	x->seq[MMB_DIR_ORIG] = what & MMB_NAT_SEQ_ORIG ? get_random_u32() : 0;
	x->seq[MMB_DIR_REPLY] = what & MMB_NAT_SEQ_REPLY ? get_random_u32() : 0;
	x->ipid = what & MMB_NAT_IPID ? get_random_u16() : 0;
	x->label = what & MMB_NAT_LABEL ? get_random_u32() & 0xfffff : 0;
}

/* --- the port no other connection has --------------------------------------- */

/*
 * Is @t, a reply tuple of @c, another connection's (or @c's own original)?
 * Not if that one is ending: an expired one is ended here, as a lookup
 * would (nf_nat's pick reaps them too), and leaves the tuple free.
 */
static bool mmb_nat_taken(struct mmb_conns *mc, const struct mmb_conn *c,
			  const struct mmb_tuple *t, u32 now)
{
	struct mmb_conn *o;
	u8 dir;

	if (mmb_tuple_equal(t, &c->orig.t))
		return true;
	o = mmb_conn_find(mc, t, &dir);
	if (!o || test_bit(MMB_CONN_DYING, &o->status))
		return false;
	if (mmb_conn_expired(o, now)) {
		mmb_conn_kill(mc, o, MMB_CSTAT_EXPIRED);
		return false;
	}
	return true;
}

/*
 * Pick the port @p asks for into @c's reply tuple: one no connection's
 * tuple has. Bounded work, as nf_nat's since it met soft lockups: at most
 * MMB_PICK_TRIES ports, every one of a range no larger. They are visited
 * from a random port in steps of a random size prime to the range's, each
 * port once: a walk to the next free port, as nf_nat's rounds take, piles
 * the picks up in runs, and a run grows with every pick that falls in it
 * (from 95% to 99% of a range used, one pick in seven found none that
 * way). Under RCU; the insertion finds out whether another CPU took it
 * meanwhile. -EADDRNOTAVAIL if none was found.
 */
int mmb_nat_pick(struct mmb_conns *mc, struct mmb_conn *c, const struct mmb_nat_plan *p)
{
	__be16 *port = p->src ? &c->reply.t.dport : &c->reply.t.sport;
	u32 size = p->hi - p->lo + 1, now = mmb_conn_now(), off, step, i;

	if (!p->hi || (p->keep && !mmb_nat_taken(mc, c, &c->reply.t, now)))
		return 0;
	off = get_random_u32_below(size);
	step = size > 1 ? 1 + get_random_u32_below(size - 1) : 1;
	while (gcd(step, size) != 1)	/* ends at size - 1 at the latest */
		step++;
	for (i = 0; i < min(MMB_PICK_TRIES, size); i++) {
		*port = htons(p->lo + off);
		if (!mmb_nat_taken(mc, c, &c->reply.t, now))
			return 0;
		off += step;
		if (off >= size)
			off -= size;
	}
	return -EADDRNOTAVAIL;
}

/* --- packets of the connection --------------------------------------------- */

static int mmb_nat_port(struct sk_buff *skb, const struct mmb_pkt *pkt, bool src, __be16 port)
{
	const struct mmb_field_info *f;

	switch (pkt->key.b[MMB_IMG_L4PROTO]) {
	case IPPROTO_TCP:
		f = mmb_field(src ? MMB_FIELD_TCP_SPORT : MMB_FIELD_TCP_DPORT);
		break;
	case IPPROTO_UDP:
		f = mmb_field(src ? MMB_FIELD_UDP_SPORT : MMB_FIELD_UDP_DPORT);
		break;
	default:
		f = &mmb_echo_id;	/* one of the two "ports" is 0 */
	}
	return mmb_rewrite_info(skb, pkt, f, (const u8 *)&port, 2, 16);
}

/* Does a packet of @cur keep its destination, going where @o says? */
static bool mmb_nat_dst_kept(const struct mmb_tuple *cur, const struct mmb_tuple *o)
{
	return !memcmp(&cur->dst, &o->src, cur->family == 4 ? 4 : 16) && cur->dport == o->sport;
}

/*
 * Rewrite a packet of tuple @cur to look like @o inverted: its source,
 * its destination, or both (@manip). A TCP or UDP packet with its ports
 * (the common case) gets each side's address and port in one step.
 */
static int mmb_nat_tuple(struct sk_buff *skb, const struct mmb_pkt *pkt,
			 const struct mmb_tuple *cur, const struct mmb_tuple *o, u8 manip)
{
	const u8 *b = pkt->key.b;
	bool v4 = cur->family == 4, later = b[MMB_IMG_FLAGS] & MMB_KF_LATER;
	unsigned int alen = v4 ? 4 : 16;
	int err = 0;

	if ((b[MMB_IMG_L4PROTO] == IPPROTO_TCP || b[MMB_IMG_L4PROTO] == IPPROTO_UDP) &&
	    (b[MMB_IMG_FLAGS] & (MMB_KF_L4 | MMB_KF_LATER)) == MMB_KF_L4) {
		if ((manip & MMB_MANIP_SRC) &&
		    !memcmp(&cur->src, &o->dst, alen) && cur->sport == o->dport)
			manip &= ~MMB_MANIP_SRC;
		if ((manip & MMB_MANIP_DST) && mmb_nat_dst_kept(cur, o))
			manip &= ~MMB_MANIP_DST;
		return manip ? mmb_rewrite_ends(skb, pkt, manip, &o->dst, o->dport,
						&o->src, o->sport) : 0;
	}
	if ((manip & MMB_MANIP_SRC) && memcmp(&cur->src, &o->dst, alen))
		err = mmb_rewrite_field(skb, pkt, v4 ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP6_SADDR,
					(const u8 *)&o->dst, alen, alen * 8);
	if (!err && (manip & MMB_MANIP_DST) && memcmp(&cur->dst, &o->src, alen))
		err = mmb_rewrite_field(skb, pkt, v4 ? MMB_FIELD_IP_DADDR : MMB_FIELD_IP6_DADDR,
					(const u8 *)&o->src, alen, alen * 8);
	/* A later fragment's addresses only: its ports are in the first. */
	if (err || later)
		return err;
	if ((manip & MMB_MANIP_SRC) && cur->sport != o->dport)
		err = mmb_nat_port(skb, pkt, true, o->dport);
	if (!err && (manip & MMB_MANIP_DST) && cur->dport != o->sport)
		err = mmb_nat_port(skb, pkt, false, o->sport);
	return err;
}

/*
 * Is the source of @c's packets going @dir left to the egress hook? Yes
 * if they leave by an enabled device, whose egress hook then maps it
 * (MMB_CONN_SNAT_ORIG, _REPLY: known when the connection started), and
 * their destination stays (the egress hook finds them by the tuple they
 * then have).
 */
bool mmb_nat_later(const struct mmb_conn *c, u8 dir)
{
	const struct mmb_tuple *cur = dir == MMB_DIR_ORIG ? &c->orig.t : &c->reply.t;
	const struct mmb_tuple *o = dir == MMB_DIR_ORIG ? &c->reply.t : &c->orig.t;

	return test_bit(dir == MMB_DIR_ORIG ? MMB_CONN_SNAT_ORIG : MMB_CONN_SNAT_REPLY,
			&c->status) && mmb_nat_dst_kept(cur, o);
}

/*
 * Where the offsets of new connection @c go, in each direction, for its
 * life: with the source where the egress hook maps it (mmb_nat_later()),
 * so that what the router itself says about a packet before it leaves
 * (fragmentation needed, time exceeded) quotes it as its sender wrote
 * it, sequence number included. Decided once, before @c is seen by other
 * CPUs: packets judged arriving before a change (the leaving judgement's
 * copy) are not given the offsets twice.
 */
void mmb_nat_offsets_where(struct mmb_conn *c)
{
	if (mmb_nat_later(c, MMB_DIR_ORIG))
		__set_bit(MMB_CONN_OFFS_ORIG, &c->status);
	if (mmb_nat_later(c, MMB_DIR_REPLY))
		__set_bit(MMB_CONN_OFFS_REPLY, &c->status);
}

/* Are the offsets of @c's packets going @dir the egress hook's? */
bool mmb_nat_offsets_out(const struct mmb_conn *c, u8 dir)
{
	return test_bit(dir == MMB_DIR_ORIG ? MMB_CONN_OFFS_ORIG : MMB_CONN_OFFS_REPLY,
			&c->status);
}

/*
 * What a packet of @c going @dir gets at this hook: the egress hook if
 * @out, where @seen says that mmb saw it arrive. As it arrives, all of
 * it, but what is left to the egress hook: its source (mmb_nat_later())
 * and its offsets (mmb_nat_offsets_where()). As it leaves, what was left;
 * all of it for a packet mmb did not see arrive (the host's own). An ICMP
 * error about @c is translated whole where mmb first meets it. Where the
 * source waits, the destination stays: MMB_MANIP_DST is the offsets alone.
 */
u8 mmb_nat_manip(const struct mmb_conn *c, u8 dir, bool related, bool out, bool seen)
{
	bool offs;

	if (out && !seen)
		return MMB_MANIP_ALL;
	if (related)
		return out ? 0 : MMB_MANIP_ALL;
	if (!mmb_nat_later(c, dir))
		return out ? 0 : MMB_MANIP_ALL;
	offs = mmb_nat_offsets_out(c, dir);
	if (out)
		return MMB_MANIP_SRC | (offs ? MMB_MANIP_DST : 0);
	/* Nothing to do here without offsets: not unshared, not counted. */
	return offs || !test_bit(MMB_CONN_EXT, &c->status) ? 0 : MMB_MANIP_DST;
}

/* Set the 32-bit word at @off of the L4 header to @value, checksum kept. */
static int mmb_nat_l4_word(struct sk_buff *skb, const struct mmb_pkt *pkt, unsigned int off,
			   u32 value)
{
	struct mmb_field_info f = {
		.name = "word", .bits = 32, .hdr = MMB_HDR_L4, .hoff = off, .len = 4,
		.mask = ~0U,
	};
	__be32 v = htonl(value);

	return mmb_rewrite_info(skb, pkt, &f, (const u8 *)&v, 4, 32);
}

/*
 * The edges of the SACK blocks of a TCP packet: sequence numbers of the
 * other direction, which moved by @delta there. A malformed option ends
 * the walk, as the stack's own parser's does.
 */
static int mmb_nat_sack(struct sk_buff *skb, const struct mmb_pkt *pkt, u32 delta)
{
	unsigned int i = sizeof(struct tcphdr), end = pkt->l7off - pkt->l4off, e, len;
	const u8 *h;
	int err;

	if (skb_ensure_writable(skb, pkt->l7off))
		return -ENOMEM;
	while (i < end) {
		h = skb->data + pkt->l4off;	/* rewrites may move the head */
		if (h[i] == TCPOPT_EOL)
			break;
		if (h[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= end)
			break;
		len = h[i + 1];
		if (len < 2 || i + len > end)
			break;
		if (h[i] == TCPOPT_SACK && !((len - 2) % 8)) {
			for (e = i + 2; e < i + len; e += 4) {
				u32 edge = get_unaligned_be32(skb->data + pkt->l4off + e);

				err = mmb_nat_l4_word(skb, pkt, e, edge + delta);
				if (err)
					return err;
			}
		}
		i += len;
	}
	return 0;
}

/* Offsets of the connection's extension, on a packet going @dir. */
static int mmb_nat_offsets(struct sk_buff *skb, const struct mmb_pkt *pkt,
			   const struct mmb_conn_ext *x, u8 dir)
{
	const u8 *b = pkt->key.b;
	int err = 0;

	if ((x->what & (MMB_NAT_SEQ_ORIG | MMB_NAT_SEQ_REPLY)) &&
	    b[MMB_IMG_L4PROTO] == IPPROTO_TCP && (b[MMB_IMG_FLAGS] & MMB_KF_L4)) {
		u32 seq = get_unaligned_be32(&b[MMB_IMG_L4_HI]);
		u32 ack = get_unaligned_be32(&b[MMB_IMG_L4_HI + 4]);
		bool has_ack = b[MMB_IMG_L4_HI + 9] & TCPHDR_ACK;

		if (x->seq[dir])
			err = mmb_nat_l4_word(skb, pkt, 4, seq + x->seq[dir]);
		if (!err && x->seq[!dir] && has_ack)
			err = mmb_nat_l4_word(skb, pkt, 8, ack - x->seq[!dir]);
		if (!err && x->seq[!dir] && pkt->l7off > pkt->l4off + sizeof(struct tcphdr))
			err = mmb_nat_sack(skb, pkt, -x->seq[!dir]);
	}
	if (err || dir != MMB_DIR_ORIG)
		return err;
	if ((x->what & MMB_NAT_IPID) && b[MMB_IMG_FAMILY] == 4) {
		__be16 id = htons(get_unaligned_be16(&b[MMB_IMG_IP4 + 4]) + x->ipid);

		err = mmb_rewrite_field(skb, pkt, MMB_FIELD_IP_ID, (const u8 *)&id, 2, 16);
	}
	if (!err && (x->what & MMB_NAT_LABEL) && b[MMB_IMG_FAMILY] == 6) {
		__be32 label = htonl(x->label);

		err = mmb_rewrite_field(skb, pkt, MMB_FIELD_IP6_FLOW_LABEL, (const u8 *)&label,
					4, 20);
	}
	return err;
}

/*
 * A packet of @c going @dir (found by its tuple): its mapping, then its
 * offsets, those of @manip (mmb_nat_manip()). @skb is not shared; every
 * checksum is kept.
 */
int mmb_nat_packet(struct sk_buff *skb, const struct mmb_pkt *pkt, const struct mmb_conn *c,
		   u8 dir, u8 manip)
{
	const struct mmb_tuple *cur = dir == MMB_DIR_ORIG ? &c->orig.t : &c->reply.t;
	const struct mmb_tuple *o = dir == MMB_DIR_ORIG ? &c->reply.t : &c->orig.t;
	unsigned long status = READ_ONCE(c->status);
	int err = 0;

	if (status & BIT(MMB_CONN_MAPPED))
		err = mmb_nat_tuple(skb, pkt, cur, o, manip);
	if (!err && (status & BIT(MMB_CONN_EXT)) && (manip & MMB_MANIP_DST))
		err = mmb_nat_offsets(skb, pkt, mmb_conn_ext(c), dir);
	return err;
}

/* --- ICMP errors ------------------------------------------------------------ */

/*
 * The quote of an ICMP error being translated: the offsets of its headers
 * and of the checksums that cover its bytes, from the network header; -1
 * for a checksum not there (or not quoted).
 */
struct mmb_quote {
	unsigned int l3, l4, end;
	int ipsum;		/* the quoted IPv4 header's */
	int l4sum;		/* the quoted L4 header's */
	bool pseudo;		/* which covers the quoted addresses */
	int outer;		/* the error's own ICMP checksum */
};

/* Set the word at @off to @new; with it each checksum that covers it. */
static void mmb_quote_word(u8 *h, const struct mmb_quote *q, unsigned int off, __be16 new,
			   bool ip, bool l4)
{
	__sum16 *outer = (__sum16 *)(h + q->outer);
	__be16 old = get_unaligned((__be16 *)(h + off));
	int sums[2] = { ip ? q->ipsum : -1, l4 ? q->l4sum : -1 };
	unsigned int i;

	if (old == new)
		return;
	for (i = 0; i < ARRAY_SIZE(sums); i++) {
		__sum16 *s = (__sum16 *)(h + sums[i]);
		__sum16 before;

		if (sums[i] < 0)
			continue;
		before = get_unaligned(s);
		csum_replace2(s, old, new);
		/* The error's checksum covers the quoted checksums too. */
		csum_replace2(outer, (__force __be16)before, (__force __be16)get_unaligned(s));
	}
	put_unaligned(new, (__be16 *)(h + off));
	csum_replace2(outer, old, new);
}

static void mmb_quote_bytes(u8 *h, const struct mmb_quote *q, unsigned int off,
			    const void *value, unsigned int len, bool ip, bool l4)
{
	unsigned int i;

	for (i = 0; i < len; i += 2)
		mmb_quote_word(h, q, off + i, get_unaligned((__be16 *)(value + i)), ip, l4);
}

/* Where the quote's headers and checksums are; false if it is too short. */
static bool mmb_quote_find(const u8 *h, const struct mmb_pkt *pkt, struct mmb_quote *q,
			   u8 proto)
{
	bool v4 = pkt->key.b[MMB_IMG_FAMILY] == 4;
	int field = mmb_l4csum_field(proto);	/* a connection's: one there is */

	q->l3 = pkt->l4off + 8;
	q->end = pkt->end;
	q->outer = pkt->l4off + 2;
	q->ipsum = v4 ? q->l3 + offsetof(struct iphdr, check) : -1;
	q->l4 = q->l3 + (v4 ? (h[q->l3] & 0xf) * 4 : sizeof(struct ipv6hdr));
	if (q->l4 + 8 > q->end)
		return false;
	q->l4sum = q->l4 + field + 2 <= q->end ? q->l4 + field : -1;
	/* A quoted UDP checksum of 0 is none. */
	if (q->l4sum >= 0 && proto == IPPROTO_UDP && !get_unaligned((u16 *)(h + q->l4sum)))
		q->l4sum = -1;
	q->pseudo = proto != IPPROTO_ICMP;
	return true;
}

/*
 * An ICMP error going @dir that quotes a packet of @c, which went the
 * other way and was mapped on its way out: its destination becomes the
 * quoted packet's sender's, and so does its source if that was the
 * connection's peer itself (a router on the path keeps its own); the
 * quote is restored to what its sender sent, with the checksums it can
 * see. Every checksum is updated, not computed: a bad one stays bad.
 */
int mmb_nat_icmp(struct sk_buff *skb, const struct mmb_pkt *pkt, const struct mmb_conn *c,
		 u8 dir)
{
	const struct mmb_tuple *cur = dir == MMB_DIR_ORIG ? &c->orig.t : &c->reply.t;
	const struct mmb_tuple *o = dir == MMB_DIR_ORIG ? &c->reply.t : &c->orig.t;
	const struct mmb_conn_ext *x = test_bit(MMB_CONN_EXT, &c->status) ?
				       mmb_conn_ext(c) : NULL;
	bool v4 = cur->family == 4;
	unsigned int alen = v4 ? 4 : 16, off;
	struct mmb_quote q;
	const u8 *src;
	u8 *h;
	int err;

	/* The quoted packet's tuple, as it left, is @cur inverted. */
	if (test_bit(MMB_CONN_MAPPED, &c->status)) {
		src = &pkt->key.b[v4 ? MMB_IMG_IP4_SADDR : MMB_IMG_IP6 + 8];
		err = mmb_rewrite_field(skb, pkt, v4 ? MMB_FIELD_IP_DADDR : MMB_FIELD_IP6_DADDR,
					(const u8 *)&o->src, alen, alen * 8);
		if (!err && !memcmp(src, &cur->src, alen))
			err = mmb_rewrite_field(skb, pkt,
						v4 ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP6_SADDR,
						(const u8 *)&o->dst, alen, alen * 8);
		if (err)
			return err;
	}
	if (skb_ensure_writable(skb, pkt->end))
		return -ENOMEM;
	h = skb->data;
	if (!mmb_quote_find(h, pkt, &q, cur->proto))
		return 0;
	/* The quote: source, destination, ports (or identifier), sequence. */
	off = v4 ? offsetof(struct iphdr, saddr) : offsetof(struct ipv6hdr, saddr);
	mmb_quote_bytes(h, &q, q.l3 + off, &o->src, alen, true, q.pseudo);
	mmb_quote_bytes(h, &q, q.l3 + off + alen, &o->dst, alen, true, q.pseudo);
	if (cur->proto == IPPROTO_TCP || cur->proto == IPPROTO_UDP) {
		mmb_quote_word(h, &q, q.l4, o->sport, false, true);
		mmb_quote_word(h, &q, q.l4 + 2, o->dport, false, true);
	} else {
		/* An echo's identifier: its request's source "port". */
		mmb_quote_word(h, &q, q.l4 + 4, o->sport ?: o->dport, false, true);
	}
	if (x && x->seq[!dir] && cur->proto == IPPROTO_TCP) {
		__be32 seq = htonl(get_unaligned_be32(h + q.l4 + 4) - x->seq[!dir]);

		mmb_quote_bytes(h, &q, q.l4 + 4, &seq, 4, false, true);
	}
	return 0;
}
