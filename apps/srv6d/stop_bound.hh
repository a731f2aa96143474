// srv6d's shutdown, bounded and traced: each step it reaches is logged (debug), and if it has not
// finished within a bound the last step reached is logged as an error and the process exits with
// status 1. An operator's stop then returns, and says where it stuck, instead of hanging until
// systemd's SIGKILL (or forever under a supervisor that does not send one).
#pragma once

#include <chrono>

namespace srv6d::stop_bound {

// How long a shutdown may take: seconds normally (the ports' close, EAL's cleanup; ~1-2 s under
// the test VM's TCG), so the bound only ends a stop that is stuck.
constexpr std::chrono::seconds limit{30};

// Records that the shutdown reached `step` (a string literal) and logs it at debug.
void step(const char* step);
// Starts the bound (the first call only): from now on the shutdown has `bound`.
void arm(std::chrono::milliseconds bound = limit);
// The shutdown finished: the bound lets the process exit by itself.
void done();

}  // namespace srv6d::stop_bound
