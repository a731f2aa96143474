// Where the control thread goes: the allowed CPUs minus the EAL lcores' (forward/control/eal.hh).
#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <string>

#include "forward/control/eal.hh"
#include "tests/unit/forward/eal_env.hh"

namespace SRV6D_UNITY_ID {

cpu_set_t set_of(std::initializer_list<size_t> cpus) {
    cpu_set_t s;
    CPU_ZERO(&s);
    for (size_t c : cpus)
        CPU_SET(c, &s);
    return s;
}

TEST(eal, control_cpus_are_the_allowed_ones_no_lcore_uses) {
    // 2 CPUs, `-l 0`: the worker spins on CPU 0, the control thread belongs on CPU 1
    cpu_set_t c = fwd::control_cpus(set_of({0, 1}), set_of({0}));
    EXPECT_EQ(fwd::cpu_list(c), "1");
    // 8 CPUs, taskset 2-7, `-l 2,3`
    c = fwd::control_cpus(set_of({2, 3, 4, 5, 6, 7}), set_of({2, 3}));
    EXPECT_EQ(fwd::cpu_list(c), "4-7");
    // an lcore on a CPU the process may not use changes nothing
    c = fwd::control_cpus(set_of({0, 1}), set_of({1, 5}));
    EXPECT_EQ(fwd::cpu_list(c), "0");
}

TEST(eal, control_cpus_empty_when_the_lcores_take_every_cpu) {
    // `-l 0,1` on 2 CPUs: nothing left; the caller keeps the inherited (main lcore) pinning
    const cpu_set_t c = fwd::control_cpus(set_of({0, 1}), set_of({0, 1}));
    EXPECT_EQ(CPU_COUNT(&c), 0);
    EXPECT_EQ(fwd::cpu_list(c), "none");
}

TEST(eal, cpu_list_ranges) {
    EXPECT_EQ(fwd::cpu_list(set_of({0})), "0");
    EXPECT_EQ(fwd::cpu_list(set_of({0, 2, 3, 4, 7})), "0,2-4,7");
}

TEST(eal, lcore_cpus_after_init) {
    // the test environment starts EAL with `-l N`, N the first CPU this process may use (eal_env.cc)
    const cpu_set_t l = fwd::eal_lcore_cpus();
    EXPECT_EQ(fwd::cpu_list(l), std::to_string(fwd::test::eal_cpu()));
}

}  // namespace
