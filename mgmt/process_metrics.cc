// process_* metrics of the running process, named and computed as the Prometheus client
// libraries do (client_golang's process collector): what dashboards and alerts already expect.
#include "mgmt/metrics.hh"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>
#include <system_error>

namespace mgmt {
namespace {

// Boot time, in seconds since the epoch (/proc/stat "btime").
std::optional<uint64_t> boot_time() {
    std::ifstream in("/proc/stat");
    std::string key;
    uint64_t v = 0;
    while (in >> key) {
        if (key == "btime" && in >> v)
            return v;
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return std::nullopt;
}

}  // namespace

void process_metrics(std::vector<metric_family>& out) {
    auto family = [&](const char* name, const char* help, const char* type) -> metric_family& {
        out.push_back({name, help, type, {}});
        return out.back();
    };
    // /proc/self/stat: the fields after the command's closing parenthesis (it may hold blanks).
    std::ifstream in("/proc/self/stat");
    std::string stat;
    std::getline(in, stat);
    const auto paren = stat.rfind(')');
    std::vector<std::string> f;  // f[0] is field 3 (state)
    if (paren != std::string::npos) {
        std::istringstream rest(stat.substr(paren + 1));
        for (std::string w; rest >> w;)
            f.push_back(w);
    }
    const long ticks = sysconf(_SC_CLK_TCK);
    const long page = sysconf(_SC_PAGESIZE);
    auto field = [&](size_t n) { return std::stoull(f.at(n - 3)); };  // proc(5) numbers fields from 1
    if (f.size() >= 22 && ticks > 0) {
        family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds", "counter")
            .add_real({}, static_cast<double>(field(14) + field(15)) / static_cast<double>(ticks));
        family("process_virtual_memory_bytes", "Virtual memory size in bytes", "gauge").add({}, field(23));
        family("process_resident_memory_bytes", "Resident memory size in bytes", "gauge")
            .add({}, field(24) * static_cast<uint64_t>(page));
        if (const auto bt = boot_time())
            family("process_start_time_seconds", "Start time of the process since unix epoch in seconds", "gauge")
                .add_real({}, static_cast<double>(*bt) + static_cast<double>(field(22)) / static_cast<double>(ticks));
    }
    std::error_code ec;
    uint64_t fds = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
        ++fds;
    if (!ec)
        family("process_open_fds", "Number of open file descriptors", "gauge").add({}, fds > 0 ? fds - 1 : 0);  // not the iterator's own
    if (rlimit rl{}; getrlimit(RLIMIT_NOFILE, &rl) == 0)
        family("process_max_fds", "Maximum number of open file descriptors", "gauge").add({}, rl.rlim_cur);
}

void build_metrics(std::string_view version, std::string_view dpdk, double start_time, std::vector<metric_family>& out) {
    out.push_back({"srv6d_build_info", "srv6d's version and the DPDK it was built with (always 1)", "gauge", {}});
    out.back().add({{"version", std::string(version)}, {"dpdk", std::string(dpdk)}}, 1);
    out.push_back({"srv6d_start_time_seconds", "When srv6d started, in seconds since the unix epoch", "gauge", {}});
    out.back().add_real({}, start_time);
}

}  // namespace mgmt
