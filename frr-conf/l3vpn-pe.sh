# shellcheck shell=bash
# l3vpn-pe.sh: an SRv6 L3VPN PE's state for srv6d, fed through FRR 8.4.4 zebra from kernel
# routes, on a kernel without VRF devices. tests/live/e2e_kernel_pe_test.sh sources this file
# and runs l3vpn_pe_routes in PE1's namespace; tests/live/e2e_srv6d_pair_test.sh runs both
# sides (l3vpn_pe_routes at PE1, l3vpn_pe2_routes at PE2), so what it shows is known to work.
#
# Why kernel routes: FRR 8.4.4's BGP L3VPN needs VRF devices (this kernel has none) and Debian
# ships no sharpd. zebra learns every route added with `ip route` (protocol "kernel", any table
# but local) and relays it over FPM like its own. What 8.4.4 relays: seg6 encaps with ONE SID,
# seg6local End, End.X, End.T, End.DX4, End.DT6 (legacy `table N`); not End.DX6/End.DT46, and
# End.DT4 needs `vrftable`, which this kernel refuses without VRF devices.
#
# The VRFs themselves are srv6d's config (a table per VRF; zebra knows tables only):
#   vrf = red table 10
#   vrf = blue table 20
# and each customer port names its VRF: port = cr net_af_xdp0,iface=vr tap=tcr vrf=red
# (net_af_xdp passes the customers' IPv4 fragments; docs/host-path.md).
# The encap source is srv6d's `[encap] source = fc00:1::1` (zebra sends none over FPM), or
# `ip sr tunsrc set fc00:1::1` in zebra's namespace, which srv6d reads every 2 s and prefers.
#
# Add these AFTER zebra has connected to srv6d: FRR 8.4.4 does not replay the routes of
# tables other than main on an FPM (re)connect, so tables 10/20 only reach srv6d live.
#
# The interfaces named are srv6d's TAP mirrors (tcr: red's customer port, tcb: blue's, tcore:
# the core port): zebra and the kernel know the DPDK ports by them.

# l3vpn_pe NS ME PEER PEER_CORE: the state of PE<ME> (ME, PEER = 1 or 2) towards PE<PEER>:
# own locator fc00:ME::/48 (SIDs fc00:ME::a4/a6 red, ::b4/b6 blue), customers 10.ME.0.0/24 and
# fd0ME::/64 behind it (CE 10.ME.0.2), the remote PE's locator fc00:PEER::/48 reached via
# PEER_CORE (its address on the core link) out of tcore.
l3vpn_pe() {
	local ns="$1" me="$2" peer="$3" nh="$4"
	local here4="10.$me.0.0/24" here6="fd0$me::/64" ce4="10.$me.0.2"
	local there4="10.$peer.0.0/24" there6="fd0$peer::/64"
	# shellcheck disable=SC2015 # any failing step fails the whole
	# Core: the remote PE's locator, in the main table (srv6d's default VRF). Encapsulated
	# packets are looked up here by their outer destination.
	ip -n "$ns" -6 route add "fc00:$peer::/48" via "$nh" dev tcore &&
		# VRF red = table 10. The customer subnet behind this PE: decapsulated traffic and
		# traffic between local CEs is forwarded with it (the connected route of the TAP's
		# address is in main, the default VRF, in the kernel and in zebra alike).
		ip -n "$ns" route add "$here4" dev tcr table 10 &&
		ip -n "$ns" -6 route add "$here6" dev tcr table 10 &&
		# H.Encaps towards the remote PE's per-VRF SIDs (one SID each: 8.4.4 relays one).
		# `dev tcore` is what the kernel requires; srv6d routes the outer packet itself.
		ip -n "$ns" route add "$there4" encap seg6 mode encap segs "fc00:$peer::a4" dev tcore table 10 &&
		ip -n "$ns" -6 route add "$there6" encap seg6 mode encap segs "fc00:$peer::a6" dev tcore table 10 &&
		# VRF blue = table 20: the same prefixes, other SIDs, the other customer port
		ip -n "$ns" route add "$here4" dev tcb table 20 &&
		ip -n "$ns" -6 route add "$here6" dev tcb table 20 &&
		ip -n "$ns" route add "$there4" encap seg6 mode encap segs "fc00:$peer::b4" dev tcore table 20 &&
		ip -n "$ns" -6 route add "$there6" encap seg6 mode encap segs "fc00:$peer::b6" dev tcore table 20 &&
		# Local SIDs (main table). IPv4: End.DX4 to the CE (nh4 + the VRF's customer port;
		# End.DT4 would need vrftable). IPv6: End.DT6 `table N`, which srv6d binds to the VRF of
		# table N (`srv6ctl show sids`: vrf red / blue, active).
		ip -n "$ns" -6 route add "fc00:$me::a4/128" encap seg6local action End.DX4 nh4 "$ce4" dev tcr &&
		ip -n "$ns" -6 route add "fc00:$me::a6/128" encap seg6local action End.DT6 table 10 dev tcr &&
		ip -n "$ns" -6 route add "fc00:$me::b4/128" encap seg6local action End.DX4 nh4 "$ce4" dev tcb &&
		ip -n "$ns" -6 route add "fc00:$me::b6/128" encap seg6local action End.DT6 table 20 dev tcb
}

# l3vpn_pe_routes NS: PE1 of the live tests (the remote PE at fc00:12::2, locator fc00:2::/48).
l3vpn_pe_routes() { l3vpn_pe "$1" 1 2 fc00:12::2; }

# l3vpn_pe2_routes NS: PE2 when it is srv6d too (tests/live/e2e_srv6d_pair_test.sh): the mirror
# image of PE1, its TAPs named alike (tcr, tcb, tcore fc00:12::2/64), PE1 at fc00:12::1. Its
# encap source is `ip sr tunsrc set fc00:2::1` in its namespace (no [encap] source in srv6d's
# config): srv6d reads the kernel's tunsrc, so each PE exercises one of the two origins.
l3vpn_pe2_routes() { l3vpn_pe "$1" 2 1 fc00:12::1; }
