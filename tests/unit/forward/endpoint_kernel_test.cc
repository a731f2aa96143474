// The endpoint against the Linux kernel: tests/fixtures/endpoint-kernel/cases.txt holds packets
// that tests/kernel/endpoint_capture.py sent through a real seg6local router (End, End.X,
// End.T, PSP, End.DX4/DX6, End.DT6 legacy table, NEXT-C-SID End/End.X) with what the kernel
// forwarded, or "drop". Each case must come out of process_endpoint byte for byte the same,
// or be dropped too.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "forward/datapath/srv6_endpoint.hh"
#include "rib/behaviors.hh"
#include "tests/unit/forward/endpoint_pkt.hh"

namespace fwd::test {
namespace SRV6D_UNITY_ID {

struct kernel_case {
    std::string name;
    std::string sid;
    bytes in;
    bool dropped = false;
    bytes out;
};

std::vector<kernel_case> load() {
    std::ifstream f(std::string(SRV6D_FIXTURES) + "/endpoint-kernel/cases.txt");
    EXPECT_TRUE(f.good());
    std::vector<kernel_case> cases;
    for (std::string line; std::getline(f, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        const auto sp = line.find(' ');
        const std::string key = line.substr(0, sp);
        const std::string val = sp == std::string::npos ? "" : line.substr(sp + 1);
        if (key == "case") {
            cases.push_back({val, {}, {}, false, {}});
        } else if (cases.empty()) {
            ADD_FAILURE() << "line before the first case: " << line;
        } else if (key == "sid") {
            cases.back().sid = val;
        } else if (key == "in") {
            cases.back().in = from_hex(val);
        } else if (key == "out") {
            cases.back().dropped = val == "drop";
            if (!cases.back().dropped)
                cases.back().out = from_hex(val);
        } else {
            ADD_FAILURE() << "unknown line: " << line;
        }
    }
    return cases;
}

// "end_x flavors=next_csid,psp lblen=32 nflen=16 vrf=100"
sid_params parse_sid(const std::string& spec) {
    sid_params p;
    std::istringstream in(spec);
    std::string word;
    in >> word;
    const std::pair<const char*, rib::behavior> behaviors[] = {
        {"end", rib::behavior::end},         {"end_x", rib::behavior::end_x},       {"end_t", rib::behavior::end_t},
        {"end_dx4", rib::behavior::end_dx4}, {"end_dx6", rib::behavior::end_dx6},   {"end_dt4", rib::behavior::end_dt4},
        {"end_dt6", rib::behavior::end_dt6}, {"end_dt46", rib::behavior::end_dt46},
    };
    bool known = false;
    for (const auto& [n, b] : behaviors) {
        if (word == n) {
            p.behavior = b;
            known = true;
        }
    }
    EXPECT_TRUE(known) << spec;
    while (in >> word) {
        const auto eq = word.find('=');
        const std::string k = word.substr(0, eq);
        const std::string v = word.substr(eq + 1);
        if (k == "flavors") {
            std::istringstream fl(v);
            for (std::string f; std::getline(fl, f, ',');) {
                if (f == "psp")
                    p.flavors |= rib::flavor::psp;
                else if (f == "next_csid")
                    p.flavors |= rib::flavor::next_csid;
                else
                    ADD_FAILURE() << "flavor " << f;
            }
        } else if (k == "lblen") {
            p.lcblock_bits = static_cast<uint8_t>(std::stoul(v));
        } else if (k == "nflen") {
            p.lcnode_fn_bits = static_cast<uint8_t>(std::stoul(v));
        } else if (k == "vrf") {
            p.vrf = static_cast<uint32_t>(std::stoul(v));
        } else {
            ADD_FAILURE() << "sid key " << k;
        }
    }
    return p;
}

// What the caller's ordinary forwarding does to a lookup_v4/lookup_v6 packet before it leaves,
// which the kernel's output includes: TTL/hop limit - 1 (IPv4 checksum recomputed).
void route_step(endpoint_action a, bytes& b) {
    if (a == endpoint_action::lookup_v6) {
        --b[7];
    } else if (a == endpoint_action::lookup_v4) {
        --b[8];
        put16(b, 10, 0);
        put16(b, 10, ip4_checksum(b.data(), static_cast<size_t>(b[0] & 0x0f) * 4));
    }
}

TEST(EndpointKernel, SameBytesAsLinuxSeg6local) {
    const auto cases = load();
    ASSERT_GE(cases.size(), 30u);
    size_t forwarded = 0;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name + " (" + c.sid + ")");
        const sid_params p = parse_sid(c.sid);
        rib::seg6local l;  // the SID passes the behavior contract, as the compiler checks it
        l.action = p.behavior;
        l.flavors = p.flavors;
        if (p.flavors & rib::flavor::next_csid) {
            l.lcblock_bits = p.lcblock_bits;
            l.lcnode_fn_bits = p.lcnode_fn_bits;
        }
        const rib::contract_check ok = rib::check_contract(l);
        ASSERT_TRUE(ok.ok()) << ok.reason;
        rte_mbuf* m = mbuf_of(c.in);
        ASSERT_NE(m, nullptr);
        const endpoint_result r = process_endpoint(m, p);
        bytes out = bytes_of(m);
        rte_pktmbuf_free(m);
        if (c.dropped) {
            EXPECT_EQ(name(r.action), "drop");
            continue;
        }
        ++forwarded;
        ASSERT_NE(r.action, endpoint_action::drop) << name(r.reason);
        route_step(r.action, out);
        EXPECT_EQ(hex(out), hex(c.out));
    }
    EXPECT_GE(forwarded, 15u);
}

}  // namespace
}  // namespace fwd::test
