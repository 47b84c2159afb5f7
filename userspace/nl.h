/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbctl: talking to the mmb generic netlink family with libmnl.
 */
#ifndef MMBCTL_NL_H
#define MMBCTL_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#define MMB_NL_MAX_TOKENS 256

/*
 * One request under construction. Attributes that come from the user's
 * words are tied to the word (its index in argv) so that an error the
 * kernel reports against an attribute points at the word.
 */
struct mmb_req {
	struct nlmsghdr *nlh;
	char *buf;
	size_t bufsize;
	unsigned int ntok;
	struct {
		uint32_t off;	/* attribute offset in the message */
		int argi;	/* word it came from */
	} tok[MMB_NL_MAX_TOKENS];
};

/* The kernel's answer to a failed request. */
struct mmb_nl_err {
	int error;		/* positive errno */
	char msg[256];		/* extack message, may be empty */
	bool local;		/* msg is mmbctl's own, complete sentence */
	int argi;		/* offending word, or -1 */
	int off;		/* offending attribute's offset, or -1 */
};

/* Tie @attr to word @argi; a full list (or a batch's) keeps no more. */
static inline void mmb_req_token(struct mmb_req *req, const struct nlattr *attr, int argi)
{
	if (req->ntok == MMB_NL_MAX_TOKENS)
		return;
	req->tok[req->ntok].off = (const char *)attr - (const char *)req->nlh;
	req->tok[req->ntok].argi = argi;
	req->ntok++;
}

typedef int (*mmb_nl_data_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * --dry-run: every request is built as usual and then not sent; each
 * call that would talk to the kernel succeeds with no answer.
 */
extern bool mmb_nl_dry;

void mmb_nl_close(void);
struct mmb_req *mmb_req_new(uint8_t cmd, uint16_t flags);
struct mmb_req *mmb_req_new_size(uint8_t cmd, uint16_t flags, size_t size);
int mmb_req_token_at(const struct mmb_req *req, uint32_t off);
int mmb_nl_sndbuf(size_t size, struct mmb_nl_err *err);
void mmb_req_free(struct mmb_req *req);
int mmb_nl_talk(struct mmb_req *req, mmb_nl_data_cb cb, void *data,
		struct mmb_nl_err *err);
int mmb_nl_dump(struct mmb_req *req, mmb_nl_data_cb cb, void *data,
		struct mmb_nl_err *err);
int mmb_nl_monitor(mmb_nl_data_cb cb, void *data, struct mmb_nl_err *err);
/* The same, of group @name (MMB_GENL_MCGRP_EVENTS, MMB_GENL_MCGRP_LOG). */
int mmb_nl_monitor_group(const char *name, mmb_nl_data_cb cb, void *data,
			 struct mmb_nl_err *err);

#endif /* MMBCTL_NL_H */
