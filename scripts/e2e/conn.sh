#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, the connection table: a reflexive ACL lets the clients'
# TCP, UDP and pings through both ways and nothing the server starts; ICMP
# errors about the clients' connections (port unreachable, time exceeded,
# fragmentation needed, packet too big) pass as related; a stateful drop
# drops, and a dropped packet starts no connection; short timeouts expire
# connections; a full table refuses new ones as documented; show
# connections, monitor and flush. Topology in lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1

# conns [JQ-FILTER]: the router's connections as JSON lines (filtered).
conns() {
	in_r mmbctl -j show connections | jq -c ".[] | ${1:-.}"
}

conn_count() {
	in_r mmbctl -j show connections | jq length
}

# setting KEY: a number of show settings (a .stats member with stats.KEY).
setting() {
	in_r mmbctl -j show settings | jq -er ".$1"
}

setting_reached() {
	test "$(setting "$1")" -ge "$2"
}

conns_are() {
	test "$(conn_count)" -eq "$1"
}

# The reflexive ACL of the README: the clients may start anything; the
# neighbour discovery IPv6 needs passes; everything else is dropped.
reflexive() {
	in_r mmbctl flush
	in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 accept
	in_r mmbctl add-stateful ip6-saddr fd00:1::/64 accept
	in_r mmbctl add icmp6-type '>=' 133 icmp6-type '<=' 137 accept
	in_r mmbctl add all drop
}

# --- the reflexive ACL ----------------------------------------------------------
reflexive
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 7000
start_server "$S" python3 "$TRAFFIC" udp-echo 7001
for dst in 10.0.2.2 fd00:2::2; do
	check "reflexive ($dst): a client's TCP connection works both ways" \
		in_c python3 "$TRAFFIC" tcp-client "$dst" 7000 100000
	check "reflexive ($dst): a client's UDP gets its answer" \
		in_c python3 "$TRAFFIC" udp-ask "$dst" 7001 "$CEILING"
	check "reflexive ($dst): a client's ping gets its replies" \
		in_c ping -q -c 3 -i 0.2 -W "$CEILING" "$dst"
done
json=$(conns)
check_jq "show connections: TCP, UDP and ICMP, both families; UDP replied, all assured" \
	'(map(select(.proto == "tcp")) | length) == 2 and
	 (map(select(.proto == "udp" and .state == "replied")) | length) == 2 and
	 (map(select(.proto == "icmp" or .proto == "icmp6")) | length) == 2 and
	 all(.assured)' "$json"
check_jq "show connections: a UDP connection's tuples, counters and rule" \
	'map(select(.proto == "udp" and .orig.dst == "10.0.2.2")) | length == 1 and
	 (.[0] | .orig.src == "10.0.1.2" and .orig.dport == 7001 and .reply.src == "10.0.2.2" and
		 .reply.sport == 7001 and .reply.dport == .orig.sport and .orig.packets == 1 and
		 .reply.packets == 1 and .assured and (.rules | length == 1))' "$json"
check "show connections: the same as text" \
	grep -q "^udp replied [0-9]*s 10.0.1.2:[0-9]* -> 10.0.2.2:7001 packets 1 bytes 35, reply 10.0.2.2:7001 -> 10.0.1.2:[0-9]* packets 1 bytes 35 assured rules [0-9]*$" \
	<(in_r mmbctl show connections)

# What the server starts is refused: each of its packets dropped at r1.
start_server "$C" python3 "$TRAFFIC" tcp-echo-server 7100
client_sink() {
	start_server "$C" python3 "$TRAFFIC" udp-sink 7101 1 "$CEILING"
}
for dst in 10.0.1.2 fd00:1::2; do
	d=$(dev_drops r1 rule)
	bg_in "$S" python3 "$TRAFFIC" tcp-hold "$dst" 7100 1 "$CEILING" > "$TMP/hold"
	hold=$BG_PID
	check "refused ($dst): the server's SYN is dropped at r1" \
		wait_for "$CEILING" drops_reached r1 rule $((d + 1))
	kill "$hold"; wait "$hold" 2> /dev/null
	check "refused ($dst): so its connection never came up" test "$(tail -n 1 "$TMP/hold")" = 0
	client_sink
	d=$(dev_drops r1 rule)
	in_s python3 "$TRAFFIC" udp-send "$dst" 7101 1 20
	check "refused ($dst): the server's datagram is dropped at r1" \
		wait_for "$CEILING" drops_reached r1 rule $((d + 1))
	stop_server
	check "refused ($dst): and the client got nothing" test "$(received)" = 0
	d=$(dev_drops r1 rule)
	# ping's status: 0 with a reply, 1 without one in 3 s
	bg_in "$S" ping -q -c 1 -W 3 "$dst" > /dev/null
	ping=$BG_PID
	check "refused ($dst): the server's ping is dropped at r1" \
		wait_for "$CEILING" drops_reached r1 rule $((d + 1))
	status=0
	wait "$ping" || status=$?
	check "refused ($dst): and got no reply" test "$status" -eq 1
done

# --- related ICMP errors ------------------------------------------------------------
r=$(dev_drops r1 rule)
# A port nobody listens on: the server's kernel answers "port unreachable".
check_jq "related (10.0.2.2): the server's port unreachable reaches the client" \
	'.[0].icmp == [3, 3, 0]' "$(in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7999 "$CEILING")"
check_jq "related (fd00:2::2): the server's port unreachable reaches the client" \
	'.[0].icmp == [1, 4, 0]' "$(in_c python3 "$TRAFFIC" udp-ask fd00:2::2 7999 "$CEILING")"
# What a router beyond r1 would send: time exceeded (traceroute), and the
# errors of path MTU discovery.
related() {	# related DESC DST TYPE CODE INFO
	icmp_reaches "related ($2): $1 reaches the client" "$2" 7998 "$3" "$4" "$5"
}
related "time exceeded" 10.0.2.2 11 0 0
related "fragmentation needed, MTU 1300" 10.0.2.2 3 4 1300
related "time exceeded" fd00:2::2 3 0 0
related "packet too big, MTU 1300" fd00:2::2 2 0 1300
check "related: none of them was dropped at r1" test "$r" -eq "$(dev_drops r1 rule)"

# The same errors about what was never sent: "all drop" has them.
in_r mmbctl flush connections
check "flush connections: none is left" conns_are 0
d=$(dev_drops r1 rule)
in_s python3 "$TRAFFIC" udp-send 10.0.1.2 7102 1 20
check "after the flush, the server's datagram to the client is dropped" \
	wait_for "$CEILING" drops_reached r1 rule $((d + 1))

# --- stateful drop -----------------------------------------------------------------
in_r mmbctl flush
in_r mmbctl add-stateful udp-dport 7201 drop
d0=$(dev_drops r0 rule)
in_c python3 "$TRAFFIC" udp-send 10.0.2.2 7201 3 20
check "stateful drop: the client's datagrams are dropped at r0" \
	wait_for "$CEILING" drops_reached r0 rule $((d0 + 3))
check "stateful drop: a dropped packet leaves no connection behind" \
	test -z "$(conns 'select(.orig.dport == 7201 or .reply.dport == 7201)')"
check "stateful drop: other ports pass" \
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7001 "$CEILING"

# --- timeouts ------------------------------------------------------------------------
reflexive
in_r mmbctl set timeout udp-unreplied 2 timeout udp-replied 3
check_jq "set timeout: show settings has them" \
	'.[0].timeouts["udp-unreplied"] == 2 and .[0].timeouts["udp-replied"] == 3 and
	 .[0].timeouts["tcp-established"] == 432000' "$(in_r mmbctl -j show settings)"
start_server "$S" python3 "$TRAFFIC" udp-echo 7301
check "timeouts: a UDP exchange makes a connection" \
	in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 7301 "$CEILING"
sport=$(conns 'select(.orig.dport == 7301) | .orig.sport')
stop_server	# its port is the server's end of the connection: udp-send takes it
check "timeouts: it expires 3 s after its last packet" wait_for "$CEILING" conns_are 0
d=$(dev_drops r1 rule)
in_s python3 "$TRAFFIC" udp-send 10.0.1.2 "$sport" 1 20 0 10.0.2.2 7301
check "timeouts: then the server's datagram to its port is dropped" \
	wait_for "$CEILING" drops_reached r1 rule $((d + 1))
check "timeouts: and the expiry is counted" wait_for "$CEILING" setting_reached stats.expired 1
in_r mmbctl set timeout udp-unreplied 30 timeout udp-replied 120

# --- a full table --------------------------------------------------------------------
# 50 connections at most: 50 clients' connections come up and stay; 50 more
# are refused, their SYNs dropped and counted, and the 50 keep working.
in_r mmbctl flush connections
max0=$(setting conn_max)
in_r mmbctl set conn-max 50
bg_in "$C" python3 "$TRAFFIC" tcp-hold 10.0.2.2 7000 50 "$CEILING" > "$TMP/hold50"
hold50=$BG_PID
check "conn-max 50: 50 connections come up" \
	wait_for "$CEILING" grep -qx 50 "$TMP/hold50"
check "conn-max 50: the table holds 50" test "$(setting connections)" -eq 50
refused0=$(setting stats.refused)
c0=$(dev_drops r0 conn)
bg_in "$C" python3 "$TRAFFIC" tcp-hold 10.0.2.2 7000 50 "$CEILING" > "$TMP/hold100"
hold100=$BG_PID
check "conn-max 50: 50 more are refused, counted" \
	wait_for "$CEILING" setting_reached stats.refused $((refused0 + 50))
check "conn-max 50: their SYNs are dropped at r0, counted as conn" \
	wait_for "$CEILING" drops_reached r0 conn $((c0 + 50))
kill "$hold100"; wait "$hold100" 2> /dev/null
check "conn-max 50: none of them came up" test "$(tail -n 1 "$TMP/hold100")" = 0
check "conn-max 50: the table still holds 50" test "$(setting connections)" -eq 50
check "conn-max 50: nothing was evicted: all 50 were established" \
	test "$(setting stats.evicted)" -eq 0
check "conn-max 50: the kernel log says the table is full" \
	grep -q 'mmb: connection table full, dropping packet' <(dmesg)
kill "$hold50"; wait "$hold50" 2> /dev/null
in_r mmbctl set conn-max "$max0"

# --- monitor, and the end of a rule ---------------------------------------------------
in_r mmbctl flush connections
bg_in "$R" mmbctl -j monitor > "$TMP/events"
monitor=$BG_PID
# The monitor has joined once an event it sees could be ours: wait for a
# probe's connection to show up in it.
check "monitor: sees a new connection" \
	wait_for "$CEILING" sh -c "ip netns exec $C python3 $TRAFFIC udp-ask 10.0.2.2 7001 1 > /dev/null;
				   grep -q '\"event\":\"new\"' $TMP/events"
handle=$(in_r mmbctl -j list | jq '.[] | select(.rule | contains("10.0.1.0/24")) | .handle')
in_r mmbctl del "$handle"
check "del of the stateful rule: its connections end at once" conns_are 0
check "monitor: heard them end" wait_for "$CEILING" grep -q '"event":"destroy"' "$TMP/events"
kill "$monitor"; wait "$monitor" 2> /dev/null
check_all "monitor: each line is an event with a connection" \
	'(.event | IN("new", "update", "destroy")) and (.proto | IN("udp", "tcp", "icmp"))' 2 \
	"$(cat "$TMP/events")"
check_jq "monitor: the UDP exchange was new, then replied" \
	'map(select(.proto == "udp" and .orig.dport == 7001)) |
	 (.[0].event == "new" and .[0].state == "unreplied") and
	 any(.event == "update" and .state == "replied")' "$(cat "$TMP/events")"

refused "monitor without CAP_NET_ADMIN is refused" 1 "CAP_NET_ADMIN" \
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups mmbctl monitor
refused "show connections without CAP_NET_ADMIN is refused" 1 "CAP_NET_ADMIN" \
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups mmbctl show connections
refused "set without CAP_NET_ADMIN is refused" 1 "CAP_NET_ADMIN" \
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups mmbctl set conn-max 5
refused "map needs a stateful rule" 2 "add-stateful" in_r mmbctl add udp-dport 1 map ip-saddr 10.9.9.9

check "kernel log has no warnings" kernel_log_clean
echo "1..$tap_n"
[ "$tap_failed" -eq 0 ]
