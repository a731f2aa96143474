// Local SIDs (RFC 8986 §4): End, End.X, End.T, End.DX2/DX4/DX6, End.DT4/DT6/DT46, End.B6.Encaps
// and flavors.
#pragma once

#include <rte_mbuf.h>

#include "forward/datapath/ip4_sum.hh"
#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srv6_endpoint.hh"
#include "forward/datapath/srv6_endpoint_short.hh"
#include "forward/datapath/worker_classify.hh"
#include "forward/datapath/worker_icmp.hh"
#include "forward/datapath/worker_pkt.hh"
#include "rib/behaviors.hh"

namespace fwd {

// What a decapsulated packet's header still needs before it is routed: decap_inner()
// (srv6_decap.hh), the one place a decapsulation decides, checked its version and lengths and
// trimmed it to its own length, as check_l3 would; left are the IPv4 header checksum and the
// IPv6 jumbogram check (RFC 2675: not forwarded), with check_l3's reasons.
[[gnu::always_inline]] inline bool decapped_l3_ok(const uint8_t* ip, uint8_t af, drop_reason& why) {
    if (af == 4) {
        if (!(ip[0] == 0x45 ? ip4_header_sum_ok(ip, 20) : ip4_header_sum_ok(ip, (ip[0] & 0xfu) * 4u))) {
            why = drop_reason::ip4_bad_checksum;
            return false;
        }
        return true;
    }
    if (ip[4] == 0 && ip[5] == 0 && ip[6] == 0) {
        why = drop_reason::ip6_truncated;
        return false;
    }
    return true;
}

[[gnu::always_inline]] inline void worker::do_endpoint(pkt& p, const fib::compiled_nh& nh, pkt_vec& next) {
    if (p.af != 6)
        return drop(p, drop_reason::sid_bad_inner);
    const fib::nh_sid& s = nh.sid();
    _c.sid(s.counter, s.counter_gen, p.m->pkt_len - p.l3u());
    if (p.l3 != 0) {
        rte_pktmbuf_adj(p.m, p.l3);
        p.l3 = 0;
    }
    const rib::behavior_info* row = rib::find_behavior(s.action);
    // The short form of the behavior for the usual packet, else the header walk: one
    // implementation either way (srv6_endpoint_short.hh).
    endpoint_result r;
    if (row == nullptr || !endpoint_short(p.m, *row, s.flavors, s.vrf, r)) {
        sid_params sp;
        sp.behavior = static_cast<rib::behavior>(s.action);
        sp.flavors = s.flavors;
        sp.lcblock_bits = s.lcblock_bits;  // the compiler filled in the contract's defaults
        sp.lcnode_fn_bits = s.lcnode_fn_bits;
        sp.vrf = s.vrf;
        r = process_endpoint_walk(p.m, sp);
    }
    // The decapsulations' results first, as plain branches (the switch's jump table is an
    // indirect branch per packet).
    if (r.action == endpoint_action::lookup_v4 || r.action == endpoint_action::lookup_v6) {
        p.af = r.action == endpoint_action::lookup_v4 ? 4 : 6;
        p.vrf = static_cast<vrf::vrf_id>(r.vrf);
        p.flags = static_cast<uint8_t>(p.flags & ~f_no_ttl);  // routed in the VRF: TTL as usual
        p.hash = 0;
        drop_reason why{};
        if (!decapped_l3_ok(rte_pktmbuf_mtod(p.m, const uint8_t*), p.af, why))
            return drop(p, why);
        next.push(p);
        return;
    }
    if (r.action == endpoint_action::send_l2)
        return dx2_out(p, s.oif);  // worker_l2vpn.hh
    switch (r.action) {
    case endpoint_action::forward_v6:
        p.vrf = static_cast<vrf::vrf_id>(r.vrf);
        p.flags |= f_no_ttl;
        p.hash = 0;
        next.push(p);
        return;
    case endpoint_action::lookup_v4:
    case endpoint_action::lookup_v6:
    case endpoint_action::send_l2: break;  // above
    case endpoint_action::send_v4:
    case endpoint_action::send_v6: {
        // The packet's family (its Ethernet type) and the adjacency's are distinct: End.X with
        // USD sends a decapsulated IPv4 packet to its IPv6 neighbour (RFC 8986 §4.16.3 S03
        // "forward to layer-3 adjacency bound to the SID"), resolved like the kernel's IPv4
        // route via an IPv6 gateway (RFC 8950). The row names the adjacency's address.
        p.af = r.action == endpoint_action::send_v4 ? 4 : 6;
        if (row == nullptr || row->adjacency == 0)
            return drop(p, drop_reason::sid_unsupported);
        if (row->adjacency == rib::sid_param::nh4)
            return do_adjacency(p, nh, rib::family::ipv4, s.nh4);
        return do_adjacency(p, nh, rib::family::ipv6, s.nh6);
    }
    case endpoint_action::encap_v6:
        // End.B6.Encaps S11-S15: the policy's header as a headend pushes it (the outer source,
        // hop limit and flow label its template's and the packet's flow's), to its first SID.
        p.af = 6;
        p.vrf = vrf::default_vrf_id;
        p.flags |= f_no_ttl;  // the End part did the hop limit
        p.hash = 0;
        return do_headend(p, nh, next);
    case endpoint_action::drop: return endpoint_error(p, nh, r.reason);  // worker_icmp.hh
    }
    drop(p, drop_reason::sid_unsupported);
}

// End.X / End.DX4 / End.DX6: to the SID's adjacency. Its interface is the one the SID names;
// without one, the one the adjacency address routes through in the default VRF.
inline void worker::do_adjacency(pkt& p, const fib::compiled_nh& nh, rib::family af, const uint8_t* addr) {
    p.flags |= f_no_ttl;
    // The adjacency's port and MAC are the same for every packet of this SID while the views
    // last: kept per nexthop (worker_l2.hh), as a gateway's.
    if (const l2_exit* x = l2_recall(nh.index())) {
        if (p.m->pkt_len - p.l3u() > x->mtu)
            return drop(p, drop_reason::mtu_exceeded);
        return l2_send(p, *x);
    }
    uint32_t ifindex = nh.via().ifindex != 0 ? nh.via().ifindex : nh.sid().oif;
    if (ifindex == 0) {
        const uint32_t r = af == rib::family::ipv4 ? _v.fv->lookup4(vrf::default_vrf_id, load_be32(addr))
                                                   : _v.fv->lookup6(vrf::default_vrf_id, addr);
        const fib::compiled_nh& via = _v.fv->nexthop(r);
        if (via.kind() == fib::nh_kind::forward)
            ifindex = via.via().ifindex;
    }
    const port_info* out = _v.av->port_by_ifindex(ifindex);
    if (out == nullptr)
        return drop(p, drop_reason::no_port);
    l2_out(p, *out, af, addr, nh.index());
}

}  // namespace fwd
