#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

std::string members_text(const pb::Vrf& v) {
    std::string out;
    for (const auto& m : v.members()) {
        out += out.empty() ? "" : ",";
        out += m.name().empty() ? fmt::format("ifindex {}", m.ifindex()) : m.name();
    }
    return out.empty() ? "-" : out;
}

// "10", or "10 (config 10, kernel 20)" when the sources disagree.
std::string table_text(const pb::Vrf& v) {
    if (v.has_config_table() && v.has_kernel_table() && v.config_table() != v.kernel_table())
        return fmt::format("{} (config {}, kernel {})", v.table(), v.config_table(), v.kernel_table());
    return fmt::format("{}", v.table());
}

}  // namespace

std::string format_vrfs(const pb::VrfTable& t) {
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"Name", "Id", "Table", "Source", "Members", "State", "Reason"});
    for (const auto& v : t.vrfs())
        rows.push_back({v.name(), fmt::format("{}", v.id()), table_text(v), v.source(), members_text(v), v.state(),
                        v.reason().empty() ? "-" : v.reason()});
    std::string out = format_columns(rows);
    if (!t.kernel().empty())
        out += fmt::format("\nKernel VRF devices: {}\n", t.kernel());
    return out;
}

}  // namespace mgmt
