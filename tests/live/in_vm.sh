#!/bin/bash
# in_vm.sh TEST ARGS...: run by tests/vm/vm-run.sh as the guest's script (lib.sh's
# live_need_kernel_srv6): runs the live test TEST (a path relative to the repository) in the
# VM, where the host's repository and build are visible at the same paths.
set -u
test="$1"; shift
# Debian's kernel has these as modules (this host's kernel has them built in, or not at all);
# 8021q: VLAN devices (tests/live/vlan_test.sh with LIVE_VLAN_VM=1)
for m in tun veth vrf 8021q; do modprobe "$m" 2>/dev/null; done
exec bash "$VM_REPO/$test" "$@"
