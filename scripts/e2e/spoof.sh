#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, forged state (issue 37, item 5): an attacker on the
# outside injects one SYN with an inside host's address as its source, to
# its own port; with the README's reflexive ACL that must open nothing: no
# connection listed, and the attacker's connect to the inside host's port
# fails, IPv4 and IPv6 (rp-filter, the default). A reply-direction packet
# that comes in where its connection's first packet did is no reply. The
# man page's recipe (the stateful rule on the inside device only) holds even
# with rp-filter off. Prints TAP.
#
#   topology of lib.sh, and an attacker on a third device of the router:
#   +----------------+      +--------------------+
#   | $A  attacker   +------+ r2 10.0.3.1        |  ($R, mmb on r0, r1, r2)
#   |  a0 10.0.3.2   |      |    fd00:3::1       |
#   |     fd00:3::2  |      +--------------------+
#   +----------------+
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
A=mmb-a-$$
in_a() { ip netns exec "$A" "$@"; }
spoof_down() {
	ip netns del "$A" 2> /dev/null
	topology_down
}
trap spoof_down EXIT

ip netns add "$A"
ip -n "$A" link add a0 type veth peer name r2 netns "$R"
ip -n "$A" link set lo up
in_a sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip -n "$A" addr add 10.0.3.2/24 dev a0
ip -n "$A" addr add fd00:3::2/64 dev a0 nodad
ip -n "$R" addr add 10.0.3.1/24 dev r2
ip -n "$R" addr add fd00:3::1/64 dev r2 nodad
ip -n "$A" link set a0 up
ip -n "$R" link set r2 up
ip -n "$A" route add default via 10.0.3.1
ip -n "$A" -6 route add default via fd00:3::1
for dev in r0 r1 r2; do
	in_r mmbctl enable "$dev"
done
R2MAC=$(mac_of "$R" r2)

stat_of() {
	in_r mmbctl -j show settings | jq -er ".stats.$1"
}

stat_reached_conn() {
	test "$(stat_of "$1")" -ge "$2"
}

# conns_with PORT: the router's connections with PORT at either end.
conns_with() {
	in_r mmbctl -j show connections |
		jq -c --argjson p "$1" '.[] | select(.orig.sport == $p or .orig.dport == $p or
						     .reply.sport == $p or .reply.dport == $p)'
}

start_server "$C" python3 "$TRAFFIC" peer-server tcp 2222 1
inside_log=$SERVER_LOG
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1

# --- the README's reflexive ACL, as it was: the router's own check ----------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 accept
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 accept
in_r mmbctl add ip-proto tcp drop
in_r mmbctl add ip6-next tcp drop
check "settings: rp-filter is on by default" \
	test "$(in_r mmbctl -j show settings | jq -r .rp_filter)" = true

# attack v4|v6 INSIDE FAKE LABEL [rp]: from $A, a SYN from INSIDE:2222 to FAKE:4444,
# an address of the outside that no host has yet (no RST answers it); then
# $A takes FAKE and connects from FAKE:4444 to INSIDE:2222, the forged
# connection's reply direction. With rp, the reverse-path check's part too.
attack() {
	local v=$1 in=$2 me=$3 tag=$4 ip d s json

	ip=$([ "$v" = v6 ] && echo ip6 || echo ip)
	d=$(dev_drops r2 rule)
	s=$(stat_of spoofed)
	if [ -n "${5:-}" ]; then
		json=$(in_r mmbctl -j trace in r2 "$ip-saddr" "$in" "$ip-daddr" "$me" \
		       tcp-sport 2222 tcp-dport 4444)
		check_jq "$tag: trace says the forged SYN would start nothing, and is dropped" \
			'.[0].conn_spoofed == true and .[0].conn_new == false and
			 .[0].verdict == "drop"' "$json"
	fi
	in_a python3 "$TRAFFIC" frag-syn a0 "$R2MAC" "$in" "$me" 2222 4444 whole
	check "$tag: the forged SYN ($in:2222 > $me:4444) is dropped at r2" \
		wait_for "$CEILING" drops_reached r2 rule $((d + 1))
	[ -n "${5:-}" ] &&
		check "$tag: counted as spoofed" \
			wait_for "$CEILING" stat_reached_conn spoofed $((s + 1))
	check "$tag: show connections does not list the forged flow" \
		test -z "$(conns_with 4444)"
	if [ "$v" = v6 ]; then
		ip -n "$A" addr add "$me/64" dev a0 nodad
	else
		ip -n "$A" addr add "$me/24" dev a0
	fi
	d=$(dev_drops r2 rule)
	# The connect fails: r2 drops its SYN and the SYN sent again a second
	# later, and it is still without an answer then (not waited out).
	bg_in "$A" python3 "$TRAFFIC" peer-ask tcp "$in" 2222 4444 "$me" > "$TMP/ask" 2>&1
	wait_for "$CEILING" drops_reached r2 rule $((d + 2))
	check "$tag: the attacker's connect from $me:4444 to $in:2222 fails" \
		bash -c "kill -0 $BG_PID && ! grep -q . $TMP/ask &&
			 ip netns exec $A ss -Htn state syn-sent | grep -q ':4444 '"
	kill "$BG_PID" 2> /dev/null
	wait "$BG_PID" 2> /dev/null
	check "$tag: its SYN was dropped at r2" drops_reached r2 rule $((d + 1))
	check "$tag: the inside server heard nothing of the attacker" \
		bash -c "! grep -q '$me' '$inside_log'"
	check "$tag: show connections still lists nothing of it" test -z "$(conns_with 4444)"
}
attack v4 10.0.1.2 10.0.3.99 v4 rp
attack v6 fd00:1::2 fd00:3::99 v6 rp

check "the inside's own connections work (IPv4)" \
	in_c python3 "$TRAFFIC" peer-ask tcp 10.0.2.2 8000 40000
check "the inside's own connections work (IPv6)" \
	in_c python3 "$TRAFFIC" peer-ask tcp fd00:2::2 8000 40001

# --- a reply that comes in where the original did -------------------------------
w=$(stat_of wrong_iif)
d=$(dev_drops r0 rule)
in_c python3 "$TRAFFIC" frag-syn c0 "$(mac_of "$R" r0)" 10.0.2.2 10.0.1.2 8000 40000 whole
check "a reply-direction packet from the client's side is dropped at r0" \
	wait_for "$CEILING" drops_reached r0 rule $((d + 1))
check "and counted as wrong-iif" wait_for "$CEILING" stat_reached_conn wrong_iif $((w + 1))

# --- the man page's recipe holds without the check ------------------------------
in_r mmbctl flush
in_r mmbctl set rp-filter off
check "settings: rp-filter off" \
	test "$(in_r mmbctl -j show settings | jq -r .rp_filter)" = false
in_r mmbctl add-stateful in r0 ip-saddr 10.0.1.0/24 accept
in_r mmbctl add-stateful in r0 ip6-saddr fd00:1::/64 accept
in_r mmbctl add icmp6-type '>=' 133 icmp6-type '<=' 137 accept
in_r mmbctl add all drop
attack v4 10.0.1.2 10.0.3.98 "recipe, rp-filter off, v4"
attack v6 fd00:1::2 fd00:3::98 "recipe, rp-filter off, v6"
check "recipe: the inside's connections work" \
	in_c python3 "$TRAFFIC" peer-ask tcp 10.0.2.2 8000 40002
in_r mmbctl set rp-filter on

check "kernel log clean" kernel_log_clean
tap_end
