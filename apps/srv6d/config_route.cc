#include "apps/srv6d/config_route.hh"

#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "vrf/spec.hh"

namespace srv6d {
namespace {

using error = std::optional<std::string>;

constexpr size_t max_srh_entries = 16;

bool is_inline(rib::encap_mode m) { return m == rib::encap_mode::inline_srh || m == rib::encap_mode::inline_red; }

struct mode_name {
    rib::encap_mode mode;
    std::string_view name;
};
constexpr mode_name modes[] = {
    {rib::encap_mode::inline_srh, "inline"},
    {rib::encap_mode::inline_red, "inline.red"},
    {rib::encap_mode::encap, "encap"},
    {rib::encap_mode::encap_red, "encap.red"},
};

std::string_view name_of(rib::encap_mode m) {
    for (const auto& x : modes)
        if (x.mode == m)
            return x.name;
    return "?";
}

error parse_segs(std::string_view list, std::vector<rib::ip6_addr>& out) {
    while (true) {
        const size_t comma = list.find(',');
        const auto word = list.substr(0, comma);
        const auto a = rib::parse_ip6(word);
        if (!a)
            return fmt::format("segs: '{}' is not an IPv6 address", word);
        out.push_back(*a);
        if (comma == std::string_view::npos)
            return std::nullopt;
        list.remove_prefix(comma + 1);
    }
}

error parse_prefix(std::string_view word, rib::prefix& out) {
    const auto pfx = rib::parse_prefix(word);
    const auto addr = rib::parse_addr(word.substr(0, word.find('/')));
    if (!pfx || !addr)
        return fmt::format("'{}' is not an IPv4 or IPv6 prefix", word);
    if (pfx->addr() != *addr)  // as `ip route` refuses host bits
        return fmt::format("'{}' has bits set beyond its length (did you mean {}?)", word, rib::to_string(*pfx));
    out = *pfx;
    return std::nullopt;
}

}  // namespace

vrf::parsed<route_spec> parse_route(std::string_view line) {
    auto toks = vrf::split_words(line);
    if (toks.size() >= 2 && toks[0] == "route" && toks[1] == "=")  // a whole "route = ..." line
        toks.erase(toks.begin(), toks.begin() + 2);
    std::string shown;
    for (auto t : toks)
        shown += (shown.empty() ? "" : " ") + std::string(t);
    auto fail = [&shown](std::string msg) -> vrf::parsed<route_spec> {
        return {std::nullopt, fmt::format("route '{}': {}", shown, msg)};
    };
    if (toks.empty())
        return fail("expected 'PREFIX [table ID] [mode MODE] segs SID,SID... [src ADDR]'");
    route_spec r;
    if (auto e = parse_prefix(toks[0], r.dst))
        return fail(*e);
    std::set<std::string_view> seen;
    for (size_t i = 1; i < toks.size(); i += 2) {
        const auto kw = toks[i];
        if (!seen.insert(kw).second)
            return fail(fmt::format("'{}' given twice", kw));
        if (i + 1 >= toks.size())
            return fail(fmt::format("'{}' needs a value", kw));
        const auto v = toks[i + 1];
        if (kw == "table") {
            uint64_t n = 0;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc{} || end != v.data() + v.size() || n == 0 || n > UINT32_MAX)
                return fail(fmt::format("table '{}' is not a number from 1 to 4294967295", v));
            r.table = static_cast<rib::table_id>(n);
            if (r.table != rib::main_table)
                if (auto e = vrf::check_table(r.table))
                    return fail(*e);
        } else if (kw == "mode") {
            const mode_name* m = nullptr;
            for (const auto& x : modes)
                if (x.name == v)
                    m = &x;
            if (!m)
                return fail(fmt::format("mode '{}' is not inline, inline.red, encap or encap.red", v));
            r.encap.mode = m->mode;
        } else if (kw == "segs") {
            if (auto e = parse_segs(v, r.encap.segments))
                return fail(*e);
        } else if (kw == "src") {
            const auto a = rib::parse_ip6(v);
            if (!a || a->is_zero())
                return fail(fmt::format("src '{}' is not an IPv6 address", v));
            r.encap.source = *a;
        } else {
            return fail(fmt::format("unknown word '{}'; expected table, mode, segs or src", kw));
        }
    }
    if (r.encap.segments.empty())
        return fail("needs 'segs SID,SID...'");
    const bool ins = is_inline(r.encap.mode);
    // H.Insert: the packet's destination takes the SRH's first entry; .Red leaves out the first SID.
    const size_t entries = r.encap.segments.size() + (r.encap.mode == rib::encap_mode::inline_srh ? 1 : 0);
    if (entries > max_srh_entries)
        return fail(fmt::format("segs: at most {} SIDs with mode {}", max_srh_entries - (entries - r.encap.segments.size()),
                                name_of(r.encap.mode)));
    if (ins && r.dst.af != rib::family::ipv6)
        return fail(fmt::format("mode {} takes an IPv6 prefix (H.Insert puts an SRH into an IPv6 packet)",
                                name_of(r.encap.mode)));
    if (ins && r.encap.source)
        return fail(fmt::format("mode {} takes no src: H.Insert keeps the packet's own source", name_of(r.encap.mode)));
    return {std::move(r), {}};
}

std::string route_text(const route_spec& r) {
    std::string out = rib::to_string(r.dst);
    if (r.table != rib::main_table)
        out += fmt::format(" table {}", r.table);
    out += fmt::format(" mode {} segs ", name_of(r.encap.mode));
    for (size_t i = 0; i < r.encap.segments.size(); ++i)
        out += (i ? "," : "") + rib::to_string(r.encap.segments[i]);
    if (r.encap.source)
        out += " src " + rib::to_string(*r.encap.source);
    return out;
}

rib::route to_route(const route_spec& s) {
    rib::route r;
    r.key.table = s.table;
    r.key.dst = s.dst;
    r.protocol = rib::proto::config;
    rib::nexthop n;
    n.seg6 = s.encap;
    r.nexthops = {n};
    return r;
}

}  // namespace srv6d
