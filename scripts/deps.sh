#!/usr/bin/env bash
# Installs what srv6d needs to build, test and run its demo on Debian 12. Idempotent:
# only missing packages are installed, so a second run costs a dpkg query.
set -euo pipefail

PKGS=(
  # build
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config
  libdpdk-dev dpdk libboost-dev libboost-program-options-dev libfmt-dev
  libprotobuf-dev protobuf-compiler libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  libsystemd-dev
  # srv6ctl capture writes pcap files with libpcap; its shell edits lines with libedit
  libpcap-dev libedit-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # live and traffic tests: real FRR, kernel SRv6 peer, captures
  frr iproute2 ethtool tcpdump python3 python3-scapy jq procps
  # the metrics test parses the scrape with the Prometheus client's own parser
  python3-prometheus-client
  # packaging and service tests: dpkg-shlibdeps, systemd-analyze, the completion framework,
  # Debian's package checker
  dpkg-dev systemd bash-completion lintian
  # srv6ctl's shell is tested in a real terminal: tmux send-keys / capture-pane
  tmux
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# FRR is used as a library of daemons started by the tests, never as the system service.
if systemctl is-enabled frr >/dev/null 2>&1; then
  systemctl disable --now frr >/dev/null 2>&1 || true
fi
