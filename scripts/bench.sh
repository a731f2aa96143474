#!/usr/bin/env bash
# bench.sh [dataplane|lpm|compile|ingest|kernel|convergence|all] [-- extra args for the bench]: runs the benchmarks
# BENCHMARKS.md publishes, from the release build (scripts/build.sh release builds them).
#   dataplane  bench_dataplane_bench: srv6d's worker against the DPDK floor (7 interleaved reps)
#   lpm        bench_dpdk_fib_bench --compare-only: srv6d's LPM against rte_lpm/rte_fib/rte_lpm6/rte_fib6
#   compile    bench_fib_compile_bench: compiled tables' memory, updates/s with a reader, lookups
#   ingest     bench_fpm_ingest_bench: FPM over TCP into the RIB (1 M routes); then end to end,
#              FPM -> RIB -> compiled tables with srv6d's compile pacing and a reader running
#              (--compile, 1 000 VRFs x 2 000 routes)
#   kernel     bench/kernel_bench.sh: the Linux kernel's cycles per forwarded packet (root, netns)
#   convergence  bench/convergence/convergence.sh: FRR 10.3 bgpd L3VPN in the trixie VM of tests/vm,
#              N VPN routes announced and withdrawn, srv6d against the kernel as PE1's dataplane
#              (root; minutes per boot under TCG: not part of all; run it under the VM lock:
#              flock /tmp/srv6d-live.lock scripts/bench.sh convergence [-- srv6d|kernel|both])
#   all        dataplane, lpm, compile, ingest, kernel
# It prints the machine (CPU, TSC, load averages before and after) with every run. For the
# dataplane it reserves 2 MiB hugepages when it may (root, BENCH_HUGEPAGES pages, default 256 =
# 512 MiB) and gives the previous reservation back at the end; without them the bench falls back
# to 4 KiB pages (--no-huge) and says so. The lcore is pinned to CPU BENCH_LCORE (default: the
# last CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
shift || true
[ "${1:-}" = "--" ] && shift
build=${BUILD_DIR:-build}
lcore=${BENCH_LCORE:-$(( $(nproc) - 1 ))}

machine() {
  echo "== $(date -u '+%F %T UTC') $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

with_hugepages() {
  local want=${BENCH_HUGEPAGES:-256} before=""
  if [ -w /proc/sys/vm/nr_hugepages ]; then
    before=$(cat /proc/sys/vm/nr_hugepages)
    if [ "$before" -lt "$want" ]; then
      echo "$want" > /proc/sys/vm/nr_hugepages || true
    fi
    echo "== hugepages: $(grep -E 'HugePages_(Total|Free)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')(reserved for this run; was $before)"
  else
    echo "== hugepages: not root, none reserved (the bench falls back to 4 KiB pages)"
  fi
  local rc=0
  "$@" || rc=$?
  if [ -n "$before" ]; then
    echo "$before" > /proc/sys/vm/nr_hugepages || true
  fi
  return $rc
}

run_dataplane() {
  ninja -C "$build" bench_dataplane_bench >/dev/null
  machine
  with_hugepages "$build/bench/bench_dataplane_bench" --lcore "$lcore" "$@" 2> >(grep -v 'encap-source' >&2)
  machine
}

run_lpm() {
  ninja -C "$build" bench_dpdk_fib_bench >/dev/null
  machine
  taskset -c "$lcore" "$build/bench/bench_dpdk_fib_bench" --compare-only "$@"
  machine
}

run_compile() {
  ninja -C "$build" bench_fib_compile_bench >/dev/null
  machine
  "$build/bench/bench_fib_compile_bench" "$@"
  machine
}

run_ingest() {
  ninja -C "$build" bench_fpm_ingest_bench >/dev/null
  machine
  "$build/bench/bench_fpm_ingest_bench" "$@"
  "$build/bench/bench_fpm_ingest_bench" --compile --routes 2000000 --vrfs 1000 "$@"
  machine
}

run_convergence() {
  ninja -C "$build" srv6d srv6ctl >/dev/null
  bash bench/convergence/convergence.sh "${1:-both}" "$build"
}

run_kernel() {
  machine
  bash bench/kernel_bench.sh "$@"
  machine
}

case "$what" in
  dataplane) run_dataplane "$@" ;;
  lpm) run_lpm "$@" ;;
  compile) run_compile "$@" ;;
  ingest) run_ingest "$@" ;;
  kernel) run_kernel "$@" ;;
  convergence) run_convergence "$@" ;;
  all) run_dataplane; run_lpm; run_compile; run_ingest; run_kernel ;;
  *) echo "usage: $0 [dataplane|lpm|compile|ingest|kernel|convergence|all] [-- args]" >&2; exit 2 ;;
esac
