// The RIB's bounds (rib_limits, docs/rib.md "Limits"): growth beyond one is refused and
// counted, what is held can always be updated, deleted and swept.
#include <gtest/gtest.h>

#include <initializer_list>

#include <fmt/format.h>

#include "rib/rib.hh"

namespace rib {
namespace SRV6D_UNITY_ID {

prefix pfx(const char* s) { return *parse_prefix(s); }

nexthop via(const char* gw, uint32_t ifindex) {
    nexthop n;
    n.gateway = *parse_addr(gw);
    n.ifindex = ifindex;
    return n;
}

route inline_route(const char* dst, table_id t, std::initializer_list<nexthop> nhs) {
    route r;
    r.key = {t, pfx(dst), {}};
    r.protocol = proto::zstatic;
    r.nexthops = nhs;
    return r;
}

route nhg_route(const char* dst, uint32_t id, table_id t = main_table) {
    route r;
    r.key = {t, pfx(dst), {}};
    r.protocol = proto::zstatic;
    r.nh_id = id;
    return r;
}

nexthop_object singleton(uint32_t id, const char* gw) {
    nexthop_object o;
    o.id = id;
    o.protocol = proto::zebra;
    o.path = via(gw, 3);
    return o;
}

nexthop_object group(uint32_t id, std::initializer_list<uint32_t> members) {
    nexthop_object o;
    o.id = id;
    o.protocol = proto::zebra;
    for (const uint32_t m : members)
        o.group.push_back({m, 1});
    return o;
}

TEST(RibLimits, TotalRoutes) {
    store r;
    r.set_limits({3, 0, 0});
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.1.0/24", 1)));
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.2.0/24", 1, 100)));
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.3.0/24", 1)));
    EXPECT_FALSE(r.upsert_route(nhg_route("10.0.4.0/24", 1)));
    EXPECT_EQ(r.routes().size(), 3u);
    EXPECT_EQ(r.counters().refused_routes, 1u);
    EXPECT_EQ(r.find_route({main_table, pfx("10.0.4.0/24"), {}}), nullptr);
    // What is held can change at the limit ...
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.3.0/24", 2)));
    EXPECT_EQ(r.counters().refused_routes, 1u);
    // ... and a delete makes room.
    EXPECT_TRUE(r.delete_route({main_table, pfx("10.0.1.0/24"), {}}));
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.4.0/24", 1)));
    EXPECT_EQ(r.routes().size(), 3u);
}

// During a replay the stale routes do not count: zebra's route set changed while it was away,
// and its new routes must get in (issue 36: 0 of 40 held). After the sweep the RIB holds
// zebra's routes up to the limit; the store never exceeds twice the bound.
TEST(RibLimits, StaleRoutesDoNotBlockTheirReplacements) {
    store r;
    r.set_limits({40, 30, 0});
    for (int i = 0; i < 40; ++i)
        ASSERT_TRUE(r.upsert_route(nhg_route(fmt::format("10.0.{}.0/24", i).c_str(), 1, i < 20 ? 100 : 200)));
    r.begin_resync();
    EXPECT_EQ(r.stale_routes(), 40u);
    // 30 re-sent, 10 replaced by new prefixes in table 100 (its own bound: 30).
    for (int i = 0; i < 30; ++i)
        r.upsert_route(nhg_route(fmt::format("10.0.{}.0/24", i + 10).c_str(), 1, i + 10 < 20 ? 100 : 200));
    for (int i = 0; i < 10; ++i)
        EXPECT_TRUE(r.upsert_route(nhg_route(fmt::format("10.1.{}.0/24", i).c_str(), 1, 100)));
    EXPECT_EQ(r.counters().refused_routes + r.counters().refused_table_routes, 0u);
    EXPECT_EQ(r.routes().size(), 50u);  // 10 stale still forwarding until the sweep
    EXPECT_EQ(r.stale_routes(), 10u);
    // One more is one beyond the 40 zebra now has.
    EXPECT_FALSE(r.upsert_route(nhg_route("10.2.0.0/24", 1, 200)));
    EXPECT_EQ(r.counters().refused_routes, 1u);
    EXPECT_EQ(r.sweep(), 10u);
    EXPECT_EQ(r.routes().size(), 40u);
    EXPECT_EQ(r.stale_routes(), 0u);
    EXPECT_EQ(r.find_route({100, pfx("10.0.0.0/24"), {}}), nullptr);
    EXPECT_NE(r.find_route({100, pfx("10.1.9.0/24"), {}}), nullptr);
}

// A replay that is not trusted to sweep: nothing goes, nothing is stale any more.
TEST(RibLimits, AnAbandonedResyncKeepsEverything) {
    store r;
    r.set_limits({4, 0, 0});
    for (int i = 0; i < 4; ++i)
        ASSERT_TRUE(r.upsert_route(nhg_route(fmt::format("10.0.{}.0/24", i).c_str(), 1)));
    ASSERT_TRUE(r.upsert_nexthop(singleton(1, "10.0.0.1")));
    r.begin_resync();
    EXPECT_TRUE(r.upsert_route(nhg_route("10.9.0.0/24", 1)));  // counted out: 4 stale
    r.abandon_resync();
    EXPECT_FALSE(r.resync_pending());
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_EQ(r.routes().size(), 5u);
    EXPECT_NE(r.find_nexthop(1), nullptr);
    EXPECT_EQ(r.counters().abandoned_resyncs, 1u);
    EXPECT_FALSE(r.upsert_route(nhg_route("10.9.1.0/24", 1)));  // beyond the bound again
    r.begin_resync();
    EXPECT_EQ(r.sweep(), 6u);  // routes and the object: nothing re-sent
}

TEST(RibLimits, RoutesPerTable) {
    store r;
    r.set_limits({0, 2, 0});
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.1.0/24", 1, 100)));
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.2.0/24", 1, 100)));
    EXPECT_FALSE(r.upsert_route(nhg_route("10.0.3.0/24", 1, 100)));
    // Other tables have their own room.
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.3.0/24", 1, 200)));
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.3.0/24", 1)));
    EXPECT_EQ(r.counters().refused_table_routes, 1u);
    EXPECT_EQ(r.counters().refused_routes, 0u);
    EXPECT_EQ(r.routes().size(), 4u);
}

TEST(RibLimits, NexthopEntries) {
    store r;
    r.set_limits({0, 0, 5});
    EXPECT_TRUE(r.upsert_nexthop(singleton(1, "10.0.0.1")));  // 1
    EXPECT_TRUE(r.upsert_nexthop(singleton(2, "10.0.0.2")));  // 2
    EXPECT_TRUE(r.upsert_nexthop(group(10, {1, 2})));         // 5: 1 + 2 members
    EXPECT_EQ(r.nexthop_entries(), 5u);
    EXPECT_FALSE(r.upsert_nexthop(singleton(3, "10.0.0.3")));
    EXPECT_EQ(r.find_nexthop(3), nullptr);
    // A group that grows is refused and stays as it was; one of the same size changes.
    EXPECT_FALSE(r.upsert_nexthop(group(10, {1, 2, 1})));
    EXPECT_EQ(r.find_nexthop(10)->group.size(), 2u);
    EXPECT_TRUE(r.upsert_nexthop(singleton(2, "10.0.0.9")));
    EXPECT_EQ(r.counters().refused_nexthops, 2u);
    // Inline path lists count their paths: a new list beyond the bound is refused with its
    // route, one equal to a list held already costs nothing.
    EXPECT_TRUE(r.delete_nexthop(10));  // 2 entries left
    EXPECT_TRUE(r.upsert_route(inline_route("10.1.0.0/24", main_table, {via("10.0.0.1", 3), via("10.0.0.2", 3)})));
    EXPECT_EQ(r.nexthop_entries(), 4u);
    EXPECT_FALSE(r.upsert_route(inline_route("10.2.0.0/24", main_table, {via("10.0.0.5", 3), via("10.0.0.6", 3)})));
    EXPECT_EQ(r.find_route({main_table, pfx("10.2.0.0/24"), {}}), nullptr);
    EXPECT_TRUE(r.upsert_route(inline_route("10.3.0.0/24", main_table, {via("10.0.0.1", 3), via("10.0.0.2", 3)})));
    EXPECT_EQ(r.counters().refused_nexthops, 3u);
    // SID lists: 1 + segments.
    EXPECT_FALSE(r.upsert_sidlist("sl", {*parse_ip6("fc00::1"), *parse_ip6("fc00::2")}));
    EXPECT_TRUE(r.upsert_sidlist("sl", {}));
    EXPECT_EQ(r.nexthop_entries(), 5u);
}

TEST(RibLimits, EntriesAreGivenBackBySweepsAndDeletes) {
    store r;
    r.set_limits({0, 0, 4});
    EXPECT_TRUE(r.upsert_nexthop(singleton(1, "10.0.0.1")));
    EXPECT_TRUE(r.upsert_route(inline_route("10.1.0.0/24", main_table, {via("10.0.0.1", 3), via("10.0.0.2", 3)})));
    EXPECT_EQ(r.nexthop_entries(), 3u);
    r.begin_resync();
    EXPECT_EQ(r.sweep(), 2u);  // the route and object 1
    EXPECT_EQ(r.nexthop_entries(), 0u);
    EXPECT_TRUE(r.upsert_route(inline_route("10.2.0.0/24", main_table, {via("10.0.0.5", 3), via("10.0.0.6", 3)})));
    EXPECT_TRUE(r.delete_route({main_table, pfx("10.2.0.0/24"), {}}));
    EXPECT_EQ(r.nexthop_entries(), 0u);
}

// A route refused during a replay is not refreshed: the sweep removes what zebra no longer has
// even when the RIB is full.
TEST(RibLimits, ARefusedUpsertDoesNotRefreshAStaleRoute) {
    store r;
    EXPECT_TRUE(r.upsert_route(inline_route("10.1.0.0/24", main_table, {via("10.0.0.1", 3)})));
    r.set_limits({0, 0, 1});
    r.begin_resync();
    // The same key with a new, second path list: beyond max_nexthops, refused.
    EXPECT_FALSE(r.upsert_route(inline_route("10.1.0.0/24", main_table, {via("10.0.0.7", 3)})));
    EXPECT_EQ(r.stale_count(), 1u);
    EXPECT_EQ(r.sweep(), 1u);
    EXPECT_TRUE(r.routes().empty());
}

TEST(RibLimits, ZeroMeansNoBound) {
    store r;
    r.set_limits({0, 0, 0});
    for (int i = 0; i < 300; ++i) {
        route x = nhg_route("10.0.0.0/24", 1, static_cast<table_id>(1000 + i));
        EXPECT_TRUE(r.upsert_route(x));
    }
    EXPECT_EQ(r.counters().refused_routes + r.counters().refused_table_routes, 0u);
}

}  // namespace
}  // namespace rib
