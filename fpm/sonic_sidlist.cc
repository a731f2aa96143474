// SONiC SID lists (RTM_NEWSIDLIST 4000 / RTM_DELSIDLIST 4001). fpm-protocol.md §3 gives only
// the attribute ids; the layout read here is documented in docs/fpm-dialects.md: an rtmsg,
// RTA_TABLE = segment count, and an RTA_ENCAP nest with SIDLIST_NAME / SIDLIST_LEN / SIDLIST.
#include <fmt/format.h>

#include "fpm/sonic_parsers.hh"
#include "fpm/sonic_wire.hh"

namespace fpm::sonic {
namespace {

// SONiC's encoder writes an array of {u32 index, struct ipaddr {u32 type, 16-byte address}}.
constexpr size_t entry_size = 24;
constexpr size_t entry_sid_offset = 8;

struct sidlist_msg {
    std::string name;
    std::optional<uint32_t> count;        // SIDLIST_LEN, else RTA_TABLE
    std::optional<uint32_t> table_count;  // RTA_TABLE
    std::optional<nl::bytes> sids;
};

// The list attributes, found at the top level or inside RTA_ENCAP. False after reporting.
bool parse_list_attr(const nl::attr& a, decode_ctx& ctx, sidlist_msg& out) {
    switch (a.type) {
    case encap_attr::sidlist_name: out.name = bounded_string(a.payload); return true;
    case encap_attr::sidlist_len:
        out.count = nl::get_exact<uint32_t>(a.payload);
        if (!out.count)
            ctx.report(reason::sonic_bad_sidlist, fmt::format("SIDLIST_LEN of {} bytes", a.payload.size()));
        return out.count.has_value();
    case encap_attr::sidlist: out.sids = a.payload; return true;
    default:
        ctx.report(reason::ignored_attr, fmt::format("SONiC SID list attribute {}", a.type));
        return true;
    }
}

bool parse_nest(nl::bytes nest, decode_ctx& ctx, sidlist_msg& out) {
    nl::attr_walker w(nest);
    while (auto a = w.next()) {
        if (!parse_list_attr(*a, ctx, out))
            return false;
    }
    if (w.truncated()) {
        ctx.report(reason::sonic_bad_sidlist, "truncated RTA_ENCAP nest");
        return false;
    }
    return true;
}

bool parse_attrs(nl::bytes attrs, decode_ctx& ctx, sidlist_msg& out) {
    bool foreign_nest = false;  // the last RTA_ENCAP_TYPE was not SONiC's 101
    nl::attr_walker w(attrs);
    while (auto a = w.next()) {
        switch (a->type) {
        case rtnl::rta::table:
            out.table_count = nl::get_exact<uint32_t>(a->payload);
            if (!out.table_count) {
                ctx.report(reason::attr_bad_len, fmt::format("RTA_TABLE of {} bytes", a->payload.size()));
                return false;
            }
            break;
        case rtnl::rta::encap_type: {
            const auto t = nl::get<uint16_t>(a->payload);
            foreign_nest = t && *t != encap_srv6;
            break;
        }
        case rtnl::rta::encap:
            if (foreign_nest) {
                ctx.report(reason::ignored_encap_type, "SID list nest of a non-SONiC encap type");
            } else if (!parse_nest(a->payload, ctx, out)) {
                return false;
            }
            foreign_nest = false;
            break;
        default:
            if (!parse_list_attr(*a, ctx, out))
                return false;
            break;
        }
    }
    if (w.truncated()) {
        ctx.report(reason::attr_truncated, "SONiC SID list attributes");
        return false;
    }
    if (!out.count)
        out.count = out.table_count;
    if (out.name.empty()) {
        ctx.report(reason::sonic_bad_sidlist, "no SIDLIST_NAME");
        return false;
    }
    return true;
}

// Bare 16-byte SIDs when the size says so (and agrees with the count), else SONiC's 24-byte
// entries, of which the first `count` are used. nullopt after reporting.
std::optional<std::vector<rib::ip6_addr>> read_segments(nl::bytes b, std::optional<uint32_t> count,
                                                        decode_ctx& ctx) {
    size_t n = 0, stride = 0, offset = 0;
    if (b.size() % 16 == 0 && (!count || *count == b.size() / 16)) {
        n = b.size() / 16;
        stride = 16;
    } else if (count && b.size() % entry_size == 0 && *count <= b.size() / entry_size) {
        n = *count;
        stride = entry_size;
        offset = entry_sid_offset;
    } else {
        ctx.report(reason::sonic_bad_sidlist,
                   fmt::format("SIDLIST of {} bytes for {} segments", b.size(),
                               count ? std::to_string(*count) : std::string("?")));
        return std::nullopt;
    }
    if (n == 0) {
        ctx.report(reason::sonic_bad_sidlist, "empty SID list");
        return std::nullopt;
    }
    std::vector<rib::ip6_addr> segs(n);
    for (size_t i = 0; i < n; ++i)
        segs[i] = *get_ip6(b.subspan(i * stride + offset, 16));
    return segs;
}

}  // namespace

void decode_sidlist(const nl::message& m, decode_ctx& ctx, std::vector<update>& out) {
    const auto rtm = read_rtmsg(m.body, ctx);
    if (!rtm)
        return;
    sidlist_msg msg;
    if (!parse_attrs(m.body.subspan(rtnl::rtmsg_size), ctx, msg))
        return;
    if (m.hdr.type == rtm_delsidlist) {
        out.push_back(update{dialect::sonic, sidlist_delete{std::move(msg.name)}});
        return;
    }
    if (!msg.sids) {
        ctx.report(reason::sonic_bad_sidlist, "no SIDLIST");
        return;
    }
    auto segs = read_segments(*msg.sids, msg.count, ctx);
    if (!segs)
        return;
    out.push_back(update{dialect::sonic, sidlist_upsert{std::move(msg.name), std::move(*segs)}});
}

}  // namespace fpm::sonic
