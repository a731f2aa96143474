#include "apps/srv6d/config_file.hh"

#include <fmt/format.h>

#include <map>

#include "apps/srv6d/config_keys.hh"

namespace srv6d {
namespace {

std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool known_section(std::string_view s) {
    for (const auto& k : config_keys())
        if (*k.section && s == k.section)
            return true;
    return false;
}

// Where a key that is not in its section probably belongs.
std::string misplaced(std::string_view section, std::string_view name) {
    if (name == "vrf" && !section.empty())
        return fmt::format("'vrf = ...' in [{}]: vrf lines go before the first [section]", section);
    if (name == "sid" && section != "sids")
        return "'sid = ...' outside [sids]: sid lines go in the [sids] section";
    if (name == "route" && section != "routes")
        return "'route = ...' outside [routes]: route lines go in the [routes] section";
    // A key of another section: say which.
    for (const auto& k : config_keys())
        if (name == k.name && *k.section)
            return fmt::format("unknown setting '{}{}{}': {} belongs in [{}]", section, section.empty() ? "" : ".", name,
                               name, k.section);
    return {};
}

}  // namespace

config_text read_config_text(std::string_view text) {
    config_text out;
    std::string section;
    std::map<std::string, unsigned, std::less<>> seen;  // non-repeatable key -> its line
    unsigned n = 0;
    auto fail = [&](std::string why) {
        out.error_line = n;
        out.error = std::move(why);
        return out;
    };
    while (!text.empty()) {
        ++n;
        const auto eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        line = trim(line.substr(0, line.find('#')));
        if (line.empty())
            continue;
        if (line.front() == '[') {
            if (line.back() != ']' || line.size() < 3)
                return fail(fmt::format("'{}' is not a [section] line", line));
            const auto name = trim(line.substr(1, line.size() - 2));
            if (!known_section(name)) {
                const std::string near = nearest_section(name);
                return fail(fmt::format("unknown section [{}]{}", name,
                                        near.empty() ? fmt::format(" (sections: {})", section_list())
                                                     : fmt::format(" (did you mean [{}]?)", near)));
            }
            section = name;
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) {
            // "port 2620": a key without its '='?
            const auto word = line.substr(0, line.find_first_of(" \t"));
            const std::string key = section.empty() ? std::string(word) : fmt::format("{}.{}", section, word);
            if (find_config_key(key))
                return fail(fmt::format("'{}' is not 'key = value' (did you mean '{} = {}'?)", line, word,
                                        trim(line.substr(word.size()))));
            return fail(fmt::format("'{}' is not 'key = value', a [section] or a # comment", line));
        }
        const auto name = trim(line.substr(0, eq));
        const auto value = trim(line.substr(eq + 1));
        if (name.empty())
            return fail(fmt::format("'{}' has no key before its '='", line));
        const std::string key = section.empty() ? std::string(name) : fmt::format("{}.{}", section, name);
        const config_key* k = find_config_key(key);
        if (!k) {
            if (auto why = misplaced(section, name); !why.empty())
                return fail(std::move(why));
            return fail(unknown_key_error(key));
        }
        if (!k->repeatable) {
            if (const auto it = seen.find(key); it != seen.end())
                return fail(fmt::format("{} is set twice (first on line {})", key, it->second));
            seen.emplace(key, n);
        }
        out.settings.push_back({key, std::string(value), n});
    }
    return out;
}

}  // namespace srv6d
