#include <gtest/gtest.h>

#include "mgmt/names.hh"
#include "rib/behaviors.hh"  // behavior_display_name: the contract names them

namespace mgmt {
namespace SRV6D_UNITY_ID {

TEST(Names, Protocols) {
    EXPECT_EQ(protocol_name(2), "kernel");
    EXPECT_EQ(protocol_name(196), "static");
    EXPECT_EQ(protocol_name(186), "bgp");
    EXPECT_EQ(protocol_name(188), "ospf");
    EXPECT_EQ(protocol_name(99), "proto 99");
    EXPECT_EQ(protocol_code(2), "K");
    EXPECT_EQ(protocol_code(196), "S");
    EXPECT_EQ(protocol_code(186), "B");
    EXPECT_EQ(protocol_code(187), "I");
    EXPECT_EQ(protocol_code(194), "D");
    EXPECT_EQ(protocol_code(11), "T");
    EXPECT_EQ(protocol_code(99), "?");
}

TEST(Names, MessageTypes) {
    EXPECT_EQ(msg_type_name(24), "RTM_NEWROUTE");
    EXPECT_EQ(msg_type_name(25), "RTM_DELROUTE");
    EXPECT_EQ(msg_type_name(104), "RTM_NEWNEXTHOP");
    EXPECT_EQ(msg_type_name(105), "RTM_DELNEXTHOP");
    EXPECT_EQ(msg_type_name(1000), "RTM_NEWSRV6LOCALSID");
    EXPECT_EQ(msg_type_name(1001), "RTM_DELSRV6LOCALSID");
    EXPECT_EQ(msg_type_name(2000), "RTM_NEWPICCONTEXT");
    EXPECT_EQ(msg_type_name(3001), "RTM_DELSRV6VPNROUTE");
    EXPECT_EQ(msg_type_name(4000), "RTM_NEWSIDLIST");
    EXPECT_EQ(msg_type_name(0x8001), "ADD_ROUTE");
    EXPECT_EQ(msg_type_name(0x8004), "DELETE_SRV6_LOCALSID");
    EXPECT_EQ(msg_type_name(0x8009), "protobuf type 9");
    EXPECT_EQ(msg_type_name(77), "type 77");
}

TEST(Names, Behaviors) {
    using rib::behavior;
    namespace fl = rib::flavor;
    EXPECT_EQ(behavior_display_name(behavior::end, 0), "End");
    EXPECT_EQ(behavior_display_name(behavior::end, fl::next_csid), "uN");
    EXPECT_EQ(behavior_display_name(behavior::end, fl::psp | fl::next_csid), "uN");
    EXPECT_EQ(behavior_display_name(behavior::end_x, fl::next_csid), "uA");
    EXPECT_EQ(behavior_display_name(behavior::end_x, fl::psp), "End.X");
    EXPECT_EQ(behavior_display_name(behavior::end_dt46, 0), "End.DT46");
    EXPECT_EQ(behavior_display_name(behavior::end_dt46, fl::next_csid), "uDT46");
    EXPECT_EQ(behavior_display_name(behavior::end_dt4, fl::next_csid), "uDT4");
    EXPECT_EQ(behavior_display_name(behavior::end_dx6, fl::next_csid), "uDX6");
    EXPECT_EQ(behavior_display_name(behavior::end_t, fl::next_csid), "End.T");  // RFC 9800 has no uT
}

TEST(Names, ModelEnums) {
    EXPECT_EQ(encap_mode_name(rib::encap_mode::encap), "H.Encaps");
    EXPECT_EQ(encap_mode_name(rib::encap_mode::encap_red), "H.Encaps.Red");
    EXPECT_EQ(encap_mode_name(rib::encap_mode::inline_srh), "H.Insert");
    EXPECT_EQ(encap_mode_name(rib::encap_mode::l2encap_red), "H.Encaps.L2.Red");
    EXPECT_EQ(rib::route_type_name(rib::route_type::prohibit), "prohibit");
    EXPECT_EQ(rib::route_type_name(static_cast<rib::route_type>(99)), "unknown");
    EXPECT_EQ(resolve_state_name(rib::resolve_state::no_paths), "no_paths");
}

TEST(Names, Printable) {
    EXPECT_EQ(printable("Vrf-red_1"), "Vrf-red_1");
    EXPECT_EQ(printable(std::string("a\0b\x1b[31m\xc3\xa9", 10)), "a?b?[31m??");
}

}  // namespace
}  // namespace mgmt
