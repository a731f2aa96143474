#include "rib/behaviors.hh"

#include <gtest/gtest.h>

#include <set>

namespace rib {
namespace {

TEST(Behaviors, EveryEnumValueHasOneEntryAndAName) {
    std::set<std::string_view> names;
    for (uint32_t a = 1; a <= 16; ++a) {
        const auto* info = find_behavior(a);
        ASSERT_NE(info, nullptr) << a;
        EXPECT_EQ(static_cast<uint32_t>(info->action), a);
        EXPECT_TRUE(names.insert(info->name).second) << info->name;
        EXPECT_EQ(behavior_name(info->action), info->name);
        EXPECT_EQ(behavior_from_name(info->name), info->action);
    }
    EXPECT_EQ(behavior_table().size(), 16u);
    EXPECT_EQ(find_behavior(0), nullptr);
    EXPECT_EQ(find_behavior(17), nullptr);
    EXPECT_EQ(behavior_name(static_cast<behavior>(99)), "unknown");
}

TEST(Behaviors, RfcSpellings) {
    EXPECT_EQ(behavior_name(behavior::end), "End");
    EXPECT_EQ(behavior_name(behavior::end_x), "End.X");
    EXPECT_EQ(behavior_name(behavior::end_dt46), "End.DT46");
    EXPECT_EQ(behavior_name(behavior::end_b6_encaps), "End.B6.Encaps");
    EXPECT_EQ(behavior_from_name("end.dt4"), behavior::end_dt4);  // SONiC writes them lower-case
    EXPECT_FALSE(behavior_from_name("End.DT"));
    EXPECT_FALSE(behavior_from_name(""));
}

TEST(Behaviors, RequirementsAreAlternatives) {
    const auto& dt6 = *find_behavior(static_cast<uint32_t>(behavior::end_dt6));
    EXPECT_EQ(dt6.missing(sid_param::table), 0);
    EXPECT_EQ(dt6.missing(sid_param::vrftable), 0);
    EXPECT_NE(dt6.missing(sid_param::flavors), 0);
    const auto& x = *find_behavior(static_cast<uint32_t>(behavior::end_x));
    EXPECT_EQ(x.missing(sid_param::oif), sid_param::nh6);
    EXPECT_EQ(x.missing(sid_param::nh6), 0);
    EXPECT_TRUE(x.allowed() & sid_param::oif);
    EXPECT_FALSE(x.allowed() & sid_param::table);
    const auto& end = *find_behavior(static_cast<uint32_t>(behavior::end));
    EXPECT_EQ(end.missing(0), 0);
}

TEST(Behaviors, OnlyKernelImplementedOnesHaveANetlinkEncoding) {
    for (const auto& info : behavior_table()) {
        const bool none = info.action == behavior::end_bm || info.action == behavior::end_s ||
                          info.action == behavior::end_as || info.action == behavior::end_am;
        EXPECT_EQ(info.netlink, !none) << info.name;
    }
}

TEST(Flavors, Names) {
    EXPECT_EQ(flavor_name(flavor::psp), "psp");
    EXPECT_EQ(flavor_name(flavor::usp), "usp");
    EXPECT_EQ(flavor_name(flavor::usd), "usd");
    EXPECT_EQ(flavor_name(flavor::next_csid), "next-csid");
    EXPECT_EQ(flavor_name(1), "");
    EXPECT_EQ(flavors_to_string(0), "");
    EXPECT_EQ(flavors_to_string(flavor::psp | flavor::next_csid), "psp,next-csid");
    EXPECT_EQ(flavors_to_string(flavor::usd | 0x20), "usd,0x20");
}

TEST(SidParams, ToString) {
    EXPECT_EQ(sid_params_to_string(sid_param::table | sid_param::vrftable | sid_param::vrf_name),
              "table|vrftable|vrf-name");
    EXPECT_EQ(sid_params_to_string(0), "");
}

}  // namespace
}  // namespace rib
