// `dataplane.vpws` lines (forward/control/l2vpn.hh): what a line says, what holds between
// services and ports, and the template each service gets with the source that resolves.
#include "forward/control/l2vpn.hh"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fib/control/encap_build.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }

vpws_spec ok(const char* line) {
    std::string err;
    auto v = parse_vpws(line, err);
    EXPECT_TRUE(v) << line << ": " << err;
    return v ? *v : vpws_spec{};
}

std::string bad(const char* line) {
    std::string err;
    EXPECT_FALSE(parse_vpws(line, err)) << line;
    return err;
}

TEST(Vpws, ParsesALine) {
    auto v = ok("pw1 port=ce1 segs=fc00:0:2::d2");
    EXPECT_EQ(v.name, "pw1");
    EXPECT_EQ(v.port, "ce1");
    EXPECT_EQ(v.segments, std::vector<rib::ip6_addr>{a6("fc00:0:2::d2")});
    EXPECT_FALSE(v.reduced);
    EXPECT_FALSE(v.source);
    v = ok("pw2  port=ce1.100 segs=fc00:0:3::1,fc00:0:2::d2 mode=l2encap.red source=fc00:0:1::7");
    EXPECT_EQ(v.segments.size(), 2u);
    EXPECT_TRUE(v.reduced);
    EXPECT_EQ(v.source, a6("fc00:0:1::7"));
    EXPECT_FALSE(ok("pw3 port=p segs=fc00::1 mode=l2encap").reduced);
}

TEST(Vpws, RefusesABadLineWithItsReason) {
    EXPECT_EQ(bad("pw1 port=ce1"), "a vpws is 'NAME port=PORT segs=SID[,SID...] [mode=l2encap|l2encap.red] [source=ADDR]'");
    EXPECT_EQ(bad("pw1 port=ce1 mode=l2encap"), "a vpws needs port=PORT and segs=SID[,SID...]");
    EXPECT_EQ(bad("pw1 port=ce1 segs=10.0.0.1"), "segs: '10.0.0.1' is not an IPv6 address");
    EXPECT_EQ(bad("pw1 port=ce1 segs=fc00::1 mode=encap"), "mode 'encap' is not l2encap or l2encap.red");
    EXPECT_EQ(bad("pw1 port=ce1 segs=fc00::1 vlan=3"), "unknown vpws option 'vlan' (port, segs, mode, source)");
    EXPECT_EQ(bad("pw1 port=ce1 segs=fc00::1 source"), "'source' is not KEY=VALUE");
    EXPECT_NE(bad("pw1 port=ce1 segs=fc00::1 source=::1").find("source ::1: "), std::string::npos);
    std::string seventeen = "pw1 port=ce1 segs=fc00::1";
    for (int i = 2; i <= 17; ++i)
        seventeen += ",fc00::" + std::to_string(i);
    EXPECT_EQ(bad(seventeen.c_str()), "segs: 17 SIDs, at most 16");
}

TEST(Vpws, ServicesAgainstPorts) {
    std::vector<port_spec> ports(3);
    ports[0].name = "ce1";
    ports[1].name = "ce2";
    ports[2].name = "ce2.100";
    ports[2].vlan = 100;
    ports[2].parent = "ce2";
    std::string err;
    EXPECT_TRUE(check_vpws({ok("a port=ce1 segs=fc00::1"), ok("b port=ce2.100 segs=fc00::2")}, ports, err)) << err;
    EXPECT_FALSE(check_vpws({ok("a port=ce3 segs=fc00::1")}, ports, err));
    EXPECT_EQ(err, "vpws a: port 'ce3' is no configured port or sub-port");
    EXPECT_FALSE(check_vpws({ok("a port=ce1 segs=fc00::1"), ok("a port=ce2.100 segs=fc00::1")}, ports, err));
    EXPECT_EQ(err, "vpws a is configured twice");
    EXPECT_FALSE(check_vpws({ok("a port=ce1 segs=fc00::1"), ok("b port=ce1 segs=fc00::1")}, ports, err));
    EXPECT_EQ(err, "vpws b: port ce1 is the circuit of vpws a already");
    EXPECT_FALSE(check_vpws({ok("a port=ce2 segs=fc00::1")}, ports, err));
    EXPECT_NE(err.find("port ce2 has sub-ports (ce2.100)"), std::string::npos) << err;
}

// The source resolves as a route's: the line's own first, else the global one; none: down.
TEST(Vpws, TemplateFromTheResolvedSource) {
    vrf::encap_source_resolver src;
    auto built = build_vpws({ok("a port=ce1 segs=fc00:0:2::d2")}, src);
    ASSERT_EQ(built.size(), 1u);
    EXPECT_FALSE(built[0].active);
    EXPECT_NE(built[0].reason.find("no encapsulation source"), std::string::npos) << built[0].reason;

    (void)src.set_configured(a6("fc00:0:1::1"));
    built = build_vpws({ok("a port=ce1 segs=fc00:0:2::d2"), ok("b port=ce2 segs=fc00:0:3::1,fc00:0:2::d2 mode=l2encap.red "
                                                                "source=fc00:0:1::7")},
                       src);
    ASSERT_EQ(built.size(), 2u);
    ASSERT_TRUE(built[0].active);
    EXPECT_EQ(built[0].source.origin, vrf::encap_origin::config);
    const std::vector<rib::ip6_addr> one = {a6("fc00:0:2::d2")};
    const auto want = fib::build_encap_template(rib::encap_mode::l2encap, one, a6("fc00:0:1::1"), 143);
    EXPECT_EQ(std::vector<uint8_t>(built[0].tmpl.wire().begin(), built[0].tmpl.wire().end()),
              std::vector<uint8_t>(want.tmpl.wire().begin(), want.tmpl.wire().end()));
    EXPECT_EQ(built[0].tmpl.len, 40 + 8 + 16);  // an SRH with the one SID, as Linux's l2encap
    ASSERT_TRUE(built[1].active);
    EXPECT_EQ(built[1].source.origin, vrf::encap_origin::route);  // its own, as a route's attribute
    EXPECT_EQ(*built[1].source.addr, a6("fc00:0:1::7"));
    EXPECT_EQ(built[1].tmpl.mode, static_cast<uint8_t>(rib::encap_mode::l2encap_red));
    EXPECT_EQ(built[1].tmpl.len, 40 + 8 + 16);  // .Red: the first SID in the DA only
}

}  // namespace
}  // namespace fwd
