// util/log: the stderr line's date and severity, syslog priorities, the target switch, and the
// repeat filter (on its own clock, then through log() with stderr captured in a file).
#include "util/log.hh"

#include "tests/support/capture_stderr.hh"

#include <gtest/gtest.h>
#include <syslog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <sys/stat.h>

namespace SRV6D_UNITY_ID {

using test_support::capture_stderr;
using test_support::count_of;

using namespace std::chrono_literals;


TEST(Log, StderrLineHasDateTimeUtcAndSeverity) {
    timespec ts{};
    ts.tv_sec = 1796361766;  // 2026-12-04 05:22:46 UTC
    ts.tv_nsec = 123'456'789;
    EXPECT_EQ(util::stderr_line(ts, util::level::warn, "fpm: refusing"), "2026-12-04 05:22:46.123 warn  fpm: refusing\n");
    EXPECT_EQ(util::stderr_line(ts, util::level::error, "x"), "2026-12-04 05:22:46.123 error x\n");
}

TEST(Log, SeveritiesMapToSyslogPriorities) {
    EXPECT_EQ(util::syslog_priority(util::level::error), LOG_ERR);
    EXPECT_EQ(util::syslog_priority(util::level::warn), LOG_WARNING);
    EXPECT_EQ(util::syslog_priority(util::level::info), LOG_INFO);
    EXPECT_EQ(util::syslog_priority(util::level::debug), LOG_DEBUG);
}

TEST(Log, TargetsParseAndAutoFollowsJournalStream) {
    util::target t{};
    for (const char* s : {"auto", "stderr", "syslog", "journal"}) {
        ASSERT_TRUE(util::parse_target(s, t)) << s;
        EXPECT_EQ(util::to_string(t), s);
    }
    EXPECT_FALSE(util::parse_target("file", t));

    // JOURNAL_STREAM naming our stderr (here: the capture file) means the journal; naming
    // another stream (stderr was redirected since), or absent, means stderr.
    capture_stderr cap;
    struct stat st {};
    ASSERT_EQ(fstat(2, &st), 0);
    const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    setenv("JOURNAL_STREAM", mine.c_str(), 1);
    EXPECT_EQ(util::detect_target(), util::target::journal);
    util::set_target(util::target::automatic);
    EXPECT_EQ(util::current_target(), util::target::journal);
    setenv("JOURNAL_STREAM", (std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1)).c_str(), 1);
    EXPECT_EQ(util::detect_target(), util::target::stderr_lines);
    unsetenv("JOURNAL_STREAM");
    EXPECT_EQ(util::detect_target(), util::target::stderr_lines);
    util::set_target(util::target::stderr_lines);
}

TEST(Log, JournalTargetWithoutAJournalFallsBackToStderr) {
    if (access("/run/systemd/journal/socket", F_OK) == 0)
        GTEST_SKIP() << "a journal runs here: the line would go there";
    capture_stderr cap;
    util::set_target(util::target::journal);
    util::write(util::level::warn, "to the journal if there is one");
    util::set_target(util::target::stderr_lines);
    EXPECT_NE(cap.text().find(" warn  to the journal if there is one\n"), std::string::npos) << cap.text();
}

TEST(RepeatFilter, BurstPassesThenCountsUntilTheWindowEnds) {
    util::repeat_filter f;
    const util::repeat_policy p{3, 10s};
    const auto t0 = std::chrono::steady_clock::time_point{} + 1h;
    uint64_t n = 99;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(f.offer(t0 + std::chrono::milliseconds(i), p, n));
        EXPECT_EQ(n, 0u);
    }
    for (int i = 0; i < 1216; ++i)
        EXPECT_FALSE(f.offer(t0 + 1s, p, n));
    EXPECT_EQ(f.held(), 1216u);
    EXPECT_FALSE(f.take_expired(t0 + 9s, p, n)) << "the window is not over";
    // The next line after the window carries the count.
    ASSERT_TRUE(f.offer(t0 + 10s, p, n));
    EXPECT_EQ(n, 1216u);
    EXPECT_EQ(f.held(), 0u);
}

TEST(RepeatFilter, ExpiredCountIsTakenOnce) {
    util::repeat_filter f;
    const util::repeat_policy p{1, 10s};
    const auto t0 = std::chrono::steady_clock::time_point{} + 1h;
    uint64_t n = 0;
    ASSERT_TRUE(f.offer(t0, p, n));
    EXPECT_FALSE(f.offer(t0 + 1s, p, n));
    EXPECT_FALSE(f.offer(t0 + 2s, p, n));
    ASSERT_TRUE(f.take_expired(t0 + 10s, p, n));
    EXPECT_EQ(n, 2u);
    EXPECT_FALSE(f.take_expired(t0 + 11s, p, n));
    ASSERT_TRUE(f.offer(t0 + 12s, p, n));
    EXPECT_EQ(n, 0u) << "already told";
}

// Through log(): one call site flooding, another one unaffected; stderr captured.
TEST(Log, RepeatedMessageIsSuppressedWithACount) {
    capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_level(util::level::info);
    util::set_repeat_policy({10, 1h});
    for (int i = 0; i < 1219; ++i)
        util::log(util::level::warn, "fpm: refusing second FPM connection from 127.0.0.1:{}", 40000 + i);
    util::log(util::level::info, "another call site");
    const std::string out = cap.text();
    EXPECT_EQ(count_of(out, "refusing second FPM connection"), 10u) << out;
    EXPECT_EQ(count_of(out, "another call site"), 1u);
    // The window is not over: nothing to flush yet.
    util::flush_suppressed();
    EXPECT_EQ(count_of(cap.text(), "suppressed"), 0u);
    // A zero-length window ends at once: the count of the 1209 held back is told with the last one.
    util::set_repeat_policy({10, 0ms});
    util::flush_suppressed();
    const std::string after = cap.text();
    EXPECT_NE(after.find("warn  1209 similar messages suppressed, the last: fpm: refusing second FPM connection from "
                         "127.0.0.1:41218\n"),
              std::string::npos)
        << after;
    util::set_repeat_policy({});
}

TEST(Log, NextLineAfterTheWindowCarriesTheCount) {
    capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_repeat_policy({2, 1h});
    for (int i = 0; i < 5; ++i)
        util::log(util::level::error, "mgmt: bad request {}", i);
    util::set_repeat_policy({2, 0ms});
    util::log(util::level::error, "mgmt: bad request {}", 5);
    const std::string out = cap.text();
    EXPECT_EQ(count_of(out, "mgmt: bad request"), 3u) << out;
    EXPECT_NE(out.find("mgmt: bad request 5 (3 similar messages suppressed)\n"), std::string::npos) << out;
    util::set_repeat_policy({});
}

// A site's own rate_limit: one line per interval, the next one with the same count note as the
// repeat filter's.
TEST(Log, RateLimitedSiteWritesOneLinePerInterval) {
    capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_level(util::level::info);
    util::rate_limit hour{1h};
    for (int i = 0; i < 7; ++i)
        util::log_limited(hour, util::level::warn, "fpm: refused FPM connection from {}", i);
    EXPECT_EQ(count_of(cap.text(), "refused FPM connection"), 1u) << cap.text();
    util::rate_limit none{0ms};
    uint64_t held = 0;
    EXPECT_TRUE(none.allow(held));
    EXPECT_TRUE(none.allow(held));
    EXPECT_EQ(held, 0u);
    // The same filter: what `hour` held back is told by the line after its window.
    util::rate_limit shortw{50ms};
    for (int i = 0; i < 4; ++i)
        util::log_limited(shortw, util::level::warn, "mgmt: bad frame {}", i);
    std::this_thread::sleep_for(60ms);
    util::log_limited(shortw, util::level::warn, "mgmt: bad frame {}", 4);
    EXPECT_NE(cap.text().find("mgmt: bad frame 4 (3 similar messages suppressed)\n"), std::string::npos) << cap.text();
    EXPECT_EQ(util::suppressed_note(1), " (1 similar message suppressed)");
    EXPECT_EQ(util::suppressed_note(0), "");
}

// A rate-limited site that floods and stops is still told about: flush_suppressed() writes its
// count once its interval is over, even when the limit itself is gone (a closed connection's
// decoder), as for the repeat filter's sites.
TEST(Log, RateLimitedSiteFloodIsSummarisedByTheFlush) {
    capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_level(util::level::info);
    {
        util::rate_limit frames{30ms};
        for (int i = 0; i < 30; ++i)
            util::log_limited(frames, util::level::warn, "fpm: bad frame {}", i);
        util::flush_suppressed();
        EXPECT_EQ(count_of(cap.text(), "suppressed"), 0u) << "the interval is not over";
    }
    std::this_thread::sleep_for(40ms);
    util::flush_suppressed();
    const std::string out = cap.text();
    EXPECT_EQ(count_of(out, "fpm: bad frame"), 2u) << out;
    EXPECT_NE(out.find("warn  29 similar messages suppressed, the last: fpm: bad frame 29\n"), std::string::npos) << out;
    util::flush_suppressed(true);
    EXPECT_EQ(count_of(cap.text(), "suppressed, the last: fpm: bad frame"), 1u) << "told once";
    // A copy is a site of its own.
    util::rate_limit a{1h};
    uint64_t held = 0;
    EXPECT_TRUE(a.allow(held));
    util::rate_limit b = a;
    EXPECT_TRUE(b.allow(held));
    EXPECT_FALSE(a.allow(held));
}

// A limit that is destroyed with nothing held back is forgotten at once: a process that opens
// connections (each decoder has its limits) faster than it flushes must not grow. One that held
// lines back stays until flush_suppressed() has told its count.
TEST(Log, DestroyedLimitsAreForgottenUnlessTheyHoldACount) {
    capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_level(util::level::info);
    util::flush_suppressed(true);
    const size_t base = util::registered_limits();
    for (int i = 0; i < 1000; ++i) {
        util::rate_limit quiet{1h};
        util::log_limited(quiet, util::level::warn, "fpm: bad frame {}", i);  // allowed, none held
    }
    EXPECT_EQ(util::registered_limits(), base);
    {
        util::rate_limit busy{1h};
        for (int i = 0; i < 3; ++i)
            util::log_limited(busy, util::level::warn, "fpm: held frame {}", i);
    }
    EXPECT_EQ(util::registered_limits(), base + 1);
    util::flush_suppressed(true);
    EXPECT_EQ(util::registered_limits(), base);
    EXPECT_EQ(count_of(cap.text(), "2 similar messages suppressed, the last: fpm: held frame 2"), 1u) << cap.text();
}

TEST(Log, DebugLinesAreNeverHeldBack) {
    capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_level(util::level::debug);
    util::set_repeat_policy({2, 1h});
    for (int i = 0; i < 50; ++i)
        util::log(util::level::debug, "fpm: +route 10.0.{}.0/24", i);
    util::set_level(util::level::info);
    util::set_repeat_policy({});
    EXPECT_EQ(count_of(cap.text(), "fpm: +route"), 50u);
}

TEST(Log, LevelFiltersBeforeTheRepeatFilter) {
    capture_stderr cap;
    util::set_level(util::level::warn);
    util::log(util::level::info, "not shown");
    util::set_level(util::level::info);
    EXPECT_EQ(cap.text().find("not shown"), std::string::npos);
}

}  // namespace
