#!/usr/bin/env python3
"""icmp_tool.py: the ICMP side of a router as a host sees it (no iputils/traceroute here).

  icmp_tool.py ping [-6] [--df | --no-df] [-s SIZE] [-t TTL] [-W SECS] DST
      one ICMP echo of SIZE payload bytes; prints "reply FROM", "too-big FROM mtu=N",
      "time-exceeded FROM" or "timeout"; exit 0 on a reply.
  icmp_tool.py pmtu [-6] DST
      the kernel's path MTU towards DST (IP_MTU of a connected UDP socket), "mtu N".
  icmp_tool.py trace [-6] [-m HOPS] [-W SECS] DST
      a traceroute: UDP probes with TTL 1, 2, ... (3 per hop); one line per hop
      "HOP ADDR" (or "HOP *"); stops at DST's port unreachable; exit 0 when it got there.
  icmp_tool.py tcp-server [-6] PORT BYTES   /   tcp-client [-6] [-T SECS] DST PORT BYTES
      a bulk transfer with the kernel's default MSS; the client prints "sent N in S s" and
      exits 0 once the server confirmed every byte within SECS.
  icmp_tool.py udp-count PORT SIZE SECS   /   udp-send DST PORT SIZE COUNT
      datagrams of SIZE bytes (fragmented by the sender's kernel when larger than the path);
      the receiver prints "received N" after SECS of quiet.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

IP_MTU_DISCOVER, IP_PMTUDISC_DO, IP_MTU = 10, 2, 14
IP_PMTUDISC_DONT = 0
IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO, IPV6_MTU = 23, 2, 24


def checksum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icmp_sock(v6):
    if v6:
        return socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    return socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)


def parse(v6, data, addr):
    """(type, code, rest word, quoted bytes) of a received ICMP message."""
    if not v6:
        ihl = (data[0] & 15) * 4
        data = data[ihl:]
    if len(data) < 8:
        return None
    t, c = data[0], data[1]
    rest = struct.unpack("!I", data[4:8])[0]
    return t, c, rest, data[8:]


def cmd_ping(a):
    s = icmp_sock(a.v6)
    if a.no_df and not a.v6:  # a raw socket sets DF on what fits by default (IP_PMTUDISC_WANT)
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DONT)
    if a.df:
        if a.v6:
            s.setsockopt(socket.IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO)
        else:
            s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
    if a.t:
        if a.v6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, a.t)
        else:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.t)
    ident = os.getpid() & 0xFFFF
    req, rep = (128, 129) if a.v6 else (8, 0)
    payload = bytes((i & 0xFF) for i in range(a.s))
    hdr = struct.pack("!BBHHH", req, 0, 0, ident, 1)
    pkt = hdr + payload if a.v6 else struct.pack("!BBHHH", req, 0, checksum(hdr + payload), ident, 1) + payload
    try:
        s.sendto(pkt, (a.dst, 0))
    except OSError as e:  # EMSGSIZE: the kernel already knows a smaller path MTU
        print("local-error %s" % e.strerror)
        return 3
    end = time.time() + a.W
    while time.time() < end:
        r, _, _ = select.select([s], [], [], max(0, end - time.time()))
        if not r:
            break
        data, addr = s.recvfrom(65535)
        m = parse(a.v6, data, addr)
        if m is None:
            continue
        t, c, rest, quote = m
        if t == rep and rest >> 16 == ident:
            print("reply %s" % addr[0])
            return 0
        # errors about our echo: the quote holds our IP header and ICMP header with our id
        qoff = 40 if a.v6 else (quote[0] & 15) * 4 if quote else 0
        if len(quote) < qoff + 8 or struct.unpack("!H", quote[qoff + 4:qoff + 6])[0] != ident:
            continue
        if (a.v6 and t == 2) or (not a.v6 and t == 3 and c == 4):
            print("too-big %s mtu=%d" % (addr[0], rest if a.v6 else rest & 0xFFFF))
            return 1
        if (a.v6 and t == 3) or (not a.v6 and t == 11):
            print("time-exceeded %s" % addr[0])
            return 2
    print("timeout")
    return 4


def cmd_pmtu(a):
    fam = socket.AF_INET6 if a.v6 else socket.AF_INET
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.connect((a.dst, 9))
    print("mtu %d" % (u.getsockopt(socket.IPPROTO_IPV6, IPV6_MTU) if a.v6 else u.getsockopt(socket.IPPROTO_IP, IP_MTU)))
    return 0


def cmd_trace(a):
    fam = socket.AF_INET6 if a.v6 else socket.AF_INET
    r = icmp_sock(a.v6)
    port0 = 33434
    reached = False
    for hop in range(1, a.m + 1):
        seen = None
        for probe in range(3):
            u = socket.socket(fam, socket.SOCK_DGRAM)
            if a.v6:
                u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, hop)
            else:
                u.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, hop)
            u.bind(("::" if a.v6 else "0.0.0.0", 0))
            sport = u.getsockname()[1]
            dport = port0 + hop * 3 + probe
            u.sendto(b"srv6d-trace", (a.dst, dport))
            end = time.time() + a.W
            while time.time() < end:
                rr, _, _ = select.select([r], [], [], max(0, end - time.time()))
                if not rr:
                    break
                data, addr = r.recvfrom(65535)
                m = parse(a.v6, data, addr)
                if m is None:
                    continue
                t, c, rest, quote = m
                qoff = 40 if a.v6 else (quote[0] & 15) * 4 if quote else 0
                if len(quote) < qoff + 4 or struct.unpack("!HH", quote[qoff:qoff + 4]) != (sport, dport):
                    continue
                exceeded = (a.v6 and t == 3) or (not a.v6 and t == 11)
                unreach = (a.v6 and t == 1 and c == 4) or (not a.v6 and t == 3 and c == 3)
                if exceeded or unreach:
                    seen = addr[0]
                    reached = reached or unreach
                    break
            u.close()
            if seen:
                break
        print("%d %s" % (hop, seen or "*"), flush=True)
        if reached:
            return 0
    return 1


def cmd_tcp_server(a):
    fam = socket.AF_INET6 if a.v6 else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.v6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind(("::" if a.v6 else "0.0.0.0", a.port))
    s.listen(1)
    s.settimeout(120)
    c, _ = s.accept()
    c.settimeout(60)
    got = 0
    while got < a.bytes:
        b = c.recv(65536)
        if not b:
            break
        got += len(b)
    c.sendall(struct.pack("!Q", got))
    c.close()
    print("received %d" % got)
    return 0 if got == a.bytes else 1


def cmd_tcp_client(a):
    fam = socket.AF_INET6 if a.v6 else socket.AF_INET
    t0 = time.time()
    try:
        c = socket.create_connection((a.dst, a.port), timeout=a.T)
    except OSError as e:
        print("connect failed after %.1f s: %s" % (time.time() - t0, e))
        return 1
    mss = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG)
    c.settimeout(max(1, a.T - (time.time() - t0)))
    chunk = bytes(65536)
    sent = 0
    try:
        while sent < a.bytes:
            n = c.send(chunk[:min(len(chunk), a.bytes - sent)])
            sent += n
        got = struct.unpack("!Q", c.recv(8))[0]
    except OSError as e:
        print("stalled after %d bytes in %.1f s (%s)" % (sent, time.time() - t0, e))
        return 1
    print("sent %d in %.2f s, mss %d at connect, %d now; server got %d" % (
        sent, time.time() - t0, mss, c.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG), got))
    return 0 if got == a.bytes else 1


def cmd_udp_count(a):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("0.0.0.0", a.port))
    n = 0
    end = time.time() + a.secs
    while time.time() < end:
        r, _, _ = select.select([u], [], [], max(0, end - time.time()))
        if not r:
            break
        b = u.recv(65536)
        if len(b) == a.size:
            n += 1
            end = time.time() + a.secs
    print("received %d" % n, flush=True)
    return 0


def cmd_udp_send(a):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(a.count):
        try:
            u.sendto(bytes([i & 0xFF]) * a.size, (a.dst, a.port))
        except OSError:
            pass
        time.sleep(0.05)
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("ping")
    p.add_argument("-6", dest="v6", action="store_true")
    p.add_argument("--df", action="store_true")
    p.add_argument("--no-df", action="store_true", help="IPv4: never DF, as `ping -M dont`")
    p.add_argument("-s", type=int, default=56)
    p.add_argument("-t", type=int, default=0)
    p.add_argument("-W", type=float, default=2.0)
    p.add_argument("dst")
    p = sub.add_parser("pmtu")
    p.add_argument("-6", dest="v6", action="store_true")
    p.add_argument("dst")
    p = sub.add_parser("trace")
    p.add_argument("-6", dest="v6", action="store_true")
    p.add_argument("-m", type=int, default=8)
    p.add_argument("-W", type=float, default=2.0)
    p.add_argument("dst")
    p = sub.add_parser("tcp-server")
    p.add_argument("-6", dest="v6", action="store_true")
    p.add_argument("port", type=int)
    p.add_argument("bytes", type=int)
    p = sub.add_parser("tcp-client")
    p.add_argument("-6", dest="v6", action="store_true")
    p.add_argument("-T", type=float, default=30)
    p.add_argument("dst")
    p.add_argument("port", type=int)
    p.add_argument("bytes", type=int)
    p = sub.add_parser("udp-count")
    p.add_argument("port", type=int)
    p.add_argument("size", type=int)
    p.add_argument("secs", type=float)
    p = sub.add_parser("udp-send")
    p.add_argument("dst")
    p.add_argument("port", type=int)
    p.add_argument("size", type=int)
    p.add_argument("count", type=int)
    a = ap.parse_args()
    return {"ping": cmd_ping, "pmtu": cmd_pmtu, "trace": cmd_trace, "tcp-server": cmd_tcp_server,
            "tcp-client": cmd_tcp_client, "udp-count": cmd_udp_count, "udp-send": cmd_udp_send}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
