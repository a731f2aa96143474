// What the worker tests share: DPDK ports made of two rings each (net_ring ethdevs from
// rte_eth_from_rings, configured and started like any port), and the routes zebra would send,
// written field by field. Each test file keeps its own topology and expectations.
#pragma once

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "endpoint_pkt.hh"
#include "forward/datapath/adjacency.hh"
#include "forward/datapath/counters.hh"
#include "forward/datapath/drop_reason.hh"
#include "rib/addr.hh"
#include "rib/model.hh"

namespace fwd::wtest {

using test::bytes;

// A port: the worker receives what is enqueued on `rx` and sends into `tx`.
struct ring_port {
    uint16_t id = 0;
    rte_ring* rx = nullptr;
    rte_ring* tx = nullptr;
};

// `name` must be unique in the process (it names the rings and the ethdev).
inline ring_port open_ring_port(const std::string& name) {
    ring_port p;
    p.rx = rte_ring_create((name + "_rx").c_str(), 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    p.tx = rte_ring_create((name + "_tx").c_str(), 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    EXPECT_NE(p.rx, nullptr);
    EXPECT_NE(p.tx, nullptr);
    const int id = rte_eth_from_rings(name.c_str(), &p.rx, 1, &p.tx, 1, 0);
    EXPECT_GE(id, 0);
    p.id = static_cast<uint16_t>(id);
    // Started like any port (the worker's fast path needs a started device).
    rte_eth_conf conf{};
    EXPECT_EQ(rte_eth_dev_configure(p.id, 1, 1, &conf), 0);
    EXPECT_EQ(rte_eth_rx_queue_setup(p.id, 0, 256, 0, nullptr, test::pool()), 0);
    EXPECT_EQ(rte_eth_tx_queue_setup(p.id, 0, 256, 0, nullptr), 0);
    EXPECT_EQ(rte_eth_dev_start(p.id), 0);
    return p;
}

// Frees what is left in both rings, stops and closes the port.
inline void close_ring_port(ring_port& p) {
    rte_mbuf* m;
    for (rte_ring* r : {p.tx, p.rx})
        while (rte_ring_dequeue(r, reinterpret_cast<void**>(&m)) == 0)
            rte_pktmbuf_free(m);
    rte_eth_dev_stop(p.id);
    rte_eth_dev_close(p.id);
    rte_ring_free(p.rx);
    rte_ring_free(p.tx);
}

// `frame` enqueued for the worker to receive on `p`.
inline void send(const ring_port& p, const bytes& frame) {
    rte_mbuf* m = test::mbuf_of(frame);
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(rte_ring_enqueue(p.rx, m), 0);
}

// What the worker sent out of `p` since the last call, oldest first (the mbufs freed).
inline std::vector<bytes> out(const ring_port& p) {
    std::vector<bytes> v;
    rte_mbuf* m;
    while (rte_ring_dequeue(p.tx, reinterpret_cast<void**>(&m)) == 0) {
        v.push_back(test::bytes_of(m));
        rte_pktmbuf_free(m);
    }
    return v;
}

// "reason=count " for every drop counter above zero: what a failed expectation prints.
inline uint64_t total_drops(const worker_counters& c) {
    uint64_t n = 0;
    for (size_t i = 0; i < drop_reason_count; ++i)
        n += c.drops[i].get();
    return n;
}

inline std::string drop_summary(const worker_counters& c) {
    std::string s;
    for (size_t i = 0; i < drop_reason_count; ++i)
        if (c.drops[i].get())
            s += std::string(name(static_cast<drop_reason>(i))) + "=" + std::to_string(c.drops[i].get()) + " ";
    return s;
}

// One frame in on `in` and one poll of `w`: exactly `want` out of `at` (nullptr: out of none of
// them) and nothing out of the other `ports`.
template <class Worker>
void expect_one(Worker& w, const worker_counters& c, std::initializer_list<const ring_port*> ports,
                const ring_port& in, const bytes& frame, const ring_port* at, const bytes& want) {
    send(in, frame);
    w.poll();
    for (const ring_port* p : ports) {
        const auto got = out(*p);
        if (at != nullptr && p->id == at->id) {
            ASSERT_EQ(got.size(), 1u) << "port " << p->id << " " << drop_summary(c);
            EXPECT_EQ(test::hex(got[0]), test::hex(want));
        } else {
            EXPECT_TRUE(got.empty()) << "port " << p->id << ": " << (got.empty() ? "" : test::hex(got[0])) << " "
                                     << drop_summary(c);
        }
    }
}

// The frames out of one port, `got`, are exactly `want`, in order; `what` names the port in a
// failure, `drops` the drop counters.
inline void expect_frames(const std::vector<bytes>& got, const std::vector<bytes>& want, const std::string& what,
                          const std::string& drops) {
    ASSERT_EQ(got.size(), want.size()) << what << ": " << drops;
    for (size_t i = 0; i < want.size(); ++i)
        EXPECT_EQ(test::hex(got[i]), test::hex(want[i])) << what << ", frame " << i;
}

inline bytes eth(const mac_addr& dst, const mac_addr& src, uint16_t type, const bytes& l3) {
    return test_support::ether(dst.bytes, src.bytes, type, l3);
}

// RFC 791/8200 forwarding: TTL / hop limit - 1, the IPv4 checksum recomputed from scratch.
inline bytes ttl_minus_one(bytes p) {
    if (p.size() < 20)  // not a packet: left as it is (the caller's expectation fails)
        return p;
    if (p[0] >> 4 == 4) {
        --p[8];
        p[10] = p[11] = 0;
        test::put16(p, 10, test::ip4_checksum(p.data(), 20));
    } else {
        --p[7];
    }
    return p;
}

inline rib::nexthop via(const char* gw, uint32_t ifindex) {
    rib::nexthop n;
    if (gw)
        n.gateway = *rib::parse_addr(gw);
    n.ifindex = ifindex;
    return n;
}

inline rib::route route(const char* dst, std::vector<rib::nexthop> nhs, rib::table_id t = rib::main_table) {
    rib::route r;
    r.key.table = t;
    r.key.dst = *rib::parse_prefix(dst);
    r.protocol = rib::proto::bgp;
    r.nexthops = std::move(nhs);
    return r;
}

// A headend path to the SIDs `sids` (visiting order) through the core neighbor fc00:12::2 on
// ifindex 12, as the worker tests' topologies all have it.
inline rib::nexthop encap(rib::encap_mode mode, std::vector<const char*> sids) {
    rib::nexthop n = via("fc00:12::2", 12);
    rib::seg6_encap e;
    e.mode = mode;
    for (const char* s : sids)
        e.segments.push_back(test::a6(s));
    n.seg6 = e;
    return n;
}

// A local SID as the kernel route zebra installs for it; `tweak` sets its parameters.
inline rib::route sid(const char* prefix, rib::behavior b, uint32_t ifindex, void (*tweak)(rib::seg6local&) = nullptr) {
    rib::nexthop n;
    n.ifindex = ifindex;
    rib::seg6local l;
    l.action = b;
    if (tweak)
        tweak(l);
    n.local = l;
    rib::route r = route(prefix, {n});
    r.protocol = rib::proto::kernel;
    return r;
}

}  // namespace fwd::wtest
