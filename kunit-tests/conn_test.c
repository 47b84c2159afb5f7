// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: the connection table. Packets go through the datapath's
 * steps (lookup, classification, the connection's verdict) against rules
 * and a table of the test's own; time moves with the test clock.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "../kmod/conn.h"
#include "../kmod/test.h"
#include "util.h"

struct ct {
	struct kunit *test;
	struct net_device *dev;
	struct mmb_rules *r;
	struct mmb_conns mc;
};

static void ct_free(void *data)
{
	struct ct *c = data;

	mmb_conns_exit(&c->mc);
	WRITE_ONCE(mmb_test_points.frozen, false);
}

static struct ct *ct_new(struct kunit *test)
{
	struct ct *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->dev = mmbt_netdev_create(test);
	c->r = mmbt_rules_new(test);
	KUNIT_ASSERT_EQ(test, mmb_conns_init(&c->mc, &init_net), 0);
	/* Both ways on one device without routes: rpf_test.c checks rp-filter. */
	c->mc.rpf = false;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ct_free, c), 0);
	/* Time stands still but for ct_wait(); it starts just before a wrap. */
	WRITE_ONCE(mmb_test_points.clock, -1000U * HZ);
	WRITE_ONCE(mmb_test_points.frozen, true);
	return c;
}

/* Move the connection table's clock on by @secs seconds (and @jiffies). */
static void ct_wait(unsigned int secs, int ticks)
{
	WRITE_ONCE(mmb_test_points.clock, mmb_test_points.clock + secs * HZ + ticks);
}

/* Add a rule of @n matches and one target, stateful or not. */
static struct mmb_rule *ct_rule(struct ct *c, bool stateful, u8 target,
				const struct mmb_match_spec *m, unsigned int n)
{
	return mmbt_rule_add(c->test, c->r, stateful, target, m, n);
}

/*
 * A packet between hosts @from and @to, ports (or ICMP type << 8): hosts
 * below 100 are clients (10.0.0.x, fd00::x), the others servers (10.0.1.x,
 * fd00:0:0:1::x).
 */
/* What mmbt_pkt_build() acknowledges, less one: where both ends start. */
#define CT_ISN	0xabcdef00U

static struct mmbt_pkt_desc ct_pkt(bool v6, u8 proto, u8 from, u16 sport, u8 to, u16 dport,
				   u8 flags)
{
	struct mmbt_pkt_desc d = {
		.v6 = v6, .proto = proto, .ttl = 64, .sport = sport, .dport = dport,
		.tcp_flags = flags, .payload_len = 10,
	};

	if (v6) {
		d.saddr[0] = 0xfd;
		d.saddr[7] = from >= 100;
		d.saddr[15] = from;
		d.daddr[0] = 0xfd;
		d.daddr[7] = to >= 100;
		d.daddr[15] = to;
	} else {
		d.saddr[0] = 10;
		d.saddr[2] = from >= 100;
		d.saddr[3] = from;
		d.daddr[0] = 10;
		d.daddr[2] = to >= 100;
		d.daddr[3] = to;
	}
	return d;
}

/*
 * Judge @skb as mmb_hook() does, in softirq under RCU; @skb is freed.
 * 1: it passes, 0: a rule drops it, or the error that drops it.
 */
static int ct_judge(struct ct *c, struct sk_buff *skb, struct mmb_verdict *out)
{
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	if (!skb)	/* no assertion: threads call it too */
		return -ENOMEM;
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(c->r);
	ret = mmb_parse(skb, &pkt);
	if (!ret) {
		mmb_verdict_init(&v);
		if (mmb_ruleset_stateful(rs))
			mmb_conn_lookup(&c->mc, &pkt, skb, &v);
		mmb_classify_rules(rs, &pkt, skb, &v);
		if (v.conn || v.nsf)
			ret = mmb_conn_verdict(&c->mc, &pkt, skb, &v);
		if (!ret)
			ret = !(v.drop && !v.accept);
		if (out)
			*out = v;
	}
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return ret;
}

static int ct_send(struct ct *c, const struct mmbt_pkt_desc *d)
{
	return ct_judge(c, mmbt_pkt_build(c->dev, d), NULL);
}

static unsigned int ct_count(struct ct *c)
{
	return atomic_read(&c->mc.count);
}

static u64 ct_stat(struct ct *c, enum mmb_conn_stat what)
{
	u64 n[MMB_CSTAT_MAX];

	mmb_conns_stats(&c->mc, n);
	return n[what];
}

/*
 * The state of the connection of @d's packet, or -1 if it has none; in
 * *@flags (if given), 1 if it is assured and 2 if it may be evicted.
 */
static int ct_look(struct ct *c, const struct mmbt_pkt_desc *d, int *flags)
{
	struct sk_buff *skb = mmbt_pkt_build(c->dev, d);
	struct mmb_tuple t;
	struct mmb_conn *conn;
	struct mmb_pkt pkt;
	int state = -1;
	u8 dir;

	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	KUNIT_ASSERT_EQ(c->test, mmb_parse(skb, &pkt), 0);
	KUNIT_ASSERT_TRUE(c->test, mmb_conn_tuple(&pkt, &t));
	rcu_read_lock();
	conn = mmb_conn_find(&c->mc, &t, &dir);
	if (conn && !test_bit(MMB_CONN_DYING, &conn->status)) {
		state = READ_ONCE(conn->state);
		if (flags)
			*flags = test_bit(MMB_CONN_ASSURED, &conn->status) |
				 mmb_conn_evictable(conn) << 1;
	}
	rcu_read_unlock();
	kfree_skb(skb);
	return state;
}

static int ct_state(struct ct *c, const struct mmbt_pkt_desc *d)
{
	return ct_look(c, d, NULL);
}

/* The reflexive ACL of the design, for all protocols: the clients may open connections. */
static void ct_reflexive(struct ct *c, bool v6)
{
	struct mmb_match_spec m[2];

	if (v6) {
		m[0] = mmbt_match(MMB_FIELD_IP6_SADDR, MMB_OP_EQ, 0);
		m[0].value[0] = 0xfd;
		m[0].plen = 64;
	} else {
		m[0] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, 0x0a000000);
		m[0].plen = 24;
	}
	m[1] = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	ct_rule(c, true, MMB_TARGET_ACCEPT, m, 1);
	ct_rule(c, false, MMB_TARGET_DROP, &m[1], 1);
}

/* --- the TCP state machine ------------------------------------------------ */

static const struct {
	u8 state, fin, dir, flags;
	u8 next, next_fin;
} ct_steps[] = {
	/* the handshake, and a simultaneous open */
	{ MMB_CONN_TCP_SYN_SENT, 0, 0, TCPHDR_SYN, MMB_CONN_TCP_SYN_SENT, 0 },
	{ MMB_CONN_TCP_SYN_SENT, 0, 1, TCPHDR_SYN | TCPHDR_ACK, MMB_CONN_TCP_SYN_RECV, 0 },
	{ MMB_CONN_TCP_SYN_SENT, 0, 0, TCPHDR_SYN | TCPHDR_ACK, MMB_CONN_TCP_SYN_SENT, 0 },
	{ MMB_CONN_TCP_SYN_SENT, 0, 1, TCPHDR_SYN, MMB_CONN_TCP_SYN_SENT2, 0 },
	{ MMB_CONN_TCP_SYN_SENT, 0, 1, TCPHDR_ACK, MMB_CONN_TCP_SYN_SENT, 0 },
	{ MMB_CONN_TCP_SYN_SENT2, 0, 0, TCPHDR_SYN | TCPHDR_ACK, MMB_CONN_TCP_SYN_RECV, 0 },
	{ MMB_CONN_TCP_SYN_SENT2, 0, 1, TCPHDR_SYN | TCPHDR_ACK, MMB_CONN_TCP_SYN_RECV, 0 },
	{ MMB_CONN_TCP_SYN_RECV, 0, 0, TCPHDR_ACK, MMB_CONN_TCP_ESTABLISHED, 0 },
	{ MMB_CONN_TCP_SYN_RECV, 0, 0, TCPHDR_FIN | TCPHDR_ACK, MMB_CONN_TCP_FIN_WAIT, 1 },
	/* data and closes */
	{ MMB_CONN_TCP_ESTABLISHED, 0, 1, TCPHDR_ACK | TCPHDR_PSH, MMB_CONN_TCP_ESTABLISHED, 0 },
	{ MMB_CONN_TCP_ESTABLISHED, 0, 0, TCPHDR_SYN, MMB_CONN_TCP_ESTABLISHED, 0 },
	{ MMB_CONN_TCP_ESTABLISHED, 0, 0, TCPHDR_FIN | TCPHDR_ACK, MMB_CONN_TCP_FIN_WAIT, 1 },
	{ MMB_CONN_TCP_ESTABLISHED, 0, 1, TCPHDR_FIN | TCPHDR_ACK, MMB_CONN_TCP_FIN_WAIT, 2 },
	{ MMB_CONN_TCP_FIN_WAIT, 1, 1, TCPHDR_ACK, MMB_CONN_TCP_CLOSE_WAIT, 1 },
	{ MMB_CONN_TCP_FIN_WAIT, 1, 0, TCPHDR_ACK, MMB_CONN_TCP_FIN_WAIT, 1 },
	{ MMB_CONN_TCP_FIN_WAIT, 1, 0, TCPHDR_FIN | TCPHDR_ACK, MMB_CONN_TCP_FIN_WAIT, 1 },
	{ MMB_CONN_TCP_FIN_WAIT, 1, 1, TCPHDR_FIN | TCPHDR_ACK, MMB_CONN_TCP_LAST_ACK,
	  3 | MMB_FIN_LAST },
	{ MMB_CONN_TCP_FIN_WAIT, 2, 0, TCPHDR_FIN, MMB_CONN_TCP_LAST_ACK, 3 },
	{ MMB_CONN_TCP_CLOSE_WAIT, 1, 1, TCPHDR_FIN | TCPHDR_ACK, MMB_CONN_TCP_LAST_ACK,
	  3 | MMB_FIN_LAST },
	{ MMB_CONN_TCP_LAST_ACK, 3 | MMB_FIN_LAST, 0, TCPHDR_ACK, MMB_CONN_TCP_TIME_WAIT,
	  3 | MMB_FIN_LAST },
	{ MMB_CONN_TCP_LAST_ACK, 3 | MMB_FIN_LAST, 1, TCPHDR_ACK, MMB_CONN_TCP_LAST_ACK,
	  3 | MMB_FIN_LAST },
	{ MMB_CONN_TCP_LAST_ACK, 3, 1, TCPHDR_ACK, MMB_CONN_TCP_TIME_WAIT, 3 },
	/* the first FIN again, acking the second: the last ACK */
	{ MMB_CONN_TCP_LAST_ACK, 3 | MMB_FIN_LAST, 0, TCPHDR_FIN | TCPHDR_ACK,
	  MMB_CONN_TCP_TIME_WAIT, 3 | MMB_FIN_LAST },
	/* RST from anywhere; a new SYN after the end */
	{ MMB_CONN_TCP_ESTABLISHED, 0, 1, TCPHDR_RST, MMB_CONN_TCP_CLOSE, 0 },
	{ MMB_CONN_TCP_SYN_SENT, 0, 1, TCPHDR_RST | TCPHDR_ACK, MMB_CONN_TCP_CLOSE, 0 },
	{ MMB_CONN_TCP_TIME_WAIT, 3, 0, TCPHDR_SYN, MMB_CONN_TCP_SYN_SENT, 0 },
	{ MMB_CONN_TCP_TIME_WAIT, 3, 1, TCPHDR_SYN, MMB_CONN_TCP_TIME_WAIT, 3 },
	{ MMB_CONN_TCP_CLOSE, 0, 0, TCPHDR_SYN, MMB_CONN_TCP_SYN_SENT, 0 },
	{ MMB_CONN_TCP_CLOSE, 0, 0, TCPHDR_ACK, MMB_CONN_TCP_CLOSE, 0 },
	/* mixes that mean nothing move nothing */
	{ MMB_CONN_TCP_ESTABLISHED, 0, 0, TCPHDR_SYN | TCPHDR_FIN, MMB_CONN_TCP_ESTABLISHED, 0 },
	{ MMB_CONN_TCP_ESTABLISHED, 0, 0, TCPHDR_SYN | TCPHDR_RST, MMB_CONN_TCP_ESTABLISHED, 0 },
	{ MMB_CONN_TCP_ESTABLISHED, 0, 0, 0, MMB_CONN_TCP_ESTABLISHED, 0 },
};

static void conn_tcp_steps_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ct_steps); i++) {
		u8 fin = ct_steps[i].fin;
		u8 next = mmb_tcp_step(ct_steps[i].state, &fin, ct_steps[i].dir,
				       ct_steps[i].flags);

		KUNIT_EXPECT_EQ_MSG(test, next, ct_steps[i].next, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, fin, ct_steps[i].next_fin, "step %u", i);
	}
}

/* --- verdicts --------------------------------------------------------------- */

static void conn_reflexive_family(struct kunit *test, bool v6)
{
	struct ct *c = ct_new(test);
	struct mmbt_pkt_desc d;
	u8 icmp = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	u16 req = (v6 ? ICMPV6_ECHO_REQUEST : ICMP_ECHO) << 8;
	u16 rep = (v6 ? ICMPV6_ECHO_REPLY : ICMP_ECHOREPLY) << 8;

	ct_reflexive(c, v6);
	/* A client's TCP, UDP and ping, and their replies (each SYN acknowledged). */
	d = ct_pkt(v6, IPPROTO_TCP, 1, 40000, 200, 80, TCPHDR_SYN);
	d.seq = CT_ISN;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	d = ct_pkt(v6, IPPROTO_TCP, 200, 80, 1, 40000, TCPHDR_SYN | TCPHDR_ACK);
	d.seq = CT_ISN;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	d = ct_pkt(v6, IPPROTO_TCP, 1, 40000, 200, 80, TCPHDR_ACK);
	d.seq = CT_ISN + 1;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_state(c, &d), MMB_CONN_TCP_ESTABLISHED);
	d = ct_pkt(v6, IPPROTO_UDP, 1, 5000, 200, 53, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	d = ct_pkt(v6, IPPROTO_UDP, 200, 53, 1, 5000, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_state(c, &d), MMB_CONN_UDP_REPLIED);
	d = ct_pkt(v6, icmp, 1, req, 200, 0, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	d = ct_pkt(v6, icmp, 200, rep, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 3);
	/* The server opens nothing; another port of the client's is no reply. */
	d = ct_pkt(v6, IPPROTO_TCP, 200, 2000, 1, 22, TCPHDR_SYN);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 0);
	d = ct_pkt(v6, IPPROTO_UDP, 200, 53, 1, 5001, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 0);
	d = ct_pkt(v6, icmp, 200, req, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 0);
	/* An echo reply the client never asked for. */
	d = ct_pkt(v6, icmp, 201, rep, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 0);
	KUNIT_EXPECT_EQ(test, ct_count(c), 3);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_CREATED), 3);
}

/* The reflexive ACL: the clients' connections pass both ways, nothing else. */
static void conn_reflexive_test(struct kunit *test)
{
	conn_reflexive_family(test, false);
	conn_reflexive_family(test, true);
}

/*
 * A stateful drop drops its packets; a packet the verdict drops leaves no
 * connection behind (as nf_conntrack), so nothing starts; others pass.
 */
static void conn_stateful_drop_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmbt_pkt_desc d;

	ct_rule(c, true, MMB_TARGET_DROP, &m, 1);
	d = ct_pkt(false, IPPROTO_UDP, 1, 5000, 200, 53, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 0);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	d = ct_pkt(false, IPPROTO_UDP, 200, 54, 1, 5000, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
}

/* --- timeouts ----------------------------------------------------------------- */

/* Bring a connection into @state with packets; the packet of its orig tuple in @d. */
static void ct_reach(struct ct *c, int state, struct mmbt_pkt_desc *d)
{
	static const u8 tcp[][2] = {	/* flags, dir */
		{ TCPHDR_SYN, 0 }, { TCPHDR_SYN | TCPHDR_ACK, 1 }, { TCPHDR_ACK, 0 },
		{ TCPHDR_FIN | TCPHDR_ACK, 0 }, { TCPHDR_ACK, 1 }, { TCPHDR_FIN | TCPHDR_ACK, 1 },
		{ TCPHDR_ACK, 0 },
	};
	/*
	 * Each step's sequence number, from CT_ISN: the packet builder's
	 * acknowledgment is CT_ISN + 1 both ways, so each end's SYN is
	 * acknowledged, and every segment lies in its window.
	 */
	static const u32 seq[] = { 0, 0, 1, 1, 1, 1, 2 };
	static const int after[] = {	/* the state after each step */
		MMB_CONN_TCP_SYN_SENT, MMB_CONN_TCP_SYN_RECV, MMB_CONN_TCP_ESTABLISHED,
		MMB_CONN_TCP_FIN_WAIT, MMB_CONN_TCP_CLOSE_WAIT, MMB_CONN_TCP_LAST_ACK,
		MMB_CONN_TCP_TIME_WAIT,
	};
	struct mmbt_pkt_desc r;
	unsigned int i;

	if (state >= MMB_CONN_UDP_UNREPLIED) {
		u8 proto = state == MMB_CONN_ICMP ? IPPROTO_ICMP : IPPROTO_UDP;

		*d = ct_pkt(false, proto, 1, proto == IPPROTO_UDP ? 5000 : ICMP_ECHO << 8, 200,
			    proto == IPPROTO_UDP ? 53 : 0, 0);
		KUNIT_ASSERT_EQ(c->test, ct_send(c, d), 1);
		r = ct_pkt(false, proto, 200, proto == IPPROTO_UDP ? 53 : 0, 1,
			   proto == IPPROTO_UDP ? 5000 : 0, 0);
		if (state == MMB_CONN_UDP_REPLIED)
			KUNIT_ASSERT_EQ(c->test, ct_send(c, &r), 1);
		return;
	}
	*d = ct_pkt(false, IPPROTO_TCP, 1, 40000, 200, 80, TCPHDR_SYN);
	r = ct_pkt(false, IPPROTO_TCP, 200, 80, 1, 40000, 0);
	for (i = 0; i < ARRAY_SIZE(tcp); i++) {
		struct mmbt_pkt_desc *p = tcp[i][1] ? &r : d;

		if (state == MMB_CONN_TCP_SYN_SENT2 && i == 1) {
			p->tcp_flags = TCPHDR_SYN;
		} else if (state == MMB_CONN_TCP_CLOSE && i == 1) {
			/* the client's: the server's would have to acknowledge the SYN */
			p = d;
			p->tcp_flags = TCPHDR_RST;
		} else {
			p->tcp_flags = tcp[i][0];
		}
		p->seq = CT_ISN + seq[i];
		KUNIT_ASSERT_EQ(c->test, ct_send(c, p), 1);
		if (after[i] == state || (i == 1 && state >= MMB_CONN_TCP_CLOSE))
			break;
	}
	d->tcp_flags = TCPHDR_ACK;
}

/*
 * Each state keeps a connection for its own timeout, measured from its
 * last packet: alive a jiffy before, gone at it, counted as expired.
 */
static void conn_timeouts_test(struct kunit *test)
{
	int state;

	for (state = 0; state < __MMB_CONN_STATE_MAX; state++) {
		struct ct *c = ct_new(test);
		struct mmb_match_spec m = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
		struct mmbt_pkt_desc d;
		unsigned int i;

		for (i = 0; i < __MMB_CONN_STATE_MAX; i++)
			c->mc.timeouts[i] = (100 + 10 * i) * HZ;
		ct_rule(c, true, MMB_TARGET_ACCEPT, &m, 1);
		ct_reach(c, state, &d);
		KUNIT_ASSERT_EQ_MSG(test, ct_state(c, &d), state, "state %d", state);
		ct_wait(100 + 10 * state, -1);
		KUNIT_EXPECT_EQ_MSG(test, ct_state(c, &d), state, "state %d", state);
		mmb_conns_gc(&c->mc, 1000);
		KUNIT_EXPECT_EQ_MSG(test, ct_count(c), 1, "state %d", state);
		ct_wait(0, 1);
		mmb_conns_gc(&c->mc, 1000);
		KUNIT_EXPECT_EQ_MSG(test, ct_count(c), 0, "state %d", state);
		KUNIT_EXPECT_EQ_MSG(test, ct_stat(c, MMB_CSTAT_EXPIRED), 1, "state %d", state);
		KUNIT_EXPECT_EQ_MSG(test, ct_state(c, &d), -1, "state %d", state);
		kunit_release_action(test, ct_free, c);
	}
}

/* A packet refreshes the timeout; an expired connection is never used. */
static void conn_expired_unused_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmbt_pkt_desc d, r;

	ct_reflexive(c, false);
	d = ct_pkt(false, IPPROTO_UDP, 1, 5000, 200, 53, 0);
	r = ct_pkt(false, IPPROTO_UDP, 200, 53, 1, 5000, 0);
	KUNIT_ASSERT_EQ(test, ct_send(c, &d), 1);
	ct_wait(29, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &r), 1);	/* replied: 120 s from now */
	ct_wait(119, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &r), 1);
	ct_wait(120, 0);
	/* No GC ran: the lookup itself must see that it expired. */
	KUNIT_EXPECT_EQ(test, ct_send(c, &r), 0);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_EXPIRED), 1);
}

/* tcp-loose: on, a connection may start mid-stream; off, only with a SYN. */
static void conn_loose_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmbt_pkt_desc d = ct_pkt(false, IPPROTO_TCP, 1, 40000, 200, 80, TCPHDR_ACK);
	struct mmbt_pkt_desc r = ct_pkt(false, IPPROTO_TCP, 200, 80, 1, 40000, TCPHDR_ACK);

	ct_reflexive(c, false);
	c->mc.tcp_loose = false;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);	/* the stateful rule's own packet */
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &r), 0);
	d.tcp_flags = TCPHDR_RST;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	c->mc.tcp_loose = true;
	d.tcp_flags = TCPHDR_RST;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);		/* an RST starts nothing */
	d.tcp_flags = TCPHDR_ACK;
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_state(c, &d), MMB_CONN_TCP_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, ct_send(c, &r), 1);
}

/*
 * Assured once seen both ways and, TCP, established; it stays so while
 * the connection closes, but then it may be evicted (as nf_conntrack).
 */
static void conn_assured_test(struct kunit *test)
{
	static const struct {
		int state;
		int flags;	/* 1 assured, 2 evictable */
	} want[] = {
		{ MMB_CONN_TCP_SYN_SENT, 2 },	{ MMB_CONN_TCP_SYN_SENT2, 2 },
		{ MMB_CONN_TCP_SYN_RECV, 2 },	{ MMB_CONN_TCP_ESTABLISHED, 1 },
		{ MMB_CONN_TCP_FIN_WAIT, 3 },	{ MMB_CONN_TCP_CLOSE_WAIT, 3 },
		{ MMB_CONN_TCP_LAST_ACK, 3 },	{ MMB_CONN_TCP_TIME_WAIT, 3 },
		{ MMB_CONN_TCP_CLOSE, 2 },	{ MMB_CONN_UDP_UNREPLIED, 2 },
		{ MMB_CONN_UDP_REPLIED, 1 },	{ MMB_CONN_ICMP, 2 },
	};
	struct mmbt_pkt_desc d;
	unsigned int i;
	int flags;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct ct *c = ct_new(test);

		ct_reflexive(c, false);
		ct_reach(c, want[i].state, &d);
		flags = -1;
		KUNIT_ASSERT_EQ(test, ct_look(c, &d, &flags), want[i].state);
		KUNIT_EXPECT_EQ_MSG(test, flags, want[i].flags, "state %d", want[i].state);
	}
}

/*
 * A packet from an address and port to themselves (a spoofed "land"
 * packet) would be its own reply: it is judged by the rules alone and
 * starts nothing.
 */
static void conn_land_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmbt_pkt_desc d;
	unsigned int i;

	ct_reflexive(c, false);
	for (i = 0; i < 2; i++) {
		d = ct_pkt(false, i ? IPPROTO_UDP : IPPROTO_TCP, 1, 7000, 1, 7000, TCPHDR_SYN);
		KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);	/* the stateful rule's accept */
		KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	}
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_CREATED), 0);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_NOMEM), 0);
	/* Another port at the same address is tracked as usual. */
	d = ct_pkt(false, IPPROTO_UDP, 1, 7000, 1, 7001, 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 1);
}

/* --- limits ---------------------------------------------------------------------- */

/*
 * A full table of assured connections refuses new ones: the packet is
 * dropped and counted; a flow of unassured ones makes room by eviction.
 */
static void conn_full_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmbt_pkt_desc d, r;
	unsigned int i, evicted;

	ct_reflexive(c, false);
	c->mc.max = 50;
	for (i = 0; i < 50; i++) {
		d = ct_pkt(false, IPPROTO_UDP, 1, 5000 + i, 200, 53, 0);
		r = ct_pkt(false, IPPROTO_UDP, 200, 53, 1, 5000 + i, 0);
		KUNIT_ASSERT_EQ(test, ct_send(c, &d), 1);
		KUNIT_ASSERT_EQ(test, ct_send(c, &r), 1);
	}
	for (i = 0; i < 50; i++) {
		d = ct_pkt(false, IPPROTO_UDP, 2, 6000 + i, 200, 53, 0);
		KUNIT_EXPECT_EQ(test, ct_send(c, &d), -ENOSPC);
	}
	KUNIT_EXPECT_EQ(test, ct_count(c), 50);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_REFUSED), 50);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_EVICTED), 0);
	/* The established ones still work. */
	KUNIT_EXPECT_EQ(test, ct_send(c, &r), 1);

	mmb_conns_flush(&c->mc);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	for (i = 0; i < 400; i++) {
		d = ct_pkt(false, IPPROTO_UDP, 3, 7000 + i, 200, 53, 0);
		ct_send(c, &d);
		KUNIT_ASSERT_LE(test, ct_count(c), 50);
	}
	evicted = ct_stat(c, MMB_CSTAT_EVICTED);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_CREATED), 100 + evicted);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_REFUSED), 50 + 350 - evicted);
	KUNIT_EXPECT_GT(test, evicted, 0);
	KUNIT_EXPECT_EQ(test, ct_count(c), 50);
}

/* A connection is small: the target is 256 bytes. */
static void conn_size_test(struct kunit *test)
{
	kunit_info(test, "struct mmb_conn: %zu bytes, slab object %u bytes\n",
		   sizeof(struct mmb_conn), mmb_conn_size());
	KUNIT_EXPECT_LE(test, mmb_conn_size(), 256);
}

/* --- ICMP errors ------------------------------------------------------------------- */

/* An ICMP error of @type from host @from to @to, quoting @quoted (freed). */
static struct sk_buff *ct_icmp_error(struct ct *c, bool v6, u8 type, u8 from, u8 to,
				     struct sk_buff *quoted)
{
	struct mmbt_pkt_desc d = ct_pkt(v6, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, from, type << 8,
					to, 0, 0);
	unsigned int l3 = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(c->test, quoted);
	d.payload_len = quoted->len;
	skb = mmbt_pkt_build(c->dev, &d);
	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	memcpy(skb->data + l3 + 8, quoted->data, quoted->len);
	kfree_skb(quoted);
	return skb;
}

/* Judge an ICMP error of @type from @from to @to that quotes @quoted's packet. */
static int ct_error(struct ct *c, bool v6, u8 type, u8 from, u8 to,
		    const struct mmbt_pkt_desc *quoted, unsigned int cut, struct mmb_verdict *v)
{
	struct sk_buff *q = mmbt_pkt_build(c->dev, quoted);

	if (q && cut)
		skb_trim(q, cut);
	return ct_judge(c, ct_icmp_error(c, v6, type, from, to, q), v);
}

static void conn_related_family(struct kunit *test, bool v6)
{
	struct ct *c = ct_new(test);
	struct mmbt_pkt_desc d = ct_pkt(v6, IPPROTO_UDP, 1, 5000, 200, 33434, 0);
	struct mmbt_pkt_desc other = ct_pkt(v6, IPPROTO_UDP, 1, 5001, 200, 33434, 0);
	u8 unreach = v6 ? ICMPV6_DEST_UNREACH : ICMP_DEST_UNREACH;
	u8 exceeded = v6 ? ICMPV6_TIME_EXCEED : ICMP_TIME_EXCEEDED;
	u8 echo = v6 ? ICMPV6_ECHO_REQUEST : ICMP_ECHO;
	struct mmb_verdict v;

	ct_reflexive(c, v6);
	KUNIT_ASSERT_EQ(test, ct_send(c, &d), 1);
	/* From the server, and from a router on the way: both related. */
	KUNIT_EXPECT_EQ(test, ct_error(c, v6, unreach, 200, 1, &d, 0, &v), 1);
	KUNIT_EXPECT_TRUE(test, v.related);
	KUNIT_EXPECT_EQ(test, ct_error(c, v6, exceeded, 254, 1, &d, 0, &v), 1);
	KUNIT_EXPECT_TRUE(test, v.related);
	if (v6)
		KUNIT_EXPECT_EQ(test, ct_error(c, v6, ICMPV6_PKT_TOOBIG, 254, 1, &d, 0, &v), 1);
	/* About a packet of no connection: dropped by "all drop". */
	KUNIT_EXPECT_EQ(test, ct_error(c, v6, unreach, 200, 1, &other, 0, &v), 0);
	/* Sent to someone else than the quoted packet's sender. */
	KUNIT_EXPECT_EQ(test, ct_error(c, v6, unreach, 200, 2, &d, 0, &v), 0);
	/* An echo request is no error, whatever it carries. */
	KUNIT_EXPECT_EQ(test, ct_error(c, v6, echo, 200, 1, &d, 0, &v), 0);
	/* A quote cut before the ports. */
	KUNIT_EXPECT_EQ(test, ct_error(c, v6, unreach, 200, 1, &d, v6 ? 42 : 22, &v), 0);
	/* Errors change nothing in the connection. */
	KUNIT_EXPECT_EQ(test, ct_state(c, &d), MMB_CONN_UDP_UNREPLIED);
}

static void conn_related_test(struct kunit *test)
{
	conn_related_family(test, false);
	conn_related_family(test, true);
}

/* --- the end of rules ---------------------------------------------------------------- */

/* Commit a transaction of @c's rules that deletes @del (0: none); the rules it ended. */
static unsigned int ct_commit(struct ct *c, enum mmb_txn_how how, u32 del)
{
	struct mmb_txn txn;

	KUNIT_ASSERT_EQ(c->test, mmb_txn_begin(c->r, &txn, how), 0);
	if (del)
		KUNIT_ASSERT_EQ(c->test, mmb_txn_del(&txn, del), 0);
	mmb_txn_commit(&txn);
	return txn.ended;
}

/*
 * A transaction that keeps a stateful rule keeps its connections; one that
 * removes it ends them (the kick does at once, a lookup anyway).
 */
static void conn_rule_end_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmb_match_spec udp = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 53);
	struct mmb_match_spec tcp = mmbt_match(MMB_FIELD_TCP_DPORT, MMB_OP_EQ, 80);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc du = ct_pkt(false, IPPROTO_UDP, 1, 5000, 200, 53, 0);
	struct mmbt_pkt_desc ru = ct_pkt(false, IPPROTO_UDP, 200, 53, 1, 5000, 0);
	struct mmbt_pkt_desc dt = ct_pkt(false, IPPROTO_TCP, 1, 40000, 200, 80, TCPHDR_SYN);
	struct mmbt_pkt_desc rt = ct_pkt(false, IPPROTO_TCP, 200, 80, 1, 40000, TCPHDR_ACK);
	struct mmb_match_spec other = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 9);
	u32 hu = ct_rule(c, true, MMB_TARGET_ACCEPT, &udp, 1)->handle;
	u32 ht = ct_rule(c, true, MMB_TARGET_ACCEPT, &tcp, 1)->handle;

	/* A stateful rule that stays: lookups go on (none without one). */
	ct_rule(c, true, MMB_TARGET_ACCEPT, &other, 1);
	ct_rule(c, false, MMB_TARGET_DROP, &all, 1);
	KUNIT_ASSERT_EQ(test, ct_send(c, &du), 1);
	KUNIT_ASSERT_EQ(test, ct_send(c, &dt), 1);
	KUNIT_ASSERT_EQ(test, ct_count(c), 2);
	/* A batch that keeps both rules: the connections stay. */
	KUNIT_EXPECT_EQ(test, ct_commit(c, MMB_TXN_COPY, 0), 0);
	mmb_conns_kick(&c->mc);
	KUNIT_EXPECT_EQ(test, ct_count(c), 2);
	KUNIT_EXPECT_EQ(test, ct_send(c, &ru), 1);
	/* A del of the UDP rule: its connection ends, the TCP one stays. */
	KUNIT_EXPECT_EQ(test, ct_commit(c, MMB_TXN_INPLACE, hu), 1);
	mmb_conns_kick(&c->mc);
	KUNIT_EXPECT_EQ(test, ct_count(c), 1);
	KUNIT_EXPECT_EQ(test, ct_send(c, &ru), 0);
	KUNIT_EXPECT_EQ(test, ct_send(c, &rt), 1);
	/* A batch without the TCP rule; no kick: the lookup sees it. */
	KUNIT_EXPECT_EQ(test, ct_commit(c, MMB_TXN_COPY, ht), 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 1);
	KUNIT_EXPECT_EQ(test, ct_send(c, &rt), 0);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_ENDED), 2);
	/* A flush of the rules ends every connection. */
	ct_rule(c, true, MMB_TARGET_ACCEPT, &udp, 1);
	KUNIT_ASSERT_EQ(test, ct_send(c, &du), 1);
	KUNIT_EXPECT_EQ(test, ct_commit(c, MMB_TXN_EMPTY, 0), 2);
	mmb_conns_kick(&c->mc);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
}

/* --- races ------------------------------------------------------------------------------ */

/* Judge @d as a CPU would whose lookup missed the connection another CPU created. */
static int ct_send_missed(struct ct *c, const struct mmbt_pkt_desc *d)
{
	struct sk_buff *skb = mmbt_pkt_build(c->dev, d);
	const struct mmb_ruleset *rs;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	int ret;

	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(c->r);
	KUNIT_ASSERT_EQ(c->test, mmb_parse(skb, &pkt), 0);
	mmb_verdict_init(&v);
	mmb_classify_rules(rs, &pkt, skb, &v);
	ret = mmb_conn_verdict(&c->mc, &pkt, skb, &v);
	local_bh_enable();
	rcu_read_unlock();
	kfree_skb(skb);
	return ret;
}

/* Two CPUs create the same connection, in either direction: one remains. */
static void conn_race_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc d = ct_pkt(false, IPPROTO_UDP, 1, 5000, 200, 53, 0);
	struct mmbt_pkt_desc r = ct_pkt(false, IPPROTO_UDP, 200, 53, 1, 5000, 0);

	ct_rule(c, true, MMB_TARGET_ACCEPT, &all, 1);
	KUNIT_ASSERT_EQ(test, ct_send(c, &d), 1);
	KUNIT_EXPECT_EQ(test, ct_send_missed(c, &d), 0);	/* the same way */
	KUNIT_EXPECT_EQ(test, ct_send_missed(c, &r), 0);	/* the other way */
	KUNIT_EXPECT_EQ(test, ct_count(c), 1);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_CREATED), 1);
	/* The loser's packets counted in the winner's connection. */
	KUNIT_EXPECT_EQ(test, ct_state(c, &d), MMB_CONN_UDP_REPLIED);
	mmb_conns_flush(&c->mc);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
}

struct ct_thread {
	struct ct *c;
	struct completion done;
	unsigned int seed, sent;
	int errors;
};

#define CT_FLOWS	512
#define CT_ROUNDS	4

/* Open and use the same flows as the other threads, in its own order. */
static int ct_thread_fn(void *data)
{
	struct ct_thread *th = data;
	struct rnd_state rnd;
	unsigned int i, f;

	prandom_seed_state(&rnd, th->seed);
	for (i = 0; i < CT_FLOWS * CT_ROUNDS; i++) {
		struct mmbt_pkt_desc d;

		f = prandom_u32_state(&rnd) % CT_FLOWS;
		if (prandom_u32_state(&rnd) & 1)
			d = ct_pkt(false, IPPROTO_UDP, 1 + f % 50, 5000 + f, 200, 53, 0);
		else
			d = ct_pkt(false, IPPROTO_UDP, 200, 53, 1 + f % 50, 5000 + f, 0);
		if (ct_send(th->c, &d) != 1)
			th->errors++;
		th->sent++;
		if (!(i % 16))
			cond_resched();
		if (!(i % 256))
			mmb_conns_gc(&th->c->mc, 64);
	}
	complete(&th->done);
	return 0;
}

/*
 * Threads create, find and use the same flows at once, both ways, while
 * the GC walks the table: each flow ends up with one connection, every
 * packet of them passes.
 */
static void conn_concurrent_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct ct_thread th[4];
	unsigned int i;

	ct_rule(c, true, MMB_TARGET_ACCEPT, &all, 1);
	for (i = 0; i < ARRAY_SIZE(th); i++) {
		struct task_struct *task;

		th[i] = (struct ct_thread){ .c = c, .seed = 17 + i };
		init_completion(&th[i].done);
		task = kthread_run(ct_thread_fn, &th[i], "mmbt-conn/%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 0; i < ARRAY_SIZE(th); i++) {
		wait_for_completion(&th[i].done);
		KUNIT_EXPECT_EQ(test, th[i].errors, 0);
		KUNIT_EXPECT_EQ(test, th[i].sent, CT_FLOWS * CT_ROUNDS);
	}
	KUNIT_EXPECT_EQ(test, ct_count(c), CT_FLOWS);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_CREATED), CT_FLOWS);
}

/* The GC ends what expired, in runs as short as it is given, and nothing else. */
static void conn_gc_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	struct mmbt_pkt_desc d;
	unsigned int i;

	ct_rule(c, true, MMB_TARGET_ACCEPT, &all, 1);
	for (i = 0; i < 300; i++) {
		d = ct_pkt(false, IPPROTO_UDP, 1, 1000 + i, 200, 53, 0);
		KUNIT_ASSERT_EQ(test, ct_send(c, &d), 1);
		if (i == 99)
			ct_wait(10, 0);		/* the first 100 are older */
	}
	ct_wait(20, 0);				/* 30 s: the first 100 expire */
	/*
	 * A walk that stops and starts again while entries go may pass over
	 * some (rhashtable's walker); the next walk finds them.
	 */
	for (i = 0; i < 8 && ct_count(c) > 200; i++)
		mmb_conns_gc(&c->mc, 3);
	KUNIT_EXPECT_EQ(test, ct_count(c), 200);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_EXPIRED), 100);
	ct_wait(10, 0);
	for (i = 0; i < 8 && ct_count(c); i++)
		mmb_conns_gc(&c->mc, 1);
	KUNIT_EXPECT_EQ(test, ct_count(c), 0);
	KUNIT_EXPECT_EQ(test, ct_stat(c, MMB_CSTAT_EXPIRED), 300);
}

/* The most tuples of @t (n of them) in one of 65536 buckets, for @seed. */
static unsigned int ct_spread(struct kunit *test, const struct mmb_tuple *t, unsigned int n,
			      u32 seed)
{
	u16 *load = kunit_kcalloc(test, 65536, sizeof(*load), GFP_KERNEL);
	unsigned int i, most = 0;

	KUNIT_ASSERT_NOT_NULL(test, load);
	for (i = 0; i < n; i++)
		most = max_t(unsigned int, most, ++load[mmb_conn_hash(&t[i], seed) & 0xffff]);
	kunit_kfree(test, load);
	return most;
}

/*
 * Tuples an attacker would pick to collide (ports in sequence, addresses
 * alike but for their last bits, IPv6 ones a bit apart) fall in buckets as
 * random keys do: about 8 in the fullest of 65536 buckets for 65536 keys.
 */
static void conn_hash_keys_test(struct kunit *test)
{
	struct mmb_tuple *t = kunit_kcalloc(test, 65536, sizeof(*t), GFP_KERNEL);
	unsigned int i, same = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < 65536; i++) {
		t[i].family = 4;
		t[i].proto = IPPROTO_TCP;
		t[i].src.ip = htonl(0x0a000001);
		t[i].dst.ip = htonl(0x0a000101);
		t[i].sport = htons(i);
		t[i].dport = htons(80);
	}
	KUNIT_EXPECT_LE(test, ct_spread(test, t, 65536, 1), 16);
	for (i = 0; i < 65536; i++) {
		t[i].sport = htons(40000);
		t[i].src.ip = htonl(0x0a000000 | i);
	}
	KUNIT_EXPECT_LE(test, ct_spread(test, t, 65536, 1), 16);
	for (i = 0; i < 65536; i++) {
		t[i].family = 6;
		memset(&t[i].src, 0, sizeof(t[i].src));
		t[i].src.in6.s6_addr[0] = 0xfd;
		t[i].src.in6.s6_addr32[1 + i / 32 % 3] = htonl(BIT(i % 32));
		t[i].src.in6.s6_addr16[1] = htons(i / 96);
	}
	KUNIT_EXPECT_LE(test, ct_spread(test, t, 65536, 1), 16);
	/* Another table's seed puts a tuple elsewhere. */
	for (i = 0; i < 65536; i++)
		same += (mmb_conn_hash(&t[i], 1) & 0xffff) == (mmb_conn_hash(&t[i], 2) & 0xffff);
	KUNIT_EXPECT_LE(test, same, 16);
}

/* So do they in the table: no chain grows long. */
static void conn_hash_spread_test(struct kunit *test)
{
	struct ct *c = ct_new(test);
	struct mmb_match_spec all = mmbt_match(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	const struct bucket_table *tbl;
	unsigned int i, n, chain, longest = 0;
	struct mmbt_pkt_desc d;
	struct rhash_head *pos;

	ct_rule(c, true, MMB_TARGET_ACCEPT, &all, 1);
	c->mc.max = 1 << 20;
	mmbt_conn_cap(test, MMB_CONN_MAX_LIMIT);
	for (i = 0; i < 16384; i++) {
		d = ct_pkt(false, IPPROTO_UDP, 1, i & 0xff, 200, 53, 0);
		d.saddr[2] = i >> 8;		/* 10.0.x.1, 64 of them */
		KUNIT_ASSERT_EQ(test, ct_send(c, &d), 1);
	}
	/* Let a resize that is under way finish. */
	for (i = 0; i < 4; i++)
		flush_work(&c->mc.ht.run_work);
	rcu_read_lock();
	tbl = rht_dereference_rcu(c->mc.ht.tbl, &c->mc.ht);
	n = tbl->size;
	for (i = 0; i < n; i++) {
		chain = 0;
		rht_for_each_rcu(pos, tbl, i)
			chain++;
		longest = max(longest, chain);
	}
	rcu_read_unlock();
	kunit_info(test, "%u nodes in %u buckets, longest chain %u\n", 2 * 16384, n, longest);
	/* Random keys: about 9 at this load; rhashtable rehashes past 16. */
	KUNIT_EXPECT_LE(test, longest, 16);
	KUNIT_EXPECT_EQ(test, ct_count(c), 16384);
}

static struct kunit_case mmb_conn_cases[] = {
	KUNIT_CASE(conn_tcp_steps_test),
	KUNIT_CASE(conn_reflexive_test),
	KUNIT_CASE(conn_stateful_drop_test),
	KUNIT_CASE(conn_timeouts_test),
	KUNIT_CASE(conn_expired_unused_test),
	KUNIT_CASE(conn_loose_test),
	KUNIT_CASE(conn_assured_test),
	KUNIT_CASE(conn_land_test),
	KUNIT_CASE(conn_full_test),
	KUNIT_CASE(conn_size_test),
	KUNIT_CASE(conn_related_test),
	KUNIT_CASE(conn_rule_end_test),
	KUNIT_CASE(conn_race_test),
	KUNIT_CASE(conn_concurrent_test),
	KUNIT_CASE(conn_gc_test),
	KUNIT_CASE(conn_hash_keys_test),
	KUNIT_CASE(conn_hash_spread_test),
	{}
};

static struct kunit_suite mmb_conn_suite = {
	.name = "mmb-conn",
	.test_cases = mmb_conn_cases,
};

kunit_test_suites(&mmb_conn_suite);
