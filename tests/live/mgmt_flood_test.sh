#!/usr/bin/env bash
# The management socket cannot starve FPM (issue 36): a real zebra feeds srv6d 20 000 kernel
# routes, then clients flood the management socket with pipelined `show routes` (the whole
# RIB each, streamed in parts) while routes are added in the kernel and zebra sends them.
#
#   sudo tests/live/mgmt_flood_test.sh [BUILD_DIR]
#
# Checks: srv6ctl prints the whole table (text and JSON: every route, once); an FPM route is
# visible in srv6d within MGMT_FLOOD_BOUND_MS (default 100; the median of 9 rounds, any round
# within 2.5 times it) of `ip route add` while 4 clients each keep 64 requests in flight (printed: the latency quiet and under the flood, the flood's
# answers); srv6d's RSS stays bounded meanwhile. No kernel SRv6 routes needed. About 1 minute.
set -u
source "$(dirname "$0")/lib.sh"

live_require
live_init "${LIVE_PREFIX:-s6f-$$}"
ROUTES="${MGMT_FLOOD_ROUTES:-20000}"
BOUND_MS="${MGMT_FLOOD_BOUND_MS:-100}"

DUT="$LIVE_PREFIX-dut"
ns_add "$DUT"
stub_if "$DUT" lan
addr "$DUT" lan 10.100.0.1/16
PORT=$(free_port "$DUT")
srv6d_start "$DUT" "$PORT" 1000
dut_zebra_start "$DUT"
fpm_field() { srv6ctl show fpm --json | jq -r --arg f "$1" '.[$f] | select(. != null)'; }  # not //: it drops false
check "zebra connected over FPM" wait_until 20 "zebra connected" eval '[ "$(fpm_field connected)" = true ]'

# The RIB: $ROUTES kernel routes 10.200.x.y/32 (zebra relays the kernel's routes over FPM).
for ((i = 0; i < ROUTES; i++)); do
	printf 'route add 10.%d.%d.%d/32 via 10.100.0.2 dev lan\n' $((200 + i / 65536)) $((i / 256 % 256)) $((i % 256))
done >"$LIVE_WORK/routes.batch"
t0=${EPOCHREALTIME/./}
ip -n "$DUT" -batch "$LIVE_WORK/routes.batch" || live_die "ip -batch failed"
rib_routes() { srv6ctl show fpm --json | jq -r .rib.routes; }
check "the $ROUTES routes reached srv6d" wait_until 60 "$ROUTES routes in srv6d" eval '[ "$(rib_routes)" -ge "$ROUTES" ]'
live_log "$(rib_routes) routes in srv6d, $(((${EPOCHREALTIME/./} - t0) / 1000)) ms after ip -batch"

# srv6ctl gets the whole table, streamed: text and JSON.
t0=${EPOCHREALTIME/./}
srv6ctl show routes --json >"$LIVE_WORK/routes.json"
ms_json=$(((${EPOCHREALTIME/./} - t0) / 1000))
n_json=$(jq '[.[] | arrays | .[]] | length' "$LIVE_WORK/routes.json")
n_uniq=$(jq -r '.[] | arrays | .[] | .prefix' "$LIVE_WORK/routes.json" | sort -u | wc -l)
want=$(rib_routes)
live_log "show routes --json: $n_json routes ($n_uniq distinct) in $ms_json ms; the RIB holds $want"
check "show routes --json lists every route once" eval '[ "$n_json" -eq "$want" ] && [ "$n_uniq" -eq "$want" ]'
srv6ctl show routes >"$LIVE_WORK/routes.txt"
n_txt=$(grep -c ' via 10.100.0.2' "$LIVE_WORK/routes.txt")
check "show routes (text) lists the $ROUTES routes" eval '[ "$n_txt" -ge "$ROUTES" ]'

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$SRV6D_PID/status"; }
rss0=$(rss_kb)
(
	peak=0
	while [ ! -e "$LIVE_WORK/rss.stop" ]; do
		r=$(rss_kb)
		[ "${r:-0}" -gt "$peak" ] && peak=$r
		sleep 0.1
	done
	echo "$peak" >"$LIVE_WORK/rss.peak"
) &
RSS_PID=$!
"$LIVE_PY" "$LIVE_HOME/mgmt_flood.py" "$SRV6D_SOCK" "$DUT" --prefix 10.99.0.0/24 --via 10.100.0.2 \
	--clients 4 --rounds 9 --bound-ms "$BOUND_MS" >"$LIVE_WORK/flood.out" 2>&1
rc=$?
touch "$LIVE_WORK/rss.stop"
wait "$RSS_PID"
cat "$LIVE_WORK/flood.out" >&2
live_log "srv6d RSS: $((rss0 / 1024)) MiB before the flood, peak $(($(cat "$LIVE_WORK/rss.peak") / 1024)) MiB during it"
check "an FPM route is visible within $BOUND_MS ms (median) during the flood" eval '[ "$rc" -eq 0 ]'
check "srv6d's RSS grew by less than 64 MiB during the flood" \
	eval '[ $(($(cat "$LIVE_WORK/rss.peak") - rss0)) -lt 65536 ]'
check "srv6d answers after the flood" eval 'srv6ctl show fpm >/dev/null'

live_finish
