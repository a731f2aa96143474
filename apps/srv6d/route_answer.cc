#include "apps/srv6d/route_answer.hh"

#include <fmt/format.h>

#include "fib/control/route_lookup.hh"
#include "mgmt/names.hh"
#include "rib/behaviors.hh"

namespace srv6d {

void answer_show_route(const ::mgmt::pb::ShowRoute& req, const fib::compiler& c, const vrf::registry& reg,
                       const rib::store& r, const interface_names& names, ::mgmt::pb::Response& resp) {
    const auto addr = rib::parse_addr(req.address());
    if (!addr) {
        resp.set_error(fmt::format("'{}' is not an IPv4 or IPv6 address", ::mgmt::printable(req.address())));
        return;
    }
    const vrf::vrf_info* v = req.has_vrf() ? reg.find(req.vrf()) : reg.find(vrf::default_vrf_id);
    if (v == nullptr) {
        resp.set_error(fmt::format("vrf {} is not known (neither configured nor a kernel VRF device)",
                                   ::mgmt::printable(req.vrf())));
        return;
    }
    if (v->state != vrf::vrf_state::active) {
        resp.set_error(fmt::format("vrf {} is not active ({}): the dataplane has no tables for it",
                                   ::mgmt::printable(v->name), v->reason));
        return;
    }
    const fib::lookup_result res = fib::lookup_route(c, *v, *addr);
    auto& o = *resp.mutable_route();
    o.set_address(rib::to_string(*addr));
    o.set_vrf(v->name);
    o.set_vrf_id(v->id);
    o.set_table(v->table);
    o.set_epoch(res.epoch);
    o.set_nh_index(res.nh);
    o.set_nh_kind(res.epoch ? std::string(fib::name(c.current()->nexthop(res.nh).kind())) : "miss");
    if (res.prefix) {
        o.set_prefix(rib::to_string(*res.prefix));
        if (const rib::route* rt = r.find_route({v->table, *res.prefix, {}}))
            o.set_protocol_name(std::string(::mgmt::protocol_name(rt->protocol)));
    }
    for (const auto& p : res.paths) {
        auto& lp = *o.add_paths();
        lp.set_nh_index(p.index);
        lp.set_kind(std::string(fib::name(p.kind)));
        lp.set_weight(p.weight);
        if (p.gateway)
            lp.set_gateway(rib::to_string(*p.gateway));
        lp.set_ifindex(p.ifindex);
        if (p.ifindex) {
            lp.set_ifname(names.kernel_name(p.ifindex));
            if (names.port)
                if (auto port = names.port(p.ifindex))
                    lp.set_port(*port);
        }
        if (p.encap)
            lp.set_encap(std::string(::mgmt::encap_mode_name(*p.encap)));
        for (const auto& s : p.segments)
            lp.add_segments(rib::to_string(s));
        if (p.source)
            lp.set_source(rib::to_string(*p.source));
        if (p.behavior) {
            lp.set_behavior(std::string(rib::behavior_display_name(*p.behavior, p.flavors)));
            for (uint32_t bit = 1; bit; bit <<= 1)
                if ((p.flavors & bit) && !rib::flavor_name(bit).empty())
                    lp.add_flavors(std::string(rib::flavor_name(bit)));
        }
        // The VRF End.T looks up in and End.DT* decapsulate into; the others' is their own.
        using b = rib::behavior;
        const bool into = p.behavior && (*p.behavior == b::end_t || *p.behavior == b::end_dt4 ||
                                         *p.behavior == b::end_dt6 || *p.behavior == b::end_dt46);
        if (p.sid_vrf && into) {
            const vrf::vrf_info* sv = reg.find(*p.sid_vrf);
            lp.set_sid_vrf(sv ? sv->name : std::to_string(*p.sid_vrf));
        }
        lp.set_refusal(p.refusal);
    }
}

}  // namespace srv6d
