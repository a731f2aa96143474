// What the table compiler leaves unforwarded, told in the log when it grows: nexthops refused
// (by reason), routes of tables bound to no active VRF, routes without a usable path. The
// compiler keeps these as gauges (show routes, show nexthops, metrics); srv6d compares them
// after each compile, so an operator reading `journalctl -p warning` learns that packets zebra
// asked for are being dropped, not only the one running `srv6ctl show`.
#pragma once

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fib/control/compiler.hh"
#include "util/log.hh"

namespace srv6d {

class refusal_log {
public:
    using line = std::pair<util::level, std::string>;
    // The lines this compile's state calls for: a warning for each reason or table that grew,
    // an info line when one is gone. Empty when nothing changed.
    std::vector<line> update(const fib::compiler_stats& s, const std::map<rib::table_id, size_t>& unbound);

private:
    std::array<size_t, fib::nh_refusal_count> _refused{};
    std::array<size_t, fib::route_state_count> _routes{};
    std::map<rib::table_id, size_t> _unbound;
};

}  // namespace srv6d
