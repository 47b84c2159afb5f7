// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: configure mmb, the rx_handler middlebox and firewall.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"
#include "print.h"

#define MMBCTL_VERSION "0.1.0"

struct words cur;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mmbctl [ OPTIONS ] COMMAND\n"
"\n"
"COMMAND := { enable IFACE | disable IFACE | show interfaces | help }\n"
"OPTIONS := { -j[son] | -p[retty] | -h[elp] | -V[ersion] }\n"
"\n"
"  enable IFACE      classify what IFACE receives (ingress hook)\n"
"  disable IFACE     stop classifying on IFACE\n"
"  show interfaces   enabled interfaces and what their hook saw\n"
"\n"
"Exit status: 0 success, 1 refused by the kernel or the system,\n"
"2 malformed command.\n");
}

/* Print the command with a marker under word @argi (cur.n: past the end). */
static void show_position(int argi)
{
	int i, col = 0, start = -1, len = 1;

	if (cur.file)
		fprintf(stderr, "%s:%u: ", cur.file, cur.line);
	else
		fputs("mmbctl ", stderr), col = 7;
	for (i = 0; i < cur.n; i++) {
		if (i == argi) {
			start = col;
			len = strlen(cur.w[i]) ?: 1;
		}
		fprintf(stderr, "%s%s", i ? " " : "", cur.w[i]);
		col += strlen(cur.w[i]) + (i ? 1 : 0);
		if (i == argi && i)
			start++;
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

static int do_help(int argc, char **argv)
{
	usage(stdout);
	return EXIT_OK;
}

static int do_show(int argc, char **argv)
{
	if (argc < 2)
		return err_word(AT(argv + 1), "show what? { interfaces }");
	if (!strcmp(argv[1], "interfaces"))
		return do_show_interfaces(argc - 1, argv + 1);
	return err_word(AT(argv + 1), "unknown object \"%s\", try: interfaces",
			argv[1]);
}

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "enable",	do_enable },
	{ "disable",	do_disable },
	{ "show",	do_show },
	{ "help",	do_help },
};

static int run(int argc, char **argv)
{
	unsigned int i;
	int err;

	cur.n = argc;
	cur.w = argv;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[0], cmds[i].name))
			continue;
		err = cmds[i].fn(argc, argv);
		mmb_nl_close();
		return err;
	}
	return err_word(0, "unknown command \"%s\", try \"mmbctl help\"", argv[0]);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "help",	no_argument, NULL, 'h' },
		{ "version",	no_argument, NULL, 'V' },
		{}
	};
	bool json = false, pretty = false;
	int c;

	while ((c = getopt_long(argc, argv, "+jphV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("mmbctl %s\n", MMBCTL_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	print_init(stdout, json, pretty);
	return run(argc, argv);
}
