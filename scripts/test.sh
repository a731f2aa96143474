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
bash scripts/build.sh release --no-headers
if ! wait "$vm_pid"; then
  echo "== the VM build failed (its tests will fail too):"; cat "$vm_log"
fi
rm -f "$vm_log"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
# Beside the release flavour's tests, at the lowest priority: the sanitizer flavour's build, the
# header check (clang) and the sanitizer flavour's tests. The release tests' live part runs one test at a time
# (RUN_SERIAL) and mostly waits on the VM, zebra and the daemons' timers: the compiler and the
# sanitizer tests take the CPU it leaves. The daemons in the VM-hosted tests nap when idle
# (dataplane.idle-sleep) so that their emulated CPUs leave the host's CPUs to this.
san_log=$(mktemp /tmp/srv6d-san.XXXXXX)
san_rc=$(mktemp /tmp/srv6d-san-rc.XXXXXX)
(
  renice -n 19 -p "$BASHPID" >/dev/null || true  # before any child: they inherit it
  rc=0
  # the header check in the san tree: the release tree is in use (package_deb runs cpack in it)
  { bash scripts/build.sh san && cmake --build build-san -j "$(nproc)" --target checkheaders; } >"$san_log.build" 2>&1 || rc=2
  if [ $rc = 0 ]; then
    ctest --test-dir build-san --output-on-failure -j 2 -LE 'live|vm|package' >"$san_log" 2>&1 || rc=1
  fi
  echo $rc >"$san_rc"
) </dev/null >/dev/null 2>&1 &
san_pid=$!
status=0
echo "== release build: all tests"
ctest --test-dir build --output-on-failure -j 2 || status=1
wait "$san_pid" || true
case "$(cat "$san_rc")" in
  0) echo "== header check and sanitizer build: done"; echo "== sanitizer build (ASan+UBSan, clang): all tests"; cat "$san_log" ;;
  1) echo "== header check and sanitizer build: done"; echo "== sanitizer build (ASan+UBSan, clang): all tests"; cat "$san_log"; status=1 ;;
  *) echo "== the header check or the sanitizer build failed:"; cat "$san_log.build"; status=1 ;;
esac
rm -f "$san_log" "$san_log.build" "$san_rc"
exit $status
