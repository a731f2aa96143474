// The RIB's route store (rib/route_table.hh): slots move when a route is deleted (the last slot
// fills the hole) and hash buckets shift back; these tests drive the RIB through many inserts,
// replaces, deletes and sweeps, across chunk boundaries and index growth, and compare every
// read (find_route, routes(), users_of, stale_count) with a plain std::map model.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "rib/rib.hh"

namespace rib {
namespace SRV6D_UNITY_ID {

route_key key_of(uint32_t n, table_id table) {
    ip4_addr a;
    a.bytes = {static_cast<uint8_t>(10 + (n >> 24)), static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 8),
               static_cast<uint8_t>(n)};
    return {table, prefix::make(ip_addr(a), 32), {}};
}

route make(uint32_t n, table_id table, uint32_t nh_id) {
    route r;
    r.key = key_of(n, table);
    r.protocol = proto::bgp;
    r.nh_id = nh_id;
    return r;
}

struct model {
    std::map<route_key, route> routes;
    std::set<route_key> fresh;  // refreshed since the last begin_resync

    std::vector<route_key> users(uint32_t nh_id) const {
        std::vector<route_key> out;
        for (const auto& [k, r] : routes)
            if (r.nh_id == nh_id)
                out.push_back(k);
        return out;
    }
};

void expect_same(const store& r, const model& m, uint32_t nh_ids) {
    ASSERT_EQ(r.routes().size(), m.routes.size());
    size_t seen = 0;
    for (const auto& [k, rt] : r.routes()) {
        auto it = m.routes.find(k);
        ASSERT_NE(it, m.routes.end());
        EXPECT_EQ(rt, it->second);
        ++seen;
    }
    EXPECT_EQ(seen, m.routes.size());
    for (const auto& [k, rt] : m.routes) {
        const route* f = r.find_route(k);
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(*f, rt);
    }
    for (uint32_t id = 1; id <= nh_ids; ++id)
        EXPECT_EQ(r.users_of(id), m.users(id)) << "nh " << id;
    const auto sorted = r.routes().sorted();
    ASSERT_EQ(sorted.size(), m.routes.size());
    auto it = m.routes.begin();
    for (const route* p : sorted)
        EXPECT_EQ(p->key, (it++)->first);
}

TEST(RouteTable, RandomOperationsMatchAMapModel) {
    store r;
    model m;
    std::mt19937 rng(7);
    constexpr uint32_t keys = 12'000;  // three chunks of 4096 slots
    constexpr uint32_t nh_ids = 9;
    auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    r.prefetch_route(key_of(1, 1000), 0);  // a batch's hints (fpm::apply_batch) on an empty table
    r.prefetch_route(key_of(1, 1000), 1);
    for (int round = 0; round < 6; ++round) {
        for (int op = 0; op < 30'000; ++op) {
            const uint32_t n = pick(keys);
            const table_id t = 1000 + pick(3);
            // Hints for keys present, absent, and in slots that moved: reads only (ASan checks
            // them in the sanitizer build), the model below must match regardless.
            r.prefetch_route(key_of(n, t), 0);
            r.prefetch_route(key_of(n, t), 1);
            const uint32_t roll = pick(10);
            if (roll < 6) {
                route rt = make(n, t, 1 + pick(nh_ids));
                const auto old = m.routes.find(rt.key);
                const bool changed = old == m.routes.end() || !(old->second == rt);
                m.fresh.insert(rt.key);
                m.routes[rt.key] = rt;
                EXPECT_EQ(r.upsert_route(rt), changed);
            } else {
                const route_key k = key_of(n, t);
                const bool present = m.routes.erase(k) > 0;
                m.fresh.erase(k);
                EXPECT_EQ(r.delete_route(k), present);
            }
        }
        expect_same(r, m, nh_ids);
        // A reconnect whose replay carries only part of the routes, then a sweep.
        r.begin_resync();
        m.fresh.clear();
        EXPECT_EQ(r.stale_count(), m.routes.size());
        size_t replayed = 0;
        for (const auto& [k, rt] : m.routes)
            if (pick(3) != 0) {
                EXPECT_FALSE(r.upsert_route(rt));
                m.fresh.insert(k);
                ++replayed;
            }
        EXPECT_EQ(r.stale_count(), m.routes.size() - replayed);
        // Odd rounds keep table 1001's stale routes (a table zebra does not replay).
        const bool selective = round % 2 == 1;
        size_t expect_removed = 0;
        for (auto it = m.routes.begin(); it != m.routes.end();) {
            if (m.fresh.count(it->first) || (selective && it->first.table == 1001)) {
                ++it;
            } else {
                it = m.routes.erase(it);
                ++expect_removed;
            }
        }
        const size_t removed =
            selective ? r.sweep([](table_id t) { return t != 1001; }) : r.sweep();
        EXPECT_EQ(removed, expect_removed);
        EXPECT_EQ(r.stale_count(), 0u);
        expect_same(r, m, nh_ids);
    }
    // Delete everything: the store and its index end empty and still work.
    for (const auto& [k, rt] : m.routes)
        EXPECT_TRUE(r.delete_route(k));
    m.routes.clear();
    expect_same(r, m, nh_ids);
    EXPECT_TRUE(r.upsert_route(make(1, 1000, 1)));
    EXPECT_EQ(r.users_of(1).size(), 1u);
}

TEST(RouteTable, CopyAndEqualityIgnoreSlotOrder) {
    store a, b;
    for (uint32_t n = 0; n < 5000; ++n)
        a.upsert_route(make(n, 254, 1 + n % 3));
    for (uint32_t n = 5000; n-- > 0;)
        b.upsert_route(make(n, 254, 1 + n % 3));
    EXPECT_TRUE(a.routes() == b.routes());
    const route_table copy = a.routes();
    EXPECT_TRUE(copy == b.routes());
    EXPECT_NE(copy.find(key_of(4999, 254)), nullptr);
    b.upsert_route(make(7, 254, 9));
    EXPECT_FALSE(a.routes() == b.routes());
    b.delete_route(key_of(7, 254));
    EXPECT_FALSE(a.routes() == b.routes());  // one route fewer
}

TEST(RouteTable, ReplaceMovesARouteBetweenUserLists) {
    store r;
    for (uint32_t n = 0; n < 100; ++n)
        r.upsert_route(make(n, 254, 1));
    for (uint32_t n = 0; n < 100; n += 2)
        r.upsert_route(make(n, 254, 2));
    EXPECT_EQ(r.users_of(1).size(), 50u);
    EXPECT_EQ(r.users_of(2).size(), 50u);
    for (uint32_t n = 1; n < 100; n += 2)
        r.delete_route(key_of(n, 254));
    EXPECT_TRUE(r.users_of(1).empty());
    const auto u = r.users_of(2);
    ASSERT_EQ(u.size(), 50u);
    EXPECT_TRUE(std::is_sorted(u.begin(), u.end()));
}

route inline_route(uint32_t n, const char* sid) {
    route r;
    r.key = key_of(n, 1001);
    r.protocol = proto::bgp;
    nexthop nh;
    nh.ifindex = 3;
    nh.gateway = *parse_addr("fe80::1");
    nh.seg6 = seg6_encap{encap_mode::encap, {*parse_ip6(sid)}, std::nullopt, {}};
    r.nexthops = {nh};
    return r;
}

// Inline-mode routes with equal paths share one copy of them; a change or a delete lets go of
// it, and the last holder's departure drops the RIB's copy.
TEST(RouteTable, EqualInlinePathsAreStoredOnce) {
    store r;
    for (uint32_t n = 0; n < 1000; ++n)
        ASSERT_TRUE(r.upsert_route(inline_route(n, n % 2 ? "fc00:0:2:e001::" : "fc00:0:3:e001::")));
    const route* a = r.find_route(key_of(0, 1001));
    const route* b = r.find_route(key_of(2, 1001));
    const route* c = r.find_route(key_of(1, 1001));
    ASSERT_TRUE(a && b && c);
    EXPECT_TRUE(a->nexthops.shares_with(b->nexthops));
    EXPECT_FALSE(a->nexthops.shares_with(c->nexthops));
    EXPECT_EQ(a->nexthops.holders(), 501);  // 500 routes + the RIB's copy
    // Replayed unchanged: no change, still shared.
    EXPECT_FALSE(r.upsert_route(inline_route(0, "fc00:0:3:e001::")));
    EXPECT_EQ(r.find_route(key_of(0, 1001))->nexthops.holders(), 501);
    // A new SID for one route: it gets its own list, the others keep theirs.
    EXPECT_TRUE(r.upsert_route(inline_route(0, "fc00:0:4:e001::")));
    const route* moved = r.find_route(key_of(0, 1001));
    EXPECT_EQ(moved->nexthops.holders(), 2);
    EXPECT_EQ(moved->nexthops.front().seg6->segments.front(), *parse_ip6("fc00:0:4:e001::"));
    EXPECT_EQ(r.find_route(key_of(2, 1001))->nexthops.holders(), 500);
    // Copy-on-write: a copy changed outside the RIB leaves the RIB's routes alone.
    route copy = *r.find_route(key_of(2, 1001));
    copy.nexthops[0].ifindex = 9;
    EXPECT_EQ(r.find_route(key_of(4, 1001))->nexthops.front().ifindex, 3u);
    EXPECT_TRUE(r.upsert_route(copy));
    EXPECT_EQ(r.find_route(key_of(2, 1001))->nexthops.front().ifindex, 9u);
    // Deleting every route of a list drops it; resolve still gives the path.
    for (uint32_t n = 1; n < 1000; n += 2)
        r.delete_route(key_of(n, 1001));
    const auto res = r.resolve(*r.find_route(key_of(4, 1001)));
    ASSERT_EQ(res.paths.size(), 1u);
    EXPECT_EQ(res.paths.front().path.seg6->segments.front(), *parse_ip6("fc00:0:3:e001::"));
    // A list that ends empty is no list at all.
    route none = inline_route(5000, "fc00::");
    none.nexthops = std::vector<nexthop>{};
    EXPECT_TRUE(none.nexthops.empty());
    EXPECT_EQ(none.nexthops.holders(), 0);
}

}  // namespace
}  // namespace rib
