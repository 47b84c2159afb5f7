#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, the way out (issue 38): rules that judge leaving packets
# (out IFACE, leaving) in the egress hook of an enabled device, for
# forwarded packets and the router's own; the router's own connections
# under a default-drop policy on its outside device (r1): a stateful
# leaving rule lets their replies in, and nothing else; an out rule that
# names a device made later judges it from its first packet. IPv4 and IPv6.
# Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1

# rule_packets PATTERN: the packets of the rule whose text has PATTERN.
rule_packets() {
	in_r mmbctl -j list | jq -er --arg p "$1" '[.[] | select(.rule | contains($p))][0].stats.packets'
}

rule_reached() {
	test "$(rule_packets "$1")" -ge "$2"
}

asks() {	# DESC NS HOST PORT WANT(reply|timeout) [SECONDS]
	check_jq "$1" ".[0].$5 == true" \
		"$(ip netns exec "$2" python3 "$TRAFFIC" udp-ask "$3" "$4" "${6:-$CEILING}")"
}

start_server "$S" python3 "$TRAFFIC" udp-echo 7
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 8000

# --- leaving rules on forwarded packets ------------------------------------------
in_r mmbctl add out r1 udp-dport 7 ip-ttl 63 drop
in_r mmbctl add leaving ip6-hop-limit 63 udp-dport 7 drop
check "list: out and leaving are listed as given" \
	bash -c "ip netns exec $R mmbctl list | grep -q '^add out r1 udp-dport 7 ip-ttl 63 drop #' &&
		 ip netns exec $R mmbctl list | grep -q '^add leaving ip6-hop-limit 63 udp-dport 7 drop #'"
in_r mmbctl save > "$TMP/saved"
check "save: what it writes applies again" in_r mmbctl -f "$TMP/saved"
in_r mmbctl flush
in_r mmbctl -f "$TMP/saved"
# A forwarded packet leaves r1 with its TTL down by one: 63, and is dropped there.
asks "v4: a forwarded datagram is dropped as it leaves r1" "$C" 10.0.2.2 7 timeout 1
check "v4: ...by the out rule, counted once" wait_for "$CEILING" rule_reached "out r1" 1
asks "v6: a forwarded datagram is dropped as it leaves r1" "$C" fd00:2::2 7 timeout 1
check "v6: ...by the leaving rule" wait_for "$CEILING" rule_reached "leaving" 1
check "r1 counts both drops" wait_for "$CEILING" drops_reached r1 rule 2
# The router's own datagram has a TTL of 64: the rule is not its.
asks "v4: the router's own datagram leaves" "$R" 10.0.2.2 7 reply
asks "v6: the router's own datagram leaves" "$R" fd00:2::2 7 reply
check "the out rule judged no packet arriving on r1 (replies)" test "$(rule_packets "out r1")" -eq 1
in_r mmbctl flush

# --- the router's own connections under a default-drop outside ------------------
in_r mmbctl add in r1 drop
asks "v4: without a leaving rule, the reply to the router is dropped" "$R" 10.0.2.2 7 timeout 1
in_r mmbctl add-stateful out r1 accept
for dst in 10.0.2.2 fd00:2::2; do
	asks "$dst: the router's own query gets its reply" "$R" "$dst" 7 reply
	check "$dst: the router's own TCP connection works both ways" \
		in_r python3 "$TRAFFIC" tcp-client "$dst" 8000 100000
done
conns=$(in_r mmbctl -j show connections)
check_jq "the router's connections are listed, from its own address" \
	'[.[0][] | select(.orig.src == "10.0.2.1" or .orig.src == "fd00:2::1")] | length >= 4' \
	"$conns"
# What the outside starts is no reply.
before=$(dev_drops r1 rule)
asks "v4: a datagram the server starts is dropped" "$S" 10.0.2.1 7 timeout 1
check "...as it arrives on r1" wait_for "$CEILING" drops_reached r1 rule $((before + 1))
# The rule is about what leaves by r1: forwarded connections' replies come in
# too, masqueraded by a second leaving rule of the same connection.
in_r mmbctl add-stateful out r1 ip-saddr 10.0.1.0/24 masquerade
check "a forwarded connection leaving by r1 gets its replies too" \
	in_c python3 "$TRAFFIC" tcp-client 10.0.2.2 8000 100000
check "...and is masqueraded to r1's address" \
	test "$(in_r mmbctl -j show connections |
		jq '[.[] | select(.orig.src == "10.0.1.2" and .reply.dst == "10.0.2.1")] | length')" -ge 1
in_r mmbctl flush

# --- a packet socket that bypasses the qdisc ---------------------------------------
# AF_PACKET's PACKET_QDISC_BYPASS runs the egress hook from the sender's
# own context, BH on (the kernel's nf_hook_direct_egress()): out rules judge
# its frames as any others (mmb turns BH off for the judgment).
SMAC=$(mac_of "$S" s0)
in_r mmbctl add out r1 udp-dport 7401 drop
for fam in 4 6; do
	if [ "$fam" = 4 ]; then src=10.0.2.1 dst=10.0.2.2; else src=fd00:2::1 dst=fd00:2::2; fi
	start_server "$S" python3 "$TRAFFIC" udp-sink 7400 20 "$CEILING"
	refused=$(in_r python3 "$TRAFFIC" raw-udp r1 "$SMAC" "$src" "$dst" 40000 7401 20)
	in_r python3 "$TRAFFIC" raw-udp r1 "$SMAC" "$src" "$dst" 40000 7400 20 > /dev/null
	server_done
	check "v$fam: qdisc bypass: the 20 frames to a port no rule names arrive ($(received) of 20)" \
		server_ok
	check "v$fam: ...the out rule dropped the 20 to its port, each send refused ($refused)" \
		test "$(rule_packets 'udp-dport 7401')" -eq $((fam == 4 ? 20 : 40)) -a "$refused" = 20
done
# A frame a leaving reject rule drops is answered to the router's own
# socket; also one from a TX ring, whose IP header is in the ring's pages.
in_r mmbctl add out r1 udp-dport 7402 reject
for fam in 4 6; do
	if [ "$fam" = 4 ]; then src=10.0.2.1 dst=10.0.2.2; else src=fd00:2::1 dst=fd00:2::2; fi
	got=$(in_r python3 "$TRAFFIC" raw-udp r1 "$SMAC" "$src" "$dst" 40001 7402 1 ask | tr '\n' ' ')
	check "v$fam: qdisc bypass: a rejected frame is refused, its socket hears port unreachable ($got)" \
		test "$got" = "1 ECONNREFUSED "
	got=$(in_r python3 "$TRAFFIC" raw-udp r1 "$SMAC" "$src" "$dst" 40002 7402 1 ask ring |
		tail -1)
	check "v$fam: ...and one sent from a TX ring ($got)" test "$got" = ECONNREFUSED
done
# Not one whose source is not the router's (here the server's own address):
# such a frame is dropped unanswered, as a forged one would be.
capture_on "$S" s0 1 1
in_r python3 "$TRAFFIC" raw-udp r1 "$SMAC" 10.0.2.2 10.0.2.3 40003 7402 1 > /dev/null
check "v4: a rejected frame from another's address is dropped" \
	test "$(rule_packets 'udp-dport 7402')" -eq 5
sleep 1
check "...and not answered" test -z "$(capture_stop s0)"
in_r mmbctl flush

# --- out names a device: one made later is judged from its first packet --------
check "out may name a device that does not exist yet" in_r mmbctl add out r1.60 udp-dport 7 drop
check "list gives the name" \
	bash -c "ip netns exec $R mmbctl list | grep -q '^add out r1.60 udp-dport 7 drop #'"
in_r mmbctl enable r1.60
in_s ip link add link s0 name s0.60 type vlan id 60
in_s ip addr add 10.0.60.2/24 dev s0.60
in_s ip addr add fd00:60::2/64 dev s0.60 nodad
in_s ip link set s0.60 up
in_r ip link add link r1 name r1.60 type vlan id 60
in_r ip addr add 10.0.60.1/24 dev r1.60
in_r ip addr add fd00:60::1/64 dev r1.60 nodad
in_r ip link set r1.60 up
asks "v4: r1.60 made, the router's datagram leaving by it is dropped" "$R" 10.0.60.2 7 timeout 1
asks "v6: ...and its IPv6 one" "$R" fd00:60::2 7 timeout 1
check "...by the out rule, both" wait_for "$CEILING" rule_reached "out r1.60" 2
asks "what leaves by r1 is not the rule's" "$R" 10.0.2.2 7 reply
in_r mmbctl flush

kernel_log_clean > "$TMP/klog" && ok "kernel log clean" || { not_ok "kernel log clean"; diag < "$TMP/klog"; }
tap_end
