#!/usr/bin/env bash
# The VM end-to-end test: FRR 8.4.4 bgpd SRv6 L3VPN with kernel VRFs, PE1 forwarded by srv6d.
#
#   sudo tests/vm/l3vpn_test.sh [BUILD_DIR]      (default: <repo>/build)
#
# This host's kernel may have no VRF devices (CI's has none), so the scenario runs in a VM:
# Debian's 6.1 kernel under qemu TCG, the host's root as the guest's read-only root (9p +
# overlayfs), so the guest runs this host's FRR and the srv6d of BUILD_DIR in place. Build
# first: the guest may not see files changed after it booted (9p cache=loose).
# vm-build.sh prepares the VM pieces from Debian packages on first use ($VM_CACHE, default
# /var/tmp/srv6d-vm, ~470 MB); the scenario is guest/l3vpn_srv6d.sh (tests/vm/README.md).
#
# Environment: VM_RUN_DIR (run folder: output.txt, out/logs/, console.log; default
# $VM_CACHE/runs/l3vpn-<pid>), VM_TIMEOUT (s, default 1500), VM_CPUS (default 2).
# Exit status: the scenario's (0 = every check passed); 124 VM timeout, 125 no result.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
BUILD="$(cd "${1:-$REPO/build}" && pwd)" || exit 2
VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm}"
export VM_CACHE
[ "$(id -u)" -eq 0 ] || { echo "l3vpn_test: must run as root (qemu's 9p passthrough of /, netns in the guest)" >&2; exit 1; }
for b in srv6d srv6ctl; do
	[ -x "$BUILD/apps/$b" ] || { echo "l3vpn_test: $BUILD/apps/$b missing: build first" >&2; exit 1; }
done
RUN="${VM_RUN_DIR:-$VM_CACHE/runs/l3vpn-$$}"
# build the VM pieces now, so that their time is not the scenario's
if [ ! -f "$VM_CACHE/initrd.gz" ] || [ "$HERE/initramfs-init.sh" -nt "$VM_CACHE/initrd.gz" ]; then
	bash "$HERE/vm-build.sh" || { echo "l3vpn_test: vm-build.sh failed" >&2; exit 1; }
fi
exec bash "$HERE/vm-run.sh" -t "${VM_TIMEOUT:-1500}" -c "${VM_CPUS:-2}" -o "$RUN" -e VM_REPO="$REPO" \
	"$HERE/guest/l3vpn_srv6d.sh" "$BUILD"
