#!/usr/bin/env bash
# Live test: srv6d with a dataplane exits on SIGTERM, every time, whenever the signal lands.
# Its control thread re-arms timers every 20 ms (neighbor requests) and 100 ms (link state): a
# timer whose completion was already queued when the signal's handler ran used to re-arm itself
# after shutdown() cancelled it, so io.run() never ran out of work and srv6d ignored SIGTERM
# (seen once in live_e2e_faults under TCG). Each round starts srv6d, lets it run a random
# 0-400 ms after it is up, sends SIGTERM and wants it gone within 10 s, exit status 0.
#
#   sudo tests/live/sigterm_test.sh [BUILD_DIR] [ROUNDS]
#
#   DUT: srv6d port p0 net_af_packet on d0 (its peer h0 in host1), tap pe0
set -u
source "$(dirname "$0")/lib.sh"

live_require
live_init "${LIVE_PREFIX:-s6s-$$}"
ROUNDS="${2:-20}"

DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
for n in "$DUT" "$H1"; do ns_add "$n"; done
dut_link "$DUT" d0 "$H1" h0
srv6d_conf_write "$DUT" "-l 0 --no-pci --no-huge -m 256 --no-telemetry --log-level=lib.eal:error" <<EOC
mbufs = 4095
port = p0 net_af_packet0,iface=d0 tap=pe0
EOC

hung=0 failed=0 slowest=0
for r in $(seq 1 "$ROUNDS"); do
	srv6d_dataplane_start "$DUT" pe0
	sleep "0.$(printf '%03d' $((RANDOM % 400)))"
	t0=${EPOCHREALTIME/./}
	kill -TERM "$SRV6D_PID"
	if ! live_wait_gone "$SRV6D_PID" 10; then
		hung=$((hung + 1))
		live_log "round $r: srv6d still running 10 s after SIGTERM"
		tail -5 "$LIVE_WORK/srv6d.log" >&2
		kill -KILL "$SRV6D_PID" 2>/dev/null
	fi
	wait "$SRV6D_PID"
	rc=$?
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	[ "$ms" -le "$slowest" ] || slowest=$ms
	[ "$rc" -eq 0 ] || { failed=$((failed + 1)); live_log "round $r: exit status $rc"; }
	grep -q "SIGTERM received, shutting down" "$LIVE_WORK/srv6d.log" || live_log "round $r: no shutdown line"
	LIVE_PIDS=()
	# The TAP mirror goes with the process; the next round's must be a new one.
	wait_until 10 "pe0 gone" eval "! ip -n $DUT link show pe0 >/dev/null 2>&1" || live_die "pe0 outlived srv6d"
done
live_log "$ROUNDS rounds: $hung hung, $failed exited non-zero; slowest exit $slowest ms after SIGTERM"
check "srv6d exited after SIGTERM in every round" eval '[ "$hung" -eq 0 ]'
check "with exit status 0" eval '[ "$failed" -eq 0 ]'
live_finish
