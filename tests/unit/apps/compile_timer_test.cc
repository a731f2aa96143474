#include "apps/srv6d/compile_timer.hh"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace SRV6D_UNITY_ID {

using srv6d::compile_timer;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;


// A real event loop and timer: what srv6d's control thread runs.
struct fixture {
    boost::asio::io_context io;
    std::vector<size_t> batches;
    std::vector<clk::time_point> when;
    int settle = 0;  // compiles that ask to be called again
    compile_timer pc{io,
                     [this](size_t b) {
                         batches.push_back(b);
                         when.push_back(clk::now());
                         return settle > 0 && settle-- > 0;
                     },
                     40ms, 1000};
};


TEST(compile_timer, idle_tables_compile_at_once_in_the_call) {
    fixture f;
    f.pc.changed(5);
    ASSERT_EQ(f.batches, (std::vector<size_t>{5}));
    EXPECT_FALSE(f.pc.wanted());
    EXPECT_EQ(f.io.run_for(100ms), 0u);  // nothing armed
}

TEST(compile_timer, a_burst_is_one_compile_an_interval_later) {
    fixture f;
    f.pc.changed(1);  // at once: idle
    const auto t0 = clk::now();
    f.pc.changed(10);
    f.pc.add(20);  // counted, no decision
    f.pc.changed(30);
    EXPECT_EQ(f.batches.size(), 1u);
    f.io.run_for(200ms);
    ASSERT_EQ(f.batches, (std::vector<size_t>{1, 60}));
    EXPECT_GE(f.when[1] - t0, 35ms);  // not before the interval (timer resolution aside)
}

TEST(compile_timer, the_cap_compiles_at_once) {
    fixture f;
    f.pc.changed(1);
    f.pc.changed(999);
    EXPECT_EQ(f.batches.size(), 1u);
    f.pc.changed(1);  // 1000 waiting: the cap
    EXPECT_EQ(f.batches, (std::vector<size_t>{1, 1000}));
}

TEST(compile_timer, settling_compiles_again_an_interval_later) {
    fixture f;
    f.settle = 2;
    f.pc.changed(3);
    f.io.run_for(300ms);
    EXPECT_EQ(f.batches, (std::vector<size_t>{3, 0, 0}));
}

TEST(compile_timer, nothing_compiles_after_stop) {
    fixture f;
    f.pc.changed(1);
    f.pc.changed(2);  // armed for later
    f.pc.stop();
    f.pc.changed(3);
    f.io.run_for(200ms);
    EXPECT_EQ(f.batches, (std::vector<size_t>{1}));
}

}  // namespace SRV6D_UNITY_ID
