#!/usr/bin/python3
"""Records what the Linux kernel's seg6 encapsulation (`ip route ... encap seg6 mode M segs ...`)
emits for known frames, as the reference for tests/unit/forward/headend_kernel_test.cc.

One private network namespace (the script unshares its own; nothing to clean up):
    ce0 ==veth== pe0 [router: seg6 encap routes, tunsrc fc00:a::1] pe1 ==veth== p1
Each case's frame (built with scapy) is written raw to ce0, so the kernel receives it on pe0,
routes it into a seg6 route and forwards the encapsulated packet out of pe1; it is read raw
(AF_PACKET) from p1. The frame in and the packet out (Ethernet removed) go to the fixture file.

What the kernel does that srv6d does differently (the test accounts for it, see
docs/dataplane-headend.md): flow label and traffic class copied from an IPv6 header (also the
one inside an L2 frame), 0 for IPv4 (net.ipv6.seg6_flowlabel=0, the default); outer hop limit 64
(IPv4) or the IPv6 header's, minus one because the kernel encapsulates on input and then forwards.

Needs root, iproute2 and scapy (Debian's /usr/bin/python3). Usage:
    sudo tests/kernel/headend_capture.py [out-file]   (default: tests/fixtures/headend-kernel/cases.txt)
    sudo tests/kernel/headend_capture.py --check      (regenerate and diff with the committed file)
"""
import ctypes
import os
import platform
import socket
import subprocess
import sys
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "fixtures", "headend-kernel", "cases.txt")
CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL("libc.so.6", use_errno=True)

TUNSRC = "fc00:a::1"
PE_MAC = "02:00:00:00:00:10"
CE_MAC = "02:00:00:00:00:01"
MODES = ["encap", "encap.red", "l2encap", "l2encap.red"]


def sids(n):
    # fc00:b::1, fc00:c::2, ...: the same lists as tests/unit/forward/headend_util.hh sid_list().
    return [f"fc00:{0xb + i:x}::{i + 1:x}" for i in range(n)]


def tag(i):
    return b"S6H" + bytes([i]) + bytes(range(12))


def case_list():
    """(name, mode, n SIDs, inner family) for every mode x 1, 2, 3, 8 SIDs x IPv4, IPv6."""
    out = []
    for mode in MODES:
        for n in (1, 2, 3, 8):
            for fam in (4, 6):
                out.append((f"{mode.replace('.', '_')}_{n}sid_ipv{fam}", mode, n, fam))
    return out


def dst(mi, n, fam, host=5):
    # One destination prefix per case: the route carries that case's mode and SIDs.
    return f"10.{100 + mi}.{n}.{host}" if fam == 4 else f"fd{mi + 10:02x}:{n}::{host:x}"


def frame(i, mi, n, fam):
    if fam == 4:
        l3 = IP(src="10.1.0.2", dst=dst(mi, n, 4), ttl=64, tos=0xb9, id=0x1234) / UDP(sport=40000 + i, dport=7)
    else:
        l3 = IPv6(src="fd01::2", dst=dst(mi, n, 6), hlim=64, tc=0x8a, fl=0x12345) / UDP(sport=40000 + i, dport=9)
    return Ether(dst=PE_MAC, src=CE_MAC) / l3 / tag(i)


def sh(*args):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")


def setup(cases):
    if libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    sh("ip", "link", "set", "lo", "up")
    sh("sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
       "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
    sh("ip", "link", "add", "ce0", "type", "veth", "peer", "name", "pe0")
    sh("ip", "link", "add", "pe1", "type", "veth", "peer", "name", "p1")
    sh("ip", "link", "set", "pe0", "address", PE_MAC)
    for i in ("ce0", "pe0", "pe1", "p1"):
        sh("ip", "link", "set", i, "up")
    sh("ip", "addr", "add", "10.1.0.1/24", "dev", "pe0")
    sh("ip", "addr", "add", "fd01::1/64", "dev", "pe0", "nodad")
    sh("ip", "sr", "tunsrc", "set", TUNSRC)
    sh("ip", "-6", "route", "add", "fc00::/16", "via", "fe80::2", "dev", "pe1")
    sh("ip", "-6", "neigh", "add", "fe80::2", "lladdr", "02:00:00:00:00:22", "dev", "pe1", "nud", "permanent")
    for _, mode, n, fam in cases:
        mi = MODES.index(mode)
        pfx = f"10.{100 + mi}.{n}.0/24" if fam == 4 else f"fd{mi + 10:02x}:{n}::/64"
        sh("ip", f"-{fam}", "route", "add", pfx, "encap", "seg6", "mode", mode, "segs", ",".join(sids(n)), "dev", "pe1")


def packet_socket(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((ifname, 0))
    return s


def capture(i, tx, rx, raw, timeout=0.5):
    rx.settimeout(0.05)
    while True:  # drain what came before (router solicitations, MLD)
        try:
            rx.recv(65535)
        except socket.timeout:
            break
    tx.send(raw)
    marker = tag(i)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            f, addr = rx.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING or marker not in f:
            continue
        return f[14:]
    return None


def generate():
    cases = case_list()
    setup(cases)
    tx = packet_socket("ce0")
    rx = packet_socket("p1")
    time.sleep(0.2)
    lines = [f"# Linux {platform.release()} seg6 encap, recorded by tests/kernel/headend_capture.py; do not edit.",
             f"# tunsrc {TUNSRC}, seg6_flowlabel 0. case <name> / mode <iproute2 mode> / segs <SIDs in order> /",
             "# in <Ethernet frame sent to the router> / out <what it forwarded, from the outer IPv6 header on>"]
    missing = []
    for i, (name, mode, n, fam) in enumerate(cases):
        raw = bytes(frame(i, MODES.index(mode), n, fam))
        out = capture(i, tx, rx, raw)
        if out is None:
            missing.append(name)
            continue
        lines += [f"case {name}", f"mode {mode}", f"segs {','.join(sids(n))}", f"in {raw.hex()}", f"out {out.hex()}"]
        print(f"{name:26} {len(out)} bytes", file=sys.stderr)
    if missing:
        raise RuntimeError(f"the kernel sent nothing for: {', '.join(missing)}")
    return "\n".join(lines) + "\n"


def main():
    if os.geteuid() != 0:
        sys.exit("needs root (network namespace, AF_PACKET)")
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
