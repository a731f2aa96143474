#!/usr/bin/env python3
"""icmp_ping.py [-6] [-c COUNT] [-W SECS] DST: ICMP echo over a raw socket (no iputils here).

Exit 0 if every echo got its reply. Prints one line per echo and a summary."""
import argparse
import os
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
    ap.add_argument("-c", type=int, default=3)
    ap.add_argument("-W", type=float, default=2.0)
    ap.add_argument("dst")
    a = ap.parse_args()
    fam = socket.AF_INET6 if a.v6 else socket.AF_INET
    proto = socket.IPPROTO_ICMPV6 if a.v6 else socket.IPPROTO_ICMP
    req, rep = (128, 129) if a.v6 else (8, 0)
    s = socket.socket(fam, socket.SOCK_RAW, proto)
    ident = os.getpid() & 0xFFFF
    ok = 0
    for seq in range(a.c):
        payload = b"srv6d-host-path" + struct.pack("!d", time.time())
        hdr = struct.pack("!BBHHH", req, 0, 0, ident, seq)
        # the kernel computes the ICMPv6 checksum (pseudo-header) for raw ICMPv6 sockets
        pkt = hdr + payload if a.v6 else struct.pack("!BBHHH", req, 0, checksum(hdr + payload), ident, seq) + payload
        t0 = time.time()
        s.sendto(pkt, (a.dst, 0))
        got = False
        while time.time() - t0 < a.W:
            s.settimeout(max(0.01, a.W - (time.time() - t0)))
            try:
                data, src = s.recvfrom(2048)
            except socket.timeout:
                break
            icmp = data if a.v6 else data[(data[0] & 0xF) * 4:]
            if len(icmp) >= 8:
                t, _, _, i, q = struct.unpack("!BBHHH", icmp[:8])
                if t == rep and i == ident and q == seq:
                    got = True
                    break
        print(f"seq {seq}: {'reply from ' + a.dst if got else 'timeout'} ({(time.time() - t0) * 1000:.1f} ms)")
        ok += got
        time.sleep(0.1)
    print(f"{ok}/{a.c} replies")
    return 0 if ok == a.c else 1


if __name__ == "__main__":
    sys.exit(main())
