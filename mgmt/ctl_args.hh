// srv6ctl's command line, parsed into the request to send: testable without a daemon.
//   srv6ctl [--socket PATH] [--json] show fpm | routes [table N | vrf NAME] | route ADDR [vrf NAME]
//                                        | nexthops | sids | vrfs | encap-source | counters | neighbors
//        srv6ctl [...] clear counters | set log-level LEVEL
//        srv6ctl [...] trace [port P] [count N] [timeout S]
//        srv6ctl [...] capture port P [rx|tx|drop] [count N] file F [timeout S]
// Options may come before or after the command; command words may be abbreviated to any
// unambiguous prefix, as in vtysh ("sh ro" = "show routes").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mgmt/proto.hh"

namespace mgmt {

inline constexpr std::string_view default_socket_path = "/run/srv6d/srv6d.sock";

// trace / capture: srv6ctl arms the request, reads records until it has `count` of them or
// `timeout_s` passed, stops it; capture writes them to `file` (a pcap).
struct ctl_session {
    bool capture = false;
    uint32_t count = 0;
    uint32_t timeout_s = 10;
    std::string file;
};

struct ctl_args {
    std::string socket{default_socket_path};
    bool json = false;
    bool help = false;  // --help: print the usage and exit 0; `request` is unset
    pb::Request request;  // trace / capture: its TraceStart
    std::optional<ctl_session> session;
};

struct ctl_parse_result {
    std::optional<ctl_args> args;
    std::string error;  // set when args is empty: print it with the usage, exit 2
};

// argv[0] is the program name, as main() receives it.
ctl_parse_result parse_ctl_args(int argc, const char* const argv[]);
std::string ctl_usage();

}  // namespace mgmt
