#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, concurrency: the ruleset changes while traffic flows on
# every CPU, and no packet sees a half-made ruleset. pktgen in the client
# sends UDP to ports 7000-7015 of the server from one thread per CPU (both
# families); every complete ruleset drops 7000-7007 and marks 7008-7015 with
# its generation's DSCP (A: 10, B: 20), each built differently (ranges
# against exact ports, other filler rules that would accept if they
# matched). A netdev ingress chain on the server counts what came:
#
#   pktgen threads            mmb on r0                 nft on s0 (observer)
#   [C] c0 ==== r0 [R] r1 ==== s0 [S]:  7000-7007 arriving: leak
#                                       7008-7015 DSCP 10 / 20: gen A / B
#                                       7008-7015 otherwise: unmarked
#
# Then flush, disable and enable under traffic, connections created by two
# CPUs at once (one entry per flow), and device delete, netns delete and
# module unload under traffic. Rates are
# printed as diagnostics, never asserted. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
Q=mmb-q-$$
trap 'ip netns del "$Q" 2> /dev/null; topology_down' EXIT

[ -d /proc/net/pktgen ] || modprobe pktgen 2> /dev/null
if [ ! -d /proc/net/pktgen ]; then
	echo "Bail out! no pktgen in this kernel"
	exit 1
fi
NCPU=$(nproc)

# pg NS FILE COMMAND: one pktgen command. A device's file must then say
# "Result: OK"; a thread's or pgctrl's only that the write went through.
pg() {
	ip netns exec "$1" sh -c "echo '$3' > /proc/net/pktgen/$2" || return 1
	case $2 in
	kpktgend_*|pgctrl) return 0 ;;
	esac
	ip netns exec "$1" grep -q '^Result: OK' "/proc/net/pktgen/$2"
}

# pg_flows NS DEV@K DST SRC SPORTS DPORTS COUNT: device DEV@K sends COUNT
# (0: until stopped) UDP packets from SRC to DST, the ports counting up
# through the ranges FIRST-LAST together (pktgen's LAST is not sent); it
# runs on CPU K modulo the CPUs.
# The commands go to one shell, each checked as pg checks it: a process
# costs a second and more in a TCG guest, and these are many.
pg_flows() {
	local ns=$1 d=$2 dev=${2%@*} mac cmd sh f=/proc/net/pktgen/$2
	local -a cmds

	mac=$(ip netns exec "$(peer_ns "$ns" "$dev")" cat "/sys/class/net/$(peer_dev "$ns" "$dev")/address")
	cmds=("count $7" "delay 100000" "pkt_size 80" "dst_mac $mac"
	      "udp_src_min ${5%-*}" "udp_src_max ${5#*-}"
	      "udp_dst_min ${6%-*}" "udp_dst_max ${6#*-}" "flag UDPCSUM")
	if [ "${3#*:}" != "$3" ]; then
		cmds+=("dst6 $3" "src6 $4")
	else
		cmds+=("dst $3" "src_min $4" "src_max $4")
	fi
	sh="echo 'add_device $d' > /proc/net/pktgen/kpktgend_$((${d#*@} % NCPU)) || exit 1"
	for cmd in "${cmds[@]}"; do
		sh+="
echo '$cmd' > $f && grep -q '^Result: OK' $f || { echo 'pktgen $d: $cmd refused'; exit 1; }"
	done
	ip netns exec "$ns" sh -c "$sh"
}

# pg_streams SPORTS DPORTS COUNT: two streams per CPU through c0, one of
# each family from the client to the server, as pg_flows.
pg_streams() {
	local k

	pg_reset "$C"
	for k in $(seq 0 $((2 * NCPU - 1))); do
		if [ $((k % 2)) -eq 0 ]; then
			pg_flows "$C" "c0@$k" 10.0.2.2 10.0.1.2 "$@" || return 1
		else
			pg_flows "$C" "c0@$k" fd00:2::2 fd00:1::2 "$@" || return 1
		fi
	done
}

# The namespace and name of a veth's peer (this topology's pairs only).
peer_ns() { case $2 in c0) echo "$R" ;; x0) echo "$R" ;; q0) echo "$Q" ;; esac; }
peer_dev() { case $2 in c0) echo r0 ;; x0) echo x1 ;; q0) echo q1 ;; esac; }

pg_reset() {
	local t

	for t in $(seq 0 $((NCPU - 1))); do
		pg "$1" "kpktgend_$t" rem_device_all
	done
}

# pg_run NS: start what is set up in the background (PG_PID);
# pg_stop NS: stop it and wait.
pg_run() {
	bg_in "$1" sh -c 'echo start > /proc/net/pktgen/pgctrl'
	PG_PID=$BG_PID
}

pg_stop() {
	ip netns exec "$1" sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	wait "$PG_PID" 2> /dev/null
}

# The observer: counters of what reaches s0.
in_s nft -f - <<'EOF'
table netdev obs {
	counter leak { }
	counter gen_a { }
	counter gen_b { }
	counter unmarked { }
	counter flows { }
	chain in {
		type filter hook ingress device s0 priority 0; policy accept;
		meta l4proto udp udp dport 7000-7007 counter name leak drop
		ip dscp 10 udp dport 7008-7015 counter name gen_a drop
		ip6 dscp 10 udp dport 7008-7015 counter name gen_a drop
		ip dscp 20 udp dport 7008-7015 counter name gen_b drop
		ip6 dscp 20 udp dport 7008-7015 counter name gen_b drop
		meta l4proto udp udp dport 7008-7015 counter name unmarked drop
		meta l4proto udp udp dport 7100-7116 counter name flows drop
	}
}
EOF
obs() {
	in_s nft -j list counter netdev obs "$1" | jq -e '.nftables[1].counter.packets'
}

obs_grows() {
	test "$(obs "$1")" -gt "$2"
}

# gen NAME DSCP: a complete ruleset. A drops by range and marks by range; B
# drops and marks port by port. Each adds 48 fillers in masks of its own
# (A: IPv4 sources of 6 prefix lengths; B: IPv6 sources, 3 lengths) that
# would accept the traffic if they matched.
gen() {
	local i
	echo flush
	if [ "$1" = A ]; then
		echo "add udp-dport >= 7000 udp-dport <= 7007 drop"
		echo "add udp-dport >= 7008 udp-dport <= 7015 mod ip-dscp $2"
		echo "add udp-dport >= 7008 udp-dport <= 7015 mod ip6-dscp $2"
		for i in $(seq 0 47); do
			echo "add ip-saddr 198.51.100.$((i * 4))/$((27 + i % 6)) udp-dport $((7000 + i % 16)) accept"
		done
	else
		for i in $(seq 7000 7007); do
			echo "add udp-dport $i drop"
		done
		for i in $(seq 7008 7015); do
			echo "add net-proto ip4 udp-dport $i mod ip-dscp $2"
			echo "add net-proto ip6 udp-dport $i mod ip6-dscp $2"
		done
		for i in $(seq 0 47); do
			echo "add ip6-saddr 2001:db8:$i::/$((48 + 8 * (i % 3))) udp-dport $((7000 + i % 16)) accept"
		done
	fi
}
gen A 10 > "$TMP/gen-a"
gen B 20 > "$TMP/gen-b"
rules_a=$(grep -c '^add' "$TMP/gen-a")
rules_b=$(grep -c '^add' "$TMP/gen-b")

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# rule_count: the rules listed, and the sum of the tables' rules agrees.
rule_count() {
	local listed tabled

	listed=$(in_r mmbctl -j list | jq length)
	tabled=$(in_r mmbctl -j show tables | jq '[.[].rules] | add // 0')
	[ "$listed" = "$tabled" ] || { echo "list $listed, tables $tabled"; return 1; }
	echo "$listed"
}

# --- traffic from every CPU -----------------------------------------------------
check "enable r0" in_r mmbctl enable r0
check "generation A applied" in_r mmbctl -f "$TMP/gen-a"
# Neighbours first: pktgen does not resolve them, the router must.
check "the router knows the server (IPv4)" in_c ping -c 1 -W "$CEILING" 10.0.2.2
check "the router knows the server (IPv6)" in_c ping -c 1 -W "$CEILING" fd00:2::2
check "pktgen: $((2 * NCPU)) streams on $NCPU CPUs (IPv4 and IPv6)" \
	pg_streams 1000-1001 7000-7016 0
pg_run "$C"
check "traffic of generation A arrives" wait_for "$CEILING" obs_grows gen_a 0

# --- incremental changes: rules come and go in the tables the traffic uses ---
# Each round adds 50 rules (the traffic's fields and masks, and new masks;
# none matches the traffic, all would accept it), then deletes them: 100
# transactions a round, each its own. (The ip-id rules name another
# destination: pktgen counts its IPv4 IDs up through every value, and an
# accept for 10.0.2.2 with ID 3 let a packet to a dropped port through.)
h0=$(in_r mmbctl -j add ip-saddr 203.0.113.1 drop | jq .handle)
rounds=20
{
	h=$h0
	for r in $(seq "$rounds"); do
		for i in $(seq 0 49); do
			case $((i % 5)) in
			0) echo "add udp-dport $((7000 + i % 16)) ip-ttl 1 accept" ;;
			1) echo "add ip-saddr 192.0.2.$i udp-dport $((7000 + i % 16)) accept" ;;
			2) echo "add ip6-saddr 2001:db8:ffff::$i udp-dport >= 7000 udp-dport <= 7015 accept" ;;
			3) echo "add ip-daddr 10.0.2.3 ip-id $i accept" ;;
			4) echo "add ip-saddr 192.0.$r.0/$((16 + i % 9)) ip-dscp $((i % 64)) accept" ;;
			esac
		done
		for i in $(seq 1 50); do
			echo "del $((h + i))"
		done
		h=$((h + 50))
	done
} > "$TMP/incremental"
t0=$(now_ms)
check "$((rounds * 100)) single-rule transactions under traffic" in_r mmbctl -b "$TMP/incremental"
t1=$(now_ms)
echo "# incremental: $((rounds * 100)) transactions in $((t1 - t0)) ms" \
	"($((rounds * 100 * 1000 / (t1 - t0 + 1))) per second)"
check "then the rules are generation A's and the probe" \
	test "$(rule_count)" = $((rules_a + 1))

# --- whole rulesets replaced: -f flush + generation, alternating ---------------
reps=500
for i in $(seq "$reps"); do
	echo "-f $TMP/gen-b"
	echo "-f $TMP/gen-a"
done > "$TMP/replace"
t0=$(now_ms)
check "$((2 * reps)) ruleset replacements under traffic" in_r mmbctl -b "$TMP/replace"
t1=$(now_ms)
echo "# replace: $((2 * reps)) transactions of $((rules_a + 1))-$((rules_b + 1)) commands in" \
	"$((t1 - t0)) ms ($((2 * reps * 1000 / (t1 - t0 + 1))) per second)"
check "then the rules are generation A's" test "$(rule_count)" = "$rules_a"
# Both generations under traffic, whatever the machine's speed.
b=$(obs gen_b)
check "generation B applied" in_r mmbctl -f "$TMP/gen-b"
check "traffic of generation B arrives" wait_for "$CEILING" obs_grows gen_b "$b"
a=$(obs gen_a)
check "generation A applied again" in_r mmbctl -f "$TMP/gen-a"
check "traffic of generation A arrives" wait_for "$CEILING" obs_grows gen_a "$a"

leak=$(obs leak)
a=$(obs gen_a)
b=$(obs gen_b)
un=$(obs unmarked)
echo "# observed: $a of generation A, $b of B, $leak leaked, $un unmarked;" \
	"r0 saw $(dev_stat r0 packets)"
check "packets were checked ($((a + b + leak + un)))" test $((a + b + leak + un)) -gt 0
check "no packet to a dropped port got through ($leak)" test "$leak" -eq 0
check "every packet to a marked port was marked by a generation ($un unmarked)" \
	test "$un" -eq 0

# --- flush, disable and enable under traffic ------------------------------------
# Between these the traffic's verdict is not one ruleset's: what is checked
# is that every command succeeds, the kernel stays quiet and the end state
# is exact.
for i in $(seq 100); do
	echo flush
	echo "-f $TMP/gen-b"
	echo "disable r0"
	echo "enable r0"
	echo "-f $TMP/gen-a"
done > "$TMP/toggle"
check "500 flushes, disables, enables and replacements under traffic" \
	in_r mmbctl -b "$TMP/toggle"
check "then r0 is enabled and the rules are generation A's" \
	test "$(enabled_in "$R")" = r0 -a "$(rule_count)" = "$rules_a"
a=$(obs gen_a)
check "and generation A marks the traffic again" wait_for "$CEILING" obs_grows gen_a "$a"
pg_stop "$C"

# --- connections created by two CPUs at once ------------------------------------
# Every stream sends the same 272 flows (16 source ports by 17 destination
# ports, counting up together) of its family, 10 times over: each flow's
# first packets race on all CPUs; each must make one connection.
check "a stateful rule for ports 7100-7116" \
	in_r mmbctl add-stateful udp-dport '>=' 7100 udp-dport '<=' 7116 accept
ok_pg=1
pg_streams 1000-1016 7100-7117 2720 || ok_pg=0
for k in $(seq 0 $((2 * NCPU - 1))); do
	pg "$C" "c0@$k" "delay 20000" || ok_pg=0
done
check "pktgen: the same flows from every CPU" test "$ok_pg" = 1
check "pktgen sent them" in_c sh -c 'echo start > /proc/net/pktgen/pgctrl'
json=$(in_r mmbctl -j show connections)
check_jq "one connection per flow: 272 IPv4 and 272 IPv6, none twice" \
	'.[0] | length == 544 and
	 ([.[] | [.orig.src, .orig.sport, .orig.dport]] | unique | length) == 544 and
	 ([.[] | select(.orig.src == "10.0.1.2")] | length) == 272 and
	 all(.[]; .orig.packets >= 1 and .proto == "udp")' "$json"
flows=$(obs flows)
counted=$(jq '[.[].orig.packets] | add' <<< "$json")
check "the connections counted every packet the server got ($counted, $flows)" \
	test "$counted" = "$flows"

# --- a device deleted under traffic ---------------------------------------------
pg_reset "$C"
ip -n "$C" link add x0 type veth peer name x1 netns "$R"
ip -n "$C" link set x0 up
ip -n "$R" link set x1 up
check "enable x1" in_r mmbctl enable x1
check "pktgen into x1" pg_flows "$C" x0@0 10.0.9.1 10.0.9.2 1000-1001 7000-7016 0
pg_run "$C"
check "x1 sees the traffic" wait_for "$CEILING" stat_reached x1 packets 100
check "delete x1 under traffic" ip -n "$R" link del x1
pg_stop "$C"
check "x1 is let go" test "$(enabled_in "$R")" = "r0"

# --- a namespace deleted under traffic, with rules and connections ------------
pg_reset "$C"
ip netns add "$Q"
ip -n "$C" link add q0 type veth peer name q1 netns "$Q"
ip -n "$C" link set q0 up
ip -n "$Q" link set q1 up
ip -n "$Q" link set lo up
check "mmb in another namespace: enable, rules, a stateful rule" ip netns exec "$Q" \
	mmbctl -b <(echo "enable q1"; echo "-f $TMP/gen-a"; echo "add-stateful udp-dport 7005 accept"
		    echo "set rp-filter off")   # q1 has no routes back
for k in $(seq 0 $((NCPU - 1))); do
	pg_flows "$C" "q0@$k" 10.0.9.1 10.0.9.2 1000-1064 7000-7016 0 || ok_pg=0
done
pg_run "$C"
check "its connections are made" wait_for "$CEILING" bash -c \
	"test \"\$(ip netns exec $Q mmbctl -j show connections | jq length)\" -gt 0"
check "delete the namespace under traffic" ip netns del "$Q"
check "its devices are gone" wait_for "$CEILING" bash -c "! ip -n $C link show q0"
pg_stop "$C"

# --- module unload under traffic (qemu, where mmb is a module) --------------
if [ -n "${MMB_KO:-}" ]; then
	# mmb holds the netdev egress hook's two static keys while loaded
	# (dev.c); if it were their last holder, rmmod would patch
	# __dev_queue_xmit() while the router's CPUs run it. In qemu's TCG a
	# CPU then met the int3 of the patch after it was done ("Oops: int3"
	# at __dev_queue_xmit, round 7 of 25 rmmods here; none in 25 with the
	# keys held): the emulator's, not what this test is about. An empty
	# nft egress chain holds the keys, so the unload patches nothing.
	in_r nft -f - <<-'EOF'
	table netdev keys {
		chain out {
			type filter hook egress device r1 priority 10; policy accept;
		}
	}
	EOF
	in_r mmbctl add-stateful udp-dport '>=' 7008 udp-dport '<=' 7015 accept
	pg_streams 1000-1064 7000-7016 0
	pg_run "$C"
	check "rules and connections under traffic before unload" wait_for "$CEILING" bash -c \
		"test \"\$(ip netns exec $R mmbctl -j show connections | jq length)\" -gt 0"
	check "rmmod under traffic from every CPU" rmmod mmb
	pg_stop "$C"
	check "insmod again" insmod "$MMB_KO"
	check "nothing enabled after reload" test -z "$(enabled_in "$R")"
fi

check "kernel log has no warnings" kernel_log_clean
tap_end
