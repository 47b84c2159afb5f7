#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, the fast path of offloaded connections (docs/offload.md):
# a TCP transfer and a UDP flow are sent on from the router's
# rx_handler (the offloaded counters say so) and arrive intact, TTL
# decremented, NAT applied; a route added in the middle of a flow moves it
# to the new next hop, deleting it moves it back; a datagram with DF over
# the way out's MTU gets frag-needed from the router, one with TTL 1 gets
# time exceeded; a new MAC of the next hop is followed. The topology of
# lib.sh, with a second link r2 (10.0.3.1) - s1 (10.0.3.2) between the
# router and the server. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
in_c ethtool -K c0 tx off > /dev/null
in_s ethtool -K s0 tx off > /dev/null
ip -n "$S" link add s1 type veth peer name r2 netns "$R"
ip -n "$R" addr add 10.0.3.1/24 dev r2
ip -n "$S" addr add 10.0.3.2/24 dev s1
ip -n "$R" link set r2 up
ip -n "$S" link set s1 up
# The router's neighbours, known: one learnt from a host's own ARP request
# is STALE until the router probes it (5 s after its first use), and the
# fast path leaves its packets to the stack until then (docs/offload.md).
ip -n "$R" neigh replace 10.0.1.2 lladdr "$(mac_of "$C" c0)" dev r0 nud permanent
ip -n "$R" neigh replace 10.0.2.2 lladdr "$(mac_of "$S" s0)" dev r1 nud permanent
ip -n "$R" neigh replace fd00:1::2 lladdr "$(mac_of "$C" c0)" dev r0 nud permanent
ip -n "$R" neigh replace fd00:2::2 lladdr "$(mac_of "$S" s0)" dev r1 nud permanent
ip -n "$R" neigh replace 10.0.3.2 lladdr "$(mac_of "$S" s1)" dev r2 nud permanent

# flow HOST PORT SPORT COUNT [ttl1 | df SIZE]: COUNT datagrams of 100 bytes
# from SPORT, each waiting for its echo; prints how many came back. Then,
# with ttl1, one with TTL 1; with df, one of SIZE bytes with DF set.
cat > "$TMP/flow.py" << 'EOF'
import socket, sys
host, port, sport, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", sport))
s.connect((host, port))
s.settimeout(2)
back = 0
for i in range(n):
    data = i.to_bytes(4, "big") * 25
    s.send(data)
    try:
        back += s.recv(2048) == data
    except OSError:
        pass
if len(sys.argv) > 5 and sys.argv[5] == "ttl1":
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 1)
    s.send(b"ttl1")
elif len(sys.argv) > 5 and sys.argv[5] == "df":
    s.setsockopt(socket.IPPROTO_IP, 10, 2)      # IP_MTU_DISCOVER, IP_PMTUDISC_DO
    s.send(bytes(int(sys.argv[6])))
print(back)
EOF
flow() {
	in_c python3 "$TMP/flow.py" "$@"
}

# Both ways' offloaded counters, "r0 r1", in one call.
offl() {
	in_r mmbctl -j show interfaces |
		jq -r 'def of($d): map(select(.ifname == $d))[0].stats.offloaded;
			"\(of("r0")) \(of("r1"))"'
}

conns() {
	in_r mmbctl -j show connections | jq -c '.[]'
}

in_r mmbctl add-stateful ip-proto tcp tcp-dport 8000 accept offload
in_r mmbctl add-stateful ip-proto udp udp-dport 9000 accept offload
in_r mmbctl add-stateful ip-daddr 10.0.2.99 udp-dport 9001 map ip-daddr 10.0.2.2 \
	map udp-dport 9000 offload
in_r mmbctl add-stateful ip-proto udp udp-dport 9002 accept
in_r mmbctl add-stateful ip6-next udp udp-dport 9000 accept offload

# --- a bulk TCP transfer -----------------------------------------------------------
# (A capture on s0 shares the server's packets with its copies: the router
# copies their heads before it writes them, as ip_forward() does, and the
# capture's copies stay as they were sent.)
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 8000
read -r a0 a1 < <(offl)
check "tcp: 200 KB echoed through the fast path are intact" \
	in_c python3 "$TRAFFIC" tcp-client 10.0.2.2 8000 200000
read -r b0 b1 < <(offl)
check "tcp: the fast path sent on both ways (r0 $a0 -> $b0, r1 $a1 -> $b1)" \
	test "$b0" -gt $((a0 + 100)) -a "$b1" -gt $((a1 + 100))
capture_on "$S" s0 6 100000	# until stopped: the whole transfer
check "tcp: 100 KB more, the server's packets captured" \
	in_c python3 "$TRAFFIC" tcp-client 10.0.2.2 8000 100000
cap=$(capture_stop s0)
read -r a0 a1 < <(offl)
check "tcp: the server's packets, shared with a capture, took the fast path (r1 $b1 -> $a1)" \
	test "$a1" -gt $((b1 + 20))
check_all "tcp: the server gets them with TTL 63 and valid IPv4 checksums" \
	'.ttl == 63 and .ip_csum' 20 "$cap"
check_all "tcp: and valid TCP checksums (packets of one segment)" \
	'.len > 1500 or .l4_csum' 20 "$cap"
stop_server

# --- a UDP flow, and its show connections ------------------------------------------
start_server "$S" python3 "$TRAFFIC" udp-echo 9000
read -r a0 a1 < <(offl)
check "udp: 50 datagrams echoed" test "$(flow 10.0.2.2 9000 41000 50)" -eq 50
read -r b0 b1 < <(offl)
check "udp: the fast path sent on at least 45 each way (r0 +$((b0 - a0)), r1 +$((b1 - a1)))" \
	test "$b0" -ge $((a0 + 45)) -a "$b1" -ge $((a1 + 45))
flow 10.0.2.2 9002 41002 20 > /dev/null
check "udp: a connection of a rule without offload: none of its packets offloaded" \
	test "$(offl)" = "$b0 $b1"
cs=$(conns)
check_jq "udp: show connections says offloaded" \
	'map(select(.proto == "udp" and .orig.sport == 41000)) | length == 1 and .[0].offloaded' \
	"$cs"
check_jq "udp: not for a connection of a rule without offload" \
	'map(select(.proto == "udp" and .orig.dport == 9002)) | length == 1 and
	 (.[0].offloaded | not)' "$cs"
capture_on "$S" s0 17 20
flow 10.0.2.2 9000 41000 20 > /dev/null
cap=$(capture_wait s0)
check_all "udp: the server gets them with TTL 63 and valid checksums" \
	'.ttl == 63 and .ip_csum and .l4_csum and .len == 128' 20 "$cap"
check_jq "trace: a packet of the flow would take the fast path" '.[0].fast_path == "yes"' \
	"$(in_r mmbctl -j trace in r0 ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-sport 41000 \
		udp-dport 9000)"
check_jq "trace: with TTL 1 it would not" '.[0].fast_path == "ttl"' \
	"$(in_r mmbctl -j trace in r0 ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-sport 41000 \
		udp-dport 9000 ip-ttl 1)"
check_jq "trace: nor one of a connection without offload (no answer)" '.[0] | has("fast_path") | not' \
	"$(in_r mmbctl -j trace in r0 ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-sport 41002 \
		udp-dport 9002)"
check_jq "trace: nor one of the flow arriving on r2 (its route is pinned to r0)" \
	'.[0].fast_path == "iif"' \
	"$(in_r mmbctl -j trace in r2 ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-sport 41000 \
		udp-dport 9000)"

read -r a0 a1 < <(offl)
check "udp6: 50 datagrams echoed" test "$(flow fd00:2::2 9000 41006 50)" -eq 50
read -r b0 b1 < <(offl)
check "udp6: the fast path sent on at least 45 each way (r0 +$((b0 - a0)), r1 +$((b1 - a1)))" \
	test "$b0" -ge $((a0 + 45)) -a "$b1" -ge $((a1 + 45))
capture_on "$S" s0 17 20
flow fd00:2::2 9000 41006 20 > /dev/null
cap=$(capture_wait s0)
check_all "udp6: the server gets them with hop limit 63 and valid checksums" \
	'.v == 6 and .ttl == 63 and .l4_csum' 20 "$cap"

# --- NAT in the fast path ------------------------------------------------------------
# (The capture on s0 shares the server's replies too, which the router
# then leaves to the stack: only the client's direction, r0's, is counted.)
read -r a0 a1 < <(offl)
capture_on "$S" s0 17 20
check "nat: 50 datagrams to 10.0.2.99:9001 echoed from it" \
	test "$(flow 10.0.2.99 9001 41001 50)" -eq 50
cap=$(capture_stop s0)
check "nat: through the fast path towards the server" test "$(offl | cut -d' ' -f1)" -ge $((a0 + 45))
check_all "nat: the server gets them for 10.0.2.2:9000, TTL 63, checksums valid" \
	'.dst == "10.0.2.2" and .dport == 9000 and .ttl == 63 and .ip_csum and .l4_csum' \
	20 "$cap"

# --- a route added in the middle of a flow, and deleted ------------------------------
ip -n "$R" route add 10.0.2.2/32 via 10.0.3.2 dev r2
capture_on "$S" s1 17 20
read -r a0 a1 < <(offl)
check "route: the flow goes on after a route to 10.0.2.2 via r2 is added" \
	test "$(flow 10.0.2.2 9000 41000 50)" -eq 50
cap=$(capture_stop s1)
check "route: by the fast path" test "$(offl | cut -d' ' -f1)" -ge $((a0 + 45))
check_all "route: the new next hop (s1) gets them, TTL 63" '.ttl == 63 and .dport == 9000' \
	20 "$cap"
ip -n "$R" route del 10.0.2.2/32 via 10.0.3.2 dev r2
capture_on "$S" s1 17 1000
check "route: deleted, the flow goes on" test "$(flow 10.0.2.2 9000 41000 20)" -eq 20
check "route: and s1 gets none of it" test -z "$(capture_stop s1)"

# --- the next hop's new MAC ---------------------------------------------------------
ip -n "$S" link set s0 address 02:00:00:00:99:99
ip -n "$R" neigh replace 10.0.2.2 lladdr 02:00:00:00:99:99 dev r1 nud permanent	# as an ARP reply would
read -r a0 a1 < <(offl)
check "neigh: the flow goes on after the next hop's MAC changed" \
	test "$(flow 10.0.2.2 9000 41000 50)" -eq 50
check "neigh: by the fast path" test "$(offl | cut -d' ' -f1)" -ge $((a0 + 45))

# --- back to the stack: TTL 1, DF over the MTU -----------------------------------------
capture_on "$C" c0 1 1 5
flow 10.0.2.2 9000 41000 1 ttl1 > /dev/null
check_jq "ttl: a datagram of the flow with TTL 1 gets time exceeded from the router" \
	'length == 1 and .[0].src == "10.0.1.1"' "$(capture_wait c0)"
ip -n "$R" link set r1 mtu 1280
capture_on "$C" c0 1 1 5
flow 10.0.2.2 9000 41000 1 df 1400 > /dev/null
check_jq "mtu: one with DF over r1's MTU gets frag-needed from the router" \
	'length == 1 and .[0].src == "10.0.1.1"' "$(capture_wait c0)"
stop_server

check "no warning in the kernel log" kernel_log_clean
tap_end
