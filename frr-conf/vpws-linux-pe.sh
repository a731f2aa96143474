# vpws-linux-pe.sh: the Linux PE at the other end of frr-conf/srv6d-vpws-pe.conf's
# pseudowires. Run as root in the PE (tests/vm/guest/vpws_srv6d.sh runs it in its namespace):
#   sh frr-conf/vpws-linux-pe.sh
# Interfaces: core (to srv6d's core port, fc00:12::2/64), x1 (CE2 of pw1), x2 (CE2 of pw2,
# whose frames go untagged to srv6d, which tags them with VLAN 100 towards CE1).
set -e
ip addr add fc00:0:2::1/128 dev lo
ip -6 route add fc00:0:1::/48 via fc00:12::1 dev core
ip sr tunsrc set fc00:0:2::1
sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv4.ip_forward=1 net.ipv6.conf.all.seg6_enabled=1 \
	net.ipv6.conf.core.seg6_enabled=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0

# srv6d -> CE2: End.DX2, the frame out of the circuit as it came (RFC 8986 §4.9).
ip -6 route add fc00:0:2::d1/128 encap seg6local action End.DX2 oif x1 dev core
ip -6 route add fc00:0:2::d2/128 encap seg6local action End.DX2 oif x2 dev core

# CE2 -> srv6d: H.Encaps.L2 to srv6d's End.DX2 SIDs. Linux encapsulates a frame only when it
# routes it: every IPv4/IPv6 packet received on the circuit goes to a table whose default
# route is the l2encap one (ARP and other non-IP frames are not carried this way: the CEs
# need static neighbors, or a bridge-based setup). The encapsulated packet is routed again with
# the circuit as its input interface, so the circuit's IPv6 table needs the way to srv6d's
# locator too (else its default route would encapsulate it once more).
for c in "x1 101 fc00:0:1::d1" "x2 102 fc00:0:1::d2"; do
	set -- $c
	ip rule add iif "$1" table "$2"
	ip -6 rule add iif "$1" table "$2"
	ip route add default encap seg6 mode l2encap segs "$3" dev core table "$2"
	ip -6 route add default encap seg6 mode l2encap segs "$3" dev core table "$2"
	ip -6 route add fc00:0:1::/48 via fc00:12::1 dev core table "$2"
done
