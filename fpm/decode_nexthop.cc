// RTM_NEWNEXTHOP / RTM_DELNEXTHOP (linux/nexthop.h) as dplane_fpm_nl encodes them
// (fpm-protocol.md §2.10).
//
// Same policy as routes: without a usable NHA_ID the message is dropped; a malformed gateway or
// OIF leaves the object without a path (unresolved), a malformed group entry is left out.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "fpm/decoder.hh"
#include "fpm/encap_pairs.hh"
#include "fpm/rtnl.hh"

namespace fpm {
namespace {

struct nh_attrs {
    std::optional<uint32_t> id;
    bool id_bad = false;
    bool have_group = false;
    nl::bytes group;
    std::optional<uint16_t> group_type;
    bool blackhole = false;
    std::optional<uint32_t> oif;
    std::optional<rib::ip_addr> gateway;
    bool path_bad = false;
    encap_pairs encaps;
    bool any_path() const { return oif || gateway || path_bad || !encaps.empty(); }
};

void u32_attr(const nl::attr& a, std::optional<uint32_t>& slot, bool& bad, decode_ctx& ctx,
              const char* name) {
    if (slot) {
        ctx.report(reason::attr_duplicate, name);
        return;
    }
    if (auto v = nl::get_exact<uint32_t>(a.payload)) {
        slot = *v;
        return;
    }
    ctx.report(reason::attr_bad_len, fmt::format("{} of {} bytes", name, a.payload.size()));
    bad = true;
}

void walk(nl::bytes attrs, nh_attrs& n, decode_ctx& ctx) {
    nl::attr_walker w(attrs);
    while (auto a = w.next()) {
        switch (a->type) {
        case rtnl::nha::id:
            u32_attr(*a, n.id, n.id_bad, ctx, "NHA_ID");
            break;
        case rtnl::nha::group:
            if (n.have_group) {
                ctx.report(reason::attr_duplicate, "NHA_GROUP");
                break;
            }
            n.have_group = true;
            n.group = a->payload;
            break;
        case rtnl::nha::group_type:
            if (n.group_type)
                ctx.report(reason::attr_duplicate, "NHA_GROUP_TYPE");
            else if (auto t = nl::get_exact<uint16_t>(a->payload))
                n.group_type = *t;
            else
                ctx.report(reason::attr_bad_len, "NHA_GROUP_TYPE is not a u16");
            break;
        case rtnl::nha::blackhole:
            if (a->payload.empty())
                n.blackhole = true;
            else
                ctx.report(reason::attr_bad_len, "NHA_BLACKHOLE with a payload");
            break;
        case rtnl::nha::oif:
            u32_attr(*a, n.oif, n.path_bad, ctx, "NHA_OIF");
            break;
        case rtnl::nha::gateway:
            if (n.gateway) {
                ctx.report(reason::attr_duplicate, "NHA_GATEWAY");
            } else if (auto g = rtnl::addr_from_len(a->payload)) {
                // The length gives the family: nh_family is the route's for v4-over-v6 (8.4.4).
                n.gateway = *g;
            } else {
                ctx.report(reason::route_bad_gateway, fmt::format("NHA_GATEWAY of {} bytes", a->payload.size()));
                n.path_bad = true;
            }
            break;
        case rtnl::nha::encap_type:
            n.encaps.on_type(a->payload, ctx);
            break;
        case rtnl::nha::encap:
            n.encaps.on_nest(a->payload, ctx);
            break;
        case rtnl::nha::res_group:
            break;  // resilient-group bucket tuning: kernel business, not forwarding state
        default:
            ctx.report(reason::ignored_attr, fmt::format("nexthop attribute {}", a->type));
            break;
        }
    }
    n.encaps.finish(ctx);
    if (w.truncated()) {
        // Unlike a route key, an id that was read stays valid; what was lost is path data.
        ctx.report(reason::attr_truncated, "nexthop attributes");
        n.path_bad = true;
    }
}

// NHA_GROUP: struct nexthop_grp {u32 id; u8 weight; u8 weight_high; u16 resvd2}.
void decode_group(nl::bytes b, uint32_t self, decode_ctx& ctx, std::vector<rib::nexthop_group_member>& out) {
    if (b.size() % rtnl::nexthop_grp_size != 0) {
        // Entries are misaligned: none of them can be trusted.
        ctx.report(reason::nh_bad_group, fmt::format("NHA_GROUP of {} bytes", b.size()));
        return;
    }
    for (size_t off = 0; off < b.size(); off += rtnl::nexthop_grp_size) {
        const nl::bytes e = b.subspan(off, rtnl::nexthop_grp_size);
        const uint32_t id = *nl::get<uint32_t>(e);
        if (id == 0) {
            ctx.report(reason::nh_bad_group, fmt::format("group {} lists id 0", self));
            continue;
        }
        if (id == self) {
            ctx.report(reason::nh_group_self, fmt::format("group {}", self));
            continue;
        }
        // weight = ((weight_high << 8) | weight) + 1, so 1..65536; fib keeps a u16, and 65536
        // (only with FRR's --nexthop-weight-16-bit) is clamped to 65535, a 0.002 % skew.
        const uint32_t w = (static_cast<uint32_t>(e[5]) << 8 | e[4]) + 1;
        out.push_back({id, static_cast<uint16_t>(std::min<uint32_t>(w, 0xffff))});
    }
}

}  // namespace

void decode_nexthop(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    const auto nhm = rtnl::read_nhmsg(m.body);
    if (!nhm) {
        ctx.report(reason::nlmsg_body_short, fmt::format("nhmsg of {} bytes", m.body.size()));
        return;
    }
    nh_attrs n;
    walk(m.body.subspan(rtnl::nhmsg_size), n, ctx);
    if (!n.id || *n.id == 0) {
        if (!n.id_bad)  // a wrongly sized NHA_ID was counted as attr_bad_len already
            ctx.report(reason::nh_no_id, n.id ? "NHA_ID 0" : "");
        return;
    }
    if (m.hdr.type == rtnl::rtm_delnexthop) {
        out.push_back({dialect::netlink, nexthop_delete{*n.id}});
        return;
    }

    rib::nexthop_object obj;
    obj.id = *n.id;
    obj.protocol = nhm->protocol;
    if (n.have_group) {
        decode_group(n.group, obj.id, ctx, obj.group);
        obj.resilient = n.group_type == rtnl::nexthop_grp_type_resilient;
    } else if (n.blackhole) {
        obj.blackhole = true;
    } else if (n.any_path() && !n.path_bad) {
        rib::nexthop nh;
        nh.ifindex = n.oif.value_or(0);
        nh.gateway = n.gateway;
        nh.onlink = (nhm->flags & rtnl::rtnh_f_onlink) != 0;
        n.encaps.apply(ctx, nh);
        obj.path = std::move(nh);
    }
    out.push_back({dialect::netlink, nexthop_upsert{std::move(obj)}});
}

}  // namespace fpm
