#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds the release and the sanitizer
# flavours, and runs every test of both (unit, fuzz, service, live FRR tests; the VM test, label vm,
# and the Debian package test, label package, in the release build only). Exit status 0 = all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh release
bash scripts/build.sh san
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1
status=0
echo "== release build: all tests"
ctest --test-dir build --output-on-failure -j 2 || status=1
echo "== sanitizer build (ASan+UBSan, clang): all tests"
ctest --test-dir build-san --output-on-failure -j 2 -LE 'live|vm|package' || status=1
exit $status
