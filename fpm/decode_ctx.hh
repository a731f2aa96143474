// Counters and rate-limited reporting shared by every decoder.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fpm/reasons.hh"
#include "util/log.hh"

namespace fpm {

struct ingest_stats {
    uint64_t frames = 0;
    uint64_t bytes = 0;                       // in complete frames (headers included)
    // Every byte read from an admitted connection is in `bytes`, in `bytes_discarded`, or still
    // buffered (an incomplete frame of the live connection): nothing is lost uncounted.
    uint64_t bytes_received = 0;
    uint64_t bytes_discarded = 0;             // after lost framing, or an incomplete frame at the end
    uint64_t netlink_frames = 0;
    uint64_t protobuf_frames = 0;
    uint64_t messages = 0;                    // netlink messages or protobuf messages decoded
    uint64_t updates = 0;                     // updates handed to the RIB
    std::map<uint16_t, uint64_t> msg_types;   // nlmsg_type (or 0x8000 | protobuf type) -> count
    reason_counters reasons{};
};

class decode_ctx {
public:
    explicit decode_ctx(ingest_stats& s) : stats(s) {}

    // Count `r`; errors are logged as warnings, at most once per 10 s per reason, with the
    // number held back since; ignored events are logged at debug level under the same limit.
    void report(reason r, std::string_view detail = {});

    ingest_stats& stats;
    // nlmsg_pid of the last netlink message decoded: zebra's netlink port id, constant for one
    // zebra process, so the listener can tell "same zebra reconnected" from "zebra restarted".
    // Unset until a netlink message is seen; whoever reads it per connection resets it.
    std::optional<uint32_t> last_nlmsg_pid;
    // Error reasons reported through this context (ignored events not included): the listener
    // reads its growth across a frame to judge whether a stream is a plausible zebra replay.
    uint64_t errors = 0;
    // The words of the last error reported (the log holds back repeats; tests read it here).
    std::string last_error;

private:
    std::array<util::rate_limit, reason_count> _limits{};
};

}  // namespace fpm
