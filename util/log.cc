#include "util/log.hh"

#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace util {
namespace {
std::atomic<level> g_level{level::info};
std::atomic<target> g_target{target::stderr_lines};
std::mutex g_write_mutex;  // lines from the control thread and the main thread must not interleave
bool g_syslog_open = false;  // under g_write_mutex

// Per call site (format string address): the repeat filter and the last line held back.
struct site_state {
    repeat_filter filter;
    level lvl = level::info;
    std::string last;
};
std::mutex g_repeat_mutex;
repeat_policy g_policy;
std::unordered_map<const void*, site_state> g_sites;
// Every rate_limit's state (under g_repeat_mutex): the flush drops those whose limit is gone
// once nothing they held back is left to tell.
std::vector<std::shared_ptr<rate_limit::state>> g_limits;

// sd_journal_send drops a message silently when no journald listens: then the stderr line.
bool journal_available() {
    static const bool available = access("/run/systemd/journal/socket", W_OK) == 0;
    return available;
}

void write_locked(level l, std::string_view msg) {
    const target t = g_target.load(std::memory_order_relaxed);
    if (t == target::journal && journal_available()) {
        // SYSLOG_IDENTIFIER as journalctl -t expects; PRIORITY is syslog's.
        if (sd_journal_send("MESSAGE=%.*s", static_cast<int>(msg.size()), msg.data(), "PRIORITY=%d", syslog_priority(l),
                            "SYSLOG_IDENTIFIER=srv6d", nullptr) == 0)
            return;
        // No journal to talk to: the line is not lost, it goes to stderr below.
    } else if (t == target::syslog) {
        if (!g_syslog_open) {
            openlog("srv6d", LOG_PID | LOG_NDELAY, LOG_DAEMON);
            g_syslog_open = true;
        }
        syslog(syslog_priority(l), "%.*s", static_cast<int>(msg.size()), msg.data());
        return;
    }
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    const std::string line = stderr_line(ts, l, msg);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}
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

std::string_view to_string(target t) {
    switch (t) {
    case target::automatic: return "auto";
    case target::stderr_lines: return "stderr";
    case target::syslog: return "syslog";
    case target::journal: return "journal";
    }
    return "?";
}

bool parse_target(std::string_view s, target& out) {
    for (target t : {target::automatic, target::stderr_lines, target::syslog, target::journal}) {
        if (s == to_string(t)) {
            out = t;
            return true;
        }
    }
    return false;
}

target detect_target() {
    // systemd passes "DEVICE:INODE" of the stream it connected stdout/stderr to; only if stderr
    // is still that stream is the journal where our lines would end up anyway (sd_journal_send
    // then keeps their priority, which a plain line on the stream loses).
    const char* js = std::getenv("JOURNAL_STREAM");
    if (js == nullptr)
        return target::stderr_lines;
    unsigned long long dev = 0, ino = 0;
    struct stat st {};
    if (std::sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st) != 0)
        return target::stderr_lines;
    return st.st_dev == dev && st.st_ino == ino ? target::journal : target::stderr_lines;
}

void set_target(target t) {
    g_target.store(t == target::automatic ? detect_target() : t, std::memory_order_relaxed);
}
target current_target() { return g_target.load(std::memory_order_relaxed); }

std::string stderr_line(const timespec& ts, level l, std::string_view msg) {
    tm t{};
    gmtime_r(&ts.tv_sec, &t);
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03} {:<5} {}\n", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                       t.tm_hour, t.tm_min, t.tm_sec, ts.tv_nsec / 1000000, to_string(l), msg);
}

int syslog_priority(level l) {
    switch (l) {
    case level::error: return LOG_ERR;
    case level::warn: return LOG_WARNING;
    case level::info: return LOG_INFO;
    case level::debug: return LOG_DEBUG;
    }
    return LOG_INFO;
}

void write(level l, std::string_view msg) {
    std::lock_guard lock(g_write_mutex);
    write_locked(l, msg);
}

void set_repeat_policy(repeat_policy p) {
    std::lock_guard lock(g_repeat_mutex);
    g_policy = p;
}

bool repeat_filter::offer(time_point now, const repeat_policy& p, uint64_t& suppressed) {
    if (!_ever || now - _window_start >= p.window) {
        _ever = true;
        _window_start = now;
        _in_window = 0;
    }
    if (_in_window >= p.burst) {
        ++_held;
        return false;
    }
    ++_in_window;
    suppressed = _held;
    _held = 0;
    return true;
}

bool repeat_filter::take_expired(time_point now, const repeat_policy& p, uint64_t& suppressed) {
    if (_held == 0 || now - _window_start < p.window)
        return false;
    suppressed = _held;
    _held = 0;
    return true;
}

void write_limited(const void* site, level l, std::string_view msg) {
    uint64_t suppressed = 0;
    {
        std::lock_guard lock(g_repeat_mutex);
        auto& s = g_sites[site];
        if (!s.filter.offer(std::chrono::steady_clock::now(), g_policy, suppressed)) {
            s.lvl = l;
            s.last.assign(msg);
            return;
        }
        s.last.clear();
    }
    write(l, std::string(msg) + suppressed_note(suppressed));
}

struct rate_limit::state {
    repeat_policy policy;
    repeat_filter filter;
    level lvl = level::warn;
    std::string last;  // the last line held back
    bool gone = false; // its rate_limit was destroyed
};

namespace {
std::shared_ptr<rate_limit::state> new_limit(std::chrono::milliseconds interval) {
    auto st = std::make_shared<rate_limit::state>();
    st->policy = {1, interval};
    std::lock_guard lock(g_repeat_mutex);
    g_limits.push_back(st);
    return st;
}

std::string summary(uint64_t n, std::string_view last) {
    return fmt::format("{} similar message{} suppressed, the last: {}", n, n == 1 ? "" : "s", last);
}
}  // namespace

rate_limit::rate_limit() : rate_limit(std::chrono::seconds(10)) {}
rate_limit::rate_limit(std::chrono::milliseconds interval) : _state(new_limit(interval)) {}
rate_limit::rate_limit(const rate_limit& o) : _state(new_limit(o._state->policy.window)) {}
rate_limit& rate_limit::operator=(const rate_limit& o) {
    if (this != &o) {
        rate_limit copy(o);
        std::swap(_state, copy._state);
    }
    return *this;
}
rate_limit::~rate_limit() {
    std::lock_guard lock(g_repeat_mutex);
    _state->gone = true;
    // Nothing held back: nothing for flush_suppressed() to tell, so forget it now; a process
    // that makes limits faster than it flushes (one set per FPM connection) must not grow.
    if (_state->filter.held() == 0)
        std::erase(g_limits, _state);
}

size_t registered_limits() {
    std::lock_guard lock(g_repeat_mutex);
    return g_limits.size();
}

bool rate_limit::allow(uint64_t& suppressed) {
    std::lock_guard lock(g_repeat_mutex);
    return _state->filter.offer(std::chrono::steady_clock::now(), _state->policy, suppressed);
}

bool rate_limit::offer(level l, std::string_view msg, uint64_t& suppressed) {
    std::lock_guard lock(g_repeat_mutex);
    if (_state->filter.offer(std::chrono::steady_clock::now(), _state->policy, suppressed)) {
        _state->last.clear();
        return true;
    }
    _state->lvl = l;
    _state->last.assign(msg);
    return false;
}

void flush_suppressed(bool all) {
    const auto now = all ? std::chrono::steady_clock::time_point::max() : std::chrono::steady_clock::now();
    std::vector<std::pair<level, std::string>> out;
    {
        std::lock_guard lock(g_repeat_mutex);
        for (auto& [site, s] : g_sites) {
            uint64_t n = 0;
            if (s.filter.take_expired(now, g_policy, n)) {
                out.emplace_back(s.lvl, summary(n, s.last));
                s.last.clear();
            }
        }
        std::erase_if(g_limits, [&](const std::shared_ptr<rate_limit::state>& st) {
            uint64_t n = 0;
            if (st->filter.take_expired(now, st->policy, n)) {
                out.emplace_back(st->lvl, summary(n, st->last));
                st->last.clear();
            }
            return st->gone && st->filter.held() == 0;
        });
    }
    for (const auto& [l, m] : out)
        if (l <= current_level())
            write(l, m);
}

std::string suppressed_note(uint64_t n) {
    return n == 0 ? std::string() : fmt::format(" ({} similar message{} suppressed)", n, n == 1 ? "" : "s");
}

}  // namespace util
