#!/usr/bin/env python3
"""UDP flows for the link failover and two-worker tests: a sender of N numbered flows, a
receiver that records which interface each datagram came in on, the analysis of a link failure
in between, and the check that every flow arrived complete and in order.

  flow_tool.py send DST SECONDS [--flows N] [--interval S] [--port P]
  flow_tool.py recv LOG STOPFILE [--port P]      (writes LOG when STOPFILE appears)
  flow_tool.py analyse LOG FAIL_EPOCH IFINDEX_OF_THE_FAILED_PATH
  flow_tool.py order LOG SENT                    (SENT: what `send` printed)

Each datagram carries its flow (source port - base), a sequence number and its send time. A flow
is one 5-tuple, so srv6d's ECMP hash keeps it on one path until that path fails.
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import time

HDR = struct.Struct("!HId")  # flow, seq, send time (epoch s)
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)


def cmd_send(a):
    socks = []
    for f in range(a.flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", a.base + f))
        socks.append(s)
    end = time.time() + a.seconds
    seq = 0
    nxt = time.time()
    while True:
        now = time.time()
        if now >= end:
            break
        for f, s in enumerate(socks):
            s.sendto(HDR.pack(f, seq, time.time()).ljust(64, b"\0"), (a.dst, a.port))
        seq += 1
        nxt += a.interval
        delay = nxt - time.time()
        if delay > 0:
            time.sleep(delay)
    print(json.dumps({"flows": a.flows, "rounds": seq, "interval": a.interval}))


def cmd_recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
    try:  # root: past net.core.rmem_max, so a descheduled receiver loses nothing
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUFFORCE, 4 << 20)
    except (OSError, AttributeError):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", a.port))
    recs = []
    while not os.path.exists(a.stop):
        r, _, _ = select.select([s], [], [], 0.05)
        if not r:
            continue
        while True:
            try:
                data, anc, _, _ = s.recvmsg(128, 64, socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            if len(data) < HDR.size:
                continue
            flow, seq, sent = HDR.unpack_from(data)
            ifindex = 0
            for level, typ, val in anc:
                if level == socket.IPPROTO_IP and typ == IP_PKTINFO and len(val) >= 4:
                    ifindex = struct.unpack_from("i", val)[0]
            recs.append((flow, seq, sent, time.time(), ifindex))
    with open(a.log, "w") as f:
        json.dump(recs, f)


def cmd_analyse(a):
    recs = json.load(open(a.log))
    fail = a.fail
    by_flow = {}
    for flow, seq, sent, recv, ifx in recs:
        by_flow.setdefault(flow, []).append((seq, sent, recv, ifx))
    out = {"flows": len(by_flow), "on_failed_path": 0, "moved": 0, "others_lost": 0, "windows_ms": []}
    for flow, rs in sorted(by_flow.items()):
        rs.sort()
        before = [r for r in rs if r[1] < fail]
        after = [r for r in rs if r[1] >= fail]
        on_failed = bool(before) and before[-1][3] == a.ifindex
        if not on_failed:
            # a flow on the surviving path: count what it lost around the failure
            seqs = {r[0] for r in rs}
            lo, hi = rs[0][0], rs[-1][0]
            out["others_lost"] += (hi - lo + 1) - len(seqs)
            continue
        out["on_failed_path"] += 1
        if after and after[-1][3] != a.ifindex:
            out["moved"] += 1
        # the window: from the last datagram that arrived before the failure to the first one
        # after it, in send time (what the sender lost)
        last_ok = before[-1][1]
        first_ok = next((r[1] for r in after if r[3] != a.ifindex), None)
        if first_ok is not None:
            out["windows_ms"].append(round((first_ok - last_ok) * 1000, 1))
    w = sorted(out["windows_ms"])
    out["window_max_ms"] = w[-1] if w else None
    out["window_median_ms"] = w[len(w) // 2] if w else None
    print(json.dumps(out))


def cmd_order(a):
    """Per flow, in arrival order: datagrams received, missing (of the rounds sent), duplicated,
    and arrivals with a lower sequence number than one before them (reordered)."""
    recs = json.load(open(a.log))
    sent = json.load(open(a.sent))
    rounds, flows = sent["rounds"], sent["flows"]
    seqs = {f: [] for f in range(flows)}
    for flow, seq, _sent, _recv, _ifx in recs:
        seqs.setdefault(flow, []).append(seq)
    out = {"flows": flows, "rounds": rounds, "received": len(recs), "incomplete_flows": 0, "missing": 0,
           "duplicates": 0, "reordered": 0, "reordered_flows": 0}
    for flow, ss in seqs.items():
        uniq = set(ss)
        out["duplicates"] += len(ss) - len(uniq)
        missing = len(set(range(rounds)) - uniq)
        out["missing"] += missing
        out["incomplete_flows"] += missing > 0
        late, hi = 0, -1
        for q in ss:
            if q < hi:
                late += 1
            hi = max(hi, q)
        out["reordered"] += late
        out["reordered_flows"] += late > 0
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("dst")
    s.add_argument("seconds", type=float)
    s.add_argument("--flows", type=int, default=32)
    s.add_argument("--interval", type=float, default=0.005)
    s.add_argument("--port", type=int, default=7000)
    s.add_argument("--base", type=int, default=20000)
    r = sub.add_parser("recv")
    r.add_argument("log")
    r.add_argument("stop")
    r.add_argument("--port", type=int, default=7000)
    n = sub.add_parser("analyse")
    n.add_argument("log")
    n.add_argument("fail", type=float)
    n.add_argument("ifindex", type=int)
    o = sub.add_parser("order")
    o.add_argument("log")
    o.add_argument("sent")
    a = p.parse_args()
    {"send": cmd_send, "recv": cmd_recv, "analyse": cmd_analyse, "order": cmd_order}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
