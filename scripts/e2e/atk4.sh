#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, attacks on the way out: each a defect found, kept as a
# check with real traffic. A stateful leaving rule on every device
# ("leaving") beside masquerade and destination NAT: the packets each
# mapped whole as they arrived leave without a second connection (it used
# to collide with the first one, and every such packet was dropped). A
# VLAN device on an enabled device: what leaves by it is judged there,
# not again by the lower device's rules. masquerade on a device with no
# address of its own: refused, not mapped to another device's address.
# IPv4 and IPv6. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1

asks() {	# DESC NS HOST PORT WANT(reply|timeout) [SECONDS]
	check_jq "$1" ".[0].$5 == true" \
		"$(ip netns exec "$2" python3 "$TRAFFIC" udp-ask "$3" "$4" "${6:-$CEILING}")"
}

nat_full() {
	in_r mmbctl -j show settings | jq -er '.stats.nat_full'
}

start_server "$S" python3 "$TRAFFIC" udp-echo 7
start_server "$C" python3 "$TRAFFIC" udp-echo 7

# --- NAT beside a stateful rule on every leaving packet -------------------------------
in_r mmbctl add-stateful leaving accept
in_r mmbctl add-stateful out r1 ip-saddr 10.0.1.0/24 masquerade
in_r mmbctl add-stateful out r1 ip6-saddr fd00:1::/64 masquerade
full=$(nat_full)
asks "masquerade v4 beside add-stateful leaving: the echo comes back" "$C" 10.0.2.2 7 reply
asks "masquerade v6 beside add-stateful leaving: the echo comes back" "$C" fd00:2::2 7 reply
check "masquerade: one connection each, none refused as nat_full" \
	test "$(nat_full)" -eq "$full" -a \
	     "$(in_r mmbctl -j show connections | jq length)" -eq 2
in_r mmbctl flush
in_r mmbctl add-stateful leaving accept
in_r mmbctl add-stateful in r1 ip-daddr 10.0.2.1 udp-dport 7 map ip-daddr 10.0.1.2
in_r mmbctl add-stateful in r1 ip6-daddr fd00:2::1 udp-dport 7 map ip6-daddr fd00:1::2
asks "dnat v4 beside add-stateful leaving: the echo comes back" "$S" 10.0.2.1 7 reply
asks "dnat v6 beside add-stateful leaving: the echo comes back" "$S" fd00:2::1 7 reply
check "dnat: none refused as nat_full" test "$(nat_full)" -eq "$full"
in_r mmbctl flush

# --- a VLAN device on an enabled device ----------------------------------------------
ip -n "$R" link add link r1 name r1.7 type vlan id 7
ip -n "$S" link add link s0 name s0.7 type vlan id 7
ip -n "$R" addr add 10.0.7.1/24 dev r1.7
ip -n "$R" addr add fd00:7::1/64 dev r1.7 nodad
ip -n "$S" addr add 10.0.7.2/24 dev s0.7
ip -n "$S" addr add fd00:7::2/64 dev s0.7 nodad
ip -n "$R" link set r1.7 up
ip -n "$S" link set s0.7 up
# The client's packets come back by the VLAN too.
ip -n "$S" route add 10.0.1.0/24 via 10.0.7.1
ip -n "$S" -6 route add fd00:1::/64 via fd00:7::1
in_r mmbctl enable r1.7
in_r mmbctl add out r1 udp-dport 7 drop
asks "vlan v4: out r1 does not judge what leaves by r1.7" "$C" 10.0.7.2 7 reply
asks "vlan v6: out r1 does not judge what leaves by r1.7" "$C" fd00:7::2 7 reply
asks "vlan v4: the router's own, likewise" "$R" 10.0.7.2 7 reply
asks "vlan: out r1 still judges what leaves by r1" "$C" 10.0.2.2 7 timeout 2
in_r mmbctl flush
in_r mmbctl add out r1.7 udp-dport 7 drop
asks "vlan: out r1.7 judges what leaves by r1.7" "$C" 10.0.7.2 7 timeout 2
in_r mmbctl flush

# --- masquerade by a device without an address of its own ---------------------------
ip -n "$R" addr flush dev r1 scope global
ip -n "$R" route add 10.0.2.0/24 dev r1
ip -n "$R" -6 route add fd00:2::/64 dev r1
in_r mmbctl add-stateful out r1 ip-saddr 10.0.1.0/24 masquerade
in_r mmbctl add-stateful out r1 ip6-saddr fd00:1::/64 masquerade
full=$(nat_full)
for dst in 10.0.2.2 fd00:2::2; do
	capture_on "$S" s0 17 1 5
	in_c python3 "$TRAFFIC" udp-send "$dst" 9 1 10 > /dev/null
	wait "$cap_s0"	# here, not in $(...): a subshell cannot wait for it
	got=$(grep -v '^ready' "$TMP/s0.cap")
	check "masquerade to $dst by r1 without an address: nothing leaves with r0's" \
		test -z "$got"
done
check "masquerade without an address: counted as nat_full" test "$(nat_full)" -ge $((full + 2))
in_r mmbctl flush

kernel_log_clean > "$TMP/klog" && ok "kernel log clean" || { not_ok "kernel log clean"; diag < "$TMP/klog"; }
tap_end
