#include "vrf/config_parse.hh"

#include <gtest/gtest.h>

namespace vrf {
namespace SRV6D_UNITY_ID {

TEST(ConfigParse, VrfWithMembers) {
    auto p = parse_vrf("red table 10 members eth1,eth2");
    ASSERT_TRUE(p) << p.error;
    EXPECT_EQ(p.value->name, "red");
    EXPECT_EQ(p.value->table, 10u);
    EXPECT_EQ(p.value->members, (std::vector<member>{{"eth1", 0}, {"eth2", 0}}));
    EXPECT_FALSE(p.value->dev_ifindex);
}

TEST(ConfigParse, WholeLineAndSpacing) {
    auto a = parse_vrf("vrf = red table 10 members eth1,eth2");
    auto b = parse_vrf("  red\ttable 10   members eth1, eth2 ");
    auto c = parse_vrf("vrf=red members eth1,eth2 table 10");
    ASSERT_TRUE(a && b && c) << a.error << b.error << c.error;
    EXPECT_EQ(*a.value, *b.value);
    EXPECT_EQ(*a.value, *c.value);
}

TEST(ConfigParse, NoMembers) {
    auto p = parse_vrf("blue table 4294967295");
    ASSERT_TRUE(p) << p.error;
    EXPECT_EQ(p.value->table, 4294967295u);
    EXPECT_TRUE(p.value->members.empty());
    auto v = parse_vrf("vrfred table 7");  // a name that starts with "vrf"
    ASSERT_TRUE(v) << v.error;
    EXPECT_EQ(v.value->name, "vrfred");
}

TEST(ConfigParse, DefaultVrf) {
    EXPECT_TRUE(parse_vrf("default table 254"));
    EXPECT_EQ(parse_vrf("default table 10").error, "vrf 'default table 10': the default VRF is table 254");
    EXPECT_EQ(parse_vrf("red table 254").error, "vrf 'red table 254': table 254 is the default VRF's");
}

TEST(ConfigParse, Errors) {
    EXPECT_EQ(parse_vrf("").error, "vrf '': empty; expected 'NAME table ID [members IF,...]'");
    EXPECT_EQ(parse_vrf("red").error, "vrf 'red': missing 'table ID': a VRF has exactly one table");
    EXPECT_EQ(parse_vrf("red members eth1").error,
              "vrf 'red members eth1': missing 'table ID': a VRF has exactly one table");
    EXPECT_EQ(parse_vrf("red table").error, "vrf 'red table': 'table' needs a table id");
    EXPECT_EQ(parse_vrf("red table ten").error, "vrf 'red table ten': table 'ten' is not a number from 1 to 4294967295");
    EXPECT_EQ(parse_vrf("red table -1").error, "vrf 'red table -1': table '-1' is not a number from 1 to 4294967295");
    EXPECT_EQ(parse_vrf("red table 4294967296").error,
              "vrf 'red table 4294967296': table '4294967296' is not a number from 1 to 4294967295");
    EXPECT_EQ(parse_vrf("red table 0").error, "vrf 'red table 0': table 0 is not a table id");
    EXPECT_EQ(parse_vrf("red table 255").error, "vrf 'red table 255': table 255 is reserved by the kernel (local)");
    EXPECT_EQ(parse_vrf("red table 10 table 11").error,
              "vrf 'red table 10 table 11': 'table' given twice: a VRF has exactly one table");
    EXPECT_EQ(parse_vrf("red table 10 colour blue").error,
              "vrf 'red table 10 colour blue': unknown word 'colour'; expected 'table' or 'members'");
    EXPECT_EQ(parse_vrf("red table 10 members").error,
              "vrf 'red table 10 members': 'members' needs a comma-separated interface list");
    EXPECT_EQ(parse_vrf("red table 10 members eth1,,eth2").error,
              "vrf 'red table 10 members eth1,,eth2': empty interface name in the member list");
    EXPECT_EQ(parse_vrf("red table 10 members eth1,eth1").error,
              "vrf 'red table 10 members eth1,eth1': interface eth1 is listed twice");
    EXPECT_EQ(parse_vrf("red table 10 members eth1 members eth2").error,
              "vrf 'red table 10 members eth1 members eth2': 'members' given twice");
    EXPECT_EQ(parse_vrf("table 10").error, "vrf 'table 10': the VRF name comes first: 'NAME table ID [members IF,...]'");
    EXPECT_EQ(parse_vrf("a-very-long-vrf-name table 10").error,
              "vrf 'a-very-long-vrf-name table 10': VRF name 'a-very-long-vrf-name' is longer than 15 characters (IFNAMSIZ)");
    EXPECT_EQ(parse_vrf("red table 10 members eth/1").error,
              "vrf 'red table 10 members eth/1': member name 'eth/1' contains a character interface names cannot have");
}

}  // namespace
}  // namespace vrf
