/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: log, a rule's kernel log line per packet in the netfilter logger's
 * format (log.c), within the rule's own rate, and the same record to the
 * "log" multicast group. docs/log.md is the user's side.
 */
#ifndef _MMB_LOG_H
#define _MMB_LOG_H

#include <linux/skbuff.h>
#include <net/netlink.h>

#include "bucket.h"
#include "../uapi/linux/mmb.h"

struct mmb_net;
struct mmb_rule;
struct mmb_rule_spec;

/* A rule's log: its words and its token bucket (mmb_log_rate, mmb_log_burst). */
struct mmb_log {
	struct mmb_tokens bucket;
	u8 level;		/* syslog level, 0 to 7 */
	u8 plen;		/* bytes of @prefix */
	char prefix[MMB_LOG_PREFIX_MAX + 1];
	u32 rate;		/* its own: lines every @per seconds; 0: mmb_log_rate a second */
	u32 per;
	u32 burst;		/* its own; 0: mmb_log_burst */
};

/* A namespace's: the packets its log rules did not log, per CPU. */
struct mmb_log_net {
	u64 __percpu *suppressed;
};

extern unsigned int mmb_log_rate;
extern unsigned int mmb_log_burst;
extern bool mmb_log_all_netns;

/* What a line says of a packet, for the multicast record (the outer packet's). */
struct mmb_log_rec {
	u8 family;		/* 0: not an IP header that could be read */
	u8 proto;
	bool ports;		/* @sport, @dport read (TCP, UDP, UDP-Lite) */
	bool icmp;		/* @type, @code read */
	u8 type, code;
	u16 sport, dport;
	u32 len;
	union {
		__be32 a4;
		struct in6_addr a6;
	} saddr, daddr;
};

#define MMB_LOG_LINE		1024	/* as the netfilter logger's buffer */

int mmb_log_net_init(struct mmb_log_net *ln);
void mmb_log_net_exit(struct mmb_log_net *ln);
u64 mmb_log_suppressed(const struct mmb_log_net *ln);

struct mmb_log *mmb_log_new(const char *prefix, unsigned int plen, u8 level);
struct mmb_log *mmb_log_new_rate(const char *prefix, unsigned int plen, u8 level, u32 rate,
				 u32 per, u32 burst);
bool mmb_log_same(const struct mmb_log *a, const struct mmb_log *b);
bool mmb_log_admit(struct mmb_log *l, struct mmb_log_net *ln);
int mmb_log_format(char *buf, size_t size, const struct sk_buff *skb, const char *prefix,
		   const char *in, const char *out, const u8 *mac, unsigned int maclen,
		   struct mmb_log_rec *rec);
extern const struct nla_policy mmb_log_policy[MMB_LOG_A_MAX + 1];
int mmb_log_nl_parse(const struct nlattr *attr, struct mmb_rule_spec *spec,
		     struct netlink_ext_ack *extack);
int mmb_log_nl_put(struct sk_buff *skb, const struct mmb_log *l);
void mmb_log_packet(const struct mmb_rule *rule, const struct sk_buff *skb, bool out);

#endif /* _MMB_LOG_H */
