#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, foundation: enabling mmb on a router's devices keeps
# forwarding working (IPv4, IPv6, ICMP, TCP, UDP), the hook counts what it
# sees, errors are precise and change nothing, devices that go away or
# change namespace are let go, and (with a module) unload under traffic is
# clean. Topology in lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

# --- enabling -------------------------------------------------------------
check "enable r0" in_r mmbctl enable r0
check "enable r1" in_r mmbctl enable r1
check "show interfaces lists r0 and r1" \
	test "$(enabled_in "$R")" = "r0 r1"
check "text output has a line per device, with drops by cause" \
	bash -c "ip netns exec $R mmbctl show interfaces | grep -Eq '^[0-9]+: r0: packets [0-9]+ bytes [0-9]+ dropped [0-9]+ rule [0-9]+ fragment [0-9]+ header [0-9]+ nomem [0-9]+ conn [0-9]+ unmapped [0-9]+ rewritten [0-9]+ not-ip [0-9]+ malformed [0-9]+ offloaded [0-9]+$'"
check "state is per namespace: client has none enabled" \
	test -z "$(enabled_in "$C")"

# --- forwarding through the hook -------------------------------------------
check "ping client -> server, IPv4" in_c ping -c 3 -i 0.2 -W 10 10.0.2.2
check "ping client -> server, IPv6" in_c ping -c 3 -i 0.2 -W 10 fd00:2::2

start_server "$S" python3 "$TRAFFIC" tcp-echo-server 5000
check "TCP 1 MiB echoed, IPv4" in_c python3 "$TRAFFIC" tcp-client 10.0.2.2 5000 1048576
check "TCP 1 MiB echoed, IPv6" in_c python3 "$TRAFFIC" tcp-client fd00:2::2 5000 1048576

p0=$(dev_stat r0 packets)
b0=$(dev_stat r0 bytes)
start_server "$S" python3 "$TRAFFIC" udp-sink 5001 200 "$CEILING"
check "UDP: 200 datagrams of 100 bytes sent" \
	in_c python3 "$TRAFFIC" udp-send 10.0.2.2 5001 200 100
server_done
check "UDP: all 200 delivered" server_ok
p1=$(dev_stat r0 packets)
b1=$(dev_stat r0 bytes)
check "r0 counted the 200 datagrams ($((p1 - p0)) packets)" \
	test $((p1 - p0)) -ge 200
check "r0 counted their bytes ($((b1 - b0)) >= 200 * 128)" \
	test $((b1 - b0)) -ge $((200 * 128))
check "r1 counted the replies" test "$(dev_stat r1 packets)" -ge 6

# --- errors are precise and change nothing ---------------------------------
in_r ip link add br0 type bridge
in_r ip link add b0 type veth peer name b1
in_r ip link set b0 master br0
check "enable a name no device has: remembered" in_r mmbctl enable nosuchdev
check "and listed as waiting" \
	test "$(in_r mmbctl -j show interfaces | jq -r '.[] | select(.enabled == "nosuchdev") | .attached')" = 0
check "disable forgets it" in_r mmbctl disable nosuchdev
refused "enable twice" 1 "already enabled" in_r mmbctl enable r0
refused "enable a bridge port" 1 "already has an rx_handler" in_r mmbctl enable b0
refused "enable loopback" 1 "loopback" in_r mmbctl enable lo
refused "enable without CAP_NET_ADMIN" 1 "CAP_NET_ADMIN" \
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups mmbctl enable b1
refused "disable without CAP_NET_ADMIN" 1 "CAP_NET_ADMIN" \
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups mmbctl disable r0
refused "show interfaces without CAP_NET_ADMIN" 1 "CAP_NET_ADMIN" \
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups mmbctl show interfaces
refused "disable a device mmb is not on" 1 "not enabled" in_r mmbctl disable b1

# From a user namespace of its own (where it is root) an unprivileged user
# still has no CAP_NET_ADMIN over the router's namespace, which the
# initial user namespace owns: every command that changes or reads mmb's
# state is refused, and nothing changes.
as_userns() {
	in_r setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare --user --map-root-user "$@"
}
in_r mmbctl add ip-ttl 1 drop > /dev/null
rules_before=$(in_r mmbctl list)
settings_before=$(in_r mmbctl -j show settings | jq -c 'del(.stats)')
check "an unprivileged user namespace is root in itself" \
	test "$(as_userns id -u)" = 0
for cmd in "enable b1" "disable r0" "add all drop" "add-stateful all accept" "del 1" \
	"flush" "flush connections" "set conn-max 10" "list" "show interfaces" \
	"show tables" "show connections" "show settings" "show stats" "trace udp-dport 53" \
	"monitor"; do
	refused "$cmd from a user namespace that does not own the netns" 1 "CAP_NET_ADMIN" \
		as_userns mmbctl $cmd
done
refused "-f from a user namespace that does not own the netns" 1 "CAP_NET_ADMIN" \
	as_userns mmbctl -f - <<< "flush"
check "after them, the rules, devices and settings are as they were" \
	test "$(in_r mmbctl list)" = "$rules_before" -a "$(enabled_in "$R")" = "r0 r1" \
	-a "$(in_r mmbctl -j show settings | jq -c 'del(.stats)')" = "$settings_before"
in_r mmbctl flush

# In a network namespace its own user namespace owns, the same user is the
# administrator: mmb works there, and only there.
check "an unprivileged user runs mmb in a netns of its own" \
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user --map-root-user --net \
	bash -c 'ip link add v0 type veth peer name v1 && ip link set v0 up &&
		mmbctl enable v0 && mmbctl add ip-ttl 1 drop &&
		test "$(mmbctl -j list | jq length)" = 1 &&
		test "$(mmbctl -j show interfaces | jq -r ".[] | select(.ifindex) | .ifname")" = v0'
check "which the router's namespace does not see" \
	test -z "$(in_r mmbctl list)" -a "$(enabled_in "$R")" = "r0 r1"
refused "enable without a device is a usage error" 2 "missing IFACE" in_r mmbctl enable
refused "unknown command is a usage error" 2 "unknown command" in_r mmbctl frobnicate
check "after the refusals, still exactly r0 and r1" \
	test "$(enabled_in "$R")" = "r0 r1"
check "a bridge can still enslave a device mmb does not hold" \
	in_r ip link set b1 master br0
check_fails "a bridge cannot enslave a device mmb holds" \
	in_r ip link set r0 master br0

# --- devices that go away or move ------------------------------------------
in_r ip link add d0 type veth peer name d1
check "enable d0" in_r mmbctl enable d0
in_r ip link del d0
check "deleting d0 lets it go" test "$(enabled_in "$R")" = "r0 r1"
check "its name stays enabled (ifname.sh: a new d0 is attached)" in_r mmbctl disable d0
in_r ip link add m0 type veth peer name m1
check "enable m0" in_r mmbctl enable m0
ip -n "$R" link set m0 netns "$C"
check "moving m0 to another namespace lets it go" \
	test "$(enabled_in "$R")" = "r0 r1" -a -z "$(enabled_in "$C")"
in_r mmbctl disable m0
check "m0 can be enabled in its new namespace" in_c mmbctl enable m0
check "and disabled there" in_c mmbctl disable m0

# --- disable, and toggling under traffic -----------------------------------
check "disable r1" in_r mmbctl disable r1
check "r1 no longer listed" test "$(enabled_in "$R")" = "r0"
check "ping still works with r1 disabled" in_c ping -c 2 -i 0.2 -W 10 10.0.2.2
check "enable r1 again" in_r mmbctl enable r1
check "counters start from zero after re-enabling" \
	test "$(dev_stat r1 packets)" -lt 5

# A stream runs through the cycles; without rules nothing may be lost:
# every datagram sent before the end marker arrives.
start_server "$S" python3 "$TRAFFIC" udp-sink-end 5002 "$CEILING"
in_c taskset -c 0 python3 "$TRAFFIC" udp-flood 10.0.2.2 5002 "$TMP/stop" > "$TMP/sent" &
flood=$!
toggled=0
for i in $(seq 20); do
	in_r mmbctl disable r0 && in_r mmbctl enable r0 && toggled=$((toggled + 1))
done
touch "$TMP/stop"
wait "$flood"
server_done
check "20 disable/enable cycles of r0 under traffic all succeeded" test "$toggled" -eq 20
check "every datagram sent through the cycles arrived ($(cat "$TMP/sent") sent, $(received) arrived)" \
	test "$(cat "$TMP/sent")" -gt 0 -a "$(received)" = "$(cat "$TMP/sent")"
check "ping after the cycles" in_c ping -c 2 -i 0.2 -W 10 fd00:2::2

# --- save and restore --------------------------------------------------------
# "mmbctl save" writes the whole configuration as a file for -f. Applied to
# an empty namespace it gives back what was saved; applied again it is no
# error; a file with a fault anywhere changes nothing.
X=$R-x
Y=$R-y
for ns in "$X" "$Y"; do
	ip netns add "$ns"
	ip -n "$ns" link add r0 type veth peer name r1
done
in_r mmbctl flush
in_r mmbctl set conn-max 4321 tcp-loose off timeout udp-replied 77 timeout tcp-close 3
cat > "$TMP/rules" << 'RULES'
add ip-proto icmp icmp-type 8 ip-ttl '<' 100 drop
add ip6-saddr fd00:1::/64 udp-dport 53 mod ip6-dscp 10
add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp accept
add tcp-syn tcp-opt-mss '>' 1400 mod tcp-opt-mss 1400
add tcp-opt-timestamp strip ! tcp-opt-mss strip ! tcp-opt-wscale
add-stateful ip-proto udp udp-dport 7000 mod ip-daddr 10.0.2.2 shuffle udp-sport 20000-20100
add ip-ttl '<=' 2 drop 12.5
RULES
check "a ruleset of quoted, stateful, NAT and option rules" in_r mmbctl -f "$TMP/rules"
check "save" bash -c "ip netns exec $R mmbctl save > $TMP/saved"
diag < "$TMP/saved"
check "save: flush, settings, the interfaces, then the rules in order" \
	test "$(grep -v '^#' "$TMP/saved" | cut -d' ' -f1,2 | sed 's/^enable r[01]$/enable/' | tr '\n' ' ')" = \
	"flush set conn-max set timeout enable enable add ip-proto add ip6-saddr add-stateful ip-saddr add tcp-syn add tcp-opt-timestamp add-stateful ip-proto add ip-ttl "
check "save: the enabled interfaces are r0 and r1" \
	test "$(grep '^enable ' "$TMP/saved" | sort | tr '\n' ' ')" = "enable r0 enable r1 "
check "the saved file applies to a namespace with none of it" \
	ip netns exec "$X" mmbctl -f "$TMP/saved"
check "which then saves the same file" \
	bash -c "ip netns exec $X mmbctl save | cmp - $TMP/saved"
check "applying it again is no error (its interfaces are enabled already)" \
	ip netns exec "$X" mmbctl -f "$TMP/saved"
check "and changes nothing" bash -c "ip netns exec $X mmbctl save | cmp - $TMP/saved"
check "the settings came back" \
	bash -c "ip netns exec $X mmbctl show settings | grep -qx 'conn-max 4321 tcp-loose off'"
ip netns exec "$Y" mmbctl save > "$TMP/empty"
{ cat "$TMP/saved"; echo "enable lo"; } > "$TMP/bad"
refused "a file that enables loopback is refused, naming the line" 1 \
	"$TMP/bad:$(($(wc -l < "$TMP/saved") + 1)): enable lo" \
	ip netns exec "$Y" mmbctl -f "$TMP/bad"
check "and changes nothing: no interface, rule or setting" \
	bash -c "ip netns exec $Y mmbctl save | cmp - $TMP/empty"
{ cat "$TMP/saved"; echo "add udp-dport 1 drop 0"; } > "$TMP/bad"
refused "a file with a bad rule after its enables is refused" 2 "percentage" \
	ip netns exec "$Y" mmbctl -f "$TMP/bad"
check "and changes nothing either" \
	bash -c "ip netns exec $Y mmbctl save | cmp - $TMP/empty"
ip netns del "$X"
ip netns del "$Y"

# Restored on the router, it filters traffic as before.
in_r mmbctl disable r0
in_r mmbctl disable r1
in_r mmbctl flush
in_r mmbctl set conn-max 100000 tcp-loose on
check "the router restores from the saved file" in_r mmbctl -f "$TMP/saved"
check "r0 and r1 are enabled again" test "$(enabled_in "$R")" = "r0 r1"
check "and the router saves the same file" \
	bash -c "ip netns exec $R mmbctl save | cmp - $TMP/saved"
d0=$(dev_drops r0 rule)
check_fails "IPv4 ping is dropped by the restored rule" in_c ping -c 2 -i 0.2 -W 1 10.0.2.2
check "r0 counted those drops" wait_for "$CEILING" drops_reached r0 rule $((d0 + 2))
check "IPv6 ping still passes" in_c ping -c 2 -i 0.2 -W 10 fd00:2::2
in_r mmbctl flush

# --- module unload under traffic (qemu, where mmb is a module) --------------
if [ -n "${MMB_KO:-}" ]; then
	bg_in "$C" ping -i 0.05 -W 1 10.0.2.2 > "$TMP/ping" 2>&1
	pinger=$BG_PID
	sleep 1
	check "rmmod while traffic flows through enabled devices" rmmod mmb
	sleep 1
	kill "$pinger" 2> /dev/null
	wait "$pinger" 2> /dev/null
	check "module gone" test ! -e /sys/module/mmb
	check "no rx_handler left: r0 can join a bridge" \
		bash -c "ip -n $R link set r0 master br0 && ip -n $R link set r0 nomaster"
	check "forwarding still works after unload" in_c ping -c 2 -i 0.2 -W 10 10.0.2.2
	check "insmod again" insmod "$MMB_KO"
	check "nothing enabled after reload" test -z "$(enabled_in "$R")"
fi

check "kernel log has no warnings" kernel_log_clean
tap_end
