// The FPM listener over real TCP on loopback: a real client socket writes FRR 8.4.4 capture
// streams (tests/fixtures/frr8/f-reconnect, four reconnects of one zebra) in random chunks.
// The listener runs its io_context on its own thread, as in the daemon; every look at the RIB
// or the session goes through that thread.

#include "fpm/listener.hh"

#include <gtest/gtest.h>

#include "listener_harness.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace listener_harness;
using namespace std::chrono_literals;
using bytes = std::vector<uint8_t>;

TEST(Listener, CaptureInRandomChunksBuildsTheSameRib) {
    harness h(no_sweep_for_a_while());
    ASSERT_TRUE(h.started);
    const auto stream = c1();
    ASSERT_FALSE(stream.empty());

    std::mt19937 rng(20261202);
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.connected);
    ASSERT_TRUE(c.send_chunked(stream, rng));
    ASSERT_TRUE(h.wait_frames(c1_frames));

    rib::store expected;
    reference_rib(stream, expected);
    h.on_io([&] {
        EXPECT_EQ(h._rib.routes(), expected.routes());
        EXPECT_EQ(h._rib.nexthops(), expected.nexthops());
        EXPECT_EQ(h._stats.frames, c1_frames);
        EXPECT_EQ(h.batches, c1_frames);  // one batch per frame
        EXPECT_EQ(h.updates, h._stats.updates);
        return 0;
    });
    EXPECT_EQ(h.on_io([&] { return h._rib.routes().size(); }), 9u);
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));
    EXPECT_TRUE(h.has_route("fc00:0:1::1/128"));
    const auto s = h.session();
    EXPECT_TRUE(s.connected);
    EXPECT_EQ(s.connections, 1u);
    EXPECT_EQ(s.peer.rfind("127.0.0.1:", 0), 0u) << s.peer;
    EXPECT_EQ(s.listen, "127.0.0.1:" + std::to_string(h.port()));
    EXPECT_TRUE(s.resync_pending);
    EXPECT_EQ(s.sweeps, 0u);
}

TEST(Listener, EveryChunkSizeFromOneByte) {
    // One byte per write is the worst case for the framer: every header split everywhere.
    harness h(no_sweep_for_a_while());
    const auto stream = c1();
    std::mt19937 rng(7);
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send_chunked(stream, rng, 1));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    rib::store expected;
    reference_rib(stream, expected);
    EXPECT_TRUE(h.on_io([&] { return h._rib.routes() == expected.routes(); }));
}

// The active connection is proven (its first frame was a valid replay's start); another user's
// valid replay does not replace it while it is fresh.
TEST(Listener, SecondConnectionOfAnotherUserIsRefusedWhileTheFirstTalks) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (a socket of another user)";
    listener_options o = no_sweep_for_a_while();
    o.admission.uids = {0, harness::other_user};
    harness h(o);
    client first("127.0.0.1", h.port());
    ASSERT_TRUE(first.connected);
    std::mt19937 rng(1);
    const auto stream = c1();
    ASSERT_TRUE(first.send(std::span(stream).first(44)));  // one frame: it talks
    ASSERT_TRUE(h.wait_frames(1));
    const std::string first_peer = h.session().peer;

    client second("127.0.0.1", h.port(), harness::other_user);
    ASSERT_TRUE(second.connected);
    ASSERT_TRUE(second.send(stream));  // a valid replay: refused all the same, the first is fresh
    EXPECT_TRUE(second.closed_by_peer());
    EXPECT_TRUE(h.eventually([&] { return h._session.refused == 1; }));

    // The first connection is untouched and still feeds the RIB.
    ASSERT_TRUE(first.send_chunked(std::span(stream).subspan(44), rng));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));
    const auto s = h.session();
    EXPECT_TRUE(s.connected);
    EXPECT_EQ(s.peer, first_peer);
    EXPECT_EQ(s.connections, 2u);  // both admitted; the second's first frame decided
    EXPECT_EQ(s.refused, 1u);
    EXPECT_EQ(s.takeovers, 0u);
    EXPECT_EQ(s.disconnects, 0u);
}

TEST(Listener, LostFramingClosesTheConnectionAndTheNextOneWorks) {
    harness h(no_sweep_for_a_while());
    const auto stream = c1();
    {
        client c("127.0.0.1", h.port());
        // Two good frames (44 bytes each), then a header with version 2: no way to find the
        // next frame boundary, so the connection must go.
        ASSERT_TRUE(c.send(std::span(stream).first(88)));
        const uint8_t bad[] = {2, 1, 0, 8, 0, 0, 0, 0};
        ASSERT_TRUE(c.send(bad));
        EXPECT_TRUE(c.closed_by_peer());
    }
    ASSERT_TRUE(h.wait_connected(false));
    auto s = h.session();
    EXPECT_EQ(s.framing_resets, 1u);
    EXPECT_EQ(s.disconnects, 1u);
    EXPECT_NE(s.last_disconnect_reason.find("frame_bad_version"), std::string::npos) << s.last_disconnect_reason;
    EXPECT_EQ(h.on_io([&] { return h._stats.reasons[static_cast<size_t>(reason::frame_bad_version)]; }), 1u);
    EXPECT_EQ(h.frames(), 2u);  // the good frames before the bad header were applied
    EXPECT_TRUE(h.has_nexthop(16));
    EXPECT_TRUE(h.has_nexthop(18));

    client again("127.0.0.1", h.port());
    std::mt19937 rng(2);
    ASSERT_TRUE(again.send_chunked(stream, rng));
    ASSERT_TRUE(h.wait_frames(2 + c1_frames));
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));
    s = h.session();
    EXPECT_TRUE(s.connected);
    EXPECT_EQ(s.connections, 2u);
    EXPECT_EQ(s.framing_resets, 1u);
}

TEST(Listener, ReplayAfterReconnectSweepsWhatZebraNoLongerHas) {
    listener_options o;
    // Each replay goes out in one write, so that no pause inside it (on a loaded machine) can
    // pass for the end of the replay; chunking is covered above.
    o.resync_quiet = 300ms;
    o.resync_max = 60s;
    harness h(o);
    {
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(c1()));
        ASSERT_TRUE(h.wait_frames(c1_frames));
        // The first connection's resync completes too (nothing was stale).
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
        EXPECT_EQ(h.session().last_sweep_removed, 0u);
    }
    ASSERT_TRUE(h.wait_connected(false));
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));

    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(c2_replay()));
    ASSERT_TRUE(h.wait_frames(c1_frames + c2_replay_frames));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));

    // Removed while the connection was down: zebra sent no delete, only the sweep removes them.
    EXPECT_FALSE(h.has_route("192.0.2.0/24"));
    EXPECT_FALSE(h.has_route("fc00:0:1::1/128"));
    EXPECT_FALSE(h.has_nexthop(24));  // the SID's End.DT6 nexthop, not replayed
    // Replayed: kept, and the route added while down is there.
    EXPECT_TRUE(h.has_route("198.51.100.0/24"));
    EXPECT_TRUE(h.has_route("2001:db8:aa::1/128"));
    EXPECT_TRUE(h.has_route("203.0.113.0/24"));
    EXPECT_TRUE(h.has_nexthop(25));
    const auto s = h.session();
    EXPECT_FALSE(s.resync_pending);
    EXPECT_EQ(s.last_sweep_removed, 3u);  // 2 routes + nexthop 24
    EXPECT_EQ(h.on_io([&] { return h.sweep_hooks; }), 2u);
    EXPECT_TRUE(s.connected);  // the sweep does not touch the connection
    // Both connections come from one zebra (the capture's nlmsg_pid): every route is in main,
    // which zebra replays, so the selective sweep removes the same entries as a full one.
    ASSERT_TRUE(s.zebra_pid.has_value());
    EXPECT_EQ(*s.zebra_pid, 3425875349u);
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::replayed_tables);
    EXPECT_EQ(s.last_sweep_reason, "same zebra (nlmsg_pid 3425875349)");
    EXPECT_EQ(s.last_sweep_kept, 0u);
}

// --- which tables a sweep cleans: decided by zebra's nlmsg_pid (docs/srv6d.md)

namespace nl = fpm::test;

// One RTM_NEWROUTE frame as zebra stamps it: table < 256 in rtm_table, one inline path; a
// static route unless another rtm_protocol is given (2: a kernel route zebra relays).
bytes route_frame(uint32_t pid, const char* dst, uint8_t len, uint8_t table, uint8_t protocol = 196) {
    return nl::frame(nl::nlmsg(24,
                               nl::cat({nl::rtmsg(2, len, table, protocol, 1), nl::attr(1, nl::addr(dst)),
                                        nl::attr(5, nl::addr("10.0.0.2")), nl::attr(4, nl::u32(3))}),
                               0x501, pid));
}

constexpr uint32_t zebra_a = 0xcc32b595;  // port ids as the kernel hands them out
constexpr uint32_t zebra_b = 0xd1f0a07b;

// Main 10.1/24 and 10.9/24, table 10 (a VRF's: replayed) and table 100 (`ip route ... table
// 100`: never replayed).
bytes first_state(uint32_t pid) {
    return nl::cat({route_frame(pid, "10.1.0.0", 24, 254), route_frame(pid, "10.9.0.0", 24, 254),
                    route_frame(pid, "10.10.0.0", 24, harness::vrf_table), route_frame(pid, "192.0.2.0", 24, 100)});
}
constexpr uint64_t first_frames = 4;

bool has(harness& h, const char* prefix, rib::table_id t) {
    return h.on_io([&] { return h._rib.find_route(key(prefix, t)) != nullptr; });
}

// Connection 1 from zebra `pid`, swept; then it drops.
void connect_and_sweep(harness& h, uint32_t pid, uint64_t sweeps_after) {
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(first_state(pid)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == sweeps_after; }));
    c.close();
    ASSERT_TRUE(h.wait_connected(false));
}

listener_options quick_sweep() {
    listener_options o;
    o.resync_quiet = 300ms;
    o.resync_max = 60s;
    return o;
}

TEST(ListenerSweepScope, SameZebraReconnectKeepsTablesItDoesNotReplay) {
    harness h(quick_sweep());
    connect_and_sweep(h, zebra_a, 1);
    auto s = h.session();
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::full);  // nothing to compare with yet
    EXPECT_EQ(s.last_sweep_reason, "first replay (zebra nlmsg_pid 3425875349)");

    // The FPM connection dropped, zebra kept running: it replays main only (10.9/24 was
    // deleted meanwhile, and table 10's route too).
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(route_frame(zebra_a, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_TRUE(has(h, "10.1.0.0/24", 254));
    EXPECT_FALSE(has(h, "10.9.0.0/24", 254));                  // main: replayed, so swept
    EXPECT_FALSE(has(h, "10.10.0.0/24", harness::vrf_table));  // a VRF's table: replayed, swept
    EXPECT_TRUE(has(h, "192.0.2.0/24", 100));                   // never replayed: kept
    s = h.session();
    ASSERT_TRUE(s.zebra_pid.has_value());
    EXPECT_EQ(*s.zebra_pid, zebra_a);
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::replayed_tables);
    EXPECT_EQ(s.last_sweep_reason, "same zebra (nlmsg_pid 3425875349)");
    EXPECT_EQ(s.last_sweep_removed, 2u);
    EXPECT_EQ(s.last_sweep_kept, 1u);
    EXPECT_EQ(h.on_io([&] { return h._rib.counters().kept_routes; }), 1u);
}

TEST(ListenerSweepScope, RestartedZebraSweepsEveryTableButUnreplayedKernelRoutes) {
    harness h(quick_sweep());
    {
        // zebra A's state also has a kernel route in table 200 (`ip route add ... table 200`).
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(nl::cat({first_state(zebra_a), route_frame(zebra_a, "198.51.100.0", 24, 200, 2)})));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
    }
    ASSERT_TRUE(h.wait_connected(false));
    // A new zebra process (new port id) rebuilt its RIB: table 100's static route is gone with
    // it. The kernel route of table 200 is still in the kernel, so the new zebra read it at
    // start, but its replay skips table 200: srv6d keeps it.
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(route_frame(zebra_b, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_TRUE(has(h, "10.1.0.0/24", 254));
    EXPECT_FALSE(has(h, "10.9.0.0/24", 254));
    EXPECT_FALSE(has(h, "10.10.0.0/24", harness::vrf_table));  // a VRF's table: replayed, swept
    EXPECT_FALSE(has(h, "192.0.2.0/24", 100));
    EXPECT_TRUE(has(h, "198.51.100.0/24", 200));
    const auto s = h.session();
    EXPECT_EQ(*s.zebra_pid, zebra_b);
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::restarted);
    EXPECT_EQ(s.last_sweep_reason, "zebra restarted (nlmsg_pid 3425875349 -> 3522207867)");
    EXPECT_EQ(s.last_sweep_removed, 3u);
    EXPECT_EQ(s.last_sweep_kept, 1u);
}

// --- the kernel check (fpm.kernel-check): a kept route of an unreplayed table must be in the
// kernel zebra programs (here the hook stands for this namespace's kernel).

using kernel_hook = std::function<std::optional<std::vector<rib::route_key>>(const std::vector<rib::table_id>&)>;

// The kernel's routes: `keys`; the tables asked for go to `asked` (nullptr: not kept).
kernel_hook kernel_with(std::vector<rib::route_key> keys, std::vector<rib::table_id>* asked = nullptr) {
    return [keys, asked](const std::vector<rib::table_id>& tables) -> std::optional<std::vector<rib::route_key>> {
        if (asked)
            *asked = tables;
        std::vector<rib::route_key> out;
        for (const auto& k : keys)
            if (std::find(tables.begin(), tables.end(), k.table) != tables.end())
                out.push_back(k);
        return out;
    };
}

// A corrupted stream of the same zebra wrote 198.51.100.0/24 into table 100 (a flipped
// rtm_table byte): zebra never replays table 100, so only the kernel check can clear it.
TEST(ListenerKernelCheck, SameZebraSweepsUnreplayedRoutesTheKernelLacks) {
    std::vector<rib::table_id> asked;
    harness h(quick_sweep(), kernel_with({key("192.0.2.0/24", 100)}, &asked));
    {
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(nl::cat({first_state(zebra_a), route_frame(zebra_a, "198.51.100.0", 24, 100)})));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
    }
    ASSERT_TRUE(h.wait_connected(false));
    EXPECT_TRUE(has(h, "198.51.100.0/24", 100));  // the first sweep is full: nothing stale yet
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(first_state(zebra_a)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_TRUE(has(h, "192.0.2.0/24", 100));      // re-sent: fresh
    EXPECT_FALSE(has(h, "198.51.100.0/24", 100));  // stale, unreplayed table, not in the kernel
    const auto s = h.session();
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::replayed_tables);
    EXPECT_EQ(s.last_sweep_not_in_kernel, 1u);
    EXPECT_EQ(asked, std::vector<rib::table_id>{100});  // main and the VRF's table are replayed
}

// After each zebra restart the kernel routes of unreplayed tables are kept, but only those the
// kernel still has: across restarts they cannot pile up.
TEST(ListenerKernelCheck, RestartsKeepOnlyKernelRoutesTheKernelHas) {
    harness h(quick_sweep(), kernel_with({key("198.51.100.0/24", 200)}));
    const uint32_t zebras[] = {zebra_a, zebra_b, zebra_a + 1, zebra_b + 1};
    for (size_t i = 0; i < std::size(zebras); ++i) {
        client c("127.0.0.1", h.port());
        // Each zebra relays the kernel route the kernel has, and one of its own a moment
        // before it went away (deleted from the kernel since).
        const std::string gone = fmt::format("203.0.{}.0", 100 + i);
        ASSERT_TRUE(c.send(nl::cat({route_frame(zebras[i], "10.1.0.0", 24, 254),
                                    route_frame(zebras[i], "198.51.100.0", 24, 200, 2),
                                    route_frame(zebras[i], gone.c_str(), 24, 200, 2)})));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == i + 1; }));
        c.close();
        ASSERT_TRUE(h.wait_connected(false));
    }
    // The last connection's own routes, and the kernel's: nothing of the earlier zebras.
    EXPECT_EQ(h.on_io([&] { return h._rib.routes().size(); }), 3u);
    EXPECT_TRUE(has(h, "198.51.100.0/24", 200));
    EXPECT_TRUE(has(h, "203.0.103.0/24", 200));
    EXPECT_FALSE(has(h, "203.0.102.0/24", 200));
    const auto s = h.session();
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::restarted);
    EXPECT_EQ(s.last_sweep_not_in_kernel, 1u);
}

// The kernel cannot be read: the stale routes of unreplayed tables are kept unchecked.
TEST(ListenerKernelCheck, AnUnreadableKernelKeepsAsBefore) {
    harness h(quick_sweep(), [](const std::vector<rib::table_id>&) { return std::nullopt; });
    connect_and_sweep(h, zebra_a, 1);
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(route_frame(zebra_a, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_TRUE(has(h, "192.0.2.0/24", 100));
    EXPECT_EQ(h.session().last_sweep_not_in_kernel, 0u);
}

// NHG mode: RTM_NEWNEXTHOP singleton `id` via `gw` on `oif`, and a route over object `nh`.
bytes nh_frame(uint32_t pid, uint32_t id, const char* gw, uint32_t oif) {
    return nl::frame(nl::nlmsg(104,
                               nl::cat({nl::nhmsg(2, 11), nl::attr(1, nl::u32(id)), nl::attr(6, nl::addr(gw)),
                                        nl::attr(5, nl::u32(oif))}),
                               0x501, pid));
}
bytes nhg_route_frame(uint32_t pid, const char* dst, uint8_t table, uint8_t protocol, uint32_t nh) {
    return nl::frame(nl::nlmsg(
        24, nl::cat({nl::rtmsg(2, 24, table, protocol, 1), nl::attr(1, nl::addr(dst)), nl::attr(30, nl::u32(nh))}),
        0x501, pid));
}

TEST(ListenerSweepScope, RestartedZebraReusingNexthopIdsDoesNotMoveKeptRoutes) {
    listener_options o = quick_sweep();
    o.resync_quiet = 1500ms;  // time to look between the replay and the sweep
    harness h(o);
    {
        // zebra A: object 5 via 10.0.0.2, used by main's 10.1/24 and table 200's kernel route.
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(nl::cat({nh_frame(zebra_a, 5, "10.0.0.2", 3), nhg_route_frame(zebra_a, "10.1.0.0", 254, 2, 5),
                                    nhg_route_frame(zebra_a, "198.51.100.0", 200, 2, 5)})));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
    }
    ASSERT_TRUE(h.wait_connected(false));
    const auto via_table_200 = [&] {
        return h.on_io([&] {
            const auto* r = h._rib.find_route(key("198.51.100.0/24", 200));
            std::vector<rib::resolved_path> paths;
            if (r)
                paths = h._rib.resolve(*r).paths;
            return paths;
        });
    };
    const auto old_gw = *rib::parse_addr("10.0.0.2");
    // zebra B (restarted) calls another nexthop 5 and replays main over it.
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(nl::cat({nh_frame(zebra_b, 5, "10.0.0.99", 4), nhg_route_frame(zebra_b, "10.1.0.0", 254, 2, 5)})));
    ASSERT_TRUE(h.wait_frames(5));
    ASSERT_TRUE(h.session().resync_pending);  // before the sweep ...
    auto paths = via_table_200();
    ASSERT_EQ(paths.size(), 1u);
    EXPECT_EQ(paths[0].path.gateway, old_gw);  // ... table 200 still goes where zebra A said
    EXPECT_EQ(paths[0].path.ifindex, 3u);
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    paths = via_table_200();  // and after it
    ASSERT_EQ(paths.size(), 1u);
    EXPECT_EQ(paths[0].path.gateway, old_gw);
    EXPECT_EQ(h.session().last_sweep_scope, sweep_scope::restarted);
    EXPECT_EQ(h.session().last_sweep_kept, 1u);
    EXPECT_EQ(h.on_io([&] { return h._rib.find_nexthop(5)->path->gateway; }), *rib::parse_addr("10.0.0.99"));
}

TEST(ListenerSweepScope, RestartedZebraSweepsStaleKernelRoutesOfReplayedTables) {
    harness h(quick_sweep());
    {
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(nl::cat({route_frame(zebra_a, "10.1.0.0", 24, 254),
                                    route_frame(zebra_a, "10.7.0.0", 24, 254, 2),
                                    route_frame(zebra_a, "10.8.0.0", 24, harness::vrf_table, 2)})));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
    }
    ASSERT_TRUE(h.wait_connected(false));
    // Kernel routes of main and of a VRF's table are in the replay: not replayed = gone.
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(route_frame(zebra_b, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_FALSE(has(h, "10.7.0.0/24", 254));
    EXPECT_FALSE(has(h, "10.8.0.0/24", harness::vrf_table));
    EXPECT_EQ(h.session().last_sweep_scope, sweep_scope::restarted);
    EXPECT_EQ(h.session().last_sweep_kept, 0u);
}

// A restarted zebra reuses its predecessor's nexthop ids for other objects (8.4.4 reads them
// back from the kernel without their encap): the kept routes must not follow them before the
// new zebra re-sends those routes or the sweep removes them (rib::store::set_detach_stale).
bytes nh_frame(uint32_t pid, uint32_t id, const char* gw) {
    return nl::frame(nl::nlmsg(104,  // RTM_NEWNEXTHOP: NHA_ID, NHA_OIF, NHA_GATEWAY
                               nl::cat({nl::nhmsg(2, 11), nl::attr(1, nl::u32(id)), nl::attr(5, nl::u32(3)),
                                        nl::attr(6, nl::addr(gw))}),
                               0x501, pid));
}
bytes nhid_route_frame(uint32_t pid, const char* dst, uint8_t len, uint8_t table, uint32_t nh) {
    return nl::frame(nl::nlmsg(
        24, nl::cat({nl::rtmsg(2, len, table, 186, 1), nl::attr(1, nl::addr(dst)), nl::attr(30, nl::u32(nh))}), 0x501,
        pid));
}

// On the io thread (from harness::eventually, or through gateway_of).
std::string gateway_in(const rib::store& rib, const char* prefix, rib::table_id t) {
    const auto* r = rib.find_route(key(prefix, t));
    if (!r)
        return "none";
    const auto res = rib.resolve(*r);
    return res.paths.empty() || !res.paths.front().path.gateway ? std::string("unresolved")
                                                                : rib::to_string(*res.paths.front().path.gateway);
}
std::string gateway_of(harness& h, const char* prefix, rib::table_id t) {
    return h.on_io([&] { return gateway_in(h._rib, prefix, t); });
}

TEST(ListenerSweepScope, RestartedZebrasNexthopIdsDoNotRepointKeptRoutes) {
    listener_options o = quick_sweep();
    o.resync_quiet = 1500ms;
    harness h(o);
    {
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(nl::cat({nh_frame(zebra_a, 7, "10.0.0.2"),
                                    nhid_route_frame(zebra_a, "10.10.0.0", 24, harness::vrf_table, 7),
                                    nhid_route_frame(zebra_a, "10.11.0.0", 24, harness::vrf_table, 7)})));
        ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
        c.close();
        ASSERT_TRUE(h.wait_connected(false));
    }
    // zebra restarted: its id 7 is another object; it re-sends 10.11/24 only (with id 7)
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(nl::cat({nh_frame(zebra_b, 7, "10.0.0.9"),
                                nhid_route_frame(zebra_b, "10.11.0.0", 24, harness::vrf_table, 7)})));
    ASSERT_TRUE(h.eventually([&] { return gateway_in(h._rib, "10.11.0.0/24", harness::vrf_table) == "10.0.0.9"; }));
    EXPECT_EQ(h.session().sweeps, 1u);
    EXPECT_EQ(gateway_of(h, "10.10.0.0/24", harness::vrf_table), "10.0.0.2");  // kept, as it was
    EXPECT_EQ(h.on_io([&] { return h._rib.counters().detached_routes; }), 2u);  // both, before 10.11 came
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_EQ(gateway_of(h, "10.10.0.0/24", harness::vrf_table), "none");  // not re-sent: swept
    EXPECT_EQ(gateway_of(h, "10.11.0.0/24", harness::vrf_table), "10.0.0.9");
}

TEST(ListenerSweepScope, AnotherZebraInBetweenMakesTheNextSweepNonSelective) {
    listener_options o = quick_sweep();
    o.resync_quiet = 1500ms;  // room for the middle connection to end before its sweep
    harness h(o);
    connect_and_sweep(h, zebra_a, 1);
    {
        // Another zebra connects, adds a route to table 100, and is gone before its sweep.
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(route_frame(zebra_b, "198.51.100.0", 24, 100)));
        ASSERT_TRUE(h.wait_frames(first_frames + 1));
    }
    ASSERT_TRUE(h.wait_connected(false));
    EXPECT_EQ(h.session().sweeps, 1u);
    // zebra A again: the RIB mixes both zebras' tables, so "same zebra" cannot be trusted.
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(route_frame(zebra_a, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    // It gets the scope of zebra B's connection (a restart's: both routes are static, so swept).
    EXPECT_FALSE(has(h, "192.0.2.0/24", 100));
    EXPECT_FALSE(has(h, "198.51.100.0/24", 100));
    const auto s = h.session();
    EXPECT_EQ(s.last_sweep_scope, sweep_scope::restarted);
    EXPECT_EQ(s.last_sweep_reason, "zebra restarted (nlmsg_pid 3425875349 -> 3522207867), on an earlier connection");

    // After that full sweep, zebra A is the RIB's zebra again: the next reconnect is selective.
    c.close();
    ASSERT_TRUE(h.wait_connected(false));
    client again("127.0.0.1", h.port());
    ASSERT_TRUE(again.send(route_frame(zebra_a, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 3; }));
    EXPECT_EQ(h.session().last_sweep_scope, sweep_scope::replayed_tables);
}

// A connection without a single netlink message (a protobuf stream; here a protobuf frame
// that does not parse) becomes zebra's when there is no other, but is no plausible replay: it
// never sweeps, and the RIB keeps what it had (issue 36: one junk frame emptied it).
TEST(ListenerSweepScope, AJunkSessionNeverSweeps) {
    harness h(quick_sweep());
    connect_and_sweep(h, zebra_a, 1);
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(nl::frame({0xff}, 2)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps_skipped == 1; }));
    EXPECT_TRUE(has(h, "192.0.2.0/24", 100));
    EXPECT_TRUE(has(h, "10.1.0.0/24", 254));
    const auto s = h.session();
    EXPECT_EQ(s.sweeps, 1u);
    EXPECT_FALSE(s.resync_pending);
    EXPECT_EQ(s.last_skip_reason, "1 decode errors in 1 frames");
    EXPECT_EQ(h.on_io([&] { return h._rib.stale_count(); }), 0u);
    // zebra again: its replay is swept as the same zebra's.
    c.close();
    ASSERT_TRUE(h.wait_connected(false));
    client z("127.0.0.1", h.port());
    ASSERT_TRUE(z.send(route_frame(zebra_a, "10.1.0.0", 24, 254)));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_EQ(h.session().last_sweep_scope, sweep_scope::replayed_tables);
}

TEST(Listener, DisconnectBeforeTheSweepKeepsEverything) {
    harness h(no_sweep_for_a_while());
    std::mt19937 rng(4);
    {
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send_chunked(c1(), rng));
        ASSERT_TRUE(h.wait_frames(c1_frames));
    }
    ASSERT_TRUE(h.wait_connected(false));
    {
        // The second replay lacks 192.0.2.0/24, but ends before the quiet period: it may be
        // incomplete, so nothing is swept.
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send_chunked(c2_replay(), rng));
        ASSERT_TRUE(h.wait_frames(c1_frames + c2_replay_frames));
    }
    ASSERT_TRUE(h.wait_connected(false));
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));
    EXPECT_TRUE(h.has_route("fc00:0:1::1/128"));
    EXPECT_TRUE(h.has_route("203.0.113.0/24"));
    const auto s = h.session();
    EXPECT_EQ(s.sweeps, 0u);
    EXPECT_TRUE(s.resync_pending);
    EXPECT_EQ(s.connections, 2u);
    EXPECT_EQ(s.disconnects, 2u);
    EXPECT_EQ(s.last_disconnect_reason, "closed by peer");
    EXPECT_EQ(h.on_io([&] { return h.sweep_hooks; }), 0u);
}

TEST(Listener, ResyncMaxSweepsDespiteATrickle) {
    // A quiet period longer than the whole test: only resync-max can cause this sweep.
    listener_options o;
    o.resync_quiet = 30s;
    o.resync_max = 200ms;
    harness h(o);
    const auto stream = c1();
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(stream));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    // Keep re-sending one frame (the replay of a route) every 10 ms, for at most 10 s.
    const auto frame = std::span(stream).subspan(668, 56);  // RTM_NEWROUTE 10.0.1.0/24
    bool swept = false;
    for (int i = 0; i < 1000 && !swept; ++i) {
        ASSERT_TRUE(c.send(frame));
        std::this_thread::sleep_for(10ms);
        swept = h.session().sweeps == 1;
    }
    EXPECT_TRUE(swept);
    EXPECT_TRUE(h.session().connected);
    EXPECT_FALSE(h.session().resync_pending);
}

TEST(Listener, StopClosesTheConnectionWithoutSweeping) {
    harness h(no_sweep_for_a_while());
    client c("127.0.0.1", h.port());
    std::mt19937 rng(5);
    ASSERT_TRUE(c.send_chunked(c1(), rng));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    h.stop();
    EXPECT_TRUE(c.closed_by_peer());
    // New connections are no longer accepted: connect() fails or the socket is closed at once.
    client late("127.0.0.1", h.port());
    EXPECT_TRUE(!late.connected || late.closed_by_peer());
}

TEST(Listener, Ipv6Loopback) {
    listener_options o = no_sweep_for_a_while();
    o.address = "[::1]";
    harness h(o);
    if (!h.started)
        GTEST_SKIP() << "no IPv6 loopback here";
    client c("::1", h.port());
    ASSERT_TRUE(c.connected);
    std::mt19937 rng(6);
    ASSERT_TRUE(c.send_chunked(c1(), rng));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    EXPECT_TRUE(h.has_route("2001:db8:100::/48"));
    const auto s = h.session();
    EXPECT_EQ(s.listen, "[::1]:" + std::to_string(h.port()));
    EXPECT_EQ(s.peer.rfind("[::1]:", 0), 0u) << s.peer;
}

TEST(Listener, UnusableAddressIsReported) {
    boost::asio::io_context io;
    rib::store rib;
    ingest_stats stats;
    session_info session;
    listener_options o;
    o.address = "192.0.2.1";  // TEST-NET-1: not configured on this host, bind() fails
    listener l(io, o, rib, stats, session);
    std::string err;
    EXPECT_FALSE(l.start(err));
    EXPECT_NE(err.find("192.0.2.1"), std::string::npos) << err;
}

TEST(Listener, PortInUseIsReported) {
    harness h(no_sweep_for_a_while());
    boost::asio::io_context io;
    rib::store rib;
    ingest_stats stats;
    session_info session;
    listener_options o;
    o.port = h.port();
    listener l(io, o, rib, stats, session);
    std::string err;
    EXPECT_FALSE(l.start(err));
    EXPECT_NE(err.find(std::to_string(h.port())), std::string::npos) << err;
}

}  // namespace
}  // namespace fpm
