#!/usr/bin/env python3
"""icmp_probe.py [-6] [-i SECS] [-t MAX_SECS] STOPFILE DST: ICMP echo every -i seconds until
STOPFILE exists (or -t seconds passed); then prints one line per echo:
"<seq> <send time, epoch s> <rtt ms or -1>". For measuring when a route change reaches the
dataplane (tests/live/e2e_kernel_pe_test.sh)."""
import argparse
import os
import select
import socket
import struct
import sys
import time


def checksum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-6", dest="v6", action="store_true")
    ap.add_argument("-i", type=float, default=0.01)
    ap.add_argument("-t", type=float, default=30.0)
    ap.add_argument("stopfile")
    ap.add_argument("dst")
    a = ap.parse_args()
    fam = socket.AF_INET6 if a.v6 else socket.AF_INET
    proto = socket.IPPROTO_ICMPV6 if a.v6 else socket.IPPROTO_ICMP
    req, rep = (128, 129) if a.v6 else (8, 0)
    s = socket.socket(fam, socket.SOCK_RAW, proto)
    s.setblocking(False)
    ident = os.getpid() & 0xFFFF
    sent = {}  # seq -> send time
    rtt = {}
    start = time.time()
    seq = 0
    nxt = start
    while time.time() - start < a.t and not os.path.exists(a.stopfile):
        now = time.time()
        if now >= nxt and seq < 65536:
            payload = b"srv6d-e2e-probe"
            hdr = struct.pack("!BBHHH", req, 0, 0, ident, seq)
            pkt = hdr + payload if a.v6 else struct.pack("!BBHHH", req, 0, checksum(hdr + payload), ident, seq) + payload
            try:
                s.sendto(pkt, (a.dst, 0))
            except OSError:
                pass
            sent[seq] = now
            seq += 1
            nxt += a.i
        r, _, _ = select.select([s], [], [], max(0.0, min(a.i, nxt - time.time())))
        while r:
            try:
                data = s.recv(2048)
            except BlockingIOError:
                break
            icmp = data if a.v6 else data[(data[0] & 0xF) * 4:]
            if len(icmp) >= 8:
                t, _, _, i, q = struct.unpack("!BBHHH", icmp[:8])
                if t == rep and i == ident and q in sent and q not in rtt:
                    rtt[q] = (time.time() - sent[q]) * 1000
    time.sleep(0.2)  # late replies
    while True:
        try:
            data = s.recv(2048)
        except BlockingIOError:
            break
        icmp = data if a.v6 else data[(data[0] & 0xF) * 4:]
        if len(icmp) >= 8:
            t, _, _, i, q = struct.unpack("!BBHHH", icmp[:8])
            if t == rep and i == ident and q in sent and q not in rtt:
                rtt[q] = -2  # answered, late
    for q in sorted(sent):
        print(f"{q} {sent[q]:.6f} {rtt.get(q, -1):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
