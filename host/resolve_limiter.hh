// Which neighbor resolution requests the control thread passes on to the kernel: at most one
// per (interface, address) and interval. The workers ask on every miss (up to once per 10 ms
// each); the kernel's own resolution of an address takes its retransmit timer times its probes
// (1 s x 3 for ARP and ND by default), so asking more often than once a second only restarts
// probes it already sends. Pure logic, no I/O: the caller passes the time.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <tuple>

#include "rib/addr.hh"

namespace host {

class resolve_limiter {
public:
    using clock = std::chrono::steady_clock;

    explicit resolve_limiter(clock::duration interval = std::chrono::seconds(1)) : _interval(interval) {}

    // True if the kernel should be asked now (and remembers that it was).
    bool allow(uint32_t ifindex, const rib::ip_addr& addr, clock::time_point now);
    // Forgets the requests older than the interval (they would be allowed again anyway).
    void expire(clock::time_point now);
    size_t size() const { return _last.size(); }

private:
    using key = std::tuple<uint32_t, rib::family, std::array<uint8_t, 16>>;
    clock::duration _interval;
    std::map<key, clock::time_point> _last;
};

}  // namespace host
