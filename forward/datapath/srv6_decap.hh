// Decapsulation (RFC 8986 §4.4-4.9 S05-S06), the one implementation: the checks of the inner
// packet and the removal of the outer headers, which process_endpoint's header walk
// (srv6_endpoint.cc) and the short form for the usual packet (decap_short: the inner packet
// right after the outer IPv6 header, no walk) both call. What differs between the two is only
// how the inner header is found.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srv6_endpoint.hh"
#include "rib/behaviors.hh"

namespace fwd {

namespace decap_detail {

inline uint16_t load16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

// IPv4 TTL - 1 with the header checksum updated incrementally (RFC 1624 eq. 3): the 16-bit
// word holding TTL and Protocol changes from m to m' = m - 0x100, so ~m + m' is 0xfeff and
// the sum stays below 0x1feff: one fold is enough.
[[gnu::always_inline]] inline void ip4_ttl_decrement(uint8_t* h) {
    const uint32_t old_word = load16(h + 8);
    --h[8];
    const uint32_t new_word = load16(h + 8);
    uint32_t sum = static_cast<uint32_t>(static_cast<uint16_t>(~load16(h + 10))) + static_cast<uint16_t>(~old_word) +
                   new_word;
    sum = (sum & 0xffff) + (sum >> 16);
    const uint16_t c = static_cast<uint16_t>(~sum);
    h[10] = static_cast<uint8_t>(c >> 8);
    h[11] = static_cast<uint8_t>(c);
}

// rte_pktmbuf_adj without its length check, once the caller has checked that the first
// segment holds more than `off` bytes. Forced inline: in the worker's act stage GCC leaves
// rte_pktmbuf_adj out of line (a call, and the decap's state spilled around it, per packet).
[[gnu::always_inline]] inline void strip_front(rte_mbuf* m, uint16_t off) {
    m->data_off = static_cast<uint16_t>(m->data_off + off);
    m->data_len = static_cast<uint16_t>(m->data_len - off);
    m->pkt_len -= off;
}

constexpr uint32_t ip4_min = 20;
constexpr uint32_t eth_min = 14;            // destination, source, Ethernet type
constexpr uint16_t eth_802_3_min = 0x0600;  // below: an 802.3 length field, not a type

}  // namespace decap_detail

// The outer IPv6 packet at the data start of `m`, `l3` bytes long (40 + Payload Length; the
// mbuf holds exactly that many: link padding trimmed), `len` of them in the first segment; its
// upper-layer header at `off` is IPv4 (`v4`) or IPv6. Checks the inner header, removes the
// outer headers, trims what follows the inner packet inside the outer payload; to an
// adjacency (End.DX4/DX6, End.X + USD) also decrements the inner TTL / hop limit. Returns the
// action: lookup_v4/v6 into `vrf`, send_v4/v6, or drop with its reason.
[[gnu::always_inline]] inline endpoint_result decap_inner(rte_mbuf* m, uint8_t* ip, uint32_t off, uint32_t l3,
                                                          uint32_t len, bool v4, bool to_adjacency, uint32_t vrf) {
    using namespace decap_detail;
    const auto dropped = [](drop_reason r) { return endpoint_result{endpoint_action::drop, r, 0}; };
    uint8_t* in = ip + off;
    const uint32_t in_l3 = l3 - off;    // bytes the outer header says follow
    const uint32_t in_seg = len - off;  // of those, bytes in the first segment
    uint32_t inner_len;
    if (v4) {
        if (in_l3 < ip4_min)
            return dropped(drop_reason::ip4_truncated);
        if (in_seg < ip4_min)
            return dropped(drop_reason::hdr_segmented);
        if ((in[0] >> 4) != 4)
            return dropped(drop_reason::sid_bad_inner);
        const uint32_t ihl = (in[0] & 0x0fu) * 4;
        inner_len = load16(in + 2);
        if (ihl < ip4_min || inner_len < ihl || inner_len > in_l3)
            return dropped(drop_reason::ip4_truncated);
        if (ihl > in_seg)
            return dropped(drop_reason::hdr_segmented);
        if (to_adjacency) {
            if (in[8] <= 1)
                return dropped(drop_reason::ttl_expired);
            ip4_ttl_decrement(in);
        }
    } else {
        if (in_l3 < ip6::header_len)
            return dropped(drop_reason::ip6_truncated);
        if (in_seg < ip6::header_len)
            return dropped(drop_reason::hdr_segmented);
        if ((in[0] >> 4) != 6)
            return dropped(drop_reason::sid_bad_inner);
        inner_len = ip6::header_len + load16(in + 4);
        if (inner_len > in_l3)
            return dropped(drop_reason::ip6_truncated);
        if (to_adjacency) {
            if (in[7] <= 1)
                return dropped(drop_reason::ttl_expired);
            --in[7];
        }
    }
    strip_front(m, static_cast<uint16_t>(off));  // len - off >= the inner header: checked above
    if (inner_len < in_l3 && rte_pktmbuf_trim(m, static_cast<uint16_t>(in_l3 - inner_len)) != 0)
        return dropped(v4 ? drop_reason::ip4_truncated : drop_reason::ip6_truncated);
    // To the row's adjacency with the packet's own family (End.X + USD: an inner IPv4 packet
    // to End.X's IPv6 neighbor, RFC 8986 §4.16.3; the worker reads the address from the row).
    if (to_adjacency)
        return {v4 ? endpoint_action::send_v4 : endpoint_action::send_v6, drop_reason::sid_unsupported, 0};
    return {v4 ? endpoint_action::lookup_v4 : endpoint_action::lookup_v6, drop_reason::sid_unsupported, vrf};
}

// End.DX2 (RFC 8986 §4.9) S05-S06 once the upper-layer header at `off` is Ethernet: the frame
// must be at least a header long and its type field a type (>= 0x0600), not an 802.3 length,
// as the kernel's input_action_end_dx2; the outer headers go, the frame leaves unchanged.
[[gnu::always_inline]] inline endpoint_result decap_l2_inner(rte_mbuf* m, const uint8_t* ip, uint32_t off, uint32_t l3,
                                                             uint32_t len) {
    using namespace decap_detail;
    const auto dropped = [](drop_reason r) { return endpoint_result{endpoint_action::drop, r, 0}; };
    if (l3 - off < eth_min)
        return dropped(drop_reason::eth_truncated);
    if (len - off < eth_min)
        return dropped(drop_reason::hdr_segmented);
    if (load16(ip + off + 12) < eth_802_3_min)
        return dropped(drop_reason::sid_bad_inner);
    strip_front(m, static_cast<uint16_t>(off));  // len - off >= eth_min: checked above
    return {endpoint_action::send_l2, drop_reason::sid_unsupported, 0};
}

// The short form of a decapsulating behavior (`row`: its handler is decap) for the packet an
// H.Encaps.Red / .L2.Red headend with one SID sends (FRR's L3VPN, a VPWS): the upper-layer
// header right after the outer IPv6 header, one segment. Then the result is decap_inner's or
// decap_l2_inner's, as process_endpoint's walk would reach them (the same call), and true;
// anything else (extension headers, a chain of segments, a family the SID does not take)
// returns false with the packet untouched, for the walk to decide.
[[gnu::always_inline]] inline bool decap_short(rte_mbuf* m, const rib::behavior_info& row, uint32_t vrf,
                                               endpoint_result& r) {
    using namespace decap_detail;
    const uint32_t dl = m->data_len;
    if (m->nb_segs != 1 || dl <= ip6::header_len)
        return false;
    uint8_t* ip = rte_pktmbuf_mtod(m, uint8_t*);
    // The family first, from the Next Header byte and the row (one test of each): few values
    // live at once, in the worker's act stage where registers are scarce.
    const uint8_t nh = ip[ip6::nh_field];
    const uint8_t fam = nh == ip6::proto::ipv4   ? rib::decap::v4
                        : nh == ip6::proto::ipv6 ? rib::decap::v6
                        : nh == ip6::proto::ethernet ? rib::decap::eth
                                                     : 0;
    if ((row.decap & fam) == 0)
        return false;
    const uint32_t l3 = ip6::header_len + load16(ip + 4);
    if (l3 > dl || l3 == ip6::header_len)
        return false;
    if (unlikely(l3 < dl))  // link padding past the outer packet: the walk trims it first too
        rte_pktmbuf_trim(m, static_cast<uint16_t>(dl - l3));
    r = fam == rib::decap::eth ? decap_l2_inner(m, ip, ip6::header_len, l3, l3)
                               : decap_inner(m, ip, ip6::header_len, l3, l3, fam == rib::decap::v4,
                                             row.adjacency != 0, vrf);
    return true;
}

}  // namespace fwd
