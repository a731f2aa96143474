#include "vrf/spec.hh"

#include <fmt/format.h>

namespace vrf {

std::string_view to_string(source s) {
    switch (s) {
    case source::builtin: return "builtin";
    case source::config: return "config";
    case source::kernel: return "kernel";
    }
    return "?";
}

std::string to_string(source_set s) {
    std::string out;
    for (source x : {source::builtin, source::config, source::kernel}) {
        if (!s.has(x))
            continue;
        if (!out.empty())
            out += '+';
        out += to_string(x);
    }
    return out.empty() ? "none" : out;
}

std::optional<std::string> check_ifname(std::string_view name) {
    if (name.empty())
        return "empty name";
    if (name.size() > 15)
        return fmt::format("name '{}' is longer than 15 characters (IFNAMSIZ)", name);
    if (name == "." || name == "..")
        return fmt::format("name '{}' is not allowed", name);
    for (char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '/' || c == ':' || u <= ' ' || u >= 0x7f)
            return fmt::format("name '{}' contains a character interface names cannot have", name);
    }
    return std::nullopt;
}

std::optional<std::string> check_table(rib::table_id t) {
    switch (t) {
    case 0: return std::string("table 0 is not a table id");
    case 253: return std::string("table 253 is reserved by the kernel (default)");
    case 255: return std::string("table 255 is reserved by the kernel (local)");
    default: return std::nullopt;
    }
}

}  // namespace vrf
