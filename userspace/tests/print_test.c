// SPDX-License-Identifier: GPL-2.0
/*
 * The one printer: the same calls give the expected text and valid JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

static int n, failed;

static void expect(const char *name, const char *got, const char *want)
{
	n++;
	if (!strcmp(got, want)) {
		printf("ok %d - print: %s\n", n, name);
		return;
	}
	failed++;
	printf("not ok %d - print: %s\n#   got:  %s\n#   want: %s\n", n, name, got, want);
}

/* What show interfaces prints for two devices. */
static void emit(void)
{
	static const char *names[] = { "r0", "we\"ird\\\n" };
	int i;

	print_open_array(NULL);
	for (i = 0; i < 2; i++) {
		print_open_object(NULL);
		print_u64("ifindex", "%llu: ", 3 + i);
		print_string("ifname", "%s:", names[i]);
		print_open_object("stats");
		print_u64("packets", " packets %llu", 18446744073709551615ULL);
		print_u64("bytes", " bytes %llu", 0);
		print_close_object();
		print_bool("up", " up", i == 0);
		print_open_array("tags");
		print_element(" [%s]", names[0]);
		print_element(" [%s]", "b");
		print_close_array();
		print_close_object();
		print_text("\n");
	}
	print_close_array();
	print_finish();
}

static void run(const char *name, int json, int pretty, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print_init(f, json, pretty);
	emit();
	fclose(f);
	expect(name, buf, want);
	free(buf);
}

static void empty(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print_init(f, 1, 0);
	print_open_array(NULL);
	print_close_array();
	print_finish();
	fclose(f);
	expect("empty JSON array", buf, "[]\n");
	free(buf);
}

/* A string's bytes in JSON: UTF-8 kept, any other byte U+FFFD. */
static void utf8(const char *name, const char *s, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print_init(f, 1, 0);
	print_open_object(NULL);
	print_string("s", "%s", s);
	print_close_object();
	print_finish();
	fclose(f);
	expect(name, buf, want);
	free(buf);
}

int main(void)
{
	run("text", 0, 0,
	    "3: r0: packets 18446744073709551615 bytes 0 up [r0] [b]\n"
	    "4: we\"ird\\\n: packets 18446744073709551615 bytes 0 [r0] [b]\n");
	run("JSON, escaped, u64 max", 1, 0,
	    "[{\"ifindex\":3,\"ifname\":\"r0\",\"stats\":{\"packets\":18446744073709551615,\"bytes\":0},\"up\":true,\"tags\":[\"r0\",\"b\"]},"
	    "{\"ifindex\":4,\"ifname\":\"we\\\"ird\\\\\\n\",\"stats\":{\"packets\":18446744073709551615,\"bytes\":0},\"up\":false,\"tags\":[\"r0\",\"b\"]}]\n");
	run("pretty JSON", 1, 1,
	    "[\n    {\n        \"ifindex\": 3,\n        \"ifname\": \"r0\",\n        \"stats\": {\n"
	    "            \"packets\": 18446744073709551615,\n            \"bytes\": 0\n        },\n"
	    "        \"up\": true,\n        \"tags\": [\n            \"r0\",\n            \"b\"\n        ]\n"
	    "    },\n    {\n        \"ifindex\": 4,\n"
	    "        \"ifname\": \"we\\\"ird\\\\\\n\",\n        \"stats\": {\n"
	    "            \"packets\": 18446744073709551615,\n            \"bytes\": 0\n        },\n"
	    "        \"up\": false,\n        \"tags\": [\n            \"r0\",\n            \"b\"\n        ]\n"
	    "    }\n]\n");
	empty();
	utf8("UTF-8 kept", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	     "{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}\n");
	utf8("a stray byte", "e\xff", "{\"s\":\"e\\ufffd\"}\n");
	utf8("a cut sequence at the end", "\xe2\x82", "{\"s\":\"\\ufffd\\ufffd\"}\n");
	utf8("overlong and surrogate forms", "\xc0\xaf\xed\xa0\x80",
	     "{\"s\":\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"}\n");
	utf8("above U+10FFFF", "\xf4\x90\x80\x80",
	     "{\"s\":\"\\ufffd\\ufffd\\ufffd\\ufffd\"}\n");
	printf("1..%d\n", n);
	return failed != 0;
}
