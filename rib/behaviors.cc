#include "rib/behaviors.hh"

#include <algorithm>

#include <fmt/format.h>

#include "rib/sid_params.hh"

namespace rib {
namespace {

namespace sp = sid_param;

struct flavor_entry {
    uint32_t bit;
    std::string_view name;
};
constexpr std::array<flavor_entry, 4> flavors_ = {{
    {flavor::psp, "psp"},
    {flavor::usp, "usp"},
    {flavor::usd, "usd"},
    {flavor::next_csid, "next-csid"},
}};

bool iequals(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

template <class F>
std::string joined(std::string_view sep, F&& each) {
    std::string out;
    each([&](std::string_view s) {
        if (!out.empty())
            out += sep;
        out += s;
    });
    return out;
}

}  // namespace

contract_check check_contract(const seg6local& l) {
    const behavior_info* b = find_behavior(l.action);
    if (!b)
        return {contract_refusal::no_handler, fmt::format("behavior {} is not known", static_cast<unsigned>(l.action))};
    if (b->handler == dp_handler::none)
        return {contract_refusal::no_handler, fmt::format("{}: srv6d's dataplane does not implement it", b->name)};
    if (const uint32_t extra = l.flavors & ~b->flavors)
        return {contract_refusal::flavor, flavor_refusal(*b, extra)};
    if (l.flavors & flavor::next_csid)
        if (auto why = csid_fault(csid_of(l)))
            return {contract_refusal::flavor, std::move(*why)};
    return {};
}

std::string_view behavior_name(behavior b) {
    const auto* info = find_behavior(b);
    return info ? info->name : "unknown";
}

std::optional<behavior> behavior_from_name(std::string_view name) {
    for (const auto& info : behavior_table())
        if (iequals(info.name, name))
            return info.action;
    return std::nullopt;
}

std::string_view behavior_display_name(behavior b, uint32_t flavor_bits) {
    const auto* info = find_behavior(b);
    if (!info)
        return "unknown";
    return (flavor_bits & flavor::next_csid) && !info->csid_name.empty() ? info->csid_name : info->name;
}

std::string_view flavor_name(uint32_t bit) {
    for (const auto& f : flavors_)
        if (f.bit == bit)
            return f.name;
    return {};
}

std::optional<uint32_t> flavor_from_name(std::string_view name) {
    for (const auto& f : flavors_)
        if (f.name == name)
            return f.bit;
    return std::nullopt;
}

std::string flavors_to_string(uint32_t mask) {
    std::string out = joined(",", [&](auto add) {
        for (const auto& f : flavors_)
            if (mask & f.bit)
                add(f.name);
    });
    if (const uint32_t rest = mask & ~known_flavors)
        out += fmt::format("{}{:#x}", out.empty() ? "" : ",", rest);
    return out;
}

std::string_view name(dp_handler h) {
    switch (h) {
    case dp_handler::none: return "none";
    case dp_handler::next_segment: return "next_segment";
    case dp_handler::decap: return "decap";
    case dp_handler::b6_encaps: return "b6_encaps";
    }
    return "?";
}

std::string decap_to_string(uint8_t families) {
    return joined(",", [&](auto add) {
        if (families & decap::v4)
            add("IPv4");
        if (families & decap::v6)
            add("IPv6");
        if (families & decap::eth)
            add("Ethernet");
    });
}

std::string behavior_table_markdown() {
    auto or_dash = [](std::string s) { return s.empty() ? std::string("-") : s; };
    // A '|' would end the Markdown cell: alternatives read "table or vrftable", sets "oif, ifname".
    auto words = [](uint16_t params, std::string_view sep) {
        std::string w = sid_params_to_string(params);
        for (size_t at = w.find('|'); at != std::string::npos; at = w.find('|', at + sep.size()))
            w.replace(at, 1, sep);
        return w;
    };
    std::string out =
        "| behavior | NEXT-C-SID name | defined in | requires | may carry | flavors | decapsulates | binds a VRF via | "
        "sends to | datapath handler |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n";
    auto words_of_flavors = [](uint32_t f) {
        std::string w = flavors_to_string(f);
        for (size_t at = w.find(','); at != std::string::npos; at = w.find(',', at + 2))
            w.replace(at, 1, ", ");
        return w;
    };
    for (const auto& b : behavior_table()) {
        const std::string required = joined(" and ", [&](auto add) {
            for (uint16_t r : b.required)
                if (r)
                    add(words(r, " or "));
        });
        const uint16_t optional = static_cast<uint16_t>(b.optional & ~(sp::flavors | sp::structure));
        const char* vrf = b.vrf == vrf_attr::table ? "SEG6_LOCAL_TABLE" : b.vrf == vrf_attr::vrftable ? "SEG6_LOCAL_VRFTABLE" : "-";
        const std::string to = b.adjacency == sp::oif              ? std::string("port (oif), frame unchanged")
                               : b.adjacency                         ? fmt::format("adjacency ({})", words(b.adjacency, ", "))
                               : b.handler == dp_handler::b6_encaps ? std::string("FIB lookup of the policy's first SID")
                                                                    : std::string("FIB lookup");
        const std::string csid =
            b.flavors & flavor::next_csid ? fmt::format(" ({}/{})", b.csid.block, b.csid.node_fn) : std::string();
        auto decaps = [&](const behavior_info& r) {
            if (!r.decap)
                return std::string("-");
            // End, End.X, End.T decapsulate with the USD flavor only.
            return decap_to_string(r.decap) + (r.handler == dp_handler::next_segment ? " (USD)" : "");
        };
        out += fmt::format("| {} | {} | {} | {} | {} | {}{} | {} | {} | {} | {} |\n", b.name, or_dash(std::string(b.csid_name)),
                           b.rfc, or_dash(required), or_dash(words(optional, ", ")),
                           or_dash(words_of_flavors(b.flavors)), csid, decaps(b), vrf,
                           b.handler == dp_handler::none ? "-" : to, b.handler == dp_handler::none
                                                                         ? std::string("none: refused")
                                                                         : std::string(name(b.handler)));
    }
    return out;
}

}  // namespace rib
