#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, devices by name (issue 38, item 5): a name or pattern
# that is enabled stays enabled; a device of it that is deleted and made
# again, renamed to it or created later is filtered from its first packet,
# and "in" rules (which may name a device that does not exist) match it
# again. A saved file naming a missing interface applies; the interface is
# filtered as it appears. Renamed away, a device is let go. A device that
# another rx_handler holds as it appears is counted. VLANs of r0 in the
# router and of c0 in the client carry the traffic. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

# vlan ID [NAME]: VLAN ID on both sides (the router's named NAME, default
# r0.ID), 10.0.ID.2 -> 10.0.ID.1 and fd00:ID::2 -> fd00:ID::1, up.
vlan() {
	local id=$1 name=${2:-r0.$1}

	ip -n "$C" link show "c0.$id" > /dev/null 2>&1 || {
		in_c ip link add link c0 name "c0.$id" type vlan id "$id"
		in_c ip addr add "10.0.$id.2/24" dev "c0.$id"
		in_c ip addr add "fd00:$id::2/64" dev "c0.$id" nodad
		in_c ip link set "c0.$id" up
	}
	in_r ip link add link r0 name "$name" type vlan id "$id" || return 1
	router_addrs "$id" "$name"
}

router_addrs() {
	in_r ip addr add "10.0.$1.1/24" dev "$2"
	in_r ip addr add "fd00:$1::1/64" dev "$2" nodad
	in_r ip link set "$2" up
}

# ping1 ADDR: one echo request, one second for its reply.
ping1() {
	in_c ping -c 1 -W 1 "$1" > /dev/null 2>&1
}

# attached NAME: the router lists NAME as an attached device
attached() {
	test "$(in_r mmbctl -j show interfaces | jq -r --arg d "$1" '[.[] | select(.ifname == $d)] | length')" = 1
}

# waiting NAME: the router lists NAME as enabled with no device
waiting() {
	test "$(in_r mmbctl -j show interfaces |
		jq -r --arg d "$1" '.[] | select(.ifindex == null and .enabled == $d) | .attached')" = 0
}

in_r mmbctl enable r0
in_r mmbctl enable r1

# --- a device that is deleted and made again ----------------------------------
in_r mmbctl add in r0.20 ip-proto icmp drop
in_r mmbctl add in r0.20 icmp6-type 128 drop
vlan 20
check "enable r0.20" in_r mmbctl enable r0.20
check_fails "r0.20's ping is dropped (IPv4)" ping1 10.0.20.1
check_fails "r0.20's ping is dropped (IPv6)" ping1 fd00:20::1
check "r0.20 counted both" test "$(dev_drops r0.20 rule)" = 2
in_r ip link del r0.20
check "deleting r0.20 detaches it; its name waits" waiting r0.20
vlan 20
check "made again, r0.20 is attached as it appears" attached r0.20
check_fails "its first ping is dropped (IPv4)" ping1 10.0.20.1
check_fails "and its first IPv6 ping" ping1 fd00:20::1
check "the new r0.20 counted exactly those two" test "$(dev_drops r0.20 rule)" = 2
start_server "$R" python3 "$TRAFFIC" udp-sink 7020 3 "$CEILING"
in_c python3 "$TRAFFIC" udp-send 10.0.20.1 7020 3 50
server_done
check "UDP over the new r0.20 passes, its rules do not drop it ($(received) of 3)" server_ok
check "list shows the rules by name" \
	test "$(in_r mmbctl list | grep -c ' in r0\.20 ')" = 2
in_r mmbctl flush

# --- a rule and a pattern for a device that does not exist yet -------------------
check "a rule may name an interface that does not exist" \
	in_r mmbctl add in vl30 ip-proto icmp drop
check "enable a pattern with no device yet" in_r mmbctl enable 'vl*'
check "show interfaces: vl* waits" waiting 'vl*'
vlan 30 vl30
check "vl30 appears and is attached by the pattern" \
	test "$(in_r mmbctl -j show interfaces | jq -r '.[] | select(.ifname == "vl30") | .enabled')" = 'vl*'
check "show interfaces says which pattern" \
	bash -c "ip netns exec $R mmbctl show interfaces | grep -Eq '^[0-9]+: vl30 \\(vl\\*\\): packets '"
check_fails "vl30's first ping is dropped" ping1 10.0.30.1
check "vl30 counted it" test "$(dev_drops vl30 rule)" = 1
check "r0.20 (no rule, no pattern) still answers" ping1 10.0.20.1

# --- renamed to a name, and away from it ------------------------------------------
in_r mmbctl add in r0.40 ip-proto icmp drop
in_r mmbctl enable r0.40
vlan 40 tmp40
check "tmp40 (not enabled) answers" ping1 10.0.40.1
check_fails "tmp40 is not attached" attached tmp40
in_r ip link set tmp40 down
in_r ip link set tmp40 name r0.40
in_r ip link set r0.40 up
check "renamed r0.40, it is attached" attached r0.40
check_fails "and its first ping is dropped" ping1 10.0.40.1
in_r ip link set r0.40 down
in_r ip link set r0.40 name tmp40
in_r ip link set tmp40 up
check "renamed away, it is let go" waiting r0.40
check "and answers again" wait_for "$CEILING" ping1 10.0.40.1
in_r ip link del tmp40
in_r mmbctl disable r0.40
in_r mmbctl flush

# --- a saved file that names a missing interface -------------------------------
in_r mmbctl add in r0.50 ip-proto icmp drop
in_r mmbctl enable r0.50
check "save" bash -c "ip netns exec $R mmbctl save > $TMP/saved"
diag < "$TMP/saved"
check "save writes the names and the pattern" \
	test "$(grep '^enable ' "$TMP/saved" | tr '\n' ' ')" = "enable r0 enable r1 enable r0.20 enable 'vl*' enable r0.50 "
check "and the rule by name" grep -qx 'add in r0.50 ip-proto icmp drop' "$TMP/saved"
B=$R-boot
ip netns add "$B"
check "the file applies where none of its interfaces exist" ip netns exec "$B" mmbctl -f "$TMP/saved"
check "which then saves the same file" bash -c "ip netns exec $B mmbctl save | cmp - $TMP/saved"
ip netns del "$B"
in_r mmbctl disable r0.50
in_r mmbctl flush
check "the router applies it, r0.50 missing" in_r mmbctl -f "$TMP/saved"
check "r0.50 waits" waiting r0.50
vlan 50
check "r0.50 appears: attached" attached r0.50
check_fails "its first ping is dropped" ping1 10.0.50.1
check "r0.50 counted it" test "$(dev_drops r0.50 rule)" = 1

# --- a device that another rx_handler holds as it appears ------------------------
in_r mmbctl enable 'q*'
in_r ip link add br9 type bridge
in_r ip link add z9 type dummy
in_r ip link set z9 master br9
in_r ip link set z9 name q9
check_fails "q9, a bridge port, is not attached" attached q9
check "q* counted the device it could not attach" \
	test "$(in_r mmbctl -j show interfaces | jq -r '.[] | select(.enabled == "q*" and .ifindex == null) | .failed')" = 1
check "and the kernel log says so" bash -c "dmesg | grep -q 'mmb: q9 (enabled as q\\*) could not be attached'"
check "disable forgets a pattern" in_r mmbctl disable 'q*'
refused "disable of a name not enabled" 1 "not enabled on this name" in_r mmbctl disable 'q*'
refused "enable twice" 1 "already enabled" in_r mmbctl enable r0.50
refused "a pattern with '*' inside" 2 "may only end a pattern" in_r mmbctl enable 'q*9'
refused "a name too long" 2 "at most 15 bytes" in_r mmbctl enable abcdefghijklmnop
refused "a rule with a pattern" 2 "no '\\*' pattern" in_r mmbctl add in 'vl*' drop

check "kernel log has no warnings" kernel_log_clean
tap_end
