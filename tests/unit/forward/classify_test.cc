// The classify fast path (plain_frame) against the full path it short-cuts (for_other_station,
// the VLAN test, check_l3, for_host) on real mbufs: every frame it accepts the full path accepts
// with the same family and the same trimmed lengths, and the frames almost all traffic is
// (unicast IPv4 without options, IPv6 without hop-by-hop) do take it.
#include "forward/datapath/worker_classify.hh"

#include <gtest/gtest.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

namespace fwd {
namespace SRV6D_UNITY_ID {

constexpr std::array<uint8_t, 6> port_mac = {0x02, 0, 0, 0, 0, 0x11};

rte_mempool* pool() {
    static rte_mempool* p = rte_pktmbuf_pool_create("classify_pkts", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    return p;
}

rte_mbuf* mbuf_of(const std::vector<uint8_t>& f, uint16_t data_len, uint32_t pkt_len, uint64_t flags) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool());
    if (m == nullptr)
        return nullptr;
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), f.data(), f.size());
    m->data_len = data_len;
    m->pkt_len = pkt_len;
    m->ol_flags = flags;
    return m;
}

// The full path's verdict, in run()'s order: 0 or the family of a packet to look up.
uint8_t full_verdict(rte_mbuf* m, bool rx_vlan_hw) {
    if (m->data_len < eth_len)
        return 0;
    const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
    if (for_other_station(d, mac_word(port_mac.data())))
        return 0;
    const uint16_t type = load_be16(d + 12);
    if ((rx_vlan_hw && (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) || type == ether_vlan || type == ether_qinq)
        return 0;  // a sub-port's (or tag 0's): not what the fast path takes
    const uint8_t af = type == ether_ipv4 ? 4 : type == ether_ipv6 ? 6 : 0;
    drop_reason why{};
    if (af == 0 || !check_l3(m, eth_len, af, why, true) || for_host(d + eth_len, af))
        return 0;
    return af;
}

std::vector<uint8_t> ipv4_frame(const std::array<uint8_t, 6>& dst, uint32_t daddr, uint16_t payload) {
    std::vector<uint8_t> f(14 + 20 + payload, 0);
    std::memcpy(f.data(), dst.data(), 6);
    f[6] = 0x02;
    f[11] = 0x22;
    f[12] = 0x08;
    auto* ip = f.data() + 14;
    ip[0] = 0x45;
    const uint16_t len = static_cast<uint16_t>(20 + payload);
    ip[2] = static_cast<uint8_t>(len >> 8);
    ip[3] = static_cast<uint8_t>(len);
    ip[8] = 64;
    ip[9] = 17;
    ip[12] = 10;
    ip[15] = 1;
    const uint32_t be = rte_cpu_to_be_32(daddr);
    std::memcpy(ip + 16, &be, 4);
    const uint16_t c = static_cast<uint16_t>(~rte_raw_cksum(ip, 20));
    std::memcpy(ip + 10, &c, 2);
    return f;
}

std::vector<uint8_t> ipv6_frame(const std::array<uint8_t, 6>& dst, uint8_t first_byte, uint8_t next_header,
                                uint16_t payload) {
    std::vector<uint8_t> f(14 + 40 + payload, 0);
    std::memcpy(f.data(), dst.data(), 6);
    f[6] = 0x02;
    f[11] = 0x22;
    f[12] = 0x86;
    f[13] = 0xdd;
    auto* ip = f.data() + 14;
    ip[0] = 0x60;
    ip[4] = static_cast<uint8_t>(payload >> 8);
    ip[5] = static_cast<uint8_t>(payload);
    ip[6] = next_header;
    ip[7] = 64;
    ip[8] = 0xfd;
    ip[24] = first_byte;
    ip[39] = 1;
    return f;
}

struct outcome {
    uint8_t af;
    uint16_t data_len;
    uint32_t pkt_len;
};

// Both paths on copies of one frame; the fast path's result must be 0 or the full path's.
outcome check_agree(const std::vector<uint8_t>& f, uint16_t data_len, uint32_t pkt_len, uint64_t flags, bool rx_vlan_hw) {
    rte_mbuf* a = mbuf_of(f, data_len, pkt_len, flags);
    rte_mbuf* b = mbuf_of(f, data_len, pkt_len, flags);
    EXPECT_NE(a, nullptr);
    EXPECT_NE(b, nullptr);
    if (a == nullptr || b == nullptr) {
        rte_pktmbuf_free(a);
        rte_pktmbuf_free(b);
        return {};
    }
    const uint64_t vlan_flag = rx_vlan_hw ? RTE_MBUF_F_RX_VLAN_STRIPPED : 0;
    const uint8_t fast = plain_frame(a, rte_pktmbuf_mtod(a, const uint8_t*), mac_word(port_mac.data()), vlan_flag);
    const uint8_t full = full_verdict(b, rx_vlan_hw);
    if (fast != 0) {
        EXPECT_EQ(fast, full);
        EXPECT_EQ(a->data_len, b->data_len);
        EXPECT_EQ(a->pkt_len, b->pkt_len);
    } else {
        EXPECT_EQ(a->data_len, data_len);  // untouched: the full path starts from the frame as received
        EXPECT_EQ(a->pkt_len, pkt_len);
    }
    const outcome o{fast, a->data_len, a->pkt_len};
    rte_pktmbuf_free(a);
    rte_pktmbuf_free(b);
    return o;
}

outcome check_agree(const std::vector<uint8_t>& f, uint64_t flags = 0) {
    return check_agree(f, static_cast<uint16_t>(f.size()), static_cast<uint32_t>(f.size()), flags, false);
}

TEST(Classify, usual_frames_take_the_fast_path) {
    EXPECT_EQ(check_agree(ipv4_frame(port_mac, 0x0a630001, 8)).af, 4);
    EXPECT_EQ(check_agree(ipv4_frame(port_mac, 0x0a630001, 8), RTE_MBUF_F_RX_IP_CKSUM_GOOD).af, 4);
    EXPECT_EQ(check_agree(ipv6_frame(port_mac, 0xfd, 17, 8)).af, 6);
    EXPECT_EQ(check_agree(ipv6_frame(port_mac, 0xfc, 43, 48)).af, 6);  // an SRv6 packet: SRH, not hop-by-hop
    // Ethernet padding: a 20-byte IPv4 packet in a 60-byte frame leaves trimmed to its length.
    std::vector<uint8_t> padded = ipv4_frame(port_mac, 0x0a630001, 0);
    padded.resize(60, 0);
    const outcome o = check_agree(padded);
    EXPECT_EQ(o.af, 4);
    EXPECT_EQ(o.pkt_len, 34u);
    EXPECT_EQ(o.data_len, 34u);
}

TEST(Classify, frames_the_full_path_must_judge_are_left_to_it) {
    const std::array<uint8_t, 6> other = {0x02, 0, 0, 0, 0, 0x99}, bcast = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    EXPECT_EQ(check_agree(ipv4_frame(other, 0x0a630001, 8)).af, 0);            // another station's
    EXPECT_EQ(check_agree(ipv4_frame(bcast, 0xffffffff, 8)).af, 0);            // broadcast
    EXPECT_EQ(check_agree(ipv4_frame(port_mac, 0xe0000005, 8)).af, 0);         // multicast: the host's
    EXPECT_EQ(check_agree(ipv4_frame(port_mac, 0x0a630001, 8), RTE_MBUF_F_RX_IP_CKSUM_BAD).af, 0);
    std::vector<uint8_t> bad_sum = ipv4_frame(port_mac, 0x0a630001, 8);
    bad_sum[14 + 10] ^= 1;
    EXPECT_EQ(check_agree(bad_sum).af, 0);
    std::vector<uint8_t> options = ipv4_frame(port_mac, 0x0a630001, 8);
    options[14] = 0x46;
    EXPECT_EQ(check_agree(options).af, 0);
    std::vector<uint8_t> long_len = ipv4_frame(port_mac, 0x0a630001, 8);
    long_len[14 + 3] = 29;  // one byte more than the frame holds
    EXPECT_EQ(check_agree(long_len).af, 0);
    EXPECT_EQ(check_agree(ipv6_frame(port_mac, 0xff, 58, 8)).af, 0);  // multicast (ND)
    std::vector<uint8_t> link_local = ipv6_frame(port_mac, 0xfe, 58, 8);
    EXPECT_EQ(check_agree(link_local).af, 6);  // fe00::/9 is not link-local
    link_local[14 + 25] = 0x80;
    EXPECT_EQ(check_agree(link_local).af, 0);  // fe80::/10 is
    EXPECT_EQ(check_agree(ipv6_frame(port_mac, 0xfd, 0, 8)).af, 0);   // hop-by-hop options
    EXPECT_EQ(check_agree(ipv6_frame(port_mac, 0xfd, 0, 0)).af, 0);   // a jumbogram's shape
    std::vector<uint8_t> tagged = ipv4_frame(port_mac, 0x0a630001, 8);
    tagged.insert(tagged.begin() + 12, {0x81, 0x00, 0x00, 0x0a});
    EXPECT_EQ(check_agree(tagged).af, 0);
    // A tag the NIC stripped, on a port that strips them: the sub-port's frame.
    const std::vector<uint8_t> plain = ipv4_frame(port_mac, 0x0a630001, 8);
    EXPECT_EQ(check_agree(plain, static_cast<uint16_t>(plain.size()), static_cast<uint32_t>(plain.size()),
                          RTE_MBUF_F_RX_VLAN_STRIPPED, true).af,
              0);
    // Headers cut short by the first segment: 20 bytes of IPv6 are not a header.
    const std::vector<uint8_t> v6 = ipv6_frame(port_mac, 0xfd, 17, 8);
    EXPECT_EQ(check_agree(v6, 14 + 20, static_cast<uint32_t>(v6.size()), 0, false).af, 0);
}

// Random corruption of the header bytes, lengths and NIC flags of both families: the two paths
// never disagree on a frame the fast path takes, and the fast path takes the intact ones.
TEST(Classify, fuzz_the_fast_path_never_accepts_what_the_full_path_refuses) {
    std::mt19937 rng(2026);
    const auto rnd = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    const uint64_t flag_choices[] = {0, RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD,
                                     RTE_MBUF_F_RX_IP_CKSUM_NONE, RTE_MBUF_F_RX_VLAN_STRIPPED};
    const uint32_t rounds = 60000;
    uint32_t taken = 0;
    for (uint32_t r = 0; r < rounds; ++r) {
        const auto payload = static_cast<uint16_t>(8 + rnd(40));
        std::vector<uint8_t> f = r % 2 == 0 ? ipv4_frame(port_mac, 0x0a000000u | rnd(1u << 24), payload)
                                            : ipv6_frame(port_mac, static_cast<uint8_t>(rnd(256)), 17, payload);
        const auto size = static_cast<uint32_t>(f.size());
        const uint32_t flips = rnd(4);
        for (uint32_t k = 0; k < flips; ++k) {
            const uint32_t at = rnd(size < 64 ? size : 64);
            f[at] = rnd(2) != 0 ? static_cast<uint8_t>(rnd(256)) : static_cast<uint8_t>(f[at] ^ (1u << rnd(8)));
        }
        uint32_t pkt_len = size;
        if (rnd(4) == 0)
            pkt_len = size - rnd(size + 1);
        const auto data_len = static_cast<uint16_t>(rnd(8) == 0 ? pkt_len - rnd(pkt_len + 1) : pkt_len);
        const uint64_t flags = flag_choices[rnd(5)];
        if (check_agree(f, data_len, pkt_len, flags, rnd(2) == 0).af != 0)
            ++taken;
        if (::testing::Test::HasFailure())
            FAIL() << "round " << r;
    }
    // The uncorrupted rounds (about a quarter) and harmless corruptions go the fast way.
    EXPECT_GT(taken, rounds / 8);
}

}  // namespace SRV6D_UNITY_ID
}  // namespace fwd
