// `show routes` over several turns of the control loop, so that a table of a million routes
// never holds the control thread (and the FPM reads behind it) for more than a bounded step.
// At the request, the keys of the routes asked for are copied (the one step that grows with
// the RIB: ~40 bytes a route, no rendering); then each call sorts one run of them, and once all
// are sorted, merges the runs and renders the next few hundred routes as they are in the RIB
// then. A route deleted meanwhile is left out, one added meanwhile is not shown: the listing is
// the table as of the request, each route as of the part it is in (docs/operating.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "rib/rib.hh"
#include "mgmt/proto.hh"
#include "mgmt/render.hh"

namespace mgmt {

struct stream_limits {
    size_t routes_per_part = 512;  // routes rendered in one turn (one frame, ~50 KiB)
    size_t sort_run = 16384;       // keys sorted in one turn
};

class route_stream {
public:
    // `f`: its table and family select; prefix and address are not streamed (render_routes).
    // `decorate` completes each part (VRF names, interface names) before it goes.
    route_stream(const rib::store& rib, const route_filter& f, std::function<void(pb::RouteTables&)> decorate,
                 stream_limits l = {});
    ~route_stream();
    route_stream(const route_stream&) = delete;
    route_stream& operator=(const route_stream&) = delete;

    // Fills the next part (part.routes()); false when it is the last.
    bool next(pb::Response& part);

    size_t keys() const;  // routes taken at the request

private:
    struct state;
    std::unique_ptr<state> _s;
};

}  // namespace mgmt
