#include "forward/eal.hh"

#include <rte_eal.h>
#include <rte_errno.h>

#include <sstream>

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

}  // namespace fwd
