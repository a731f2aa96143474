#include "rib/sid_params.hh"

#include <array>
#include <bit>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rib {
namespace {

namespace sp = sid_param;
using fault = std::optional<std::string>;

void print_table(const seg6local& l, std::string& out) {
    if (l.table && !l.vrftable && l.vrf_name.empty())
        out += fmt::format(" table {}", *l.table);
}

// [sids] says `table` for both: the row's vrf_attr chooses the attribute (vrf/sid_parse.cc).
void print_vrftable(const seg6local& l, std::string& out) {
    if (l.vrftable && l.vrf_name.empty())
        out += fmt::format(" table {}", *l.vrftable);
}

void print_segs(const seg6local& l, std::string& out) {
    if (!l.srh || l.srh->segments.empty())
        return;
    std::vector<std::string> segs;
    for (const auto& a : l.srh->segments)
        segs.push_back(to_string(a));
    out += fmt::format(" segs {}", fmt::join(segs, ","));
    if (l.srh->mode == encap_mode::encap_red)
        out += " mode encap.red";
    if (l.srh->source)
        out += " src " + to_string(*l.srh->source);
}

// Flavor bits srv6d knows, and NEXT-C-SID lengths by the rule.
// Which known flavors a behavior takes is the contract check's (check_contract): a decoded SID
// with another one is kept and refused when compiled, visibly in `srv6ctl show sids`.
fault check_flavors(const behavior_info& row, const seg6local& l) {
    if (const uint32_t unknown = l.flavors & ~known_flavors)
        return flavor_refusal(row, unknown);
    // Lengths without the flavor are ignored, as the kernel's parse_nla_flavors ignores them.
    if (!(l.flavors & flavor::next_csid))
        return std::nullopt;
    return csid_fault(csid_of(l));
}

void print_flavors(const seg6local& l, std::string& out) {
    if (l.flavors)
        out += " flavors " + flavors_to_string(l.flavors);
    if (l.flavors & flavor::next_csid) {
        if (l.lcblock_bits)
            out += fmt::format(" lblen {}", *l.lcblock_bits);
        if (l.lcnode_fn_bits)
            out += fmt::format(" nflen {}", *l.lcnode_fn_bits);
    }
}

fault check_structure(const behavior_info&, const seg6local& l) {
    const auto& s = *l.structure;
    const unsigned bits = 0u + s.block_len + s.node_len + s.func_len + s.arg_len;
    if (bits > 128)
        return fmt::format("SID structure of {} bits (block {} + node {} + function {} + argument {}) is longer than 128",
                           bits, s.block_len, s.node_len, s.func_len, s.arg_len);
    return std::nullopt;
}

// In the order a [sids] line prints them (apps/srv6d's running config), and the order values
// are checked in (a SID structure before the NEXT-C-SID lengths taken from it).
constexpr std::array<param_info, 11> params_ = {{
    {sp::vrf_name, "vrf", "a VRF", [](const seg6local& l) { return !l.vrf_name.empty(); },
     [](seg6local& l) { l.vrf_name.clear(); }, nullptr,
     [](const seg6local& l, std::string& out) {
         if (!l.vrf_name.empty())
             out += " vrf " + l.vrf_name;
     }},
    {sp::table, "table", "a VRF", [](const seg6local& l) { return l.table.has_value(); },
     [](seg6local& l) { l.table.reset(); }, nullptr, print_table},
    {sp::vrftable, "vrftable", "a VRF", [](const seg6local& l) { return l.vrftable.has_value(); },
     [](seg6local& l) { l.vrftable.reset(); }, nullptr, print_vrftable},
    {sp::nh4, "nh4", "an IPv4 next hop", [](const seg6local& l) { return l.nh4.has_value(); },
     [](seg6local& l) { l.nh4.reset(); }, nullptr,
     [](const seg6local& l, std::string& out) {
         if (l.nh4)
             out += " nh4 " + to_string(*l.nh4);
     }},
    {sp::nh6, "nh6", "an IPv6 next hop", [](const seg6local& l) { return l.nh6.has_value(); },
     [](seg6local& l) { l.nh6.reset(); }, nullptr,
     [](const seg6local& l, std::string& out) {
         if (l.nh6)
             out += " nh6 " + to_string(*l.nh6);
     }},
    {sp::oif, "oif", "an interface", [](const seg6local& l) { return l.oif.has_value(); },
     [](seg6local& l) { l.oif.reset(); }, nullptr,
     [](const seg6local& l, std::string& out) {
         if (l.oif)
             out += fmt::format(" oif {}", *l.oif);
     }},
    {sp::ifname, "ifname", "an interface", [](const seg6local& l) { return !l.ifname.empty(); },
     [](seg6local& l) { l.ifname.clear(); }, nullptr, nullptr},
    {sp::srh, "segs", "a SID list", [](const seg6local& l) { return l.srh.has_value(); },
     [](seg6local& l) { l.srh.reset(); }, nullptr, print_segs},
    {sp::structure, "structure", "a SID structure", [](const seg6local& l) { return l.structure.has_value(); },
     [](seg6local& l) { l.structure.reset(); }, check_structure, nullptr},
    {sp::flavors, "flavors", "flavors", [](const seg6local& l) { return l.flavors || l.lcblock_bits || l.lcnode_fn_bits; },
     [](seg6local& l) {
         l.flavors = 0;
         l.lcblock_bits.reset();
         l.lcnode_fn_bits.reset();
     },
     check_flavors, print_flavors},
    {sp::bpf, "bpf", "a BPF program", [](const seg6local&) { return false; }, [](seg6local&) {}, nullptr, nullptr},
}};

constexpr bool one_row_per_bit() {
    uint16_t seen = 0;
    for (const auto& p : params_) {
        if (std::popcount(p.bit) != 1 || (seen & p.bit))
            return false;
        seen = static_cast<uint16_t>(seen | p.bit);
    }
    return seen == sp::all;
}
static_assert(one_row_per_bit(), "every sid_param bit has exactly one row");

// "table, vrftable or vrf", in bit order.
std::string names(uint16_t params, std::string_view last) {
    std::vector<std::string_view> n;
    for (unsigned i = 0; i < 16; ++i)
        if (const auto* p = find_param(static_cast<uint16_t>(params & (1u << i))))
            n.push_back(p->name);
    std::string out;
    for (size_t i = 0; i < n.size(); ++i)
        out += fmt::format("{}{}", i == 0 ? "" : i + 1 == n.size() ? last : ", ", n[i]);
    return out;
}

}  // namespace

std::span<const param_info> param_table() { return params_; }

const param_info* find_param(uint16_t bit) {
    for (const auto& p : params_)
        if (p.bit == bit)
            return &p;
    return nullptr;
}

uint16_t present_params(const seg6local& l) {
    uint16_t p = 0;
    for (const auto& e : params_)
        if (e.held(l))
            p = static_cast<uint16_t>(p | e.bit);
    return p;
}

std::string sid_params_to_string(uint16_t params) {
    std::string out;
    for (unsigned i = 0; i < 16; ++i)
        if (const auto* p = find_param(static_cast<uint16_t>(params & (1u << i))))
            out += fmt::format("{}{}", out.empty() ? "" : "|", p->name);
    return out;
}

param_check check_params(const behavior_info& row, const seg6local& l, uint16_t present) {
    const uint16_t held = present_params(l);
    present = static_cast<uint16_t>(present | held);
    for (const auto& p : params_)
        if (p.check && (held & row.allowed() & p.bit))
            if (auto why = p.check(row, l))
                return {param_fault::bad_value, p.bit, std::move(*why)};
    if (const uint16_t need = row.missing(present)) {
        const auto* first = find_param(static_cast<uint16_t>(1u << std::countr_zero(need)));
        // A table is a table, whichever attribute carries it: "a VRF (table or vrf)".
        const uint16_t named = (need & sp::table) ? static_cast<uint16_t>(need & ~sp::vrftable) : need;
        return {param_fault::missing, need,
                fmt::format("{} needs {} ({})", row.name, first ? first->noun : "a parameter", names(named, " or "))};
    }
    return {};
}

uint16_t unused_params(const behavior_info& row, const seg6local& l, uint16_t present) {
    return static_cast<uint16_t>((present | present_params(l)) & ~row.allowed());
}

std::string unused_text(const behavior_info& row, uint16_t params) {
    return fmt::format("{} does not take {}", row.name, names(params, " or "));
}

void drop_params(seg6local& l, uint16_t params) {
    for (const auto& p : params_)
        if (params & p.bit)
            p.drop(l);
}

std::string print_params(const seg6local& l) {
    std::string out;
    for (const auto& p : params_)
        if (p.print)
            p.print(l, out);
    return out;
}

std::optional<std::string> csid_fault(csid_lengths c) {
    if (valid_csid(c.block, c.node_fn))
        return std::nullopt;
    return fmt::format("NEXT-C-SID block {} and node+function {} bits: each a non-zero multiple of 8, together at most 128",
                       c.block, c.node_fn);
}

std::string flavor_refusal(const behavior_info& row, uint32_t bits) {
    return fmt::format("{} does not take flavor {}", row.name, flavors_to_string(bits));
}

}  // namespace rib
