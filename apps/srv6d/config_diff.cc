#include "apps/srv6d/config_diff.hh"

#include <fmt/format.h>

#include <functional>
#include <string_view>

#include "apps/srv6d/config_keys.hh"

namespace srv6d {
namespace {

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : " ") + s;
    return out.empty() ? "(none)" : out;
}

std::string ms(std::chrono::milliseconds d) { return std::to_string(d.count()); }
std::string yes_no(bool b) { return b ? "true" : "false"; }

template <typename T>
std::string lines(const std::vector<T>& v) {
    return fmt::format("{} line{}", v.size(), v.size() == 1 ? "" : "s");
}

struct row {
    std::string_view key;
    std::function<std::string(const config&)> text;
    // For values whose text does not show every detail (lines of specs): compared as values.
    std::function<bool(const config&, const config&)> same;
    const char* restart_why;  // nullptr: applied at run time
};

const std::vector<row>& rows() {
    static const std::vector<row> r = {
        {"fpm.listen", [](const config& c) { return c.fpm_listen; }, {},
         "the listening socket is bound once: rebinding would drop zebra's connection"},
        {"fpm.port", [](const config& c) { return std::to_string(c.fpm_port); }, {},
         "the listening socket is bound once: rebinding would drop zebra's connection"},
        {"fpm.resync-quiet-ms", [](const config& c) { return ms(c.resync_quiet); }, {}, nullptr},
        {"fpm.resync-max-ms", [](const config& c) { return ms(c.resync_max); }, {}, nullptr},
        {"fpm.allow-user", [](const config& c) { return join(c.fpm_allow_users); }, {}, nullptr},
        {"fpm.allow-address",
         [](const config& c) {
             std::vector<std::string> v;
             for (const auto& p : c.fpm_allow_addresses)
                 v.push_back(rib::to_string(p));
             return join(v);
         },
         {}, nullptr},
        {"fpm.takeover-idle-ms", [](const config& c) { return ms(c.takeover_idle); }, {}, nullptr},
        {"fpm.first-frame-timeout-ms", [](const config& c) { return ms(c.first_frame_timeout); }, {}, nullptr},
        {"fpm.kernel-check", [](const config& c) { return yes_no(c.kernel_check); }, {},
         "the kernel reader is given to the FPM listener when it starts"},
        {"mgmt.socket", [](const config& c) { return c.mgmt_socket; }, {},
         "srv6ctl and the service files name the socket: moving it live would strand them"},
        {"mgmt.group", [](const config& c) { return c.mgmt_group.empty() ? std::string("(srv6d's own)") : c.mgmt_group; },
         {}, nullptr},
        {"mgmt.max-clients", [](const config& c) { return std::to_string(c.mgmt_max_clients); }, {}, nullptr},
        {"rib.max-routes", [](const config& c) { return std::to_string(c.rib_max_routes); }, {}, nullptr},
        {"rib.max-routes-per-table", [](const config& c) { return std::to_string(c.rib_max_routes_per_table); }, {},
         nullptr},
        {"rib.max-nexthops", [](const config& c) { return std::to_string(c.rib_max_nexthops); }, {}, nullptr},
        {"metrics.listen",
         [](const config& c) {
             if (!c.metrics_listen)
                 return std::string("(off)");
             const auto& l = *c.metrics_listen;
             return l.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", l.host, l.port)
                                                          : fmt::format("{}:{}", l.host, l.port);
         },
         {}, nullptr},
        {"log.level", [](const config& c) { return std::string(util::to_string(c.log_level)); }, {}, nullptr},
        {"log.target", [](const config& c) { return std::string(util::to_string(c.log_target)); }, {}, nullptr},
        {"eal.args", [](const config& c) { return join(c.eal_args); }, {}, "DPDK's EAL is initialised once per process"},
        {"dataplane.enabled", [](const config& c) { return yes_no(c.dataplane_enabled); }, {},
         "the EAL and the worker lcores start with the process"},
        {"dataplane.mbufs", [](const config& c) { return std::to_string(c.mbufs); }, {},
         "the packet pool is created once, in huge pages, before the ports start"},
        {"dataplane.punt-rate", [](const config& c) { return std::to_string(c.punt_rate); }, {}, nullptr},
        {"dataplane.punt-burst", [](const config& c) { return std::to_string(c.punt_burst); }, {}, nullptr},
        {"dataplane.icmp-rate", [](const config& c) { return std::to_string(c.icmp_rate); }, {}, nullptr},
        {"dataplane.icmp-burst", [](const config& c) { return std::to_string(c.icmp_burst); }, {}, nullptr},
        {"dataplane.idle-sleep", [](const config& c) { return std::to_string(c.idle_sleep_us); }, {}, nullptr},
        {"encap.source",
         [](const config& c) { return c.encap_source ? rib::to_string(*c.encap_source) : std::string("(none)"); }, {},
         nullptr},
        {"vrf", [](const config& c) { return lines(c.vrfs); },
         [](const config& a, const config& b) { return a.vrfs == b.vrfs; }, nullptr},
        {"dataplane.port", [](const config& c) { return lines(c.ports); },
         [](const config& a, const config& b) { return a.ports == b.ports; },
         "ports are probed and started with the EAL; adding or removing one live is not supported"},
        {"dataplane.neighbor", [](const config& c) { return lines(c.neighbors); },
         [](const config& a, const config& b) { return a.neighbors == b.neighbors; },
         "static neighbors are written into the ports' adjacency when they start"},
        {"dataplane.vpws", [](const config& c) { return lines(c.vpws); },
         [](const config& a, const config& b) { return a.vpws == b.vpws; },
         "a circuit's port is steered and its template built when the ports start"},
        {"sids.sid", [](const config& c) { return lines(c.sids); },
         [](const config& a, const config& b) { return a.sids == b.sids; }, nullptr},
        {"routes.route", [](const config& c) { return lines(c.routes); },
         [](const config& a, const config& b) { return a.routes == b.routes; }, nullptr},
    };
    return r;
}

const row* find_row(std::string_view key) {
    for (const auto& r : rows())
        if (r.key == key)
            return &r;
    return nullptr;
}

}  // namespace

bool applies_at_run_time(const std::string& key, std::string* why) {
    const row* r = find_row(key);
    if (r == nullptr) {  // a key this table lacks: say so rather than pretend (tests keep it whole)
        if (why)
            *why = "srv6d does not know how to apply it";
        return false;
    }
    if (r->restart_why && why)
        *why = r->restart_why;
    return r->restart_why == nullptr;
}

std::vector<key_change> config_changes(const config& old, const config& now) {
    std::vector<key_change> out;
    for (const config_key& k : config_keys()) {
        const std::string key = k.key();
        const row* r = find_row(key);
        if (r == nullptr)
            continue;
        const std::string was = r->text(old), is = r->text(now);
        const bool same = r->same ? r->same(old, now) : was == is;
        if (same)
            continue;
        key_change c{key, was, is, r->restart_why == nullptr, r->restart_why ? r->restart_why : ""};
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace srv6d
