#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmbctl import without a kernel: nft -j rulesets (tests/import/*.json,
# made by tests/import/gen.sh in a VM, the netdev chain's "dev" added as
# nft 1.0.6 leaves it out) translated by import -n and compared with the
# expected -f text; every refused construct's message; malformed, wrong
# and huge inputs. Prints TAP.
#
# usage: tests/import.sh PATH_TO_MMBCTL
set -u
MMBCTL=$(realpath "$1")
DIR=$(dirname "$0")/import
n=0
failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

result() {	# result OK DESC [DIAG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - import: $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - import: $2"
		printf '%s\n' "${3:-}" | sed 's/^/#   /'
	fi
}

# The translations of the fixtures, word for word.
for f in "$DIR"/*.json; do
	want=${f%.json}.want
	out=$("$MMBCTL" import -n - < "$f" 2>&1)
	status=$?
	[ "$status" -eq 0 ] && [ "$out" = "$(cat "$want")" ]
	result $? "$(basename "$f") translates as $(basename "$want")" \
		"exit $status; diff:
$(diff <(printf '%s\n' "$out") "$want")"
done

# One ruleset around CHAIN (a chain object's members) and RULES (rule
# objects of chain "c", table "t"); SETS: more objects.
ruleset() {	# ruleset FAMILY CHAIN_MEMBERS RULES [OBJECTS]
	printf '{"nftables":[{"metainfo":{"version":"1.0.6","json_schema_version":1}},'
	printf '{"table":{"family":"%s","name":"t","handle":1}},' "$1"
	printf '%s' "${4:+$4,}"
	printf '{"chain":{"family":"%s","table":"t","name":"c","handle":1%s}}' "$1" "${2:+,$2}"
	printf '%s]}\n' "${3:+,$3}"
}

rule() {	# rule FAMILY HANDLE EXPRS...: a rule of chain c
	local fam=$1 h=$2
	shift 2
	local IFS=,
	printf '{"rule":{"family":"%s","table":"t","chain":"c","handle":%s,"expr":[%s]}}' \
		"$fam" "$h" "$*"
}

NETDEV='"type":"filter","hook":"ingress","prio":0,"dev":"lo","policy":"accept"'
PRE='"type":"filter","hook":"prerouting","prio":0,"policy":"drop"'

# t DESC WANT_STATUS WANT_OUTPUT JSON: import -n of JSON; stdout and
# stderr together compared.
t() {
	local out status
	out=$(printf '%s' "$4" | "$MMBCTL" import -n - 2>&1)
	status=$?
	[ "$status" -eq "$2" ] && [ "$out" = "$3" ]
	result $? "$1" "exit $status, wanted $2; got:
$out"
}

# refused DESC EXPR MESSAGE: a netdev rule with EXPR then accept.
refused() {
	t "refused: $1" 2 "Error: table netdev t, chain c, rule handle 7: $2: $3" \
		"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$2" '{"accept":null}')")"
}

M='{"match":{"op":"==","left":'
refused "meta length" "$M"'{"meta":{"key":"length"}},"right":5}}' "meta length has no mmb field"
refused "ip frag-off" "$M"'{"payload":{"protocol":"ip","field":"frag-off"}},"right":0}}' \
	"ip frag-off has no mmb field"
refused "sctp" "$M"'{"payload":{"protocol":"sctp","field":"dport"}},"right":5}}' \
	"sctp dport has no mmb field"
refused "raw payload" "$M"'{"payload":{"base":"nh","offset":0,"len":8}},"right":5}}' \
	"raw payload expressions have no mmb field"
refused "th without a protocol" "$M"'{"payload":{"protocol":"th","field":"dport"}},"right":53}}' \
	"th dport needs meta l4proto tcp or udp first (mmb has ports of TCP and UDP only)"
refused "an interface wildcard" "$M"'{"meta":{"key":"iifname"}},"right":"eth*"}}' \
	"an interface name without wildcards expected"
refused "an unknown set" "$M"'{"payload":{"protocol":"ip","field":"saddr"}},"right":"@nope"}}' \
	"no set @nope in table netdev t"
refused "a range of an address !=" '{"match":{"op":"!=","left":{"payload":{"protocol":"ip","field":"saddr"}},"right":{"range":["10.0.0.1","10.0.0.9"]}}}' \
	"!= of an address range has no mmb match"
refused "a value too wide" "$M"'{"payload":{"protocol":"ip","field":"ttl"}},"right":300}}' \
	"not a value of this field"
refused "< on an address" '{"match":{"op":"<","left":{"payload":{"protocol":"ip","field":"saddr"}},"right":"10.0.0.1"}}' \
	"< compares a number field with a number"
refused "a bitwise and of ports" "$M"'{"&":[{"payload":{"protocol":"tcp","field":"dport"}},255]},"right":1}}' \
	"a bitwise and has an mmb match on TCP flags and meta mark only"
refused "a mark value outside its mask" "$M"'{"&":[{"meta":{"key":"mark"}},240]},"right":1}}' \
	"a value with bits outside its mask never matches"
refused "a mark compared under a mask with <" '{"match":{"op":"<","left":{"&":[{"meta":{"key":"mark"}},240]},"right":16}}' \
	"meta mark & MASK compares with == or != only"
refused "ct state at netdev ingress" '{"match":{"op":"in","left":{"ct":{"key":"state"}},"right":"new"}}' \
	"ct state at netdev ingress: nf_conntrack has seen no packet there yet"
refused "ct mark" "$M"'{"ct":{"key":"mark"}},"right":1}}' "ct mark has no mmb meaning"
refused "log" '{"log":{"prefix":"x"}}' 'the statement "log" has no mmb meaning'
refused "limit" '{"limit":{"rate":10,"per":"second"}}' 'the statement "limit" has no mmb meaning'
refused "a named counter" '{"counter":"c1"}' \
	"a named counter has no mmb meaning (each mmb rule counts its own packets)"
refused "an iptables-nft xt match" '{"xt":{"type":"match","name":"conntrack"}}' \
	"an iptables-nft xt match or target has no mmb meaning (translate it with iptables-restore-translate)"
refused "meta nfproto in a netdev chain" "$M"'{"meta":{"key":"nfproto"}},"right":"ipv4"}}' \
	"meta nfproto in a netdev chain is netdev's, never ipv4 or ipv6 (nft refuses it there): say meta protocol ip or ip6"
refused "meta protocol of no ethertype" "$M"'{"meta":{"key":"protocol"}},"right":"x"}}' \
	"not an ethertype (ip, ip6, arp, vlan ... or a 16-bit number)"
refused "a vmap" '{"vmap":{"key":{"payload":{"protocol":"ip","field":"saddr"}},"data":"@m"}}' \
	'the statement "vmap" has no mmb meaning'
t "refused: a statement after the verdict, named" 2 \
	'Error: table netdev t, chain c, rule handle 7: {"accept":null}: a statement after the verdict' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 '{"drop":null}' '{"accept":null}')")"
t "refused: a jump to a chain not there" 2 \
	'Error: table netdev t, chain c, rule handle 7: {"jump":{"target":"x"}}: no chain to jump to' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 '{"jump":{"target":"x"}}')")"
t "refused: a map used as a set" 2 \
	"Error: table netdev t, chain c, rule handle 7: $M"'{"payload":{"protocol":"ip","field":"saddr"}},"right":"@m"}}: @m is a map: maps have no mmb meaning' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M"'{"payload":{"protocol":"ip","field":"saddr"}},"right":"@m"}}' '{"accept":null}')" \
	'{"map":{"family":"netdev","table":"t","name":"m","type":"ipv4_addr","map":"verdict"}}')"

# Statements: reject, meta mark set, a bare counter, comments.
TCP23='{"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":23}}'
UDP9='{"match":{"op":"==","left":{"payload":{"protocol":"udp","field":"dport"}},"right":9}}'
SRC4='{"match":{"op":"==","left":{"payload":{"protocol":"ip","field":"saddr"}},"right":{"prefix":{"addr":"10.9.0.0","len":16}}}}'
SRC6='{"match":{"op":"==","left":{"payload":{"protocol":"ip6","field":"saddr"}},"right":{"prefix":{"addr":"2001:db8:9::","len":48}}}}'
MARKSET='{"mangle":{"key":{"meta":{"key":"mark"}},"value":'
t "reject, mark, counter and comments translate" 0 '# mmbctl import of -: 12 rules, first match as priorities
flush
add priority 12 in lo tcp-dport 23 reject with tcp-reset comment "no \"telnet\" \$here"
add priority 11 in lo udp-dport 9 reject with port-unreachable
add priority 10 in lo udp-dport 9 reject with port-unreachable
add priority 9 in lo ip-saddr 10.9.0.0/16 reject with host-unreachable
add priority 8 in lo ip6-saddr 2001:db8:9::/48 reject with net-unreachable
add priority 7 in lo tcp-dport 23 reject with admin-prohibited
add priority 6 in lo meta-mark 0x10/0xf0 accept
add priority 5 in lo meta-mark != 3 count
add priority 4 in lo udp-dport 9 mod meta-mark 0x7 comment "voip"
add priority 3 in lo udp-dport 9 accept comment "voip"
add priority 2 in lo tcp-dport 23 mod meta-mark 0x100/0xff00
add priority 1 in lo tcp-dport 23 mod meta-mark 0x4/0x4
enable lo' "$(ruleset netdev "$NETDEV" "$(rule netdev 2 "$TCP23" '{"reject":{"type":"tcp reset"}}' |
	sed 's/}}$/,"comment":"no \\"telnet\\" $here"}}/'),$(
	rule netdev 3 "$UDP9" '{"reject":null}'),$(
	rule netdev 4 "$UDP9" '{"reject":{"type":"icmpx","expr":"port-unreachable"}}'),$(
	rule netdev 5 "$SRC4" '{"reject":{"type":"icmp","expr":"host-unreachable"}}'),$(
	rule netdev 6 "$SRC6" '{"reject":{"type":"icmpv6","expr":"no-route"}}'),$(
	rule netdev 7 "$TCP23" '{"reject":{"type":"icmpx","expr":"admin-prohibited"}}'),$(
	rule netdev 8 '{"match":{"op":"==","left":{"&":[{"meta":{"key":"mark"}},240]},"right":16}}' \
		'{"counter":{"packets":0,"bytes":0}}' '{"accept":null}'),$(
	rule netdev 9 '{"match":{"op":"!=","left":{"meta":{"key":"mark"}},"right":3}}' \
		'{"counter":{"packets":0,"bytes":0}}'),$(
	rule netdev 10 "$UDP9" "$MARKSET"'7}}' '{"accept":null}' | sed 's/}}$/,"comment":"voip"}}/'),$(
	rule netdev 11 "$TCP23" "$MARKSET"'{"|":[{"&":[{"meta":{"key":"mark"}},4294902271]},256]}}}'),$(
	rule netdev 12 "$TCP23" "$MARKSET"'{"|":[{"meta":{"key":"mark"}},4]}}}')")"
t "refused: reject with icmp on a rule of both families" 2 \
	'Error: table netdev t, chain c, rule handle 3: {"reject":{"type":"icmp","expr":"host-unreachable"}}: reject with icmp on a rule that does not match IPv4 only: say the family (e.g. meta nfproto ipv4)' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$UDP9" '{"reject":{"type":"icmp","expr":"host-unreachable"}}')")"
t "refused: a reject code mmb does not answer" 2 \
	'Error: table netdev t, chain c, rule handle 3: {"reject":{"type":"icmp","expr":"prot-unreachable"}}: reject with icmp prot-unreachable has no mmb answer (mmb answers tcp-reset, port-unreachable, host-unreachable, net-unreachable, admin-prohibited)' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$SRC4" '{"reject":{"type":"icmp","expr":"prot-unreachable"}}')")"
t "refused: meta mark set meta mark ^ VALUE" 2 \
	'Error: table netdev t, chain c, rule handle 3: {"mangle":{"key":{"meta":{"key":"mark"}},"value":{"^":[{"meta":{"key":"mark"}},4]}}}: meta mark set meta mark ^ VALUE (no bit cleared) has no mmb form: mod meta-mark clears the bits of a mask first' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$UDP9" "$MARKSET"'{"^":[{"meta":{"key":"mark"}},4]}}}')")"
t "refused: a mangle of another key" 2 \
	'Error: table netdev t, chain c, rule handle 3: {"mangle":{"key":{"meta":{"key":"priority"}},"value":1}}: a mangle of anything but meta mark has no mmb meaning' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$UDP9" '{"mangle":{"key":{"meta":{"key":"priority"}},"value":1}}')")"
t "refused: meta mark matched after a meta mark set" 2 \
	'Error: table netdev t, chain c, rule handle 4: {"match":{"op":"==","left":{"meta":{"key":"mark"}},"right":7}}: meta mark after a meta mark set in the same chain: mmb'"'"'s rules see the mark a packet came with, not one another rule sets' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$UDP9" "$MARKSET"'7}}'),$(
		rule netdev 4 '{"match":{"op":"==","left":{"meta":{"key":"mark"}},"right":7}}' '{"drop":null}')")"
t "refused: a comment with a newline" 2 \
	'Error: table netdev t, chain c, rule handle 3: {"family":"netdev","table":"t","chain":"c","handle":3,"expr":[{"match":{"op":"==","left":{"payload":{"protocol":"udp","field":"dport"}},"right":9}},{"drop":null}],"comment":"a\nb"}: a comment with a control character (mmb keeps printable text only)' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$UDP9" '{"drop":null}' | sed 's/}}$/,"comment":"a\\nb"}}/')")"
t "refused: a comment with a C1 control character (U+009B, a terminal's CSI)" 2 \
	'Error: table netdev t, chain c, rule handle 3: {"family":"netdev","table":"t","chain":"c","handle":3,"expr":[{"match":{"op":"==","left":{"payload":{"protocol":"udp","field":"dport"}},"right":9}},{"drop":null}],"comment":"a'$'\xc2\x9b''b"}: a comment with a control character (mmb keeps printable text only)' \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 3 "$UDP9" '{"drop":null}' | sed 's/}}$/,"comment":"a\\u009bb"}}/')")"

# Chains.
t "refused: an input chain" 2 'Error: table ip t, chain c: hook input: mmb classifies what devices receive, before routing (prerouting, netdev ingress)' \
	"$(ruleset ip '"type":"filter","hook":"input","prio":0,"policy":"drop"')"
t "refused: a nat chain" 2 'Error: table ip t, chain c: a base chain of type nat: mmb translates type filter' \
	"$(ruleset ip '"type":"nat","hook":"prerouting","prio":0,"policy":"accept"' "$(rule ip 2 '{"accept":null}')")"
t "refused: netdev chain without dev (nft 1.0.6)" 2 \
	'Error: table netdev t, chain c: a netdev ingress chain without "dev" (nft 1.0.6 leaves it out of its JSON: add "dev": "IFACE" to the chain object)' \
	"$(ruleset netdev '"type":"filter","hook":"ingress","prio":0,"policy":"drop"')"
t "an empty accepting chain at any hook changes nothing" 0 \
	'# mmbctl import of -: 0 rules, first match as priorities
flush' "$(ruleset ip '"type":"filter","hook":"input","prio":0,"policy":"accept"')"
t "refused: two chains seeing the same packets" 2 \
	'Error: table ip t, chain d: this base chain and table ip t, chain c see the same packets: mmb merges no two chains (put their rules in one)' \
	"$(ruleset ip "$PRE" "" '{"chain":{"family":"ip","table":"t","name":"d","handle":2,"type":"filter","hook":"prerouting","prio":5,"policy":"drop"}}' |
	   sed 's/,{"chain":{"family":"ip","table":"t","name":"c"/,{"chain":{"family":"ip","table":"t","name":"c2"/' |
	   sed 's/"name":"c2"/"name":"c"/; s/\(.*\)\({"chain":{"family":"ip","table":"t","name":"d"[^}]*}}\),\({"chain"[^}]*}}\)/\1\3,\2/')"
t "refused: ct state new without established first" 2 \
	'Error: table ip t, chain c, rule handle 3: {"family":"ip","table":"t","chain":"c","handle":3,"expr":[{"match":{"op":"in","left":{"ct":{"key":"state"}},"right":"new"}},{"accept":null}]}: ct state new without ct state established,related accept as the chain'"'"'s first rule: an mmb connection accepts its later packets, nft'"'"'s rule does not' \
	"$(ruleset ip "$PRE" "$(rule ip 3 '{"match":{"op":"in","left":{"ct":{"key":"state"}},"right":"new"}}' '{"accept":null}')")"
t "refused: ct state invalid" 2 \
	'Error: table ip t, chain c, rule handle 3: {"match":{"op":"in","left":{"ct":{"key":"state"}},"right":"invalid"}}: mmb'"'"'s connections say established,related (a connection'"'"'s packets) or new (the first): no other set of states' \
	"$(ruleset ip "$PRE" "$(rule ip 3 '{"match":{"op":"in","left":{"ct":{"key":"state"}},"right":"invalid"}}' '{"drop":null}')")"

t "refused: ct state before conntrack (raw's priority)" 2 \
	'Error: table ip t, chain c, rule handle 3: {"match":{"op":"in","left":{"ct":{"key":"state"}},"right":["established","related"]}}: ct state in a chain of priority below -200: nf_conntrack has seen no packet there yet' \
	"$(ruleset ip '"type":"filter","hook":"prerouting","prio":-300,"policy":"drop"' "$(rule ip 3 '{"match":{"op":"in","left":{"ct":{"key":"state"}},"right":["established","related"]}}' '{"accept":null}')")"

RANGE='{"match":{"op":"==","left":{"payload":{"protocol":"ip6","field":"saddr"}},"right":{"range":["2001:db8::5","2001:db8::9"]}}}'
t "an IPv6 range as the prefixes that cover it" 0 '# mmbctl import of -: 3 rules, first match as priorities
flush
add priority 1 in lo ip6-saddr 2001:db8::5 drop
add priority 1 in lo ip6-saddr 2001:db8::6/127 drop
add priority 1 in lo ip6-saddr 2001:db8::8/127 drop
enable lo' "$(ruleset netdev "$NETDEV" "$(rule netdev 2 "$RANGE" '{"drop":null}')")"
RANGE='{"match":{"op":"==","left":{"payload":{"protocol":"ip","field":"daddr"}},"right":{"range":["0.0.0.0","255.255.255.255"]}}}'
t "the whole IPv4 space as a range" 0 '# mmbctl import of -: 1 rules, first match as priorities
flush
add priority 1 in lo ip-daddr 0.0.0.0/0 drop
enable lo' "$(ruleset netdev "$NETDEV" "$(rule netdev 2 "$RANGE" '{"drop":null}')")"

# meta l4proto is the L4 protocol after IPv6's extension headers
# (l4-proto), ip6 nexthdr the first header after the IPv6 header
# (ip6-next), ip protocol IPv4's (ip-proto). In an ip6 table, l4-proto
# with net-proto ip6; != as one term.
PREA='"type":"filter","hook":"prerouting","prio":0,"policy":"accept"'
N='{"match":{"op":"!=","left":'
L4='{"meta":{"key":"l4proto"}}'
NH='{"payload":{"protocol":"ip6","field":"nexthdr"}}'
l4rules() {	# l4rules FAMILY
	printf '%s' "$(rule "$1" 2 "$M$L4"',"right":"udp"}}' '{"drop":null}'),$(
		rule "$1" 3 "$N$L4"',"right":"tcp"}}' '{"counter":null}'),$(
		rule "$1" 4 "$M$NH"',"right":{"set":["tcp","ip","ipv6-frag",60]}}}' '{"accept":null}'),$(
		rule "$1" 5 "$N$NH"',"right":"udp"}}' '{"drop":null}'),$(
		rule "$1" 6 "$M$L4"',"right":"ipv6-icmp"}}' \
			"$M"'{"payload":{"protocol":"ip6","field":"saddr"}},"right":"fe80::1"}}' '{"accept":null}')"
}
t "meta l4proto as l4-proto, ip6 nexthdr as ip6-next (inet)" 0 '# mmbctl import of -: 8 rules, first match as priorities
flush
add priority 5 l4-proto udp drop
add priority 4 l4-proto != tcp count
add priority 3 ip6-next tcp accept
add priority 3 ip6-next 0 accept
add priority 3 ip6-next 44 accept
add priority 3 ip6-next 60 accept
add priority 2 ip6-next != udp drop
add priority 1 l4-proto icmp6 ip6-saddr fe80::1 accept' "$(ruleset inet "$PREA" "$(l4rules inet)")"
t "meta l4proto in an ip6 table: l4-proto of IPv6" 0 '# mmbctl import of -: 8 rules, first match as priorities
flush
add priority 5 net-proto ip6 l4-proto udp drop
add priority 4 net-proto ip6 l4-proto != tcp count
add priority 3 ip6-next tcp accept
add priority 3 ip6-next 0 accept
add priority 3 ip6-next 44 accept
add priority 3 ip6-next 60 accept
add priority 2 ip6-next != udp drop
add priority 1 l4-proto icmp6 ip6-saddr fe80::1 accept' "$(ruleset ip6 "$PREA" "$(l4rules ip6)")"
t "meta l4proto and ip protocol in an ip table: ip-proto" 0 '# mmbctl import of -: 4 rules, first match as priorities
flush
add priority 4 ip-proto udp drop
add priority 3 net-proto ip4 l4-proto != tcp count
add priority 2 ip-proto != tcp drop
add priority 1 ip-proto icmp accept' "$(ruleset ip "$PREA" "$(rule ip 2 "$M$L4"',"right":"udp"}}' '{"drop":null}'),$(
	rule ip 3 "$N$L4"',"right":"tcp"}}' '{"counter":null}'),$(
	rule ip 4 "$N"'{"payload":{"protocol":"ip","field":"protocol"}},"right":"tcp"}}' '{"drop":null}'),$(
	rule ip 5 "$M"'{"payload":{"protocol":"ip","field":"protocol"}},"right":"icmp"}}' '{"accept":null}')")"

# != of an empty named set: still the field's family and protocol.
ES='{"set":{"family":"inet","table":"t","name":"e4","type":"ipv4_addr","handle":2}},{"set":{"family":"inet","table":"t","name":"e6","type":"ipv6_addr","handle":3}},{"set":{"family":"inet","table":"t","name":"p","type":"inet_service","handle":4}},{"set":{"family":"inet","table":"t","name":"pr","type":"inet_proto","handle":5}},{"set":{"family":"inet","table":"t","name":"i","type":"ifname","handle":6}}'
t "!= of an empty set keeps the field's family and protocol" 0 '# mmbctl import of -: 8 rules, first match as priorities
flush
add priority 7 tcp-dport >= 0 accept
add priority 6 ip-saddr 0.0.0.0/0 drop
add priority 5 ip6-daddr ::/0 drop
add priority 4 ip-proto >= 0 drop
add priority 3 l4-proto >= 0 drop
add priority 2 tcp-dport >= 0 drop
add priority 2 udp-dport >= 0 drop
add priority 1 all drop' "$(ruleset inet "$PREA" "$(
	rule inet 2 "$N"'{"payload":{"protocol":"tcp","field":"dport"}},"right":"@p"}}' '{"accept":null}'),$(
	rule inet 3 "$N"'{"payload":{"protocol":"ip","field":"saddr"}},"right":"@e4"}}' '{"drop":null}'),$(
	rule inet 4 "$N"'{"payload":{"protocol":"ip6","field":"daddr"}},"right":"@e6"}}' '{"drop":null}'),$(
	rule inet 5 "$N"'{"payload":{"protocol":"ip","field":"protocol"}},"right":"@pr"}}' '{"drop":null}'),$(
	rule inet 6 "$N$L4"',"right":"@pr"}}' '{"drop":null}'),$(
	rule inet 7 "$M$L4"',"right":{"set":["tcp","udp"]}}}' \
		"$N"'{"payload":{"protocol":"th","field":"dport"}},"right":"@p"}}' '{"drop":null}'),$(
	rule inet 8 "$N"'{"meta":{"key":"iifname"}},"right":"@i"}}' '{"drop":null}')" "$ES")"

# th dport != { ... }: the port field of each protocol.
t "th dport != a set, per protocol" 0 '# mmbctl import of -: 4 rules, first match as priorities
flush
add priority 2 tcp-dport != 22 tcp-dport != 80 drop
add priority 2 udp-dport != 22 udp-dport != 80 drop
add priority 1 tcp-dport != 53 drop
add priority 1 udp-dport != 53 drop' "$(ruleset inet "$PREA" "$(
	rule inet 2 "$M$L4"',"right":{"set":["tcp","udp"]}}}' \
		"$N"'{"payload":{"protocol":"th","field":"dport"}},"right":{"set":[22,80]}}}' '{"drop":null}'),$(
	rule inet 3 "$M$L4"',"right":{"set":["tcp","udp"]}}}' \
		"$N"'{"payload":{"protocol":"th","field":"dport"}},"right":53}}' '{"drop":null}')")"

# ct state established,related accept: the host's own connections too,
# through a stateful rule of what leaves, at the established rule's place.
EST='{"match":{"op":"in","left":{"ct":{"key":"state"}},"right":["established","related"]}}'
t "established,related: the host's own connections (ip table)" 0 '# mmbctl import of -: 3 rules, first match as priorities
flush
add-stateful priority 2 conn-priority 2 net-proto ip4 leaving accept
add-stateful priority 1 conn-priority 2 net-proto ip4 tcp-dport 23 accept
add priority 0 net-proto ip4 drop' "$(ruleset ip "$PRE" "$(rule ip 2 "$EST" '{"accept":null}'),$(
	rule ip 3 "$TCP23" '{"accept":null}')")"

# Netdev chains see frames that are not IP, which mmb passes untouched:
# a drop, reject or mark of them is refused; an accept of them is nothing.
NDROP='"type":"filter","hook":"ingress","prio":0,"dev":"lo","policy":"drop"'
P='{"meta":{"key":"protocol"}}'
NONIP="frames that are not IP (ARP, VLAN, LLDP ...); mmb judges IPv4 and IPv6 only and passes other frames untouched: match meta protocol { ip, ip6 } in the rule"
t "refused: a netdev chain's policy drop" 2 \
	'Error: table netdev t, chain c: policy drop of a netdev chain drops frames that are not IP too (ARP, VLAN, LLDP ...); mmb judges IPv4 and IPv6 only and passes other frames untouched: say policy accept and end the chain with meta protocol { ip, ip6 } drop' \
	"$(ruleset netdev "$NDROP" "$(rule netdev 7 "$M$P"',"right":"ip6"}}' '{"accept":null}')")"
t "refused: a netdev drop of every frame" 2 \
	"Error: table netdev t, chain c, rule handle 7: {\"drop\":null}: in a netdev chain this drops $NONIP" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 '{"drop":null}')")"
t "refused: a netdev drop of meta protocol != ip6" 2 \
	"Error: table netdev t, chain c, rule handle 7: {\"drop\":null}: in a netdev chain this drops $NONIP" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$N$P"',"right":"ip6"}}' '{"drop":null}')")"
t "refused: a netdev reject by device" 2 \
	"Error: table netdev t, chain c, rule handle 7: {\"reject\":null}: in a netdev chain this rejects $NONIP" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M"'{"meta":{"key":"iifname"}},"right":"lo"}}' '{"reject":null}')")"
t "refused: a netdev mark set of every frame of a mark" 2 \
	'Error: table netdev t, chain c, rule handle 7: {"family":"netdev","table":"t","chain":"c","handle":7,"expr":[{"match":{"op":"==","left":{"meta":{"key":"mark"}},"right":5}},{"mangle":{"key":{"meta":{"key":"mark"}},"value":7}}]}: in a netdev chain this marks '"$NONIP" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M"'{"meta":{"key":"mark"}},"right":5}}' "$MARKSET"'7}}')")"
t "refused: a netdev drop of meta protocol arp" 2 \
	"Error: table netdev t, chain c, rule handle 7: {\"drop\":null}: in a netdev chain this drops $NONIP" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M$P"',"right":"arp"}}' '{"drop":null}')")"
# meta protocol is the ethertype: 0x0800 and 0x86dd are IP; 4 is not.
t "netdev: meta protocol numbers, accepts of frames that are not IP" 0 '# mmbctl import of -: 4 rules, first match as priorities
flush
add priority 7 net-proto ip4 in lo drop
add priority 6 net-proto ip6 in lo drop
add priority 2 net-proto ip4 in lo accept
add priority 1 in lo accept
enable lo' "$(ruleset netdev "$NETDEV" "$(rule netdev 2 "$M$P"',"right":2048}}' '{"drop":null}'),$(
	rule netdev 3 "$M$P"',"right":34525}}' '{"drop":null}'),$(
	rule netdev 4 "$M$P"',"right":4}}' '{"accept":null}'),$(
	rule netdev 5 "$M$P"',"right":"arp"}}' '{"accept":null}'),$(
	rule netdev 6 "$N$P"',"right":{"set":["ip","ip6"]}}}' '{"accept":null}'),$(
	rule netdev 7 "$N$P"',"right":"ip6"}}' '{"accept":null}'),$(
	rule netdev 8 "$N$P"',"right":"arp"}}' '{"accept":null}')")"
t "refused: meta protocol 4 dropped (ethertype 4 is not IP)" 2 \
	"Error: table netdev t, chain c, rule handle 7: {\"drop\":null}: in a netdev chain this drops $NONIP" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M$P"',"right":4}}' '{"drop":null}')")"
# meta nfproto: NFPROTO_IPV4 2, NFPROTO_IPV6 10.
t "meta nfproto numbers" 0 '# mmbctl import of -: 2 rules, first match as priorities
flush
add priority 2 net-proto ip6 drop
add priority 1 net-proto ip6 drop' "$(ruleset inet "$PREA" "$(
	rule inet 2 "$M"'{"meta":{"key":"nfproto"}},"right":10}}' '{"drop":null}'),$(
	rule inet 3 "$N"'{"meta":{"key":"nfproto"}},"right":2}}' '{"drop":null}')")"
t "refused: meta nfproto 4" 2 \
	'Error: table inet t, chain c, rule handle 2: {"match":{"op":"==","left":{"meta":{"key":"nfproto"}},"right":4}}: meta nfproto of another family than ipv4 (2) and ipv6 (10)' \
	"$(ruleset inet "$PREA" "$(rule inet 2 "$M"'{"meta":{"key":"nfproto"}},"right":4}}' '{"drop":null}')")"

# ICMP and ICMPv6 codes by nft's names.
t "icmp and icmpv6 codes by name" 0 '# mmbctl import of -: 14 rules, first match as priorities
flush
add priority 4 icmp-code 3 drop
add priority 3 icmp6-code 0 drop
add priority 3 icmp6-code 3 drop
add priority 3 icmp6-code 6 drop
add priority 2 icmp-code 2 count
add priority 2 icmp-code 4 count
add priority 2 icmp-code 9 count
add priority 2 icmp-code 10 count
add priority 2 icmp-code 13 count
add priority 2 icmp-code 0 count
add priority 2 icmp-code 1 count
add priority 1 icmp6-code 1 count
add priority 1 icmp6-code 4 count
add priority 1 icmp6-code 5 count' "$(ruleset inet "$PREA" "$(
	rule inet 2 "$M"'{"payload":{"protocol":"icmp","field":"code"}},"right":"port-unreachable"}}' '{"drop":null}'),$(
	rule inet 3 "$M"'{"payload":{"protocol":"icmpv6","field":"code"}},"right":{"set":["no-route","addr-unreachable","reject-route"]}}}' '{"drop":null}'),$(
	rule inet 4 "$M"'{"payload":{"protocol":"icmp","field":"code"}},"right":{"set":["prot-unreachable","frag-needed","net-prohibited","host-prohibited","admin-prohibited","net-unreachable","host-unreachable"]}}}' '{"counter":null}'),$(
	rule inet 5 "$M"'{"payload":{"protocol":"icmpv6","field":"code"}},"right":{"set":["admin-prohibited","port-unreachable","policy-fail"]}}}' '{"counter":null}')")"
t "refused: a set of TCP flag values" 2 \
	'Error: table inet t, chain c, rule handle 2: {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"flags"}},"right":{"set":[{"|":["syn","ack"]},"syn"]}}}: a set of TCP flag values has no mmb match: write a rule for each value' \
	"$(ruleset inet "$PREA" "$(rule inet 2 "$M"'{"payload":{"protocol":"tcp","field":"flags"}},"right":{"set":[{"|":["syn","ack"]},"syn"]}}}' '{"accept":null}')")"
t "refused: an inet ingress chain, with what to write instead" 2 \
	'Error: table inet t, chain c: an inet ingress chain: mmb translates netdev ingress chains; write its rules in a table netdev chain of its device, meta nfproto ipv4 and ipv6 as meta protocol ip and ip6, and its policy drop as a last rule meta protocol { ip, ip6 } drop (an inet ingress chain sees IP only)' \
	"$(ruleset inet '"type":"filter","hook":"ingress","prio":0,"dev":"lo","policy":"drop"')"

# Malformed and wrong inputs.
t "not JSON" 2 "Error: -:1:10: not JSON: ']' expected near end of file" '{"a": [1, '
t "JSON but not nft's" 2 'Error: not nft -j output: no "nftables" array' '{"a": 1}'
t "no metainfo first" 2 \
	'Error: {"table":{"family":"ip","name":"t"}}: no metainfo first: not nft -j output' \
	'{"nftables":[{"table":{"family":"ip","name":"t"}}]}'
t "a schema version of the future" 2 \
	'Error: {"metainfo":{"json_schema_version":2}}: json_schema_version 1 expected (nft 0.9.x to 1.1)' \
	'{"nftables":[{"metainfo":{"json_schema_version":2}}]}'
t "duplicate keys" 2 "Error: -:1:26: not JSON: duplicate object key near '\"a\"'" '{"nftables":[], "a":1, "a":2}'
# The input is read an element of "nftables" at a time: the frame's
# spacing, another shape (parsed whole), a JSON error after a refusable
# rule (the JSON error, as when the whole tree came first), a rule of no
# chain named by its own JSON.
for f in "$DIR"/*.json; do
	want=$(cat "${f%.json}.want")
	for shape in pretty keys; do
		case $shape in
		pretty) in=$(jq . "$f") ;;
		keys) in=$(jq -c '{"x": 1} + .' "$f") ;;
		esac
		out=$(printf '%s' "$in" | "$MMBCTL" import -n - 2>&1)
		[ "$out" = "$want" ]
		result $? "$(basename "$f"), $shape, translates the same" "$(diff <(printf '%s\n' "$out") <(printf '%s\n' "$want"))"
	done
done
t "a JSON error after a rule refused" 2 "Error: -:1:410: not JSON: ']' expected near end of file" \
	"$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M"'{"meta":{"key":"length"}},"right":5}}' '{"accept":null}')" | head -c -3)"
t "a rule of no chain" 2 \
	'Error: {"family":"netdev","table":"t","chain":"d","handle":3,"expr":[{"accept":null}]}: a rule of a chain not listed before it' \
	'{"nftables":[{"metainfo":{"json_schema_version":1}},{"rule":{"family":"netdev","table":"t","chain":"d","handle":3,"expr":[{"accept":null}]}}]}'
out=$(head -c 300000000 /dev/zero | tr '\0' ' ' | "$MMBCTL" import -n - 2>&1)
status=$?
[ "$status" -eq 2 ] && [ "$out" = "Error: -: more than 256 MiB" ]
result $? "an input over 256 MiB is refused" "exit $status: $out"
# 200001 rules: over the bound, refused before any translation.
python3 - > "$TMP/many.json" <<'PY'
import json
r = [{"metainfo": {"json_schema_version": 1}},
     {"chain": {"family": "ip", "table": "t", "name": "c", "handle": 1}}]
r += [{"rule": {"family": "ip", "table": "t", "chain": "c", "handle": i, "expr": [{"accept": None}]}}
      for i in range(200001)]
print(json.dumps({"nftables": r}))
PY
out=$("$MMBCTL" import -n "$TMP/many.json" 2>&1)
status=$?
[ "$status" -eq 2 ] && [ "$out" = "Error: more than 200000 rules" ]
result $? "more than 200000 nft rules are refused" "exit $status: $out"
# A tree of jumps 10 wide and 7 deep (10^7 rules to visit): refused at
# the bound, in seconds.
python3 - > "$TMP/tree.json" <<'PY'
import json
r = [{"metainfo": {"json_schema_version": 1}}]
r += [{"chain": {"family": "inet", "table": "t", "name": "c%d" % d, "handle": d + 1}}
      for d in range(8)]
r[1]["chain"].update({"type": "filter", "hook": "prerouting", "prio": 0, "policy": "accept"})
h = 100
for d in range(7):
    for _ in range(10):
        h += 1
        r.append({"rule": {"family": "inet", "table": "t", "chain": "c%d" % d,
                           "handle": h, "expr": [{"jump": {"target": "c%d" % (d + 1)}}]}})
print(json.dumps({"nftables": r}))
PY
out=$(timeout 60 "$MMBCTL" import -n "$TMP/tree.json" 2>&1)
status=$?
[ "$status" -eq 2 ] &&
	[[ "$out" == *": flattening the jumps visits more than 1000000 rules (a chain is copied at every jump that reaches it)" ]]
result $? "a tree of jumps that multiplies past the bound is refused" "exit $status: $out"
# A netdev chain on 40 devices (nft takes up to 256): a scope each.
devs=$(python3 -c 'import json; print(json.dumps(["d%d" % i for i in range(40)]))')
out=$(ruleset netdev '"type":"filter","hook":"ingress","prio":0,"dev":'"$devs"',"policy":"accept"' \
	"$(rule netdev 7 "$M"'{"payload":{"protocol":"ip","field":"saddr"}},"right":{"prefix":{"addr":"10.0.0.0","len":8}}}}' '{"drop":null}')" |
	"$MMBCTL" import -n - 2>&1)
status=$?
[ "$status" -eq 0 ] && [ "$(grep -c '^enable d[0-9]*$' <<< "$out")" -eq 40 ] &&
	[ "$(grep -c '^add priority 1 in d[0-9]* ip-saddr 10.0.0.0/8 drop$' <<< "$out")" -eq 40 ]
result $? "a netdev chain on 40 devices: 40 enables, a rule each" "exit $status: $out"
# A base chain's members of the wrong type: refused, not read as absent.
t "a base chain's hook not a string" 2 \
	"Error: table ip t, chain c: a base chain's \"type\", \"hook\" and \"policy\" are strings" \
	"$(ruleset ip '"type":"filter","hook":5,"prio":0,"policy":"drop"' "$(rule ip 2 '{"accept":null}')")"
t "a base chain's policy not a string" 2 \
	"Error: table ip t, chain c: a base chain's \"type\", \"hook\" and \"policy\" are strings" \
	"$(ruleset ip '"type":"filter","hook":"prerouting","prio":0,"policy":["drop"]' "$(rule ip 2 '{"accept":null}')")"
t "a base chain's hook null" 2 \
	"Error: table ip t, chain c: a base chain's \"type\", \"hook\" and \"policy\" are strings" \
	"$(ruleset ip '"type":"filter","hook":null,"prio":0,"policy":"drop"' "$(rule ip 2 '{"accept":null}')")"
# A concatenation of parts that all hold of non-IP frames holds of them too.
out=$(ruleset netdev "$NETDEV" "$(rule netdev 7 "$M"'{"concat":[{"meta":{"key":"iifname"}},{"meta":{"key":"mark"}}]},"right":{"set":[{"concat":["lo",5]}]}}}' '{"drop":null}')" |
	"$MMBCTL" import -n - 2>&1)
status=$?
[ "$status" -eq 2 ] && [[ "$out" == *"frames that are not IP"* ]]
result $? "iifname . meta mark drop in a netdev chain: refused as nft drops non-IP frames too" \
	"exit $status: $out"
# Nine jumps in a row, each chain with a conditional return: one level deep.
python3 - > "$TMP/returns.json" <<'PY'
import json
r = [{"metainfo": {"json_schema_version": 1}},
     {"chain": {"family": "inet", "table": "t", "name": "c", "handle": 1, "type": "filter",
                "hook": "prerouting", "prio": 0, "policy": "accept"}}]
r += [{"chain": {"family": "inet", "table": "t", "name": "c%d" % i, "handle": i + 1}}
      for i in range(1, 10)]
h = 100
for i in range(1, 10):
    h += 1
    r.append({"rule": {"family": "inet", "table": "t", "chain": "c", "handle": h,
                       "expr": [{"jump": {"target": "c%d" % i}}]}})
for i in range(1, 10):
    src = {"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}},
                     "right": "10.0.0.%d" % i}}
    port = {"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}},
                      "right": 1000 + i}}
    h += 1
    r.append({"rule": {"family": "inet", "table": "t", "chain": "c%d" % i, "handle": h,
                       "expr": [src, {"return": None}]}})
    h += 1
    r.append({"rule": {"family": "inet", "table": "t", "chain": "c%d" % i, "handle": h,
                       "expr": [port, {"drop": None}]}})
print(json.dumps({"nftables": r}))
PY
out=$("$MMBCTL" import -n "$TMP/returns.json" 2>&1)
status=$?
[ "$status" -eq 0 ] && grep -q 'tcp-dport 1009 drop$' <<< "$out"
result $? "nine jumps in a row, each chain with a conditional return, translate" \
	"exit $status: $(tail -3 <<< "$out")"
# Expansions past 65536 mmb rules from one rule: refused, naming the rule.
for shape in set th; do
	python3 - "$shape" > "$TMP/big.json" <<'PY'
import json, sys
n = 131072 if sys.argv[1] == "set" else 30000
addrs = ["10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255) for i in range(n)]
saddr = {"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}},
                   "right": {"set": addrs}}}
e = [saddr]
if sys.argv[1] == "th":
    e = [{"match": {"op": "==", "left": {"meta": {"key": "l4proto"}},
                    "right": {"set": ["tcp", "udp"]}}}, saddr,
         {"match": {"op": "==", "left": {"payload": {"protocol": "th", "field": "dport"}},
                    "right": {"set": [1, 2, 3]}}}]
r = [{"metainfo": {"json_schema_version": 1}},
     {"chain": {"family": "ip", "table": "t", "name": "c", "handle": 1, "type": "filter",
                "hook": "prerouting", "prio": 0, "policy": "accept"}},
     {"rule": {"family": "ip", "table": "t", "chain": "c", "handle": 5, "expr": e + [{"drop": None}]}}]
print(json.dumps({"nftables": r}))
PY
	out=$("$MMBCTL" import -n "$TMP/big.json" 2>&1)
	status=$?
	[ "$status" -eq 2 ] && [[ "$out" == "Error: table ip t, chain c, rule handle 5: "*": more than 65536 mmb rules from one rule" ]]
	result $? "an expansion ($shape) past 65536 mmb rules is refused, naming the rule" \
		"exit $status: ${out:0:200}...${out: -200}"
done
# A file name with a line break stays in the comment's line.
name="$TMP/x"$'\n'"add all drop #"
ruleset ip "$PRE" "$(rule ip 2 '{"accept":null}')" > "$name"
out=$("$MMBCTL" import -n "$name" 2>&1)
status=$?
[ "$status" -eq 0 ] && ! grep -q '^add all drop' <<< "$out" &&
	[ "$(head -1 <<< "$out")" = "# mmbctl import of $TMP/x?add all drop #: 1 rules, first match as priorities" ]
result $? "a line break in the file's name is no line of the translation" "exit $status: $out"
out=$("$MMBCTL" import -n 2>&1)
status=$?
[ "$status" -eq 2 ] && [ "$out" = 'Usage: mmbctl import [ -n ] [ -c ] FILE
Error: missing FILE (- for standard input)
mmbctl import -n
                 ^' ]
result $? "no FILE points past the end" "exit $status: $out"

echo "1..$n"
[ "$failed" -eq 0 ]
