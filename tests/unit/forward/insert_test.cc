// H.Insert and H.Insert.Red (fwd::h_insert_push, through h_encaps with an insert template):
// against a field-by-field reference written from the kernel's seg6_do_srh_inline and RFC 8986
// §5.2's reduction, for 1, 2, 3, 8 and the most SIDs; the header moves, the payload does not;
// short headroom, clones and doubly referenced buffers chain a header mbuf; the limits. And
// against the kernel: tests/fixtures/insert-kernel/cases.txt (tests/kernel/insert_b6_capture.py,
// recorded in the VM) must come out byte for byte.
#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fib/control/encap_build.hh"
#include "tests/support/encap_parse.hh"
#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/srv6_endpoint.hh"
#include "forward/datapath/srv6_headend.hh"
#include "tests/unit/forward/headend_util.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using rib::encap_mode;
using namespace fwd::test;

constexpr unsigned ins_pkt_pool_size = 127;
constexpr unsigned ins_hdr_pool_size = 15;

class Insert : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (pkts_ == nullptr)
            pkts_ = rte_pktmbuf_pool_create("in_pkts", ins_pkt_pool_size, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
        if (hdrs_ == nullptr)
            hdrs_ = headend_hdr_pool_create("in_hdrs", ins_hdr_pool_size, SOCKET_ID_ANY);
        ASSERT_NE(pkts_, nullptr);
        ASSERT_NE(hdrs_, nullptr);
    }
    void SetUp() override { ctx_.hdr_pool = hdrs_; }
    void TearDown() override {
        EXPECT_EQ(rte_mempool_avail_count(pkts_), ins_pkt_pool_size);
        EXPECT_EQ(rte_mempool_avail_count(hdrs_), ins_hdr_pool_size);
    }
    static rte_mempool* pkts_;
    static rte_mempool* hdrs_;
    headend_ctx ctx_;
};
rte_mempool* Insert::pkts_ = nullptr;
rte_mempool* Insert::hdrs_ = nullptr;

fib::encap_template insert_template(encap_mode mode, const std::vector<rib::ip6_addr>& sids) {
    const auto b = fib::build_encap_template(mode, sids, rib::ip6_addr{}, fib::ipproto::ipv6);
    if (!b.ok())
        throw std::runtime_error(std::string(fib::name(b.refusal)));
    return b.tmpl;
}

struct ins_param {
    encap_mode mode;
    size_t n;
};
class InsertMatrix : public Insert, public ::testing::WithParamInterface<ins_param> {};

TEST_P(InsertMatrix, MatchesTheReferenceAndMovesOnlyTheHeader) {
    const auto [mode, n] = GetParam();
    const auto sids = sid_list(n);
    flow6 f;
    f.tc = 0xb8;
    f.label = 0x54321;
    f.payload = std::string(100, 'x');
    const bytes pkt = ipv6_packet(f);
    rte_mbuf* m = make_mbuf(pkts_, ether(pkt, 0x86dd));
    const uint8_t* payload_at = rte_pktmbuf_mtod_offset(m, const uint8_t*, 14 + 40);
    const fib::encap_template t = insert_template(mode, sids);
    drop_reason why{};
    rte_mbuf* out = h_encaps(m, 14, t, ctx_, why);
    ASSERT_NE(out, nullptr) << name(why);
    const bool fits = RTE_PKTMBUF_HEADROOM + 14 >= t.len - 40 + eth_reserve;
    if (fits) {
        EXPECT_EQ(out, m);
        EXPECT_EQ(out->nb_segs, 1);
        EXPECT_EQ(rte_pktmbuf_mtod_offset(out, const uint8_t*, t.len), payload_at) << "the payload moved";
        EXPECT_GE(rte_pktmbuf_headroom(out), eth_reserve);
    } else {
        EXPECT_EQ(out->nb_segs, 2);
        EXPECT_EQ(ctx_.hdr_chained, 1u);
        EXPECT_EQ(rte_pktmbuf_mtod(out->next, const uint8_t*), payload_at) << "the payload moved";
    }
    EXPECT_EQ(to_hex(read_all(out)), to_hex(reference_insert(mode, sids, pkt)));
    EXPECT_EQ(out->pkt_len, pkt.size() + t.len - 40);
    rte_pktmbuf_free(out);
}

INSTANTIATE_TEST_SUITE_P(Modes, InsertMatrix,
                         ::testing::Values(ins_param{encap_mode::inline_srh, 1}, ins_param{encap_mode::inline_srh, 2},
                                           ins_param{encap_mode::inline_srh, 3}, ins_param{encap_mode::inline_srh, 8},
                                           ins_param{encap_mode::inline_srh, 15}, ins_param{encap_mode::inline_red, 1},
                                           ins_param{encap_mode::inline_red, 2}, ins_param{encap_mode::inline_red, 3},
                                           ins_param{encap_mode::inline_red, 8}, ins_param{encap_mode::inline_red, 16}),
                         [](const auto& i) {
                             return std::string(i.param.mode == encap_mode::inline_red ? "red_" : "insert_") +
                                    std::to_string(i.param.n) + "sid";
                         });

TEST_F(Insert, TemplateLayoutAndLimits) {
    const auto t = insert_template(encap_mode::inline_srh, sid_list(2));
    EXPECT_EQ(t.insert, 1);
    EXPECT_EQ(t.len, 40 + 8 + 3 * 16);
    EXPECT_EQ(t.srh_entries, 3);
    // What `ip route ... encap seg6 mode inline segs S1,S2` holds: read back to the same template.
    std::string why;
    const auto back = test_support::parse_encap_template({t.bytes + 40, static_cast<size_t>(t.len - 40)}, encap_mode::inline_srh, &why);
    ASSERT_TRUE(back) << why;
    EXPECT_EQ(std::memcmp(&*back, &t, sizeof t), 0);
    EXPECT_FALSE(test_support::parse_encap_template({t.bytes + 40, 24}, encap_mode::inline_srh, &why));
    EXPECT_FALSE(test_support::parse_encap_template({t.bytes + 40, static_cast<size_t>(t.len - 40)}, encap_mode::inline_red, &why));
    // 16 SIDs + the destination's slot do not fit the SRH srv6d carries (16 entries); .Red does.
    EXPECT_EQ(fib::build_encap_template(encap_mode::inline_srh, sid_list(16), {}, 41).refusal,
              fib::encap_refusal::too_many_segments);
    EXPECT_TRUE(fib::build_encap_template(encap_mode::inline_red, sid_list(16), {}, 41).ok());
    EXPECT_EQ(fib::build_encap_template(encap_mode::inline_srh, {}, {}, 41).refusal, fib::encap_refusal::no_segments);
    // No source needed: the packet keeps its own.
    EXPECT_TRUE(fib::build_encap_template(encap_mode::inline_srh, sid_list(1), {}, 41).ok());
}

TEST_F(Insert, ShortHeadroomAndSharedBuffersChain) {
    const bytes pkt = ipv6_packet(flow6{});
    const auto sids = sid_list(2);
    const fib::encap_template t = insert_template(encap_mode::inline_srh, sids);
    const bytes want = reference_insert(encap_mode::inline_srh, sids, pkt);
    {
        rte_mbuf* m = make_mbuf(pkts_, ether(pkt, 0x86dd), 8);
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, t, ctx_, why);
        ASSERT_NE(out, nullptr);
        EXPECT_EQ(out->nb_segs, 2);
        EXPECT_EQ(to_hex(read_all(out)), to_hex(want));
        rte_pktmbuf_free(out);
    }
    {
        rte_mbuf* m = make_mbuf(pkts_, ether(pkt, 0x86dd));
        rte_mbuf_refcnt_update(m, 1);  // someone else holds it too: never write in front of it
        const bytes before = read_all(m);
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, t, ctx_, why);
        ASSERT_NE(out, nullptr);
        EXPECT_NE(out, m);
        EXPECT_EQ(to_hex(read_all(out)), to_hex(want));
        rte_pktmbuf_free(out);
        EXPECT_EQ(rte_mbuf_refcnt_read(m), 1);
        rte_pktmbuf_free(m);
    }
    EXPECT_EQ(ctx_.hdr_chained, 2u);
}

TEST_F(Insert, RefusesWhatItCannotInsertInto) {
    const fib::encap_template t = insert_template(encap_mode::inline_srh, sid_list(1));
    drop_reason why{};
    rte_mbuf* m4 = make_mbuf(pkts_, ether(ipv4_packet(flow4{}), 0x0800));
    EXPECT_EQ(h_encaps(m4, 14, t, ctx_, why), nullptr);
    EXPECT_EQ(why, drop_reason::l3_unknown);
    rte_pktmbuf_free(m4);
    // A payload length that would pass 65535 with the SRH (a jumbo-sized header claim).
    bytes big = ipv6_packet(flow6{});
    big[4] = 0xff;
    big[5] = 0xf0;
    rte_mbuf* m = make_mbuf(pkts_, ether(big, 0x86dd));
    const bytes before = read_all(m);
    EXPECT_EQ(h_encaps(m, 14, t, ctx_, why), nullptr);
    EXPECT_EQ(why, drop_reason::encap_mtu);
    EXPECT_EQ(to_hex(read_all(m)), to_hex(before)) << "untouched";
    rte_pktmbuf_free(m);
}

// ---- the kernel's bytes

struct kcase {
    std::string name, mode;
    std::vector<rib::ip6_addr> segs;
    bytes in, out;
};

std::vector<kcase> load_kernel_cases() {
    std::ifstream f(std::string(SRV6D_FIXTURES) + "/insert-kernel/cases.txt");
    EXPECT_TRUE(f.good());
    std::vector<kcase> cases;
    for (std::string line; std::getline(f, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        const auto sp = line.find(' ');
        const std::string key = line.substr(0, sp), val = sp == std::string::npos ? "" : line.substr(sp + 1);
        if (key == "case")
            cases.push_back({val, {}, {}, {}, {}});
        else if (cases.empty())
            ADD_FAILURE() << line;
        else if (key == "mode")
            cases.back().mode = val;
        else if (key == "segs") {
            std::istringstream in(val);
            for (std::string s; std::getline(in, s, ',');)
                cases.back().segs.push_back(ip6(s));
        } else if (key == "in")
            cases.back().in = hex(val);
        else if (key == "out")
            cases.back().out = hex(val);
    }
    return cases;
}

// `ip route ... encap seg6 mode inline`: every byte the kernel's, once the packet's hop limit is
// decremented as the worker does before the insert (the kernel forwards after inserting).
TEST_F(Insert, SameBytesAsLinuxInline) {
    size_t seen = 0;
    for (const auto& c : load_kernel_cases()) {
        if (c.mode != "inline")
            continue;
        SCOPED_TRACE(c.name);
        ++seen;
        bytes in = c.in;
        --in[14 + 7];
        rte_mbuf* m = make_mbuf(pkts_, in);
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, insert_template(encap_mode::inline_srh, c.segs), ctx_, why);
        ASSERT_NE(out, nullptr) << name(why);
        EXPECT_EQ(to_hex(read_all(out)), to_hex(c.out));
        rte_pktmbuf_free(out);
    }
    EXPECT_EQ(seen, 4u) << "1, 2, 3, 8 SIDs";
}

// `encap seg6local action End.B6.Encaps srh segs ...`: the End part (process_endpoint, as the
// worker runs it for the b6_encaps handler), then the policy's push (h_encaps of the SID's
// template, source fc00:a::1 as the kernel's tunsrc). Every byte the kernel's but three, where
// srv6d follows RFC 8986 §4.13 and its headend (docs/dataplane-endpoint.md), checked on both
// sides: the inner hop limit (RFC S08 decrements it; Linux does not), the outer hop limit (the
// template's 64; Linux the inner's, minus one as it forwards) and the outer flow label (from
// the flow hash; Linux copies the inner's).
TEST_F(Insert, SameBytesAsLinuxEndB6Encaps) {
    size_t seen = 0;
    for (const auto& c : load_kernel_cases()) {
        if (c.mode != "b6.encaps")
            continue;
        SCOPED_TRACE(c.name);
        ++seen;
        rte_mbuf* m = make_mbuf(pkts_, c.in);
        rte_pktmbuf_adj(m, 14);
        sid_params sp;
        sp.behavior = rib::behavior::end_b6_encaps;
        const endpoint_result r = process_endpoint(m, sp);
        ASSERT_EQ(r.action, endpoint_action::encap_v6) << name(r.action);
        const bytes after = read_all(m);
        const auto b = fib::build_encap_template(encap_mode::encap, c.segs, ip6("fc00:a::1"), fib::ipproto::ipv6);
        ASSERT_TRUE(b.ok());
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 0, b.tmpl, ctx_, why);
        ASSERT_NE(out, nullptr) << name(why);
        bytes got = read_all(out);
        rte_pktmbuf_free(out);
        ASSERT_EQ(got.size(), c.out.size());
        const size_t inner = b.tmpl.len;
        const uint8_t* in_ip = c.in.data() + 14;
        EXPECT_EQ(got[inner + 7], in_ip[7] - 1) << "inner hop limit, RFC 8986 §4.13 S08";
        EXPECT_EQ(c.out[inner + 7], in_ip[7]) << "Linux leaves the inner hop limit";
        EXPECT_EQ(got[7], 64) << "the template's";
        EXPECT_EQ(c.out[7], in_ip[7] - 1) << "Linux: the inner's, forwarded";
        const uint32_t label = flow_label(flow_hash_ip6(after.data(), static_cast<uint32_t>(after.size())));
        EXPECT_EQ((uint32_t{got[1]} & 0xf) << 16 | uint32_t{got[2]} << 8 | got[3], label);
        EXPECT_EQ(std::memcmp(c.out.data() + 1, in_ip + 1, 3), 0) << "Linux copies the inner's label";
        // The rest: the kernel's.
        got[inner + 7] = c.out[inner + 7];
        got[7] = c.out[7];
        std::copy(c.out.begin() + 1, c.out.begin() + 4, got.begin() + 1);
        EXPECT_EQ(to_hex(got), to_hex(c.out));
    }
    EXPECT_EQ(seen, 4u) << "1, 2, 3, 8 SIDs";
}

}  // namespace
}  // namespace fwd
