// start-up in steps, each logging its own error: config SIDs, VRFs, the dataplane and its host
// path, the FPM listener, the management socket, the metrics endpoint.
#include "apps/srv6d/control_plane.hh"

#include <exception>

#include "apps/srv6d/running_config.hh"
#include "host/kernel_routes.hh"
#include "mgmt/answer.hh"
#include "util/log.hh"
#include "vrf/sid_parse.hh"

namespace srv6d {

using util::level;
using util::log;

bool control_plane::compile_now(size_t batch) {
    if (compiler.compile(rib, vrfs.registry(), vrfs.encap())) {
        const auto& st = compiler.stats();
        log(level::debug, "fib: published compiled tables #{} ({} updates in this batch, {} route updates, {} LPM changes)",
            st.publications, batch, st.route_updates, st.lpm_changes);
        for (const auto& [lvl, line] : refusals.update(st, compiler.unbound_tables()))
            log(lvl, "{}", line);
    }
    // Tables published two-level under churn are flattened once quiet: compile again a pacer
    // interval later (nothing else to do then; a handful of such compiles after a burst).
    return compiler.settling();
}

bool control_plane::start() {
    vrfs.on_synced([this] {
        compiles.changed(0);  // RIB burst (counted below), VRF or encap source change
        // Whose ifindexes the RIB holds: the talking peer's (kept after it leaves).
        if (session.connected && session.talking)
            remote_zebra = session.peer_identity.starts_with("remote");
        if (dp)  // a VRF change moves ports between VRFs (cheap when nothing moved)
            dp->update_vrfs([this](const std::string& n) { return active_vrf(n); });
        update_l2vpn();  // the encap source may have moved
        rcu.reclaim();
    });
    // Before zebra connects and before the first sync binds them: config SIDs are pinned in the
    // RIB (never swept), and zebra's route at the same prefix shadows one (docs/rib.md).
    for (const auto& s : cfg.sids)
        rib.add_config_route(vrf::to_route(s));
    if (!cfg.sids.empty())
        log(level::info, "sids: {} configured", cfg.sids.size());
    // [routes]: headend routes of srv6d's own, the same pinned config routes (docs/srv6d.md).
    for (const auto& rt : cfg.routes)
        rib.add_config_route(to_route(rt));
    if (!cfg.routes.empty())
        log(level::info, "routes: {} configured", cfg.routes.size());
    vrfs.start();
    if (cfg.dataplane_enabled && !start_dataplane())
        return false;
    if (!start_fpm() || !start_mgmt() || !start_metrics())
        return false;
    watch_signals();
    flush_log();
    return true;
}

// The ports and workers; with TAP mirrors, the host path that follows the kernel.
bool control_plane::start_dataplane() {
    fwd::dataplane_options o;
    o.ports = cfg.ports;
    o.neighbors = cfg.neighbors;
    o.mbufs = cfg.mbufs;
    o.punt_rate = cfg.punt_rate;
    o.punt_burst = cfg.punt_burst;
    o.icmp_rate = cfg.icmp_rate;
    o.icmp_burst = cfg.icmp_burst;
    o.idle_sleep_us = cfg.idle_sleep_us;
    dp.emplace(rcu, compiler.cell());
    std::string error;
    if (!dp->open(o, [this](const std::string& n) { return active_vrf(n); }, error)) {
        log(level::error, "{}", error);
        return false;
    }
    log(level::info, "dataplane: {} port(s), {} worker(s)", cfg.ports.size(), dp->workers());
    update_l2vpn();
    poll_links();
    return !dp->has_taps() || start_host();
}

// The kernel's neighbors and addresses on the TAP mirrors, and neighbor resolution through them.
bool control_plane::start_host() {
    kernel.emplace();
    const std::string why = kernel->start();
    if (!why.empty()) {
        log(level::error, "host: cannot follow the kernel's neighbors and addresses: {}", why);
        return false;
    }
    kernel_changed();
    kernel_fd.emplace(io, kernel->fd());
    watch_kernel();
    resolver.emplace();
    if (const std::string e = resolver->open(); !e.empty()) {
        log(level::error, "host: cannot ask the kernel to resolve neighbors: {}", e);
        return false;
    }
    resolve_neighbors();
    log(level::info, "host: following the kernel's neighbors and addresses on the TAP mirrors");
    return true;
}

// The FPM listener: zebra's updates go into the RIB and wake the compile pacer.
fpm::listener_options control_plane::fpm_options(std::vector<std::string>& missing) const {
    fpm::listener_options lo;
    lo.address = cfg.fpm_listen;
    lo.port = cfg.fpm_port;
    lo.resync_quiet = cfg.resync_quiet;
    lo.resync_max = cfg.resync_max;
    lo.admission = fpm::resolve_users(cfg.fpm_allow_users, missing);
    lo.admission.remotes = cfg.fpm_allow_addresses;
    lo.takeover_idle = cfg.takeover_idle;
    lo.first_frame_timeout = cfg.first_frame_timeout;
    return lo;
}

bool control_plane::start_fpm() {
    std::vector<std::string> missing;
    const fpm::listener_options lo = fpm_options(missing);
    for (const auto& m : missing)
        log(level::info, "fpm: no user '{}' on this host (fpm.allow-user): not admitted", m);
    rib.set_limits({cfg.rib_max_routes, cfg.rib_max_routes_per_table, cfg.rib_max_nexthops});
    fpm::listener_hooks hooks;
    if (cfg.kernel_check)
        hooks.kernel_routes = [](const std::vector<rib::table_id>& tables) {
            std::string error;
            auto keys = host::kernel_route_keys(tables, error);
            if (!keys)
                log(level::warn, "fpm: {}", error);
            return keys;
        };
    // A batch in the RIB: the pacer decides when the tables are compiled again.
    hooks.on_batch_applied = [this](std::span<const fpm::update> u) {
        compiles.add(u.size());
        vrfs.rib_changed();
    };
    hooks.on_sweep = [this](size_t) {
        vrfs.rib_changed();
        log(level::info, "srv6d: RIB after resync: {} routes, {} nexthop objects", rib.routes().size(),
            rib.nexthops().size());
    };
    // A reconnect of the same zebra replays main and its VRFs' tables only: sweep just those.
    hooks.replayed_table = [this](rib::table_id t) { return vrfs.replayed_table(t); };
    listener.emplace(io, lo, rib, stats, session, std::move(hooks));
    std::string error;
    if (!listener->start(error)) {
        log(level::error, "{}", error);
        return false;
    }
    return true;
}

// The management socket srv6ctl talks to.
bool control_plane::start_mgmt() {
    try {
        // The handler runs on this io_context's thread: it may read the RIB without locks.
        mgmt.emplace(io, cfg.mgmt_socket, [this](const ::mgmt::pb::Request& req) {
            ::mgmt::daemon_view view(rib, stats, session);
            vrfs.fill_view(view);
            view.counters = [this](::mgmt::pb::Counters& c) { fill_counters(c); };
            view.neighbors = [this](::mgmt::pb::NeighborTable& t) { fill_neighbors(t); };
            view.l2vpn = [this](::mgmt::pb::L2vpnTable& t) { fill_l2vpn(t); };
            view.memory = [this](::mgmt::pb::Memory& m) { fill_memory(m); };
            view.route_lookup = [this](const ::mgmt::pb::ShowRoute& q, ::mgmt::pb::Response& r) {
                answer_show_route(q, compiler, vrfs.registry(), rib, interface_names_of(), r);
            };
            view.ifname = [names = interface_names_of()](uint32_t ifindex) { return names.name(ifindex); };
            if (dp) {
                view.clear_counters = [this] { dp->clear_counters(); };
                view.sid_counters = [this] { return sid_counters(); };
                view.trace = [this](const ::mgmt::pb::Request& q, ::mgmt::pb::TraceRecords& t) {
                    return trace(q, *dp, vrfs.registry(), t);
                };
            }
            view.version = [this](::mgmt::pb::Version& v) {
                render_version(cfg, {.started = started, .reloads = reloads, .dataplane = dp.has_value()}, v);
            };
            view.running_config = [this](::mgmt::pb::RunningConfig& c) {
                c.set_text(render_config(cfg, util::current_level()));
                c.set_file(cfg.config_file);
                c.set_reloads(reloads);
            };
            view.set_log_level = [](const std::string& s, ::mgmt::pb::LogLevel& out) {
                util::level l{};
                if (!util::parse_level(s, l))
                    return fmt::format("unknown log level '{}': error, warn, info or debug", s);
                out.set_previous(std::string(util::to_string(util::current_level())));
                out.set_level(std::string(util::to_string(l)));
                util::set_level(l);
                log(level::info, "srv6d: log level {} (was {}), set by srv6ctl", out.level(), out.previous());
                return std::string();
            };
            return ::mgmt::respond(req, view);  // a whole route table in parts (mgmt/route_stream.hh)
        }, ::mgmt::server_options{.max_connections = cfg.mgmt_max_clients, .group = cfg.mgmt_group});
    } catch (const std::exception& e) {
        log(level::error, "mgmt: cannot serve {}: {}", cfg.mgmt_socket, e.what());
        return false;
    }
    return true;
}

// Off unless metrics.listen is set (docs/observability.md).
bool control_plane::start_metrics() {
    if (!cfg.metrics_listen)
        return true;
    try {
        metrics.emplace(io, *cfg.metrics_listen, [this](::mgmt::exposition_format f) { return scrape(f); });
    } catch (const std::exception& e) {
        log(level::error, "{}", e.what());
        return false;
    }
    return true;
}

}  // namespace srv6d
