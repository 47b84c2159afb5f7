#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic for the end-to-end tests: every mode checks what arrived.

Waits are ceilings, never windows: a mode that waits for something ends as
soon as it came, and SECONDS only bounds how long it may take.

  tcp-echo-server PORT            echo each connection back (IPv4 and IPv6);
                                  prints "ready" once listening
  tcp-client HOST PORT BYTES      send BYTES random bytes, expect them back
  udp-sink PORT COUNT SECONDS     prints "ready", then the count so far after
                                  each datagram, until COUNT came or SECONDS
                                  passed; the last line is the count
  udp-send HOST PORT COUNT SIZE [TOS [SRC [SPORT]]]
                                  send COUNT datagrams of SIZE bytes, with
                                  that TOS / traffic class, from SRC, SPORT
  udp-gso HOST PORT COUNT SIZE    send COUNT datagrams of SIZE bytes as one
                                  UDP GSO (UDP_SEGMENT) write
  udp-flood HOST PORT STOPFILE    send datagrams until STOPFILE exists, then
                                  an end marker; print how many were sent
  udp-sink-end PORT SECONDS       print "ready", count datagrams until the
                                  end marker, print the count
  capture IFACE PROTO COUNT SECONDS
                                  print "ready", then one JSON line per IP
                                  packet of PROTO received on IFACE: header
                                  fields, the frame's length, whether each
                                  checksum is valid (and a VXLAN packet's
                                  inner packet the same way)
  frag-syn IFACE DSTMAC SRC DST SPORT DPORT HOW
                                  send a TCP SYN as crafted Ethernet frames:
                                  HOW is whole, tiny (a first fragment of 16
                                  bytes of TCP header, the rest at offset 16)
                                  or overlap (8 bytes, the rest at offset 8)
  raw-udp IFACE DSTMAC SRC DST SPORT DPORT COUNT [ask] [ring] [vlan00]
                                  send COUNT UDP datagrams as Ethernet frames
                                  from a packet socket that bypasses the
                                  qdisc (PACKET_QDISC_BYPASS); print how
                                  many sends failed (a frame dropped on its
                                  way out fails its send: ENOBUFS); with
                                  ask, then print what a UDP socket of that
                                  tuple got: reply, an errno's name
                                  (ECONNREFUSED) or timeout (20 s); with
                                  ring, send from a PACKET_TX_RING (the IP
                                  header in the ring's pages, not linear)
  udp-echo PORT                   print "ready", then send every datagram back
  udp-ask HOST PORT SECONDS [SPORT]
                                  send one datagram from a connected socket
                                  (bound to SPORT, if given: a tuple of its
                                  own) that hears ICMP errors (IP_RECVERR); print
                                  {"reply": true} or {"icmp": [TYPE, CODE,
                                  INFO]} for what came back first
  icmp-answer IFACE PORT TYPE CODE INFO COUNT
                                  print "ready"; answer each UDP datagram to
                                  PORT that IFACE receives (COUNT of them) with
                                  an ICMP or ICMPv6 error quoting it
  tcp-hold HOST PORT COUNT SECONDS
                                  open COUNT connections at once; print how
                                  many are up once all are, or SECONDS passed,
                                  or on SIGTERM; then hold them until killed
  peer-server PROTO PORT N        print "ready"; on ports PORT..PORT+N-1 (tcp or
                                  udp, both families) tell each peer what it
                                  looks like: a line "ADDR PORT" (then echo a
                                  TCP connection); print that line too
  peer-ask PROTO HOST PORT [SPORT [SRC]]
                                  print the line the peer-server answers
  tcp-multi HOST PORT N SPORT SRC BYTES
                                  N connections at once from SRC:SPORT to
                                  HOST:PORT..PORT+N-1 of a peer-server, each
                                  echoing BYTES random bytes; print how many
                                  came back intact
  link-set IFNAME ATTR VALUE      set a u32 link attribute (IFLA_*) by number,
                                  for what this iproute2 cannot set; exit 2 if
                                  the kernel does not know it

Exit status 0 when the traffic went through as expected, 1 otherwise.
"""
import errno
import json
import mmap
import os
import select
import signal
import socket
import struct
import sys
import threading
import time


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _echo(conn):
    """Send back what @conn receives until its peer is done."""
    while True:
        data = conn.recv(65536)
        if not data:
            return
        conn.sendall(data)


def tcp_echo_server(port):
    srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    srv.bind(("::", int(port)))
    srv.listen(16)
    print("ready", flush=True)

    def serve(conn):
        with conn:
            _echo(conn)

    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def tcp_client(host, port, nbytes):
    nbytes = int(nbytes)
    data = os.urandom(nbytes)
    got = bytearray()
    with socket.create_connection((host, int(port)), timeout=120) as s:
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


def receive(s, count, seconds, size=65536):
    """Yield what @s receives, up to @count items or @seconds."""
    deadline = time.monotonic() + float(seconds)
    for _ in range(int(count)):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        s.settimeout(left)
        try:
            yield s.recvfrom(size)
        except socket.timeout:
            return


def raw_udp(iface, dstmac, src, dst, sport, dport, count, *opts):
    """COUNT datagrams SRC:SPORT -> DST:DPORT by a packet socket with
    PACKET_QDISC_BYPASS (the kernel's nf_hook_direct_egress() path); OPTS:
    "ask", a UDP socket of that tuple hears what comes back; "ring", each
    is sent from a TX ring (PACKET_TX_RING: the frame's IP header is not in
    the packet's linear part, only the Ethernet header); "vlan00", the
    frame carries two VLAN tags of VLAN 0 (priority only), 802.1ad's outer
    one and an 802.1Q inner one."""
    saddr, daddr = addr_bytes(src), addr_bytes(dst)
    data = b"mmb-raw-udp"
    udp = bytearray(struct.pack("!HHHH", int(sport), int(dport), 8 + len(data), 0) + data)
    struct.pack_into("!H", udp, 6, l4_csum(saddr, daddr, 17, udp) or 0xFFFF)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.setsockopt(263, 20, 1)    # SOL_PACKET, PACKET_QDISC_BYPASS
    s.bind((iface, 0))
    frame = ip_frame(bytes.fromhex(dstmac.replace(":", "")) + s.getsockname()[4],
                     saddr, daddr, 17, bytes(udp))
    if "vlan00" in opts:
        frame = frame[:12] + b"\x88\xa8\x00\x00\x81\x00\x00\x00" + frame[12:]
    ring = None
    if "ring" in opts:
        # TPACKET_V1, one block of two 2048-byte frames; a frame's data
        # after its struct tpacket_hdr (32 bytes, TPACKET_ALIGN'ed)
        s.setsockopt(263, 13, struct.pack("IIII", 4096, 1, 2048, 2))   # PACKET_TX_RING
        ring = mmap.mmap(s.fileno(), 4096)
    if "ask" in opts:
        u = socket.socket(family(dst), socket.SOCK_DGRAM)
        u.bind((src, int(sport)))
        u.connect((dst, int(dport)))
    refused = 0
    for i in range(int(count)):
        try:
            if ring is None:
                s.send(frame)
                continue
            off = i % 2 * 2048
            for _ in range(1000):           # the frame's last send done
                if struct.unpack_from("L", ring, off)[0] == 0:
                    break
                time.sleep(0.001)
            ring[off + 32:off + 32 + len(frame)] = frame
            struct.pack_into("II", ring, off + 8, len(frame), len(frame))
            struct.pack_into("L", ring, off, 1)         # TP_STATUS_SEND_REQUEST
            s.send(b"")
        except OSError:     # a frame the egress hook dropped: ENOBUFS
            refused += 1
    print(refused, flush=True)
    if "ask" in opts:
        u.settimeout(20)
        try:
            u.recv(2048)
            print("reply", flush=True)
        except OSError as e:
            print(errno.errorcode.get(e.errno, "timeout"), flush=True)
    return 0


def udp_socket(port):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    # Room for every datagram even if this process stalls (slow VMs).
    s.setsockopt(socket.SOL_SOCKET, 33, 4 << 20)  # SO_RCVBUFFORCE
    s.bind(("::", int(port)))
    print("ready", flush=True)
    return s


def udp_sink(port, count, seconds):
    s = udp_socket(port)
    got = 0
    for _ in receive(s, count, seconds):
        got += 1
        print(got, flush=True)
    print(got, flush=True)
    return 0 if got == int(count) else 1


END = b"mmb-e2e-end"


def udp_sink_end(port, seconds):
    s = udp_socket(port)
    got = 0
    for data, _ in receive(s, 1 << 30, seconds):
        if data == END:
            # Datagrams sent from another CPU may come just after it.
            for data, _ in receive(s, 1 << 30, 0.5):
                got += data != END
            print(got, flush=True)
            return 0
        got += 1
    print(got, flush=True)
    return 1


def udp_send(host, port, count, size, tos="0", src=None, sport="0"):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    if family(host) == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, int(tos, 0))
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, int(tos, 0))
    if src:
        s.bind((src, int(sport)))
    payload = os.urandom(int(size))
    for _ in range(int(count)):
        s.sendto(payload, (host, int(port)))
        time.sleep(0.001)
    return 0


def udp_flood(host, port, stopfile):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    sent = 0
    while not os.path.exists(stopfile):
        s.sendto(b"x" * 64, (host, int(port)))
        sent += 1
        time.sleep(0.001)
    for _ in range(3):
        s.sendto(END, (host, int(port)))
    print(sent, flush=True)
    return 0


def udp_gso(host, port, count, size):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_UDP, 103, int(size))  # UDP_SEGMENT
    s.sendto(os.urandom(int(count) * int(size)), (host, int(port)))
    return 0


def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def addr_bytes(addr):
    return socket.inet_pton(family(addr), addr)


def l4_csum(saddr, daddr, proto, seg):
    """The TCP/UDP checksum of SEG between addresses of 4 or 16 bytes."""
    if len(saddr) == 16:
        pseudo = saddr + daddr + struct.pack("!IxxxB", len(seg), proto)
    else:
        pseudo = saddr + daddr + struct.pack("!BBH", 0, proto, len(seg))
    return ~csum(pseudo + bytes(seg)) & 0xFFFF


def ip_frame(eth, saddr, daddr, proto, data, ident=1, frag=None):
    """An Ethernet frame (ETH: the two addresses) carrying DATA of PROTO;
    FRAG (offset in 8 bytes, more fragments) makes it a fragment."""
    if len(saddr) == 16:
        ext = b""
        if frag is not None:
            ext = struct.pack("!BBHI", proto, 0, frag[0] << 3 | frag[1], ident)
            proto = 44
        hdr = struct.pack("!IHBB", 6 << 28, len(ext) + len(data), proto, 64)
        return eth + b"\x86\xdd" + hdr + saddr + daddr + ext + data
    off = 0 if frag is None else frag[1] << 13 | frag[0]
    hdr = bytearray(struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(data), ident, off, 64,
                                proto, 0) + saddr + daddr)
    struct.pack_into("!H", hdr, 10, ~csum(bytes(hdr)) & 0xFFFF)
    return eth + b"\x08\x00" + bytes(hdr) + data


def parse_ip(frame, inner=False):
    """Header fields of an IPv4/IPv6 packet and whether its checksums hold.
    A BIG TCP packet's length (0 in its header) is the frame's."""
    ethertype = struct.unpack("!H", frame[12:14])[0]
    pkt = frame[14:]
    if ethertype == 0x0800:
        ihl = (pkt[0] & 0xF) * 4
        end = struct.unpack("!H", pkt[2:4])[0] or len(pkt)
        info = {"v": 4, "len": end, "tos": pkt[1], "ttl": pkt[8], "proto": pkt[9],
                "src": socket.inet_ntop(socket.AF_INET, pkt[12:16]),
                "dst": socket.inet_ntop(socket.AF_INET, pkt[16:20]),
                "ip_csum": csum(pkt[:ihl]) == 0xFFFF}
        l4 = pkt[ihl:end]
        # (The checksum of a GRO packet is its first segment's: not valid.)
        pseudo = pkt[12:20] + struct.pack("!BBH", 0, pkt[9], len(l4) & 0xFFFF)
    elif ethertype == 0x86DD:
        end = 40 + struct.unpack("!H", pkt[4:6])[0]
        proto, off = pkt[6], 40
        if end == 40 and proto == 0:    # jumbo: hop-by-hop, skb's length
            end = len(pkt)
        if proto == 0:
            proto, off = pkt[40], 40 + (pkt[41] + 1) * 8
        info = {"v": 6, "len": end, "tos": (struct.unpack("!H", pkt[0:2])[0] >> 4) & 0xFF,
                "ttl": pkt[7], "proto": proto,
                "src": socket.inet_ntop(socket.AF_INET6, pkt[8:24]),
                "dst": socket.inet_ntop(socket.AF_INET6, pkt[24:40]),
                "ip_csum": True}
        l4 = pkt[off:end]
        pseudo = pkt[8:40] + struct.pack("!IxxxB", len(l4), proto)
    else:
        return None
    info["frame"] = len(frame)
    proto = info["proto"]
    if proto in (6, 17) and len(l4) >= 8:
        info["sport"], info["dport"] = struct.unpack("!HH", l4[:4])
    if proto == 6 and len(l4) >= 20:
        info["tcp_opts"] = tcp_options(l4[20:(l4[12] >> 4) * 4])
        info["flags"] = l4[13]
        info["seq"], info["ack"] = struct.unpack("!II", l4[4:12])
        sack = bytes.fromhex(info["tcp_opts"].get("5", ""))
        if sack:
            info["sack"] = list(struct.unpack(f"!{len(sack) // 4}I", sack[:len(sack) // 4 * 4]))
    if proto == 17 and not inner and info.get("dport") == 4789 and len(l4) > 16 + 14:
        info["inner"] = parse_ip(l4[16:], inner=True)
    if proto == 17 and len(l4) >= 8:
        info["l4_zero"] = l4[6:8] == b"\0\0"
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


class Stop(Exception):
    """SIGTERM: a capture reads what is queued, then ends."""


def _stop(signum, frame):
    raise Stop()


def capture(iface, proto, count, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE: keep up
    s.bind((iface, 0))
    got = 0

    def show(frame, addr):
        # Packets of other protocols do not count; outgoing ones are not ours.
        nonlocal got
        info = parse_ip(frame) if addr[2] != socket.PACKET_OUTGOING else None
        if info and info["proto"] == int(proto):
            # One write(2) a line: SIGTERM's Stop, raised between two
            # bytecodes, cannot cut a line in half (print() could).
            os.write(sys.stdout.fileno(), (json.dumps(info) + "\n").encode())
            got += 1
        return got == int(count)

    signal.signal(signal.SIGTERM, _stop)
    print("ready", flush=True)
    try:
        for frame, addr in receive(s, 1 << 30, seconds, 1 << 18):
            if show(frame, addr):
                return 0
    except Stop:
        s.setblocking(False)
        while True:
            try:
                frame, addr = s.recvfrom(1 << 18)
            except (BlockingIOError, Stop):
                break
            if show(frame, addr):
                break
    return 0


def frag_syn(iface, dstmac, src, dst, sport, dport, how):
    """A SYN from SRC:SPORT to DST:DPORT, whole or in evil fragments."""
    saddr, daddr = addr_bytes(src), addr_bytes(dst)
    tcp = bytearray(struct.pack("!HHIIBBHHH", int(sport), int(dport), 1000, 0,
                                5 << 4, 0x02, 65535, 0, 0))
    struct.pack_into("!H", tcp, 16, l4_csum(saddr, daddr, 6, tcp))
    tcp = bytes(tcp)
    cut = {"whole": None, "tiny": 16, "overlap": 8}[how]
    pieces = [(0, tcp, False)] if cut is None else \
        [(0, tcp[:cut], True), (cut // 8, tcp[cut:], False)]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    eth = bytes.fromhex(dstmac.replace(":", "")) + s.getsockname()[4]
    ident = int(sport)      # one datagram, one ID: no stale fragment joins it
    for off, data, more in pieces:
        frag = None if cut is None else (off, more)
        s.send(ip_frame(eth, saddr, daddr, 6, data, ident, frag))
    return 0


def udp_echo(port):
    s = udp_socket(port)
    while True:
        data, addr = s.recvfrom(65536)
        s.sendto(data, addr)


def udp_ask(host, port, seconds, sport=None):
    fam = family(host)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if sport is not None:
        s.bind(("", int(sport)))
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, 11, 1)          # IP_RECVERR
    else:
        s.setsockopt(socket.IPPROTO_IPV6, 25, 1)        # IPV6_RECVERR
    s.connect((host, int(port)))
    s.send(b"mmb-ask")
    poll = select.poll()
    poll.register(s, select.POLLIN | select.POLLERR)
    if not poll.poll(float(seconds) * 1000):
        print(json.dumps({"timeout": True}), flush=True)
        return 1
    try:
        _, anc, _, _ = s.recvmsg(512, 512, socket.MSG_ERRQUEUE)
    except BlockingIOError:
        anc = []
    for level, kind, data in anc:
        if (level, kind) in ((socket.IPPROTO_IP, 11), (socket.IPPROTO_IPV6, 25)):
            # struct sock_extended_err: errno, origin, type, code, pad, info
            _, _, typ, code, _, info = struct.unpack("=IBBBBI", data[:12])
            print(json.dumps({"icmp": [typ, code, info]}), flush=True)
            return 0
    s.recv(65536)
    print(json.dumps({"reply": True}), flush=True)
    return 0


def icmp_answer(iface, port, typ, code, info, count):
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    sniff.bind((iface, 0))
    raw4 = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    raw6 = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    typ, code, info = int(typ), int(code), int(info)
    # A socket on PORT: the kernel answers nothing itself (port unreachable).
    listener = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    listener.bind(("::", int(port)))
    print("ready", flush=True)
    answered = 0
    while answered < int(count):
        frame, addr = sniff.recvfrom(65536)
        pkt = parse_ip(frame) if addr[2] != socket.PACKET_OUTGOING else None
        if not pkt or pkt["proto"] != 17 or pkt.get("dport") != int(port):
            continue
        ip = frame[14:14 + pkt["len"]]
        if pkt["v"] == 4:
            # Unused, then the next hop's MTU (RFC 1191); the quote: 548 bytes at most.
            head = struct.pack("!BBHHH", typ, code, 0, 0, info)
            msg = head + ip[:548]
            msg = msg[:2] + struct.pack("!H", 0xFFFF - csum(msg)) + msg[4:]
            raw4.sendto(msg, (pkt["src"], 0))
        else:
            # The kernel fills in an ICMPv6 checksum.
            raw6.sendto(struct.pack("!BBHI", typ, code, 0, info) + ip[:1232], (pkt["src"], 0))
        answered += 1
    return 0


def tcp_hold(host, port, count, seconds):
    socks, up = [], set()
    for _ in range(int(count)):
        s = socket.socket(family(host), socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((host, int(port)))
        socks.append(s)
    poll = select.poll()
    for s in socks:
        poll.register(s, select.POLLOUT)
    signal.signal(signal.SIGTERM, _stop)
    deadline = time.monotonic() + float(seconds)
    try:
        while len(up) < len(socks) and time.monotonic() < deadline:
            for fd, _ in poll.poll(100):
                s = next(s for s in socks if s.fileno() == fd)
                poll.unregister(fd)
                if not s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    up.add(fd)
        print(len(up), flush=True)
        while True:
            time.sleep(3600)
    except Stop:
        print(len(up), flush=True)
    return 0


def link_set(ifname, attr, value):
    """RTM_NEWLINK for IFNAME with one u32 attribute (number ATTR)."""
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
    rta = struct.pack("=HHI", 8, int(attr), int(value))
    ifi = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, socket.if_nametoindex(ifname), 0, 0)
    body = ifi + rta
    # RTM_NEWLINK 16, NLM_F_REQUEST | NLM_F_ACK
    nl.send(struct.pack("=IHHII", 16 + len(body), 16, 1 | 4, 1, 0) + body)
    err = struct.unpack("=i", nl.recv(4096)[16:20])[0]
    if err:
        print(f"link-set: {os.strerror(-err)}")
        return 2
    return 0


def _peer_line(addr):
    host = addr[0].removeprefix("::ffff:")
    return f"{host} {addr[1]}"


def peer_server(proto, port, n):
    socks = []
    for p in range(int(port), int(port) + int(n)):
        kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
        srv = socket.socket(socket.AF_INET6, kind)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        srv.bind(("::", p))
        if proto == "tcp":
            srv.listen(64)
        socks.append(srv)
    lock = threading.Lock()
    print("ready", flush=True)

    def serve(conn, addr):
        line = _peer_line(addr)
        with lock:
            print(f"{line} {conn.getsockname()[1]}", flush=True)
        with conn:
            conn.sendall((line + "\n").encode())
            _echo(conn)

    while True:
        ready, _, _ = select.select(socks, [], [])
        for srv in ready:
            if proto == "tcp":
                conn, addr = srv.accept()
                threading.Thread(target=serve, args=(conn, addr), daemon=True).start()
            else:
                data, addr = srv.recvfrom(65536)
                line = _peer_line(addr)
                print(f"{line} {srv.getsockname()[1]}", flush=True)
                srv.sendto(line.encode(), addr)


def _bound(proto, host, sport, src):
    fam = family(host)
    s = socket.socket(fam, socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(60)
    if sport or src:
        s.bind((src or ("::" if fam == socket.AF_INET6 else "0.0.0.0"), int(sport or 0)))
    return s


def peer_ask(proto, host, port, sport=None, src=None):
    with _bound(proto, host, sport, src) as s:
        s.connect((host, int(port)))
        if proto == "tcp":
            line = s.makefile().readline().strip()
        else:
            s.send(b"who")
            line = s.recv(256).decode().strip()
    print(line)
    return 0 if line else 1


def tcp_multi(host, port, n, sport, src, nbytes):
    ok = 0
    lock = threading.Lock()

    def one(p):
        nonlocal ok
        data = os.urandom(int(nbytes))
        try:
            with _bound("tcp", host, sport, src) as s:
                s.connect((host, p))
                f = s.makefile("rb")
                f.readline()

                def send():
                    s.sendall(data)
                    s.shutdown(socket.SHUT_WR)
                # Read while sending: the echo would fill both buffers.
                sender = threading.Thread(target=send)
                sender.start()
                got = f.read()
                sender.join()
        except OSError as e:
            print(f"tcp-multi: port {p}: {e}", file=sys.stderr)
            return
        if got == data:
            with lock:
                ok += 1

    threads = [threading.Thread(target=one, args=(p,))
               for p in range(int(port), int(port) + int(n))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(ok)
    return 0 if ok == int(n) else 1


MODES = {
    "peer-server": peer_server,
    "peer-ask": peer_ask,
    "tcp-multi": tcp_multi,
    "tcp-echo-server": tcp_echo_server,
    "tcp-client": tcp_client,
    "udp-sink": udp_sink,
    "udp-sink-end": udp_sink_end,
    "udp-send": udp_send,
    "udp-gso": udp_gso,
    "udp-flood": udp_flood,
    "capture": capture,
    "frag-syn": frag_syn,
    "raw-udp": raw_udp,
    "link-set": link_set,
    "udp-echo": udp_echo,
    "udp-ask": udp_ask,
    "icmp-answer": icmp_answer,
    "tcp-hold": tcp_hold,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    sys.exit(MODES[sys.argv[1]](*sys.argv[2:]))
