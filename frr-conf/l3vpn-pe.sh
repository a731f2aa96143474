# shellcheck shell=bash
# l3vpn-pe.sh: an SRv6 L3VPN PE's state for srv6d, fed through FRR 8.4.4 zebra from kernel
# routes, on a kernel without VRF devices. tests/live/e2e_kernel_pe_test.sh sources this file
# and runs l3vpn_pe_routes in PE1's namespace, so what it shows is known to work.
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
# and each customer port names its VRF: port = cr net_af_packet0,iface=vr tap=tcr vrf=red.
# The encap source is srv6d's `[encap] source = fc00:1::1` (zebra sends none over FPM), or
# `ip sr tunsrc set fc00:1::1` in zebra's namespace, which srv6d reads every 2 s and prefers.
#
# Add these AFTER zebra has connected to srv6d: FRR 8.4.4 does not replay the routes of
# tables other than main on an FPM (re)connect, so tables 10/20 only reach srv6d live.
#
# The interfaces named are srv6d's TAP mirrors (tcr: red's customer port, tcb: blue's, tcore:
# the core port): zebra and the kernel know the DPDK ports by them.

# l3vpn_pe_routes NS: PE1 of the live test (PE2 = the kernel at fc00:12::2, locator fc00:2::/48).
l3vpn_pe_routes() {
	local ns="$1"
	# shellcheck disable=SC2015 # any failing step fails the whole
	# Core: the remote PE's locator, in the main table (srv6d's default VRF). Encapsulated
	# packets are looked up here by their outer destination.
	ip -n "$ns" -6 route add fc00:2::/48 via fc00:12::2 dev tcore &&
		# VRF red = table 10. The customer subnet behind this PE: decapsulated traffic and
		# traffic between local CEs is forwarded with it (the connected route of the TAP's
		# address is in main, the default VRF, in the kernel and in zebra alike).
		ip -n "$ns" route add 10.1.0.0/24 dev tcr table 10 &&
		ip -n "$ns" -6 route add fd01::/64 dev tcr table 10 &&
		# H.Encaps towards the remote PE's per-VRF SIDs (one SID each: 8.4.4 relays one).
		# `dev tcore` is what the kernel requires; srv6d routes the outer packet itself.
		ip -n "$ns" route add 10.2.0.0/24 encap seg6 mode encap segs fc00:2::a4 dev tcore table 10 &&
		ip -n "$ns" -6 route add fd02::/64 encap seg6 mode encap segs fc00:2::a6 dev tcore table 10 &&
		# VRF blue = table 20: the same prefixes, other SIDs, the other customer port
		ip -n "$ns" route add 10.1.0.0/24 dev tcb table 20 &&
		ip -n "$ns" -6 route add fd01::/64 dev tcb table 20 &&
		ip -n "$ns" route add 10.2.0.0/24 encap seg6 mode encap segs fc00:2::b4 dev tcore table 20 &&
		ip -n "$ns" -6 route add fd02::/64 encap seg6 mode encap segs fc00:2::b6 dev tcore table 20 &&
		# Local SIDs (main table). IPv4: End.DX4 to the CE (nh4 + the VRF's customer port;
		# End.DT4 would need vrftable). IPv6: End.DT6 `table N`, which srv6d binds to the VRF of
		# table N (`srv6ctl show sids`: vrf red / blue, active).
		ip -n "$ns" -6 route add fc00:1::a4/128 encap seg6local action End.DX4 nh4 10.1.0.2 dev tcr &&
		ip -n "$ns" -6 route add fc00:1::a6/128 encap seg6local action End.DT6 table 10 dev tcr &&
		ip -n "$ns" -6 route add fc00:1::b4/128 encap seg6local action End.DX4 nh4 10.1.0.2 dev tcb &&
		ip -n "$ns" -6 route add fc00:1::b6/128 encap seg6local action End.DT6 table 20 dev tcb
}
