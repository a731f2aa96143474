#include "vrf/kernel_links.hh"

#include <gtest/gtest.h>
#include <netlink/msg.h>
#include <netlink/object.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vrf.h>
#include <sys/socket.h>

#include <memory>
#include <vector>

#include "vrf/registry.hh"

namespace vrf {
namespace SRV6D_UNITY_ID {

// Owns hand-built rtnl_link objects the way the kernel monitor's cache would hold them.
struct links {
    std::vector<rtnl_link*> v;
    ~links() {
        for (auto* l : v)
            rtnl_link_put(l);
    }
    rtnl_link* vrf(const char* name, int ifindex, std::optional<uint32_t> table) {
        rtnl_link* l = rtnl_link_vrf_alloc();
        rtnl_link_set_name(l, name);
        rtnl_link_set_ifindex(l, ifindex);
        if (table)
            rtnl_link_vrf_set_tableid(l, *table);
        v.push_back(l);
        return l;
    }
    rtnl_link* plain(const char* name, int ifindex, int master = 0) {
        rtnl_link* l = rtnl_link_alloc();
        rtnl_link_set_name(l, name);
        rtnl_link_set_ifindex(l, ifindex);
        if (master)
            rtnl_link_set_master(l, master);
        v.push_back(l);
        return l;
    }
};

TEST(KernelLinks, VrfDevicesAndTheirMembers) {
    links ls;
    ls.plain("eth2", 4, 10);
    ls.vrf("red", 10, 100);
    ls.plain("eth1", 3, 10);
    ls.plain("br0", 20);
    ls.plain("eth3", 5, 20);  // bridge port: not a VRF member
    ls.plain("lo", 1);
    ls.vrf("blue", 11, 200);
    const kernel_vrfs k = vrfs_from_links(ls.v);
    EXPECT_TRUE(k.problems.empty());
    ASSERT_EQ(k.specs.size(), 2u);
    EXPECT_EQ(k.specs[0].name, "red");
    EXPECT_EQ(k.specs[0].table, 100u);
    EXPECT_EQ(k.specs[0].dev_ifindex, 10u);
    EXPECT_EQ(k.specs[0].members, (std::vector<member>{{"eth1", 3}, {"eth2", 4}}));
    EXPECT_EQ(k.specs[1].name, "blue");
    EXPECT_EQ(k.specs[1].table, 200u);
    EXPECT_TRUE(k.specs[1].members.empty());
}

TEST(KernelLinks, NoVrfDevicesGiveNoClaims) {
    links ls;
    ls.plain("lo", 1);
    ls.plain("eth0", 2);
    EXPECT_TRUE(vrfs_from_links(ls.v).specs.empty());
    EXPECT_TRUE(vrfs_from_links({}).specs.empty());
}

TEST(KernelLinks, VrfWithoutTableIsAProblemNotAClaim) {
    links ls;
    ls.vrf("odd", 12, std::nullopt);
    const kernel_vrfs k = vrfs_from_links(ls.v);
    EXPECT_TRUE(k.specs.empty());
    ASSERT_EQ(k.problems.size(), 1u);
    EXPECT_EQ(k.problems[0], "VRF device odd (ifindex 12) has no table id");
}

TEST(KernelLinks, BridgeFamilyViewsAreIgnored) {
    links ls;
    ls.vrf("red", 10, 100);
    rtnl_link* port = ls.plain("eth1", 3, 10);
    rtnl_link_set_family(port, AF_BRIDGE);  // the AF_BRIDGE view of a port, not the device
    const kernel_vrfs k = vrfs_from_links(ls.v);
    ASSERT_EQ(k.specs.size(), 1u);
    EXPECT_TRUE(k.specs[0].members.empty());
}

TEST(KernelLinks, TranslationFeedsTheStrictRegistry) {
    links ls;
    ls.vrf("red", 10, 100);
    ls.vrf("blue", 11, 100);  // a kernel without strict_mode allows this; we do not
    ls.plain("eth1", 3, 11);
    registry r;
    const auto errors = r.sync(source::kernel, vrfs_from_links(ls.v).specs);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], "vrf blue: table 100 is already bound to vrf red (kernel)");
    EXPECT_EQ(r.lookup_table(100).vrf->name, "red");
    EXPECT_EQ(r.lookup_device(10).vrf->name, "red");
    EXPECT_EQ(r.lookup_ifindex(3).state, binding::kind::conflict);  // eth1's VRF is refused
}

// The same attributes through libnl's own message parser, as notifications arrive: build the
// RTM_NEWLINK a VRF device produces and parse it back into an rtnl_link.
TEST(KernelLinks, VrfAttributesSurviveTheNetlinkParser) {
    links ls;
    rtnl_link* red = ls.vrf("red", 10, 1234);
    nl_msg* msg = nullptr;
    ASSERT_EQ(rtnl_link_build_add_request(red, 0, &msg), 0);
    std::unique_ptr<nl_msg, void (*)(nl_msg*)> owned(msg, nlmsg_free);
    nlmsg_set_proto(msg, NETLINK_ROUTE);
    std::vector<rtnl_link*> parsed;
    const int err = nl_msg_parse(
        msg,
        [](nl_object* o, void* arg) {
            nl_object_get(o);
            static_cast<std::vector<rtnl_link*>*>(arg)->push_back(reinterpret_cast<rtnl_link*>(o));
        },
        &parsed);
    ASSERT_EQ(err, 0);
    ASSERT_EQ(parsed.size(), 1u);
    ls.v.push_back(parsed[0]);  // released with the others
    const kernel_vrfs k = vrfs_from_links(std::span<rtnl_link* const>(&parsed[0], 1));
    ASSERT_EQ(k.specs.size(), 1u);
    EXPECT_EQ(k.specs[0].name, "red");
    EXPECT_EQ(k.specs[0].table, 1234u);
    EXPECT_EQ(k.specs[0].dev_ifindex, 10u);
}

}  // namespace
}  // namespace vrf
