#!/usr/bin/python3
"""Records what the Linux kernel's seg6local does with known packets, as the reference for
tests/unit/forward/endpoint_kernel_test.cc.

Three network namespaces: snd -- dut -- rcv. The dut has one seg6local route per SID below;
each case's packet (built with scapy) is written raw to the snd side of the first veth and
whatever the dut forwards is read raw (AF_PACKET) from the rcv side of the second. The L3
bytes in and out (or "drop" when nothing came within the timeout) go to the fixture file.

Needs root, iproute2 and scapy (Debian's /usr/bin/python3). Usage:
    sudo tests/kernel/endpoint_capture.py [out-file]     (default: tests/fixtures/endpoint-kernel/cases.txt)
    sudo tests/kernel/endpoint_capture.py --check        (regenerate and diff with the committed file)

Cleanup: everything it creates is named s6e-<pid>-*; namespaces are removed on exit, also on
error or Ctrl-C.
"""
import ctypes
import os
import platform
import socket
import subprocess
import sys
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrSegmentRouting, PadN
from scapy.layers.l2 import Ether

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "fixtures", "endpoint-kernel", "cases.txt")
PFX = f"s6e-{os.getpid()}"
NS = {k: f"{PFX}-{k}" for k in ("snd", "dut", "rcv")}
CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL("libc.so.6", use_errno=True)

# SIDs on the dut: (prefix, iproute2 seg6local arguments, the endpoint's sid spec for the test).
SIDS = {
    "end": ("fc00:0:1::e/128", "End", "end"),
    "end_psp": ("fc00:0:1::e1/128", "End flavors psp", "end flavors=psp"),
    "end_x": ("fc00:0:1::e2/128", "End.X nh6 fc00:20::2", "end_x"),
    "end_t": ("fc00:0:1::e3/128", "End.T table 100", "end_t vrf=100"),
    "dx4": ("fc00:0:1::d4/128", "End.DX4 nh4 10.20.0.2", "end_dx4"),
    "dx6": ("fc00:0:1::d6/128", "End.DX6 nh6 fc00:20::2", "end_dx6"),
    "dt6": ("fc00:0:1::dd6/128", "End.DT6 table 100", "end_dt6 vrf=100"),
    "un": ("fc00:0:5::/48", "End flavors next-csid lblen 32 nflen 16", "end flavors=next_csid lblen=32 nflen=16"),
    "ua": ("fc00:0:6:e000::/64", "End.X flavors next-csid lblen 32 nflen 32 nh6 fc00:20::2",
           "end_x flavors=next_csid lblen=32 nflen=32"),
}

SRC = "fc00:0:a::1"


def tag(i):
    return b"S6E" + bytes([i]) + bytes(range(12))


def inner4(i, ttl=64):
    return IP(src="10.1.0.1", dst="10.2.0.1", ttl=ttl, id=0x1234) / UDP(sport=40000, dport=7) / tag(i)


def inner6(i, hl=64):
    return IPv6(src="fd01::1", dst="fd02::1", hlim=hl, fl=0x54321) / UDP(sport=40001, dport=9) / tag(i)


def srh(sl, segs, **kw):
    kw.setdefault("lastentry", len(segs) - 1)
    return IPv6ExtHdrSegmentRouting(addresses=segs, segleft=sl, tag=0x0bad, **kw)


def outer(da, *layers, hl=64):
    p = IPv6(src=SRC, dst=da, hlim=hl, tc=0x28, fl=0xabcde)
    for layer in layers:
        p = p / layer
    return p


# (name, sid, builder taking the case index). Segment lists are in wire order ([0] = last).
CASES = [
    ("end_sl2", "end", lambda i: outer("fc00:0:1::e", srh(2, ["fc00:0:3::1", "fc00:0:2::1", "fc00:0:1::e"]), inner4(i))),
    ("end_sl1", "end", lambda i: outer("fc00:0:1::e", srh(1, ["fc00:0:2::1", "fc00:0:1::e"]), inner6(i))),
    ("end_sl0", "end", lambda i: outer("fc00:0:1::e", srh(0, ["fc00:0:1::e"]), inner6(i))),
    ("end_hl1", "end", lambda i: outer("fc00:0:1::e", srh(1, ["fc00:0:2::1", "fc00:0:1::e"]), inner6(i), hl=1)),
    ("end_no_srh", "end", lambda i: outer("fc00:0:1::e", inner6(i))),
    ("end_bad_le", "end", lambda i: outer("fc00:0:1::e", srh(1, ["fc00:0:2::1", "fc00:0:1::e"], lastentry=2), inner6(i))),
    ("end_sl_past", "end", lambda i: outer("fc00:0:1::e", srh(3, ["fc00:0:2::1", "fc00:0:1::e"]), inner6(i))),
    ("end_psp_sl1", "end_psp", lambda i: outer("fc00:0:1::e1", srh(1, ["fc00:0:2::1", "fc00:0:1::e1"]), inner4(i))),
    ("end_psp_sl2", "end_psp",
     lambda i: outer("fc00:0:1::e1", srh(2, ["fc00:0:3::1", "fc00:0:2::1", "fc00:0:1::e1"]), inner4(i))),
    ("end_psp_destopt", "end_psp",
     lambda i: outer("fc00:0:1::e1", IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\x00" * 12)]),
                     srh(1, ["fc00:0:2::1", "fc00:0:1::e1"]), inner6(i))),
    ("end_x_sl1", "end_x", lambda i: outer("fc00:0:1::e2", srh(1, ["fc00:0:3::1", "fc00:0:1::e2"]), inner4(i))),
    ("end_t_sl1", "end_t", lambda i: outer("fc00:0:1::e3", srh(1, ["fc00:0:2::1", "fc00:0:1::e3"]), inner6(i))),
    ("dx4_srh", "dx4", lambda i: outer("fc00:0:1::d4", srh(0, ["fc00:0:1::d4", "fc00:0:9::1"]), inner4(i))),
    ("dx4_red", "dx4", lambda i: outer("fc00:0:1::d4", inner4(i, ttl=9))),
    ("dx4_ttl1", "dx4", lambda i: outer("fc00:0:1::d4", inner4(i, ttl=1))),
    ("dx4_sl1", "dx4", lambda i: outer("fc00:0:1::d4", srh(1, ["fc00:0:9::1", "fc00:0:1::d4"]), inner4(i))),
    ("dx4_inner6", "dx4", lambda i: outer("fc00:0:1::d4", inner6(i))),
    ("dx6_srh", "dx6", lambda i: outer("fc00:0:1::d6", srh(0, ["fc00:0:1::d6", "fc00:0:9::1"]), inner6(i))),
    ("dx6_hl1", "dx6", lambda i: outer("fc00:0:1::d6", inner6(i, hl=1))),
    ("dt6_srh", "dt6", lambda i: outer("fc00:0:1::dd6", srh(0, ["fc00:0:1::dd6", "fc00:0:9::1"]), inner6(i))),
    ("dt6_red", "dt6", lambda i: outer("fc00:0:1::dd6", inner6(i, hl=2))),
    ("dt6_sl1", "dt6", lambda i: outer("fc00:0:1::dd6", srh(1, ["fc00:0:9::1", "fc00:0:1::dd6"]), inner6(i))),
    ("dt6_inner4", "dt6", lambda i: outer("fc00:0:1::dd6", inner4(i))),
    ("un_shift", "un", lambda i: outer("fc00:0:5:2:3::", inner4(i))),
    ("un_shift_srh", "un",
     lambda i: outer("fc00:0:5:2::", srh(1, ["fc00:0:3::1", "fc00:0:5:2::"]), inner6(i))),
    ("un_arg0_srh", "un", lambda i: outer("fc00:0:5::", srh(1, ["fc00:0:2:3::", "fc00:0:5::"]), inner6(i))),
    ("un_arg0_no_srh", "un", lambda i: outer("fc00:0:5::", inner6(i))),
    ("un_hl1", "un", lambda i: outer("fc00:0:5:2::", inner6(i), hl=1)),
    ("ua_shift", "ua", lambda i: outer("fc00:0:6:e000:2:3::", inner4(i))),
    ("ua_arg0_srh", "ua", lambda i: outer("fc00:0:6:e000::", srh(1, ["fc00:0:3::1", "fc00:0:6:e000::"]), inner4(i))),
]


def sh(*args, ns=None, check=True):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


def setup():
    for ns in NS.values():
        sh("ip", "netns", "add", ns)
    for ns in NS.values():
        sh("ip", "link", "set", "lo", "up", ns=ns)
        sh("sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0", ns=ns)
    sh("ip", "-n", NS["snd"], "link", "add", "s0", "type", "veth", "peer", "name", "d0", "netns", NS["dut"])
    sh("ip", "-n", NS["dut"], "link", "add", "d1", "type", "veth", "peer", "name", "r0", "netns", NS["rcv"])
    for ns, ifs in ((NS["snd"], ["s0"]), (NS["dut"], ["d0", "d1"]), (NS["rcv"], ["r0"])):
        for i in ifs:
            sh("ip", "link", "set", i, "up", ns=ns)
    dut = NS["dut"]
    sh("sysctl", "-qw", "net.ipv6.conf.all.forwarding=1", "net.ipv4.ip_forward=1", ns=dut)
    sh("ip", "addr", "add", "fc00:10::1/64", "dev", "d0", "nodad", ns=dut)
    sh("ip", "addr", "add", "fc00:20::1/64", "dev", "d1", "nodad", ns=dut)
    sh("ip", "addr", "add", "10.20.0.1/24", "dev", "d1", ns=dut)
    rmac = mac(NS["rcv"], "r0")
    sh("ip", "-6", "neigh", "add", "fc00:20::2", "lladdr", rmac, "dev", "d1", "nud", "permanent", ns=dut)
    sh("ip", "neigh", "add", "10.20.0.2", "lladdr", rmac, "dev", "d1", "nud", "permanent", ns=dut)
    # End.DX4 routes towards nh4 but, nh4 being on-link, resolves the inner destination.
    sh("ip", "neigh", "add", "10.2.0.1", "lladdr", rmac, "dev", "d1", "nud", "permanent", ns=dut)
    for table in ("main", "100"):
        for p in ("fc00:0:2::/48", "fc00:0:3::/48", "fd02::/64"):
            sh("ip", "-6", "route", "add", p, "via", "fc00:20::2", "dev", "d1", "table", table, ns=dut)
    sh("ip", "route", "add", "10.2.0.0/24", "via", "10.20.0.2", "dev", "d1", ns=dut)
    for prefix, action, _ in SIDS.values():
        sh("ip", "-6", "route", "add", prefix, "encap", "seg6local", "action", *action.split(), "dev", "d1", ns=dut)


def teardown():
    for ns in NS.values():
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def mac(ns, ifname):
    return sh("cat", f"/sys/class/net/{ifname}/address", ns=ns).strip()


def packet_socket(ns, ifname):
    """An AF_PACKET socket bound to `ifname` inside `ns` (sockets keep their namespace)."""
    own = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns")
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        s.bind((ifname, 0))
    finally:
        libc.setns(own, CLONE_NEWNET)
        os.close(own)
        os.close(target)
    return s


def capture(i, tx, rx, dmac, pkt, timeout=0.4):
    rx.settimeout(0.05)
    while True:  # drain what came before
        try:
            rx.recv(65535)
        except socket.timeout:
            break
    tx.send(bytes(Ether(dst=dmac, src="02:00:00:00:00:01", type=0x86DD) / pkt))
    marker = tag(i)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            frame, addr = rx.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING or marker not in frame:
            continue
        return frame[14:]
    return None


def generate():
    setup()
    try:
        tx = packet_socket(NS["snd"], "s0")
        rx = packet_socket(NS["rcv"], "r0")
        dmac = mac(NS["dut"], "d0")
        time.sleep(0.2)
        lines = [f"# Linux {platform.release()} seg6local, recorded by tests/kernel/endpoint_capture.py; do not edit.",
                 "# case <name> / sid <endpoint spec> / in <L3 hex> / out <L3 hex the kernel forwarded, or drop>"]
        for i, (name, sid, build) in enumerate(CASES):
            pkt = build(i)
            out = capture(i, tx, rx, dmac, pkt)
            lines += [f"case {name}", f"sid {SIDS[sid][2]}", f"in {bytes(pkt).hex()}",
                      f"out {out.hex() if out is not None else 'drop'}"]
            print(f"{name:18} {'forwarded' if out is not None else 'dropped'}", file=sys.stderr)
        return "\n".join(lines) + "\n"
    finally:
        if os.environ.get("S6E_KEEP") != "1":
            teardown()


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
        new = [l for l in text.splitlines() if not l.startswith("#")]
        if old != new:
            for a, b in zip(old, new):
                if a != b:
                    print(f"- {a}\n+ {b}", file=sys.stderr)
            sys.exit("kernel behavior differs from the committed fixture")
        print("kernel output matches the fixture", file=sys.stderr)
        return
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        f.write(text)
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
