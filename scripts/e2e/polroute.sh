#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end: policy routing decides where a connection leaves, and
# mmb follows it. The router has a second link to the server, r2, that
# mmb is not enabled on; "ip rule" sends TCP to port 8001 that arrives on
# r0 through table 100, out of r2, and the server answers it the same way.
# Port 8000 takes the main table, out of r1 (enabled). With a leaving
# stateful rule in place, a connection an arriving rule starts waits for
# its leaving judgement only if it leaves by an enabled device: mmb asks
# the route as the stack does (device, source, mark, protocol, ports), so
# 8001's replies do not wait for a judgement that never comes (they did
# when mmb asked the main table alone, and a stateless drop of what no
# connection accepts dropped them). Prints TAP.
#
#   c0 10.0.1.2 --- r0 [R] r1 10.0.2.1 (mmb) --- s0 10.0.2.2 [S]
#                          r2 10.0.3.1 (none) --- s1 10.0.3.2
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
ip -n "$S" link add s1 type veth peer name r2 netns "$R"
ip -n "$R" addr add 10.0.3.1/24 dev r2
ip -n "$R" addr add fd00:3::1/64 dev r2 nodad
ip -n "$S" addr add 10.0.3.2/24 dev s1
ip -n "$S" addr add fd00:3::2/64 dev s1 nodad
ip -n "$R" link set r2 up
ip -n "$S" link set s1 up
for v in -4 -6; do
	gw=10.0.3.2 back=10.0.3.1
	[ $v = -4 ] || gw=fd00:3::2 back=fd00:3::1
	ip -n "$R" $v rule add iif r0 ipproto tcp dport 8001 table 100
	ip -n "$R" $v route add default via $gw dev r2 table 100
	ip -n "$S" $v rule add ipproto tcp sport 8001 table 100
	ip -n "$S" $v route add default via $back dev s1 table 100
done
# Back to the client by r0, 8001's replies (in by r2, which mmb does not
# judge) are dropped unless their connection accepts them: one that
# waited for a leaving judgement would be no connection's.
check "the rules load" in_r mmbctl -f - <<'RULES'
enable r0
enable r1
add-stateful in r0 tcp-dport 8000 accept
add-stateful in r0 tcp-dport 8001 accept
add-stateful out r1 tcp-dport 8000 accept
add-stateful out r1 tcp-dport 8001 accept
add out r0 tcp-sport 8001 drop
RULES
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 8000
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 8001

# Bytes a device of the router sent: which way a transfer went.
tx() { ip -n "$R" -j -s link show "$1" | jq '.[0].stats64.tx.bytes'; }

for dst in 10.0.2.2 fd00:2::2; do
	r1=$(tx r1) r2=$(tx r2)
	check "$dst port 8001: a transfer by the policy route (out of r2, not enabled) completes" \
		in_c timeout 20 python3 "$TRAFFIC" tcp-client $dst 8001 100000
	check "$dst port 8001: it left by r2, not r1" \
		test $(($(tx r2) - r2)) -ge 100000 -a $(($(tx r1) - r1)) -lt 10000
	r1=$(tx r1)
	check "$dst port 8000: a transfer by the main table (out of r1, enabled) completes" \
		in_c timeout 20 python3 "$TRAFFIC" tcp-client $dst 8000 100000
	check "$dst port 8000: it left by r1" test $(($(tx r1) - r1)) -ge 100000
done
check_jq "r0 dropped nothing: every reply was its connection's" \
	'.[0][] | select(.ifname == "r0") | .stats.drops.rule == 0' \
	"$(in_r mmbctl -j show interfaces)"
check "kernel log has no warnings" kernel_log_clean
tap_end
