#include "fpm/framer.hh"

#include <gtest/gtest.h>

#include <random>

#include "fpm_builders.hh"

namespace fpm::test {
namespace SRV6D_UNITY_ID {

const std::string fixtures = SRV6D_FIXTURES;

std::vector<buf> drain(framer& f) {
    std::vector<buf> out;
    while (auto fr = f.next())
        out.emplace_back(fr->begin(), fr->end());
    return out;
}

// Two frames from the FRR 8.4.4 a-static capture (frames #0 and #6), byte for byte.
const buf nh8 = hex("0101002c2800000068000105000000000e7517c80a000b000000000008000100080000000800050005000000");
const buf route_v4 = hex(
    "010100383400000018000105000000000e7517c802180000fe02000100000000080001000a000100080006001400000008001e0005000000");

TEST(Framer, OneWholeFrame) {
    framer f;
    f.feed(nh8);
    auto fr = f.next();
    ASSERT_TRUE(fr);
    EXPECT_EQ(buf(fr->begin(), fr->end()), nh8);
    EXPECT_FALSE(f.next());
    EXPECT_EQ(f.buffered(), 0u);
    EXPECT_FALSE(f.lost());
}

TEST(Framer, SeveralFramesInOneFeed) {
    framer f;
    f.feed(cat({nh8, route_v4, nh8}));
    auto frames = drain(f);
    ASSERT_EQ(frames.size(), 3u);
    EXPECT_EQ(frames[0], nh8);
    EXPECT_EQ(frames[1], route_v4);
    EXPECT_EQ(frames[2], nh8);
}

TEST(Framer, WaitsForTheRestOfAFrame) {
    framer f;
    const buf two = cat({nh8, route_v4});
    f.feed(std::span(two).first(nh8.size() + 10));  // first frame + 10 bytes of the second
    auto frames = drain(f);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(f.buffered(), 10u);
    f.feed(std::span(two).subspan(nh8.size() + 10));
    frames = drain(f);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0], route_v4);
    EXPECT_EQ(f.buffered(), 0u);
}

TEST(Framer, ByteByByteGivesTheSameFramesAsOneFeed) {
    const buf stream = read_file(fixtures + "/frr8/a-static/nhg-c1.bin");
    framer whole;
    whole.feed(stream);
    const auto expected = drain(whole);
    ASSERT_EQ(expected.size(), 73u);  // frame count of nhg.txt
    EXPECT_EQ(whole.buffered(), 0u);

    framer bytewise;
    std::vector<buf> got;
    for (uint8_t b : stream) {
        bytewise.feed(std::span(&b, 1));
        for (auto& fr : drain(bytewise))
            got.push_back(std::move(fr));
    }
    EXPECT_EQ(got, expected);
    EXPECT_FALSE(bytewise.lost());
}

TEST(Framer, RandomChunksGiveTheSameFrames) {
    const buf stream = read_file(fixtures + "/frr10/c2-sharp-seg6local/nhg-c2.bin");
    framer whole;
    whole.feed(stream);
    const auto expected = drain(whole);
    std::mt19937 rng(42);
    for (int round = 0; round < 20; ++round) {
        framer f;
        std::vector<buf> got;
        size_t off = 0;
        while (off < stream.size()) {
            const size_t n = std::min<size_t>(stream.size() - off, rng() % 300 + 1);
            f.feed(std::span(stream).subspan(off, n));
            off += n;
            for (auto& fr : drain(f))
                got.push_back(std::move(fr));
        }
        EXPECT_EQ(got, expected) << "round " << round;
    }
}

TEST(Framer, LargestFrame) {
    buf big = frame(buf(fpm_max_frame - 4, 0xab));
    ASSERT_EQ(big.size(), 65535u);
    EXPECT_EQ(big[2], 0xff);
    EXPECT_EQ(big[3], 0xff);
    framer f;
    f.feed(std::span(big).first(40000));
    EXPECT_FALSE(f.next());
    f.feed(std::span(big).subspan(40000));
    auto fr = f.next();
    ASSERT_TRUE(fr);
    EXPECT_EQ(fr->size(), 65535u);
}

TEST(Framer, HeaderOnlyFrameIsValid) {
    framer f;
    f.feed(hex("01010004 01020004"));
    auto frames = drain(f);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].size(), 4u);
    EXPECT_FALSE(f.lost());
}

// Each header field is checked on its own: a good type does not excuse a bad version
// (FRR's reader uses && here) and vice versa.
struct bad_header {
    const char* hex;
    reason why;
};
class FramerBadHeader : public ::testing::TestWithParam<bad_header> {};

TEST_P(FramerBadHeader, LosesFraming) {
    framer f;
    f.feed(nh8);
    f.feed(hex(GetParam().hex));
    f.feed(nh8);
    auto frames = drain(f);
    ASSERT_EQ(frames.size(), 1u);  // the frame before the bad header still comes out
    ASSERT_TRUE(f.lost());
    EXPECT_EQ(*f.lost(), GetParam().why);
    // Nothing after a bad header is trusted, whatever arrives later.
    f.feed(nh8);
    EXPECT_FALSE(f.next());
    EXPECT_EQ(*f.lost(), GetParam().why);
}

INSTANTIATE_TEST_SUITE_P(Headers, FramerBadHeader,
                         ::testing::Values(bad_header{"00010008 00000000", reason::frame_bad_version},
                                           bad_header{"02010008 00000000", reason::frame_bad_version},
                                           bad_header{"ff020008 00000000", reason::frame_bad_version},
                                           bad_header{"01000008 00000000", reason::frame_bad_type},
                                           bad_header{"01030008 00000000", reason::frame_bad_type},
                                           bad_header{"01ff0008 00000000", reason::frame_bad_type},
                                           bad_header{"01010000", reason::frame_too_short},
                                           bad_header{"01010003", reason::frame_too_short},
                                           bad_header{"01020002", reason::frame_too_short}));

TEST(Framer, BadHeaderIsSeenOnceTheHeaderIsComplete) {
    framer f;
    f.feed(hex("02 01 00"));
    EXPECT_FALSE(f.next());
    EXPECT_FALSE(f.lost());
    f.feed(hex("08"));
    EXPECT_FALSE(f.next());
    ASSERT_TRUE(f.lost());
    EXPECT_EQ(*f.lost(), reason::frame_bad_version);
}

TEST(Framer, ResetStartsAfresh) {
    framer f;
    f.feed(hex("01090008"));
    EXPECT_FALSE(f.next());
    ASSERT_TRUE(f.lost());
    f.reset();
    EXPECT_FALSE(f.lost());
    EXPECT_EQ(f.buffered(), 0u);
    f.feed(nh8);
    auto fr = f.next();
    ASSERT_TRUE(fr);
    EXPECT_EQ(buf(fr->begin(), fr->end()), nh8);
}

TEST(Framer, ResetDropsAPartialFrame) {
    framer f;
    f.feed(std::span(nh8).first(20));
    f.reset();
    f.feed(route_v4);
    auto frames = drain(f);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0], route_v4);
}

}  // namespace
}  // namespace fpm::test
