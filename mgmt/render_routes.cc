#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "rib/behaviors.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {
namespace {

// vtysh order: IPv4 before IPv6, then by address, a covering prefix before what it covers.
bool display_order(const rib::route* a, const rib::route* b) {
    const auto& x = a->key;
    const auto& y = b->key;
    return std::tie(x.dst.af, x.dst.bytes, x.dst.len, x.src) < std::tie(y.dst.af, y.dst.bytes, y.dst.len, y.src);
}

}  // namespace

void render_route(const rib::store& rib, const rib::route& r, pb::Route& out) {
    out.set_prefix(rib::to_string(r.key.dst));
    if (r.key.src.len > 0)
        out.set_source(rib::to_string(r.key.src));
    out.set_table(r.key.table);
    out.set_protocol(r.protocol);
    out.set_protocol_name(protocol_name(r.protocol));
    out.set_type(std::string(rib::route_type_name(r.type)));
    if (r.nh_id)
        out.set_nh_id(*r.nh_id);
    const rib::resolution res = rib.resolve(r);
    out.set_resolve_state(std::string(resolve_state_name(res.state)));
    for (uint32_t id : res.missing_ids)
        out.add_missing_ids(id);
    for (const auto& p : res.paths) {
        auto* nh = out.add_nexthops();
        render_nexthop(p.path, *nh);
        nh->set_nh_id(p.nh_id);
    }
    if (r.prefsrc)
        out.set_prefsrc(rib::to_string(*r.prefsrc));
    if (r.mtu)
        out.set_mtu(*r.mtu);
    if (r.pic_id)
        out.set_pic_id(*r.pic_id);
}

void render_seg6(const rib::seg6_encap& e, pb::Seg6Encap& out) {
    out.set_mode(std::string(encap_mode_name(e.mode)));
    for (const auto& s : e.segments)
        out.add_segments(rib::to_string(s));
    if (e.source)
        out.set_source(rib::to_string(*e.source));
    if (!e.sidlist_name.empty())
        out.set_sidlist(printable(e.sidlist_name));
}

void render_seg6local(const rib::seg6local& l, pb::Seg6Local& out) {
    out.set_behavior(std::string(rib::behavior_display_name(l.action, l.flavors)));
    out.set_action(static_cast<uint32_t>(l.action));
    for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if (!(l.flavors & bit))
            continue;
        const std::string_view n = rib::flavor_name(bit);
        out.add_flavors(n.empty() ? fmt::format("{:#x}", bit) : std::string(n));
    }
    if (l.lcblock_bits)
        out.set_lcblock_bits(*l.lcblock_bits);
    if (l.lcnode_fn_bits)
        out.set_lcnode_fn_bits(*l.lcnode_fn_bits);
    if (l.table)
        out.set_table(*l.table);
    if (l.vrftable)
        out.set_vrftable(*l.vrftable);
    if (l.nh4)
        out.set_nh4(rib::to_string(*l.nh4));
    if (l.nh6)
        out.set_nh6(rib::to_string(*l.nh6));
    if (l.oif)
        out.set_oif(*l.oif);
    if (l.srh)
        render_seg6(*l.srh, *out.mutable_srh());
    if (l.structure) {
        auto* s = out.mutable_structure();
        s->set_block_len(l.structure->block_len);
        s->set_node_len(l.structure->node_len);
        s->set_func_len(l.structure->func_len);
        s->set_arg_len(l.structure->arg_len);
    }
    if (!l.vrf_name.empty())
        out.set_vrf_name(printable(l.vrf_name));
    if (!l.ifname.empty())
        out.set_ifname(printable(l.ifname));
}

void render_nexthop(const rib::nexthop& nh, pb::Nexthop& out) {
    if (nh.gateway)
        out.set_gateway(rib::to_string(*nh.gateway));
    out.set_ifindex(nh.ifindex);
    out.set_onlink(nh.onlink);
    out.set_weight(nh.weight);
    for (uint32_t label : nh.mpls_labels)
        out.add_labels(label);
    if (nh.seg6)
        render_seg6(*nh.seg6, *out.mutable_seg6());
    if (nh.local)
        render_seg6local(*nh.local, *out.mutable_seg6local());
}

pb::RouteTables render_routes(const rib::store& rib, std::optional<rib::table_id> table) {
    route_filter f;
    f.table = table;
    return render_routes(rib, f);
}

pb::RouteTables render_routes(const rib::store& rib, const route_filter& f) {
    // routes() has no order: group by table here (tables in ascending order), sort each below.
    std::map<rib::table_id, std::vector<const rib::route*>> tables;
    if (f.table)
        tables[*f.table];  // asked for: listed, empty or not
    for (const auto& [key, r] : rib.routes()) {
        if (f.table && key.table != *f.table)
            continue;
        if (f.family && key.dst.af != *f.family)
            continue;
        if (f.prefix && key.dst != *f.prefix)
            continue;
        if (f.address && !key.dst.contains(*f.address))
            continue;
        tables[key.table].push_back(&r);
    }
    pb::RouteTables out;
    for (auto& [id, routes] : tables) {
        if (f.address && !routes.empty()) {
            // vtysh's `show ip route ADDR`: the longest prefix covering it (source-specific
            // routes of that prefix too).
            uint8_t longest = 0;
            for (const rib::route* r : routes)
                longest = std::max(longest, r->key.dst.len);
            std::erase_if(routes, [&](const rib::route* r) { return r->key.dst.len != longest; });
        }
        if (routes.empty() && (f.prefix || f.address))
            continue;
        std::sort(routes.begin(), routes.end(), display_order);
        auto* t = out.add_tables();
        t->set_table(id);
        for (const rib::route* r : routes)
            render_route(rib, *r, *t->add_routes());
    }
    return out;
}

}  // namespace mgmt
