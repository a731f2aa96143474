// Leveled logger for the control plane (never called from the packet path). Lines go to stderr
// (date, time, severity), syslog(3) or the systemd journal (docs/srv6d.md, "Logging"); a message
// repeated faster than repeat_policy allows is held back and counted, and the count rides on the
// next line of the same call site that passes.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <string_view>

namespace util {

enum class level : uint8_t { error, warn, info, debug };

void set_level(level l);
level current_level();
bool parse_level(std::string_view s, level& out);
std::string_view to_string(level l);

// Where lines go. `automatic`: the journal when stderr is the journal's stream (systemd sets
// JOURNAL_STREAM to its device:inode), else stderr.
enum class target : uint8_t { automatic, stderr_lines, syslog, journal };
bool parse_target(std::string_view s, target& out);  // "auto", "stderr", "syslog", "journal"
std::string_view to_string(target t);
void set_target(target t);
target current_target();  // resolved: never `automatic`
target detect_target();   // what `automatic` resolves to in this process

// "2026-12-04 05:22:46.123 warn  fpm: ..." (UTC): the stderr line, newline included.
std::string stderr_line(const timespec& ts, level l, std::string_view msg);
int syslog_priority(level l);  // LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG

// Writes one line to the current target, unconditionally (no level check, no repeat filter).
void write(level l, std::string_view msg);

// Per call site: at most `burst` lines per `window`; beyond that, lines are counted, not written.
struct repeat_policy {
    uint32_t burst = 10;
    std::chrono::milliseconds window{std::chrono::seconds(10)};
};
void set_repeat_policy(repeat_policy p);

// The repeat filter of one call site, on an explicit clock (testable without waiting).
class repeat_filter {
public:
    using time_point = std::chrono::steady_clock::time_point;
    // True if the line may be written now; then `suppressed` is how many were held back since
    // the last line written (0 when none).
    bool offer(time_point now, const repeat_policy& p, uint64_t& suppressed);
    // When lines were held back and their window is over: takes their count (true), so that a
    // flood that stopped is still told about.
    bool take_expired(time_point now, const repeat_policy& p, uint64_t& suppressed);
    uint64_t held() const { return _held; }

private:
    time_point _window_start{};
    uint32_t _in_window = 0;
    bool _ever = false;
    uint64_t _held = 0;
};

// Writes `msg` if the call site `site` (its format string) passes its repeat filter, with
// " (N similar messages suppressed)" appended when some were held back.
void write_limited(const void* site, level l, std::string_view msg);
// Writes "N similar messages suppressed: <last one>" for every call site whose window has ended
// with lines held back: so that the count is told even when the flood stops. Cheap; called by
// srv6d every few seconds and at exit.
// all: every count held, windows over or not (at exit).
void flush_suppressed(bool all = false);

// Debug lines are never held back: whoever turns debug on wants every update.
template <typename... Args>
void log(level l, fmt::format_string<Args...> f, Args&&... args) {
    if (l > current_level())
        return;
    if (l == level::debug)
        write(l, fmt::format(f, std::forward<Args>(args)...));
    else
        write_limited(static_cast<fmt::string_view>(f).data(), l, fmt::format(f, std::forward<Args>(args)...));
}

// " (N similar messages suppressed)", or "" for 0: how every held-back count is told.
std::string suppressed_note(uint64_t n);

// Rate limits flush_suppressed() still tracks: live ones, and destroyed ones holding a count.
size_t registered_limits();

// A call site's own, stricter limit: one line per interval (the repeat filter with a burst of
// one), for sites a peer can make fire at will (malformed FPM input, the mgmt socket). Every
// limit is known to flush_suppressed(), which tells what it held back once its interval is over,
// as for the call sites' repeat filters, even after the limit is gone (a closed connection's).
// A copy is a new site with the same interval.
class rate_limit {
public:
    rate_limit();
    explicit rate_limit(std::chrono::milliseconds interval);
    rate_limit(const rate_limit& o);
    rate_limit& operator=(const rate_limit& o);
    ~rate_limit();
    // True if the caller should log now; `suppressed` is how many were held back since the last one.
    bool allow(uint64_t& suppressed);
    // As allow(), and when held back remembers `msg` at `l` as the last one for the summary.
    bool offer(level l, std::string_view msg, uint64_t& suppressed);

    struct state;  // registered with flush_suppressed() for as long as a limit holds it

private:
    std::shared_ptr<state> _state;
};

// log() through `limit` instead of the call site's repeat filter: one line per interval, the
// next one (or flush_suppressed(), if none comes) saying how many were held back.
template <typename... Args>
void log_limited(rate_limit& limit, level lvl, fmt::format_string<Args...> f, Args&&... args) {
    uint64_t held = 0;
    if (lvl > current_level())
        return;
    std::string msg = fmt::format(f, std::forward<Args>(args)...);
    if (limit.offer(lvl, msg, held))
        write(lvl, msg + suppressed_note(held));
}

}  // namespace util
