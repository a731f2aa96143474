#include "forward/control/eal.hh"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace fwd {

std::vector<std::string> default_eal_args() {
    return {"-l", "0", "--no-pci", "--in-memory", "--no-telemetry", "--iova-mode=va", "--log-level=lib.eal:error"};
}

std::vector<std::string> split_args(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

std::string eal_preflight(const std::vector<std::string>& args, const std::string& hugepages_dir,
                          const std::string& mounts) {
    const auto has = [&](std::string_view a) { return std::find(args.begin(), args.end(), a) != args.end(); };
    if (has("--no-huge")) {
        if (has("--in-memory"))
            return "eal.args: --in-memory and --no-huge cannot be combined (DPDK refuses the pair): "
                   "with --no-huge, use --no-shconf instead of --in-memory";
        return {};
    }
    // Free pages of every size (hugepages-2048kB, hugepages-1048576kB): one is enough to try.
    uint64_t free_pages = 0;
    std::error_code ec;
    for (const auto& d : std::filesystem::directory_iterator(hugepages_dir, ec)) {
        std::ifstream in(d.path() / "free_hugepages");
        uint64_t n = 0;
        if (in >> n)
            free_pages += n;
    }
    if (free_pages > 0) {
        // Without --in-memory, EAL maps its pages from a hugetlbfs mount.
        if (has("--in-memory"))
            return {};
        std::ifstream in(mounts);
        for (std::string line; std::getline(in, line);)
            if (line.find(" hugetlbfs ") != std::string::npos)
                return {};
        return "no hugetlbfs mounted (" + mounts +
               "): add --in-memory to eal.args (the default has it) or mount one (mount -t hugetlbfs nodev /dev/hugepages)";
    }
    return "no free hugepages (" + hugepages_dir +
           "/*/free_hugepages are all 0): reserve some (echo 512 > "
           "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages, or hugepages=N on the kernel command line; "
           "docs/operating.md), or run without them: in eal.args replace --in-memory by --no-huge -m 256 "
           "--no-shconf (4 KiB pages: slower, no physical NIC), or set dataplane.enabled = false";
}

bool eal_init(const std::string& prog, const std::vector<std::string>& args, std::string& error) {
    std::vector<std::string> storage;
    storage.reserve(args.size() + 1);
    storage.push_back(prog);
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = rte_eal_init(static_cast<int>(storage.size()), argv.data());
    if (rc < 0) {
        error = std::string("rte_eal_init failed: ") + rte_strerror(rte_errno);
        return false;
    }
    return true;
}

void eal_cleanup() { rte_eal_cleanup(); }

namespace {
constexpr size_t cpu_set_size = CPU_SETSIZE;
}  // namespace

cpu_set_t eal_lcore_cpus() {
    cpu_set_t out;
    CPU_ZERO(&out);
    for (unsigned lc = 0; lc < RTE_MAX_LCORE; ++lc) {
        if (!rte_lcore_is_enabled(lc))
            continue;
        const rte_cpuset_t c = rte_lcore_cpuset(lc);
        CPU_OR(&out, &out, &c);
    }
    return out;
}

cpu_set_t control_cpus(const cpu_set_t& allowed, const cpu_set_t& lcores) {
    cpu_set_t out;
    CPU_ZERO(&out);
    for (size_t c = 0; c < cpu_set_size; ++c)
        if (CPU_ISSET(c, &allowed) && !CPU_ISSET(c, &lcores))
            CPU_SET(c, &out);
    return out;
}

std::string cpu_list(const cpu_set_t& s) {
    std::string out;
    for (size_t c = 0; c < cpu_set_size; ++c) {
        if (!CPU_ISSET(c, &s))
            continue;
        size_t e = c;
        while (e + 1 < cpu_set_size && CPU_ISSET(e + 1, &s))
            ++e;
        out += (out.empty() ? "" : ",") + std::to_string(c) + (e > c ? "-" + std::to_string(e) : "");
        c = e;
    }
    return out.empty() ? "none" : out;
}

}  // namespace fwd
