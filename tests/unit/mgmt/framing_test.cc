#include <gtest/gtest.h>

#include "mgmt/framing.hh"
#include "mgmt/proto.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

pb::Request routes_request(uint32_t table) {
    pb::Request r;
    r.mutable_show_routes()->set_table(table);
    return r;
}

TEST(Framing, BigEndianLengthThenBody) {
    pb::Request r;
    r.mutable_show_fpm();
    std::string out = "x";  // appends
    ASSERT_TRUE(encode_frame(r, out));
    // field 1 (show_fpm), wire type 2, empty: 0a 00
    EXPECT_EQ(out, std::string("x\x00\x00\x00\x02\x0a\x00", 7));

    out.clear();
    ASSERT_TRUE(encode_frame(routes_request(300), out));
    // show_routes { table: 300 } = 12 03 08 ac 02
    EXPECT_EQ(out, std::string("\x00\x00\x00\x05\x12\x03\x08\xac\x02", 9));
}

TEST(Framing, RoundTrip) {
    std::string wire;
    ASSERT_TRUE(encode_frame(routes_request(10), wire));
    frame_reader rd;
    rd.feed(wire);
    const auto body = rd.next();
    ASSERT_TRUE(body);
    pb::Request back;
    ASSERT_TRUE(back.ParseFromArray(body->data(), static_cast<int>(body->size())));
    EXPECT_EQ(back.show_routes().table(), 10u);
    EXPECT_FALSE(rd.next());
    EXPECT_EQ(rd.buffered(), 0u);
}

TEST(Framing, ByteByByte) {
    std::string wire;
    ASSERT_TRUE(encode_frame(routes_request(7), wire));
    frame_reader rd;
    for (size_t i = 0; i + 1 < wire.size(); ++i) {
        rd.feed(std::string_view(&wire[i], 1));
        EXPECT_FALSE(rd.next()) << "complete after " << i + 1 << " of " << wire.size() << " bytes";
    }
    rd.feed(std::string_view(&wire.back(), 1));
    const auto body = rd.next();
    ASSERT_TRUE(body);
    EXPECT_EQ(*body, wire.substr(4));
}

TEST(Framing, SeveralMessagesAndSplitsAnywhere) {
    std::string wire;
    for (uint32_t t = 1; t <= 3; ++t)
        ASSERT_TRUE(encode_frame(routes_request(t), wire));
    pb::Request empty;  // an empty message is a valid, zero-length frame
    ASSERT_TRUE(encode_frame(empty, wire));
    // Every split point into two chunks yields the same four messages.
    for (size_t cut = 0; cut <= wire.size(); ++cut) {
        frame_reader rd;
        std::vector<std::string> got;
        rd.feed(std::string_view(wire).substr(0, cut));
        while (auto b = rd.next())
            got.emplace_back(*b);
        rd.feed(std::string_view(wire).substr(cut));
        while (auto b = rd.next())
            got.emplace_back(*b);
        ASSERT_EQ(got.size(), 4u) << "cut at " << cut;
        for (uint32_t t = 1; t <= 3; ++t) {
            pb::Request r;
            ASSERT_TRUE(r.ParseFromString(got[t - 1]));
            EXPECT_EQ(r.show_routes().table(), t);
        }
        EXPECT_EQ(got[3], "");
    }
}

TEST(Framing, OversizeHeaderRejectedBeforeTheBody) {
    frame_reader rd(100);
    rd.feed(std::string("\x00\x00\x00\x65", 4));  // 101 bytes announced
    EXPECT_FALSE(rd.next());
    ASSERT_TRUE(rd.oversize());
    EXPECT_EQ(*rd.oversize(), 101u);
    rd.feed(std::string(200, 'a'));  // nothing after it is framed any more
    EXPECT_FALSE(rd.next());

    frame_reader exact(100);
    std::string frame("\x00\x00\x00\x64", 4);
    frame.append(100, 'b');
    exact.feed(frame);
    EXPECT_TRUE(exact.next());
    EXPECT_FALSE(exact.oversize());
}

TEST(Framing, DefaultLimitIs16MiB) {
    frame_reader rd;
    rd.feed(std::string("\x01\x00\x00\x01", 4));
    EXPECT_FALSE(rd.next());
    EXPECT_EQ(rd.oversize(), (16u << 20) + 1);
    frame_reader huge;
    huge.feed(std::string("\xff\xff\xff\xff", 4));
    EXPECT_FALSE(huge.next());
    EXPECT_TRUE(huge.oversize());
}

TEST(Framing, EncodeRefusesOversizeAndLeavesOutputAlone) {
    pb::Response r;
    r.set_error(std::string(50, 'e'));
    std::string out = "keep";
    EXPECT_FALSE(encode_frame(r, out, 10));
    EXPECT_EQ(out, "keep");
    EXPECT_TRUE(encode_frame(r, out, 52));  // 1 tag + 1 length + 50
    EXPECT_EQ(out.size(), 4u + 4u + 52u);
}

}  // namespace
}  // namespace mgmt
