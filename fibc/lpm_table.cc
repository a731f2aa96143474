#include "fibc/lpm_table.hh"

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

template <class K>
const lpm_index<K>* lpm_index<K>::create(const K* first, const lpm_chunk<K>* const* chunks, uint32_t n,
                                         uint64_t routes) {
    void* mem = alloc_block(detail::lpm_mem_kind<K>(), bytes_for(n));
    auto* t = new (mem) lpm_index();
    t->_n = n;
    t->_magic = lpm_live_magic;
    t->_routes = routes;
    std::memcpy(const_cast<K*>(t->first()), first, sizeof(K) * n);
    std::memcpy(const_cast<lpm_chunk<K>**>(t->chunks()), chunks, sizeof(void*) * n);
    return t;
}

template <class K>
void lpm_index<K>::destroy(const lpm_index* t) noexcept {
    if (t)
        free_block(detail::lpm_mem_kind<K>(), const_cast<lpm_index*>(t), bytes_for(t->_n));
}

template class lpm_chunk<uint32_t>;
template class lpm_chunk<u128>;
template class lpm_index<uint32_t>;
template class lpm_index<u128>;

}  // namespace fib
