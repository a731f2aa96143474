// SIGHUP: the configuration read again and what changed applied, or named as needing a restart.
#include "apps/srv6d/control_plane.hh"

#include <algorithm>

#include "apps/srv6d/config_diff.hh"
#include "util/log.hh"
#include "vrf/sid_parse.hh"

namespace srv6d {

using util::level;
using util::log;

// SIGHUP: the file again, with the same command line (which still wins). What can change at run
// time is applied on this thread like any other change (VRF claims, config SIDs and the encap
// source go through the registry and the RIB, then one paced compile; the punt policer with the
// next adjacency snapshot); the workers keep forwarding throughout. What cannot is reported.
void control_plane::reload() {
    notify("RELOADING=1\nSTATUS=reloading the configuration");
    log(level::info, "srv6d: SIGHUP: reloading {}", cfg.config_file.empty() ? "(no config file: the command line)" : cfg.config_file);
    const parse_result r = reparse();
    if (r.what != action::run) {
        log(level::error, "reload: {}: nothing changed", r.text);
        notify("READY=1\nSTATUS=" + status());
        return;
    }
    const config& n = r.cfg;
    ++reloads;
    // Every key that changed is named: applied below (old -> new), or left for a restart.
    const std::vector<key_change> changes = config_changes(cfg, n);
    std::vector<std::string> restart;
    for (const key_change& c : changes)
        if (!c.run_time) {
            log(level::warn, "reload: {} changed ({} -> {}): this takes a restart, the running value stays ({})",
                c.key, c.was, c.now, c.why);
            restart.push_back(c.key);
        }
    auto changed = [&](std::string_view key) {
        return std::any_of(changes.begin(), changes.end(), [&](const key_change& c) { return c.key == key; });
    };
    auto was_now = [&](std::string_view key) {
        for (const key_change& c : changes)
            if (c.key == key)
                return fmt::format("{} {} -> {}", c.key, c.was, c.now);
        return std::string(key);
    };

    std::vector<std::string> applied;
    // Against the level in force: `srv6ctl set log-level` lasts until the next reload.
    if (n.log_level != util::current_level()) {
        applied.push_back(fmt::format("log.level {} -> {}", util::to_string(util::current_level()), util::to_string(n.log_level)));
        util::set_level(n.log_level);
    }
    cfg.log_level = n.log_level;
    if (n.log_target != cfg.log_target) {
        applied.push_back(was_now("log.target"));
        cfg.log_target = n.log_target;
        util::set_target(n.log_target);
    }
    if (n.punt_rate != cfg.punt_rate || n.punt_burst != cfg.punt_burst) {
        for (const char* k : {"dataplane.punt-rate", "dataplane.punt-burst"})
            if (changed(k))
                applied.push_back(was_now(k));
        cfg.punt_rate = n.punt_rate;
        cfg.punt_burst = n.punt_burst;
        if (dp)
            dp->set_punt(cfg.punt_rate, cfg.punt_burst);
    }
    // Each worker's ICMP limiter: published with the next adjacency snapshot, taken by each
    // worker at its next burst (forward/datapath/adjacency.hh, icmp_limit).
    if (changed("dataplane.icmp-rate") || changed("dataplane.icmp-burst")) {
        for (const char* k : {"dataplane.icmp-rate", "dataplane.icmp-burst"})
            if (changed(k))
                applied.push_back(was_now(k));
        cfg.icmp_rate = n.icmp_rate;
        cfg.icmp_burst = n.icmp_burst;
        if (dp)
            dp->set_icmp(cfg.icmp_rate, cfg.icmp_burst);
    }
    if (n.idle_sleep_us != cfg.idle_sleep_us) {
        applied.push_back(was_now("dataplane.idle-sleep"));
        cfg.idle_sleep_us = n.idle_sleep_us;
        if (dp)
            dp->set_idle_sleep(cfg.idle_sleep_us);
    }
    // The FPM listener: admission (connections no longer admitted are closed), the takeover
    // and first-frame bounds, the resync's quiet time and cap.
    bool fpm_changed = false;
    for (const char* k : {"fpm.allow-user", "fpm.allow-address", "fpm.takeover-idle-ms", "fpm.first-frame-timeout-ms",
                          "fpm.resync-quiet-ms", "fpm.resync-max-ms"})
        if (changed(k)) {
            applied.push_back(was_now(k));
            fpm_changed = true;
        }
    if (fpm_changed) {
        cfg.fpm_allow_users = n.fpm_allow_users;
        cfg.fpm_allow_addresses = n.fpm_allow_addresses;
        cfg.takeover_idle = n.takeover_idle;
        cfg.first_frame_timeout = n.first_frame_timeout;
        cfg.resync_quiet = n.resync_quiet;
        cfg.resync_max = n.resync_max;
        std::vector<std::string> missing;
        const fpm::listener_options lo = fpm_options(missing);
        for (const auto& m : missing)
            log(level::info, "fpm: no user '{}' on this host (fpm.allow-user): not admitted", m);
        if (listener)
            listener->set_options(lo);
    }
    // The RIB's limits: for the upserts that follow (what is held stays, docs/rib.md).
    bool limits_changed = false;
    for (const char* k : {"rib.max-routes", "rib.max-routes-per-table", "rib.max-nexthops"})
        if (changed(k)) {
            applied.push_back(was_now(k));
            limits_changed = true;
        }
    if (limits_changed) {
        cfg.rib_max_routes = n.rib_max_routes;
        cfg.rib_max_routes_per_table = n.rib_max_routes_per_table;
        cfg.rib_max_nexthops = n.rib_max_nexthops;
        rib.set_limits({cfg.rib_max_routes, cfg.rib_max_routes_per_table, cfg.rib_max_nexthops});
        if (rib.routes().size() > cfg.rib_max_routes && cfg.rib_max_routes)
            log(level::warn, "reload: the RIB holds {} routes, more than rib.max-routes {}: kept, new routes refused "
                "until zebra deletes some", rib.routes().size(), cfg.rib_max_routes);
    }
    // The management socket: its group (file and, if srv6d made it, directory) and client bound.
    if (changed("mgmt.group")) {
        applied.push_back(was_now("mgmt.group"));
        cfg.mgmt_group = n.mgmt_group;
        if (mgmt)
            mgmt->set_group(cfg.mgmt_group);
    }
    if (changed("mgmt.max-clients")) {
        applied.push_back(was_now("mgmt.max-clients"));
        cfg.mgmt_max_clients = n.mgmt_max_clients;
        if (mgmt)
            mgmt->set_max_connections(cfg.mgmt_max_clients);
    }
    // The metrics endpoint: closed and opened again on the new address (or off).
    if (changed("metrics.listen")) {
        applied.push_back(was_now("metrics.listen"));
        cfg.metrics_listen = n.metrics_listen;
        metrics.reset();
        if (!start_metrics())
            log(level::error, "reload: metrics.listen {}: cannot serve it, the metrics endpoint is off",
                was_now("metrics.listen"));
    }
    bool bindings_changed = false;
    if (n.encap_source != cfg.encap_source) {
        applied.push_back(was_now("encap.source"));
        cfg.encap_source = n.encap_source;
        bindings_changed = true;
    }
    if (n.vrfs != cfg.vrfs) {
        applied.push_back(was_now("vrf"));
        cfg.vrfs = n.vrfs;
        bindings_changed = true;
    }
    if (n.sids != cfg.sids) {
        size_t removed = 0, added = 0;
        for (const auto& o : cfg.sids) {
            const bool kept = std::any_of(n.sids.begin(), n.sids.end(), [&](const auto& s) { return s.sid == o.sid; });
            if (!kept) {
                rib.remove_config_route(vrf::to_route(o).key);
                ++removed;
            }
        }
        for (const auto& s : n.sids) {
            const bool same = std::find(cfg.sids.begin(), cfg.sids.end(), s) != cfg.sids.end();
            if (!same) {
                rib.add_config_route(vrf::to_route(s));
                ++added;
            }
        }
        applied.push_back(fmt::format("{} ({} added or changed, {} removed)", was_now("sids.sid"), added, removed));
        cfg.sids = n.sids;
        compiles.add(added + removed);
        vrfs.rib_changed();  // bind the new SIDs, then compile
    }
    if (n.routes != cfg.routes) {
        // By key: a line whose key stays is replaced in place (its route changes, the others
        // keep their compiled nexthops); a key gone is removed.
        size_t removed = 0, added = 0;
        for (const auto& o : cfg.routes) {
            const bool kept = std::any_of(n.routes.begin(), n.routes.end(),
                                          [&](const auto& x) { return x.table == o.table && x.dst == o.dst; });
            // A sid line that took this prefix over is already in place (applied above).
            const bool now_sid = o.table == rib::main_table &&
                                 std::any_of(n.sids.begin(), n.sids.end(), [&](const auto& x) { return x.sid == o.dst; });
            if (!kept && !now_sid) {
                rib.remove_config_route(to_route(o).key);
                ++removed;
            }
        }
        for (const auto& rt : n.routes)
            if (std::find(cfg.routes.begin(), cfg.routes.end(), rt) == cfg.routes.end()) {
                rib.add_config_route(to_route(rt));
                ++added;
            }
        applied.push_back(fmt::format("{} ({} added or changed, {} removed)", was_now("routes.route"), added, removed));
        cfg.routes = n.routes;
        compiles.add(added + removed);
        vrfs.rib_changed();
    }
    if (bindings_changed)
        vrfs.reload();
    if (applied.empty() && restart.empty())
        log(level::info, "reload: nothing changed");
    else
        log(level::info, "reload: {}{}{}", applied.empty() ? std::string("nothing applied") : "applied " + join(applied, "; "),
            restart.empty() ? "" : "; needs a restart: ", join(restart, ", "));
    notify("READY=1\nSTATUS=" + status());
}

}  // namespace srv6d
