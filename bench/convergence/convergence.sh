#!/usr/bin/env bash
# convergence.sh [srv6d|kernel|both] [BUILD_DIR]: the FRR 10 convergence bench (BENCHMARKS.md
# "FRR 10 convergence"). Boots the trixie VM of tests/vm (Debian 13's 6.12 kernel, FRR 10.3)
# once per dataplane and runs guest.sh in it: PE2 announces N VPN routes, then drops its BGP
# session; timed until PE1's dataplane (srv6d fed by zebra over FPM, or zebra's kernel) forwards
# to / has withdrawn them. Not a test: nothing passes or fails, it prints the numbers.
#
# As root; the VM is shared with the VM tests: run it under their lock,
#   flock /tmp/srv6d-live.lock bench/convergence/convergence.sh both
# Environment: CONV_SIZES (default "1000 10000 100000"), VM_TIMEOUT (s per boot, default 3000),
# VM_CPUS (default 2), CONV_OUT (run folders, default $VM_CACHE/runs/convergence-<time>).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
what="${1:-both}"
BUILD="$(cd "${2:-$REPO/build}" && pwd)" || exit 2
case "$what" in srv6d) dps=(srv6d) ;; kernel) dps=(kernel) ;; both) dps=(srv6d kernel) ;;
*) echo "usage: $0 [srv6d|kernel|both] [BUILD_DIR]" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "convergence: must run as root (the VM)" >&2; exit 1; }
for b in srv6d srv6ctl; do
	[ -x "$BUILD/apps/$b" ] || { echo "convergence: $BUILD/apps/$b missing: ninja -C $BUILD srv6d srv6ctl" >&2; exit 1; }
done
export VM_FLAVOUR=trixie
export VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm-trixie}"
if [ ! -f "$VM_CACHE/initrd.gz" ] || [ ! -x "$VM_CACHE/frr-root/usr/lib/frr/zebra" ]; then
	bash "$REPO/tests/vm/vm-build.sh" || { echo "convergence: vm-build.sh failed" >&2; exit 1; }
fi
out="${CONV_OUT:-$VM_CACHE/runs/convergence-$(date +%Y%m%d-%H%M%S)}"
sizes="${CONV_SIZES:-1000 10000 100000}"
machine() { echo "== $(date -u '+%F %T UTC') host $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
rc=0
for dp in "${dps[@]}"; do
	machine
	bash "$REPO/tests/vm/vm-run.sh" -q -t "${VM_TIMEOUT:-3000}" -c "${VM_CPUS:-2}" -o "$out/$dp" \
		-e VM_REPO="$REPO" -e CONV_SIZES="$sizes" "$HERE/guest.sh" "$BUILD" "$dp" || rc=$?
	machine
	grep -E 'up_all|RESULT|FATAL|N = |holds|answered|unanswered|FRR up|BGP est|forwards|PE2.s kernel' "$out/$dp/output.txt" 2>/dev/null
	echo "== $dp: run folder $out/$dp"
done
echo "== results (seconds from T0; '-' = not reached)"
cat "$out"/*/out/results.txt 2>/dev/null
exit $rc
