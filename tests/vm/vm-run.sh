#!/bin/bash
# vm-run.sh [options] SCRIPT [ARGS...]
#
# Boots the Debian 6.1 kernel (it has vrf.ko) under qemu TCG (no KVM needed),
# or with VM_FLAVOUR=trixie Debian 13's 6.12 kernel (its FRR 10.3 root is VM_FRR_ROOT in the guest),
# with the HOST's root filesystem as the guest's read-only root (virtio-9p +
# overlayfs with a tmpfs upper), runs SCRIPT as root inside the guest, copies
# out its output and exit code, and powers the guest off.
#
# Options:
#   -o DIR    run folder (default /var/tmp/srv6d-vm/runs/vm-run-<time>-<pid>).
#             Inside the guest it is /vm; SCRIPT should put artifacts in $VM_OUT (= /vm/out).
#   -t SECS   hard timeout for the whole VM (default 1800). The script itself is
#             stopped at SECS-30 so that output still comes back.
#   -m MB     guest memory (default 4096)
#   -c N      guest vCPUs (default: host CPUs, max 4); multi-threaded TCG
#   -q        do not print the script's output at the end
#   -k ARGS   extra kernel command line
#   -e N=V    export N=V in the guest before SCRIPT runs (repeatable)
# VM_CPU_MODEL: qemu's CPU model (default Nehalem: SSE4.2, DPDK's x86 baseline, and no AVX, whose
# emulation made the guest's glibc slower: a VM-hosted test took 15-20 % more host CPU with "max").
# Results in the run folder:
#   output.txt   stdout+stderr of SCRIPT     rc        its exit code
#   out/         artifacts the script wrote  console.log  serial console
#   timings.txt  guest uptime marks          host-timings.txt  wall clock on the host
#   dmesg.txt    guest kernel log
# Exit status: the script's rc; 124 = VM timeout; 125 = VM ended without an rc.
# Prerequisite: vm-build.sh (run automatically if $VM_CACHE/initrd.gz is missing).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# VM_FLAVOUR=trixie: Debian 13's kernel and the FRR 10.3 root of vm-build.sh (its own cache)
case "${VM_FLAVOUR:=bookworm}" in
trixie) VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm-trixie}" ;;
*) VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm}" ;;
esac
export VM_FLAVOUR VM_CACHE
RUN="" TMO=1800 MEM=4096 CPUS="" QUIET=0 KEXTRA="" ENVS=()
while getopts "o:t:m:c:qk:e:" o; do
	case "$o" in
	o) RUN="$OPTARG" ;; t) TMO="$OPTARG" ;; m) MEM="$OPTARG" ;; c) CPUS="$OPTARG" ;;
	q) QUIET=1 ;; k) KEXTRA="$OPTARG" ;; e) ENVS+=("$OPTARG") ;;
	*) sed -n '2,28p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,28p' "$0"; exit 2; }
SCRIPT="$1"; shift
[ -f "$SCRIPT" ] || { echo "vm-run: no such script: $SCRIPT" >&2; exit 2; }
[ -n "$CPUS" ] || { CPUS=$(nproc); [ "$CPUS" -gt 4 ] && CPUS=4; }

[ -f "$VM_CACHE/initrd.gz" ] && [ -f "$VM_CACHE/vmlinuz" ] || "$HERE/vm-build.sh" || exit 2
# the initramfs embeds initramfs-init.sh: rebuild when it changed
[ "$HERE/initramfs-init.sh" -nt "$VM_CACHE/initrd.gz" ] && { "$HERE/vm-build.sh" >/dev/null || exit 2; }

[ -n "$RUN" ] || RUN="$VM_CACHE/runs/vm-run-$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$RUN"
RUN="$(cd "$RUN" && pwd)"
rm -rf "$RUN/out" "$RUN/rc" "$RUN/output.txt" "$RUN/timings.txt" "$RUN/console.log" "$RUN/dmesg.txt" "$RUN"/*.initramfs*
mkdir -p "$RUN/out"
cp "$SCRIPT" "$RUN/script.sh"
cp "$HERE/guest-init.sh" "$RUN/guest-init.sh"
{
	printf 'VM_ARGS=('; printf '%q ' "$@"; printf ')\n'
	printf 'VM_SCRIPT_TIMEOUT=%d\n' $((TMO > 90 ? TMO - 30 : TMO))
	printf 'VM_SCRIPT_NAME=%q\n' "$(basename "$SCRIPT")"
	[ "$VM_FLAVOUR" = trixie ] && printf 'export VM_FRR_ROOT=%q\n' "$VM_CACHE/frr-root"
	for e in "${ENVS[@]}"; do printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"; done
} > "$RUN/env"

# The guest's clock: under TCG the guest's TSC runs at the host's TSC rate, but the kernel
# measures that rate at boot against the emulated PIT or HPET, and on a loaded host the
# measurement can be wrong: one boot took the PIT's 660 MHz for a 2596 MHz TSC, its clock ran
# 3.9x fast and every timeout in the guest (the script's own included) expired 3.9x early.
# Tell it the rate instead (tsc_early_khz; tsc=reliable keeps it from being "refined"): the host's
# invariant TSC's, or VM_TSC_KHZ.
tsc_khz="${VM_TSC_KHZ:-}"
if [ -z "$tsc_khz" ] && grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then
	tsc_khz=$(awk -F': *' '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
fi
[ -n "$tsc_khz" ] && KEXTRA="tsc_early_khz=$tsc_khz $KEXTRA"

hts() { date +%s.%N; }
T0=$(hts)
echo "host: start $(date -Is)" > "$RUN/host-timings.txt"
FS="security_model=none,multidevs=remap"
qemu-system-x86_64 \
	-name srv6d-vm \
	-accel tcg,thread=multi,tb-size=512 -M q35 -cpu "${VM_CPU_MODEL:-Nehalem}" -smp "$CPUS" -m "$MEM" \
	-nodefaults -display none -no-reboot -no-user-config \
	-kernel "$VM_CACHE/vmlinuz" -initrd "$VM_CACHE/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet loglevel=4 mitigations=off tsc=reliable no_timer_check $KEXTRA" \
	-chardev file,id=con,path="$RUN/console.log" -serial chardev:con \
	-fsdev local,id=fsroot,path=/,readonly=on,$FS -device virtio-9p-pci,fsdev=fsroot,mount_tag=hostroot \
	-fsdev local,id=fslayer,path="$VM_CACHE/layer",readonly=on,$FS -device virtio-9p-pci,fsdev=fslayer,mount_tag=vmlayer \
	-fsdev local,id=fsrun,path="$RUN",$FS -device virtio-9p-pci,fsdev=fsrun,mount_tag=vmrun \
	-pidfile "$RUN/qemu.pid" &
QPID=$!
trap 'kill "$QPID" 2>/dev/null; sleep 1; kill -9 "$QPID" 2>/dev/null' INT TERM
# watchdog: hard timeout, kills only our qemu, by PID. It polls (a `sleep $TMO` child would
# outlive the subshell when it is killed and keep the caller's stdout open: ctest then waits
# for it) and ends by itself within a second of qemu.
(
	end=$((SECONDS + TMO))
	while kill -0 "$QPID" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "host: TIMEOUT after $TMO s" >> "$RUN/host-timings.txt"
			kill "$QPID"; sleep 3; kill -9 "$QPID" 2>/dev/null
			break
		fi
		sleep 1
	done
) </dev/null >/dev/null 2>&1 &
WPID=$!
wait "$QPID"
QRC=$?
kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
T1=$(hts)
WALL=$(awk -v a="$T0" -v b="$T1" 'BEGIN{printf "%.1f", b-a}')
echo "host: qemu exited rc=$QRC after $WALL s" >> "$RUN/host-timings.txt"

if [ "$QUIET" = 0 ] && [ -f "$RUN/output.txt" ]; then cat "$RUN/output.txt"; fi
echo "--- vm-run: run folder $RUN, wall ${WALL}s, guest marks:" >&2
sed 's/^/    /' "$RUN/timings.txt" >&2 2>/dev/null
if grep -q TIMEOUT "$RUN/host-timings.txt"; then
	echo "vm-run: TIMEOUT (${TMO}s); last console lines:" >&2; tail -20 "$RUN/console.log" >&2; exit 124
fi
if [ -s "$RUN/rc" ]; then
	RC=$(cat "$RUN/rc")
	echo "--- vm-run: script exit code $RC" >&2
	exit "$RC"
fi
echo "vm-run: no exit code came back (qemu rc=$QRC); last console lines:" >&2
cat "$RUN"/rc.initramfs 2>/dev/null >&2
tail -30 "$RUN/console.log" >&2
exit 125
