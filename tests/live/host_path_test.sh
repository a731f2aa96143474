#!/usr/bin/env bash
# Live test of the host path: srv6d forwards with DPDK (net_af_packet on veths) and mirrors each
# port into the kernel as a TAP; the kernel answers ARP/ND/ICMP for the router's own addresses,
# zebra learns routes from it and feeds srv6d over FPM, and srv6d forwards on them.
#
#   sudo tests/live/host_path_test.sh [BUILD_DIR]
#
#   host1 [h0] ---- [d0] DUT: srv6d port p0 (tap pe0: 10.0.0.1/24, fd00::1/64)
#   host2 [h1] ---- [d1]      srv6d port p1 (tap pe1: 10.0.1.1/24, fd00:1::1/64)
#   (bgpd AS 65002:           zebra -M dplane_fpm_nl, bgpd AS 65001 peering with host2 over
#    10.9.0.0/24,             p1 (IPv4 and IPv6 sessions: punt + inject); kernel route
#    2001:db8:9::/64)         10.8.0.0/24 via 10.0.1.2
#
# Checks: ARP and ND resolve through the kernel (host1 pings the TAP's IPv4 and IPv6
# addresses); srv6d's neighbor table equals the kernel's on the TAPs; BGP over the DPDK port
# comes up, its routes and the kernel route reach srv6d over FPM and host1's traffic to them is
# forwarded p0 -> p1 by the dataplane; a punt flood far above the policer rate is policed
# (counted) while that forwarded traffic is unaffected.
set -u
source "$(dirname "$0")/lib.sh"

live_require
command -v ethtool >/dev/null || live_die "missing tool: ethtool"
live_init "${LIVE_PREFIX:-s6h-$$}"


DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
H2="$LIVE_PREFIX-h2"
ns_add "$DUT"
ns_add "$H1"
ns_add "$H2"
dut_link "$DUT" d0 "$H1" h0
dut_link "$DUT" d1 "$H2" h1
addr "$H1" h0 10.0.0.2/24
addr "$H1" h0 fd00::2/64
ip -n "$H1" route add default via 10.0.0.1
ip -n "$H1" -6 route add default via fd00::1
addr "$H2" h1 10.0.1.2/24
addr "$H2" h1 fd00:1::2/64
stub_if "$H2" lan
addr "$H2" lan 10.8.0.5/24
addr "$H2" lan 10.9.0.5/24
addr "$H2" lan 2001:db8:9::5/64
ip -n "$H2" route add default via 10.0.1.1
ip -n "$H2" -6 route add default via fd00:1::1

srv6d_conf_write "$DUT" <<EOF
mbufs = 8191
port = p0 net_af_packet0,iface=d0 tap=pe0
port = p1 net_af_packet1,iface=d1 tap=pe1
punt-rate = 500
punt-burst = 50
[log]
level = debug
EOF
srv6d_dataplane_start "$DUT" pe1
# The operator's part (or frr.conf's `interface pe0` / `ip address`): addresses on the mirrors.
for t in pe0 pe1; do ip -n "$DUT" link set "$t" up; done
addr "$DUT" pe0 10.0.0.1/24
addr "$DUT" pe0 fd00::1/64
addr "$DUT" pe1 10.0.1.1/24
addr "$DUT" pe1 fd00:1::1/64

mac_of() { ip -n "$1" -j link show "$2" | jq -r '.[0].address'; }
check "TAP pe0 carries port p0's MAC" eval \
	'[ "$(mac_of "$DUT" pe0)" = "$(srv6ctl show counters --json >/dev/null && grep -o "port p0 = .*mac [0-9a-f:]*" "$LIVE_WORK/srv6d.log" | grep -o "[0-9a-f:]\{17\}$")" ]'

ping4() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 3 -W 2 "$2"; }
ping6() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -6 -c 3 -W 2 "$2"; }
check "host1 pings the TAP's IPv4 address (ARP through the kernel)" ping4 "$H1" 10.0.0.1
check "host1 pings the TAP's IPv6 address (ND through the kernel)" ping6 "$H1" fd00::1
check "host2 pings pe1" ping4 "$H2" 10.0.1.1

# srv6d's neighbor table is the kernel's (usable entries on the TAPs).
kernel_neigh() {
	ip -n "$DUT" -j neigh show | jq -r '.[] | select((.dev == "pe0" or .dev == "pe1") and .lladdr != null
		and ((.state // []) | index("FAILED") | not) and ((.state // []) | index("INCOMPLETE") | not))
		| "\(.dst) \(.lladdr)"' | sort
}
srv6d_neigh() { srv6ctl show neighbors --json | jq -r '.neighbors[] | "\(.address) \(.mac)"' | sort; }
neigh_equal() {
	local k s
	k="$(kernel_neigh)"
	s="$(srv6d_neigh)"
	[ -n "$k" ] && [ "$k" = "$s" ] || { echo "kernel: $k"; echo "srv6d:  $s"; return 1; }
}
check "srv6d's neighbors == ip neigh on the TAPs" wait_until 5 "neighbor tables equal" neigh_equal
neigh_equal
check "host1's address and MAC are among them" eval \
	'srv6_neigh_has() { srv6ctl show neighbors --json | jq -e --arg a 10.0.0.2 --arg m "$(mac_of "$H1" h0)" ".neighbors[] | select(.address == \$a and .mac == \$m and .source == \"kernel\")" >/dev/null; }; srv6_neigh_has'
check "own addresses shown" eval 'srv6ctl show neighbors --json | jq -e ".addresses[] | select(.address == \"10.0.0.1\")" >/dev/null'

# ---- zebra + bgpd on the DUT, BGP to host2 across the DPDK port; routes forwarded -------------
bgp_conf() { # bgp_conf AS ID PEER4 PEER6 PEER_AS [NET4 NET6]
	local as="$1" id="$2" p4="$3" p6="$4" pas="$5" p
	shift 5
	printf 'hostname bgp%s\nrouter bgp %s\n bgp router-id %s\n no bgp ebgp-requires-policy\n' "$as" "$as" "$id"
	printf ' no bgp default ipv4-unicast\n'
	for p in "$p4" "$p6"; do
		printf ' neighbor %s remote-as %s\n neighbor %s timers 3 10\n neighbor %s timers connect 1\n' "$p" "$pas" "$p" "$p"
	done
	printf ' address-family ipv4 unicast\n  neighbor %s activate\n' "$p4"
	[ $# -ge 1 ] && printf '  network %s\n' "$1"
	printf ' exit-address-family\n address-family ipv6 unicast\n  neighbor %s activate\n' "$p6"
	[ $# -ge 2 ] && printf '  network %s\n' "$2"
	printf ' exit-address-family\n'
}
echo "hostname h2" >"$LIVE_WORK/h2-zebra.conf"
bgp_conf 65001 10.0.1.1 10.0.1.2 fd00:1::2 65002 >"$LIVE_WORK/dut-bgpd.conf"
bgp_conf 65002 10.0.1.2 10.0.1.1 fd00:1::1 65001 10.9.0.0/24 2001:db8:9::/64 >"$LIVE_WORK/h2-bgpd.conf"
dut_zebra_start "$DUT"
frr_start "$H2" zebra "$LIVE_WORK/h2-zebra.conf"
frr_start "$H2" bgpd "$LIVE_WORK/h2-bgpd.conf"
frr_start "$DUT" bgpd "$LIVE_WORK/dut-bgpd.conf"
check "BGP IPv4 and IPv6 sessions over the DPDK port (punt + inject) are Established" \
	wait_until 40 "2 BGP sessions Established" bgp_established "$DUT" 2
ip -n "$DUT" route add 10.8.0.0/24 via 10.0.1.2 dev pe1
route_in_srv6d() {
	srv6ctl show routes --json | jq -e --arg p "$1" --arg proto "$2" \
		'.. | objects | select(.prefix? == $p and (.protocolName? // "") == $proto)' >/dev/null
}
check "the BGP routes reached srv6d over FPM" wait_until 30 "BGP routes in srv6d" eval \
	'route_in_srv6d 10.9.0.0/24 bgp && route_in_srv6d 2001:db8:9::/64 bgp'
check "the kernel route 10.8.0.0/24 reached srv6d over FPM" wait_until 10 "10.8.0.0/24 in srv6d" \
	route_in_srv6d 10.8.0.0/24 kernel
rx_of() { srv6ctl show counters --json | jq -r --arg p "$1" '.ports[] | select(.name == $p) | .'"$2"; }
tx_before="$(rx_of p1 txPackets)"
punted_before=$(($(rx_of p0 punted) + $(rx_of p1 punted)))
check "host1 -> 10.9.0.5 (BGP route), forwarded by srv6d" ping4 "$H1" 10.9.0.5
check "host1 -> 2001:db8:9::5 (BGP route), forwarded by srv6d" ping6 "$H1" 2001:db8:9::5
check "host1 -> 10.8.0.5 (kernel route), forwarded by srv6d" ping4 "$H1" 10.8.0.5
check "the dataplane sent them (p1 tx counted)" eval '[ "$(rx_of p1 txPackets)" -ge $((tx_before + 9)) ]'
# Not the kernel forwarding punted packets: 18 echoes and replies crossed; what went to the
# host meanwhile is neighbor discovery and the first packet or two towards a neighbor the
# kernel had not resolved yet (BGP's IPv6 nexthop is host2's link-local address).
punted_now=$(($(rx_of p0 punted) + $(rx_of p1 punted)))
live_log "punted during the 9 forwarded pings: $((punted_now - punted_before))"
check "the forwarded pings were not punted" eval '[ $((punted_now - punted_before)) -lt 9 ]'

# ---- a punt flood: policed, forwarding unaffected -------------------------------------------
# Paced (bursts of 100, 5 ms apart: up to ~20 000/s, 40x the policer's 500/s): unpaced, the
# sender filled the kernel's own queues between host1 and the af_packet port (the host's veth
# backlog and the packet ring: the port received ~6 600 fewer packets than were sent, none
# counted by srv6d), and an echo lost there is no verdict on srv6d's forwarding.
cat >"$LIVE_WORK/flood.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[2])
n = 0
while time.time() < end:
    for _ in range(100):
        s.sendto(b"x" * 32, (sys.argv[1], 9))
        n += 1
    time.sleep(0.005)
print(n)
EOF
policed_before="$(srv6ctl show counters --json | jq -r '.drops[] | select(.reason == "punt_policed") | .packets')"
ip netns exec "$H1" "$LIVE_PY" "$LIVE_WORK/flood.py" 10.0.0.1 4 >"$LIVE_WORK/flood.out" 2>&1 &
FLOOD=$!
sleep 0.5
check "forwarded traffic keeps flowing during the punt flood" ping4 "$H1" 10.9.0.5
wait "$FLOOD"
sent="$(cat "$LIVE_WORK/flood.out")"
policed="$(srv6ctl show counters --json | jq -r '.drops[] | select(.reason == "punt_policed") | .packets')"
live_log "flood: $sent UDP packets to 10.0.0.1 sent, $((policed - policed_before)) policed"
check "the flood was policed (far above 500/s)" eval '[ $((policed - policed_before)) -gt $((sent / 4)) ]'
check "punted and injected counted" eval \
	'[ "$(rx_of p0 punted)" -gt 0 ] && [ "$(rx_of p0 injected)" -gt 0 ]'
srv6ctl show counters >"$LIVE_WORK/counters.txt"
srv6ctl show neighbors >"$LIVE_WORK/neighbors.txt"
cat "$LIVE_WORK/counters.txt" "$LIVE_WORK/neighbors.txt"

live_finish
