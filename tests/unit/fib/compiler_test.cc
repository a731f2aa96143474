// The table compiler: RIB + VRF registry + encap source -> published view. Every case reads the
// result through the reader API (dataplane_view lookups and nexthop()), as a worker would.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "fib/control/encap_build.hh"
#include "vrf/sid_parse.hh"

namespace fib {
namespace SRV6D_UNITY_ID {

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }
rib::prefix p(const char* s) { return *rib::parse_prefix(s); }

rib::nexthop via(const char* gw, uint32_t ifindex, uint16_t weight = 1) {
    rib::nexthop n;
    n.gateway = *rib::parse_addr(gw);
    n.ifindex = ifindex;
    n.weight = weight;
    return n;
}

rib::route unicast(const char* dst, std::vector<rib::nexthop> nhs, rib::table_id t = rib::main_table, uint8_t proto = rib::proto::bgp) {
    rib::route r;
    r.key.table = t;
    r.key.dst = p(dst);
    r.protocol = proto;
    r.nexthops = std::move(nhs);
    return r;
}

rib::route typed(const char* dst, rib::route_type ty) {
    rib::route r;
    r.key.dst = p(dst);
    r.type = ty;
    r.protocol = rib::proto::zstatic;
    return r;
}

rib::nexthop encap_path(std::vector<rib::ip6_addr> segs, rib::encap_mode mode = rib::encap_mode::encap,
                   std::optional<rib::ip6_addr> src = std::nullopt) {
    rib::nexthop n = via("fc00:1::2", 3);
    n.seg6 = rib::seg6_encap{mode, std::move(segs), src, {}};
    return n;
}

rib::nexthop sid_path(rib::behavior b, std::optional<rib::table_id> table, std::optional<rib::table_id> vrftable) {
    rib::nexthop n;
    n.ifindex = 7;
    rib::seg6local l;
    l.action = b;
    l.table = table;
    l.vrftable = vrftable;
    n.local = l;
    return n;
}

struct fixture : ::testing::Test {
    qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    compiler c{rcu};

    void SetUp() override { (void)src.set_configured(a6("2001:db8::1")); }

    bool compile() { return c.compile(r, reg, src); }
    const dataplane_view& view() { return *c.current(); }

    uint32_t lookup(vrf::vrf_id v, const char* addr) {
        const auto a = *rib::parse_addr(addr);
        if (a.is_v4())
            return view().lookup4(v, key4(a.bytes.data()));
        return view().lookup6(v, a.bytes.data());
    }
    const compiled_nh& nh_at(vrf::vrf_id v, const char* addr) { return view().nexthop(lookup(v, addr)); }
    vrf::vrf_id bind(const char* name, rib::table_id t) {
        EXPECT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{name, t, {}, std::nullopt}).ok());
        return reg.find(name)->id;
    }
};

TEST_F(fixture, route_types_and_forwarding_in_the_default_vrf) {
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 2)}));
    r.upsert_route(unicast("2001:db8:1::/48", {via("fe80::1", 3)}));
    r.upsert_route(typed("10.9.0.0/16", rib::route_type::blackhole));
    r.upsert_route(typed("10.8.0.0/16", rib::route_type::unreachable));
    r.upsert_route(typed("10.7.0.0/16", rib::route_type::prohibit));
    r.upsert_route(typed("10.6.0.1/32", rib::route_type::local));
    ASSERT_TRUE(compile());

    const auto& f4 = nh_at(0, "10.1.2.3");
    ASSERT_EQ(f4.kind(), nh_kind::forward);
    EXPECT_EQ(f4.via().ifindex, 2u);
    EXPECT_EQ(f4.via().gw_family, static_cast<uint8_t>(rib::family::ipv4));
    EXPECT_EQ(f4.via().gw[0], 192);
    EXPECT_EQ(f4.via().gw[3], 1);
    EXPECT_TRUE(f4.intact());
    EXPECT_EQ(nh_at(0, "2001:db8:1:ff::1").via().ifindex, 3u);
    EXPECT_EQ(nh_at(0, "10.9.1.1").kind(), nh_kind::blackhole);
    EXPECT_EQ(nh_at(0, "10.8.1.1").kind(), nh_kind::unreachable);
    EXPECT_EQ(nh_at(0, "10.7.1.1").kind(), nh_kind::prohibit);
    EXPECT_EQ(nh_at(0, "10.6.0.1").kind(), nh_kind::receive);
    EXPECT_EQ(lookup(0, "10.2.0.1"), nh_miss);
    EXPECT_EQ(nh_at(0, "10.2.0.1").kind(), nh_kind::miss);
    EXPECT_EQ(c.stats().routes[static_cast<size_t>(route_state::installed)], 6u);
    // Nothing changed: no new publication.
    EXPECT_FALSE(compile());
}

// Changed tables are published two-level (partial rebuilds under churn); once a few compiles
// pass without a change they are republished flat, with the same answers; a change makes them
// two-level again until quiet.
TEST_F(fixture, quiet_tables_are_republished_flat) {
    for (int i = 0; i < 200; ++i) {
        r.upsert_route(unicast(fmt::format("10.{}.{}.0/24", i / 100, i % 100).c_str(), {via("192.0.2.1", 2)}));
        r.upsert_route(unicast(fmt::format("2001:db8:{:x}::/48", i).c_str(), {via("fe80::1", 3)}));
    }
    ASSERT_TRUE(compile());
    EXPECT_EQ(view().tables(0).v4->flat(), nullptr);
    EXPECT_EQ(view().tables(0).v6->flat(), nullptr);
    EXPECT_TRUE(c.settling());
    // Under churn (a change at every compile) it stays two-level.
    for (int i = 0; i < 10; ++i) {
        r.upsert_route(unicast("10.1.50.0/24", {via(i % 2 ? "192.0.2.1" : "192.0.2.7", 2)}));
        ASSERT_TRUE(compile());
        EXPECT_EQ(view().tables(0).v4->flat(), nullptr) << i;
    }
    int quiet = 0;
    while (c.settling() && quiet < 50) {
        compile();
        ++quiet;
    }
    EXPECT_FALSE(c.settling());
    EXPECT_LE(quiet, 18);  // settle_after (16) quiet compiles, then one
    ASSERT_NE(view().tables(0).v4->flat(), nullptr);
    ASSERT_NE(view().tables(0).v6->flat(), nullptr);
    EXPECT_EQ(nh_at(0, "10.1.50.9").via().gw[3], 1);
    EXPECT_EQ(nh_at(0, "2001:db8:c7::1").via().ifindex, 3u);
    EXPECT_EQ(lookup(0, "10.2.0.1"), nh_miss);
    EXPECT_FALSE(compile());  // settled: nothing to publish
    // A change: two-level with it at once, flat again once quiet.
    r.upsert_route(unicast("10.1.50.0/24", {via("192.0.2.9", 2)}));
    ASSERT_TRUE(compile());
    EXPECT_EQ(view().tables(0).v4->flat(), nullptr);
    EXPECT_NE(view().tables(0).v6->flat(), nullptr);  // untouched: stays flat
    EXPECT_EQ(nh_at(0, "10.1.50.9").via().gw[3], 9);
    for (quiet = 0; c.settling() && quiet < 50; ++quiet)
        compile();
    ASSERT_NE(view().tables(0).v4->flat(), nullptr);
    EXPECT_EQ(nh_at(0, "10.1.50.9").via().gw[3], 9);
    EXPECT_EQ(nh_at(0, "10.0.3.1").via().gw[3], 1);
}

// The bulk lookups (the worker's: IPv4 keys, IPv6 as bytes or as keys) answer as the single
// ones, two-level and flat, inside the tables' regions and outside; a VRF without tables misses.
TEST_F(fixture, bulk_lookups_answer_as_single_ones) {
    for (uint32_t i = 0; i < 300; ++i) {
        r.upsert_route(unicast(fmt::format("10.{}.{}.0/24", i / 100, i % 100).c_str(), {via("192.0.2.1", 2 + i % 5)}));
        r.upsert_route(unicast(fmt::format("2001:db8:{:x}::/48", i).c_str(), {via("fe80::1", 2 + i % 7)}));
    }
    r.upsert_route(unicast("10.1.7.9/32", {via("192.0.2.1", 9)}));
    r.upsert_route(unicast("2001:db8:5:0:1::/80", {via("fe80::1", 9)}));
    r.upsert_route(unicast("2001:db8:5::77/128", {via("fe80::1", 10)}));
    std::mt19937_64 rng(7);
    auto check = [&](const char* form) {
        constexpr uint32_t n = 64;
        uint32_t a4[n], r4[n], r6b[n], r6k[n];
        uint8_t a6b[n][16];
        u128 a6k[n];
        for (uint32_t i = 0; i < n; ++i) {
            // Half inside the routes' space (10.0-3.x.x, 2001:db8:0-12f::), half anywhere.
            const uint64_t x = rng();
            a4[i] = i % 2 ? static_cast<uint32_t>(x) : (10u << 24) | static_cast<uint32_t>(x & 0x3ffff);
            const auto b = key6_bytes(i % 2 ? (u128{x} << 64 | rng())
                                            : (u128{0x20010db8} << 96 | u128{x % 0x130} << 80 | u128{rng() & 0xf}));
            std::copy(b.begin(), b.end(), a6b[i]);
            a6k[i] = key6(a6b[i]);
        }
        a4[0] = (10u << 24) | (1u << 16) | (7u << 8) | 9u;  // the /32
        a6k[0] = key6(rib::parse_addr("2001:db8:5::77")->bytes.data());
        std::copy_n(key6_bytes(a6k[0]).data(), 16, a6b[0]);
        a6k[1] = key6(rib::parse_addr("2001:db8:5:0:1::5")->bytes.data());  // in the /80
        std::copy_n(key6_bytes(a6k[1]).data(), 16, a6b[1]);
        view().lookup4_bulk(0, a4, r4, n);
        view().lookup6_bulk(0, a6b, r6b, n);
        view().lookup6_bulk(0, a6k, r6k, n);
        for (uint32_t i = 0; i < n; ++i) {
            EXPECT_EQ(r4[i], view().lookup4(0, a4[i])) << form << " " << i;
            EXPECT_EQ(r6b[i], view().lookup6(0, a6b[i])) << form << " " << i;
            EXPECT_EQ(r6k[i], r6b[i]) << form << " " << i;
        }
        EXPECT_EQ(view().nexthop(r4[0]).via().ifindex, 9u) << form;
        EXPECT_EQ(view().nexthop(r6k[0]).via().ifindex, 10u) << form;
        EXPECT_EQ(view().nexthop(r6k[1]).via().ifindex, 9u) << form;
        const vrf::vrf_id none = static_cast<vrf::vrf_id>(view().vrf_count() + 3);
        view().lookup4_bulk(none, a4, r4, n);
        view().lookup6_bulk(none, a6k, r6k, n);
        for (uint32_t i = 0; i < n; ++i) {
            EXPECT_EQ(r4[i], nh_miss);
            EXPECT_EQ(r6k[i], nh_miss);
        }
    };
    ASSERT_TRUE(compile());
    ASSERT_EQ(view().tables(0).v4->flat(), nullptr);
    check("two-level");
    while (c.settling())
        compile();
    ASSERT_NE(view().tables(0).v4->flat(), nullptr);
    ASSERT_NE(view().tables(0).v6->flat(), nullptr);
    check("flat");
}

TEST_F(fixture, frr10_local_host_routes_become_receive) {
    rib::nexthop oif_only;
    oif_only.ifindex = 4;
    r.upsert_route(unicast("10.0.1.1/32", {oif_only}, rib::main_table, rib::proto::kernel));   // own address
    r.upsert_route(unicast("10.0.1.0/24", {oif_only}, rib::main_table, rib::proto::kernel));   // connected
    r.upsert_route(unicast("10.0.2.9/32", {via("10.0.1.2", 4)}, rib::main_table, rib::proto::kernel));  // via a gateway
    r.upsert_route(unicast("fc00:1::1/128", {oif_only}, rib::main_table, rib::proto::kernel));
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "10.0.1.1").kind(), nh_kind::receive);
    EXPECT_EQ(nh_at(0, "10.0.1.7").kind(), nh_kind::forward);
    EXPECT_EQ(nh_at(0, "10.0.2.9").kind(), nh_kind::forward);
    EXPECT_EQ(nh_at(0, "fc00:1::1").kind(), nh_kind::receive);
    EXPECT_EQ(c.stats().routes_receive, 2u);
}

TEST_F(fixture, routes_of_unbound_tables_are_counted_and_follow_the_binding) {
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 2)}, 10));
    r.upsert_route(unicast("10.2.0.0/16", {via("192.0.2.1", 2)}, 10));
    ASSERT_TRUE(compile());
    EXPECT_EQ(c.unbound_tables().at(10), 2u);
    EXPECT_EQ(c.find({10, p("10.1.0.0/16"), {}})->state, route_state::unbound);

    const auto red = bind("red", 10);
    ASSERT_TRUE(compile());
    EXPECT_TRUE(c.unbound_tables().empty());
    EXPECT_EQ(nh_at(red, "10.1.0.1").kind(), nh_kind::forward);
    EXPECT_EQ(lookup(0, "10.1.0.1"), nh_miss) << "never in the default VRF";

    // Rebinding table 10 to another VRF moves the routes; unbinding takes them out. blue
    // claims table 10 while red holds it (refused, own id), and gets it when red goes.
    EXPECT_FALSE(reg.set(vrf::source::config, vrf::vrf_spec{"blue", 10, {}, std::nullopt}).ok());
    const auto blue = reg.find("blue")->id;
    ASSERT_NE(blue, red);
    EXPECT_FALSE(compile()) << "a refused claim changes no binding: nothing to publish";
    EXPECT_EQ(nh_at(red, "10.2.0.1").kind(), nh_kind::forward);
    ASSERT_TRUE(reg.remove(vrf::source::config, "red"));
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(blue, "10.2.0.1").kind(), nh_kind::forward);
    EXPECT_EQ(lookup(red, "10.2.0.1"), nh_miss);
    ASSERT_TRUE(reg.remove(vrf::source::config, "blue"));
    ASSERT_TRUE(compile());
    EXPECT_EQ(lookup(blue, "10.2.0.1"), nh_miss);
    EXPECT_EQ(c.unbound_tables().at(10), 2u);
}

TEST_F(fixture, sid_binding_flips_with_the_registry) {
    // End.DT6 with TABLE 100 and End.DT4 with VRFTABLE 100, as FRR sends them, in table 254.
    rib::route dt6 = unicast("fc00:0:1:e000::/64", {sid_path(rib::behavior::end_dt6, 100, std::nullopt)}, rib::main_table,
                        rib::proto::zstatic);
    rib::route dt4 = unicast("fc00:0:1:e001::/64", {sid_path(rib::behavior::end_dt4, std::nullopt, 100)}, rib::main_table,
                        rib::proto::zstatic);
    rib::route end = unicast("fc00:0:1::/48", {sid_path(rib::behavior::end, std::nullopt, std::nullopt)}, rib::main_table,
                        rib::proto::zstatic);
    r.upsert_route(dt6);
    r.upsert_route(dt4);
    r.upsert_route(end);
    ASSERT_TRUE(compile());
    const uint32_t idx = lookup(0, "fc00:0:1:e000::");
    const auto& refused = view().nexthop(idx);
    ASSERT_EQ(refused.kind(), nh_kind::refused);
    EXPECT_EQ(refused.refusal(), nh_refusal::sid_table_unbound);
    EXPECT_EQ(c.reason(idx), "table 100 is not bound to any VRF");
    EXPECT_EQ(c.stats().refused[static_cast<size_t>(nh_refusal::sid_table_unbound)], 2u);
    // uN /48 around them: longest match, End is active without a VRF.
    EXPECT_EQ(nh_at(0, "fc00:0:1:42::").kind(), nh_kind::local_sid);

    const auto v100 = bind("Vrf100", 100);
    ASSERT_TRUE(compile());
    EXPECT_EQ(lookup(0, "fc00:0:1:e000::"), idx) << "same index, new object";
    const auto& active = view().nexthop(idx);
    ASSERT_EQ(active.kind(), nh_kind::local_sid);
    EXPECT_EQ(active.sid().action, static_cast<uint16_t>(rib::behavior::end_dt6));
    EXPECT_EQ(active.sid().has_vrf, 1);
    EXPECT_EQ(active.sid().vrf, v100);
    EXPECT_EQ(active.sid().table, 100u);
    EXPECT_EQ(nh_at(0, "fc00:0:1:e001::").sid().vrf, v100);
    EXPECT_EQ(c.stats().refused[static_cast<size_t>(nh_refusal::sid_table_unbound)], 0u);
    EXPECT_TRUE(c.reason(idx).empty());

    ASSERT_TRUE(reg.remove(vrf::source::config, "Vrf100"));
    ASSERT_TRUE(compile());
    EXPECT_EQ(view().nexthop(idx).kind(), nh_kind::refused);
    EXPECT_EQ(view().nexthop(idx).refusal(), nh_refusal::sid_table_unbound);
}

TEST_F(fixture, a_sid_without_its_own_vrf_forwards_in_the_vrf_it_lives_in) {
    const auto red = bind("red", 10);
    const auto end = sid_path(rib::behavior::end, std::nullopt, std::nullopt);
    r.upsert_route(unicast("fc00:0:1::/48", {end}, rib::main_table, rib::proto::zstatic));
    r.upsert_route(unicast("fc00:0:9::/48", {end}, 10, rib::proto::zstatic));
    ASSERT_TRUE(compile());
    const auto& in_default = nh_at(0, "fc00:0:1::1");
    const auto& in_red = nh_at(red, "fc00:0:9::1");
    ASSERT_EQ(in_default.kind(), nh_kind::local_sid);
    EXPECT_EQ(in_default.sid().has_vrf, 1);
    EXPECT_EQ(in_default.sid().vrf, 0);
    ASSERT_EQ(in_red.kind(), nh_kind::local_sid);
    EXPECT_EQ(in_red.sid().vrf, red);
    EXPECT_NE(in_default.index(), in_red.index()) << "same path, different VRFs: two nexthops";
}

// srv6d's own [sids]: compiled like zebra's SIDs, bound when their VRF binds, shadowed by
// zebra's SID at the same prefix, never swept.
TEST_F(fixture, config_sids_compile_into_the_default_vrf_like_zebras) {
    const auto line = vrf::parse_sid("fc00:1::d46 End.DT46 vrf red");
    ASSERT_TRUE(line) << line.error;
    r.add_config_route(vrf::to_route(*line.value));
    ASSERT_TRUE(compile());
    const uint32_t idx = lookup(0, "fc00:1::d46");
    ASSERT_EQ(view().nexthop(idx).kind(), nh_kind::refused);
    EXPECT_EQ(view().nexthop(idx).refusal(), nh_refusal::sid_vrf_unknown);
    EXPECT_EQ(c.reason(idx), "vrf red is not known (neither configured nor a kernel VRF device)");
    EXPECT_EQ(lookup(0, "fc00:1::d47"), nh_miss) << "a /128";

    const auto red = bind("red", 10);  // the VRF appears: the SID becomes active by itself
    ASSERT_TRUE(compile());
    const auto& dt46 = nh_at(0, "fc00:1::d46");
    ASSERT_EQ(dt46.kind(), nh_kind::local_sid);
    EXPECT_EQ(dt46.sid().action, static_cast<uint16_t>(rib::behavior::end_dt46));
    EXPECT_EQ(dt46.sid().has_vrf, 1);
    EXPECT_EQ(dt46.sid().vrf, red);

    // zebra sends a SID for the same prefix: zebra's wins.
    const auto blue = bind("blue", 20);
    rib::route zebra = unicast("fc00:1::d46/128", {sid_path(rib::behavior::end_dt6, 20, std::nullopt)}, rib::main_table,
                          rib::proto::zstatic);
    r.upsert_route(zebra);
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "fc00:1::d46").sid().action, static_cast<uint16_t>(rib::behavior::end_dt6));
    EXPECT_EQ(nh_at(0, "fc00:1::d46").sid().vrf, blue);
    // ... and when zebra withdraws it, the config SID is back.
    r.delete_route(zebra.key);
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "fc00:1::d46").sid().action, static_cast<uint16_t>(rib::behavior::end_dt46));
    EXPECT_EQ(nh_at(0, "fc00:1::d46").sid().vrf, red);

    // A zebra restart (resync + full sweep) leaves it alone.
    r.begin_resync();
    r.sweep();
    (void)compile();
    ASSERT_EQ(nh_at(0, "fc00:1::d46").kind(), nh_kind::local_sid);
    EXPECT_EQ(nh_at(0, "fc00:1::d46").sid().vrf, red);
}

TEST_F(fixture, encap_source_change_rewrites_templates_in_place) {
    r.upsert_route(unicast("10.5.0.0/16", {encap_path({a6("fc00:0:2::d4")})}));
    r.upsert_route(unicast("2001:db8:5::/48", {encap_path({a6("fc00:0:2::d6"), a6("fc00:0:3::1")})}));
    // Its own source (SEG6_IPTUNNEL_SRC) wins and does not follow the global one.
    r.upsert_route(unicast("10.6.0.0/16", {encap_path({a6("fc00:0:2::d4")}, rib::encap_mode::encap, a6("fc00:9::9"))}));
    ASSERT_TRUE(compile());
    const uint32_t i4 = lookup(0, "10.5.0.1");
    const compiled_nh* before = &view().nexthop(i4);
    ASSERT_EQ(before->kind(), nh_kind::headend);
    auto sa = [](const compiled_nh& n) {
        rib::ip6_addr a;
        std::copy(n.encap_bytes().begin() + 8, n.encap_bytes().begin() + 24, a.bytes.begin());
        return a;
    };
    EXPECT_EQ(sa(*before), a6("2001:db8::1"));
    EXPECT_EQ(before->encap_bytes()[40], ipproto::ipip) << "IPv4 route: inner protocol 4";
    EXPECT_EQ(nh_at(0, "2001:db8:5::1").encap_bytes()[40], ipproto::ipv6);
    EXPECT_EQ(sa(nh_at(0, "10.6.0.1")), a6("fc00:9::9"));
    const dataplane_view* old_view = c.current();
    const compiled_nh* own = &nh_at(0, "10.6.0.1");

    ASSERT_TRUE(src.set_configured(a6("2001:db8::2")));
    ASSERT_TRUE(compile());
    EXPECT_EQ(lookup(0, "10.5.0.1"), i4) << "the LPM is untouched: same index";
    EXPECT_NE(&view().nexthop(i4), before) << "a new object, not an edit";
    EXPECT_EQ(sa(view().nexthop(i4)), a6("2001:db8::2"));
    EXPECT_EQ(sa(nh_at(0, "2001:db8:5::1")), a6("2001:db8::2"));
    EXPECT_EQ(&nh_at(0, "10.6.0.1"), own) << "a route's own source does not move";
    EXPECT_EQ(c.stats().nexthop_rebuilds, 2u);
    // The old view still shows the old template until its grace period (no reader holds it
    // here, so the next reclaim may free it).
    EXPECT_NE(old_view, c.current());

    // No source at all: refused, never ::.
    ASSERT_TRUE(src.set_configured(std::nullopt));
    ASSERT_TRUE(compile());
    EXPECT_EQ(view().nexthop(i4).kind(), nh_kind::refused);
    EXPECT_EQ(view().nexthop(i4).refusal(), nh_refusal::encap_no_source);
    EXPECT_NE(c.reason(i4).find("no encapsulation source"), std::string_view::npos);
    EXPECT_EQ(nh_at(0, "10.6.0.1").kind(), nh_kind::headend);
}

// H.Insert compiles for IPv6 routes (no source needed: the packet keeps its own) and is
// refused for IPv4 ones, as the kernel refuses `mode inline` on them.
TEST_F(fixture, insert_mode_only_for_ipv6) {
    r.upsert_route(unicast("2001:db8:7::/48", {encap_path({a6("fc00:0:2::1")}, rib::encap_mode::inline_srh)}));
    r.upsert_route(unicast("2001:db8:8::/48", {encap_path({a6("fc00:0:2::1"), a6("fc00:0:3::1")}, rib::encap_mode::inline_red)}));
    r.upsert_route(unicast("10.7.0.0/16", {encap_path({a6("fc00:0:2::1")}, rib::encap_mode::inline_srh)}));
    ASSERT_TRUE(compile());
    const auto& ins = nh_at(0, "2001:db8:7::1");
    ASSERT_EQ(ins.kind(), nh_kind::headend) << c.reason(ins.index());
    EXPECT_EQ(ins.encap().insert, 1);
    EXPECT_EQ(ins.encap().srh_entries, 2);
    EXPECT_EQ(nh_at(0, "2001:db8:8::1").encap().srh_entries, 2);
    EXPECT_EQ(nh_at(0, "10.7.0.1").refusal(), nh_refusal::encap_insert_unsupported);
    // Without any encapsulation source both stay: neither H.Insert nor .Red writes one.
    ASSERT_TRUE(src.set_configured(std::nullopt));
    r.upsert_route(unicast("2001:db8:9::/48", {encap_path({a6("fc00:0:2::1"), a6("fc00:0:3::1")}, rib::encap_mode::inline_red)}));
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "2001:db8:7::1").kind(), nh_kind::headend) << c.reason(nh_at(0, "2001:db8:7::1").index());
    EXPECT_EQ(nh_at(0, "2001:db8:9::1").kind(), nh_kind::headend) << c.reason(nh_at(0, "2001:db8:9::1").index());
}

TEST_F(fixture, ecmp_weights_and_shared_members) {
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 2, 1), via("192.0.2.2", 3, 3)}));
    r.upsert_route(unicast("10.2.0.0/16", {via("192.0.2.1", 2, 1), via("192.0.2.2", 3, 3)}));
    r.upsert_route(unicast("10.3.0.0/16", {via("192.0.2.1", 2)}));
    ASSERT_TRUE(compile());
    const auto& g = nh_at(0, "10.1.0.1");
    ASSERT_EQ(g.kind(), nh_kind::ecmp);
    EXPECT_EQ(lookup(0, "10.2.0.1"), lookup(0, "10.1.0.1")) << "same paths, same group";
    ASSERT_EQ(g.slots().size(), 4u) << "weights 1:3";
    ASSERT_EQ(g.members().size(), 2u);
    const uint32_t m1 = g.members()[0].nh, m2 = g.members()[1].nh;
    EXPECT_EQ(m1, lookup(0, "10.3.0.1")) << "the single-path route shares the member";
    std::map<uint32_t, int> hits;
    for (uint32_t h = 0; h < 4000; ++h)
        ++hits[g.pick(h * 1073741u)];
    EXPECT_NEAR(hits[m1], 1000, 60);
    EXPECT_NEAR(hits[m2], 3000, 60);
    EXPECT_EQ(view().nexthop(m2).via().ifindex, 3u);

    // Deleting every user releases the group and its members.
    const size_t forward_before = c.stats().nexthops[static_cast<size_t>(nh_kind::forward)];
    EXPECT_EQ(forward_before, 2u);
    r.delete_route({rib::main_table, p("10.1.0.0/16"), {}});
    r.delete_route({rib::main_table, p("10.2.0.0/16"), {}});
    ASSERT_TRUE(compile());
    EXPECT_EQ(c.stats().nexthops[static_cast<size_t>(nh_kind::ecmp)], 0u);
    EXPECT_EQ(c.stats().nexthops[static_cast<size_t>(nh_kind::forward)], 1u);
    EXPECT_EQ(lookup(0, "10.3.0.1"), m1);
}

TEST_F(fixture, nexthop_object_change_recompiles_its_users) {
    rib::nexthop_object o;
    o.id = 21;
    o.path = via("192.0.2.1", 2);
    r.upsert_nexthop(o);
    rib::route rt = unicast("10.1.0.0/16", {});
    rt.nh_id = 21;
    r.upsert_route(rt);
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "10.1.0.1").via().ifindex, 2u);
    o.path = via("192.0.2.9", 5);
    r.upsert_nexthop(o);
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "10.1.0.1").via().ifindex, 5u);
    // Unknown id: unresolved, out of the table, counted.
    r.delete_nexthop(21);
    ASSERT_TRUE(compile());
    EXPECT_EQ(lookup(0, "10.1.0.1"), nh_miss);
    EXPECT_EQ(c.find({rib::main_table, p("10.1.0.0/16"), {}})->state, route_state::unresolved);
    // A blackhole object makes a blackhole route.
    rib::nexthop_object bh;
    bh.id = 21;
    bh.blackhole = true;
    r.upsert_nexthop(bh);
    ASSERT_TRUE(compile());
    EXPECT_EQ(nh_at(0, "10.1.0.1").kind(), nh_kind::blackhole);
}

TEST_F(fixture, source_specific_routes_are_not_compiled) {
    rib::route rt = unicast("2001:db8:9::/48", {via("fe80::1", 3)});
    rt.key.src = p("2001:db8:aa::/48");
    r.upsert_route(rt);
    ASSERT_TRUE(compile());
    EXPECT_EQ(lookup(0, "2001:db8:9::1"), nh_miss);
    EXPECT_EQ(c.stats().routes[static_cast<size_t>(route_state::src_specific)], 1u);
}

TEST_F(fixture, attaches_to_a_populated_rib_and_then_follows_the_journal) {
    for (int i = 0; i < 100; ++i) {
        const std::string d = "10." + std::to_string(i) + ".0.0/16";
        r.upsert_route(unicast(d.c_str(), {via("192.0.2.1", 2)}));
    }
    ASSERT_TRUE(compile());
    EXPECT_EQ(c.stats().full_syncs, 1u);
    EXPECT_EQ(c.stats().route_updates, 100u);
    r.delete_route({rib::main_table, p("10.42.0.0/16"), {}});
    ASSERT_TRUE(compile());
    EXPECT_EQ(c.stats().route_updates, 101u) << "only the changed route is recompiled";
    EXPECT_EQ(lookup(0, "10.42.0.1"), nh_miss);
    EXPECT_NE(lookup(0, "10.43.0.1"), nh_miss);
}

// compile() sorts its work by (table, family, first 8 address bytes), ties by the whole key:
// a key the journal names several times in one batch is compiled once, and keys that share
// their first 8 bytes (one address at several lengths, /128s of one /64) stay distinct.
TEST_F(fixture, a_key_changed_several_times_in_a_batch_is_compiled_once) {
    r.upsert_route(unicast("10.5.0.0/16", {via("192.0.2.1", 2)}));
    ASSERT_TRUE(compile());
    const uint64_t base = c.stats().route_updates;
    r.upsert_route(unicast("10.5.0.0/16", {via("192.0.2.2", 2)}));
    r.delete_route({rib::main_table, p("10.5.0.0/16"), {}});
    r.upsert_route(unicast("10.5.0.0/16", {via("192.0.2.3", 2)}));
    r.upsert_route(unicast("10.5.0.0/24", {via("192.0.2.4", 2)}));
    r.upsert_route(unicast("10.5.0.0/24", {via("192.0.2.5", 2)}));
    r.upsert_route(unicast("2001:db8:7::1/128", {via("fe80::1", 3)}));
    r.upsert_route(unicast("2001:db8:7::2/128", {via("fe80::2", 3)}));
    r.upsert_route(unicast("2001:db8:7::/64", {via("fe80::3", 3)}));
    ASSERT_TRUE(compile());
    EXPECT_EQ(c.stats().route_updates - base, 5u) << "10.5/16, 10.5.0/24, two /128s and their /64, once each";
    EXPECT_EQ(c.stats().routes[static_cast<size_t>(route_state::installed)], 5u);
    EXPECT_EQ(nh_at(0, "10.5.1.1").via().gw[3], 3);
    EXPECT_EQ(nh_at(0, "10.5.0.1").via().gw[3], 5);
    EXPECT_EQ(nh_at(0, "2001:db8:7::1").via().gw[15], 1);
    EXPECT_EQ(nh_at(0, "2001:db8:7::2").via().gw[15], 2);
    EXPECT_EQ(nh_at(0, "2001:db8:7::3").via().gw[15], 3);
}

// publish() reclaims before it allocates: once the readers are past the previous publication,
// what that one unlinked is free again and the new objects reuse its blocks (not fresh pages).
TEST_F(fixture, a_publication_reuses_what_the_previous_one_unlinked) {
    qsbr_reader reader(rcu, 0);
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.1", 2)}));
    ASSERT_TRUE(compile());
    reader.quiescent();
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.2", 2)}));
    ASSERT_TRUE(compile());
    // What the next publication unlinks: this view, its IPv4 index and chunk, the nexthop.
    const dataplane_view* v2 = c.current();
    const lpm_index<uint32_t>* t2 = v2->tables(0).v4;
    ASSERT_TRUE(t2 && !t2->flat());
    const std::set<const void*> unlinked{v2, t2, t2->chunks()[0], &v2->nexthop(lookup(0, "10.1.2.3"))};
    reader.quiescent();  // past that publication
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.3", 2)}));
    ASSERT_TRUE(compile());  // unlinks them: freed only when the reader reports again
    EXPECT_EQ(rcu.pending_batches(), 1u);
    reader.quiescent();
    r.upsert_route(unicast("10.1.0.0/16", {via("192.0.2.4", 2)}));
    ASSERT_TRUE(compile());
    const lpm_index<uint32_t>* t4 = view().tables(0).v4;
    if (block_pool_enabled) {
        EXPECT_TRUE(unlinked.count(t4->chunks()[0])) << "the new chunk is a block unlinked one publication ago";
        EXPECT_TRUE(unlinked.count(t4)) << "so is the new index";
    }
    EXPECT_EQ(nh_at(0, "10.1.2.3").via().gw[3], 4);
}

}  // namespace
}  // namespace fib
