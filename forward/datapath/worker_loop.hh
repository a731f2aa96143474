// A worker lcore's loop: one poll of its queues at a time, a quiescent state after each, and an
// idle back-off up to the configured sleep, offline while asleep so that a grace period does
// not wait for the nap.
#pragma once

#include <atomic>
#include <cstdint>

#include "fib/datapath/rcu.hh"
#include "forward/datapath/worker.hh"

namespace fwd {

// Returns once `run` is false. `reader_id` is the worker's QSBR reader slot in `rcu`.
void run_worker(worker& wk, fib::qsbr_domain& rcu, uint32_t reader_id, const std::atomic<bool>& run,
                const std::atomic<uint32_t>& idle_sleep_us);

}  // namespace fwd
