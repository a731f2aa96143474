// Hostile input over many connections, bounded in time (issue 13, item 6): real FRR captures
// corrupted at random and on purpose (flipped bytes, truncations, a table byte, message and
// frame lengths, attribute lengths, splices of two captures) are fed to srv6d's listener
// between, and during, the connections of a clean zebra that replays fpm-c1.bin. Each clean
// replay, once swept, must leave exactly the RIB of that capture; peers that are not admitted,
// or that try to push into zebra's live connection, must change nothing; the RIB stays within
// its limits and the process's RSS bounded.
//
// SRV6D_HOSTILE_SECONDS sets the duration (default 12 s); SRV6D_HOSTILE_SEED the seed (default:
// from the clock, printed, so that a failure can be replayed).
#include "fpm/listener.hh"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "listener_harness.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace listener_harness;
using namespace std::chrono_literals;
using bytes = std::vector<uint8_t>;

constexpr uint32_t hostile_admitted = 65534;  // an admitted user that is not zebra's
constexpr uint32_t hostile_refused = 65533;   // not in the allow-list

std::vector<bytes> corpus() {
    std::vector<bytes> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(SRV6D_FIXTURES) + "/frr8"))
        if (e.path().extension() == ".bin")
            out.push_back(read_file(e.path().string()));
    return out;
}

// Offsets of the frames of a well-framed capture.
std::vector<size_t> frame_offsets(const bytes& b) {
    std::vector<size_t> out;
    for (size_t off = 0; off + 4 <= b.size();) {
        const size_t len = static_cast<size_t>(b[off + 2]) << 8 | b[off + 3];
        if (len < 4 || off + len > b.size())
            break;
        out.push_back(off);
        off += len;
    }
    return out;
}

bytes corrupt(const std::vector<bytes>& all, std::mt19937& rng) {
    auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    bytes b = all[pick(all.size())];
    const auto frames = frame_offsets(b);
    if (frames.empty())
        return b;
    const size_t f = frames[pick(frames.size())];
    // Within a netlink frame: FPM header 4, nlmsghdr 16, rtmsg/nhmsg 12 (8), then attributes.
    auto poke = [&](size_t at, uint8_t v) {
        if (at < b.size())
            b[at] = v;
    };
    const auto r = static_cast<uint8_t>(rng());
    switch (pick(9)) {
    case 0:  // random bytes anywhere
        for (size_t i = 0, n = 1 + pick(8); i < n; ++i)
            b[pick(b.size())] = static_cast<uint8_t>(rng());
        break;
    case 1:  // cut anywhere
        b.resize(pick(b.size()));
        break;
    case 2:  // rtm_table (or nhmsg's protocol/flags) of one message
        poke(f + 4 + 16 + 4, r);
        break;
    case 3:  // nlmsg_len
        poke(f + 4 + (rng() & 1), r);
        break;
    case 4:  // the FPM frame length
        poke(f + 2 + (rng() & 1), r);
        break;
    case 5:  // the first attribute's length
        poke(f + 4 + 16 + 12 + (rng() & 1), r);
        break;
    case 6:  // the message type
        poke(f + 4 + 4, r);
        break;
    case 7: {  // a splice of two captures at frame boundaries
        const bytes& o = all[pick(all.size())];
        const auto of = frame_offsets(o);
        b.resize(f);
        if (!of.empty())
            b.insert(b.end(), o.begin() + static_cast<std::ptrdiff_t>(of[pick(of.size())]), o.end());
        break;
    }
    default:  // one frame's payload bytes at random, framing intact
        for (size_t i = f + 4; i < std::min(b.size(), f + 4 + 64); ++i)
            if (pick(4) == 0)
                b[i] = static_cast<uint8_t>(rng());
        break;
    }
    return b;
}

size_t rss_kib() {
    std::ifstream in("/proc/self/statm");
    size_t pages = 0, resident = 0;
    in >> pages >> resident;
    return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) / 1024;
}

TEST(ListenerHostile, CorruptCapturesOverManyConnectionsNeverSpoilACleanReplay) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (sockets of other users)";
    const char* secs_env = std::getenv("SRV6D_HOSTILE_SECONDS");
    const auto duration = std::chrono::seconds(secs_env ? std::atoi(secs_env) : 12);
    const char* seed_env = std::getenv("SRV6D_HOSTILE_SEED");
    const uint32_t seed = seed_env ? static_cast<uint32_t>(std::strtoul(seed_env, nullptr, 10))
                                   : static_cast<uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::printf("SRV6D_HOSTILE_SEED=%u\n", seed);
    std::mt19937 rng(seed);

    const auto all = corpus();
    ASSERT_GE(all.size(), 9u);
    const bytes clean = c1();
    rib::store expected;
    reference_rib(clean, expected);
    std::vector<rib::route_key> kernel;  // zebra's kernel holds exactly the clean routes
    for (const rib::route* r : expected.routes().sorted())
        kernel.push_back(r->key);

    listener_options o;
    o.resync_quiet = 100ms;
    o.resync_max = 5s;
    o.first_frame_timeout = 300ms;
    o.takeover_idle = 60s;
    o.admission.uids = {0, hostile_admitted};
    harness h(o, [&](const std::vector<rib::table_id>&) { return std::optional(kernel); });
    const rib::rib_limits limits{3000, 1000, 3000};
    h.on_io([&] { h._rib.set_limits(limits); });

    auto clean_replay = [&](int round) {
        const uint64_t sweeps = h.session().sweeps;
        client zebra("127.0.0.1", h.port());
        EXPECT_TRUE(zebra.send_chunked(clean, rng, 512)) << round;
        EXPECT_TRUE(h.eventually([&] { return h._session.talking && h._session.peer_identity == "uid 0 (root)"; }));
        // Into zebra's live connection: another admitted user and a user not admitted.
        for (const uint32_t who : {hostile_admitted, hostile_refused}) {
            client c("127.0.0.1", h.port(), who);
            (void)c.send(corrupt(all, rng));
            EXPECT_TRUE(c.closed_by_peer()) << round;
        }
        EXPECT_TRUE(h.eventually([&] {
            return h._session.sweeps > sweeps && !h._session.resync_pending && h._session.talking;
        })) << round;
        const bool same = h.on_io([&] {
            return h._rib.routes() == expected.routes() && h._rib.nexthops() == expected.nexthops() &&
                   h._rib.pic_contexts() == expected.pic_contexts() && h._rib.sidlists() == expected.sidlists();
        });
        EXPECT_TRUE(same) << "round " << round << ": the clean replay did not give the clean RIB (seed " << seed << ")";
        zebra.close();
        EXPECT_TRUE(h.wait_connected(false)) << round;
        return same;
    };

    ASSERT_TRUE(clean_replay(0));
    const size_t rss_start = rss_kib();
    const auto until = std::chrono::steady_clock::now() + duration;
    int rounds = 0, hostile = 0;
    size_t max_routes = 0, max_entries = 0;
    while (std::chrono::steady_clock::now() < until) {
        ++rounds;
        // While zebra is away, corrupted streams as the active connection, one after another.
        for (int i = 0, n = 1 + static_cast<int>(rng() % 6); i < n; ++i, ++hostile) {
            client c("127.0.0.1", h.port(), (rng() & 1) ? std::optional<uint32_t>(hostile_admitted) : std::nullopt);
            (void)c.send_chunked(corrupt(all, rng), rng, 256);
            if (rng() % 3 == 0)  // sometimes long enough for its own sweep
                (void)h.eventually([&] { return !h._session.resync_pending || !h._session.connected; });
            c.close();
            ASSERT_TRUE(h.wait_connected(false));
        }
        const auto [routes, entries] =
            h.on_io([&] { return std::pair(h._rib.routes().size(), h._rib.nexthop_entries()); });
        max_routes = std::max(max_routes, routes);
        max_entries = std::max(max_entries, entries);
        if (!clean_replay(rounds))
            break;
    }
    const auto s = h.session();
    const auto st = h.on_io([&] { return h._stats; });
    uint64_t errors = 0;
    for (const auto n : st.reasons)
        errors += n;
    std::printf("%d rounds, %d hostile connections, %lu refused (busy), %lu first-frame timeouts, %lu not admitted, "
                "%lu reasons counted, %lu bytes discarded, largest RIB %zu routes / %zu nexthop entries, RSS %zu -> "
                "%zu KiB\n",
                rounds, hostile, static_cast<unsigned long>(s.refused),
                static_cast<unsigned long>(s.first_frame_timeouts), static_cast<unsigned long>(s.denied_user),
                static_cast<unsigned long>(errors), static_cast<unsigned long>(st.bytes_discarded), max_routes,
                max_entries, rss_start, rss_kib());
    EXPECT_GE(rounds, 3);
    EXPECT_GT(errors, 0u);
    // The admitted intruder, every round: refused at its first frame, or at its timeout when
    // the corruption cut its first frame short.
    EXPECT_GE(s.refused + s.first_frame_timeouts, static_cast<uint64_t>(rounds));
    EXPECT_EQ(s.takeovers, 0u);
    EXPECT_GE(s.denied_user, static_cast<uint64_t>(rounds));  // the one not admitted
    EXPECT_LE(max_routes, limits.max_routes);
    EXPECT_LE(max_entries, limits.max_nexthops);
    EXPECT_EQ(st.bytes_received, st.bytes + st.bytes_discarded);
    EXPECT_LT(rss_kib(), rss_start + 64 * 1024) << "RSS grew by more than 64 MiB";
}

}  // namespace
}  // namespace fpm
