// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl -f FILE: a file of add, add-stateful, del, flush, enable and set
 * commands applied as one transaction (the devices enabled and the
 * settings set when the rules are in place). Words are read as a shell reads them (quotes, backslashes,
 * # comments), so list's output, quoted for a shell, reads back. Every
 * line is parsed first; an error anywhere names the file,
 * line and word, and nothing is sent. Then one MMB_CMD_RULE_BATCH carries
 * them all, one MMB_A_OP attribute each (an attribute holds at most 64 KiB,
 * a message more), and the kernel applies all or none; its error, too, is mapped
 * back to the line and word.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "rule.h"

/*
 * One command of the file. Only where it is kept: the words stay in the
 * input buffer, and the token positions of the one command an error is
 * about are found again by encoding it once more.
 */
struct op {
	char *text;		/* the line, words NUL-separated once split */
	uint32_t len;		/* up to any comment */
	uint32_t line;
	uint32_t base;		/* its rule attributes in the message */
	uint32_t end;		/* end of its MMB_A_OP */
	bool quoted;		/* read as a shell reads it: words end at NULs only */
};

struct batch {
	const char *file;
	char *in;		/* the whole input */
	struct op *ops;
	unsigned int n, cap;
	char **w;		/* words of the line at hand */
	int wcap;
	struct mmb_req *req;	/* the batch being built */
	struct mmb_req *scratch;	/* one command again, for its tokens */
	struct urule *r;
};

/*
 * Fault in a large buffer with one call. Where page faults are dear (UML:
 * each one is a round trip through the host) this halves the load time of a
 * big file. Older kernels refuse the advice; the buffer is fine anyway.
 */
static void prefault(void *p, size_t len)
{
	uintptr_t page = sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(page - 1);

	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

static int read_all(struct batch *b, FILE *f)
{
	size_t len = 0, cap = 0, got;
	struct stat st;
	char *p;

	/* A regular file is read into a buffer of its size at once. */
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		cap = st.st_size + 4096 + 1;
		b->in = malloc(cap);
		if (!b->in)
			return err_sys("reading", ENOMEM);
		prefault(b->in, cap);
	}
	for (;;) {
		if (cap - len < 4096) {
			p = realloc(b->in, cap = cap * 2 + 65536);
			if (!p)
				return err_sys("reading", ENOMEM);
			b->in = p;
		}
		got = fread(b->in + len, 1, cap - len - 1, f);
		if (!got)
			break;
		len += got;
	}
	if (ferror(f))
		return err_sys(b->file, errno);
	/* The terminator, and zeros for word_end()'s last eight-byte read. */
	memset(b->in + len, 0, 8);
	if (strlen(b->in) != len) {
		fprintf(stderr, "Error: %s: not a text file (it holds a NUL byte)\n", b->file);
		return EXIT_USAGE;
	}
	return 0;
}

/* Word separators: NUL, space, tab and CR (of CRLF files). */
static const bool is_space[256] = { [0] = true, [' '] = true, ['\t'] = true, ['\r'] = true };

/*
 * The end of the word at @p: its first separator. The input ends in a NUL
 * and eight zeros, so the scan needs no bound. Eight bytes at a time where
 * the byte order allows: every separator is below 0x21, and the lowest
 * byte the test flags is the first one below it (a borrow only flags
 * bytes after a true one); other control characters are looked at alone.
 */
static char *word_end(char *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	for (;;) {
		uint64_t x, t;

		memcpy(&x, p, 8);
		t = (x - 0x21 * ones) & ~x & highs;
		if (!t) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(t) / 8;
		if (is_space[(unsigned char)*p])
			return p;
		p++;
	}
#else
	while (!is_space[(unsigned char)*p])
		p++;
	return p;
#endif
}

/* The words of @op into b->w, splitting in place; the count or -1. */
static int split_words(struct batch *b, const struct op *op)
{
	char *p = op->text, *end = op->text + op->len;
	int n = 0;

	while (p < end) {
		while ((op->quoted ? !*p : is_space[(unsigned char)*p]) && p < end)
			*p++ = '\0';
		if (p == end)
			break;
		if (n == b->wcap) {
			char **w = realloc(b->w, (b->wcap = b->wcap * 2 + 16) * sizeof(*w));

			if (!w)
				return -1;
			b->w = w;
		}
		b->w[n++] = p;
		p = op->quoted ? p + strlen(p) : word_end(p);
	}
	cur.file = b->file;
	cur.line = op->line;
	cur.n = n;
	cur.w = b->w;
	return n;
}

/*
 * Parse the command of @op (n words) and append its rule attributes to
 * @req: the batch, or the scratch request that locate() reads the tokens
 * of. They are MMB_A_RULE as for a single command; the caller renames it.
 */
static int encode(struct batch *b, struct mmb_req *req, int n, uint8_t *cmd)
{
	char **w = b->w;

	if (!strcmp(w[0], "add") || !strcmp(w[0], "add-stateful")) {
		*cmd = MMB_CMD_RULE_ADD;
		b->r->stateful = w[0][3] == '-';
		if (urule_parse(n, w, 1, b->r))
			return EXIT_USAGE;
		urule_put(req, b->r);
		return 0;
	}
	if (!strcmp(w[0], "del")) {
		*cmd = MMB_CMD_RULE_DEL;
		return handle_put(req, n, w);
	}
	if (!strcmp(w[0], "flush")) {
		*cmd = MMB_CMD_RULE_FLUSH;
		return n > 1 ? err_word(1, "unexpected word after flush") : 0;
	}
	if (!strcmp(w[0], "enable")) {
		*cmd = MMB_CMD_DEV_ENABLE;
		return ifname_put(req, n, w, MMB_BATCH_A_IFNAME);
	}
	if (!strcmp(w[0], "set")) {
		*cmd = MMB_CMD_SET;
		return settings_encode(req, n, w);
	}
	return err_word(0, "a file holds add, add-stateful, del, flush, enable and set commands");
}

/* The most a command's attributes take: 32 matches, 16 targets. */
#define OP_MAX_LEN	8192

/* Parse the command of @op (n words) into the batch, as one MMB_A_OP. */
static int append(struct batch *b, struct op *op, int n)
{
	struct mmb_req *req = b->req;
	struct nlattr *nest, *cmd, *rule;
	int ret;

	if (req->nlh->nlmsg_len + OP_MAX_LEN > req->bufsize) {
		size_t size = req->bufsize * 2 + OP_MAX_LEN;
		char *buf = realloc(req->buf, size);

		if (!buf)
			return err_sys("allocating the batch", ENOMEM);
		req->buf = buf;
		req->bufsize = size;
		req->nlh = (struct nlmsghdr *)buf;
	}
	nest = mnl_attr_nest_start(req->nlh, MMB_A_OP);
	cmd = mnl_nlmsg_get_payload_tail(req->nlh);
	mnl_attr_put_u8(req->nlh, MMB_BATCH_A_CMD, 0);
	rule = mnl_nlmsg_get_payload_tail(req->nlh);
	op->base = (char *)rule - req->buf;
	ret = encode(b, req, n, mnl_attr_get_payload(cmd));
	if (ret)
		return ret;
	/*
	 * MMB_A_RULE of a single command is MMB_BATCH_A_RULE in a batch,
	 * MMB_A_SETTINGS MMB_BATCH_A_SETTINGS; enable writes its own.
	 */
	switch (*(uint8_t *)mnl_attr_get_payload(cmd)) {
	case MMB_CMD_RULE_ADD:
	case MMB_CMD_RULE_DEL:
		rule->nla_type = NLA_F_NESTED | MMB_BATCH_A_RULE;
		break;
	case MMB_CMD_SET:
		rule->nla_type = NLA_F_NESTED | MMB_BATCH_A_SETTINGS;
		break;
	}
	mnl_attr_nest_end(req->nlh, nest);
	op->end = req->nlh->nlmsg_len;
	return 0;
}

/* Parse and encode every line; stop at the first error. */
static int parse_all(struct batch *b)
{
	char *p = b->in, *nl, *hash;
	unsigned int lineno = 0;
	int n, ret;
	bool last;

	for (; *p; p = nl + 1) {
		struct op *op;
		char *bad;

		lineno++;
		nl = strchrnul(p, '\n');
		op = &b->ops[b->n];	/* b->cap counts the lines */
		op->text = p;
		op->line = lineno;
		last = !*nl;
		hash = memchr(p, '#', nl - p);
		if (memchr(p, '\'', nl - p) || memchr(p, '"', nl - p) || memchr(p, '\\', nl - p)) {
			/* Quotes: the shell's rules, once; then as NUL-separated words. */
			*nl = '\0';
			n = words_split(p, nl, &b->w, &b->wcap, &bad);
			if (n == -1)
				return err_sys("reading", ENOMEM);
			if (n == -2)
				return words_refused(b->file, lineno, bad);
			op->len = n > 0 ? b->w[n - 1] + strlen(b->w[n - 1]) - p : 0;
			op->quoted = true;
		} else {
			op->len = (hash ?: nl) - p;
			p[op->len] = '\0';
			op->quoted = false;
		}
		n = split_words(b, op);
		if (n < 0)
			return err_sys("reading", ENOMEM);
		if (n) {
			ret = append(b, op, n);
			if (ret)
				return ret;
			b->n++;
		}
		if (last)
			break;
	}
	return 0;
}

/* Point a kernel error at the line and word its attribute came from. */
static void locate(struct batch *b, struct mmb_nl_err *err)
{
	size_t start = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned int lo = 0, hi = b->n, k;
	uint32_t off = err->off, bestoff = 0;
	struct mmb_req *s = b->scratch;
	struct op *op;
	int best = -1;
	uint8_t cmd;

	if (err->off < 0)
		return;
	while (lo < hi) {	/* the first op ending past the offset */
		unsigned int mid = (lo + hi) / 2;

		if (b->ops[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->n)
		return;
	op = &b->ops[lo];
	/* It encoded once; encoding it again gives its tokens' offsets. */
	s->nlh->nlmsg_len = start;
	s->ntok = 0;
	if (encode(b, s, split_words(b, op), &cmd))
		return;
	for (k = 0; k < s->ntok; k++) {
		const struct nlattr *a = (void *)((char *)s->nlh + s->tok[k].off);
		uint32_t at = op->base + s->tok[k].off - start;

		if (off >= at && off < at + a->nla_len && at >= bestoff) {
			best = s->tok[k].argi;
			bestoff = at;
		}
	}
	err->argi = best >= 0 ? best : 0;
}

/*
 * Apply @text (@len bytes, malloc'ed; taken over) as a -f file named
 * @name: mmbctl import's translation goes the same way as a file.
 */
static int batch_run(struct batch *b)
{
	struct mmb_nl_err err;
	size_t len;
	char *p;
	int ret;

	/* One op per line at most; attributes take about 1.4 bytes per byte of text. */
	len = strlen(b->in);
	for (p = b->in; (p = strchr(p, '\n')); p++)
		b->cap++;
	b->cap++;
	b->r = calloc(1, sizeof(*b->r));
	b->scratch = mmb_req_new(0, 0);
	b->ops = malloc(b->cap * sizeof(*b->ops));
	b->req = mmb_req_new_size(MMB_CMD_RULE_BATCH, NLM_F_ACK, len * 2 + OP_MAX_LEN);
	if (!b->r || !b->scratch || !b->ops || !b->req) {
		ret = err_sys("allocating the batch", ENOMEM);
		goto out;
	}
	/* Tokens of the batch are not kept: locate() encodes one op again. */
	b->req->ntok = MMB_NL_MAX_TOKENS;
	prefault(b->ops, b->cap * sizeof(*b->ops));
	prefault(b->req->buf, len * 3 / 2 + 4096);
	ret = parse_all(b);
	if (ret || !b->n)
		goto out;
	/* After the operations: their offsets stay as locate() finds them. */
	if (opt_check)
		mnl_attr_put(b->req->nlh, MMB_A_CHECK, 0, NULL);
	if (mmb_nl_sndbuf(b->req->nlh->nlmsg_len, &err) ||
	    mmb_nl_talk(b->req, NULL, NULL, &err)) {
		locate(b, &err);
		ret = err_kernel(&err);
	}
out:
	mmb_req_free(b->req);
	mmb_req_free(b->scratch);
	free(b->r);
	free(b->w);
	free(b->ops);
	free(b->in);
	return ret;
}

int batch_text(const char *name, char *text, size_t len)
{
	struct batch b = { .file = name };
	char *p = realloc(text, len + 9);

	if (!p) {
		free(text);
		return err_sys("allocating the batch", ENOMEM);
	}
	/* The terminator, and zeros for word_end()'s last eight-byte read. */
	memset(p + len, 0, 9);
	b.in = p;
	return batch_run(&b);
}

int do_batch(const char *file)
{
	struct batch b = { .file = file };
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	int ret;

	if (!f)
		return err_sys(file, errno);
	ret = read_all(&b, f);
	if (f != stdin)
		fclose(f);
	if (ret) {
		free(b.in);
		return ret;
	}
	return batch_run(&b);
}
