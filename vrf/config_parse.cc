#include "vrf/config_parse.hh"

#include <charconv>
#include <set>
#include <vector>

#include <fmt/format.h>


namespace vrf {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return s;
}

template <typename T>
parsed<T> fail(std::string_view line, std::string msg) {
    return parsed<T>{std::nullopt, fmt::format("vrf '{}': {}", line, msg)};
}

}  // namespace

std::vector<std::string_view> split_words(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && blank(s[i]))
            ++i;
        size_t j = i;
        while (j < s.size() && !blank(s[j]))
            ++j;
        if (j > i)
            out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

parsed<vrf_spec> parse_vrf(std::string_view line) {
    std::string_view body = trim(line);
    if (body.starts_with("vrf")) {  // a whole "vrf = ..." line
        std::string_view rest = trim(body.substr(3));
        if (rest.starts_with("="))
            body = trim(rest.substr(1));
    }
    const auto shown = body;
    const auto toks = split_words(body);
    if (toks.empty())
        return fail<vrf_spec>(shown, "empty; expected 'NAME table ID [members IF,...]'");

    vrf_spec spec;
    spec.name = std::string(toks[0]);
    if (auto e = check_ifname(spec.name))
        return fail<vrf_spec>(shown, fmt::format("VRF {}", *e));
    if (spec.name == "table" || spec.name == "members")
        return fail<vrf_spec>(shown, "the VRF name comes first: 'NAME table ID [members IF,...]'");

    bool have_table = false, have_members = false;
    std::set<std::string, std::less<>> seen;
    for (size_t i = 1; i < toks.size();) {
        const auto kw = toks[i];
        if (kw == "table") {
            if (have_table)
                return fail<vrf_spec>(shown, "'table' given twice: a VRF has exactly one table");
            if (i + 1 >= toks.size())
                return fail<vrf_spec>(shown, "'table' needs a table id");
            const auto num = toks[i + 1];
            uint64_t t = 0;
            auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), t);
            if (ec != std::errc{} || end != num.data() + num.size() || t > UINT32_MAX)
                return fail<vrf_spec>(shown, fmt::format("table '{}' is not a number from 1 to 4294967295", num));
            spec.table = static_cast<rib::table_id>(t);
            if (auto e = check_table(spec.table))
                return fail<vrf_spec>(shown, *e);
            have_table = true;
            i += 2;
        } else if (kw == "members") {
            if (have_members)
                return fail<vrf_spec>(shown, "'members' given twice");
            have_members = true;
            // Everything up to the next keyword is the list: "eth1,eth2" or "eth1, eth2".
            std::string list;
            for (++i; i < toks.size() && toks[i] != "table" && toks[i] != "members"; ++i)
                list += toks[i];
            if (list.empty())
                return fail<vrf_spec>(shown, "'members' needs a comma-separated interface list");
            std::string_view rest = list;
            while (true) {
                const size_t comma = rest.find(',');
                const auto ifname = rest.substr(0, comma);
                if (ifname.empty())
                    return fail<vrf_spec>(shown, "empty interface name in the member list");
                if (auto e = check_ifname(ifname))
                    return fail<vrf_spec>(shown, fmt::format("member {}", *e));
                if (!seen.insert(std::string(ifname)).second)
                    return fail<vrf_spec>(shown, fmt::format("interface {} is listed twice", ifname));
                spec.members.push_back(member{std::string(ifname), 0});
                if (comma == std::string_view::npos)
                    break;
                rest.remove_prefix(comma + 1);
            }
        } else {
            return fail<vrf_spec>(shown, fmt::format("unknown word '{}'; expected 'table' or 'members'", kw));
        }
    }
    if (!have_table)
        return fail<vrf_spec>(shown, "missing 'table ID': a VRF has exactly one table");
    if (spec.name == default_vrf_name && spec.table != default_vrf_table)
        return fail<vrf_spec>(shown, fmt::format("the default VRF is table {}", default_vrf_table));
    if (spec.name != default_vrf_name && spec.table == default_vrf_table)
        return fail<vrf_spec>(shown, fmt::format("table {} is the default VRF's", default_vrf_table));
    return parsed<vrf_spec>{std::move(spec), {}};
}

}  // namespace vrf
