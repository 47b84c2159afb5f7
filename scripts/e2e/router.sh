#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, docs/router.md as it is written: a router namespace with
# lan0 (a home host behind it) and wan0 (the ISP's host), the page's sysctls
# and ruleset taken from the page and applied as they are, then the LAN's
# connections out through source NAT (IPv4) and routed (IPv6), nothing in
# from the WAN but the forwarded and opened ports, the MSS clamped both
# ways, DHCP answers, the router's own pings and DNS, save and -f again,
# and mmbctl -P show stats on the live counters in Prometheus' format.
# Also what waits for the egress work: the router's own TCP out of the WAN
# is dropped (checked, so that the day it changes is noticed). Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
PAGE=$MMB_ROOT/docs/router.md

# The fenced block after the page's marker "<!-- router.sh: WHAT -->".
block() {
	doc_block "$PAGE" "router.sh: $1"
}

trap topology_down EXIT
kernel_log_mark
if ! router_page_up; then
	echo "Bail out! cannot build the namespaces"
	exit 1
fi

# --- the page's sysctls and ruleset, as they are ------------------------------
block sysctl > "$TMP/sysctl.conf"
block rules > "$TMP/router.rules"
check "router.md has its sysctls and ruleset" \
	test "$(grep -c = "$TMP/sysctl.conf")" -ge 4 -a "$(grep -c '^add' "$TMP/router.rules")" -ge 15
check "the sysctls apply in the router" in_r sysctl -q -p "$TMP/sysctl.conf"
check "the ruleset parses without a kernel (--dry-run)" mmbctl --dry-run -f "$TMP/router.rules"
check "the ruleset applies as one file" in_r mmbctl -f "$TMP/router.rules"
check "lan0 and wan0 are enabled" test "$(enabled_in "$R")" = "lan0 wan0"

# --- the LAN's connections out ------------------------------------------------
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
seen=$(peer_ask "$C" tcp "$ISP4" 8000)
check "IPv4 TCP from the LAN: the ISP sees the WAN address ($seen)" test "${seen% *}" = "$WAN4"
check "from a port of 61000-65535" test "${seen#* }" -ge 61000 -a "${seen#* }" -le 65535
check "200 kB echoed through the NAT intact" \
	in_c python3 "$TRAFFIC" tcp-multi "$ISP4" 8000 1 0 "$HOST4" 200000
seen=$(peer_ask "$C" tcp "$ISP6" 8000)
check "IPv6 TCP from the LAN: routed, the host's own address ($seen)" test "${seen% *}" = "$HOST6"
check "200 kB echoed over IPv6 intact" \
	in_c python3 "$TRAFFIC" tcp-multi "$ISP6" 8000 1 0 "$HOST6" 200000
stop_server
start_server "$S" python3 "$TRAFFIC" peer-server udp 9000 1
seen=$(peer_ask "$C" udp "$ISP4" 9000)
check "IPv4 UDP from the LAN: the WAN address, a port of 61000-65535 ($seen)" \
	test "${seen% *}" = "$WAN4" -a "${seen#* }" -ge 61000
check "IPv6 UDP from the LAN: routed" test "$(peer_ask "$C" udp "$ISP6" 9000 | cut -d' ' -f1)" = "$HOST6"
stop_server
check "ping from the LAN (IPv4, through NAT)" in_c ping -q -c 1 -W 5 "$ISP4"
check "ping from the LAN (IPv6)" in_c ping -q -c 1 -W 5 "$ISP6"
check_jq "show connections has the LAN's TCP connection mapped to the WAN address" \
	'map(select(.proto == "tcp" and .orig.src == "'"$HOST4"'")) | length >= 1 and
	 all(.[]; .reply.dst == "'"$WAN4"'")' "$(in_r mmbctl -j show connections | jq -c '.[]')"

# --- nothing comes in from the WAN but what the page opens ----------------------
d=$(dev_drops wan0 rule)
start_server "$R" python3 "$TRAFFIC" udp-sink 7001 1 2
in_s python3 "$TRAFFIC" udp-send "$WAN4" 7001 1 20
check "a datagram from the WAN to the router is dropped at wan0" \
	wait_for "$CEILING" drops_reached wan0 rule $((d + 1))
server_done
check "and the router's socket got nothing" test "$(received)" = 0
d=$(dev_drops wan0 rule)
start_server "$C" python3 "$TRAFFIC" tcp-echo-server 7000
bg_in "$S" python3 "$TRAFFIC" tcp-hold "$HOST6" 7000 1 "$CEILING" > "$TMP/hold"
hold=$BG_PID
check "an IPv6 connection from the WAN to a LAN host's closed port: its SYN dropped at wan0" \
	wait_for "$CEILING" drops_reached wan0 rule $((d + 1))
kill "$hold"; wait "$hold" 2> /dev/null
check "so it never came up" test "$(tail -n 1 "$TMP/hold")" = 0
stop_server

# Port forwarding: the WAN's 8080 is the host's 80; IPv6's port 80 is open.
start_server "$C" python3 "$TRAFFIC" peer-server tcp 80 1
seen=$(peer_ask "$S" tcp "$WAN4" 8080)
check "port forwarding: the WAN's 8080 reaches the host's 80, from the ISP's own address ($seen)" \
	test "${seen% *}" = "$ISP4"
check "port forwarding: 200 kB echoed intact" \
	in_s python3 "$TRAFFIC" tcp-multi "$WAN4" 8080 1 0 "$ISP4" 200000
seen=$(peer_ask "$S" tcp "$HOST6" 80)
check "IPv6: the opened port 80 of the host is reachable ($seen)" test "${seen% *}" = "$ISP6"
stop_server

# --- MSS clamping, both directions' SYNs ------------------------------------------
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 8100
for dst in "$ISP4" "$ISP6"; do
	if [ "$dst" = "$ISP4" ]; then want=05ac; else want=0598; fi	# 1452, 1432
	capture_on "$S" s0 6 1
	capture_on "$C" c0 6 2
	in_c python3 "$TRAFFIC" tcp-client "$dst" 8100 100 > /dev/null
	syn=$(capture_wait s0 | head -n 1)
	synack=$(capture_wait c0 | jq -c 'select(.tcp_opts["2"] != null)' | tail -n 1)
	check "MSS clamping ($dst): the LAN's SYN reaches the ISP with MSS $((16#$want))" \
		test "$(jq -r '.tcp_opts["2"]' <<< "$syn")" = "$want"
	check "MSS clamping ($dst): the answer's SYN-ACK reaches the LAN with MSS $((16#$want))" \
		test "$(jq -r '.tcp_opts["2"]' <<< "$synack")" = "$want"
done
stop_server

# --- the WAN's own services -----------------------------------------------------------
start_server "$R" python3 "$TRAFFIC" udp-sink 68 1 "$CEILING"
in_s python3 "$TRAFFIC" udp-send "$WAN4" 68 1 300 0 "$ISP4" 67
server_done
check "a DHCP answer (port 67 to 68) reaches the router" test "$(received)" = 1

# --- the router's own traffic ---------------------------------------------------------
check "the router pings the ISP (IPv4)" in_r ping -q -c 1 -W 5 "$ISP4"
check "the router pings the ISP (IPv6)" in_r ping -q -c 1 -W 5 "$ISP6"
start_server "$S" python3 "$TRAFFIC" peer-server udp 53 1
check "the router's own DNS query gets its answer" \
	test "$(peer_ask "$R" udp "$ISP4" 53 | cut -d' ' -f1)" = "$WAN4"
stop_server
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 443
d=$(dev_drops wan0 rule)
bg_in "$R" python3 "$TRAFFIC" tcp-hold "$ISP4" 443 1 "$CEILING" > "$TMP/own"
own=$BG_PID
check "waits for egress: the router's own TCP out of the WAN has its SYN-ACK dropped" \
	wait_for "$CEILING" drops_reached wan0 rule $((d + 1))
kill "$own"; wait "$own" 2> /dev/null
check "waits for egress: so that connection does not come up" test "$(tail -n 1 "$TMP/own")" = 0
stop_server

# --- counters for Prometheus, live ---------------------------------------------------
in_r mmbctl -P show stats > "$TMP/mmb.prom"
check "-P show stats is in the exposition format" \
	python3 "$MMB_ROOT/userspace/tests/promcheck.py" "$TMP/mmb.prom"
prom() {	# prom 'NAME{LABELS}': its value
	awk -v k="$1" '$1 == k { print $2 }' "$TMP/mmb.prom"
}
check "it counts wan0's rule drops as in show interfaces ($(prom 'mmb_interface_drops_total{interface="wan0",reason="rule"}'))" \
	test "$(prom 'mmb_interface_drops_total{interface="wan0",reason="rule"}')" = "$(dev_drops wan0 rule)"
fwd=$(in_r mmbctl -j list | jq -r '.[] | select(.rule | test("map ip-daddr")) | .handle')
check "and the port forwarding rule's packets as list -j ($(prom "mmb_rule_packets_total{rule=\"$fwd\"}"))" \
	test "$(prom "mmb_rule_packets_total{rule=\"$fwd\"}")" = \
	"$(in_r mmbctl -j list | jq -r ".[] | select(.handle == $fwd) | .stats.packets")" -a \
	"$(prom "mmb_rule_packets_total{rule=\"$fwd\"}")" -gt 0
check "and two interfaces" test "$(prom mmb_interfaces)" = 2
PATH=$MMB_ROOT/userspace:$PATH in_r "$MMB_ROOT/userspace/systemd/mmb-metrics" "$TMP/textfile"
check "mmb-metrics writes mmb.prom with mmb_up 1, in the format" \
	bash -c "grep -qx 'mmb_up 1' '$TMP/textfile/mmb.prom' &&
		python3 '$MMB_ROOT/userspace/tests/promcheck.py' '$TMP/textfile/mmb.prom'"
check "and leaves no temporary file" test "$(ls -A "$TMP/textfile")" = mmb.prom

# --- kept across a reload --------------------------------------------------------------
in_r mmbctl save > "$TMP/saved.rules"
check "save, flush and -f of the saved file" \
	bash -c "ip netns exec '$R' mmbctl flush && ip netns exec '$R' mmbctl -f '$TMP/saved.rules'"
check "saves back identically" diff "$TMP/saved.rules" <(in_r mmbctl save)
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
check "and the LAN's connections go out through NAT again" \
	test "$(peer_ask "$C" tcp "$ISP4" 8000 | cut -d' ' -f1)" = "$WAN4"
stop_server
in_r mmbctl flush

check "kernel log has no warnings" kernel_log_clean
tap_end
