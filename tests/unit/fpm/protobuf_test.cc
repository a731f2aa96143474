// FRR's legacy protobuf encoding: hand-written fpm.Message bytes (field numbers and wire types
// straight from fpm-protocol.md §4) prove that fpm/proto/*.proto is wire compatible; messages
// built with the generated classes cover the mapping; one malformed case per reason.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "fpm.pb.h"
#include "fpm/decoder.hh"
#include "fpm/protobuf_log.hh"
#include "tests/support/capture_stderr.hh"
#include "util/log.hh"
#include "tests/support/bytes.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

namespace pb = ::srv6d::wire::fpm;
namespace qpb = ::srv6d::wire::qpb;
using buf = test_support::bytes;
using test_support::cat;

// --- protobuf wire bytes by hand: varint keys, length-delimited fields, fixed32.
buf varint(uint64_t v) {
    buf out;
    do {
        const auto b = static_cast<uint8_t>(v & 0x7f);
        v >>= 7;
        out.push_back(v ? static_cast<uint8_t>(b | 0x80) : b);
    } while (v);
    return out;
}
buf vfield(uint32_t field, uint64_t v) { return cat({varint(field << 3 | 0), varint(v)}); }
buf lfield(uint32_t field, const buf& b) { return cat({varint(field << 3 | 2), varint(b.size()), b}); }
buf f32field(uint32_t field, uint32_t v) {
    return cat({varint(field << 3 | 5),
                {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                 static_cast<uint8_t>(v >> 24)}});
}
buf hex(std::string_view s) { return test_support::parse_hex(s); }
buf ip(std::string_view text) { return test_support::addr_bytes(text); }
buf bytes_of(const google::protobuf::MessageLite& m) {
    std::string s;
    EXPECT_TRUE(m.SerializePartialToString(&s));
    return buf(s.begin(), s.end());
}

rib::ip6_addr ip6(std::string_view s) { return *rib::parse_ip6(s); }
rib::prefix pfx(std::string_view s) { return *rib::parse_prefix(s); }

struct result {
    ingest_stats stats;
    std::vector<update> out;
    std::string last_error;  // decode_ctx::last_error
    uint64_t n(reason r) const { return stats.reasons[static_cast<size_t>(r)]; }
    uint64_t total() const {
        uint64_t t = 0;
        for (auto v : stats.reasons)
            t += v;
        return t;
    }
};
result run(std::initializer_list<buf> payloads) {
    result r;
    decode_ctx ctx(r.stats);
    for (const auto& p : payloads)
        decode_protobuf(p, ctx, r.out);
    r.last_error = ctx.last_error;
    return r;
}
template <typename T>
const T& body(const update& u) {
    EXPECT_EQ(u.from, dialect::protobuf);
    return std::get<T>(u.body);
}

// --- hand-written messages

// Message{type DELETE_ROUTE, delete_route{vrf_id 0, IPV4, UNICAST, key{prefix{24, 0a 01 02}}}}
const char* const delete_hex = "08 02 1a 11 08 00 10 01 18 01 22 09 0a 07 08 18 12 03 0a 01 02";

// Message{type ADD_ROUTE, add_route{vrf_id 5, IPV4, UNICAST, 10.1.2.0/24, NORMAL, BGP, metric 0,
// nexthops[{if_id{index 3}, address{v4{fixed32 0x0a000002 = 10.0.0.2, host order}}}]}}
const char* const add_hex =
    "08 01 12 26 08 05 10 01 18 01 22 09 0a 07 08 18 12 03 0a 01 02 28 01 30 09 40 00"
    " 4a 0d 12 02 08 03 1a 07 0a 05 0d 02 00 00 0a";

// Message{type ADD_SRV6_LOCALSID, srv6_localsid{sid fc00:0:1::100, format 32/16/16/0,
// end_dt46 (field 11){vrf_id 10}}}
const char* const localsid_hex =
    "08 03 22 22 0a 12 0a 10 fc 00 00 00 00 01 00 00 00 00 00 00 00 00 01 00"
    " 12 08 08 20 10 10 18 10 20 00 5a 02 08 0a";

TEST(ProtobufWire, DeleteRouteByHand) {
    const auto r = run({hex(delete_hex)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& k = body<route_delete>(r.out[0]).key;
    EXPECT_EQ(k.table, 0u);
    EXPECT_EQ(k.dst, pfx("10.1.2.0/24"));

    pb::Message m;
    m.set_type(pb::Message::DELETE_ROUTE);
    auto* d = m.mutable_delete_route();
    d->set_vrf_id(0);
    d->set_address_family(qpb::IPV4);
    d->set_sub_address_family(qpb::UNICAST);
    d->mutable_key()->mutable_prefix()->set_length(24);
    d->mutable_key()->mutable_prefix()->set_bytes(std::string("\x0a\x01\x02", 3));
    EXPECT_EQ(bytes_of(m), hex(delete_hex));
}

TEST(ProtobufWire, AddRouteByHand) {
    const auto r = run({hex(add_hex)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    rib::route want;
    want.key.table = 5;  // FRR vrf_id, kept as sent
    want.key.dst = pfx("10.1.2.0/24");
    want.type = rib::route_type::unicast;
    want.protocol = rib::proto::bgp;
    rib::nexthop nh;
    nh.ifindex = 3;
    nh.gateway = *rib::parse_addr("10.0.0.2");
    want.nexthops = {nh};
    EXPECT_EQ(body<route_upsert>(r.out[0]).route, want);

    pb::Message m;
    m.set_type(pb::Message::ADD_ROUTE);
    auto* a = m.mutable_add_route();
    a->set_vrf_id(5);
    a->set_address_family(qpb::IPV4);
    a->set_sub_address_family(qpb::UNICAST);
    a->mutable_key()->mutable_prefix()->set_length(24);
    a->mutable_key()->mutable_prefix()->set_bytes(std::string("\x0a\x01\x02", 3));
    a->set_route_type(pb::NORMAL);
    a->set_protocol(qpb::BGP);
    a->set_metric(0);
    auto* n = a->add_nexthops();
    n->mutable_if_id()->set_index(3);
    n->mutable_address()->mutable_v4()->set_value(0x0a000002);
    EXPECT_EQ(bytes_of(m), hex(add_hex));
}

TEST(ProtobufWire, LocalSidByHand) {
    const auto r = run({hex(localsid_hex)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    rib::route want;
    want.key.table = rib::main_table;
    want.key.dst = pfx("fc00:0:1::100/128");
    rib::seg6local sl;
    sl.action = rib::behavior::end_dt46;
    sl.table = 10;
    sl.structure = rib::sid_structure{32, 16, 16, 0};
    rib::nexthop nh;
    nh.local = sl;
    want.nexthops = {nh};
    EXPECT_EQ(body<route_upsert>(r.out[0]).route, want);

    pb::Message m;
    m.set_type(pb::Message::ADD_SRV6_LOCALSID);
    auto* s = m.mutable_srv6_localsid();
    const buf sid = ip("fc00:0:1::100");
    s->mutable_sid()->set_bytes(std::string(sid.begin(), sid.end()));
    auto* f = s->mutable_sid_format();
    f->set_locator_block_length(32);
    f->set_locator_node_length(16);
    f->set_function_length(16);
    f->set_argument_length(0);
    s->mutable_end_dt46()->set_vrf_id(10);
    EXPECT_EQ(bytes_of(m), hex(localsid_hex));
}

// libprotobuf's own complaints (a peer's string field that is not UTF-8, in builds without
// NDEBUG: proto2 parses it and complains once per message) go through srv6d's log and its repeat
// filter, not straight to stderr once per message.
TEST(ProtobufMalformed, LibraryComplaintsGoThroughTheLog) {
    const buf if_id = lfield(2, cat({vfield(1, 7), lfield(2, {0xff, 0xfe, 'x'})}));
    const buf param = lfield(1, cat({if_id, lfield(3, lfield(2, lfield(1, ip("2001:db8::2"))))}));
    const buf localsid = cat({lfield(1, lfield(1, ip("fc00:0:1::7"))), lfield(4, param)});
    const buf msg = cat({vfield(1, 3), lfield(4, localsid)});
    test_support::capture_stderr cap;
    util::set_target(util::target::stderr_lines);
    util::set_level(util::level::info);
    route_protobuf_log();
    for (int i = 0; i < 100; ++i) {
        const auto r = run({msg});
        ASSERT_EQ(r.out.size(), 1u);  // the name is the peer's business; the SID is decoded
    }
    // The library's own log call, as any of its checks makes it (in every build).
    for (int i = 0; i < 100; ++i)
        GOOGLE_LOG(ERROR) << "a complaint " << i;
    const std::string out = cap.text();
    EXPECT_EQ(test_support::count_of(out, "libprotobuf"), 0u) << out;
    // One line for all of them (a peer's bytes: one line per 10 s), the first one's.
    EXPECT_EQ(test_support::count_of(out, "warn  protobuf: "), 1u) << out;
}

// Every member of the end_behavior oneof, by its field number, built by hand.
struct behavior_case {
    uint32_t field;
    rib::behavior behavior;
    bool csid;
    enum { none, nexthop6, nexthop4, with_vrf } param;
};
class ProtobufBehavior : public testing::TestWithParam<behavior_case> {};

TEST_P(ProtobufBehavior, OneofFieldNumber) {
    const auto& c = GetParam();
    buf param;
    if (c.param == behavior_case::with_vrf)
        param = vfield(1, 10);  // vrf_id
    const buf v6 = lfield(2, lfield(1, ip("2001:db8::2")));                  // L3Address.v6
    const buf v4 = lfield(1, f32field(1, 0xc0000201));                      // L3Address.v4 = 192.0.2.1
    const buf if_id = lfield(2, cat({vfield(1, 7), lfield(2, {'e', 't', 'h', '1'})}));  // IfIdentifier
    if (c.param == behavior_case::nexthop6)
        param = lfield(1, cat({if_id, lfield(3, v6)}));
    if (c.param == behavior_case::nexthop4)
        param = lfield(1, lfield(3, v4));
    const buf localsid = cat({lfield(1, lfield(1, ip("fc00:0:1::7"))),
                              lfield(2, cat({vfield(1, 32), vfield(2, 16), vfield(3, 16), vfield(4, 0)})),
                              lfield(c.field, param)});
    const auto r = run({cat({vfield(1, 3), lfield(4, localsid)})});
    ASSERT_EQ(r.out.size(), 1u) << "field " << c.field;
    EXPECT_EQ(r.total(), 0u);
    const auto& rt = body<route_upsert>(r.out[0]).route;
    EXPECT_EQ(rt.key.dst, pfx("fc00:0:1::7/128"));
    const auto& sl = *rt.nexthops.at(0).local;
    EXPECT_EQ(sl.action, c.behavior);
    EXPECT_EQ(sl.flavors, c.csid ? rib::flavor::next_csid : 0u);
    switch (c.param) {
    case behavior_case::with_vrf: EXPECT_EQ(sl.table, 10u); break;
    case behavior_case::nexthop6:
        EXPECT_EQ(sl.nh6, ip6("2001:db8::2"));
        EXPECT_EQ(sl.oif, 7u);
        EXPECT_EQ(sl.ifname, "eth1");
        break;
    case behavior_case::nexthop4: EXPECT_EQ(sl.nh4, rib::parse_addr("192.0.2.1")->v4()); break;
    case behavior_case::none: EXPECT_FALSE(sl.table); break;
    }
}

using rib::behavior;
INSTANTIATE_TEST_SUITE_P(AllBehaviors, ProtobufBehavior,
                         testing::Values(behavior_case{3, behavior::end, false, behavior_case::none},
                                         behavior_case{4, behavior::end_x, false, behavior_case::nexthop6},
                                         behavior_case{5, behavior::end_t, false, behavior_case::with_vrf},
                                         behavior_case{7, behavior::end_dx6, false, behavior_case::nexthop6},
                                         behavior_case{8, behavior::end_dx4, false, behavior_case::nexthop4},
                                         behavior_case{9, behavior::end_dt6, false, behavior_case::with_vrf},
                                         behavior_case{10, behavior::end_dt4, false, behavior_case::with_vrf},
                                         behavior_case{11, behavior::end_dt46, false, behavior_case::with_vrf},
                                         behavior_case{12, behavior::end, true, behavior_case::none},
                                         behavior_case{13, behavior::end_x, true, behavior_case::nexthop6},
                                         behavior_case{14, behavior::end_dt6, true, behavior_case::with_vrf},
                                         behavior_case{15, behavior::end_dt4, true, behavior_case::with_vrf},
                                         behavior_case{16, behavior::end_dt46, true, behavior_case::with_vrf}),
                         [](const testing::TestParamInfo<behavior_case>& i) {
                             return "field" + std::to_string(i.param.field);
                         });

// --- built with the generated classes

pb::Message add_route(uint32_t vrf, qpb::AddressFamily af, std::string_view prefix_bytes, uint32_t len) {
    pb::Message m;
    m.set_type(pb::Message::ADD_ROUTE);
    auto* a = m.mutable_add_route();
    a->set_vrf_id(vrf);
    a->set_address_family(af);
    a->set_sub_address_family(qpb::UNICAST);
    a->mutable_key()->mutable_prefix()->set_length(len);
    a->mutable_key()->mutable_prefix()->set_bytes(std::string(prefix_bytes));
    a->set_protocol(qpb::STATIC);
    a->set_metric(20);
    return m;
}
std::string raw(std::string_view text) {
    const buf b = ip(text);
    return std::string(b.begin(), b.end());
}

TEST(Protobuf, VpnSidGoesOnEveryPath) {
    auto m = add_route(12, qpb::IPV6, std::string("\x20\x01\x0d\xb8\x00\x10", 6), 48);
    auto* a = m.mutable_add_route();
    auto* n1 = a->add_nexthops();
    n1->mutable_if_id()->set_index(4);
    n1->mutable_address()->mutable_v6()->set_bytes(raw("fe80::1"));
    a->add_nexthops()->mutable_if_id()->set_index(5);
    a->mutable_srv6_vpn_sid()->set_bytes(raw("fc00:0:2:e004::"));
    a->mutable_srv6_encap_source_address()->set_bytes(raw("2001:db8::1"));
    const auto r = run({bytes_of(m)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& rt = body<route_upsert>(r.out[0]).route;
    EXPECT_EQ(rt.key.table, 12u);
    EXPECT_EQ(rt.key.dst, pfx("2001:db8:10::/48"));
    EXPECT_EQ(rt.protocol, rib::proto::zstatic);
    ASSERT_EQ(rt.nexthops.size(), 2u);
    rib::seg6_encap want;
    want.mode = rib::encap_mode::encap;
    want.segments = {ip6("fc00:0:2:e004::")};
    want.source = ip6("2001:db8::1");
    EXPECT_EQ(rt.nexthops[0].ifindex, 4u);
    EXPECT_EQ(rt.nexthops[0].gateway, rib::parse_addr("fe80::1"));
    EXPECT_EQ(rt.nexthops[0].seg6, want);
    EXPECT_EQ(rt.nexthops[1].ifindex, 5u);
    EXPECT_FALSE(rt.nexthops[1].gateway);
    EXPECT_EQ(rt.nexthops[1].seg6, want);
}

TEST(Protobuf, VpnSidWithoutNexthopsIsOnePath) {
    auto m = add_route(0, qpb::IPV4, std::string("\x0a", 1), 8);
    m.mutable_add_route()->mutable_srv6_vpn_sid()->set_bytes(raw("fc00::1"));
    const auto r = run({bytes_of(m)});
    ASSERT_EQ(r.out.size(), 1u);
    const auto& rt = body<route_upsert>(r.out[0]).route;
    ASSERT_EQ(rt.nexthops.size(), 1u);
    EXPECT_EQ(rt.nexthops[0].seg6->segments, std::vector<rib::ip6_addr>{ip6("fc00::1")});
    EXPECT_FALSE(rt.nexthops[0].seg6->source);
}

TEST(Protobuf, RouteTypes) {
    auto normal = add_route(0, qpb::IPV4, "", 0);  // no route_type: a normal route
    auto blackhole = add_route(0, qpb::IPV4, std::string("\xc0\x00\x02", 3), 24);
    blackhole.mutable_add_route()->set_route_type(pb::BLACKHOLE);
    auto unreachable = add_route(0, qpb::IPV4, std::string("\xc6\x33\x64", 3), 24);
    unreachable.mutable_add_route()->set_route_type(pb::UNREACHABLE);
    const auto r = run({bytes_of(normal), bytes_of(blackhole), bytes_of(unreachable)});
    ASSERT_EQ(r.out.size(), 3u);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.dst, pfx("0.0.0.0/0"));
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.type, rib::route_type::unicast);
    EXPECT_EQ(body<route_upsert>(r.out[1]).route.type, rib::route_type::blackhole);
    EXPECT_EQ(body<route_upsert>(r.out[2]).route.type, rib::route_type::unreachable);
}

TEST(Protobuf, ProtocolsMapOntoRtmProtocol) {
    const std::vector<std::pair<qpb::Protocol, uint8_t>> cases = {
        {qpb::UNKNOWN_PROTO, 0}, {qpb::LOCAL, 2},  {qpb::CONNECTED, 2}, {qpb::KERNEL, 2},
        {qpb::STATIC, 196},      {qpb::RIP, 189},  {qpb::RIPNG, 190},   {qpb::OSPF, 188},
        {qpb::ISIS, 187},        {qpb::BGP, 186},  {qpb::OTHER, 11}};
    for (const auto& [p, want] : cases) {
        auto m = add_route(0, qpb::IPV4, "", 0);
        m.mutable_add_route()->set_protocol(p);
        const auto r = run({bytes_of(m)});
        ASSERT_EQ(r.out.size(), 1u);
        EXPECT_EQ(body<route_upsert>(r.out[0]).route.protocol, want) << qpb::Protocol_Name(p);
    }
}

pb::Message localsid(pb::Message::Type type, std::string_view sid) {
    pb::Message m;
    m.set_type(type);
    m.mutable_srv6_localsid()->mutable_sid()->set_bytes(raw(sid));
    return m;
}

TEST(Protobuf, UsidLengthsAndDelete) {
    auto un = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00:0:1::");
    auto* f = un.mutable_srv6_localsid()->mutable_sid_format();
    f->set_locator_block_length(32);
    f->set_locator_node_length(16);
    f->set_function_length(16);
    f->set_argument_length(0);
    un.mutable_srv6_localsid()->mutable_un();
    auto udt = un;
    udt.mutable_srv6_localsid()->mutable_udt46()->set_vrf_id(3);
    const auto del = localsid(pb::Message::DELETE_SRV6_LOCALSID, "fc00:0:1::");
    const auto r = run({bytes_of(un), bytes_of(udt), bytes_of(del)});
    ASSERT_EQ(r.out.size(), 3u);
    EXPECT_EQ(r.total(), 0u);
    const auto& sl_un = *body<route_upsert>(r.out[0]).route.nexthops.at(0).local;
    EXPECT_EQ(sl_un.lcblock_bits, 32);
    EXPECT_EQ(sl_un.lcnode_fn_bits, 16);
    const auto& sl_udt = *body<route_upsert>(r.out[1]).route.nexthops.at(0).local;
    EXPECT_EQ(sl_udt.lcnode_fn_bits, 32);
    EXPECT_EQ(sl_udt.table, 3u);
    const auto& k = body<route_delete>(r.out[2]).key;
    EXPECT_EQ(k.table, rib::main_table);
    EXPECT_EQ(k.dst, pfx("fc00:0:1::/128"));
}

TEST(Protobuf, CountsMessagesByType) {
    const auto r = run({hex(add_hex), hex(delete_hex), hex(localsid_hex), hex("08 00")});
    EXPECT_EQ(r.stats.messages, 4u);
    EXPECT_EQ(r.stats.msg_types.at(0x8001), 1u);
    EXPECT_EQ(r.stats.msg_types.at(0x8002), 1u);
    EXPECT_EQ(r.stats.msg_types.at(0x8003), 1u);
    EXPECT_EQ(r.stats.msg_types.at(0x8000), 1u);
    EXPECT_EQ(r.n(reason::ignored_msg_type), 1u);  // UNKNOWN_MSG
}

TEST(Protobuf, ArrivesAsFpmFrameType2) {
    const buf payload = hex(add_hex);
    const size_t n = 4 + payload.size();
    const buf frame = cat({{1, 2, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)}, payload});
    ingest_stats st;
    decode_ctx ctx(st);
    std::vector<update> out;
    decode_frame(frame, ctx, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].from, dialect::protobuf);
    EXPECT_EQ(st.protobuf_frames, 1u);
    EXPECT_EQ(st.updates, 1u);
}

// --- malformed: one per reason; the good message after each still decodes.
void expect_rejected(const buf& bad, reason why) {
    const auto r = run({bad, hex(add_hex)});
    EXPECT_EQ(r.n(why), 1u) << name(why);
    EXPECT_EQ(r.total(), 1u) << name(why);
    ASSERT_EQ(r.out.size(), 1u) << name(why);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.dst, pfx("10.1.2.0/24"));
}

TEST(ProtobufMalformed, DoesNotParse) {
    expect_rejected(hex("12 05 08"), reason::pb_parse_failed);         // 5-byte field, 1 byte left
    expect_rejected(hex("08 ff ff ff ff ff ff ff ff ff ff ff"), reason::pb_parse_failed);  // endless varint
    expect_rejected(hex("0f"), reason::pb_parse_failed);               // wire type 7
}

TEST(ProtobufMalformed, MissingFields) {
    auto no_protocol = add_route(0, qpb::IPV4, "", 0);
    no_protocol.mutable_add_route()->clear_protocol();
    expect_rejected(bytes_of(no_protocol), reason::pb_missing_field);
    expect_rejected(vfield(1, 1), reason::pb_missing_field);  // ADD_ROUTE without add_route
    auto no_prefix = add_route(0, qpb::IPV4, "", 0);
    no_prefix.mutable_add_route()->mutable_key()->clear_prefix();
    expect_rejected(bytes_of(no_prefix), reason::pb_missing_field);
    expect_rejected(bytes_of(localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1")), reason::pb_missing_field);
    // A behaviour without its parameter is the contract's refusal, as from netlink and SONiC.
    auto endx = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1");
    endx.mutable_srv6_localsid()->mutable_end_x();
    expect_rejected(bytes_of(endx), reason::seg6local_missing_attr);
    auto dt4 = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1");
    dt4.mutable_srv6_localsid()->mutable_end_dt4();
    expect_rejected(bytes_of(dt4), reason::seg6local_missing_attr);
    expect_rejected(vfield(1, 4), reason::pb_missing_field);  // DELETE_SRV6_LOCALSID without the SID
}

// The behavior contract's requirements: an End.X adjacency is an IPv6 neighbour, an End.DX4 one
// an IPv4 neighbour; the other family leaves the behavior without what it needs.
TEST(ProtobufMalformed, NexthopOfTheWrongFamilyForTheBehavior) {
    const buf v4 = lfield(1, f32field(1, 0xc0000201));   // L3Address.v4 = 192.0.2.1
    const buf v6 = lfield(2, lfield(1, ip("2001:db8::2")));  // L3Address.v6
    auto localsid_with = [](uint32_t field, const buf& addr) {
        const buf sid = cat({lfield(1, lfield(1, ip("fc00:0:1::7"))), lfield(field, lfield(1, lfield(3, addr)))});
        return cat({vfield(1, 3), lfield(4, sid)});
    };
    expect_rejected(localsid_with(4, v4), reason::seg6local_missing_attr);   // end_x
    expect_rejected(localsid_with(13, v4), reason::seg6local_missing_attr);  // ua
    expect_rejected(localsid_with(7, v4), reason::seg6local_missing_attr);   // end_dx6
    expect_rejected(localsid_with(8, v6), reason::seg6local_missing_attr);   // end_dx4
    EXPECT_EQ(run({localsid_with(8, v4)}).out.size(), 1u);
}

// The words are the contract's (rib/sid_params.hh), the same from netlink (seg6local_test),
// SONiC (sonic_test) and a [sids] line (tests/unit/vrf/sid_parse_test.cc).
TEST(ProtobufMalformed, MissingParameterInTheContractsWords) {
    auto dx4 = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1");
    dx4.mutable_srv6_localsid()->mutable_end_dx4();
    auto r = run({bytes_of(dx4)});
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(r.last_error, "End.DX4 needs an IPv4 next hop (nh4)");
    auto udt46 = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1");
    udt46.mutable_srv6_localsid()->mutable_udt46();
    r = run({bytes_of(udt46)});
    EXPECT_EQ(r.last_error, "End.DT46 needs a VRF (table or vrf)");
}

TEST(ProtobufMalformed, BadSizes) {
    expect_rejected(bytes_of(add_route(0, qpb::IPV4, std::string("\x0a\x01\x02", 3), 16)), reason::pb_bad_address);
    auto gw = add_route(0, qpb::IPV6, "", 0);
    gw.mutable_add_route()->add_nexthops()->mutable_address()->mutable_v6()->set_bytes(std::string(15, '\1'));
    expect_rejected(bytes_of(gw), reason::pb_bad_address);
    auto sid = add_route(0, qpb::IPV6, "", 0);
    sid.mutable_add_route()->mutable_srv6_vpn_sid()->set_bytes(std::string(4, '\1'));
    expect_rejected(bytes_of(sid), reason::pb_bad_address);
    auto src = add_route(0, qpb::IPV6, "", 0);
    src.mutable_add_route()->mutable_srv6_vpn_sid()->set_bytes(raw("fc00::1"));
    src.mutable_add_route()->mutable_srv6_encap_source_address()->set_bytes(std::string(17, '\1'));
    expect_rejected(bytes_of(src), reason::pb_bad_address);
    auto short_sid = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1");
    short_sid.mutable_srv6_localsid()->mutable_sid()->set_bytes(std::string(8, '\1'));
    short_sid.mutable_srv6_localsid()->mutable_end();
    expect_rejected(bytes_of(short_sid), reason::pb_bad_address);
    auto fmt = localsid(pb::Message::ADD_SRV6_LOCALSID, "fc00::1");
    auto* f = fmt.mutable_srv6_localsid()->mutable_sid_format();
    f->set_locator_block_length(64);
    f->set_locator_node_length(64);
    f->set_function_length(16);
    f->set_argument_length(0);
    fmt.mutable_srv6_localsid()->mutable_end();
    expect_rejected(bytes_of(fmt), reason::pb_bad_address);
}

TEST(ProtobufMalformed, FamilyAndLength) {
    expect_rejected(bytes_of(add_route(0, qpb::UNKNOWN_AF, "", 0)), reason::route_bad_family);
    expect_rejected(bytes_of(add_route(0, qpb::IPV4, std::string(5, '\1'), 33)), reason::route_bad_prefix_len);
}

}  // namespace
}  // namespace fpm
