#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, attacks on devices by name: two devices that swap names
# (the "in" rule and the attachment follow the name, not the device); a
# device that moves to another namespace and back, with its name enabled
# in one, then in both; an ipvlan device (it takes no rx_handler), refused
# by name and by pattern, never "enabled" and unfiltered. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

X=$R-x
ip netns add "$X"
trap 'ip netns del "$X" 2> /dev/null; topology_down' EXIT

# ping1 ADDR: one echo request from the client, one second for its reply.
ping1() {
	in_c ping -c 1 -W 1 "$1" > /dev/null 2>&1
}

# attached NS NAME: NS lists NAME as an attached device
attached() {
	test "$(ip netns exec "$1" mmbctl -j show interfaces |
		jq -r --arg d "$2" '[.[] | select(.ifindex and .ifname == $d)] | length')" = 1
}

# vlan ID NAME: VLAN ID of c0 (10.0.ID.2) and of r0 named NAME (10.0.ID.1), up.
vlan() {
	in_c ip link add link c0 name "c0.$1" type vlan id "$1"
	in_c ip addr add "10.0.$1.2/24" dev "c0.$1"
	in_c ip link set "c0.$1" up
	in_r ip link add link r0 name "$2" type vlan id "$1"
	in_r ip addr add "10.0.$1.1/24" dev "$2"
	in_r ip link set "$2" up
}

# rename NS OLD NEW: down, renamed, up
rename() {
	ip -n "$1" link set "$2" down && ip -n "$1" link set "$2" name "$3" &&
		ip -n "$1" link set "$3" up
}

# --- two devices swap names ------------------------------------------------
in_r mmbctl add in sw-a ip-proto icmp drop
in_r mmbctl enable sw-a
vlan 60 sw-a
vlan 61 sw-b
check "sw-a (VLAN 60) is attached, sw-b is not" \
	bash -c "$(declare -f attached); attached $R sw-a && ! attached $R sw-b"
check_fails "VLAN 60's ping is dropped (in sw-a)" ping1 10.0.60.1
check "VLAN 61's ping passes" ping1 10.0.61.1
rename "$R" sw-a sw-tmp
rename "$R" sw-b sw-a
rename "$R" sw-tmp sw-b
check "swapped: VLAN 61's device is sw-a, attached" attached "$R" sw-a
check_fails "VLAN 60's device, sw-b now, is let go" attached "$R" sw-b
check_fails "VLAN 61's first ping is dropped" ping1 10.0.61.1
check "VLAN 60's ping passes" wait_for "$CEILING" ping1 10.0.60.1
check "the new sw-a counted its drop" test "$(dev_drops sw-a rule)" = 1
in_r mmbctl flush
in_r mmbctl disable sw-a

# --- a device that moves to another namespace and back ----------------------
in_c ip link add mvc type veth peer name mv0 netns "$R"
in_c ip addr add 10.0.70.2/24 dev mvc
in_c ip link set mvc up
# up NS: mv0 in NS with the router's address, up
up() {
	ip -n "$1" addr add 10.0.70.1/24 dev mv0 && ip -n "$1" link set mv0 up
}
up "$R"
in_r mmbctl add in mv0 ip-proto icmp drop
in_r mmbctl enable 'mv*'
check "mv0 is attached by mv*" attached "$R" mv0
check_fails "its ping is dropped" ping1 10.0.70.1
in_r ip link set mv0 netns "$X"
up "$X"
check_fails "moved out, it is let go" attached "$R" mv0
check "a namespace that enabled nothing answers" wait_for "$CEILING" ping1 10.0.70.1
ip -n "$X" link set mv0 netns "$R"
up "$R"
check "moved back, attached as it arrives" attached "$R" mv0
check_fails "its first ping is dropped" ping1 10.0.70.1
ip netns exec "$X" mmbctl add in mv0 ip-proto icmp drop
ip netns exec "$X" mmbctl enable mv0
in_r ip link set mv0 netns "$X"
up "$X"
check "into a namespace that enabled its name: attached there" attached "$X" mv0
check_fails "and its first ping is dropped there" ping1 10.0.70.1
check "counted there, once" test "$(ip netns exec "$X" mmbctl -j show interfaces |
	jq -r '.[] | select(.ifname == "mv0") | .stats.drops.rule')" = 1

# --- a device that takes no rx_handler: ipvlan --------------------------------
if in_r ip link add link r1 name iv0 type ipvlan mode l2 2> /dev/null; then
	refused "enable of an ipvlan device is refused" 1 "takes no rx_handler" \
		in_r mmbctl enable iv0
	refused "so is a pattern of it" 1 "takes no rx_handler" in_r mmbctl enable 'iv*'
	check "and nothing is remembered" \
		test "$(in_r mmbctl -j show interfaces | jq '[.[] | select(.enabled == "iv0" or .enabled == "iv*")] | length')" = 0
	in_r ip link del iv0
else
	# Not a check that passes: UML has no ipvlan. The qemu kernels run
	# these, and KUnit's atk3_no_rx_handler_test refuses such a device.
	echo "# no ipvlan in this kernel: its three checks not run"
fi

check "kernel log has no warnings" kernel_log_clean
tap_end
