// ICMP from the worker, end to end on real DPDK ports (net_ring ethdevs), tables from the real
// compiler: time exceeded at ingress, after decapsulation and at a transit SID; packet too
// big / fragmentation needed at the headend; parameter problems for SRH errors; the rate
// limit; echo replies and punts for own VRF addresses reached through the VPN; the ingress
// MAC check. Expected messages are written from RFC 792/4443 field by field (checksums from
// scratch here), not with forward/datapath/icmp.hh.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <memory>
#include <string>

#include "endpoint_pkt.hh"
#include "fib/control/compiler.hh"
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
using test::srh;
using wtest::close_ring_port;
using wtest::encap;
using wtest::eth;
using wtest::ttl_minus_one;
using wtest::open_ring_port;
using wtest::out;
using wtest::ring_port;
using wtest::send;
using wtest::route;
using wtest::sid;
using wtest::via;

const mac_addr mac_ce_port{{0x02, 0, 0, 0, 0x11, 0x01}};
const mac_addr mac_core_port{{0x02, 0, 0, 0, 0x12, 0x01}};
const mac_addr mac_ce1{{0x02, 0, 0, 0, 0xce, 0x01}};  // 10.1.0.2 / fd01::2 behind port ce
const mac_addr mac_p{{0x02, 0, 0, 0, 0x0b, 0x02}};    // fc00:12::2 behind port core
constexpr uint16_t t_ipv4 = 0x0800, t_ipv6 = 0x86dd;

uint16_t fold_not(uint32_t sum) {
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}
uint32_t sum16(const uint8_t* p, size_t n) {
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += static_cast<uint32_t>(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += static_cast<uint32_t>(p[n - 1] << 8);
    return s;
}

// RFC 792: IPv4 header (TOS as Linux: the offending TOS bits | precedence 6, DF clear, TTL 64)
// + ICMP header + the first `quote` bytes of `off`.
bytes icmp4(const char* src, const bytes& off, uint16_t id, uint8_t type, uint8_t code, uint32_t rest, size_t quote) {
    bytes m = {0x45, static_cast<uint8_t>((off[1] & 0x1e) | 0xc0)};
    test_support::push16(m, static_cast<uint32_t>(28 + quote));
    test_support::push16(m, id);
    test_support::push16(m, 0);
    m.push_back(64);
    m.push_back(1);
    test_support::push16(m, 0);
    const auto s = test::a4(src);
    m.insert(m.end(), s.bytes.begin(), s.bytes.end());
    m.insert(m.end(), off.begin() + 12, off.begin() + 16);
    test::put16(m, 10, test::ip4_checksum(m.data(), 20));
    m.push_back(type);
    m.push_back(code);
    test_support::push16(m, 0);
    test_support::push16(m, rest >> 16);
    test_support::push16(m, rest & 0xffff);
    m.insert(m.end(), off.begin(), off.begin() + static_cast<long>(quote));
    test::put16(m, 22, fold_not(sum16(m.data() + 20, m.size() - 20)));
    return m;
}

// RFC 4443: IPv6 header (hop limit 64, traffic class 0) + ICMPv6 header + quote; checksum over
// the RFC 8200 §8.1 pseudo-header.
bytes icmp6(const uint8_t* src, const bytes& off, uint8_t type, uint8_t code, uint32_t rest, size_t quote) {
    const uint32_t label = flow_label(flow_hash_ip(off.data(), static_cast<uint32_t>(off.size())));
    bytes body = {type, code, 0, 0};
    test_support::push16(body, rest >> 16);
    test_support::push16(body, rest & 0xffff);
    body.insert(body.end(), off.begin(), off.begin() + static_cast<long>(quote));
    rib::ip6_addr s, d;
    std::memcpy(s.bytes.data(), src, 16);
    std::memcpy(d.bytes.data(), off.data() + 8, 16);
    uint32_t sum = sum16(s.bytes.data(), 16) + sum16(d.bytes.data(), 16) + static_cast<uint32_t>(body.size()) + 58 +
                   sum16(body.data(), body.size());
    test::put16(body, 2, fold_not(sum));
    return test_support::ipv6(64, s, d, 58, body, label, 0);
}

class worker_icmp_test : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(src.set_configured(a6("fc00:1::1")));
        ASSERT_TRUE(reg.set(vrf::source::config, vrf::vrf_spec{"red", 10, {}, std::nullopt}).ok());
        red = reg.find("red")->id;
        ce = make_port("ce");
        core = make_port("core");
        ce_tap = make_port("cetap");
        core_tap = make_port("coretap");
        ports = {
            {ce.id, red, 1500, true, 11, mac_ce_port, ce_tap.id, 1000, 64},
            {core.id, vrf::default_vrf_id, 1500, true, 12, mac_core_port, core_tap.id, 1000, 64},
        };
        own = {{red, *rib::parse_addr("10.1.0.1"), ce.id},
               {red, *rib::parse_addr("fe80::1"), ce.id},
               {red, *rib::parse_addr("fd01::1"), ce.id},
               {vrf::default_vrf_id, *rib::parse_addr("fc00:12::1"), core.id}};
        neighbors = {
            {ce.id, *rib::parse_addr("10.1.0.2"), mac_ce1},
            {ce.id, *rib::parse_addr("fd01::2"), mac_ce1},
            {core.id, *rib::parse_addr("fc00:12::2"), mac_p},
        };
        (void)adj.exchange(adj_view::create(ports, neighbors, 1, own));
        hdr = headend_hdr_pool_create(("wi_hdr" + std::to_string(seq)).c_str(), 63, 0);
        ASSERT_NE(hdr, nullptr);
        counters = std::make_unique<worker_counters>();
        w = std::make_unique<worker>(
            std::vector<rx_queue>{{ce.id, 0}, {core.id, 0}, {ce_tap.id, 0, ce.id}, {core_tap.id, 0, core.id}}, 0,
            published{&c.cell(), &adj}, hdr, *counters);
        w->set_icmp_limit(1000, 50);
        ind = rte_pktmbuf_pool_create(("wi_ind" + std::to_string(seq)).c_str(), 255, 0, 0, 0, 0);
        ASSERT_NE(ind, nullptr);
        w->set_frag_pool(ind);
        tables();
    }

    void TearDown() override {
        for (ring_port* p : {&ce, &core, &ce_tap, &core_tap})
            close_ring_port(*p);
        w.reset();
        adj_view::destroy(adj.exchange(nullptr));
        rte_mempool_free(hdr);
        rte_mempool_free(ind);
    }

    ring_port make_port(const char* name) { return open_ring_port(std::string("wi_") + name + std::to_string(seq++)); }

    void tables() {
        r.upsert_route(route("fc00:12::/64", {via(nullptr, 12)}));
        r.upsert_route(route("fc00:0:2::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(route("fc00:0:9::/48", {via("fc00:12::2", 12)}));
        r.upsert_route(sid("fc00:0:1::1/128", rib::behavior::end, 12));
        r.upsert_route(sid("fc00:0:1::10/128", rib::behavior::end_dt4, 11, [](rib::seg6local& l) { l.vrftable = 10; }));
        r.upsert_route(sid("fc00:0:1::11/128", rib::behavior::end_dt6, 11, [](rib::seg6local& l) { l.table = 10; }));
        r.upsert_route(sid("fc00:0:1::13/128", rib::behavior::end_dx4, 11,
                           [](rib::seg6local& l) { l.nh4 = test::a4("10.1.0.2"); }));
        r.upsert_route(route("10.1.0.0/24", {via(nullptr, 11)}, 10));
        r.upsert_route(route("fd01::/64", {via(nullptr, 11)}, 10));
        r.upsert_route(route("10.99.0.0/16", {encap(rib::encap_mode::encap_red, {"fc00:0:2::d4"})}, 10));
        r.upsert_route(route("fd99::/16", {encap(rib::encap_mode::encap, {"fc00:0:2::1", "fc00:0:9::1", "fc00:0:2::d6"})}, 10));
        ASSERT_TRUE(c.compile(r, reg, src));
        // Quiet tables republished flat, as srv6d has them in the steady state (the other
        // worker tests keep the two-level form of freshly changed tables).
        while (c.settling())
            c.compile(r, reg, src);
    }

    // One frame in on `in`, exactly `want` out of `at`, nothing anywhere else.
    void expect_one(const ring_port& in, const bytes& frame, const ring_port& at, const bytes& want) {
        wtest::expect_one(*w, *counters, {&ce, &core, &ce_tap, &core_tap}, in, frame, &at, want);
    }
    uint64_t dropped(drop_reason why) const { return counters->drops[static_cast<size_t>(why)].get(); }
    uint64_t sent(icmp_kind k) const { return counters->icmp.sent[static_cast<size_t>(k)].get(); }
    std::string drops() const { return wtest::drop_summary(*counters); }
    // What an encapsulated frame out of core carries: the inner packet after `outer` bytes.
    static bytes inner_of(const bytes& frame, size_t outer) { return bytes(frame.begin() + 14 + static_cast<long>(outer), frame.end()); }

    static inline int seq = 0;
    fib::qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    fib::compiler c{rcu};
    fib::rcu_cell<adj_view> adj;
    vrf::vrf_id red = 0;
    ring_port ce, core, ce_tap, core_tap;
    std::vector<port_info> ports;
    std::vector<own_address> own;
    std::vector<neighbor> neighbors;
    rte_mempool* hdr = nullptr;
    rte_mempool* ind = nullptr;  // indirect mbufs for the headend's fragments
    std::unique_ptr<worker_counters> counters;
    std::unique_ptr<worker> w;
};

// Ingress, routed in the VRF: TTL 1 is answered from the VRF's address on the ingress port,
// back out of it (not handed to the host, whose view of the VRF may be another's).
TEST_F(worker_icmp_test, ttl_1_from_a_ce_gets_time_exceeded_from_the_vrf_address) {
    const bytes ip = ip4_packet("10.1.0.2", "10.99.1.5", 1, 40, 0xb8);
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip), ce,
               eth(mac_ce1, mac_ce_port, t_ipv4, icmp4("10.1.0.1", ip, 1, 11, 0, 0, ip.size())));
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 1u);
    EXPECT_EQ(dropped(drop_reason::ttl_expired), 1u);

    const bytes ip6 = ip6_packet(1, "fd01::2", "fd99::5", {test::layer{17, bytes(16, 0x33)}});
    const auto fd01_1 = a6("fd01::1");
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv6, ip6), ce,
               eth(mac_ce1, mac_ce_port, t_ipv6, icmp6(fd01_1.bytes.data(), ip6, 3, 0, 0, ip6.size())));
    EXPECT_EQ(sent(icmp_kind::ip6_time_exceeded), 1u);
}

// H.Encaps.Red with one SID adds 40 bytes: with a 1500-byte core, 1460 fits; a DF packet of
// 1461..1500 gets fragmentation needed with 1460, quoting 548 bytes (576 in all).
TEST_F(worker_icmp_test, headend_too_big_gets_fragmentation_needed_with_the_mtu_that_fits) {
    bytes fits = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1460 - 28);
    test::put16(fits, 6, 0x4000);  // DF
    test::put16(fits, 10, 0);
    test::put16(fits, 10, test::ip4_checksum(fits.data(), 20));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, fits));
    w->poll();
    ASSERT_EQ(out(core).size(), 1u) << drops();
    bytes big = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1472);  // 1500 bytes
    test::put16(big, 6, 0x4000);
    test::put16(big, 10, 0);
    test::put16(big, 10, test::ip4_checksum(big.data(), 20));
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv4, big), ce,
               eth(mac_ce1, mac_ce_port, t_ipv4, icmp4("10.1.0.1", big, 1, 3, 4, 1460, 548)));
    EXPECT_EQ(sent(icmp_kind::ip4_frag_needed), 1u);
    EXPECT_EQ(dropped(drop_reason::encap_mtu), 1u);
    EXPECT_EQ(counters->ip4_fragmented.get(), 0u) << "DF: never fragmented";
}

// RFC 791 §3.2 by hand: fragment `data_len` bytes from `data_off` of the data of IPv4 packet
// `orig` (its header `hl` bytes, `hl_out` in this fragment with `opts` as its options), more
// fragments after it or not, TTL decremented once (the router forwards it), checksum anew.
bytes fragment_of(const bytes& orig, size_t data_off, size_t data_len, bool mf, size_t hl = 20, size_t hl_out = 20,
                  const bytes& opts = {}) {
    bytes f(orig.begin(), orig.begin() + 20);
    f.insert(f.end(), opts.begin(), opts.end());
    f.resize(hl_out, 0);
    f[0] = static_cast<uint8_t>(0x40 | hl_out / 4);
    f.insert(f.end(), orig.begin() + static_cast<long>(hl + data_off),
             orig.begin() + static_cast<long>(hl + data_off + data_len));
    test::put16(f, 2, static_cast<uint16_t>(f.size()));
    const uint16_t field = static_cast<uint16_t>(orig[6] << 8 | orig[7]);
    const uint16_t off = static_cast<uint16_t>((field & 0x1fff) + data_off / 8);
    test::put16(f, 6, static_cast<uint16_t>(off | (mf || (field & 0x2000) ? 0x2000 : 0)));
    --f[8];
    test::put16(f, 10, 0);
    test::put16(f, 10, test::ip4_checksum(f.data(), hl_out));
    return f;
}

// Without DF, a packet that does not fit once encapsulated is fragmented before H.Encaps (the
// Linux headend drops it silently): 1500 bytes, 1460 fit: 1440 bytes of data (a multiple of
// 8) and the 40 left, each fragment encapsulated on its own, in order, with the flow's label.
TEST_F(worker_icmp_test, headend_fragments_ipv4_without_df_before_encapsulating) {
    const bytes big = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1472);  // 1500 bytes, no DF
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, big));
    w->poll();
    EXPECT_TRUE(out(ce).empty()) << "no error for a packet we can fragment";
    const auto got = out(core);
    ASSERT_EQ(got.size(), 2u) << drops();
    EXPECT_EQ(test::hex(inner_of(got[0], 40)), test::hex(fragment_of(big, 0, 1440, true)));
    EXPECT_EQ(test::hex(inner_of(got[1], 40)), test::hex(fragment_of(big, 1440, 40, false)));
    for (const bytes& g : got) {
        ASSERT_GE(g.size(), 14u + 40);
        EXPECT_EQ(g[14 + 6], 4) << "H.Encaps.Red of IPv4: next header 4";
        EXPECT_EQ(g[14 + 24 + 15], 0xd4) << "to the route's SID fc00:0:2::d4";
        EXPECT_EQ(static_cast<size_t>(g[14 + 4] << 8 | g[14 + 5]), g.size() - 14 - 40) << "payload length";
        EXPECT_EQ(test::hex(bytes(g.begin() + 15, g.begin() + 18)), test::hex(bytes(got[0].begin() + 15, got[0].begin() + 18)))
            << "one flow label for the fragments of one packet";
    }
    EXPECT_EQ(got[0].size(), 14u + 40 + 1460) << "exactly the MTU";
    EXPECT_EQ(counters->ip4_fragmented.get(), 1u);
    EXPECT_EQ(counters->ip4_fragments.get(), 2u);
    EXPECT_EQ(sent(icmp_kind::ip4_frag_needed), 0u);
    EXPECT_EQ(dropped(drop_reason::encap_mtu), 0u);
    EXPECT_EQ(counters->headend[static_cast<size_t>(rib::encap_mode::encap_red)].get(), 2u);
}

// A burst of 20 such packets makes 40 fragments: every one leaves, in the packets' order, and
// every indirect mbuf comes back.
TEST_F(worker_icmp_test, headend_fragments_a_whole_burst_in_order) {
    std::vector<bytes> sent_in;
    for (uint16_t i = 0; i < 20; ++i) {
        bytes b = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1472);
        test::put16(b, 4, static_cast<uint16_t>(0x100 + i));  // its identification
        test::put16(b, 10, 0);
        test::put16(b, 10, test::ip4_checksum(b.data(), 20));
        sent_in.push_back(b);
        send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, b));
    }
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 40u) << drops();
    for (size_t i = 0; i < 20; ++i) {
        EXPECT_EQ(test::hex(inner_of(got[2 * i], 40)), test::hex(fragment_of(sent_in[i], 0, 1440, true))) << i;
        EXPECT_EQ(test::hex(inner_of(got[2 * i + 1], 40)), test::hex(fragment_of(sent_in[i], 1440, 40, false))) << i;
    }
    EXPECT_EQ(counters->ip4_fragments.get(), 40u);
    EXPECT_EQ(rte_mempool_in_use_count(ind), 0u) << "every indirect mbuf back";
}

// RFC 791 §3.2: options whose copied flag is set go into every fragment, the others into the
// first only. Router Alert (148, copied) and a Record Route (7, not copied).
TEST_F(worker_icmp_test, headend_fragments_copy_only_the_copied_options) {
    const bytes plain = ip4_packet("10.1.0.2", "10.99.1.5", 64, 1472 - 12);
    const bytes ra{148, 4, 0, 0}, rr{7, 7, 4, 0, 0, 0, 0, 0};  // RR (7 bytes) + end of list
    bytes big(plain.begin(), plain.begin() + 20);
    big.insert(big.end(), ra.begin(), ra.end());
    big.insert(big.end(), rr.begin(), rr.end());
    big.insert(big.end(), plain.begin() + 20, plain.end());
    big[0] = 0x48;  // IHL 8: 32 bytes
    test::put16(big, 2, static_cast<uint16_t>(big.size()));
    test::put16(big, 10, 0);
    test::put16(big, 10, test::ip4_checksum(big.data(), 32));
    ASSERT_EQ(big.size(), 1500u);
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, big));
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 2u) << drops();
    bytes opts(ra);
    opts.insert(opts.end(), rr.begin(), rr.end());
    // 1460 fit: the first carries 1424 bytes of data (1460 - 32, down to a multiple of 8)
    EXPECT_EQ(test::hex(inner_of(got[0], 40)), test::hex(fragment_of(big, 0, 1424, true, 32, 32, opts)));
    EXPECT_EQ(test::hex(inner_of(got[1], 40)), test::hex(fragment_of(big, 1424, 1468 - 1424, false, 32, 24, ra)));
}

// H.Encaps with three SIDs: 40 + 8 + 48 = 96 bytes; packet too big says 1404, quotes 1232
// (IPv6: only its source fragments).
TEST_F(worker_icmp_test, headend_too_big_gets_packet_too_big_for_ipv6) {
    const bytes big = ip6_packet(64, "fd01::2", "fd99::5", {test::layer{17, bytes(1440, 0x44)}});  // 1488
    const auto fd01_1 = a6("fd01::1");
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv6, big), ce,
               eth(mac_ce1, mac_ce_port, t_ipv6, icmp6(fd01_1.bytes.data(), big, 2, 0, 1404, 1232)));
    EXPECT_EQ(sent(icmp_kind::ip6_packet_too_big), 1u);
}

// H.Insert with three SIDs: an SRH of 8 + 4·16 = 72 bytes; packet too big says 1428, as for
// H.Encaps the size the packet may have before the SRH goes in.
TEST_F(worker_icmp_test, insert_too_big_gets_packet_too_big) {
    r.upsert_route(route("fd98::/16", {encap(rib::encap_mode::inline_srh, {"fc00:0:2::1", "fc00:0:9::1", "fc00:0:2::d6"})}, 10));
    ASSERT_TRUE(c.compile(r, reg, src));
    const bytes big = ip6_packet(64, "fd01::2", "fd98::5", {test::layer{17, bytes(1440, 0x44)}});  // 1488
    const auto fd01_1 = a6("fd01::1");
    expect_one(ce, eth(mac_ce_port, mac_ce1, t_ipv6, big), ce,
               eth(mac_ce1, mac_ce_port, t_ipv6, icmp6(fd01_1.bytes.data(), big, 2, 0, 1428, 1232)));
    EXPECT_EQ(sent(icmp_kind::ip6_packet_too_big), 1u);
}

// End.DT4: the inner TTL expires in the VRF; the error goes back through the VPN (routed in
// red: H.Encaps.Red to fc00:0:2::d4), from red's address.
TEST_F(worker_icmp_test, decapsulated_ttl_1_gets_time_exceeded_through_the_vpn) {
    const test::layer in4 = inner4("10.99.7.7", "10.1.0.2", 1);
    const bytes frame = eth(mac_core_port, mac_p, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {in4}));
    send(core, frame);
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 1u) << drops();
    EXPECT_EQ(test::hex(inner_of(got[0], 40)), test::hex(icmp4("10.1.0.1", in4.b, 1, 11, 0, 0, in4.b.size())));
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 1u);
    EXPECT_TRUE(out(ce).empty());
}

// End.DT6 (with the SRH a Linux headend writes for one SID): the same for IPv6, from fd01::1.
TEST_F(worker_icmp_test, end_dt6_hop_limit_1_gets_time_exceeded_through_the_vpn) {
    const test::layer in6 = {41, ip6_packet(1, "fd99::7", "fd01::2", {test::layer{17, test_support::udp(4000, 33437, bytes(11, 7))}})};
    send(core, eth(mac_core_port, mac_p, t_ipv6, ip6_packet(63, "fc00:0:9::1", "fc00:0:1::11", {srh(0, {"fc00:0:1::11"}), in6})));
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 1u) << drops();
    const auto fd01_1 = a6("fd01::1");
    EXPECT_EQ(test::hex(inner_of(got[0], 96)), test::hex(icmp6(fd01_1.bytes.data(), in6.b, 3, 0, 0, in6.b.size())));
    EXPECT_EQ(sent(icmp_kind::ip6_time_exceeded), 1u);
}

// End.DX4: the same for the inner packet on its way to the adjacency (red's port).
TEST_F(worker_icmp_test, end_dx4_inner_ttl_1_gets_time_exceeded_in_the_adjacency_vrf) {
    const test::layer in4 = inner4("10.99.7.7", "10.1.0.2", 1);
    send(core, eth(mac_core_port, mac_p, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::13", {in4})));
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 1u) << drops();
    EXPECT_EQ(test::hex(inner_of(got[0], 40)), test::hex(icmp4("10.1.0.1", in4.b, 1, 11, 0, 0, in4.b.size())));
}

// A transit End with hop limit 1 (RFC 8986 §4.1 S05-S07): time exceeded from the SID to the
// outer source, in the default VRF.
TEST_F(worker_icmp_test, transit_end_hop_limit_1_gets_time_exceeded_from_the_sid) {
    const bytes in = ip6_packet(1, "fc00:0:9::1", "fc00:0:1::1",
                                {srh(1, {"fc00:0:2::d6", "fc00:0:1::1"}), inner4("10.9.0.1", "10.1.0.2")});
    const auto sid = a6("fc00:0:1::1");
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, in), core,
               eth(mac_p, mac_core_port, t_ipv6, icmp6(sid.bytes.data(), in, 3, 0, 0, in.size())));
    EXPECT_EQ(dropped(drop_reason::ttl_expired), 1u);
}

// A gateway's exit, once the worker remembers it (worker_l2.hh), still checks each packet as
// the first: hop limit 1 gets time exceeded, a packet over the port's MTU packet too big, both
// from the default VRF's address, and the rest leaves with its hop limit decremented.
TEST_F(worker_icmp_test, a_remembered_gateway_still_checks_each_packets_hop_limit_and_mtu) {
    const auto ours = a6("fc00:12::1");
    const bytes ok = ip6_packet(64, "fc00:0:9::1", "fc00:0:2::5", {test::layer{17, bytes(16, 1)}});
    const bytes ok_out = eth(mac_p, mac_core_port, t_ipv6, ttl_minus_one(ok));
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, ok), core, ok_out);
    const bytes hl1 = ip6_packet(1, "fc00:0:9::1", "fc00:0:2::5", {test::layer{17, bytes(16, 2)}});
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, hl1), core,
               eth(mac_p, mac_core_port, t_ipv6, icmp6(ours.bytes.data(), hl1, 3, 0, 0, hl1.size())));
    const bytes big = ip6_packet(64, "fc00:0:9::1", "fc00:0:2::5", {test::layer{17, bytes(1500 - 40 + 1, 3)}});
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, big), core,
               eth(mac_p, mac_core_port, t_ipv6, icmp6(ours.bytes.data(), big, 2, 0, 1500, 1232)));
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, ok), core, ok_out);
    EXPECT_EQ(sent(icmp_kind::ip6_time_exceeded), 1u);
    EXPECT_EQ(sent(icmp_kind::ip6_packet_too_big), 1u);
    EXPECT_EQ(dropped(drop_reason::ttl_expired), 1u);
    EXPECT_EQ(dropped(drop_reason::mtu_exceeded), 1u);
}

// RFC 8754 §4.3.1.1 / RFC 8986 §4.1 S09: Segments Left > Last Entry + 1: parameter problem,
// code 0, pointing at Segments Left (40 + 3).
TEST_F(worker_icmp_test, srh_segments_left_past_the_list_gets_parameter_problem) {
    bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1", {srh(1, {"fc00:0:2::d6", "fc00:0:1::1"})});
    in[40 + 3] = 5;
    const auto sid = a6("fc00:0:1::1");
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, in), core,
               eth(mac_p, mac_core_port, t_ipv6, icmp6(sid.bytes.data(), in, 4, 0, 43, in.size())));
    EXPECT_EQ(sent(icmp_kind::ip6_param_problem), 1u);
    EXPECT_EQ(dropped(drop_reason::srh_segments_left), 1u);
}

// RFC 8986 §4.1.1: End with Segments Left 0 and an upper layer it does not process: code 4
// (SR upper-layer header error), pointing at the upper-layer header (40 + 24: after the SRH).
TEST_F(worker_icmp_test, end_with_an_upper_layer_gets_sr_upper_layer_error) {
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::1",
                                {srh(0, {"fc00:0:1::1"}), test::layer{17, test_support::udp(1, 2, bytes(8, 1))}});
    const auto sid = a6("fc00:0:1::1");
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, in), core,
               eth(mac_p, mac_core_port, t_ipv6, icmp6(sid.bytes.data(), in, 4, 4, 64, in.size())));
}

// End.DT6 with Segments Left 1 (RFC 8986 §4.6 S02): parameter problem at Segments Left.
TEST_F(worker_icmp_test, decapsulation_with_segments_left_gets_parameter_problem) {
    const bytes in = ip6_packet(64, "fc00:0:9::1", "fc00:0:1::11",
                                {srh(1, {"fc00:0:2::d6", "fc00:0:1::11"}), inner6("fd09::1", "fd01::2")});
    const auto sid = a6("fc00:0:1::11");
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, in), core,
               eth(mac_p, mac_core_port, t_ipv6, icmp6(sid.bytes.data(), in, 4, 0, 43, in.size())));
    EXPECT_EQ(dropped(drop_reason::srh_sl_nonzero), 1u);
}

// No error about an error, none for a non-initial fragment (RFC 1812 §4.3.2.7).
TEST_F(worker_icmp_test, never_an_error_about_an_error_or_a_later_fragment) {
    bytes err = icmp4("10.1.0.7", ip4_packet("10.99.1.1", "10.1.0.2", 64), 7, 11, 0, 0, 32);
    err[8] = 1;  // TTL 1
    test::put16(err, 10, 0);
    test::put16(err, 10, test::ip4_checksum(err.data(), 20));
    bytes frag = ip4_packet("10.1.0.2", "10.99.1.5", 1);
    test::put16(frag, 6, 0x0010);
    test::put16(frag, 10, 0);
    test::put16(frag, 10, test::ip4_checksum(frag.data(), 20));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, err));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, frag));
    w->poll();
    EXPECT_TRUE(out(ce).empty());
    EXPECT_TRUE(out(core).empty());
    EXPECT_EQ(dropped(drop_reason::ttl_expired), 2u);
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 0u);
}

// The token bucket: its burst, then nothing until it refills; counted as rate_limited.
TEST_F(worker_icmp_test, rate_limit_per_worker_passes_the_burst_and_counts_the_rest) {
    w->set_icmp_limit(1, 3);
    for (int i = 0; i < 10; ++i)
        send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_EQ(out(ce).size(), 3u);
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 3u);
    EXPECT_EQ(counters->icmp.rate_limited.get(), 7u);
    EXPECT_EQ(dropped(drop_reason::ttl_expired), 10u);
    w->set_icmp_limit(0, 1);  // none at all
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_TRUE(out(ce).empty());
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 3u);
}

// A reload's limit (dataplane.icmp-rate / icmp-burst) comes with the adjacency snapshot: the
// worker takes it at its next burst; a view without one leaves the worker's own.
TEST_F(worker_icmp_test, the_limit_published_with_the_view_reaches_the_worker) {
    adj_view::destroy(adj.exchange(adj_view::create(ports, neighbors, 2, own, {}, icmp_limit{1, 3})));
    for (int i = 0; i < 10; ++i)
        send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 3u);
    EXPECT_EQ(counters->icmp.rate_limited.get(), 7u);
    (void)out(ce);  // drained
    // The same limit in a newer view (a neighbor changed): the bucket is not refilled.
    adj_view::destroy(adj.exchange(adj_view::create(ports, neighbors, 3, own, {}, icmp_limit{1, 3})));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 3u);
    // rate 0: none at all.
    adj_view::destroy(adj.exchange(adj_view::create(ports, neighbors, 4, own, {}, icmp_limit{0, 1})));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 3u);
    // Raised: a burst of 50 goes at once.
    adj_view::destroy(adj.exchange(adj_view::create(ports, neighbors, 5, own, {}, icmp_limit{1000, 50})));
    for (int i = 0; i < 20; ++i)
        send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_EQ(sent(icmp_kind::ip4_time_exceeded), 23u);
}

// A VRF without an address of ours: nothing to send from, counted.
TEST_F(worker_icmp_test, no_source_address_in_the_vrf_sends_nothing) {
    own.erase(own.begin(), own.begin() + 3);  // red's addresses
    adj_view::destroy(adj.exchange(adj_view::create(ports, neighbors, 2, own)));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 1)));
    w->poll();
    EXPECT_TRUE(out(ce).empty());
    EXPECT_EQ(counters->icmp.no_source.get(), 1u);
    EXPECT_EQ(dropped(drop_reason::ttl_expired), 1u);
}

// Own addresses reached through the VPN (decapsulated): an echo request is answered here and
// the reply goes back through the VPN; anything else goes to the mirror of the port that
// carries the address, framed for it.
TEST_F(worker_icmp_test, own_vrf_address_through_the_vpn_answers_echo_and_punts_the_rest) {
    bytes echo = {0x45, 0, 0, 28, 0x12, 0x34, 0, 0, 61, 1, 0, 0, 10, 99, 7, 7, 10, 1, 0, 1,
                  8, 0, 0, 0, 0x0b, 0xcd, 0, 1};
    test::put16(echo, 10, test::ip4_checksum(echo.data(), 20));
    test::put16(echo, 22, fold_not(sum16(echo.data() + 20, 8)));
    send(core, eth(mac_core_port, mac_p, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::10", {test::layer{4, echo}})));
    w->poll();
    const auto got = out(core);
    ASSERT_EQ(got.size(), 1u) << drops();
    bytes reply = {0x45, 0, 0, 28, 0x12, 0x34, 0, 0, 64, 1, 0, 0, 10, 1, 0, 1, 10, 99, 7, 7, 0, 0, 0, 0, 0x0b, 0xcd, 0, 1};
    test::put16(reply, 10, test::ip4_checksum(reply.data(), 20));
    test::put16(reply, 22, fold_not(sum16(reply.data() + 20, 8)));
    EXPECT_EQ(test::hex(inner_of(got[0], 40)), test::hex(reply));
    EXPECT_EQ(sent(icmp_kind::ip4_echo_reply), 1u);

    const test::layer udp = {17, test_support::udp(5, 6, bytes(8, 9))};
    const bytes to_us = ip6_packet(64, "fd99::7", "fd01::1", {udp});
    expect_one(core, eth(mac_core_port, mac_p, t_ipv6, ip6_packet(64, "fc00:0:9::1", "fc00:0:1::11", {{41, to_us}})),
               ce_tap, eth(mac_ce_port, mac_ce_port, t_ipv6, to_us));
    EXPECT_EQ(counters->ports[ce.id].punted.get(), 1u);
    EXPECT_EQ(dropped(drop_reason::neigh_unresolved), 0u) << "not a neighbor of ours: us";
}

// IPv4 fragments from a CE are forwarded as received: each one encapsulated on its own; one too
// big for the core (no DF) is fragmented further, its offsets from its own, MF kept but in the
// last piece of the original's last fragment (RFC 791 §3.2).
TEST_F(worker_icmp_test, ipv4_fragments_are_encapsulated_one_by_one) {
    auto fragment = [](uint16_t frag_field, size_t payload) {
        bytes f = ip4_packet("10.1.0.2", "10.99.1.5", 64, payload);
        test::put16(f, 6, frag_field);
        test::put16(f, 10, 0);
        test::put16(f, 10, test::ip4_checksum(f.data(), 20));
        return f;
    };
    const bytes first = fragment(0x2000, 1472), middle = fragment(0x2000 | 185, 1472), last = fragment(370, 600);
    for (const bytes* f : {&first, &middle, &last})
        send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, *f));
    w->poll();
    // 1500 + 40 does not fit the 1500-byte core: the first and the middle one (no DF) are
    // fragmented further (offsets from theirs, MF kept), the last fits as it is.
    EXPECT_TRUE(out(ce).empty()) << drops();
    const auto sent_out = out(core);
    ASSERT_EQ(sent_out.size(), 5u) << drops();
    EXPECT_EQ(test::hex(inner_of(sent_out[0], 40)), test::hex(fragment_of(first, 0, 1440, true)));
    EXPECT_EQ(test::hex(inner_of(sent_out[1], 40)), test::hex(fragment_of(first, 1440, 40, true)));
    EXPECT_EQ(test::hex(inner_of(sent_out[2], 40)), test::hex(fragment_of(middle, 0, 1440, true)));
    EXPECT_EQ(test::hex(inner_of(sent_out[3], 40)), test::hex(fragment_of(middle, 1440, 40, true)));
    EXPECT_EQ(test::hex(inner_of(sent_out[4], 40)), test::hex(fragment_of(last, 0, 608, false)))
        << "the last fragment, as received (TTL - 1)";
    EXPECT_EQ(dropped(drop_reason::encap_mtu), 0u);

    // Fragments that fit are each encapsulated.
    const bytes a = fragment(0x2000, 1400), b = fragment(176, 1000);
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, a));
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, b));
    w->poll();
    EXPECT_EQ(out(core).size(), 2u) << drops();
}

// Ports are promiscuous: a unicast frame for another station is not routed (counted); a
// broadcast (ARP) still goes to the host.
TEST_F(worker_icmp_test, unicast_frame_for_another_mac_is_dropped_broadcast_is_not) {
    const mac_addr other{{0x02, 0, 0, 0, 0x77, 0x77}};
    send(ce, eth(other, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64)));
    w->poll();
    EXPECT_TRUE(out(core).empty());
    EXPECT_EQ(dropped(drop_reason::l2_other_station), 1u);
    // Addresses that differ from the port's in one byte only, at either end (the check compares
    // the six bytes as one word).
    for (size_t at : {size_t{1}, size_t{5}}) {
        mac_addr near = mac_ce_port;
        near.bytes[at] ^= 0x40;
        send(ce, eth(near, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64)));
        w->poll();
        EXPECT_TRUE(out(core).empty()) << at;
    }
    EXPECT_EQ(dropped(drop_reason::l2_other_station), 3u);
    const mac_addr bcast{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
    const bytes arp = eth(bcast, mac_ce1, 0x0806, bytes(28, 1));
    expect_one(ce, arp, ce_tap, arp);
    send(ce, eth(mac_ce_port, mac_ce1, t_ipv4, ip4_packet("10.1.0.2", "10.99.1.5", 64)));
    w->poll();
    EXPECT_EQ(out(core).size(), 1u) << "to our MAC: routed";
}

}  // namespace
}  // namespace fwd
