// The extension-header walker and the SRH view on hand-built byte strings.
#include <gtest/gtest.h>

#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srh.hh"
#include "tests/unit/forward/endpoint_pkt.hh"

namespace fwd::test {
namespace SRV6D_UNITY_ID {

using ip6::ext_status;

ip6::ext_cursor walk(const bytes& b, bool stop_at_routing, ext_status want, uint8_t max = ip6::max_ext_headers) {
    ip6::ext_cursor c = ip6::ext_begin(b.data());
    EXPECT_EQ(ip6::ext_walk(b.data(), static_cast<uint32_t>(b.size()), c, stop_at_routing, max), want);
    return c;
}

TEST(Ip6Ext, NoExtensionHeaders) {
    const bytes b = ip6_packet(64, "::1", "::2", {inner4("10.0.0.1", "10.0.0.2")});
    const auto c = walk(b, true, ext_status::ok);
    EXPECT_EQ(c.nh, 4);
    EXPECT_EQ(c.off, 40u);
    EXPECT_EQ(c.nh_off, 6u);
    EXPECT_EQ(c.count, 0);
}

TEST(Ip6Ext, StopsAtTheRoutingHeaderWithThePrecedingNextHeader) {
    const bytes b = ip6_packet(64, "::1", "::2", {opts(0), opts(60, 2), srh(1, {"::a", "::b"}), opts(60)});
    auto c = walk(b, true, ext_status::ok);
    EXPECT_EQ(c.nh, 43);
    EXPECT_EQ(c.off, 40u + 8 + 16);
    EXPECT_EQ(c.nh_off, 40u + 8);  // the second Destination Options names the SRH
    EXPECT_EQ(c.count, 2);
    // Resuming passes the SRH and the trailing Destination Options.
    ASSERT_EQ(ip6::ext_walk(b.data(), static_cast<uint32_t>(b.size()), c, false), ext_status::ok);
    EXPECT_EQ(c.nh, 59);
    EXPECT_EQ(c.off, static_cast<uint32_t>(b.size()));
    EXPECT_EQ(c.count, 4);
}

TEST(Ip6Ext, AuthenticationHeaderLengthIsInFourOctetUnits) {
    // AH with Payload Len 4: (4 + 2) * 4 = 24 bytes, then UDP.
    bytes ah(24);
    ah[1] = 4;
    bytes b = ip6_packet(64, "::1", "::2", {{51, ah}, {17, bytes(8)}});
    const auto c = walk(b, false, ext_status::ok);
    EXPECT_EQ(c.nh, 17);
    EXPECT_EQ(c.off, 64u);
}

TEST(Ip6Ext, EspIsTheUpperLayer) {
    const bytes b = ip6_packet(64, "::1", "::2", {opts(60), {50, bytes(16, 0xee)}});
    const auto c = walk(b, false, ext_status::ok);
    EXPECT_EQ(c.nh, 50);
    EXPECT_EQ(c.off, 48u);
}

TEST(Ip6Ext, ChainLengthIsBounded) {
    std::vector<layer> eight(8, opts(60));
    const bytes ok = ip6_packet(64, "::1", "::2", eight);
    EXPECT_EQ(walk(ok, false, ext_status::ok).count, 8);
    std::vector<layer> nine(9, opts(60));
    const bytes long_chain = ip6_packet(64, "::1", "::2", nine);
    EXPECT_EQ(walk(long_chain, false, ext_status::too_long).count, 8);
    // The budget is a parameter.
    walk(ok, false, ext_status::too_long, 3);
}

TEST(Ip6Ext, TruncatedHeadersAreNotPassed) {
    const bytes full = ip6_packet(64, "::1", "::2", {opts(60, 3)});
    bytes cut(full.begin(), full.end() - 1);  // last byte of the 24-byte header missing
    auto c = walk(cut, false, ext_status::truncated);
    EXPECT_EQ(c.nh, 60);
    EXPECT_EQ(c.off, 40u);
    bytes stub(full.begin(), full.begin() + 45);  // not even the 8 bytes every header has
    walk(stub, false, ext_status::truncated);
    walk(full, false, ext_status::ok);
}

TEST(Ip6Ext, HopByHopOnlyFirst) {
    walk(ip6_packet(64, "::1", "::2", {opts(0), opts(60)}), false, ext_status::ok);
    walk(ip6_packet(64, "::1", "::2", {opts(60), opts(0)}), false, ext_status::hbh_misplaced);
}

TEST(Ip6Ext, FragmentsStopTheWalkButAtomicFragmentsPass) {
    const auto atomic = walk(ip6_packet(64, "::1", "::2", {frag(0, false), inner4("1.1.1.1", "2.2.2.2")}),
                             false, ext_status::ok);
    EXPECT_EQ(atomic.nh, 4);
    walk(ip6_packet(64, "::1", "::2", {frag(0, true), inner4("1.1.1.1", "2.2.2.2")}), false, ext_status::fragment);
    walk(ip6_packet(64, "::1", "::2", {frag(100, false), {17, bytes(8)}}), false, ext_status::fragment);
}

TEST(SrhView, BoundsComeFromHdrExtLen) {
    bytes b = srh(1, {"fc00::1", "fc00::2"}).b;  // 40 bytes, Hdr Ext Len 4
    srh_view v;
    EXPECT_EQ(srh_view::make(b.data(), 7, v), srh_status::truncated);
    EXPECT_EQ(srh_view::make(b.data(), 39, v), srh_status::truncated);
    ASSERT_EQ(srh_view::make(b.data(), 40, v), srh_status::ok);
    EXPECT_EQ(v.length(), 40u);
    EXPECT_EQ(v.segments_left(), 1);
    EXPECT_EQ(v.last_entry(), 1);
    EXPECT_EQ(v.tag(), 0x0bad);
    EXPECT_EQ(v.segment(1)[15], 2);
    EXPECT_EQ(v.validate(), srh_status::ok);
}

TEST(SrhView, LastEntryMustFitHdrExtLen) {
    bytes b = srh(0, {"fc00::1", "fc00::2"}).b;
    srh_view v;
    ASSERT_EQ(srh_view::make(b.data(), 40, v), srh_status::ok);
    b[4] = 1;  // max_LE = 4/2 - 1 = 1
    EXPECT_EQ(v.validate(), srh_status::ok);
    b[4] = 2;
    EXPECT_EQ(v.validate(), srh_status::bad_len);
    b[1] = 0;  // no room for any segment: max_LE = -1
    b[4] = 0;
    ASSERT_EQ(srh_view::make(b.data(), 40, v), srh_status::ok);
    EXPECT_EQ(v.validate(), srh_status::bad_len);
    b[1] = 3;  // odd length: 24 bytes of list + 8 of TLV, max_LE = 0
    ASSERT_EQ(srh_view::make(b.data(), 40, v), srh_status::ok);
    EXPECT_EQ(v.validate(), srh_status::ok);
}

TEST(SrhView, SegmentsLeftAtMostLastEntryPlusOne) {
    bytes b = srh(2, {"fc00::1", "fc00::2"}).b;  // reduced SRH: SL = LE + 1 is allowed
    srh_view v;
    ASSERT_EQ(srh_view::make(b.data(), 40, v), srh_status::ok);
    EXPECT_EQ(v.validate(), srh_status::ok);
    b[3] = 3;
    EXPECT_EQ(v.validate(), srh_status::segments_left);
}

}  // namespace
}  // namespace fwd::test
