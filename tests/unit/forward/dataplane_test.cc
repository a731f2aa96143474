// The dataplane as srv6d runs it: ports created from devargs, one worker on the calling lcore
// (run_here), counters summed and cleared, ports following their VRF's state.
#include "forward/control/dataplane.hh"

#include <gtest/gtest.h>
#include <rte_ethdev.h>

#include <chrono>
#include <thread>

#include "fib/control/compiler.hh"
#include "tests/support/eventually.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

TEST(Dataplane, PortsFromDevargsWorkerCountersAndVrfState) {
    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    ASSERT_TRUE(c.compile(r, reg, src));
    dataplane_options o;
    std::string err;
    o.ports.push_back(*parse_port("a net_null_dpt0 ifindex=5", err));
    o.ports.push_back(*parse_port("b net_null_dpt1 ifindex=6 vrf=blue", err));
    o.neighbors.push_back(*parse_neighbor("a 10.0.0.2 02:00:00:00:00:02", err));
    o.mbufs = 2047;
    bool blue = false;
    auto vrf_of = [&](const std::string& n) -> std::optional<vrf::vrf_id> {
        if (n == "blue" && blue)
            return vrf::vrf_id{7};
        return std::nullopt;
    };
    dataplane dp(rcu, c.cell());
    ASSERT_TRUE(dp.open(o, vrf_of, err)) << err;
    EXPECT_EQ(dp.workers(), 1u);  // one lcore (eal_env.cc): no worker lcore, one worker on the main lcore
    const adj_view* a = dp.adjacency();
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->ports().size(), 2u);
    EXPECT_TRUE(a->ports()[0].up);
    EXPECT_FALSE(a->ports()[1].up) << "vrf blue is not active";
    EXPECT_EQ(a->port_by_ifindex(6)->vrf, vrf::default_vrf_id);
    EXPECT_EQ(a->neighbor_count(), 1u);

    EXPECT_EQ(dp.launch(), 0u);
    std::thread t([&] { dp.run_here(); });
    // Until both ports have received and port b's drops show (the counters are read while the
    // worker runs, as srv6ctl does), for at most 10 s.
    auto seen = [&] {
        const auto n = dp.counters();
        return n.ports.size() == 2 && n.ports[0].rx_packets > 0 && n.ports[1].rx_packets > 0 &&
               n.drops[static_cast<size_t>(drop_reason::port_down)] > 0;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!seen() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    dp.request_stop();
    t.join();
    dp.stop();
    auto s = dp.counters();
    ASSERT_EQ(s.ports.size(), 2u);
    EXPECT_GT(s.ports[0].rx_packets, 0u) << "net_null delivers packets on every poll";
    EXPECT_GT(s.ports[1].rx_packets, 0u);
    // net_null's frames are not IP; port b's are dropped before parsing (its VRF is down).
    EXPECT_GT(s.drops[static_cast<size_t>(drop_reason::port_down)], 0u);
    uint64_t dropped = 0;
    for (auto d : s.drops)
        dropped += d;
    EXPECT_EQ(dropped, s.ports[0].rx_packets + s.ports[1].rx_packets);
    // The one worker's share is all of it. It ran on a thread of the test, not an EAL lcore:
    // no lcore to show (srv6d runs it on the main lcore; the live test two_workers shows those).
    ASSERT_EQ(s.per_worker.size(), 1u);
    EXPECT_EQ(s.per_worker[0].lcore, std::nullopt);
    EXPECT_EQ(s.per_worker[0].rx_packets, s.ports[0].rx_packets + s.ports[1].rx_packets);
    EXPECT_EQ(s.per_worker[0].dropped, dropped);
    dp.clear_counters();
    s = dp.counters();
    EXPECT_EQ(s.ports[0].rx_packets, 0u);
    EXPECT_EQ(s.per_worker[0].rx_packets, 0u);
    EXPECT_EQ(s.per_worker[0].dropped, 0u);
    EXPECT_EQ(s.drops[static_cast<size_t>(drop_reason::port_down)], 0u);

    blue = true;
    dp.update_vrfs(vrf_of);
    rcu.synchronize();
    a = dp.adjacency();
    EXPECT_TRUE(a->ports()[1].up);
    EXPECT_EQ(a->port_by_ifindex(6)->vrf, 7u);
}

// dataplane.idle-sleep: an idle worker sleeps (a few hundred polls in 300 ms instead of
// millions), forwards what comes, and busy-polls again when the setting goes back to 0.
TEST(Dataplane, IdleWorkerSleepsAndWakes) {
    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    ASSERT_TRUE(c.compile(r, reg, src));
    dataplane_options o;
    std::string err;
    // net_ring without a peer: nothing ever arrives.
    o.ports.push_back(*parse_port("a net_ring_i0 ifindex=5", err));
    o.mbufs = 2047;
    o.idle_sleep_us = 2000;
    dataplane dp(rcu, c.cell());
    ASSERT_TRUE(dp.open(o, [](const std::string&) { return std::nullopt; }, err)) << err;
    EXPECT_EQ(dp.launch(), 0u);  // no worker lcore: the worker runs on the thread below
    std::thread t([&] { dp.run_here(); });
    // 256 polls before the first nap, ~11 while the nap doubles up to 2 ms: then at its longest.
    ASSERT_TRUE(test_support::eventually([&] { return dp.polls() > 256 + 12; }));
    // The idle rate over a measured window: at most one poll per 2 ms nap (a loaded machine
    // only makes fewer).
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t p0 = dp.polls();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const uint64_t idle = dp.polls() - p0;
    const auto window_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    EXPECT_LE(idle, static_cast<uint64_t>(window_ms.count()) / 2 + 2)
        << "an idle worker with idle-sleep 2000 us kept polling: " << idle << " polls in " << window_ms.count() << " ms";
    // Grace periods do not wait for a sleeping worker (it is offline while it naps).
    const auto s0 = std::chrono::steady_clock::now();
    rcu.synchronize();
    EXPECT_LT(std::chrono::steady_clock::now() - s0, std::chrono::milliseconds(100));
    // With idle-sleep 0 the worker polls without pause: many times the idle window's polls.
    dp.set_idle_sleep(0);
    const uint64_t p1 = dp.polls();
    EXPECT_TRUE(test_support::eventually([&] { return dp.polls() - p1 > 10 * (idle + 100); }))
        << "with idle-sleep 0 the worker polls without pause";
    dp.request_stop();
    t.join();
    dp.stop();
}

// A sub-port: an id of srv6d's own from the top, its parent's MAC and link, its own VRF;
// counters name its parent and VLAN.
TEST(Dataplane, SubPortOnAParent) {
    fib::qsbr_domain rcu{4};
    fib::compiler c{rcu};
    dataplane_options o;
    std::string err;
    o.ports.push_back(*parse_port("p net_null_dpv0 ifindex=5", err));
    o.ports.push_back(*parse_port("p.7 vlan=7 parent=p ifindex=9 vrf=blue", err));
    o.mbufs = 1023;
    dataplane dp(rcu, c.cell());
    ASSERT_TRUE(dp.open(o, [](const std::string&) { return std::optional<vrf::vrf_id>(3); }, err)) << err;
    const adj_view* a = dp.adjacency();
    ASSERT_EQ(a->ports().size(), 2u);
    const port_info& parent = a->ports()[0];
    const port_info& sub = a->ports()[1];
    EXPECT_EQ(sub.vlan, 7u);
    EXPECT_EQ(sub.parent, parent.port_id);
    EXPECT_EQ(sub.dev(), parent.port_id);
    EXPECT_EQ(sub.port_id, max_ports - 1) << "the top id: no ethdev has it";
    EXPECT_FALSE(rte_eth_dev_is_valid_port(sub.port_id));
    EXPECT_EQ(sub.mac, parent.mac);
    EXPECT_EQ(sub.mtu, 1500u);
    EXPECT_EQ(sub.vrf, 3u);
    EXPECT_TRUE(sub.up);
    EXPECT_EQ(a->sub_port(parent.port_id, 7), &sub);
    EXPECT_EQ(a->sub_port(parent.port_id, 8), nullptr);
    EXPECT_EQ(a->port_by_ifindex(9), &sub);
    const auto s = dp.counters();
    ASSERT_EQ(s.ports.size(), 2u);
    EXPECT_EQ(s.ports[1].parent, "p");
    EXPECT_EQ(s.ports[1].vlan, 7u);
    EXPECT_EQ(s.ports[0].vlan, 0u);
}

TEST(Dataplane, BadDeviceIsAnError) {
    fib::qsbr_domain rcu{4};
    fib::compiler c{rcu};
    dataplane_options o;
    std::string err;
    o.ports.push_back(*parse_port("x net_nosuchpmd0", err));
    dataplane dp(rcu, c.cell());
    EXPECT_FALSE(dp.open(o, [](const std::string&) { return std::nullopt; }, err));
    EXPECT_NE(err.find("cannot create device"), std::string::npos) << err;
}

}  // namespace
}  // namespace fwd
