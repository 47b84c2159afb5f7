// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: a large batch builds its tables once (issue 39, the speed of
 * mmbctl import). A batch of MMB_UNPLACED_MIN operations or more keeps its
 * rules, and those it copies, out of the tables until it is prepared, then
 * builds them all, widest masks first. Checked here: no table while the
 * batch runs, deletes of copied rules and of rules the batch added, every
 * rule in exactly one table after it, every rule's packets judged by that
 * rule alone, a flush that keeps the batch unplaced, an abort that leaves
 * the rules as they were, and a small batch placed as before.
 */
#include "../kmod/tables.h"
#include "util.h"

#define UP_OLD		100		/* rules in place before the batch */
#define UP_NEW		2000		/* rules the batch adds */
#define UP_OLD_BASE	0x0a040000	/* 10.4.0.0: sources of the rules in place */
#define UP_NEW_BASE	0x0a020000	/* 10.2.0.0: of the batch's */

/*
 * Rule @k of the batch: from its own source, on one of four masks (the
 * UDP destination port, the TTL, both or neither), priority k % 7; every
 * fifth accepts, the others drop.
 */
static struct mmb_rule *up_new_rule(struct kunit *test, unsigned int k)
{
	struct mmb_rule_spec *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct mmb_rule *rule;
	unsigned int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->m[n++] = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, UP_NEW_BASE + k);
	if (k % 2) {
		s->m[n++] = mmbt_match(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
		s->m[n++] = mmbt_match(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 2000);
	}
	if (!(k % 3))
		s->m[n++] = mmbt_match(MMB_FIELD_IP_TTL, MMB_OP_EQ, 64);
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = k % 5 ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = k % 7;
	rule = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
	return rule;
}

/* Rule @j in place: its own source, dropped. */
static struct mmb_rule *up_old_rule(struct kunit *test, unsigned int j)
{
	struct mmb_match_spec m = mmbt_match(MMB_FIELD_IP_SADDR, MMB_OP_EQ, UP_OLD_BASE + j);

	return mmbt_rule_make(test, false, &m, 1, &(struct mmbt_target){
		.type = MMB_TARGET_DROP }, 1);
}

/* Does a UDP packet from @saddr, TTL 64, to port @dport pass? */
static bool up_passes(struct kunit *test, struct mmb_rules *r, u32 saddr, u16 dport)
{
	struct mmbt_pkt_desc d = {
		.proto = IPPROTO_UDP, .ttl = 64, .sport = 1000, .dport = dport,
		.daddr = { 10, 9, 0, 1 }, .payload_len = 8,
	};
	struct sk_buff *skb;

	put_unaligned_be32(saddr, d.saddr);
	skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	return mmbt_judge(r, NULL, skb) == 1;
}

/* How many rules the tables of @r hold, and how many tables. */
static unsigned int up_tabled(struct mmb_rules *r, unsigned int *tables)
{
	struct mmb_table_info info;
	unsigned int n = 0;

	for (*tables = 0; !mmbt_table(r, *tables, &info); (*tables)++)
		n += info.rules;
	return n;
}

/* @n rules in place, the rules of @r. */
static void up_old(struct kunit *test, struct mmb_rules *r, struct mmb_rule **old, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++) {
		old[j] = up_old_rule(test, j);
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, old[j], NULL), 0);
	}
}

static void unplaced_batch_test(struct kunit *test)
{
	struct mmb_rule **new = kunit_kcalloc(test, UP_NEW, sizeof(*new), GFP_KERNEL);
	struct mmb_rule *old[UP_OLD];
	struct mmb_rules *r = mmbt_rules_new(test);
	unsigned int j, k, tables, bad = 0;
	struct mmb_txn txn;
	int err = 0;

	KUNIT_ASSERT_NOT_NULL(test, new);
	up_old(test, r, old, UP_OLD);
	KUNIT_ASSERT_EQ(test, mmb_txn_begin_batch(r, &txn, MMB_TXN_COPY, MMB_UNPLACED_MIN), 0);
	KUNIT_EXPECT_TRUE(test, txn.rs->unplaced);
	for (k = 0; k < UP_NEW && !err; k++) {
		new[k] = up_new_rule(test, k);
		err = mmb_txn_add(&txn, new[k], NULL);
		if (err)
			mmb_rule_free(new[k]);
	}
	/* One rule copied, one the batch added: taken out before any table. */
	if (!err)
		err = mmb_txn_del(&txn, old[7]->handle);
	if (!err)
		err = mmb_txn_del(&txn, new[6]->handle);
	KUNIT_EXPECT_EQ(test, mmb_tables_count(txn.rs), 0);
	if (!err)
		err = mmb_txn_prepare(&txn);
	if (err) {
		mmb_txn_abort(&txn);
		KUNIT_FAIL(test, "batch: %d", err);
		mmbt_rules_done(test, r);
		return;
	}
	KUNIT_EXPECT_FALSE(test, txn.rs->unplaced);
	mmb_txn_commit(&txn);

	/* Every rule in one table; four masks merge into fewer tables. */
	KUNIT_EXPECT_EQ(test, up_tabled(r, &tables), UP_OLD + UP_NEW - 2);
	KUNIT_EXPECT_GE(test, tables, 1);
	KUNIT_EXPECT_LE(test, tables, 4);
	kunit_info(test, "%u rules in %u tables", UP_OLD + UP_NEW - 2, tables);

	/* Each source's packet: its rule's verdict, or none for the two taken out. */
	for (j = 0; j < UP_OLD; j++)
		bad += up_passes(test, r, UP_OLD_BASE + j, 2000) != (j == 7);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "rules in place misjudged");
	for (k = 0, bad = 0; k < UP_NEW; k++) {
		bool pass = k == 6 || !(k % 5);

		bad += up_passes(test, r, UP_NEW_BASE + k, 2000) != pass;
		/* Another port: only the rules without one still match. */
		bad += up_passes(test, r, UP_NEW_BASE + k, 2001) != (pass || k % 2);
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "rules of the batch misjudged");
	mmbt_rules_done(test, r);
}

/*
 * A flush keeps a large batch unplaced; an abort leaves the rules as they
 * were; a small batch places its rules as they come.
 */
static void unplaced_flush_abort_test(struct kunit *test)
{
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *old[UP_OLD];
	unsigned int j, k, tables, bad = 0;
	struct mmb_txn txn;

	up_old(test, r, old, UP_OLD);
	KUNIT_ASSERT_EQ(test, mmb_txn_begin_batch(r, &txn, MMB_TXN_EMPTY, 2 * MMB_UNPLACED_MIN),
			0);
	KUNIT_EXPECT_TRUE(test, txn.rs->unplaced);
	KUNIT_EXPECT_EQ(test, mmb_txn_flush(&txn), 0);
	KUNIT_EXPECT_TRUE(test, txn.rs->unplaced);
	for (k = 0; k < 10; k++) {
		struct mmb_rule *rule = up_new_rule(test, k);

		if (mmb_txn_add(&txn, rule, NULL))
			mmb_rule_free(rule);
	}
	KUNIT_EXPECT_EQ(test, mmb_ruleset_count(txn.rs), 10);
	mmb_txn_abort(&txn);
	KUNIT_EXPECT_EQ(test, up_tabled(r, &tables), UP_OLD);
	for (j = 0; j < UP_OLD; j++)
		bad += up_passes(test, r, UP_OLD_BASE + j, 2000);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_TRUE(test, up_passes(test, r, UP_NEW_BASE, 2000));

	KUNIT_ASSERT_EQ(test, mmb_txn_begin_batch(r, &txn, MMB_TXN_COPY, 10), 0);
	KUNIT_EXPECT_FALSE(test, txn.rs->unplaced);
	KUNIT_EXPECT_GE(test, mmb_tables_count(txn.rs), 1);
	mmb_txn_abort(&txn);
	mmbt_rules_done(test, r);
}

static struct kunit_case unplaced_cases[] = {
	KUNIT_CASE(unplaced_batch_test),
	KUNIT_CASE(unplaced_flush_abort_test),
	{}
};

static struct kunit_suite unplaced_suite = {
	.name = "mmb-unplaced",
	.test_cases = unplaced_cases,
};

kunit_test_suite(unplaced_suite);
