#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, NAT in the right place (issue 38): the destination
# mapped as a packet arrives, before routing; the source as it leaves, in
# the egress hook, after routing. Through source NAT to the router's own
# outside address, with a WAN link of MTU 1400: the router's
# "fragmentation needed" reaches the client (ping -M do, IPv4 and IPv6),
# a TCP transfer whose segments do not fit completes by path MTU discovery
# alone (no MSS clamping), and a TTL-expired probe gets "time exceeded"
# from the router. Through destination NAT: the time-exceeded error quotes
# what the client sent; and a port forwarded to a service on the router
# itself works both ways. masquerade: the leaving device's primary address,
# and its connections end with it. mod tcp-opt-mss pmtu on leaving SYNs.
# No accept_local, no martians. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
# The WAN: MTU 1400 on the router's side of it, and the server's segments
# as large as its own link takes (advmss 1460): the client's big segments
# must shrink on the router's word.
ip -n "$R" link set r1 mtu 1400
ip -n "$S" link set s0 mtu 1400
ip -n "$S" route change 10.0.2.0/24 dev s0 advmss 1460
ip -n "$S" -6 route change fd00:2::/64 dev s0 advmss 1440
PUB4=198.51.100.80
in_c ip route add "$PUB4" via 10.0.1.1

martians() {
	python3 -c 'import sys
rows = [l.split() for l in open("/proc/net/stat/rt_cache")]
col = rows[0].index("in_martian_src")
print(sum(int(r[col], 16) for r in rows[1:]))'
}

check "accept_local is off in the router" \
	test "$(in_r sysctl -n net.ipv4.conf.all.accept_local)" = 0 -a \
	     "$(in_r sysctl -n net.ipv4.conf.r1.accept_local)" = 0
before_martians=$(martians)

# --- source NAT to the router's own outside address ------------------------------
in_r mmbctl add-stateful in r0 ip-saddr 10.0.1.0/24 mod ip-saddr 10.0.2.1
in_r mmbctl add-stateful in r0 ip6-saddr fd00:1::/64 mod ip6-saddr fd00:2::1
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 8000
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8001 1
seen=$(in_c python3 "$TRAFFIC" peer-ask tcp 10.0.2.2 8001)
check "snat: the server sees the router's outside address" test "${seen% *}" = 10.0.2.1

out=$(in_c ping -c 1 -W 5 -M do -s 1472 10.0.2.2 2>&1)
check "snat v4: ping -M do -s 1472 gets frag needed, mtu 1400" grep -q "mtu = 1400" <<< "$out"
out=$(in_c ping -6 -c 1 -W 5 -M do -s 1452 fd00:2::2 2>&1)
check "snat v6: ping -M do -s 1452 gets packet too big, mtu 1400" grep -q "mtu=1400" <<< "$out"
out=$(in_c ping -c 1 -W 5 -s 1300 10.0.2.2 2>&1)
check "snat v4: a ping that fits gets its reply" grep -q "1 received" <<< "$out"
check "snat v4: 1 MB through TCP, no MSS clamping: path MTU discovery works" \
	in_c timeout 60 python3 "$TRAFFIC" tcp-client 10.0.2.2 8000 1000000
check "snat v6: the same" \
	in_c timeout 60 python3 "$TRAFFIC" tcp-client fd00:2::2 8000 1000000
out=$(in_c ping -c 1 -W 5 -t 1 10.0.2.2 2>&1)
check "snat v4: TTL 1 gets time exceeded from the router" \
	grep -q "From 10.0.1.1 .*Time to live exceeded" <<< "$out"
out=$(in_c ping -6 -c 1 -W 5 -t 1 fd00:2::2 2>&1)
check "snat v6: hop limit 1 gets time exceeded from the router" \
	grep -qi "From fd00:1::1 .*Time exceeded" <<< "$out"
in_r mmbctl flush
# With shuffled sequence numbers too: the offsets go with the source, as
# the packet leaves, so the router's "fragmentation needed" quotes the
# client's own sequence number, which its TCP checks.
in_r mmbctl add-stateful in r0 ip-saddr 10.0.1.0/24 tcp-syn mod ip-saddr 10.0.2.1 \
	shuffle tcp-seq-num
in_r mmbctl add-stateful in r0 ip6-saddr fd00:1::/64 tcp-syn mod ip6-saddr fd00:2::1 \
	shuffle tcp-seq-num
# New addresses of the server: the path MTU the client learnt above is not theirs.
in_s ip addr add 10.0.2.3/24 dev s0
in_s ip addr add fd00:2::3/64 dev s0 nodad
for dst in 10.0.2.3 fd00:2::3; do
	check "snat, shuffle tcp-seq-num ($dst): 1 MB through TCP, path MTU discovery works" \
		in_c timeout 30 python3 "$TRAFFIC" tcp-client "$dst" 8000 1000000
done
check "...the connections of both rules" test "$(in_r mmbctl -j list |
	jq '[.[] | select(.rule | contains("shuffle tcp-seq-num")) | .stats.packets > 0] | all')" = true
in_r mmbctl flush
# Gone again: the server's datagrams answer from fd00:2::2 alone below.
in_s ip addr del 10.0.2.3/24 dev s0
in_s ip addr del fd00:2::3/64 dev s0

# --- destination NAT ---------------------------------------------------------------
in_r mmbctl add-stateful in r0 ip-daddr "$PUB4" icmp-type 8 map ip-daddr 10.0.2.2
out=$(in_c ping -c 1 -W 5 "$PUB4" 2>&1)
check "dnat: a ping to the public address is answered from it" \
	grep -q "from $PUB4.*icmp_seq=1" <<< "$out"
out=$(in_c ping -c 1 -W 5 -t 1 "$PUB4" 2>&1)
check "dnat: TTL 1 gets time exceeded, quoting what the client sent" \
	grep -q "From 10.0.1.1 .*Time to live exceeded" <<< "$out"

# A port forwarded to a service on the router itself, on another port.
in_r mmbctl add-stateful in r0 ip-daddr "$PUB4" tcp-dport 80 map ip-daddr 10.0.1.1 \
	map tcp-dport 8080
start_server "$R" python3 "$TRAFFIC" tcp-echo-server 8080
check "dnat to the router's own service: 100 kB both ways" \
	in_c timeout 60 python3 "$TRAFFIC" tcp-client "$PUB4" 80 100000
in_r mmbctl flush

# --- the MSS of leaving SYNs from the route's MTU (nft: set rt mtu) -------------------
in_r mmbctl add out r1 tcp-syn mod tcp-opt-mss pmtu
check "mss pmtu: list shows it as given" \
	bash -c "ip netns exec $R mmbctl list | grep -q '^add out r1 tcp-syn mod tcp-opt-mss pmtu #'"
for dst in 10.0.2.2 fd00:2::2; do
	want=0550	# 1400 - 40
	[ "$dst" = 10.0.2.2 ] || want=053c	# 1400 - 60
	capture_on "$S" s0 6 1
	in_c python3 "$TRAFFIC" tcp-client "$dst" 8000 1000
	check_jq "mss pmtu ($dst): the client's SYN reaches the server with MSS 0x$want" \
		".[0].flags == 2 and .[0].tcp_opts[\"2\"] == \"$want\"" \
		"$(capture_wait s0)"
done
in_r mmbctl flush

# --- masquerade ----------------------------------------------------------------------
in_r ip addr add 10.0.2.9/24 dev r1
in_r mmbctl add-stateful out r1 ip-saddr 10.0.1.0/24 masquerade
in_r mmbctl add-stateful out r1 ip6-saddr fd00:1::/64 masquerade
refused "masquerade on an arriving rule is refused" 1 "for a leaving rule" \
	in_r mmbctl add-stateful in r0 masquerade
check "masquerade: list shows it as given" \
	bash -c "ip netns exec $R mmbctl list | grep -q '^add-stateful out r1 ip-saddr 10.0.1.0/24 masquerade #'"
start_server "$S" python3 "$TRAFFIC" peer-server udp 9100 1
seen=$(in_c python3 "$TRAFFIC" peer-ask udp 10.0.2.2 9100 45000)
check "masquerade v4: the server sees r1's primary address, the port kept" \
	test "$seen" = "10.0.2.1 45000"
seen=$(in_c python3 "$TRAFFIC" peer-ask udp fd00:2::2 9100 45000)
check "masquerade v6: the server sees r1's address" test "${seen% *}" = fd00:2::1
check "masquerade: 1 MB through TCP" \
	in_c timeout 60 python3 "$TRAFFIC" tcp-client 10.0.2.2 8000 1000000
masq_conns() {
	in_r mmbctl -j show connections | jq '[.[] | select(.reply.dst == "10.0.2.1")] | length'
}
masq_none() {
	test "$(masq_conns)" -eq 0
}
check "masquerade: connections to 10.0.2.1 are listed" test "$(masq_conns)" -ge 2
in_r sysctl -qw net.ipv4.conf.r1.promote_secondaries=1
in_r ip addr del 10.0.2.1/24 dev r1
check "masquerade: removing the address ends its connections" wait_for "$CEILING" masq_none
in_r mmbctl flush

check "no martian source was seen" test "$(martians)" -eq "$before_martians"
kernel_log_clean > "$TMP/klog" && ok "kernel log clean" || { not_ok "kernel log clean"; diag < "$TMP/klog"; }
tap_end
