#!/usr/bin/env bash
# Live test of two workers (docs/dataplane.md "Workers and queues"): srv6d with two worker
# lcores on net_af_packet ports with qpairs=2 (one queue per worker) over veths created with two
# queues. 64 UDP flows (one source port each, numbered datagrams) from host1 to the receiver
# through srv6d's IPv4 forwarding in the default VRF. Both workers must have forwarded
# (`show counters --json`, perWorker), every flow must arrive complete and in order (the
# receiver checks the sequence numbers). The per-worker split is printed. Then `show memory` and
# the metrics endpoint, against the running srv6d.
#
#   sudo tests/live/two_workers_test.sh [BUILD_DIR]
#
#   host1 [h0] ---- [d0] DUT: srv6d port p0 (tap pe0: 10.0.0.1/24)
#   10.0.0.2        [d1]      srv6d port p1 (tap pe1: 10.0.1.1/24) ---- [a0] R (10.0.1.2, receiver)
#
# The spreading is the kernel's: net_af_packet opens one AF_PACKET socket per queue and joins
# them in a PACKET_FANOUT group with PACKET_FANOUT_HASH (the flow hash of the packet: addresses
# and ports), so one flow always lands on one socket, i.e. one queue, one worker. The group
# also has PACKET_FANOUT_FLAG_ROLLOVER: a socket whose ring is more than 3/4 full hands a busy
# flow to another one, which reorders it, and a full ring drops. At the rate here (about
# 13 000 packets/s, ~6 500 per socket) PMD's default ring (framecnt=512) is past 3/4 after a
# worker is off its CPU for ~60 ms, which a loaded CI machine did once; with framecnt=4096 it
# takes ~0.5 s (docs/dataplane.md: give the ring room). Nothing outside the sockets' owner counts
# a ring's drops (PACKET_STATISTICS; the PMD does not read it): they show here only as datagrams
# missing or reordered at the receiver.
# Runs on any kernel (no SRv6 routes needed); needs 2 CPUs.
set -u
source "$(dirname "$0")/lib.sh"

live_require
command -v ethtool >/dev/null || live_die "missing tool: ethtool"
command -v taskset >/dev/null || live_die "missing tool: taskset"
[ "$(nproc)" -ge 2 ] || live_die "two workers on two CPUs: this machine has $(nproc)"
live_init "${LIVE_PREFIX:-s6w-$$}"

DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
R="$LIVE_PREFIX-r"
ns_add "$DUT"
ns_add "$H1"
ns_add "$R"
VETH_QUEUES=2 dut_link "$DUT" d0 "$H1" h0
VETH_QUEUES=2 dut_link "$DUT" d1 "$R" a0
addr "$H1" h0 10.0.0.2/24
ip -n "$H1" route add default via 10.0.0.1
addr "$R" a0 10.0.1.2/24
ip -n "$R" route add 10.0.0.0/24 via 10.0.1.1

# Lcore 0 (main: EAL setup, then it only waits) may run on either CPU; worker lcores 1 and 2
# busy-poll on CPU 0 and CPU 1. The control thread goes where lcore 0 may (docs/srv6d.md).
srv6d_conf_write "$DUT" "--lcores 0@(0,1),1@0,2@1 --no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:error" <<EOF
mbufs = 16383
port = p0 net_af_packet0,iface=d0,qpairs=2,framecnt=4096 tap=pe0
port = p1 net_af_packet1,iface=d1,qpairs=2,framecnt=4096 tap=pe1
[log]
level = info
[metrics]
listen = 127.0.0.1:9464
EOF
srv6d_dataplane_start "$DUT" pe1
for t in pe0 pe1; do ip -n "$DUT" link set "$t" up; done
addr "$DUT" pe0 10.0.0.1/24
addr "$DUT" pe1 10.0.1.1/24

# zebra gives srv6d the connected routes of the TAPs over FPM
dut_zebra_start "$DUT"

srv6ctl show counters --json >"$LIVE_WORK/counters0.json"
check "srv6d runs two workers, on lcores 1 and 2" eval \
	'[ "$(jq -c "[.workers, [.perWorker[].lcore]]" "$LIVE_WORK/counters0.json")" = "[2,[1,2]]" ]'
check "each port has two queues" eval '[ "$(jq -c "[.ports[].queues]" "$LIVE_WORK/counters0.json")" = "[2,2]" ]'
ping1() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 "$2"; }
# the receiver's neighbor entry: the kernel resolves it through pe1, srv6d mirrors it
check "host1 reaches the receiver through srv6d" wait_until 20 "host1 -> 10.0.1.2" ping1 "$H1" 10.0.1.2

# ---- 64 flows for 1.5 s ---------------------------------------------------------------------------
srv6ctl clear counters >/dev/null
rm -f "$LIVE_WORK/recv.stop"
ip netns exec "$R" "$LIVE_PY" "$LIVE_HOME/flow_tool.py" recv "$LIVE_WORK/flows.json" "$LIVE_WORK/recv.stop" &
RCV=$!
LIVE_PIDS+=("$RCV")
wait_until 5 "the receiver's socket" eval "[ -n \"\$(ip netns exec $R ss -Huln 'sport = :7000')\" ]"
# one CPU for the sender: its datagrams enter d0 in the order they were sent
ip netns exec "$H1" taskset -c 0 "$LIVE_PY" "$LIVE_HOME/flow_tool.py" send 10.0.1.2 1.5 --flows 64 --interval 0.005 \
	>"$LIVE_WORK/flows.sent"
# the last datagrams are on their way: wait until the receiver's count stops moving
sent_total=$(jq -r '.flows * .rounds' "$LIVE_WORK/flows.sent")
tx_p1() { srv6ctl show counters --json | jq -r '.ports[] | select(.name == "p1") | .txPackets'; }
wait_until 5 "srv6d forwarded all $sent_total datagrams" eval '[ "$(tx_p1)" -ge "$sent_total" ]'
sleep 0.3  # from srv6d's TX ring to the receiver's socket
touch "$LIVE_WORK/recv.stop"
wait "$RCV"
live_log "flows sent and received"

res="$("$LIVE_PY" "$LIVE_HOME/flow_tool.py" order "$LIVE_WORK/flows.json" "$LIVE_WORK/flows.sent")"
live_log "flows: $res"
srv6ctl show counters --json >"$LIVE_WORK/counters.json"
split="$(jq -r '.perWorker[] | "worker \(.worker) (lcore \(.lcore)): rx \(.rxPackets), tx \(.txPackets), dropped \(.dropped)"' \
	"$LIVE_WORK/counters.json")"
while read -r l; do live_log "$l"; done <<<"$split"
tx0=$(jq -r '.perWorker[0].txPackets' "$LIVE_WORK/counters.json")
tx1=$(jq -r '.perWorker[1].txPackets' "$LIVE_WORK/counters.json")
live_log "split: worker 0 $((100 * tx0 / (tx0 + tx1 + 1)))%, worker 1 $((100 * tx1 / (tx0 + tx1 + 1)))% of $((tx0 + tx1))"

check "the sender sent 64 flows" eval '[ "$(jq -r .flows "$LIVE_WORK/flows.sent")" = 64 ]'
check "every datagram arrived (no flow incomplete)" eval \
	'[ "$(jq -r .missing <<<"$res")" = 0 ] && [ "$(jq -r .incomplete_flows <<<"$res")" = 0 ]'
check "no flow reordered" eval '[ "$(jq -r .reordered <<<"$res")" = 0 ]'
check "no datagram duplicated" eval '[ "$(jq -r .duplicates <<<"$res")" = 0 ]'
# 64 flows hashed onto 2 queues: each gets 1/2 +- a few flows; 10% is far below any real split
check "worker 0 forwarded at least 10% of the datagrams" eval '[ $((10 * tx0)) -ge "$sent_total" ]'
check "worker 1 forwarded at least 10% of the datagrams" eval '[ $((10 * tx1)) -ge "$sent_total" ]'
check "the workers' sum is the ports' sum" eval \
	'[ "$(jq -r "[.perWorker[].txPackets] | add" "$LIVE_WORK/counters.json")" = "$(jq -r "[.ports[].txPackets] | add" "$LIVE_WORK/counters.json")" ]'
check "the workers sent every datagram" eval '[ $((tx0 + tx1)) -ge "$sent_total" ]'

# show memory: the compiled tables (zebra's connected routes at least) and the packet pool as configured
srv6ctl show memory --json >"$LIVE_WORK/memory.json"
check "show memory: the compiled tables hold the routes" eval \
	'[ "$(jq -r ".routes > 0 and .tablesBytes > 0 and ([.tables[] | select(.kind == \"lpm4\")][0].bytes > 0)" "$LIVE_WORK/memory.json")" = true ]'
check "show memory: the packet pool has the configured 16383 mbufs, some in the ports' rings" eval \
	'[ "$(jq -r ".pools[0] | .name == \"srv6d_pkts\" and .size == 16383 and .inUse > 0 and .inUse + .available == .size" "$LIVE_WORK/memory.json")" = true ]'
check "show memory: one header pool per worker" eval '[ "$(jq -r "[.pools[].name] | .[1:]" -c "$LIVE_WORK/memory.json")" = "[\"srv6d_hdr0\",\"srv6d_hdr1\"]" ]'
# the metrics endpoint (the DUT namespace's own loopback) says what show memory and show counters say
ip netns exec "$DUT" "$LIVE_PY" -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=5).read().decode())' \
	>"$LIVE_WORK/metrics.txt"
lpm4_bytes=$(jq -r '.tables[] | select(.kind == "lpm4") | .bytes' "$LIVE_WORK/memory.json")
check "metrics: the lpm4 bytes of show memory" grep -qx "srv6d_fib_memory_bytes{kind=\"lpm4\"} $lpm4_bytes" "$LIVE_WORK/metrics.txt"
check "metrics: the devices' own counters per port" grep -q '^srv6d_port_rx_missed_total{port="p0",vrf="default"} ' "$LIVE_WORK/metrics.txt"

srv6ctl show counters
srv6ctl show memory
live_finish
