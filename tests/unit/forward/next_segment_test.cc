// The endpoint behaviors' short forms (srv6_endpoint_short.hh: next_segment_direct for End /
// End.X / End.T, decap_short for End.DT* / End.DX*) against process_endpoint's header walk, on
// real mbufs: every packet a short form takes, the walk decides the same, with the same bytes;
// every packet it leaves, it leaves untouched; and the usual packet takes it. The short forms
// share the walk's deciding code (next_segment_step, decap_inner); these hold the finding of
// the headers to it.
#include "forward/datapath/srv6_endpoint_short.hh"

#include <gtest/gtest.h>

#include <random>

#include "tests/unit/forward/endpoint_pkt.hh"

namespace fwd::test {
namespace SRV6D_UNITY_ID {

namespace flv = rib::flavor;

struct verdict {
    bool direct = false;
    endpoint_result full;
};

// Both paths on copies of `b`; `tail` bytes of it go into a second segment (0: one segment).
verdict check_agree(const bytes& b, rib::behavior beh, uint32_t flavors, size_t tail = 0) {
    const auto one = [&]() -> rte_mbuf* {
        if (tail == 0 || tail >= b.size())
            return mbuf_of(b);
        rte_mbuf* head = mbuf_of(bytes(b.begin(), b.end() - static_cast<std::ptrdiff_t>(tail)));
        rte_mbuf* rest = mbuf_of(bytes(b.end() - static_cast<std::ptrdiff_t>(tail), b.end()));
        if (head == nullptr || rest == nullptr || rte_pktmbuf_chain(head, rest) != 0) {
            rte_pktmbuf_free(head);
            rte_pktmbuf_free(rest);
            return nullptr;
        }
        return head;
    };
    rte_mbuf* a = one();
    rte_mbuf* f = one();
    EXPECT_NE(a, nullptr);
    EXPECT_NE(f, nullptr);
    verdict v;
    if (a == nullptr || f == nullptr) {
        rte_pktmbuf_free(a);
        rte_pktmbuf_free(f);
        return v;
    }
    sid_params sp;
    sp.behavior = beh;
    sp.flavors = flavors;
    sp.vrf = 7;
    v.direct = next_segment_direct(a, flavors);
    v.full = process_endpoint_walk(f, sp);
    if (v.direct) {
        EXPECT_EQ(v.full, next_segment_out(*rib::find_behavior(beh), sp.vrf));
        EXPECT_EQ(bytes_of(a), bytes_of(f)) << "direct:\n" << hex(bytes_of(a)) << "full:\n" << hex(bytes_of(f));
        EXPECT_EQ(a->pkt_len, f->pkt_len);
        EXPECT_EQ(a->data_len, f->data_len);
    } else {
        EXPECT_EQ(bytes_of(a), b);  // untouched: the walk starts from the packet as received
    }
    rte_pktmbuf_free(a);
    rte_pktmbuf_free(f);
    return v;
}

const layer in4 = inner4("10.1.0.1", "10.2.0.1");

bytes transit(uint8_t sl, uint8_t hl = 64) {
    return ip6_packet(hl, "fc00::1", "fc00:0:1::e", {srh(sl, {"fc00:0:3::1", "fc00:0:2::1", "fc00:0:1::e"}), in4});
}

TEST(NextSegmentDirect, usual_transit_packets_take_it) {
    for (const rib::behavior beh : {rib::behavior::end, rib::behavior::end_x, rib::behavior::end_t})
        for (const uint8_t sl : {uint8_t{1}, uint8_t{2}, uint8_t{3}}) {
            SCOPED_TRACE(testing::Message() << "behavior " << static_cast<int>(beh) << " SL " << int(sl));
            EXPECT_TRUE(check_agree(transit(sl), beh, 0).direct);
            EXPECT_TRUE(check_agree(transit(sl), beh, flv::usp | flv::usd).direct);  // only matter at SL 0
        }
    EXPECT_TRUE(check_agree(transit(2), rib::behavior::end, flv::psp).direct);  // not the last segment
    // TLVs after the segment list (RFC 8754 §2.1) stay where they are.
    const bytes tlv = ip6_packet(64, "fc00::1", "fc00:0:1::e",
                                 {srh(1, {"fc00:0:2::1", "fc00:0:1::e"}, {1, 4, 0, 0, 0, 0}), in4});
    EXPECT_TRUE(check_agree(tlv, rib::behavior::end, 0).direct);
}

TEST(NextSegmentDirect, everything_else_is_left_to_process_endpoint) {
    const auto left = [](const bytes& b, uint32_t flavors = 0, size_t tail = 0) {
        return !check_agree(b, rib::behavior::end, flavors, tail).direct;
    };
    EXPECT_TRUE(left(transit(0)));                // Segments Left 0: upper layer (drop or USD)
    EXPECT_TRUE(left(transit(4)));                // more than Last Entry + 1: parameter problem
    EXPECT_TRUE(left(transit(1, 1)));             // hop limit expires: time exceeded
    EXPECT_TRUE(left(transit(1), flv::psp));      // the last segment with PSP: the SRH is popped
    EXPECT_TRUE(left(transit(1), flv::next_csid));
    EXPECT_TRUE(left(transit(2), 0, 8));          // two segments
    bytes padded = transit(1);
    padded.insert(padded.end(), 6, 0);            // bytes past Payload Length
    EXPECT_TRUE(left(padded));
    bytes short_len = transit(1);
    put16(short_len, 4, static_cast<uint16_t>(short_len.size()));  // Payload Length past the packet
    EXPECT_TRUE(left(short_len));
    bytes type2 = transit(1);
    type2[40 + 2] = 2;                            // not an SRH
    EXPECT_TRUE(left(type2));
    bytes bad_le = transit(1);
    bad_le[40 + 4] = 3;                           // Last Entry past the header
    EXPECT_TRUE(left(bad_le));
    EXPECT_TRUE(left(ip6_packet(64, "fc00::1", "fc00:0:1::e", {opts(60), srh(1, {"fc00::2", "fc00::3"}), in4})));
    EXPECT_TRUE(left(ip6_packet(64, "fc00::1", "fc00:0:1::e", {in4})));  // no SRH
    const bytes cut = transit(1);
    EXPECT_TRUE(left(bytes(cut.begin(), cut.begin() + 60)));  // SRH cut short
}

// Random corruption of the headers, segment counts, flavors and segmentation: the two paths
// never disagree on a packet the direct path takes.
TEST(NextSegmentDirect, fuzz_never_takes_what_process_endpoint_decides_otherwise) {
    std::mt19937 rng(2026);
    const auto rnd = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    const char* segs[] = {"fc00:0:5::1", "fc00:0:4::1", "fc00:0:3::1", "fc00:0:2::1", "fc00:0:1::e"};
    const uint32_t flavor_choices[] = {0, flv::psp, flv::usp, flv::usd, flv::psp | flv::usd, flv::next_csid};
    const rib::behavior behaviors[] = {rib::behavior::end, rib::behavior::end_x, rib::behavior::end_t};
    const uint32_t rounds = 40000;
    uint32_t taken = 0;
    for (uint32_t r = 0; r < rounds; ++r) {
        const uint32_t n = 1 + rnd(5);
        std::vector<rib::ip6_addr> list;
        for (uint32_t k = 0; k < n; ++k)
            list.push_back(a6(segs[5 - n + k]));
        const auto sl = static_cast<uint8_t>(rnd(n + 1));
        bytes b = test_support::ipv6_chain(static_cast<uint8_t>(rnd(4) == 0 ? rnd(3) : 64), a6("fc00::1"),
                                           a6("fc00:0:1::e"), {test_support::srh(sl, list, {}), in4}, 59, 0, 0);
        const uint32_t flips = rnd(3);
        for (uint32_t k = 0; k < flips; ++k) {
            const uint32_t at = rnd(static_cast<uint32_t>(b.size() < 56 ? b.size() : 56));
            b[at] = rnd(2) != 0 ? static_cast<uint8_t>(rnd(256)) : static_cast<uint8_t>(b[at] ^ (1u << rnd(8)));
        }
        if (rnd(8) == 0)
            b.resize(b.size() - rnd(static_cast<uint32_t>(b.size()) - 39));
        if (rnd(8) == 0)
            b.insert(b.end(), rnd(9), 0);
        const size_t tail = rnd(8) == 0 ? rnd(static_cast<uint32_t>(b.size())) : 0;
        if (check_agree(b, behaviors[rnd(3)], flavor_choices[rnd(6)], tail).direct)
            ++taken;
        if (::testing::Test::HasFailure())
            FAIL() << "round " << r;
    }
    EXPECT_GT(taken, rounds / 8);
}

// decap_short against the walk: `r` and the bytes when it takes the packet, untouched when not.
bool check_decap_agree(const bytes& b, rib::behavior beh, size_t tail = 0) {
    rte_mbuf* a = mbuf_of(b);
    rte_mbuf* f = mbuf_of(b);
    if (tail != 0 && tail < b.size()) {
        rte_pktmbuf_free(a);
        a = mbuf_of(bytes(b.begin(), b.end() - static_cast<std::ptrdiff_t>(tail)));
        rte_mbuf* rest = mbuf_of(bytes(b.end() - static_cast<std::ptrdiff_t>(tail), b.end()));
        EXPECT_EQ(rte_pktmbuf_chain(a, rest), 0);
    }
    EXPECT_NE(a, nullptr);
    EXPECT_NE(f, nullptr);
    sid_params sp;
    sp.behavior = beh;
    sp.vrf = 7;
    endpoint_result r;
    const bool taken = endpoint_short(a, *rib::find_behavior(beh), 0, sp.vrf, r);
    const endpoint_result full = process_endpoint_walk(f, sp);
    if (taken) {
        EXPECT_EQ(r, full) << name(r.action) << " / " << name(full.action);
        if (r.action != endpoint_action::drop && full.action != endpoint_action::drop) {
            EXPECT_EQ(bytes_of(a), bytes_of(f)) << "short:\n" << hex(bytes_of(a)) << "walk:\n" << hex(bytes_of(f));
            EXPECT_EQ(a->pkt_len, f->pkt_len);
        }
    } else if (tail == 0) {
        EXPECT_EQ(bytes_of(a), b);
    }
    rte_pktmbuf_free(a);
    rte_pktmbuf_free(f);
    return taken;
}

const rib::behavior decap_behaviors[] = {rib::behavior::end_dt4, rib::behavior::end_dt6, rib::behavior::end_dt46,
                                         rib::behavior::end_dx4, rib::behavior::end_dx6, rib::behavior::end_dx2};

bytes decap_packet(rib::behavior beh, uint8_t inner_ttl = 64) {
    if (beh == rib::behavior::end_dx2)
        return ip6_packet(64, "fc00::1", "fc00:0:1::d2", {{143, eth_frame(0x0800, bytes(46, 0x5a))}});
    if (beh == rib::behavior::end_dt6 || beh == rib::behavior::end_dx6)
        return ip6_packet(64, "fc00::1", "fc00:0:1::d6", {inner6("2001:db8::1", "2001:db8::2", inner_ttl)});
    return ip6_packet(64, "fc00::1", "fc00:0:1::d4", {inner4("10.1.0.1", "10.2.0.1", inner_ttl)});
}

TEST(DecapShort, usual_decapsulated_packets_take_it) {
    for (const rib::behavior beh : decap_behaviors) {
        SCOPED_TRACE(testing::Message() << "behavior " << static_cast<int>(beh));
        EXPECT_TRUE(check_decap_agree(decap_packet(beh), beh));
        bytes padded = decap_packet(beh);
        padded.insert(padded.end(), 10, 0);  // link padding past the outer packet
        EXPECT_TRUE(check_decap_agree(padded, beh));
        // An expiring inner TTL: End.DX* drops it (ttl_expired), End.DT* leaves it to the VRF.
        EXPECT_TRUE(check_decap_agree(decap_packet(beh, 1), beh));
    }
}

TEST(DecapShort, what_it_leaves_to_the_walk) {
    const bytes srh_first = ip6_packet(64, "fc00::1", "fc00:0:1::d4", {srh(0, {"fc00:0:1::d4"}), inner4("10.1.0.1", "10.2.0.1")});
    EXPECT_FALSE(check_decap_agree(srh_first, rib::behavior::end_dt4));
    EXPECT_FALSE(check_decap_agree(decap_packet(rib::behavior::end_dt6), rib::behavior::end_dt4));  // not its family
    EXPECT_FALSE(check_decap_agree(decap_packet(rib::behavior::end_dt4), rib::behavior::end_dt4, 20));  // two segments
}

// Random corruption, truncation, padding and segmentation: the short form never decides
// otherwise than the walk.
TEST(DecapShort, fuzz_never_decides_otherwise_than_the_walk) {
    std::mt19937 rng(34);
    const auto rnd = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
    const uint32_t rounds = 30000;
    uint32_t taken = 0;
    for (uint32_t r = 0; r < rounds; ++r) {
        const rib::behavior beh = decap_behaviors[rnd(6)];
        bytes b = decap_packet(decap_behaviors[rnd(6)], static_cast<uint8_t>(rnd(4) == 0 ? rnd(3) : 64));
        const uint32_t flips = rnd(3);
        for (uint32_t k = 0; k < flips; ++k) {
            const uint32_t at = rnd(static_cast<uint32_t>(b.size() < 80 ? b.size() : 80));
            b[at] = rnd(2) != 0 ? static_cast<uint8_t>(rnd(256)) : static_cast<uint8_t>(b[at] ^ (1u << rnd(8)));
        }
        if (rnd(8) == 0)
            b.resize(b.size() - rnd(static_cast<uint32_t>(b.size()) - 39));
        if (rnd(8) == 0)
            b.insert(b.end(), rnd(9), 0);
        const size_t tail = rnd(8) == 0 ? rnd(static_cast<uint32_t>(b.size())) : 0;
        if (check_decap_agree(b, beh, tail))
            ++taken;
        if (::testing::Test::HasFailure())
            FAIL() << "round " << r;
    }
    EXPECT_GT(taken, rounds / 8);
}

}  // namespace SRV6D_UNITY_ID
}  // namespace fwd::test
