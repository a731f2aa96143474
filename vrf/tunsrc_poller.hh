// Re-reads the kernel tunsrc on a timer and feeds the resolver. The kernel sends no netlink
// notification when `ip sr tunsrc` changes (SEG6_CMD_SET_TUNSRC has no multicast group), so
// polling is the only way; one read is a single generic netlink round trip, so every 2 s is
// cheap. The daemon drives it: an asio::steady_timer calling poll() every interval().
#pragma once

#include <chrono>
#include <cstdint>

#include "util/log.hh"
#include "vrf/encap_source.hh"
#include "vrf/tunsrc.hh"

namespace vrf {

class tunsrc_poller {
public:
    static constexpr std::chrono::milliseconds default_interval{2000};

    explicit tunsrc_poller(encap_source_resolver& resolver, std::chrono::milliseconds interval = default_interval)
        : _resolver(resolver), _interval(interval) {}

    // Read once and feed the resolver. True if the global encap source changed (the compiler
    // must then rewrite the pre-built headers; resolver.version() moved too).
    bool poll();

    std::chrono::milliseconds interval() const { return _interval; }
    const tunsrc_reading& last() const { return _last; }
    uint64_t reads() const { return _reads; }
    uint64_t failures() const { return _failures; }

private:
    encap_source_resolver& _resolver;
    std::chrono::milliseconds _interval;
    tunsrc_reader _reader;
    tunsrc_reading _last;
    uint64_t _reads = 0;
    uint64_t _failures = 0;
    util::rate_limit _error_log{std::chrono::minutes(1)};
};

}  // namespace vrf
