// The EAL of the unit_forward process (eal_env.cc): one lcore, on a CPU this process may use.
#pragma once

#include <sched.h>

#include <cstddef>

namespace fwd::test {

// The lowest CPU of the process's affinity mask, read once before rte_eal_init pins the main
// thread: CPU 0 is not always allowed (taskset, cgroup cpusets on CI runners).
inline size_t eal_cpu() {
    static const size_t cpu = [] {
        cpu_set_t s;
        CPU_ZERO(&s);
        if (sched_getaffinity(0, sizeof s, &s) == 0)
            for (size_t c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &s))
                    return c;
        return size_t{0};
    }();
    return cpu;
}

}  // namespace fwd::test
