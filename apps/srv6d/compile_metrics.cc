#include "apps/srv6d/compile_metrics.hh"

#include <algorithm>
#include <atomic>
#include <string>

#include "fib/datapath/mem.hh"

namespace srv6d {
namespace {

void one(std::vector<::mgmt::metric_family>& out, const char* name, const char* help, const char* type, uint64_t v) {
    out.push_back({name, help, type, {}});
    out.back().add({}, v);
}

}  // namespace

void compile_metrics(const fib::compiler_stats& s, std::vector<::mgmt::metric_family>& out) {
    one(out, "srv6d_compile_runs_total", "Table compilations", "counter", s.compiles);
    one(out, "srv6d_compile_publications_total", "New tables published to the workers", "counter", s.publications);
    one(out, "srv6d_compile_full_syncs_total", "Compilations that read the whole RIB", "counter", s.full_syncs);
    one(out, "srv6d_compile_route_updates_total", "Routes recompiled", "counter", s.route_updates);
    one(out, "srv6d_compile_lpm_changes_total", "LPM sets and erases that changed a table", "counter", s.lpm_changes);
    one(out, "srv6d_compile_nexthop_rebuilds_total", "Nexthops rebuilt in place", "counter", s.nexthop_rebuilds);
    out.push_back({"srv6d_compile_routes", "RIB routes by compile state", "gauge", {}});
    for (size_t i = 0; i < fib::route_state_count; ++i)
        out.back().add({{"state", std::string(fib::name(static_cast<fib::route_state>(i)))}}, s.routes[i]);
    out.push_back({"srv6d_compile_nexthops", "Compiled nexthops by kind", "gauge", {}});
    for (size_t i = 0; i < fib::nh_kind_count; ++i)
        out.back().add({{"kind", std::string(fib::name(static_cast<fib::nh_kind>(i)))}}, s.nexthops[i]);
    out.push_back({"srv6d_compile_refused_nexthops", "Refused nexthops by reason (their packets are dropped)", "gauge", {}});
    for (size_t i = 1; i < fib::nh_refusal_count; ++i)
        out.back().add({{"reason", std::string(fib::name(static_cast<fib::nh_refusal>(i)))}}, s.refused[i]);
}

void table_memory(const fib::compiler_stats& s, ::mgmt::pb::Memory& m) {
    const fib::mem_counters& mem = fib::memory();
    // Relaxed reads of counters the control thread keeps: never negative, but clamped anyway.
    auto count = [](const std::atomic<int64_t>& c) {
        return static_cast<uint64_t>(std::max<int64_t>(0, c.load(std::memory_order_relaxed)));
    };
    uint64_t total = 0;
    for (size_t k = 0; k < fib::mem_kind_count; ++k) {
        auto* t = m.add_tables();
        t->set_kind(fib::name(static_cast<fib::mem_kind>(k)));
        t->set_bytes(count(mem.bytes[k]));
        t->set_blocks(count(mem.blocks[k]));
        total += t->bytes();
    }
    m.set_tables_bytes(total);
    m.set_pooled_bytes(count(mem.pooled_bytes));
    m.set_routes(s.routes[static_cast<size_t>(fib::route_state::installed)]);
}

}  // namespace srv6d
