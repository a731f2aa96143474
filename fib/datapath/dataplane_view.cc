#include "fib/datapath/dataplane_view.hh"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>

#include "fib/datapath/mem.hh"

namespace fib {

namespace {
const vrf_lpm no_tables{};

// A VRF without a table of that family answers every address with a miss.
template <class T, class K>
void bulk_or_miss(const T* t, const K* keys, uint32_t* nh, uint32_t n) {
    if (t)
        t->lookup_bulk(keys, nh, n);
    else
        std::fill(nh, nh + n, nh_miss);
}
}  // namespace

const dataplane_view* dataplane_view::create(uint64_t epoch, std::span<const vrf_lpm> vrfs,
                                             std::span<const nh_page* const> pages, const compiled_nh* miss) {
    const size_t bytes = bytes_for(vrfs.size(), pages.size());
    void* mem = alloc_block(mem_kind::view, bytes);
    auto* v = new (mem) dataplane_view();
    v->_n_vrfs = static_cast<uint32_t>(vrfs.size());
    v->_n_pages = static_cast<uint32_t>(pages.size());
    v->_epoch = epoch;
    static std::atomic<uint64_t> serials{0};
    v->_serial = serials.fetch_add(1, std::memory_order_relaxed) + 1;
    v->_miss = miss;
    if (!vrfs.empty())
        std::memcpy(const_cast<vrf_lpm*>(v->vrfs()), vrfs.data(), vrfs.size() * sizeof(vrf_lpm));
    if (!pages.empty())
        std::memcpy(const_cast<const nh_page**>(v->pages()), pages.data(), pages.size() * sizeof(void*));
    v->_magic = view_magic;
    return v;
}

void dataplane_view::destroy(const dataplane_view* v) noexcept {
    if (v)
        free_block(mem_kind::view, const_cast<dataplane_view*>(v), bytes_for(v->_n_vrfs, v->_n_pages));
}

const vrf_lpm& dataplane_view::tables(vrf::vrf_id vrf) const { return vrf < _n_vrfs ? vrfs()[vrf] : no_tables; }

void dataplane_view::lookup4_bulk(vrf::vrf_id vrf, const uint32_t* addrs, uint32_t* nh, uint32_t n) const {
    bulk_or_miss(tables(vrf).v4, addrs, nh, n);
}

void dataplane_view::lookup6_bulk(vrf::vrf_id vrf, const uint8_t (*addrs)[16], uint32_t* nh, uint32_t n) const {
    const lpm6_index* t = tables(vrf).v6;
    if (!t) {
        std::fill(nh, nh + n, nh_miss);
        return;
    }
    constexpr uint32_t burst = lpm6_index::burst;
    u128 keys[burst];
    for (uint32_t off = 0; off < n; off += burst) {
        const uint32_t m = std::min(burst, n - off);
        for (uint32_t i = 0; i < m; ++i)
            keys[i] = key6(addrs[off + i]);
        t->lookup_bulk(keys, nh + off, m);
    }
}

void dataplane_view::lookup6_bulk(vrf::vrf_id vrf, const u128* keys, uint32_t* nh, uint32_t n) const {
    bulk_or_miss(tables(vrf).v6, keys, nh, n);
}

uint32_t dataplane_view::lookup4(vrf::vrf_id vrf, uint32_t addr) const {
    const lpm4_index* t = tables(vrf).v4;
    return t ? t->lookup(addr) : nh_miss;
}

uint32_t dataplane_view::lookup6(vrf::vrf_id vrf, const uint8_t* addr) const {
    const lpm6_index* t = tables(vrf).v6;
    return t ? t->lookup(key6(addr)) : nh_miss;
}

}  // namespace fib
