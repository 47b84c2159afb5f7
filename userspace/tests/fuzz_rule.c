// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl's rule parser under libFuzzer (built with ASan and UBSan): the
 * input is the words of a rule (the first byte's low bit: add-stateful).
 * Whatever they are, the parser accepts or refuses them without a memory
 * error or undefined behaviour, and a refusal is a usage error that points
 * at one of the words or just past them. What it accepts must print as
 * words that parse to the same rule, quoted for a shell (as list prints
 * it) read back by the shell's rules (as -f reads them) to the same rule,
 * and go to attributes and back (as list reads them) to the same rule. A broken promise aborts, and
 * libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "mmbctl.h"
#include "rule_cmp.h"

#define WORDS_MAX 128

static int split(char *text, char **w)
{
	char *tok;
	int n = 0;

	for (tok = strtok(text, " \t\n"); tok && n < WORDS_MAX; tok = strtok(NULL, " \t\n"))
		w[n++] = tok;
	return n;
}

static void broken(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_rule: %s: \"%s\"\n", what, text);
	abort();
}

/*
 * Parse the rule of words w[1] to w[n - 1] as "add" (or "add-stateful")
 * would: 0, a usage error at one of them (or just past), or -1 for any
 * other refusal.
 */
static int parse_words(int n, char **w, bool stateful, struct urule *r)
{
	int ret;

	w[0] = stateful ? "add-stateful" : "add";
	cur = (struct words){ .n = n, .w = w, .err_argi = -1 };
	memset(r, 0, sizeof(*r));
	r->stateful = stateful;
	ret = urule_parse(n, w, 1, r);
	if (ret && (ret != EXIT_USAGE || cur.err_argi < 1 || cur.err_argi > n))
		return -1;
	return ret;
}

/* Parse "add WORDS...": 0, or a usage error at a word of them. */
static int parse(char *text, bool stateful, struct urule *r, char **w)
{
	return parse_words(split(text, w + 1) + 1, w, stateful, r);
}

/*
 * @words quoted for a shell, then @log (urule_log(): quoted already), split
 * as a shell splits them, parsed.
 */
static int shell_parse(const char *words, const char *log, bool stateful, struct urule *r,
		       char **w)
{
	static char quoted[2 * URULE_TEXT_MAX];
	static char **sw;
	static int cap;
	char *bad;
	int n, i;

	words_quote(words, quoted, sizeof(quoted) - 256);
	strcat(quoted, log);
	n = words_split(quoted, quoted + strlen(quoted), &sw, &cap, &bad);
	if (n < 0 || n > WORDS_MAX)
		return -1;
	for (i = 0; i < n; i++)
		w[i + 1] = sw[i];
	return parse_words(n + 1, w, stateful, r);
}

/* The refusals' messages go nowhere while the parser runs: they would be
 * most of the run's time. Reports of the sanitizers still reach stderr. */
static int quiet(int fd)
{
	static int devnull = -1;
	int saved;

	if (getenv("FUZZ_RULE_VERBOSE"))
		return -1;
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
		return -1;
	}
	if (devnull < 0)
		devnull = open("/dev/null", O_WRONLY);
	saved = dup(2);
	dup2(devnull, 2);
	return saved;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct urule a, b, c;
	static char *w[WORDS_MAX + 2];
	char *text, *again, out[URULE_TEXT_MAX], log[URULE_LOG_MAX];
	bool stateful;
	size_t i;
	int ret, fd;

	if (!size || size > 2048)
		return 0;
	stateful = data[0] & 1;
	text = malloc(size);
	again = malloc(sizeof(out));
	if (!text || !again)
		abort();
	for (i = 1; i < size; i++)	/* a NUL cannot be in a word */
		text[i - 1] = data[i] ? data[i] : ' ';
	text[size - 1] = '\0';
	fd = quiet(-1);
	ret = parse(text, stateful, &a, w);
	quiet(fd);
	if (ret < 0)
		broken("refused, but not as a usage error at a word", text);
	if (ret == 0) {
		urule_format(&a, out, sizeof(out));
		urule_log(&a, log, sizeof(log));
		snprintf(again, sizeof(out), "%s", out);
		/*
		 * The comment is printed apart (urule_comment(), rule_test.c reads
		 * it back), and so are the log words (urule_log(), below).
		 */
		if (!a.log &&
		    (parse(again, stateful, &b, w) || (strcpy(b.comment, a.comment), !urule_same(&a, &b))))
			broken("printed as words that do not parse to it", out);
		if (urule_wire(&a, &c) || !urule_same(&a, &c))
			broken("attributes do not decode to it", out);
		/* As list prints it for a shell, and a shell (or -f) reads it. */
		if (shell_parse(out, log, stateful, &b, w) ||
		    (strcpy(b.comment, a.comment), !urule_same(&a, &b)))
			broken("quoted for a shell, does not read back", out);
	}
	free(text);
	free(again);
	return 0;
}
