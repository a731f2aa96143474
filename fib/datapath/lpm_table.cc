#include "fib/datapath/lpm_table.hh"

#include <algorithm>
#include <cstring>
#include <new>

namespace fib {

template <class K>
const lpm_chunk<K>* lpm_chunk<K>::create(const K* keys, const uint32_t* values, uint32_t n) {
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes_for(n));
    auto* c = new (mem) lpm_chunk();
    c->_n = n;
    c->_magic = lpm_live_magic;
    std::memcpy(const_cast<K*>(c->keys()), keys, sizeof(K) * n);
    std::memcpy(const_cast<uint32_t*>(c->values()), values, sizeof(uint32_t) * n);
    return c;
}

template <class K>
void lpm_chunk<K>::destroy(const lpm_chunk* c) noexcept {
    if (c)
        free_block(detail::lpm_mem_kind<K>(), const_cast<lpm_chunk*>(c), bytes_for(c->_n));
}

namespace {
template <class K>
unsigned leading_zeros(K v) {
    if constexpr (sizeof(K) == 4) {
        return v ? static_cast<unsigned>(__builtin_clz(v)) : 32;
    } else {
        const auto hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
        if (hi)
            return static_cast<unsigned>(__builtin_clzll(hi));
        return lo ? 64 + static_cast<unsigned>(__builtin_clzll(lo)) : 128;
    }
}
}  // namespace

template <class K>
const lpm_index<K>* lpm_index<K>::create(const K* first, const lpm_chunk<K>* const* chunks, uint32_t n,
                                         uint64_t routes, const lpm_index* same_first) {
    constexpr unsigned bits = key_traits<K>::bits;
    const uint32_t dir_n = n >= dir_min_chunks ? (1u << dir_bits) + 1 : 0;
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes_for(n, dir_n));
    auto* t = new (mem) lpm_index();
    t->_n = n;
    t->_routes = routes;
    std::memcpy(const_cast<K*>(t->first()), first, sizeof(K) * n);
    std::memcpy(const_cast<lpm_chunk<K>**>(t->chunks()), chunks, sizeof(void*) * n);
    if (dir_n && same_first && same_first->_n == n && same_first->_dir_n == dir_n) {
        t->_dir_n = dir_n;
        t->_dir_shift = same_first->_dir_shift;
        t->_dir_mask = same_first->_dir_mask;
        t->_dir_base = same_first->_dir_base;
        std::memcpy(const_cast<uint32_t*>(t->dir()), same_first->dir(), sizeof(uint32_t) * dir_n);
    } else if (dir_n) {
        // The region: the common prefix of first[1] .. first[n-1] (first[0] is always 0).
        unsigned common = leading_zeros<K>(static_cast<K>(first[1] ^ first[n - 1]));
        common = std::min(common, bits - dir_bits);
        t->_dir_n = dir_n;
        t->_dir_shift = bits - common - dir_bits;
        t->_dir_mask = prefix_mask<K>(common);
        t->_dir_base = static_cast<K>(first[1] & t->_dir_mask);
        auto* d = const_cast<uint32_t*>(t->dir());
        uint32_t j = 0;
        for (uint32_t s = 0; s < dir_n; ++s) {
            // Slot s starts at base | s << shift; the sentinel stands for the region's last key.
            const K start = s + 1 < dir_n ? static_cast<K>(t->_dir_base | (static_cast<K>(s) << t->_dir_shift))
                                          : prefix_last<K>(t->_dir_base, common);
            while (j + 1 < n && first[j + 1] <= start)
                ++j;
            d[s] = j;
        }
    }
    t->_magic = lpm_live_magic;
    return t;
}

template <class K>
void lpm_index<K>::destroy(const lpm_index* t) noexcept {
    if (t)
        free_block(detail::lpm_mem_kind<K>(), const_cast<lpm_index*>(t), bytes_for(t->_n, t->_dir_n));
}

template class lpm_chunk<uint32_t>;
template class lpm_chunk<u128>;
template class lpm_index<uint32_t>;
template class lpm_index<u128>;

}  // namespace fib
