// The control thread's filter between the workers' neighbor resolution requests and the kernel.
#include <gtest/gtest.h>

#include "host/resolve_limiter.hh"

namespace host {
namespace SRV6D_UNITY_ID {

using namespace std::chrono_literals;
using clock = resolve_limiter::clock;

rib::ip_addr a(const char* s) { return *rib::parse_addr(s); }

TEST(resolve_limiter, asks_once_per_neighbor_and_interval) {
    resolve_limiter l(1s);
    const clock::time_point t0{};
    EXPECT_TRUE(l.allow(5, a("10.1.0.2"), t0));
    EXPECT_FALSE(l.allow(5, a("10.1.0.2"), t0));          // duplicate in the same drain
    EXPECT_FALSE(l.allow(5, a("10.1.0.2"), t0 + 999ms));  // still within the interval
    EXPECT_TRUE(l.allow(5, a("10.1.0.2"), t0 + 1s));      // the kernel gave up or it came back: ask again
    EXPECT_FALSE(l.allow(5, a("10.1.0.2"), t0 + 1500ms)); // the interval restarts from the last ask
    EXPECT_TRUE(l.allow(5, a("10.1.0.2"), t0 + 2s));
}

TEST(resolve_limiter, neighbors_are_told_apart_by_interface_family_and_address) {
    resolve_limiter l(1s);
    const clock::time_point t0{};
    EXPECT_TRUE(l.allow(5, a("10.1.0.2"), t0));
    EXPECT_TRUE(l.allow(6, a("10.1.0.2"), t0));  // the same address behind another mirror (VRFs)
    EXPECT_TRUE(l.allow(5, a("10.1.0.3"), t0));
    EXPECT_TRUE(l.allow(5, a("fd01::2"), t0));
    EXPECT_TRUE(l.allow(5, a("::a01:2"), t0));   // same low bytes as 10.1.0.2, but IPv6
    EXPECT_EQ(l.size(), 5u);
}

TEST(resolve_limiter, expire_forgets_only_what_is_older_than_the_interval) {
    resolve_limiter l(1s);
    const clock::time_point t0{};
    EXPECT_TRUE(l.allow(5, a("10.1.0.2"), t0));
    EXPECT_TRUE(l.allow(5, a("10.1.0.3"), t0 + 600ms));
    l.expire(t0 + 1200ms);
    EXPECT_EQ(l.size(), 1u);
    EXPECT_FALSE(l.allow(5, a("10.1.0.3"), t0 + 1200ms));
    EXPECT_TRUE(l.allow(5, a("10.1.0.2"), t0 + 1200ms));
    l.expire(t0 + 10s);
    EXPECT_EQ(l.size(), 0u);
}

}  // namespace
}  // namespace host
