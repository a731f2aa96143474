// Session integrity (issue 36): what may become zebra's connection, what may sweep, and limits
// across a replay, over real loopback sockets. Each case prints the outage it measured: how
// long, and how far, zebra's routes were missing from the RIB while the intruder acted.
#include "fpm/listener.hh"

#include <gtest/gtest.h>

#include <cstdio>

#include "listener_harness.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace listener_harness;
using namespace std::chrono_literals;
using bytes = std::vector<uint8_t>;

namespace nl = fpm::test;
constexpr uint32_t nobody = 65534;

listener_options quick() {
    listener_options o;
    o.resync_quiet = 300ms;
    o.resync_max = 60s;
    return o;
}

// Watches the RIB's route count on the io thread while `act` runs: the fewest routes seen and
// how long the count was below `full`.
struct outage {
    size_t min_routes = SIZE_MAX;
    std::chrono::milliseconds below{0};
};

template <typename F>
outage watch(harness& h, size_t full, F act) {
    outage o;
    o.min_routes = h.on_io([&] { return h._rib.routes().size(); });
    std::atomic<bool> done{false};
    std::thread t([&] {
        auto since = std::optional<std::chrono::steady_clock::time_point>();
        while (!done) {
            const size_t n = h.on_io([&] { return h._rib.routes().size(); });
            const auto now = std::chrono::steady_clock::now();
            o.min_routes = std::min(o.min_routes, n);
            if (n < full && !since)
                since = now;
            if (n >= full && since) {
                o.below += std::chrono::duration_cast<std::chrono::milliseconds>(now - *since);
                since.reset();
            }
            std::this_thread::sleep_for(1ms);
        }
        if (since)
            o.below += std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - *since);
    });
    act();
    done = true;
    t.join();
    o.min_routes = std::min(o.min_routes, h.on_io([&] { return h._rib.routes().size(); }));
    return o;
}

void print(const char* what, const outage& o, size_t full) {
    std::printf("%s: outage %lld ms, fewest routes %zu of %zu\n", what, static_cast<long long>(o.below.count()),
                o.min_routes, full);
}

size_t c1_routes() {
    rib::store r;
    reference_rib(c1(), r);
    return r.routes().size();
}

// zebra's c1 replayed and swept; returns its connection.
std::unique_ptr<client> zebra_in_sync(harness& h, uint64_t sweeps = 1) {
    auto z = std::make_unique<client>("127.0.0.1", h.port());
    EXPECT_TRUE(z->send(c1()));
    EXPECT_TRUE(h.eventually([&] { return h._session.sweeps == sweeps && !h._session.resync_pending; }));
    return z;
}

// One well-framed FPM frame of junk, the reproducer: b"\x01\x01\x00\x14" + 16 bytes.
bytes junk_frame() {
    bytes b = {1, 1, 0, 0x14};
    for (int i = 0; i < 16; ++i)
        b.push_back(static_cast<uint8_t>(0x5a ^ (i * 37)));
    return b;
}

TEST(Session, ProbesChangeNothing) {
    harness h(quick());
    const size_t full = c1_routes();
    auto z = zebra_in_sync(h);
    const std::string peer = h.session().peer;
    const auto o = watch(h, full, [&] {
        for (int i = 0; i < 20; ++i) {
            client probe("127.0.0.1", h.port());  // same user as zebra: root
            probe.close();
        }
        // A probe gone before srv6d looked up its socket's owner is not admitted (owner unknown).
        ASSERT_TRUE(h.eventually(
            [&] { return h._session.probes + h._session.denied_unknown == 20 && h._session.pending == 0; }));
    });
    print("20 probes", o, full);
    const auto s = h.session();
    EXPECT_TRUE(s.connected);
    EXPECT_EQ(s.peer, peer);
    EXPECT_EQ(s.takeovers, 0u);
    EXPECT_EQ(s.disconnects, 0u);
    EXPECT_EQ(s.sweeps, 1u);
    EXPECT_EQ(o.min_routes, full);
}

TEST(Session, AJunkFramePeerNeverDisplacesZebra) {
    harness h(quick());
    const size_t full = c1_routes();
    auto z = zebra_in_sync(h);
    const std::string peer = h.session().peer;
    const auto o = watch(h, full, [&] {
        client junk("127.0.0.1", h.port());  // root, as zebra
        ASSERT_TRUE(junk.send(junk_frame()));
        EXPECT_TRUE(junk.closed_by_peer());
        std::this_thread::sleep_for(600ms);  // past the quiet time a replay would have
    });
    print("junk frame beside zebra", o, full);
    const auto s = h.session();
    EXPECT_EQ(s.peer, peer);
    EXPECT_EQ(s.refused, 1u);
    EXPECT_EQ(s.takeovers, 0u);
    EXPECT_EQ(s.sweeps, 1u);
    EXPECT_FALSE(s.resync_pending);
    EXPECT_EQ(o.min_routes, full);
}

// With zebra away, the junk peer becomes the active connection (there is no other) but never
// sweeps; zebra's valid replay replaces it at once.
TEST(Session, AJunkPeerAloneNeverEmptiesTheRibAndZebraReplacesIt) {
    harness h(quick());
    const size_t full = c1_routes();
    zebra_in_sync(h).reset();
    ASSERT_TRUE(h.wait_connected(false));
    client junk("127.0.0.1", h.port());
    std::chrono::milliseconds in{0};
    const auto o = watch(h, full, [&] {
        ASSERT_TRUE(junk.send(junk_frame()));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps_skipped == 1; }));
        const auto t0 = std::chrono::steady_clock::now();
        client zebra("127.0.0.1", h.port());
        ASSERT_TRUE(zebra.send(c1()));
        ASSERT_TRUE(h.eventually([&] { return h._session.takeovers == 1; }));
        in = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    });
    print("junk peer alone, then zebra", o, full);
    std::printf("zebra was zebra's connection again %lld ms after it connected\n", static_cast<long long>(in.count()));
    EXPECT_TRUE(junk.closed_by_peer());
    const auto s = h.session();
    EXPECT_NE(s.last_skip_reason.find("decode errors"), std::string::npos) << s.last_skip_reason;
    EXPECT_EQ(o.min_routes, full);
    EXPECT_LT(in, 2s);
}

// A peer sending a tiny valid frame (NLMSG_NOOP) every 100 ms installs nothing: it is not proven,
// and zebra of another user gets in with its first frame.
TEST(Session, AChattyPeerDoesNotLockZebraOut) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (a socket of another user)";
    listener_options o = quick();
    o.admission.uids = {0, nobody};
    harness h(o);
    std::atomic<bool> stop{false};
    client chatty("127.0.0.1", h.port());
    std::thread talk([&] {
        const bytes noop = nl::frame(nl::nlmsg(1, {}, 0, 0));
        while (!stop && chatty.send(noop))
            std::this_thread::sleep_for(100ms);
    });
    ASSERT_TRUE(h.eventually([&] { return h._session.talking; }));
    const auto t0 = std::chrono::steady_clock::now();
    client zebra("127.0.0.1", h.port(), nobody);
    ASSERT_TRUE(zebra.send(c1()));
    ASSERT_TRUE(h.eventually([&] { return h._session.takeovers == 1; }));
    const auto in = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    std::printf("chatty root peer: zebra (nobody) in after %lld ms\n", static_cast<long long>(in.count()));
    stop = true;
    talk.join();
    EXPECT_LT(in, 2s);
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
    EXPECT_EQ(h.session().peer_identity, "uid 65534 (nobody)");
    EXPECT_EQ(h.on_io([&] { return h._rib.routes().size(); }), c1_routes());
}

// rib.max-routes exactly zebra's route count; its route set changes while it is away (one route
// added, two removed). The stale routes must not keep the new one out.
TEST(Session, AReplayAtTheLimitHoldsZebrasRoutes) {
    harness h(quick());
    const size_t full = c1_routes();
    h.on_io([&] { h._rib.set_limits({full, 0, 0}); });
    zebra_in_sync(h).reset();
    ASSERT_TRUE(h.wait_connected(false));
    client zebra("127.0.0.1", h.port());
    ASSERT_TRUE(zebra.send(c2_replay()));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    rib::store expected;
    reference_rib(c2_replay(), expected);
    EXPECT_TRUE(h.has_route("203.0.113.0/24"));
    EXPECT_FALSE(h.has_route("192.0.2.0/24"));
    EXPECT_TRUE(h.on_io([&] { return h._rib.routes() == expected.routes(); }));
    EXPECT_EQ(h.on_io([&] { return h._rib.counters().refused_routes; }), 0u);
    std::printf("replay at rib.max-routes %zu: %zu routes held after the sweep, %zu expected\n", full,
                h.on_io([&] { return h._rib.routes().size(); }), expected.routes().size());
}

// A junk peer that fills the limit while zebra is away: zebra's replay still gets every route in
// (the junk routes are stale in its replay) and the sweep removes the junk.
TEST(Session, APeerThatFilledTheLimitDoesNotKeepZebrasRoutesOut) {
    harness h(quick());
    const size_t full = c1_routes();
    h.on_io([&] { h._rib.set_limits({full, 0, 0}); });
    {
        client filler("127.0.0.1", h.port());
        bytes fill;
        for (size_t i = 0; i < full + 5; ++i) {
            const std::string dst = fmt::format("10.77.{}.0", i);
            const auto f = nl::frame(nl::nlmsg(24,
                                               nl::cat({nl::rtmsg(2, 24, 254, 196, 1), nl::attr(1, nl::addr(dst)),
                                                        nl::attr(5, nl::addr("10.0.0.2")), nl::attr(4, nl::u32(3))}),
                                               0x501, 4242));
            fill.insert(fill.end(), f.begin(), f.end());
        }
        ASSERT_TRUE(filler.send(fill));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));  // plausible: it swept
        EXPECT_EQ(h.on_io([&] { return h._rib.routes().size(); }), full);
    }
    ASSERT_TRUE(h.wait_connected(false));
    client zebra("127.0.0.1", h.port());
    ASSERT_TRUE(zebra.send(c1()));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    rib::store expected;
    reference_rib(c1(), expected);
    EXPECT_TRUE(h.on_io([&] { return h._rib.routes() == expected.routes(); }));
    std::printf("after a peer filled rib.max-routes %zu: zebra's replay holds %zu of %zu routes\n", full,
                h.on_io([&] { return h._rib.routes().size(); }), expected.routes().size());
}

}  // namespace
}  // namespace fpm
