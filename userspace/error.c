// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: errors, each pointing at the word it is about.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mmbctl.h"

struct words cur;
const char *(*err_origin)(unsigned int line);

/* Print the command with a marker under word @argi (cur.n: past the end). */
static void show_position(int argi)
{
	const char *from = cur.file && err_origin ? err_origin(cur.line) : NULL;
	int i, col, start = -1, len = 1;
	char prefix[512];

	if (from)
		snprintf(prefix, sizeof(prefix), "%s: %s: ", cur.file, from);
	else if (cur.file)
		snprintf(prefix, sizeof(prefix), "%s:%u: ", cur.file, cur.line);
	else
		snprintf(prefix, sizeof(prefix), "mmbctl ");
	fputs(prefix, stderr);
	col = strlen(prefix);
	for (i = 0; i < cur.n; i++) {
		if (i)
			col++;
		if (i == argi) {
			start = col;
			len = strlen(cur.w[i]) ?: 1;
		}
		fprintf(stderr, "%s%s", i ? " " : "", cur.w[i]);
		col += strlen(cur.w[i]);
	}
	fputc('\n', stderr);
	if (start < 0)
		start = col + 1;
	fprintf(stderr, "%*s^", start, "");
	while (--len > 0)
		fputc('~', stderr);
	fputc('\n', stderr);
}

int err_word(int argi, const char *fmt, ...)
{
	va_list ap;

	cur.err_argi = argi;
	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	show_position(argi);
	return EXIT_USAGE;
}

int err_kernel(const struct mmb_nl_err *err)
{
	if (err->local)
		fprintf(stderr, "Error: %s\n", err->msg);
	else if (err->error == EPERM)
		fprintf(stderr, "Error: %s (mmbctl needs CAP_NET_ADMIN)\n",
			strerror(err->error));
	else if (err->msg[0])
		fprintf(stderr, "Error: %s (%s)\n", err->msg, strerror(err->error));
	else
		fprintf(stderr, "Error: %s\n", strerror(err->error));
	if (err->argi >= 0)
		show_position(err->argi);
	return EXIT_FAIL;
}

int err_sys(const char *what, int error)
{
	fprintf(stderr, "Error: %s: %s\n", what, strerror(error));
	return EXIT_FAIL;
}

