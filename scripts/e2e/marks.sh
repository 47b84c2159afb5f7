#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, marks, counters and comments (issue 40): the router marks
# arriving packets (mod meta-mark) and "ip rule fwmark 7 table 7" sends them
# by a second link to the server, unmarked ones by the first (nft counters
# on the server's two devices say which way each came); a leaving rule
# matches the mark; a count rule counts exactly what nft counts at the same
# device and the drop below it still drops; reset counters zeroes one rule
# or all; comments read back through list, -j, save and -f. IPv4 and IPv6.
# Topology in lib.sh, and a second link r2 (10.0.3.1, fd00:3::1) -- s2
# (10.0.3.2, fd00:3::2). Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
ip -n "$S" link add s2 type veth peer name r2 netns "$R"
ip -n "$R" addr add 10.0.3.1/24 dev r2
ip -n "$R" addr add fd00:3::1/64 dev r2 nodad
ip -n "$S" addr add 10.0.3.2/24 dev s2
ip -n "$S" addr add fd00:3::2/64 dev s2 nodad
ip -n "$R" link set r2 up
ip -n "$S" link set s2 up
# Marked traffic to the server goes by r2.
in_r ip rule add fwmark 7 table 7
in_r ip -6 rule add fwmark 7 table 7
in_r ip route add 10.0.2.0/24 via 10.0.3.2 dev r2 table 7
in_r ip -6 route add fd00:2::/64 via fd00:3::2 dev r2 table 7
in_r mmbctl enable r0
in_r mmbctl enable r2

N=20
# The oracle: nft counters at the server's devices, and at the router's r0.
in_s nft -f - <<'EOF'
table netdev marks {
	counter s0_5007 {}
	counter s2_5007 {}
	counter s0_5008 {}
	counter s2_5008 {}
	counter s0_5009 {}
	chain s0 {
		type filter hook ingress device s0 priority 0; policy accept;
		udp dport 5007 counter name s0_5007
		udp dport 5008 counter name s0_5008
		udp dport 5009 counter name s0_5009
	}
	chain s2 {
		type filter hook ingress device s2 priority 0; policy accept;
		udp dport 5007 counter name s2_5007
		udp dport 5008 counter name s2_5008
	}
}
EOF
in_r nft -f - <<'EOF'
table netdev marks {
	counter r0_5009 {}
	chain r0 {
		type filter hook ingress device r0 priority 0; policy accept;
		udp dport 5009 counter name r0_5009
	}
}
EOF

# nft_count NS COUNTER [bytes]: packets (or bytes) of an nft counter.
nft_count() {
	ip netns exec "$1" nft -j list counter netdev marks "$2" |
		jq -r ".nftables[] | select(.counter) | .counter.${3:-packets}"
}

nft_is() {
	test "$(nft_count "$1" "$2")" -eq "$3"
}

# rule_stat HANDLE [bytes]: a rule's packets (or bytes), from -j list.
rule_stat() {
	in_r mmbctl -j list | jq -r ".[] | select(.handle == $1) | .stats.${2:-packets}"
}

rule_is() {
	test "$(rule_stat "$1")" -eq "$2"
}

send() {
	in_c python3 "$TRAFFIC" udp-send "$1" "$2" "$3" 32
}

# --- marks steer routing ---------------------------------------------------------
in_r mmbctl add udp-dport 5007 mod meta-mark 7 comment "to table 7"
h_mark=$(in_r mmbctl -j list | jq '.[-1].handle')
# A leaving rule of r2 that matches the mark: what left by r2 marked.
in_r mmbctl add out r2 meta-mark 7 count
h_out=$(in_r mmbctl -j list | jq '.[-1].handle')
in_r mmbctl add out r2 meta-mark != 7 udp-dport 5008 count
h_out_other=$(in_r mmbctl -j list | jq '.[-1].handle')
send 10.0.2.2 5007 "$N"
send fd00:2::2 5007 "$N"
send 10.0.2.2 5008 "$N"
send fd00:2::2 5008 "$N"
wait_for "$CEILING" nft_is "$S" s2_5007 $((2 * N))
wait_for "$CEILING" nft_is "$S" s0_5008 $((2 * N))
check "marked packets (mod meta-mark 7, both families) follow ip rule fwmark 7: all $((2 * N)) by the second link" \
	nft_is "$S" s2_5007 $((2 * N))
check "marked packets take not the main table's route" nft_is "$S" s0_5007 0
check "unmarked packets follow the main table: all $((2 * N)) by the first link" \
	nft_is "$S" s0_5008 $((2 * N))
check "unmarked packets do not follow table 7" nft_is "$S" s2_5008 0
check "the marking rule counted each marked packet" test "$(rule_stat "$h_mark")" -eq $((2 * N))
check "a leaving rule matches meta-mark 7 on every marked packet that left by r2" \
	test "$(rule_stat "$h_out")" -eq $((2 * N))
check "no unmarked packet to port 5008 left by r2" rule_is "$h_out_other" 0
check "list shows the mark" \
	bash -c "ip netns exec $R mmbctl list | grep -qx 'add udp-dport 5007 mod meta-mark 7 comment \"to table 7\" # handle $h_mark'"
in_r mmbctl flush

# --- count: exact, and the rules below still judge ------------------------------
in_r mmbctl add priority 10 udp-dport 5009 count comment 'count "5009"'
h_count=$(in_r mmbctl -j list | jq '.[-1].handle')
in_r mmbctl add priority 5 udp-dport 5009 drop
h_drop=$(in_r mmbctl -j list | jq '.[-1].handle')
send 10.0.2.2 5009 "$N"
send fd00:2::2 5009 "$N"
wait_for "$CEILING" nft_is "$R" r0_5009 $((2 * N))
wait_for "$CEILING" rule_is "$h_drop" $((2 * N))
check "count counts what nft counts at r0: $((2 * N)) packets" \
	test "$(rule_stat "$h_count")" -eq "$(nft_count "$R" r0_5009)"
check "count counts the same bytes as nft (from the IP header on)" \
	test "$(rule_stat "$h_count" bytes)" -eq "$(nft_count "$R" r0_5009 bytes)"
check "the drop rule below the count rule judged every packet" \
	test "$(rule_stat "$h_drop")" -eq $((2 * N))
check "none reached the server" nft_is "$S" s0_5009 0

# --- reset counters ------------------------------------------------------------
check "reset counters HANDLE" in_r mmbctl reset counters "$h_count"
check "that rule's counters are 0" test "$(rule_stat "$h_count")" -eq 0
check "... and its bytes" test "$(rule_stat "$h_count" bytes)" -eq 0
check "another rule's stay" test "$(rule_stat "$h_drop")" -eq $((2 * N))
refused "reset counters of no rule: refused at the handle" 1 "no rule with this handle" \
	in_r mmbctl reset counters 99999
check "reset counters: every rule" in_r mmbctl reset counters
check "every rule's counters are 0" \
	test "$(in_r mmbctl -j list | jq '[.[].stats.packets] | add')" -eq 0
before=$(nft_count "$R" r0_5009)
send 10.0.2.2 5009 5
wait_for "$CEILING" nft_is "$R" r0_5009 $((before + 5))
wait_for "$CEILING" rule_is "$h_drop" 5
check "counted again from 0, exactly: 5" test "$(rule_stat "$h_count")" -eq 5

# --- comments: list, -j, save, -f ---------------------------------------------------
tricky='"quoted" \ $HOME `id` #1 '"'single'"' ünï ✓'
in_r mmbctl add tcp-dport 22 accept comment "ssh from office"
in_r mmbctl add ip6-saddr fd00:1::/64 accept comment "$tricky"
check_jq "-j list has each comment as given" \
	"[.[0][].comment] == [\"count \\\"5009\\\"\", null, \"ssh from office\", $(jq -Rn --arg c "$tricky" '$c')]" \
	"$(in_r mmbctl -j list)"
in_r mmbctl save > "$TMP/saved"
in_r mmbctl list | sed 's/ # handle.*//' > "$TMP/list.before"
in_r mmbctl flush
check "save's file applies with -f" in_r mmbctl -f "$TMP/saved"
in_r mmbctl list | sed 's/ # handle.*//' > "$TMP/list.after"
check "the rules and their comments read back exactly through save and -f" \
	cmp "$TMP/list.before" "$TMP/list.after"
check_jq "-j list after -f: the same comments" \
	"[.[0][].comment] == [\"count \\\"5009\\\"\", null, \"ssh from office\", $(jq -Rn --arg c "$tricky" '$c')]" \
	"$(in_r mmbctl -j list)"
# list's text, pasted into a shell, adds the same rule.
in_r mmbctl flush
eval "in_r mmbctl $(grep '^add ip6' "$TMP/list.before")"
check "list's line, run by a shell, gives back the comment" \
	test "$(in_r mmbctl -j list | jq -r '.[0].comment')" = "$tricky"
refused "a comment with a newline is refused at it" 2 "control character" \
	in_r mmbctl add all accept comment "$(printf 'two\nlines')"
refused "a comment over 128 bytes is refused" 2 "1 to 128 bytes" \
	in_r mmbctl add all accept comment "$(head -c 129 /dev/zero | tr '\0' c)"
refused "count with a verdict is refused at count" 2 "only target" \
	in_r mmbctl add all count accept
refused "a meta-mark mask of 0 is refused" 2 "mask of 0" in_r mmbctl add all mod meta-mark 1/0
refused "a meta-mark over 32 bits is refused" 2 "does not fit" \
	in_r mmbctl add meta-mark 0x100000000 drop
in_r mmbctl flush

# --- trace: the mark of the packet it makes -------------------------------------------
in_r mmbctl add meta-mark 0x10/0xf0 udp-dport 53 drop
in_r mmbctl -j trace udp-dport 53 meta-mark 0x1f > "$TMP/trace.marked"
in_r mmbctl -j trace udp-dport 53 meta-mark 0x20 > "$TMP/trace.other"
check_jq "trace: a packet of mark 0x1f is dropped by meta-mark 0x10/0xf0" '.[0].verdict == "drop"' \
	"$(cat "$TMP/trace.marked")"
check_jq "trace: one of mark 0x20 passes" '.[0].verdict != "drop"' "$(cat "$TMP/trace.other")"
in_r mmbctl flush

check "the kernel log is clean" kernel_log_clean
tap_end
