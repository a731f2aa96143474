// What the compiler leaves unforwarded is a warning when it grows, info when it is gone, and
// nothing when it holds still (no line per compile).
#include "apps/srv6d/refusal_log.hh"

#include <gtest/gtest.h>

namespace srv6d {
namespace SRV6D_UNITY_ID {

TEST(RefusalLog, GrowthWarnsStillnessIsQuietClearingIsInfo) {
    refusal_log r;
    fib::compiler_stats s;
    std::map<rib::table_id, size_t> unbound;
    EXPECT_TRUE(r.update(s, unbound).empty());

    s.refused[static_cast<size_t>(fib::nh_refusal::encap_no_source)] = 3;
    s.routes[static_cast<size_t>(fib::route_state::unresolved)] = 1;
    unbound[10] = 12;
    auto lines = r.update(s, unbound);
    ASSERT_EQ(lines.size(), 3u);
    for (const auto& [lvl, text] : lines)
        EXPECT_EQ(lvl, util::level::warn) << text;
    EXPECT_EQ(lines[0].second, "fib: 3 nexthops refused (encap_no_source), 3 in all: their routes' packets are dropped "
                               "(srv6ctl show nexthops says why)");
    EXPECT_EQ(lines[1].second, "fib: 1 route without a usable nexthop, 1 in all: not forwarded");
    EXPECT_NE(lines[2].second.find("table 10 is bound to no active VRF"), std::string::npos) << lines[2].second;

    unbound[10] = 20;  // the same table's replay goes on: no new line
    EXPECT_TRUE(r.update(s, unbound).empty());

    s.refused[static_cast<size_t>(fib::nh_refusal::encap_no_source)] = 0;
    unbound.clear();
    lines = r.update(s, unbound);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].first, util::level::info);
    EXPECT_EQ(lines[0].second, "fib: no nexthop refused (encap_no_source) any more");
    EXPECT_EQ(lines[1].second, "fib: table 10: no unbound route any more");
}

}  // namespace
}  // namespace srv6d
