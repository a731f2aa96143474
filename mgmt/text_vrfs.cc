#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

constexpr size_t columns = 7;
using vrf_row = std::array<std::string, columns>;

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
    std::vector<vrf_row> rows;
    rows.push_back({"Name", "Id", "Table", "Source", "Members", "State", "Reason"});
    for (const auto& v : t.vrfs())
        rows.push_back({v.name(), fmt::format("{}", v.id()), table_text(v), v.source(), members_text(v), v.state(),
                        v.reason().empty() ? "-" : v.reason()});
    std::array<size_t, columns> width{};
    for (const auto& r : rows)
        for (size_t c = 0; c < columns; ++c)
            width[c] = std::max(width[c], r[c].size());
    size_t total = 0;
    for (size_t c = 0; c < columns; ++c)
        total += width[c] + (c + 1 < columns ? 2 : 0);
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i) {
        std::string line;
        for (size_t c = 0; c < columns; ++c)
            line += c + 1 < columns ? fmt::format("{:<{}}  ", rows[i][c], width[c]) : rows[i][c];
        out += line + "\n";
        if (i == 0)
            out += std::string(total, '-') + "\n";
    }
    if (!t.kernel().empty())
        out += fmt::format("\nKernel VRF devices: {}\n", t.kernel());
    return out;
}

}  // namespace mgmt
