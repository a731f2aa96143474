// The flat published form of a small LPM (a customer VRF: up to lpm_flat_max_intervals
// intervals): the table's intervals in one block, searched in three dependent loads and no
// pointer: directory slot -> the next key(s) -> value.
//
//   dir[0 .. slots + 1]: one 32-bit word per slot, first candidate | last candidate << 16;
//                        slot 0 = below the region, slot slots + 1 = at or above its end
//                        (the region runs from keys[1] to keys[n - 1], or leaves up to
//                        pick_width - 1 keys at either end out when the keys are clustered)
//   keys[0 .. n + pad), values[0 .. n + pad): the interval starts and their nexthop indexes;
//                        the pad repeats the last interval (keys = all ones) so that a pick
//                        may read past the last candidate without a bound check
//
// The directory has one to two slots per key (2^bit_width(n)), so a slot almost always names
// one or two candidate intervals: the pick compares x with the key after the first candidate
// and the ones after it up to pick_width - 1, counting, without a branch; a wider slot (rare)
// takes a binary search.
//
// IPv6 searches on the upper 64 bits of the address: the usual L3VPN table has no prefix
// longer than /64, and a u64 compare is one instruction where a u128 one is three. Where
// intervals start inside a /64 (longer prefixes: host routes, SIDs), the /64 gets one entry
// whose value has esc_bit set and names (first entry, entries) a small list of (lower 64 bits,
// nexthop) searched by the lower half; the /64 after it gets an entry of its own with the
// list's last nexthop.
//
// Built once by lpm_builder (control thread), never written again, freed through the RCU domain
// with the lpm_index that points to it. Nexthop index 0 is "no route".
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "fib/datapath/lpm_key.hh"
#include "fib/datapath/mem.hh"

namespace fib {

// Tables of at most this many intervals (the builder's count, before merging neighbours with
// the same nexthop) are published flat: a 1 000-route customer VRF has ~2 000. Above it a
// publication would copy too much (the two-level form copies only the chunks a change touched).
constexpr uint32_t lpm_flat_max_intervals = 3072;

namespace detail {
inline constexpr uint32_t lpm_flat_magic = 0x4c504d46;  // "LPMF": intact() tells a live table
}  // namespace detail

template <class K>
class lpm_flat {
public:
    using S = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;  // the searched key
    static constexpr uint32_t esc_bit = 0x80000000u;  // IPv6: the value names a list (see above)
    static constexpr uint32_t pick_width = 4;         // candidates a pick compares without a branch
    static constexpr uint32_t max_n = 0xffff;         // what a 16-bit directory entry indexes

    // keys[0..n) sorted, keys[0] = 0; values < esc_bit. Null if the table cannot be flat (too
    // many entries, or a nexthop index with esc_bit set). Control thread only: defined in
    // fib/control/lpm_flat_build.cc.
    static const lpm_flat* create(const K* keys, const uint32_t* values, uint32_t n);
    static void destroy(const lpm_flat* f) noexcept;

    bool intact() const;
    uint32_t size() const { return _n; }  // searched entries (IPv6: /64s, after merging)
    uint32_t lists() const { return _lists; }  // IPv6: /64s searched further on the lower half
    // Directory slots naming more than pick_width candidates: their lookups take the binary
    // search (tests and diagnostics).
    uint32_t wide_slots() const {
        uint32_t w = 0;
        for (uint32_t s = 0; s < _slots + 2; ++s)
            w += (_dir()[s] >> 16) - (_dir()[s] & 0xffff) >= pick_width;
        return w;
    }

    uint32_t lookup(K x) const {
        const uint32_t v = _values()[searcher(*this).pick(upper(x))];
        if constexpr (sizeof(K) == 4)
            return v;
        else
            return __builtin_expect((v & esc_bit) != 0, 0) ? sub_lookup(v, static_cast<uint64_t>(x)) : v;
    }
    // out[i] = lookup(xs[i]); the loop carries no dependency between addresses, so the CPU
    // overlaps the three loads of several of them.
    void lookup_bulk(const K* xs, uint32_t* out, uint32_t n) const {
        // The table's facts in locals: the stores to out[] could alias the members (uint32_t
        // both), which made every address reload them and recompute the arrays' offsets.
        const searcher t(*this);
        const uint32_t* vals = _values();
        uint32_t any = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t v = vals[t.pick(upper(xs[i]))];
            out[i] = v;
            any |= v;
        }
        if constexpr (sizeof(K) != 4)
            if (__builtin_expect((any & esc_bit) != 0, 0))
                for (uint32_t i = 0; i < n; ++i)
                    if (out[i] & esc_bit)
                        out[i] = sub_lookup(out[i], static_cast<uint64_t>(xs[i]));
    }

private:
    static S upper(K x) {
        if constexpr (sizeof(K) == 4)
            return x;
        else
            return static_cast<uint64_t>(x >> 64);
    }
    // What a search reads of the table, copied out of it once per lookup or burst.
    struct searcher {
        S base, span;
        uint32_t shift, slots;
        const uint32_t* dir;
        const S* keys;
        explicit searcher(const lpm_flat& f)
            : base(f._base), span(f._span), shift(f._shift), slots(f._slots), dir(f._dir()), keys(f._keys()) {}

        // The directory slot of x: 0 below the region, slots + 1 at or above its end.
        uint32_t slot(S x) const {
            const S d = static_cast<S>(x - base);  // wraps above the region when x < base
            uint32_t s = 1 + static_cast<uint32_t>(d >> shift);
            s = d >= span ? slots + 1 : s;
            return x < base ? 0 : s;
        }
        // Index of the interval holding x.
        uint32_t pick(S x) const {
            const uint32_t e = dir[slot(x)];
            const uint32_t lo = e & 0xffff, last = e >> 16;
            const S* k = keys + lo;
            if (__builtin_expect(last - lo < pick_width, 1)) {
                uint32_t i = lo;
                for (uint32_t j = 1; j < pick_width; ++j)
                    i += k[j] <= x;  // keys past `last` are > x (or the pad)
                return i;
            }
            uint32_t len = last - lo + 1;
            while (len > 1) {
                const uint32_t half = len / 2;
                k = k[half] <= x ? k + half : k;
                len -= half;
            }
            return static_cast<uint32_t>(k - keys);
        }
    };
    // The nexthop of the address whose lower half is `lower` in the list v names (v: esc_bit |
    // entries << 16 | first entry, so no load stands between the value and the list). Lists are
    // short (the /128 SIDs of one /64): counted without a branch per entry up to 8 entries.
    uint32_t sub_lookup(uint32_t v, uint64_t lower) const {
        const uint32_t b = v & 0xffff, len = (v >> 16) & 0x7fff;
        if (__builtin_expect(b + len > _sub_n || len == 0, 0))
            return 0;  // no route; cannot happen in a table create() built: never read past the lists
        const uint64_t* k = _sub_keys() + b;
        uint32_t i = 0;
        if (__builtin_expect(len <= 8, 1)) {
            for (uint32_t j = 1; j < len; ++j)
                i += k[j] <= lower;  // k[0] is 0: every lower half is in the list
        } else {
            uint32_t n = len;
            while (n > 1) {
                const uint32_t half = n / 2;
                i = k[i + half] <= lower ? i + half : i;
                n -= half;
            }
        }
        return _sub_vals()[b + i];
    }

    static size_t dir_off() { return sizeof(lpm_flat); }
    size_t keys_off() const { return detail_align8(dir_off() + sizeof(uint32_t) * (_slots + 2)); }
    size_t values_off() const { return keys_off() + sizeof(S) * (_n + pick_width); }
    size_t sub_keys_off() const { return detail_align8(values_off() + sizeof(uint32_t) * (_n + pick_width)); }
    size_t sub_vals_off() const { return sub_keys_off() + sizeof(uint64_t) * _sub_n; }
    size_t bytes() const { return sub_vals_off() + sizeof(uint32_t) * _sub_n; }
    static constexpr size_t detail_align8(size_t v) { return (v + 7) & ~size_t{7}; }

    const char* _at(size_t off) const { return reinterpret_cast<const char*>(this) + off; }
    const uint32_t* _dir() const { return reinterpret_cast<const uint32_t*>(_at(dir_off())); }
    const S* _keys() const { return reinterpret_cast<const S*>(_at(keys_off())); }
    const uint32_t* _values() const { return reinterpret_cast<const uint32_t*>(_at(values_off())); }
    const uint64_t* _sub_keys() const { return reinterpret_cast<const uint64_t*>(_at(sub_keys_off())); }
    const uint32_t* _sub_vals() const { return reinterpret_cast<const uint32_t*>(_at(sub_vals_off())); }

    lpm_flat() = default;
    S _base = 0;  // the region's start: keys[1], or a later key when the first ones lie far apart
    S _span = 0;  // the region's width: to keys[n - 1], or an earlier key (lpm_flat.cc, choose_region)
    uint32_t _shift = 0;
    uint32_t _slots = 0;
    uint32_t _n = 0;
    uint32_t _lists = 0;  // IPv6: lists of (lower 64 bits, nexthop)
    uint32_t _sub_n = 0;  // entries in all lists
    uint32_t _magic = 0;
};

extern template class lpm_flat<uint32_t>;
extern template class lpm_flat<u128>;

}  // namespace fib
