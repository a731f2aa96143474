#!/usr/bin/env bash
# End-to-end SRv6 L3VPN test: srv6d is PE1 (DPDK on net_af_packet ports, TAP mirrors, its
# SRv6 state from FRR zebra over FPM), the Linux kernel is PE2, two VRFs with overlapping
# customer prefixes.
#
#   sudo tests/live/e2e_kernel_pe_test.sh [BUILD_DIR]
#
#  ce1r 10.1.0.2 fd01::2 ─[vr]  PE1: srv6d, port cr  (vrf red,  tap tcr   10.1.0.1/24 fd01::1/64)
#  ce1b 10.1.0.2 fd01::2 ─[vb]       srv6d, port cb  (vrf blue, tap tcb   10.1.0.1/24 fd01::1/64)
#                                    srv6d, port core (default, tap tcore fc00:12::1/64, mtu 1600)
#                                    zebra -M dplane_fpm_nl; kernel routes (tables 10, 20, main)
#                          [vc] │ core veth, MTU 1600
#                        [core] │
#                               PE2: plain kernel namespace, tunsrc fc00:2::1, no VRF devices:
#  ce2r 10.2.0.2 fd02::2 ─[cer]      iif cer -> table 10, iif ceb -> table 20 (ip rule),
#  ce2b 10.2.0.2 fd02::2 ─[ceb]      End.DX4 / End.DT6 (legacy table) SIDs per VRF
#
#  SIDs    PE1 (srv6d, from FPM)                PE2 (kernel)
#  red     fc00:1::a4 End.DX4 nh4 10.1.0.2 tcr  fc00:2::a4 End.DX4 nh4 10.255.10.2 (routed out of cer)
#          fc00:1::a6 End.DT6 table 10          fc00:2::a6 End.DT6 table 10
#  blue    fc00:1::b4 End.DX4 nh4 10.1.0.2 tcb  fc00:2::b4 End.DX4 nh4 10.255.20.2 (routed out of ceb)
#          fc00:1::b6 End.DT6 table 20          fc00:2::b6 End.DT6 table 20
#  PE1's encap source: srv6d's [encap] source = fc00:1::1; PE2's: ip sr tunsrc fc00:2::1.
#
# Checks: the SRv6 state reaches srv6d over FPM (routes in VRFs red/blue, SIDs active and
# bound); CE1-red <-> CE2-red IPv4 and IPv6 pings in both directions through srv6d (encap at
# PE1, decap at PE2 and the reverse); a capture on the core link shows the configured outer
# source and the installed SID; blue's traffic to the same addresses reaches CE2-blue and
# never CE2-red (captures on both CE2s, srv6d's per-SID and per-port counters); withdrawing
# the kernel route at PE1 (-> zebra -> FPM) stops the traffic, re-adding it restores it (both
# delays logged).
set -u
if [ $# -ge 1 ]; then
	: "${SRV6D:=$1/apps/srv6d}" "${SRV6CTL:=$1/apps/srv6ctl}"
	export SRV6D SRV6CTL
fi
source "$(dirname "$0")/lib.sh"

live_require
for t in ethtool tcpdump; do command -v "$t" >/dev/null || live_die "missing tool: $t"; done
live_init "${LIVE_PREFIX:-s6e-$$}"

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

PE1="$LIVE_PREFIX-pe1"
PE2="$LIVE_PREFIX-pe2"
CE1R="$LIVE_PREFIX-ce1r"
CE1B="$LIVE_PREFIX-ce1b"
CE2R="$LIVE_PREFIX-ce2r"
CE2B="$LIVE_PREFIX-ce2b"
for n in "$PE1" "$PE2" "$CE1R" "$CE1B" "$CE2R" "$CE2B"; do ns_add "$n"; done

# ---- links -----------------------------------------------------------------------------------
veth "$PE1" vr "$CE1R" r0
veth "$PE1" vb "$CE1B" b0
veth "$PE1" vc "$PE2" core
veth "$PE2" cer "$CE2R" r0
veth "$PE2" ceb "$CE2B" b0
ip -n "$PE1" link set vc mtu 1600
ip -n "$PE2" link set core mtu 1600
for d in vr vb vc; do
	# the DPDK side of the veths carries no address of the kernel's: only the TAPs do
	ip netns exec "$PE1" sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1"
done
# kernel endpoints sending into af_packet ports need TX checksums in software (env-probe.md)
ip netns exec "$CE1R" ethtool -K r0 tx off >/dev/null 2>&1
ip netns exec "$CE1B" ethtool -K b0 tx off >/dev/null 2>&1
ip netns exec "$PE2" ethtool -K core tx off >/dev/null 2>&1

# ---- CEs: the same addresses in both VRFs ----------------------------------------------------
for ce in "$CE1R:r0" "$CE1B:b0"; do
	addr "${ce%%:*}" "${ce#*:}" 10.1.0.2/24
	addr "${ce%%:*}" "${ce#*:}" fd01::2/64
	ip -n "${ce%%:*}" route add default via 10.1.0.1
	ip -n "${ce%%:*}" -6 route add default via fd01::1
done
for ce in "$CE2R:r0" "$CE2B:b0"; do
	addr "${ce%%:*}" "${ce#*:}" 10.2.0.2/24
	addr "${ce%%:*}" "${ce#*:}" fd02::2/64
	ip -n "${ce%%:*}" route add default via 10.2.0.1
	ip -n "${ce%%:*}" -6 route add default via fd02::1
done

# ---- PE2: the Linux kernel as the remote PE ---------------------------------------------------
addr "$PE2" core fc00:12::2/64
addr "$PE2" lo fc00:2::1/128
ip netns exec "$PE2" sysctl -qw net.ipv6.conf.core.seg6_enabled=1
ip -n "$PE2" sr tunsrc set fc00:2::1
ip -n "$PE2" -6 route add fc00:1::/48 via fc00:12::1 dev core
pe2_vrf() { # pe2_vrf IF TABLE SID_DX4 SID_DT6 PE1_SID_DX4 PE1_SID_DT6 DX4_SELECTOR
	local i="$1" t="$2"
	addr "$PE2" "$i" 10.2.0.1/24
	addr "$PE2" "$i" fd02::1/64
	# what arrives from this CE is routed in the VRF's table (no VRF devices on this kernel)
	ip -n "$PE2" rule add iif "$i" table "$t" pref $((1000 + t))
	ip -n "$PE2" -6 rule add iif "$i" table "$t" pref $((1000 + t))
	ip -n "$PE2" route add 10.2.0.0/24 dev "$i" table "$t"
	ip -n "$PE2" -6 route add fd02::/64 dev "$i" table "$t"
	# towards PE1: H.Encaps (one SID) to PE1's per-VRF SIDs (served by srv6d)
	ip -n "$PE2" route add 10.1.0.0/24 encap seg6 mode encap segs "$5" dev core table "$t"
	ip -n "$PE2" -6 route add fd01::/64 encap seg6 mode encap segs "$6" dev core table "$t"
	# from PE1: decapsulate into this CE. The kernel's End.DX4 ignores `dev`: it routes nh4
	# in the main table (ip_route_input with the core interface as iif, so no iif rule
	# matches), which for the overlapping 10.2.0.2 would pick one CE for both VRFs. So nh4 is
	# a per-VRF selector address routed out of this CE's interface; as the route to it is
	# connected, the neighbor is the inner destination itself (10.2.0.2 on this interface).
	ip -n "$PE2" route add "$7/32" dev "$i"
	ip -n "$PE2" -6 route add "$3/128" encap seg6local action End.DX4 nh4 "$7" dev "$i"
	ip -n "$PE2" -6 route add "$4/128" encap seg6local action End.DT6 table "$t" dev "$i"
}
pe2_vrf cer 10 fc00:2::a4 fc00:2::a6 fc00:1::a4 fc00:1::a6 10.255.10.2 || live_die "PE2 red setup"
pe2_vrf ceb 20 fc00:2::b4 fc00:2::b6 fc00:1::b4 fc00:1::b6 10.255.20.2 || live_die "PE2 blue setup"

# ---- PE1: srv6d with the DPDK ports, then zebra --------------------------------------------
PORT="$(free_port "$PE1")"
SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
ENCAP_SRC=fc00:1::1
cat >"$LIVE_WORK/srv6d.conf" <<EOF
vrf = red table 10
vrf = blue table 20
[fpm]
listen = 127.0.0.1
port = $PORT
resync-quiet-ms = 1000
[mgmt]
socket = $SRV6D_SOCK
[log]
level = debug
[eal]
args = -l 0 --no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:error
[dataplane]
enabled = true
mbufs = 8191
port = cr net_af_packet0,iface=vr tap=tcr vrf=red
port = cb net_af_packet1,iface=vb tap=tcb vrf=blue
port = core net_af_packet2,iface=vc tap=tcore mtu=1600
[encap]
source = $ENCAP_SRC
EOF
ip netns exec "$PE1" "$SRV6D" -c "$LIVE_WORK/srv6d.conf" >"$LIVE_WORK/srv6d.log" 2>&1 &
SRV6D_PID=$!
echo "$SRV6D_PID" >"$LIVE_WORK/srv6d.pid"
LIVE_PIDS+=("$SRV6D_PID")
wait_until 20 "srv6d up with its TAPs" eval "[ -S $SRV6D_SOCK ] && ip -n $PE1 link show tcore >/dev/null" ||
	{ tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
for t in tcr tcb tcore; do ip -n "$PE1" link set "$t" up; done
# The TAPs are in the kernel's main table (no VRF devices here), so the customer subnets may
# overlap on them: the kernel only answers ARP/ND on the TAP the request came in on.
addr "$PE1" tcr 10.1.0.1/24
addr "$PE1" tcr fd01::1/64
addr "$PE1" tcb 10.1.0.1/24
addr "$PE1" tcb fd01::1/64
addr "$PE1" tcore fc00:12::1/64

sed "s/^fpm address 127.0.0.1 port 2620\$/fpm address 127.0.0.1 port $PORT/; s/^hostname .*/hostname pe1/" \
	"$LIVE_REPO/frr-conf/zebra.conf" >"$LIVE_WORK/pe1-zebra.conf"
frr_start "$PE1" zebra "$LIVE_WORK/pe1-zebra.conf" -M dplane_fpm_nl
# FRR 8.4.4 does not replay the routes of non-main tables on connect: add them once zebra is
# connected, so that they go out live.
rib_compare fpm --connections 1 --connected --timeout 15 >/dev/null || live_die "zebra did not connect to srv6d"

# PE1's SRv6 state, as kernel routes zebra learns and relays over FPM (frr-conf/l3vpn-pe.sh
# explains each line).
source "$LIVE_REPO/frr-conf/l3vpn-pe.sh"
l3vpn_pe_routes "$PE1" || live_die "PE1's kernel routes could not be added"

# ---- the SRv6 state arrived over FPM ------------------------------------------------------------
route_in() { # route_in TABLE PREFIX [SID]: srv6d has it (with that seg6 SID)
	srv6ctl show routes --json | jq -e --arg t "$1" --arg p "$2" --arg s "${3:-}" \
		'.[$t][]? | select(.prefix == $p) | select($s == "" or (tostring | contains($s)))' >/dev/null
}
sid_ok() { # sid_ok SID BEHAVIOR VRF
	srv6ctl show sids --json | jq -e --arg p "$1/128" --arg b "$2" --arg v "$3" \
		'.sids[] | select(.prefix == $p and .state == "active" and (tostring | contains($b)) and ($v == "-" or .vrf == $v))' >/dev/null
}
all_state() {
	route_in 10 10.2.0.0/24 fc00:2::a4 && route_in 10 fd02::/64 fc00:2::a6 &&
		route_in 20 10.2.0.0/24 fc00:2::b4 && route_in 20 fd02::/64 fc00:2::b6 &&
		route_in 10 10.1.0.0/24 && route_in 10 fd01::/64 && route_in 20 10.1.0.0/24 &&
		route_in 20 fd01::/64 && route_in 254 fc00:2::/48 &&
		sid_ok fc00:1::a4 End.DX4 - && sid_ok fc00:1::b4 End.DX4 - &&
		sid_ok fc00:1::a6 End.DT6 red && sid_ok fc00:1::b6 End.DT6 blue
}
check "zebra relayed the VRF routes (tables 10, 20) and SIDs over FPM; DT6 SIDs bound to red/blue" \
	wait_until 20 "routes and SIDs in srv6d" all_state
srv6ctl show routes >"$LIVE_WORK/routes.txt" 2>&1
srv6ctl show sids | tee "$LIVE_WORK/sids.txt" >&2
check "encap source is the configured one" eval \
	"srv6ctl show encap-source --json | jq -e '.address == \"$ENCAP_SRC\" and .origin == \"config\"' >/dev/null"

# ---- neighbors: the kernel resolves, srv6d mirrors ---------------------------------------------
ping4() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c "${3:-3}" -W 2 "$2"; }
ping6() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -6 -c "${3:-3}" -W 2 "$2"; }
# PE1's kernel pings PE2 over the core TAP: ND through the kernel; srv6d then has fc00:12::2
check "PE1's kernel reaches PE2 across the core port (ND through the kernel)" ping6 "$PE1" fc00:12::2
neigh_in() { srv6ctl show neighbors --json | jq -e --arg p "$1" --arg a "$2" '.neighbors[] | select(.port == $p and .address == $a)' >/dev/null; }
check "srv6d mirrors the core neighbor" wait_until 5 "fc00:12::2 in srv6d" neigh_in core fc00:12::2
# The first packets towards a CE whose address the kernel has not learned yet are dropped
# after decapsulation (neigh_unresolved; docs/host-path.md): a CE's first ARP/ND for its
# gateway makes the kernel learn it. Warm up each pair with bounded retries.
warm() {
	local end=$((SECONDS + 15))
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || { live_log "warm-up failed: $*"; return 1; }
		sleep 0.2
	done
}
warm ping4 "$CE1R" 10.2.0.2 1
warm ping6 "$CE1R" fd02::2 1
warm ping4 "$CE1B" 10.2.0.2 1
warm ping6 "$CE1B" fd02::2 1

# ---- red: both directions, IPv4 and IPv6 ---------------------------------------------------------
cnt() { # cnt PORT|SID FIELD
	srv6ctl show counters --json | jq -r --arg n "$1" \
		'([.ports[]? | select(.name == $n) | .'"$2"'] + [.sids[]? | select(.prefix == ($n + "/128")) | .'"$2"'] + ["0"])[0] | tonumber'
}
srv6ctl clear counters >/dev/null
check "CE1-red -> CE2-red IPv4 (srv6d H.Encaps, PE2 End.DX4)" ping4 "$CE1R" 10.2.0.2
check "CE1-red -> CE2-red IPv6 (srv6d H.Encaps, PE2 End.DT6 table 10)" ping6 "$CE1R" fd02::2
check "CE2-red -> CE1-red IPv4 (PE2 H.Encaps, srv6d End.DX4)" ping4 "$CE2R" 10.1.0.2
check "CE2-red -> CE1-red IPv6 (PE2 H.Encaps, srv6d End.DT6 in vrf red)" ping6 "$CE2R" fd01::2
srv6ctl show counters | tee "$LIVE_WORK/counters-red.txt" >&2
check "srv6d did it: red SIDs decapsulated 6+6, core tx >= 12, cr tx >= 12, blue SIDs and port cb idle (injected ARP/ND aside)" eval \
	'[ "$(cnt fc00:1::a4 packets)" -ge 6 ] && [ "$(cnt fc00:1::a6 packets)" -ge 6 ] &&
	 [ "$(cnt core txPackets)" -ge 12 ] && [ "$(cnt cr txPackets)" -ge 12 ] &&
	 [ "$(cnt fc00:1::b4 packets)" -eq 0 ] && [ "$(cnt fc00:1::b6 packets)" -eq 0 ] && [ "$(($(cnt cb txPackets) - $(cnt cb injected)))" -eq 0 ]'

# ---- captures -------------------------------------------------------------------------------------
CAPS=()
cap_start() { # cap_start NS IF FILE FILTER...
	local ns="$1" i="$2" f="$3"
	shift 3
	ip netns exec "$ns" tcpdump -i "$i" -nn -U --immediate-mode -s 256 -w "$f" "$@" >"$f.err" 2>&1 &
	CAPS+=($!)
	LIVE_PIDS+=($!)
	wait_until 5 "tcpdump on $ns/$i" grep -q "listening on" "$f.err" || live_log "tcpdump $ns/$i did not start"
}
cap_stop() {
	local p
	sleep 0.3
	for p in "${CAPS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${CAPS[@]}"; do live_wait_gone "$p" 5; wait "$p" 2>/dev/null; done
	CAPS=()
}
cap_read() { tcpdump -r "$1" -nn 2>/dev/null; }
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
	 [ "$(cnt fc00:1::a4 packets)" -eq 0 ] && [ "$(cnt fc00:1::a6 packets)" -eq 0 ] && [ "$(($(cnt cr txPackets) - $(cnt cr injected)))" -eq 0 ]'

# ---- withdraw and restore a route: kernel -> zebra -> FPM -> srv6d -> dataplane --------------
STOP="$LIVE_WORK/probe.stop"
ip netns exec "$CE1R" "$LIVE_PY" "$LIVE_HOME/icmp_probe.py" -i 0.01 -t 40 "$STOP" 10.2.0.2 >"$LIVE_WORK/probe.out" 2>&1 &
PROBE=$!
LIVE_PIDS+=("$PROBE")
sleep 1
miss0="$(srv6ctl show counters --json | jq -r '.drops[] | select(.reason == "no_route") | .packets | tonumber')"
T_DEL=${EPOCHREALTIME}
ip -n "$PE1" route del 10.2.0.0/24 table 10 || live_log "route del failed"
check "withdrawn route left srv6d's vrf red" wait_until 10 "10.2.0.0/24 gone from table 10" eval '! route_in 10 10.2.0.0/24'
T_GONE=${EPOCHREALTIME}
sleep 1
miss1="$(srv6ctl show counters --json | jq -r '.drops[] | select(.reason == "no_route") | .packets | tonumber')"
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
if [ "$FAILS" -ne 0 ]; then
	live_log "$FAILS check(s) FAILED (logs: ${LIVE_LOGDIR:-set LIVE_LOGDIR to keep them})"
	exit 1
fi
live_log "all checks passed"
