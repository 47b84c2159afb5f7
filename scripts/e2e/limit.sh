#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, rate limits and meters (issue 40, item 3): on r0 (topology
# in lib.sh), "limit over 10/second burst 5 ... drop" lets through, of a
# burst of 1000 datagrams, at least the burst and at most the burst and the
# rate's share of the time the burst took (bounds, not exact counts), IPv4
# and IPv6; nft's "limit rate over 10/second burst 5 packets drop" on the same
# traffic keeps within the same bounds; list, save, JSON and trace read it
# back; a per-source meter limits two sources separately; a meter's table at
# its size gives no slot to new keys while its keys are busy (counted as
# full) and evicts idle ones for them (counted as evicted). Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

in_r mmbctl enable r0
ip -n "$C" addr add 10.0.1.3/24 dev c0
ip -n "$C" addr add fd00:1::3/64 dev c0 nodad

# burst.py HOST PORT COUNT SRC [SPORTS [GAP]]: COUNT datagrams to HOST:PORT
# from SRC (from SPORTS source ports in turn, GAP seconds apart), then end
# markers to PORT+1; prints {"sent": N, "secs": S}, S the time the burst took.
cat > "$TMP/burst.py" <<'EOF'
import json, socket, sys, time
host, port, count, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sports = int(sys.argv[5]) if len(sys.argv) > 5 else 1
gap = float(sys.argv[6]) if len(sys.argv) > 6 else 0
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
socks = []
for i in range(sports):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((src, 0 if sports == 1 else 20000 + i))
    socks.append(s)
t = time.monotonic()
for i in range(count):
    socks[i % sports].sendto(b"mmb-limit", (host, port))
    if gap:
        time.sleep(gap)
secs = time.monotonic() - t
for _ in range(3):
    socks[0].sendto(b"end", (host, port + 1))
print(json.dumps({"sent": count, "secs": round(secs, 3)}))
EOF
# count.py PORT: prints "ready", then, at the end marker on PORT+1 (or after
# 30 s), {"total": N, "SRC": N, ...}: the datagrams to PORT by source.
cat > "$TMP/count.py" <<'EOF'
import json, select, socket, sys, time
port = int(sys.argv[1])
socks = []
for p in (port, port + 1):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", p))
    socks.append(s)
print("ready", flush=True)
got = {"total": 0}
end = time.monotonic() + 30
done = False
while not done and time.monotonic() < end:
    r, _, _ = select.select(socks, [], [], 1)
    for s in r:
        _, addr = s.recvfrom(2048)
        if s is socks[1]:
            done = True
            continue
        a = addr[0].replace("::ffff:", "")
        got[a] = got.get(a, 0) + 1
        got["total"] += 1
# What was sent before the marker and is still queued.
while True:
    r, _, _ = select.select(socks[:1], [], [], 0.2)
    if not r:
        break
    _, addr = socks[0].recvfrom(2048)
    a = addr[0].replace("::ffff:", "")
    got[a] = got.get(a, 0) + 1
    got["total"] += 1
print(json.dumps(got), flush=True)
EOF

# [PORT=P] burst DST COUNT SRC [SPORTS [GAP]]: a counted burst to P (7000); BURST the sender's
# line, GOT the counter's.
burst() {
	start_server "$S" python3 "$TMP/count.py" "${PORT:-7000}"
	BURST=$(in_c python3 "$TMP/burst.py" "$1" "${PORT:-7000}" "$2" "$3" "${4:-1}" "${5:-0}")
	server_done
	GOT=$(tail -n 1 "$SERVER_LOG")
}

# within DESC RATE BURST: what GOT counted of SRC (default all) is at
# least BURST and at most BURST + RATE x the burst's seconds + 2.
within() {
	local key=${4:-total}
	check_jq "$1" "(.[0].\"$key\" // 0) as \$n | .[1].secs as \$s |
		\$n >= $3 and \$n <= $3 + $2 * \$s + 2" "$GOT
$BURST"
}

# --- a plain limit, both families -----------------------------------------------
in_r mmbctl add udp-dport 7000 limit over 10/second burst 5 drop
burst 10.0.2.2 1000 10.0.1.2
within "limit over 10/second burst 5 drop: of 1000 datagrams, the burst and the rate's share pass (IPv4)" 10 5
in_r mmbctl flush
in_r mmbctl add udp-dport 7000 limit over 10/second burst 5 drop
burst fd00:2::2 1000 fd00:1::2
within "limit over 10/second burst 5 drop: of 1000 datagrams, the burst and the rate's share pass (IPv6)" 10 5
check_jq "list -s: the rule counts the datagrams it dropped, no more" \
	"(.[0][0].stats.packets) == (1000 - .[1].total)" "$(in_r mmbctl -j list)
$GOT"
check_jq "list and JSON read it back" \
	'.[0][0].rule == "udp-dport 7000 limit over 10/second burst 5 drop" and
	 .[0][0].limit == {"over": true, "rate": 10, "unit": "second", "burst": 5}' \
	"$(in_r mmbctl -j list)"
check "save reads back, and -f takes it" sh -c "
	ip netns exec $R mmbctl save > $TMP/saved &&
	grep -qx 'add udp-dport 7000 limit over 10/second burst 5 drop' $TMP/saved &&
	ip netns exec $R mmbctl flush && ip netns exec $R mmbctl -f $TMP/saved &&
	ip netns exec $R mmbctl list | grep -q 'limit over 10/second burst 5 drop'"
# trace: whether the limit lets its rule apply, no token taken. 1/hour: no
# token comes back during the test.
in_r mmbctl flush
in_r mmbctl add udp-dport 7000 limit over 1/hour burst 5 drop
for i in 1 2 3 4 5 6 7 8; do
	in_r mmbctl trace ip-proto udp udp-dport 7000 > /dev/null
done
check_jq "trace: a full bucket, so the over rule does not apply (limited)" \
	'.[0].rules[0].how == "limited" and .[0].verdict == "pass"' \
	"$(in_r mmbctl -j trace ip-proto udp udp-dport 7000)"
burst 10.0.2.2 20 10.0.1.2
check_jq "the traces took no token: the burst of 5 passes, no more" '.[0].total == 5' "$GOT"
check_jq "trace: the bucket spent, the rule applies and drops" \
	'.[0].rules[0].how == "matched" and .[0].verdict == "drop"' \
	"$(in_r mmbctl -j trace ip-proto udp udp-dport 7000)"
refused "a zero rate is refused at its word" 2 "rate is 1 to" \
	in_r mmbctl add udp-dport 7000 limit 0/second drop
refused "limit in a stateful rule is refused" 2 "not add-stateful" \
	in_r mmbctl add-stateful udp-dport 7000 limit 1/second accept
refused "a meter's key of the other family is refused" 2 "other IP family" \
	in_r mmbctl add ip6-daddr fd00:2::2 limit 1/second per ip-saddr drop
in_r mmbctl flush

# --- nft's limit on the same traffic: the oracle ----------------------------------
if command -v nft > /dev/null && in_r nft -f - 2> /dev/null <<'EOF'
table inet lm {
	chain lmf {
		type filter hook prerouting priority 0;
		udp dport 7000 limit rate over 10/second burst 5 packets drop
	}
}
EOF
then
	burst 10.0.2.2 1000 10.0.1.2
	within "nft's oracle: limit rate over 10/second burst 5 packets drop keeps in the same bounds" 10 5
	NFT_GOT=$GOT
	in_r nft delete table inet lm
	in_r mmbctl add udp-dport 7000 limit over 10/second burst 5 drop
	burst 10.0.2.2 1000 10.0.1.2
	within "nft's oracle: mmb again after nft" 10 5
	diag <<< "nft passed $(jq .total <<< "$NFT_GOT"), mmb $(jq .total <<< "$GOT")"
	in_r mmbctl flush
else
	echo "# this kernel has no nft limit: the oracle's checks are not run"
fi

# --- new connections limited, as docs/limit.md writes it -------------------------
# A TCP server on port 22 of s0 that accepts until it is idle for 12 s, and
# a client that tries 8 connections one after another, each given 3 s: how
# many were accepted. A refused try's SYN is sent again within its 3 s and
# dropped again: the limit's next token is 20 s after the burst, and the
# three refused tries take 9 s.
cat > "$TMP/tcp_accept.py" <<'EOF'
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 22))
s.listen(64)
s.settimeout(12)
print("ready", flush=True)
try:
    while True:
        s.accept()[0].close()
except socket.timeout:
    pass
EOF
cat > "$TMP/tcp_tries.py" <<'EOF'
import socket, sys
ok = 0
for _ in range(int(sys.argv[2])):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(3)
    try:
        c.connect((sys.argv[1], 22))
        ok += 1
    except OSError:
        pass
    c.close()
print(ok)
EOF
tries() {
	start_server "$S" python3 "$TMP/tcp_accept.py"
	GOT=$(in_c python3 "$TMP/tcp_tries.py" 10.0.2.2 8)
	server_done
}
in_r mmbctl add priority 10 tcp-syn tcp-dport 22 limit over 3/minute per ip-saddr drop
in_r mmbctl add-stateful tcp-dport 22 accept
tries
check "limit.md's new connections: of 8 tries from one source, the burst of 5 connect" \
	test "$GOT" -eq 5
in_r mmbctl flush
in_r mmbctl add tcp-syn tcp-dport 22 limit over 3/minute per ip-saddr drop
in_r mmbctl add-stateful tcp-dport 22 accept
tries
check "the same without priority 10: the stateful accept beats the drop, all 8 connect" \
	test "$GOT" -eq 8
in_r mmbctl flush

# --- a meter per source: two sources limited apart --------------------------------
# 1/hour: no token comes back while the test runs, so the counts are exact.
in_r mmbctl add udp-dport 7000 limit over 1/hour burst 5 per ip-saddr size 16 drop
burst 10.0.2.2 100 10.0.1.2
check_jq "per ip-saddr: the first source gets its burst of 5" '.[0]."10.0.1.2" == 5' "$GOT"
burst 10.0.2.2 100 10.0.1.3
check_jq "per ip-saddr: the second source, after the first spent its bucket, gets its own 5" \
	'.[0]."10.0.1.3" == 5' "$GOT"
burst 10.0.2.2 100 10.0.1.2
check_jq "per ip-saddr: the first source's bucket is still spent" '.[0].total == 0' "$GOT"
in_r mmbctl flush
in_r mmbctl add udp-dport 7000 limit over 10/second burst 5 per ip-saddr drop
burst 10.0.2.2 1000 10.0.1.3
within "per ip-saddr, 10/second: the burst and the rate's share of 1000" 10 5 10.0.1.3
in_r mmbctl flush
in_r mmbctl add udp-dport 7000 limit over 1/hour burst 5 per ip6-saddr/64 drop
burst fd00:2::2 100 fd00:1::2
GOT1=$GOT
burst fd00:2::2 100 fd00:1::3
check_jq "per ip6-saddr/64: two sources of one /64 share one bucket" \
	'.[0]."fd00:1::2" == 5 and .[1].total == 0' "$GOT1
$GOT"
in_r mmbctl flush

# --- a meter's table at its size ------------------------------------------------------
# 1/hour: no key is idle again during the test. 10 keys, 4 slots: 4 get a
# bucket and pass, 6 find none (full) and are dropped.
in_r mmbctl add udp-dport 7000 limit over 1/hour burst 1 per udp-sport size 4 drop
burst 10.0.2.2 10 10.0.1.2 10
check_jq "size 4, all busy: 4 keys pass, 6 find no slot" '.[0].total == 4' "$GOT"
check_jq "list -s: full 6, evicted 0" '.[0][0].stats.full == 6 and .[0][0].stats.evicted == 0' \
	"$(in_r mmbctl -j list)"
check "list -s shows them" sh -c "ip netns exec $R mmbctl -s list | grep -q 'evicted 0 full 6'"
# show stats sums every meter: a second one whose 3 keys of 5 find no slot.
in_r mmbctl add udp-dport 7001 limit over 1/hour burst 1 per udp-sport size 2 drop
PORT=7001 burst 10.0.2.2 5 10.0.1.2 5
check_jq "size 2, all busy: 2 keys pass, 3 find no slot" '.[0].total == 2' "$GOT"
check_jq "show stats: the meters summed (full 6 + 3, evicted 0)" \
	'.[0].meters == {"evicted": 0, "full": 9}' "$(in_r mmbctl -j show stats)"
check "show stats shows them" sh -c "ip netns exec $R mmbctl show stats | grep -qx 'meters evicted 0 full 9'"
in_r mmbctl flush
check_jq "show stats: no meter, no meters object" '.[0].meters == null' "$(in_r mmbctl -j show stats)"
# 100/second burst 1: a key is idle 10 ms after its packet. 40 keys 30 ms
# apart: each finds an idle slot, the older keys evicted.
in_r mmbctl add udp-dport 7000 limit over 100/second burst 1 per udp-sport size 4 drop
burst 10.0.2.2 40 10.0.1.2 40 0.03
check_jq "size 4, idle keys: every key gets a slot, none dropped" '.[0].total == 40' "$GOT"
check_jq "list -s: the idle keys evicted for the new ones" \
	'.[0][0].stats.evicted >= 36 and .[0][0].stats.full == 0' "$(in_r mmbctl -j list)"
in_r mmbctl reset counters
check_jq "reset counters zeroes them" '.[0][0].stats.evicted == 0' "$(in_r mmbctl -j list)"
in_r mmbctl flush

check "kernel log has no warnings" kernel_log_clean
tap_end
