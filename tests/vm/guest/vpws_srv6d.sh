#!/usr/bin/env bash
# VPWS (RFC 8986 L2VPN) between srv6d and the Linux kernel, run INSIDE the VM (tests/vm/
# vpws_test.sh boots it): srv6d's H.Encaps.L2 from a port- and a VLAN-based circuit to the
# kernel's End.DX2, and the kernel's H.Encaps.L2 to srv6d's End.DX2, both directions.
#
#   guest/vpws_srv6d.sh BUILD_DIR          (as root, in a kernel with seg6)
#
#  CE1 c1 10.50.0.1 fd50::1 ─[a1] ac1      srv6d PE1 (frr-conf/srv6d-vpws-pe.conf as is)
#  CE1 c2.100 10.60.0.1 ────[a2] ac2.100   pw1: ac1 -> fc00:0:2::d1, pw2: ac2.100 -> fc00:0:2::d2 (.L2.Red)
#                                           End.DX2 fc00:0:1::d1 -> ac1, fc00:0:1::d2 -> ac2.100
#                                 [vc] core, TAP tcore fc00:12::1; zebra + staticd (frr-conf/vpws-pe-frr.conf)
#                                   │
#                                 [core] PE2: the Linux kernel (frr-conf/vpws-linux-pe.sh): End.DX2
#  CE2 d1 10.50.0.2 fd50::2 ─[x1]          to x1 / x2, H.Encaps.L2 of what it routes from them
#  CE2 d2 10.60.0.2 ────────[x2]
#
# Linux encapsulates a frame only when it routes it (an l2encap route), so PE2's circuits carry
# the CEs' MAC addresses (x1 = CE1's c1, x2 = CE1's c2: CE2's frames to CE1 are PE2's to route)
# and the CEs have static neighbors (the kernel carries no ARP/ND into l2encap). srv6d carries
# every frame of its circuits, ARP and a customer's own VLAN tag included.
# Checks (deadline-based; exit 0 only if every one passed):
#   1. both services active in srv6d with the configured source; both End.DX2 SIDs active
#   2. CE1 <-> CE2 over pw1 (untagged), IPv4 and IPv6, both directions (ping and reply);
#      the core capture shows srv6d's H.Encaps.L2 (next header 43/143, SRH with fc00:0:2::d1)
#      and PE2's to fc00:0:1::d1
#   3. CE1 (VLAN 100) <-> CE2 (untagged) over pw2: srv6d pops the tag into .L2.Red (no SRH:
#      next header 143) and pushes it back at End.DX2
#   4. port mode is transparent: a CE1 frame tagged 300 and CE1's ARP reach CE2 as they were
#   5. srv6ctl show l2vpn / show sids: the circuits' and the SIDs' counters moved
set -u
BUILD="${1:?usage: vpws_srv6d.sh BUILD_DIR}"
export SRV6D="$BUILD/apps/srv6d" SRV6CTL="$BUILD/apps/srv6ctl"
LIVE_DIR="${VM_REPO:?VM_REPO is set by vpws_test.sh}/tests/live"
source "$LIVE_DIR/lib.sh"
LIVE_HOME="$LIVE_DIR"
OUT="${VM_OUT:-/tmp/vm-out}"
mkdir -p "$OUT"
LIVE_LOGDIR="$OUT/logs"
LIVE_CAP_WAIT=20 LIVE_CAP_SETTLE=2
live_require
for t in ethtool tcpdump modprobe jq; do command -v "$t" >/dev/null || live_die "missing tool: $t"; done
modprobe tun || live_die "modprobe tun"
modprobe 8021q 2>/dev/null
live_init s6w
live_dump_vm() {
	mkdir -p "$LIVE_LOGDIR"
	cp "$LIVE_WORK"/*.txt "$LIVE_WORK"/*.log "$LIVE_WORK"/*.pcap "$LIVE_WORK"/*.json "$LIVE_LOGDIR"/ 2>/dev/null
	[ -S "${SRV6D_SOCK:-}" ] && for w in l2vpn sids counters routes; do
		srv6ctl show "$w" >"$LIVE_LOGDIR/srv6ctl-show-$w.txt" 2>&1
	done
	return 0
}
trap 'rc=$?; live_dump_vm; (exit $rc); live_cleanup' EXIT
wait_for() { # wait_for SECONDS DESCRIPTION CMD...: TCG is slow, count time
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000)) what="$2"
	shift 2
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || break
		sleep 0.3
	done
	live_log "timeout after ${1:-?}s waiting for: $what"
	return 1
}
mac_of() { cat "/sys/class/net/$2/address" 2>/dev/null || ip netns exec "$1" cat "/sys/class/net/$2/address"; }
nsmac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

PE1=s6w-pe1 PE2=s6w-pe2 CE1=s6w-ce1 CE2=s6w-ce2
for n in "$PE1" "$PE2" "$CE1" "$CE2"; do ns_add "$n"; done
dut_link "$PE1" a1 "$CE1" c1
dut_link "$PE1" a2 "$CE1" c2
dut_link "$PE1" vc "$PE2" core
veth "$PE2" x1 "$CE2" d1
veth "$PE2" x2 "$CE2" d2
for i in c1 c2; do ip netns exec "$CE1" ethtool -K "$i" tx off txvlan off >/dev/null 2>&1; done
ip -n "$CE1" link add link c2 name c2.100 type vlan id 100 || live_die "VLAN device c2.100"
ip -n "$CE1" link add link c1 name c1.300 type vlan id 300 || live_die "VLAN device c1.300"
ip -n "$CE2" link add link d1 name d1.300 type vlan id 300 || live_die "VLAN device d1.300"
for l in "$CE1 c2.100" "$CE1 c1.300" "$CE2 d1.300"; do ip -n ${l% *} link set ${l#* } up; done
addr "$CE1" c1 10.50.0.1/24
addr "$CE1" c1 fd50::1/64
addr "$CE1" c2.100 10.60.0.1/24
addr "$CE1" c1.300 10.70.0.1/24
addr "$CE2" d1 10.50.0.2/24
addr "$CE2" d1 fd50::2/64
addr "$CE2" d2 10.60.0.2/24
addr "$CE2" d1.300 10.70.0.2/24
# PE2's circuits take CE1's MACs (Linux l2encap carries only what it routes), the CEs know each
# other statically (no ARP/ND through Linux's l2encap).
C1=$(nsmac "$CE1" c1) C2=$(nsmac "$CE1" c2) D1=$(nsmac "$CE2" d1) D2=$(nsmac "$CE2" d2)
ip -n "$PE2" link set x1 address "$C1"
ip -n "$PE2" link set x2 address "$C2"
ip -n "$CE1" neigh add 10.50.0.2 lladdr "$D1" dev c1 nud permanent
ip -n "$CE1" -6 neigh add fd50::2 lladdr "$D1" dev c1 nud permanent
ip -n "$CE1" neigh add 10.60.0.2 lladdr "$D2" dev c2.100 nud permanent
ip -n "$CE1" neigh add 10.70.0.2 lladdr "$D1" dev c1.300 nud permanent
ip -n "$CE2" neigh add 10.50.0.1 lladdr "$C1" dev d1 nud permanent
ip -n "$CE2" -6 neigh add fd50::1 lladdr "$C1" dev d1 nud permanent
ip -n "$CE2" neigh add 10.60.0.1 lladdr "$C2" dev d2 nud permanent
addr "$PE2" core fc00:12::2/64
# the routed IPv4 needs an IPv4 device on the circuits
addr "$PE2" x1 10.250.1.1/32
addr "$PE2" x2 10.250.2.1/32
ip netns exec "$PE2" sh "$VM_REPO/frr-conf/vpws-linux-pe.sh" >"$LIVE_WORK/pe2-setup.txt" 2>&1 ||
	{ cat "$LIVE_WORK/pe2-setup.txt" >&2; live_die "frr-conf/vpws-linux-pe.sh failed in PE2"; }
for i in x1 x2; do ip netns exec "$PE2" sysctl -qw "net.ipv4.conf.$i.rp_filter=0"; done

# ---- PE1: srv6d with the example config as it is, zebra + staticd for the peer's locator
SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
ip netns exec "$PE1" "$SRV6D" -c "$VM_REPO/frr-conf/srv6d-vpws-pe.conf" --mgmt.socket "$SRV6D_SOCK" \
	>>"$LIVE_WORK/srv6d.log" 2>&1 &
SRV6D_PID=$!
LIVE_PIDS+=("$SRV6D_PID")
srv6d_up() { [ -S "$SRV6D_SOCK" ] && ip -n "$PE1" link show tcore >/dev/null 2>&1; }
wait_for 90 "srv6d up" srv6d_up || { tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
ip -n "$PE1" link set tcore up
addr "$PE1" tcore fc00:12::1/64
awk -v dir="$LIVE_WORK" '/^! ---- (zebra|staticd)/ { f = dir "/pe1-" $3 ".conf"; next } f { print > f }' \
	"$VM_REPO/frr-conf/vpws-pe-frr.conf"
frr_start "$PE1" zebra "$LIVE_WORK/pe1-zebra.conf" -M dplane_fpm_nl
frr_start "$PE1" staticd "$LIVE_WORK/pe1-staticd.conf"

# ---- 1. services and SIDs
l2vpn_json() { srv6ctl show l2vpn --json >"$LIVE_WORK/l2vpn.json"; }
svc() { # svc NAME JQ-CONDITION
	l2vpn_json && jq -e --arg n "$1" ".services[] | select(.name == \$n) | $2" "$LIVE_WORK/l2vpn.json" >/dev/null
}
check "pw1 active, H.Encaps.L2 from the configured source" svc pw1 \
	'select(.state == "active" and .mode == "H.Encaps.L2" and .source == "fc00:0:1::1")'
check "pw2 active, H.Encaps.L2.Red" svc pw2 'select(.state == "active" and .mode == "H.Encaps.L2.Red")'
sids_active() {
	srv6ctl show sids --json >"$LIVE_WORK/sids.json" &&
		[ "$(jq '[.sids[] | select((.prefix | test("^fc00:0:1::d[12]/128$")) and .state == "active")] | length' "$LIVE_WORK/sids.json")" = 2 ]
}
check "both End.DX2 SIDs active in srv6d" wait_for 20 "End.DX2 SIDs" sids_active
route_in() { srv6ctl show routes --json | jq -e '.["254"][]? | select(.prefix == "fc00:0:2::/48")' >/dev/null; }
check "zebra gave srv6d the route to PE2's locator" wait_for 60 "fc00:0:2::/48 in srv6d" route_in
srv6ctl show l2vpn >&2
# the first exchange resolves PE2 on the core (ND through the TAP): give it a few tries
wait_for 60 "CE1 -> CE2 over pw1" ping4 "$CE1" 10.50.0.2 1

# ---- 2. pw1, untagged, both families, both directions (with the core's view of it)
cap_start "$PE2" core "$LIVE_WORK/core.pcap" ip6
check "CE1 -> CE2 IPv4 over pw1 (srv6d H.Encaps.L2, Linux End.DX2; the reply: the reverse)" ping4 "$CE1" 10.50.0.2 3
check "CE2 -> CE1 IPv4 over pw1 (Linux H.Encaps.L2, srv6d End.DX2)" ping4 "$CE2" 10.50.0.1 3
check "CE1 -> CE2 IPv6 over pw1" ping6 "$CE1" fd50::2 3
check "CE2 -> CE1 IPv6 over pw1" ping6 "$CE2" fd50::1 3
# ---- 3. pw2: VLAN 100 on srv6d's side, untagged on Linux's
check "CE1 (VLAN 100) -> CE2 over pw2 (.L2.Red)" ping4 "$CE1" 10.60.0.2 3
check "CE2 -> CE1 (VLAN 100) over pw2" ping4 "$CE2" 10.60.0.1 3
cap_stop
tcpdump -r "$LIVE_WORK/core.pcap" -nn -v 2>/dev/null >"$LIVE_WORK/core.txt"
check "core: srv6d's H.Encaps.L2 from fc00:0:1::1 to fc00:0:2::d1 with an SRH" \
	eval "grep -A1 'fc00:0:1::1 > fc00:0:2::d1' '$LIVE_WORK/core.txt' | grep -q 'segleft=0.*fc00:0:2::d1'"
check "core: srv6d's H.Encaps.L2.Red to fc00:0:2::d2 carries the frame right after the IPv6 header (143)" \
	eval "tcpdump -r '$LIVE_WORK/core.pcap' -nn 'ip6 dst fc00:0:2::d2 and ip6[6] == 143' 2>/dev/null | grep -q ."
check "core: PE2's H.Encaps.L2 to srv6d's End.DX2 SIDs" \
	eval "grep -q 'fc00:0:2::1 > fc00:0:1::d1' '$LIVE_WORK/core.txt' && grep -q 'fc00:0:2::1 > fc00:0:1::d2' '$LIVE_WORK/core.txt'"

# ---- 4. port mode: a customer tag and ARP go through as they were
cap_start "$CE2" d1 "$LIVE_WORK/ce2.pcap"
ip netns exec "$CE1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 2 -W 1 10.70.0.2 >/dev/null 2>&1
ip netns exec "$CE1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 10.50.0.99 >/dev/null 2>&1  # ARPs
cap_stop
tcpdump -r "$LIVE_WORK/ce2.pcap" -nn -e 2>/dev/null >"$LIVE_WORK/ce2.txt"
check "CE1's VLAN 300 frame reached CE2 with its tag (port-based circuit)" \
	grep -q "vlan 300.*10.70.0.1 > 10.70.0.2: ICMP echo request" "$LIVE_WORK/ce2.txt"
check "CE1's ARP request reached CE2 (srv6d carries non-IP frames)" grep -q "Request who-has 10.50.0.99" "$LIVE_WORK/ce2.txt"

# ---- 5. counters
check "srv6ctl show l2vpn: pw1's circuit counted frames both ways" svc pw1 'select(.rxPackets > 0 and .txPackets > 0)'
check "srv6ctl show l2vpn: pw2's circuit counted frames both ways" svc pw2 'select(.rxPackets > 0 and .txPackets > 0)'
dx2_counted() {
	srv6ctl show sids --json >"$LIVE_WORK/sids.json" &&
		[ "$(jq '[.sids[] | select((.prefix | test("^fc00:0:1::d[12]/128$")) and .packets > 0)] | length' "$LIVE_WORK/sids.json")" = 2 ]
}
check "both End.DX2 SIDs counted packets" dx2_counted
srv6ctl show l2vpn >&2
srv6ctl show counters >"$LIVE_WORK/counters.txt" 2>&1
live_finish
