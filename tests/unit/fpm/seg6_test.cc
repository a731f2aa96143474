// decode_seg6 / decode_srh: LWTUNNEL_ENCAP_SEG6 nests from real zebra captures, then one test
// per malformed case. Capture nests are the NHA_ENCAP payloads of the cited frames
// (/work/shared/research/frr{,10}-capture/captures/<scenario>/<file>.txt, connection, frame #).
#include <gtest/gtest.h>

#include <string>

#include "fpm/decoder.hh"
#include "fpm/srh.hh"
#include "tests/unit/fpm/encap_util.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace encap_test;
using rib::encap_mode;

constexpr uint16_t seg6_iptunnel_srh = 1;
constexpr uint16_t seg6_iptunnel_src = 2;

std::vector<rib::ip6_addr> sids(std::initializer_list<std::string_view> l) {
    std::vector<rib::ip6_addr> out;
    for (auto s : l)
        out.push_back(ip6(s));
    return out;
}

// struct ipv6_sr_hdr + segments, as given (wire order) + optional TLV bytes.
buf srh(uint8_t hdrlen, uint8_t type, uint8_t segments_left, uint8_t first_segment,
        std::initializer_list<std::string_view> wire_segments, const buf& tlvs = {}) {
    buf out = {0, hdrlen, type, segments_left, first_segment, 0, 0, 0};
    for (auto s : wire_segments) {
        const auto a = ip6(s);
        out.insert(out.end(), a.bytes.begin(), a.bytes.end());
    }
    out.insert(out.end(), tlvs.begin(), tlvs.end());
    return out;
}
buf srh_attr(int32_t mode, const buf& srh_bytes) { return attr(seg6_iptunnel_srh, cat({host(mode), srh_bytes})); }
// A well-formed one-SID nest, the shape 8.4.4 always sends.
buf one_sid_nest() { return srh_attr(1, srh(2, 4, 0, 0, {"fc00:0:2::100"})); }

struct capture_case {
    const char* where;
    const char* nest;
    encap_mode mode;
    std::vector<rib::ip6_addr> visiting;
    friend void PrintTo(const capture_case& c, std::ostream* os) { *os << c.where; }
};

class Seg6Capture : public ::testing::TestWithParam<capture_case> {};

TEST_P(Seg6Capture, DecodesInVisitingOrder) {
    const auto& tc = GetParam();
    counted c;
    rib::seg6_encap e;
    ASSERT_TRUE(decode_seg6(hex(tc.nest), c.ctx, e)) << tc.where;
    EXPECT_EQ(e.mode, tc.mode);
    EXPECT_EQ(e.segments, tc.visiting);
    EXPECT_FALSE(e.source);
    EXPECT_TRUE(e.sidlist_name.empty());
    EXPECT_EQ(c.total(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Captures, Seg6Capture,
    ::testing::Values(
        // FRR 8.4.4: always one SID, mode ENCAP.
        capture_case{"frr-capture c-sharp-srv6 nhg.txt conn 1 #16 (NH 21)",
                     "20000100010000000002040000000000fc000000000200000000000000000100", encap_mode::encap,
                     sids({"fc00:0:2::100"})},
        // FRR 10.7 static segments, three SIDs, H.Encaps.
        capture_case{"frr10-capture d-encaps nhg.txt conn 1 #23 (NH 18)",
                     "40000100010000000006040202000000fc000000000400000000000000000001fc00000000030000"
                     "0000000000000001fc000000000200000000000000000001",
                     encap_mode::encap, sids({"fc00:0:2::1", "fc00:0:3::1", "fc00:0:4::1"})},
        capture_case{"frr10-capture d-encaps nhg.txt conn 1 #27 (NH 22, one uSID container)",
                     "20000100010000000002040000000000fcbbbbbb000200030004000000000000", encap_mode::encap,
                     sids({"fcbb:bbbb:2:3:4::"})},
        // H.Encaps.Red still carries the full list, one SID included.
        capture_case{"frr10-capture d-encaps nhg.txt conn 1 #29 (NH 24)",
                     "20000100030000000002040000000000fcbbbbbb000500000000000000000000", encap_mode::encap_red,
                     sids({"fcbb:bbbb:5::"})},
        capture_case{"frr10-capture d-encaps nhg.txt conn 1 #33 (NH 28, IPv4 route)",
                     "30000100030000000004040101000000fc000000000300000000000000000001fc00000000020000"
                     "0000000000000001",
                     encap_mode::encap_red, sids({"fc00:0:2::1", "fc00:0:3::1"})},
        capture_case{"frr10-capture c2-sharp-seg6local nhg.txt conn 1 #51 (NH 55, kernel encap.red)",
                     "40000100030000000006040202000000fc000000000400000000000000000001fc00000000030000"
                     "0000000000000001fc000000000200000000000000000001",
                     encap_mode::encap_red, sids({"fc00:0:2::1", "fc00:0:3::1", "fc00:0:4::1"})},
        // d2-max-segs: 6, 7 and 8 SIDs (8 = SRV6_MAX_SEGS, the most zebra passes on).
        capture_case{"frr10-capture d2-max-segs fpm.txt conn 1 #8 (NH 6)",
                     "7000010001000000000c040505000000fc000000000600000000000000000001fc00000000050000"
                     "0000000000000001fc000000000400000000000000000001fc00000000030000000000000000000"
                     "1fc000000000200000000000000000001fc000000000100000000000000000001",
                     encap_mode::encap,
                     sids({"fc00:0:1::1", "fc00:0:2::1", "fc00:0:3::1", "fc00:0:4::1", "fc00:0:5::1", "fc00:0:6::1"})},
        capture_case{"frr10-capture d2-max-segs fpm.txt conn 1 #10 (NH 8)",
                     "8000010001000000000e040606000000fc000000000700000000000000000001fc00000000060000"
                     "0000000000000001fc000000000500000000000000000001fc00000000040000000000000000000"
                     "1fc000000000300000000000000000001fc000000000200000000000000000001fc000000000100"
                     "000000000000000001",
                     encap_mode::encap,
                     sids({"fc00:0:1::1", "fc00:0:2::1", "fc00:0:3::1", "fc00:0:4::1", "fc00:0:5::1", "fc00:0:6::1",
                           "fc00:0:7::1"})},
        capture_case{"frr10-capture d2-max-segs fpm.txt conn 1 #12 (NH 10)",
                     "90000100010000000010040707000000fc000000000800000000000000000001fc00000000070000"
                     "0000000000000001fc000000000600000000000000000001fc00000000050000000000000000000"
                     "1fc000000000400000000000000000001fc000000000300000000000000000001fc000000000200"
                     "000000000000000001fc000000000100000000000000000001",
                     encap_mode::encap,
                     sids({"fc00:0:1::1", "fc00:0:2::1", "fc00:0:3::1", "fc00:0:4::1", "fc00:0:5::1", "fc00:0:6::1",
                           "fc00:0:7::1", "fc00:0:8::1"})}));

// fpm-protocol.md Appendix A: the inline pair exactly as sketched, walked like a route's attributes.
TEST(Seg6, SpecByteSketchOfAnInlinePair) {
    const buf route_attrs = cat({hex("06 00 15 00 05 00 00 00"  // RTA_ENCAP_TYPE = 5, padded to 8
                                     "24 00 16 80"              // RTA_ENCAP, len 36, NLA_F_NESTED
                                     "20 00 01 00"              // SEG6_IPTUNNEL_SRH, len 32
                                     "01 00 00 00"              // mode ENCAP
                                     "00 02 04 00 00 00 00 00"), // nexthdr, hdrlen 2, type 4, SL 0, LE 0, flags, tag
                                 bytes_of(ip6("fc00:0:2::100"))});
    nl::attr_walker walk(route_attrs);
    const auto type = walk.next();
    const auto nest = walk.next();
    ASSERT_TRUE(type && nest);
    EXPECT_FALSE(walk.next());
    EXPECT_FALSE(walk.truncated());
    ASSERT_EQ(type->type, 21);
    ASSERT_EQ(nest->type, 22);
    EXPECT_TRUE(nest->nested);

    counted c;
    rib::nexthop nh;
    apply_encap(*nl::get_exact<uint16_t>(type->payload), nest->payload, c.ctx, nh);
    ASSERT_TRUE(nh.seg6);
    EXPECT_EQ(nh.seg6->mode, encap_mode::encap);
    EXPECT_EQ(nh.seg6->segments, sids({"fc00:0:2::100"}));
    EXPECT_EQ(c.total(), 0u);
}

TEST(Seg6, EveryKernelModeIsKept) {
    for (int32_t mode = 0; mode <= 4; ++mode) {
        counted c;
        rib::seg6_encap e;
        ASSERT_TRUE(decode_seg6(srh_attr(mode, srh(2, 4, 0, 0, {"fc00::1"})), c.ctx, e)) << mode;
        EXPECT_EQ(static_cast<int32_t>(e.mode), mode);
    }
}

// FRR master (after 10.7) adds SEG6_IPTUNNEL_SRC for staticd's encap-source; no capture yet.
TEST(Seg6, SourceAttributeInEitherOrder) {
    const buf src = attr(seg6_iptunnel_src, bytes_of(ip6("fc00:0:1::1")));
    for (const buf& nest : {cat({one_sid_nest(), src}), cat({src, one_sid_nest()})}) {
        counted c;
        rib::seg6_encap e;
        ASSERT_TRUE(decode_seg6(nest, c.ctx, e));
        ASSERT_TRUE(e.source);
        EXPECT_EQ(*e.source, ip6("fc00:0:1::1"));
        EXPECT_EQ(e.segments, sids({"fc00:0:2::100"}));
    }
}

TEST(Seg6, UnspecifiedSourceMeansNone) {
    counted c;
    rib::seg6_encap e;
    ASSERT_TRUE(decode_seg6(cat({one_sid_nest(), attr(seg6_iptunnel_src, buf(16, 0))}), c.ctx, e));
    EXPECT_FALSE(e.source);
}

// hdrlen covers TLVs after the segments (RFC 8754 §2.1): the list is still first_segment + 1 long.
TEST(Seg6, TlvsAfterTheSegmentsAreSkipped) {
    const buf padn = {4, 6, 0, 0, 0, 0, 0, 0};  // PadN TLV filling 8 bytes
    counted c;
    rib::seg6_encap e;
    ASSERT_TRUE(decode_seg6(srh_attr(1, srh(5, 4, 1, 1, {"fc00::2", "fc00::1"}, padn)), c.ctx, e));
    EXPECT_EQ(e.segments, sids({"fc00::1", "fc00::2"}));
    EXPECT_EQ(c.total(), 0u);
}

TEST(Seg6, UnknownAttributeIsCountedAndSkipped) {
    counted c;
    rib::seg6_encap e;
    ASSERT_TRUE(decode_seg6(cat({attr(9, host<uint32_t>(7)), one_sid_nest()}), c.ctx, e));
    EXPECT_EQ(e.segments, sids({"fc00:0:2::100"}));
    EXPECT_TRUE(c.only(reason::ignored_attr));
}

// ---- malformed input: each case trips exactly one check, and `out` is left alone.

struct bad_case {
    const char* what;
    buf nest;
    reason expect;
    friend void PrintTo(const bad_case& c, std::ostream* os) { *os << c.what; }
};

class Seg6Malformed : public ::testing::TestWithParam<bad_case> {};

TEST_P(Seg6Malformed, IsRejectedAndCounted) {
    const auto& tc = GetParam();
    counted c;
    rib::seg6_encap e;
    e.sidlist_name = "untouched";
    EXPECT_FALSE(decode_seg6(tc.nest, c.ctx, e)) << tc.what;
    EXPECT_TRUE(c.only(tc.expect)) << tc.what << ": counted " << c.total() << ", " << name(tc.expect) << " "
                                   << c[tc.expect];
    EXPECT_EQ(e.sidlist_name, "untouched");
    EXPECT_TRUE(e.segments.empty());

    // The next, good nest still decodes with the same context.
    rib::seg6_encap good;
    EXPECT_TRUE(decode_seg6(one_sid_nest(), c.ctx, good));
}

buf truncated_nest() {
    buf n = one_sid_nest();
    n.push_back(0x08);  // a second attribute header cut after 2 bytes
    n.push_back(0x00);
    return n;
}

buf segments_cut_short() {
    // frr10-capture d-encaps nhg.txt conn 1 #23 with rta_len 64 -> 56: the last segment loses 8 bytes.
    buf n = hex("40000100010000000006040202000000fc000000000400000000000000000001fc00000000030000"
                "0000000000000001fc000000000200000000000000000001");
    n.resize(56);
    n[0] = 56;
    return n;
}

buf past_the_list() {
    // first_segment 1 claims two segments, hdrlen 2 holds one; the SRC after it would be read as the second.
    return cat({srh_attr(1, srh(2, 4, 0, 1, {"fc00::1"})), attr(seg6_iptunnel_src, bytes_of(ip6("fc00::99")))});
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Seg6Malformed,
    ::testing::Values(
        bad_case{"no SRH attribute", attr(seg6_iptunnel_src, bytes_of(ip6("fc00::1"))), reason::seg6_no_srh},
        bad_case{"empty nest", {}, reason::seg6_no_srh},
        bad_case{"SRH twice", cat({one_sid_nest(), one_sid_nest()}), reason::attr_duplicate},
        bad_case{"SRC twice",
                 cat({one_sid_nest(), attr(seg6_iptunnel_src, bytes_of(ip6("fc00::1"))),
                      attr(seg6_iptunnel_src, bytes_of(ip6("fc00::2")))}),
                 reason::attr_duplicate},
        bad_case{"nest truncated", truncated_nest(), reason::attr_truncated},
        bad_case{"SRC of 4 bytes", cat({one_sid_nest(), attr(seg6_iptunnel_src, host<uint32_t>(1))}),
                 reason::attr_bad_len},
        bad_case{"SRH attribute without room for the mode", attr(seg6_iptunnel_srh, {1, 0, 0}), reason::seg6_bad_srh},
        bad_case{"SRH shorter than its 8-byte header", srh_attr(1, {0, 2, 4, 0}), reason::seg6_bad_srh},
        bad_case{"mode 5", srh_attr(5, srh(2, 4, 0, 0, {"fc00::1"})), reason::seg6_bad_mode},
        bad_case{"mode -1", srh_attr(-1, srh(2, 4, 0, 0, {"fc00::1"})), reason::seg6_bad_mode},
        bad_case{"routing type 3", srh_attr(1, srh(2, 3, 0, 0, {"fc00::1"})), reason::seg6_bad_srh},
        bad_case{"hdrlen claims more than the attribute holds", srh_attr(1, srh(4, 4, 0, 0, {"fc00::1"})),
                 reason::seg6_bad_srh},
        bad_case{"hdrlen claims less than the attribute holds", srh_attr(1, srh(2, 4, 0, 0, {"fc00::1", "fc00::2"})),
                 reason::seg6_bad_srh},
        bad_case{"segments cut short", segments_cut_short(), reason::seg6_bad_srh},
        bad_case{"first_segment past the list", past_the_list(), reason::seg6_bad_srh},
        bad_case{"segments_left past first_segment", srh_attr(1, srh(2, 4, 1, 0, {"fc00::1"})), reason::seg6_bad_srh},
        bad_case{"SRH without segments", srh_attr(1, srh(0, 4, 0, 0, {})), reason::seg6_no_segments}));

// decode_srh alone: the seg6local End.B6.Encaps path uses it on a bare SRH.
TEST(Srh, LeavesTheListAloneOnFailure) {
    counted c;
    std::vector<rib::ip6_addr> list = sids({"fc00::9"});
    EXPECT_FALSE(decode_srh(srh(2, 4, 0, 1, {"fc00::1"}), c.ctx, list));
    EXPECT_EQ(list, sids({"fc00::9"}));
    EXPECT_TRUE(decode_srh(srh(4, 4, 1, 1, {"fc00::2", "fc00::1"}), c.ctx, list));
    EXPECT_EQ(list, sids({"fc00::1", "fc00::2"}));
}

}  // namespace
}  // namespace fpm
