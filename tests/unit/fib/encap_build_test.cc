// Pre-built headend headers, byte-exact: literal fixtures for the common cases, then every mode
// with 1, 2, 3 and 8 SIDs checked field by field against RFC 8200 §3 (IPv6), RFC 8754 §2 (SRH)
// and RFC 8986 §5.1/§5.2 (H.Encaps / H.Encaps.Red), and the SRH FRR itself sends for H.Encaps
// (frr10-capture d-encaps, STEP4) as a cross-check of the SID order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fib/control/encap_build.hh"
#include "tests/support/bytes.hh"

namespace fib {
namespace SRV6D_UNITY_ID {

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }

std::vector<uint8_t> hex(const std::string& s) { return test_support::parse_hex(s); }

std::vector<rib::ip6_addr> sids(size_t n) {
    std::vector<rib::ip6_addr> out;
    for (size_t i = 0; i < n; ++i) {
        rib::ip6_addr a = a6("fc00::");
        a.bytes[5] = static_cast<uint8_t>(i + 1);  // fc00:0:N::1: the Nth SID
        a.bytes[15] = 1;
        out.push_back(a);
    }
    return out;
}

const rib::ip6_addr src = a6("2001:db8::1");

// The bytes the headend prepends.
std::vector<uint8_t> wire(const encap_build& b) { return {b.tmpl.wire().begin(), b.tmpl.wire().end()}; }

TEST(encap_template, h_encaps_one_sid_literal) {
    const auto s = std::vector<rib::ip6_addr>{a6("fc00:0:2::100")};
    const auto b = build_encap_template(rib::encap_mode::encap, s, src, ipproto::ipv6);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(wire(b), hex("60000000 0000 2b 40"                       // ver 6, plen 0, nh SRH, hlim 64
                                "20010db8000000000000000000000001"          // SA
                                "fc000000000200000000000000000100"          // DA = the SID
                                "29 02 04 00 00 00 0000"                    // nh IPv6, len 2, type 4, SL 0, LE 0
                                "fc000000000200000000000000000100"));       // list[0]
    EXPECT_EQ(b.tmpl.next_header_off, 40);
}

TEST(encap_template, h_encaps_red_two_sids_literal) {
    const auto s = std::vector<rib::ip6_addr>{a6("fc00:0:2::1"), a6("fc00:0:3::1")};
    const auto b = build_encap_template(rib::encap_mode::encap_red, s, src, ipproto::ipip);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(wire(b), hex("60000000 0000 2b 40"
                                "20010db8000000000000000000000001"
                                "fc000000000200000000000000000001"          // DA = first SID
                                "04 02 04 01 00 00 0000"                    // nh IPv4, len 2, SL 1, LE 0
                                "fc000000000300000000000000000001"));       // only the second SID
}

TEST(encap_template, h_encaps_red_one_sid_has_no_srh) {
    const auto s = std::vector<rib::ip6_addr>{a6("fc00:0:2::d4")};
    const auto b = build_encap_template(rib::encap_mode::encap_red, s, src, ipproto::ipip);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(wire(b), hex("60000000 0000 04 40"                       // nh IPv4 directly
                                "20010db8000000000000000000000001"
                                "fc0000000002000000000000000000d4"));
    EXPECT_EQ(b.tmpl.next_header_off, 6);
    EXPECT_EQ(b.tmpl.srh_entries, 0);
}

TEST(encap_template, h_encaps_srh_equals_what_frr_sends) {
    // d-encaps STEP4: static route ... segments fc00:0:2::1/fc00:0:3::1/fc00:0:4::1, the
    // SEG6_IPTUNNEL_SRH payload after its 4-byte mode (nexthdr 0: the kernel fills it in).
    const auto frr = hex("0006040202000000"
                         "fc000000000400000000000000000001"
                         "fc000000000300000000000000000001"
                         "fc000000000200000000000000000001");
    const auto s = std::vector<rib::ip6_addr>{a6("fc00:0:2::1"), a6("fc00:0:3::1"), a6("fc00:0:4::1")};
    const auto b = build_encap_template(rib::encap_mode::encap, s, src, ipproto::ipv6);
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(wire(b).size(), 40 + frr.size());
    EXPECT_EQ(wire(b)[40], ipproto::ipv6);
    EXPECT_TRUE(std::equal(frr.begin() + 1, frr.end(), wire(b).begin() + 41));
}

struct mode_case {
    rib::encap_mode mode;
    size_t n;
};

class encap_modes : public ::testing::TestWithParam<mode_case> {};

TEST_P(encap_modes, field_by_field) {
    const auto [mode, n] = GetParam();
    const auto s = sids(n);
    const bool l2 = mode == rib::encap_mode::l2encap || mode == rib::encap_mode::l2encap_red;
    const bool red = mode == rib::encap_mode::encap_red || mode == rib::encap_mode::l2encap_red;
    const auto b = build_encap_template(mode, s, src, ipproto::ipip);
    ASSERT_TRUE(b.ok());
    const auto& t = wire(b);
    const uint8_t inner = l2 ? 143 : 4;
    const size_t entries = red ? n - 1 : n;  // RFC 8986 §5.2: the first SID only in the DA
    const bool srh = entries > 0;

    // RFC 8200 §3: version 6, traffic class and flow label 0 until the dataplane writes them.
    ASSERT_EQ(t.size(), 40 + (srh ? 8 + 16 * entries : 0));
    EXPECT_EQ(t[0], 0x60);
    EXPECT_EQ(t[1], 0);
    EXPECT_EQ(t[2], 0);
    EXPECT_EQ(t[3], 0);
    EXPECT_EQ(t[4], 0);  // payload length: per packet
    EXPECT_EQ(t[5], 0);
    EXPECT_EQ(t[6], srh ? 43 : inner);
    EXPECT_EQ(t[7], 64);
    EXPECT_TRUE(std::equal(src.bytes.begin(), src.bytes.end(), t.begin() + 8)) << "SA = the resolved source";
    EXPECT_TRUE(std::equal(s[0].bytes.begin(), s[0].bytes.end(), t.begin() + 24)) << "DA = the first SID";
    EXPECT_EQ(b.tmpl.next_header_off, srh ? 40 : 6);
    EXPECT_EQ(b.tmpl.n_segments, n);
    if (!srh)
        return;
    // RFC 8754 §2.
    EXPECT_EQ(t[40], inner) << "next header";
    EXPECT_EQ(t[41], 2 * entries) << "hdr ext len in 8-octet units, not counting the first 8";
    EXPECT_EQ(t[42], 4) << "routing type";
    EXPECT_EQ(t[43], n - 1) << "segments left";
    EXPECT_EQ(t[44], entries - 1) << "last entry";
    EXPECT_EQ(t[45], 0) << "flags";
    EXPECT_EQ(t[46], 0) << "tag";
    EXPECT_EQ(t[47], 0);
    // Segment List[0] = the last SID; [segments left] = the active segment once the DA is done.
    for (size_t i = 0; i < entries; ++i) {
        const auto& want = s[n - 1 - i];
        EXPECT_TRUE(std::equal(want.bytes.begin(), want.bytes.end(), t.begin() + 48 + 16 * static_cast<long>(i)))
            << "list[" << i << "]";
    }
}

INSTANTIATE_TEST_SUITE_P(all, encap_modes,
                         ::testing::Values(mode_case{rib::encap_mode::encap, 1}, mode_case{rib::encap_mode::encap, 2},
                                           mode_case{rib::encap_mode::encap, 3}, mode_case{rib::encap_mode::encap, 8},
                                           mode_case{rib::encap_mode::encap_red, 1}, mode_case{rib::encap_mode::encap_red, 2},
                                           mode_case{rib::encap_mode::encap_red, 3}, mode_case{rib::encap_mode::encap_red, 8},
                                           mode_case{rib::encap_mode::l2encap, 1}, mode_case{rib::encap_mode::l2encap, 2},
                                           mode_case{rib::encap_mode::l2encap, 3}, mode_case{rib::encap_mode::l2encap, 8},
                                           mode_case{rib::encap_mode::l2encap_red, 1},
                                           mode_case{rib::encap_mode::l2encap_red, 2},
                                           mode_case{rib::encap_mode::l2encap_red, 3},
                                           mode_case{rib::encap_mode::l2encap_red, 8}));

TEST(encap_template, refusals) {
    EXPECT_EQ(build_encap_template(rib::encap_mode::inline_srh, sids(16), src, ipproto::ipv6).refusal,
              encap_refusal::too_many_segments)
        << "16 SIDs and the destination's slot";
    EXPECT_EQ(build_encap_template(rib::encap_mode::encap, {}, src, ipproto::ipv6).refusal, encap_refusal::no_segments);
    EXPECT_EQ(build_encap_template(rib::encap_mode::encap, sids(17), src, ipproto::ipv6).refusal,
              encap_refusal::too_many_segments);
    EXPECT_TRUE(build_encap_template(rib::encap_mode::encap, sids(16), src, ipproto::ipv6).ok());
    EXPECT_EQ(build_encap_template(rib::encap_mode::encap, sids(1), rib::ip6_addr{}, ipproto::ipv6).refusal,
              encap_refusal::no_source)
        << "never ::";
    EXPECT_EQ(name(encap_refusal::no_source), "encap_no_source");
}

}  // namespace
}  // namespace fib
