#include "forward/datapath/drop_reason.hh"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fwd {
namespace SRV6D_UNITY_ID {

TEST(DropReason, NamesAreUniqueAndDescribed) {
    std::set<std::string> seen;
    for (size_t i = 0; i < drop_reason_count; ++i) {
        const auto r = static_cast<drop_reason>(i);
        EXPECT_TRUE(seen.insert(std::string(name(r))).second) << name(r);
        EXPECT_FALSE(describe(r).empty());
    }
    EXPECT_EQ(name(drop_reason::srh_segments_left), "srh_segments_left");
}

}  // namespace
}  // namespace fwd
