#include "apps/srv6d/config.hh"

#include "apps/srv6d/config_file.hh"
#include "apps/srv6d/config_keys.hh"

#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <optional>
#include <cstring>
#include <sstream>
#include <string_view>

#include "forward/control/eal.hh"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION "unknown"
#endif

namespace srv6d {
namespace po = boost::program_options;

namespace {

// A string-valued option. typed_value<std::string> would do, but its notify() trips g++ 12's
// -Wnull-dereference inside libstdc++ (a false positive); values are validated by us anyway.
class text_value : public po::untyped_value {
public:
    explicit text_value(const char* name = "VALUE") : po::untyped_value(false), _name(name) {}
    std::string name() const override { return _name; }

private:
    std::string _name;
};

// A repeatable string option (`vrf = ...` lines): every occurrence is kept, in order.
class text_list_value : public po::untyped_value {
public:
    explicit text_list_value(std::string name) : po::untyped_value(false), _name(std::move(name)) {}
    std::string name() const override { return _name; }
    void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
        if (store.empty())
            store = std::vector<std::string>();
        auto& v = boost::any_cast<std::vector<std::string>&>(store);
        v.insert(v.end(), tokens.begin(), tokens.end());
    }

private:
    std::string _name;
};

// A command-line error; an unknown --key names the nearest valid one.
std::string cli_error(const po::error& e) {
    if (const auto* u = dynamic_cast<const po::unknown_option*>(&e)) {
        std::string opt = u->get_option_name();
        opt.erase(0, opt.find_first_not_of('-'));  // "--fpm.prot"
        return unknown_key_error(opt);
    }
    return e.what();
}

}  // namespace

std::string_view version() { return SRV6D_VERSION; }

namespace {
// "0-3,6" -> {0,1,2,3,6}; nullopt when it is not such a list (DPDK's --lcores maps, masks).
std::optional<std::vector<unsigned>> cpu_list(std::string_view s) {
    std::vector<unsigned> out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        const std::string_view item = s.substr(0, comma);
        s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
        const auto dash = item.find('-');
        unsigned a = 0, b = 0;
        auto num = [](std::string_view t, unsigned& v) {
            const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
            return !t.empty() && ec == std::errc{} && p == t.data() + t.size() && v < 4096;
        };
        if (!num(item.substr(0, dash), a))
            return std::nullopt;
        b = a;
        if (dash != std::string_view::npos && (!num(item.substr(dash + 1), b) || b < a))
            return std::nullopt;
        for (unsigned c = a; c <= b; ++c)
            out.push_back(c);
    }
    return out;
}
}  // namespace

host_check check_host(const config& cfg, const std::string& allowed_cpus, const std::string& hugepages_dir,
                      const std::string& mounts) {
    host_check out;
    if (!cfg.dataplane_enabled)
        return out;
    if (auto e = fwd::eal_preflight(cfg.eal_args, hugepages_dir, mounts); !e.empty()) {
        // The one refusal of eal.args alone; the others are this host's pages and mounts.
        if (e.find("cannot be combined") != std::string::npos)
            out.error = std::move(e);
        else
            out.warnings.push_back(std::move(e));
    }
    std::string allowed = allowed_cpus;
    if (allowed.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) != 0)
            return out;
        allowed = fwd::cpu_list(set);
    }
    const auto ok = cpu_list(allowed);
    for (size_t i = 0; ok && i + 1 < cfg.eal_args.size(); ++i) {
        if (cfg.eal_args[i] != "-l")
            continue;
        const auto want = cpu_list(cfg.eal_args[i + 1]);
        if (!want)
            continue;  // a form this check does not read: EAL will
        for (const unsigned c : *want)
            if (std::find(ok->begin(), ok->end(), c) == ok->end()) {
                out.warnings.push_back(fmt::format("eal.args: lcore {} of '-l {}' is not a CPU srv6d may use here (CPUs {})",
                                                   c, cfg.eal_args[i + 1], allowed));
                break;
            }
    }
    return out;
}

config default_config() {
    config c;
    c.eal_args = fwd::default_eal_args();
    return c;
}

std::string apply_setting(config& cfg, const std::string& key, const std::string& value) {
    const config_key* k = find_config_key(key);
    return k ? k->apply(cfg, key, value) : unknown_key_error(key);
}

parse_result parse_args(int argc, const char* const* argv) {
    parse_result r;
    r.cfg = default_config();

    po::options_description generic("Options");
    generic.add_options()
        ("help,h", "print this help and exit")
        ("version,V", "print the version and exit")
        ("config,c", new text_value("FILE"), "read settings from FILE (INI)")
        ("check-config", new text_value("FILE"), "validate FILE (and any --section.key) and exit: 0 valid, 1 not");
    po::options_description settings(
        "Settings (INI key 'key' in section [section], or --section.key VALUE on the command line, which wins)");
    for (const auto& k : config_keys()) {
        const std::string key = k.key();
        std::string help = k.help;
        if (k.repeatable)
            help += " (repeatable)";
        else
            help += fmt::format(" (default {})", *k.def ? k.def : "none");
        if (k.repeatable)
            settings.add_options()(key.c_str(), new text_list_value(fmt::format("'{}'", k.arg)), help.c_str());
        else
            settings.add_options()(key.c_str(), new text_value(k.arg), help.c_str());
    }
    po::options_description all;
    all.add(generic).add(settings);

    po::variables_map cli;
    // The file's values of each key, with their lines (config_file.hh).
    std::map<std::string, std::vector<const config_line*>> file;
    config_text text;
    try {
        // An empty positional list makes a stray word an error instead of being ignored.
        const po::positional_options_description none;
        po::store(po::command_line_parser(argc, argv).options(all).positional(none).run(), cli);
    } catch (const po::error& e) {
        r.what = action::error;
        r.text = cli_error(e);
        return r;
    }
    if (cli.count("help")) {
        std::ostringstream out;
        out << "Usage: srv6d [-c FILE] [--section.key VALUE ...]\n"
            << "       srv6d --check-config FILE [--section.key VALUE ...]\n"
            << "SRv6 L3VPN forwarding backend fed by FRR zebra over FPM.\n"
            << all;
        r.what = action::help;
        r.text = out.str();
        return r;
    }
    if (cli.count("version")) {
        r.what = action::version;
        r.text = "srv6d " SRV6D_VERSION "\n";
        return r;
    }
    if (cli.count("check-config")) {
        if (cli.count("config")) {
            r.what = action::error;
            r.text = "--check-config FILE takes the place of -c FILE: give one of them";
            return r;
        }
        r.check_only = true;
    }
    if (cli.count("config") || r.check_only) {
        r.cfg.config_file = cli[r.check_only ? "check-config" : "config"].as<std::string>();
        // A directory opens as a stream that reads nothing: it would start with every default.
        std::error_code ec;
        const auto st = std::filesystem::status(r.cfg.config_file, ec);
        if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
            r.what = action::error;
            r.text = fmt::format("config file '{}' is not a regular file{}", r.cfg.config_file,
                                 std::filesystem::is_directory(st) ? " (a directory)" : "");
            return r;
        }
        std::ifstream in(r.cfg.config_file);
        if (!in) {
            r.what = action::error;
            r.text = fmt::format("cannot read config file '{}': {}", r.cfg.config_file, std::strerror(errno));
            return r;
        }
        std::ostringstream body;
        body << in.rdbuf();
        text = read_config_text(body.str());
        if (text.error_line) {
            r.what = action::error;
            r.text = fmt::format("{}:{}: {}", r.cfg.config_file, text.error_line, text.error);
            return r;
        }
        for (const auto& l : text.settings)
            file[l.key].push_back(&l);
    }
    // Where a value came from, for its error: "FILE:LINE: " or "" (the command line).
    auto at = [&](const config_line* l) {
        return l ? fmt::format("{}:{}: ", r.cfg.config_file, l->line) : std::string();
    };
    // The file's line of the first (or `i`th) value of `key`, when the value came from the file.
    auto line_of = [&](const std::string& key, size_t i = 0) -> const config_line* {
        if (cli.count(key))
            return nullptr;
        const auto it = file.find(key);
        return it != file.end() && i < it->second.size() ? it->second[i] : nullptr;
    };
    // Plain keys first, then the repeatable ones, each in table order (ports before neighbors).
    for (const bool repeatable : {false, true}) {
        for (const auto& k : config_keys()) {
            if (k.repeatable != repeatable)
                continue;
            // The command line's value (or lines) replace the file's.
            const std::string key = k.key();
            std::vector<std::pair<std::string, const config_line*>> values;
            if (cli.count(key)) {
                for (auto& v : repeatable ? cli[key].as<std::vector<std::string>>()
                                          : std::vector<std::string>{cli[key].as<std::string>()})
                    values.emplace_back(std::move(v), nullptr);
            } else if (const auto it = file.find(key); it != file.end()) {
                for (const auto* l : it->second)
                    values.emplace_back(l->value, l);
            }
            for (const auto& [v, l] : values) {
                auto err = k.apply(r.cfg, key, v);
                if (!err.empty()) {
                    r.what = action::error;
                    r.text = at(l) + err;
                    return r;
                }
            }
        }
    }
    // Sub-ports name their parents, VLAN ids are unique per parent, MTUs fit.
    if (std::string err; !fwd::check_ports(r.cfg.ports, err)) {
        r.what = action::error;
        // The error names the port ("sub-port ce0.100: ...", "port ce0 is ..."): its line.
        const config_line* l = nullptr;
        for (size_t i = 0; i < r.cfg.ports.size() && !l; ++i)
            if (err.starts_with("sub-port " + r.cfg.ports[i].name + ":") ||
                err.starts_with("port " + r.cfg.ports[i].name + " "))
                l = line_of("dataplane.port", i);
        r.text = at(l) + err;
        return r;
    }
    if (std::string err; !fwd::check_vpws(r.cfg.vpws, r.cfg.ports, err)) {
        r.what = action::error;
        r.text = err;
        return r;
    }
    // A route line and a sid line at one key would replace each other in the RIB.
    for (size_t i = 0; i < r.cfg.routes.size(); ++i) {
        const auto& rt = r.cfg.routes[i];
        for (const auto& sid : r.cfg.sids)
            if (rt.table == rib::main_table && rt.dst == sid.sid) {
                r.what = action::error;
                r.text = at(line_of("routes.route", i)) +
                         fmt::format("route {}: sid {} is the same prefix in table 254 (one line per prefix)",
                                     rib::to_string(rt.dst), rib::to_string(sid.sid));
                return r;
            }
    }
    // Every neighbor names a configured port.
    for (size_t i = 0; i < r.cfg.neighbors.size(); ++i) {
        const auto& n = r.cfg.neighbors[i];
        bool known = false;
        for (const auto& p : r.cfg.ports)
            known |= p.name == n.port;
        if (!known) {
            r.what = action::error;
            r.text = at(line_of("dataplane.neighbor", i)) +
                     fmt::format("neighbor on port '{}': no such port (dataplane.port lines name them)", n.port);
            return r;
        }
    }
    // A cap below the quiet time would make the quiet time meaningless: say so rather than guess.
    if (r.cfg.resync_max < r.cfg.resync_quiet) {
        r.what = action::error;
        r.text = at(line_of("fpm.resync-max-ms") ? line_of("fpm.resync-max-ms") : line_of("fpm.resync-quiet-ms")) + fmt::format("fpm.resync-max-ms ({}) must not be smaller than fpm.resync-quiet-ms ({})",
                             r.cfg.resync_max.count(), r.cfg.resync_quiet.count());
        return r;
    }
    return r;
}

}  // namespace srv6d
