#!/usr/bin/env bash
# Faults in the end-to-end L3VPN topology (tests/live/e2e_lib.sh: srv6d = PE1 fed by zebra over
# FPM, the Linux kernel = PE2, VRFs red/blue = tables 10/20 with overlapping prefixes), with
# continuous ICMP probes (every 10 ms; CE1-red and CE1-blue to 10.2.0.2 and fd02::2) running
# across each fault:
#
#   sudo tests/live/e2e_faults_test.sh [BUILD_DIR]
#
#  1. zebra SIGKILLed: srv6d keeps its state and forwarding continues while zebra is down;
#     zebra restarted: it reconnects and replays, srv6d sweeps (keeping the VRF tables' kernel
#     routes, which 8.4.4 does not replay), srv6d's RIB equals zebra's (tables 254, 10, 20).
#     No echo may be lost at any point.
#  2. srv6d SIGTERMed, then (3.) SIGKILLed, and restarted each time: zebra reconnects (it
#     retries every 3 s) and replays; PE1's kernel routes through srv6d's TAP mirrors, which
#     the kernel flushed when the TAPs vanished, are re-added as a feeder would; srv6d
#     converges and traffic resumes.
# The loss window of every fault (echoes lost, ms from the fault to the first answered echo
# after the last lost one) and its parts are printed, with a summary table at the end.
# FAULTS="zebra term kill" (the default) picks the faults. Exit 0 only if every check passed.
# See docs/testing.md, "Faults".
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_lib.sh"

# The Linux kernel is a peer here: a kernel without SRv6 routes runs this test in the VM.
live_need_kernel_srv6 "$0" "$@"
live_require
command -v ethtool >/dev/null || live_die "missing tool: ethtool"
live_init "${LIVE_PREFIX:-s6e-$$}"

e2e_up

TABLES=254,10,20
FAULTS="${FAULTS:-zebra term kill}" # which faults to run (all by default; a subset for debugging)
# wait_for SECONDS DESCRIPTION CMD...: retry CMD until it succeeds or SECONDS have passed (a
# deadline, whatever CMD itself takes).
wait_for() {
	local end=$((SECONDS + $1)) what="$2"
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || { live_log "timeout waiting for: $what"; return 1; }
		sleep 0.2
	done
}
fpm_field() { srv6ctl show fpm --json | jq -r --arg f "$1" '.[$f] | select(. != null)'; }  # not //: it drops false
now() { echo "$EPOCHREALTIME"; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

check "initial state: L3VPN routes and SIDs in srv6d" wait_for 20 "routes and SIDs in srv6d" e2e_state_ok
check "initial state: zebra tables $TABLES == srv6d" rib_compare routes --ns "$PE1" --tables "$TABLES" --timeout 20
check "PE1's kernel reaches PE2 across the core port" ping6 "$PE1" fc00:12::2
check "srv6d mirrors the core neighbor" wait_until 5 "fc00:12::2 in srv6d" neigh_in core fc00:12::2
check "traffic in red and blue, IPv4 and IPv6" e2e_warm_all

# ---- probes -------------------------------------------------------------------------------------
FLOWS=(red4 red6 blue4 blue6)
probes_start() { # probes_start PHASE: the four flows, CE1 -> CE2 (the replies come back CE2 -> CE1)
	probe_start "$1-red4" "$CE1R" 10.2.0.2
	probe_start "$1-red6" "$CE1R" fd02::2 -6
	probe_start "$1-blue4" "$CE1B" 10.2.0.2
	probe_start "$1-blue6" "$CE1B" fd02::2 -6
	# a baseline before the fault (the probes need a moment to start on a busy machine, longer
	# under TCG: the VM on a kernel without SRv6 routes)
	if [ -n "${LIVE_TCG:-}" ]; then sleep 6; else sleep 1.5; fi
}
probes_stop() { local f; for f in "${FLOWS[@]}"; do probe_stop "$1-$f"; done; }
# Echoes sent this long before the fault may still be in flight when it strikes (round trips
# reach 100-300 ms on a busy 2-core machine): they belong to the fault, not to the baseline.
INFLIGHT=0.5
# window NAME T0: "BASE BASE_LOST SENT LOST RESUME_MS STALL" for one probe: echoes sent before
# T0 - INFLIGHT and how many got no reply (must be 0); echoes sent from then on and how many got
# no reply; the first answered echo after the last lost one, in ms from T0 ("-" if none was
# lost, "never" if none was answered after it); then "ok" if every run of lost echoes from
# T0 - INFLIGHT on sits inside a stall of the machine, else the first run that does not ("seq
# A-B: round trips X / Y ms"). A stall (a busy host stops the VM's vCPUs for hundreds of ms, see
# docs/testing.md "Faults") shows as queueing: the answered echoes just before and just after
# the run took STALL_MS or longer. A run between ordinary round trips, at the start or the end,
# is a loss the stall cannot explain.
STALL_MS=200
window() {
	awk -v t0="$2" -v g="$INFLIGHT" -v s="$STALL_MS" '
		$2 < t0 - g { nb++; if ($3 == -1) lb++; else if ($3 >= 0) prev = $3; next }
		{ n++ }
		$3 == -1 { l++; res = ""; if (first == "") { first = $1; before = prev } last = $1; next }
		{
			if (l && res == "") res = $2
			if (first != "" && !bad && (before == "" || before < s || $3 < s))
				bad = sprintf("seq %s-%s: round trips %s / %s ms", first, last, before == "" ? "none" : before, $3)
			first = ""; prev = $3
		}
		END {
			r = !l ? "-" : (res == "" ? "never" : sprintf("%.0f", (res - t0) * 1000))
			if (first != "" && !bad) bad = sprintf("seq %s-%s: never answered after", first, last)
			printf "%d %d %d %d %s %s\n", nb, lb, n, l, r, bad ? bad : "ok"
		}' "$LIVE_WORK/probe-$1.out"
}
# What srv6d drops when a route, SID, VRF, port or neighbor is missing: a fault that costs
# srv6d state shows here, whatever the machine's load.
STATE_DROPS='tables_not_ready|no_route|blackhole|unreachable|vrf_unknown|refused_encap|encap_no_source|sid_refused|sid_unsupported|no_port|port_down|neigh_unresolved|neigh_hold_full|neigh_hold_timeout'
SUMMARY=()
# report PHASE T0 DESCRIPTION: per flow, log its window; sets WINDOW (the slowest flow's resume
# in ms, "-" if nothing was lost, "never"), LOST_TOTAL, BASE_LOST, BASE_SENT, LOSTS
# ("red4/red6/blue4/blue6" lost counts) for the summary and NOT_STALL (the flows whose losses a
# stall does not explain, with their first such run; empty if none).
report() {
	local phase="$1" t0="$2" what="$3" f nb lb n l r st
	WINDOW=- LOST_TOTAL=0 BASE_LOST=0 BASE_SENT=0 LOSTS="" NOT_STALL=""
	for f in "${FLOWS[@]}"; do
		read -r nb lb n l r st < <(window "$phase-$f" "$t0")
		[ "$st" = ok ] || NOT_STALL+="${NOT_STALL:+; }$f $st"
		live_log "$what: $f: $l of $n echoes lost (from ${INFLIGHT}s before the fault on), answered again $r ms after the fault; baseline $lb of $nb lost"
		LOST_TOTAL=$((LOST_TOTAL + l))
		BASE_LOST=$((BASE_LOST + lb))
		BASE_SENT=$((BASE_SENT + nb))
		if [ "$r" = never ] || [ "$WINDOW" = never ]; then
			WINDOW=never
		elif [ "$r" != - ] && { [ "$WINDOW" = - ] || [ "$r" -gt "$WINDOW" ]; }; then WINDOW=$r; fi
		LOSTS+="${LOSTS:+/}$l"
	done
}
summary_add() { SUMMARY+=("$(printf '%-24s %-20s %-10s %s' "$1" "$LOSTS" "$WINDOW" "$2")"); }
# srv6d_log_time PATTERN: epoch time of the last srv6d.log line matching PATTERN (its clock).
srv6d_log_time() {
	local t
	# srv6d's stderr lines start with the date and the time (util/log)
	t="$(grep -E "$1" "$LIVE_WORK/srv6d.log" | tail -1 | awk '{print $1, $2}')"
	[ -n "$t" ] && date -d "$t" +%s.%N
}

# ---- 1. zebra killed and restarted ------------------------------------------------------------
# srv6d keeps the RIB (and forwarding) while zebra is away; the restarted zebra reconnects and
# replays main. Tables 10/20 are not replayed by 8.4.4 (no VRF devices on this kernel, so they
# are extra tables of the default VRF), but the new zebra read their routes from the kernel at
# start: srv6d's sweep after a restart keeps those kernel routes (docs/srv6d.md, "Which tables a
# sweep cleans"), so srv6d must equal zebra and no echo may be lost at any point.
zebra_fault() {
	live_log "fault 1: zebra SIGKILL, then restart"
	probes_start z
	rib_compare snapshot "$LIVE_WORK/before-zebra-kill.json" >/dev/null
	local zpid1 t_kill t_start t_conn t_swept
	zpid1="$(fpm_field zebraPid)"
	srv6ctl show counters --json >"$LIVE_WORK/counters-z0.json"
	t_kill=$(now)
	frr_stop "$PE1" zebra KILL
	check "1. srv6d saw zebra's disconnect" rib_compare fpm --connections 1 --disconnected --timeout 10
	sleep 2 # zebra stays down a while, with traffic flowing
	check "1. srv6d keeps every route while zebra is down" rib_compare unchanged "$LIVE_WORK/before-zebra-kill.json"
	check "1. ... and the L3VPN state (SIDs active, bound)" e2e_state_ok
	t_start=$(now)
	e2e_zebra_start 2
	t_conn="$(srv6d_log_time 'fpm: zebra connected from')"
	check "1. the restarted zebra replayed, srv6d swept" rib_compare fpm --connections 2 --connected --sweeps 2 --timeout 20
	t_swept="$(srv6d_log_time 'fpm: replay from .* sweep')"
	live_log "1. sweep: $(fpm_field lastSweepScope) ($(fpm_field lastSweepReason)); kept $(fpm_field lastSweepKept) routes"
	check "1. a new zebra (nlmsg_pid $zpid1 -> $(fpm_field zebraPid)), whose sweep kept the kernel routes of tables 10/20" eval \
		'[ "$(fpm_field zebraPid)" != "$zpid1" ] && [ "$(fpm_field lastSweepScope)" = "all but kernel routes of unreplayed tables" ] && [ "$(fpm_field lastSweepKept)" -eq 8 ]'
	check "1. after the restart: zebra tables $TABLES == srv6d" rib_compare routes --ns "$PE1" --tables "$TABLES" --timeout 20
	check "1. after the restart: the L3VPN state in srv6d" e2e_state_ok
	check "1. traffic in red and blue, IPv4 and IPv6, after the restart" e2e_flows_ok
	sleep 1
	probes_stop z
	srv6ctl show counters --json >"$LIVE_WORK/counters-z1.json"
	report z "$t_kill" "zebra SIGKILL + restart"
	local drops
	drops="$(counters_delta "$LIVE_WORK/counters-z0.json" "$LIVE_WORK/counters-z1.json")"
	live_log "1. srv6d's drops from before the kill to the probes' end: $drops"
	live_log "1. zebra down $(ms "$t_kill" "$t_start") ms; the new one connected $(ms "$t_start" "$t_conn") ms after its start, srv6d swept after $(ms "$t_start" "$t_swept") ms"
	summary_add "zebra SIGKILL, restart" "zebra down $(ms "$t_kill" "$t_start"); new zebra connected +$(ms "$t_start" "$t_conn"), swept +$(ms "$t_start" "$t_swept")"
	# No echo may be lost, except inside a stall of the machine (the probes' own round trips show
	# it), and srv6d must have dropped nothing for want of state.
	[ "$LOST_TOTAL" -eq 0 ] || live_log "1. $LOST_TOTAL echoes lost: $([ -z "$NOT_STALL" ] && echo "each run inside a stall (round trips >= $STALL_MS ms on both sides)" || echo "not a stall: $NOT_STALL")"
	check "1. no echo lost while zebra was down, nor after its restart, but in a stall of the machine (baseline $BASE_SENT echoes)" eval \
		'[ "$BASE_LOST" -eq 0 ] && [ "$BASE_SENT" -gt 0 ] && { [ "$LOST_TOTAL" -eq 0 ] || [ -z "$NOT_STALL" ]; }'
	check "1. srv6d dropped nothing for want of a route, SID, VRF, port or neighbor" eval \
		'! grep -Eq "drop ($STATE_DROPS) " <<<"$drops "'
}

# ---- 2./3. srv6d stopped (SIGTERM, then SIGKILL) and restarted --------------------------------
# When srv6d goes, its TAP mirrors go with it, and the kernel flushes PE1's routes through them
# (every route of frr-conf/l3vpn-pe.sh names tcr, tcb or tcore); zebra withdraws them (nowhere
# to send: its FPM connection is gone too). Whoever fed those routes (here l3vpn-pe.sh, in a
# real PE BGP) must add them again once the mirrors are back and zebra is connected: FRR 8.4.4
# does not replay tables 10/20, so only routes added after the connect reach srv6d.
srv6d_fault() { # srv6d_fault N SIGNAL
	local n="$1" sig="$2" old="$SRV6D_PID" p keep=()
	local t_kill t_gone t_up t_conn t_routes0 t_routes t_neigh t_state
	live_log "fault $n: srv6d SIG$sig, then restart"
	probes_start "s$n"
	t_kill=$(now)
	kill "-$sig" "$old"
	# TCG (the VM on a kernel without SRv6 routes) stretches the DPDK and TAP teardown
	local gone_tmo=10
	[ -z "${LIVE_TCG:-}" ] || gone_tmo=60
	live_wait_gone "$old" "$gone_tmo" || live_die "srv6d did not exit on SIG$sig"
	wait "$old" 2>/dev/null
	t_gone=$(now)
	for p in "${LIVE_PIDS[@]}"; do [ "$p" = "$old" ] || keep+=("$p"); done
	LIVE_PIDS=("${keep[@]}")
	check "$n. the TAP mirrors went with srv6d, the kernel flushed PE1's routes through them" eval \
		'! ip -n "$PE1" link show tcore >/dev/null 2>&1 && [ -z "$(ip -n "$PE1" route show table 10)$(ip -n "$PE1" -6 route show table 20)" ]'
	rm -f "$SRV6D_SOCK" # left behind by SIGKILL; e2e_srv6d_run waits for the new one
	e2e_srv6d_run
	t_up=$(now)
	# The new TAPs start with an empty neighbor table. Nothing here makes PE1's kernel resolve
	# PE2 or the CEs (PE2 sends nothing before it gets something, the CEs' entries for their
	# gateway are still valid): srv6d drops what it encapsulated or decapsulated towards them
	# (neigh_unresolved) and asks the kernel to resolve them itself (docs/host-path.md), so the
	# probes' own traffic must bring the neighbors back.
	check "$n. zebra reconnected to the new srv6d (it retries every 3 s)" \
		rib_compare fpm --connections 1 --connected --timeout 15
	t_conn="$(srv6d_log_time 'fpm: zebra connected from')"
	t_routes0=$(now)
	e2e_pe1_routes
	t_routes=$(now)
	check "$n. srv6d had the kernel resolve PE2, CE1-red, CE1-blue (no one else asked it)" wait_for 10 "neighbors in srv6d" neighbors_ok
	t_neigh=$(now)
	check "$n. the L3VPN state is complete in srv6d again" wait_for 20 "routes and SIDs in srv6d" e2e_state_ok
	# when srv6d had it: l3vpn_pe_routes adds blue's End.DT6 SID last
	t_state="$(srv6d_log_time 'sid fc00:1::b6/128 End.DT6: active')"
	check "$n. replay swept; zebra tables $TABLES == srv6d" eval \
		'rib_compare fpm --connections 1 --connected --sweeps 1 --timeout 20 && rib_compare routes --ns "$PE1" --tables "$TABLES" --timeout 20'
	check "$n. traffic in red and blue, IPv4 and IPv6, again" flows_back
	check "$n. srv6d asked the kernel to resolve neighbors (show counters)" eval \
		'[ "$(srv6ctl show counters --json | jq -r ".neighResolution.sent // 0")" -gt 0 ]'
	sleep 1
	probes_stop "s$n"
	report "s$n" "$t_kill" "srv6d SIG$sig + restart"
	live_log "$n. from the kill: srv6d gone $(ms "$t_kill" "$t_gone") ms, back with its TAPs $(ms "$t_kill" "$t_up") ms, zebra connected $(ms "$t_kill" "$t_conn") ms, routes re-added $(ms "$t_kill" "$t_routes0")-$(ms "$t_kill" "$t_routes") ms, neighbors seen $(ms "$t_kill" "$t_neigh") ms (polled), state complete in srv6d $(ms "$t_kill" "$t_state") ms, traffic back (slowest flow) $WINDOW ms"
	summary_add "srv6d SIG$sig, restart" "srv6d back $(ms "$t_kill" "$t_up"), zebra connected $(ms "$t_kill" "$t_conn"), routes re-added $(ms "$t_kill" "$t_routes"), state complete $(ms "$t_kill" "$t_state")"
	check "$n. every flow came back and stayed (no loss after it resumed, none in the baseline)" eval \
		'[ "$WINDOW" != never ] && [ "$WINDOW" != - ] && [ "$BASE_LOST" -eq 0 ] && [ "$BASE_SENT" -gt 0 ]'
}
neighbors_ok() {
	neigh_in core fc00:12::2 && neigh_in cr 10.1.0.2 && neigh_in cr fd01::2 && neigh_in cb 10.1.0.2 && neigh_in cb fd01::2
}
flows_back() {
	wait_for 20 "all four flows answered" e2e_flows_ok && return 0
	srv6ctl show counters >&2
	srv6ctl show neighbors >&2
	ip -n "$PE1" neigh >&2
	return 1
}
e2e_flows_ok() {
	ping4 "$CE1R" 10.2.0.2 1 && ping6 "$CE1R" fd02::2 1 && ping4 "$CE1B" 10.2.0.2 1 && ping6 "$CE1B" fd02::2 1
}

[[ " $FAULTS " == *" zebra "* ]] && zebra_fault
[[ " $FAULTS " == *" term "* ]] && srv6d_fault 2 TERM
[[ " $FAULTS " == *" kill "* ]] && srv6d_fault 3 KILL

# ---- summary -------------------------------------------------------------------------------------
live_log "loss windows: echoes lost per flow (one every 10 ms); window = ms from the fault to the first"
live_log "answered echo after the last lost one, slowest flow ('-': nothing lost); parts in ms from the fault:"
live_log "$(printf '%-24s %-20s %-10s %s' fault "lost r4/r6/b4/b6" "window ms" parts)"
for l in "${SUMMARY[@]}"; do live_log "$l"; done
[ -n "${LIVE_LOGDIR:-}" ] && cp "$LIVE_WORK"/probe-*.out "$LIVE_LOGDIR"/ 2>/dev/null
live_finish
