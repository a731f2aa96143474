#include "fib/datapath/mem.hh"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "util/huge_alloc.hh"

namespace fib {

namespace {
mem_counters g_mem;
constexpr std::align_val_t block_align{64};

constexpr size_t granule = 64;
constexpr size_t pool_max_block = 64 * 1024;  // flat LPMs of customer VRFs (lpm_flat.hh) are 20-50 KiB
constexpr size_t pool_classes = pool_max_block / granule;

// Pooled blocks are carved from 2 MiB-aligned slabs advised as transparent huge pages: a lookup
// in a big table touches a random chunk per address, and with 4 KiB pages each is a TLB miss
// besides the cache miss. A carved block never goes back to the heap: freed, it waits in its
// size class's list, and the slabs live as long as the process. A block whose class list is
// empty takes a free block of one of the next `class_slack` classes (at most 192 bytes more)
// before carving a fresh one: a republished LPM chunk is rarely the size of the one it replaces,
// and a fresh block's pages must first be zeroed by the kernel. Freed again, such a block goes
// to the class it was asked for, its spare bytes unused. Figures: docs/fib-compile.md.
constexpr size_t slab_bytes = util::huge_page;
constexpr size_t class_slack = 3;

struct slab_set {
    std::mutex m;
    std::vector<uintptr_t> bases;  // every slab mapped (for blocks freed after a pool is gone)
    bool owns(const void* p) {
        const std::lock_guard<std::mutex> g(m);
        const auto a = reinterpret_cast<uintptr_t>(p);
        for (uintptr_t b : bases)
            if (a >= b && a < b + slab_bytes)
                return true;
        return false;
    }
};
slab_set& slabs() {
    static auto* s = new slab_set;  // never destroyed: frees may come during static destruction
    return *s;
}

// A fresh slab (util::map_huge: 2 MiB-aligned, advised as a transparent huge page; where THP
// is off or "never", ordinary memory).
char* map_slab() {
    const auto start = reinterpret_cast<uintptr_t>(util::map_huge(slab_bytes));
    auto& s = slabs();
    const std::lock_guard<std::mutex> g(s.m);
    s.bases.push_back(start);
    return reinterpret_cast<char*>(start);
}

// Freed blocks by size class (class c holds blocks of (c + 1) * 64 bytes), this thread's.
// Blocks freed after the pool is gone (static destructors after thread_local ones) use the heap.
thread_local bool t_pool_dead = false;
struct block_pool {
    std::vector<void*> free[pool_classes];
    size_t bytes = 0;
    char* cur = nullptr;  // the unused rest of this thread's current slab
    size_t left = 0;
    ~block_pool() {
        t_pool_dead = true;  // its blocks stay in their slabs (the rest of a slab is lost)
        g_mem.pooled_bytes.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    }
    void* carve(size_t size) {
        if (left < size) {
            cur = map_slab();
            left = slab_bytes;
        }
        void* p = cur;
        cur += size;
        left -= size;
        return p;
    }
};
thread_local block_pool t_pool;

size_t class_of(size_t bytes) { return (bytes + granule - 1) / granule - 1; }
}  // namespace

const mem_counters& memory() { return g_mem; }

void* alloc_block(mem_kind k, size_t bytes) {
    void* p = nullptr;
    if (block_pool_enabled && bytes > 0 && bytes <= pool_max_block && !t_pool_dead) {
        const size_t c = class_of(bytes);
        size_t from = c;
        while (t_pool.free[from].empty() && from < std::min(c + class_slack, pool_classes - 1))
            ++from;
        auto& list = t_pool.free[from];
        if (!list.empty()) {
            p = list.back();
            list.pop_back();
            t_pool.bytes -= (from + 1) * granule;
            g_mem.pooled_bytes.fetch_sub(static_cast<int64_t>((from + 1) * granule), std::memory_order_relaxed);
        } else {
            p = t_pool.carve((c + 1) * granule);
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
    if (block_pool_enabled && bytes > 0 && bytes <= pool_max_block && !t_pool_dead) {
        const size_t c = class_of(bytes);
        const size_t size = (c + 1) * granule;
        try {
            t_pool.free[c].push_back(p);
        } catch (...) {
            return;  // out of memory for the list: the block stays unused in its slab
        }
        t_pool.bytes += size;
        g_mem.pooled_bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
        return;
    }
    // Pooled-size blocks freed after this thread's pool is gone: a carved one stays in its slab.
    if (block_pool_enabled && bytes > 0 && bytes <= pool_max_block && slabs().owns(p))
        return;
    ::operator delete(p, block_align);
}

}  // namespace fib
