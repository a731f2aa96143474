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
if ! wait "$vm_pid"; then
  echo "== the VM build failed (its tests will fail too):"; cat "$vm_log"
fi
rm -f "$vm_log"
# The sanitizer flavour compiles at the lowest priority while the release flavour's tests run:
# its live tests run one at a time and mostly wait (on the VM, zebra, the daemons' timers), so
# the compiler takes the CPU they leave (a fresh machine's CI: ~6 minutes less).
san_log=$(mktemp /tmp/srv6d-san-build.XXXXXX)
nice -n 19 bash scripts/build.sh san >"$san_log" 2>&1 &
san_pid=$!
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
status=0
echo "== release build: all tests"
ctest --test-dir build --output-on-failure -j 2 || status=1
echo "== sanitizer build (ASan+UBSan, clang)"
if ! wait "$san_pid"; then
  cat "$san_log"; rm -f "$san_log"
  echo "== the sanitizer build failed"; exit 1
fi
tail -n 1 "$san_log"; rm -f "$san_log"
echo "== sanitizer build: all tests"
ctest --test-dir build-san --output-on-failure -j 2 -LE 'live|vm|package' || status=1
exit $status
