// Minimal leveled logger for the control plane (never called from the packet path).
#pragma once

#include <chrono>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace util {

enum class level : uint8_t { error, warn, info, debug };

void set_level(level l);
level current_level();
bool parse_level(std::string_view s, level& out);
std::string_view to_string(level l);

void write(level l, std::string_view msg);

template <typename... Args>
void log(level l, fmt::format_string<Args...> f, Args&&... args) {
    if (l <= current_level())
        write(l, fmt::format(f, std::forward<Args>(args)...));
}

// Lets one message through per interval and counts what it held back, so a flood of the
// same bad input costs one log line per interval, not one per message.
class rate_limit {
public:
    rate_limit() = default;
    explicit rate_limit(std::chrono::milliseconds interval) : _interval(interval) {}
    // True if the caller should log now; `suppressed` is how many were held back since the last one.
    bool allow(uint64_t& suppressed);

private:
    std::chrono::milliseconds _interval{std::chrono::seconds(10)};
    std::chrono::steady_clock::time_point _last{};
    bool _ever = false;
    uint64_t _held = 0;
};

}  // namespace util
