// Bounded walk of the IPv6 extension header chain (RFC 8200 §4): finds the routing header and
// the upper-layer header without reading past the bytes it is given. Packet-path code: no
// allocation, no exceptions; the cursor is resumable so a transit SID stops at the SRH and
// only a decapsulating one walks on to the inner packet.
#pragma once

#include <cstdint>

namespace fwd::ip6 {

constexpr uint32_t header_len = 40;
constexpr uint32_t nh_field = 6;  // offset of Next Header in the IPv6 header

// IANA protocol numbers the endpoint cares about.
namespace proto {
constexpr uint8_t hop_by_hop = 0;
constexpr uint8_t ipv4 = 4;
constexpr uint8_t ipv6 = 41;
constexpr uint8_t routing = 43;
constexpr uint8_t fragment = 44;
constexpr uint8_t esp = 50;
constexpr uint8_t ah = 51;
constexpr uint8_t none = 59;
constexpr uint8_t dest_opts = 60;
constexpr uint8_t mobility = 135;
constexpr uint8_t hip = 139;
constexpr uint8_t shim6 = 140;
constexpr uint8_t ethernet = 143;  // RFC 8986 §10.1: an Ethernet frame (End.DX2, H.Encaps.L2)
constexpr uint8_t exp1 = 253;
constexpr uint8_t exp2 = 254;
}  // namespace proto

// A chain longer than this is treated as an attack (RFC 8504 §5.3 lets a node limit it);
// real SRv6 traffic carries at most HBH, DestOpt, SRH, DestOpt.
constexpr uint8_t max_ext_headers = 8;

// Extension headers that use the generic {next header, length} layout, plus AH and the
// fragment header, which have their own length rules. ESP is not walked: what follows it is
// encrypted, so it counts as the upper layer.
constexpr bool is_extension(uint8_t nh) {
    switch (nh) {
    case proto::hop_by_hop:
    case proto::routing:
    case proto::fragment:
    case proto::ah:
    case proto::dest_opts:
    case proto::mobility:
    case proto::hip:
    case proto::shim6:
    case proto::exp1:
    case proto::exp2:
        return true;
    default:
        return false;
    }
}

// Position in the chain: `nh` names the header that starts at `off`; the byte that holds `nh`
// is at `nh_off` (6 for the IPv6 header itself), which PSP/USP rewrite when they remove the SRH.
struct ext_cursor {
    uint32_t off = header_len;
    uint32_t nh_off = nh_field;
    uint8_t nh = 0;
    uint8_t count = 0;  // extension headers passed so far (budget shared by resumed walks)
};

enum class ext_status : uint8_t {
    ok,         // stopped at a routing header (when asked) or at a non-extension header
    truncated,  // the header at `off` does not fit in the buffer
    too_long,   // more than `max` extension headers
    hbh_misplaced,  // Hop-by-Hop anywhere but right after the IPv6 header (RFC 8200 §4.1)
    fragment,   // a fragment header of a real fragment: the rest is not all here
};

// Starts a walk at the IPv6 header in `p`.
inline ext_cursor ext_begin(const uint8_t* p) {
    ext_cursor c;
    c.nh = p[nh_field];
    return c;
}

// Moves `c` over extension headers until the header at `c.off` is not an extension header or,
// with `stop_at_routing`, is a routing header. `len` bounds every read; a header is only
// passed once all of its bytes are inside `len`. An atomic fragment (offset 0, M = 0) is
// passed like any other header.
inline ext_status ext_walk(const uint8_t* p, uint32_t len, ext_cursor& c, bool stop_at_routing,
                           uint8_t max = max_ext_headers) {
    while (is_extension(c.nh)) {
        if (c.nh == proto::routing && stop_at_routing)
            return ext_status::ok;
        if (c.nh == proto::hop_by_hop && c.off != header_len)
            return ext_status::hbh_misplaced;
        if (c.count >= max)
            return ext_status::too_long;
        if (len < 8 || c.off > len - 8)  // every extension header is at least 8 bytes
            return ext_status::truncated;
        const uint8_t* h = p + c.off;
        uint32_t hlen;
        if (c.nh == proto::fragment) {
            // Fragment Offset (13 bits) and M flag: anything but 0/0 means a real fragment.
            if (((static_cast<uint32_t>(h[2]) << 8 | h[3]) & 0xfff9u) != 0)
                return ext_status::fragment;
            hlen = 8;
        } else if (c.nh == proto::ah) {
            hlen = (static_cast<uint32_t>(h[1]) + 2) * 4;  // RFC 4302: 4-octet units minus 2
        } else {
            hlen = (static_cast<uint32_t>(h[1]) + 1) * 8;
        }
        if (hlen > len - c.off)
            return ext_status::truncated;
        c.nh_off = c.off;
        c.nh = h[0];
        c.off += hlen;
        ++c.count;
    }
    return ext_status::ok;
}

}  // namespace fwd::ip6
