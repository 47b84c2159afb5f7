// SPDX-License-Identifier: GPL-2.0
/*
 * mmb KUnit: requests to the generic netlink family over a kernel netlink
 * socket, and what the kernel answers: the ACK with its extended ACK, a
 * reply, a dump.
 */
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "../kmod/mmb.h"
#include "nlt.h"

struct nlmsghdr *nlt_hdr(struct nlt *t)
{
	return (struct nlmsghdr *)t->buf;
}

void nlt_begin(struct nlt *t, u16 type, u8 cmd)
{
	struct nlmsghdr *nlh = nlt_hdr(t);
	struct genlmsghdr *g = nlmsg_data(nlh);

	memset(t->buf, 0, NLT_BUF);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++t->seq;
	g->cmd = cmd;
	g->version = MMB_GENL_VERSION;
	t->len = NLMSG_HDRLEN + GENL_HDRLEN;
	t->nattrs = 0;
	t->open = -1;
}

/* Append an attribute; returns its offset in the message. */
unsigned int nlt_put(struct nlt *t, u16 type, const void *data, unsigned int len)
{
	struct nlattr *a = (struct nlattr *)(t->buf + t->len);
	unsigned int off = t->len;

	KUNIT_ASSERT_LE(t->test, t->len + nla_total_size(len), NLT_BUF);
	a->nla_type = type;
	a->nla_len = nla_attr_size(len);
	KUNIT_ASSERT_LT(t->test, t->nattrs, ARRAY_SIZE(t->attr));
	t->parent[t->nattrs] = t->open;
	t->attr[t->nattrs++] = off;
	if (len)
		memcpy(nla_data(a), data, len);
	t->len += nla_total_size(len);
	return off;
}

unsigned int nlt_u8(struct nlt *t, u16 type, u8 v)
{
	return nlt_put(t, type, &v, 1);
}

unsigned int nlt_u16(struct nlt *t, u16 type, u16 v)
{
	return nlt_put(t, type, &v, 2);
}

unsigned int nlt_u32(struct nlt *t, u16 type, u32 v)
{
	return nlt_put(t, type, &v, 4);
}

unsigned int nlt_nest(struct nlt *t, u16 type)
{
	unsigned int off = nlt_put(t, type | NLA_F_NESTED, NULL, 0);

	t->open = t->nattrs - 1;
	return off;
}

void nlt_nest_end(struct nlt *t, unsigned int off)
{
	((struct nlattr *)(t->buf + off))->nla_len = t->len - off;
	/* A test may close what it did not open: a nest made by hand. */
	if (t->open >= 0)
		t->open = t->parent[t->open];
}

/*
 * Send the t->len bytes of the request as they are, its header's length
 * as the caller left it; returns what kernel_sendmsg() did. A fuzzed or
 * fault-injected request may fail here.
 */
int nlt_try_xmit(struct nlt *t)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct kvec vec = { .iov_base = t->buf, .iov_len = t->len };
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to) };

	return kernel_sendmsg(t->sock, &msg, &vec, 1, t->len);
}

/* Send the request built in @t to the kernel. */
void nlt_xmit(struct nlt *t)
{
	nlt_hdr(t)->nlmsg_len = t->len;
	KUNIT_ASSERT_EQ(t->test, nlt_try_xmit(t), (int)t->len);
}

/*
 * Read the answer to the last request into @rx (@size bytes), whatever it
 * is: NLMSG_ERROR with *err set (0 for an acknowledgment), NLMSG_DONE at
 * the end of a dump, or 0 if nothing that ends it came.
 */
int nlt_answer(struct nlt *t, void *rx, unsigned int size, int *err)
{
	unsigned int rounds;

	for (rounds = 0; rounds < 1000; rounds++) {
		struct kvec vec = { .iov_base = rx, .iov_len = size };
		struct msghdr msg = {};
		struct nlmsghdr *nlh = rx;
		int rem;

		rem = kernel_recvmsg(t->sock, &msg, &vec, 1, size, MSG_DONTWAIT);
		if (rem <= 0)
			return 0;
		for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_seq != t->seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				*err = ((struct nlmsgerr *)nlmsg_data(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE)
				return nlh->nlmsg_type;
		}
	}
	return 0;
}

/* Receive what the kernel answered into t->rx (it answers at once). */
int nlt_rx(struct nlt *t)
{
	struct kvec vec = { .iov_base = t->rx, .iov_len = NLT_BUF };
	struct msghdr msg = {};
	int len = kernel_recvmsg(t->sock, &msg, &vec, 1, NLT_BUF, MSG_DONTWAIT);

	KUNIT_ASSERT_GT(t->test, len, 0);
	return len;
}

/* Read the answer to the request just sent: a reply, then the ACK. */
void nlt_recv(struct nlt *t)
{
	struct nlmsghdr *nlh;
	int rem;

	for (;;) {
		rem = nlt_rx(t);
		nlh = (struct nlmsghdr *)t->rx;
		for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
			struct nlmsgerr *e = nlmsg_data(nlh);
			struct nlattr *a;
			int arem;

			if (nlh->nlmsg_seq != t->seq)
				continue;
			if (nlh->nlmsg_type != NLMSG_ERROR) {
				t->reply_len = min_t(unsigned int, nlh->nlmsg_len, NLT_BUF);
				memcpy(t->reply, nlh, t->reply_len);
				/* genl header, then MMB_A_RULE { MMB_RULE_A_HANDLE } */
				a = nlmsg_find_attr(nlh, GENL_HDRLEN, MMB_A_RULE);
				a = a ? nla_find_nested(a, MMB_RULE_A_HANDLE) : NULL;
				if (a)
					t->handle = nla_get_u32(a);
				continue;
			}
			t->err = e->error;
			if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
				return;
			/* NETLINK_CAP_ACK: the request's header only. */
			nla_for_each_attr(a, (void *)(e + 1), nlmsg_len(nlh) - sizeof(*e), arem) {
				if (nla_type(a) == NLMSGERR_ATTR_OFFS)
					t->offs = nla_get_u32(a);
				if (nla_type(a) == NLMSGERR_ATTR_MISS_TYPE)
					t->miss_type = nla_get_u32(a);
				if (nla_type(a) == NLMSGERR_ATTR_MISS_NEST)
					t->miss_nest = nla_get_u32(a);
				if (nla_type(a) == NLMSGERR_ATTR_MSG)
					strscpy(t->msg, nla_data(a), sizeof(t->msg));
			}
			return;
		}
	}
}

/* Send the request built in @t; returns the error of its ACK. */
int nlt_send(struct nlt *t)
{
	t->err = 1;
	t->offs = -1;
	t->miss_type = -1;
	t->miss_nest = -1;
	t->msg[0] = '\0';
	t->handle = 0;
	t->reply_len = 0;
	nlt_xmit(t);
	nlt_recv(t);
	KUNIT_ASSERT_NE(t->test, t->err, 1);
	return t->err;
}

static int nlt_setsockopt(struct socket *sock, int opt)
{
	int one = 1;

	return sock->ops->setsockopt(sock, SOL_NETLINK, opt, KERNEL_SOCKPTR(&one), sizeof(one));
}

void nlt_open(struct kunit *test, struct nlt *t)
{
	nlt_open_net(test, t, &init_net);
}

/* A generic netlink socket in @net and @t's buffers; nothing read or sent. */
static void nlt_sock_new(struct kunit *test, struct nlt *t, struct net *net)
{
	memset(t, 0, sizeof(*t));
	t->test = test;
	t->buf = kunit_kzalloc(test, NLT_BUF, GFP_KERNEL);
	t->rx = kunit_kzalloc(test, NLT_BUF, GFP_KERNEL);
	t->reply = kunit_kzalloc(test, NLT_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->reply);
	KUNIT_ASSERT_NOT_NULL(test, t->buf);
	KUNIT_ASSERT_NOT_NULL(test, t->rx);
	KUNIT_ASSERT_EQ(test, sock_create_kern(net, AF_NETLINK, SOCK_RAW,
					       NETLINK_GENERIC, &t->sock), 0);
}

/* A socket in @net: the requests act on its state. */
void nlt_open_net(struct kunit *test, struct nlt *t, struct net *net)
{
	struct nlattr *a;

	nlt_sock_new(test, t, net);
	KUNIT_ASSERT_EQ(test, nlt_setsockopt(t->sock, NETLINK_EXT_ACK), 0);
	KUNIT_ASSERT_EQ(test, nlt_setsockopt(t->sock, NETLINK_CAP_ACK), 0);

	/* The family's id, from the controller, as any client learns it. */
	nlt_begin(t, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	nlt_hdr(t)->nlmsg_flags = NLM_F_REQUEST;
	nlt_put(t, CTRL_ATTR_FAMILY_NAME, MMB_GENL_NAME, sizeof(MMB_GENL_NAME));
	nlt_xmit(t);
	nlt_rx(t);
	a = nlmsg_find_attr((struct nlmsghdr *)t->rx, GENL_HDRLEN, CTRL_ATTR_FAMILY_ID);
	KUNIT_ASSERT_NOT_NULL(test, a);
	t->family = nla_get_u16(a);
	/* And the id of its events group. */
	a = nlmsg_find_attr((struct nlmsghdr *)t->rx, GENL_HDRLEN, CTRL_ATTR_MCAST_GROUPS);
	if (a) {
		struct nlattr *g, *id, *name;
		int rem;

		nla_for_each_nested(g, a, rem) {
			id = nla_find_nested(g, CTRL_ATTR_MCAST_GRP_ID);
			name = nla_find_nested(g, CTRL_ATTR_MCAST_GRP_NAME);
			if (id && name && !nla_strcmp(name, MMB_GENL_MCGRP_EVENTS))
				t->events = nla_get_u32(id);
		}
	}
}

/*
 * A socket that speaks @family without having read anything: its first
 * dump's skb is NLMSG_GOODSIZE, where a socket that has read takes as
 * much as its largest read.
 */
void nlt_open_bare(struct kunit *test, struct nlt *t, u16 family)
{
	nlt_sock_new(test, t, &init_net);
	t->family = family;
}

/* Join the events group: the socket then receives them. */
int nlt_join_events(struct nlt *t)
{
	return t->sock->ops->setsockopt(t->sock, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
					KERNEL_SOCKPTR(&t->events), sizeof(t->events));
}

void nlt_close(struct nlt *t)
{
	sock_release(t->sock);
}

/*
 * Dump @cmd, reading one skb of answers at a time; run @between (if any)
 * after the first read and @fn (if any) on each answer but the end.
 * Returns whether any answer, the end included, was flagged
 * NLM_F_DUMP_INTR; *@n counts the answers before the end.
 */
static bool nlt_dump_run(struct nlt *t, u8 cmd, void (*between)(struct nlt *),
			 struct nlt *other,
			 void (*fn)(struct nlt *t, const struct nlmsghdr *nlh, void *arg),
			 void *arg, unsigned int *n)
{
	bool intr = false, done = false;
	struct nlmsghdr *nlh;
	unsigned int reads = 0;
	int rem;

	nlt_begin(t, t->family, cmd);
	nlt_hdr(t)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlt_xmit(t);
	*n = 0;
	while (!done) {
		/* A read makes the kernel fill the next skb of the dump. */
		rem = nlt_rx(t);
		if (++reads == 1 && between)
			between(other);
		for (nlh = (void *)t->rx; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = true;
			if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			if (fn)
				fn(t, nlh, arg);
			(*n)++;
		}
	}
	return intr;
}

/* Dump @cmd; run @between after the first read. NLM_F_DUMP_INTR seen? */
bool nlt_dump(struct nlt *t, u8 cmd, void (*between)(struct nlt *), struct nlt *other,
	      unsigned int *n)
{
	return nlt_dump_run(t, cmd, between, other, NULL, NULL, n);
}

/* Dump @cmd; run @fn on each answer but the end. Returns how many. */
unsigned int nlt_dump_each(struct nlt *t, u8 cmd,
			   void (*fn)(struct nlt *t, const struct nlmsghdr *nlh, void *arg),
			   void *arg)
{
	unsigned int n;

	nlt_dump_run(t, cmd, NULL, NULL, fn, arg, &n);
	return n;
}

int nlt_flush(struct nlt *t)
{
	nlt_begin(t, t->family, MMB_CMD_RULE_FLUSH);
	return nlt_send(t);
}

