// sync_sids: the daemon's SID tracker follows the RIB's local SIDs and the registry, and a
// refusal is counted once per transition however often the RIB or the registry changes.
#include "apps/srv6d/sid_sync.hh"

#include <gtest/gtest.h>

#include <set>

#include "vrf/sid_parse.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

rib::prefix pfx(const char* s) { return *rib::parse_prefix(s); }

// A kernel-style local SID route (what zebra relays for `ip -6 route add ... encap seg6local`).
rib::route sid_route(const char* sid, rib::behavior b, std::optional<rib::table_id> table = std::nullopt,
                     std::optional<rib::table_id> vrftable = std::nullopt) {
    rib::route r;
    r.key.dst = pfx(sid);
    r.protocol = rib::proto::kernel;
    rib::nexthop nh;
    nh.ifindex = 2;
    rib::seg6local l;
    l.action = b;
    l.table = table;
    l.vrftable = vrftable;
    nh.local = l;
    r.nexthops = {nh};
    return r;
}

vrf::vrf_spec spec(const char* name, rib::table_id table) {
    vrf::vrf_spec s;
    s.name = name;
    s.table = table;
    return s;
}

constexpr auto unbound = static_cast<size_t>(vrf::sid_refusal::table_unbound);

TEST(SidSync, FollowsTheRibAndTheRegistry) {
    rib::store rib;
    vrf::registry reg;
    vrf::sid_tracker t;
    rib.upsert_route(sid_route("fc00:0:1::1/128", rib::behavior::end));
    rib.upsert_route(sid_route("fc00:0:1::5/128", rib::behavior::end_dt6, 100));  // FRR's DT6: TABLE

    auto c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 2u);  // both new
    EXPECT_FALSE(c[0].before);
    ASSERT_TRUE(c[1].after);
    EXPECT_FALSE(c[1].after->active);
    EXPECT_EQ(c[1].after->reason, "table 100 is not bound to any VRF");
    EXPECT_EQ(describe(c[1], t), "sid fc00:0:1::5/128 End.DT6: refused: table 100 is not bound to any VRF");
    EXPECT_EQ(describe(c[0], t), "sid fc00:0:1::1/128 End: active");
    EXPECT_EQ(t.refusals()[unbound], 1u);

    // Nothing changed: nothing reported, nothing counted again (a replay resends every SID).
    EXPECT_TRUE(sync_sids(t, rib, reg).empty());
    rib.upsert_route(sid_route("fc00:0:1::5/128", rib::behavior::end_dt6, 100));
    EXPECT_TRUE(sync_sids(t, rib, reg).empty());
    EXPECT_EQ(t.refusals()[unbound], 1u);

    // The binding appears: the SID becomes active by itself.
    (void)reg.sync(vrf::source::config, {spec("blue", 100)});
    c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].sid, pfx("fc00:0:1::5/128"));
    EXPECT_FALSE(c[0].before->active);
    EXPECT_TRUE(c[0].after->active);
    EXPECT_EQ(describe(c[0], t), "sid fc00:0:1::5/128 End.DT6: active, vrf blue (id 1)");
    EXPECT_EQ(t.find(pfx("fc00:0:1::5/128"))->bound.vrf_name, "blue");

    // ... and is refused again when it goes: a second transition, counted.
    (void)reg.sync(vrf::source::config, {});
    c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_FALSE(c[0].after->active);
    EXPECT_EQ(t.refusals()[unbound], 2u);
    EXPECT_EQ(t.refused_now()[unbound], 1u);
}

TEST(SidSync, RemovedAndChangedSids) {
    rib::store rib;
    vrf::registry reg;
    (void)reg.sync(vrf::source::config, {spec("red", 10)});
    vrf::sid_tracker t;
    rib.upsert_route(sid_route("fc00:0:1::4/128", rib::behavior::end_dt4, std::nullopt, 10));
    rib.upsert_route(sid_route("fc00:0:1::1/128", rib::behavior::end));
    ASSERT_EQ(sync_sids(t, rib, reg).size(), 2u);
    EXPECT_TRUE(t.find(pfx("fc00:0:1::4/128"))->bound.active);

    // The same SID now decapsulates into table 11 (a route replace): re-bound, refused.
    rib.upsert_route(sid_route("fc00:0:1::4/128", rib::behavior::end_dt4, std::nullopt, 11));
    auto c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_TRUE(c[0].before->active);
    EXPECT_EQ(c[0].after->reason, "table 11 is not bound to any VRF");

    // A deleted SID route leaves the tracker.
    rib::route_key k;
    k.dst = pfx("fc00:0:1::1/128");
    rib.delete_route(k);
    c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_FALSE(c[0].after);
    EXPECT_EQ(describe(c[0], t), "sid fc00:0:1::1/128: removed");
    EXPECT_EQ(t.sids().size(), 1u);
    EXPECT_EQ(t.find(pfx("fc00:0:1::1/128")), nullptr);
}

// [sids] lines: bound through the same registry as zebra's SIDs, refused until their VRF binds;
// a shadow by zebra's SID is logged once, its end once.
TEST(SidSync, ConfigSidsBindLikeZebrasAndShadowsAreLoggedOnce) {
    rib::store rib;
    vrf::registry reg;
    vrf::sid_tracker t;
    const auto line = vrf::parse_sid("fc00:1::d46 End.DT46 table 10");
    ASSERT_TRUE(line) << line.error;
    rib.add_config_route(vrf::to_route(*line.value));
    auto c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(describe(c[0], t), "sid fc00:1::d46/128 End.DT46: refused: table 10 is not bound to any VRF");
    (void)reg.sync(vrf::source::config, {spec("red", 10)});
    c = sync_sids(t, rib, reg);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(describe(c[0], t), "sid fc00:1::d46/128 End.DT46: active, vrf red (id 1)");

    std::set<rib::route_key> shadowed;
    EXPECT_TRUE(shadow_changes(rib, shadowed).empty());
    auto zebra = sid_route("fc00:1::d46/128", rib::behavior::end_dt6, 10);
    rib.upsert_route(zebra);
    auto lines = shadow_changes(rib, shadowed);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "config sid fc00:1::d46/128 End.DT46: shadowed: zebra sent a route for this prefix, zebra's wins");
    rib.upsert_route(zebra);  // replayed
    EXPECT_TRUE(shadow_changes(rib, shadowed).empty());
    (void)sync_sids(t, rib, reg);  // the same binding (red): the tracker follows, nothing to report
    EXPECT_EQ(t.find(pfx("fc00:1::d46/128"))->sid.action, rib::behavior::end_dt6);

    rib.delete_route(zebra.key);
    lines = shadow_changes(rib, shadowed);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "config sid fc00:1::d46/128 End.DT46: in use again: zebra's route for this prefix is gone");
    (void)sync_sids(t, rib, reg);
    EXPECT_EQ(t.find(pfx("fc00:1::d46/128"))->sid.action, rib::behavior::end_dt46);
    EXPECT_TRUE(t.find(pfx("fc00:1::d46/128"))->bound.active);
}

}  // namespace
}  // namespace srv6d
