#!/usr/bin/env bash
# The convergence bench, run INSIDE the trixie VM (bench/convergence/convergence.sh boots it):
# FRR 10.3 bgpd SRv6 L3VPN between PE1 (frr-conf/frr10-l3vpn-pe.conf) and PE2
# (frr-conf/vm-frr10-pe2.conf), PE1's dataplane srv6d (fed by zebra over FPM) or the kernel.
#
#   guest.sh BUILD_DIR srv6d|kernel        CONV_SIZES="1000 10000 100000" (the N of each round)
#
# Per N: PE2 announces N IPv4 VPN routes of vrf red: `ip -batch` puts N /32s (10.100.0.0 and up,
# via CE2-red) into PE2's kernel table 10 and PE2's bgpd redistributes them (`redistribute
# kernel`, added at run time). Timed from the start of that batch (T0; batch = until `ip` is done):
#   up_all    until PE1's dataplane holds all N (srv6d: `srv6ctl show memory` routes, the compiled
#             tables; kernel: `ip route show table 10 proto bgp`), polled every 0.5 s
#   up_fwd    the send time of the first echo answered through PE1's dataplane to the LAST
#             prefix (CE1-red -> 10.100.x.y, CE2-red holds that address; icmp_probe.py every
#             100 ms from before T0)
# Then PE2 drops the session (`neighbor fc00:12::1 shutdown`, T0):
#   down_all  until none of PE2's routes is left in PE1's dataplane, polled the same way
#   down_fwd  the send time of the first echo to the last prefix that stayed unanswered
# Results: one line per N in $VM_OUT/results.txt (written as they come: a timeout keeps the
# rounds before it), the details in output.txt.
set -u
BUILD="${1:?usage: guest.sh BUILD_DIR srv6d|kernel}"
DP="${2:?usage: guest.sh BUILD_DIR srv6d|kernel}"
case "$DP" in srv6d | kernel) ;; *) echo "dataplane: srv6d or kernel" >&2; exit 2 ;; esac
export SRV6D="$BUILD/apps/srv6d" SRV6CTL="$BUILD/apps/srv6ctl"
LIVE_DIR="${VM_REPO:?VM_REPO is set by convergence.sh}/tests/live"
source "$LIVE_DIR/lib.sh"
LIVE_HOME="$LIVE_DIR"
source "$VM_REPO/tests/vm/guest/frr10_lib.sh"
OUT="${VM_OUT:-/tmp/vm-out}"
mkdir -p "$OUT/logs"
RES="$OUT/results.txt"
SIZES="${CONV_SIZES:-1000 10000 100000}"
for m in vrf tun dummy veth; do modprobe "$m" || live_die "modprobe $m"; done
live_init "$F10_PREFIX"
trap 'rc=$?; cp "$LIVE_WORK"/*.txt "$LIVE_WORK"/*.out "$LIVE_WORK"/srv6d.* "$OUT/logs/" 2>/dev/null; f10_dump "$OUT/logs"; f10_down; (exit $rc); live_cleanup' EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
poll() { # poll SECONDS CMD...: every 0.5 s until CMD succeeds; false at the deadline
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}
# PE1's dataplane's routes: srv6d's compiled tables (every table), or the kernel's bgp routes of
# vrf red (IPv4)
dp_count() {
	if [ "$DP" = srv6d ]; then
		srv6ctl show memory --json | jq -r .routes
	else
		ip -n "$PE1" -4 route show table 10 proto bgp | wc -l
	fi
}
count_ge() { [ "$(dp_count)" -ge "$1" ]; }
count_le() { [ "$(dp_count)" -le "$1" ]; }
# icmp_probe.py's lines "<seq> <send time> <rtt ms or -1>": the first answered send after T0, and
# the first send after T0 from which none was answered
first_ok() { awk -v t="$2" '$2 >= t && $3 >= 0 { printf "%.1f", $2 - t; exit }' "$1"; }
first_lost() { awk -v t="$2" '$2 >= t { if ($3 >= 0) f = ""; else if (f == "") f = $2 } END { if (f != "") printf "%.1f", f - t }' "$1"; }
probe_start() { # probe_start NAME DST
	rm -f "$LIVE_WORK/stop"
	ip netns exec "$CE1R" "$LIVE_PY" "$LIVE_HOME/icmp_probe.py" -i 0.1 -t 3000 "$LIVE_WORK/stop" "$2" >"$LIVE_WORK/probe-$1.txt" &
	PROBE=$!
	sleep 2 # python's start under TCG
}
probe_stop() { touch "$LIVE_WORK/stop"; wait "$PROBE"; }

live_log "kernel $(uname -r), FRR $(chroot "$FRR_ROOT" dpkg-query -W -f '${Version}' frr), PE1's dataplane: $DP, N: $SIZES"
f10_topo "$DP"
T=$(now)
f10_frr_up "$DP"
live_log "FRR up on both PEs after $(since "$T") s"
poll 180 f10_bgp_up || live_die "BGP PE1-PE2 not established"
live_log "BGP established $(since "$T") s after FRR start"
base_ok() { ip netns exec "$CE1R" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 10.2.0.2 | grep -q "reply from"; }
poll 240 base_ok || live_die "CE1-red does not reach CE2-red (10.2.0.2) through PE1's $DP"
live_log "the VPN forwards (CE1-red -> 10.2.0.2) $(since "$T") s after FRR start"
sleep 5
BASE=$(dp_count)
# the 4 VPN routes PE2 announces besides the bench's (10.2.0.0/24 and fd02::/64 in red and blue)
if [ "$DP" = srv6d ]; then GONE=$((BASE - 4)); else GONE=0; fi
live_log "PE1's $DP holds $BASE routes before the rounds"
vtyc "$PE2" "router bgp 65002 vrf red" "address-family ipv4 unicast" "redistribute kernel" >/dev/null
echo "# dataplane N batch_s up_all_s up_fwd_s down_all_s down_fwd_s (kernel $(uname -r), FRR 10.3, $(nproc) vCPUs)" >>"$RES"

for N in $SIZES; do
	live_log "---- N = $N ----"
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "route add 10.%d.%d.%d/32 via 10.2.0.2 table 10\n", 100 + int(i / 65536), int(i / 256) % 256, i % 256 }' >"$LIVE_WORK/routes-$N.batch"
	LAST=$(tail -1 "$LIVE_WORK/routes-$N.batch" | awk '{ sub("/32", "", $3); print $3 }')
	ip -n "$CE2R" addr add "$LAST/32" dev lo
	probe_start "up-$N" "$LAST"
	T0=$(now)
	ip -n "$PE2" -batch "$LIVE_WORK/routes-$N.batch" || live_die "ip -batch on PE2"
	batch=$(since "$T0")
	live_log "PE2's kernel has the $N routes after $batch s"
	up_all=-
	if poll $((120 + N / 100)) count_ge $((BASE + N)); then up_all=$(since "$T0"); fi
	live_log "PE1's $DP holds $(dp_count) routes (want $((BASE + N))): up_all $up_all s"
	poll 60 eval "ip netns exec $CE1R $LIVE_PY $LIVE_HOME/icmp_ping.py -c 1 -W 1 $LAST | grep -q 'reply from'" ||
		live_log "the last prefix $LAST is not answered"
	probe_stop
	up_fwd=$(first_ok "$LIVE_WORK/probe-up-$N.txt" "$T0")
	live_log "first echo to the last prefix $LAST answered: ${up_fwd:--} s after T0"

	probe_start "down-$N" "$LAST"
	T0=$(now)
	vtyc "$PE2" "router bgp 65002" "neighbor fc00:12::1 shutdown" >/dev/null
	down_all=-
	if poll $((120 + N / 100)) count_le "$GONE"; then down_all=$(since "$T0"); fi
	live_log "PE1's $DP holds $(dp_count) routes (want <= $GONE): down_all $down_all s"
	sleep 2
	probe_stop
	down_fwd=$(first_lost "$LIVE_WORK/probe-down-$N.txt" "$T0")
	live_log "echoes to $LAST unanswered from ${down_fwd:--} s after T0"
	echo "$DP $N $batch $up_all ${up_fwd:--} $down_all ${down_fwd:--}" | tee -a "$RES"

	# back to the start: PE2 forgets the routes while the session is down, then reconnects
	ip -n "$PE2" route flush table 10 proto boot
	ip -n "$CE2R" addr del "$LAST/32" dev lo
	pe2_clean() { ! vty "$PE2" "show ip route vrf red summary" | grep -qE '^kernel +[1-9]'; }
	poll $((60 + N / 200)) pe2_clean || live_log "PE2's zebra still has kernel routes in vrf red"
	vtyc "$PE2" "router bgp 65002" "no neighbor fc00:12::1 shutdown" >/dev/null
	poll 180 f10_bgp_up || live_die "BGP did not come back"
	poll 120 count_ge "$BASE" || live_die "PE1's $DP did not get PE2's routes back"
	poll 60 base_ok || live_die "the VPN does not forward after the session came back"
done
[ "$DP" != srv6d ] || srv6ctl show fpm >"$LIVE_WORK/srv6ctl-fpm.txt" 2>&1
live_log "results:"
cat "$RES" >&2
