#!/usr/bin/env bash
# A router on a real wire, ICMP side: srv6d as PE1 against the Linux kernel as PE2 in the e2e
# topology (tests/live/e2e_lib.sh: VRFs red and blue with overlapping addresses) with a
# 1500-byte core, so that a full-size customer packet does not fit once encapsulated.
#
#   sudo tests/live/e2e_icmp_test.sh [BUILD_DIR]
#
# Checks: path MTU discovery through srv6d's H.Encaps (a 1472-byte DF IPv4 ping and a 1500-byte
# IPv6 ping get fragmentation needed / packet too big with the MTU that fits, the CE's route
# cache takes it, a ping of that size then gets through; a TCP bulk transfer with the default
# MSS completes, IPv4 and IPv6); hop limit 1 from a CE gets time exceeded from PE1's address in
# the CE's VRF; traceroute CE2 -> CE1 through the VPN shows every hop in red and in blue (the
# answers reach the CE of their own VRF); a remote CE pings PE1's VRF addresses through the VPN
# (End.DT4 / End.DT6 into the VRF, srv6d answers) and PE1's kernel never tries to resolve its
# own address; a unicast frame for another MAC is not routed. IPv4 fragments: live_fragments
# (on the host: the VM's net_af_xdp on veth did not receive them).
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_lib.sh"

live_need_kernel_srv6 "$0" "$@"
live_require
for t in ethtool tcpdump; do command -v "$t" >/dev/null || live_die "missing tool: $t"; done
live_init "${LIVE_PREFIX:-s6i-$$}"

E2E_CORE_MTU=1500
E2E_CB_DEV="net_af_xdp0,iface=vb"
# End.DT4 SIDs of srv6d's own: PE2 reaches PE1's VRF addresses through them (zebra's End.DX4
# SIDs cross-connect to the CE, whatever the destination).
e2e_up "[sids]
sid = fc00:1::a44 End.DT4 vrf red
sid = fc00:1::b44 End.DT4 vrf blue"
check "routes and SIDs in srv6d" wait_until 20 "routes and SIDs in srv6d" e2e_state_ok
ip -n "$PE2" route add 10.1.0.1/32 encap seg6 mode encap segs fc00:1::a44 dev core table 10 &&
	ip -n "$PE2" route add 10.1.0.1/32 encap seg6 mode encap segs fc00:1::b44 dev core table 20 ||
	live_log "PE2's routes to PE1's VRF addresses failed"
check "PE1's kernel reaches PE2 across the core port" ping6 "$PE1" fc00:12::2
e2e_warm_all || live_log "warm-up incomplete"

tool() { local ns="$1"; shift; ip netns exec "$ns" "$LIVE_PY" "$LIVE_HOME/icmp_tool.py" "$@"; }
icmp_sent() { srv6ctl show counters --json | jq -r --arg k "$1" '[.icmp.sent[]? | select(.message == $k) | .packets | tonumber] + [0] | .[0]'; }
srv6ctl clear counters >/dev/null

# ---- path MTU: 1500-byte packets do not fit a 1500-byte core once encapsulated ------------------
out4="$(tool "$CE1R" ping --df -s 1472 10.2.0.2)"
live_log "CE1-red, 1472-byte DF ping to 10.2.0.2: $out4"
M4=0
[[ "$out4" =~ ^too-big\ 10\.1\.0\.1\ mtu=([0-9]+)$ ]] && M4="${BASH_REMATCH[1]}"
check "fragmentation needed from PE1's red address, with the core MTU minus the encapsulation (1460 or 1436)" \
	eval '[ "$M4" -eq 1460 ] || [ "$M4" -eq 1436 ]'
live_log "CE1-red: $(ip -n "$CE1R" route get 10.2.0.2 | tr -s '\n ' ' ')"
check "CE1-red's route cache took mtu $M4" eval 'ip -n "$CE1R" route get 10.2.0.2 | grep -q "mtu $M4"'
check "a DF ping of $M4 bytes now gets its reply" tool "$CE1R" ping --df -s $((M4 - 28)) -W 3 10.2.0.2
out6="$(tool "$CE1R" ping -6 -s 1452 fd02::2)"
live_log "CE1-red, 1500-byte IPv6 ping to fd02::2: $out6"
M6=0
[[ "$out6" =~ ^too-big\ fd01::1\ mtu=([0-9]+)$ ]] && M6="${BASH_REMATCH[1]}"
check "packet too big from PE1's red address fd01::1, with the core MTU minus the encapsulation" \
	eval '[ "$M6" -eq 1460 ] || [ "$M6" -eq 1436 ]'
live_log "CE1-red: $(ip -n "$CE1R" -6 route get fd02::2 | tr -s '\n ' ' ')"
check "CE1-red's IPv6 route cache took mtu $M6" eval 'ip -n "$CE1R" -6 route get fd02::2 | grep -q "mtu $M6"'
check "an IPv6 ping of $M6 bytes now gets its reply" tool "$CE1R" ping -6 -s $((M6 - 48)) -W 3 fd02::2
# blue's CE learns its own path MTU: the same addresses, the other VRF
outb="$(tool "$CE1B" ping --df -s 1472 10.2.0.2)"
check "CE1-blue gets its own fragmentation needed ($outb)" eval '[[ "$outb" == "too-big 10.1.0.1 mtu=$M4" ]]'

# ---- TCP with the default MSS (1448) through the VPN ------------------------------------------
for fam in 4 6; do
	dst=10.2.0.2 opt="" port=5004
	[ "$fam" = 6 ] && dst=fd02::2 opt=-6 port=5006
	ip -n "$CE1R" route flush cache >/dev/null 2>&1
	ip -n "$CE1R" -6 route flush cache >/dev/null 2>&1
	tool "$CE2R" tcp-server $opt $port $((1 << 20)) >"$LIVE_WORK/tcp-server$fam.out" 2>&1 &
	srv=$!
	LIVE_PIDS+=("$srv")
	wait_until 5 "TCP server listening" eval "ip netns exec $CE2R ss -ltn | grep -q :$port"
	cap_start "$CE1R" r0 "$LIVE_WORK/tcp$fam-ce1r.pcap" "tcp port $port or icmp or icmp6"
	t0=$SECONDS
	res="$(tool "$CE1R" tcp-client $opt -T 60 "$dst" $port $((1 << 20)) 2>&1)"
	rc=$?
	cap_stop
	[ $rc -eq 0 ] || kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	live_log "TCP IPv$fam CE1-red -> CE2-red, 1 MiB: $res ($((SECONDS - t0)) s); SYN/RST/ICMP seen by CE1-red:"
	cap_read "$LIVE_WORK/tcp$fam-ce1r.pcap" | grep -E "Flags \[(S|S\.|R|R\.)\]|ICMP" | head -20 >&2
	check "a 1 MiB TCP transfer over IPv$fam with the default MSS completes through srv6d's H.Encaps" eval "[ $rc -eq 0 ]"
done

# ---- hop limit 1 from a CE ---------------------------------------------------------------------
te4="$(tool "$CE1R" ping -t 1 10.2.0.2)"
te6="$(tool "$CE1B" ping -6 -t 1 fd02::2)"
check "TTL 1 from CE1-red: time exceeded from 10.1.0.1 ($te4)" eval '[ "$te4" = "time-exceeded 10.1.0.1" ]'
check "hop limit 1 from CE1-blue: time exceeded from fd01::1 ($te6)" eval '[ "$te6" = "time-exceeded fd01::1" ]'

# ---- traceroute through the VPN, both VRFs (the same addresses) -------------------------------
# CE2 -> CE1: PE2 (the kernel) encapsulates IPv4 on input without decrementing the inner TTL, so
# PE1 (srv6d: End.DX4, inner TTL 1) is hop 1. For IPv6 the kernel's headend copies the inner hop
# limit into the outer header and drops the hop-limit-1 probe itself (its answer goes nowhere):
# hop 1 is PE2's '*', and PE1 decapsulates the next probe with its inner hop limit intact.
# CE1 -> CE2: srv6d is the headend, hop 1; PE2 answers hop 2 from its main table, which has no
# route back to CE1 ('*').
# Each '*' costs 3 probes x the wait: 1 s, not the tool's 2 (answers take milliseconds, also in
# the VM).
for ce in "$CE2R:$CE1R:red" "$CE2B:$CE1B:blue"; do
	IFS=: read -r ns2 ns1 v <<<"$ce"
	tr4="$(tool "$ns2" trace -W 1 -m 4 10.1.0.2 | tr '\n' ',')"
	tr6="$(tool "$ns2" trace -W 1 -6 -m 4 fd01::2 | tr '\n' ',')"
	tr6r="$(tool "$ns1" trace -W 1 -6 -m 4 fd02::2 | tr '\n' ',')"
	live_log "traceroute CE2-$v -> CE1-$v: IPv4 $tr4 IPv6 $tr6; CE1-$v -> CE2-$v IPv6: $tr6r"
	check "traceroute CE2-$v -> 10.1.0.2 shows PE1's $v address, then CE1-$v" eval "[ '$tr4' = '1 10.1.0.1,2 10.1.0.2,' ]"
	check "traceroute CE2-$v -> fd01::2 gets to CE1-$v at hop 2" eval "[[ '$tr6' == *',2 fd01::2,' ]]"
	check "traceroute CE1-$v -> fd02::2 shows PE1's $v address fd01::1 at hop 1 and gets to CE2-$v" eval \
		"[[ '$tr6r' == '1 fd01::1,'*'fd02::2,' ]]"
done

# ---- PE1's own VRF addresses, from the remote CEs ------------------------------------------------
check "CE2-red pings PE1's red address 10.1.0.1 (End.DT4 into red, srv6d answers)" ping4 "$CE2R" 10.1.0.1
check "CE2-blue pings PE1's blue address 10.1.0.1" ping4 "$CE2B" 10.1.0.1
check "CE2-red pings fd01::1 (End.DT6 table 10)" ping6 "$CE2R" fd01::1
check "CE2-blue pings fd01::1 (End.DT6 table 20)" ping6 "$CE2B" fd01::1
live_log "PE1's neighbors: $(ip -n "$PE1" neigh show | tr '\n' ';')"
check "PE1's kernel was never asked to resolve its own address" eval \
	'! ip -n "$PE1" neigh show | grep -qE "^(10\.1\.0\.1|fd01::1) "'

# ---- ingress MAC check: a unicast frame for another station is not routed ---------------------
l2_0="$(drops l2_other_station)"
cap_start "$CE2R" r0 "$LIVE_WORK/ce2r-mac.pcap" icmp
# (a raw frame from a packet socket: scapy takes a minute to import under the VM's TCG)
ip netns exec "$CE1R" "$LIVE_PY" -c '
import socket, struct
def csum(b):
    b += b"\0" * (len(b) & 1)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF); s += s >> 16
    return ~s & 0xFFFF
icmp = struct.pack("!BBHHH", 8, 0, 0, 0x77, 1) + b"x" * 32
icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 1, 0, 64, 1, 0,
                 socket.inet_aton("10.1.0.2"), socket.inet_aton("10.2.0.2"))
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
src = bytes.fromhex(open("/sys/class/net/r0/address").read().strip().replace(":", ""))
frame = bytes.fromhex("02005e009999") + src + b"\x08\x00" + ip + icmp
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("r0", 0))
for _ in range(5):
    s.send(frame)'
check "srv6d dropped the 5 frames for another MAC (l2_other_station)" \
	wait_until 5 "l2_other_station + 5" eval '[ "$(drops l2_other_station)" -ge $((l2_0 + 5)) ]'
cap_stop
check "CE2-red got none of them" eval '[ "$(cap_read "$LIVE_WORK/ce2r-mac.pcap" | grep -c "id 119")" -eq 0 ]'

srv6ctl show counters | tee "$LIVE_WORK/counters.txt" >&2
live_log "ICMP sent by srv6d: frag-needed $(icmp_sent "ipv4 fragmentation-needed"), packet-too-big $(icmp_sent "ipv6 packet-too-big"), time-exceeded $(icmp_sent "ipv4 time-exceeded")/$(icmp_sent "ipv6 time-exceeded") (v4/v6), echo replies $(icmp_sent "ipv4 echo-reply")/$(icmp_sent "ipv6 echo-reply"), rate-limited $(srv6ctl show counters --json | jq -r '.icmp.rateLimited // 0')"
check "srv6d counted what it sent (fragmentation needed, packet too big, time exceeded both families, echo replies)" eval \
	'[ "$(icmp_sent "ipv4 fragmentation-needed")" -ge 2 ] && [ "$(icmp_sent "ipv6 packet-too-big")" -ge 1 ] &&
	 [ "$(icmp_sent "ipv4 time-exceeded")" -ge 3 ] && [ "$(icmp_sent "ipv6 time-exceeded")" -ge 3 ] &&
	 [ "$(icmp_sent "ipv4 echo-reply")" -ge 6 ] && [ "$(icmp_sent "ipv6 echo-reply")" -ge 6 ]'
[ -n "${LIVE_LOGDIR:-}" ] && cp "$LIVE_WORK"/*.txt "$LIVE_WORK"/*.out "$LIVE_LOGDIR"/ 2>/dev/null
live_finish
