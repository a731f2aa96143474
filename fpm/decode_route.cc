// RTM_NEWROUTE / RTM_DELROUTE (linux/rtnetlink.h) as dplane_fpm_nl encodes them
// (fpm-protocol.md §2.3 - §2.9).
//
// Policy for bad input: what identifies the route (family, prefix lengths, RTA_DST, RTA_SRC,
// RTA_TABLE, the attribute walk itself) must be intact, otherwise the message is dropped, since
// applying it to a wrong key would damage another route. A malformed path attribute (OIF,
// GATEWAY, VIA, an rtnexthop) makes only that path unusable: the route is still emitted without
// it, and the RIB treats a unicast route left without paths as unresolved (traffic dropped).
#include <fmt/format.h>

#include <utility>

#include "fpm/decoder.hh"
#include "fpm/encap_pairs.hh"
#include "fpm/rtnl.hh"

namespace fpm {
namespace {

using rib::ip_addr;

std::optional<rib::route_type> route_type_of(uint8_t t) {
    switch (t) {
    case rtnl::rtn_unicast: return rib::route_type::unicast;
    case rtnl::rtn_local: return rib::route_type::local;
    case rtnl::rtn_blackhole: return rib::route_type::blackhole;
    case rtnl::rtn_unreachable: return rib::route_type::unreachable;
    case rtnl::rtn_prohibit: return rib::route_type::prohibit;
    default: return std::nullopt;
    }
}

// What one path is made of, at the top level (single path) or inside one rtnexthop.
struct path_attrs {
    std::optional<uint32_t> oif;
    std::optional<ip_addr> gateway;
    bool bad = false;  // an attribute of this path was unreadable: the path must not be used
    encap_pairs encaps;
    bool any() const { return oif || gateway || bad || !encaps.empty(); }
};

// RTA_GATEWAY: 4 or 16 bytes. An IPv4 route may have an IPv6 gateway (RFC 5549), not the reverse.
void gateway_attr(nl::bytes b, uint8_t family, path_attrs& p, decode_ctx& ctx) {
    if (p.gateway) {
        ctx.report(reason::attr_duplicate, "second gateway (RTA_GATEWAY/RTA_VIA)");
        return;
    }
    auto a = rtnl::addr_from_len(b);
    if (!a || (family == rtnl::af_inet6 && a->is_v4())) {
        ctx.report(reason::route_bad_gateway, fmt::format("RTA_GATEWAY of {} bytes", b.size()));
        p.bad = true;
        return;
    }
    p.gateway = *a;
}

// RTA_VIA: struct rtvia {u16 rtvia_family; u8 rtvia_addr[]}; FRR >= 10.6 uses it for IPv4 over
// an IPv6 nexthop.
void via_attr(nl::bytes b, uint8_t family, path_attrs& p, decode_ctx& ctx) {
    if (p.gateway) {
        ctx.report(reason::attr_duplicate, "second gateway (RTA_GATEWAY/RTA_VIA)");
        return;
    }
    const auto via_family = nl::get<uint16_t>(b);
    const size_t want = via_family && *via_family <= 0xff
                            ? rtnl::addr_size(static_cast<uint8_t>(*via_family))
                            : 0;
    std::optional<ip_addr> a;
    if (want != 0 && b.size() == 2 + want)
        a = rtnl::addr_from_len(b.subspan(2));
    if (!a || (family == rtnl::af_inet6 && a->is_v4())) {
        ctx.report(reason::route_bad_gateway,
                   fmt::format("RTA_VIA family {} with {} bytes", via_family.value_or(0), b.size()));
        p.bad = true;
        return;
    }
    p.gateway = *a;
}

// Gateway and encap attributes, shared by the single path and rtnexthop entries.
// False if `a` is none of them.
bool path_attr(const nl::attr& a, uint8_t family, path_attrs& p, decode_ctx& ctx) {
    switch (a.type) {
    case rtnl::rta::gateway:
        gateway_attr(a.payload, family, p, ctx);
        return true;
    case rtnl::rta::via:
        via_attr(a.payload, family, p, ctx);
        return true;
    case rtnl::rta::encap_type:
        p.encaps.on_type(a.payload, ctx);
        return true;
    case rtnl::rta::encap:
        p.encaps.on_nest(a.payload, ctx);
        return true;
    default:
        return false;
    }
}

void ignore_attr(const nl::attr& a, decode_ctx& ctx, const char* where) {
    ctx.report(reason::ignored_attr, fmt::format("{} attribute {}", where, a.type));
}

struct hop {
    rib::nexthop nh;
    encap_pairs encaps;
};

// RTA_MULTIPATH: rtnexthop {u16 len; u8 flags; u8 hops; s32 ifindex} + nested attributes,
// each entry aligned to 4. A broken entry header loses the framing of everything after it.
void multipath_attr(nl::bytes nest, uint8_t family, decode_ctx& ctx, std::vector<hop>& out) {
    nl::bytes rest = nest;
    while (!rest.empty()) {
        if (rest.size() < rtnl::rtnexthop_size) {
            ctx.report(reason::route_multipath_bad, fmt::format("{} stray bytes", rest.size()));
            return;
        }
        const uint16_t len = *nl::get<uint16_t>(rest);
        if (len < rtnl::rtnexthop_size || len > rest.size()) {
            ctx.report(reason::route_multipath_bad,
                       fmt::format("rtnh_len {} with {} bytes left", len, rest.size()));
            return;
        }
        const uint8_t flags = rest[2];
        const uint8_t hops = rest[3];
        const int32_t ifindex = *nl::get<int32_t>(rest.subspan(4));

        path_attrs p;
        nl::attr_walker w(rest.subspan(rtnl::rtnexthop_size, len - rtnl::rtnexthop_size));
        while (auto a = w.next())
            if (!path_attr(*a, family, p, ctx))
                ignore_attr(*a, ctx, "rtnexthop");
        p.encaps.finish(ctx);
        if (w.truncated()) {
            ctx.report(reason::attr_truncated, "inside an rtnexthop");
            p.bad = true;
        }
        if (!p.bad) {
            hop h;
            h.nh.ifindex = static_cast<uint32_t>(ifindex);
            h.nh.gateway = p.gateway;
            h.nh.onlink = (flags & rtnl::rtnh_f_onlink) != 0;
            h.nh.weight = static_cast<uint16_t>(hops + 1);  // rtnh_hops is weight - 1
            h.encaps = std::move(p.encaps);
            out.push_back(std::move(h));
        }
        const size_t step = nl::align4(len);
        rest = step >= rest.size() ? nl::bytes{} : rest.subspan(step);
    }
}

// RTA_METRICS: only RTAX_MTU matters to a forwarder.
void metrics_attr(nl::bytes nest, decode_ctx& ctx, std::optional<uint32_t>& mtu) {
    nl::attr_walker w(nest);
    while (auto a = w.next()) {
        if (a->type != rtnl::rtax_mtu) {
            ignore_attr(*a, ctx, "RTA_METRICS");
            continue;
        }
        if (auto v = nl::get_exact<uint32_t>(a->payload))
            mtu = *v;
        else
            ctx.report(reason::attr_bad_len, "RTAX_MTU is not a u32");
    }
    if (w.truncated())
        ctx.report(reason::attr_truncated, "inside RTA_METRICS");
}

// A u32 attribute that may appear once: false (after counting why) if it is unusable.
bool once_u32(const nl::attr& a, std::optional<uint32_t>& slot, decode_ctx& ctx, const char* name) {
    if (slot) {
        ctx.report(reason::attr_duplicate, name);
        return true;  // the first one stands
    }
    auto v = nl::get_exact<uint32_t>(a.payload);
    if (!v) {
        ctx.report(reason::attr_bad_len, fmt::format("{} of {} bytes", name, a.payload.size()));
        return false;
    }
    slot = *v;
    return true;
}

// RTA_DST / RTA_SRC: exactly the family's address size.
bool prefix_attr(const nl::attr& a, size_t addr_size, std::optional<ip_addr>& slot,
                 decode_ctx& ctx, const char* name) {
    if (slot) {
        ctx.report(reason::attr_duplicate, name);
        return true;
    }
    if (a.payload.size() != addr_size) {
        ctx.report(reason::route_dst_family, fmt::format("{} of {} bytes", name, a.payload.size()));
        return false;
    }
    slot = rtnl::addr_from_len(a.payload);
    return true;
}

rib::prefix make_prefix(const std::optional<ip_addr>& a, rib::family af, uint8_t len) {
    if (a)
        return rib::prefix::make(*a, len);
    return rib::prefix::make(af == rib::family::ipv4 ? ip_addr(rib::ip4_addr{}) : ip_addr(rib::ip6_addr{}),
                             len);
}

// The rtmsg header, checked: a family srv6d routes, prefix lengths that fit it, a route type it keeps.
struct route_header {
    rtnl::rtmsg rtm;
    rib::family af;
    rib::route_type type;  // unicast for a delete: only a NEWROUTE says what the route is
};

std::optional<route_header> read_header(const nl::message& m, bool is_new, decode_ctx& ctx) {
    const auto rtm = rtnl::read_rtmsg(m.body);
    if (!rtm) {
        ctx.report(reason::nlmsg_body_short, fmt::format("rtmsg of {} bytes", m.body.size()));
        return std::nullopt;
    }
    if (rtm->family == rtnl::af_mpls) {
        ctx.report(reason::ignored_family, "AF_MPLS");
        return std::nullopt;
    }
    if (rtm->family != rtnl::af_inet && rtm->family != rtnl::af_inet6) {
        ctx.report(reason::route_bad_family, fmt::format("rtm_family {}", rtm->family));
        return std::nullopt;
    }
    const auto af = static_cast<rib::family>(rtm->family);
    const uint8_t max_len = rib::prefix::max_len(af);
    if (rtm->dst_len > max_len || rtm->src_len > max_len) {
        ctx.report(reason::route_bad_prefix_len,
                   fmt::format("dst_len {} src_len {} for family {}", rtm->dst_len, rtm->src_len, rtm->family));
        return std::nullopt;
    }
    // Deletes carry rtm_type 0 (RTN_UNSPEC).
    rib::route_type type = rib::route_type::unicast;
    if (is_new) {
        const auto t = route_type_of(rtm->type);
        if (!t) {
            ctx.report(reason::ignored_route_type, fmt::format("rtm_type {}", rtm->type));
            return std::nullopt;
        }
        type = *t;
    }
    return route_header{*rtm, af, type};
}

// Everything the attribute walk collects.
struct route_attrs {
    std::optional<ip_addr> dst, src, prefsrc;
    std::optional<uint32_t> table, nh_id, priority, mtu;
    path_attrs single;
    bool have_multipath = false;
    std::vector<hop> hops;
    bool key_bad = false;  // RTA_DST, RTA_SRC or RTA_TABLE unreadable
};

// Walks the route's attributes into `r`; false when the walk was cut short.
bool walk_attrs(const nl::message& m, const rtnl::rtmsg& rtm, decode_ctx& ctx, route_attrs& r) {
    const size_t addr_size = rtnl::addr_size(rtm.family);
    nl::attr_walker w(m.body.subspan(rtnl::rtmsg_size));
    while (auto a = w.next()) {
        switch (a->type) {
        case rtnl::rta::dst:
            r.key_bad |= !prefix_attr(*a, addr_size, r.dst, ctx, "RTA_DST");
            break;
        case rtnl::rta::src:
            r.key_bad |= !prefix_attr(*a, addr_size, r.src, ctx, "RTA_SRC");
            break;
        case rtnl::rta::table:
            r.key_bad |= !once_u32(*a, r.table, ctx, "RTA_TABLE");
            break;
        case rtnl::rta::oif:
            r.single.bad |= !once_u32(*a, r.single.oif, ctx, "RTA_OIF");
            break;
        case rtnl::rta::nh_id:
            once_u32(*a, r.nh_id, ctx, "RTA_NH_ID");
            break;
        case rtnl::rta::priority:
            // Always 20 from zebra (SONiC: the route tag); never part of the key. Checked, not kept.
            once_u32(*a, r.priority, ctx, "RTA_PRIORITY");
            break;
        case rtnl::rta::prefsrc:
            if (r.prefsrc)
                ctx.report(reason::attr_duplicate, "RTA_PREFSRC");
            else if (a->payload.size() != addr_size)
                ctx.report(reason::attr_bad_len, fmt::format("RTA_PREFSRC of {} bytes", a->payload.size()));
            else
                r.prefsrc = rtnl::addr_from_len(a->payload);
            break;
        case rtnl::rta::metrics:
            metrics_attr(a->payload, ctx, r.mtu);
            break;
        case rtnl::rta::multipath:
            if (r.have_multipath) {
                ctx.report(reason::attr_duplicate, "RTA_MULTIPATH");
                break;
            }
            r.have_multipath = true;
            multipath_attr(a->payload, rtm.family, ctx, r.hops);
            break;
        default:
            if (!path_attr(*a, rtm.family, r.single, ctx))
                ignore_attr(*a, ctx, "route");
            break;
        }
    }
    r.single.encaps.finish(ctx);
    return !w.truncated();
}

// The paths of a NEWROUTE: a nexthop object's id, RTA_MULTIPATH's hops, or the one inline path.
void attach_paths(rib::route& r, route_attrs& a, const rtnl::rtmsg& rtm, decode_ctx& ctx) {
    if (a.nh_id) {
        // NHG mode: the object holds the paths. The kernel refuses inline paths next to an id.
        r.nh_id = a.nh_id;
        if (a.single.any() || a.have_multipath)
            ctx.report(reason::ignored_attr, "inline nexthop next to RTA_NH_ID");
    } else if (a.have_multipath) {
        if (a.single.any())
            ctx.report(reason::ignored_attr, "single-path attributes next to RTA_MULTIPATH");
        for (auto& h : a.hops) {
            h.encaps.apply(ctx, h.nh);
            r.nexthops.push_back(std::move(h.nh));
        }
    } else if (a.single.any() && !a.single.bad) {
        // The 169.254.0.1 + ONLINK form of IPv4 over IPv6 (FRR <= 10.5) is kept as sent: the
        // real IPv6 nexthop is not in the message.
        rib::nexthop nh;
        nh.ifindex = a.single.oif.value_or(0);
        nh.gateway = a.single.gateway;
        nh.onlink = (rtm.flags & rtnl::rtnh_f_onlink) != 0;
        a.single.encaps.apply(ctx, nh);
        r.nexthops.push_back(std::move(nh));
    }
}

}  // namespace

void decode_route(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    const bool is_new = m.hdr.type == rtnl::rtm_newroute;
    const auto h = read_header(m, is_new, ctx);
    if (!h)
        return;
    route_attrs a;
    if (!walk_attrs(m, h->rtm, ctx, a)) {
        // A cut walk may have lost RTA_DST or RTA_TABLE: the key is not known for sure.
        ctx.report(reason::attr_truncated, "route attributes");
        return;
    }
    if (a.key_bad)
        return;
    if ((!a.dst && h->rtm.dst_len > 0) || (!a.src && h->rtm.src_len > 0)) {
        ctx.report(reason::route_dst_family, !a.dst && h->rtm.dst_len > 0 ? "RTA_DST missing" : "RTA_SRC missing");
        return;
    }

    rib::route r;
    r.key.table = a.table ? *a.table : h->rtm.table;
    r.key.dst = make_prefix(a.dst, h->af, h->rtm.dst_len);  // no RTA_DST: the default route
    if (h->rtm.src_len > 0)
        r.key.src = make_prefix(a.src, h->af, h->rtm.src_len);
    if (!is_new) {
        out.push_back({dialect::netlink, route_delete{r.key}});
        return;
    }
    r.type = h->type;
    r.protocol = h->rtm.protocol;  // kept as sent: connected and FRR 10 local routes are both 2
    r.prefsrc = a.prefsrc;
    r.mtu = a.mtu;
    attach_paths(r, a, h->rtm, ctx);
    out.push_back({dialect::netlink, route_upsert{std::move(r)}});
}

}  // namespace fpm
