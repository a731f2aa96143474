#include "util/huge_alloc.hh"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>

namespace util {

namespace {

size_t round_up(size_t n) { return (n + huge_page - 1) & ~(huge_page - 1); }

std::atomic<size_t> g_mapped{0};

}  // namespace

void* huge_alloc(size_t bytes) {
    if (bytes < huge_page)
        return ::operator new(bytes);
    const size_t len = round_up(bytes);
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
    g_mapped.fetch_add(len, std::memory_order_relaxed);
    return p;
}

void huge_free(void* p, size_t bytes) noexcept {
    if (!p)
        return;
    if (bytes < huge_page) {
        ::operator delete(p);
        return;
    }
    munmap(p, round_up(bytes));
    g_mapped.fetch_sub(round_up(bytes), std::memory_order_relaxed);
}

size_t huge_bytes() { return g_mapped.load(std::memory_order_relaxed); }

}  // namespace util
