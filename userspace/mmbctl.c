// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: configure mmb, the rx_handler middlebox and firewall.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

#define MMBCTL_VERSION "0.1.0"

bool opt_stats;
bool opt_check;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mmbctl [ OPTIONS ] COMMAND\n"
"       mmbctl [ OPTIONS ] -f FILE\n"
"       mmbctl [ OPTIONS ] -b FILE\n"
"\n"
"COMMAND := { enable IFACE | disable IFACE | add RULE | add-stateful RULE |\n"
"             del HANDLE | flush [ connections ] | reset counters [ HANDLE ] |\n"
"             list | save | set SETTING... |\n"
"             show { interfaces | stats | tables | connections | settings } |\n"
"             trace [ in IFACE ] { FIELD VALUE... | hex BYTES } |\n"
"             monitor [ log ] | import [ -n | -c ] FILE |\n"
"             help [ fields | targets | states ] }\n"
"OPTIONS := { -j[son] | -p[retty] | -P | --prometheus | -s[tatistics] |\n"
"             -c[heck] | --dry-run | -h[elp] | -V[ersion] }\n"
"\n"
"  -j, -p            JSON output (-p: indented), for every list and show\n"
"  -P, --prometheus  with show stats: the global, per-interface and per-rule\n"
"                    counters in Prometheus' text format (node_exporter's\n"
"                    textfile collector)\n"
"  --dry-run         check the command (or -f and -b file) and build its\n"
"                    requests without sending them: needs no module,\n"
"                    interfaces are not looked up\n"
"  -s                with list: each rule's counters (packets, bytes); -j\n"
"                    output always has them\n"
"\n"
"  -f FILE           apply a file of add, add-stateful, del, flush, enable\n"
"                    and set commands (one per line, # comments) as one\n"
"                    transaction: all or nothing; the interfaces are enabled\n"
"                    and the settings set once the rules are in place (an\n"
"                    interface already enabled is no error); -f - reads\n"
"                    standard input\n"
"  -c                with -f: the kernel checks the whole file as it would\n"
"                    apply it, and applies nothing (exit 0: it would apply)\n"
"  -b FILE           run a file of commands (one per line, # comments), each as\n"
"                    on the command line and its own transaction; a line\n"
"                    \"-f FILE\" applies that file; the first that fails stops\n"
"                    the run, the lines before it stay applied; -b - reads\n"
"                    standard input\n"
"\n"
"RULE    := [ priority N ] [ conn-priority N ] MATCH [ MATCH ]...\n"
"           TARGET [ TARGET ]... [ comment TEXT ]   (N: 0 to 4294967295, higher\n"
"           wins, default 0; conn-priority: add-stateful, its connections'\n"
"           packets, default N; TEXT: 1 to 128 bytes, quoted, one line)\n"
"MATCH   := [ ! ] FIELD [ [ OP ] VALUE ] | all | LIMIT | CTCOUNT\n"
"LIMIT   := limit [ over ] RATE/{ second | minute | hour | day } [ burst N ]\n"
"           [ per FIELD[/PREFIX] [ size N ] ]   (one a rule, for add; burst 5,\n"
"           size 65535 by default)\n"
"CTCOUNT := ct count [ over ] N [ per KEY[/PREFIX] ] [ size N ]\n"
"           (KEY: ip-saddr, ip-daddr, ip6-saddr, ip6-daddr; connections per key)\n"
"OP      := { == | != | < | > | <= | >= }\n"
"TARGET  := { drop [ PERCENT ] | accept | mod FIELD VALUE | map FIELD VALUE |\n"
"             strip { OPTION | ! OPTION... | all } | add OPTION [ 0xHEX ] |\n"
"             masquerade | count | reject [ with REJECT ] |\n"
"             log [ prefix TEXT ] [ level LEVEL ] [ rate N/UNIT ] [ burst N ] |\n"
"             offload (add-stateful, not with drop: the fast path) |\n"
"             shuffle { PORT [ FIRST-LAST ] | tcp-seq-num | tcp-ack-num | ip-id |\n"
"                       ip6-flow-label } }\n"
"OPTION  := { tcp-opt-{mss,wscale,sackp,sack,timestamp,fast-open,mptcp} |\n"
"             tcp-opt KIND }\n"
"PORT    := { tcp-sport | tcp-dport | udp-sport | udp-dport }\n"
"REJECT  := { tcp-reset | port-unreachable | host-unreachable | net-unreachable |\n"
"             admin-prohibited }   (default: a RST for TCP, else port-unreachable)\n"
"FIELD   := { in | out | leaving | net-proto | ip-{ver,ihl,dscp,ecn,len,id,flags,res,df,mf,\n"
"             frag-offset,ttl,proto,checksum,saddr,daddr,payload} |\n"
"             ip-{non-ect,ect0,ect1,ce} | ip6-{ver,traffic-class,dscp,ecn,\n"
"             flow-label,len,next,hop-limit,saddr,daddr,payload} |\n"
"             icmp-{type,code,checksum,payload} |\n"
"             icmp6-{type,code,checksum,payload} |\n"
"             udp-{sport,dport,len,checksum,payload} |\n"
"             tcp-{sport,dport,seq-num,ack-num,offset,reserved,flags,cwr,ece,\n"
"             urg,ack,push,rst,syn,fin,win,checksum,urg-ptr,payload} |\n"
"             tcp-opt-{mss,wscale,sackp,sack,timestamp,fast-open,mptcp} |\n"
"             tcp-opt [ KIND ] | meta-mark }\n"
"VALUE   := { NUMBER | 0xHEX | ADDRESS[/PREFIX] | MARK[/MASK] | tcp | udp |\n"
"             icmp | icmp6 |\n"
"             not-ect | ect0 | ect1 | ce | ip4 | ip6 | IFACE }\n"
"SETTING := { timeout STATE SECONDS | conn-max N | tcp-loose { on | off } |\n"
"             rp-filter { on | off } }\n"
"STATE   := { tcp-{syn-sent,syn-recv,established,fin-wait,close-wait,last-ack,\n"
"             time-wait,close,syn-sent2} | udp-{unreplied,replied} | icmp }\n"
"\n"
"  enable IFACE      classify what the devices called IFACE receive (ingress\n"
"                    hook) and send (egress hook), now and as they appear; a\n"
"                    trailing * makes it a pattern: enable 'ppp*'\n"
"  disable IFACE     forget IFACE, a name or pattern as enabled\n"
"  add RULE          the matching rules of the highest priority that accept\n"
"                    or drop decide: accept beats drop, drop beats mod; rules\n"
"                    of lower priority do not apply; mods apply by priority,\n"
"                    then rule order (docs/priorities.md); a rule judges\n"
"                    arriving packets (in IFACE: by the device they arrive\n"
"                    on), or, with out IFACE or leaving, leaving ones (after\n"
"                    routing: forwarded and the host's own)\n"
"  add-stateful RULE a packet of no known connection that matches it starts\n"
"                    one (TCP, UDP, ICMP echo): the connection's packets both\n"
"                    ways get the rule's targets; ICMP errors about it its verdict\n"
"                    NAT: in it, mod or map of an address (a prefix maps the\n"
"                    prefix) or port maps the connection, replies are mapped\n"
"                    back; shuffle picks a port no other connection uses (by\n"
"                    default 1024-65535), or random sequence offsets, an IPv4\n"
"                    ID offset, an IPv6 flow label; masquerade (leaving rules)\n"
"                    maps the source to the leaving device's address;\n"
"                    count only counts (the rules below judge); mod\n"
"                    meta-mark VALUE[/MASK] sets the mark as MARK\n"
"                    --set-xmark: (mark & ~MASK) ^ VALUE, before routing\n"
"  del HANDLE        remove the rule with that handle (see list); the\n"
"                    connections of a stateful rule end with it\n"
"  flush             remove every rule (and so every connection)\n"
"  flush connections end every connection; the rules stay\n"
"  reset counters [ HANDLE ]\n"
"                    zero every rule's packet and byte counters (or that\n"
"                    rule's), as nft reset counters\n"
"  set SETTING...    connection timeouts, the table's size, whether TCP\n"
"                    connections may start mid-stream (tcp-loose), whether\n"
"                    packets with a forged source start none (rp-filter)\n"
"  list              rules, as the commands that re-create them (-s: with\n"
"                    their counters)\n"
"  save              the whole configuration (settings, interfaces, rules)\n"
"                    as a file for -f: mmbctl save > /etc/mmb/mmb.rules\n"
"  import FILE       an nftables ruleset, as nft -j list ruleset prints it,\n"
"                    translated and applied as one transaction in place of\n"
"                    the rules (netdev ingress and prerouting filter chains,\n"
"                    first match as priorities); what has no mmb meaning is\n"
"                    refused, naming table, chain, rule handle and\n"
"                    expression; -n prints the -f file instead, -c checks it\n"
"                    in the kernel; FILE - is standard input\n"
"  show interfaces   enabled interfaces and what their hook saw\n"
"  show stats        the same summed over the interfaces: packets, drops by\n"
"                    cause, rewrites, packets not judged; the flow cache's\n"
"                    hits and misses; the connection table's counters\n"
"  show tables       the hash tables (one per mask, similar masks merged):\n"
"                    fields, entries, rules, hits\n"
"  show connections  the connection table: both directions, state, timeout\n"
"  show settings     the settings and the connection table's counters\n"
"  monitor           connection events (new, update, destroy) as they happen\n"
"  monitor log       the packets log rules log, as they are logged\n"
"  trace PACKET      what mmb would do with a packet, changing nothing: the\n"
"                    rules that apply, its connection, the verdict, the\n"
"                    packet after rewriting. FIELD VALUE pairs (== values\n"
"                    of header fields) make it: IPv4 unless an ip6- field\n"
"                    is given, TCP unless another protocol's field or\n"
"                    ip-proto/ip6-next is; a TCP SYN from 192.0.2.1:1024 to\n"
"                    192.0.2.2:80 (2001:db8::1, ::2), TTL 64, no payload.\n"
"                    hex BYTES gives the IP packet itself\n"
"\n"
"Bare one-bit fields mean \"is set\"; a prefix applies to == and !=;\n"
"payloads compare 0xHEX bytes at the start of the payload. A bare TCP\n"
"option means \"is present\" (! absent); with a value the option must be\n"
"there: mss and wscale compare as numbers, the others as 0xHEX bytes at the\n"
"start of its data. mod of mss or wscale rewrites the number in place; mod\n"
"of another option replaces its data (of any length); strip removes options\n"
"(! OPTION: all but those), add appends one the segment lacks; on every\n"
"segment, in the order mod, strip, add. VALUE is never signed: mod ip-ttl\n"
"64 sets 64. \"mmbctl help fields\" lists each field's width and values.\n"
"\n"
"Exit status: 0 success, 1 refused by the kernel or the system,\n"
"2 malformed command.\n");
}

/*
 * "help" prints the usage; "help fields|targets|states" the words of one
 * kind, one per line, each first on its line (scripts and bash completion
 * take the first word); fields with their widths and values.
 */
static int do_help(int argc, char **argv)
{
	const struct target_kind *k;
	int i;

	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc > 2)
		return err_word(2, "unexpected word");
	if (!strcmp(argv[1], "fields")) {
		char line[200];

		for (i = 0; i < __MMB_FIELD_MAX; i++)
			if (field_name(i) && field_name(i)[0]) {
				field_help(i, line, sizeof(line));
				printf("%s\n", line);
			}
	} else if (!strcmp(argv[1], "targets")) {
		for (k = target_kinds; k->name; k++)
			printf("%s\n", k->name);
	} else if (!strcmp(argv[1], "states")) {
		for (i = 0; i <= CONN_TIMEOUT_UNACK; i++)
			printf("%s\n", conn_state_setting(i));
	} else {
		return err_word(1, "unknown topic \"%s\", try: fields, targets, states", argv[1]);
	}
	return EXIT_OK;
}

static int do_show(int argc, char **argv)
{
	static const struct cmd {
		const char *name;
		int (*fn)(int argc, char **argv);
	} objs[] = {
		{ "interfaces",		do_show_interfaces },
		{ "stats",		do_show_stats },
		{ "tables",		do_show_tables },
		{ "connections",	do_show_connections },
		{ "settings",		do_show_settings },
	};
	unsigned int i;

	if (argc < 2)
		return err_word(AT(argv + 1),
				"show what? { interfaces | stats | tables | connections | settings }");
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
		if (!strcmp(argv[1], objs[i].name))
			return objs[i].fn(argc - 1, argv + 1);
	return err_word(AT(argv + 1),
			"unknown object \"%s\", try: interfaces, stats, tables, connections, settings",
			argv[1]);
}

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "enable",	do_enable },
	{ "disable",	do_disable },
	{ "add",	do_add },
	{ "add-stateful", do_add },
	{ "del",	do_del },
	{ "flush",	do_flush },
	{ "reset",	do_reset },
	{ "list",	do_list },
	{ "save",	do_save },
	{ "show",	do_show },
	{ "set",	do_set },
	{ "monitor",	do_monitor },
	{ "trace",	do_trace },
	{ "help",	do_help },
	{ "import",	do_import },
};

static int run(int argc, char **argv)
{
	unsigned int i;

	cur.n = argc;
	cur.w = argv;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(argc, argv);
	return err_word(0, "unknown command \"%s\", try \"mmbctl help\"", argv[0]);
}

static int run_main(int argc, char **argv, const char *file, const char *script)
{
	if ((file || script) && argc) {
		fprintf(stderr, "Error: -%c FILE takes no command\n", file ? 'f' : 'b');
		return EXIT_USAGE;
	}
	if (file && script) {
		fprintf(stderr, "Error: -f and -b do not go together\n");
		return EXIT_USAGE;
	}
	if (print_is_prom() && (file || script || argc != 2 || strcmp(argv[0], "show") ||
				strcmp(argv[1], "stats"))) {
		fprintf(stderr, "Error: -P (--prometheus) goes with show stats only\n");
		return EXIT_USAGE;
	}
	if (opt_check && !file) {
		fprintf(stderr, "Error: -c checks a file: it goes with -f FILE\n");
		return EXIT_USAGE;
	}
	if (file)
		return do_batch(file);
	if (script)
		return do_script(script, run);
	if (argc < 1) {
		fprintf(stderr, "Error: no command\nTry \"mmbctl --help\" for the usage.\n");
		return EXIT_USAGE;
	}
	return run(argc, argv);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "statistics",	no_argument, NULL, 's' },
		{ "help",	no_argument, NULL, 'h' },
		{ "version",	no_argument, NULL, 'V' },
		{ "file",	required_argument, NULL, 'f' },
		{ "batch",	required_argument, NULL, 'b' },
		{ "prometheus",	no_argument, NULL, 'P' },
		{ "dry-run",	no_argument, NULL, 'n' + 256 },
		{ "check",	no_argument, NULL, 'c' },
		{}
	};
	const char *file = NULL, *script = NULL;
	bool json = false, pretty = false, prom = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jpPshcVf:b:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'P':
			prom = true;
			break;
		case 'n' + 256:
			mmb_nl_dry = true;
			break;
		case 's':
			opt_stats = true;
			break;
		case 'c':
			opt_check = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("mmbctl %s\n", MMBCTL_VERSION);
			return EXIT_OK;
		case 'f':
			file = optarg;
			break;
		case 'b':
			script = optarg;
			break;
		default:
			/* getopt said what is wrong; the usage would bury it. */
			fprintf(stderr, "Try \"mmbctl --help\" for the usage.\n");
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (json && prom) {
		fprintf(stderr, "Error: -j and -P (--prometheus) do not go together\n");
		return EXIT_USAGE;
	}
	print_init(stdout, json, pretty);
	if (prom)
		print_init_prom(stdout);
	ret = run_main(argc, argv, file, script);
	mmb_nl_close();
	return ret;
}
