#!/usr/bin/env bash
# Live test: IPv4 fragments are forwarded as received (docs/dataplane.md "IPv4 fragments").
# host1 sends 3000-byte UDP datagrams (fragmented by its kernel) to R through srv6d. Port p0
# is net_af_xdp, which hands srv6d the fragments; host2 then sends the same through p2, a
# net_af_packet port, whose PMD has the kernel reassemble them first (docs/host-path.md):
# what that port cannot pass must be counted, not lost silently.
#
#   sudo tests/live/fragments_test.sh [BUILD_DIR]
#
#   host1 [h0] ---- [d0] DUT: srv6d port p0 net_af_xdp    (tap pe0: 10.0.0.1/24)
#                   [d1]      srv6d port p1 net_af_packet (tap pe1: 10.0.1.1/24) ---- [a0] R
#   host2 [h2] ---- [d2]      srv6d port p2 net_af_packet (tap pe2: 10.0.2.1/24)
#   R owns 10.9.0.5; the DUT's kernel route 10.9.0.0/24 via 10.0.1.2 reaches srv6d over FPM.
#
# Runs on any kernel with AF_XDP (no SRv6 routes needed).
set -u
source "$(dirname "$0")/lib.sh"

live_require
command -v ethtool >/dev/null || live_die "missing tool: ethtool"
live_init "${LIVE_PREFIX:-s6f-$$}"

DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
H2="$LIVE_PREFIX-h2"
R="$LIVE_PREFIX-r"
for n in "$DUT" "$H1" "$H2" "$R"; do ns_add "$n"; done
dut_link "$DUT" d0 "$H1" h0
dut_link "$DUT" d1 "$R" a0
dut_link "$DUT" d2 "$H2" h2
addr "$H1" h0 10.0.0.2/24
ip -n "$H1" route add default via 10.0.0.1
addr "$H2" h2 10.0.2.2/24
ip -n "$H2" route add default via 10.0.2.1
addr "$R" a0 10.0.1.2/24
ip -n "$R" route add default via 10.0.1.1
stub_if "$R" lan
addr "$R" lan 10.9.0.5/24

srv6d_conf_write "$DUT" <<EOF
mbufs = 8191
port = p0 net_af_xdp0,iface=d0 tap=pe0
port = p1 net_af_packet1,iface=d1 tap=pe1
port = p2 net_af_packet2,iface=d2 tap=pe2
EOF
srv6d_dataplane_start "$DUT" pe2
for i in 0 1 2; do
	ip -n "$DUT" link set "pe$i" up
	addr "$DUT" "pe$i" "10.0.$i.1/24"
done
dut_zebra_start "$DUT"
ip -n "$DUT" route add 10.9.0.0/24 via 10.0.1.2 dev pe1 || live_die "cannot add 10.9.0.0/24"

ping4() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 "$2"; }
check "host1 reaches R's 10.9.0.5 through srv6d" wait_until 20 "host1 -> 10.9.0.5" ping4 "$H1" 10.9.0.5
check "host2 reaches R's 10.9.0.5 through srv6d" wait_until 20 "host2 -> 10.9.0.5" ping4 "$H2" 10.9.0.5

rx_of() { srv6ctl show counters --json | jq -r --arg p "$1" '.ports[] | select(.name == $p) | .rxPackets | tonumber'; }
send20() { # send20 NS: how many of 20 3000-byte datagrams R received whole
	ip netns exec "$R" "$LIVE_PY" "$LIVE_HOME/icmp_tool.py" udp-count 6000 3000 3 >"$LIVE_WORK/udp.out" &
	local rcv=$!
	LIVE_PIDS+=("$rcv")
	wait_until 5 "UDP receiver" eval "ip netns exec $R ss -lun | grep -q :6000"
	ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_tool.py" udp-send 10.9.0.5 6000 3000 20
	wait "$rcv"
	awk '{ n = $2 } END { print (n == "" ? 0 : n) }' "$LIVE_WORK/udp.out"
}
rx0="$(rx_of p0)"
n_xdp="$(send20 "$H1")"
frames=$(($(rx_of p0) - rx0))
live_log "net_af_xdp ingress: $n_xdp of 20 datagrams delivered, p0 received $frames frames"
check "IPv4 fragments through a net_af_xdp port: 20 of 20 datagrams delivered" eval '[ "$n_xdp" -eq 20 ]'
check "srv6d forwarded them as fragments (3 frames per datagram)" eval '[ "$frames" -ge 60 ]'

trunc0="$(drops ip4_truncated)"
mtu0="$(drops mtu_exceeded)"
n_pkt="$(send20 "$H2")"
trunc=$(($(drops ip4_truncated) - trunc0))
mtu=$(($(drops mtu_exceeded) - mtu0))
live_log "net_af_packet ingress (reassembled by the kernel for the PMD): $n_pkt of 20 delivered, ip4_truncated +$trunc, mtu_exceeded +$mtu"
check "what the net_af_packet port could not pass is counted, not lost silently" eval \
	'[ $((n_pkt + trunc + mtu)) -ge 20 ]'

srv6ctl show counters | tee "$LIVE_WORK/counters.txt"
live_finish
