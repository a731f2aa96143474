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
    void* p = map_huge(len);
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
