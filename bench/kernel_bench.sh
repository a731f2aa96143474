#!/usr/bin/env bash
# kernel_bench.sh [SECONDS] [REPS]: the Linux kernel's CPU cycles per forwarded packet on this
# machine, for the README's side-by-side with srv6d (BENCHMARKS.md). Root; network namespaces
# only (nothing outside them is touched); bounded: every run is SECONDS (default 1) long, REPS
# (default 5) repetitions per case, at most a few seconds of setup, namespaces removed on exit.
#
# Method. Three namespaces: gen --(veth)-- dut --(veth)-- sink, and a direct gen --(veth)-- sink
# pair. A pinned sender (bench/kernel/udp_flood.c, sendmmsg) floods 72-byte frames; veth hands a
# packet over on the sending CPU, so the receiving namespaces' work (dut's forwarding, sink's
# drop: it does not forward) runs in the sender's context. Cost per packet = (the sender's CPU
# time + its CPU's ksoftirqd time) x CPU Hz / packets the sink received. The transport (the
# sender's syscall, one veth hop, the sink's receive and drop) is measured the same way over
# the direct pair and subtracted: what is left is the dut's receive, lookup, rewrite and one
# veth transmit. Reported per case: min / median / max over REPS, each repetition running the
# direct pair and the case back to back.
#   ipv6 forward   dut routes 2001:db8:f::/48 via sink
#   H.Encaps       dut: encap seg6 mode encap (1 SID) with tunsrc set   (needs CONFIG_IPV6_SEG6_LWTUNNEL)
#   End.DT6        dut: seg6local End.DT6 on the SID, inner looked up in table 100 (same)
set -euo pipefail
secs=${1:-1}
reps=${2:-5}
cpu=${BENCH_LCORE:-$(( $(nproc) - 1 ))}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
ns="kb$$"
cleanup() {
  for n in gen dut sink; do ip netns del "$ns-$n" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] || { echo "kernel_bench: needs root (network namespaces)" >&2; exit 1; }
cc -O2 -o "$tmp/udp_flood" "$here/kernel/udp_flood.c"

nsx() { local n=$1; shift; ip netns exec "$ns-$n" "$@"; }
for n in gen dut sink; do
  ip netns add "$ns-$n"
  nsx $n ip link set lo up
  nsx $n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
done
veth() {  # veth A-ns A-dev B-ns B-dev
  ip link add "$2" netns "$ns-$1" type veth peer name "$4" netns "$ns-$3"
  nsx $1 ip link set "$2" up
  nsx $3 ip link set "$4" up
}
mac() { nsx $1 cat /sys/class/net/$2/address; }
veth gen g0 dut d0
veth dut d1 sink s1
veth gen g2 sink s2
nsx gen ip -6 addr add fc00:a::1/64 dev g0 nodad
nsx dut ip -6 addr add fc00:a::2/64 dev d0 nodad
nsx dut ip -6 addr add fc00:b::1/64 dev d1 nodad
nsx sink ip -6 addr add fc00:b::2/64 dev s1 nodad
nsx gen ip -6 addr add fc00:c::1/64 dev g2 nodad
nsx sink ip -6 addr add fc00:c::2/64 dev s2 nodad
nsx dut sysctl -qw net.ipv6.conf.all.forwarding=1
nsx sink sysctl -qw net.ipv6.conf.all.forwarding=0  # the sink drops what is not its own
# Static neighbors: no ND during a run.
nsx gen ip -6 neigh add fc00:a::2 lladdr "$(mac dut d0)" dev g0 nud permanent
nsx gen ip -6 neigh add fc00:c::2 lladdr "$(mac sink s2)" dev g2 nud permanent
nsx dut ip -6 neigh add fc00:b::2 lladdr "$(mac sink s1)" dev d1 nud permanent
nsx gen ip -6 route add 2001:db8:c::/48 via fc00:c::2 dev g2   # direct: transport only
nsx gen ip -6 route add 2001:db8:f::/48 via fc00:a::2 dev g0   # through the dut
nsx gen ip -6 route add fc00:5::/48 via fc00:a::2 dev g0       # SIDs of the dut
nsx dut ip -6 route add 2001:db8:f::/48 via fc00:b::2 dev d1

seg6=yes
if ! nsx dut ip -6 route add 2001:db8:e::/48 encap seg6 mode encap segs fc00:6::1 via fc00:b::2 dev d1 2>/dev/null; then
  seg6="no"
else
  nsx gen ip -6 route add 2001:db8:e::/48 via fc00:a::2 dev g0
  nsx dut ip -6 route add fc00:6::/48 via fc00:b::2 dev d1
  nsx dut ip sr tunsrc set fc00:b::1
  nsx dut ip -6 route add 2001:db8:d::/48 via fc00:b::2 dev d1 table 100
  nsx dut ip -6 route add fc00:5::46/128 encap seg6local action End.DT6 table 100 dev d0
fi

rx() { nsx sink cat /sys/class/net/$1/statistics/rx_packets; }
ksoft() { awk '{print $14 + $15}' "/proc/$(pgrep -x "ksoftirqd/$cpu")/stat"; }  # ticks
tick=$(getconf CLK_TCK)
# run SINK-DEV flood-args...: prints cycles per packet
run() {
  local dev=$1; shift
  local r0 k0 out r1 k1
  r0=$(rx "$dev"); k0=$(ksoft)
  out=$(nsx gen taskset -c "$cpu" "$tmp/udp_flood" "$@")
  r1=$(rx "$dev"); k1=$(ksoft)
  echo "${out##* }" > "$tmp/hz"
  awk -v o="$out" -v n=$((r1 - r0)) -v k=$((k1 - k0)) -v t="$tick" \
    'BEGIN { split(o, a, " "); if (n == 0) { print "nan"; exit } printf "%.0f\n", (a[2] / 1e9 + k / t) * a[3] / n }'
}
stats() { sort -n | awk '{v[NR] = $1} END { printf "%d / %d / %d", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

echo "kernel $(uname -r), CPU $cpu (pinned sender), ${secs} s x $reps repetitions per case, 72-byte frames over veth"
echo "cycles per packet the dut adds (transport subtracted): min / median / max"
declare -A d
for ((i = 0; i < reps; ++i)); do
  base=$(run s2 udp 2001:db8:c::1 "$secs")
  fwd=$(run s1 udp 2001:db8:f::1 "$secs")
  d[fwd]+="$((fwd - base)) "
  d[base]+="$base "
  if [ "$seg6" = yes ]; then
    enc=$(run s1 udp 2001:db8:e::1 "$secs")
    dt6=$(run s1 ip6ip6 fc00:5::46 2001:db8:d::1 "$secs")
    d[enc]+="$((enc - base)) "
    d[dt6]+="$((dt6 - base)) "
  fi
done
printf '  %-34s %s\n' "transport (sender + veth + drop)" "$(tr ' ' '\n' <<<"${d[base]}" | grep . | stats)"
printf '  %-34s %s\n' "IPv6 forward" "$(tr ' ' '\n' <<<"${d[fwd]}" | grep . | stats)"
echo "  (TSC $(awk '{printf "%.0f", $1 / 1e6}' "$tmp/hz") MHz, measured by the sender)"
if [ "$seg6" = yes ]; then
  printf '  %-34s %s\n' "H.Encaps, 1 SID (tunsrc set)" "$(tr ' ' '\n' <<<"${d[enc]}" | grep . | stats)"
  printf '  %-34s %s\n' "End.DT6" "$(tr ' ' '\n' <<<"${d[dt6]}" | grep . | stats)"
else
  printf '  %-34s %s\n' "H.Encaps, End.DT6" "not available: this kernel has no seg6 lwtunnel (CONFIG_IPV6_SEG6_LWTUNNEL unset)"
fi
