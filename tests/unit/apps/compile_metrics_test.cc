// The table compiler's metrics from a real RIB through the real compiler: its counters, its
// route and nexthop gauges, and the compiled tables' memory (fib/datapath/mem.hh) as `show
// memory` answers it and the metrics show it.
#include "apps/srv6d/compile_metrics.hh"

#include <gtest/gtest.h>

#include <map>

#include "fib/datapath/mem.hh"
#include "rib/rib.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

// name{labels} -> value
std::map<std::string, uint64_t> flatten(const std::vector<::mgmt::metric_family>& fams) {
    std::map<std::string, uint64_t> m;
    for (const auto& f : fams)
        for (const auto& [labels, v] : f.samples)
            m[labels.empty() ? f.name : f.name + "{" + labels + "}"] = v.integer;
    return m;
}

TEST(CompileMetrics, CountersGaugesAndTheTablesMemory) {
    fib::qsbr_domain rcu{2};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    for (int i = 0; i < 300; ++i) {
        rib::route x;
        x.key.table = rib::main_table;
        x.key.dst = *rib::parse_prefix(("10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24").c_str());
        x.protocol = rib::proto::bgp;
        rib::nexthop n;
        n.gateway = *rib::parse_addr("192.0.2.1");
        n.ifindex = 3;
        x.nexthops = {n};
        r.upsert_route(x);
    }
    ASSERT_TRUE(c.compile(r, reg, src));
    std::vector<::mgmt::metric_family> fams;
    compile_metrics(c.stats(), fams);
    const auto m = flatten(fams);
    EXPECT_EQ(m.at("srv6d_compile_runs_total"), 1u);
    EXPECT_EQ(m.at("srv6d_compile_routes{state=\"installed\"}"), 300u);
    // What the compiled tables hold now, as fib::memory() counts it: the answer, then its metrics.
    ::mgmt::pb::Memory answer;
    table_memory(c.stats(), answer);
    EXPECT_EQ(answer.routes(), 300u);
    ASSERT_EQ(answer.tables_size(), 4);
    EXPECT_EQ(answer.tables(0).kind(), "lpm4");
    EXPECT_EQ(answer.tables_bytes(), answer.tables(0).bytes() + answer.tables(1).bytes() + answer.tables(2).bytes() +
                                         answer.tables(3).bytes());
    ::mgmt::memory_metrics(answer, fams);
    const auto mm = flatten(fams);
    const fib::mem_counters& mem = fib::memory();
    EXPECT_GT(mm.at("srv6d_fib_memory_bytes{kind=\"lpm4\"}"), 0u) << "300 IPv4 routes";
    EXPECT_EQ(mm.at("srv6d_fib_memory_bytes{kind=\"lpm4\"}"), static_cast<uint64_t>(mem.bytes[0].load()));
    EXPECT_GT(mm.at("srv6d_fib_memory_blocks{kind=\"nexthop\"}"), 0u);
    EXPECT_EQ(mm.at("srv6d_fib_memory_blocks{kind=\"view\"}"), static_cast<uint64_t>(mem.blocks[3].load()));
    EXPECT_EQ(mm.count("srv6d_fib_memory_pooled_bytes"), 1u);
}

}  // namespace
}  // namespace srv6d
