#include <algorithm>

#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {

std::string format_columns(const std::vector<std::vector<std::string>>& rows) {
    if (rows.empty())
        return {};
    const size_t columns = rows.front().size();
    std::vector<size_t> width(columns);
    for (const auto& r : rows)
        for (size_t c = 0; c < columns && c < r.size(); ++c)
            width[c] = std::max(width[c], r[c].size());
    size_t total = 0;
    for (size_t c = 0; c < columns; ++c)
        total += width[c] + (c + 1 < columns ? 2 : 0);
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i) {
        std::string line;
        for (size_t c = 0; c < columns && c < rows[i].size(); ++c)
            line += c + 1 < columns ? fmt::format("{:<{}}  ", rows[i][c], width[c]) : rows[i][c];
        out += line + "\n";
        if (i == 0)
            out += std::string(total, '-') + "\n";
    }
    return out;
}

}  // namespace mgmt
