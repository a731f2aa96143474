# shellcheck shell=bash
# Helpers for the live tests and scripts/demo.sh: network namespaces, FRR 8.4.4 daemons
# (Debian's package, run as user frr with -N pathspaces), srv6d/srv6ctl, bounded waits.
#
# Everything a run creates carries its prefix (default "s6t-<pid>"): the namespaces
# <prefix>-dut / <prefix>-peer, the FRR pathspaces /var/run/frr/<prefix>-*, and the work
# directory /tmp/<prefix>.XXXXXX. live_cleanup (an EXIT trap) kills what was started, by PID
# only, and removes all of it, also when the caller fails half-way.
#
# Inputs (environment):
#   SRV6D, SRV6CTL    binaries (default: the caller's first argument's apps/, else
#                     <repo>/build/apps/srv6d, <repo>/build/apps/srv6ctl)
#   FRR_BIN           FRR daemons (default /usr/lib/frr)
#   LIVE_LOGDIR       if set, daemon logs are copied there before the cleanup
#   LIVE_KEEP=1       leave everything in place (for debugging; clean up by hand)
set -u

# A test's first argument is its build tree (ctest passes it); SRV6D / SRV6CTL set in the
# environment win over it. (A sourced file sees its caller's arguments.)
if [ $# -ge 1 ] && [ -d "$1/apps" ]; then
	: "${SRV6D:=$1/apps/srv6d}" "${SRV6CTL:=$1/apps/srv6ctl}"
	export SRV6D SRV6CTL
fi
LIVE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIVE_REPO="$(cd "$LIVE_HOME/../.." && pwd)"
FRR_BIN="${FRR_BIN:-/usr/lib/frr}"
SRV6D="${SRV6D:-$LIVE_REPO/build/apps/srv6d}"
SRV6CTL="${SRV6CTL:-$LIVE_REPO/build/apps/srv6ctl}"
LIVE_PY=/usr/bin/python3
LIVE_T0=${EPOCHREALTIME/./}

LIVE_NS=()
LIVE_PIDS=()

live_log() {
	local us=$((${EPOCHREALTIME/./} - LIVE_T0))
	printf '[%3d.%02ds] %s\n' $((us / 1000000)) $((us % 1000000 / 10000)) "$*" >&2
}
live_die() { live_log "FATAL: $*"; exit 1; }

# live_require: root, FRR, iproute2 and our binaries. Missing pieces are a failure, not a
# skip: CI runs as root with FRR installed, so a skip there would hide a broken setup.
live_require() {
	[ "$(id -u)" -eq 0 ] || live_die "must run as root (network namespaces, FRR daemons)"
	local b
	for b in "$FRR_BIN/zebra" "$FRR_BIN/staticd" "$FRR_BIN/bgpd" /usr/bin/vtysh; do
		[ -x "$b" ] || live_die "FRR 8.4.4 missing: $b (apt-get install frr)"
	done
	# the configs and expectations are FRR 8.4's (FRR 10 needs mgmtd, sr0, ...: frr-conf/README.md)
	local v
	v="$("$FRR_BIN/zebra" --version 2>/dev/null | head -1)"
	[[ "$v" == "zebra version 8."* ]] || live_die "FRR 8.x expected, found '$v'"
	for b in ip ss ps jq "$LIVE_PY"; do command -v "$b" >/dev/null || live_die "missing tool: $b"; done
	id frr >/dev/null 2>&1 || live_die "user frr missing (Debian's frr package creates it)"
	[ -x "$SRV6D" ] || live_die "srv6d not found at '$SRV6D' (build first or set SRV6D)"
	[ -x "$SRV6CTL" ] || live_die "srv6ctl not found at '$SRV6CTL' (build first or set SRV6CTL)"
}

# live_kernel_has_srv6: this kernel installs SRv6 routes (seg6 and seg6local lwtunnels,
# CONFIG_IPV6_SEG6_LWTUNNEL). `ip sr tunsrc` alone says nothing: it is in the core seg6 code.
live_kernel_has_srv6() {
	local ns="s6probe-$$" ok=1
	ip netns add "$ns" 2>/dev/null || return 1
	ip -n "$ns" link set lo up
	ip -n "$ns" -6 route add fc00::e/128 encap seg6local action End dev lo 2>/dev/null &&
		ip -n "$ns" -6 route add fc00::/64 encap seg6 mode encap segs fc00::e dev lo 2>/dev/null && ok=0
	ip netns del "$ns"
	return $ok
}

# live_need_kernel_srv6 SCRIPT [ARGS...]: the test needs the Linux kernel as an SRv6 peer. On a
# kernel without SRv6 lwtunnels (some CI machines run such a kernel) the test runs itself,
# unchanged, in the VM of tests/vm: Debian's 6.1 kernel under qemu, this host's root and build
# in place (tests/vm/README.md). Waits that TCG stretches are raised there (LIVE_TCG=1).
# LIVE_NO_VM=1 makes a missing kernel feature a failure instead.
live_need_kernel_srv6() {
	live_kernel_has_srv6 && return 0
	[ -z "${LIVE_IN_VM:-}" ] || live_die "the VM's kernel has no SRv6 lwtunnels either"
	[ -z "${LIVE_NO_VM:-}" ] || live_die "this kernel has no SRv6 lwtunnels (CONFIG_IPV6_SEG6_LWTUNNEL) and LIVE_NO_VM is set"
	live_run_in_vm "this kernel has no SRv6 lwtunnels (CONFIG_IPV6_SEG6_LWTUNNEL)" "$@"
}

# live_run_in_vm WHY SCRIPT [ARGS...]: runs the test SCRIPT, unchanged, in the VM of tests/vm
# and exits with its status.
live_run_in_vm() {
	local why="$1" script
	shift
	script="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; shift
	local rel="${script#"$LIVE_REPO"/}"
	local run="${LIVE_VM_RUN:-${VM_CACHE:-/var/tmp/srv6d-vm}/runs/$(basename "$script" .sh)-$$}"
	live_log "$why: running $rel in the VM (tests/vm), output in $run"
	local envs=(-e VM_REPO="$LIVE_REPO" -e LIVE_IN_VM=1 -e LIVE_TCG=1 -e LIVE_CAP_WAIT=30 -e LIVE_CAP_SETTLE=2
		-e SRV6D="$SRV6D" -e SRV6CTL="$SRV6CTL")
	[ -z "${LIVE_LOGDIR:-}" ] || envs+=(-e LIVE_LOGDIR=/vm/out/logs)
	[ -z "${DEMO_BUILD_DIR:-}" ] || envs+=(-e DEMO_BUILD_DIR="$DEMO_BUILD_DIR")
	[ -z "${FAULTS:-}" ] || envs+=(-e FAULTS="$FAULTS") # tests/live/e2e_faults_test.sh
	bash "$LIVE_REPO/tests/vm/vm-run.sh" -t "${LIVE_VM_TIMEOUT:-1500}" -c "${VM_CPUS:-2}" -o "$run" "${envs[@]}" \
		"$LIVE_HOME/in_vm.sh" "$rel" "$@"
	local rc=$?
	if [ -n "${LIVE_LOGDIR:-}" ] && [ -d "$run/out/logs" ]; then
		rm -rf "$LIVE_LOGDIR"; mkdir -p "$LIVE_LOGDIR"; cp -a "$run/out/logs/." "$LIVE_LOGDIR/" 2>/dev/null
	fi
	exit $rc
}

# live_init [PREFIX]: work directory + cleanup trap.
live_init() {
	live_reap_stale
	LIVE_PREFIX="${1:-s6t-$$}"
	LIVE_WORK="$(mktemp -d "/tmp/$LIVE_PREFIX.XXXXXX")"
	# the daemons drop privileges to frr and write their logs here
	chown frr:frr "$LIVE_WORK"
	chmod 755 "$LIVE_WORK"
	if [ -n "${LIVE_LOGDIR:-}" ]; then
		rm -rf "$LIVE_LOGDIR"
		mkdir -p "$LIVE_LOGDIR"
	fi
	trap live_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# live_reap_stale: remove what runs killed without a chance to clean up (SIGKILL, ctest
# timeout) left behind. Default prefixes are s6t-<pid>/s6demo-<pid> of the test's shell, so
# a prefix whose shell is gone is stale; its daemons are found by their pid files.
live_reap_stale() {
	local ns pre pid done=" "
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ "$ns" =~ ^(s6t|s6demo|s6e)-([0-9]+)-(dut|peer|pe1|pe2|ce1r|ce1b|ce2r|ce2b)$ ]] || continue
		pre="${BASH_REMATCH[1]}-${BASH_REMATCH[2]}"
		pid="${BASH_REMATCH[2]}"
		[[ "$done" == *" $pre "* ]] && continue
		done+="$pre "
		if [ "$pid" = "$$" ] || kill -0 "$pid" 2>/dev/null; then continue; fi
		live_log "removing leftovers of an interrupted run: $pre"
		bash "$LIVE_HOME/cleanup.sh" "$pre" >/dev/null
	done
}

live_cleanup() {
	local rc=$? ns p
	set +e
	trap - EXIT
	if [ "${LIVE_KEEP:-0}" = 1 ]; then
		live_log "LIVE_KEEP=1: leaving namespaces ${LIVE_NS[*]} and $LIVE_WORK in place;"
		live_log "remove them with: tests/live/cleanup.sh $LIVE_PREFIX"
		return $rc
	fi
	if [ "$rc" -ne 0 ] && [ -n "${LIVE_LOGDIR:-}" ]; then live_dump "$LIVE_LOGDIR"; fi
	# Every FRR daemon of every namespace first, then our own processes (srv6d among them), by
	# PID. In that order because FRR 8.4's zebra deadlocks in its shutdown when SIGTERM finds its
	# FPM thread reconnecting (fixed in FRR 10.3): srv6d must still be there to keep it connected.
	local frr=() f
	for ns in "${LIVE_NS[@]}"; do
		for f in /var/run/frr/"$ns"/*.pid; do [ -f "$f" ] && frr+=("$(cat "$f")"); done
	done
	live_stop_all 5 "${frr[@]}"
	live_stop_all 5 "${LIVE_PIDS[@]}"
	if [ -n "${LIVE_LOGDIR:-}" ] && [ -d "${LIVE_WORK:-}" ]; then
		cp "$LIVE_WORK"/*.log "$LIVE_WORK"/*.stdout "$LIVE_WORK"/*.conf "$LIVE_LOGDIR"/ 2>/dev/null
	fi
	for ns in "${LIVE_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null
		rm -rf "/var/run/frr/$ns"
	done
	[ -n "${LIVE_WORK:-}" ] && rm -rf "$LIVE_WORK"
	return $rc
}

# live_dump DIR: both sides' view at the time of a failure.
live_dump() {
	local ns
	for ns in "${LIVE_NS[@]}"; do
		[ -S "/var/run/frr/$ns/zebra.vty" ] || continue
		vty "$ns" "show ip route" "show ipv6 route" "show ip route table 100" \
			"show ip route table 1000" "show ipv6 route table 1000" >"$1/$ns-zebra-routes.txt" 2>&1
	done
	if [ -S "${SRV6D_SOCK:-}" ]; then
		local w
		for w in fpm routes sids nexthops counters neighbors; do
			srv6ctl show "$w" >"$1/srv6ctl-show-$w.txt" 2>&1
			srv6ctl show "$w" --json >"$1/srv6ctl-show-$w.json" 2>&1
		done
	fi
}

# live_gone PID: true if the process has exited. An exited child of this shell stays a zombie
# until reaped: that counts as gone. (No `ps`: a fork per poll costs ~0.3 s under the VM's TCG.)
live_gone() {
	local stat
	kill -0 "$1" 2>/dev/null || return 0
	read -r stat </proc/"$1"/stat 2>/dev/null || return 0
	stat="${stat##*) }"
	[ "${stat:0:1}" = Z ]
}

# live_wait_gone PID SECONDS: true once the process has exited (wall-clock bound).
live_wait_gone() {
	local end=$((${EPOCHREALTIME/./} + $2 * 1000000))
	while ! live_gone "$1"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# live_stop_all SECONDS PID...: SIGTERM them all, wait up to SECONDS (wall clock) for all of
# them together, SIGKILL the rest.
live_stop_all() {
	local secs="$1" p left end
	shift
	[ $# -gt 0 ] || return 0
	for p in "$@"; do kill "$p" 2>/dev/null; done
	end=$((${EPOCHREALTIME/./} + secs * 1000000))
	while :; do
		left=()
		for p in "$@"; do live_gone "$p" || left+=("$p"); done
		[ ${#left[@]} -gt 0 ] && [ "${EPOCHREALTIME/./}" -lt "$end" ] || break
		sleep 0.1
	done
	for p in "${left[@]}"; do
		live_log "cleanup: pid $p ($(cat /proc/"$p"/comm 2>/dev/null)) ignored SIGTERM for ${secs}s: SIGKILL"
		kill -9 "$p" 2>/dev/null
	done
}

# wait_until SECONDS DESCRIPTION CMD...: poll CMD every 0.2 s; fail after SECONDS.
wait_until() {
	local secs="$1" what="$2" i
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	live_log "timeout after ${secs}s waiting for: $what"
	return 1
}

# check DESCRIPTION CMD...: run one check, count failures, keep going.
FAILS=0
check() {
	local what="$1"
	shift
	live_log "check: $what"
	if "$@"; then
		live_log "PASS: $what"
	else
		live_log "FAIL: $what"
		FAILS=$((FAILS + 1))
	fi
}

# live_finish: the exit status of a test script: 0 only if every check passed.
live_finish() {
	if [ "$FAILS" -ne 0 ]; then
		live_log "$FAILS check(s) FAILED (logs: ${LIVE_LOGDIR:-set LIVE_LOGDIR to keep them})"
		exit 1
	fi
	live_log "all checks passed"
	exit 0
}

# ---- namespaces and links ------------------------------------------------------------------

ns_add() { # ns_add NAME
	ip netns add "$1" || live_die "cannot create netns $1"
	LIVE_NS+=("$1")
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.default.seg6_enabled=1
}

# veth NS1 IF1 NS2 IF2: a veth pair created inside NS1, so no name is ever global.
veth() {
	ip -n "$1" link add "$2" type veth peer name "$4" netns "$3" || live_die "veth $1/$2"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

# stub_if NS IF: an interface with carrier for LAN addresses. This kernel has no dummy
# link type, so it is a veth whose peer stays in the same namespace.
stub_if() {
	ip -n "$1" link add "$2" type veth peer name "${2}p" || live_die "stub_if $1/$2"
	ip -n "$1" link set "${2}p" up
	ip -n "$1" link set "$2" up
}

addr() { ip -n "$1" addr add "$3" dev "$2" nodad 2>/dev/null || ip -n "$1" addr add "$3" dev "$2"; }

# dut_link DUT DEV PEER_NS PEER_DEV: a veth whose DUT end DEV a DPDK port takes (af_packet or
# af_xdp). Only srv6d's TAP mirrors carry the DUT kernel's addresses, and that kernel must not
# route what it also sees on DEV, nor answer ARP there for the mirrors' addresses (arp_ignore=8:
# its reply would leave beside the mirror's, and the port would see it go and drop it as
# l2_other_station); the peer's kernel computes its TX checksums in software, which a DPDK port
# on a veth needs.
# VETH_QUEUES=N: N rx and N tx queues on either end (a multi-queue port).
dut_link() {
	if [ "${VETH_QUEUES:-1}" -gt 1 ]; then
		local q="numtxqueues $VETH_QUEUES numrxqueues $VETH_QUEUES"
		# shellcheck disable=SC2086 # $q is words
		ip -n "$1" link add "$2" $q type veth peer name "$4" $q netns "$3" || live_die "veth $1/$2"
		ip -n "$1" link set "$2" up
		ip -n "$3" link set "$4" up
	else
		veth "$1" "$2" "$3" "$4"
	fi
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" "net.ipv4.conf.$2.forwarding=0" "net.ipv4.conf.$2.arp_ignore=8"
	ip netns exec "$3" ethtool -K "$4" tx off >/dev/null 2>&1
}

# srv6d_conf_write NS [EAL_ARGS]: $LIVE_WORK/srv6d.conf for a test of srv6d's dataplane in NS:
# FPM on 127.0.0.1 (a free port, set in PORT), the management socket SRV6D_SOCK, the EAL
# arguments (default: lcore 0, 512 MiB of 4 KiB pages), the dataplane on, napping when idle
# (a busy-polling worker would hold a CPU the test's own processes need). The test's own lines
# follow from stdin: the [dataplane] section's ports and keys first, then other sections.
srv6d_conf_write() {
	local eal="${2:--l 0 --no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:error}"
	PORT="$(free_port "$1")"
	SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
	{
		printf '[fpm]\nlisten = 127.0.0.1\nport = %s\nresync-quiet-ms = 1000\n' "$PORT"
		printf '[mgmt]\nsocket = %s\n[eal]\nargs = %s\n' "$SRV6D_SOCK" "$eal"
		printf '[dataplane]\nenabled = true\nidle-sleep = 200\n'
		cat
	} >"$LIVE_WORK/srv6d.conf"
}

# dut_zebra_start NS: zebra in NS feeding srv6d over FPM (dplane_fpm_nl, 127.0.0.1:$PORT).
dut_zebra_start() {
	printf 'hostname dut\nfpm address 127.0.0.1 port %s\n' "$PORT" >"$LIVE_WORK/$1-zebra.conf"
	frr_start "$1" zebra "$LIVE_WORK/$1-zebra.conf" -M dplane_fpm_nl
}

# srv6d_dataplane_start NS LAST_TAP: srv6d in NS with the dataplane, from $LIVE_WORK/srv6d.conf
# (written by the test, mgmt socket $SRV6D_SOCK); waits for the socket and the TAP mirror
# LAST_TAP (the last port's, so every mirror exists).
srv6d_dataplane_start() {
	local ns="$1" tap="$2"
	ip netns exec "$ns" "$SRV6D" -c "$LIVE_WORK/srv6d.conf" >"$LIVE_WORK/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	echo "$SRV6D_PID" >"$LIVE_WORK/srv6d.pid"
	LIVE_PIDS+=("$SRV6D_PID")
	wait_until 20 "srv6d up with its TAPs" eval "[ -S $SRV6D_SOCK ] && ip -n $ns link show $tap >/dev/null" ||
		{ tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
}

drops() { # drops REASON: srv6d's drop counter for REASON
	srv6ctl show counters --json | jq -r --arg r "$1" '([.drops[]? | select(.reason == $r) | .packets] + ["0"])[0] | tonumber'
}

# ---- FRR -------------------------------------------------------------------------------------

# frr_start NS DAEMON CONF [ARGS...]: start one daemon in NS with pathspace NS.
frr_start() {
	local ns="$1" d="$2" conf="$3"
	shift 3
	local rundir="/var/run/frr/$ns"
	mkdir -p "$rundir"
	chown frr:frr "$rundir"
	chmod 755 "$rundir"
	chmod 644 "$conf"
	ip netns exec "$ns" "$FRR_BIN/$d" -d -N "$ns" -f "$conf" -i "$rundir/$d.pid" \
		--log "file:$LIVE_WORK/$ns-$d.log" "$@" >>"$LIVE_WORK/$ns-$d.stdout" 2>&1 ||
		live_die "$d did not start in $ns (see $LIVE_WORK/$ns-$d.stdout)"
	# -d returns once the daemon is up; its vty socket exists by then
	wait_until 10 "$d vty socket in $ns" test -S "$rundir/$d.vty" || live_die "$d in $ns has no vty"
	# a config line the daemon rejected is only logged: treat it as fatal
	if grep -E 'No such command|Unknown command|Command incomplete|Ambiguous command' \
		"$LIVE_WORK/$ns-$d.log" "$LIVE_WORK/$ns-$d.stdout" >&2; then
		live_die "$d in $ns rejected lines of $conf"
	fi
}

frr_pid() { cat "/var/run/frr/$1/$2.pid" 2>/dev/null; }

# frr_stop NS DAEMON [SIGNAL]: signal the daemon by its pid file, wait until it is gone.
frr_stop() {
	local pid
	pid="$(frr_pid "$1" "$2")"
	[ -n "$pid" ] || return 0
	kill "-${3:-TERM}" "$pid" 2>/dev/null
	live_wait_gone "$pid" 5 || { kill -9 "$pid" 2>/dev/null; live_wait_gone "$pid" 2; }
	rm -f "/var/run/frr/$1/$2.pid"
}

# vty NS CMD...: vtysh show commands (stderr's missing-vtysh.conf notice dropped).
vty() {
	local ns="$1" c args=()
	shift
	for c in "$@"; do args+=(-c "$c"); done
	vtysh -N "$ns" "${args[@]}" 2> >(grep -v 'vtysh.conf' >&2)
}
# vtyc NS LINE...: configuration lines, in 'configure terminal'.
vtyc() {
	local ns="$1"
	shift
	vty "$ns" "configure terminal" "$@"
}

# ---- srv6d -----------------------------------------------------------------------------------

# free_port NS: a TCP port nothing listens on in NS.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ip netns exec "$1" ss -Htln "sport = :$p")" ] && { echo "$p"; return; }
	done
}

# srv6d_start NS PORT [QUIET_MS [TOP_LINES]]: srv6d in NS, FPM on 127.0.0.1:PORT, control plane
# only. TOP_LINES go before the first [section] (`vrf = ...` lines).
# The dataplane stays off ([dataplane] enabled=false): these tests check what srv6d learns
# from zebra, and DPDK's EAL would need hugepages that CI machines may not have.
srv6d_start() {
	local ns="$1" port="$2" quiet="${3:-1500}" top="${4:-}"
	SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
	cat >"$LIVE_WORK/srv6d.conf" <<-EOF
		$top
		[fpm]
		listen = 127.0.0.1
		port = $port
		resync-quiet-ms = $quiet
		resync-max-ms = 30000
		[mgmt]
		socket = $SRV6D_SOCK
		[log]
		level = debug
		[dataplane]
		enabled = false
	EOF
	ip netns exec "$ns" "$SRV6D" -c "$LIVE_WORK/srv6d.conf" >"$LIVE_WORK/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	echo "$SRV6D_PID" >"$LIVE_WORK/srv6d.pid" # for cleanup.sh after LIVE_KEEP=1
	LIVE_PIDS+=("$SRV6D_PID")
	wait_until 10 "srv6d listening on 127.0.0.1:$port in $ns" \
		eval "[ -n \"\$(ip netns exec $ns ss -Htln 'sport = :$port')\" ] && [ -S $SRV6D_SOCK ]" ||
		{ tail -20 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
}

# srv6d_stop: SIGTERM srv6d and wait until it is gone (it removes its socket on the way out).
srv6d_stop() {
	local p keep=()
	kill -TERM "$SRV6D_PID" 2>/dev/null
	live_wait_gone "$SRV6D_PID" 5 || { kill -9 "$SRV6D_PID" 2>/dev/null; live_wait_gone "$SRV6D_PID" 2; }
	wait "$SRV6D_PID" 2>/dev/null
	for p in "${LIVE_PIDS[@]}"; do [ "$p" = "$SRV6D_PID" ] || keep+=("$p"); done
	LIVE_PIDS=("${keep[@]}")
	mv "$LIVE_WORK/srv6d.log" "$LIVE_WORK/srv6d-$SRV6D_PID.log" 2>/dev/null
}

srv6ctl() { "$SRV6CTL" --socket "$SRV6D_SOCK" "$@"; }

# rib_compare ARGS...: the comparison/check tool (see rib_compare.py --help).
rib_compare() { "$LIVE_PY" "$LIVE_HOME/rib_compare.py" --srv6ctl "$SRV6CTL" --socket "$SRV6D_SOCK" "$@"; }

# ---- traffic and captures ----------------------------------------------------------------------

# ping4|ping6 NS DST [COUNT]: ICMP echo from NS (icmp_ping.py; exit 0 if every echo came back)
ping4() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c "${3:-3}" -W 2 "$2"; }
ping6() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -6 -c "${3:-3}" -W 2 "$2"; }

# Captures need --immediate-mode: without it packets wait up to a second in the capture ring
# and a capture stopped right after the traffic holds nothing. LIVE_CAP_WAIT bounds the start
# and the stop, LIVE_CAP_SETTLE is the pause before stopping (the VM test raises both: TCG).
CAPS=()
cap_start() { # cap_start NS IF FILE FILTER...
	local ns="$1" i="$2" f="$3"
	shift 3
	ip netns exec "$ns" tcpdump -i "$i" -nn -U --immediate-mode -s 256 -w "$f" "$@" >"$f.err" 2>&1 &
	CAPS+=($!)
	LIVE_PIDS+=($!)
	wait_until "${LIVE_CAP_WAIT:-5}" "tcpdump on $ns/$i" grep -q "listening on" "$f.err" ||
		live_log "tcpdump $ns/$i did not start"
}
cap_stop() {
	local p
	sleep "${LIVE_CAP_SETTLE:-0.3}"
	for p in "${CAPS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${CAPS[@]}"; do live_wait_gone "$p" "${LIVE_CAP_WAIT:-5}"; wait "$p" 2>/dev/null; done
	CAPS=()
}
cap_read() { tcpdump -r "$1" -nn 2>/dev/null; }

# ---- the topology shared by the live test and the demo ---------------------------------------
#
#   <prefix>-dut                                   <prefix>-peer
#   srv6d <-FPM- zebra -M dplane_fpm_nl            zebra + bgpd AS 65002
#   staticd, bgpd AS 65001, kernel SRv6 routes     lan: 10.50.0.1/24 10.51.0.1/24 2001:db8:50::1/64
#     e0 10.12.0.1/24 fc00:12::1/64  ------------- e0 10.12.0.2/24 fc00:12::2/64
#     e1 10.13.0.1/24 fc00:13::1/64  ------------- e1 10.13.0.2/24 fc00:13::2/64
# Two links, so that BGP (4 sessions: v4 and v6 on each link) gives ECMP groups.
topo_up() {
	DUT="$LIVE_PREFIX-dut"
	PEER="$LIVE_PREFIX-peer"
	ns_add "$DUT"
	ns_add "$PEER"
	veth "$DUT" e0 "$PEER" e0
	veth "$DUT" e1 "$PEER" e1
	addr "$DUT" e0 10.12.0.1/24
	addr "$DUT" e0 fc00:12::1/64
	addr "$DUT" e1 10.13.0.1/24
	addr "$DUT" e1 fc00:13::1/64
	addr "$PEER" e0 10.12.0.2/24
	addr "$PEER" e0 fc00:12::2/64
	addr "$PEER" e1 10.13.0.2/24
	addr "$PEER" e1 fc00:13::2/64
	stub_if "$PEER" lan
	addr "$PEER" lan 10.50.0.1/24
	addr "$PEER" lan 10.51.0.1/24
	addr "$PEER" lan 2001:db8:50::1/64
	topo_confs
}

# topo_staticd_conf initial|restart: the DUT's static routes, frr-conf/staticd.conf: single path,
# ECMP, recursive, blackhole, reject, v4+v6, main table and tables 100 and 1000. "restart" is
# the variant the live test switches to while zebra is down (some routes removed, one added).
topo_staticd_conf() {
	local f="$LIVE_WORK/dut-staticd.conf"
	if [ "${1:-}" = restart ]; then
		grep -v -x -e 'ip route 192.0.2.0/24 10.12.0.2' -e 'ip route 198.51.100.0/24 10.13.0.2' \
			-e 'ip route 203.0.113.128/25 reject' -e 'ipv6 route 2001:db8:dead::/48 blackhole' \
			-e 'ip route 192.0.2.0/24 10.12.0.2 table 100' \
			-e 'ipv6 route 2001:db8:100::/48 fc00:12::2 table 1000' \
			"$LIVE_REPO/frr-conf/staticd.conf" >"$f"
		echo "ip route 192.0.2.0/24 10.13.0.2" >>"$f"
	else
		cp "$LIVE_REPO/frr-conf/staticd.conf" "$f"
	fi
}

# topo_confs: every daemon's config file (frr-conf/ has annotated versions of the DUT's).
topo_confs() {
	echo "hostname peer" >"$LIVE_WORK/peer-zebra.conf"
	topo_staticd_conf initial
	local side as peer_as id n1 n2 n3 n4 nets4 nets6
	for side in dut peer; do
		if [ $side = dut ]; then
			as=65001 peer_as=65002 id=10.255.0.1 n1=10.12.0.2 n2=10.13.0.2 n3=fc00:12::2 n4=fc00:13::2
			nets4="  maximum-paths 4" nets6="  maximum-paths 4"
		else
			as=65002 peer_as=65001 id=10.255.0.2 n1=10.12.0.1 n2=10.13.0.1 n3=fc00:12::1 n4=fc00:13::1
			nets4=$'  network 10.50.0.0/24\n  network 10.51.0.0/24' nets6="  network 2001:db8:50::/64"
		fi
		cat >"$LIVE_WORK/$side-bgpd.conf" <<-EOF
			hostname $side
			router bgp $as
			 bgp router-id $id
			 no bgp ebgp-requires-policy
			 no bgp default ipv4-unicast
			 neighbor $n1 remote-as $peer_as
			 neighbor $n2 remote-as $peer_as
			 neighbor $n3 remote-as $peer_as
			 neighbor $n4 remote-as $peer_as
			 neighbor $n1 timers 3 10
			 neighbor $n2 timers 3 10
			 neighbor $n3 timers 3 10
			 neighbor $n4 timers 3 10
			 neighbor $n1 timers connect 1
			 neighbor $n2 timers connect 1
			 neighbor $n3 timers connect 1
			 neighbor $n4 timers connect 1
			 address-family ipv4 unicast
			  neighbor $n1 activate
			  neighbor $n2 activate
			$nets4
			 exit-address-family
			 address-family ipv6 unicast
			  neighbor $n3 activate
			  neighbor $n4 activate
			$nets6
			 exit-address-family
			!
		EOF
	done
}

# zebra.conf of the DUT: frr-conf/zebra.conf with srv6d's port.
topo_dut_zebra_conf() {
	sed "s/^fpm address 127.0.0.1 port 2620\$/fpm address 127.0.0.1 port $1/" \
		"$LIVE_REPO/frr-conf/zebra.conf" >"$LIVE_WORK/dut-zebra.conf"
	grep -qx "fpm address 127.0.0.1 port $1" "$LIVE_WORK/dut-zebra.conf" ||
		live_die "frr-conf/zebra.conf has no 'fpm address 127.0.0.1 port 2620' line"
}

# bgp_established NS N: at least N sessions Established.
bgp_established() {
	local n
	n=$(vty "$1" "show bgp summary json" | grep -c '"state":"Established"')
	[ "$n" -ge "$2" ]
}

# kernel SRv6 routes: zebra learns them from the kernel (proto kernel) and relays them over
# FPM, so no sharpd is needed (Debian does not ship it). 8.4.4 relays 1-SID seg6 encaps only
# (it truncates longer lists) and the seg6local actions End, End.X, End.T, End.DX4, End.DT6.
kernel_srv6_routes_add() {
	local ns="$1"
	# shellcheck disable=SC2015 # any failing step is fatal
	ip -n "$ns" -6 route add 2001:db8:e1::/48 encap seg6 mode encap segs fc00:0:2::100 via fc00:12::2 dev e0 &&
		ip -n "$ns" route add 10.201.0.0/24 encap seg6 mode encap segs fc00:0:2::101 dev e0 &&
		ip -n "$ns" -6 route add fc00:0:1::1/128 encap seg6local action End dev e0 &&
		ip -n "$ns" -6 route add fc00:0:1::2/128 encap seg6local action End.X nh6 fc00:12::2 dev e0 &&
		ip -n "$ns" -6 route add fc00:0:1::3/128 encap seg6local action End.T table 100 dev e0 &&
		ip -n "$ns" -6 route add fc00:0:1::4/128 encap seg6local action End.DX4 nh4 10.12.0.2 dev e0 &&
		ip -n "$ns" -6 route add fc00:0:1::5/128 encap seg6local action End.DT6 table 100 dev e0 ||
		live_die "kernel SRv6 routes could not be added"
}

# topo_start: srv6d, then the FRR daemons in an order that makes the result deterministic,
# then the kernel SRv6 routes; returns once BGP is up. Sets PORT.
topo_start() {
	PORT=$(free_port "$DUT")
	srv6d_start "$DUT" "$PORT" "${1:-1500}"
	live_log "srv6d pid $SRV6D_PID: FPM 127.0.0.1:$PORT in $DUT, mgmt $SRV6D_SOCK"
	topo_dut_zebra_conf "$PORT"
	frr_start "$PEER" zebra "$LIVE_WORK/peer-zebra.conf"
	frr_start "$PEER" bgpd "$LIVE_WORK/peer-bgpd.conf"
	frr_start "$DUT" zebra "$LIVE_WORK/dut-zebra.conf" -M dplane_fpm_nl
	topo_dut_clients_start 1
	kernel_srv6_routes_add "$DUT"
	wait_until 40 "4 BGP sessions Established" bgp_established "$DUT" 4 ||
		{ vty "$DUT" "show bgp summary"; live_die "BGP did not come up"; }
}

# topo_dut_clients_start N: wait for zebra's Nth FPM connection, then start staticd and bgpd.
# zebra connects ~3 s after it starts, and FRR 8.4.4 does not replay the routes of non-main
# tables (`ip route ... table 100`) on connect: routes made before the connection would never
# reach srv6d. Starting zebra's clients afterwards makes every route go out live.
topo_dut_clients_start() {
	rib_compare fpm --connections "$1" --connected --timeout 15 >/dev/null ||
		live_die "zebra did not connect to srv6d (connection $1)"
	frr_start "$DUT" staticd "$LIVE_WORK/dut-staticd.conf"
	frr_start "$DUT" bgpd "$LIVE_WORK/dut-bgpd.conf"
}
