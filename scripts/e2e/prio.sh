#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, rule priorities (issue 39): an ordered policy, a block
# list over services with an exception inside a blocked range and a
# default drop, loaded in mmb with priorities and in nftables (a netdev
# ingress chain, first match) with the same order; the same 24 datagrams
# (IPv4 and IPv6, three sources, four ports) through each, and the set
# delivered to the server must be the same, packet for packet, and the one
# first match gives (accept-beats-drop alone would deliver others). A
# rewrite below the verdict is not applied, one above it is. Then the nft
# idiom "ct state established,related accept" first: a stateful service
# below the block list whose connections rank above it, against a rule
# that drops the server's replies. -c -f checks a file and applies nothing.
# Prints TAP.
#
#   topology of lib.sh; the client has more addresses:
#   c0 10.0.1.2 .10 .11 (10.0.1.8/29 is blocked, .11 the exception)
#      fd00:1::2 ::a ::b (fd00:1::8/125 blocked, ::b the exception)
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

ip -n "$C" addr add 10.0.1.10/24 dev c0
ip -n "$C" addr add 10.0.1.11/24 dev c0
ip -n "$C" addr add fd00:1::a/64 dev c0 nodad
ip -n "$C" addr add fd00:1::b/64 dev c0 nodad

POLICY=$TMP/policy.mmb
cat > "$POLICY" <<'EOF'
flush
# the exceptions, above everything
add priority 300 ip-saddr 10.0.1.11 accept
add priority 300 ip6-saddr fd00:1::b accept
# a port nobody may reach, but the exceptions
add priority 250 udp-dport 7 drop
# the block list
add priority 200 ip-saddr 10.0.1.8/29 drop
add priority 200 ip6-saddr fd00:1::8/125 drop
# the services
add priority 100 udp-dport 443 accept
add priority 100 udp-dport 53 accept
# a mark no service packet reaches (below their accept), one all of .2's DNS gets
add priority 50 udp-dport 443 mod ip-dscp 10
add priority 400 ip-saddr 10.0.1.2 udp-dport 53 mod ip-dscp 12
# the default: drop the rest of the server's UDP
add ip-daddr 10.0.2.2 ip-proto udp drop
add ip6-daddr fd00:2::2 ip6-next udp drop
EOF

NFT=$TMP/policy.nft
cat > "$NFT" <<'EOF'
table netdev prio {
	chain in {
		type filter hook ingress device r0 priority 0; policy accept;
		ip saddr 10.0.1.11 accept
		ip6 saddr fd00:1::b accept
		udp dport 7 drop
		ip saddr 10.0.1.8/29 drop
		ip6 saddr fd00:1::8/125 drop
		udp dport 443 accept
		udp dport 53 accept
		ip daddr 10.0.2.2 meta l4proto udp drop
		ip6 daddr fd00:2::2 meta l4proto udp drop
	}
}
EOF

# The probes: "src dst dport sport"; sports tell them apart.
probes() {
	local sport=40000 src dport

	for src in 10.0.1.2 10.0.1.10 10.0.1.11 fd00:1::2 fd00:1::a fd00:1::b; do
		for dport in 443 53 9999 7; do
			sport=$((sport + 1))
			case $src in
			*:*) echo "$src fd00:2::2 $dport $sport" ;;
			*) echo "$src 10.0.2.2 $dport $sport" ;;
			esac
		done
	done
}

# What first match delivers: the exception everywhere; .2 the services.
WANT=$(probes | awk '$1 ~ /(\.11|::b)$/ || ($1 ~ /(\.2|::2)$/ && ($3 == 443 || $3 == 53))' |
	awk '{ print $1, $3 }' | sort | tr '\n' ';')

# send_probes NAME: every probe, then a marker (delivered by both
# policies) that ends the capture; the probes delivered, "src dport" each,
# sorted, go to $TMP/NAME.got, their lines to $TMP/NAME.lines.
send_probes() {
	local src dst dport sport

	# The marker ends it; its own limit only bounds a run gone wrong (one
	# process a probe: a slow guest takes minutes).
	capture_on "$S" s0 17 1000 600
	while read -r src dst dport sport; do
		in_c python3 "$TRAFFIC" udp-send "$dst" "$dport" 1 32 0 "$src" "$sport"
	done < <(probes)
	in_c python3 "$TRAFFIC" udp-send 10.0.2.2 53 1 32 0 10.0.1.2 49999
	wait_for "$CEILING" grep -q '"sport": 49999' "$TMP/s0.cap"
	capture_stop s0 | jq -c 'select(.sport != 49999)' > "$TMP/$1.lines"
	jq -r '"\(.src) \(.dport)"' "$TMP/$1.lines" | sort | tr '\n' ';' > "$TMP/$1.got"
}

# --- mmb --------------------------------------------------------------------

for dev in r0 r1; do
	in_r mmbctl enable "$dev"
done
check "mmbctl -f loads the ordered policy" in_r mmbctl -f "$POLICY"
check_jq "list shows each rule's priority, save writes it back" \
	'(map(.priority) | sort) == [0,0,50,100,100,200,200,250,300,300,400]' \
	"$(in_r mmbctl -j list | jq -c '.[]')"
check "save and -f of it give the same rules" \
	bash -c "ip netns exec $R mmbctl save > $TMP/saved && ip netns exec $R mmbctl list > $TMP/l1 &&
		 ip netns exec $R mmbctl -f $TMP/saved && ip netns exec $R mmbctl list > $TMP/l2 &&
		 diff <(sed 's/ # handle.*//' $TMP/l1) <(sed 's/ # handle.*//' $TMP/l2) &&
		 grep -q '^add priority 300 ip-saddr 10.0.1.11 accept' $TMP/l2"
check "show tables gives each table's priority, highest first" \
	bash -c "ip netns exec $R mmbctl -j show tables | jq -e '[.[].priority] as \$p | \$p == (\$p | sort | reverse) and \$p[0] == 400'"

send_probes mmb
if [ "$(cat "$TMP/mmb.got")" = "$WANT" ]; then
	ok "mmb delivers what first match does (block list over services, the exception, the default)"
else
	not_ok "mmb delivers what first match does"
	{ echo "wanted: $WANT"; echo "got:    $(cat "$TMP/mmb.got")"; } | diag
fi
check_all "a rewrite below the accept does not apply; one above it does (IPv4)" \
	'if .src == "10.0.1.2" and .dport == 53 then .tos == 48 else .tos == 0 end' 6 \
	"$(jq -c 'select(.v == 4)' "$TMP/mmb.lines")"
check_all "the rewritten and the others have valid IPv4 header checksums" '.ip_csum' 6 \
	"$(jq -c 'select(.v == 4)' "$TMP/mmb.lines")"

t=$(in_r mmbctl -j trace ip-saddr 10.0.1.10 ip-daddr 10.0.2.2 udp-dport 443)
check_jq "trace: a blocked source's packet to the service: the block list drops, the rest is cut off" \
	'.[0].verdict == "drop" and
	 ([.[0].rules[] | select(.how == "matched") | .rule] == ["add priority 200 ip-saddr 10.0.1.8/29 drop"]) and
	 ([.[0].rules[] | select(.how == "cut")] | length) == 3' "$t"
t=$(in_r mmbctl -j trace ip-saddr 10.0.1.11 ip-daddr 10.0.2.2 udp-dport 7)
check_jq "trace: the exception's packet to port 7: accepted over the port's drop" \
	'.[0].verdict == "accept" and
	 ([.[0].rules[] | select(.how == "matched") | .rule] == ["add priority 300 ip-saddr 10.0.1.11 accept"])' "$t"

# --- nft, the same order, mmb off -------------------------------------------

in_r mmbctl flush
for dev in r0 r1; do
	in_r mmbctl disable "$dev"
done
if in_r nft -f "$NFT"; then
	send_probes nft
	in_r nft delete table netdev prio
	if [ "$(cat "$TMP/nft.got")" = "$(cat "$TMP/mmb.got")" ]; then
		ok "nftables's netdev ingress chain delivers the same packets as mmb"
	else
		not_ok "nftables's netdev ingress chain delivers the same packets as mmb"
		{ echo "nft: $(cat "$TMP/nft.got")"; echo "mmb: $(cat "$TMP/mmb.got")"; } | diag
	fi
else
	not_ok "nft loads the same policy" </dev/null
fi

# --- the established-first idiom ----------------------------------------------

for dev in r0 r1; do
	in_r mmbctl enable "$dev"
done
STATEFUL=$TMP/stateful.mmb
cat > "$STATEFUL" <<'EOF'
flush
# ct state established,related accept (1000), first
# ip saddr 10.0.1.8/29 drop (200); and a rule that would drop the server's replies
add priority 200 ip-saddr 10.0.1.8/29 drop
add priority 200 ip-saddr 10.0.2.2 tcp-sport 8080 drop
# tcp dport 8080 ct state new accept (100); its connections at 1000
add-stateful priority 100 conn-priority 1000 tcp-dport 8080 accept
# policy drop, for TCP to the server
add ip-daddr 10.0.2.2 ip-proto tcp drop
EOF
check "mmbctl -f loads the stateful policy" in_r mmbctl -f "$STATEFUL"
check_jq "list shows the connection priority" \
	'map(select(.stateful))[0] | .priority == 100 and .conn_priority == 1000' \
	"$(in_r mmbctl -j list | jq -c '.[]')"
start_server "$S" python3 "$TRAFFIC" peer-server tcp 8080 1
check "a client's connection works both ways over the reply-dropping rule" \
	in_c python3 "$TRAFFIC" peer-ask tcp 10.0.2.2 8080 0 10.0.1.2
BLOCK_BEFORE=$(in_r mmbctl -j list | jq '.[] | select(.rule == "priority 200 ip-saddr 10.0.1.8/29 drop") | .stats.packets')
check_fails "a blocked client's SYN opens nothing" \
	timeout 3 ip netns exec "$C" python3 "$TRAFFIC" peer-ask tcp 10.0.2.2 8080 0 10.0.1.10
check_jq "the block list dropped it, and only the first client has a connection" \
	"(.[0] > $BLOCK_BEFORE) and .[1] == 1" \
	"$(in_r mmbctl -j list | jq '.[] | select(.rule == "priority 200 ip-saddr 10.0.1.8/29 drop") | .stats.packets'; in_r mmbctl -j show connections | jq length)"
# The same with the connections at the service's priority: replies dropped.
sed -i 's/ conn-priority 1000//' "$STATEFUL"
check "the policy again, connections at the rule's priority" in_r mmbctl -f "$STATEFUL"
check_fails "then the server's replies are dropped: no connection completes" \
	timeout 3 ip netns exec "$C" python3 "$TRAFFIC" peer-ask tcp 10.0.2.2 8080 0 10.0.1.2
stop_server

# --- -c -f: check, apply nothing ---------------------------------------------

in_r mmbctl list > "$TMP/before"
check "-c -f of a good file exits 0" in_r mmbctl -c -f "$POLICY"
check "... and changes nothing" bash -c "ip netns exec $R mmbctl list | diff $TMP/before -"
printf 'flush\nadd priority 5 tcp-dport 80 accept\nadd priority 6 ip-saddr 10.0.0.0/8 mod tcp-dport 70000\n' > "$TMP/bad.mmb"
refused "-c -f of a bad file points at the line and word" 2 "bad.mmb:3:" in_r mmbctl -c -f "$TMP/bad.mmb"
printf 'flush\nenable lo\n' > "$TMP/baddev.mmb"
refused "-c -f finds a device mmb cannot take (the kernel checks)" 1 "baddev.mmb:2:" \
	in_r mmbctl -c -f "$TMP/baddev.mmb"
check "... and still nothing changed" bash -c "ip netns exec $R mmbctl list | diff $TMP/before -"
refused "-c without -f is a usage error" 2 "goes with -f" in_r mmbctl -c list

check "no kernel warnings" kernel_log_clean
tap_end
