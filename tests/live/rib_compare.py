#!/usr/bin/env python3
"""Compares what zebra selected with what srv6d learned over FPM (live tests).

Every check polls until it holds or its timeout expires (no fixed sleeps in the callers);
on timeout it prints what differed and exits 1.

  rib_compare.py --srv6ctl BIN --socket SOCK routes --ns NS [--tables 254,100,10=red]
        [--expect T:PREFIX[:N]]... [--expect-absent T:PREFIX]... [--ignore T:PREFIX]... [--timeout S]
      zebra's selected routes of each table (vtysh `show ip[v6] route [table N] json`) equal
      srv6d's (`srv6ctl show routes --json`) as sets of
      (table, prefix, protocol, type, {(gateway, ifindex, seg6 SIDs, seg6local behavior)}),
      after zebra itself has every --expect route (with N FIB nexthops) and no --expect-absent one.
  rib_compare.py ... sids --expect-file F [--timeout S]
      srv6d's local SIDs (`srv6ctl show sids --json`) are exactly F's "sids" (prefix, behavior,
      attributes) and F's "seg6" routes carry their SID lists in `srv6ctl show routes --json`.
  rib_compare.py ... absent T:PREFIX...          none of these routes is in srv6d
  rib_compare.py ... present T:PREFIX...         all of these routes are in srv6d
  rib_compare.py ... snapshot FILE / unchanged FILE   srv6d's routes now equal the saved ones
  rib_compare.py ... fpm [--connections N] [--sweeps N] [--[dis]connected] [--timeout S]
      `srv6ctl show fpm --json`: connection/sweep counters, no resync pending when --sweeps given.
"""
import argparse
import ipaddress
import json
import os
import subprocess
import sys
import time

# zebra's protocol names -> the rtm_protocol zebra puts on the wire (connected routes, and FRR
# 10's local routes of the interface addresses, go out as "kernel", FRR zebra2proto()).
ZEBRA_PROTO = {"kernel": 2, "connected": 2, "local": 2, "static": 196, "bgp": 186, "sharp": 194,
               "isis": 187, "ospf": 188, "ospf6": 188}
NAME_PROTO = dict(ZEBRA_PROTO, zstatic=196, zebra=11)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def canon_prefix(p):
    return str(ipaddress.ip_network(p, strict=False))


def canon_addr(a):
    return str(ipaddress.ip_address(a)) if a else None


def as_int(v):
    """srv6ctl's JSON schema 1 printed 64-bit counters as strings; schema 2 prints numbers."""
    return int(v) if isinstance(v, str) and v.isdigit() else v


def pick(d, *keys, default=None):
    """First key present in dict d (the JSON field names of srv6ctl are its owner's choice)."""
    for k in keys:
        if isinstance(d, dict) and k in d and d[k] is not None:
            return d[k]
    return default


# ---- zebra -------------------------------------------------------------------------------

def parse_tables(spec):
    """"254,100,10=red" -> [(254, None), (100, None), (10, "red")]: a table, or a kernel VRF's
    table read from zebra's view of that VRF (`show ip route vrf red json`)."""
    out = []
    for t in spec.split(","):
        num, _, vrf = t.partition("=")
        out.append((int(num), vrf or None))
    return out


def json_docs(text):
    """The JSON documents printed one after the other (vtysh with several -c)."""
    dec, docs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def vtysh(ns):
    """vtysh for the FRR of NS: the host's with pathspace NS, or RIB_COMPARE_VTYSH with {ns}
    replaced (tests/vm's FRR 10 runs in a chroot per PE: "chroot /run/frr10/{ns} vtysh")."""
    cmd = os.environ.get("RIB_COMPARE_VTYSH")
    return cmd.replace("{ns}", ns).split() if cmd else ["vtysh", "-N", ns]


def zebra_tables(ns, tables):
    """{(table, prefix): entry} of zebra's selected routes, plus notes on skipped ones."""
    out, notes, cmds = {}, [], []
    for table, vrf in tables:
        for fam in ("ip", "ipv6"):
            if vrf:
                cmds.append((table, f"show {fam} route vrf {vrf} json"))
            elif table == 254:
                cmds.append((table, f"show {fam} route json"))
            else:
                cmds.append((table, f"show {fam} route table {table} json"))
    # One vtysh for all of them (each vtysh costs ~0.4 s in the VM's emulated CPU); one per command
    # when some printed nothing and the documents cannot be told apart.
    args = vtysh(ns)
    for _, cmd in cmds:
        args += ["-c", cmd]
    docs = json_docs(run(args))
    if len(docs) != len(cmds):
        docs = [json.loads(run(vtysh(ns) + ["-c", cmd]) or "{}") for _, cmd in cmds]
    for (table, _), doc in zip(cmds, docs):
        zebra_doc_routes(table, doc, out, notes)
    return out, notes


def zebra_doc_routes(table, doc, out, notes):
    """Adds the selected routes of one `show ip[v6] route [table N] json` document to out."""
    for prefix, entries in doc.items():
        for e in entries:
            if not e.get("selected"):
                continue
            key = (table, canon_prefix(prefix))
            if not e.get("installed"):
                # kernel-rejected: zebra sends such a route in replays only, never live
                notes.append(f"ignored {key}: selected but not installed in the kernel")
                continue
            out[key] = zebra_route(table, e)


def zebra_route(table, e):
    fib = [n for n in e.get("nexthops", []) if n.get("fib")]
    rtype = "unicast"
    if any(n.get("blackhole") for n in fib):
        rtype = "blackhole"
    elif any(n.get("reject") for n in fib):
        rtype = "unreachable"
    elif any(n.get("unreachable") for n in fib):
        rtype = "unreachable"
    nhs = set()
    if rtype == "unicast":
        for n in fib:
            segs = pick(n.get("seg6", {}), "segs")
            segs = None if segs in (None, "::") else tuple(canon_addr(s) for s in segs.split(","))
            action = pick(n.get("seg6local", {}), "action")
            action = None if action in (None, "unspec") else norm_behavior(action)
            nhs.add((canon_addr(n.get("ip")), n.get("interfaceIndex", 0), segs, action))
    return {"protocol": ZEBRA_PROTO.get(e["protocol"], e["protocol"]), "type": rtype,
            "nexthops": frozenset(nhs)}


# ---- srv6d -------------------------------------------------------------------------------

def srv6ctl(args, what):
    return json.loads(run([args.srv6ctl, "--socket", args.socket, "show", *what, "--json"]))


# srv6ctl names an End / End.X / End.DT* with the NEXT-C-SID flavor by its RFC 9800 name (uN,
# uA, uDT46...); zebra names the action (End, End.X, End.DT46) and shows the flavor apart
USID_NAMES = {"un": "end", "ua": "end.x", "udt4": "end.dt4", "udt6": "end.dt6", "udt46": "end.dt46",
              "udx4": "end.dx4", "udx6": "end.dx6", "ut": "end.t"}


def norm_behavior(b):
    b = str(b).replace("_", ".").lower()
    return USID_NAMES.get(b, b)


def proto_number(p):
    if isinstance(p, dict):
        p = pick(p, "number", "id", "value", "name")
    if isinstance(p, str):
        return int(p) if p.isdigit() else NAME_PROTO.get(p.lower(), p)
    return p


def srv6d_route_list(doc):
    """srv6ctl show routes --json: an object keyed by table id -> list of routes (tolerates a
    {"tables": ...} / {"routes": [...]} wrapper)."""
    doc = pick(doc, "tables", "routes", default=doc)
    if isinstance(doc, list):
        return [(pick(r, "table", default=254), r) for r in doc]
    out = []
    for t, routes in doc.items():
        if not t.isdigit():
            continue  # "schema_version"
        if isinstance(routes, dict):
            routes = pick(routes, "routes", default=[])
        out += [(int(t), r) for r in routes]
    return out


def srv6d_nexthop(n):
    # an empty seg6/seg6local object means "none" (proto3 JSON of an unset field)
    s6 = pick(n, "seg6", "encap")
    segs = None
    if isinstance(s6, dict):
        segs = pick(s6, "segments", "segs", "sids")
        if isinstance(segs, str):
            segs = segs.split(",")
        segs = tuple(canon_addr(s) for s in segs) if segs else None
    loc = pick(n, "seg6local", "local")
    action = None
    if isinstance(loc, dict) and pick(loc, "behavior", "name"):
        action = norm_behavior(pick(loc, "behavior", "name"))
    return (canon_addr(pick(n, "gateway", "via", "ip")), pick(n, "ifindex", "interfaceIndex", "oif", default=0),
            segs, action)


def srv6d_routes(args):
    return srv6d_doc_routes(srv6ctl(args, ["routes"]))


def srv6d_doc_routes(doc):
    out = {}
    for table, r in srv6d_route_list(doc):
        rtype = str(pick(r, "type", default="unicast")).lower()
        nhs = frozenset(srv6d_nexthop(n) for n in pick(r, "nexthops", default=[]))
        out[(int(table), canon_prefix(r["prefix"]))] = {
            "protocol": proto_number(pick(r, "protocol", "proto")), "type": rtype,
            "nexthops": nhs if rtype == "unicast" else frozenset()}
    return out


# ---- checks ------------------------------------------------------------------------------

def fmt_route(key, r):
    nhs = sorted(r["nexthops"], key=str)
    parts = []
    for gw, ifi, segs, act in nhs:
        s = f"via {gw}" if gw else "dev"
        s += f" if {ifi}"
        if segs:
            s += f" seg6 {','.join(segs)}"
        if act:
            s += f" seg6local {act}"
        parts.append(s)
    return f"table {key[0]} {key[1]} proto {r['protocol']} {r['type']} [{'; '.join(parts)}]"


def diff_routes(z, s):
    lines = []
    for k in sorted(set(z) | set(s), key=str):
        if k not in s:
            lines.append(f"  only in zebra : {fmt_route(k, z[k])}")
        elif k not in z:
            lines.append(f"  only in srv6d : {fmt_route(k, s[k])}")
        elif z[k] != s[k]:
            lines.append(f"  zebra         : {fmt_route(k, z[k])}")
            lines.append(f"  srv6d         : {fmt_route(k, s[k])}")
    return lines


def parse_route_ref(s):
    parts = s.split(":", 1)
    rest = parts[1]
    count = None
    if rest.count("/") == 1 and ":" in rest.split("/")[1]:
        rest, count = rest.rsplit(":", 1)
    return (int(parts[0]), canon_prefix(rest)), (int(count) if count else None)


def zebra_expectations(z, args):
    bad = []
    for ref in args.expect:
        key, count = parse_route_ref(ref)
        if key not in z:
            bad.append(f"  zebra lacks {key}")
        elif count is not None and len(z[key]["nexthops"]) != count:
            bad.append(f"  zebra has {fmt_route(key, z[key])}, expected {count} nexthops")
    for ref in args.expect_absent:
        key, _ = parse_route_ref(ref)
        if key in z:
            bad.append(f"  zebra still has {fmt_route(key, z[key])}")
    return bad


def poll(timeout, check):
    """check() -> list of problems; poll until empty. Returns the last problems."""
    deadline = time.monotonic() + timeout
    parent = os.getppid()
    while True:
        if os.getppid() != parent:
            sys.exit("rib_compare: the test that started me is gone")
        try:
            problems = check()
        except (RuntimeError, json.JSONDecodeError, KeyError, ValueError, subprocess.TimeoutExpired) as e:
            problems = [f"  error: {e}"]
        if not problems or time.monotonic() >= deadline:
            return problems
        time.sleep(0.3)


def cmd_routes(args):
    tables = parse_tables(args.tables)
    state = {}

    def check():
        z, notes = zebra_tables(args.ns, tables)
        state["notes"], state["n"] = notes, len(z)
        bad = zebra_expectations(z, args)
        if bad:
            return ["zebra has not converged to what the test installed:"] + bad
        mine = srv6d_routes(args)
        for spec in args.ignore:  # srv6d's own routes (its [sids] config), not zebra's
            t, _, pfx = spec.partition(":")
            mine.pop((int(t), canon_prefix(pfx)), None)
        d = diff_routes(z, mine)
        return (["zebra and srv6d differ:"] + d) if d else []

    problems = poll(args.timeout, check)
    for n in state.get("notes", []):
        print(f"note: {n}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"ok: {state['n']} routes in tables {args.tables} identical in zebra and srv6d")
    return 0


def flatten(d, out=None):
    """All scalar fields of a nested JSON object by (last) key name."""
    out = {} if out is None else out
    for k, v in d.items():
        if isinstance(v, dict):
            flatten(v, out)
        elif k not in out:
            out[k] = v
    return out


def srv6d_doc_sids(doc):
    """{prefix: flat attributes} of `srv6ctl show sids --json`; the behavior's own attributes
    (seg6local.table = the decap table) win over the SID's (table = its route table)."""
    sids = pick(doc, "sids", default=doc)
    return {canon_prefix(s["prefix"]): flatten(s.get("seg6local", {}), dict(prefix=s["prefix"])) for s in sids}


def same_value(a, b):
    try:
        return canon_addr(str(a)) == canon_addr(str(b))
    except ValueError:
        return str(a).lower() == str(b).lower()


def cmd_sids(args):
    exp = json.load(open(args.expect_file))

    def check():
        bad = []
        got = srv6d_doc_sids(srv6ctl(args, ["sids"]))
        want = {canon_prefix(s["prefix"]): s for s in exp.get("sids", [])}
        for p in sorted(set(got) - set(want)):
            bad.append(f"  unexpected SID in srv6d: {p} {got[p]}")
        for p, w in sorted(want.items()):
            g = got.get(p)
            if g is None:
                bad.append(f"  SID missing in srv6d: {p} {w['behavior']}")
                continue
            gb = pick(g, "behavior", "action", "name")
            if gb is None or norm_behavior(gb) != norm_behavior(w["behavior"]):
                bad.append(f"  {p}: behavior {gb}, expected {w['behavior']}")
            for k, v in w.items():
                if k in ("prefix", "behavior"):
                    continue
                if k not in g or not same_value(g[k], v):
                    bad.append(f"  {p}: {k} = {g.get(k)}, expected {v}")
        if exp.get("seg6"):
            routes = srv6d_routes(args)
            for e in exp["seg6"]:
                key = (e.get("table", 254), canon_prefix(e["prefix"]))
                segs = tuple(canon_addr(x) for x in e["segments"])
                r = routes.get(key)
                if r is None or not any(n[2] == segs for n in r["nexthops"]):
                    bad.append(f"  seg6 route {key}: expected SIDs {','.join(segs)}, srv6d has "
                               f"{fmt_route(key, r) if r else 'no route'}")
        return (["srv6d SIDs/encaps differ from what was installed:"] + bad) if bad else []

    problems = poll(args.timeout, check)
    if problems:
        print("\n".join(problems))
        return 1
    print(f"ok: {len(exp.get('sids', []))} local SIDs and {len(exp.get('seg6', []))} seg6 routes as installed")
    return 0


def cmd_absent(args):
    def check():
        s = srv6d_routes(args)
        return [f"  srv6d still has {fmt_route(k, s[k])}" for k in
                (parse_route_ref(r)[0] for r in args.routes) if k in s]

    problems = poll(args.timeout, check)
    if problems:
        print("stale routes in srv6d:\n" + "\n".join(problems))
        return 1
    print(f"ok: {len(args.routes)} routes gone from srv6d")
    return 0


def cmd_present(args):
    def check():
        s = srv6d_routes(args)
        return [f"  srv6d lacks {k}" for k in (parse_route_ref(r)[0] for r in args.routes) if k not in s]

    problems = poll(args.timeout, check)
    if problems:
        print("routes missing in srv6d:\n" + "\n".join(problems))
        return 1
    print(f"ok: {len(args.routes)} routes present in srv6d")
    return 0


def cmd_snapshot(args):
    routes = srv6d_routes(args)
    with open(args.file, "w") as f:
        json.dump([[list(k), dict(v, nexthops=sorted(v["nexthops"], key=str))] for k, v in routes.items()], f)
    print(f"ok: {len(routes)} srv6d routes saved")
    return 0


def cmd_unchanged(args):
    with open(args.file) as f:
        before = {tuple(k): dict(v, nexthops=frozenset(tuple(tuple(x) if isinstance(x, list) else x for x in n)
                                                       for n in v["nexthops"]))
                  for k, v in json.load(f)}
    d = diff_routes(before, srv6d_routes(args))
    if d:
        print("srv6d's routes changed (before = 'zebra' column):\n" + "\n".join(d))
        return 1
    print(f"ok: srv6d still has the same {len(before)} routes")
    return 0


def cmd_fpm(args):
    state = {}

    def check():
        st = flatten(srv6ctl(args, ["fpm"]))
        state["st"] = st
        bad = []
        conns = as_int(pick(st, "connections", "accepted"))
        if args.connections is not None and conns != args.connections:
            bad.append(f"  connections = {conns}, expected {args.connections}")
        if args.connected and not pick(st, "connected"):
            bad.append("  not connected")
        if args.disconnected and pick(st, "connected"):
            bad.append("  still connected")
        if args.sweeps is not None:
            sweeps = as_int(pick(st, "sweeps"))
            pending = pick(st, "resyncPending", "resync_pending")
            if sweeps != args.sweeps:
                bad.append(f"  sweeps = {sweeps}, expected {args.sweeps}")
            if pending:
                bad.append("  resync still pending")
        if args.sweep_scope is not None:
            scope = pick(st, "lastSweepScope", "last_sweep_scope")
            if scope != args.sweep_scope:
                bad.append(f"  last sweep scope = {scope!r}, expected {args.sweep_scope!r}")
        return bad

    problems = poll(args.timeout, check)
    if problems:
        print("srv6d FPM session state:\n" + "\n".join(problems))
        print(f"  (show fpm: {json.dumps(state.get('st'))})")
        return 1
    st = state["st"]
    print(f"ok: fpm connections={pick(st, 'connections')} sweeps={pick(st, 'sweeps')} "
          f"last sweep removed={pick(st, 'lastSweepRemoved', 'last_sweep_removed')} "
          f"scope={pick(st, 'lastSweepScope', 'last_sweep_scope')!r} "
          f"({pick(st, 'lastSweepReason', 'last_sweep_reason')}) zebra pid={pick(st, 'zebraPid', 'zebra_pid')}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--srv6ctl", required=True)
    ap.add_argument("--socket", required=True)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("routes")
    r.add_argument("--ns", required=True)
    r.add_argument("--tables", default="254", help="comma-separated; TABLE=VRF for a kernel VRF's table")
    r.add_argument("--expect", action="append", default=[])
    r.add_argument("--expect-absent", action="append", default=[])
    r.add_argument("--ignore", action="append", default=[], help="T:PREFIX of srv6d's own that zebra does not have")
    r.add_argument("--timeout", type=float, default=20)
    s = sub.add_parser("sids")
    s.add_argument("--expect-file", required=True)
    s.add_argument("--timeout", type=float, default=10)
    a = sub.add_parser("absent")
    a.add_argument("routes", nargs="+")
    a.add_argument("--timeout", type=float, default=10)
    p = sub.add_parser("present")
    p.add_argument("routes", nargs="+")
    p.add_argument("--timeout", type=float, default=10)
    sn = sub.add_parser("snapshot")
    sn.add_argument("file")
    un = sub.add_parser("unchanged")
    un.add_argument("file")
    f = sub.add_parser("fpm")
    f.add_argument("--connections", type=int)
    f.add_argument("--sweeps", type=int)
    f.add_argument("--connected", action="store_true")
    f.add_argument("--disconnected", action="store_true")
    f.add_argument("--sweep-scope", help='"full", "replayed tables only" or "all but kernel routes of unreplayed tables" (with --sweeps)')
    f.add_argument("--timeout", type=float, default=10)
    args = ap.parse_args()
    return {"routes": cmd_routes, "sids": cmd_sids, "absent": cmd_absent, "present": cmd_present, "snapshot": cmd_snapshot,
            "unchanged": cmd_unchanged, "fpm": cmd_fpm}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
