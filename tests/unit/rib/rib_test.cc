#include "rib/rib.hh"

#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

namespace rib {
namespace SRV6D_UNITY_ID {

prefix pfx(const char* s) { return *parse_prefix(s); }

route_key key(const char* dst, table_id t = main_table) { return {t, pfx(dst), {}}; }

route nhg_route(const char* dst, uint32_t nh_id, table_id t = main_table) {
    route r;
    r.key = key(dst, t);
    r.protocol = proto::zstatic;
    r.nh_id = nh_id;
    return r;
}

nexthop via(const char* gw, uint32_t ifindex, uint16_t weight = 1) {
    nexthop n;
    n.gateway = *parse_addr(gw);
    n.ifindex = ifindex;
    n.weight = weight;
    return n;
}

route inline_route(const char* dst, std::initializer_list<nexthop> nhs) {
    route r;
    r.key = key(dst);
    r.protocol = proto::zstatic;
    r.nexthops = nhs;
    return r;
}

nexthop_object singleton(uint32_t id, nexthop path) {
    nexthop_object o;
    o.id = id;
    o.protocol = proto::zebra;
    o.path = std::move(path);
    return o;
}

nexthop_object group(uint32_t id, std::initializer_list<nexthop_group_member> members) {
    nexthop_object o;
    o.id = id;
    o.protocol = proto::zebra;
    o.group = members;
    return o;
}

nexthop_object blackhole_nh(uint32_t id) {
    nexthop_object o;
    o.id = id;
    o.blackhole = true;
    return o;
}

nexthop end_dt6(table_id t, uint32_t ifindex = 3) {
    nexthop n;
    n.ifindex = ifindex;
    seg6local l;
    l.action = behavior::end_dt6;
    l.table = t;
    n.local = l;
    return n;
}

std::vector<uint32_t> path_ids(const resolution& r) {
    std::vector<uint32_t> ids;
    for (const auto& p : r.paths)
        ids.push_back(p.nh_id);
    return ids;
}

// --- routes: upsert, replace, delete

TEST(RibRoute, UpsertInsertsAndCountsAChange) {
    store r;
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.0.0/24", 4)));
    ASSERT_NE(r.find_route(key("10.0.0.0/24")), nullptr);
    EXPECT_EQ(r.find_route(key("10.0.0.0/24"))->nh_id, 4u);
    EXPECT_EQ(r.version(), 1u);
    EXPECT_EQ(r.counters().route_upserts, 1u);
    EXPECT_EQ(r.counters().route_changes, 1u);
}

TEST(RibRoute, UpsertReplacesWholeRoute) {
    store r;
    auto a = inline_route("10.0.0.0/24", {via("10.0.1.2", 3)});
    a.prefsrc = *parse_addr("10.0.1.1");
    r.upsert_route(a);
    // The replacement has no prefsrc: nothing of the old route may survive (no merge).
    EXPECT_TRUE(r.upsert_route(nhg_route("10.0.0.0/24", 11)));
    const route* got = r.find_route(key("10.0.0.0/24"));
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(*got, nhg_route("10.0.0.0/24", 11));
    EXPECT_EQ(r.routes().size(), 1u);
    EXPECT_EQ(r.version(), 2u);
}

TEST(RibRoute, IdenticalUpsertIsNoChange) {
    store r;
    r.upsert_route(nhg_route("10.0.0.0/24", 4));
    const auto v = r.version();
    EXPECT_FALSE(r.upsert_route(nhg_route("10.0.0.0/24", 4)));
    EXPECT_EQ(r.version(), v);
    EXPECT_EQ(r.counters().route_upserts, 2u);
    EXPECT_EQ(r.counters().route_changes, 1u);
}

TEST(RibRoute, KeyIsTableDstAndSrc) {
    store r;
    r.upsert_route(nhg_route("fc00::/64", 1));
    r.upsert_route(nhg_route("fc00::/64", 2, 1000));  // same prefix, VRF table
    r.upsert_route(nhg_route("fc00::/48", 3));        // same address, other length
    auto sd = nhg_route("fc00::/64", 4);
    sd.key.src = pfx("2001:db8::/32");  // source-specific route
    r.upsert_route(sd);
    EXPECT_EQ(r.routes().size(), 4u);
    EXPECT_EQ(r.find_route(key("fc00::/64"))->nh_id, 1u);
    EXPECT_EQ(r.find_route(key("fc00::/64", 1000))->nh_id, 2u);
    EXPECT_EQ(r.find_route(sd.key)->nh_id, 4u);
    // Neither protocol nor type is part of the key: a different protocol replaces.
    auto other = nhg_route("fc00::/64", 5);
    other.protocol = proto::bgp;
    r.upsert_route(other);
    EXPECT_EQ(r.routes().size(), 4u);
    EXPECT_EQ(r.find_route(key("fc00::/64"))->protocol, proto::bgp);
}

TEST(RibRoute, DeleteIsIdempotentAndCountsUnknownKeys) {
    store r;
    r.upsert_route(nhg_route("10.0.0.0/24", 4));
    EXPECT_TRUE(r.delete_route(key("10.0.0.0/24")));
    EXPECT_EQ(r.find_route(key("10.0.0.0/24")), nullptr);
    EXPECT_EQ(r.version(), 2u);
    EXPECT_EQ(r.counters().route_deletes, 1u);
    EXPECT_FALSE(r.delete_route(key("10.0.0.0/24")));
    EXPECT_FALSE(r.delete_route(key("10.9.0.0/24")));
    EXPECT_EQ(r.counters().route_delete_unknown, 2u);
    EXPECT_EQ(r.counters().route_deletes, 1u);
    EXPECT_EQ(r.version(), 2u);
}

TEST(RibRoute, DeleteMatchesTheWholeKey) {
    store r;
    r.upsert_route(nhg_route("fc00::/64", 1, 1000));
    EXPECT_FALSE(r.delete_route(key("fc00::/64")));  // table 254: another key
    EXPECT_NE(r.find_route(key("fc00::/64", 1000)), nullptr);
}

TEST(RibRoute, SidDeleteIsAPlainRouteDelete) {
    store r;
    route sid;
    sid.key = key("fc00:0:1::1/128");
    sid.nexthops = {end_dt6(10)};
    r.upsert_route(sid);
    ASSERT_EQ(r.local_sids().size(), 1u);
    EXPECT_TRUE(r.delete_route(key("fc00:0:1::1/128")));
    EXPECT_TRUE(r.local_sids().empty());
    EXPECT_TRUE(r.routes().empty());
}

TEST(RibRoute, TablesFollowRoutes) {
    store r;
    r.upsert_route(nhg_route("10.0.0.0/24", 1));
    r.upsert_route(nhg_route("10.0.0.0/24", 1, 1000));
    r.upsert_route(nhg_route("10.1.0.0/24", 1, 1000));
    EXPECT_EQ(r.tables(), (std::set<table_id>{254, 1000}));
    r.delete_route(key("10.0.0.0/24", 1000));
    EXPECT_EQ(r.tables(), (std::set<table_id>{254, 1000}));
    r.delete_route(key("10.1.0.0/24", 1000));
    EXPECT_EQ(r.tables(), (std::set<table_id>{254}));
}

// --- nexthop objects

TEST(RibNexthop, UpsertReplacesAndIdenticalIsNoChange) {
    store r;
    EXPECT_TRUE(r.upsert_nexthop(singleton(11, via("10.0.1.2", 3))));
    EXPECT_FALSE(r.upsert_nexthop(singleton(11, via("10.0.1.2", 3))));
    EXPECT_EQ(r.version(), 1u);
    EXPECT_TRUE(r.upsert_nexthop(singleton(11, via("10.0.1.9", 3))));
    EXPECT_EQ(r.find_nexthop(11)->path->gateway, parse_addr("10.0.1.9"));
    EXPECT_EQ(r.version(), 2u);
    EXPECT_EQ(r.counters().nh_upserts, 3u);
    EXPECT_EQ(r.counters().nh_changes, 2u);
}

TEST(RibNexthop, UpdateChangesEveryRouteUsingIt) {
    store r;
    r.upsert_nexthop(singleton(11, via("10.0.1.2", 3)));
    r.upsert_route(nhg_route("192.0.2.0/24", 11));
    r.upsert_route(nhg_route("198.51.100.0/24", 11));
    r.upsert_nexthop(singleton(11, via("10.0.2.2", 5)));
    for (const char* d : {"192.0.2.0/24", "198.51.100.0/24"}) {
        auto res = r.resolve(*r.find_route(key(d)));
        ASSERT_EQ(res.paths.size(), 1u);
        EXPECT_EQ(res.paths[0].path.gateway, parse_addr("10.0.2.2"));
        EXPECT_EQ(res.paths[0].path.ifindex, 5u);
    }
}

TEST(RibNexthop, GroupForwardReferenceIsPartialUntilMemberArrives) {
    store r;
    // Replay order seen from FRR 8.4.4: group 18 = {17, 19} before 19.
    r.upsert_nexthop(singleton(17, via("10.0.0.2", 4)));
    r.upsert_nexthop(group(18, {{17, 1}, {19, 1}}));
    r.upsert_route(nhg_route("192.0.2.0/24", 18));
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::partial);
    EXPECT_EQ(res.missing_ids, std::vector<uint32_t>{19});
    EXPECT_EQ(path_ids(res), std::vector<uint32_t>{17});
    // The route already counts as a user of the member it is waiting for.
    EXPECT_EQ(r.users_of(19), std::vector<route_key>{key("192.0.2.0/24")});

    r.upsert_nexthop(singleton(19, via("10.0.2.2", 5)));
    res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::ok);
    EXPECT_TRUE(res.missing_ids.empty());
    EXPECT_EQ(path_ids(res), (std::vector<uint32_t>{17, 19}));
}

TEST(RibNexthop, GroupWithNoKnownMemberIsUnresolved) {
    store r;
    r.upsert_nexthop(group(18, {{17, 1}, {19, 1}}));
    r.upsert_route(nhg_route("192.0.2.0/24", 18));
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::unresolved);
    EXPECT_EQ(res.missing_ids, (std::vector<uint32_t>{17, 19}));
}

TEST(RibNexthop, GroupInsideGroupIsTreatedAsMissing) {
    store r;
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
    r.upsert_nexthop(group(10, {{2, 1}}));
    r.upsert_nexthop(group(20, {{1, 1}, {10, 1}, {20, 1}}));  // nested group, and itself
    r.upsert_route(nhg_route("192.0.2.0/24", 20));
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::partial);
    EXPECT_EQ(path_ids(res), std::vector<uint32_t>{1});  // 2 is not reached through 10
    EXPECT_EQ(res.missing_ids, (std::vector<uint32_t>{10, 20}));
}

TEST(RibNexthop, GroupWeightOverridesSingletonWeight) {
    store r;
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4, 7)));
    r.upsert_nexthop(singleton(2, via("10.0.0.3", 4, 7)));
    r.upsert_nexthop(group(3, {{1, 1}, {2, 200}}));
    r.upsert_route(nhg_route("192.0.2.0/24", 3));
    r.upsert_route(nhg_route("192.0.3.0/24", 1));
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    ASSERT_EQ(res.paths.size(), 2u);
    EXPECT_EQ(res.paths[0].path.weight, 1u);
    EXPECT_EQ(res.paths[1].path.weight, 200u);
    // Used directly, the singleton keeps its own weight.
    auto direct = r.resolve(*r.find_route(key("192.0.3.0/24")));
    ASSERT_EQ(direct.paths.size(), 1u);
    EXPECT_EQ(direct.paths[0].path.weight, 7u);
    EXPECT_EQ(direct.paths[0].nh_id, 1u);
}

TEST(RibNexthop, UnknownNhIdIsUnresolvedUntilItArrives) {
    store r;
    r.upsert_route(nhg_route("192.0.2.0/24", 42));
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::unresolved);
    EXPECT_EQ(res.missing_ids, std::vector<uint32_t>{42});
    r.upsert_nexthop(singleton(42, via("10.0.0.2", 4)));
    res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::ok);
    EXPECT_EQ(path_ids(res), std::vector<uint32_t>{42});
}

TEST(RibNexthop, DeleteIsIdempotentAndLeavesUsersUnresolved) {
    store r;
    r.upsert_nexthop(singleton(11, via("10.0.1.2", 3)));
    r.upsert_route(nhg_route("192.0.2.0/24", 11));
    EXPECT_TRUE(r.delete_nexthop(11));
    EXPECT_EQ(r.find_nexthop(11), nullptr);
    EXPECT_FALSE(r.delete_nexthop(11));
    EXPECT_EQ(r.counters().nh_deletes, 1u);
    EXPECT_EQ(r.counters().nh_delete_unknown, 1u);
    ASSERT_NE(r.find_route(key("192.0.2.0/24")), nullptr);  // the route stays
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::unresolved);
    EXPECT_EQ(res.missing_ids, std::vector<uint32_t>{11});
    // Still a user: if the id comes back the route resolves again.
    EXPECT_EQ(r.users_of(11), std::vector<route_key>{key("192.0.2.0/24")});
}

TEST(RibNexthop, DeletedMemberMakesGroupPartial) {
    store r;
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
    r.upsert_nexthop(group(3, {{1, 1}, {2, 1}}));
    r.upsert_route(nhg_route("192.0.2.0/24", 3));
    r.delete_nexthop(2);
    auto res = r.resolve(*r.find_route(key("192.0.2.0/24")));
    EXPECT_EQ(res.state, resolve_state::partial);
    EXPECT_EQ(res.missing_ids, std::vector<uint32_t>{2});
}

// --- users_of: reverse index

TEST(RibUsers, DirectAndThroughGroups) {
    store r;
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
    r.upsert_nexthop(group(3, {{1, 1}, {2, 1}}));
    r.upsert_nexthop(group(4, {{1, 1}}));
    r.upsert_route(nhg_route("10.1.0.0/24", 1));
    r.upsert_route(nhg_route("10.3.0.0/24", 3));
    r.upsert_route(nhg_route("10.3.1.0/24", 3, 1000));
    r.upsert_route(nhg_route("10.4.0.0/24", 4));
    r.upsert_route(inline_route("10.9.0.0/24", {via("10.0.0.2", 4)}));
    EXPECT_EQ(r.users_of(1), (std::vector<route_key>{key("10.1.0.0/24"), key("10.3.0.0/24"),
                                                     key("10.4.0.0/24"), key("10.3.1.0/24", 1000)}));
    EXPECT_EQ(r.users_of(2), (std::vector<route_key>{key("10.3.0.0/24"), key("10.3.1.0/24", 1000)}));
    EXPECT_EQ(r.users_of(3), (std::vector<route_key>{key("10.3.0.0/24"), key("10.3.1.0/24", 1000)}));
    EXPECT_TRUE(r.users_of(99).empty());
}

TEST(RibUsers, FollowsRouteAndGroupChanges) {
    store r;
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
    r.upsert_nexthop(group(3, {{1, 1}, {2, 1}}));
    r.upsert_route(nhg_route("10.3.0.0/24", 3));
    r.upsert_route(nhg_route("10.1.0.0/24", 1));

    r.upsert_nexthop(group(3, {{1, 1}}));  // member 2 leaves the group
    EXPECT_TRUE(r.users_of(2).empty());
    r.upsert_route(nhg_route("10.1.0.0/24", 2));  // route moves from 1 to 2
    EXPECT_EQ(r.users_of(1), std::vector<route_key>{key("10.3.0.0/24")});
    EXPECT_EQ(r.users_of(2), std::vector<route_key>{key("10.1.0.0/24")});
    r.delete_nexthop(3);  // the group goes: its route no longer uses 1 through it
    EXPECT_TRUE(r.users_of(1).empty());
    EXPECT_EQ(r.users_of(3), std::vector<route_key>{key("10.3.0.0/24")});  // still points at it
    r.delete_route(key("10.3.0.0/24"));
    EXPECT_TRUE(r.users_of(3).empty());
}

TEST(RibUsers, DuplicateMembershipReportsARouteOnce) {
    store r;
    r.upsert_nexthop(group(3, {{1, 1}, {1, 2}}));
    r.upsert_route(nhg_route("10.3.0.0/24", 3));
    EXPECT_EQ(r.users_of(1), std::vector<route_key>{key("10.3.0.0/24")});
}

// --- route types and path-less routes

TEST(RibResolve, RejectRoutesHaveNoPaths) {
    store r;
    for (auto t : {route_type::blackhole, route_type::unreachable, route_type::prohibit}) {
        route x = inline_route("203.0.113.0/25", {});
        x.type = t;
        auto res = r.resolve(x);
        EXPECT_EQ(res.state, resolve_state::no_paths);
        EXPECT_TRUE(res.paths.empty());
    }
}

TEST(RibResolve, UnicastWithoutAnyNexthopIsUnresolved) {
    store r;
    auto res = r.resolve(inline_route("203.0.113.0/25", {}));
    EXPECT_EQ(res.state, resolve_state::unresolved);
    EXPECT_TRUE(res.missing_ids.empty());
}

TEST(RibResolve, InlinePathsAreKeptInOrder) {
    store r;
    auto res = r.resolve(inline_route("10.0.0.0/8", {via("10.0.0.2", 4, 3), via("10.0.0.3", 5)}));
    EXPECT_EQ(res.state, resolve_state::ok);
    ASSERT_EQ(res.paths.size(), 2u);
    EXPECT_EQ(res.paths[0].path, via("10.0.0.2", 4, 3));
    EXPECT_EQ(res.paths[1].path, via("10.0.0.3", 5));
    EXPECT_EQ(res.paths[0].nh_id, 0u);
}

TEST(RibResolve, BlackholeObjectIsPathless) {
    store r;
    r.upsert_nexthop(blackhole_nh(7));
    r.upsert_route(nhg_route("203.0.113.0/25", 7));
    auto res = r.resolve(*r.find_route(key("203.0.113.0/25")));
    EXPECT_EQ(res.state, resolve_state::no_paths);
    EXPECT_TRUE(res.paths.empty());
}

// --- local SIDs

TEST(RibLocalSids, FirstResolvedPathDecides) {
    store r;
    r.upsert_nexthop(singleton(24, end_dt6(10, 3)));
    r.upsert_nexthop(singleton(25, via("fc00:1::2", 3)));
    r.upsert_route(nhg_route("fc00:0:2::1/128", 24));
    route inl;
    inl.key = key("fc00:0:1::/48");
    nexthop end;
    end.ifindex = 9;
    end.local = seg6local{};
    inl.nexthops = {end};
    r.upsert_route(inl);
    r.upsert_route(nhg_route("2001:db8:aa::1/128", 25));  // headend route: not a SID
    r.upsert_route(nhg_route("fc00:0:1::100/128", 99));   // unresolved: not a SID (yet)

    auto sids = r.local_sids();
    ASSERT_EQ(sids.size(), 2u);
    // Sorted by prefix address: fc00:0:1:: before fc00:0:2::1.
    EXPECT_EQ(sids[0].r->key, key("fc00:0:1::/48"));
    EXPECT_EQ(sids[0].sid.action, behavior::end);
    EXPECT_EQ(sids[0].nh_id, 0u);
    EXPECT_EQ(sids[0].ifindex, 9u);
    EXPECT_EQ(sids[1].r->key, key("fc00:0:2::1/128"));
    EXPECT_EQ(sids[1].sid.action, behavior::end_dt6);
    EXPECT_EQ(sids[1].sid.decap_table(), 10u);
    EXPECT_EQ(sids[1].nh_id, 24u);
    EXPECT_EQ(sids[1].ifindex, 3u);

    // The missing object arrives as a seg6local one: a third SID appears, in order.
    r.upsert_nexthop(singleton(99, end_dt6(20)));
    sids = r.local_sids();
    ASSERT_EQ(sids.size(), 3u);
    EXPECT_EQ(sids[1].r->key, key("fc00:0:1::100/128"));
    // An object that stops being seg6local takes its SID away.
    r.upsert_nexthop(singleton(24, via("fc00:1::2", 3)));
    sids = r.local_sids();
    ASSERT_EQ(sids.size(), 2u);
    EXPECT_EQ(sids[0].r->key, key("fc00:0:1::/48"));
    EXPECT_EQ(sids[1].r->key, key("fc00:0:1::100/128"));
}

TEST(RibLocalSids, ThroughAGroupOnlyIfTheFirstPathIsLocal) {
    store r;
    r.upsert_nexthop(singleton(1, end_dt6(10)));
    r.upsert_nexthop(singleton(2, via("fc00:1::2", 3)));
    r.upsert_nexthop(group(3, {{1, 1}, {2, 1}}));
    r.upsert_nexthop(group(4, {{2, 1}, {1, 1}}));
    r.upsert_route(nhg_route("fc00:0:1::3/128", 3));
    r.upsert_route(nhg_route("fc00:0:1::4/128", 4));
    auto sids = r.local_sids();
    ASSERT_EQ(sids.size(), 1u);
    EXPECT_EQ(sids[0].r->key, key("fc00:0:1::3/128"));
    EXPECT_EQ(sids[0].nh_id, 1u);
}

TEST(RibLocalSids, SortedByAddressThenLength) {
    store r;
    for (const char* d : {"fc00:0:2::/48", "fc00:0:1::100/128", "fc00:0:1::/48", "fc00:0:1::/64"}) {
        route x;
        x.key = key(d);
        x.nexthops = {end_dt6(10)};
        r.upsert_route(x);
    }
    auto sids = r.local_sids();
    ASSERT_EQ(sids.size(), 4u);
    EXPECT_EQ(sids[0].r->key, key("fc00:0:1::/48"));
    EXPECT_EQ(sids[1].r->key, key("fc00:0:1::/64"));
    EXPECT_EQ(sids[2].r->key, key("fc00:0:1::100/128"));
    EXPECT_EQ(sids[3].r->key, key("fc00:0:2::/48"));
}

// --- mark and sweep

struct SweepFixture : ::testing::Test {
    store r;
    void SetUp() override {
        r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
        r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
        r.upsert_route(nhg_route("10.1.0.0/24", 1));
        r.upsert_route(nhg_route("10.2.0.0/24", 2));
        r.upsert_pic_context(singleton(7, via("10.0.0.2", 4)));
        r.upsert_sidlist("sl1", {parse_ip6("fc00::1").value()});
    }
};

TEST_F(SweepFixture, OnlyRefreshedEntriesSurvive) {
    r.begin_resync();
    EXPECT_TRUE(r.resync_pending());
    EXPECT_EQ(r.stale_count(), 6u);
    const auto v = r.version();
    // The replay: identical content refreshes without counting as a change.
    EXPECT_FALSE(r.upsert_nexthop(singleton(1, via("10.0.0.2", 4))));
    EXPECT_FALSE(r.upsert_route(nhg_route("10.1.0.0/24", 1)));
    EXPECT_FALSE(r.upsert_sidlist("sl1", {parse_ip6("fc00::1").value()}));
    EXPECT_TRUE(r.upsert_route(nhg_route("10.3.0.0/24", 1)));  // new: not stale
    EXPECT_EQ(r.version(), v + 1);
    EXPECT_EQ(r.stale_count(), 3u);  // route 10.2/24, nexthop 2, pic 7

    EXPECT_EQ(r.sweep(), 3u);
    EXPECT_FALSE(r.resync_pending());
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_EQ(r.version(), v + 2);
    EXPECT_EQ(r.find_route(key("10.2.0.0/24")), nullptr);
    EXPECT_EQ(r.find_nexthop(2), nullptr);
    EXPECT_TRUE(r.pic_contexts().empty());
    EXPECT_NE(r.find_route(key("10.1.0.0/24")), nullptr);
    EXPECT_NE(r.find_route(key("10.3.0.0/24")), nullptr);
    EXPECT_NE(r.find_nexthop(1), nullptr);
    EXPECT_EQ(r.sidlists().size(), 1u);
    EXPECT_EQ(r.counters().swept_routes, 1u);
    EXPECT_EQ(r.counters().swept_nexthops, 1u);
    EXPECT_EQ(r.counters().swept_other, 1u);
    EXPECT_EQ(r.counters().resyncs, 1u);
    // Swept entries leave the indexes too.
    EXPECT_TRUE(r.users_of(2).empty());
}

TEST_F(SweepFixture, EverythingStaysUntilSweep) {
    const auto before = r.routes();
    r.begin_resync();
    EXPECT_EQ(r.routes(), before);
    EXPECT_EQ(r.nexthops().size(), 2u);
    EXPECT_EQ(r.resolve(*r.find_route(key("10.2.0.0/24"))).state, resolve_state::ok);
}

TEST_F(SweepFixture, SecondResyncBeforeSweepKeepsOnlyTheLatestReplay) {
    r.begin_resync();  // connection 1: replays only 10.1/24 and NH 1, then drops
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_route(nhg_route("10.1.0.0/24", 1));
    r.begin_resync();  // connection 2: everything is stale again, nothing removed yet
    EXPECT_EQ(r.stale_count(), 6u);
    EXPECT_EQ(r.routes().size(), 2u);
    r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
    r.upsert_route(nhg_route("10.2.0.0/24", 2));
    r.upsert_pic_context(singleton(7, via("10.0.0.2", 4)));
    r.upsert_sidlist("sl1", {parse_ip6("fc00::1").value()});
    // What only the first replay refreshed is gone: zebra would have replayed it again.
    EXPECT_EQ(r.sweep(), 2u);
    EXPECT_EQ(r.find_route(key("10.1.0.0/24")), nullptr);
    EXPECT_EQ(r.find_nexthop(1), nullptr);
    EXPECT_NE(r.find_route(key("10.2.0.0/24")), nullptr);
    EXPECT_NE(r.find_nexthop(2), nullptr);
    EXPECT_EQ(r.counters().resyncs, 2u);
}

TEST_F(SweepFixture, SweepWithoutResyncDoesNothing) {
    const auto v = r.version();
    EXPECT_EQ(r.sweep(), 0u);
    EXPECT_EQ(r.routes().size(), 2u);
    EXPECT_EQ(r.version(), v);
    r.begin_resync();
    r.upsert_route(nhg_route("10.1.0.0/24", 1));
    EXPECT_EQ(r.sweep(), 5u);
    EXPECT_EQ(r.sweep(), 0u);  // a second sweep finds nothing pending
    EXPECT_EQ(r.routes().size(), 1u);
}

TEST_F(SweepFixture, ExplicitDeletesDuringResyncAreNotSweptAgain) {
    r.begin_resync();
    EXPECT_TRUE(r.delete_route(key("10.2.0.0/24")));  // a stale entry deleted by zebra
    EXPECT_TRUE(r.delete_pic_context(7));
    EXPECT_TRUE(r.delete_sidlist("sl1"));
    EXPECT_EQ(r.stale_count(), 3u);
    r.upsert_route(nhg_route("10.1.0.0/24", 1));
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    EXPECT_EQ(r.stale_count(), 1u);
    EXPECT_EQ(r.sweep(), 1u);  // NH 2
    EXPECT_EQ(r.nexthops().size(), 1u);
}

TEST_F(SweepFixture, ChangedUpsertAlsoRefreshes) {
    r.begin_resync();
    EXPECT_TRUE(r.upsert_route(nhg_route("10.1.0.0/24", 2)));
    EXPECT_TRUE(r.upsert_nexthop(singleton(2, via("10.0.0.9", 4))));
    EXPECT_TRUE(r.upsert_pic_context(singleton(7, via("10.0.0.9", 4))));
    r.sweep();
    EXPECT_NE(r.find_route(key("10.1.0.0/24")), nullptr);
    EXPECT_NE(r.find_nexthop(2), nullptr);
    EXPECT_EQ(r.pic_contexts().size(), 1u);
    EXPECT_EQ(r.routes().size(), 1u);
}

// --- selective sweep: the same zebra reconnected and does not replay `ip route ... table N`

// Main-table routes are replayed; tables 100 and 1000 are not (docs/testing.md, FRR 8.4.4).
bool replayed_table(table_id t) { return t == main_table; }

struct SelectiveSweep : ::testing::Test {
    store r;
    void SetUp() override {
        r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
        r.upsert_nexthop(singleton(2, via("10.0.0.3", 4)));
        r.upsert_nexthop(singleton(3, via("10.0.0.4", 4)));
        r.upsert_nexthop(group(10, {{2, 1}, {3, 1}}));
        r.upsert_nexthop(singleton(4, via("10.0.0.5", 4)));
        r.upsert_route(nhg_route("10.1.0.0/24", 1));        // main, replayed
        r.upsert_route(nhg_route("10.9.0.0/24", 4));        // main, deleted in zebra meanwhile
        r.upsert_route(nhg_route("192.0.2.0/24", 10, 100)); // table 100 over group 10 = {2, 3}
        r.upsert_route(nhg_route("198.18.0.0/15", 1, 1000));
        r.upsert_pic_context(singleton(7, via("10.0.0.2", 4)));
    }
    // What zebra replays after an FPM-only reconnect: main-table state and objects it uses.
    void replay_main_only() {
        r.begin_resync();
        r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
        r.upsert_route(nhg_route("10.1.0.0/24", 1));
    }
};

TEST_F(SelectiveSweep, KeepsUnreplayedTablesAndTheObjectsTheyUse) {
    replay_main_only();
    const auto v = r.version();
    // Removed: 10.9/24 (main, stale), NH 4 (only 10.9 used it), PIC 7 (nothing uses it).
    EXPECT_EQ(r.sweep(replayed_table), 3u);
    EXPECT_EQ(r.find_route(key("10.9.0.0/24")), nullptr);
    EXPECT_EQ(r.find_nexthop(4), nullptr);
    EXPECT_TRUE(r.pic_contexts().empty());
    // Kept: the stale routes of tables 100 and 1000, group 10 and both its members.
    ASSERT_NE(r.find_route(key("192.0.2.0/24", 100)), nullptr);
    EXPECT_NE(r.find_route(key("198.18.0.0/15", 1000)), nullptr);
    EXPECT_NE(r.find_nexthop(10), nullptr);
    EXPECT_NE(r.find_nexthop(2), nullptr);
    EXPECT_NE(r.find_nexthop(3), nullptr);
    EXPECT_EQ(r.resolve(*r.find_route(key("192.0.2.0/24", 100))).state, resolve_state::ok);
    EXPECT_EQ(r.resolve(*r.find_route(key("192.0.2.0/24", 100))).paths.size(), 2u);
    EXPECT_EQ(r.counters().kept_routes, 2u);
    EXPECT_EQ(r.counters().kept_nexthops, 3u);  // 10, 2, 3 (1 was replayed)
    EXPECT_EQ(r.counters().swept_routes, 1u);
    EXPECT_EQ(r.counters().swept_nexthops, 1u);
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_FALSE(r.resync_pending());
    EXPECT_EQ(r.version(), v + 1);
}

TEST_F(SelectiveSweep, KeptEntriesCountAsRefreshed) {
    replay_main_only();
    r.sweep(replayed_table);
    // Refreshing a kept entry later must not disturb the stale count (it was restamped).
    EXPECT_FALSE(r.upsert_route(nhg_route("192.0.2.0/24", 10, 100)));
    EXPECT_EQ(r.stale_count(), 0u);
    // The next connection of a restarted zebra: a full sweep removes them after all.
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), r.routes().size() + r.nexthops().size());
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_route(nhg_route("10.1.0.0/24", 1));
    EXPECT_EQ(r.sweep(), 5u);  // 2 routes, group 10, NH 2, NH 3
    EXPECT_EQ(r.routes().size(), 1u);
    EXPECT_EQ(r.nexthops().size(), 1u);
}

TEST_F(SelectiveSweep, AnObjectOnlyAnUnreplayedRouteUsesIsKeptEvenIfMainDroppedIt) {
    // NH 1 is used by 10.1/24 (main) and 198.18/15 (table 1000). The replay no longer has
    // 10.1/24 nor NH 1: the route goes, the object stays for table 1000.
    r.begin_resync();
    EXPECT_EQ(r.sweep(replayed_table), 4u);  // 10.1/24, 10.9/24, NH 4, PIC 7
    EXPECT_EQ(r.find_route(key("10.1.0.0/24")), nullptr);
    EXPECT_NE(r.find_nexthop(1), nullptr);
    EXPECT_EQ(r.resolve(*r.find_route(key("198.18.0.0/15", 1000))).state, resolve_state::ok);
}

TEST_F(SelectiveSweep, EmptyFilterAndAllTablesAreAFullSweep) {
    replay_main_only();
    EXPECT_EQ(r.sweep(store::table_filter{}), 8u);  // 3 routes, NH 2, 3, 4, group 10, PIC 7
    EXPECT_EQ(r.routes().size(), 1u);
    EXPECT_EQ(r.counters().kept_routes, 0u);

    store again;
    again.upsert_route(nhg_route("192.0.2.0/24", 10, 100));
    again.begin_resync();
    EXPECT_EQ(again.sweep([](table_id) { return true; }), 1u);
    EXPECT_TRUE(again.routes().empty());
}

TEST_F(SelectiveSweep, ReplayedTablesAreSweptAsBefore) {
    replay_main_only();
    // A filter that also allows table 100 (a VRF's table, replayed): only 1000 is kept.
    // Removed: 10.9/24, 192.0.2.0/24 (100), NH 2, 3, 4, group 10, PIC 7.
    EXPECT_EQ(r.sweep([](table_id t) { return t == main_table || t == 100; }), 7u);
    EXPECT_EQ(r.find_route(key("192.0.2.0/24", 100)), nullptr);
    EXPECT_EQ(r.find_nexthop(10), nullptr);
    EXPECT_NE(r.find_route(key("198.18.0.0/15", 1000)), nullptr);
    EXPECT_EQ(r.counters().kept_routes, 1u);
}

// After a zebra restart (docs/rib.md): the kernel's routes of unreplayed tables are kept (the
// new zebra re-read them from the kernel but does not replay them), FRR's own are swept.
TEST_F(SelectiveSweep, PerRouteFilterKeepsUnreplayedKernelRoutesOnly) {
    auto kernel_route = nhg_route("192.0.2.0/24", 10, 100);
    kernel_route.protocol = proto::kernel;
    r.upsert_route(kernel_route);  // table 100 over group 10 = {2, 3}: now a kernel route
    replay_main_only();
    const auto may_sweep = [](const route& x) { return replayed_table(x.key.table) || x.protocol != proto::kernel; };
    // Removed: 10.9/24 (main), 198.18/15 (table 1000, static), NH 4, PIC 7.
    EXPECT_EQ(r.sweep_if(may_sweep), 4u);
    EXPECT_EQ(r.find_route(key("10.9.0.0/24")), nullptr);
    EXPECT_EQ(r.find_route(key("198.18.0.0/15", 1000)), nullptr);
    ASSERT_NE(r.find_route(key("192.0.2.0/24", 100)), nullptr);
    EXPECT_EQ(r.resolve(*r.find_route(key("192.0.2.0/24", 100))).paths.size(), 2u);  // group 10 kept
    EXPECT_NE(r.find_nexthop(1), nullptr);  // replayed
    EXPECT_EQ(r.counters().kept_routes, 1u);
    EXPECT_EQ(r.counters().kept_nexthops, 3u);  // 10, 2, 3
    EXPECT_EQ(r.counters().swept_routes, 2u);
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_FALSE(r.resync_pending());
}

// After a restart the kept routes must not follow the old zebra's nexthop ids, which the new
// one hands out again: as soon as the restart is known they take their resolved paths inline;
// the sweep then keeps them, and sweeps what could not be detached.
TEST_F(SelectiveSweep, DetachedRoutesKeepTheirPathsWhateverTheNewZebraCallsTheIds) {
    auto kernel_route = nhg_route("192.0.2.0/24", 10, 100);  // over group 10 = {2, 3}
    kernel_route.protocol = proto::kernel;
    r.upsert_route(kernel_route);
    auto unresolved = nhg_route("203.0.113.0/24", 99, 100);  // nh 99 never came
    unresolved.protocol = proto::kernel;
    r.upsert_route(unresolved);
    const auto before = r.resolve(*r.find_route(key("192.0.2.0/24", 100))).paths;
    ASSERT_EQ(before.size(), 2u);
    const auto unreplayed_kernel = [](const route& x) { return !replayed_table(x.key.table) && x.protocol == proto::kernel; };

    r.begin_resync();  // a new zebra connects ...
    const auto v = r.version();
    EXPECT_EQ(r.detach_if(unreplayed_kernel), 1u);  // ... and is known to be a new one
    EXPECT_EQ(r.version(), v + 1);
    const route* kept = r.find_route(key("192.0.2.0/24", 100));
    ASSERT_NE(kept, nullptr);
    EXPECT_FALSE(kept->nh_id.has_value());
    ASSERT_EQ(kept->nexthops.size(), 2u);
    EXPECT_EQ(kept->nexthops[0], before[0].path);
    EXPECT_EQ(kept->nexthops[1], before[1].path);
    EXPECT_EQ(kept->protocol, proto::kernel);
    EXPECT_TRUE(r.users_of(10).empty());
    EXPECT_TRUE(r.find_route(key("203.0.113.0/24", 100))->nh_id.has_value());  // not resolvable: as is
    EXPECT_EQ(r.stale_count(), r.routes().size() + r.nexthops().size() + r.pic_contexts().size());

    // The new zebra's replay: its objects 10 and 99 are something else entirely.
    r.upsert_nexthop(singleton(1, via("10.0.0.2", 4)));
    r.upsert_route(nhg_route("10.1.0.0/24", 1));
    r.upsert_nexthop(singleton(10, via("10.0.0.99", 9)));
    r.upsert_nexthop(singleton(99, via("10.0.0.98", 9)));
    EXPECT_EQ(r.resolve(*kept).paths.size(), 2u);
    EXPECT_EQ(r.resolve(*kept).paths[0].path, before[0].path);

    const auto may_sweep = [&](const route& x) { return !unreplayed_kernel(x); };
    // Removed: 10.9/24, 198.18/15 (static), 203.0.113/24 (still on an object: the new zebra's
    // 99 now), NH 2, 3, 4, PIC 7. The new 10 and 99 are fresh.
    EXPECT_EQ(r.sweep_if(may_sweep, store::keep_mode::inline_only), 7u);
    kept = r.find_route(key("192.0.2.0/24", 100));
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(r.resolve(*kept).paths[1].path, before[1].path);
    EXPECT_EQ(r.find_route(key("203.0.113.0/24", 100)), nullptr);
    EXPECT_EQ(r.find_nexthop(2), nullptr);
    EXPECT_EQ(r.counters().kept_routes, 1u);
    EXPECT_EQ(r.counters().kept_nexthops, 0u);
    EXPECT_EQ(r.stale_count(), 0u);
    // A later update or delete of the kept route by the new zebra works as for any route.
    EXPECT_TRUE(r.delete_route(key("192.0.2.0/24", 100)));
}

TEST_F(SelectiveSweep, EmptyRouteFilterIsAFullSweep) {
    replay_main_only();
    EXPECT_EQ(r.sweep_if(store::route_filter{}), 8u);
    EXPECT_EQ(r.routes().size(), 1u);
    EXPECT_EQ(r.counters().kept_routes, 0u);
}

// --- a restarted zebra: its nexthop ids are a new namespace (set_detach_stale)

nexthop vpn_encap(const char* gw, uint32_t ifindex, const char* sid) {
    nexthop n = via(gw, ifindex);
    seg6_encap e;
    e.mode = encap_mode::encap;
    e.segments = {parse_ip6(sid).value()};
    n.seg6 = e;
    return n;
}

// What the VM test met (tests/vm/README.md): zebra 8.4.4, restarted, reads its predecessor's
// nexthop objects back from the kernel WITHOUT their encap and replays them under the same
// ids; bgpd re-sends the VPN routes only seconds later.
struct RestartFixture : ::testing::Test {
    store r;
    void SetUp() override {
        r.upsert_nexthop(singleton(28, vpn_encap("10.12.0.2", 10, "fc00:0:2:0:100::")));
        r.upsert_nexthop(singleton(20, end_dt6(10, 2)));
        r.upsert_nexthop(singleton(30, vpn_encap("10.12.0.2", 10, "fc00:0:2:0:300::")));
        r.upsert_nexthop(group(40, {{30, 1}}));
        r.upsert_route(nhg_route("10.2.0.0/24", 28, 10));
        r.upsert_route(nhg_route("fc00:0:1:0:200::/128", 20));
        r.upsert_route(nhg_route("10.2.0.0/24", 40, 20));
        r.begin_resync();  // the new zebra connects
    }
    nexthop first_path(const char* dst, table_id t) {
        auto res = r.resolve(*r.find_route(key(dst, t)));
        EXPECT_FALSE(res.paths.empty());
        return res.paths.empty() ? nexthop{} : res.paths.front().path;
    }
};

TEST_F(RestartFixture, RedefinedIdDoesNotRepointStaleRoutes) {
    r.set_detach_stale(true);
    EXPECT_TRUE(r.upsert_nexthop(singleton(28, via("10.12.0.2", 10))));  // read back, encap lost
    EXPECT_TRUE(r.upsert_nexthop(singleton(20, via("fc00:12::2", 10))));  // another object, same id
    EXPECT_TRUE(r.upsert_nexthop(singleton(30, via("10.12.0.2", 10))));  // a group's member
    // The stale routes kept what they forwarded with, inline...
    EXPECT_EQ(first_path("10.2.0.0/24", 10), vpn_encap("10.12.0.2", 10, "fc00:0:2:0:100::"));
    EXPECT_FALSE(r.find_route(key("10.2.0.0/24", 10))->nh_id.has_value());
    EXPECT_EQ(first_path("10.2.0.0/24", 20), vpn_encap("10.12.0.2", 10, "fc00:0:2:0:300::"));
    ASSERT_EQ(r.local_sids().size(), 1u);  // still a SID
    EXPECT_EQ(r.local_sids().front().sid.action, behavior::end_dt6);
    // ...the objects are the new zebra's, and the routes left their user lists.
    EXPECT_EQ(*r.find_nexthop(28)->path, via("10.12.0.2", 10));
    EXPECT_TRUE(r.users_of(28).empty());
    EXPECT_TRUE(r.users_of(30).empty());
    EXPECT_EQ(r.counters().detached_routes, 3u);
    EXPECT_EQ(r.stale_count(), 4u);  // 3 stale routes + group 40

    // bgpd re-sends one route with a new object: it follows the new zebra from then on.
    r.upsert_nexthop(singleton(64, vpn_encap("10.12.0.2", 10, "fc00:0:2:0:100::")));
    r.upsert_route(nhg_route("10.2.0.0/24", 64, 10));
    EXPECT_EQ(*r.find_route(key("10.2.0.0/24", 10))->nh_id, 64u);
    // The sweep removes what the new zebra did not re-send, detached or not.
    r.sweep();
    EXPECT_EQ(r.find_route(key("10.2.0.0/24", 20)), nullptr);
    EXPECT_EQ(r.find_route(key("fc00:0:1:0:200::/128")), nullptr);
    EXPECT_NE(r.find_route(key("10.2.0.0/24", 10)), nullptr);
    EXPECT_FALSE(r.detach_stale());
}

TEST_F(RestartFixture, DeletedStaleIdKeepsItsStaleUsersForwarding) {
    r.set_detach_stale(true);
    EXPECT_TRUE(r.delete_nexthop(28));
    EXPECT_EQ(r.resolve(*r.find_route(key("10.2.0.0/24", 10))).state, resolve_state::ok);
    EXPECT_EQ(first_path("10.2.0.0/24", 10), vpn_encap("10.12.0.2", 10, "fc00:0:2:0:100::"));
}

TEST_F(RestartFixture, SameZebraRedefinitionAppliesToEveryUser) {
    // off (a reconnect of the same zebra: one id space): users follow, as in normal operation
    r.upsert_nexthop(singleton(28, via("10.12.0.2", 10)));
    EXPECT_EQ(first_path("10.2.0.0/24", 10), via("10.12.0.2", 10));
    EXPECT_EQ(r.counters().detached_routes, 0u);
}

TEST_F(RestartFixture, RoutesTheNewZebraSentFollowItsObjects) {
    r.set_detach_stale(true);
    // the new zebra re-sends the route first, then redefines its object: the route is its own
    r.upsert_route(nhg_route("10.2.0.0/24", 28, 10));
    r.upsert_nexthop(singleton(28, vpn_encap("10.12.0.2", 10, "fc00:0:2:0:500::")));
    EXPECT_EQ(first_path("10.2.0.0/24", 10), vpn_encap("10.12.0.2", 10, "fc00:0:2:0:500::"));
    // an object refreshed already (identical) then changed again: its users are the new zebra's
    r.upsert_nexthop(singleton(20, end_dt6(10, 2)));
    r.upsert_nexthop(singleton(20, end_dt6(20, 3)));
    EXPECT_EQ(first_path("fc00:0:1:0:200::/128", main_table), end_dt6(20, 3));
    EXPECT_EQ(r.counters().detached_routes, 0u);
}

TEST_F(RestartFixture, ResyncAndSweepTurnItOff) {
    r.set_detach_stale(true);
    r.begin_resync();
    EXPECT_FALSE(r.detach_stale());
}

// --- PIC contexts and SID lists

TEST(RibOther, PicAndSidlistUpsertDelete) {
    store r;
    EXPECT_TRUE(r.upsert_pic_context(singleton(7, via("10.0.0.2", 4))));
    EXPECT_FALSE(r.upsert_pic_context(singleton(7, via("10.0.0.2", 4))));
    EXPECT_TRUE(r.upsert_pic_context(singleton(7, via("10.0.0.3", 4))));
    EXPECT_TRUE(r.nexthops().empty());  // own id space
    const auto s1 = std::vector<ip6_addr>{parse_ip6("fc00::1").value()};
    const auto s2 = std::vector<ip6_addr>{parse_ip6("fc00::1").value(), parse_ip6("fc00::2").value()};
    EXPECT_TRUE(r.upsert_sidlist("a", s1));
    EXPECT_FALSE(r.upsert_sidlist("a", s1));
    EXPECT_TRUE(r.upsert_sidlist("a", s2));
    EXPECT_EQ(r.sidlists().at("a"), s2);
    EXPECT_EQ(r.version(), 4u);
    EXPECT_TRUE(r.delete_pic_context(7));
    EXPECT_FALSE(r.delete_pic_context(7));
    EXPECT_TRUE(r.delete_sidlist("a"));
    EXPECT_FALSE(r.delete_sidlist("a"));
    EXPECT_EQ(r.version(), 6u);
}

}  // namespace
}  // namespace rib
