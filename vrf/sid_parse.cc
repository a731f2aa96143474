#include "vrf/sid_parse.hh"

#include <charconv>
#include <cstdint>
#include <set>
#include <string>

#include <fmt/format.h>

#include "rib/behaviors.hh"
#include "vrf/spec.hh"

namespace vrf {
namespace {

using namespace rib::sid_param;

// The behaviors the dataplane executes whose arguments fit one line (End.B6.Encaps would need
// a segment list, End.DX2 an L2 port).
constexpr rib::behavior supported[] = {
    rib::behavior::end,     rib::behavior::end_x,   rib::behavior::end_t,   rib::behavior::end_dx4,
    rib::behavior::end_dx6, rib::behavior::end_dt4, rib::behavior::end_dt6, rib::behavior::end_dt46,
};

// The kernel's NEXT-C-SID defaults (SEG6_LOCAL_LCBLOCK_DBITS, SEG6_LOCAL_LCNODE_FN_DBITS).
constexpr uint8_t default_lblen = 32;
constexpr uint8_t default_nflen = 16;

parsed<sid_spec> fail(std::string_view line, std::string msg) {
    return {std::nullopt, fmt::format("sid '{}': {}", line, msg)};
}

bool number(std::string_view s, uint64_t max, uint64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc{} && end == s.data() + s.size() && out <= max;
}

}  // namespace

parsed<sid_spec> parse_sid(std::string_view line) {
    auto toks = split_words(line);
    if (toks.size() >= 2 && toks[0] == "sid" && toks[1] == "=")  // a whole "sid = ..." line
        toks.erase(toks.begin(), toks.begin() + 2);
    std::string shown;
    for (auto t : toks)
        shown += (shown.empty() ? "" : " ") + std::string(t);
    if (toks.size() < 2)
        return fail(shown, "expected 'PREFIX BEHAVIOR [ARGS] [flavors LIST]'");

    sid_spec s;
    const auto slash = toks[0].find('/');
    const auto addr = rib::parse_ip6(toks[0].substr(0, slash));
    const auto pfx = rib::parse_prefix(toks[0]);
    if (!addr || !pfx || pfx->af != rib::family::ipv6)
        return fail(shown, fmt::format("'{}' is not an IPv6 address or prefix", toks[0]));
    if (pfx->addr().v6() != *addr)  // a typo guard, as `ip route` refuses host bits
        return fail(shown, fmt::format("'{}' has bits set beyond its length (did you mean {}?)", toks[0],
                                       rib::to_string(*pfx)));
    s.sid = *pfx;

    const auto b = rib::behavior_from_name(toks[1]);
    bool ok = false;
    for (auto x : supported)
        ok |= b == x;
    if (!ok) {
        std::string names;
        for (auto x : supported)
            names += (names.empty() ? "" : ", ") + std::string(rib::behavior_name(x));
        return fail(shown, fmt::format("behavior '{}' is not one of {}", toks[1], names));
    }
    auto& l = s.local;
    l.action = *b;
    const std::string_view what = rib::behavior_name(l.action);
    const rib::behavior_info& info = *rib::find_behavior(static_cast<uint32_t>(l.action));

    uint16_t present = 0;
    std::set<std::string_view> seen;
    std::optional<uint8_t> lblen, nflen;
    for (size_t i = 2; i < toks.size(); i += 2) {
        const auto kw = toks[i];
        if (!seen.insert(kw).second)
            return fail(shown, fmt::format("'{}' given twice", kw));
        if (i + 1 >= toks.size())
            return fail(shown, fmt::format("'{}' needs a value", kw));
        const auto v = toks[i + 1];
        uint64_t n = 0;
        if (kw == "vrf") {
            if (auto e = check_ifname(v))
                return fail(shown, fmt::format("VRF {}", *e));
            l.vrf_name = std::string(v);
            present |= vrf_name;
        } else if (kw == "table") {
            if (!number(v, UINT32_MAX, n))
                return fail(shown, fmt::format("table '{}' is not a number from 1 to 4294967295", v));
            if (auto e = check_table(static_cast<rib::table_id>(n)))
                return fail(shown, *e);
            // As FRR sends them: End.T and End.DT6 with TABLE, End.DT4 and End.DT46 with VRFTABLE.
            const bool vrftab = l.action == rib::behavior::end_dt4 || l.action == rib::behavior::end_dt46;
            (vrftab ? l.vrftable : l.table) = static_cast<rib::table_id>(n);
            present |= vrftab ? vrftable : table;
        } else if (kw == "nh4") {
            const auto a = rib::parse_addr(v);
            if (!a || !a->is_v4())
                return fail(shown, fmt::format("nh4 '{}' is not an IPv4 address", v));
            l.nh4 = a->v4();
            present |= nh4;
        } else if (kw == "nh6") {
            const auto a = rib::parse_ip6(v);
            if (!a)
                return fail(shown, fmt::format("nh6 '{}' is not an IPv6 address", v));
            l.nh6 = *a;
            present |= nh6;
        } else if (kw == "oif") {
            if (!number(v, UINT32_MAX, n) || n == 0)
                return fail(shown, fmt::format("oif '{}' is not an interface index (1 to 4294967295)", v));
            l.oif = static_cast<uint32_t>(n);
            present |= oif;
        } else if (kw == "flavors") {
            std::string_view rest = v;
            while (true) {
                const size_t comma = rest.find(',');
                const auto name = rest.substr(0, comma);
                uint32_t bit = 0;
                for (uint32_t f = 1; f != 0 && !bit; f <<= 1)
                    if (!name.empty() && rib::flavor_name(f) == name)
                        bit = f;
                if (!bit)
                    return fail(shown, fmt::format("flavor '{}' is not one of psp, usp, usd, next-csid", name));
                if (l.flavors & bit)
                    return fail(shown, fmt::format("flavor {} listed twice", name));
                l.flavors |= bit;
                if (comma == std::string_view::npos)
                    break;
                rest.remove_prefix(comma + 1);
            }
            present |= flavors;
        } else if (kw == "lblen" || kw == "nflen") {
            // The kernel's rules: byte multiples, neither zero.
            if (!number(v, 120, n) || n == 0 || n % 8 != 0)
                return fail(shown, fmt::format("{} '{}' is not a multiple of 8 from 8 to 120", kw, v));
            (kw == "lblen" ? lblen : nflen) = static_cast<uint8_t>(n);
        } else {
            return fail(shown, fmt::format("unknown word '{}'; expected vrf, table, nh4, nh6, oif, flavors, lblen or nflen",
                                           kw));
        }
    }
    if ((present & vrf_name) && (present & (table | vrftable)))
        return fail(shown, "give 'vrf NAME' or 'table ID', not both");
    if (const uint16_t extra = static_cast<uint16_t>(present & ~info.allowed()))
        return fail(shown, fmt::format("{} takes no {}", what, rib::sid_params_to_string(extra)));
    if (const uint16_t need = info.missing(present)) {
        const bool a_table = need & (table | vrftable | vrf_name);
        return fail(shown, fmt::format("{} needs {}", what, a_table ? "'table ID' or 'vrf NAME'"
                                                                     : "'" + rib::sid_params_to_string(need) + " ADDRESS'"));
    }
    if ((lblen || nflen) && !(l.flavors & rib::flavor::next_csid))
        return fail(shown, "lblen and nflen belong to flavor next-csid");
    if (l.flavors & rib::flavor::next_csid) {
        l.lcblock_bits = lblen.value_or(default_lblen);
        l.lcnode_fn_bits = nflen.value_or(default_nflen);
        if (*l.lcblock_bits + *l.lcnode_fn_bits > 128)
            return fail(shown, "lblen + nflen exceed 128 bits");
    }
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
