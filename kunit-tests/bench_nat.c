// SPDX-License-Identifier: GPL-2.0
/*
 * mmb NAT microbenchmark, run by scripts/bench (suite "bench-mmb-nat",
 * outside the test glob: it measures, it never fails on numbers).
 *
 * Established: 100k connections of one stateful rule, a plain accept or a
 * source NAT (mod ip-saddr), and real packets of them at random: TSC
 * cycles per packet of the datapath's steps (parse, connection lookup,
 * rules, the connection's verdict, the rewrite if any), each packet's
 * headers put back between rounds, outside the timing. The source NAT
 * twice: mapped as the packet arrives (its way out not enabled), and as
 * on a router, whose way out is enabled too: the arriving steps, then the
 * egress hook's (parse, lookup, the connection's verdict, the source's
 * rewrite) on the same packet, as mmb_judge() takes them both.
 *
 * Port picks: connections of clients to one server, each mapped to one
 * NAT address with a shuffled source port (1024-65535, the default),
 * created while the range fills: connections per second on one CPU in
 * each band of range use.
 */
#include <linux/prandom.h>
#include <linux/vmalloc.h>

#include "../kmod/conn.h"
#include "../kmod/nat.h"
#include "../kmod/rewrite.h"
#include "util.h"

#define BN_SKBS		65536	/* packets per round: more than the caches hold */
#define BN_HDR		64	/* bytes of each packet put back between rounds */
#define BN_CONNS	100000
#define BN_REPS		5	/* the best of: noise only ever adds time */
#define BN_PORTS	(65535 - 1024 + 1)

/* One contender: a ruleset and its connections. */
struct bn_set {
	struct mmb_rules *r;
	struct mmb_conns mc;
	bool leave;		/* its packets leave by an enabled device too */
};

#define BN_SETS		3

struct bn {
	struct kunit *test;
	struct net_device *dev;
	struct bn_set set[BN_SETS];
	struct sk_buff **skb;		/* BN_SKBS packets */
	u8 (*hdr)[BN_HDR];		/* and their headers as built */
	struct rnd_state rs;
};

static const u8 bn_nat4[4] = { 192, 0, 2, 1 };

/* Flow @i: a client of 10.0.0.0/8 to a server (or to 198.51.100.53:53 if @one). */
static void bn_flow(struct mmbt_pkt_desc *d, u32 i, bool one)
{
	struct rnd_state rs;

	prandom_seed_state(&rs, i + 1);
	put_unaligned_be32(0x0a000000 | (prandom_u32_state(&rs) & 0xffffff), d->saddr);
	put_unaligned_be32(one ? 0xc6336435 : prandom_u32_state(&rs) | 0x80000000, d->daddr);
	d->sport = prandom_u32_state(&rs) | 1024;
	d->dport = one ? 53 : prandom_u32_state(&rs);
}

static struct sk_buff *bn_build(struct bn *b, u32 i, bool one)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	struct sk_buff *skb;

	bn_flow(&d, i, one);
	skb = mmbt_pkt_build(b->dev, &d);
	KUNIT_ASSERT_NOT_NULL(b->test, skb);
	return skb;
}

/* mmb_hook_out()'s steps on @skb, which mmb saw arrive; 1 if it passes. */
static int bn_leave(struct bn_set *c, const struct mmb_ruleset *rs, struct sk_buff *skb)
{
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	if (mmb_parse(skb, &pkt))
		return 0;
	mmb_verdict_init(&v);
	mmb_img_dev(&pkt, 0, true);
	v.out = true;
	v.outsf = mmb_ruleset_outsf(rs);
	mmb_conn_lookup(&c->mc, &pkt, skb, &v);
	v.seen = !!v.conn;	/* the hook asks the device it came in on */
	if (mmb_ruleset_out(rs))
		mmb_classify_rules(rs, &pkt, skb, &v);
	if ((v.conn || v.nsf || v.outsf) && mmb_conn_verdict(&c->mc, &pkt, skb, &v))
		return 0;
	if (v.drop && !v.accept)
		return 0;
	if (mmb_conn_rewrites(v.conn))
		v.manip = mmb_nat_manip(v.conn, v.dir, v.related, true, v.seen);
	if ((v.nrw || (mmb_conn_rewrites(v.conn) && v.manip)) && mmb_rewrite(skb, &pkt, &v))
		return 0;
	return 1;
}

/* mmb_hook()'s steps on @skb, rewrite included, then the way out's; 1 if it passes. */
static int bn_path(struct bn_set *c, const struct mmb_ruleset *rs, struct sk_buff *skb)
{
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	if (mmb_parse(skb, &pkt))
		return 0;
	mmb_verdict_init(&v);
	mmb_conn_lookup(&c->mc, &pkt, skb, &v);
	mmb_classify_rules(rs, &pkt, skb, &v);
	if ((v.conn || v.nsf) && mmb_conn_verdict(&c->mc, &pkt, skb, &v))
		return 0;
	if (v.drop && !v.accept)
		return 0;
	if (!c->leave) {
		if ((v.nrw || mmb_conn_rewrites(v.conn)) && mmb_rewrite(skb, &pkt, &v))
			return 0;
		return 1;
	}
	/* Its source is mapped as it leaves, as mmb_conn_snat_where() finds on a router. */
	if (v.conn && !test_bit(MMB_CONN_SNAT_ORIG, &v.conn->status))
		set_bit(MMB_CONN_SNAT_ORIG, &v.conn->status);
	if (mmb_conn_rewrites(v.conn))
		v.manip = mmb_nat_manip(v.conn, v.dir, v.related, false, false);
	if ((v.nrw || (mmb_conn_rewrites(v.conn) && v.manip)) && mmb_rewrite(skb, &pkt, &v))
		return 0;
	return bn_leave(c, rs, skb);
}

/* add-stateful ip-saddr 10.0.0.0/8 TARGETS, into @c */
static void bn_setup(struct bn *b, struct bn_set *c, const struct mmbt_target *t,
		     unsigned int nt)
{
	struct mmb_match_spec m = { .field = MMB_FIELD_IP_SADDR, .plen = 8, .vlen = 4 };

	m.value[0] = 10;
	c->r = mmbt_rules_new(b->test);
	mmbt_rule_targets(b->test, c->r, true, &m, 1, t, nt);
	KUNIT_ASSERT_EQ(b->test, mmb_conns_init(&c->mc, &init_net), 0);
	c->mc.max = MMB_CONN_MAX_LIMIT;
	c->mc.rpf = false;	/* one device, no routes */
	mmbt_conn_cap(b->test, 2 * MMB_CONN_MAX_LIMIT);
	/* Nothing expires while it runs. */
	c->mc.timeouts[MMB_CONN_UDP_UNREPLIED] = 3600 * HZ;
	c->mc.timeouts[MMB_CONN_UDP_REPLIED] = 3600 * HZ;
}

static void bn_teardown(struct bn *b, struct bn_set *c)
{
	mmb_conns_exit(&c->mc);
	mmbt_rules_done(b->test, c->r);
}

/* The packets of flows @first + 0 .. @k - 1, or of random ones below @n; saved. */
static void bn_packets(struct bn *b, u32 first, u32 k, u32 n, bool one)
{
	u32 i;

	for (i = 0; i < k; i++) {
		kfree_skb(b->skb[i]);
		b->skb[i] = bn_build(b, n ? prandom_u32_state(&b->rs) % n : first + i, one);
		memcpy(b->hdr[i], b->skb[i]->data, BN_HDR);
	}
}

/* The first @k packets as built. */
static void bn_restore(struct bn *b, u32 k)
{
	u32 i;

	for (i = 0; i < k; i++)
		memcpy(b->skb[i]->data, b->hdr[i], BN_HDR);
}

/* The datapath on the first @k packets: TSC cycles, and *@passed. */
static u64 bn_run(struct bn_set *c, struct sk_buff **skb, u32 k, unsigned int *passed)
{
	const struct mmb_ruleset *rs;
	u64 c0;
	u32 i;

	rcu_read_lock();
	local_bh_disable();
	rs = mmb_rules_get(c->r);
	c0 = mmbt_tsc();
	for (i = 0; i < k; i++)
		*passed += bn_path(c, rs, skb[i]);
	c0 = mmbt_tsc() - c0;
	local_bh_enable();
	rcu_read_unlock();
	return c0;
}

/*
 * Connections of flows @from to @to - 1 made in @c; the nanoseconds it
 * took (packets built outside the timing, a batch at a time), *@passed of
 * them passed.
 */
static u64 bn_create(struct bn *b, struct bn_set *c, u32 from, u32 to, bool one,
		     unsigned int *passed)
{
	u64 ns = 0, t0;
	u32 k;

	*passed = 0;
	for (; from < to; from += BN_SKBS) {
		k = min_t(u32, BN_SKBS, to - from);
		bn_packets(b, from, k, 0, one);
		t0 = ktime_get_ns();
		bn_run(c, b->skb, k, passed);
		ns += ktime_get_ns() - t0;
		cond_resched();		/* rhashtable grows in a worker */
	}
	flush_work(&c->mc.ht.run_work);
	return ns;
}

static u64 bn_rate(u32 n, u64 ns)
{
	return div64_u64((u64)n * NSEC_PER_SEC, max(ns, 1ULL));
}

static struct bn *bn_new(struct kunit *test)
{
	struct bn *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->test = test;
	b->dev = mmbt_netdev_create(test);
	b->skb = kunit_kcalloc(test, BN_SKBS, sizeof(*b->skb), GFP_KERNEL);
	b->hdr = kunit_kcalloc(test, BN_SKBS, sizeof(*b->hdr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->skb);
	KUNIT_ASSERT_NOT_NULL(test, b->hdr);
	prandom_seed_state(&b->rs, 7);
	return b;
}

static void bn_free_skbs(struct bn *b)
{
	unsigned int i;

	for (i = 0; i < BN_SKBS; i++) {
		kfree_skb(b->skb[i]);
		b->skb[i] = NULL;
	}
}

/*
 * Both tables live at once, their rounds in turn, on the same packets: the
 * host's speed and the caches' state weigh on both alike.
 */
static void bench_nat_established_test(struct kunit *test)
{
	static const char * const names[BN_SETS] = {
		"plain accept", "source NAT", "source NAT as it leaves"
	};
	struct mmbt_target t[BN_SETS] = {
		{ .type = MMB_TARGET_ACCEPT },
		{ .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 },
		{ .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 },
	};
	struct bn *b = bn_new(test);
	u64 best[BN_SETS] = { U64_MAX, U64_MAX, U64_MAX }, ns[BN_SETS];
	unsigned int k, r, passed[BN_SETS];

	memcpy(t[1].value, bn_nat4, 4);
	memcpy(t[2].value, bn_nat4, 4);
	b->set[2].leave = true;
	for (k = 0; k < BN_SETS; k++)
		bn_setup(b, &b->set[k], &t[k], 1);
	for (k = 0; k < BN_SETS; k++)
		ns[k] = bn_create(b, &b->set[k], 0, BN_CONNS, false, &passed[k]);
	for (k = 0; k < BN_SETS; k++)
		kunit_info(test, "bench: nat: %s: %u connections made: %llu per second, %u passed\n",
			   names[k], BN_CONNS, bn_rate(BN_CONNS, ns[k]), passed[k]);
	bn_packets(b, 0, BN_SKBS, BN_CONNS, false);
	for (r = 0; r < BN_REPS; r++) {
		for (k = 0; k < BN_SETS; k++) {
			bn_restore(b, BN_SKBS);
			passed[k] = 0;
			best[k] = min(best[k], bn_run(&b->set[k], b->skb, BN_SKBS, &passed[k]));
		}
	}
	for (k = 0; k < BN_SETS; k++) {
		best[k] /= BN_SKBS;
		kunit_info(test, "bench: nat: %s: established at %u connections: %llu cycles per packet, whole path | %u of %u passed | %u live\n",
			   names[k], BN_CONNS, best[k], passed[k], BN_SKBS,
			   atomic_read(&b->set[k].mc.count));
	}
	kunit_info(test, "bench: nat: established NAT / plain, whole path: %llu.%02llu\n",
		   best[1] / max(best[0], 1ULL), best[1] * 100 / max(best[0], 1ULL) % 100);
	kunit_info(test, "bench: nat: established NAT as it leaves / plain, both hooks: %llu.%02llu\n",
		   best[2] / max(best[0], 1ULL), best[2] * 100 / max(best[0], 1ULL) % 100);
	bn_free_skbs(b);
	for (k = 0; k < BN_SETS; k++)
		bn_teardown(b, &b->set[k]);
}

static void bench_nat_ports_test(struct kunit *test)
{
	/* Bands of the port range's use, in percent. */
	static const unsigned int bands[] = { 0, 50, 90, 95, 99 };
	struct mmbt_target t[2] = {
		{ .type = MMB_TARGET_MOD, .field = MMB_FIELD_IP_SADDR, .vlen = 4 },
		{ .type = MMB_TARGET_SHUFFLE, .field = MMB_FIELD_UDP_SPORT },
	};
	struct bn *b = bn_new(test);
	struct bn_set *c = &b->set[0];
	u64 stats[MMB_CSTAT_MAX], ns;
	unsigned int k, passed;
	u32 from, to;

	memcpy(t[0].value, bn_nat4, 4);
	bn_setup(b, c, t, 2);
	for (k = 1; k < ARRAY_SIZE(bands); k++) {
		from = BN_PORTS * bands[k - 1] / 100;
		to = BN_PORTS * bands[k] / 100;
		ns = bn_create(b, c, from, to, true, &passed);
		kunit_info(test, "bench: nat: port picks from %u%% to %u%% of %u ports used: %llu connections per second, %llu ns each | %u of %u passed\n",
			   bands[k - 1], bands[k], BN_PORTS, bn_rate(to - from, ns),
			   div64_u64(ns, to - from), passed, to - from);
	}
	mmb_conns_stats(&c->mc, stats);
	kunit_info(test, "bench: nat: %u live, %llu nat-full\n", atomic_read(&c->mc.count),
		   stats[MMB_CSTAT_NAT_FULL]);
	bn_free_skbs(b);
	bn_teardown(b, c);
}

/*
 * A packet's source mapped (address and port) and mapped back, @n times,
 * field by field (mmb_rewrite_field(), as before mmb_rewrite_ends()) or in
 * one step; the cycles it took.
 */
static u64 bn_rewrite_loop(struct sk_buff *skb, const struct mmb_pkt *pkt, bool v6,
			   bool one, unsigned int n)
{
	static const u8 nat6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	const unsigned int alen = v6 ? 16 : 4, so = v6 ? 8 : 12;
	__be16 ports[2] = { get_unaligned((__be16 *)(skb->data + pkt->l4off)), htons(40000) };
	u8 addr[2][16];
	unsigned int i, k;
	u64 c0;

	memcpy(addr[0], skb->data + so, alen);
	memcpy(addr[1], v6 ? nat6 : bn_nat4, alen);
	local_bh_disable();
	c0 = mmbt_tsc();
	for (i = 0; i < n; i++) {
		k = !(i & 1);
		if (one) {
			mmb_rewrite_ends(skb, pkt, MMB_MANIP_SRC, addr[k], ports[k], NULL, 0);
			continue;
		}
		mmb_rewrite_field(skb, pkt, v6 ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP_SADDR,
				  addr[k], alen, alen * 8);
		mmb_rewrite_field(skb, pkt, MMB_FIELD_UDP_SPORT, (const u8 *)&ports[k], 2, 16);
	}
	c0 = mmbt_tsc() - c0;
	local_bh_enable();
	return c0;
}

/*
 * The rewrite of a source NAT alone, a hot packet's address and port and
 * their checksums, UDP over IPv4 and IPv6: field by field against one step.
 */
static void bench_nat_rewrite_test(struct kunit *test)
{
	struct net_device *dev = mmbt_netdev_create(test);
	unsigned int fam, r, one;

	for (fam = 0; fam < 2; fam++) {
		struct mmbt_pkt_desc d = {
			.v6 = fam, .proto = IPPROTO_UDP, .ttl = 64, .sport = 1000, .dport = 53,
			.saddr = { 10, 1, 0, 1 }, .daddr = { 10, 9, 0, 1 }, .payload_len = 18,
		};
		u64 best[2] = { U64_MAX, U64_MAX };
		struct sk_buff *skb;
		struct mmb_pkt pkt;

		if (fam) {
			d.saddr[0] = 0xfd;
			d.daddr[0] = 0xfd;
		}
		skb = mmbt_pkt_build(dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
		for (r = 0; r < 15; r++) {
			for (one = 0; one < 2; one++) {
				u64 c = bn_rewrite_loop(skb, &pkt, fam, one, 4096);

				best[one] = min(best[one], c);
			}
		}
		/* Mapped back as often as mapped: as built, checksums valid. */
		KUNIT_EXPECT_TRUE(test, mmbt_csums_ok(skb, fam, fam ? 40 : 20, IPPROTO_UDP));
		kfree_skb(skb);
		kunit_info(test, "bench: nat: rewrite of a source, UDP/IPv%d: field by field %llu cycles, one step %llu\n",
			   fam ? 6 : 4, best[0] / 4096, best[1] / 4096);
	}
	mmbt_netdev_destroy(dev);
}

static struct kunit_case mmb_bench_nat_cases[] = {
	KUNIT_CASE(bench_nat_established_test),
	KUNIT_CASE(bench_nat_ports_test),
	KUNIT_CASE(bench_nat_rewrite_test),
	{}
};

static struct kunit_suite mmb_bench_nat_suite = {
	.name = "bench-mmb-nat",
	.test_cases = mmb_bench_nat_cases,
};

kunit_test_suites(&mmb_bench_nat_suite);
