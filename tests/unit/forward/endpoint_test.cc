// SRv6 endpoint behaviors on real mbufs: known input bytes -> expected output bytes + action,
// for every behavior and flavor (RFC 8986 §4, RFC 9800 §4.1), and the malformed-packet set.
#include <gtest/gtest.h>

#include <algorithm>

#include <array>
#include <bitset>
#include <string>

#include "forward/datapath/srv6_endpoint.hh"
#include "rib/behaviors.hh"
#include "tests/unit/forward/endpoint_pkt.hh"

namespace fwd::test {
namespace SRV6D_UNITY_ID {

using rib::behavior;
namespace flv = rib::flavor;

struct outcome {
    endpoint_result r;
    bytes out;
};

outcome run(const bytes& in, const sid_params& p) {
    rte_mbuf* m = mbuf_of(in);
    EXPECT_NE(m, nullptr);
    if (m == nullptr)
        return {};
    const endpoint_result r = process_endpoint(m, p);
    outcome o{r, bytes_of(m)};
    rte_pktmbuf_free(m);
    return o;
}

sid_params sid(behavior b, uint32_t flavors = 0, uint32_t vrf = 0) {
    sid_params p;
    p.behavior = b;
    p.flavors = flavors;
    p.vrf = vrf;
    return p;
}

// Asserts the action (and VRF where it has one) and the exact output bytes.
void expect_out(const outcome& o, endpoint_action a, const bytes& want, uint32_t vrf = 0) {
    EXPECT_EQ(name(o.r.action), name(a)) << "dropped: " << name(o.r.reason);
    if (a == endpoint_action::forward_v6 || a == endpoint_action::lookup_v4 || a == endpoint_action::lookup_v6) {
        EXPECT_EQ(o.r.vrf, vrf);
    }
    EXPECT_EQ(hex(o.out), hex(want));
}

void expect_drop(const outcome& o, drop_reason r) {
    EXPECT_EQ(name(o.r.action), "drop");
    EXPECT_EQ(name(o.r.reason), name(r));
}

// Addresses: the packet travels fc00:0:1::e (End here) -> fc00:0:2::e -> fc00:0:3::d6.
constexpr const char* src = "fc00:0:a::1";
constexpr const char* s1 = "fc00:0:1::e";
constexpr const char* s2 = "fc00:0:2::e";
constexpr const char* s3 = "fc00:0:3::d6";

// ---------------------------------------------------------------- spec literals

// RFC 8986 §4.1 by hand: an SRH with two segments, SL 1, no payload (Next Header 59).
const bytes end_in = from_hex(
    "60000000 0028 2b 40"                      // plen 40, nh SRH, hop limit 64
    "fc000000000a00000000000000000001"         // src fc00:0:a::1
    "fc00000000010000000000000000000e"         // dst fc00:0:1::e
    "3b 04 04 01 01 00 0000"                   // nh 59, len 4, type 4, SL 1, LE 1
    "fc00000000020000000000000000000e"         // [0] fc00:0:2::e
    "fc00000000010000000000000000000e");       // [1] fc00:0:1::e

TEST(EndpointSpec, EndLiteral) {
    const bytes want = from_hex(
        "60000000 0028 2b 3f"                   // hop limit 63
        "fc000000000a00000000000000000001"
        "fc00000000020000000000000000000e"      // DA = Segment List[0]
        "3b 04 04 00 01 00 0000"                // SL 0
        "fc00000000020000000000000000000e"
        "fc00000000010000000000000000000e");
    expect_out(run(end_in, sid(behavior::end, 0, 3)), endpoint_action::forward_v6, want, 3);
}

TEST(EndpointSpec, EndPspLiteral) {
    const bytes want = from_hex(
        "60000000 0000 3b 3f"                   // SRH gone: plen 0, nh = SRH's nh (59)
        "fc000000000a00000000000000000001"
        "fc00000000020000000000000000000e");
    expect_out(run(end_in, sid(behavior::end, flv::psp)), endpoint_action::forward_v6, want);
}

TEST(EndpointSpec, NextCsidLiteral) {
    // F3216: block fc00:0::/32, node C-SID 0001, then C-SIDs 0002 0003.
    const bytes in = from_hex(
        "60000000 0000 3b 40"
        "fc000000000a00000000000000000001"
        "fc000000000100020003000000000000");
    const bytes want = from_hex(
        "60000000 0000 3b 3f"
        "fc000000000a00000000000000000001"
        "fc000000000200030000000000000000");
    expect_out(run(in, sid(behavior::end, flv::next_csid)), endpoint_action::forward_v6, want);
}

// ---------------------------------------------------------------- End, End.X, End.T

bytes three_sids(uint8_t sl, uint8_t hl, const char* da, layer inner) {
    return ip6_packet(hl, src, da, {srh(sl, {s3, s2, s1}), inner});
}

TEST(Endpoint, EndAdvancesTheSegmentList) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    const auto o = run(three_sids(2, 64, s1, in4), sid(behavior::end));
    expect_out(o, endpoint_action::forward_v6, three_sids(1, 63, s2, in4));
}

TEST(Endpoint, EndKeepsTheSrhAtTheLastSegmentWithoutPsp) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_out(run(three_sids(1, 64, s2, in4), sid(behavior::end)), endpoint_action::forward_v6,
               three_sids(0, 63, s3, in4));
}

TEST(Endpoint, PspPopsOnlyAtThePenultimateSegment) {
    const layer in6 = inner6("fd01::1", "fd02::1");
    const auto p = sid(behavior::end, flv::psp);
    // SL 2 -> 1: an ordinary End.
    expect_out(run(three_sids(2, 64, s1, in6), p), endpoint_action::forward_v6, three_sids(1, 63, s2, in6));
    // SL 1 -> 0: the SRH is removed and the IPv6 header names the inner packet.
    expect_out(run(three_sids(1, 64, s2, in6), p), endpoint_action::forward_v6, ip6_packet(63, src, s3, {in6}));
}

TEST(Endpoint, PspFixesTheExtensionHeaderBeforeTheSrh) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    const bytes in = ip6_packet(64, src, s2, {opts(0), opts(60, 2), srh(1, {s3, s2}), in4});
    const bytes want = ip6_packet(63, src, s3, {opts(0), opts(60, 2), in4});
    expect_out(run(in, sid(behavior::end, flv::psp)), endpoint_action::forward_v6, want);
}

TEST(Endpoint, UspChangesNothingBeforeTheLastSegment) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_out(run(three_sids(1, 64, s2, in4), sid(behavior::end, flv::usp)), endpoint_action::forward_v6,
               three_sids(0, 63, s3, in4));
}

TEST(Endpoint, EndAtTheLastSegmentNeedsUsd) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1", 17);
    const layer in6 = inner6("fd01::1", "fd02::1", 9);
    const bytes v4 = three_sids(0, 64, s3, in4);
    const bytes v6 = three_sids(0, 64, s3, in6);
    expect_drop(run(v4, sid(behavior::end)), drop_reason::srh_sl_zero);
    expect_drop(run(v4, sid(behavior::end, flv::usp)), drop_reason::srh_sl_zero);
    expect_drop(run(v4, sid(behavior::end, flv::psp)), drop_reason::srh_sl_zero);
    // USD (§4.16.3): the inner packet, untouched, goes to the FIB lookup of the SID's VRF.
    expect_out(run(v4, sid(behavior::end, flv::usd, 7)), endpoint_action::lookup_v4, in4.b, 7);
    expect_out(run(v6, sid(behavior::end, flv::psp | flv::usp | flv::usd, 7)), endpoint_action::lookup_v6,
               in6.b, 7);
    // USD on a packet with no SRH at all (H.Encaps.Red with one SID).
    expect_out(run(ip6_packet(64, src, s3, {in6}), sid(behavior::end, flv::usd, 7)), endpoint_action::lookup_v6,
               in6.b, 7);
    // USD with something that is not IP inside: still the upper layer of §4.1.1.
    expect_drop(run(ip6_packet(64, src, s3, {srh(0, {s3, s2}), {17, bytes(8)}}), sid(behavior::end, flv::usd)),
                drop_reason::srh_sl_zero);
}

TEST(Endpoint, EndWithoutSrh) {
    expect_drop(run(ip6_packet(64, src, s1, {inner4("10.1.0.1", "10.2.0.1")}), sid(behavior::end)),
                drop_reason::srh_missing);
}

TEST(Endpoint, EndXSendsToTheAdjacency) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_out(run(three_sids(2, 64, s1, in4), sid(behavior::end_x)), endpoint_action::send_v6,
               three_sids(1, 63, s2, in4));
    expect_out(run(three_sids(1, 64, s2, in4), sid(behavior::end_x, flv::psp)), endpoint_action::send_v6,
               ip6_packet(63, src, s3, {in4}));
}

TEST(Endpoint, EndXWithUsdForwardsTheInnerPacketWithItsTtlDecremented) {
    const bytes in = three_sids(0, 64, s3, inner4("10.1.0.1", "10.2.0.1", 33));
    // Expected: built from scratch with TTL 32 and a freshly computed checksum.
    // An IPv4 packet (send_v4) to End.X's adjacency, which the worker takes from the behavior's
    // row: an IPv6 neighbor (the worker test checks the frame).
    expect_out(run(in, sid(behavior::end_x, flv::usd)), endpoint_action::send_v4, ip4_packet("10.1.0.1", "10.2.0.1", 32));
    const bytes in6pkt = three_sids(0, 64, s3, inner6("fd01::1", "fd02::1", 5));
    expect_out(run(in6pkt, sid(behavior::end_x, flv::usd)), endpoint_action::send_v6, inner6("fd01::1", "fd02::1", 4).b);
}

TEST(Endpoint, EndTLooksUpInItsTable) {
    const layer in6 = inner6("fd01::1", "fd02::1");
    expect_out(run(three_sids(2, 64, s1, in6), sid(behavior::end_t, 0, 42)), endpoint_action::forward_v6,
               three_sids(1, 63, s2, in6), 42);
    expect_out(run(three_sids(1, 64, s2, in6), sid(behavior::end_t, flv::psp, 42)), endpoint_action::forward_v6,
               ip6_packet(63, src, s3, {in6}), 42);
    expect_out(run(three_sids(0, 64, s3, in6), sid(behavior::end_t, flv::usd, 42)), endpoint_action::lookup_v6,
               in6.b, 42);
}

TEST(Endpoint, HopLimitAtTransitSids) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_drop(run(three_sids(2, 1, s1, in4), sid(behavior::end)), drop_reason::ttl_expired);
    expect_drop(run(three_sids(2, 0, s1, in4), sid(behavior::end_x)), drop_reason::ttl_expired);
    expect_drop(run(three_sids(2, 1, s1, in4), sid(behavior::end_t)), drop_reason::ttl_expired);
    expect_out(run(three_sids(2, 2, s1, in4), sid(behavior::end)), endpoint_action::forward_v6,
               three_sids(1, 1, s2, in4));
    // Decapsulating SIDs are the packet's destination: the outer hop limit does not matter.
    expect_out(run(three_sids(0, 1, s3, in4), sid(behavior::end_dt4, 0, 5)), endpoint_action::lookup_v4, in4.b, 5);
}

// ---------------------------------------------------------------- decapsulation

TEST(Endpoint, Dx4) {
    const bytes want = ip4_packet("10.1.0.1", "10.2.0.1", 63);
    const auto p = sid(behavior::end_dx4);
    expect_out(run(three_sids(0, 64, s3, inner4("10.1.0.1", "10.2.0.1", 64)), p), endpoint_action::send_v4, want);
    // H.Encaps.Red with one SID: no SRH.
    expect_out(run(ip6_packet(64, src, s3, {inner4("10.1.0.1", "10.2.0.1", 64)}), p), endpoint_action::send_v4, want);
    expect_drop(run(three_sids(0, 64, s3, inner4("10.1.0.1", "10.2.0.1", 1)), p), drop_reason::ttl_expired);
    expect_drop(run(three_sids(0, 64, s3, inner6("fd01::1", "fd02::1")), p), drop_reason::sid_bad_inner);
}

TEST(Endpoint, Dx4ChecksumAcrossTheCarry) {
    // TTL/protocol word and checksums chosen so the incremental update wraps: compare with
    // the checksum computed from scratch for many TTL/TOS values.
    for (int ttl = 2; ttl < 256; ttl += 7) {
        for (int tos : {0x00, 0xff, 0x10}) {
            bytes inner = ip4_packet("255.255.255.255", "0.0.0.1", static_cast<uint8_t>(ttl), 12,
                                     static_cast<uint8_t>(tos));
            bytes want = ip4_packet("255.255.255.255", "0.0.0.1", static_cast<uint8_t>(ttl - 1), 12,
                                    static_cast<uint8_t>(tos));
            const auto o = run(ip6_packet(64, src, s3, {{4, inner}}), sid(behavior::end_dx4));
            ASSERT_EQ(hex(o.out), hex(want)) << "ttl " << ttl << " tos " << tos;
        }
    }
}

TEST(Endpoint, Dx6) {
    const auto p = sid(behavior::end_dx6);
    expect_out(run(three_sids(0, 64, s3, inner6("fd01::1", "fd02::1", 64)), p), endpoint_action::send_v6,
               inner6("fd01::1", "fd02::1", 63).b);
    expect_drop(run(three_sids(0, 64, s3, inner6("fd01::1", "fd02::1", 1)), p), drop_reason::ttl_expired);
    expect_drop(run(three_sids(0, 64, s3, inner4("10.1.0.1", "10.2.0.1")), p), drop_reason::sid_bad_inner);
}

TEST(Endpoint, DtBehaviorsDecapsulateIntoTheirVrf) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1", 1);  // TTL is the VRF lookup's business
    const layer in6 = inner6("fd01::1", "fd02::1", 1);
    const bytes v4 = three_sids(0, 64, s3, in4);
    const bytes v6 = three_sids(0, 64, s3, in6);
    expect_out(run(v4, sid(behavior::end_dt4, 0, 11)), endpoint_action::lookup_v4, in4.b, 11);
    expect_out(run(v6, sid(behavior::end_dt6, 0, 12)), endpoint_action::lookup_v6, in6.b, 12);
    expect_out(run(v4, sid(behavior::end_dt46, 0, 13)), endpoint_action::lookup_v4, in4.b, 13);
    expect_out(run(v6, sid(behavior::end_dt46, 0, 13)), endpoint_action::lookup_v6, in6.b, 13);
    // Without SRH, and with a Destination Options header after the SRH.
    expect_out(run(ip6_packet(64, src, s3, {in6}), sid(behavior::end_dt46, 0, 13)), endpoint_action::lookup_v6,
               in6.b, 13);
    expect_out(run(ip6_packet(64, src, s3, {srh(0, {s3, s2}), opts(60), in4}), sid(behavior::end_dt46, 0, 13)),
               endpoint_action::lookup_v4, in4.b, 13);
    // uDT: NEXT-C-SID changes nothing for the last SID of a container.
    expect_out(run(v6, sid(behavior::end_dt46, flv::next_csid, 13)), endpoint_action::lookup_v6, in6.b, 13);
}

TEST(Endpoint, DtInnerMismatch) {
    const bytes v4 = three_sids(0, 64, s3, inner4("10.1.0.1", "10.2.0.1"));
    const bytes v6 = three_sids(0, 64, s3, inner6("fd01::1", "fd02::1"));
    expect_drop(run(v6, sid(behavior::end_dt4)), drop_reason::sid_bad_inner);
    expect_drop(run(v4, sid(behavior::end_dt6)), drop_reason::sid_bad_inner);
    expect_drop(run(ip6_packet(64, src, s3, {srh(0, {s3, s2}), {17, bytes(8)}}), sid(behavior::end_dt46)),
                drop_reason::sid_bad_inner);
    // Next Header says IPv4 but the header inside is IPv6.
    bytes lie = ip6_packet(64, src, s3, {{4, inner6("fd01::1", "fd02::1").b}});
    expect_drop(run(lie, sid(behavior::end_dt4)), drop_reason::sid_bad_inner);
}

TEST(Endpoint, DecapsulationNeedsSegmentsLeftZero) {
    const bytes in = three_sids(1, 64, s2, inner4("10.1.0.1", "10.2.0.1"));
    for (auto b : {behavior::end_dx4, behavior::end_dt4, behavior::end_dt46, behavior::end_dx6, behavior::end_dt6})
        expect_drop(run(in, sid(b)), drop_reason::srh_sl_nonzero);
}

TEST(Endpoint, DecapsulationDropsLinkPaddingAndInnerTrailer) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    // Ethernet-style padding after the IPv6 packet.
    bytes padded = three_sids(0, 64, s3, in4);
    padded.insert(padded.end(), 6, 0);
    expect_out(run(padded, sid(behavior::end_dt4)), endpoint_action::lookup_v4, in4.b);
    // Bytes inside the outer payload after the inner packet.
    layer with_trailer = in4;
    with_trailer.b.insert(with_trailer.b.end(), 4, 0xcc);
    expect_out(run(three_sids(0, 64, s3, with_trailer), sid(behavior::end_dt4)), endpoint_action::lookup_v4, in4.b);
}

// ---------------------------------------------------------------- NEXT-C-SID (RFC 9800)

// The shift done independently on a bit string: block, then the argument, then zeros.
std::string shifted(const char* da, unsigned lbl, unsigned lnfl) {
    const auto a = a6(da);
    std::string bits;
    for (uint8_t byte : a.bytes)
        bits += std::bitset<8>(byte).to_string();
    std::string out = bits.substr(0, lbl) + bits.substr(lbl + lnfl) + std::string(lnfl, '0');
    rib::ip6_addr r;
    for (size_t i = 0; i < 16; ++i)
        r.bytes[i] = static_cast<uint8_t>(std::bitset<8>(out.substr(8 * i, 8)).to_ulong());
    return rib::to_string(r);
}

sid_params usid(behavior b, uint8_t lbl, uint8_t lnfl, uint32_t more = 0, uint32_t vrf = 0) {
    sid_params p = sid(b, flv::next_csid | more, vrf);
    p.lcblock_bits = lbl;
    p.lcnode_fn_bits = lnfl;
    return p;
}

TEST(EndpointCsid, ShiftWithoutSrhForVariousStructures) {
    struct c {
        const char* da;
        uint8_t lbl, lnfl;
    };
    for (const c& k : {c{"fc00:0:1:2:3:4:5:6", 32, 16}, c{"fc00:0:0:100:200:300::", 48, 16},
                       c{"2001:db8:aa:bb00:cc00::1", 40, 24}, c{"fc00:0:1234:5678:9abc::1", 36, 12},
                       c{"fc00:0:1:2::", 32, 16}, c{"2001:db8:0:0:1:2:3:4", 64, 16},
                       c{"2001:db8:1:2:3:4:5:6", 80, 16}, c{"2001:db8:1:2:3:4:5:6", 68, 20}}) {
        const layer in4 = inner4("10.1.0.1", "10.2.0.1");
        const std::string next = shifted(k.da, k.lbl, k.lnfl);
        const auto o = run(ip6_packet(64, src, k.da, {in4}), usid(behavior::end, k.lbl, k.lnfl, 0, 4));
        expect_out(o, endpoint_action::forward_v6, ip6_packet(63, src, next.c_str(), {in4}), 4);
    }
}

TEST(EndpointCsid, ShiftLeavesTheSrhAlone) {
    const layer in6 = inner6("fd01::1", "fd02::1");
    const bytes in = ip6_packet(64, src, "fc00:0:1:2:3::", {srh(1, {"fc00:0:9::", "fc00:0:1:2:3::"}), in6});
    const bytes want = ip6_packet(63, src, "fc00:0:2:3::", {srh(1, {"fc00:0:9::", "fc00:0:1:2:3::"}), in6});
    expect_out(run(in, usid(behavior::end, 32, 16)), endpoint_action::forward_v6, want);
    // PSP does not apply to a shift (SL is unchanged).
    expect_out(run(in, usid(behavior::end, 32, 16, flv::psp)), endpoint_action::forward_v6, want);
}

TEST(EndpointCsid, ZeroArgumentFallsBackToEnd) {
    const layer in6 = inner6("fd01::1", "fd02::1");
    const bytes in = ip6_packet(64, src, "fc00:0:3::", {srh(1, {"fc00:0:9:a::", "fc00:0:3::"}), in6});
    expect_out(run(in, usid(behavior::end, 32, 16)), endpoint_action::forward_v6,
               ip6_packet(63, src, "fc00:0:9:a::", {srh(0, {"fc00:0:9:a::", "fc00:0:3::"}), in6}));
    // ... including PSP, unchanged by NEXT-C-SID.
    expect_out(run(in, usid(behavior::end, 32, 16, flv::psp)), endpoint_action::forward_v6,
               ip6_packet(63, src, "fc00:0:9:a::", {in6}));
    // No SRH and nothing left: the packet ends here.
    expect_drop(run(ip6_packet(64, src, "fc00:0:3::", {in6}), usid(behavior::end, 32, 16)),
                drop_reason::srh_missing);
    // ... unless USD decapsulates it.
    expect_out(run(ip6_packet(64, src, "fc00:0:3::", {in6}), usid(behavior::end, 32, 16, flv::usd, 2)),
               endpoint_action::lookup_v6, in6.b, 2);
}

TEST(EndpointCsid, UaAndUt) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    const bytes in = ip6_packet(64, src, "fc00:0:1:e001:2::", {in4});
    // uA consumes its node and function (LNFL 32 here, as `nflen 32` in the kernel).
    expect_out(run(in, usid(behavior::end_x, 32, 32)), endpoint_action::send_v6,
               ip6_packet(63, src, "fc00:0:2::", {in4}));
    expect_out(run(in, usid(behavior::end_t, 32, 32, 0, 8)), endpoint_action::forward_v6,
               ip6_packet(63, src, "fc00:0:2::", {in4}), 8);
}

TEST(EndpointCsid, HopLimit) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_drop(run(ip6_packet(1, src, "fc00:0:1:2::", {in4}), usid(behavior::end, 32, 16)), drop_reason::ttl_expired);
    expect_drop(run(ip6_packet(0, src, "fc00:0:1:2::", {in4}), usid(behavior::end_x, 32, 16)),
                drop_reason::ttl_expired);
    expect_out(run(ip6_packet(2, src, "fc00:0:1:2::", {in4}), usid(behavior::end, 32, 16)), endpoint_action::forward_v6,
               ip6_packet(1, src, "fc00:0:2::", {in4}));
}

// ---------------------------------------------------------------- malformed packets

bytes cut(bytes b, size_t n) {
    b.resize(n);
    return b;
}

TEST(EndpointMalformed, TruncatedIpv6) {
    const bytes ok = three_sids(2, 64, s1, inner4("10.1.0.1", "10.2.0.1"));
    expect_drop(run(cut(ok, 39), sid(behavior::end)), drop_reason::ip6_truncated);
    // Payload Length promises more than the frame has.
    expect_drop(run(cut(ok, ok.size() - 1), sid(behavior::end)), drop_reason::ip6_truncated);
}

TEST(EndpointMalformed, SrhTruncated) {
    // The packet ends inside the SRH and Payload Length agrees with it.
    bytes b = cut(three_sids(2, 64, s1, inner4("10.1.0.1", "10.2.0.1")), 40 + 30);
    put16(b, 4, 30);
    expect_drop(run(b, sid(behavior::end)), drop_reason::srh_truncated);
    expect_drop(run(b, sid(behavior::end_dt4)), drop_reason::srh_truncated);
    bytes stub = cut(b, 44);  // not even the fixed 8 bytes
    put16(stub, 4, 4);
    expect_drop(run(stub, sid(behavior::end)), drop_reason::srh_truncated);
}

TEST(EndpointMalformed, HdrExtLenLies) {
    // Longer than the packet: the SRH would run past the end.
    bytes b = ip6_packet(64, src, s1, {srh(1, {s2, s1})});
    b[40 + 1] = 6;
    expect_drop(run(b, sid(behavior::end)), drop_reason::srh_truncated);
    // Shorter than Last Entry needs (2 segments announced, room for 1).
    bytes c = ip6_packet(64, src, s1, {srh(1, {s2, s1}), inner4("10.1.0.1", "10.2.0.1")});
    c[40 + 1] = 2;
    expect_drop(run(c, sid(behavior::end)), drop_reason::srh_bad_len);
    expect_drop(run(c, sid(behavior::end_dt4)), drop_reason::srh_bad_len);
}

TEST(EndpointMalformed, SegmentsLeftPastTheList) {
    bytes b = three_sids(2, 64, s1, inner4("10.1.0.1", "10.2.0.1"));
    b[40 + 3] = 4;  // LE 2: SL may be 3 at most
    expect_drop(run(b, sid(behavior::end)), drop_reason::srh_segments_left);
    expect_drop(run(b, sid(behavior::end_dt46)), drop_reason::srh_segments_left);
    b[40 + 3] = 3;  // reduced SRH: the first SID is not in the list; SL 3 -> DA = [2]
    const auto o = run(b, sid(behavior::end));
    EXPECT_EQ(o.r.action, endpoint_action::forward_v6);
}

TEST(EndpointMalformed, LongExtensionHeaderChains) {
    std::vector<layer> chain(9, opts(60));
    chain.push_back(srh(1, {s2, s1}));
    expect_drop(run(ip6_packet(64, src, s1, chain), sid(behavior::end)), drop_reason::ext_hdr_chain);
    // Eight are fine.
    chain.erase(chain.begin());
    expect_out(run(ip6_packet(64, src, s1, chain), sid(behavior::end)), endpoint_action::forward_v6, [&] {
        auto out = chain;
        out.back() = srh(0, {s2, s1});
        return ip6_packet(63, src, s2, out);
    }());
    // Hop-by-Hop after another header.
    expect_drop(run(ip6_packet(64, src, s1, {opts(60), opts(0), srh(1, {s2, s1})}), sid(behavior::end)),
                drop_reason::ext_hdr_chain);
    // A chain truncated after the SRH matters to decapsulation only.
    bytes t = ip6_packet(64, src, s3, {srh(0, {s3, s2}), opts(60, 4)});
    t.resize(t.size() - 8);
    put16(t, 4, static_cast<uint16_t>(t.size() - 40));
    expect_drop(run(t, sid(behavior::end_dt46)), drop_reason::ext_hdr_chain);
}

TEST(EndpointMalformed, OtherRoutingTypes) {
    bytes rh0 = srh(1, {s2, s1}).b;
    rh0[2] = 0;  // RFC 5095 type 0
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_drop(run(ip6_packet(64, src, s1, {{43, rh0}, in4}), sid(behavior::end)), drop_reason::rh_unsupported);
    expect_drop(run(ip6_packet(64, src, s1, {{43, rh0}, in4}), sid(behavior::end_dt4)), drop_reason::rh_unsupported);
    // With Segments Left 0 it is ignored (RFC 8200 §4.4).
    rh0[3] = 0;
    expect_out(run(ip6_packet(64, src, s3, {{43, rh0}, in4}), sid(behavior::end_dt4, 0, 1)), endpoint_action::lookup_v4,
               in4.b, 1);
    expect_drop(run(ip6_packet(64, src, s3, {{43, rh0}, in4}), sid(behavior::end)), drop_reason::srh_missing);
}

TEST(EndpointMalformed, Fragments) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    expect_drop(run(ip6_packet(64, src, s3, {srh(0, {s3, s2}), frag(0, true), in4}), sid(behavior::end_dt4)),
                drop_reason::ip6_fragmented);
    // An atomic fragment is a whole packet.
    expect_out(run(ip6_packet(64, src, s3, {srh(0, {s3, s2}), frag(0, false), in4}), sid(behavior::end_dt4, 0, 3)),
               endpoint_action::lookup_v4, in4.b, 3);
    // A transit End does not read past the SRH, so a fragment after it does not matter.
    const bytes f = ip6_packet(64, src, s1, {srh(1, {s2, s1}), frag(0, true), in4});
    EXPECT_EQ(run(f, sid(behavior::end)).r.action, endpoint_action::forward_v6);
}

TEST(EndpointMalformed, InnerTruncated) {
    bytes in4 = ip4_packet("10.1.0.1", "10.2.0.1", 64);
    put16(in4, 2, static_cast<uint16_t>(in4.size() + 1));  // total length past the outer payload
    expect_drop(run(ip6_packet(64, src, s3, {{4, in4}}), sid(behavior::end_dt4)), drop_reason::ip4_truncated);
    expect_drop(run(ip6_packet(64, src, s3, {{4, cut(in4, 19)}}), sid(behavior::end_dt4)), drop_reason::ip4_truncated);
    bytes bad_ihl = ip4_packet("10.1.0.1", "10.2.0.1", 64);
    bad_ihl[0] = 0x44;
    expect_drop(run(ip6_packet(64, src, s3, {{4, bad_ihl}}), sid(behavior::end_dx4)), drop_reason::ip4_truncated);
    bytes in6 = inner6("fd01::1", "fd02::1").b;
    expect_drop(run(ip6_packet(64, src, s3, {{41, cut(in6, in6.size() - 1)}}), sid(behavior::end_dt6)),
                drop_reason::ip6_truncated);
    expect_drop(run(ip6_packet(64, src, s3, {{41, cut(in6, 39)}}), sid(behavior::end_dt6)), drop_reason::ip6_truncated);
}

TEST(EndpointMalformed, HeadersSplitAcrossSegments) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1", 64, 40);
    const bytes whole = three_sids(2, 64, s1, in4);
    auto chained = [&](size_t first) {
        rte_mbuf* a = mbuf_of(bytes(whole.begin(), whole.begin() + static_cast<long>(first)));
        rte_mbuf* b = mbuf_of(bytes(whole.begin() + static_cast<long>(first), whole.end()));
        EXPECT_EQ(rte_pktmbuf_chain(a, b), 0);
        return a;
    };
    // SRH split: nothing readable past the first segment.
    rte_mbuf* m = chained(40 + 20);
    expect_drop({process_endpoint(m, sid(behavior::end)), {}}, drop_reason::hdr_segmented);
    rte_pktmbuf_free(m);
    m = chained(20);
    expect_drop({process_endpoint(m, sid(behavior::end)), {}}, drop_reason::hdr_segmented);
    rte_pktmbuf_free(m);
    // Headers whole in the first segment, payload in the second: fine, for End and for decap.
    m = chained(40 + 56 + 24);
    const endpoint_result r = process_endpoint(m, sid(behavior::end));
    EXPECT_EQ(r.action, endpoint_action::forward_v6);
    EXPECT_EQ(hex(bytes_of(m)), hex(three_sids(1, 63, s2, in4)));
    rte_pktmbuf_free(m);
    const bytes last = three_sids(0, 64, s3, in4);
    rte_mbuf* a = mbuf_of(bytes(last.begin(), last.begin() + 40 + 56 + 24));
    rte_mbuf* b = mbuf_of(bytes(last.begin() + 40 + 56 + 24, last.end()));
    ASSERT_EQ(rte_pktmbuf_chain(a, b), 0);
    EXPECT_EQ(process_endpoint(a, sid(behavior::end_dt4)).action, endpoint_action::lookup_v4);
    EXPECT_EQ(hex(bytes_of(a)), hex(in4.b));
    rte_pktmbuf_free(a);
}

TEST(EndpointMalformed, UnsupportedBehavior) {
    expect_drop(run(three_sids(1, 64, s2, inner4("10.1.0.1", "10.2.0.1")), sid(behavior::end_b6)),
                drop_reason::sid_unsupported);
}

// A burst with good and bad packets interleaved: every bad one is counted under its own
// reason and every good one comes out as if it had been alone.
TEST(EndpointBurst, BadPacketsDoNotDisturbTheirNeighbours) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    const layer in6 = inner6("fd01::1", "fd02::1");
    struct item {
        bytes in;
        sid_params p;
        endpoint_action want;
        bytes out;                  // for non-drops
        drop_reason reason = drop_reason::sid_unsupported;  // for drops
    };
    bytes bad_len = three_sids(2, 64, s1, in4);
    bad_len[41] = 2;
    bytes sl_past = three_sids(2, 64, s1, in4);
    sl_past[43] = 9;
    std::vector<item> items = {
        {three_sids(2, 64, s1, in4), sid(behavior::end), endpoint_action::forward_v6, three_sids(1, 63, s2, in4)},
        {cut(three_sids(2, 64, s1, in4), 30), sid(behavior::end), endpoint_action::drop, {}, drop_reason::ip6_truncated},
        {three_sids(0, 64, s3, in6), sid(behavior::end_dt46, 0, 9), endpoint_action::lookup_v6, in6.b},
        {bad_len, sid(behavior::end), endpoint_action::drop, {}, drop_reason::srh_bad_len},
        {three_sids(0, 64, s3, in4), sid(behavior::end_dt46, 0, 9), endpoint_action::lookup_v4, in4.b},
        {sl_past, sid(behavior::end), endpoint_action::drop, {}, drop_reason::srh_segments_left},
        {three_sids(1, 64, s2, in4), sid(behavior::end, flv::psp), endpoint_action::forward_v6,
         ip6_packet(63, src, s3, {in4})},
        {three_sids(0, 64, s3, in4), sid(behavior::end), endpoint_action::drop, {}, drop_reason::srh_sl_zero},
        {three_sids(1, 64, s2, in4), sid(behavior::end_dt4), endpoint_action::drop, {}, drop_reason::srh_sl_nonzero},
        {ip6_packet(64, src, "fc00:0:1:2::", {in4}), usid(behavior::end, 32, 16), endpoint_action::forward_v6,
         ip6_packet(63, src, "fc00:0:2::", {in4})},
        {three_sids(2, 1, s1, in4), sid(behavior::end), endpoint_action::drop, {}, drop_reason::ttl_expired},
        {three_sids(0, 64, s3, in6), sid(behavior::end_dt4), endpoint_action::drop, {}, drop_reason::sid_bad_inner},
        {ip6_packet(64, src, s1, std::vector<layer>(10, opts(60))), sid(behavior::end), endpoint_action::drop, {},
         drop_reason::ext_hdr_chain},
    };
    std::vector<rte_mbuf*> burst;
    for (size_t i = 0; burst.size() < 32; ++i)
        burst.push_back(mbuf_of(items[i % items.size()].in));
    std::array<uint64_t, drop_reason_count> counters{};
    std::array<uint64_t, drop_reason_count> want_counters{};
    for (size_t i = 0; i < burst.size(); ++i) {
        const item& it = items[i % items.size()];
        const endpoint_result r = process_endpoint(burst[i], it.p);
        ASSERT_EQ(name(r.action), name(it.want)) << "packet " << i << " " << name(r.reason);
        if (r.action == endpoint_action::drop) {
            ++counters[static_cast<size_t>(r.reason)];
            ++want_counters[static_cast<size_t>(it.reason)];
        } else {
            EXPECT_EQ(hex(bytes_of(burst[i])), hex(it.out)) << "packet " << i;
        }
        rte_pktmbuf_free(burst[i]);
    }
    for (size_t i = 0; i < drop_reason_count; ++i)
        EXPECT_EQ(counters[i], want_counters[i]) << name(static_cast<drop_reason>(i));
    EXPECT_EQ(counters[static_cast<size_t>(drop_reason::srh_bad_len)], 3u);  // items 3, 16, 29
}

// The contract's handler ids and the code: every row with a handler runs here, every handler
// here is some row's (the worker's per-row tests then run each row and flavor).
TEST(EndpointContract, HandlersAreExactlyTheImplementedOnes) {
    for (const auto& row : rib::behavior_table()) {
        const bool implemented = std::find(implemented_handlers.begin(), implemented_handlers.end(), row.handler) !=
                                 implemented_handlers.end();
        EXPECT_EQ(implemented, row.handler != rib::dp_handler::none) << row.name;
    }
    for (rib::dp_handler h : implemented_handlers)
        EXPECT_TRUE(std::any_of(rib::behavior_table().begin(), rib::behavior_table().end(),
                                [h](const rib::behavior_info& r) { return r.handler == h; }))
            << rib::name(h);
    // A row without a handler reaches no code: dropped (the compiler never installs one).
    for (const auto& row : rib::behavior_table()) {
        if (row.handler != rib::dp_handler::none)
            continue;
        rte_mbuf* m = mbuf_of(three_sids(1, 64, s2, inner4("10.1.0.1", "10.2.0.1")));
        sid_params p;
        p.behavior = row.action;
        const endpoint_result r = process_endpoint(m, p);
        rte_pktmbuf_free(m);
        EXPECT_EQ(r.action, endpoint_action::drop) << row.name;
        EXPECT_EQ(r.reason, drop_reason::sid_unsupported) << row.name;
    }
}

}  // namespace
}  // namespace fwd::test
