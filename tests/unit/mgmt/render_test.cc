// Renderers on a hand-built RIB: the messages carry what the RIB holds, resolved.
#include <gtest/gtest.h>

#include "fpm/reasons.hh"
#include "mgmt/answer.hh"
#include "mgmt/render.hh"
#include "sample_rib.hh"

namespace mgmt {
namespace {

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
    fib::rib rib;
};

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
    EXPECT_EQ(render_routes(rib, 77).tables_size(), 0);
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
    fib::seg6local l;
    l.action = fib::behavior::end_dx4;
    l.flavors = fib::flavor::psp | fib::flavor::usd | (1u << 9);
    l.nh4 = fib::ip4_addr{{10, 0, 0, 9}};
    l.oif = 4;
    l.table = 100;
    l.structure = fib::sid_structure{32, 16, 16, 0};
    l.vrf_name = "Vrf\x01red\xff";
    l.srh = fib::seg6_encap{fib::encap_mode::encap_red, {testing::addr6("fc00::1"), testing::addr6("fc00::2")},
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
    fib::nexthop_object pic = testing::singleton(7, fib::proto::bgp, testing::via("fe80::2", 6));
    rib.upsert_pic_context(pic);
    auto r = testing::make_route(1, "10.77.0.0/24", fib::proto::bgp);
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
    const auto t = render_sids(rib);
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
    const auto s = render_fpm(si, st, rib, si.connected_since + std::chrono::seconds(3725));
    EXPECT_TRUE(s.connected());
    EXPECT_EQ(s.state(), "connected");
    EXPECT_EQ(s.peer(), "127.0.0.1:40612");
    EXPECT_EQ(s.connected_since(), "2026-01-02T03:00:00Z");
    EXPECT_EQ(s.connected_seconds(), 3725u);
    EXPECT_EQ(s.connections(), 3u);
    EXPECT_EQ(s.refused(), 1u);
    EXPECT_EQ(s.framing_resets(), 1u);
    EXPECT_EQ(s.sweeps(), 2u);
    EXPECT_EQ(s.last_sweep_removed(), 4u);
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
    const auto none = answer(pb::Request{}, rib, st, si);
    EXPECT_EQ(none.result_case(), pb::Response::RESULT_NOT_SET);
    EXPECT_NE(none.error(), "");
}

}  // namespace
}  // namespace mgmt
