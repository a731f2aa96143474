#include "vrf/tunsrc.hh"

#include <gtest/gtest.h>

#include "tests/unit/vrf/netns.hh"
#include "vrf/encap_source.hh"
#include "vrf/tunsrc_poller.hh"

namespace vrf {
namespace SRV6D_UNITY_ID {

std::string addr_text(const tunsrc_reading& r) {
    if (!r.ok)
        return "error: " + r.error;
    return r.addr ? rib::to_string(*r.addr) : "unset";
}

// The kernel holds the value (set with iproute2, independent of srv6d); we read it back.
TEST(Tunsrc, ReadsWhatTheKernelHolds) {
    if (!test::is_root())
        GTEST_SKIP() << test::needs_root;
    const std::string err = test::in_fresh_netns([] {
        test::failures f;
        tunsrc_reader reader;  // one socket for every read below
        auto r = reader.read();
        f.expect(r.ok && !r.addr, "fresh netns: want unset, got " + addr_text(r));

        if (test::sh("ip sr tunsrc set fc00:99::99") != 0)
            return std::string("ip sr tunsrc set failed");
        r = reader.read();
        f.expect(r.ok && r.addr == rib::parse_ip6("fc00:99::99"), "after set: got " + addr_text(r));
        r = read_tunsrc();  // the one-shot form agrees
        f.expect(r.ok && r.addr == rib::parse_ip6("fc00:99::99"), "one-shot after set: got " + addr_text(r));

        if (test::sh("ip sr tunsrc set ::") != 0)
            return std::string("ip sr tunsrc set :: failed");
        r = reader.read();
        f.expect(r.ok && !r.addr, "after set ::: want unset, got " + addr_text(r));
        return f.text;
    });
    EXPECT_EQ(err, "");
}

// Read-only in this process's netns, so leak checkers see the socket's whole lifecycle.
TEST(Tunsrc, ReadsInTheCurrentNetns) {
    tunsrc_reader reader;
    for (int i = 0; i < 3; ++i) {
        const auto r = reader.read();
        EXPECT_TRUE(r.ok) << r.error;
        EXPECT_TRUE(r.error.empty());
    }
}

TEST(Tunsrc, PollerFeedsTheResolver) {
    if (!test::is_root())
        GTEST_SKIP() << test::needs_root;
    const std::string err = test::in_fresh_netns([] {
        test::failures f;
        encap_source_resolver res;
        res.set_configured(rib::parse_ip6("fc00:c::1"));
        tunsrc_poller poller(res);
        f.expect(poller.interval() == std::chrono::milliseconds(2000), "default interval is 2 s");

        f.expect(!poller.poll(), "unset tunsrc must not change the config-sourced value");
        f.expect(res.global().origin == encap_origin::config, "config wins while tunsrc is unset");

        test::sh("ip sr tunsrc set fc00:0:1::1");
        const uint64_t v = res.version();
        f.expect(poller.poll(), "a new tunsrc is a change");
        f.expect(res.version() == v + 1, "version moves once");
        f.expect(to_string(res.global()) == "fc00:0:1::1 (kernel tunsrc, from FRR's source-address or ip sr tunsrc set)",
                 "show encap-source: " + to_string(res.global()));
        f.expect(!poller.poll(), "re-reading the same value is no change");

        test::sh("ip sr tunsrc set ::");
        f.expect(poller.poll(), "tunsrc unset again is a change");
        f.expect(res.global().addr == rib::parse_ip6("fc00:c::1"), "back to config: " + to_string(res.global()));
        f.expect(poller.reads() == 4 && poller.failures() == 0, "4 reads, no failure");
        return f.text;
    });
    EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace vrf
