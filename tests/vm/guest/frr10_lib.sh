# shellcheck shell=bash
# frr10_lib.sh: the FRR 10.3 L3VPN topology of guest/l3vpn_frr10.sh for guest scripts that are not
# the test (the convergence bench, the demo), with PE1's dataplane either srv6d or the kernel.
# Sourced after tests/live/lib.sh, in the trixie VM (vm-run.sh with VM_FLAVOUR=trixie sets
# VM_FRR_ROOT). FRR runs as on a Debian 13 host: each PE its own overlay of the trixie root as a
# chroot, /etc/frr/daemons and /etc/frr/frr.conf, started by FRR's own `watchfrr.sh start all`
# (tests/vm/README.md says why not frr.service's watchfrr under TCG).
#
#   f10_topo srv6d|kernel    namespaces, VRFs red/10 and blue/20, sr0, links, addresses; with
#                            srv6d: srv6d on PE1 with its TAP mirrors tcr/tcb/tcore; with kernel:
#                            PE1's veths themselves are named tcr/tcb/tcore (the names
#                            frr10-l3vpn-pe.conf configures), zebra installs into the kernel only
#   f10_frr_up srv6d|kernel  FRR on both PEs: PE1 frr-conf/frr10-l3vpn-pe.conf itself (for the
#                            kernel without its `fpm address` line and zebra without the FPM
#                            module), PE2 frr-conf/vm-frr10-pe2.conf
#   f10_bgp_up               true once PE1's BGP session is Established
#   f10_down                 FRR down and its chroots unmounted (an EXIT trap calls it)
# Inputs: F10_PREFIX (namespace prefix, default s6c), SRV6D_LOG_LEVEL (default info).
FRR_ROOT="${VM_FRR_ROOT:?VM_FRR_ROOT is set by vm-run.sh (VM_FLAVOUR=trixie)}"
F10_PREFIX="${F10_PREFIX:-s6c}"
PE1=$F10_PREFIX-pe1 PE2=$F10_PREFIX-pe2 CE1R=$F10_PREFIX-ce1r CE1B=$F10_PREFIX-ce1b
CE2R=$F10_PREFIX-ce2r CE2B=$F10_PREFIX-ce2b
FRR_SRC=fc00:1::1

pe_root() { echo "/run/frr10/$1"; }
pe_root_up() { # pe_root_up NS: /run/frr10/NS, writable, with /proc, /dev, /run
	local r d="/run/frr10/.$1"
	r="$(pe_root "$1")"
	mkdir -p "$r" "$d/upper" "$d/work"
	mount -t overlay overlay -o "lowerdir=$FRR_ROOT,upperdir=$d/upper,workdir=$d/work" "$r" || live_die "overlay for $1"
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount -t tmpfs -o mode=755 tmpfs "$r/run"
	mkdir -p "$r/run/frr" "$r/var/log/frr"
	chroot "$r" chown frr:frr /run/frr /var/log/frr
}
pe_root_down() {
	local r
	r="$(pe_root "$1")"
	mountpoint -q "$r" || return 0
	umount -l "$r/dev" "$r/proc" "$r/run" 2>/dev/null
	umount -l "$r"
}
# in_pe NS CMD...: CMD in NS's netns and chroot (the sysfs of that netns, as on a real host)
in_pe() {
	local ns="$1" r
	r="$(pe_root "$ns")"
	shift
	ip netns exec "$ns" sh -c 'mount -t sysfs sysfs "$0/sys" 2>/dev/null; exec chroot "$0" "$@"' "$r" "$@"
}
# vty NS CMD...: vtysh of NS's FRR (its chroot's /run/frr sockets); replaces lib.sh's (8.4.4 -N)
vty() {
	local ns="$1" c args=()
	shift
	for c in "$@"; do args+=(-c "$c"); done
	chroot "$(pe_root "$ns")" vtysh "${args[@]}"
}
vtyc() { local ns="$1"; shift; vty "$ns" "configure terminal" "$@"; }
export RIB_COMPARE_VTYSH="chroot /run/frr10/{ns} vtysh"
frr_daemons() { # frr_daemons NS LINES...: these assignments in NS's /etc/frr/daemons
	local ns="$1" f l
	f="$(pe_root "$ns")/etc/frr/daemons"
	shift
	for l in "$@"; do
		if grep -q "^${l%%=*}=" "$f"; then sed -i "s|^${l%%=*}=.*|$l|" "$f"; else echo "$l" >>"$f"; fi
	done
}
frr_up() { # frr_up NS CONF: CONF as /etc/frr/frr.conf, then `watchfrr.sh start all`
	local r
	r="$(pe_root "$1")"
	cp "$2" "$r/etc/frr/frr.conf"
	chroot "$r" chown frr:frr /etc/frr/frr.conf
	in_pe "$1" /usr/lib/frr/watchfrr.sh start all >"$LIVE_WORK/$1-frrinit.out" 2>&1 ||
		{ cat "$LIVE_WORK/$1-frrinit.out" >&2; live_die "FRR did not start in $1"; }
	if grep -E 'No such command|Unknown command|Command incomplete|Ambiguous command|% ' "$LIVE_WORK/$1-frrinit.out" >&2; then
		live_die "FRR in $1 rejected lines of $(basename "$2")"
	fi
}
f10_down() {
	local ns
	for ns in "$PE1" "$PE2"; do
		mountpoint -q "$(pe_root "$ns")" || continue
		in_pe "$ns" /usr/lib/frr/watchfrr.sh stop all >/dev/null 2>&1
		pe_root_down "$ns"
	done
}
f10_dump() { # f10_dump DIR: each PE's FRR logs and config
	local ns r
	for ns in "$PE1" "$PE2"; do
		r="$(pe_root "$ns")"
		mountpoint -q "$r" || continue
		mkdir -p "$1/$ns"
		cp "$r"/var/log/frr/* "$r/etc/frr/frr.conf" "$r/etc/frr/daemons" "$1/$ns/" 2>/dev/null
	done
}

f10_topo() {
	local dp="$1" n d t
	for n in "$PE1" "$PE2" "$CE1R" "$CE1B" "$CE2R" "$CE2B"; do ns_add "$n"; done
	for n in "$PE1" "$PE2"; do
		ip netns exec "$n" sysctl -qw net.vrf.strict_mode=1 net.ipv6.conf.all.keep_addr_on_down=1
		ip -n "$n" link add red type vrf table 10 || live_die "VRF red in $n"
		ip -n "$n" link add blue type vrf table 20 || live_die "VRF blue in $n"
		ip -n "$n" link add sr0 type dummy || live_die "sr0 in $n"
		for d in red blue sr0; do ip -n "$n" link set "$d" up; done
	done
	if [ "$dp" = srv6d ]; then
		veth "$PE1" vr "$CE1R" r0
		veth "$PE1" vb "$CE1B" b0
		veth "$PE1" vc "$PE2" core
		for d in vr vb vc; do ip netns exec "$PE1" sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1"; done
	else
		veth "$PE1" tcr "$CE1R" r0
		veth "$PE1" tcb "$CE1B" b0
		veth "$PE1" tcore "$PE2" core
		ip -n "$PE1" link set tcr master red
		ip -n "$PE1" link set tcb master blue
	fi
	veth "$PE2" cer "$CE2R" r0
	veth "$PE2" ceb "$CE2B" b0
	for n in "$CE1R:r0" "$CE1B:b0" "$PE2:core"; do ip netns exec "${n%%:*}" ethtool -K "${n#*:}" tx off >/dev/null 2>&1; done
	for n in "$CE1R:r0" "$CE1B:b0"; do
		addr "${n%%:*}" "${n#*:}" 10.1.0.2/24
		addr "${n%%:*}" "${n#*:}" fd01::2/64
		ip -n "${n%%:*}" route add default via 10.1.0.1
		ip -n "${n%%:*}" -6 route add default via fd01::1
	done
	for n in "$CE2R:r0" "$CE2B:b0"; do
		addr "${n%%:*}" "${n#*:}" 10.2.0.2/24
		addr "${n%%:*}" "${n#*:}" fd02::2/64
		ip -n "${n%%:*}" route add default via 10.2.0.1
		ip -n "${n%%:*}" -6 route add default via fd02::1
	done
	ip -n "$PE2" link set cer master red
	ip -n "$PE2" link set ceb master blue
	for d in cer ceb; do addr "$PE2" "$d" 10.2.0.1/24; addr "$PE2" "$d" fd02::1/64; done
	addr "$PE2" core fc00:12::2/64
	[ "$dp" = srv6d ] || return 0

	SRV6D_SOCK="$LIVE_WORK/srv6d.sock"
	# zebra runs as the trixie root's frr, a uid this (Debian 12) passwd names otherwise
	local uid
	uid=$(chroot "$FRR_ROOT" id -u frr) || live_die "no user frr in the trixie root"
	cat >"$LIVE_WORK/srv6d.conf" <<-EOF
		[fpm]
		listen = 127.0.0.1
		port = 2620
		allow-user = frr root $uid
		[mgmt]
		socket = $SRV6D_SOCK
		[log]
		level = ${SRV6D_LOG_LEVEL:-info}
		[eal]
		args = -l 0 --no-pci --no-huge --no-shconf -m 512 --no-telemetry --iova-mode=va --log-level=lib.eal:error
		[dataplane]
		enabled = true
		mbufs = 8191
		idle-sleep = 1000
		port = cr net_af_packet0,iface=vr tap=tcr vrf=red
		port = cb net_af_packet1,iface=vb tap=tcb vrf=blue
		port = core net_af_packet2,iface=vc tap=tcore
		[encap]
		source = fc00:1::99
	EOF
	ip netns exec "$PE1" "$SRV6D" -c "$LIVE_WORK/srv6d.conf" >>"$LIVE_WORK/srv6d.log" 2>&1 &
	SRV6D_PID=$!
	LIVE_PIDS+=("$SRV6D_PID")
	local t0=$SECONDS
	until [ -S "$SRV6D_SOCK" ] && ip -n "$PE1" link show tcore >/dev/null 2>&1; do
		kill -0 "$SRV6D_PID" 2>/dev/null || { tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d exited"; }
		[ $((SECONDS - t0)) -lt 120 ] || { tail -30 "$LIVE_WORK/srv6d.log" >&2; live_die "srv6d did not come up"; }
		sleep 0.3
	done
	live_log "srv6d up after $((SECONDS - t0)) s"
	ip -n "$PE1" link set tcr master red
	ip -n "$PE1" link set tcb master blue
	for t in tcr tcb tcore; do ip -n "$PE1" link set "$t" up; done
}

f10_frr_up() {
	local dp="$1" zopts
	pe_root_up "$PE1"
	pe_root_up "$PE2"
	# the daemons file frr10-l3vpn-pe.conf's header asks for; the kernel as PE1's dataplane: the
	# same zebra without the FPM module
	zopts=$(sed -n 's|^! /etc/frr/daemons: zebra_options="\(.*\)"$|\1|p' "$VM_REPO/frr-conf/frr10-l3vpn-pe.conf")
	[ -n "$zopts" ] || live_die "frr10-l3vpn-pe.conf's header has no zebra_options"
	[ "$dp" = srv6d ] || zopts="${zopts/-M dplane_fpm_nl/}"
	frr_daemons "$PE1" bgpd=yes staticd=yes "zebra_options=\"$zopts\"" 'frr_global_options="--log file:/var/log/frr/frr.log"'
	frr_daemons "$PE2" bgpd=yes staticd=yes 'frr_global_options="--log file:/var/log/frr/frr.log"'
	frr_up "$PE2" "$VM_REPO/frr-conf/vm-frr10-pe2.conf" &
	local pe2=$!
	local conf="$VM_REPO/frr-conf/frr10-l3vpn-pe.conf"
	if [ "$dp" != srv6d ]; then # the same file without its FPM line (zebra rejects it without the module)
		sed '/^fpm address/d' "$conf" >"$LIVE_WORK/frr10-l3vpn-pe-kernel.conf"
		conf="$LIVE_WORK/frr10-l3vpn-pe-kernel.conf"
	fi
	frr_up "$PE1" "$conf"
	wait "$pe2" || live_die "FRR did not start on PE2"
	# frr.conf's `log syslog` replaced the --log file target (there is no syslog in the VM)
	for n in "$PE1" "$PE2"; do vtyc "$n" "log file /var/log/frr/frr.log informational" >/dev/null; done
}

f10_bgp_up() { vty "$PE1" "show bgp summary json" | jq -e '[.. | .state? // empty] | any(. == "Established")' >/dev/null; }
