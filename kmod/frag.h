/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: the fragments of a namespace's datagrams (frag.c). Only a first
 * fragment carries the L4 header that finds a datagram's connection; the
 * later ones share its (source, destination, protocol, ID), and a small map
 * from those to the connection's tuple, filled by the first fragment, gives
 * them its connection, verdict and rewrites.
 *
 *   mmb_frags ─ e[slot]: seq, expires, key (src, dst, proto, id) ─ tuple
 *
 * A fixed table per namespace, allocated with it (frag_entries, a module
 * parameter): the datapath never allocates. An entry names its connection
 * by tuple, looked up again in the connection table, never by a pointer.
 * Entries expire MMB_FRAG_TIMEOUT after their first fragment (as the
 * stack's ipfrag_time) and are replaced when the two slots a key may take
 * are in use. Writers take an entry by making its sequence count odd (a
 * writer that finds it odd gives up: the other's datagram wins); readers
 * retry nothing, an entry that changed under them is a miss.
 */
#ifndef _MMB_FRAG_H
#define _MMB_FRAG_H

#include <linux/siphash.h>

#include "conn.h"

#define MMB_FRAG_TIMEOUT	(30 * HZ)

/*
 * What identifies a datagram's fragments (RFC 791, RFC 8200), and the
 * device they come in on: a fragment that comes in elsewhere than its
 * datagram's first is not taken for one of it.
 */
struct mmb_frag_key {
	union {
		__be32 ip;
		struct in6_addr in6;
	} src, dst;
	u32 id;			/* IPv4's 16 bits, IPv6's 32 */
	u8 family;
	u8 proto;		/* IPv4's; 0 for IPv6, whose key has none */
	u16 pad;
	u32 ifindex;		/* as the packet image has it */
};

/* What an entry says of a datagram. */
enum {
	MMB_FRAG_UNTRACKED,	/* its first fragment had no connection */
	MMB_FRAG_CONN,		/* it belongs to the connection of @t */
	MMB_FRAG_CONFLICT,	/* two first fragments said different things */
};

struct mmb_frag_entry {
	u32 seq;		/* odd while written */
	u32 expires;		/* mmb_conn_now() at which it ends */
	u8 what;		/* MMB_FRAG_* */
	struct mmb_frag_key key;
	struct mmb_tuple t;	/* its first fragment's, as it came in */
};

struct mmb_frags {
	struct mmb_frag_entry *e;
	unsigned int mask;	/* entries - 1, a power of two */
	siphash_key_t key;
};

extern unsigned int mmb_frag_entries;

int mmb_frags_init(struct mmb_frags *mf);
void mmb_frags_exit(struct mmb_frags *mf);

void mmb_frag_note(struct mmb_frags *mf, const struct mmb_pkt *pkt,
		   const struct mmb_verdict *v);
int mmb_frag_lookup(struct mmb_frags *mf, struct mmb_conns *mc, const struct mmb_pkt *pkt,
		    struct mmb_verdict *v);

#endif /* _MMB_FRAG_H */
