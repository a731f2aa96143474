// The ICMP error builders against what the Linux kernel (6.18) sent as a router between two
// network namespaces, captured with tcpdump: for each offending packet (built by scapy, its
// payload bytes 0, 1, ..., 255, 0, ...) the kernel's IP + ICMP header and how much of the
// offending packet it quoted. Our headers must equal the kernel's byte for byte, but for the
// IPv4 identification and the IPv6 flow label, which Linux draws per flow (the test passes
// the kernel's values through).
//
// Capture set-up: h1 (10.1.0.2, fd01::2) - r (10.1.0.1/fd01::1 | 10.2.0.1/fd02::1, MTU 1280
// towards h2, forwarding, seg6_enabled) - h2 (10.2.0.2, fd02::2).
#include <gtest/gtest.h>

#include <string>

#include "forward/datapath/icmp.hh"
#include "tests/support/bytes.hh"

namespace fwd {
namespace SRV6D_UNITY_ID {

using test_support::bytes;
using test_support::parse_hex;
using test_support::to_hex;

struct kernel_case {
    const char* what;
    const char* offending_headers;  // IP (+ extension headers) + UDP header, hex
    size_t payload;                 // pattern bytes after them
    const char* answer_headers;     // the kernel's IP + ICMP header, hex
    size_t quoted;                  // bytes of the offending packet after them
    uint8_t type, code;
    uint32_t rest;
};

const kernel_case cases[] = {
    {"ipv4 ttl 1: time exceeded, tos 0xb8 -> 0xd8", "45b8004412340000011192b70a0100020a020002829a829b003068c0", 40,
     "45d80060f59b0000400170250a0100010a0100020b00094800000000", 68, icmp::v4::time_exceeded, icmp::v4::code_ttl, 0},
    {"ipv4 1400 bytes DF over 1280: fragmentation needed, 576 bytes in all",
     "450005781235400040110f3a0a0100020a02000203e807d00564f5dc", 1372,
     "45c00240f5e3000040016e150a0100010a0100020304647300000500", 548, icmp::v4::dest_unreach,
     icmp::v4::code_frag_needed, 1280},
    {"ipv6 hop limit 1: time exceeded",
     "6b81234500301101fd010000000000000000000000000002fd020000000000000000000000000002829a829b003082be", 40,
     "600e713300603a40fd010000000000000000000000000001fd010000000000000000000000000002030062a800000000", 88,
     icmp::v6::time_exceeded, icmp::v6::code_hop_limit, 0},
    {"ipv6 1400 bytes over 1280: packet too big, 1280 bytes in all",
     "6000000005501140fd010000000000000000000000000002fd02000000000000000000000000000203e807d005503d3a", 1352,
     "6003cb8104d83a40fd010000000000000000000000000001fd010000000000000000000000000002020070f300000500", 1232,
     icmp::v6::packet_too_big, 0, 1280},
    {"ipv6 srh segments left 5 > last entry + 1: parameter problem pointing at segments left",
     "6000000000442b40fd010000000000000000000000000002fd0100000000000000000000000000011104040501000000"
     "fd020000000000000000000000000002fd01000000000000000000000000000103e807d0001c9f91",
     20, "600c6a3a00743a40fd010000000000000000000000000001fd010000000000000000000000000002040065b90000002b", 108,
     icmp::v6::param_problem, icmp::v6::code_header, 40 + 3},
};

bytes offending(const kernel_case& k) {
    bytes b = parse_hex(k.offending_headers);
    for (size_t i = 0; i < k.payload; ++i)
        b.push_back(static_cast<uint8_t>(i));
    return b;
}

TEST(icmp, headers_equal_the_kernels_byte_for_byte) {
    for (const auto& k : cases) {
        SCOPED_TRACE(k.what);
        const bytes off = offending(k);
        const bytes want = parse_hex(k.answer_headers);
        const bool v4 = off[0] >> 4 == 4;
        const uint16_t hdr = v4 ? icmp::err4_hdr : icmp::err6_hdr;
        const uint16_t q = v4 ? icmp::quote4(static_cast<uint32_t>(off.size())) : icmp::quote6(static_cast<uint32_t>(off.size()));
        EXPECT_EQ(q, k.quoted);
        bytes msg(hdr + q, 0xee);
        std::copy(off.begin(), off.begin() + q, msg.begin() + hdr);
        if (v4) {
            const uint8_t src[4] = {10, 1, 0, 1};
            const uint16_t id = static_cast<uint16_t>(want[4] << 8 | want[5]);  // Linux's, per destination
            EXPECT_TRUE(icmp::may_answer4(off.data(), static_cast<uint32_t>(off.size())));
            icmp::build4(msg.data(), q, src, k.type, k.code, k.rest, id);
        } else {
            const uint8_t* src = want.data() + 8;  // fd01::1, the router's address towards h1
            const uint32_t label = static_cast<uint32_t>(want[1] & 0xf) << 16 | static_cast<uint32_t>(want[2]) << 8 | want[3];
            EXPECT_TRUE(icmp::may_answer6(off.data(), static_cast<uint32_t>(off.size()), k.type == icmp::v6::packet_too_big));
            icmp::build6(msg.data(), q, src, k.type, k.code, k.rest, label);
        }
        EXPECT_EQ(to_hex(bytes(msg.begin(), msg.begin() + hdr)), to_hex(want));
        EXPECT_EQ(to_hex(bytes(msg.begin() + hdr, msg.end())), to_hex(bytes(off.begin(), off.begin() + q)));
    }
}

TEST(icmp, ipv4_packets_never_answered) {
    bytes ip = parse_hex("450000200000000040110000" "0a0100020a020002" "0000000000000000" "03000000");
    ip[9] = 1;  // ICMP, type 3: an error about an error
    ip[20] = 3;
    EXPECT_FALSE(icmp::may_answer4(ip.data(), static_cast<uint32_t>(ip.size())));
    ip[20] = 8;  // an echo request is answered
    EXPECT_TRUE(icmp::may_answer4(ip.data(), static_cast<uint32_t>(ip.size())));
    for (const uint8_t t : {uint8_t{4}, uint8_t{5}, uint8_t{11}, uint8_t{12}}) {
        ip[20] = t;
        EXPECT_FALSE(icmp::may_answer4(ip.data(), static_cast<uint32_t>(ip.size()))) << int(t);
    }
    ip[9] = 17;
    ip[7] = 0x10;  // a fragment at offset 128
    EXPECT_FALSE(icmp::may_answer4(ip.data(), static_cast<uint32_t>(ip.size())));
    ip[7] = 0;
    ip[6] = 0x20;  // the first fragment (MF) is answered
    EXPECT_TRUE(icmp::may_answer4(ip.data(), static_cast<uint32_t>(ip.size())));
    for (const uint8_t s : {uint8_t{0}, uint8_t{127}, uint8_t{224}, uint8_t{240}, uint8_t{255}}) {
        ip[12] = s;
        EXPECT_FALSE(icmp::may_answer4(ip.data(), static_cast<uint32_t>(ip.size()))) << int(s);
    }
}

TEST(icmp, ipv6_packets_never_answered) {
    // fd01::2 -> fd02::2, ICMPv6 in a destination options header
    bytes ip = parse_hex("6000000000103c40fd010000000000000000000000000002fd020000000000000000000000000002"
                         "3a00010400000000" "0100000000000000");
    const auto may = [&](bool too_big = false) { return icmp::may_answer6(ip.data(), static_cast<uint32_t>(ip.size()), too_big); };
    EXPECT_FALSE(may()) << "ICMPv6 error (destination unreachable) behind a destination options header";
    ip[48] = 128;  // echo request
    EXPECT_TRUE(may());
    ip.resize(48);  // the ICMPv6 type is not there: Linux does not answer
    EXPECT_FALSE(may());
    ip.resize(56, 0);
    ip[48] = 128;
    ip[24] = 0xff;  // to a multicast group: only packet too big
    EXPECT_FALSE(may());
    EXPECT_TRUE(may(true));
    ip[24] = 0xfd;
    ip[8] = 0xff;  // from a multicast source
    EXPECT_FALSE(may(true));
    std::fill(ip.begin() + 8, ip.begin() + 24, 0);  // from ::
    EXPECT_FALSE(may());
}

}  // namespace
}  // namespace fwd
