// The immutable LPM the workers search: the address space cut into disjoint intervals, each with
// the nexthop index of the longest prefix covering it (prefix expansion into non-overlapping
// ranges). Two levels so that a change rewrites only the chunks it touches:
//
//   lpm_index: first[i] = first key of chunk i (first[0] = 0), chunk[i] -> lpm_chunk
//   lpm_chunk: keys[j] = start of interval j (keys[0] = first[i]), values[j] = nexthop index
//
// A lookup is two branch-free binary searches ("last key <= address"); large tables first narrow
// the chunk search with a direct-indexed directory. The bulk lookup advances the searches of a
// whole burst one step at a time, so their cache misses overlap (memory-level parallelism)
// instead of queueing behind each other.
//
// Both objects are built once by lpm_builder (control thread) and never written again; they are
// freed through the RCU domain (destroy() poisons them first). Nexthop index 0 means "no route".
#pragma once

#include <cstddef>
#include <cstdint>

#include "fib/datapath/lpm_key.hh"
#include "fib/datapath/mem.hh"

namespace fib {

constexpr uint32_t nh_miss = 0;  // what a lookup returns where no prefix covers the address

namespace detail {
// Index of the last element <= x in a[0..n) (n >= 1, a[0] <= x).
template <class K>
inline uint32_t last_le(const K* a, uint32_t n, K x) {
    const K* base = a;
    while (n > 1) {
        const uint32_t half = n / 2;
        base = (base[half] <= x) ? base + half : base;
        n -= half;
    }
    return static_cast<uint32_t>(base - a);
}
constexpr size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
template <class K>
constexpr mem_kind lpm_mem_kind() { return sizeof(K) == 4 ? mem_kind::lpm4 : mem_kind::lpm6; }
}  // namespace detail

constexpr uint32_t lpm_live_magic = 0x4c504d31;  // "LPM1"

template <class K>
class lpm_chunk {
public:
    static const lpm_chunk* create(const K* keys, const uint32_t* values, uint32_t n);
    static void destroy(const lpm_chunk* c) noexcept;

    uint32_t size() const { return _n; }
    bool intact() const { return _magic == lpm_live_magic; }
    const K* keys() const { return reinterpret_cast<const K*>(reinterpret_cast<const char*>(this) + keys_off); }
    const uint32_t* values() const {
        return reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(this) + keys_off + sizeof(K) * _n);
    }
    uint32_t lookup(K x) const { return values()[detail::last_le(keys(), _n, x)]; }
    static size_t bytes_for(uint32_t n) { return keys_off + (sizeof(K) + sizeof(uint32_t)) * n; }

private:
    static constexpr size_t keys_off = detail::align_up(16, alignof(K));
    lpm_chunk() = default;
    uint32_t _n = 0;
    uint32_t _magic = 0;
};

template <class K>
class lpm_index {
public:
    // Tables with at least this many chunks get a direct-indexed first level (256 KiB).
    static constexpr uint32_t dir_min_chunks = 256;
    static constexpr uint32_t dir_bits = 16;

    // `same_first`: a published index with the same first keys (the same chunk boundaries): its
    // directory is copied instead of recomputed.
    static const lpm_index* create(const K* first, const lpm_chunk<K>* const* chunks, uint32_t n, uint64_t routes,
                                   const lpm_index* same_first = nullptr);
    static void destroy(const lpm_index* t) noexcept;

    uint32_t chunk_count() const { return _n; }
    uint64_t routes() const { return _routes; }
    bool has_directory() const { return _dir_n != 0; }
    bool intact() const { return _magic == lpm_live_magic; }
    const K* first() const { return reinterpret_cast<const K*>(reinterpret_cast<const char*>(this) + first_off()); }
    const lpm_chunk<K>* const* chunks() const {
        return reinterpret_cast<const lpm_chunk<K>* const*>(reinterpret_cast<const char*>(this) + chunks_off(_n));
    }

    uint32_t lookup(K x) const {
        const K* f = first();
        uint32_t lo = 0, len = _n;
        narrow(x, lo, len);
        return chunks()[lo + detail::last_le(f + lo, len, x)]->lookup(x);
    }
    // out[i] = lookup(xs[i]); the searches of up to `burst` addresses advance in lockstep.
    void lookup_bulk(const K* xs, uint32_t* out, uint32_t n) const;

    static constexpr uint32_t burst = 32;

private:
    // The directory covers the keys sharing the common prefix of the chunks' first keys: the
    // next dir_bits bits pick a slot, dir[slot] .. dir[slot + 1] are the chunks that can hold
    // such a key. Keys outside that region search every chunk.
    void narrow(K x, uint32_t& lo, uint32_t& len) const {
        if (_dir_n && static_cast<K>(x & _dir_mask) == _dir_base) {
            const uint32_t* d = dir();
            const auto s = static_cast<uint32_t>(x >> _dir_shift) & ((1u << dir_bits) - 1);
            lo = d[s];
            len = d[s + 1] - lo + 1;
        }
    }
    static size_t first_off() { return detail::align_up(sizeof(lpm_index), alignof(K)); }
    static size_t chunks_off(uint32_t n) { return detail::align_up(first_off() + sizeof(K) * n, alignof(void*)); }
    static size_t dir_off(uint32_t n) { return chunks_off(n) + sizeof(void*) * n; }
    static size_t bytes_for(uint32_t n, uint32_t dir_n) { return dir_off(n) + sizeof(uint32_t) * dir_n; }
    const uint32_t* dir() const {
        return reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(this) + dir_off(_n));
    }
    lpm_index() = default;
    uint32_t _n = 0;
    uint32_t _magic = 0;
    uint64_t _routes = 0;
    uint32_t _dir_n = 0;  // 2^dir_bits + 1 with a directory, else 0
    uint32_t _dir_shift = 0;
    K _dir_base{};
    K _dir_mask{};
};

template <class K>
void lpm_index<K>::lookup_bulk(const K* xs, uint32_t* out, uint32_t n) const {
    const K* first_keys = first();
    const lpm_chunk<K>* const* ch = chunks();
    for (uint32_t off = 0; off < n; off += burst) {
        const uint32_t m = n - off < burst ? n - off : burst;
        const K* x = xs + off;
        const K* base[burst];
        uint32_t len[burst];
        uint32_t steps = 0;
        // Level 1: the chunk index, through the directory when there is one. Searches of
        // different lengths run in lockstep: a finished one (len 1) takes half = 0 steps.
        for (uint32_t i = 0; i < m; ++i) {
            uint32_t lo = 0, l = _n;
            narrow(x[i], lo, l);
            base[i] = first_keys + lo;
            len[i] = l;
            __builtin_prefetch(base[i] + l / 2);
            steps = l > steps ? l : steps;
        }
        while (steps > 1) {
            for (uint32_t i = 0; i < m; ++i) {
                const uint32_t half = len[i] / 2;
                base[i] = (base[i][half] <= x[i]) ? base[i] + half : base[i];
                len[i] -= half;
                __builtin_prefetch(base[i] + len[i] / 2);
            }
            steps -= steps / 2;
        }
        // Level 2: inside the chunk.
        const lpm_chunk<K>* c[burst];
        for (uint32_t i = 0; i < m; ++i) {
            c[i] = ch[base[i] - first_keys];
            base[i] = c[i]->keys();
            len[i] = c[i]->size();
            __builtin_prefetch(base[i] + len[i] / 2);
            steps = len[i] > steps ? len[i] : steps;
        }
        while (steps > 1) {
            for (uint32_t i = 0; i < m; ++i) {
                const uint32_t half = len[i] / 2;
                base[i] = (base[i][half] <= x[i]) ? base[i] + half : base[i];
                len[i] -= half;
                __builtin_prefetch(base[i] + len[i] / 2);
            }
            steps -= steps / 2;
        }
        for (uint32_t i = 0; i < m; ++i)
            out[off + i] = c[i]->values()[base[i] - c[i]->keys()];
    }
}

extern template class lpm_chunk<uint32_t>;
extern template class lpm_chunk<u128>;
extern template class lpm_index<uint32_t>;
extern template class lpm_index<u128>;

using lpm4_index = lpm_index<uint32_t>;
using lpm6_index = lpm_index<u128>;

}  // namespace fib
