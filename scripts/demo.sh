#!/usr/bin/env bash
# demo.sh: srv6d learning a real FRR 8.4.4 zebra's RIB over FPM, in two throw-away network
# namespaces (the topology of the live test, tests/live/lib.sh):
#   installs what is missing, builds the release flavour, starts srv6d, zebra + staticd + bgpd
#   and kernel SRv6 routes, waits until srv6d's RIB equals zebra's, prints both, tears down.
#
#   sudo bash scripts/demo.sh [--hold]     --hold: keep everything up until Enter is pressed
#   DEMO_BUILD_DIR=DIR: skip deps/build, use DIR/apps/srv6d and DIR/apps/srv6ctl
#
# srv6d runs with its dataplane off ([dataplane] enabled=false): forwarding is not written
# yet, and so the demo needs no hugepages.
set -euo pipefail
cd "$(dirname "$0")/.."
hold=0
case "${1:-}" in
  --hold) hold=1 ;;
  "") ;;
  *) echo "usage: $0 [--hold]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: run as root (sudo): it creates network namespaces" >&2; exit 1; }

bdir="${DEMO_BUILD_DIR:-}"
if [ -z "$bdir" ]; then
	bash scripts/deps.sh
	bash scripts/build.sh release
	bdir=build
fi
bdir="$(cd "$bdir" && pwd)"
export SRV6D="$bdir/apps/srv6d" SRV6CTL="$bdir/apps/srv6ctl"
# lib.sh checks every step itself and tears everything down on exit
set +e
source tests/live/lib.sh
live_require
live_init "s6demo-$$"

section() { printf '\n\033[1m==== %s\033[0m\n' "$*"; }

# side_by_side TITLE-LEFT TITLE-RIGHT FILE-LEFT FILE-RIGHT: two columns if the terminal is wide
side_by_side() {
	local cols
	cols=$(tput cols 2>/dev/null || echo 80)
	if [ "$cols" -ge 200 ]; then
		section "$1  |  $2"
		# left column cut at half the width, right column as is
		awk -v w=$((cols / 2 - 2)) 'NR == FNR { l[FNR] = $0; n = FNR; next } { r[FNR] = $0; m = FNR }
			END { for (i = 1; i <= (n > m ? n : m); i++) printf "%-*.*s | %s\n", w, w, l[i], r[i] }' "$3" "$4"
	else
		section "$1"
		cat "$3"
		section "$2"
		cat "$4"
	fi
}

live_log "bringing up namespaces $LIVE_PREFIX-dut and $LIVE_PREFIX-peer"
topo_up
topo_start 3000
live_log "waiting until srv6d's RIB equals zebra's (tables 254, 100, 1000)"
rib_compare routes --ns "$DUT" --tables 254,100,1000 --timeout 30 \
	--expect 254:10.50.0.0/24:2 --expect 254:2001:db8:50::/64:2 --expect 254:fc00:0:1::5/128:1 \
	--expect 1000:192.0.2.0/24:1 || live_die "srv6d did not converge to zebra's RIB"
# the replay has no end marker: srv6d sweeps once zebra has been quiet for resync-quiet-ms
rib_compare fpm --connections 1 --sweeps 1 --timeout 20 >/dev/null || live_die "srv6d did not finish its resync"

section "srv6ctl show fpm"
srv6ctl show fpm
vty "$DUT" "show ip route" "show ipv6 route" "show ip route table 100" \
	"show ip route table 1000" "show ipv6 route table 1000" | grep -v '^Codes:\|^       ' >"$LIVE_WORK/zebra.txt"
srv6ctl show routes >"$LIVE_WORK/srv6d.txt"
side_by_side "zebra (vtysh -N $DUT): show ip[v6] route" "srv6d: srv6ctl show routes" \
	"$LIVE_WORK/zebra.txt" "$LIVE_WORK/srv6d.txt"
section "srv6ctl show sids"
srv6ctl show sids

if [ "$hold" = 1 ]; then
	section "still running; try:"
	echo "  vtysh -N $DUT -c 'show ip route'"
	echo "  $SRV6CTL --socket $SRV6D_SOCK show nexthops      (or: show routes --json)"
	echo "  ip netns exec $DUT ip -6 route add fc00:0:1::77/128 encap seg6local action End dev e0"
	read -r -p "press Enter to tear everything down " _
fi
live_log "tearing down"
