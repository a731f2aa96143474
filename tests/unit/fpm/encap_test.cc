// apply_encap (one ENCAP_TYPE/ENCAP pair onto a nexthop), decode_mpls and SONiC's type 101.
#include <gtest/gtest.h>

#include <utility>

#include "fpm/decoder.hh"
#include "tests/unit/fpm/encap_util.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace encap_test;

constexpr uint16_t encap_mpls = 1, encap_ip = 2, encap_ip6 = 4, encap_seg6 = 5, encap_seg6_local = 7,
                   encap_vxlan = 100, encap_sonic = 101;
constexpr uint16_t mpls_dst = 1, mpls_ttl = 2;
constexpr uint16_t sonic_vpn_sid = 1, sonic_src = 2, sonic_pic_id = 3, sonic_nh_id = 4, sonic_sidlist_name = 5,
                   sonic_sidlist = 7;

// The ENCAP_TYPE/ENCAP pairs of one captured FPM frame holding one route or nexthop message,
// in wire order (what "nl" hands to apply_encap).
std::vector<std::pair<uint16_t, buf>> encap_pairs_of(const buf& frame) {
    nl::message_walker msgs(nl::bytes(frame).subspan(4));
    const auto m = msgs.next();
    if (!m)
        throw std::invalid_argument("no netlink message");
    const bool route = m->hdr.type == 24 || m->hdr.type == 25;
    const size_t fixed = route ? 12 : 8;                      // rtmsg / nhmsg
    const uint16_t type_attr = route ? 21 : 7, nest_attr = route ? 22 : 8;
    std::vector<std::pair<uint16_t, buf>> out;
    std::optional<uint16_t> type;
    nl::attr_walker walk(m->body.subspan(fixed));
    while (auto a = walk.next()) {
        if (a->type == type_attr)
            type = nl::get_exact<uint16_t>(a->payload);  // rta_len 6: the padding is not ours to read
        else if (a->type == nest_attr && type)
            out.emplace_back(*type, buf(a->payload.begin(), a->payload.end()));
    }
    return out;
}

rib::seg6_encap h_encaps(std::initializer_list<std::string_view> visiting,
                         rib::encap_mode mode = rib::encap_mode::encap) {
    rib::seg6_encap e;
    e.mode = mode;
    for (auto v : visiting)
        e.segments.push_back(ip6(v));
    return e;
}

buf one_sid_seg6(std::string_view sid) {
    return attr(1, cat({host<int32_t>(1), buf{0, 2, 4, 0, 0, 0, 0, 0}, bytes_of(ip6(sid))}));
}
buf label_entry(uint32_t label, bool bos) {  // network order, TC 0, TTL 0 as zebra builds it
    const uint32_t e = label << 12 | (bos ? 0x100u : 0u);
    return {static_cast<uint8_t>(e >> 24), static_cast<uint8_t>(e >> 16), static_cast<uint8_t>(e >> 8),
            static_cast<uint8_t>(e)};
}

// ---- real frames

// Non-NHG End.B6.Encaps: the route carries SEG6_LOCAL, then SEG6 with the same SIDs.
TEST(ApplyEncap, SeglocalThenSeg6OnOneInlineRoute) {
    // frr10-capture c2-sharp-seg6local nonhg.txt conn 1 #25 (fc00:0:1::14/128)
    const buf frame = hex(
        "010100d4d00000001800010500000000e89665f10a800000fec200010000000014000100fc0000000001000000000000000000"
        "140800060014000000060015000700000038001680080001000a0000002c0002000004040101000000fc0000000003000000"
        "00000000000001fc00000000020000000000000000000106001500050003003400168030000100010000000004040101000000"
        "fc000000000300000000000000000001fc00000000020000000000000000000114000500fc00000100000000000000000000"
        "00020800040003000000");
    const auto pairs = encap_pairs_of(frame);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].first, encap_seg6_local);
    EXPECT_EQ(pairs[1].first, encap_seg6);

    counted c;
    rib::nexthop nh;
    for (const auto& [type, nest] : pairs)
        apply_encap(type, nest, c.ctx, nh);
    ASSERT_TRUE(nh.local);
    EXPECT_EQ(nh.local->action, rib::behavior::end_b6_encaps);
    ASSERT_TRUE(nh.local->srh);
    EXPECT_EQ(*nh.local->srh, h_encaps({"fc00:0:2::1", "fc00:0:3::1"}));
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(*nh.seg6, h_encaps({"fc00:0:2::1", "fc00:0:3::1"}));
    EXPECT_EQ(c.total(), 0u);
}

TEST(ApplyEncap, NexthopObjectWithJunkInTheTypePadding) {
    // frr10-capture c2-sharp-seg6local nhg.txt conn 1 #51 (NH 55): NHA_ENCAP_TYPE is 06 00 07 00 05 00 00 79.
    const buf frame = hex(
        "01010078740000006800010500000000fb2982a40a000b00000000000800010037000000080005000300000006000700050000"
        "794400088040000100030000000006040202000000fc000000000400000000000000000001fc0000000003000000000000000000"
        "01fc000000000200000000000000000001");
    const auto pairs = encap_pairs_of(frame);
    ASSERT_EQ(pairs.size(), 1u);
    counted c;
    rib::nexthop nh;
    apply_encap(pairs[0].first, pairs[0].second, c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(*nh.seg6, h_encaps({"fc00:0:2::1", "fc00:0:3::1", "fc00:0:4::1"}, rib::encap_mode::encap_red));
    EXPECT_TRUE(nh.mpls_labels.empty());
    EXPECT_FALSE(nh.local);
}

// bgpd SRv6 VPN nexthops: MPLS (the transposed function) then SEG6. The e-bgp-srv6-vpn captures
// are held back and 8.4.4's d2 is not in research/, so these follow the capture READMEs' text:
// 8.4.4 d2 label 4096 + fc00:0:2:0:100::, FRR 10 v64 label 16 + fc00:0:2:0:1::.
TEST(ApplyEncap, MplsThenSeg6AsBgpdSendsThem) {
    struct vpn {
        uint32_t label;
        const char* sid;
    };
    for (const vpn v : {vpn{4096, "fc00:0:2:0:100::"}, vpn{16, "fc00:0:2:0:1::"}, vpn{32, "fc00:0:2:0:2::"}}) {
        counted c;
        rib::nexthop nh;
        apply_encap(encap_mpls, attr(mpls_dst, label_entry(v.label, true)), c.ctx, nh);
        apply_encap(encap_seg6, one_sid_seg6(v.sid), c.ctx, nh);
        EXPECT_EQ(nh.mpls_labels, std::vector<uint32_t>{v.label});
        ASSERT_TRUE(nh.seg6);
        EXPECT_EQ(*nh.seg6, h_encaps({v.sid}));
        EXPECT_EQ(c.total(), 0u);
    }
}

TEST(ApplyEncap, SpecSketchOfALabelEntry) {
    // 4096 with BoS, TTL 0: 01 00 01 00 on the wire.
    counted c;
    rib::nexthop nh;
    apply_encap(encap_mpls, hex("08000100 01000100"), c.ctx, nh);
    EXPECT_EQ(nh.mpls_labels, std::vector<uint32_t>{4096});
}

// ---- dispatch rules

TEST(ApplyEncap, UnusedEncapTypesAreCountedAndIgnored) {
    for (uint16_t t : {uint16_t{0}, encap_ip, encap_ip6, uint16_t{6}, encap_vxlan, uint16_t{0xffff}}) {
        counted c;
        rib::nexthop nh;
        apply_encap(t, one_sid_seg6("fc00::1"), c.ctx, nh);
        EXPECT_EQ(nh, rib::nexthop{}) << t;
        EXPECT_TRUE(c.only(reason::ignored_encap_type)) << t;
    }
}

TEST(ApplyEncap, SecondSeg6KeepsTheFirst) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_seg6, one_sid_seg6("fc00::1"), c.ctx, nh);
    apply_encap(encap_seg6, one_sid_seg6("fc00::2"), c.ctx, nh);
    apply_encap(encap_sonic, attr(sonic_vpn_sid, bytes_of(ip6("fc00::3"))), c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(*nh.seg6, h_encaps({"fc00::1"}));
    EXPECT_EQ(c[reason::attr_duplicate], 2u);
    EXPECT_EQ(c.total(), 2u);
}

TEST(ApplyEncap, SecondSeg6localKeepsTheFirst) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_seg6_local, attr(1, host<uint32_t>(1)), c.ctx, nh);
    apply_encap(encap_seg6_local, cat({attr(1, host<uint32_t>(3)), attr(3, host<uint32_t>(10))}), c.ctx, nh);
    ASSERT_TRUE(nh.local);
    EXPECT_EQ(nh.local->action, rib::behavior::end);
    EXPECT_TRUE(c.only(reason::attr_duplicate));
}

TEST(ApplyEncap, SecondMplsKeepsTheFirst) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_mpls, attr(mpls_dst, label_entry(16, true)), c.ctx, nh);
    apply_encap(encap_mpls, attr(mpls_dst, label_entry(32, true)), c.ctx, nh);
    EXPECT_EQ(nh.mpls_labels, std::vector<uint32_t>{16});
    EXPECT_TRUE(c.only(reason::attr_duplicate));
}

// A nest that fails leaves the nexthop without that encap, and the other encaps intact.
TEST(ApplyEncap, FailureLeavesNothingHalfFilled) {
    counted c;
    rib::nexthop nh;
    nh.ifindex = 3;
    apply_encap(encap_mpls, attr(mpls_dst, label_entry(16, true)), c.ctx, nh);
    apply_encap(encap_seg6, attr(1, cat({host<int32_t>(1), buf{0, 4, 4, 0, 1, 0, 0, 0}, bytes_of(ip6("fc00::1"))})),
                c.ctx, nh);
    apply_encap(encap_seg6_local, attr(1, host<uint32_t>(2)), c.ctx, nh);  // End.X without NH6
    EXPECT_FALSE(nh.seg6);
    EXPECT_FALSE(nh.local);
    EXPECT_EQ(nh.mpls_labels, std::vector<uint32_t>{16});
    EXPECT_EQ(nh.ifindex, 3u);
    EXPECT_EQ(c[reason::seg6_bad_srh], 1u);
    EXPECT_EQ(c[reason::seg6local_missing_attr], 1u);
    EXPECT_EQ(c.total(), 2u);
    // A later good seg6 pair is not blocked by the failed one.
    apply_encap(encap_seg6, one_sid_seg6("fc00::1"), c.ctx, nh);
    EXPECT_TRUE(nh.seg6);
}

// ---- MPLS

TEST(Mpls, LabelStackInOrder) {
    counted c;
    std::vector<uint32_t> labels;
    const buf nest = cat({attr(mpls_ttl, {64}),
                          attr(mpls_dst, cat({label_entry(100, false), label_entry(0xfffff, false), label_entry(16, true)}))});
    ASSERT_TRUE(decode_mpls(nest, c.ctx, labels));
    EXPECT_EQ(labels, (std::vector<uint32_t>{100, 0xfffff, 16}));
    EXPECT_TRUE(c.only(reason::ignored_attr));  // the TTL
}

TEST(Mpls, TcAndTtlBitsAreNotPartOfTheLabel) {
    counted c;
    std::vector<uint32_t> labels;
    ASSERT_TRUE(decode_mpls(attr(mpls_dst, {0x00, 0x01, 0x0f, 0xff}), c.ctx, labels));  // label 16, TC 7, BoS, TTL 255
    EXPECT_EQ(labels, std::vector<uint32_t>{16});
}

struct bad_case {
    const char* what;
    buf nest;
    reason expect;
    friend void PrintTo(const bad_case& c, std::ostream* os) { *os << c.what; }
};

class MplsMalformed : public ::testing::TestWithParam<bad_case> {};

TEST_P(MplsMalformed, IsRejectedAndCounted) {
    const auto& tc = GetParam();
    counted c;
    std::vector<uint32_t> labels{7};
    EXPECT_FALSE(decode_mpls(tc.nest, c.ctx, labels)) << tc.what;
    EXPECT_TRUE(c.only(tc.expect)) << tc.what << ": counted " << c.total();
    EXPECT_EQ(labels, std::vector<uint32_t>{7});
}

buf truncated_mpls() {
    buf n = attr(mpls_dst, label_entry(16, true));
    n.insert(n.end(), {0x08, 0x00});
    return n;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MplsMalformed,
    ::testing::Values(bad_case{"no MPLS_IPTUNNEL_DST", {}, reason::mpls_no_labels},
                      bad_case{"empty label stack", attr(mpls_dst, {}), reason::mpls_no_labels},
                      bad_case{"6-byte label stack", attr(mpls_dst, {0, 1, 1, 0, 0, 2}), reason::attr_bad_len},
                      bad_case{"label stack twice",
                               cat({attr(mpls_dst, label_entry(16, true)), attr(mpls_dst, label_entry(16, true))}),
                               reason::attr_duplicate},
                      bad_case{"nest truncated", truncated_mpls(), reason::attr_truncated}));

// ---- SONiC type 101 (fpm-protocol.md §3.4; no SONiC capture exists, layout from the spec table)

TEST(SonicVpn, SidAndSourceMakeAnHEncaps) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_sonic,
                cat({attr(sonic_vpn_sid, bytes_of(ip6("fc00:0:2:1::"))), attr(sonic_src, bytes_of(ip6("fc00:0:1::1")))}),
                c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    auto want = h_encaps({"fc00:0:2:1::"});
    want.source = ip6("fc00:0:1::1");
    EXPECT_EQ(*nh.seg6, want);
    EXPECT_EQ(c.total(), 0u);
}

TEST(SonicVpn, UnspecifiedSourceMeansNone) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_sonic, cat({attr(sonic_vpn_sid, bytes_of(ip6("fc00:0:2:1::"))), attr(sonic_src, buf(16, 0))}),
                c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    EXPECT_FALSE(nh.seg6->source);
}

TEST(SonicVpn, NamedSidList) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_sonic, attr(sonic_sidlist_name, {'s', 'l', '1', 0}), c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(nh.seg6->sidlist_name, "sl1");
    EXPECT_TRUE(nh.seg6->segments.empty());
    EXPECT_EQ(c.total(), 0u);
}

// PIC_ID/NH_ID are route-level (3000 messages); on a nexthop they are neither encap nor error.
TEST(SonicVpn, PicAndNhIdsAloneAddNothing) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_sonic, cat({attr(sonic_pic_id, host<uint32_t>(12)), attr(sonic_nh_id, host<uint32_t>(0))}),
                c.ctx, nh);
    EXPECT_FALSE(nh.seg6);
    EXPECT_EQ(c.total(), 0u);

    apply_encap(encap_sonic,
                cat({attr(sonic_pic_id, host<uint32_t>(12)), attr(sonic_vpn_sid, bytes_of(ip6("fc00:0:2:1::")))}),
                c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(*nh.seg6, h_encaps({"fc00:0:2:1::"}));
    EXPECT_EQ(c.total(), 0u);
}

TEST(SonicVpn, SidListBodyIsNotForRoutes) {
    counted c;
    rib::nexthop nh;
    apply_encap(encap_sonic, cat({attr(sonic_vpn_sid, bytes_of(ip6("fc00::1"))), attr(sonic_sidlist, {1, 2})}), c.ctx,
                nh);
    EXPECT_TRUE(nh.seg6);
    EXPECT_TRUE(c.only(reason::ignored_attr));
}

class SonicMalformed : public ::testing::TestWithParam<bad_case> {};

TEST_P(SonicMalformed, IsRejectedAndCounted) {
    const auto& tc = GetParam();
    counted c;
    rib::nexthop nh;
    apply_encap(encap_sonic, tc.nest, c.ctx, nh);
    EXPECT_FALSE(nh.seg6) << tc.what;
    EXPECT_TRUE(c.only(tc.expect)) << tc.what << ": counted " << c.total();
}

buf truncated_sonic() {
    buf n = attr(sonic_vpn_sid, bytes_of(ip6("fc00::1")));
    n.insert(n.end(), {0x14, 0x00, 0x02, 0x00});
    return n;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SonicMalformed,
    ::testing::Values(bad_case{"VPN_SID of 4 bytes", attr(sonic_vpn_sid, {1, 2, 3, 4}), reason::sonic_bad_vpn_encap},
                      bad_case{"ENCAP_SRC_ADDR of 4 bytes",
                               cat({attr(sonic_vpn_sid, bytes_of(ip6("fc00::1"))), attr(sonic_src, {1, 2, 3, 4})}),
                               reason::sonic_bad_vpn_encap},
                      bad_case{"source without a SID", attr(sonic_src, bytes_of(ip6("fc00::1"))),
                               reason::sonic_bad_vpn_encap},
                      bad_case{"VPN_SID twice",
                               cat({attr(sonic_vpn_sid, bytes_of(ip6("fc00::1"))),
                                    attr(sonic_vpn_sid, bytes_of(ip6("fc00::2")))}),
                               reason::attr_duplicate},
                      bad_case{"nest truncated", truncated_sonic(), reason::attr_truncated}));

}  // namespace
}  // namespace fpm
