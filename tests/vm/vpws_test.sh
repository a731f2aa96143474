#!/usr/bin/env bash
# The VPWS test in the VM: srv6d's H.Encaps.L2 / End.DX2 against the Linux kernel's, both ways,
# a port-based and a VLAN-based circuit; then srv6d's H.Insert ([routes]) and a binding SID
# (End.B6.Encaps) through kernel End / End.DT6 nodes (guest/vpws_srv6d.sh). One boot, several checks.
#
#   sudo tests/vm/vpws_test.sh [BUILD_DIR]      (default: <repo>/build)
#
# The host kernel has no seg6 routes: the scenario runs in the VM of l3vpn_test.sh (Debian's
# kernel under qemu TCG, the host's root as the guest's). Build first.
# Environment: VM_RUN_DIR (default $VM_CACHE/runs/vpws-<pid>), VM_TIMEOUT (s, default 900).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
BUILD="$(cd "${1:-$REPO/build}" && pwd)" || exit 2
VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm}"
export VM_CACHE
[ "$(id -u)" -eq 0 ] || { echo "vpws_test: must run as root" >&2; exit 1; }
for b in srv6d srv6ctl; do
	[ -x "$BUILD/apps/$b" ] || { echo "vpws_test: $BUILD/apps/$b missing: build first" >&2; exit 1; }
done
RUN="${VM_RUN_DIR:-$VM_CACHE/runs/vpws-$$}"
if [ ! -f "$VM_CACHE/initrd.gz" ] || [ "$HERE/initramfs-init.sh" -nt "$VM_CACHE/initrd.gz" ]; then
	bash "$HERE/vm-build.sh" || { echo "vpws_test: vm-build.sh failed" >&2; exit 1; }
fi
exec bash "$HERE/vm-run.sh" -t "${VM_TIMEOUT:-900}" -c "${VM_CPUS:-2}" -o "$RUN" -e VM_REPO="$REPO" \
	"$HERE/guest/vpws_srv6d.sh" "$BUILD"
