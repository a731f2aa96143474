// Whole FRR 8.4.4 and FRR 10.7 FPM streams (tests/fixtures/frr{8,10}/, copied from the captures
// in research/) through framer + decode_frame: no error may be counted, the message counts must
// match the capture's decoded dump (.txt), and selected frames must decode to known values.
// Then every prefix truncation and single-byte corruption of a few of those frames.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>

#include "fpm/decoder.hh"
#include "fpm/framer.hh"
#include "fpm_builders.hh"

namespace fpm::test {
namespace SRV6D_UNITY_ID {

const std::string fixtures = SRV6D_FIXTURES;

rib::prefix pfx(const char* s) { return *rib::parse_prefix(s); }
rib::ip_addr ip(const char* s) { return *rib::parse_addr(s); }
rib::ip6_addr ip6(const char* s) { return *rib::parse_ip6(s); }

struct capture {
    ingest_stats stats;
    std::vector<buf> raw;                     // each frame, as the framer cut it
    std::vector<std::vector<update>> frames;  // the updates of each frame
    std::optional<reason> lost;
    size_t leftover = 0;

    uint64_t errors() const {
        uint64_t n = 0;
        for (size_t i = 0; i < reason_count; ++i)
            if (is_error(static_cast<reason>(i)))
                n += stats.reasons[i];
        return n;
    }
    std::string reasons_text() const {
        std::string s;
        for (size_t i = 0; i < reason_count; ++i)
            if (stats.reasons[i])
                s += std::string(name(static_cast<reason>(i))) + "=" + std::to_string(stats.reasons[i]) + " ";
        return s;
    }
    const rib::route& route(size_t frame, size_t i = 0) const {
        return std::get<route_upsert>(frames.at(frame).at(i).body).route;
    }
    const rib::nexthop_object& nh(size_t frame) const {
        return std::get<nexthop_upsert>(frames.at(frame).at(0).body).nh;
    }
};

// `chunk` 0 feeds the whole file at once, otherwise `chunk` bytes at a time.
capture decode_capture(const std::string& rel, size_t chunk = 0) {
    const buf stream = read_file(fixtures + "/" + rel);
    capture c;
    decode_ctx ctx(c.stats);
    framer f;
    const size_t step = chunk ? chunk : stream.size();
    for (size_t off = 0; off < stream.size(); off += step) {
        f.feed(std::span(stream).subspan(off, std::min(step, stream.size() - off)));
        while (auto fr = f.next()) {
            c.raw.emplace_back(fr->begin(), fr->end());
            c.frames.emplace_back();
            decode_frame(*fr, ctx, c.frames.back());
        }
    }
    c.lost = f.lost();
    c.leftover = f.buffered();
    return c;
}

// What the capture tool's dump says about each connection: frames and nlmsg types.
struct dump_counts {
    uint64_t frames = 0;
    std::map<uint16_t, uint64_t> types;
};

std::map<std::string, dump_counts> read_dump(const std::string& rel) {
    std::ifstream in(fixtures + "/" + rel);
    if (!in)
        throw std::runtime_error("cannot open " + rel);
    static const std::regex conn(R"(CONNECTION \d+ accepted .*/([^/]+\.bin)$)");
    static const std::regex frame_line(R"(^#\d+ .* FPM version=)");
    static const std::regex msg_line(R"(^\s+nlmsg\[\d+\] len=\d+ type=(\d+)\()");
    std::map<std::string, dump_counts> out;
    dump_counts* cur = nullptr;
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, conn))
            cur = &out[m[1]];
        else if (cur && std::regex_search(line, frame_line))
            ++cur->frames;
        else if (cur && std::regex_search(line, m, msg_line))
            ++cur->types[static_cast<uint16_t>(std::stoul(m[1]))];
    }
    return out;
}

struct capture_file {
    const char* dir;
    const char* dump;
    const char* bin;
};

const capture_file all_captures[] = {
    {"frr8/a-static", "nhg.txt", "nhg-c1.bin"},
    {"frr8/a-static", "nonhg.txt", "nonhg-c1.bin"},
    {"frr8/c-sharp-srv6", "nhg.txt", "nhg-c1.bin"},
    {"frr8/c-sharp-srv6", "nonhg.txt", "nonhg-c1.bin"},
    {"frr8/f-reconnect", "fpm.txt", "fpm-c1.bin"},
    {"frr8/f-reconnect", "fpm.txt", "fpm-c2.bin"},
    {"frr8/f-reconnect", "fpm.txt", "fpm-c3.bin"},
    {"frr8/f-reconnect", "fpm.txt", "fpm-c4.bin"},
    {"frr8/f-reconnect", "fpm.txt", "fpm-c5.bin"},
    {"frr10/a-locator", "fpm.txt", "fpm-c1.bin"},
    {"frr10/a-locator", "fpm.txt", "fpm-c2.bin"},
    {"frr10/c1-static-sids", "nhg.txt", "nhg-c1.bin"},
    {"frr10/c1-static-sids", "nhg.txt", "nhg-c2.bin"},
    {"frr10/c1-static-sids", "nonhg.txt", "nonhg-c1.bin"},
    {"frr10/c1-static-sids", "nonhg.txt", "nonhg-c2.bin"},
    {"frr10/c2-sharp-seg6local", "nhg.txt", "nhg-c1.bin"},
    {"frr10/c2-sharp-seg6local", "nhg.txt", "nhg-c2.bin"},
    {"frr10/c2-sharp-seg6local", "nonhg.txt", "nonhg-c1.bin"},
    {"frr10/c2-sharp-seg6local", "nonhg.txt", "nonhg-c2.bin"},
    {"frr10/d-encaps", "nhg.txt", "nhg-c1.bin"},
    {"frr10/d-encaps", "nhg.txt", "nhg-c2.bin"},
    {"frr10/d-encaps", "nonhg.txt", "nonhg-c1.bin"},
    {"frr10/d-encaps", "nonhg.txt", "nonhg-c2.bin"},
    {"frr10/g-route-replace", "fpm.txt", "fpm-c1.bin"},
    {"frr10/g-route-replace", "fpm.txt", "fpm-c2.bin"},
};

class Capture : public ::testing::TestWithParam<capture_file> {};

TEST_P(Capture, DecodesWithoutErrorsAndMatchesTheDump) {
    const auto& p = GetParam();
    const std::string bin = std::string(p.dir) + "/" + p.bin;
    const auto dump = read_dump(std::string(p.dir) + "/" + p.dump);
    ASSERT_TRUE(dump.count(p.bin)) << "no connection for " << p.bin << " in the dump";
    const auto& want = dump.at(p.bin);
    ASSERT_GT(want.frames, 0u);

    for (size_t chunk : {size_t{0}, size_t{7}}) {
        SCOPED_TRACE(bin + " chunk " + std::to_string(chunk));
        const auto c = decode_capture(bin, chunk);
        EXPECT_FALSE(c.lost);
        EXPECT_EQ(c.leftover, 0u);
        EXPECT_EQ(c.errors(), 0u) << c.reasons_text();
        EXPECT_EQ(c.stats.frames, want.frames);
        EXPECT_EQ(c.stats.netlink_frames, want.frames);
        EXPECT_EQ(c.stats.msg_types, want.types);
        uint64_t msgs = 0;
        for (auto [t, n] : want.types)
            msgs += n;
        EXPECT_EQ(c.stats.messages, msgs);
        // Every message FRR sent here is a route or nexthop message we act on.
        EXPECT_EQ(c.stats.updates, msgs);
    }
}

std::string capture_name(const ::testing::TestParamInfo<capture_file>& i) {
    std::string s = std::string(i.param.dir) + "_" + i.param.bin;
    for (auto& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Capture, ::testing::ValuesIn(all_captures), capture_name);

// The dump parser itself, against counts read off the .txt by hand, so a parser bug cannot
// make the comparison above vacuous.
TEST(CaptureDump, KnownCounts) {
    const auto a = read_dump("frr8/a-static/nhg.txt").at("nhg-c1.bin");
    EXPECT_EQ(a.frames, 73u);
    EXPECT_EQ(a.types, (std::map<uint16_t, uint64_t>{{24, 33}, {25, 27}, {104, 23}}));
    const auto f = read_dump("frr8/f-reconnect/fpm.txt");
    EXPECT_EQ(f.size(), 5u);
    EXPECT_EQ(f.at("fpm-c2.bin").types, (std::map<uint16_t, uint64_t>{{24, 8}, {25, 1}, {104, 11}, {105, 2}}));
    EXPECT_EQ(f.at("fpm-c3.bin").frames, 7u);
    const auto d = read_dump("frr10/d-encaps/nhg.txt").at("nhg-c2.bin");
    EXPECT_EQ(d.frames, 49u);
    EXPECT_EQ(d.types, (std::map<uint16_t, uint64_t>{{24, 23}, {25, 9}, {104, 17}}));
}

// --- selected frames ---------------------------------------------------------------------------

TEST(CaptureValues, Frr8StaticNhg) {
    const auto c = decode_capture("frr8/a-static/nhg-c1.bin");
    ASSERT_EQ(c.frames.size(), 73u);
    // #3: NH 5 {AF_INET, oif 3}; #6: connected 10.0.1.0/24 -> NH 5, protocol kernel.
    EXPECT_EQ(c.nh(3).id, 5u);
    EXPECT_EQ(c.nh(3).path->ifindex, 3u);
    EXPECT_FALSE(c.nh(3).path->gateway);
    const auto& conn = c.route(6);
    EXPECT_EQ(conn.key.dst, pfx("10.0.1.0/24"));
    EXPECT_EQ(conn.key.table, 254u);
    EXPECT_EQ(conn.protocol, rib::proto::kernel);
    EXPECT_EQ(conn.nh_id, 5u);
    // #14: group 20 = {16, 21}, then #15 198.51.100.0/24 -> 20.
    EXPECT_EQ(c.nh(14).id, 20u);
    EXPECT_EQ(c.nh(14).group, (std::vector<rib::nexthop_group_member>{{16, 1}, {21, 1}}));
    EXPECT_EQ(c.route(15).key.dst, pfx("198.51.100.0/24"));
    EXPECT_EQ(c.route(15).nh_id, 20u);
    EXPECT_EQ(c.route(15).protocol, rib::proto::zstatic);
    // #16: the blackhole nexthop object; #17 the blackhole route carries no NH_ID.
    EXPECT_TRUE(c.nh(16).blackhole);
    EXPECT_EQ(c.route(17).type, rib::route_type::blackhole);
    EXPECT_EQ(c.route(17).key.dst, pfx("203.0.113.0/25"));
    EXPECT_FALSE(c.route(17).nh_id);
    // #37: 8.4.4 update = DEL + NEW in one frame.
    ASSERT_EQ(c.frames[37].size(), 2u);
    EXPECT_EQ(std::get<route_delete>(c.frames[37][0].body).key.dst, pfx("192.0.2.0/24"));
    EXPECT_EQ(c.route(37, 1).nh_id, 20u);
}

TEST(CaptureValues, Frr8StaticInline) {
    const auto c = decode_capture("frr8/a-static/nonhg-c1.bin");
    // #6: 198.51.100.0/24 RTA_MULTIPATH {oif 3 via 10.0.1.2, oif 5 via 10.0.2.2}.
    const auto& mp = c.route(6);
    ASSERT_EQ(mp.nexthops.size(), 2u);
    EXPECT_EQ(mp.nexthops[0].ifindex, 3u);
    EXPECT_EQ(mp.nexthops[0].gateway, ip("10.0.1.2"));
    EXPECT_EQ(mp.nexthops[0].weight, 1);
    EXPECT_EQ(mp.nexthops[1].ifindex, 5u);
    EXPECT_EQ(mp.nexthops[1].gateway, ip("10.0.2.2"));
    // #8: reject -> unreachable, no nexthops.
    EXPECT_EQ(c.route(8).type, rib::route_type::unreachable);
    EXPECT_TRUE(c.route(8).nexthops.empty());
    // #16: table 1000 comes as rtm_table 0 + RTA_TABLE.
    const auto& t = c.route(16);
    EXPECT_EQ(t.key.table, 1000u);
    EXPECT_EQ(t.key.dst, pfx("192.0.2.0/24"));
    ASSERT_EQ(t.nexthops.size(), 1u);
    EXPECT_EQ(t.nexthops[0].gateway, ip("10.0.1.2"));
    EXPECT_EQ(t.nexthops[0].ifindex, 3u);
    // #15: table 100 fits rtm_table.
    EXPECT_EQ(c.route(15).key.table, 100u);
    // #49: the delete of the table-1000 route still names its table.
    EXPECT_EQ(std::get<route_delete>(c.frames[49][0].body).key.table, 1000u);
}

TEST(CaptureValues, Frr8GroupBeforeItsMember) {
    const auto c = decode_capture("frr8/f-reconnect/fpm-c1.bin");
    // #9: group 12 = {11, 13} arrives before #10, NH 13 via 10.0.2.2 oif 5.
    EXPECT_EQ(c.nh(9).id, 12u);
    EXPECT_EQ(c.nh(9).group, (std::vector<rib::nexthop_group_member>{{11, 1}, {13, 1}}));
    EXPECT_EQ(c.nh(10).id, 13u);
    EXPECT_EQ(c.nh(10).path->gateway, ip("10.0.2.2"));
    EXPECT_EQ(c.nh(10).path->ifindex, 5u);
    // #6: NH 24, End.DT6 into table 10.
    ASSERT_TRUE(c.nh(6).path && c.nh(6).path->local);
    EXPECT_EQ(c.nh(6).path->local->action, rib::behavior::end_dt6);
}

TEST(CaptureValues, Frr8SharpSrv6Inline) {
    const auto c = decode_capture("frr8/c-sharp-srv6/nonhg-c1.bin");
    // #9: 10.200.0.1/32 over IPv6: 169.254.0.1 + ONLINK, seg6 encap fc00:0:2::101.
    const auto& r = c.route(9);
    EXPECT_EQ(r.key.dst, pfx("10.200.0.1/32"));
    EXPECT_EQ(r.protocol, rib::proto::sharp);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("169.254.0.1"));
    EXPECT_TRUE(r.nexthops[0].onlink);
    EXPECT_EQ(r.nexthops[0].ifindex, 3u);
    ASSERT_TRUE(r.nexthops[0].seg6);
    EXPECT_EQ(r.nexthops[0].seg6->segments, std::vector<rib::ip6_addr>{ip6("fc00:0:2::101")});
}

TEST(CaptureValues, Frr10Encaps) {
    const auto n = decode_capture("frr10/d-encaps/nhg-c1.bin");
    // #23: NH 18, three SIDs in visiting order; #36: ECMP group 32 = {26, 33}.
    ASSERT_TRUE(n.nh(23).path && n.nh(23).path->seg6);
    EXPECT_EQ(n.nh(23).path->seg6->segments,
              (std::vector<rib::ip6_addr>{ip6("fc00:0:2::1"), ip6("fc00:0:3::1"), ip6("fc00:0:4::1")}));
    EXPECT_EQ(n.nh(23).path->gateway, ip("fc00:1::2"));
    EXPECT_EQ(n.nh(36).id, 32u);
    EXPECT_EQ(n.nh(36).group, (std::vector<rib::nexthop_group_member>{{26, 1}, {33, 1}}));
    // #10: FRR 10 local host route fc00:1::1/128, protocol kernel, kept as a unicast route.
    EXPECT_EQ(n.route(10).key.dst, pfx("fc00:1::1/128"));
    EXPECT_EQ(n.route(10).protocol, rib::proto::kernel);
    EXPECT_EQ(n.route(10).type, rib::route_type::unicast);

    const auto i = decode_capture("frr10/d-encaps/nonhg-c1.bin");
    // #15: 10.200.0.1/32 via RTA_VIA {AF_INET6 fc00:1::2} + ONLINK, oif 3.
    const auto& r = i.route(15);
    ASSERT_EQ(r.nexthops.size(), 1u);
    EXPECT_EQ(r.nexthops[0].gateway, ip("fc00:1::2"));
    EXPECT_TRUE(r.nexthops[0].onlink);
    EXPECT_EQ(r.nexthops[0].ifindex, 3u);
    ASSERT_TRUE(r.nexthops[0].seg6);
    EXPECT_EQ(r.nexthops[0].seg6->segments, std::vector<rib::ip6_addr>{ip6("fc00:0:2::101")});
}

TEST(CaptureValues, Frr10StaticSids) {
    const auto c = decode_capture("frr10/c1-static-sids/nhg-c1.bin");
    // #15/#16: uN fcbb:bbbb:1::/48 (not /128) -> NH 14, End + NEXT-CSID, protocol static.
    const auto& sid = c.route(16);
    EXPECT_EQ(sid.key.dst, pfx("fcbb:bbbb:1::/48"));
    EXPECT_EQ(sid.protocol, rib::proto::zstatic);
    EXPECT_EQ(sid.nh_id, 14u);
    ASSERT_TRUE(c.nh(15).path && c.nh(15).path->local);
    EXPECT_EQ(c.nh(15).path->local->action, rib::behavior::end);
    EXPECT_EQ(c.nh(15).path->local->flavors, rib::flavor::next_csid);
    EXPECT_EQ(c.nh(15).path->ifindex, 5u);
    // #21: the delete of that SID is a plain route delete.
    EXPECT_EQ(std::get<route_delete>(c.frames[21][0].body).key.dst, pfx("fcbb:bbbb:1::/48"));
}

TEST(CaptureValues, Frr10NoRouteReplace) {
    const auto c = decode_capture("frr10/g-route-replace/fpm-c1.bin");
    // #30: `no fpm use-route-replace`: DEL + NEW of 2001:db8:50::/64 in one frame.
    ASSERT_EQ(c.frames[30].size(), 2u);
    EXPECT_EQ(std::get<route_delete>(c.frames[30][0].body).key.dst, pfx("2001:db8:50::/64"));
    EXPECT_EQ(c.route(30, 1).key.dst, pfx("2001:db8:50::/64"));
    EXPECT_EQ(c.route(30, 1).nh_id, 31u);
}

// --- truncation and corruption sweep -----------------------------------------------------------

// Decodes from an exactly sized heap copy, so that reading one byte too far is an ASan error.
decoded decode_exact(const buf& b) {
    auto copy = std::make_unique<uint8_t[]>(b.size() ? b.size() : 1);
    std::copy(b.begin(), b.end(), copy.get());
    decoded d;
    decode_ctx ctx(d.stats);
    decode_frame(std::span<const uint8_t>(copy.get(), b.size()), ctx, d.out);
    return d;
}

void set_frame_len(buf& f) {
    f[2] = static_cast<uint8_t>(f.size() >> 8);
    f[3] = static_cast<uint8_t>(f.size() & 0xff);
}

struct sweep_frame {
    const char* bin;
    size_t index;
};

// Multipath, DEL+NEW pairs, encaps of every kind, groups.
const sweep_frame sweep_frames[] = {
    {"frr8/a-static/nonhg-c1.bin", 6},         {"frr8/a-static/nonhg-c1.bin", 19},
    {"frr8/a-static/nhg-c1.bin", 14},          {"frr8/c-sharp-srv6/nonhg-c1.bin", 9},
    {"frr8/f-reconnect/fpm-c1.bin", 6},        {"frr8/f-reconnect/fpm-c1.bin", 7},
    {"frr10/c1-static-sids/nhg-c1.bin", 13},   {"frr10/d-encaps/nhg-c1.bin", 23},
    {"frr10/d-encaps/nonhg-c1.bin", 15},       {"frr10/g-route-replace/fpm-c1.bin", 30},
};

class Sweep : public ::testing::TestWithParam<sweep_frame> {};

TEST_P(Sweep, EveryPrefixTruncation) {
    const auto c = decode_capture(GetParam().bin);
    const buf whole = c.raw.at(GetParam().index);
    // Message boundaries: a cut exactly there leaves whole messages, and no reason is due.
    std::vector<size_t> bounds{4};
    for (size_t off = 4; off + 4 <= whole.size();) {
        const uint32_t len = *nl::get<uint32_t>(std::span(whole).subspan(off));
        off += nl::align4(len);
        bounds.push_back(off);
    }
    for (size_t len = 4; len < whole.size(); ++len) {
        buf cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(len));
        set_frame_len(cut);
        const auto d = decode_exact(cut);
        const bool boundary = std::find(bounds.begin(), bounds.end(), len) != bounds.end();
        if (!boundary) {
            EXPECT_GT(d.all_reasons(), 0u) << "cut at " << len;
        }
        EXPECT_LE(d.out.size(), d.stats.messages);
    }
}

TEST_P(Sweep, EveryTruncationInsideTheLastMessage) {
    // Shrink nlmsg_len along with the frame, so the cut lands in attributes and nests instead.
    const auto c = decode_capture(GetParam().bin);
    const buf whole = c.raw.at(GetParam().index);
    size_t last = 4;
    for (size_t off = 4; off + 4 <= whole.size();) {
        last = off;
        off += nl::align4(*nl::get<uint32_t>(std::span(whole).subspan(off)));
    }
    for (size_t len = last + 16; len < whole.size(); ++len) {
        buf cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(len));
        const auto n = static_cast<uint32_t>(len - last);
        std::memcpy(cut.data() + last, &n, 4);
        set_frame_len(cut);
        const auto d = decode_exact(cut);
        EXPECT_LE(d.out.size(), d.stats.messages);
    }
}

TEST_P(Sweep, EverySingleByteCorruption) {
    const auto c = decode_capture(GetParam().bin);
    const buf whole = c.raw.at(GetParam().index);
    for (size_t i = 0; i < whole.size(); ++i) {
        const uint8_t orig = whole[i];
        for (uint8_t v : {uint8_t{0}, uint8_t{0xff}, uint8_t(orig ^ 0x01), uint8_t(orig ^ 0x80), uint8_t(orig + 4)}) {
            if (v == orig)
                continue;
            buf bad = whole;
            bad[i] = v;
            // Through the framer too: a corrupt header must stop the stream, not crash it.
            framer f;
            f.feed(bad);
            if (auto fr = f.next()) {
                const auto d = decode_exact(buf(fr->begin(), fr->end()));
                EXPECT_LE(d.out.size(), d.stats.messages);
            } else {
                EXPECT_TRUE(f.lost() || f.buffered() > 0) << "byte " << i;
            }
            decode_exact(bad);  // and directly, whatever the header now says
        }
    }
}

std::string sweep_name(const ::testing::TestParamInfo<sweep_frame>& i) {
    std::string s = std::string(i.param.bin) + "_" + std::to_string(i.param.index);
    for (auto& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(Frames, Sweep, ::testing::ValuesIn(sweep_frames), sweep_name);

}  // namespace
}  // namespace fpm::test
