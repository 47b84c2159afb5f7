#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, packets crafted or shaped to get past the rules, and the
# stack's offloads: fragments that hide a TCP header (RFC 1858, 3128,
# 7112) are dropped, not passed unjudged; BIG TCP packets that GRO builds
# over 64 KiB are rewritten; tunnel packets whose inner checksum is left
# to offload keep every checksum valid through outer rewrites; every
# segment of a fraglist GRO packet is rewritten; VLAN devices, frames of
# two VLAN 0 tags, VRF devices, and listings that race transactions. Topology in lib.sh.
# Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
in_r ethtool -K r1 tx off > /dev/null	# segment in software: checksums from what mmb wrote
RMAC=$(mac_of "$R" r0)

# --- fragments that hide the TCP header ---------------------------------------
# A SYN to port 7000 in two fragments: "tiny" puts 16 bytes of the TCP
# header in the first (no flags), "overlap" 8 (ports and sequence) and the
# rest at offset 8, over the first one's flags. Without rules the server
# reassembles a SYN and answers it; with "tcp-dport 7000 drop" mmb drops
# the fragments (and counts them), so no answer ever comes.
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 7000
echo_pid=$SERVER_PID
sport=40000
answer() {	# answer HOW: the server's answer to the SYN sent as HOW, seen on c0
	sport=$((sport + 1))
	capture_on "$C" c0 6 1
	in_c python3 "$TRAFFIC" frag-syn c0 "$RMAC" 10.0.1.2 10.0.2.2 "$sport" 7000 "$1"
}
for how in tiny overlap; do
	in_r mmbctl flush
	answer "$how"
	pkt=$(capture_wait c0)
	check_jq "$how fragments without rules: the server reassembles the SYN and answers" \
		'length == 1 and .[0].sport == 7000 and .[0].flags == 18' "$pkt"
	in_r mmbctl add tcp-dport 7000 drop
	f0=$(dev_drops r0 fragment)
	want=$([ "$how" = tiny ] && echo 1 || echo 2)
	answer "$how"
	check "$how fragments with tcp-dport 7000 drop: r0 drops $want as fragments" \
		wait_for "$CEILING" drops_reached r0 fragment $((f0 + want))
	check "$how fragments with tcp-dport 7000 drop: no answer from the server" \
		test -z "$(capture_stop c0)"
done
r0=$(dev_drops r0 rule)
answer whole
check "the same SYN whole is dropped by the rule" \
	wait_for "$CEILING" drops_reached r0 rule $((r0 + 1))
capture_stop c0 > /dev/null
# IPv6: a first fragment without the whole header chain (RFC 7112), and a
# fragment at offset 8 over it.
f0=$(dev_drops r0 fragment)
in_c python3 "$TRAFFIC" frag-syn c0 "$RMAC" fd00:1::2 fd00:2::2 40100 7000 overlap
check "IPv6 fragments hiding the TCP header: r0 drops both" \
	wait_for "$CEILING" drops_reached r0 fragment $((f0 + 2))
in_r mmbctl flush
kill "$echo_pid" 2> /dev/null
wait "$echo_pid" 2> /dev/null

# --- BIG TCP: GRO on the router builds packets over 64 KiB ----------------------
# The client segments in software (no TSO, so that veth runs GRO at r0) up
# to 185000 bytes at a time, and r0's GRO may merge that much (IPv4 from
# 6.3 on). Jumbo frames make a burst a few segments. mmb must still judge
# and rewrite what GRO built: a port both ways and the DSCP one way.
for ns_dev in "$C c0" "$R r0" "$R r1" "$S s0"; do
	set -- $ns_dev
	ip -n "$1" link set "$2" mtu 9000
done
in_c ip link set c0 gso_max_size 185000
in_r ip link set r0 gro_max_size 185000
big_dsts=fd00:2::2
if kernel_at_least 6.3; then
	in_c python3 "$TRAFFIC" link-set c0 63 185000	# IFLA_GSO_IPV4_MAX_SIZE
	in_r python3 "$TRAFFIC" link-set r0 64 185000	# IFLA_GRO_IPV4_MAX_SIZE
	big_dsts="10.0.2.2 fd00:2::2"
else
	echo "# IPv4 BIG TCP needs Linux 6.3; IPv6 only here"
fi
in_c ethtool -K c0 tx off > /dev/null
in_r ethtool -K r0 gro off > /dev/null
in_r ethtool -K r0 gro on > /dev/null
in_r mmbctl add tcp-dport 5040 mod tcp-dport 5041
in_r mmbctl add tcp-dport 5040 mod ip-dscp 10
in_r mmbctl add tcp-dport 5040 mod ip6-dscp 10
in_r mmbctl add tcp-sport 5041 mod tcp-sport 5040
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 5041
echo_pid=$SERVER_PID
for dst in $big_dsts; do
	# How much GRO merges follows how much arrives per NAPI poll: a guest
	# slowed by its host's load may send too little at once. Up to three
	# transfers, until one brings a packet over 64 KiB.
	for try in 1 2 3; do
		capture_on "$R" r0 6 1000000
		capture_on "$S" s0 6 1000000
		check "BIG TCP: 16 MB echoed intact through both port rewrites ($dst, transfer $try)" \
			in_c python3 "$TRAFFIC" tcp-client "$dst" 5040 16000000
		segs=$(capture_stop s0)
		rcap=$(capture_stop r0)
		jq -s -e 'map(.frame) | max > 65549' <<< "$rcap" > /dev/null && break
	done
	check_jq "BIG TCP: GRO on r0 built packets over 64 KiB ($dst, transfer $try of at most 3)" \
		'map(.frame) | max > 65549' "$rcap"
	check_all "BIG TCP: every segment s0 captured is for port 5041, with DSCP 10 and valid checksums ($dst)" \
		'.dport == 5041 and .tos == 40 and .ip_csum and .l4_csum' 50 "$segs"
done
kill "$echo_pid" 2> /dev/null
wait "$echo_pid" 2> /dev/null
in_r mmbctl flush
in_c ip link set c0 gso_max_size 65536
in_r ip link set r0 gro_max_size 65536
if kernel_at_least 6.3; then
	in_c python3 "$TRAFFIC" link-set c0 63 65536
	in_r python3 "$TRAFFIC" link-set r0 64 65536
fi
for ns_dev in "$C c0" "$R r0" "$R r1" "$S s0"; do
	set -- $ns_dev
	ip -n "$1" link set "$2" mtu 1500
done
in_r ethtool -K r0 gro off > /dev/null
in_c ethtool -K c0 tx on > /dev/null

# --- VXLAN: outer rewrites while the inner checksum is offloaded ----------------
# The client's VXLAN device leaves the inner TCP checksum to offload
# (CHECKSUM_PARTIAL, csum_start at the inner header) and veth carries the
# packets so to r0, GSO or not. mmb rewrites the outer header: TTL, source
# port, and (without outer checksums) the source address. Every checksum,
# outer and inner, must verify at the server, and the tunnel must work.
vxlan_case() {	# vxlan_case NAME LOCAL REMOTE OPTIONS...
	local name=$1 lc=$2 rs=$3
	shift 3
	# No learning: the server must not take the rewritten source for the
	# client's address.
	in_c ip link add vx0 type vxlan id 42 dev c0 local "$lc" remote "$rs" dstport 4789 \
		nolearning "$@"
	in_s ip link add vx0 type vxlan id 42 dev s0 local "$rs" remote "$lc" dstport 4789 \
		nolearning "$@"
	in_c ip addr add 192.168.42.1/24 dev vx0
	in_s ip addr add 192.168.42.2/24 dev vx0
	in_c ip link set vx0 up
	in_s ip link set vx0 up
	start_server "$S" python3 "$TRAFFIC" tcp-echo-server 5050
	echo_pid=$SERVER_PID
	capture_on "$S" s0 17 30
	check "VXLAN ($name): 1 MB echoed intact through the tunnel" \
		in_c python3 "$TRAFFIC" tcp-client 192.168.42.2 5050 1000000
	VXCAP=$(capture_wait s0)
	kill "$echo_pid" 2> /dev/null
	wait "$echo_pid" 2> /dev/null
	in_c ip link del vx0
	in_s ip link del vx0
}
# What every outer packet at the server must be: the rewrites done, its
# checksums and its inner packet's (TCP's, or an ARP frame) valid.
VXOK='.sport == 40000 and .ttl == 32 and .ip_csum and .l4_csum and (.inner == null or .inner.l4_csum)'
check_inner() {
	check_jq "VXLAN ($1): the inner TCP segments are there" \
		'map(select(.inner.proto == 6)) | length >= 20' "$VXCAP"
}
in_r mmbctl add udp-dport 4789 mod udp-sport 40000
in_r mmbctl add udp-dport 4789 mod ip-ttl 33
in_r mmbctl add ip-saddr 10.0.1.2 udp-dport 4789 mod ip-saddr 10.0.1.99
vxlan_case "IPv4, no outer checksum" 10.0.1.2 10.0.2.2 noudpcsum
check_jq "VXLAN (IPv4, no outer checksum): outer source, port and TTL rewritten, checksums valid" \
	"length == 30 and all(.src == \"10.0.1.99\" and $VXOK)" "$VXCAP"
check_jq "VXLAN (IPv4, no outer checksum): the outer UDP checksum stays 0" \
	'all(.l4_zero)' "$VXCAP"
check_inner "IPv4, no outer checksum"
in_r mmbctl flush
in_r mmbctl add udp-dport 4789 mod udp-sport 40000
in_r mmbctl add udp-dport 4789 mod ip-ttl 33
vxlan_case "IPv4, outer checksums" 10.0.1.2 10.0.2.2 udpcsum
check_jq "VXLAN (IPv4, outer checksums): outer port and TTL rewritten, every checksum valid" \
	"length == 30 and all($VXOK and (.l4_zero | not))" "$VXCAP"
check_inner "IPv4, outer checksums"
in_r mmbctl flush
in_r mmbctl add udp-dport 4789 mod udp-sport 40000
in_r mmbctl add udp-dport 4789 mod ip6-hop-limit 33
vxlan_case "IPv6" fd00:1::2 fd00:2::2
check_jq "VXLAN (IPv6): outer port and hop limit rewritten, every checksum valid" \
	"length == 30 and all($VXOK)" "$VXCAP"
check_inner IPv6
in_r mmbctl flush

# --- fraglist GRO: every segment rewritten --------------------------------------
# With rx-gro-list, GRO on r0 chains whole datagrams (and, from 6.10, TCP
# segments) in a list, each with its own headers; segmentation takes only
# addresses and ports from the first. The client's UDP GSO is segmented on
# c0, so the datagrams reach r0 in one burst. What the kernel does itself
# with such lists (seen without mmb rules too): its forwarding decrements
# the TTL of a list's first segment only, so the others leave with the 50
# mmb wrote (64 without it); and the UDP checksums of datagrams whose
# checksum the client left to offload (UDP GSO needs it before 6.2) are not
# completed, so only the IPv4 header checksum is checked for UDP.
in_r ethtool -K r0 gro off > /dev/null
in_r ethtool -K r0 gro on rx-gro-list on > /dev/null
in_c ethtool -K c0 tx-udp-segmentation off > /dev/null
in_r mmbctl add udp-dport 6100 mod ip-dscp 10
in_r mmbctl add udp-dport 6100 mod ip6-dscp 10
in_r mmbctl add udp-dport 6100 mod ip-ttl 50
in_r mmbctl add udp-dport 6100 mod ip6-hop-limit 50
for dst in 10.0.2.2 fd00:2::2; do
	capture_on "$R" r0 17 1000
	capture_on "$S" s0 17 10
	in_c python3 "$TRAFFIC" udp-gso "$dst" 6100 10 1000
	dgrams=$(capture_wait s0)
	rcap=$(capture_stop r0)
	check_jq "fraglist GRO: r0 chained the datagrams ($dst)" 'map(.len) | max > 2000' "$rcap"
	check_jq "fraglist GRO: all 10 datagrams at s0 carry DSCP 10 and TTL 49/50, IP checksums valid ($dst)" \
		'length == 10 and all(.tos == 40 and (.ttl == 49 or .ttl == 50) and .ip_csum)' "$dgrams"
done
in_r mmbctl flush
in_r mmbctl add tcp-dport 5060 mod ip-dscp 10
in_r mmbctl add tcp-dport 5060 mod ip-ttl 50
in_c ethtool -K c0 tx off > /dev/null
start_server "$S" python3 "$TRAFFIC" tcp-echo-server 5060
echo_pid=$SERVER_PID
capture_on "$S" s0 6 50
check "fraglist GRO: 1 MB of TCP echoed intact" \
	in_c python3 "$TRAFFIC" tcp-client 10.0.2.2 5060 1000000
check_jq "fraglist GRO: 50 TCP segments at s0 carry DSCP 10 and TTL 49/50, checksums valid" \
	'length == 50 and all(.tos == 40 and (.ttl == 49 or .ttl == 50) and .ip_csum and .l4_csum)' "$(capture_wait s0)"
kill "$echo_pid" 2> /dev/null
wait "$echo_pid" 2> /dev/null
in_r mmbctl flush
in_r ethtool -K r0 gro off rx-gro-list off > /dev/null
in_c ethtool -K c0 tx on tx-udp-segmentation on > /dev/null

# --- VLANs and VRFs -----------------------------------------------------------
# The stack hands a VLAN's frames to its own device before the parent's
# rx_handler runs: mmb on r0 never sees VLAN 10, mmb on r0.10 does.
in_c ip link add link c0 name c0.10 type vlan id 10
in_r ip link add link r0 name r0.10 type vlan id 10
in_c ip addr add 10.0.10.2/24 dev c0.10
in_r ip addr add 10.0.10.1/24 dev r0.10
in_c ip link set c0.10 up
in_r ip link set r0.10 up
in_r mmbctl add ip-proto udp drop
p0=$(dev_stat r0 packets)
start_server "$R" python3 "$TRAFFIC" udp-sink 6200 5 "$CEILING"
in_c python3 "$TRAFFIC" udp-send 10.0.10.1 6200 5 40
server_done
check "VLAN 10 with its own device: UDP arrives past mmb on r0 ($(received) of 5)" server_ok
check "mmb on r0 saw none of VLAN 10's packets" test $(($(dev_stat r0 packets) - p0)) -lt 5
check "enable r0.10" in_r mmbctl enable r0.10
in_c python3 "$TRAFFIC" udp-send 10.0.10.1 6200 5 40
wait_for "$CEILING" stat_reached r0.10 dropped 5
check "mmb on r0.10 drops VLAN 10's UDP (5 dropped)" test "$(dev_stat r0.10 dropped)" -eq 5
in_r mmbctl flush
# Two tags of VLAN 0 (priority only, 802.1ad outside, 802.1Q inside): the
# stack strips both and takes the packet as r0's. mmb judges it too: a
# datagram to a port no rule names reaches the server, one to a dropped
# port does not (the core strips the inner tag after mmb's handler).
in_r mmbctl add in r0 udp-dport 6301 drop
start_server "$S" python3 "$TRAFFIC" udp-sink 6300 1 "$CEILING"
in_c python3 "$TRAFFIC" raw-udp c0 "$RMAC" 10.0.1.2 10.0.2.2 40000 6300 1 vlan00 > /dev/null
server_done
check "two VLAN 0 tags: the stack takes the frame, the datagram is forwarded" server_ok
start_server "$S" python3 "$TRAFFIC" udp-sink 6301 1 2
in_c python3 "$TRAFFIC" raw-udp c0 "$RMAC" 10.0.1.2 10.0.2.2 40000 6301 1 vlan00 > /dev/null
server_done
check "...and mmb on r0 drops one to a dropped port ($(received) arrived)" \
	test "$(received)" = 0 -a "$(in_r mmbctl -j list | jq '.[0].stats.packets')" = 1
in_r mmbctl flush
in_r ip link add vrf0 type vrf table 10
refused "a VRF device is refused" 1 "VRF device receives no packets" in_r mmbctl enable vrf0
in_r ip link set r0.10 master vrf0
check "a VRF's member device can be enabled (r0.10 already is)" \
	test "$(in_r mmbctl -j show interfaces | jq -r '[.[] | select(.ifindex) | .ifname] | index("r0.10") != null')" = true

# --- listings race transactions --------------------------------------------------
# Two rulesets of 500 and 600 rules replace each other 10 times while
# "list" runs: every listing is all of one, never parts of both.
{ echo flush; for p in $(seq 10000 10499); do echo "add udp-dport $p drop"; done; } > "$TMP/a.rules"
{ echo flush; for p in $(seq 20000 20599); do echo "add udp-dport $p drop"; done; } > "$TMP/b.rules"
in_r bash -c "for i in \$(seq 10); do mmbctl -f $TMP/a.rules && mmbctl -f $TMP/b.rules || exit 1; done" &
swapper=$!
lists=0
mixed=0
while kill -0 "$swapper" 2> /dev/null; do
	shape=$(in_r mmbctl -j list | jq -c '[length, ([.[].rule[10:11]] | unique)]')
	case "$shape" in
	'[500,["1"]]' | '[600,["2"]]' | '[0,[]]') ;;
	*) mixed=$((mixed + 1)); echo "# a listing of two rulesets: $shape" ;;
	esac
	lists=$((lists + 1))
done
wait "$swapper"
swapped=$?
check "20 transactions while listing all applied" test "$swapped" -eq 0
check "every one of $lists listings was one whole ruleset" test "$mixed" -eq 0 -a "$lists" -gt 0
in_r mmbctl flush

check "kernel log has no warnings" kernel_log_clean
tap_end
