// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl -b FILE: a file of commands run one after the other, each as if
 * given on the command line (ip -batch, tc -batch; words read as a shell
 * reads them, with quotes and # comments), over one netlink
 * socket. Every line is its own transaction; "-f FILE" on a line applies
 * that file as one. The first line that fails stops the run with its exit
 * status and an error naming the file and line; the lines before it stay
 * applied.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"

int do_script(const char *file, int (*run)(int argc, char **argv))
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	unsigned int lineno = 0;
	char *line = NULL, **w = NULL, *bad;
	int n, cap = 0, ret = EXIT_OK;
	size_t size = 0;
	ssize_t len;

	if (!f)
		return err_sys(file, errno);
	while ((len = getline(&line, &size, f)) >= 0) {
		lineno++;
		if (strlen(line) != (size_t)len) {
			fprintf(stderr, "Error: %s:%u: a NUL byte in the line\n", file, lineno);
			ret = EXIT_USAGE;
			break;
		}
		n = words_split(line, line + len, &w, &cap, &bad);
		if (n < 0) {
			ret = n == -1 ? err_sys("reading", ENOMEM) : words_refused(file, lineno, bad);
			break;
		}
		if (!n)
			continue;
		cur = (struct words){ .n = n, .w = w, .file = file, .line = lineno };
		if (!strcmp(w[0], "-f"))
			ret = n == 2 ? do_batch(w[1]) :
			      err_word(n < 2 ? 1 : 2, n < 2 ? "missing FILE" :
				       "unexpected word after FILE");
		else if (w[0][0] == '-')
			ret = err_word(0, "only -f takes effect on a line of -b");
		else
			ret = run(n, w);
		if (ret) {
			fprintf(stderr, "Command failed %s:%u\n", file, lineno);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = err_sys(file, errno);
	if (f != stdin)
		fclose(f);
	free(line);
	free(w);
	return ret;
}
