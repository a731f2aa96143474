// The compiled tables (fib/) at PE scale. Three measurements, printed as a table for
// BENCHMARKS.md (run: build/bench/bench_fib_compile_bench [--quick]):
//   1. memory: 1 000 VRFs x (1 000 IPv4 + 1 000 IPv6 routes), exact bytes of the published
//      objects (fib/datapath/mem.hh counters) plus the process RSS;
//   2. updates per second into the compiled tables while a reader thread looks up without pause:
//      1 M updates (60 % replace, 20 % delete, 20 % add) spread over the VRFs, and the same into
//      one 1 M-route VRF, applied in batches and compiled after each batch; the control thread's
//      CPU time is split between the RIB and the compiler (each batch's updates are drawn and
//      built before the clock starts); SRV6D_BENCH_BATCH=N runs one batch size;
//   3. lookup cost in TSC cycles per address (rte_rdtsc), bulk (bursts of 32) and one by one,
//      for the big default VRF and a 1 000-route customer VRF.
// Also [2c]: the IPv4 LPM alone (lpm_builder set/erase + publish), without the RIB and the compiler.
// Prefix distribution (per VRF, random addresses): IPv4 inside 10.0.0.0/8 with /24 60 %,
// /20-/23 20 %, /16-/19 10 %, /25-/32 10 %; IPv6 inside 2001:db8::/32 with /48 50 %, /56 20 %,
// /64 25 %, /128 5 %. Each customer VRF has 4 headend nexthops per family (4 remote PEs, one
// uDT SID each, H.Encaps.Red); the big VRF 64 forward nexthops and 16 two-way ECMP groups.
#include <rte_cycles.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "fib/datapath/mem.hh"
#include "prefix_gen.hh"
#include "table_reader.hh"

namespace {

using namespace fib;

double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

long rss_kib() {
    std::ifstream f("/proc/self/status");
    for (std::string line; std::getline(f, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stol(line.substr(6));
    return 0;
}

double tsc_hz() {
    const uint64_t t0 = rte_rdtsc();
    const double w0 = wall_now();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return static_cast<double>(rte_rdtsc() - t0) / (wall_now() - w0);
}

using bench::random_prefix;

rib::nexthop headend_path(uint32_t pe, uint32_t vrf) {
    rib::nexthop n;
    n.ifindex = 2 + pe % 2;
    n.gateway = rib::ip_addr(*rib::parse_ip6("fe80::1"));
    rib::ip6_addr sid = *rib::parse_ip6("fc00:0:0:e000::");
    sid.bytes[5] = static_cast<uint8_t>(pe + 1);
    sid.bytes[6] = static_cast<uint8_t>(vrf >> 8);
    sid.bytes[7] = static_cast<uint8_t>(vrf);
    n.seg6 = rib::seg6_encap{rib::encap_mode::encap_red, {sid}, std::nullopt, {}};
    return n;
}

std::vector<rib::nexthop> core_paths(uint32_t i) {
    auto f = [](uint32_t k) {
        rib::nexthop n;
        n.ifindex = 2 + k % 4;
        rib::ip4_addr g;
        g.bytes = {192, 0, 2, static_cast<uint8_t>(k % 64 + 1)};
        n.gateway = rib::ip_addr(g);
        return n;
    };
    if (i % 5 == 0)
        return {f(i), f(i + 1)};
    return {f(i)};
}

struct world {
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    qsbr_domain rcu{4};
    compiler c{rcu};
    std::vector<vrf::vrf_id> ids;  // [0] = default
    world() { (void)src.set_configured(*rib::parse_ip6("2001:db8::1")); }
};

void print_mem(const char* what) {
    const auto& m = memory();
    auto mib = [&](mem_kind k) { return static_cast<double>(m.bytes[static_cast<size_t>(k)].load()) / (1 << 20); };
    std::printf("  %-34s lpm4 %7.2f MiB  lpm6 %7.2f MiB  nexthops %6.2f MiB  view %5.2f MiB  | RSS %7.1f MiB\n", what,
                mib(mem_kind::lpm4), mib(mem_kind::lpm6), mib(mem_kind::nexthop), mib(mem_kind::view),
                static_cast<double>(rss_kib()) / 1024);
}

struct churn_result {
    double wall = 0, cpu_rib = 0, cpu_compile = 0;
    uint64_t reader_lookups = 0;
    size_t publications = 0;
};

// 1 M updates in batches; one reader thread looks up in random VRFs the whole time.
churn_result churn(world& w, size_t ops, size_t batch, const std::vector<rib::table_id>& tables,
                   std::vector<rib::route_key>& live, std::mt19937_64& rng, bool core) {
    // core = the big default VRF: wide prefixes, forward/ECMP paths; else customer VRFs.
    std::optional<bench::table_reader> reader;
    if (std::getenv("SRV6D_BENCH_NO_READER") == nullptr)
        reader.emplace(w.rcu, w.c.cell(), w.ids);
    churn_result res;
    const size_t publications0 = w.c.stats().publications;
    // One batch of updates is drawn before it is timed: the RIB's CPU time is the RIB's, not the
    // random draws' and the building of the route objects' (the FPM decoder's job in srv6d).
    struct op {
        bool del;
        rib::route rt;
    };
    std::vector<op> ops_batch;
    ops_batch.reserve(batch);
    for (size_t done = 0; done < ops;) {
        ops_batch.clear();
        for (size_t i = 0; i < batch && done < ops; ++i, ++done) {
            const unsigned dice = static_cast<unsigned>(rng() % 10);
            if (dice < 2 && !live.empty()) {
                const size_t j = rng() % live.size();
                rib::route del;
                del.key = live[j];
                ops_batch.push_back({true, std::move(del)});
                live[j] = live.back();
                live.pop_back();
                continue;
            }
            rib::route rt;
            if (dice < 8 && !live.empty()) {
                rt.key = live[rng() % live.size()];
            } else {
                rt.key.table = tables[rng() % tables.size()];
                rt.key.dst = random_prefix(core ? (rng() % 6 ? rib::family::ipv4 : rib::family::ipv6)
                                                : (rng() % 2 ? rib::family::ipv4 : rib::family::ipv6),
                                           rng, core);
                live.push_back(rt.key);  // a duplicate key is a replace; the list keeps both copies
            }
            rt.protocol = rib::proto::bgp;
            const auto k = static_cast<uint32_t>(rng());
            if (core)
                rt.nexthops = core_paths(k % 64);
            else
                rt.nexthops = {headend_path(k % 4, rt.key.table)};
            ops_batch.push_back({false, std::move(rt)});
        }
        const double wb = wall_now();
        const double c0 = cpu_now();
        for (size_t i = 0; i < ops_batch.size(); ++i) {
            // as fpm::apply_batch does: the probes of later updates prefetched
            if (i + 8 < ops_batch.size())
                w.r.prefetch_route(ops_batch[i + 8].rt.key, 0);
            if (i + 4 < ops_batch.size())
                w.r.prefetch_route(ops_batch[i + 4].rt.key, 1);
            op& o = ops_batch[i];
            if (o.del)
                w.r.delete_route(o.rt.key);
            else
                w.r.upsert_route(std::move(o.rt));
        }
        const double c1 = cpu_now();
        w.c.compile(w.r, w.reg, w.src);
        res.cpu_rib += c1 - c0;
        res.cpu_compile += cpu_now() - c1;
        res.wall += wall_now() - wb;
    }
    res.reader_lookups = reader ? reader->stop() : 0;
    res.publications = w.c.stats().publications - publications0;
    return res;
}

void report_churn(const char* what, size_t ops, size_t batch, const churn_result& r) {
    std::printf("  %-30s batch %6zu: wall %6.2f s = %8.0f upd/s | CPU: RIB %5.2f s, compile %5.2f s -> "
                "compiled tables %8.0f upd/s, RIB+compile %8.0f upd/s | %zu publications, reader %.1f M lookups\n",
                what, batch, r.wall, static_cast<double>(ops) / r.wall, r.cpu_rib, r.cpu_compile,
                static_cast<double>(ops) / r.cpu_compile, static_cast<double>(ops) / (r.cpu_rib + r.cpu_compile),
                r.publications, static_cast<double>(r.reader_lookups) / 1e6);
}

template <class K>
void lookup_cycles(const char* what, const lpm_index<K>* t, const std::vector<K>& addrs, double hz) {
    std::vector<uint32_t> out(addrs.size());
    // warm-up, then the best of 20 (the VM is shared with other builds; noise only adds cycles)
    double best_bulk = 1e30, best_single = 1e30;
    uint64_t sink = 0;
    for (int rep = 0; rep < 21; ++rep) {
        uint64_t t0 = rte_rdtsc();
        for (size_t off = 0; off < addrs.size(); off += 32)
            t->lookup_bulk(addrs.data() + off, out.data() + off, 32);
        uint64_t t1 = rte_rdtsc();
        for (size_t i = 0; i < addrs.size(); ++i) {
            sink += t->lookup(addrs[i]);
            asm volatile("" : "+r"(sink));  // keep every lookup
        }
        uint64_t t2 = rte_rdtsc();
        if (rep == 0)
            continue;
        best_bulk = std::min(best_bulk, static_cast<double>(t1 - t0) / static_cast<double>(addrs.size()));
        best_single = std::min(best_single, static_cast<double>(t2 - t1) / static_cast<double>(addrs.size()));
    }
    asm volatile("" : : "r"(sink), "r"(out.data()) : "memory");
    std::printf("  %-44s %8.1f cycles/lookup bulk (%5.1f ns), %8.1f single (%5.1f ns)  [%u chunks, %lu routes]\n",
                what, best_bulk, best_bulk / hz * 1e9, best_single, best_single / hz * 1e9, t->chunk_count(),
                static_cast<unsigned long>(t->routes()));
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const size_t n_vrfs = quick ? 100 : 1000;
    const size_t per_vrf = 1000;
    const size_t ops = quick ? 100'000 : 1'000'000;
    // SRV6D_BENCH_ONLY=vrfs|big|lpm|publish runs one part (profiling); unset runs everything.
    // SRV6D_BENCH_ONLY=biglookup: the big default VRF loaded and compiled, its lookups measured,
    // without the churn runs (under a minute).
    const char* only_env = std::getenv("SRV6D_BENCH_ONLY");
    const std::string only = only_env ? only_env : "";
    auto run = [&](const char* part) { return only.empty() || only == part; };
    // SRV6D_BENCH_BATCH=N runs the churn parts ([2], [2b]) at that one batch size (profiling).
    std::vector<size_t> batches{1000, 10000, 100000};
    if (const char* b = std::getenv("SRV6D_BENCH_BATCH"))
        batches = {static_cast<size_t>(std::strtoul(b, nullptr, 10))};
    const double hz = tsc_hz();
    std::printf("srv6d fibc bench: %zu VRFs x (%zu v4 + %zu v6), %zu updates per churn run, TSC %.0f MHz\n", n_vrfs,
                per_vrf, per_vrf, ops, hz / 1e6);

    std::mt19937_64 rng(1);
    if (run("vrfs")) {
    // --- 1. memory for many customer VRFs
    std::printf("\n[1] memory: %zu VRFs x %zu routes per rib::family\n", n_vrfs, per_vrf);
    print_mem("empty process");
    auto w = std::make_unique<world>();
    std::vector<rib::table_id> tables;
    std::vector<vrf::vrf_spec> specs;
    for (size_t v = 0; v < n_vrfs; ++v) {
        tables.push_back(static_cast<rib::table_id>(1000 + v));
        specs.push_back({"c" + std::to_string(v), tables.back(), {}, std::nullopt});
    }
    (void)w->reg.sync(vrf::source::config, specs);
    w->ids.push_back(0);
    for (const auto& s : specs)
        w->ids.push_back(w->reg.find(s.name)->id);
    std::vector<rib::route_key> live;
    double c0 = cpu_now();
    for (rib::table_id t : tables)
        for (rib::family af : {rib::family::ipv4, rib::family::ipv6})
            for (size_t i = 0; i < per_vrf; ++i) {
                rib::route rt;
                rt.key.table = t;
                rt.key.dst = random_prefix(af, rng);
                rt.protocol = rib::proto::bgp;
                rt.nexthops = {headend_path(static_cast<uint32_t>(i % 4), t)};
                live.push_back(rt.key);
                w->r.upsert_route(std::move(rt));
            }
    double c1 = cpu_now();
    w->c.compile(w->r, w->reg, w->src);
    double c2 = cpu_now();
    std::printf("  load: RIB %.2f s, first compile %.2f s (%.0f routes/s)\n", c1 - c0, c2 - c1,
                static_cast<double>(w->r.routes().size()) / (c2 - c1));
    print_mem("after compile");
    {
        const auto& m = memory();
        const double tables_bytes = static_cast<double>(m.bytes[0].load() + m.bytes[1].load());
        std::printf("  per VRF: %.1f KiB of LPM (v4 + v6), %.1f bytes per route\n",
                    tables_bytes / static_cast<double>(n_vrfs) / 1024,
                    tables_bytes / static_cast<double>(w->r.routes().size()));
    }

    // --- 2. updates per second, readers running
    std::printf("\n[2] updates into the compiled tables, 1 reader thread looking up continuously\n");
    for (size_t batch : batches) {
        auto r = churn(*w, ops, batch, tables, live, rng, false);
        report_churn("customer VRFs (spread)", ops, batch, r);
    }
    print_mem("after churn");

    // The churn over, srv6d's pacer compiles again until the quiet tables are flat.
    {
        const double s0 = cpu_now();
        size_t settle_compiles = 0;
        for (; w->c.settling(); ++settle_compiles)
            w->c.compile(w->r, w->reg, w->src);
        std::printf("  settled: %zu compiles without changes flattened the quiet tables in %.1f ms CPU\n",
                    settle_compiles, (cpu_now() - s0) * 1e3);
    }
    // Customer VRF lookup cost, before the big world replaces this one.
    std::printf("\n[3] lookup cost (TSC cycles per address; best of 20 passes over 1 M random addresses)\n");
    {
        const dataplane_view* v = w->c.current();
        const auto& t = v->tables(w->ids[1]);
        std::vector<uint32_t> a4(1 << 20);
        std::vector<u128> a6(1 << 20);
        std::mt19937_64 q(5);
        for (auto& x : a4)
            x = (10u << 24) | static_cast<uint32_t>(q() & 0xffffff);
        for (auto& x : a6)
            x = (u128{0x20010db8} << 96) | (u128{q()} << 32) | u128{q() & 0xffffffff};
        lookup_cycles("customer VRF, IPv4 (1 000 routes)", t.v4, a4, hz);
        lookup_cycles("customer VRF, IPv6 (1 000 routes)", t.v6, a6, hz);
    }
    w.reset();
    }

    if (run("big") || only == "biglookup") {
    // --- big default VRF
    std::printf("\n[2b] one big VRF (default): %s IPv4 + %s IPv6 routes\n", quick ? "100 k" : "1 M",
                quick ? "20 k" : "200 k");
    auto big = std::make_unique<world>();
    big->ids.push_back(0);
    std::vector<rib::route_key> blive;
    double c0 = cpu_now();
    for (size_t i = 0; i < (quick ? 100'000u : 1'000'000u); ++i) {
        rib::route rt;
        rt.key.dst = random_prefix(rib::family::ipv4, rng, true);
        rt.protocol = rib::proto::bgp;
        rt.nexthops = core_paths(static_cast<uint32_t>(i % 64));
        blive.push_back(rt.key);
        big->r.upsert_route(std::move(rt));
    }
    for (size_t i = 0; i < (quick ? 20'000u : 200'000u); ++i) {
        rib::route rt;
        rt.key.dst = random_prefix(rib::family::ipv6, rng, true);
        rt.protocol = rib::proto::bgp;
        rt.nexthops = core_paths(static_cast<uint32_t>(i % 64));
        blive.push_back(rt.key);
        big->r.upsert_route(std::move(rt));
    }
    double c1 = cpu_now();
    big->c.compile(big->r, big->reg, big->src);
    double c2 = cpu_now();
    std::printf("  load: RIB %.2f s, first compile %.2f s (%.0f routes/s)\n", c1 - c0, c2 - c1,
                static_cast<double>(big->r.routes().size()) / (c2 - c1));
    print_mem("big VRF compiled");
    for (size_t batch : batches) {
        if (only == "biglookup")
            break;
        auto r = churn(*big, ops, batch, {rib::main_table}, blive, rng, true);
        report_churn("default VRF (1 M routes)", ops, batch, r);
    }
    {
        const dataplane_view* v = big->c.current();
        const auto& t = v->tables(0);
        std::vector<uint32_t> a4(1 << 20);
        std::vector<u128> a6(1 << 20);
        std::mt19937_64 q(6);
        for (auto& x : a4)
            x = static_cast<uint32_t>(1 + q() % 223) << 24 | static_cast<uint32_t>(q() & 0xffffff);
        for (auto& x : a6)
            x = (u128{0x2} << 124) | (u128{q() & 0x0fffffff} << 96) | (u128{q()} << 32) | u128{q() & 0xffffffff};
        std::printf("\n[3b] lookup cost, big default VRF\n");
        lookup_cycles("default VRF, IPv4", t.v4, a4, hz);
        lookup_cycles("default VRF, IPv6", t.v6, a6, hz);
    }
    }
    // One customer VRF's table published again and again with a few changes each time: what a
    // publication costs per table (flat tables are rebuilt whole, two-level ones per chunk).
    if (run("publish")) {
        std::printf("\n[2d] publication of one customer VRF table (1 000 routes), CPU per publish\n");
        auto one = [&](auto tag, rib::family af, const char* what) {
            using K = decltype(tag);
            lpm_builder<K> b;
            retire_batch r;
            std::vector<std::pair<K, uint8_t>> keys;
            auto key_of = [](const rib::prefix& p) {
                if constexpr (sizeof(K) == 4)
                    return key4(p.bytes.data());
                else
                    return key6(p.bytes.data());
            };
            for (size_t i = 0; i < 1000; ++i) {
                const auto p = random_prefix(af, rng);
                keys.emplace_back(key_of(p), p.len);
                b.set(keys.back().first, keys.back().second, static_cast<uint32_t>(1 + i % 4));
            }
            b.publish(r);
            r.run();
            for (size_t changes : {1ul, 5ul, 50ul}) {
                const size_t reps = 20000;
                const double t0 = cpu_now();
                for (size_t n = 0; n < reps; ++n) {
                    for (size_t i = 0; i < changes; ++i) {
                        auto& k = keys[rng() % keys.size()];
                        b.set(k.first, k.second, static_cast<uint32_t>(1 + rng() % 4));
                    }
                    b.publish(r);
                    r.run();
                }
                const double t = cpu_now() - t0;
                std::printf("  %-12s %5zu intervals, %2zu changes per publish: %6.2f us per publish (changes included)  [%u chunks]\n",
                            what, b.intervals(), changes, t / static_cast<double>(reps) * 1e6, b.published()->chunk_count());
            }
            b.retire_all(r);
        };
        one(uint32_t{}, rib::family::ipv4, "IPv4");
        one(u128{}, rib::family::ipv6, "IPv6");
    }
    // The LPM alone (no RIB, no compiler bookkeeping): what the table structure costs per update.
    if (run("lpm")) {
        std::printf("\n[2c] the IPv4 LPM alone (lpm4_builder, no readers): %s routes, %zu updates, publish per batch\n",
                    quick ? "100 k" : "1 M", ops);
        lpm4_builder b;
        retire_batch r;
        std::vector<std::pair<uint32_t, uint8_t>> keys;
        for (size_t i = 0; i < (quick ? 100'000u : 1'000'000u); ++i) {
            const auto p = random_prefix(rib::family::ipv4, rng, true);
            keys.emplace_back(key4(p.bytes.data()), p.len);
            b.set(keys.back().first, keys.back().second, static_cast<uint32_t>(1 + i % 64));
        }
        b.publish(r);
        r.run();
        for (size_t batch : {1000ul, 10000ul, 100000ul}) {
            const double t0 = cpu_now();
            for (size_t done = 0; done < ops;) {
                for (size_t i = 0; i < batch && done < ops; ++i, ++done) {
                    // 20 % deletes (the slot then names a new prefix, added by a later set),
                    // 80 % adds or replaces: one route change each.
                    auto& k = keys[rng() % keys.size()];
                    if (rng() % 5 == 0) {
                        b.erase(k.first, k.second);
                        const auto p = random_prefix(rib::family::ipv4, rng, true);
                        k = {key4(p.bytes.data()), p.len};
                    } else {
                        b.set(k.first, k.second, static_cast<uint32_t>(1 + rng() % 64));
                    }
                }
                b.publish(r);
                r.run();  // no readers here: free at once
            }
            const double t = cpu_now() - t0;
            std::printf("  lpm4_builder, %zu routes           batch %6zu: CPU %5.2f s -> %8.0f upd/s (%.2f us each)\n",
                        b.routes(), batch, t, static_cast<double>(ops) / t, t / static_cast<double>(ops) * 1e6);
        }
        b.retire_all(r);
    }
    return 0;
}
