#include "apps/srv6d/config_keys.hh"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <numeric>
#include <vector>

#include "forward/control/eal.hh"
#include "mgmt/listen_addr.hh"
#include "vrf/config_parse.hh"
#include "vrf/encap_source.hh"

namespace srv6d {
namespace {

using in = const std::string&;

std::string invalid(in key, in value, std::string_view expected) {
    return fmt::format("invalid value '{}' for {}: expected {}", value, key, expected);
}

// Strict: digits only, the whole value.
template <typename T>
bool parse_uint(in s, T min, T max, T& out) {
    uint64_t v = 0;
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc{} || p != end || v < min || v > max)
        return false;
    out = static_cast<T>(v);
    return true;
}

// std::stoul's rules (what the dataplane counts have always accepted), range-checked.
template <typename T>
std::string count(in key, in value, unsigned long min, unsigned long max, std::string_view expected, T& out) {
    unsigned long n = 0;
    try {
        n = std::stoul(value);
    } catch (const std::exception&) {
        n = 0;
    }
    if (n < min || n > max)
        return invalid(key, value, expected);
    out = static_cast<T>(n);
    return {};
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

std::string fpm_listen(config& c, in key, in value) {
    std::string_view v = value;
    if (v.size() >= 2 && v.front() == '[' && v.back() == ']')  // "[::1]" as in URLs
        v = v.substr(1, v.size() - 2);
    if (!rib::parse_addr(v))
        return invalid(key, value, "an IPv4 or IPv6 address");
    c.fpm_listen = std::string(v);
    return {};
}

std::string millis(in key, in value, std::chrono::milliseconds& out) {
    uint64_t ms = 0;
    if (!parse_uint<uint64_t>(value, 1, max_resync_ms, ms))
        return invalid(key, value, fmt::format("milliseconds 1..{}", max_resync_ms));
    out = std::chrono::milliseconds(static_cast<int64_t>(ms));
    return {};
}

// "a b,c" -> {a, b, c}
std::vector<std::string> words(in value) {
    std::vector<std::string> out;
    std::string w;
    for (const char ch : value + " ") {
        if (ch == ' ' || ch == ',' || ch == '\t') {
            if (!w.empty())
                out.push_back(std::move(w));
            w.clear();
        } else {
            w += ch;
        }
    }
    return out;
}

// User names are resolved when srv6d starts (a name missing on this host is skipped and logged,
// as the default's `frr` on a host without FRR): only the shape is checked here.
std::string allow_users(config& c, in key, in value) {
    auto names = words(value);
    for (const auto& n : names)
        if (n.size() > 32 || n.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-$") !=
                                 std::string::npos)
            return invalid(key, value, "user names or uids, or 'any'");
    c.fpm_allow_users = std::move(names);
    return {};
}

std::string allow_addresses(config& c, in key, in value) {
    std::vector<rib::prefix> out;
    for (const auto& w : words(value)) {
        const auto p = rib::parse_prefix(w);
        const auto a = rib::parse_addr(std::string_view(w).substr(0, w.find('/')));
        if (!p || !a || p->addr() != *a)
            return invalid(key, value, "IPv4 or IPv6 addresses or prefixes (no host bits set)");
        out.push_back(*p);
    }
    c.fpm_allow_addresses = std::move(out);
    return {};
}

std::string mgmt_group(config& c, in key, in value) {
    if (value.size() > 32 || value.find_first_of(" ,:\t") != std::string::npos)
        return invalid(key, value, "a group name or gid");
    c.mgmt_group = value;
    return {};
}

std::string mgmt_socket(config& c, in key, in value) {
    if (value.empty() || value.size() > max_socket_path)
        return invalid(key, value, fmt::format("a unix socket path of 1..{} bytes", max_socket_path));
    c.mgmt_socket = value;
    return {};
}

std::string metrics_listen(config& c, in key, in value) {
    if (value.empty()) {
        c.metrics_listen.reset();
        return {};
    }
    auto a = mgmt::parse_listen(value);
    if (!a)
        return invalid(key, value, "ADDRESS:PORT (127.0.0.1:9464, [::1]:9464) or empty");
    c.metrics_listen = std::move(*a);
    return {};
}

std::string encap_source(config& c, in key, in value) {
    if (value.empty()) {
        c.encap_source.reset();
        return {};
    }
    const auto a = rib::parse_ip6(value);
    // A packet source must be a unicast address replies can come back to.
    if (!a)
        return invalid(key, value, "a unicast IPv6 address");
    if (const auto why = vrf::check_encap_source(*a))
        return invalid(key, value, fmt::format("a unicast IPv6 address ({})", *why));
    c.encap_source = *a;
    return {};
}

std::string port(config& c, in, in value) {
    std::string err;
    auto p = fwd::parse_port(value, err);
    if (!p)
        return fmt::format("invalid port '{}': {}", value, err);
    for (const auto& o : c.ports)
        if (o.name == p->name || (!p->devargs.empty() && o.devargs == p->devargs))
            return fmt::format("invalid port '{}': port {} ({}) is configured twice", value, o.name, o.devargs);
    if (c.ports.size() >= fwd::max_ports)
        return fmt::format("invalid port '{}': at most {} ports", value, fwd::max_ports);
    c.ports.push_back(std::move(*p));
    return {};
}

std::string neighbor(config& c, in, in value) {
    std::string err;
    auto n = fwd::parse_neighbor(value, err);
    if (!n)
        return fmt::format("invalid neighbor '{}': {}", value, err);
    c.neighbors.push_back(std::move(*n));
    return {};
}

std::string vpws(config& c, in, in value) {
    std::string err;
    auto v = fwd::parse_vpws(value, err);
    if (!v)
        return fmt::format("invalid vpws '{}': {}", value, err);
    c.vpws.push_back(std::move(*v));
    return {};
}

std::string vrf_line(config& c, in, in value) {
    auto spec = vrf::parse_vrf(value);
    if (!spec)
        return spec.error;  // "vrf 'red table ten': table 'ten' is not a number ..."
    // One line per VRF, one VRF per table: srv6d's own config must not contradict itself
    // (the registry would refuse the second claim; at startup an error is clearer).
    for (const auto& v : c.vrfs) {
        if (v.name == spec.value->name)
            return fmt::format("invalid vrf '{}': vrf {} is configured twice", value, v.name);
        if (v.table == spec.value->table)
            return fmt::format("invalid vrf '{}': vrf {}: table {} is already bound to vrf {}", value,
                               spec.value->name, v.table, v.name);
    }
    c.vrfs.push_back(std::move(*spec.value));
    return {};
}

std::string sid_line(config& c, in, in value) {
    auto spec = vrf::parse_sid(value);
    if (!spec)
        return spec.error;  // "sid 'fc00::1 End.DT4': End.DT4 needs 'table ID' or 'vrf NAME'"
    // One line per SID: two behaviors for one prefix would leave the choice to line order.
    for (const auto& o : c.sids)
        if (o.sid == spec.value->sid)
            return fmt::format("invalid sid '{}': sid {} is configured twice", value, rib::to_string(o.sid));
    c.sids.push_back(std::move(*spec.value));
    return {};
}

std::string route_line(config& c, in, in value) {
    auto spec = parse_route(value);
    if (!spec)
        return spec.error;  // "route '10.0.0.0/8 mode inline segs fc00::1': mode inline takes an IPv6 prefix ..."
    // One line per route: two headends for one prefix would leave the choice to line order.
    for (const auto& o : c.routes)
        if (o.table == spec.value->table && o.dst == spec.value->dst)
            return fmt::format("invalid route '{}': {} in table {} is configured twice", value, rib::to_string(o.dst), o.table);
    c.routes.push_back(std::move(*spec.value));
    return {};
}

constexpr bool one = false, many = true;

// clang-format off
const config_key table[] = {
    {"fpm", "listen", "VALUE", "FPM listen address, IPv4 or IPv6", "127.0.0.1", one, fpm_listen},
    {"fpm", "port", "VALUE", "FPM TCP port (0 = any free port)", "2620", one,
     [](config& c, in k, in v) { return parse_uint<uint16_t>(v, 0, 65535, c.fpm_port) ? std::string() : invalid(k, v, "an integer 0..65535"); }},
    {"fpm", "resync-quiet-ms", "VALUE", "sweep stale routes after the replay has been quiet this long", "10000", one,
     [](config& c, in k, in v) { return millis(k, v, c.resync_quiet); }},
    {"fpm", "resync-max-ms", "VALUE", "sweep at the latest this long after zebra connected", "120000", one,
     [](config& c, in k, in v) { return millis(k, v, c.resync_max); }},
    {"fpm", "allow-user", "VALUE", "local users whose processes may connect (names or uids; 'any': every user)", "frr root", one, allow_users},
    {"fpm", "allow-address", "VALUE", "addresses or prefixes of the remote peers that may connect", "", one, allow_addresses},
    {"fpm", "takeover-idle-ms", "VALUE", "an admitted newcomer replaces a connection silent this long", "30000", one,
     [](config& c, in k, in v) { return millis(k, v, c.takeover_idle); }},
    {"fpm", "first-frame-timeout-ms", "VALUE", "close a connection that sends no valid frame this long", "10000", one,
     [](config& c, in k, in v) { return millis(k, v, c.first_frame_timeout); }},
    {"fpm", "kernel-check", "VALUE", "true | false: keep stale routes of unreplayed tables only if the kernel has them", "true", one,
     [](config& c, in k, in v) { return parse_bool(v, c.kernel_check) ? std::string() : invalid(k, v, "true or false"); }},
    {"mgmt", "socket", "VALUE", "management unix socket path", "/run/srv6d/srv6d.sock", one, mgmt_socket},
    {"mgmt", "group", "VALUE", "group of the management socket: its members may use srv6ctl", "frrvty", one, mgmt_group},
    {"mgmt", "max-clients", "VALUE", "concurrent srv6ctl connections (idle ones make room)", "32", one,
     [](config& c, in k, in v) { return count(k, v, 1, 4096, "a number from 1 to 4096", c.mgmt_max_clients); }},
    {"rib", "max-routes", "VALUE", "routes held at most (0 = no limit)", "4000000", one,
     [](config& c, in k, in v) { return parse_uint<size_t>(v, 0, 1'000'000'000, c.rib_max_routes) ? std::string() : invalid(k, v, "a number 0..1000000000"); }},
    {"rib", "max-routes-per-table", "VALUE", "routes held at most in one table (0 = no limit)", "2000000", one,
     [](config& c, in k, in v) { return parse_uint<size_t>(v, 0, 1'000'000'000, c.rib_max_routes_per_table) ? std::string() : invalid(k, v, "a number 0..1000000000"); }},
    {"rib", "max-nexthops", "VALUE", "nexthop entries held at most (0 = no limit)", "1000000", one,
     [](config& c, in k, in v) { return parse_uint<size_t>(v, 0, 1'000'000'000, c.rib_max_nexthops) ? std::string() : invalid(k, v, "a number 0..1000000000"); }},
    {"metrics", "listen", "VALUE", "Prometheus metrics endpoint ADDRESS:PORT (empty = off)", "", one, metrics_listen},
    {"log", "level", "VALUE", "error | warn | info | debug", "info", one,
     [](config& c, in k, in v) { return util::parse_level(v, c.log_level) ? std::string() : invalid(k, v, "error, warn, info or debug"); }},
    {"log", "target", "VALUE", "auto | stderr | syslog | journal (auto: the journal when stderr is it)", "auto", one,
     [](config& c, in k, in v) { return util::parse_target(v, c.log_target) ? std::string() : invalid(k, v, "auto, stderr, syslog or journal"); }},
    {"eal", "args", "VALUE", "DPDK EAL arguments, whitespace separated",
     "-l 0 --no-pci --in-memory --no-telemetry --iova-mode=va --log-level=lib.eal:error", one,
     [](config& c, in, in v) { c.eal_args = fwd::split_args(v); return std::string(); }},
    {"dataplane", "enabled", "VALUE", "true | false: false skips DPDK EAL init", "true", one,
     [](config& c, in k, in v) { return parse_bool(v, c.dataplane_enabled) ? std::string() : invalid(k, v, "true or false"); }},
    {"dataplane", "mbufs", "VALUE", "packet buffers for all ports and workers", "16383", one,
     [](config& c, in k, in v) { return count(k, v, 1023, 1u << 24, "a number of mbufs from 1023 to 16777216", c.mbufs); }},
    {"dataplane", "punt-rate", "VALUE", "packets per second each port may punt to its TAP mirror", "10000", one,
     [](config& c, in k, in v) { return count(k, v, 1, 100'000'000, "a number from 1 to 100000000", c.punt_rate); }},
    {"dataplane", "punt-burst", "VALUE", "burst of the punt policer, in packets", "512", one,
     [](config& c, in k, in v) { return count(k, v, 1, 100'000'000, "a number from 1 to 100000000", c.punt_burst); }},
    {"dataplane", "icmp-rate", "VALUE", "ICMP errors (and echo replies through the VPN) each worker may send per second; 0: none", "1000", one,
     [](config& c, in k, in v) { return count(k, v, 0, 100'000'000, "a number from 0 to 100000000", c.icmp_rate); }},
    {"dataplane", "icmp-burst", "VALUE", "burst of the ICMP rate limit, in messages", "50", one,
     [](config& c, in k, in v) { return count(k, v, 1, 100'000'000, "a number from 1 to 100000000", c.icmp_burst); }},
    {"dataplane", "idle-sleep", "VALUE", "microseconds an idle worker may sleep between polls (grows from 1 to this); 0: busy polling", "0", one,
     [](config& c, in k, in v) { return count(k, v, 0, 100'000, "a number of microseconds from 0 to 100000", c.idle_sleep_us); }},
    {"encap", "source", "VALUE", "IPv6 source address of H.Encaps packets", "", one, encap_source},
    {"", "vrf", "NAME table ID [members IF,IF...]", "a VRF bound to a kernel table (in a file: before any [section])", "", many, vrf_line},
    {"dataplane", "port", "NAME (DEVARGS or vlan=VID parent=PORT) [vrf=VRF] [tap=IF] [ifname=IF] [ifindex=N] [mtu=N]", "a DPDK port, or an 802.1Q sub-port of one", "", many, port},
    {"dataplane", "neighbor", "PORT ADDRESS MAC", "a static neighbor on a port", "", many, neighbor},
    {"dataplane", "vpws", "NAME port=PORT segs=SID[,SID...] [mode=MODE] [source=ADDR]", "a VPWS: every frame of a port or sub-port into one SID list (H.Encaps.L2); End.DX2 brings the other direction", "", many, vpws},
    {"sids", "sid", "PREFIX BEHAVIOR [ARGS] [flavors LIST]", "a local SID of srv6d's own, in [sids]", "", many, sid_line},
    {"routes", "route", "PREFIX [table ID] [mode MODE] segs SID[,SID...] [src ADDR]", "a headend route of srv6d's own (H.Insert, H.Encaps), in [routes]; zebra's route at the same prefix wins", "", many, route_line},
};
// clang-format on

// Levenshtein distance, for "did you mean".
size_t distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), size_t{0});
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string config_key::key() const {
    return *section ? fmt::format("{}.{}", section, name) : std::string(name);
}

std::span<const config_key> config_keys() { return table; }

const config_key* find_config_key(std::string_view key) {
    for (const auto& k : table)
        if (k.key() == key)
            return &k;
    return nullptr;
}

namespace {
// Near enough to be a typo of it, not another word altogether.
size_t typo_bound(std::string_view s) { return std::max<size_t>(3, s.size() / 3) + 1; }
}  // namespace

std::string unknown_key_error(std::string_view key) {
    std::string near;
    size_t best = typo_bound(key);
    for (const auto& k : table) {
        const std::string name = k.key();
        if (const size_t d = distance(key, name); d < best) {
            best = d;
            near = name;
        }
    }
    if (!near.empty())
        return fmt::format("unknown setting '{}' (did you mean '{}'?)", key, near);
    const auto dot = key.find('.');
    const std::string_view section = dot == std::string_view::npos ? std::string_view{} : key.substr(0, dot);
    std::string names;
    for (const auto& k : table)
        if (!section.empty() && section == k.section)
            names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
    if (!names.empty())
        return fmt::format("unknown setting '{}' ([{}] has: {})", key, section, names);
    return fmt::format("unknown setting '{}' (sections: {}; srv6d --help lists every key)", key, section_list());
}

std::string nearest_section(std::string_view name) {
    std::string near;
    size_t best = 3;  // sections are short words: "fmp" is fpm, "xyz" is none
    for (const auto& k : table)
        if (*k.section)
            if (const size_t d = distance(name, k.section); d < best) {
                best = d;
                near = k.section;
            }
    return near;
}

std::string section_list() {
    std::string out;
    for (const auto& k : table)
        if (*k.section && out.find(fmt::format("[{}]", k.section)) == std::string::npos)
            out += fmt::format("{}[{}]", out.empty() ? "" : " ", k.section);
    return out;
}

}  // namespace srv6d
