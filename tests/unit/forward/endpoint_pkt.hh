// Packet builders for the endpoint tests: IPv6 with an extension-header chain, SRH, inner
// IPv4/IPv6, and mbufs from a test pool. Written from RFC 8200/8754/791 layouts, independent
// of forward/ (the IPv4 checksum is computed from scratch, not incrementally).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "rib/addr.hh"

namespace fwd::test {

using bytes = std::vector<uint8_t>;

inline rib::ip6_addr a6(const char* s) {
    const auto a = rib::parse_ip6(s);
    EXPECT_TRUE(a.has_value()) << s;
    return a.value_or(rib::ip6_addr{});
}

inline rib::ip4_addr a4(const char* s) {
    const auto a = rib::parse_addr(s);
    EXPECT_TRUE(a && a->is_v4()) << s;
    return a ? a->v4() : rib::ip4_addr{};
}

inline void put16(bytes& b, size_t at, uint16_t v) {
    b[at] = static_cast<uint8_t>(v >> 8);
    b[at + 1] = static_cast<uint8_t>(v);
}

// One header of the chain: `proto` is its own protocol number. For extension headers byte 0
// (Next Header) is filled in by the packet builder.
struct layer {
    uint8_t proto;
    bytes b;
};

// SRH with Segment List[0..n-1] exactly as given (wire order: [0] is the last segment).
inline layer srh(uint8_t sl, std::initializer_list<const char*> seglist, bytes tlvs = {}) {
    const size_t n = seglist.size();
    bytes b(8 + 16 * n);
    b[1] = static_cast<uint8_t>((16 * n + tlvs.size()) / 8);  // (length - 8) / 8
    b[2] = 4;
    b[3] = sl;
    b[4] = static_cast<uint8_t>(n - 1);
    b[5] = 0;
    put16(b, 6, 0x0bad);  // tag, to see it survive
    size_t i = 0;
    for (const char* s : seglist) {
        const auto a = a6(s);
        std::memcpy(b.data() + 8 + 16 * i++, a.bytes.data(), 16);
    }
    b.insert(b.end(), tlvs.begin(), tlvs.end());
    return {43, b};
}

// Destination Options (or Hop-by-Hop with proto 0) of `len8` 8-octet units filled with PadN.
inline layer opts(uint8_t proto, uint8_t len8 = 1) {
    bytes b(static_cast<size_t>(len8) * 8);
    b[1] = static_cast<uint8_t>(len8 - 1);
    b[2] = 1;  // PadN
    b[3] = static_cast<uint8_t>(b.size() - 4);
    return {proto, b};
}

inline layer frag(uint16_t offset8, bool more) {
    bytes b(8);
    put16(b, 2, static_cast<uint16_t>(offset8 << 3 | (more ? 1 : 0)));
    b[4] = 0xde, b[5] = 0xad, b[6] = 0xbe, b[7] = 0xef;
    return {44, b};
}

inline uint16_t ip4_checksum(const uint8_t* h, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i < len; i += 2)
        sum += static_cast<uint32_t>(h[i] << 8 | h[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

// A UDP-over-IPv4 packet (20-byte header, checksum computed from scratch).
inline bytes ip4_packet(const char* src, const char* dst, uint8_t ttl, size_t payload = 12, uint8_t tos = 0) {
    bytes b(20 + 8 + payload);
    b[0] = 0x45;
    b[1] = tos;
    put16(b, 2, static_cast<uint16_t>(b.size()));
    put16(b, 4, 0x1234);
    b[8] = ttl;
    b[9] = 17;
    const auto s = a4(src);
    const auto d = a4(dst);
    std::memcpy(b.data() + 12, s.bytes.data(), 4);
    std::memcpy(b.data() + 16, d.bytes.data(), 4);
    put16(b, 10, ip4_checksum(b.data(), 20));
    put16(b, 20, 40000);
    put16(b, 22, 7);
    put16(b, 24, static_cast<uint16_t>(8 + payload));
    for (size_t i = 0; i < payload; ++i)
        b[28 + i] = static_cast<uint8_t>(0xa0 + i);
    return b;
}

inline layer inner4(const char* src, const char* dst, uint8_t ttl = 64, size_t payload = 12) {
    return {4, ip4_packet(src, dst, ttl, payload)};
}

// IPv6 header + `layers`; Payload Length and every Next Header are filled in. The last
// layer's Next Header (if it is an extension header) is `last_nh`.
inline bytes ip6_packet(uint8_t hl, const char* src, const char* dst, const std::vector<layer>& layers,
                        uint8_t last_nh = 59, uint32_t flow = 0xabcde, uint8_t tc = 0x28) {
    bytes b(40);
    b[0] = static_cast<uint8_t>(0x60 | tc >> 4);
    b[1] = static_cast<uint8_t>(static_cast<uint32_t>(tc & 0x0f) << 4 | ((flow >> 16) & 0x0fu));
    put16(b, 2, static_cast<uint16_t>(flow));
    b[6] = layers.empty() ? last_nh : layers.front().proto;
    b[7] = hl;
    const auto s = a6(src);
    const auto d = a6(dst);
    std::memcpy(b.data() + 8, s.bytes.data(), 16);
    std::memcpy(b.data() + 24, d.bytes.data(), 16);
    for (size_t i = 0; i < layers.size(); ++i) {
        const auto& l = layers[i];
        const size_t at = b.size();
        b.insert(b.end(), l.b.begin(), l.b.end());
        const bool ext = l.proto == 0 || l.proto == 43 || l.proto == 44 || l.proto == 60 || l.proto == 51;
        if (ext)
            b[at] = i + 1 < layers.size() ? layers[i + 1].proto : last_nh;
    }
    put16(b, 4, static_cast<uint16_t>(b.size() - 40));
    return b;
}

inline layer inner6(const char* src, const char* dst, uint8_t hl = 64, size_t payload = 16) {
    bytes udp(8 + payload);
    put16(udp, 0, 40001);
    put16(udp, 2, 9);
    put16(udp, 4, static_cast<uint16_t>(udp.size()));
    for (size_t i = 0; i < payload; ++i)
        udp[8 + i] = static_cast<uint8_t>(0x50 + i);
    return {41, ip6_packet(hl, src, dst, {{17, udp}}, 59, 0x54321, 0)};
}

// The pool every endpoint test draws from: created once per process, small (EAL --no-huge).
inline rte_mempool* pool() {
    static rte_mempool* p = rte_pktmbuf_pool_create("endpoint_test", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                    SOCKET_ID_ANY);
    return p;
}

// An mbuf holding `b` in one segment.
inline rte_mbuf* mbuf_of(const bytes& b) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool());
    if (m == nullptr)
        return nullptr;
    char* d = rte_pktmbuf_append(m, static_cast<uint16_t>(b.size()));
    if (d == nullptr) {
        rte_pktmbuf_free(m);
        return nullptr;
    }
    std::memcpy(d, b.data(), b.size());
    return m;
}

// The packet bytes of `m`, all segments.
inline bytes bytes_of(const rte_mbuf* m) {
    bytes out(rte_pktmbuf_pkt_len(m));
    const void* p = rte_pktmbuf_read(m, 0, static_cast<uint32_t>(out.size()), out.data());
    if (p != nullptr && p != out.data())
        std::memcpy(out.data(), p, out.size());
    return out;
}

inline bytes from_hex(const std::string& h) {
    bytes out;
    int hi = -1;
    for (char ch : h) {
        int v;
        if (ch >= '0' && ch <= '9')
            v = ch - '0';
        else if (ch >= 'a' && ch <= 'f')
            v = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F')
            v = ch - 'A' + 10;
        else
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(static_cast<uint8_t>(hi << 4 | v));
            hi = -1;
        }
    }
    return out;
}

inline std::string hex(const bytes& b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < b.size(); ++i) {
        if (i && i % 16 == 0)
            s += '\n';
        s += d[b[i] >> 4];
        s += d[b[i] & 15];
    }
    return s;
}

}  // namespace fwd::test
