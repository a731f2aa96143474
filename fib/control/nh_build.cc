#include "fib/control/nh_build.hh"

#include <fmt/format.h>

#include <algorithm>

#include "rib/behaviors.hh"
#include "fib/control/encap_build.hh"
#include "vrf/sid_binding.hh"

namespace fib {

nh_refusal to_nh_refusal(vrf::sid_refusal r) {
    switch (r) {
    case vrf::sid_refusal::none: return nh_refusal::none;
    case vrf::sid_refusal::table_unbound: return nh_refusal::sid_table_unbound;
    case vrf::sid_refusal::vrf_unknown: return nh_refusal::sid_vrf_unknown;
    case vrf::sid_refusal::vrf_not_active: return nh_refusal::sid_vrf_not_active;
    case vrf::sid_refusal::vrf_mismatch: return nh_refusal::sid_vrf_mismatch;
    case vrf::sid_refusal::no_table: return nh_refusal::sid_no_table;
    case vrf::sid_refusal::unsupported: return nh_refusal::sid_unsupported;
    case vrf::sid_refusal::bad_flavor: return nh_refusal::sid_bad_flavor;
    }
    return nh_refusal::none;
}

namespace {

nh_refusal from_encap(encap_refusal r) {
    switch (r) {
    case encap_refusal::none: return nh_refusal::none;
    case encap_refusal::insert_unsupported: return nh_refusal::encap_insert_unsupported;
    case encap_refusal::no_segments: return nh_refusal::encap_no_segments;
    case encap_refusal::too_many_segments: return nh_refusal::encap_too_many_segments;
    case encap_refusal::no_source: return nh_refusal::encap_no_source;
    }
    return nh_refusal::none;
}

nh_via via_of(const rib::nexthop& p) {
    nh_via v;
    v.ifindex = p.ifindex;
    v.onlink = p.onlink ? 1 : 0;
    if (p.gateway) {
        v.gw_family = static_cast<uint8_t>(p.gateway->af);
        std::copy(p.gateway->bytes.begin(), p.gateway->bytes.end(), v.gw);
    }
    return v;
}

void refuse(nh_built& b, nh_refusal r, std::string why) {
    b.fields.kind = nh_kind::refused;
    b.fields.refusal = r;
    b.tmpl.reset();
    b.reason = std::move(why);
}

// Resolves the source and builds the template; false (and `b` refused) when it cannot.
bool encap(nh_built& b, const rib::seg6_encap& e, uint8_t inner_proto, const nh_inputs& in, std::string_view what) {
    std::vector<rib::ip6_addr> sidlist_segments;
    const std::vector<rib::ip6_addr>* segments = &e.segments;
    if (e.segments.empty() && !e.sidlist_name.empty()) {
        b.sidlist = e.sidlist_name;
        auto it = in.sidlists.find(e.sidlist_name);
        if (it == in.sidlists.end()) {
            refuse(b, nh_refusal::sidlist_unknown, fmt::format("{}: SID list {} is not known", what, e.sidlist_name));
            return false;
        }
        segments = &it->second;
    }
    const vrf::encap_src s = in.src.resolve(e);
    b.uses_global_src = s.origin != vrf::encap_origin::route;
    if (!is_insert(e.mode) && !s.ok()) {  // H.Insert(.Red): the packet keeps its own source
        refuse(b, nh_refusal::encap_no_source, fmt::format("{}: no encapsulation source: {}", what, to_string(s)));
        return false;
    }
    const auto built = build_encap_template(e.mode, *segments, s.addr.value_or(rib::ip6_addr{}), inner_proto);
    if (!built.ok()) {
        refuse(b, from_encap(built.refusal), fmt::format("{}: {}", what, name(built.refusal)));
        return false;
    }
    b.tmpl = built.tmpl;
    return true;
}

void local_sid(nh_built& b, const rib::seg6local& l, const rib::nexthop& p, const nh_inputs& in, vrf::vrf_id owner) {
    auto& s = b.fields.sid;
    s.action = static_cast<uint16_t>(l.action);
    s.flavors = l.flavors;
    if (l.flavors & rib::flavor::next_csid) {  // the worker applies exactly these
        const rib::csid_lengths c = rib::csid_of(l);
        s.lcblock_bits = c.block;
        s.lcnode_fn_bits = c.node_fn;
    }
    s.table = l.decap_table().value_or(0);
    s.oif = l.oif.value_or(p.ifindex);
    if (l.nh4) {
        s.has_nh4 = 1;
        std::copy(l.nh4->bytes.begin(), l.nh4->bytes.end(), s.nh4);
    }
    if (l.nh6) {
        s.has_nh6 = 1;
        std::copy(l.nh6->bytes.begin(), l.nh6->bytes.end(), s.nh6);
    }
    b.fields.kind = nh_kind::local_sid;
    b.fields.via = via_of(p);

    b.uses_registry = vrf::needs_vrf(l.action);
    // The behavior contract first (a behavior without a datapath handler, a flavor it does not
    // take: refused, never active-and-dropping), then the VRF binding.
    const vrf::sid_binding bound = vrf::bind_sid(l, in.reg);
    if (!bound.active) {
        refuse(b, to_nh_refusal(bound.why), bound.reason);
        return;
    }
    s.has_vrf = 1;
    s.vrf = bound.vrf.value_or(owner);
    // End.B6.Encaps(.Red): the SID's policy is pushed as a new outer header, built here as any
    // headend's (the source resolved the same way), and stored in the SID's nexthop.
    if (const rib::behavior_info* row = rib::find_behavior(l.action); row && row->handler == rib::dp_handler::b6_encaps) {
        if (!l.srh || (l.srh->mode != rib::encap_mode::encap && l.srh->mode != rib::encap_mode::encap_red)) {
            refuse(b, nh_refusal::sid_unsupported, "End.B6.Encaps: its policy is not an H.Encaps or H.Encaps.Red SID list");
            return;
        }
        encap(b, *l.srh, ipproto::ipv6, in, "End.B6.Encaps policy");
    }
}

}  // namespace

nh_built build_path_nh(rib::family af, const rib::nexthop& path, const nh_inputs& in, vrf::vrf_id owner) {
    nh_built b;
    if (path.local) {
        local_sid(b, *path.local, path, in, owner);
        return b;
    }
    b.fields.via = via_of(path);
    if (path.seg6) {
        b.fields.kind = nh_kind::headend;
        // H.Insert puts an SRH into an IPv6 packet: an IPv4 route has none (the kernel refuses
        // `mode inline` for IPv4 routes too).
        if (is_insert(path.seg6->mode) && af == rib::family::ipv4) {
            refuse(b, nh_refusal::encap_insert_unsupported, "IPv4 route encap: H.Insert needs an IPv6 packet");
            return b;
        }
        encap(b, *path.seg6, af == rib::family::ipv4 ? ipproto::ipip : ipproto::ipv6, in,
              af == rib::family::ipv4 ? "IPv4 route encap" : "IPv6 route encap");
        return b;
    }
    b.fields.kind = nh_kind::forward;
    return b;
}

}  // namespace fib
