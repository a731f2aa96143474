// RTM_NEWROUTE / RTM_DELROUTE decoding, and the frame/netlink dispatch around it.
#include <gtest/gtest.h>

#include "fpm/decoder.hh"
#include "fpm/rtnl.hh"
#include "fpm_builders.hh"

namespace fpm::test {
namespace SRV6D_UNITY_ID {

using rib::route_type;

constexpr uint16_t newroute = 24, delroute = 25;

rib::prefix pfx(const char* s) { return *rib::parse_prefix(s); }
rib::ip_addr ip(const char* s) { return *rib::parse_addr(s); }

const rib::route& only_route(const decoded& d) {
    EXPECT_EQ(d.out.size(), 1u) << d.reasons_text();
    return body<route_upsert>(d.out.at(0)).route;
}

// 192.0.2.0/24 static, table 254, with the attributes given.
buf v4_route(const buf& attrs, uint8_t type = 1, uint32_t flags = 0) {
    return nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, type, flags), attr(1, addr("192.0.2.0")), attrs}), 0x501);
}
buf v6_route(const buf& attrs, uint8_t type = 1, uint32_t flags = 0) {
    return nlmsg(newroute, cat({rtmsg(10, 48, 254, 196, type, flags), attr(1, addr("2001:db8:100::")), attrs}));
}

// --- byte-exact forms from fpm-protocol.md Appendix A ------------------------------------------

TEST(Route, AppendixA_Ipv6SidRouteNhgMode) {
    const buf f = hex(R"(
        01 01 00 44
        40 00 00 00 18 00 01 04
        00 00 00 00 11 22 33 44
        0a 80 00 00 fe 02 00 01 00 00 00 00
        14 00 01 00 fc 00 00 00 00 01 00 00 00 00 00 00 00 00 01 04
        08 00 06 00 14 00 00 00
        08 00 1e 00 24 00 00 00)");
    ASSERT_EQ(f.size(), 68u);
    auto d = decode_frames({f});
    EXPECT_EQ(d.all_reasons(), 0u) << d.reasons_text();
    const auto& r = only_route(d);
    EXPECT_EQ(r.key.table, 254u);
    EXPECT_EQ(r.key.dst, pfx("fc00:0:1::104/128"));
    EXPECT_EQ(r.key.src, rib::prefix{});
    EXPECT_EQ(r.protocol, rib::proto::kernel);
    EXPECT_EQ(r.type, route_type::unicast);
    EXPECT_EQ(r.nh_id, 36u);
    EXPECT_TRUE(r.nexthops.empty());
    EXPECT_EQ(d.stats.frames, 1u);
    EXPECT_EQ(d.stats.bytes, 68u);
    EXPECT_EQ(d.stats.netlink_frames, 1u);
    EXPECT_EQ(d.stats.messages, 1u);
    EXPECT_EQ(d.stats.updates, 1u);
    EXPECT_EQ(d.stats.msg_types.at(24), 1u);
}

TEST(Route, AppendixA_InlineSeg6EncapPair) {
    const buf encap_pair = hex(R"(
        06 00 15 00 05 00 00 00
        24 00 16 80
        20 00 01 00
        01 00 00 00
        00 02 04 00 00 00 00 00
        fc 00 00 00 00 02 00 00 00 00 00 00 00 00 01 00)");
    auto d = decode_msgs({v6_route(cat({encap_pair, attr(5, addr("fc00:1::2")), attr(4, u32(3))}))});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    const auto& nh = r.nexthops[0];
    EXPECT_EQ(nh.ifindex, 3u);
    EXPECT_EQ(nh.gateway, ip("fc00:1::2"));
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(nh.seg6->mode, rib::encap_mode::encap);
    ASSERT_EQ(nh.seg6->segments.size(), 1u);
    EXPECT_EQ(nh.seg6->segments[0], *rib::parse_ip6("fc00:0:2::100"));
}

// --- keys ---------------------------------------------------------------------------------------

TEST(Route, RtaTableOverridesRtmTable) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 0, 196, 1), attr(1, addr("192.0.2.0")),
                                              attr(15, u32(1000)), attr(30, u32(7))}))});
    EXPECT_EQ(only_route(d).key.table, 1000u);
}

TEST(Route, RtmTableWithoutRtaTable) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 100, 196, 1), attr(1, addr("192.0.2.0")),
                                              attr(30, u32(7))}))});
    EXPECT_EQ(only_route(d).key.table, 100u);
}

TEST(Route, MissingDstIsTheDefaultRoute) {
    auto d4 = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 0, 254, 186, 1), attr(30, u32(9))}))});
    EXPECT_EQ(only_route(d4).key.dst, pfx("0.0.0.0/0"));
    auto d6 = decode_msgs({nlmsg(newroute, cat({rtmsg(10, 0, 254, 186, 1), attr(30, u32(9))}))});
    EXPECT_EQ(only_route(d6).key.dst, pfx("::/0"));
    EXPECT_EQ(d4.all_reasons() + d6.all_reasons(), 0u);
}

TEST(Route, HostBitsAreCleared) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, 1), attr(1, addr("192.0.2.77")),
                                              attr(30, u32(7))}))});
    EXPECT_EQ(only_route(d).key.dst, pfx("192.0.2.0/24"));
}

TEST(Route, Ipv6SourceSpecific) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(10, 48, 254, 196, 1, 0, 56), attr(1, addr("2001:db8:1::")),
                                              attr(2, addr("2001:db8:99:aa::")), attr(30, u32(3))}))});
    const auto& r = only_route(d);
    EXPECT_EQ(r.key.src, pfx("2001:db8:99:aa::/56"));
}

TEST(Route, BadPrefixLengths) {
    auto v4 = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 33, 254, 196, 1), attr(1, addr("192.0.2.0"))}))});
    EXPECT_EQ(v4.count(reason::route_bad_prefix_len), 1u);
    EXPECT_TRUE(v4.out.empty());
    auto v6 = decode_msgs({nlmsg(newroute, cat({rtmsg(10, 64, 254, 196, 1, 0, 129), attr(1, addr("2001:db8::"))}))});
    EXPECT_EQ(v6.count(reason::route_bad_prefix_len), 1u);
    EXPECT_TRUE(v6.out.empty());
    // /128 and /32 are fine.
    auto ok = decode_msgs({nlmsg(newroute, cat({rtmsg(10, 128, 254, 196, 1), attr(1, addr("2001:db8::1"))}))});
    EXPECT_EQ(ok.out.size(), 1u);
}

TEST(Route, DstOfTheWrongFamilyDropsTheMessage) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, 1), attr(1, addr("2001:db8::")),
                                              attr(30, u32(7))}))});
    EXPECT_EQ(d.count(reason::route_dst_family), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Route, SrcOfTheWrongSizeDropsTheMessage) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(10, 48, 254, 196, 1, 0, 56), attr(1, addr("2001:db8:1::")),
                                              attr(2, addr("10.0.0.0"))}))});
    EXPECT_EQ(d.count(reason::route_dst_family), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Route, MissingDstWithAPrefixLengthDropsTheMessage) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, 1), attr(30, u32(7))}))});
    EXPECT_EQ(d.count(reason::route_dst_family), 1u);
    EXPECT_TRUE(d.out.empty());
    auto s = decode_msgs({nlmsg(newroute, cat({rtmsg(10, 48, 254, 196, 1, 0, 56), attr(1, addr("2001:db8:1::"))}))});
    EXPECT_EQ(s.count(reason::route_dst_family), 1u);
    EXPECT_TRUE(s.out.empty());
}

TEST(Route, BadTableLengthDropsTheMessage) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 0, 196, 1), attr(1, addr("192.0.2.0")),
                                              attr(15, u16(1000)), attr(30, u32(7))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Route, DuplicateTableKeepsTheFirst) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 0, 196, 1), attr(1, addr("192.0.2.0")),
                                              attr(15, u32(1000)), attr(15, u32(2000)), attr(30, u32(7))}))});
    EXPECT_EQ(d.count(reason::attr_duplicate), 1u);
    EXPECT_EQ(only_route(d).key.table, 1000u);
}

TEST(Route, DuplicateDstKeepsTheFirst) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, 1), attr(1, addr("192.0.2.0")),
                                              attr(1, addr("198.51.100.0")), attr(30, u32(7))}))});
    EXPECT_EQ(d.count(reason::attr_duplicate), 1u);
    EXPECT_EQ(only_route(d).key.dst, pfx("192.0.2.0/24"));
}

// --- header checks ------------------------------------------------------------------------------

TEST(Route, ShortRtmsg) {
    auto d = decode_msgs({nlmsg(newroute, hex("02 18 00 00 fe c4 00 01 00 00 00"))});
    EXPECT_EQ(d.count(reason::nlmsg_body_short), 1u);
    EXPECT_TRUE(d.out.empty());
    auto del = decode_msgs({nlmsg(delroute, {})});
    EXPECT_EQ(del.count(reason::nlmsg_body_short), 1u);
}

TEST(Route, MplsFamilyIsIgnored) {
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(28, 20, 0, 11, 1), attr(1, u32(0x00010100))}))});
    EXPECT_EQ(d.count(reason::ignored_family), 1u);
    EXPECT_EQ(d.errors(), 0u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Route, OtherFamiliesAreErrors) {
    for (uint8_t fam : buf{0, 1, 7, 29}) {
        auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(fam, 0, 254, 196, 1), attr(30, u32(7))}))});
        EXPECT_EQ(d.count(reason::route_bad_family), 1u) << int(fam);
        EXPECT_TRUE(d.out.empty());
    }
}

TEST(Route, RouteTypes) {
    const std::pair<uint8_t, route_type> types[] = {{1, route_type::unicast},
                                                    {2, route_type::local},
                                                    {6, route_type::blackhole},
                                                    {7, route_type::unreachable},
                                                    {8, route_type::prohibit}};
    for (auto [wire, want] : types) {
        auto d = decode_msgs({v4_route(attr(6, u32(20)), wire)});
        EXPECT_EQ(only_route(d).type, want) << int(wire);
        EXPECT_EQ(d.all_reasons(), 0u);
    }
}

TEST(Route, UnhandledTypeOnNewRouteIsSkipped) {
    // RTN_UNSPEC, BROADCAST, ANYCAST, MULTICAST, THROW, NAT, XRESOLVE, and beyond.
    for (uint8_t t : buf{0, 3, 4, 5, 9, 10, 11, 200}) {
        auto d = decode_msgs({v4_route(attr(30, u32(7)), t)});
        EXPECT_EQ(d.count(reason::ignored_route_type), 1u) << int(t);
        EXPECT_EQ(d.errors(), 0u);
        EXPECT_TRUE(d.out.empty());
    }
}

TEST(Route, DeleteIgnoresTheType) {
    // DELROUTE carries rtm_type 0 and the old route's protocol; only the key matters.
    auto d = decode_msgs({nlmsg(delroute, cat({rtmsg(2, 24, 0, 196, 0), attr(1, addr("192.0.2.0")),
                                              attr(6, u32(20)), attr(15, u32(1000))}))});
    ASSERT_EQ(d.out.size(), 1u);
    const auto& k = body<route_delete>(d.out[0]).key;
    EXPECT_EQ(k.table, 1000u);
    EXPECT_EQ(k.dst, pfx("192.0.2.0/24"));
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, DeleteIsStillValidated) {
    auto d = decode_msgs({nlmsg(delroute, cat({rtmsg(2, 24, 254, 196, 0), attr(1, addr("2001:db8::"))}))});
    EXPECT_EQ(d.count(reason::route_dst_family), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Route, ProtocolIsKeptAsSent) {
    // FRR 10 local host routes arrive as protocol 2 unicast via the interface: kept as they are.
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 32, 254, 2, 1), attr(1, addr("10.0.1.1")),
                                              attr(6, u32(20)), attr(4, u32(3))}))});
    const auto& r = only_route(d);
    EXPECT_EQ(r.protocol, 2);
    EXPECT_EQ(r.type, route_type::unicast);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].ifindex, 3u);
    EXPECT_FALSE(r.nexthops[0].gateway);
}

// --- single path ----------------------------------------------------------------------------------

TEST(Route, SinglePathGatewayAndOif) {
    auto d = decode_msgs({v4_route(cat({attr(6, u32(20)), attr(5, addr("10.0.1.2")), attr(4, u32(4))}))});
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("10.0.1.2"));
    EXPECT_EQ(r.nexthops[0].ifindex, 4u);
    EXPECT_EQ(r.nexthops[0].weight, 1);
    EXPECT_FALSE(r.nexthops[0].onlink);
    EXPECT_FALSE(r.nh_id);
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, EmptySinglePathHasNoNexthops) {
    auto d = decode_msgs({v4_route(attr(6, u32(20)))});
    const auto& r = only_route(d);
    EXPECT_TRUE(r.nexthops.empty());
    EXPECT_FALSE(r.nh_id);
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, Ipv6GatewayOnAnIpv4RouteIsLegal) {
    auto d = decode_msgs({v4_route(cat({attr(5, addr("fc00:1::2")), attr(4, u32(3))}))});
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("fc00:1::2"));
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, Ipv4GatewayOnAnIpv6RouteIsBad) {
    auto d = decode_msgs({v6_route(cat({attr(5, addr("10.0.1.2")), attr(4, u32(3))}))});
    EXPECT_EQ(d.count(reason::route_bad_gateway), 1u);
    EXPECT_TRUE(only_route(d).nexthops.empty());  // the path is unusable; the route stays, unresolved
}

TEST(Route, GatewayOfAWrongSize) {
    auto d = decode_msgs({v4_route(cat({attr(5, hex("0a000102 00")), attr(4, u32(3))}))});
    EXPECT_EQ(d.count(reason::route_bad_gateway), 1u);
    EXPECT_TRUE(only_route(d).nexthops.empty());
}

TEST(Route, OifOfAWrongSize) {
    auto d = decode_msgs({v4_route(cat({attr(5, addr("10.0.1.2")), attr(4, u16(3))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_TRUE(only_route(d).nexthops.empty());
}

TEST(Route, LinkLocalOnlinkV4OverV6IsKeptAsSent) {
    // FRR <= 10.5 non-NHG: 169.254.0.1 + RTNH_F_ONLINK; the real IPv6 nexthop is not on the wire.
    auto d = decode_msgs({v4_route(cat({attr(5, addr("169.254.0.1")), attr(4, u32(3))}), 1, 4)});
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("169.254.0.1"));
    EXPECT_TRUE(r.nexthops[0].onlink);
}

TEST(Route, ViaIpv6ForAnIpv4Route) {
    // FRR >= 10.6: struct rtvia {u16 family = AF_INET6; 16 bytes}.
    auto d = decode_msgs({v4_route(cat({attr(18, cat({u16(10), addr("fc00:1::2")})), attr(4, u32(3))}), 1, 4)});
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("fc00:1::2"));
    EXPECT_TRUE(r.nexthops[0].onlink);
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, BadVia) {
    // family says IPv6, 4 bytes follow; unknown family; IPv4 via for an IPv6 route.
    for (const buf& via : {cat({u16(10), addr("10.0.0.1")}), cat({u16(28), u32(0x100)}), cat({u16(2), addr("10.0.0.1")}), u16(10)}) {
        const bool v6 = via.size() == 6 && via[0] == 2;
        auto d = decode_msgs({v6 ? v6_route(cat({attr(18, via), attr(4, u32(3))}))
                                 : v4_route(cat({attr(18, via), attr(4, u32(3))}))});
        EXPECT_EQ(d.count(reason::route_bad_gateway), 1u);
        EXPECT_TRUE(only_route(d).nexthops.empty());
    }
}

TEST(Route, GatewayAndViaTogether) {
    auto d = decode_msgs({v4_route(cat({attr(5, addr("10.0.1.2")), attr(18, cat({u16(10), addr("fc00:1::2")})),
                                        attr(4, u32(3))}))});
    EXPECT_EQ(d.count(reason::attr_duplicate), 1u);
    EXPECT_EQ(only_route(d).nexthops.at(0).gateway, ip("10.0.1.2"));
}

TEST(Route, PrefsrcAndMtu) {
    auto d = decode_msgs({v4_route(cat({attr(7, addr("10.0.1.1")), nest(8, attr(2, u32(1400))), attr(30, u32(5))}))});
    const auto& r = only_route(d);
    EXPECT_EQ(r.prefsrc, ip("10.0.1.1"));
    EXPECT_EQ(r.mtu, 1400u);
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, MetricsWithoutNestedFlagAndOtherMetrics) {
    // RTAX_ADVMSS (8) is not used: skipped and counted.
    auto d = decode_msgs({v4_route(cat({attr(8, cat({attr(8, u32(1360)), attr(2, u32(9000))})), attr(30, u32(5))}))});
    EXPECT_EQ(only_route(d).mtu, 9000u);
    EXPECT_EQ(d.count(reason::ignored_attr), 1u);
}

TEST(Route, BadMtu) {
    auto d = decode_msgs({v4_route(cat({nest(8, attr(2, u16(1400))), attr(30, u32(5))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_FALSE(only_route(d).mtu);
}

TEST(Route, TruncatedMetricsNest) {
    // The inner attribute claims 12 bytes, 8 are there.
    auto d = decode_msgs({v4_route(cat({attr(8, hex("0c000200 78050000")), attr(30, u32(5))}))});
    EXPECT_EQ(d.count(reason::attr_truncated), 1u);
    EXPECT_EQ(only_route(d).nh_id, 5u);
}

TEST(Route, BadPrefsrc) {
    auto d = decode_msgs({v4_route(cat({attr(7, addr("fc00::1")), attr(30, u32(5))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_FALSE(only_route(d).prefsrc);
}

TEST(Route, PriorityIsNotKept) {
    auto d = decode_msgs({v4_route(cat({attr(6, u32(20)), attr(30, u32(5))}))});
    EXPECT_EQ(d.all_reasons(), 0u);
    auto bad = decode_msgs({v4_route(cat({attr(6, u16(20)), attr(30, u32(5))}))});
    EXPECT_EQ(bad.count(reason::attr_bad_len), 1u);
    EXPECT_EQ(only_route(bad).nh_id, 5u);
}

TEST(Route, UnknownAttributesAreSkippedAndCounted) {
    // RTA_FLOW (11), RTA_CACHEINFO (12), type 0, and a high unknown one with NLA_F_NET_BYTEORDER.
    auto d = decode_msgs({v4_route(cat({attr(11, u32(7)), attr(12, buf(32, 0)), attr(0, u32(1)),
                                        attr(0x4000 | 99, u32(1)), attr(30, u32(5))}))});
    EXPECT_EQ(d.count(reason::ignored_attr), 4u);
    EXPECT_EQ(d.errors(), 0u);
    EXPECT_EQ(only_route(d).nh_id, 5u);
}

TEST(Route, TruncatedAttributesDropTheMessage) {
    // The last attribute claims 12 bytes; RTA_TABLE might have been in what is missing.
    auto d = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 0, 196, 1), attr(1, addr("192.0.2.0")),
                                              hex("0c000f00 e8030000")}))});
    EXPECT_EQ(d.count(reason::attr_truncated), 1u);
    EXPECT_TRUE(d.out.empty());
    // Fewer than 4 bytes left for an attribute header.
    auto h = decode_msgs({nlmsg(newroute, cat({rtmsg(2, 24, 0, 196, 1), attr(1, addr("192.0.2.0")), hex("0800")}))});
    EXPECT_EQ(h.count(reason::attr_truncated), 1u);
    EXPECT_TRUE(h.out.empty());
}

// --- NHG mode -------------------------------------------------------------------------------------

TEST(Route, NhIdWins) {
    auto d = decode_msgs({v4_route(cat({attr(30, u32(18)), attr(4, u32(3))}))});
    const auto& r = only_route(d);
    EXPECT_EQ(r.nh_id, 18u);
    EXPECT_TRUE(r.nexthops.empty());
    EXPECT_EQ(d.count(reason::ignored_attr), 1u);
}

TEST(Route, BadNhIdLeavesTheRouteUnresolved) {
    auto d = decode_msgs({v4_route(attr(30, hex("12000000 00")))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    const auto& r = only_route(d);
    EXPECT_FALSE(r.nh_id);
    EXPECT_TRUE(r.nexthops.empty());
}

// --- RTA_MULTIPATH --------------------------------------------------------------------------------

TEST(Route, MultipathWeightsFlagsAndGateways) {
    const buf mp = cat({rtnh(0, 0, 3, attr(5, addr("10.0.1.2"))), rtnh(4, 4, 4, attr(5, addr("fc00:2::2"))),
                        rtnh(0, 255, 5, attr(5, addr("10.0.3.2")))});
    auto d = decode_msgs({v4_route(cat({attr(6, u32(20)), nest(9, mp)}))});
    EXPECT_EQ(d.all_reasons(), 0u) << d.reasons_text();
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 3u);
    EXPECT_EQ(r.nexthops[0].ifindex, 3u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("10.0.1.2"));
    EXPECT_EQ(r.nexthops[0].weight, 1);
    EXPECT_FALSE(r.nexthops[0].onlink);
    EXPECT_EQ(r.nexthops[1].ifindex, 4u);
    EXPECT_EQ(r.nexthops[1].gateway, ip("fc00:2::2"));
    EXPECT_EQ(r.nexthops[1].weight, 5);
    EXPECT_TRUE(r.nexthops[1].onlink);
    EXPECT_EQ(r.nexthops[2].weight, 256);
}

TEST(Route, MultipathWithoutTheNestedFlag) {
    const buf mp = cat({rtnh(0, 0, 3, attr(5, addr("10.0.1.2"))), rtnh(0, 0, 4, attr(5, addr("10.0.2.2")))});
    auto d = decode_msgs({v4_route(attr(9, mp))});
    EXPECT_EQ(only_route(d).nexthops.size(), 2u);
}

TEST(Route, MultipathViaPerHop) {
    const buf mp = cat({rtnh(4, 0, 3, attr(18, cat({u16(10), addr("fc00:1::2")}))),
                        rtnh(4, 0, 4, attr(18, cat({u16(10), addr("fc00:2::2")})))});
    auto d = decode_msgs({v4_route(nest(9, mp))});
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 2u);
    EXPECT_EQ(r.nexthops[1].gateway, ip("fc00:2::2"));
    EXPECT_TRUE(r.nexthops[1].onlink);
}

TEST(Route, EmptyMultipathHasNoNexthops) {
    auto d = decode_msgs({v4_route(nest(9, {}))});
    EXPECT_TRUE(only_route(d).nexthops.empty());
    EXPECT_EQ(d.all_reasons(), 0u);
}

TEST(Route, MultipathBadLengthKeepsTheHopsBefore) {
    buf bad = rtnh(0, 0, 5, attr(5, addr("10.0.3.2")));
    bad[0] = 40;  // rtnh_len past the nest
    const buf mp = cat({rtnh(0, 0, 3, attr(5, addr("10.0.1.2"))), bad, rtnh(0, 0, 4, attr(5, addr("10.0.2.2")))});
    auto d = decode_msgs({v4_route(nest(9, mp))});
    EXPECT_EQ(d.count(reason::route_multipath_bad), 1u);
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);  // the rest of the nest is skipped
    EXPECT_EQ(r.nexthops[0].ifindex, 3u);
}

TEST(Route, MultipathRtnhLenBelowItsHeader) {
    auto d = decode_msgs({v4_route(nest(9, cat({u16(4), u16(0), u32(3)})))});
    EXPECT_EQ(d.count(reason::route_multipath_bad), 1u);
    EXPECT_TRUE(only_route(d).nexthops.empty());
}

TEST(Route, MultipathStrayBytes) {
    auto d = decode_msgs({v4_route(nest(9, cat({rtnh(0, 0, 3, attr(5, addr("10.0.1.2"))), hex("0800")})))});
    EXPECT_EQ(d.count(reason::route_multipath_bad), 1u);
    EXPECT_EQ(only_route(d).nexthops.size(), 1u);
}

TEST(Route, MultipathHopWithTruncatedAttributesIsDropped) {
    const buf mp = cat({rtnh(0, 0, 3, hex("0c000500 0a000102")), rtnh(0, 0, 4, attr(5, addr("10.0.2.2")))});
    auto d = decode_msgs({v4_route(nest(9, mp))});
    EXPECT_EQ(d.count(reason::attr_truncated), 1u);
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].ifindex, 4u);
}

TEST(Route, MultipathHopWithBadGatewayIsDropped) {
    const buf mp = cat({rtnh(0, 0, 3, attr(5, hex("0a0001"))), rtnh(0, 0, 4, attr(5, addr("10.0.2.2")))});
    auto d = decode_msgs({v4_route(nest(9, mp))});
    EXPECT_EQ(d.count(reason::route_bad_gateway), 1u);
    EXPECT_EQ(only_route(d).nexthops.size(), 1u);
}

TEST(Route, MultipathTwice) {
    const buf mp = rtnh(0, 0, 3, attr(5, addr("10.0.1.2")));
    auto d = decode_msgs({v4_route(cat({nest(9, mp), nest(9, mp)}))});
    EXPECT_EQ(d.count(reason::attr_duplicate), 1u);
    EXPECT_EQ(only_route(d).nexthops.size(), 1u);
}

TEST(Route, SinglePathAttributesNextToMultipath) {
    auto d = decode_msgs({v4_route(cat({attr(4, u32(9)), nest(9, rtnh(0, 0, 3, attr(5, addr("10.0.1.2"))))}))});
    EXPECT_EQ(d.count(reason::ignored_attr), 1u);
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].ifindex, 3u);
}

// --- encap pairs --------------------------------------------------------------------------------

// MPLS label 16, bottom of stack: the transposed VPN function bgpd puts before the SID.
const buf mpls16 = nest(22, attr(1, hex("00 01 01 00")));
const buf seg6_one_sid = nest(22, attr(1, cat({u32(1), hex("00 02 04 00 00 00 00 00"), addr("fc00:0:2:0:1::")})));
const buf seg6local_dt6 = nest(22, cat({attr(1, u32(7)), attr(3, u32(254))}));

TEST(Route, MplsThenSeg6OnOneInlinePath) {
    // bgpd SRv6 VPN route, non-NHG mode (8.4.4 d2, 10.x e-bgp-srv6-vpn): two pairs in wire order.
    auto d = decode_msgs({v4_route(cat({attr(21, u16(1)), mpls16, attr(21, u16(5)), seg6_one_sid,
                                        attr(5, addr("10.12.0.2")), attr(4, u32(3))}))});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    const auto& nh = r.nexthops[0];
    EXPECT_EQ(nh.mpls_labels, std::vector<uint32_t>{16});
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(nh.seg6->segments, std::vector<rib::ip6_addr>{*rib::parse_ip6("fc00:0:2:0:1::")});
    EXPECT_EQ(nh.gateway, ip("10.12.0.2"));
}

TEST(Route, EncapPairsAreMatchedInWireOrderNotByType) {
    // Swapping the two nests relative to their types makes each nest land on the other decoder:
    // proof that a nest goes with the ENCAP_TYPE right before it.
    auto d = decode_msgs({v4_route(cat({attr(21, u16(5)), seg6_one_sid, attr(21, u16(7)), seg6local_dt6,
                                        attr(4, u32(3))}))});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& nh = only_route(d).nexthops.at(0);
    ASSERT_TRUE(nh.seg6);
    ASSERT_TRUE(nh.local);
    EXPECT_EQ(nh.local->action, rib::behavior::end_dt6);
}

TEST(Route, EncapAloneMakesAPath) {
    // A SID route with only the seg6local pair (no OIF) still has a path carrying it.
    auto d = decode_msgs({v6_route(cat({attr(21, u16(7)), seg6local_dt6}))});
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    ASSERT_TRUE(r.nexthops[0].local);
    EXPECT_EQ(r.nexthops[0].ifindex, 0u);
}

TEST(Route, EncapWithoutType) {
    auto d = decode_msgs({v6_route(cat({seg6local_dt6, attr(4, u32(3))}))});
    EXPECT_EQ(d.count(reason::attr_encap_unpaired), 1u);
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_FALSE(r.nexthops[0].local);
}

TEST(Route, TypeWithoutEncap) {
    auto d = decode_msgs({v6_route(cat({attr(4, u32(3)), attr(21, u16(7))}))});
    EXPECT_EQ(d.count(reason::attr_encap_unpaired), 1u);
    auto two = decode_msgs({v6_route(cat({attr(21, u16(5)), attr(21, u16(7)), seg6local_dt6, attr(4, u32(3))}))});
    EXPECT_EQ(two.count(reason::attr_encap_unpaired), 1u);
    ASSERT_TRUE(only_route(two).nexthops.at(0).local);  // the second type pairs with the nest
}

TEST(Route, EncapTypeOfAWrongSize) {
    auto d = decode_msgs({v6_route(cat({attr(21, u32(7)), seg6local_dt6, attr(4, u32(3))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_EQ(d.count(reason::attr_encap_unpaired), 0u);  // its nest is dropped without a second count
    EXPECT_FALSE(only_route(d).nexthops.at(0).local);
}

TEST(Route, UnknownEncapTypeIsPassedOnAndSkipped) {
    // FRR's private VXLAN (100) with the VNI in attribute type 0.
    auto d = decode_msgs({v4_route(cat({attr(21, u16(100)), nest(22, attr(0, u32(1000))), attr(5, addr("10.0.1.2")),
                                        attr(4, u32(3))}))});
    EXPECT_EQ(d.count(reason::ignored_encap_type), 1u);
    EXPECT_EQ(d.errors(), 0u);
    EXPECT_EQ(only_route(d).nexthops.size(), 1u);
}

TEST(Route, EncapInsideAnRtnexthop) {
    const buf mp = cat({rtnh(0, 0, 3, cat({attr(5, addr("10.0.1.2")), attr(21, u16(1)), mpls16})),
                        rtnh(0, 1, 4, attr(5, addr("10.0.2.2")))});
    auto d = decode_msgs({v4_route(nest(9, mp))});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& r = only_route(d);
    ASSERT_EQ(r.nexthops.size(), 2u);
    EXPECT_EQ(r.nexthops[0].mpls_labels, std::vector<uint32_t>{16});
    EXPECT_TRUE(r.nexthops[1].mpls_labels.empty());
    EXPECT_EQ(r.nexthops[1].weight, 2);
}

// --- several messages per frame; dispatch ---------------------------------------------------------

TEST(Frame, DelAndNewInOneFrameFromFrr844) {
    // a-static nhg #37 (STEP8): DELROUTE 192.0.2.0/24 + NEWROUTE with NH_ID 20, one 100-byte frame.
    const buf f = hex(
        "010100642c00000019000104000000000e7517c802180000fec400000000000008000100c000020008000600140000"
        "003400000018000105000000000e7517c802180000fec400010000000008000100c0000200080006001400000008"
        "001e0014000000");
    ASSERT_EQ(f.size(), 100u);
    auto d = decode_frames({f});
    EXPECT_EQ(d.all_reasons(), 0u) << d.reasons_text();
    ASSERT_EQ(d.out.size(), 2u);
    EXPECT_EQ(body<route_delete>(d.out[0]).key.dst, pfx("192.0.2.0/24"));
    const auto& r = body<route_upsert>(d.out[1]).route;
    EXPECT_EQ(r.key.dst, pfx("192.0.2.0/24"));
    EXPECT_EQ(r.nh_id, 20u);
    EXPECT_EQ(r.protocol, rib::proto::zstatic);
    EXPECT_EQ(d.stats.messages, 2u);
    EXPECT_EQ(d.stats.msg_types.at(24), 1u);
    EXPECT_EQ(d.stats.msg_types.at(25), 1u);
    EXPECT_EQ(d.stats.updates, 2u);
}

TEST(Frame, UnknownMessageTypesAreSkipped) {
    // RTM_NEWNEIGH (28), NLMSG_NOOP (1), NLMSG_DONE (3), between two routes.
    auto d = decode_msgs({nlmsg(28, buf(12, 0)), v4_route(attr(30, u32(1))), nlmsg(1, {}), nlmsg(3, u32(0)),
                          v6_route(attr(30, u32(2)))});
    EXPECT_EQ(d.count(reason::ignored_msg_type), 3u);
    EXPECT_EQ(d.errors(), 0u);
    EXPECT_EQ(d.out.size(), 2u);
    EXPECT_EQ(d.stats.messages, 5u);
    EXPECT_EQ(d.stats.msg_types.at(28), 1u);
    EXPECT_EQ(d.stats.msg_types.at(1), 1u);
}

TEST(Frame, MalformedMessageDoesNotStopTheFrameNorLaterFrames) {
    const buf bad = nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, 1), attr(1, addr("2001:db8::"))}));
    const buf good1 = v4_route(attr(30, u32(1)));
    const buf good2 = v6_route(attr(30, u32(2)));
    auto d = decode_frames({frame(cat({bad, good1})), frame(good2)});
    EXPECT_EQ(d.count(reason::route_dst_family), 1u);
    ASSERT_EQ(d.out.size(), 2u);
    EXPECT_EQ(body<route_upsert>(d.out[0]).route.nh_id, 1u);
    EXPECT_EQ(body<route_upsert>(d.out[1]).route.nh_id, 2u);
    EXPECT_EQ(d.stats.frames, 2u);
}

TEST(Frame, NlmsgLenPastTheFrame) {
    buf m = v4_route(attr(30, u32(1)));
    m[0] = static_cast<uint8_t>(m.size() + 4);
    auto d = decode_frames({frame(cat({v4_route(attr(30, u32(7))), m})), frame(v4_route(attr(30, u32(8))))});
    EXPECT_EQ(d.count(reason::nlmsg_bad_len), 1u);
    ASSERT_EQ(d.out.size(), 2u);  // the message before and the next frame
}

TEST(Frame, NlmsgLenBelowItsHeader) {
    auto d = decode_frames({frame(hex("08000000 18000104 00000000 00000000"))});
    EXPECT_EQ(d.count(reason::nlmsg_bad_len), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Frame, CutNetlinkHeader) {
    auto d = decode_frames({frame(cat({v4_route(attr(30, u32(1))), hex("34000000 18000105")}))});
    EXPECT_EQ(d.count(reason::nlmsg_truncated), 1u);
    EXPECT_EQ(d.out.size(), 1u);
}

TEST(Frame, TrailingBytes) {
    // nlmsg_len 52 and 3 stray bytes after it: not a message, not a header.
    buf p = cat({v4_route(attr(30, u32(1))), hex("000000")});
    auto d = decode_frames({frame(p)});
    EXPECT_EQ(d.count(reason::nlmsg_trailing), 1u);
    EXPECT_EQ(d.out.size(), 1u);
}

TEST(Frame, UnalignedLastMessageNeedsNoPadding) {
    // The last attribute has rta_len 5, so nlmsg_len is not a multiple of 4, and the frame ends
    // right after it: neither the attribute nor the message padding is on the wire.
    buf m = nlmsg(newroute, cat({rtmsg(2, 24, 254, 196, 1), attr(1, addr("192.0.2.0")), attr(30, u32(5)),
                                 attr(99, u8(1))}));
    m.resize(m.size() - 3);
    m[0] = static_cast<uint8_t>(m.size());
    ASSERT_EQ(m.size() % 4, 1u);
    auto d = decode_frames({frame(m)});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    EXPECT_EQ(d.count(reason::ignored_attr), 1u);
    EXPECT_EQ(only_route(d).nh_id, 5u);
}

TEST(Frame, HeaderOnlyFramesAreCounted) {
    // Well framed but empty: zebra never sends one; counted, not silently passed over.
    auto d = decode_frames({hex("01010004"), hex("01020004")});
    EXPECT_EQ(d.count(reason::frame_empty), 2u);
    EXPECT_EQ(d.all_reasons(), 2u);
    EXPECT_EQ(d.stats.frames, 2u);
    EXPECT_EQ(d.stats.bytes, 8u);
    EXPECT_EQ(d.stats.netlink_frames, 0u);
    EXPECT_EQ(d.stats.messages, 0u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Frame, BadHeadersGivenDirectly) {
    // The framer never hands these out; decode_frame still refuses them on its own.
    auto d = decode_frames({hex("010100"), hex("02010008 00000000"), hex("01070008 00000000")});
    EXPECT_EQ(d.count(reason::frame_too_short), 1u);
    EXPECT_EQ(d.count(reason::frame_bad_version), 1u);
    EXPECT_EQ(d.count(reason::frame_bad_type), 1u);
    EXPECT_EQ(d.stats.frames, 3u);
    EXPECT_EQ(d.stats.netlink_frames, 0u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Frame, ProtobufFramesAreCountedAndHandedOn) {
    auto d = decode_frames({frame({0x08, 0x01}, 2)});
    EXPECT_EQ(d.stats.protobuf_frames, 1u);
    EXPECT_EQ(d.stats.netlink_frames, 0u);
}

}  // namespace
}  // namespace fpm::test
