#include "fib/datapath/lpm_table.hh"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

namespace fib {

namespace detail {

namespace {
template <class K>
unsigned key_bit_width(K v) {
    if constexpr (sizeof(K) == 4) {
        return static_cast<unsigned>(std::bit_width(v));
    } else {
        const auto hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
        return hi ? 64 + static_cast<unsigned>(std::bit_width(hi)) : static_cast<unsigned>(std::bit_width(lo));
    }
}
}  // namespace

uint32_t key_dir_bits(uint32_t n, unsigned max_bits) {
    return std::min<uint32_t>(static_cast<uint32_t>(std::bit_width(n)) + 1, max_bits);
}

template <class K>
key_dir<K> plan_key_dir(const K* a, uint32_t n, unsigned bits) {
    key_dir<K> p;
    if (n < 2)
        return p;
    p.base = a[1];
    p.end = a[n - 1];
    if (n < 3)
        return p;  // one inner key: below it or not
    // Slots of 2^shift keys from a[1]: the widest span is a[n-1] - 1 - a[1].
    const K span = static_cast<K>(p.end - 1 - p.base);
    const unsigned width = key_bit_width<K>(span);
    p.shift = width > bits ? width - bits : 0;
    p.slots = static_cast<uint32_t>(static_cast<K>(span >> p.shift)) + 1;
    return p;
}

template <class K, class E>
void build_key_dir(const K* a, uint32_t n, const key_dir<K>& p, E* dir) {
    // dir[s] is the last j with a[j] <= start(s), start(s) = base + s << shift. Walked by key,
    // not by slot (about two slots a key, and a slot's start is a wide compare for IPv6): key j
    // is <= start(s) from slot c_j = ceil((a[j] - base) >> shift) on, so slots c_{j-1} ..
    // c_j - 1 hold j - 1. A publication rebuilds thousands of chunk directories.
    const K mask = p.shift ? static_cast<K>((static_cast<K>(1) << p.shift) - 1) : static_cast<K>(0);
    uint32_t s = 0;
    for (uint32_t j = 1; j < n && s < p.slots; ++j) {
        const K d = static_cast<K>(a[j] - p.base);  // a[j] >= a[1] = base
        K c = static_cast<K>((d >> p.shift) + ((d & mask) != 0 ? 1 : 0));
        if (c > p.slots)
            c = p.slots;
        for (const auto until = static_cast<uint32_t>(c); s < until; ++s)
            dir[s] = static_cast<E>(j - 1);
    }
    for (; s < p.slots; ++s)
        dir[s] = static_cast<E>(n - 1);
    // The sentinel: the entry holding the region's last key, end - 1.
    uint32_t j = p.slots ? static_cast<uint32_t>(dir[p.slots - 1]) : 0;
    while (j + 1 < n && a[j + 1] <= static_cast<K>(p.end - 1))
        ++j;
    dir[p.slots] = static_cast<E>(j);
}

template key_dir<uint32_t> plan_key_dir(const uint32_t*, uint32_t, unsigned);
template key_dir<u128> plan_key_dir(const u128*, uint32_t, unsigned);
template void build_key_dir(const uint32_t*, uint32_t, const key_dir<uint32_t>&, uint8_t*);
template void build_key_dir(const uint32_t*, uint32_t, const key_dir<uint32_t>&, uint32_t*);
template void build_key_dir(const u128*, uint32_t, const key_dir<u128>&, uint8_t*);
template void build_key_dir(const u128*, uint32_t, const key_dir<u128>&, uint32_t*);

}  // namespace detail

template <class K>
const lpm_chunk<K>* lpm_chunk<K>::create(const K* keys, const uint32_t* values, uint32_t n) {
    // About two directory slots per interval; none for a single interval or above dir_max_n.
    detail::key_dir<K> p = detail::plan_key_dir(keys, n, detail::key_dir_bits(n, 8));
    if (n > dir_max_n)
        p.slots = 0;  // the entries would not fit in the directory's bytes
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes_for(n, p.slots));
    auto* c = new (mem) lpm_chunk();
    c->_n = n;
    c->_dir = p;
    if (p.slots)
        detail::build_key_dir(keys, n, p, const_cast<uint8_t*>(c->dir()));
    std::memcpy(const_cast<K*>(c->keys()), keys, sizeof(K) * n);
    std::memcpy(const_cast<uint32_t*>(c->values()), values, sizeof(uint32_t) * n);
    c->_magic = lpm_live_magic;
    return c;
}

template <class K>
void lpm_chunk<K>::destroy(const lpm_chunk* c) noexcept {
    if (c)
        free_block(detail::lpm_mem_kind<K>(), const_cast<lpm_chunk*>(c), bytes_for(c->_n, c->_dir.slots));
}

template <class K>
const lpm_index<K>* lpm_index<K>::create(const K* first, const lpm_chunk<K>* const* chunks, uint32_t n,
                                         uint64_t routes, const lpm_index* same_first) {
    const bool reuse = same_first && same_first->_n == n;
    const detail::key_dir<K> p = reuse ? same_first->_dir : detail::plan_key_dir(first, n, detail::key_dir_bits(n, dir_max_bits));
    const bool resolved = n > small_chunks && p.slots != 0;
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes_for(n, p.slots, resolved));
    auto* t = new (mem) lpm_index();
    t->_n = n;
    t->_resolved = resolved;
    t->_routes = routes;
    std::memcpy(const_cast<K*>(t->first()), first, sizeof(K) * n);
    std::memcpy(const_cast<lpm_chunk<K>**>(t->chunks()), chunks, sizeof(void*) * n);
    t->_dir = p;
    auto* d = const_cast<uint32_t*>(t->dir());
    if (reuse && p.slots)
        std::memcpy(d, same_first->dir(), sizeof(uint32_t) * (p.slots + 1));
    else if (p.slots)
        detail::build_key_dir(first, n, p, d);
    if (resolved)
        t->resolve_slots();
    t->_magic = lpm_live_magic;
    return t;
}

// What the slot's comment and docs/fib-compile.md promise: four slots to a cache line for IPv4.
static_assert(sizeof(slot_chunks<uint32_t>) == 16 && sizeof(slot_chunks<u128>) == 32);

template <class K>
void lpm_index<K>::resolve_slots() {
    // Slot s holds entries dir[s] .. dir[s + 1] (key_dir): one or two of them almost always (about
    // two slots per chunk). The second chunk is stored as a distance from the first so that an
    // IPv4 slot fits 16 bytes; chunks are 64-byte blocks, and a distance that does not fit 32 bits
    // of lines (blocks more than 128 GiB apart) leaves the slot to the index's entries.
    const uint32_t* d = dir();
    const K* f = first();
    const lpm_chunk<K>* const* ch = chunks();
    auto* r = const_cast<slot_chunks<K>*>(slots());
    for (uint32_t s = 0; s < _dir.slots; ++s) {
        const uint32_t lo = d[s], hi = d[s + 1];
        r[s] = {nullptr, 0, K{0}};
        if (hi == lo) {
            r[s] = {ch[lo], 0, static_cast<K>(~K{0})};
        } else if (hi == lo + 1) {
            const auto a = reinterpret_cast<intptr_t>(ch[lo]), b = reinterpret_cast<intptr_t>(ch[hi]);
            const intptr_t lines = (b - a) / 64;
            if ((b - a) % 64 == 0 && lines == static_cast<int32_t>(lines))
                r[s] = {ch[lo], static_cast<int32_t>(lines), f[hi]};
        }
    }
}

template <class K>
uint32_t lpm_index<K>::unresolved_slots() const {
    uint32_t k = 0;
    if (const slot_chunks<K>* r = slots())
        for (uint32_t s = 0; s < _dir.slots; ++s)
            k += r[s].lo == nullptr;
    return k;
}

template <class K>
const lpm_index<K>* lpm_index<K>::create_flat(const lpm_flat<K>* flat, uint64_t routes) {
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes_for(0, 0, false));
    auto* t = new (mem) lpm_index();
    t->_routes = routes;
    t->_flat = flat;
    t->_magic = lpm_live_magic;
    return t;
}

template <class K>
void lpm_index<K>::destroy(const lpm_index* t) noexcept {
    if (t)
        lpm_flat<K>::destroy(t->_flat);
    if (t)
        free_block(detail::lpm_mem_kind<K>(), const_cast<lpm_index*>(t), bytes_for(t->_n, t->_dir.slots, t->_resolved));
}

template class lpm_chunk<uint32_t>;
template class lpm_chunk<u128>;
template class lpm_index<uint32_t>;
template class lpm_index<u128>;

}  // namespace fib
