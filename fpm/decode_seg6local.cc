// LWTUNNEL_ENCAP_SEG6_LOCAL (7): the endpoint side, a local SID and its behavior. Attributes are
// collected first (ACTION need not come first), then checked against rib::behavior_table().
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "rib/behaviors.hh"
#include "rib/sid_params.hh"
#include "fpm/decoder.hh"
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

struct flavor_attrs {
    uint32_t operation = 0;
    std::optional<uint8_t> lcblock_bits;
    std::optional<uint8_t> lcnode_fn_bits;
};

// Everything the nest said, before we know which behavior it is for.
struct wire_sid {
    uint16_t present = 0;  // sid_param bits
    std::optional<uint32_t> action;
    std::vector<rib::ip6_addr> srh;
    uint32_t table = 0, vrftable = 0, oif = 0;
    rib::ip4_addr nh4;
    rib::ip6_addr nh6;
    flavor_attrs flv;
};

bool bad_flavors(decode_ctx& ctx, std::string_view why) {
    ctx.report(reason::seg6local_bad_flavors, why);
    return false;
}

bool decode_flavors(nl::bytes nest, decode_ctx& ctx, flavor_attrs& out) {
    flavor_attrs f;
    bool have_op = false;
    nl::attr_walker walk(nest);
    while (auto a = walk.next()) {
        switch (a->type) {
        case flv_operation: {
            const auto op = nl::get_exact<uint32_t>(a->payload);
            if (!op || have_op)
                return bad_flavors(ctx, have_op ? "FLV_OPERATION twice" : "FLV_OPERATION not 4 bytes");
            f.operation = *op;
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
    // A flavor we do not know changes what the SID does: refuse rather than forward wrongly.
    if (f.operation & ~rib::known_flavors)
        return bad_flavors(ctx, fmt::format("unknown flavor bits {:#x}", f.operation & ~rib::known_flavors));
    // Lengths not given are the kernel's defaults (the contract's csid_default).
    const unsigned block = f.lcblock_bits.value_or(rib::csid_default.block);
    const unsigned node_fn = f.lcnode_fn_bits.value_or(rib::csid_default.node_fn);
    if (!rib::valid_csid(block, node_fn))
        return bad_flavors(ctx, fmt::format("lcblock {} lcnode_fn {} bits", block, node_fn));
    out = f;
    return true;
}

bool bad_len(decode_ctx& ctx, const nl::attr& a) {
    ctx.report(reason::attr_bad_len, fmt::format("seg6local attribute {} of {} bytes", a.type, a.payload.size()));
    return false;
}

// Reads one attribute into `w`; false (reported) when it is malformed.
bool read_attr(const nl::attr& a, decode_ctx& ctx, wire_sid& w) {
    auto u32 = [&](uint32_t& dst, uint16_t param) {
        const auto v = nl::get_exact<uint32_t>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        dst = *v;
        w.present |= param;
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
    case seg6_local_srh:
        if (!decode_srh(a.payload, ctx, w.srh))
            return false;
        w.present |= sp::srh;
        return true;
    case seg6_local_table: return u32(w.table, sp::table);
    case seg6_local_vrftable: return u32(w.vrftable, sp::vrftable);
    case seg6_local_oif:  // sharp sends 0: like a nexthop's ifindex 0, "no interface given"
        if (!u32(w.oif, sp::oif))
            return false;
        if (w.oif == 0)
            w.present &= static_cast<uint16_t>(~sp::oif);
        return true;
    case seg6_local_nh4: {
        const auto v = nl::get_exact<rib::ip4_addr>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        w.nh4 = *v;
        w.present |= sp::nh4;
        return true;
    }
    case seg6_local_nh6: {
        const auto v = nl::get_exact<rib::ip6_addr>(a.payload);
        if (!v)
            return bad_len(ctx, a);
        w.nh6 = *v;
        w.present |= sp::nh6;
        return true;
    }
    case seg6_local_bpf:  // only End.BPF uses it; the program itself is meaningless outside the kernel
        w.present |= sp::bpf;
        return true;
    case seg6_local_flavors:
        if (!decode_flavors(a.payload, ctx, w.flv))
            return false;
        w.present |= sp::flavors;
        return true;
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
    if (const uint16_t need = info->missing(w.present)) {
        ctx.report(reason::seg6local_missing_attr,
                   fmt::format("{} needs {}", info->name, rib::sid_params_to_string(need)));
        return false;
    }
    // Parameters the behavior has no use for are dropped, so the model only holds what applies.
    if (const uint16_t extra = static_cast<uint16_t>(w.present & ~info->allowed()))
        ctx.report(reason::ignored_attr, fmt::format("{} does not use {}", info->name, rib::sid_params_to_string(extra)));
    const auto use = static_cast<uint16_t>(w.present & info->allowed());

    rib::seg6local s;
    s.action = info->action;
    if (use & sp::flavors) {
        s.flavors = w.flv.operation;
        s.lcblock_bits = w.flv.lcblock_bits;
        s.lcnode_fn_bits = w.flv.lcnode_fn_bits;
    }
    if (use & sp::table)
        s.table = w.table;
    if (use & sp::vrftable)
        s.vrftable = w.vrftable;
    if (use & sp::nh4)
        s.nh4 = w.nh4;
    if (use & sp::nh6)
        s.nh6 = w.nh6;
    if (use & sp::oif)
        s.oif = w.oif;
    if (use & sp::srh) {
        rib::seg6_encap srh;
        // End.B6 inserts the new SRH; End.B6.Encaps pushes an outer IPv6 header with it.
        srh.mode = info->action == rib::behavior::end_b6 ? rib::encap_mode::inline_srh : rib::encap_mode::encap;
        srh.segments = std::move(w.srh);
        s.srh = std::move(srh);
    }
    out = std::move(s);
    return true;
}

}  // namespace fpm
