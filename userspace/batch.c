// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl -f FILE: a file of add, del and flush commands applied as one
 * transaction. Every line is parsed first; an error anywhere names the file,
 * line and word, and nothing is sent. Then one MMB_CMD_RULE_BATCH carries
 * them all, one MMB_A_OP attribute each (an attribute holds at most 64 KiB,
 * a message more), and the kernel applies all or none; its error, too, is mapped
 * back to the line and word.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "rule.h"

/* One command of the file, encoded. */
struct op {
	uint8_t cmd;
	unsigned int line;
	char *text;		/* the line's words, NUL-separated */
	char **w;
	int n;
	void *attrs;		/* its attributes as sent (MMB_A_RULE) */
	size_t len;
	struct {
		uint32_t off;	/* in attrs */
		uint32_t len;
		int argi;
	} *tok;
	unsigned int ntok;
	uint32_t base;		/* offset of attrs in the batch message */
};

struct batch {
	const char *file;
	struct op *ops;
	unsigned int n, cap;
};

static int split_words(struct op *op, char *line)
{
	char *hash = strchr(line, '#'), *tok, *save;
	int cap = 8;

	if (hash)
		*hash = '\0';
	op->text = strdup(line);
	op->w = malloc(cap * sizeof(*op->w));
	if (!op->text || !op->w)
		return -1;
	for (tok = strtok_r(op->text, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (op->n == cap) {
			char **w = realloc(op->w, (cap *= 2) * sizeof(*w));

			if (!w)
				return -1;
			op->w = w;
		}
		op->w[op->n++] = tok;
	}
	return 0;
}

/* Encode one command with the scratch request; keep its attributes. */
static int encode(struct op *op, struct urule *r, struct mmb_req *req)
{
	size_t start = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned int i;
	int ret = 0;

	req->nlh->nlmsg_len = start;
	req->ntok = 0;
	if (!strcmp(op->w[0], "add")) {
		op->cmd = MMB_CMD_RULE_ADD;
		ret = urule_parse(op->n, op->w, 1, r);
		if (!ret)
			urule_put(req, r);
	} else if (!strcmp(op->w[0], "del")) {
		op->cmd = MMB_CMD_RULE_DEL;
		ret = handle_put(req, op->n, op->w);
	} else if (!strcmp(op->w[0], "flush")) {
		op->cmd = MMB_CMD_RULE_FLUSH;
		if (op->n > 1)
			ret = err_word(1, "unexpected word after flush");
	} else {
		ret = err_word(0, "a file holds add, del and flush commands");
	}
	if (ret)
		goto out;
	op->len = req->nlh->nlmsg_len - start;
	op->attrs = malloc(op->len ?: 1);
	op->tok = calloc(req->ntok ?: 1, sizeof(*op->tok));
	if (!op->attrs || !op->tok) {
		ret = err_sys("allocating a request", ENOMEM);
		goto out;
	}
	memcpy(op->attrs, (char *)req->nlh + start, op->len);
	/* MMB_A_RULE of a single command is MMB_BATCH_A_RULE in a batch. */
	if (op->len)
		((struct nlattr *)op->attrs)->nla_type = NLA_F_NESTED | MMB_BATCH_A_RULE;
	for (i = 0; i < req->ntok; i++) {
		const struct nlattr *a = (void *)((char *)req->nlh + req->tok[i].off);

		op->tok[i].off = req->tok[i].off - start;
		op->tok[i].len = a->nla_len;
		op->tok[i].argi = req->tok[i].argi;
	}
	op->ntok = req->ntok;
out:
	return ret;
}

static int read_file(struct batch *b, FILE *f)
{
	struct mmb_req *scratch = mmb_req_new(0, 0);
	struct urule *r = calloc(1, sizeof(*r));
	unsigned int lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	int ret = 0;

	if (!r || !scratch) {
		free(r);
		mmb_req_free(scratch);
		return err_sys("allocating a rule", ENOMEM);
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		struct op *op;

		lineno++;
		if (b->n == b->cap) {
			struct op *ops = realloc(b->ops, (b->cap = b->cap * 2 + 64) * sizeof(*ops));

			if (!ops) {
				ret = err_sys("reading", ENOMEM);
				break;
			}
			b->ops = ops;
		}
		op = &b->ops[b->n];
		memset(op, 0, sizeof(*op));
		op->line = lineno;
		if (split_words(op, line)) {
			ret = err_sys("reading", ENOMEM);
			break;
		}
		if (!op->n) {
			free(op->text);
			free(op->w);
			continue;
		}
		b->n++;
		cur.file = b->file;
		cur.line = lineno;
		cur.n = op->n;
		cur.w = op->w;
		ret = encode(op, r, scratch);
	}
	if (!ret && ferror(f))
		ret = err_sys(b->file, errno);
	free(line);
	free(r);
	mmb_req_free(scratch);
	return ret;
}

/* Point a kernel error at the line and word its attribute came from. */
static void locate(struct batch *b, struct mmb_nl_err *err)
{
	unsigned int i, k;
	int best = -1;
	uint32_t bestoff = 0;

	if (err->off < 0)
		return;
	for (i = 0; i < b->n; i++) {
		struct op *op = &b->ops[i];

		if ((uint32_t)err->off < op->base || (uint32_t)err->off >= op->base + op->len)
			continue;
		for (k = 0; k < op->ntok; k++) {
			uint32_t off = op->base + op->tok[k].off;

			if ((uint32_t)err->off >= off && (uint32_t)err->off < off + op->tok[k].len &&
			    off >= bestoff) {
				best = op->tok[k].argi;
				bestoff = off;
			}
		}
		cur.line = op->line;
		cur.n = op->n;
		cur.w = op->w;
		err->argi = best >= 0 ? best : 0;
		return;
	}
}

static int send_batch(struct batch *b)
{
	struct mmb_nl_err err;
	struct nlattr *nest;
	struct mmb_req *req;
	size_t size = 4096;
	unsigned int i;
	int ret = EXIT_OK;

	for (i = 0; i < b->n; i++)
		size += b->ops[i].len + 16;
	req = mmb_req_new_size(MMB_CMD_RULE_BATCH, NLM_F_ACK, size);
	if (!req)
		return err_sys("allocating the batch", ENOMEM);
	for (i = 0; i < b->n; i++) {
		struct op *op = &b->ops[i];

		nest = mnl_attr_nest_start(req->nlh, MMB_A_OP);
		mnl_attr_put_u8(req->nlh, MMB_BATCH_A_CMD, op->cmd);
		op->base = (char *)mnl_nlmsg_get_payload_tail(req->nlh) - (char *)req->nlh;
		memcpy(mnl_nlmsg_get_payload_tail(req->nlh), op->attrs, op->len);
		req->nlh->nlmsg_len += MNL_ALIGN(op->len);
		mnl_attr_nest_end(req->nlh, nest);
	}
	if (mmb_nl_sndbuf(req->nlh->nlmsg_len, &err) ||
	    mmb_nl_talk(req, NULL, NULL, &err)) {
		locate(b, &err);
		ret = err_kernel(&err);
	}
	mmb_req_free(req);
	return ret;
}

int do_batch(const char *file)
{
	struct batch b = { .file = file };
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	unsigned int i;
	int ret;

	if (!f)
		return err_sys(file, errno);
	ret = read_file(&b, f);
	if (f != stdin)
		fclose(f);
	if (!ret && b.n)
		ret = send_batch(&b);
	for (i = 0; i < b.n; i++) {
		free(b.ops[i].text);
		free(b.ops[i].w);
		free(b.ops[i].attrs);
		free(b.ops[i].tok);
	}
	free(b.ops);
	return ret;
}
