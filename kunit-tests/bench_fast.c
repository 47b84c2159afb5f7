// SPDX-License-Identifier: GPL-2.0
/*
 * mmb fast path microbenchmark, run by scripts/bench (suite
 * "bench-mmb-fast", outside the test glob: it measures, it never fails on
 * numbers). The perf rows' router (docs/performance.md, "The fast path
 * against nft's flowtable") in the kernel itself: two devices enabled in
 * the initial namespace, lan (10.0.0.0/8) and wan (203.0.113.0/24, next
 * hop a permanent neighbour), "add-stateful ip-saddr 10.0.0.0/8 accept
 * offload" and "add all drop"; 1k and then 100k UDP flows from lan, each
 * answered once from wan, so that each is offloaded, and its route cached
 * by a first packet. Then packets of random flows, built before the clock
 * starts (their heads with room for the link header, as a driver leaves
 * them), each given to mmb_hook() as the device's rx_handler: TSC cycles
 * per packet from the hook to the output device's transmit (which frees
 * it), the best of rounds.
 */
#include <linux/etherdevice.h>
#include <linux/prandom.h>
#include <linux/rtnetlink.h>
#include <linux/vmalloc.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "util.h"

#define BF_BATCH	4096	/* packets built, then timed */
#define BF_PKTS		65536	/* packets per round */
#define BF_REPS		5	/* rounds: the best of, noise only ever adds time */

struct bf {
	struct kunit *test;
	struct mmb_net *mn;
	struct net_device *lan, *wan;
	struct sk_buff **skb;	/* BF_BATCH */
	struct rnd_state rs;
	u32 max, timeout;
	bool rpf;
};

static const u8 bf_server[4] = { 203, 0, 113, 7 };
static const u8 bf_lan_net[4] = { 10 };
static const u8 bf_wan_net[4] = { 203, 0, 113 };
static const u8 bf_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0x71, 0x07 };

/* Flow @i: a client of 10.0.0.0/8 to the server's port 53 (or its answer). */
static struct mmbt_pkt_desc bf_pkt(u32 i, bool reply)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .payload_len = 18 };
	u8 client[4] = { 10, i >> 16, i >> 8, i };
	u16 port = 1024 + i % 50000;

	memcpy(reply ? d.daddr : d.saddr, client, 4);
	memcpy(reply ? d.saddr : d.daddr, bf_server, 4);
	d.sport = reply ? 53 : port;
	d.dport = reply ? port : 53;
	return d;
}

static struct sk_buff *bf_skb(struct bf *b, u32 i, bool reply)
{
	struct mmbt_pkt_desc d = bf_pkt(i, reply);
	struct sk_buff *skb = mmbt_pkt_build(reply ? b->wan : b->lan, &d);

	KUNIT_ASSERT_NOT_NULL(b->test, skb);
	KUNIT_ASSERT_EQ(b->test, skb_cow_head(skb, 64), 0);
	return skb;
}

/* @skb through the rx_handler: true if mmb consumed it (sent on, or dropped). */
static bool bf_hook(struct sk_buff *skb)
{
	rx_handler_result_t res;

	rcu_read_lock();
	local_bh_disable();
	res = mmb_hook(&skb);
	local_bh_enable();
	rcu_read_unlock();
	if (res == RX_HANDLER_CONSUMED)
		return true;
	kfree_skb(skb);
	return false;
}

static void bf_flush(struct bf *b)
{
	struct mmb_txn txn;

	if (!mmb_txn_begin(&b->mn->rules, &txn, MMB_TXN_EMPTY))
		mmb_txn_commit(&txn);
	mmb_conns_flush(&b->mn->conns);
}

static void bf_free(void *data)
{
	struct bf *b = data;

	rtnl_lock();
	mmb_dev_disable(b->lan, NULL);
	mmb_dev_disable(b->wan, NULL);
	rtnl_unlock();
	bf_flush(b);
	b->mn->conns.max = b->max;
	b->mn->conns.rpf = b->rpf;
	b->mn->conns.timeouts[MMB_CONN_UDP_REPLIED] = b->timeout;
	rcu_barrier();
	mmbt_netdev_destroy(b->lan);
	mmbt_netdev_destroy(b->wan);
}

/* add-stateful ip-saddr 10.0.0.0/8 accept offload; add all drop */
static void bf_rules(struct bf *b)
{
	struct mmb_match_spec m = { .field = MMB_FIELD_IP_SADDR, .plen = 8, .vlen = 4 };
	const struct mmb_match_spec all = { .field = MMB_FIELD_ALL };

	m.value[0] = 10;
	mmbt_rule_add_accept(b->test, &b->mn->rules, &m, 1, true);
	mmbt_rule_add(b->test, &b->mn->rules, false, MMB_TARGET_DROP, &all, 1);
}

static struct bf *bf_new(struct kunit *test)
{
	struct bf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->test = test;
	b->skb = kunit_kcalloc(test, BF_BATCH, sizeof(*b->skb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->skb);
	prandom_seed_state(&b->rs, 7);
	b->mn = mmb_pernet(&init_net);
	b->lan = mmbt_netdev_create_up(test);
	b->wan = mmbt_netdev_create_up(test);
	b->max = b->mn->conns.max;
	b->rpf = b->mn->conns.rpf;
	b->timeout = b->mn->conns.timeouts[MMB_CONN_UDP_REPLIED];
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, bf_free, b), 0);
	mmbt_route(test, &init_net, b->lan, false, bf_lan_net, 8, RTN_UNICAST, false);
	mmbt_route(test, &init_net, b->wan, false, bf_wan_net, 24, RTN_UNICAST, false);
	mmbt_forwarding(b->lan, true, false);
	mmbt_forwarding(b->wan, true, false);
	mmbt_neigh(test, b->wan, false, bf_server, bf_mac);
	b->mn->conns.max = MMB_CONN_MAX_LIMIT;
	b->mn->conns.rpf = false;	/* replies come back on wan; no check asked */
	mmbt_conn_cap(test, 2 * MMB_CONN_MAX_LIMIT);
	/* Nothing expires while it runs. */
	b->mn->conns.timeouts[MMB_CONN_UDP_REPLIED] = 3600 * HZ;
	bf_flush(b);
	bf_rules(b);
	rtnl_lock();
	err = mmb_dev_enable(b->lan, NULL);
	if (!err)
		err = mmb_dev_enable(b->wan, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	return b;
}

/* Flows @from to @to - 1: started, answered, their route cached; how many went fast. */
static u32 bf_flows(struct bf *b, u32 from, u32 to)
{
	u32 i, fast = 0;

	for (i = from; i < to; i++) {
		bf_hook(bf_skb(b, i, false));
		bf_hook(bf_skb(b, i, true));
		fast += bf_hook(bf_skb(b, i, false));
		if (!(i % 1024))
			cond_resched();
	}
	return fast;
}

/*
 * BF_PKTS packets of random flows below @n, BF_REPS times: the fewest
 * cycles per packet of a round, and *@fast of its packets mmb consumed.
 */
static u64 bf_measure(struct bf *b, u32 n, u32 *fast)
{
	u64 best = U64_MAX, cycles, c0;
	unsigned int k, i, j;
	u32 done;

	for (k = 0; k < BF_REPS; k++) {
		cycles = 0;
		done = 0;
		for (i = 0; i < BF_PKTS; i += BF_BATCH) {
			for (j = 0; j < BF_BATCH; j++)
				b->skb[j] = bf_skb(b, prandom_u32_state(&b->rs) % n, false);
			rcu_read_lock();
			local_bh_disable();
			c0 = mmbt_tsc();
			for (j = 0; j < BF_BATCH; j++) {
				if (mmb_hook(&b->skb[j]) == RX_HANDLER_CONSUMED) {
					b->skb[j] = NULL;
					done++;
				}
			}
			cycles += mmbt_tsc() - c0;
			local_bh_enable();
			rcu_read_unlock();
			for (j = 0; j < BF_BATCH; j++)
				kfree_skb(b->skb[j]);
			cond_resched();
		}
		if (cycles < best) {
			best = cycles;
			*fast = done;
		}
	}
	return best / BF_PKTS;
}

static void bench_fast_test(struct kunit *test)
{
	static const u32 sizes[] = { 1000, 100000 };
	struct bf *b = bf_new(test);
	u32 n = 0, fast, cached;
	unsigned int k;
	u64 cycles;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		cached = bf_flows(b, n, sizes[k]);
		n = sizes[k];
		cycles = bf_measure(b, n, &fast);
		kunit_info(test, "bench: fast path, %6u offloaded flows (%u live, %u went fast at once): hook to transmit %llu cycles per packet | consumed %u of %u\n",
			   n, atomic_read(&b->mn->conns.count), cached, cycles, fast, BF_PKTS);
	}
}

static struct kunit_case mmb_bench_fast_cases[] = {
	KUNIT_CASE(bench_fast_test),
	{}
};

static struct kunit_suite mmb_bench_fast_suite = {
	.name = "bench-mmb-fast",
	.test_cases = mmb_bench_fast_cases,
};

kunit_test_suites(&mmb_bench_fast_suite);
