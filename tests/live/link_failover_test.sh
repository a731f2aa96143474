#!/usr/bin/env bash
# Live test of link state and ECMP local repair (docs/dataplane.md "Link state"): a route with
# two paths over two DPDK ports, 32 UDP flows spread over them, one link's carrier lost at the
# far end. srv6d must notice within its 100 ms poll, show NO-CARRIER on the port's TAP mirror
# while leaving it administratively up with its addresses (IPv6 too: keep_addr_on_down is 0
# here), move the flows of the dead path to the live one without waiting for zebra, leave the
# other flows alone, and use both paths again when the link returns. Then more flaps, of the
# far end's carrier and of the port's own interface's admin state: after each, both paths of
# the staticd route and of a kernel route are back in srv6d, zebra's tables equal srv6d's, the
# kernel's routes are as before, and the flows use both paths. The loss window is printed.
#
#   sudo tests/live/link_failover_test.sh [BUILD_DIR]
#
#   host1 [h0] ---- [d0] DUT: srv6d port p0 (tap pe0: 10.0.0.1/24)
#                   [d1]      srv6d port p1 (tap pe1: 10.0.1.1/24) ---- [a0] R (10.0.1.2)
#                   [d2]      srv6d port p2 (tap pe2: 10.0.2.1/24) ---- [b0] R (10.0.2.2)
#   R owns 10.9.0.5 (the flows' sink). staticd routes 10.9.0.0/24 over both paths; zebra
#   (dplane_fpm_nl) gives it to srv6d over FPM.
#
# Runs on any kernel (no SRv6 routes needed).
set -u
source "$(dirname "$0")/lib.sh"

live_require
command -v ethtool >/dev/null || live_die "missing tool: ethtool"
live_init "${LIVE_PREFIX:-s6l-$$}"

DUT="$LIVE_PREFIX-dut"
H1="$LIVE_PREFIX-h1"
R="$LIVE_PREFIX-r"
ns_add "$DUT"
ns_add "$H1"
ns_add "$R"
dut_link "$DUT" d0 "$H1" h0
dut_link "$DUT" d1 "$R" a0
dut_link "$DUT" d2 "$R" b0
addr "$H1" h0 10.0.0.2/24
ip -n "$H1" route add default via 10.0.0.1
addr "$R" a0 10.0.1.2/24
addr "$R" b0 10.0.2.2/24
stub_if "$R" lan
addr "$R" lan 10.9.0.5/24
ip -n "$R" route add 10.0.0.0/24 via 10.0.2.1  # replies (pings only) over the link that stays up
# the sink takes the flows on either link
ip netns exec "$R" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
	net.ipv4.conf.a0.rp_filter=0 net.ipv4.conf.b0.rp_filter=0

# rings of 4 096 frames (the PMD default is 512): a worker off its CPU for ~80 ms on a loaded
# machine would otherwise overflow the ring and "the flows on the live path lost nothing" fail
srv6d_conf_write "$DUT" <<EOF
mbufs = 16383
port = p0 net_af_packet0,iface=d0,framecnt=4096 tap=pe0
port = p1 net_af_packet1,iface=d1,framecnt=4096 tap=pe1
port = p2 net_af_packet2,iface=d2,framecnt=4096 tap=pe2
[log]
level = info
EOF
srv6d_dataplane_start "$DUT" pe2
for t in pe0 pe1 pe2; do ip -n "$DUT" link set "$t" up; done
addr "$DUT" pe0 10.0.0.1/24
addr "$DUT" pe1 10.0.1.1/24
addr "$DUT" pe2 10.0.2.1/24
# IPv6 on the mirrors (keep_addr_on_down 0, the default): an admin down would delete these
for i in 1 2; do
	ip netns exec "$DUT" sysctl -qw "net.ipv6.conf.pe$i.keep_addr_on_down=0"
	addr "$DUT" "pe$i" "fd00:$i::1/64"
done

# staticd's two-path route: zebra re-evaluates it on link changes (a kernel route's dead path
# is not revived by zebra when the link returns)
printf 'hostname dut\nip route 10.9.0.0/24 10.0.1.2\nip route 10.9.0.0/24 10.0.2.2\n' >"$LIVE_WORK/dut-staticd.conf"
dut_zebra_start "$DUT"
frr_start "$DUT" staticd "$LIVE_WORK/dut-staticd.conf"

paths_in_srv6d() { # paths_in_srv6d [PREFIX]: the number of paths srv6d has for it (10.9.0.0/24)
	srv6ctl show routes --json | jq -r --arg p "${1:-10.9.0.0/24}" '[.. | objects | select(.prefix? == $p)][0]
		| [.. | objects | select(.gateway? != null)] | length'
}
# and a kernel route with the same two paths (zebra relays it as a kernel route)
ip -n "$DUT" route add 10.8.0.0/24 nexthop via 10.0.1.2 dev pe1 nexthop via 10.0.2.2 dev pe2 ||
	live_die "cannot add the kernel route 10.8.0.0/24"
check "the two-path route reached srv6d over FPM" wait_until 20 "10.9.0.0/24 with 2 paths in srv6d" \
	eval '[ "$(paths_in_srv6d)" = 2 ]'
check "the two-path kernel route reached srv6d over FPM" wait_until 20 "10.8.0.0/24 with 2 paths in srv6d" \
	eval '[ "$(paths_in_srv6d 10.8.0.0/24)" = 2 ]'
kernel_routes() { # the DUT kernel's routes, without the linkdown / dead marks of a link that is down and
	# the ids of the nexthop objects zebra makes anew
	{ ip -n "$DUT" route show table all; ip -n "$DUT" -6 route show table all; } |
		grep -v -e '^local ' -e '^multicast ' -e 'fe80::' | sed -e 's/ linkdown//g' -e 's/ dead//g' -e 's/ nhid [0-9]*//' | sort
}
kernel_prefixes() { # a route list's destinations and tables
	grep -v '^[[:space:]]*nexthop ' | awk '{ t = "main"; for (i = 2; i < NF; i++) if ($i == "table") t = $(i + 1); print $1, t }' | sort -u
}
kernel_routes >"$LIVE_WORK/kernel-routes-before.txt"
rib_compare snapshot "$LIVE_WORK/srv6d-routes-before.json" >/dev/null
# neighbors: the kernel resolves them through the TAPs, srv6d mirrors them
ping4() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 "$2"; }
check "the DUT's kernel reaches both next hops through the TAPs" eval \
	'wait_until 10 "10.0.1.2" ping4 "$DUT" 10.0.1.2 && wait_until 10 "10.0.2.2" ping4 "$DUT" 10.0.2.2'
check "host1 reaches the sink through srv6d" wait_until 15 "host1 -> 10.9.0.5" ping4 "$H1" 10.9.0.5

ifx_a0="$(ip -n "$R" -j link show a0 | jq -r '.[0].ifindex')"
port_up() { srv6ctl show counters --json | jq -r --arg p "$1" '.ports[] | select(.name == $p) | .linkUp // false'; }
flows() { # flows LOG SECONDS: 32 flows from host1 to the sink, recorded by R
	rm -f "$LIVE_WORK/recv.stop"
	ip netns exec "$R" "$LIVE_PY" "$LIVE_HOME/flow_tool.py" recv "$1" "$LIVE_WORK/recv.stop" &
	local rcv=$!
	LIVE_PIDS+=("$rcv")
	sleep 0.3
	ip netns exec "$H1" "$LIVE_PY" "$LIVE_HOME/flow_tool.py" send 10.9.0.5 "$2" >"$1.sent"
	sleep 0.3
	touch "$LIVE_WORK/recv.stop"
	wait "$rcv"
}
paths_used() { jq -r '[.[] | .[4]] | unique | length' "$1"; }

# ---- both paths in use ------------------------------------------------------------------------
flows "$LIVE_WORK/steady.json" 1
check "the 32 flows use both paths" eval '[ "$(paths_used "$LIVE_WORK/steady.json")" = 2 ]'

# ---- a0 loses carrier (the far end goes down): p1 and its flows ---------------------------------
rm -f "$LIVE_WORK/recv.stop"
ip netns exec "$R" "$LIVE_PY" "$LIVE_HOME/flow_tool.py" recv "$LIVE_WORK/fail.json" "$LIVE_WORK/recv.stop" &
RCV=$!
LIVE_PIDS+=("$RCV")
sleep 0.3
ip netns exec "$H1" "$LIVE_PY" "$LIVE_HOME/flow_tool.py" send 10.9.0.5 4 >"$LIVE_WORK/fail.sent" &
SND=$!
sleep 1.5
FAIL_AT="$(date +%s.%N)"
ip -n "$R" link set a0 down
wait "$SND"
sleep 0.3
touch "$LIVE_WORK/recv.stop"
wait "$RCV"
res="$("$LIVE_PY" "$LIVE_HOME/flow_tool.py" analyse "$LIVE_WORK/fail.json" "$FAIL_AT" "$ifx_a0")"
live_log "link a0 down at $FAIL_AT: $res"
grep -E "port p1 link (down|up)" "$LIVE_WORK/srv6d.log" >&2
on_failed="$(jq -r .on_failed_path <<<"$res")"
check "some flows were on the failed path" eval '[ "$on_failed" -gt 0 ]'
check "every one of them moved to the live path" eval '[ "$(jq -r .moved <<<"$res")" = "$on_failed" ]'
check "the flows on the live path lost nothing" eval '[ "$(jq -r .others_lost <<<"$res")" = 0 ]'
check "the loss window stays under 500 ms (poll 100 ms)" eval \
	'[ "$(jq -r ".window_max_ms // 1e9 | . < 500" <<<"$res")" = true ]'
check "srv6d logged the link down" grep -q "port p1 link down" "$LIVE_WORK/srv6d.log"
check "show counters: p1 link down" eval '[ "$(port_up p1)" = false ]'
mirror_no_carrier() { # the TAP mirror $1: administratively UP, NO-CARRIER, operstate DOWN
	ip -n "$DUT" -j link show "$1" | jq -e '.[0] | (.flags | index("UP") != null and index("NO-CARRIER") != null
		and index("LOWER_UP") == null) and .operstate == "DOWN"' >/dev/null
}
mirror_up() { ip -n "$DUT" -j link show "$1" | jq -e '.[0] | (.flags | index("LOWER_UP") != null) and .operstate == "UP"' >/dev/null; }
mirror_addrs() { # $1 keeps the operator's 10.0.N.1/24 and fd00:N::1/64
	local n="${1#pe}" a
	a="$(ip -n "$DUT" -j addr show "$1" | jq -r '.[0].addr_info[] | "\(.local)/\(.prefixlen)"')"
	grep -qx "10.0.$n.1/24" <<<"$a" && grep -qx "fd00:$n::1/64" <<<"$a"
}
check "the TAP mirror pe1 shows NO-CARRIER, administratively UP (the kernel and zebra see the link down)" \
	wait_until 3 "pe1 NO-CARRIER" mirror_no_carrier pe1
check "pe1 kept its addresses, IPv6 too (an admin down would have deleted fd00:1::1)" mirror_addrs pe1

# ---- a0 back: both paths again -----------------------------------------------------------------
ip -n "$R" link set a0 up
check "show counters: p1 link up again" wait_until 5 "p1 up" eval '[ "$(port_up p1)" = true ]'
check "srv6d logged the link up" grep -q "port p1 link up" "$LIVE_WORK/srv6d.log"
# The TAP comes back up; the kernel (and zebra, then srv6d) restore the second path.
check "srv6d has both paths again" wait_until 20 "2 paths" eval '[ "$(paths_in_srv6d)" = 2 ]'
wait_until 10 "10.0.1.2 again" ping4 "$DUT" 10.0.1.2 >/dev/null
flows "$LIVE_WORK/back.json" 1
check "the flows use both paths again" eval '[ "$(paths_used "$LIVE_WORK/back.json")" = 2 ]'

# ---- more flaps: the far end's carrier, the port's own interface's admin state ------------------
whole_again() { # whole_again WHAT: everything as before the flaps
	check "$1: the mirror pe1 is up with its addresses" eval 'wait_until 5 "pe1 up" mirror_up pe1 && mirror_addrs pe1'
	check "$1: both paths of the staticd and the kernel route in srv6d" wait_until 20 "2 + 2 paths" \
		eval '[ "$(paths_in_srv6d)" = 2 ] && [ "$(paths_in_srv6d 10.8.0.0/24)" = 2 ]'
	check "$1: srv6d's routes equal zebra's" rib_compare routes --ns "$DUT" --timeout 20
	check "$1: srv6d's routes are the ones it had before the flaps" rib_compare unchanged "$LIVE_WORK/srv6d-routes-before.json"
	# The kernel's paths are zebra's to restore, not srv6d's: the kernel flushes the nexthop
	# objects of a device that loses carrier, and FRR 8.4.4's zebra put the staticd route's
	# group back after the first flap only (from the second on the kernel kept one path while
	# zebra, and srv6d, had both). So: every route the kernel had is there; paths as printed.
	check "$1: the kernel has every route it had before" eval \
		'wait_until 10 "kernel routes" eval "[ \"\$(kernel_routes | kernel_prefixes)\" = \"\$(kernel_prefixes <$LIVE_WORK/kernel-routes-before.txt)\" ]"'
	kernel_routes | diff "$LIVE_WORK/kernel-routes-before.txt" - >&2 || live_log "$1: the kernel's paths differ from before (above)"
	wait_until 10 "10.0.1.2 again" ping4 "$DUT" 10.0.1.2 >/dev/null
	flows "$LIVE_WORK/again.json" 1
	check "$1: the flows use both paths" eval '[ "$(paths_used "$LIVE_WORK/again.json")" = 2 ]'
}
whole_again "after the first carrier flap"
for n in 2 3; do
	ip -n "$R" link set a0 down
	check "carrier flap $n: p1 down, pe1 NO-CARRIER, addresses kept" eval \
		'wait_until 3 "p1 down" eval "[ \"\$(port_up p1)\" = false ]" && wait_until 3 "pe1 NO-CARRIER" mirror_no_carrier pe1 && mirror_addrs pe1'
	sleep 1
	ip -n "$R" link set a0 up
	whole_again "carrier flap $n"
done
for n in 1 2; do
	ip -n "$DUT" link set d1 down  # the port's own interface, administratively
	check "admin flap $n of d1: p1 down, pe1 NO-CARRIER and still UP" eval \
		'wait_until 3 "p1 down" eval "[ \"\$(port_up p1)\" = false ]" && wait_until 3 "pe1 NO-CARRIER" mirror_no_carrier pe1 && mirror_addrs pe1'
	sleep 1
	ip -n "$DUT" link set d1 up
	whole_again "admin flap $n of d1"
done

srv6ctl show counters >"$LIVE_WORK/counters.txt"
cat "$LIVE_WORK/counters.txt"
live_finish
