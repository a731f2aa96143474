#include "vrf/sid_parse.hh"

#include <charconv>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rib/behaviors.hh"
#include "rib/sid_params.hh"
#include "vrf/spec.hh"

namespace vrf {
namespace {

using error = std::optional<std::string>;

bool number(std::string_view s, uint64_t max, uint64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc{} && end == s.data() + s.size() && out <= max;
}

// A [sids] line may name the behaviors the dataplane runs: the contract's rows with a handler.
bool configurable(const rib::behavior_info& b) { return b.handler != rib::dp_handler::none; }

std::string configurable_names() {
    std::string names;
    for (const auto& b : rib::behavior_table())
        if (configurable(b))
            names += (names.empty() ? "" : ", ") + std::string(b.name);
    return names;
}

// PREFIX: an IPv6 address (a /128) or prefix without host bits.
error parse_sid_prefix(std::string_view word, rib::prefix& out) {
    const auto addr = rib::parse_ip6(word.substr(0, word.find('/')));
    const auto pfx = rib::parse_prefix(word);
    if (!addr || !pfx || pfx->af != rib::family::ipv6)
        return fmt::format("'{}' is not an IPv6 address or prefix", word);
    if (pfx->addr().v6() != *addr)  // a typo guard, as `ip route` refuses host bits
        return fmt::format("'{}' has bits set beyond its length (did you mean {}?)", word, rib::to_string(*pfx));
    out = *pfx;
    return std::nullopt;
}

// BEHAVIOR: its contract row, if the dataplane runs it.
error parse_behavior(std::string_view word, const rib::behavior_info*& out) {
    // RFC 8986's bridging behaviors, named so that the refusal says why (no kernel action
    // number exists for them either, so no FPM dialect carries them yet).
    for (std::string_view dt2 : {"End.DT2U", "End.DT2M"})
        if (word == dt2)
            return fmt::format("behavior '{}' (RFC 8986 §4.10-4.11, L2 bridging) is not built yet; End.DX2 "
                               "cross-connects one port", word);
    const auto b = rib::behavior_from_name(word);
    out = b ? rib::find_behavior(*b) : nullptr;
    if (!out || !configurable(*out))
        return fmt::format("behavior '{}' is not one of {}", word, configurable_names());
    return std::nullopt;
}

// "psp,usd,next-csid" -> rib::flavor bits, by the contract's names.
error parse_flavors(std::string_view list, uint32_t& out) {
    while (true) {
        const size_t comma = list.find(',');
        const auto name = list.substr(0, comma);
        const auto bit = rib::flavor_from_name(name);
        if (!bit)
            return fmt::format("flavor '{}' is not one of {}", name, rib::flavors_to_string(rib::known_flavors));
        if (out & *bit)
            return fmt::format("flavor {} listed twice", name);
        out |= *bit;
        if (comma == std::string_view::npos)
            return std::nullopt;
        list.remove_prefix(comma + 1);
    }
}

// "A,B,C": End.B6.Encaps's policy, in visiting order (iproute2's `srh segs`).
error parse_segs(std::string_view list, std::vector<rib::ip6_addr>& out) {
    while (true) {
        const size_t comma = list.find(',');
        const auto word = list.substr(0, comma);
        const auto a = rib::parse_ip6(word);
        if (!a)
            return fmt::format("segs: '{}' is not an IPv6 address", word);
        out.push_back(*a);
        if (comma == std::string_view::npos)
            break;
        list.remove_prefix(comma + 1);
    }
    if (out.size() > 16)
        return "segs: at most 16 SIDs";
    return std::nullopt;
}

// One value of a keyword into the SID; what the value means to the behavior is checked after
// all of them, by the parameter table (rib/sid_params.hh) like every other parser's.
using value_parser = error (*)(std::string_view v, const rib::behavior_info& row, rib::seg6local& l);

rib::seg6_encap& policy(rib::seg6local& l) { return l.srh ? *l.srh : l.srh.emplace(); }

error parse_vrf(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    if (auto e = check_ifname(v))
        return fmt::format("VRF {}", *e);
    l.vrf_name = std::string(v);
    return std::nullopt;
}

// The attribute FRR sends for this behavior (the contract's vrf_attr): End.T and End.DT6
// TABLE, End.DT4 and End.DT46 VRFTABLE.
error parse_table(std::string_view v, const rib::behavior_info& row, rib::seg6local& l) {
    uint64_t n = 0;
    if (!number(v, UINT32_MAX, n))
        return fmt::format("table '{}' is not a number from 1 to 4294967295", v);
    if (auto e = check_table(static_cast<rib::table_id>(n)))
        return e;
    (row.vrf == rib::vrf_attr::vrftable ? l.vrftable : l.table) = static_cast<rib::table_id>(n);
    return std::nullopt;
}

error parse_nh4(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    const auto a = rib::parse_addr(v);
    if (!a || !a->is_v4())
        return fmt::format("nh4 '{}' is not an IPv4 address", v);
    l.nh4 = a->v4();
    return std::nullopt;
}

error parse_nh6(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    const auto a = rib::parse_ip6(v);
    if (!a)
        return fmt::format("nh6 '{}' is not an IPv6 address", v);
    l.nh6 = *a;
    return std::nullopt;
}

error parse_oif(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    uint64_t n = 0;
    if (!number(v, UINT32_MAX, n) || n == 0)
        return fmt::format("oif '{}' is not an interface index (1 to 4294967295)", v);
    l.oif = static_cast<uint32_t>(n);
    return std::nullopt;
}

error parse_segs_arg(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    return parse_segs(v, policy(l).segments);
}

// The policy's headend: H.Encaps, or H.Encaps.Red (End.B6.Encaps.Red).
error parse_mode(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    if (v != "encap" && v != "encap.red")
        return fmt::format("mode '{}' is not encap or encap.red", v);
    policy(l).mode = v == "encap" ? rib::encap_mode::encap : rib::encap_mode::encap_red;
    return std::nullopt;
}

// The policy's outer source, over [encap] source.
error parse_src(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    const auto a = rib::parse_ip6(v);
    if (!a || a->is_zero())
        return fmt::format("src '{}' is not an IPv6 address", v);
    policy(l).source = *a;
    return std::nullopt;
}

error parse_flavors_arg(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    return parse_flavors(v, l.flavors);
}

// A NEXT-C-SID length as a number; the rule it must follow is the flavors parameter's check.
error parse_length(std::string_view word, std::string_view v, std::optional<uint8_t>& out) {
    uint64_t n = 0;
    if (!number(v, 128, n))
        return fmt::format("{} '{}' is not a number of bits (at most 128)", word, v);
    out = static_cast<uint8_t>(n);
    return std::nullopt;
}
error parse_lblen(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    return parse_length("lblen", v, l.lcblock_bits);
}
error parse_nflen(std::string_view v, const rib::behavior_info&, rib::seg6local& l) {
    return parse_length("nflen", v, l.lcnode_fn_bits);
}

// The keywords of a [sids] line: the names of the parameters (rib/sid_params.hh), and the
// details of two of them (mode and src of segs, lblen and nflen of flavors).
struct keyword {
    std::string_view word;
    value_parser parse;
};
constexpr keyword keywords[] = {
    {"vrf", parse_vrf},         {"table", parse_table}, {"nh4", parse_nh4},         {"nh6", parse_nh6},
    {"oif", parse_oif},         {"segs", parse_segs_arg}, {"mode", parse_mode},     {"src", parse_src},
    {"flavors", parse_flavors_arg}, {"lblen", parse_lblen}, {"nflen", parse_nflen},
};

std::string keyword_list() {
    std::string out;
    for (size_t i = 0; i < std::size(keywords); ++i)
        out += fmt::format("{}{}", i == 0 ? "" : i + 1 == std::size(keywords) ? " or " : ", ", keywords[i].word);
    return out;
}

// The arguments against the behavior's row, as every parser checks a SID (rib::check_params),
// after the checks of this syntax's own words.
error check_against_contract(const rib::behavior_info& row, rib::seg6local& l) {
    if (!l.vrf_name.empty() && (l.table || l.vrftable))
        return "give 'vrf NAME' or 'table ID', not both";
    if (l.srh && l.srh->segments.empty())
        return "mode and src belong to segs (End.B6.Encaps)";
    if ((l.lcblock_bits || l.lcnode_fn_bits) && !(l.flavors & rib::flavor::next_csid))
        return "lblen and nflen belong to flavor next-csid";
    // A [sids] line is the operator's own: a parameter the behavior does not take is a mistake.
    if (const uint16_t extra = rib::unused_params(row, l))
        return rib::unused_text(row, extra);
    if (auto c = rib::check_params(row, l); !c.ok())
        return c.reason;
    if (auto c = rib::check_contract(l); !c.ok())  // the flavors the row takes
        return c.reason;
    if (l.flavors & rib::flavor::next_csid) {
        const rib::csid_lengths c = rib::csid_of(l);
        l.lcblock_bits = c.block;
        l.lcnode_fn_bits = c.node_fn;
    }
    return std::nullopt;
}

}  // namespace

parsed<sid_spec> parse_sid(std::string_view line) {
    auto toks = split_words(line);
    if (toks.size() >= 2 && toks[0] == "sid" && toks[1] == "=")  // a whole "sid = ..." line
        toks.erase(toks.begin(), toks.begin() + 2);
    std::string shown;
    for (auto t : toks)
        shown += (shown.empty() ? "" : " ") + std::string(t);
    auto fail = [&shown](std::string msg) -> parsed<sid_spec> {
        return {std::nullopt, fmt::format("sid '{}': {}", shown, msg)};
    };
    if (toks.size() < 2)
        return fail("expected 'PREFIX BEHAVIOR [ARGS] [flavors LIST]'");

    sid_spec s;
    const rib::behavior_info* row = nullptr;
    if (auto e = parse_sid_prefix(toks[0], s.sid))
        return fail(*e);
    if (auto e = parse_behavior(toks[1], row))
        return fail(*e);
    s.local.action = row->action;

    std::set<std::string_view> seen;
    for (size_t i = 2; i < toks.size(); i += 2) {
        const auto word = toks[i];
        const keyword* kw = nullptr;
        for (const auto& k : keywords)
            if (k.word == word)
                kw = &k;
        if (!kw)
            return fail(fmt::format("unknown word '{}'; expected {}", word, keyword_list()));
        if (!seen.insert(word).second)
            return fail(fmt::format("'{}' given twice", word));
        if (i + 1 >= toks.size())
            return fail(fmt::format("'{}' needs a value", word));
        if (auto e = kw->parse(toks[i + 1], *row, s.local))
            return fail(*e);
    }
    if (auto e = check_against_contract(*row, s.local))
        return fail(*e);
    return {std::move(s), {}};
}

rib::route to_route(const sid_spec& s) {
    rib::route r;
    r.key = {rib::main_table, s.sid, {}};
    r.protocol = rib::proto::config;
    rib::nexthop n;
    n.local = s.local;  // the egress, if any, is the behavior's oif (FRR >= 10.6 sends it there too)
    r.nexthops = {n};
    return r;
}

}  // namespace vrf
