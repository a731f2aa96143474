// Packet builders for tests, written field by field from RFC 791 (IPv4), RFC 8200 (IPv6 and its
// extension headers), RFC 8754 (SRH) and RFC 8986 §5 (H.Encaps), independent of forward/: the
// IPv4 checksum is computed from scratch, the SRv6 encapsulation from the definitions.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <vector>

#include "tests/support/bytes.hh"

namespace test_support {

inline void set16(bytes& b, size_t at, uint16_t v) {
    b[at] = static_cast<uint8_t>(v >> 8);
    b[at + 1] = static_cast<uint8_t>(v);
}
inline void push16(bytes& b, uint32_t v) {
    b.push_back(static_cast<uint8_t>(v >> 8));
    b.push_back(static_cast<uint8_t>(v));
}
inline void push(bytes& b, const rib::ip6_addr& a) { b.insert(b.end(), a.bytes.begin(), a.bytes.end()); }

// RFC 1071 over `len` bytes (an odd last byte padded with zero).
inline uint16_t ip4_checksum(const uint8_t* h, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i < len; i += 2)
        sum += static_cast<uint32_t>(h[i] << 8 | (i + 1 < len ? h[i + 1] : 0));
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

// A UDP header (length set, checksum 0: optional over IPv4, and nothing here checks it) + payload.
inline bytes udp(uint16_t sport, uint16_t dport, const bytes& payload) {
    bytes u;
    push16(u, sport);
    push16(u, dport);
    push16(u, static_cast<uint32_t>(8 + payload.size()));
    push16(u, 0);
    u.insert(u.end(), payload.begin(), payload.end());
    return u;
}

// IPv4 (20-byte header, checksum computed) carrying a UDP-shaped L4 (udp() above).
struct udp4 {
    std::array<uint8_t, 4> src{};
    std::array<uint8_t, 4> dst{};
    uint8_t tos = 0;
    uint8_t ttl = 64;
    uint8_t proto = 17;
    uint16_t id = 0;
    uint16_t frag = 0;  // flags + fragment offset
    uint16_t sport = 0;
    uint16_t dport = 0;
    bytes payload;
};

inline bytes ipv4_udp(const udp4& f) {
    const bytes l4 = udp(f.sport, f.dport, f.payload);
    bytes p = {0x45, f.tos};
    push16(p, static_cast<uint32_t>(20 + l4.size()));
    push16(p, f.id);
    push16(p, f.frag);
    p.push_back(f.ttl);
    p.push_back(f.proto);
    push16(p, 0);
    p.insert(p.end(), f.src.begin(), f.src.end());
    p.insert(p.end(), f.dst.begin(), f.dst.end());
    set16(p, 10, ip4_checksum(p.data(), 20));
    p.insert(p.end(), l4.begin(), l4.end());
    return p;
}

// IPv6 header (Payload Length filled in) + `payload`, whose protocol is `nh`.
inline bytes ipv6(uint8_t hop_limit, const rib::ip6_addr& src, const rib::ip6_addr& dst, uint8_t nh,
                  const bytes& payload, uint32_t flow_label = 0, uint8_t tc = 0) {
    bytes p = {static_cast<uint8_t>(0x60 | tc >> 4),
               static_cast<uint8_t>((tc & 0x0fu) << 4 | (flow_label >> 16 & 0x0fu))};
    push16(p, flow_label & 0xffff);
    push16(p, static_cast<uint32_t>(payload.size()));
    p.push_back(nh);
    p.push_back(hop_limit);
    push(p, src);
    push(p, dst);
    p.insert(p.end(), payload.begin(), payload.end());
    return p;
}

// One header of an IPv6 chain: `proto` is its own protocol number. For extension headers
// byte 0 (Next Header) is filled in by ipv6_chain().
struct layer {
    uint8_t proto;
    bytes b;
};

inline bool is_ext_header(uint8_t proto) {
    return proto == 0 || proto == 43 || proto == 44 || proto == 60 || proto == 51;
}

// IPv6 + `layers`, every Next Header filled in; the last layer's (if it is an extension header)
// is `last_nh`.
inline bytes ipv6_chain(uint8_t hop_limit, const rib::ip6_addr& src, const rib::ip6_addr& dst,
                        const std::vector<layer>& layers, uint8_t last_nh = 59, uint32_t flow_label = 0,
                        uint8_t tc = 0) {
    bytes chain;
    for (size_t i = 0; i < layers.size(); ++i) {
        const auto& l = layers[i];
        const size_t at = chain.size();
        chain.insert(chain.end(), l.b.begin(), l.b.end());
        if (is_ext_header(l.proto))
            chain[at] = i + 1 < layers.size() ? layers[i + 1].proto : last_nh;
    }
    return ipv6(hop_limit, src, dst, layers.empty() ? last_nh : layers.front().proto, chain, flow_label, tc);
}

// SRH with Segment List[0..n-1] exactly as given (wire order: [0] is the last segment), tag 0x0bad.
inline layer srh(uint8_t segments_left, const std::vector<rib::ip6_addr>& seglist, const bytes& tlvs = {}) {
    const size_t n = seglist.size();
    bytes b(8);
    b[1] = static_cast<uint8_t>((16 * n + tlvs.size()) / 8);  // (length - 8) / 8
    b[2] = 4;
    b[3] = segments_left;
    b[4] = static_cast<uint8_t>(n - 1);
    set16(b, 6, 0x0bad);  // tag, to see it survive
    for (const auto& a : seglist)
        push(b, a);
    b.insert(b.end(), tlvs.begin(), tlvs.end());
    return {43, b};
}

// Destination Options (or Hop-by-Hop with proto 0) of `len8` 8-octet units filled with PadN.
inline layer opts(uint8_t proto, uint8_t len8 = 1) {
    if (len8 == 0)  // a header is at least one unit (its length field counts the units beyond it)
        len8 = 1;
    bytes b(static_cast<size_t>(len8) * 8);
    b[1] = static_cast<uint8_t>(len8 - 1);
    b[2] = 1;  // PadN
    b[3] = static_cast<uint8_t>(b.size() - 4);
    return {proto, b};
}

inline layer frag(uint16_t offset8, bool more) {
    bytes b(8);
    set16(b, 2, static_cast<uint16_t>(offset8 << 3 | (more ? 1 : 0)));
    b[4] = 0xde, b[5] = 0xad, b[6] = 0xbe, b[7] = 0xef;
    return {44, b};
}

// RFC 8986 §5.1 / §5.2: the outer IPv6 header (+ SRH) a correct headend puts in front of
// `payload` (of protocol `inner_type`), written from the definitions.
struct srv6_encap_ref {
    bool red = false;                  // H.Encaps.Red: the first SID only in the DA
    std::vector<rib::ip6_addr> sids;   // S1 ... Sn, in travel order
    rib::ip6_addr src;
    uint8_t hop_limit = 64;
    uint8_t tc = 0;
    uint32_t flow_label = 0;
};

inline bytes srv6_encap(const srv6_encap_ref& r, const bytes& payload, uint8_t inner_type) {
    const size_t n = r.sids.size();
    // H.Encaps: SRH <Sn, ..., S1>, SL = n-1. H.Encaps.Red: SRH <Sn, ..., S2>, SL = n-1, and no
    // SRH at all when that list is empty.
    const size_t listed = r.red ? n - 1 : n;
    const size_t srh_len = listed == 0 ? 0 : 8 + 16 * listed;
    bytes o;
    o.push_back(static_cast<uint8_t>(0x60 | r.tc >> 4));                                   // version, TC high
    o.push_back(static_cast<uint8_t>((r.tc & 0x0fu) << 4 | (r.flow_label >> 16 & 0x0fu)));  // TC low, FL
    push16(o, r.flow_label & 0xffff);
    push16(o, static_cast<uint32_t>(srh_len + payload.size()));  // payload length
    o.push_back(srh_len != 0 ? 43 : inner_type);                  // next header
    o.push_back(r.hop_limit);
    push(o, r.src);
    push(o, r.sids[0]);  // DA: the first segment
    if (srh_len != 0) {
        o.push_back(inner_type);                                // SRH next header
        o.push_back(static_cast<uint8_t>((srh_len - 8) / 8));  // hdr ext len, 8-octet units
        o.push_back(4);                                         // routing type: SRH
        o.push_back(static_cast<uint8_t>(n - 1));               // segments left
        o.push_back(static_cast<uint8_t>(listed - 1));          // last entry
        o.push_back(0);                                         // flags
        push16(o, 0);                                           // tag
        for (size_t k = 0; k < listed; ++k)                     // Segment List[k] = S(n-k)
            push(o, r.sids[n - 1 - k]);
    }
    o.insert(o.end(), payload.begin(), payload.end());
    return o;
}

// An Ethernet II frame.
inline bytes ether(std::span<const uint8_t> dst_mac, std::span<const uint8_t> src_mac, uint16_t type, const bytes& l3) {
    // Sized once: growing a 6-byte vector trips g++ 12's -Warray-bounds (a false positive).
    bytes f(dst_mac.size() + src_mac.size() + 2 + l3.size());
    auto at = std::copy(dst_mac.begin(), dst_mac.end(), f.begin());
    at = std::copy(src_mac.begin(), src_mac.end(), at);
    *at++ = static_cast<uint8_t>(type >> 8);
    *at++ = static_cast<uint8_t>(type);
    std::copy(l3.begin(), l3.end(), at);
    return f;
}

}  // namespace test_support
