// Differential tests of the compiled LPM (lpm_builder + lpm_index) against a naive reference
// LPM: random prefixes of every length, random and boundary addresses, adds, replaces and
// deletes, v4 and v6, checked through the builder's mirror, the single lookup and the bulk lookup.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "fib/control/lpm_builder.hh"
#include "fib/control/prefix_map.hh"
#include "fib/datapath/rcu.hh"

namespace fib {
namespace SRV6D_UNITY_ID {

template <class K>
struct reference_lpm {
    std::map<std::pair<unsigned, K>, uint32_t> routes;  // (len, addr)
    // The prefix lengths in use, longest first (the map is ordered by length first). Searching
    // only those keeps the sanitizer build's IPv6 tests from doing 129 map searches per probe.
    std::vector<unsigned> lengths() const {
        std::vector<unsigned> out;
        for (auto it = routes.end(); it != routes.begin();) {
            out.push_back(std::prev(it)->first.first);
            it = routes.lower_bound({out.back(), K{0}});
        }
        return out;
    }
    uint32_t lookup(K x, const std::vector<unsigned>& lens) const {
        for (unsigned l : lens) {
            auto it = routes.find({l, static_cast<K>(x & prefix_mask<K>(l))});
            if (it != routes.end())
                return it->second;
        }
        return nh_miss;
    }
};

template <class K>
K random_key(std::mt19937_64& rng) {
    if constexpr (sizeof(K) == 4)
        return static_cast<uint32_t>(rng());
    else
        return (u128{rng()} << 64) | u128{rng()};
}

// Concentrates prefixes in a few regions so that they nest and overlap a lot.
template <class K>
K clustered_key(std::mt19937_64& rng) {
    K k = random_key<K>(rng);
    const unsigned bits = key_traits<K>::bits;
    const K region = static_cast<K>(static_cast<K>(rng() % 4) << (bits - 4));
    return static_cast<K>(region | (k >> 4));
}

template <class K>
class lpm_diff : public ::testing::Test {};
using key_types = ::testing::Types<uint32_t, u128>;
TYPED_TEST_SUITE(lpm_diff, key_types);

template <class K>
void check_all(const lpm_builder<K>& b, const lpm_index<K>* t, const reference_lpm<K>& ref,
               const std::vector<K>& probes) {
    std::vector<uint32_t> bulk(probes.size());
    t->lookup_bulk(probes.data(), bulk.data(), static_cast<uint32_t>(probes.size()));
    const std::vector<unsigned> lens = ref.lengths();
    for (size_t i = 0; i < probes.size(); ++i) {
        const uint32_t want = ref.lookup(probes[i], lens);
        ASSERT_EQ(b.lookup(probes[i]), want) << "mirror, probe " << i;
        ASSERT_EQ(t->lookup(probes[i]), want) << "single, probe " << i;
        ASSERT_EQ(bulk[i], want) << "bulk, probe " << i;
    }
}

TYPED_TEST(lpm_diff, random_prefixes_all_lengths_with_churn) {
    using K = TypeParam;
    constexpr unsigned bits = key_traits<K>::bits;
    std::mt19937_64 rng(42 + bits);
    lpm_builder<K> b;
    reference_lpm<K> ref;
    qsbr_domain rcu(1);

    std::vector<std::pair<K, unsigned>> live;
    for (int round = 0; round < 12; ++round) {
        // The default route comes and goes, so that deletes must uncover it.
        const auto dflt = static_cast<uint32_t>(100 + round);
        if (round % 2 == 0) {
            if (ref.routes.find({0u, K{0}}) == ref.routes.end())
                live.emplace_back(K{0}, 0u);
            ref.routes[{0u, K{0}}] = dflt;
            EXPECT_TRUE(b.set(K{0}, 0, dflt));
        }
        // 1500 operations per round: 70 % add/replace, 30 % delete of a live prefix.
        for (int op = 0; op < 1500; ++op) {
            if (!live.empty() && rng() % 10 < 3) {
                const size_t i = rng() % live.size();
                auto [a, l] = live[i];
                live[i] = live.back();
                live.pop_back();
                const bool had = ref.routes.erase({l, a}) > 0;
                EXPECT_EQ(b.erase(a, l), had);
                continue;
            }
            // Half of the lengths uniform over 0..bits, half in the upper half (where real
            // tables live), so that short covers are rare enough for the default to show.
            const unsigned len = rng() % 2 ? static_cast<unsigned>(rng() % (bits + 1))
                                           : static_cast<unsigned>(bits / 2 + rng() % (bits / 2 + 1));
            const K a = static_cast<K>((rng() % 2 ? clustered_key<K>(rng) : random_key<K>(rng)) & prefix_mask<K>(len));
            const auto nh = static_cast<uint32_t>(1 + rng() % 50);
            auto [it, fresh] = ref.routes.try_emplace({len, a}, nh);
            const bool changed = fresh || it->second != nh;
            it->second = nh;
            if (fresh)
                live.emplace_back(a, len);
            EXPECT_EQ(b.set(a, len, nh), changed);
        }
        retire_batch old;
        const lpm_index<K>* t = b.publish(old);
        rcu.retire(std::move(old));
        rcu.reclaim();
        ASSERT_TRUE(t->intact());
        EXPECT_EQ(t->routes(), ref.routes.size());

        // Probes: random, clustered, and each live prefix's first address, last address and
        // the addresses just outside it.
        std::vector<K> probes;
        for (int i = 0; i < 2000; ++i)
            probes.push_back(i % 2 ? random_key<K>(rng) : clustered_key<K>(rng));
        for (size_t i = 0; i < live.size(); i += 3) {
            auto [a, l] = live[i];
            const K last = prefix_last<K>(a, l);
            probes.push_back(a);
            probes.push_back(last);
            probes.push_back(static_cast<K>(a - 1));
            probes.push_back(static_cast<K>(last + 1));
        }
        probes.push_back(K{0});
        probes.push_back(static_cast<K>(~K{0}));
        check_all(b, t, ref, probes);
        // Every other round the same content flat (while it fits): the next round's changes
        // then go back to two-level from the flat form.
        if (round % 2 == 1) {
            retire_batch f;
            const lpm_index<K>* tf = b.flatten(f);
            rcu.retire(std::move(f));
            rcu.reclaim();
            ASSERT_TRUE(tf->intact());
            EXPECT_EQ(tf->flat() != nullptr, b.intervals() <= lpm_flat_max_intervals);
            check_all(b, tf, ref, probes);
        }
    }
    EXPECT_GT(b.chunk_count(), 1u) << "the test should exercise several chunks";
    retire_batch last;
    b.retire_all(last);
    rcu.retire(std::move(last));
}

TYPED_TEST(lpm_diff, delete_everything_returns_to_miss) {
    using K = TypeParam;
    constexpr unsigned bits = key_traits<K>::bits;
    std::mt19937_64 rng(7);
    lpm_builder<K> b;
    std::vector<std::pair<K, unsigned>> added;
    for (int i = 0; i < 3000; ++i) {
        const unsigned len = static_cast<unsigned>(rng() % (bits + 1));
        const K a = static_cast<K>(clustered_key<K>(rng) & prefix_mask<K>(len));
        if (b.set(a, len, static_cast<uint32_t>(1 + i % 7)))
            added.emplace_back(a, len);
    }
    EXPECT_GT(b.intervals(), 100u);
    std::shuffle(added.begin(), added.end(), rng);
    for (auto [a, l] : added)
        b.erase(a, l);
    EXPECT_EQ(b.routes(), 0u);
    EXPECT_EQ(b.intervals(), b.chunk_count()) << "only chunk-boundary duplicates may remain";
    retire_batch old;
    const auto* t = b.publish(old);
    for (int i = 0; i < 1000; ++i)
        EXPECT_EQ(t->lookup(random_key<K>(rng)), nh_miss);
    b.retire_all(old);
}

TYPED_TEST(lpm_diff, large_tables_use_the_directory) {
    using K = TypeParam;
    constexpr unsigned bits = key_traits<K>::bits;
    std::mt19937_64 rng(11);
    lpm_builder<K> b;
    reference_lpm<K> ref;
    // Most prefixes inside one region (a /8 or a /16 of v6, so the directory has a common
    // prefix to skip), a few outside it, on both sides.
    for (int i = 0; i < 60000; ++i) {
        const unsigned len = bits / 4 + static_cast<unsigned>(rng() % (bits - bits / 4 + 1));
        K a = random_key<K>(rng);
        if (i % 100 != 0)
            a = static_cast<K>((a >> (bits / 4 - 2)) | (static_cast<K>(0x2) << (bits - 4)));  // 0010.. region
        a = static_cast<K>(a & prefix_mask<K>(len));
        const auto nh = static_cast<uint32_t>(1 + rng() % 1000);
        ref.routes[{len, a}] = nh;
        b.set(a, len, nh);
    }
    retire_batch old;
    const auto* t = b.publish(old);
    ASSERT_TRUE(t->has_directory()) << t->chunk_count() << " chunks";
    // Big enough for slots resolved to chunks, clustered enough that some slots are not (both
    // lookup paths, in one burst too).
    ASSERT_NE(t->slots(), nullptr) << t->chunk_count() << " chunks";
    EXPECT_GT(t->unresolved_slots(), 0u);
    std::vector<K> probes;
    for (int i = 0; i < 20000; ++i) {
        K a = random_key<K>(rng);
        if (i % 4 != 0)
            a = static_cast<K>((a >> (bits / 4 - 2)) | (static_cast<K>(0x2) << (bits - 4)));
        probes.push_back(a);
    }
    probes.push_back(K{0});
    probes.push_back(static_cast<K>(~K{0}));
    check_all(b, t, ref, probes);
    // Churn: the directory is rebuilt with the index.
    std::vector<std::pair<unsigned, K>> keys;
    for (const auto& [k, nh] : ref.routes)
        keys.push_back(k);
    std::shuffle(keys.begin(), keys.end(), rng);
    for (int i = 0; i < 5000; ++i) {
        b.erase(keys[static_cast<size_t>(i)].second, keys[static_cast<size_t>(i)].first);
        ref.routes.erase(keys[static_cast<size_t>(i)]);
    }
    t = b.publish(old);
    check_all(b, t, ref, probes);
    b.retire_all(old);
}

TYPED_TEST(lpm_diff, tiny_and_edge_tables) {
    // The directories' corner cases: 1, 2 and 3 intervals, prefixes at the ends of the key
    // space, a host route at the very top; every boundary and its neighbours probed.
    using K = TypeParam;
    constexpr unsigned bits = key_traits<K>::bits;
    const K top = static_cast<K>(~K{0});
    const std::vector<std::vector<std::tuple<K, unsigned, uint32_t>>> tables = {
        {},
        {{K{0}, 0, 1}},
        {{K{0}, 1, 2}},
        {{static_cast<K>(K{1} << (bits - 1)), 1, 3}},
        {{top, bits, 4}},
        {{K{0}, bits, 5}, {top, bits, 6}},
        {{K{0}, 0, 1}, {static_cast<K>(K{5} << (bits - 8)), 8, 2}, {top, bits, 3}},
        {{static_cast<K>(K{0x12} << (bits - 8)), 16, 7}, {static_cast<K>(K{0x12} << (bits - 8)), 24, 8}},
    };
    for (const auto& routes : tables) {
        lpm_builder<K> b;
        reference_lpm<K> ref;
        std::vector<K> probes = {K{0}, K{1}, top, static_cast<K>(top - 1)};
        for (const auto& [a, l, nh] : routes) {
            b.set(a, l, nh);
            ref.routes[{l, static_cast<K>(a & prefix_mask<K>(l))}] = nh;
            const K lo = static_cast<K>(a & prefix_mask<K>(l)), hi = prefix_last<K>(lo, l);
            for (K p : {lo, hi, static_cast<K>(lo - 1), static_cast<K>(hi + 1), static_cast<K>(lo + 1)})
                probes.push_back(p);
        }
        retire_batch old;
        const auto* t = b.publish(old);
        check_all(b, t, ref, probes);
        t = b.flatten(old);
        ASSERT_NE(t->flat(), nullptr);
        check_all(b, t, ref, probes);
        b.retire_all(old);
    }
}

TYPED_TEST(lpm_diff, one_chunk_tables) {
    // Tables of one chunk (a PE's default VRF) are looked up without the index level: random
    // nested prefixes, 1 to 25 of them (at most 51 intervals), every boundary and its neighbours probed.
    using K = TypeParam;
    constexpr unsigned bits = key_traits<K>::bits;
    std::mt19937_64 rng(7 + bits);
    for (int t = 0; t < 200; ++t) {
        lpm_builder<K> b;
        reference_lpm<K> ref;
        std::vector<K> probes = {K{0}, static_cast<K>(~K{0})};
        const int n = 1 + t % 25;
        for (int i = 0; i < n; ++i) {
            const unsigned len = static_cast<unsigned>(rng() % (bits + 1));
            const K lo = static_cast<K>(clustered_key<K>(rng) & prefix_mask<K>(len)), hi = prefix_last<K>(lo, len);
            const auto nh = static_cast<uint32_t>(1 + rng() % 50);
            b.set(lo, len, nh);
            ref.routes[{len, lo}] = nh;
            for (K p : {lo, hi, static_cast<K>(lo - 1), static_cast<K>(hi + 1), static_cast<K>(lo + 1), random_key<K>(rng)})
                probes.push_back(p);
        }
        retire_batch old;
        const auto* tbl = b.publish(old);
        ASSERT_EQ(tbl->chunk_count(), 1u);
        check_all(b, tbl, ref, probes);
        tbl = b.flatten(old);
        ASSERT_NE(tbl->flat(), nullptr);
        check_all(b, tbl, ref, probes);
        b.retire_all(old);
        old.run();
    }
}

TYPED_TEST(lpm_diff, prefix_map_matches_std_map) {
    using K = TypeParam;
    std::mt19937_64 rng(5);
    prefix_map<K> m;
    std::map<std::pair<K, uint8_t>, uint32_t> ref;
    std::vector<std::pair<K, uint8_t>> keys;
    for (int i = 0; i < 200000; ++i) {
        // Few distinct keys so that probe runs collide, grow, and deletes shift them back.
        const auto len = static_cast<uint8_t>(rng() % 4);
        const K a = static_cast<K>(rng() % 3000);
        const auto v = static_cast<uint32_t>(rng());
        switch (rng() % 3) {
        case 0: {
            auto [slot, fresh] = m.try_emplace(a, len, v);
            auto [it, rfresh] = ref.try_emplace({a, len}, v);
            ASSERT_EQ(fresh, rfresh);
            ASSERT_EQ(*slot, it->second);
            break;
        }
        case 1: ASSERT_EQ(m.erase(a, len), ref.erase({a, len}) > 0); break;
        default: {
            const uint32_t* got = m.find(a, len);
            auto it = ref.find({a, len});
            ASSERT_EQ(got != nullptr, it != ref.end());
            if (got) {
                ASSERT_EQ(*got, it->second);
            }
        }
        }
        ASSERT_EQ(m.size(), ref.size());
    }
    for (const auto& [k, v] : ref)
        ASSERT_EQ(*m.find(k.first, k.second), v);
}

TEST(lpm, default_route_and_host_routes) {
    lpm4_builder b;
    b.set(0, 0, 7);                 // 0.0.0.0/0
    b.set(0x0a000000, 8, 8);        // 10.0.0.0/8
    b.set(0x0a000001, 32, 9);       // 10.0.0.1/32
    b.set(0xffffffff, 32, 10);      // 255.255.255.255/32
    retire_batch old;
    const auto* t = b.publish(old);
    EXPECT_EQ(t->lookup(0x0a000001), 9u);
    EXPECT_EQ(t->lookup(0x0a000002), 8u);
    EXPECT_EQ(t->lookup(0x0a000000), 8u);
    EXPECT_EQ(t->lookup(0x0b000000), 7u);
    EXPECT_EQ(t->lookup(0xfffffffe), 7u);
    EXPECT_EQ(t->lookup(0xffffffff), 10u);
    EXPECT_EQ(t->lookup(0), 7u);
    // Replacing with the same nexthop is not a change; deleting the /8 uncovers the /0.
    EXPECT_FALSE(b.set(0x0a000000, 8, 8));
    EXPECT_TRUE(b.erase(0x0a000000, 8));
    EXPECT_FALSE(b.erase(0x0a000000, 8));
    t = b.publish(old);
    EXPECT_EQ(t->lookup(0x0a000002), 7u);
    EXPECT_EQ(t->lookup(0x0a000001), 9u);
    b.retire_all(old);
}

TEST(lpm, v6_sid_locators_longest_match) {
    // uN locator /48 with a /64 and a /128 inside: LPM, not exact match.
    lpm6_builder b;
    const u128 loc = key6(std::array<uint8_t, 16>{0xfc, 0, 0, 0, 0, 1}.data());
    b.set(loc, 48, 1);
    b.set(loc | (u128{0x42} << 64), 64, 2);
    b.set(loc | (u128{0x42} << 64) | 1, 128, 3);
    retire_batch old;
    const auto* t = b.publish(old);
    EXPECT_EQ(t->lookup(loc | (u128{0xe000} << 64)), 1u);           // fc00:0:1:e000::
    EXPECT_EQ(t->lookup(loc | (u128{0x42} << 64) | 2), 2u);         // fc00:0:1:42::2
    EXPECT_EQ(t->lookup(loc | (u128{0x42} << 64) | 1), 3u);         // fc00:0:1:42::1
    EXPECT_EQ(t->lookup(loc - 1), nh_miss);
    EXPECT_EQ(t->lookup(prefix_last<u128>(loc, 48) + 1), nh_miss);
    b.retire_all(old);
}

TYPED_TEST(lpm_diff, flat_form_around_the_threshold) {
    // publish() is two-level; flatten() makes tables of up to lpm_flat_max_intervals intervals
    // flat and leaves bigger ones two-level, growing and shrinking. Consecutive /20s (IPv6: /20s too, with /128s and /80s inside some
    // of them, so that the flat form has lower-half lists), checked at every publication near
    // the thresholds.
    using K = TypeParam;
    constexpr unsigned bits = key_traits<K>::bits;
    std::mt19937_64 rng(21);
    lpm_builder<K> b;
    reference_lpm<K> ref;
    retire_batch old;
    std::vector<std::pair<K, unsigned>> added;
    auto add = [&](K a, unsigned len, uint32_t nh) {
        b.set(a, len, nh);
        ref.routes[{len, a}] = nh;
        added.emplace_back(a, len);
    };
    auto probes_now = [&] {
        std::vector<K> p = {K{0}, static_cast<K>(~K{0})};
        for (size_t i = added.size() > 300 ? added.size() - 300 : 0; i < added.size(); ++i) {
            const auto [a, len] = added[i];
            const K hi = prefix_last<K>(a, len);
            for (K x : {a, static_cast<K>(a - 1), static_cast<K>(a + 1), hi, static_cast<K>(hi + 1)})
                p.push_back(x);
        }
        for (int i = 0; i < 300; ++i)
            p.push_back(static_cast<K>(random_key<K>(rng) >> 2));  // where the routes are
        return p;
    };
    const size_t limit = lpm_flat_max_intervals;
    bool was_flat = true;
    for (uint32_t i = 0; b.intervals() <= limit + 8; ++i) {
        const K a = static_cast<K>(K{i + 1} << (bits - 20));
        add(a, 20, 1 + i % 3);
        if constexpr (bits == 128)
            if (i % 7 == 0) {
                add(static_cast<K>(a | (K{i} << 64) | 5), 128, 4);  // lower half != 0: a list
                add(static_cast<K>(a | (K{3} << 64)), 80, 5);
            }
        if (b.intervals() + 8 < limit && i % 97 != 0)
            continue;
        const auto* t = b.publish(old);
        ASSERT_EQ(t->flat(), nullptr);
        check_all(b, t, ref, probes_now());
        t = b.flatten(old);
        const bool flat = b.intervals() <= limit;
        ASSERT_EQ(t->flat() != nullptr, flat) << b.intervals() << " intervals";
        if (flat && bits == 128 && added.size() > 1) {
            EXPECT_GT(t->flat()->lists(), 0u);
        }
        check_all(b, t, ref, probes_now());
        old.run();
        was_flat = flat;
    }
    ASSERT_FALSE(was_flat);
    // Shrinking: flat again from the limit down.
    while (b.intervals() > limit / 2 - 8) {
        const auto [a, len] = added.back();
        added.pop_back();
        b.erase(a, len);
        ref.routes.erase({len, a});
        if ((b.intervals() > limit + 8 || b.intervals() + 8 < limit) && added.size() % 97 != 0)
            continue;
        const auto* t = b.publish(old);
        check_all(b, t, ref, probes_now());
        t = b.flatten(old);
        ASSERT_EQ(t->flat() != nullptr, b.intervals() <= limit) << b.intervals() << " intervals";
        check_all(b, t, ref, probes_now());
        old.run();
    }
    b.retire_all(old);
}

TEST(lpm, v6_flat_upper_half_and_lists) {
    // The flat IPv6 form searches the upper 64 bits; /64s with longer prefixes get a list on the
    // lower half. Tables with and without such prefixes, at the edges of a /64 and of the key
    // space, nested, in consecutive /64s; every boundary and its neighbours probed.
    const u128 top = ~u128{0};
    auto k = [](uint64_t hi, uint64_t lo) { return (u128{hi} << 64) | lo; };
    const std::vector<std::vector<std::tuple<u128, unsigned, uint32_t>>> tables = {
        {{0, 0, 1}},                                                               // default only
        {{0, 0, 1}, {k(0x20010db800000000, 0), 32, 2}, {k(0x20010db800010000, 0), 48, 3}, {k(0x20010db800010001, 0), 64, 4}},
        {{k(0x20010db800000005, 0), 64, 2}, {k(0x20010db800000005, 0), 128, 3}},  // /128 at a /64's start
        {{k(0x20010db800000005, 0), 64, 2}, {k(0x20010db800000005, ~uint64_t{0}), 128, 3}},  // and at its end
        {{k(0x20010db800000005, 1ull << 63), 65, 2}, {k(0x20010db800000006, 0), 64, 3}},  // upper half, next /64
        {{0, 0, 1}, {k(0x7, 0x10), 124, 2}, {k(0x7, 0x18), 125, 3}, {k(0x8, 0x1), 128, 4}, {k(0x9, 0), 64, 5}},
        {{top, 128, 6}, {k(~uint64_t{0}, 0), 64, 7}, {k(~uint64_t{0}, 0x100), 120, 8}},  // the top /64
        {{top, 128, 6}},
        {{0, 128, 9}, {0, 64, 10}},
    };
    for (size_t ti = 0; ti < tables.size(); ++ti) {
        lpm6_builder b;
        reference_lpm<u128> ref;
        std::vector<u128> probes = {0, 1, top, top - 1, k(1, 0), k(1, 0) - 1};
        bool longer = false;
        for (const auto& [a, l, nh] : tables[ti]) {
            b.set(a, l, nh);
            const u128 lo = a & prefix_mask<u128>(l), hi = prefix_last<u128>(lo, l);
            ref.routes[{l, lo}] = nh;
            longer |= l > 64;
            for (u128 p : {lo, hi, lo - 1, hi + 1, lo + 1, hi - 1, k(static_cast<uint64_t>(lo >> 64), 0),
                           k(static_cast<uint64_t>(lo >> 64), ~uint64_t{0}), k(static_cast<uint64_t>(lo >> 64) + 1, 0)})
                probes.push_back(p);
        }
        retire_batch old;
        b.publish(old);
        const auto* t = b.flatten(old);
        ASSERT_NE(t->flat(), nullptr) << "table " << ti;
        EXPECT_EQ(t->flat()->lists() != 0, longer) << "table " << ti;
        check_all(b, t, ref, probes);
        b.retire_all(old);
    }
}

// Routes with the reference and each one's boundaries as probes (for u128 also the next /64).
template <class K>
struct probed_table {
    lpm_builder<K> b;
    reference_lpm<K> ref;
    std::vector<K> probes = {K{0}, K{1}, static_cast<K>(~K{0})};

    void add(K a, unsigned l, uint32_t nh) {
        b.set(a, l, nh);
        const K lo = a & prefix_mask<K>(l), hi = prefix_last<K>(lo, l);
        ref.routes[{l, lo}] = nh;
        for (K p : {lo, hi, static_cast<K>(lo - 1), static_cast<K>(hi + 1), static_cast<K>(lo + 1), static_cast<K>(hi - 1)})
            probes.push_back(p);
        if constexpr (sizeof(K) > 8)
            probes.push_back(static_cast<K>((lo >> 64) + 1) << 64);
    }
    // Published flat: no directory slot names more than pick_width candidates, and every probe
    // looks up as the reference does.
    void expect_flat_without_wide_slots() {
        retire_batch old;
        b.publish(old);
        const auto* t = b.flatten(old);
        ASSERT_NE(t->flat(), nullptr);
        EXPECT_EQ(t->flat()->wide_slots(), 0u);
        check_all(b, t, ref, probes);
        b.retire_all(old);
    }
};

TEST(lpm, flat_directory_of_clustered_keys_has_no_wide_slot) {
    // A PE's default VRF: loopbacks in one /64 far below the rest (two flat keys: the /64's
    // list and the /64 after it), the locators and SIDs within a few /48s of fc00::/16 (the
    // dataplane bench's table, in short), a /8 far above (two keys). Equal slots over all of it
    // put the locators in one slot and every lookup there took the binary search; the region
    // now leaves the far keys (up to pick_width - 1 at either end) to the end slots. Lookups
    // equal the reference at every boundary, and no slot names more than pick_width candidates.
    auto k = [](uint64_t hi, uint64_t lo) { return (u128{hi} << 64) | lo; };
    probed_table<u128> v6;
    v6.add(k(0x20010db800000000, 1), 128, 1);
    v6.add(k(0x20010db800000000, 2), 128, 2);
    v6.add(k(0xfc00000000010000, 1), 128, 4);
    v6.add(k(0xfc00000000010000, 0x46), 128, 5);
    v6.add(k(0xfc00000000020000, 0), 48, 6);
    v6.add(k(0xfc00000000030000, 0), 48, 6);
    v6.add(k(0xfc00000000100000, 0), 44, 7);
    v6.add(k(0xfc00000000200000, 0), 48, 8);
    v6.add(k(0xfc00000000210000, 0), 48, 9);
    v6.add(k(0xfd00000000000000, 0), 8, 10);
    v6.expect_flat_without_wide_slots();

    // IPv4 alike: a host far below, twenty /24s side by side in 10.1.0.0/16, a /8 far above.
    probed_table<uint32_t> v4;
    v4.add(0x01000001, 32, 1);
    for (uint32_t i = 0; i < 20; ++i)
        v4.add(0x0a010000 | i << 8, 24, 3 + i % 5);
    v4.add(0xc0000000, 8, 9);
    v4.expect_flat_without_wide_slots();
}

TEST(lpm, publish_reuses_untouched_chunks) {
    lpm4_builder b;
    for (uint32_t i = 0; i < 4000; ++i)
        b.set(i << 12, 20, 1 + i % 3);
    retire_batch r1;
    const auto* t1 = b.publish(r1);
    ASSERT_GT(t1->chunk_count(), 4u);
    // One /24 inside the first /20 touches one chunk: the others are shared by both tables.
    b.set(0x00000100, 24, 9);
    retire_batch r2;
    const auto* t2 = b.publish(r2);
    EXPECT_EQ(r2.size(), 2u) << "the old index and the one rewritten chunk";
    size_t shared = 0;
    for (uint32_t i = 0; i < t2->chunk_count(); ++i)
        shared += t2->chunks()[i] == t1->chunks()[i];
    EXPECT_EQ(shared, t2->chunk_count() - 1);
    // Nothing changed: the same table, nothing retired.
    retire_batch r3;
    EXPECT_EQ(b.publish(r3), t2);
    EXPECT_TRUE(r3.empty());
    b.retire_all(r3);
}

}  // namespace
}  // namespace fib

namespace fib {
namespace SRV6D_UNITY_ID {

// The directory over a sorted key array is exactly its definition: dir[s] is the last entry
// whose key is <= the slot's start (base + s << shift), and the sentinel dir[slots] the last
// one <= end - 1; for key sets dense and sparse, narrow and spanning the whole key space.
template <class K, class E>
void expect_dir_is_its_definition(const std::vector<K>& a, unsigned bits) {
    const auto n = static_cast<uint32_t>(a.size());
    const detail::key_dir<K> p = detail::plan_key_dir(a.data(), n, bits);
    if (p.slots == 0)
        return;
    std::vector<E> dir(p.slots + 1);
    detail::build_key_dir(a.data(), n, p, dir.data());
    for (uint32_t s = 0; s <= p.slots; ++s) {
        const K start = s < p.slots ? static_cast<K>(p.base + (static_cast<K>(s) << p.shift)) : static_cast<K>(p.end - 1);
        uint32_t want = 0;
        for (uint32_t j = 0; j < n; ++j)
            if (a[j] <= start)
                want = j;
        ASSERT_EQ(static_cast<uint32_t>(dir[s]), want) << "slot " << s << " of " << p.slots << ", " << n << " keys";
    }
}

template <class K>
std::vector<K> sorted_keys(std::mt19937_64& rng, uint32_t n, unsigned spread_bits) {
    std::vector<K> a{K{0}};  // a[0] is 0 for an index, the chunk's first key for a chunk
    const K top = spread_bits >= sizeof(K) * 8 ? static_cast<K>(~K{0}) : static_cast<K>((K{1} << spread_bits) - 1);
    while (a.size() < n) {
        K v = static_cast<K>(rng());
        if constexpr (sizeof(K) > 8)
            v = static_cast<K>((v << 64) | rng());
        v &= top;
        if (v != 0)
            a.push_back(v);
    }
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

TEST(KeyDirectory, IsItsDefinitionForDenseAndSparseKeys) {
    std::mt19937_64 rng(11);
    for (const unsigned spread : {8u, 12u, 20u, 32u})
        for (const uint32_t n : {3u, 4u, 17u, 64u, 128u, 255u})
            for (int rep = 0; rep < 4; ++rep) {
                const auto a = sorted_keys<uint32_t>(rng, n, spread);
                expect_dir_is_its_definition<uint32_t, uint8_t>(a, detail::key_dir_bits(static_cast<uint32_t>(a.size()), 8));
                expect_dir_is_its_definition<uint32_t, uint32_t>(a, detail::key_dir_bits(static_cast<uint32_t>(a.size()), 16));
            }
    for (const unsigned spread : {8u, 40u, 64u, 100u, 128u})
        for (const uint32_t n : {3u, 5u, 64u, 200u})
            for (int rep = 0; rep < 4; ++rep) {
                const auto a = sorted_keys<u128>(rng, n, spread);
                expect_dir_is_its_definition<u128, uint8_t>(a, detail::key_dir_bits(static_cast<uint32_t>(a.size()), 8));
                expect_dir_is_its_definition<u128, uint32_t>(a, detail::key_dir_bits(static_cast<uint32_t>(a.size()), 16));
            }
}

}  // namespace
}  // namespace fib
