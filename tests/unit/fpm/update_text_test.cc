// The debug line of each update kind (what `log.level = debug` prints per update).
#include "fpm/update_text.hh"

#include <gtest/gtest.h>

namespace fpm {
namespace SRV6D_UNITY_ID {

rib::prefix pfx(const char* s) { return *rib::parse_prefix(s); }

update make(update_body b, dialect d = dialect::netlink) {
    update u;
    u.from = d;
    u.body = std::move(b);
    return u;
}

TEST(UpdateText, RouteWithNexthopId) {
    rib::route r;
    r.key.dst = pfx("10.0.0.0/24");
    r.protocol = rib::proto::zstatic;
    r.nh_id = 12;
    EXPECT_EQ(to_string(make(route_upsert{r})), "+route 10.0.0.0/24 table 254 proto 196 nh 12");
}

TEST(UpdateText, InlineMultipathWithSeg6) {
    rib::route r;
    r.key.dst = pfx("2001:db8::/48");
    r.key.table = 1000;
    r.protocol = rib::proto::bgp;
    rib::nexthop a;
    a.gateway = *rib::parse_addr("fe80::1");
    a.ifindex = 3;
    rib::nexthop b = a;
    b.ifindex = 4;
    b.seg6 = rib::seg6_encap{rib::encap_mode::encap_red, {*rib::parse_ip6("fc00::1"), *rib::parse_ip6("fc00::2")}, {}, {}};
    r.nexthops = {a, b};
    EXPECT_EQ(to_string(make(route_upsert{r})),
              "+route 2001:db8::/48 table 1000 proto 186 [0] via fe80::1 dev 3 [1] via fe80::1 dev 4 "
              "seg6 mode encap.red segs fc00::1,fc00::2");
}

TEST(UpdateText, BlackholeAndDelete) {
    rib::route r;
    r.key.dst = pfx("192.0.2.0/24");
    r.type = rib::route_type::blackhole;
    r.protocol = rib::proto::zstatic;
    EXPECT_EQ(to_string(make(route_upsert{r})), "+route 192.0.2.0/24 table 254 blackhole proto 196");
    EXPECT_EQ(to_string(make(route_delete{r.key})), "-route 192.0.2.0/24 table 254");
}

TEST(UpdateText, NexthopObjects) {
    rib::nexthop_object g;
    g.id = 12;
    g.group = {{11, 1}, {13, 3}};
    EXPECT_EQ(to_string(make(nexthop_upsert{g})), "+nh 12 group 11,13/3");
    rib::nexthop_object s;
    s.id = 24;
    s.path = rib::nexthop{};
    s.path->ifindex = 3;
    rib::seg6local l;
    l.action = rib::behavior::end_dt6;
    l.table = 10;
    s.path->local = l;
    EXPECT_EQ(to_string(make(nexthop_upsert{s})), "+nh 24 dev 3 seg6local End.DT6 table 10");
    // Every parameter, in [sids] syntax (rib/sid_params.hh prints it).
    l = rib::seg6local{};
    l.action = rib::behavior::end_x;
    l.flavors = rib::flavor::next_csid;
    l.lcblock_bits = 32;
    l.lcnode_fn_bits = 16;
    l.nh6 = *rib::parse_ip6("fe80::1");
    l.oif = 7;
    s.path->local = l;
    EXPECT_EQ(to_string(make(nexthop_upsert{s})),
              "+nh 24 dev 3 seg6local End.X nh6 fe80::1 oif 7 flavors next-csid lblen 32 nflen 16");
    EXPECT_EQ(to_string(make(nexthop_delete{24})), "-nh 24");
}

TEST(UpdateText, SonicKinds) {
    EXPECT_EQ(to_string(make(sidlist_upsert{"sl1", {*rib::parse_ip6("fc00::1")}}, dialect::sonic)),
              "+sidlist sl1 fc00::1 (sonic)");
    EXPECT_EQ(to_string(make(sidlist_delete{"sl1"}, dialect::sonic)), "-sidlist sl1 (sonic)");
    EXPECT_EQ(to_string(make(pic_context_delete{7}, dialect::sonic)), "-pic 7 (sonic)");
}

}  // namespace
}  // namespace fpm
