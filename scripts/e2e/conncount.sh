#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, ct count (issue 40, item 3's per-key connection cap):
# real TCP connections through the router (mmb on r0 and r1; topology in
# lib.sh) from two sources of the client, A (10.0.1.2, fd00:1::2) and B
# (10.0.1.3, fd00:1::3), to a server that holds each connection until its
# client closes it. With three connections per source allowed, the fourth
# from A is refused at once ("connection refused", by the reject rule it
# falls to, or by a "ct count over" reject rule above), B is unaffected,
# and once A closes one, a new one from A gets through. IPv4 and IPv6;
# nft's "ct count over 3" in a set keyed by the source, on the same
# traffic, is the oracle. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin

in_r mmbctl enable r0
in_r mmbctl enable r1
ip -n "$C" addr add 10.0.1.3/24 dev c0
ip -n "$C" addr add fd00:1::3/64 dev c0 nodad

# The server: accepts on 7000, holds each connection until its client
# closes it, then closes its side (so that both ends' FINs are seen).
cat > "$TMP/hold.py" <<'EOF'
import asyncio, socket
async def conn(r, w):
    await r.read()
    w.close()
async def main():
    servers = [await asyncio.start_server(conn, "0.0.0.0", 7000, backlog=64),
               await asyncio.start_server(conn, "::", 7000, backlog=64,
                                          family=socket.AF_INET6)]
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))
asyncio.run(main())
EOF

# The client: a scenario of connects and closes from sources A and B to
# DST:7000; one JSON line of what each step saw.
#   steps: "a" / "b" connect from A / B, "x" close A's oldest (FIN),
#          "A" connect from A until one gets through (5 s at most)
cat > "$TMP/scenario.py" <<'EOF'
import json, socket, sys, time
dst, a, b, steps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
held = {"a": [], "b": []}
out = []
def connect(src):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(5)
    s.bind((src, 0))
    try:
        s.connect((dst, 7000))
        return s, "connected"
    except ConnectionRefusedError:
        s.close()
        return None, "refused"
    except socket.timeout:
        s.close()
        return None, "timeout"
    except OSError as e:
        s.close()
        return None, "errno %d" % e.errno
for st in steps:
    if st in "ab":
        s, what = connect(a if st == "a" else b)
        if s:
            held[st].append(s)
        out.append(what)
    elif st == "x":
        s = held["a"].pop(0)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(5)
        s.recv(1)          # the server's FIN: both ends closed
        s.close()
        out.append("closed")
    elif st == "A":
        end = time.monotonic() + 5
        while True:
            s, what = connect(a)
            if s or time.monotonic() > end:
                break
            time.sleep(0.1)
        if s:
            held["a"].append(s)
        out.append(what)
print(json.dumps(out))
EOF
# scenario DST A B: 3 from A, a 4th, 3 from B, a 4th from B, A closes one, A again.
STEPS=aaaabbbbxA
WANT='["connected","connected","connected","refused","connected","connected","connected","refused","closed","connected"]'
scenario() { in_c python3 "$TMP/scenario.py" "$@" "$STEPS"; }

start_server "$S" python3 "$TMP/hold.py"

# --- a stateful rule's cap; the fourth falls to the reject below --------------------
in_r mmbctl add-stateful tcp-dport 7000 ct count 3 per ip-saddr accept
in_r mmbctl add-stateful tcp-dport 7000 ct count 3 per ip6-saddr accept
in_r mmbctl add tcp-dport 7000 reject
out4=$(scenario 10.0.2.2 10.0.1.2 10.0.1.3)
check_jq "add-stateful ct count 3 per ip-saddr: A's 4th refused, B has its own 3, A again after a close (IPv4)" \
	".[0] == $WANT" "$out4"
out6=$(scenario fd00:2::2 fd00:1::2 fd00:1::3)
check_jq "add-stateful ct count 3 per ip6-saddr: the same (IPv6)" ".[0] == $WANT" "$out6"
check_jq "list: the rules read back" \
	'[.[0][] | .rule][0:2] == ["tcp-dport 7000 ct count 3 per ip-saddr accept", "tcp-dport 7000 ct count 3 per ip6-saddr accept"] and .[0][0].ct_count.limit == 3 and .[0][0].ct_count.per == "ip-saddr"' \
	"$(in_r mmbctl -j list)"
check "save reads back" sh -c \
	"ip netns exec $R mmbctl save | grep -qx 'add-stateful tcp-dport 7000 ct count 3 per ip-saddr accept'"
in_r mmbctl save > "$TMP/saved"
check "save's file is taken back by -f" in_r mmbctl -f "$TMP/saved"
check_jq "trace: a SYN from a source of no connection matches (its key holds 0)" \
	'.[0].rules[0].how == "stateful" and .[0].rules[0].ct_count == 0' \
	"$(in_r mmbctl -j trace ip-saddr 10.0.1.9 ip-daddr 10.0.2.2 tcp-dport 7000)"
in_r mmbctl flush

# --- a stateless "ct count over" reject above a stateful accept --------------------------
in_r mmbctl add-stateful tcp-dport 7000 accept
in_r mmbctl add priority 10 tcp-dport 7000 ct count over 3 per ip-saddr/24 reject
in_r mmbctl add priority 10 tcp-dport 7000 ct count over 3 per ip6-saddr/64 reject
# Both sources are in one /24 (one /64): they share the count of 3.
check_jq "add priority 10 ... ct count over 3 per ip-saddr/24 reject: A and B share one count (IPv4)" \
	'.[0] == ["connected","connected","connected","refused","refused","refused","refused","refused","closed","connected"]' \
	"$(scenario 10.0.2.2 10.0.1.2 10.0.1.3)"
check_jq "... per ip6-saddr/64: the same (IPv6)" \
	'.[0] == ["connected","connected","connected","refused","refused","refused","refused","refused","closed","connected"]' \
	"$(scenario fd00:2::2 fd00:1::2 fd00:1::3)"
in_r mmbctl flush
refused "ct count over in add-stateful is refused at the word" 2 'over' \
	in_r mmbctl add-stateful tcp-dport 7000 ct count over 3 accept
refused "per a port is refused at the word" 2 'per takes' \
	in_r mmbctl add-stateful tcp-dport 7000 ct count 3 per tcp-sport accept
refused "per ip-saddr in an IPv6 rule is refused by the kernel" 1 'family' \
	in_r mmbctl add-stateful ip6-daddr fd00:2::2 ct count 3 per ip-saddr accept

# --- nft's ct count over 3 per source, on the same traffic: the oracle ----------------
if command -v nft > /dev/null && in_r nft -f - 2> /dev/null <<'EOF'
table inet cc {
	set src4 {
		type ipv4_addr
		size 65535
		flags dynamic
	}
	set src6 {
		type ipv6_addr
		size 65535
		flags dynamic
	}
	chain forward_cc {
		type filter hook forward priority 0;
		tcp dport 7000 ct state new add @src4 { ip saddr ct count over 3 } reject with tcp reset
		tcp dport 7000 ct state new add @src6 { ip6 saddr ct count over 3 } reject with tcp reset
	}
}
EOF
then
	nft4=$(scenario 10.0.2.2 10.0.1.2 10.0.1.3)
	nft6=$(scenario fd00:2::2 fd00:1::2 fd00:1::3)
	in_r nft delete table inet cc
	check_jq "nft's oracle: nft's ct count over 3 gives the same answers (IPv4)" \
		".[0] == .[1]" "$nft4
$out4"
	check_jq "nft's oracle: the same (IPv6)" ".[0] == .[1]" "$nft6
$out6"
else
	echo "# this kernel has no nft ct count: the oracle's checks are not run"
fi

kill "$SERVER_PID" 2> /dev/null
check "kernel log has no warnings" kernel_log_clean
tap_end
