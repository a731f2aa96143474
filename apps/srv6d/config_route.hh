// srv6d's own headend routes, `[routes] route = PREFIX [table ID] [mode MODE] segs A,B,... [src A]`
// lines: what `ip route add PREFIX [table ID] encap seg6 mode MODE segs A,B,...` does on Linux,
// for the headends zebra cannot hand over (FRR relays `mode inline` as encap, and has no
// H.Insert of its own):
//   route = 2001:db8:b::/64 mode inline segs fc00:0:2::e,fc00:0:3::e
//   route = 2001:db8:c::/64 table 10 mode inline.red segs fc00:0:2::e,fc00:0:3::e
//   route = 10.9.0.0/16 table 20 mode encap.red segs fc00:0:3::d4 src fc00:0:1::7
// Each becomes a config route in the RIB (rib::store::add_config_route, the [sids] lines' path):
// pinned, never swept, and shadowed by zebra's route at the same key (zebra wins).
#pragma once

#include <string_view>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "vrf/config_parse.hh"

namespace srv6d {

struct route_spec {
    rib::table_id table = rib::main_table;
    rib::prefix dst;
    rib::seg6_encap encap;  // mode, segments (visiting order), source (encap modes only)
    bool operator==(const route_spec&) const = default;
};

// Arguments after the prefix, each at most once, any order (iproute2's names):
//   table ID      the kernel table, so the VRF bound to it (default 254, the default VRF)
//   mode MODE     inline (H.Insert), inline.red (H.Insert.Red), encap (H.Encaps, the
//                 default), encap.red (H.Encaps.Red)
//   segs A,B,...  the SID list in visiting order: 1 to 16 SIDs (15 with inline: the
//                 destination takes an entry)
//   src A         encap modes: the outer source, over FRR's and [encap] source
// inline modes take IPv6 prefixes only and no src (the packet keeps its own), as the kernel.
// Errors name the line: "route '10.0.0.0/8 mode inline segs fc00::1': mode inline takes an
// IPv6 prefix (H.Insert puts an SRH into an IPv6 packet)".
vrf::parsed<route_spec> parse_route(std::string_view line);

// "2001:db8:b::/64 mode inline segs fc00:0:2::e,fc00:0:3::e": the line parse_route reads back.
std::string route_text(const route_spec& r);

// The RIB's route: at (table, prefix), protocol rib::proto::config, one path carrying the
// encap (no gateway: the worker routes the packet to its first SID in the default VRF).
rib::route to_route(const route_spec& r);

}  // namespace srv6d
