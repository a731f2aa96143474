// RTM_NEWNEXTHOP / RTM_DELNEXTHOP decoding.
#include <gtest/gtest.h>

#include "fpm/decoder.hh"
#include "fpm_builders.hh"

namespace fpm::test {
namespace SRV6D_UNITY_ID {

constexpr uint16_t newnh = 104, delnh = 105;

rib::ip_addr ip(const char* s) { return *rib::parse_addr(s); }

const rib::nexthop_object& only_nh(const decoded& d) {
    EXPECT_EQ(d.out.size(), 1u) << d.reasons_text();
    return body<nexthop_upsert>(d.out.at(0)).nh;
}

buf nh_msg(const buf& attrs, uint8_t family = 2, uint32_t flags = 0, uint8_t protocol = 11) {
    return nlmsg(newnh, cat({nhmsg(family, protocol, flags), attrs}), 0x501);
}

// --- captured frames (FRR 8.4.4), byte for byte ----------------------------------------------------

TEST(Nexthop, CapturedSingletonWithGateway) {
    // f-reconnect c1 #10: id 13 via 10.0.2.2 oif 5.
    auto d = decode_frames({hex("0101003430000000680001050000000095b532cc02000b0000000000080001000d000000080006000a000202"
                                "0800050005000000")});
    EXPECT_EQ(d.all_reasons(), 0u) << d.reasons_text();
    const auto& nh = only_nh(d);
    EXPECT_EQ(nh.id, 13u);
    EXPECT_EQ(nh.protocol, 11);
    EXPECT_FALSE(nh.blackhole);
    EXPECT_FALSE(nh.is_group());
    ASSERT_TRUE(nh.path);
    EXPECT_EQ(nh.path->gateway, ip("10.0.2.2"));
    EXPECT_EQ(nh.path->ifindex, 5u);
    EXPECT_FALSE(nh.path->onlink);
    EXPECT_EQ(d.stats.msg_types.at(104), 1u);
}

TEST(Nexthop, CapturedGroup) {
    // f-reconnect c1 #9: group 12 = {11 w0, 13 w0}, sent before its member 13.
    auto d = decode_frames({hex("0101003834000000680001050000000095b532cc00000b0000000000080001000c000000140002000b0000"
                                "00000000000d00000000000000")});
    EXPECT_EQ(d.all_reasons(), 0u) << d.reasons_text();
    const auto& nh = only_nh(d);
    EXPECT_EQ(nh.id, 12u);
    EXPECT_FALSE(nh.path);
    EXPECT_FALSE(nh.resilient);
    const std::vector<rib::nexthop_group_member> want{{11, 1}, {13, 1}};
    EXPECT_EQ(nh.group, want);
}

TEST(Nexthop, CapturedBlackhole) {
    // a-static #16: id 24, NHA_BLACKHOLE.
    auto d = decode_frames({hex("010100282400000068000105000000000e7517c802000b0000000000080001001800000004000400")});
    EXPECT_EQ(d.all_reasons(), 0u);
    const auto& nh = only_nh(d);
    EXPECT_EQ(nh.id, 24u);
    EXPECT_TRUE(nh.blackhole);
    EXPECT_FALSE(nh.path);
}

TEST(Nexthop, CapturedDelete) {
    // f-reconnect c2: RTM_DELNEXTHOP {family 0, proto 0, NHA_ID 12}.
    auto d = decode_frames({hex("0101002420000000690001040000000095b532cc0000000000000000080001000c000000")});
    EXPECT_EQ(d.all_reasons(), 0u);
    ASSERT_EQ(d.out.size(), 1u);
    EXPECT_EQ(body<nexthop_delete>(d.out[0]).id, 12u);
    EXPECT_EQ(d.stats.msg_types.at(105), 1u);
}

TEST(Nexthop, CapturedSeg6Encap) {
    // c-sharp-srv6 nhg #18: id 23 via fc00:1::2 oif 3, SEG6 H.Encaps fc00:0:2::101.
    auto d = decode_frames({hex("0101006c680000006800010500000000c7dc68ab0a000b0000000000080001001700000014000600fc0000"
                                "01000000000000000000000002080005000300000006000700050000002400088020000100010000000002"
                                "040000000000fc000000000200000000000000000101")});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& nh = only_nh(d);
    ASSERT_TRUE(nh.path);
    EXPECT_EQ(nh.path->gateway, ip("fc00:1::2"));
    EXPECT_EQ(nh.path->ifindex, 3u);
    ASSERT_TRUE(nh.path->seg6);
    EXPECT_EQ(nh.path->seg6->segments, std::vector<rib::ip6_addr>{*rib::parse_ip6("fc00:0:2::101")});
}

TEST(Nexthop, CapturedSeg6local) {
    // f-reconnect c1 #6: id 24 oif 3, SEG6_LOCAL End.DT6 table 10.
    auto d = decode_frames({hex("0101004844000000680001050000000095b532cc0a000b0000000000080001001800000008000500030000"
                                "000600070007000000140008800800010007000000080003000a000000")});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& nh = only_nh(d);
    ASSERT_TRUE(nh.path);
    EXPECT_EQ(nh.path->ifindex, 3u);
    ASSERT_TRUE(nh.path->local);
    EXPECT_EQ(nh.path->local->action, rib::behavior::end_dt6);
    EXPECT_EQ(nh.path->local->decap_table(), 10u);
}

// --- hand-built --------------------------------------------------------------------------------------

TEST(Nexthop, GatewayFamilyComesFromItsLength) {
    // 8.4.4 NHG mode, IPv4 route over an IPv6 nexthop: nh_family AF_INET, 16-byte gateway.
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(31)), attr(6, addr("fc00:1::2")), attr(5, u32(3))}), 2)});
    EXPECT_EQ(only_nh(d).path->gateway, ip("fc00:1::2"));
    // And the reverse: nh_family AF_INET6 with a 4-byte gateway is read as IPv4.
    auto r = decode_msgs({nh_msg(cat({attr(1, u32(32)), attr(6, addr("10.0.1.2")), attr(5, u32(3))}), 10)});
    EXPECT_EQ(only_nh(r).path->gateway, ip("10.0.1.2"));
}

TEST(Nexthop, Onlink) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(31)), attr(6, addr("fc00:1::2")), attr(5, u32(3))}), 10, 4)});
    EXPECT_TRUE(only_nh(d).path->onlink);
}

TEST(Nexthop, OifOnly) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(5)), attr(5, u32(4))}))});
    const auto& nh = only_nh(d);
    ASSERT_TRUE(nh.path);
    EXPECT_EQ(nh.path->ifindex, 4u);
    EXPECT_FALSE(nh.path->gateway);
}

TEST(Nexthop, ProtocolIsKept) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(5)), attr(5, u32(4))}), 2, 0, 194)});
    EXPECT_EQ(only_nh(d).protocol, 194);
}

TEST(Nexthop, GroupWeights) {
    // weight = ((weight_high << 8) | weight) + 1; 65536 does not fit fib's u16 and is clamped.
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, cat({grp(1, 0), grp(2, 254), grp(3, 255), grp(4, 0x34, 0x12),
                                                                         grp(5, 0xfe, 0xff), grp(6, 0xff, 0xff)}))}),
                                 0)});
    EXPECT_EQ(d.all_reasons(), 0u);
    const std::vector<rib::nexthop_group_member> want{{1, 1}, {2, 255}, {3, 256}, {4, 0x1235}, {5, 65535}, {6, 65535}};
    EXPECT_EQ(only_nh(d).group, want);
}

TEST(Nexthop, ResilientGroup) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, cat({grp(1, 0), grp(2, 0)})), attr(3, u16(1)),
                                      nest(12, cat({attr(1, u16(128)), attr(2, u32(120000))}))}),
                                 0)});
    EXPECT_EQ(d.all_reasons(), 0u) << d.reasons_text();  // NHA_RES_GROUP is skipped without a count
    const auto& nh = only_nh(d);
    EXPECT_TRUE(nh.resilient);
    EXPECT_EQ(nh.group.size(), 2u);
    auto mpath = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, grp(1, 0)), attr(3, u16(0))}), 0)});
    EXPECT_FALSE(only_nh(mpath).resilient);
}

TEST(Nexthop, GroupTypeOfAWrongSize) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, grp(1, 0)), attr(3, u32(1))}), 0)});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_FALSE(only_nh(d).resilient);
}

TEST(Nexthop, GroupLengthNotAMultipleOf8) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, cat({grp(1, 0), u32(2)}))}), 0)});
    EXPECT_EQ(d.count(reason::nh_bad_group), 1u);
    const auto& nh = only_nh(d);  // emitted without members: unresolved, never a wrong group
    EXPECT_TRUE(nh.group.empty());
    EXPECT_FALSE(nh.path);
}

TEST(Nexthop, GroupMemberZero) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, cat({grp(1, 0), grp(0, 0), grp(2, 1)}))}), 0)});
    EXPECT_EQ(d.count(reason::nh_bad_group), 1u);
    const std::vector<rib::nexthop_group_member> want{{1, 1}, {2, 2}};
    EXPECT_EQ(only_nh(d).group, want);
}

TEST(Nexthop, GroupListsItself) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(40)), attr(2, cat({grp(40, 0), grp(2, 0)}))}), 0)});
    EXPECT_EQ(d.count(reason::nh_group_self), 1u);
    const std::vector<rib::nexthop_group_member> want{{2, 1}};
    EXPECT_EQ(only_nh(d).group, want);
}

TEST(Nexthop, MissingId) {
    auto d = decode_msgs({nh_msg(cat({attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::nh_no_id), 1u);
    EXPECT_TRUE(d.out.empty());
    auto del = decode_msgs({nlmsg(delnh, nhmsg(0, 0))});
    EXPECT_EQ(del.count(reason::nh_no_id), 1u);
    EXPECT_TRUE(del.out.empty());
}

TEST(Nexthop, IdZero) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(0)), attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::nh_no_id), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Nexthop, IdOfAWrongSize) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u16(7)), attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_EQ(d.count(reason::nh_no_id), 0u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Nexthop, DuplicateIdKeepsTheFirst) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(1, u32(8)), attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::attr_duplicate), 1u);
    EXPECT_EQ(only_nh(d).id, 7u);
}

TEST(Nexthop, ShortNhmsg) {
    auto d = decode_msgs({nlmsg(newnh, hex("02000b00 000000"))});
    EXPECT_EQ(d.count(reason::nlmsg_body_short), 1u);
    EXPECT_TRUE(d.out.empty());
}

TEST(Nexthop, BadGatewayLeavesNoPath) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(6, hex("0a000102 0a")), attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::route_bad_gateway), 1u);
    const auto& nh = only_nh(d);
    EXPECT_EQ(nh.id, 7u);
    EXPECT_FALSE(nh.path);
}

TEST(Nexthop, BadOifLeavesNoPath) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(6, addr("10.0.1.2")), attr(5, hex("040000"))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_FALSE(only_nh(d).path);
}

TEST(Nexthop, BlackholeWithAPayload) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(4, u32(1))}))});
    EXPECT_EQ(d.count(reason::attr_bad_len), 1u);
    EXPECT_FALSE(only_nh(d).blackhole);
}

TEST(Nexthop, TruncatedAttributesKeepTheIdButNoPath) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(5, u32(4)), hex("0c000600 0a000102")}))});
    EXPECT_EQ(d.count(reason::attr_truncated), 1u);
    const auto& nh = only_nh(d);
    EXPECT_EQ(nh.id, 7u);
    EXPECT_FALSE(nh.path);
}

TEST(Nexthop, UnknownAttributes) {
    // NHA_GROUPS (9), NHA_MASTER (10), NHA_FDB (11).
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(9, {}), attr(10, u32(1)), attr(11, {}), attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::ignored_attr), 3u);
    EXPECT_EQ(d.errors(), 0u);
    EXPECT_EQ(only_nh(d).path->ifindex, 4u);
}

TEST(Nexthop, MplsThenSeg6) {
    // bgpd SRv6 VPN nexthop in NHG mode: two NHA_ENCAP_TYPE/NHA_ENCAP pairs, MPLS label 16 then SEG6.
    const buf attrs = cat({attr(1, u32(60)), attr(6, addr("10.12.0.2")), attr(5, u32(3)), attr(7, u16(1)),
                           nest(8, attr(1, hex("00 01 01 00"))), attr(7, u16(5)),
                           nest(8, attr(1, cat({u32(1), hex("00 02 04 00 00 00 00 00"), addr("fc00:0:2:0:1::")})))});
    auto d = decode_msgs({nh_msg(attrs)});
    EXPECT_EQ(d.errors(), 0u) << d.reasons_text();
    const auto& p = only_nh(d).path;
    ASSERT_TRUE(p);
    EXPECT_EQ(p->mpls_labels, std::vector<uint32_t>{16});
    ASSERT_TRUE(p->seg6);
    EXPECT_EQ(p->seg6->segments, std::vector<rib::ip6_addr>{*rib::parse_ip6("fc00:0:2:0:1::")});
    EXPECT_EQ(p->gateway, ip("10.12.0.2"));
}

TEST(Nexthop, UnpairedEncap) {
    auto d = decode_msgs({nh_msg(cat({attr(1, u32(7)), attr(5, u32(4)), nest(8, attr(1, u32(1)))}))});
    EXPECT_EQ(d.count(reason::attr_encap_unpaired), 1u);
    const auto& nh = only_nh(d);
    ASSERT_TRUE(nh.path);
    EXPECT_FALSE(nh.path->local);
}

TEST(Nexthop, DeleteIsStillValidated) {
    auto d = decode_msgs({nlmsg(delnh, cat({nhmsg(0, 0), attr(1, u32(12)), attr(2, u32(1))}))});
    EXPECT_EQ(d.count(reason::nh_bad_group), 0u);  // a group is only read on NEW
    ASSERT_EQ(d.out.size(), 1u);
    EXPECT_EQ(body<nexthop_delete>(d.out[0]).id, 12u);
    auto bad = decode_msgs({nlmsg(delnh, cat({nhmsg(0, 0), attr(1, u32(12)), attr(5, u16(1))}))});
    EXPECT_EQ(bad.count(reason::attr_bad_len), 1u);
    EXPECT_EQ(bad.out.size(), 1u);
}

TEST(Nexthop, MalformedNexthopDoesNotStopTheFrame) {
    auto d = decode_msgs({nh_msg(attr(5, u32(4))), nh_msg(cat({attr(1, u32(9)), attr(5, u32(4))}))});
    EXPECT_EQ(d.count(reason::nh_no_id), 1u);
    EXPECT_EQ(only_nh(d).id, 9u);
}

}  // namespace
}  // namespace fpm::test
