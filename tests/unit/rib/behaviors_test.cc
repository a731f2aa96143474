#include "rib/behaviors.hh"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace rib {
namespace SRV6D_UNITY_ID {

TEST(Behaviors, EveryEnumValueHasOneEntryAndAName) {
    std::set<std::string_view> names;
    for (uint32_t a = 1; a <= 16; ++a) {
        const auto* info = find_behavior(a);
        ASSERT_NE(info, nullptr) << a;
        EXPECT_EQ(static_cast<uint32_t>(info->action), a);
        EXPECT_TRUE(names.insert(info->name).second) << info->name;
        EXPECT_EQ(behavior_name(info->action), info->name);
        EXPECT_EQ(behavior_from_name(info->name), info->action);
    }
    EXPECT_EQ(behavior_table().size(), 16u);
    EXPECT_EQ(find_behavior(0), nullptr);
    EXPECT_EQ(find_behavior(17), nullptr);
    EXPECT_EQ(behavior_name(static_cast<behavior>(99)), "unknown");
}

TEST(Behaviors, RfcSpellings) {
    EXPECT_EQ(behavior_name(behavior::end), "End");
    EXPECT_EQ(behavior_name(behavior::end_x), "End.X");
    EXPECT_EQ(behavior_name(behavior::end_dt46), "End.DT46");
    EXPECT_EQ(behavior_name(behavior::end_b6_encaps), "End.B6.Encaps");
    EXPECT_EQ(behavior_from_name("end.dt4"), behavior::end_dt4);  // SONiC writes them lower-case
    EXPECT_FALSE(behavior_from_name("End.DT"));
    EXPECT_FALSE(behavior_from_name(""));
}

TEST(Behaviors, RequirementsAreAlternatives) {
    const auto& dt6 = *find_behavior(static_cast<uint32_t>(behavior::end_dt6));
    EXPECT_EQ(dt6.missing(sid_param::table), 0);
    EXPECT_EQ(dt6.missing(sid_param::vrftable), 0);
    EXPECT_NE(dt6.missing(sid_param::flavors), 0);
    const auto& x = *find_behavior(static_cast<uint32_t>(behavior::end_x));
    EXPECT_EQ(x.missing(sid_param::oif), sid_param::nh6);
    EXPECT_EQ(x.missing(sid_param::nh6), 0);
    EXPECT_TRUE(x.allowed() & sid_param::oif);
    EXPECT_FALSE(x.allowed() & sid_param::table);
    const auto& end = *find_behavior(static_cast<uint32_t>(behavior::end));
    EXPECT_EQ(end.missing(0), 0);
}

TEST(Behaviors, OnlyKernelImplementedOnesHaveANetlinkEncoding) {
    for (const auto& info : behavior_table()) {
        const bool none = info.action == behavior::end_bm || info.action == behavior::end_s ||
                          info.action == behavior::end_as || info.action == behavior::end_am;
        EXPECT_EQ(info.netlink, !none) << info.name;
    }
}

// The contract's datapath side: which handler runs each row (the worker tests run every row
// with a handler; forward/ checks those handlers are exactly the ones it implements).
TEST(Contract, HandlersAndWhatTheyRead) {
    for (const auto& b : behavior_table()) {
        SCOPED_TRACE(std::string(b.name));
        switch (b.action) {
        case behavior::end:
        case behavior::end_x:
        case behavior::end_t:
            EXPECT_EQ(b.handler, dp_handler::next_segment);
            EXPECT_EQ(b.flavors, known_flavors);  // RFC 8986 §4.16 and RFC 9800
            EXPECT_EQ(b.decap, decap::v4 | decap::v6);  // with USD
            break;
        case behavior::end_dx2:
        case behavior::end_dx4:
        case behavior::end_dx6:
        case behavior::end_dt4:
        case behavior::end_dt6:
        case behavior::end_dt46:
            EXPECT_EQ(b.handler, dp_handler::decap);
            EXPECT_EQ(b.flavors, flavor::next_csid);  // uDX/uDT; PSP/USP/USD are End/X/T's
            break;
        case behavior::end_b6_encaps:  // End, then the policy (RFC 8986 §4.13-4.14)
            EXPECT_EQ(b.handler, dp_handler::b6_encaps);
            EXPECT_EQ(b.flavors, flavor::next_csid);
            EXPECT_EQ(b.required[0], sid_param::srh);
            break;
        default:
            EXPECT_EQ(b.handler, dp_handler::none);
        }
    }
    const auto& x = *find_behavior(behavior::end_x);
    EXPECT_EQ(x.adjacency, sid_param::nh6);
    EXPECT_EQ(find_behavior(behavior::end_dx4)->adjacency, sid_param::nh4);
    EXPECT_EQ(find_behavior(behavior::end_dx4)->decap, decap::v4);
    EXPECT_EQ(find_behavior(behavior::end_dx2)->decap, decap::eth);      // the frame, not an IP packet
    EXPECT_EQ(find_behavior(behavior::end_dx2)->adjacency, sid_param::oif);  // its port, no neighbor
    EXPECT_EQ(find_behavior(behavior::end_dt46)->decap, decap::v4 | decap::v6);
    EXPECT_EQ(find_behavior(behavior::end_dt6)->adjacency, 0);
    EXPECT_EQ(find_behavior(behavior::end_t)->vrf, vrf_attr::table);
    EXPECT_EQ(find_behavior(behavior::end_dt6)->vrf, vrf_attr::table);
    EXPECT_EQ(find_behavior(behavior::end_dt4)->vrf, vrf_attr::vrftable);
    EXPECT_EQ(find_behavior(behavior::end_dt46)->vrf, vrf_attr::vrftable);
    EXPECT_FALSE(find_behavior(behavior::end_dx6)->binds_vrf());
}

seg6local sid(behavior b, uint32_t flavors = 0) {
    seg6local l;
    l.action = b;
    l.flavors = flavors;
    return l;
}

seg6local usid(behavior b, std::optional<uint8_t> lbl, std::optional<uint8_t> lnfl) {
    seg6local l = sid(b, flavor::next_csid);
    l.lcblock_bits = lbl;
    l.lcnode_fn_bits = lnfl;
    return l;
}

// What fwd::check() checked (and nothing called): now the compiler's check, through bind_sid.
TEST(Contract, Check) {
    EXPECT_TRUE(check_contract(sid(behavior::end, flavor::psp | flavor::usp | flavor::usd)).ok());
    EXPECT_TRUE(check_contract(usid(behavior::end_x, 32, 16)).ok());
    EXPECT_TRUE(check_contract(usid(behavior::end_dt46, 32, 16)).ok());
    EXPECT_TRUE(check_contract(usid(behavior::end_dt46, std::nullopt, std::nullopt)).ok());  // 32/16
    EXPECT_EQ(check_contract(sid(behavior::end_dt4, flavor::psp)).why, contract_refusal::flavor);
    EXPECT_EQ(check_contract(sid(behavior::end_dt4, flavor::psp)).reason, "End.DT4 does not take flavor psp");
    EXPECT_EQ(check_contract(sid(behavior::end_b6)).why, contract_refusal::no_handler);
    EXPECT_TRUE(check_contract(sid(behavior::end_b6_encaps)).ok());
    EXPECT_EQ(check_contract(sid(behavior::end_b6_encaps, flavor::psp)).reason, "End.B6.Encaps does not take flavor psp");
    EXPECT_TRUE(check_contract(sid(behavior::end_dx2)).ok());
    EXPECT_EQ(check_contract(sid(behavior::end_dx2, flavor::psp)).reason, "End.DX2 does not take flavor psp");
    EXPECT_EQ(check_contract(sid(behavior::end_bpf)).why, contract_refusal::no_handler);
    EXPECT_EQ(check_contract(sid(static_cast<behavior>(99))).why, contract_refusal::no_handler);
    EXPECT_EQ(check_contract(sid(behavior::end, 1u << 7)).reason, "End does not take flavor 0x80");
    EXPECT_EQ(check_contract(usid(behavior::end, 0, 16)).why, contract_refusal::flavor);
    EXPECT_EQ(check_contract(usid(behavior::end, 100, 32)).why, contract_refusal::flavor);
    EXPECT_TRUE(check_contract(usid(behavior::end, 96, 32)).ok());
    EXPECT_EQ(check_contract(usid(behavior::end, 100, 32)).reason,
              "NEXT-C-SID block 100 and node+function 32 bits: each a non-zero multiple of 8, together at most 128");
}

TEST(Contract, NextCsidLengths) {
    EXPECT_EQ(csid_of(usid(behavior::end, std::nullopt, std::nullopt)).block, 32);
    EXPECT_EQ(csid_of(usid(behavior::end, std::nullopt, std::nullopt)).node_fn, 16);
    EXPECT_EQ(csid_of(usid(behavior::end, 48, std::nullopt)).block, 48);
    EXPECT_EQ(csid_of(usid(behavior::end, 48, 24)).node_fn, 24);
    const sid_structure f3216{32, 16, 16, 0};
    EXPECT_EQ(csid_from_structure(behavior::end, f3216).node_fn, 16);     // uN: the node alone
    EXPECT_EQ(csid_from_structure(behavior::end_x, f3216).node_fn, 32);   // uA: node + function
    EXPECT_EQ(csid_from_structure(behavior::end_dt46, f3216).block, 32);
}

TEST(Contract, DisplayNames) {
    EXPECT_EQ(behavior_display_name(behavior::end, flavor::next_csid), "uN");
    EXPECT_EQ(behavior_display_name(behavior::end_x, flavor::next_csid), "uA");
    EXPECT_EQ(behavior_display_name(behavior::end_dx2, flavor::next_csid), "uDX2");
    EXPECT_EQ(behavior_display_name(behavior::end_t, flavor::next_csid), "End.T");
    EXPECT_EQ(behavior_display_name(behavior::end_b6_encaps, flavor::next_csid), "End.B6.Encaps");
    EXPECT_EQ(behavior_display_name(static_cast<behavior>(0), 0), "unknown");
}

// docs/dataplane-endpoint.md carries the contract table verbatim between its markers; when a
// row changes, paste the expected text this test prints.
TEST(Contract, TheDocListsExactlyTheTable) {
    const std::string path = std::string(SRV6D_FIXTURES) + "/../../docs/dataplane-endpoint.md";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str();
    const std::string begin = "<!-- behavior-table: generated by rib::behavior_table_markdown() -->\n";
    const std::string end = "<!-- /behavior-table -->";
    const size_t b = doc.find(begin);
    ASSERT_NE(b, std::string::npos) << "no " << begin << " in " << path;
    const size_t e = doc.find(end, b);
    ASSERT_NE(e, std::string::npos) << "no " << end << " in " << path;
    EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), behavior_table_markdown())
        << "docs/dataplane-endpoint.md: replace the table with\n" << behavior_table_markdown();
    // One line per row, in enum order.
    size_t rows = 0;
    for (const auto& r : behavior_table())
        rows += behavior_table_markdown().find("| " + std::string(r.name) + " |") != std::string::npos;
    EXPECT_EQ(rows, behavior_table().size());
}

TEST(Flavors, Names) {
    EXPECT_EQ(flavor_name(flavor::psp), "psp");
    EXPECT_EQ(flavor_name(flavor::usp), "usp");
    EXPECT_EQ(flavor_name(flavor::usd), "usd");
    EXPECT_EQ(flavor_name(flavor::next_csid), "next-csid");
    EXPECT_EQ(flavor_name(1), "");
    EXPECT_EQ(flavors_to_string(0), "");
    EXPECT_EQ(flavors_to_string(flavor::psp | flavor::next_csid), "psp,next-csid");
    EXPECT_EQ(flavors_to_string(flavor::usd | 0x20), "usd,0x20");
}

}  // namespace
}  // namespace rib
