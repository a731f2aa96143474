#!/usr/bin/python3
"""Records what the Linux kernel emits for H.Insert (`encap seg6 mode inline`) and End.B6.Encaps
(`encap seg6local action End.B6.Encaps srh segs ...`), as the reference for
tests/unit/forward/insert_kernel_test.cc. The host's kernel has no seg6 routes: run it in the VM
(tests/vm/vm-run.sh, see tests/kernel/insert_b6_capture_vm.sh), which writes the fixture.

The same private namespace as tests/kernel/headend_capture.py (ce0 ==veth== pe0 [router]
pe1 ==veth== p1, tunsrc fc00:a::1, fc00::/16 routed out of pe1):
  * inline_<n>sid: an IPv6/UDP frame to fd20:<n>::5, whose route inserts an SRH with n SIDs;
  * b6_encaps_<n>sid: an IPv6 frame to the binding SID fc00:1::b6<n> with an SRH (SL 1, the
    next segment fd21::5) over UDP; the SID's policy has n SIDs.
Case / mode / segs / in / out lines, as headend_capture.py writes them.

Needs root, iproute2 and scapy. Usage: insert_b6_capture.py [out-file] [--check]
"""
import os
import platform
import sys
import time

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.layers.l2 import Ether

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import headend_capture as hc  # noqa: E402  (setup helpers, frames' tags, SID lists)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "fixtures", "insert-kernel", "cases.txt")
COUNTS = (1, 2, 3, 8)


def case_list():
    return [(f"inline_{n}sid", "inline", n) for n in COUNTS] + [(f"b6_encaps_{n}sid", "b6.encaps", n) for n in COUNTS]


def frame(i, mode, n):
    if mode == "inline":
        l3 = IPv6(src="fd01::2", dst=f"fd20:{n}::5", hlim=64, tc=0x8a, fl=0x12345) / UDP(sport=40000 + i, dport=9)
    else:
        srh = IPv6ExtHdrSegmentRouting(addresses=["fd21::5", f"fc00:1::b6{n}"], segleft=1, lastentry=1, nh=17)
        l3 = IPv6(src="fc00:9::1", dst=f"fc00:1::b6{n}", hlim=64, tc=0x8a, fl=0x12345) / srh / UDP(sport=40000 + i, dport=9)
    return Ether(dst=hc.PE_MAC, src=hc.CE_MAC) / l3 / hc.tag(i)


def setup(cases):
    hc.setup([])  # the namespace, the ports, tunsrc, the route to fc00::/16 out of pe1
    hc.sh("ip", "-6", "route", "add", "fd21::/64", "via", "fe80::2", "dev", "pe1")
    for _, mode, n in cases:
        segs = ",".join(hc.sids(n))
        if mode == "inline":
            hc.sh("ip", "-6", "route", "add", f"fd20:{n}::/64", "encap", "seg6", "mode", "inline", "segs", segs, "dev", "pe1")
        else:
            hc.sh("ip", "-6", "route", "add", f"fc00:1::b6{n}/128", "encap", "seg6local", "action", "End.B6.Encaps",
                  "srh", "segs", segs, "dev", "pe1")


def generate():
    cases = case_list()
    setup(cases)
    tx = hc.packet_socket("ce0")
    rx = hc.packet_socket("p1")
    time.sleep(0.2)
    lines = [f"# Linux {platform.release()} seg6 inline / seg6local End.B6.Encaps, recorded by "
             "tests/kernel/insert_b6_capture.py; do not edit.",
             f"# tunsrc {hc.TUNSRC}, seg6_flowlabel 0. case <name> / mode <inline | b6.encaps> / segs <SIDs in order> /",
             "# in <Ethernet frame sent to the router> / out <what it forwarded, from the IPv6 header on>"]
    missing = []
    for i, (name, mode, n) in enumerate(cases):
        raw = bytes(frame(i, mode, n))
        out = hc.capture(i, tx, rx, raw)
        if out is None:
            missing.append(name)
            continue
        lines += [f"case {name}", f"mode {mode}", f"segs {','.join(hc.sids(n))}", f"in {raw.hex()}", f"out {out.hex()}"]
        print(f"{name:20} {len(out)} bytes", file=sys.stderr)
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
            sys.exit("kernel behavior differs from the committed fixture")
        print("kernel output matches the fixture", file=sys.stderr)
        return
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        f.write(text)
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
