// [routes] lines (apps/srv6d/config_route.hh): srv6d's own headend routes, H.Insert above all
// (zebra relays `mode inline` as encap). The parser's rules and errors, the config file's
// rules (section, one line per key, no sid line at the same prefix), the RIB's route and its
// precedence against zebra's.
#include "apps/srv6d/config_route.hh"

#include <gtest/gtest.h>

#include <set>

#include "apps/srv6d/config.hh"
#include "apps/srv6d/sid_sync.hh"
#include "rib/rib.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }

TEST(ConfigRoute, ParsesEachMode) {
    auto r = parse_route("2001:db8:b::/64 mode inline segs fc00:0:2::e,fc00:0:3::e");
    ASSERT_TRUE(r) << r.error;
    EXPECT_EQ(r.value->table, rib::main_table);
    EXPECT_EQ(rib::to_string(r.value->dst), "2001:db8:b::/64");
    EXPECT_EQ(r.value->encap.mode, rib::encap_mode::inline_srh);
    EXPECT_EQ(r.value->encap.segments, (std::vector<rib::ip6_addr>{a6("fc00:0:2::e"), a6("fc00:0:3::e")}));
    EXPECT_FALSE(r.value->encap.source);

    r = parse_route("route = 2001:db8:c::/64 table 10 mode inline.red segs fc00:0:2::e");
    ASSERT_TRUE(r) << r.error;
    EXPECT_EQ(r.value->table, 10u);
    EXPECT_EQ(r.value->encap.mode, rib::encap_mode::inline_red);

    r = parse_route("10.9.0.0/16 segs fc00:0:3::d4 table 20 src fc00:0:1::7");  // any order, mode encap by default
    ASSERT_TRUE(r) << r.error;
    EXPECT_EQ(r.value->encap.mode, rib::encap_mode::encap);
    EXPECT_EQ(r.value->encap.source, a6("fc00:0:1::7"));
    r = parse_route("10.9.0.0/16 mode encap.red segs fc00:0:3::d4");
    ASSERT_TRUE(r) << r.error;
    EXPECT_EQ(r.value->encap.mode, rib::encap_mode::encap_red);

    // What running-config prints reads back the same.
    for (const char* line : {"2001:db8:b::/64 mode inline segs fc00:0:2::e,fc00:0:3::e",
                             "2001:db8:c::/64 table 10 mode inline.red segs fc00:0:2::e",
                             "10.9.0.0/16 table 20 mode encap segs fc00:0:3::d4 src fc00:0:1::7"}) {
        const auto p = parse_route(line);
        ASSERT_TRUE(p) << p.error;
        EXPECT_EQ(route_text(*p.value), line);
    }
}

TEST(ConfigRoute, ErrorsNameTheLineAndTheProblem) {
    auto err = [](const char* line) {
        const auto r = parse_route(line);
        EXPECT_FALSE(r) << line;
        return r.error;
    };
    EXPECT_EQ(err("10.0.0.0/8 mode inline segs fc00::1"),
              "route '10.0.0.0/8 mode inline segs fc00::1': mode inline takes an IPv6 prefix (H.Insert puts an SRH "
              "into an IPv6 packet)");
    EXPECT_EQ(err("2001:db8::/32 mode inline segs fc00::1 src fc00::9"),
              "route '2001:db8::/32 mode inline segs fc00::1 src fc00::9': mode inline takes no src: H.Insert keeps "
              "the packet's own source");
    EXPECT_EQ(err("2001:db8::/32 mode inline"), "route '2001:db8::/32 mode inline': needs 'segs SID,SID...'");
    EXPECT_EQ(err("2001:db8::1/32 segs fc00::1"),
              "route '2001:db8::1/32 segs fc00::1': '2001:db8::1/32' has bits set beyond its length (did you mean "
              "2001:db8::/32?)");
    EXPECT_EQ(err("2001:db8::/32 mode insert segs fc00::1"),
              "route '2001:db8::/32 mode insert segs fc00::1': mode 'insert' is not inline, inline.red, encap or encap.red");
    EXPECT_EQ(err("2001:db8::/32 segs fc00::1,10.0.0.1"),
              "route '2001:db8::/32 segs fc00::1,10.0.0.1': segs: '10.0.0.1' is not an IPv6 address");
    EXPECT_EQ(err("2001:db8::/32 segs fc00::1 table 255"),
              "route '2001:db8::/32 segs fc00::1 table 255': table 255 is reserved by the kernel (local)");
    EXPECT_EQ(err("2001:db8::/32 segs fc00::1 segs fc00::2"), "route '2001:db8::/32 segs fc00::1 segs fc00::2': 'segs' given twice");
    EXPECT_EQ(err("2001:db8::/32 segs fc00::1 via fc00::2"),
              "route '2001:db8::/32 segs fc00::1 via fc00::2': unknown word 'via'; expected table, mode, segs or src");
    EXPECT_EQ(err("2001:db8::/32 segs"), "route '2001:db8::/32 segs': 'segs' needs a value");
    // 16 SRH entries at most: with H.Insert the packet's destination takes one.
    std::string sids;
    for (int i = 1; i <= 16; ++i)
        sids += (i > 1 ? "," : "") + fmt::format("fc00::{:x}", i);
    EXPECT_TRUE(parse_route("2001:db8::/32 mode inline.red segs " + sids));
    EXPECT_TRUE(parse_route("2001:db8::/32 mode encap segs " + sids));
    EXPECT_NE(err(("2001:db8::/32 mode inline segs " + sids).c_str()).find("segs: at most 15 SIDs with mode inline"),
              std::string::npos);
    EXPECT_NE(err(("2001:db8::/32 mode encap segs " + sids + ",fc00::99").c_str()).find("segs: at most 16 SIDs"),
              std::string::npos);
}

TEST(ConfigRoute, TheRibsRouteIsAConfigHeadend) {
    const auto p = parse_route("2001:db8:b::/64 table 10 mode inline segs fc00:0:2::e");
    ASSERT_TRUE(p) << p.error;
    const rib::route r = to_route(*p.value);
    EXPECT_EQ(r.key.table, 10u);
    EXPECT_EQ(rib::to_string(r.key.dst), "2001:db8:b::/64");
    EXPECT_EQ(r.protocol, rib::proto::config);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_FALSE(r.nexthops[0].local);
    ASSERT_TRUE(r.nexthops[0].seg6);
    EXPECT_EQ(r.nexthops[0].seg6->mode, rib::encap_mode::inline_srh);
}

// zebra is the authority, as for [sids]: its route at the same key replaces the config route,
// which comes back when zebra's goes; each change logged once, naming the route.
TEST(ConfigRoute, ZebrasRouteAtTheSameKeyWins) {
    rib::store rib;
    const auto p = parse_route("2001:db8:b::/64 mode inline segs fc00:0:2::e");
    ASSERT_TRUE(p);
    const rib::route mine = to_route(*p.value);
    ASSERT_TRUE(rib.add_config_route(mine));
    EXPECT_EQ(rib.origin_of(mine.key), rib::origin::config);
    ASSERT_NE(rib.routes().find(mine.key), nullptr);

    std::set<rib::route_key> shadowed;
    rib::route zebra;
    zebra.key = mine.key;
    zebra.protocol = rib::proto::bgp;
    rib::nexthop nh;
    nh.gateway = rib::parse_addr("fc00:12::2");
    nh.ifindex = 3;
    zebra.nexthops = {nh};
    rib.upsert_route(zebra);
    EXPECT_EQ(rib.origin_of(mine.key), rib::origin::fpm);
    auto lines = shadow_changes(rib, shadowed);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "config route 2001:db8:b::/64: shadowed: zebra sent a route for this prefix, zebra's wins");
    rib.delete_route(zebra.key);
    EXPECT_EQ(rib.origin_of(mine.key), rib::origin::config);
    lines = shadow_changes(rib, shadowed);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "config route 2001:db8:b::/64: in use again: zebra's route for this prefix is gone");
    // A sweep after zebra reconnects leaves it: pinned.
    rib.begin_resync();
    rib.sweep();
    EXPECT_EQ(rib.origin_of(mine.key), rib::origin::config);
    ASSERT_TRUE(rib.remove_config_route(mine.key));
    EXPECT_EQ(rib.routes().find(mine.key), nullptr);
}

TEST(ConfigRoute, FileRules) {
    auto set = [](config& c, const char* v) { return apply_setting(c, "routes.route", v); };
    config c = default_config();
    EXPECT_EQ(set(c, "2001:db8:b::/64 mode inline segs fc00:0:2::e"), "");
    EXPECT_EQ(set(c, "2001:db8:b::/64 table 10 mode inline segs fc00:0:2::e"), "") << "another table: another key";
    EXPECT_EQ(set(c, "2001:db8:b::/64 segs fc00:0:2::f"),
              "invalid route '2001:db8:b::/64 segs fc00:0:2::f': 2001:db8:b::/64 in table 254 is configured twice");
    EXPECT_EQ(c.routes.size(), 2u);
}

}  // namespace SRV6D_UNITY_ID
}  // namespace srv6d
