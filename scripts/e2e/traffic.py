#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic for the end-to-end tests: every mode checks what arrived.

  tcp-echo-server PORT            echo each connection back (IPv4 and IPv6);
                                  prints "ready" once listening
  tcp-client HOST PORT BYTES      send BYTES random bytes, expect them back
  udp-sink PORT COUNT SECONDS     prints "ready", waits for COUNT datagrams,
                                  prints how many came
  udp-send HOST PORT COUNT SIZE [TOS [SRC]]
                                  send COUNT datagrams of SIZE bytes, with
                                  that TOS / traffic class, from SRC
  capture IFACE PROTO COUNT SECONDS
                                  print "ready", then one JSON line per IP
                                  packet of PROTO received on IFACE: header
                                  fields and whether each checksum is valid
  udp-stream HOST PORT SECONDS    send datagrams at ~1000/s for SECONDS

Exit status 0 when the traffic went through as expected, 1 otherwise.
"""
import json
import os
import socket
import struct
import sys
import threading
import time


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def tcp_echo_server(port):
    srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    srv.bind(("::", int(port)))
    srv.listen(16)
    print("ready", flush=True)

    def serve(conn):
        with conn:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                conn.sendall(data)

    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def tcp_client(host, port, nbytes):
    nbytes = int(nbytes)
    data = os.urandom(nbytes)
    got = bytearray()
    with socket.create_connection((host, int(port)), timeout=20) as s:
        sender = threading.Thread(target=s.sendall, args=(data,))
        sender.start()
        while len(got) < nbytes:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        sender.join()
    if bytes(got) != data:
        print(f"tcp-client: sent {nbytes} bytes, got {len(got)} back, "
              f"{'equal' if bytes(got) == data else 'different'}")
        return 1
    return 0


def receive(s, count, seconds):
    """Yield what @s receives, up to @count items or @seconds."""
    deadline = time.monotonic() + float(seconds)
    for _ in range(int(count)):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        s.settimeout(left)
        try:
            yield s.recvfrom(65536)
        except socket.timeout:
            return


def udp_sink(port, count, seconds):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    # Room for every datagram even if this process stalls (slow VMs).
    s.setsockopt(socket.SOL_SOCKET, 33, 4 << 20)  # SO_RCVBUFFORCE
    s.bind(("::", int(port)))
    print("ready", flush=True)
    got = sum(1 for _ in receive(s, count, seconds))
    print(got)
    return 0 if got == int(count) else 1


def udp_send(host, port, count, size, tos="0", src=None):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    if family(host) == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, int(tos, 0))
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, int(tos, 0))
    if src:
        s.bind((src, 0))
    payload = os.urandom(int(size))
    for _ in range(int(count)):
        s.sendto(payload, (host, int(port)))
        time.sleep(0.001)
    return 0


def udp_stream(host, port, seconds):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end:
        s.sendto(b"x" * 64, (host, int(port)))
        time.sleep(0.001)
    return 0


def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def parse_ip(frame):
    """Header fields of an IPv4/IPv6 packet and whether its checksums hold."""
    ethertype = struct.unpack("!H", frame[12:14])[0]
    pkt = frame[14:]
    if ethertype == 0x0800:
        ihl = (pkt[0] & 0xF) * 4
        end = struct.unpack("!H", pkt[2:4])[0]
        info = {"v": 4, "len": end, "tos": pkt[1], "ttl": pkt[8], "proto": pkt[9],
                "src": socket.inet_ntop(socket.AF_INET, pkt[12:16]),
                "dst": socket.inet_ntop(socket.AF_INET, pkt[16:20]),
                "ip_csum": csum(pkt[:ihl]) == 0xFFFF}
        l4 = pkt[ihl:end]
        pseudo = pkt[12:20] + struct.pack("!BBH", 0, pkt[9], len(l4))
    elif ethertype == 0x86DD:
        end = 40 + struct.unpack("!H", pkt[4:6])[0]
        info = {"v": 6, "len": end, "tos": (struct.unpack("!H", pkt[0:2])[0] >> 4) & 0xFF,
                "ttl": pkt[7], "proto": pkt[6],
                "src": socket.inet_ntop(socket.AF_INET6, pkt[8:24]),
                "dst": socket.inet_ntop(socket.AF_INET6, pkt[24:40]),
                "ip_csum": True}
        l4 = pkt[40:end]
        pseudo = pkt[8:40] + struct.pack("!IxxxB", len(l4), pkt[6])
    else:
        return None
    proto = info["proto"]
    if proto in (6, 17) and len(l4) >= 8:
        info["sport"], info["dport"] = struct.unpack("!HH", l4[:4])
    if proto == 6 and len(l4) >= 20:
        info["tcp_opts"] = tcp_options(l4[20:(l4[12] >> 4) * 4])
    if proto == 1:
        info["l4_csum"] = csum(l4) == 0xFFFF
    elif proto == 17 and info["v"] == 4 and l4[6:8] == b"\0\0":
        info["l4_csum"] = True       # no checksum
    elif proto in (6, 17, 58):
        info["l4_csum"] = csum(pseudo + l4) == 0xFFFF
    return info


def tcp_options(opts):
    """TCP options as {kind: data in hex}; the first of each kind."""
    found, i = {}, 0
    while i < len(opts) and opts[i] != 0:
        if opts[i] == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        found.setdefault(str(opts[i]), opts[i + 2:i + opts[i + 1]].hex())
        i += opts[i + 1]
    return found


def capture(iface, proto, count, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((iface, 0))
    print("ready", flush=True)
    # Packets of other protocols do not count; outgoing ones are not ours.
    got = 0
    for frame, addr in receive(s, 1 << 30, seconds):
        info = parse_ip(frame) if addr[2] != socket.PACKET_OUTGOING else None
        if info and info["proto"] == int(proto):
            print(json.dumps(info), flush=True)
            got += 1
            if got == int(count):
                break
    return 0


MODES = {
    "tcp-echo-server": tcp_echo_server,
    "tcp-client": tcp_client,
    "udp-sink": udp_sink,
    "udp-send": udp_send,
    "udp-stream": udp_stream,
    "capture": capture,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    sys.exit(MODES[sys.argv[1]](*sys.argv[2:]))
