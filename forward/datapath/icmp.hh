// ICMP error messages a router sends (RFC 792/1812 for IPv4, RFC 4443 for IPv6, RFC 8754
// §4.3.1.1 and RFC 8986 §4.1 for SRH errors): the IP + ICMP header written in front of the
// quoted offending packet, field for field as the Linux kernel writes them (checked
// byte-exactly against kernel captures in tests/unit/forward/icmp_test.cc). Pure functions on
// contiguous bytes; the worker places them in the offending packet's own mbuf
// (worker_icmp.hh).
#pragma once

#include <rte_byteorder.h>
#include <rte_ip.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace fwd::icmp {

inline constexpr uint16_t err4_hdr = 28;  // IPv4 header (no options) + ICMP header
inline constexpr uint16_t err6_hdr = 48;  // IPv6 header + ICMPv6 header
// Largest error message: Linux quotes up to 576 bytes in all for IPv4 (RFC 1812 §4.3.2.3: "as
// much of the original datagram as possible without the length of the ICMP datagram
// exceeding 576 bytes") and up to the IPv6 minimum MTU for IPv6 (RFC 4443 §2.4(c)).
inline constexpr uint16_t max4 = 576;
inline constexpr uint16_t max6 = 1280;
inline constexpr uint8_t hop_limit = 64;  // net.ipv4.ip_default_ttl, net.ipv6.conf.*.hop_limit

namespace v4 {
constexpr uint8_t dest_unreach = 3, time_exceeded = 11, param_problem = 12;
constexpr uint8_t code_frag_needed = 4;  // dest_unreach: fragmentation needed and DF set
constexpr uint8_t code_ttl = 0;          // time_exceeded: TTL exceeded in transit
}  // namespace v4
namespace v6 {
constexpr uint8_t dest_unreach = 1, packet_too_big = 2, time_exceeded = 3, param_problem = 4;
constexpr uint8_t code_hop_limit = 0;    // time_exceeded: hop limit exceeded in transit
constexpr uint8_t code_header = 0;       // param_problem: erroneous header field
constexpr uint8_t code_sr_upper = 4;     // param_problem: SR upper-layer header error (RFC 8986 §4.1.1)
}  // namespace v6

// How many bytes of an offending packet of `len` bytes an error quotes.
inline uint16_t quote4(uint32_t len) { return static_cast<uint16_t>(std::min<uint32_t>(len, max4 - err4_hdr)); }
inline uint16_t quote6(uint32_t len) { return static_cast<uint16_t>(std::min<uint32_t>(len, max6 - err6_hdr)); }

namespace detail {
inline void put16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}
inline void put32(uint8_t* p, uint32_t v) {
    put16(p, static_cast<uint16_t>(v >> 16));
    put16(p + 2, static_cast<uint16_t>(v));
}
// rte_raw_cksum sums 16-bit words in host order: the complement of the folded sum, stored as
// it is in memory, is the checksum in network order (as rte_ipv4_cksum stores it).
inline void put_cksum(uint8_t* p, uint32_t sum) {
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    const uint16_t c = static_cast<uint16_t>(~sum);
    std::memcpy(p, &c, 2);
}
}  // namespace detail

// Writes the IPv4 header and the ICMP header at `p`, in front of the `quote` bytes of the
// offending IPv4 packet already at p + 28. The error goes to the offending packet's source;
// TOS as Linux (icmp_send: the offending TOS bits with precedence "internetwork control"),
// DF clear, TTL 64. `rest`: the ICMP header's second word (next-hop MTU in its low 16 bits for
// fragmentation needed, the pointer in its top byte for a parameter problem, else 0).
inline void build4(uint8_t* p, uint16_t quote, const uint8_t src[4], uint8_t type, uint8_t code, uint32_t rest,
                   uint16_t id) {
    using namespace detail;
    const uint8_t* orig = p + err4_hdr;
    p[0] = 0x45;
    p[1] = static_cast<uint8_t>((orig[1] & 0x1e) | 0xc0);
    put16(p + 2, static_cast<uint16_t>(err4_hdr + quote));
    put16(p + 4, id);
    put16(p + 6, 0);
    p[8] = hop_limit;
    p[9] = 1;  // ICMP
    put16(p + 10, 0);
    std::memcpy(p + 12, src, 4);
    std::memcpy(p + 16, orig + 12, 4);
    put_cksum(p + 10, rte_raw_cksum(p, 20));
    uint8_t* icmp = p + 20;
    icmp[0] = type;
    icmp[1] = code;
    put16(icmp + 2, 0);
    put32(icmp + 4, rest);
    put_cksum(icmp + 2, rte_raw_cksum(icmp, 8u + quote));
}

// The same for IPv6: the IPv6 header and the ICMPv6 header at `p`, the quote at p + 48; to
// the offending packet's source, hop limit 64, traffic class 0. `flow_label`: Linux picks one
// per flow (auto_flowlabels); the caller passes its own flow hash's label.
inline void build6(uint8_t* p, uint16_t quote, const uint8_t src[16], uint8_t type, uint8_t code, uint32_t rest,
                   uint32_t flow_label) {
    using namespace detail;
    const uint8_t* orig = p + err6_hdr;
    put32(p, 6u << 28 | (flow_label & 0xfffff));
    const uint16_t plen = static_cast<uint16_t>(8 + quote);
    put16(p + 4, plen);
    p[6] = 58;  // ICMPv6
    p[7] = hop_limit;
    std::memcpy(p + 8, src, 16);
    std::memcpy(p + 24, orig + 8, 16);
    uint8_t* icmp = p + 40;
    icmp[0] = type;
    icmp[1] = code;
    put16(icmp + 2, 0);
    put32(icmp + 4, rest);
    // RFC 4443 §2.3: over the pseudo-header (RFC 8200 §8.1) and the whole ICMPv6 message.
    uint32_t sum = rte_raw_cksum(p + 8, 32);  // source and destination
    sum += rte_cpu_to_be_16(plen);            // upper-layer length and next header, as words in
    sum += rte_cpu_to_be_16(58);              // memory (host order, like rte_raw_cksum's)
    sum += rte_raw_cksum(icmp, plen);
    put_cksum(icmp + 2, sum);
}

// Whether an IPv4 packet may be answered with an error (RFC 1812 §4.3.2.7, as Linux's
// icmp_send): not an ICMP error itself, not a non-initial fragment, from a unicast source
// (not 0/8, 127/8, 224/4 and above). `ip` holds `len` readable bytes, at least the header.
inline bool may_answer4(const uint8_t* ip, uint32_t len) {
    const uint8_t s = ip[12];
    if (s == 0 || s == 127 || s >= 224)
        return false;
    if (((ip[6] & 0x1f) << 8 | ip[7]) != 0)
        return false;  // a fragment after the first
    const uint32_t ihl = (ip[0] & 0xfu) * 4u;
    if (ip[9] == 1) {
        if (len < ihl + 1)
            return false;
        const uint8_t t = ip[ihl];
        // Errors (Linux's icmp_pointers[].error): dest unreachable, source quench, redirect,
        // time exceeded, parameter problem.
        if (t == 3 || t == 4 || t == 5 || t == 11 || t == 12)
            return false;
    }
    return true;
}

// Whether an IPv6 packet may be answered (RFC 4443 §2.4(e), as Linux's icmpv6_send): not
// from the unspecified, a loopback or a multicast source; not to a multicast destination
// (packet too big aside, §2.4(e.3)); not an ICMPv6 error (type < 128) or a packet whose upper
// layer cannot be found in `len` bytes (Linux: is_ineligible).
inline bool may_answer6(const uint8_t* ip, uint32_t len, bool too_big) {
    static constexpr uint8_t zero[15]{};
    const uint8_t* s = ip + 8;
    if (s[0] == 0xff || (std::memcmp(s, zero, 15) == 0 && (s[15] == 0 || s[15] == 1)))
        return false;
    if (ip[24] == 0xff && !too_big)
        return false;
    // The upper layer: walk the generic extension headers (HBH, routing, destination options,
    // fragment) within the quoted bytes.
    uint8_t nh = ip[6];
    uint32_t off = 40;
    for (int i = 0; i < 8 && (nh == 0 || nh == 43 || nh == 60 || nh == 44); ++i) {
        if (off + 8 > len)
            return true;  // Linux: an unparsable chain is answered (ipv6_skip_exthdr fails: eligible)
        if (nh == 44 && ((ip[off + 2] << 8 | ip[off + 3]) & 0xfff8) != 0)
            return true;  // not the first fragment: no upper-layer header to look at
        const uint32_t hl = nh == 44 ? 8u : (ip[off + 1] + 1u) * 8u;
        nh = ip[off];
        off += hl;
    }
    if (nh == 58)
        return off < len && ip[off] >= 128;  // an informational message (echo...) only
    return true;
}

}  // namespace fwd::icmp
