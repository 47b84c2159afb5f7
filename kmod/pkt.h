/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: a parsed packet, its canonical header image (parse.c), and the
 * fields rules name in it (field.c).
 */
#ifndef _MMB_PKT_H
#define _MMB_PKT_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "compat.h"
#include "../uapi/linux/mmb.h"

/*
 * The canonical header image of a packet: fixed offsets whatever the IP
 * options, IPv6 extension headers and TCP options. Rule masks and keys
 * refer to it; it is compared in 16-byte chunks of two u64 words.
 *
 *   0  family (4 or 6)      1  L4 protocol       2  MMB_KF_* flags
 *   3  TCP window scale (its option's value, if of its size)
 *   4  L4 header bytes 0-3 (ports; ICMP type, code, checksum)
 *   8  IPv4 source address    12  IPv4 destination address
 *  16  the id of the name (mmb_dev_ifid(), big endian) of the arriving
 *      device, or, MMB_KF_OUT, of the leaving one (mmb_img_dev())
 *  20  TCP options present: bit (field - MMB_FIELD_TCP_OPT_MSS) for each
 *      named one, the last bit for any option at all
 *  21  MMB_OPTV_* (which option values of 3 and 22 are there)
 *  22  TCP MSS (its option's value, if of its size)
 *  24  IPv4 header bytes 0-11 (its addresses are at 8)
 *  24  IPv6 header bytes 0-39 (addresses in chunks 2 and 3)
 *  64  L4 header bytes 4-19
 *
 * TCP options in the image follow the slow path's reading of them
 * (tcpopt.c): the first option of a kind counts, a malformed one ends the
 * list. Then "tcp-opt-mss 1460" or "! tcp-opt-sackp" is a key in
 * a table like any other field.
 *
 * Chunk 0 holds all of an IPv4 five-tuple: a rule on addresses, protocol
 * and ports, the most common kind, has a key of one chunk, and its table
 * entry is 48 bytes, not 64.
 */
#define MMB_KEY_CHUNKS		5
#define MMB_IMG_FAMILY		0
#define MMB_IMG_L4PROTO		1
#define MMB_IMG_FLAGS		2
#define MMB_IMG_WSCALE		3
#define MMB_IMG_L4_LO		4
#define MMB_IMG_IP4_SADDR	8
#define MMB_IMG_IP4_DADDR	12
#define MMB_IMG_IFINDEX		16
#define MMB_IMG_OPTS		20
#define MMB_IMG_OPTV		21
#define MMB_IMG_MSS		22
#define MMB_IMG_IP4		24	/* bytes 0-11 */
#define MMB_IMG_IP6		24
#define MMB_IMG_L4_HI		64

#define MMB_KF_L4		0x01	/* the whole fixed L4 header is there */
#define MMB_KF_FRAG		0x02	/* an IP fragment */
#define MMB_KF_LATER		0x04	/* a fragment other than the first */
#define MMB_KF_OUT		0x08	/* leaving: judged by the egress hook */

#define MMB_OPTV_MSS		0x01	/* the MSS option has its 2 bytes */
#define MMB_OPTV_WSCALE		0x02	/* the window scale its byte */

struct mmb_chunk {
	u64 w[2];
};

#define MMB_KEY_WORDS		(MMB_KEY_CHUNKS * 2)

struct mmb_key {
	union {
		struct mmb_chunk c[MMB_KEY_CHUNKS];
		u64 w[MMB_KEY_WORDS];
		u8 b[MMB_KEY_CHUNKS * 16];
	};
};

/*
 * A parsed packet; offsets count from the network header (skb->data), in
 * 32 bits: a BIG TCP packet is longer than 64 KiB.
 */
struct mmb_pkt {
	struct mmb_key key;
	u32 l4off;		/* L4 header */
	u32 l7off;		/* L4 payload (after TCP options, UDP, ICMP) */
	u32 end;		/* end of the IP packet */
	u32 fragid;		/* a fragment's IPv4 or IPv6 ID (MMB_KF_FRAG) */
};

int mmb_parse(struct sk_buff *skb, struct mmb_pkt *pkt);

/*
 * The device a packet is judged on, and which way, into the image: the
 * one place that says how "in" and "out" values look there.
 */
static inline void mmb_img_dev(struct mmb_pkt *pkt, u32 ifid, bool out)
{
	put_unaligned_be32(ifid, &pkt->key.b[MMB_IMG_IFINDEX]);
	if (out)
		pkt->key.b[MMB_IMG_FLAGS] |= MMB_KF_OUT;
}

/* Where a field lives: in the header (for rewrites) and in the image. */
/* MMB_HDR_TCPOPT: an option's data; hoff is its kind. MMB_HDR_MARK: skb->mark. */
enum {
	MMB_HDR_NONE, MMB_HDR_META, MMB_HDR_L3, MMB_HDR_L4, MMB_HDR_PAYLOAD,
	MMB_HDR_TCPOPT, MMB_HDR_MARK,
};

struct mmb_field_info {
	const char *name;
	u8 family;		/* 0, 4 or 6 */
	u8 l4;			/* 0 or the IP protocol of its header */
	u8 bits;		/* 0: byte string */
	u8 flags;		/* MMB_FIELD_F_* */
	u8 hdr;			/* MMB_HDR_* */
	u8 hoff;		/* byte offset in that header */
	u8 len;			/* bytes spanned: 1, 2, 3, 4 or 16 */
	u8 shift;		/* value = (bytes & mask) >> shift */
	u32 mask;		/* bits of the bytes (len <= 4) */
	u8 img;			/* image offset of the first byte */
};

/* The mask of byte @i of an address whose first @plen bits count. */
static inline u8 mmb_prefix_mask(unsigned int plen, unsigned int i)
{
	unsigned int bits = clamp_t(int, plen - i * 8, 0, 8);

	return bits ? 0xff << (8 - bits) : 0;
}

void __init mmb_fields_init(void);
const struct mmb_field_info *mmb_field(unsigned int id);

/* A big-endian number of @len (1 to 4) bytes of the image. */
static __always_inline u32 mmb_img_read(const struct mmb_key *key, unsigned int off,
					unsigned int len)
{
	const u8 *p = &key->b[off];

	switch (len) {
	case 4:
		return get_unaligned_be32(p);
	case 3:
		return (u32)get_unaligned_be16(p) << 8 | p[2];
	case 2:
		return get_unaligned_be16(p);
	case 1:
		return *p;
	}
	return 0;
}

#endif /* _MMB_PKT_H */
