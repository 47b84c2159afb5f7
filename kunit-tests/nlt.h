/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb KUnit: the generic netlink family spoken over a kernel netlink
 * socket, as mmbctl speaks it (nlt.c), for the netlink suites.
 */
#ifndef _MMB_KUNIT_NLT_H
#define _MMB_KUNIT_NLT_H

#include <kunit/test.h>
#include <linux/net.h>

#define NLT_BUF		8192

/* A request being built, and what the kernel answered to the last one. */
struct nlt {
	struct kunit *test;
	struct socket *sock;
	u16 family;
	u32 events;		/* the events group's id */
	u32 seq;
	u8 *buf;
	unsigned int len;
	u8 *rx;
	int err;		/* of the last request: 0 or -errno */
	int offs;		/* NLMSGERR_ATTR_OFFS, or -1 */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, or -1 */
	int miss_nest;		/* NLMSGERR_ATTR_MISS_NEST, or -1 */
	char msg[96];		/* NLMSGERR_ATTR_MSG */
	u32 handle;		/* MMB_RULE_A_HANDLE of an add's reply */
	u8 *reply;		/* the last reply, if any: a copy */
	unsigned int reply_len;
	unsigned int nattrs;	/* attributes of the request so far */
	u16 attr[256];		/* and their offsets */
	s16 parent[256];	/* and the index of the nest they are in, or -1 */
	s16 open;		/* the nest being built, or -1 */
};

struct nlmsghdr *nlt_hdr(struct nlt *t);
void nlt_begin(struct nlt *t, u16 type, u8 cmd);
unsigned int nlt_put(struct nlt *t, u16 type, const void *data, unsigned int len);
unsigned int nlt_u8(struct nlt *t, u16 type, u8 v);
unsigned int nlt_u16(struct nlt *t, u16 type, u16 v);
unsigned int nlt_u32(struct nlt *t, u16 type, u32 v);
unsigned int nlt_nest(struct nlt *t, u16 type);
void nlt_nest_end(struct nlt *t, unsigned int off);
int nlt_try_xmit(struct nlt *t);
void nlt_xmit(struct nlt *t);
int nlt_answer(struct nlt *t, void *rx, unsigned int size, int *err);
int nlt_rx(struct nlt *t);
void nlt_recv(struct nlt *t);
int nlt_send(struct nlt *t);
void nlt_open(struct kunit *test, struct nlt *t);
void nlt_open_net(struct kunit *test, struct nlt *t, struct net *net);
void nlt_open_bare(struct kunit *test, struct nlt *t, u16 family);
void nlt_close(struct nlt *t);
bool nlt_dump(struct nlt *t, u8 cmd, void (*between)(struct nlt *), struct nlt *other,
	      unsigned int *n);
int nlt_flush(struct nlt *t);
int nlt_join_events(struct nlt *t);
unsigned int nlt_dump_each(struct nlt *t, u8 cmd,
			   void (*fn)(struct nlt *t, const struct nlmsghdr *nlh, void *arg),
			   void *arg);

#endif /* _MMB_KUNIT_NLT_H */
