// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: tuple merging on rule sets it was not tuned on (issue 43).
 * The rules are drawn the way scripts/classbench.py draws them (a small
 * port of its structure: a protocol, a port-pair class per side, prefix
 * lengths from a seed's spikes spread by a smoothness, addresses down a
 * skewed trie), written in the order an ordered ACL has (the most
 * specific first), which made the greedy placement keep 2-4 times more
 * tables. Every verdict and every rule's count is checked against the
 * naive evaluation of every rule: loaded in place (in that order), after
 * a rebalance (the next batch, which builds the tables again), loaded as
 * a batch, with adds and deletes interleaved around a batch that swaps
 * the ruleset, with first-match priorities, and in IPv6 with every prefix length
 * from /0 to /128. The churn runs also check the tables' sieves, which
 * skip a table by a bit of the packet's address or port.
 */
#include <linux/prandom.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "../kmod/tables.h"
#include "../kmod/test.h"
#include "util.h"

static u32 rnd(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

static struct mmb_match_spec mt(u16 field, u8 op, u32 v)
{
	return mmbt_match(field, op, v);
}

#define M2_RULES	3000
#define M2_PKTS		600
#define M2_CLUSTERS	16

struct m2_ctx {
	struct mmb_rule_spec spec[M2_RULES];
	struct mmb_rule *rule[M2_RULES];	/* NULL: not in the ruleset */
	u64 hits[M2_RULES];
	u8 sl[M2_RULES], dl[M2_RULES];
	u32 base[M2_CLUSTERS], path[M2_CLUSTERS];
	unsigned int n;
	bool v6, prio;
	bool ports;		/* port rules of every operator, packets at their edges */
};

/* A prefix length: a seed's spike, spread binomially by smoothness @s. */
static unsigned int m2_plen(struct rnd_state *rs, unsigned int s, unsigned int max)
{
	static const u8 spikes[] = { 0, 0, 8, 16, 16, 20, 24, 24, 24, 28, 32, 32, 32 };
	int len = spikes[rnd(rs, ARRAY_SIZE(spikes))] * max / 32, i, d = 0;

	if (!len)
		return 0;
	for (i = 0; i < s; i++)
		d += rnd(rs, 2);
	len += d - s / 2;
	return clamp(len, 1, (int)max);
}

/*
 * An address down a skewed trie: a cluster (the low ones far likelier),
 * then each bit after the cluster's /12 follows the cluster's heavy path
 * four times in five.
 */
static u32 m2_addr(struct rnd_state *rs, struct m2_ctx *c)
{
	unsigned int k = min(rnd(rs, M2_CLUSTERS), rnd(rs, M2_CLUSTERS));
	u32 a = c->base[k], coin = prandom_u32_state(rs) & prandom_u32_state(rs);
	int bit;

	for (bit = 19; bit >= 0; bit--)
		if (coin & BIT(bit) && rnd(rs, 5) < 3)
			a ^= BIT(bit);
	return a ^ (c->path[k] & 0xfffff);
}

static void m2_prefix(struct mmb_match_spec *m, struct m2_ctx *c, struct rnd_state *rs,
		      bool src, unsigned int plen)
{
	u32 a = m2_addr(rs, c);
	unsigned int i;

	if (!c->v6) {
		*m = mt(src ? MMB_FIELD_IP_SADDR : MMB_FIELD_IP_DADDR, MMB_OP_EQ, a);
		m->plen = plen;
		return;
	}
	*m = mt(src ? MMB_FIELD_IP6_SADDR : MMB_FIELD_IP6_DADDR, MMB_OP_EQ, 0);
	m->value[0] = 0x20;
	m->value[1] = 0x01;
	put_unaligned_be32(a, &m->value[2]);
	for (i = 6; i < 16; i++)	/* the low bits: a few values each */
		m->value[i] = rnd(rs, 4);
	m->plen = plen;
}

/* A port-pair side: wildcard, high, low, a range, or an exact port. */
static unsigned int m2_port(struct mmb_rule_spec *s, unsigned int n, struct rnd_state *rs,
			    u16 field)
{
	static const u16 em[] = { 22, 25, 53, 80, 123, 443, 1521, 3306, 8080 };
	unsigned int lo;

	switch (rnd(rs, 6)) {
	case 0:
		s->m[n++] = mt(field, MMB_OP_GE, 1024);
		break;
	case 1:
		s->m[n++] = mt(field, MMB_OP_LE, 1023);
		break;
	case 2:
		lo = 1000 + rnd(rs, 60000);
		s->m[n++] = mt(field, MMB_OP_GE, lo);
		s->m[n++] = mt(field, MMB_OP_LE, lo + rnd(rs, 100));
		break;
	case 3:
	case 4:
		s->m[n++] = mt(field, MMB_OP_EQ, em[rnd(rs, ARRAY_SIZE(em))]);
		break;
	}
	return n;
}

/*
 * A port side of every operator at a value of its own (sixteens apart from
 * the sieve's: tables.h), or two of them, a range; or a wildcard.
 */
static unsigned int m2_port_any(struct mmb_rule_spec *s, unsigned int n, struct rnd_state *rs,
				u16 field)
{
	static const u8 ops[] = { MMB_OP_EQ, MMB_OP_GE, MMB_OP_GT, MMB_OP_LE, MMB_OP_LT };
	u32 lo = rnd(rs, 4) ? rnd(rs, 65536) : rnd(rs, 4) * 65535 / 3;

	switch (rnd(rs, 5)) {
	case 0:
		s->m[n++] = mt(field, ops[rnd(rs, ARRAY_SIZE(ops))], lo);
		break;
	case 1:
	case 2:
	case 3:		/* narrow: its span is its own, not a wide rule's */
		s->m[n++] = mt(field, rnd(rs, 2) ? MMB_OP_GE : MMB_OP_GT, lo);
		s->m[n++] = mt(field, rnd(rs, 2) ? MMB_OP_LE : MMB_OP_LT,
			       min(lo + rnd(rs, 200), 65535U));
		break;
	}
	return n;
}

/*
 * A rule of c->ports: TCP or UDP, ports of m2_port_any(), the source
 * address a short prefix one time in three (its table's mask may keep
 * fewer of its bits: residues), no destination.
 */
static void m2_rule_ports(struct m2_ctx *c, struct rnd_state *rs, unsigned int i)
{
	struct mmb_rule_spec *s = &c->spec[i];
	u16 sport = MMB_FIELD_TCP_SPORT, dport = MMB_FIELD_TCP_DPORT;
	unsigned int n = 0;
	u8 proto = IPPROTO_TCP;

	memset(s, 0, sizeof(*s));
	c->sl[i] = rnd(rs, 3) ? 0 : 4 + rnd(rs, 9);
	c->dl[i] = 0;
	if (c->sl[i])
		m2_prefix(&s->m[n++], c, rs, true, c->sl[i]);
	if (rnd(rs, 2)) {
		proto = IPPROTO_UDP;
		sport = MMB_FIELD_UDP_SPORT;
		dport = MMB_FIELD_UDP_DPORT;
	}
	s->m[n++] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, proto);
	n = m2_port_any(s, n, rs, sport);
	n = m2_port_any(s, n, rs, dport);
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = rnd(rs, 2) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
}

static void m2_rule(struct m2_ctx *c, struct rnd_state *rs, unsigned int i, unsigned int smooth)
{
	struct mmb_rule_spec *s = &c->spec[i];
	unsigned int n = 0, max = c->v6 ? 128 : 32, p = rnd(rs, 20);
	u8 proto = p < 12 ? IPPROTO_TCP : p < 17 ? IPPROTO_UDP : p < 19 ? 0 :
		   c->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;

	memset(s, 0, sizeof(*s));
	c->sl[i] = m2_plen(rs, smooth, max);
	c->dl[i] = m2_plen(rs, smooth, max);
	if (c->sl[i])
		m2_prefix(&s->m[n++], c, rs, true, c->sl[i]);
	if (c->dl[i])
		m2_prefix(&s->m[n++], c, rs, false, c->dl[i]);
	if (c->v6 && !n)
		s->m[n++] = mt(MMB_FIELD_IP6_VER, MMB_OP_EQ, 6);
	if (proto)
		s->m[n++] = mt(c->v6 ? MMB_FIELD_IP6_NEXT : MMB_FIELD_IP_PROTO, MMB_OP_EQ,
			       proto);
	if (proto == IPPROTO_TCP) {
		n = m2_port(s, n, rs, MMB_FIELD_TCP_SPORT);
		n = m2_port(s, n, rs, MMB_FIELD_TCP_DPORT);
	} else if (proto == IPPROTO_UDP) {
		n = m2_port(s, n, rs, MMB_FIELD_UDP_SPORT);
		n = m2_port(s, n, rs, MMB_FIELD_UDP_DPORT);
	}
	if (!n)
		s->m[n++] = mt(MMB_FIELD_ALL, MMB_OP_EQ, 0);
	s->nmatches = n;
	s->ntargets = 1;
	s->t[0].type = rnd(rs, 2) ? MMB_TARGET_DROP : MMB_TARGET_ACCEPT;
	s->t[0].rate = MMB_RATE_ALWAYS;
}

static struct m2_ctx *m2_sort_ctx;

/* The order of an ordered ACL: the longest prefixes first. */
static int m2_specific_first(const void *a, const void *b)
{
	const struct m2_ctx *c = m2_sort_ctx;
	unsigned int x = *(const u16 *)a, y = *(const u16 *)b;
	int lx = c->sl[x] + c->dl[x], ly = c->sl[y] + c->dl[y];

	return lx != ly ? ly - lx : (int)x - (int)y;
}

/* Draw @n rules, most specific first; with @prio, first-match priorities. */
static void m2_draw(struct m2_ctx *c, struct rnd_state *rs, unsigned int n,
		    unsigned int smooth)
{
	struct mmb_rule_spec *tmp = vmalloc(sizeof(*tmp) * n);
	u16 *order = kcalloc(n, sizeof(*order), GFP_KERNEL);
	u8 *sl = kmalloc(n, GFP_KERNEL), *dl = kmalloc(n, GFP_KERNEL);
	unsigned int i;

	c->n = n;
	for (i = 0; i < M2_CLUSTERS; i++) {
		c->base[i] = prandom_u32_state(rs) & 0xfff00000;
		c->path[i] = prandom_u32_state(rs);
	}
	for (i = 0; i < n; i++)
		if (c->ports)
			m2_rule_ports(c, rs, i);
		else
			m2_rule(c, rs, i, smooth);
	if (!tmp || !order || !sl || !dl)
		goto out;	/* the order drawn, then */
	for (i = 0; i < n; i++)
		order[i] = i;
	m2_sort_ctx = c;
	sort(order, n, sizeof(*order), m2_specific_first, NULL);
	for (i = 0; i < n; i++) {
		tmp[i] = c->spec[order[i]];
		sl[i] = c->sl[order[i]];
		dl[i] = c->dl[order[i]];
	}
	memcpy(c->spec, tmp, sizeof(*tmp) * n);
	memcpy(c->sl, sl, n);
	memcpy(c->dl, dl, n);
out:
	for (i = 0; i < n; i++)
		c->spec[i].prio = c->prio ? n - i : 0;
	vfree(tmp);
	kfree(order);
	kfree(sl);
	kfree(dl);
}

static u64 m2_hits(const struct mmb_rule *rule)
{
	struct mmb_stats st;

	mmb_stats_read(rule->stats, &st);
	return st.packets;
}

/* Inside a live rule's prefixes and ports half the time, else at random. */
static void m2_packet(struct m2_ctx *c, struct rnd_state *rs, struct mmbt_pkt_desc *d)
{
	const struct mmb_rule_spec *s;
	unsigned int i, k, len = c->v6 ? 16 : 4;

	memset(d, 0, sizeof(*d));
	d->v6 = c->v6;
	d->proto = rnd(rs, 2) ? IPPROTO_TCP : IPPROTO_UDP;
	d->ttl = 64;
	d->sport = rnd(rs, 3) ? rnd(rs, 65536) : rnd(rs, 1024);
	d->dport = rnd(rs, 3) ? rnd(rs, 65536) : rnd(rs, 1024);
	prandom_bytes_state(rs, d->saddr, len);
	prandom_bytes_state(rs, d->daddr, len);
	if (rnd(rs, 2))
		return;
	do
		s = &c->spec[rnd(rs, c->n)];
	while (!c->rule[s - c->spec]);
	for (i = 0; i < s->nmatches; i++) {
		const struct mmb_match_spec *m = &s->m[i];
		u8 *a;

		switch (m->field) {
		case MMB_FIELD_IP_PROTO:
		case MMB_FIELD_IP6_NEXT:
			d->proto = m->value[0];
			continue;
		case MMB_FIELD_TCP_SPORT:
		case MMB_FIELD_UDP_SPORT:
			if (c->ports)	/* at the value, or one off */
				d->sport = get_unaligned_be16(m->value) + rnd(rs, 3) - 1;
			else if (m->op != MMB_OP_LE)
				d->sport = get_unaligned_be16(m->value) + rnd(rs, 2) * rnd(rs, 50);
			continue;
		case MMB_FIELD_TCP_DPORT:
		case MMB_FIELD_UDP_DPORT:
			if (c->ports)
				d->dport = get_unaligned_be16(m->value) + rnd(rs, 3) - 1;
			else if (m->op != MMB_OP_LE)
				d->dport = get_unaligned_be16(m->value) + rnd(rs, 2) * rnd(rs, 50);
			continue;
		case MMB_FIELD_IP_SADDR:
		case MMB_FIELD_IP6_SADDR:
			a = d->saddr;
			break;
		case MMB_FIELD_IP_DADDR:
		case MMB_FIELD_IP6_DADDR:
			a = d->daddr;
			break;
		default:
			continue;
		}
		/* Its prefix, or (one time in eight) the neighbouring one. */
		for (k = 0; k < m->plen; k++)
			if ((a[k / 8] ^ m->value[k / 8]) & (0x80 >> k % 8))
				a[k / 8] ^= 0x80 >> k % 8;
		if (!rnd(rs, 8) && m->plen)
			a[(m->plen - 1) / 8] ^= 0x80 >> ((m->plen - 1) % 8);
	}
	if (d->proto == IPPROTO_ICMP || d->proto == IPPROTO_ICMPV6)
		d->sport = 8 << 8;
}

/*
 * @npkts packets through the classifier of what @r publishes now (read
 * under RCU: a rebalance may swap it meanwhile), each judged and counted
 * as the naive evaluation of every live rule says: all its matching rules
 * counted and accept beating drop, or with priorities, the verdict of the
 * highest priority that matches (first match: one rule per priority).
 */
static void m2_check(struct kunit *test, struct m2_ctx *c, struct rnd_state *rs,
		     struct mmb_rules *r, unsigned int npkts)
{
	unsigned int p, i, matched = 0;
	struct mmbt_pkt_desc d;
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	for (i = 0; i < c->n; i++)
		c->hits[i] = c->rule[i] ? m2_hits(c->rule[i]) : 0;
	for (p = 0; p < npkts; p++) {
		bool drop = false, accept = false, found = false, bh;
		struct sk_buff *skb;

		m2_packet(c, rs, &d);
		skb = mmbt_pkt_build(init_net.loopback_dev, &d);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
		rcu_read_lock();
		/* With the flow cache (BH off), and for port rules without, in turn. */
		bh = !c->ports || p % 2;
		if (bh)
			local_bh_disable();
		mmb_classify(rcu_dereference(r->cur), &pkt, skb, &v);
		if (bh)
			local_bh_enable();
		rcu_read_unlock();
		for (i = 0; i < c->n; i++) {
			bool want;

			if (!c->rule[i])
				continue;
			want = mmbt_spec_matches(&c->spec[i], &pkt, skb);
			matched += want;
			if (c->prio) {	/* the first rule in order decides */
				if (want && !found) {
					found = true;
					accept = c->rule[i]->accept;
					drop = c->rule[i]->drop;
				}
				continue;
			}
			if (m2_hits(c->rule[i]) - c->hits[i] != want) {
				KUNIT_FAIL(test, "packet %u rule %u: counted %llu, reference %d",
					   p, i, m2_hits(c->rule[i]) - c->hits[i], want);
				kfree_skb(skb);
				return;
			}
			c->hits[i] += want;
			drop |= want && c->rule[i]->drop;
			accept |= want && c->rule[i]->accept;
		}
		kfree_skb(skb);
		if (v.drop != drop || v.accept != accept) {
			KUNIT_FAIL(test, "packet %u: accept %d drop %d, reference %d %d",
				   p, v.accept, v.drop, accept, drop);
			return;
		}
	}
	/*
	 * Half the packets are drawn inside a rule: the check is not vacuous
	 * (port rules' packets are at a range's edge, one off a third of the time).
	 */
	KUNIT_EXPECT_GT(test, matched, npkts / (c->ports ? 10 : 3));
}

/* Tables of what @r publishes; no entry holds more merged rules than the limit. */
static unsigned int m2_tables(struct kunit *test, struct mmb_rules *r, unsigned int *rules)
{
	struct mmb_table_info info;
	unsigned int i;

	*rules = 0;
	for (i = 0; !mmbt_table(r, i, &info); i++) {
		*rules += info.rules;
		KUNIT_EXPECT_LE(test, info.merged_max, MMB_MERGE_LIMIT);
	}
	return i;
}

static unsigned int m2_masks(struct m2_ctx *c)
{
	struct mmb_key *m = vmalloc(sizeof(*m) * c->n), key;
	unsigned int i, j, n = 0;

	if (!m)
		return 0;
	for (i = 0; i < c->n; i++) {
		mmb_rule_key(c->rule[i], &m[n], &key);
		for (j = 0; j < n && memcmp(&m[j], &m[n], sizeof(key)); j++)
			;
		n += j == n;
	}
	vfree(m);
	return n;
}

/* Create every rule of @c (not inserted). */
static void m2_create(struct kunit *test, struct m2_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		c->rule[i] = mmb_rule_create(&c->spec[i], NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(c->rule[i]));
	}
}

/* Every rule of @c in one batch (built again at commit), in @c's order. */
static void m2_batch(struct kunit *test, struct m2_ctx *c, struct mmb_rules *r)
{
	struct mmb_txn txn;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &txn, MMB_TXN_COPY), 0);
	for (i = 0; i < c->n; i++) {
		refcount_inc(&c->rule[i]->ref);		/* the second ruleset's */
		KUNIT_ASSERT_EQ(test, mmb_txn_add(&txn, c->rule[i], NULL), 0);
	}
	mmb_txn_commit(&txn);
}

/*
 * The next batch after adds and dels in place: one that changes no rule,
 * its tables built again at commit.
 */
static void m2_rebalance(struct kunit *test, struct mmb_rules *r)
{
	struct mmb_txn t;

	KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &t, MMB_TXN_COPY), 0);
	KUNIT_ASSERT_EQ(test, mmb_txn_prepare(&t), 0);
	mmb_txn_commit(&t);
}

/*
 * The adversarial order, in place, then a rebalance; the same rules as a
 * batch. In place each narrow rule made a table its wider followers could
 * not use; built again (widest first), the set holds in few tables,
 * whatever its order, and every verdict stays the naive one's.
 */
static void m2_order(struct kunit *test, bool v6, bool prio, unsigned int smooth,
		     unsigned int max_tables)
{
	struct m2_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test), *b = mmbt_rules_new(test);
	unsigned int i, masks, inplace, rebalanced, batch, rules;
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, c);
	prandom_seed_state(&rs, 0x6d32 + v6 * 2 + prio + smooth * 16);
	c->v6 = v6;
	c->prio = prio;
	m2_draw(c, &rs, M2_RULES, smooth);
	m2_create(test, c);
	for (i = 0; i < c->n; i++)
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, c->rule[i], NULL), 0);
	masks = m2_masks(c);
	inplace = m2_tables(test, r, &rules);
	KUNIT_EXPECT_EQ(test, rules, c->n);
	m2_check(test, c, &rs, r, M2_PKTS);

	m2_rebalance(test, r);
	rebalanced = m2_tables(test, r, &rules);
	KUNIT_EXPECT_EQ(test, rules, c->n);
	m2_check(test, c, &rs, r, M2_PKTS);

	m2_batch(test, c, b);
	batch = m2_tables(test, b, &rules);
	KUNIT_EXPECT_EQ(test, rules, c->n);
	m2_check(test, c, &rs, b, M2_PKTS);
	kunit_info(test, "IPv%d%s smoothness %u: %u rules of %u masks: %u tables in place (specific first), %u rebalanced, %u as a batch",
		   v6 ? 6 : 4, prio ? " first-match" : "", smooth, c->n, masks, inplace,
		   rebalanced, batch);
	KUNIT_EXPECT_LT(test, rebalanced, inplace);
	KUNIT_EXPECT_EQ(test, batch, rebalanced);
	KUNIT_EXPECT_LE(test, batch, max_tables);
	mmbt_rules_done(test, b);
	mmbt_rules_done(test, r);
}

static void merge2_order4_test(struct kunit *test)
{
	m2_order(test, false, false, 8, 32);
}

static void merge2_prio4_test(struct kunit *test)
{
	m2_order(test, false, true, 16, 32);
}

static void merge2_order6_test(struct kunit *test)
{
	m2_order(test, true, false, 32, 32);
}

static unsigned long m2_sieved;

static void m2_sieve_count(unsigned int i)
{
	m2_sieved++;
}

static void m2_sieve_off(void *data)
{
	WRITE_ONCE(mmb_test_points.sieved, NULL);
}

/*
 * Adds and deletes in place, interleaved, with a batch that builds the
 * tables again between them: every check reads whatever is published
 * then, and must agree with the naive evaluation of the rules live at
 * that moment. The tables' sieves (tables.h) come and go with their
 * entries' bits, and a batch points them at other words: they must skip
 * tables (the random half of the packets hits few entries), and never
 * one that holds a rule the packet matches.
 */
static void m2_churn(struct kunit *test, bool v6, bool prio, bool ports, u32 seed)
{
	struct m2_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test);
	unsigned int i, round, live = 0, rules, tables;
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, m2_sieve_off, NULL), 0);
	m2_sieved = 0;
	WRITE_ONCE(mmb_test_points.sieved, m2_sieve_count);
	prandom_seed_state(&rs, seed);
	c->v6 = v6;
	c->prio = prio;
	c->ports = ports;
	/* Few port rules: a bit of a sieve is then one rule's, seldom another's too. */
	m2_draw(c, &rs, ports ? M2_RULES / 50 : M2_RULES, 8);
	for (round = 0; round < 6; round++) {
		for (i = 0; i < c->n; i++) {
			if (!rnd(&rs, 3))
				continue;
			if (c->rule[i]) {
				KUNIT_ASSERT_EQ(test, mmbt_remove(r, c->rule[i]), 0);
				c->rule[i] = NULL;
				live--;
			} else {
				c->rule[i] = mmb_rule_create(&c->spec[i], NULL, NULL);
				KUNIT_ASSERT_FALSE(test, IS_ERR(c->rule[i]));
				KUNIT_ASSERT_EQ(test, mmbt_insert(r, c->rule[i], NULL), 0);
				live++;
			}
		}
		m2_check(test, c, &rs, r, M2_PKTS / 3);
		if (round == 2) {		/* a batch between them */
			m2_rebalance(test, r);
			m2_check(test, c, &rs, r, M2_PKTS / 3);
		}
	}
	/* Deleting may leave a merged rule the last of its table's entry. */
	tables = m2_tables(test, r, &rules);
	KUNIT_EXPECT_EQ(test, rules, live);
	m2_check(test, c, &rs, r, M2_PKTS);
	m2_rebalance(test, r);
	kunit_info(test, "%u rules live: %u tables, %u after a rebalance", live, tables,
		   m2_tables(test, r, &rules));
	KUNIT_EXPECT_EQ(test, rules, live);
	m2_check(test, c, &rs, r, M2_PKTS);
	kunit_info(test, "IPv%d%s: %lu probes spared by the sieves", v6 ? 6 : 4,
		   prio ? " first-match" : "", m2_sieved);
	KUNIT_EXPECT_GT(test, m2_sieved, (unsigned long)M2_PKTS);
	mmbt_rules_done(test, r);
}

static void merge2_churn_test(struct kunit *test)
{
	m2_churn(test, false, false, false, 0x6368);
}

static void merge2_churn_prio_test(struct kunit *test)
{
	m2_churn(test, false, true, false, 0x63687031);
}

static void merge2_churn6_test(struct kunit *test)
{
	m2_churn(test, true, true, false, 0x63683621);
}

/*
 * The sieves by the rules' port ranges and residues (tables.h): rules of
 * every port operator, mostly without addresses, packets at each port
 * value and one off either side; every rule's count (and, first match,
 * every verdict) the naive evaluator's, with adds and deletes in place.
 */
static void merge2_churn_ports_test(struct kunit *test)
{
	m2_churn(test, false, false, true, 0x63687032);
}

static void merge2_churn_ports_prio_test(struct kunit *test)
{
	m2_churn(test, false, true, true, 0x63687033);
}

/*
 * Must a packet of @port be sieved from the table of the rule "port OP
 * @x" alone? If its sixteen (the sieve's bit) is outside the rule's, and
 * the rule's leave out at least an eighth of the bits: a sieve that would
 * skip fewer is not moved to the port (the table was made on another
 * word, where all its bits are set), and one that skips nothing is none.
 */
static unsigned long m2_edge_sieved(u8 op, u32 x, u32 port)
{
	u32 lo = 0, hi = MMB_SIEVE_BITS - 1;

	switch (op) {
	case MMB_OP_EQ:
		lo = x >> 4;
		hi = x >> 4;
		break;
	case MMB_OP_GE:
		lo = x >> 4;
		break;
	case MMB_OP_GT:
		lo = (x + 1) >> 4;
		break;
	case MMB_OP_LE:
		hi = x >> 4;
		break;
	case MMB_OP_LT:
		if (!x)
			lo = MMB_SIEVE_BITS;
		else
			hi = (x - 1) >> 4;
		break;
	}
	if (lo <= hi && hi - lo + 1 + MMB_SIEVE_BITS / 8 > MMB_SIEVE_BITS)
		return 0;
	return port >> 4 < lo || port >> 4 > hi;
}

/*
 * A sieve by one rule's port range, at its edges: a rule "udp sport|dport
 * OP v" alone in its table (loaded as a batch, which points the sieve at
 * the port), packets at v - 1, v, v + 1 and either side of v's sixteen
 * (the sieve's bit), without the flow cache. The rule's verdict is the
 * naive evaluator's for each, and some packets are sieved.
 */
static void merge2_sieve_edges_test(struct kunit *test)
{
	static const u8 ops[] = { MMB_OP_EQ, MMB_OP_GE, MMB_OP_GT, MMB_OP_LE, MMB_OP_LT };
	static const u32 vals[] = { 0, 1, 15, 16, 17, 31, 1000, 1007, 1008, 33434,
				    65519, 65520, 65534, 65535 };
	struct mmb_rule_spec *s = mmbt_vzalloc(test, sizeof(*s));
	unsigned int o, k, j, side, checked = 0;
	unsigned long before;
	struct mmbt_pkt_desc d = {};
	struct mmb_rule *rule;
	struct mmb_verdict v;
	struct mmb_txn txn;
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, m2_sieve_off, NULL), 0);
	m2_sieved = 0;
	WRITE_ONCE(mmb_test_points.sieved, m2_sieve_count);
	for (side = 0; side < 2; side++) {
		for (o = 0; o < ARRAY_SIZE(ops); o++) {
			for (k = 0; k < ARRAY_SIZE(vals); k++) {
				struct mmb_rules *r = mmbt_rules_new(test);
				u32 x = vals[k], g = x & ~15U;
				/* v's neighbours, its sixteen's ends and theirs */
				s32 at[] = { x - 1, x, x + 1, g - 1, g, g + 15, g + 16 };

				memset(s, 0, sizeof(*s));
				s->m[0] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
				s->m[1] = mt(side ? MMB_FIELD_UDP_DPORT : MMB_FIELD_UDP_SPORT,
					     ops[o], x);
				s->nmatches = 2;
				s->ntargets = 1;
				s->t[0].type = MMB_TARGET_ACCEPT;
				s->t[0].rate = MMB_RATE_ALWAYS;
				rule = mmb_rule_create(s, NULL, NULL);
				KUNIT_ASSERT_FALSE(test, IS_ERR(rule));
				KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &txn, MMB_TXN_EMPTY), 0);
				KUNIT_ASSERT_EQ(test, mmb_txn_add(&txn, rule, NULL), 0);
				mmb_txn_commit(&txn);
				for (j = 0; j < ARRAY_SIZE(at); j++) {
					s32 port = at[j];
					struct sk_buff *skb;

					if (port < 0 || port > 65535)
						continue;
					d.proto = IPPROTO_UDP;
					d.ttl = 64;
					d.sport = side ? 5000 : port;
					d.dport = side ? port : 5000;
					skb = mmbt_pkt_build(init_net.loopback_dev, &d);
					KUNIT_ASSERT_NOT_NULL(test, skb);
					KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
					before = m2_sieved;
					rcu_read_lock();
					mmb_classify(rcu_dereference(r->cur), &pkt, skb, &v);
					rcu_read_unlock();
					KUNIT_EXPECT_EQ_MSG(test, v.accept,
							    mmbt_spec_matches(s, &pkt, skb),
							    "side %u op %u value %u port %d",
							    side, ops[o], x, port);
					KUNIT_EXPECT_EQ_MSG(test, m2_sieved - before,
							    m2_edge_sieved(ops[o], x, port),
							    "sieved? side %u op %u value %u port %d",
							    side, ops[o], x, port);
					checked++;
					kfree_skb(skb);
				}
				mmbt_rules_done(test, r);
			}
		}
	}
	kunit_info(test, "%u packets, %lu sieved", checked, m2_sieved);
	KUNIT_EXPECT_GT(test, m2_sieved, (unsigned long)checked / 8);
}

/* Is a UDP packet to @dport dropped by @r's rules? */
static bool m2_udp_dropped(struct kunit *test, struct mmb_rules *r, u16 dport)
{
	struct mmbt_pkt_desc d = { .proto = IPPROTO_UDP, .ttl = 64, .sport = 5, .dport = dport };
	struct sk_buff *skb = mmbt_pkt_build(init_net.loopback_dev, &d);
	struct mmb_verdict v;
	struct mmb_pkt pkt;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, mmb_parse(skb, &pkt), 0);
	rcu_read_lock();
	mmb_classify(rcu_dereference(r->cur), &pkt, skb, &v);
	rcu_read_unlock();
	kfree_skb(skb);
	return v.drop && !v.accept;
}

/*
 * A rule added in place to a table of lower priority (the table is raised
 * with a new list, built before the rule's sieve bits are set, published
 * after it is linked): the sieve has the new bit when the list is seen,
 * and the rule drops its packets. Then it goes, and its bit with it:
 * another port of the same sixteen is sieved again.
 */
static void merge2_sieve_raise_test(struct kunit *test)
{
	struct mmb_rule_spec *s = mmbt_vzalloc(test, sizeof(*s));
	struct mmb_rules *r = mmbt_rules_new(test);
	struct mmb_rule *a, *b;
	struct mmb_txn txn;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, m2_sieve_off, NULL), 0);
	m2_sieved = 0;
	WRITE_ONCE(mmb_test_points.sieved, m2_sieve_count);
	s->m[0] = mt(MMB_FIELD_IP_PROTO, MMB_OP_EQ, IPPROTO_UDP);
	s->m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 1000);
	s->nmatches = 2;
	s->ntargets = 1;
	s->t[0].type = MMB_TARGET_DROP;
	s->t[0].rate = MMB_RATE_ALWAYS;
	s->prio = 1;
	a = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_ASSERT_EQ(test, mmb_txn_begin(r, &txn, MMB_TXN_EMPTY), 0);
	KUNIT_ASSERT_EQ(test, mmb_txn_add(&txn, a, NULL), 0);
	mmb_txn_commit(&txn);
	KUNIT_EXPECT_TRUE(test, m2_udp_dropped(test, r, 1000));
	KUNIT_EXPECT_FALSE(test, m2_udp_dropped(test, r, 5000));
	KUNIT_EXPECT_EQ(test, m2_sieved, 1UL);

	/* Same mask, a port of another sixteen (sieve bit), a higher priority. */
	s->m[1] = mt(MMB_FIELD_UDP_DPORT, MMB_OP_EQ, 5000);
	s->prio = 10;
	b = mmb_rule_create(s, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(b));
	KUNIT_ASSERT_EQ(test, mmbt_insert(r, b, NULL), 0);
	KUNIT_EXPECT_TRUE(test, m2_udp_dropped(test, r, 5000));
	KUNIT_EXPECT_TRUE(test, m2_udp_dropped(test, r, 1000));
	KUNIT_EXPECT_EQ(test, m2_sieved, 1UL);

	KUNIT_ASSERT_EQ(test, mmbt_remove(r, b), 0);
	KUNIT_EXPECT_FALSE(test, m2_udp_dropped(test, r, 5001));
	KUNIT_EXPECT_EQ(test, m2_sieved, 2UL);
	KUNIT_EXPECT_TRUE(test, m2_udp_dropped(test, r, 1000));
	mmbt_rules_done(test, r);
}

/*
 * IPv6 rules of every pair of prefix lengths the draw reaches from /0 to
 * /128, one per pair (up to 10k distinct masks), in the adversarial order:
 * the tables stay few after the rebuild, and the verdicts right.
 */
static void merge2_v6_lengths_test(struct kunit *test)
{
	struct m2_ctx *c = mmbt_vzalloc(test, sizeof(*c));
	struct mmb_rules *r = mmbt_rules_new(test);
	unsigned int i, tables, rules, masks;
	struct rnd_state rs;
	u64 t0, t1;

	KUNIT_ASSERT_NOT_NULL(test, c);
	prandom_seed_state(&rs, 0x3616);
	c->v6 = true;
	m2_draw(c, &rs, M2_RULES, 8);
	for (i = 0; i < c->n; i++) {	/* every length, distinct pairs */
		unsigned int s = i % 129, d = (i / 129 * 7 + i) % 129, k;

		c->sl[i] = s;
		c->dl[i] = d;
		for (k = 0; k < c->spec[i].nmatches; k++) {
			struct mmb_match_spec *m = &c->spec[i].m[k];

			if (m->field == MMB_FIELD_IP6_SADDR)
				m->plen = max(s, 1U);
			if (m->field == MMB_FIELD_IP6_DADDR)
				m->plen = max(d, 1U);
		}
	}
	m2_create(test, c);
	masks = m2_masks(c);
	t0 = ktime_get_ns();
	for (i = 0; i < c->n; i++)
		KUNIT_ASSERT_EQ(test, mmbt_insert(r, c->rule[i], NULL), 0);
	t1 = ktime_get_ns();
	tables = m2_tables(test, r, &rules);
	m2_check(test, c, &rs, r, M2_PKTS / 2);
	m2_rebalance(test, r);
	kunit_info(test, "%u IPv6 rules of %u masks: %u tables in place (%llu ms), %u rebuilt (%llu ms)",
		   c->n, masks, tables, (t1 - t0) / 1000000, m2_tables(test, r, &rules),
		   (ktime_get_ns() - t1) / 1000000);
	KUNIT_EXPECT_EQ(test, rules, c->n);
	m2_check(test, c, &rs, r, M2_PKTS / 2);
	mmbt_rules_done(test, r);
}

static struct kunit_case merge2_cases[] = {
	KUNIT_CASE_SLOW(merge2_order4_test),
	KUNIT_CASE_SLOW(merge2_prio4_test),
	KUNIT_CASE_SLOW(merge2_order6_test),
	KUNIT_CASE_SLOW(merge2_churn_test),
	KUNIT_CASE_SLOW(merge2_churn_prio_test),
	KUNIT_CASE_SLOW(merge2_churn6_test),
	KUNIT_CASE_SLOW(merge2_churn_ports_test),
	KUNIT_CASE_SLOW(merge2_churn_ports_prio_test),
	KUNIT_CASE(merge2_sieve_edges_test),
	KUNIT_CASE(merge2_sieve_raise_test),
	KUNIT_CASE_SLOW(merge2_v6_lengths_test),
	{}
};

static struct kunit_suite merge2_suite = {
	.name = "mmb-merge2",
	.test_cases = merge2_cases,
};

kunit_test_suite(merge2_suite);
