#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, arriving and leaving stateful rules compose (issue 38):
# the router of docs/router.md "After routing", its rules taken from the
# page and run as they are, plus "add-stateful in lan0 accept" beside them
# (a filter of what the LAN starts, as nft's forward chain). The LAN's
# connections start arriving, by that rule, and the masquerade of the
# leaving rule binds to them as their first packet leaves by wan0: the
# ISP sees wan0's address (TCP, UDP, ping), replies come back, IPv6 is
# routed unmapped, port forwarding and "in wan0 drop" hold. Then the same
# ruleset in nftables (conntrack at prerouting, filter in forward,
# masquerade in postrouting), mmb off: the same packets delivered, the
# same source seen. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
PAGE=$MMB_ROOT/docs/router.md

# The fenced block after the page's marker "<!-- compose.sh: WHAT -->".
block() {
	doc_block "$PAGE" "compose.sh: $1"
}

trap topology_down EXIT
kernel_log_mark
if ! router_page_up ||
   ! in_r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1; then
	echo "Bail out! cannot build the namespaces"
	exit 1
fi

# What the LAN and the WAN get through the router: one line per probe,
# the same for mmb and for nft.
probes() {
	local seen

	start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
	seen=$(peer_ask "$C" tcp "$ISP4" 8000)
	echo "tcp4 ${seen% *}"
	in_c python3 "$TRAFFIC" tcp-multi "$ISP4" 8000 1 0 "$HOST4" 200000 > /dev/null &&
		echo "tcp4 200 kB echoed"
	seen=$(peer_ask "$C" tcp "$ISP6" 8000)
	echo "tcp6 ${seen% *}"
	stop_server
	start_server "$S" python3 "$TRAFFIC" peer-server udp 9000 1
	seen=$(peer_ask "$C" udp "$ISP4" 9000)
	echo "udp4 ${seen% *}"
	seen=$(peer_ask "$C" udp "$ISP6" 9000)
	echo "udp6 ${seen% *}"
	stop_server
	in_c ping -q -c 1 -W 5 "$ISP4" > /dev/null && echo "ping4 answered"
	in_c ping -q -c 1 -W 5 "$ISP6" > /dev/null && echo "ping6 answered"
	# Port forwarding: the WAN's 8080 is the host's 80.
	start_server "$C" python3 "$TRAFFIC" peer-server tcp 80 1
	seen=$(peer_ask "$S" tcp "$WAN4" 8080)
	echo "forward ${seen% *}"
	stop_server
	# Nothing else in from the WAN: a LAN host's closed port over IPv6.
	start_server "$C" python3 "$TRAFFIC" peer-server tcp 7000 1
	seen=$(ip netns exec "$S" timeout 5 python3 "$TRAFFIC" peer-ask tcp "$HOST6" 7000 2> /dev/null)
	echo "in6 ${seen:+answered}"
	stop_server
}

# --- the page's rules, as they are, and the arriving rule beside them ----------
block "after routing" > "$TMP/after.sh"
check "router.md has the After routing block, masquerade in it" \
	grep -q '^mmbctl add-stateful out wan0 ip-saddr 192.168.1.0/24 masquerade$' "$TMP/after.sh"
check "the block runs in the router" in_r bash -e "$TMP/after.sh"
check "and add-stateful in lan0 accept beside it" in_r mmbctl add-stateful in lan0 accept
check "lan0 and wan0 are enabled" test "$(enabled_in "$R")" = "lan0 wan0"

probes > "$TMP/mmb.got"
check "IPv4 TCP from the LAN: the ISP sees wan0's address" grep -qx "tcp4 $WAN4" "$TMP/mmb.got"
check "200 kB echoed through the NAT intact" grep -qx "tcp4 200 kB echoed" "$TMP/mmb.got"
check "IPv4 UDP from the LAN: the ISP sees wan0's address" grep -qx "udp4 $WAN4" "$TMP/mmb.got"
check "ping from the LAN through the NAT is answered" grep -qx "ping4 answered" "$TMP/mmb.got"
check "IPv6 TCP and UDP: routed, the host's own address" \
	bash -c "grep -qx 'tcp6 $HOST6' '$TMP/mmb.got' && grep -qx 'udp6 $HOST6' '$TMP/mmb.got'"
check "ping6 from the LAN is answered" grep -qx "ping6 answered" "$TMP/mmb.got"
check "port forwarding still works: the host sees the ISP" grep -qx "forward $ISP4" "$TMP/mmb.got"
check "nothing else comes in from the WAN (IPv6 to a LAN host)" grep -qx "in6 " "$TMP/mmb.got"
conns=$(in_r mmbctl -j show connections | jq -c '.[]')
check_jq "the LAN's IPv4 connections are one each, mapped to wan0's address" \
	'map(select(.orig.src == "'"$HOST4"'" and .orig.dst == "'"$ISP4"'")) |
	 length >= 3 and all(.[]; .reply.dst == "'"$WAN4"'")' "$conns"
check_jq "the LAN's TCP connection has the rules of both ways (in lan0, masquerade, out wan0)" \
	'map(select(.proto == "tcp" and .orig.src == "'"$HOST4"'" and .orig.dst == "'"$ISP4"'")) |
	 length >= 1 and all(.[]; .rules | length == 3)' "$conns"
check_jq "no connection of the LAN's IPv4 is left unmapped" \
	'map(select(.orig.src == "'"$HOST4"'" and .reply.dst == "'"$HOST4"'")) | length == 0' "$conns"
check "no packet was dropped unmapped or for want of a port" \
	test "$(dev_drops wan0 unmapped)" = 0 -a "$(dev_drops wan0 conn)" = 0

# --- a drop on the way out ends the connection the arriving rule started ----------
# Above the page's "add-stateful out wan0 accept", which a drop of its own
# priority would not beat.
in_r mmbctl add-stateful priority 10 out wan0 udp-dport 9001 drop
start_server "$S" python3 "$TRAFFIC" peer-server udp 9001 1
check "a leaving drop: the ISP hears nothing" \
	bash -c "! ip netns exec '$C' timeout 5 python3 '$TRAFFIC' peer-ask udp '$ISP4' 9001"
stop_server
check_jq "and leaves no connection behind" \
	'map(select(.proto == "udp" and .orig.dport == 9001)) | length == 0' \
	"$(in_r mmbctl -j show connections | jq -c '.[]')"

# --- nft, the same router, mmb off ----------------------------------------------
in_r mmbctl flush
in_r mmbctl disable lan0
in_r mmbctl disable wan0
cat > "$TMP/router.nft" <<NFT
table inet compose {
	chain forward {
		type filter hook forward priority 0; policy drop;
		ct state established,related accept
		iifname "lan0" accept
		iifname "wan0" ct status dnat accept
		iifname "wan0" ip6 daddr $HOST6 tcp dport 80 accept
	}
	chain input {
		type filter hook input priority 0; policy accept;
		iifname "wan0" ct state established,related accept
		iifname "wan0" icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-advert } accept
		iifname "wan0" drop
	}
	chain prerouting {
		type nat hook prerouting priority -100;
		iifname "wan0" ip daddr $WAN4 tcp dport 8080 dnat ip to 192.168.1.10:80
	}
	chain postrouting {
		type nat hook postrouting priority 100;
		oifname "wan0" ip saddr 192.168.1.0/24 MASQ
	}
}
NFT
# A kernel without nft's masquerade (UML's) maps to wan0's address, which
# is what masquerade picks.
sed -i 's/MASQ/masquerade/' "$TMP/router.nft"
in_r nft -c -f "$TMP/router.nft" 2> /dev/null || sed -i "s/masquerade/snat ip to $WAN4/" "$TMP/router.nft"
if in_r nft -f "$TMP/router.nft" 2> "$TMP/nft.err"; then
	probes > "$TMP/nft.got"
	in_r nft delete table inet compose
	if diff "$TMP/nft.got" "$TMP/mmb.got" > "$TMP/diff"; then
		ok "nftables delivers the same packets, with the same sources, as mmb"
	else
		not_ok "nftables delivers the same packets, with the same sources, as mmb"
		diag < "$TMP/diff"
	fi
else
	not_ok "nft loads the same router"
	diag < "$TMP/nft.err"
fi

check "kernel log has no warnings" kernel_log_clean
tap_end
