#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, the limits of the connection table (issue 37): a packet
# that matches more stateful rules than a connection keeps starts none and
# is dropped, counted as many-rules; the module's conn_max_total caps the
# connections of all namespaces together, here the router's and the
# client's, whose conn-max add up to more: beyond it, new connections are
# refused and counted as capped where they were asked for. Topology in
# lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
CAP=/sys/module/mmb/parameters/conn_max_total
if [ ! -w "$CAP" ]; then
	echo "Bail out! no $CAP"
	exit 1
fi
cap0=$(cat "$CAP")
trap 'echo "$cap0" > "$CAP"; topology_down' EXIT
in_r mmbctl enable r0
in_r mmbctl enable r1
start_server "$S" python3 "$TRAFFIC" udp-echo 7001

# setting NS KEY: a number of NS's show settings (stats.KEY for a counter).
setting() {
	ip netns exec "$1" mmbctl -j show settings | jq -er ".$2"
}

# is N WANT: N is WANT, or says what it is.
is() {
	[ "$1" -eq "$2" ] || { echo "$1, not $2"; return 1; }
}

# --- more stateful rules than a connection keeps ----------------------------------
# Five overlapping stateful rules, the last a drop: with the four lowest
# kept, the drop would apply to the first datagram alone (which the accepts
# let through anyway) and never again. None of it passes.
in_r mmbctl add-stateful all accept
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 accept
in_r mmbctl add-stateful ip-daddr 10.0.2.0/24 accept
in_r mmbctl add-stateful udp-dport 7001 accept
in_r mmbctl add-stateful udp-dport 7001 drop
c0=$(dev_drops r0 conn)
check_fails "five stateful rules: the client's datagram gets no answer" \
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 2
check_fails "five stateful rules: nor does it the second time" \
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 2
check "five stateful rules: no connection" test "$(setting "$R" connections)" -eq 0
check "five stateful rules: both counted as many-rules" \
	test "$(setting "$R" stats.many_rules)" -eq 2
check "five stateful rules: dropped at r0 as conn" drops_reached r0 conn $((c0 + 2))
check "five stateful rules: the kernel log says why" \
	grep -q 'mmb: a packet matched more than 4 stateful rules, dropping it' <(dmesg)
in_r mmbctl flush
in_r mmbctl add-stateful all accept
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 accept
in_r mmbctl add-stateful ip-daddr 10.0.2.0/24 accept
in_r mmbctl add-stateful udp-dport 7001 accept
check "four stateful rules: the client's datagram gets its answer" \
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 "$CEILING"
check "four stateful rules: one connection" test "$(setting "$R" connections)" -eq 1
in_r mmbctl flush connections

# --- the module's cap over all namespaces ----------------------------------------
# The router's table (conn-max 50) makes a connection of each request; the
# client's (conn-max 50, mmb on c0) one of each answer. The cap, 60, lets
# 30 exchanges through, each of two connections; the router's are
# assured, none evictable: the next requests are refused at the router.
# Nothing expires meanwhile, however slow the machine.
in_r mmbctl set conn-max 50 timeout udp-unreplied 3600 timeout udp-replied 3600
ip netns exec "$C" mmbctl enable c0
ip netns exec "$C" mmbctl add-stateful all accept
ip netns exec "$C" mmbctl set conn-max 50 timeout udp-unreplied 3600 timeout udp-replied 3600
check "cap: no other namespace holds connections" \
	test "$(($(setting "$R" connections) + $(setting "$C" connections)))" -eq 0
echo 60 > "$CAP"
ok=0
# Each exchange from a source port of its own: an ephemeral port the
# system gives twice would make one connection of two exchanges.
for i in $(seq 30); do
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 "$CEILING" $((20000 + i)) > /dev/null &&
		ok=$((ok + 1))
done
check "cap 60: 30 exchanges get their answers" test "$ok" -eq 30
check "cap 60: the router holds 30 connections" is "$(setting "$R" connections)" 30
check "cap 60: the client holds 30" is "$(setting "$C" connections)" 30
# The five side by side: each waits its second for the answer that does
# not come.
asks=()
for i in $(seq 5); do
	bg_in "$C" python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 1 $((20100 + i)) > /dev/null
	asks+=("$BG_PID")
done
wait "${asks[@]}"
check "cap 60: 5 more are refused at the router, counted as capped" \
	is "$(setting "$R" stats.capped)" 5
check "cap 60: not for its own conn-max" test "$(setting "$R" stats.refused)" -eq 0
check "cap 60: nothing evicted" test "$(setting "$R" stats.evicted)" -eq 0
check "cap 60: still 60 connections in all" \
	test "$(($(setting "$R" connections) + $(setting "$C" connections)))" -eq 60
check "cap 60: the kernel log says the cap is reached" \
	grep -q 'mmb: conn_max_total connections in all namespaces, dropping packet' <(dmesg)
ip netns exec "$C" mmbctl flush connections
check "cap 60: once the client's end, a new exchange gets its answer" \
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 "$CEILING"
check "cap 60: show stats prints the counters" \
	bash -c "ip netns exec $R mmbctl show stats | grep -Eq ' many-rules [0-9]+ capped 5$'"
echo "$cap0" > "$CAP"

check "kernel log has no warnings" kernel_log_clean
tap_end
