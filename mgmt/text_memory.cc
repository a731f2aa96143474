#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

// 1 536 -> "1.5 KiB": a size an operator reads at a glance (the exact bytes are in --json).
std::string human(uint64_t b) {
    if (b < 1024)
        return fmt::format("{} B", b);
    static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(b) / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < std::size(units)) {
        v /= 1024;
        ++u;
    }
    return fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace

// The compiled tables by kind with their total and bytes per route, what is pooled, then the
// mbuf pools.
std::string format_memory(const pb::Memory& m) {
    std::string out = fmt::format("{:<28} {:>12} {:>14} {:>10}\n", "Compiled tables (workers)", "Size", "Bytes",
                                  "Blocks");
    uint64_t blocks = 0;
    for (const auto& t : m.tables()) {
        out += fmt::format("  {:<26} {:>12} {:>14} {:>10}\n", t.kind(), human(t.bytes()), t.bytes(), t.blocks());
        blocks += t.blocks();
    }
    out += fmt::format("  {:<26} {:>12} {:>14} {:>10}\n", "total", human(m.tables_bytes()), m.tables_bytes(), blocks);
    if (m.routes() != 0)
        out += fmt::format("  {} routes: {} bytes per route\n", m.routes(), m.tables_bytes() / m.routes());
    out += fmt::format("  freed, kept for reuse: {} ({} bytes)\n", human(m.pooled_bytes()), m.pooled_bytes());
    if (m.pools_size() == 0)
        return out + "\nMbuf pools: none (no dataplane)\n";
    out += fmt::format("\n{:<28} {:>10} {:>10} {:>10} {:>10}\n", "Mbuf pool", "Size", "In use", "Available",
                       "Data room");
    for (const auto& p : m.pools())
        out += fmt::format("  {:<26} {:>10} {:>10} {:>10} {:>10}\n", p.name(), p.size(), p.in_use(), p.available(),
                           p.data_room());
    return out;
}

}  // namespace mgmt
