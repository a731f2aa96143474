// Inner flow hash: one flow, one value; the fields that define a flow change it, the others not.
#include "forward/datapath/flow_hash.hh"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "tests/unit/forward/headend_util.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using namespace fwd::test;

uint32_t h4(const flow4& f) {
    const bytes p = ipv4_packet(f);
    return flow_hash_ip4(p.data(), static_cast<uint32_t>(p.size()));
}
uint32_t h6(const flow6& f) {
    const bytes p = ipv6_packet(f);
    return flow_hash_ip6(p.data(), static_cast<uint32_t>(p.size()));
}

uint32_t heth(const bytes& f) {
    if (f.size() < 14)
        throw std::invalid_argument("not a frame");
    return flow_hash_eth(&f.front());
}

TEST(FlowHash, PinnedValues) {
    // Golden values: the flow label of a flow must not change between builds or hosts (x86).
    EXPECT_EQ(h4({}), 0x9358'77cfu);
    EXPECT_EQ(h6({}), 0xaa98'1f6eu);
    EXPECT_EQ(flow_label(h4({})), 0x87efau);  // headend_test.cc's literal frame carries it
    EXPECT_EQ(flow_label(h6({})), 0x815c7u);
}

// srv6d's CRC32C steps (the SSE4.2 instruction) and DPDK's rte_hash_crc, which the dataplane
// bench's floor uses, give the same hashes: the bench compares their outputs byte for byte.
TEST(FlowHash, InstructionAndDpdkCrcAgree) {
    using flow_detail::crc_dpdk;
    uint64_t x = 0x9e37'79b9'7f4a'7c15u;
    for (int i = 0; i < 2000; ++i) {
        uint8_t b[64];
        for (uint8_t& c : b) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c = static_cast<uint8_t>(x);
        }
        b[0] = static_cast<uint8_t>(i % 2 ? 0x45 : 0x60 | (b[0] & 0x0f));
        b[9] = static_cast<uint8_t>(i % 3 ? 17 : 6);
        b[6] = static_cast<uint8_t>(i % 3 ? 17 : b[6]);
        const uint32_t len = 20 + static_cast<uint32_t>(i % 44);
        ASSERT_EQ(flow_hash_ip(b, len), flow_hash_ip<crc_dpdk>(b, len)) << i;
        ASSERT_EQ(flow_hash_eth(b), flow_hash_eth<crc_dpdk>(b)) << i;
    }
}

TEST(FlowHash, Ipv4FiveTuple) {
    const flow4 base;
    auto changed = [&](auto edit) {
        flow4 f = base;
        edit(f);
        return h4(f) != h4(base);
    };
    EXPECT_TRUE(changed([](flow4& f) { f.src[3] = 3; }));
    EXPECT_TRUE(changed([](flow4& f) { f.dst[3] = 6; }));
    EXPECT_TRUE(changed([](flow4& f) { f.sport = 1001; }));
    EXPECT_TRUE(changed([](flow4& f) { f.dport = 2001; }));
    EXPECT_TRUE(changed([](flow4& f) { f.proto = 6; }));
    // Not part of the flow: TTL, TOS, id, payload.
    EXPECT_FALSE(changed([](flow4& f) { f.ttl = 3; }));
    EXPECT_FALSE(changed([](flow4& f) { f.tos = 0xb8; }));
    EXPECT_FALSE(changed([](flow4& f) { f.id = 77; }));
    EXPECT_FALSE(changed([](flow4& f) { f.payload = "other payload"; }));
}

TEST(FlowHash, Ipv4WithoutPortsIsThreeTuple) {
    // Fragments (MF set, or an offset) and protocols without ports ignore the "port" bytes.
    for (const uint16_t frag : {uint16_t{0x2000}, uint16_t{0x0010}}) {
        flow4 a, b;
        a.frag = b.frag = frag;
        b.sport = 1234;
        EXPECT_EQ(h4(a), h4(b)) << frag;
        flow4 whole;
        EXPECT_NE(h4(a), h4(whole));  // still distinguishable from the unfragmented 5-tuple
    }
    flow4 a, b;
    a.proto = b.proto = 1;  // ICMP
    b.sport = 1234;
    EXPECT_EQ(h4(a), h4(b));
    // DF alone is not a fragment.
    flow4 df, df2;
    df.frag = df2.frag = 0x4000;
    df2.sport = 1234;
    EXPECT_NE(h4(df), h4(df2));
    // A truncated L4 header: no ports.
    const bytes p = ipv4_packet({});
    EXPECT_EQ(flow_hash_ip4(p.data(), 22), flow_hash_ip4(p.data(), 23));
    EXPECT_NE(flow_hash_ip4(p.data(), 23), flow_hash_ip4(p.data(), 24));
}

TEST(FlowHash, Ipv6FiveTuplePlusLabel) {
    const flow6 base;
    auto changed = [&](auto edit) {
        flow6 f = base;
        edit(f);
        return h6(f) != h6(base);
    };
    EXPECT_TRUE(changed([](flow6& f) { f.src = "fd01::3"; }));
    EXPECT_TRUE(changed([](flow6& f) { f.dst = "fd99:1::6"; }));
    EXPECT_TRUE(changed([](flow6& f) { f.src = "fd02::2"; }));  // high bits of the address count too
    EXPECT_TRUE(changed([](flow6& f) { f.sport = 1001; }));
    EXPECT_TRUE(changed([](flow6& f) { f.dport = 2001; }));
    EXPECT_TRUE(changed([](flow6& f) { f.nh = 6; }));
    EXPECT_TRUE(changed([](flow6& f) { f.label = 0x54321; }));
    EXPECT_FALSE(changed([](flow6& f) { f.hlim = 3; }));
    EXPECT_FALSE(changed([](flow6& f) { f.tc = 0xb8; }));
    EXPECT_FALSE(changed([](flow6& f) { f.payload = "other"; }));
    // Extension header first (here a fragment header, 44): no ports.
    flow6 a, b;
    a.nh = b.nh = 44;
    b.sport = 1234;
    EXPECT_EQ(h6(a), h6(b));
}

TEST(FlowHash, EthernetAndDispatch) {
    const bytes ip = ipv4_packet({});
    EXPECT_EQ(flow_hash_ip(ip.data(), static_cast<uint32_t>(ip.size())), h4({}));
    const bytes ip6p = ipv6_packet({});
    EXPECT_EQ(flow_hash_ip(ip6p.data(), static_cast<uint32_t>(ip6p.size())), h6({}));
    EXPECT_EQ(flow_hash_ip(ip.data(), 19), 0u);
    EXPECT_EQ(flow_hash_ip(ip6p.data(), 39), 0u);
    const bytes junk = hex("5500000000000000000000000000000000000000");
    EXPECT_EQ(flow_hash_ip(junk.data(), 20), 0u);

    bytes f1 = ether(ip, 0x0806), f2 = f1;
    EXPECT_EQ(heth(f1), heth(f2));
    f2[20] ^= 1;  // payload: not part of the hash
    EXPECT_EQ(heth(f1), heth(f2));
    for (const size_t i : {size_t{0}, size_t{5}, size_t{6}, size_t{11}, size_t{12}, size_t{13}}) {
        bytes f3 = f1;
        f3[i] ^= 1;
        EXPECT_NE(heth(f1), heth(f3)) << i;
    }
}

TEST(FlowLabel, TwentyBitsNeverZero) {
    EXPECT_EQ(flow_label(0), 1u);
    EXPECT_EQ(flow_label(0x0010'0001u), 1u);  // folds to 0
    EXPECT_EQ(flow_label(0xfff0'0000u), 0xfffu);
    EXPECT_EQ(flow_label(0x000f'ffffu), 0xfffffu);
    // Spread: 4096 flows differing only in the source port get (almost) as many labels.
    std::set<uint32_t> labels;
    for (uint32_t port = 0; port < 4096; ++port) {
        flow4 f;
        f.sport = static_cast<uint16_t>(port);
        const uint32_t l = flow_label(h4(f));
        EXPECT_GT(l, 0u);
        EXPECT_LE(l, 0xfffffu);
        labels.insert(l);
    }
    EXPECT_GT(labels.size(), 4080u);
}

}  // namespace
}  // namespace fwd
