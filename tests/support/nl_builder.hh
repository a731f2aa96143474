// Netlink and FPM messages for tests, byte by byte: integers in host order as zebra writes them
// on x86, addresses and the FPM length in network order (linux/netlink.h, linux/rtnetlink.h,
// FRR's fpm.h). Deliberately dumb, so that a test reads like the wire layout it builds.
#pragma once

#include <cstdint>

#include "tests/support/bytes.hh"

namespace test_support::nl {

inline bytes u8(uint8_t v) { return {v}; }
inline bytes u16(uint16_t v) { return host(v); }
inline bytes u32(uint32_t v) { return host(v); }

// One attribute: {u16 len (header + payload, no padding); u16 type}, payload, padding to 4
// (the kernel's nla_put).
inline bytes attr(uint16_t type, const bytes& payload) {
    bytes out = cat({u16(static_cast<uint16_t>(4 + payload.size())), u16(type), payload});
    out.resize((out.size() + 3) & ~size_t{3}, 0);
    return out;
}
// NLA_F_NESTED
inline bytes nest(uint16_t type, const bytes& children) { return attr(static_cast<uint16_t>(type | 0x8000), children); }

// struct rtmsg
inline bytes rtmsg(uint8_t family, uint8_t dst_len, uint8_t table, uint8_t protocol, uint8_t type,
                   uint32_t flags = 0, uint8_t src_len = 0) {
    return cat({{family, dst_len, src_len, 0, table, protocol, 0, type}, u32(flags)});
}
// struct nhmsg
inline bytes nhmsg(uint8_t family, uint8_t protocol, uint32_t flags = 0) {
    return cat({{family, 0, protocol, 0}, u32(flags)});
}
// struct rtnexthop + nested attributes
inline bytes rtnh(uint8_t flags, uint8_t hops, int32_t ifindex, const bytes& attrs = {}) {
    return cat({u16(static_cast<uint16_t>(8 + attrs.size())), {flags, hops}, host(ifindex), attrs});
}
// struct nexthop_grp
inline bytes grp(uint32_t id, uint8_t weight, uint8_t weight_high = 0) {
    return cat({u32(id), {weight, weight_high}, u16(0)});
}

// nlmsghdr + body, padded to 4; flags/seq/pid as zebra sends them.
inline bytes nlmsg(uint16_t type, const bytes& body, uint16_t flags = 0x401, uint32_t pid = 0x1234) {
    bytes out = cat({u32(static_cast<uint32_t>(16 + body.size())), u16(type), u16(flags), u32(0), u32(pid), body});
    out.resize((out.size() + 3) & ~size_t{3}, 0);
    return out;
}

// FPM header {version 1, type (1 netlink, 2 protobuf), u16 length in network order, header
// included} + payload.
inline bytes fpm_frame(const bytes& payload, uint8_t type = 1) {
    const size_t n = 4 + payload.size();
    return cat({{1, type, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n & 0xff)}, payload});
}

}  // namespace test_support::nl
