// decode_seg6local: every seg6local nest zebra was seen sending (FRR 8.4.4 and 10.7 captures),
// then one test per rule of the behavior table and per malformed case. Capture nests are the
// NHA_ENCAP/RTA_ENCAP payloads of the cited frames
// (/work/shared/research/frr{,10}-capture/captures/<scenario>/<file>.txt, connection, frame #).
#include <gtest/gtest.h>

#include "rib/behaviors.hh"
#include "fpm/decoder.hh"
#include "tests/unit/fpm/encap_util.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace encap_test;
using rib::behavior;
namespace flv = rib::flavor;

// linux/seg6_local.h
constexpr uint16_t action = 1, srh_attr = 2, table = 3, nh4 = 4, nh6 = 5, iif = 6, oif = 7, bpf = 8,
                   vrftable = 9, counters = 10, flavors = 11;
constexpr uint16_t flv_operation = 1, flv_lcblock = 2, flv_lcnode_fn = 3;

buf act(uint32_t a) { return attr(action, host(a)); }
buf u32_attr(uint16_t t, uint32_t v) { return attr(t, host(v)); }
buf flavor_nest(std::initializer_list<buf> inner) { return nested(flavors, cat(inner)); }

rib::seg6local sid(behavior b) {
    rib::seg6local s;
    s.action = b;
    return s;
}
rib::seg6local with_flavors(rib::seg6local s, uint32_t bits, std::optional<uint8_t> block = {},
                            std::optional<uint8_t> node_fn = {}) {
    s.flavors = bits;
    s.lcblock_bits = block;
    s.lcnode_fn_bits = node_fn;
    return s;
}
rib::seg6local end_x(std::string_view nh, std::optional<uint32_t> out_if) {
    auto s = sid(behavior::end_x);
    s.nh6 = ip6(nh);
    s.oif = out_if;
    return s;
}
rib::seg6local end_dx4(std::string_view nh) {
    auto s = sid(behavior::end_dx4);
    s.nh4 = ip4(nh);
    return s;
}
rib::seg6local end_dx6(std::string_view nh) {
    auto s = sid(behavior::end_dx6);
    s.nh6 = ip6(nh);
    return s;
}
rib::seg6local with_table(behavior b, std::optional<uint32_t> t, std::optional<uint32_t> vt) {
    auto s = sid(b);
    s.table = t;
    s.vrftable = vt;
    return s;
}
rib::seg6local b6_encaps(std::initializer_list<std::string_view> visiting) {
    auto s = sid(behavior::end_b6_encaps);
    rib::seg6_encap e;
    e.mode = rib::encap_mode::encap;
    for (auto v : visiting)
        e.segments.push_back(ip6(v));
    s.srh = e;
    return s;
}

struct capture_case {
    const char* where;
    const char* nest;
    rib::seg6local want;
    uint64_t ignored = 0;  // attributes the behavior has no use for
    friend void PrintTo(const capture_case& c, std::ostream* os) { *os << c.where; }
};

class Seg6localCapture : public ::testing::TestWithParam<capture_case> {};

TEST_P(Seg6localCapture, Decodes) {
    const auto& tc = GetParam();
    counted c;
    rib::seg6local s;
    ASSERT_TRUE(decode_seg6local(hex(tc.nest), c.ctx, s)) << tc.where;
    EXPECT_EQ(s, tc.want) << tc.where << ": got " << rib::behavior_name(s.action) << " flavors "
                          << rib::flavors_to_string(s.flavors);
    EXPECT_EQ(c[reason::ignored_attr], tc.ignored);
    EXPECT_EQ(c.total(), tc.ignored);
}

constexpr uint32_t csid = flv::next_csid;

// The 21 sharp actions of frr10-capture c2-sharp-seg6local, STEP1..STEP21, in order. DT4/DT46
// are kernel-rejected and only appear in the connection-2 replay.
INSTANTIATE_TEST_SUITE_P(
    SharpFrr10, Seg6localCapture,
    ::testing::Values(
        capture_case{"c2 nhg.txt conn 1 #13 End", "0800010001000000", sid(behavior::end)},
        capture_case{"c2 nhg.txt conn 1 #15 uN", "08000100010000000c000b800800010010000000",
                     with_flavors(sid(behavior::end), csid)},
        capture_case{"c2 nhg.txt conn 1 #17 uN 32/16",
                     "08000100010000001c000b80080001001000000005000200200000000500030010000000",
                     with_flavors(sid(behavior::end), csid, 32, 16)},
        capture_case{"c2 nhg.txt conn 1 #19 End psp", "08000100010000000c000b800800010002000000",
                     with_flavors(sid(behavior::end), flv::psp)},
        capture_case{"c2 nhg.txt conn 1 #21 uN psp 32/16",
                     "08000100010000001c000b80080001001200000005000200200000000500030010000000",
                     with_flavors(sid(behavior::end), flv::psp | csid, 32, 16)},
        capture_case{"c2 nhg.txt conn 1 #23 End.X (sharp's OIF 0 = none)",
                     "080001000200000014000500fc0000010000000000000000000000020800070000000000",
                     end_x("fc00:1::2", {})},
        capture_case{"c2 nhg.txt conn 1 #25 uA 32/16",
                     "080001000200000014000500fc00000100000000000000000000000208000700000000001c000b8008000100"
                     "1000000005000200200000000500030010000000",
                     with_flavors(end_x("fc00:1::2", {}), csid, 32, 16)},
        capture_case{"c2 nhg.txt conn 1 #27 End.T 10", "0800010003000000080003000a000000",
                     with_table(behavior::end_t, 10, {})},
        capture_case{"c2 nhg.txt conn 1 #29 uDT (End.T + NEXT-CSID)", "0800010003000000080003000a0000000c000b800800010010000000",
                     with_flavors(with_table(behavior::end_t, 10, {}), csid)},
        capture_case{"c2 nhg.txt conn 1 #31 End.DX4", "0800010006000000080004000a000102", end_dx4("10.0.1.2")},
        capture_case{"c2 nhg.txt conn 1 #33 uDX4", "0800010006000000080004000a0001020c000b800800010010000000",
                     with_flavors(end_dx4("10.0.1.2"), csid)},
        capture_case{"c2 nhg.txt conn 1 #35 End.DX6", "080001000500000014000500fc000001000000000000000000000002",
                     end_dx6("fc00:1::2")},
        // sharp bug: uDX6 reads End_DX6's argument and sends NH6 ::. Still well-formed.
        capture_case{"c2 nhg.txt conn 1 #37 uDX6",
                     "080001000500000014000500000000000000000000000000000000000c000b800800010010000000",
                     with_flavors(end_dx6("::"), csid)},
        capture_case{"c2 nhg.txt conn 1 #39 End.DT6 TABLE", "0800010007000000080003000a000000",
                     with_table(behavior::end_dt6, 10, {})},
        capture_case{"c2 nhg.txt conn 1 #41 uDT6", "0800010007000000080003000a0000000c000b800800010010000000",
                     with_flavors(with_table(behavior::end_dt6, 10, {}), csid)},
        capture_case{"c2 nhg.txt conn 2 #6 End.DT4 VRFTABLE", "0800010008000000080009000a000000",
                     with_table(behavior::end_dt4, {}, 10)},
        capture_case{"c2 nhg.txt conn 2 #7 uDT4", "0800010008000000080009000a0000000c000b800800010010000000",
                     with_flavors(with_table(behavior::end_dt4, {}, 10), csid)},
        capture_case{"c2 nhg.txt conn 2 #9 End.DT46 VRFTABLE", "0800010010000000080009000a000000",
                     with_table(behavior::end_dt46, {}, 10)},
        // Padding after the u8 LCNODE_FN is 7f 00 00 on the wire: only rta_len bytes count.
        capture_case{"c2 nhg.txt conn 2 #11 uDT46 32/16",
                     "0800010010000000080009000a0000001c000b800800010010000000050002002000010005000300107f0000",
                     with_flavors(with_table(behavior::end_dt46, {}, 10), csid, 32, 16)},
        capture_case{"c2 nhg.txt conn 1 #43 End.B6.Encaps (NH 47)",
                     "080001000a0000002c0002000004040101000000fc000000000300000000000000000001fc0000000002000000"
                     "00000000000001",
                     b6_encaps({"fc00:0:2::1", "fc00:0:3::1"})},
        capture_case{"c2 nhg.txt conn 1 #45 uB6.Encaps 32/16 (NH 49)",
                     "080001000a0000002c0002000004040101000000fcbbbbbb000300000000000000000000fcbbbbbb0002000000"
                     "000000000000001c000b80080001001000000005000200200000000500030010000000",
                     with_flavors(b6_encaps({"fcbb:bbbb:2::", "fcbb:bbbb:3::"}), csid, 32, 16)}));

INSTANTIATE_TEST_SUITE_P(
    OtherCaptures, Seg6localCapture,
    ::testing::Values(
        // Kernel-originated `End flavors psp`: zebra fills in the default lengths.
        capture_case{"frr10 c2 nhg.txt conn 1 #48 (NH 52)",
                     "08000100010000001c000b80080001000200000005000200200000000500030010040401",
                     with_flavors(sid(behavior::end), flv::psp, 32, 16)},
        // staticd static-sids: uA with the real OIF, uN, uDT6/uDT4/uDT46 with 32/32 lengths.
        capture_case{"frr10 c1-static-sids nhg.txt conn 1 #13 uA",
                     "080001000200000014000500fc00000100000000000000000000000208000700030000001c000b8008000100"
                     "1000000005000200200000000500030020000000",
                     with_flavors(end_x("fc00:1::2", 3), csid, 32, 32)},
        capture_case{"frr10 c1-static-sids nhg.txt conn 1 #15 uN (padding 00 00 02)",
                     "08000100010000001c000b80080001001000000005000200200000020500030010000000",
                     with_flavors(sid(behavior::end), csid, 32, 16)},
        capture_case{"frr10 c1-static-sids nhg.txt conn 1 #17 uDT6",
                     "080001000700000008000300fe0000001c000b80080001001000000005000200200000000500030020000100",
                     with_flavors(with_table(behavior::end_dt6, 254, {}), csid, 32, 32)},
        capture_case{"frr10 c1-static-sids nhg.txt conn 2 #7 uDT4",
                     "080001000800000008000900fe0000001c000b80080001001000000005000200200000000500030020000100",
                     with_flavors(with_table(behavior::end_dt4, {}, 254), csid, 32, 32)},
        capture_case{"frr10 c1-static-sids nhg.txt conn 2 #8 uDT46",
                     "080001001000000008000900fe0000001c000b80080001001000000005000200200000000500030020000100",
                     with_flavors(with_table(behavior::end_dt46, {}, 254), csid, 32, 32)},
        capture_case{"frr10 c1-static-sids nhg.txt conn 1 #29 uN on a /64 locator",
                     "08000100010000001c000b80080001001000000005000200280000000500030028000000",
                     with_flavors(sid(behavior::end), csid, 40, 40)},
        capture_case{"frr10 f-reject-replay nhg.txt conn 2 #7 End.DT46 VRFTABLE 254", "080001001000000008000900fe000000",
                     with_table(behavior::end_dt46, {}, 254)},
        // FRR 8.4.4: no flavors, no OIF on End.X; DT6 with TABLE, DT4 with VRFTABLE.
        capture_case{"frr c-sharp-srv6 nhg.txt conn 1 #6 End", "0800010001000000", sid(behavior::end)},
        capture_case{"frr c-sharp-srv6 nhg.txt conn 1 #8 End.X",
                     "080001000200000014000500fc000001000000000000000000000002", end_x("fc00:1::2", {})},
        capture_case{"frr c-sharp-srv6 nhg.txt conn 1 #10 End.T", "0800010003000000080003000a000000",
                     with_table(behavior::end_t, 10, {})},
        capture_case{"frr c-sharp-srv6 nhg.txt conn 1 #12 End.DX4", "0800010006000000080004000a000102",
                     end_dx4("10.0.1.2")},
        capture_case{"frr c-sharp-srv6 nhg.txt conn 1 #14 End.DT6", "0800010007000000080003000a000000",
                     with_table(behavior::end_dt6, 10, {})},
        capture_case{"frr d4-netns-vrf nonhg.txt conn 1 #2 End.DT4 (RTA_ENCAP)", "080001000800000008000900fe000000",
                     with_table(behavior::end_dt4, {}, 254)},
        capture_case{"frr d4-netns-vrf nonhg.txt conn 1 #3 End.DT6 (RTA_ENCAP)", "080001000700000008000300fe000000",
                     with_table(behavior::end_dt6, 254, {})}));

// ---- the behavior table: required attributes

struct missing_case {
    behavior b;
    buf attrs;  // everything but the required attribute
    friend void PrintTo(const missing_case& c, std::ostream* os) { *os << rib::behavior_name(c.b); }
};

class Seg6localMissing : public ::testing::TestWithParam<missing_case> {};

TEST_P(Seg6localMissing, IsRejected) {
    const auto& tc = GetParam();
    counted c;
    rib::seg6local s = sid(behavior::end_bm);
    EXPECT_FALSE(decode_seg6local(cat({act(static_cast<uint32_t>(tc.b)), tc.attrs}), c.ctx, s))
        << rib::behavior_name(tc.b);
    EXPECT_EQ(c[reason::seg6local_missing_attr], 1u) << rib::behavior_name(tc.b);
    EXPECT_EQ(s, sid(behavior::end_bm));
}

INSTANTIATE_TEST_SUITE_P(
    Table, Seg6localMissing,
    ::testing::Values(missing_case{behavior::end_x, u32_attr(oif, 3)},
                      missing_case{behavior::end_t, u32_attr(vrftable, 10)},  // End.T takes TABLE only
                      missing_case{behavior::end_dx2, {}},
                      missing_case{behavior::end_dx2, u32_attr(oif, 0)},  // ifindex 0 is no interface
                      missing_case{behavior::end_dx4, attr(nh6, bytes_of(ip6("fc00::1")))},
                      missing_case{behavior::end_dx6, attr(nh4, {10, 0, 0, 1})},
                      missing_case{behavior::end_dt6, {}},
                      missing_case{behavior::end_dt4, {}},
                      missing_case{behavior::end_dt46, {}},
                      missing_case{behavior::end_b6, {}},
                      missing_case{behavior::end_b6_encaps, u32_attr(table, 10)},
                      missing_case{behavior::end_bpf, {}}));

// FRR puts DT6 in TABLE and DT4/DT46 in VRFTABLE; either satisfies every DT behavior.
TEST(Seg6local, EveryDtBehaviorTakesEitherTable) {
    for (behavior b : {behavior::end_dt4, behavior::end_dt6, behavior::end_dt46}) {
        for (uint16_t t : {table, vrftable}) {
            counted c;
            rib::seg6local s;
            ASSERT_TRUE(decode_seg6local(cat({act(static_cast<uint32_t>(b)), u32_attr(t, 100)}), c.ctx, s))
                << rib::behavior_name(b) << " " << t;
            EXPECT_EQ(s.decap_table(), 100u);
            EXPECT_EQ(c.total(), 0u);
        }
    }
}

TEST(Seg6local, ActionNeedNotComeFirst) {
    counted c;
    rib::seg6local s;
    ASSERT_TRUE(decode_seg6local(cat({attr(nh6, bytes_of(ip6("fc00:1::2"))), u32_attr(oif, 3), act(2)}), c.ctx, s));
    EXPECT_EQ(s, end_x("fc00:1::2", 3));
}

// End.DX2 as the kernel takes it (iproute2 `action End.DX2 oif DEV`: SEG6_LOCAL_OIF alone); FRR
// refuses to encode it today, its EVPN work will send it this way. uDX2 with NEXT-C-SID.
TEST(Seg6local, EndDx2TakesItsPortByOif) {
    counted c;
    rib::seg6local s;
    ASSERT_TRUE(decode_seg6local(cat({act(4), u32_attr(oif, 9)}), c.ctx, s));
    rib::seg6local want = sid(behavior::end_dx2);
    want.oif = 9;
    EXPECT_EQ(s, want);
    EXPECT_EQ(c.total(), 0u);
    EXPECT_TRUE(rib::check_contract(s).ok());  // and the dataplane runs it
    ASSERT_TRUE(decode_seg6local(cat({act(4), u32_attr(oif, 9), hex("0c000b800800010010000000")}), c.ctx, s));
    EXPECT_EQ(s.flavors, csid);
}

// Attributes a behavior has no use for are counted and not stored, like the kernel's table
// would refuse them; the SID itself stays usable.
TEST(Seg6local, UnusedAttributesAreDropped) {
    counted c;
    rib::seg6local s;
    ASSERT_TRUE(decode_seg6local(cat({act(1), attr(nh6, bytes_of(ip6("fc00::1"))), u32_attr(table, 10),
                                      u32_attr(iif, 2), u32_attr(counters, 0), attr(40, {})}),
                                 c.ctx, s));
    EXPECT_EQ(s, sid(behavior::end));
    EXPECT_EQ(c[reason::ignored_attr], 4u);  // nh6+table (one report), iif, counters, 40
    EXPECT_EQ(c.total(), 4u);
}

TEST(Seg6local, EndB6InsertsItsSrh) {
    counted c;
    rib::seg6local s;
    const buf bare = cat({buf{0, 4, 4, 1, 1, 0, 0, 0}, bytes_of(ip6("fc00::2")), bytes_of(ip6("fc00::1"))});
    ASSERT_TRUE(decode_seg6local(cat({act(9), attr(srh_attr, bare)}), c.ctx, s));
    ASSERT_TRUE(s.srh);
    EXPECT_EQ(s.action, behavior::end_b6);
    EXPECT_EQ(s.srh->mode, rib::encap_mode::inline_srh);
    EXPECT_EQ(s.srh->segments, (std::vector<rib::ip6_addr>{ip6("fc00::1"), ip6("fc00::2")}));
}

TEST(Seg6local, EndBpfNeedsItsProgramButKeepsNone) {
    counted c;
    rib::seg6local s;
    ASSERT_TRUE(decode_seg6local(cat({act(15), nested(bpf, attr(1, host<uint32_t>(5)))}), c.ctx, s));
    EXPECT_EQ(s, sid(behavior::end_bpf));
}

TEST(Seg6local, UnknownFlavorSubAttributeIsSkipped) {
    counted c;
    rib::seg6local s;
    ASSERT_TRUE(decode_seg6local(cat({act(1), flavor_nest({u32_attr(flv_operation, csid), attr(9, {1})})}), c.ctx, s));
    EXPECT_EQ(s, with_flavors(sid(behavior::end), csid));
    EXPECT_TRUE(c.only(reason::ignored_attr));
}

// ---- malformed input: one check each, `out` left alone, the context still usable.

struct bad_case {
    const char* what;
    buf nest;
    reason expect;
    friend void PrintTo(const bad_case& c, std::ostream* os) { *os << c.what; }
};

class Seg6localMalformed : public ::testing::TestWithParam<bad_case> {};

TEST_P(Seg6localMalformed, IsRejectedAndCounted) {
    const auto& tc = GetParam();
    counted c;
    rib::seg6local s = sid(behavior::end_bm);
    EXPECT_FALSE(decode_seg6local(tc.nest, c.ctx, s)) << tc.what;
    EXPECT_TRUE(c.only(tc.expect)) << tc.what << ": counted " << c.total() << ", " << name(tc.expect) << " "
                                   << c[tc.expect];
    EXPECT_EQ(s, sid(behavior::end_bm));

    rib::seg6local good;
    EXPECT_TRUE(decode_seg6local(act(1), c.ctx, good));
}

buf truncated() {
    buf n = act(1);
    n.insert(n.end(), {0x0c, 0x00, 0x03, 0x00, 0x0a, 0x00});  // rta_len 12, 6 bytes left
    return n;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Seg6localMalformed,
    ::testing::Values(
        bad_case{"no action", u32_attr(table, 10), reason::seg6local_no_action},
        bad_case{"empty nest", {}, reason::seg6local_no_action},
        bad_case{"action 0", act(0), reason::seg6local_bad_action},
        bad_case{"action 17", act(17), reason::seg6local_bad_action},
        bad_case{"End.BM has no seg6local encoding", act(11), reason::seg6local_bad_action},
        bad_case{"End.AM has no seg6local encoding", act(14), reason::seg6local_bad_action},
        bad_case{"action of 2 bytes", attr(action, host<uint16_t>(1)), reason::attr_bad_len},
        bad_case{"action twice", cat({act(1), act(2)}), reason::attr_duplicate},
        bad_case{"table twice", cat({act(3), u32_attr(table, 1), u32_attr(table, 2)}), reason::attr_duplicate},
        bad_case{"table of 8 bytes", cat({act(3), attr(table, host<uint64_t>(10))}), reason::attr_bad_len},
        bad_case{"vrftable of 2 bytes", cat({act(8), attr(vrftable, host<uint16_t>(10))}), reason::attr_bad_len},
        bad_case{"oif of 2 bytes", cat({act(2), attr(nh6, bytes_of(ip6("fc00::1"))), attr(oif, host<uint16_t>(3))}),
                 reason::attr_bad_len},
        bad_case{"nh4 of 16 bytes", cat({act(6), attr(nh4, bytes_of(ip6("fc00::1")))}), reason::attr_bad_len},
        bad_case{"nh6 of 4 bytes", cat({act(2), attr(nh6, {10, 0, 0, 1})}), reason::attr_bad_len},
        bad_case{"nest truncated", truncated(), reason::attr_truncated},
        bad_case{"SRH with first_segment past the list",
                 cat({act(10), attr(srh_attr, cat({buf{0, 2, 4, 0, 1, 0, 0, 0}, bytes_of(ip6("fc00::1"))}))}),
                 reason::seg6_bad_srh},
        bad_case{"SRH hdrlen lies", cat({act(10), attr(srh_attr, cat({buf{0, 4, 4, 0, 0, 0, 0, 0}, bytes_of(ip6("fc00::1"))}))}),
                 reason::seg6_bad_srh},
        bad_case{"flavors without operation", cat({act(1), flavor_nest({attr(flv_lcblock, {32})})}),
                 reason::seg6local_bad_flavors},
        bad_case{"flavor operation of 3 bytes", cat({act(1), flavor_nest({attr(flv_operation, {0x10, 0, 0})})}),
                 reason::seg6local_bad_flavors},
        bad_case{"flavor operation twice",
                 cat({act(1), flavor_nest({u32_attr(flv_operation, csid), u32_attr(flv_operation, flv::psp)})}),
                 reason::seg6local_bad_flavors},
        bad_case{"unknown flavor bit 0x20", cat({act(1), flavor_nest({u32_attr(flv_operation, 0x20)})}),
                 reason::seg6local_bad_flavors},
        bad_case{"flavor bit 0 (UNSPEC)", cat({act(1), flavor_nest({u32_attr(flv_operation, 0x11)})}),
                 reason::seg6local_bad_flavors},
        bad_case{"lcblock of 4 bytes",
                 cat({act(1), flavor_nest({u32_attr(flv_operation, csid), u32_attr(flv_lcblock, 32)})}),
                 reason::seg6local_bad_flavors},
        bad_case{"lcnode_fn twice",
                 cat({act(1), flavor_nest({u32_attr(flv_operation, csid), attr(flv_lcnode_fn, {16}),
                                           attr(flv_lcnode_fn, {16})})}),
                 reason::seg6local_bad_flavors},
        bad_case{"lcblock 0", cat({act(1), flavor_nest({u32_attr(flv_operation, csid), attr(flv_lcblock, {0})})}),
                 reason::seg6local_bad_flavors},
        bad_case{"lcnode_fn 12 is not byte-aligned",
                 cat({act(1), flavor_nest({u32_attr(flv_operation, csid), attr(flv_lcnode_fn, {12})})}),
                 reason::seg6local_bad_flavors},
        bad_case{"lcblock 120 + default lcnode_fn 16 > 128",
                 cat({act(1), flavor_nest({u32_attr(flv_operation, csid), attr(flv_lcblock, {120})})}),
                 reason::seg6local_bad_flavors},
        bad_case{"flavors nest truncated after the operation",
                 cat({act(1), nested(flavors, cat({host<uint32_t>(0x00010008), host<uint32_t>(csid), buf{0x05, 0x00}}))}),
                 reason::seg6local_bad_flavors}));

// The words are the contract's (rib/sid_params.hh), the same from SONiC (sonic_test), protobuf
// (protobuf_test) and a [sids] line (tests/unit/vrf/sid_parse_test.cc).
TEST(Seg6local, ReasonsInTheContractsWords) {
    auto refusal = [](const buf& nest) {
        ingest_stats stats;
        decode_ctx ctx(stats);
        rib::seg6local out;
        EXPECT_FALSE(decode_seg6local(nest, ctx, out));
        return ctx.last_error;
    };
    EXPECT_EQ(refusal(act(6)), "End.DX4 needs an IPv4 next hop (nh4)");
    EXPECT_EQ(refusal(act(16)), "End.DT46 needs a VRF (table or vrf)");
    EXPECT_EQ(refusal(cat({act(1), flavor_nest({u32_attr(flv_operation, 0x20)})})), "End does not take flavor 0x20");
    EXPECT_EQ(refusal(cat({act(1), flavor_nest({u32_attr(flv_operation, 1u << 4), attr(flv_lcblock, {120})})})),
              "NEXT-C-SID block 120 and node+function 16 bits: each a non-zero multiple of 8, together at most 128");
}

}  // namespace
}  // namespace fpm
