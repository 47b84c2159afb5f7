#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmbctl's command line, without a kernel: usage, exit codes, and errors
# that point at the offending word. Prints TAP.
#
# usage: tests/cli.sh PATH_TO_MMBCTL
set -u
MMBCTL=$1
n=0
failed=0

# t DESC WANT_STATUS WANT_STDERR_LINES -- ARGS...: compare exit status and,
# if given, the exact error output.
t() {
	local desc=$1 want=$2 expect=$3 out status
	shift 4
	out=$("$MMBCTL" "$@" 2>&1 >/dev/null)
	status=$?
	n=$((n + 1))
	if [ "$status" -eq "$want" ] && { [ -z "$expect" ] || [ "$out" = "$expect" ]; }; then
		echo "ok $n - cli: $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - cli: $desc (exit $status, wanted $want)"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

t "no command is a usage error" 2 "" --
t "help succeeds" 0 "" -- help
t "-h succeeds" 0 "" -- -h
t "-V succeeds" 0 "" -- -V
t "unknown option is a usage error" 2 "" -- --frob
t "unknown command points at it" 2 'Error: unknown command "frob", try "mmbctl help"
mmbctl frob x
       ^~~~' -- frob x
t "enable without IFACE points past the end" 2 'Error: missing IFACE
mmbctl enable
              ^' -- enable
t "enable with a name too long points at it" 2 'Error: not a valid interface name
mmbctl enable abcdefghijklmnopq
              ^~~~~~~~~~~~~~~~~' -- enable abcdefghijklmnopq
t "enable with an extra word points at it" 2 'Error: unexpected word after IFACE
mmbctl enable eth0 eth1
                   ^~~~' -- enable eth0 eth1
t "disable without IFACE" 2 "" -- disable
t "show without object" 2 "" -- show
t "show of an unknown object points at it" 2 'Error: unknown object "tables!", try: interfaces, tables
mmbctl show tables!
            ^~~~~~~' -- show tables!
t "show interfaces with an extra word" 2 "" -- show interfaces now

# Without the module, commands that need it fail with status 1 and say why.
if [ ! -e /sys/module/mmb ]; then
	t "without the module, show interfaces says it is not loaded" 1 \
		'Error: the mmb kernel module is not loaded (no generic netlink family "mmb")' -- show interfaces
	t "without the module, enable says it is not loaded" 1 \
		'Error: the mmb kernel module is not loaded (no generic netlink family "mmb")' -- enable eth0
else
	n=$((n + 1)); echo "ok $n - cli: module-absent errors # SKIP mmb is loaded"
	n=$((n + 1)); echo "ok $n - cli: module-absent errors # SKIP mmb is loaded"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
