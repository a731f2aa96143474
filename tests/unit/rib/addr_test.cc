#include "rib/addr.hh"

#include <gtest/gtest.h>

namespace rib {
namespace SRV6D_UNITY_ID {

TEST(Prefix, HostBitsAreCleared) {
    auto p = parse_prefix("10.1.2.3/20");
    ASSERT_TRUE(p);
    EXPECT_EQ(to_string(*p), "10.1.0.0/20");
    auto q = parse_prefix("fc00:0:3:2:3::/47");
    ASSERT_TRUE(q);
    EXPECT_EQ(to_string(*q), "fc00:0:2::/47");
}

TEST(Prefix, RejectsBadInput) {
    EXPECT_FALSE(parse_prefix("10.0.0.0/33"));
    EXPECT_FALSE(parse_prefix("10.0.0.0/"));
    EXPECT_FALSE(parse_prefix("10.0.0.0/2x"));
    EXPECT_FALSE(parse_prefix("fc00::/129"));
    EXPECT_FALSE(parse_prefix("nonsense"));
}

TEST(Prefix, BareAddressIsHostRoute) {
    auto p = parse_prefix("fc00::1");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->len, 128);
    EXPECT_TRUE(p->contains(*parse_addr("fc00::1")));
    EXPECT_FALSE(p->contains(*parse_addr("fc00::2")));
}

TEST(Prefix, ContainsRespectsFamily) {
    auto p = *parse_prefix("0.0.0.0/0");
    EXPECT_TRUE(p.contains(*parse_addr("192.0.2.1")));
    EXPECT_FALSE(p.contains(*parse_addr("::1")));
}

}  // namespace
}  // namespace rib
