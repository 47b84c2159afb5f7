#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmb end-to-end, fragments through NAT: a 3000-byte UDP datagram, DF
# clear, leaves the client in three fragments (its link's MTU is 1500);
# through the router's source NAT (or its ID shuffle) every fragment must
# carry the same translation, or the server cannot reassemble it. IPv4 and
# IPv6. A later fragment whose first one mmb did not see is dropped and
# counted (unmapped), never passed on untranslated. The topology of
# lib.sh. Prints TAP.
set -u

. "$(dirname "$0")/lib.sh"
e2e_begin
in_r mmbctl enable r0
in_r mmbctl enable r1
NAT4=198.51.100.1
NAT6=2001:db8:9::1
PORT=9100
SIZE=3000

FRAG=$TMP/frag.py
cat > "$FRAG" << 'EOF'
import json, socket, struct, sys, time

IP_MTU_DISCOVER, IP_PMTUDISC_DONT = 10, 0
IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DONT = 23, 0


def recv(port, seconds):
    """One datagram: print its length and its sender's address."""
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", int(port)))
    s.settimeout(float(seconds))
    print("ready", flush=True)
    data, addr = s.recvfrom(65536)
    print(len(data), addr[0].removeprefix("::ffff:"), flush=True)


def send(host, port, size):
    """A datagram of SIZE bytes, fragmented here: DF clear."""
    v6 = ":" in host
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DONT)
    else:
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DONT)
    s.sendto(b"f" * int(size), (host, int(port)))


def sniff(iface, count, seconds):
    """The fragments IFACE receives, a JSON line each, COUNT of them."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((iface, 0))
    s.settimeout(float(seconds))
    print("ready", flush=True)
    got, end = 0, time.monotonic() + float(seconds)
    while got < int(count) and time.monotonic() < end:
        try:
            frame, addr = s.recvfrom(65536)
        except socket.timeout:
            break
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        kind, p = struct.unpack("!H", frame[12:14])[0], frame[14:]
        if kind == 0x0800 and struct.unpack("!H", p[6:8])[0] & 0x3FFF:
            fo = struct.unpack("!H", p[6:8])[0]
            f = {"src": socket.inet_ntop(socket.AF_INET, p[12:16]),
                 "id": struct.unpack("!H", p[4:6])[0],
                 "off": (fo & 0x1FFF) * 8, "more": bool(fo & 0x2000)}
        elif kind == 0x86DD and p[6] == 44:
            fo = struct.unpack("!H", p[42:44])[0]
            f = {"src": socket.inet_ntop(socket.AF_INET6, p[8:24]),
                 "id": struct.unpack("!I", p[44:48])[0],
                 "off": fo & 0xFFF8, "more": bool(fo & 1)}
        else:
            continue
        print(json.dumps(f), flush=True)
        got += 1


def orphan(src, dst):
    """A later fragment alone: its datagram's first one never comes."""
    v6 = ":" in dst
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    saddr, daddr = socket.inet_pton(fam, src), socket.inet_pton(fam, dst)
    data = b"o" * 200
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_RAW)
    if v6:
        frag = struct.pack("!BBHI", 17, 0, 1448, 0x4242)
        pkt = struct.pack("!IHBB", 6 << 28, len(frag) + len(data), 44, 64) + \
            saddr + daddr + frag + data
        s.sendto(pkt, (dst, 0))
    else:
        pkt = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(data), 0x4242, 1480 // 8,
                          64, 17, 0) + saddr + daddr + data
        s.sendto(pkt, (dst, 0))


MODES = {"recv": recv, "send": send, "sniff": sniff, "orphan": orphan}
sys.exit(MODES[sys.argv[1]](*sys.argv[2:]))
EOF

# The fragments the server receives, in $TMP/sniff, in the background.
capture_frags() {
	rm -f "$TMP/sniff"
	ip netns exec "$S" python3 "$FRAG" sniff s0 3 "$CEILING" > "$TMP/sniff.raw" &
	SNIFF_PID=$!
	wait_for "$CEILING" grep -q '^ready' "$TMP/sniff.raw"
	SNIFF_RAW=$TMP/sniff.raw
}

wait_sniff() {
	wait "$SNIFF_PID"
	grep -v '^ready' "$SNIFF_RAW" > "$TMP/sniff"
}

# through DESC DST SRC: a SIZE-byte datagram from the client to DST arrives
# whole at the server from SRC, in three fragments, each from SRC, with
# one ID.
through() {
	local desc=$1 dst=$2 src=$3

	capture_frags
	start_server "$S" python3 "$FRAG" recv "$PORT" "$CEILING"
	in_c python3 "$FRAG" send "$dst" "$PORT" "$SIZE"
	server_done
	check "$desc: the server receives the $SIZE bytes whole, from $src" \
		test "$(tail -n 1 "$SERVER_LOG")" = "$SIZE $src"
	wait_sniff
	check_jq "$desc: in 3 fragments, each from $src, with one ID" \
		'length == 3 and all(.[]; .src == "'"$src"'") and
		 (map(.id) | unique | length == 1)' "$(cat "$TMP/sniff")"
}

unmapped() {
	dev_drops r0 unmapped
}

# --- IPv4 source NAT -----------------------------------------------------------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto udp mod ip-saddr "$NAT4"
through "ipv4 snat" 10.0.2.2 "$NAT4"
before=$(unmapped)
in_c python3 "$FRAG" orphan 10.0.1.2 10.0.2.2
check "ipv4 snat: a later fragment without its first is dropped, counted as unmapped" \
	wait_for "$CEILING" drops_reached r0 unmapped $((before + 1))
check "show stats counts it" \
	bash -c "ip netns exec $R mmbctl show stats | grep -Eq ' unmapped [1-9][0-9]*( |$)'"
in_r mmbctl flush

# --- IPv4 ID shuffle alone -------------------------------------------------------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto udp shuffle ip-id
through "ip-id shuffle" 10.0.2.2 10.0.1.2
in_r mmbctl flush

# --- a datagram of no connection, with stateful rules: as before ----------------------
in_r mmbctl add-stateful ip-saddr 10.0.1.0/24 ip-proto tcp mod ip-saddr "$NAT4"
through "untracked udp" 10.0.2.2 10.0.1.2
in_r mmbctl flush

# --- IPv6 source NAT -----------------------------------------------------------------
in_r mmbctl add-stateful ip6-saddr fd00:1::/64 mod ip6-saddr "$NAT6"
through "ipv6 snat" fd00:2::2 "$NAT6"
before=$(unmapped)
in_c python3 "$FRAG" orphan fd00:1::2 fd00:2::2
check "ipv6 snat: a later fragment without its first is dropped, counted as unmapped" \
	wait_for "$CEILING" drops_reached r0 unmapped $((before + 1))
in_r mmbctl flush

check "no kernel warnings" kernel_log_clean
tap_end
