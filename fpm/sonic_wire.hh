// SONiC's FPM numbering (dplane_fpm_sonic, fpm-protocol.md §3): message types, attribute ids
// and action codes. SONiC attribute ids overlap RTA_* ids, so dispatch on nlmsg_type first.
#pragma once

#include <cstdint>
#include <optional>

#include "rib/model.hh"

namespace fpm::sonic {

// nlmsg_type values of SONiC's own messages.
constexpr uint16_t rtm_newsrv6localsid = 1000;
constexpr uint16_t rtm_delsrv6localsid = 1001;
constexpr uint16_t rtm_newpiccontext = 2000;  // body: struct nhmsg, like RTM_NEWNEXTHOP
constexpr uint16_t rtm_delpiccontext = 2001;
constexpr uint16_t rtm_newsrv6vpnroute = 3000;  // body: struct rtmsg, NHG mode steer routes
constexpr uint16_t rtm_delsrv6vpnroute = 3001;
constexpr uint16_t rtm_newsidlist = 4000;
constexpr uint16_t rtm_delsidlist = 4001;

constexpr bool is_sonic_type(uint16_t t) {
    switch (t) {
    case rtm_newsrv6localsid:
    case rtm_delsrv6localsid:
    case rtm_newpiccontext:
    case rtm_delpiccontext:
    case rtm_newsrv6vpnroute:
    case rtm_delsrv6vpnroute:
    case rtm_newsidlist:
    case rtm_delsidlist:
        return true;
    default:
        return false;
    }
}

// Attributes of 1000/1001 (custom_rtattr_srv6_localsid).
namespace localsid_attr {
constexpr uint16_t sid_value = 1;  // 16 bytes; newer encoders add an equal RTA_DST (also id 1)
constexpr uint16_t format = 2;     // nest of format_attr
constexpr uint16_t action = 3;     // u32, sonic::action numbering
constexpr uint16_t vrfname = 4;    // NUL-terminated VRF name (End.T, DT*, uDT*)
constexpr uint16_t nh6 = 5;
constexpr uint16_t nh4 = 6;
constexpr uint16_t sidlist = 10;  // B6_ENCAPS(_RED): the policy's SID list, by name (srv6d's reading, docs/fpm-dialects.md)
constexpr uint16_t ifname = 12;  // NUL-terminated interface name (End.X, uA)
}  // namespace localsid_attr

namespace format_attr {
constexpr uint16_t block_len = 1;  // u8 each
constexpr uint16_t node_len = 2;
constexpr uint16_t func_len = 3;
constexpr uint16_t arg_len = 4;
}  // namespace format_attr

// RTA_ENCAP_TYPE value of SONiC's SRv6 nest, and that nest's attributes (custom_rtattr_encap_srv6).
constexpr uint16_t encap_srv6 = 101;
namespace encap_attr {
constexpr uint16_t vpn_sid = 1;         // 16 bytes: the first SID only
constexpr uint16_t encap_src_addr = 2;  // 16 bytes
constexpr uint16_t pic_id = 3;          // u32 (3000)
constexpr uint16_t nh_id = 4;           // u32 (3000)
constexpr uint16_t sidlist_name = 5;    // 4000/4001
constexpr uint16_t sidlist_len = 6;
constexpr uint16_t sidlist = 7;
}  // namespace encap_attr

// FPM_SRV6_LOCALSID_ACTION values: SONiC's own numbering, not the kernel's.
enum class action : uint32_t {
    unspec = 0,
    end = 1,
    end_x = 2,
    end_t = 3,
    end_dx2 = 4,
    end_dx6 = 5,
    end_dx4 = 6,
    end_dt6 = 7,
    end_dt4 = 8,
    end_dt46 = 9,
    b6_encaps = 10,
    b6_encaps_red = 11,
    b6_insert = 12,
    b6_insert_red = 13,
    un = 14,
    ua = 15,
    udx2 = 16,
    udx6 = 17,
    udx4 = 18,
    udt6 = 19,
    udt4 = 20,
    udt46 = 21,
};

struct endpoint {
    rib::behavior behavior;
    uint32_t flavors = 0;  // rib::flavor bits
};

// The kernel behavior + flavors a SONiC action code stands for; nullopt for unknown codes.
// The ".Red" and insert variants have no seg6local equivalent of their own: B6_ENCAPS_RED
// becomes end_b6_encaps and B6_INSERT(_RED) end_b6 (docs/fpm-dialects.md says why that is safe).
constexpr std::optional<endpoint> to_endpoint(uint32_t code) {
    using rib::behavior;
    constexpr uint32_t csid = rib::flavor::next_csid;
    switch (static_cast<action>(code)) {
    case action::end: return endpoint{behavior::end};
    case action::end_x: return endpoint{behavior::end_x};
    case action::end_t: return endpoint{behavior::end_t};
    case action::end_dx2: return endpoint{behavior::end_dx2};
    case action::end_dx6: return endpoint{behavior::end_dx6};
    case action::end_dx4: return endpoint{behavior::end_dx4};
    case action::end_dt6: return endpoint{behavior::end_dt6};
    case action::end_dt4: return endpoint{behavior::end_dt4};
    case action::end_dt46: return endpoint{behavior::end_dt46};
    case action::b6_encaps: return endpoint{behavior::end_b6_encaps};
    case action::b6_encaps_red: return endpoint{behavior::end_b6_encaps};
    case action::b6_insert: return endpoint{behavior::end_b6};
    case action::b6_insert_red: return endpoint{behavior::end_b6};
    case action::un: return endpoint{behavior::end, csid};
    case action::ua: return endpoint{behavior::end_x, csid};
    case action::udx2: return endpoint{behavior::end_dx2, csid};
    case action::udx6: return endpoint{behavior::end_dx6, csid};
    case action::udx4: return endpoint{behavior::end_dx4, csid};
    case action::udt6: return endpoint{behavior::end_dt6, csid};
    case action::udt4: return endpoint{behavior::end_dt4, csid};
    case action::udt46: return endpoint{behavior::end_dt46, csid};
    case action::unspec: break;
    }
    return std::nullopt;
}

}  // namespace fpm::sonic
