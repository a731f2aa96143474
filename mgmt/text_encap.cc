#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {

std::string format_encap_source(const pb::EncapSource& e) {
    std::string out = fmt::format("Encap source: {}\n", e.text());
    out += fmt::format("  Kernel tunsrc: {}", e.kernel_tunsrc());
    if (e.poll_interval_ms())
        out += fmt::format(" (re-read every {} ms: {} reads, {} failed)", e.poll_interval_ms(), e.kernel_reads(),
                           e.kernel_read_failures());
    out += "\n";
    if (!e.kernel_error().empty())
        out += fmt::format("  Last read error: {}\n", e.kernel_error());
    out += fmt::format("  Configured (encap.source): {}\n", e.has_configured() ? e.configured() : "none");
    return out;
}

}  // namespace mgmt
