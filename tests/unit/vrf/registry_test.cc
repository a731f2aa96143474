#include "vrf/registry.hh"

#include <gtest/gtest.h>

namespace vrf {
namespace SRV6D_UNITY_ID {

vrf_spec spec(std::string name, rib::table_id t, std::vector<std::string> members = {}) {
    vrf_spec s;
    s.name = std::move(name);
    s.table = t;
    for (auto& m : members)
        s.members.push_back(member{std::move(m), 0});
    return s;
}

vrf_spec kspec(std::string name, rib::table_id t, uint32_t dev, std::vector<std::pair<std::string, uint32_t>> members = {}) {
    vrf_spec s;
    s.name = std::move(name);
    s.table = t;
    s.dev_ifindex = dev;
    for (auto& [n, i] : members)
        s.members.push_back(member{n, i});
    return s;
}

std::string bound_name(const registry& r, rib::table_id t) {
    const binding b = r.lookup_table(t);
    return b.vrf ? b.vrf->name : "";
}

TEST(Registry, DefaultVrfIsAlwaysBound) {
    registry r;
    const binding b = r.lookup_table(254);
    ASSERT_TRUE(b.active());
    EXPECT_EQ(b.vrf->name, "default");
    EXPECT_EQ(b.vrf->id, 0);
    EXPECT_EQ(to_string(b.vrf->sources), "builtin");
    EXPECT_EQ(r.size(), 1u);
    EXPECT_TRUE(r.lookup_device(0).active());  // SONiC's "table 0" is the default VRF
    EXPECT_FALSE(r.remove(source::config, "default"));
    EXPECT_TRUE(r.lookup_table(254).active());
}

TEST(Registry, UnboundTableIsUnbound) {
    registry r;
    EXPECT_EQ(r.lookup_table(100).state, binding::kind::unbound);
    EXPECT_EQ(r.lookup_table(100).vrf, nullptr);
}

TEST(Registry, ConfigBindsAVrf) {
    registry r;
    auto res = r.set(source::config, spec("red", 10, {"eth1", "eth2"}));
    EXPECT_TRUE(res.ok()) << res.error;
    EXPECT_TRUE(res.recorded);
    const vrf_info* v = r.find("red");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->table, 10u);
    EXPECT_EQ(v->id, 1);
    EXPECT_EQ(v->state, vrf_state::active);
    EXPECT_EQ(to_string(v->sources), "config");
    ASSERT_EQ(v->members.size(), 2u);
    EXPECT_EQ(v->members[0].name, "eth1");
    EXPECT_EQ(r.find(vrf_id{1}), v);
    EXPECT_TRUE(r.lookup_table(10).active());
    EXPECT_EQ(r.lookup_table(10).vrf, v);
    EXPECT_EQ(r.lookup_interface("eth2").vrf, v);
    EXPECT_EQ(r.lookup_interface("eth3").state, binding::kind::unbound);
}

TEST(Registry, SecondVrfOnSameTableIsRefusedAndWaits) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    auto res = r.set(source::config, spec("blue", 10));
    EXPECT_FALSE(res.ok());
    EXPECT_TRUE(res.recorded);
    EXPECT_EQ(res.state, vrf_state::refused);
    EXPECT_EQ(res.error, "vrf blue: table 10 is already bound to vrf red (config)");
    EXPECT_EQ(r.find("blue")->state, vrf_state::refused);
    EXPECT_EQ(r.find("blue")->reason, res.error);
    EXPECT_EQ(bound_name(r, 10), "red");
    EXPECT_TRUE(r.lookup_table(10).active());

    // The holder goes: the waiting claim gets the table by itself.
    EXPECT_TRUE(r.remove(source::config, "red"));
    EXPECT_EQ(r.find("red"), nullptr);
    EXPECT_EQ(r.find("blue")->state, vrf_state::active);
    EXPECT_EQ(bound_name(r, 10), "blue");
}

TEST(Registry, RefusalIsDeterministicByArrival) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    EXPECT_FALSE(r.set(source::config, spec("blue", 10)).ok());
    // Changing blue's members is not a rebind: it keeps its place, red keeps the table.
    EXPECT_FALSE(r.set(source::config, spec("blue", 10, {"eth9"})).ok());
    // Re-asserting red changes nothing either.
    EXPECT_TRUE(r.set(source::config, spec("red", 10)).ok());
    EXPECT_EQ(bound_name(r, 10), "red");
}

TEST(Registry, Rebind) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    const vrf_id id = r.find("red")->id;
    ASSERT_TRUE(r.set(source::config, spec("red", 20)).ok());
    EXPECT_EQ(r.lookup_table(10).state, binding::kind::unbound);
    EXPECT_EQ(bound_name(r, 20), "red");
    EXPECT_EQ(r.find("red")->id, id);  // same VRF, same id
    EXPECT_EQ(r.find("red")->table, 20u);
}

TEST(Registry, RebindOntoATakenTableQueues) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    ASSERT_TRUE(r.set(source::config, spec("blue", 20)).ok());
    auto res = r.set(source::config, spec("red", 20));
    EXPECT_EQ(res.error, "vrf red: table 20 is already bound to vrf blue (config)");
    EXPECT_EQ(r.lookup_table(10).state, binding::kind::unbound);
    EXPECT_EQ(bound_name(r, 20), "blue");
}

TEST(Registry, SameVrfFromBothSourcesAgreeing) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10, {"eth1"})).ok());
    ASSERT_TRUE(r.set(source::kernel, kspec("red", 10, 7, {{"eth1", 3}, {"eth2", 4}})).ok());
    const vrf_info* v = r.find("red");
    EXPECT_EQ(v->state, vrf_state::active);
    EXPECT_EQ(to_string(v->sources), "config+kernel");
    EXPECT_EQ(v->config_table, 10u);
    EXPECT_EQ(v->kernel_table, 10u);
    EXPECT_EQ(v->dev_ifindex, 7u);
    ASSERT_EQ(v->members.size(), 2u);  // eth1 from both, merged
    EXPECT_EQ(v->members[0].name, "eth1");
    EXPECT_EQ(v->members[0].ifindex, 3u);
    EXPECT_EQ(to_string(v->members[0].sources), "config+kernel");
    EXPECT_EQ(to_string(v->members[1].sources), "kernel");
    EXPECT_EQ(r.lookup_ifindex(4).vrf, v);
    EXPECT_EQ(r.lookup_device(7).vrf, v);
    EXPECT_TRUE(r.lookup_device(7).active());

    // Removing one source keeps the binding; removing the last removes it.
    EXPECT_TRUE(r.remove(source::config, "red"));
    EXPECT_EQ(to_string(r.find("red")->sources), "kernel");
    EXPECT_TRUE(r.lookup_table(10).active());
    EXPECT_TRUE(r.remove(source::kernel, "red"));
    EXPECT_EQ(r.find("red"), nullptr);
    EXPECT_EQ(r.lookup_table(10).state, binding::kind::unbound);
    EXPECT_EQ(r.lookup_device(7).state, binding::kind::unbound);
}

TEST(Registry, ConfigVsKernelSameNameDifferentTable) {
    for (bool config_first : {true, false}) {
        SCOPED_TRACE(config_first ? "config first" : "kernel first");
        registry r;
        if (config_first) {
            ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
            EXPECT_FALSE(r.set(source::kernel, kspec("red", 20, 7)).ok());
        } else {
            ASSERT_TRUE(r.set(source::kernel, kspec("red", 20, 7)).ok());
            EXPECT_FALSE(r.set(source::config, spec("red", 10)).ok());
        }
        const vrf_info* v = r.find("red");
        EXPECT_EQ(v->state, vrf_state::conflict);
        EXPECT_EQ(v->reason, "vrf red: config binds table 10, kernel binds table 20");
        for (rib::table_id t : {10u, 20u}) {
            const binding b = r.lookup_table(t);
            EXPECT_EQ(b.state, binding::kind::conflict);
            EXPECT_EQ(b.vrf, v);
            EXPECT_EQ(b.reason, v->reason);
        }
        EXPECT_EQ(r.lookup_device(7).state, binding::kind::conflict);
        // Fixing the config resolves it.
        ASSERT_TRUE(r.set(source::config, spec("red", 20)).ok());
        EXPECT_EQ(r.find("red")->state, vrf_state::active);
        EXPECT_EQ(r.lookup_table(10).state, binding::kind::unbound);
        EXPECT_TRUE(r.lookup_table(20).active());
    }
}

TEST(Registry, ConfigVsKernelSameTableDifferentName) {
    for (bool config_first : {true, false}) {
        SCOPED_TRACE(config_first ? "config first" : "kernel first");
        registry r;
        claim_result second;
        if (config_first) {
            ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
            second = r.set(source::kernel, kspec("blue", 10, 7));
        } else {
            ASSERT_TRUE(r.set(source::kernel, kspec("blue", 10, 7)).ok());
            second = r.set(source::config, spec("red", 10));
        }
        const std::string why = "table 10: config binds vrf red, kernel binds vrf blue";
        EXPECT_EQ(second.state, vrf_state::conflict);
        EXPECT_EQ(second.error, why);
        EXPECT_EQ(r.find("red")->state, vrf_state::conflict);
        EXPECT_EQ(r.find("blue")->state, vrf_state::conflict);
        EXPECT_EQ(r.find("red")->reason, why);
        EXPECT_EQ(r.find("blue")->reason, why);
        const binding b = r.lookup_table(10);
        EXPECT_EQ(b.state, binding::kind::conflict);
        EXPECT_EQ(b.vrf->name, "red");  // the config's side is named first
        // The kernel device goes: config's red is active again.
        EXPECT_TRUE(r.remove(source::kernel, "blue"));
        EXPECT_EQ(r.find("red")->state, vrf_state::active);
        EXPECT_TRUE(r.lookup_table(10).active());
    }
}

TEST(Registry, KernelDuplicateTableIsRefusedUntilTheFirstGoes) {
    registry r;  // a kernel without strict_mode can hold two VRF devices on one table
    ASSERT_TRUE(r.set(source::kernel, kspec("red", 10, 7)).ok());
    EXPECT_EQ(r.set(source::kernel, kspec("blue", 10, 8)).error,
              "vrf blue: table 10 is already bound to vrf red (kernel)");
    EXPECT_EQ(r.lookup_device(8).state, binding::kind::conflict);
    EXPECT_TRUE(r.remove(source::kernel, "red"));
    EXPECT_TRUE(r.lookup_device(8).active());
    EXPECT_EQ(bound_name(r, 10), "blue");
}

TEST(Registry, DefaultVrfNameAndTableAreProtected) {
    registry r;
    auto a = r.set(source::config, spec("red", 254));
    EXPECT_FALSE(a.recorded);
    EXPECT_EQ(a.error, "vrf red: table 254 is already bound to vrf default (builtin)");
    EXPECT_EQ(r.find("red"), nullptr);
    auto b = r.set(source::kernel, kspec("default", 10, 7));
    EXPECT_FALSE(b.recorded);
    EXPECT_EQ(b.error, "vrf default: the default VRF is bound to table 254 (builtin), not table 10");
    EXPECT_EQ(r.lookup_table(10).state, binding::kind::unbound);
    // Saying what is already true is fine.
    auto c = r.set(source::config, spec("default", 254));
    EXPECT_TRUE(c.ok()) << c.error;
    EXPECT_EQ(to_string(r.find("default")->sources), "builtin+config");
    EXPECT_TRUE(r.remove(source::config, "default"));
    EXPECT_TRUE(r.lookup_table(254).active());
    EXPECT_EQ(r.size(), 1u);
}

TEST(Registry, InvalidClaimsAreRejected) {
    registry r;
    EXPECT_EQ(r.set(source::config, spec("red", 0)).error, "vrf red: table 0 is not a table id");
    EXPECT_EQ(r.set(source::config, spec("red", 255)).error, "vrf red: table 255 is reserved by the kernel (local)");
    EXPECT_EQ(r.set(source::config, spec("red", 253)).error, "vrf red: table 253 is reserved by the kernel (default)");
    EXPECT_FALSE(r.set(source::config, spec("", 10)).recorded);
    EXPECT_FALSE(r.set(source::config, spec("a-very-long-vrf-name", 10)).recorded);
    EXPECT_FALSE(r.set(source::config, spec("red", 10, {"eth1", "eth1"})).recorded);
    EXPECT_FALSE(r.set(source::builtin, spec("red", 10)).recorded);
    EXPECT_EQ(r.size(), 1u);
    EXPECT_EQ(r.version(), 0u);
}

TEST(Registry, RejectedUpdateKeepsThePreviousClaim) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    EXPECT_FALSE(r.set(source::config, spec("red", 255)).recorded);
    EXPECT_EQ(bound_name(r, 10), "red");
}

TEST(Registry, IdsAreDenseAndStable) {
    registry r;
    for (auto [n, t] : {std::pair{"a", 10u}, {"b", 11u}, {"c", 12u}})
        ASSERT_TRUE(r.set(source::config, spec(n, t)).ok());
    EXPECT_EQ(r.find("a")->id, 1);
    EXPECT_EQ(r.find("b")->id, 2);
    EXPECT_EQ(r.find("c")->id, 3);
    ASSERT_TRUE(r.remove(source::config, "b"));
    EXPECT_EQ(r.find("a")->id, 1);
    EXPECT_EQ(r.find("c")->id, 3);
    EXPECT_EQ(r.find(vrf_id{2}), nullptr);
    ASSERT_TRUE(r.set(source::config, spec("d", 13)).ok());
    EXPECT_EQ(r.find("d")->id, 2);  // the freed id is reused: ids stay dense
    // A VRF that changes state keeps its id.
    ASSERT_FALSE(r.set(source::kernel, kspec("a", 99, 5)).ok());
    EXPECT_EQ(r.find("a")->state, vrf_state::conflict);
    EXPECT_EQ(r.find("a")->id, 1);
    std::vector<vrf_id> ids;
    for (const vrf_info* v : r.vrfs())
        ids.push_back(v->id);
    EXPECT_EQ(ids, (std::vector<vrf_id>{0, 1, 2, 3}));
}

TEST(Registry, ManyVrfs) {
    registry r;
    std::vector<vrf_spec> all;
    for (uint32_t i = 0; i < 1000; ++i)
        all.push_back(spec("v" + std::to_string(i), 1000 + i));
    EXPECT_TRUE(r.sync(source::config, all).empty());
    EXPECT_EQ(r.size(), 1001u);
    EXPECT_EQ(r.lookup_table(1999).vrf->name, "v999");
    EXPECT_EQ(r.lookup_table(1999).vrf->id, 1000);
}

TEST(Registry, VersionMovesOnlyOnChangeAndNotifies) {
    registry r;
    int calls = 0;
    r.subscribe([&] { ++calls; });
    const uint64_t v0 = r.version();
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());
    EXPECT_EQ(r.version(), v0 + 1);
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(r.set(source::config, spec("red", 10)).ok());  // same claim
    EXPECT_EQ(r.version(), v0 + 1);
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(r.set(source::config, spec("red", 10, {"eth1"})).ok());
    EXPECT_EQ(r.version(), v0 + 2);
    EXPECT_FALSE(r.remove(source::kernel, "red"));
    EXPECT_EQ(r.version(), v0 + 2);
    EXPECT_TRUE(r.remove(source::config, "red"));
    EXPECT_EQ(r.version(), v0 + 3);
    EXPECT_EQ(calls, 3);
}

TEST(Registry, SyncReplacesASourcesClaims) {
    registry r;
    ASSERT_TRUE(r.set(source::kernel, kspec("red", 10, 7)).ok());
    ASSERT_TRUE(r.set(source::config, spec("green", 30)).ok());
    auto errors = r.sync(source::config, {spec("red", 10), spec("blue", 20), spec("pink", 20)});
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], "vrf pink: table 20 is already bound to vrf blue (config)");
    EXPECT_EQ(r.find("green"), nullptr);  // not listed any more
    EXPECT_EQ(to_string(r.find("red")->sources), "config+kernel");
    const uint64_t v = r.version();
    EXPECT_EQ(r.sync(source::config, {spec("red", 10), spec("blue", 20), spec("pink", 20)}).size(), 1u);
    EXPECT_EQ(r.version(), v);  // nothing changed
    EXPECT_TRUE(r.sync(source::config, {}).empty());
    EXPECT_EQ(to_string(r.find("red")->sources), "kernel");
    EXPECT_EQ(r.find("blue"), nullptr);
    auto bad = r.sync(source::config, {spec("x", 255), spec("y", 40), spec("y", 41)});
    ASSERT_EQ(bad.size(), 2u);
    EXPECT_EQ(bad[0], "vrf x: table 255 is reserved by the kernel (local)");
    EXPECT_EQ(bad[1], "vrf y: listed twice by config");
    EXPECT_EQ(r.find("x"), nullptr);
    EXPECT_EQ(r.find("y")->table, 40u);
}

TEST(Registry, InterfaceClaimedByTwoVrfs) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10, {"eth1"})).ok());
    ASSERT_TRUE(r.set(source::kernel, kspec("blue", 20, 7, {{"eth1", 3}})).ok());
    const binding b = r.lookup_interface("eth1");
    EXPECT_EQ(b.state, binding::kind::conflict);
    EXPECT_EQ(b.reason, "interface eth1 is claimed by vrf blue (kernel) and vrf red (config)");
    EXPECT_EQ(r.lookup_ifindex(3).state, binding::kind::conflict);
    // The VRFs themselves stay usable: only that interface is ambiguous.
    EXPECT_TRUE(r.lookup_table(10).active());
    EXPECT_TRUE(r.lookup_table(20).active());
}

TEST(Registry, InterfaceOfAVrfInConflict) {
    registry r;
    ASSERT_TRUE(r.set(source::config, spec("red", 10, {"eth1"})).ok());
    ASSERT_FALSE(r.set(source::kernel, kspec("red", 11, 7)).ok());
    const binding b = r.lookup_interface("eth1");
    EXPECT_EQ(b.state, binding::kind::conflict);
    EXPECT_EQ(b.reason, "vrf red: config binds table 10, kernel binds table 11");
}

}  // namespace
}  // namespace vrf
