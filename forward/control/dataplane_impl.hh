// What the dataplane's control files share and its header keeps private: a worker's slot and
// the raw sum of the workers' counters.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include <rte_lcore.h>

#include "forward/control/dataplane.hh"
#include "forward/datapath/counters.hh"
#include "forward/datapath/worker.hh"

namespace fwd {

struct dataplane::worker_slot {
    std::unique_ptr<worker_counters> counters = std::make_unique<worker_counters>();
    std::unique_ptr<worker> w;
    unsigned id = 0;
    // Set by the worker itself when it starts (the control thread reads it for the counters).
    std::atomic<unsigned> lcore{RTE_MAX_LCORE};
};

struct dataplane::raw {
    std::array<std::array<uint64_t, 7>, max_ports> ports{};
    // The device's own counters (rte_eth_stats): missed, rx errors, rx no mbuf, tx errors.
    std::array<std::array<uint64_t, 4>, max_ports> dev{};
    std::array<uint64_t, drop_reason_count> drops{};
    std::vector<sid_count> sids = std::vector<sid_count>(max_sid_counters);
    uint64_t sid_overflow = 0;
    uint64_t chained = 0;
    uint64_t fragmented = 0, fragments = 0;
    std::array<uint64_t, headend_modes> headend{};
    uint64_t resolve_queued = 0, resolve_lost = 0, resolve_sent = 0, resolve_limited = 0, resolve_failed = 0;
    uint64_t held = 0, released = 0;
    std::array<uint64_t, icmp_kinds> icmp{};
    uint64_t icmp_rate_limited = 0, icmp_no_source = 0;
    std::vector<std::array<uint64_t, 3>> workers;  // per worker: rx, tx, dropped
};

}  // namespace fwd
