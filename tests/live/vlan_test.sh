#!/usr/bin/env bash
# Live test: an 802.1Q sub-port (docs/dataplane.md "VLAN sub-interfaces"). The CE sits on VLAN
# 100 of srv6d's port p0; it has no VLAN device (this host's kernel has no 8021q), so it sends
# and receives tagged frames with a packet socket (vlan_tool.py). srv6d's sub-port p0.100 is
# mirrored by pe0.100: a VLAN device on p0's TAP where the kernel has them (the VM), a TAP of
# its own here (srv6d says which in its log).
#
#   sudo tests/live/vlan_test.sh [BUILD_DIR]
#
#   CE [c0] =VLAN 100= [d0] DUT: srv6d port p0 (tap pe0), sub-port p0.100 (pe0.100: 10.100.0.1/24)
#                      [d1]      srv6d port p1 (tap pe1: 10.0.1.1/24) ---- [a0] R (10.9.0.5 behind it)
#
# What is checked: the CE's tagged ARP reaches the mirror and the answer comes back tagged with
# p0's MAC; 20 tagged pings to R are routed by srv6d both ways (the replies tagged VLAN 100);
# frames on an unknown VLAN are dropped and counted; a ping to the mirror's own address is
# punted and answered tagged; show counters has the sub-port with its parent and VLAN id.
# Any kernel (no SRv6 routes). About 15 s. LIVE_VLAN_VM=1 runs it in the VM of tests/vm instead,
# whose kernel has VLAN devices: the mirror is then a VLAN device, and the test checks it is.
set -u
source "$(dirname "$0")/lib.sh"

live_require
if [ -n "${LIVE_VLAN_VM:-}" ] && [ -z "${LIVE_IN_VM:-}" ]; then
	live_run_in_vm "LIVE_VLAN_VM is set" "$0" "$@"
fi
live_init "${LIVE_PREFIX:-s6v-$$}"

DUT="$LIVE_PREFIX-dut"
CE="$LIVE_PREFIX-ce"
R="$LIVE_PREFIX-r"
for n in "$DUT" "$CE" "$R"; do ns_add "$n"; done
dut_link "$DUT" d0 "$CE" c0
dut_link "$DUT" d1 "$R" a0
ip netns exec "$CE" sysctl -qw net.ipv6.conf.c0.disable_ipv6=1
addr "$R" a0 10.0.1.2/24
ip -n "$R" route add 10.100.0.0/24 via 10.0.1.1
stub_if "$R" lan
addr "$R" lan 10.9.0.5/24

srv6d_conf_write "$DUT" "-l 0 --no-pci --no-huge -m 512 --no-shconf --no-telemetry --log-level=lib.eal:error" <<CONF
mbufs = 4095
port = p0 net_af_packet0,iface=d0 tap=pe0
port = p0.100 vlan=100 parent=p0 tap=pe0.100
port = p1 net_af_packet1,iface=d1 tap=pe1
CONF
srv6d_dataplane_start "$DUT" pe1
for t in pe0 pe0.100 pe1; do ip -n "$DUT" link set "$t" up; done
addr "$DUT" pe0.100 10.100.0.1/24
addr "$DUT" pe1 10.0.1.1/24
if grep -q "mirrored by VLAN device" "$LIVE_WORK/srv6d.log"; then mirror="a VLAN device on pe0"; else mirror="a TAP of its own"; fi
live_log "p0.100's mirror pe0.100 is $mirror"
if [ -n "${LIVE_IN_VM:-}" ]; then
	check "in the VM (8021q), pe0.100 is a VLAN device on pe0" eval \
		'ip -n "$DUT" -d link show pe0.100 | grep -q "vlan protocol 802.1Q id 100"'
fi
dut_zebra_start "$DUT"
ip -n "$DUT" route add 10.9.0.0/24 via 10.0.1.2 dev pe1 || live_die "cannot add 10.9.0.0/24"
# zebra's route compiled into srv6d's tables, and R's neighbor in them: the pings measure the
# VLAN, not the first compile or the first ARP towards R.
route_in() { srv6ctl show route 10.9.0.5 2>/dev/null | grep -q 'via 10.0.1.2, dev pe1 .*port p1'; }
wait_until 15 "10.9.0.0/24 forwarded by srv6d" route_in || live_die "zebra's route did not reach srv6d"
r_known() {
	ip netns exec "$DUT" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 10.0.1.2 >/dev/null 2>&1
	srv6ctl show neighbors | grep -q '^p1 .*10\.0\.1\.2 '
}
wait_until 10 "srv6d has R's neighbor" r_known || live_die "srv6d did not learn R's neighbor"

port_json() { srv6ctl show counters --json | jq -c --arg p "$1" '.ports[] | select(.name == $p)'; }
field() { port_json "$1" | jq -r --arg f "$2" '(.[$f] // 0) | tonumber? // .'; }
vu0="$(drops vlan_unknown)"
out="$(ip netns exec "$CE" "$LIVE_PY" "$LIVE_HOME/vlan_tool.py" ping c0 100 10.100.0.2 10.100.0.1 10.9.0.5 20 --unknown-vid 300)"
live_log "CE on VLAN 100 -> R: $out"
kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$out"; }
p0_mac="$(ip -n "$DUT" -o link show pe0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')"
check "the tagged ARP is answered on VLAN 100 with p0's MAC ($p0_mac)" eval \
	'[ "$(kv arp_tagged)" = 1 ] && [ "$(kv gw_mac)" = "$p0_mac" ]'
check "20 of 20 tagged pings answered, every reply tagged VLAN 100" eval \
	'[ "$(kv replies)" = 20 ] && [ "$(kv tagged_replies)" = 20 ]'
vu=$(($(drops vlan_unknown) - vu0))
live_log "frames on VLAN 300 (no sub-port): vlan_unknown +$vu"
check "frames on an unknown VLAN are dropped as vlan_unknown" eval '[ "$vu" -ge 20 ]'
rx="$(field p0.100 rxPackets)"
tx="$(field p0.100 txPackets)"
inj="$(field p0.100 injected)"
live_log "p0.100: rx $rx, tx $tx (of which injected from the mirror $inj), punted $(field p0.100 punted); p1 punted $(field p1 punted); parent $(field p0.100 parent), vlan $(field p0.100 vlan)"
check "show counters: p0.100 is VLAN 100 on p0" eval '[ "$(field p0.100 parent)" = p0 ] && [ "$(field p0.100 vlan)" = 100 ]'
check "srv6d routed the pings on the sub-port both ways (rx >= 20, tx - injected >= 15)" eval \
	'[ "$rx" -ge 20 ] && [ $((tx - inj)) -ge 15 ]'
[ $((tx - inj)) -ge 15 ] || { srv6ctl show neighbors; ip -n "$DUT" neigh; } >&2  # who was missing

own="$(ip netns exec "$CE" "$LIVE_PY" "$LIVE_HOME/vlan_tool.py" ping c0 100 10.100.0.2 10.100.0.1 10.100.0.1 3)"
live_log "CE on VLAN 100 -> the mirror's own 10.100.0.1: $own"
check "a ping to the sub-port's own address is punted to its mirror and answered tagged" eval \
	'grep -q "replies=3 tagged_replies=3" <<<"$own"'

srv6ctl show counters | tee "$LIVE_WORK/counters.txt" | sed -n '1,12p'
live_finish
