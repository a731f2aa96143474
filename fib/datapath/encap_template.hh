// The pre-built outer header of a headend nexthop (RFC 8986 §5), stored in the compiled nexthop
// exactly as the worker uses it: a few facts, then the outer IPv6 header (+ SRH, RFC 8754 §2)
// with the encapsulation source, destination, hop limit and segment list already in place.
// Built once by fib::build_encap_template (fib/control/encap_build.hh), the only place the
// resolved source enters; the worker copies `bytes[0..len)` in front of the packet and writes
// only the traffic class + flow label (bytes 0-3), the payload length (4-5) and the innermost
// next header (`bytes[next_header_off]`). Plain data: no pointer, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace fib {

namespace ipproto {
constexpr uint8_t ipip = 4;        // IPv4 in IPv6
constexpr uint8_t ipv6 = 41;       // IPv6 in IPv6
constexpr uint8_t routing = 43;    // the SRH
constexpr uint8_t ethernet = 143;  // RFC 8986 §10.1: Ethernet in IPv6 (L2 modes)
}  // namespace ipproto

constexpr size_t ipv6_header_size = 40;
constexpr size_t srh_fixed_size = 8;  // up to and including the tag
constexpr size_t sid_size = 16;
constexpr uint8_t srh_routing_type = 4;
constexpr uint8_t encap_default_hop_limit = 64;
// Longest segment list a template carries (FRR sends at most 16); bounds the template, and so
// the header mbuf the headend chains when the headroom is short: 40 + 8 + 16 * 16 = 304 bytes.
constexpr size_t max_srh_segments = 16;
constexpr size_t max_encap_len = ipv6_header_size + srh_fixed_size + sid_size * max_srh_segments;

struct encap_template {
    uint8_t mode = 0;             // rib::encap_mode (SEG6_IPTUN_MODE_*)
    uint8_t l2 = 0;               // H.Encaps.L2(.Red): the whole frame is the payload (143)
    uint8_t n_segments = 0;       // SIDs in the policy
    uint8_t srh_entries = 0;      // SIDs in the SRH (n, n - 1 for .Red, 0 when there is none;
                                  // H.Insert: n + 1, .Red n, the first entry the packet's DA)
    uint8_t inner_proto = 0;      // what bytes[next_header_off] was pre-filled with: 4, 41 or 143
    uint8_t next_header_off = 6;  // innermost next header: 6 (no SRH) or 40 (the SRH's)
    uint16_t len = 0;             // bytes to prepend: 40, or 40 + 8 + 16·k
    // H.Insert(.Red): no outer header. bytes[24..40) is the new destination (the first SID),
    // bytes[40..len) the SRH that goes after the packet's own IPv6 header; the rest of
    // bytes[0..40) is unused (the packet keeps its source, traffic class, flow label).
    uint8_t insert = 0;
    uint8_t pad[7]{};
    uint8_t bytes[max_encap_len]{};

    std::span<const uint8_t> wire() const { return {bytes, len}; }
};

}  // namespace fib
