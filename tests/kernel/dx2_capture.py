#!/usr/bin/python3
"""Records what the Linux kernel's seg6local End.DX2 does with known packets, as the reference
for tests/unit/forward/endpoint_kernel_test.cc (its End.DX2 cases).

The namespaces and helpers are endpoint_capture.py's: snd -- dut -- rcv. The dut has
`End.DX2 oif d1` (the frame leaves untagged) and `End.DX2 oif d1.100` (a VLAN device: the
frame leaves with tag 100); each case's IPv6 packet is written raw on the snd side and what
leaves d1 is read raw on the rcv side: the whole frame, its 802.1Q tag put back from the
packet socket's auxiliary data (veth hands tags over out of band).

The host kernel of the project's machines has no seg6 routes: run it in the VM of tests/vm,
which boots a kernel that has them, with the host's files:
    tests/vm/vm-run.sh tests/kernel/dx2_capture.py [out-file]
Default out-file: tests/fixtures/dx2-kernel/cases.txt; --check compares with it instead.
"""
import os
import platform
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import endpoint_capture as ec  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt, PadN  # noqa: E402
from scapy.layers.l2 import ARP, Dot1Q, Ether  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "fixtures", "dx2-kernel", "cases.txt")
SOL_PACKET, PACKET_AUXDATA = 263, 8
TP_STATUS_VLAN_VALID, TP_STATUS_VLAN_TPID_VALID = 0x10, 0x40

# SID -> (iproute2 arguments, the sid spec the unit test reads: the port the frame leaves).
SIDS = {
    "dx2": ("fc00:0:1::d2/128", "End.DX2 oif d1", "end_dx2 port=plain"),
    "dx2_vlan": ("fc00:0:1::d3/128", "End.DX2 oif d1.100", "end_dx2 port=vlan100"),
}
CE1, CE2 = "02:00:00:00:ce:01", "02:00:00:00:ce:02"


def ip4(i, size=0):
    return IP(src="10.1.0.1", dst="10.2.0.1", ttl=64, id=0x1234) / UDP(sport=40000, dport=7) / (ec.tag(i) + bytes(size))


def frame(i, size=0):
    return Ether(dst=CE2, src=CE1) / ip4(i, size)


def tagged(i):
    return Ether(dst=CE2, src=CE1) / Dot1Q(vlan=7, prio=3) / ip4(i)


def arp(i):
    # ARP has no room for the case marker in its fields: it rides as trailing padding.
    return Ether(dst="ff:ff:ff:ff:ff:ff", src=CE1) / ARP(psrc="10.1.0.1", pdst="10.1.0.2", hwsrc=CE1) / ec.tag(i)


def outer(da, *layers, hl=64, nh=143):
    p = IPv6(src=ec.SRC, dst=da, hlim=hl, tc=0x28, fl=0xabcde, nh=nh)
    for layer in layers:
        p = p / layer
    return p


def srh(sl, segs, nh=143):
    s = ec.srh(sl, segs)
    s.nh = nh
    return s


D2, D3 = "fc00:0:1::d2", "fc00:0:1::d3"
CASES = [
    ("dx2_no_srh", "dx2", lambda i: outer(D2, frame(i))),
    ("dx2_srh_sl0", "dx2", lambda i: outer(D2, srh(0, [D2, "fc00:0:9::1"]), frame(i), nh=43)),
    ("dx2_customer_tag", "dx2", lambda i: outer(D2, tagged(i))),
    ("dx2_arp", "dx2", lambda i: outer(D2, arp(i))),
    ("dx2_destopt", "dx2",
     lambda i: outer(D2, IPv6ExtHdrDestOpt(nh=143, options=[PadN(optdata=b"\x00" * 4)]), frame(i), nh=60)),
    ("dx2_hl1", "dx2", lambda i: outer(D2, frame(i), hl=1)),
    ("dx2_mtu_fits", "dx2", lambda i: outer(D2, frame(i, 1500 - 20 - 8 - 16))),
    ("dx2_mtu_past", "dx2", lambda i: outer(D2, frame(i, 1501 - 20 - 8 - 16))),
    ("dx2_sl1", "dx2", lambda i: outer(D2, srh(1, ["fc00:0:9::1", D2]), frame(i), nh=43)),
    ("dx2_inner_ipv4", "dx2", lambda i: outer(D2, ip4(i), nh=4)),
    ("dx2_8023_length", "dx2", lambda i: outer(D2, bytes.fromhex(CE2.replace(":", "") + CE1.replace(":", "")) +
                                                b"\x00\x2e" + bytes(ip4(i)))),
    ("dx2_vlan_port", "dx2_vlan", lambda i: outer(D3, frame(i))),
    ("dx2_vlan_port_customer_tag", "dx2_vlan", lambda i: outer(D3, tagged(i))),
]


def setup():
    ec.setup_namespaces_only = True
    for ns in ec.NS.values():
        ec.sh("ip", "netns", "add", ns)
    for ns in ec.NS.values():
        ec.sh("ip", "link", "set", "lo", "up", ns=ns)
        ec.sh("sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0", ns=ns)
    snd, dut, rcv = ec.NS["snd"], ec.NS["dut"], ec.NS["rcv"]
    ec.sh("ip", "-n", snd, "link", "add", "s0", "mtu", "9000", "type", "veth", "peer", "name", "d0", "mtu", "9000",
          "netns", dut)
    ec.sh("ip", "-n", dut, "link", "add", "d1", "type", "veth", "peer", "name", "r0", "netns", rcv)
    ec.sh("ip", "-n", dut, "link", "add", "link", "d1", "name", "d1.100", "type", "vlan", "id", "100")
    for ns, ifs in ((snd, ["s0"]), (dut, ["d0", "d1", "d1.100"]), (rcv, ["r0"])):
        for i in ifs:
            ec.sh("ip", "link", "set", i, "up", ns=ns)
    ec.sh("sysctl", "-qw", "net.ipv6.conf.all.forwarding=1", ns=dut)
    ec.sh("ip", "addr", "add", "fc00:10::1/64", "dev", "d0", "nodad", ns=dut)
    for prefix, action, _ in SIDS.values():
        ec.sh("ip", "-6", "route", "add", prefix, "encap", "seg6local", "action", *action.split(), "dev", "d0", ns=dut)


def recv_frame(rx):
    data, anc, _, addr = rx.recvmsg(65535, socket.CMSG_SPACE(20))
    for level, kind, payload in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA and len(payload) >= 20:
            status, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", payload[:20])
            if status & TP_STATUS_VLAN_VALID:
                tpid = tpid if status & TP_STATUS_VLAN_TPID_VALID else 0x8100
                data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
    return data, addr


def capture(i, tx, rx, dmac, pkt, timeout=0.4):
    rx.settimeout(0.05)
    while True:
        try:
            rx.recv(65535)
        except socket.timeout:
            break
    tx.send(bytes(Ether(dst=dmac, src="02:00:00:00:00:01", type=0x86DD) / pkt))
    marker = ec.tag(i)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data, addr = recv_frame(rx)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING or marker not in data:
            continue
        return data
    return None


def generate():
    setup()
    try:
        tx = ec.packet_socket(ec.NS["snd"], "s0")
        rx = ec.packet_socket(ec.NS["rcv"], "r0")
        rx.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        dmac = ec.mac(ec.NS["dut"], "d0")
        time.sleep(0.2)
        lines = [f"# Linux {platform.release()} seg6local End.DX2, recorded by tests/kernel/dx2_capture.py; do not edit.",
                 "# case <name> / sid <endpoint spec> / in <L3 hex> / out <the frame the kernel sent, or drop>"]
        for i, (name, sid, build) in enumerate(CASES):
            pkt = build(i)
            out = capture(i, tx, rx, dmac, pkt)
            lines += [f"case {name}", f"sid {SIDS[sid][2]}", f"in {bytes(pkt).hex()}",
                      f"out {out.hex() if out is not None else 'drop'}"]
            print(f"{name:28} {'forwarded' if out is not None else 'dropped'}", file=sys.stderr)
        return "\n".join(lines) + "\n"
    finally:
        ec.teardown()


def main():
    if os.geteuid() != 0:
        sys.exit("needs root (network namespaces, AF_PACKET)")
    check = "--check" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--check"]
    out_path = args[0] if args else DEFAULT_OUT
    text = generate()
    if check:
        with open(out_path) as f:
            old = [l for l in f.read().splitlines() if not l.startswith("#")]
        if old != [l for l in text.splitlines() if not l.startswith("#")]:
            sys.exit("kernel behavior differs from the committed fixture")
        print("kernel output matches the fixture", file=sys.stderr)
        return
    with open(out_path, "w") as f:
        f.write(text)
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
