#include "apps/srv6d/compile_pacer.hh"

#include <gtest/gtest.h>

namespace SRV6D_UNITY_ID {

using srv6d::compile_pacer;
using namespace std::chrono_literals;

const compile_pacer::clock::time_point t0 = compile_pacer::clock::time_point{} + 1h;

TEST(compile_pacer, nothing_wanted_nothing_to_do) {
    compile_pacer p(50ms, 1000);
    auto d = p.poll(t0);
    EXPECT_FALSE(d.now);
    EXPECT_FALSE(d.wait);
}

TEST(compile_pacer, idle_tables_compile_at_once) {
    compile_pacer p(50ms, 1000);
    p.changed(1);
    EXPECT_TRUE(p.poll(t0).now);  // first ever
    p.compiled(t0);
    p.changed(1);
    EXPECT_TRUE(p.poll(t0 + 50ms).now);  // quiet for min_interval
    p.compiled(t0 + 50ms);
    p.changed(0);  // a VRF / encap source change counts too
    EXPECT_TRUE(p.poll(t0 + 200ms).now);
}

TEST(compile_pacer, a_burst_is_coalesced_up_to_the_interval) {
    compile_pacer p(50ms, 1000);
    p.changed(300);
    p.compiled(t0);
    for (int i = 1; i <= 3; ++i) {
        p.changed(300);
        const auto d = p.poll(t0 + i * 10ms);
        EXPECT_FALSE(d.now);
        ASSERT_TRUE(d.wait);
        EXPECT_EQ(d.at, t0 + 50ms);  // the latency bound: last compile + min_interval
    }
    EXPECT_EQ(p.pending(), 900u);
    EXPECT_TRUE(p.poll(t0 + 50ms).now);  // the timer fired
    p.compiled(t0 + 50ms);
    EXPECT_EQ(p.pending(), 0u);
    EXPECT_FALSE(p.wanted());
}

TEST(compile_pacer, too_many_pending_compiles_at_once) {
    compile_pacer p(50ms, 1000);
    p.changed(1);
    p.compiled(t0);
    p.changed(999);
    EXPECT_FALSE(p.poll(t0 + 1ms).now);
    p.changed(1);
    EXPECT_TRUE(p.poll(t0 + 1ms).now);
}

}  // namespace SRV6D_UNITY_ID
