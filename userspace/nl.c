// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: generic netlink plumbing over libmnl. Resolves the "mmb" family,
 * sends one request, collects its answers and the kernel's extended ACK.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../uapi/linux/mmb.h"
#include "nl.h"

bool mmb_nl_dry;
static struct mnl_socket *sock;
static uint16_t family_id;
static uint32_t events_group;	/* 0 until the family says */
static uint32_t log_group;	/* likewise, MMB_GENL_MCGRP_LOG */

/* One multicast group of the family: the events group's id, if it is. */
static int group_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *a, *name = NULL, *id = NULL;

	mnl_attr_for_each_nested(a, attr) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			name = a;
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			id = a;
	}
	if (name && id && !strcmp(mnl_attr_get_str(name), MMB_GENL_MCGRP_EVENTS))
		events_group = mnl_attr_get_u32(id);
	if (name && id && !strcmp(mnl_attr_get_str(name), MMB_GENL_MCGRP_LOG))
		log_group = mnl_attr_get_u32(id);
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *g;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
		*(uint16_t *)data = mnl_attr_get_u16(attr);
	if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS)
		mnl_attr_for_each_nested(g, attr)
			group_cb(g, NULL);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			      data);
}

static struct nlmsghdr *msg_start(char *buf, uint16_t type, uint16_t flags,
				  uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = time(NULL);
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

static int talk(struct mmb_req *req, mmb_nl_data_cb cb, void *data,
		struct mmb_nl_err *err, bool *intr);

static int resolve_family(struct mmb_nl_err *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mmb_req req = { .buf = buf, .bufsize = sizeof(buf) };

	req.nlh = msg_start(buf, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(req.nlh, CTRL_ATTR_FAMILY_NAME, MMB_GENL_NAME);
	if (talk(&req, family_cb, &family_id, err, NULL) == 0 && family_id)
		return 0;
	if (err->error == ENOENT || !family_id) {
		err->local = true;
		snprintf(err->msg, sizeof(err->msg),
			 "the mmb kernel module is not loaded (no generic netlink family \"%s\")",
			 MMB_GENL_NAME);
	}
	err->error = err->error ?: ENOENT;
	return -1;
}

static int nl_open(struct mmb_nl_err *err)
{
	int one = 1;

	sock = mnl_socket_open(NETLINK_GENERIC);
	if (!sock || mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err->error = errno;
		err->local = true;
		snprintf(err->msg, sizeof(err->msg),
			 "cannot open a generic netlink socket: %s", strerror(errno));
		return -1;
	}
	/* Older kernels lack these; errors then come without detail. */
	mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	/* Errors need not echo the request: a batch can be megabytes. */
	mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &one, sizeof(one));
	return resolve_family(err);
}

/* A clean @err, and the socket open (on first use); 0 or -1. */
static int nl_ready(struct mmb_nl_err *err)
{
	memset(err, 0, sizeof(*err));
	err->argi = -1;
	err->off = -1;
	return !sock && nl_open(err) ? -1 : 0;
}

/* Room in the socket for one large request (a batch); 0 or -1. */
int mmb_nl_sndbuf(size_t size, struct mmb_nl_err *err)
{
	int v = size > INT_MAX / 2 ? INT_MAX / 2 : (int)size + 4096;

	if (mmb_nl_dry)
		return 0;
	if (nl_ready(err))
		return -1;
	/* Past wmem_max needs CAP_NET_ADMIN, which changing rules needs anyway. */
	if (setsockopt(mnl_socket_get_fd(sock), SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(mnl_socket_get_fd(sock), SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	return 0;
}

void mmb_nl_close(void)
{
	if (sock)
		mnl_socket_close(sock);
	sock = NULL;
}

struct mmb_req *mmb_req_new(uint8_t cmd, uint16_t flags)
{
	return mmb_req_new_size(cmd, flags, MNL_SOCKET_BUFFER_SIZE);
}

struct mmb_req *mmb_req_new_size(uint8_t cmd, uint16_t flags, size_t size)
{
	struct mmb_req *req = calloc(1, sizeof(*req));

	if (!req)
		return NULL;
	req->bufsize = size;
	req->buf = calloc(1, req->bufsize);
	if (!req->buf) {
		free(req);
		return NULL;
	}
	/* The family id is filled in when the request is sent. */
	req->nlh = msg_start(req->buf, 0, flags, cmd, MMB_GENL_VERSION);
	return req;
}

void mmb_req_free(struct mmb_req *req)
{
	if (!req)
		return;
	free(req->buf);
	free(req);
}

/* The word behind the attribute at @off: the innermost one containing it. */
int mmb_req_token_at(const struct mmb_req *req, uint32_t off)
{
	int best = -1;
	uint32_t best_off = 0;
	unsigned int i;

	for (i = 0; i < req->ntok; i++) {
		const struct nlattr *a = (void *)((char *)req->nlh + req->tok[i].off);

		if (off >= req->tok[i].off && off < req->tok[i].off + a->nla_len &&
		    req->tok[i].off >= best_off) {
			best = req->tok[i].argi;
			best_off = req->tok[i].off;
		}
	}
	return best;
}

/* What the callbacks of one exchange share: libmnl passes them one pointer. */
struct talk {
	const struct mmb_req *req;
	struct mmb_nl_err *err;
	mmb_nl_data_cb cb;
	void *data;
	bool intr;		/* a dump's answer says it spanned a change */
};

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct talk *t = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(t->err->msg, sizeof(t->err->msg), "%s",
				 mnl_attr_get_str(attr));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0) {
			t->err->off = mnl_attr_get_u32(attr);
			t->err->argi = mmb_req_token_at(t->req, t->err->off);
		}
		break;
	}
	return MNL_CB_OK;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	unsigned int off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		t->err->error = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (e->error == 0)
		return MNL_CB_STOP;
	t->err->error = -e->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len)
			mnl_attr_parse(nlh, off, extack_attr_cb, t);
	}
	return MNL_CB_ERROR;
}

/* The end of a dump; it carries the dump's error, if any. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int error;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		t->intr = true;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(error)))
		return MNL_CB_STOP;
	memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	if (error >= 0)
		return MNL_CB_STOP;
	t->err->error = -error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, sizeof(error), extack_attr_cb, t);
	return MNL_CB_ERROR;
}

static int noop_cb(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_OK;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		t->intr = true;
	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_NOOP] = noop_cb,
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

/*
 * Send @req and run @cb on each answer until the kernel acknowledges it or
 * ends the dump. Returns 0, or -1 with @err filled in. The socket is opened
 * on first use.
 */
int mmb_nl_talk(struct mmb_req *req, mmb_nl_data_cb cb, void *data,
		struct mmb_nl_err *err)
{
	if (mmb_nl_dry)
		return 0;
	if (nl_ready(err))
		return -1;
	req->nlh->nlmsg_type = family_id;
	return talk(req, cb, data, err, NULL);
}

/* A dump's answers, kept until the dump is known to be consistent. */
struct dump_copy {
	char *buf;
	size_t len, size;
};

static int dump_copy_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_copy *d = data;
	size_t need = NLMSG_ALIGN(nlh->nlmsg_len);

	if (d->len + need > d->size) {
		size_t size = d->size ? d->size * 2 : 1 << 16;
		char *buf;

		while (size < d->len + need)
			size *= 2;
		buf = realloc(d->buf, size);
		if (!buf) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		d->buf = buf;
		d->size = size;
	}
	memcpy(d->buf + d->len, nlh, nlh->nlmsg_len);
	d->len += need;
	return MNL_CB_OK;
}

/*
 * Join the events group and run @cb on every event until it says stop,
 * or an error: 0, or -1 with @err filled in.
 */
int mmb_nl_monitor(mmb_nl_data_cb cb, void *data, struct mmb_nl_err *err)
{
	return mmb_nl_monitor_group(MMB_GENL_MCGRP_EVENTS, cb, data, err);
}

int mmb_nl_monitor_group(const char *name, mmb_nl_data_cb cb, void *data,
			 struct mmb_nl_err *err)
{
	char buf[32768];
	uint32_t group;
	ssize_t n;
	int ret;

	if (mmb_nl_dry)
		return 0;
	if (nl_ready(err))
		return -1;
	group = !strcmp(name, MMB_GENL_MCGRP_LOG) ? log_group : events_group;
	if (!group) {
		err->error = ENOENT;
		err->local = true;
		snprintf(err->msg, sizeof(err->msg), "this mmb module has no \"%s\" group", name);
		return -1;
	}
	if (mnl_socket_setsockopt(sock, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group))) {
		err->error = errno;
		return -1;
	}
	for (;;) {
		n = mnl_socket_recvfrom(sock, buf, sizeof(buf));
		if (n < 0 && errno == ENOBUFS) {
			fprintf(stderr, "Warning: events were lost (ENOBUFS): the socket overflowed\n");
			continue;
		}
		if (n < 0) {
			err->error = errno;
			return -1;
		}
		ret = mnl_cb_run(buf, n, 0, 0, cb, data);
		if (ret <= 0)
			break;
	}
	if (ret < 0) {
		err->error = errno ?: EIO;
		return -1;
	}
	return 0;
}

#define MMB_DUMP_TRIES 16

/*
 * Dump @req and run @cb on each answer, once the whole dump comes from one
 * state of the kernel: a dump that spans a change (the kernel flags it
 * NLM_F_DUMP_INTR) is thrown away and asked again, as iproute2 does, so a
 * listing is never half one ruleset and half the next.
 */
int mmb_nl_dump(struct mmb_req *req, mmb_nl_data_cb cb, void *data,
		struct mmb_nl_err *err)
{
	struct dump_copy d = {};
	const struct nlmsghdr *nlh;
	int tries, ret = -1;
	bool intr = true;
	size_t off;

	if (mmb_nl_dry)
		return 0;
	if (nl_ready(err))
		return -1;
	req->nlh->nlmsg_type = family_id;
	for (tries = 0; intr && tries < MMB_DUMP_TRIES; tries++) {
		d.len = 0;
		req->nlh->nlmsg_seq++;
		if (talk(req, dump_copy_cb, &d, err, &intr))
			goto out;
	}
	if (intr) {
		err->error = EAGAIN;
		err->local = true;
		snprintf(err->msg, sizeof(err->msg),
			 "the state kept changing during %d dumps in a row; try again",
			 MMB_DUMP_TRIES);
		goto out;
	}
	for (off = 0; off < d.len; off += NLMSG_ALIGN(nlh->nlmsg_len)) {
		nlh = (const struct nlmsghdr *)(d.buf + off);
		if (cb(nlh, data) < MNL_CB_OK)
			break;
	}
	ret = 0;
out:
	free(d.buf);
	return ret;
}

static int talk(struct mmb_req *req, mmb_nl_data_cb cb, void *data,
		struct mmb_nl_err *err, bool *intr)
{
	char buf[32768];	/* libmnl's MNL_SOCKET_DUMP_SIZE, absent from 1.0.4 */
	struct talk t = { .req = req, .err = err, .cb = cb, .data = data };
	unsigned int portid = mnl_socket_get_portid(sock);
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(sock, req->nlh, req->nlh->nlmsg_len) < 0) {
		err->error = errno;
		return -1;
	}
	do {
		n = mnl_socket_recvfrom(sock, buf, sizeof(buf));
		if (n < 0) {
			err->error = errno;
			return -1;
		}
		ret = mnl_cb_run2(buf, n, req->nlh->nlmsg_seq, portid, data_cb,
				  &t, ctl_cbs, NLMSG_MIN_TYPE);
	} while (ret > 0);
	if (intr)
		*intr = t.intr;
	if (ret < 0) {
		if (!err->error)
			err->error = errno ?: EIO;
		return -1;
	}
	return 0;
}
