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

# -f reads the whole file before it talks to the kernel: errors in it name
# the file, the line and the word, whatever the line endings and comments.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'add ip-ttl 1 drop # one\r\n\n  # nothing\nadd ip-ttl 2 drop#two\nadd ip-ttl 999 drop' > "$tmp/bad"
t "-f: an error names file, line and word" 2 "Error: 999 does not fit in ip-ttl (8 bits)
$tmp/bad:5: add ip-ttl 999 drop
$(printf '%*s' $((${#tmp} + 19)) '')^~~" -- -f "$tmp/bad"
printf 'add ip-ttl 1 drop\nfrob\n' > "$tmp/cmd"
t "-f: only add, del and flush" 2 "Error: a file holds add, del and flush commands
$tmp/cmd:2: frob
$(printf '%*s' $((${#tmp} + 8)) '')^~~~" -- -f "$tmp/cmd"
printf 'flush x\n' > "$tmp/flush"
t "-f: flush takes no word" 2 "Error: unexpected word after flush
$tmp/flush:1: flush x
$(printf '%*s' $((${#tmp} + 16)) '')^" -- -f "$tmp/flush"
printf 'add ip-ttl 1 drop\0\n' > "$tmp/nul"
t "-f: a NUL byte is refused" 2 "Error: $tmp/nul: not a text file (it holds a NUL byte)" -- -f "$tmp/nul"
t "-f: a missing file is refused" 1 "Error: $tmp/none: No such file or directory" -- -f "$tmp/none"
t "-f: an error on stdin names it -" 2 "Error: unknown field \"frob\"
-:1: add frob 1 drop
         ^~~~" -- -f - < <(printf 'add frob 1 drop\n')

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
