#include "apps/srv6d/config.hh"

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string_view>

#include "forward/control/eal.hh"
#include "vrf/config_parse.hh"
#include "vrf/encap_source.hh"

#ifndef SRV6D_VERSION
#define SRV6D_VERSION "unknown"
#endif

namespace srv6d {
namespace po = boost::program_options;

namespace {

std::string invalid(const std::string& key, const std::string& value, std::string_view expected) {
    return fmt::format("invalid value '{}' for {}: expected {}", value, key, expected);
}

template <typename T>
bool parse_uint(const std::string& s, T min, T max, T& out) {
    uint64_t v = 0;
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc{} || p != end || v < min || v > max)
        return false;
    out = static_cast<T>(v);
    return true;
}

bool parse_bool(std::string s, bool& out) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (s == "true" || s == "yes" || s == "on" || s == "1")
        out = true;
    else if (s == "false" || s == "no" || s == "off" || s == "0")
        out = false;
    else
        return false;
    return true;
}

// 24 h: far beyond any sane replay time, and far from overflowing a steady_clock deadline.
constexpr uint64_t max_resync_ms = 86'400'000;
// sockaddr_un::sun_path holds 108 bytes including the terminating NUL.
constexpr size_t max_socket_path = 107;

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
    explicit text_list_value(const char* name) : po::untyped_value(false), _name(name) {}
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

constexpr const char* vrf_key = "vrf";
constexpr const char* port_key = "dataplane.port";
constexpr const char* neighbor_key = "dataplane.neighbor";
constexpr const char* sid_key = "sids.sid";
// Repeatable keys: every line counts, and the command line's replace the file's.
constexpr const char* list_keys[] = {vrf_key, port_key, neighbor_key, sid_key};

// Errors of a config file, with a hint where the INI syntax is the likely cause.
std::string file_error(const std::string& file, const po::error& e) {
    const auto* u = dynamic_cast<const po::unknown_option*>(&e);
    if (u) {
        const std::string opt = u->get_option_name();
        if (opt.size() > 4 && opt.ends_with(".vrf"))
            return fmt::format("{}: 'vrf = ...' in [{}]: vrf lines go before the first [section]", file,
                               opt.substr(0, opt.size() - 4));
        if (opt == "sid" || (opt.ends_with(".sid") && opt != sid_key))
            return fmt::format("{}: 'sid = ...' outside [sids]: sid lines go in the [sids] section", file);
    }
    return fmt::format("{}: {}", file, e.what());
}

struct key_info {
    const char* key;
    const char* help;
};

// Every settable key, in the order the help text lists them.
constexpr key_info keys[] = {
    {"fpm.listen", "FPM listen address, IPv4 or IPv6 (default 127.0.0.1)"},
    {"fpm.port", "FPM TCP port (default 2620; 0 = any free port)"},
    {"fpm.resync-quiet-ms", "sweep stale routes after the replay has been quiet this long (default 10000)"},
    {"fpm.resync-max-ms", "sweep at the latest this long after zebra connected (default 120000)"},
    {"mgmt.socket", "management unix socket path (default /run/srv6d/srv6d.sock)"},
    {"log.level", "error | warn | info | debug (default info)"},
    {"eal.args", "DPDK EAL arguments, whitespace separated"},
    {"dataplane.enabled", "true | false: false skips DPDK EAL init (default true)"},
    {"dataplane.mbufs", "packet buffers for all ports and workers (default 16383)"},
    {"dataplane.punt-rate", "packets per second each port may punt to its TAP mirror (default 10000)"},
    {"dataplane.punt-burst", "burst of the punt policer, in packets (default 512)"},
    {"encap.source", "IPv6 source address of H.Encaps packets (default none)"},
};

}  // namespace

config default_config() {
    config c;
    c.eal_args = fwd::default_eal_args();
    return c;
}

std::string apply_setting(config& cfg, const std::string& key, const std::string& value) {
    if (key == "fpm.listen") {
        std::string_view v = value;
        if (v.size() >= 2 && v.front() == '[' && v.back() == ']')  // "[::1]" as in URLs
            v = v.substr(1, v.size() - 2);
        if (!rib::parse_addr(v))
            return invalid(key, value, "an IPv4 or IPv6 address");
        cfg.fpm_listen = std::string(v);
    } else if (key == "fpm.port") {
        if (!parse_uint<uint16_t>(value, 0, 65535, cfg.fpm_port))
            return invalid(key, value, "an integer 0..65535");
    } else if (key == "fpm.resync-quiet-ms" || key == "fpm.resync-max-ms") {
        uint64_t ms = 0;
        if (!parse_uint<uint64_t>(value, 1, max_resync_ms, ms))
            return invalid(key, value, fmt::format("milliseconds 1..{}", max_resync_ms));
        (key == "fpm.resync-quiet-ms" ? cfg.resync_quiet : cfg.resync_max) =
            std::chrono::milliseconds(static_cast<int64_t>(ms));
    } else if (key == "mgmt.socket") {
        if (value.empty() || value.size() > max_socket_path)
            return invalid(key, value, fmt::format("a unix socket path of 1..{} bytes", max_socket_path));
        cfg.mgmt_socket = value;
    } else if (key == "log.level") {
        if (!util::parse_level(value, cfg.log_level))
            return invalid(key, value, "error, warn, info or debug");
    } else if (key == "eal.args") {
        cfg.eal_args = fwd::split_args(value);
    } else if (key == "dataplane.enabled") {
        if (!parse_bool(value, cfg.dataplane_enabled))
            return invalid(key, value, "true or false");
    } else if (key == "encap.source") {
        if (value.empty()) {
            cfg.encap_source.reset();
            return {};
        }
        const auto a = rib::parse_ip6(value);
        // A packet source must be a unicast address replies can come back to.
        if (!a)
            return invalid(key, value, "a unicast IPv6 address");
        if (const auto why = vrf::check_encap_source(*a))
            return invalid(key, value, fmt::format("a unicast IPv6 address ({})", *why));
        cfg.encap_source = *a;
    } else if (key == "dataplane.mbufs") {
        unsigned long n = 0;
        try {
            n = std::stoul(value);
        } catch (const std::exception&) {
            n = 0;
        }
        if (n < 1023 || n > (1u << 24))
            return invalid(key, value, "a number of mbufs from 1023 to 16777216");
        cfg.mbufs = static_cast<unsigned>(n);
    } else if (key == "dataplane.punt-rate" || key == "dataplane.punt-burst") {
        unsigned long n = 0;
        try {
            n = std::stoul(value);
        } catch (const std::exception&) {
            n = 0;
        }
        if (n < 1 || n > 100'000'000)
            return invalid(key, value, "a number from 1 to 100000000");
        (key == "dataplane.punt-rate" ? cfg.punt_rate : cfg.punt_burst) = static_cast<uint32_t>(n);
    } else if (key == port_key) {
        std::string err;
        auto p = fwd::parse_port(value, err);
        if (!p)
            return fmt::format("invalid port '{}': {}", value, err);
        for (const auto& o : cfg.ports)
            if (o.name == p->name || o.devargs == p->devargs)
                return fmt::format("invalid port '{}': port {} ({}) is configured twice", value, o.name, o.devargs);
        if (cfg.ports.size() >= fwd::max_ports)
            return fmt::format("invalid port '{}': at most {} ports", value, fwd::max_ports);
        cfg.ports.push_back(std::move(*p));
    } else if (key == neighbor_key) {
        std::string err;
        auto n = fwd::parse_neighbor(value, err);
        if (!n)
            return fmt::format("invalid neighbor '{}': {}", value, err);
        cfg.neighbors.push_back(std::move(*n));
    } else if (key == vrf_key) {
        auto spec = vrf::parse_vrf(value);
        if (!spec)
            return spec.error;  // "vrf 'red table ten': table 'ten' is not a number ..."
        // One line per VRF, one VRF per table: srv6d's own config must not contradict itself
        // (the registry would refuse the second claim; at startup an error is clearer).
        for (const auto& v : cfg.vrfs) {
            if (v.name == spec.value->name)
                return fmt::format("invalid vrf '{}': vrf {} is configured twice", value, v.name);
            if (v.table == spec.value->table)
                return fmt::format("invalid vrf '{}': vrf {}: table {} is already bound to vrf {}", value,
                                   spec.value->name, v.table, v.name);
        }
        cfg.vrfs.push_back(std::move(*spec.value));
    } else if (key == sid_key) {
        auto spec = vrf::parse_sid(value);
        if (!spec)
            return spec.error;  // "sid 'fc00::1 End.DT4': End.DT4 needs 'table ID' or 'vrf NAME'"
        // One line per SID: two behaviors for one prefix would leave the choice to line order.
        for (const auto& o : cfg.sids)
            if (o.sid == spec.value->sid)
                return fmt::format("invalid sid '{}': sid {} is configured twice", value, rib::to_string(o.sid));
        cfg.sids.push_back(std::move(*spec.value));
    } else {
        return fmt::format("unknown setting '{}'", key);
    }
    return {};
}

parse_result parse_args(int argc, const char* const* argv) {
    parse_result r;
    r.cfg = default_config();

    po::options_description generic("Options");
    generic.add_options()
        ("help,h", "print this help and exit")
        ("version,V", "print the version and exit")
        ("config,c", new text_value("FILE"), "read settings from FILE (INI)");
    po::options_description settings(
        "Settings (INI key 'key' in section [section], or --section.key VALUE on the command line, which wins)");
    for (const auto& k : keys)
        settings.add_options()(k.key, new text_value, k.help);
    settings.add_options()(vrf_key, new text_list_value("'NAME table ID [members IF,...]'"),
                           "a VRF bound to a kernel table (repeatable; in a file: before any [section])");
    settings.add_options()(port_key, new text_list_value("'NAME DEVARGS [vrf=VRF] [ifname=IF] [ifindex=N] [mtu=N]'"),
                           "a DPDK port (repeatable)");
    settings.add_options()(neighbor_key, new text_list_value("'PORT ADDRESS MAC'"),
                           "a static neighbor on a port (repeatable)");
    settings.add_options()(sid_key, new text_list_value("'PREFIX BEHAVIOR [ARGS] [flavors LIST]'"),
                           "a local SID of srv6d's own, in [sids] (repeatable)");
    po::options_description all;
    all.add(generic).add(settings);

    po::variables_map cli, file;
    try {
        // An empty positional list makes a stray word an error instead of being ignored.
        const po::positional_options_description none;
        po::store(po::command_line_parser(argc, argv).options(all).positional(none).run(), cli);
    } catch (const po::error& e) {
        r.what = action::error;
        r.text = e.what();
        return r;
    }
    if (cli.count("help")) {
        std::ostringstream out;
        out << "Usage: srv6d [-c FILE] [--section.key VALUE ...]\n"
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
    if (cli.count("config")) {
        r.cfg.config_file = cli["config"].as<std::string>();
        std::ifstream in(r.cfg.config_file);
        if (!in) {
            r.what = action::error;
            r.text = fmt::format("cannot read config file '{}'", r.cfg.config_file);
            return r;
        }
        try {
            po::store(po::parse_config_file(in, settings, false), file);
        } catch (const po::error& e) {
            r.what = action::error;
            r.text = file_error(r.cfg.config_file, e);
            return r;
        }
    }
    for (const auto& k : keys) {
        const bool from_cli = cli.count(k.key) > 0;
        const auto& vm = from_cli ? cli : file;
        if (!vm.count(k.key))
            continue;
        auto err = apply_setting(r.cfg, k.key, vm[k.key].as<std::string>());
        if (!err.empty()) {
            r.what = action::error;
            r.text = from_cli ? err : fmt::format("{}: {}", r.cfg.config_file, err);
            return r;
        }
    }
    for (const char* lk : list_keys) {
        // The command line's lines replace the file's, like any other key.
        const bool from_cli = cli.count(lk) > 0;
        const auto& vm = from_cli ? cli : file;
        if (!vm.count(lk))
            continue;
        for (const auto& line : vm[lk].as<std::vector<std::string>>()) {
            auto err = apply_setting(r.cfg, lk, line);
            if (!err.empty()) {
                r.what = action::error;
                r.text = from_cli ? err : fmt::format("{}: {}", r.cfg.config_file, err);
                return r;
            }
        }
    }
    // Every neighbor names a configured port.
    for (const auto& n : r.cfg.neighbors) {
        bool known = false;
        for (const auto& p : r.cfg.ports)
            known |= p.name == n.port;
        if (!known) {
            r.what = action::error;
            r.text = fmt::format("neighbor on port '{}': no such port (dataplane.port lines name them)", n.port);
            return r;
        }
    }
    // A cap below the quiet time would make the quiet time meaningless: say so rather than guess.
    if (r.cfg.resync_max < r.cfg.resync_quiet) {
        r.what = action::error;
        r.text = fmt::format("fpm.resync-max-ms ({}) must not be smaller than fpm.resync-quiet-ms ({})",
                             r.cfg.resync_max.count(), r.cfg.resync_quiet.count());
        return r;
    }
    return r;
}

}  // namespace srv6d
