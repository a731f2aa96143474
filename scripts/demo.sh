#!/usr/bin/env bash
# demo.sh: srv6d as an SRv6 L3VPN PE, fed by a real FRR 8.4.4 zebra over FPM, forwarding with
# DPDK against the Linux kernel as the remote PE, in throw-away network namespaces:
#
#   CE1-red  ─┐                                                   ┌─ CE2-red     (same addresses
#   CE1-blue ─┴─ PE1: srv6d (DPDK, af_xdp/af_packet) + zebra ══ core ══ PE2: Linux ─┴─ CE2-blue   in both VRFs)
#
# On a kernel without SRv6 routes (and VRF devices), as this project's development machines and
# CI have, it runs instead in the Debian 13 VM of tests/vm: Debian 13's kernel and FRR 10.3, bgpd
# on both PEs, PE1's frr.conf being frr-conf/frr10-l3vpn-pe.conf (scripts/demo-frr10.sh).
#
# It installs what is missing, builds srv6d and srv6ctl (nothing else: the tests, benches and
# header checks are not the demo's), brings the topology up
# (tests/live/e2e_lib.sh, the one the end-to-end test checks), sends IPv4 and IPv6 pings both
# ways in both VRFs, prints a summary (what FRR installed, what srv6d forwarded by behavior,
# the outer source seen on the core link) and tears everything down.
#
#   bash scripts/demo.sh [--hold]     as root (no sudo needed); --hold: keep everything up until Enter
#   DEMO_BUILD_DIR=DIR: skip deps/build, use DIR/apps/srv6d and DIR/apps/srv6ctl
#   DEMO_VM=frr8: in the VM, this script's FRR 8.4.4 topology (Debian 12's VM) instead of FRR 10.3;
#   DEMO_VM=frr10: the FRR 10.3 VM's demo even where this kernel has SRv6 routes
#
# No hugepages are needed: srv6d's EAL runs with --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
hold=0
case "${1:-}" in
  --hold) hold=1 ;;
  "") ;;
  *) echo "usage: $0 [--hold]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: run as root: it creates network namespaces and installs packages" >&2; exit 1; }

bdir="${DEMO_BUILD_DIR:-}"
if [ -z "$bdir" ]; then
	bash scripts/deps.sh
	bash scripts/build.sh release --apps
	bdir=build
fi
bdir="$(cd "$bdir" && pwd)"
export SRV6D="$bdir/apps/srv6d" SRV6CTL="$bdir/apps/srv6ctl"
# lib.sh checks every step itself and tears everything down on exit
set +e
source tests/live/lib.sh
source tests/live/e2e_lib.sh
# PE2 is the Linux kernel: on a kernel without SRv6 routes (this host's, CI's) the demo runs in
# the VM of tests/vm, by default its Debian 13 flavour: FRR 10.3 bgpd on both PEs, PE1's
# frr.conf frr-conf/frr10-l3vpn-pe.conf as users copy it (scripts/demo-frr10.sh). DEMO_VM=frr8:
# this script's own topology (FRR 8.4.4 zebra, the kernel's static SRv6 routes) in the Debian 12
# VM instead; DEMO_VM=frr10 runs the Debian 13 VM's demo on any kernel.
if [ "${DEMO_VM:-}" = frr10 ] || ! live_kernel_has_srv6; then
	[ "$hold" -eq 0 ] || live_die "--hold needs to run on this host: a kernel with SRv6 routes (CONFIG_IPV6_SEG6_LWTUNNEL), without DEMO_VM=frr10"
	export DEMO_BUILD_DIR="$bdir"
	if [ "${DEMO_VM:-frr10}" = frr8 ]; then
		live_need_kernel_srv6 "$0"
	fi
	export VM_FLAVOUR=trixie VM_CACHE="${VM_CACHE:-/var/tmp/srv6d-vm-trixie}"
	if [ ! -f "$VM_CACHE/initrd.gz" ] || [ ! -x "$VM_CACHE/frr-root/usr/lib/frr/zebra" ] ||
		[ tests/vm/initramfs-init.sh -nt "$VM_CACHE/initrd.gz" ]; then
		live_log "preparing the Debian 13 VM (Debian's 6.12 kernel and FRR 10.3; the first time ~4 min)"
		bash tests/vm/vm-build.sh || live_die "tests/vm/vm-build.sh failed"
	fi
	run="${DEMO_VM_RUN:-$VM_CACHE/runs/demo-$$}"
	live_log "this kernel has no SRv6 routes: the demo runs in a VM with Debian 13's kernel and FRR 10.3 (tests/vm; run folder $run)"
	bash tests/vm/vm-run.sh -t "${DEMO_VM_TIMEOUT:-840}" -c "${VM_CPUS:-2}" -o "$run" -e VM_REPO="$PWD" \
		scripts/demo-frr10.sh "$bdir"
	exit $?
fi
live_require
for t in ethtool tcpdump; do command -v "$t" >/dev/null || live_die "missing tool: $t"; done
live_init "s6demo-$$"

section() { printf '\n\033[1m==== %s\033[0m\n' "$*"; }

live_log "bringing up CE1-red/blue, PE1 (srv6d + zebra), PE2 (Linux kernel), CE2-red/blue"
# The customer ports on net_af_xdp: net_af_packet has the kernel reassemble the customers' IPv4
# fragments before srv6d sees them (docs/host-path.md "IPv4 fragments and the PMDs").
E2E_CR_DEV="net_af_xdp0,iface=vr" E2E_CB_DEV="net_af_xdp1,iface=vb"
e2e_up
wait_until 20 "PE1's routes and SIDs in srv6d" e2e_state_ok || live_die "srv6d did not get PE1's state from zebra"
# the core neighbor: the kernel resolves it through the core port's TAP, srv6d mirrors it
warm ping6 "$PE1" fc00:12::2 1 && wait_until 5 "fc00:12::2 in srv6d" neigh_in core fc00:12::2 ||
	live_die "PE2 is not reachable across the core port"
e2e_warm_all || live_die "traffic does not pass (see $LIVE_WORK/srv6d.log)"

live_log "sending traffic: 5 pings each, IPv4 and IPv6, both VRFs, both directions"
srv6ctl clear counters >/dev/null
CORE="$LIVE_WORK/core.pcap"
cap_start "$PE2" core "$CORE" "ip6 and (ip6[6] == 43 or ip6[6] == 4 or ip6[6] == 41)"
declare -A result
for ce in "$CE1R|red|10.2.0.2|fd02::2" "$CE1B|blue|10.2.0.2|fd02::2" "$CE2R|red|10.1.0.2|fd01::2" "$CE2B|blue|10.1.0.2|fd01::2"; do
	IFS='|' read -r ns vrf a4 a6 <<<"$ce"
	ok4=$(ping4 "$ns" "$a4" 5 2>/dev/null | grep -c "reply from")
	ok6=$(ping6 "$ns" "$a6" 5 2>/dev/null | grep -c "reply from")
	result["${ns##*-} ($vrf)"]="IPv4 -> $a4: $ok4/5   IPv6 -> $a6: $ok6/5"
done
cap_stop

section "What FRR installed (zebra on PE1: vtysh)"
vty "$PE1" "show ip route table 10" "show ipv6 route table 10" "show ip route table 20" "show ipv6 route table 20" |
	grep -E '^(Codes|VRF|Table)|^[A-Z>* ]+[0-9a-f:.]+/[0-9]+' | grep -v '^Codes'
echo "local SIDs (main table):"
vty "$PE1" "show ipv6 route" | grep seg6local
section "What srv6d holds (srv6ctl show sids, show encap-source)"
srv6ctl show sids
srv6ctl show encap-source
section "Traffic (replies received / sent)"
for k in "${!result[@]}"; do printf '  %-16s %s\n' "$k" "${result[$k]}"; done | sort
section "What srv6d forwarded, by behavior (srv6ctl show counters)"
srv6ctl show counters --json | jq -r '
	(.headend[]? | select((.packets | tonumber) > 0) | "  \(.behavior): \(.packets) packets encapsulated"),
	(.sids[]? | select((.packets | tonumber) > 0) | "  \(.behavior) \(.prefix): \(.packets) packets decapsulated"),
	(.ports[]? | "  port \(.name): rx \(.rxPackets) tx \(.txPackets), punted to / injected from the kernel \(.punted // 0) / \(.injected // 0)"),
	"  dropped: \([.drops[]? | .packets | tonumber] | add // 0)"'
section "On the core link (captured on PE2's side): outer IPv6 source > destination"
cap_read "$CORE" | awk '$2 == "IP6" { s = $3; d = $5; sub(/:$/, "", d); n[s " > " d]++ } END { for (k in n) printf "  %-40s %d packets\n", k, n[k] }' |
	sort | tee "$LIVE_WORK/outer.txt"
echo "  (PE1's encap source is srv6d's configured $E2E_ENCAP_SRC; PE2's is its kernel tunsrc fc00:2::1)"

# The demo's own verdict (CI runs it as a test): every ping answered, every packet PE1 put on
# the core came from the configured source, and srv6d encapsulated and decapsulated them.
ok=1
for k in "${!result[@]}"; do [[ "${result[$k]}" == *"5/5"*"5/5"* ]] || ok=0; done
grep -q "^  $E2E_ENCAP_SRC > fc00:2::" "$LIVE_WORK/outer.txt" || ok=0
grep -E "^  fc00:1::[0-9a-f:]+ > " "$LIVE_WORK/outer.txt" | grep -qv "^  $E2E_ENCAP_SRC " && ok=0
[ "$(srv6ctl show counters --json | jq '[.headend[]?.packets | tonumber] | add // 0')" -ge 20 ] || ok=0
[ "$(srv6ctl show counters --json | jq '[.sids[]?.packets | tonumber] | add // 0')" -ge 20 ] || ok=0

if [ "$hold" = 1 ]; then
	section "still running; try:"
	echo "  vtysh -N $PE1 -c 'show ip route table 10'"
	echo "  $SRV6CTL --socket $SRV6D_SOCK show counters        (or: show routes vrf red, show sids --json)"
	echo "  ip netns exec $CE1R ping 10.2.0.2"
	read -r -p "press Enter to tear everything down " _
fi
live_log "tearing down"
if [ "$ok" != 1 ]; then
	live_log "FAIL: the demo's traffic did not all pass through srv6d as expected (see above)"
	exit 1
fi
live_log "demo passed"
