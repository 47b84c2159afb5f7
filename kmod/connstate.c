// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: the life of a connection: its state from the packets seen each way,
 * and the timeout of each state. TCP follows the flags (no sequence window
 * is tracked): SYN, SYN-ACK and ACK open, a FIN each way and the last ACK
 * close, RST ends. A SYN in TIME_WAIT or CLOSE starts a new incarnation.
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
#include <net/tcp.h>

#include "conn.h"

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

void mmb_conn_timeouts_init(u32 *timeouts)
{
	unsigned int i;

	for (i = 0; i < __MMB_CONN_STATE_MAX; i++)
		timeouts[i] = mmb_conn_timeout_secs[i] * HZ;
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

/* The new state of @c after @pkt, in @dir; *@changed if it is another. */
static u8 mmb_conn_next(struct mmb_conn *c, u8 dir, const struct mmb_pkt *pkt,
			bool *changed)
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
		WRITE_ONCE(c->state, next);
		bit_spin_unlock(MMB_CONN_LOCKED, &c->status);
		break;
	case IPPROTO_UDP:
		if (dir != MMB_DIR_REPLY || state != MMB_CONN_UDP_UNREPLIED)
			return state;
		bit_spin_lock(MMB_CONN_LOCKED, &c->status);
		state = c->state;
		next = MMB_CONN_UDP_REPLIED;
		WRITE_ONCE(c->state, next);
		bit_spin_unlock(MMB_CONN_LOCKED, &c->status);
		break;
	default:
		return state;
	}
	*changed = next != state;
	return next;
}

/*
 * A packet of @c in @dir: counted, the state moved on, the timeout of the
 * new state from now. Writes nothing the packet does not change: the
 * timeout only when a jiffy went by.
 */
void mmb_conn_update(struct mmb_conns *mc, struct mmb_conn *c, u8 dir,
		     const struct mmb_pkt *pkt, const struct sk_buff *skb)
{
	bool changed = false;
	u8 state;
	u32 to;

	mmb_conn_count(c, dir, skb);
	if (dir == MMB_DIR_REPLY && !test_bit(MMB_CONN_SEEN_REPLY, &c->status))
		set_bit(MMB_CONN_SEEN_REPLY, &c->status);
	state = mmb_conn_next(c, dir, pkt, &changed);
	mmb_conn_assure(c, state);
	to = mmb_conn_now() + READ_ONCE(mc->timeouts[state]);
	if (READ_ONCE(c->timeout) != to)
		WRITE_ONCE(c->timeout, to);
	if (changed)
		mmb_conn_event(mc, c, MMB_CMD_CONN_UPDATE);
}
