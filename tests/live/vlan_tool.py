#!/usr/bin/env python3
"""A CE on an 802.1Q VLAN without VLAN devices (this host's kernel has no 8021q): tagged frames
sent and received on a plain interface with an AF_PACKET socket.

The kernel takes the tag of a received frame off into metadata before packet sockets see it
(skb_vlan_untag), so the VLAN id is read from PACKET_AUXDATA (tp_vlan_tci, TP_STATUS_VLAN_VALID);
frames are sent with the tag in their bytes.

  vlan_tool.py ping IFACE VID SRC_IP GW_IP DST_IP COUNT [--unknown-vid N]
    ARPs for GW_IP on VLAN VID, then sends COUNT echo requests to DST_IP through it (one a
    second at most: the next as soon as the reply is in), answers ARP requests for SRC_IP on
    the VLAN, and prints one line:
    "arp_tagged=0|1 gw_mac=... sent=N replies=M tagged_replies=K untagged=U rtt_ms=MEDIAN"
"""
import argparse
import ctypes
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10


class tpacket_auxdata(ctypes.Structure):
    _fields_ = [("tp_status", ctypes.c_uint32), ("tp_len", ctypes.c_uint32), ("tp_snaplen", ctypes.c_uint32),
                ("tp_mac", ctypes.c_uint16), ("tp_net", ctypes.c_uint16), ("tp_vlan_tci", ctypes.c_uint16),
                ("tp_vlan_tpid", ctypes.c_uint16)]


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tag(vid, ethertype):
    return struct.pack("!HHH", 0x8100, vid, ethertype)


def arp(op, smac, sip, tmac, tip):
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, smac, sip, tmac, tip)


def ipv4_icmp_echo(src, dst, ident, seq, payload=b"srv6d-vlan" * 4):
    icmp = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + payload
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), seq, 0, 64, 1, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + icmp


class ce:
    def __init__(self, iface):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        self.s.bind((iface, 0))
        self.mac = self.s.getsockname()[4]

    def send(self, frame):
        self.s.send(frame)

    def recv(self, deadline):
        """(vid or None, dst, src, ethertype, payload) of the next frame, or None at the deadline."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                data, anc, _, addr = self.s.recvmsg(65535, socket.CMSG_SPACE(ctypes.sizeof(tpacket_auxdata)))
            except socket.timeout:
                return None
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            vid = None
            for level, kind, cdata in anc:
                if level == SOL_PACKET and kind == PACKET_AUXDATA:
                    aux = tpacket_auxdata.from_buffer_copy(cdata.ljust(ctypes.sizeof(tpacket_auxdata), b"\0"))
                    if aux.tp_status & TP_STATUS_VLAN_VALID:
                        vid = aux.tp_vlan_tci & 0xfff
            etype = struct.unpack("!H", data[12:14])[0]
            body = data[14:]
            if etype == 0x8100 and len(body) >= 4:  # a tag the kernel left in the bytes
                vid = struct.unpack("!H", body[:2])[0] & 0xfff
                etype = struct.unpack("!H", body[2:4])[0]
                body = body[4:]
            return vid, data[0:6], data[6:12], etype, body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["ping"])
    ap.add_argument("iface")
    ap.add_argument("vid", type=int)
    ap.add_argument("src")
    ap.add_argument("gw")
    ap.add_argument("dst")
    ap.add_argument("count", type=int)
    ap.add_argument("--unknown-vid", type=int, default=0, help="also send COUNT frames on this VLAN id")
    a = ap.parse_args()
    c = ce(a.iface)
    src, gw, dst = (socket.inet_aton(x) for x in (a.src, a.gw, a.dst))
    bcast = b"\xff" * 6

    # ARP for the gateway on the VLAN: srv6d punts it to the sub-port's mirror, the kernel answers.
    gw_mac, arp_vid = None, None
    deadline = time.monotonic() + 5
    next_ask = 0.0
    while gw_mac is None and time.monotonic() < deadline:
        if time.monotonic() >= next_ask:
            c.send(bcast + c.mac + tag(a.vid, 0x0806) + arp(1, c.mac, src, b"\0" * 6, gw))
            next_ask = time.monotonic() + 0.5
        f = c.recv(min(deadline, next_ask))
        if f and f[3] == 0x0806 and len(f[4]) >= 28:
            op, smac, sip = struct.unpack("!6xH6s4s", f[4][:18])
            if op == 2 and sip == gw:
                gw_mac, arp_vid = smac, f[0]
    if gw_mac is None:
        print("arp_tagged=0 gw_mac=none sent=0 replies=0 tagged_replies=0 untagged=0 rtt_ms=nan")
        return 1

    sent = replies = tagged = untagged = 0
    rtts = []
    ident = 0x5a5a
    for seq in range(1, a.count + 1):
        t0 = time.monotonic()
        c.send(gw_mac + c.mac + tag(a.vid, 0x0800) + ipv4_icmp_echo(src, dst, ident, seq))
        if a.unknown_vid:
            c.send(gw_mac + c.mac + tag(a.unknown_vid, 0x0800) + ipv4_icmp_echo(src, dst, ident, 10000 + seq))
        sent += 1
        deadline = t0 + 1.0
        while True:
            f = c.recv(deadline)
            if f is None:
                break
            vid, _, smac, etype, body = f
            if etype == 0x0806 and len(body) >= 28:  # the kernel (through srv6d) resolving us
                op, sha, spa, _, tpa = struct.unpack("!6xH6s4s6s4s", body[:28])
                if op == 1 and tpa == src:
                    c.send(sha + c.mac + tag(a.vid, 0x0806) + arp(2, c.mac, src, sha, spa))
                continue
            if etype != 0x0800 or len(body) < 28 or body[9] != 1 or body[12:16] != dst or body[16:20] != src:
                continue
            ihl = (body[0] & 0xf) * 4
            typ, _, _, rid, rseq = struct.unpack("!BBHHH", body[ihl:ihl + 8])
            if typ == 0 and rid == ident and rseq == seq:
                replies += 1
                rtts.append((time.monotonic() - t0) * 1000)
                if vid == a.vid:
                    tagged += 1
                else:
                    untagged += 1
                break
    rtt = sorted(rtts)[len(rtts) // 2] if rtts else float("nan")
    print("arp_tagged=%d gw_mac=%s sent=%d replies=%d tagged_replies=%d untagged=%d rtt_ms=%.3f" %
          (1 if arp_vid == a.vid else 0, gw_mac.hex(":"), sent, replies, tagged, untagged, rtt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
