// srv6d's own local SIDs, `[sids] sid = PREFIX BEHAVIOR [ARGS] [flavors LIST]` lines. FRR 8.4.4
// cannot send End.DT46, End.DX6 or any flavor over FPM, so an operator states such SIDs here,
// as `ip -6 route add SID encap seg6local action ...` would on Linux:
//   fc00:1::d46 End.DT46 vrf red
//   fc00:1::d6/128 End.DT6 table 20
//   fc00:1::e End flavors psp,usd
//   fc00:0:1::/48 End flavors next-csid lblen 32 nflen 16
//   fc00:1::b6 End.B6.Encaps segs fc00:0:3::e,fc00:0:2::d6 mode encap.red
// They are bound to their VRF like zebra's (bind_sid), at run time: a VRF named here need not
// exist when the config is read.
#pragma once

#include <string_view>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "vrf/config_parse.hh"

namespace vrf {

struct sid_spec {
    rib::prefix sid;      // IPv6; a bare address is a /128
    rib::seg6local local;
    bool operator==(const sid_spec&) const = default;
};

// Arguments, each at most once, any order after the behavior (names of iproute2's seg6local):
//   vrf NAME | table ID   End.T, End.DT4, End.DT6, End.DT46: the VRF by name, or its table
//   nh4 A                 End.DX4
//   nh6 A                 End.X, End.DX6
//   oif IFINDEX           End.X, End.DX4, End.DX6: the egress (else the one nh4/nh6 routes through)
//   segs A,B,...          End.B6.Encaps: its policy, the SIDs in visiting order (at most 16)
//   mode encap|encap.red  End.B6.Encaps: H.Encaps (default) or H.Encaps.Red (End.B6.Encaps.Red)
//   src A                 End.B6.Encaps: the policy's outer source (default: [encap] source)
//   flavors LIST          psp,usp,usd,next-csid, those the behavior takes (rib/behaviors.hh:
//                         End, End.X, End.T all four; End.DX*/DT* next-csid alone); next-csid
//                         takes `lblen N nflen N` (default: the behavior's, 32 and 16)
// The behaviors are the contract's rows with a datapath handler; each keyword is a parameter of
// rib/sid_params.hh (or a detail of one), checked by rib::check_params() like the FPM decoders'.
// Errors name the line and the problem, in the decoders' words for the same fault:
// "sid 'fc00::1 End.DT4': End.DT4 needs a VRF (table or vrf)".
parsed<sid_spec> parse_sid(std::string_view line);

// The route the RIB holds for a config SID: table 254 (where FRR puts its SIDs), protocol
// rib::proto::config, one inline path carrying the behavior.
rib::route to_route(const sid_spec& s);

}  // namespace vrf
