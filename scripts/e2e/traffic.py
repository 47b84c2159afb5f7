#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic for the end-to-end tests: every mode checks what arrived.

  tcp-echo-server PORT            echo each connection back (IPv4 and IPv6);
                                  prints "ready" once listening
  tcp-client HOST PORT BYTES      send BYTES random bytes, expect them back
  udp-sink PORT COUNT SECONDS     prints "ready", waits for COUNT datagrams,
                                  prints how many came
  udp-send HOST PORT COUNT SIZE   send COUNT datagrams of SIZE bytes
  udp-stream HOST PORT SECONDS    send datagrams at ~1000/s for SECONDS

Exit status 0 when the traffic went through as expected, 1 otherwise.
"""
import os
import socket
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


def udp_sink(port, count, seconds):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    # Room for every datagram even if this process stalls (slow VMs).
    s.setsockopt(socket.SOL_SOCKET, 33, 4 << 20)  # SO_RCVBUFFORCE
    s.bind(("::", int(port)))
    print("ready", flush=True)
    deadline = time.monotonic() + float(seconds)
    got = 0
    while got < int(count):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            s.recv(65536)
        except socket.timeout:
            break
        got += 1
    print(got)
    return 0 if got == int(count) else 1


def udp_send(host, port, count, size):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
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


MODES = {
    "tcp-echo-server": tcp_echo_server,
    "tcp-client": tcp_client,
    "udp-sink": udp_sink,
    "udp-send": udp_send,
    "udp-stream": udp_stream,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    sys.exit(MODES[sys.argv[1]](*sys.argv[2:]))
