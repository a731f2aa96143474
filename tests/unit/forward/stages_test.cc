// The worker's stages one at a time, without a worker (docs/dataplane.md "The worker's
// stages"): classify on a burst of real mbufs into its edges, lookup against tables compiled by
// the real compiler, rewrite from an exit, the tx buffers. Each gets its inputs as the worker
// would give them and is judged by its outputs alone.
#include <gtest/gtest.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "endpoint_pkt.hh"
#include "fib/control/compiler.hh"
#include "forward/datapath/worker_classify.hh"
#include "forward/datapath/worker_l2.hh"
#include "forward/datapath/worker_lookup.hh"
#include "rib/rib.hh"
#include "worker_env.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using test::a6;
using test::bytes;
using test::ip4_packet;
using test::ip6_packet;

constexpr uint16_t t_ipv4 = 0x0800, t_ipv6 = 0x86dd, t_arp = 0x0806, t_vlan = 0x8100;
const mac_addr mac_port{{0x02, 0, 0, 0, 0x12, 0x01}};
const mac_addr mac_peer{{0x02, 0, 0, 0, 0xee, 0xee}};
const mac_addr mac_other{{0x02, 0, 0, 0, 0x99, 0x99}};
const mac_addr mac_gw{{0x02, 0, 0, 0, 0x0b, 0x02}};

bytes frame(const mac_addr& dst, uint16_t type, const bytes& l3) { return wtest::eth(dst, mac_peer, type, l3); }

// `f` with an 802.1Q tag of VLAN `vid` after its addresses.
bytes tagged(bytes f, uint16_t vid) {
    const bytes tag = {0x81, 0x00, static_cast<uint8_t>(vid >> 8), static_cast<uint8_t>(vid)};
    f.insert(f.begin() + 12, tag.begin(), tag.end());
    return f;
}

// A port (DPDK port 3, in VRF 7) with one sub-port (VLAN 100): the classify stage's world.
class classify_stage_test : public ::testing::Test {
protected:
    void SetUp() override {
        port_info p;
        p.port_id = 3;
        p.vrf = 7;
        p.mac = mac_port;
        port_info s = p;
        s.port_id = 20;
        s.vrf = 8;
        s.parent = 3;
        s.vlan = 100;
        const std::vector<port_info> ports = {p, s};
        av = adj_view::create(ports, {}, 1);
        ASSERT_NE(av, nullptr);
    }
    void TearDown() override {
        for (rte_mbuf* m : ms)
            rte_pktmbuf_free(m);
        adj_view::destroy(av);
    }
    // Classifies `frames` as one burst received on port 3.
    void run(const std::vector<bytes>& frames) {
        for (const bytes& f : frames) {
            rx_bytes += f.size();
            ms.push_back(test::mbuf_of(f));
            ASSERT_NE(ms.back(), nullptr);
        }
        classify_burst(classify_input(*av->port(3), *av, trace_none), ms.data(), static_cast<uint16_t>(ms.size()), st,
                       out);
    }
    // The index in the burst of the packet `q` points at.
    size_t at(const pkt* q) const { return static_cast<size_t>(q - st); }

    const adj_view* av = nullptr;
    std::vector<rte_mbuf*> ms;  // freed at the end: the stage frees nothing, it sorts
    pkt st[burst_size];
    classify_out out;
    uint64_t rx_bytes = 0;
};

TEST_F(classify_stage_test, each_frame_leaves_on_the_edge_of_its_fate) {
    const bytes v4 = ip4_packet("192.0.2.1", "10.20.1.1", 64);
    const bytes v6 = ip6_packet(64, "2001:db8::1", "2001:db8:20::7", {test::inner4("192.0.2.1", "10.0.0.1")});
    const bytes to_host = ip6_packet(255, "fe80::1", "fe80::2", {test::inner4("192.0.2.1", "10.0.0.1")});
    bytes bad_sum = v4;
    bad_sum[10] ^= 0xff;
    run({
        frame(mac_port, t_ipv4, v4),                  // 0: to look up, IPv4
        frame(mac_other, t_ipv4, v4),                 // 1: another station's
        frame(mac_port, t_ipv6, v6),                  // 2: to look up, IPv6
        frame(mac_port, t_arp, bytes(28, 0)),         // 3: the host's
        frame(mac_port, t_ipv6, to_host),             // 4: the host's (link-local)
        frame(mac_port, t_ipv4, bad_sum),             // 5: a bad checksum
        tagged(frame(mac_port, t_ipv4, v4), 100),     // 6: for the sub-port
        tagged(frame(mac_port, t_ipv4, v4), 200),     // 7: no such VLAN
        frame(mac_port, 0x88b5, bytes(46, 0)),        // 8: no L3 we route
    });
    ASSERT_EQ(out.look.n, 2);
    EXPECT_EQ(at(out.look.p[0]), 0u);
    EXPECT_EQ(at(out.look.p[1]), 2u);
    EXPECT_EQ(out.n4, 1);
    EXPECT_FALSE(out.gathered());  // two families: the lookup stage gathers per run
    EXPECT_EQ(out.keys4[0], 0x0a140101u);
    EXPECT_EQ(st[0].af, 4);
    EXPECT_EQ(st[2].af, 6);
    EXPECT_EQ(st[0].vrf, 7);  // the port's
    EXPECT_EQ(st[0].l3, 14);

    ASSERT_EQ(out.host.n, 2);
    EXPECT_EQ(at(out.host.p[0]), 3u);
    EXPECT_EQ(at(out.host.p[1]), 4u);

    ASSERT_EQ(out.refused.n, 4);
    EXPECT_EQ(at(out.refused.p[0]), 1u);
    EXPECT_EQ(out.why[0], drop_reason::l2_other_station);
    EXPECT_EQ(at(out.refused.p[1]), 5u);
    EXPECT_EQ(out.why[1], drop_reason::ip4_bad_checksum);
    EXPECT_EQ(at(out.refused.p[2]), 7u);
    EXPECT_EQ(out.why[2], drop_reason::vlan_unknown);
    EXPECT_EQ(at(out.refused.p[3]), 8u);
    EXPECT_EQ(out.why[3], drop_reason::l3_unknown);

    // The tagged frame, untagged, for its sub-port; its packet state no longer owns it.
    ASSERT_EQ(out.n_sub, 1);
    EXPECT_EQ(out.sub[0], ms[6]);
    EXPECT_EQ(out.sub_in[0], av->sub_port(3, 100));
    EXPECT_EQ(test::hex(test::bytes_of(out.sub[0])), test::hex(frame(mac_port, t_ipv4, v4)));
    EXPECT_EQ(st[6].m, nullptr);

    EXPECT_EQ(out.rx_bytes, rx_bytes);  // as received: tags and padding counted
}

TEST_F(classify_stage_test, a_burst_of_one_family_has_its_keys_gathered_and_padding_trimmed) {
    std::vector<bytes> fs;
    size_t l3_len = 0;
    for (int i = 0; i < 20; ++i) {
        const std::string dst = "10.20.1." + std::to_string(i);
        const bytes l3 = ip4_packet("192.0.2.1", dst.c_str(), 64, 2);
        l3_len = l3.size();
        bytes f = frame(mac_port, t_ipv4, l3);
        f.resize(60, 0);  // Ethernet padding to the minimum frame
        fs.push_back(f);
    }
    run(fs);
    ASSERT_EQ(out.look.n, 20);
    EXPECT_TRUE(out.gathered());
    for (uint32_t i = 0; i < 20; ++i) {
        EXPECT_EQ(out.keys4[i], 0x0a140100u + i);
        EXPECT_EQ(out.look.p[i]->m->pkt_len, 14u + l3_len) << "padding trimmed";
    }
    EXPECT_EQ(out.refused.n + out.host.n + out.n_sub, 0);
}

// The lookup stage on tables the real compiler made: a route, an encapsulating route and a
// miss in one VRF, then one in the default VRF.
TEST(lookup_stage_test, each_packet_gets_its_routes_nexthop) {
    fib::qsbr_domain rcu{1};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    ASSERT_TRUE(src.set_configured(a6("fc00:1::1")));
    ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"red", 10, {}, std::nullopt}).ok());
    const vrf::vrf_id red = reg.find("red")->id;
    fib::compiler c{rcu};
    r.upsert_route(wtest::route("fc00:12::/64", {wtest::via(nullptr, 12)}));
    r.upsert_route(wtest::route("fc00:0:2::/48", {wtest::via("fc00:12::2", 12)}));
    r.upsert_route(wtest::route("10.20.0.0/16", {wtest::via("10.13.0.2", 13)}, 10));
    r.upsert_route(wtest::route("10.99.0.0/16", {wtest::encap(rib::encap_mode::encap_red, {"fc00:0:2::d4"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    const fib::dataplane_view* fv = c.cell().load();
    ASSERT_NE(fv, nullptr);

    std::vector<rte_mbuf*> ms;
    pkt st[4];
    pkt_vec w;
    const auto add = [&](const bytes& l3, uint8_t af, vrf::vrf_id v) {
        ms.push_back(test::mbuf_of(frame(mac_port, af == 4 ? t_ipv4 : t_ipv6, l3)));
        st[w.n] = pkt{ms.back(), nullptr, 0, v, 14, af, 0, 0, 0};
        w.push(st[w.n]);
    };
    add(ip4_packet("192.0.2.1", "10.20.1.1", 64), 4, red);
    add(ip4_packet("192.0.2.1", "10.99.0.1", 64), 4, red);
    add(ip4_packet("192.0.2.1", "10.50.0.1", 64), 4, red);
    add(ip6_packet(64, "2001:db8::1", "fc00:0:2::1", {test::inner4("192.0.2.1", "10.0.0.1")}), 6,
        vrf::default_vrf_id);

    uint32_t keys4[burst_size];
    fib::u128 keys6[burst_size];
    uint32_t res[burst_size];
    // Runs of one VRF and family: the three of red, then the default VRF's.
    const uint32_t k = gather_keys(w.p, w.n, keys4, keys6);
    ASSERT_EQ(k, 3u);
    lookup_burst(*fv, w.p, k, 4, red, keys4, keys6, res);
    ASSERT_EQ(gather_keys(w.p + 3, 1, keys4, keys6), 1u);
    lookup_burst(*fv, w.p + 3, 1, 6, vrf::default_vrf_id, keys4, keys6, res + 3);

    EXPECT_EQ(st[0].nhp->kind(), fib::nh_kind::forward);
    EXPECT_EQ(st[0].nhp->via().ifindex, 13u);
    EXPECT_EQ(st[1].nhp->kind(), fib::nh_kind::headend);
    EXPECT_EQ(st[2].nhp->kind(), fib::nh_kind::miss);
    EXPECT_EQ(st[3].nhp->kind(), fib::nh_kind::forward);
    EXPECT_EQ(st[3].nhp->via().ifindex, 12u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(st[i].lookups, 1) << i;
        EXPECT_EQ(st[i].nhp, &fv->nexthop(res[i])) << i;
    }
    for (rte_mbuf* m : ms)
        rte_pktmbuf_free(m);
}

// The rewrite stage from an exit as the memo keeps it: a plain port's, a sub-port's with the
// tag in the header, one whose NIC inserts the tag; from a received frame (the header
// rewritten where it is) and from a decapsulated packet (the header prepended).
TEST(rewrite_stage_test, the_exits_ethernet_header_goes_in_front_of_the_packet) {
    const bytes l3 = ip4_packet("192.0.2.1", "10.20.1.1", 63);
    l2_exit plain;
    plain.port_id = 5;
    plain.dev = 5;
    plain.hl = 14;
    std::memcpy(plain.eth, mac_gw.bytes, 6);
    std::memcpy(plain.eth + 6, mac_port.bytes, 6);
    l2_exit sub = plain;
    sub.port_id = 21;
    sub.hl = 18;
    sub.tagged = true;
    sub.eth[12] = 0x81;
    sub.eth[13] = 0x00;
    sub.eth[14] = 0x00;
    sub.eth[15] = 100;
    l2_exit hw = plain;
    hw.port_id = 22;
    hw.tagged = true;
    hw.tci_hw = 200;

    for (const uint16_t l3_at : {uint16_t{14}, uint16_t{0}}) {
        for (const l2_exit* x : {&plain, &sub, &hw}) {
            rte_mbuf* m = test::mbuf_of(l3_at == 14 ? frame(mac_port, t_ipv4, l3) : l3);
            ASSERT_TRUE(l2_rewrite(m, l3_at, 4, *x));
            bytes want = wtest::eth(mac_gw, mac_port, t_ipv4, l3);
            if (x == &sub)
                want = tagged(want, 100);
            EXPECT_EQ(test::hex(test::bytes_of(m)), test::hex(want)) << "exit " << x->port_id << ", l3 at " << l3_at;
            EXPECT_EQ(m->port, 5);
            EXPECT_EQ((m->ol_flags & RTE_MBUF_F_TX_VLAN) != 0, x == &hw);
            if (x == &hw) {
                EXPECT_EQ(m->vlan_tci, 200);
            }
            rte_pktmbuf_free(m);
        }
    }
}

TEST(rewrite_stage_test, no_headroom_leaves_the_packet_unchanged) {
    const bytes l3 = ip6_packet(64, "2001:db8::1", "2001:db8::2", {test::inner4("192.0.2.1", "10.0.0.1")});
    rte_mbuf* m = rte_pktmbuf_alloc(test::pool());
    ASSERT_NE(m, nullptr);
    m->data_off = 0;  // the packet at the very start of the buffer: no headroom at all
    auto* d = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(l3.size())));
    ASSERT_NE(d, nullptr);
    std::memcpy(d, l3.data(), l3.size());
    l2_exit x;
    x.hl = 14;
    const bytes before = test::bytes_of(m);
    EXPECT_FALSE(l2_rewrite(m, 0, 6, x));
    EXPECT_EQ(test::hex(test::bytes_of(m)), test::hex(before));
    rte_pktmbuf_free(m);
}

// The tx stage's buffers: per port, in order, full at a burst, the device of the first.
TEST(tx_stage_test, buffers_fill_per_port_and_say_when_full) {
    auto b = std::make_unique<tx_buffers>();
    std::vector<rte_mbuf*> ms;
    for (int i = 0; i < burst_size + 1; ++i)
        ms.push_back(reinterpret_cast<rte_mbuf*>(static_cast<uintptr_t>(0x1000 + i * 0x100)));  // never dereferenced
    EXPECT_FALSE(b->push(4, ms[0], 1));  // a sub-port (4) of DPDK port 1
    EXPECT_FALSE(b->push(2, ms[1], 2));
    EXPECT_EQ(b->dirty, (1u << 4) | (1u << 2));
    EXPECT_EQ(b->dev[4], 1);
    EXPECT_EQ(b->dev[2], 2);
    for (int i = 2; i < burst_size; ++i)
        EXPECT_FALSE(b->push(4, ms[static_cast<size_t>(i)], 1)) << i;
    EXPECT_TRUE(b->push(4, ms[burst_size], 1));  // the burst_size-th for port 4
    EXPECT_EQ(b->n[4], burst_size);
    EXPECT_EQ(b->n[2], 1);
    EXPECT_EQ(b->m[4][0], ms[0]);
    EXPECT_EQ(b->m[4][burst_size - 1], ms[burst_size]);
    EXPECT_EQ(b->m[2][0], ms[1]);
}

}  // namespace SRV6D_UNITY_ID
}  // namespace fwd
