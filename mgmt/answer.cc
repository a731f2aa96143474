#include "mgmt/answer.hh"

#include <fmt/format.h>

#include "mgmt/interface_names.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"
#include "mgmt/route_stream.hh"

namespace mgmt {
namespace {

// The VRF of each table beside it, as vtysh's `show ip route vrf all` reads; interface names.
void decorate(pb::RouteTables& t, const daemon_view& d) {
    if (d.vrfs)
        for (auto& table : *t.mutable_tables())
            if (const auto b = d.vrfs->lookup_table(table.table()); b.active() && b.vrf && table.table() != rib::main_table)
                table.set_vrf(printable(b.vrf->name));
    name_interfaces(t, d.ifname);
}

// The filter `show routes` asks for; nullopt with the error set in `resp` when it is wrong.
std::optional<route_filter> routes_filter(const pb::ShowRoutes& req, const daemon_view& d, pb::Response& resp) {
    std::optional<rib::table_id> table;
    if (req.has_table())
        table = req.table();
    if (req.has_vrf()) {
        // A VRF is its table; one that is refused or in conflict still names the table it claims.
        const vrf::vrf_info* v = d.vrfs ? d.vrfs->find(req.vrf()) : nullptr;
        if (!v) {
            resp.set_error(fmt::format("vrf {} is not known (neither configured nor a kernel VRF device)",
                                       printable(req.vrf())));
            return std::nullopt;
        }
        if (table && *table != v->table) {
            resp.set_error(fmt::format("vrf {} is table {}, not table {}", printable(v->name), v->table, *table));
            return std::nullopt;
        }
        table = v->table;
    }
    route_filter f;
    f.table = table;
    if (req.has_family()) {
        if (req.family() != 4 && req.family() != 6) {
            resp.set_error(fmt::format("family {} is neither 4 nor 6", req.family()));
            return std::nullopt;
        }
        f.family = req.family() == 4 ? rib::family::ipv4 : rib::family::ipv6;
    }
    if (req.has_prefix()) {
        f.prefix = rib::parse_prefix(req.prefix());
        if (!f.prefix) {
            resp.set_error(fmt::format("'{}' is not a prefix", printable(req.prefix())));
            return std::nullopt;
        }
    }
    if (req.has_address()) {
        f.address = rib::parse_addr(req.address());
        if (!f.address) {
            resp.set_error(fmt::format("'{}' is not an address", printable(req.address())));
            return std::nullopt;
        }
    }
    return f;
}

// A whole table streams (mgmt/route_stream.hh); a prefix or an address is one small answer.
reply show_routes(const pb::ShowRoutes& req, const daemon_view& d, const stream_limits& lim) {
    pb::Response resp;
    const auto f = routes_filter(req, d, resp);
    if (!f)
        return resp;
    if (f->prefix || f->address) {
        *resp.mutable_routes() = render_routes(d.rib, *f);
        decorate(*resp.mutable_routes(), d);
        return resp;
    }
    auto s = std::make_shared<route_stream>(d.rib, *f, [d](pb::RouteTables& t) { decorate(t, d); }, lim);
    const bool more = s->next(resp);
    if (!more)
        return resp;
    return reply(std::move(resp), [s](pb::Response& part) { return s->next(part); });
}

pb::SidTable sids(const daemon_view& d) {
    const sid_counter_reader counters = d.sid_counters ? d.sid_counters() : sid_counter_reader{};
    if (d.vrfs)
        return render_sids(d.rib, *d.vrfs, d.sids, counters);
    const vrf::registry only_default;
    return render_sids(d.rib, only_default, d.sids, counters);
}

}  // namespace

reply respond(const pb::Request& req, const daemon_view& d, const stream_limits& lim) {
    if (req.cmd_case() == pb::Request::kShowRoutes)
        return show_routes(req.show_routes(), d, lim);
    pb::Response resp;
    switch (req.cmd_case()) {
    case pb::Request::kShowFpm:
        *resp.mutable_fpm() = render_fpm(d.session, d.stats, d.rib);
        break;
    case pb::Request::kShowRoutes:
        break;  // above
    case pb::Request::kShowNexthops:
        *resp.mutable_nexthops() = render_nexthops(d.rib);
        name_interfaces(*resp.mutable_nexthops(), d.ifname);
        break;
    case pb::Request::kShowSids:
        *resp.mutable_sids() = sids(d);
        name_interfaces(*resp.mutable_sids(), d.ifname);
        break;
    case pb::Request::kShowLocators:
        *resp.mutable_locators() = render_locators(sids(d));
        break;
    case pb::Request::kShowVersion:
        if (d.version)
            d.version(*resp.mutable_version());
        else
            resp.set_error("this srv6d cannot tell its version");
        break;
    case pb::Request::kShowRunningConfig:
        if (d.running_config)
            d.running_config(*resp.mutable_running_config());
        else
            resp.set_error("this srv6d has no configuration to show");
        break;
    case pb::Request::kShowVrfs:
        if (d.vrfs)
            *resp.mutable_vrfs() = render_vrfs(*d.vrfs, d.kernel_vrfs);
        else
            resp.set_error("this srv6d has no VRF registry");
        break;
    case pb::Request::kShowEncapSource:
        if (d.encap)
            *resp.mutable_encap_source() = render_encap_source(*d.encap, d.encap_configured, d.tunsrc);
        else
            resp.set_error("this srv6d has no encap source resolver");
        break;
    case pb::Request::kShowCounters:
    case pb::Request::kClearCounters: {
        pb::Counters& c = *resp.mutable_counters();
        if (d.counters)
            d.counters(c);
        if (req.cmd_case() == pb::Request::kClearCounters && d.clear_counters)
            d.clear_counters();
        break;
    }
    case pb::Request::kShowNeighbors: {
        pb::NeighborTable& t = *resp.mutable_neighbors();
        if (d.neighbors)
            d.neighbors(t);
        break;
    }
    case pb::Request::kShowL2Vpn: {
        pb::L2vpnTable& t = *resp.mutable_l2vpn();
        if (d.l2vpn)
            d.l2vpn(t);
        break;
    }
    case pb::Request::kShowMemory:
        if (d.memory)
            d.memory(*resp.mutable_memory());
        else
            resp.set_error("this srv6d has no compiled tables");
        break;
    case pb::Request::kShowRoute:
        if (d.route_lookup)
            d.route_lookup(req.show_route(), resp);
        else
            resp.set_error("this srv6d has no compiled tables");
        break;
    case pb::Request::kTraceStart:
    case pb::Request::kTraceRead:
    case pb::Request::kTraceStop:
        if (!d.trace) {
            resp.set_error("this srv6d has no dataplane to trace");
            break;
        }
        if (std::string e = d.trace(req, *resp.mutable_trace()); !e.empty()) {
            resp.clear_trace();
            resp.set_error(std::move(e));
        }
        break;
    case pb::Request::kSetLogLevel: {
        if (!d.set_log_level) {
            resp.set_error("this srv6d cannot change its log level");
            break;
        }
        if (std::string e = d.set_log_level(req.set_log_level().level(), *resp.mutable_log_level()); !e.empty()) {
            resp.clear_log_level();
            resp.set_error(std::move(e));
        }
        break;
    }
    case pb::Request::CMD_NOT_SET:
        resp.set_error("unknown or empty request (is srv6ctl newer than srv6d?)");
        break;
    }
    return resp;
}

pb::Response answer(const pb::Request& req, const daemon_view& d) { return drain(respond(req, d)); }

pb::Response answer(const pb::Request& req, const rib::store& rib, const fpm::ingest_stats& stats,
                    const fpm::session_info& session) {
    return answer(req, daemon_view(rib, stats, session));
}

}  // namespace mgmt
