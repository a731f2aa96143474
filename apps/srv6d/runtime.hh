// The srv6d process once configured: DPDK EAL (optional), the control thread running one
// io_context (FPM listener, management socket, signals), and the state they share.
#pragma once

#include <functional>
#include <string>

#include "apps/srv6d/config.hh"

namespace srv6d {

// Re-reads the configuration as at start (same command line, the file again): SIGHUP.
using reparse_fn = std::function<parse_result()>;

// Runs until SIGINT or SIGTERM; SIGHUP reloads (docs/srv6d.md, "Reload"). Tells systemd
// (sd_notify, when NOTIFY_SOCKET is set) READY=1 once the dataplane and the FPM listener are up,
// RELOADING=1 ... READY=1 around a reload, STOPPING=1 on the way down. Returns the process exit
// code: 0 after a clean shutdown, 1 when something could not be set up (EAL, the FPM address,
// the management socket).
int run(const config& cfg, const std::string& prog, reparse_fn reparse);

}  // namespace srv6d
