// SONiC NHG-mode SRv6 VPN routes (RTM_NEWSRV6VPNROUTE 3000 / RTM_DELSRV6VPNROUTE 3001): an
// rtmsg with RTA_* attributes whose path is a type-101 encap nest naming a PIC context.
#include <algorithm>

#include <fmt/format.h>

#include "fpm/encap_pairs.hh"
#include "fpm/sonic_parsers.hh"
#include "fpm/sonic_wire.hh"

namespace fpm::sonic {
namespace {

struct vpn_encap {
    std::optional<rib::ip6_addr> vpn_sid;
    std::optional<rib::ip6_addr> src;
    std::optional<uint32_t> pic_id;
    std::optional<uint32_t> nh_id;
};

bool parse_vpn_encap(nl::bytes nest, decode_ctx& ctx, vpn_encap& out) {
    nl::attr_walker w(nest);
    while (auto a = w.next()) {
        bool ok = true;
        switch (a->type) {
        case encap_attr::vpn_sid: ok = (out.vpn_sid = get_ip6(a->payload)).has_value(); break;
        case encap_attr::encap_src_addr: ok = (out.src = get_ip6(a->payload)).has_value(); break;
        case encap_attr::pic_id: ok = (out.pic_id = nl::get_exact<uint32_t>(a->payload)).has_value(); break;
        case encap_attr::nh_id: ok = (out.nh_id = nl::get_exact<uint32_t>(a->payload)).has_value(); break;
        default:
            ctx.report(reason::ignored_attr, fmt::format("SONiC SRv6 encap attribute {}", a->type));
            break;
        }
        if (!ok) {
            ctx.report(reason::sonic_bad_vpn_encap,
                       fmt::format("attribute {} of {} bytes", a->type, a->payload.size()));
            return false;
        }
    }
    if (w.truncated()) {
        ctx.report(reason::sonic_bad_vpn_encap, "truncated nest");
        return false;
    }
    return true;
}

// The type-101 nest among the route's encap pairs; false after reporting.
bool find_vpn_encap(const encap_pairs& pairs, decode_ctx& ctx, std::optional<vpn_encap>& out) {
    for (const auto& p : pairs.pairs()) {
        if (p.type != encap_srv6) {
            ctx.report(reason::ignored_encap_type, fmt::format("SONiC VPN route encap type {}", p.type));
        } else if (out) {
            ctx.report(reason::attr_duplicate, "second type-101 encap; the first one is kept");
        } else {
            vpn_encap e;
            if (!parse_vpn_encap(p.nest, ctx, e))
                return false;
            out = e;
        }
    }
    return true;
}

}  // namespace

void decode_vpn_route(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    const bool is_new = m.hdr.type == rtm_newsrv6vpnroute;
    const auto rtm = read_rtmsg(m.body, ctx);
    if (!rtm)
        return;
    if (rtm->family != rtnl::af_inet && rtm->family != rtnl::af_inet6) {
        ctx.report(reason::route_bad_family, fmt::format("SONiC VPN route with family {}", rtm->family));
        return;
    }
    const auto af = rtm->family == rtnl::af_inet ? rib::family::ipv4 : rib::family::ipv6;
    if (rtm->dst_len > rib::prefix::max_len(af)) {
        ctx.report(reason::route_bad_prefix_len, fmt::format("SONiC VPN route /{}", rtm->dst_len));
        return;
    }

    rib::ip_addr dst;
    dst.af = af;
    bool have_dst = false;
    std::optional<uint32_t> table;
    encap_pairs encaps;
    nl::attr_walker w(m.body.subspan(rtnl::rtmsg_size));
    while (auto a = w.next()) {
        switch (a->type) {
        case rtnl::rta::dst:
            if (a->payload.size() != rtnl::addr_size(rtm->family)) {
                ctx.report(reason::route_dst_family, fmt::format("RTA_DST of {} bytes", a->payload.size()));
                return;
            }
            std::copy(a->payload.begin(), a->payload.end(), dst.bytes.begin());
            have_dst = true;
            break;
        case rtnl::rta::table:
            table = nl::get_exact<uint32_t>(a->payload);
            if (!table) {
                ctx.report(reason::attr_bad_len, fmt::format("RTA_TABLE of {} bytes", a->payload.size()));
                return;
            }
            break;
        case rtnl::rta::encap_type:
            if (is_new)
                encaps.on_type(a->payload, ctx);
            break;
        case rtnl::rta::encap:
            if (is_new)  // a delete is keyed by prefix and table only
                encaps.on_nest(a->payload, ctx);
            break;
        default:
            ctx.report(reason::ignored_attr, fmt::format("SONiC VPN route attribute {}", a->type));
            break;
        }
    }
    encaps.finish(ctx);
    if (w.truncated()) {
        ctx.report(reason::attr_truncated, "SONiC VPN route attributes");
        return;
    }
    if (!have_dst && rtm->dst_len != 0) {
        ctx.report(reason::route_dst_family, fmt::format("/{} without RTA_DST", rtm->dst_len));
        return;
    }

    // SONiC puts the VRF's ifindex here, not a table id; the update's dialect says so.
    rib::route_key key;
    key.table = table ? *table : rtm->table;
    key.dst = rib::prefix::make(dst, rtm->dst_len);
    if (!is_new) {
        out.push_back(update{dialect::sonic, route_delete{key}});
        return;
    }
    std::optional<vpn_encap> encap;
    if (!find_vpn_encap(encaps, ctx, encap))
        return;
    if (!encap) {
        ctx.report(reason::sonic_bad_vpn_encap, "no type-101 encap");
        return;
    }
    if (!encap->pic_id && !encap->vpn_sid) {
        ctx.report(reason::sonic_bad_vpn_encap, "neither PIC_ID nor VPN_SID");
        return;
    }

    rib::route r;
    r.key = key;
    r.type = rib::route_type::unicast;
    r.protocol = rtm->protocol;
    r.pic_id = encap->pic_id;
    if (encap->nh_id && *encap->nh_id != 0)
        r.nh_id = encap->nh_id;  // 0 = no PIC nexthop (what SONiC sends today)
    if (encap->vpn_sid) {
        rib::seg6_encap s;
        s.mode = rib::encap_mode::encap;
        s.segments.push_back(*encap->vpn_sid);
        if (encap->src && !encap->src->is_zero())
            s.source = encap->src;  // SONiC sends :: when it found no usable address
        rib::nexthop nh;
        nh.seg6 = std::move(s);
        r.nexthops.push_back(std::move(nh));
    }
    out.push_back(update{dialect::sonic, route_upsert{std::move(r)}});
}

}  // namespace fpm::sonic
