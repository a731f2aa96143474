// The immutable LPM the workers search: the address space cut into disjoint intervals, each with
// the nexthop index of the longest prefix covering it (prefix expansion into non-overlapping
// ranges). Two levels so that a change rewrites only the chunks it touches:
//
//   lpm_index: first[i] = first key of chunk i (first[0] = 0), chunk[i] -> lpm_chunk
//   lpm_chunk: keys[j] = start of interval j (keys[0] = first[i]), values[j] = nexthop index
//
// Each level has a direct-indexed directory (key_dir below) over the bits that follow the common
// prefix of its boundaries, sized to about two slots per entry: a slot names the one or two
// entries the address can be in, so a lookup is a few dependent loads (directory, index entry,
// chunk directory, key, value) instead of two binary searches. A big index's directory slots
// are also resolved to their chunks (slot_chunks), which skips the index entry. The bulk lookup
// advances the lookups of a whole burst stage by stage, so their cache misses overlap
// (memory-level parallelism) instead of queueing behind each other.
//
// Small tables (lpm_flat_max_intervals) are republished flat once quiet (lpm_flat.hh,
// lpm_builder::flatten): the index then only points to the flat block, and every lookup goes there.
//
// Both objects are built once (lpm_builder, control thread) and never written again; they are
// freed through the RCU domain (destroy() poisons them first). Nexthop index 0 means "no route".
#pragma once

#include <cstddef>
#include <cstdint>

#include "fib/datapath/lpm_flat.hh"
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
// Index of the last element <= x among a[lo .. lo + len) (a[lo] <= x): what follows a
// directory, which leaves at most four candidates almost always (a prefix adds two boundaries,
// often in one slot): three compares counted, no branch; a binary search beyond.
template <class K>
inline uint32_t pick(const K* a, uint32_t lo, uint32_t len, K x) {
    if (__builtin_expect(len <= 4, 1)) {
        const uint32_t last = len - 1;  // only a[lo .. lo + last] are read
        const uint32_t k1 = last < 1 ? last : 1, k2 = last < 2 ? last : 2, k3 = last < 3 ? last : 3;
        return lo + ((1 <= last) & (a[lo + k1] <= x)) + ((2 <= last) & (a[lo + k2] <= x)) +
               ((3 <= last) & (a[lo + k3] <= x));
    }
    return lo + last_le(a + lo, len, x);
}
constexpr size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
template <class K>
constexpr mem_kind lpm_mem_kind() { return sizeof(K) == 4 ? mem_kind::lpm4 : mem_kind::lpm6; }

// A direct-indexed directory over a sorted key array a[0..n) with a[0] <= any address looked
// up (a[0] is 0 for the index, the chunk's first key for a chunk). The region is
// [a[1], a[n-1]): an address below it is in entry 0, one at or above its end in entry n-1.
// Inside, `slots` slots of 2^shift keys each split it from its start; dir[s] is the entry
// holding the slot's first key and dir[s + 1] the one holding the next slot's (dir[slots]: the
// region's last key's), so the address is in entries dir[s] .. dir[s + 1]. A power-of-two
// slot width over the keys' own span, not an aligned prefix: the slots cover the keys however
// they sit. `slots` = 0 with n > 1: no directory (more entries than the entry type counts).
template <class K>
struct key_dir {
    K base{};  // a[1]
    K end{};   // a[n-1]
    uint32_t shift = 0;
    uint32_t slots = 0;

    // The slot x falls in (0 outside the region): what narrow() reads, for a prefetch.
    uint32_t slot(K x) const {
        return x >= base && x < end ? static_cast<uint32_t>(static_cast<K>(x - base) >> shift) : 0;
    }
    // The candidate entries [lo, lo + len) of x.
    template <class E>
    void narrow(const E* dir, uint32_t n, K x, uint32_t& lo, uint32_t& len) const {
        if (x < base) {
            lo = 0;
            len = 1;
        } else if (x >= end) {
            lo = n - 1;
            len = 1;
        } else if (slots == 0) {
            lo = 0;
            len = n;
        } else {
            const auto s = static_cast<uint32_t>(static_cast<K>(x - base) >> shift);
            lo = dir[s];
            len = static_cast<uint32_t>(dir[s + 1]) - lo + 1;
        }
    }
};

// The parameters of a[0..n)'s directory of at most 2^bits slots (n >= 1; base = end and no
// slots for n < 3: nothing to narrow).
template <class K>
key_dir<K> plan_key_dir(const K* a, uint32_t n, unsigned bits);
// Fills dir[0 .. p.slots] (p from plan_key_dir).
template <class K, class E>
void build_key_dir(const K* a, uint32_t n, const key_dir<K>& p, E* dir);
// 2^bits for n entries: about two slots per entry, at most 2^max_bits.
uint32_t key_dir_bits(uint32_t n, unsigned max_bits);
}  // namespace detail

constexpr uint32_t lpm_live_magic = 0x4c504d32;  // "LPM2"

template <class K>
class lpm_chunk {
public:
    static const lpm_chunk* create(const K* keys, const uint32_t* values, uint32_t n);
    static void destroy(const lpm_chunk* c) noexcept;

    uint32_t size() const { return _n; }
    bool intact() const { return _magic == lpm_live_magic; }
    const K* keys() const { return reinterpret_cast<const K*>(reinterpret_cast<const char*>(this) + keys_off(_dir.slots)); }
    const uint32_t* values() const {
        return reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(this) + keys_off(_dir.slots) +
                                                 sizeof(K) * _n);
    }
    // The candidate intervals of x (x >= keys()[0]).
    void narrow(K x, uint32_t& lo, uint32_t& len) const { _dir.narrow(dir(), _n, x, lo, len); }
    // What a search of this chunk reads, copied out once for a loop over many addresses (the
    // loop's stores to uint32_t results could alias the members otherwise: reloaded each time).
    struct searcher {
        detail::key_dir<K> d;
        uint32_t n;
        const uint8_t* dir;
        const K* keys;
        const uint32_t* values;
        explicit searcher(const lpm_chunk& c) : d(c._dir), n(c._n), dir(c.dir()), keys(c.keys()), values(c.values()) {}
        uint32_t lookup(K x) const {
            uint32_t lo, len;
            d.narrow(dir, n, x, lo, len);
            return values[detail::pick(keys, lo, len, x)];
        }
    };
    uint32_t lookup(K x) const { return searcher(*this).lookup(x); }
    static size_t bytes_for(uint32_t n, uint32_t slots) { return keys_off(slots) + (sizeof(K) + sizeof(uint32_t)) * n; }
    // The header and the directory of a full-size chunk (~2 slots per interval, 64-128
    // intervals: 3 lines) at once, without reading the header for where the slot is: one
    // round of misses instead of two dependent ones.
    void prefetch_head() const {
        const char* p = reinterpret_cast<const char*>(this);
        __builtin_prefetch(p);
        __builtin_prefetch(p + 64);
        __builtin_prefetch(p + 128);
    }

    // Chunks of at most this many intervals get a directory (uint8_t entries).
    static constexpr uint32_t dir_max_n = 255;

private:
    static constexpr size_t dir_off() { return sizeof(lpm_chunk); }
    static size_t keys_off(uint32_t slots) {
        return detail::align_up(dir_off() + (slots ? slots + 1 : 0), alignof(K));
    }
    const uint8_t* dir() const { return reinterpret_cast<const uint8_t*>(this) + dir_off(); }
    lpm_chunk() = default;
    uint32_t _n = 0;
    uint32_t _magic = 0;
    detail::key_dir<K> _dir;
};

// One slot of a big index's directory, resolved to its chunks (lpm_index::slots()): the
// one or two chunks an address in the slot can be in, and the key where the second begins. A
// lookup then goes from the directory straight to the chunk, without the index entries (first
// key, chunk pointer) in between: one round of cache misses fewer in a table that misses at
// every level. 16 bytes for IPv4, 32 for IPv6.
template <class K>
struct slot_chunks {
    const lpm_chunk<K>* lo;  // nullptr: more than two candidates (the index's own entries decide)
    int32_t hi_lines;        // the second candidate's distance from `lo` in 64-byte lines (0: none)
    K split;                 // the second candidate's first key (all ones: none)

    const lpm_chunk<K>* pick(K x) const {
        const uintptr_t hi = reinterpret_cast<uintptr_t>(lo) + static_cast<uintptr_t>(int64_t{hi_lines} * 64);
        return x >= split ? reinterpret_cast<const lpm_chunk<K>*>(hi) : lo;
    }
};

template <class K>
class lpm_index {
public:
    static constexpr unsigned dir_max_bits = 16;  // 256 KiB at most (a 1 M-route table)

    // `same_first`: a published index with the same first keys (the same chunk boundaries): its
    // directory is copied instead of recomputed.
    static const lpm_index* create(const K* first, const lpm_chunk<K>* const* chunks, uint32_t n, uint64_t routes,
                                   const lpm_index* same_first = nullptr);
    // The flat form (owns `flat`: destroy() frees it too).
    static const lpm_index* create_flat(const lpm_flat<K>* flat, uint64_t routes);
    static void destroy(const lpm_index* t) noexcept;

    const lpm_flat<K>* flat() const { return _flat; }
    // The flat form counts as one chunk (one block, no index level).
    uint32_t chunk_count() const { return _flat ? 1 : _n; }
    uint64_t routes() const { return _routes; }
    bool has_directory() const { return _dir.slots != 0; }
    bool intact() const { return _magic == lpm_live_magic && (!_flat || _flat->intact()); }
    const K* first() const { return reinterpret_cast<const K*>(reinterpret_cast<const char*>(this) + first_off()); }
    const lpm_chunk<K>* const* chunks() const {
        return reinterpret_cast<const lpm_chunk<K>* const*>(reinterpret_cast<const char*>(this) + chunks_off(_n));
    }

    uint32_t lookup(K x) const {
        if (_flat)
            return _flat->lookup(x);
        if (_n == 1)
            return chunks()[0]->lookup(x);
        return chunk_of(x)->lookup(x);
    }
    // out[i] = lookup(xs[i]); the lookups of up to `burst` addresses advance in lockstep.
    void lookup_bulk(const K* xs, uint32_t* out, uint32_t n) const;

    static constexpr uint32_t burst = 32;
    // Tables of at most this many chunks (~8 k intervals, <= ~100 KiB) skip the prefetch stages;
    // bigger ones have their directory slots resolved to chunks (slot_chunks).
    static constexpr uint32_t small_chunks = 128;
    // The directory's slots resolved to chunks (nullptr for a small table), and how many of them
    // have more than two candidates (tests: both kinds must be exercised).
    const slot_chunks<K>* slots() const {
        return _resolved ? reinterpret_cast<const slot_chunks<K>*>(reinterpret_cast<const char*>(this) +
                                                                   slots_off(_n, _dir.slots))
                         : nullptr;
    }
    uint32_t unresolved_slots() const;

private:
    // The chunk x is in, from the region's ends or x's resolved slot `r[slot]` (a table of `n`
    // chunks `ch`, directory `top`); nullptr when that slot has more than two candidates. Its
    // arguments are the caller's locals (lookup_resolved: the stores to out[] could alias the
    // members).
    static const lpm_chunk<K>* resolved_chunk(const detail::key_dir<K>& top, const slot_chunks<K>* r,
                                              const lpm_chunk<K>* const* ch, uint32_t n, K x) {
        if (x < top.base)
            return ch[0];
        if (x >= top.end)
            return ch[n - 1];
        const slot_chunks<K>& e = r[top.slot(x)];
        return __builtin_expect(e.lo != nullptr, 1) ? e.pick(x) : nullptr;
    }
    // The chunk x is in (more than one chunk, not flat).
    const lpm_chunk<K>* chunk_of(K x) const {
        if (const slot_chunks<K>* r = slots())
            if (const lpm_chunk<K>* c = resolved_chunk(_dir, r, chunks(), _n, x))
                return c;
        uint32_t lo, len;
        _dir.narrow(dir(), _n, x, lo, len);
        return chunks()[detail::pick(first(), lo, len, x)];
    }
    // lookup_bulk over bursts of `burst`, stage by stage: a small table's without prefetches (in
    // cache), a big one's through the resolved slots, each stage prefetching the next's lines.
    void lookup_small(const K* xs, uint32_t* out, uint32_t n) const;
    void lookup_resolved(const K* xs, uint32_t* out, uint32_t n) const;
    static size_t first_off() { return detail::align_up(sizeof(lpm_index), alignof(K)); }
    static size_t chunks_off(uint32_t n) { return detail::align_up(first_off() + sizeof(K) * n, alignof(void*)); }
    static size_t dir_off(uint32_t n) { return chunks_off(n) + sizeof(void*) * n; }
    static size_t slots_off(uint32_t n, uint32_t slots) {
        return detail::align_up(dir_off(n) + sizeof(uint32_t) * (slots ? slots + 1 : 0), alignof(slot_chunks<K>));
    }
    static size_t bytes_for(uint32_t n, uint32_t slots, bool resolved) {
        return slots_off(n, slots) + (resolved ? sizeof(slot_chunks<K>) * slots : 0);
    }
    void resolve_slots();
    const uint32_t* dir() const {
        return reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(this) + dir_off(_n));
    }
    lpm_index() = default;
    uint32_t _n = 0;
    uint32_t _magic = 0;
    uint64_t _routes = 0;
    const lpm_flat<K>* _flat = nullptr;
    detail::key_dir<K> _dir;
    bool _resolved = false;  // slots() present: more than small_chunks chunks and a directory
};


template <class K>
void lpm_index<K>::lookup_bulk(const K* xs, uint32_t* out, uint32_t n) const {
    if (_flat) {
        _flat->lookup_bulk(xs, out, n);
        return;
    }
    if (_n == 1) {
        // One chunk (up to ~2 x chunk_target intervals: a PE's default VRF, a small customer
        // VRF): its whole walk is one directory slot and one pick, no index level to narrow.
        const typename lpm_chunk<K>::searcher c(*chunks()[0]);
        for (uint32_t i = 0; i < n; ++i)
            out[i] = c.lookup(xs[i]);
        return;
    }
    if (_resolved)
        lookup_resolved(xs, out, n);
    else
        lookup_small(xs, out, n);
}

template <class K>
void lpm_index<K>::lookup_small(const K* xs, uint32_t* out, uint32_t n) const {
    const K* first_keys = first();
    const lpm_chunk<K>* const* ch = chunks();
    const uint32_t* d = dir();
    const detail::key_dir<K> top = _dir;  // in locals: the stores to out[] could alias the members
    const uint32_t top_n = _n;
    // Stage by stage too, without prefetches: measured faster than address by address (each
    // stage's loop is short and its loads independent).
    for (uint32_t off = 0; off < n; off += burst) {
        const uint32_t m = n - off < burst ? n - off : burst;
        const K* x = xs + off;
        uint32_t lo[burst], len[burst];
        for (uint32_t i = 0; i < m; ++i)
            top.narrow(d, top_n, x[i], lo[i], len[i]);
        const lpm_chunk<K>* c[burst];
        for (uint32_t i = 0; i < m; ++i)
            c[i] = ch[detail::pick(first_keys, lo[i], len[i], x[i])];
        for (uint32_t i = 0; i < m; ++i)
            c[i]->narrow(x[i], lo[i], len[i]);
        for (uint32_t i = 0; i < m; ++i)
            out[off + i] = c[i]->values()[detail::pick(c[i]->keys(), lo[i], len[i], x[i])];
    }
}

// A big table misses in cache at every level: its lookups go stage by stage over the burst, each
// stage prefetching what the next reads, so that the misses of different addresses overlap
// (memory-level parallelism) instead of queueing behind each other. Three dependent rounds:
// the resolved slot; the chunk's header and directory; the interval's key and value. An address
// whose slot has more than two candidate chunks takes one more (the index's entries), which
// only the bursts holding one pay.
template <class K>
void lpm_index<K>::lookup_resolved(const K* xs, uint32_t* out, uint32_t n) const {
    const K* first_keys = first();
    const lpm_chunk<K>* const* ch = chunks();
    const uint32_t* d = dir();
    const slot_chunks<K>* r = slots();
    const detail::key_dir<K> top = _dir;  // in locals: the stores to out[] could alias the members
    const uint32_t top_n = _n;
    for (uint32_t off = 0; off < n; off += burst) {
        const uint32_t m = n - off < burst ? n - off : burst;
        const K* x = xs + off;
        for (uint32_t i = 0; i < m; ++i)
            __builtin_prefetch(r + top.slot(x[i]));
        const lpm_chunk<K>* c[burst];
        uint32_t lo[burst], len[burst];
        uint32_t unresolved = 0;
        for (uint32_t i = 0; i < m; ++i) {
            c[i] = resolved_chunk(top, r, ch, top_n, x[i]);
            if (__builtin_expect(c[i] != nullptr, 1)) {
                c[i]->prefetch_head();
            } else {
                top.narrow(d, top_n, x[i], lo[i], len[i]);
                __builtin_prefetch(first_keys + lo[i]);
                __builtin_prefetch(ch + lo[i]);
                ++unresolved;
            }
        }
        if (unresolved)
            for (uint32_t i = 0; i < m; ++i)
                if (!c[i]) {
                    c[i] = ch[detail::pick(first_keys, lo[i], len[i], x[i])];
                    c[i]->prefetch_head();
                }
        for (uint32_t i = 0; i < m; ++i) {
            c[i]->narrow(x[i], lo[i], len[i]);
            __builtin_prefetch(c[i]->keys() + lo[i]);
            __builtin_prefetch(c[i]->values() + lo[i]);
        }
        for (uint32_t i = 0; i < m; ++i)
            out[off + i] = c[i]->values()[detail::pick(c[i]->keys(), lo[i], len[i], x[i])];
    }
}

extern template class lpm_chunk<uint32_t>;
extern template class lpm_chunk<u128>;
extern template class lpm_index<uint32_t>;
extern template class lpm_index<u128>;

using lpm4_index = lpm_index<uint32_t>;
using lpm6_index = lpm_index<u128>;

}  // namespace fib
