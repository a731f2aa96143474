#!/usr/bin/env bash
# Reload of every key srv6d applies at run time (issue 36): srv6d with its dataplane (a DPDK
# net_af_packet port on a veth, TAP mirror pe0) fed by a real zebra; each live key of the
# reload table (apps/srv6d/config_diff.cc) is changed in the file, SIGHUP sent, and checked
# twice: the log names it with old -> new, and the daemon behaves by the new value (a refused
# zebra, a closed probe, a socket's group, a limit shown, a metrics port, a policer, an ICMP
# limiter, a busy-polling CPU, a VRF, a SID...). Prints the FPM outage each admission change
# costs.
#
#   sudo tests/live/reload_test.sh [BUILD_DIR]
#
# fpm.allow-address and fpm.takeover-idle-ms are checked by their log line only: the listener
# is on 127.0.0.1 (only local peers, admitted by uid) and a takeover needs a silent zebra.
# No kernel SRv6 routes needed. About 1 minute.
set -u
source "$(dirname "$0")/lib.sh"

live_require
command -v ethtool >/dev/null || live_die "missing tool: ethtool"
live_init "${LIVE_PREFIX:-s6r-$$}"

DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
ns_add "$DUT"
ns_add "$H1"
dut_link "$DUT" d0 "$H1" h0
addr "$H1" h0 10.0.0.2/24
ip -n "$H1" route add default via 10.0.0.1

PORT=$(free_port "$DUT")
SRV6D_SOCK="$LIVE_WORK/run/srv6d.sock"
EAL="-l 0 --no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:error"
# The keys this test changes, with their first values.
declare -A K=(
	[fpm.resync-quiet-ms]=1000 [fpm.resync-max-ms]=30000 [fpm.allow-user]="frr root" [fpm.allow-address]=""
	[fpm.takeover-idle-ms]=30000 [fpm.first-frame-timeout-ms]=10000 [mgmt.group]=frrvty [mgmt.max-clients]=32
	[rib.max-routes]=4000000 [rib.max-routes-per-table]=2000000 [rib.max-nexthops]=1000000 [metrics.listen]=""
	[log.level]=info [log.target]=stderr [dataplane.punt-rate]=500 [dataplane.punt-burst]=50
	[dataplane.icmp-rate]=1000 [dataplane.icmp-burst]=50 [dataplane.idle-sleep]=200 [encap.source]=""
	[vrf]="" [sids.sid]=""
)
conf() {
	local k s
	{
		[ -n "${K[vrf]}" ] && echo "vrf = ${K[vrf]}"
		printf '[fpm]\nlisten = 127.0.0.1\nport = %s\n' "$PORT"
		for s in fpm mgmt rib metrics log dataplane encap; do
			[ "$s" = fpm ] || echo "[$s]"
			[ "$s" = mgmt ] && echo "socket = $SRV6D_SOCK"
			[ "$s" = dataplane ] && printf 'enabled = true\nmbufs = 8191\nport = p0 net_af_packet0,iface=d0 tap=pe0\n'
			for k in "${!K[@]}"; do
				[[ "$k" == "$s".* ]] && [ -n "${K[$k]}" ] && echo "${k#*.} = ${K[$k]}"
			done
		done
		printf '[eal]\nargs = %s\n' "$EAL"
		[ -n "${K[sids.sid]}" ] && printf '[sids]\nsid = %s\n' "${K[sids.sid]}"
	} >"$LIVE_WORK/srv6d.conf"
}
conf
srv6d_dataplane_start "$DUT" pe0
ip -n "$DUT" link set pe0 up
addr "$DUT" pe0 10.0.0.1/24
dut_zebra_start "$DUT"
fpm_field() { srv6ctl show fpm --json | jq -r --arg f "$1" '.[$f] | select(. != null)'; }  # not //: it drops false
rib_field() { srv6ctl show fpm --json | jq -r --arg f "$1" '.rib[$f] | select(. != null)'; }
check "zebra connected over FPM" wait_until 20 "zebra connected" eval '[ "$(fpm_field connected)" = true ]'
ip -n "$DUT" route add 10.8.0.0/24 via 10.0.0.2 dev pe0
route_in() { srv6ctl show routes --json | jq -e --arg p "$1" '.. | objects | select(.prefix? == $p)' >/dev/null; }
check "a kernel route reached srv6d (zebra -> FPM)" wait_until 15 "10.8.0.0/24 in srv6d" route_in 10.8.0.0/24

# reload KEY=VALUE...: the file with these values, SIGHUP, wait for the reload's summary line.
RELOADS=0
reload() {
	local kv
	for kv in "$@"; do K[${kv%%=*}]="${kv#*=}"; done
	conf
	RELOADS=$((RELOADS + 1))
	kill -HUP "$SRV6D_PID"
	wait_until 10 "reload $RELOADS done" eval '[ "$(srv6ctl show running-config --json | jq -r .reloads)" -ge "$RELOADS" ]' ||
		live_log "reload $RELOADS: no answer"
}
# logged KEY OLD NEW: the reload's line names KEY with OLD -> NEW.
logged() { grep -qF -- "$1 $2 -> $3" "$LIVE_WORK/srv6d.log"; }
LIVE_KEYS=0
applied() { # applied KEY OLD NEW WHAT CMD...: the log line, then the behavior
	local key="$1" old="$2" new="$3" what="$4"
	shift 4
	LIVE_KEYS=$((LIVE_KEYS + 1))
	check "$key: logged $old -> $new" wait_until 5 "$key logged" logged "$key" "$old" "$new"
	check "$key: $what" "$@"
}

# ---- log.level, log.target --------------------------------------------------------------------
reload log.level=debug
applied log.level info debug "the level in force is debug" eval \
	'srv6ctl set log-level debug | grep -qx "log level: debug (unchanged)"'
reload log.target=syslog
n0=$(wc -l <"$LIVE_WORK/srv6d.log")
srv6ctl set log-level debug >/dev/null # logs a line: to syslog now
sleep 0.3
n1=$(wc -l <"$LIVE_WORK/srv6d.log")
reload log.target=stderr
applied log.target syslog stderr "lines went to syslog meanwhile, none to stderr ($n0 -> $n1 lines)" eval '[ "$n1" -eq "$n0" ]'

# ---- rib.* limits: what `show fpm` says is in force --------------------------------------------
reload rib.max-routes=40 rib.max-routes-per-table=30 rib.max-nexthops=20
applied rib.max-routes 4000000 40 "show fpm: maxRoutes 40" eval '[ "$(rib_field maxRoutes)" = 40 ]'
applied rib.max-routes-per-table 2000000 30 "show fpm: maxRoutesPerTable 30" eval '[ "$(rib_field maxRoutesPerTable)" = 30 ]'
applied rib.max-nexthops 1000000 20 "show fpm: maxNexthops 20" eval '[ "$(rib_field maxNexthops)" = 20 ]'

# ---- mgmt.group, mgmt.max-clients -------------------------------------------------------------
reload mgmt.group=frr mgmt.max-clients=2
applied mgmt.group frrvty frr "the socket's group is frr" eval '[ "$(stat -c %G "$SRV6D_SOCK")" = frr ]'
cat >"$LIVE_WORK/clients.py" <<'PY'
import socket, sys, time
cs = []
for i in range(3):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    cs.append(s)
    time.sleep(0.2)
cs[0].settimeout(2)
try:
    print("closed" if cs[0].recv(1) == b"" else "open")
except socket.timeout:
    print("open")
PY
applied mgmt.max-clients 32 2 "a third client closes the idlest of two" eval \
	'[ "$("$LIVE_PY" "$LIVE_WORK/clients.py" "$SRV6D_SOCK")" = closed ]'

# ---- metrics.listen -----------------------------------------------------------------------------
MPORT=$(free_port "$DUT")
scrape() { ip netns exec "$DUT" "$LIVE_PY" -c "import urllib.request,sys; urllib.request.urlopen('http://$1/metrics', timeout=2).read()" 2>/dev/null; }
reload metrics.listen="127.0.0.1:$MPORT"
applied metrics.listen "(off)" "127.0.0.1:$MPORT" "127.0.0.1:$MPORT/metrics answers" wait_until 5 "metrics up" scrape "127.0.0.1:$MPORT"

# ---- encap.source, vrf, sids.sid ----------------------------------------------------------------
reload encap.source=fc00:0:1::1 vrf="red table 10" sids.sid="fc00:0:1::d46 End.DT46 vrf red"
applied encap.source "(none)" fc00:0:1::1 "show encap-source: fc00:0:1::1" eval \
	'srv6ctl show encap-source --json | grep -q "fc00:0:1::1"'
applied vrf "0 lines" "1 line" "show vrfs: red, table 10" eval \
	'srv6ctl show vrfs --json | jq -e ".vrfs[] | select(.name == \"red\" and .table == 10)" >/dev/null'
applied sids.sid "0 lines" "1 line" "show sids: fc00:0:1::d46/128 active in red" eval \
	'srv6ctl show sids --json | jq -e ".sids[] | select(.prefix == \"fc00:0:1::d46/128\" and .state == \"active\")" >/dev/null'

# ---- dataplane.idle-sleep: a busy-polling worker is a busy CPU -----------------------------------
cpu_ms() { # CPU time srv6d used over 1 s, in ms
	local a b
	a=$(awk '{print $14 + $15}' "/proc/$SRV6D_PID/stat")
	sleep 1
	b=$(awk '{print $14 + $15}' "/proc/$SRV6D_PID/stat")
	echo $(((b - a) * 1000 / $(getconf CLK_TCK)))
}
idle_cpu=$(cpu_ms)
reload dataplane.idle-sleep=0
busy_cpu=$(cpu_ms)
reload dataplane.idle-sleep=200
again_cpu=$(cpu_ms)
live_log "srv6d CPU over 1 s: idle-sleep 200: $idle_cpu ms, 0: $busy_cpu ms, 200 again: $again_cpu ms"
applied dataplane.idle-sleep 200 0 "busy polling takes several times the CPU of napping" eval \
	'[ "$busy_cpu" -gt $((3 * idle_cpu + 50)) ] && [ "$again_cpu" -lt $((busy_cpu / 2)) ]'

# ---- dataplane.icmp-rate / icmp-burst: time exceeded for 100 TTL-1 packets -------------------
cat >"$LIVE_WORK/ttl1.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 1)
for i in range(100):
    s.sendto(b"x" * 32, ("10.8.0.5", 33434 + i))
time.sleep(0.5)
PY
te_sent() { srv6ctl show counters --json | jq -r '[.icmp.sent[]? | select(.message == "ipv4 time-exceeded") | .packets | tonumber] + [0] | .[0]'; }
ttl1_burst() { local a; a=$(te_sent); ip netns exec "$H1" "$LIVE_PY" "$LIVE_WORK/ttl1.py"; echo $(($(te_sent) - a)); }
ping_once() { ip netns exec "$H1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 2 -W 2 10.0.0.1 >/dev/null; }
ping_once # ARP resolved both ways
te_before=$(ttl1_burst)
reload dataplane.icmp-rate=2 dataplane.icmp-burst=5
te_after=$(ttl1_burst)
live_log "time exceeded sent for 100 TTL-1 packets: $te_before at icmp-rate 1000 burst 50, $te_after at rate 2 burst 5"
applied dataplane.icmp-rate 1000 2 "at most burst + rate x 1 s sent ($te_after of 100; $te_before before)" eval \
	'[ "$te_before" -ge 50 ] && [ "$te_after" -le 8 ] && [ "$te_after" -ge 1 ]'
applied dataplane.icmp-burst 50 5 "the new burst bounds it" eval '[ "$te_after" -lt "$te_before" ]'

# ---- dataplane.punt-rate / punt-burst: a flood to pe0's address, policed or not ----------------
cat >"$LIVE_WORK/flood.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[2])
n = 0
while time.time() < end:
    for _ in range(20):
        s.sendto(b"x" * 32, (sys.argv[1], 9))
        n += 1
    time.sleep(0.01)
print(n)
PY
policed() { srv6ctl show counters --json | jq -r '.drops[] | select(.reason == "punt_policed") | .packets'; }
flood() { local a; a=$(policed); ip netns exec "$H1" "$LIVE_PY" "$LIVE_WORK/flood.py" 10.0.0.1 2 >/dev/null; echo $(($(policed) - a)); }
p_low=$(flood)
reload dataplane.punt-rate=100000 dataplane.punt-burst=10000
p_high=$(flood)
live_log "punt flood of ~2 000/s for 2 s: $p_low policed at punt-rate 500, $p_high at 100000"
applied dataplane.punt-rate 500 100000 "nothing policed at the new rate ($p_high; $p_low before)" eval \
	'[ "$p_low" -gt 100 ] && [ "$p_high" -eq 0 ]'
applied dataplane.punt-burst 50 10000 "logged with the rate" true

# ---- fpm.*: admission, first-frame timeout, resync quiet time --------------------------------
cat >"$LIVE_WORK/silent.py" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
t0 = time.monotonic()
s.settimeout(30)
try:
    s.recv(1)
except OSError:
    pass
print(int((time.monotonic() - t0) * 1000))
PY
reload fpm.first-frame-timeout-ms=700
silent_ms=$(ip netns exec "$DUT" "$LIVE_PY" "$LIVE_WORK/silent.py" "$PORT")
live_log "a silent peer was closed after $silent_ms ms (first-frame-timeout-ms 700)"
applied fpm.first-frame-timeout-ms 10000 700 "a silent peer closed after ~700 ms ($silent_ms)" eval \
	'[ "$silent_ms" -ge 600 ] && [ "$silent_ms" -lt 3000 ]'

reload fpm.allow-address=10.9.9.0/24 fpm.takeover-idle-ms=5000
applied fpm.allow-address "(none)" 10.9.9.0/24 "logged (remote peers only: none here)" true
applied fpm.takeover-idle-ms 30000 5000 "logged (a takeover needs a silent zebra)" true

# allow-user without zebra's user: its connection goes at once; back: it is in within its
# 3 s reconnect, its replay swept after the (new) quiet time.
routes_before=$(rib_field routes)
denied0=$(fpm_field deniedUser)
t0=${EPOCHREALTIME/./}
reload fpm.allow-user=nobody
check "fpm.allow-user nobody: zebra's connection closed" wait_until 5 "zebra out" eval '[ "$(fpm_field connected)" = false ]'
t_out=$(((${EPOCHREALTIME/./} - t0) / 1000))
applied fpm.allow-user "frr root" nobody "zebra refused while it is out (deniedUser grows)" wait_until 8 "denied" eval \
	'[ "$(fpm_field deniedUser)" -gt "$denied0" ]'
check "the RIB keeps zebra's routes while zebra is out" eval '[ "$(rib_field routes)" -eq "$routes_before" ]'
t1=${EPOCHREALTIME/./}
reload fpm.allow-user="frr root" fpm.resync-quiet-ms=2500 fpm.resync-max-ms=20000
check "fpm.allow-user back: zebra in again" wait_until 10 "zebra in" eval '[ "$(fpm_field connected)" = true ]'
t_in=$(((${EPOCHREALTIME/./} - t1) / 1000))
t2=${EPOCHREALTIME/./}
wait_until 15 "in sync" eval '[ "$(fpm_field state)" = in-sync ]'
t_sync=$(((${EPOCHREALTIME/./} - t2) / 1000))
live_log "FPM outage: zebra out ${t_out} ms after the reload, back ${t_in} ms after the next (its reconnect timer), in sync ${t_sync} ms later"
applied fpm.resync-quiet-ms 1000 2500 "the replay swept after the new quiet time (${t_sync} ms >= 2500)" eval \
	'[ "$t_sync" -ge 2300 ]'
applied fpm.resync-max-ms 30000 20000 "logged (the quiet time ends the replay first)" true
check "the RIB holds zebra's routes after the replay" eval '[ "$(rib_field routes)" -eq "$routes_before" ]'

# Every live key of the reload table was changed above, and none is logged as needing a restart.
check "no reload named a restart" eval '! grep -q "needs a restart" "$LIVE_WORK/srv6d.log"'
live_log "$LIVE_KEYS live keys changed and checked"
check "22 live keys changed (the reload table's run-time rows)" eval '[ "$LIVE_KEYS" -eq 22 ]'

live_finish
