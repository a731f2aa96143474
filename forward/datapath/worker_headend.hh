// H.Encaps, H.Encaps.Red, H.Encaps.L2, H.Encaps.L2.Red (RFC 8986 §5) and H.Insert(.Red) from the
// nexthop template.
#pragma once

#include <rte_mbuf.h>

#include <cstring>

#include "forward/datapath/worker_classify.hh"
#include "forward/datapath/worker_icmp.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// What the headend needs of the outer route of template `from` (destination `dst`, its first
// SID): its nexthop in the default VRF; the largest packet it sends (its port's MTU, the
// smallest member's for ECMP, 0xffff when it does not end on a port of ours); and its port and
// Ethernet header when the headend can write it itself (a resolved gateway on an untagged port
// that is up), else no port and act() routes the packet. A function of the two views only, so
// kept in _memo.outer while they are in use, and read there in place: one test per packet,
// which hits but for a template's first packet. Not copied out as the current template's entry:
// with traffic to several PEs the template changes as unpredictably as its flows interleave,
// and that copy's branch would mispredict.
[[gnu::always_inline]] inline const outer_exit& worker::outer_route(uint32_t from, const uint8_t* dst) {
    const outer_exit& memo = _memo.outer[from % exit_memos::outer_size];
    if (unlikely(memo.from != from))
        outer_resolve(from, dst);
    return memo;
}

// outer_route()'s first time for a template in the current views: out of line (rare).
[[gnu::noinline]] inline void worker::outer_resolve(uint32_t from, const uint8_t* dst) {
    outer_exit x;
    x.from = from;
    x.nh = _v.fv->lookup6(vrf::default_vrf_id, dst);
    x.mtu = 0xffffu;
    const fib::compiled_nh& o = _v.fv->nexthop(x.nh);
    if (o.kind() == fib::nh_kind::ecmp) {
        x.mtu = outer_ecmp_mtu(o);
        outer_ecmp_exit(x.nh, o, x);
    } else if (o.kind() == fib::nh_kind::forward) {
        if (const port_info* out = _v.av->port_by_ifindex(o.via().ifindex))
            x.mtu = out->mtu;
        direct_exit(o, x.port, x.eth);  // else x.port stays port_none: act() routes it
    }
    _memo.outer[from % exit_memos::outer_size] = x;
}

// Whether an outer packet routed to `m` can leave at once: `m` forwards to a resolved gateway
// on an untagged port that is up (a port down in this view stays down for as long as the view
// is used). Then `port` (its own device) and `eth`, the Ethernet header to write.
inline bool worker::direct_exit(const fib::compiled_nh& m, uint16_t& port, uint8_t* eth) const {
    if (m.kind() != fib::nh_kind::forward || m.via().gw_family == 0)
        return false;
    const port_info* out = _v.av->port_by_ifindex(m.via().ifindex);
    if (out == nullptr || !out->up || out->vlan != 0)
        return false;
    const mac_addr* mac = _v.av->neighbor_mac(out->port_id, static_cast<rib::family>(m.via().gw_family), m.via().gw);
    if (mac == nullptr)
        return false;
    port = out->port_id;
    std::memcpy(eth, mac->bytes, 6);
    std::memcpy(eth + 6, out->mac.bytes, 6);
    eth[12] = ether_ipv6 >> 8;
    eth[13] = ether_ipv6 & 0xff;
    return true;
}

// The direct exits of ECMP group `o` (nexthop `nh`) as the outer route, when every slot's
// member is a resolved gateway on an untagged port that is up and the group has at most
// exit_memos::ecmp_exit_slots slots (equal weights: one per member): x.ecmp_n and x.ecmp_row, their rows
// shared by every template the group carries; else left 0 (act() then picks the member, with
// local repair, as for any routed packet). Out of line: once per template and views.
[[gnu::noinline]] inline void worker::outer_ecmp_exit(uint32_t nh, const fib::compiled_nh& o, outer_exit& x) {
    uint32_t g = 0;
    while (g < _memo.n_ecmp && _memo.ecmp_nh[g] != nh)
        ++g;
    if (g == _memo.n_ecmp) {
        const auto slots = o.slots();
        if (slots.empty() || slots.size() > exit_memos::ecmp_exit_slots || _memo.n_ecmp == exit_memos::outer_ecmp_size)
            return;
        for (uint32_t s = 0; s < slots.size(); ++s) {
            const uint32_t row = g * exit_memos::ecmp_exit_slots + s;
            if (!direct_exit(_v.fv->nexthop(slots[s]), _memo.ecmp_port[row], _memo.ecmp_eth[row]))
                return;
        }
        _memo.ecmp_nh[g] = nh;
        _memo.ecmp_n[g] = static_cast<uint8_t>(slots.size());
        ++_memo.n_ecmp;
    }
    x.ecmp_n = _memo.ecmp_n[g];
    x.ecmp_row = static_cast<uint8_t>(g * exit_memos::ecmp_exit_slots);
}

[[gnu::always_inline]] inline void worker::do_headend(pkt& p, const fib::compiled_nh& nh, pkt_vec& next) {
    const fib::encap_template& e = nh.encap();  // stored as the headend uses it
    uint16_t l3 = p.l3;
    // The outer destination is the template's: one lookup per template while the views last.
    const outer_exit& o = outer_route(nh.index(), e.bytes + 24);
    // The packet's IP header (the frame's, for L2 modes): classify (or the decapsulation)
    // checked it as p.af, so the hash and the traffic class need no version dispatch.
    uint8_t* const ip = rte_pktmbuf_mtod_offset(p.m, uint8_t*, l3);
    uint32_t hash = p.hash;
    if (hash == 0) {
        const uint32_t avail = p.m->data_len - p.l3u();
        hash = p.af == 4 ? flow_hash_ip4(ip, avail) : flow_hash_ip6(ip, avail);
    }
    if (unlikely(e.insert))
        return do_insert(p, e, o, ip, hash, next);
    if (e.l2) {
        // The frame as received is the payload (RFC 8986 §5.3); a decapsulated packet has none.
        if (p.l3 < eth_len)
            return drop(p, drop_reason::l2encap_no_frame);
        if (hash == 0)  // as inner_flow_hash(): the frame's addresses when the IP hash is 0
            hash = flow_hash_eth(rte_pktmbuf_mtod(p.m, const uint8_t*));
        // A frame too big for the direct exit goes to act(), which drops it as any oversized
        // packet (an L3 payload's size is checked below, against o.mtu).
        uint16_t out;
        const uint8_t* out_eth;
        outer_exit_of(o, hash, out, out_eth);
        if (out != port_none && p.m->pkt_len + e.len > o.mtu)
            out = port_none;
        return headend_push<false>(p, e, o, out, out_eth, 0, fib::ipproto::ethernet, headend_detail::inner_tc(ip, p.af), hash, next);
    }
    if (!(p.flags & f_no_ttl) && !ttl_left(ip, p.af))
        return expire(p);
    // Too big once encapsulated: IPv4 without DF is fragmented, the rest gets packet too big /
    // fragmentation needed with what fits (worker_frag.hh).
    if (p.m->pkt_len - p.l3u() + e.len > o.mtu)
        return encap_fragment(p, nh, o.mtu > e.len ? o.mtu - e.len : 0, hash);
    if (!(p.flags & f_no_ttl))
        dec_ttl(ip, p.af);
    uint16_t out;
    const uint8_t* out_eth;
    outer_exit_of(o, hash, out, out_eth);
    // No second parse: an L3 payload's type is its family's.
    headend_push<false>(p, e, o, out, out_eth, l3, p.af == 4 ? fib::ipproto::ipip : fib::ipproto::ipv6,
                 headend_detail::inner_tc(ip, p.af), hash, next);
}

// H.Insert(.Red): the SRH into the packet's own IPv6 header (h_insert_push), which is routed
// on in the default VRF to its new destination, the first SID, as an encapsulated packet is.
// A router hop for the packet: its hop limit checked and decremented here, once (the kernel's
// forward after seg6_input). Too big once the SRH is in: packet too big with what fits.
[[gnu::always_inline]] inline void worker::do_insert(pkt& p, const fib::encap_template& e, const outer_exit& o, uint8_t* ip,
                                                    uint32_t hash, pkt_vec& next) {
    if (unlikely(p.af != 6))  // the compiler refuses H.Insert on IPv4 routes
        return drop(p, drop_reason::refused_encap);
    const uint16_t srh = static_cast<uint16_t>(e.len - ip6_hdr_len);
    if (!(p.flags & f_no_ttl) && !ttl_left(ip, 6))
        return expire(p);
    if (p.m->pkt_len - p.l3u() + srh > o.mtu)
        return encap_too_big(p, o.mtu > srh ? o.mtu - srh : 0);
    if (!(p.flags & f_no_ttl))
        dec_ttl(ip, 6);
    uint16_t out;
    const uint8_t* out_eth;
    outer_exit_of(o, hash, out, out_eth);
    headend_push<true>(p, e, o, out, out_eth, p.l3, 0, 0, hash, next);
}

// The direct exit of the flow with inner hash `hash` (port_none: none, act() routes it): the
// template's, or when its outer route is an ECMP group with direct exits, the slot act() would
// pick (ecmp_pick_live() with every member live).
[[gnu::always_inline]] inline void worker::outer_exit_of(const outer_exit& o, uint32_t hash, uint16_t& out,
                                                        const uint8_t*& out_eth) const {
    out = o.port;
    out_eth = o.eth;
    if (likely(o.ecmp_n == 0))
        return;
    const uint32_t row = o.ecmp_row + fib::ecmp_slot(hash, o.ecmp_n);
    out = _memo.ecmp_port[row];
    out_eth = _memo.ecmp_eth[row];
}

// The push of do_headend(), one call per payload kind (L2: the whole frame, nothing stripped;
// L3: `strip` bytes of Ethernet in front of the packet), each with its own constants.
// The outer packet leaves at once when `out` is a port (not port_none): its route is a
// resolved gateway on an untagged port that is up and takes it, and the Ethernet header goes
// in the encap's own prepend (`out_eth`: the one for this flow, an ECMP group's member's).
// Anything else (an ECMP group without direct exits, unresolved, tagged, too big for an L2
// payload) is routed by act().
// `insert`: H.Insert's push (h_insert_push: `inner_type` and `tc` unused) instead of the encap's.
template <bool insert>
[[gnu::always_inline]] inline void worker::headend_push(pkt& p, const fib::encap_template& e, const outer_exit& o, uint16_t out,
                                                       const uint8_t* out_eth, uint16_t strip, uint8_t inner_type,
                                                       uint8_t tc, uint32_t hash, pkt_vec& next) {
    drop_reason why{};
    auto push = [&](uint16_t l2_len) {
        if constexpr (insert)
            return h_insert_push(p.m, strip, e, _he, why, l2_len);
        else
            return h_encaps_push(p.m, strip, inner_type, tc, hash, e, _he, why, l2_len);
    };
    if (out != port_none) {
        // Two copies of the push, each with its own Ethernet room as a constant.
        rte_mbuf* head = push(eth_len);
        if (head == nullptr)
            return drop(p, why);
        _c.headend[e.mode & (headend_slots - 1)].add(1);
        // 14 bytes as two overlapping 8-byte stores (bytes 6-7 written twice, the same).
        uint8_t* eth = rte_pktmbuf_mtod(head, uint8_t*);
        std::memcpy(eth, out_eth, 8);
        std::memcpy(eth + 6, out_eth + 6, 8);
        head->port = out;
        p.m = nullptr;
        return enqueue(out, head, out);
    }
    rte_mbuf* head = push(0);
    if (head == nullptr)
        return drop(p, why);
    _c.headend[e.mode & (headend_slots - 1)].add(1);
    p.m = head;
    p.l3 = 0;
    p.af = 6;
    p.vrf = vrf::default_vrf_id;  // the outer packet is routed in the core (default) VRF
    p.flags |= f_no_ttl;          // its hop limit is the template's
    // The outer flow is the inner one (its label is flow_label(hash)): an ECMP outer route
    // picks its member by the same hash, not by a second hash of the outer header.
    p.hash = hash;
    p.nhp = &_v.fv->nexthop(o.nh);  // read here, where it is needed: rare
    ++p.lookups;
    act_outer(p, next);
}

// act() for the outer packet of a headend whose exit is not direct: out of line, so that act()
// and do_headend() inline into the burst loop (a call back into act() from do_headend() made
// it recursive, and GCC then kept do_headend() out of line: a call per encapsulated packet).
[[gnu::noinline]] inline void worker::act_outer(pkt& p, pkt_vec& next) { act(p, next); }

}  // namespace fwd
