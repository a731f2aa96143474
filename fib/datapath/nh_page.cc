#include "fib/datapath/nh_page.hh"

#include <new>

#include "fib/datapath/mem.hh"

namespace fib {

const nh_page* nh_page::create(const std::array<const compiled_nh*, nh_page_slots>& slots) {
    void* mem = alloc_block(mem_kind::nexthop, sizeof(nh_page));
    auto* p = new (mem) nh_page();
    for (uint32_t i = 0; i < nh_page_slots; ++i)
        p->_slot[i] = slots[i];
    p->_magic = nh_page_magic;
    return p;
}

void nh_page::destroy(const nh_page* p) noexcept {
    if (p)
        free_block(mem_kind::nexthop, const_cast<nh_page*>(p), sizeof(nh_page));
}

}  // namespace fib
