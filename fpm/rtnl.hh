// rtnetlink numbers and fixed headers (linux/rtnetlink.h, linux/nexthop.h) as FRR puts them on
// the FPM wire, plus the small readers the route and nexthop decoders share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "rib/addr.hh"
#include "fpm/nl_attr.hh"

namespace fpm::rtnl {

// nlmsg_type
constexpr uint16_t rtm_newroute = 24;
constexpr uint16_t rtm_delroute = 25;
constexpr uint16_t rtm_newnexthop = 104;
constexpr uint16_t rtm_delnexthop = 105;

// Address families (rtm_family, nh_family, rtvia_family).
constexpr uint8_t af_unspec = 0;
constexpr uint8_t af_inet = 2;
constexpr uint8_t af_inet6 = 10;
constexpr uint8_t af_mpls = 28;

// rtm_type
constexpr uint8_t rtn_unicast = 1;
constexpr uint8_t rtn_local = 2;
constexpr uint8_t rtn_blackhole = 6;
constexpr uint8_t rtn_unreachable = 7;
constexpr uint8_t rtn_prohibit = 8;

// rtm_flags / rtnh_flags / nh_flags
constexpr uint32_t rtnh_f_onlink = 4;

// Route attributes.
namespace rta {
constexpr uint16_t dst = 1;
constexpr uint16_t src = 2;
constexpr uint16_t oif = 4;
constexpr uint16_t gateway = 5;
constexpr uint16_t priority = 6;
constexpr uint16_t prefsrc = 7;
constexpr uint16_t metrics = 8;
constexpr uint16_t multipath = 9;
constexpr uint16_t table = 15;
constexpr uint16_t via = 18;
constexpr uint16_t encap_type = 21;
constexpr uint16_t encap = 22;
constexpr uint16_t nh_id = 30;
}  // namespace rta

// RTA_METRICS members.
constexpr uint16_t rtax_mtu = 2;

// Nexthop object attributes.
namespace nha {
constexpr uint16_t id = 1;
constexpr uint16_t group = 2;
constexpr uint16_t group_type = 3;
constexpr uint16_t blackhole = 4;
constexpr uint16_t oif = 5;
constexpr uint16_t gateway = 6;
constexpr uint16_t encap_type = 7;
constexpr uint16_t encap = 8;
constexpr uint16_t res_group = 12;
}  // namespace nha

constexpr uint16_t nexthop_grp_type_resilient = 1;

// struct rtmsg
struct rtmsg {
    uint8_t family = 0;
    uint8_t dst_len = 0;
    uint8_t src_len = 0;
    uint8_t tos = 0;
    uint8_t table = 0;
    uint8_t protocol = 0;
    uint8_t scope = 0;
    uint8_t type = 0;
    uint32_t flags = 0;
};
constexpr size_t rtmsg_size = 12;

inline std::optional<rtmsg> read_rtmsg(nl::bytes body) {
    if (body.size() < rtmsg_size)
        return std::nullopt;
    rtmsg r;
    r.family = body[0];
    r.dst_len = body[1];
    r.src_len = body[2];
    r.tos = body[3];
    r.table = body[4];
    r.protocol = body[5];
    r.scope = body[6];
    r.type = body[7];
    r.flags = *nl::get<uint32_t>(body.subspan(8));
    return r;
}

// struct nhmsg
struct nhmsg {
    uint8_t family = 0;
    uint8_t scope = 0;
    uint8_t protocol = 0;
    uint32_t flags = 0;
};
constexpr size_t nhmsg_size = 8;

inline std::optional<nhmsg> read_nhmsg(nl::bytes body) {
    if (body.size() < nhmsg_size)
        return std::nullopt;
    nhmsg n;
    n.family = body[0];
    n.scope = body[1];
    n.protocol = body[2];
    n.flags = *nl::get<uint32_t>(body.subspan(4));
    return n;
}

// struct rtnexthop: the fixed part of each RTA_MULTIPATH entry.
constexpr size_t rtnexthop_size = 8;
// struct nexthop_grp: one NHA_GROUP entry.
constexpr size_t nexthop_grp_size = 8;

// Bytes of an address of `af` (0 for anything but IPv4/IPv6).
constexpr size_t addr_size(uint8_t af) { return af == af_inet ? 4 : af == af_inet6 ? 16 : 0; }

// An address whose family is given by its length (4 or 16 bytes); nullopt for any other size.
inline std::optional<rib::ip_addr> addr_from_len(nl::bytes b) {
    rib::ip_addr a;
    if (b.size() == 4) {
        rib::ip4_addr v4;
        for (size_t i = 0; i < 4; ++i)
            v4.bytes[i] = b[i];
        a = v4;
    } else if (b.size() == 16) {
        rib::ip6_addr v6;
        for (size_t i = 0; i < 16; ++i)
            v6.bytes[i] = b[i];
        a = v6;
    } else {
        return std::nullopt;
    }
    return a;
}

}  // namespace fpm::rtnl
