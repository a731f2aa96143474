// Human output, exact text: what an operator reads must not drift by accident.
#include <gtest/gtest.h>

#include "mgmt/render.hh"
#include "mgmt/text.hh"
#include "sample_rib.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

class TextTest : public ::testing::Test {
protected:
    void SetUp() override { testing::fill_sample(rib); }
    rib::store rib;
    vrf::registry vrfs;  // the default VRF only, until a test binds some
};

vrf::vrf_spec spec(const char* name, rib::table_id table, std::vector<vrf::member> members = {}) {
    vrf::vrf_spec s;
    s.name = name;
    s.table = table;
    s.members = std::move(members);
    return s;
}

TEST_F(TextTest, Routes) {
    EXPECT_EQ(format_routes(render_routes(rib)),
              "Codes: K - kernel/connected, S - static, B - BGP, O - OSPF, I - IS-IS,\n"
              "       R - RIP/RIPng, N - NHRP, E - EIGRP, D - SHARP, F - PBR,\n"
              "       f - OpenFabric, A - Babel, T - zebra/table, ? - other\n"
              "\n"
              "Table 10:\n"
              "K   10.10.0.0/24 is directly connected, ifindex 7, weight 1\n"
              "\n"
              "Table 254 (main):\n"
              "S   10.1.0.0/24 [nhid 12] via 10.0.0.2, ifindex 3, weight 1\n"
              "B   10.2.0.0/24 [nhid 13] via fe80::1, ifindex 5, weight 1, seg6 encap H.Encaps segs fc00:0:2:e000::, "
              "src 10.0.0.1\n"
              "B   10.3.0.0/24 [nhid 40] via 10.0.0.2, ifindex 3, weight 1\n"
              "                          partial: nexthop 14 unknown\n"
              "B   10.9.0.0/24 [nhid 42] unresolved: nexthop 42 unknown\n"
              "S   192.0.2.0/24 blackhole\n"
              "B   203.0.113.0/24 via 10.0.0.2, ifindex 3, weight 1, label 16/17\n"
              "                   via 10.0.1.2, ifindex 4, onlink, weight 3\n"
              "S   fc00:0:1::/48 [nhid 50] is directly connected, ifindex 9, weight 1, seg6local uN flavors next-csid "
              "lcblock 32 lcnode-fn 16\n"
              "K   fc00:0:1::2/128 is directly connected, ifindex 2, weight 1, seg6local End.X nh6 fc00:12::2 flavors "
              "psp\n"
              "B   fc00:0:1:e000::/128 is directly connected, ifindex 9, weight 1, seg6local End.DT46 vrftable 10\n");
}

TEST_F(TextTest, NamesBesideIfindexes) {
    auto t = render_routes(rib);
    for (auto& table : *t.mutable_tables())
        for (auto& route : *table.mutable_routes())
            for (auto& nh : *route.mutable_nexthops())
                if (nh.ifindex() == 3)
                    nh.set_ifname("tcore");
    const std::string out = format_routes(t);
    EXPECT_NE(out.find("S   10.1.0.0/24 [nhid 12] via 10.0.0.2, dev tcore (ifindex 3), weight 1\n"), std::string::npos)
        << out;
    EXPECT_NE(out.find("via fe80::1, ifindex 5, weight 1"), std::string::npos) << out;
    pb::Seg6Local l;
    l.set_behavior("End.X");
    l.set_oif(4);
    l.set_oif_name("tcore");
    EXPECT_EQ(format_seg6local_context(l), "oif tcore (4)");
}

TEST_F(TextTest, EmptyResultsSaySo) {
    // No legend without routes (as vtysh), but a line that says the answer is empty.
    EXPECT_EQ(format_routes(render_routes(rib::store{})), "No routes.\n");
    EXPECT_EQ(format_sids(render_sids(rib::store{}, vrfs)), "No local SIDs.\n");
    EXPECT_EQ(format_nexthops(render_nexthops(rib::store{})), "No nexthop objects, PIC contexts or SID lists.\n");
}

TEST_F(TextTest, SourceSpecificRouteAndRouteAttributes) {
    rib::store r2;
    auto r = testing::make_route(rib::main_table, "2001:db8::/64", rib::proto::zstatic);
    r.key.src = testing::pfx("2001:db8:9::/48");
    r.nexthops = {testing::via("fe80::1", 3), testing::via("fe80::2", 4)};
    r.mtu = 1400;
    r2.upsert_route(r);
    r = testing::make_route(rib::main_table, "10.0.0.0/8", rib::proto::ospf);
    r.type = rib::route_type::prohibit;
    r2.upsert_route(r);
    const std::string text = format_routes(render_routes(r2));
    const std::string header = "\nTable 254 (main):\n";
    ASSERT_NE(text.find(header), std::string::npos);
    EXPECT_EQ(text.substr(text.find(header) + header.size()),
              "O   10.0.0.0/8 prohibit\n"
              "S   2001:db8::/64 from 2001:db8:9::/48 via fe80::1, ifindex 3, weight 1, mtu 1400\n"
              "                                       via fe80::2, ifindex 4, weight 1\n");
}

TEST_F(TextTest, Paths) {
    pb::Nexthop nh;
    nh.set_weight(1);
    EXPECT_EQ(format_path(nh), "weight 1");  // SONiC VPN path: no gateway, no interface
    auto* s = nh.mutable_seg6();
    s->set_mode("H.Encaps.Red");
    s->add_segments("fc00::1");
    s->add_segments("fc00::2");
    s->add_segments("fc00::3");
    s->set_source("fc00:0:1::1");
    EXPECT_EQ(format_path(nh), "weight 1, seg6 encap H.Encaps.Red segs fc00::1,fc00::2,fc00::3 src fc00:0:1::1");
    nh.set_gateway("10.0.0.1");
    nh.clear_seg6();
    EXPECT_EQ(format_path(nh), "via 10.0.0.1, weight 1");
}

TEST_F(TextTest, Seg6LocalContext) {
    pb::Seg6Local l;
    l.set_behavior("End.B6.Encaps");
    EXPECT_EQ(format_seg6local(l), "seg6local End.B6.Encaps");
    l.mutable_srh()->set_mode("H.Encaps");
    l.mutable_srh()->add_segments("fc00::1");
    l.set_table(100);
    l.set_oif(4);
    EXPECT_EQ(format_seg6local(l), "seg6local End.B6.Encaps table 100, oif 4, H.Encaps segs fc00::1");
}

TEST_F(TextTest, Nexthops) {
    rib::nexthop_object bh;
    bh.id = 60;
    bh.protocol = rib::proto::zstatic;
    bh.blackhole = true;
    rib.upsert_nexthop(bh);
    rib.upsert_sidlist("sl1", {testing::addr6("fc00::1"), testing::addr6("fc00::2")});
    EXPECT_EQ(format_nexthops(render_nexthops(rib)),
              "ID: 12 (static)\n"
              "     Used by: 2 routes\n"
              "           via 10.0.0.2, ifindex 3, weight 1\n"
              "ID: 13 (bgp)\n"
              "     Used by: 1 route\n"
              "           via fe80::1, ifindex 5, weight 1, seg6 encap H.Encaps segs fc00:0:2:e000::\n"
              "ID: 40 (bgp)\n"
              "     Used by: 1 route\n"
              "     Depends: (12) (14)\n"
              "           nhid 12, weight 1\n"
              "           nhid 14, weight 2 (not received)\n"
              "ID: 50 (static)\n"
              "     Used by: 1 route\n"
              "           is directly connected, ifindex 9, weight 1, seg6local uN flavors next-csid lcblock 32 "
              "lcnode-fn 16\n"
              "ID: 60 (static)\n"
              "     Used by: 0 routes\n"
              "           blackhole\n"
              "\n"
              "SID lists:\n"
              "sl1: fc00::1, fc00::2\n");
}

TEST_F(TextTest, Sids) {
    (void)vrfs.sync(vrf::source::config, {spec("red", 10)});
    EXPECT_EQ(format_sids(render_sids(rib, vrfs)),
              "SID                  Behavior  Context                    VRF  Flavors    Protocol  Origin  Structure"
              "                State\n"
              "-------------------------------------------------------------------------------------------------------"
              "--------------------\n"
              "fc00:0:1::/48        uN        -                          -    next-csid  static    fpm     lcblock 32 "
              "lcnode-fn 16  active\n"
              "fc00:0:1::2/128      End.X     nh6 fc00:12::2, ifindex 2  -    psp        kernel    fpm     -        "
              "                active\n"
              "fc00:0:1:e000::/128  End.DT46  vrftable 10                red  -          bgp       fpm     -        "
              "                active\n");
}

TEST_F(TextTest, RefusedSidShowsTheReasonAndTheCount) {
    const std::string text = format_sids(render_sids(rib, vrfs));
    EXPECT_NE(text.find("fc00:0:1:e000::/128  End.DT46  vrftable 10                -    -          bgp       fpm     "
                        "-                        refused: table 10 is not bound to any VRF\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\nRefused SIDs (now/since start): table_unbound 1/0\n"), std::string::npos) << text;
}

TEST_F(TextTest, Vrfs) {
    (void)vrfs.sync(vrf::source::config,
                    {spec("red", 10, {{"e1", 0}, {"e2", 0}}), spec("blue", 10), spec("green", 20)});
    EXPECT_EQ(format_vrfs(render_vrfs(vrfs, "0 (0 link events, 0 re-dumps)")),
              "Name     Id  Table  Source   Members  State    Reason\n"
              "----------------------------------------------------------------------------------------------------"
              "--\n"
              "default  0   254    builtin  -        active   -\n"
              "red      1   10     config   e1,e2    active   -\n"
              "blue     2   10     config   -        refused  vrf blue: table 10 is already bound to vrf red (config)\n"
              "green    3   20     config   -        active   -\n"
              "\n"
              "Kernel VRF devices: 0 (0 link events, 0 re-dumps)\n");
}

TEST_F(TextTest, VrfInConflictShowsBothTables) {
    vrf::vrf_spec k = spec("red", 20);
    k.dev_ifindex = 7;
    (void)vrfs.sync(vrf::source::config, {spec("red", 10)});
    (void)vrfs.sync(vrf::source::kernel, {k});
    const std::string text = format_vrfs(render_vrfs(vrfs, "1 (2 link events, 0 re-dumps)"));
    EXPECT_NE(text.find("red      1   10 (config 10, kernel 20)  config+kernel  -        conflict  vrf red: config "
                        "binds table 10, kernel binds table 20\n"),
              std::string::npos)
        << text;
}

TEST_F(TextTest, EncapSource) {
    vrf::encap_source_resolver res;
    EXPECT_EQ(format_encap_source(render_encap_source(res, std::nullopt)),
              "Encap source: none (kernel tunsrc not read yet, no encap-source configured)\n"
              "  Kernel tunsrc: unknown\n"
              "  Configured (encap.source): none\n");
    res.set_configured(rib::parse_ip6("fc00:0:1::9"));
    res.set_kernel_tunsrc(vrf::tunsrc_reading{true, rib::parse_ip6("fc00:0:1::1"), {}});
    EXPECT_EQ(format_encap_source(render_encap_source(res, rib::parse_ip6("fc00:0:1::9"))),
              "Encap source: fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)\n"
              "  Kernel tunsrc: unknown\n"
              "  Configured (encap.source): fc00:0:1::9\n");
    // With a poller: its last reading (here a message built by hand: no kernel in this test).
    pb::EncapSource e;
    e.set_text("fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)");
    e.set_kernel_tunsrc("fc00:0:1::1");
    e.set_poll_interval_ms(2000);
    e.set_kernel_reads(12);
    e.set_kernel_read_failures(1);
    e.set_kernel_error("timeout");
    EXPECT_EQ(format_encap_source(e),
              "Encap source: fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)\n"
              "  Kernel tunsrc: fc00:0:1::1 (re-read every 2000 ms: 12 reads, 1 failed)\n"
              "  Last read error: timeout\n"
              "  Configured (encap.source): none\n");
}

TEST_F(TextTest, FpmSweepScope) {
    fpm::session_info si;
    si.listen = "127.0.0.1:2620";
    si.sweeps = 2;
    si.last_sweep_removed = 1;
    si.zebra_pid = 42;
    si.last_sweep_scope = fpm::sweep_scope::replayed_tables;
    si.last_sweep_reason = "same zebra (nlmsg_pid 42)";
    si.last_sweep_kept = 2;
    std::string text = format_fpm(render_fpm(si, {}, rib));
    EXPECT_NE(text.find("  zebra: nlmsg_pid 42\n"
                        "  Resync: done, 2 sweeps, last removed 1\n"
                        "  Last sweep: replayed tables only, same zebra (nlmsg_pid 42); kept 2 stale routes of "
                        "tables zebra does not replay\n"),
              std::string::npos)
        << text;
    si.last_sweep_scope = fpm::sweep_scope::full;
    si.last_sweep_reason = "zebra restarted (nlmsg_pid 41 -> 42)";
    si.last_sweep_kept = 0;
    text = format_fpm(render_fpm(si, {}, rib));
    EXPECT_NE(text.find("  Last sweep: full, zebra restarted (nlmsg_pid 41 -> 42)\n"), std::string::npos) << text;
}

TEST_F(TextTest, Fpm) {
    fpm::ingest_stats st;
    st.frames = 10;
    st.bytes = 1000;
    st.netlink_frames = 10;
    st.messages = 12;
    st.updates = 11;
    st.msg_types[24] = 8;
    st.msg_types[77] = 1;
    st.msg_types[1000] = 1;
    st.msg_types[0x8001] = 2;
    st.reasons[static_cast<size_t>(fpm::reason::ignored_attr)] = 5;
    st.reasons[static_cast<size_t>(fpm::reason::attr_truncated)] = 1;
    st.bytes_received = 1100;
    st.bytes_discarded = 60;
    fpm::session_info si;
    si.listen = "127.0.0.1:2620";
    si.connected = true;
    si.peer = "127.0.0.1:40612";
    si.peer_identity = "uid 103 (frr)";
    si.talking = true;
    si.connected_since = std::chrono::system_clock::from_time_t(1767322800);
    si.last_frame_at = si.connected_since + std::chrono::seconds(90000);
    si.connections = 2;
    si.takeovers = 1;
    si.denied_user = 3;
    si.last_denied = "127.0.0.1:5555: uid 65534 (nobody) is not in fpm.allow-user";
    si.disconnects = 1;
    si.last_disconnect_reason = "peer closed the connection";
    si.sweeps = 1;
    si.last_sweep_removed = 3;
    const auto s = render_fpm(si, st, rib, si.connected_since + std::chrono::seconds(90061));
    EXPECT_EQ(format_fpm(s),
              "FPM listener 127.0.0.1:2620\n"
              "  State: connected to 127.0.0.1:40612 (uid 103 (frr)) since 2026-01-02T03:00:00Z (1d01h01m), in sync\n"
              "  Last valid frame: 00:01:01 ago\n"
              "  Connections: 2 admitted (1 took over), 0 refused (first frame not a valid replay, or zebra active), "
              "0 probes, 0 closed without a first frame in time, 1 disconnects, 0 framing resets\n"
              "  Not admitted: 3 local (fpm.allow-user), 0 remote (fpm.allow-address), 0 owner unknown\n"
              "  Last not admitted: 127.0.0.1:5555: uid 65534 (nobody) is not in fpm.allow-user\n"
              "  Last disconnect: peer closed the connection\n"
              "  Resync: done, 1 sweeps, last removed 3\n"
              "\n"
              "Ingest:\n"
              "  Frames:   10 (netlink 10, protobuf 0)\n"
              "  Bytes:    1100 received: 1000 in frames, 60 discarded (lost framing, incomplete frames)\n"
              "  Messages: 12\n"
              "  Updates:  11\n"
              "\n"
              "Messages by type:\n"
              "  RTM_NEWROUTE (24)                    8\n"
              "  type 77                              1\n"
              "  RTM_NEWSRV6LOCALSID (1000)           1\n"
              "  ADD_ROUTE (protobuf 1)               2\n"
              "\n"
              "Errors (dropped input):\n"
              "  attr_truncated           1  attribute header or payload runs past its container\n"
              "\n"
              "Ignored on purpose:\n"
              "  ignored_attr           5  attribute not used by srv6d, skipped by length\n"
              "\n"
              "RIB:\n"
              "  Routes: 10 in 2 tables, 3 local SIDs\n"
              "  Nexthop objects: 4, PIC contexts: 0, SID lists: 0\n"
              "  Route updates: 10 upserts, 10 changes, 0 deletes, 0 deletes of unknown routes\n"
              "  Nexthop updates: 4 upserts, 4 changes, 0 deletes, 0 deletes of unknown ids\n"
              "  Resyncs: 0, swept: 0 routes, 0 nexthops, 0 other\n"
              "  Limits: routes 4000000, per table 2000000, nexthop entries 11 of 1000000\n");
}

TEST_F(TextTest, FpmListeningWithResyncPending) {
    fpm::session_info si;
    si.listen = "127.0.0.1:2620";
    si.resync_pending = true;
    const std::string text = format_fpm(render_fpm(si, {}, rib));
    // One state: not "no zebra connected" and "replay being received" at once (issue 38).
    EXPECT_NE(text.find("  State: listening, no zebra connected; its last replay was interrupted, nothing swept\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  Resync: interrupted, the RIB keeps its stale entries until a replay is swept (0 sweeps so "
                        "far)\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("being received"), std::string::npos);
    // No counters: no per-type or per-reason sections at all.
    EXPECT_EQ(text.find("Messages by type"), std::string::npos);
    EXPECT_EQ(text.find("Errors"), std::string::npos);
    EXPECT_EQ(text.find("Ignored"), std::string::npos);
}

TEST_F(TextTest, CountersShowASubPortsVlanAndParent) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    auto* p = c.add_ports();
    p->set_name("ce1");
    p->set_mtu(1500);
    p->set_queues(1);
    auto* v = c.add_ports();
    v->set_name("ce1.100");
    v->set_parent("ce1");
    v->set_vlan(100);
    v->set_mtu(1500);
    v->set_queues(1);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("ce1          down             -   1500      1  -\n"
                        "ce1.100      down             -   1500      1  100 on ce1\n"),
              std::string::npos)
        << text;
}

TEST_F(TextTest, MemoryShowsTablesByKindBytesPerRouteAndPools) {
    pb::Memory m;
    const std::pair<const char*, uint64_t> kinds[] = {{"lpm4", 1536}, {"lpm6", 3u << 20}, {"nexthop", 640}, {"view", 0}};
    uint64_t total = 0;
    for (const auto& [k, b] : kinds) {
        auto* t = m.add_tables();
        t->set_kind(k);
        t->set_bytes(b);
        t->set_blocks(b / 64);
        total += b;
    }
    m.set_tables_bytes(total);
    m.set_routes(1000);
    m.set_pooled_bytes(512);
    EXPECT_NE(format_memory(m).find("Mbuf pools: none (no dataplane)"), std::string::npos);
    auto* p = m.add_pools();
    p->set_name("srv6d_pkts");
    p->set_size(8191);
    p->set_in_use(1200);
    p->set_available(6991);
    p->set_data_room(2176);
    const std::string text = format_memory(m);
    EXPECT_NE(text.find("  lpm4                            1.5 KiB           1536         24\n"
                        "  lpm6                            3.0 MiB        3145728      49152\n"
                        "  nexthop                           640 B            640         10\n"
                        "  view                                0 B              0          0\n"
                        "  total                           3.0 MiB        3147904      49186\n"
                        "  1000 routes: 3147 bytes per route\n"
                        "  freed, kept for reuse: 512 B (512 bytes)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  srv6d_pkts                       8191       1200       6991       2176\n"), std::string::npos)
        << text;
}

TEST_F(TextTest, CountersShowTheDevicesOwnDropsOnlyWhenAny) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    auto* p = c.add_ports();
    p->set_name("core");
    auto* q = c.add_ports();
    q->set_name("ce1");
    EXPECT_EQ(format_counters(c).find("RX missed"), std::string::npos);
    q->set_rx_missed(169);
    q->set_rx_nombuf(3);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("Port            RX missed    RX errors   RX no mbuf    TX errors  (the devices' own counters)\n"
                        "core                    0            0            0            0\n"
                        "ce1                   169            0            3            0\n"),
              std::string::npos)
        << text;
}

TEST_F(TextTest, CountersShowHeadendByBehaviorOnlyWhenAny) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    auto* s = c.add_sids();
    s->set_prefix("fc00:1::a6/128");
    s->set_behavior("End.DT6");
    s->set_packets(10);
    s->set_bytes(1350);
    for (const char* b : {"H.Insert", "H.Encaps", "H.Encaps.L2", "H.Encaps.Red", "H.Encaps.L2.Red"}) {
        auto* h = c.add_headend();
        h->set_behavior(b);
    }
    const std::string none = format_counters(c);
    EXPECT_EQ(none.find("Headend"), std::string::npos) << none;
    c.mutable_headend(1)->set_packets(40);
    c.mutable_headend(3)->set_packets(2);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("fc00:1::a6/128                               End.DT6                10           1350\n"
                        "\n"
                        "Headend                                           Packets\n"
                        "H.Encaps                                               40\n"
                        "H.Encaps.Red                                            2\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("H.Insert"), std::string::npos) << "zero rows are left out";
}

TEST_F(TextTest, CountersShowEachWorkersShareWithMoreThanOne) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    auto* w0 = c.add_per_worker();
    w0->set_lcore(0);
    w0->set_rx_packets(10);
    EXPECT_EQ(format_counters(c).find("Worker"), std::string::npos) << "one worker: the ports say it all";
    c.set_workers(2);
    w0->set_lcore(1);
    w0->set_tx_packets(9);
    w0->set_dropped(1);
    auto* w1 = c.add_per_worker();
    w1->set_worker(1);  // not started yet: no lcore
    w1->set_rx_packets(7);
    w1->set_tx_packets(7);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("\nWorker    Lcore   RX packets   TX packets      Drops\n"
                        "0             1           10            9          1\n"
                        "1             -            7            7          0\n"),
              std::string::npos)
        << text;
}

TEST_F(TextTest, CountersShowNeighborResolutionOnlyWhenAsked) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    EXPECT_EQ(format_counters(c).find("Neighbor resolution"), std::string::npos);
    auto* nr = c.mutable_neigh_resolution();
    nr->set_queued(5);
    nr->set_queue_full(1);
    nr->set_sent(3);
    nr->set_rate_limited(2);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("\nNeighbor resolution (for rewritten packets): 5 requested, 1 lost (queue full), 3 sent to "
                        "the kernel, 2 rate-limited, 0 failed\n"),
              std::string::npos)
        << text;
}

TEST_F(TextTest, CountersShowHeldPacketsOnlyWhenAny) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    EXPECT_EQ(format_counters(c).find("Held for"), std::string::npos);
    auto* nr = c.mutable_neigh_resolution();
    nr->set_queued(1);
    nr->set_held(3);
    nr->set_released(1);
    nr->set_hold_dropped(2);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("\nHeld for an unresolved neighbor: 3 held, 1 sent once resolved, 2 dropped\n"), std::string::npos)
        << text;
}

TEST_F(TextTest, CountersShowIcmpOnlyWhenAny) {
    pb::Counters c;
    c.set_dataplane(true);
    c.set_workers(1);
    for (const char* k : {"ipv4 fragmentation-needed", "ipv4 time-exceeded", "ipv6 packet-too-big"}) {
        auto* o = c.mutable_icmp()->add_sent();
        o->set_message(k);
    }
    EXPECT_EQ(format_counters(c).find("ICMP"), std::string::npos);
    c.mutable_icmp()->mutable_sent(1)->set_packets(7);
    c.mutable_icmp()->set_rate_limited(3);
    const std::string text = format_counters(c);
    EXPECT_NE(text.find("\nICMP sent: 7\n"
                        "  ipv4 time-exceeded                      7\n"
                        "  rate-limited                            3  not sent: over the ICMP rate limit\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("fragmentation-needed"), std::string::npos) << "zero rows are left out";
}

TEST_F(TextTest, Durations) {
    EXPECT_EQ(format_duration(0), "00:00:00");
    EXPECT_EQ(format_duration(86399), "23:59:59");
    EXPECT_EQ(format_duration(86400), "1d00h00m");
    EXPECT_EQ(format_duration(10 * 86400 + 3 * 3600 + 7 * 60 + 5), "10d03h07m");
}

TEST_F(TextTest, ErrorResponse) {
    pb::Response r;
    r.set_error("boom");
    EXPECT_EQ(format_response(r), "boom\n");
}

}  // namespace
}  // namespace mgmt
