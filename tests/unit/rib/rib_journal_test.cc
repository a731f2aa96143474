// The RIB's change journal (what the table compiler drains between compiles).
#include <gtest/gtest.h>

#include "rib/rib.hh"

namespace rib {
namespace SRV6D_UNITY_ID {

route rt(const char* dst, uint32_t ifindex) {
    route r;
    r.key.dst = *parse_prefix(dst);
    nexthop n;
    n.ifindex = ifindex;
    r.nexthops.push_back(n);
    return r;
}

TEST(rib_journal, off_until_enabled_then_records_real_changes_only) {
    store r;
    r.upsert_route(rt("10.0.0.0/8", 1));
    EXPECT_TRUE(r.drain_changes().empty());
    r.enable_journal();
    r.upsert_route(rt("10.0.0.0/8", 1));  // unchanged: a refresh, not a change
    EXPECT_TRUE(r.drain_changes().empty());
    r.upsert_route(rt("10.0.0.0/8", 2));
    r.upsert_route(rt("10.1.0.0/16", 2));
    r.delete_route({main_table, *parse_prefix("10.1.0.0/16"), {}});
    r.delete_route({main_table, *parse_prefix("10.2.0.0/16"), {}});  // unknown: nothing
    nexthop_object o;
    o.id = 5;
    o.blackhole = true;
    r.upsert_nexthop(o);
    r.delete_nexthop(5);
    r.upsert_sidlist("sl1", {*parse_ip6("fc00::1")});
    auto ch = r.drain_changes();
    ASSERT_EQ(ch.routes.size(), 3u);
    EXPECT_EQ(ch.routes[0].dst, *parse_prefix("10.0.0.0/8"));
    EXPECT_EQ(ch.routes[2].dst, *parse_prefix("10.1.0.0/16"));
    EXPECT_EQ(ch.nexthops, (std::vector<uint32_t>{5, 5}));
    EXPECT_EQ(ch.sidlists, (std::vector<std::string>{"sl1"}));
    EXPECT_TRUE(r.drain_changes().empty()) << "drained";
}

TEST(rib_journal, sweep_records_what_it_removes) {
    store r;
    r.enable_journal();
    r.upsert_route(rt("10.0.0.0/8", 1));
    r.upsert_route(rt("10.1.0.0/16", 1));
    (void)r.drain_changes();
    r.begin_resync();
    r.upsert_route(rt("10.0.0.0/8", 1));  // refreshed by the replay
    EXPECT_EQ(r.sweep(), 1u);
    auto ch = r.drain_changes();
    ASSERT_EQ(ch.routes.size(), 1u);
    EXPECT_EQ(ch.routes[0].dst, *parse_prefix("10.1.0.0/16"));
}

}  // namespace
}  // namespace rib
