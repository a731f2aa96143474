// Headend on real mbufs: known frames in, exact bytes out, for every mode, 1/2/3/8 SIDs, IPv4,
// IPv6 and Ethernet inner; the header-mbuf fallback; every drop path leaves the packet untouched.
#include "forward/datapath/srv6_headend.hh"

#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <cstring>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "fib/control/encap_build.hh"
#include "tests/support/encap_parse.hh"
#include "forward/datapath/flow_hash.hh"
#include "tests/unit/forward/headend_util.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using rib::encap_mode;
using namespace fwd::test;

constexpr unsigned pkt_pool_size = 511;
constexpr unsigned hdr_pool_size = 63;

class Headend : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (pkts_ == nullptr)
            pkts_ = rte_pktmbuf_pool_create("hd_pkts", pkt_pool_size, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
        if (hdrs_ == nullptr)
            hdrs_ = headend_hdr_pool_create("hd_hdrs", hdr_pool_size, SOCKET_ID_ANY);
        ASSERT_NE(pkts_, nullptr);
        ASSERT_NE(hdrs_, nullptr);
    }
    void SetUp() override { ctx_.hdr_pool = hdrs_; }
    // Every test returns every mbuf: a leak in the packet path shows here.
    void TearDown() override {
        EXPECT_EQ(rte_mempool_avail_count(pkts_), pkt_pool_size);
        EXPECT_EQ(rte_mempool_avail_count(hdrs_), hdr_pool_size);
    }

    static rte_mempool* pkts_;
    static rte_mempool* hdrs_;
    headend_ctx ctx_;
};
rte_mempool* Headend::pkts_ = nullptr;
rte_mempool* Headend::hdrs_ = nullptr;

const rib::ip6_addr k_src = ip6("fc00:a::1");

fib::encap_template view_of(const bytes& t, encap_mode mode) {
    std::string why;
    const auto v = test_support::parse_encap_template(t, mode, &why);
    if (!v)
        throw std::runtime_error("template refused: " + why);
    return *v;
}

bytes with_flow_label(bytes b, uint32_t label) {
    b[1] = static_cast<uint8_t>((b[1] & 0xf0) | (label >> 16 & 0x0f));
    b[2] = static_cast<uint8_t>(label >> 8);
    b[3] = static_cast<uint8_t>(label);
    return b;
}

uint32_t label_of(const bytes& outer) {
    return static_cast<uint32_t>((outer[1] & 0x0f) << 16 | outer[2] << 8 | outer[3]);
}

// ---------------------------------------------------------------------------------------------
// Frames the Linux kernel (6.18) emitted for `ip route ... encap seg6 mode M segs ...` with
// `ip sr tunsrc set fc00:a::1`, seg6_flowlabel=0, for frames it forwarded (so hop limit 64 - 1).
// Captured on the egress veth with AF_PACKET, Ethernet header removed. headend_kernel_test.cc
// repeats this capture live for more cases; these stay as fixed goldens that need no root.

struct kernel_golden {
    const char* name;
    encap_mode mode;
    size_t nsids;
    const char* outer_hex;  // the kernel's frame from the outer IPv6 header on
    size_t outer_len;       // outer IPv6 + SRH
};

const kernel_golden k_goldens[] = {
    {"encap_red_1sid_ipv4", encap_mode::encap_red, 1,
     "600000000021043ffc00000a000000000000000000000001fc00000b000000000000000000000001"
     "4500002100010000401165610a0100020a63010503e807d0000d9adf68656c6c6f",
     40},
    {"encap_red_3sid_ipv4", encap_mode::encap_red, 3,
     "6000000000492b3ffc00000a000000000000000000000001fc00000b000000000000000000000001"
     "0404040201000000fc00000d000000000000000000000003fc00000c000000000000000000000002"
     "4500002100010000401163610a0100020a63030503e807d0000d98df68656c6c6f",
     80},
    {"encap_3sid_ipv6_tc", encap_mode::encap, 3,
     "6b800000006d2b3ffc00000a000000000000000000000001fc00000b000000000000000000000001"
     "2906040202000000fc00000d000000000000000000000003fc00000c000000000000000000000002"
     "fc00000b000000000000000000000001"
     "6b800000000d1140fd010000000000000000000000000002fd990003000000000000000000000005"
     "03e807d0000db5a468656c6c6f",
     96},
    {"l2encap_red_2sid", encap_mode::l2encap_red, 2,
     "6000000000472b3ffc00000a000000000000000000000001fc00000b000000000000000000000001"
     "8f02040100000000fc00000c000000000000000000000002"
     "020000000010020000000001080045000021000100004011"
     "64620a0100020a62020503e807d0000d99e068656c6c6f",
     64},
};

TEST_F(Headend, MatchesKernelGoldens) {
    for (const auto& g : k_goldens) {
        SCOPED_TRACE(g.name);
        const bytes kernel = hex(g.outer_hex);
        const bytes inner(kernel.begin() + static_cast<long>(g.outer_len), kernel.end());
        const bool l2 = is_l2(g.mode);
        // L3 modes get the frame as it arrived (Ethernet + inner); L2 modes the frame itself.
        const bytes in = l2 ? inner : ether(inner, inner[0] >> 4 == 4 ? 0x0800 : 0x86dd);
        const bytes t = build_template(g.mode, sid_list(g.nsids), k_src, 63);
        rte_mbuf* m = make_mbuf(pkts_, in);
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, view_of(t, g.mode), ctx_, why);
        ASSERT_NE(out, nullptr) << name(why);
        const bytes got = read_all(out);
        // The kernel sends flow label 0 (seg6_flowlabel=0); ours is the inner flow's.
        const uint32_t label = label_of(got);
        EXPECT_NE(label, 0u);
        EXPECT_EQ(label, flow_label(flow_hash_ip(l2 ? inner.data() + 14 : inner.data(),
                                                 static_cast<uint32_t>(inner.size() - (l2 ? 14 : 0)))));
        EXPECT_EQ(to_hex(got), to_hex(with_flow_label(kernel, label)));
        EXPECT_EQ(out->pkt_len, kernel.size());
        rte_pktmbuf_free(out);
    }
}

// One literal case written out by hand from RFC 8986 §5.2 / RFC 8754 §2, with the flow label
// pinned: if any byte of the encoder, the template layout or the flow hash moves, this fails.
TEST_F(Headend, LiteralEncapsRed2SidsIpv4) {
    flow4 f;
    f.tos = 0xb9;  // DSCP 46 (EF), ECN 01 (ECT(1)): copied whole (RFC 6040 normal mode)
    const bytes inner = ipv4_packet(f);
    const bytes t = build_template(encap_mode::encap_red, sid_list(2), k_src, 64);
    rte_mbuf* m = make_mbuf(pkts_, ether(inner, 0x0800));
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, view_of(t, encap_mode::encap_red), ctx_, why);
    ASSERT_NE(out, nullptr);
    const bytes want = hex(
        "6b9"    "87efa"  // version 6, TC 0xb9, flow label 0x87efa (pinned)
        "0039"   "2b" "40"  // payload 24 + 33, next header 43 (SRH), hop limit 64
        "fc00000a000000000000000000000001"  // source
        "fc00000b000000000000000000000001"  // DA = S1
        "04" "02" "04" "01" "00" "00" "0000"  // SRH: nh 4, len 2, type 4, SL 1, LE 0, flags, tag
        "fc00000c000000000000000000000002"  // Segment List[0] = S2
        "45b9002100010000401164a80a0100020a630105" "03e807d0000d0000" "68656c6c6f");
    EXPECT_EQ(to_hex(read_all(out)), to_hex(want));
    rte_pktmbuf_free(out);
}

// ---------------------------------------------------------------------------------------------
// The matrix: every mode x 1, 2, 3, 8 SIDs x every inner kind, against the reference encoder.

enum class inner_kind { ipv4, ipv6, eth_ipv4, eth_ipv6, eth_other };

const char* to_string(inner_kind k) {
    switch (k) {
    case inner_kind::ipv4: return "ipv4";
    case inner_kind::ipv6: return "ipv6";
    case inner_kind::eth_ipv4: return "eth_ipv4";
    case inner_kind::eth_ipv6: return "eth_ipv6";
    case inner_kind::eth_other: return "eth_other";
    }
    return "?";
}

const char* to_string(encap_mode m) {
    switch (m) {
    case encap_mode::encap: return "encap";
    case encap_mode::encap_red: return "encap_red";
    case encap_mode::l2encap: return "l2encap";
    case encap_mode::l2encap_red: return "l2encap_red";
    case encap_mode::inline_srh: return "inline";
    case encap_mode::inline_red: return "inline_red";
    }
    return "?";
}

struct sample {
    bytes frame;     // what the mbuf holds
    uint16_t l3_off;  // what the caller passes
    bytes payload;    // what must follow the outer header
    uint8_t type;     // inner type in the outer next-header chain
    uint8_t tc;       // expected outer traffic class
    uint32_t hash;    // expected flow hash
};

sample make_sample(inner_kind k) {
    flow4 f4;
    f4.tos = 0x2e;
    flow6 f6;
    f6.tc = 0x8a;
    f6.label = 0x12345;
    switch (k) {
    case inner_kind::ipv4: {
        const bytes ip = ipv4_packet(f4);
        return {ether(ip, 0x0800), 14, ip, 4, 0x2e, flow_hash_ip4(ip.data(), static_cast<uint32_t>(ip.size()))};
    }
    case inner_kind::ipv6: {
        const bytes ip = ipv6_packet(f6);
        return {ether(ip, 0x86dd), 14, ip, 41, 0x8a, flow_hash_ip6(ip.data(), static_cast<uint32_t>(ip.size()))};
    }
    case inner_kind::eth_ipv4: {
        const bytes ip = ipv4_packet(f4);
        const bytes fr = ether(ip, 0x0800);
        return {fr, 14, fr, 143, 0x2e, flow_hash_ip4(ip.data(), static_cast<uint32_t>(ip.size()))};
    }
    case inner_kind::eth_ipv6: {
        const bytes ip = ipv6_packet(f6);
        const bytes fr = ether(ip, 0x86dd);
        return {fr, 14, fr, 143, 0x8a, flow_hash_ip6(ip.data(), static_cast<uint32_t>(ip.size()))};
    }
    case inner_kind::eth_other: {
        // An ARP request: no IP, so TC 0 and the MACs + ethertype make the hash.
        const bytes arp = hex("0001080006040001020000000001" "0a010002" "000000000000" "0a010001");
        const bytes fr = ether(arp, 0x0806);
        return {fr, 0, fr, 143, 0, flow_hash_eth(fr.data())};
    }
    }
    return {};
}

using matrix_param = std::tuple<encap_mode, size_t, inner_kind>;

class HeadendMatrix : public Headend, public ::testing::WithParamInterface<matrix_param> {};

TEST_P(HeadendMatrix, ExactBytes) {
    const auto [mode, nsids, kind] = GetParam();
    const sample s = make_sample(kind);
    const auto sids = sid_list(nsids);
    const bytes t = build_template(mode, sids, k_src, 64);
    const fib::encap_template v = view_of(t, mode);

    rte_mbuf* m = make_mbuf(pkts_, s.frame);
    const uint16_t strip = is_l2(mode) ? 0 : s.l3_off;
    // Prepending in place needs the template plus 14 bytes of Ethernet in front of the inner.
    const bool fits = size_t{RTE_PKTMBUF_HEADROOM} + strip >= t.size() + eth_reserve;
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, s.l3_off, v, ctx_, why);
    ASSERT_NE(out, nullptr) << name(why);

    ref_encap r;
    r.mode = mode;
    r.sids = sids;
    r.src = k_src;
    r.tc = s.tc;
    r.flow_label = flow_label(s.hash);
    const bytes want = reference_encap(r, s.payload, s.type);
    EXPECT_EQ(to_hex(read_all(out)), to_hex(want));
    EXPECT_EQ(out->pkt_len, want.size());
    EXPECT_GE(rte_pktmbuf_headroom(out), eth_reserve);
    if (fits) {
        EXPECT_EQ(out, m);
        EXPECT_EQ(out->nb_segs, 1);
        EXPECT_EQ(ctx_.hdr_chained, 0u);
    } else {
        // Header mbuf in front, holding exactly the outer header; the payload did not move.
        EXPECT_NE(out, m);
        EXPECT_EQ(out->nb_segs, 2);
        EXPECT_EQ(out->next, m);
        EXPECT_EQ(out->data_len, t.size());
        EXPECT_EQ(m->data_len, s.payload.size());
        EXPECT_EQ(rte_pktmbuf_mtod(m, const uint8_t*)[0], s.payload[0]);
        EXPECT_EQ(ctx_.hdr_chained, 1u);
    }
    EXPECT_EQ(rte_mbuf_check(out, 1, nullptr), 0);
    rte_pktmbuf_free(out);
}

std::string matrix_name(const ::testing::TestParamInfo<matrix_param>& i) {
    return std::string(to_string(std::get<0>(i.param))) + "_" + std::to_string(std::get<1>(i.param)) + "sid_" +
           to_string(std::get<2>(i.param));
}

INSTANTIATE_TEST_SUITE_P(L3, HeadendMatrix,
                         ::testing::Combine(::testing::Values(encap_mode::encap, encap_mode::encap_red),
                                            ::testing::Values(size_t{1}, size_t{2}, size_t{3}, size_t{8}),
                                            ::testing::Values(inner_kind::ipv4, inner_kind::ipv6)),
                         matrix_name);
INSTANTIATE_TEST_SUITE_P(L2, HeadendMatrix,
                         ::testing::Combine(::testing::Values(encap_mode::l2encap, encap_mode::l2encap_red),
                                            ::testing::Values(size_t{1}, size_t{2}, size_t{3}, size_t{8}),
                                            ::testing::Values(inner_kind::eth_ipv4, inner_kind::eth_ipv6,
                                                              inner_kind::eth_other)),
                         matrix_name);

// ---------------------------------------------------------------------------------------------
// Headroom and sharing.

TEST_F(Headend, WhereTheHeaderGoes) {
    // With the default 128-byte headroom and a 14-byte L2 header to strip, 142 bytes are free:
    // H.Encaps fits up to 5 SIDs (48 + 80 + 14 = 142), H.Encaps.L2 up to 4 (no strip).
    const bytes frame = ether(ipv4_packet({}), 0x0800);
    struct c {
        encap_mode mode;
        size_t n;
        bool chained;
    } cases[] = {{encap_mode::encap, 5, false},   {encap_mode::encap, 6, true},
                 {encap_mode::encap_red, 6, false}, {encap_mode::encap_red, 7, true},
                 {encap_mode::l2encap, 4, false},  {encap_mode::l2encap, 5, true}};
    for (const auto& cs : cases) {
        SCOPED_TRACE(std::string(to_string(cs.mode)) + " " + std::to_string(cs.n));
        const bytes t = build_template(cs.mode, sid_list(cs.n), k_src, 64);
        rte_mbuf* m = make_mbuf(pkts_, frame);
        headend_ctx ctx{hdrs_, 0};
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, view_of(t, cs.mode), ctx, why);
        ASSERT_NE(out, nullptr);
        EXPECT_EQ(out->nb_segs, cs.chained ? 2 : 1);
        EXPECT_EQ(ctx.hdr_chained, cs.chained ? 1u : 0u);
        if (!cs.chained) {
            EXPECT_EQ(rte_pktmbuf_headroom(out), RTE_PKTMBUF_HEADROOM + (is_l2(cs.mode) ? 0 : 14) - t.size());
        }
        rte_pktmbuf_free(out);
    }
}

TEST_F(Headend, ShortHeadroomChainsEvenOneSid) {
    const bytes inner = ipv6_packet({});
    const bytes t = build_template(encap_mode::encap_red, sid_list(1), k_src, 64);
    rte_mbuf* m = make_mbuf(pkts_, ether(inner, 0x86dd), 20);  // 20 + 14 < 40 + 14
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, view_of(t, encap_mode::encap_red), ctx_, why);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->nb_segs, 2);
    EXPECT_EQ(out->pkt_len, 40 + inner.size());
    ref_encap r;
    r.mode = encap_mode::encap_red;
    r.sids = sid_list(1);
    r.src = k_src;
    r.flow_label = flow_label(flow_hash_ip6(inner.data(), static_cast<uint32_t>(inner.size())));
    EXPECT_EQ(to_hex(read_all(out)), to_hex(reference_encap(r, inner, 41)));
    rte_pktmbuf_free(out);
}

TEST_F(Headend, SharedBufferIsNeverWrittenInFront) {
    // A clone shares the data buffer: writing into its headroom would change what the other
    // reference sees, so the header goes into its own mbuf.
    const bytes frame = ether(ipv4_packet({}), 0x0800);
    rte_mbuf* orig = make_mbuf(pkts_, frame);
    rte_mbuf* clone = rte_pktmbuf_clone(orig, pkts_);
    ASSERT_NE(clone, nullptr);
    const bytes t = build_template(encap_mode::encap, sid_list(1), k_src, 64);
    drop_reason why{};
    rte_mbuf* out = h_encaps(clone, 14, view_of(t, encap_mode::encap), ctx_, why);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->nb_segs, 2);
    EXPECT_EQ(ctx_.hdr_chained, 1u);
    EXPECT_EQ(read_all(orig), frame);
    // The headroom of the shared buffer is untouched too.
    const auto* buf = static_cast<const uint8_t*>(orig->buf_addr);
    const bytes zeros(RTE_PKTMBUF_HEADROOM, 0);
    EXPECT_EQ(bytes(buf, buf + RTE_PKTMBUF_HEADROOM), bytes(zeros));
    rte_pktmbuf_free(out);
    rte_pktmbuf_free(orig);
}

TEST_F(Headend, ReferencedTwiceIsShared) {
    // A direct mbuf held twice (e.g. queued for mirroring): same rule as a clone.
    const bytes frame = ether(ipv6_packet({}), 0x86dd);
    rte_mbuf* m = make_mbuf(pkts_, frame);
    rte_mbuf_refcnt_update(m, 1);
    const bytes t = build_template(encap_mode::encap_red, sid_list(2), k_src, 64);
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, view_of(t, encap_mode::encap_red), ctx_, why);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->nb_segs, 2);
    EXPECT_EQ(ctx_.hdr_chained, 1u);
    EXPECT_EQ(m->data_off, RTE_PKTMBUF_HEADROOM + 14);  // only the L2 header was stripped
    rte_pktmbuf_free(out);  // drops one reference to m
    EXPECT_EQ(rte_mbuf_refcnt_read(m), 1);
    rte_pktmbuf_free(m);
}

TEST_F(Headend, MultiSegmentInnerKeepsItsSegments) {
    // The inner already spans two mbufs: the payload length counts both, nothing is copied.
    flow4 f;
    f.payload = std::string(300, 'x');
    const bytes inner = ipv4_packet(f);
    const bytes frame = ether(inner, 0x0800);
    const bytes first(frame.begin(), frame.begin() + 100), second(frame.begin() + 100, frame.end());
    rte_mbuf* m = make_mbuf(pkts_, first);
    rte_mbuf* tail = make_mbuf(pkts_, second);
    ASSERT_EQ(rte_pktmbuf_chain(m, tail), 0);
    const bytes t = build_template(encap_mode::encap, sid_list(3), k_src, 64);
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, view_of(t, encap_mode::encap), ctx_, why);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out, m);
    EXPECT_EQ(out->nb_segs, 2);
    EXPECT_EQ(out->next, tail);
    ref_encap r;
    r.mode = encap_mode::encap;
    r.sids = sid_list(3);
    r.src = k_src;
    r.flow_label = flow_label(flow_hash_ip4(inner.data(), 86));  // only the first segment is hashed
    const bytes want = reference_encap(r, inner, 4);
    EXPECT_EQ(to_hex(read_all(out)), to_hex(want));
    EXPECT_EQ(out->pkt_len, want.size());
    rte_pktmbuf_free(out);
}

TEST_F(Headend, ChainedHeadCarriesThePacketsMetadata) {
    // Packets with a 16-byte private area (a metadata overlay) and dynamic fields set.
    rte_mempool* pp = rte_pktmbuf_pool_create("hd_pkts_priv", 7, 0, 16, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    rte_mempool* hp = headend_hdr_pool_create("hd_hdrs_priv", 7, SOCKET_ID_ANY, 16);
    ASSERT_NE(pp, nullptr);
    ASSERT_NE(hp, nullptr);
    rte_mbuf* m = make_mbuf(pp, ether(ipv4_packet({}), 0x0800));
    for (size_t i = 0; i < 16; ++i)
        reinterpret_cast<uint8_t*>(m + 1)[i] = static_cast<uint8_t>(0xa0 + i);
    for (size_t i = 0; i < std::size(m->dynfield1); ++i)
        m->dynfield1[i] = static_cast<uint32_t>(0x1000 + i);
    m->port = 7;
    m->hash.rss = 0xfeedbeef;
    m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
    headend_ctx ctx{hp, 0};
    const bytes t = build_template(encap_mode::encap, sid_list(8), k_src, 64);
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, view_of(t, encap_mode::encap), ctx, why);
    ASSERT_NE(out, nullptr);
    ASSERT_NE(out, m);
    EXPECT_EQ(std::memcmp(out + 1, m + 1, 16), 0);
    EXPECT_EQ(std::memcmp(out->dynfield1, m->dynfield1, sizeof m->dynfield1), 0);
    EXPECT_EQ(out->port, 7);
    EXPECT_EQ(out->hash.rss, 0xfeedbeefu);
    EXPECT_EQ(out->ol_flags, RTE_MBUF_F_RX_RSS_HASH);  // RX checksum flags described the old first bytes
    rte_pktmbuf_free(out);
    EXPECT_EQ(rte_mempool_avail_count(pp), 7u);
    EXPECT_EQ(rte_mempool_avail_count(hp), 7u);
    rte_mempool_free(pp);
    rte_mempool_free(hp);
}

// ---------------------------------------------------------------------------------------------
// Drops: the reason, and the packet exactly as it was.

struct snapshot {
    bytes data;
    uint16_t data_off, data_len;
    uint32_t pkt_len;
    uint16_t nb_segs;
    explicit snapshot(const rte_mbuf* m)
        : data(read_all(m)), data_off(m->data_off), data_len(m->data_len), pkt_len(m->pkt_len), nb_segs(m->nb_segs) {}
    bool operator==(const snapshot&) const = default;
};

TEST_F(Headend, HeaderPoolExhaustedDropsAndLeavesThePacket) {
    rte_mempool* small = headend_hdr_pool_create("hd_hdrs_2", 2, SOCKET_ID_ANY);
    ASSERT_NE(small, nullptr);
    headend_ctx ctx{small, 0};
    const bytes frame = ether(ipv6_packet({}), 0x86dd);
    const bytes t = build_template(encap_mode::encap, sid_list(8), k_src, 64);
    const auto v = view_of(t, encap_mode::encap);
    std::vector<rte_mbuf*> sent;
    for (int i = 0; i < 2; ++i) {
        drop_reason why{};
        rte_mbuf* out = h_encaps(make_mbuf(pkts_, frame), 14, v, ctx, why);
        ASSERT_NE(out, nullptr);
        sent.push_back(out);
    }
    rte_mbuf* m = make_mbuf(pkts_, frame);
    const snapshot before(m);
    drop_reason why = drop_reason::tx_full;
    EXPECT_EQ(h_encaps(m, 14, v, ctx, why), nullptr);
    EXPECT_EQ(why, drop_reason::encap_no_mbuf);
    EXPECT_TRUE(snapshot(m) == before);
    EXPECT_EQ(ctx.hdr_chained, 2u);
    // Once a header mbuf comes back, the same packet goes through.
    rte_pktmbuf_free(sent.back());
    sent.pop_back();
    rte_mbuf* out = h_encaps(m, 14, v, ctx, why);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->nb_segs, 2);
    sent.push_back(out);
    for (auto* s : sent)
        rte_pktmbuf_free(s);
    EXPECT_EQ(rte_mempool_avail_count(small), 2u);
    rte_mempool_free(small);
}

TEST_F(Headend, NoHeaderPoolDropsLongTemplates) {
    headend_ctx ctx;  // no pool configured
    const bytes t = build_template(encap_mode::encap, sid_list(8), k_src, 64);
    rte_mbuf* m = make_mbuf(pkts_, ether(ipv4_packet({}), 0x0800));
    const snapshot before(m);
    drop_reason why{};
    EXPECT_EQ(h_encaps(m, 14, view_of(t, encap_mode::encap), ctx, why), nullptr);
    EXPECT_EQ(why, drop_reason::encap_no_mbuf);
    EXPECT_TRUE(snapshot(m) == before);
    rte_pktmbuf_free(m);
}

TEST_F(Headend, MalformedInnerDropsWithReason) {
    const bytes t3 = build_template(encap_mode::encap, sid_list(1), k_src, 64);
    const bytes t2 = build_template(encap_mode::l2encap, sid_list(1), k_src, 64);
    const bytes v6 = ipv6_packet({});
    struct c {
        const char* what;
        bytes frame;
        uint16_t l3_off;
        encap_mode mode;
        drop_reason want;
    } cases[] = {
        {"version 5", ether(hex("5500001c000000004011000001020304050607080000000000080000"), 0x0800), 14,
         encap_mode::encap, drop_reason::l3_unknown},
        {"ipv4 cut at 10 bytes", ether(hex("45000021000100004011"), 0x0800), 14, encap_mode::encap,
         drop_reason::ip4_truncated},
        {"ipv6 cut at 30 bytes", ether(bytes(v6.begin(), v6.begin() + 30), 0x86dd), 14,
         encap_mode::encap, drop_reason::ip6_truncated},
        {"l3 offset past the data", ether(ipv4_packet({}), 0x0800), 200, encap_mode::encap, drop_reason::l3_unknown},
        {"frame shorter than ethernet", hex("02000000001002000000"), 0, encap_mode::l2encap, drop_reason::eth_truncated},
    };
    for (const auto& cs : cases) {
        SCOPED_TRACE(cs.what);
        const bytes& t = is_l2(cs.mode) ? t2 : t3;
        rte_mbuf* m = make_mbuf(pkts_, cs.frame);
        const snapshot before(m);
        drop_reason why = drop_reason::tx_full;
        EXPECT_EQ(h_encaps(m, cs.l3_off, view_of(t, cs.mode), ctx_, why), nullptr);
        EXPECT_EQ(why, cs.want) << name(why);
        EXPECT_TRUE(snapshot(m) == before);
        rte_pktmbuf_free(m);
    }
}

TEST_F(Headend, OuterPayloadOver64KDrops) {
    // 33 full segments: the outer payload length would not fit its 16 bits.
    rte_mbuf* m = make_mbuf(pkts_, ether(ipv4_packet({}), 0x0800));
    while (m->pkt_len <= 65535) {
        rte_mbuf* s = make_mbuf(pkts_, bytes(2048, 0), 0);
        ASSERT_EQ(rte_pktmbuf_chain(m, s), 0);
    }
    const bytes t = build_template(encap_mode::encap_red, sid_list(1), k_src, 64);
    const snapshot before(m);
    drop_reason why{};
    EXPECT_EQ(h_encaps(m, 14, view_of(t, encap_mode::encap_red), ctx_, why), nullptr);
    EXPECT_EQ(why, drop_reason::encap_mtu);
    EXPECT_TRUE(snapshot(m) == before);
    rte_pktmbuf_free(m);
}

// ---------------------------------------------------------------------------------------------
// Header fields.

TEST_F(Headend, GivenHashSetsTheFlowLabel) {
    const bytes t = build_template(encap_mode::encap_red, sid_list(1), k_src, 64);
    const auto v = view_of(t, encap_mode::encap_red);
    for (const uint32_t h : {0x00000000u, 0x00100001u, 0xabcdef12u}) {
        rte_mbuf* m = make_mbuf(pkts_, ether(ipv4_packet({}), 0x0800));
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, h, v, ctx_, why);
        ASSERT_NE(out, nullptr);
        EXPECT_EQ(label_of(read_all(out)), flow_label(h));
        EXPECT_NE(label_of(read_all(out)), 0u);
        rte_pktmbuf_free(out);
    }
}

TEST_F(Headend, HopLimitAndSourceComeFromTheTemplate) {
    flow6 f;
    f.hlim = 3;  // the inner hop limit does not leak into the outer
    const bytes t = build_template(encap_mode::encap, sid_list(2), ip6("2001:db8::99"), 255);
    rte_mbuf* m = make_mbuf(pkts_, ether(ipv6_packet(f), 0x86dd));
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, view_of(t, encap_mode::encap), ctx_, why);
    ASSERT_NE(out, nullptr);
    const bytes got = read_all(out);
    EXPECT_EQ(got[7], 255);
    const auto src = ip6("2001:db8::99");
    EXPECT_EQ(bytes(got.begin() + 8, got.begin() + 24), bytes(src.bytes.begin(), src.bytes.end()));
    EXPECT_EQ(got[40 + 40 + 7], 3);  // inner hop limit untouched (the forwarding stage owns it)
    rte_pktmbuf_free(out);
}

// ---------------------------------------------------------------------------------------------
// Template validation (control plane).

TEST(EncapTmpl, AcceptsWhatTheKernelBuilds) {
    for (const auto mode : {encap_mode::encap, encap_mode::encap_red, encap_mode::l2encap, encap_mode::l2encap_red})
        for (const size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{8}, size_t{16}}) {
            const bytes t = build_template(mode, sid_list(n), k_src, 64);
            std::string why;
            const auto v = test_support::parse_encap_template(t, mode, &why);
            ASSERT_TRUE(v) << to_string(mode) << " " << n << ": " << why;
            EXPECT_EQ(v->len, t.size());
            EXPECT_EQ(v->next_header_off, t.size() == 40 ? 6 : 40);
            EXPECT_EQ(v->l2 != 0, is_l2(mode));
        }
}

TEST(EncapTmpl, RefusesMalformedTemplates) {
    const bytes good = build_template(encap_mode::encap, sid_list(3), k_src, 64);
    const bytes good_red = build_template(encap_mode::encap_red, sid_list(3), k_src, 64);
    auto refused = [](bytes t, encap_mode mode, const std::string& text) {
        std::string why;
        EXPECT_FALSE(test_support::parse_encap_template(t, mode, &why)) << text;
        EXPECT_NE(why.find(text), std::string::npos) << why;
    };
    refused(good, encap_mode::inline_srh, "inline SRH");  // an H.Insert template is the SRH alone
    refused(good, encap_mode::inline_red, "H.Insert.Red");
    refused(bytes(good.begin(), good.begin() + 39), encap_mode::encap, "shorter");
    refused(bytes(400, 0x60), encap_mode::encap, "longer");
    auto b = good;
    b[0] = 0x45;
    refused(b, encap_mode::encap, "not IPv6");
    b = good;
    b[6] = 0;
    refused(b, encap_mode::encap, "next header is not 43");
    refused(bytes(good.begin(), good.end() - 8), encap_mode::encap, "8 + 16");
    b = good;
    b[41] = 4;
    refused(b, encap_mode::encap, "hdr_ext_len");
    b = good;
    b[42] = 0;
    refused(b, encap_mode::encap, "type is not 4");
    b = good;
    b[44] = 1;
    refused(b, encap_mode::encap, "last_entry");
    b = good;
    b[43] = 1;
    refused(b, encap_mode::encap, "segments_left == last_entry");
    b = good;
    b[39] ^= 1;
    refused(b, encap_mode::encap, "active segment");
    refused(good, encap_mode::encap_red, "segments_left == last_entry + 1");
    refused(good_red, encap_mode::encap, "segments_left == last_entry");
}

}  // namespace
}  // namespace fwd
