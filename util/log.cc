#include "util/log.hh"

#include <atomic>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace util {
namespace {
std::atomic<level> g_level{level::info};
std::mutex g_write_mutex;  // lines from the control thread and the main thread must not interleave
}  // namespace

void set_level(level l) { g_level.store(l, std::memory_order_relaxed); }
level current_level() { return g_level.load(std::memory_order_relaxed); }

std::string_view to_string(level l) {
    switch (l) {
    case level::error: return "error";
    case level::warn: return "warn";
    case level::info: return "info";
    case level::debug: return "debug";
    }
    return "?";
}

bool parse_level(std::string_view s, level& out) {
    for (level l : {level::error, level::warn, level::info, level::debug}) {
        if (s == to_string(l)) {
            out = l;
            return true;
        }
    }
    return false;
}

void write(level l, std::string_view msg) {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    tm t{};
    gmtime_r(&ts.tv_sec, &t);
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%02d:%02d:%02d.%03ld", t.tm_hour, t.tm_min, t.tm_sec, ts.tv_nsec / 1000000);
    std::lock_guard lock(g_write_mutex);
    std::fprintf(stderr, "%s %-5s %.*s\n", stamp, to_string(l).data(), static_cast<int>(msg.size()), msg.data());
    std::fflush(stderr);
}

bool rate_limit::allow(uint64_t& suppressed) {
    const auto now = std::chrono::steady_clock::now();
    if (_ever && now - _last < _interval) {
        ++_held;
        return false;
    }
    _ever = true;
    _last = now;
    suppressed = _held;
    _held = 0;
    return true;
}

}  // namespace util
