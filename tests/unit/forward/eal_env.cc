// One EAL per test process (rte_eal_init cannot run twice). --no-huge works on machines with
// no hugepages reserved (and implies legacy memory, so it cannot be combined with --in-memory).
#include <gtest/gtest.h>

#include <string>

#include "forward/control/eal.hh"
#include "tests/unit/forward/eal_env.hh"

namespace SRV6D_UNITY_ID {

class eal_environment : public ::testing::Environment {
public:
    void SetUp() override {
        std::string err;
        // One lcore (no worker lcore: tests run workers with run_here()), on an allowed CPU.
        const std::vector<std::string> args = {"-l", std::to_string(fwd::test::eal_cpu()), "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
                                               "--no-telemetry", "--log-level=lib.eal:error"};
        ASSERT_TRUE(fwd::eal_init("unit_forward", args, err)) << err;
    }
    void TearDown() override { fwd::eal_cleanup(); }
};

const auto* const g_env = ::testing::AddGlobalTestEnvironment(new eal_environment);

}  // namespace
