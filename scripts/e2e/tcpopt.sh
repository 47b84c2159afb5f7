#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP option lists rewritten on real connections through the router (mmb
# on r0 and r1; topology in lib.sh): what the server's socket ends up with
# (ss -ti), and a 20 MB transfer whose data segments lose their timestamps
# on the way, through TSO and GRO super-packets and a lossy link.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1

# srv_info PORT: the server's tcp_info of its one connection on PORT (ss -ti),
# once there is one, while a client holds it open for a few seconds.
srv_info() {
	bg_in "$C" bash -c "exec 3<>/dev/tcp/10.0.2.2/$1; sleep 5"
	local holder=$BG_PID
	wait_for "$CEILING" sh -c "ip netns exec $S ss -Htin state established '( sport = :$1 )' |
		grep -q mss:"
	in_s ss -Htin state established "( sport = :$1 )" | tr -s ' \t' '\n'
	kill "$holder" 2> /dev/null
	wait "$holder" 2> /dev/null
}

start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 2

# --- MSS replaced on SYNs: the server's socket sends segments of 1452 ------------
# The client's SYN says 1460; with timestamps on, a segment carries 12
# bytes less data than the MSS.
check "no rule: the server's MSS towards the client is 1448" \
	grep -qx mss:1448 <<< "$(srv_info 8000)"
in_r mmbctl add tcp-syn tcp-opt-mss strip tcp-opt-mss add tcp-opt-mss 1452
check "tcp-syn tcp-opt-mss strip tcp-opt-mss add tcp-opt-mss 1452: the server's MSS is 1440" \
	grep -qx mss:1440 <<< "$(srv_info 8000)"
in_r mmbctl flush

# --- SACK-permitted added to SYNs that lack it --------------------------------------
# syn_ack PORT: the SYN at s0 and the server's SYN-ACK at c0, as JSON lines.
syn_ack() {
	capture_on "$S" s0 6 1
	capture_on "$C" c0 6 1
	in_c timeout 5 bash -c "exec 3<>/dev/tcp/10.0.2.2/$1"
	capture_wait s0
	capture_wait c0
}
in_c sysctl -qw net.ipv4.tcp_sack=0
check_jq "a client without SACK: its SYN and the server's SYN-ACK have no SACK-permitted" \
	'map(.tcp_opts | has("4")) == [false, false]' "$(syn_ack 8001)"
in_r mmbctl add tcp-syn tcp-dport 8001 add tcp-opt-sackp
check_jq "add tcp-opt-sackp on its SYN: the server answers with SACK-permitted (negotiated)" \
	'map(.tcp_opts | has("4")) == [true, true] and .[1].flags == 18' "$(syn_ack 8001)"
in_c sysctl -qw net.ipv4.tcp_sack=1
in_r mmbctl flush

# --- timestamps stripped from data segments: TSO, GRO, 1% loss -----------------------
# The client sends TSO super-packets (CHECKSUM_PARTIAL); r0 runs GRO, so
# mmb also sees packets merged there; r1 segments in software (tx off), so
# s0 gets the segments mmb's packets become; the first 20 000 are captured
# there (a capture of all would slow the transfer past its timeout). Each
# is at most the MTU, has no timestamp and valid checksums; the 20 MB come
# back intact (tcp-multi compares them). netem on r1 loses 1% of what it
# sends.
# Both ways: stripped one way only, the other end's echoes of the stripped
# end's timestamps would stay those of the handshake, and Linux, which
# takes RTT samples of retransmitted data from them, would back off for
# ever longer after a loss.
in_r mmbctl add '!' tcp-syn strip tcp-opt-timestamp
in_c ethtool -K c0 tx on sg on tso on gso on > /dev/null
in_r ethtool -K r0 gro off > /dev/null
in_r ethtool -K r0 gro on > /dev/null		# veth runs NAPI, so GRO, from here
in_r ethtool -K r1 tx off > /dev/null
in_r tc qdisc add dev r1 root netem loss 1%
capture_on "$S" s0 6 20000 600
check "strip tcp-opt-timestamp through TSO, GRO and 1% loss: 20 MB echoed intact" \
	in_c python3 "$TRAFFIC" tcp-multi 10.0.2.2 8000 1 0 10.0.1.2 20000000
capture_stop s0 > "$TMP/s0.json"
in_r tc qdisc del dev r1 root
jq -c 'select(.dport == 8000)' "$TMP/s0.json" > "$TMP/data.json"
check_all "at s0: every segment to the server at most 1500 bytes, no timestamp, checksums valid" \
	'.len <= 1500 and (.tcp_opts | has("8") | not) and .ip_csum and .l4_csum' 5000 \
	"$(jq -c 'select(.flags != 2)' "$TMP/data.json")"
check_all "at s0: the SYN kept its timestamp (negotiated)" '.tcp_opts | has("8")' 1 \
	"$(jq -c 'select(.flags == 2)' "$TMP/data.json")"
full=$(jq -s '[.[] | select(.len > 1400)] | length' "$TMP/data.json")
check "at s0: full-sized segments came through ($full)" test "$full" -gt 1000
in_r mmbctl flush
stop_server

check "kernel log has no warnings" kernel_log_clean
tap_end
