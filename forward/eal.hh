// DPDK EAL start-up for the daemon and the tests: one argument builder, one init per process.
#pragma once

#include <string>
#include <vector>

namespace fwd {

// Defaults that work on machines without hugetlbfs or PCI NICs (see docs/operations.md):
// memfd hugepages, no PCI probing, no telemetry socket.
std::vector<std::string> default_eal_args();

// Splits a config string ("-l 0 --no-pci ...") on whitespace; no quoting is needed for EAL flags.
std::vector<std::string> split_args(const std::string& s);

// rte_eal_init with argv[0] = `prog`. Returns false and fills `error` on failure.
bool eal_init(const std::string& prog, const std::vector<std::string>& args, std::string& error);
void eal_cleanup();

}  // namespace fwd
