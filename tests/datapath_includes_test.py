#!/usr/bin/env python3
"""Every header a datapath object was compiled with, direct or not, is DPDK's, the C++/C
runtime's or a datapath-safe project header: no Boost, fmt, libnl, protobuf, the logger or a
*/control/ header. cmake/lib.cmake checks the datapath sources' own #include lines at configure
time; this reads what the compiler really opened (ninja's dependency log), so a header that
pulls fmt in for a datapath file fails here.

usage: datapath_includes_test.py BUILD_DIR DATAPATH_LIB... -- CONTROL_LIB
The control library is checked the other way round (it must use the logger), so that a broken
reading of the dependency log cannot pass in silence."""
import re
import subprocess
import sys

FORBIDDEN = re.compile(r"(^|/)(boost|fmt|netlink|libnl3|google/protobuf)/|(^|/)util/log\.hh$|(^|/)[a-z]+/control/[^/]+$")


def deps_by_object(build):
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], check=True, capture_output=True, text=True).stdout
    objs, cur = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            cur = line.split(":", 1)[0]
            objs[cur] = {"stale": "STALE" in line, "deps": []}
        elif line.strip() and cur:
            objs[cur]["deps"].append(line.strip())
    return objs


def objects_of(objs, lib):
    return {o: d for o, d in objs.items() if f"/{lib}.dir/" in o}


def main():
    build, rest = sys.argv[1], sys.argv[2:]
    sep = rest.index("--")
    datapath, control = rest[:sep], rest[sep + 1:]
    objs = deps_by_object(build)
    failed = 0
    checked = 0
    for lib in datapath:
        mine = objects_of(objs, lib)
        if not mine:
            print(f"FAIL {lib}: no object in ninja's dependency log (not built?)")
            failed += 1
        for o, d in sorted(mine.items()):
            checked += 1
            bad = [h for h in d["deps"] if FORBIDDEN.search(h)]
            if bad:
                failed += 1
                print(f"FAIL {o} includes, through its headers:")
                for h in bad:
                    print(f"    {h}")
    for lib in control:
        mine = objects_of(objs, lib)
        if not any(FORBIDDEN.search(h) for d in mine.values() for h in d["deps"]):
            print(f"FAIL self-check: {lib} (control code) shows no logger or control header: the reading is broken")
            failed += 1
    print(f"{checked} datapath objects checked, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
