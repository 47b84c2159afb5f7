#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion (completion/mmbctl) without a kernel: what it offers
# after a few command lines. Prints TAP.
#
# usage: tests/completion.sh PATH_TO_MMBCTL
set -u
dir=$(cd "$(dirname "$0")/.." && pwd)
PATH=$(cd "$(dirname "$1")" && pwd):$PATH
. "$dir/completion/mmbctl"
n=0
failed=0

# t DESC WANT LINE: completing the last word of LINE (a trailing space: a
# new word) offers exactly WANT (sorted, space-separated).
t() {
	local got

	read -r -a COMP_WORDS <<< "$3"
	[ "${3: -1}" = " " ] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_mmbctl
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
	n=$((n + 1))
	if [ "$got" = "$2" ]; then
		echo "ok $n - completion: $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - completion: $1"
		echo "#   got: $got"
		echo "#   want: $2"
	fi
}

t "commands" "add add-stateful" "mmbctl ad"
t "commands after options" "show" "mmbctl -j -p sh"
t "save among the commands" "save set show" "mmbctl s"
t "options" "--batch" "mmbctl -j --b"
t "show objects" "connections" "mmbctl show con"
t "flush" "connections" "mmbctl flush "
t "help topics" "fields states targets" "mmbctl help "
t "set: settings" "conn-max" "mmbctl set conn"
t "set timeout: states" "tcp-established" "mmbctl set timeout tcp-es"
t "set timeout STATE: a number, nothing offered" "" "mmbctl set timeout tcp-close "
t "set tcp-loose" "off on" "mmbctl set tcp-loose "
t "set rp-filter" "off on" "mmbctl set rp-filter "
t "add: fields" "tcp-opt tcp-opt-fast-open tcp-opt-mptcp tcp-opt-mss tcp-opt-sack tcp-opt-sackp tcp-opt-timestamp tcp-opt-wscale" "mmbctl add tcp-opt"
t "add: targets too" "drop" "mmbctl add tcp-dport 80 dr"
t "add: after mod, a field" "ip6-dscp" "mmbctl add ip6-dscp 0 mod ip6-ds"
t "add: after shuffle, what it shuffles" "tcp-ack-num tcp-dport tcp-seq-num tcp-sport" \
	"mmbctl add-stateful tcp-dport 80 shuffle tcp-"
t "add: ECN words" "ce" "mmbctl add ip-ecn c"
t "add: after in, interfaces" "lo" "mmbctl add in l"
t "add: limit among the matches" "limit" "mmbctl add tcp-dport 22 lim"
t "add: after limit, over or a rate" "over" "mmbctl add tcp-dport 22 limit o"
t "add: after limit over, a rate" "3/minute" "mmbctl add all limit over 3"
t "add: after per, key fields" "ip6-daddr ip6-saddr" "mmbctl add all limit 1/second per ip6"
t "enable: interfaces" "lo" "mmbctl enable l"
t "show: stats among the objects" "settings stats" "mmbctl show s"
t "trace among the commands" "trace" "mmbctl tr"
t "add: log among the targets" "log" "mmbctl add tcp-dport 22 lo"
t "add: after log, its words" "prefix" "mmbctl add tcp-dport 22 log pre"
t "add: log's levels" "emerg err" "mmbctl add tcp-dport 22 log level e"
t "monitor: log" "log" "mmbctl monitor "
t "import among the commands" "import" "mmbctl imp"
t "import: its options" "-c -n" "mmbctl import -"
t "-s among the options" "-s" "mmbctl -s"
t "trace: a field first" "tcp-dport" "mmbctl trace tcp-dp"
t "trace: after a field, its value" "" "mmbctl trace tcp-dport "
t "trace: then a field again, or hex" "hex" "mmbctl trace tcp-dport 80 he"
t "trace: after ip-proto, protocols" "tcp" "mmbctl trace ip-proto t"
t "-f: files" "$dir/completion" "mmbctl -f $dir/compl"
echo "1..$n"
[ "$failed" -eq 0 ]
