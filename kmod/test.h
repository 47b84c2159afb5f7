/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: hooks for the KUnit tests (kunit-tests/), compiled only with
 * CONFIG_MMB_KUNIT_TEST. At a test point, a test steps in between two
 * steps of a change, as another CPU could; nothing else sets them.
 */
#ifndef _MMB_TEST_H
#define _MMB_TEST_H

#include <linux/compiler.h>
#include <linux/types.h>

struct mmb_conn;
struct mmb_conns;
struct mmb_net;
struct mmb_ruleset;
struct net;

struct mmb_test_points {
	/* @rs hands objects the datapath may name over to call_rcu() */
	void (*free)(struct mmb_ruleset *rs);
	/* a rule add published rule @handle and dropped the lock */
	void (*added)(struct mmb_net *mn, u32 handle);
	/* a commit ends the connections of the @ended rules it ended, next */
	void (*finish)(struct mmb_net *mn, unsigned int ended);
	/* a new connection @c has its reply node in @mc's table, not yet its orig one */
	void (*half_in)(struct mmb_conns *mc, struct mmb_conn *c);
	/* the leaving judgement of @c is claimed, nothing of it published yet */
	void (*bind)(struct mmb_conns *mc, struct mmb_conn *c);
	/* a packet found its connection @c, and holds it from now on */
	void (*found)(struct mmb_conn *c);
	/* a packet is about to refresh @c's timeout without its lock */
	void (*refresh)(struct mmb_conn *c);
	/* a lookup probes table @i of its ruleset (not from the flow cache) */
	void (*probe)(unsigned int i);
	/* ...and its sieve spares it the hash: the packet hits no entry there */
	void (*sieved)(unsigned int i);
	/* the fast path looked a route up in @net, not yet read its cookie (offload.c) */
	void (*fast_looked)(struct net *net);
	/* a device's unregister walks @mc's connections for the routes through it */
	void (*fast_walk)(struct mmb_conns *mc);
	/* with @frozen, the connection table's clock, in jiffies */
	bool frozen;
	u32 clock;
};

#if IS_ENABLED(CONFIG_MMB_KUNIT_TEST)
extern struct mmb_test_points mmb_test_points;

static inline void mmb_test_free(struct mmb_ruleset *rs)
{
	if (mmb_test_points.free)
		mmb_test_points.free(rs);
}

static inline void mmb_test_added(struct mmb_net *mn, u32 handle)
{
	if (mmb_test_points.added)
		mmb_test_points.added(mn, handle);
}

static inline void mmb_test_half_in(struct mmb_conns *mc, struct mmb_conn *c)
{
	if (mmb_test_points.half_in)
		mmb_test_points.half_in(mc, c);
}

static inline void mmb_test_bind(struct mmb_conns *mc, struct mmb_conn *c)
{
	if (mmb_test_points.bind)
		mmb_test_points.bind(mc, c);
}

static inline void mmb_test_found(struct mmb_conn *c)
{
	if (mmb_test_points.found)
		mmb_test_points.found(c);
}

static inline void mmb_test_refresh(struct mmb_conn *c)
{
	if (mmb_test_points.refresh)
		mmb_test_points.refresh(c);
}

static inline void mmb_test_probe(unsigned int i)
{
	if (mmb_test_points.probe)
		mmb_test_points.probe(i);
}

static inline void mmb_test_sieved(unsigned int i)
{
	if (mmb_test_points.sieved)
		mmb_test_points.sieved(i);
}

static inline void mmb_test_fast_looked(struct net *net)
{
	if (mmb_test_points.fast_looked)
		mmb_test_points.fast_looked(net);
}

static inline void mmb_test_fast_walk(struct mmb_conns *mc)
{
	if (mmb_test_points.fast_walk)
		mmb_test_points.fast_walk(mc);
}

static inline bool mmb_test_now(u32 *now)
{
	*now = READ_ONCE(mmb_test_points.clock);
	return READ_ONCE(mmb_test_points.frozen);
}

static inline void mmb_test_finish(struct mmb_net *mn, unsigned int ended)
{
	if (mmb_test_points.finish)
		mmb_test_points.finish(mn, ended);
}
#else
static inline void mmb_test_free(struct mmb_ruleset *rs)
{
}

static inline void mmb_test_added(struct mmb_net *mn, u32 handle)
{
}

static inline void mmb_test_half_in(struct mmb_conns *mc, struct mmb_conn *c)
{
}

static inline void mmb_test_bind(struct mmb_conns *mc, struct mmb_conn *c)
{
}

static inline void mmb_test_found(struct mmb_conn *c)
{
}

static inline void mmb_test_refresh(struct mmb_conn *c)
{
}

static inline void mmb_test_probe(unsigned int i)
{
}

static inline void mmb_test_sieved(unsigned int i)
{
}

static inline void mmb_test_fast_looked(struct net *net)
{
}

static inline void mmb_test_fast_walk(struct mmb_conns *mc)
{
}

static inline bool mmb_test_now(u32 *now)
{
	return false;
}

static inline void mmb_test_finish(struct mmb_net *mn, unsigned int ended)
{
}
#endif

#endif /* _MMB_TEST_H */
