// State of the FPM listener as the management API shows it (`srv6ctl show fpm`).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace fpm {

struct session_info {
    std::string listen;                 // "127.0.0.1:2620"
    bool connected = false;
    std::string peer;                   // "127.0.0.1:40612" while connected
    std::chrono::system_clock::time_point connected_since{};
    uint64_t connections = 0;           // accepted since start
    uint64_t refused = 0;               // second connections refused while one was active
    uint64_t disconnects = 0;
    uint64_t framing_resets = 0;        // connections we closed because framing was lost
    std::string last_disconnect_reason;
    // Replay / mark-and-sweep.
    bool resync_pending = false;        // a replay is being received; stale entries not swept yet
    uint64_t sweeps = 0;
    uint64_t last_sweep_removed = 0;
};

}  // namespace fpm
