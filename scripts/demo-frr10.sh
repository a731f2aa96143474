#!/usr/bin/env bash
# demo-frr10.sh BUILD_DIR: scripts/demo.sh's demo on Debian 13's FRR 10.3 and 6.12 kernel, run
# INSIDE the trixie VM of tests/vm (scripts/demo.sh boots it when this host's kernel has no SRv6
# routes or VRF devices). An SRv6 L3VPN between two FRR 10.3 PEs with bgpd, the file users copy
# (frr-conf/frr10-l3vpn-pe.conf) as PE1's /etc/frr/frr.conf:
#
#   CE1-red  ─┐                                                        ┌─ CE2-red   (the same
#   CE1-blue ─┴─ PE1: srv6d (DPDK af_packet) + FRR 10.3 ══ core ══ PE2: FRR 10.3 on ─┴─ CE2-blue  addresses
#                 zebra -> FPM -> srv6d, bgpd uDT46 per VRF         the Linux kernel              in both VRFs)
#
# It pings both ways, IPv4 and IPv6, in both VRFs, prints what FRR and srv6d hold and what went
# over the core, and exits 0 only if every echo came back through srv6d from FRR's source-address.
set -u
BUILD="${1:?usage: demo-frr10.sh BUILD_DIR}"
export SRV6D="$BUILD/apps/srv6d" SRV6CTL="$BUILD/apps/srv6ctl"
LIVE_DIR="${VM_REPO:?VM_REPO is set by scripts/demo.sh}/tests/live"
source "$LIVE_DIR/lib.sh"
LIVE_HOME="$LIVE_DIR"
F10_PREFIX=s6demo
source "$VM_REPO/tests/vm/guest/frr10_lib.sh"
for m in vrf tun dummy veth; do modprobe "$m" || live_die "modprobe $m"; done
LIVE_CAP_WAIT=30 LIVE_CAP_SETTLE=2
live_init "$F10_PREFIX"
trap 'rc=$?; f10_down; (exit $rc); live_cleanup' EXIT
section() { printf '\n\033[1m==== %s\033[0m\n' "$*"; }
ok1() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" ${3:+-6} -c 1 -W 1 "$2" | grep -q "reply from"; }

live_log "kernel $(uname -r), FRR $(chroot "$FRR_ROOT" dpkg-query -W -f '${Version}' frr) (Debian 13), $("$SRV6D" --version 2>/dev/null | head -1)"
live_log "bringing up CE1-red/blue, PE1 (srv6d + FRR 10.3), PE2 (FRR 10.3 on the kernel), CE2-red/blue"
f10_topo srv6d
f10_frr_up srv6d
wait_until 180 "BGP PE1-PE2 established" f10_bgp_up || live_die "BGP did not come up"
live_log "BGP established; waiting for the VPN to forward"
for ce in "$CE1R" "$CE1B"; do
	wait_until 180 "$ce reaches CE2" ok1 "$ce" 10.2.0.2 || live_die "no traffic through srv6d (see the logs above)"
done

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

section "What FRR 10.3 holds on PE1 (vtysh)"
vty "$PE1" "show bgp ipv4 vpn" | grep -E '^Route Distinguisher|^ *\*>? ' | head -20
vty "$PE1" "show segment-routing srv6 locator"
vty "$PE1" "show ip route vrf red" | grep -E '^[A-Z>* ]+[0-9a-f:.]+/[0-9]+|seg6'
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
echo "  (PE1's encap source is FRR's \`encapsulation source-address\` $FRR_SRC, which srv6d reads from the"
echo "   kernel's tunsrc zebra sets; PE2's is fc00:2::1)"

# the verdict: every ping answered, every packet PE1 put on the core came from FRR's
# source-address, and srv6d encapsulated and decapsulated them
ok=1
for k in "${!result[@]}"; do [[ "${result[$k]}" == *"5/5"*"5/5"* ]] || ok=0; done
grep -q "^  $FRR_SRC > fcbb:bbbb:2:" "$LIVE_WORK/outer.txt" || ok=0
grep -E "^  fc00:1::[0-9a-f:]+ > " "$LIVE_WORK/outer.txt" | grep -qv "^  $FRR_SRC " && ok=0
[ "$(srv6ctl show counters --json | jq '[.headend[]?.packets | tonumber] | add // 0')" -ge 20 ] || ok=0
[ "$(srv6ctl show counters --json | jq '[.sids[]?.packets | tonumber] | add // 0')" -ge 20 ] || ok=0
live_log "tearing down"
[ "$ok" = 1 ] || { live_log "FAIL: the demo's traffic did not all pass through srv6d as expected (see above)"; exit 1; }
live_log "demo passed"
