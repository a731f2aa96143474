// Builds the management API's answers from the daemon's state. Pure reads of const state:
// call them on the thread that owns the RIB (the control thread, where the server's handler runs).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "rib/rib.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/session.hh"
#include "mgmt/proto.hh"
#include "vrf/encap_source.hh"
#include "vrf/registry.hh"
#include "vrf/sid_binding.hh"
#include "vrf/tunsrc_poller.hh"

namespace mgmt {

// A local SID's dataplane counters (packets, bytes) by its route key; nullopt when the
// dataplane does not count it (not compiled).
using sid_counter_reader = std::function<std::optional<std::pair<uint64_t, uint64_t>>(const rib::route_key&)>;

// `show fpm`: listener state, ingest counters (every reason, zero or not), RIB counters.
pb::FpmStatus render_fpm(const fpm::session_info& session, const fpm::ingest_stats& stats,
                         const rib::store& rib,
                         std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// `show routes [table N]`: routes with their resolved paths, one RouteTable per table.
pb::RouteTables render_routes(const rib::store& rib, std::optional<rib::table_id> table = std::nullopt);

// `show ip route` and the like: which routes. A table asked for is listed even when empty; with
// a prefix or an address, only the tables that have a match are.
struct route_filter {
    std::optional<rib::table_id> table;
    std::optional<rib::family> family;
    std::optional<rib::prefix> prefix;   // exactly this prefix
    std::optional<rib::ip_addr> address; // the longest prefix covering it, per table
};
pb::RouteTables render_routes(const rib::store& rib, const route_filter& f);

// `show segment-routing srv6 locator`: the SIDs grouped by the locator their structure names.
pb::LocatorTable render_locators(const pb::SidTable& sids);

// `show nexthops`: nexthop objects and groups, PIC contexts and SID lists.
pb::NexthopTable render_nexthops(const rib::store& rib);

// `show sids`: the local SIDs, each bound through the registry (vrf::bind_sid): active, with the
// VRF an End.T/End.DT* SID uses, or refused with the reason (the behavior contract's, then the
// VRF binding's). `tracker` adds the refusal totals, `counters` each SID's packets and bytes.
pb::SidTable render_sids(const rib::store& rib, const vrf::registry& reg, const vrf::sid_tracker* tracker = nullptr,
                         const sid_counter_reader& counters = {});

// `show vrfs`: every VRF of the registry by id; `kernel` describes the kernel VRF monitor.
pb::VrfTable render_vrfs(const vrf::registry& reg, const std::string& kernel);

// `show encap-source`: the global H.Encaps source with its origin, the configured value, and the
// poller's last reading of the kernel tunsrc (absent poller: not read).
pb::EncapSource render_encap_source(const vrf::encap_source_resolver& res, std::optional<rib::ip6_addr> configured,
                                    const vrf::tunsrc_poller* poller = nullptr);

// Model -> message pieces, shared by the renderers above.
void render_route(const rib::store& rib, const rib::route& r, pb::Route& out);
void render_nexthop(const rib::nexthop& nh, pb::Nexthop& out);
void render_seg6(const rib::seg6_encap& e, pb::Seg6Encap& out);
void render_seg6local(const rib::seg6local& l, pb::Seg6Local& out);

}  // namespace mgmt
