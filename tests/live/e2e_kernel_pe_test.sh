#!/usr/bin/env bash
# End-to-end SRv6 L3VPN test: srv6d is PE1 (DPDK on net_af_packet ports, TAP mirrors, its
# SRv6 state from FRR zebra over FPM), the Linux kernel is PE2, two VRFs with overlapping
# customer prefixes. The topology and its SIDs: tests/live/e2e_lib.sh.
#
#   sudo tests/live/e2e_kernel_pe_test.sh [BUILD_DIR]
#
# Checks: the SRv6 state reaches srv6d over FPM (routes in VRFs red/blue, SIDs active and
# bound); CE1-red <-> CE2-red IPv4 and IPv6 pings in both directions through srv6d (encap at
# PE1, decap at PE2 and the reverse); a capture on the core link shows the configured outer
# source and the installed SID; blue's traffic to the same addresses reaches CE2-blue and
# never CE2-red (captures on both CE2s, srv6d's per-SID and per-port counters); PE2 sends to
# srv6d's own End.DT46 and End.DT4 SIDs (config: FRR 8.4.4 cannot send them here), which
# decapsulate into the right VRF; withdrawing
# the kernel route at PE1 (-> zebra -> FPM) stops the traffic, re-adding it restores it (both
# delays logged).
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_lib.sh"

# The Linux kernel is a peer here: a kernel without SRv6 routes runs this test in the VM.
live_need_kernel_srv6 "$0" "$@"
live_require
for t in ethtool tcpdump; do command -v "$t" >/dev/null || live_die "missing tool: $t"; done
live_init "${LIVE_PREFIX:-s6e-$$}"

# End.DT4 and End.DT46 cannot come from FRR 8.4.4 on this kernel (DT4 needs VRF devices, DT46
# is not in its encoder): they are srv6d's own SIDs (docs/srv6d.md, "Static local SIDs").
e2e_up "[sids]
sid = fc00:1::a46 End.DT46 vrf red
sid = fc00:1::b46 End.DT46 vrf blue
sid = fc00:1::a44 End.DT4 vrf red
sid = fc00:1::b44 End.DT4 table 20"
ENCAP_SRC=$E2E_ENCAP_SRC

# ---- the SRv6 state arrived over FPM ------------------------------------------------------------
check "zebra relayed the VRF routes (tables 10, 20) and SIDs over FPM; DT6 SIDs bound to red/blue" \
	wait_until 20 "routes and SIDs in srv6d" e2e_state_ok
srv6ctl show routes >"$LIVE_WORK/routes.txt" 2>&1
srv6ctl show sids | tee "$LIVE_WORK/sids.txt" >&2
check "encap source is the configured one" eval \
	"srv6ctl show encap-source --json | jq -e '.address == \"$ENCAP_SRC\" and .origin == \"config\"' >/dev/null"

# ---- neighbors: the kernel resolves, srv6d mirrors ---------------------------------------------
# PE1's kernel pings PE2 over the core TAP: ND through the kernel; srv6d then has fc00:12::2
check "PE1's kernel reaches PE2 across the core port (ND through the kernel)" ping6 "$PE1" fc00:12::2
check "srv6d mirrors the core neighbor" wait_until 5 "fc00:12::2 in srv6d" neigh_in core fc00:12::2
# The first VPN packet towards a CE PE1's kernel has not resolved: srv6d decapsulates it, holds
# it while the kernel resolves 10.1.0.2 on the TAP, then sends it (docs/host-path.md). One echo,
# one reply, no retry: Linux as a PE does the same (unres_qlen).
check "the first echo CE2-red -> CE1-red, towards an unresolved CE1-red, is held, not lost" \
	ping4 "$CE2R" 10.1.0.2 1
srv6ctl show counters --json | jq -c '.neighResolution' >&2
check "srv6d held it and sent it once resolved" eval \
	'[ "$(srv6ctl show counters --json | jq -r ".neighResolution.released // 0")" -ge 1 ]'
e2e_warm_all || live_log "warm-up incomplete"

# ---- red: both directions, IPv4 and IPv6 ---------------------------------------------------------
srv6ctl clear counters >/dev/null
check "CE1-red -> CE2-red IPv4 (srv6d H.Encaps, PE2 End.DX4)" ping4 "$CE1R" 10.2.0.2
check "CE1-red -> CE2-red IPv6 (srv6d H.Encaps, PE2 End.DT6 table 10)" ping6 "$CE1R" fd02::2
check "CE2-red -> CE1-red IPv4 (PE2 H.Encaps, srv6d End.DX4)" ping4 "$CE2R" 10.1.0.2
check "CE2-red -> CE1-red IPv6 (PE2 H.Encaps, srv6d End.DT6 in vrf red)" ping6 "$CE2R" fd01::2
srv6ctl show counters | tee "$LIVE_WORK/counters-red.txt" >&2
check "srv6d did it: red SIDs decapsulated 6+6, core tx >= 12, cr tx >= 12, blue SIDs and port cb idle (injected ARP/ND aside)" eval \
	'[ "$(cnt fc00:1::a4 packets)" -ge 6 ] && [ "$(cnt fc00:1::a6 packets)" -ge 6 ] &&
	 [ "$(cnt core txPackets)" -ge 12 ] && [ "$(cnt cr txPackets)" -ge 12 ] &&
	 [ "$(cnt fc00:1::b4 packets)" -eq 0 ] && [ "$(cnt fc00:1::b6 packets)" -eq 0 ] && [ "$(routed_tx cb)" -eq 0 ]'

# ---- captures -------------------------------------------------------------------------------------
C="$LIVE_WORK/core.pcap"
cap_start "$PE2" core "$C" "ip6 and (ip6[6] == 43 or ip6[6] == 4 or ip6[6] == 41)"
ping4 "$CE1R" 10.2.0.2 2 >/dev/null
ping6 "$CE1R" fd02::2 2 >/dev/null
cap_stop
cap_read "$C" >"$C.txt"
cat "$C.err" "$C.txt" >&2
# one SID: srv6d sends H.Encaps.Red (no SRH) or H.Encaps (SRH with the SID); either way the
# outer destination is the installed SID and the source the configured one
outer() { grep -cE "IP6 $ENCAP_SRC > $1: (RT6 \\(.*\\[0\\]$1\\) )?$2" "$C.txt"; }
check "core capture: IPv4 customer packets leave PE1 from $ENCAP_SRC to SID fc00:2::a4" eval \
	'[ "$(outer fc00:2::a4 "IP 10.1.0.2 > 10.2.0.2: ICMP echo request")" -ge 2 ]'
check "core capture: IPv6 customer packets leave PE1 from $ENCAP_SRC to SID fc00:2::a6" eval \
	'[ "$(outer fc00:2::a6 "IP6 fd01::2 > fd02::2: ICMP6, echo request")" -ge 2 ]'
check "core capture: PE2's encapsulated replies go to PE1's SIDs from its tunsrc fc00:2::1" eval \
	'grep -qE "IP6 fc00:2::1 > fc00:1::a4: .*IP 10.2.0.2 > 10.1.0.2: ICMP echo reply" "$C.txt" &&
	 grep -qE "IP6 fc00:2::1 > fc00:1::a6: .*IP6 fd02::2 > fd01::2: ICMP6, echo reply" "$C.txt"'
check "core capture: nothing of blue's SIDs" eval '! grep -qE "fc00:[12]::b[46]" "$C.txt"'

# ---- tenant isolation: blue's traffic to the same addresses reaches blue only --------------------
srv6ctl clear counters >/dev/null
cap_start "$CE2R" r0 "$LIVE_WORK/ce2r.pcap" icmp or icmp6
cap_start "$CE2B" b0 "$LIVE_WORK/ce2b.pcap" icmp or icmp6
cap_start "$CE1R" r0 "$LIVE_WORK/ce1r.pcap" icmp or icmp6
check "CE1-blue -> 10.2.0.2 (overlapping) answered" ping4 "$CE1B" 10.2.0.2
check "CE1-blue -> fd02::2 (overlapping) answered" ping6 "$CE1B" fd02::2
check "CE2-blue -> 10.1.0.2 (overlapping) answered" ping4 "$CE2B" 10.1.0.2
check "CE2-blue -> fd01::2 (overlapping) answered" ping6 "$CE2B" fd01::2
cap_stop
for f in ce2r ce2b ce1r; do cap_read "$LIVE_WORK/$f.pcap" >"$LIVE_WORK/$f.txt"; done
n_echo() { grep -cE "$2" "$LIVE_WORK/$1.txt"; }
live_log "CE2-blue saw $(n_echo ce2b 'echo request') echo requests, CE2-red $(n_echo ce2r 'echo (request|reply)') echoes, CE1-red $(n_echo ce1r 'echo (request|reply)')"
check "CE2-blue received blue's echo requests (3 IPv4 + 3 IPv6)" eval \
	'[ "$(n_echo ce2b "10.1.0.2 > 10.2.0.2: ICMP echo request")" -ge 3 ] &&
	 [ "$(n_echo ce2b "fd01::2 > fd02::2: ICMP6, echo request")" -ge 3 ]'
check "CE2-red and CE1-red saw none of blue's echoes" eval \
	'[ "$(n_echo ce2r "echo (request|reply)")" -eq 0 ] && [ "$(n_echo ce1r "echo (request|reply)")" -eq 0 ]'
srv6ctl show counters | tee "$LIVE_WORK/counters-blue.txt" >&2
check "srv6d's counters: blue SIDs and port cb used, red SIDs and port cr idle (injected ARP/ND aside)" eval \
	'[ "$(cnt fc00:1::b4 packets)" -ge 6 ] && [ "$(cnt fc00:1::b6 packets)" -ge 6 ] && [ "$(cnt cb txPackets)" -ge 12 ] &&
	 [ "$(cnt fc00:1::a4 packets)" -eq 0 ] && [ "$(cnt fc00:1::a6 packets)" -eq 0 ] && [ "$(routed_tx cr)" -eq 0 ]'

# ---- End.DT46 and End.DT4: PE2 encapsulates towards srv6d's own SIDs ------------------------------
check "srv6d's config SIDs active: End.DT46 and End.DT4 in red and blue" \
	sids_ok 'fc00:1::a46 End.DT46 red' 'fc00:1::b46 End.DT46 blue' 'fc00:1::a44 End.DT4 red' 'fc00:1::b44 End.DT4 blue'
pe2_towards() { # pe2_towards TABLE SID4 SID6: PE2's routes to CE1's subnets in that VRF use these SIDs
	ip -n "$PE2" route replace 10.1.0.0/24 encap seg6 mode encap segs "$2" dev core table "$1" &&
		ip -n "$PE2" -6 route replace fd01::/64 encap seg6 mode encap segs "$3" dev core table "$1"
}
sid_pkts() { cnt "$1" packets; }
pe2_towards 10 fc00:1::a46 fc00:1::a46 && pe2_towards 20 fc00:1::b46 fc00:1::b46 || live_log "PE2 route replace failed"
srv6ctl clear counters >/dev/null
check "CE2-red -> CE1-red IPv4 and IPv6 through srv6d's End.DT46 (vrf red)" eval 'ping4 "$CE2R" 10.1.0.2 && ping6 "$CE2R" fd01::2'
check "End.DT46 red decapsulated both families (6), blue's untouched" eval \
	'[ "$(sid_pkts fc00:1::a46)" -ge 6 ] && [ "$(sid_pkts fc00:1::b46)" -eq 0 ] && [ "$(sid_pkts fc00:1::a4)" -eq 0 ] && [ "$(sid_pkts fc00:1::a6)" -eq 0 ]'
srv6ctl clear counters >/dev/null
cap_start "$CE1R" r0 "$LIVE_WORK/ce1r-dt46.pcap" icmp or icmp6
check "CE2-blue -> CE1-blue IPv4 and IPv6 through srv6d's End.DT46 (vrf blue)" eval 'ping4 "$CE2B" 10.1.0.2 && ping6 "$CE2B" fd01::2'
cap_stop
check "End.DT46 blue decapsulated into blue: its SID counted, red's idle, CE1-red saw nothing" eval \
	'[ "$(sid_pkts fc00:1::b46)" -ge 6 ] && [ "$(sid_pkts fc00:1::a46)" -eq 0 ] &&
	 [ "$(cap_read "$LIVE_WORK/ce1r-dt46.pcap" | grep -c "echo")" -eq 0 ]'
pe2_towards 10 fc00:1::a44 fc00:1::a6 && pe2_towards 20 fc00:1::b44 fc00:1::b6 || live_log "PE2 route replace failed"
srv6ctl clear counters >/dev/null
check "CE2-red and CE2-blue -> CE1 IPv4 through srv6d's End.DT4 (vrf red, vrf blue by table 20)" eval \
	'ping4 "$CE2R" 10.1.0.2 && ping4 "$CE2B" 10.1.0.2'
check "End.DT4 decapsulated 3 per VRF" eval '[ "$(sid_pkts fc00:1::a44)" -ge 3 ] && [ "$(sid_pkts fc00:1::b44)" -ge 3 ]'
# back to the SIDs zebra sent (End.DX4 / End.DT6), for what follows
pe2_towards 10 fc00:1::a4 fc00:1::a6 && pe2_towards 20 fc00:1::b4 fc00:1::b6 || live_log "PE2 route replace failed"

# ---- withdraw and restore a route: kernel -> zebra -> FPM -> srv6d -> dataplane --------------
STOP="$LIVE_WORK/probe.stop"
ip netns exec "$CE1R" "$LIVE_PY" "$LIVE_HOME/icmp_probe.py" -i 0.01 -t 60 "$STOP" 10.2.0.2 >"$LIVE_WORK/probe.out" 2>&1 &
PROBE=$!
LIVE_PIDS+=("$PROBE")
sleep 1
miss0="$(drops no_route)"
T_DEL=${EPOCHREALTIME}
ip -n "$PE1" route del 10.2.0.0/24 table 10 || live_log "route del failed"
check "withdrawn route left srv6d's vrf red" wait_until 10 "10.2.0.0/24 gone from table 10" eval '! route_in 10 10.2.0.0/24'
T_GONE=${EPOCHREALTIME}
# At least a second of the withdrawal, and until the dataplane has dropped 20 of the probe's
# echoes for it (bounded): on a loaded machine a fixed second may pass before any is sent.
sleep 1
wait_until 10 "20 echoes dropped as no_route" eval '[ "$(drops no_route)" -ge $((miss0 + 20)) ]'
miss1="$(drops no_route)"
T_ADD=${EPOCHREALTIME}
ip -n "$PE1" route add 10.2.0.0/24 encap seg6 mode encap segs fc00:2::a4 dev tcore table 10 || live_log "route add failed"
check "re-added route is back in srv6d's vrf red" wait_until 10 "10.2.0.0/24 back in table 10" route_in 10 10.2.0.0/24 fc00:2::a4
T_BACK=${EPOCHREALTIME}
sleep 1
touch "$STOP"
wait "$PROBE"
# probe.out: seq, send time, rtt (-1: no reply). The dataplane changed between the last
# answered and the first unanswered echo (10 ms apart), and back between the last unanswered
# and the first answered one after the re-add.
read -r last_ok first_lost last_lost first_back lost < <(awk -v d="$T_DEL" -v a="$T_ADD" '
	$2 < a && $3 != -1 && !fl { lo = $2 }
	$2 >= d && $2 < a && $3 == -1 { n++; if (!fl) fl = $2 }
	$2 >= a && !fb { if ($3 == -1) ll = $2; else fb = $2 }
	END { printf "%s %s %s %s %d\n", (lo ? lo : d), (fl ? fl : "none"), (ll ? ll : a), (fb ? fb : "none"), n }' "$LIVE_WORK/probe.out")
ms() { awk -v a="$1" -v b="$2" 'BEGIN { v = (b - a) * 1000; printf "%.0f", v < 0 ? 0 : v }'; }
if [ "$first_lost" != none ] && [ "$first_back" != none ]; then
	live_log "withdraw: forwarding stopped $(ms "$T_DEL" "$last_ok")-$(ms "$T_DEL" "$first_lost") ms after 'ip route del' (kernel -> zebra -> FPM -> srv6d -> dataplane); srv6ctl showed the route gone after $(ms "$T_DEL" "$T_GONE") ms (polled every 200 ms); $lost echoes lost"
	live_log "restore: forwarding resumed $(ms "$T_ADD" "$last_lost")-$(ms "$T_ADD" "$first_back") ms after 'ip route add'; srv6ctl showed it after $(ms "$T_ADD" "$T_BACK") ms"
fi
check "the withdrawal stopped the traffic (echoes lost, counted as 'no_route' by srv6d)" eval \
	'[ "$lost" -ge 20 ] && [ "$((miss1 - miss0))" -ge 20 ]'
check "the re-added route restored it (echoes answered again, the last 50 all answered)" eval \
	'[ "$first_back" != none ] && [ "$(tail -50 "$LIVE_WORK/probe.out" | awk "\$3 == -1" | wc -l)" -eq 0 ]'
check "CE1-red -> CE2-red IPv4 after the restore" ping4 "$CE1R" 10.2.0.2

srv6ctl show counters >"$LIVE_WORK/counters.txt"
srv6ctl show neighbors >"$LIVE_WORK/neighbors.txt"
cat "$LIVE_WORK/counters.txt" "$LIVE_WORK/neighbors.txt" >&2
# the captures and counters, for the record
[ -n "${LIVE_LOGDIR:-}" ] && cp "$LIVE_WORK"/*.txt "$LIVE_WORK/probe.out" "$LIVE_LOGDIR"/ 2>/dev/null
live_finish
