// Readers look up continuously while the control thread adds, replaces and deletes routes
// (1 M operations; 400 k under ASan, 150 k in an unoptimised ASan build; SRV6D_CONCURRENCY_OPS
// overrides), flips the encapsulation source and binds and unbinds a VRF that SIDs decapsulate
// into. Every reader registers with the QSBR domain and reports a quiescent state between bursts.
// What a reader must never see:
//   - a nexthop that is not intact (magic + checksum: half-built, or freed and poisoned);
//   - an index beyond the snapshot's nexthop pages, or an LPM that is not intact;
//   - two headend templates with different sources in one snapshot (a flip is atomic);
//   - a wrong answer for the routes that never change.
// Afterwards the published tables are compared with a naive LPM over the final RIB.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <time.h>

#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "fib/control/encap_build.hh"
#include "fib/datapath/lpm_key.hh"

#if defined(__SANITIZE_ADDRESS__)
#define SRV6D_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SRV6D_ASAN 1
#endif
#endif

namespace fib {
namespace SRV6D_UNITY_ID {

constexpr int n_vrfs = 8;           // tables 100..107, vrf "t100".. "t107"
constexpr uint32_t stable_if = 900;  // stable routes: ifindex 900 + vrf id (v4), 950 + vrf id (v6)

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }
const rib::ip6_addr src_a = a6("2001:db8:a::1");
const rib::ip6_addr src_b = a6("2001:db8:b::1");

size_t total_ops() {
    if (const char* e = std::getenv("SRV6D_CONCURRENCY_OPS"))
        return std::strtoull(e, nullptr, 10);
#if defined(SRV6D_ASAN) && !defined(__OPTIMIZE__)
    return 150'000;  // the project's sanitizer build is a Debug build: about 10x slower again
#elif defined(SRV6D_ASAN)
    return 400'000;
#else
    return 1'000'000;
#endif
}

struct reader_result {
    uint64_t bursts = 0, lookups = 0, errors = 0;
    std::string first_error;
};

rib::prefix make_prefix(rib::family af, std::mt19937_64& rng, bool stable, int vrf) {
    rib::prefix p;
    p.af = af;
    if (af == rib::family::ipv4) {
        if (stable) {
            p.len = 24;
            p.bytes[0] = 10;
            p.bytes[1] = 200;
            p.bytes[2] = static_cast<uint8_t>(vrf);
            return p;
        }
        p.len = static_cast<uint8_t>(16 + rng() % 17);
        const auto a = static_cast<uint32_t>(rng());
        const uint32_t k = (10u << 24) | (a & 0x007fffffu) | ((a >> 23 & 0x7f) << 16);  // 10.0/9
        const uint32_t m = k & prefix_mask<uint32_t>(p.len);
        for (int i = 0; i < 4; ++i)
            p.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(m >> (24 - 8 * i));
        return p;
    }
    p.bytes[0] = 0x20;
    p.bytes[1] = 0x01;
    p.bytes[2] = 0x0d;
    p.bytes[3] = 0xb8;
    if (stable) {
        p.len = 48;
        p.bytes[4] = 0xff;
        p.bytes[5] = static_cast<uint8_t>(vrf);
        return p;
    }
    p.len = static_cast<uint8_t>(40 + rng() % 89);  // /40 .. /128 inside 2001:db8:00xx::/40
    for (size_t i = 5; i < 16; ++i)
        p.bytes[i] = static_cast<uint8_t>(rng());
    p.bytes[4] = static_cast<uint8_t>(rng() % 0x80);
    const u128 m = key6(p.bytes.data()) & prefix_mask<u128>(p.len);
    p.bytes = key6_bytes(m);
    return p;
}

std::vector<rib::nexthop> random_paths(std::mt19937_64& rng) {
    auto fwd = [&](uint32_t i) {
        rib::nexthop n;
        n.ifindex = 10 + i % 8;
        rib::ip6_addr gw = a6("fe80::1");
        gw.bytes[15] = static_cast<uint8_t>(i);
        n.gateway = rib::ip_addr(gw);
        return n;
    };
    auto headend = [&](uint32_t i) {
        rib::nexthop n = fwd(i);
        rib::seg6_encap e;
        e.mode = i % 2 ? rib::encap_mode::encap : rib::encap_mode::encap_red;
        for (uint32_t s = 0; s <= i % 3; ++s) {
            rib::ip6_addr sid = a6("fc00:0:2::");
            sid.bytes[5] = static_cast<uint8_t>(2 + s);
            sid.bytes[15] = static_cast<uint8_t>(i);
            e.segments.push_back(sid);
        }
        n.seg6 = e;
        return n;
    };
    const uint32_t i = static_cast<uint32_t>(rng() % 32);
    switch (rng() % 4) {
    case 0: return {fwd(i)};
    case 1:
    case 2: return {headend(i)};
    default: {
        auto a = headend(i), b = fwd(i + 1);
        b.weight = static_cast<uint16_t>(1 + i % 3);
        return {a, b};
    }
    }
}

class concurrency : public ::testing::Test {
protected:
    qsbr_domain rcu{4};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
};

TEST_F(concurrency, readers_never_see_torn_or_freed_entries) {
    (void)src.set_configured(src_a);
    std::vector<vrf::vrf_id> vrf_ids{0};
    for (int v = 0; v < n_vrfs; ++v) {
        const std::string name = "t" + std::to_string(100 + v);
        ASSERT_TRUE(reg.set(vrf::source::config, {name, static_cast<rib::table_id>(100 + v), {}, std::nullopt}).ok());
        vrf_ids.push_back(reg.find(name)->id);
    }
    auto table_of = [](size_t v) { return v == 0 ? rib::main_table : static_cast<rib::table_id>(100 + v - 1); };
    std::mt19937_64 rng(2024);

    // Stable routes: one v4 /24 and one v6 /48 per VRF, never touched again.
    for (size_t v = 0; v < vrf_ids.size(); ++v) {
        for (rib::family af : {rib::family::ipv4, rib::family::ipv6}) {
            rib::route rt;
            rt.key.table = table_of(v);
            rt.key.dst = make_prefix(af, rng, true, static_cast<int>(vrf_ids[v]));
            rib::nexthop n;
            n.ifindex = (af == rib::family::ipv4 ? stable_if : stable_if + 50) + vrf_ids[v];
            rt.nexthops = {n};
            r.upsert_route(rt);
        }
    }
    // SIDs decapsulating into t100 (End.DT6 TABLE, End.DT46 VRFTABLE), flipping with the binding.
    for (int s = 0; s < 16; ++s) {
        rib::route rt;
        rt.key.dst = *rib::parse_prefix("fc00:0:1:e000::/64");
        rt.key.dst.bytes[7] = static_cast<uint8_t>(s);
        rib::nexthop n;
        n.ifindex = 1;
        rib::seg6local l;
        l.action = s % 2 ? rib::behavior::end_dt6 : rib::behavior::end_dt46;
        (s % 2 ? l.table : l.vrftable) = 100;
        n.local = l;
        rt.nexthops = {n};
        r.upsert_route(rt);
    }
    compiler c(rcu);
    ASSERT_TRUE(c.compile(r, reg, src));

    std::atomic<bool> stop{false};
    std::vector<reader_result> results(2);
    auto reader = [&](uint32_t id) {
        pthread_setname_np(pthread_self(), ("reader" + std::to_string(id)).c_str());
        qsbr_reader q(rcu, id);
        std::mt19937_64 rr(id + 1);
        reader_result& res = results[id];
        auto fail = [&](const std::string& what) {
            if (res.errors++ == 0)
                res.first_error = what;
        };
        uint32_t a4[32], nh4[32], nh6[32];
        uint8_t a6b[32][16];
        for (uint64_t loads = 0; !stop.load(std::memory_order_relaxed); ++loads) {
          // One snapshot serves several bursts (a worker's loop between quiescent states), so
          // that a snapshot freed too early is still being read when the poison lands.
          const dataplane_view* v = c.cell().load();
          std::optional<rib::ip6_addr> snapshot_src;
          for (int round = 0; round < 4; ++round) {
            ++res.bursts;
            if (!v->intact()) {
                fail("view not intact");
                break;
            }
            const size_t vi = rr() % vrf_ids.size();
            const vrf::vrf_id vrf = vrf_ids[vi];
            const bool flapping = vi == 1;  // t100 is unbound and bound again: its routes come and go
            const auto& t = v->tables(vrf);
            if ((t.v4 && !t.v4->intact()) || (t.v6 && !t.v6->intact()))
                fail("lpm not intact");
            for (int i = 0; i < 32; ++i) {
                const bool stable = i < 4;
                const rib::prefix p4 = make_prefix(rib::family::ipv4, rr, stable, vrf);
                a4[i] = key4(p4.bytes.data()) | static_cast<uint32_t>(rr() & ~prefix_mask<uint32_t>(p4.len));
                rib::prefix p6 = make_prefix(rib::family::ipv6, rr, stable, vrf);
                if (i >= 28) {  // the SIDs, in the default VRF
                    p6 = *rib::parse_prefix("fc00:0:1:e000::/64");
                    p6.bytes[7] = static_cast<uint8_t>(rr() % 16);
                }
                const auto k = key6(p6.bytes.data()) | (u128{rr()} & ~prefix_mask<u128>(p6.len));
                const auto b = key6_bytes(k);
                std::copy(b.begin(), b.end(), a6b[i]);
            }
            v->lookup4_bulk(vrf, a4, nh4, 32);
            v->lookup6_bulk(vrf, a6b, nh6, 32);
            res.lookups += 64;
            auto check = [&](uint32_t idx, int depth, auto&& self) -> const compiled_nh* {
                if (idx >= v->nexthop_capacity()) {
                    fail("index " + std::to_string(idx) + " beyond the nexthop pages");
                    return nullptr;
                }
                const compiled_nh& n = v->nexthop(idx);
                if (!n.intact()) {
                    fail("nexthop " + std::to_string(idx) + " not intact");
                    return nullptr;
                }
                if (n.kind() == nh_kind::headend) {
                    rib::ip6_addr sa;
                    std::copy(n.encap_bytes().begin() + 8, n.encap_bytes().begin() + 24, sa.bytes.begin());
                    if (sa != src_a && sa != src_b)
                        fail("headend with an unknown source");
                    if (snapshot_src && *snapshot_src != sa)
                        fail("two sources in one snapshot");
                    snapshot_src = sa;
                }
                if (n.kind() == nh_kind::ecmp && depth == 0)
                    for (uint32_t s : n.slots())
                        self(s, 1, self);
                return &n;
            };
            for (int i = 0; i < 32; ++i) {
                const compiled_nh* n4 = check(nh4[i], 0, check);
                const compiled_nh* n6 = check(nh6[i], 0, check);
                if (i < 4 && !flapping) {
                    if (!n4 || n4->kind() != nh_kind::forward || n4->via().ifindex != stable_if + vrf)
                        fail("stable v4 route answered wrong in vrf " + std::to_string(vrf));
                    if (!n6 || n6->kind() != nh_kind::forward || n6->via().ifindex != stable_if + 50 + vrf)
                        fail("stable v6 route answered wrong in vrf " + std::to_string(vrf));
                    if (v->lookup4(vrf, a4[i]) != nh4[i])
                        fail("single and bulk lookups differ");
                }
                if (i >= 28 && vrf == 0 && n6 && n6->kind() != nh_kind::local_sid && n6->kind() != nh_kind::refused)
                    fail("a SID is neither active nor refused");
            }
          }
          q.quiescent();
          // On a 2-core machine the readers would starve the control thread; a worker owns
          // its core, a test thread shares it.
          if (loads % 8 == 7)
              std::this_thread::yield();
        }
    };
    std::thread t0(reader, 0), t1(reader, 1);

    // The control thread.
    struct live_route {
        rib::table_id table;
        rib::prefix dst;
    };
    std::vector<live_route> live;
    std::map<std::pair<rib::table_id, rib::prefix>, size_t> where;
    const size_t ops = total_ops();
    const size_t batch = 2000;  // 500 publications for 1 M operations
    size_t adds = 0, replaces = 0, deletes = 0, flips = 0, rebinds = 0;
    bool t100_bound = true;
    const auto t_start = std::chrono::steady_clock::now();
    timespec cpu0{}, cpu1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
    for (size_t done = 0, b = 0; done < ops; ++b) {
        for (size_t i = 0; i < batch && done < ops; ++i, ++done) {
            const unsigned dice = static_cast<unsigned>(rng() % 10);
            if (!live.empty() && dice < 3) {  // delete
                const size_t j = rng() % live.size();
                r.delete_route({live[j].table, live[j].dst, {}});
                where.erase({live[j].table, live[j].dst});
                live[j] = live.back();
                live.pop_back();
                if (j < live.size())
                    where[{live[j].table, live[j].dst}] = j;
                ++deletes;
                continue;
            }
            rib::route rt;
            if (!live.empty() && dice < 6) {  // replace: same key, other paths
                const auto& lr = live[rng() % live.size()];
                rt.key = {lr.table, lr.dst, {}};
                ++replaces;
            } else {
                const size_t v = rng() % vrf_ids.size();
                rt.key.table = table_of(v);
                rt.key.dst = make_prefix(rng() % 2 ? rib::family::ipv4 : rib::family::ipv6, rng, false, 0);
                if (where.emplace(std::make_pair(rt.key.table, rt.key.dst), live.size()).second)
                    live.push_back({rt.key.table, rt.key.dst});
                ++adds;
            }
            rt.protocol = rib::proto::bgp;
            rt.nexthops = random_paths(rng);
            r.upsert_route(std::move(rt));
        }
        if (b % 5 == 4) {
            (void)src.set_configured(src.global().addr == src_a ? src_b : src_a);
            ++flips;
        }
        if (b % 7 == 6) {
            if (t100_bound)
                ASSERT_TRUE(reg.remove(vrf::source::config, "t100"));
            else
                ASSERT_TRUE(reg.set(vrf::source::config, {"t100", 100, {}, std::nullopt}).ok());
            t100_bound = !t100_bound;
            ++rebinds;
        }
        c.compile(r, reg, src);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    const double cpu = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) + static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
    stop = true;
    t0.join();
    t1.join();

    for (const auto& res : results) {
        EXPECT_EQ(res.errors, 0u) << res.first_error;
        EXPECT_GT(res.bursts, 100u) << "the readers must actually have run";
    }
    std::printf("[ info ] %zu ops (%zu add, %zu replace, %zu delete) in %.1f s (control thread CPU %.1f s) with 2 readers; "
                "%zu source flips, %zu rebinds, %lu publications, %lu objects freed; readers: %lu + %lu lookups\n",
                ops, adds, replaces, deletes, secs, cpu, flips, rebinds,
                static_cast<unsigned long>(c.stats().publications), static_cast<unsigned long>(rcu.freed_objects()),
                static_cast<unsigned long>(results[0].lookups), static_cast<unsigned long>(results[1].lookups));
    EXPECT_GT(flips, 0u);
    EXPECT_GT(rebinds, 0u);

    // The final tables against a naive LPM over the final RIB.
    rcu.synchronize();
    const dataplane_view* v = c.current();
    std::mt19937_64 rq(99);
    for (int q = 0; q < 5000; ++q) {
        const size_t vi = rq() % vrf_ids.size();
        const rib::table_id t = table_of(vi);
        const vrf::vrf_id vrf = vrf_ids[vi];
        if (t == 100 && !t100_bound)
            continue;
        const rib::family af = rq() % 2 ? rib::family::ipv4 : rib::family::ipv6;
        rib::prefix probe = make_prefix(af, rq, false, 0);
        probe.len = rib::prefix::max_len(af);
        const rib::ip_addr addr = probe.addr();
        const rib::route* best = nullptr;
        for (int len = rib::prefix::max_len(af); len >= 0 && !best; --len)
            best = r.find_route({t, rib::prefix::make(addr, static_cast<uint8_t>(len)), {}});
        const uint32_t got = af == rib::family::ipv4 ? v->lookup4(vrf, key4(addr.bytes.data()))
                                                : v->lookup6(vrf, addr.bytes.data());
        const uint32_t want = best ? c.find(best->key)->nh : nh_miss;
        ASSERT_EQ(got, want) << to_string(addr) << " in table " << t;
    }
}

}  // namespace
}  // namespace fib
