// Allocation of the immutable objects the workers read (LPM chunks and indexes, nexthops,
// views): cache-line aligned blocks, counted by kind so the memory of the compiled tables can be
// reported exactly, and poisoned when freed so that a reader that outlived its grace period
// reads garbage that fails its checks instead of stale but plausible data.
//
// Blocks up to 64 KiB are carved from 2 MiB transparent-huge-page slabs (a lookup in a big
// table then misses the cache but rarely the TLB) and, freed, go to a per-thread free list per
// 64-byte size class, handed out again by the next alloc_block of that class, or of one of the
// three classes below it when theirs is empty (a publication frees and allocates thousands of
// chunks of a few sizes: glibc's aligned allocation was a tenth of the compiler's time).
// Carved blocks never return to the heap: what is mapped is bounded by the sum of each size
// class's peak. Sanitizer builds use the heap directly, so that ASan sees
// every use after free.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace fib {

enum class mem_kind : uint8_t { lpm4, lpm6, nexthop, view, count_ };
constexpr size_t mem_kind_count = static_cast<size_t>(mem_kind::count_);

// "lpm4", "lpm6", "nexthop", "view": what srv6ctl show memory and the metrics call them.
constexpr const char* name(mem_kind k) {
    switch (k) {
    case mem_kind::lpm4: return "lpm4";
    case mem_kind::lpm6: return "lpm6";
    case mem_kind::nexthop: return "nexthop";
    case mem_kind::view: return "view";
    case mem_kind::count_: break;
    }
    return "?";
}

// Bytes and blocks currently allocated per kind (control thread allocates and frees; relaxed
// atomics only so that a stats reader on another thread sees sane numbers).
struct mem_counters {
    std::array<std::atomic<int64_t>, mem_kind_count> bytes{};
    std::array<std::atomic<int64_t>, mem_kind_count> blocks{};
    std::atomic<int64_t> pooled_bytes{0};  // freed, poisoned, kept for reuse (not in `bytes`)
};
const mem_counters& memory();

// Whether freed blocks are kept for reuse (false in ASan builds: the heap directly, so that ASan
// sees every use after free).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool block_pool_enabled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool block_pool_enabled = false;
#else
inline constexpr bool block_pool_enabled = true;
#endif
#else
inline constexpr bool block_pool_enabled = true;
#endif

// The byte every freed block is filled with before it goes back to the allocator.
constexpr uint8_t poison_byte = 0xa5;

void* alloc_block(mem_kind k, size_t bytes);
// Fills the block with poison_byte, then frees it. `bytes` must be what alloc_block got.
void free_block(mem_kind k, void* p, size_t bytes) noexcept;

}  // namespace fib
