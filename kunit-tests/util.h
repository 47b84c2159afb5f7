/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb KUnit helpers: test netdevs and crafted frames.
 */
#ifndef _MMB_KUNIT_UTIL_H
#define _MMB_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "../kmod/rule.h"

/* What a capturing device sent, or its stack got: how many, the last one's first bytes. */
struct mmbt_capture {
	int n;
	unsigned int len;
	u8 buf[256];
};

struct mmbt_capdev {
	struct net_device *dev;
	struct mmbt_capture sent, got;
	struct packet_type pt4, pt6;
};

struct mmbt_capdev *mmbt_capdev_new(struct kunit *test, const char *name);

void mmbt_setup(struct net_device *dev);
struct net_device *mmbt_netdev_create(struct kunit *test);
struct net_device *mmbt_netdev_create_up(struct kunit *test);
struct net_device *mmbt_netdev_create_l3(struct kunit *test);
void mmbt_netdev_destroy(struct net_device *dev);
bool mmbt_enabled(struct net_device *dev);
struct net *mmbt_netns_new(struct kunit *test, struct net_device **dev);
void mmbt_netns_done(struct kunit *test, struct net *net, struct net_device *dev);
struct sk_buff *mmbt_skb_udp4(struct net_device *dev, unsigned int payload);
void mmbt_receive(struct sk_buff *skb);

/* A packet to craft: network header at skb->data, checksums valid. */
struct mmbt_pkt_desc {
	bool v6;
	u8 proto;		/* IPPROTO_TCP, _UDP, _ICMP, _ICMPV6 */
	u8 tos;			/* IPv4 TOS, IPv6 traffic class */
	u8 ttl;
	u8 l3_opt_len;		/* IPv4 options / IPv6 dest. options, 4/8-multiple */
	u8 tcp_opt_len;		/* multiple of 4: tcp_opts, or NOPs */
	const u8 *tcp_opts;
	u8 tcp_flags;
	bool no_udp_csum;
	u16 frag_off;		/* IPv4 only, host order */
	u16 sport, dport;	/* ICMP: type << 8 | code in sport */
	u32 seq;
	u32 ack;		/* TCP: 0 for 0xabcdef01 */
	u8 saddr[16], daddr[16];
	unsigned int payload_len;
	u8 payload_seed;
};

struct sk_buff *mmbt_pkt_build(struct net_device *dev, const struct mmbt_pkt_desc *d);
struct sk_buff *mmbt_pkt_chain6(struct net_device *dev, unsigned int n);
struct sk_buff *mmbt_frame(struct net_device *dev, struct sk_buff *skb);
bool mmbt_csums_ok(const struct sk_buff *skb, bool v6, unsigned int l4off, u8 proto);
__sum16 mmbt_l4_csum(const u8 *l3, unsigned int l4off, unsigned int len, bool v6, u8 proto);

struct mmb_match_spec mmbt_match(u16 field, u8 op, u32 v);
struct mmb_match_spec mmbt_match_in(u8 op, const char *name);
bool mmbt_spec_matches(const struct mmb_rule_spec *s, const struct mmb_pkt *pkt,
		       const struct sk_buff *skb);
void *mmbt_vzalloc(struct kunit *test, size_t size);
u64 mmbt_tsc(void);

struct mmb_rules;
struct mmb_ruleset;
struct mmb_rule;
struct mmb_rule_image;
struct mmb_table_info;

struct mmb_rules *mmbt_rules_new(struct kunit *test);
void mmbt_rules_done(struct kunit *test, struct mmb_rules *r);
struct mmb_ruleset *mmbt_rs(struct mmb_rules *r);
int mmbt_insert(struct mmb_rules *r, struct mmb_rule *rule, const struct mmb_rule_image *img);
struct mmb_rule *mmbt_rule_add(struct kunit *test, struct mmb_rules *r, bool stateful, u8 target,
			       const struct mmb_match_spec *m, unsigned int n);
struct mmb_rule *mmbt_rule_add_accept(struct kunit *test, struct mmb_rules *r,
				      const struct mmb_match_spec *m, unsigned int n,
				      bool offload);
/* A target of a rule to add: @plen 0 means the whole field. */
struct mmbt_target {
	u8 type;
	u16 field;
	u8 vlen;
	u8 plen;
	u8 kind;		/* of tcp-opt */
	bool invert;		/* strip ! */
	u8 value[38];		/* a TCP option's data at most */
};

struct mmb_rule *mmbt_rule_make(struct kunit *test, bool stateful,
				const struct mmb_match_spec *m, unsigned int nm,
				const struct mmbt_target *t, unsigned int nt);
struct mmb_rule *mmbt_rule_targets(struct kunit *test, struct mmb_rules *r, bool stateful,
				   const struct mmb_match_spec *m, unsigned int nm,
				   const struct mmbt_target *t, unsigned int nt);
int mmbt_remove(struct mmb_rules *r, const struct mmb_rule *rule);
struct mmb_conns;
int mmbt_judge(struct mmb_rules *r, struct mmb_conns *mc, struct sk_buff *skb);
int mmbt_table(struct mmb_rules *r, unsigned int index, struct mmb_table_info *info);
void mmbt_conn_cap(struct kunit *test, unsigned int n);
struct nlmsghdr;
int mmbt_rtnl(struct kunit *test, struct net *net, struct nlmsghdr *nlh);
void mmbt_route(struct kunit *test, struct net *net, struct net_device *dev, bool v6,
		const u8 *dst, u8 plen, u8 type, bool del);
void mmbt_route_tos(struct kunit *test, struct net *net, struct net_device *dev, bool v6,
		    const u8 *dst, u8 plen, u8 tos, u8 type, bool del);
void mmbt_addr(struct kunit *test, struct net_device *dev, bool v6, const u8 *addr, u8 plen,
	       bool del);
void mmbt_rtnl_put(struct nlmsghdr *nlh, u16 type, const void *data, unsigned int len);
void mmbt_neigh(struct kunit *test, struct net_device *dev, bool v6, const u8 *addr,
		const u8 *mac);
void mmbt_forwarding(struct net_device *dev, bool on, bool v6);

#endif /* _MMB_KUNIT_UTIL_H */
