#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rib/model.hh"
#include "mgmt/names.hh"
#include "mgmt/text.hh"

namespace mgmt {
namespace {

constexpr std::string_view legend =
    "Codes: K - kernel/connected, S - static, B - BGP, O - OSPF, I - IS-IS,\n"
    "       R - RIP/RIPng, N - NHRP, E - EIGRP, D - SHARP, F - PBR,\n"
    "       f - OpenFabric, A - Babel, T - zebra/table, ? - other\n";

std::string missing_text(const pb::Route& r) {
    if (r.missing_ids_size() == 0)
        return "no usable path";
    return fmt::format("{} {} unknown", r.missing_ids_size() == 1 ? "nexthop" : "nexthops",
                       fmt::join(r.missing_ids(), ", "));
}

// Route-level attributes vtysh shows after the path.
std::string route_extras(const pb::Route& r) {
    std::string out;
    if (r.has_prefsrc())
        out += fmt::format(", src {}", r.prefsrc());
    if (r.has_mtu())
        out += fmt::format(", mtu {}", r.mtu());
    if (r.has_pic_id())
        out += fmt::format(", pic {}", r.pic_id());
    return out;
}

void format_route(const pb::Route& r, std::string& out) {
    std::string head = fmt::format("{:<4}{}", protocol_code(static_cast<uint8_t>(r.protocol())), r.prefix());
    if (r.has_source())
        head += fmt::format(" from {}", r.source());
    if (r.has_nh_id())
        head += fmt::format(" [nhid {}]", r.nh_id());
    if (r.type() != "unicast")
        head += " " + r.type();
    // Further paths line up under the first one, as in vtysh.
    const std::string indent(head.size() + 1, ' ');

    if (r.nexthops_size() == 0) {
        if (r.resolve_state() == "unresolved")
            head += " unresolved: " + missing_text(r);
        else if (r.resolve_state() == "no_paths" && r.type() == "unicast")
            head += " blackhole";  // through a blackhole nexthop object
        out += head + route_extras(r) + "\n";
        return;
    }
    for (int i = 0; i < r.nexthops_size(); ++i) {
        if (i == 0)
            out += head + " " + format_path(r.nexthops(i)) + route_extras(r) + "\n";
        else
            out += indent + format_path(r.nexthops(i)) + "\n";
    }
    if (r.resolve_state() == "partial" || r.resolve_state() == "unresolved")
        out += indent + r.resolve_state() + ": " + missing_text(r) + "\n";
}

}  // namespace

std::string format_routes(const pb::RouteTables& t) {
    std::string out;
    for (const auto& table : t.tables()) {
        if (table.routes_size() == 0)
            continue;
        out += out.empty() ? std::string(legend) : std::string();
        out += table.table() == rib::main_table ? fmt::format("\nTable {} (main):\n", table.table())
               : table.has_vrf()                ? fmt::format("\nTable {} (vrf {}):\n", table.table(), table.vrf())
                                                : fmt::format("\nTable {}:\n", table.table());
        for (const auto& r : table.routes())
            format_route(r, out);
    }
    // An empty answer says so (a blank line reads as "srv6ctl hung" or "wrong socket").
    return out.empty() ? "No routes.\n" : out;
}

}  // namespace mgmt
