// Runs one parsed command against srv6d and prints the answer: the one-shot command line, the
// shell and stdin's lines all go through here, so they print and exit alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mgmt/client.hh"
#include "mgmt/ctl_args.hh"

namespace srv6ctl {

// Exit status: 0 answered, 1 srv6d unreachable, an error, or not found (no route covers the
// address, no route of the prefix, no SID covers the address).
int execute(mgmt::client& c, const mgmt::ctl_command& cmd, bool json);

// What srv6d has for a kind of value (VRF names, ports, SIDs) and the files a path starts;
// quiet when srv6d cannot be asked.
std::vector<std::string> values_of(mgmt::client& c, mgmt::cli::value_kind k, std::string_view partial);

// c.call() once more after a reconnect when the connection was closed (srv6d closes idle ones).
std::optional<mgmt::pb::Response> ask(mgmt::client& c, const mgmt::pb::Request& req);

}  // namespace srv6ctl
