// `show route ADDR`: the compiled tables' answer in the protocol's words, built from a real RIB
// through the real compiler, then printed as srv6ctl prints it.
#include <gtest/gtest.h>

#include "apps/srv6d/route_answer.hh"
#include "fib/control/compiler.hh"
#include "mgmt/text.hh"
#include "rib/behaviors.hh"
#include "rib/rib.hh"

namespace srv6d {
namespace SRV6D_UNITY_ID {

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }

rib::nexthop via(const char* gw, uint32_t ifindex, uint16_t weight = 1) {
    rib::nexthop n;
    n.gateway = *rib::parse_addr(gw);
    n.ifindex = ifindex;
    n.weight = weight;
    return n;
}

rib::route unicast(const char* dst, std::vector<rib::nexthop> nhs, rib::table_id t = rib::main_table) {
    rib::route r;
    r.key.table = t;
    r.key.dst = *rib::parse_prefix(dst);
    r.protocol = rib::proto::bgp;
    r.nexthops = std::move(nhs);
    return r;
}

struct fixture : ::testing::Test {
    fib::qsbr_domain rcu{2};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    interface_names names{[](uint32_t i) { return i == 3 ? std::string("eth1") : std::string(); },
                          [](uint32_t i) -> std::optional<std::string> {
                              if (i == 3)
                                  return "p1";
                              return std::nullopt;
                          }};

    void SetUp() override { (void)src.set_configured(a6("fc00:0:1::1")); }

    ::mgmt::pb::Response ask(const char* addr, const char* vrf = nullptr) {
        EXPECT_TRUE(c.compile(r, reg, src) || c.current());
        ::mgmt::pb::ShowRoute q;
        q.set_address(addr);
        if (vrf)
            q.set_vrf(vrf);
        ::mgmt::pb::Response resp;
        answer_show_route(q, c, reg, r, names, resp);
        return resp;
    }
};

// From a remote zebra an ifindex is another host's: this host's kernel name of it is not shown
// (it would be an unrelated interface), srv6d's port of it is.
TEST_F(fixture, foreign_ifindexes_are_not_named_by_this_kernel) {
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 3)}));
    r.upsert_route(unicast("10.2.0.0/16", {via("192.0.2.9", 4)}));
    names.kernel = [](uint32_t i) { return i == 3 ? std::string("eth1") : i == 4 ? std::string("ifb1") : std::string(); };
    names.foreign = true;
    auto resp = ask("10.1.7.7");
    EXPECT_EQ(resp.route().paths(0).ifname(), "");
    EXPECT_EQ(resp.route().paths(0).port(), "p1");
    EXPECT_EQ(names.name(3), "p1");
    resp = ask("10.2.7.7");
    EXPECT_EQ(resp.route().paths(0).ifname(), "");
    EXPECT_EQ(names.name(4), "") << "ifindex 4 is shown as a number";
    names.foreign = false;
    EXPECT_EQ(names.name(4), "ifb1");
    EXPECT_EQ(ask("10.2.7.7").route().paths(0).ifname(), "ifb1");
}

TEST_F(fixture, forward_path_with_interface_names) {
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 3)}));
    r.upsert_route(unicast("10.1.2.0/24", {via("192.0.2.9", 4)}));
    const auto resp = ask("10.1.7.7");
    ASSERT_EQ(resp.error(), "");
    const auto& o = resp.route();
    EXPECT_EQ(o.prefix(), "10.1.0.0/16") << "the /24 does not cover 10.1.7.7";
    EXPECT_EQ(o.protocol_name(), "bgp");
    EXPECT_EQ(o.vrf(), "default");
    EXPECT_EQ(o.nh_kind(), "forward");
    ASSERT_EQ(o.paths_size(), 1);
    EXPECT_EQ(o.paths(0).gateway(), "192.0.2.1");
    EXPECT_EQ(o.paths(0).ifindex(), 3u);
    EXPECT_EQ(o.paths(0).ifname(), "eth1");
    EXPECT_EQ(o.paths(0).port(), "p1");
    EXPECT_EQ(::mgmt::format_response(resp),
              "10.1.7.7 in vrf default (table 254): 10.1.0.0/16 [bgp] nexthop " + std::to_string(o.nh_index()) +
                  " (forward)\n  forward via 192.0.2.1, dev eth1 (ifindex 3, port p1)\n");
    EXPECT_EQ(ask("10.1.2.3").route().prefix(), "10.1.2.0/24") << "longest match";
    EXPECT_EQ(ask("10.1.2.3").route().paths(0).ifname(), "") << "no name known for ifindex 4";
}

TEST_F(fixture, headend_shows_mode_segments_and_source_in_a_vrf) {
    ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"blue", 100, {}, std::nullopt}).ok());
    rib::nexthop e = via("fe80::1", 3);
    e.seg6 = rib::seg6_encap{rib::encap_mode::encap_red, {a6("fc00:0:2::d46"), a6("fc00:0:3::1")}, std::nullopt, {}};
    r.upsert_route(unicast("10.9.0.0/24", {e}, 100));
    const auto resp = ask("10.9.0.5", "blue");
    ASSERT_EQ(resp.error(), "");
    const auto& o = resp.route();
    EXPECT_EQ(o.vrf(), "blue");
    EXPECT_EQ(o.table(), 100u);
    EXPECT_EQ(o.prefix(), "10.9.0.0/24");
    ASSERT_EQ(o.paths_size(), 1);
    const auto& p = o.paths(0);
    EXPECT_EQ(p.kind(), "headend");
    EXPECT_EQ(p.encap(), "H.Encaps.Red");
    ASSERT_EQ(p.segments_size(), 2);
    EXPECT_EQ(p.segments(0), "fc00:0:2::d46");
    EXPECT_EQ(p.segments(1), "fc00:0:3::1");
    EXPECT_EQ(p.source(), "fc00:0:1::1");
    EXPECT_EQ(p.gateway(), "fe80::1");
    // Not in the default VRF.
    EXPECT_FALSE(ask("10.9.0.5").route().has_prefix());
}

TEST_F(fixture, local_sid_and_ecmp) {
    ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"blue", 100, {}, std::nullopt}).ok());
    rib::nexthop s;
    s.ifindex = 3;
    rib::seg6local l;
    l.action = rib::behavior::end_dt46;
    l.vrftable = 100;
    s.local = l;
    r.upsert_route(unicast("fc00:0:1:e000::/64", {s}));
    r.upsert_route(unicast("2001:db8::/32", {via("fe80::1", 3, 1), via("fe80::2", 4, 3)}));
    auto resp = ask("fc00:0:1:e000::");
    ASSERT_EQ(resp.error(), "");
    ASSERT_EQ(resp.route().paths_size(), 1);
    EXPECT_EQ(resp.route().paths(0).kind(), "local_sid");
    EXPECT_EQ(resp.route().paths(0).behavior(), "End.DT46");
    EXPECT_EQ(resp.route().paths(0).sid_vrf(), "blue");
    EXPECT_EQ(::mgmt::format_response(resp).substr(resp.route().address().size()),
              " in vrf default (table 254): fc00:0:1:e000::/64 [bgp] nexthop " +
                  std::to_string(resp.route().nh_index()) +
                  " (local_sid)\n  local_sid End.DT46 vrf blue, dev eth1 (ifindex 3, port p1)\n");

    resp = ask("2001:db8::1");
    EXPECT_EQ(resp.route().nh_kind(), "ecmp");
    ASSERT_EQ(resp.route().paths_size(), 2);
    EXPECT_EQ(resp.route().paths(0).gateway(), "fe80::1");
    EXPECT_EQ(resp.route().paths(1).weight(), 3u);
    EXPECT_NE(::mgmt::format_response(resp).find("weight 3] forward via fe80::2"), std::string::npos)
        << ::mgmt::format_response(resp);
}

TEST_F(fixture, no_route_bad_address_and_unknown_vrf_say_so) {
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 3)}));
    const auto miss = ask("10.2.0.1");
    ASSERT_EQ(miss.error(), "");
    EXPECT_FALSE(miss.route().has_prefix());
    EXPECT_EQ(miss.route().nh_index(), 0u);
    EXPECT_EQ(::mgmt::format_response(miss), "10.2.0.1 in vrf default (table 254): no route (nexthop 0: miss)\n");
    EXPECT_EQ(ask("10.300.0.1").error(), "'10.300.0.1' is not an IPv4 or IPv6 address");
    EXPECT_EQ(ask("10.1.0.1", "nope").error(), "vrf nope is not known (neither configured nor a kernel VRF device)");
}

}  // namespace
}  // namespace srv6d
