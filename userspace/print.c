// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: text and JSON output from the same calls.
 */
#include <stdarg.h>
#include <string.h>

#include "print.h"

#define MAX_DEPTH 16

static FILE *out;
static bool json, pretty, prom;
static const char *keys[MAX_DEPTH];	/* -P: the key of each open level */
static int pdepth;
static int depth;
static unsigned int count[MAX_DEPTH];	/* members written at each level */

void print_init(FILE *f, bool as_json, bool as_pretty)
{
	out = f;
	json = as_json;
	pretty = as_pretty;
	depth = 0;
	count[0] = 0;
	prom = false;
}

/* -P: numbers go to prom.c by their path of keys; nothing else prints. */
void print_init_prom(FILE *f)
{
	out = f;
	json = false;
	prom = true;
	pdepth = 0;
}

bool print_is_prom(void)
{
	return prom;
}

static void prom_open(const char *key)
{
	if (pdepth < MAX_DEPTH - 1)
		keys[pdepth++] = key;
	/* An element of the top list: one interface, one rule. */
	if (!key && pdepth == 2 && !keys[0])
		prom_element();
}

static void prom_number(const char *key, uint64_t val)
{
	char path[128];
	size_t off = 0;
	int i;

	if (!key)
		return;
	for (i = 0; i < pdepth; i++)
		if (keys[i])
			off += snprintf(path + off, off < sizeof(path) ? sizeof(path) - off : 0,
					"%s.", keys[i]);
	if (off + strlen(key) >= sizeof(path))
		return;
	snprintf(path + off, sizeof(path) - off, "%s", key);
	prom_sample(path, val);
	if (pdepth == 2) {
		char v[24];

		snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
		prom_label(key, v);
	}
}

bool print_is_json(void)
{
	return json;
}

static void indent(void)
{
	int i;

	if (!pretty)
		return;
	fputc('\n', out);
	for (i = 0; i < depth; i++)
		fputs("    ", out);
}

/*
 * Bytes of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), 0 if it is not one.
 */
int print_utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* @s as a JSON string: a byte that is not UTF-8 becomes U+FFFD. */
static void json_str(const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;
		int n;

		if (c >= 0x80) {
			n = print_utf8_len((const unsigned char *)s);
			if (n) {
				fwrite(s, 1, n, out);
				s += n - 1;
			} else {
				fputs("\\ufffd", out);
			}
		} else if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
		} else {
			fputc(c, out);
		}
	}
	fputc('"', out);
}

/* Separator and key of the next member. */
static void member(const char *key)
{
	if (count[depth]++)
		fputc(',', out);
	if (depth)
		indent();
	if (key) {
		json_str(key);
		fputs(pretty ? ": " : ":", out);
	}
}

static void open(const char *key, char c)
{
	if (prom)
		prom_open(key);
	if (!json)
		return;
	member(key);
	fputc(c, out);
	if (depth < MAX_DEPTH - 1)
		depth++;
	count[depth] = 0;
}

static void close(char c)
{
	if (prom && pdepth > 0)
		pdepth--;
	if (!json)
		return;
	if (depth > 0)
		depth--;
	if (count[depth + 1])
		indent();
	fputc(c, out);
}

void print_open_array(const char *key)
{
	open(key, '[');
}

void print_close_array(void)
{
	close(']');
}

void print_open_object(const char *key)
{
	open(key, '{');
}

void print_close_object(void)
{
	close('}');
}

void print_string(const char *key, const char *fmt, const char *val)
{
	if (prom) {
		if (key && pdepth == 2)
			prom_label(key, val);
	} else if (json) {
		if (!key)
			return;
		member(key);
		json_str(val);
	} else if (fmt) {
		fprintf(out, fmt, val);
	}
}

/* A string element of an array: no key in JSON. */
void print_element(const char *fmt, const char *val)
{
	if (prom) {
		return;
	} else if (json) {
		member(NULL);
		json_str(val);
	} else if (fmt) {
		fprintf(out, fmt, val);
	}
}

/* A number element of an array. */
void print_element_u64(const char *fmt, uint64_t val)
{
	if (prom) {
		return;
	} else if (json) {
		member(NULL);
		fprintf(out, "%llu", (unsigned long long)val);
	} else if (fmt) {
		fprintf(out, fmt, (unsigned long long)val);
	}
}

void print_u64(const char *key, const char *fmt, uint64_t val)
{
	if (prom) {
		prom_number(key, val);
	} else if (json) {
		if (!key)
			return;
		member(key);
		fprintf(out, "%llu", (unsigned long long)val);
	} else if (fmt) {
		fprintf(out, fmt, (unsigned long long)val);
	}
}

void print_bool(const char *key, const char *fmt, bool val)
{
	if (prom) {
		return;
	} else if (json) {
		if (!key)
			return;
		member(key);
		fputs(val ? "true" : "false", out);
	} else if (fmt && val) {
		fputs(fmt, out);
	}
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json || prom)
		return;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

void print_finish(void)
{
	if (prom)
		return;		/* print_prom_emit() writes it all at the end */
	if (json)
		fputc('\n', out);
	fflush(out);
}
