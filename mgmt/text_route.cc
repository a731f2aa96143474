// `show route ADDR`: one line for the match, one per path, in the words of `show ip route`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

std::string interface(const pb::LookupPath& p) {
    if (p.ifindex() == 0)
        return {};
    // No name: the number alone, as show routes prints it.
    std::string out = p.ifname().empty() ? fmt::format(", ifindex {}", p.ifindex())
                                         : fmt::format(", dev {} (ifindex {}", p.ifname(), p.ifindex());
    if (p.has_port())
        out += p.ifname().empty() ? " (port " + p.port() : ", port " + p.port();
    return out + (p.ifname().empty() && !p.has_port() ? "" : ")");
}

std::string format_lookup_path(const pb::LookupPath& p) {
    std::string out = p.kind();
    if (p.has_behavior()) {
        out += " " + p.behavior();
        if (p.flavors_size())
            out += fmt::format(" ({})", fmt::join(p.flavors(), ","));
        if (p.has_sid_vrf())
            out += " vrf " + p.sid_vrf();
    }
    if (p.has_encap()) {
        out += fmt::format(" {} segs {}", p.encap(), fmt::join(p.segments(), ","));
        if (p.has_source())
            out += " src " + p.source();
    }
    if (p.has_gateway())
        out += (p.has_encap() ? ", via " : " via ") + p.gateway();
    out += interface(p);
    if (!p.refusal().empty())
        out += ": " + p.refusal();
    return out;
}

}  // namespace

std::string format_route_lookup(const pb::RouteLookup& r) {
    std::string out = fmt::format("{} in vrf {} (table {}): ", r.address(), r.vrf(), r.table());
    if (r.epoch() == 0)
        return out + "no tables compiled yet\n";
    if (!r.has_prefix())
        out += fmt::format("no route (nexthop {}: {})\n", r.nh_index(), r.nh_kind());
    else
        out += fmt::format("{}{} nexthop {} ({})\n", r.prefix(),
                           r.has_protocol_name() ? " [" + r.protocol_name() + "]" : "", r.nh_index(), r.nh_kind());
    const bool ecmp = r.paths_size() > 1 || r.nh_kind() == "ecmp";
    for (const auto& p : r.paths()) {
        if (!r.has_prefix() && p.kind() == "miss")
            continue;  // the head line said it
        out += "  ";
        if (ecmp)
            out += fmt::format("[nh {} weight {}] ", p.nh_index(), p.weight());
        out += format_lookup_path(p) + "\n";
    }
    return out;
}

}  // namespace mgmt
