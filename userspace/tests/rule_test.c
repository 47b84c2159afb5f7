// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl's rule parser without a kernel: every stateless example of the
 * design parses and prints back as words that parse to the same rule;
 * malformed rules are refused at the right word. Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "rule.h"
#include "rule_cmp.h"

static int n, failed;

#define HEX16 "00112233445566778899aabbccddeeff"
#define HEX64 HEX16 HEX16 HEX16 HEX16

static void result(int ok, const char *fmt, const char *arg)
{
	n++;
	if (!ok)
		failed++;
	printf("%sok %d - rule: ", ok ? "" : "not ", n);
	printf(fmt, arg);
	printf("\n");
}

/* Split @line into words (in place); returns their count. */
static int split(char *line, char **w, int max)
{
	int c = 0;
	char *tok;

	for (tok = strtok(line, " "); tok && c < max; tok = strtok(NULL, " "))
		w[c++] = tok;
	return c;
}

static bool a_stateful;	/* bad() parses as add-stateful */

static int parse(const char *text, struct urule *r)
{
	static char buf[512];
	static char *w[64];
	int c;

	snprintf(buf, sizeof(buf), "add %s", text);
	c = split(buf, w, 64);
	cur.n = c;
	cur.w = w;
	return urule_parse(c, w, 1, r);
}

/*
 * @words (single spaces between them) quoted as list prints them: /bin/sh
 * reads back the same words, and so does words_split() (-f and -b).
 */
static int shell_reads(const char *words)
{
	char quoted[2048], cmd[2400], got[2048] = "", line[512], copy[2048], *bad;
	static char **w;
	static int cap;
	int count, i, ok;
	FILE *sh;

	words_quote(words, quoted, sizeof(quoted));
	/* In a directory of its own: a word read as a redirection writes there. */
	snprintf(cmd, sizeof(cmd), "d=$(mktemp -d) && cd \"$d\" && "
		 "{ printf '%%s\\n' %s; s=$?; cd /; rm -rf \"$d\"; exit $s; }", quoted);
	sh = popen(cmd, "r");
	if (!sh)
		return 0;
	while (fgets(line, sizeof(line), sh)) {
		line[strcspn(line, "\n")] = '\0';
		if (got[0])
			strcat(got, " ");
		strncat(got, line, sizeof(got) - strlen(got) - 2);
	}
	ok = !pclose(sh) && !strcmp(got, words);
	snprintf(copy, sizeof(copy), "%s", quoted);
	count = words_split(copy, copy + strlen(copy), &w, &cap, &bad);
	got[0] = '\0';
	for (i = 0; i < count; i++) {
		if (i)
			strcat(got, " ");
		strncat(got, w[i], sizeof(got) - strlen(got) - 2);
	}
	if (!ok || strcmp(got, words))
		printf("#   quoted as %s, read back as %s\n", quoted, got);
	return ok && !strcmp(got, words);
}

/* @text parses, prints as @want (NULL: as itself), and that parses back the same. */
static void good(const char *text, const char *want)
{
	static struct urule a, b;
	char out[1024];

	if (parse(text, &a)) {
		result(0, "parses: %s", text);
		return;
	}
	urule_format(&a, out, sizeof(out));
	if (strcmp(out, want ? want : text)) {
		printf("#   printed as: %s\n", out);
		result(0, "prints back: %s", text);
		return;
	}
	result(!parse(out, &b) && urule_same(&a, &b), "round trip: %s", text);
	result(shell_reads(out), "a shell reads it back as printed: %s", out);
}

/* @text is refused with exit status @status at word @word (0 = "add"). */
static void bad(const char *text, int status, int word)
{
	static struct urule r;
	int got, saved = dup(2), devnull = open("/dev/null", 1);

	dup2(devnull, 2);	/* the message itself is checked by cli.sh */
	cur.err_argi = -1;
	r.stateful = a_stateful;
	got = parse(text, &r);
	dup2(saved, 2);
	close(devnull);
	close(saved);
	if (got == status && cur.err_argi != word)
		printf("#   blamed word %d, not %d\n", cur.err_argi, word);
	result(got == status && cur.err_argi == word, "refused at the right word: %s", text);
}

/*
 * @text, with log words, parses; its log words print as @want (list and
 * save: after the targets), and the whole parses back the same.
 */
static void good_log(const char *text, const char *want)
{
	static struct urule a, b;
	char out[1024], log[URULE_LOG_MAX], all[1400], copy[1500], *bad;
	static char **w;
	static int cap;
	int nw;

	if (parse(text, &a)) {
		result(0, "parses: %s", text);
		return;
	}
	urule_format(&a, out, sizeof(out));
	urule_log(&a, log, sizeof(log));
	snprintf(all, sizeof(all), "%s%s", out, log);
	if (strcmp(all, want)) {
		printf("#   printed as: %s\n", all);
		result(0, "prints back: %s", text);
		return;
	}
	/* As -f reads a saved rule: quoted words. */
	snprintf(copy, sizeof(copy), "add %s", all);
	nw = words_split(copy, copy + strlen(copy), &w, &cap, &bad);
	cur.n = nw;
	cur.w = w;
	result(nw > 0 && !urule_parse(nw, w, 1, &b) && urule_same(&a, &b), "round trip: %s", text);
}

/*
 * @text as add (or add-stateful, @stateful) goes into attributes, and the
 * kernel's answer built from them (a handle first) decodes to the same rule.
 */
static void wire(const char *text, bool stateful)
{
	static struct urule a, b;

	a.stateful = stateful;
	if (parse(text, &a)) {
		result(0, "encodes: %s", text);
		return;
	}
	result(!urule_wire(&a, &b) && urule_same(&a, &b), "attributes and back: %s", text);
}

/*
 * ipv4_parse() against libc's inet_pton() on random words of digits and
 * dots, half of them valid addresses with one character changed.
 */
static void ipv4_differential(void)
{
	static const char alphabet[] = "0123456789.";
	unsigned int i, bad = 0;
	uint8_t a[4], b[4];
	char w[24];

	srandom(1);
	for (i = 0; i < 200000; i++) {
		int len, k, ra, rb;

		if (i % 2) {
			len = random() % 20;
			for (k = 0; k < len; k++)
				w[k] = alphabet[random() % (sizeof(alphabet) - 1)];
			w[len] = '\0';
		} else {
			snprintf(w, sizeof(w), "%ld.%ld.%ld.%ld", random() % 300,
				 random() % 300, random() % 300, random() % 300);
			len = strlen(w);
			if (i % 4)
				w[random() % len] = alphabet[random() % (sizeof(alphabet) - 1)];
		}
		ra = ipv4_parse(w, a);
		rb = inet_pton(AF_INET, w, b);
		if (ra != rb || (ra == 1 && memcmp(a, b, 4))) {
			if (!bad++)
				printf("#   \"%s\": %d, inet_pton %d\n", w, ra, rb);
		}
	}
	result(!bad, "%s", "IPv4 addresses read as inet_pton reads them (200k random words)");
}

/*
 * An IPv4 address with a prefix, as value_parse() reads it in place,
 * against inet_pton() and strtol() on the two halves, on random words of
 * digits, dots, slashes and signs.
 */
static void prefix_differential(void)
{
	static const char alphabet[] = "0123456789./+-";
	unsigned int i, bad = 0;
	uint8_t a[16], b[4];
	char w[32], s[32], err[160], *slash, *end;

	srandom(2);
	for (i = 0; i < 200000; i++) {
		int len, k, ra, rb, vlen, plen, want = 32;
		long v;

		snprintf(w, sizeof(w), "%ld.%ld.%ld.%ld/%ld", random() % 260, random() % 260,
			 random() % 260, random() % 260, random() % 40);
		len = strlen(w);
		for (k = random() % 3; k > 0; k--)
			w[random() % len] = alphabet[random() % (sizeof(alphabet) - 1)];
		if (i % 5 == 0)
			w[random() % len] = '\0';
		ra = value_parse(MMB_FIELD_IP_SADDR, w, a, &vlen, &plen, err, sizeof(err));
		/* The reference: what follows the first slash is the prefix. */
		snprintf(s, sizeof(s), "%s", w);
		slash = strchr(s, '/');
		rb = 0;
		if (slash) {
			*slash = '\0';
			errno = 0;
			v = strtol(slash + 1, &end, 10);
			if (errno || end == slash + 1 || *end || v < 0 || v > 32)
				rb = -1;
			want = v;
		}
		if (!rb && inet_pton(AF_INET, s, b) != 1)
			rb = -1;
		if (ra != rb || (!ra && (memcmp(a, b, 4) || plen != want || vlen != 4))) {
			if (!bad++)
				printf("#   \"%s\": %d /%d, reference %d /%d\n", w, ra, plen, rb, want);
		}
	}
	result(!bad, "%s", "IPv4 addresses with prefixes read as inet_pton and strtol read them (200k)");
}

/* Numbers of a 32-bit field against strtoull's reading, in every base. */
static void number_differential(void)
{
	static const char alphabet[] = "0123456789x";
	int f = field_lookup("tcp-seq-num"), vlen, plen, i, k, bad = 0;
	uint8_t value[16];
	char w[32], err[160], *end;

	for (i = 0; i < 100000; i++) {
		unsigned long long want;
		int len = 1 + random() % 22, got;
		uint32_t v;

		for (k = 0; k < len; k++)
			w[k] = alphabet[random() % (k ? sizeof(alphabet) - 1 : 10)];
		w[len] = '\0';
		errno = 0;
		want = strtoull(w, &end, 0);
		got = value_parse(f, w, value, &vlen, &plen, err, sizeof(err));
		v = (uint32_t)value[0] << 24 | value[1] << 16 | value[2] << 8 | value[3];
		if ((errno || *end || want >> 32) ? !got : (got || v != want)) {
			if (!bad++)
				printf("#   \"%s\": %d (%u), strtoull %llu\n", w, got, v, want);
		}
	}
	result(!bad, "%s", "numbers read as strtoull reads them (100k random words)");
}

/* @text parses with comment @comment, kept apart from the rule's words. */
static void commented(const char *text, const char *comment)
{
	static struct urule r;
	char out[1024];

	if (parse(text, &r)) {
		result(0, "parses: %s", text);
		return;
	}
	urule_format(&r, out, sizeof(out));
	result(!strcmp(r.comment, comment) && !strstr(out, "comment"), "the comment kept: %s",
	       text);
}

/*
 * A comment as list and save print it (' comment "..."') reads back as the
 * same two words, by words_split() (-f) and by /bin/sh.
 */
static void comment_reads(const char *comment)
{
	static struct urule r;
	char printed[512], cmd[700], got[512] = "", copy[512], *bad;
	static char **w;
	static int cap;
	FILE *sh;
	int count;

	snprintf(r.comment, sizeof(r.comment), "%s", comment);
	urule_comment(&r, printed, sizeof(printed));
	snprintf(copy, sizeof(copy), "%s", printed);
	count = words_split(copy, copy + strlen(copy), &w, &cap, &bad);
	result(count == 2 && !strcmp(w[0], "comment") && !strcmp(w[1], comment),
	       "-f reads the comment back: %s", printed);
	snprintf(cmd, sizeof(cmd), "printf '%%s|' %s", printed);
	sh = popen(cmd, "r");
	if (sh && fgets(got, sizeof(got), sh))
		got[strcspn(got, "\n")] = '\0';
	if (sh)
		pclose(sh);
	snprintf(cmd, sizeof(cmd), "comment|%s|", comment);
	result(!strcmp(got, cmd), "a shell reads the comment back: %s", printed);
}

/*
 * The longest rule: 32 matches of a 64-byte payload, != each, then drop
 * (over 4 KiB of words): printed whole, and read back the same.
 */
static void longest(void)
{
	static char text[URULE_TEXT_MAX + 64], out[URULE_TEXT_MAX], copy[URULE_TEXT_MAX];
	static struct urule a, b;
	static char *w[128];
	size_t off = 0;
	int i, nw;

	off += snprintf(text + off, sizeof(text) - off, "add");
	for (i = 0; i < 32; i++)
		off += snprintf(text + off, sizeof(text) - off, " ip-payload != 0x%02x" HEX16
				HEX16 HEX16 "%.30s", i, HEX16);
	snprintf(text + off, sizeof(text) - off, " drop");
	nw = split(text, w, 128);
	cur.n = nw;
	cur.w = w;
	if (urule_parse(nw, w, 1, &a)) {
		result(0, "parses: %s", "the longest rule");
		return;
	}
	urule_format(&a, out, sizeof(out));
	result(strlen(out) > 4096 && !strcmp(out + strlen(out) - 5, " drop"),
	       "%s prints whole", "the longest rule");
	snprintf(copy, sizeof(copy), "add %s", out);
	nw = split(copy, w, 128);
	cur.n = nw;
	cur.w = w;
	result(!urule_parse(nw, w, 1, &b) && urule_same(&a, &b), "%s reads back", "the longest rule");
}

int main(void)
{
	ipv4_differential();
	prefix_differential();
	number_differential();

	/* The stateless examples of DESIGN.md section 3, and more. */
	good("tcp-dport 80 mod tcp-dport 443", NULL);
	good("ip-proto udp drop", NULL);
	good("ip-proto != tcp drop", NULL);
	good("all mod ip-ecn 0", NULL);
	good("all drop 0.1", NULL);
	good("ip6-saddr 2001:db8::/32 udp-dport 53 drop", NULL);
	good("ip-proto tcp drop", NULL);
	good("ip-saddr 10.0.0.0/24 ip-proto tcp accept", NULL);
	good("ip-proto 17 drop", "ip-proto udp drop");
	good("! ip-proto tcp drop", "ip-proto != tcp drop");
	good("! tcp-dport < 1024 drop", "tcp-dport >= 1024 drop");
	good("! tcp-syn drop", "tcp-syn != 1 drop");
	good("tcp-syn 0 drop", "tcp-syn 0 drop");
	good("tcp-syn tcp-ack mod tcp-win 1000", NULL);
	good("ip-ce mod ip-dscp 46", "ip-ecn 3 mod ip-dscp 46");
	good("ip-ecn ce drop", "ip-ecn 3 drop");
	good("tcp-flags 0x12 drop", "tcp-flags 18 drop");
	/* TCP options: bare means present, ! absent; tcp-opt takes a kind. */
	good("tcp-opt-mss > 1400 drop", NULL);
	good("tcp-syn tcp-opt-mss > 1452 mod tcp-opt-mss 1452", NULL);
	good("tcp-opt-timestamp ! tcp-opt-mss ! tcp-opt-wscale drop", NULL);
	good("! tcp-opt-mss ! tcp-opt-wscale drop", NULL);
	good("tcp-opt-wscale <= 7 mod tcp-opt-wscale 7", NULL);
	good("tcp-opt-sack 0x0102 accept", NULL);
	good("tcp-opt-sackp drop", NULL);
	good("tcp-opt drop", NULL);
	good("! tcp-opt drop", NULL);
	good("tcp-opt 30 drop", NULL);
	good("tcp-opt 0x1e == 0xab drop", "tcp-opt 30 0xab drop");
	good("tcp-opt x22 != 0xab drop", "tcp-opt 34 != 0xab drop");
	good("tcp-opt-fast-open 0x0011 tcp-opt-mptcp drop", NULL);
	good("ip-ttl <= 5 drop 12.5", NULL);
	good("ip-saddr 192.0.2.1 ip-daddr 198.51.100.0/24 drop", NULL);
	good("ip6-daddr fd00::1 ip6-next icmp6 accept", NULL);
	good("ip6-flow-label 1048575 drop", NULL);
	good("udp-payload 0xdeadbeef drop", NULL);
	good("udp-payload 0xabc drop", "udp-payload 0x0abc drop");
	good("icmp-type 8 icmp-code 0 drop", NULL);
	good("icmp6-type 128 drop", NULL);
	good("net-proto ip6 drop", NULL);
	good("in lo drop", NULL);
	longest();
	/* An interface's name is its value whatever the word: these load back. */
	good("in all drop", NULL);
	good("in drop accept", NULL);
	good("in ct drop", NULL);
	good("out offload accept", NULL);
	/* A bare flag before ct count or the comment is no value of it. */
	good("tcp-dport 22 tcp-syn ct count over 3 per ip-saddr drop", NULL);
	good("tcp-dport 22 tcp-opt-sackp ct count 3 accept", NULL);
	/* A target's value is at most 38 bytes, as the kernel's. */
	bad("all mod ip-payload 0x" HEX64 " accept", EXIT_USAGE, 4);
	bad("all mod udp-payload 0x" HEX16 HEX16 "00112233445566 accept", EXIT_USAGE, 4);
	good("all mod udp-payload 0x" HEX16 HEX16 "001122334455", NULL);
	/* Leaving packets: by the device they leave by, or any. */
	good("out lo drop", NULL);
	good("leaving udp-dport 53 accept", NULL);
	good("leaving 1 tcp-syn mod tcp-opt-mss 1400", "leaving tcp-syn mod tcp-opt-mss 1400");
	good("leaving tcp-syn mod tcp-opt-mss pmtu", NULL);
	good("udp-sport 1 udp-dport 2 mod udp-sport 3 mod udp-dport 4", NULL);
	good("ip-saddr 10.1.1.1 mod ip-saddr 10.2.2.2 mod ip-ttl 1", NULL);
	good("ip6-saddr ::1 mod ip6-saddr fd00::2", NULL);

	/* Words only an interface name could hold. */
	result(shell_reads("in a'b drop"), "a quote quoted: %s", "in a'b drop");
	result(shell_reads("in $x` drop mod \\ \"y\" #z"), "%s", "shell characters quoted");

	bad("", EXIT_USAGE, 1);
	bad("drop", EXIT_USAGE, 1);
	bad("tcp-dport 80", EXIT_USAGE, 3);
	bad("tcp-dport 65536 drop", EXIT_USAGE, 2);
	bad("tcp-dport -1 drop", EXIT_USAGE, 2);
	bad("tcp-dport 80x drop", EXIT_USAGE, 2);
	bad("tcp-dport drop", EXIT_USAGE, 1);
	bad("tcp-dport == drop", EXIT_USAGE, 3);
	bad("ip-dscp 64 drop", EXIT_USAGE, 2);
	bad("ip6-flow-label 1048576 drop", EXIT_USAGE, 2);
	bad("ip-saddr 10.0.0.0/33 drop", EXIT_USAGE, 2);
	bad("ip-saddr 300.0.0.1 drop", EXIT_USAGE, 2);
	bad("ip6-saddr 2001:db8::/129 drop", EXIT_USAGE, 2);
	bad("ip-proto tcpp drop", EXIT_USAGE, 2);
	bad("udp-payload deadbeef drop", EXIT_USAGE, 2);
	bad("udp-payload 0x drop", EXIT_USAGE, 2);
	bad("tcp-opt 1 drop", EXIT_USAGE, 2);
	bad("tcp-opt 256 drop", EXIT_USAGE, 2);
	bad("tcp-opt kind drop", EXIT_USAGE, 2);
	bad("tcp-opt-mss 65536 drop", EXIT_USAGE, 2);
	bad("tcp-opt-mss > drop", EXIT_USAGE, 3);
	bad("tcp-opt-sack 0102 drop", EXIT_USAGE, 2);
	/* The longest payload string fits; one byte more does not. */
	good("udp-payload 0x" HEX64 " drop", NULL);
	bad("udp-payload 0x" HEX64 "00 drop", EXIT_USAGE, 2);
	bad("udp-payload 0x" HEX64 HEX64 HEX64 " drop", EXIT_USAGE, 2);
	bad("no-such-field 1 drop", EXIT_USAGE, 1);
	bad("! all drop", EXIT_USAGE, 2);
	bad("all drop 0", EXIT_USAGE, 3);
	bad("all drop 101", EXIT_USAGE, 3);
	bad("all drop lots", EXIT_USAGE, 3);
	bad("all mod", EXIT_USAGE, 3);
	bad("all mod ip-ttl", EXIT_USAGE, 4);
	bad("all mod ip-ttl 256", EXIT_USAGE, 4);
	/* Fields of the packet's structure: a rewrite would corrupt it. */
	bad("all mod ip-len 100", EXIT_USAGE, 3);
	bad("all mod ip-ihl 6", EXIT_USAGE, 3);
	bad("all mod ip-proto 17", EXIT_USAGE, 3);
	bad("all mod ip-mf 1", EXIT_USAGE, 3);
	bad("all mod ip-frag-offset 1", EXIT_USAGE, 3);
	bad("all mod ip-checksum 1", EXIT_USAGE, 3);
	bad("all mod ip6-len 1", EXIT_USAGE, 3);
	bad("all mod ip6-next 6", EXIT_USAGE, 3);
	bad("udp-dport 1 mod udp-len 9", EXIT_USAGE, 4);
	bad("tcp-dport 1 mod tcp-offset 6", EXIT_USAGE, 4);
	bad("tcp-dport 1 mod tcp-checksum 0", EXIT_USAGE, 4);
	bad("all frob", EXIT_USAGE, 2);
	bad("all drop tcp-dport 80", EXIT_USAGE, 3);
	/* TCP option lists: strip [!] OPTION, strip all, add OPTION [VALUE], mod of data. */
	good("tcp-syn tcp-opt-mss strip tcp-opt-mss add tcp-opt-mss 1452", NULL);
	good("tcp-opt-timestamp strip ! tcp-opt-mss strip ! tcp-opt-wscale", NULL);
	good("all strip all", NULL);
	good("tcp-syn add tcp-opt-sackp add tcp-opt 253 0xabcd", NULL);
	good("tcp-syn add tcp-opt 0xfd 0xabcd", "tcp-syn add tcp-opt 253 0xabcd");
	good("all mod tcp-opt 253 0x0102030405 strip tcp-opt 30", NULL);
	good("all mod tcp-opt-timestamp 0x0102030405060708", NULL);
	bad("all strip", EXIT_USAGE, 3);
	bad("all strip ip-ttl", EXIT_USAGE, 3);
	bad("all strip tcp-opt-mss 1400", EXIT_USAGE, 4);
	bad("all strip ! all", EXIT_USAGE, 4);
	bad("all strip tcp-opt", EXIT_USAGE, 4);
	bad("all add tcp-opt 1 0x00", EXIT_USAGE, 4);
	bad("all add tcp-opt-mss 70000", EXIT_USAGE, 4);
	bad("all add tcp-opt 253 0x" HEX64, EXIT_USAGE, 5);
	bad("all mod tcp-opt 0x0102", EXIT_USAGE, 4);
	bad("in no-such-interface-x drop", EXIT_USAGE, 2);
	bad("out no-such-interface-x drop", EXIT_USAGE, 2);
	/* A name that would read back as an operator (the fuzzer's "out !"). */
	bad("out !x drop", EXIT_USAGE, 2);
	bad("in <=a drop", EXIT_USAGE, 2);
	bad("out == =x drop", EXIT_USAGE, 3);
	bad("!", EXIT_USAGE, 2);
	/* reject [with ANSWER]: a RST only for TCP rules, said at the word. */
	good("tcp-dport 22 reject", NULL);
	good("udp-dport 53 reject with port-unreachable", NULL);
	good("all reject with admin-prohibited", NULL);
	good("ip6-daddr fd00::1 reject with net-unreachable", NULL);
	good("tcp-syn reject with host-unreachable", NULL);
	good("ip-proto tcp reject with tcp-reset", NULL);
	good("out lo tcp-dport 25 reject with tcp-reset", NULL);
	bad("udp-dport 53 reject with tcp-reset", EXIT_USAGE, 5);
	bad("all reject with tcp-reset", EXIT_USAGE, 4);
	bad("tcp-dport 22 reject with", EXIT_USAGE, 4);
	bad("tcp-dport 22 reject with rst", EXIT_USAGE, 5);
	bad("tcp-dport 22 reject 5", EXIT_USAGE, 4);
	/* limit [over] RATE/UNIT [burst N] [per FIELD[/PREFIX] [size N]], among the matches. */
	good("tcp-dport 22 limit over 10/second burst 5 drop", NULL);
	good("tcp-dport 22 limit over 10/second drop", "tcp-dport 22 limit over 10/second burst 5 drop");
	good("tcp-dport 22 limit rate over 10/second burst 5 packets drop",
	     "tcp-dport 22 limit over 10/second burst 5 drop");
	good("limit 3/minute burst 1 tcp-dport 22 accept",
	     "tcp-dport 22 limit 3/minute burst 1 accept");
	good("tcp-syn limit over 100/second burst 200 per ip-saddr/24 size 4096 drop", NULL);
	good("ip6-saddr 2001:db8::/32 limit 1000/hour burst 10 per ip6-saddr/64 size 1024 accept",
	     NULL);
	good("tcp-dport 22 limit 1/day burst 1 per ip-saddr size 65535 count", NULL);
	good("udp-dport 53 limit over 5/second burst 5 per udp-sport size 10 drop", NULL);
	good("tcp-dport 22 limit 3/minute per ip-saddr drop",
	     "tcp-dport 22 limit 3/minute burst 5 per ip-saddr size 65535 drop");
	bad("tcp-dport 22 limit 0/second drop", EXIT_USAGE, 4);
	bad("tcp-dport 22 limit 10 drop", EXIT_USAGE, 4);
	bad("tcp-dport 22 limit 10/week drop", EXIT_USAGE, 4);
	bad("tcp-dport 22 limit over drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 limit 10/second burst 0 drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second burst 1000001 drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second per tcp-payload drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second per meta-mark drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second per in drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second per ip-saddr/33 drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second per ip-saddr/0 drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 10/second per ip-saddr size 0 drop", EXIT_USAGE, 8);
	bad("tcp-dport 22 limit 10/second per ip-saddr size 4194305 drop", EXIT_USAGE, 8);
	bad("tcp-dport 22 limit 10/second size 10 drop", EXIT_USAGE, 5);
	bad("ip6-saddr ::1 limit 10/second per ip-saddr drop", EXIT_USAGE, 6);
	bad("udp-dport 53 limit 10/second per tcp-sport drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 limit 1/second limit 2/second drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 limit", EXIT_USAGE, 4);
	/* ct count [over] N [per FIELD[/PREFIX]] [size N], among the matches. */
	good("tcp-dport 22 ct count 3 accept", NULL);
	good("tcp-dport 22 ct count 3 per ip-saddr accept", NULL);
	good("tcp-dport 22 ct count over 3 per ip-saddr/24 reject", NULL);
	good("ct count over 0 per ip6-saddr/64 size 100 tcp-dport 22 drop",
	     "tcp-dport 22 ct count over 0 per ip6-saddr/64 size 100 drop");
	good("udp-dport 53 ct count 10 per ip-daddr size 1048576 accept", NULL);
	bad("tcp-dport 22 ct count 0 accept", EXIT_USAGE, 5);
	bad("tcp-dport 22 ct count 16777216 accept", EXIT_USAGE, 5);
	bad("tcp-dport 22 ct count accept", EXIT_USAGE, 5);
	bad("tcp-dport 22 ct count", EXIT_USAGE, 4);
	bad("tcp-dport 22 ct foo 3 accept", EXIT_USAGE, 4);
	bad("tcp-dport 22 ct count 3 per tcp-dport accept", EXIT_USAGE, 7);
	bad("tcp-dport 22 ct count 3 per ip-saddr/33 accept", EXIT_USAGE, 7);
	bad("tcp-dport 22 ct count 3 per ip-saddr/0 accept", EXIT_USAGE, 7);
	bad("tcp-dport 22 ct count 3 per", EXIT_USAGE, 6);
	bad("tcp-dport 22 ct count 3 size 5 accept", EXIT_USAGE, 6);
	bad("tcp-dport 22 ct count 3 per ip-saddr size 0 accept", EXIT_USAGE, 9);
	bad("tcp-dport 22 ct count 3 per ip-saddr size 1048577 accept", EXIT_USAGE, 9);
	bad("tcp-dport 22 ct count 3 ct count 4 accept", EXIT_USAGE, 6);
	a_stateful = true;
	bad("tcp-dport 22 ct count over 3 drop", EXIT_USAGE, 5);
	a_stateful = false;
	wire("tcp-dport 22 ct count 3 per ip-saddr accept", true);
	wire("tcp-dport 22 ct count over 3 per ip-saddr/24 size 100 reject", false);
	wire("tcp-dport 22 ct count 1 drop", false);
	/* log [prefix TEXT] [level LEVEL]: the rule's words, printed after its targets. */
	good_log("tcp-dport 22 log drop", "tcp-dport 22 drop log");
	good_log("tcp-dport 22 log", "tcp-dport 22 log");
	good_log("tcp-dport 22 log count", "tcp-dport 22 log");
	good_log("tcp-dport 22 log prefix SSH: level info accept",
		 "tcp-dport 22 accept log prefix \"SSH:\" level info");
	good_log("tcp-dport 22 drop log level 7", "tcp-dport 22 drop log level debug");
	good_log("tcp-dport 22 drop log level warn", "tcp-dport 22 drop log");
	good_log("udp-dport 53 log level 0 prefix dns: drop",
		 "udp-dport 53 drop log prefix \"dns:\" level emerg");
	good_log("tcp-dport 22 log prefix a$b drop", "tcp-dport 22 drop log prefix \"a\\$b\"");
	good_log("tcp-dport 22 log rate 1/minute burst 3 drop",
		 "tcp-dport 22 drop log rate 1/minute burst 3");
	good_log("tcp-dport 22 log burst 50 prefix x: rate 20/second",
		 "tcp-dport 22 log prefix \"x:\" rate 20/second burst 50");
	/* The longest prefix, every byte escaped, and every other word: whole. */
	good_log("tcp-dport 22 log prefix $$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$$ "
		 "level 7 rate 4294967295/second burst 100000 drop",
		 "tcp-dport 22 drop log prefix \"\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$"
		 "\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$"
		 "\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$"
		 "\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$\\$"
		 "\" level debug rate 4294967295/second burst 100000");
	bad("tcp-dport 22 log rate 0/second drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log rate 5 drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log rate 5/week drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log rate -5/second drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log burst 0 drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log burst 100001 drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log level 8 drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log level loud drop", EXIT_USAGE, 5);
	bad("tcp-dport 22 log level", EXIT_USAGE, 5);
	bad("tcp-dport 22 log prefix", EXIT_USAGE, 5);
	bad("tcp-dport 22 log prefix "
	    "0123456789012345678901234567890123456789012345678901234567890123456789 drop",
	    EXIT_USAGE, 5);
	bad("tcp-dport 22 log log drop", EXIT_USAGE, 4);
	bad("tcp-dport 22 log prefix a prefix b drop", EXIT_USAGE, 6);
	bad("tcp-dport 22 log nonsense", EXIT_USAGE, 4);
	bad("log drop", EXIT_USAGE, 1);
	a_stateful = true;
	bad("tcp-dport 22 log", EXIT_USAGE, 3);
	a_stateful = false;

	/* Attributes and back, stateful or not. */
	wire("tcp-dport 80 mod tcp-dport 443", false);
	wire("ip-saddr 10.0.0.0/24 ip-proto tcp accept", true);
	wire("ip6-saddr 2001:db8::/32 udp-dport 53 drop 12.5", true);
	wire("tcp-opt 30 0xab tcp-syn mod tcp-opt-mss 1400 mod ip-dscp 3", false);
	wire("all drop", true);
	wire("out lo udp-dport 53 accept", true);
	wire("leaving tcp-dport 22 drop", false);
	wire("out lo ip-saddr 10.0.0.0/8 masquerade", true);
	wire("leaving tcp-syn mod tcp-opt-mss pmtu", false);
	wire("tcp-dport 22 reject", false);
	wire("udp-dport 53 reject with host-unreachable", false);
	wire("ip-proto tcp reject with tcp-reset", false);
	wire("tcp-dport 22 limit over 10/second burst 5 drop", false);
	wire("tcp-dport 22 limit 3/minute drop", false);
	wire("tcp-syn limit over 100/second burst 200 per ip-saddr/24 size 4096 drop", false);
	wire("all limit 1000/hour per ip6-saddr/64 accept", false);
	wire("all limit 10/day per tcp-dport count", false);
	wire("tcp-dport 22 log", false);
	wire("tcp-dport 22 log prefix SSH: level info drop", false);
	wire("tcp-dport 22 log level debug accept", true);
	wire("tcp-dport 22 log rate 2/hour burst 7", false);
	wire("tcp-dport 22 log burst 7 drop", false);
	/* NAT: map and shuffle, stateful only, and a stateful mod of a port. */
	wire("ip-saddr 10.0.0.0/24 ip-proto tcp tcp-syn shuffle tcp-sport mod ip-saddr 200.0.0.1",
	     true);
	wire("tcp-dport 80 map ip-daddr 10.1.0.0/16 map tcp-dport 8080", true);
	wire("udp-dport 53 shuffle udp-sport 20000-20999 map ip6-saddr 2001:db8::/64", true);
	wire("tcp-syn shuffle tcp-seq-num shuffle tcp-ack-num shuffle ip-id", true);
	wire("all mod udp-dport 1", true);
	wire("tcp-syn tcp-opt-mss strip tcp-opt-mss add tcp-opt-mss 1452", false);
	wire("all strip ! tcp-opt-mss strip all add tcp-opt-sackp add tcp-opt 253 0xab", false);
	wire("all mod tcp-opt 253 0x01020304", false);
	bad("tcp-dport 80 map ip-saddr 10.0.0.1", EXIT_USAGE, 3);
	bad("tcp-dport 80 shuffle tcp-sport", EXIT_USAGE, 3);
	a_stateful = true;
	bad("all map ip-ttl 1", EXIT_USAGE, 3);
	bad("all shuffle tcp-sport 0-10", EXIT_USAGE, 4);
	bad("all shuffle tcp-sport 10-9", EXIT_USAGE, 4);
	bad("all shuffle tcp-sport 10-70000", EXIT_USAGE, 4);
	bad("all shuffle tcp-sport 10-", EXIT_USAGE, 4);
	bad("all shuffle tcp-sprot", EXIT_USAGE, 3);
	bad("all shuffle", EXIT_USAGE, 3);
	a_stateful = false;

	/* Priorities: first, once each, 0 to 2^32 - 1; conn-priority stateful only. */
	good("priority 100 ip-saddr 10.0.0.0/8 drop", NULL);
	good("priority 0 tcp-dport 80 accept", "tcp-dport 80 accept");
	good("priority 4294967295 all accept", NULL);
	good("priority 007 all accept", "priority 7 all accept");
	wire("priority 7 tcp-dport 443 accept", false);
	wire("priority 7 conn-priority 100 tcp-dport 443 accept", true);
	wire("conn-priority 100 tcp-dport 443 accept", true);
	wire("priority 5 conn-priority 5 all accept", true);
	bad("priority 4294967296 all drop", EXIT_USAGE, 2);
	bad("priority -1 all drop", EXIT_USAGE, 2);
	bad("priority 0x10 all drop", EXIT_USAGE, 2);
	bad("priority 1e3 all drop", EXIT_USAGE, 2);
	bad("priority all drop", EXIT_USAGE, 2);
	bad("priority", EXIT_USAGE, 2);
	bad("priority 1 priority 2 all drop", EXIT_USAGE, 3);
	bad("all priority 3 drop", EXIT_USAGE, 2);
	bad("all drop priority 3", EXIT_USAGE, 3);
	bad("conn-priority 3 all drop", EXIT_USAGE, 1);
	a_stateful = true;
	bad("conn-priority 1 conn-priority 2 all drop", EXIT_USAGE, 3);
	bad("priority 1 conn-priority 4294967296 all drop", EXIT_USAGE, 4);
	bad("all conn-priority 2 drop", EXIT_USAGE, 2);
	a_stateful = false;

	/* offload: add-stateful, not with drop, once, after the matches. */
	wire("tcp-dport 443 accept offload", true);
	wire("priority 3 udp-dport 53 accept offload comment dns", true);
	wire("tcp-dport 22 offload accept log prefix SSH:", true);
	wire("ip-daddr 10.0.2.99 udp-dport 53 map ip-daddr 10.0.2.2 offload", true);
	bad("tcp-dport 443 accept offload", EXIT_USAGE, 4);
	a_stateful = true;
	bad("tcp-dport 443 drop offload", EXIT_USAGE, 4);
	bad("tcp-dport 443 accept offload offload", EXIT_USAGE, 5);
	a_stateful = false;

	/* count, reset's rules; meta-mark matched and set; comments. */
	good("udp-dport 53 count", NULL);
	good("priority 10 all count", NULL);
	wire("udp-dport 53 count", false);
	bad("udp-dport 53 count accept", EXIT_USAGE, 3);
	bad("udp-dport 53 accept count", EXIT_USAGE, 4);
	bad("udp-dport 53 count mod ip-ttl 1", EXIT_USAGE, 3);
	a_stateful = true;
	bad("udp-dport 53 count", EXIT_USAGE, 3);
	a_stateful = false;
	good("meta-mark 7 drop", NULL);
	good("meta-mark 0x10/0xf0 accept", NULL);
	good("meta-mark 16/240 accept", "meta-mark 0x10/0xf0 accept");
	good("meta-mark > 100 drop", NULL);
	good("meta-mark != 4294967295 drop", NULL);
	good("udp-dport 53 mod meta-mark 7", NULL);
	good("udp-dport 53 mod meta-mark 0x1/0xff", NULL);
	good("ip6-saddr 2001:db8::1 mod meta-mark 0x100/0x100 mod ip6-dscp 10", NULL);
	wire("meta-mark 0x10/0xf0 mod meta-mark 0x20/0xf0", false);
	wire("meta-mark 7 mod meta-mark 9", false);
	wire("meta-mark 0x0/0x1 drop", false);
	bad("meta-mark 4294967296 drop", EXIT_USAGE, 2);
	bad("meta-mark 0x11/0xf0 drop", EXIT_USAGE, 2);
	bad("meta-mark 1/0 drop", EXIT_USAGE, 2);
	bad("meta-mark 1/0x100000000 drop", EXIT_USAGE, 2);
	bad("meta-mark x drop", EXIT_USAGE, 2);
	bad("all mod meta-mark 7/0", EXIT_USAGE, 4);
	bad("all mod meta-mark -1", EXIT_USAGE, 4);
	commented("tcp-dport 22 accept comment office", "office");
	wire("tcp-dport 22 accept comment office", false);
	wire("all drop 50 comment half", false);
	wire("tcp-syn add tcp-opt-sackp comment sackp", false);
	bad("tcp-dport 22 comment office accept", EXIT_USAGE, 3);
	bad("tcp-dport 22 accept comment", EXIT_USAGE, 5);
	bad("tcp-dport 22 accept comment a b", EXIT_USAGE, 6);
	bad("tcp-dport 22 accept comment " HEX64 "x", EXIT_USAGE, 5);
	commented("tcp-dport 22 accept comment " HEX64, HEX64);
	comment_reads("ssh from office");
	comment_reads("\"quoted\" \\ $HOME `id` #1 'single' ! ;&|<>");
	comment_reads("ünïcödé ✓");

	printf("1..%d\n", n);
	return failed != 0;
}
