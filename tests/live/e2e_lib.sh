# shellcheck shell=bash
# e2e_lib.sh: the SRv6 L3VPN topology of the end-to-end tests and of scripts/demo.sh, with
# srv6d as PE1 (DPDK on net_af_packet ports, TAP mirrors, SRv6 state from FRR zebra over FPM)
# and the Linux kernel as PE2. Source tests/live/lib.sh first, then this file.
#
#  ce1r 10.1.0.2 fd01::2 ─[vr]  PE1: srv6d, port cr  (vrf red,  tap tcr   10.1.0.1/24 fd01::1/64)
#  ce1b 10.1.0.2 fd01::2 ─[vb]       srv6d, port cb  (vrf blue, tap tcb   10.1.0.1/24 fd01::1/64)
#                                    srv6d, port core (default, tap tcore fc00:12::1/64, mtu 1600)
#                                    zebra -M dplane_fpm_nl; kernel routes (tables 10, 20, main)
#                          [vc] │ core veth, MTU 1600
#                        [core] │
#                               PE2: plain kernel namespace, tunsrc fc00:2::1, no VRF devices:
#  ce2r 10.2.0.2 fd02::2 ─[cer]      iif cer -> table 10, iif ceb -> table 20 (ip rule),
#  ce2b 10.2.0.2 fd02::2 ─[ceb]      End.DX4 / End.DT6 (legacy table) SIDs per VRF
#
#  SIDs    PE1 (srv6d, from FPM)                PE2 (kernel)
#  red     fc00:1::a4 End.DX4 nh4 10.1.0.2 tcr  fc00:2::a4 End.DX4 nh4 10.255.10.2 (routed out of cer)
#          fc00:1::a6 End.DT6 table 10          fc00:2::a6 End.DT6 table 10
#  blue    fc00:1::b4 End.DX4 nh4 10.1.0.2 tcb  fc00:2::b4 End.DX4 nh4 10.255.20.2 (routed out of ceb)
#          fc00:1::b6 End.DT6 table 20          fc00:2::b6 End.DT6 table 20
#  PE1's encap source: srv6d's [encap] source = fc00:1::1; PE2's: ip sr tunsrc fc00:2::1.

E2E_ENCAP_SRC=fc00:1::1
# The core link's MTU (both ends and srv6d's core port) and the devices of PE1's customer ports;
# a test may set them before e2e_up (e2e_icmp_test.sh: a 1500-byte core, blue on af_xdp).
: "${E2E_CORE_MTU:=1600}" "${E2E_CR_DEV:=net_af_packet0,iface=vr}" "${E2E_CB_DEV:=net_af_packet1,iface=vb}"

# e2e_topo: the namespaces, links and customer hosts (the same addresses in both VRFs).
# Sets PE1 PE2 CE1R CE1B CE2R CE2B.
e2e_topo() {
	PE1="$LIVE_PREFIX-pe1"
	PE2="$LIVE_PREFIX-pe2"
	CE1R="$LIVE_PREFIX-ce1r"
	CE1B="$LIVE_PREFIX-ce1b"
	CE2R="$LIVE_PREFIX-ce2r"
	CE2B="$LIVE_PREFIX-ce2b"
	local n ce
	for n in "$PE1" "$PE2" "$CE1R" "$CE1B" "$CE2R" "$CE2B"; do ns_add "$n"; done
	veth "$PE1" vr "$CE1R" r0
	veth "$PE1" vb "$CE1B" b0
	veth "$PE1" vc "$PE2" core
	veth "$PE2" cer "$CE2R" r0
	veth "$PE2" ceb "$CE2B" b0
	ip -n "$PE1" link set vc mtu "$E2E_CORE_MTU"
	ip -n "$PE2" link set core mtu "$E2E_CORE_MTU"
	for n in vr vb vc; do
		# the DPDK side of the veths carries no address of the kernel's: only the TAPs do; and
		# the kernel, which sees those frames as well as af_packet does, must not route them
		# (it would answer a CE's TCP SYN with "net unreachable" from its main table), nor answer
		# ARP (its reply, beside the TAP's, reaches the port as a frame for another station)
		ip netns exec "$PE1" sysctl -qw "net.ipv6.conf.$n.disable_ipv6=1" "net.ipv4.conf.$n.forwarding=0" "net.ipv4.conf.$n.arp_ignore=8"
	done
	# kernel endpoints sending into af_packet ports need TX checksums in software (env-probe.md)
	ip netns exec "$CE1R" ethtool -K r0 tx off >/dev/null 2>&1
	ip netns exec "$CE1B" ethtool -K b0 tx off >/dev/null 2>&1
	ip netns exec "$PE2" ethtool -K core tx off >/dev/null 2>&1
	for ce in "$CE1R:r0" "$CE1B:b0"; do
		addr "${ce%%:*}" "${ce#*:}" 10.1.0.2/24
		addr "${ce%%:*}" "${ce#*:}" fd01::2/64
		ip -n "${ce%%:*}" route add default via 10.1.0.1
		ip -n "${ce%%:*}" -6 route add default via fd01::1
	done
	for ce in "$CE2R:r0" "$CE2B:b0"; do
		addr "${ce%%:*}" "${ce#*:}" 10.2.0.2/24
		addr "${ce%%:*}" "${ce#*:}" fd02::2/64
		ip -n "${ce%%:*}" route add default via 10.2.0.1
		ip -n "${ce%%:*}" -6 route add default via fd02::1
	done
}

# e2e_pe2_kernel: PE2 as a Linux kernel SRv6 PE (no VRF devices: a table per VRF, chosen by
# the ingress interface).
e2e_pe2_kernel() {
	addr "$PE2" core fc00:12::2/64
	addr "$PE2" lo fc00:2::1/128
	ip netns exec "$PE2" sysctl -qw net.ipv6.conf.core.seg6_enabled=1
	ip -n "$PE2" sr tunsrc set fc00:2::1
	ip -n "$PE2" -6 route add fc00:1::/48 via fc00:12::1 dev core
	_e2e_pe2_vrf cer 10 fc00:2::a4 fc00:2::a6 fc00:1::a4 fc00:1::a6 10.255.10.2 || live_die "PE2 red setup"
	_e2e_pe2_vrf ceb 20 fc00:2::b4 fc00:2::b6 fc00:1::b4 fc00:1::b6 10.255.20.2 || live_die "PE2 blue setup"
}
_e2e_pe2_vrf() { # IF TABLE SID_DX4 SID_DT6 PE1_SID_DX4 PE1_SID_DT6 DX4_SELECTOR
	local i="$1" t="$2"
	addr "$PE2" "$i" 10.2.0.1/24
	addr "$PE2" "$i" fd02::1/64
	# what arrives from this CE is routed in the VRF's table (no VRF devices on this kernel)
	ip -n "$PE2" rule add iif "$i" table "$t" pref $((1000 + t))
	ip -n "$PE2" -6 rule add iif "$i" table "$t" pref $((1000 + t))
	ip -n "$PE2" route add 10.2.0.0/24 dev "$i" table "$t"
	ip -n "$PE2" -6 route add fd02::/64 dev "$i" table "$t"
	# towards PE1: H.Encaps (one SID) to PE1's per-VRF SIDs (served by srv6d)
	ip -n "$PE2" route add 10.1.0.0/24 encap seg6 mode encap segs "$5" dev core table "$t"
	ip -n "$PE2" -6 route add fd01::/64 encap seg6 mode encap segs "$6" dev core table "$t"
	# from PE1: decapsulate into this CE. The kernel's End.DX4 ignores `dev`: it routes nh4
	# in the main table (ip_route_input with the core interface as iif, so no iif rule
	# matches), which for the overlapping 10.2.0.2 would pick one CE for both VRFs. So nh4 is
	# a per-VRF selector address routed out of this CE's interface; as the route to it is
	# connected, the neighbor is the inner destination itself (10.2.0.2 on this interface).
	ip -n "$PE2" route add "$7/32" dev "$i"
	ip -n "$PE2" -6 route add "$3/128" encap seg6local action End.DX4 nh4 "$7" dev "$i"
	ip -n "$PE2" -6 route add "$4/128" encap seg6local action End.DT6 table "$t" dev "$i"
}

# e2e_srv6d_conf [EXTRA]: PE1's srv6d config ($LIVE_WORK/srv6d.conf); EXTRA is appended
# (more sections). Sets PORT (FPM) and SRV6D_SOCK.
e2e_srv6d_conf() {
	PORT="$(free_port "$PE1")"
	SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
	cat >"$LIVE_WORK/srv6d.conf" <<-EOF
		vrf = red table 10
		vrf = blue table 20
		[fpm]
		listen = 127.0.0.1
		port = $PORT
		resync-quiet-ms = 1000
		[mgmt]
		socket = $SRV6D_SOCK
		[log]
		level = debug
		[eal]
		# --no-shconf: no DPDK runtime files, so several srv6d (tests, the demo) can run at once.
		# -m 256: 8191 mbufs are ~20 MiB; EAL's start grows with -m (seconds under the VM's TCG).
		args = -l 0 --no-pci --no-huge --no-shconf -m 256 --no-telemetry --log-level=lib.eal:error
		[dataplane]
		enabled = true
		mbufs = 8191
		idle-sleep = 1000
		port = cr $E2E_CR_DEV tap=tcr vrf=red
		port = cb $E2E_CB_DEV tap=tcb vrf=blue
		port = core net_af_packet2,iface=vc tap=tcore mtu=$E2E_CORE_MTU
		[encap]
		source = $E2E_ENCAP_SRC
		${1:-}
	EOF
}

# e2e_srv6d_run: start PE1's srv6d with that config and give its TAP mirrors their addresses
# (again after a restart: the TAPs live as long as srv6d). Sets SRV6D_PID.
e2e_srv6d_run() {
	ip netns exec "$PE1" "$SRV6D" -c "$LIVE_WORK/srv6d.conf" >>"$LIVE_WORK/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	echo "$SRV6D_PID" >"$LIVE_WORK/srv6d.pid"
	LIVE_PIDS+=("$SRV6D_PID")
	wait_until 20 "srv6d up with its TAPs" eval "[ -S $SRV6D_SOCK ] && ip -n $PE1 link show tcore >/dev/null" ||
		{ tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
	local t
	for t in tcr tcb tcore; do ip -n "$PE1" link set "$t" up; done
	# The TAPs are in the kernel's main table (no VRF devices here), so the customer subnets may
	# overlap on them: the kernel only answers ARP/ND on the TAP the request came in on.
	addr "$PE1" tcr 10.1.0.1/24
	addr "$PE1" tcr fd01::1/64
	addr "$PE1" tcb 10.1.0.1/24
	addr "$PE1" tcb fd01::1/64
	addr "$PE1" tcore fc00:12::1/64
}

# e2e_zebra_start: PE1's zebra feeding srv6d (frr-conf/zebra.conf with srv6d's port); returns
# once it is connected.
e2e_zebra_start() {
	sed "s/^fpm address 127.0.0.1 port 2620\$/fpm address 127.0.0.1 port $PORT/; s/^hostname .*/hostname pe1/" \
		"$LIVE_REPO/frr-conf/zebra.conf" >"$LIVE_WORK/pe1-zebra.conf"
	frr_start "$PE1" zebra "$LIVE_WORK/pe1-zebra.conf" -M dplane_fpm_nl
	rib_compare fpm --connections "${1:-1}" --connected --timeout 15 >/dev/null || live_die "zebra did not connect to srv6d"
}

# e2e_pe1_routes: PE1's SRv6 state as kernel routes zebra relays (frr-conf/l3vpn-pe.sh explains
# each line). FRR 8.4.4 does not replay non-main tables on connect: add them once zebra is
# connected, so that they go out live.
e2e_pe1_routes() {
	source "$LIVE_REPO/frr-conf/l3vpn-pe.sh"
	l3vpn_pe_routes "$PE1" || live_die "PE1's kernel routes could not be added"
}

# e2e_up [EXTRA]: the whole topology, PE2 the kernel, PE1 srv6d (EXTRA appended to its config)
# with zebra connected and PE1's L3VPN state added.
e2e_up() {
	e2e_topo
	e2e_pe2_kernel
	e2e_srv6d_conf "${1:-}"
	e2e_srv6d_run
	e2e_zebra_start
	e2e_pe1_routes
}

# ---- what srv6d holds -------------------------------------------------------------------------
route_in() { # route_in TABLE PREFIX [SID]: srv6d has it (with that seg6 SID)
	srv6ctl show routes --json | jq -e --arg t "$1" --arg p "$2" --arg s "${3:-}" \
		'.[$t][]? | select(.prefix == $p) | select($s == "" or (tostring | contains($s)))' >/dev/null
}
sid_ok() { # sid_ok SID BEHAVIOR VRF|-
	srv6ctl show sids --json | jq -e --arg p "$1/128" --arg b "$2" --arg v "$3" \
		'.sids[] | select(.prefix == $p and .state == "active" and (tostring | contains($b)) and ($v == "-" or .vrf == $v))' >/dev/null
}
# json_specs "KEY..." ARG...: the ARGs' space-separated fields as a JSON array of objects with
# those keys (missing fields "").
json_specs() {
	local keys a f k obj json=
	read -r -a keys <<<"$1"
	shift
	for a in "$@"; do
		read -r -a f <<<"$a"
		obj=
		for k in "${!keys[@]}"; do obj+="${obj:+,}\"${keys[k]}\":\"${f[k]:-}\""; done
		json+="${json:+,}{$obj}"
	done
	printf '[%s]' "$json"
}
# routes_in "TABLE PREFIX [SID]"...: srv6d has all of them: route_in for many routes from one
# `show routes` (each srv6ctl or jq costs ~0.3 s in the VM's emulated CPU).
routes_in() {
	srv6ctl show routes --json | jq -e --argjson want "$(json_specs "t p s" "$@")" '. as $r | all($want[]; . as $w |
		any($r[$w.t][]?; .prefix == $w.p and ($w.s == "" or (tostring | contains($w.s)))))' >/dev/null
}
# sids_ok "SID BEHAVIOR VRF|-"...: sid_ok for many SIDs from one `show sids`.
sids_ok() {
	srv6ctl show sids --json | jq -e --argjson want "$(json_specs "p b v" "$@")" '. as $d | all($want[]; . as $w |
		any($d.sids[]; .prefix == $w.p + "/128" and .state == "active" and (tostring | contains($w.b)) and
			($w.v == "-" or .vrf == $w.v)))' >/dev/null
}
e2e_state_ok() { # the whole of PE1's L3VPN state is in srv6d
	routes_in "10 10.2.0.0/24 fc00:2::a4" "10 fd02::/64 fc00:2::a6" "20 10.2.0.0/24 fc00:2::b4" \
		"20 fd02::/64 fc00:2::b6" "10 10.1.0.0/24" "10 fd01::/64" "20 10.1.0.0/24" "20 fd01::/64" \
		"254 fc00:2::/48" &&
		sids_ok "fc00:1::a4 End.DX4 -" "fc00:1::b4 End.DX4 -" "fc00:1::a6 End.DT6 red" "fc00:1::b6 End.DT6 blue"
}
neigh_in() { # neigh_in PORT ADDRESS: srv6d mirrors that kernel neighbor
	srv6ctl show neighbors --json | jq -e --arg p "$1" --arg a "$2" '.neighbors[] | select(.port == $p and .address == $a)' >/dev/null
}
cnt() { # cnt PORT|SID FIELD: one counter of srv6ctl show counters
	srv6ctl show counters --json | jq -r --arg n "$1" \
		'([.ports[]? | select(.name == $n) | .'"$2"'] + [.sids[]? | select(.prefix == ($n + "/128")) | .'"$2"'] + ["0"])[0] | tonumber'
}
routed_tx() { # routed_tx PORT: what PORT sent that srv6d routed (tx minus injected), one snapshot
	srv6ctl show counters --json | jq -r --arg n "$1" \
		'([.ports[]? | select(.name == $n) | ((.txPackets // 0 | tonumber) - (.injected // 0 | tonumber))] + [0])[0]'
}

# counters_delta BEFORE.json AFTER.json: what srv6d dropped between two `show counters --json`
# snapshots, one "what +N" per counter that grew ("none" if nothing did): the ports' device
# drops (rx ring full, rx errors, no mbuf, tx failures, tx dropped) and the drops by reason.
counters_delta() {
	jq -rn --slurpfile a "$1" --slurpfile b "$2" '
		def n: (. // 0 | tonumber);
		def flat: ([.ports[]? as $p | ("rxMissed", "rxErrors", "rxNombuf", "txErrors", "txDropped") as $f
				| {key: "port \($p.name) \($f)", value: ($p[$f] | n)}]
			+ [.drops[]? | {key: "drop \(.reason)", value: (.packets | n)}]) | from_entries;
		($a[0] | flat) as $x | ($b[0] | flat) as $y
		| [$y | to_entries[] | select(.value > ($x[.key] // 0)) | "\(.key) +\(.value - ($x[.key] // 0))"]
		| if length == 0 then "none" else join(", ") end'
}

# ---- traffic ----------------------------------------------------------------------------------
# warm CMD...: retry (15 s) until it succeeds. The first packets towards a CE whose address
# the kernel has not learned yet are dropped after decapsulation (neigh_unresolved), and srv6d
# asks the kernel to resolve it (docs/host-path.md): the next ones get through.
warm() {
	local end=$((SECONDS + 15))
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || { live_log "warm-up failed: $*"; return 1; }
		sleep 0.2
	done
}
e2e_warm_all() {
	warm ping4 "$CE1R" 10.2.0.2 1 && warm ping6 "$CE1R" fd02::2 1 &&
		warm ping4 "$CE1B" 10.2.0.2 1 && warm ping6 "$CE1B" fd02::2 1
}

# probe_start NS DST [ARGS]: an ICMP echo every 10 ms until probe_stop (icmp_probe.py); its
# log is $LIVE_WORK/probe-<NAME>.out with NAME = the rest of the arguments joined.
PROBES=()
probe_start() { # probe_start NAME NS DST [-6]
	local name="$1" ns="$2" dst="$3"
	shift 3
	rm -f "$LIVE_WORK/probe-$name.stop"
	ip netns exec "$ns" "$LIVE_PY" "$LIVE_HOME/icmp_probe.py" "$@" -i 0.01 -t 120 \
		"$LIVE_WORK/probe-$name.stop" "$dst" >"$LIVE_WORK/probe-$name.out" 2>&1 &
	PROBES+=("$name:$!")
	LIVE_PIDS+=($!)
}
probe_stop() { # probe_stop NAME: stop it and wait for its log
	local p
	touch "$LIVE_WORK/probe-$1.stop"
	for p in "${PROBES[@]}"; do [ "${p%%:*}" = "$1" ] && wait "${p#*:}" 2>/dev/null; done
}
# loss_window NAME FROM TO: "LOST FIRST_MS LAST_MS" for echoes sent in [FROM, TO) (epoch s) that
# got no reply: their count and the first and last lost one relative to FROM (ms; "-" if none).
loss_window() {
	awk -v a="$2" -v b="$3" '$2 >= a && $2 < b && $3 == -1 { n++; if (!f) f = $2; l = $2 }
		END { if (n) printf "%d %.0f %.0f\n", n, (f - a) * 1000, (l - a) * 1000; else print "0 - -" }' \
		"$LIVE_WORK/probe-$1.out"
}
