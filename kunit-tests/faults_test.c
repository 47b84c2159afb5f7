// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit, debug kernel only (CONFIG_FAILSLAB): every allocation of the
 * control path fails in turn. Each request (rule add, stateful add, batch,
 * delete, flush, device enable and disable, settings) is sent with the
 * N-th allocation of the sending task failing (fail-nth), for N = 1, 2, ...
 * until one runs without a failure. Each time the request either fails
 * and changes nothing, or succeeds and does all it was asked; the answer
 * may be lost, the state may not be half done. Creating a namespace fails
 * the same way. KASAN and kmemleak watch the unwinding.
 */
#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "../kmod/conn.h"
#include "../kmod/mmb.h"
#include "../kmod/ruleset.h"
#include "nlt.h"
#include "util.h"

#define FT_MAX_N	5000

struct ft {
	struct kunit *test;
	struct nlt t;
	struct net *net;
	struct net_device *dev;
	u8 *rx;
	unsigned int injected, refused, absorbed, lost;
};

/* A name no device has, for a rule's in match. */
#define FT_IFNAME "mmb-ftx"

struct ft_state {
	unsigned int nrules;
	unsigned int names;	/* enabled names and patterns */
	bool held;		/* FT_IFNAME interned: a rule's in/out holds it */
	bool enabled;
	u32 conn_max;
};

/*
 * failslab and fail_page_alloc leave allocations that may sleep alone
 * unless their debugfs "ignore-gfp-wait" says otherwise, and
 * fail_page_alloc single pages unless its "min-order" is 0. The suite runs
 * at boot, before any userspace: it finds the settings through a private
 * debugfs mount (a file's inode holds the setting's address; debugfs bools
 * take no kernel_write()). Without fail_page_alloc, page allocations are
 * not failed, and only slab allocations count.
 */
static int ft_debugfs_set(struct vfsmount *mnt, const char *path, bool is_bool, u32 val)
{
	struct file *file = file_open_root_mnt(mnt, path, O_RDONLY, 0);

	if (IS_ERR(file))
		return PTR_ERR(file);
	if (is_bool)
		WRITE_ONCE(*(bool *)file_inode(file)->i_private, val);
	else
		WRITE_ONCE(*(u32 *)file_inode(file)->i_private, val);
	fput(file);
	return 0;
}

static int ft_fail_sleepers(bool fail)
{
	struct file_system_type *type = get_fs_type("debugfs");
	struct vfsmount *mnt;
	int err;

	if (!type)
		return -ENODEV;
	mnt = vfs_kern_mount(type, 0, "debugfs", NULL);
	put_filesystem(type);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	err = ft_debugfs_set(mnt, "failslab/ignore-gfp-wait", true, !fail);
	if (!err && IS_ENABLED(CONFIG_FAIL_PAGE_ALLOC))
		err = ft_debugfs_set(mnt, "fail_page_alloc/ignore-gfp-wait", true, !fail) ?:
		      ft_debugfs_set(mnt, "fail_page_alloc/min-order", false, fail ? 0 : 1);
	mntput(mnt);
	return err;
}

static void ft_state(struct ft *f, struct ft_state *s)
{
	struct mmb_net *mn = mmb_pernet(f->net);
	struct mmb_enabled *e;

	mmb_rules_lock(&mn->rules);
	s->nrules = mmb_ruleset_count(mmb_rules_locked(&mn->rules));
	mmb_rules_unlock(&mn->rules);
	rtnl_lock();
	s->enabled = mmb_dev_get_rtnl(f->dev);
	s->names = 0;
	list_for_each_entry(e, &mn->enabled, list)
		s->names++;
	rtnl_unlock();
	s->conn_max = READ_ONCE(mn->conns.max);
	rcu_barrier();		/* rules flushed or refused are freed */
	s->held = mmb_ifname_find(FT_IFNAME);
}

/* Send the request in f->t; the answer: 0, -errno, or 1 for none. */
static int ft_send(struct ft *f)
{
	struct nlt *t = &f->t;
	int err;

	nlt_hdr(t)->nlmsg_len = t->len;
	if (nlt_try_xmit(t) != t->len)
		return 1;	/* the request itself failed */
	return nlt_answer(t, f->rx, NLT_BUF, &err) == NLMSG_ERROR ? err : 1;
}

/* Requests, as mmbctl builds them. */
static void ft_match(struct nlt *t, u16 idx, u16 field, const void *v, unsigned int len)
{
	unsigned int nest = nlt_nest(t, idx);

	nlt_u16(t, MMB_MATCH_A_FIELD, field);
	nlt_put(t, MMB_MATCH_A_VALUE, v, len);
	nlt_nest_end(t, nest);
}

static void ft_rule(struct nlt *t, u16 type, u16 dport, bool nat)
{
	static const u8 saddr[4] = { 10, 0, 0, 1 }, nat4[4] = { 203, 0, 113, 1 };
	unsigned int rule = nlt_nest(t, type), list, nest;
	u8 port[2] = { dport >> 8, dport & 0xff };
	u8 proto = IPPROTO_UDP;

	list = nlt_nest(t, MMB_RULE_A_MATCHES);
	ft_match(t, 1, MMB_FIELD_IP_SADDR, saddr, 4);
	ft_match(t, 2, MMB_FIELD_IP_PROTO, &proto, 1);
	ft_match(t, 3, MMB_FIELD_UDP_DPORT, port, 2);
	nlt_nest_end(t, list);
	list = nlt_nest(t, MMB_RULE_A_TARGETS);
	nest = nlt_nest(t, 1);
	if (nat) {
		nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_MOD);
		nlt_u16(t, MMB_TARGET_A_FIELD, MMB_FIELD_IP_SADDR);
		nlt_put(t, MMB_TARGET_A_VALUE, nat4, 4);
	} else {
		nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_DROP);
	}
	nlt_nest_end(t, nest);
	nlt_nest_end(t, list);
	if (nat)
		nlt_put(t, MMB_RULE_A_STATEFUL, NULL, 0);
	nlt_nest_end(t, rule);
}

enum ft_op { FT_ADD, FT_ADD_NAT, FT_BATCH, FT_DEL, FT_FLUSH, FT_ENABLE, FT_DISABLE,
	     FT_ENABLE_NAME, FT_ADD_IN_LOG, FT_SET, FT_OPS };

static const char * const ft_names[FT_OPS] = {
	"add", "add-stateful (NAT)", "batch of 3 adds and a delete", "del", "flush",
	"enable", "disable", "enable by name", "add in NAME log drop", "set conn-max",
};

static void ft_add(struct ft *f, u16 dport)
{
	nlt_begin(&f->t, f->t.family, MMB_CMD_RULE_ADD);
	ft_rule(&f->t, MMB_A_RULE, dport, false);
	KUNIT_ASSERT_EQ(f->test, ft_send(f), 0);
}

static void ft_simple(struct ft *f, u8 cmd)
{
	nlt_begin(&f->t, f->t.family, cmd);
	if (cmd == MMB_CMD_DEV_ENABLE || cmd == MMB_CMD_DEV_DISABLE)
		nlt_u32(&f->t, MMB_A_IFINDEX, f->dev->ifindex);
	KUNIT_ASSERT_EQ(f->test, ft_send(f), 0);
}

static void ft_set_max(struct nlt *t, u32 max)
{
	unsigned int nest;

	nlt_begin(t, t->family, MMB_CMD_SET);
	nest = nlt_nest(t, MMB_A_SETTINGS);
	nlt_u32(t, MMB_SET_A_CONN_MAX, max);
	nlt_nest_end(t, nest);
}

/* What the request does to @s when it succeeds; @f->t holds it after. */
static void ft_prepare(struct ft *f, enum ft_op op, struct ft_state *want)
{
	struct nlt *t = &f->t;
	unsigned int i, nest, rule;

	switch (op) {
	case FT_DEL:
	case FT_FLUSH:
		ft_add(f, 1);
		ft_add(f, 2);
		break;
	case FT_DISABLE:
		ft_simple(f, MMB_CMD_DEV_ENABLE);
		break;
	default:
		break;
	}
	ft_state(f, want);
	switch (op) {
	case FT_ADD:
	case FT_ADD_NAT:
		nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
		ft_rule(t, MMB_A_RULE, 53, op == FT_ADD_NAT);
		want->nrules++;
		break;
	case FT_BATCH:
		nlt_begin(t, t->family, MMB_CMD_RULE_BATCH);
		for (i = 0; i < 3; i++) {
			nest = nlt_nest(t, MMB_A_OP);
			nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_ADD);
			ft_rule(t, MMB_BATCH_A_RULE, 100 + i, i == 1);
			nlt_nest_end(t, nest);
		}
		nest = nlt_nest(t, MMB_A_OP);
		nlt_u8(t, MMB_BATCH_A_CMD, MMB_CMD_RULE_DEL);
		rule = nlt_nest(t, MMB_BATCH_A_RULE);
		/* the first add's handle: the next one the namespace gives */
		nlt_u32(t, MMB_RULE_A_HANDLE, mmb_pernet(f->net)->rules.next_handle);
		nlt_nest_end(t, rule);
		nlt_nest_end(t, nest);
		want->nrules += 2;
		break;
	case FT_DEL:
		nlt_begin(t, t->family, MMB_CMD_RULE_DEL);
		nest = nlt_nest(t, MMB_A_RULE);
		nlt_u32(t, MMB_RULE_A_HANDLE, mmb_pernet(f->net)->rules.next_handle - 1);
		nlt_nest_end(t, nest);
		want->nrules--;
		break;
	case FT_FLUSH:
		nlt_begin(t, t->family, MMB_CMD_RULE_FLUSH);
		want->nrules = 0;
		break;
	case FT_ENABLE:
	case FT_DISABLE:
		nlt_begin(t, t->family, op == FT_ENABLE ? MMB_CMD_DEV_ENABLE : MMB_CMD_DEV_DISABLE);
		nlt_u32(t, MMB_A_IFINDEX, f->dev->ifindex);
		want->enabled = op == FT_ENABLE;
		break;
	case FT_ENABLE_NAME:	/* the device's name: remembered, and the device attached */
		nlt_begin(t, t->family, MMB_CMD_DEV_ENABLE);
		nlt_put(t, MMB_A_IFNAME, f->dev->name, strlen(f->dev->name) + 1);
		want->enabled = true;
		want->names++;
		break;
	case FT_ADD_IN_LOG:
		nlt_begin(t, t->family, MMB_CMD_RULE_ADD);
		rule = nlt_nest(t, MMB_A_RULE);
		nest = nlt_nest(t, MMB_RULE_A_MATCHES);
		i = nlt_nest(t, 1);
		nlt_u16(t, MMB_MATCH_A_FIELD, MMB_FIELD_IN);
		nlt_put(t, MMB_MATCH_A_IFNAME, FT_IFNAME, sizeof(FT_IFNAME));
		nlt_nest_end(t, i);
		nlt_nest_end(t, nest);
		nest = nlt_nest(t, MMB_RULE_A_TARGETS);
		i = nlt_nest(t, 1);
		nlt_u8(t, MMB_TARGET_A_TYPE, MMB_TARGET_DROP);
		nlt_nest_end(t, i);
		nlt_nest_end(t, nest);
		nest = nlt_nest(t, MMB_RULE_A_LOG);
		nlt_put(t, MMB_LOG_A_PREFIX, "ft", 3);
		nlt_nest_end(t, nest);
		nlt_nest_end(t, rule);
		want->nrules++;
		want->held = true;
		break;
	case FT_SET:
		ft_set_max(t, want->conn_max + 1);
		want->conn_max++;
		break;
	default:
		break;
	}
}

/* Back to no rules, mmb off the device, conn-max as it was. */
static void ft_reset(struct ft *f, u32 conn_max)
{
	struct ft_state s;

	ft_simple(f, MMB_CMD_RULE_FLUSH);
	ft_state(f, &s);
	if (s.names) {		/* the name forgotten, its device detached */
		nlt_begin(&f->t, f->t.family, MMB_CMD_DEV_DISABLE);
		nlt_put(&f->t, MMB_A_IFNAME, f->dev->name, strlen(f->dev->name) + 1);
		KUNIT_ASSERT_EQ(f->test, ft_send(f), 0);
		ft_state(f, &s);
	}
	if (s.enabled)
		ft_simple(f, MMB_CMD_DEV_DISABLE);
	ft_set_max(&f->t, conn_max);
	KUNIT_ASSERT_EQ(f->test, ft_send(f), 0);
}

static bool ft_same(const struct ft_state *a, const struct ft_state *b)
{
	return a->nrules == b->nrules && a->enabled == b->enabled && a->names == b->names &&
	       a->held == b->held && a->conn_max == b->conn_max;
}

/* @op with each of its allocations failing in turn; returns how many. */
static unsigned int ft_op(struct ft *f, enum ft_op op)
{
	struct ft_state base, before, want, now;
	unsigned int n;
	int ret;

	ft_state(f, &base);
	for (n = 1; n < FT_MAX_N; n++) {
		ft_prepare(f, op, &want);
		ft_state(f, &before);
		WRITE_ONCE(current->fail_nth, n);
		ret = ft_send(f);
		if (READ_ONCE(current->fail_nth)) {	/* ran without a failure */
			WRITE_ONCE(current->fail_nth, 0);
			KUNIT_EXPECT_EQ_MSG(f->test, ret, 0, "%s with no failure", ft_names[op]);
			ft_state(f, &now);
			KUNIT_EXPECT_TRUE_MSG(f->test, ft_same(&now, &want), "%s: not done",
					      ft_names[op]);
			ft_reset(f, base.conn_max);
			return n - 1;
		}
		f->injected++;
		ft_state(f, &now);
		if (ret < 0) {
			f->refused++;
			KUNIT_EXPECT_TRUE_MSG(f->test, ft_same(&now, &before),
					      "%s, allocation %u failed, error %d: state changed",
					      ft_names[op], n, ret);
		} else {
			bool either = ft_same(&now, &before) || ft_same(&now, &want);

			if (ret)
				f->lost++;	/* the request or its answer */
			else
				f->absorbed++;
			KUNIT_EXPECT_TRUE_MSG(f->test, either, "%s, allocation %u failed: %s",
					      ft_names[op], n, "half done");
		}
		ft_reset(f, base.conn_max);
	}
	KUNIT_FAIL(f->test, "%s: still failing after %u allocations", ft_names[op], n);
	return n;
}

static void faults_control_path_test(struct kunit *test)
{
	struct ft *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned int op, n, total = 0, nets = 0;
	struct net *net;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->rx = kunit_kzalloc(test, NLT_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->rx);
	KUNIT_ASSERT_EQ(test, ft_fail_sleepers(true), 0);

	/* A namespace being created: mmb's part of it fails cleanly. */
	for (n = 1; n < FT_MAX_N; n++) {
		WRITE_ONCE(current->fail_nth, n);
		net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
		if (READ_ONCE(current->fail_nth)) {
			WRITE_ONCE(current->fail_nth, 0);
			KUNIT_EXPECT_FALSE(test, IS_ERR(net));
			if (!IS_ERR(net))
				put_net(net);
			break;
		}
		if (!IS_ERR(net))
			put_net(net);
		else
			nets++;
	}
	kunit_info(test, "new namespace: %u allocations, %u of them failing it", n - 1, nets);

	f->net = mmbt_netns_new(test, &f->dev);
	nlt_open_net(test, &f->t, f->net);

	for (op = 0; op < FT_OPS; op++) {
		n = ft_op(f, op);
		total += n;
		kunit_info(test, "%s: %u allocations, each failed once", ft_names[op], n);
	}
	kunit_info(test, "%u failures injected: %u refused, %u absorbed, %u lost (request or answer)",
		   f->injected, f->refused, f->absorbed, f->lost);
	KUNIT_EXPECT_EQ(test, total, f->injected);
	KUNIT_EXPECT_GT(test, f->refused, FT_OPS);

	KUNIT_EXPECT_EQ(test, ft_fail_sleepers(false), 0);
	nlt_close(&f->t);
	mmbt_netns_done(test, f->net, f->dev);
}

static struct kunit_case mmb_faults_cases[] = {
	KUNIT_CASE(faults_control_path_test),
	{}
};

static struct kunit_suite mmb_faults_suite = {
	.name = "mmb-faults",
	.test_cases = mmb_faults_cases,
};

kunit_test_suite(mmb_faults_suite);
