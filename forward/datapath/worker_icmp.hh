// ICMP errors the worker sends itself (docs/dataplane.md "ICMP errors"): time exceeded at
// ingress, after decapsulation and at a transit SID; packet too big / fragmentation needed at
// the headend and on plain forwarding; parameter problem for SRH errors (RFC 8754 §4.3.1.1,
// RFC 8986 §4.1). The error is written into the offending packet's own mbuf (its headers
// prepended, the quote cut to size: no allocation), then routed back like any packet, in the
// VRF the offending packet was routed in, from the router's address there. Within a token
// bucket per worker (RFC 4443 §2.4(f)); an error is never sent about an error.
#pragma once

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/icmp.hh"
#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srh.hh"
#include "forward/datapath/worker_pkt.hh"
#include "rib/behaviors.hh"

namespace fwd {

// Turns `p` into ICMP message type/code about itself (its L3 packet at p.l3), addressed to its
// source, from `src` (nullptr: the router's address in `vrf`, on the ingress port if it has
// one), and queues it for a lookup in `vrf`. Returns false when nothing is sent (the rules of
// RFC 1812 §4.3.2.7 / RFC 4443 §2.4(e), the rate limit, no source, a buffer we may not
// write): `p` is then untouched and the caller drops it with its own reason.
inline bool worker::icmp_send(pkt& p, icmp_kind k, uint8_t type, uint8_t code, uint32_t rest, vrf::vrf_id vrf,
                              const uint8_t* src) {
    rte_mbuf* m = p.m;
    if ((p.flags & f_icmp) != 0 || _pol.icmp_rate <= 0 || _next == nullptr)
        return false;
    // Writable in place: ours alone (not a clone, no other reference to an external buffer).
    if (RTE_MBUF_CLONED(m) || rte_mbuf_refcnt_read(m) != 1 ||
        (RTE_MBUF_HAS_EXTBUF(m) && rte_mbuf_ext_refcnt_read(m->shinfo) != 1))
        return false;
    const bool v4 = p.af == 4;
    const uint16_t hdr = v4 ? icmp::err4_hdr : icmp::err6_hdr;
    if (m->data_len <= p.l3 || rte_pktmbuf_headroom(m) + p.l3 < hdr + eth_len)
        return false;
    uint8_t* ip = rte_pktmbuf_mtod_offset(m, uint8_t*, p.l3);
    const uint32_t seg = m->data_len - p.l3u();
    const uint32_t len = m->pkt_len - p.l3u();
    const bool echo = k == icmp_kind::ip4_echo_reply || k == icmp_kind::ip6_echo_reply;
    if (!echo && !(v4 ? icmp::may_answer4(ip, seg) : icmp::may_answer6(ip, seg, k == icmp_kind::ip6_packet_too_big)))
        return false;
    if (src == nullptr) {
        src = _v.av->own_source(vrf, v4 ? rib::family::ipv4 : rib::family::ipv6, _v.in->port_id);
        if (src == nullptr) {
            _c.icmp.no_source.add(1);
            return false;
        }
    }
    const uint64_t now = rte_rdtsc();
    _pol.icmp.tokens += static_cast<double>(now - _pol.icmp.last) * _pol.icmp_rate / _pol.tsc_hz;
    _pol.icmp.last = now;
    if (_pol.icmp.tokens > _pol.icmp_burst)
        _pol.icmp.tokens = _pol.icmp_burst;
    if (_pol.icmp.tokens < 1.0) {
        _c.icmp.rate_limited.add(1);
        return false;
    }
    _pol.icmp.tokens -= 1.0;

    // The quote: as much as fits, from the first segment only (the rest of a chain is freed).
    const uint32_t label = v4 ? 0 : flow_label(flow_hash_ip(ip, seg));
    uint8_t src_copy[16];
    std::memcpy(src_copy, src, v4 ? 4 : 16);  // `src` may point into the packet (a SID)
    uint16_t q = v4 ? icmp::quote4(len) : icmp::quote6(len);
    if (q > seg)
        q = static_cast<uint16_t>(seg);
    if (p.l3 != 0)
        rte_pktmbuf_adj(m, p.l3);
    if (m->next != nullptr) {
        rte_pktmbuf_free(m->next);
        m->next = nullptr;
        m->nb_segs = 1;
    }
    m->data_len = q;
    m->pkt_len = q;
    uint8_t* out = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, hdr));
    if (v4)
        icmp::build4(out, q, src_copy, type, code, rest, ++_pol.icmp_id);
    else
        icmp::build6(out, q, src_copy, type, code, rest, label);

    _c.icmp.sent[static_cast<size_t>(k)].add(1);
    p.l3 = 0;
    p.vrf = vrf;
    p.flags = f_no_ttl | f_icmp;  // originated here: not decremented, never answered
    p.hash = 0;
    p.lookups = 0;
    _next->push(p);
    return true;
}

// A routed packet whose TTL / hop limit is 1 (RFC 1812 §5.3.1, RFC 8200 §3), in p.vrf.
inline bool worker::icmp_time_exceeded(pkt& p) {
    return p.af == 4 ? icmp_send(p, icmp_kind::ip4_time_exceeded, icmp::v4::time_exceeded, icmp::v4::code_ttl, 0, p.vrf,
                                 nullptr)
                     : icmp_send(p, icmp_kind::ip6_time_exceeded, icmp::v6::time_exceeded, icmp::v6::code_hop_limit, 0,
                                 p.vrf, nullptr);
}

// A packet larger than `mtu` (the largest packet of its family that fits where it goes): packet
// too big for IPv6 (RFC 4443 §3.2, at least the minimum MTU 1280), fragmentation needed for
// IPv4 (RFC 1191). For IPv4 without DF too: the Linux headend drops those silently; senders
// that get the error lower their path MTU and fragment to it (docs/dataplane.md).
inline bool worker::icmp_too_big(pkt& p, uint32_t mtu) {
    if (p.af == 4)
        return icmp_send(p, icmp_kind::ip4_frag_needed, icmp::v4::dest_unreach, icmp::v4::code_frag_needed,
                         std::max<uint32_t>(mtu, 68), p.vrf, nullptr);
    return icmp_send(p, icmp_kind::ip6_packet_too_big, icmp::v6::packet_too_big, 0, std::max<uint32_t>(mtu, 1280),
                     p.vrf, nullptr);
}

// A routed packet with TTL / hop limit 1: time exceeded from us, the packet dropped (counted
// as ttl_expired either way).
inline void worker::expire(pkt& p) {
    if (icmp_time_exceeded(p))
        return answered(p, drop_reason::ttl_expired);
    drop(p, drop_reason::ttl_expired);
}

// At the headend: the packet would exceed the outer route's MTU once encapsulated; `mtu` is
// what fits before encapsulation (egress MTU - encapsulation overhead).
inline void worker::encap_too_big(pkt& p, uint32_t mtu) {
    // Only for packets routed here: one an endpoint passed on (hop limit done) is not ours to answer.
    if (!(p.flags & f_no_ttl) && icmp_too_big(p, mtu))
        return answered(p, drop_reason::encap_mtu);
    drop(p, drop_reason::encap_mtu);
}

// The largest packet an ECMP outer route sends: the smallest of its members' port MTUs;
// 0xffff when none ends on a port of ours.
inline uint32_t worker::outer_ecmp_mtu(const fib::compiled_nh& o) const {
    uint32_t mtu = 0xffffu;
    for (const auto& mb : o.members()) {
        const fib::compiled_nh& x = _v.fv->nexthop(mb.nh);
        if (x.kind() != fib::nh_kind::forward)
            continue;
        if (const port_info* out = _v.av->port_by_ifindex(x.via().ifindex))
            mtu = std::min<uint32_t>(mtu, out->mtu);
    }
    return mtu;
}

// A packet an endpoint behavior refused (RFC 8986 §4, RFC 8754 §4.3.1.1): the ICMP error the
// RFC names, from the SID it was sent to, routed back to its source in the VRF the SID was
// found in; then dropped with `why`. `p` holds the packet as received (process_endpoint
// decides before it rewrites), data at the outer IPv6 header.
inline void worker::endpoint_error(pkt& p, const fib::compiled_nh& nh, drop_reason why) {
    uint8_t* ip = rte_pktmbuf_mtod(p.m, uint8_t*);
    const uint32_t seg = p.m->data_len;
    if (p.l3 != 0 || p.af != 6 || seg < ip6::header_len)
        return drop(p, why);
    uint8_t sid[16];
    std::memcpy(sid, ip + 24, 16);
    // Where the routing header and the upper layer are, for the pointer.
    ip6::ext_cursor rh = ip6::ext_begin(ip);
    const bool rh_ok = ip6::ext_walk(ip, seg, rh, true) == ip6::ext_status::ok && rh.nh == ip6::proto::routing;
    ip6::ext_cursor ul = ip6::ext_begin(ip);
    const bool ul_ok = ip6::ext_walk(ip, seg, ul, false) == ip6::ext_status::ok;
    bool sent = false;
    const auto param = [&](uint8_t code, uint32_t ptr) {
        return icmp_send(p, icmp_kind::ip6_param_problem, icmp::v6::param_problem, code, ptr, p.vrf, sid);
    };
    switch (why) {
    case drop_reason::ttl_expired: {
        const rib::behavior_info* row = rib::find_behavior(nh.sid().action);
        if (row != nullptr && row->decap != 0 && row->adjacency != 0) {  // End.DX4, End.DX6
            // The inner packet's TTL, on its way to the adjacency: an error about the inner
            // packet, in the VRF of the adjacency's port (RFC 8986 §4.4: routed as received there).
            if (!ul_ok || (ul.nh != ip6::proto::ipv4 && ul.nh != ip6::proto::ipv6) || ul.off >= seg)
                break;
            const uint32_t ifx = nh.via().ifindex != 0 ? nh.via().ifindex : nh.sid().oif;
            const port_info* out = _v.av->port_by_ifindex(ifx);
            if (out == nullptr)
                break;
            p.l3 = static_cast<uint16_t>(ul.off);
            p.af = ul.nh == ip6::proto::ipv4 ? 4 : 6;
            const vrf::vrf_id v = out->vrf;
            sent = p.af == 4 ? icmp_send(p, icmp_kind::ip4_time_exceeded, icmp::v4::time_exceeded,
                                         icmp::v4::code_ttl, 0, v, nullptr)
                             : icmp_send(p, icmp_kind::ip6_time_exceeded, icmp::v6::time_exceeded,
                                         icmp::v6::code_hop_limit, 0, v, nullptr);
            if (!sent) {
                p.l3 = 0;
                p.af = 6;
            }
            break;
        }
        // RFC 8986 §4.1 S05-S07: the outer hop limit at a transit SID.
        sent = icmp_send(p, icmp_kind::ip6_time_exceeded, icmp::v6::time_exceeded, icmp::v6::code_hop_limit, 0, p.vrf,
                         sid);
        break;
    }
    case drop_reason::srh_segments_left:  // RFC 8986 §4.1 S09 (RFC 8754 §4.3.1.1)
    case drop_reason::srh_sl_nonzero:     // RFC 8986 §4.4 S02 (and the other decapsulations)
        if (rh_ok)
            sent = param(icmp::v6::code_header, rh.off + 3);
        break;
    case drop_reason::rh_unsupported:  // RFC 8200 §4.4: unknown routing type, segments left > 0
        if (rh_ok)
            sent = param(icmp::v6::code_header, rh.off + 2);
        break;
    case drop_reason::srh_missing:  // RFC 8986 §4.1.1: an upper layer the SID does not process
    case drop_reason::srh_sl_zero:
        if (ul_ok)
            sent = param(icmp::v6::code_sr_upper, ul.off);
        break;
    default: break;
    }
    if (sent)
        return answered(p, why);  // the packet itself is still dropped, and counted so
    drop(p, why);
}

}  // namespace fwd
