// The pre-built outer header of a headend nexthop, as the packet path sees it: plain bytes plus
// the two facts the per-packet code needs. The compiler (rib/) owns the bytes; this is a view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "rib/model.hh"

namespace fwd {

inline constexpr uint16_t ip6_hdr_len = 40;
inline constexpr uint16_t srh_fixed_len = 8;  // RFC 8754 §2: up to and including the tag
inline constexpr uint16_t sid_len = 16;
inline constexpr uint8_t ipproto_ipip = 4;
inline constexpr uint8_t ipproto_ipv6 = 41;
inline constexpr uint8_t ipproto_routing = 43;
inline constexpr uint8_t ipproto_ethernet = 143;  // RFC 8986 §10.1
inline constexpr uint8_t srh_routing_type = 4;

// Longest segment list a template may carry in its SRH (the kernel's SEG6 limit is larger, FRR
// sends at most 16); bounds the header mbuf size.
inline constexpr uint16_t max_srh_sids = 16;
inline constexpr uint16_t max_tmpl_len = ip6_hdr_len + srh_fixed_len + sid_len * max_srh_sids;

// Headroom left in front of the outer IPv6 header for the Ethernet rewrite that follows.
inline constexpr uint16_t eth_reserve = 14;

struct encap_tmpl_view {
    // Outer IPv6 header (+ SRH) exactly as sent: source, destination, hop limit and SRH final.
    // The packet path overwrites only version/traffic class/flow label (bytes 0-3), payload
    // length (4-5) and the byte at nh_off.
    const uint8_t* bytes = nullptr;
    uint16_t len = 0;    // 40, or 40 + 8 + 16·k with an SRH of k segments
    uint8_t nh_off = 6;  // where the inner type goes: IPv6 next header (no SRH) or SRH next header (40)
    bool l2 = false;     // H.Encaps.L2(.Red): the whole Ethernet frame is the payload (next header 143)
};

// Checks that `bytes` is a well-formed template for `mode` (RFC 8754 §2, RFC 8986 §5) and returns
// its view, or nullopt with the reason in `why`. Control plane only: the packet path trusts views.
// H.Encaps / H.Encaps.L2: SRH with every SID, segments_left == last_entry, DA == SID[segments_left];
// an SRH-less 40-byte template is accepted too (RFC 8986 §5.1 allows omitting a 1-SID SRH).
// .Red: SRH without the first SID, segments_left == last_entry + 1; 1 SID: no SRH (40 bytes).
std::optional<encap_tmpl_view> make_tmpl_view(const uint8_t* bytes, size_t len, rib::encap_mode mode,
                                              std::string* why = nullptr);

}  // namespace fwd
