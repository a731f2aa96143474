// The SID parameter table (rib/sid_params.hh): one row per parameter, the check every parser
// runs, the reason texts the four parsers share, and the [sids] printing.
#include "rib/sid_params.hh"

#include <gtest/gtest.h>

#include <string>

namespace rib {
namespace SRV6D_UNITY_ID {

seg6local sid(behavior b, uint32_t flavors = 0) {
    seg6local l;
    l.action = b;
    l.flavors = flavors;
    return l;
}

const behavior_info& row(behavior b) { return *find_behavior(b); }

TEST(SidParams, OneRowPerBitWithAName) {
    uint16_t seen = 0;
    for (const auto& p : param_table()) {
        EXPECT_FALSE(seen & p.bit) << p.name;
        seen = static_cast<uint16_t>(seen | p.bit);
        EXPECT_EQ(find_param(p.bit), &p);
        EXPECT_FALSE(p.name.empty());
        EXPECT_FALSE(p.noun.empty()) << p.name;
    }
    EXPECT_EQ(seen, sid_param::all);
    EXPECT_EQ(find_param(0), nullptr);
    EXPECT_EQ(find_param(sid_param::nh4 | sid_param::nh6), nullptr);
}

TEST(SidParams, PresentParams) {
    seg6local l = sid(behavior::end_x);
    EXPECT_EQ(present_params(l), 0);
    l.nh6 = ip6_addr{};
    l.oif = 3;
    EXPECT_EQ(present_params(l), sid_param::nh6 | sid_param::oif);
    l.vrf_name = "red";
    l.flavors = flavor::psp;
    EXPECT_EQ(present_params(l), sid_param::nh6 | sid_param::oif | sid_param::vrf_name | sid_param::flavors);
    seg6local lengths_only = sid(behavior::end);
    lengths_only.lcblock_bits = 32;
    EXPECT_EQ(present_params(lengths_only), sid_param::flavors);
}

TEST(SidParams, ToString) {
    EXPECT_EQ(sid_params_to_string(sid_param::table | sid_param::vrftable | sid_param::vrf_name), "table|vrftable|vrf");
    EXPECT_EQ(sid_params_to_string(sid_param::srh), "segs");
    EXPECT_EQ(sid_params_to_string(0), "");
}

// The texts every parser gives (netlink, SONiC and protobuf decoders, [sids] lines).
TEST(SidParams, MissingParametersInWords) {
    EXPECT_EQ(check_params(row(behavior::end_dx4), sid(behavior::end_dx4)).reason, "End.DX4 needs an IPv4 next hop (nh4)");
    EXPECT_EQ(check_params(row(behavior::end_x), sid(behavior::end_x)).reason, "End.X needs an IPv6 next hop (nh6)");
    EXPECT_EQ(check_params(row(behavior::end_dt46), sid(behavior::end_dt46)).reason,
              "End.DT46 needs a VRF (table or vrf)");
    EXPECT_EQ(check_params(row(behavior::end_t), sid(behavior::end_t)).reason, "End.T needs a VRF (table or vrf)");
    EXPECT_EQ(check_params(row(behavior::end_dx2), sid(behavior::end_dx2)).reason,
              "End.DX2 needs an interface (oif or ifname)");
    EXPECT_EQ(check_params(row(behavior::end_b6_encaps), sid(behavior::end_b6_encaps)).reason,
              "End.B6.Encaps needs a SID list (segs)");
    const param_check c = check_params(row(behavior::end_bpf), sid(behavior::end_bpf));
    EXPECT_EQ(c.fault, param_fault::missing);
    EXPECT_EQ(c.params, sid_param::bpf);
    EXPECT_EQ(c.reason, "End.BPF needs a BPF program (bpf)");
    // What the wire carried but the model does not hold still counts.
    EXPECT_TRUE(check_params(row(behavior::end_bpf), sid(behavior::end_bpf), sid_param::bpf).ok());
}

TEST(SidParams, AnyOneOfAGroupWillDo) {
    for (auto set : {+[](seg6local& l) { l.table = 10; }, +[](seg6local& l) { l.vrftable = 10; },
                     +[](seg6local& l) { l.vrf_name = "red"; }}) {
        seg6local l = sid(behavior::end_dt4);
        set(l);
        EXPECT_TRUE(check_params(row(behavior::end_dt4), l).ok());
    }
    seg6local dx2 = sid(behavior::end_dx2);
    dx2.ifname = "Ethernet0";
    EXPECT_TRUE(check_params(row(behavior::end_dx2), dx2).ok());
}

TEST(SidParams, ValueChecks) {
    seg6local unknown = sid(behavior::end, flavor::psp | 0x20);
    param_check c = check_params(row(behavior::end), unknown);
    EXPECT_EQ(c.fault, param_fault::bad_value);
    EXPECT_EQ(c.params, sid_param::flavors);
    EXPECT_EQ(c.reason, "End does not take flavor 0x20");

    seg6local usid = sid(behavior::end, flavor::next_csid);
    usid.lcblock_bits = 120;  // with the default node+function 16: 136 bits
    EXPECT_EQ(check_params(row(behavior::end), usid).reason,
              "NEXT-C-SID block 120 and node+function 16 bits: each a non-zero multiple of 8, together at most 128");
    usid.lcblock_bits = 32;
    usid.lcnode_fn_bits = 12;
    EXPECT_EQ(check_params(row(behavior::end), usid).fault, param_fault::bad_value);
    usid.lcnode_fn_bits = 16;
    EXPECT_TRUE(check_params(row(behavior::end), usid).ok());
    // Lengths without the flavor are ignored, as the kernel does.
    seg6local psp = sid(behavior::end, flavor::psp);
    psp.lcblock_bits = 12;
    EXPECT_TRUE(check_params(row(behavior::end), psp).ok());
    // A flavor the row does not take is the contract check's, when compiled.
    EXPECT_TRUE(check_params(row(behavior::end_dt4), [] {
                    seg6local l = sid(behavior::end_dt4, flavor::psp);
                    l.vrftable = 10;
                    return l;
                }())
                    .ok());

    seg6local wide = sid(behavior::end);
    wide.structure = sid_structure{64, 64, 16, 0};
    c = check_params(row(behavior::end), wide);
    EXPECT_EQ(c.params, sid_param::structure);
    EXPECT_EQ(c.reason, "SID structure of 144 bits (block 64 + node 64 + function 16 + argument 0) is longer than 128");
    // Values are checked before requirements, as the kernel parses before it checks.
    seg6local both = sid(behavior::end_x, flavor::psp | 0x20);
    EXPECT_EQ(check_params(row(behavior::end_x), both).fault, param_fault::bad_value);
}

TEST(SidParams, UnusedOnesAreNamedAndDropped) {
    seg6local l = sid(behavior::end);
    l.vrf_name = "red";
    l.nh6 = ip6_addr{};
    l.table = 10;
    EXPECT_TRUE(check_params(row(behavior::end), l).ok());
    const uint16_t extra = unused_params(row(behavior::end), l);
    EXPECT_EQ(extra, sid_param::vrf_name | sid_param::nh6 | sid_param::table);
    EXPECT_EQ(unused_text(row(behavior::end), extra), "End does not take nh6, table or vrf");
    drop_params(l, extra);
    EXPECT_EQ(l, sid(behavior::end));
    EXPECT_EQ(unused_params(row(behavior::end), l, sid_param::bpf), sid_param::bpf);
}

TEST(SidParams, PrintedAsASidsLine) {
    seg6local dt46 = sid(behavior::end_dt46, flavor::next_csid);
    dt46.vrf_name = "red";
    dt46.lcblock_bits = 48;
    dt46.lcnode_fn_bits = 16;
    EXPECT_EQ(print_params(dt46), " vrf red flavors next-csid lblen 48 nflen 16");
    seg6local dt4 = sid(behavior::end_dt4);
    dt4.vrftable = 10;
    EXPECT_EQ(print_params(dt4), " table 10");
    seg6local x = sid(behavior::end_x, flavor::psp | flavor::usd);
    x.nh6 = *parse_ip6("fe80::1");
    x.oif = 7;
    x.ifname = "eth0";  // [sids] cannot say it
    EXPECT_EQ(print_params(x), " nh6 fe80::1 oif 7 flavors psp,usd");
    seg6local b6 = sid(behavior::end_b6_encaps);
    b6.srh.emplace();
    b6.srh->segments = {*parse_ip6("fc00:0:3::e"), *parse_ip6("fc00:0:2::d6")};
    b6.srh->mode = encap_mode::encap_red;
    b6.srh->source = *parse_ip6("fc00::1");
    EXPECT_EQ(print_params(b6), " segs fc00:0:3::e,fc00:0:2::d6 mode encap.red src fc00::1");
    EXPECT_EQ(print_params(sid(behavior::end)), "");
}

}  // namespace SRV6D_UNITY_ID
}  // namespace rib
