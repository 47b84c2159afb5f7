#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man page mmbctl(8) against mmbctl itself, without a kernel: it
# renders without warnings, names every field, target and state mmbctl
# knows, and every rule of its EXAMPLES parses (as -f reads them). Prints TAP.
#
# usage: tests/man.sh PATH_TO_MMBCTL
set -u
MMBCTL=$1
page=$(cd "$(dirname "$0")/.." && pwd)/mmbctl.8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

result() {	# STATUS DESC [DIAG]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - man: $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - man: $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}

warn=$(groff -man -Tascii -ww -z "$page" 2>&1)
result "$([ -z "$warn" ]; echo $?)" "mmbctl.8 renders without a warning" "$warn"
groff -man -Tascii -P-cbu "$page" 2> /dev/null > "$tmp/text"
# Words of the page; a field broken by hyphenation at a line end is joined.
sed -e ':a' -e '/-$/{N;s/-\n *//;ba}' "$tmp/text" | tr -s ' ,;()[]{}' '\n' | sort -u > "$tmp/words"

for topic in fields targets states; do
	missing=$("$MMBCTL" help "$topic" | cut -d' ' -f1 | grep -vxFf "$tmp/words" | tr '\n' ' ')
	result "$([ -z "$missing" ]; echo $?)" "it names every one of mmbctl's $topic" \
		"missing: $missing"
done

# The examples' rules, continuation lines joined, then a line that must
# fail: -f parses every line before it talks to the kernel, so the error
# at the last line says all the others parsed.
sed -n '/^EXAMPLES/,/^SEE ALSO/p' "$tmp/text" | sed -e ':a' -e '/\\$/{N;s/\\\n *//;ba}' |
	sed -n 's/^ *mmbctl \(add\(-stateful\)\? .*\)$/\1/p' > "$tmp/examples"
count=$(wc -l < "$tmp/examples")
echo "add ip-ttl 999 drop" >> "$tmp/examples"
out=$("$MMBCTL" -f "$tmp/examples" 2>&1)
result "$(grep -q "examples:$((count + 1)): add ip-ttl 999 drop" <<< "$out"; echo $?)" \
	"the $count rules of its examples parse" "$out"
result "$([ "$count" -ge 10 ]; echo $?)" "it has rules for the recipes ($count)"

echo "1..$n"
[ "$failed" -eq 0 ]
