// The forwarding worker end to end on real DPDK ports (net_ring ethdevs from rte_eth_from_rings):
// frames go into a port's rx ring, worker::poll() runs, frames come out of the tx rings, byte
// for byte. The tables are compiled by the real table compiler (fib/control) from a RIB holding what zebra
// would send; the expected frames are written out from RFC 8986/8754/791/8200 field by field.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <algorithm>
#include <map>
#include <random>
#include <memory>
#include <set>
#include <string>

#include "endpoint_pkt.hh"
#include "tests/unit/forward/headend_util.hh"
#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/srv6_endpoint.hh"
#include "forward/datapath/worker.hh"
#include "vrf/sid_parse.hh"
#include "worker_env.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using test::a6;
using test::bytes;
using test::inner4;
using test::inner6;
using test::ip4_packet;
using test::ip6_packet;
using test::srh;
using wtest::close_ring_port;
using wtest::encap;
using wtest::eth;
using wtest::open_ring_port;
using wtest::out;
using wtest::ring_port;
using wtest::send;
using wtest::route;
using wtest::sid;
using wtest::ttl_minus_one;
using wtest::via;

const mac_addr mac_ce_port{{0x02, 0, 0, 0, 0x11, 0x01}};
const mac_addr mac_core_port{{0x02, 0, 0, 0, 0x12, 0x01}};
const mac_addr mac_ce2_port{{0x02, 0, 0, 0, 0x13, 0x01}};
const mac_addr mac_ce1{{0x02, 0, 0, 0, 0xce, 0x01}};     // 10.1.0.2 / fd01::2 behind port ce
const mac_addr mac_p{{0x02, 0, 0, 0, 0x0b, 0x02}};       // fc00:12::2 / 10.12.0.2 behind port core
const mac_addr mac_ce2{{0x02, 0, 0, 0, 0xce, 0x02}};     // 10.13.0.2 behind port ce2
const mac_addr mac_remote{{0x02, 0, 0, 0, 0xee, 0xee}};  // whoever sent us the frame

bytes in_frame(const bytes& l3, uint16_t type) { return eth(mac_core_port, mac_remote, type, l3); }

// An SRH packet (SL 1, no other extension header) after an End-like step: the destination is
// `next`, hop limit - 1, segments left 0.
bytes after_end_step(bytes p, const char* next) {
    std::memcpy(p.data() + 24, a6(next).bytes.data(), 16);
    p[7] = static_cast<uint8_t>(p[7] - 1);
    p[43] = 0;
    return p;
}

// What process_endpoint() (unit-tested in endpoint_test.cc) makes of `in` as SID behavior `b`:
// the L3 packet the worker must send.
bytes endpoint_l3(const bytes& in, rib::behavior b, endpoint_action want) {
    rte_mbuf* ref = test::mbuf_of(in);
    sid_params sp;
    sp.behavior = b;
    EXPECT_EQ(process_endpoint(ref, sp).action, want);
    const bytes l3 = test::bytes_of(ref);
    rte_pktmbuf_free(ref);
    return l3;
}

// RFC 8986 §5.1/§5.2 outer header (+ SRH) written from the definitions (tests/support).
bytes outer(const char* src, std::vector<const char*> sids, bool red, uint8_t inner_type, const bytes& payload,
            uint32_t flow_label, uint8_t tc) {
    test_support::srv6_encap_ref r{red, {}, a6(src), 64, tc, flow_label};
    for (const char* s : sids)
        r.sids.push_back(a6(s));
    return test_support::srv6_encap(r, payload, inner_type);
}

uint32_t label_of(const bytes& inner_l3) {
    return flow_label(flow_hash_ip(inner_l3.data(), static_cast<uint32_t>(inner_l3.size())));
}

constexpr uint16_t t_ipv4 = 0x0800, t_ipv6 = 0x86dd;

class worker_test : public ::testing::Test {
protected:
    void SetUp() override {
        // A fresh resolver had no source: configuring one changes what it gives.
        ASSERT_TRUE(src.set_configured(a6("fc00:1::1")));
        ASSERT_TRUE(src.global().ok());
        ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"red", 10, {}, std::nullopt}).ok());
        red = reg.find("red")->id;
        ce = make_port("ce");
        core = make_port("core");
        ce2 = make_port("ce2");
        tap = make_port("tap");  // core's TAP mirror (a ring here: what the kernel would get)
        std::vector<port_info> ports = {
            {ce.id, red, 1500, true, 11, mac_ce_port},
            {core.id, vrf::default_vrf_id, 1600, true, 12, mac_core_port, tap.id, 1000, 64},
            {ce2.id, vrf::default_vrf_id, 1500, true, 13, mac_ce2_port},
        };
        std::vector<neighbor> ns = {
            {ce.id, *rib::parse_addr("10.1.0.2"), mac_ce1},
            {ce.id, *rib::parse_addr("fd01::2"), mac_ce1},
            {core.id, *rib::parse_addr("fc00:12::2"), mac_p},
            {core.id, *rib::parse_addr("10.12.0.2"), mac_p},
            {ce2.id, *rib::parse_addr("10.13.0.2"), mac_ce2},
        };
        (void)adj.exchange(adj_view::create(ports, ns, 1, own_addresses()));
        hdr = headend_hdr_pool_create(("wt_hdr" + std::to_string(seq)).c_str(), 63, 0);
        ASSERT_NE(hdr, nullptr);
        counters = std::make_unique<worker_counters>();
        resolve = resolve_ring_create(("wt_res" + std::to_string(seq)).c_str(), 8, 0);  // holds 7
        ASSERT_NE(resolve, nullptr);
        w = std::make_unique<worker>(std::vector<rx_queue>{{ce.id, 0}, {core.id, 0}, {ce2.id, 0}, {tap.id, 0, core.id}}, 0,
                                     published{&c.cell(), &adj}, hdr, *counters, resolve, trace.get());
        tables();
    }

    void TearDown() override {
        for (ring_port* p : {&ce, &core, &ce2, &tap})
            close_ring_port(*p);
        w.reset();
        rte_ring_free(resolve);
        adj_view::destroy(adj.exchange(nullptr));
        rte_mempool_free(hdr);
    }

    ring_port make_port(const char* name) { return open_ring_port(std::string("wt_") + name + std::to_string(seq++)); }

    // What zebra would have sent: the core, a customer VRF `red` (table 10), local SIDs.
    void tables() {
        // default VRF
        r.upsert_route(route("fc00:12::/64", {via(nullptr, 12)}));
        r.upsert_route(route("fc00:0:2::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(route("fc00:0:3::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(route("fc00:0:200::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(route("10.20.0.0/16", {via("10.13.0.2", 13)}));
        r.upsert_route(route("2001:db8:20::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(route("10.30.0.0/16", {via("10.12.0.2", 12), via("10.13.0.2", 13)}));
        r.upsert_route(sid("fc00:0:1::1/128", rib::behavior::end, 12));
        r.upsert_route(sid("fc00:0:1::10/128", rib::behavior::end_dt4, 11, [](rib::seg6local& l) { l.vrftable = 10; }));
        r.upsert_route(sid("fc00:0:1::11/128", rib::behavior::end_dt6, 11, [](rib::seg6local& l) { l.table = 10; }));
        r.upsert_route(sid("fc00:0:1::12/128", rib::behavior::end_dt46, 11, [](rib::seg6local& l) { l.vrftable = 10; }));
        r.upsert_route(sid("fc00:0:1::13/128", rib::behavior::end_dx4, 11,
                           [](rib::seg6local& l) { l.nh4 = test::a4("10.1.0.2"); }));
        r.upsert_route(sid("fc00:0:1::14/128", rib::behavior::end_x, 12,
                           [](rib::seg6local& l) { l.nh6 = a6("fc00:12::2"); }));
        r.upsert_route(sid("fc00:0:100::/48", rib::behavior::end, 12, [](rib::seg6local& l) {
            l.flavors = rib::flavor::next_csid;
            l.lcblock_bits = 32;
            l.lcnode_fn_bits = 16;
        }));
        r.upsert_route(sid("fc00:0:1::18/128", rib::behavior::end_x, 12, [](rib::seg6local& l) {
            l.nh6 = a6("fc00:12::2");
            l.flavors = rib::flavor::usd;
        }));
        r.upsert_route(sid("fc00:0:1::15/128", rib::behavior::end_t, 12, [](rib::seg6local& l) { l.table = 10; }));
        r.upsert_route(sid("fc00:0:1::16/128", rib::behavior::end_dx6, 11, [](rib::seg6local& l) { l.nh6 = a6("fd01::2"); }));
        r.upsert_route(sid("fc00:0:1::17/128", rib::behavior::end, 12, [](rib::seg6local& l) { l.flavors = rib::flavor::psp; }));
        r.upsert_route(sid("fc00:0:101::/48", rib::behavior::end_x, 12, [](rib::seg6local& l) {
            l.flavors = rib::flavor::next_csid;
            l.lcblock_bits = 32;
            l.lcnode_fn_bits = 16;
            l.nh6 = a6("fc00:12::2");
        }));
        r.upsert_route(sid("fc00:0:1::99/128", rib::behavior::end_dt4, 11, [](rib::seg6local& l) { l.vrftable = 99; }));
        // VRF red
        r.upsert_route(route("10.1.0.0/24", {via(nullptr, 11)}, 10));
        r.upsert_route(route("fd01::/64", {via(nullptr, 11)}, 10));
        r.upsert_route(route("10.99.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:2::d4"})}, 10));
        r.upsert_route(route("fd99::/16", {encap(rib::encap_mode::encap, {"fc00:0:3::1", "fc00:0:200::1", "fc00:0:2::d6"})}, 10));
        r.upsert_route(route("10.98.0.0/16", {encap(rib::encap_mode::l2encap, {"fc00:0:2::d2"})}, 10));
        r.upsert_route(route("10.97.0.0/16", {encap(rib::encap_mode::l2encap_red, {"fc00:0:3::1", "fc00:0:2::d2"})}, 10));
        r.upsert_route(route("fc00:0:77::/48", {via("fd01::2", 11)}, 10));
        ASSERT_TRUE(c.compile(r, reg, src));
        // Quiet tables republished flat, as srv6d has them in the steady state (the other
        // worker tests keep the two-level form of freshly changed tables).
        while (c.settling())
            c.compile(r, reg, src);
    }

    // The router's own addresses in the core's subnets (the TAP mirror's, as the control thread
    // gives them with every adjacency view).
    static std::vector<own_address> own_addresses() {
        return {{vrf::default_vrf_id, *rib::parse_addr("10.12.0.1")}, {vrf::default_vrf_id, *rib::parse_addr("fc00:12::1")}};
    }
    // A new adjacency snapshot: the current one with its neighbor list edited by `edit` (what
    // the control thread publishes when the kernel's neighbors change).
    template <class F>
    void publish_neighbors(F edit) {
        const adj_view* cur = adj.load();
        std::vector<port_info> ports(cur->ports().begin(), cur->ports().end());
        std::vector<neighbor> ns(cur->neighbors().begin(), cur->neighbors().end());
        edit(ns);
        adj_view::destroy(adj.exchange(adj_view::create(ports, ns, cur->epoch() + 1, own_addresses())));
    }
    // ... plus a neighbor (once the kernel resolved it).
    void publish_neighbor(uint16_t port, const char* addr, const mac_addr& mac) {
        publish_neighbors([&](std::vector<neighbor>& ns) { ns.push_back({port, *rib::parse_addr(addr), mac}); });
    }
    // ... with a neighbor's new MAC.
    void set_neighbor_mac(const char* addr, const mac_addr& mac) {
        publish_neighbors([&](std::vector<neighbor>& ns) {
            for (auto& n : ns)
                if (n.addr == *rib::parse_addr(addr))
                    n.mac = mac;
        });
    }

    // Publishes the adjacency view again with `port` up or down (as the link poll does).
    void set_port_up(uint16_t port, bool up, uint64_t epoch) {
        const adj_view* cur = adj.load();
        std::vector<port_info> ps(cur->ports().begin(), cur->ports().end());
        for (auto& p : ps)
            if (p.port_id == port)
                p.up = up;
        adj_view::destroy(adj.exchange(adj_view::create(ps, cur->neighbors(), epoch)));
    }

    // One frame in on `in`, exactly `want` out of `at`, nothing anywhere else.
    void expect_one(const ring_port& in, const bytes& frame, const ring_port& at, const bytes& want) {
        wtest::expect_one(*w, *counters, {&ce, &core, &ce2, &tap}, in, frame, &at, want);
    }
    uint64_t dropped(drop_reason why) const { return counters->drops[static_cast<size_t>(why)].get(); }
    uint64_t headend(rib::encap_mode m) const { return counters->headend[static_cast<size_t>(m)].get(); }
    std::string drops() const { return wtest::drop_summary(*counters); }
    uint32_t nh_of(const char* prefix) const {
        rib::route_key k;
        k.dst = *rib::parse_prefix(prefix);
        return c.find(k)->nh;
    }

    static inline int seq = 0;
    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    fib::rcu_cell<adj_view> adj;
    vrf::vrf_id red = 0;
    ring_port ce, core, ce2, tap;
    rte_mempool* hdr = nullptr;
    rte_ring* resolve = nullptr;
    std::unique_ptr<worker_counters> counters;
    std::unique_ptr<trace_shared> trace = std::make_unique<trace_shared>();
    std::unique_ptr<worker> w;
};

TEST_F(worker_test, ipv4_forwarding_decrements_ttl_and_rewrites_ethernet) {
    const bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
    expect_one(core, in_frame(ip, t_ipv4), ce2, eth(mac_ce2, mac_ce2_port, t_ipv4, ttl_minus_one(ip)));
    EXPECT_EQ(counters->ports[core.id].rx_packets.get(), 1u);
    EXPECT_EQ(counters->ports[ce2.id].tx_packets.get(), 1u);
    EXPECT_EQ(counters->ports[ce2.id].tx_bytes.get(), 14u + ip.size());
    for (size_t m = 0; m < headend_modes; ++m)
        EXPECT_EQ(counters->headend[m].get(), 0u) << "plain forwarding is no headend";
}

TEST_F(worker_test, ipv6_forwarding_decrements_hop_limit) {
    const bytes ip = ip6_packet(64, "fd00::7", "2001:db8:20::1", {test::layer{17, bytes(16, 0x33)}}, 59, 0x12345, 0);
    expect_one(core, in_frame(ip, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv6, ttl_minus_one(ip)));
}

// Routed traffic to several gateways in one burst (ECMP members, many CEs): the nexthop changes
// from packet to packet and each packet still leaves by its own gateway's port and MAC, which
// the worker keeps per nexthop across bursts; a new adjacency view (a gateway's new MAC), a new
// FIB view (a route moved) and nexthops beyond the memo's slots change nothing to that.
TEST_F(worker_test, forwarding_to_several_gateways_in_one_burst_each_by_its_own_mac) {
    r.upsert_route(route("2001:db8:40::/48", {via("fc00:12::2", 12)}));
    r.upsert_route(route("2001:db8:41::/48", {via("fd13::2", 13)}));
    ASSERT_TRUE(c.compile(r, reg, src));
    publish_neighbor(ce2.id, "fd13::2", mac_ce2);
    // Sends packets to each destination in turn, in one burst; checks each port's output.
    auto check = [&](const std::vector<std::string>& dsts, auto where) {
        std::vector<bytes> want_core, want_ce2;
        for (size_t i = 0; i < dsts.size(); ++i) {
            const bytes ip = ip6_packet(64, "fd00::7", dsts[i].c_str(), {test::layer{17, bytes(16, static_cast<uint8_t>(i))}});
            send(core, in_frame(ip, t_ipv6));
            const auto [on_ce2, m] = where(i);
            (on_ce2 ? want_ce2 : want_core)
                .push_back(eth(m, on_ce2 ? mac_ce2_port : mac_core_port, t_ipv6, ttl_minus_one(ip)));
        }
        w->poll();
        wtest::expect_frames(out(core), want_core, "core", drops());
        wtest::expect_frames(out(ce2), want_ce2, "ce2", drops());
    };
    const std::vector<std::string> mixed = {"2001:db8:40::5", "2001:db8:41::5", "2001:db8:40::6",
                                            "2001:db8:41::6", "2001:db8:40::7", "2001:db8:41::7"};
    auto mac_of = [](const mac_addr& m40, const mac_addr& m41, bool via_ce2) {
        return [=](size_t i) { return std::pair{via_ce2 && i % 2 == 1, i % 2 ? m41 : m40}; };
    };
    check(mixed, mac_of(mac_p, mac_ce2, true));
    check(mixed, mac_of(mac_p, mac_ce2, true));  // again, from the worker's memo
    const mac_addr mac_ce2_new{{0x02, 0, 0, 0, 0xce, 0x99}};
    set_neighbor_mac("fd13::2", mac_ce2_new);  // a new adjacency view
    check(mixed, mac_of(mac_p, mac_ce2_new, true));
    r.upsert_route(route("2001:db8:41::/48", {via("fc00:12::2", 12)}));  // a new FIB view
    ASSERT_TRUE(c.compile(r, reg, src));
    check(mixed, mac_of(mac_p, mac_p, false));

    // 80 gateways, more nexthops than the memo has slots (some share one), on the two ports in
    // turn (nexthops 64 apart on different ones too), each with its own MAC.
    auto ce2_for = [](int k) { return (((k >> 6) ^ k) & 1) != 0; };
    auto gw_mac = [](int k) { return mac_addr{{0x02, 0, 0, 0x77, static_cast<uint8_t>(k), 0x01}}; };
    auto gw_of = [&](int k) { return (ce2_for(k) ? "fd13::1:" : "fc00:12::1:") + std::to_string(k); };
    std::vector<std::string> many;
    for (int k = 0; k < 80; ++k) {
        const std::string net = "2001:db8:50:" + std::to_string(k);
        r.upsert_route(route((net + "::/64").c_str(), {via(gw_of(k).c_str(), ce2_for(k) ? 13 : 12)}));
        many.push_back(net + "::1");
    }
    publish_neighbors([&](std::vector<neighbor>& ns) {
        for (int k = 0; k < 80; ++k)
            ns.push_back({ce2_for(k) ? ce2.id : core.id, *rib::parse_addr(gw_of(k)), gw_mac(k)});
    });
    ASSERT_TRUE(c.compile(r, reg, src));
    for (int round = 0; round < 2; ++round)
        for (size_t k = 0; k < many.size(); k += 16) {
            const std::vector<std::string> part(many.begin() + static_cast<std::ptrdiff_t>(k),
                                                many.begin() + static_cast<std::ptrdiff_t>(k + 16));
            check(part, [&](size_t i) {
                const int n = static_cast<int>(k + i);
                return std::pair{ce2_for(n), gw_mac(n)};
            });
        }
    EXPECT_EQ(drops(), "");
}

TEST_F(worker_test, ethernet_padding_is_not_forwarded) {
    const bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64, 4);  // 32 bytes: padded to 60 on the wire
    bytes f = in_frame(ip, t_ipv4);
    f.resize(60, 0);
    expect_one(core, f, ce2, eth(mac_ce2, mac_ce2_port, t_ipv4, ttl_minus_one(ip)));
}

TEST_F(worker_test, h_encaps_red_ipv4_one_sid_no_srh) {
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 64, 12, 0xb8);
    const bytes inner = ttl_minus_one(ip);
    const bytes o = outer("fc00:1::1", {"fc00:0:2::d4"}, true, 4, inner, label_of(inner), 0xb8);
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip), core, eth(mac_p, mac_core_port, t_ipv6, o));
    EXPECT_EQ(headend(rib::encap_mode::encap_red), 1u);
    EXPECT_EQ(headend(rib::encap_mode::encap), 0u);
}

// H.Insert and H.Insert.Red from VRF red: the SRH goes into the customer's own IPv6 header
// (hop limit decremented once, as routed), which leaves to its first SID through the core.
TEST_F(worker_test, h_insert_puts_the_srh_into_the_packet_and_sends_it_to_the_first_sid) {
    const std::vector<rib::ip6_addr> sids = {a6("fc00:0:2::1"), a6("fc00:0:3::e")};
    r.upsert_route(route("fd98::/16", {encap(rib::encap_mode::inline_srh, {"fc00:0:2::1", "fc00:0:3::e"})}, 10));
    r.upsert_route(route("fd97::/16", {encap(rib::encap_mode::inline_red, {"fc00:0:2::1", "fc00:0:3::e"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    for (const auto mode : {rib::encap_mode::inline_srh, rib::encap_mode::inline_red}) {
        const bool reduced = mode == rib::encap_mode::inline_red;
        const bytes ip = ip6_packet(64, "fd01::2", reduced ? "fd97::5" : "fd98::5", {test::layer{17, bytes(16, 0x33)}}, 59,
                                    0x12345, 0xb8);
        expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv6, ip), core,
                   eth(mac_p, mac_core_port, t_ipv6, fwd::test::reference_insert(mode, sids, ttl_minus_one(ip))));
        EXPECT_EQ(headend(mode), 1u);
    }
    EXPECT_EQ(drops(), "");
}

// VPN traffic to several remote PEs in one burst: the template changes from packet to packet,
// and each packet leaves by its own template's outer route (port, gateway MAC) even though the
// worker keeps those per template across bursts; a new FIB view (the outer route moved) and
// templates beyond the memo's slots (some share a slot) change nothing to that.
TEST_F(worker_test, h_encaps_to_several_remote_pes_in_one_burst_each_by_its_own_outer_route) {
    r.upsert_route(route("fc00:0:6::/48", {via("fd13::2", 13)}));  // PE 6 behind ce2
    r.upsert_route(route("10.91.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:2::91"})}, 10));
    r.upsert_route(route("10.92.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:6::92"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    publish_neighbor(ce2.id, "fd13::2", mac_ce2);
    auto burst = [&](std::vector<bytes>& ips) {
        ips.clear();
        for (uint16_t i = 0; i < 8; ++i) {
            ips.push_back(ip4_packet("10.1.0.2", i % 2 ? "10.92.1.5" : "10.91.1.5", 64, static_cast<uint16_t>(20 + i)));
            send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ips.back()));
        }
        w->poll();
    };
    auto expect_out = [&](const std::vector<bytes>& ips, bool pe6_on_ce2) {
        const auto on_core = out(core), on_ce2 = out(ce2);
        ASSERT_EQ(on_core.size(), pe6_on_ce2 ? 4u : 8u) << drops();
        ASSERT_EQ(on_ce2.size(), pe6_on_ce2 ? 4u : 0u) << drops();
        size_t k_core = 0, k_ce2 = 0;
        for (size_t i = 0; i < ips.size(); ++i) {
            const bytes inner = ttl_minus_one(ips[i]);
            const bytes o = outer("fc00:1::1", {i % 2 ? "fc00:0:6::92" : "fc00:0:2::91"}, true, 4, inner, label_of(inner), 0);
            if (i % 2 && pe6_on_ce2)
                EXPECT_EQ(test::hex(on_ce2[k_ce2++]), test::hex(eth(mac_ce2, mac_ce2_port, t_ipv6, o))) << i;
            else
                EXPECT_EQ(test::hex(on_core[k_core++]), test::hex(eth(mac_p, mac_core_port, t_ipv6, o))) << i;
        }
    };
    std::vector<bytes> ips;
    burst(ips);
    expect_out(ips, true);
    burst(ips);  // again, the outer routes now from the worker's memo
    expect_out(ips, true);
    // PE 6 is now reached through the core: a new FIB view, the same adjacency view.
    r.upsert_route(route("fc00:0:6::/48", {via("fc00:12::2", 12)}));
    ASSERT_TRUE(c.compile(r, reg, src));
    burst(ips);
    expect_out(ips, false);
    // The core's gateway answers from a new MAC: a new adjacency view, the same FIB view.
    const mac_addr mac_p_new{{0x02, 0, 0, 0, 0x0b, 0x99}};
    set_neighbor_mac("fc00:12::2", mac_p_new);
    burst(ips);
    {
        const auto got = out(core);
        ASSERT_EQ(got.size(), 8u) << drops();
        bytes want = eth(mac_p_new, mac_core_port, t_ipv6, {});
        want.resize(12);
        for (size_t i = 0; i < got.size(); ++i)
            EXPECT_EQ(test::hex(bytes(got[i].begin(), got[i].begin() + 12)), test::hex(want)) << i;
    }
    EXPECT_EQ(drops(), "");

    // 80 templates, more than the memo has slots (some share one), to two remote PEs reached
    // by different ports: each packet carries its own SID and leaves by its own PE's port.
    r.upsert_route(route("fc00:0:6::/48", {via("fd13::2", 13)}));
    // Templates 64 apart take different PEs too (the nexthops are numbered in route order).
    auto pe6 = [](int k) { return ((k >> 6) ^ k) & 1; };
    auto sid_of = [&](int k) { return std::string(pe6(k) ? "fc00:0:6::" : "fc00:0:2::") + std::to_string(100 + k); };
    for (int k = 0; k < 80; ++k)
        r.upsert_route(route(("10.150." + std::to_string(k) + ".0/24").c_str(),
                             {encap(rib::encap_mode::encap_red, {sid_of(k).c_str()})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    for (int round = 0; round < 2; ++round)
        for (int k = 0; k < 80; k += 16) {
            std::vector<bytes> want_core, want_ce2;
            for (int j = k; j < k + 16; ++j) {
                const bytes ip = ip4_packet("10.1.0.2", ("10.150." + std::to_string(j) + ".1").c_str(), 64, 7);
                send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip));
                const bytes inner = ttl_minus_one(ip);
                const bytes o = outer("fc00:1::1", {sid_of(j).c_str()}, true, 4, inner, label_of(inner), 0);
                if (pe6(j))
                    want_ce2.push_back(eth(mac_ce2, mac_ce2_port, t_ipv6, o));
                else
                    want_core.push_back(eth(mac_p_new, mac_core_port, t_ipv6, o));
            }
            w->poll();
            const auto got_core = out(core), got_ce2 = out(ce2);
            ASSERT_EQ(got_core.size(), want_core.size()) << drops();
            ASSERT_EQ(got_ce2.size(), want_ce2.size()) << drops();
            for (size_t i = 0; i < want_core.size(); ++i)
                EXPECT_EQ(test::hex(got_core[i]), test::hex(want_core[i])) << "round " << round << ", core " << i;
            for (size_t i = 0; i < want_ce2.size(); ++i)
                EXPECT_EQ(test::hex(got_ce2[i]), test::hex(want_ce2[i])) << "round " << round << ", ce2 " << i;
        }
    EXPECT_EQ(drops(), "");
}

TEST_F(worker_test, h_encaps_ipv6_three_sids_with_srh) {
    const bytes ip = ip6_packet(64, "fd01::2", "fd99:1::5", {test::layer{17, bytes(24, 0x77)}}, 59, 0x0abcd, 0x10);
    const bytes inner = ttl_minus_one(ip);
    const bytes o = outer("fc00:1::1", {"fc00:0:3::1", "fc00:0:200::1", "fc00:0:2::d6"}, false, 41, inner,
                          label_of(inner), 0x10);
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv6, ip), core, eth(mac_p, mac_core_port, t_ipv6, o));
    EXPECT_EQ(headend(rib::encap_mode::encap), 1u);
    EXPECT_EQ(headend(rib::encap_mode::encap_red), 0u);
}

TEST_F(worker_test, h_encaps_l2_carries_the_whole_frame) {
    const bytes ip = ip4_packet("10.1.0.2", "10.98.3.3", 64, 12, 0xb8);
    const bytes frame = eth(mac_ce_port, mac_ce1, t_ipv4, ip);
    // The frame, as received (no TTL change: it is bridged, not routed), is the payload; the
    // outer traffic class is the frame's IP TOS (RFC 2983 uniform, RFC 6040 normal mode).
    const bytes o = outer("fc00:1::1", {"fc00:0:2::d2"}, false, 143, frame, label_of(ip), 0xb8);
    expect_one(ce, frame, core, eth(mac_p, mac_core_port, t_ipv6, o));
    EXPECT_EQ(headend(rib::encap_mode::l2encap), 1u);
}

TEST_F(worker_test, h_encaps_l2_red_two_sids) {
    const bytes ip = ip4_packet("10.1.0.2", "10.97.3.3", 64);
    const bytes frame = eth(mac_ce_port, mac_ce1, t_ipv4, ip);
    const bytes o = outer("fc00:1::1", {"fc00:0:3::1", "fc00:0:2::d2"}, true, 143, frame, label_of(ip), 0);
    expect_one(ce, frame, core, eth(mac_p, mac_core_port, t_ipv6, o));
    EXPECT_EQ(headend(rib::encap_mode::l2encap_red), 1u);
    EXPECT_EQ(headend(rib::encap_mode::l2encap), 0u);
}

TEST_F(worker_test, end_t_looks_the_next_sid_up_in_the_bound_vrf) {
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::15",
                                {srh(1, {"fc00:0:77::1", "fc00:0:1::15"}), inner4("10.9.0.1", "10.1.0.2")});
    expect_one(core, in_frame(in, t_ipv6), ce, eth(mac_ce1, mac_ce_port, t_ipv6, after_end_step(in, "fc00:0:77::1")));
}

TEST_F(worker_test, end_dx6_sends_the_inner_packet_to_its_adjacency) {
    const test::layer inner = inner6("fd09::1", "fd77::9");
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::16", {inner});
    const bytes l3 = endpoint_l3(in, rib::behavior::end_dx6, endpoint_action::send_v6);
    expect_one(core, in_frame(in, t_ipv6), ce, eth(mac_ce1, mac_ce_port, t_ipv6, l3));
}

TEST_F(worker_test, end_psp_pops_the_srh_at_the_penultimate_segment) {
    const test::layer inner = inner4("10.9.0.1", "10.1.0.2");
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::17", {srh(1, {"fc00:0:2::d6", "fc00:0:1::17"}), inner});
    // RFC 8986 §4.16.1: the SRH goes, its Next Header moves into the IPv6 header.
    const bytes want = ip6_packet(63, "fc00:0:9::1", "fc00:0:2::d6", {inner});
    expect_one(core, in_frame(in, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv6, want));
}

TEST_F(worker_test, ua_shifts_and_sends_to_the_adjacency) {
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:101:200::", {inner6("fd09::1", "fd01::2")});
    bytes want = in;
    std::memcpy(want.data() + 24, a6("fc00:0:200::").bytes.data(), 16);
    want[7] = 63;
    expect_one(core, in_frame(in, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv6, want));
}

TEST_F(worker_test, end_advances_the_segment_list_and_forwards) {
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1",
                                {srh(1, {"fc00:0:2::d6", "fc00:0:1::1"}), inner4("10.9.0.1", "10.1.0.2")});
    bytes want = in;
    std::memcpy(want.data() + 24, a6("fc00:0:2::d6").bytes.data(), 16);
    want[7] = 63;
    want[40 + 3] = 0;  // segments left
    expect_one(core, in_frame(in, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv6, want));
    rib::route_key k;  // counted in the SID's own slot (worker_behaviors_test.cc: SidCounters)
    k.dst = *rib::parse_prefix("fc00:0:1::1/128");
    const auto slot = c.sid_counter_of(k);
    ASSERT_TRUE(slot);
    EXPECT_EQ(counters->sids[slot->slot].gen.get(), slot->gen);
    EXPECT_EQ(counters->sids[slot->slot].packets.get(), 1u);
    EXPECT_EQ(counters->sids[slot->slot].bytes.get(), in.size());
}

TEST_F(worker_test, usid_shift_next_c_sid) {
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:100:200::", {inner6("fd09::1", "fd01::2")});
    bytes want = in;
    std::memcpy(want.data() + 24, a6("fc00:0:200::").bytes.data(), 16);
    want[7] = 63;
    expect_one(core, in_frame(in, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv6, want));
}

TEST_F(worker_test, end_dt4_dt6_dt46_decapsulate_into_the_bound_vrf) {
    struct {
        const char* sid;
        bool v4;
    } cases[] = {{"fc00:0:1::10", true}, {"fc00:0:1::11", false}, {"fc00:0:1::12", true}, {"fc00:0:1::12", false}};
    for (const auto& k : cases) {
        SCOPED_TRACE(std::string(k.sid) + (k.v4 ? " v4" : " v6"));
        const test::layer inner = k.v4 ? inner4("10.9.0.1", "10.1.0.2") : inner6("fd09::1", "fd01::2");
        const bytes in = ip6_packet(64, "fc00:0:9::1", k.sid, {inner});
        expect_one(core, in_frame(in, t_ipv6), ce,
                   eth(mac_ce1, mac_ce_port, k.v4 ? t_ipv4 : t_ipv6, ttl_minus_one(inner.b)));
    }
}

// End.DT4/DT6/DT46 on packets that look like the common one (no SRH, the inner packet right
// after the outer header) but are not quite: each is forwarded or dropped as RFC 8986 §4.6-4.8
// and the checks of any routed packet say, whichever of the worker's two decapsulation paths
// takes it (worker_endpoint.hh: decap_direct, else process_endpoint).
TEST_F(worker_test, end_dt_decapsulation_edge_cases) {
    const test::layer i4 = inner4("10.9.0.1", "10.1.0.2");
    const test::layer i6 = inner6("fd09::1", "fd01::2");
    const bytes ok4 = eth(mac_ce1, mac_ce_port, t_ipv4, ttl_minus_one(i4.b));
    const bytes ok6 = eth(mac_ce1, mac_ce_port, t_ipv6, ttl_minus_one(i6.b));
    const auto outer = [](const char* sid, const test::layer& l) { return ip6_packet(64, "fc00:0:9::1", sid, {l}); };
    struct shot {
        const char* what;
        bytes frame;
        const bytes* want;  // nullptr: dropped with `why`
        drop_reason why;
    };
    std::vector<shot> shots;
    {
        bytes f = in_frame(outer("fc00:0:1::12", i4), t_ipv6);
        f.insert(f.end(), 9, 0);  // link-layer padding after the IPv6 packet
        shots.push_back({"link padding", f, &ok4, {}});
    }
    {
        bytes ip = outer("fc00:0:1::12", i6);
        ip.insert(ip.end(), 7, 0xee);  // inside the outer payload, after the inner packet
        test::put16(ip, 4, static_cast<uint16_t>(ip.size() - 40));
        shots.push_back({"bytes after the inner packet", in_frame(ip, t_ipv6), &ok6, {}});
    }
    {
        test::layer l = i4;
        test::put16(l.b, 2, static_cast<uint16_t>(l.b.size() + 4));  // total length past the outer payload
        test::put16(l.b, 10, 0);
        test::put16(l.b, 10, test::ip4_checksum(l.b.data(), 20));
        shots.push_back({"inner total length lie", in_frame(outer("fc00:0:1::10", l), t_ipv6), nullptr,
                         drop_reason::ip4_truncated});
    }
    {
        test::layer l = i4;
        l.b[10] ^= 0x21;
        shots.push_back({"inner bad checksum", in_frame(outer("fc00:0:1::12", l), t_ipv6), nullptr,
                         drop_reason::ip4_bad_checksum});
    }
    {
        test::layer l = i6;
        test::put16(l.b, 4, static_cast<uint16_t>(l.b.size()));  // payload length past the outer payload
        shots.push_back({"inner payload length lie", in_frame(outer("fc00:0:1::11", l), t_ipv6), nullptr,
                         drop_reason::ip6_truncated});
    }
    shots.push_back({"next header 4, an IPv6 packet inside",
                     in_frame(outer("fc00:0:1::12", test::layer{4, i6.b}), t_ipv6), nullptr, drop_reason::sid_bad_inner});
    shots.push_back({"End.DT4, inner IPv6", in_frame(outer("fc00:0:1::10", i6), t_ipv6), nullptr,
                     drop_reason::sid_bad_inner});
    shots.push_back({"End.DT6, inner IPv4", in_frame(outer("fc00:0:1::11", i4), t_ipv6), nullptr,
                     drop_reason::sid_bad_inner});
    {
        bytes ip = outer("fc00:0:1::12", i4);
        test::put16(ip, 4, static_cast<uint16_t>(ip.size()));  // past the frame
        shots.push_back({"outer payload length lie", in_frame(ip, t_ipv6), nullptr, drop_reason::ip6_truncated});
    }
    {
        bytes ip = outer("fc00:0:1::12", i4);
        test::put16(ip, 4, 0);  // the inner packet is padding now
        shots.push_back({"outer payload length 0", in_frame(ip, t_ipv6), nullptr, drop_reason::ip4_truncated});
    }
    for (const shot& s : shots) {
        SCOPED_TRACE(s.what);
        const uint64_t before = s.want ? 0 : dropped(s.why);
        if (s.want) {
            expect_one(core, s.frame, ce, *s.want);
        } else {
            wtest::expect_one(*w, *counters, {&ce, &core, &ce2, &tap}, core, s.frame, nullptr, {});
            EXPECT_EQ(dropped(s.why), before + 1) << drops();
        }
    }

    // The same packet in two segments (the second holding the inner packet's end) takes the
    // general path and comes out the same.
    const bytes f = in_frame(outer("fc00:0:1::12", i4), t_ipv6);
    rte_mbuf* head = test::mbuf_of(bytes(f.begin(), f.end() - 8));
    rte_mbuf* tail = test::mbuf_of(bytes(f.end() - 8, f.end()));
    ASSERT_NE(head, nullptr);
    ASSERT_NE(tail, nullptr);
    ASSERT_EQ(rte_pktmbuf_chain(head, tail), 0);
    ASSERT_EQ(rte_ring_enqueue(core.rx, head), 0);
    w->poll();
    const auto got = out(ce);
    ASSERT_EQ(got.size(), 1u) << drops();
    EXPECT_EQ(got[0], ok4);
}

// An End.DT46 of srv6d's own config ([sids]: FRR 8.4.4 cannot send DT46), named by its VRF.
TEST_F(worker_test, config_sid_end_dt46_decapsulates_into_its_vrf) {
    const auto line = vrf::parse_sid("fc00:0:1::d46 End.DT46 vrf red");
    ASSERT_TRUE(line) << line.error;
    r.add_config_route(vrf::to_route(*line.value));
    ASSERT_TRUE(c.compile(r, reg, src));
    for (const bool v4 : {true, false}) {
        SCOPED_TRACE(v4 ? "v4" : "v6");
        const test::layer inner = v4 ? inner4("10.9.0.1", "10.1.0.2") : inner6("fd09::1", "fd01::2");
        const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::d46", {inner});
        expect_one(core, in_frame(in, t_ipv6), ce, eth(mac_ce1, mac_ce_port, v4 ? t_ipv4 : t_ipv6, ttl_minus_one(inner.b)));
    }
}

TEST_F(worker_test, end_x_usd_sends_an_inner_ipv4_packet_to_its_ipv6_adjacency) {
    // RFC 8986 §4.16.3: the decapsulated packet goes to End.X's adjacency (fc00:12::2 on the
    // core port), as IPv4 in its frame. It was dropped as neigh_unresolved, with a resolution
    // request for 0.0.0.0, before End.X + USD stopped asking for an IPv4 adjacency it has none of.
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::18", {inner4("10.9.0.1", "10.1.0.2", 33)});
    rte_mbuf* ref = test::mbuf_of(in);
    sid_params sp;
    sp.behavior = rib::behavior::end_x;
    sp.flavors = rib::flavor::usd;
    ASSERT_EQ(process_endpoint(ref, sp).action, endpoint_action::send_v4);  // the packet's family
    const bytes l3 = test::bytes_of(ref);
    rte_pktmbuf_free(ref);
    ASSERT_EQ(l3[0] >> 4, 4);
    expect_one(core, in_frame(in, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv4, l3));
}

TEST_F(worker_test, end_dx4_and_end_x_send_to_their_adjacency) {
    {
        const test::layer inner = inner4("10.9.0.1", "10.77.0.9");
        const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::13", {inner});
        const bytes l3 = endpoint_l3(in, rib::behavior::end_dx4, endpoint_action::send_v4);
        expect_one(core, in_frame(in, t_ipv6), ce, eth(mac_ce1, mac_ce_port, t_ipv4, l3));
    }
    {
        const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::14",
                                    {srh(1, {"2001:db8:20::5", "fc00:0:1::14"}), inner4("10.9.0.1", "10.1.0.2")});
        expect_one(core, in_frame(in, t_ipv6), core, eth(mac_p, mac_core_port, t_ipv6, after_end_step(in, "2001:db8:20::5")));
    }
}

// An End.X SID's adjacency MAC is kept by the worker while the views last: a burst of its
// packets mixed with End.DX4 ones (the nexthop changing each time) leaves with the right MACs,
// and once the neighbor answers from a new MAC (a new adjacency view) the next burst has it.
TEST_F(worker_test, end_x_adjacency_mac_follows_the_adjacency_view) {
    const bytes x_in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::14",
                                  {srh(1, {"2001:db8:20::5", "fc00:0:1::14"}), inner4("10.9.0.1", "10.1.0.2")});
    const bytes x_out = after_end_step(x_in, "2001:db8:20::5");
    const bytes dx_in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::13", {inner4("10.9.0.1", "10.77.0.9")});
    const bytes dx_out = endpoint_l3(dx_in, rib::behavior::end_dx4, endpoint_action::send_v4);
    auto burst = [&](const mac_addr& mac_x) {
        for (int i = 0; i < 3; ++i) {
            send(core, in_frame(x_in, t_ipv6));
            send(core, in_frame(dx_in, t_ipv6));
        }
        w->poll();
        const auto on_core = out(core), on_ce = out(ce);
        ASSERT_EQ(on_core.size(), 3u) << drops();
        ASSERT_EQ(on_ce.size(), 3u) << drops();
        for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(test::hex(on_core[i]), test::hex(eth(mac_x, mac_core_port, t_ipv6, x_out))) << i;
            EXPECT_EQ(test::hex(on_ce[i]), test::hex(eth(mac_ce1, mac_ce_port, t_ipv4, dx_out))) << i;
        }
    };
    burst(mac_p);
    burst(mac_p);  // from the worker's memo
    const mac_addr mac_p_new{{0x02, 0, 0, 0, 0x0b, 0x42}};
    set_neighbor_mac("fc00:12::2", mac_p_new);
    burst(mac_p_new);
    EXPECT_EQ(drops(), "");
}

TEST_F(worker_test, ecmp_spreads_flows_and_keeps_each_on_one_path) {
    std::map<uint16_t, uint16_t> port_of_flow;
    std::set<uint16_t> used;
    for (int round = 0; round < 2; ++round) {
        for (uint16_t f = 0; f < 32; ++f) {
            bytes ip = ip4_packet("192.0.2.7", "10.30.0.1", 64);
            test::put16(ip, 20, static_cast<uint16_t>(1000 + f));  // source port
            send(core, in_frame(ip, t_ipv4));
            w->poll();
            uint16_t seen = 0xffff;
            for (ring_port* p : {&core, &ce2})
                if (!out(*p).empty())
                    seen = p->id;
            ASSERT_NE(seen, 0xffff) << drops();
            if (round == 0)
                port_of_flow[f] = seen;
            else
                EXPECT_EQ(port_of_flow[f], seen) << "flow " << f << " moved";
            used.insert(seen);
        }
    }
    EXPECT_EQ(used.size(), 2u) << "32 flows, 2 paths: both used";
}

// A remote PE reached over two uplinks (its locator ECMP over the core's gateway and ce2's): each
// flow leaves by the member the group's slots give for its inner flow hash (the hash its outer
// flow label comes from), written directly from the worker's memo of the group's exits; the
// flows spread over both, keep their uplink from burst to burst, move to the live one while a
// port is down (act()'s local repair: no direct exits then) and come back with it.
TEST_F(worker_test, h_encaps_over_an_ecmp_outer_route_takes_each_flows_member_by_its_inner_hash) {
    r.upsert_route(route("fc00:0:7::/48", {via("fc00:12::2", 12), via("fd13::2", 13)}));
    r.upsert_route(route("10.93.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:7::93"})}, 10));
    // The same uplinks weighted 3:7: 10 slots, more than the direct exits take, so act() picks
    // the member, by the same hash.
    rib::nexthop w3 = via("fc00:12::2", 12), w7 = via("fd13::2", 13);
    w3.weight = 3;
    w7.weight = 7;
    r.upsert_route(route("fc00:0:8::/48", {w3, w7}));
    r.upsert_route(route("10.94.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:8::94"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    publish_neighbor(ce2.id, "fd13::2", mac_ce2);
    const fib::dataplane_view* fv = c.cell().load();
    for (const auto& group : {std::pair{"fc00:0:7::93", "10.93.1.5"}, std::pair{"fc00:0:8::94", "10.94.1.5"}}) {
        const char* const sid = group.first;  // a plain variable: clang 14 cannot capture a structured binding
        const char* const dst = group.second;
        SCOPED_TRACE(sid);
        const fib::compiled_nh& g = fv->nexthop(fv->lookup6(vrf::default_vrf_id, a6(sid).bytes.data()));
        ASSERT_EQ(g.kind(), fib::nh_kind::ecmp);
        std::vector<bytes> ips;
        std::vector<bool> via_core;  // the member the group's slots give each flow
        for (uint16_t f = 0; f < 32; ++f) {
            bytes ip = ip4_packet("10.1.0.2", dst, 64);
            test::put16(ip, 20, static_cast<uint16_t>(1000 + f));  // source port
            const uint32_t hash = flow_hash_ip(ip.data(), static_cast<uint32_t>(ip.size()));
            via_core.push_back(fv->nexthop(g.pick(hash)).via().ifindex == 12);
            ips.push_back(ip);
        }
        ASSERT_NE(std::count(via_core.begin(), via_core.end(), true), 0) << "all flows on one member: the test shows nothing";
        ASSERT_NE(std::count(via_core.begin(), via_core.end(), false), 0) << "all flows on one member: the test shows nothing";
        // One burst of the 32 flows; `core_only`: every flow expected on the core (ce2 down).
        auto burst = [&](bool core_only) {
            for (const bytes& ip : ips)
                send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip));
            w->poll();
            const auto on_core = out(core), on_ce2 = out(ce2);
            std::vector<bytes> want_core, want_ce2;
            for (size_t f = 0; f < ips.size(); ++f) {
                const bytes inner = ttl_minus_one(ips[f]);
                const bytes o = outer("fc00:1::1", {sid}, true, 4, inner, label_of(inner), 0);
                if (via_core[f] || core_only)
                    want_core.push_back(eth(mac_p, mac_core_port, t_ipv6, o));
                else
                    want_ce2.push_back(eth(mac_ce2, mac_ce2_port, t_ipv6, o));
            }
            wtest::expect_frames(on_core, want_core, "core", drops());
            wtest::expect_frames(on_ce2, want_ce2, "ce2", drops());
        };
        burst(false);
        burst(false);  // the group's exits from the worker's memo
        set_port_up(ce2.id, false, 10);
        burst(true);
        set_port_up(ce2.id, true, 11);
        burst(false);
    }
    EXPECT_EQ(drops(), "");
}

// Local repair: with the core port down (as the control thread publishes it on a link change),
// the flows that hashed onto it move to the live member at once; flows already on the live
// member stay where they were; when the port comes back every flow returns to its old member.
TEST_F(worker_test, ecmp_member_over_a_down_port_is_skipped_until_it_comes_back) {
    auto run = [&](std::map<uint16_t, uint16_t>& port_of_flow) {
        for (uint16_t f = 0; f < 32; ++f) {
            bytes ip = ip4_packet("192.0.2.7", "10.30.0.1", 64);
            test::put16(ip, 20, static_cast<uint16_t>(1000 + f));
            send(ce2, eth(mac_ce2_port, mac_remote, t_ipv4, ip));  // to ce2's MAC: it is ce2's frame
            w->poll();
            uint16_t seen = 0xffff;
            for (ring_port* p : {&core, &ce2})
                if (!out(*p).empty())
                    seen = p->id;
            port_of_flow[f] = seen;
        }
    };
    std::map<uint16_t, uint16_t> before, down, back;
    run(before);
    set_port_up(core.id, false, 2);
    run(down);
    set_port_up(core.id, true, 3);
    run(back);
    unsigned moved = 0;
    for (uint16_t f = 0; f < 32; ++f) {
        ASSERT_NE(before[f], 0xffff) << drops();
        EXPECT_EQ(down[f], ce2.id) << "flow " << f << " still sent over the down port";
        if (before[f] == ce2.id) {
            EXPECT_EQ(down[f], before[f]) << "flow " << f << " on the live member moved";
        }
        moved += before[f] == core.id;
        EXPECT_EQ(back[f], before[f]) << "flow " << f << " did not return";
    }
    EXPECT_GT(moved, 0u) << "no flow used the port taken down: the test shows nothing";
    EXPECT_EQ(dropped(drop_reason::port_down), 0u) << drops();
}

// Each malformed packet is dropped with its own counter; the valid ones around them pass.
TEST_F(worker_test, malformed_packets_are_counted_and_the_rest_forwarded) {
    const bytes good = in_frame(ip4_packet("192.0.2.7", "10.20.1.1", 64), t_ipv4);
    struct bad {
        const char* what;
        bytes frame;
        drop_reason why;
    };
    std::vector<bad> cases;
    cases.push_back({"short ethernet", bytes(10, 0), drop_reason::eth_truncated});
    // (ARP goes to the host: host_path_* tests; TTL expiry is answered: worker_icmp_test)
    cases.push_back({"unknown ethertype", eth(mac_core_port, mac_remote, 0x88cc, bytes(46)), drop_reason::l3_unknown});
    {
        bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
        ip.resize(12);
        cases.push_back({"ipv4 header cut", in_frame(ip, t_ipv4), drop_reason::ip4_truncated});
    }
    {
        bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
        test::put16(ip, 2, 200);  // total length beyond the frame
        test::put16(ip, 10, 0);
        test::put16(ip, 10, test::ip4_checksum(ip.data(), 20));
        cases.push_back({"ipv4 total length lie", in_frame(ip, t_ipv4), drop_reason::ip4_truncated});
    }
    {
        bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
        ip[10] ^= 0x55;
        cases.push_back({"ipv4 bad checksum", in_frame(ip, t_ipv4), drop_reason::ip4_bad_checksum});
    }

    {
        bytes ip = ip6_packet(64, "fd00::7", "2001:db8:20::1", {}, 59);
        test::put16(ip, 4, 100);
        cases.push_back({"ipv6 payload length lie", in_frame(ip, t_ipv6), drop_reason::ip6_truncated});
    }
    {
        // Decapsulated inner packets are not the host's to answer: TTL 1 inside End.DT4 drops
        // (red has no address of ours here to send time exceeded from: worker_icmp_test).
        const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", "10.1.0.2", 1)});
        cases.push_back({"inner ttl 1 after End.DT4", in_frame(in, t_ipv6), drop_reason::ttl_expired});
    }
    cases.push_back({"no route", in_frame(ip4_packet("192.0.2.7", "198.51.100.1", 64), t_ipv4), drop_reason::no_route});
    {
        bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1", {srh(1, {"fc00:0:2::d6", "fc00:0:1::1"})});
        in[40 + 1] = 2;  // hdr ext len claims 1 segment, last entry says 2
        cases.push_back({"srh length lie", in_frame(in, t_ipv6), drop_reason::srh_bad_len});
    }
    {
        bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1", {srh(1, {"fc00:0:2::d6", "fc00:0:1::1"})});
        in[40 + 3] = 5;  // segments left past the list
        cases.push_back({"segments left past the list", in_frame(in, t_ipv6), drop_reason::srh_segments_left});
    }
    {
        std::vector<test::layer> chain;
        for (int i = 0; i < 10; ++i)
            chain.push_back(test::opts(60));
        cases.push_back({"extension header chain", in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1", chain), t_ipv6),
                         drop_reason::ext_hdr_chain});
    }
    cases.push_back({"sid to an unbound vrf",
                     in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::99", {inner4("10.9.0.1", "10.1.0.2")}), t_ipv6),
                     drop_reason::sid_refused});
    for (const auto& b : cases) {
        send(core, good);
        send(core, b.frame);
    }
    send(core, good);
    w->poll();
    EXPECT_EQ(out(ce2).size(), cases.size() + 1) << drops();
    std::map<drop_reason, uint64_t> want;
    for (const auto& b : cases)
        ++want[b.why];
    // The SRH error is answered (parameter problem from the SID), which has no route back here.
    EXPECT_EQ(counters->icmp.sent[static_cast<size_t>(icmp_kind::ip6_param_problem)].get(), 1u);
    ++want[drop_reason::no_route];
    for (const auto& [why, n] : want)
        EXPECT_EQ(dropped(why), n) << name(why) << "; all: " << drops();
    uint64_t total = 0;
    for (size_t i = 0; i < drop_reason_count; ++i)
        total += counters->drops[i].get();
    EXPECT_EQ(total, cases.size() + 1) << drops();
}

// (TTL expiry is answered by the worker itself, from the VRF's address: worker_icmp_test.)
TEST_F(worker_test, host_path_unresolved_neighbor_and_foreign_port_go_to_the_host) {
    r.upsert_route(route("10.40.0.0/16", {via("10.13.0.99", 13)}));  // no neighbor entry
    r.upsert_route(route("10.41.0.0/16", {via("10.13.0.2", 77)}));   // not one of our ports
    ASSERT_TRUE(c.compile(r, reg, src));
    const std::vector<bytes> frames = {
        in_frame(ip4_packet("192.0.2.7", "10.40.0.1", 64), t_ipv4),
        in_frame(ip4_packet("192.0.2.7", "10.41.0.1", 64), t_ipv4),
        eth(mac_core_port, mac_remote, 0x0806, bytes(28)),                              // ARP
        // IS-IS hello to AllL2ISs: 802.3 length, LLC fe fe 03, the PDU (isisd is behind the TAP)
        eth(mac_addr{{0x09, 0x00, 0x2b, 0x00, 0x00, 0x15}}, mac_remote, 0x0017,
            test::from_hex("fefe03" "831b0100110100000000000200010000001e05d7")),
        eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(255, "fe80::2", "ff02::1:ff00:1", {})),  // ND
        in_frame(ip4_packet("192.0.2.7", "10.12.0.1", 64), t_ipv4),                     // us, no route
    };
    for (const auto& f : frames)
        send(core, f);
    w->poll();
    const auto got = out(tap);
    ASSERT_EQ(got.size(), frames.size()) << drops();
    // Punted as received; the order is the worker's (ARP/ND/IS-IS at parsing, the rest after lookup).
    std::multiset<std::string> want_set, got_set;
    for (size_t i = 0; i < frames.size(); ++i) {
        want_set.insert(test::hex(frames[i]));
        got_set.insert(test::hex(got[i]));
    }
    EXPECT_EQ(got_set, want_set);
    EXPECT_EQ(counters->ports[core.id].punted.get(), frames.size());
    EXPECT_EQ(drops(), "");
}

// "port af address" of every neighbor resolution request the worker queued.
std::vector<std::string> requests(rte_ring* r) {
    std::vector<std::string> v;
    resolve_request q[16];
    for (unsigned n; (n = resolve_ring_take(r, q, 16)) != 0;)
        for (unsigned i = 0; i < n; ++i) {
            rib::ip_addr a;
            a.af = q[i].af == 4 ? rib::family::ipv4 : rib::family::ipv6;
            std::memcpy(a.bytes.data(), q[i].addr, q[i].af == 4 ? size_t{4} : size_t{16});
            v.push_back(std::to_string(q[i].port_id) + " " + std::to_string(q[i].af) + " " + rib::to_string(a));
        }
    return v;
}

// A packet srv6d rewrote cannot go to the host as received: it is held (worker_hold.hh), and
// the worker asks the control thread to have the neighbor resolved (once per neighbor for a run
// of misses).
// One as received is still punted, and asks nothing (the kernel resolves it for that packet).
TEST_F(worker_test, host_path_unresolved_neighbor_of_a_rewritten_packet_is_requested) {
    r.upsert_route(route("10.40.0.0/16", {via("10.13.0.99", 13)}));    // no neighbor entry
    r.upsert_route(route("fc00:0:5::/48", {via("fc00:12::5", 12)}));   // no neighbor entry
    r.upsert_route(route("10.95.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:5::1"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    const bytes dt4 = in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", "10.1.0.9")}), t_ipv6);
    send(core, dt4);
    send(core, dt4);  // the same neighbor again: no second request
    send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::11", {inner6("fd09::1", "fd01::9")}), t_ipv6));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.95.1.5", 64)));  // H.Encaps.Red
    const bytes as_received = in_frame(ip4_packet("192.0.2.7", "10.40.0.1", 64), t_ipv4);
    send(core, as_received);
    w->poll();
    EXPECT_EQ(counters->held.get(), 4u) << drops();
    EXPECT_EQ(w->held(), 4u);
    const auto punted = out(tap);
    ASSERT_EQ(punted.size(), 1u);
    EXPECT_EQ(test::hex(punted[0]), test::hex(as_received));
    const std::vector<std::string> want = {std::to_string(ce.id) + " 4 10.1.0.9", std::to_string(ce.id) + " 6 fd01::9",
                                           std::to_string(core.id) + " 6 fc00:12::5"};
    auto got = requests(resolve);
    std::sort(got.begin(), got.end());
    auto sorted = want;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(got, sorted);
    EXPECT_EQ(counters->resolve_queued.get(), 3u);
    EXPECT_EQ(counters->resolve_lost.get(), 0u);
}

// Distinct neighbors beyond the queue's room: the rest are counted as lost, never waited for;
// forwarding goes on, and the next miss asks again once the control thread drained the queue.
TEST_F(worker_test, host_path_full_resolution_queue_counts_what_it_refuses) {
    for (int i = 0; i < 10; ++i) {
        const std::string dst = "10.1.0." + std::to_string(10 + i);
        send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", dst.c_str())}), t_ipv6));
    }
    send(core, in_frame(ip4_packet("192.0.2.7", "10.20.1.1", 64), t_ipv4));  // forwarded meanwhile
    w->poll();
    EXPECT_EQ(out(ce2).size(), 1u);
    EXPECT_EQ(counters->held.get(), 10u);
    EXPECT_EQ(counters->resolve_queued.get(), 7u);  // the ring holds 7
    EXPECT_EQ(counters->resolve_lost.get(), 3u);
    EXPECT_EQ(requests(resolve).size(), 7u);
    send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", "10.1.0.19")}), t_ipv6));
    w->poll();
    EXPECT_EQ(requests(resolve), std::vector<std::string>{std::to_string(ce.id) + " 4 10.1.0.19"});
}

// Neighbor miss for a rewritten packet: held, not lost. Three decapsulated packets towards an
// unresolved CE wait; once a snapshot with the neighbor is published they leave first, in order,
// byte for byte, before what arrives with them.
TEST_F(worker_test, neighbor_miss_holds_packets_until_the_neighbor_is_published) {
    std::vector<bytes> inner;
    for (uint8_t i = 0; i < 3; ++i)
        inner.push_back(ip4_packet("10.9.0.1", "10.1.0.9", 64, static_cast<uint16_t>(20 + i)));
    for (const bytes& ip : inner)
        send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {test::layer{4, ip}}), t_ipv6));
    w->poll();
    EXPECT_TRUE(out(ce).empty());
    EXPECT_EQ(counters->held.get(), 3u) << drops();
    EXPECT_EQ(w->held(), 3u);
    EXPECT_EQ(dropped(drop_reason::neigh_unresolved), 0u);
    EXPECT_EQ(requests(resolve).size(), 1u);
    w->poll();  // the same snapshot: nothing changes
    EXPECT_TRUE(out(ce).empty());

    // The control thread learns the neighbor and publishes; one more packet arrives meanwhile.
    const mac_addr mac_ce9{{0x02, 0, 0, 0, 0xce, 0x09}};
    publish_neighbor(ce.id, "10.1.0.9", mac_ce9);
    const bytes later = ip4_packet("10.9.0.1", "10.1.0.9", 64, 40);
    send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {test::layer{4, later}}), t_ipv6));
    w->poll();
    inner.push_back(later);
    const auto got = out(ce);
    ASSERT_EQ(got.size(), 4u) << drops();
    for (size_t i = 0; i < 4; ++i)
        EXPECT_EQ(test::hex(got[i]), test::hex(eth(mac_ce9, mac_ce_port, t_ipv4, ttl_minus_one(inner[i])))) << i;
    EXPECT_EQ(counters->released.get(), 3u);
    EXPECT_EQ(w->held(), 0u);
    EXPECT_EQ(drops(), "");
}

// Bounded: 3 per neighbor (the oldest makes room), then nothing is held past the hold time.
TEST_F(worker_test, neighbor_miss_hold_overflow_and_timeout_are_counted) {
    std::vector<bytes> inner;
    for (uint8_t i = 0; i < 5; ++i)
        inner.push_back(ip4_packet("10.9.0.1", "10.1.0.9", 64, static_cast<uint16_t>(20 + i)));
    for (const bytes& ip : inner)
        send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {test::layer{4, ip}}), t_ipv6));
    w->poll();
    EXPECT_EQ(counters->held.get(), 5u);
    EXPECT_EQ(dropped(drop_reason::neigh_hold_full), 2u) << drops();
    EXPECT_EQ(w->held(), 3u);
    w->expire_held(rte_rdtsc());  // not yet
    EXPECT_EQ(w->held(), 3u);
    w->expire_held(rte_rdtsc() + 2 * rte_get_tsc_hz());
    EXPECT_EQ(w->held(), 0u);
    EXPECT_EQ(dropped(drop_reason::neigh_hold_timeout), 3u) << drops();
    publish_neighbor(ce.id, "10.1.0.9", mac_ce1);
    w->poll();
    EXPECT_TRUE(out(ce).empty());
    EXPECT_EQ(counters->released.get(), 0u);

    // The table itself is bounded: one neighbor past 64 is dropped, never held.
    for (int i = 0; i < 65; ++i) {
        const std::string dst = "10.1.0." + std::to_string(100 + i);
        send(core, in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", dst.c_str())}), t_ipv6));
    }
    for (int i = 0; i < 3; ++i)  // a poll takes a burst (32) per queue
        w->poll();
    EXPECT_EQ(w->held(), 64u);
    EXPECT_EQ(dropped(drop_reason::neigh_hold_full), 3u) << drops();
}

TEST_F(worker_test, host_path_what_the_host_sends_leaves_the_port_unchanged) {
    const bytes arp_reply = eth(mac_remote, mac_core_port, 0x0806, bytes(28, 0x5a));
    expect_one(tap, arp_reply, core, arp_reply);
    EXPECT_EQ(counters->ports[core.id].injected.get(), 1u);
}

TEST_F(worker_test, host_path_own_address_on_a_connected_route_is_punted) {
    // fc00:12::/64 is connected on core; fc00:12::1 is ours, fc00:12::2 the neighbor.
    const bytes to_us = in_frame(ip6_packet(64, "fc00:12::2", "fc00:12::1", {test::layer{17, bytes(8)}}), t_ipv6);
    expect_one(core, to_us, tap, to_us);
}

// A neighbor entry for one of our own addresses (static, or stale from before the address was
// ours) does not make it a neighbor: the worker asks for own addresses among the neighbors
// only when the view has such an entry (adj_view::own_among_neighbors), and then it does.
TEST_F(worker_test, host_path_own_address_listed_as_a_neighbor_is_still_punted) {
    const bytes to_us = in_frame(ip6_packet(64, "fc00:12::2", "fc00:12::1", {test::layer{17, bytes(8)}}), t_ipv6);
    EXPECT_FALSE(adj.load()->own_among_neighbors());
    publish_neighbor(core.id, "fc00:12::1", mac_remote);
    EXPECT_TRUE(adj.load()->own_among_neighbors());
    expect_one(core, to_us, tap, to_us);
    // A neighbor on the same subnet is forwarded to, as before.
    const bytes to_p = in_frame(ip6_packet(64, "fc00:12::9", "fc00:12::2", {test::layer{17, bytes(8)}}), t_ipv6);
    expect_one(core, to_p, core, eth(mac_p, mac_core_port, t_ipv6, ttl_minus_one(ip6_packet(64, "fc00:12::9", "fc00:12::2", {test::layer{17, bytes(8)}}))));
}

// A flood of punt-bound packets: the policer passes its burst and drops the rest, counted;
// the forwarded packets among them all get through.
TEST_F(worker_test, host_path_punt_flood_is_policed_and_forwarding_unaffected) {
    const bytes arp = eth(mac_core_port, mac_remote, 0x0806, bytes(28));
    const bytes good = in_frame(ip4_packet("192.0.2.7", "10.20.1.1", 64), t_ipv4);
    size_t punted = 0, forwarded = 0;
    for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < 31; ++i)
            send(core, arp);
        send(core, good);
        w->poll();
        punted += out(tap).size();
        forwarded += out(ce2).size();
    }
    EXPECT_EQ(forwarded, 20u) << drops();
    // 64 tokens at start plus 1000/s for the few milliseconds of the test: well below 620.
    EXPECT_GE(punted, 64u);
    EXPECT_LT(punted, 200u);
    EXPECT_EQ(dropped(drop_reason::punt_policed), 620u - punted);
    EXPECT_EQ(counters->ports[core.id].punted.get(), punted);
}

TEST_F(worker_test, host_path_port_without_tap_counts_what_it_cannot_punt) {
    send(ce2, eth(mac_ce2_port, mac_remote, 0x0806, bytes(28)));
    w->poll();
    EXPECT_EQ(dropped(drop_reason::punt_no_host), 1u);
}

// (With an address of ours in the VRF the sender also gets fragmentation needed: worker_icmp_test.)
TEST_F(worker_test, mtu_of_the_egress_port_is_enforced_after_encap) {
    // ce2 has MTU 1500; a 1480-byte IPv4 packet fits, the same encapsulated (+40) to core (1600) too.
    const bytes big = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1452);
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, big));
    w->poll();
    EXPECT_EQ(out(core).size(), 1u) << drops();
    const bytes bigger = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1572);  // 1600 + 40 > 1600
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, bigger));
    w->poll();
    EXPECT_TRUE(out(core).empty());
    EXPECT_EQ(dropped(drop_reason::encap_mtu), 1u);
}

// The headend writes the outer Ethernet header itself only when the outer route's gateway is
// resolved (worker_headend.hh); towards an unresolved one the encapsulated packets are held like
// any routed packet, and leave byte for byte as the direct path sends the next one.
TEST_F(worker_test, h_encaps_towards_an_unresolved_gateway_is_held_then_sent) {
    r.upsert_route(route("fc00:0:5::/48", {via("fc00:12::5", 12)}));
    r.upsert_route(route("10.95.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:5::d4"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    std::vector<bytes> ips;
    for (uint8_t i = 0; i < 3; ++i)
        ips.push_back(ip4_packet("10.1.0.2", "10.95.1.5", 64, static_cast<uint16_t>(12 + i)));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ips[0]));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ips[1]));
    w->poll();
    EXPECT_TRUE(out(core).empty());
    EXPECT_EQ(counters->held.get(), 2u) << drops();
    EXPECT_EQ(requests(resolve), std::vector<std::string>{std::to_string(core.id) + " 6 fc00:12::5"});
    const mac_addr mac_p5{{0x02, 0, 0, 0, 0x12, 0x05}};
    publish_neighbor(core.id, "fc00:12::5", mac_p5);
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ips[2]));
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 3u) << drops();
    for (size_t i = 0; i < 3; ++i) {
        const bytes inner = ttl_minus_one(ips[i]);
        const bytes o = outer("fc00:1::1", {"fc00:0:5::d4"}, true, 4, inner, label_of(inner), 0);
        EXPECT_EQ(test::hex(got[i]), test::hex(eth(mac_p5, mac_core_port, t_ipv6, o))) << i;
    }
    EXPECT_EQ(counters->released.get(), 2u);
    EXPECT_EQ(headend(rib::encap_mode::encap_red), 3u);
    EXPECT_EQ(drops(), "");
}

// An encapsulated packet whose outer route leaves by a port that is down is dropped as
// port_down, never sent there (the headend's direct exit checks the port once per burst), and
// leaves again once the port is back.
TEST_F(worker_test, h_encaps_over_a_down_core_port_is_dropped_until_it_comes_back) {
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 64, 12, 0xb8);
    set_port_up(core.id, false, 2);
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip));
    w->poll();
    EXPECT_TRUE(out(core).empty());
    EXPECT_EQ(dropped(drop_reason::port_down), 1u) << drops();
    set_port_up(core.id, true, 3);
    const bytes inner = ttl_minus_one(ip);
    const bytes o = outer("fc00:1::1", {"fc00:0:2::d4"}, true, 4, inner, label_of(inner), 0xb8);
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip), core, eth(mac_p, mac_core_port, t_ipv6, o));
}

// An L2 frame whose encapsulation exceeds the core's MTU is not the headend's to answer: it
// leaves through the routed path, which drops it, counted, as it would any packet too big.
TEST_F(worker_test, h_encaps_l2_too_big_for_the_core_is_dropped) {
    const bytes ip = ip4_packet("10.1.0.2", "10.98.3.3", 64, 1500);  // 1520 + 14 + 40 + 24 > 1600
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip));
    w->poll();
    EXPECT_TRUE(out(core).empty());
    EXPECT_EQ(dropped(drop_reason::mtu_exceeded), 1u) << drops();
    const bytes fits = ip4_packet("10.1.0.2", "10.98.3.3", 64, 1400);
    const bytes frame = eth(mac_ce_port, mac_ce1, t_ipv4, fits);
    const bytes o = outer("fc00:1::1", {"fc00:0:2::d2"}, false, 143, frame, label_of(fits), 0);
    expect_one(ce, frame, core, eth(mac_p, mac_core_port, t_ipv6, o));
}

TEST_F(worker_test, no_tables_yet_drops_everything_counted) {
    fib::qsbr_domain d{1};
    fib::compiler empty{d};
    worker_counters wc;
    worker w2({{core.id, 0}}, 0, published{&empty.cell(), &adj}, hdr, wc);
    send(core, in_frame(ip4_packet("192.0.2.7", "10.20.1.1", 64), t_ipv4));
    w2.poll();
    EXPECT_EQ(wc.drops[static_cast<size_t>(drop_reason::tables_not_ready)].get(), 1u);
    EXPECT_TRUE(out(ce2).empty());
}

}  // namespace
}  // namespace fwd

namespace fwd {
namespace SRV6D_UNITY_ID {

void no_free(void*, void*) {}

// Random corruption of every kind of frame the cases above use, through the whole worker. Each
// frame sits in an external buffer of exactly headroom + its size, so under ASan a read past the
// frame is reported; in every build every packet must be accounted for exactly once: sent
// (forwarded, encapsulated, decapsulated or punted to the TAP) or dropped with a reason.
TEST_F(worker_test, fuzz_corrupted_frames_stay_in_bounds_and_are_accounted_for) {
    const std::vector<bytes> seeds = {
        in_frame(ip4_packet("192.0.2.7", "10.20.1.1", 64), t_ipv4),
        in_frame(ip6_packet(64, "fd00::7", "2001:db8:20::1", {test::layer{17, bytes(16, 0x33)}}), t_ipv6),
        eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64)),
        eth(mac_ce_port, mac_ce1, t_ipv6, ip6_packet(64, "fd01::2", "fd99:1::5", {test::layer{17, bytes(24)}})),
        eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.98.3.3", 64)),
        in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1", {srh(1, {"fc00:0:2::d6", "fc00:0:1::1"}), inner4("10.9.0.1", "10.1.0.2")}), t_ipv6),
        in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::12", {inner6("fd09::1", "fd01::2")}), t_ipv6),
        in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", "10.1.0.2")}), t_ipv6),
        in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:100:200::", {inner6("fd09::1", "fd01::2")}), t_ipv6),
        in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::17", {srh(1, {"fc00:0:2::d6", "fc00:0:1::17"}), inner4("10.9.0.1", "10.1.0.2")}), t_ipv6),
        in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::13", {inner4("10.9.0.1", "10.77.0.9")}), t_ipv6),
    };
    std::mt19937 rng(4242);
    const ring_port* ins[] = {&ce, &core, &ce2};
    uint64_t sent = 0;
    for (int round = 0; round < 3000; ++round) {
        struct ext {
            std::unique_ptr<uint8_t[]> buf;
            rte_mbuf_ext_shared_info shinfo{};
        };
        std::vector<std::unique_ptr<ext>> bufs;
        for (int i = 0; i < 32; ++i) {
            bytes f = seeds[rng() % seeds.size()];
            switch (rng() % 4) {
            case 0: f.resize(rng() % (f.size() + 1)); break;                  // truncated anywhere
            case 1: f.resize(f.size() + rng() % 64, static_cast<uint8_t>(rng())); break;  // trailing junk
            default: break;
            }
            for (auto k = rng() % 6; k-- > 0 && !f.empty();)  // a few corrupted bytes
                f[rng() % std::min<size_t>(f.size(), 120)] = static_cast<uint8_t>(rng());
            auto e = std::make_unique<ext>();
            e->buf.reset(new uint8_t[RTE_PKTMBUF_HEADROOM + f.size() + 1]);
            e->shinfo.free_cb = no_free;
            rte_mbuf_ext_refcnt_set(&e->shinfo, 1);
            rte_mbuf* m = rte_pktmbuf_alloc(test::pool());
            ASSERT_NE(m, nullptr);
            rte_pktmbuf_attach_extbuf(m, e->buf.get(), 0, static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + f.size()),
                                      &e->shinfo);
            rte_pktmbuf_reset_headroom(m);
            if (!f.empty())
                std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(f.size())), f.data(), f.size());
            ASSERT_EQ(rte_ring_enqueue(ins[rng() % 3]->rx, m), 0);
            bufs.push_back(std::move(e));
            ++sent;
        }
        w->poll();
        for (ring_port* p : {&ce, &core, &ce2, &tap})
            (void)out(*p);  // frees them before their buffers go
        w->expire_held(UINT64_MAX);  // and the held ones (as timed out), which point into them too
    }
    uint64_t rx = 0, tx = 0, dropped_total = 0;
    for (const ring_port* p : {&ce, &core, &ce2, &tap}) {
        rx += counters->ports[p->id].rx_packets.get();
        tx += counters->ports[p->id].tx_packets.get();
    }
    for (size_t i = 0; i < drop_reason_count; ++i)
        dropped_total += counters->drops[i].get();
    // An ICMP error replaces its cause, which is still counted as dropped: each one sent is one
    // more packet to account for (sent out, or dropped on its way back).
    uint64_t icmp = 0;
    for (const auto& k : counters->icmp.sent)
        icmp += k.get();
    EXPECT_EQ(rx, sent);
    // Rewritten packets held for unresolved neighbors were expired each round (dropped).
    EXPECT_EQ(w->held(), 0u);
    EXPECT_EQ(tx + dropped_total, sent + icmp) << drops();
    EXPECT_GT(tx, sent / 10) << "some of them are still valid and forwarded";
}

// --- trace and capture (worker_trace.hh): what the control thread's trace_hub does, by hand.
class worker_trace_test : public worker_test {
protected:
    void arm(trace_mode m, uint16_t port, uint16_t budget) {
        trace->arm.store(trace_arm{++gen, m, port, budget}.pack());
    }
    std::vector<trace_record> records() {
        std::vector<trace_record> v;
        const uint32_t head = trace->head.load();
        for (uint32_t t = trace->tail.load(); t != head; ++t)
            v.push_back(trace->ring[t % trace_ring_size]);
        trace->tail.store(head);
        return v;
    }
    static bytes rx_of(const trace_record& r) { return bytes(r.rx, r.rx + std::min<uint32_t>(r.rx_len, trace_snap)); }
    static bytes out_of(const trace_record& r) { return bytes(r.out, r.out + std::min<uint32_t>(r.out_len, trace_snap)); }
    static bytes key_of(const trace_step& s) { return bytes(s.key, s.key + (s.af == 4 ? 4 : 16)); }
    static bytes addr(const char* a) {
        const auto x = *rib::parse_addr(a);
        return x.is_v4() ? bytes(x.bytes.begin(), x.bytes.begin() + 4) : bytes(x.bytes.begin(), x.bytes.end());
    }
    uint16_t gen = 0;
};

TEST_F(worker_trace_test, off_makes_no_record) {
    const bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
    expect_one(core, in_frame(ip, t_ipv4), ce2, eth(mac_ce2, mac_ce2_port, t_ipv4, ttl_minus_one(ip)));
    send(core, in_frame(ip4_packet("192.0.2.7", "10.55.0.1", 64), t_ipv4));  // a drop
    w->poll();
    EXPECT_EQ(trace->head.load(), 0u);
    EXPECT_EQ(trace->lost.get(), 0u);
    // Armed, then disarmed: nothing after.
    arm(trace_mode::trace, trace_any_port, 10);
    trace->arm.store(0);
    expect_one(core, in_frame(ip, t_ipv4), ce2, eth(mac_ce2, mac_ce2_port, t_ipv4, ttl_minus_one(ip)));
    EXPECT_EQ(trace->head.load(), 0u);
}

// Packets of known fate, one per poll: each record names its port, VRF, lookups and fate.
TEST_F(worker_trace_test, trace_records_lookups_and_fate_of_each_packet) {
    arm(trace_mode::trace, trace_any_port, 10);
    // H.Encaps.Red in VRF red towards a remote SID.
    const bytes v4 = ip4_packet("10.1.0.2", "10.99.1.5", 64, 12, 0xb8);
    const bytes inner = ttl_minus_one(v4);
    const bytes encapped =
        eth(mac_p, mac_core_port, t_ipv6, outer("fc00:1::1", {"fc00:0:2::d4"}, true, 4, inner, label_of(inner), 0xb8));
    const bytes f_encap = eth(mac_ce_port, mac_ce1, t_ipv4, v4);
    expect_one(ce, f_encap, core, encapped);
    // End.DT4 decapsulating into red.
    const test::layer in4 = inner4("10.9.0.1", "10.1.0.2");
    const bytes f_dt4 = in_frame(ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {in4}), t_ipv6);
    const bytes decapped = eth(mac_ce1, mac_ce_port, t_ipv4, ttl_minus_one(in4.b));
    expect_one(core, f_dt4, ce, decapped);
    // No route.
    const bytes f_miss = in_frame(ip4_packet("192.0.2.7", "10.55.0.1", 64), t_ipv4);
    send(core, f_miss);
    w->poll();
    // Hop limit 1: answered with time exceeded, which goes back out of core.
    const bytes f_ttl = in_frame(ip6_packet(1, "fc00:12::2", "2001:db8:20::1", {test::layer{17, bytes(8)}}), t_ipv6);
    send(core, f_ttl);
    w->poll();
    ASSERT_EQ(out(core).size(), 1u) << drops();
    // ARP: to the host.
    const bytes f_arp = eth(mac_core_port, mac_remote, 0x0806, bytes(28, 0x5a));
    send(core, f_arp);
    w->poll();
    ASSERT_EQ(out(tap).size(), 1u);

    const auto rs = records();
    ASSERT_EQ(rs.size(), 5u);
    EXPECT_EQ(trace->lost.get(), 0u);

    const trace_record& e = rs[0];
    EXPECT_EQ(e.in_port, ce.id);
    EXPECT_EQ(e.vrf, red);
    EXPECT_EQ(e.af, 4);
    EXPECT_EQ(test::hex(rx_of(e)), test::hex(f_encap));
    ASSERT_GE(e.n_steps, 1);
    EXPECT_EQ(e.steps[0].vrf, red);
    EXPECT_EQ(test::hex(key_of(e.steps[0])), test::hex(addr("10.99.1.5")));
    EXPECT_EQ(e.steps[0].kind, static_cast<uint8_t>(fib::nh_kind::headend));
    EXPECT_EQ(e.steps[0].nh, c.cell().load()->lookup4(red, 0x0a630105u)) << "the route of 10.99.1.5";
    EXPECT_EQ(e.fate, trace_fate::tx);
    EXPECT_EQ(e.out_port, core.id);
    EXPECT_EQ(e.out_len, encapped.size());
    EXPECT_EQ(test::hex(out_of(e)), test::hex(encapped));
    EXPECT_EQ(e.has_reason, 0);

    const trace_record& d = rs[1];
    EXPECT_EQ(d.in_port, core.id);
    EXPECT_EQ(d.vrf, vrf::default_vrf_id);
    ASSERT_EQ(d.n_steps, 2);
    EXPECT_EQ(d.steps[0].kind, static_cast<uint8_t>(fib::nh_kind::local_sid));
    EXPECT_EQ(d.steps[0].action, static_cast<uint32_t>(rib::behavior::end_dt4));
    EXPECT_EQ(test::hex(key_of(d.steps[0])), test::hex(addr("fc00:0:1::10")));
    EXPECT_EQ(d.steps[1].vrf, red);
    EXPECT_EQ(d.steps[1].af, 4);
    EXPECT_EQ(test::hex(key_of(d.steps[1])), test::hex(addr("10.1.0.2")));
    EXPECT_EQ(d.steps[1].kind, static_cast<uint8_t>(fib::nh_kind::forward));
    EXPECT_EQ(d.fate, trace_fate::tx);
    EXPECT_EQ(d.out_port, ce.id);
    EXPECT_EQ(test::hex(out_of(d)), test::hex(decapped));

    const trace_record& m = rs[2];
    ASSERT_EQ(m.n_steps, 1);
    EXPECT_EQ(m.steps[0].kind, static_cast<uint8_t>(fib::nh_kind::miss));
    EXPECT_EQ(m.fate, trace_fate::drop);
    ASSERT_EQ(m.has_reason, 1);
    EXPECT_EQ(m.reason, drop_reason::no_route);
    EXPECT_EQ(m.out_len, 0u);

    const trace_record& t = rs[3];
    EXPECT_EQ(t.af, 6);
    ASSERT_EQ(t.has_reason, 1);
    EXPECT_EQ(t.reason, drop_reason::ttl_expired);
    EXPECT_EQ(t.icmp, 1);
    EXPECT_EQ(t.fate, trace_fate::tx);  // the time exceeded message
    EXPECT_EQ(t.out_port, core.id);
    ASSERT_GE(t.out_len, 14u + 40 + 8);
    EXPECT_EQ(t.out[14 + 6], 58) << "ICMPv6";
    EXPECT_EQ(t.out[14 + 40], 3) << "time exceeded";

    const trace_record& p = rs[4];
    EXPECT_EQ(p.af, 0);
    EXPECT_EQ(p.n_steps, 0);
    EXPECT_EQ(p.fate, trace_fate::punt);
    EXPECT_EQ(p.out_port, tap.id);
    EXPECT_EQ(test::hex(rx_of(p)), test::hex(f_arp));
}

// The port filter and the budget: only packets received on the port, at most `budget`.
TEST_F(worker_trace_test, trace_keeps_to_its_port_and_count) {
    arm(trace_mode::trace, ce2.id, 2);
    const bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
    for (int i = 0; i < 3; ++i) {
        send(core, in_frame(ip, t_ipv4));
        send(ce2, eth(mac_ce2_port, mac_remote, t_ipv4, ip4_packet("192.0.2.7", "10.55.0.1", 64)));
    }
    w->poll();
    const auto rs = records();
    ASSERT_EQ(rs.size(), 2u);
    for (const auto& x : rs) {
        EXPECT_EQ(x.in_port, ce2.id);
        EXPECT_EQ(x.reason, drop_reason::no_route);
    }
}

// Captures: the copies are the bytes received, sent, or received and dropped (with the reason).
TEST_F(worker_trace_test, capture_rx_tx_drop_copy_the_packets) {
    const bytes v4 = ip4_packet("10.1.0.2", "10.99.1.5", 64, 12, 0xb8);
    const bytes inner = ttl_minus_one(v4);
    const bytes encapped =
        eth(mac_p, mac_core_port, t_ipv6, outer("fc00:1::1", {"fc00:0:2::d4"}, true, 4, inner, label_of(inner), 0xb8));
    const bytes f = eth(mac_ce_port, mac_ce1, t_ipv4, v4);
    const bytes f_miss = eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.66.0.1", 64));

    arm(trace_mode::capture_rx, ce.id, 5);
    expect_one(ce, f, core, encapped);
    auto rs = records();
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].fate, trace_fate::rx);
    EXPECT_EQ(rs[0].in_port, ce.id);
    EXPECT_EQ(test::hex(rx_of(rs[0])), test::hex(f));

    arm(trace_mode::capture_tx, core.id, 5);
    expect_one(ce, f, core, encapped);
    expect_one(core, in_frame(ip4_packet("192.0.2.7", "10.20.1.1", 64), t_ipv4), ce2,
               eth(mac_ce2, mac_ce2_port, t_ipv4, ttl_minus_one(ip4_packet("192.0.2.7", "10.20.1.1", 64))));
    rs = records();
    ASSERT_EQ(rs.size(), 1u) << "only what core sent";
    EXPECT_EQ(rs[0].fate, trace_fate::tx);
    EXPECT_EQ(rs[0].out_port, core.id);
    EXPECT_EQ(test::hex(out_of(rs[0])), test::hex(encapped));

    arm(trace_mode::capture_drop, ce.id, 5);
    send(ce, f);
    send(ce, f_miss);
    w->poll();
    EXPECT_EQ(out(core).size(), 1u);
    rs = records();
    ASSERT_EQ(rs.size(), 1u) << "only the drop";
    EXPECT_EQ(rs[0].fate, trace_fate::drop);
    EXPECT_EQ(rs[0].reason, drop_reason::no_route);
    EXPECT_EQ(test::hex(rx_of(rs[0])), test::hex(f_miss));
}

// A full ring loses records, counted; never packets.
TEST_F(worker_trace_test, full_ring_loses_records_not_packets) {
    arm(trace_mode::capture_rx, trace_any_port, 1000);
    const bytes ip = ip4_packet("192.0.2.7", "10.20.1.1", 64);
    for (uint32_t i = 0; i < trace_ring_size + 10; ++i)
        send(core, in_frame(ip, t_ipv4));
    w->poll();
    w->poll();
    w->poll();
    EXPECT_EQ(out(ce2).size(), trace_ring_size + 10);
    EXPECT_EQ(records().size(), trace_ring_size);
    EXPECT_EQ(trace->lost.get(), 10u);
}

}  // namespace
}  // namespace fwd
