// The classify stage's IPv4 header checksum check agrees with DPDK's rte_raw_cksum on every
// header length and on headers whose sums carry across every fold.
#include "forward/datapath/ip4_sum.hh"

#include <gtest/gtest.h>
#include <rte_ip.h>

#include <array>
#include <cstdint>
#include <random>

namespace fwd {
namespace SRV6D_UNITY_ID {

bool reference_ok(const uint8_t* ip, uint32_t ihl) { return rte_raw_cksum(ip, ihl) == 0xffff; }

// Writes a correct checksum into bytes 10-11 of the header.
void seal(uint8_t* ip, uint32_t ihl) {
    ip[10] = ip[11] = 0;
    const uint16_t c = static_cast<uint16_t>(~rte_raw_cksum(ip, ihl));
    std::memcpy(ip + 10, &c, 2);
}

TEST(Ip4Sum, AgreesWithRteRawCksumOnRandomHeaders) {
    std::mt19937 rng(7);
    std::array<uint8_t, 60> h{};
    for (int round = 0; round < 200000; ++round) {
        const auto ihl = static_cast<uint32_t>(20 + 4 * (rng() % 11));
        for (uint32_t i = 0; i < ihl; ++i)
            h[i] = static_cast<uint8_t>(rng());
        h[0] = static_cast<uint8_t>(0x40 | ihl / 4);
        if (round % 2 == 0)
            seal(h.data(), ihl);
        ASSERT_EQ(ip4_header_sum_ok(h.data(), ihl), reference_ok(h.data(), ihl)) << "round " << round;
    }
}

TEST(Ip4Sum, CorrectHeadersPassAndEveryFlippedBitFails) {
    std::mt19937 rng(11);
    std::array<uint8_t, 60> h{};
    for (uint32_t ihl = 20; ihl <= 60; ihl += 4) {
        for (uint32_t i = 0; i < ihl; ++i)
            h[i] = static_cast<uint8_t>(rng());
        h[0] = static_cast<uint8_t>(0x40 | ihl / 4);
        seal(h.data(), ihl);
        ASSERT_TRUE(ip4_header_sum_ok(h.data(), ihl)) << ihl;
        for (uint32_t bit = 0; bit < ihl * 8; ++bit) {
            h[bit / 8] ^= static_cast<uint8_t>(1u << bit % 8);
            EXPECT_FALSE(ip4_header_sum_ok(h.data(), ihl)) << ihl << " bit " << bit;
            h[bit / 8] ^= static_cast<uint8_t>(1u << bit % 8);
        }
    }
}

TEST(Ip4Sum, SumsThatCarryThroughEveryFold) {
    // All-ones words: the 64-bit sum carries out of 32 and 16 bits; 0xffff..ff is a correct sum.
    std::array<uint8_t, 60> h{};
    h.fill(0xff);
    for (uint32_t ihl = 20; ihl <= 60; ihl += 4)
        EXPECT_EQ(ip4_header_sum_ok(h.data(), ihl), reference_ok(h.data(), ihl)) << ihl;
    // A correct header whose words are mostly 0xff: the checksum itself is small.
    h[0] = 0x45;
    seal(h.data(), 20);
    EXPECT_TRUE(ip4_header_sum_ok(h.data(), 20));
    EXPECT_TRUE(reference_ok(h.data(), 20));
}

// Divisible by 0xffff but not a correct sum: every word 0 sums to 0x0000, not 0xffff.
TEST(Ip4Sum, AllZeroWordsAreNotACorrectSum) {
    std::array<uint8_t, 60> h{};
    for (uint32_t ihl = 20; ihl <= 60; ihl += 4) {
        EXPECT_FALSE(ip4_header_sum_ok(h.data(), ihl)) << ihl;
        EXPECT_FALSE(reference_ok(h.data(), ihl)) << ihl;
    }
}

}  // namespace SRV6D_UNITY_ID
}  // namespace fwd
