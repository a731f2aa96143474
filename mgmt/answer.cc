#include "mgmt/answer.hh"

#include "mgmt/render.hh"

namespace mgmt {

pb::Response answer(const pb::Request& req, const fib::rib& rib, const fpm::ingest_stats& stats,
                    const fpm::session_info& session) {
    pb::Response resp;
    switch (req.cmd_case()) {
    case pb::Request::kShowFpm:
        *resp.mutable_fpm() = render_fpm(session, stats, rib);
        break;
    case pb::Request::kShowRoutes:
        *resp.mutable_routes() = render_routes(rib, req.show_routes().has_table()
                                                        ? std::optional<fib::table_id>(req.show_routes().table())
                                                        : std::nullopt);
        break;
    case pb::Request::kShowNexthops:
        *resp.mutable_nexthops() = render_nexthops(rib);
        break;
    case pb::Request::kShowSids:
        *resp.mutable_sids() = render_sids(rib);
        break;
    case pb::Request::CMD_NOT_SET:
        resp.set_error("unknown or empty request (is srv6ctl newer than srv6d?)");
        break;
    }
    return resp;
}

}  // namespace mgmt
