// SONiC dialect (dplane_fpm_sonic): hand-built messages for every message type and action
// code, one literal checked byte for byte against fpm-protocol.md §3, and one malformed case
// per reason, each followed by a good message to show the rest keeps working.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "fpm/decoder.hh"
#include "fpm/sonic_wire.hh"
#include "tests/support/nl_builder.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using buf = test_support::bytes;

// --- netlink by hand (tests/support/nl_builder.hh): host-order integers (x86, like zebra),
// network-order addresses.
using test_support::cat;
using test_support::nl::attr;
using test_support::nl::nest;
using test_support::nl::nhmsg;
using test_support::nl::u16;
using test_support::nl::u32;
using test_support::nl::u8;
template <typename T>
buf le(T v) {
    return test_support::host(v);
}
buf str(std::string_view s) { return buf(s.begin(), s.end()); }
buf cstr(std::string_view s) { return cat({str(s), {0}}); }
buf ip(std::string_view text) { return test_support::addr_bytes(text); }
// SONiC's messages: rtm_type unicast unless told, no flags; nlmsg_pid 0.
buf rtmsg(uint8_t family, uint8_t dst_len, uint8_t table, uint8_t protocol, uint8_t type = 1) {
    return test_support::nl::rtmsg(family, dst_len, table, protocol, type);
}
buf nlmsg(uint16_t type, const buf& body, uint16_t flags = 0x401) { return test_support::nl::nlmsg(type, body, flags, 0); }
buf hex(std::string_view s) { return test_support::parse_hex(s); }

rib::ip6_addr ip6(std::string_view s) { return *rib::parse_ip6(s); }
rib::prefix pfx(std::string_view s) { return *rib::parse_prefix(s); }

// SONiC attribute ids, spelled out from the spec tables rather than taken from sonic_wire.hh.
constexpr uint16_t sid_value = 1, format = 2, action = 3, vrfname = 4, nh6 = 5, nh4 = 6, ifname = 12;
constexpr uint16_t rta_dst = 1, rta_table = 15, rta_encap_type = 21, rta_encap = 22;
constexpr uint16_t nha_id = 1, nha_group = 2, nha_oif = 5, nha_gateway = 6, nha_encap_type = 7, nha_encap = 8;

buf format_nest(uint8_t block, uint8_t node, uint8_t func, uint8_t arg) {
    return nest(format, cat({attr(1, u8(block)), attr(2, u8(node)), attr(3, u8(func)), attr(4, u8(arg))}));
}
buf localsid(uint16_t type, std::string_view sid, uint8_t len, const buf& attrs, uint8_t table = 0) {
    return nlmsg(type, cat({rtmsg(10, len, table, 186), attr(sid_value, ip(sid)), attrs}));
}

// --- decoding
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

// Each buffer holds one netlink message, decoded with decode_sonic() directly.
result run(std::initializer_list<buf> msgs) {
    result r;
    decode_ctx ctx(r.stats);
    for (const auto& b : msgs) {
        nl::message_walker w(b);
        const auto m = w.next();
        EXPECT_TRUE(m);
        if (m)
            decode_sonic(*m, ctx, r.out);
    }
    r.last_error = ctx.last_error;
    return r;
}

template <typename T>
const T& body(const update& u) {
    EXPECT_EQ(u.from, dialect::sonic);
    return std::get<T>(u.body);
}

const rib::seg6local& local_of(const update& u) {
    const auto& r = body<route_upsert>(u).route;
    EXPECT_EQ(r.nexthops.size(), 1u);
    return *r.nexthops.at(0).local;
}

// The literal below is written from the §3.3 table: End.DT46 fc00:0:1::100/128 of VRF "Vrf10",
// FORMAT 32/16/16/0, protocol BGP (186).
const char* const dt46_literal =
    "68 00 00 00 e8 03 01 04 00 00 00 00 00 00 00 00"  // nlmsghdr: 104 bytes, 1000, REQUEST|CREATE
    "0a 80 00 00 00 ba 00 01 00 00 00 00"              // rtmsg: AF_INET6 /128, table 0, proto 186, unicast
    "14 00 01 00 fc 00 00 00 00 01 00 00 00 00 00 00 00 00 01 00"  // SID_VALUE
    "24 00 02 80"                                      // FORMAT (nested)
    "05 00 01 00 20 00 00 00  05 00 02 00 10 00 00 00"  //   BLOCK_LEN 32, NODE_LEN 16
    "05 00 03 00 10 00 00 00  05 00 04 00 00 00 00 00"  //   FUNC_LEN 16, ARG_LEN 0
    "08 00 03 00 09 00 00 00"                          // ACTION 9 = END_DT46
    "0a 00 04 00 56 72 66 31 30 00 00 00";             // VRFNAME "Vrf10\0" + 2 padding

TEST(SonicLocalSid, BuilderMatchesSpecLiteral) {
    const buf built = localsid(1000, "fc00:0:1::100", 128,
                               cat({format_nest(32, 16, 16, 0), attr(action, u32(9)), attr(vrfname, cstr("Vrf10"))}));
    EXPECT_EQ(built, hex(dt46_literal));
}

TEST(SonicLocalSid, LiteralDecodesToSidRoute) {
    const auto r = run({hex(dt46_literal)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);

    rib::route want;
    want.key.table = rib::main_table;
    want.key.dst = pfx("fc00:0:1::100/128");
    want.type = rib::route_type::unicast;
    want.protocol = rib::proto::bgp;
    rib::seg6local sl;
    sl.action = rib::behavior::end_dt46;
    sl.structure = rib::sid_structure{32, 16, 16, 0};
    sl.vrf_name = "Vrf10";
    rib::nexthop nh;
    nh.local = sl;
    want.nexthops = {nh};
    EXPECT_EQ(body<route_upsert>(r.out[0]).route, want);
}

TEST(SonicLocalSid, DispatchedFromAnFpmFrame) {
    const buf msg = hex(dt46_literal);
    const size_t n = 4 + msg.size();
    const buf frame = cat({{1, 1, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)}, msg});
    ingest_stats st;
    decode_ctx ctx(st);
    std::vector<update> out;
    decode_frame(frame, ctx, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].from, dialect::sonic);
    EXPECT_EQ(std::get<route_upsert>(out[0].body).route.nexthops.at(0).local->action, rib::behavior::end_dt46);
    EXPECT_EQ(st.msg_types[1000], 1u);
}

// Every SONiC action code, against the mapping written out from fpm-protocol.md §3.3 (and the
// decisions of docs/fpm-dialects.md for the B6 variants).
struct action_case {
    uint32_t code;
    rib::behavior behavior;
    bool csid;
    enum { none, with_nh6, with_nh4, with_vrf, with_sidlist, with_ifname } needs;
};
class SonicAction : public testing::TestWithParam<action_case> {};

TEST_P(SonicAction, MapsToKernelBehaviorAndFlavors) {
    const auto& c = GetParam();
    buf attrs = cat({format_nest(32, 16, 16, 0), attr(action, u32(c.code))});
    if (c.needs == action_case::with_nh6)
        attrs = cat({attrs, attr(nh6, ip("2001:db8::2")), attr(ifname, cstr("Ethernet0"))});
    if (c.needs == action_case::with_nh4)
        attrs = cat({attrs, attr(nh4, ip("192.0.2.1"))});
    if (c.needs == action_case::with_vrf)
        attrs = cat({attrs, attr(vrfname, cstr("Vrf1"))});
    if (c.needs == action_case::with_sidlist)
        attrs = cat({attrs, attr(10, cstr("policy1"))});
    if (c.needs == action_case::with_ifname)  // End.DX2's port
        attrs = cat({attrs, attr(ifname, cstr("Ethernet4"))});
    const auto r = run({localsid(1000, "fc00:0:1:e000::", 64, attrs)});
    ASSERT_EQ(r.out.size(), 1u) << "code " << c.code;
    EXPECT_EQ(r.total(), 0u);
    const auto& sl = local_of(r.out[0]);
    EXPECT_EQ(sl.action, c.behavior);
    EXPECT_EQ(sl.flavors, c.csid ? rib::flavor::next_csid : 0u);
    EXPECT_EQ(sl.lcblock_bits.has_value(), c.csid);
    if (c.needs == action_case::with_nh6) {
        EXPECT_EQ(sl.nh6, ip6("2001:db8::2"));
        EXPECT_EQ(sl.ifname, "Ethernet0");
    }
    if (c.needs == action_case::with_nh4) {
        EXPECT_EQ(sl.nh4, rib::parse_addr("192.0.2.1")->v4());
    }
    if (c.needs == action_case::with_vrf) {
        EXPECT_EQ(sl.vrf_name, "Vrf1");
    }
    if (c.needs == action_case::with_sidlist) {  // End.B6.Encaps(.Red): the policy by name
        ASSERT_TRUE(sl.srh.has_value());
        EXPECT_EQ(sl.srh->sidlist_name, "policy1");
        EXPECT_EQ(sl.srh->mode, c.code == 11 ? rib::encap_mode::encap_red : rib::encap_mode::encap);
    }
    if (c.needs == action_case::with_ifname) {
        EXPECT_EQ(sl.ifname, "Ethernet4");
    }
}

// End.B6.Encaps needs its policy: a B6_ENCAPS without SIDLIST is refused with the reason.
TEST(SonicLocalSid, B6EncapsWithoutSidListIsRefused) {
    const auto r = run({localsid(1000, "fc00:0:1:e000::", 64, cat({format_nest(32, 16, 16, 0), attr(action, u32(10))}))});
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(r.n(reason::seg6local_missing_attr), 1u);
}

using rib::behavior;
INSTANTIATE_TEST_SUITE_P(
    AllCodes, SonicAction,
    testing::Values(action_case{1, behavior::end, false, action_case::none},
                    action_case{2, behavior::end_x, false, action_case::with_nh6},
                    action_case{3, behavior::end_t, false, action_case::with_vrf},
                    action_case{4, behavior::end_dx2, false, action_case::with_ifname},
                    action_case{5, behavior::end_dx6, false, action_case::with_nh6},
                    action_case{6, behavior::end_dx4, false, action_case::with_nh4},
                    action_case{7, behavior::end_dt6, false, action_case::with_vrf},
                    action_case{8, behavior::end_dt4, false, action_case::with_vrf},
                    action_case{9, behavior::end_dt46, false, action_case::with_vrf},
                    action_case{10, behavior::end_b6_encaps, false, action_case::with_sidlist},
                    action_case{11, behavior::end_b6_encaps, false, action_case::with_sidlist},
                    action_case{12, behavior::end_b6, false, action_case::none},
                    action_case{13, behavior::end_b6, false, action_case::none},
                    action_case{14, behavior::end, true, action_case::none},
                    action_case{15, behavior::end_x, true, action_case::with_nh6},
                    action_case{16, behavior::end_dx2, true, action_case::with_ifname},
                    action_case{17, behavior::end_dx6, true, action_case::with_nh6},
                    action_case{18, behavior::end_dx4, true, action_case::with_nh4},
                    action_case{19, behavior::end_dt6, true, action_case::with_vrf},
                    action_case{20, behavior::end_dt4, true, action_case::with_vrf},
                    action_case{21, behavior::end_dt46, true, action_case::with_vrf}),
    [](const testing::TestParamInfo<action_case>& i) { return "code" + std::to_string(i.param.code); });

TEST(SonicLocalSid, NextCsidLengthsComeFromTheFormat) {
    // uN is a block+node prefix: its C-SID is the node. uA carries a function after the node.
    const auto r = run({localsid(1000, "fc00:0:1::", 48, cat({format_nest(32, 16, 16, 0), attr(action, u32(14))})),
                        localsid(1000, "fc00:0:1:e001::", 64,
                                 cat({format_nest(32, 16, 16, 0), attr(action, u32(15)), attr(nh6, ip("fe80::1"))}))});
    ASSERT_EQ(r.out.size(), 2u);
    const auto& un = local_of(r.out[0]);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.dst, pfx("fc00:0:1::/48"));
    EXPECT_EQ(un.lcblock_bits, 32);
    EXPECT_EQ(un.lcnode_fn_bits, 16);
    const auto& ua = local_of(r.out[1]);
    EXPECT_EQ(ua.lcblock_bits, 32);
    EXPECT_EQ(ua.lcnode_fn_bits, 32);
    // Without NEXT-CSID there is nothing to shift: no lengths.
    const auto plain = run({localsid(1000, "fc00:0:1::1", 128, cat({format_nest(32, 16, 16, 0), attr(action, u32(1))}))});
    EXPECT_FALSE(local_of(plain.out.at(0)).lcblock_bits);
}

TEST(SonicLocalSid, DefaultVrfSidTableWhateverRtmTableSays) {
    const auto r = run({localsid(1000, "fc00:0:1::7", 128, attr(action, u32(1)), 42)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.table, rib::main_table);
}

TEST(SonicLocalSid, DeleteIsKeyedBySidPrefixOnly) {
    // Newer encoders echo the SID as RTA_DST (same id 1); FORMAT is still sent on delete.
    const auto r = run({localsid(1001, "fc00:0:1::", 48, cat({attr(rta_dst, ip("fc00:0:1::")), format_nest(32, 16, 16, 0)}), 9)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& k = body<route_delete>(r.out[0]).key;
    EXPECT_EQ(k.table, rib::main_table);
    EXPECT_EQ(k.dst, pfx("fc00:0:1::/48"));
}

TEST(SonicLocalSid, StringsAreBoundedByThePayload) {
    // No NUL at all: the payload length ends the name. Padding NULs are not part of it.
    const auto r = run({localsid(1000, "fc00::1", 128, cat({attr(action, u32(9)), attr(vrfname, str("VrfNoNul"))})),
                        localsid(1000, "fc00::2", 128, cat({attr(action, u32(9)), attr(vrfname, cat({cstr("Vrf2"), buf(7, 0)}))}))});
    ASSERT_EQ(r.out.size(), 2u);
    EXPECT_EQ(local_of(r.out[0]).vrf_name, "VrfNoNul");
    EXPECT_EQ(local_of(r.out[1]).vrf_name, "Vrf2");
}

// --- malformed local SIDs: one per reason; the good message after each still goes through.
const buf good_sid = localsid(1000, "fc00:0:9::1", 128, attr(action, u32(1)));

void expect_rejected(const buf& bad, reason why) {
    const auto r = run({bad, good_sid});
    EXPECT_EQ(r.n(why), 1u) << name(why);
    EXPECT_EQ(r.total(), 1u) << name(why);
    ASSERT_EQ(r.out.size(), 1u) << name(why);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.dst, pfx("fc00:0:9::1/128"));
}

TEST(SonicLocalSidMalformed, BodyShorterThanRtmsg) {
    expect_rejected(nlmsg(1000, buf(8, 0)), reason::nlmsg_body_short);
}
TEST(SonicLocalSidMalformed, NotIpv6) {
    expect_rejected(nlmsg(1000, cat({rtmsg(2, 32, 0, 186), attr(sid_value, ip("fc00::1")), attr(action, u32(1))})),
                    reason::route_bad_family);
}
TEST(SonicLocalSidMalformed, PrefixLongerThan128) {
    expect_rejected(localsid(1000, "fc00::1", 129, attr(action, u32(1))), reason::route_bad_prefix_len);
}
TEST(SonicLocalSidMalformed, SidMissingOrWrongSize) {
    expect_rejected(nlmsg(1000, cat({rtmsg(10, 128, 0, 186), attr(action, u32(1))})), reason::sonic_bad_sid);
    expect_rejected(nlmsg(1000, cat({rtmsg(10, 128, 0, 186), attr(sid_value, buf(15, 1)), attr(action, u32(1))})),
                    reason::sonic_bad_sid);
    expect_rejected(nlmsg(1001, rtmsg(10, 128, 0, 186)), reason::sonic_bad_sid);
}
TEST(SonicLocalSidMalformed, ActionUnknownOrMissing) {
    expect_rejected(localsid(1000, "fc00::1", 128, attr(action, u32(22))), reason::sonic_bad_action);
    expect_rejected(localsid(1000, "fc00::1", 128, attr(action, u32(0))), reason::sonic_bad_action);
    expect_rejected(localsid(1000, "fc00::1", 128, format_nest(32, 16, 16, 0)), reason::sonic_bad_action);
}
TEST(SonicLocalSidMalformed, FormatNest) {
    const buf u16_len = nest(format, cat({attr(1, u8(32)), attr(2, u16(16))}));
    expect_rejected(localsid(1000, "fc00::1", 128, cat({u16_len, attr(action, u32(1))})), reason::sonic_bad_format);
    expect_rejected(localsid(1000, "fc00::1", 128, cat({format_nest(64, 64, 16, 0), attr(action, u32(1))})),
                    reason::sonic_bad_format);
    const buf cut = nest(format, cat({attr(1, u8(32)), hex("08 00 02 00")}));  // claims 8, has 4
    expect_rejected(localsid(1000, "fc00::1", 128, cat({cut, attr(action, u32(1))})), reason::sonic_bad_format);
}
TEST(SonicLocalSidMalformed, AttributeRunsPastMessage) {
    expect_rejected(localsid(1000, "fc00::1", 128, cat({attr(action, u32(1)), hex("20 00 04 00 41 42 43 44")})),
                    reason::attr_truncated);
}
TEST(SonicLocalSidMalformed, WrongSizedParameters) {
    expect_rejected(localsid(1000, "fc00::1", 128, cat({attr(action, u32(2)), attr(nh6, buf(15, 1))})),
                    reason::attr_bad_len);
    expect_rejected(localsid(1000, "fc00::1", 128, cat({attr(action, u32(6)), attr(nh4, buf(16, 1))})),
                    reason::attr_bad_len);
    expect_rejected(localsid(1000, "fc00::1", 128, attr(action, u16(1))), reason::attr_bad_len);
}
TEST(SonicLocalSidMalformed, BehaviorWithoutItsParameter) {
    expect_rejected(localsid(1000, "fc00::1", 128, attr(action, u32(2))), reason::seg6local_missing_attr);
    expect_rejected(localsid(1000, "fc00::1", 128, attr(action, u32(18))), reason::seg6local_missing_attr);
    expect_rejected(localsid(1000, "fc00::1", 128, attr(action, u32(21))), reason::seg6local_missing_attr);
    expect_rejected(localsid(1000, "fc00::1", 128, cat({attr(action, u32(9)), attr(vrfname, cstr(""))})),
                    reason::seg6local_missing_attr);
}

// The words are the contract's (rib/sid_params.hh), the same from netlink (seg6local_test),
// protobuf (protobuf_test) and a [sids] line (tests/unit/vrf/sid_parse_test.cc).
TEST(SonicLocalSidMalformed, MissingParameterInTheContractsWords) {
    auto r = run({localsid(1000, "fc00::1", 128, cat({attr(action, u32(6)), attr(vrfname, cstr("default"))}))});
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(r.last_error, "End.DX4 needs an IPv4 next hop (nh4)");
    r = run({localsid(1000, "fc00::1", 128, attr(action, u32(4)))});  // End.DX2 without IFNAME
    EXPECT_EQ(r.last_error, "End.DX2 needs an interface (oif or ifname)");
    r = run({localsid(1000, "fc00::1", 128, cat({format_nest(64, 64, 16, 0), attr(action, u32(1))}))});
    EXPECT_EQ(r.n(reason::sonic_bad_format), 1u);
    EXPECT_EQ(r.last_error, "SID structure of 144 bits (block 64 + node 64 + function 16 + argument 0) is longer than 128");
}

TEST(SonicLocalSid, TwoDifferentSidsKeepTheFirst) {
    const auto r = run({localsid(1000, "fc00::1", 128, cat({attr(rta_dst, ip("fc00::2")), attr(action, u32(1))}))});
    EXPECT_EQ(r.n(reason::attr_duplicate), 1u);
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.dst, pfx("fc00::1/128"));
}

TEST(SonicLocalSid, UnusedAttributesAreSkippedAndCounted) {
    // IIF (7) and BPF (9) are defined by SONiC but not used by srv6d.
    const auto r = run({localsid(1000, "fc00::1", 128, cat({attr(7, u32(3)), attr(action, u32(1)), attr(9, u32(0))}))});
    EXPECT_EQ(r.n(reason::ignored_attr), 2u);
    EXPECT_EQ(r.total(), 2u);
    EXPECT_EQ(r.out.size(), 1u);
}

TEST(Sonic, NonSonicTypeIsIgnored) {
    const auto r = run({nlmsg(1002, rtmsg(10, 128, 0, 186)), good_sid});
    EXPECT_EQ(r.n(reason::ignored_msg_type), 1u);
    EXPECT_EQ(r.out.size(), 1u);
}

// --- SRv6 VPN routes (3000/3001)

// Written from the §3.4 table: NHG-mode 2001:db8:10::/48 in VRF ifindex 12, PIC_ID 7, NH_ID 0.
const char* const vpn_literal =
    "4c 00 00 00 b8 0b 01 04 00 00 00 00 00 00 00 00"  // nlmsghdr: 76 bytes, 3000
    "0a 30 00 00 0c ba 00 01 00 00 00 00"              // rtmsg: AF_INET6 /48, table 12, proto 186
    "14 00 01 00 20 01 0d b8 00 10 00 00 00 00 00 00 00 00 00 00"  // RTA_DST
    "06 00 15 00 65 00 00 00"                          // RTA_ENCAP_TYPE 101 (u16, padded)
    "14 00 16 80"                                      // RTA_ENCAP (nested)
    "08 00 03 00 07 00 00 00  08 00 04 00 00 00 00 00";  //   PIC_ID 7, NH_ID 0

buf vpn_encap(const buf& children) { return cat({attr(rta_encap_type, u16(101)), nest(rta_encap, children)}); }
buf vpn_route(uint16_t type, uint8_t family, std::string_view dst, uint8_t len, uint8_t table, const buf& attrs) {
    return nlmsg(type, cat({rtmsg(family, len, table, 186), attr(rta_dst, ip(dst)), attrs}));
}

TEST(SonicVpnRoute, LiteralMatchesBuilderAndDecodes) {
    const buf built = vpn_route(3000, 10, "2001:db8:10::", 48, 12, vpn_encap(cat({attr(3, u32(7)), attr(4, u32(0))})));
    EXPECT_EQ(built, hex(vpn_literal));
    const auto r = run({hex(vpn_literal)});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    rib::route want;
    want.key.table = 12;  // the VRF ifindex, kept as sent
    want.key.dst = pfx("2001:db8:10::/48");
    want.protocol = rib::proto::bgp;
    want.pic_id = 7;      // NH_ID 0 = none
    EXPECT_EQ(body<route_upsert>(r.out[0]).route, want);
}

TEST(SonicVpnRoute, VpnSidBecomesAnEncapPath) {
    const auto r = run({vpn_route(3000, 2, "10.1.0.0", 24, 0,
                                  cat({attr(rta_table, u32(1234)),
                                       vpn_encap(cat({attr(1, ip("fc00:0:2:e004::")), attr(2, ip("2001:db8::1")),
                                                      attr(3, u32(7)), attr(4, u32(9))}))}))});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& rt = body<route_upsert>(r.out[0]).route;
    EXPECT_EQ(rt.key.table, 1234u);  // RTA_TABLE wins over rtm_table
    EXPECT_EQ(rt.key.dst, pfx("10.1.0.0/24"));
    EXPECT_EQ(rt.pic_id, 7u);
    EXPECT_EQ(rt.nh_id, 9u);
    ASSERT_EQ(rt.nexthops.size(), 1u);
    rib::seg6_encap want;
    want.mode = rib::encap_mode::encap;
    want.segments = {ip6("fc00:0:2:e004::")};
    want.source = ip6("2001:db8::1");
    EXPECT_EQ(rt.nexthops[0].seg6, want);
}

TEST(SonicVpnRoute, UnspecifiedSourceIsNoSource) {
    const auto r = run({vpn_route(3000, 10, "2001:db8:20::", 48, 5,
                                  vpn_encap(cat({attr(2, ip("::")), attr(1, ip("fc00:0:2::100"))})))});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_FALSE(body<route_upsert>(r.out[0]).route.nexthops.at(0).seg6->source);
}

TEST(SonicVpnRoute, Delete) {
    const auto r = run({vpn_route(3001, 10, "2001:db8:10::", 48, 12, vpn_encap(attr(3, u32(7))))});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& k = body<route_delete>(r.out[0]).key;
    EXPECT_EQ(k.table, 12u);
    EXPECT_EQ(k.dst, pfx("2001:db8:10::/48"));
}

const buf good_vpn = vpn_route(3000, 2, "10.9.0.0", 16, 3, vpn_encap(attr(3, u32(1))));

void expect_vpn_rejected(const buf& bad, reason why, uint64_t times = 1) {
    const auto r = run({bad, good_vpn});
    EXPECT_EQ(r.n(why), times) << name(why);
    EXPECT_EQ(r.total(), times) << name(why);
    ASSERT_EQ(r.out.size(), 1u) << name(why);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.key.dst, pfx("10.9.0.0/16"));
}

TEST(SonicVpnRouteMalformed, Encap) {
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 24, 3, vpn_encap(attr(3, u16(7)))), reason::sonic_bad_vpn_encap);
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 24, 3, vpn_encap(attr(1, ip("10.0.0.1")))),
                        reason::sonic_bad_vpn_encap);
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 24, 3, {}), reason::sonic_bad_vpn_encap);
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 24, 3, vpn_encap(attr(4, u32(3)))), reason::sonic_bad_vpn_encap);
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 24, 3, vpn_encap(hex("0c 00 03 00 07 00 00 00"))),
                        reason::sonic_bad_vpn_encap);
}
TEST(SonicVpnRouteMalformed, Header) {
    expect_vpn_rejected(nlmsg(3000, buf(4, 0)), reason::nlmsg_body_short);
    expect_vpn_rejected(nlmsg(3000, cat({rtmsg(7, 24, 3, 186), vpn_encap(attr(3, u32(1)))})), reason::route_bad_family);
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 33, 3, vpn_encap(attr(3, u32(1)))), reason::route_bad_prefix_len);
}
TEST(SonicVpnRouteMalformed, Destination) {
    expect_vpn_rejected(vpn_route(3000, 2, "2001:db8::", 24, 3, vpn_encap(attr(3, u32(1)))), reason::route_dst_family);
    expect_vpn_rejected(nlmsg(3000, cat({rtmsg(2, 24, 3, 186), vpn_encap(attr(3, u32(1)))})), reason::route_dst_family);
}
TEST(SonicVpnRouteMalformed, TableAndPairing) {
    expect_vpn_rejected(vpn_route(3000, 2, "10.1.0.0", 24, 0, cat({attr(rta_table, u16(5)), vpn_encap(attr(3, u32(1)))})),
                        reason::attr_bad_len);
    // An ENCAP with no ENCAP_TYPE before it cannot be read; with no 101 nest left, the route goes.
    const buf unpaired = vpn_route(3000, 2, "10.1.0.0", 24, 3, nest(rta_encap, attr(3, u32(1))));
    const auto r = run({unpaired, good_vpn});
    EXPECT_EQ(r.n(reason::attr_encap_unpaired), 1u);
    EXPECT_EQ(r.n(reason::sonic_bad_vpn_encap), 1u);
    EXPECT_EQ(r.out.size(), 1u);
}
TEST(SonicVpnRoute, OtherEncapTypesAreSkipped) {
    const buf mpls = cat({attr(rta_encap_type, u16(1)), nest(rta_encap, attr(1, hex("00 01 41 00")))});
    const auto r = run({vpn_route(3000, 2, "10.1.0.0", 24, 3, cat({mpls, vpn_encap(attr(3, u32(4))), attr(6, u32(100))}))});
    EXPECT_EQ(r.n(reason::ignored_encap_type), 1u);
    EXPECT_EQ(r.n(reason::ignored_attr), 1u);  // RTA_PRIORITY (SONiC's route tag)
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(body<route_upsert>(r.out[0]).route.pic_id, 4u);
}

// --- PIC contexts (2000/2001): an RTM_NEWNEXTHOP body in its own id space.
TEST(SonicPicContext, Singleton) {
    const auto r = run({nlmsg(2000, cat({nhmsg(10, 186, 4), attr(nha_id, u32(5)), attr(nha_gateway, ip("fe80::1")),
                                         attr(nha_oif, u32(3))}))});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& o = body<pic_context_upsert>(r.out[0]).nh;
    EXPECT_EQ(o.id, 5u);
    EXPECT_EQ(o.protocol, 186);
    ASSERT_TRUE(o.path);
    EXPECT_EQ(o.path->ifindex, 3u);
    EXPECT_EQ(o.path->gateway, rib::parse_addr("fe80::1"));
    EXPECT_TRUE(o.path->onlink);
}

TEST(SonicPicContext, Group) {
    const auto r = run({nlmsg(2000, cat({nhmsg(0, 186), attr(nha_id, u32(9)),
                                         attr(nha_group, cat({u32(5), {0, 0}, u16(0), u32(6), {1, 0}, u16(0)}))}))});
    ASSERT_EQ(r.out.size(), 1u);
    const auto& o = body<pic_context_upsert>(r.out[0]).nh;
    ASSERT_EQ(o.group.size(), 2u);
    EXPECT_EQ(o.group[0], (rib::nexthop_group_member{5, 1}));
    EXPECT_EQ(o.group[1], (rib::nexthop_group_member{6, 2}));
}

TEST(SonicPicContext, Seg6EncapIsApplied) {
    // SEG6_IPTUNNEL_SRH: mode ENCAP, then an SRH with one segment.
    const buf srh = cat({u32(1), {0, 2, 4, 0, 0, 0}, u16(0), ip("fc00:0:2::100")});
    const auto r = run({nlmsg(2000, cat({nhmsg(10, 186), attr(nha_id, u32(5)), attr(nha_oif, u32(3)),
                                         attr(nha_encap_type, u16(5)), nest(nha_encap, attr(1, srh))}))});
    ASSERT_EQ(r.out.size(), 1u);
    const auto& o = body<pic_context_upsert>(r.out[0]).nh;
    ASSERT_TRUE(o.path && o.path->seg6);
    EXPECT_EQ(o.path->seg6->segments, std::vector<rib::ip6_addr>{ip6("fc00:0:2::100")});
}

TEST(SonicPicContext, DeleteAndMissingId) {
    const auto r = run({nlmsg(2001, cat({nhmsg(0, 0), attr(nha_id, u32(5))})),
                        nlmsg(2000, cat({nhmsg(10, 186), attr(nha_oif, u32(3))})),
                        nlmsg(2000, buf(4, 0))});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(body<pic_context_delete>(r.out[0]).id, 5u);
    EXPECT_EQ(r.n(reason::nh_no_id), 1u);
    EXPECT_EQ(r.n(reason::nlmsg_body_short), 1u);
}

// --- SID lists (4000/4001), in the layout docs/fpm-dialects.md documents.
constexpr uint16_t sl_name = 5, sl_len = 6, sl_list = 7;

// SONiC's encoder: RTA_TABLE = count; RTA_ENCAP nest holding a 64-byte NUL-padded name and all
// eight 24-byte {u32 index, u32 address type, 16-byte SID} entries, used or not.
buf sonic_sidlist(std::string_view name, const std::vector<std::string>& sids) {
    buf nm = str(name);
    nm.resize(64, 0);
    buf entries;
    for (size_t i = 0; i < 8; ++i) {
        const buf sid = i < sids.size() ? ip(sids[i]) : buf(16, 0);
        entries = cat({entries, u32(static_cast<uint32_t>(i)), u32(i < sids.size() ? 10 : 0), sid});
    }
    return nlmsg(4000, cat({rtmsg(0, 0, 0, 0), attr(rta_table, u32(static_cast<uint32_t>(sids.size()))),
                            nest(rta_encap, cat({attr(sl_name, nm), attr(sl_list, entries)}))}));
}

TEST(SonicSidList, SonicEncoderLayout) {
    const auto r = run({sonic_sidlist("sl-a", {"fc00:0:2::", "fc00:0:3::"})});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    const auto& s = body<sidlist_upsert>(r.out[0]);
    EXPECT_EQ(s.name, "sl-a");
    EXPECT_EQ(s.segments, (std::vector<rib::ip6_addr>{ip6("fc00:0:2::"), ip6("fc00:0:3::")}));
}

TEST(SonicSidList, BareSidsWithTypedNestOrAtTopLevel) {
    const buf list = cat({ip("fc00::a"), ip("fc00::b"), ip("fc00::c")});
    const buf in_nest = nlmsg(4000, cat({rtmsg(10, 0, 0, 0), attr(rta_encap_type, u16(101)),
                                         nest(rta_encap, cat({attr(sl_name, cstr("sl-b")), attr(sl_len, u32(3)),
                                                              attr(sl_list, list)}))}));
    const buf flat = nlmsg(4000, cat({rtmsg(10, 0, 0, 0), attr(sl_name, cstr("sl-c")), attr(sl_list, list)}));
    const auto r = run({in_nest, flat});
    ASSERT_EQ(r.out.size(), 2u);
    EXPECT_EQ(r.total(), 0u);
    const std::vector<rib::ip6_addr> want{ip6("fc00::a"), ip6("fc00::b"), ip6("fc00::c")};
    EXPECT_EQ(body<sidlist_upsert>(r.out[0]).name, "sl-b");
    EXPECT_EQ(body<sidlist_upsert>(r.out[0]).segments, want);
    EXPECT_EQ(body<sidlist_upsert>(r.out[1]).name, "sl-c");
    EXPECT_EQ(body<sidlist_upsert>(r.out[1]).segments, want);
}

TEST(SonicSidList, Delete) {
    buf nm = str("sl-a");
    nm.resize(64, 0);
    const auto r = run({nlmsg(4001, cat({rtmsg(0, 0, 0, 0), attr(rta_table, u32(0)), nest(rta_encap, attr(sl_name, nm))}))});
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.total(), 0u);
    EXPECT_EQ(body<sidlist_delete>(r.out[0]).name, "sl-a");
}

TEST(SonicSidListMalformed, EachIsCountedAndTheNextOneDecodes) {
    const buf good = sonic_sidlist("ok", {"fc00::1"});
    auto flat = [](const buf& attrs) { return nlmsg(4000, cat({rtmsg(0, 0, 0, 0), attrs})); };
    const std::vector<buf> bad = {
        flat(attr(sl_list, ip("fc00::1"))),                                              // no name
        flat(cat({attr(sl_name, cstr("x")), attr(sl_list, buf(20, 1))})),                // 20 bytes
        flat(cat({attr(sl_name, cstr("x")), attr(sl_len, u32(9)), attr(sl_list, buf(192, 1))})),  // 9 > 8 entries
        flat(cat({attr(sl_name, cstr("x")), attr(sl_len, u32(2)), attr(sl_list, ip("fc00::1"))})),  // 2 != 1
        flat(cat({attr(sl_name, cstr("x")), attr(sl_list, buf{})})),                    // empty
        flat(attr(sl_name, cstr("x"))),                                                  // no list
        flat(cat({attr(sl_name, cstr("x")), attr(sl_len, u16(1)), attr(sl_list, ip("fc00::1"))})),  // u16 count
        flat(nest(rta_encap, cat({attr(sl_name, cstr("x")), hex("30 00 07 00")}))),     // cut nest
    };
    for (const auto& b : bad) {
        const auto r = run({b, good});
        EXPECT_EQ(r.n(reason::sonic_bad_sidlist), 1u);
        EXPECT_EQ(r.total(), 1u);
        ASSERT_EQ(r.out.size(), 1u);
        EXPECT_EQ(body<sidlist_upsert>(r.out[0]).name, "ok");
    }
}

TEST(SonicWire, ActionTableAgreesWithTheSpec) {
    // sonic_wire.hh is what other code uses; the parametrized test above checks the decoder.
    EXPECT_FALSE(sonic::to_endpoint(0));
    EXPECT_FALSE(sonic::to_endpoint(22));
    EXPECT_EQ(sonic::to_endpoint(9)->behavior, rib::behavior::end_dt46);
    EXPECT_EQ(sonic::to_endpoint(21)->flavors, rib::flavor::next_csid);
    for (const uint16_t t : std::vector<uint16_t>{1000, 1001, 2000, 2001, 3000, 3001, 4000, 4001})
        EXPECT_TRUE(sonic::is_sonic_type(t)) << t;
    EXPECT_FALSE(sonic::is_sonic_type(24));
    EXPECT_FALSE(sonic::is_sonic_type(1002));
}

}  // namespace
}  // namespace fpm
