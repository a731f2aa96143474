#include "apps/srv6d/stop_bound.hh"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "util/log.hh"

namespace srv6d::stop_bound {

namespace {
// Atomics with trivial destructors: the watcher may still read them while the process exits.
std::atomic<const char*> last_step{"shutdown requested"};
std::atomic<bool> finished{false};
std::once_flag armed;
}  // namespace

void step(const char* s) {
    last_step.store(s, std::memory_order_relaxed);
    util::log(util::level::debug, "srv6d: shutdown: {}", s);
}

void arm(std::chrono::milliseconds bound) {
    std::call_once(armed, [bound] {
        std::thread([bound] {
            const auto end = std::chrono::steady_clock::now() + bound;
            while (std::chrono::steady_clock::now() < end) {
                if (finished.load(std::memory_order_acquire))
                    return;
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            if (finished.load(std::memory_order_acquire))
                return;
            util::log(util::level::error, "srv6d: shutdown stuck for {} ms after: {}; exiting", bound.count(),
                      last_step.load(std::memory_order_relaxed));
            util::flush_suppressed(true);
            std::_Exit(1);  // no destructors: one of them may be what is stuck
        }).detach();
    });
}

void done() { finished.store(true, std::memory_order_release); }

}  // namespace srv6d::stop_bound
