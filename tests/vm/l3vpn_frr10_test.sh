#!/usr/bin/env bash
# The FRR 10 VM test: Debian 13's FRR 10.3 bgpd SRv6 L3VPN (uSID locators, End.DT46 per VRF)
# with kernel VRFs on Debian 13's 6.12 kernel, PE1 forwarded by srv6d, PE1's FRR config being
# frr-conf/frr10-l3vpn-pe.conf itself.
#
#   tests/vm/l3vpn_frr10_test.sh [BUILD_DIR]      (root; default BUILD_DIR: <repo>/build)
#
# vm-build.sh (VM_FLAVOUR=trixie) prepares the VM on first use: Debian 13's kernel and a
# debootstrapped trixie root with frr and iproute2 ($VM_CACHE, default /var/tmp/srv6d-vm-trixie,
# its own cache beside the 8.4.4 flavour's). The guest's root is this host's (srv6d is
# BUILD_DIR's, in place); FRR 10.3 runs from the trixie root as a chroot per PE. The scenario is
# guest/l3vpn_frr10.sh (tests/vm/README.md).
#
# Environment: VM_RUN_DIR (run folder; default $VM_CACHE/runs/frr10-<pid>), VM_TIMEOUT (s,
# default 2400), VM_CPUS (default 2), FRR10_STEPS (the scenario's steps after 1 and 2, e.g. "3 7";
# default all). Exit status: the scenario's; 124 VM timeout, 125 no result.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
BUILD="$(cd "${1:-$REPO/build}" && pwd)" || exit 2
export VM_FLAVOUR=trixie
VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm-trixie}"
export VM_CACHE
[ "$(id -u)" -eq 0 ] || { echo "l3vpn_frr10_test: must run as root (qemu's 9p passthrough of /, netns in the guest)" >&2; exit 1; }
for b in srv6d srv6ctl; do
	[ -x "$BUILD/apps/$b" ] || { echo "l3vpn_frr10_test: $BUILD/apps/$b missing: build first" >&2; exit 1; }
done
RUN="${VM_RUN_DIR:-$VM_CACHE/runs/frr10-$$}"
if [ ! -f "$VM_CACHE/initrd.gz" ] || [ ! -x "$VM_CACHE/frr-root/usr/lib/frr/zebra" ] ||
	[ "$HERE/initramfs-init.sh" -nt "$VM_CACHE/initrd.gz" ]; then
	bash "$HERE/vm-build.sh" || { echo "l3vpn_frr10_test: vm-build.sh failed" >&2; exit 1; }
fi
exec bash "$HERE/vm-run.sh" -t "${VM_TIMEOUT:-2400}" -c "${VM_CPUS:-2}" -o "$RUN" -e VM_REPO="$REPO" \
	${FRR10_STEPS:+-e "FRR10_STEPS=$FRR10_STEPS"} \
	"$HERE/guest/l3vpn_frr10.sh" "$BUILD"
