// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the generic netlink family, documented in uapi/linux/mmb.h: its
 * commands and policies, the device commands, and what dumps share. The
 * rule and table commands are nlrule.c's.
 */
#include <linux/rtnetlink.h>
#include <net/sock.h>

#include "nl.h"

static const struct nla_policy mmb_dev_policy[MMB_A_IFNAME + 1] = {
	[MMB_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[MMB_A_IFNAME]	= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
};

/*
 * The device named by @ifindex or @ifname (exactly one of them) in @net,
 * for a request or an operation of a batch. Called under RTNL.
 */
struct net_device *mmb_nl_dev_lookup(struct net *net, const struct nlattr *ifindex,
				     const struct nlattr *ifname,
				     struct netlink_ext_ack *extack)
{
	struct net_device *dev;

	if (ifindex && ifname) {
		NL_SET_ERR_MSG_ATTR(extack, ifname,
				    "name the device by index or by name, not both");
		return ERR_PTR(-EINVAL);
	}
	if (ifindex) {
		dev = __dev_get_by_index(net, nla_get_u32(ifindex));
	} else if (ifname) {
		dev = __dev_get_by_name(net, nla_data(ifname));
	} else {
		NL_SET_ERR_MSG(extack, "missing device: MMB_A_IFINDEX or MMB_A_IFNAME");
		return ERR_PTR(-EINVAL);
	}
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, ifindex ?: ifname,
				    "no such device in this network namespace");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

/*
 * A name or pattern is enabled (remembered) or forgotten; a device given
 * by its index (no mmbctl sends one) is attached or detached alone, as
 * before names were remembered: that device, not its name.
 */
static int mmb_nl_dev_set(struct genl_info *info, bool enable)
{
	struct nlattr *ifname = info->attrs[MMB_A_IFNAME];
	struct net *net = genl_info_net(info);
	struct mmb_dev_plan plan;
	struct net_device *dev;
	int err;

	rtnl_lock();
	if (ifname && !info->attrs[MMB_A_IFINDEX]) {
		if (enable) {
			mmb_dev_plan_init(&plan, net);
			err = mmb_dev_plan_name(&plan, nla_data(ifname), false, info->extack);
			if (err)
				mmb_dev_plan_abort(&plan);
			else
				mmb_dev_plan_commit(&plan);
		} else {
			err = mmb_dev_forget(net, nla_data(ifname), info->extack);
		}
		if (err)
			NL_SET_BAD_ATTR(info->extack, ifname);
		goto out;
	}
	dev = mmb_nl_dev_lookup(net, info->attrs[MMB_A_IFINDEX], ifname, info->extack);
	if (IS_ERR(dev))
		err = PTR_ERR(dev);
	else if (enable)
		err = mmb_dev_enable(dev, info->extack);
	else
		err = mmb_dev_disable(dev, info->extack);
out:
	rtnl_unlock();
	return err;
}

static int mmb_nl_dev_enable(struct sk_buff *skb, struct genl_info *info)
{
	return mmb_nl_dev_set(info, true);
}

static int mmb_nl_dev_disable(struct sk_buff *skb, struct genl_info *info)
{
	return mmb_nl_dev_set(info, false);
}

/* A device's drops, in all and by cause, and what else it counts. */
static int mmb_nl_put_counts(struct sk_buff *skb, const u64 *n)
{
	u64 all = 0;
	unsigned int i;

	BUILD_BUG_ON(MMB_STATS_A_DROP_CONN - MMB_STATS_A_DROP_RULE != MMB_DROP_CONN);
	BUILD_BUG_ON(MMB_DROP_CONN + 1 != MMB_DROP_UNMAPPED ||
		     MMB_DROP_UNMAPPED + 1 != MMB_DROP_MAX);
	for (i = 0; i < MMB_DROP_MAX; i++) {
		/* The causes after CONN have attributes of their own. */
		unsigned int type = i <= MMB_DROP_CONN ? MMB_STATS_A_DROP_RULE + i :
				    MMB_STATS_A_DROP_UNMAPPED;

		all += n[i];
		if (nla_put_u64_64bit(skb, type, n[i], MMB_STATS_A_PAD))
			return -EMSGSIZE;
	}
	if (nla_put_u64_64bit(skb, MMB_STATS_A_DROPPED, all, MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_REWRITTEN, n[MMB_COUNT_REWRITTEN],
			      MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_NOT_IP, n[MMB_COUNT_NOT_IP], MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_MALFORMED, n[MMB_COUNT_MALFORMED],
			      MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_OFFLOADED, n[MMB_COUNT_OFFLOADED],
			      MMB_STATS_A_PAD))
		return -EMSGSIZE;
	return 0;
}

static int mmb_nl_put_st(struct sk_buff *skb, const struct mmb_stats *st)
{
	if (nla_put_u64_64bit(skb, MMB_STATS_A_PACKETS, st->packets, MMB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_BYTES, st->bytes, MMB_STATS_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/* Packets and bytes; and the counts of @counts, the options not added of @rule, if given. */
int mmb_nl_put_stats(struct sk_buff *skb, int type, struct mmb_pcpu_stats __percpu *pcpu,
		     struct mmb_pcpu_counts __percpu *counts, const struct mmb_rule *rule)
{
	u64 n[MMB_COUNT_MAX];
	struct mmb_stats st;
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	mmb_stats_read(pcpu, &st);
	if (counts)
		mmb_counts_read(counts, n);
	if (mmb_nl_put_st(skb, &st) ||
	    (counts && mmb_nl_put_counts(skb, n)) ||
	    (rule && rule->opts &&
	     nla_put_u64_64bit(skb, MMB_STATS_A_NOFIT, atomic64_read(mmb_rule_nofit(rule)),
			       MMB_STATS_A_PAD)) ||
	    (rule && mmb_limit_put_stats(skb, rule->limit)))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * MMB_A_STATS: the counters of every enabled device of @mn summed, the
 * flow cache's of its rules and their meters' summed (when they have one);
 * MMB_A_DEVICES.
 */
static int mmb_nl_put_net_stats(struct sk_buff *skb, struct mmb_net *mn)
{
	u64 n[MMB_COUNT_MAX], sum[MMB_COUNT_MAX] = {}, hits, misses, evicted, full;
	struct mmb_stats st, all = {};
	struct mmb_ruleset *rs;
	struct nlattr *nest;
	struct mmb_dev *md;
	bool cache, meters;
	u32 devs = 0;
	int i;

	rtnl_lock();
	list_for_each_entry(md, &mn->devs, list) {
		mmb_stats_read(md->stats, &st);
		mmb_counts_read(md->counts, n);
		all.packets += st.packets;
		all.bytes += st.bytes;
		for (i = 0; i < MMB_COUNT_MAX; i++)
			sum[i] += n[i];
		devs++;
	}
	rtnl_unlock();
	mmb_rules_lock(&mn->rules);
	rs = mmb_rules_locked(&mn->rules);
	cache = rs && mmb_ruleset_cache_stats(rs, &hits, &misses);
	meters = rs && mmb_ruleset_meter_counts(rs, &evicted, &full);
	mmb_rules_unlock(&mn->rules);

	nest = nla_nest_start(skb, MMB_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (mmb_nl_put_st(skb, &all) || mmb_nl_put_counts(skb, sum) ||
	    (cache && (nla_put_u64_64bit(skb, MMB_STATS_A_CACHE_HITS, hits, MMB_STATS_A_PAD) ||
		       nla_put_u64_64bit(skb, MMB_STATS_A_CACHE_MISSES, misses,
					 MMB_STATS_A_PAD))) ||
	    (meters && (nla_put_u64_64bit(skb, MMB_STATS_A_LIMIT_EVICTED, evicted,
					  MMB_STATS_A_PAD) ||
			nla_put_u64_64bit(skb, MMB_STATS_A_LIMIT_FULL, full, MMB_STATS_A_PAD))) ||
	    nla_put_u64_64bit(skb, MMB_STATS_A_LOG_SUPPRESSED, mmb_log_suppressed(&mn->log),
			      MMB_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return nla_put_u32(skb, MMB_A_DEVICES, devs);
}

static int mmb_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mmb_net *mn = mmb_pernet(genl_info_net(info));
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mmb_genl_family, 0, MMB_CMD_STATS_GET);
	if (!hdr || mmb_nl_put_net_stats(msg, mn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * A dump resumes where its last message ended, in a later call. Each
 * message records the generation of what it is dumped from; one written
 * under another generation than the one before it is flagged
 * NLM_F_DUMP_INTR (and so is the dump's end), and mmbctl dumps again.
 */
void *mmb_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		      unsigned long gen)
{
	void *hdr;

	mmb_nl_dump_gen(cb, gen);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &mmb_genl_family, NLM_F_MULTI, cmd);
	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

static int mmb_nl_dev_fill(struct sk_buff *skb, const struct mmb_dev *md,
			   struct netlink_callback *cb)
{
	void *hdr = mmb_nl_dump_put(skb, cb, MMB_CMD_DEV_GET, md->mn->dev_gen);

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MMB_A_IFINDEX, md->dev->ifindex) ||
	    nla_put_string(skb, MMB_A_IFNAME, md->dev->name) ||
	    (md->by && nla_put_string(skb, MMB_A_ENABLED, md->by->name)) ||
	    mmb_nl_put_stats(skb, MMB_A_DEV_STATS, md->stats, md->counts, NULL)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* An enabled name or pattern: how many devices it attached, how many it could not. */
static int mmb_nl_enabled_fill(struct sk_buff *skb, struct mmb_net *mn,
			       const struct mmb_enabled *e, struct netlink_callback *cb)
{
	void *hdr = mmb_nl_dump_put(skb, cb, MMB_CMD_DEV_GET, mn->dev_gen);
	const struct mmb_dev *md;
	u32 n = 0;

	if (!hdr)
		return -EMSGSIZE;
	list_for_each_entry(md, &mn->devs, list)
		n += md->by == e;
	if (nla_put_string(skb, MMB_A_ENABLED, e->name) ||
	    nla_put_u32(skb, MMB_A_ATTACHED, n) ||
	    nla_put_u32(skb, MMB_A_ATTACH_FAILED, e->failed)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The attached devices, then the enabled names and patterns. */
static int mmb_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mmb_nl_dump_ctx *ctx = (struct mmb_nl_dump_ctx *)cb->ctx;
	struct mmb_net *mn = mmb_pernet(sock_net(skb->sk));
	const struct mmb_enabled *e;
	struct mmb_dev *md;
	unsigned long i = 0;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (ctx->next == MMB_NL_DUMP_END)
		return 0;
	rtnl_lock();
	mmb_nl_dump_gen(cb, mn->dev_gen);
	list_for_each_entry(md, &mn->devs, list) {
		if (i++ < ctx->next)
			continue;
		err = mmb_nl_dev_fill(skb, md, cb);
		if (err)
			goto out;
		ctx->next++;
	}
	list_for_each_entry(e, &mn->enabled, list) {
		if (i++ < ctx->next)
			continue;
		err = mmb_nl_enabled_fill(skb, mn, e, cb);
		if (err)
			goto out;
		ctx->next++;
	}
	ctx->next = MMB_NL_DUMP_END;
out:
	rtnl_unlock();
	return skb->len ?: err;
}

static const struct genl_ops mmb_genl_ops[] = {
	{
		.cmd	= MMB_CMD_DEV_ENABLE,
		.doit	= mmb_nl_dev_enable,
		.policy	= mmb_dev_policy,
		.maxattr = ARRAY_SIZE(mmb_dev_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_DEV_DISABLE,
		.doit	= mmb_nl_dev_disable,
		.policy	= mmb_dev_policy,
		.maxattr = ARRAY_SIZE(mmb_dev_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_DEV_GET,
		.dumpit	= mmb_nl_dev_dump,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_RULE_ADD,
		.doit	= mmb_nl_rule_add,
		.policy	= mmb_rule_cmd_policy,
		.maxattr = ARRAY_SIZE(mmb_rule_cmd_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_RULE_DEL,
		.doit	= mmb_nl_rule_del,
		.policy	= mmb_rule_cmd_policy,
		.maxattr = ARRAY_SIZE(mmb_rule_cmd_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_RULE_FLUSH,
		.doit	= mmb_nl_rule_flush,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_RULE_GET,
		.dumpit	= mmb_nl_rule_dump,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_TABLE_GET,
		.dumpit	= mmb_nl_table_dump,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_RULE_BATCH,
		.doit	= mmb_nl_rule_batch,
		.policy	= mmb_batch_policy,
		.maxattr = ARRAY_SIZE(mmb_batch_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_CONN_GET,
		.start	= mmb_nl_conn_dump_start,
		.dumpit	= mmb_nl_conn_dump,
		.done	= mmb_nl_conn_dump_done,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_CONN_FLUSH,
		.doit	= mmb_nl_conn_flush,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_SET,
		.doit	= mmb_nl_set,
		.policy	= mmb_settings_cmd_policy,
		.maxattr = ARRAY_SIZE(mmb_settings_cmd_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_SETTINGS_GET,
		.doit	= mmb_nl_settings_get,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_STATS_GET,
		.doit	= mmb_nl_stats_get,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_TRACE,
		.doit	= mmb_nl_trace,
		.policy	= mmb_trace_cmd_policy,
		.maxattr = ARRAY_SIZE(mmb_trace_cmd_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MMB_CMD_RULE_RESET,
		.doit	= mmb_nl_rule_reset,
		.policy	= mmb_rule_cmd_policy,
		.maxattr = ARRAY_SIZE(mmb_rule_cmd_policy) - 1,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group mmb_mcgrps[] = {
	[MMB_MCGRP_EVENTS] = {
		.name	= MMB_GENL_MCGRP_EVENTS,
		.flags	= GENL_MCAST_CAP_NET_ADMIN,
	},
	[MMB_MCGRP_LOG] = {
		.name	= MMB_GENL_MCGRP_LOG,
		.flags	= GENL_MCAST_CAP_NET_ADMIN,
	},
};

/* resv_start_op stays 0: every command is validated strictly. */
struct genl_family mmb_genl_family __ro_after_init = {
	.name		= MMB_GENL_NAME,
	.version	= MMB_GENL_VERSION,
	.module		= THIS_MODULE,
	.netnsok	= true,
	.parallel_ops	= true,
	.ops		= mmb_genl_ops,
	.n_ops		= ARRAY_SIZE(mmb_genl_ops),
	.mcgrps		= mmb_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(mmb_mcgrps),
};

int __init mmb_genl_register(void)
{
	return genl_register_family(&mmb_genl_family);
}

void mmb_genl_unregister(void)
{
	genl_unregister_family(&mmb_genl_family);
}
