// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: what a TCP segment may do to its connection: a RST only
 * inside the window, nothing with a wrong checksum, the timeout of an
 * established connection no reply was seen for, SYNs sent again, expired
 * connections a NAT pick finds, and a state change racing a refresh of the
 * timeout. Segments carry real sequence numbers; the clock is the test's.
 */
#include <linux/genetlink.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/nat.h"
#include "../kmod/test.h"
#include "nlt.h"
#include "util.h"

#define TT_CPORT	40000
#define TT_SPORT	80
#define TT_CSEQ		1000		/* the client's ISN */
#define TT_SSEQ		5000		/* the server's */

struct tt {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
	bool v6;
	u16 cport;		/* the client's port */
	u32 off[2];		/* what mmb adds to each direction's sequence numbers */
};

static void tt_free(void *data)
{
	struct tt *t = data;

	mmb_conns_exit(&t->mc);
	WRITE_ONCE(mmb_test_points.refresh, NULL);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct tt *tt_new(struct kunit *test, bool v6)
{
	struct tt *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	t->v6 = v6;
	t->cport = TT_CPORT;
	t->dev = mmbt_netdev_create(test);
	t->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&t->mc, &init_net), 0);
	/* Both ways on one device without routes: rpf_test.c checks rp-filter. */
	t->mc.rpf = false;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tt_free, t), 0);
	WRITE_ONCE(mmb_test_points.clock, -1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return t;
}

static void tt_wait(unsigned int secs)
{
	WRITE_ONCE(mmb_test_points.clock, mmb_test_points.clock + secs * HZ);
}

/* Client host 1 (10.0.0.1, fd00::1), server host 200 (10.0.1.200, fd00:0:0:1::c8). */
static void tt_host(u8 *addr, bool v6, bool server)
{
	memset(addr, 0, 16);
	if (v6) {
		addr[0] = 0xfd;
		addr[7] = server;
		addr[15] = server ? 200 : 1;
	} else {
		addr[0] = 10;
		addr[2] = server;
		addr[3] = server ? 200 : 1;
	}
}

/* The clients may open connections, nothing else passes (the design's reflexive ACL). */
static void tt_reflexive(struct tt *t)
{
	struct mmb_match_spec m[2];

	if (t->v6) {
		m[0] = mmbt_match(MMB_FIELD_IP6_SADDR, MMB_OP_EQ, 0);
		m[0].value[0] = 0xfd;
		m[0].plen = 64;
	} else {
		m[0] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000);
		m[0].plen = 24;
	}
	m[1] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	mmbt_rule_add(t->test, t->r, true, MMB_TARGET_ACCEPT, m, 1);
	mmbt_rule_add(t->test, t->r, false, MMB_TARGET_DROP, &m[1], 1);
}

/*
 * A segment of the flow going @dir, with its sequence number, its
 * acknowledgment, its window and @len bytes of data; a valid checksum
 * unless @bad.
 */
static struct sk_buff *tt_seg(struct tt *t, u8 dir, u8 flags, u32 seq, u32 ack, u16 win,
			      unsigned int len, bool bad)
{
	struct mmbt_pkt_desc d = {
		.v6 = t->v6, .proto = IPPROTO_TCP, .ttl = 64, .tcp_flags = flags,
		.seq = seq, .payload_len = len,
	};
	unsigned int l4off = t->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct sk_buff *skb;
	struct tcphdr *th;

	tt_host(d.saddr, t->v6, dir == MMB_DIR_REPLY);
	tt_host(d.daddr, t->v6, dir == MMB_DIR_ORIG);
	d.sport = dir == MMB_DIR_ORIG ? t->cport : TT_SPORT;
	d.dport = dir == MMB_DIR_ORIG ? TT_SPORT : t->cport;
	skb = mmbt_pkt_build(t->dev, &d);
	KUNIT_ASSERT_NOT_NULL(t->test, skb);
	th = (struct tcphdr *)(skb->data + l4off);
	th->ack_seq = htonl(flags & TCPHDR_ACK ? ack : 0);
	th->window = htons(win);
	th->check = 0;
	th->check = mmbt_l4_csum(skb->data, l4off, skb->len - l4off, t->v6, IPPROTO_TCP);
	if (bad)
		th->check ^= htons(0x100);
	return skb;
}

/*
 * Judge @skb as mmb_hook() does, in softirq under RCU, and free it: 1 it
 * passes, 0 a rule drops it, or the error that drops it.
 */
static int tt_judge(struct tt *t, struct sk_buff *skb)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(t->r);
	ret = mmb_parse(skb, &pkt);
	if (!ret) {
		mmb_verdict_init(&v);
		if (mmb_ruleset_stateful(rs))
			mmb_conn_lookup(&t->mc, &pkt, skb, &v);
		mmb_classify_rules(rs, &pkt, skb, &v);
		if (v.conn || v.nsf)
			ret = mmb_conn_verdict(&t->mc, &pkt, skb, &v);
		if (!ret)
			ret = !(v.drop && !v.accept);
		/* a new connection's sequence offsets, for the segments to come */
		if (v.conn && test_bit(MMB_CONN_EXT, &v.conn->status)) {
			t->off[0] = mmb_conn_ext(v.conn)->seq[0];
			t->off[1] = mmb_conn_ext(v.conn)->seq[1];
		}
	}
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return ret;
}

static int tt_send(struct tt *t, u8 dir, u8 flags, u32 seq, u32 ack, u16 win,
		   unsigned int len)
{
	return tt_judge(t, tt_seg(t, dir, flags, seq, ack, win, len, false));
}

/*
 * The state of the flow's connection, -1 if it has none (or it ended);
 * in *@left (if given) the jiffies it has left.
 */
static int tt_state(struct tt *t, s32 *left)
{
	struct mmb_tuple tu = { .family = t->v6 ? 6 : 4, .proto = IPPROTO_TCP };
	struct mmb_conn *c;
	int state = -1;
	u8 dir;

	tt_host((u8 *)&tu.src, t->v6, false);
	tt_host((u8 *)&tu.dst, t->v6, true);
	tu.sport = htons(t->cport);
	tu.dport = htons(TT_SPORT);
	rcu_read_lock();
	c = mmb_conn_find(&t->mc, &tu, &dir);
	if (c && !test_bit(MMB_CONN_DYING, &c->status)) {
		state = READ_ONCE(c->state);
		if (left)
			*left = READ_ONCE(c->timeout) - mmb_conn_now();
	}
	rcu_read_unlock();
	return state;
}

static u64 tt_stat(struct tt *t, enum mmb_conn_stat what)
{
	u64 n[MMB_CSTAT_MAX];

	mmb_conns_stats(&t->mc, n);
	return n[what];
}

/*
 * The handshake: the client's SYN at TT_CSEQ, the server's SYN-ACK at
 * TT_SSEQ, the client's ACK; windows of 64k. Each end acknowledges the
 * other's sequence numbers as mmb shifted them.
 */
static void tt_handshake(struct tt *t)
{
	KUNIT_ASSERT_EQ(t->test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	KUNIT_ASSERT_EQ(t->test, tt_send(t, 1, TCPHDR_SYN | TCPHDR_ACK, TT_SSEQ,
					 TT_CSEQ + 1 + t->off[0], 65535, 0), 1);
	KUNIT_ASSERT_EQ(t->test, tt_send(t, 0, TCPHDR_ACK, TT_CSEQ + 1,
					 TT_SSEQ + 1 + t->off[1], 65535, 0), 1);
	KUNIT_ASSERT_EQ(t->test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
}

/* A RST from @dir at @seq (each end's own sequence numbers, as it sent them). */
static int tt_rst(struct tt *t, u8 dir, u32 seq, bool bad)
{
	return tt_judge(t, tt_seg(t, dir, TCPHDR_RST, seq, 0, 0, 0, bad));
}

/*
 * Blind resets: a RST far from the window, from either end, above or
 * below, leaves the connection established; one in the window but not at
 * the sequence number the receiver expects gets a challenge ACK from it
 * (RFC 5961) and leaves the connection established too, its timeout
 * refreshed; one exactly there ends it. IPv4 and IPv6.
 */
static void conntcp_rst_window_test(struct kunit *test)
{
	unsigned int fam;

	for (fam = 0; fam < 2; fam++) {
		struct tt *t = tt_new(test, fam);
		u32 cack = TT_SSEQ + 1, sack = TT_CSEQ + 1;	/* what each end acked */

		tt_reflexive(t);
		tt_handshake(t);
		tt_rst(t, 1, cack + (1U << 30), false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		tt_rst(t, 1, cack - (1U << 30), false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		tt_rst(t, 0, sack + (1U << 30), false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		tt_rst(t, 1, cack + 70000, false);	/* beyond the 64k the client allows */
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		/* in the window, not at its start: the client would answer it */
		tt_rst(t, 1, cack + 1000, false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		tt_rst(t, 0, sack + 1, false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		/* at its start: it ends the connection */
		tt_rst(t, 1, cack, false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
	}
}

/*
 * A RST in the window but not at its start leaves an established
 * connection established, its ct count charge kept (a client that sent
 * one after each connection it opened would otherwise never reach its
 * cap), its timeout tcp-unacked at most: the receiver answers it with a
 * challenge ACK. The same RST again changes nothing more; the RST that a
 * challenge ACK draws, at exactly what it acknowledges, ends it. A RST
 * right after its sender's own data (which may not have been taken) is
 * kept for the close state's time at most. After a FIN, the FIN's own
 * number is taken too; a hole before the FIN does not open the window.
 * Before the connection is established, any RST in the window ends it.
 */
static void conntcp_rst_challenge_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);
	u32 s = TT_SSEQ + 1, c = TT_CSEQ + 1;
	s32 left;

	tt_reflexive(t);
	tt_handshake(t);
	/* the client's data, not yet acknowledged: the server expects c */
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c, s, 65535, 1000), 1);
	tt_wait(100);
	tt_rst(t, 0, c + 1000 + 1, false);		/* past the client's own data */
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, t->mc.tcp_unack);
	tt_rst(t, 0, c + 1000 + 1, false);		/* the same again */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_rst(t, 0, c - 1, false);			/* below what the server acked */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	/* right after the client's data: maybe taken, kept a short while */
	tt_rst(t, 0, c + 1000, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_CLOSE]);
	tt_rst(t, 0, c + 1000, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	/* the next segment gives the connection its timeout back */
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s, c + 500, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_ESTABLISHED]);
	/* that was the server's challenge ACK: the client's RST at exactly it */
	tt_rst(t, 0, c + 501, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_rst(t, 0, c + 500, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);

	/* a FIN past a hole: the connection closes, the window as before */
	t = tt_new(test, true);
	tt_reflexive(t);
	tt_handshake(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_FIN | TCPHDR_ACK, c + 30000, s, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_FIN_WAIT);
	tt_rst(t, 0, c + 20000, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_FIN_WAIT);
	/* a FIN the server took (acked): a RST at the FIN's own number ends it */
	t = tt_new(test, true);
	tt_reflexive(t);
	tt_handshake(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_FIN | TCPHDR_ACK, c, s, 65535, 0), 1);
	tt_rst(t, 0, c - 1, false);		/* not before it is acked */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_FIN_WAIT);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s, c + 1, 65535, 0), 1);
	tt_rst(t, 0, c, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);

	/* not yet established: any RST in the window */
	t = tt_new(test, false);
	tt_reflexive(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_SYN | TCPHDR_ACK, TT_SSEQ, c, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_RECV);
	tt_rst(t, 0, c + 100, false);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
}

/*
 * A tuple used again after a close, from an initial sequence number far
 * below the last one's: the windows start anew with the new SYN, so the
 * new connection's FINs and exact RST count (with the old windows, every
 * segment lay outside them and a RST at the exact number was "below
 * what the server acknowledged").
 */
static void conntcp_reuse_test(struct kunit *test)
{
	u32 c = TT_CSEQ + 1, s = TT_SSEQ + 1, c2 = TT_CSEQ - 1000000, s2 = TT_SSEQ - 2000000;
	struct tt *t = tt_new(test, false);

	tt_reflexive(t);
	tt_handshake(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_FIN | TCPHDR_ACK, c, s, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_FIN | TCPHDR_ACK, s, c + 1, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c + 1, s + 1, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_TIME_WAIT);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, c2, 0, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_SENT);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_SYN | TCPHDR_ACK, s2, c2 + 1, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c2 + 1, s2 + 1, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	/* its data moves its window */
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c2 + 1, s2 + 1, 65535, 100), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s2 + 1, c2 + 101, 65535, 0), 1);
	tt_rst(t, 1, s2 + 2, false);			/* not exact: kept */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_rst(t, 1, s2 + 1, false);			/* what the client acked */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
}

/* The window moves with the data: a RST in the old one only is blind. */
static void conntcp_rst_data_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);
	u32 s = TT_SSEQ + 1, c = TT_CSEQ + 1, i;

	tt_reflexive(t);
	tt_handshake(t);
	/* 1 MB from the server, acked by the client with 64k windows */
	for (i = 0; i < 1024; i++) {
		KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s, c, 65535, 1000), 1);
		s += 1000;
		KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c, s, 65535, 0), 1);
	}
	tt_rst(t, 1, TT_SSEQ + 1, false);	/* 1 MB back: blind */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_rst(t, 1, s + 65535 + 1, false);	/* just past what the client allows */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_rst(t, 1, s + 65535, false);		/* the window's last byte: challenged */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_rst(t, 1, s, false);			/* what the client acknowledged */
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
}

/* A segment with a wrong checksum changes no state: RST, FIN, SYN. */
static void conntcp_csum_test(struct kunit *test)
{
	unsigned int fam;

	for (fam = 0; fam < 2; fam++) {
		struct tt *t = tt_new(test, fam);
		s32 left;

		tt_reflexive(t);
		tt_handshake(t);
		tt_rst(t, 1, TT_SSEQ + 1, true);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		tt_rst(t, 0, TT_CSEQ + 1, true);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		tt_judge(t, tt_seg(t, 0, TCPHDR_FIN | TCPHDR_ACK, TT_CSEQ + 1, TT_SSEQ + 1,
				   65535, 0, true));
		KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
		KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_ESTABLISHED]);
		/* the same RST, checksum right */
		tt_rst(t, 1, TT_SSEQ + 1, false);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
		/* a SYN would start the connection again, not with a bad checksum */
		tt_judge(t, tt_seg(t, 0, TCPHDR_SYN, TT_CSEQ + 100000, 0, 65535, 0, true));
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
	}
}

/* A SYN with a wrong checksum starts no connection (it passes: its rules judge it alone). */
static void conntcp_csum_new_test(struct kunit *test)
{
	unsigned int fam;

	for (fam = 0; fam < 2; fam++) {
		struct tt *t = tt_new(test, fam);

		tt_reflexive(t);
		KUNIT_EXPECT_EQ(test, tt_judge(t, tt_seg(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0,
							 true)), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&t->mc.count), 0);
		KUNIT_EXPECT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_SENT);
	}
}

/* The answer to a SYN: a RST must acknowledge it. */
static void conntcp_rst_syn_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);

	tt_reflexive(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	tt_send(t, 1, TCPHDR_RST | TCPHDR_ACK, 0, TT_CSEQ + 77, 0, 0);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_SENT);
	tt_send(t, 1, TCPHDR_RST, 12345, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_SENT);
	tt_send(t, 1, TCPHDR_RST | TCPHDR_ACK, 0, TT_CSEQ + 1, 0, 0);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
}

/*
 * With shuffled sequence numbers (and NAT), the window is kept in one
 * sequence space: each end's RST at the window is taken, a blind one not.
 */
static void conntcp_rst_shuffled_test(struct kunit *test)
{
	unsigned int fam, who;

	for (fam = 0; fam < 2; fam++) {
		for (who = 0; who < 2; who++) {
			struct mmb_match_spec m = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ,
							     TT_SPORT);
			struct mmbt_target tg[2] = {
				{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_TCP_SEQ_NUM },
				{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_TCP_ACK_NUM },
			};
			struct tt *t = tt_new(test, fam);
			u32 at = who ? TT_SSEQ + 1 : TT_CSEQ + 1;

			mmbt_rule_targets(test, t->r, true, &m, 1, tg, 2);
			tt_handshake(t);
			KUNIT_EXPECT_NE(test, t->off[0], 0);
			KUNIT_EXPECT_NE(test, t->off[1], 0);
			tt_rst(t, who, at + (1U << 30), false);
			KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
			tt_rst(t, who, at, false);
			KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_CLOSE);
		}
	}
}

/*
 * A pickup (an ACK, no SYN seen) is established for tcp-unacked at most
 * (300 s) until a reply is seen; then for the established timeout.
 */
static void conntcp_pickup_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);
	s32 left;

	tt_reflexive(t);
	KUNIT_EXPECT_EQ(test, t->mc.tcp_unack, 300 * HZ);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, TT_CSEQ, TT_SSEQ, 65535, 10), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, 300 * HZ);
	tt_wait(200);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, TT_CSEQ + 10, TT_SSEQ, 65535, 10), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, 300 * HZ);
	/* the reply: the established timeout */
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, TT_SSEQ, TT_CSEQ + 20, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_ESTABLISHED]);

	/* another pickup, tcp-unacked set to 60 s: it expires after 60 s */
	t->mc.tcp_unack = 60 * HZ;
	t->cport++;
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, TT_CSEQ, TT_SSEQ, 65535, 10), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, left, 60 * HZ);
}

/*
 * Bulk data from the server of a connection picked up mid-stream: the
 * client's window is 502 scaled by 7 (64256 bytes), its scale unknown to
 * mmb (it was in the SYNs, not seen), so the window mmb reckons is 502
 * bytes and the server's data soon lies beyond it. Returns the server's
 * next sequence number.
 */
static u32 tt_pickup_bulk(struct tt *t, u32 c, u32 s)
{
	unsigned int i, j;

	KUNIT_ASSERT_EQ(t->test, tt_send(t, 0, TCPHDR_ACK, c, s, 502, 0), 1);
	for (i = 0; i < 8; i++) {
		for (j = 0; j < 40; j++, s += 1000)
			KUNIT_ASSERT_EQ(t->test, tt_send(t, 1, TCPHDR_ACK, s, c, 502, 1000), 1);
		KUNIT_ASSERT_EQ(t->test, tt_send(t, 0, TCPHDR_ACK, c, s, 502, 0), 1);
	}
	return s;
}

/*
 * A connection picked up mid-stream, its window scale unknown: its FINs
 * close it wherever they lie (as nf_conntrack's liberal tracking of a
 * pickup), so that it ends in time-wait, not 5 days established; a RST
 * outside the window mmb reckons keeps it for tcp-unacked at most (it
 * may be the connection's last segment), and its next segment gives the
 * full timeout back; one picked up from a SYN-ACK stays a pickup when that
 * end starts again. A connection whose SYNs were seen keeps ignoring a
 * FIN outside its window (conntcp_blind_fin_test). IPv4 and IPv6.
 */
static void conntcp_pickup_scaled_test(struct kunit *test)
{
	u32 c = TT_CSEQ + 1, s = TT_SSEQ + 1;
	unsigned int fam;
	s32 left;

	for (fam = 0; fam < 2; fam++) {
		struct tt *t = tt_new(test, fam);

		tt_reflexive(t);
		s = tt_pickup_bulk(t, c, TT_SSEQ + 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_FIN | TCPHDR_ACK, s, c, 502, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_FIN_WAIT);
		KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_FIN | TCPHDR_ACK, c, s + 1, 502, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_LAST_ACK);
		KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s + 1, c + 1, 502, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_TIME_WAIT);
		KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_TIME_WAIT]);
	}

	/* the server's RST where it stands, past the window mmb reckons */
	{
		struct tt *t = tt_new(test, false);

		tt_reflexive(t);
		s = tt_pickup_bulk(t, c, TT_SSEQ + 1);
		tt_wait(100);
		tt_rst(t, 1, s, false);
		KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
		KUNIT_EXPECT_EQ(test, left, t->mc.tcp_unack);
		/* one far from anything: the same, and the next segment restores */
		tt_rst(t, 1, s + (1U << 30), false);
		KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
		KUNIT_EXPECT_EQ(test, left, t->mc.tcp_unack);
		KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s, c, 502, 1000), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_ESTABLISHED);
		KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_ESTABLISHED]);
		tt_wait(301);
		KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_EXPIRED), 0);
	}

	/*
	 * Picked up from a SYN-ACK, whose sender sends another, further on
	 * (its windows start again): still a pickup, the other end's scale
	 * unknown, and a FIN outside the window still closes it.
	 */
	{
		struct tt *t = tt_new(test, false);

		tt_reflexive(t);
		KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN | TCPHDR_ACK, c, s, 502, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_RECV);
		KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN | TCPHDR_ACK, c + 100, s, 502, 0),
				1);
		KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, s, c + 101, 502, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
		KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_FIN | TCPHDR_ACK, s + (1U << 30),
					      c + 101, 502, 0), 1);
		KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_FIN_WAIT);
	}
}

/* A SYN sent again before any reply does not renew the connection's timeout. */
static void conntcp_syn_again_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);
	unsigned int i;
	s32 left;

	tt_reflexive(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	for (i = 0; i < 3; i++) {
		tt_wait(30);
		KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	}
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_SYN_SENT);
	KUNIT_EXPECT_EQ(test, left, 30 * HZ);
	tt_wait(31);
	/* expired: the next SYN starts a new one */
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_EXPIRED), 1);
	KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_CREATED), 2);
	/* a SYN-ACK is a reply: the SYN's timeout from then on counts again */
	tt_wait(10);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_SYN | TCPHDR_ACK, TT_SSEQ, TT_CSEQ + 1,
				      65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_SYN_RECV);
	KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_SYN_RECV]);
}

/*
 * A NAT pick ends the expired connection that holds the one port of its
 * range, instead of failing.
 */
static void conntcp_pick_reap_test(struct kunit *test)
{
	static const u8 nat4[4] = { 203, 0, 113, 1 };
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, TT_SPORT);
	struct mmbt_target tg[2] = {
		{ .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 },
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_TCP_SPORT, .vlen = 4,
		  .value = { 2000 >> 8, 2000 & 0xff, 2000 >> 8, 2000 & 0xff } },
	};
	struct tt *t = tt_new(test, false);

	memcpy(tg[0].value, nat4, 4);
	mmbt_rule_targets(test, t->r, true, &m, 1, tg, 2);
	/* a bare ACK takes the port for tcp-unacked */
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, TT_CSEQ, TT_SSEQ, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mc.count), 1);
	t->cport++;
	KUNIT_EXPECT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), -ENOSPC);
	KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_NAT_FULL), 1);
	tt_wait(301);
	t->cport++;
	KUNIT_EXPECT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_SENT);
	KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_EXPIRED), 1);
	KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_NAT_FULL), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->mc.count), 1);
}

/* The race of a refresh and a change of state: the segment the test point sends. */
static struct tt *tt_racer;
static struct sk_buff *tt_race_skb;

static void tt_race(struct mmb_conn *c)
{
	WRITE_ONCE(mmb_test_points.refresh, NULL);
	tt_judge(tt_racer, tt_race_skb);	/* "another CPU": the client's FIN */
	tt_race_skb = NULL;
}

/*
 * A segment that changes no state refreshes the timeout of the state it
 * read; a FIN that another CPU handles in between moves the state to
 * FIN_WAIT with its timeout. The connection keeps FIN_WAIT's timeout.
 */
static void conntcp_refresh_race_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);
	s32 left;

	tt_reflexive(t);
	tt_handshake(t);
	tt_racer = t;
	tt_race_skb = tt_seg(t, 0, TCPHDR_FIN | TCPHDR_ACK, TT_CSEQ + 1, TT_SSEQ + 1, 65535, 0,
			     false);
	tt_wait(1);
	WRITE_ONCE(mmb_test_points.refresh, tt_race);
	/* the server's data: no change of state */
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_ACK, TT_SSEQ + 1, TT_CSEQ + 1, 65535, 100),
			1);
	KUNIT_EXPECT_NULL(test, tt_race_skb);	/* the point was reached */
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_FIN_WAIT);
	KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_FIN_WAIT]);
	if (tt_race_skb)
		kfree_skb(tt_race_skb);
}

/* tcp-unacknowledged over netlink: 300 s by default, 1 s to MMB_TIMEOUT_MAX. */
static u32 tt_nl_unack(struct nlt *t)
{
	struct nlattr *tb[MMB_SET_A_MAX + 1], *s;

	nlt_begin(t, t->family, MMB_CMD_SETTINGS_GET);
	KUNIT_ASSERT_EQ(t->test, nlt_send(t), 0);
	s = nlmsg_find_attr((struct nlmsghdr *)t->reply, GENL_HDRLEN, MMB_A_SETTINGS);
	KUNIT_ASSERT_NOT_NULL(t->test, s);
	KUNIT_ASSERT_EQ(t->test, nla_parse_nested(tb, MMB_SET_A_MAX, s, NULL, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(t->test, tb[MMB_SET_A_TCP_UNACK]);
	return nla_get_u32(tb[MMB_SET_A_TCP_UNACK]);
}

static int tt_nl_set_unack(struct nlt *t, u32 secs)
{
	unsigned int set;

	nlt_begin(t, t->family, MMB_CMD_SET);
	set = nlt_nest(t, MMB_A_SETTINGS);
	nlt_u32(t, MMB_SET_A_TCP_UNACK, secs);
	nlt_nest_end(t, set);
	return nlt_send(t);
}

static void conntcp_unack_setting_test(struct kunit *test)
{
	struct mmb_conns *mc = &mmb_pernet(&init_net)->conns;
	struct nlt t;

	nlt_open(test, &t);
	KUNIT_EXPECT_EQ(test, tt_nl_unack(&t), 300);
	KUNIT_EXPECT_EQ(test, tt_nl_set_unack(&t, 42), 0);
	KUNIT_EXPECT_EQ(test, tt_nl_unack(&t), 42);
	KUNIT_EXPECT_EQ(test, READ_ONCE(mc->tcp_unack), 42 * HZ);
	KUNIT_EXPECT_EQ(test, tt_nl_set_unack(&t, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, tt_nl_set_unack(&t, MMB_TIMEOUT_MAX + 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, tt_nl_unack(&t), 42);
	KUNIT_EXPECT_EQ(test, tt_nl_set_unack(&t, 300), 0);
	nlt_close(&t);
}

/* Does a trace of @skb (freed) say that it would start a connection? */
static bool tt_trace_starts(struct nlt *nt, struct sk_buff *skb)
{
	struct nlattr *tb[MMB_TRACE_A_MAX + 1], *a;
	unsigned int trace;

	nlt_begin(nt, nt->family, MMB_CMD_TRACE);
	trace = nlt_nest(nt, MMB_A_TRACE);
	nlt_u32(nt, MMB_TRACE_A_IFINDEX, skb->dev->ifindex);
	nlt_put(nt, MMB_TRACE_A_PACKET, skb->data, skb->len);
	nlt_nest_end(nt, trace);
	kfree_skb(skb);
	KUNIT_ASSERT_EQ(nt->test, nlt_send(nt), 0);
	a = nlmsg_find_attr((struct nlmsghdr *)nt->reply, GENL_HDRLEN, MMB_A_TRACE);
	KUNIT_ASSERT_NOT_NULL(nt->test, a);
	KUNIT_ASSERT_EQ(nt->test, nla_parse_nested(tb, MMB_TRACE_A_MAX, a, NULL, NULL), 0);
	return tb[MMB_TRACE_A_CONN_NEW];
}

static void tt_rpf_on(void *data)
{
	WRITE_ONCE(mmb_pernet(&init_net)->conns.rpf, true);
}

/* A trace says what the datapath does: no connection from a SYN with a wrong checksum. */
static void conntcp_trace_csum_test(struct kunit *test)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, TT_SPORT);
	struct tt *t = tt_new(test, false);
	struct nlt nt;

	/* One device without routes: rp-filter off (rpf_test.c checks it). */
	WRITE_ONCE(mmb_pernet(&init_net)->conns.rpf, false);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tt_rpf_on, NULL), 0);
	nlt_open(test, &nt);
	KUNIT_ASSERT_EQ(test, nlt_flush(&nt), 0);
	nlt_begin(&nt, nt.family, MMB_CMD_DEV_ENABLE);
	nlt_u32(&nt, MMB_A_IFINDEX, t->dev->ifindex);
	KUNIT_ASSERT_EQ(test, nlt_send(&nt), 0);
	mmbt_rule_add(test, &mmb_pernet(&init_net)->rules, true, MMB_TARGET_ACCEPT, &m, 1);
	KUNIT_EXPECT_TRUE(test, tt_trace_starts(&nt, tt_seg(t, 0, TCPHDR_SYN, TT_CSEQ, 0,
							    65535, 0, false)));
	KUNIT_EXPECT_FALSE(test, tt_trace_starts(&nt, tt_seg(t, 0, TCPHDR_SYN, TT_CSEQ, 0,
							     65535, 0, true)));
	KUNIT_EXPECT_EQ(test, nlt_flush(&nt), 0);
	nlt_close(&nt);
}

/*
 * A blind FIN (valid checksum, sequence number 2^30 away from the window)
 * from the server's side changes nothing: the connection stays
 * established, and the client's next ACK and an idle minute do not end it.
 */
static void conntcp_blind_fin_test(struct kunit *test)
{
	struct tt *t = tt_new(test, false);
	u32 cack = TT_SSEQ + 1, sack = TT_CSEQ + 1;

	tt_reflexive(t);
	tt_handshake(t);
	tt_send(t, 1, TCPHDR_FIN | TCPHDR_ACK, cack + (1U << 30), sack + 12345, 65535, 0);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_send(t, 0, TCPHDR_ACK, sack, cack + t->off[1], 65535, 0);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
	tt_wait(61);
	KUNIT_EXPECT_EQ(test, tt_send(t, 0, TCPHDR_ACK, sack, cack + t->off[1], 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_stat(t, MMB_CSTAT_EXPIRED), 0);
}

/*
 * A blind ACK (its acknowledgment 2^30 beyond what was sent) moves no
 * state of a synchronized connection: it does not end a closing one
 * early; it refreshes the state it finds. The real ACK then does.
 */
static void conntcp_blind_ack_test(struct kunit *test)
{
	u32 c = TT_CSEQ + 1, s = TT_SSEQ + 1;
	struct tt *t = tt_new(test, false);
	s32 left;

	tt_reflexive(t);
	tt_handshake(t);
	/* the client's FIN, the server's: the client's last ACK is awaited */
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_FIN | TCPHDR_ACK, c, s, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_FIN | TCPHDR_ACK, s, c + 1, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_LAST_ACK);
	tt_wait(20);
	tt_send(t, 0, TCPHDR_ACK, c + 1, s + 1 + (1U << 30), 65535, 0);
	KUNIT_EXPECT_EQ(test, tt_state(t, &left), MMB_CONN_TCP_LAST_ACK);
	KUNIT_EXPECT_EQ(test, left, t->mc.timeouts[MMB_CONN_TCP_LAST_ACK]);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c + 1, s + 1, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_TIME_WAIT);
}

/*
 * The server still holds an older connection on the tuple: it answers
 * the client's SYN with an ACK of that one (a challenge ACK), the client
 * resets it and sends its SYN again, and the server's SYN-ACK starts
 * below the old connection's numbers. The handshake still completes:
 * the window taken from the old ACK holds no state back.
 */
static void conntcp_challenged_syn_test(struct kunit *test)
{
	u32 c = TT_CSEQ + 1, old = TT_SSEQ + 100000;
	struct tt *t = tt_new(test, false);

	tt_reflexive(t);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	tt_send(t, 1, TCPHDR_ACK, old, TT_CSEQ - 10000000, 65535, 0);
	tt_send(t, 0, TCPHDR_RST, TT_CSEQ - 10000000, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_SYN, TT_CSEQ, 0, 65535, 0), 1);
	KUNIT_ASSERT_EQ(test, tt_send(t, 1, TCPHDR_SYN | TCPHDR_ACK, TT_SSEQ, c, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_SYN_RECV);
	KUNIT_ASSERT_EQ(test, tt_send(t, 0, TCPHDR_ACK, c, TT_SSEQ + 1, 65535, 0), 1);
	KUNIT_EXPECT_EQ(test, tt_state(t, NULL), MMB_CONN_TCP_ESTABLISHED);
}

static struct kunit_case mmb_conntcp_cases[] = {
	KUNIT_CASE(conntcp_blind_fin_test),
	KUNIT_CASE(conntcp_blind_ack_test),
	KUNIT_CASE(conntcp_challenged_syn_test),
	KUNIT_CASE(conntcp_rst_window_test),
	KUNIT_CASE(conntcp_rst_challenge_test),
	KUNIT_CASE(conntcp_reuse_test),
	KUNIT_CASE(conntcp_rst_data_test),
	KUNIT_CASE(conntcp_csum_test),
	KUNIT_CASE(conntcp_csum_new_test),
	KUNIT_CASE(conntcp_rst_syn_test),
	KUNIT_CASE(conntcp_rst_shuffled_test),
	KUNIT_CASE(conntcp_pickup_test),
	KUNIT_CASE(conntcp_pickup_scaled_test),
	KUNIT_CASE(conntcp_syn_again_test),
	KUNIT_CASE(conntcp_pick_reap_test),
	KUNIT_CASE(conntcp_refresh_race_test),
	KUNIT_CASE(conntcp_unack_setting_test),
	KUNIT_CASE(conntcp_trace_csum_test),
	{}
};

static struct kunit_suite mmb_conntcp_suite = {
	.name = "mmb-conn-tcp",
	.test_cases = mmb_conntcp_cases,
};

kunit_test_suite(mmb_conntcp_suite);
