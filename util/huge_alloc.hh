// Memory for the control side's big flat tables (the RIB's route slots and key index, the
// compiler's route state, the LPM mirrors' prefix maps): random probes into hundreds of MiB.
// With 4 KiB pages each such probe is a cache miss plus a TLB miss whose page walk misses too;
// regions of 2 MiB or more are therefore mapped 2 MiB-aligned and advised as transparent huge
// pages (MADV_HUGEPAGE: Debian's default THP mode is "madvise", where nothing else gets them).
// Where THP is off the advice does nothing and the memory is ordinary. Smaller regions come from
// operator new. Control thread use only (allocates and maps: never on a worker).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace util {

inline constexpr size_t huge_page = size_t{2} << 20;

// A fresh zero-filled anonymous mapping of `len` bytes (a multiple of huge_page) that starts on
// a 2 MiB boundary, advised as transparent huge pages; release it with munmap. Inline so that
// fib/datapath's block pool, which may not link util, maps its slabs the same way.
// Throws std::bad_alloc when the memory cannot be had.
inline void* map_huge(size_t len) {
    // Map one huge page more than needed and trim both ends to a 2 MiB boundary: mmap itself
    // only promises 4 KiB alignment, and a huge page must start on a 2 MiB boundary.
    void* m = mmap(nullptr, len + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        throw std::bad_alloc();
    const auto raw = reinterpret_cast<uintptr_t>(m);
    const uintptr_t start = (raw + huge_page - 1) & ~(uintptr_t{huge_page} - 1);
    if (start > raw)
        munmap(m, start - raw);
    if (const size_t tail = raw + len + huge_page - (start + len); tail > 0)
        munmap(reinterpret_cast<void*>(start + len), tail);
    void* p = reinterpret_cast<void*>(start);
    (void)madvise(p, len, MADV_HUGEPAGE);  // advice only: EINVAL where THP is not built in
    return p;
}

// Zero-filled when `bytes` >= huge_page (fresh anonymous mapping), unspecified otherwise.
// Throws std::bad_alloc when the memory cannot be had.
void* huge_alloc(size_t bytes);
// `bytes` must be what was passed to huge_alloc.
void huge_free(void* p, size_t bytes) noexcept;
// Bytes mapped by huge_alloc now (outside malloc's statistics: benches add it to mallinfo's).
size_t huge_bytes();

// For std::vector and friends.
template <class T>
struct huge_allocator {
    using value_type = T;
    huge_allocator() = default;
    template <class U>
    huge_allocator(const huge_allocator<U>&) noexcept {}  // NOLINT: rebinding is implicit
    T* allocate(size_t n) {
        if (n > static_cast<size_t>(-1) / sizeof(T))
            throw std::bad_array_new_length();
        return static_cast<T*>(huge_alloc(n * sizeof(T)));
    }
    void deallocate(T* p, size_t n) noexcept { huge_free(p, n * sizeof(T)); }
    template <class U>
    bool operator==(const huge_allocator<U>&) const noexcept {
        return true;
    }
};

}  // namespace util
