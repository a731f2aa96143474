// fpm::apply: every update alternative reaches the right RIB call; one frame's DEL+NEW pair is a
// replace; and real FRR 8.4.4 streams (5 reconnects of one zebra, and an update-heavy session)
// replayed through framer + decode_frame + apply give the RIB zebra had, idempotently.
#include "fpm/apply.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fpm/decoder.hh"
#include "fpm/framer.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

rib::prefix pfx(const char* s) { return *rib::parse_prefix(s); }
rib::route_key key(const char* dst, rib::table_id t = rib::main_table) { return {t, pfx(dst), {}}; }

rib::route route_via(const char* dst, uint32_t nh_id) {
    rib::route r;
    r.key = key(dst);
    r.protocol = rib::proto::zstatic;
    r.nh_id = nh_id;
    return r;
}

rib::nexthop_object object(uint32_t id, uint32_t ifindex) {
    rib::nexthop_object o;
    o.id = id;
    o.path = rib::nexthop{};
    o.path->ifindex = ifindex;
    return o;
}

update up(update_body b) { return update{dialect::netlink, std::move(b)}; }

// --- dispatch

TEST(Apply, EachAlternativeReachesTheRib) {
    rib::store rib;
    EXPECT_TRUE(apply(up(nexthop_upsert{object(4, 3)}), rib));
    EXPECT_NE(rib.find_nexthop(4), nullptr);
    EXPECT_TRUE(apply(up(route_upsert{route_via("10.0.1.0/24", 4)}), rib));
    EXPECT_EQ(rib.find_route(key("10.0.1.0/24"))->nh_id, 4u);
    EXPECT_FALSE(apply(up(route_upsert{route_via("10.0.1.0/24", 4)}), rib));  // no-op upsert
    EXPECT_TRUE(apply(up(pic_context_upsert{object(9, 3)}), rib));
    EXPECT_EQ(rib.pic_contexts().count(9), 1u);
    EXPECT_TRUE(rib.nexthops().count(9) == 0);
    const std::vector<rib::ip6_addr> segs{*rib::parse_ip6("fc00:0:2::100")};
    EXPECT_TRUE(apply(up(sidlist_upsert{"sl", segs}), rib));
    EXPECT_EQ(rib.sidlists().at("sl"), segs);

    EXPECT_TRUE(apply(up(route_delete{key("10.0.1.0/24")}), rib));
    EXPECT_EQ(rib.find_route(key("10.0.1.0/24")), nullptr);
    EXPECT_FALSE(apply(up(route_delete{key("10.0.1.0/24")}), rib));
    EXPECT_EQ(rib.counters().route_delete_unknown, 1u);
    EXPECT_TRUE(apply(up(nexthop_delete{4}), rib));
    EXPECT_EQ(rib.find_nexthop(4), nullptr);
    EXPECT_TRUE(apply(up(pic_context_delete{9}), rib));
    EXPECT_TRUE(rib.pic_contexts().empty());
    EXPECT_TRUE(apply(up(sidlist_delete{"sl"}), rib));
    EXPECT_TRUE(rib.sidlists().empty());
    EXPECT_FALSE(apply(up(sidlist_delete{"sl"}), rib));
}

// --- one frame = one batch

TEST(ApplyBatch, DelNewPairLeavesTheNewRoute) {
    rib::store rib;
    apply(up(route_upsert{route_via("192.0.2.0/24", 16)}), rib);
    const std::vector<update> frame{up(route_delete{key("192.0.2.0/24")}),
                                    up(route_upsert{route_via("192.0.2.0/24", 20)})};
    EXPECT_TRUE(apply_batch(frame, rib));
    ASSERT_NE(rib.find_route(key("192.0.2.0/24")), nullptr);
    EXPECT_EQ(rib.find_route(key("192.0.2.0/24"))->nh_id, 20u);
    EXPECT_EQ(rib.counters().route_deletes, 0u);  // a replace, not a delete
}

TEST(ApplyBatch, DelNewPairOfSameContentIsNoChange) {
    rib::store rib;
    apply(up(route_upsert{route_via("10.98.0.0/16", 29)}), rib);
    const auto v = rib.version();
    const std::vector<update> frame{up(route_delete{key("10.98.0.0/16")}),
                                    up(route_upsert{route_via("10.98.0.0/16", 29)})};
    EXPECT_FALSE(apply_batch(frame, rib));
    EXPECT_EQ(rib.version(), v);
    EXPECT_NE(rib.find_route(key("10.98.0.0/16")), nullptr);
}

TEST(ApplyBatch, DelNewPairForAnUnknownRouteIsAnInstall) {
    rib::store rib;
    const std::vector<update> frame{up(route_delete{key("192.0.2.0/24")}),
                                    up(route_upsert{route_via("192.0.2.0/24", 20)})};
    EXPECT_TRUE(apply_batch(frame, rib));
    EXPECT_NE(rib.find_route(key("192.0.2.0/24")), nullptr);
    EXPECT_EQ(rib.counters().route_delete_unknown, 0u);
}

TEST(ApplyBatch, DeleteOfAnotherKeyIsStillApplied) {
    rib::store rib;
    apply(up(route_upsert{route_via("192.0.2.0/24", 16)}), rib);
    auto other_table = route_via("192.0.2.0/24", 16);
    other_table.key.table = 100;
    const std::vector<update> frame{up(route_delete{key("192.0.2.0/24")}), up(route_upsert{other_table})};
    EXPECT_TRUE(apply_batch(frame, rib));
    EXPECT_EQ(rib.find_route(key("192.0.2.0/24")), nullptr);
    EXPECT_NE(rib.find_route(key("192.0.2.0/24", 100)), nullptr);
}

TEST(ApplyBatch, NewThenDelIsADelete) {
    rib::store rib;
    const std::vector<update> frame{up(route_upsert{route_via("192.0.2.0/24", 20)}),
                                    up(route_delete{key("192.0.2.0/24")})};
    EXPECT_TRUE(apply_batch(frame, rib));
    EXPECT_EQ(rib.find_route(key("192.0.2.0/24")), nullptr);
}

// --- real streams

std::string capture_dir(const std::string& scenario) {
    // Prefer the copy in the repository; fall back to the research folder next to it.
    const std::string in_repo = std::string(SRV6D_FIXTURES) + "/frr8/" + scenario;
    if (std::filesystem::exists(in_repo))
        return in_repo;
    return std::string(SRV6D_FIXTURES) + "/../../../shared/research/frr-capture/captures/" + scenario;
}

struct frame {
    size_t offset = 0;  // byte offset in the connection's stream (as in the .marks file)
    std::vector<update> updates;
};

std::vector<frame> read_stream(const std::string& path, ingest_stats& stats) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << "missing fixture " << path;
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    decode_ctx ctx(stats);
    framer f;
    f.feed(bytes);
    std::vector<frame> out;
    size_t off = 0;
    while (auto fr = f.next()) {
        out.push_back({off, {}});
        decode_frame(*fr, ctx, out.back().updates);
        off += fr->size();
    }
    EXPECT_EQ(off, bytes.size()) << path;
    EXPECT_FALSE(f.lost()) << path;
    return out;
}

uint64_t errors(const ingest_stats& s) {
    uint64_t n = 0;
    for (size_t i = 0; i < reason_count; ++i)
        if (is_error(static_cast<reason>(i)))
            n += s.reasons[i];
    return n;
}

// Applies the frames whose offset lies in [from, to); returns how many changed the RIB.
size_t apply_frames(const std::vector<frame>& frames, rib::store& rib, size_t from = 0, size_t to = SIZE_MAX) {
    size_t changed = 0;
    for (const auto& f : frames)
        if (f.offset >= from && f.offset < to && apply_batch(f.updates, rib))
            ++changed;
    return changed;
}

std::vector<rib::route_key> route_keys(const rib::store& rib) {
    std::vector<rib::route_key> keys;
    for (const auto& [k, r] : rib.routes())
        keys.push_back(k);
    std::sort(keys.begin(), keys.end());  // routes() has no order
    return keys;
}

std::vector<uint32_t> nh_ids(const rib::store& rib) {
    std::vector<uint32_t> ids;
    for (const auto& [id, o] : rib.nexthops())
        ids.push_back(id);
    return ids;
}

std::vector<rib::route_key> sorted(std::vector<rib::route_key> v) {
    std::sort(v.begin(), v.end());
    return v;
}

void expect_all_resolved(const rib::store& rib) {
    for (const auto& [k, r] : rib.routes())
        EXPECT_EQ(rib.resolve(r).state, rib::resolve_state::ok) << rib::to_string(k.dst);
}

struct snapshot {
    rib::route_table routes;
    std::map<uint32_t, rib::nexthop_object> nexthops;
    uint64_t version = 0;
    explicit snapshot(const rib::store& r) : routes(r.routes()), nexthops(r.nexthops()), version(r.version()) {}
    bool operator==(const snapshot&) const = default;
};

class Reconnect : public ::testing::Test {
protected:
    void SetUp() override {
        for (int c = 1; c <= 5; ++c)
            conn.push_back(read_stream(capture_dir("f-reconnect") + "/fpm-c" + std::to_string(c) + ".bin", stats));
        ASSERT_EQ(errors(stats), 0u);
    }
    // A new connection: mark everything stale, take the replay, sweep.
    size_t replay(const std::vector<frame>& frames, size_t replay_end = SIZE_MAX) {
        rib.begin_resync();
        apply_frames(frames, rib, 0, replay_end);
        return rib.sweep();
    }

    ingest_stats stats;
    std::vector<std::vector<frame>> conn;  // conn[0] = fpm-c1.bin
    rib::store rib;
};

// Offsets from f-reconnect/fpm.marks: where each replay ends and the live changes start.
constexpr size_t c2_replay_end = 1092;  // STEP3: delete 198.51.100.0/24 while connected
constexpr size_t c5_replay_end = 928;   // STEP8: zebra stops

const std::vector<rib::route_key> c1_routes = sorted({
    key("10.0.1.0/24"), key("10.0.2.0/24"), key("192.0.2.0/24"), key("198.51.100.0/24"),
    key("2001:db8:aa::1/128"), key("2001:db8:100::/48"), key("fc00:0:1::1/128"), key("fc00:1::/64"),
    key("fe80::/64")});

TEST_F(Reconnect, FirstReplayBuildsTheRib) {
    rib.begin_resync();
    // Group 12 = {11, 13} arrives before 13: right after it, the group resolves partially.
    for (const auto& f : conn[0]) {
        apply_batch(f.updates, rib);
        if (f.offset == 496) {  // frame #9, RTM_NEWNEXTHOP id=12
            auto res = rib.resolve(route_via("198.51.100.0/24", 12));
            EXPECT_EQ(res.state, rib::resolve_state::partial);
            EXPECT_EQ(res.missing_ids, std::vector<uint32_t>{13});
            EXPECT_EQ(rib.users_of(13), std::vector<rib::route_key>{});
        }
    }
    EXPECT_EQ(rib.sweep(), 0u);
    EXPECT_EQ(route_keys(rib), c1_routes);
    EXPECT_EQ(nh_ids(rib), (std::vector<uint32_t>{4, 5, 6, 11, 12, 13, 14, 16, 18, 20, 24, 25}));
    expect_all_resolved(rib);

    auto ecmp = rib.resolve(*rib.find_route(key("198.51.100.0/24")));
    ASSERT_EQ(ecmp.paths.size(), 2u);
    EXPECT_EQ(ecmp.paths[0].nh_id, 11u);
    EXPECT_EQ(ecmp.paths[0].path.gateway, rib::parse_addr("10.0.1.2"));
    EXPECT_EQ(ecmp.paths[1].nh_id, 13u);
    EXPECT_EQ(ecmp.paths[1].path.gateway, rib::parse_addr("10.0.2.2"));
    EXPECT_EQ(rib.users_of(13), std::vector<rib::route_key>{key("198.51.100.0/24")});

    auto headend = rib.resolve(*rib.find_route(key("2001:db8:aa::1/128")));
    ASSERT_EQ(headend.paths.size(), 1u);
    ASSERT_TRUE(headend.paths[0].path.seg6);
    EXPECT_EQ(headend.paths[0].path.seg6->segments, std::vector<rib::ip6_addr>{*rib::parse_ip6("fc00:0:2::100")});

    auto sids = rib.local_sids();
    ASSERT_EQ(sids.size(), 1u);
    EXPECT_EQ(sids[0].r->key, key("fc00:0:1::1/128"));
    EXPECT_EQ(sids[0].sid.action, rib::behavior::end_dt6);
    EXPECT_EQ(sids[0].sid.decap_table(), 10u);
    EXPECT_EQ(sids[0].nh_id, 24u);
    EXPECT_EQ(sids[0].ifindex, 3u);
}

TEST_F(Reconnect, SameReplayTwiceChangesNothing) {
    replay(conn[0]);
    const snapshot first(rib);
    rib.begin_resync();
    EXPECT_EQ(apply_frames(conn[0], rib), 0u);
    EXPECT_EQ(rib.stale_count(), 0u);
    EXPECT_EQ(rib.sweep(), 0u);
    EXPECT_EQ(snapshot(rib), first);
    // Without a resync around it, too.
    EXPECT_EQ(apply_frames(conn[0], rib), 0u);
    EXPECT_EQ(snapshot(rib), first);
}

TEST_F(Reconnect, ChangesWhileDisconnectedAreSweptAfterTheReplay) {
    replay(conn[0]);
    // While disconnected: 203.0.113.0/24 added, 192.0.2.0/24 and the SID fc00:0:1::1 removed.
    rib.begin_resync();
    EXPECT_EQ(apply_frames(conn[1], rib, 0, c2_replay_end), 1u);  // only 203.0.113.0/24 is new
    // Nothing is removed before the sweep: forwarding stays as it was.
    EXPECT_EQ(rib.stale_count(), 3u);  // 192.0.2.0/24, fc00:0:1::1/128, NH 24
    EXPECT_NE(rib.find_route(key("192.0.2.0/24")), nullptr);
    EXPECT_EQ(rib.local_sids().size(), 1u);
    EXPECT_EQ(rib.sweep(), 3u);
    EXPECT_EQ(rib.find_route(key("192.0.2.0/24")), nullptr);
    EXPECT_EQ(rib.find_route(key("fc00:0:1::1/128")), nullptr);
    EXPECT_EQ(rib.find_nexthop(24), nullptr);
    EXPECT_TRUE(rib.local_sids().empty());
    EXPECT_NE(rib.find_route(key("203.0.113.0/24")), nullptr);
    expect_all_resolved(rib);

    // Live: DELROUTE 198.51.100.0/24, then DELNEXTHOP 12 and 11.
    EXPECT_EQ(apply_frames(conn[1], rib, c2_replay_end), 3u);
    EXPECT_EQ(rib.find_route(key("198.51.100.0/24")), nullptr);
    EXPECT_EQ(nh_ids(rib), (std::vector<uint32_t>{4, 5, 6, 13, 14, 16, 18, 20, 25}));
    EXPECT_EQ(rib.counters().route_delete_unknown, 0u);
    EXPECT_EQ(rib.counters().nh_delete_unknown, 0u);
}

TEST_F(Reconnect, AllFiveConnections) {
    replay(conn[0]);
    replay(conn[1], c2_replay_end);
    apply_frames(conn[1], rib, c2_replay_end);

    // C3: `no fpm use-next-hop-groups`: inline nexthops, no objects; every object is swept.
    EXPECT_EQ(replay(conn[2]), 9u);
    EXPECT_TRUE(rib.nexthops().empty());
    EXPECT_EQ(rib.routes().size(), 7u);
    for (const auto& [k, r] : rib.routes())
        EXPECT_FALSE(r.nh_id) << rib::to_string(k.dst);
    expect_all_resolved(rib);
    auto headend = rib.resolve(*rib.find_route(key("2001:db8:aa::1/128")));
    ASSERT_EQ(headend.paths.size(), 1u);
    EXPECT_EQ(headend.paths[0].nh_id, 0u);
    EXPECT_EQ(headend.paths[0].path.gateway, rib::parse_addr("fc00:1::2"));
    ASSERT_TRUE(headend.paths[0].path.seg6);
    EXPECT_EQ(headend.paths[0].path.seg6->segments, std::vector<rib::ip6_addr>{*rib::parse_ip6("fc00:0:2::100")});

    // C4: NHG mode again: the same routes, now through objects; nothing to sweep.
    EXPECT_EQ(replay(conn[3]), 0u);
    EXPECT_EQ(rib.routes().size(), 7u);
    EXPECT_EQ(nh_ids(rib), (std::vector<uint32_t>{4, 5, 6, 13, 14, 16, 18, 20, 25}));
    expect_all_resolved(rib);
    const snapshot after_c4(rib);

    // C5: the same replay on a new connection is no change at all.
    rib.begin_resync();
    EXPECT_EQ(apply_frames(conn[4], rib, 0, c5_replay_end), 0u);
    EXPECT_EQ(rib.sweep(), 0u);
    EXPECT_EQ(snapshot(rib), after_c4);

    // zebra stops: staticd and sharpd withdraw their routes and objects first.
    EXPECT_EQ(apply_frames(conn[4], rib, c5_replay_end), 6u);
    EXPECT_EQ(route_keys(rib), sorted({key("10.0.1.0/24"), key("10.0.2.0/24"), key("fc00:1::/64"),
                                       key("fe80::/64")}));
    EXPECT_EQ(nh_ids(rib), (std::vector<uint32_t>{4, 5, 6, 16, 18, 20}));
    expect_all_resolved(rib);
    EXPECT_EQ(rib.counters().route_delete_unknown, 0u);
    EXPECT_EQ(rib.counters().nh_delete_unknown, 0u);
    EXPECT_EQ(rib.counters().resyncs, 5u);
}

// a-static (NHG mode): 8.4.4 sends every route update as DELROUTE + NEWROUTE in one frame.
TEST(ApplyCapture, UpdatePairsAreReplaces) {
    ingest_stats stats;
    const auto frames = read_stream(capture_dir("a-static") + "/nhg-c1.bin", stats);
    ASSERT_EQ(errors(stats), 0u);
    ASSERT_EQ(frames.size(), 73u);
    rib::store rib;
    for (size_t i = 0; i < frames.size(); ++i) {
        const bool changed = apply_batch(frames[i].updates, rib);
        switch (i) {
        case 31:  // after the blackhole/reject routes of STEP3 and STEP5
            for (const char* d : {"203.0.113.0/25", "203.0.113.128/25", "100.64.0.0/16", "2001:db8:dead::/48"})
                EXPECT_EQ(rib.resolve(*rib.find_route(key(d))).state, rib::resolve_state::no_paths) << d;
            break;
        case 37:  // DEL+NEW 192.0.2.0/24 -> group 20 = {16, 21}
            EXPECT_TRUE(changed);
            EXPECT_EQ(rib.find_route(key("192.0.2.0/24"))->nh_id, 20u);
            EXPECT_EQ(rib.resolve(*rib.find_route(key("192.0.2.0/24"))).paths.size(), 2u);
            break;
        case 57:  // DEL+NEW 10.98.0.0/16 with the content it already had (frame 56)
            EXPECT_FALSE(changed);
            EXPECT_EQ(rib.find_route(key("10.98.0.0/16"))->nh_id, 29u);
            break;
        default:
            break;
        }
    }
    // Every delete (table 100/1000 ones included) matched a route it had installed, and the
    // pairs did not count as deletes: 17 plain RTM_DELROUTEs in the stream.
    EXPECT_EQ(rib.counters().route_delete_unknown, 0u);
    EXPECT_EQ(rib.counters().route_deletes, 17u);
    EXPECT_EQ(route_keys(rib), sorted({key("10.0.1.0/24"), key("10.0.2.0/24"), key("fc00:1::/64"),
                                       key("fe80::/64")}));
}

// The listener's form: contents move into the RIB. Same RIB, same change results, every frame;
// keys and ids stay readable in the batch afterwards (the listener's hook gets it).
TEST(ApplyCapture, ConsumingABatchGivesTheSameRib) {
    for (const char* scenario : {"a-static", "f-reconnect"}) {
        ingest_stats stats;
        const std::string file = std::string(scenario) == "a-static" ? "/nhg-c1.bin" : "/fpm-c3.bin";
        auto frames = read_stream(capture_dir(scenario) + file, stats);
        ASSERT_EQ(errors(stats), 0u);
        rib::store copied, moved;
        for (auto& f : frames) {
            std::vector<rib::route_key> keys;
            for (const auto& u : f.updates)
                if (const auto* r = std::get_if<route_upsert>(&u.body))
                    keys.push_back(r->route.key);
            const bool a = apply_batch(f.updates, copied);
            EXPECT_EQ(apply_batch_consume(f.updates, moved), a) << scenario << " @" << f.offset;
            std::vector<rib::route_key> after;
            for (const auto& u : f.updates)
                if (const auto* r = std::get_if<route_upsert>(&u.body))
                    after.push_back(r->route.key);
            EXPECT_EQ(after, keys);
        }
        EXPECT_TRUE(copied.routes() == moved.routes()) << scenario;
        EXPECT_EQ(copied.nexthops(), moved.nexthops()) << scenario;
        EXPECT_EQ(copied.version(), moved.version()) << scenario;
    }
}

}  // namespace
}  // namespace fpm
