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
#
# The same boot also runs srv6d as a headend and a binding SID against kernel End nodes (the
# srv6d config is the example file with the sections below appended: a routed port `rt` with
# a TAP mirror, a binding SID, an H.Insert route of srv6d's own [routes]):
#
#  H h0 fd60::2 ─[a3] rt (TAP trt fd60::1)  srv6d PE1 ── core ── PE2 (kernel)  ── PE3 (kernel) ─ CE3 c3
#                                                               End fc00:0:2::e    End fc00:0:3::e   fd63::2
#                                                               End fc00:0:2::e2   End.DT6 ::d0 (254)  fd64::2
#                                                                                  End.DT6 ::d6 (table 100)
#   6. H.Insert from srv6d's [routes] (`fd63::/64 mode inline segs fc00:0:2::e,fc00:0:3::e`):
#      H -> CE3 gets an SRH [fd63::2, fc00:0:3::e, fc00:0:2::e] in srv6d, both kernel End
#      nodes count it, CE3 receives it with the SRH (segleft 0) and answers (plain IPv6 back)
#   7. binding SID: H's kernel encapsulates to [fc00:0:1::b6 (srv6d's End.B6.Encaps),
#      fc00:0:3::d6 (PE3's VPN SID)]; srv6d's End moves it to fc00:0:3::d6 and pushes its
#      policy [fc00:0:2::e, fc00:0:3::d0] from fc00:0:1::1: PE2's End, PE3's End.DT6 (the
#      policy's header off), PE3's End.DT6 table 100 (H's header off), CE3
#   8. the policy changes by a reload (segs fc00:0:2::e2,fc00:0:3::d0 mode encap.red): the
#      binding SID's next packets take fc00:0:2::e2 (H.Encaps.Red), fc00:0:2::e no more; H's
#      route and srv6d's other routes untouched
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

# ---- headend and binding SID: H behind srv6d's routed port rt, PE3 (End, End.DT6) behind PE2
H=s6w-h PE3=s6w-pe3 CE3=s6w-ce3
for n in "$H" "$PE3" "$CE3"; do ns_add "$n"; done
dut_link "$PE1" a3 "$H" h0
veth "$PE2" p23 "$PE3" p32
veth "$PE3" p3c "$CE3" c3
addr "$H" h0 fd60::2/64
ip -n "$H" -6 route add default via fd60::1 dev h0
ip netns exec "$H" ip sr tunsrc set fd60::2
# H steers fd64::/64 into srv6d's binding SID, then PE3's VPN SID (a VPN route by BSID).
ip -n "$H" -6 route add fd64::/64 encap seg6 mode encap segs fc00:0:1::b6,fc00:0:3::d6 dev h0
addr "$PE2" p23 fc00:23::2/64
ip -n "$PE2" -6 route add fc00:0:3::/48 via fc00:23::3 dev p23
ip -n "$PE2" -6 route add fd63::/64 via fc00:23::3 dev p23
ip -n "$PE2" -6 route add fd60::/64 via fc00:12::1 dev core
for e in e e2; do
	ip -n "$PE2" -6 route add "fc00:0:2::$e/128" encap seg6local action End count dev core
done
addr "$PE3" p32 fc00:23::3/64
addr "$PE3" p3c fd63::1/64
addr "$PE3" p3c fd64::1/64
ip netns exec "$PE3" sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.p32.seg6_enabled=1
ip -n "$PE3" -6 route add default via fc00:23::2 dev p32
ip -n "$PE3" -6 route add fc00:0:3::e/128 encap seg6local action End count dev p32
# the policy's last SID: its header off, H's packet routed in the main table to ...
ip -n "$PE3" -6 route add fc00:0:3::d0/128 encap seg6local action End.DT6 table 254 count dev p32
# ... the VPN SID: H's header off, the customer's packet routed in table 100
ip -n "$PE3" -6 route add fc00:0:3::d6/128 encap seg6local action End.DT6 table 100 count dev p32
ip -n "$PE3" -6 route add fd64::/64 dev p3c table 100
addr "$CE3" c3 fd63::2/64
addr "$CE3" c3 fd64::2/64
ip -n "$CE3" -6 route add default via fd63::1 dev c3
# CE3 takes H.Insert's packets with their SRH (segments left 0) only with seg6 enabled
ip netns exec "$CE3" sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.c3.seg6_enabled=1

# ---- PE1: srv6d with the example config as it is plus the headend sections, zebra + staticd
# for the peer's locator
SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
SRV6D_CONF="$LIVE_WORK/srv6d.conf"
srv6d_conf() { # srv6d_conf POLICY: the example file, then the routed port, the BSID, [routes]
	cat "$VM_REPO/frr-conf/srv6d-vpws-pe.conf"
	cat <<-EOC

		[dataplane]
		port = rt net_af_packet3,iface=a3 tap=trt
		[sids]
		sid = fc00:0:1::b6 End.B6.Encaps $1
		[routes]
		route = fd63::/64 mode inline segs fc00:0:2::e,fc00:0:3::e
	EOC
}
srv6d_conf "segs fc00:0:2::e,fc00:0:3::d0" >"$SRV6D_CONF"
ip netns exec "$PE1" "$SRV6D" -c "$SRV6D_CONF" --mgmt.socket "$SRV6D_SOCK" \
	>>"$LIVE_WORK/srv6d.log" 2>&1 &
SRV6D_PID=$!
LIVE_PIDS+=("$SRV6D_PID")
srv6d_up() { [ -S "$SRV6D_SOCK" ] && ip -n "$PE1" link show tcore >/dev/null 2>&1 && ip -n "$PE1" link show trt >/dev/null 2>&1; }
wait_for 90 "srv6d up" srv6d_up || { tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
ip -n "$PE1" link set tcore up
addr "$PE1" tcore fc00:12::1/64
ip -n "$PE1" link set trt up
addr "$PE1" trt fd60::1/64
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

# ---- 6. H.Insert from srv6d's own [routes] line, through the kernel's End nodes
kcount() { # kcount NS SID: packets the kernel's seg6local route counted
	ip -n "$1" -s -6 route show "$2" | sed -n 's/.* packets \([0-9]*\) .*/\1/p'
}
srv6_counter() { srv6ctl show counters | awk -v b="$1" '$1 == b { print $2 }'; }
config_route() {
	srv6ctl show routes --json >"$LIVE_WORK/routes.json" &&
		jq -e '.["254"][]? | select(.prefix == "fd63::/64" and .protocolName == "config")' "$LIVE_WORK/routes.json" >/dev/null
}
check "show routes: the [routes] line as a config route (fd63::/64, protocol config)" config_route
h_route() { srv6ctl show routes --json | jq -e '.["254"][]? | select(.prefix == "fd60::/64")' >/dev/null; }
check "zebra gave srv6d H's subnet (fd60::/64 on trt)" wait_for 60 "fd60::/64 in srv6d" h_route
wait_for 60 "H -> CE3 (H.Insert)" ping6 "$H" fd63::2 1
e0=$(kcount "$PE2" fc00:0:2::e/128) f0=$(kcount "$PE3" fc00:0:3::e/128) i0=$(srv6_counter H.Insert)
cap_start "$PE2" core "$LIVE_WORK/core-insert.pcap" ip6
cap_start "$CE3" c3 "$LIVE_WORK/ce3-insert.pcap" ip6
check "H -> CE3 through srv6d's H.Insert, PE2's End, PE3's End (and back)" ping6 "$H" fd63::2 3
cap_stop
tcpdump -r "$LIVE_WORK/core-insert.pcap" -nn -v 2>/dev/null >"$LIVE_WORK/core-insert.txt"
tcpdump -r "$LIVE_WORK/ce3-insert.pcap" -nn -v 2>/dev/null >"$LIVE_WORK/ce3-insert.txt"
check "core: H's own source to fc00:0:2::e, SRH segleft 2 [fd63::2, fc00:0:3::e, fc00:0:2::e] (H.Insert)" \
	eval "grep -A1 'fd60::2 > fc00:0:2::e:' '$LIVE_WORK/core-insert.txt' | grep -q 'segleft=2.*\\[0\\]fd63::2, \\[1\\]fc00:0:3::e, \\[2\\]fc00:0:2::e)'"
check "CE3 received the echo requests with the SRH, segleft 0" \
	eval "grep -A1 'fd60::2 > fd63::2:' '$LIVE_WORK/ce3-insert.txt' | grep -q 'segleft=0'"
check "the kernel End nodes counted them (PE2 fc00:0:2::e, PE3 fc00:0:3::e)" \
	eval "[ \$((\$(kcount $PE2 fc00:0:2::e/128) - $e0)) -ge 3 ] && [ \$((\$(kcount $PE3 fc00:0:3::e/128) - $f0)) -ge 3 ]"
check "srv6d counted H.Insert" eval "[ \$((\$(srv6_counter H.Insert) - ${i0:-0})) -ge 3 ]"

# ---- 7. the binding SID: H's VPN route through srv6d's End.B6.Encaps, PE2's End, PE3
bsid_json() { srv6ctl show sids --json >"$LIVE_WORK/sids.json"; }
bsid() { bsid_json && jq -e ".sids[] | select(.prefix == \"fc00:0:1::b6/128\") | $1" "$LIVE_WORK/sids.json" >/dev/null; }
check "binding SID fc00:0:1::b6 active with its policy [fc00:0:2::e, fc00:0:3::d0]" \
	bsid 'select(.state == "active" and (.seg6local.srh.segments | join(",")) == "fc00:0:2::e,fc00:0:3::d0")'
bsid_packets() { bsid_json && jq '.sids[] | select(.prefix == "fc00:0:1::b6/128") | .packets // 0' "$LIVE_WORK/sids.json"; }
wait_for 30 "H -> CE3 by the binding SID" ping6 "$H" fd64::2 1
e0=$(kcount "$PE2" fc00:0:2::e/128) d0=$(kcount "$PE3" fc00:0:3::d0/128) d6=$(kcount "$PE3" fc00:0:3::d6/128) b0=$(bsid_packets)
cap_start "$PE2" core "$LIVE_WORK/core-bsid.pcap" ip6
check "H -> CE3 (fd64::2) by the binding SID and back" ping6 "$H" fd64::2 3
cap_stop
tcpdump -r "$LIVE_WORK/core-bsid.pcap" -nn -v 2>/dev/null >"$LIVE_WORK/core-bsid.txt"
check "core: srv6d's policy header from fc00:0:1::1 to fc00:0:2::e, SRH [fc00:0:3::d0, fc00:0:2::e], H's packet inside to fc00:0:3::d6" \
	eval "grep -A3 'fc00:0:1::1 > fc00:0:2::e:' '$LIVE_WORK/core-bsid.txt' | grep -q 'segleft=1.*\\[0\\]fc00:0:3::d0, \\[1\\]fc00:0:2::e)' && grep -q 'fd60::2 > fc00:0:3::d6' '$LIVE_WORK/core-bsid.txt'"
check "counted: srv6d's binding SID, PE2's End, PE3's End.DT6 d0 and d6" \
	eval "[ \$((\$(bsid_packets) - $b0)) -ge 3 ] && [ \$((\$(kcount $PE2 fc00:0:2::e/128) - $e0)) -ge 3 ] && [ \$((\$(kcount $PE3 fc00:0:3::d0/128) - $d0)) -ge 3 ] && [ \$((\$(kcount $PE3 fc00:0:3::d6/128) - $d6)) -ge 3 ]"

# ---- 8. the policy changes (a reload), the routes that use the binding SID do not
srv6ctl show routes --json | jq -S '.["254"]' >"$LIVE_WORK/routes-before.json"
h_before=$(ip -n "$H" -6 route show fd64::/64)
srv6d_conf "segs fc00:0:2::e2,fc00:0:3::d0 mode encap.red" >"$SRV6D_CONF"
t0=${EPOCHREALTIME/./}
kill -HUP "$SRV6D_PID"
check "after the reload: the binding SID's policy is [fc00:0:2::e2, fc00:0:3::d0], H.Encaps.Red" \
	wait_for 30 "the new policy" bsid 'select(.state == "active" and .seg6local.srh.mode == "H.Encaps.Red" and (.seg6local.srh.segments | join(",")) == "fc00:0:2::e2,fc00:0:3::d0")'
live_log "policy change visible in show sids after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
grep 'reload:' "$LIVE_WORK/srv6d.log" | tail -2 >&2
e0=$(kcount "$PE2" fc00:0:2::e/128) e2=$(kcount "$PE2" fc00:0:2::e2/128) b0=$(bsid_packets)
cap_start "$PE2" core "$LIVE_WORK/core-bsid2.pcap" ip6
check "H -> CE3 by the binding SID over the new path" ping6 "$H" fd64::2 3
cap_stop
tcpdump -r "$LIVE_WORK/core-bsid2.pcap" -nn -v 2>/dev/null >"$LIVE_WORK/core-bsid2.txt"
check "core: the new policy, H.Encaps.Red to fc00:0:2::e2 (SRH [fc00:0:3::d0] alone), none to fc00:0:2::e" \
	eval "grep -A3 'fc00:0:1::1 > fc00:0:2::e2:' '$LIVE_WORK/core-bsid2.txt' | grep -q 'segleft=1, last-entry=0.*\\[0\\]fc00:0:3::d0)' && ! grep -q 'fc00:0:1::1 > fc00:0:2::e:' '$LIVE_WORK/core-bsid2.txt'"
check "counted: PE2's End fc00:0:2::e2 (not ::e), srv6d's binding SID" \
	eval "[ \$((\$(kcount $PE2 fc00:0:2::e2/128) - $e2)) -ge 3 ] && [ \$(kcount $PE2 fc00:0:2::e/128) -eq $e0 ] && [ \$((\$(bsid_packets) - $b0)) -ge 3 ]"
same_routes() {
	srv6ctl show routes --json | jq -S '.["254"]' >"$LIVE_WORK/routes-after.json" &&
		diff <(jq -S 'map(select(.prefix != "fc00:0:1::b6/128"))' "$LIVE_WORK/routes-before.json") \
			<(jq -S 'map(select(.prefix != "fc00:0:1::b6/128"))' "$LIVE_WORK/routes-after.json") >&2 &&
		[ "$(ip -n "$H" -6 route show fd64::/64)" = "$h_before" ]
}
check "the routes that use the binding SID are untouched (H's; srv6d's table 254 but the SID itself)" same_routes
live_finish
