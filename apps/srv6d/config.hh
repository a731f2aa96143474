// srv6d configuration: an INI file (boost::program_options syntax, [section] key = value) plus
// the same keys as command-line overrides (`--fpm.port 2621`). See docs/srv6d.md for every key.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/srv6d/config_route.hh"
#include "rib/addr.hh"
#include "forward/control/l2vpn.hh"
#include "forward/control/port.hh"
#include "mgmt/listen_addr.hh"
#include "util/log.hh"
#include "vrf/sid_parse.hh"
#include "vrf/spec.hh"

namespace srv6d {

constexpr uint16_t default_fpm_port = 2620;  // FPM_DEFAULT_PORT, what zebra dials without `port N`

struct config {
    // [fpm]
    std::string fpm_listen = "127.0.0.1";   // literal address, no brackets; zebra runs on this host
    uint16_t fpm_port = default_fpm_port;   // 0 = any free port (tests)
    // zebra replays everything on connect but sends no end marker: sweep stale state after the
    // stream has been quiet this long, or at the latest resync_max after the connect.
    std::chrono::milliseconds resync_quiet{10'000};
    std::chrono::milliseconds resync_max{120'000};
    // Who may feed FPM (docs/srv6d.md, "Who may connect"): local processes of these users
    // (names or uids, "any"; names missing on this host are skipped at start) ...
    std::vector<std::string> fpm_allow_users{"frr", "root"};
    // ... and remote peers in these prefixes.
    std::vector<rib::prefix> fpm_allow_addresses;
    std::chrono::milliseconds takeover_idle{30'000};
    std::chrono::milliseconds first_frame_timeout{10'000};
    bool kernel_check = true;               // check kept routes of unreplayed tables against the kernel
    // [mgmt]
    std::string mgmt_socket = "/run/srv6d/srv6d.sock";
    std::string mgmt_group = "frrvty";      // the socket's group; "" or missing on this host: srv6d's own
    size_t mgmt_max_clients = 32;
    // [rib]
    size_t rib_max_routes = 4'000'000;
    size_t rib_max_routes_per_table = 2'000'000;
    size_t rib_max_nexthops = 1'000'000;
    // [metrics] the Prometheus endpoint; absent: off
    std::optional<::mgmt::listen_addr> metrics_listen;
    // [log]
    util::level log_level = util::level::info;
    util::target log_target = util::target::automatic;  // the journal under systemd, else stderr
    // [eal]
    std::vector<std::string> eal_args;      // defaults to fwd::default_eal_args()
    // [dataplane]
    bool dataplane_enabled = true;          // false: no EAL (machines without hugepages, tests)
    std::vector<fwd::port_spec> ports;      // `port = NAME DEVARGS [vrf=..] [ifname=..] [ifindex=..] [mtu=..]`
    std::vector<fwd::neighbor_spec> neighbors;  // `neighbor = PORT ADDRESS MAC` (static)
    std::vector<fwd::vpws_spec> vpws;       // `vpws = NAME port=PORT segs=SIDS ...` (L2VPN circuits)
    unsigned mbufs = 16383;                 // packet pool size
    uint32_t punt_rate = 10000;             // packets/s a port may send to its TAP mirror
    uint32_t punt_burst = 512;
    uint32_t icmp_rate = 1000;              // ICMP messages/s each worker may send (0: none)
    uint32_t icmp_burst = 50;
    uint32_t idle_sleep_us = 0;             // an idle worker's longest sleep between polls (0: busy poll)
    // [encap]
    std::optional<rib::ip6_addr> encap_source;  // H.Encaps outer source; FPM does not carry it
    // `vrf = NAME table ID [members IF,...]` lines, in file order (before any [section]).
    std::vector<vrf::vrf_spec> vrfs;
    // [sids] `sid = PREFIX BEHAVIOR [ARGS]` lines, in file order: local SIDs of srv6d's own.
    std::vector<vrf::sid_spec> sids;
    // [routes] `route = PREFIX [table ID] [mode MODE] segs SIDS [src A]` lines, in file order:
    // headend routes of srv6d's own (H.Insert, H.Encaps), zebra's route at the same key wins.
    std::vector<route_spec> routes;

    std::string config_file;                // the file that was read; empty when none
};

// srv6d's version ("0.1"), as --version says it.
std::string_view version();

// A config with every default, eal_args included.
config default_config();

enum class action : uint8_t { run, help, version, error };

struct parse_result {
    action what = action::run;
    bool check_only = false;  // --check-config FILE: validate, print the verdict, do not start
    config cfg;
    std::string text;  // help or version text, or the error (naming the key and the value)
};

// Command line first, then the file named by -c/--config: a key given on the command line wins.
parse_result parse_args(int argc, const char* const* argv);

// What --check-config checks of the EAL settings beyond the key table, with the dataplane
// enabled. `error`: eal.args DPDK refuses wherever it runs (--in-memory with --no-huge).
// `warnings`: what would stop the EAL on this host now (no free hugepages, neither a hugetlbfs
// mount nor --in-memory, lcores of `-l LIST` that are not CPUs this process may use): the
// file may be meant for another host, or pages reserved before srv6d starts. `allowed_cpus`
// ("0-3,6", empty: sched_getaffinity's) and the directories are parameters for tests.
struct host_check {
    std::string error;
    std::vector<std::string> warnings;
};
host_check check_host(const config& cfg, const std::string& allowed_cpus = {},
                      const std::string& hugepages_dir = "/sys/kernel/mm/hugepages",
                      const std::string& mounts = "/proc/mounts");

// One "section.key" = value, validated into `cfg` by its row of the key table (config_keys.hh);
// returns an error message or "" when valid. Exposed so that tests can check each key's rules
// directly. "vrf" appends one VRF, "sids.sid" one SID.
std::string apply_setting(config& cfg, const std::string& key, const std::string& value);

}  // namespace srv6d
