/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: compatibility shims between the supported kernels (6.1 and later).
 *
 * The module is written against the newest API; every difference of an
 * older kernel is bridged here and nowhere else. Shims are selected by
 * feature probes run in Kbuild (MMB_COMPAT_* defines), never by version
 * numbers, so distribution backports are honoured.
 */
#ifndef _MMB_COMPAT_H
#define _MMB_COMPAT_H

/* 6.12 moved the unaligned accessors to <linux/unaligned.h>. */
#ifdef MMB_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.5 moved skb_gso_validate_network_len() and its kin to <net/gso.h>. */
#ifdef MMB_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

/* 6.5 added SLAB_NO_MERGE; before, a cache may share slabs with another. */
#include <linux/slab.h>
#ifndef SLAB_NO_MERGE
#define SLAB_NO_MERGE 0
#endif

/*
 * 6.2 added extack messages formatted into the ACK. Before, a message must
 * be static text: @msg, which says what @text says but names no field.
 * (NL_SET_ERR_MSG_ATTR() takes literals only: rule.c's messages are
 * static, but not literals here.)
 */
#include <linux/netlink.h>
static inline void mmb_nl_err_attr(struct netlink_ext_ack *extack, const struct nlattr *attr,
				   const char *msg, const char *text)
{
	if (!extack)
		return;
#ifdef NL_SET_ERR_MSG_ATTR_FMT
	if (text[0]) {
		NL_SET_ERR_MSG_ATTR_FMT(extack, attr, "%s", text);
		return;
	}
#endif
	/* What NL_SET_ERR_MSG_ATTR() does for a literal; @msg is static too. */
	extack->_msg = msg;
	extack->bad_attr = attr;
}

/*
 * 6.3 added BIG TCP for IPv4: a GSO TCP packet over 64 KiB has a total
 * length of 0, and iph_totlen() gives its real one. IPv6 had it before,
 * with a payload length of 0; ipv6_payload_len() came later.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#ifndef MMB_HAVE_IPH_TOTLEN
static inline unsigned int iph_totlen(const struct sk_buff *skb, const struct iphdr *iph)
{
	return ntohs(iph->tot_len);
}
#endif

#ifndef MMB_HAVE_IPV6_PAYLOAD_LEN
static inline unsigned int ipv6_payload_len(const struct sk_buff *skb,
					    const struct ipv6hdr *ip6)
{
	u32 len = ntohs(ip6->payload_len);

	return (len || !skb_is_gso(skb) || !skb_is_gso_tcp(skb)) ?
		len : skb->len - skb_network_offset(skb) - sizeof(struct ipv6hdr);
}
#endif

#endif /* _MMB_COMPAT_H */
