#!/usr/bin/env bash
# Live test: `srv6ctl trace` and `srv6ctl capture` (docs/operating.md "Trace and capture") on a
# real port. host1 pings 10.9.0.5, for which srv6d has no route: packets of known fate (no_route),
# while its ARP for the gateway goes to the host (punt). The trace names the lookup and the drop;
# the pcap srv6ctl writes is read back with tcpdump.
#
#   sudo tests/live/trace_capture_test.sh [BUILD_DIR]
#
#   host1 [h0] ---- [d0] DUT: srv6d port p0 net_af_packet (tap pe0: 10.0.0.1/24)
#
# No FRR: the tables srv6d publishes at start are empty, which is what the test needs.
set -u
source "$(dirname "$0")/lib.sh"

live_require
command -v tcpdump >/dev/null || live_die "missing tool: tcpdump"
live_init "${LIVE_PREFIX:-s6t-$$}"

DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
for n in "$DUT" "$H1"; do ns_add "$n"; done
dut_link "$DUT" d0 "$H1" h0
ip netns exec "$H1" sysctl -qw net.ipv6.conf.h0.disable_ipv6=1
addr "$H1" h0 10.0.0.2/24
ip -n "$H1" route add default via 10.0.0.1

srv6d_conf_write "$DUT" "-l 0 --no-pci --no-huge -m 256 --no-telemetry --log-level=lib.eal:error" <<EOC
mbufs = 4095
port = p0 net_af_packet0,iface=d0 tap=pe0
EOC
srv6d_dataplane_start "$DUT" pe0
ip -n "$DUT" link set pe0 up
addr "$DUT" pe0 10.0.0.1/24

# Pings towards 10.9.0.5 for as long as the test needs them (each waits 0.2 s for no answer).
( while :; do ip netns exec "$H1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 0.2 10.9.0.5 >/dev/null 2>&1; done ) &
LIVE_PIDS+=($!)

# trace: the first IPv4 packets received on p0 (ARP punted, the pings dropped).
srv6ctl --json trace port p0 count 4 timeout 10 >"$LIVE_WORK/trace.json" 2>"$LIVE_WORK/trace.err"
check "srv6ctl trace returned 4 packets" eval \
	'[ "$(jq ".packets | length" "$LIVE_WORK/trace.json")" -eq 4 ]'
check "a ping is traced: in p0, lookup of 10.9.0.5 in the default VRF, miss, dropped no_route" eval \
	'jq -e "[.packets[] | select(.inPort == \"p0\" and .family == \"ipv4\" and .fate == \"drop\" and .dropReason == \"no_route\"
	        and .lookups[0].key == \"10.9.0.5\" and .lookups[0].vrf == \"default\" and .lookups[0].kind == \"miss\"
	        and (.rxHeaders | any(test(\"IPv4 10.0.0.2 > 10.9.0.5\"))))] | length > 0" "$LIVE_WORK/trace.json" >/dev/null'
srv6ctl trace port p0 count 2 timeout 10 | tee "$LIVE_WORK/trace.txt"
check "text trace: numbered blocks with worker, lcore and time" grep -Eq "^Packet 1  worker 0 lcore 0  20[0-9-]+T[0-9:]+\.[0-9]{6}Z$" "$LIVE_WORK/trace.txt"
check "text trace: the drop reason" grep -q "drop: no_route" "$LIVE_WORK/trace.txt"

# capture: the dropped packets into a pcap srv6ctl writes, read back by tcpdump.
srv6ctl capture port p0 drop count 3 file "$LIVE_WORK/drop.pcap" timeout 10
tcpdump -tttt -nr "$LIVE_WORK/drop.pcap" 2>/dev/null | tee "$LIVE_WORK/drop.txt"
check "tcpdump reads 3 packets from the drop capture" eval '[ "$(wc -l <"$LIVE_WORK/drop.txt")" -eq 3 ]'
check "they are the pings, with their time" eval '[ "$(grep -c "^20[0-9-]* [0-9:]*\.[0-9]* IP 10.0.0.2 > 10.9.0.5: ICMP echo request" "$LIVE_WORK/drop.txt")" -eq 3 ]'
srv6ctl capture port p0 count 2 file "$LIVE_WORK/rx.pcap" timeout 10
check "tcpdump reads the rx capture" eval '[ "$(tcpdump -nr "$LIVE_WORK/rx.pcap" 2>/dev/null | wc -l)" -eq 2 ]'
check "capture without a port is refused" eval '! srv6ctl capture count 1 file "$LIVE_WORK/x.pcap" 2>/dev/null'
live_finish
