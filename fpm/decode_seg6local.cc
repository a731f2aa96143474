// LWTUNNEL_ENCAP_SEG6_LOCAL (7): the endpoint side, a local SID and its behavior. Attributes are
// collected first (ACTION need not come first), then checked against rib::behavior_table().
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "rib/behaviors.hh"
#include "rib/sid_params.hh"
#include "fpm/decoder.hh"
#include "fpm/sid_check.hh"
#include "fpm/srh.hh"

namespace fpm {
namespace {

namespace sp = rib::sid_param;

// linux/seg6_local.h
constexpr uint16_t seg6_local_action = 1;
constexpr uint16_t seg6_local_srh = 2;
constexpr uint16_t seg6_local_table = 3;
constexpr uint16_t seg6_local_nh4 = 4;
constexpr uint16_t seg6_local_nh6 = 5;
constexpr uint16_t seg6_local_iif = 6;
constexpr uint16_t seg6_local_oif = 7;
constexpr uint16_t seg6_local_bpf = 8;
constexpr uint16_t seg6_local_vrftable = 9;
constexpr uint16_t seg6_local_counters = 10;
constexpr uint16_t seg6_local_flavors = 11;
constexpr uint16_t seg6_local_max = seg6_local_flavors;

constexpr uint16_t flv_operation = 1;
constexpr uint16_t flv_lcblock_bits = 2;
constexpr uint16_t flv_lcnode_fn_bits = 3;

// Everything the nest said, before we know which behavior it is for.
struct wire_sid {
    std::optional<uint32_t> action;
    rib::seg6local sid;   // every parameter as read; the row then says which apply
    bool bpf = false;     // End.BPF's program: on the wire only
};

bool bad_flavors(decode_ctx& ctx, std::string_view why) {
    ctx.report(reason::seg6local_bad_flavors, why);
    return false;
}

// The nest into the SID's flavor fields; their values are the flavors parameter's to check.
bool decode_flavors(nl::bytes nest, decode_ctx& ctx, rib::seg6local& out) {
    rib::seg6local f;
    bool have_op = false;
    nl::attr_walker walk(nest);
    while (auto a = walk.next()) {
        switch (a->type) {
        case flv_operation: {
            const auto op = nl::get_exact<uint32_t>(a->payload);
            if (!op || have_op)
                return bad_flavors(ctx, have_op ? "FLV_OPERATION twice" : "FLV_OPERATION not 4 bytes");
            f.flavors = *op;
            have_op = true;
            break;
        }
        case flv_lcblock_bits:
        case flv_lcnode_fn_bits: {
            auto& slot = a->type == flv_lcblock_bits ? f.lcblock_bits : f.lcnode_fn_bits;
            const auto bits = nl::get_exact<uint8_t>(a->payload);
            if (!bits || slot)
                return bad_flavors(ctx, fmt::format("length attribute {} {}", a->type,
                                                    slot ? "twice" : "not 1 byte"));
            slot = *bits;
            break;
        }
        default:
            ctx.report(reason::ignored_attr, fmt::format("seg6local flavor attribute {}", a->type));
            break;
        }
    }
    if (walk.truncated())
        return bad_flavors(ctx, "nest truncated");
    if (!have_op)
        return bad_flavors(ctx, "no FLV_OPERATION");
    out.flavors = f.flavors;
    out.lcblock_bits = f.lcblock_bits;
    out.lcnode_fn_bits = f.lcnode_fn_bits;
    return true;
}

bool bad_len(decode_ctx& ctx, const nl::attr& a) {
    ctx.report(reason::attr_bad_len, fmt::format("seg6local attribute {} of {} bytes", a.type, a.payload.size()));
    return false;
}

// Reads one attribute into `w`; false (reported) when it is malformed.
bool read_attr(const nl::attr& a, decode_ctx& ctx, wire_sid& w) {
    rib::seg6local& s = w.sid;
    auto u32 = [&](std::optional<uint32_t>& dst) {
        const auto v = nl::get_exact<uint32_t>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        dst = *v;
        return true;
    };
    switch (a.type) {
    case seg6_local_action: {
        const auto v = nl::get_exact<uint32_t>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        w.action = *v;
        return true;
    }
    case seg6_local_srh: {
        rib::seg6_encap srh;
        if (!decode_srh(a.payload, ctx, srh.segments))
            return false;
        s.srh = std::move(srh);
        return true;
    }
    case seg6_local_table: return u32(s.table);
    case seg6_local_vrftable: return u32(s.vrftable);
    case seg6_local_oif:  // sharp sends 0: like a nexthop's ifindex 0, "no interface given"
        if (!u32(s.oif))
            return false;
        if (s.oif == 0u)
            s.oif.reset();
        return true;
    case seg6_local_nh4: {
        const auto v = nl::get_exact<rib::ip4_addr>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        s.nh4 = *v;
        return true;
    }
    case seg6_local_nh6: {
        const auto v = nl::get_exact<rib::ip6_addr>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        s.nh6 = *v;
        return true;
    }
    case seg6_local_bpf:  // only End.BPF uses it; the program itself is meaningless outside the kernel
        w.bpf = true;
        return true;
    case seg6_local_flavors: return decode_flavors(a.payload, ctx, s);
    case seg6_local_iif:       // FRR never sends these; nothing in srv6d uses them
    case seg6_local_counters:
    default:
        ctx.report(reason::ignored_attr, fmt::format("seg6local attribute {}", a.type));
        return true;
    }
}

}  // namespace

bool decode_seg6local(nl::bytes nest, decode_ctx& ctx, rib::seg6local& out) {
    wire_sid w;
    uint32_t seen = 0;  // attribute ids met so far, to catch duplicates
    nl::attr_walker walk(nest);
    while (auto a = walk.next()) {
        if (a->type >= 1 && a->type <= seg6_local_max) {
            const uint32_t bit = 1u << a->type;
            if (seen & bit) {
                ctx.report(reason::attr_duplicate, fmt::format("seg6local attribute {}", a->type));
                return false;
            }
            seen |= bit;
        }
        if (!read_attr(*a, ctx, w))
            return false;
    }
    if (walk.truncated()) {
        ctx.report(reason::attr_truncated, "seg6local encap nest");
        return false;
    }
    if (!w.action) {
        ctx.report(reason::seg6local_no_action);
        return false;
    }
    const rib::behavior_info* info = rib::find_behavior(*w.action);
    if (!info || !info->netlink) {
        ctx.report(reason::seg6local_bad_action,
                   info ? fmt::format("{} has no seg6local encoding", info->name) : fmt::format("action {}", *w.action));
        return false;
    }
    rib::seg6local& s = w.sid;
    s.action = info->action;
    const uint16_t wire_only = w.bpf ? sp::bpf : 0;
    if (!check_sid_params(*info, s, wire_only, ctx))
        return false;
    // Parameters the behavior has no use for are dropped, so the model only holds what applies.
    if (const uint16_t extra = rib::unused_params(*info, s, wire_only)) {
        ctx.report(reason::ignored_attr, rib::unused_text(*info, extra));
        rib::drop_params(s, extra);
    }
    // End.B6 inserts the new SRH; End.B6.Encaps pushes an outer IPv6 header with it.
    if (s.srh)
        s.srh->mode = info->action == rib::behavior::end_b6 ? rib::encap_mode::inline_srh : rib::encap_mode::encap;
    out = std::move(s);
    return true;
}

}  // namespace fpm
