#include "fib/control/route_lookup.hh"

#include <cstring>

#include "fib/datapath/lpm_key.hh"

namespace fib {
namespace {

rib::ip6_addr at(const uint8_t* p) {
    rib::ip6_addr a;
    std::memcpy(a.bytes.data(), p, 16);
    return a;
}

// A leaf (non-ECMP) nexthop as a path.
lookup_path describe(const compiler& c, const compiled_nh& n, uint32_t weight) {
    lookup_path p;
    p.index = n.index();
    p.kind = n.kind();
    p.weight = weight;
    if (n.kind() == nh_kind::refused) {
        p.refusal = std::string(name(n.refusal()));
        if (const auto why = c.reason(n.index()); !why.empty())
            p.refusal += ": " + std::string(why);
    }
    const nh_via& via = n.via();
    if (n.kind() == nh_kind::forward || n.kind() == nh_kind::headend) {
        p.ifindex = via.ifindex;
        if (via.gw_family == static_cast<uint8_t>(rib::family::ipv4)) {
            rib::ip4_addr g;
            std::memcpy(g.bytes.data(), via.gw, 4);
            p.gateway = rib::ip_addr(g);
        } else if (via.gw_family == static_cast<uint8_t>(rib::family::ipv6)) {
            p.gateway = rib::ip_addr(at(via.gw));
        }
    }
    if (n.fields().has_encap)
        describe_encap(n.encap(), p);
    if (n.kind() == nh_kind::local_sid || (n.kind() == nh_kind::refused && n.sid().action != 0)) {
        const nh_sid& s = n.sid();
        p.behavior = static_cast<rib::behavior>(s.action);
        p.flavors = s.flavors;
        if (s.has_vrf)
            p.sid_vrf = s.vrf;
        p.sid_table = s.table;
        if (s.oif)
            p.ifindex = s.oif;
        if (s.has_nh6)
            p.gateway = rib::ip_addr(at(s.nh6));
        else if (s.has_nh4) {
            rib::ip4_addr g;
            std::memcpy(g.bytes.data(), s.nh4, 4);
            p.gateway = rib::ip_addr(g);
        }
    }
    return p;
}

}  // namespace

void describe_encap(const encap_template& t, lookup_path& out) {
    out.encap = static_cast<rib::encap_mode>(t.mode);
    if (t.len < ipv6_header_size)
        return;
    out.source = at(t.bytes + 8);
    // The SRH lists the segments last first; a reduced one (.Red) leaves the first SID out:
    // it is only in the destination address.
    if (t.srh_entries < t.n_segments)
        out.segments.push_back(at(t.bytes + 24));
    for (size_t i = t.srh_entries; i-- > 0;) {
        const size_t off = ipv6_header_size + srh_fixed_size + sid_size * i;
        if (off + sid_size > t.len)
            break;  // never past the template
        out.segments.push_back(at(t.bytes + off));
    }
}

lookup_result lookup_route(const compiler& c, const vrf::vrf_info& v, const rib::ip_addr& addr) {
    lookup_result r;
    r.vrf = v.id;
    r.table = v.table;
    const dataplane_view* view = c.current();
    if (view == nullptr)
        return r;
    r.epoch = view->epoch();
    r.nh = addr.is_v4() ? view->lookup4(v.id, key4(addr.bytes.data())) : view->lookup6(v.id, addr.bytes.data());
    // The LPM keeps intervals, not prefixes: the prefix is the longest installed route of the
    // table that covers the address, found through the compiler's per-route state.
    for (int len = rib::prefix::max_len(addr.af); len >= 0; --len) {
        const rib::route_key k{v.table, rib::prefix::make(addr, static_cast<uint8_t>(len)), {}};
        const auto info = c.find(k);
        if (info && info->state == route_state::installed && info->vrf == v.id) {
            r.prefix = k.dst;
            break;
        }
    }
    const compiled_nh& n = view->nexthop(r.nh);
    if (n.kind() == nh_kind::ecmp) {
        for (const auto& m : n.members())
            r.paths.push_back(describe(c, view->nexthop(m.nh), m.weight));
    } else {
        r.paths.push_back(describe(c, n, 1));
    }
    return r;
}

}  // namespace fib
