#include "apps/srv6d/running_config.hh"

#include <unistd.h>

#include <algorithm>
#include <ctime>

#include <rte_version.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rib/behaviors.hh"
#include "rib/sid_params.hh"
#include "apps/srv6d/config_keys.hh"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION "unknown"
#endif
#ifndef SRV6D_BUILD_TYPE
#define SRV6D_BUILD_TYPE "unknown"
#endif

namespace srv6d {
namespace {

std::string ms(std::chrono::milliseconds v) { return std::to_string(v.count()); }
std::string boolean(bool b) { return b ? "true" : "false"; }

std::string vrf_line(const vrf::vrf_spec& v) {
    std::string out = fmt::format("{} table {}", v.name, v.table);
    std::vector<std::string> members;
    for (const auto& m : v.members)
        members.push_back(m.name);
    if (!members.empty())
        out += fmt::format(" members {}", fmt::join(members, ","));
    return out;
}

std::string port_line(const fwd::port_spec& p) {
    std::string out = p.name;
    out += p.vlan ? fmt::format(" vlan={} parent={}", p.vlan, p.parent) : " " + p.devargs;
    if (!p.vrf.empty())
        out += " vrf=" + p.vrf;
    if (!p.tap.empty())
        out += " tap=" + p.tap;
    if (!p.ifname.empty())
        out += " ifname=" + p.ifname;
    if (p.ifindex)
        out += fmt::format(" ifindex={}", p.ifindex);
    if (p.mtu)
        out += fmt::format(" mtu={}", p.mtu);
    return out;
}

// forward/control/l2vpn.hh's syntax: NAME port=PORT segs=SID[,SID...] [mode=l2encap.red] [source=ADDR]
std::string vpws_line(const fwd::vpws_spec& v) {
    std::string segs;
    for (const auto& a : v.segments)
        segs += (segs.empty() ? "" : ",") + rib::to_string(a);
    std::string out = fmt::format("{} port={} segs={}", v.name, v.port, segs);
    if (v.reduced)
        out += " mode=l2encap.red";
    if (v.source)
        out += " source=" + rib::to_string(*v.source);
    return out;
}

std::string neighbor_line(const fwd::neighbor_spec& n) {
    return fmt::format("{} {} {}", n.port, rib::to_string(n.addr), fwd::to_string(n.mac));
}

// vrf/sid_parse.hh's syntax: PREFIX BEHAVIOR, then each parameter as the parameter table
// prints it (rib/sid_params.hh).
std::string sid_line(const vrf::sid_spec& s) {
    const rib::behavior_info* b = rib::find_behavior(s.local.action);
    return fmt::format("{} {}{}", rib::to_string(s.sid),
                       b ? std::string(b->name) : fmt::format("action {}", static_cast<uint32_t>(s.local.action)),
                       rib::print_params(s.local));
}

// The values of one key (several for the repeatable ones); nullopt for a key this file does
// not know (tests/unit/apps checks there is none).
std::optional<std::vector<std::string>> values(const config& c, std::string_view key, util::level level) {
    using v = std::vector<std::string>;
    auto each = [](const auto& list, auto f) {
        v out;
        for (const auto& x : list)
            out.push_back(f(x));
        return out;
    };
    if (key == "fpm.listen") return v{c.fpm_listen};
    if (key == "fpm.port") return v{std::to_string(c.fpm_port)};
    if (key == "fpm.resync-quiet-ms") return v{ms(c.resync_quiet)};
    if (key == "fpm.resync-max-ms") return v{ms(c.resync_max)};
    if (key == "fpm.allow-user") return v{fmt::format("{}", fmt::join(c.fpm_allow_users, " "))};
    if (key == "fpm.allow-address")
        return v{fmt::format("{}", fmt::join(each(c.fpm_allow_addresses, [](const rib::prefix& p) { return rib::to_string(p); }), " "))};
    if (key == "fpm.takeover-idle-ms") return v{ms(c.takeover_idle)};
    if (key == "fpm.first-frame-timeout-ms") return v{ms(c.first_frame_timeout)};
    if (key == "fpm.kernel-check") return v{boolean(c.kernel_check)};
    if (key == "mgmt.socket") return v{c.mgmt_socket};
    if (key == "mgmt.group") return v{c.mgmt_group};
    if (key == "mgmt.max-clients") return v{std::to_string(c.mgmt_max_clients)};
    if (key == "rib.max-routes") return v{std::to_string(c.rib_max_routes)};
    if (key == "rib.max-routes-per-table") return v{std::to_string(c.rib_max_routes_per_table)};
    if (key == "rib.max-nexthops") return v{std::to_string(c.rib_max_nexthops)};
    if (key == "metrics.listen") {
        if (!c.metrics_listen)
            return v{""};
        const auto& m = *c.metrics_listen;
        return v{m.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", m.host, m.port) : fmt::format("{}:{}", m.host, m.port)};
    }
    if (key == "log.level") return v{std::string(util::to_string(level))};
    if (key == "log.target") return v{std::string(util::to_string(c.log_target))};
    if (key == "eal.args") return v{fmt::format("{}", fmt::join(c.eal_args, " "))};
    if (key == "dataplane.enabled") return v{boolean(c.dataplane_enabled)};
    if (key == "dataplane.mbufs") return v{std::to_string(c.mbufs)};
    if (key == "dataplane.punt-rate") return v{std::to_string(c.punt_rate)};
    if (key == "dataplane.punt-burst") return v{std::to_string(c.punt_burst)};
    if (key == "dataplane.icmp-rate") return v{std::to_string(c.icmp_rate)};
    if (key == "dataplane.icmp-burst") return v{std::to_string(c.icmp_burst)};
    if (key == "dataplane.idle-sleep") return v{std::to_string(c.idle_sleep_us)};
    if (key == "encap.source") return v{c.encap_source ? rib::to_string(*c.encap_source) : ""};
    if (key == "vrf") return each(c.vrfs, vrf_line);
    if (key == "dataplane.port") return each(c.ports, port_line);
    if (key == "dataplane.neighbor") return each(c.neighbors, neighbor_line);
    if (key == "dataplane.vpws") return each(c.vpws, vpws_line);
    if (key == "sids.sid") return each(c.sids, sid_line);
    if (key == "routes.route") return each(c.routes, route_text);
    return std::nullopt;
}

}  // namespace

std::string render_config(const config& cfg, util::level level) {
    // Keys before any [section] first (vrf lines), then section by section in the table's order.
    std::vector<std::string> sections{""};
    for (const auto& k : config_keys())
        if (std::find(sections.begin(), sections.end(), k.section) == sections.end())
            sections.emplace_back(k.section);
    std::string out;
    for (const auto& section : sections) {
        std::string body;
        for (const auto& k : config_keys()) {
            if (section != k.section)
                continue;
            const auto vals = values(cfg, k.key(), level);
            if (!vals) {
                body += fmt::format("# {}: not shown by this srv6d\n", k.key());
                continue;
            }
            for (const auto& val : *vals)
                body += val.empty() ? fmt::format("# {} =\n", k.name) : fmt::format("{} = {}\n", k.name, val);
        }
        if (body.empty())
            continue;
        out += section.empty() ? body + "\n" : fmt::format("[{}]\n{}\n", section, body);
    }
    while (out.ends_with("\n\n"))
        out.pop_back();
    return out;
}

void render_version(const config& cfg, const version_facts& f, ::mgmt::pb::Version& out,
                    std::chrono::system_clock::time_point now) {
    out.set_version(SRV6D_VERSION);
    out.set_build(fmt::format("GCC {}, {}", __VERSION__, SRV6D_BUILD_TYPE));
    out.set_dpdk(rte_version());
    const std::time_t secs = std::chrono::system_clock::to_time_t(f.started);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    out.set_started(buf);
    const auto up = std::chrono::duration_cast<std::chrono::seconds>(now - f.started).count();
    out.set_uptime_seconds(up > 0 ? static_cast<uint64_t>(up) : 0);
    out.set_dataplane(f.dataplane);
    out.set_config_file(cfg.config_file);
    out.set_pid(static_cast<uint32_t>(getpid()));
    out.set_reloads(f.reloads);
    for (const auto& p : cfg.ports) {
        auto* o = out.add_ports();
        o->set_name(p.name);
        o->set_devargs(p.devargs);
        o->set_vrf(p.vrf);
        o->set_parent(p.parent);
        o->set_vlan(p.vlan);
    }
}

}  // namespace srv6d
