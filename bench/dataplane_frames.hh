// Frame builders of bench_dataplane_bench: Ethernet + IPv4 / IPv6 / UDP with valid lengths and
// checksums, 64-byte-class frames.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "rib/addr.hh"

namespace bench {

using bytes = std::vector<uint8_t>;

inline void put16(bytes& b, size_t at, uint16_t v) {
    b[at] = static_cast<uint8_t>(v >> 8);
    b[at + 1] = static_cast<uint8_t>(v);
}

inline uint16_t csum(const uint8_t* h, size_t len) {
    uint32_t s = 0;
    for (size_t i = 0; i < len; i += 2)
        s += static_cast<uint32_t>(h[i] << 8 | h[i + 1]);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return static_cast<uint16_t>(~s);
}

struct mac {
    uint8_t b[6];
};

inline bytes eth(const mac& dst, const mac& src, uint16_t type, const bytes& l3) {
    bytes f(14 + l3.size());
    std::memcpy(f.data(), dst.b, 6);
    std::memcpy(f.data() + 6, src.b, 6);
    put16(f, 12, type);
    std::memcpy(f.data() + 14, l3.data(), l3.size());
    return f;
}

inline bytes ip4(uint32_t src, uint32_t dst, uint16_t sport) {
    bytes b(20 + 8 + 18);  // 46 bytes: a 64-byte frame with the FCS
    b[0] = 0x45;
    put16(b, 2, static_cast<uint16_t>(b.size()));
    b[8] = 64;
    b[9] = 17;
    for (int i = 0; i < 4; ++i) {
        b[12 + static_cast<size_t>(i)] = static_cast<uint8_t>(src >> (24 - 8 * i));
        b[16 + static_cast<size_t>(i)] = static_cast<uint8_t>(dst >> (24 - 8 * i));
    }
    put16(b, 10, csum(b.data(), 20));
    put16(b, 20, sport);
    put16(b, 22, 4789);
    put16(b, 24, 26);
    return b;
}

inline bytes ip6(const rib::ip6_addr& src, const rib::ip6_addr& dst, uint8_t nh, const bytes& payload) {
    bytes b(40);
    b[0] = 0x60;
    put16(b, 4, static_cast<uint16_t>(payload.size()));
    b[6] = nh;
    b[7] = 64;
    std::memcpy(b.data() + 8, src.bytes.data(), 16);
    std::memcpy(b.data() + 24, dst.bytes.data(), 16);
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

inline bytes udp(uint16_t sport) {
    bytes u(8 + 10);
    put16(u, 0, sport);
    put16(u, 2, 4789);
    put16(u, 4, 18);
    return u;
}

inline rib::ip6_addr with_word(rib::ip6_addr a, size_t at, uint16_t v) {
    a.bytes[at] = static_cast<uint8_t>(v >> 8);
    a.bytes[at + 1] = static_cast<uint8_t>(v);
    return a;
}

// The outer header of H.Encaps / H.Encaps.Red / H.Encaps.L2 (RFC 8986 §5, RFC 8754 §2), built
// here independently of srv6d's compiler: the byte comparison checks both.
inline bytes encap_header(bool reduced, uint8_t inner, const std::vector<rib::ip6_addr>& sids, const rib::ip6_addr& src,
                          uint8_t& nh_off) {
    // Built in a fixed buffer, then copied out: GCC 12 flags the indexing of a vector sized by
    // the SID count as a potential null dereference once this is inlined into some callers.
    constexpr size_t max_sids = 16;
    uint8_t h[40 + 8 + 16 * max_sids] = {};
    nh_off = 6;
    if (sids.empty() || sids.size() > max_sids)
        return {};  // no template: the byte comparison that uses it fails
    const size_t n = sids.size(), entries = reduced ? n - 1 : n;
    const size_t len = 40 + (entries ? 8 + 16 * entries : 0);
    h[0] = 0x60;
    h[6] = entries ? 43 : inner;
    h[7] = 64;
    std::memcpy(h + 8, src.bytes.data(), 16);
    std::memcpy(h + 24, sids[0].bytes.data(), 16);
    if (entries) {
        h[40] = inner;
        h[41] = static_cast<uint8_t>(2 * entries);
        h[42] = 4;
        h[43] = static_cast<uint8_t>(n - 1);
        h[44] = static_cast<uint8_t>(entries - 1);
        for (size_t i = 0; i < entries; ++i)
            std::memcpy(h + 48 + 16 * i, sids[n - 1 - i].bytes.data(), 16);
        nh_off = 40;
    }
    return bytes(h, h + len);
}

}  // namespace bench
