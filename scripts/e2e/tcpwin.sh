#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, what a TCP segment may do to a connection through source
# NAT: a RST with the connection's exact tuple and a sequence number in its
# window, but a wrong checksum (the stack drops it), changes nothing: after
# 3 s idle (a closed connection lives 2 s here, tcp-close) the session
# still works, through the same mapping. And a connection picked up
# mid-stream, its window scales unknown, ends when its ends close it. The
# topology of lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
in_r mmbctl set timeout tcp-close 2
NAT4=198.51.100.1
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp tcp-syn shuffle tcp-sport \
	mod ip-saddr "$NAT4"

# A client that says what the server sees of it, echoes 1000 bytes, then
# waits (at most CEILING s) for the file GO and echoes N bytes more; with
# "close", it then ends its side and waits for the server's end.
cat > "$TMP/client.py" <<'PY'
import os, socket, sys, time
go, ceiling, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
s = socket.create_connection(("10.0.2.2", 8000), timeout=ceiling,
                             source_address=("10.0.1.2", 0))
f = s.makefile("rwb", buffering=0)
print(f.readline().decode().strip(), flush=True)
def echo(n):
    data = os.urandom(n)
    s.sendall(data)
    got = b""
    while len(got) < n:
        chunk = s.recv(n - len(got))
        if not chunk:
            break
        got += chunk
    return got == data
print("up" if echo(1000) else "broken", flush=True)
end = time.time() + ceiling
while not os.path.exists(go) and time.time() < end:
    time.sleep(0.1)
print("alive" if echo(n) else "broken", flush=True)
if sys.argv[4:] == ["close"]:
    s.shutdown(socket.SHUT_WR)
    print("closed" if s.recv(1) == b"" else "data after the end", flush=True)
PY

# A TCP RST from SRC:SPORT to DST:DPORT at SEQ, its checksum wrong.
cat > "$TMP/bad_rst.py" <<'PY'
import socket, struct, sys
src, dst, sport, dport, seq = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, 0x04, 0, 0, 0)
pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 6, len(tcp))
good = csum(pseudo + tcp)
tcp = tcp[:16] + struct.pack("!H", good ^ 0x5a5a) + tcp[18:]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0,
                 socket.inet_aton(src), socket.inet_aton(dst))
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
s.sendto(ip + tcp, (dst, 0))
PY

tcp_state() {
	in_r mmbctl -j show connections | jq -r '.[] | select(.proto == "tcp") | .state'
}

start_server "$S" python3 "$TRAFFIC" peer-server tcp 8000 1
capture_on "$S" s0 6 100000
bg_in "$C" python3 "$TMP/client.py" "$TMP/go" "$CEILING" 10000 > "$TMP/client"
client_pid=$BG_PID
wait_for "$CEILING" grep -qx 'up' "$TMP/client"
capture_stop s0 > "$TMP/s0.json"
seen=$(head -1 "$TMP/client")
port=${seen#* }
# What the client acknowledged last is where the server's next segment starts.
seq=$(jq -s -r "map(select(.dport == 8000 and .src == \"$NAT4\")) |
	last | .ack" "$TMP/s0.json")
check "the server sees the NAT address and a mapped port" \
	test "${seen% *}" = "$NAT4" -a -n "$port"
check "the client's segments were seen, the last one's ack read" \
	test -n "$seq" -a "$seq" != null
check "the connection is established" test "$(tcp_state)" = established

in_s python3 "$TMP/bad_rst.py" 10.0.2.2 "$NAT4" 8000 "$port" "$seq"
check "after a RST with a wrong checksum, it is still established" \
	test "$(tcp_state)" = established
sleep 3	# idle: a closed connection would have expired
check "after 3 s idle, still established" test "$(tcp_state)" = established
touch "$TMP/go"
status=0
wait "$client_pid" || status=$?
check "the session still works: 10000 bytes echoed through the same mapping" \
	test "$status" -eq 0 -a "$(tail -1 "$TMP/client")" = alive
check_jq "the reply tuple is still the one the server saw" \
	"map(select(.proto == \"tcp\")) | length == 1 and .[0].reply.dport == $port" \
	"$(in_r mmbctl -j show connections | jq -c '.[]')"

# A connection mmb picks up mid-stream (tcp-loose, the default): opened
# while no stateful rule was there, so its SYNs, which carry the window
# scales, went by unseen. Its windows as mmb reckons them are the
# unscaled ones, which 300000 bytes each way soon leave behind; its FINs
# still close it: time-wait, not 5 days established.
in_r mmbctl flush
in_r mmbctl flush connections
bg_in "$C" python3 "$TMP/client.py" "$TMP/go2" "$CEILING" 300000 close > "$TMP/pickup"
pickup_pid=$BG_PID
wait_for "$CEILING" grep -qx 'up' "$TMP/pickup"
check "before the stateful rule, mmb holds no connection" \
	test "$(in_r mmbctl -j show connections | jq length)" -eq 0
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp tcp-dport 8000 accept
touch "$TMP/go2"
status=0
wait "$pickup_pid" || status=$?
check "picked up: 300000 bytes echoed, both ends closed" \
	test "$status" -eq 0 -a "$(tail -3 "$TMP/pickup" | tr '\n' ' ')" = "up alive closed "
check_jq "the picked-up connection saw the bulk both ways and ended in time-wait" \
	'map(select(.proto == "tcp")) | length == 1 and .[0].state == "time-wait" and
	 .[0].orig.bytes > 300000 and .[0].reply.bytes > 300000' \
	"$(in_r mmbctl -j show connections | jq -c '.[]')"
stop_server
check "no warning in the kernel log" kernel_log_clean
tap_end
