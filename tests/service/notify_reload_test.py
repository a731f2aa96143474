#!/usr/bin/env python3
"""srv6d as systemd runs it, without systemd: the daemon (control plane only) under a
NOTIFY_SOCKET this test listens on. Checks READY=1 only once the FPM listener and the management
socket answer, RELOADING=1 then READY=1 around each SIGHUP, what a reload applies (log level,
VRF lines, [sids] and [routes] lines added, changed and removed, encap source) and what it refuses (eal.args: a
restart; a file with an error: nothing changes), `srv6ctl set log-level`, the log lines' date
and severity, --check-config and -c DIRECTORY, and STOPPING=1 then exit 0 on SIGTERM.

usage: notify_reload_test.py SRV6D SRV6CTL [ARG...]
  ARG... replace the default "-c CONFIG": the package test passes the installed unit's
  ExecStart arguments (the config file among them is rewritten by this test)."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

SRV6D, SRV6CTL = sys.argv[1], sys.argv[2]
EXTRA = sys.argv[3:]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


work = tempfile.mkdtemp(prefix="srv6d-notify-")
sock_path = os.path.join(work, "srv6d.sock")
log_path = os.path.join(work, "srv6d.log")
notify_path = os.path.join(work, "notify")
port = free_port()

# The config file: the one named by ExecStart's -c (rewritten), else our own.
config = os.path.join(work, "srv6d.conf")
args = list(EXTRA) if EXTRA else ["-c", config]
if "-c" in args:
    config = args[args.index("-c") + 1]

BASE = f"""
[fpm]
listen = 127.0.0.1
port = {port}
[mgmt]
socket = {sock_path}
[log]
level = info
[dataplane]
enabled = false
"""


def write_config(text):
    with open(config, "w") as f:
        f.write(text)


write_config(BASE)

# --check-config and -c DIRECTORY, before any daemon runs.
r = subprocess.run([SRV6D, "--check-config", config], capture_output=True, text=True)
check(r.returncode == 0 and "configuration OK" in r.stdout, f"--check-config on a valid file: exit 0 ({r.returncode}, {r.stdout.strip()})")
bad = os.path.join(work, "bad.conf")
with open(bad, "w") as f:
    f.write("[fpm]\nport = seventy\n")
r = subprocess.run([SRV6D, "--check-config", bad], capture_output=True, text=True)
check(r.returncode == 1 and "invalid value 'seventy' for fpm.port" in r.stderr,
      f"--check-config on an invalid file: exit 1 naming key and value ({r.returncode}, {r.stderr.strip()})")
r = subprocess.run([SRV6D, "-c", work], capture_output=True, text=True)
check(r.returncode == 2 and "is not a regular file (a directory)" in r.stderr,
      f"-c DIRECTORY is an error ({r.returncode}, {r.stderr.strip()})")

notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
notify.settimeout(30)

env = dict(os.environ, NOTIFY_SOCKET=notify_path)
env.pop("JOURNAL_STREAM", None)
logf = open(log_path, "w")
proc = subprocess.Popen([SRV6D] + args, stdout=logf, stderr=subprocess.STDOUT, env=env)


def next_state(expect):
    """The next datagram; it must carry `expect` (e.g. READY=1)."""
    try:
        msg = notify.recv(4096).decode()
    except socket.timeout:
        return None
    return msg if expect in msg.split("\n") else "unexpected: " + msg


def ctl(*words):
    return subprocess.run([SRV6CTL, "--socket", sock_path] + list(words), capture_output=True, text=True)


def reload_and_wait(what):
    proc.send_signal(signal.SIGHUP)
    msg = next_state("RELOADING=1")
    check(msg is not None and not msg.startswith("unexpected"), f"{what}: RELOADING=1 ({msg!r})")
    msg = next_state("READY=1")
    check(msg is not None and not msg.startswith("unexpected"), f"{what}: READY=1 after it ({msg!r})")


def log_text():
    with open(log_path) as f:
        return f.read()


def wait_log(pattern, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if re.search(pattern, log_text(), re.M):
            return True
        time.sleep(0.05)
    return False


try:
    msg = next_state("READY=1")
    check(msg is not None and not msg.startswith("unexpected"), f"READY=1 at start ({msg!r})")
    check(msg is not None and "STATUS=FPM on 127.0.0.1:" in msg, "READY carries a STATUS line")
    # READY means: FPM listener and management socket up.
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    c.close()
    check(True, "the FPM listener accepts at READY")
    r = ctl("show", "fpm")
    check(r.returncode == 0, f"srv6ctl answers at READY ({r.stderr.strip()})")

    # Log lines: date, time, severity.
    first = log_text().splitlines()[0] if log_text() else ""
    check(re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (error|warn |info |debug) ", first) is not None,
          f"stderr lines carry date and severity ({first!r})")

    # srv6ctl set log-level
    r = ctl("set", "log-level", "debug")
    check(r.returncode == 0 and r.stdout.strip() == "log level: debug (was info)", f"set log-level debug ({r.stdout.strip()}{r.stderr.strip()})")
    r = ctl("set", "log-level", "warn", "json")
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    check(doc == {"schema_version": 2, "level": "warn", "previous": "debug"}, f"set log-level warn json ({r.stdout.strip()})")
    r = ctl("set", "log-level", "loud")
    check(r.returncode == 2, "set log-level with an unknown level is refused by srv6ctl")

    # Reload 1: VRF, SIDs, encap source, log level back from the configured one.
    write_config("vrf = red table 10\n" + BASE + """
[encap]
source = fc00:0:1::1
[sids]
sid = fc00:0:1::d46 End.DT46 vrf red
sid = fc00:0:1::e End
[routes]
route = 2001:db8:b::/64 mode inline segs fc00:0:2::e
route = 2001:db8:c::/64 mode inline.red segs fc00:0:2::e,fc00:0:3::e
""")
    reload_and_wait("reload 1")
    check(wait_log(r"reload: applied .*log\.level warn -> info.*encap\.source \(none\) -> fc00:0:1::1.*vrf 0 lines -> 1 line.*sids\.sid 0 lines -> 2 lines \(2 added or changed, 0 removed\)"),
          "reload 1 applied log level, encap source, VRF and SIDs")
    r = ctl("show", "vrfs", "json")
    check(r.returncode == 0 and '"red"' in r.stdout, "show vrfs: red after reload")
    r = ctl("show", "sids", "json")
    sids = r.stdout
    check('fc00:0:1::d46/128' in sids and 'fc00:0:1::e/128' in sids, "show sids: both config SIDs after reload")
    r = ctl("show", "encap-source", "json")
    check("fc00:0:1::1" in r.stdout, "show encap-source: the configured source after reload")
    check(wait_log(r"reload: applied .*sids\.sid 0 lines -> 2 lines \(2 added or changed, 0 removed\); routes\.route 0 lines -> 2 lines \(2 added or changed, 0 removed\)"),
          "reload 1 applied the [routes] lines")
    r = ctl("show", "routes", "json")
    routes = json.loads(r.stdout).get("254", []) if r.returncode == 0 else []
    mine = {x.get("prefix"): x for x in routes if x.get("protocolName") == "config"}
    check("2001:db8:b::/64" in mine and "2001:db8:c::/64" in mine, f"show routes: both [routes] lines as config routes ({sorted(mine)})")

    # Reload 2: one SID gone, eal.args changed (a restart: reported, kept), no encap source.
    write_config("vrf = red table 10\n" + BASE + """
[eal]
args = -l 0 --no-huge -m 128 --no-shconf
[rib]
max-routes = 40
[sids]
sid = fc00:0:1::d46 End.DT46 vrf red
[routes]
route = 2001:db8:b::/64 mode inline segs fc00:0:2::f
""")
    reload_and_wait("reload 2")
    check(wait_log(r"reload: eal\.args changed \(.*\): this takes a restart, the running value stays \(DPDK's EAL"), "reload 2: eal.args reported as restart-only, with its reason")
    check(wait_log(r"reload: applied .*rib\.max-routes 4000000 -> 40.*; needs a restart: eal\.args"), "reload 2: rib.max-routes applied live (issue 36), eal.args named")
    r = ctl("show", "fpm", "json")
    check('"maxRoutes": "40"' in r.stdout or '"maxRoutes":"40"' in r.stdout or '"maxRoutes": 40' in r.stdout, "show fpm: the new route limit in force")
    check(wait_log(r"reload: applied .*encap\.source fc00:0:1::1 -> \(none\).*sids\.sid 2 lines -> 1 line \(0 added or changed, 1 removed\)"), "reload 2: SID removed, encap source cleared")
    r = ctl("show", "sids", "json")
    check('fc00:0:1::d46/128' in r.stdout and 'fc00:0:1::e/128' not in r.stdout, "show sids: the removed SID is gone")
    check(wait_log(r"reload: applied .*routes\.route 2 lines -> 1 line \(1 added or changed, 1 removed\)"), "reload 2: one route changed, one removed")
    r = ctl("show", "routes", "json")
    routes = json.loads(r.stdout).get("254", []) if r.returncode == 0 else []
    mine = {x.get("prefix"): json.dumps(x) for x in routes
            if x.get("protocolName") == "config" and "seg6" in x.get("nexthops", [{}])[0]}  # not the [sids] one
    check(list(mine) == ["2001:db8:b::/64"] and "fc00:0:2::f" in mine["2001:db8:b::/64"],
          f"show routes: the changed route with its new SID, the removed one gone ({mine})")

    # Reload 3: a file with an error changes nothing; the daemon stays.
    write_config(BASE + "[fpm]\nbogus = 1\n")
    reload_and_wait("reload 3 (bad file)")
    check(wait_log(r"error reload: .*unknown setting 'fpm\.bogus'.*: nothing changed"), "reload 3: the error is logged, nothing changed")
    r = ctl("show", "vrfs", "json")
    check(r.returncode == 0 and '"red"' in r.stdout, "after a bad reload the VRF is still there")

    # SIGTERM: STOPPING=1, exit 0, socket removed.
    proc.send_signal(signal.SIGTERM)
    msg = next_state("STOPPING=1")
    check(msg is not None and not msg.startswith("unexpected"), f"STOPPING=1 on SIGTERM ({msg!r})")
    rc = proc.wait(timeout=30)
    check(rc == 0, f"exit 0 after SIGTERM ({rc})")
    check(not os.path.exists(sock_path), "the management socket is removed")
except Exception as e:  # noqa: BLE001
    check(False, f"exception: {e!r}")
finally:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    logf.close()
    if failures:
        print("---- srv6d log\n" + log_text())
    notify.close()

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
