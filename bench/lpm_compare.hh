// bench_dpdk_fib_bench's comparison of srv6d's compiled LPM (fib::lpm_builder -> lpm_index) with
// DPDK's rte_lpm, rte_fib (DIR24_8), rte_lpm6 and rte_fib6 (TRIE) on the same prefixes and the
// same query addresses: TSC cycles per address, bulk lookups in bursts of 32 (what a worker
// does), best of 5 passes after a warm-up. IPv6 queries are 16 network-order bytes for every
// table (srv6d's lookup6_bulk converts them to keys, as dataplane_view does).
#pragma once

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "fib/control/lpm_builder.hh"
#include "fib/datapath/mem.hh"
#include "fib/datapath/rcu.hh"

namespace bench {

// Best of 5 timed passes (after one warm-up) of `pass`, in cycles per address.
template <class F>
double best_cycles(size_t n, F&& pass) {
    double best = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
        const uint64_t a = rte_rdtsc_precise();
        pass();
        const uint64_t b = rte_rdtsc_precise();
        if (rep)
            best = std::min(best, static_cast<double>(b - a) / static_cast<double>(n));
    }
    return best;
}

struct lpm_row {
    std::string what;
    double cycles = -1;  // < 0: not built (say why in `note`)
    double mib = 0;
    std::string note;
};

inline void print_rows(const char* title, const std::vector<lpm_row>& rows) {
    std::printf("  %s\n", title);
    for (const auto& r : rows) {
        if (r.cycles < 0)
            std::printf("    %-34s %8s              %s\n", r.what.c_str(), "-", r.note.c_str());
        else
            std::printf("    %-34s %8.1f cycles/addr %8.2f MiB  %s\n", r.what.c_str(), r.cycles, r.mib, r.note.c_str());
    }
}

inline double heap_bytes() {
    rte_malloc_socket_stats st{};
    rte_malloc_get_socket_stats(0, &st);
    return static_cast<double>(st.heap_allocsz_bytes);
}

// IPv4: the same prefixes (addr host order, len) and queries in srv6d's LPM, rte_lpm, rte_fib.
inline std::vector<lpm_row> compare4(const std::vector<std::pair<uint32_t, uint8_t>>& routes,
                                     const std::vector<uint32_t>& q, bool dpdk_fib, const char* tag) {
    std::vector<lpm_row> rows;
    std::vector<uint32_t> out(q.size());
    {
        fib::lpm4_builder b;
        for (size_t i = 0; i < routes.size(); ++i)
            b.set(routes[i].first, routes[i].second, static_cast<uint32_t>(1 + i % 64));
        fib::retire_batch r;
        const int64_t m0 = fib::memory().bytes[0].load();
        const auto* t = b.publish(r);
        const double mib = static_cast<double>(fib::memory().bytes[0].load() - m0) / (1 << 20);
        lpm_row row{std::string("srv6d lpm_index ") + tag, 0, mib, ""};
        row.cycles = best_cycles(q.size(), [&] {
            for (size_t off = 0; off + 32 <= q.size(); off += 32)
                t->lookup_bulk(q.data() + off, out.data() + off, 32);
        });
        char note[96];
        std::snprintf(note, sizeof note, "%.1f B/route, %u chunks", mib * (1 << 20) / static_cast<double>(routes.size()),
                      t->chunk_count());
        row.note = note;
        rows.push_back(row);
        r.run();
        b.retire_all(r);
        r.run();
    }
    {
        const double h0 = heap_bytes();
        rte_lpm_config c{};
        c.max_rules = static_cast<uint32_t>(routes.size() + 16);
        c.number_tbl8s = static_cast<uint32_t>(std::min<size_t>(routes.size() / 4 + 256, 1u << 18));
        rte_lpm* l = rte_lpm_create((std::string("cmp_lpm_") + tag).c_str(), 0, &c);
        lpm_row row{std::string("rte_lpm (DIR24_8) ") + tag, -1, 0, ""};
        if (l) {
            size_t fail = 0;
            for (size_t i = 0; i < routes.size(); ++i)
                fail += rte_lpm_add(l, routes[i].first, routes[i].second, static_cast<uint32_t>(1 + i % 64)) != 0;
            row.mib = (heap_bytes() - h0) / (1 << 20);
            row.cycles = best_cycles(q.size(), [&] {
                for (size_t off = 0; off + 32 <= q.size(); off += 32)
                    rte_lpm_lookup_bulk(l, q.data() + off, out.data() + off, 32);
            });
            if (fail)
                row.note = std::to_string(fail) + " routes refused (tbl8 groups exhausted)";
            rte_lpm_free(l);
        } else {
            row.note = std::string("rte_lpm_create: ") + rte_strerror(rte_errno);
        }
        rows.push_back(row);
    }
    if (dpdk_fib) {
        const double h0 = heap_bytes();
        rte_fib_conf c{};
        c.type = RTE_FIB_DIR24_8;
        c.max_routes = static_cast<int>(routes.size() + 16);
        c.dir24_8.nh_sz = RTE_FIB_DIR24_8_4B;
        c.dir24_8.num_tbl8 = static_cast<uint32_t>(std::min<size_t>(routes.size() / 4 + 256, 1u << 17));
        rte_fib* f = rte_fib_create((std::string("cmp_fib_") + tag).c_str(), 0, &c);
        lpm_row row{std::string("rte_fib (DIR24_8) ") + tag, -1, 0, ""};
        if (f) {
            size_t fail = 0;
            for (size_t i = 0; i < routes.size(); ++i)
                fail += rte_fib_add(f, routes[i].first, routes[i].second, 1 + i % 64) != 0;
            row.mib = (heap_bytes() - h0) / (1 << 20);
            std::vector<uint64_t> o(q.size());
            row.cycles = best_cycles(q.size(), [&] {
                for (size_t off = 0; off + 32 <= q.size(); off += 32)
                    rte_fib_lookup_bulk(f, const_cast<uint32_t*>(q.data() + off), o.data() + off, 32);
            });
            if (fail)
                row.note = std::to_string(fail) + " routes refused (tbl8 groups exhausted)";
            rte_fib_free(f);
        } else {
            row.note = std::string("rte_fib_create: ") + rte_strerror(rte_errno);
        }
        rows.push_back(row);
    }
    return rows;
}

using addr6 = std::array<uint8_t, 16>;

// IPv6: the same in srv6d's LPM, rte_lpm6 (when `lpm6`) and rte_fib6.
inline std::vector<lpm_row> compare6(const std::vector<std::pair<fib::u128, uint8_t>>& routes, const std::vector<addr6>& q,
                                     bool lpm6, const char* tag) {
    std::vector<lpm_row> rows;
    std::vector<uint32_t> out(q.size());
    auto* qa = reinterpret_cast<uint8_t(*)[16]>(const_cast<uint8_t*>(q[0].data()));
    {
        fib::lpm6_builder b;
        for (size_t i = 0; i < routes.size(); ++i)
            b.set(routes[i].first, routes[i].second, static_cast<uint32_t>(1 + i % 64));
        fib::retire_batch r;
        const int64_t m0 = fib::memory().bytes[1].load();
        const auto* t = b.publish(r);
        const double mib = static_cast<double>(fib::memory().bytes[1].load() - m0) / (1 << 20);
        lpm_row row{std::string("srv6d lpm_index ") + tag, 0, mib, ""};
        row.cycles = best_cycles(q.size(), [&] {
            fib::u128 keys[32];
            for (size_t off = 0; off + 32 <= q.size(); off += 32) {
                for (size_t i = 0; i < 32; ++i)
                    keys[i] = fib::key6(q[off + i].data());
                t->lookup_bulk(keys, out.data() + off, 32);
            }
        });
        char note[96];
        std::snprintf(note, sizeof note, "%.1f B/route, %u chunks", mib * (1 << 20) / static_cast<double>(routes.size()),
                      t->chunk_count());
        row.note = note;
        rows.push_back(row);
        r.run();
        b.retire_all(r);
        r.run();
    }
    if (lpm6) {
        const double h0 = heap_bytes();
        rte_lpm6_config c{};
        c.max_rules = static_cast<uint32_t>(routes.size() + 16);
        c.number_tbl8s = static_cast<uint32_t>(std::min<size_t>(routes.size() * 8 + 256, 1u << 20));
        rte_lpm6* l = rte_lpm6_create((std::string("cmp_lpm6_") + tag).c_str(), 0, &c);
        lpm_row row{std::string("rte_lpm6 ") + tag, -1, 0, ""};
        if (l) {
            size_t fail = 0;
            for (size_t i = 0; i < routes.size(); ++i) {
                const auto a = fib::key6_bytes(routes[i].first);
                fail += rte_lpm6_add(l, a.data(), routes[i].second, static_cast<uint32_t>(1 + i % 64)) != 0;
            }
            row.mib = (heap_bytes() - h0) / (1 << 20);
            std::vector<int32_t> o(q.size());
            row.cycles = best_cycles(q.size(), [&] {
                for (size_t off = 0; off + 32 <= q.size(); off += 32)
                    rte_lpm6_lookup_bulk_func(l, qa + off, o.data() + off, 32);
            });
            if (fail)
                row.note = std::to_string(fail) + " routes refused";
            rte_lpm6_free(l);
        } else {
            row.note = std::string("rte_lpm6_create: ") + rte_strerror(rte_errno);
        }
        rows.push_back(row);
    }
    {
        const double h0 = heap_bytes();
        rte_fib6_conf c{};
        c.type = RTE_FIB6_TRIE;
        c.max_routes = static_cast<int>(routes.size() + 16);
        c.trie.nh_sz = RTE_FIB6_TRIE_4B;
        c.trie.num_tbl8 = static_cast<uint32_t>(std::min<size_t>(routes.size() * 6 + 256, 1u << 19));
        rte_fib6* f = rte_fib6_create((std::string("cmp_fib6_") + tag).c_str(), 0, &c);
        lpm_row row{std::string("rte_fib6 (TRIE) ") + tag, -1, 0, ""};
        if (f) {
            size_t fail = 0;
            for (size_t i = 0; i < routes.size(); ++i) {
                const auto a = fib::key6_bytes(routes[i].first);
                fail += rte_fib6_add(f, a.data(), routes[i].second, 1 + i % 64) != 0;
            }
            row.mib = (heap_bytes() - h0) / (1 << 20);
            std::vector<uint64_t> o(q.size());
            row.cycles = best_cycles(q.size(), [&] {
                for (size_t off = 0; off + 32 <= q.size(); off += 32)
                    rte_fib6_lookup_bulk(f, qa + off, o.data() + off, 32);
            });
            if (fail)
                row.note = std::to_string(fail) + " routes refused (tbl8 groups exhausted)";
            rte_fib6_free(f);
        } else {
            row.note = std::string("rte_fib6_create: ") + rte_strerror(rte_errno);
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace bench
