// What DPDK 22.11's own LPMs cost on this machine, with the prefixes the fibc bench uses: the
// numbers behind the choice in docs/fib-compile.md. rte_fib (DIR24_8, 4-byte nexthops) with a
// full IPv4 table and rte_fib6 (TRIE, 4-byte nexthops) with 100 k IPv6 routes: heap bytes,
// add/delete CPU time per route, lookup cycles per address (bursts of 32, and 1 at a time).
// EAL: --no-huge (ordinary memory, no hugepage budget), so the tables' sizes are not capped.
// Then (first, [lpm]) srv6d's compiled LPM against rte_lpm / rte_fib / rte_lpm6 / rte_fib6 on
// the same prefixes and query addresses (bench/lpm_compare.hh): a 1 000-route customer VRF of
// each family and the big default VRF (1 M IPv4, 100 k IPv6 routes).
// Run: build/bench/bench_dpdk_fib_bench [--quick] [--huge] [--compare-only]
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_malloc.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

#include "forward/control/eal.hh"
#include "lpm_compare.hh"
#include "prefix_gen.hh"

namespace {

double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double heap_mib() {
    rte_malloc_socket_stats st{};
    rte_malloc_get_socket_stats(0, &st);
    return static_cast<double>(st.heap_allocsz_bytes) / (1 << 20);
}

double tsc_hz() {
    const uint64_t t0 = rte_rdtsc();
    const auto w0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    return static_cast<double>(rte_rdtsc() - t0) / s;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false, huge = false, compare_only = false;
    for (int i = 1; i < argc; ++i) {
        quick = quick || std::strcmp(argv[i], "--quick") == 0;
        huge = huge || std::strcmp(argv[i], "--huge") == 0;
        compare_only = compare_only || std::strcmp(argv[i], "--compare-only") == 0;
    }
    std::string err;
    // --huge: memfd hugepages (--in-memory), within the machine's shared 512 MiB budget.
    const std::vector<std::string> mem = huge ? std::vector<std::string>{"--in-memory"}
                                              : std::vector<std::string>{"--no-huge", "-m", "3072"};
    std::vector<std::string> args{"-l", "0", "--no-pci", "--no-telemetry", "--log-level=lib.eal:error"};
    args.insert(args.end(), mem.begin(), mem.end());
    if (!fwd::eal_init("dpdk_fib_bench", args, err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
    }
    const double hz = tsc_hz();
    const size_t n4 = quick ? 100'000 : 1'000'000, n6 = quick ? 20'000 : 100'000;
    {
        // --- [lpm] the same tables in srv6d's LPM and DPDK's
        std::mt19937_64 g(9);
        std::printf("[lpm] srv6d's compiled LPM vs DPDK's, same prefixes, same addresses, bursts of 32, TSC %.0f MHz\n",
                    hz / 1e6);
        auto routes4 = [&](size_t n, bool wide) {
            std::vector<std::pair<uint32_t, uint8_t>> v;
            for (size_t i = 0; i < n; ++i) {
                const auto p = bench::random_prefix(rib::family::ipv4, g, wide);
                v.emplace_back(fib::key4(p.bytes.data()), p.len);
            }
            return v;
        };
        auto routes6 = [&](size_t n, bool wide) {
            std::vector<std::pair<fib::u128, uint8_t>> v;
            for (size_t i = 0; i < n; ++i) {
                const auto p = bench::random_prefix(rib::family::ipv6, g, wide);
                v.emplace_back(fib::key6(p.bytes.data()), p.len);
            }
            return v;
        };
        // Queries: half uniform over the table's space, half inside its routes (so that deep
        // prefixes are walked too).
        auto q4 = [&](const std::vector<std::pair<uint32_t, uint8_t>>& r, bool wide) {
            std::vector<uint32_t> q(1 << 18);
            for (size_t i = 0; i < q.size(); ++i) {
                if (i % 2) {
                    const auto& x = r[g() % r.size()];
                    q[i] = x.first | (static_cast<uint32_t>(g()) & ~fib::prefix_mask<uint32_t>(x.second));
                } else {
                    q[i] = wide ? static_cast<uint32_t>(1 + g() % 223) << 24 | static_cast<uint32_t>(g() & 0xffffff)
                                : (10u << 24) | static_cast<uint32_t>(g() & 0xffffff);
                }
            }
            return q;
        };
        auto q6 = [&](const std::vector<std::pair<fib::u128, uint8_t>>& r, bool wide) {
            std::vector<bench::addr6> q(1 << 18);
            for (size_t i = 0; i < q.size(); ++i) {
                fib::u128 k;
                if (i % 2) {
                    const auto& x = r[g() % r.size()];
                    k = x.first | (((fib::u128{g()} << 64) | g()) & ~fib::prefix_mask<fib::u128>(x.second));
                } else {
                    const fib::u128 hi = wide ? (fib::u128{0x2} << 124) | (fib::u128{g() & 0x0fffffff} << 96)
                                              : fib::u128{0x20010db8} << 96;
                    k = hi | (fib::u128{g()} << 32) | fib::u128{g() & 0xffffffff};
                }
                q[i] = fib::key6_bytes(k);
            }
            return q;
        };
        const auto v4 = routes4(1000, false);
        bench::print_rows("customer VRF, 1 000 IPv4 routes (10.0.0.0/8)", bench::compare4(v4, q4(v4, false), false, "vrf4"));
        const auto v6 = routes6(1000, false);
        bench::print_rows("customer VRF, 1 000 IPv6 routes (2001:db8::/32)", bench::compare6(v6, q6(v6, false), true, "vrf6"));
        // A PE's default VRF (locators, SIDs, a few links): one chunk, what the headend's outer
        // lookup and the local SID lookup of the dataplane bench walk.
        const auto s6 = routes6(12, false);
        bench::print_rows("PE default VRF, 12 IPv6 routes (2001:db8::/32)", bench::compare6(s6, q6(s6, false), true, "pe6"));
        const auto b4 = routes4(n4, true);
        bench::print_rows("default VRF, IPv4 full table", bench::compare4(b4, q4(b4, true), true, "big4"));
        const auto b6 = routes6(n6, true);
        bench::print_rows("default VRF, IPv6 (2000::/4)", bench::compare6(b6, q6(b6, true), false, "big6"));
        std::printf("\n");
    }
    if (compare_only) {
        fwd::eal_cleanup();
        return 0;
    }
    std::mt19937_64 rng(3);
    std::printf("DPDK LPM bench: %zu IPv4 + %zu IPv6 routes, TSC %.0f MHz, %s\n", n4, n6, hz / 1e6,
                huge ? "2 MiB hugepages (--in-memory)" : "4 KiB pages (--no-huge)");

    // --- IPv4, rte_fib DIR24_8
    double h0 = heap_mib();
    rte_fib_conf c4{};
    c4.type = RTE_FIB_DIR24_8;
    c4.default_nh = 0;
    c4.max_routes = static_cast<int>(n4 + n4 / 4);
    c4.dir24_8.nh_sz = RTE_FIB_DIR24_8_4B;
    c4.dir24_8.num_tbl8 = huge ? 1 << 15 : 1 << 16;
    rte_fib* f4 = rte_fib_create("bench4", 0, &c4);
    if (!f4) {
        std::fprintf(stderr, "rte_fib_create: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    const double h_empty4 = heap_mib() - h0;
    std::vector<std::pair<uint32_t, uint8_t>> r4;
    for (size_t i = 0; i < n4; ++i) {
        const auto p = bench::random_prefix(rib::family::ipv4, rng, true);
        r4.emplace_back(fib::key4(p.bytes.data()), p.len);
    }
    double t0 = cpu_now();
    size_t fails = 0;
    for (size_t i = 0; i < r4.size(); ++i)
        fails += rte_fib_add(f4, r4[i].first, r4[i].second, 1 + i % 64) != 0;
    double t1 = cpu_now();
    std::printf("  rte_fib  IPv4: empty table %.1f MiB, with routes %.1f MiB; add %.0f ns/route CPU (%zu failed)\n",
                h_empty4, heap_mib() - h0, (t1 - t0) / static_cast<double>(r4.size()) * 1e9, fails);
    {
        std::vector<uint32_t> q(1 << 20);
        std::vector<uint64_t> out(q.size());
        for (auto& x : q)
            x = static_cast<uint32_t>(1 + rng() % 223) << 24 | static_cast<uint32_t>(rng() & 0xffffff);
        double best = 1e30;
        for (int rep = 0; rep < 6; ++rep) {
            const uint64_t a = rte_rdtsc();
            for (size_t off = 0; off < q.size(); off += 32)
                rte_fib_lookup_bulk(f4, q.data() + off, out.data() + off, 32);
            const uint64_t b = rte_rdtsc();
            if (rep)
                best = std::min(best, static_cast<double>(b - a) / static_cast<double>(q.size()));
        }
        std::printf("  rte_fib  IPv4 lookup: %.1f cycles/address (bursts of 32)\n", best);
    }
    t0 = cpu_now();
    for (size_t i = 0; i < r4.size() / 5; ++i)
        rte_fib_delete(f4, r4[i].first, r4[i].second);
    t1 = cpu_now();
    std::printf("  rte_fib  IPv4: delete %.0f ns/route CPU\n", (t1 - t0) / static_cast<double>(r4.size() / 5) * 1e9);
    rte_fib_free(f4);

    // --- IPv6, rte_fib6 TRIE
    h0 = heap_mib();
    rte_fib6_conf c6{};
    c6.type = RTE_FIB6_TRIE;
    c6.default_nh = 0;
    c6.max_routes = static_cast<int>(n6 + n6 / 4);
    c6.trie.nh_sz = RTE_FIB6_TRIE_4B;
    c6.trie.num_tbl8 = quick || huge ? 1 << 17 : 1 << 19;
    rte_fib6* f6 = rte_fib6_create("bench6", 0, &c6);
    if (!f6) {
        std::fprintf(stderr, "rte_fib6_create: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    const double h_empty6 = heap_mib() - h0;
    std::vector<std::pair<fib::u128, uint8_t>> r6;
    for (size_t i = 0; i < n6; ++i) {
        const auto p = bench::random_prefix(rib::family::ipv6, rng, true);
        r6.emplace_back(fib::key6(p.bytes.data()), p.len);
    }
    t0 = cpu_now();
    fails = 0;
    for (size_t i = 0; i < r6.size(); ++i) {
        const auto b = fib::key6_bytes(r6[i].first);
        fails += rte_fib6_add(f6, b.data(), r6[i].second, 1 + i % 64) != 0;
    }
    t1 = cpu_now();
    std::printf("  rte_fib6 IPv6: empty table %.1f MiB (%u tbl8 groups), with routes %.1f MiB; add %.0f ns/route CPU "
                "(%zu failed: tbl8 groups exhausted)\n",
                h_empty6, c6.trie.num_tbl8, heap_mib() - h0, (t1 - t0) / static_cast<double>(r6.size()) * 1e9, fails);
    {
        std::vector<std::array<uint8_t, 16>> q(1 << 18);
        std::vector<uint64_t> out(q.size());
        for (auto& x : q) {
            const auto& r = r6[rng() % r6.size()];
            x = fib::key6_bytes(r.first | (fib::u128{rng()} & ~fib::prefix_mask<fib::u128>(r.second)));
        }
        double best = 1e30;
        for (int rep = 0; rep < 6; ++rep) {
            const uint64_t a = rte_rdtsc();
            for (size_t off = 0; off < q.size(); off += 32)
                rte_fib6_lookup_bulk(f6, reinterpret_cast<uint8_t(*)[16]>(q[off].data()), out.data() + off, 32);
            const uint64_t b = rte_rdtsc();
            if (rep)
                best = std::min(best, static_cast<double>(b - a) / static_cast<double>(q.size()));
        }
        std::printf("  rte_fib6 IPv6 lookup: %.1f cycles/address (bursts of 32, addresses inside the routes)\n", best);
    }
    rte_fib6_free(f6);
    fwd::eal_cleanup();
    return 0;
}
