#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, reject (issue 40, item 1): through the router (mmb on r0
# and r1; topology in lib.sh) a TCP connect to a rejected port fails at once
# with "connection refused" (a timeout would be a failure: the client waits
# 5 s at most), a connected UDP socket gets ECONNREFUSED, and each "with"
# answer reaches the client as its ICMP or ICMPv6 code, sent from the
# router; IPv4 and IPv6; the same from a leaving rule, to a forwarded
# client and to the router's own; trace says what would be sent; a flood
# gets no more answers than the budget; a subnet's broadcast source gets
# none; and where the kernel has nft's
# reject, nft on the same traffic gives the same answers. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
rate0=$(cat /sys/module/mmb/parameters/reject_rate)
burst0=$(cat /sys/module/mmb/parameters/reject_burst)
reject_down() {
	echo "$rate0" > /sys/module/mmb/parameters/reject_rate
	echo "$burst0" > /sys/module/mmb/parameters/reject_burst
	topology_down
}
trap reject_down EXIT

in_r mmbctl enable r0
in_r mmbctl enable r1
# Every answer to reach the client: no per-peer ICMP limit in the router.
in_r sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0

# probe tcp|udp HOST PORT: one JSON line, what a client saw.
cat > "$TMP/probe.py" <<'EOF'
import json, select, socket, struct, sys, time
kind, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
out = {}
t = time.monotonic()
if kind == "tcp":
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect((host, port))
        out["tcp"] = "connected"
    except ConnectionRefusedError:
        out["tcp"] = "refused"
    except socket.timeout:
        out["tcp"] = "timeout"
    except OSError as e:
        out["tcp"] = "errno %d" % e.errno
else:
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, 11, 1)          # IP_RECVERR
    else:
        s.setsockopt(socket.IPPROTO_IPV6, 25, 1)        # IPV6_RECVERR
    s.connect((host, port))
    try:
        s.send(b"mmb-reject")
    except OSError as e:
        # The host's own, dropped in the egress hook: ENOBUFS, as any drop there.
        out["send"] = "errno %d" % e.errno
    readable, _, failed = select.select([s], [], [s], 5)
    if not readable and not failed:
        out["udp"] = "timeout"
    else:
        try:
            s.recv(100)
            out["udp"] = "reply"
        except ConnectionRefusedError:
            out["udp"] = "ECONNREFUSED"
        except OSError as e:
            out["udp"] = "errno %d" % e.errno
        try:
            _, anc, _, _ = s.recvmsg(512, 512, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except BlockingIOError:
            anc = []
        for level, typ, data in anc:
            _, _, itype, code, _, _ = struct.unpack("=IBBBBI", data[:12])
            off = data[16:]
            if struct.unpack("=H", off[:2])[0] == socket.AF_INET:
                src = socket.inet_ntop(socket.AF_INET, off[4:8])
            else:
                src = socket.inet_ntop(socket.AF_INET6, off[8:24])
            out["icmp"] = [itype, code]
            out["from"] = src
out["secs"] = round(time.monotonic() - t, 2)
print(json.dumps(out))
EOF
probe() { in_c python3 "$TMP/probe.py" "$@"; }

start_server "$S" python3 "$TRAFFIC" peer-server tcp 7000 1
bg_in "$S" python3 "$TRAFFIC" udp-echo 7000
UDP_PID=$BG_PID
wait_for "$CEILING" sh -c "ip netns exec $S ss -Hunl | grep -q ':7000 '"

# --- without a rule, both get through -------------------------------------------
check_jq "no rule: the connect gets through (IPv4)" '.[0].tcp == "connected"' \
	"$(probe tcp 10.0.2.2 7000)"
check_jq "no rule: the datagram is echoed (IPv6)" '.[0].udp == "reply"' \
	"$(probe udp fd00:2::2 7000)"

# --- reject: a RST for TCP, port unreachable for UDP ------------------------------
in_r mmbctl add tcp-dport 7000 reject
in_r mmbctl add udp-dport 7000 reject
for dst in 10.0.2.2 fd00:2::2; do
	check_jq "reject: connect to $dst is refused at once" \
		'.[0].tcp == "refused" and .[0].secs < 3' "$(probe tcp $dst 7000)"
done
check_jq "reject: the connected UDP socket gets ECONNREFUSED, port unreachable from the router (IPv4)" \
	'.[0].udp == "ECONNREFUSED" and .[0].icmp == [3, 3] and .[0].from == "10.0.1.1"' \
	"$(probe udp 10.0.2.2 7000)"
check_jq "reject: the connected UDP socket gets ECONNREFUSED, port unreachable from the router (IPv6)" \
	'.[0].udp == "ECONNREFUSED" and .[0].icmp == [1, 4] and .[0].from == "fd00:1::1"' \
	"$(probe udp fd00:2::2 7000)"
check "reject: counted as the rules' drops" test "$(dev_drops r0 rule)" -ge 4
check_jq "list: the rules read back" \
	'[.[0][] | .rule] == ["tcp-dport 7000 reject", "udp-dport 7000 reject"]' \
	"$(in_r mmbctl -j list)"
check "save reads back" sh -c "ip netns exec $R mmbctl save | grep -qx 'add tcp-dport 7000 reject'"
check_jq "trace: would reject with tcp-reset, nothing sent" '.[0].reject == "tcp-reset"' \
	"$(in_r mmbctl -j trace ip-proto tcp tcp-dport 7000)"
in_r mmbctl flush

# --- each answer, as the client sees it ---------------------------------------------
for w in "port-unreachable 3 3 1 4" "host-unreachable 3 1 1 3" "net-unreachable 3 0 1 0" \
	 "admin-prohibited 3 13 1 1"; do
	set -- $w
	in_r mmbctl add udp-dport 7000 reject with "$1"
	check_jq "reject with $1: ICMP $2/$3 (IPv4)" ".[0].icmp == [$2, $3]" \
		"$(probe udp 10.0.2.2 7000)"
	check_jq "reject with $1: ICMPv6 $4/$5 (IPv6)" ".[0].icmp == [$4, $5]" \
		"$(probe udp fd00:2::2 7000)"
	in_r mmbctl flush
done
in_r mmbctl add tcp-dport 7000 reject with host-unreachable
check_jq "reject with host-unreachable: a TCP connect fails at once, no RST" \
	'.[0].tcp != "connected" and .[0].tcp != "timeout" and .[0].tcp != "refused"' \
	"$(probe tcp 10.0.2.2 7000)"
in_r mmbctl flush
refused "with tcp-reset on a UDP rule is refused at the word" 2 'for TCP rules only' \
	in_r mmbctl add udp-dport 7000 reject with tcp-reset
refused "reject with a rewrite is refused by the kernel, at the word" 1 'only target' \
	in_r mmbctl add tcp-dport 7000 reject mod ip-ttl 3

# --- leaving: forwarded, and the router's own -----------------------------------
in_r mmbctl add out r1 tcp-dport 7000 reject
in_r mmbctl add out r1 udp-dport 7000 reject
check_jq "out r1 reject: a forwarded connect is refused at once (IPv4)" \
	'.[0].tcp == "refused" and .[0].secs < 3' "$(probe tcp 10.0.2.2 7000)"
check_jq "out r1 reject: a forwarded connect is refused at once (IPv6)" \
	'.[0].tcp == "refused" and .[0].secs < 3' "$(probe tcp fd00:2::2 7000)"
check_jq "out r1 reject: a forwarded datagram gets port unreachable (IPv6)" \
	'.[0].icmp == [1, 4]' "$(probe udp fd00:2::2 7000)"
check_jq "out r1 reject: the router's own connect is refused" \
	'.[0].tcp == "refused" and .[0].secs < 3' \
	"$(in_r python3 "$TMP/probe.py" tcp 10.0.2.2 7000)"
check_jq "out r1 reject: the router's own connected UDP socket gets ECONNREFUSED (its send ENOBUFS)" \
	'.[0].udp == "ECONNREFUSED" and .[0].send == "errno 105"' "$(in_r python3 "$TMP/probe.py" udp 10.0.2.2 7000)"
in_r mmbctl flush

# --- a flood gets the budget's answers, no more -------------------------------------
# The kernel's own ICMP limits out of the way: mmb's is the one measured.
in_r sysctl -qw net.ipv4.icmp_msgs_per_sec=100000 net.ipv4.icmp_msgs_burst=100000
echo 1 > /sys/module/mmb/parameters/reject_rate
echo 20 > /sys/module/mmb/parameters/reject_burst
in_r mmbctl add udp-dport 7001 reject
before=$(in_c nstat -az IcmpInDestUnreachs | awk '/IcmpInDestUnreachs/ {print $2}')
t0=$SECONDS
in_c python3 "$TRAFFIC" udp-send 10.0.2.2 7001 500 20 > /dev/null
wait_for "$CEILING" drops_reached r0 rule 500
sleep 0.2
after=$(in_c nstat -az IcmpInDestUnreachs | awk '/IcmpInDestUnreachs/ {print $2}')
got=$((after - before))
secs=$((SECONDS - t0 + 1))
if [ "$got" -ge 20 ] && [ "$got" -le $((20 + secs)) ]; then
	ok "a flood of 500: $got answers, the burst of 20 and 1 a second ($secs s)"
else
	not_ok "a flood of 500: $got answers, the burst of 20 and 1 a second ($secs s)"
fi
echo "$rate0" > /sys/module/mmb/parameters/reject_rate
echo "$burst0" > /sys/module/mmb/parameters/reject_burst
in_r mmbctl flush

# --- never to a broadcast source ----------------------------------------------------
# A datagram "from" the broadcast address of the client's subnet, the one
# of r0 (10.0.1.255), to a rejected port is dropped unanswered: the answer
# would go to every host of that subnet (RFC 1812 4.3.2.7). The same
# datagram from the client's own address is answered, to it.
in_r mmbctl add udp-dport 7003 reject
rmac=$(mac_of "$R" r0)
for src in 10.0.1.2 10.0.1.255; do
	capture_on "$C" c0 1 1 2
	in_c python3 "$TRAFFIC" raw-udp c0 "$rmac" "$src" 10.0.2.2 40000 7003 1 > /dev/null
	eval "icmp_${src##*.}=\$(capture_stop c0 | jq -r .dst)"
done
check "a rejected datagram from the client is answered to it ($icmp_2)" test "$icmp_2" = 10.0.1.2
check "one from its subnet's broadcast address is not answered ($icmp_255)" test -z "$icmp_255"
check "...though the rule dropped both" test "$(in_r mmbctl -j list |
	jq '.[] | select(.rule | contains("udp-dport 7003")) | .stats.packets')" -eq 2
in_r mmbctl flush

# --- nft's reject on the same traffic: the oracle, where the kernel has it ---------
if command -v nft > /dev/null && in_r nft -f - 2> /dev/null <<'EOF'
table inet rj {
	chain rjf {
		type filter hook forward priority 0;
		tcp dport 7000 reject with tcp reset
		udp dport 7000 reject with icmpx type admin-prohibited
		udp dport 7002 reject
	}
}
EOF
then
	nft_tcp4=$(probe tcp 10.0.2.2 7000 | jq -c '{tcp}')
	nft_tcp6=$(probe tcp fd00:2::2 7000 | jq -c '{tcp}')
	nft_udp4=$(probe udp 10.0.2.2 7000 | jq -c '{udp, icmp, from}')
	nft_udp6=$(probe udp fd00:2::2 7000 | jq -c '{udp, icmp, from}')
	nft_port6=$(probe udp fd00:2::2 7002 | jq -c '{udp, icmp, from}')
	in_r nft delete table inet rj
	in_r mmbctl add tcp-dport 7000 reject with tcp-reset
	in_r mmbctl add udp-dport 7000 reject with admin-prohibited
	in_r mmbctl add udp-dport 7002 reject
	check "nft's oracle: the same TCP answer (IPv4)" \
		test "$(probe tcp 10.0.2.2 7000 | jq -c '{tcp}')" = "$nft_tcp4"
	check "nft's oracle: the same TCP answer (IPv6)" \
		test "$(probe tcp fd00:2::2 7000 | jq -c '{tcp}')" = "$nft_tcp6"
	check "nft's oracle: the same ICMP answer, from the same address (IPv4)" \
		test "$(probe udp 10.0.2.2 7000 | jq -c '{udp, icmp, from}')" = "$nft_udp4"
	check "nft's oracle: the same ICMPv6 answer, from the same address (IPv6)" \
		test "$(probe udp fd00:2::2 7000 | jq -c '{udp, icmp, from}')" = "$nft_udp6"
	check "nft's oracle: the same default answer to UDP (IPv6)" \
		test "$(probe udp fd00:2::2 7002 | jq -c '{udp, icmp, from}')" = "$nft_port6"
	in_r mmbctl flush
else
	echo "# this kernel has no nft reject: the oracle's checks are not run"
fi

kill "$UDP_PID" 2> /dev/null
stop_server
check "kernel log has no warnings" kernel_log_clean
tap_end
