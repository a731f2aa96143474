// State of the FPM listener as the management API shows it (`srv6ctl show fpm`).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fpm {

// What the last resync sweep was allowed to remove (docs/srv6d.md, "Which tables a sweep cleans").
enum class sweep_scope : uint8_t {
    none,             // no sweep yet
    full,             // everything not refreshed by the replay (first replay, zebra unknown)
    replayed_tables,  // the same zebra reconnected: only tables its replay walks
    restarted,        // zebra restarted: all but the kernel's routes of tables it does not replay
};

constexpr std::string_view to_string(sweep_scope s) {
    switch (s) {
    case sweep_scope::none: return "none";
    case sweep_scope::full: return "full";
    case sweep_scope::replayed_tables: return "replayed tables only";
    case sweep_scope::restarted: return "all but kernel routes of unreplayed tables";
    }
    return "?";
}

struct session_info {
    std::string listen;                 // "127.0.0.1:2620"
    bool connected = false;
    std::string peer;                   // "127.0.0.1:40612" while connected
    std::chrono::system_clock::time_point connected_since{};
    std::string peer_identity;          // "uid 103 (frr)" or "remote 10.0.0.2" while connected
    // The connection has sent a valid frame (a complete frame with a payload): from then on it
    // is zebra's replay. Before that it changes nothing (docs/srv6d.md, "Who may connect").
    bool talking = false;
    std::chrono::system_clock::time_point last_frame_at{};  // of the current connection
    uint64_t connections = 0;           // admitted since start
    // Admitted and read, not zebra's connection yet: their first frame decides (docs/rib.md,
    // "Sessions"). The active connection is kept meanwhile.
    uint64_t pending = 0;
    // Closed: its first frame was no valid replay while a zebra was active and not idle.
    uint64_t refused = 0;
    uint64_t takeovers = 0;             // a pending connection's first frame replaced the active one
    uint64_t probes = 0;                // pending connections that ended without a frame: no effect
    uint64_t pending_evicted = 0;       // pending connections closed to make room for a newer one
    uint64_t first_frame_timeouts = 0;  // closed: no valid frame within fpm.first-frame-timeout-ms
    // Not admitted (fpm.allow-user / fpm.allow-address), closed before reading anything.
    uint64_t denied_user = 0, denied_address = 0, denied_unknown = 0;
    std::string last_denied;            // "127.0.0.1:40612: uid 65534 (nobody) is not in fpm.allow-user"
    uint64_t disconnects = 0;
    uint64_t framing_resets = 0;        // connections we closed because framing was lost
    std::string last_disconnect_reason;
    // Replay / mark-and-sweep.
    bool resync_pending = false;        // a replay is being received; stale entries not swept yet
    uint64_t sweeps = 0;
    uint64_t last_sweep_removed = 0;
    // Replays that reached their quiet time without being plausible: nothing swept, the stale
    // entries became current again (docs/rib.md, "Sessions").
    uint64_t sweeps_skipped = 0;
    std::string last_skip_reason;       // "3 decode errors in the replay", "it installed nothing"
    // The pending or last replay: updates applied, decode errors, refused at the limits.
    uint64_t replay_updates = 0, replay_errors = 0, replay_refused = 0;
    // zebra's netlink port id (nlmsg_pid) on the current or last connection: constant for one
    // zebra process. Unset before any netlink message (and for protobuf-only streams).
    std::optional<uint32_t> zebra_pid;
    sweep_scope last_sweep_scope = sweep_scope::none;
    std::string last_sweep_reason;      // why that scope: "same zebra (nlmsg_pid 42)", ...
    uint64_t last_sweep_kept = 0;       // stale routes kept: their table is not in zebra's replay
    // Stale routes of such tables swept all the same: zebra is local and its kernel has no route
    // at their key (docs/srv6d.md, "Which tables a sweep cleans").
    uint64_t last_sweep_not_in_kernel = 0;
};

// The session's one state, as `srv6ctl show fpm` states it first.
enum class session_state : uint8_t {
    idle,         // no zebra connection, the RIB in sync with the last replay (or empty)
    interrupted,  // no zebra connection; the last replay ended before its sweep: nothing swept
    replaying,    // zebra's connection is replaying; stale entries swept after it
    in_sync,      // zebra's connection, its replay swept (or not trusted: see sweeps_skipped)
};

constexpr session_state state_of(const session_info& s) {
    if (s.connected)
        return s.resync_pending ? session_state::replaying : session_state::in_sync;
    return s.resync_pending ? session_state::interrupted : session_state::idle;
}

constexpr std::string_view to_string(session_state s) {
    switch (s) {
    case session_state::idle: return "no zebra connected";
    case session_state::interrupted: return "no zebra connected; its last replay was interrupted, nothing swept";
    case session_state::replaying: return "zebra connected, replay being received";
    case session_state::in_sync: return "zebra connected, in sync";
    }
    return "?";
}

}  // namespace fpm
