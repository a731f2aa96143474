#!/usr/bin/env bash
# build.sh [release [--no-headers|--apps]|san]: configure and build one flavour.
#   release: g++, RelWithDebInfo, -Werror, benchmarks, header self-containment check
#            (--no-headers: without it; scripts/test.sh runs it in the san tree, beside the tests;
#            --apps: only srv6d and srv6ctl, what the live tests run, so that they start first)
#   san:     clang, ASan + UBSan, libFuzzer targets, the libraries as unity builds (SRV6D_UNITY_LIBS)
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
jobs=$(nproc)
case "$flavour" in
  release)
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    if [ "${2:-}" = --apps ]; then
      cmake --build build -j "$jobs" --target srv6d srv6ctl
      exit 0
    fi
    cmake --build build -j "$jobs"
    [ "${2:-}" = --no-headers ] || cmake --build build -j "$jobs" --target checkheaders
    ;;
  san)
    CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Debug \
      -DSRV6D_SANITIZE=ON -DSRV6D_FUZZ=ON -DSRV6D_BENCH=OFF -DSRV6D_UNITY_LIBS=ON >/dev/null
    cmake --build build-san -j "$jobs"
    ;;
  *) echo "usage: $0 [release [--no-headers|--apps]|san]" >&2; exit 2 ;;
esac
