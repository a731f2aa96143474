// 802.1Q sub-ports through the whole worker on real DPDK ports (net_ring ethdevs): port `ce`
// carries VLAN 100 (sub-port in VRF red, mirrored by a VLAN device on ce's TAP: punts keep
// their tag) and VLAN 200 (sub-port in VRF blue, same customer addresses as red, mirrored by a
// TAP of its own: untagged), and untagged frames of its own in the default VRF. Frames are
// written out byte for byte (IEEE 802.1Q tag: TPID 0x8100, then PCP/DEI/VID).
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <map>
#include <memory>
#include <random>
#include <string>

#include "endpoint_pkt.hh"
#include "fib/control/compiler.hh"
#include "fib/control/encap_build.hh"
#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/worker.hh"
#include "rib/rib.hh"
#include "worker_env.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using test::a6;
using test::bytes;
using test::inner4;
using test::inner6;
using test::ip4_packet;
using test::ip6_packet;
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
const mac_addr mac_ce1{{0x02, 0, 0, 0, 0xce, 0x01}};   // 10.1.0.2 / fd01::2 on VLAN 100 (and untagged)
const mac_addr mac_ce2{{0x02, 0, 0, 0, 0xce, 0x02}};   // 10.1.0.2 on VLAN 200 (blue: the same address)
const mac_addr mac_p{{0x02, 0, 0, 0, 0x0b, 0x02}};     // fc00:12::2 behind core
const mac_addr mac_remote{{0x02, 0, 0, 0, 0xee, 0xee}};

constexpr uint16_t t_ipv4 = 0x0800, t_ipv6 = 0x86dd, t_arp = 0x0806;

// A frame with one tag (TPID `tpid`, tag control `tci`) before `type`.
bytes tagged(const mac_addr& dst, const mac_addr& src, uint16_t tci, uint16_t type, const bytes& l3,
             uint16_t tpid = 0x8100) {
    bytes f(dst.bytes, dst.bytes + 6);
    f.insert(f.end(), src.bytes, src.bytes + 6);
    for (const uint16_t v : {tpid, tci, type}) {
        f.push_back(static_cast<uint8_t>(v >> 8));
        f.push_back(static_cast<uint8_t>(v));
    }
    f.insert(f.end(), l3.begin(), l3.end());
    return f;
}

bytes outer(const char* src, std::vector<const char*> sids, bool red, uint8_t inner_type, const bytes& payload) {
    const uint32_t label = flow_label(flow_hash_ip(payload.data(), static_cast<uint32_t>(payload.size())));
    test_support::srv6_encap_ref r{red, {}, a6(src), 64, 0, label};
    for (const char* s : sids)
        r.sids.push_back(a6(s));
    return test_support::srv6_encap(r, payload, inner_type);
}

// Sub-ports' ids are srv6d's own, from the top of the port ids (dataplane.cc does the same).
uint16_t free_port_id(uint16_t below) {
    for (uint16_t id = below; id-- > 0;)
        if (!rte_eth_dev_is_valid_port(id))
            return id;
    return port_none;
}

class worker_vlan_test : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(src.set_configured(a6("fc00:1::1")));
        ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"red", 10, {}, std::nullopt}).ok());
        ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"blue", 20, {}, std::nullopt}).ok());
        const vrf::vrf_id red = reg.find("red")->id, blue = reg.find("blue")->id;
        ce = make_port("ce");
        core = make_port("core");
        cetap = make_port("cetap");  // ce's TAP mirror; VLAN 100's mirror is a VLAN device on it
        tap200 = make_port("tap200");  // VLAN 200's TAP of its own
        v100 = free_port_id(max_ports);
        v200 = free_port_id(v100);
        ASSERT_NE(v200, port_none);
        port_info p100{v100, red, 1400, true, 111, mac_ce_port, cetap.id, 1000, 64};
        p100.parent = ce.id;
        p100.vlan = 100;
        p100.tap_tagged = true;
        port_info p200{v200, blue, 1500, true, 112, mac_ce_port, tap200.id, 1000, 64};
        p200.parent = ce.id;
        p200.vlan = 200;
        ports = {
            {ce.id, vrf::default_vrf_id, 1500, true, 11, mac_ce_port, cetap.id, 1000, 64},
            {core.id, vrf::default_vrf_id, 1600, true, 12, mac_core_port},
            p100,
            p200,
        };
        ns = {
            {v100, *rib::parse_addr("10.1.0.2"), mac_ce1},   {v100, *rib::parse_addr("fd01::2"), mac_ce1},
            {v200, *rib::parse_addr("10.1.0.2"), mac_ce2},   {ce.id, *rib::parse_addr("10.1.0.2"), mac_ce1},
            {core.id, *rib::parse_addr("fc00:12::2"), mac_p},
        };
        (void)adj.exchange(adj_view::create(ports, ns, 1));
        hdr = headend_hdr_pool_create(("wv_hdr" + std::to_string(seq)).c_str(), 63, 0);
        ASSERT_NE(hdr, nullptr);
        counters = std::make_unique<worker_counters>();
        w = std::make_unique<worker>(
            std::vector<rx_queue>{{ce.id, 0}, {core.id, 0}, {cetap.id, 0, ce.id}, {tap200.id, 0, v200}}, 0,
            published{&c.cell(), &adj}, hdr, *counters);
        // default VRF: the core, ce's own untagged subnet, End.DT4/DT6 into red and blue
        r.upsert_route(route("fc00:12::/64", {via(nullptr, 12)}));
        r.upsert_route(route("fc00:0:2::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(route("10.1.0.0/24", {via(nullptr, 11)}));
        r.upsert_route(sid("fc00:0:1::10/128", rib::behavior::end_dt4, 12, [](rib::seg6local& l) { l.vrftable = 10; }));
        r.upsert_route(sid("fc00:0:1::11/128", rib::behavior::end_dt6, 12, [](rib::seg6local& l) { l.table = 10; }));
        r.upsert_route(sid("fc00:0:1::20/128", rib::behavior::end_dt4, 12, [](rib::seg6local& l) { l.vrftable = 20; }));
        // red on VLAN 100, blue on VLAN 200: the same customer prefixes, different VPNs
        r.upsert_route(route("10.1.0.0/24", {via(nullptr, 111)}, 10));
        r.upsert_route(route("fd01::/64", {via(nullptr, 111)}, 10));
        r.upsert_route(route("10.99.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:2::d4"})}, 10));
        r.upsert_route(route("fd99::/16", {encap(rib::encap_mode::encap, {"fc00:0:2::d6"})}, 10));
        r.upsert_route(route("10.1.0.0/24", {via(nullptr, 112)}, 20));
        r.upsert_route(route("10.99.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:2::b4"})}, 20));
        ASSERT_TRUE(c.compile(r, reg, src));
    }

    void TearDown() override {
        w.reset();
        for (ring_port* p : {&ce, &core, &cetap, &tap200})
            close_ring_port(*p);
        adj_view::destroy(adj.exchange(nullptr));
        rte_mempool_free(hdr);
    }

    ring_port make_port(const char* name) { return open_ring_port(std::string("wv_") + name + std::to_string(seq++)); }

    // One frame in on `in`, exactly `want` out of `at` (nullptr: none anywhere), nothing elsewhere.
    void expect_one(const ring_port& in, const bytes& frame, const ring_port* at, const bytes& want) {
        wtest::expect_one(*w, *counters, {&ce, &core, &cetap, &tap200}, in, frame, at, want);
    }
    uint64_t dropped(drop_reason why) const { return counters->drops[static_cast<size_t>(why)].get(); }
    std::string drops() const { return wtest::drop_summary(*counters); }
    const port_counters& pc(uint16_t id) const { return counters->ports[id]; }

    static inline int seq = 0;
    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    fib::rcu_cell<adj_view> adj;
    ring_port ce, core, cetap, tap200;
    std::vector<port_info> ports;  // ce, core, VLAN 100, VLAN 200
    std::vector<neighbor> ns;
    uint16_t v100 = port_none, v200 = port_none;
    rte_mempool* hdr = nullptr;
    std::unique_ptr<worker_counters> counters;
    std::unique_ptr<worker> w;
};

// The VLAN id picks the VRF: the same packet from the same MAC is encapsulated towards red's
// SID on VLAN 100 and blue's on VLAN 200. The tag is gone from what is encapsulated.
TEST_F(worker_vlan_test, tagged_ipv4_is_classified_to_the_sub_port_vrf_and_encapsulated) {
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 64);
    const bytes inner = ttl_minus_one(ip);
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip), &core,
               eth(mac_p, mac_core_port, t_ipv6, outer("fc00:1::1", {"fc00:0:2::d4"}, true, 4, inner)));
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 200, t_ipv4, ip), &core,
               eth(mac_p, mac_core_port, t_ipv6, outer("fc00:1::1", {"fc00:0:2::b4"}, true, 4, inner)));
    EXPECT_EQ(pc(v100).rx_packets.get(), 1u);
    EXPECT_EQ(pc(v100).rx_bytes.get(), 14u + ip.size());  // without the tag, as the VLAN device counts
    EXPECT_EQ(pc(v200).rx_packets.get(), 1u);
    EXPECT_EQ(pc(ce.id).rx_packets.get(), 2u);  // the parent counts what came in on the wire
    EXPECT_EQ(pc(ce.id).rx_bytes.get(), 2 * (18u + ip.size()));
}

TEST_F(worker_vlan_test, tagged_ipv6_is_encapsulated_in_the_sub_port_vrf) {
    const bytes ip = ip6_packet(64, "fd01::2", "fd99:1::5", {test::layer{17, bytes(24, 0x77)}}, 59, 0x0abcd, 0);
    const bytes inner = ttl_minus_one(ip);
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 100, t_ipv6, ip), &core,
               eth(mac_p, mac_core_port, t_ipv6, outer("fc00:1::1", {"fc00:0:2::d6"}, false, 41, inner)));
}

// Decapsulated into a VRF whose route names a sub-port: out of the parent with the sub-port's
// tag, counted on both (the parent's counters are the wire's).
TEST_F(worker_vlan_test, end_dt4_dt6_egress_to_a_sub_port_is_tagged_with_its_vlan) {
    const test::layer in4 = inner4("10.9.0.1", "10.1.0.2");
    expect_one(core, eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {in4})),
               &ce, tagged(mac_ce1, mac_ce_port, 100, t_ipv4, ttl_minus_one(in4.b)));
    const test::layer in6 = inner6("fd09::1", "fd01::2");
    expect_one(core, eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::11", {in6})),
               &ce, tagged(mac_ce1, mac_ce_port, 100, t_ipv6, ttl_minus_one(in6.b)));
    // blue: the same inner destination, its own neighbor on VLAN 200
    expect_one(core, eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::20", {in4})),
               &ce, tagged(mac_ce2, mac_ce_port, 200, t_ipv4, ttl_minus_one(in4.b)));
    EXPECT_EQ(pc(v100).tx_packets.get(), 2u);
    EXPECT_EQ(pc(v200).tx_packets.get(), 1u);
    EXPECT_EQ(pc(v200).tx_bytes.get(), 18u + in4.b.size());
    EXPECT_EQ(pc(ce.id).tx_packets.get(), 3u);
}

// The sub-port's MTU (1400, below the parent's 1500) is the one checked.
TEST_F(worker_vlan_test, sub_port_mtu_is_its_own) {
    const test::layer big = inner4("10.9.0.1", "10.1.0.2", 64, 1400 - 20 - 8 + 1);
    expect_one(core, eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {big})),
               nullptr, {});
    EXPECT_EQ(dropped(drop_reason::mtu_exceeded), 1u) << drops();
    const test::layer fits = inner4("10.9.0.1", "10.1.0.2", 64, 1400 - 20 - 8);
    expect_one(core, eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {fits})),
               &ce, tagged(mac_ce1, mac_ce_port, 100, t_ipv4, ttl_minus_one(fits.b)));
}

TEST_F(worker_vlan_test, unknown_vlan_qinq_and_truncated_tags_are_dropped_and_counted) {
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 64);
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 300, t_ipv4, ip), nullptr, {});
    EXPECT_EQ(dropped(drop_reason::vlan_unknown), 1u) << drops();
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip, 0x88a8), nullptr, {});  // 802.1ad S-tag
    // 802.1Q in 802.1Q (VLAN 100 then 100 again inside)
    bytes inner_tag = {0x00, 0x64, 0x08, 0x00};
    inner_tag.insert(inner_tag.end(), ip.begin(), ip.end());
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 100, 0x8100, inner_tag), nullptr, {});
    EXPECT_EQ(dropped(drop_reason::vlan_qinq), 2u) << drops();
    // A frame that ends inside its tag: never read past it.
    const bytes full = tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip);
    for (size_t len = 14; len < 18; ++len)
        expect_one(ce, bytes(full.begin(), full.begin() + static_cast<long>(len)), nullptr, {});
    EXPECT_EQ(dropped(drop_reason::eth_truncated), 4u) << drops();
    // A tagged frame whose IP header is cut short is the sub-port's ip4_truncated.
    expect_one(ce, bytes(full.begin(), full.begin() + 18 + 10), nullptr, {});
    EXPECT_EQ(dropped(drop_reason::ip4_truncated), 1u) << drops();
    EXPECT_EQ(dropped(drop_reason::l3_unknown), 0u);
}

// VLAN id 0 (priority tag, 802.1Q §6.9.1): the parent's own frame, its tag removed.
TEST_F(worker_vlan_test, priority_tagged_frames_belong_to_the_parent) {
    const bytes ip = ip4_packet("10.9.0.1", "10.1.0.2", 64);
    expect_one(ce, tagged(mac_ce_port, mac_remote, 0xa000 /* PCP 5, VID 0 */, t_ipv4, ip), &ce,
               eth(mac_ce1, mac_ce_port, t_ipv4, ttl_minus_one(ip)));
    EXPECT_EQ(pc(ce.id).tx_packets.get(), 1u);
    EXPECT_EQ(pc(v100).tx_packets.get() + pc(v200).tx_packets.get(), 0u);
}

// The host path: VLAN 100's mirror is a VLAN device on ce's TAP (its punts keep their tag, the
// kernel sends tagged frames out of the TAP, forwarded as they are); VLAN 200's is a TAP of its
// own (punts untagged; what it sends gets the tag).
TEST_F(worker_vlan_test, punt_and_inject_keep_the_tag_where_the_mirror_needs_it) {
    const bytes arp(28, 0x5a);
    const bytes arp100 = tagged(mac_ce_port, mac_ce1, 100, t_arp, arp);
    expect_one(ce, arp100, &cetap, arp100);
    expect_one(ce, tagged(mac_ce_port, mac_ce2, 200, t_arp, arp), &tap200, eth(mac_ce_port, mac_ce2, t_arp, arp));
    EXPECT_EQ(pc(v100).punted.get(), 1u);
    EXPECT_EQ(pc(v200).punted.get(), 1u);
    const bytes answer = tagged(mac_ce1, mac_ce_port, 100, t_arp, arp);
    expect_one(cetap, answer, &ce, answer);
    expect_one(tap200, eth(mac_ce2, mac_ce_port, t_arp, arp), &ce, tagged(mac_ce2, mac_ce_port, 200, t_arp, arp));
    EXPECT_EQ(pc(v200).injected.get(), 1u);
    EXPECT_EQ(pc(ce.id).tx_packets.get(), 2u);
}

void no_free(void*, void*) {}

// Tagged frames corrupted at random, each in an external buffer of exactly headroom + its size
// (ASan reports a read past it): every one is accounted for once, sent or dropped with a reason.
TEST_F(worker_vlan_test, fuzz_tagged_frames_stay_in_bounds_and_are_accounted_for) {
    const std::vector<bytes> seeds = {
        tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64)),
        tagged(mac_ce_port, mac_ce1, 200, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64)),
        tagged(mac_ce_port, mac_ce1, 100, t_ipv6, ip6_packet(64, "fd01::2", "fd99:1::5", {test::layer{17, bytes(24)}})),
        tagged(mac_ce_port, mac_ce1, 100, t_arp, bytes(28)),
        tagged(mac_ce_port, mac_ce1, 200, t_arp, bytes(28)),
        tagged(mac_ce_port, mac_ce1, 0, t_ipv4, ip4_packet("10.9.0.1", "10.1.0.2", 64)),
        tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64), 0x88a8),
        eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {inner4("10.9.0.1", "10.1.0.2")})),
    };
    std::mt19937 rng(8021);
    uint64_t sent = 0;
    for (int round = 0; round < 2000; ++round) {
        struct ext {
            std::unique_ptr<uint8_t[]> buf;
            rte_mbuf_ext_shared_info shinfo{};
        };
        std::vector<std::unique_ptr<ext>> bufs;
        for (int i = 0; i < 32; ++i) {
            const size_t s = rng() % seeds.size();
            bytes f = seeds[s];
            switch (rng() % 4) {
            case 0: f.resize(rng() % (f.size() + 1)); break;
            case 1: f.resize(f.size() + rng() % 64, static_cast<uint8_t>(rng())); break;
            default: break;
            }
            for (auto k = rng() % 4; k-- > 0 && !f.empty();)  // mostly in the tag and the L3 header
                f[rng() % std::min<size_t>(f.size(), 48)] = static_cast<uint8_t>(rng());
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
            ASSERT_EQ(rte_ring_enqueue((s == seeds.size() - 1 ? core : ce).rx, m), 0);
            bufs.push_back(std::move(e));
            ++sent;
        }
        w->poll();
        for (ring_port* p : {&ce, &core, &cetap, &tap200})
            (void)out(*p);
        w->expire_held(UINT64_MAX);
    }
    // The wire's ports only: a sub-port's packets are its parent's too.
    uint64_t rx = 0, tx = 0, dropped_total = 0, icmp = 0;
    for (const ring_port* p : {&ce, &core, &cetap, &tap200}) {
        rx += pc(p->id).rx_packets.get();
        tx += pc(p->id).tx_packets.get();
    }
    for (size_t i = 0; i < drop_reason_count; ++i)
        dropped_total += counters->drops[i].get();
    for (const auto& k : counters->icmp.sent)
        icmp += k.get();
    EXPECT_EQ(rx, sent);
    EXPECT_EQ(tx + dropped_total, sent + icmp) << drops();
    EXPECT_GT(pc(v100).rx_packets.get(), sent / 10);
    EXPECT_GT(dropped(drop_reason::vlan_unknown), 0u);
    EXPECT_GT(tx, sent / 10);
}

// --- VPWS (port- and VLAN-based attachment circuits, H.Encaps.L2)

// The frame as H.Encaps.L2 carries it: the label from its IP header when it is one, else
// from its addresses and type (RFC 8986 §5.3; docs/dataplane-headend.md).
bytes pw_outer(const std::vector<const char*>& sids, bool red, const bytes& frame) {
    const uint16_t type = static_cast<uint16_t>(frame[12] << 8 | frame[13]);
    const bool ip = type == 0x0800 || type == 0x86dd;
    const uint8_t* h = frame.data() + 14;
    const uint32_t hash = ip ? flow_hash_ip(h, static_cast<uint32_t>(frame.size() - 14)) : flow_hash_eth(frame.data());
    // The traffic class is the frame's IP header's (docs/dataplane-headend.md), else 0.
    const uint8_t tc = !ip ? 0 : type == 0x0800 ? h[1] : static_cast<uint8_t>((h[0] << 4) | (h[1] >> 4));
    test_support::srv6_encap_ref r{red, {}, a6("fc00:1::1"), 64, tc, flow_label(hash)};
    for (const char* s : sids)
        r.sids.push_back(a6(s));
    return test_support::srv6_encap(r, frame, 143);
}

class worker_l2vpn_test : public worker_vlan_test {
protected:
    // Port `id` becomes the circuit of a pseudowire to `sids`, built as the control plane builds
    // it (fwd::build_vpws: the configured source, fc00:1::1); `active` false: the service is down.
    void circuit(uint16_t id, std::vector<const char*> sids, bool red, bool active = true) {
        std::vector<rib::ip6_addr> segs;
        for (const char* s : sids)
            segs.push_back(a6(s));
        l2_service svc;
        svc.port_id = id;
        svc.active = active;
        svc.tmpl = fib::build_encap_template(red ? rib::encap_mode::l2encap_red : rib::encap_mode::l2encap, segs,
                                             a6("fc00:1::1"), 143)
                       .tmpl;
        services.push_back(svc);
        for (auto& p : ports)
            if (p.port_id == id)
                p.l2vpn = static_cast<uint8_t>(services.size());
        adj_view::destroy(adj.exchange(adj_view::create(ports, ns, 2, {}, services)));
    }
    std::vector<l2_service> services;
};

// A VLAN-based circuit: every frame of VLAN 200, whatever it is (IPv4 for another MAC than the
// port's, ARP, IPv6, a customer's own inner tag), goes into the pseudowire without the
// service's tag; VLAN 100 and the port's own frames are routed as before.
TEST_F(worker_l2vpn_test, every_frame_of_a_vlan_circuit_goes_into_its_pseudowire_untagged) {
    circuit(v200, {"fc00:0:2::e2"}, false);
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 64);
    const std::vector<bytes> frames = {
        eth(mac_remote, mac_ce2, t_ipv4, ip),                    // not for the port's MAC
        eth(mac_addr{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, mac_ce2, t_arp, bytes(28, 0x11)),
        eth(mac_ce1, mac_ce2, t_ipv6, ip6_packet(64, "fd01::2", "fd99::5", {inner6("fd01::2", "fd99::5")})),
        tagged(mac_ce1, mac_ce2, 7, t_ipv4, ip),                 // the customer's own tag stays
    };
    for (const bytes& f : frames) {
        bytes on_wire = f;
        on_wire.insert(on_wire.begin() + 12, {0x81, 0x00, 0x00, 200});
        expect_one(ce, on_wire, &core, eth(mac_p, mac_core_port, t_ipv6, pw_outer({"fc00:0:2::e2"}, false, f)));
    }
    EXPECT_EQ(pc(v200).rx_packets.get(), frames.size());  // the service's: its circuit's counters
    EXPECT_EQ(counters->headend[static_cast<size_t>(rib::encap_mode::l2encap)].get(), frames.size());
    // VLAN 100 is still routed in red.
    const bytes inner = ttl_minus_one(ip);
    expect_one(ce, tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip), &core,
               eth(mac_p, mac_core_port, t_ipv6, outer("fc00:1::1", {"fc00:0:2::d4"}, true, 4, inner)));
}

// A port-based circuit takes every frame, tagged or not, as it came (.L2.Red: the first SID in
// the destination only).
TEST_F(worker_l2vpn_test, a_port_circuit_carries_tagged_and_untagged_frames_as_they_came) {
    circuit(ce.id, {"fc00:0:2::e1", "fc00:0:2::e2"}, true);
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 64);
    for (const bytes& f : {eth(mac_ce_port, mac_ce1, t_ipv4, ip), tagged(mac_ce_port, mac_ce1, 100, t_ipv4, ip)})
        expect_one(ce, f, &core, eth(mac_p, mac_core_port, t_ipv6, pw_outer({"fc00:0:2::e1", "fc00:0:2::e2"}, true, f)));
    EXPECT_EQ(pc(v100).rx_packets.get(), 0u);  // the port took it before any VLAN split
}

// What does not fit the core once encapsulated is dropped (no ICMP for a frame, no fragments);
// a service that is down drops what its circuit receives.
TEST_F(worker_l2vpn_test, too_big_for_the_core_and_service_down_are_dropped_and_counted) {
    circuit(v200, {"fc00:0:2::e2"}, false);
    // core's MTU 1600: 40 + 24 (SRH, one SID) + the frame.
    const bytes fits = eth(mac_remote, mac_ce2, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64, 1536 - 14 - 28));
    const bytes big = eth(mac_remote, mac_ce2, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64, 1537 - 14 - 28));
    auto on_200 = [](bytes f) {
        f.insert(f.begin() + 12, {0x81, 0x00, 0x00, 200});
        return f;
    };
    expect_one(ce, on_200(fits), &core, eth(mac_p, mac_core_port, t_ipv6, pw_outer({"fc00:0:2::e2"}, false, fits)));
    expect_one(ce, on_200(big), nullptr, {});
    EXPECT_EQ(dropped(drop_reason::encap_mtu), 1u) << drops();
    services.clear();
    for (auto& p : ports)
        p.l2vpn = 0;
    circuit(v200, {"fc00:0:2::e2"}, false, false);
    expect_one(ce, on_200(fits), nullptr, {});
    EXPECT_EQ(dropped(drop_reason::l2vpn_down), 1u) << drops();
}

// The other direction: End.DX2 to the sub-port puts the service's tag back on the frame.
TEST_F(worker_l2vpn_test, end_dx2_to_the_vlan_circuit_tags_the_frame) {
    circuit(v200, {"fc00:0:2::e2"}, false);
    r.upsert_route(sid("fc00:0:1::d2/128", rib::behavior::end_dx2, 12, [](rib::seg6local& l) { l.oif = 112; }));
    ASSERT_TRUE(c.compile(r, reg, src));
    const bytes f = eth(mac_ce2, mac_remote, t_arp, bytes(28, 0x22));
    expect_one(core, eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:2::1", "fc00:0:1::d2", {{143, f}})), &ce,
               tagged(mac_ce2, mac_remote, 200, t_arp, bytes(28, 0x22)));
    EXPECT_EQ(pc(v200).tx_packets.get(), 1u);
}

}  // namespace
}  // namespace fwd

namespace fwd {
namespace SRV6D_UNITY_ID {

// What left `p`, with the tag the NIC was asked to insert (0: none).
std::vector<std::pair<bytes, uint16_t>> out_with_tci(const ring_port& p) {
    std::vector<std::pair<bytes, uint16_t>> v;
    rte_mbuf* m;
    while (rte_ring_dequeue(p.tx, reinterpret_cast<void**>(&m)) == 0) {
        v.emplace_back(test::bytes_of(m), (m->ol_flags & RTE_MBUF_F_TX_VLAN) ? m->vlan_tci : 0);
        rte_pktmbuf_free(m);
    }
    return v;
}

// A gateway behind a sub-port: the worker resolves its exit once and keeps it (worker_l2.hh);
// every later packet, in the same burst or the next, leaves with the same tag, MAC and port
// counters, red's on VLAN 100 and blue's on VLAN 200 in turn. Then VLAN 200's NIC inserts the
// tag: a new adjacency view, and the frames leave untagged with the tag asked of the NIC.
TEST_F(worker_vlan_test, a_gateway_on_a_sub_port_tags_every_packet_to_it) {
    r.upsert_route(route("10.60.0.0/16", {via("10.1.0.2", 111)}, 10));
    r.upsert_route(route("10.60.0.0/16", {via("10.1.0.2", 112)}, 20));
    ASSERT_TRUE(c.compile(r, reg, src));
    const test::layer in4 = inner4("10.9.0.1", "10.60.0.7");
    const bytes to_red = eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {in4}));
    const bytes to_blue = eth(mac_core_port, mac_remote, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::20", {in4}));
    const bytes red = tagged(mac_ce1, mac_ce_port, 100, t_ipv4, ttl_minus_one(in4.b));
    const bytes blue = tagged(mac_ce2, mac_ce_port, 200, t_ipv4, ttl_minus_one(in4.b));
    for (int burst = 0; burst < 2; ++burst) {
        for (int i = 0; i < 3; ++i) {
            send(core, to_red);
            send(core, to_blue);
        }
        w->poll();
        // Each sub-port's frames leave in order, a sub-port's after the other's (their own tx buffers).
        std::map<std::string, int> seen;
        for (const bytes& f : out(ce))
            ++seen[test::hex(f)];
        EXPECT_EQ(seen, (std::map<std::string, int>{{test::hex(red), 3}, {test::hex(blue), 3}})) << "burst " << burst << " " << drops();
    }
    EXPECT_EQ(pc(v100).tx_packets.get(), 6u);
    EXPECT_EQ(pc(v200).tx_packets.get(), 6u);
    EXPECT_EQ(pc(ce.id).tx_packets.get(), 12u);

    ports[3].tx_vlan_hw = true;
    adj_view::destroy(adj.exchange(adj_view::create(ports, ns, 2)));
    const bytes blue_untagged = eth(mac_ce2, mac_ce_port, t_ipv4, ttl_minus_one(in4.b));
    for (int burst = 0; burst < 2; ++burst) {
        for (int i = 0; i < 3; ++i) {
            send(core, to_red);
            send(core, to_blue);
        }
        w->poll();
        std::map<std::pair<std::string, uint16_t>, int> seen;
        for (const auto& [f, tci] : out_with_tci(ce))
            ++seen[{test::hex(f), tci}];
        const std::map<std::pair<std::string, uint16_t>, int> want = {{{test::hex(red), 0}, 3}, {{test::hex(blue_untagged), 200}, 3}};
        EXPECT_EQ(seen, want) << "burst " << burst << " " << drops();
    }
}

}  // namespace SRV6D_UNITY_ID
}  // namespace fwd
