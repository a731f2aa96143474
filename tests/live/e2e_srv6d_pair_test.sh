#!/usr/bin/env bash
# End-to-end SRv6 L3VPN test with srv6d on BOTH sides: PE1 and PE2 are each srv6d (DPDK on
# net_af_packet ports, TAP mirrors) fed by its own FRR 8.4.4 zebra over FPM, two VRFs with
# overlapping customer prefixes. The topology is tests/live/e2e_lib.sh's (e2e_topo) with PE2's
# kernel replaced by srv6d; the SRv6 state of both PEs is frr-conf/l3vpn-pe.sh.
#
#   sudo tests/live/e2e_srv6d_pair_test.sh [BUILD_DIR]
#
#  ce1r 10.1.0.2 ─[vr]  PE1 srv6d cr/cb/core (taps tcr tcb tcore fc00:12::1)  [encap] source fc00:1::1
#  ce1b 10.1.0.2 ─[vb]      zebra -M dplane_fpm_nl, l3vpn_pe_routes
#                      [vc] ── core veth, MTU 1600 ── [core]
#  ce2r 10.2.0.2 ─[cer] PE2 srv6d cr/cb/core (taps tcr tcb tcore fc00:12::2)  ip sr tunsrc fc00:2::1
#  ce2b 10.2.0.2 ─[ceb]     zebra -M dplane_fpm_nl, l3vpn_pe2_routes
#  (and fd01::2 / fd02::2 on every CE; red = table 10, blue = table 20 on both PEs)
#
# Checks: both srv6d's hold their VRF routes and SIDs (from their zebra) and their encap source
# (PE1 from its config, PE2 from the kernel tunsrc); per VRF, CE1 <-> CE2 IPv4 and IPv6 pings
# in both directions; captures on both ends of the core link show each direction's outer source
# and the SID FRR sent (and nothing of the other VRF); captures on the other VRF's CEs see
# nothing; both srv6d's SID and port counters show they encapsulated and decapsulated every
# packet, and the kernels' TAP counters show the kernel handled none of them; a route withdrawn
# at PE2 stops red's traffic (blue's keeps flowing) and re-adding it restores it.
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_lib.sh"
source "$LIVE_REPO/frr-conf/l3vpn-pe.sh"

# The Linux kernel is a peer here: a kernel without SRv6 routes runs this test in the VM.
live_need_kernel_srv6 "$0" "$@"
live_require
for t in ethtool tcpdump; do command -v "$t" >/dev/null || live_die "missing tool: $t"; done
live_init "${LIVE_PREFIX:-s6e-$$}"

SRC1=fc00:1::1 # PE1: srv6d's [encap] source
SRC2=fc00:2::1 # PE2: ip sr tunsrc in zebra's (and srv6d's) namespace
# EAL lcores of the two srv6d's. Both on lcore 0 by default: each worker busy-polls its lcore,
# so two spinning workers share one CPU and leave the other to FRR, the kernel and the tests.
PAIR_LCORE1="${PAIR_LCORE1:-0}"
PAIR_LCORE2="${PAIR_LCORE2:-0}"

# ---- topology: e2e_lib's, PE2's veths become srv6d ports too -----------------------------------
e2e_topo
for n in core cer ceb; do ip netns exec "$PE2" sysctl -qw "net.ipv6.conf.$n.disable_ipv6=1" "net.ipv4.conf.$n.arp_ignore=8"; done
# The kernel must not route what arrives on the DPDK side of a veth (it sees those frames as
# well as af_packet does): no IPv6 there (above) and no IPv4 forwarding (e2e_topo does both for
# PE1), so every forwarded packet is srv6d's.
for n in core cer ceb; do ip netns exec "$PE2" sysctl -qw "net.ipv4.conf.$n.forwarding=0"; done
# CE2s now send into af_packet ports: TX checksums in software (as e2e_topo does for CE1s)
ip netns exec "$CE2R" ethtool -K r0 tx off >/dev/null 2>&1
ip netns exec "$CE2B" ethtool -K b0 tx off >/dev/null 2>&1
ip netns exec "$PE1" ethtool -K vc tx off >/dev/null 2>&1

# ---- the two srv6d's -----------------------------------------------------------------------------
# pair_conf N NS CR_IF CB_IF CORE_IF LCORE [SECTION_LINES]: srv6d-peN.conf. EAL: --no-shconf, so
# the two (and any other srv6d on the machine) do not share DPDK's runtime directory
# (/var/run/dpdk/rte: a second primary with the same --file-prefix is refused).
pair_conf() {
	local n="$1" ns="$2" port
	port="$(free_port "$ns")"
	eval "PORT$n=$port"
	cat >"$LIVE_WORK/srv6d-pe$n.conf" <<-EOF
		vrf = red table 10
		vrf = blue table 20
		[fpm]
		listen = 127.0.0.1
		port = $port
		resync-quiet-ms = 1000
		[mgmt]
		socket = $LIVE_WORK/srv6d-pe$n.sock
		[log]
		level = debug
		[eal]
		args = -l $6 --no-pci --no-huge -m 256 --no-shconf --no-telemetry --log-level=lib.eal:error
		[dataplane]
		enabled = true
		mbufs = 8191
		idle-sleep = 1000
		port = cr net_af_packet0,iface=$3 tap=tcr vrf=red
		port = cb net_af_packet1,iface=$4 tap=tcb vrf=blue
		port = core net_af_packet2,iface=$5 tap=tcore mtu=1600
		${7:-}
	EOF
}
# pair_run N NS CUSTOMER_V4 CUSTOMER_V6 CORE_ADDR: start srv6d N, give its TAPs their addresses.
pair_run() {
	local n="$1" ns="$2" pid t pidf=srv6d-pe$1.pid
	[ "$n" = 1 ] && pidf=srv6d.pid # the name tests/live/cleanup.sh also looks for
	ip netns exec "$ns" "$SRV6D" -c "$LIVE_WORK/srv6d-pe$n.conf" >>"$LIVE_WORK/srv6d-pe$n.log" 2>&1 &
	pid=$!
	echo "$pid" >"$LIVE_WORK/$pidf"
	LIVE_PIDS+=("$pid")
	eval "SRV6D_PID$n=$pid"
	wait_until 30 "srv6d PE$n up with its TAPs" eval "[ -S $LIVE_WORK/srv6d-pe$n.sock ] && ip -n $ns link show tcore >/dev/null" ||
		{ tail -30 "$LIVE_WORK/srv6d-pe$n.log" >&2; live_die "srv6d PE$n did not come up"; }
	for t in tcr tcb tcore; do ip -n "$ns" link set "$t" up; done
	addr "$ns" tcr "$3/24"
	addr "$ns" tcr "$4/64"
	addr "$ns" tcb "$3/24"
	addr "$ns" tcb "$4/64"
	addr "$ns" tcore "$5/64"
}
# on N CMD...: run an e2e_lib.sh helper (srv6ctl, route_in, sid_ok, cnt, drops, neigh_in)
# against srv6d N.
on() {
	local n="$1"
	shift
	SRV6D_SOCK="$LIVE_WORK/srv6d-pe$n.sock" "$@"
}

ip -n "$PE2" sr tunsrc set "$SRC2"
pair_conf 1 "$PE1" vr vb vc "$PAIR_LCORE1" "[encap]
		source = $SRC1"
pair_conf 2 "$PE2" cer ceb core "$PAIR_LCORE2"
pair_run 1 "$PE1" 10.1.0.1 fd01::1 fc00:12::1
pair_run 2 "$PE2" 10.2.0.1 fd02::1 fc00:12::2
SRV6D_SOCK="$LIVE_WORK/srv6d-pe1.sock" # for live_dump
live_log "srv6d PE1 pid $SRV6D_PID1 (FPM $PORT1), PE2 pid $SRV6D_PID2 (FPM $PORT2)"
for n in 1 2; do # where the workers spin and the control threads run (docs/srv6d.md, Process)
	live_log "PE$n: $(grep -m1 -o 'lcores on CPUs .*' "$LIVE_WORK/srv6d-pe$n.log")"
done

# ---- the two zebras (frr-conf/zebra.conf with each srv6d's port), then the kernel routes -------
pair_zebra() { # pair_zebra N NS PORT
	sed "s/^fpm address 127.0.0.1 port 2620\$/fpm address 127.0.0.1 port $3/; s/^hostname .*/hostname pe$1/" \
		"$LIVE_REPO/frr-conf/zebra.conf" >"$LIVE_WORK/pe$1-zebra.conf"
	grep -qx "fpm address 127.0.0.1 port $3" "$LIVE_WORK/pe$1-zebra.conf" || live_die "zebra.conf has no fpm address line"
	frr_start "$2" zebra "$LIVE_WORK/pe$1-zebra.conf" -M dplane_fpm_nl
}
pair_zebra 1 "$PE1" "$PORT1"
pair_zebra 2 "$PE2" "$PORT2"
# zebra connects ~3 s after it starts; both wait at once. FRR 8.4.4 does not replay tables
# 10/20 on connect, so the routes are added once each zebra is connected.
for n in 1 2; do
	on $n rib_compare fpm --connections 1 --connected --timeout 20 >/dev/null || live_die "PE$n's zebra did not connect to srv6d"
done
l3vpn_pe_routes "$PE1" || live_die "PE1's kernel routes could not be added"
l3vpn_pe2_routes "$PE2" || live_die "PE2's kernel routes could not be added"

# ---- the SRv6 state arrived over FPM, on both sides ---------------------------------------------
pe_state_ok() { # pe_state_ok ME PEER: srv6d ME holds l3vpn_pe's routes and SIDs
	local m="$1" p="$2"
	routes_in "10 10.$p.0.0/24 fc00:$p::a4" "10 fd0$p::/64 fc00:$p::a6" "20 10.$p.0.0/24 fc00:$p::b4" \
		"20 fd0$p::/64 fc00:$p::b6" "10 10.$m.0.0/24" "10 fd0$m::/64" "20 10.$m.0.0/24" \
		"20 fd0$m::/64" "254 fc00:$p::/48" &&
		sids_ok "fc00:$m::a4 End.DX4 -" "fc00:$m::b4 End.DX4 -" "fc00:$m::a6 End.DT6 red" "fc00:$m::b6 End.DT6 blue"
}
check "PE1's srv6d: VRF routes (tables 10, 20) with PE2's SIDs, its own four SIDs active, DT6 bound to red/blue" \
	wait_until 20 "PE1 state" on 1 pe_state_ok 1 2
check "PE2's srv6d: VRF routes (tables 10, 20) with PE1's SIDs, its own four SIDs active, DT6 bound to red/blue" \
	wait_until 20 "PE2 state" on 2 pe_state_ok 2 1
for n in 1 2; do
	on $n srv6ctl show routes >"$LIVE_WORK/routes-pe$n.txt" 2>&1
	on $n srv6ctl show sids 2>&1 | tee "$LIVE_WORK/sids-pe$n.txt" >&2
done
src_is() { srv6ctl show encap-source --json | jq -e --arg a "$1" --arg o "$2" '.address == $a and .origin == $o' >/dev/null; }
check "PE1's encap source is $SRC1 from its config" on 1 src_is "$SRC1" config
# read from the kernel every 2 s
check "PE2's encap source is $SRC2 from the kernel tunsrc (ip sr tunsrc in its namespace)" \
	wait_until 5 "PE2 tunsrc" on 2 src_is "$SRC2" kernel-tunsrc
# "the SID list FRR sent": the seg6 segments of each encap route as srv6d received them
segs() { # segs N TABLE PREFIX: the SID list srv6d N holds for that route, comma-separated
	on "$1" srv6ctl show routes --json | jq -r --arg t "$2" --arg p "$3" \
		'[.[$t][]? | select(.prefix == $p) | .. | objects | .segments? // empty | .[]] | join(",")'
}
declare -A SEGS
for k in "1 10 10.2.0.0/24" "1 10 fd02::/64" "1 20 10.2.0.0/24" "1 20 fd02::/64" \
	"2 10 10.1.0.0/24" "2 10 fd01::/64" "2 20 10.1.0.0/24" "2 20 fd01::/64"; do
	# shellcheck disable=SC2086
	SEGS[$k]="$(segs $k)"
done
live_log "SID lists from FPM: PE1 red ${SEGS[1 10 10.2.0.0/24]} ${SEGS[1 10 fd02::/64]} blue ${SEGS[1 20 10.2.0.0/24]} ${SEGS[1 20 fd02::/64]}; PE2 red ${SEGS[2 10 10.1.0.0/24]} ${SEGS[2 10 fd01::/64]} blue ${SEGS[2 20 10.1.0.0/24]} ${SEGS[2 20 fd01::/64]}"
check "the SID lists are the kernel routes' (one SID each, as 8.4.4 relays)" eval \
	'[ "${SEGS[1 10 10.2.0.0/24]}" = fc00:2::a4 ] && [ "${SEGS[1 10 fd02::/64]}" = fc00:2::a6 ] &&
	 [ "${SEGS[1 20 10.2.0.0/24]}" = fc00:2::b4 ] && [ "${SEGS[1 20 fd02::/64]}" = fc00:2::b6 ] &&
	 [ "${SEGS[2 10 10.1.0.0/24]}" = fc00:1::a4 ] && [ "${SEGS[2 10 fd01::/64]}" = fc00:1::a6 ] &&
	 [ "${SEGS[2 20 10.1.0.0/24]}" = fc00:1::b4 ] && [ "${SEGS[2 20 fd01::/64]}" = fc00:1::b6 ]'

# ---- neighbors: the kernels resolve over the TAPs, through both dataplanes -----------------------
check "PE1's kernel reaches PE2's across both srv6d's core ports (ND through the TAPs)" \
	wait_until 10 "PE1 -> fc00:12::2" ping6 "$PE1" fc00:12::2 1
check "both srv6d's mirror their core neighbor" eval \
	'wait_until 5 "PE1 neighbor" on 1 neigh_in core fc00:12::2 && wait_until 5 "PE2 neighbor" on 2 neigh_in core fc00:12::1'
# A decapsulated packet towards a CE its PE's kernel has not learned is dropped
# (neigh_unresolved) while srv6d has the kernel resolve it (docs/host-path.md). To have every
# neighbor in place at once, every CE first sends one echo to the remote CE, all at once: its
# ARP/ND for its gateway teaches its PE's kernel (and srv6d) the CE, and srv6d's requests
# resolve the rest. (Not a ping of the gateway itself: the kernel answers it by
# its main table, where 10.1.0.0/24 is on both tcr and tcb, so blue's answer would leave by
# red's TAP.) Then each pair is warmed up with bounded retries.
first=()
for ce in "$CE1R:10.2.0.2:fd02::2" "$CE1B:10.2.0.2:fd02::2" "$CE2R:10.1.0.2:fd01::2" "$CE2B:10.1.0.2:fd01::2"; do
	IFS=: read -r ns a4 _ <<<"$ce"
	a6="${ce#*:*:}"
	ip netns exec "$ns" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c 1 -W 1 "$a4" >/dev/null 2>&1 &
	first+=($!)
	ip netns exec "$ns" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -6 -c 1 -W 1 "$a6" >/dev/null 2>&1 &
	first+=($!)
done
wait "${first[@]}"
warm ping4 "$CE1R" 10.2.0.2 1 && warm ping6 "$CE1R" fd02::2 1 && warm ping4 "$CE1B" 10.2.0.2 1 &&
	warm ping6 "$CE1B" fd02::2 1 && warm ping4 "$CE2R" 10.1.0.2 1 && warm ping6 "$CE2R" fd01::2 1 &&
	warm ping4 "$CE2B" 10.1.0.2 1 && warm ping6 "$CE2B" fd01::2 1 || live_log "warm-up incomplete"
live_log "warm-up done"

# ---- per VRF: pings both ways, core and CE captures, counters on both srv6d's --------------------
tap_rx() { ip -n "$1" -s -j link show "$2" | jq '.[0].stats64.rx.packets'; } # what srv6d punted to the kernel
taps_rx() { echo $(($(tap_rx "$1" tcr) + $(tap_rx "$1" tcb) + $(tap_rx "$1" tcore))); }
# The checked pings wait 5 s for each reply (e2e_lib's ping4/6: 2 s): two busy-polling
# workers share a CPU here, and on a loaded machine a reply was once 2.4 s late. Late is not lost.
pping4() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -c "${3:-3}" -W 5 "$2"; }
pping6() { ip netns exec "$1" "$LIVE_PY" "$LIVE_HOME/icmp_ping.py" -6 -c "${3:-3}" -W 5 "$2"; }
n_in() { grep -cE "$2" "$LIVE_WORK/$1.txt"; }
cf() { # cf FILE PORT|FIELD...: counters of a saved `srv6ctl show counters --json` (a port's or a SID's, as cnt)
	jq -r '. as $c | [$ARGS.positional[] | split("|") as [$n, $f] |
		(([$c.ports[]? | select(.name == $n) | .[$f]] + [$c.sids[]? | select(.prefix == ($n + "/128")) | .[$f]] + ["0"])[0] | tonumber)] | join(" ")' \
		"$1" --args "${@:2}"
}
# one_sid SRC SID: an encapsulated packet from SRC to SID whose SID list is exactly SID:
# H.Encaps.Red (no SRH) or H.Encaps with an SRH holding that one segment
one_sid() { echo "IP6 $1 > $2: (RT6 \\([^)]*last-entry=0[^)]*\\[0\\]$2\\) )?"; }

vrf_phase() { # vrf_phase red|blue
	local v="$1" o s ce1 ce2 oce1 oce2 n
	if [ "$v" = red ]; then s=a o=b ce1=$CE1R ce2=$CE2R oce1=$CE1B oce2=$CE2B; else s=b o=a ce1=$CE1B ce2=$CE2B oce1=$CE1R oce2=$CE2R; fi
	on 1 srv6ctl clear counters >/dev/null
	on 2 srv6ctl clear counters >/dev/null
	local k1 k2
	k1=$(taps_rx "$PE1") k2=$(taps_rx "$PE2")
	# PE1 -> PE2 is seen arriving on PE2's end of the core veth, PE2 -> PE1 on PE1's (-Q in:
	# af_packet's transmit bypasses the qdisc, so a capture on the sending end may miss it)
	cap_start "$PE2" core "$LIVE_WORK/core-$v-12.pcap" -Q in ip6
	cap_start "$PE1" vc "$LIVE_WORK/core-$v-21.pcap" -Q in ip6
	cap_start "$ce2" "${ce2##*-ce2}0" "$LIVE_WORK/ce2-$v.pcap" icmp or icmp6
	cap_start "$oce1" "${oce1##*-ce1}0" "$LIVE_WORK/ce1-not-$v.pcap" icmp or icmp6
	cap_start "$oce2" "${oce2##*-ce2}0" "$LIVE_WORK/ce2-not-$v.pcap" icmp or icmp6
	check "$v: CE1 -> CE2 IPv4 (PE1 srv6d H.Encaps to fc00:2::${s}4, PE2 srv6d End.DX4)" pping4 "$ce1" 10.2.0.2
	check "$v: CE1 -> CE2 IPv6 (PE1 srv6d H.Encaps to fc00:2::${s}6, PE2 srv6d End.DT6 in vrf $v)" pping6 "$ce1" fd02::2
	check "$v: CE2 -> CE1 IPv4 (PE2 srv6d H.Encaps to fc00:1::${s}4, PE1 srv6d End.DX4)" pping4 "$ce2" 10.1.0.2
	check "$v: CE2 -> CE1 IPv6 (PE2 srv6d H.Encaps to fc00:1::${s}6, PE1 srv6d End.DT6 in vrf $v)" pping6 "$ce2" fd01::2
	cap_stop
	for f in core-$v-12 core-$v-21 ce2-$v ce1-not-$v ce2-not-$v; do cap_read "$LIVE_WORK/$f.pcap" >"$LIVE_WORK/$f.txt"; done
	cat "$LIVE_WORK/core-$v-12.txt" "$LIVE_WORK/core-$v-21.txt" >&2
	# 12 packets each way: 3 echo requests of one side and 3 replies to the other's, per family
	check "$v core capture PE1 -> PE2: outer source $SRC1, SID list [fc00:2::${s}4] / [fc00:2::${s}6], 12 packets" eval \
		'[ "$(n_in core-'"$v"'-12 "$(one_sid $SRC1 fc00:2::'"$s"'4)IP 10.1.0.2 > 10.2.0.2: ICMP echo (request|reply)")" -ge 6 ] &&
		 [ "$(n_in core-'"$v"'-12 "$(one_sid $SRC1 fc00:2::'"$s"'6)IP6 fd01::2 > fd02::2: ICMP6, echo (request|reply)")" -ge 6 ]'
	check "$v core capture PE2 -> PE1: outer source $SRC2, SID list [fc00:1::${s}4] / [fc00:1::${s}6], 12 packets" eval \
		'[ "$(n_in core-'"$v"'-21 "$(one_sid $SRC2 fc00:1::'"$s"'4)IP 10.2.0.2 > 10.1.0.2: ICMP echo (request|reply)")" -ge 6 ] &&
		 [ "$(n_in core-'"$v"'-21 "$(one_sid $SRC2 fc00:1::'"$s"'6)IP6 fd02::2 > fd01::2: ICMP6, echo (request|reply)")" -ge 6 ]'
	check "$v core capture: every encapsulated packet is from its PE's source to one of $v's SIDs, none of the other VRF's" eval \
		'! grep -E "IP6 .* > fc00:" "$LIVE_WORK/core-'"$v"'-12.txt" | grep -vE "^[0-9:.]+ IP6 $SRC1 > fc00:2::'"$s"'[46]:" | grep -v "fc00:12::" >&2 &&
		 ! grep -E "IP6 .* > fc00:" "$LIVE_WORK/core-'"$v"'-21.txt" | grep -vE "^[0-9:.]+ IP6 $SRC2 > fc00:1::'"$s"'[46]:" | grep -v "fc00:12::" >&2 &&
		 ! grep -qE "fc00:[12]::'"$o"'[46]" "$LIVE_WORK/core-'"$v"'-12.txt" "$LIVE_WORK/core-'"$v"'-21.txt"'
	live_log "$v: CE2-$v saw $(n_in ce2-$v '> 10.2.0.2: ICMP echo request|> fd02::2: ICMP6, echo request') echo requests from CE1-$v; the other VRF's CEs saw $(n_in ce1-not-$v 'echo') / $(n_in ce2-not-$v 'echo') echoes"
	check "$v isolation: CE2-$v received the 6 echo requests, the other VRF's CE1 and CE2 saw no echo at all" eval \
		'[ "$(n_in ce2-'"$v"' "10.1.0.2 > 10.2.0.2: ICMP echo request")" -ge 3 ] &&
		 [ "$(n_in ce2-'"$v"' "fd01::2 > fd02::2: ICMP6, echo request")" -ge 3 ] &&
		 [ "$(n_in ce1-not-'"$v"' "echo (request|reply)")" -eq 0 ] && [ "$(n_in ce2-not-'"$v"' "echo (request|reply)")" -eq 0 ]'
	local c oc
	[ "$v" = red ] && c=cr oc=cb || c=cb oc=cr
	local j1="$LIVE_WORK/counters-$v-pe1.json" j2="$LIVE_WORK/counters-$v-pe2.json"
	for n in 1 2; do
		on $n srv6ctl show counters | tee "$LIVE_WORK/counters-$v-pe$n.txt" >&2
		on $n srv6ctl show counters --json >"$LIVE_WORK/counters-$v-pe$n.json"
	done
	# each PE decapsulates 6 packets per SID (3 requests + 3 replies), sends 12 to its CE and
	# 12 into the core; the other VRF's SIDs and customer port stay idle
	local sa sb ctx crx ctxo oa ob otx oinj orx opun
	for n in 1 2; do
		read -r sa sb ctx crx ctxo oa ob otx oinj orx opun < <(cf "$LIVE_WORK/counters-$v-pe$n.json" \
			"fc00:$n::${s}4|packets" "fc00:$n::${s}6|packets" "$c|txPackets" "$c|rxPackets" "core|txPackets" \
			"fc00:$n::${o}4|packets" "fc00:$n::${o}6|packets" "$oc|txPackets" "$oc|injected" "$oc|rxPackets" "$oc|punted")
		check "$v: PE$n's srv6d decapsulated ($sa + $sb at fc00:$n::${s}4/${s}6, >= 6 each) and encapsulated it (core tx $ctxo, $c tx $ctx / rx $crx, >= 12); fc00:$n::${o}4/${o}6 ($oa, $ob) and port $oc idle (ARP/ND aside)" eval \
			'[ "$sa" -ge 6 ] && [ "$sb" -ge 6 ] && [ "$ctxo" -ge 12 ] && [ "$ctx" -ge 12 ] && [ "$crx" -ge 12 ] &&
			 [ "$oa" -eq 0 ] && [ "$ob" -eq 0 ] && [ "$((otx - oinj))" -eq 0 ] && [ "$((orx - opun))" -eq 0 ]'
	done
	local d1 d2 p1 p2
	d1=$(($(taps_rx "$PE1") - k1)) d2=$(($(taps_rx "$PE2") - k2))
	p1=$(jq '[.ports[].punted | tonumber] | add' "$j1")
	p2=$(jq '[.ports[].punted | tonumber] | add' "$j2")
	live_log "$v: the kernels received $d1 (PE1) and $d2 (PE2) packets on their TAPs; srv6d punted $p1 and $p2"
	# the DPDK-side veths have no IPv6 and no IPv4 forwarding, so a TAP is the kernel's only
	# way to see these packets (and run its own seg6 / seg6local routes on them): at most the
	# odd ARP/ND probe, never the 24 customer packets
	check "$v: neither kernel handled the traffic (TAP rx during the phase: PE1 $d1, PE2 $d2 packets; at most 8 ARP/ND each, the 24 customer packets none)" eval \
		'[ "$d1" -le 8 ] && [ "$d2" -le 8 ]'
}
vrf_phase red
vrf_phase blue

# ---- a route withdrawn at PE2: kernel -> zebra -> FPM -> PE2's srv6d --------------------------
# red: CE2-red -> CE1-red every 10 ms; blue's twin keeps running and must not notice
probe_start red "$CE2R" 10.1.0.2
probe_start blue "$CE2B" 10.1.0.2
sleep 1
miss0="$(on 2 drops no_route)"
T_DEL=${EPOCHREALTIME}
ip -n "$PE2" route del 10.1.0.0/24 table 10 || live_log "route del failed"
check "withdrawn route left PE2's srv6d (vrf red)" wait_until 10 "10.1.0.0/24 gone from PE2 table 10" on 2 eval '! route_in 10 10.1.0.0/24'
T_GONE=${EPOCHREALTIME}
sleep 1
miss1="$(on 2 drops no_route)"
T_ADD=${EPOCHREALTIME}
ip -n "$PE2" route add 10.1.0.0/24 encap seg6 mode encap segs fc00:1::a4 dev tcore table 10 || live_log "route add failed"
check "re-added route is back in PE2's srv6d with its SID" wait_until 10 "10.1.0.0/24 back in PE2 table 10" on 2 route_in 10 10.1.0.0/24 fc00:1::a4
T_BACK=${EPOCHREALTIME}
sleep 1
T_END=${EPOCHREALTIME}
probe_stop red
probe_stop blue
plus() { awk -v t="$1" -v d="$2" 'BEGIN { printf "%.6f", t + d }'; }
n_sent() { awk -v a="$2" -v b="$3" '$2 >= a && $2 < b { n++ } END { print n + 0 }' "$LIVE_WORK/probe-$1.out"; }
# the dataplane changed when the first echo after 'ip route del' was lost, and back when the
# first echo after 'ip route add' was answered (send times, epoch s)
t_stop="$(awk -v a="$T_DEL" '$2 >= a && $3 == -1 { print $2; exit }' "$LIVE_WORK/probe-red.out")"
t_res="$(awk -v a="$T_ADD" '$2 >= a && $3 != -1 { print $2; exit }' "$LIVE_WORK/probe-red.out")"
read -r lost _ _ < <(loss_window red "$T_DEL" "$T_ADD")
# srv6ctl shows the RIB; the dataplane has it once the tables are compiled (at most 50 ms later)
read -r lost_after _ _ < <(loss_window red "$(plus "$T_BACK" 0.2)" "$T_END")
sent_after="$(n_sent red "$(plus "$T_BACK" 0.2)" "$T_END")"
read -r blue_lost _ _ < <(loss_window blue "$T_DEL" "$T_END")
blue_sent="$(n_sent blue "$T_DEL" "$T_END")"
# blue around the two moments PE2's dataplane changed for red (its tables recompiled)
blue_at=0
for t in $t_stop $t_res; do
	read -r n _ _ < <(loss_window blue "$(plus "$t" -0.1)" "$(plus "$t" 0.1)")
	blue_at=$((blue_at + n))
done
ms() { awk -v a="$1" -v b="$2" 'BEGIN { v = (b - a) * 1000; printf "%.0f", v < 0 ? 0 : v }'; }
live_log "withdraw at PE2: first echo lost ${t_stop:+$(ms "$T_DEL" "$t_stop")} ms after 'ip route del' ($lost lost before the re-add; srv6ctl showed the route gone after $(ms "$T_DEL" "$T_GONE") ms); restore: first echo answered again ${t_res:+$(ms "$T_ADD" "$t_res")} ms after 'ip route add' (srv6ctl: $(ms "$T_ADD" "$T_BACK") ms), then $lost_after of $sent_after lost; blue lost $blue_lost of $blue_sent, $blue_at within 100 ms of either change"
check "the withdrawal stopped red's traffic (>= 20 echoes lost, counted 'no_route' by PE2's srv6d)" eval \
	'[ -n "$t_stop" ] && [ "$lost" -ge 20 ] && [ "$((miss1 - miss0))" -ge 20 ]'
# A busy-polling worker sharing its CPU can stall on this loaded machine (seen once: ~2 s,
# some echoes of both probes lost at the same time): the checks below tolerate that much.
check "the re-added route restored it (answered again; from 200 ms after srv6ctl showed it, >= 90% answered)" eval \
	'[ -n "$t_res" ] && [ "$((lost_after * 10))" -le "$sent_after" ] && [ "$sent_after" -ge 50 ]'
check "blue's probe between the same addresses did not notice: nothing lost within 100 ms of red's two changes, >= 90% answered overall" eval \
	'[ "$blue_at" -eq 0 ] && [ "$((blue_lost * 10))" -le "$blue_sent" ] && [ "$blue_sent" -ge 100 ]'
check "CE1-red -> CE2-red IPv4 after the restore" pping4 "$CE1R" 10.2.0.2

for n in 1 2; do
	{ on $n srv6ctl show counters; on $n srv6ctl show neighbors; } >"$LIVE_WORK/final-pe$n.txt" 2>&1
done
[ "$FAILS" -ne 0 ] && cat "$LIVE_WORK/final-pe1.txt" "$LIVE_WORK/final-pe2.txt" >&2
if [ -n "${LIVE_LOGDIR:-}" ]; then
	cp "$LIVE_WORK"/*.txt "$LIVE_WORK"/probe-*.out "$LIVE_LOGDIR"/ 2>/dev/null
	if [ "$FAILS" -ne 0 ]; then
		for n in 1 2; do for w in fpm routes sids nexthops counters; do
			on $n srv6ctl show "$w" --json >"$LIVE_LOGDIR/pe$n-srv6ctl-show-$w.json" 2>&1
		done; done
	fi
fi
live_finish
