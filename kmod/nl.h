/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: what the files of the generic netlink family share: netlink.c (the
 * family, devices), nlrule.c (rules and tables) and nlconn.c (connections,
 * settings), nltrace.c (tracing a packet). They translate
 * messages into calls and answers; they hold no state of their own.
 */
#ifndef _MMB_NL_H
#define _MMB_NL_H

#include <net/genetlink.h>

#include "mmb.h"

extern struct genl_family mmb_genl_family;

enum {
	MMB_MCGRP_EVENTS,	/* MMB_GENL_MCGRP_EVENTS */
	MMB_MCGRP_LOG,		/* MMB_GENL_MCGRP_LOG */
};

/*
 * Where a dump goes on: index of the next device or table, handle of the
 * next rule; MMB_NL_DUMP_END once a call has sent the last one (the call
 * after it only ends the dump, whatever changed since).
 */
struct mmb_nl_dump_ctx {
	u64 next;
};

#define MMB_NL_DUMP_END	U64_MAX

/*
 * The generation a dump's call reads (0 would mean "not checked"): set
 * before its first message, and before the end if it writes none, so that
 * an end after a change is flagged NLM_F_DUMP_INTR too.
 */
static inline void mmb_nl_dump_gen(struct netlink_callback *cb, unsigned long gen)
{
	cb->seq = (u32)gen ?: 1;
}

void *mmb_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		      unsigned long gen);
int mmb_nl_put_stats(struct sk_buff *skb, int type, struct mmb_pcpu_stats __percpu *pcpu,
		     struct mmb_pcpu_counts __percpu *counts, const struct mmb_rule *rule);
int mmb_nla_nested(struct nlattr **tb, int maxtype, const struct nlattr *nla,
		   struct netlink_ext_ack *extack);
struct net_device *mmb_nl_dev_lookup(struct net *net, const struct nlattr *ifindex,
				     const struct nlattr *ifname,
				     struct netlink_ext_ack *extack);

extern const struct nla_policy mmb_match_policy[MMB_MATCH_A_MAX + 1];
extern const struct nla_policy mmb_rule_cmd_policy[MMB_A_RULE + 1];
extern const struct nla_policy mmb_batch_policy[MMB_A_CHECK + 1];
int mmb_nl_rule_add(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_rule_del(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_rule_flush(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_rule_batch(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);
int mmb_nl_rule_reset(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_table_dump(struct sk_buff *skb, struct netlink_callback *cb);

extern const struct nla_policy mmb_settings_cmd_policy[MMB_A_SETTINGS + 1];
extern const struct nla_policy mmb_set_policy[MMB_SET_A_MAX + 1];
int mmb_nl_settings_apply(struct mmb_conns *mc, const struct nlattr *attr,
			  struct netlink_ext_ack *extack);
int mmb_nl_conn_dump_start(struct netlink_callback *cb);
int mmb_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb);
int mmb_nl_conn_dump_done(struct netlink_callback *cb);
int mmb_nl_conn_flush(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_set(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_settings_get(struct sk_buff *skb, struct genl_info *info);
int mmb_nl_put_conn(struct sk_buff *skb, const struct mmb_conn *c, u32 now);

extern const struct nla_policy mmb_trace_cmd_policy[MMB_A_TRACE + 1];
int mmb_nl_trace(struct sk_buff *skb, struct genl_info *info);

#endif /* _MMB_NL_H */
