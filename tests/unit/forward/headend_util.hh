// Test helpers for the headend: templates as the compiler must build them, its scenarios'
// packets (flow4/flow6) and the RFC 8986 reference encoder, over tests/support.
#pragma once

#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "tests/support/pkt_builder.hh"
#include "tests/support/pkt_mbuf.hh"

namespace fwd::test {

using test_support::bytes;
using test_support::ip4_checksum;
using test_support::ip6;
using test_support::to_hex;

inline bytes hex(std::string_view s) { return test_support::parse_hex(s); }
inline void put(bytes& b, const rib::ip6_addr& a) { test_support::push(b, a); }
inline void put16(bytes& b, uint32_t v) { test_support::push16(b, v); }

// SIDs fc00:<b+i>::<i+1> (fc00:b::1, fc00:c::2, ...), distinct per position so a misplaced SID shows.
inline std::vector<rib::ip6_addr> sid_list(size_t n) {
    std::vector<rib::ip6_addr> v;
    for (size_t i = 0; i < n; ++i) {
        rib::ip6_addr a;
        a.bytes[0] = 0xfc;
        a.bytes[3] = static_cast<uint8_t>(0x0b + i);
        a.bytes[15] = static_cast<uint8_t>(i + 1);
        v.push_back(a);
    }
    return v;
}

inline bool is_red(rib::encap_mode m) { return m == rib::encap_mode::encap_red || m == rib::encap_mode::l2encap_red; }
inline bool is_l2(rib::encap_mode m) { return m == rib::encap_mode::l2encap || m == rib::encap_mode::l2encap_red; }

// The template the compiler must hand over: what Linux builds for `ip route ... encap seg6 mode M
// segs S1,...,Sn` (checked against the kernel in headend_kernel_test.cc). Traffic class, flow
// label, payload length and the inner type are left 0: the packet path writes them.
inline bytes build_template(rib::encap_mode mode, const std::vector<rib::ip6_addr>& sids, const rib::ip6_addr& src,
                            uint8_t hop_limit) {
    const bool red = is_red(mode);
    const size_t in_srh = red ? sids.size() - 1 : sids.size();
    bytes t = {0x60, 0, 0, 0, 0, 0, static_cast<uint8_t>(in_srh != 0 ? 43 : 0), hop_limit};
    put(t, src);
    put(t, sids.front());
    if (in_srh == 0)
        return t;
    const auto last_entry = static_cast<uint8_t>(in_srh - 1);
    const auto segments_left = static_cast<uint8_t>(sids.size() - 1);
    const bytes srh = {0, static_cast<uint8_t>(2 * in_srh), 4, segments_left, last_entry, 0, 0, 0};
    t.insert(t.end(), srh.begin(), srh.end());
    // Segment List[0] is the last segment (RFC 8754 §2); .Red leaves out the first SID.
    for (size_t i = sids.size(); i-- > (red ? 1 : 0);)
        put(t, sids[i]);
    return t;
}

// RFC 8986 §5 encapsulation, written out field by field from the definitions, independent of the
// template: the bytes a correct headend emits for `payload`.
struct ref_encap {
    rib::encap_mode mode = rib::encap_mode::encap;
    std::vector<rib::ip6_addr> sids;
    rib::ip6_addr src;
    uint8_t hop_limit = 64;
    uint8_t tc = 0;
    uint32_t flow_label = 0;
};

inline bytes reference_encap(const ref_encap& r, const bytes& payload, uint8_t inner_type) {
    return test_support::srv6_encap({is_red(r.mode), r.sids, r.src, r.hop_limit, r.tc, r.flow_label}, payload,
                                    inner_type);
}

// What H.Insert makes of IPv6 packet `pkt`, from the definitions: the SRH after the fixed
// header, its next header the packet's, Segment List = [the packet's DA, Sn .. S1] (.Red:
// [DA, Sn .. S2]), segments left n, last entry the list's; DA = S1; payload length + the SRH.
inline bytes reference_insert(rib::encap_mode mode, const std::vector<rib::ip6_addr>& sids, const bytes& pkt) {
    const bool red = mode == rib::encap_mode::inline_red;
    const size_t n = sids.size();
    const size_t entries = red ? n : n + 1;
    bytes out(pkt.begin(), pkt.begin() + 40);
    const size_t plen = (size_t{pkt[4]} << 8 | pkt[5]) + 8 + 16 * entries;
    out[4] = static_cast<uint8_t>(plen >> 8);
    out[5] = static_cast<uint8_t>(plen);
    out[6] = 43;
    std::copy(sids[0].bytes.begin(), sids[0].bytes.end(), out.begin() + 24);
    const bytes srh = {pkt[6], static_cast<uint8_t>(2 * entries), 4, static_cast<uint8_t>(n),
                       static_cast<uint8_t>(entries - 1), 0, 0, 0};
    out.insert(out.end(), srh.begin(), srh.end());
    out.insert(out.end(), pkt.begin() + 24, pkt.begin() + 40);  // Segment List[0]: the old DA
    for (size_t i = n; i-- > (red ? 1 : 0);)
        put(out, sids[i]);
    out.insert(out.end(), pkt.begin() + 40, pkt.end());
    return out;
}

// ---- packets

struct flow4 {
    std::array<uint8_t, 4> src{10, 1, 0, 2};
    std::array<uint8_t, 4> dst{10, 99, 1, 5};
    uint8_t tos = 0;
    uint8_t ttl = 64;
    uint8_t proto = 17;
    uint16_t sport = 1000;
    uint16_t dport = 2000;
    uint16_t frag = 0;  // flags + offset field
    uint16_t id = 1;
    std::string payload = "hello";
};

// IPv4 + UDP-shaped L4 (ports, length, zero checksum) + payload, valid header checksum.
inline bytes ipv4_packet(const flow4& f) {
    return test_support::ipv4_udp({f.src, f.dst, f.tos, f.ttl, f.proto, f.id, f.frag, f.sport, f.dport,
                                   bytes(f.payload.begin(), f.payload.end())});
}

struct flow6 {
    std::string src = "fd01::2";
    std::string dst = "fd99:1::5";
    uint8_t tc = 0;
    uint32_t label = 0;
    uint8_t hlim = 64;
    uint8_t nh = 17;
    uint16_t sport = 1000;
    uint16_t dport = 2000;
    std::string payload = "hello";
};

// IPv6 + UDP-shaped L4 (ports, length, zero checksum) + payload; `nh` is written as given.
inline bytes ipv6_packet(const flow6& f) {
    return test_support::ipv6(f.hlim, ip6(f.src), ip6(f.dst), f.nh,
                              test_support::udp(f.sport, f.dport, bytes(f.payload.begin(), f.payload.end())),
                              f.label, f.tc);
}

inline const bytes& pe_mac() {
    static const bytes m = hex("020000000010");
    return m;
}
inline const bytes& ce_mac() {
    static const bytes m = hex("020000000001");
    return m;
}

inline bytes ether(const bytes& l3, uint16_t type) { return test_support::ether(pe_mac(), ce_mac(), type, l3); }

// ---- mbufs

// A single-segment packet with `headroom` bytes in front of it.
inline rte_mbuf* make_mbuf(rte_mempool* pool, const bytes& data, uint16_t headroom = RTE_PKTMBUF_HEADROOM) {
    rte_mbuf* m = test_support::mbuf_from(pool, data, headroom);
    if (m == nullptr)
        throw std::runtime_error("packet pool empty, or the packet does not fit the mbuf");
    return m;
}

// All segments' bytes, concatenated.
inline bytes read_all(const rte_mbuf* m) { return test_support::mbuf_bytes(m); }

}  // namespace fwd::test
