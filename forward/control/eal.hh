// DPDK EAL start-up for the daemon and the tests: one argument builder, one init per process.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

namespace fwd {

// Defaults that work on machines without hugetlbfs or PCI NICs (see docs/operating.md):
// memfd hugepages, no PCI probing, no telemetry socket.
std::vector<std::string> default_eal_args();

// Splits a config string ("-l 0 --no-pci ...") on whitespace; no quoting is needed for EAL flags.
std::vector<std::string> split_args(const std::string& s);

// What rte_eal_init would fail on with a misleading message, said plainly before calling it:
// --in-memory together with --no-huge (DPDK 22.11 refuses the pair), or hugepages needed (no
// --no-huge) but none free, or neither --in-memory nor a hugetlbfs mount (rte_eal_init then
// says "Permission denied" or "Cannot allocate memory"). `hugepages_dir` and `mounts` are where
// the kernel lists them (parameters for tests). "" = go on.
std::string eal_preflight(const std::vector<std::string>& args,
                          const std::string& hugepages_dir = "/sys/kernel/mm/hugepages",
                          const std::string& mounts = "/proc/mounts");

// rte_eal_init with argv[0] = `prog`. Returns false and fills `error` on failure.
bool eal_init(const std::string& prog, const std::vector<std::string>& args, std::string& error);
void eal_cleanup();

// The CPUs of the enabled EAL lcores (after eal_init): where the workers busy-poll.
cpu_set_t eal_lcore_cpus();

// Where srv6d's control thread (FPM, RIB, compiler, mgmt) should run: the CPUs the process may
// use (`allowed`, read before rte_eal_init pinned the main thread to its lcore) that are not
// an lcore's. A thread started after rte_eal_init inherits the main lcore's pinning, i.e. the
// CPU a worker spins on; DPDK's own control threads (rte_ctrl_thread_create) get this set too.
// Empty when the lcores take every allowed CPU: then the caller leaves the thread where it is.
cpu_set_t control_cpus(const cpu_set_t& allowed, const cpu_set_t& lcores);

// "1", "0,2-3", "none": for the log.
std::string cpu_list(const cpu_set_t& s);

}  // namespace fwd
