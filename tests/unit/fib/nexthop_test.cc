// Compiled nexthop blocks and ECMP slot arrays.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <numeric>

#include "fib/datapath/ecmp.hh"
#include "fib/control/encap_build.hh"
#include "fib/datapath/mem.hh"
#include "fib/datapath/nexthop.hh"
#include "fib/control/nh_table.hh"

namespace fib {
namespace SRV6D_UNITY_ID {

std::map<uint32_t, uint32_t> count(const std::vector<uint32_t>& slots) {
    std::map<uint32_t, uint32_t> c;
    for (uint32_t s : slots)
        ++c[s];
    return c;
}

TEST(ecmp, exact_weights_when_they_fit) {
    const std::vector<ecmp_member> m{{10, 1}, {11, 3}, {12, 2}};
    const auto s = ecmp_slots(m);
    EXPECT_EQ(s, (std::vector<uint32_t>{10, 11, 11, 11, 12, 12}));
    // Common factors reduce: 100:300 is 1:3.
    EXPECT_EQ(ecmp_slots(std::vector<ecmp_member>{{1, 100}, {2, 300}}).size(), 4u);
    // Weight 0 counts as 1 (netlink weights are 1-based; a 0 must not drop a member).
    EXPECT_EQ(count(ecmp_slots(std::vector<ecmp_member>{{1, 0}, {2, 1}})), (std::map<uint32_t, uint32_t>{{1, 1}, {2, 1}}));
}

TEST(ecmp, scaled_by_largest_remainder_when_they_do_not) {
    const std::vector<ecmp_member> m{{1, 1}, {2, 1000}, {3, 499}};
    const auto s = ecmp_slots(m);
    ASSERT_EQ(s.size(), ecmp_max_slots);
    const auto c = count(s);
    EXPECT_EQ(c.at(1), 1u) << "every member keeps at least one slot";
    // 1000/1500 and 499/1500 of 256 are 170.7 and 85.2: within one slot.
    EXPECT_NEAR(c.at(2), 170.7, 1.0);
    EXPECT_NEAR(c.at(3), 85.2, 1.0);
    // More members than slots: one slot each.
    std::vector<ecmp_member> many;
    for (uint32_t i = 0; i < 300; ++i)
        many.push_back({i, 1 + i % 5});
    EXPECT_EQ(ecmp_slots(many).size(), 300u);
}

TEST(ecmp, slot_choice_is_uniform) {
    std::vector<uint32_t> hits(6);
    for (uint32_t i = 0; i < 60000; ++i)
        ++hits[ecmp_slot(i * 2654435761u, 6)];
    for (uint32_t h : hits)
        EXPECT_NEAR(h, 10000, 200);
    EXPECT_EQ(ecmp_slot(0xffffffffu, 6), 5u);
}

TEST(compiled_nh, block_layout_and_checksum) {
    const rib::ip6_addr src = *rib::parse_ip6("2001:db8::1");
    const std::vector<rib::ip6_addr> segs{*rib::parse_ip6("fc00:0:2::1"), *rib::parse_ip6("fc00:0:3::1")};
    const auto t = build_encap_template(rib::encap_mode::encap, segs, src, ipproto::ipv6);
    nh_fields f;
    f.kind = nh_kind::headend;
    f.index = 77;
    f.via.ifindex = 3;
    const auto before = memory().bytes[static_cast<size_t>(mem_kind::nexthop)].load();
    const compiled_nh* n = compiled_nh::create(f, &t.tmpl, {});
    EXPECT_TRUE(n->intact());
    EXPECT_EQ(n->index(), 77u);
    EXPECT_EQ(std::vector<uint8_t>(n->encap_bytes().begin(), n->encap_bytes().end()),
              std::vector<uint8_t>(t.tmpl.wire().begin(), t.tmpl.wire().end()));
    EXPECT_GT(memory().bytes[static_cast<size_t>(mem_kind::nexthop)].load(), before);
    // Any byte changed after publication breaks the checksum: a reader can tell.
    auto* raw = const_cast<uint8_t*>(n->encap_bytes().data());
    raw[30] ^= 1;
    EXPECT_FALSE(n->intact());
    raw[30] ^= 1;
    EXPECT_TRUE(n->intact());
    compiled_nh::destroy(n);
    EXPECT_EQ(memory().bytes[static_cast<size_t>(mem_kind::nexthop)].load(), before);

    nh_fields g;
    g.kind = nh_kind::ecmp;
    const std::vector<ecmp_member> m{{5, 1}, {6, 2}};
    const compiled_nh* e = compiled_nh::create(g, {}, m);
    EXPECT_TRUE(e->intact());
    EXPECT_EQ(e->slots().size(), 3u);
    EXPECT_EQ(e->members().size(), 2u);
    EXPECT_EQ(e->members()[1].weight, 2u);
    EXPECT_EQ(e->pick(0), 5u);
    EXPECT_EQ(e->pick(0xffffffffu), 6u);
    compiled_nh::destroy(e);
}

TEST(nh_table, indices_pages_and_retirement) {
    nh_fields mf;
    const compiled_nh* miss = compiled_nh::create(mf, {}, {});
    {
        nh_table t(miss);
        retire_batch r;
        std::vector<uint32_t> idx;
        for (int i = 0; i < 600; ++i) {
            idx.push_back(t.alloc());
            nh_fields f;
            f.kind = nh_kind::forward;
            f.index = idx.back();
            t.set(idx.back(), compiled_nh::create(f, {}, {}), r);
        }
        EXPECT_EQ(idx.front(), 1u) << "0 is the miss nexthop";
        EXPECT_TRUE(r.empty());
        const auto pages = t.publish(r);
        ASSERT_EQ(pages.size(), 3u);
        EXPECT_EQ(pages[0]->at(0), miss);
        EXPECT_EQ(pages[2]->at(599)->index(), 599u);
        EXPECT_EQ(pages[2]->at(700), miss) << "unused slots are never null";
        // Replacing one slot rebuilds one page and retires the old object and the old page.
        nh_fields f;
        f.kind = nh_kind::blackhole;
        t.set(300, compiled_nh::create(f, {}, {}), r);
        const auto pages2 = t.publish(r);
        EXPECT_EQ(r.size(), 2u);
        EXPECT_EQ(pages2[0], pages[0]);
        EXPECT_NE(pages2[1], pages[1]);
        EXPECT_EQ(pages2[1]->at(300)->kind(), nh_kind::blackhole);
        // A released index comes back.
        t.release(300, r);
        EXPECT_EQ(t.alloc(), 300u);
        t.retire_all(r);
    }
    compiled_nh::destroy(miss);
}

}  // namespace
}  // namespace fib
