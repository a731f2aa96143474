#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgmt/text.hh"

namespace mgmt {

std::string format_duration(uint64_t seconds) {
    const uint64_t d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
    if (d > 0)
        return fmt::format("{}d{:02}h{:02}m", d, h, m);
    return fmt::format("{:02}:{:02}:{:02}", h, m, s);
}

std::string format_seg6(const pb::Seg6Encap& e) {
    std::string out = e.mode();
    if (e.segments_size() > 0)
        out += fmt::format(" segs {}", fmt::join(e.segments(), ","));
    if (e.has_source())
        out += fmt::format(" src {}", e.source());
    if (e.has_sidlist())
        out += fmt::format(" sidlist {}", e.sidlist());
    return out;
}

std::string format_seg6local_context(const pb::Seg6Local& l) {
    std::vector<std::string> parts;
    if (l.has_vrftable())
        parts.push_back(fmt::format("vrftable {}", l.vrftable()));
    if (l.has_table())
        parts.push_back(fmt::format("table {}", l.table()));
    if (l.has_vrf_name())
        parts.push_back(fmt::format("vrf {}", l.vrf_name()));
    if (l.has_nh4())
        parts.push_back(fmt::format("nh4 {}", l.nh4()));
    if (l.has_nh6())
        parts.push_back(fmt::format("nh6 {}", l.nh6()));
    if (l.has_oif())
        parts.push_back(l.has_oif_name() ? fmt::format("oif {} ({})", l.oif_name(), l.oif())
                                         : fmt::format("oif {}", l.oif()));
    if (l.has_ifname())
        parts.push_back(fmt::format("ifname {}", l.ifname()));
    if (l.has_srh())
        parts.push_back(format_seg6(l.srh()));
    return fmt::format("{}", fmt::join(parts, ", "));
}

std::string format_seg6local(const pb::Seg6Local& l) {
    std::string out = fmt::format("seg6local {}", l.behavior());
    const std::string ctx = format_seg6local_context(l);
    if (!ctx.empty())
        out += " " + ctx;
    if (l.flavors_size() > 0)
        out += fmt::format(" flavors {}", fmt::join(l.flavors(), ","));
    if (l.has_lcblock_bits())
        out += fmt::format(" lcblock {}", l.lcblock_bits());
    if (l.has_lcnode_fn_bits())
        out += fmt::format(" lcnode-fn {}", l.lcnode_fn_bits());
    return out;
}

std::string format_path(const pb::Nexthop& nh) {
    std::vector<std::string> parts;
    if (nh.has_gateway())
        parts.push_back(fmt::format("via {}", nh.gateway()));
    else if (nh.ifindex() != 0)
        parts.push_back("is directly connected");
    if (nh.ifindex() != 0)
        parts.push_back(nh.has_ifname() ? fmt::format("dev {} (ifindex {})", nh.ifname(), nh.ifindex())
                                        : fmt::format("ifindex {}", nh.ifindex()));
    if (nh.onlink())
        parts.push_back("onlink");
    parts.push_back(fmt::format("weight {}", nh.weight()));
    if (nh.labels_size() > 0)
        parts.push_back(fmt::format("label {}", fmt::join(nh.labels(), "/")));
    if (nh.has_seg6())
        parts.push_back("seg6 encap " + format_seg6(nh.seg6()));
    if (nh.has_seg6local())
        parts.push_back(format_seg6local(nh.seg6local()));
    return fmt::format("{}", fmt::join(parts, ", "));
}

std::string format_response(const pb::Response& r) {
    if (!r.error().empty())
        return r.error() + "\n";
    switch (r.result_case()) {
    case pb::Response::kFpm: return format_fpm(r.fpm());
    case pb::Response::kRoutes: return format_routes(r.routes());
    case pb::Response::kNexthops: return format_nexthops(r.nexthops());
    case pb::Response::kSids: return format_sids(r.sids());
    case pb::Response::kVrfs: return format_vrfs(r.vrfs());
    case pb::Response::kEncapSource: return format_encap_source(r.encap_source());
    case pb::Response::kCounters: return format_counters(r.counters());
    case pb::Response::kNeighbors: return format_neighbors(r.neighbors());
    case pb::Response::kL2Vpn: return format_l2vpn(r.l2vpn());
    case pb::Response::kRoute: return format_route_lookup(r.route());
    case pb::Response::kTrace: return format_trace(r.trace());
    case pb::Response::kMemory: return format_memory(r.memory());
    case pb::Response::kVersion: return format_version(r.version());
    case pb::Response::kRunningConfig: return format_running_config(r.running_config());
    case pb::Response::kLocators: return format_locators(r.locators());
    case pb::Response::kLogLevel:
        return r.log_level().previous() == r.log_level().level()
                   ? fmt::format("log level: {} (unchanged)\n", r.log_level().level())
                   : fmt::format("log level: {} (was {})\n", r.log_level().level(), r.log_level().previous());
    case pb::Response::RESULT_NOT_SET: break;
    }
    return {};
}

}  // namespace mgmt
