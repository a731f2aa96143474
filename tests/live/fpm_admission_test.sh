#!/usr/bin/env bash
# Live test of issues 13 and 36: who may feed srv6d over FPM, that zebra is never locked out, and
# that nothing else that talks to the port displaces it or empties the RIB.
#
#   sudo tests/live/fpm_admission_test.sh [BUILD_DIR]     (default build/; or set SRV6D, SRV6CTL)
#
# srv6d listens on 0.0.0.0 in <prefix>-dut: loopback peers are admitted by the owner of their
# socket (default users frr and root), the remote zebra of <prefix>-pe1/pe2 by its address.
#   0. a process of user nobody replays a real capture: refused, counted, nothing installed
#      (admission is decided first, whatever else is connected);
#   A. a silent squatter (root) connects first: a real zebra gets in at its first attempt, the
#      squatter changes nothing and goes at its first-frame timeout;
#   P. 20 probes (root: connect, close) while zebra is in sync: nothing changes;
#   J. a junk frame from a root connection while zebra is in sync: refused, no sweep, every
#      route held (issue 36: the RIB went from 13 routes to 0);
#   B. a peer (root) that sent one NOOP frame and then one byte a second holds the connection:
#      zebra's valid replay replaces it at its first attempt (it is not proven);
#   C. a remote zebra's host vanishes (its namespace destroyed: no FIN, no RST), leaving a
#      half-open connection; the restarted zebra on the same address gets in at once, and its
#      replay and sweep leave exactly its routes.
# Each "gets in" has a stated bound (BOUND_*), measured from zebra's start or `fpm address`;
# each case prints the outage it measured (the time zebra's routes were missing, if any).
# No kernel SRv6 routes are involved: this runs on any kernel. Needs root.
set -u
source "$(dirname "$0")/lib.sh"
live_require
live_init "${LIVE_PREFIX:-s6t-$$}"

CAPTURE="$LIVE_REPO/tests/fixtures/frr8/f-reconnect/fpm-c1.bin"
PEER_PY="$LIVE_HOME/fpm_peer.py"
TAKEOVER_IDLE_MS=4000
# zebra (dplane_fpm_nl) connects about 3 s after it starts or after a refusal: each bound is
# that, plus what the case itself must wait, plus 4 s of slack for a loaded machine.
BOUND_A=7                               # squatter: replaced at zebra's first attempt
BOUND_B=7                               # NOOP peer: replaced at zebra's first attempt
BOUND_C=7                               # half-open: replaced by the same address at once

DUT="$LIVE_PREFIX-dut"
ns_add "$DUT"
stub_if "$DUT" lan
addr "$DUT" lan 10.98.0.1/24

# fpm_field NAME: one field of `srv6ctl show fpm --json`.
fpm_field() { srv6ctl show fpm --json | jq -r --arg f "$1" '.[$f] | if . == null then "" else tostring end'; }
fpm_is() { [ "$(fpm_field "$1")" = "$2" ]; }
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# peer NS USER MODE [INPUT]: a hostile peer in the background (python, as USER), its stdin
# INPUT (default /dev/null); sets PEER_PID. Its output: $LIVE_WORK/peer-MODE.log.
peer() {
	local ns="$1" user="$2" mode="$3" input="${4:-/dev/null}"
	shift 4 2>/dev/null || shift $#
	ip netns exec "$ns" setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups \
		"$LIVE_PY" "$PEER_PY" "$HOST" "$PORT" "$mode" "$@" <"$input" >"$LIVE_WORK/peer-$mode.log" 2>&1 &
	PEER_PID=$!
	LIVE_PIDS+=("$PEER_PID")
}

# zebra_in NS FPM-ADDRESS ROUTE...: zebra + staticd in NS, routes as "PREFIX NEXTHOP".
zebra_in() {
	local ns="$1" fpm="$2" r
	shift 2
	printf 'hostname %s\nfpm address %s port %s\n' "$ns" "$fpm" "$PORT" >"$LIVE_WORK/$ns-zebra.conf"
	: >"$LIVE_WORK/$ns-staticd.conf"
	for r in "$@"; do echo "ip route $r" >>"$LIVE_WORK/$ns-staticd.conf"; done
	frr_start "$ns" zebra "$LIVE_WORK/$ns-zebra.conf" -M dplane_fpm_nl
	frr_start "$ns" staticd "$LIVE_WORK/$ns-staticd.conf"
}

# got_in IDENTITY [OLD_PEER]: zebra's connection (IDENTITY; not the connection OLD_PEER, an
# "address:port") is the active one and has sent a frame.
got_in() { fpm_is peerIdentity "$1" && fpm_is talking true && [ "$(fpm_field peer)" != "${2:-}" ]; }

# within BOUND T0 DESCRIPTION CMD...: CMD holds within BOUND seconds of T0 (ms); logs the time.
within() {
	local bound="$1" t0="$2" what="$3" took
	shift 3
	wait_until $((bound + 1)) "$what" "$@" || return 1
	took=$(($(now_ms) - t0))
	live_log "$what after ${took} ms (bound ${bound} s)"
	[ "$took" -le $((bound * 1000)) ]
}

# ---- srv6d ----------------------------------------------------------------------------------------
PORT=$(free_port "$DUT")
HOST=127.0.0.1
SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
cat >"$LIVE_WORK/srv6d.conf" <<-CONF
	[fpm]
	listen = 0.0.0.0
	port = $PORT
	resync-quiet-ms = 1500
	resync-max-ms = 30000
	allow-address = 10.99.0.2
	takeover-idle-ms = $TAKEOVER_IDLE_MS
	first-frame-timeout-ms = 3000
	[mgmt]
	socket = $SRV6D_SOCK
	[log]
	level = debug
	[dataplane]
	enabled = false
CONF
ip netns exec "$DUT" "$SRV6D" -c "$LIVE_WORK/srv6d.conf" >"$LIVE_WORK/srv6d.log" 2>&1 &
SRV6D_PID=$!
echo "$SRV6D_PID" >"$LIVE_WORK/srv6d.pid"
LIVE_PIDS+=("$SRV6D_PID")
wait_until 10 "srv6d listening on port $PORT" \
	eval "[ -n \"\$(ip netns exec $DUT ss -Htln 'sport = :$PORT')\" ] && [ -S $SRV6D_SOCK ]" ||
	{ tail -20 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
check "srv6d admits frr and root by default" grep -q "admitted: local processes of uid [0-9]* (frr), uid 0 (root); remote peers 10.99.0.2/32" "$LIVE_WORK/srv6d.log"

# ---- 0. nobody replays a capture ------------------------------------------------------------------
live_log "0. a process of user nobody replays a capture"
peer "$DUT" nobody replay "$CAPTURE"
wait "$PEER_PID"
check "0. nobody's connection closed by srv6d" grep -qx closed "$LIVE_WORK/peer-replay.log"
check "0. counted as not admitted, with its uid" eval 'fpm_is deniedUser 1 && fpm_field lastDenied | grep -q "uid 65534 (nobody) is not in fpm.allow-user"'
check "0. logged with its uid" wait_until 5 "log line" grep -q "refused FPM connection from 127.0.0.1:[0-9]*: uid 65534 (nobody)" "$LIVE_WORK/srv6d.log"
check "0. nothing read, nothing installed" eval '[ "$(srv6ctl show fpm --json | jq -r ".ingest.frames, .ingest.bytesReceived, .rib.routes" | sort -u)" = 0 ]'

# ---- A. a silent squatter -------------------------------------------------------------------------
live_log "A. a silent squatter (root), then zebra"
peer "$DUT" root silent
SQUATTER=$PEER_PID
check "A. the squatter is admitted (root), pending: not zebra's connection" wait_until 5 "squatter pending" eval 'fpm_is pending 1 && fpm_is connected false'
T0=$(now_ms)
zebra_in "$DUT" 127.0.0.1 "192.0.2.0/24 10.98.0.2" "198.51.100.0/24 10.98.0.2"
FRR_ID="uid $(id -u frr) (frr)"
check "A. zebra gets in within ${BOUND_A} s" within "$BOUND_A" "$T0" "A. zebra in" got_in "$FRR_ID"
check "A. the squatter was closed at its first-frame timeout" eval 'wait_until 6 "squatter closed" grep -qx closed "$LIVE_WORK/peer-silent.log" && fpm_is firstFrameTimeouts 1'
check "A. no takeover: the squatter never was zebra's connection" fpm_is takeovers 0
check "A. zebra == srv6d" rib_compare routes --ns "$DUT" --tables 254 --expect 254:192.0.2.0/24:1 --timeout 15
check "A. its replay swept" wait_until 10 "swept" fpm_is state in-sync
wait "$SQUATTER" 2>/dev/null

# outage_watch: samples the RIB's route count every 50 ms in the background until outage_done;
# outage_done prints the fewest routes seen and how long the count was below FULL.
outage_watch() {
	FULL=$(fpm_field rib | jq -r .routes)
	(
		below=0 min=$FULL
		while [ ! -e "$LIVE_WORK/outage.stop" ]; do
			n=$(srv6ctl show fpm --json | jq -r .rib.routes)
			[ "$n" -lt "$min" ] && min=$n
			[ "$n" -lt "$FULL" ] && below=$((below + 50))
			sleep 0.05
		done
		echo "$min $below" >"$LIVE_WORK/outage.result"
	) &
	OUTAGE_PID=$!
}
outage_done() {
	touch "$LIVE_WORK/outage.stop"
	wait "$OUTAGE_PID"
	rm -f "$LIVE_WORK/outage.stop"
	read -r OUT_MIN OUT_MS <"$LIVE_WORK/outage.result"
	live_log "$1: outage ~${OUT_MS} ms, fewest routes ${OUT_MIN} of ${FULL}"
}

# ---- P. probes ------------------------------------------------------------------------------------
live_log "P. 20 probes (root) while zebra is in sync"
ZEBRA_PEER=$(fpm_field peer)
SWEEPS=$(fpm_field sweeps)
outage_watch
peer "$DUT" root probe /dev/null 20
wait "$PEER_PID"
sleep 2
outage_done "P. probes"
check "P. zebra's connection untouched" eval '[ "$(fpm_field peer)" = "$ZEBRA_PEER" ] && fpm_is takeovers 0 && fpm_is disconnects 0'
check "P. nothing swept, nothing lost" eval '[ "$(fpm_field sweeps)" = "$SWEEPS" ] && [ "$OUT_MIN" = "$FULL" ]'

# ---- J. a junk frame --------------------------------------------------------------------------------
live_log "J. one junk frame from a root connection while zebra is in sync"
outage_watch
peer "$DUT" root junk
wait "$PEER_PID"
sleep 3  # past resync-quiet-ms: a sweep, if one were started, would have run
outage_done "J. junk frame"
check "J. the junk peer was closed" grep -qx closed "$LIVE_WORK/peer-junk.log"
check "J. zebra's connection untouched, the junk refused" eval '[ "$(fpm_field peer)" = "$ZEBRA_PEER" ] && fpm_is refused 1 && fpm_is takeovers 0'
check "J. logged at warning with its fault" grep -q "refusing FPM connection from 127.0.0.1:[0-9]* (uid 0 (root)): its first frame is no valid replay" "$LIVE_WORK/srv6d.log"
check "J. nothing swept, nothing lost" eval '[ "$(fpm_field sweeps)" = "$SWEEPS" ] && [ "$OUT_MIN" = "$FULL" ]'

# ---- B. one valid frame, then a byte a second -----------------------------------------------------
live_log "B. no fpm address; a peer (root) sends one NOOP frame, then a byte a second; fpm address"
vtyc "$DUT" "no fpm address"
check "B. zebra disconnected" wait_until 10 "zebra gone" fpm_is connected false
peer "$DUT" root dribble
DRIBBLER=$PEER_PID
check "B. the dribbler talks" wait_until 5 "dribbler talking" eval 'fpm_is peerIdentity "uid 0 (root)" && fpm_is talking true'
REFUSED_BEFORE=$(fpm_field refused)
T0=$(now_ms)
vtyc "$DUT" "fpm address 127.0.0.1 port $PORT"
check "B. zebra gets in within ${BOUND_B} s" within "$BOUND_B" "$T0" "B. zebra in" got_in "$FRR_ID"
check "B. at its first attempt: nothing refused" eval '[ "$(fpm_field refused)" = "${REFUSED_BEFORE:-0}" ]'
check "B. the dribbler was closed" eval 'wait_until 5 "dribbler closed" grep -qx closed "$LIVE_WORK/peer-dribble.log"'
check "B. logged: the dribbler's stream is not a valid replay" wait_until 5 "log line" grep -q "replaces the one from .* (uid 0 (root)): its first frame is a valid replay .*, the active connection's stream is not" "$LIVE_WORK/srv6d.log"
check "B. one takeover" fpm_is takeovers 1
check "B. zebra == srv6d" rib_compare routes --ns "$DUT" --tables 254 --expect 254:198.51.100.0/24:1 --timeout 15
wait "$DRIBBLER" 2>/dev/null

# ---- C. a half-open connection of a remote zebra --------------------------------------------------
live_log "C. a remote zebra (10.99.0.2), whose host then vanishes"
vtyc "$DUT" "no fpm address"
check "C. local zebra disconnected" wait_until 10 "zebra gone" fpm_is connected false
remote_up() { # remote_up NS: NS joined to the DUT, 10.99.0.2 there
	ns_add "$1"
	veth "$1" r0 "$DUT" r0
	addr "$1" r0 10.99.0.2/24
	addr "$DUT" r0 10.99.0.1/24
	stub_if "$1" lan
	addr "$1" lan 10.97.0.1/24
}
PE1="$LIVE_PREFIX-pe1"
PE2="$LIVE_PREFIX-pe2"
remote_up "$PE1"
zebra_in "$PE1" 10.99.0.1 "203.0.113.0/24 10.97.0.2" "192.0.2.0/24 10.97.0.2"
check "C. the remote zebra is admitted by its address" wait_until 15 "remote zebra in" got_in "remote 10.99.0.2"
check "C. remote zebra == srv6d" rib_compare routes --ns "$PE1" --tables 254 --expect 254:203.0.113.0/24:1 --timeout 15
check "C. its replay swept" wait_until 10 "swept" fpm_is resyncPending false
# The host vanishes: its link first (nothing it sends can reach srv6d any more), then its
# processes and its network namespace (its sockets die without a word).
ip -n "$DUT" link del r0
frr_stop "$PE1" staticd KILL
frr_stop "$PE1" zebra KILL
ip netns del "$PE1"
check "C. srv6d still holds the half-open connection" eval 'fpm_is connected true && fpm_is peerIdentity "remote 10.99.0.2"'
HALF_OPEN="$(fpm_field peer)"
remote_up "$PE2"
T0=$(now_ms)
zebra_in "$PE2" 10.99.0.1 "203.0.113.0/24 10.97.0.2" "10.50.0.0/24 10.97.0.2"
check "C. the restarted zebra gets in within ${BOUND_C} s" within "$BOUND_C" "$T0" "C. zebra in" got_in "remote 10.99.0.2" "$HALF_OPEN"
check "C. two takeovers" fpm_is takeovers 2
check "C. logged: same address" wait_until 5 "log line" grep -q "replaces the one from 10.99.0.2:[0-9]* (remote 10.99.0.2): its first frame is a valid replay .*, same address" "$LIVE_WORK/srv6d.log"
check "C. after its replay and sweep: zebra == srv6d" \
	rib_compare routes --ns "$PE2" --tables 254 --expect 254:10.50.0.0/24:1 --expect-absent 254:192.0.2.0/24 --timeout 20
check "C. the sweep ran" rib_compare fpm --connected --sweep-scope "all but kernel routes of unreplayed tables" --sweeps "$(fpm_field sweeps)"

srv6ctl show fpm >&2
live_finish
