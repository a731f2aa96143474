#include "vrf/sid_binding.hh"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "rib/behaviors.hh"
#include "fpm/nl_attr.hh"
#include "tests/support/bytes.hh"

namespace vrf {
namespace SRV6D_UNITY_ID {

// RTM_NEWNEXTHOP frames from frr10-capture/captures/f-reject-replay/nhg.txt (#15, #5, #6):
// FRR 10.7 sends End.DT6 with SEG6_LOCAL_TABLE and End.DT4/End.DT46 with SEG6_LOCAL_VRFTABLE.
constexpr std::string_view dt6_table100 =
    "01010048440000006800010500000000d5601a9f0a000b00000000000800010010000000080005000300000006000700"
    "070000011400088008000100070000000800030064000000";
constexpr std::string_view dt4_vrftable100 =
    "01010048440000006800010500000000d5601a9f0a000b0000000000080001000a000000080005000300000006000700"
    "070000001400088008000100080000000800090064000000";
constexpr std::string_view dt46_vrftable100 =
    "01010048440000006800010500000000d5601a9f0a000b0000000000080001000c000000080005000300000006000700"
    "070000001400088008000100100000000800090064000000";

std::vector<uint8_t> unhex(std::string_view h) { return test_support::parse_hex(h); }

// Just enough of RTM_NEWNEXTHOP to pull the seg6local fields out of NHA_ENCAP; the real
// decoder lives in fpm/ and is tested there. Here the point is the bytes FRR sends.
rib::seg6local seg6local_from_frame(std::string_view hex) {
    const auto frame = unhex(hex);
    fpm::nl::message_walker msgs(fpm::nl::bytes(frame).subspan(4));  // FPM header
    auto m = msgs.next();
    EXPECT_TRUE(m);
    EXPECT_EQ(m->hdr.type, 104);  // RTM_NEWNEXTHOP
    rib::seg6local s;
    fpm::nl::attr_walker attrs(m->body.subspan(8));  // struct nhmsg
    bool found = false;
    while (auto a = attrs.next()) {
        if (a->type != 8)  // NHA_ENCAP
            continue;
        found = true;
        fpm::nl::attr_walker inner(a->payload);
        while (auto b = inner.next()) {
            const auto v = fpm::nl::get_exact<uint32_t>(b->payload);
            if (!v)
                continue;  // nests (flavors): not in these frames
            if (b->type == 1)
                s.action = static_cast<rib::behavior>(*v);
            else if (b->type == 3)
                s.table = *v;
            else if (b->type == 9)
                s.vrftable = *v;
        }
    }
    EXPECT_TRUE(found);
    return s;
}

vrf_spec spec(std::string name, rib::table_id t) {
    vrf_spec s;
    s.name = std::move(name);
    s.table = t;
    return s;
}

rib::seg6local sid(rib::behavior b) {
    rib::seg6local s;
    s.action = b;
    return s;
}

rib::prefix pfx(std::string_view p) { return *rib::parse_prefix(p); }

TEST(SidBinding, FixturesAreWhatFrrSends) {
    const auto dt6 = seg6local_from_frame(dt6_table100);
    EXPECT_EQ(dt6.action, rib::behavior::end_dt6);
    EXPECT_EQ(dt6.table, 100u);
    EXPECT_FALSE(dt6.vrftable);
    const auto dt4 = seg6local_from_frame(dt4_vrftable100);
    EXPECT_EQ(dt4.action, rib::behavior::end_dt4);
    EXPECT_EQ(dt4.vrftable, 100u);
    EXPECT_FALSE(dt4.table);
    const auto dt46 = seg6local_from_frame(dt46_vrftable100);
    EXPECT_EQ(dt46.action, rib::behavior::end_dt46);
    EXPECT_EQ(dt46.vrftable, 100u);
    EXPECT_FALSE(dt46.table);
}

TEST(SidBinding, DtSidsAsFrrSendsThemFollowTheBinding) {
    for (auto hex : {dt6_table100, dt4_vrftable100, dt46_vrftable100}) {
        const auto s = seg6local_from_frame(hex);
        SCOPED_TRACE(std::string(rib::behavior_name(s.action)));
        registry r;
        // Unbound: refused with the exact reason, never the main table.
        sid_binding b = bind_sid(s, r);
        EXPECT_FALSE(b.active);
        EXPECT_EQ(b.why, sid_refusal::table_unbound);
        EXPECT_EQ(b.reason, "table 100 is not bound to any VRF");
        EXPECT_FALSE(b.vrf);
        EXPECT_EQ(b.table, 100u);

        // Bound later: active, into that VRF.
        ASSERT_TRUE(r.set(source::config, spec("red", 100)).ok());
        b = bind_sid(s, r);
        EXPECT_TRUE(b.active);
        EXPECT_EQ(b.vrf, r.find("red")->id);
        EXPECT_EQ(b.vrf_name, "red");
        EXPECT_TRUE(b.reason.empty());

        // Rebound elsewhere: the SID follows the table, not the VRF name.
        ASSERT_TRUE(r.set(source::config, spec("red", 200)).ok());
        EXPECT_EQ(bind_sid(s, r).why, sid_refusal::table_unbound);
        ASSERT_TRUE(r.set(source::config, spec("blue", 100)).ok());
        b = bind_sid(s, r);
        EXPECT_TRUE(b.active);
        EXPECT_EQ(b.vrf_name, "blue");

        // Unbound again: refused again.
        ASSERT_TRUE(r.remove(source::config, "blue"));
        b = bind_sid(s, r);
        EXPECT_FALSE(b.active);
        EXPECT_EQ(b.reason, "table 100 is not bound to any VRF");
    }
}

TEST(SidBinding, DefaultVrfTable) {
    registry r;
    rib::seg6local s = sid(rib::behavior::end_dt6);
    s.table = 254;  // staticd uDT6 "vrf default" (frr10-capture c1-static-sids)
    const sid_binding b = bind_sid(s, r);
    EXPECT_TRUE(b.active);
    EXPECT_EQ(b.vrf, default_vrf_id);
    EXPECT_EQ(b.vrf_name, "default");
}

TEST(SidBinding, EndTResolvesItsTable) {
    registry r;
    rib::seg6local s = sid(rib::behavior::end_t);
    s.table = 10;
    EXPECT_EQ(bind_sid(s, r).reason, "table 10 is not bound to any VRF");
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    EXPECT_EQ(bind_sid(s, r).vrf_name, "red");
}

TEST(SidBinding, BehaviorsWithoutATableNeedNoVrf) {
    registry r;
    for (auto b : {rib::behavior::end, rib::behavior::end_x, rib::behavior::end_dx4, rib::behavior::end_dx6}) {
        const sid_binding x = bind_sid(sid(b), r);
        EXPECT_TRUE(x.active) << rib::behavior_name(b);
        EXPECT_FALSE(x.vrf);
        EXPECT_EQ(x.why, sid_refusal::none);
    }
}

// The behavior contract comes first: a behavior the dataplane does not run is refused, with
// the reason, instead of being installed to drop every packet.
TEST(SidBinding, BehaviorsWithoutADatapathHandlerAreRefused) {
    registry r;
    for (const auto& row : rib::behavior_table()) {
        const sid_binding x = bind_sid(sid(row.action), r);
        if (row.handler != rib::dp_handler::none) {
            EXPECT_NE(x.why, sid_refusal::unsupported) << row.name;
            continue;
        }
        EXPECT_FALSE(x.active) << row.name;
        EXPECT_EQ(x.why, sid_refusal::unsupported) << row.name;
        EXPECT_EQ(x.reason, std::string(row.name) + ": srv6d's dataplane does not implement it");
    }
}

TEST(SidBinding, FlavorsTheBehaviorDoesNotTakeAreRefused) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    rib::seg6local s = sid(rib::behavior::end_dt4);
    s.vrftable = 10;
    s.flavors = rib::flavor::psp;
    sid_binding b = bind_sid(s, r);
    EXPECT_FALSE(b.active);
    EXPECT_EQ(b.why, sid_refusal::bad_flavor);
    EXPECT_EQ(b.reason, "End.DT4 does not take flavor psp");
    s.flavors = rib::flavor::next_csid;  // uDT4: the last C-SID of its container
    EXPECT_TRUE(bind_sid(s, r).active);
    rib::seg6local un = sid(rib::behavior::end);
    un.flavors = rib::flavor::next_csid;
    un.lcblock_bits = 96;
    un.lcnode_fn_bits = 40;
    b = bind_sid(un, r);
    EXPECT_EQ(b.why, sid_refusal::bad_flavor);
    EXPECT_EQ(b.reason, "NEXT-C-SID block 96 and node+function 40 bits: each a non-zero multiple of 8, together at most 128");
    EXPECT_EQ(name(sid_refusal::unsupported), "unsupported");
    EXPECT_EQ(name(sid_refusal::bad_flavor), "bad_flavor");
}

TEST(SidBinding, TableInConflict) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    vrf_spec k = spec("red", 20);
    k.dev_ifindex = 7;
    ASSERT_FALSE(r.set(source::kernel, k).ok());
    rib::seg6local s = sid(rib::behavior::end_dt4);
    s.vrftable = 10;
    const sid_binding b = bind_sid(s, r);
    EXPECT_FALSE(b.active);
    EXPECT_EQ(b.why, sid_refusal::vrf_not_active);
    EXPECT_EQ(b.reason, "table 10 is bound to vrf red which is in conflict: "
                        "vrf red: config binds table 10, kernel binds table 20");
    EXPECT_FALSE(b.vrf);
}

TEST(SidBinding, TableClaimedByTwoNames) {
    registry r;
    ASSERT_TRUE(r.set(source::kernel, spec("blue", 10)).ok());
    ASSERT_FALSE(r.set(source::config, spec("red", 10)).ok());
    rib::seg6local s = sid(rib::behavior::end_dt46);
    s.vrftable = 10;
    EXPECT_EQ(bind_sid(s, r).reason, "table 10 is bound to vrf red which is in conflict: "
                                     "table 10: config binds vrf red, kernel binds vrf blue");
}

TEST(SidBinding, SonicNamesTheVrf) {
    registry r;
    rib::seg6local s = sid(rib::behavior::end_dt46);
    s.vrf_name = "Vrf10";
    sid_binding b = bind_sid(s, r);
    EXPECT_EQ(b.why, sid_refusal::vrf_unknown);
    EXPECT_EQ(b.reason, "vrf Vrf10 is not known (neither configured nor a kernel VRF device)");
    ASSERT_TRUE(r.set(source::config, spec("Vrf10", 1010)).ok());
    b = bind_sid(s, r);
    EXPECT_TRUE(b.active);
    EXPECT_EQ(b.vrf, r.find("Vrf10")->id);
    ASSERT_FALSE(r.set(source::config, spec("Vrf20", 1010)).ok());
    s.vrf_name = "Vrf20";
    b = bind_sid(s, r);
    EXPECT_EQ(b.why, sid_refusal::vrf_not_active);
    EXPECT_EQ(b.reason, "vrf Vrf20 is refused: vrf Vrf20: table 1010 is already bound to vrf Vrf10 (config)");
    s.vrf_name = "default";
    EXPECT_EQ(bind_sid(s, r).vrf, default_vrf_id);
}

TEST(SidBinding, NameAndTableMustAgree) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    rib::seg6local s = sid(rib::behavior::end_dt4);
    s.vrf_name = "red";
    s.vrftable = 11;
    const sid_binding b = bind_sid(s, r);
    EXPECT_EQ(b.why, sid_refusal::vrf_mismatch);
    EXPECT_EQ(b.reason, "End.DT4 names vrf red (table 10) and table 11");
    s.vrftable = 10;
    EXPECT_TRUE(bind_sid(s, r).active);
}

TEST(SidBinding, DtWithoutTable) {
    registry r;
    const sid_binding b = bind_sid(sid(rib::behavior::end_dt6), r);
    EXPECT_EQ(b.why, sid_refusal::no_table);
    EXPECT_EQ(b.reason, "End.DT6 names neither a table nor a VRF");
}

TEST(SidTracker, ActivatesAndDeactivatesByItselfAndCountsTransitions) {
    registry r;
    sid_tracker t;
    const auto dt6 = seg6local_from_frame(dt6_table100);
    const auto dt4 = seg6local_from_frame(dt4_vrftable100);
    rib::seg6local end = sid(rib::behavior::end);
    EXPECT_FALSE(t.upsert(pfx("fc00:0:1::5/128"), dt6, r).active);
    EXPECT_FALSE(t.upsert(pfx("fc00:0:1::6/128"), dt4, r).active);
    EXPECT_TRUE(t.upsert(pfx("fc00:0:1::/48"), end, r).active);
    const auto table_unbound = static_cast<size_t>(sid_refusal::table_unbound);
    EXPECT_EQ(t.refusals()[table_unbound], 2u);
    EXPECT_EQ(t.refused_now()[table_unbound], 2u);

    // Nothing changed: re-evaluation changes nothing and counts nothing.
    EXPECT_TRUE(t.reevaluate(r).empty());
    EXPECT_EQ(t.refusals()[table_unbound], 2u);

    uint64_t seen = r.version();
    ASSERT_TRUE(r.set(source::config, spec("red", 100)).ok());
    ASSERT_NE(r.version(), seen);
    auto changed = t.reevaluate(r);
    EXPECT_EQ(changed.size(), 2u);
    EXPECT_TRUE(t.find(pfx("fc00:0:1::5/128"))->bound.active);
    EXPECT_EQ(t.find(pfx("fc00:0:1::6/128"))->bound.vrf_name, "red");
    EXPECT_EQ(t.refused_now()[table_unbound], 0u);

    ASSERT_TRUE(r.remove(source::config, "red"));
    changed = t.reevaluate(r);
    EXPECT_EQ(changed.size(), 2u);
    EXPECT_FALSE(t.find(pfx("fc00:0:1::5/128"))->bound.active);
    EXPECT_EQ(t.refusals()[table_unbound], 4u);
    EXPECT_EQ(t.refused_now()[table_unbound], 2u);

    // Same refusal on replace (zebra replays): not counted again.
    t.upsert(pfx("fc00:0:1::5/128"), dt6, r);
    EXPECT_EQ(t.refusals()[table_unbound], 4u);
    EXPECT_TRUE(t.erase(pfx("fc00:0:1::5/128")));
    EXPECT_FALSE(t.erase(pfx("fc00:0:1::5/128")));
    EXPECT_EQ(t.refused_now()[table_unbound], 1u);
    EXPECT_EQ(name(sid_refusal::table_unbound), "table_unbound");
}

}  // namespace
}  // namespace vrf
