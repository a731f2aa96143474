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

using namespace rib::sid_param;
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

// "psp,usd,next-csid" -> rib::flavor bits.
error parse_flavors(std::string_view list, uint32_t& out) {
    while (true) {
        const size_t comma = list.find(',');
        const auto name = list.substr(0, comma);
        uint32_t bit = 0;
        for (uint32_t f = 1; f != 0 && !bit; f <<= 1)
            if (!name.empty() && rib::flavor_name(f) == name)
                bit = f;
        if (!bit)
            return fmt::format("flavor '{}' is not one of {}", name, rib::flavors_to_string(rib::known_flavors));
        if (out & bit)
            return fmt::format("flavor {} listed twice", name);
        out |= bit;
        if (comma == std::string_view::npos)
            return std::nullopt;
        list.remove_prefix(comma + 1);
    }
}

// What the arguments said besides the seg6local fields.
struct given {
    uint16_t present = 0;  // sid_param bits
    std::optional<uint8_t> lblen, nflen;
    bool policy_extra = false;  // mode or src, which belong to segs
};

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

// One KEYWORD VALUE pair into `l`.
error parse_arg(std::string_view kw, std::string_view v, const rib::behavior_info& row, rib::seg6local& l, given& g) {
    uint64_t n = 0;
    if (kw == "vrf") {
        if (auto e = check_ifname(v))
            return fmt::format("VRF {}", *e);
        l.vrf_name = std::string(v);
        g.present |= vrf_name;
    } else if (kw == "table") {
        if (!number(v, UINT32_MAX, n))
            return fmt::format("table '{}' is not a number from 1 to 4294967295", v);
        if (auto e = check_table(static_cast<rib::table_id>(n)))
            return e;
        // The attribute FRR sends for this behavior (the contract's vrf_attr): End.T and End.DT6
        // TABLE, End.DT4 and End.DT46 VRFTABLE.
        const bool vrftab = row.vrf == rib::vrf_attr::vrftable;
        (vrftab ? l.vrftable : l.table) = static_cast<rib::table_id>(n);
        g.present |= vrftab ? vrftable : table;
    } else if (kw == "nh4") {
        const auto a = rib::parse_addr(v);
        if (!a || !a->is_v4())
            return fmt::format("nh4 '{}' is not an IPv4 address", v);
        l.nh4 = a->v4();
        g.present |= nh4;
    } else if (kw == "nh6") {
        const auto a = rib::parse_ip6(v);
        if (!a)
            return fmt::format("nh6 '{}' is not an IPv6 address", v);
        l.nh6 = *a;
        g.present |= nh6;
    } else if (kw == "oif") {
        if (!number(v, UINT32_MAX, n) || n == 0)
            return fmt::format("oif '{}' is not an interface index (1 to 4294967295)", v);
        l.oif = static_cast<uint32_t>(n);
        g.present |= oif;
    } else if (kw == "flavors") {
        if (auto e = parse_flavors(v, l.flavors))
            return e;
        g.present |= flavors;
    } else if (kw == "lblen" || kw == "nflen") {
        if (!number(v, 128, n) || !rib::valid_csid_bits(static_cast<unsigned>(n)))
            return fmt::format("{} '{}' is not a multiple of 8 from 8 to 120", kw, v);
        (kw == "lblen" ? g.lblen : g.nflen) = static_cast<uint8_t>(n);
    } else if (kw == "segs") {
        if (!l.srh)
            l.srh.emplace();
        if (auto e = parse_segs(v, l.srh->segments))
            return e;
        g.present |= srh;
    } else if (kw == "mode") {  // the policy's headend: H.Encaps, or H.Encaps.Red (End.B6.Encaps.Red)
        if (v != "encap" && v != "encap.red")
            return fmt::format("mode '{}' is not encap or encap.red", v);
        if (!l.srh)
            l.srh.emplace();
        l.srh->mode = v == "encap" ? rib::encap_mode::encap : rib::encap_mode::encap_red;
        g.policy_extra = true;
    } else if (kw == "src") {  // the policy's outer source, over [encap] source
        const auto a = rib::parse_ip6(v);
        if (!a || a->is_zero())
            return fmt::format("src '{}' is not an IPv6 address", v);
        if (!l.srh)
            l.srh.emplace();
        l.srh->source = *a;
        g.policy_extra = true;
    } else {
        return fmt::format(
            "unknown word '{}'; expected vrf, table, nh4, nh6, oif, segs, mode, src, flavors, lblen or nflen", kw);
    }
    return std::nullopt;
}

// The arguments against the behavior's row: parameters it takes and needs, flavors it takes,
// NEXT-C-SID lengths (the row's defaults when not given).
error check_against_contract(const rib::behavior_info& row, const given& g, rib::seg6local& l) {
    if ((g.present & vrf_name) && (g.present & (table | vrftable)))
        return "give 'vrf NAME' or 'table ID', not both";
    if (const uint16_t extra = static_cast<uint16_t>(g.present & ~row.allowed()))
        return fmt::format("{} takes no {}", row.name, rib::sid_params_to_string(extra));
    if (const uint16_t need = row.missing(g.present)) {
        const bool a_table = need & (table | vrftable | vrf_name);
        if (need & oif)  // End.DX2: its port, by the interface index zebra knows it by
            return fmt::format("{} needs 'oif IFINDEX' (the port's ifindex)", row.name);
        return fmt::format("{} needs {}", row.name,
                           a_table        ? "'table ID' or 'vrf NAME'"
                           : need == srh  ? std::string("'segs SID,SID...'")
                                          : "'" + rib::sid_params_to_string(need) + " ADDRESS'");
    }
    if (g.policy_extra && !(g.present & srh))
        return "mode and src belong to segs (End.B6.Encaps)";
    if ((g.lblen || g.nflen) && !(l.flavors & rib::flavor::next_csid))
        return "lblen and nflen belong to flavor next-csid";
    if (const uint32_t extra = l.flavors & ~row.flavors)
        return fmt::format("{} does not take flavor {}", row.name, rib::flavors_to_string(extra));
    if (l.flavors & rib::flavor::next_csid) {
        l.lcblock_bits = g.lblen.value_or(row.csid.block);
        l.lcnode_fn_bits = g.nflen.value_or(row.csid.node_fn);
        if (!rib::valid_csid(*l.lcblock_bits, *l.lcnode_fn_bits))
            return "lblen + nflen exceed 128 bits";
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

    given g;
    std::set<std::string_view> seen;
    for (size_t i = 2; i < toks.size(); i += 2) {
        const auto kw = toks[i];
        if (!seen.insert(kw).second)
            return fail(fmt::format("'{}' given twice", kw));
        if (i + 1 >= toks.size())
            return fail(fmt::format("'{}' needs a value", kw));
        if (auto e = parse_arg(kw, toks[i + 1], *row, s.local, g))
            return fail(*e);
    }
    if (auto e = check_against_contract(*row, g, s.local))
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
