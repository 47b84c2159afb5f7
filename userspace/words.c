// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: words as a POSIX shell reads them, for -f and -b files, and
 * words quoted so that a shell reads them back (list's text output).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0';
}

/*
 * Split @p up to @end in place into the words a shell would see: blanks
 * separate, '...' is literal, "..." is literal but for \" \\ \$ \`, and
 * a backslash outside quotes takes the next character as it is. A #
 * outside quotes starts a comment, inside a word too (as -f has always
 * read a line; a shell would need a blank before it). Each word ends in a NUL and
 * what its quotes took is zeroed. The count; -1 out of memory; -2 with
 * *@bad at an opening quote left open, or a backslash at the end.
 */
int words_split(char *p, char *end, char ***w, int *cap, char **bad)
{
	int n = 0;

	for (;;) {
		char *out, q;

		while (p < end && blank(*p))
			p++;
		if (p == end || *p == '#')
			return n;
		if (n == *cap) {
			char **nw = realloc(*w, (*cap = *cap * 2 + 16) * sizeof(*nw));

			if (!nw)
				return -1;
			*w = nw;
		}
		(*w)[n++] = out = p;
		while (p < end && !blank(*p)) {
			if (*p == '#') {
				*p = '\0';
				end = p;	/* the comment is not read */
				break;
			} else if (*p == '\\') {
				if (++p == end) {
					*bad = p - 1;
					return -2;
				}
				*out++ = *p++;
			} else if (*p == '\'' || *p == '"') {
				char *open = p;

				q = *p++;
				while (p < end && *p != q) {
					if (q == '"' && *p == '\\' && p + 1 < end &&
					    strchr("\"\\$`", p[1]))
						p++;
					*out++ = *p++;
				}
				if (p == end) {
					*bad = open;
					return -2;
				}
				p++;
			} else {
				*out++ = *p++;
			}
		}
		memset(out, 0, p - out);
		if (p < end)
			*p++ = '\0';
	}
}

/* Say what words_split() refused at @bad, in line @line of @file. */
int words_refused(const char *file, unsigned int line, const char *bad)
{
	fprintf(stderr, "Error: %s:%u: %s\n", file, line,
		*bad == '\\' ? "a backslash ends the line" : "a quote is left open");
	return EXIT_USAGE;
}

/* Characters a shell takes as they are, anywhere in a word. */
static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("-_.:/,+=@%^", c);
}

static void put(char *buf, size_t len, size_t *off, const char *s)
{
	for (; *s; s++)
		if (*off + 1 < len)
			buf[(*off)++] = *s;
}

/*
 * @words (separated by single spaces) into @buf, each word a shell would
 * not read as it is in single quotes ('\'' for a quote in it). "!" and
 * "!=" stay bare: a shell takes them as words.
 */
void words_quote(const char *words, char *buf, size_t len)
{
	const char *p = words;
	size_t off = 0;

	if (!len)
		return;
	while (*p) {
		const char *e = strchrnul(p, ' '), *c;
		bool bare = e > p;

		for (c = p; c < e && bare; c++)
			bare = plain(*c);
		if ((e - p == 1 && *p == '!') || (e - p == 2 && !strncmp(p, "!=", 2)))
			bare = true;
		if (p != words)
			put(buf, len, &off, " ");
		if (!bare)
			put(buf, len, &off, "'");
		for (c = p; c < e; c++) {
			char ch[2] = { *c, '\0' };

			put(buf, len, &off, !bare && *c == '\'' ? "'\\''" : ch);
		}
		if (!bare)
			put(buf, len, &off, "'");
		p = *e ? e + 1 : e;
	}
	buf[off] = '\0';
}
