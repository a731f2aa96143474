// SIGHUP: the configuration read again and what changed applied, or named as needing a restart.
#include "apps/srv6d/control_plane.hh"

#include <algorithm>

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
    auto restart_only = [](bool changed, std::string_view keys) {
        if (changed)
            log(level::warn, "reload: {} changed: this takes a restart, the running value stays", keys);
    };
    restart_only(n.fpm_listen != cfg.fpm_listen || n.fpm_port != cfg.fpm_port, "fpm.listen/fpm.port");
    restart_only(n.resync_quiet != cfg.resync_quiet || n.resync_max != cfg.resync_max,
                 "fpm.resync-quiet-ms/fpm.resync-max-ms");
    restart_only(n.mgmt_socket != cfg.mgmt_socket, "mgmt.socket");
    restart_only(n.eal_args != cfg.eal_args, "eal.args");
    restart_only(n.dataplane_enabled != cfg.dataplane_enabled, "dataplane.enabled");
    restart_only(n.ports != cfg.ports, "dataplane.port");
    restart_only(n.neighbors != cfg.neighbors, "dataplane.neighbor");
    restart_only(n.mbufs != cfg.mbufs, "dataplane.mbufs");

    std::vector<std::string> applied;
    // Against the level in force: `srv6ctl set log-level` lasts until the next reload.
    if (n.log_level != util::current_level()) {
        applied.push_back(fmt::format("log.level {} (was {})", util::to_string(n.log_level), util::to_string(util::current_level())));
        util::set_level(n.log_level);
    }
    cfg.log_level = n.log_level;
    if (n.log_target != cfg.log_target) {
        applied.push_back(fmt::format("log.target {}", util::to_string(n.log_target)));
        cfg.log_target = n.log_target;
        util::set_target(n.log_target);
    }
    if (n.punt_rate != cfg.punt_rate || n.punt_burst != cfg.punt_burst) {
        applied.push_back(fmt::format("dataplane.punt-rate {} punt-burst {}", n.punt_rate, n.punt_burst));
        cfg.punt_rate = n.punt_rate;
        cfg.punt_burst = n.punt_burst;
        if (dp)
            dp->set_punt(cfg.punt_rate, cfg.punt_burst);
    }
    if (n.idle_sleep_us != cfg.idle_sleep_us) {
        applied.push_back(fmt::format("dataplane.idle-sleep {}", n.idle_sleep_us));
        cfg.idle_sleep_us = n.idle_sleep_us;
        if (dp)
            dp->set_idle_sleep(cfg.idle_sleep_us);
    }
    bool bindings_changed = false;
    if (n.encap_source != cfg.encap_source) {
        applied.push_back(fmt::format("encap.source {}", n.encap_source ? rib::to_string(*n.encap_source) : "(none)"));
        cfg.encap_source = n.encap_source;
        bindings_changed = true;
    }
    if (n.vrfs != cfg.vrfs) {
        applied.push_back(fmt::format("vrf lines ({} now)", n.vrfs.size()));
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
        applied.push_back(fmt::format("sids: {} added or changed, {} removed ({} now)", added, removed, n.sids.size()));
        cfg.sids = n.sids;
        compiles.add(added + removed);
        vrfs.rib_changed();  // bind the new SIDs, then compile
    }
    if (bindings_changed)
        vrfs.reload();
    log(level::info, "reload: {}", applied.empty() ? std::string("nothing to apply") : "applied " + join(applied, "; "));
    notify("READY=1\nSTATUS=" + status());
}

}  // namespace srv6d
