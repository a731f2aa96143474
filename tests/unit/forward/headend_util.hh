// Test helpers for the headend: hex bytes, packet builders, templates as the compiler must build
// them, an RFC 8986 reference encoder written field by field, and mbuf in/out.
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

namespace fwd::test {

using bytes = std::vector<uint8_t>;

inline bytes hex(std::string_view s) {
    bytes out;
    int hi = -1;
    for (const char c : s) {
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            continue;  // spaces and separators
        if (hi < 0) {
            hi = v;
        } else {
            out.push_back(static_cast<uint8_t>(hi << 4 | v));
            hi = -1;
        }
    }
    if (hi >= 0)
        throw std::invalid_argument("odd number of hex digits");
    return out;
}

inline std::string to_hex(const bytes& b) {
    static constexpr char d[] = "0123456789abcdef";
    std::string s;
    for (const uint8_t x : b) {
        s += d[x >> 4];
        s += d[x & 15];
    }
    return s;
}

inline rib::ip6_addr ip6(std::string_view s) {
    const auto a = rib::parse_ip6(s);
    if (!a)
        throw std::invalid_argument(std::string(s));
    return *a;
}

inline void put(bytes& b, const rib::ip6_addr& a) { b.insert(b.end(), a.bytes.begin(), a.bytes.end()); }
inline void put16(bytes& b, uint32_t v) {
    b.push_back(static_cast<uint8_t>(v >> 8));
    b.push_back(static_cast<uint8_t>(v));
}

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
    const size_t n = r.sids.size();
    const bool red = is_red(r.mode);
    // H.Encaps: SRH <Sn, ..., S1>, SL = n-1. H.Encaps.Red: SRH <Sn, ..., S2>, SL = n-1, and no
    // SRH at all when that list is empty.
    const size_t listed = red ? n - 1 : n;
    const size_t srh_len = listed == 0 ? 0 : 8 + 16 * listed;
    bytes o;
    o.push_back(static_cast<uint8_t>(0x60 | r.tc >> 4));                              // version, TC high
    o.push_back(static_cast<uint8_t>((r.tc & 0x0fu) << 4 | (r.flow_label >> 16 & 0x0fu)));  // TC low, FL
    put16(o, r.flow_label & 0xffff);
    put16(o, static_cast<uint32_t>(srh_len + payload.size()));  // payload length
    o.push_back(srh_len != 0 ? 43 : inner_type);                 // next header
    o.push_back(r.hop_limit);
    put(o, r.src);
    put(o, r.sids[0]);  // DA: the first segment
    if (srh_len != 0) {
        o.push_back(inner_type);                                  // SRH next header
        o.push_back(static_cast<uint8_t>((srh_len - 8) / 8));    // hdr ext len, 8-octet units
        o.push_back(4);                                           // routing type: SRH
        o.push_back(static_cast<uint8_t>(n - 1));                 // segments left
        o.push_back(static_cast<uint8_t>(listed - 1));            // last entry
        o.push_back(0);                                           // flags
        put16(o, 0);                                              // tag
        for (size_t k = 0; k < listed; ++k)                       // Segment List[k] = S(n-k)
            put(o, r.sids[n - 1 - k]);
    }
    o.insert(o.end(), payload.begin(), payload.end());
    return o;
}

// ---- packets

inline uint16_t ip4_checksum(const uint8_t* h, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += static_cast<uint32_t>(h[i] << 8 | h[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

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
    const size_t total = 20 + 8 + f.payload.size();
    bytes p = {0x45, f.tos};
    put16(p, static_cast<uint32_t>(total));
    put16(p, f.id);
    put16(p, f.frag);
    p.push_back(f.ttl);
    p.push_back(f.proto);
    put16(p, 0);
    p.insert(p.end(), f.src.begin(), f.src.end());
    p.insert(p.end(), f.dst.begin(), f.dst.end());
    const uint16_t c = ip4_checksum(p.data(), 20);
    p[10] = static_cast<uint8_t>(c >> 8);
    p[11] = static_cast<uint8_t>(c);
    put16(p, f.sport);
    put16(p, f.dport);
    put16(p, static_cast<uint32_t>(8 + f.payload.size()));
    put16(p, 0);
    p.insert(p.end(), f.payload.begin(), f.payload.end());
    return p;
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

inline bytes ipv6_packet(const flow6& f) {
    bytes p = {static_cast<uint8_t>(0x60 | f.tc >> 4), static_cast<uint8_t>((f.tc & 0x0fu) << 4 | (f.label >> 16 & 0x0fu))};
    put16(p, f.label & 0xffff);
    put16(p, static_cast<uint32_t>(8 + f.payload.size()));
    p.push_back(f.nh);
    p.push_back(f.hlim);
    put(p, ip6(f.src));
    put(p, ip6(f.dst));
    put16(p, f.sport);
    put16(p, f.dport);
    put16(p, static_cast<uint32_t>(8 + f.payload.size()));
    put16(p, 0);
    p.insert(p.end(), f.payload.begin(), f.payload.end());
    return p;
}

inline const bytes& pe_mac() {
    static const bytes m = hex("020000000010");
    return m;
}
inline const bytes& ce_mac() {
    static const bytes m = hex("020000000001");
    return m;
}

inline bytes ether(const bytes& l3, uint16_t type) {
    bytes f = pe_mac();
    f.insert(f.end(), ce_mac().begin(), ce_mac().end());
    put16(f, type);
    f.insert(f.end(), l3.begin(), l3.end());
    return f;
}

// ---- mbufs

// A single-segment packet with `headroom` bytes in front of it.
inline rte_mbuf* make_mbuf(rte_mempool* pool, const bytes& data, uint16_t headroom = RTE_PKTMBUF_HEADROOM) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    if (m == nullptr)
        throw std::runtime_error("packet pool empty");
    m->data_off = headroom;
    char* p = rte_pktmbuf_append(m, static_cast<uint16_t>(data.size()));
    if (p == nullptr)
        throw std::runtime_error("packet does not fit the mbuf");
    std::copy(data.begin(), data.end(), reinterpret_cast<uint8_t*>(p));
    return m;
}

// All segments' bytes, concatenated.
inline bytes read_all(const rte_mbuf* m) {
    bytes out;
    for (const rte_mbuf* s = m; s != nullptr; s = s->next) {
        const auto* p = rte_pktmbuf_mtod(s, const uint8_t*);
        out.insert(out.end(), p, p + s->data_len);
    }
    return out;
}

}  // namespace fwd::test
