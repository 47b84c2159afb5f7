// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the life of a connection: its state from the packets seen each way,
 * and the timeout of each state. TCP follows the flags: SYN, SYN-ACK and
 * ACK open, a FIN each way and the last ACK close, RST ends. A SYN in
 * TIME_WAIT or CLOSE starts a new incarnation. Each direction's sequence
 * window is kept too, as nf_conntrack keeps it: a RST outside it, or a
 * segment with a wrong checksum, changes nothing.
 *
 *   SYN_SENT -SYN-ACK(reply)-> SYN_RECV -ACK-> ESTABLISHED -FIN(d)-> FIN_WAIT
 *      | SYN(reply)                 ^                                 |     |
 *      v                            |                         ACK(!d) |     | FIN(!d)
 *   SYN_SENT2 -------SYN-ACK--------+                                 v     |
 *                                                            CLOSE_WAIT     |
 *                                                                 |         |
 *   RST, from any state: CLOSE                            FIN(!d) +-> LAST_ACK
 *   SYN(orig) in TIME_WAIT or CLOSE: SYN_SENT                              | ACK(d)
 *                                                                          v
 *                                                                      TIME_WAIT
 *
 * UDP is UNREPLIED until a packet goes the other way, then REPLIED; an
 * ICMP echo has one state. With tcp-loose on (the default, as
 * nf_conntrack's nf_conntrack_tcp_loose), a TCP connection may start
 * mid-stream: with a SYN-ACK (SYN_RECV), an ACK (ESTABLISHED) or a FIN
 * (FIN_WAIT); off, only with a SYN.
 */
#include <linux/processor.h>	/* cpu_relax(): 6.12's bit_spinlock.h misses it */
#include <linux/bit_spinlock.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "conn.h"
#include "nat.h"
#include "test.h"

#define MMB_TCP_UNACK_DEFAULT	300	/* seconds, as nf_conntrack's */
#define MMB_TCP_WIN_DEFAULT	65535	/* a window not seen yet */
#define MMB_TCP_ACK_WIN		66000U	/* nf_conntrack's MAXACKWINDOW() at least */

/* Seconds, as nf_conntrack's defaults. */
static const u32 mmb_conn_timeout_secs[__MMB_CONN_STATE_MAX] = {
	[MMB_CONN_TCP_SYN_SENT]		= 120,
	[MMB_CONN_TCP_SYN_RECV]		= 60,
	[MMB_CONN_TCP_ESTABLISHED]	= 5 * 24 * 3600,
	[MMB_CONN_TCP_FIN_WAIT]		= 120,
	[MMB_CONN_TCP_CLOSE_WAIT]	= 60,
	[MMB_CONN_TCP_LAST_ACK]		= 30,
	[MMB_CONN_TCP_TIME_WAIT]	= 120,
	[MMB_CONN_TCP_CLOSE]		= 10,
	[MMB_CONN_TCP_SYN_SENT2]	= 120,
	[MMB_CONN_UDP_UNREPLIED]	= 30,
	[MMB_CONN_UDP_REPLIED]		= 120,
	[MMB_CONN_ICMP]			= 30,
};

void mmb_conn_timeouts_init(struct mmb_conns *mc)
{
	unsigned int i;

	for (i = 0; i < __MMB_CONN_STATE_MAX; i++)
		mc->timeouts[i] = mmb_conn_timeout_secs[i] * HZ;
	mc->tcp_unack = MMB_TCP_UNACK_DEFAULT * HZ;
}

enum {
	MMB_TCP_SYN,
	MMB_TCP_SYNACK,
	MMB_TCP_FIN,
	MMB_TCP_ACK,
	MMB_TCP_RST,
	MMB_TCP_NONE,		/* no flag that moves a state, or a bad mix */
};

static u8 mmb_tcp_class(u8 flags)
{
	if ((flags & TCPHDR_SYN) && (flags & (TCPHDR_FIN | TCPHDR_RST)))
		return MMB_TCP_NONE;
	if (flags & TCPHDR_RST)
		return MMB_TCP_RST;
	if (flags & TCPHDR_SYN)
		return flags & TCPHDR_ACK ? MMB_TCP_SYNACK : MMB_TCP_SYN;
	if (flags & TCPHDR_FIN)
		return MMB_TCP_FIN;
	return flags & TCPHDR_ACK ? MMB_TCP_ACK : MMB_TCP_NONE;
}

static u8 mmb_pkt_tcp_flags(const struct mmb_pkt *pkt)
{
	/* Byte 13 of the TCP header; bytes 4-19 are at MMB_IMG_L4_HI. */
	return pkt->key.b[MMB_IMG_L4_HI + 9];
}

/* An ACK from @dir: the end of a handshake or of a FIN's wait. */
static u8 mmb_tcp_ack(u8 state, u8 fin, u8 dir)
{
	u8 last = fin & MMB_FIN_LAST ? MMB_DIR_REPLY : MMB_DIR_ORIG;

	if (state == MMB_CONN_TCP_SYN_RECV)
		return MMB_CONN_TCP_ESTABLISHED;
	if (state == MMB_CONN_TCP_FIN_WAIT && !(fin & BIT(dir)))
		return MMB_CONN_TCP_CLOSE_WAIT;
	if (state == MMB_CONN_TCP_LAST_ACK && dir != last)
		return MMB_CONN_TCP_TIME_WAIT;
	return state;
}

/* A FIN from @dir. */
static u8 mmb_tcp_fin(u8 state, u8 *fin, u8 dir, u8 flags)
{
	if (*fin & BIT(dir))	/* again: what counts is its ACK */
		return flags & TCPHDR_ACK ? mmb_tcp_ack(state, *fin, dir) : state;
	switch (state) {
	case MMB_CONN_TCP_SYN_RECV:
	case MMB_CONN_TCP_ESTABLISHED:
		*fin |= BIT(dir);
		return MMB_CONN_TCP_FIN_WAIT;
	case MMB_CONN_TCP_FIN_WAIT:
	case MMB_CONN_TCP_CLOSE_WAIT:
		*fin |= BIT(dir) | (dir == MMB_DIR_REPLY ? MMB_FIN_LAST : 0);
		return MMB_CONN_TCP_LAST_ACK;
	}
	return state;
}

/* The state after a segment with @flags from @dir; *@fin follows. */
u8 mmb_tcp_step(u8 state, u8 *fin, u8 dir, u8 flags)
{
	switch (mmb_tcp_class(flags)) {
	case MMB_TCP_RST:
		return MMB_CONN_TCP_CLOSE;
	case MMB_TCP_SYN:
		if (dir == MMB_DIR_ORIG &&
		    (state == MMB_CONN_TCP_TIME_WAIT || state == MMB_CONN_TCP_CLOSE)) {
			*fin = 0;
			return MMB_CONN_TCP_SYN_SENT;
		}
		if (dir == MMB_DIR_REPLY && state == MMB_CONN_TCP_SYN_SENT)
			return MMB_CONN_TCP_SYN_SENT2;
		return state;
	case MMB_TCP_SYNACK:
		if ((state == MMB_CONN_TCP_SYN_SENT && dir == MMB_DIR_REPLY) ||
		    state == MMB_CONN_TCP_SYN_SENT2)
			return MMB_CONN_TCP_SYN_RECV;
		return state;
	case MMB_TCP_ACK:
		return mmb_tcp_ack(state, *fin, dir);
	case MMB_TCP_FIN:
		return mmb_tcp_fin(state, fin, dir, flags);
	}
	return state;
}

/*
 * The state a connection starts in with @pkt, its first packet (and its
 * FINs in *@fin); -1 if that packet cannot start one.
 */
int mmb_conn_first_state(const struct mmb_pkt *pkt, bool loose, u8 *fin)
{
	switch (pkt->key.b[MMB_IMG_L4PROTO]) {
	case IPPROTO_TCP:
		switch (mmb_tcp_class(mmb_pkt_tcp_flags(pkt))) {
		case MMB_TCP_SYN:
			return MMB_CONN_TCP_SYN_SENT;
		case MMB_TCP_SYNACK:
			return loose ? MMB_CONN_TCP_SYN_RECV : -1;
		case MMB_TCP_ACK:
			return loose ? MMB_CONN_TCP_ESTABLISHED : -1;
		case MMB_TCP_FIN:
			*fin = BIT(MMB_DIR_ORIG);
			return loose ? MMB_CONN_TCP_FIN_WAIT : -1;
		}
		return -1;
	case IPPROTO_UDP:
		return MMB_CONN_UDP_UNREPLIED;
	}
	return MMB_CONN_ICMP;
}

/*
 * May @c be ended to make room for a new one? Yes unless assured, or
 * closing (as nf_conntrack's early drop and tcp_can_early_drop()).
 */
bool mmb_conn_evictable(const struct mmb_conn *c)
{
	if (!test_bit(MMB_CONN_ASSURED, &c->status))
		return true;
	if (c->orig.t.proto != IPPROTO_TCP)
		return false;
	switch (READ_ONCE(c->state)) {
	case MMB_CONN_TCP_FIN_WAIT:
	case MMB_CONN_TCP_CLOSE_WAIT:
	case MMB_CONN_TCP_LAST_ACK:
	case MMB_CONN_TCP_TIME_WAIT:
	case MMB_CONN_TCP_CLOSE:
		return true;
	}
	return false;
}

/* Assured, for good: seen both ways and, TCP, established. */
static void mmb_conn_assure(struct mmb_conn *c, u8 state)
{
	if (test_bit(MMB_CONN_ASSURED, &c->status) ||
	    !test_bit(MMB_CONN_SEEN_REPLY, &c->status))
		return;
	if (c->orig.t.proto == IPPROTO_TCP &&
	    state != MMB_CONN_TCP_ESTABLISHED)
		return;
	set_bit(MMB_CONN_ASSURED, &c->status);
}

/* Count @skb (its GRO segments) in @dir. */
void mmb_conn_count(struct mmb_conn *c, u8 dir, const struct sk_buff *skb)
{
	atomic64_add(mmb_segs(skb), &c->packets[dir]);
	atomic64_add(skb->len, &c->bytes[dir]);
}

/* --- the TCP window ------------------------------------------------------- */

/* What a TCP segment may do to its connection. */
enum mmb_tcp_verdict {
	MMB_TCP_IGNORE,		/* nothing: not the connection's, as far as can be told */
	MMB_TCP_KEEP,		/* keep its state, its timeout tcp-unacked at most */
	MMB_TCP_KEEP_SHORT,	/* keep its state, its timeout close's at most */
	MMB_TCP_REFRESH,	/* keep its state, refresh its timeout */
	MMB_TCP_MOVE,		/* move its state on, refresh its timeout */
};

/*
 * A segment as the window sees it, in the sequence numbers the two ends
 * chose themselves: its own as its sender wrote them, its acknowledgment
 * moved back by the offset mmb adds to the other direction's (nat.c).
 */
struct mmb_tcp_seg {
	u32 seq, end, ack, win;
	u8 flags;
	u8 wscale;		/* its window scale option, if a SYN carries one */
	bool has_wscale;
};

static u32 mmb_conn_seq_off(const struct mmb_conn *c, u8 dir)
{
	return test_bit(MMB_CONN_EXT, &c->status) ? mmb_conn_ext(c)->seq[dir] : 0;
}

static void mmb_tcp_seg(const struct mmb_conn *c, u8 dir, const struct mmb_pkt *pkt,
			struct mmb_tcp_seg *g)
{
	const u8 *b = pkt->key.b;

	g->flags = mmb_pkt_tcp_flags(pkt);
	g->seq = get_unaligned_be32(&b[MMB_IMG_L4_HI]);
	g->ack = get_unaligned_be32(&b[MMB_IMG_L4_HI + 4]) - mmb_conn_seq_off(c, !dir);
	g->win = get_unaligned_be16(&b[MMB_IMG_L4_HI + 10]);
	g->end = g->seq + (pkt->end - pkt->l7off) + !!(g->flags & TCPHDR_SYN) +
		 !!(g->flags & TCPHDR_FIN);
	g->has_wscale = b[MMB_IMG_OPTV] & MMB_OPTV_WSCALE;
	g->wscale = min_t(u8, b[MMB_IMG_WSCALE], TCP_MAX_WSCALE);
}

/* A direction's window from its SYN (or SYN-ACK), as tcp_init_sender(). */
static void mmb_tcp_win_syn(struct mmb_tcp_track *tk, u8 dir, const struct mmb_tcp_seg *g)
{
	struct mmb_tcp_win *s = &tk->win[dir];

	WRITE_ONCE(s->end, g->end);
	WRITE_ONCE(s->maxend, g->end);
	WRITE_ONCE(s->maxwin, max(g->win, 1U));
	tk->wscale[dir] = g->has_wscale ? g->wscale : 0;
	WRITE_ONCE(tk->flags[dir], MMB_WIN_SEEN | (g->has_wscale ? MMB_WIN_WSCALE : 0));
	/* Scaling only if both ends offered it (RFC 7323). */
	if (dir == MMB_DIR_REPLY && !(tk->flags[dir] & tk->flags[!dir] & MMB_WIN_WSCALE)) {
		tk->wscale[dir] = 0;
		tk->wscale[!dir] = 0;
	}
}

/*
 * A direction first seen mid-stream: its window from this segment, and
 * the other's end from what it acknowledges, until that one is seen.
 */
static void mmb_tcp_win_pickup(struct mmb_tcp_track *tk, u8 dir, const struct mmb_tcp_seg *g)
{
	struct mmb_tcp_win *s = &tk->win[dir], *r = &tk->win[!dir];
	u32 win = max(g->win << tk->wscale[dir], 1U);

	WRITE_ONCE(s->end, g->end);
	WRITE_ONCE(s->maxwin, win);
	WRITE_ONCE(s->maxend, g->end + win);
	WRITE_ONCE(tk->flags[dir], READ_ONCE(tk->flags[dir]) | MMB_WIN_SEEN);
	if (!READ_ONCE(r->maxwin) && (g->flags & TCPHDR_ACK)) {
		WRITE_ONCE(r->end, g->ack);
		WRITE_ONCE(r->maxend, g->ack);
		WRITE_ONCE(tk->flags[!dir], READ_ONCE(tk->flags[!dir]) | MMB_WIN_SEEN);
	}
}

/* The oldest sequence number the receiver @r may still take from @s. */
static u32 mmb_tcp_win_low(const struct mmb_tcp_win *s, const struct mmb_tcp_win *r)
{
	return READ_ONCE(s->end) - (READ_ONCE(r->maxwin) ?: MMB_TCP_WIN_DEFAULT) - 1;
}

/*
 * Was @c picked up mid-stream (tcp-loose)? Then the window scales were
 * in SYNs mmb did not see, and the windows it reckons are the unscaled
 * ones: a scaled connection's segments soon lie beyond them and move them
 * no more. Its segments outside them are then taken more liberally
 * (mmb_tcp_track(), mmb_tcp_rst()), as nf_conntrack's
 * IP_CT_TCP_FLAG_BE_LIBERAL for a pickup.
 */
static bool mmb_tcp_loose(const struct mmb_conn *c)
{
	return test_bit(MMB_CONN_LOOSE, &c->status);
}

/* Is a connection in @state synchronized (RFC 793): both ends past the handshake? */
static bool mmb_tcp_synced(u8 state)
{
	return state == MMB_CONN_TCP_ESTABLISHED || state == MMB_CONN_TCP_FIN_WAIT ||
	       state == MMB_CONN_TCP_CLOSE_WAIT || state == MMB_CONN_TCP_LAST_ACK;
}

/*
 * What a RST @g from @dir does: nothing if its sequence number is outside
 * the window the other end takes, or below what that end acknowledged
 * (RFC 5961; nf_conntrack ignores those). In the window, once the
 * connection is synchronized, it ends it only at exactly the sequence
 * number the receiver expects: the highest it acknowledged (or, after a
 * FIN of this end, that FIN's own, as tcp_reset_check()). Any other the
 * receiver answers with a challenge ACK and otherwise ignores (RFC 5961
 * 3.2): the connection stays, its timeout tcp-unacked at most, as
 * nf_conntrack keeps it (a live one's next segment gives it back its
 * timeout); one right after this end's own data, which the receiver may
 * well have taken, the close state's timeout at most (unless ct count
 * counts the connection: that data may never have reached the receiver,
 * and the RST would give the place back early). A RST from a
 * direction not seen yet (the answer to a SYN) must acknowledge exactly
 * what the other end sent. Of a connection picked up mid-stream, a RST
 * outside the window is kept with the timeout tcp-unacked at most: that
 * window may be one its segments left long ago.
 */
static enum mmb_tcp_verdict mmb_tcp_rst(const struct mmb_conn *c, u8 dir,
					const struct mmb_tcp_seg *g)
{
	const struct mmb_tcp_track *tk = &c->tcp;
	const struct mmb_tcp_win *s = &tk->win[dir], *r = &tk->win[!dir];
	/* With MMB_WIN_MAXACK, r->maxack written (mmb_tcp_win_update()). */
	u8 rflags = smp_load_acquire(&tk->flags[!dir]);
	u32 maxack;

	if (!(READ_ONCE(tk->flags[dir]) & MMB_WIN_SEEN))
		return (g->flags & TCPHDR_ACK) && (rflags & MMB_WIN_SEEN) &&
		       g->ack == READ_ONCE(r->end) ? MMB_TCP_MOVE : MMB_TCP_IGNORE;
	if (after(g->seq, READ_ONCE(s->maxend)) || !after(g->end, mmb_tcp_win_low(s, r)))
		return mmb_tcp_loose(c) ? MMB_TCP_KEEP : MMB_TCP_IGNORE;
	if (!(rflags & MMB_WIN_MAXACK) || !mmb_tcp_synced(READ_ONCE(c->state)))
		return MMB_TCP_MOVE;
	maxack = READ_ONCE(r->maxack);
	if (g->seq == maxack ||
	    (g->seq == maxack - 1 && (READ_ONCE(c->fin) & BIT(dir)) && maxack == READ_ONCE(s->end)))
		return MMB_TCP_MOVE;
	if (before(g->seq, maxack))
		return MMB_TCP_IGNORE;
	/* Not for a counted one: its sender's own data need not have been sent on. */
	return g->seq == READ_ONCE(s->end) && !READ_ONCE(c->cc[0]) ? MMB_TCP_KEEP_SHORT :
								    MMB_TCP_KEEP;
}

/*
 * Move @dir's window on with segment @g, if it is in the window (as
 * tcp_in_window() of nf_conntrack: below the highest end the receiver
 * allows, not older than its largest window, acknowledging nothing not
 * sent yet). Lock-free: a segment that races another of its connection
 * may leave a bound a segment behind, which the next one moves on. Never
 * a RST: mmb_tcp_track() judges those without moving the window, and
 * none starts a connection (mmb_conn_first_state()).
 */
static bool mmb_tcp_win_update(struct mmb_conn *c, u8 dir, u8 state, struct mmb_tcp_seg *g)
{
	struct mmb_tcp_track *tk = &c->tcp;
	struct mmb_tcp_win *s = &tk->win[dir], *r = &tk->win[!dir];
	u32 maxwin, rend, win, swin, maxack;

	if (!READ_ONCE(s->maxwin)) {
		if (g->flags & TCPHDR_SYN) {
			mmb_tcp_win_syn(tk, dir, g);
			if (!(g->flags & TCPHDR_ACK))
				return true;
		} else {
			mmb_tcp_win_pickup(tk, dir, g);
		}
	} else if ((g->flags & TCPHDR_SYN) && after(g->end, READ_ONCE(s->end)) &&
		   (state == MMB_CONN_TCP_SYN_SENT || state == MMB_CONN_TCP_SYN_RECV)) {
		/* a new SYN: its sender started again */
		mmb_tcp_win_syn(tk, dir, g);
		if (dir == MMB_DIR_REPLY && !(g->flags & TCPHDR_ACK))
			return true;
	} else if ((g->flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN && dir == MMB_DIR_ORIG &&
		   (state == MMB_CONN_TCP_TIME_WAIT || state == MMB_CONN_TCP_CLOSE)) {
		/*
		 * The tuple used again (mmb_tcp_step() starts the connection
		 * again): both windows anew, at whatever number its SYN chose.
		 */
		memset(tk, 0, sizeof(*tk));
		mmb_tcp_win_syn(tk, dir, g);
		if (test_bit(MMB_CONN_LOOSE, &c->status))
			clear_bit(MMB_CONN_LOOSE, &c->status);
		return true;
	}
	rend = READ_ONCE(r->end);
	if (!(g->flags & TCPHDR_ACK))
		g->ack = rend;
	maxwin = READ_ONCE(s->maxwin);
	maxack = max(maxwin, MMB_TCP_ACK_WIN);
	if (after(g->seq, READ_ONCE(s->maxend)) || after(g->ack, rend) ||
	    (READ_ONCE(r->maxwin) && !after(g->end, mmb_tcp_win_low(s, r))) ||
	    !after(g->ack, rend - maxack - 1))
		return false;
	win = g->win;
	if (!(g->flags & TCPHDR_SYN))
		win <<= tk->wscale[dir];
	swin = win;
	if (maxwin < swin)
		WRITE_ONCE(s->maxwin, swin);
	if (after(g->end, READ_ONCE(s->end)))
		WRITE_ONCE(s->end, g->end);
	if (READ_ONCE(r->maxwin) && after(g->end, READ_ONCE(s->maxend)))
		WRITE_ONCE(r->maxwin, READ_ONCE(r->maxwin) + g->end - READ_ONCE(s->maxend));
	if (after(g->ack + win, READ_ONCE(r->maxend) - 1))
		WRITE_ONCE(r->maxend, g->ack + win + !win);
	/* What the other end must send next: where its RST is taken. */
	if (g->flags & TCPHDR_ACK) {
		u8 f = READ_ONCE(tk->flags[dir]);

		if (!(f & MMB_WIN_MAXACK)) {
			WRITE_ONCE(s->maxack, g->ack);
			/* maxack before the flag: see mmb_tcp_rst() */
			smp_store_release(&tk->flags[dir], f | MMB_WIN_MAXACK);
		} else if (after(g->ack, READ_ONCE(s->maxack))) {
			WRITE_ONCE(s->maxack, g->ack);
		}
	}
	return true;
}

/*
 * Is the TCP checksum of @skb right? Checked only for the segments that
 * may change a state (SYN, FIN, RST), and only if the device or the stack
 * did not: GRO packets and locally built ones (CHECKSUM_PARTIAL) count as
 * verified, as in nf_conntrack, and so does a segment's first fragment
 * (the window still holds it).
 */
static bool mmb_tcp_csum_ok(const struct sk_buff *skb, const struct mmb_pkt *pkt)
{
	unsigned int len = pkt->end - pkt->l4off;
	const u8 *b = pkt->key.b;
	struct in6_addr s6, d6;
	__be32 s4, d4;
	__wsum sum;

	if (skb_csum_unnecessary(skb) || skb->ip_summed == CHECKSUM_PARTIAL || skb_is_gso(skb))
		return true;
	/* The first fragment of a segment: its checksum covers the others too. */
	if (b[MMB_IMG_FLAGS] & MMB_KF_FRAG)
		return true;
	sum = skb_checksum(skb, pkt->l4off, len, 0);
	if (b[MMB_IMG_FAMILY] == 4) {
		memcpy(&s4, &b[MMB_IMG_IP4_SADDR], 4);
		memcpy(&d4, &b[MMB_IMG_IP4_DADDR], 4);
		return !csum_tcpudp_magic(s4, d4, len, IPPROTO_TCP, sum);
	}
	memcpy(&s6, &b[MMB_IMG_IP6 + 8], 16);
	memcpy(&d6, &b[MMB_IMG_IP6 + 24], 16);
	return !csum_ipv6_magic(&s6, &d6, len, IPPROTO_TCP, sum);
}

/*
 * May TCP segment @pkt of @c, going @dir, change its state and refresh
 * its timeout? Not with a wrong checksum, nor a RST outside the window;
 * a RST in it but not where the receiver takes it keeps the state. The
 * window moves on with the segment, not with a RST (a RST kept would
 * otherwise set the sender's end where the next one, at the same number,
 * would be taken). A segment outside the window moves no state of a
 * synchronized connection, but of one picked up mid-stream
 * (mmb_tcp_loose()).
 */
static enum mmb_tcp_verdict mmb_tcp_track(struct mmb_conn *c, u8 dir, const struct mmb_pkt *pkt,
					  const struct sk_buff *skb)
{
	struct mmb_tcp_seg g;
	u8 state;

	mmb_tcp_seg(c, dir, pkt, &g);
	if ((g.flags & (TCPHDR_SYN | TCPHDR_FIN | TCPHDR_RST)) && !mmb_tcp_csum_ok(skb, pkt))
		return MMB_TCP_IGNORE;
	if (g.flags & TCPHDR_RST)
		return mmb_tcp_rst(c, dir, &g);
	state = READ_ONCE(c->state);
	if (mmb_tcp_win_update(c, dir, state, &g) || mmb_tcp_loose(c))
		return MMB_TCP_MOVE;
	/* Out of the window: a FIN changes nothing. */
	if (g.flags & TCPHDR_FIN)
		return MMB_TCP_IGNORE;
	/*
	 * An ACK or data of a synchronized connection refreshes the timeout
	 * (mmb's window may lag a segment behind a race) but moves no state
	 * (a blind ACK would otherwise end a closing one early). In the
	 * handshake it moves the state as before: a window taken there from
	 * a segment of an older connection on the tuple (a challenge ACK
	 * answering the SYN) would otherwise hold the new one in syn-sent.
	 */
	return mmb_tcp_synced(state) || state == MMB_CONN_TCP_TIME_WAIT ? MMB_TCP_REFRESH :
									  MMB_TCP_MOVE;
}

/*
 * May @pkt start a connection? Not a TCP SYN, FIN or RST with a wrong
 * checksum: the stack drops it, and it would leave a connection behind.
 */
bool mmb_conn_csum_ok(const struct mmb_pkt *pkt, const struct sk_buff *skb)
{
	return pkt->key.b[MMB_IMG_L4PROTO] != IPPROTO_TCP ||
	       !(mmb_pkt_tcp_flags(pkt) & (TCPHDR_SYN | TCPHDR_FIN | TCPHDR_RST)) ||
	       mmb_tcp_csum_ok(skb, pkt);
}

/*
 * The window of a connection's first segment, before the connection is
 * seen; whether it starts mid-stream, without the SYN.
 */
static void mmb_tcp_start(struct mmb_conn *c, const struct mmb_pkt *pkt)
{
	struct mmb_tcp_seg g;

	mmb_tcp_seg(c, MMB_DIR_ORIG, pkt, &g);
	mmb_tcp_win_update(c, MMB_DIR_ORIG, c->state, &g);
	if ((g.flags & (TCPHDR_SYN | TCPHDR_ACK)) != TCPHDR_SYN)
		__set_bit(MMB_CONN_LOOSE, &c->status);
}

/* --- state and timeout ---------------------------------------------------- */

/*
 * How long @c lives in @state: a TCP connection established without a
 * reply ever seen (a mid-stream pickup) at most tcp-unacked, as
 * nf_conntrack's nf_conntrack_tcp_timeout_unacknowledged.
 */
static u32 mmb_conn_timeout(struct mmb_conns *mc, const struct mmb_conn *c, u8 state)
{
	u32 to = READ_ONCE(mc->timeouts[state]);

	if (state == MMB_CONN_TCP_ESTABLISHED && !test_bit(MMB_CONN_SEEN_REPLY, &c->status))
		to = min(to, READ_ONCE(mc->tcp_unack));
	return to;
}

/* A new connection, not yet seen by any other CPU: its timeout and window. */
void mmb_conn_init_state(struct mmb_conns *mc, struct mmb_conn *c,
			 const struct mmb_pkt *pkt, u32 now)
{
	c->timeout = now + mmb_conn_timeout(mc, c, c->state);
	if (c->orig.t.proto == IPPROTO_TCP)
		mmb_tcp_start(c, pkt);
}

/*
 * Under the connection's lock: @next for its state, and the timeout of
 * that state from now. The state is written first: a CPU that refreshed
 * the timeout of the state before sees the change and sets it again
 * (mmb_conn_refresh()).
 */
static void mmb_conn_set(struct mmb_conns *mc, struct mmb_conn *c, u8 next)
{
	WRITE_ONCE(c->state, next);
	/* A TCP connection closing counts no more (as nf_conncount). */
	if (next == MMB_CONN_TCP_TIME_WAIT || next == MMB_CONN_TCP_CLOSE)
		mmb_cc_release(c);
	smp_mb();	/* the state before the timeout: see mmb_conn_refresh() */
	WRITE_ONCE(c->timeout, mmb_conn_now() + mmb_conn_timeout(mc, c, next));
}

/*
 * The new state of @c after @pkt, in @dir; *@changed if it is another. A
 * change takes the lock and sets the timeout with the state (*@locked).
 */
static u8 mmb_conn_next(struct mmb_conns *mc, struct mmb_conn *c, u8 dir,
			const struct mmb_pkt *pkt, bool *changed, bool *locked)
{
	u8 state = READ_ONCE(c->state), fin = READ_ONCE(c->fin), next;

	switch (c->orig.t.proto) {
	case IPPROTO_TCP:
		next = mmb_tcp_step(state, &fin, dir, mmb_pkt_tcp_flags(pkt));
		if (next == state && fin == READ_ONCE(c->fin))
			return state;
		/* the state as the last change left it */
		bit_spin_lock(MMB_CONN_LOCKED, &c->status);
		state = c->state;
		fin = c->fin;
		next = mmb_tcp_step(state, &fin, dir, mmb_pkt_tcp_flags(pkt));
		WRITE_ONCE(c->fin, fin);
		mmb_conn_set(mc, c, next);
		bit_spin_unlock(MMB_CONN_LOCKED, &c->status);
		break;
	case IPPROTO_UDP:
		if (dir != MMB_DIR_REPLY || state != MMB_CONN_UDP_UNREPLIED)
			return state;
		bit_spin_lock(MMB_CONN_LOCKED, &c->status);
		state = c->state;
		next = MMB_CONN_UDP_REPLIED;
		mmb_conn_set(mc, c, next);
		bit_spin_unlock(MMB_CONN_LOCKED, &c->status);
		break;
	default:
		return state;
	}
	*locked = true;
	*changed = next != state;
	return next;
}

/*
 * Without the lock: the timeout of @state, read before (@cap jiffies at
 * most), from now. Written only when a jiffy went by. A CPU that changed
 * the state meanwhile set the timeout of its state after the state: if
 * this write came last, the state read again tells, and the timeout is
 * set again, under the lock.
 */
static void mmb_conn_refresh_cap(struct mmb_conns *mc, struct mmb_conn *c, u8 state, u32 cap)
{
	u32 now = mmb_conn_now(), to = now + min(mmb_conn_timeout(mc, c, state), cap);

	if (READ_ONCE(c->timeout) == to)
		return;
	mmb_test_refresh(c);
	WRITE_ONCE(c->timeout, to);
	smp_mb();	/* the timeout before the state: see mmb_conn_set() */
	if (likely(READ_ONCE(c->state) == state))
		return;
	bit_spin_lock(MMB_CONN_LOCKED, &c->status);
	WRITE_ONCE(c->timeout, now + mmb_conn_timeout(mc, c, c->state));
	bit_spin_unlock(MMB_CONN_LOCKED, &c->status);
}

static void mmb_conn_refresh(struct mmb_conns *mc, struct mmb_conn *c, u8 state)
{
	mmb_conn_refresh_cap(mc, c, state, U32_MAX);
}

/*
 * A packet of @c in @dir: counted, the state moved on, the timeout of the
 * new state from now. Writes nothing the packet does not change: the
 * timeout only when a jiffy went by. A TCP segment with a wrong checksum,
 * or a RST outside the window, changes nothing but the counters; another
 * segment outside the window of a synchronized connection only the
 * timeout; a SYN sent again before any reply does not renew the timeout
 * (as nf_conntrack: port reuse would keep the connection forever).
 */
void mmb_conn_update(struct mmb_conns *mc, struct mmb_conn *c, u8 dir,
		     const struct mmb_pkt *pkt, const struct sk_buff *skb)
{
	bool changed = false, locked = false;
	u8 state;

	mmb_conn_count(c, dir, skb);
	if (c->orig.t.proto == IPPROTO_TCP) {
		switch (mmb_tcp_track(c, dir, pkt, skb)) {
		case MMB_TCP_IGNORE:
			return;
		case MMB_TCP_KEEP:
			mmb_conn_refresh_cap(mc, c, READ_ONCE(c->state), READ_ONCE(mc->tcp_unack));
			return;
		case MMB_TCP_KEEP_SHORT:
			mmb_conn_refresh_cap(mc, c, READ_ONCE(c->state),
					     READ_ONCE(mc->timeouts[MMB_CONN_TCP_CLOSE]));
			return;
		case MMB_TCP_REFRESH:
			mmb_conn_refresh(mc, c, READ_ONCE(c->state));
			return;
		case MMB_TCP_MOVE:
			break;
		}
	}
	if (dir == MMB_DIR_REPLY && !test_bit(MMB_CONN_SEEN_REPLY, &c->status))
		set_bit(MMB_CONN_SEEN_REPLY, &c->status);
	state = mmb_conn_next(mc, c, dir, pkt, &changed, &locked);
	mmb_conn_assure(c, state);
	if (!locked && !(state == MMB_CONN_TCP_SYN_SENT &&
			 mmb_tcp_class(mmb_pkt_tcp_flags(pkt)) == MMB_TCP_SYN &&
			 !test_bit(MMB_CONN_SEEN_REPLY, &c->status)))
		mmb_conn_refresh(mc, c, state);
	if (changed)
		mmb_conn_event(mc, c, MMB_CMD_CONN_UPDATE);
}
