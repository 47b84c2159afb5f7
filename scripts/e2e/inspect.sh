#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, inspection: "show stats" counts exactly what real traffic
# did, "list -s" shows each rule's counters, and "trace" answers what the
# datapath does with the same packet (verdict, rules, connection, rewritten
# bytes with valid checksums) without changing anything: no counter, no
# connection. The JSON outputs carry the keys docs/json.md documents.
# Topology in lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

stats() { in_r mmbctl -j show stats; }
stat_of() { stats | jq -r "$1"; }
rule_packets() {
	in_r mmbctl -j list | jq -r --argjson h "$1" '.[] | select(.handle == $h) | .stats.packets'
}
# The checksums and fields of a hex IP packet, as traffic.py reads a frame.
pkt_info() {
	python3 -c 'import json, sys
sys.path.insert(0, sys.argv[1])
import traffic
pkt = bytes.fromhex(sys.argv[2])
frame = bytes(12) + (b"\x08\x00" if pkt[0] >> 4 == 4 else b"\x86\xdd") + pkt
print(json.dumps(traffic.parse_ip(frame)))' "$E2E_DIR" "$1"
}

in_r mmbctl enable r0
in_r mmbctl enable r1
# The connection the trace checks use lives till the end, however slow the
# machine (30 s unreplied was less than a loaded TCG guest takes from it
# to the schema checks).
in_r mmbctl set timeout udp-unreplied 3600
in_r mmbctl add udp-dport 7001 drop > /dev/null			# 1
in_r mmbctl add udp-dport 7002 mod ip-dscp 10 mod udp-dport 7012 > /dev/null	# 2
# A reflexive ACL for UDP to 7003: the client's datagrams start
# connections, the server's replies pass only as theirs.
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 udp-dport 7003 accept > /dev/null	# 3
in_r mmbctl add ip-daddr 10.0.1.0/24 ip-proto udp drop > /dev/null	# 4

# --- show stats and list -s: exact counts of real traffic ------------------
s0=$(stats)
check "UDP to 7001: 20 datagrams sent (all dropped)" \
	in_c python3 "$TRAFFIC" udp-send 10.0.2.2 7001 20 100
start_server "$S" python3 "$TRAFFIC" udp-sink 7012 15 "$CEILING"
check "UDP to 7002: 15 datagrams sent" in_c python3 "$TRAFFIC" udp-send 10.0.2.2 7002 15 100
server_done
check "UDP to 7002: all 15 arrive at 7012, rewritten" server_ok
s1=$(stats)
delta() { echo $(($(jq -r "$1" <<< "$s1") - $(jq -r "$1" <<< "$s0"))); }
check "show stats: 20 more drops by a rule ($(delta .drops.rule))" test "$(delta .drops.rule)" = 20
check "show stats: dropped counts them too ($(delta .dropped))" test "$(delta .dropped)" = 20
check "show stats: 15 more rewritten ($(delta .rewritten))" test "$(delta .rewritten)" = 15
check "show stats: at least 35 more packets ($(delta .packets))" test "$(delta .packets)" -ge 35
check "show stats: two interfaces" test "$(jq .interfaces <<< "$s1")" = 2
check "show stats sums show interfaces (drops by a rule)" \
	test "$(in_r mmbctl -j show interfaces | jq '[.[].stats.drops.rule] | add')" = \
	"$(stat_of .drops.rule)"
check "show stats: no flow cache with two masks" test "$(stat_of 'has("flow_cache")')" = false
check "show stats, text: one line of counters" \
	bash -c "ip netns exec $R mmbctl show stats | grep -Eq '^interfaces 2 packets [0-9]+ bytes [0-9]+ dropped [0-9]+ rule [0-9]+ fragment 0 header 0 nomem 0 conn 0 unmapped 0 rewritten 15 not-ip [0-9]+ malformed 0 offloaded 0$'"
check "show stats, text: the connection table's line" \
	bash -c "ip netns exec $R mmbctl show stats | grep -Eq '^connections 0 created 0 evicted 0 refused 0 expired 0 ended 0 nomem 0 nat-full 0 spoofed 0 wrong-iif 0 many-rules 0 capped 0$'"
check "list: no counters without -s" \
	bash -c "! ip netns exec $R mmbctl list | grep -q packets"
check "list -s: rule 1 counted the 20 datagrams" \
	bash -c "ip netns exec $R mmbctl -s list | grep -Eq '^add udp-dport 7001 drop # handle 1 packets 20 bytes 2[0-9]{3}$'"
check "list -s: rule 2 counted the 15" \
	bash -c "ip netns exec $R mmbctl -s list | grep -q '# handle 2 packets 15 bytes'"

# --- trace: the same verdicts, nothing changed ---------------------------------
before=$(stats)
rules_before=$(in_r mmbctl -j list | jq -c '[.[].stats]')
t=$(in_r mmbctl -j trace ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-dport 7001)
check_jq "trace of a datagram to 7001: dropped by rule 1 alone" \
	'.[0].verdict == "drop" and ([.[0].rules[] | [.handle, .how]] == [[1, "matched"]]) and
	 .[0].rules[0].rule == "add udp-dport 7001 drop" and (.[0] | has("rewritten") | not)' "$t"
t6=$(in_r mmbctl -j trace ip6-saddr fd00:1::2 ip6-daddr fd00:2::2 udp-dport 7001)
check_jq "trace, IPv6: rule 1 drops it too" \
	'.[0].verdict == "drop" and ([.[0].rules[].handle] == [1])' "$t6"
hex=$(jq -r .packet.hex <<< "$t")
th=$(in_r mmbctl -j trace hex "$hex")
check "trace hex of the same bytes answers the same" \
	test "$(jq -c 'del(.packet)' <<< "$th")" = "$(jq -c 'del(.packet)' <<< "$t")"
check_jq "the packet trace made has valid checksums" \
	'.[0].ip_csum and .[0].l4_csum and .[0].dport == 7001 and .[0].src == "10.0.1.2"' \
	"$(pkt_info "$hex")"

t=$(in_r mmbctl -j trace in r0 ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-dport 7002 ip-dscp 0)
check_jq "trace of a datagram to 7002: passed, rewritten by rule 2" \
	'.[0].verdict == "pass" and ([.[0].rules[].handle] == [2]) and (.[0] | has("rewritten"))' "$t"
check_jq "trace: the rewritten packet has DSCP 10, port 7012, valid checksums" \
	'.[0].tos == 40 and .[0].dport == 7012 and .[0].ip_csum and .[0].l4_csum' \
	"$(pkt_info "$(jq -r .rewritten.hex <<< "$t")")"

t=$(in_r mmbctl -j trace ip-saddr 10.0.2.2 ip-daddr 10.0.1.2 udp-sport 7003 udp-dport 40003)
check_jq "trace of a reply with no connection: dropped by rule 4" \
	'.[0].verdict == "drop" and ([.[0].rules[].handle] == [4]) and (.[0] | has("connection") | not)' "$t"
t=$(in_r mmbctl -j trace ip-saddr 10.0.1.2 ip-daddr 10.0.2.2 udp-sport 40003 udp-dport 7003)
check_jq "trace of the client's datagram: accepted, a connection would start" \
	'.[0].verdict == "accept" and .[0].conn_new and ([.[0].rules[] | [.handle, .how]] == [[3, "stateful"]])' \
	"$t"
check "trace changed no counter of the namespace" \
	test "$(stats | jq -c 'del(.packets, .bytes, .not_ip)')" = \
	"$(jq -c 'del(.packets, .bytes, .not_ip)' <<< "$before")"
check "trace changed no rule's counters" \
	test "$(in_r mmbctl -j list | jq -c '[.[].stats]')" = "$rules_before"
check "trace started no connection" test "$(stat_of .connections.count)" = 0

# Now the real datagram: its connection lets the server's reply through.
check "the client's datagram to 7003 is sent" \
	in_c python3 "$TRAFFIC" udp-send 10.0.2.2 7003 1 10 0 10.0.1.2 40003
check "it started a connection" wait_for "$CEILING" \
	test "$(stat_of .connections.count)" = 1
t=$(in_r mmbctl -j trace ip-saddr 10.0.2.2 ip-daddr 10.0.1.2 udp-sport 7003 udp-dport 40003)
check_jq "trace of the reply now: accepted as the connection's" \
	'.[0].verdict == "accept" and .[0].direction == "reply" and
	 ([.[0].rules[] | [.handle, .how]] == [[3, "connection"], [4, "matched"]]) and
	 .[0].connection.orig.sport == 40003 and .[0].connection.orig.dport == 7003' "$t"
pk=$(in_r mmbctl -j show connections | jq -c '[.[0].orig.packets, .[0].reply.packets, .[0].state]')
in_r mmbctl trace ip-saddr 10.0.2.2 ip-daddr 10.0.1.2 udp-sport 7003 udp-dport 40003 > /dev/null
check "trace left the connection as it was ($pk)" \
	test "$(in_r mmbctl -j show connections | jq -c '[.[0].orig.packets, .[0].reply.packets, .[0].state]')" = "$pk"
check "trace, text: the rule, the connection, the verdict" \
	bash -c "ip netns exec $R mmbctl trace ip-saddr 10.0.2.2 ip-daddr 10.0.1.2 udp-sport 7003 udp-dport 40003 |
		grep -q '^rule 3 applies as the connection.s: add-stateful ip-saddr 10.0.1.0/24 udp-dport 7003 accept$' &&
		ip netns exec $R mmbctl trace ip-saddr 10.0.2.2 ip-daddr 10.0.1.2 udp-sport 7003 udp-dport 40003 |
		grep -q '^verdict accept$'"

# --- trace: bad input is refused and points at the word --------------------------
refused "trace: not IP" 1 "not an IPv4 or IPv6 packet" in_r mmbctl trace hex 1234
refused "trace: odd hex" 2 "pairs of digits" in_r mmbctl trace hex 450
refused "trace: a field mmb makes" 2 "mmb makes ip-len" in_r mmbctl trace ip-len 40
refused "trace: fields of both families" 2 "does not go with" \
	in_r mmbctl trace ip-saddr 10.0.0.1 ip6-hop-limit 3
refused "trace: unknown interface" 2 'no interface "nosuch"' in_r mmbctl trace in nosuch udp-dport 1
big=$(python3 -c 'import struct, sys
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 9000, 0, 0, 64, 17, 0,
                 bytes([10, 0, 1, 2]), bytes([10, 0, 2, 2]))
sys.stdout.write((ip + struct.pack("!HHHH", 1000, 7002, 8980, 0) + bytes(8972)).hex())')
t=$(in_r mmbctl -j trace hex "$big")
check_jq "trace of a 9000-byte packet (a jumbo frame's): rewritten, both copies whole" \
	'.[0].verdict == "pass" and (.[0].packet.hex | length) == 18000 and
	 (.[0].rewritten.hex | length) == 18000' "$t"
t=$(in_r mmbctl -j trace hex 4500)
check_jq "trace of a truncated header: malformed, passed" \
	'.[0].parse == "malformed" and .[0].verdict == "pass" and (.[0].rules == [])' "$t"

# --- the JSON schema of docs/json.md ----------------------------------------
keys() { jq -c "$1" 2>&1; }
check "schema: show stats" test "$(stats | keys keys_unsorted)" = \
	'["interfaces","packets","bytes","dropped","drops","rewritten","not_ip","malformed","offloaded","log_suppressed","connections"]'
check "schema: show interfaces" test "$(in_r mmbctl -j show interfaces | keys '.[0] | [keys_unsorted, (.stats | keys_unsorted)]')" = \
	'[["ifindex","ifname","enabled","stats"],["packets","bytes","dropped","drops","rewritten","not_ip","malformed","offloaded"]]'
check "schema: show interfaces, an enabled name" test "$(in_r mmbctl -j show interfaces | keys '.[-1] | keys_unsorted')" = \
	'["enabled","attached","failed"]'
check "schema: list" test "$(in_r mmbctl -j list | keys '.[0] | keys_unsorted')" = \
	'["handle","rule","stateful","priority","stats","matches","targets"]'
check "schema: trace" test "$(in_r mmbctl -j trace ip-saddr 10.0.2.2 ip-daddr 10.0.1.2 udp-sport 7003 udp-dport 40003 | keys keys_unsorted)" = \
	'["packet","parse","rules","direction","related","connection","conn_new","conn_spoofed","verdict"]'
check "schema: trace with a rewrite" test "$(in_r mmbctl -j trace udp-dport 7002 | keys '[keys_unsorted, (.rewritten | keys_unsorted), (.rules[0] | keys_unsorted)]')" = \
	'[["packet","parse","rules","conn_new","conn_spoofed","verdict","rewritten"],["text","hex"],["handle","how","rule"]]'
check "schema: show tables" test "$(in_r mmbctl -j show tables | keys '.[0] | keys_unsorted')" = \
	'["index","fields","entries","rules","hits","buckets","chain_max","priority"]'
check "schema: show connections" test "$(in_r mmbctl -j show connections | keys '.[0] | [keys_unsorted, (.orig | keys_unsorted)]')" = \
	'[["proto","state","timeout","orig","reply","assured","offloaded","rules"],["src","dst","sport","dport","packets","bytes"]]'
check "schema: show settings" test "$(in_r mmbctl -j show settings | keys '[keys_unsorted, (.stats | keys_unsorted)]')" = \
	'[["conn_max","tcp_loose","rp_filter","connections","conn_size","timeouts","stats"],["created","evicted","refused","expired","ended","nomem","nat_full","spoofed","wrong_iif","many_rules","capped"]]'
check "schema: add" test "$(in_r mmbctl -j add udp-dport 7999 drop | keys keys_unsorted)" = '["handle"]'

check "kernel log clean" kernel_log_clean
tap_end
