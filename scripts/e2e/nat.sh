#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, NAT (in the manner of the kernel's nft_nat.sh,
# nf_nat_edemux.sh and conntrack_icmp_related.sh, written anew): source NAT
# with shuffled ports, 200 connections of two clients from one source port,
# UDP and IPv6 NAT, port forwarding, ICMP errors translated back to the
# client, NAT to the router's own address (no accept_local), and shuffled
# sequence numbers through a lossy link with SACK blocks remapped. The
# topology of lib.sh; the NAT addresses are routed to the router by the
# server's default route. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
ip -n "$C" addr add 10.0.1.3/24 dev c0
NAT4=198.51.100.1
NAT6=2001:db8:9::1

# The server's answer to a peer-ask: "ADDR PORT".
ask() {	# ask PROTO HOST PORT [SPORT [SRC]]
	in_c python3 "$TRAFFIC" peer-ask "$@"
}

conns() {
	in_r mmbctl -j show connections | jq -c '.[]'
}

# Martian sources the kernel saw (all CPUs): /proc/net/stat/rt_cache, in hex.
martians() {
	python3 -c 'import sys
rows = [l.split() for l in open("/proc/net/stat/rt_cache")]
col = rows[0].index("in_martian_src")
print(sum(int(r[col], 16) for r in rows[1:]))'
}

natfull() {
	in_r mmbctl -j show settings | jq -er '.stats.nat_full'
}

# --- source NAT, shuffled ports (the README's rule) ------------------------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp tcp-syn shuffle tcp-sport \
	mod ip-saddr "$NAT4"
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 100
seen=$(ask tcp 10.0.2.2 8000 40000)
check "snat: the server sees the NAT address" test "${seen% *}" = "$NAT4"
check "snat: and a shuffled port, not the client's" \
	test "${seen#* }" -ne 40000 -a "${seen#* }" -ge 1024
check "snat: 200 kB echoed through it are intact" \
	in_c python3 "$TRAFFIC" tcp-multi 10.0.2.2 8000 1 0 10.0.1.2 200000
check_jq "snat: show connections has the mapped reply tuple" \
	'map(select(.proto == "tcp")) | length >= 1 and
	 all(.[] | select(.proto == "tcp"); .reply.dst == "'"$NAT4"'" and
	     .orig.src == "10.0.1.2" and .reply.src == "10.0.2.2")' "$(conns)"
stop_server

# Two clients, one source port, 100 server ports each, all at once: 200
# connections that share the NAT address must get 200 distinct tuples.
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 100
bg_in "$C" python3 "$TRAFFIC" tcp-multi 10.0.2.2 8000 100 41000 10.0.1.2 2000 > "$TMP/m2"
m2=$BG_PID
bg_in "$C" python3 "$TRAFFIC" tcp-multi 10.0.2.2 8000 100 41000 10.0.1.3 2000 > "$TMP/m3"
m3=$BG_PID
s2=0 s3=0
wait "$m2" || s2=$?
wait "$m3" || s3=$?
check "snat: 100 connections of client 10.0.1.2 from port 41000 work" \
	test "$s2" -eq 0 -a "$(cat "$TMP/m2")" = 100
check "snat: and 100 of client 10.0.1.3 from the same port" \
	test "$s3" -eq 0 -a "$(cat "$TMP/m3")" = 100
check "snat: the server saw 200 connections, all from the NAT address, no tuple twice" \
	test "$(grep -c "^$NAT4 " "$SERVER_LOG")" -eq 200 -a \
	"$(grep "^$NAT4 " "$SERVER_LOG" | sort -u | wc -l)" -eq 200
stop_server
in_r mmbctl flush

# --- UDP: the address mapped, the port kept while nobody else has it --------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto udp mod ip-saddr "$NAT4"
start_server "$S" python3 "$TRAFFIC" peer-server udp 9000 1
check "udp snat: the server sees the NAT address and the client's port" \
	test "$(ask udp 10.0.2.2 9000 42000)" = "$NAT4 42000"
check "udp snat: another client from that port gets another port" \
	test "$(ask udp 10.0.2.2 9000 42000 10.0.1.3 | grep -v " 42000$")" != ""
stop_server

# ICMP errors about NATed datagrams come back translated to the client: the
# server's port unreachable, and what a router beyond it would send.
check_jq "icmp: the server's port unreachable reaches the client" \
	'.[0].icmp == [3, 3, 0]' "$(in_c python3 "$TRAFFIC" udp-ask 10.0.2.2 9999 "$CEILING")"
nat_icmp() {	# nat_icmp DESC DST TYPE CODE INFO
	icmp_reaches "icmp ($2): $1 reaches the client" "$2" 9998 "$3" "$4" "$5"
}
nat_icmp "time exceeded" 10.0.2.2 11 0 0
nat_icmp "fragmentation needed, MTU 1300" 10.0.2.2 3 4 1300
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 ip6-next udp mod ip6-saddr "$NAT6"
nat_icmp "time exceeded" fd00:2::2 3 0 0
nat_icmp "packet too big, MTU 1300" fd00:2::2 2 0 1300
check_jq "icmp: the server's IPv6 port unreachable reaches the client" \
	'.[0].icmp == [1, 4, 0]' "$(in_c python3 "$TRAFFIC" udp-ask fd00:2::2 9999 "$CEILING")"
in_r mmbctl flush

# --- IPv6 source NAT ---------------------------------------------------------------
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 shuffle tcp-sport 50000-50999 \
	mod ip6-saddr "$NAT6"
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
seen=$(ask tcp fd00:2::2 8000 40000)
check "ipv6 snat: the server sees the NAT address" test "${seen% *}" = "$NAT6"
check "ipv6 snat: and a port of the range" test "${seen#* }" -ge 50000 -a "${seen#* }" -le 50999
check "ipv6 snat: 200 kB echoed through it are intact" \
	in_c python3 "$TRAFFIC" tcp-multi fd00:2::2 8000 1 0 fd00:1::2 200000
stop_server
in_r mmbctl flush

# --- port forwarding (destination NAT) ------------------------------------------------
in_r mmbctl add-stateful ip-daddr 192.0.2.80 tcp-dport 80 map ip-daddr 10.0.2.2 \
	map tcp-dport 8000
in_r mmbctl add-stateful ip6-daddr 2001:db8:80::80 tcp-dport 80 map ip6-daddr fd00:2::2 \
	map tcp-dport 8000
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
for dst in 192.0.2.80 2001:db8:80::80; do
	src=10.0.1.2
	[ "$dst" = 192.0.2.80 ] || src=fd00:1::2
	# The client's socket takes answers from $dst:80 only: replies are mapped back.
	check "dnat ($dst): port 80 reaches the server's 8000, from the client's own address" \
		test "$(ask tcp "$dst" 80 43000)" = "$src 43000"
	check "dnat ($dst): 200 kB echoed through it are intact" \
		in_c python3 "$TRAFFIC" tcp-multi "$dst" 80 1 0 "$src" 200000
done
check "dnat: the server saw them on port 8000" \
	test "$(grep -c " 8000$" "$SERVER_LOG")" -ge 4
stop_server
in_r mmbctl flush

# --- NAT to the router's own address -----------------------------------------------------
# The source is mapped as the packet leaves r1, after routing (issue 38): the
# stack never sees a packet from its own address come in, and no martian is
# counted, with accept_local off. Ports from a range the router's own
# sockets do not use.
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto udp shuffle udp-sport 61000-61999 \
	mod ip-saddr 10.0.2.1
in_r sysctl -qw net.ipv4.conf.r0.accept_local=0
start_server "$S" python3 "$TRAFFIC" peer-server udp 9000 1
m=$(martians)
seen=$(ask udp 10.0.2.2 9000 44000)
check "own address: without accept_local the server sees the router's address" \
	test "${seen% *}" = 10.0.2.1 -a "${seen#* }" -ge 61000 -a "${seen#* }" -le 61999
check "own address: and the kernel saw no martian" test "$(martians)" -eq "$m"
in_r mmbctl flush
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 shuffle udp-sport 61000-61999 \
	mod ip6-saddr fd00:2::1
check "own address (IPv6): works without any setting" \
	test "$(ask udp fd00:2::2 9000 44000 | cut -d' ' -f1)" = fd00:2::1
stop_server
in_r mmbctl flush

# --- shuffled sequence numbers through a lossy link ---------------------------------------
# 1% loss both ways: both ends send SACK blocks, which must be remapped into
# the other end's sequence space. A SACK block the client sees must fall in
# what the client sent: from its ISN (the SYN-ACK's ack - 1) to 10 MB and
# its FIN on (a right edge may cover the FIN's sequence number).
# The ends send segments, not 64 KB TSO packets: netem drops one skb per
# decision, and with a few hundred GSO packets some runs lost no data
# (only ACKs), so no SACK block was ever sent.
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp shuffle tcp-seq-num \
	shuffle tcp-ack-num
in_c ethtool -K c0 tso off gso off > /dev/null
in_s ethtool -K s0 tso off gso off > /dev/null
in_r tc qdisc add dev r1 root netem loss 1%
in_r tc qdisc add dev r0 root netem loss 1%
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
capture_on "$C" c0 6 100000 300
check "seq shuffle: 10 MB echoed through 1% loss both ways are intact" \
	in_c python3 "$TRAFFIC" tcp-multi 10.0.2.2 8000 1 0 10.0.1.2 10000000
capture_stop c0 > "$TMP/cap.json"
stop_server
in_r tc qdisc del dev r1 root
in_r tc qdisc del dev r0 root
# [edges seen, the lowest, the highest], relative to the client's ISN
edges=$(jq -sc '(map(select(.flags == 18)) | .[0].ack - 1) as $isn |
	[.[] | select(.sack) | .sack[] | (. - $isn + 4294967296) % 4294967296] |
	[length, min, max]' "$TMP/cap.json")
check_jq "seq shuffle: the client saw SACK blocks, each inside what it sent" \
	'.[0][0] > 0 and .[0][1] >= 1 and .[0][2] <= 10000002' "$edges"
in_r mmbctl flush

# --- a full port range: refused and counted ------------------------------------------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto udp shuffle udp-sport 62000-62001 \
	mod ip-saddr "$NAT4"
start_server "$S" python3 "$TRAFFIC" peer-server udp 9000 1
ask udp 10.0.2.2 9000 45000 > /dev/null
ask udp 10.0.2.2 9000 45001 > /dev/null
n=$(natfull)
d=$(dev_drops r0 conn)
in_c python3 "$TRAFFIC" udp-send 10.0.2.2 9000 1 20
check "full range: a third flow for two ports is refused, counted" \
	wait_for "$CEILING" sh -c "[ \$(ip netns exec $R mmbctl -j show settings |
		jq .stats.nat_full) -ge $((n + 1)) ]"
check "full range: and dropped at r0 as conn" test "$(dev_drops r0 conn)" -ge $((d + 1))
check "full range: the server saw only the two" test "$(grep -c "^$NAT4 " "$SERVER_LOG")" -eq 2
stop_server

check "kernel log has no warnings" kernel_log_clean
tap_end
