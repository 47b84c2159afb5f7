#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, log (issue 40, item 2): through the router (mmb on r0 and
# r1; topology in lib.sh) a rule's "log" writes one kernel log line per
# packet, its prefix first, in the netfilter logger's format: where the
# kernel has nft's log, nft logs the same packets at the same time (in
# prerouting, and postrouting for a leaving rule) and each line is the
# same as nft's, field by field, but for the prefix; IPv4 and IPv6, UDP,
# TCP, ICMP and ICMPv6 (leaving, but MAC=: nft's postrouting has the
# arriving frame's header, mmb's egress hook the leaving one). A flood of 10000 packets logs no more than the
# rule's burst and rate allow, the rest counted as log-suppressed, exactly;
# "monitor log" prints the same packets, as text and as JSON. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
P=/sys/module/mmb/parameters
rate0=$(cat $P/log_rate) burst0=$(cat $P/log_burst) all0=$(cat $P/log_all_netns)
nfall0=$(sysctl -n net.netfilter.nf_log_all_netns 2> /dev/null)
log_down() {
	echo "$rate0" > $P/log_rate
	echo "$burst0" > $P/log_burst
	echo "$all0" > $P/log_all_netns
	[ -z "$nfall0" ] || sysctl -qw net.netfilter.nf_log_all_netns="$nfall0"
	topology_down
}
trap log_down EXIT

in_r mmbctl enable r0
in_r mmbctl enable r1
# The router is a namespace of its own: its lines are written only so.
echo 1 > $P/log_all_netns
echo 5 > $P/log_rate
echo 10 > $P/log_burst

# send udp|tcp|ping HOST PORT [COUNT]: from a fixed source port, no reply awaited.
cat > "$TMP/send.py" <<'EOF'
import socket, sys
kind, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
if kind == "udp":
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind(("", 40000 + port % 1000))
    for i in range(count):
        s.sendto(b"mmb-log %d" % i, (host, port))
else:
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", 40000 + port % 1000))
    s.settimeout(1)
    try:
        s.connect((host, port))
    except OSError:
        pass
EOF
send() { in_c python3 "$TMP/send.py" "$@"; }

# lines PREFIX: the kernel log's lines of PREFIX since the mark, the
# prefix and the timestamp taken off.
lines() {
	dmesg | tail -n +$(($(cat "$TMP/dmesg.mark") + 1)) |
		sed -n "s/^\[[ 0-9.]*\] $1//p"
}

# field LINE NAME: the value of NAME= in LINE (the first, outside a quote).
field() {
	sed 's/\[.*\]//' <<< "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# --- the line: its prefix and fields ------------------------------------
in_r mmbctl add ip-daddr 10.0.2.2 udp-dport 7100 log prefix "MMB4 "
in_r mmbctl add ip6-daddr fd00:2::2 udp-dport 7100 log prefix "MMB6 " level info
in_r mmbctl add ip-daddr 10.0.2.2 tcp-dport 7101 log prefix "MMBT "
in_r mmbctl add ip-daddr 10.0.2.2 ip-proto icmp log prefix "MMBI "
in_r mmbctl add ip6-daddr fd00:2::2 ip6-next icmp6 log prefix "MMBJ "
in_r mmbctl add leaving out r1 udp-dport 7102 log prefix "MMBO "

nft_ok=false
if command -v nft > /dev/null && in_r nft -f - 2> /dev/null <<'EOF'
table inet lg {
	chain pre {
		type filter hook prerouting priority 0;
		meta nfproto ipv4 udp dport 7100 log prefix "NFT4 "
		meta nfproto ipv6 udp dport 7100 log prefix "NFT6 "
		tcp dport 7101 log prefix "NFTT "
		meta nfproto ipv4 icmp type echo-request log prefix "NFTI "
		icmpv6 type echo-request log prefix "NFTJ "
	}
	chain post {
		type filter hook postrouting priority 0;
		udp dport 7102 log prefix "NFTO "
	}
}
EOF
then
	nft_ok=true
	sysctl -qw net.netfilter.nf_log_all_netns=1 2> /dev/null || nft_ok=false
fi

send udp 10.0.2.2 7100
send udp fd00:2::2 7100
send tcp 10.0.2.2 7101
in_c ping -c 1 -W 1 10.0.2.2 > /dev/null
in_c ping -6 -c 1 -W 1 fd00:2::2 > /dev/null
send udp 10.0.2.2 7102
in_r python3 "$TMP/send.py" udp 10.0.2.2 7102	# the router's own
sleep 0.2
l4=$(lines "MMB4 ")
mac="$(mac_of "$R" r0):$(mac_of "$C" c0):08:00"
check "a UDP packet's line: prefix, IN=, OUT= empty, MAC= dst:src:type (IPv4)" \
	grep -q "^IN=r0 OUT= MAC=$mac SRC=10.0.1.2 DST=10.0.2.2 LEN=3[0-9] TOS=0x00 PREC=0x00 TTL=64 ID=[0-9]* \(DF \)\?PROTO=UDP SPT=40100 DPT=7100 LEN=1[0-9] $" <<< "$l4"
l6=$(lines "MMB6 ")
check "its IPv6 line: TC=, HOPLIMIT=, FLOWLBL=, UDP's ports and length" \
	grep -q "^IN=r0 OUT= MAC=[0-9a-f:]*:86:dd SRC=fd00:0001:0000:0000:0000:0000:0000:0002 DST=fd00:0002:0000:0000:0000:0000:0000:0002 LEN=[0-9]* TC=0 HOPLIMIT=64 FLOWLBL=[0-9]* PROTO=UDP SPT=40100 DPT=7100 LEN=1[0-9] $" <<< "$l6"
lt=$(lines "MMBT ")
check "a SYN's line: WINDOW=, RES=, SYN, URGP=" \
	grep -q "PROTO=TCP SPT=40101 DPT=7101 WINDOW=[0-9]* RES=0x00 SYN URGP=0 $" <<< "$lt"
check "an echo request's: TYPE=8 CODE=0 ID= SEQ=1" \
	grep -q "PROTO=ICMP TYPE=8 CODE=0 ID=[0-9]* SEQ=1 $" <<< "$(lines "MMBI ")"
check "an ICMPv6 echo request's: PROTO=ICMPv6 TYPE=128" \
	grep -q "PROTO=ICMPv6 TYPE=128 CODE=0 ID=[0-9]* SEQ=1 $" <<< "$(lines "MMBJ ")"
lo=$(lines "MMBO ")
omac="$(mac_of "$S" s0):$(mac_of "$R" r1):08:00"
check "a leaving rule's line: IN= where it arrived, OUT= the device, MAC= the header it leaves with, TTL one less" \
	grep -q "^IN=r0 OUT=r1 MAC=$omac SRC=10.0.1.2 DST=10.0.2.2 LEN=[0-9]* TOS=0x00 PREC=0x00 TTL=63 " <<< "$lo"
check "the router's own leaving: IN= empty, no MAC=" \
	grep -q "^IN= OUT=r1 SRC=10.0.2.1 DST=10.0.2.2 LEN=[0-9]* TOS=0x00 PREC=0x00 TTL=64 " <<< "$lo"
check "one line per packet" test "$(wc -l <<< "$l4")" -eq 1 -a "$(wc -l <<< "$lt")" -eq 1 -a "$(wc -l <<< "$lo")" -eq 2
check "the level: info for the IPv6 rule (dmesg -l info)" \
	grep -q "MMB6 IN=r0" <<< "$(dmesg -l info)"
check "the default level is warn, as nft's (dmesg -l warn)" \
	grep -q "MMB4 IN=r0" <<< "$(dmesg -l warn)"

# --- nft's log on the same packets: the oracle -----------------------------
if $nft_ok; then
	for p in 4 6 T I J O; do
		m=$(lines "MMB$p ") n=$(lines "NFT$p ")
		# Leaving, nft's postrouting still has the arriving frame's header; mmb's egress hook the leaving one.
		if [ $p = O ]; then
			m=$(sed 's/ MAC=[^ ]*//' <<< "$m") n=$(sed 's/ MAC=[^ ]*//' <<< "$n")
		fi
		if [ -n "$n" ] && [ "$m" = "$n" ]; then
			ok "nft's oracle: the same line for the same packet ($p)"
		else
			not_ok "nft's oracle: the same line for the same packet ($p)"
			printf 'mmb: %s\nnft: %s\n' "$m" "$n" | diag
			for f in $(tr ' ' '\n' <<< "$n" | sed -n 's/=.*//p' | sort -u); do
				[ "$(field "$m" "$f")" = "$(field "$n" "$f")" ] ||
					echo "field $f: mmb $(field "$m" "$f"), nft $(field "$n" "$f")" | diag
			done
		fi
	done
	in_r nft delete table inet lg
else
	echo "# this kernel has no nft log: the oracle's checks are not run"
fi

# --- trace: what would be logged, nothing logged, no token taken --------------
mark=$(dmesg | wc -l)
tr=$(in_r mmbctl -j trace ip-proto udp ip-daddr 10.0.2.2 udp-dport 7100)
check_jq "trace: the log rule would log the packet" \
	'[.[0].rules[] | select(.log == true and (.rule | test("prefix \"MMB4 \"")))] | length == 1' "$tr"
check_jq "trace: a rule that does not match does not" \
	'[.[0].rules[] | select(.rule | test("MMBT"))] | length == 0' "$tr"
check "trace logs nothing" test "$(dmesg | tail -n +$((mark + 1)) | grep -c "MMB4 ")" -eq 0

# --- list, save, JSON ---------------------------------------------------------
check "list prints the log words after the targets" \
	grep -q "add ip6-daddr fd00:2::2 udp-dport 7100 log prefix \"MMB6 \" level info" <<< "$(in_r mmbctl list)"
check_jq "-j: a log object with prefix and level" \
	'[.[][] | select(.log.prefix == "MMB6 " and .log.level == "info")] | length == 1' \
	"$(in_r mmbctl -j list)"
saved=$(in_r mmbctl save)
in_r mmbctl flush
in_r mmbctl -f - <<< "$saved"
check "save is read back the same" test "$(in_r mmbctl save)" = "$saved"
refused "a prefix over 64 bytes is refused at the word" 2 "1 to 64 bytes" \
	in_r mmbctl add udp-dport 1 log prefix "$(printf 'x%.0s' $(seq 65))"
in_r mmbctl flush

# --- a flood: no more lines than the bucket gives, the rest counted ----------
echo 1 > $P/log_rate
in_r mmbctl add udp-dport 7200 log prefix "FLOOD " drop
s0=$(in_r mmbctl -j show stats | jq '.log_suppressed // 0')
t0=$(date +%s)
send udp 10.0.2.2 7200 10000
t1=$(date +%s)
sleep 0.2
n=$(lines "FLOOD " | grep -c "DPT=7200")
got=$(in_r mmbctl -j list | jq '.[] | select(.rule | test("7200")) | .stats.packets')
s1=$(in_r mmbctl -j show stats | jq '.log_suppressed // 0')
max=$((10 + (t1 - t0 + 1) * 1))
check "10000 packets matched the flood's rule" test "$got" -eq 10000
check "the flood logged at least the burst and no more than burst + rate x time ($n <= $max)" \
	test "$n" -ge 10 -a "$n" -le "$max"
check "the rest is counted log-suppressed, exactly ($((s1 - s0)) = 10000 - $n)" \
	test "$((s1 - s0))" -eq "$((10000 - n))"
check "Prometheus: mmb_log_suppressed_packets_total" \
	grep -q "^mmb_log_suppressed_packets_total $s1$" <<< "$(in_r mmbctl -P show stats)"
in_r mmbctl flush
echo 5 > $P/log_rate

# A rule's own rate and burst, whatever the module's.
echo 1000 > $P/log_rate
in_r mmbctl add udp-dport 7201 log prefix "OWN " rate 2/second burst 3 drop
check "list prints a rule's own rate and burst" \
	grep -q 'udp-dport 7201 drop log prefix "OWN " rate 2/second burst 3' <<< "$(in_r mmbctl list)"
t0=$(date +%s)
send udp 10.0.2.2 7201 1000
t1=$(date +%s)
sleep 0.2
n=$(lines "OWN " | grep -c "DPT=7201")
max=$((3 + (t1 - t0 + 1) * 2))
check "a rule's own rate: its burst, no more than burst + rate x time ($n <= $max)" \
	test "$n" -ge 3 -a "$n" -le "$max"
in_r mmbctl flush
echo 5 > $P/log_rate

# --- monitor log: the same records ---------------------------------------------
in_r mmbctl add udp-dport 7300 log prefix "MON "
in_r mmbctl add tcp-dport 7301 log prefix "MONJ " level notice
in_r mmbctl monitor log > "$TMP/mon.txt" 2>&1 &
mon=$!
in_r mmbctl -j monitor log > "$TMP/mon.json" 2>&1 &
monj=$!
sleep 0.5
send udp 10.0.2.2 7300 3
send tcp fd00:2::2 7301
sleep 0.3
kill "$mon" "$monj"
wait "$mon" "$monj" 2> /dev/null
check "monitor log prints each logged packet, the kernel's line" \
	test "$(grep "^MON " "$TMP/mon.txt")" = "$(lines "MON " | sed 's/^/MON /')"
check "three lines for three packets" test "$(grep -c "^MON .*DPT=7300" "$TMP/mon.txt")" -eq 3
check_jq "-j: its fields as JSON (IPv6 TCP)" \
	'map(select(.prefix == "MONJ ")) | length == 1 and (.[0] | .level == "notice" and .in == "r0" and
	  .saddr == "fd00:1::2" and .daddr == "fd00:2::2" and .proto == 6 and .sport == 40301 and
	  .dport == 7301 and .family == 6 and (.text | startswith("MONJ IN=r0 OUT= MAC=")))' \
	"$(cat "$TMP/mon.json")"
check_jq "-j: UDP's too, with the rule's handle" \
	'map(select(.prefix == "MON ")) | length == 3 and all(.[]; .handle > 0 and .dport == 7300 and .saddr == "10.0.1.2")' \
	"$(cat "$TMP/mon.json")"
in_r mmbctl flush

check "kernel log has no warnings" kernel_log_clean
tap_end
