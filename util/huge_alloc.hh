// Memory for the control side's big flat tables (the RIB's route slots and key index, the
// compiler's route state, the LPM mirrors' prefix maps): random probes into hundreds of MiB.
// With 4 KiB pages each such probe is a cache miss plus a TLB miss whose page walk misses too;
// regions of 2 MiB or more are therefore mapped 2 MiB-aligned and advised as transparent huge
// pages (MADV_HUGEPAGE: Debian's default THP mode is "madvise", where nothing else gets them).
// Where THP is off the advice does nothing and the memory is ordinary. Smaller regions come from
// operator new. Control thread use only (allocates and maps: never on a worker).
#pragma once

#include <cstddef>
#include <new>

namespace util {

inline constexpr size_t huge_page = size_t{2} << 20;

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
