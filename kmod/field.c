// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the fields rules match and rewrite, where they live in the headers
 * and in the header image. Names, families and widths come from the uapi
 * table (mmb_fields.h); this file adds the layout.
 */
#include <net/tcp.h>

#include "pkt.h"
#include "tcpopt.h"
#include "../uapi/linux/mmb_fields.h"

#define META(o, l, m)	.hdr = MMB_HDR_META, .hoff = (o), .len = (l), .mask = (m)
#define L3(o, l, m)	.hdr = MMB_HDR_L3, .hoff = (o), .len = (l), .mask = (m)
#define L4(o, l, m)	.hdr = MMB_HDR_L4, .hoff = (o), .len = (l), .mask = (m)
#define PAYLOAD		.hdr = MMB_HDR_PAYLOAD
#define ADDR(o)		.hdr = MMB_HDR_L3, .hoff = (o), .len = 16
#define OPT(kind)	.hdr = MMB_HDR_TCPOPT, .hoff = (kind)

static struct mmb_field_info mmb_fields[__MMB_FIELD_MAX] __ro_after_init;

struct mmb_layout {
	u8 hdr, hoff, len;
	u32 mask;
};

static const struct mmb_layout mmb_layout[__MMB_FIELD_MAX] __initconst = {
	[MMB_FIELD_ALL]			= { .hdr = MMB_HDR_NONE },
	[MMB_FIELD_IN]			= { META(MMB_IMG_IFINDEX, 4, 0xffffffff) },
	[MMB_FIELD_NET_PROTO]		= { .hdr = MMB_HDR_NONE },
	[MMB_FIELD_IP_VER]		= { L3(0, 1, 0xf0) },
	[MMB_FIELD_IP_IHL]		= { L3(0, 1, 0x0f) },
	[MMB_FIELD_IP_DSCP]		= { L3(1, 1, 0xfc) },
	[MMB_FIELD_IP_ECN]		= { L3(1, 1, 0x03) },
	[MMB_FIELD_IP_LEN]		= { L3(2, 2, 0xffff) },
	[MMB_FIELD_IP_ID]		= { L3(4, 2, 0xffff) },
	[MMB_FIELD_IP_FLAGS]		= { L3(6, 1, 0xe0) },
	[MMB_FIELD_IP_RES]		= { L3(6, 1, 0x80) },
	[MMB_FIELD_IP_DF]		= { L3(6, 1, 0x40) },
	[MMB_FIELD_IP_MF]		= { L3(6, 1, 0x20) },
	[MMB_FIELD_IP_FRAG_OFFSET]	= { L3(6, 2, 0x1fff) },
	[MMB_FIELD_IP_TTL]		= { L3(8, 1, 0xff) },
	[MMB_FIELD_IP_PROTO]		= { L3(9, 1, 0xff) },
	[MMB_FIELD_IP_CHECKSUM]		= { L3(10, 2, 0xffff) },
	[MMB_FIELD_IP_SADDR]		= { L3(12, 4, 0xffffffff) },
	[MMB_FIELD_IP_DADDR]		= { L3(16, 4, 0xffffffff) },
	[MMB_FIELD_IP_PAYLOAD]		= { PAYLOAD },
	[MMB_FIELD_IP6_VER]		= { L3(0, 1, 0xf0) },
	[MMB_FIELD_IP6_TRAFFIC_CLASS]	= { L3(0, 2, 0x0ff0) },
	[MMB_FIELD_IP6_DSCP]		= { L3(0, 2, 0x0fc0) },
	[MMB_FIELD_IP6_ECN]		= { L3(0, 2, 0x0030) },
	[MMB_FIELD_IP6_FLOW_LABEL]	= { L3(1, 3, 0x0fffff) },
	[MMB_FIELD_IP6_LEN]		= { L3(4, 2, 0xffff) },
	[MMB_FIELD_IP6_NEXT]		= { L3(6, 1, 0xff) },
	[MMB_FIELD_IP6_HOP_LIMIT]	= { L3(7, 1, 0xff) },
	[MMB_FIELD_IP6_SADDR]		= { ADDR(8) },
	[MMB_FIELD_IP6_DADDR]		= { ADDR(24) },
	[MMB_FIELD_IP6_PAYLOAD]		= { PAYLOAD },
	[MMB_FIELD_ICMP_TYPE]		= { L4(0, 1, 0xff) },
	[MMB_FIELD_ICMP_CODE]		= { L4(1, 1, 0xff) },
	[MMB_FIELD_ICMP_CHECKSUM]	= { L4(2, 2, 0xffff) },
	[MMB_FIELD_ICMP_PAYLOAD]	= { PAYLOAD },
	[MMB_FIELD_ICMP6_TYPE]		= { L4(0, 1, 0xff) },
	[MMB_FIELD_ICMP6_CODE]		= { L4(1, 1, 0xff) },
	[MMB_FIELD_ICMP6_CHECKSUM]	= { L4(2, 2, 0xffff) },
	[MMB_FIELD_ICMP6_PAYLOAD]	= { PAYLOAD },
	[MMB_FIELD_UDP_SPORT]		= { L4(0, 2, 0xffff) },
	[MMB_FIELD_UDP_DPORT]		= { L4(2, 2, 0xffff) },
	[MMB_FIELD_UDP_LEN]		= { L4(4, 2, 0xffff) },
	[MMB_FIELD_UDP_CHECKSUM]	= { L4(6, 2, 0xffff) },
	[MMB_FIELD_UDP_PAYLOAD]		= { PAYLOAD },
	[MMB_FIELD_TCP_SPORT]		= { L4(0, 2, 0xffff) },
	[MMB_FIELD_TCP_DPORT]		= { L4(2, 2, 0xffff) },
	[MMB_FIELD_TCP_SEQ_NUM]		= { L4(4, 4, 0xffffffff) },
	[MMB_FIELD_TCP_ACK_NUM]		= { L4(8, 4, 0xffffffff) },
	[MMB_FIELD_TCP_OFFSET]		= { L4(12, 1, 0xf0) },
	[MMB_FIELD_TCP_RESERVED]	= { L4(12, 1, 0x0f) },
	[MMB_FIELD_TCP_FLAGS]		= { L4(13, 1, 0xff) },
	[MMB_FIELD_TCP_CWR]		= { L4(13, 1, 0x80) },
	[MMB_FIELD_TCP_ECE]		= { L4(13, 1, 0x40) },
	[MMB_FIELD_TCP_URG]		= { L4(13, 1, 0x20) },
	[MMB_FIELD_TCP_ACK]		= { L4(13, 1, 0x10) },
	[MMB_FIELD_TCP_PUSH]		= { L4(13, 1, 0x08) },
	[MMB_FIELD_TCP_RST]		= { L4(13, 1, 0x04) },
	[MMB_FIELD_TCP_SYN]		= { L4(13, 1, 0x02) },
	[MMB_FIELD_TCP_FIN]		= { L4(13, 1, 0x01) },
	[MMB_FIELD_TCP_WIN]		= { L4(14, 2, 0xffff) },
	[MMB_FIELD_TCP_CHECKSUM]	= { L4(16, 2, 0xffff) },
	[MMB_FIELD_TCP_URG_PTR]		= { L4(18, 2, 0xffff) },
	[MMB_FIELD_TCP_PAYLOAD]		= { PAYLOAD },
	[MMB_FIELD_TCP_OPT_MSS]		= { OPT(TCPOPT_MSS) },
	[MMB_FIELD_TCP_OPT_WSCALE]	= { OPT(TCPOPT_WINDOW) },
	[MMB_FIELD_TCP_OPT_SACKP]	= { OPT(TCPOPT_SACK_PERM) },
	[MMB_FIELD_TCP_OPT_SACK]	= { OPT(TCPOPT_SACK) },
	[MMB_FIELD_TCP_OPT_TIMESTAMP]	= { OPT(TCPOPT_TIMESTAMP) },
	[MMB_FIELD_TCP_OPT_FAST_OPEN]	= { OPT(TCPOPT_FASTOPEN) },
	[MMB_FIELD_TCP_OPT_MPTCP]	= { OPT(TCPOPT_MPTCP) },
	[MMB_FIELD_TCP_OPT]		= { OPT(0) },
	[MMB_FIELD_OUT]			= { META(MMB_IMG_IFINDEX, 4, 0xffffffff) },
	[MMB_FIELD_LEAVING]		= { META(MMB_IMG_FLAGS, 1, MMB_KF_OUT) },
	/* Not in the image: matched after the probe (match.c). */
	[MMB_FIELD_META_MARK]		= { .hdr = MMB_HDR_MARK },
	[MMB_FIELD_L4_PROTO]		= { META(MMB_IMG_L4PROTO, 1, 0xff) },
};

/* Image offset of a header field's first byte. */
static u8 __init mmb_img_offset(const struct mmb_field_info *f)
{
	switch (f->hdr) {
	case MMB_HDR_META:
		return f->hoff;
	case MMB_HDR_L3:
		if (f->family == 6)
			return MMB_IMG_IP6 + f->hoff;
		/* As parse.c copies it: the addresses apart. */
		if (f->hoff < offsetof(struct iphdr, saddr))
			return MMB_IMG_IP4 + f->hoff;
		return MMB_IMG_IP4_SADDR + f->hoff - offsetof(struct iphdr, saddr);
	case MMB_HDR_L4:
		return f->hoff < 4 ? MMB_IMG_L4_LO + f->hoff :
				     MMB_IMG_L4_HI + f->hoff - 4;
	}
	return 0;
}

void __init mmb_fields_init(void)
{
	unsigned int i;

	for (i = 0; i < __MMB_FIELD_MAX; i++) {
		struct mmb_field_info *f = &mmb_fields[i];

		f->name = mmb_field_names[i].name;
		f->family = mmb_field_names[i].family;
		f->l4 = mmb_field_names[i].l4;
		f->bits = mmb_field_names[i].bits;
		f->flags = mmb_field_names[i].flags;
		f->hdr = mmb_layout[i].hdr;
		f->hoff = mmb_layout[i].hoff;
		f->len = mmb_layout[i].len;
		f->mask = mmb_layout[i].mask;
		f->shift = f->mask ? __ffs(f->mask) : 0;
		f->img = mmb_img_offset(f);
	}
	mmb_tcpopt_init();
}

const struct mmb_field_info *mmb_field(unsigned int id)
{
	return id < __MMB_FIELD_MAX ? &mmb_fields[id] : NULL;
}
