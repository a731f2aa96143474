// Two workers on a multi-queue port, as srv6d runs them (dataplane.cc: worker w polls queue w of
// every port and sends on tx queue w). The port is net_af_packet with qpairs=2 on a veth in a
// network namespace of this test's own thread; the kernel spreads what arrives over the two
// queues by flow hash (PACKET_FANOUT_HASH), as a NIC's RSS would. Each worker polls on a thread
// of its own. 16 UDP flows of 8 packets each: both workers must forward, every flow must stay on
// one worker and leave in order.
// Needs root (unshare(CLONE_NEWNET), veth); skipped otherwise.
#include <gtest/gtest.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/ethernet.h>
#include <rte_dev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "endpoint_pkt.hh"
#include "fib/control/compiler.hh"
#include "forward/datapath/worker.hh"
#include "rib/rib.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

// From the kernel of this thread's namespace (sysfs shows the one it was mounted in).
std::string read_mac(const std::string& ifname, mac_addr& mac) {
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    ifreq ifr{};
    std::snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname.c_str());
    const bool ok = fd >= 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return "no MAC for " + ifname;
    std::memcpy(mac.bytes, ifr.ifr_hwaddr.sa_data, 6);
    return "";
}

// The whole test runs in one thread whose network namespace is fresh: the veths, the PMD's
// sockets and the sender all live there, the rest of the test process is untouched.
std::string run() {
    if (unshare(CLONE_NEWNET) != 0)
        return "skip";
    if (std::system("ip link add rssA type veth peer name rssB && ip link set rssA up && ip link set rssB up") != 0)
        return "skip";
    mac_addr mac_a, mac_b;
    if (auto e = read_mac("rssA", mac_a); !e.empty())
        return e;
    if (auto e = read_mac("rssB", mac_b); !e.empty())
        return e;
    if (rte_dev_probe("net_af_packet_rss0,iface=rssA,qpairs=2") != 0)
        return "rte_dev_probe net_af_packet qpairs=2 failed";
    uint16_t in = 0;
    if (rte_eth_dev_get_port_by_name("net_af_packet_rss0", &in) != 0)
        return "no port";
    rte_eth_conf conf{};
    if (rte_eth_dev_configure(in, 2, 2, &conf) != 0)
        return "configure";
    for (uint16_t q = 0; q < 2; ++q)
        if (rte_eth_rx_queue_setup(in, q, 256, 0, nullptr, test::pool()) != 0 ||
            rte_eth_tx_queue_setup(in, q, 256, 0, nullptr) != 0)
            return "queue setup";
    if (rte_eth_dev_start(in) != 0)
        return "start";
    // The egress: a ring port with one tx ring per worker (what each worker sent, in order).
    rte_ring* rx = rte_ring_create("rss_out_rx", 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    rte_ring* tx[2] = {rte_ring_create("rss_out_tx0", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ),
                       rte_ring_create("rss_out_tx1", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ)};
    const int out_id = rte_eth_from_rings("rss_out", &rx, 1, tx, 2, 0);
    if (out_id < 0)
        return "ring port";
    const uint16_t out = static_cast<uint16_t>(out_id);
    if (rte_eth_dev_configure(out, 1, 2, &conf) != 0 || rte_eth_rx_queue_setup(out, 0, 256, 0, nullptr, test::pool()) != 0 ||
        rte_eth_tx_queue_setup(out, 0, 256, 0, nullptr) != 0 || rte_eth_tx_queue_setup(out, 1, 256, 0, nullptr) != 0 ||
        rte_eth_dev_start(out) != 0)
        return "ring port start";

    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    rib::route rt;
    rt.key.dst = *rib::parse_prefix("10.20.0.0/16");
    rt.protocol = rib::proto::bgp;
    rib::nexthop nh;
    nh.gateway = *rib::parse_addr("10.13.0.2");
    nh.ifindex = 13;
    rt.nexthops = {nh};
    r.upsert_route(rt);
    if (!c.compile(r, reg, src))
        return "compile";
    const mac_addr mac_out{{0x02, 0, 0, 0, 0x13, 0x01}}, mac_nb{{0x02, 0, 0, 0, 0xce, 0x02}};
    std::vector<port_info> ports = {{in, vrf::default_vrf_id, 1500, true, 12, mac_a},
                                    {out, vrf::default_vrf_id, 1500, true, 13, mac_out}};
    std::vector<neighbor> ns = {{out, *rib::parse_addr("10.13.0.2"), mac_nb}};
    fib::rcu_cell<adj_view> adj;
    (void)adj.exchange(adj_view::create(ports, ns, 1));
    worker_counters cnt[2];
    std::string err;
    {
        worker w0({{in, 0}}, 0, published{&c.cell(), &adj}, nullptr, cnt[0]);
        worker w1({{in, 1}}, 1, published{&c.cell(), &adj}, nullptr, cnt[1]);

        // 16 flows (source address) x 8 packets (sequence in the payload length), interleaved.
        const int s = socket(AF_PACKET, SOCK_RAW, 0);
        sockaddr_ll ll{};
        ll.sll_family = AF_PACKET;
        ll.sll_ifindex = static_cast<int>(if_nametoindex("rssB"));
        if (s < 0 || bind(s, reinterpret_cast<sockaddr*>(&ll), sizeof ll) != 0)
            return "packet socket";
        constexpr int flows = 16, per_flow = 8;
        for (int k = 0; k < per_flow; ++k)
            for (int f = 0; f < flows; ++f) {
                const std::string sa = "192.0.2." + std::to_string(10 + f);
                const test::bytes ip = test::ip4_packet(sa.c_str(), "10.20.1.1", 64, static_cast<size_t>(12 + k));
                const test::bytes fr = test_support::ether(mac_a.bytes, mac_b.bytes, 0x0800, ip);
                if (send(s, fr.data(), fr.size(), 0) != static_cast<ssize_t>(fr.size()))
                    return "send";
            }
        close(s);
        // Poll both until every packet is out (the kernel delivers asynchronously), at most 10 s.
        std::map<uint8_t, std::vector<int>> seen[2];  // per worker: flow -> sequence numbers
        int total = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        // Each worker on its own thread, as on its own lcore; this one reads what they sent.
        std::atomic<bool> stop{false};
        std::thread t0([&] {
            while (!stop.load(std::memory_order_relaxed))
                w0.poll();
        });
        std::thread t1([&] {
            while (!stop.load(std::memory_order_relaxed))
                w1.poll();
        });
        while (total < flows * per_flow && std::chrono::steady_clock::now() < deadline) {
            for (int q = 0; q < 2; ++q) {
                rte_mbuf* m = nullptr;
                while (rte_ring_dequeue(tx[q], reinterpret_cast<void**>(&m)) == 0) {
                    const test::bytes b = test::bytes_of(m);
                    rte_pktmbuf_free(m);
                    if (b.size() < 14 + 20 + 8 || b[12] != 0x08 || b[13] != 0x00)
                        continue;
                    seen[q][b[14 + 15]].push_back(static_cast<int>(b.size()) - 14 - 20 - 8 - 12);
                    ++total;
                }
            }
        }
        stop = true;
        t0.join();
        t1.join();
        if (total != flows * per_flow)
            err = "forwarded " + std::to_string(total) + " of " + std::to_string(flows * per_flow);
        for (int q = 0; q < 2 && err.empty(); ++q) {
            if (seen[q].empty() || cnt[q].ports[out].tx_packets.get() == 0)
                err = "worker " + std::to_string(q) + " forwarded nothing";
            for (const auto& [flow, seqs] : seen[q]) {
                if (seen[1 - q].count(flow))
                    err = "flow " + std::to_string(flow) + " on both workers";
                for (size_t i = 0; i < seqs.size(); ++i)
                    if (seqs[i] != static_cast<int>(i))
                        err = "flow " + std::to_string(flow) + " out of order";
            }
        }
        if (err.empty())
            std::printf("worker 0: %zu flows, %llu packets; worker 1: %zu flows, %llu packets\n", seen[0].size(),
                        static_cast<unsigned long long>(cnt[0].ports[out].tx_packets.get()), seen[1].size(),
                        static_cast<unsigned long long>(cnt[1].ports[out].tx_packets.get()));
    }
    rte_eth_dev_stop(in);
    rte_eth_dev_close(in);
    rte_eth_dev_stop(out);
    rte_eth_dev_close(out);
    rte_ring_free(rx);
    rte_ring_free(tx[0]);
    rte_ring_free(tx[1]);
    adj_view::destroy(adj.exchange(nullptr));
    return err;
}

TEST(WorkerRss, TwoWorkersOnTwoQueuesBothForwardAndKeepFlowOrder) {
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root: a network namespace and a veth pair";
    std::string result;
    std::thread t([&] { result = run(); });
    t.join();
    if (result == "skip")
        GTEST_SKIP() << "cannot create a network namespace with a veth pair here";
    EXPECT_EQ(result, "");
}

}  // namespace
}  // namespace fwd
