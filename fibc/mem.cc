#include "fibc/mem.hh"

#include <cstring>
#include <new>

namespace fib {

namespace {
mem_counters g_mem;
constexpr std::align_val_t block_align{64};
}  // namespace

const mem_counters& memory() { return g_mem; }

void* alloc_block(mem_kind k, size_t bytes) {
    void* p = ::operator new(bytes, block_align);
    const auto i = static_cast<size_t>(k);
    g_mem.bytes[i].fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    g_mem.blocks[i].fetch_add(1, std::memory_order_relaxed);
    return p;
}

void free_block(mem_kind k, void* p, size_t bytes) noexcept {
    if (!p)
        return;
    std::memset(p, poison_byte, bytes);
    const auto i = static_cast<size_t>(k);
    g_mem.bytes[i].fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    g_mem.blocks[i].fetch_sub(1, std::memory_order_relaxed);
    ::operator delete(p, block_align);
}

}  // namespace fib
