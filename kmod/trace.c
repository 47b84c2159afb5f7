// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: tracing a packet (MMB_CMD_TRACE). A packet, given as bytes or made
 * from the values of fields, runs through the namespace's rules and
 * connection table as the hook would run it; the answer says what the
 * hook would do: the parse, every rule that applies and how, the
 * connection, the verdict, the packet after rewriting. Nothing changes:
 * the tables are walked without the flow cache, no counter moves, no
 * connection starts, ends or changes state.
 *
 *   bytes or fields ─> skb ─> parse ─> connection? ─> each matching rule
 *                                  ─> verdict ─> rewrite (a private copy)
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "conn.h"
#include "nl.h"
#include "offload.h"
#include "rewrite.h"

/* The most rules a trace reports (the lowest handles). */
#define MMB_TRACE_RULES 256

static const struct nla_policy mmb_trace_policy[MMB_TRACE_A_MAX + 1] = {
	[MMB_TRACE_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[MMB_TRACE_A_PACKET]	= { .type = NLA_BINARY, .len = U16_MAX },
	[MMB_TRACE_A_FAMILY]	= NLA_POLICY_RANGE(NLA_U8, 4, 6),
	[MMB_TRACE_A_PROTO]	= { .type = NLA_U8 },
	[MMB_TRACE_A_FIELDS]	= NLA_POLICY_NESTED_ARRAY(mmb_match_policy),
	[MMB_TRACE_A_PARSE]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_RULES]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_VERDICT]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_CONN_DIR]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_RELATED]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_CONN_NEW]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_RESULT]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_CONN_SPOOFED] = { .type = NLA_REJECT },
	[MMB_TRACE_A_FAST]	= { .type = NLA_REJECT },
	[MMB_TRACE_A_REJECT]	= { .type = NLA_REJECT },
};

const struct nla_policy mmb_trace_cmd_policy[MMB_A_TRACE + 1] = {
	[MMB_A_TRACE]		= NLA_POLICY_NESTED(mmb_trace_policy),
};

/*
 * The accept and drop of rules: at @prio; and the highest priority of a
 * random drop (@rprio), which may or may not drop.
 */
struct mmb_trace_judged {
	bool accept, drop, drop_random;
	u32 prio, rprio;
};

/* What a trace found. */
struct mmb_trace {
	struct mmb_verdict v;		/* the rewrites to apply, and the connection */
	struct mmb_trace_judged j;	/* of every rule that applies */
	struct mmb_trace_judged sf;	/* of the stateful ones, if a connection starts */
	bool starts;			/* stateful rules matched, no connection known */
	u64 sftop;			/* 1 + the highest priority of those */
	unsigned int n;
	const struct mmb_rule *rule[MMB_TRACE_RULES];	/* by handle */
	u8 how[MMB_TRACE_RULES];	/* enum mmb_trace_how */
	const struct mmb_pkt *pkt;	/* for the rules' limits and ct counts */
};

/* Note @rule as applying (@how), in handle order; the lowest handles stay. */
static void mmb_trace_note(struct mmb_trace *t, const struct mmb_rule *rule, u8 how)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (t->rule[i] != rule)
			continue;
		if (how == MMB_TRACE_CONN)	/* a stateful rule is its connection's */
			t->how[i] = how;
		return;
	}
	if (t->n == MMB_TRACE_RULES) {
		if (t->rule[t->n - 1]->handle < rule->handle)
			return;
		t->n--;
	}
	for (i = t->n; i > 0 && t->rule[i - 1]->handle > rule->handle; i--) {
		t->rule[i] = t->rule[i - 1];
		t->how[i] = t->how[i - 1];
	}
	t->rule[i] = rule;
	t->how[i] = how;
	t->n++;
}

/* A verdict at @prio, as mmb_verdict_decide() takes it; a random drop noted. */
static void mmb_trace_decide(struct mmb_trace_judged *j, u32 prio, bool accept, bool drop,
			     bool drop_random)
{
	if (drop_random && (!j->drop_random || prio > j->rprio)) {
		j->drop_random = true;
		j->rprio = prio;
	}
	if (!accept && !drop)
		return;
	if (j->accept || j->drop) {
		if (prio < j->prio)
			return;
		if (prio > j->prio) {
			j->accept = false;
			j->drop = false;
		}
	}
	j->prio = prio;
	j->accept |= accept;
	j->drop |= drop;
}

/* The accept and drop of @rule at @prio, without the dice of a random drop. */
static void mmb_trace_judge(struct mmb_trace_judged *j, const struct mmb_rule *rule, u32 prio)
{
	bool always = rule->drop && rule->drop_rate >= MMB_RATE_ALWAYS;

	mmb_trace_decide(j, prio, rule->accept, always, rule->drop && !always);
}

/* A rule the packet matches, as mmb_verdict_entry() would take it. */
static void mmb_trace_rule(void *arg, const struct mmb_rule *rule)
{
	struct mmb_trace *t = arg;
	struct mmb_cc_peek p;

	if (rule->stateful && t->v.conn) {
		mmb_trace_note(t, rule, MMB_TRACE_IGNORED);
		return;
	}
	if (rule->cc) {
		mmb_cc_peek(rule->cc, t->pkt, &p);
		if (!p.key || !mmb_cc_holds(rule->cc, &p, !t->v.conn)) {
			mmb_trace_note(t, rule, MMB_TRACE_CTCOUNT);
			return;
		}
	}
	/* Would its limit let it apply? No token taken, no key given a slot. */
	if (rule->limit && !mmb_limit_peek(rule->limit, t->pkt, mmb_limit_now(rule->limit))) {
		mmb_trace_note(t, rule, MMB_TRACE_LIMITED);
		return;
	}
	if (rule->stateful) {
		t->starts = true;
		t->sftop = max_t(u64, t->sftop, (u64)rule->prio + 1);
	}
	mmb_trace_note(t, rule, rule->stateful ? MMB_TRACE_STATEFUL : MMB_TRACE_MATCHED);
	mmb_trace_judge(rule->stateful ? &t->sf : &t->j, rule, rule->prio);
	mmb_verdict_rewrites(&t->v, rule);
}

/* The rules of the connection, as mmb_conn_verdict() applies them. */
static void mmb_trace_conn(struct mmb_trace *t)
{
	const struct mmb_conn *c = t->v.conn;
	const struct mmb_rule *rule;
	unsigned int i;

	for (i = 0; i < c->nrules; i++) {
		rule = mmb_rule_live(READ_ONCE(c->rules[i]));
		mmb_trace_note(t, rule, MMB_TRACE_CONN);
		mmb_trace_judge(&t->j, rule, rule->conn_prio);
		if (!t->v.related)
			mmb_verdict_rewrites_at(&t->v, rule, rule->conn_prio);
	}
}

/* A random drop above the verdict may drop; one below it is cut off. */
static u8 mmb_trace_verdict(const struct mmb_trace_judged *j)
{
	bool decided = j->accept || j->drop;

	if (j->drop && !j->accept)
		return MMB_TRACE_DROP;
	if (j->drop_random && (!decided || j->rprio > j->prio))
		return MMB_TRACE_DROP_RANDOM;
	return j->accept ? MMB_TRACE_ACCEPT : MMB_TRACE_PASS;
}

/*
 * The verdict of a packet of no connection that matched stateful rules, as
 * mmb_conn_verdict() gives it: theirs too, unless it may start a
 * connection (not dropped) and the reverse-path check refuses it
 * (*@spoofed); then the stateful rules' rewrites go too. *@starts: a
 * connection would start.
 */
static u8 mmb_trace_start(struct mmb_trace *t, struct mmb_conns *mc,
			  const struct mmb_pkt *pkt, const struct sk_buff *skb,
			  bool *starts, bool *spoofed)
{
	struct mmb_trace_judged all = t->j;
	unsigned int i, n;
	u8 verdict;

	mmb_trace_decide(&all, t->sf.prio, t->sf.accept, t->sf.drop, false);
	if (t->sf.drop_random)
		mmb_trace_decide(&all, t->sf.rprio, false, false, true);
	verdict = mmb_trace_verdict(&all);
	/* Stateful rules the verdict cuts off all: no connection. */
	*starts = verdict != MMB_TRACE_DROP &&
		  !((all.accept || all.drop) && t->sftop < (u64)all.prio + 1) &&
		  mmb_conn_would_start(mc, pkt, skb);
	*spoofed = *starts && mmb_conn_spoofed(mc, pkt, skb->dev);
	if (!*spoofed) {
		t->j = all;
		return verdict;
	}
	*starts = false;
	for (i = 0, n = 0; i < t->v.nrw; i++)
		if (!t->v.rw[i]->stateful)
			t->v.rw[n++] = t->v.rw[i];
	t->v.nrw = n;
	return mmb_trace_verdict(&t->j);
}

/* The rules noted that the verdict cuts off: they matched, and do not apply. */
static void mmb_trace_cut(struct mmb_trace *t)
{
	unsigned int i;
	u32 prio;

	if (!t->j.accept && !t->j.drop)
		return;
	for (i = 0; i < t->n; i++) {
		if (t->how[i] == MMB_TRACE_IGNORED || t->how[i] == MMB_TRACE_CTCOUNT)
			continue;
		prio = t->how[i] == MMB_TRACE_CONN ? t->rule[i]->conn_prio : t->rule[i]->prio;
		if (prio < t->j.prio)
			t->how[i] = MMB_TRACE_CUT;
	}
}

/* An skb of @len bytes at its network header, received on @dev. */
static struct sk_buff *mmb_trace_skb(struct net_device *dev, unsigned int len)
{
	struct sk_buff *skb = alloc_skb(LL_MAX_HEADER + len, GFP_KERNEL);

	if (!skb)
		return NULL;
	skb_reserve(skb, LL_MAX_HEADER);
	skb_reset_network_header(skb);
	skb_put(skb, len);
	skb->dev = dev;
	skb->pkt_type = PACKET_HOST;
	skb->ip_summed = CHECKSUM_NONE;
	return skb;
}

/* The L4 header mmb makes for @proto: its length, and its bytes in @h. */
static unsigned int mmb_trace_l4(u8 family, u8 proto, u8 *h)
{
	switch (proto) {
	case IPPROTO_TCP: {
		struct tcphdr *th = (struct tcphdr *)h;

		th->source = htons(1024);
		th->dest = htons(80);
		th->seq = htonl(1);
		th->doff = sizeof(*th) / 4;
		th->syn = 1;
		th->window = htons(64240);
		return sizeof(*th);
	}
	case IPPROTO_UDP:
		put_unaligned_be16(1024, h);
		put_unaligned_be16(53, h + 2);
		put_unaligned_be16(8, h + 4);
		return 8;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (family != (proto == IPPROTO_ICMP ? 4 : 6))
			return 0;
		h[0] = proto == IPPROTO_ICMP ? ICMP_ECHO : ICMPV6_ECHO_REQUEST;
		put_unaligned_be16(1, h + 4);
		put_unaligned_be16(1, h + 6);
		return 8;
	}
	return 0;
}

/* The packet of @family and @proto that mmb makes, before the fields. */
static struct sk_buff *mmb_trace_make(struct net_device *dev, u8 family, u8 proto)
{
	unsigned int l3 = family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	u8 l4[sizeof(struct tcphdr)] __aligned(4) = {};
	unsigned int l4len = mmb_trace_l4(family, proto, l4);
	int off = l4len ? mmb_l4csum_field(proto) : -1;
	struct sk_buff *skb = mmb_trace_skb(dev, l3 + l4len);
	__wsum sum;
	u8 *h;

	if (!skb)
		return NULL;
	h = skb->data;
	memset(h, 0, l3);
	memcpy(h + l3, l4, l4len);
	sum = csum_partial(h + l3, l4len, 0);
	if (family == 4) {
		struct iphdr *iph = (struct iphdr *)h;

		skb->protocol = htons(ETH_P_IP);
		iph->version = 4;
		iph->ihl = 5;
		iph->tot_len = htons(l3 + l4len);
		iph->ttl = 64;
		iph->protocol = proto;
		iph->saddr = htonl(0xc0000201);		/* 192.0.2.1 */
		iph->daddr = htonl(0xc0000202);		/* 192.0.2.2 */
		ip_send_check(iph);
		if (off >= 0)
			put_unaligned(proto == IPPROTO_ICMP ? csum_fold(sum) :
				      csum_tcpudp_magic(iph->saddr, iph->daddr, l4len, proto, sum),
				      (__sum16 *)(h + l3 + off));
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)h;

		skb->protocol = htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->payload_len = htons(l4len);
		ip6->nexthdr = proto;
		ip6->hop_limit = 64;
		ip6->saddr.s6_addr32[0] = htonl(0x20010db8);	/* 2001:db8::1 */
		ip6->saddr.s6_addr[15] = 1;
		ip6->daddr.s6_addr32[0] = htonl(0x20010db8);	/* 2001:db8::2 */
		ip6->daddr.s6_addr[15] = 2;
		if (off >= 0)
			put_unaligned(csum_ipv6_magic(&ip6->saddr, &ip6->daddr, l4len, proto, sum),
				      (__sum16 *)(h + l3 + off));
	}
	return skb;
}

/* Write the value of one field (a match nest) into @skb, parsed as @pkt. */
static int mmb_trace_field(struct sk_buff *skb, const struct mmb_pkt *pkt,
			   const struct nlattr *attr, u8 family, u8 proto,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MMB_MATCH_A_MAX + 1];
	const struct mmb_field_info *f;
	struct mmb_rule_err rerr = {};
	const struct nlattr *val;
	unsigned int id;
	int err;

	err = mmb_nla_nested(tb, MMB_MATCH_A_MAX, attr, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_MATCH_A_FIELD) ||
	    NL_REQ_ATTR_CHECK(extack, attr, tb, MMB_MATCH_A_VALUE))
		return -EINVAL;
	if ((tb[MMB_MATCH_A_OP] && nla_get_u8(tb[MMB_MATCH_A_OP]) != MMB_OP_EQ) ||
	    tb[MMB_MATCH_A_PREFIX] || tb[MMB_MATCH_A_KIND]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "a field of a traced packet takes a value only");
		return -EINVAL;
	}
	id = nla_get_u16(tb[MMB_MATCH_A_FIELD]);
	f = mmb_field(id);
	if (f->hdr == MMB_HDR_MARK) {	/* the packet's mark, as it arrives */
		if (nla_len(tb[MMB_MATCH_A_VALUE]) != 4 || tb[MMB_MATCH_A_MASK]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MMB_MATCH_A_VALUE],
					    "meta-mark takes a 32-bit value, no mask");
			return -EINVAL;
		}
		skb->mark = be32_to_cpu(nla_get_be32(tb[MMB_MATCH_A_VALUE]));
		return 0;
	}
	if ((f->hdr != MMB_HDR_L3 && f->hdr != MMB_HDR_L4) || (f->flags & MMB_FIELD_F_NO_MOD)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_MATCH_A_FIELD],
				    "field is made by mmb (lengths, protocols, checksums, fragments, options, payloads): give the packet's bytes instead");
		return -EINVAL;
	}
	if ((f->family && f->family != family) || (f->l4 && f->l4 != proto)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_MATCH_A_FIELD],
				    "field is not in a packet of this family and protocol");
		return -EINVAL;
	}
	val = tb[MMB_MATCH_A_VALUE];
	err = mmb_check_value(f, id, nla_data(val), nla_len(val), f->bits, MMB_ERR_MATCH_VALUE,
			      0, &rerr);
	if (err) {
		mmb_nl_err_attr(extack, val, rerr.msg, rerr.text);
		return err;
	}
	return mmb_rewrite_field(skb, pkt, id, nla_data(val), nla_len(val), f->bits);
}

/* The packet of a request: its bytes, or made from its fields. */
static struct sk_buff *mmb_trace_packet(struct nlattr **tb, struct net_device *dev,
					const struct nlattr *trace,
					struct netlink_ext_ack *extack)
{
	const struct nlattr *pa = tb[MMB_TRACE_A_PACKET], *attr;
	struct mmb_pkt pkt __uninitialized;
	struct sk_buff *skb;
	u8 family, proto;
	int rem, err;

	if (pa && (tb[MMB_TRACE_A_FAMILY] || tb[MMB_TRACE_A_FIELDS])) {
		NL_SET_ERR_MSG_ATTR(extack, pa, "a packet is bytes or fields, not both");
		return ERR_PTR(-EINVAL);
	}
	if (pa) {
		u8 ver = nla_len(pa) ? *(u8 *)nla_data(pa) >> 4 : 0;

		if (ver != 4 && ver != 6) {
			NL_SET_ERR_MSG_ATTR(extack, pa, "not an IPv4 or IPv6 packet");
			return ERR_PTR(-EINVAL);
		}
		skb = mmb_trace_skb(dev, nla_len(pa));
		if (!skb)
			return ERR_PTR(-ENOMEM);
		memcpy(skb->data, nla_data(pa), nla_len(pa));
		skb->protocol = htons(ver == 4 ? ETH_P_IP : ETH_P_IPV6);
		return skb;
	}
	if (NL_REQ_ATTR_CHECK(extack, trace, tb, MMB_TRACE_A_FAMILY) ||
	    NL_REQ_ATTR_CHECK(extack, trace, tb, MMB_TRACE_A_PROTO))
		return ERR_PTR(-EINVAL);
	family = nla_get_u8(tb[MMB_TRACE_A_FAMILY]);
	proto = nla_get_u8(tb[MMB_TRACE_A_PROTO]);
	if (family != 4 && family != 6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_TRACE_A_FAMILY], "family is 4 or 6");
		return ERR_PTR(-EINVAL);
	}
	skb = mmb_trace_make(dev, family, proto);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	if (!tb[MMB_TRACE_A_FIELDS])
		return skb;
	nla_for_each_nested(attr, tb[MMB_TRACE_A_FIELDS], rem) {
		/* Only to find the headers: the device's name id goes unread. */
		rcu_read_lock();
		err = mmb_parse(skb, &pkt);
		rcu_read_unlock();
		if (!err)
			err = mmb_trace_field(skb, &pkt, attr, family, proto, extack);
		if (err) {
			kfree_skb(skb);
			return ERR_PTR(err);
		}
	}
	return skb;
}

static int mmb_trace_put_rules(struct sk_buff *msg, const struct mmb_trace *t)
{
	struct nlattr *rules, *r;
	unsigned int i;

	rules = nla_nest_start(msg, MMB_TRACE_A_RULES);
	if (!rules)
		return -EMSGSIZE;
	for (i = 0; i < t->n; i++) {
		r = nla_nest_start(msg, i + 1);
		if (!r || nla_put_u32(msg, MMB_TRACE_RULE_A_HANDLE, t->rule[i]->handle) ||
		    nla_put_u8(msg, MMB_TRACE_RULE_A_HOW, t->how[i]) ||
		    (t->rule[i]->cc && nla_put_u32(msg, MMB_TRACE_RULE_A_CTCOUNT,
						   mmb_cc_count(t->rule[i]->cc, t->pkt))))
			return -EMSGSIZE;
		/* Logged as it is counted: matched, not cut off, not a connection's. */
		if (t->rule[i]->log && (t->how[i] == MMB_TRACE_MATCHED ||
					t->how[i] == MMB_TRACE_STATEFUL) &&
		    nla_put_flag(msg, MMB_TRACE_RULE_A_LOG))
			return -EMSGSIZE;
		nla_nest_end(msg, r);
	}
	nla_nest_end(msg, rules);
	return 0;
}

/*
 * A drop's answer, as hook.c would send it (no token taken, nothing sent):
 * of the rejecting rules that apply at the verdict's priority, the lowest
 * handle's; -1 for a drop that is no reject, MMB_REJECT_DEFAULT for one
 * that sends nothing for this packet.
 */
static int mmb_trace_reject(const struct mmb_trace *t, const struct sk_buff *skb,
			    const struct mmb_pkt *pkt)
{
	const struct mmb_rule *rule;
	unsigned int i;
	u8 answer;

	for (i = 0; i < t->n; i++) {
		rule = t->rule[i];
		if (t->how[i] != MMB_TRACE_MATCHED || !rule->reject || rule->prio != t->j.prio)
			continue;
		answer = mmb_reject_answer(skb, pkt, rule->reject - 1, false);
		return answer != MMB_REJECT_DEFAULT && mmb_reject_csum_ok(skb, pkt) ?
		       answer : MMB_REJECT_DEFAULT;
	}
	return -1;
}

static int mmb_trace_put_skb(struct sk_buff *msg, int type, const struct sk_buff *skb)
{
	struct nlattr *a = nla_reserve(msg, type, skb->len);

	if (!a)
		return -EMSGSIZE;
	return skb_copy_bits(skb, 0, nla_data(a), skb->len);
}

/*
 * Run @skb through @mn's rules and connections and write the answer into
 * @msg; under RCU.
 */
static int mmb_trace_run(struct mmb_net *mn, struct sk_buff *skb, bool anydev,
			 struct mmb_trace *t, struct sk_buff *msg)
{
	const struct mmb_ruleset *rs = mmb_rules_get(&mn->rules);
	bool starts = false, spoofed = false;
	struct mmb_pkt pkt __uninitialized;
	struct nlattr *nest;
	u8 parse, verdict;
	int err, reject = -1;

	nest = nla_nest_start(msg, MMB_A_TRACE);
	if (!nest || mmb_trace_put_skb(msg, MMB_TRACE_A_PACKET, skb))
		return -EMSGSIZE;
	mmb_verdict_init(&t->v);
	t->v.trace = true;
	t->pkt = &pkt;
	err = mmb_parse(skb, &pkt);
	/*
	 * Arrived on no device: no "in" matches. On a device mmb is not
	 * attached to: "in" matches its name as if it were.
	 */
	if (!anydev)
		put_unaligned_be32(0, &pkt.key.b[MMB_IMG_IFINDEX]);
	else if (!get_unaligned_be32(&pkt.key.b[MMB_IMG_IFINDEX]))
		put_unaligned_be32(mmb_ifname_find(skb->dev->name), &pkt.key.b[MMB_IMG_IFINDEX]);
	parse = err == -EBADMSG ? MMB_TRACE_BAD_FRAGMENT : err == -E2BIG ? MMB_TRACE_LONG_CHAIN :
		err ? MMB_TRACE_MALFORMED : MMB_TRACE_PARSED;
	if (!err && rs && mmb_ruleset_count(rs)) {
		if (mmb_ruleset_stateful(rs))
			t->v.conn = mmb_conn_peek(&mn->conns, &pkt, skb, &t->v.dir,
						  &t->v.related, mmb_ruleset_outsf(rs));
		t->pkt = &pkt;
		mmb_classify_each(rs, &pkt, skb, mmb_trace_rule, t);
		if (t->v.conn)
			mmb_trace_conn(t);
	}
	if (parse == MMB_TRACE_BAD_FRAGMENT || parse == MMB_TRACE_LONG_CHAIN)
		verdict = MMB_TRACE_DROP;
	else if (t->starts && !t->v.conn)
		verdict = mmb_trace_start(t, &mn->conns, &pkt, skb, &starts, &spoofed);
	else
		verdict = mmb_trace_verdict(&t->j);
	/* The rewrites the verdict cuts off go, as in the datapath. */
	t->v.accept = t->j.accept;
	t->v.drop = t->j.drop;
	t->v.prio = t->j.prio;
	mmb_verdict_settle(&t->v);
	mmb_trace_cut(t);
	if (verdict == MMB_TRACE_DROP && parse == MMB_TRACE_PARSED)
		reject = mmb_trace_reject(t, skb, &pkt);
	if (nla_put_u8(msg, MMB_TRACE_A_PARSE, parse) || mmb_trace_put_rules(msg, t) ||
	    nla_put_u8(msg, MMB_TRACE_A_VERDICT, verdict) ||
	    (t->v.conn && nla_put_u8(msg, MMB_TRACE_A_CONN_DIR, t->v.dir)) ||
	    (t->v.related && nla_put_flag(msg, MMB_TRACE_A_RELATED)) ||
	    (starts && nla_put_flag(msg, MMB_TRACE_A_CONN_NEW)) ||
	    (spoofed && nla_put_flag(msg, MMB_TRACE_A_CONN_SPOOFED)) ||
	    (reject >= 0 && nla_put_u8(msg, MMB_TRACE_A_REJECT, reject)))
		return -EMSGSIZE;
	if (verdict != MMB_TRACE_DROP && (t->v.nrw || mmb_conn_rewrites(t->v.conn))) {
		err = mmb_rewrite(skb, &pkt, &t->v);
		if (err)
			return err;
		if (mmb_trace_put_skb(msg, MMB_TRACE_A_RESULT, skb))
			return -EMSGSIZE;
	}
	/* Arriving on a device, of an offloaded connection: the fast path's answer. */
	if (verdict != MMB_TRACE_DROP && anydev && t->v.conn && !t->v.related &&
	    mmb_conn_offloaded(t->v.conn)) {
		struct dst_entry *dst;
		struct neighbour *n;

		if (nla_put_u8(msg, MMB_TRACE_A_FAST,
			       mmb_fast_check(skb, t->v.conn, t->v.dir, true, &dst, &n)))
			return -EMSGSIZE;
	}
	/* The packet twice and the rules: an attribute's length is 16 bits. */
	if (skb_tail_pointer(msg) - (unsigned char *)nest > U16_MAX)
		return -E2BIG;
	nla_nest_end(msg, nest);
	if (t->v.conn && mmb_nl_put_conn(msg, t->v.conn, mmb_conn_now()))
		return -EMSGSIZE;
	return 0;
}

int mmb_nl_trace(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MMB_TRACE_A_MAX + 1], *trace = info->attrs[MMB_A_TRACE];
	struct net *net = genl_info_net(info);
	struct net_device *dev = NULL;
	struct sk_buff *pskb, *msg;
	struct mmb_trace *t;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MMB_A_TRACE))
		return -EINVAL;
	err = mmb_nla_nested(tb, MMB_TRACE_A_MAX, trace, info->extack);
	if (err)
		return err;
	if (tb[MMB_TRACE_A_IFINDEX]) {
		dev = dev_get_by_index(net, nla_get_u32(tb[MMB_TRACE_A_IFINDEX]));
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[MMB_TRACE_A_IFINDEX],
					    "no such device");
			return -ENODEV;
		}
	} else {
		dev = net->loopback_dev;
		dev_hold(dev);
	}
	pskb = mmb_trace_packet(tb, dev, trace, info->extack);
	if (IS_ERR(pskb)) {
		err = PTR_ERR(pskb);
		goto put_dev;
	}
	err = -ENOMEM;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		goto free_pskb;
	msg = genlmsg_new(NLMSG_GOODSIZE + 2 * nla_total_size(pskb->len + MAX_TCP_OPTION_SPACE) +
			  MMB_TRACE_RULES * nla_total_size(2 * nla_total_size(4)), GFP_KERNEL);
	if (!msg)
		goto free_t;
	hdr = genlmsg_put_reply(msg, info, &mmb_genl_family, 0, MMB_CMD_TRACE);
	err = -EMSGSIZE;
	if (hdr) {
		rcu_read_lock();
		err = mmb_trace_run(mmb_pernet(net), pskb, tb[MMB_TRACE_A_IFINDEX], t, msg);
		rcu_read_unlock();
	}
	if (err) {
		if (err == -E2BIG)
			NL_SET_ERR_MSG_ATTR(info->extack, tb[MMB_TRACE_A_PACKET] ?: trace,
					    "the trace of this packet is over 64 KiB: trace a shorter one");
		nlmsg_free(msg);
		goto free_t;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
free_t:
	kfree(t);
free_pskb:
	kfree_skb(pskb);
put_dev:
	dev_put(dev);
	return err;
}
