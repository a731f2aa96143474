// The srv6d process once configured: DPDK EAL (optional), the control thread running one
// io_context (FPM listener, management socket, signals), and the state they share.
#pragma once

#include <string>

#include "apps/srv6d/config.hh"

namespace srv6d {

// Runs until SIGINT or SIGTERM. Returns the process exit code: 0 after a clean shutdown,
// 1 when something could not be set up (EAL, the FPM address, the management socket).
int run(const config& cfg, const std::string& prog);

}  // namespace srv6d
