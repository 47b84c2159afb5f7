/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mmb: the fields of the rule language, shared by the kernel and mmbctl.
 *
 *	name	the word mmbctl takes
 *	family	0 any, 4 IPv4, 6 IPv6: a rule using the field is for that family
 *	l4	0 none, else the IP protocol whose header holds the field
 *	bits	width of the value; 0 for byte strings (payloads)
 *	flags	MMB_FIELD_F_* (mmb.h)
 */
#ifndef _UAPI_LINUX_MMB_FIELDS_H
#define _UAPI_LINUX_MMB_FIELDS_H

#include "mmb.h"

struct mmb_field_name {
	const char *name;
	unsigned char family;
	unsigned char l4;
	unsigned char bits;
	unsigned char flags;
};

static const struct mmb_field_name mmb_field_names[__MMB_FIELD_MAX] = {
	[MMB_FIELD_ALL]             = { "all", 0, 0, 0 },
	[MMB_FIELD_IN]              = { "in", 0, 0, 32 },
	[MMB_FIELD_NET_PROTO]       = { "net-proto", 0, 0, 16 },
	[MMB_FIELD_IP_VER]          = { "ip-ver", 4, 0, 4, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_IHL]          = { "ip-ihl", 4, 0, 4, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_DSCP]         = { "ip-dscp", 4, 0, 6 },
	[MMB_FIELD_IP_ECN]          = { "ip-ecn", 4, 0, 2 },
	[MMB_FIELD_IP_LEN]          = { "ip-len", 4, 0, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_ID]           = { "ip-id", 4, 0, 16 },
	[MMB_FIELD_IP_FLAGS]        = { "ip-flags", 4, 0, 3, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_RES]          = { "ip-res", 4, 0, 1 },
	[MMB_FIELD_IP_DF]           = { "ip-df", 4, 0, 1 },
	[MMB_FIELD_IP_MF]           = { "ip-mf", 4, 0, 1, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_FRAG_OFFSET]  = { "ip-frag-offset", 4, 0, 13, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_TTL]          = { "ip-ttl", 4, 0, 8 },
	[MMB_FIELD_IP_PROTO]        = { "ip-proto", 4, 0, 8, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_CHECKSUM]     = { "ip-checksum", 4, 0, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP_SADDR]        = { "ip-saddr", 4, 0, 32 },
	[MMB_FIELD_IP_DADDR]        = { "ip-daddr", 4, 0, 32 },
	[MMB_FIELD_IP_PAYLOAD]      = { "ip-payload", 4, 0, 0 },
	[MMB_FIELD_IP6_VER]         = { "ip6-ver", 6, 0, 4, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP6_TRAFFIC_CLASS] = { "ip6-traffic-class", 6, 0, 8 },
	[MMB_FIELD_IP6_DSCP]        = { "ip6-dscp", 6, 0, 6 },
	[MMB_FIELD_IP6_ECN]         = { "ip6-ecn", 6, 0, 2 },
	[MMB_FIELD_IP6_FLOW_LABEL]  = { "ip6-flow-label", 6, 0, 20 },
	[MMB_FIELD_IP6_LEN]         = { "ip6-len", 6, 0, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP6_NEXT]        = { "ip6-next", 6, 0, 8, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_IP6_HOP_LIMIT]   = { "ip6-hop-limit", 6, 0, 8 },
	[MMB_FIELD_IP6_SADDR]       = { "ip6-saddr", 6, 0, 128 },
	[MMB_FIELD_IP6_DADDR]       = { "ip6-daddr", 6, 0, 128 },
	[MMB_FIELD_IP6_PAYLOAD]     = { "ip6-payload", 6, 0, 0 },
	[MMB_FIELD_ICMP_TYPE]       = { "icmp-type", 4, 1, 8 },
	[MMB_FIELD_ICMP_CODE]       = { "icmp-code", 4, 1, 8 },
	[MMB_FIELD_ICMP_CHECKSUM]   = { "icmp-checksum", 4, 1, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_ICMP_PAYLOAD]    = { "icmp-payload", 4, 1, 0 },
	[MMB_FIELD_ICMP6_TYPE]      = { "icmp6-type", 6, 58, 8 },
	[MMB_FIELD_ICMP6_CODE]      = { "icmp6-code", 6, 58, 8 },
	[MMB_FIELD_ICMP6_CHECKSUM]  = { "icmp6-checksum", 6, 58, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_ICMP6_PAYLOAD]   = { "icmp6-payload", 6, 58, 0 },
	[MMB_FIELD_UDP_SPORT]       = { "udp-sport", 0, 17, 16 },
	[MMB_FIELD_UDP_DPORT]       = { "udp-dport", 0, 17, 16 },
	[MMB_FIELD_UDP_LEN]         = { "udp-len", 0, 17, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_UDP_CHECKSUM]    = { "udp-checksum", 0, 17, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_UDP_PAYLOAD]     = { "udp-payload", 0, 17, 0 },
	[MMB_FIELD_TCP_SPORT]       = { "tcp-sport", 0, 6, 16 },
	[MMB_FIELD_TCP_DPORT]       = { "tcp-dport", 0, 6, 16 },
	[MMB_FIELD_TCP_SEQ_NUM]     = { "tcp-seq-num", 0, 6, 32 },
	[MMB_FIELD_TCP_ACK_NUM]     = { "tcp-ack-num", 0, 6, 32 },
	[MMB_FIELD_TCP_OFFSET]      = { "tcp-offset", 0, 6, 4, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_TCP_RESERVED]    = { "tcp-reserved", 0, 6, 4 },
	[MMB_FIELD_TCP_FLAGS]       = { "tcp-flags", 0, 6, 8 },
	[MMB_FIELD_TCP_CWR]         = { "tcp-cwr", 0, 6, 1 },
	[MMB_FIELD_TCP_ECE]         = { "tcp-ece", 0, 6, 1 },
	[MMB_FIELD_TCP_URG]         = { "tcp-urg", 0, 6, 1 },
	[MMB_FIELD_TCP_ACK]         = { "tcp-ack", 0, 6, 1 },
	[MMB_FIELD_TCP_PUSH]        = { "tcp-push", 0, 6, 1 },
	[MMB_FIELD_TCP_RST]         = { "tcp-rst", 0, 6, 1 },
	[MMB_FIELD_TCP_SYN]         = { "tcp-syn", 0, 6, 1 },
	[MMB_FIELD_TCP_FIN]         = { "tcp-fin", 0, 6, 1 },
	[MMB_FIELD_TCP_WIN]         = { "tcp-win", 0, 6, 16 },
	[MMB_FIELD_TCP_CHECKSUM]    = { "tcp-checksum", 0, 6, 16, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_TCP_URG_PTR]     = { "tcp-urg-ptr", 0, 6, 16 },
	[MMB_FIELD_TCP_PAYLOAD]     = { "tcp-payload", 0, 6, 0 },
	[MMB_FIELD_TCP_OPT_MSS]     = { "tcp-opt-mss", 0, 6, 16 },
	[MMB_FIELD_TCP_OPT_WSCALE]  = { "tcp-opt-wscale", 0, 6, 8 },
	[MMB_FIELD_TCP_OPT_SACKP]   = { "tcp-opt-sackp", 0, 6, 0 },
	[MMB_FIELD_TCP_OPT_SACK]    = { "tcp-opt-sack", 0, 6, 0 },
	[MMB_FIELD_TCP_OPT_TIMESTAMP] = { "tcp-opt-timestamp", 0, 6, 0 },
	[MMB_FIELD_TCP_OPT_FAST_OPEN] = { "tcp-opt-fast-open", 0, 6, 0 },
	[MMB_FIELD_TCP_OPT_MPTCP]   = { "tcp-opt-mptcp", 0, 6, 0 },
	[MMB_FIELD_TCP_OPT]         = { "tcp-opt", 0, 6, 0 },
	[MMB_FIELD_OUT]             = { "out", 0, 0, 32 },
	[MMB_FIELD_LEAVING]         = { "leaving", 0, 0, 1, MMB_FIELD_F_NO_MOD },
	[MMB_FIELD_META_MARK]       = { "meta-mark", 0, 0, 32 },
	[MMB_FIELD_L4_PROTO]        = { "l4-proto", 0, 0, 8, MMB_FIELD_F_NO_MOD },
};

#endif /* _UAPI_LINUX_MMB_FIELDS_H */
