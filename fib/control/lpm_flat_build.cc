// Building a flat LPM (fib/datapath/lpm_flat.hh) from a table's intervals: the directory's
// region and slots, IPv6 /64 lists, one block laid out for the workers. Control thread only.
#include "fib/datapath/lpm_flat.hh"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <vector>

#include "fib/datapath/lpm_table.hh"
#include "fib/datapath/mem.hh"

namespace fib {

namespace {

// What create() searches: the keys (IPv6: upper halves) with their values, and the IPv6 lists.
template <class S>
struct flat_parts {
    std::vector<S> keys;
    std::vector<uint32_t> values;
    uint32_t lists = 0;
    bool fits = true;  // every list's (first entry, entries) fits its 16 + 15 bits
    std::vector<uint64_t> sub_keys;
    std::vector<uint32_t> sub_vals;

    void push(S k, uint32_t v) {
        if (!values.empty() && values.back() == v)
            return;  // same nexthop as the interval before: one interval
        keys.push_back(k);
        values.push_back(v);
    }
};

// Scratch reused by every create() on this (the control) thread.
template <class S>
flat_parts<S>& scratch() {
    thread_local flat_parts<S> p;
    p.keys.clear();
    p.values.clear();
    p.lists = 0;
    p.fits = true;
    p.sub_keys.clear();
    p.sub_vals.clear();
    return p;
}

// IPv6 intervals -> entries per /64 (see lpm_flat.hh): a /64 in which one interval starts at
// its first address is a plain entry; one in which intervals start elsewhere gets a list.
void split_v6(const u128* keys, const uint32_t* values, uint32_t n, flat_parts<uint64_t>& p) {
    constexpr uint32_t esc = lpm_flat<u128>::esc_bit;
    for (uint32_t j = 0; j < n;) {
        const auto h = static_cast<uint64_t>(keys[j] >> 64);
        uint32_t g = j + 1;
        while (g < n && static_cast<uint64_t>(keys[g] >> 64) == h)
            ++g;
        if (g == j + 1 && static_cast<uint64_t>(keys[j]) == 0) {
            p.push(h, values[j]);
            j = g;
            continue;
        }
        const auto first = static_cast<uint32_t>(p.sub_keys.size());
        if (static_cast<uint64_t>(keys[j]) != 0) {  // j > 0: keys[0] is 0
            p.sub_keys.push_back(0);
            p.sub_vals.push_back(values[j - 1]);
        }
        for (uint32_t k = j; k < g; ++k) {
            p.sub_keys.push_back(static_cast<uint64_t>(keys[k]));
            p.sub_vals.push_back(values[k]);
        }
        const auto entries = static_cast<uint32_t>(p.sub_keys.size()) - first;
        p.lists += 1;
        p.fits &= first <= 0xffff && entries <= 0x7fff;
        p.keys.push_back(h);
        p.values.push_back(esc | entries << 16 | (first & 0xffff));
        if (h != ~uint64_t{0} && (g == n || static_cast<uint64_t>(keys[g] >> 64) != h + 1))
            p.push(h + 1, values[g - 1]);
        j = g;
    }
}

// The region the directory divides into equal slots: keys a[lo] .. a[hi]. Slot 0 (below it)
// holds intervals 0 .. lo - 1, slot slots + 1 (at or above a[hi]) intervals hi .. m - 1.
template <class S>
struct flat_region {
    uint32_t lo = 1, hi = 0;
    S base = 0, span = 0;
    uint32_t shift = 0, slots = 0;
};

// Slots of equal width over a[lo] .. a[hi] (hi > lo), 2^bit_width(m) at most.
template <class S>
flat_region<S> region(const S* a, uint32_t m, uint32_t lo, uint32_t hi) {
    flat_region<S> r;
    r.lo = lo;
    r.hi = hi;
    r.base = a[lo];
    r.span = static_cast<S>(a[hi] - a[lo]);
    const auto bits = static_cast<unsigned>(std::bit_width(m));
    const auto width = static_cast<unsigned>(std::bit_width(static_cast<S>(r.span - 1)));
    r.shift = width > bits ? width - bits : 0;
    r.slots = static_cast<uint32_t>(static_cast<S>(r.span - 1) >> r.shift) + 1;
    return r;
}

// Keys of the region that share their slot with pick_width - 1 others or more: a lookup there
// takes the binary search instead of the counted pick.
template <class S>
uint32_t crowded(const S* a, const flat_region<S>& r, uint32_t pick_width) {
    uint32_t bad = 0, run = 0;
    S prev = 0;
    for (uint32_t j = r.lo; j < r.hi; ++j) {
        const S s = static_cast<S>(a[j] - r.base) >> r.shift;
        if (run != 0 && s == prev) {
            ++run;
            continue;
        }
        bad += run >= pick_width ? run : 0;
        run = 1;
        prev = s;
    }
    return bad + (run >= pick_width ? run : 0);
}

// Equal slots over all the keys suit keys spread evenly (a customer VRF's /24s). Clustered
// ones, a few far from the rest (a default VRF: 2001:db8::/32 loopbacks, then the fc00::/16
// locators and SIDs within a few /48s), crowd into one slot: the region then leaves up to
// pick_width - 1 keys at either end to slot 0 and slot slots + 1, which stay counted picks, if
// that crowds fewer keys. Tried (up to 16 scans) only when leaving those keys out would narrow
// the region at least fourfold, i.e. some far keys stretch it: random keys crowd some slots
// too (a slot per key or two), and no region helps them.
template <class S>
flat_region<S> choose_region(const S* a, uint32_t m, uint32_t pick_width) {
    flat_region<S> best = region(a, m, 1, m - 1);
    const uint32_t ilo = std::min(pick_width, (m - 1) / 2), ihi = m > ilo + pick_width ? m - pick_width : ilo + 1;
    if (static_cast<S>(a[ihi] - a[ilo]) > best.span / 4)  // the narrowest region tried
        return best;
    uint32_t best_bad = crowded(a, best, pick_width);
    for (uint32_t lo = 1; best_bad != 0 && lo <= pick_width; ++lo)
        for (uint32_t hi = m - 1; hi + pick_width >= m && hi > lo + 1; --hi) {
            const flat_region<S> r = region(a, m, lo, hi);
            const uint32_t bad = crowded(a, r, pick_width);
            if (bad < best_bad) {
                best = r;
                best_bad = bad;
            }
        }
    return best;
}

}  // namespace

template <class K>
const lpm_flat<K>* lpm_flat<K>::create(const K* keys, const uint32_t* values, uint32_t n) {
    if (n == 0 || keys[0] != K{0})
        return nullptr;
    uint32_t all = 0;
    for (uint32_t i = 0; i < n; ++i)
        all |= values[i];
    if (all & esc_bit)
        return nullptr;
    auto& p = scratch<S>();
    const S* a = nullptr;
    const uint32_t* vals = nullptr;
    uint32_t m = n;
    if constexpr (sizeof(K) == 4) {
        a = keys;  // searched as they are
        vals = values;
    } else {
        split_v6(keys, values, n, p);
        a = p.keys.data();
        vals = p.values.data();
        m = static_cast<uint32_t>(p.keys.size());
    }
    if (m > max_n || !p.fits)
        return nullptr;

    // The directory: slots of 2^shift keys over [keys[lo], keys[hi]) (choose_region: usually
    // lo = 1, hi = m - 1), about two to four per key.
    lpm_flat hdr;
    hdr._n = m;
    hdr._lists = p.lists;
    hdr._sub_n = static_cast<uint32_t>(p.sub_keys.size());
    flat_region<S> rg;  // fewer than 3 keys: no slots between slot 0 (below keys[1]) and slot 1
    rg.hi = m - 1;
    if (m >= 2) {
        rg.base = a[1];
        rg.span = static_cast<S>(a[m - 1] - a[1]);
    }
    if (m >= 3)
        rg = choose_region(a, m, pick_width);
    hdr._base = rg.base;
    hdr._span = rg.span;
    hdr._shift = rg.shift;
    hdr._slots = rg.slots;
    const size_t bytes = hdr.bytes();
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes);
    auto* f = new (mem) lpm_flat(hdr);
    f->_magic = 0;

    // Real slot r covers [start_r, start_r + 2^shift) clipped to the region; its candidates run
    // from the interval holding start_r to the one holding its last key: last_r = the last key
    // inside slots 0..r, first_r = last_(r-1) + (a key sits at start_r). Keys are sorted, so
    // each slot is marked with its last key by plain stores (later keys overwrite), then one
    // running max; no branch per key (a sweep comparing keys with slot starts mispredicts at
    // every key) and no read-modify-write (which stalls when keys share a slot).
    auto* dir = const_cast<uint32_t*>(f->_dir());
    const uint32_t slots = f->_slots;
    std::memset(dir, 0, sizeof(uint32_t) * (slots + 2));
    constexpr uint32_t at_start = 0x80000000u;
    const S low_mask = static_cast<S>((S{1} << f->_shift) - 1);
    for (uint32_t j = rg.lo; j < rg.hi; ++j) {  // a[hi] is the region's end, in no slot
        const S d = static_cast<S>(a[j] - f->_base);
        dir[1 + static_cast<uint32_t>(d >> f->_shift)] = j | ((d & low_mask) == 0 ? at_start : 0);
    }
    uint32_t c = rg.lo - 1;  // the interval holding the region's start - 1
    for (uint32_t r = 1; r <= slots; ++r) {
        const uint32_t w = dir[r];
        // The flag survives only where the start key is alone in its slot; elsewhere first is
        // one lower than it could be, still a candidate range that holds x.
        const uint32_t lo = c + (w >> 31);
        const uint32_t last = w & ~at_start;
        c = last > c ? last : c;
        dir[r] = lo | c << 16;
    }
    dir[0] = (rg.lo - 1) << 16;                     // intervals 0 .. lo - 1, below keys[lo]
    dir[slots + 1] = rg.hi | (m - 1) << 16;        // hi .. m - 1, at or above keys[hi]
    auto* k = const_cast<S*>(f->_keys());
    auto* v = const_cast<uint32_t*>(f->_values());
    std::memcpy(k, a, sizeof(S) * m);
    std::memcpy(v, vals, sizeof(uint32_t) * m);
    for (uint32_t i = m; i < m + pick_width; ++i) {
        k[i] = static_cast<S>(~S{0});
        v[i] = vals[m - 1];
    }
    auto* gap = reinterpret_cast<char*>(v + m + pick_width);  // alignment padding: written, not left as it was
    std::memset(gap, 0, static_cast<size_t>(reinterpret_cast<const char*>(f->_sub_keys()) - gap));
    if (f->_sub_n) {
        std::memcpy(const_cast<uint64_t*>(f->_sub_keys()), p.sub_keys.data(), sizeof(uint64_t) * f->_sub_n);
        std::memcpy(const_cast<uint32_t*>(f->_sub_vals()), p.sub_vals.data(), sizeof(uint32_t) * f->_sub_n);
    }
    f->_magic = detail::lpm_flat_magic;
    return f;
}

template const lpm_flat<uint32_t>* lpm_flat<uint32_t>::create(const uint32_t*, const uint32_t*, uint32_t);
template const lpm_flat<u128>* lpm_flat<u128>::create(const u128*, const uint32_t*, uint32_t);

}  // namespace fib
