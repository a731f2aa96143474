// The shutdown bound (apps/srv6d/stop_bound.hh): a stop that does not finish in time exits with
// status 1 and names the last step it reached; one that finishes exits by itself.
#include "apps/srv6d/stop_bound.hh"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace SRV6D_UNITY_ID {

using namespace std::chrono_literals;
namespace sb = srv6d::stop_bound;

TEST(stop_bound, a_stuck_shutdown_exits_1_naming_its_last_step) {
    EXPECT_EXIT(
        {
            sb::step("closing the ports");
            sb::arm(200ms);
            std::this_thread::sleep_for(10s);  // stuck
            std::exit(0);
        },
        testing::ExitedWithCode(1), "shutdown stuck for 200 ms after: closing the ports; exiting");
}

TEST(stop_bound, a_finished_shutdown_is_left_alone) {
    EXPECT_EXIT(
        {
            sb::arm(200ms);
            sb::step("cleaning up EAL");
            sb::done();
            std::this_thread::sleep_for(600ms);  // past the bound
            std::exit(0);
        },
        testing::ExitedWithCode(0), "");
}

}  // namespace SRV6D_UNITY_ID
