// srv6ctl's command line, parsed into the request to send: testable without a daemon.
//   srv6ctl [--socket PATH] [--json] show fpm | routes [table N | vrf NAME] | route ADDR [vrf NAME]
//                                        | nexthops | sids | vrfs | encap-source | counters | neighbors
//        srv6ctl [...] clear counters | set log-level LEVEL
// Options may come before or after the command; command words may be abbreviated to any
// unambiguous prefix, as in vtysh ("sh ro" = "show routes").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mgmt/proto.hh"

namespace mgmt {

inline constexpr std::string_view default_socket_path = "/run/srv6d/srv6d.sock";

struct ctl_args {
    std::string socket{default_socket_path};
    bool json = false;
    bool help = false;  // --help: print the usage and exit 0; `request` is unset
    pb::Request request;
};

struct ctl_parse_result {
    std::optional<ctl_args> args;
    std::string error;  // set when args is empty: print it with the usage, exit 2
};

// argv[0] is the program name, as main() receives it.
ctl_parse_result parse_ctl_args(int argc, const char* const argv[]);
std::string ctl_usage();

}  // namespace mgmt
