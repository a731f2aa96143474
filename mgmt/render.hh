// Builds the management API's answers from the daemon's state. Pure reads of const state:
// call them on the thread that owns the RIB (the control thread, where the server's handler runs).
#pragma once

#include <chrono>
#include <optional>

#include "fib/model.hh"
#include "fib/rib.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/session.hh"
#include "mgmt/proto.hh"

namespace mgmt {

// `show fpm`: listener state, ingest counters (every reason, zero or not), RIB counters.
pb::FpmStatus render_fpm(const fpm::session_info& session, const fpm::ingest_stats& stats,
                         const fib::rib& rib,
                         std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// `show routes [table N]`: routes with their resolved paths, one RouteTable per table.
pb::RouteTables render_routes(const fib::rib& rib, std::optional<fib::table_id> table = std::nullopt);

// `show nexthops`: nexthop objects and groups, PIC contexts and SID lists.
pb::NexthopTable render_nexthops(const fib::rib& rib);

// `show sids`: the local SIDs.
pb::SidTable render_sids(const fib::rib& rib);

// Model -> message pieces, shared by the renderers above.
void render_nexthop(const fib::nexthop& nh, pb::Nexthop& out);
void render_seg6(const fib::seg6_encap& e, pb::Seg6Encap& out);
void render_seg6local(const fib::seg6local& l, pb::Seg6Local& out);

}  // namespace mgmt
