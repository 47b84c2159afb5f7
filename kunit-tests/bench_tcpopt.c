// SPDX-License-Identifier: GPL-2.0
/*
 * mmb TCP option microbenchmark, run by scripts/bench (suite
 * "bench-mmb-tcpopt", outside the test glob: it measures, it never fails
 * on numbers). TSC cycles per packet, best of the rounds:
 *
 *  - classifying TCP SYNs against 100 "tcp-opt-mss N drop" rules
 *    (N = 1280..1379), packets that match none and packets that each
 *    match one, parsing included;
 *  - the rewrite step on 1500-byte data segments (NOP, NOP, timestamp):
 *    an in-place mod for comparison, strip tcp-opt-timestamp, and add
 *    tcp-opt 253; each round's packets built anew outside the timing.
 */
#include <linux/prandom.h>
#include <net/tcp.h>

#include "../kmod/rewrite.h"
#include "../kmod/ruleset.h"
#include "util.h"

#define BT_PKTS		1024
#define BT_ROUNDS	200
#define BT_REPS		16

static const u8 bt_syn[20] = {
	2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 1, 3, 3, 7,
};

static const u8 bt_data[12] = { 1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8 };

static struct mmbt_pkt_desc bt_desc(u32 i, const u8 *opts, unsigned int nopts,
				    unsigned int payload, u8 flags)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_TCP, .ttl = 64, .sport = 1024 + i, .dport = 80,
		.tcp_flags = flags, .seq = i, .tcp_opts = opts, .tcp_opt_len = nopts,
		.payload_len = payload,
	};

	put_unaligned_be32(0x0a000000 | i, d.saddr);
	put_unaligned_be32(0xc0000201, d.daddr);
	return d;
}

static void bench_tcpopt_classify_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct sk_buff **skb = kunit_kcalloc(test, BT_PKTS, sizeof(*skb), GFP_KERNEL);
	u8 (*opts)[20] = kunit_kcalloc(test, BT_PKTS, 20, GFP_KERNEL);
	const struct mmb_ruleset *rs;
	unsigned int i, k, hit, matched;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	u64 c0, best;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_NOT_NULL(test, opts);
	for (i = 0; i < 100; i++) {
		struct mmb_match_spec m = mmbt_match(MMB_FIELD_TCP_OPT_MSS, MMB_OP_EQ, 1280 + i);

		mmbt_rule_add(test, r, false, MMB_TARGET_DROP, &m, 1);
	}
	for (hit = 0; hit < 2; hit++) {
		for (i = 0; i < BT_PKTS; i++) {
			struct mmbt_pkt_desc d;
			u16 mss = hit ? 1280 + i % 100 : 1460 + i % 100;

			memcpy(opts[i], bt_syn, 20);
			put_unaligned_be16(mss, &opts[i][2]);
			d = bt_desc(i, opts[i], 20, 0, TCPHDR_SYN);
			kfree_skb(skb[i]);
			skb[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
			KUNIT_ASSERT_NOT_NULL(test, skb[i]);
		}
		best = U64_MAX;
		matched = 0;
		rcu_read_lock();
		local_bh_disable();
		rs = mmb_rules_get(r);
		for (k = 0; k < BT_ROUNDS; k++) {
			c0 = mmbt_tsc();
			for (i = 0; i < BT_PKTS; i++) {
				mmb_parse(skb[i], &pkt);
				mmb_verdict_init(&v);
				mmb_classify_rules(rs, &pkt, skb[i], &v);
				matched += v.drop;
			}
			best = min(best, mmbt_tsc() - c0);
		}
		local_bh_enable();
		rcu_read_unlock();
		kunit_info(test, "bench: tcpopt: 100 tcp-opt-mss rules, SYNs %s: parse+classify %llu cycles per packet | matched %u of %u\n",
			   hit ? "each matching one" : "matching none", best / BT_PKTS,
			   matched / BT_ROUNDS, BT_PKTS);
	}
	for (i = 0; i < BT_PKTS; i++)
		kfree_skb(skb[i]);
	mmbt_rules_done(test, r);
}

/* A rule of "all" with one target. */
static struct mmb_rule *bt_rule(struct kunit *test, const struct mmbt_target *t)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	const struct mmb_match_spec all = { .field = MMB_FIELD_ALL };

	return mmbt_rule_targets(test, r, false, &all, 1, t, 1);
}

static void bench_tcpopt_rewrite_test(struct kunit *test)
{
	static const char * const names[] = {
		"parse only", "mod tcp-win (in place)", "strip tcp-opt-timestamp",
		"add tcp-opt 253 0x01020304",
	};
	const struct mmbt_target t[] = {
		{ .type = MMB_TARGET_ACCEPT },
		{ .type = MMB_TARGET_MOD, .field = MMB_FIELD_TCP_WIN, .vlen = 2,
		  .value = { 1, 2 } },
		{ .type = MMB_TARGET_STRIP, .field = MMB_FIELD_TCP_OPT_TIMESTAMP },
		{ .type = MMB_TARGET_ADD, .field = MMB_FIELD_TCP_OPT, .kind = 253, .vlen = 4,
		  .value = { 1, 2, 3, 4 } },
	};
	struct sk_buff **skb = kunit_kcalloc(test, BT_PKTS, sizeof(*skb), GFP_KERNEL);
	struct mmb_rule *rule;
	unsigned int i, j, k, ok;
	struct mmb_verdict v;
	struct mmb_pkt pkt;
	u64 c0, best;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	for (j = 0; j < ARRAY_SIZE(t); j++) {
		rule = bt_rule(test, &t[j]);
		best = U64_MAX;
		ok = 0;
		for (k = 0; k < BT_REPS; k++) {
			for (i = 0; i < BT_PKTS; i++) {
				struct mmbt_pkt_desc d = bt_desc(i, bt_data, 12, 1448, TCPHDR_ACK);

				skb[i] = mmbt_pkt_build(init_net.loopback_dev, &d);
				KUNIT_ASSERT_NOT_NULL(test, skb[i]);
			}
			local_bh_disable();
			c0 = mmbt_tsc();
			for (i = 0; i < BT_PKTS; i++) {
				mmb_parse(skb[i], &pkt);
				if (j) {
					mmb_verdict_init(&v);
					v.rw[v.nrw++] = rule;
					ok += !mmb_rewrite(skb[i], &pkt, &v);
				}
			}
			best = min(best, mmbt_tsc() - c0);
			local_bh_enable();
			for (i = 0; i < BT_PKTS; i++)
				kfree_skb(skb[i]);
			cond_resched();
		}
		kunit_info(test, "bench: tcpopt: 1500-byte segments, %s: %llu cycles per packet | %u rewritten\n",
			   names[j], best / BT_PKTS, ok / BT_REPS);
	}
}

static struct kunit_case mmb_bench_tcpopt_cases[] = {
	KUNIT_CASE(bench_tcpopt_classify_test),
	KUNIT_CASE(bench_tcpopt_rewrite_test),
	{}
};

static struct kunit_suite mmb_bench_tcpopt_suite = {
	.name = "bench-mmb-tcpopt",
	.test_cases = mmb_bench_tcpopt_cases,
};

kunit_test_suites(&mmb_bench_tcpopt_suite);
