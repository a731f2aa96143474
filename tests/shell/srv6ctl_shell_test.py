#!/usr/bin/env python3
"""srv6ctl's shell in a real terminal: tmux runs `srv6ctl` (no command, stdin a tty) against a
control-plane-only srv6d with two VRFs and config SIDs; keys go in with send-keys, the screen
comes back with capture-pane. Checks `?` (candidates with help, the line kept), TAB (a keyword,
VRF names from srv6d, a unique completion), history (Up recalls, ~/.srv6ctl_history written),
"did you mean", exit. Then the one-shot habits around it: exit codes 0/1/2, --version, `?`,
an empty VRF's JSON, show version / running-config / locator, stdin's lines without a tty,
and the bash completion script (srv6ctl --complete) with srv6d's VRF names.

usage: srv6ctl_shell_test.py SRV6D SRV6CTL SOURCE_DIR"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SRV6D, SRV6CTL, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
        if detail:
            print("     " + detail.replace("\n", "\n     "), flush=True)


if shutil.which("tmux") is None:
    print("tmux is not installed (scripts/deps.sh installs it)")
    sys.exit(1)

work = tempfile.mkdtemp(prefix="srv6ctl-shell-")
sock = os.path.join(work, "srv6d.sock")
home = os.path.join(work, "home")
os.mkdir(home)
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
config = os.path.join(work, "srv6d.conf")
with open(config, "w") as f:
    f.write(f"""vrf = red table 10
vrf = blue table 20

[fpm]
listen = 127.0.0.1
port = {port}
[mgmt]
socket = {sock}
[log]
level = info
target = stderr
[dataplane]
enabled = false
[sids]
sid = fc00:0:1::/48 End flavors next-csid
sid = fc00:0:1:e000:: End.DT4 vrf red
""")
log = open(os.path.join(work, "srv6d.log"), "w")
daemon = subprocess.Popen([SRV6D, "-c", config], stdout=log, stderr=subprocess.STDOUT)
tmux_server = f"srv6ctl-test-{os.getpid()}"


def ctl(*words, stdin=None):
    return subprocess.run([SRV6CTL, "--socket", sock] + list(words), capture_output=True, text=True,
                          input=stdin, env=dict(os.environ, HOME=home))


def tmux(*args):
    return subprocess.run(["tmux", "-L", tmux_server] + list(args), capture_output=True, text=True)


def screen():
    return tmux("capture-pane", "-p", "-t", "sh").stdout


def wait_screen(text, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = screen()
        if text in out:
            return out
        time.sleep(0.1)
    return screen()


def wait_last_line(text, timeout=10.0):
    """The screen once its last non-blank line is `text` (the prompt redrawn with the line)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = screen()
        if out.rstrip().endswith(text):
            return out
        time.sleep(0.1)
    return screen()


def keys(*k):
    tmux("send-keys", "-t", "sh", *k)


def clear_line():
    keys("C-u")
    tmux("send-keys", "-t", "sh", "C-l")
    time.sleep(0.3)


try:
    deadline = time.time() + 20
    while time.time() < deadline and ctl("show", "version").returncode != 0:
        time.sleep(0.2)
    r = ctl("show", "version")
    check(r.returncode == 0 and "srv6d " in r.stdout, "srv6d answers show version", r.stdout + r.stderr)

    # --- the shell, in tmux
    tmux("new-session", "-d", "-s", "sh", "-x", "160", "-y", "50",
         f"env HOME={home} TERM=xterm {SRV6CTL} --socket {sock}")
    # capture-pane drops trailing blanks: a completion's space shows in what is typed after it.
    out = wait_screen("srv6ctl>")
    check("srv6ctl>" in out, "the shell opens a prompt without a command", out)

    keys("-l", "show ?")
    out = wait_last_line("srv6ctl> show")
    check("the FPM session with zebra" in out and "route " in out and "version" in out,
          "`show ?` lists the candidates with their help", out)
    check(out.rstrip().endswith("srv6ctl> show"), "`?` keeps the line as typed", out)
    clear_line()

    keys("-l", "sh")
    keys("Tab")
    keys("-l", "routes vrf ")
    out = wait_screen("srv6ctl> show routes vrf")
    check("srv6ctl> show routes vrf" in out, "TAB completes `sh` to `show `", out)
    keys("Tab")
    out = wait_screen("blue")
    check("blue" in out and "red" in out, "TAB after `show routes vrf` lists srv6d's VRFs", out)
    keys("-l", "r")
    keys("Tab")
    keys("-l", "json")
    out = wait_screen("vrf red json")
    check("show routes vrf red json" in out, "TAB completes a VRF name", out)
    keys("Enter")
    out = wait_screen('"10": []')
    check('"10": []' in out, "the command runs in the shell", out)
    clear_line()

    keys("-l", "shwo fpm")
    keys("Enter")
    out = wait_screen("did you mean")
    check("% unknown command 'shwo' (did you mean 'show'?)" in out, "a typo gets did-you-mean", out)
    clear_line()

    keys("Up")
    keys("Up")
    out = wait_last_line("srv6ctl> show routes vrf red json")
    check(out.rstrip().endswith("srv6ctl> show routes vrf red json"), "Up recalls the history", out)
    clear_line()

    keys("-l", "show sids fc00:0:1:e")
    keys("Tab")
    keys("-l", "json")
    out = wait_screen("fc00:0:1:e000:: json")
    check("show sids fc00:0:1:e000:: json" in out, "TAB completes a SID from srv6d", out)
    clear_line()

    # Ctrl-C drops the line, the shell stays.
    keys("-l", "show rou")
    keys("C-c")
    keys("-l", "show vrfs")
    keys("Enter")
    out = wait_screen("Kernel VRF devices")
    check("srv6ctl> show rou\n" in out and "Kernel VRF devices" in out, "Ctrl-C drops the line, the shell stays", out)
    clear_line()

    # capture ... file: the file system's names.
    open(os.path.join(work, "capture-here.pcap"), "w").close()
    keys("-l", f"capture port ce file {work}/capt")
    keys("Tab")
    keys("-l", "count 1")
    out = wait_screen("capture-here.pcap count 1")
    check("capture-here.pcap count 1" in out, "TAB after `file` completes a file name", out)
    clear_line()

    keys("-l", "exit")
    keys("Enter")
    deadline = time.time() + 5
    while time.time() < deadline and tmux("has-session", "-t", "sh").returncode == 0:
        time.sleep(0.1)
    check(tmux("has-session", "-t", "sh").returncode != 0, "exit leaves the shell")
    # libedit's history file encodes blanks (strvis): \040.
    hist = open(os.path.join(home, ".srv6ctl_history")).read().replace("\\040", " ") if os.path.exists(os.path.join(home, ".srv6ctl_history")) else ""
    check("show routes vrf red json" in hist, "the history is kept in ~/.srv6ctl_history", hist)

    # --- one-shot habits
    r = ctl("--version")
    check(r.returncode == 0 and r.stdout.startswith("srv6ctl "), "srv6ctl --version", r.stdout)
    r = ctl("show", "?")
    check(r.returncode == 0 and "running-config" in r.stdout, "srv6ctl show ? lists, exit 0", r.stdout + r.stderr)
    r = ctl("help")
    check(r.returncode == 0 and "show ip route" in r.stdout, "srv6ctl help: the usage, exit 0")
    r = ctl("set", "log-level", "verbose")
    check(r.returncode == 2 and "log level 'verbose' is not one of error, warn, info, debug" in r.stderr,
          "set log-level verbose: the levels, exit 2", r.stderr)
    r = ctl("show", "route", "10.0.1.0/24")
    check(r.returncode == 2 and "is a prefix" in r.stderr, "show route PREFIX: usage, exit 2", r.stderr)
    r = ctl("show", "ip", "route", "10.0.1.0/24")
    check(r.returncode == 1 and "Network not in table" in r.stderr, "show ip route PREFIX not there: exit 1", r.stderr)
    r = ctl("show", "route", "10.0.1.1")
    check(r.returncode in (0, 1), f"show route ADDR answers (exit {r.returncode})", r.stderr)
    r = ctl("show", "ipv6", "route", "fc00:0:1:e000::")
    check(r.returncode == 0 and "fc00:0:1::/48" not in r.stdout and "fc00:0:1:e000::/128" in r.stdout,
          "show ipv6 route ADDR: the longest prefix covering it", r.stdout + r.stderr)
    r = ctl("show", "routes", "vrf", "red", "json")
    doc = json.loads(r.stdout) if r.returncode == 0 else {}
    check(doc.get("10") == [] and doc.get("schema_version") == 2, "an empty VRF's JSON has its table with []", r.stdout)
    r = ctl("show", "running-config")
    check(r.returncode == 0 and "vrf = red table 10" in r.stdout and "sid = fc00:0:1:e000::/128 End.DT4 vrf red" in r.stdout
          and f"port = {port}" in r.stdout, "show running-config: the configuration in force", r.stdout)
    # What it prints is a configuration srv6d accepts.
    rc_file = os.path.join(work, "running.conf")
    with open(rc_file, "w") as f:
        f.write(r.stdout)
    r2 = subprocess.run([SRV6D, "--check-config", rc_file], capture_output=True, text=True)
    check(r2.returncode == 0, "show running-config's text passes --check-config", r2.stdout + r2.stderr)
    ctl("set", "log-level", "debug")
    r = ctl("show", "running-config")
    check("level = debug" in r.stdout, "running-config has the log level in force")
    r = ctl("show", "segment-routing", "srv6", "locator")
    check(r.returncode == 0 and "fc00:0:1::/48" in r.stdout, "show segment-routing srv6 locator", r.stdout + r.stderr)
    r = ctl("show", "version", "json")
    v = json.loads(r.stdout) if r.returncode == 0 else {}
    check(v.get("version") and "DPDK" in v.get("dpdk", "") and v.get("dataplane") is False,
          "show version json: version, DPDK, dataplane", r.stdout)

    # --- without a terminal: stdin's lines
    r = ctl(stdin="show version\n# a comment\n\nshow vrfs\n")
    check(r.returncode == 0 and "srv6d " in r.stdout and "red" in r.stdout, "stdin's lines run without a tty", r.stderr)
    r = ctl(stdin="show vrfs\nshwo fpm\n")
    check(r.returncode == 2 and "line 2:" in r.stderr, "a bad line names itself, exit 2", r.stderr)

    # --- bash completion: the installed script asks srv6ctl --complete
    bash_completion = "/usr/share/bash-completion/bash_completion"
    if os.path.exists(bash_completion):
        script = f"""
source {bash_completion}
source {SRC}/dist/bash-completion/srv6ctl
COMP_WORDS=({SRV6CTL} --socket {sock} show routes vrf "")
COMP_CWORD=6
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
_srv6ctl {SRV6CTL}
echo "${{COMPREPLY[*]}}"
COMP_WORDS=({SRV6CTL} sh)
COMP_CWORD=1
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
_srv6ctl {SRV6CTL}
echo "${{COMPREPLY[*]}}"
"""
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        lines = r.stdout.splitlines()
        check(len(lines) == 2 and lines[0] == "blue default red", "bash: show routes vrf <TAB> offers srv6d's VRFs", r.stdout + r.stderr)
        check(len(lines) == 2 and lines[1] == "show", "bash: sh<TAB> is show", r.stdout + r.stderr)
finally:
    tmux("kill-server")
    daemon.send_signal(signal.SIGTERM)
    try:
        daemon.wait(timeout=10)
    except subprocess.TimeoutExpired:
        daemon.kill()
    log.close()
    if failures:
        print(open(os.path.join(work, "srv6d.log")).read()[-3000:])
    shutil.rmtree(work, ignore_errors=True)

print(f"{len(failures)} failure(s)" if failures else "all passed")
sys.exit(1 if failures else 0)
