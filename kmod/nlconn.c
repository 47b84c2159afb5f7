// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the connection and settings commands of the generic netlink
 * family: dump and flush the connection table, change and read the
 * settings, and the events of the monitor group.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "nl.h"

/* Not const: 6.1's policy takes a plain pointer. */
static struct netlink_range_validation mmb_conn_max_range = {
	.min = 1,
	.max = MMB_CONN_MAX_LIMIT,
};

static struct netlink_range_validation mmb_timeout_range = {
	.min = 1,
	.max = MMB_TIMEOUT_MAX,
};

#define MMB_TIMEOUT_POLICY(state) \
	[(state) + 1] = NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_timeout_range)

static const struct nla_policy mmb_timeouts_policy[__MMB_CONN_STATE_MAX + 1] = {
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_SYN_SENT),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_SYN_RECV),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_ESTABLISHED),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_FIN_WAIT),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_CLOSE_WAIT),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_LAST_ACK),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_TIME_WAIT),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_CLOSE),
	MMB_TIMEOUT_POLICY(MMB_CONN_TCP_SYN_SENT2),
	MMB_TIMEOUT_POLICY(MMB_CONN_UDP_UNREPLIED),
	MMB_TIMEOUT_POLICY(MMB_CONN_UDP_REPLIED),
	MMB_TIMEOUT_POLICY(MMB_CONN_ICMP),
};

const struct nla_policy mmb_set_policy[MMB_SET_A_MAX + 1] = {
	[MMB_SET_A_CONN_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_conn_max_range),
	[MMB_SET_A_TCP_LOOSE]	= NLA_POLICY_MAX(NLA_U8, 1),
	[MMB_SET_A_TIMEOUTS]	= NLA_POLICY_NESTED(mmb_timeouts_policy),
	[MMB_SET_A_CONN_COUNT]	= { .type = NLA_REJECT, .reject_message = "read only" },
	[MMB_SET_A_CONN_SIZE]	= { .type = NLA_REJECT, .reject_message = "read only" },
	[MMB_SET_A_CONN_STATS]	= { .type = NLA_REJECT, .reject_message = "read only" },
	[MMB_SET_A_RP_FILTER]	= NLA_POLICY_MAX(NLA_U8, 1),
	[MMB_SET_A_TCP_UNACK]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_timeout_range),
};

const struct nla_policy mmb_settings_cmd_policy[MMB_A_SETTINGS + 1] = {
	[MMB_A_SETTINGS]	= NLA_POLICY_NESTED(mmb_set_policy),
};

/* --- connections as attributes ------------------------------------------- */

static int mmb_nl_put_ports(struct sk_buff *skb, const struct mmb_tuple *t)
{
	u8 request = t->family == 4 ? ICMP_ECHO : ICMPV6_ECHO_REQUEST;
	u8 reply = t->family == 4 ? ICMP_ECHOREPLY : ICMPV6_ECHO_REPLY;

	if (t->proto == IPPROTO_TCP || t->proto == IPPROTO_UDP)
		return nla_put_be16(skb, MMB_TUPLE_A_SPORT, t->sport) ||
		       nla_put_be16(skb, MMB_TUPLE_A_DPORT, t->dport);
	/* An echo's identifier: the source port of requests (conn.c). */
	return nla_put_be16(skb, MMB_TUPLE_A_ICMP_ID, t->sport ?: t->dport) ||
	       nla_put_u8(skb, MMB_TUPLE_A_ICMP_TYPE, t->dport ? reply : request);
}

static int mmb_nl_put_tuple(struct sk_buff *skb, int type, const struct mmb_tuple *t)
{
	unsigned int alen = t->family == 4 ? 4 : 16;
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, MMB_TUPLE_A_SADDR, alen, &t->src) ||
	    nla_put(skb, MMB_TUPLE_A_DADDR, alen, &t->dst) ||
	    mmb_nl_put_ports(skb, t)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int mmb_nl_put_conn_stats(struct sk_buff *skb, int type, const struct mmb_conn *c,
				 u8 dir)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, MMB_STATS_A_PACKETS, atomic64_read(&c->packets[dir]),
			      MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_BYTES, atomic64_read(&c->bytes[dir]),
			      MMB_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int mmb_nl_put_conn_rules(struct sk_buff *skb, const struct mmb_conn *c)
{
	struct nlattr *nest = nla_nest_start(skb, MMB_CONN_A_RULES);
	unsigned int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < c->nrules; i++) {
		if (nla_put_u32(skb, i + 1, mmb_rule_live(READ_ONCE(c->rules[i]))->handle)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* MMB_A_CONN of @c, at @now. */
int mmb_nl_put_conn(struct sk_buff *skb, const struct mmb_conn *c, u32 now)
{
	const struct mmb_tuple *t = &c->orig.t;
	s32 left = max_t(s32, (s32)(READ_ONCE(c->timeout) - now), 0);
	struct nlattr *nest = nla_nest_start(skb, MMB_A_CONN);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, MMB_CONN_A_FAMILY, t->family) ||
	    nla_put_u8(skb, MMB_CONN_A_PROTO, t->proto) ||
	    nla_put_u8(skb, MMB_CONN_A_STATE, READ_ONCE(c->state)) ||
	    mmb_nl_put_tuple(skb, MMB_CONN_A_ORIG, t) ||
	    mmb_nl_put_tuple(skb, MMB_CONN_A_REPLY, &c->reply.t) ||
	    nla_put_u32(skb, MMB_CONN_A_TIMEOUT, DIV_ROUND_UP(left, HZ)) ||
	    mmb_nl_put_conn_stats(skb, MMB_CONN_A_STATS_ORIG, c, MMB_DIR_ORIG) ||
	    mmb_nl_put_conn_stats(skb, MMB_CONN_A_STATS_REPLY, c, MMB_DIR_REPLY) ||
	    mmb_nl_put_conn_rules(skb, c) ||
	    (test_bit(MMB_CONN_ASSURED, &c->status) && nla_put_flag(skb, MMB_CONN_A_ASSURED)) ||
	    (mmb_conn_offloaded(c) && nla_put_flag(skb, MMB_CONN_A_OFFLOADED))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The most MMB_A_CONN can take (IPv6, ICMP's type on top of ports). */
static size_t mmb_nl_conn_size(void)
{
	size_t tuple = nla_total_size(0) + 2 * nla_total_size(16) + 2 * nla_total_size(2) +
		       nla_total_size(1);
	size_t stats = nla_total_size(0) + 2 * nla_total_size_64bit(8);

	return nla_total_size(0) + 3 * nla_total_size(1) + 2 * tuple + nla_total_size(4) +
	       2 * stats + nla_total_size(0) + MMB_CONN_RULES * nla_total_size(4) +
	       nla_total_size(0);
}

/* Tell the monitor group what happened to @c: @cmd, MMB_CMD_CONN_*. */
void mmb_conn_event(struct mmb_conns *mc, const struct mmb_conn *c, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&mmb_genl_family, mc->net, MMB_MCGRP_EVENTS))
		return;
	skb = genlmsg_new(mmb_nl_conn_size(), GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &mmb_genl_family, 0, cmd);
	if (!hdr || mmb_nl_put_conn(skb, c, mmb_conn_now())) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&mmb_genl_family, mc->net, skb, 0, MMB_MCGRP_EVENTS,
				GFP_ATOMIC);
}

/* --- commands -------------------------------------------------------------- */

int mmb_nl_conn_dump_start(struct netlink_callback *cb)
{
	struct mmb_net *mn = mmb_pernet(sock_net(cb->skb->sk));
	struct rhashtable_iter *iter = kmalloc(sizeof(*iter), GFP_KERNEL);

	if (!iter)
		return -ENOMEM;
	rhashtable_walk_enter(&mn->conns.ht, iter);
	cb->args[0] = (long)iter;
	return 0;
}

int mmb_nl_conn_dump_done(struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];

	if (iter) {
		rhashtable_walk_exit(iter);
		kfree(iter);
	}
	return 0;
}

/*
 * Each connection once (its original direction's node), live ones only.
 * A connection that did not fit is the walk's current one: the next call
 * starts with it. A resize of the table restarts the walk from its start
 * (-EAGAIN): what was sent comes again, so the messages after it are
 * flagged NLM_F_DUMP_INTR (cb->args[1] counts the restarts), and mmbctl
 * dumps again.
 */
int mmb_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];
	u32 now = mmb_conn_now();
	struct mmb_conn_node *n;
	struct mmb_conn *c;
	void *hdr;

	/* A resize since the last call rewinds the walk to the start. */
	if (rhashtable_walk_start_check(iter) == -EAGAIN)
		cb->args[1]++;
	for (n = rhashtable_walk_peek(iter); n; n = rhashtable_walk_next(iter)) {
		if (IS_ERR(n)) {
			cb->args[1]++;	/* -EAGAIN: a resize; the walk goes on */
			continue;
		}
		c = mmb_conn_of(n);
		if (n->t.dir != MMB_DIR_ORIG || !mmb_conn_live(c) || mmb_conn_expired(c, now))
			continue;
		mmb_nl_dump_gen(cb, cb->args[1] + 1);
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &mmb_genl_family, NLM_F_MULTI, MMB_CMD_CONN_GET);
		if (!hdr)
			break;
		if (mmb_nl_put_conn(skb, c, now)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		/* Only a message sent notes the restarts it has seen. */
		genl_dump_check_consistent(cb, hdr);
		genlmsg_end(skb, hdr);
	}
	rhashtable_walk_stop(iter);
	mmb_nl_dump_gen(cb, cb->args[1] + 1);	/* the end, after a resize too */
	return skb->len;
}

int mmb_nl_conn_flush(struct sk_buff *skb, struct genl_info *info)
{
	mmb_conns_flush(&mmb_pernet(genl_info_net(info))->conns);
	return 0;
}

/*
 * Apply the settings of @attr (a nest of enum mmb_set_attr, validated by
 * its policy) to @mc; with @mc NULL only check them. Once they check, they
 * apply: a batch checks its settings first and applies them at its commit.
 */
int mmb_nl_settings_apply(struct mmb_conns *mc, const struct nlattr *attr,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MMB_SET_A_MAX + 1], *tt[__MMB_CONN_STATE_MAX + 1];
	unsigned int i;
	int err;

	err = mmb_nla_nested(tb, MMB_SET_A_MAX, attr, extack);
	if (err)
		return err;
	if (tb[MMB_SET_A_TIMEOUTS]) {
		err = mmb_nla_nested(tt, __MMB_CONN_STATE_MAX, tb[MMB_SET_A_TIMEOUTS], extack);
		if (err)
			return err;
	}
	if (!mc)
		return 0;
	mutex_lock(&mc->lock);
	if (tb[MMB_SET_A_CONN_MAX])
		WRITE_ONCE(mc->max, nla_get_u32(tb[MMB_SET_A_CONN_MAX]));
	if (tb[MMB_SET_A_TCP_LOOSE])
		WRITE_ONCE(mc->tcp_loose, nla_get_u8(tb[MMB_SET_A_TCP_LOOSE]));
	if (tb[MMB_SET_A_RP_FILTER])
		WRITE_ONCE(mc->rpf, nla_get_u8(tb[MMB_SET_A_RP_FILTER]));
	if (tb[MMB_SET_A_TCP_UNACK])
		WRITE_ONCE(mc->tcp_unack, nla_get_u32(tb[MMB_SET_A_TCP_UNACK]) * HZ);
	for (i = 0; tb[MMB_SET_A_TIMEOUTS] && i < __MMB_CONN_STATE_MAX; i++)
		if (tt[i + 1])
			WRITE_ONCE(mc->timeouts[i], nla_get_u32(tt[i + 1]) * HZ);
	mutex_unlock(&mc->lock);
	return 0;
}

int mmb_nl_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_conns *mc = &mmb_pernet(genl_info_net(info))->conns;

	if (GENL_REQ_ATTR_CHECK(info, MMB_A_SETTINGS))
		return -EINVAL;
	return mmb_nl_settings_apply(mc, info->attrs[MMB_A_SETTINGS], info->extack);
}

static int mmb_nl_put_conn_counters(struct sk_buff *skb, struct mmb_conns *mc)
{
	struct nlattr *nest = nla_nest_start(skb, MMB_SET_A_CONN_STATS);
	u64 n[MMB_CSTAT_MAX];
	unsigned int i;

	BUILD_BUG_ON(MMB_CONN_STATS_A_NAT_FULL - MMB_CONN_STATS_A_CREATED != MMB_CSTAT_NAT_FULL ||
		     MMB_CONN_STATS_A_CAPPED - MMB_CONN_STATS_A_CREATED != MMB_CSTAT_CAPPED);
	if (!nest)
		return -EMSGSIZE;
	mmb_conns_stats(mc, n);
	for (i = 0; i < MMB_CSTAT_MAX; i++)
		if (nla_put_u64_64bit(skb, MMB_CONN_STATS_A_CREATED + i, n[i],
				      MMB_CONN_STATS_A_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int mmb_nl_put_settings(struct sk_buff *skb, struct mmb_conns *mc)
{
	struct nlattr *nest = nla_nest_start(skb, MMB_A_SETTINGS), *tn;
	unsigned int i;

	if (!nest ||
	    nla_put_u32(skb, MMB_SET_A_CONN_MAX, READ_ONCE(mc->max)) ||
	    nla_put_u8(skb, MMB_SET_A_TCP_LOOSE, READ_ONCE(mc->tcp_loose)) ||
	    nla_put_u8(skb, MMB_SET_A_RP_FILTER, READ_ONCE(mc->rpf)) ||
	    nla_put_u32(skb, MMB_SET_A_TCP_UNACK, READ_ONCE(mc->tcp_unack) / HZ) ||
	    nla_put_u32(skb, MMB_SET_A_CONN_COUNT, atomic_read(&mc->count)) ||
	    nla_put_u32(skb, MMB_SET_A_CONN_SIZE, mmb_conn_size()))
		return -EMSGSIZE;
	tn = nla_nest_start(skb, MMB_SET_A_TIMEOUTS);
	if (!tn)
		return -EMSGSIZE;
	for (i = 0; i < __MMB_CONN_STATE_MAX; i++)
		if (nla_put_u32(skb, i + 1, READ_ONCE(mc->timeouts[i]) / HZ))
			return -EMSGSIZE;
	nla_nest_end(skb, tn);
	if (mmb_nl_put_conn_counters(skb, mc))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int mmb_nl_settings_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_conns *mc = &mmb_pernet(genl_info_net(info))->conns;
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mmb_genl_family, 0, MMB_CMD_SETTINGS_GET);
	if (!hdr || mmb_nl_put_settings(msg, mc)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}
