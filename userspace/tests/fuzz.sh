#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the rule parser's fuzzer (fuzz_rule.c) for RUNS inputs from a fixed
# seed, starting from the rules of fuzz-seeds.txt (a line "S RULE" is an
# add-stateful). The same inputs every time: a failure reproduces. Prints
# TAP; on a failure, the end of libFuzzer's report and the input it kept.
#
# usage: tests/fuzz.sh PATH_TO_FUZZ_RULE RUNS
set -u
fuzzer=$(realpath "$1")
runs=$2
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/seeds" "$tmp/new"
n=0
while IFS= read -r line; do
	n=$((n + 1))
	case $line in
	"S "*) printf '1%s' "${line#S }" ;;
	*) printf '0%s' "$line" ;;
	esac > "$tmp/seeds/$n"
done < "$dir/fuzz-seeds.txt"

if (cd "$tmp" && "$fuzzer" -seed=1 -runs="$runs" -max_len=512 -dict="$dir/fuzz.dict" \
	-print_final_stats=1 new seeds) > "$tmp/log" 2>&1; then
	cov=$(grep -o 'cov: [0-9]*' "$tmp/log" | tail -n 1)
	echo "ok 1 - fuzz: the rule parser on $runs inputs from $n seeds ($cov), no ASan or UBSan report, every accepted rule printed and encoded back to itself"
	echo "1..1"
else
	echo "not ok 1 - fuzz: the rule parser on $runs inputs from $n seeds"
	tail -n 40 "$tmp/log" | sed 's/^/#   /'
	for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-*; do
		[ -e "$f" ] && { echo "#   input ${f##*/}:"; od -c "$f" | head -n 20 | sed 's/^/#   /'; }
	done
	echo "1..1"
	exit 1
fi
