# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the end-to-end scripts: a three-namespace topology and TAP
# output. Source it; it expects root, iproute2, python3, jq and mmbctl.
#
#   +----------------+      +------------------------------+      +----------------+
#   | $C  client     |      | $R  router, mmb on r0 and r1 |      | $S  server     |
#   |  c0 10.0.1.2   +------+ r0 10.0.1.1     r1 10.0.2.1  +------+ s0 10.0.2.2    |
#   |     fd00:1::2  |      |    fd00:1::1       fd00:2::1 |      |    fd00:2::2   |
#   +----------------+      +------------------------------+      +----------------+

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MMB_ROOT=$(cd "$E2E_DIR/../.." && pwd)
export PATH=$MMB_ROOT/userspace:$PATH
TRAFFIC=$E2E_DIR/traffic.py

C=mmb-c-$$
R=mmb-r-$$
S=mmb-s-$$
TMP=$(mktemp -d)

in_c() { ip netns exec "$C" "$@"; }
in_r() { ip netns exec "$R" "$@"; }
in_s() { ip netns exec "$S" "$@"; }

# TAP: one line per check, numbered; the plan comes last.
tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

diag() {
	sed 's/^/#   /'
}

# check DESC CMD...: CMD succeeds.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		not_ok "$desc"
		diag <<< "$out"
	fi
}

# check_jq DESC FILTER JSON_LINES: FILTER (jq -s) gives true for the lines;
# otherwise they are shown.
check_jq() {
	if [ "$(jq -s "$2" <<< "$3" 2>&1)" = true ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "$(wc -l <<< "$3") lines; the first and the last:" | diag
		{ head -n 3; echo ...; tail -n 3; } <<< "$3" | cut -c1-400 | diag
	fi
}

# check_all DESC PREDICATE MIN JSON_LINES: at least MIN lines, and
# PREDICATE (jq) true of each; otherwise the first lines it is false of
# are shown.
check_all() {
	local bad

	bad=$(jq -c "select(($2) | not)" <<< "$4" 2>&1 | head -n 3)
	if [ -z "$bad" ] && [ "$(wc -l <<< "$4")" -ge "$3" ] && [ -n "$4" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "$(wc -l <<< "$4") lines, at least $3 wanted; not as they should be:" | diag
		cut -c1-400 <<< "$bad" | diag
	fi
}

# check_fails DESC CMD...: CMD fails.
check_fails() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		not_ok "$desc"
		diag <<< "$out"
	else
		ok "$desc"
	fi
}

# refused DESC STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN.
refused() {
	local desc=$1 want=$2 pattern=$3 out status
	shift 3
	out=$("$@" 2>&1)
	status=$?
	if [ "$status" -eq "$want" ] && grep -q -- "$pattern" <<< "$out"; then
		ok "$desc"
	else
		not_ok "$desc (exit $status, wanted $want and \"$pattern\")"
		diag <<< "$out"
	fi
}

# Every wait is for a condition (ready, received N, counted N), with a
# ceiling generous enough for a loaded machine: a slow one waits longer,
# never fails for it. CEILING is that ceiling, in seconds.
CEILING=60

# wait_for SECONDS CMD...: poll CMD until it succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" > /dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# bg_in NS COMMAND...: COMMAND in namespace NS in the background, its pid in
# BG_PID. (With "in_c COMMAND &", $! would be a subshell's: killing it
# would leave COMMAND running and its exit status unknown.)
bg_in() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@" &
	BG_PID=$!
}

# capture_on NS IFACE PROTO COUNT [SECONDS]: a capture in the background,
# ready when this returns, for COUNT packets or SECONDS (default CEILING);
# its lines go to $TMP/IFACE.cap. capture_stop IFACE ends it and prints
# them; capture_wait IFACE waits for it to end by itself. Both in the
# shell that started it (not in a pipe or $(...): wait needs its child).
capture_on() {
	rm -f "$TMP/$2.cap"	# not a "ready" of the capture before
	ip netns exec "$1" python3 "$TRAFFIC" capture "$2" "$3" "$4" "${5:-$CEILING}" \
		> "$TMP/$2.cap" 2>&1 &
	eval "cap_$2=\$!"
	wait_for "$CEILING" grep -q '^ready' "$TMP/$2.cap"
}

capture_stop() {
	local pid

	eval "pid=\$cap_$1"
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	grep -v '^ready' "$TMP/$1.cap"
}

# capture_wait IFACE: the capture ended by itself (it saw COUNT packets).
capture_wait() {
	local pid

	eval "pid=\$cap_$1"
	wait "$pid" 2> /dev/null
	grep -v '^ready' "$TMP/$1.cap"
}

# A background server in namespace $1, ready when it printed "ready";
# SERVER_PID and SERVER_LOG name it.
start_server() {
	local ns=$1
	shift
	SERVER_LOG=$(mktemp "$TMP/server.XXXXXX")
	ip netns exec "$ns" "$@" > "$SERVER_LOG" 2>&1 &
	SERVER_PID=$!
	wait_for "$CEILING" grep -q '^ready' "$SERVER_LOG"
}

# Wait for the last server, in this shell: a subshell (as in check's
# command substitution) cannot wait for it. server_ok then tells how it went.
server_done() {
	SERVER_STATUS=0
	wait "$SERVER_PID" || SERVER_STATUS=$?	# safe under set -e (the demo)
}

server_ok() {
	[ "$SERVER_STATUS" -eq 0 ] && return 0
	cat "$SERVER_LOG"
	return 1
}

# icmp_reaches DESC DST PORT TYPE CODE INFO: an icmp-answer on s0 answers the
# client's datagram to DST:PORT with that ICMP error, and the client hears it.
icmp_reaches() {
	start_server "$S" python3 "$TRAFFIC" icmp-answer s0 "$3" "$4" "$5" "$6" 1
	check_jq "$1" ".[0].icmp == [$4, $5, $6]" \
		"$(in_c python3 "$TRAFFIC" udp-ask "$2" "$3" "$CEILING")"
	server_done
}

# mmb counter of a device in the router: dev_stat DEV packets|bytes|dropped
dev_stat() {
	in_r mmbctl -j show interfaces |
		jq -er --arg d "$1" --arg k "$2" '.[] | select(.ifname == $d) | .stats[$k]'
}

# Its drops by cause: dev_drops DEV rule|fragment|header|nomem|conn
dev_drops() {
	in_r mmbctl -j show interfaces |
		jq -er --arg d "$1" --arg k "$2" '.[] | select(.ifname == $d) | .stats.drops[$k]'
}

# drops_reached DEV CAUSE N: DEV's drops of CAUSE are N or more (for
# wait_for, which runs it anew each time).
drops_reached() {
	test "$(dev_drops "$1" "$2")" -ge "$3"
}

# stat_reached DEV KEY N: likewise for dev_stat.
stat_reached() {
	test "$(dev_stat "$1" "$2")" -ge "$3"
}

# The last count a udp-sink printed (0 before the first datagram).
received() {
	tail -n 1 "$SERVER_LOG" | grep -xE '[0-9]+' || echo 0
}

# stop_server: end the last server early (it may have ended already).
stop_server() {
	kill "$SERVER_PID" 2> /dev/null
	wait "$SERVER_PID" 2> /dev/null
}

# The MAC address of DEV in namespace NS.
# peer_ask NS PROTO HOST PORT: what traffic.py's peer-server at HOST:PORT
# saw of us, "ADDR PORT".
peer_ask() {
	ip netns exec "$1" python3 "$TRAFFIC" peer-ask "$2" "$3" "$4"
}

mac_of() {
	ip -n "$1" -j link show "$2" | jq -r '.[0].address'
}

# kernel_at_least MAJOR.MINOR: the running kernel is that one or later.
kernel_at_least() {
	printf '%s\n%s\n' "$1" "$(uname -r | cut -d- -f1)" | sort -V -C
}

# Attached devices of a namespace, sorted, as one line: "r0 r1" (show
# interfaces also lists the enabled names, without an ifindex)
enabled_in() {
	ip netns exec "$1" mmbctl -j show interfaces |
		jq -r '[.[] | select(.ifindex) | .ifname] | sort | join(" ")'
}

topology_up() {
	ip netns add "$C" && ip netns add "$R" && ip netns add "$S" || return 1
	ip -n "$C" link add c0 type veth peer name r0 netns "$R" || return 1
	ip -n "$S" link add s0 type veth peer name r1 netns "$R" || return 1
	for ns in "$C" "$R" "$S"; do
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	in_r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	ip -n "$C" addr add 10.0.1.2/24 dev c0
	ip -n "$C" addr add fd00:1::2/64 dev c0 nodad
	ip -n "$R" addr add 10.0.1.1/24 dev r0
	ip -n "$R" addr add fd00:1::1/64 dev r0 nodad
	ip -n "$R" addr add 10.0.2.1/24 dev r1
	ip -n "$R" addr add fd00:2::1/64 dev r1 nodad
	ip -n "$S" addr add 10.0.2.2/24 dev s0
	ip -n "$S" addr add fd00:2::2/64 dev s0 nodad
	for dev in "$C c0" "$R r0" "$R r1" "$S s0"; do
		set -- $dev
		ip -n "$1" link set "$2" up || return 1
	done
	ip -n "$C" route add default via 10.0.1.1
	ip -n "$C" -6 route add default via fd00:1::1
	ip -n "$S" route add default via 10.0.2.1
	ip -n "$S" -6 route add default via fd00:2::1
}

# The network of docs/router.md, which router.sh and compose.sh run: $C the
# home host (c0), $R the router (lan0, wan0), $S the ISP (s0). The router
# forwards once the page's sysctls, or the script, say so.
WAN4=203.0.113.2 ISP4=203.0.113.1 HOST4=192.168.1.10
WAN6=2001:db8::2 ISP6=2001:db8::1 HOST6=2001:db8:1::10
router_page_up() {
	ip netns add "$C" && ip netns add "$R" && ip netns add "$S" || return 1
	ip -n "$C" link add c0 type veth peer name lan0 netns "$R" || return 1
	ip -n "$S" link add s0 type veth peer name wan0 netns "$R" || return 1
	for ns in "$C" "$R" "$S"; do
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip -n "$C" addr add "$HOST4/24" dev c0
	ip -n "$C" addr add "$HOST6/64" dev c0 nodad
	ip -n "$R" addr add 192.168.1.1/24 dev lan0
	ip -n "$R" addr add 2001:db8:1::1/64 dev lan0 nodad
	ip -n "$R" addr add "$WAN4/24" dev wan0
	ip -n "$R" addr add "$WAN6/64" dev wan0 nodad
	ip -n "$S" addr add "$ISP4/24" dev s0
	ip -n "$S" addr add "$ISP6/64" dev s0 nodad
	for dev in "$C c0" "$R lan0" "$R wan0" "$S s0"; do
		set -- $dev
		ip -n "$1" link set "$2" up || return 1
	done
	ip -n "$C" route add default via 192.168.1.1
	ip -n "$C" -6 route add default via 2001:db8:1::1
	ip -n "$R" route add default via "$ISP4"
	ip -n "$R" -6 route add default via "$ISP6"
	# The ISP routes the LAN's IPv6 prefix to the router; not its IPv4 one.
	ip -n "$S" -6 route add 2001:db8:1::/64 via "$WAN6"
}

# The fenced block of docs page $1 after its marker "<!-- $2 -->" (e.g.
# "router.sh: rules"): the page's text, run as it is.
doc_block() {
	awk -v m="<!-- $2 -->" '$0 == m { f = 1; next }
		f && /^```/ { if (++n == 2) exit; next } f && n == 1' "$1"
}

topology_down() {
	local pid

	for pid in $(jobs -p); do
		kill "$pid" 2> /dev/null
	done
	wait 2> /dev/null
	ip netns del "$C" 2> /dev/null
	ip netns del "$R" 2> /dev/null
	ip netns del "$S" 2> /dev/null
	rm -rf "$TMP"
}

# Kernel log lines from now on are checked by kernel_log_clean.
kernel_log_mark() {
	dmesg | wc -l > "$TMP/dmesg.mark"
}

kernel_log_clean() {
	local bad

	# pktgen says WARNING when a device it sends on is deleted: not a splat.
	bad=$(dmesg | tail -n +$(($(cat "$TMP/dmesg.mark") + 1)) |
		grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t|list_add corruption|list_del corruption|kmemleak|UBSAN|KASAN' |
		grep -v 'pktgen: WARNING: trying to remove a running interface')
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# The start of every end-to-end script: the topology, torn down at exit,
# and a mark in the kernel log.
e2e_begin() {
	trap topology_down EXIT
	kernel_log_mark
	if ! topology_up; then
		echo "Bail out! cannot build the namespaces"
		exit 1
	fi
}

tap_end() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
