// RIB at full-table scale: every per-update operation must stay O(log n), and a replay of an
// unchanged 1M-route RIB must cost no more than the lookups it does.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "rib/rib.hh"

namespace {

rib::route make_route(uint32_t i, uint32_t nh_id) {
    rib::ip4_addr a;
    a.bytes = {static_cast<uint8_t>(10 + (i >> 24)), static_cast<uint8_t>(i >> 16),
               static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i)};
    rib::route r;
    r.key.dst = rib::prefix::make(rib::ip_addr(a), 32);
    r.protocol = rib::proto::bgp;
    r.nh_id = nh_id;
    return r;
}

rib::nexthop_object singleton(uint32_t id) {
    rib::nexthop_object o;
    o.id = id;
    o.path = rib::nexthop{};
    o.path->ifindex = id;
    return o;
}

// 1M routes over 64 singletons and one group of all of them.
void fill(rib::store& rib, uint32_t n) {
    rib::nexthop_object g;
    g.id = 1000;
    for (uint32_t id = 1; id <= 64; ++id) {
        rib.upsert_nexthop(singleton(id));
        g.group.push_back({id, 1});
    }
    rib.upsert_nexthop(g);
    for (uint32_t i = 0; i < n; ++i)
        rib.upsert_route(make_route(i, i % 16 == 0 ? 1000 : 1 + i % 64));
}

constexpr uint32_t full_table = 1'000'000;

void BM_Upsert1M(benchmark::State& st) {
    for (auto _ : st) {
        rib::store rib;
        fill(rib, full_table);
        benchmark::DoNotOptimize(rib.version());
    }
    st.SetItemsProcessed(st.iterations() * full_table);
}
BENCHMARK(BM_Upsert1M)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReplayUnchanged1M(benchmark::State& st) {
    rib::store rib;
    fill(rib, full_table);
    for (auto _ : st) {
        rib.begin_resync();
        fill(rib, full_table);
        benchmark::DoNotOptimize(rib.sweep());
    }
    st.SetItemsProcessed(st.iterations() * full_table);
}
BENCHMARK(BM_ReplayUnchanged1M)->Unit(benchmark::kMillisecond)->Iterations(1);

// One route change and one nexthop change in a full RIB: independent of its size.
void BM_SingleUpdateIn1M(benchmark::State& st) {
    rib::store rib;
    fill(rib, full_table);
    uint32_t i = 0;
    for (auto _ : st) {
        rib.upsert_route(make_route(i % full_table, 1 + (i + 1) % 64));
        auto o = singleton(1 + i % 64);
        o.path->weight = static_cast<uint16_t>(1 + (i & 1));
        rib.upsert_nexthop(o);
        ++i;
    }
}
BENCHMARK(BM_SingleUpdateIn1M);

void BM_UsersOfSingletonIn1M(benchmark::State& st) {
    rib::store rib;
    fill(rib, full_table);
    for (auto _ : st)
        benchmark::DoNotOptimize(rib.users_of(7).size());  // ~15.6k direct + 62.5k via the group
}
BENCHMARK(BM_UsersOfSingletonIn1M)->Unit(benchmark::kMillisecond);

void BM_LocalSidsIn1M(benchmark::State& st) {
    rib::store rib;
    fill(rib, full_table);
    for (auto _ : st)
        benchmark::DoNotOptimize(rib.local_sids().size());  // no SIDs: must not scan the routes
}
BENCHMARK(BM_LocalSidsIn1M);

}  // namespace

BENCHMARK_MAIN();
