// Flow hash of an inner packet, for the outer flow label (RFC 6437, RFC 6438) and ECMP.
// A flow is the 5-tuple {src, dst, protocol, src port, dst port} when the ports are in the packet
// (TCP, UDP, SCTP, UDP-Lite; not IPv4 fragments), else the 3-tuple {src, dst, protocol}. IPv6 also
// mixes in the inner flow label, which the sender keeps constant per flow (RFC 6437 §3).
// IPv6 extension headers are not walked: such packets hash as 3-tuple + flow label.
// CRC32C (the SSE4.2 instruction, or rte_hash_crc without it): a few cycles, and the same value on every
// lcore and every run, so tests can pin it. Values depend on host byte order (x86 only).
#pragma once

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#include <cstdint>
#include <cstring>

namespace fwd {

namespace flow_detail {

inline constexpr uint32_t seed = 0x5256'3664;  // "RV6d": any fixed value

inline uint32_t load32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline bool has_ports(uint8_t proto) { return proto == 6 || proto == 17 || proto == 132 || proto == 136; }

// CRC32C steps, two ways with the same values:
// - crc_insn: the SSE4.2 instruction itself where the build targets it (it does: DPDK's x86
//   baseline includes SSE4.2, cmake/deps.cmake). What srv6d uses.
// - crc_dpdk: DPDK's rte_hash_crc_8byte / _4byte, which choose the algorithm at run time (a
//   load and a branch per step) in an asm statement that kept the running value in memory
//   inside the worker's burst loop. What the dataplane bench's floor uses (DPDK's primitive).
struct crc_dpdk {
    static uint32_t c8(uint64_t v, uint32_t h) { return rte_hash_crc_8byte(v, h); }
    static uint32_t c4(uint32_t v, uint32_t h) { return rte_hash_crc_4byte(v, h); }
};
#ifdef __SSE4_2__
struct crc_insn {
    static uint32_t c8(uint64_t v, uint32_t h) { return static_cast<uint32_t>(_mm_crc32_u64(h, v)); }
    static uint32_t c4(uint32_t v, uint32_t h) { return _mm_crc32_u32(h, v); }
};
#else
using crc_insn = crc_dpdk;
#endif

}  // namespace flow_detail

// p: an IPv4 header with `len` readable bytes from p; len >= 20 (the caller validated the header).
// Always inlined: the worker's burst loop is past GCC's inlining limits, which kept a call (and
// its register spills) per encapsulated packet.
template <class C = flow_detail::crc_insn>
[[gnu::always_inline]] inline uint32_t flow_hash_ip4(const uint8_t* p, uint32_t len) {
    using namespace flow_detail;
    const uint32_t ihl = (p[0] & 0x0fu) * 4u;
    const uint8_t proto = p[9];
    uint16_t frag;  // flags and fragment offset: MF or an offset means a fragment, no ports
    std::memcpy(&frag, p + 6, 2);
    const bool fragment = (frag & rte_cpu_to_be_16(0x3fff)) != 0;
    uint32_t h = C::c8(load64(p + 12), seed);  // source + destination
    // (An IHL under 5 is not checked: callers validated the header, and the ports read stay
    // within `len` whatever it says.)
    if (!fragment && has_ports(proto) && len >= ihl + 4)
        h = C::c4(load32(p + ihl), h);
    return C::c4(proto, h);
}

// p: an IPv6 header with `len` readable bytes from p; len >= 40. Always inlined, as above.
template <class C = flow_detail::crc_insn>
[[gnu::always_inline]] inline uint32_t flow_hash_ip6(const uint8_t* p, uint32_t len) {
    using namespace flow_detail;
    const uint8_t nh = p[6];
    uint32_t h = C::c8(load64(p + 8), seed);
    h = C::c8(load64(p + 16), h);
    h = C::c8(load64(p + 24), h);
    h = C::c8(load64(p + 32), h);
    const uint32_t label = (static_cast<uint32_t>(p[1] & 0x0fu) << 16) | (static_cast<uint32_t>(p[2]) << 8) | p[3];
    if (has_ports(nh) && len >= 44)
        h = C::c4(load32(p + 40), h);
    return C::c4(label << 8 | nh, h);
}

// An inner IP header of either version (the version nibble decides); 0 if it is neither.
template <class C = flow_detail::crc_insn>
inline uint32_t flow_hash_ip(const uint8_t* p, uint32_t len) {
    if (len >= 20 && p[0] >> 4 == 4)
        return flow_hash_ip4<C>(p, len);
    if (len >= 40 && p[0] >> 4 == 6)
        return flow_hash_ip6<C>(p, len);
    return 0;
}

// An Ethernet frame that carries no IP we can parse: destination, source and ethertype.
template <class C = flow_detail::crc_insn>
inline uint32_t flow_hash_eth(const uint8_t* frame) {
    using namespace flow_detail;
    uint32_t h = C::c8(load64(frame), seed);  // dst MAC + 2 bytes of src MAC
    return C::c8(load64(frame + 6), h);  // src MAC + ethertype
}

// 20-bit, non-zero flow label from a flow hash (RFC 6437 §2: 0 means "no label").
inline uint32_t flow_label(uint32_t hash) {
    const uint32_t l = (hash ^ (hash >> 20)) & 0xfffffu;
    return l != 0 ? l : 1;
}

}  // namespace fwd
