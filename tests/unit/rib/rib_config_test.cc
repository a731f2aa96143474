// Config routes (srv6d's [sids]): pinned beside zebra's routes, never swept, shadowed by zebra's
// route at the same key and back when zebra's goes (deleted or swept).
#include "rib/rib.hh"

#include <gtest/gtest.h>

#include <algorithm>

namespace rib {
namespace SRV6D_UNITY_ID {

prefix pfx(const char* s) { return *parse_prefix(s); }
route_key key(const char* dst) { return {main_table, pfx(dst), {}}; }

route sid_route(const char* dst, behavior b, uint8_t protocol, std::optional<table_id> vrftable = std::nullopt) {
    route r;
    r.key = key(dst);
    r.protocol = protocol;
    nexthop n;
    seg6local l;
    l.action = b;
    l.vrftable = vrftable;
    n.local = l;
    r.nexthops = {n};
    return r;
}

route config_dt46() { return sid_route("fc00:1::d46/128", behavior::end_dt46, proto::config, 10); }
route zebra_dt4() { return sid_route("fc00:1::d46/128", behavior::end_dt4, proto::zstatic, 20); }

bool has_route_key(const store::changes& c, const route_key& k) {
    return std::find(c.routes.begin(), c.routes.end(), k) != c.routes.end();
}

TEST(RibConfig, AConfigRouteIsALocalSidOfOriginConfig) {
    store r;
    r.enable_journal();
    const auto v = r.version();
    EXPECT_TRUE(r.add_config_route(config_dt46()));
    EXPECT_GT(r.version(), v);
    EXPECT_TRUE(has_route_key(r.drain_changes(), key("fc00:1::d46/128")));
    ASSERT_NE(r.find_route(key("fc00:1::d46/128")), nullptr);
    EXPECT_EQ(r.origin_of(key("fc00:1::d46/128")), origin::config);
    EXPECT_EQ(r.origin_of(key("fc00:1::1/128")), origin::fpm);
    const auto sids = r.local_sids();
    ASSERT_EQ(sids.size(), 1u);
    EXPECT_EQ(sids[0].from, origin::config);
    EXPECT_EQ(sids[0].sid.action, behavior::end_dt46);
    EXPECT_FALSE(r.add_config_route(config_dt46())) << "the same line again changes nothing";
    EXPECT_EQ(r.counters().route_upserts, 0u) << "zebra's counters are zebra's";
}

// A [sids] line gone at reload: its route leaves the RIB (and the journal says so), or, when
// zebra's route shadows it, zebra's stays and nothing comes back when zebra's goes.
TEST(RibConfig, RemovedConfigRouteLeavesTheRib) {
    store r;
    r.enable_journal();
    r.add_config_route(config_dt46());
    r.drain_changes();
    EXPECT_TRUE(r.remove_config_route(key("fc00:1::d46/128")));
    EXPECT_EQ(r.find_route(key("fc00:1::d46/128")), nullptr);
    EXPECT_TRUE(has_route_key(r.drain_changes(), key("fc00:1::d46/128"))) << "the compiler removes it";
    EXPECT_TRUE(r.local_sids().empty());
    EXPECT_TRUE(r.config_routes().empty());
    EXPECT_FALSE(r.remove_config_route(key("fc00:1::d46/128"))) << "twice is nothing";
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), 0u) << "the pinned count went with it";

    store s;
    s.add_config_route(config_dt46());
    s.upsert_route(zebra_dt4());
    EXPECT_FALSE(s.remove_config_route(key("fc00:1::d46/128"))) << "zebra's route stays";
    EXPECT_EQ(s.find_route(key("fc00:1::d46/128"))->protocol, proto::zstatic);
    EXPECT_TRUE(s.delete_route(key("fc00:1::d46/128")));
    EXPECT_EQ(s.find_route(key("fc00:1::d46/128")), nullptr) << "no config route to restore any more";
    s.begin_resync();
    EXPECT_EQ(s.stale_count(), 0u);
}

TEST(RibConfig, NeverStaleNeverSwept) {
    store r;
    r.add_config_route(config_dt46());
    r.upsert_route(sid_route("fc00:1::1/128", behavior::end, proto::zstatic));
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), 1u) << "only zebra's route is stale";
    EXPECT_EQ(r.sweep(), 1u);
    EXPECT_EQ(r.routes().size(), 1u);
    EXPECT_EQ(r.origin_of(key("fc00:1::d46/128")), origin::config);
    // A selective sweep (same zebra) and a second resync change nothing either.
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_EQ(r.sweep([](table_id) { return false; }), 0u);
    EXPECT_EQ(r.sweep(), 0u);
    EXPECT_NE(r.find_route(key("fc00:1::d46/128")), nullptr);
}

TEST(RibConfig, ZebrasSidShadowsTheConfigOneUntilZebraDeletesIt) {
    store r;
    r.add_config_route(config_dt46());
    r.enable_journal();
    EXPECT_TRUE(r.upsert_route(zebra_dt4()));
    EXPECT_EQ(r.find_route(key("fc00:1::d46/128"))->protocol, proto::zstatic);
    EXPECT_EQ(r.origin_of(key("fc00:1::d46/128")), origin::fpm);
    EXPECT_TRUE(r.config_routes().at(key("fc00:1::d46/128")).shadowed);
    ASSERT_EQ(r.local_sids().size(), 1u);
    EXPECT_EQ(r.local_sids()[0].sid.action, behavior::end_dt4);
    EXPECT_EQ(r.local_sids()[0].from, origin::fpm);
    r.drain_changes();

    EXPECT_TRUE(r.delete_route(key("fc00:1::d46/128")));
    EXPECT_TRUE(has_route_key(r.drain_changes(), key("fc00:1::d46/128"))) << "the compiler recompiles it";
    const route* back = r.find_route(key("fc00:1::d46/128"));
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(*back, config_dt46());
    EXPECT_EQ(r.origin_of(key("fc00:1::d46/128")), origin::config);
    EXPECT_FALSE(r.config_routes().at(key("fc00:1::d46/128")).shadowed);

    // zebra deleting what it never sent is an unknown delete: the config route stays.
    EXPECT_FALSE(r.delete_route(key("fc00:1::d46/128")));
    EXPECT_EQ(r.counters().route_delete_unknown, 1u);
    EXPECT_NE(r.find_route(key("fc00:1::d46/128")), nullptr);
}

TEST(RibConfig, ASweptShadowRestoresTheConfigRoute) {
    store r;
    r.add_config_route(config_dt46());
    r.upsert_route(zebra_dt4());
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), 1u) << "zebra's route in the config route's place";
    r.upsert_route(zebra_dt4());  // replayed: stays, still shadows
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_EQ(r.sweep(), 0u);
    EXPECT_EQ(r.find_route(key("fc00:1::d46/128"))->protocol, proto::zstatic);

    r.begin_resync();  // zebra restarted without that SID: no delete, the sweep decides
    EXPECT_EQ(r.sweep(), 1u);
    EXPECT_EQ(*r.find_route(key("fc00:1::d46/128")), config_dt46());
    EXPECT_EQ(r.origin_of(key("fc00:1::d46/128")), origin::config);
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_EQ(r.sweep(), 0u);
}

TEST(RibConfig, AddedUnderAnExistingZebraRouteItStartsShadowed) {
    store r;
    r.upsert_route(zebra_dt4());
    EXPECT_FALSE(r.add_config_route(config_dt46()));
    EXPECT_TRUE(r.config_routes().at(key("fc00:1::d46/128")).shadowed);
    EXPECT_EQ(r.find_route(key("fc00:1::d46/128"))->protocol, proto::zstatic);
    r.begin_resync();
    EXPECT_EQ(r.stale_count(), 1u);
    EXPECT_TRUE(r.delete_route(key("fc00:1::d46/128")));
    EXPECT_EQ(r.stale_count(), 0u);
    EXPECT_EQ(*r.find_route(key("fc00:1::d46/128")), config_dt46());
}

}  // namespace
}  // namespace rib
