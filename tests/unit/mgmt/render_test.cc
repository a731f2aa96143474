// Renderers on a hand-built RIB: the messages carry what the RIB holds, resolved.
#include <gtest/gtest.h>

#include "fpm/reasons.hh"
#include "mgmt/answer.hh"
#include "mgmt/render.hh"
#include "mgmt/text.hh"
#include "sample_rib.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

const pb::Route* find(const pb::RouteTables& t, uint32_t table, std::string_view prefix) {
    for (const auto& tab : t.tables())
        if (tab.table() == table)
            for (const auto& r : tab.routes())
                if (r.prefix() == prefix)
                    return &r;
    return nullptr;
}

class RenderTest : public ::testing::Test {
protected:
    void SetUp() override { testing::fill_sample(rib); }
    rib::store rib;
    vrf::registry vrfs;  // the default VRF only, until a test adds some

    void configure(std::vector<vrf::vrf_spec> specs) { (void)vrfs.sync(vrf::source::config, specs); }
};

vrf::vrf_spec spec(const char* name, rib::table_id table, std::vector<std::string> members = {}) {
    vrf::vrf_spec s;
    s.name = name;
    s.table = table;
    for (auto& m : members)
        s.members.push_back({std::move(m), 0});
    return s;
}

TEST_F(RenderTest, RoutesGroupedByTableInDisplayOrder) {
    const auto t = render_routes(rib);
    ASSERT_EQ(t.tables_size(), 2);
    EXPECT_EQ(t.tables(0).table(), 10u);
    EXPECT_EQ(t.tables(1).table(), 254u);
    std::vector<std::string> order;
    for (const auto& r : t.tables(1).routes())
        order.push_back(r.prefix());
    // IPv4 first; by address, not by length (the RIB's own key order is by length first).
    EXPECT_EQ(order, (std::vector<std::string>{"10.1.0.0/24", "10.2.0.0/24", "10.3.0.0/24", "10.9.0.0/24",
                                               "192.0.2.0/24", "203.0.113.0/24", "fc00:0:1::/48",
                                               "fc00:0:1::2/128", "fc00:0:1:e000::/128"}));
}

TEST_F(RenderTest, TableFilter) {
    const auto t = render_routes(rib, 10);
    ASSERT_EQ(t.tables_size(), 1);
    EXPECT_EQ(t.tables(0).table(), 10u);
    EXPECT_EQ(t.tables(0).routes_size(), 1);
    // A table asked for is listed even when empty (`show routes vrf red json`: "77": []).
    const auto empty = render_routes(rib, 77);
    ASSERT_EQ(empty.tables_size(), 1);
    EXPECT_EQ(empty.tables(0).table(), 77u);
    EXPECT_EQ(empty.tables(0).routes_size(), 0);
}

std::vector<std::string> prefixes(const pb::RouteTables& t) {
    std::vector<std::string> out;
    for (const auto& table : t.tables())
        for (const auto& r : table.routes())
            out.push_back(std::to_string(table.table()) + " " + r.prefix());
    return out;
}

// show ip route / show ipv6 route: one family, an exact prefix, the longest match of an address.
TEST_F(RenderTest, RouteFilters) {
    route_filter f;
    f.family = rib::family::ipv6;
    f.table = 254;
    EXPECT_EQ(prefixes(render_routes(rib, f)),
              (std::vector<std::string>{"254 fc00:0:1::/48", "254 fc00:0:1::2/128", "254 fc00:0:1:e000::/128"}));
    f = {};
    f.address = testing::addr("fc00:0:1::2");
    EXPECT_EQ(prefixes(render_routes(rib, f)), (std::vector<std::string>{"254 fc00:0:1::2/128"}));
    f.address = testing::addr("fc00:0:1::3");
    EXPECT_EQ(prefixes(render_routes(rib, f)), (std::vector<std::string>{"254 fc00:0:1::/48"}));
    f.address = testing::addr("10.10.0.9");  // every table: the one that has it
    EXPECT_EQ(prefixes(render_routes(rib, f)), (std::vector<std::string>{"10 10.10.0.0/24"}));
    f = {};
    f.prefix = testing::pfx("10.2.0.0/24");
    EXPECT_EQ(prefixes(render_routes(rib, f)), (std::vector<std::string>{"254 10.2.0.0/24"}));
    f.prefix = testing::pfx("10.2.0.0/25");
    f.table = 254;
    EXPECT_EQ(render_routes(rib, f).tables_size(), 0) << "nothing found: no table, not an empty one";
}

TEST_F(RenderTest, LocatorsFromTheSidsStructure) {
    const auto t = render_locators(render_sids(rib, vrfs));
    ASSERT_EQ(t.locators_size(), 1);
    EXPECT_EQ(t.locators(0).prefix(), "fc00:0:1::/48");
    EXPECT_EQ(t.locators(0).block_len(), 32u);
    EXPECT_EQ(t.locators(0).node_len(), 16u);
    EXPECT_EQ(t.locators(0).sids_size(), 1);
    EXPECT_EQ(t.unstructured(), 2u) << "End.X and End.DT46 carry no structure";
}

TEST_F(RenderTest, NexthopGroupModeRouteIsResolved) {
    const auto t = render_routes(rib);
    const auto* r = find(t, 254, "10.2.0.0/24");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->protocol(), 186u);
    EXPECT_EQ(r->protocol_name(), "bgp");
    EXPECT_EQ(r->type(), "unicast");
    ASSERT_TRUE(r->has_nh_id());
    EXPECT_EQ(r->nh_id(), 13u);
    EXPECT_EQ(r->resolve_state(), "ok");
    EXPECT_EQ(r->prefsrc(), "10.0.0.1");
    ASSERT_EQ(r->nexthops_size(), 1);
    const auto& nh = r->nexthops(0);
    EXPECT_EQ(nh.gateway(), "fe80::1");
    EXPECT_EQ(nh.ifindex(), 5u);
    EXPECT_EQ(nh.nh_id(), 13u);
    ASSERT_TRUE(nh.has_seg6());
    EXPECT_EQ(nh.seg6().mode(), "H.Encaps");
    ASSERT_EQ(nh.seg6().segments_size(), 1);
    EXPECT_EQ(nh.seg6().segments(0), "fc00:0:2:e000::");
    EXPECT_FALSE(nh.seg6().has_source());
    EXPECT_FALSE(nh.has_seg6local());
}

TEST_F(RenderTest, PartialAndUnresolvedStatesNameTheMissingIds) {
    const auto t = render_routes(rib);
    const auto* partial = find(t, 254, "10.3.0.0/24");
    ASSERT_NE(partial, nullptr);
    EXPECT_EQ(partial->resolve_state(), "partial");
    ASSERT_EQ(partial->missing_ids_size(), 1);
    EXPECT_EQ(partial->missing_ids(0), 14u);
    ASSERT_EQ(partial->nexthops_size(), 1);
    EXPECT_EQ(partial->nexthops(0).nh_id(), 12u);

    const auto* unresolved = find(t, 254, "10.9.0.0/24");
    ASSERT_NE(unresolved, nullptr);
    EXPECT_EQ(unresolved->resolve_state(), "unresolved");
    ASSERT_EQ(unresolved->missing_ids_size(), 1);
    EXPECT_EQ(unresolved->missing_ids(0), 42u);
    EXPECT_EQ(unresolved->nexthops_size(), 0);

    const auto* bh = find(t, 254, "192.0.2.0/24");
    ASSERT_NE(bh, nullptr);
    EXPECT_EQ(bh->type(), "blackhole");
    EXPECT_EQ(bh->resolve_state(), "no_paths");
    EXPECT_FALSE(bh->has_nh_id());
}

TEST_F(RenderTest, InlineMultipathKeepsWeightsLabelsOnlink) {
    const auto t = render_routes(rib);
    const auto* r = find(t, 254, "203.0.113.0/24");
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(r->has_nh_id());
    ASSERT_EQ(r->nexthops_size(), 2);
    EXPECT_EQ(r->nexthops(0).labels_size(), 2);
    EXPECT_EQ(r->nexthops(0).labels(1), 17u);
    EXPECT_EQ(r->nexthops(0).nh_id(), 0u);
    EXPECT_EQ(r->nexthops(1).weight(), 3u);
    EXPECT_TRUE(r->nexthops(1).onlink());
}

TEST_F(RenderTest, Seg6LocalFields) {
    rib::seg6local l;
    l.action = rib::behavior::end_dx4;
    l.flavors = rib::flavor::psp | rib::flavor::usd | (1u << 9);
    l.nh4 = rib::ip4_addr{{10, 0, 0, 9}};
    l.oif = 4;
    l.table = 100;
    l.structure = rib::sid_structure{32, 16, 16, 0};
    l.vrf_name = "Vrf\x01red\xff";
    l.srh = rib::seg6_encap{rib::encap_mode::encap_red, {testing::addr6("fc00::1"), testing::addr6("fc00::2")},
                            testing::addr6("fc00::9"), "sl1"};
    pb::Seg6Local out;
    render_seg6local(l, out);
    EXPECT_EQ(out.behavior(), "End.DX4");
    EXPECT_EQ(out.action(), 6u);
    EXPECT_EQ(std::vector<std::string>(out.flavors().begin(), out.flavors().end()),
              (std::vector<std::string>{"psp", "usd", "0x200"}));
    EXPECT_EQ(out.nh4(), "10.0.0.9");
    EXPECT_FALSE(out.has_nh6());
    EXPECT_EQ(out.oif(), 4u);
    EXPECT_EQ(out.table(), 100u);
    EXPECT_FALSE(out.has_vrftable());
    EXPECT_EQ(out.structure().block_len(), 32u);
    EXPECT_EQ(out.structure().func_len(), 16u);
    EXPECT_EQ(out.vrf_name(), "Vrf?red?");  // wire bytes never reach a terminal or break UTF-8
    EXPECT_EQ(out.srh().mode(), "H.Encaps.Red");
    EXPECT_EQ(out.srh().segments_size(), 2);
    EXPECT_EQ(out.srh().source(), "fc00::9");
    EXPECT_EQ(out.srh().sidlist(), "sl1");
    // Must still serialize and parse (proto3 strings are checked for UTF-8).
    pb::Seg6Local back;
    ASSERT_TRUE(back.ParseFromString(out.SerializeAsString()));
}

TEST_F(RenderTest, NexthopsWithUsersAndForwardReferences) {
    const auto t = render_nexthops(rib);
    ASSERT_EQ(t.nexthops_size(), 4);
    const auto& n12 = t.nexthops(0);
    EXPECT_EQ(n12.id(), 12u);
    EXPECT_EQ(n12.used_by(), 2u);  // 10.1.0.0/24 directly, 10.3.0.0/24 through group 40
    EXPECT_FALSE(n12.group());
    EXPECT_EQ(n12.path().gateway(), "10.0.0.2");
    const auto& g = t.nexthops(2);
    EXPECT_EQ(g.id(), 40u);
    EXPECT_TRUE(g.group());
    EXPECT_FALSE(g.has_path());
    ASSERT_EQ(g.members_size(), 2);
    EXPECT_TRUE(g.members(0).known());
    EXPECT_EQ(g.members(1).id(), 14u);
    EXPECT_EQ(g.members(1).weight(), 2u);
    EXPECT_FALSE(g.members(1).known());
    EXPECT_EQ(g.used_by(), 1u);
}

TEST_F(RenderTest, PicContextsAndSidLists) {
    rib::nexthop_object pic = testing::singleton(7, rib::proto::bgp, testing::via("fe80::2", 6));
    rib.upsert_pic_context(pic);
    auto r = testing::make_route(1, "10.77.0.0/24", rib::proto::bgp);
    r.pic_id = 7;
    r.nexthops = {testing::via("10.0.0.2", 3)};
    rib.upsert_route(r);
    rib.upsert_sidlist("sl\n1", {testing::addr6("fc00::1"), testing::addr6("fc00::2")});
    const auto t = render_nexthops(rib);
    ASSERT_EQ(t.pic_contexts_size(), 1);
    EXPECT_EQ(t.pic_contexts(0).id(), 7u);
    EXPECT_EQ(t.pic_contexts(0).used_by(), 1u);
    ASSERT_EQ(t.sidlists_size(), 1);
    EXPECT_EQ(t.sidlists(0).name(), "sl?1");
    EXPECT_EQ(t.sidlists(0).segments(1), "fc00::2");
    EXPECT_EQ(find(render_routes(rib), 1, "10.77.0.0/24")->pic_id(), 7u);
}

TEST_F(RenderTest, Sids) {
    configure({spec("red", 10)});
    const auto t = render_sids(rib, vrfs);
    ASSERT_EQ(t.sids_size(), 3);
    EXPECT_EQ(t.sids(0).prefix(), "fc00:0:1::/48");
    EXPECT_EQ(t.sids(0).seg6local().behavior(), "uN");
    EXPECT_EQ(t.sids(0).seg6local().lcblock_bits(), 32u);
    EXPECT_EQ(t.sids(0).nh_id(), 50u);
    EXPECT_EQ(t.sids(0).ifindex(), 9u);
    EXPECT_EQ(t.sids(0).protocol_name(), "static");
    EXPECT_EQ(t.sids(1).prefix(), "fc00:0:1::2/128");
    EXPECT_EQ(t.sids(1).seg6local().behavior(), "End.X");
    EXPECT_EQ(t.sids(1).seg6local().nh6(), "fc00:12::2");
    EXPECT_EQ(t.sids(2).seg6local().behavior(), "End.DT46");
    EXPECT_EQ(t.sids(2).seg6local().vrftable(), 10u);
    EXPECT_EQ(t.sids(2).table(), 254u);
    // uN and End.X need no VRF; End.DT46 vrftable 10 decapsulates into red.
    EXPECT_EQ(t.sids(0).state(), "active");
    EXPECT_FALSE(t.sids(0).has_vrf());
    EXPECT_EQ(t.sids(1).state(), "active");
    EXPECT_EQ(t.sids(2).state(), "active");
    EXPECT_EQ(t.sids(2).vrf(), "red");
    EXPECT_EQ(t.sids(2).vrf_id(), 1u);
    EXPECT_EQ(t.sids(2).reason(), "");
    EXPECT_EQ(t.sids(2).refusal(), "");
    ASSERT_EQ(t.refusals_size(), 7);  // every class but "none"
    for (const auto& c : t.refusals())
        EXPECT_EQ(c.now(), 0u) << c.name();
    EXPECT_FALSE(t.sids(0).has_packets()) << "no dataplane: no counters";
}

// A behavior the dataplane does not run is refused, visibly, with the contract's reason; the
// dataplane's counters of each SID are shown when it has them.
TEST_F(RenderTest, SidWithoutADatapathHandlerIsRefusedAndCountersShown) {
    configure({spec("red", 10)});
    rib::route b6;
    b6.key.dst = *rib::parse_prefix("fc00:0:1::b6/128");
    b6.protocol = rib::proto::kernel;
    rib::nexthop n;
    rib::seg6local l;
    l.action = rib::behavior::end_b6;
    l.srh = rib::seg6_encap{rib::encap_mode::inline_srh, {*rib::parse_ip6("fc00:0:2::1")}, std::nullopt, {}};
    n.local = l;
    b6.nexthops = {n};
    rib.upsert_route(b6);
    const sid_counter_reader counters = [](const rib::route_key& k) -> std::optional<std::pair<uint64_t, uint64_t>> {
        if (k.dst == *rib::parse_prefix("fc00:0:1::2/128"))
            return std::pair<uint64_t, uint64_t>{7, 700};
        return std::nullopt;
    };
    const auto t = render_sids(rib, vrfs, nullptr, counters);
    ASSERT_EQ(t.sids_size(), 4);
    EXPECT_EQ(t.sids(2).prefix(), "fc00:0:1::b6/128");
    EXPECT_EQ(t.sids(2).state(), "refused");
    EXPECT_EQ(t.sids(2).refusal(), "unsupported");
    EXPECT_EQ(t.sids(2).reason(), "End.B6: srv6d's dataplane does not implement it");
    EXPECT_EQ(t.sids(1).packets(), 7u);
    EXPECT_EQ(t.sids(1).bytes(), 700u);
    EXPECT_FALSE(t.sids(0).has_packets());
    const std::string text = format_sids(t);
    EXPECT_NE(text.find("refused: End.B6: srv6d's dataplane does not implement it"), std::string::npos) << text;
    EXPECT_NE(text.find("Packets"), std::string::npos) << text;
    EXPECT_NE(text.find("unsupported 1/0"), std::string::npos) << text;
}

TEST_F(RenderTest, SidRefusedWithoutItsVrfAndCounted) {
    vrf::sid_tracker tracker;
    for (const auto& e : rib.local_sids())
        tracker.upsert(e.r->key.dst, e.sid, vrfs);
    const auto t = render_sids(rib, vrfs, &tracker);
    ASSERT_EQ(t.sids_size(), 3);
    EXPECT_EQ(t.sids(2).state(), "refused");
    EXPECT_FALSE(t.sids(2).has_vrf());
    EXPECT_EQ(t.sids(2).reason(), "table 10 is not bound to any VRF");
    EXPECT_EQ(t.sids(2).refusal(), "table_unbound");
    EXPECT_EQ(t.sids(0).state(), "active");
    ASSERT_EQ(t.refusals_size(), 7);
    EXPECT_EQ(t.refusals(0).name(), "table_unbound");
    EXPECT_EQ(t.refusals(0).now(), 1u);
    EXPECT_EQ(t.refusals(0).total(), 1u);
    EXPECT_EQ(t.refusals(1).name(), "vrf_unknown");
    EXPECT_EQ(t.refusals(1).now(), 0u);

    // Bound later: active at once (render binds against the registry as it is now); the
    // total of past refusals stays.
    configure({spec("red", 10)});
    const auto u = render_sids(rib, vrfs, &tracker);
    EXPECT_EQ(u.sids(2).state(), "active");
    EXPECT_EQ(u.refusals(0).now(), 0u);
    EXPECT_EQ(u.refusals(0).total(), 1u);
}

TEST_F(RenderTest, SidOriginAndShadowedConfigSids) {
    configure({spec("red", 10)});
    rib::route cfg;
    cfg.key.dst = *rib::parse_prefix("fc00:0:1:e000::/128");  // zebra's End.DT46 is there
    cfg.protocol = rib::proto::config;
    rib::nexthop n;
    rib::seg6local l;
    l.action = rib::behavior::end_dt4;
    l.vrf_name = "red";
    n.local = l;
    cfg.nexthops = {n};
    rib.add_config_route(cfg);  // under zebra's SID: shadowed from the start
    cfg.key.dst = *rib::parse_prefix("fc00:0:1:f000::/128");
    rib.add_config_route(cfg);
    const auto t = render_sids(rib, vrfs);
    ASSERT_EQ(t.sids_size(), 5);
    EXPECT_EQ(t.sids(0).origin(), "fpm");
    // Sorted by prefix; the shadowed config SID right after zebra's at the same prefix.
    EXPECT_EQ(t.sids(2).prefix(), t.sids(3).prefix());
    EXPECT_EQ(t.sids(2).origin(), "fpm");
    EXPECT_EQ(t.sids(2).state(), "active");
    EXPECT_EQ(t.sids(3).origin(), "config");
    EXPECT_EQ(t.sids(3).state(), "shadowed");
    EXPECT_EQ(t.sids(3).reason(), "zebra sent a route for this prefix; zebra's wins");
    EXPECT_EQ(t.sids(3).seg6local().behavior(), "End.DT4");
    EXPECT_EQ(t.sids(3).vrf(), "red");
    EXPECT_EQ(t.sids(4).prefix(), "fc00:0:1:f000::/128");
    EXPECT_EQ(t.sids(4).origin(), "config");
    EXPECT_EQ(t.sids(4).state(), "active");
    EXPECT_EQ(t.sids(4).protocol_name(), "config");
}

TEST_F(RenderTest, Vrfs) {
    configure({spec("red", 10, {"e1", "e2"}), spec("blue", 10), spec("green", 20)});
    const auto t = render_vrfs(vrfs, "0 VRF devices, 0 link events, 0 re-dumps");
    ASSERT_EQ(t.vrfs_size(), 4);
    EXPECT_EQ(t.vrfs(0).name(), "default");
    EXPECT_EQ(t.vrfs(0).id(), 0u);
    EXPECT_EQ(t.vrfs(0).table(), 254u);
    EXPECT_EQ(t.vrfs(0).source(), "builtin");
    EXPECT_EQ(t.vrfs(0).state(), "active");
    const auto& red = t.vrfs(1);
    EXPECT_EQ(red.name(), "red");
    EXPECT_EQ(red.id(), 1u);
    EXPECT_EQ(red.table(), 10u);
    EXPECT_EQ(red.config_table(), 10u);
    EXPECT_FALSE(red.has_kernel_table());
    EXPECT_FALSE(red.has_dev_ifindex());
    EXPECT_EQ(red.source(), "config");
    ASSERT_EQ(red.members_size(), 2);
    EXPECT_EQ(red.members(1).name(), "e2");
    EXPECT_EQ(red.members(1).source(), "config");
    EXPECT_EQ(red.state(), "active");
    EXPECT_EQ(red.reason(), "");
    const auto& blue = t.vrfs(2);
    EXPECT_EQ(blue.name(), "blue");
    EXPECT_EQ(blue.state(), "refused");
    EXPECT_EQ(blue.reason(), "vrf blue: table 10 is already bound to vrf red (config)");
    EXPECT_EQ(t.vrfs(3).name(), "green");
    EXPECT_EQ(t.kernel(), "0 VRF devices, 0 link events, 0 re-dumps");
}

TEST_F(RenderTest, EncapSourceByOrigin) {
    vrf::encap_source_resolver res;
    auto e = render_encap_source(res, std::nullopt);
    EXPECT_FALSE(e.has_address());
    EXPECT_EQ(e.origin(), "none");
    EXPECT_EQ(e.text().rfind("none (", 0), 0u) << e.text();
    EXPECT_EQ(e.kernel_tunsrc(), "unknown");
    EXPECT_FALSE(e.has_configured());

    const auto cfg = rib::parse_ip6("fc00:0:1::9");
    res.set_configured(cfg);
    e = render_encap_source(res, cfg);
    EXPECT_EQ(e.address(), "fc00:0:1::9");
    EXPECT_EQ(e.origin(), "config");
    EXPECT_EQ(e.text(), "fc00:0:1::9 (srv6d config encap-source)");
    EXPECT_EQ(e.configured(), "fc00:0:1::9");

    // The kernel's tunsrc (FRR's source-address) wins over srv6d's config.
    res.set_kernel_tunsrc(vrf::tunsrc_reading{true, rib::parse_ip6("fc00:0:1::1"), {}});
    e = render_encap_source(res, cfg);
    EXPECT_EQ(e.address(), "fc00:0:1::1");
    EXPECT_EQ(e.origin(), "kernel-tunsrc");
    EXPECT_EQ(e.text(), "fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)");
    EXPECT_EQ(e.version(), res.version());
}

TEST_F(RenderTest, FpmStatus) {
    fpm::ingest_stats st;
    st.frames = 10;
    st.bytes = 1000;
    st.netlink_frames = 9;
    st.protobuf_frames = 1;
    st.messages = 12;
    st.updates = 11;
    st.msg_types[24] = 8;
    st.msg_types[0x8001] = 2;
    st.reasons[static_cast<size_t>(fpm::reason::ignored_attr)] = 5;
    fpm::session_info si;
    si.listen = "127.0.0.1:2620";
    si.connected = true;
    si.peer = "127.0.0.1:40612";
    si.connected_since = std::chrono::system_clock::from_time_t(1767322800);  // 2026-01-02 03:00:00 UTC
    si.connections = 3;
    si.refused = 1;
    si.disconnects = 2;
    si.framing_resets = 1;
    si.sweeps = 2;
    si.last_sweep_removed = 4;
    si.zebra_pid = 3425875349;
    si.last_sweep_scope = fpm::sweep_scope::replayed_tables;
    si.last_sweep_reason = "same zebra (nlmsg_pid 3425875349)";
    si.last_sweep_kept = 2;
    const auto s = render_fpm(si, st, rib, si.connected_since + std::chrono::seconds(3725));
    EXPECT_TRUE(s.connected());
    EXPECT_EQ(s.state(), "in-sync");
    EXPECT_EQ(s.state_text(), "zebra connected, in sync");
    EXPECT_EQ(s.peer(), "127.0.0.1:40612");
    EXPECT_EQ(s.connected_since(), "2026-01-02T03:00:00Z");
    EXPECT_EQ(s.connected_seconds(), 3725u);
    EXPECT_EQ(s.connections(), 3u);
    EXPECT_EQ(s.refused(), 1u);
    EXPECT_EQ(s.framing_resets(), 1u);
    EXPECT_EQ(s.sweeps(), 2u);
    EXPECT_EQ(s.last_sweep_removed(), 4u);
    EXPECT_EQ(s.zebra_pid(), 3425875349u);
    EXPECT_EQ(s.last_sweep_scope(), "replayed tables only");
    EXPECT_EQ(s.last_sweep_reason(), "same zebra (nlmsg_pid 3425875349)");
    EXPECT_EQ(s.last_sweep_kept(), 2u);
    EXPECT_EQ(s.ingest().protobuf_frames(), 1u);
    ASSERT_EQ(s.ingest().message_types_size(), 2);
    EXPECT_EQ(s.ingest().message_types(0).name(), "RTM_NEWROUTE");
    EXPECT_EQ(s.ingest().message_types(1).name(), "ADD_ROUTE");
    EXPECT_EQ(s.ingest().message_types(1).count(), 2u);
    // Every reason is listed, zero or not, in reasons.def order.
    ASSERT_EQ(static_cast<size_t>(s.ingest().reasons_size()), fpm::reason_count);
    for (size_t i = 0; i < fpm::reason_count; ++i) {
        const auto& r = s.ingest().reasons(static_cast<int>(i));
        EXPECT_EQ(r.name(), fpm::name(static_cast<fpm::reason>(i)));
        EXPECT_EQ(r.count(), st.reasons[i]);
    }
    EXPECT_EQ(s.ingest().reasons(static_cast<int>(fpm::reason::ignored_attr)).count(), 5u);
    EXPECT_FALSE(s.ingest().reasons(static_cast<int>(fpm::reason::ignored_attr)).error());
    EXPECT_TRUE(s.ingest().reasons(static_cast<int>(fpm::reason::frame_bad_version)).error());
    EXPECT_EQ(s.rib().routes(), 10u);
    EXPECT_EQ(s.rib().tables(), 2u);
    EXPECT_EQ(s.rib().nexthops(), 4u);
    EXPECT_EQ(s.rib().local_sids(), 3u);
    EXPECT_EQ(s.rib().route_upserts(), rib.counters().route_upserts);
}

TEST_F(RenderTest, FpmListeningHasNoPeerOrSince) {
    fpm::session_info si;
    si.listen = "[::1]:2620";
    si.peer = "stale";
    const auto s = render_fpm(si, {}, rib);
    EXPECT_FALSE(s.connected());
    EXPECT_EQ(s.state(), "listening");
    EXPECT_EQ(s.peer(), "");
    EXPECT_EQ(s.connected_since(), "");
    EXPECT_FALSE(s.has_zebra_pid());
    EXPECT_EQ(s.last_sweep_scope(), "none");
}

TEST_F(RenderTest, AnswerDispatchesEachCommand) {
    fpm::ingest_stats st;
    fpm::session_info si;
    pb::Request req;
    req.mutable_show_fpm();
    EXPECT_EQ(answer(req, rib, st, si).result_case(), pb::Response::kFpm);
    req.mutable_show_routes()->set_table(10);
    const auto routes = answer(req, rib, st, si);
    ASSERT_EQ(routes.result_case(), pb::Response::kRoutes);
    EXPECT_EQ(routes.routes().tables_size(), 1);
    req.mutable_show_nexthops();
    EXPECT_EQ(answer(req, rib, st, si).nexthops().nexthops_size(), 4);
    req.mutable_show_sids();
    EXPECT_EQ(answer(req, rib, st, si).sids().sids_size(), 3);
    // Without a registry, SIDs are bound against the default VRF alone.
    EXPECT_EQ(answer(req, rib, st, si).sids().sids(2).state(), "refused");
    const auto none = answer(pb::Request{}, rib, st, si);
    EXPECT_EQ(none.result_case(), pb::Response::RESULT_NOT_SET);
    EXPECT_NE(none.error(), "");
    // The VRF commands need the daemon's registry and resolver.
    req.mutable_show_vrfs();
    EXPECT_NE(answer(req, rib, st, si).error(), "");
    req.mutable_show_encap_source();
    EXPECT_NE(answer(req, rib, st, si).error(), "");
    // So does show memory (the daemon's compiled tables).
    req.mutable_show_memory();
    EXPECT_NE(answer(req, rib, st, si).error(), "");
    daemon_view d(rib, st, si);
    d.memory = [](pb::Memory& m) { m.set_routes(3); };
    const auto mem = answer(req, d);
    ASSERT_EQ(mem.result_case(), pb::Response::kMemory) << mem.error();
    EXPECT_EQ(mem.memory().routes(), 3u);
}

// Interface names beside ifindexes, in routes, nexthop objects and SIDs (vtysh shows names);
// an ifindex the reader does not know keeps its number alone.
TEST_F(RenderTest, AnswersNameInterfaces) {
    fpm::ingest_stats st;
    fpm::session_info si;
    daemon_view d(rib, st, si);
    int reads = 0;
    d.ifname = [&](uint32_t ifindex) -> std::string {
        ++reads;
        switch (ifindex) {
        case 3: return "tcore";
        case 9: return "tsid\x01";  // a control byte never reaches a terminal
        default: return "";
        }
    };
    pb::Request req;
    req.mutable_show_routes();
    auto r = answer(req, d);
    ASSERT_EQ(r.result_case(), pb::Response::kRoutes) << r.error();
    const pb::Route* via3 = find(r.routes(), 254, "10.1.0.0/24");
    ASSERT_NE(via3, nullptr);
    EXPECT_EQ(via3->nexthops(0).ifname(), "tcore");
    const pb::Route* via5 = find(r.routes(), 254, "10.2.0.0/24");
    ASSERT_NE(via5, nullptr);
    EXPECT_FALSE(via5->nexthops(0).has_ifname()) << "ifindex 5 has no name";
    const pb::Route* usid = find(r.routes(), 254, "fc00:0:1::/48");
    ASSERT_NE(usid, nullptr);
    EXPECT_EQ(usid->nexthops(0).ifname(), "tsid?");
    EXPECT_LE(reads, 8) << "one read per ifindex per answer";
    req.mutable_show_nexthops();
    r = answer(req, d);
    int named = 0;
    for (const auto& o : r.nexthops().nexthops())
        named += o.path().ifname() == "tcore";
    EXPECT_GT(named, 0);
    req.mutable_show_sids();
    r = answer(req, d);
    int sids_named = 0;
    for (const auto& s : r.sids().sids())
        sids_named += s.ifname() == "tsid?";
    EXPECT_GT(sids_named, 0);
}

TEST_F(RenderTest, AnswerWithVrfsAndEncapSource) {
    fpm::ingest_stats st;
    fpm::session_info si;
    configure({spec("red", 10)});
    vrf::encap_source_resolver res;
    daemon_view d(rib, st, si);
    d.vrfs = &vrfs;
    d.kernel_vrfs = "not followed: test";
    d.encap = &res;
    pb::Request req;
    req.mutable_show_vrfs();
    auto r = answer(req, d);
    ASSERT_EQ(r.result_case(), pb::Response::kVrfs) << r.error();
    EXPECT_EQ(r.vrfs().vrfs_size(), 2);
    EXPECT_EQ(r.vrfs().kernel(), "not followed: test");
    req.mutable_show_encap_source();
    EXPECT_EQ(answer(req, d).encap_source().origin(), "none");
    req.mutable_show_sids();
    EXPECT_EQ(answer(req, d).sids().sids(2).vrf(), "red");

    // `show routes vrf red` is table 10.
    req.mutable_show_routes()->set_vrf("red");
    r = answer(req, d);
    ASSERT_EQ(r.result_case(), pb::Response::kRoutes) << r.error();
    ASSERT_EQ(r.routes().tables_size(), 1);
    EXPECT_EQ(r.routes().tables(0).table(), 10u);
    EXPECT_EQ(r.routes().tables(0).vrf(), "red");
    EXPECT_NE(format_response(r).find("Table 10 (vrf red):"), std::string::npos) << format_response(r);
    // show ip route vrf all 10.10.0.9: the covering route of each table, with its VRF.
    req.mutable_show_routes()->clear_vrf();
    req.mutable_show_routes()->set_family(4);
    req.mutable_show_routes()->set_address("10.10.0.9");
    r = answer(req, d);
    ASSERT_EQ(r.routes().tables_size(), 1) << r.DebugString();
    EXPECT_EQ(r.routes().tables(0).routes(0).prefix(), "10.10.0.0/24");
    req.mutable_show_routes()->set_family(7);
    EXPECT_EQ(answer(req, d).error(), "family 7 is neither 4 nor 6");
    req.mutable_show_routes()->clear_family();
    req.mutable_show_routes()->clear_address();
    req.mutable_show_routes()->set_vrf("default");
    EXPECT_EQ(answer(req, d).routes().tables(0).table(), 254u);
    req.mutable_show_routes()->set_vrf("blue");
    EXPECT_EQ(answer(req, d).error(), "vrf blue is not known (neither configured nor a kernel VRF device)");
    req.mutable_show_routes()->set_vrf("red");
    req.mutable_show_routes()->set_table(11);
    EXPECT_EQ(answer(req, d).error(), "vrf red is table 10, not table 11");
}

}  // namespace
}  // namespace mgmt
