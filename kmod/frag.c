// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the fragment map (frag.h draws it). While a namespace has stateful
 * rules, every first fragment that passes notes its datagram: the tuple
 * of its connection, or that it has none. A later fragment then gets what
 * its datagram got: the connection, its rules' verdict and its rewrites
 * (NAT's addresses, the shifted IPv4 ID), or, for a datagram of no
 * connection, the rules alone as before. One whose first fragment was not
 * seen (it came later, was dropped, or its entry was replaced) cannot be
 * told apart from a fragment of a connection that rewrites: it is dropped
 * and counted, never passed on half translated. nf_conntrack reassembles
 * datagrams before it looks at them (nf_defrag); mmb, before the stack's
 * reassembly, maps the fragments instead.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/random.h>

#include "frag.h"

#define MMB_FRAG_MIN		64
#define MMB_FRAG_MAX		BIT(20)

unsigned int mmb_frag_entries = 1024;
module_param_named(frag_entries, mmb_frag_entries, uint, 0444);
MODULE_PARM_DESC(frag_entries,
		 "Fragmented datagrams each namespace maps at once (a power of two, 64 to 2^20)");

/* The datagram @pkt, a fragment, is one of. */
static void mmb_frag_key(const struct mmb_pkt *pkt, struct mmb_frag_key *k)
{
	const u8 *b = pkt->key.b;

	memset(k, 0, sizeof(*k));
	k->family = b[MMB_IMG_FAMILY];
	k->id = pkt->fragid;
	memcpy(&k->ifindex, b + MMB_IMG_IFINDEX, 4);
	if (k->family == 4) {
		k->proto = b[MMB_IMG_L4PROTO];
		memcpy(&k->src.ip, b + MMB_IMG_IP4_SADDR, 4);
		memcpy(&k->dst.ip, b + MMB_IMG_IP4_DADDR, 4);
	} else {
		memcpy(&k->src.in6, b + MMB_IMG_IP6 + 8, 16);
		memcpy(&k->dst.in6, b + MMB_IMG_IP6 + 24, 16);
	}
}

/* The first of the two slots @k may take; the other is its neighbour. */
static unsigned int mmb_frag_slot(const struct mmb_frags *mf, const struct mmb_frag_key *k)
{
	return siphash(k, sizeof(*k), &mf->key) & mf->mask;
}

/*
 * Is @e a datagram's at @now: it ends within MMB_FRAG_TIMEOUT (and the
 * jiffies by which another CPU's clock, read a moment later, may be
 * ahead)? Not "ends after now" alone: an entry left alone 2^31 jiffies,
 * 25 days at 1000 Hz, would seem to end in the future again.
 */
static bool mmb_frag_live(const struct mmb_frag_entry *e, u32 now)
{
	return READ_ONCE(e->key.family) &&
	       READ_ONCE(e->expires) - now - 1 < MMB_FRAG_TIMEOUT + 2;
}

/* Is @e the live entry of the datagram of @k? */
static bool mmb_frag_mine(const struct mmb_frag_entry *e, const struct mmb_frag_key *k,
			  u32 now)
{
	return !memcmp(&e->key, k, sizeof(*k)) && mmb_frag_live(e, now);
}

/*
 * What entry @e says of the datagram of @k (MMB_FRAG_*, with its tuple in
 * @t), or -ENOENT if it is another's, has expired, or changed meanwhile.
 */
static int mmb_frag_read(const struct mmb_frag_entry *e, const struct mmb_frag_key *k,
			 u32 now, struct mmb_tuple *t)
{
	/* Pairs with the writer's release: what it wrote is seen whole. */
	u32 seq = smp_load_acquire(&e->seq);
	int what;

	if ((seq & 1) || !mmb_frag_live(e, now) || memcmp(&e->key, k, sizeof(*k)))
		return -ENOENT;
	what = READ_ONCE(e->what);
	*t = e->t;
	smp_rmb();		/* the copy, before the count is read again */
	return READ_ONCE(e->seq) == seq ? what : -ENOENT;
}

/*
 * After the verdict on a first fragment that passes: note what its
 * datagram's later fragments are to get. An ICMP error's is not noted
 * (its later fragments are dropped): its rewrites are the quote's. A
 * first fragment of a datagram noted already (a retransmission) that says
 * something else, a forged one above all (another connection's tuple, or
 * none), leaves the datagram in conflict: its later fragments are dropped,
 * never handed to the wrong connection or passed on untranslated (as the
 * stack drops a datagram whose fragments overlap and differ).
 */
void mmb_frag_note(struct mmb_frags *mf, const struct mmb_pkt *pkt,
		   const struct mmb_verdict *v)
{
	const struct mmb_tuple *t = NULL;
	struct mmb_frag_entry *e, *a, *b;
	struct mmb_frag_key k;
	u32 now = mmb_conn_now(), seq;
	unsigned int h, tries;
	u8 what;

	if (v->related)
		return;
	mmb_frag_key(pkt, &k);
	h = mmb_frag_slot(mf, &k);
	a = &mf->e[h];
	b = &mf->e[h ^ 1];
	what = MMB_FRAG_UNTRACKED;
	if (v->conn) {
		what = MMB_FRAG_CONN;
		t = v->dir == MMB_DIR_ORIG ? &v->conn->orig.t : &v->conn->reply.t;
	}
	/*
	 * The datagram's own entry (a retransmission), in either slot; else
	 * a free one, or the older. The slots are looked at again while
	 * another CPU writes the one chosen (a few stores, BH off), and
	 * compared once this one holds it: a first fragment that differs from
	 * its datagram's entry, written a moment before, finds it and leaves
	 * it in conflict. Still written after a while: not mapped.
	 */
	for (tries = 0; ; tries++) {
		if (mmb_frag_mine(a, &k, now))
			e = a;
		else if (mmb_frag_mine(b, &k, now))
			e = b;
		else if (!mmb_frag_live(a, now))
			e = a;
		else if (!mmb_frag_live(b, now))
			e = b;
		else
			e = (s32)(READ_ONCE(a->expires) - READ_ONCE(b->expires)) <= 0 ? a : b;
		seq = READ_ONCE(e->seq);
		if (!(seq & 1) && cmpxchg(&e->seq, seq, seq + 1) == seq)
			break;
		if (tries == 15)
			return;
		cpu_relax();
	}
	if (mmb_frag_mine(e, &k, now)) {
		/* Seen before: the same again, or a conflict for good. */
		if (e->what != what || (t && !mmb_tuple_equal(&e->t, t)))
			WRITE_ONCE(e->what, MMB_FRAG_CONFLICT);
		/* Pairs with the readers' acquire, as below. */
		smp_store_release(&e->seq, seq + 2);
		return;
	}
	e->key = k;
	e->expires = now + MMB_FRAG_TIMEOUT;
	e->what = what;
	if (t)
		e->t = *t;
	/* Pairs with the readers' acquire: the entry, then its count. */
	smp_store_release(&e->seq, seq + 2);
}

/*
 * A later fragment: its datagram's connection in @v, alive, as its first
 * fragment noted it; 0 and @v as it was for a datagram of no connection.
 * -ENOENT if its first fragment was not noted or its connection ended:
 * it is to be dropped, and so is one of a datagram in conflict.
 */
int mmb_frag_lookup(struct mmb_frags *mf, struct mmb_conns *mc, const struct mmb_pkt *pkt,
		    struct mmb_verdict *v)
{
	struct mmb_tuple t __uninitialized;
	u32 now = mmb_conn_now();
	struct mmb_frag_key k;
	unsigned int h, i;

	mmb_frag_key(pkt, &k);
	h = mmb_frag_slot(mf, &k);
	for (i = 0; i < 2; i++) {
		switch (mmb_frag_read(&mf->e[h ^ i], &k, now, &t)) {
		case MMB_FRAG_UNTRACKED:
			return 0;
		case MMB_FRAG_CONN:
			mmb_conn_lookup_tuple(mc, &t, v);
			return v->conn ? 0 : -ENOENT;
		case MMB_FRAG_CONFLICT:
			return -ENOENT;
		}
	}
	return -ENOENT;
}

int mmb_frags_init(struct mmb_frags *mf)
{
	unsigned int n = clamp_t(unsigned int, mmb_frag_entries, MMB_FRAG_MIN, MMB_FRAG_MAX);

	n = roundup_pow_of_two(n);
	mf->e = kvcalloc(n, sizeof(*mf->e), GFP_KERNEL_ACCOUNT);
	if (!mf->e)
		return -ENOMEM;
	mf->mask = n - 1;
	get_random_bytes(&mf->key, sizeof(mf->key));
	return 0;
}

/* Once no device reaches the map (and a grace period has passed). */
void mmb_frags_exit(struct mmb_frags *mf)
{
	kvfree(mf->e);
}
