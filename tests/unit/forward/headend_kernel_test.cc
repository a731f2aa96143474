// The headend against the Linux kernel: tests/fixtures/headend-kernel/cases.txt holds frames that
// tests/kernel/headend_capture.py routed through real `encap seg6 mode M` routes (encap,
// encap.red, l2encap, l2encap.red x 1, 2, 3, 8 SIDs x IPv4, IPv6) and what the kernel sent.
// h_encaps must produce the same bytes, except where srv6d deliberately differs
// (docs/dataplane-headend.md): the flow label (kernel, seg6_flowlabel=0: an IPv6 inner's label
// copied, else 0; ours: from the inner flow hash) and the traffic class of IPv4 inners, plain or
// in an L2 frame (kernel: 0; ours: copied). The outer
// hop limit is the template's: we build it with 63, what the kernel's 64 becomes once it has
// forwarded the packet it encapsulated on input.
#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fib/control/encap_build.hh"
#include "tests/support/encap_parse.hh"
#include "forward/datapath/srv6_headend.hh"
#include "tests/unit/forward/headend_util.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using rib::encap_mode;
using namespace fwd::test;

struct kernel_case {
    std::string name;
    encap_mode mode = encap_mode::encap;
    std::vector<rib::ip6_addr> segs;
    bytes in;
    bytes out;
};

encap_mode parse_mode(const std::string& s) {
    if (s == "encap")
        return encap_mode::encap;
    if (s == "encap.red")
        return encap_mode::encap_red;
    if (s == "l2encap")
        return encap_mode::l2encap;
    if (s == "l2encap.red")
        return encap_mode::l2encap_red;
    throw std::invalid_argument("mode " + s);
}

std::vector<kernel_case> load() {
    std::ifstream f(std::string(SRV6D_FIXTURES) + "/headend-kernel/cases.txt");
    EXPECT_TRUE(f.good());
    std::vector<kernel_case> cases;
    for (std::string line; std::getline(f, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        const auto sp = line.find(' ');
        const std::string key = line.substr(0, sp);
        const std::string val = sp == std::string::npos ? "" : line.substr(sp + 1);
        if (key == "case") {
            cases.push_back({val, {}, {}, {}, {}});
        } else if (cases.empty()) {
            ADD_FAILURE() << "line before the first case: " << line;
        } else if (key == "mode") {
            cases.back().mode = parse_mode(val);
        } else if (key == "segs") {
            std::istringstream in(val);
            for (std::string s; std::getline(in, s, ',');)
                cases.back().segs.push_back(ip6(s));
        } else if (key == "in") {
            cases.back().in = hex(val);
        } else if (key == "out") {
            cases.back().out = hex(val);
        } else {
            ADD_FAILURE() << "unknown line: " << line;
        }
    }
    return cases;
}

uint32_t label_of(const uint8_t* ip6) {
    return static_cast<uint32_t>(ip6[1] & 0x0f) << 16 | static_cast<uint32_t>(ip6[2]) << 8 | ip6[3];
}

uint8_t tc_of(const uint8_t* ip) {
    return ip[0] >> 4 == 4 ? ip[1] : static_cast<uint8_t>((ip[0] << 4) | (ip[1] >> 4));
}

class HeadendKernel : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        pkts_ = rte_pktmbuf_pool_create("hk_pkts", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
        hdrs_ = headend_hdr_pool_create("hk_hdrs", 31, SOCKET_ID_ANY);
        ASSERT_NE(pkts_, nullptr);
        ASSERT_NE(hdrs_, nullptr);
    }
    static rte_mempool* pkts_;
    static rte_mempool* hdrs_;
};
rte_mempool* HeadendKernel::pkts_ = nullptr;
rte_mempool* HeadendKernel::hdrs_ = nullptr;

TEST_F(HeadendKernel, SameBytesAsLinux) {
    const auto cases = load();
    // Every mode x 1, 2, 3, 8 SIDs x IPv4, IPv6: a shorter file means a lost recording.
    ASSERT_EQ(cases.size(), 32u);
    const rib::ip6_addr src = ip6("fc00:a::1");
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        ASSERT_GT(c.in.size(), 14u + 40u);
        const uint8_t* inner_ip = c.in.data() + 14;
        const bool inner_v6 = inner_ip[0] >> 4 == 6;

        const bytes t = build_template(c.mode, c.segs, src, 63);
        std::string why_tmpl;
        const auto v = test_support::parse_encap_template(t, c.mode, &why_tmpl);
        ASSERT_TRUE(v) << why_tmpl;
        headend_ctx ctx{hdrs_, 0};
        rte_mbuf* m = make_mbuf(pkts_, c.in);
        drop_reason why{};
        rte_mbuf* out = h_encaps(m, 14, *v, ctx, why);
        ASSERT_NE(out, nullptr) << name(why);
        const bytes got = read_all(out);
        rte_pktmbuf_free(out);
        ASSERT_EQ(got.size(), c.out.size());

        // Where we differ on purpose, check both sides for what they should be...
        const uint32_t want_label =
            flow_label(flow_hash_ip(inner_ip, static_cast<uint32_t>(c.in.size() - 14)));
        const uint8_t inner_tc = tc_of(inner_ip);
        EXPECT_EQ(tc_of(got.data()), inner_tc);
        // The kernel copies traffic class and label from an IPv6 header only (skb->protocol is the
        // routed packet's, also for L2 modes), and sends 0 for IPv4 (seg6_flowlabel=0, the default).
        EXPECT_EQ(tc_of(c.out.data()), inner_v6 ? inner_tc : 0) << "kernel traffic class";
        EXPECT_EQ(label_of(got.data()), want_label);
        EXPECT_EQ(label_of(c.out.data()), inner_v6 ? label_of(inner_ip) : 0u) << "kernel flow label";
        // ...then every other byte must be the kernel's.
        bytes norm(c.out.begin(), c.out.begin() + 4);
        norm.insert(norm.end(), got.begin() + 4, got.end());
        EXPECT_EQ(to_hex(norm), to_hex(c.out));
    }
}

}  // namespace
}  // namespace fwd
