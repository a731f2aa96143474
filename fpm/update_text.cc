#include "fpm/update_text.hh"

#include <fmt/format.h>

#include <type_traits>

#include "rib/behaviors.hh"
#include "rib/sid_params.hh"

namespace fpm {
namespace {

std::string segments(const std::vector<rib::ip6_addr>& s) {
    std::string out;
    for (const auto& a : s)
        out += (out.empty() ? "" : ",") + rib::to_string(a);
    return out;
}

// iproute2's spelling, as in `ip route ... encap seg6 mode encap.red`.
std::string_view mode_name(rib::encap_mode m) {
    switch (m) {
    case rib::encap_mode::inline_srh: return "inline";
    case rib::encap_mode::encap: return "encap";
    case rib::encap_mode::l2encap: return "l2encap";
    case rib::encap_mode::encap_red: return "encap.red";
    case rib::encap_mode::l2encap_red: return "l2encap.red";
    case rib::encap_mode::inline_red: return "inline.red";
    }
    return "?";
}

void append_path(std::string& out, const rib::nexthop& nh) {
    if (nh.gateway)
        out += fmt::format(" via {}", rib::to_string(*nh.gateway));
    if (nh.ifindex)
        out += fmt::format(" dev {}", nh.ifindex);
    if (nh.onlink)
        out += " onlink";
    if (nh.weight != 1)
        out += fmt::format(" weight {}", nh.weight);
    if (!nh.mpls_labels.empty()) {
        out += " label";
        for (auto l : nh.mpls_labels)
            out += fmt::format(" {}", l);
    }
    if (nh.seg6) {
        out += fmt::format(" seg6 mode {} segs {}", mode_name(nh.seg6->mode), segments(nh.seg6->segments));
        if (!nh.seg6->sidlist_name.empty())
            out += " sidlist " + nh.seg6->sidlist_name;
    }
    if (nh.local)  // in [sids] syntax, as the parameter table prints it
        out += fmt::format(" seg6local {}{}", rib::behavior_name(nh.local->action), rib::print_params(*nh.local));
}

std::string route_text(const rib::route& r) {
    std::string out = fmt::format("+route {}", rib::to_string(r.key.dst));
    if (r.key.src.len)
        out += " from " + rib::to_string(r.key.src);
    out += fmt::format(" table {}", r.key.table);
    if (r.type != rib::route_type::unicast)
        out += fmt::format(" {}", rib::route_type_name(r.type));
    out += fmt::format(" proto {}", r.protocol);
    if (r.nh_id)
        out += fmt::format(" nh {}", *r.nh_id);
    if (r.pic_id)
        out += fmt::format(" pic {}", *r.pic_id);
    for (size_t i = 0; i < r.nexthops.size(); ++i) {
        if (r.nexthops.size() > 1)
            out += fmt::format(" [{}]", i);
        append_path(out, r.nexthops[i]);
    }
    return out;
}

std::string nexthop_text(std::string_view what, const rib::nexthop_object& nh) {
    std::string out = fmt::format("+{} {}", what, nh.id);
    if (nh.blackhole)
        out += " blackhole";
    if (nh.is_group()) {
        out += " group ";
        for (size_t i = 0; i < nh.group.size(); ++i)
            out += fmt::format("{}{}{}", i ? "," : "", nh.group[i].id,
                               nh.group[i].weight != 1 ? fmt::format("/{}", nh.group[i].weight) : "");
    }
    if (nh.path)
        append_path(out, *nh.path);
    return out;
}

}  // namespace

std::string to_string(const update& u) {
    std::string out = std::visit(
        [](const auto& b) -> std::string {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, route_upsert>)
                return route_text(b.route);
            else if constexpr (std::is_same_v<T, route_delete>)
                return fmt::format("-route {}{} table {}", rib::to_string(b.key.dst),
                                   b.key.src.len ? " from " + rib::to_string(b.key.src) : "", b.key.table);
            else if constexpr (std::is_same_v<T, nexthop_upsert>)
                return nexthop_text("nh", b.nh);
            else if constexpr (std::is_same_v<T, nexthop_delete>)
                return fmt::format("-nh {}", b.id);
            else if constexpr (std::is_same_v<T, pic_context_upsert>)
                return nexthop_text("pic", b.nh);
            else if constexpr (std::is_same_v<T, pic_context_delete>)
                return fmt::format("-pic {}", b.id);
            else if constexpr (std::is_same_v<T, sidlist_upsert>)
                return fmt::format("+sidlist {} {}", b.name, segments(b.segments));
            else {
                static_assert(std::is_same_v<T, sidlist_delete>, "a new update kind needs its text");
                return fmt::format("-sidlist {}", b.name);
            }
        },
        u.body);
    if (u.from == dialect::sonic)
        out += " (sonic)";
    else if (u.from == dialect::protobuf)
        out += " (protobuf)";
    return out;
}

}  // namespace fpm
