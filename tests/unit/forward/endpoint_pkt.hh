// Packet builders for the endpoint tests: their scenarios' defaults (addresses from literals,
// flow label 0xabcde, traffic class 0x28, recognisable payloads) over tests/support, and the
// mbuf pool they draw from.
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
#include "tests/support/pkt_builder.hh"
#include "tests/support/pkt_mbuf.hh"

namespace fwd::test {

using test_support::bytes;
using test_support::frag;
using test_support::ip4_checksum;
using test_support::layer;
using test_support::opts;

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

inline void put16(bytes& b, size_t at, uint16_t v) { test_support::set16(b, at, v); }

// SRH with Segment List[0..n-1] exactly as given (wire order: [0] is the last segment).
inline layer srh(uint8_t sl, std::initializer_list<const char*> seglist, bytes tlvs = {}) {
    std::vector<rib::ip6_addr> segs;
    for (const char* s : seglist)
        segs.push_back(a6(s));
    return test_support::srh(sl, segs, tlvs);
}

// A UDP-over-IPv4 packet (20-byte header, checksum computed from scratch).
inline bytes ip4_packet(const char* src, const char* dst, uint8_t ttl, size_t payload = 12, uint8_t tos = 0) {
    test_support::udp4 f;
    f.src = a4(src).bytes;
    f.dst = a4(dst).bytes;
    f.tos = tos;
    f.ttl = ttl;
    f.id = 0x1234;
    f.sport = 40000;
    f.dport = 7;
    for (size_t i = 0; i < payload; ++i)
        f.payload.push_back(static_cast<uint8_t>(0xa0 + i));
    return test_support::ipv4_udp(f);
}

// An Ethernet frame between two fixed MACs (End.DX2's payload).
inline bytes eth_frame(uint16_t type, const bytes& payload) {
    bytes f = {0x02, 0, 0, 0, 0xce, 0x02, 0x02, 0, 0, 0, 0xce, 0x01, static_cast<uint8_t>(type >> 8),
               static_cast<uint8_t>(type)};
    f.insert(f.end(), payload.begin(), payload.end());
    return f;
}

inline layer inner4(const char* src, const char* dst, uint8_t ttl = 64, size_t payload = 12) {
    return {4, ip4_packet(src, dst, ttl, payload)};
}

// IPv6 header + `layers`; Payload Length and every Next Header are filled in. The last
// layer's Next Header (if it is an extension header) is `last_nh`.
inline bytes ip6_packet(uint8_t hl, const char* src, const char* dst, const std::vector<layer>& layers,
                        uint8_t last_nh = 59, uint32_t flow = 0xabcde, uint8_t tc = 0x28) {
    return test_support::ipv6_chain(hl, a6(src), a6(dst), layers, last_nh, flow, tc);
}

inline layer inner6(const char* src, const char* dst, uint8_t hl = 64, size_t payload = 16) {
    bytes data;
    for (size_t i = 0; i < payload; ++i)
        data.push_back(static_cast<uint8_t>(0x50 + i));
    return {41, ip6_packet(hl, src, dst, {{17, test_support::udp(40001, 9, data)}}, 59, 0x54321, 0)};
}

// The pool every endpoint test draws from: created once per process, small (EAL --no-huge).
inline rte_mempool* pool() {
    static rte_mempool* p = rte_pktmbuf_pool_create("endpoint_test", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                    SOCKET_ID_ANY);
    return p;
}

// An mbuf holding `b` in one segment.
inline rte_mbuf* mbuf_of(const bytes& b) { return test_support::mbuf_from(pool(), b); }

// The packet bytes of `m`, all segments.
inline bytes bytes_of(const rte_mbuf* m) { return test_support::mbuf_bytes(m); }

inline bytes from_hex(const std::string& h) { return test_support::parse_hex(h); }

// 16 bytes a line, for readable failure output.
inline std::string hex(const bytes& b) { return test_support::to_hex(b, 16); }

}  // namespace fwd::test
