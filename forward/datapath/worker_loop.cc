#include "forward/datapath/worker_loop.hh"

#include <algorithm>
#include <chrono>
#include <thread>

namespace fwd {

void run_worker(worker& wk, fib::qsbr_domain& rcu, uint32_t reader_id, const std::atomic<bool>& run,
                const std::atomic<uint32_t>& idle_sleep_us) {
    fib::qsbr_reader reader(rcu, reader_id);
    // Polls that found nothing in a row, and the sleep the next idle poll takes.
    constexpr unsigned idle_polls = 256;
    unsigned empty = 0;
    uint32_t sleep_us = 1;
    while (run.load(std::memory_order_relaxed)) {
        const uint32_t got = wk.poll();
        wk.counters().hdr_chained.set(wk.headend().hdr_chained);
        reader.quiescent();
        const uint32_t max_us = idle_sleep_us.load(std::memory_order_relaxed);
        if (got != 0 || max_us == 0) {
            empty = 0;
            sleep_us = 1;
            continue;
        }
        if (++empty < idle_polls)
            continue;
        reader.offline();
        std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        reader.online();
        sleep_us = std::min(max_us, sleep_us * 2);
    }
}

}  // namespace fwd
