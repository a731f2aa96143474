// [sids] lines: srv6d's own local SIDs. Good lines become the seg6local FRR would have sent;
// every bad line is refused with the line and the reason.
#include "vrf/sid_parse.hh"

#include "rib/behaviors.hh"
#include "rib/sid_params.hh"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace vrf {
namespace SRV6D_UNITY_ID {

rib::prefix pfx(const char* s) { return *rib::parse_prefix(s); }

sid_spec ok(const char* line) {
    auto r = parse_sid(line);
    EXPECT_TRUE(r) << line << ": " << r.error;
    return r ? *r.value : sid_spec{};
}

TEST(SidParse, DecapsulatingBehaviorsByVrfOrTable) {
    auto s = ok("fc00:1::d46 End.DT46 vrf red");
    EXPECT_EQ(s.sid, pfx("fc00:1::d46/128"));  // no length: a /128
    EXPECT_EQ(s.local.action, rib::behavior::end_dt46);
    EXPECT_EQ(s.local.vrf_name, "red");
    EXPECT_FALSE(s.local.decap_table());

    // A table goes where FRR puts it: VRFTABLE for DT4/DT46, TABLE for DT6 and End.T.
    s = ok("fc00:1::d4/128 End.DT4 table 10");
    EXPECT_EQ(s.local.vrftable, 10u);
    EXPECT_FALSE(s.local.table);
    s = ok("fc00:1::d46 end.dt46 table 10");  // behavior names as the RFC spells them, any case
    EXPECT_EQ(s.local.action, rib::behavior::end_dt46);
    EXPECT_EQ(s.local.vrftable, 10u);
    s = ok("fc00:1::d6 End.DT6 table 20");
    EXPECT_EQ(s.local.table, 20u);
    EXPECT_FALSE(s.local.vrftable);
    s = ok("fc00:1::7 End.T table 30");
    EXPECT_EQ(s.local.table, 30u);
    s = ok("sid = fc00:1::8 End.T vrf blue");  // a whole config line
    EXPECT_EQ(s.local.vrf_name, "blue");
}

// End.B6.Encaps(.Red): the policy as iproute2's `srh segs`, H.Encaps or H.Encaps.Red, its source.
TEST(SidParse, BindingSidWithItsPolicy) {
    auto s = ok("fc00:1::b6 End.B6.Encaps segs fc00:0:3::e,fc00:0:2::d6");
    EXPECT_EQ(s.local.action, rib::behavior::end_b6_encaps);
    ASSERT_TRUE(s.local.srh);
    EXPECT_EQ(s.local.srh->mode, rib::encap_mode::encap);
    EXPECT_EQ(s.local.srh->segments,
              (std::vector<rib::ip6_addr>{*rib::parse_ip6("fc00:0:3::e"), *rib::parse_ip6("fc00:0:2::d6")}));
    EXPECT_FALSE(s.local.srh->source);
    s = ok("fc00:1::b7 End.B6.Encaps src fc00:0:1::1 mode encap.red segs fc00:0:3::e");
    EXPECT_EQ(s.local.srh->mode, rib::encap_mode::encap_red);
    EXPECT_EQ(s.local.srh->source, rib::parse_ip6("fc00:0:1::1"));
    s = ok("fc00:1::/48 End.B6.Encaps segs fc00:0:3::e flavors next-csid");
    EXPECT_EQ(s.local.flavors, rib::flavor::next_csid);
}

TEST(SidParse, EndpointAndCrossConnectBehaviors) {
    auto s = ok("fc00:1::e End");
    EXPECT_EQ(s.local, rib::seg6local{});
    s = ok("fc00:1::/48 End flavors next-csid");  // uN with the kernel's default lengths
    EXPECT_EQ(s.sid, pfx("fc00:1::/48"));
    EXPECT_EQ(s.local.flavors, rib::flavor::next_csid);
    EXPECT_EQ(s.local.lcblock_bits, 32);
    EXPECT_EQ(s.local.lcnode_fn_bits, 16);
    s = ok("fc00:1::/48 End flavors next-csid lblen 24 nflen 24");
    EXPECT_EQ(s.local.lcblock_bits, 24);
    EXPECT_EQ(s.local.lcnode_fn_bits, 24);
    s = ok("fc00:1::e End flavors psp,usp,usd");
    EXPECT_EQ(s.local.flavors, rib::flavor::psp | rib::flavor::usp | rib::flavor::usd);
    EXPECT_FALSE(s.local.lcblock_bits);

    s = ok("fc00:1::a End.X nh6 fe80::1 oif 4 flavors psp");
    EXPECT_EQ(s.local.action, rib::behavior::end_x);
    EXPECT_EQ(s.local.nh6, rib::parse_ip6("fe80::1"));
    EXPECT_EQ(s.local.oif, 4u);
    EXPECT_EQ(s.local.flavors, rib::flavor::psp);
    s = ok("fc00:1::/48 End.DT46 vrf red flavors next-csid");  // uDT46: NEXT-C-SID only
    EXPECT_EQ(s.local.lcblock_bits, 32);
    s = ok("fc00:1::a6 End.DX6 nh6 fd01::2");
    EXPECT_EQ(s.local.nh6, rib::parse_ip6("fd01::2"));
    EXPECT_FALSE(s.local.oif);  // the egress is then the one fd01::2 routes through
    s = ok("fc00:1::a4 End.DX4 oif 3 nh4 192.0.2.1");
    EXPECT_EQ(s.local.nh4, rib::parse_addr("192.0.2.1")->v4());
    EXPECT_EQ(s.local.oif, 3u);
    s = ok("fc00:1::d2 End.DX2 oif 9");  // the port by the same oif as End.X and End.DX4/DX6
    EXPECT_EQ(s.local.action, rib::behavior::end_dx2);
    EXPECT_EQ(s.local.oif, 9u);
    s = ok("fc00:1::/48 End.DX2 oif 9 flavors next-csid");  // uDX2
    EXPECT_EQ(s.local.flavors, rib::flavor::next_csid);
}

TEST(SidParse, TheRouteIsAnInlineSidInTheMainTable) {
    const auto r = to_route(ok("fc00:1::d46 End.DT46 vrf red"));
    EXPECT_EQ(r.key.table, rib::main_table);
    EXPECT_EQ(r.key.dst, pfx("fc00:1::d46/128"));
    EXPECT_EQ(r.protocol, rib::proto::config);
    EXPECT_EQ(r.type, rib::route_type::unicast);
    ASSERT_EQ(r.nexthops.size(), 1u);
    ASSERT_TRUE(r.nexthops[0].local);
    EXPECT_EQ(r.nexthops[0].local->vrf_name, "red");
    EXPECT_FALSE(r.nh_id);
}

// The parameter table prints a SID as a [sids] line states it (show running-config): every
// printed line reads back as the same SID.
TEST(SidParse, PrintedParametersParseBack) {
    for (const char* line : {"fc00:1::d46 End.DT46 vrf red", "fc00:1::d4 End.DT4 table 10", "fc00:1::d6 End.DT6 table 20",
                             "fc00:1::7 End.T vrf blue flavors psp,usd", "fc00:1::d44 End.DX4 nh4 192.0.2.1 oif 3",
                             "fc00:1::d66 End.DX6 nh6 fd01::1", "fc00:1::e2 End.X nh6 fe80::1 oif 7 flavors next-csid",
                             "fc00:0:1::/48 End flavors next-csid lblen 48 nflen 16", "fc00:1::d2 End.DX2 oif 9",
                             "fc00:1::b6 End.B6.Encaps segs fc00:0:3::e,fc00:0:2::d6 mode encap.red src fc00::1"}) {
        const sid_spec s = ok(line);
        const std::string printed = rib::to_string(s.sid) + " " + std::string(rib::behavior_name(s.local.action)) +
                                    rib::print_params(s.local);
        const auto again = parse_sid(printed);
        ASSERT_TRUE(again) << printed << ": " << again.error;
        EXPECT_EQ(*again.value, s) << line << " printed as " << printed;
    }
}

TEST(SidParse, BadLinesNameTheLineAndTheReason) {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"", "sid '': expected 'PREFIX BEHAVIOR [ARGS] [flavors LIST]'"},
        {"fc00:1::1", "sid 'fc00:1::1': expected 'PREFIX BEHAVIOR [ARGS] [flavors LIST]'"},
        {"10.0.0.1 End", "sid '10.0.0.1 End': '10.0.0.1' is not an IPv6 address or prefix"},
        {"fc00:1::1/129 End", "sid 'fc00:1::1/129 End': 'fc00:1::1/129' is not an IPv6 address or prefix"},
        {"fc00:1::1/64 End",
         "sid 'fc00:1::1/64 End': 'fc00:1::1/64' has bits set beyond its length (did you mean fc00:1::/64?)"},
        {"fc00:1::1 End.DT64 vrf red",
         "sid 'fc00:1::1 End.DT64 vrf red': behavior 'End.DT64' is not one of End, End.X, End.T, End.DX2, "
         "End.DX6, End.DX4, End.DT6, End.DT4, End.B6.Encaps, End.DT46"},
        {"fc00:1::1 End.B6.Encaps", "sid 'fc00:1::1 End.B6.Encaps': End.B6.Encaps needs a SID list (segs)"},
        {"fc00:1::1 End mode encap.red", "sid 'fc00:1::1 End mode encap.red': mode and src belong to segs (End.B6.Encaps)"},
        {"fc00:1::1 End.B6.Encaps segs fc00::1,x", "sid 'fc00:1::1 End.B6.Encaps segs fc00::1,x': segs: 'x' is not an IPv6 address"},
        {"fc00:1::1 End.B6.Encaps segs fc00::1 mode inline",
         "sid 'fc00:1::1 End.B6.Encaps segs fc00::1 mode inline': mode 'inline' is not encap or encap.red"},
        {"fc00:1::1 End segs fc00::1", "sid 'fc00:1::1 End segs fc00::1': End does not take segs"},
        {"fc00:1::1 End.DT46", "sid 'fc00:1::1 End.DT46': End.DT46 needs a VRF (table or vrf)"},
        {"fc00:1::1 End.DX2", "sid 'fc00:1::1 End.DX2': End.DX2 needs an interface (oif or ifname)"},
        {"fc00:1::1 End.DX2 oif 7 flavors psp", "sid 'fc00:1::1 End.DX2 oif 7 flavors psp': End.DX2 does not take flavor psp"},
        {"fc00:1::1 End.DT2U", "sid 'fc00:1::1 End.DT2U': behavior 'End.DT2U' (RFC 8986 §4.10-4.11, L2 bridging) is not "
                               "built yet; End.DX2 cross-connects one port"},
        {"fc00:1::1 End.DT4 vrf red table 10", "sid 'fc00:1::1 End.DT4 vrf red table 10': give 'vrf NAME' or 'table ID', not both"},
        {"fc00:1::1 End.DT6 table ten", "sid 'fc00:1::1 End.DT6 table ten': table 'ten' is not a number from 1 to 4294967295"},
        {"fc00:1::1 End.DT6 table 255", "sid 'fc00:1::1 End.DT6 table 255': table 255 is reserved by the kernel (local)"},
        {"fc00:1::1 End.DT6 vrf a/b", "sid 'fc00:1::1 End.DT6 vrf a/b': VRF name 'a/b' contains a character interface names cannot have"},
        {"fc00:1::1 End.DT6 vrf", "sid 'fc00:1::1 End.DT6 vrf': 'vrf' needs a value"},
        {"fc00:1::1 End.DT6 vrf red vrf blue", "sid 'fc00:1::1 End.DT6 vrf red vrf blue': 'vrf' given twice"},
        {"fc00:1::1 End vrf red", "sid 'fc00:1::1 End vrf red': End does not take vrf"},
        {"fc00:1::1 End.DT46 vrf red nh6 fd01::1", "sid 'fc00:1::1 End.DT46 vrf red nh6 fd01::1': End.DT46 does not take nh6"},
        {"fc00:1::1 End.X", "sid 'fc00:1::1 End.X': End.X needs an IPv6 next hop (nh6)"},
        {"fc00:1::1 End.X nh6 10.0.0.1", "sid 'fc00:1::1 End.X nh6 10.0.0.1': nh6 '10.0.0.1' is not an IPv6 address"},
        {"fc00:1::1 End.DX4 nh4 fd01::1", "sid 'fc00:1::1 End.DX4 nh4 fd01::1': nh4 'fd01::1' is not an IPv4 address"},
        {"fc00:1::1 End.DX6 nh6 fd01::1 oif 0", "sid 'fc00:1::1 End.DX6 nh6 fd01::1 oif 0': oif '0' is not an interface index (1 to 4294967295)"},
        {"fc00:1::1 End flavors psp,bogus", "sid 'fc00:1::1 End flavors psp,bogus': flavor 'bogus' is not one of psp,usp,usd,next-csid"},
        {"fc00:1::1 End flavors psp,psp", "sid 'fc00:1::1 End flavors psp,psp': flavor psp listed twice"},
        {"fc00:1::1 End lblen 32", "sid 'fc00:1::1 End lblen 32': lblen and nflen belong to flavor next-csid"},
        {"fc00:1::/48 End flavors next-csid lblen 12", "sid 'fc00:1::/48 End flavors next-csid lblen 12': NEXT-C-SID block 12 and node+function 16 bits: each a non-zero multiple of 8, together at most 128"},
        {"fc00:1::/48 End flavors next-csid lblen 64 nflen 72", "sid 'fc00:1::/48 End flavors next-csid lblen 64 nflen 72': NEXT-C-SID block 64 and node+function 72 bits: each a non-zero multiple of 8, together at most 128"},
        // The flavors a behavior takes are its contract row's: PSP/USP/USD are End, End.X, End.T's.
        {"fc00:1::1 End.DT4 table 10 flavors psp", "sid 'fc00:1::1 End.DT4 table 10 flavors psp': End.DT4 does not take flavor psp"},
        {"fc00:1::1 End.DX6 nh6 fd01::1 flavors next-csid,usd", "sid 'fc00:1::1 End.DX6 nh6 fd01::1 flavors next-csid,usd': End.DX6 does not take flavor usd"},
        {"fc00:1::/48 End flavors next-csid lblen 129", "sid 'fc00:1::/48 End flavors next-csid lblen 129': lblen '129' is not a number of bits (at most 128)"},
        // The words every parser gives for a SID without what its behavior needs (the FPM
        // decoders' tests in tests/unit/fpm say the same).
        {"fc00:1::1 End.DX4", "sid 'fc00:1::1 End.DX4': End.DX4 needs an IPv4 next hop (nh4)"},
        {"fc00:1::1 End bogus 1", "sid 'fc00:1::1 End bogus 1': unknown word 'bogus'; expected vrf, table, nh4, nh6, oif, segs, mode, src, flavors, lblen or nflen"},
    };
    for (const auto& [line, message] : cases) {
        const auto r = parse_sid(line);
        EXPECT_FALSE(r) << line;
        EXPECT_EQ(r.error, message);
    }
}

}  // namespace
}  // namespace vrf
