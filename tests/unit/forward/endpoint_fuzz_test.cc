// Random corruption of valid SRv6 packets through every behavior. Each packet sits in an
// external buffer of exactly its size (rte_pktmbuf_attach_extbuf on heap memory), so under
// ASan (SRV6D_SANITIZE=ON) a read or write past the packet is reported; in every build the
// result must be coherent with what the action promises.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "forward/datapath/srv6_endpoint.hh"
#include "tests/unit/forward/endpoint_pkt.hh"

namespace fwd::test {
namespace SRV6D_UNITY_ID {

void no_free(void*, void*) {}

// `b` copied into a heap buffer of headroom + exactly b.size() bytes, attached to an mbuf.
struct ext_packet {
    std::unique_ptr<uint8_t[]> buf;
    rte_mbuf_ext_shared_info shinfo{};
    rte_mbuf* m = nullptr;

    explicit ext_packet(const bytes& b) : buf(new uint8_t[RTE_PKTMBUF_HEADROOM + b.size()]) {
        shinfo.free_cb = no_free;
        rte_mbuf_ext_refcnt_set(&shinfo, 1);
        m = rte_pktmbuf_alloc(pool());
        if (m == nullptr)
            return;
        const auto len = static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + b.size());
        rte_pktmbuf_attach_extbuf(m, buf.get(), 0, len, &shinfo);
        rte_pktmbuf_reset_headroom(m);
        if (!b.empty())
            std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(b.size())), b.data(), b.size());
    }
    ~ext_packet() {
        if (m != nullptr)
            rte_pktmbuf_free(m);
    }
    ext_packet(const ext_packet&) = delete;
    ext_packet& operator=(const ext_packet&) = delete;
};

TEST(EndpointFuzz, CorruptedPacketsStayInBoundsAndCoherent) {
    const layer in4 = inner4("10.1.0.1", "10.2.0.1");
    const layer in6 = inner6("fd01::1", "fd02::1");
    const std::vector<bytes> seeds = {
        ip6_packet(64, "fc00::1", "fc00:0:1::e", {srh(2, {"fc00:0:3::1", "fc00:0:2::1", "fc00:0:1::e"}), in4}),
        ip6_packet(64, "fc00::1", "fc00:0:1::e", {srh(1, {"fc00:0:2::1", "fc00:0:1::e"}), in6}),
        ip6_packet(64, "fc00::1", "fc00:0:1::e", {srh(0, {"fc00:0:1::e"}), in6}),
        ip6_packet(64, "fc00::1", "fc00:0:1::e", {opts(0), opts(60), srh(1, {"fc00::2", "fc00::3"}), opts(60), in4}),
        ip6_packet(64, "fc00::1", "fc00:0:1:2:3::", {in4}),
        ip6_packet(64, "fc00::1", "fc00:0:1::", {in6}),
        ip6_packet(64, "fc00::1", "fc00:0:1::", {frag(0, false), in4}),
        // End.DX2's: an Ethernet frame, bare and behind an SRH at SL 0
        ip6_packet(64, "fc00::1", "fc00:0:1::d2", {{143, test::eth_frame(0x0800, in4.b)}}),
        ip6_packet(64, "fc00::1", "fc00:0:1::d2", {srh(0, {"fc00:0:1::d2"}), {143, test::eth_frame(0x86dd, in6.b)}}),
    };
    const rib::behavior behaviors[] = {rib::behavior::end,     rib::behavior::end_x,   rib::behavior::end_t,
                                       rib::behavior::end_dx4, rib::behavior::end_dx6, rib::behavior::end_dt4,
                                       rib::behavior::end_dt6, rib::behavior::end_dt46, rib::behavior::end_b6_encaps,
                                       rib::behavior::end_dx2, rib::behavior::end_dx2};  // twice: two seeds of its own
    std::mt19937 rng(20240601);
    size_t outcomes[8] = {};
    for (int iter = 0; iter < 40000; ++iter) {
        bytes b = seeds[rng() % seeds.size()];
        switch (rng() % 4) {
        case 0:  // flip bytes in the headers
            for (unsigned n = 1 + rng() % 4; n; --n)
                b[rng() % std::min<size_t>(b.size(), 140)] = static_cast<uint8_t>(rng());
            break;
        case 1:  // cut, with or without a Payload Length that agrees
            b.resize(rng() % (b.size() + 1));
            if (b.size() >= 40 && rng() % 2)
                put16(b, 4, static_cast<uint16_t>(b.size() - 40));
            break;
        case 2:  // a header length field lies
            if (b.size() > 42)
                b[40 + 1] = static_cast<uint8_t>(rng());
            break;
        default:
            break;
        }
        // The outer version nibble is the input stage's check (it classified the packet as
        // IPv6 before the FIB lookup that found the SID); everything else is fair game.
        if (!b.empty())
            b[0] = static_cast<uint8_t>((b[0] & 0x0f) | 0x60);
        sid_params p;
        p.behavior = behaviors[rng() % std::size(behaviors)];
        p.flavors = static_cast<uint32_t>(rng()) & (rib::flavor::psp | rib::flavor::usp | rib::flavor::usd |
                                                    rib::flavor::next_csid);
        p.lcblock_bits = static_cast<uint8_t>(8 + rng() % 64);
        p.lcnode_fn_bits = static_cast<uint8_t>(8 + rng() % 32);
        p.vrf = 5;

        ext_packet x(b);
        ASSERT_NE(x.m, nullptr);
        const endpoint_result r = process_endpoint(x.m, p);
        ASSERT_LT(static_cast<size_t>(r.action), std::size(outcomes));
        ++outcomes[static_cast<size_t>(r.action)];
        if (r.action == endpoint_action::drop) {
            ASSERT_LT(static_cast<size_t>(r.reason), drop_reason_count);
            continue;
        }
        // The packet only shrinks, stays inside its buffer, and is what the action says.
        const rte_mbuf* m = x.m;
        ASSERT_LE(m->data_off + m->data_len, m->buf_len);
        ASSERT_EQ(m->pkt_len, m->data_len);
        ASSERT_LE(m->pkt_len, b.size());
        const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
        if (r.action == endpoint_action::send_l2) {  // a whole Ethernet header, a type, not a length
            ASSERT_GE(m->pkt_len, 14u);
            ASSERT_GE(d[12] << 8 | d[13], 0x0600);
            continue;
        }
        // End.X + USD sends an inner IPv4 packet to its IPv6 adjacency (send_v6).
        const bool v4 = r.action == endpoint_action::lookup_v4 || r.action == endpoint_action::send_v4 ||
                        (r.action == endpoint_action::send_v6 && d[0] >> 4 == 4);
        ASSERT_GE(m->pkt_len, v4 ? 20u : 40u);
        ASSERT_EQ(d[0] >> 4, v4 ? 4 : 6);
        const uint32_t announced = v4 ? static_cast<uint32_t>(d[2] << 8 | d[3]) : 40u + static_cast<uint32_t>(d[4] << 8 | d[5]);
        ASSERT_EQ(announced, m->pkt_len);
        if (r.action == endpoint_action::forward_v6 || r.action == endpoint_action::lookup_v4 ||
            r.action == endpoint_action::lookup_v6) {
            ASSERT_EQ(r.vrf, 5u);
        }
    }
    // The corpus reaches every action, so none of the checks above is vacuous.
    for (size_t i = 0; i < std::size(outcomes); ++i)
        EXPECT_GT(outcomes[i], 100u) << name(static_cast<endpoint_action>(i));
}

}  // namespace
}  // namespace fwd::test
