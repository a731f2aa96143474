#include "fib/datapath/mem.hh"

#include <cstring>
#include <new>
#include <vector>

namespace fib {

namespace {
mem_counters g_mem;
constexpr std::align_val_t block_align{64};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool pool_enabled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool pool_enabled = false;
#else
constexpr bool pool_enabled = true;
#endif
#else
constexpr bool pool_enabled = true;
#endif

constexpr size_t granule = 64;
constexpr size_t pool_max_block = 64 * 1024;  // flat LPMs of customer VRFs (lpm_flat.hh) are 20-50 KiB
constexpr size_t pool_classes = pool_max_block / granule;
constexpr size_t pool_max_bytes = 64u << 20;

// Freed blocks by size class (class c holds blocks of (c + 1) * 64 bytes), this thread's.
// Blocks freed after the pool is gone (static destructors after thread_local ones) use the heap.
thread_local bool t_pool_dead = false;
struct block_pool {
    std::vector<void*> free[pool_classes];
    size_t bytes = 0;
    ~block_pool() {
        t_pool_dead = true;
        for (size_t c = 0; c < pool_classes; ++c)
            for (void* p : free[c])
                ::operator delete(p, block_align);
        g_mem.pooled_bytes.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    }
};
thread_local block_pool t_pool;

size_t class_of(size_t bytes) { return (bytes + granule - 1) / granule - 1; }
}  // namespace

const mem_counters& memory() { return g_mem; }

void* alloc_block(mem_kind k, size_t bytes) {
    void* p = nullptr;
    if (pool_enabled && bytes > 0 && bytes <= pool_max_block && !t_pool_dead) {
        const size_t c = class_of(bytes);
        auto& list = t_pool.free[c];
        if (!list.empty()) {
            p = list.back();
            list.pop_back();
            t_pool.bytes -= (c + 1) * granule;
            g_mem.pooled_bytes.fetch_sub(static_cast<int64_t>((c + 1) * granule), std::memory_order_relaxed);
        } else {
            p = ::operator new((c + 1) * granule, block_align);
        }
    } else {
        p = ::operator new(bytes, block_align);
    }
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
    if (pool_enabled && bytes > 0 && bytes <= pool_max_block && !t_pool_dead) {
        const size_t c = class_of(bytes);
        const size_t size = (c + 1) * granule;
        if (t_pool.bytes + size <= pool_max_bytes) {
            try {
                t_pool.free[c].push_back(p);
            } catch (...) {
                ::operator delete(p, block_align);
                return;
            }
            t_pool.bytes += size;
            g_mem.pooled_bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
            return;
        }
    }
    ::operator delete(p, block_align);
}

}  // namespace fib
