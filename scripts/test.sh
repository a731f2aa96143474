#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds the release and the sanitizer
# flavours, and runs every test of both (unit, fuzz, service, live FRR tests; the VM test, label vm,
# and the Debian package test, label package, in the release build only). Exit status 0 = all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# The VM of the kernel-peer and VRF tests (tests/vm) is downloaded and unpacked while the code
# compiles: mostly network and disk, ~2 minutes of a fresh machine's wall clock.
vm_log=$(mktemp /tmp/srv6d-vm-build.XXXXXX)
bash tests/vm/vm-build.sh >"$vm_log" 2>&1 &
vm_pid=$!
bash scripts/build.sh release
bash scripts/build.sh san
if ! wait "$vm_pid"; then
  echo "== the VM build failed (its tests will fail too):"; cat "$vm_log"
fi
rm -f "$vm_log"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
status=0
echo "== release build: all tests"
ctest --test-dir build --output-on-failure -j 2 || status=1
echo "== sanitizer build (ASan+UBSan, clang): all tests"
ctest --test-dir build-san --output-on-failure -j 2 -LE 'live|vm|package' || status=1
exit $status
