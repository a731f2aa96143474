// The reader API of the compiled tables: one immutable snapshot of every VRF's LPMs and of the
// nexthop pages. A worker loads the current snapshot once per burst (rcu_cell::load), does its
// bulk lookups and nexthop reads on it, and reports a quiescent state before loading the next:
// everything reachable from the snapshot stays valid and unchanged until then.
// No virtual calls, no allocation, no locks; lookups of a VRF without tables return nh_miss.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "fib/datapath/lpm_table.hh"
#include "fib/datapath/nexthop.hh"
#include "fib/datapath/nh_page.hh"
#include "vrf/spec.hh"

namespace fib {

struct vrf_lpm {
    const lpm4_index* v4 = nullptr;
    const lpm6_index* v6 = nullptr;
};

class dataplane_view {
public:
    static const dataplane_view* create(uint64_t epoch, std::span<const vrf_lpm> vrfs,
                                        std::span<const nh_page* const> pages, const compiled_nh* miss);
    static void destroy(const dataplane_view* v) noexcept;

    uint64_t epoch() const { return _epoch; }  // publication number, for tests and counters
    // Unique among all views this process creates: what a reader keys what it derives from a
    // view on (a freed view's block is handed out again, so its address can come back).
    uint64_t serial() const { return _serial; }
    uint32_t vrf_count() const { return _n_vrfs; }
    bool intact() const { return _magic == view_magic; }

    // IPv4 addresses as host-order u32 (rte_be_to_cpu_32 of the header field), IPv6 as the 16
    // network-order bytes of the header. nh[i] = nexthop index of addrs[i].
    void lookup4_bulk(vrf::vrf_id vrf, const uint32_t* addrs, uint32_t* nh, uint32_t n) const;
    void lookup6_bulk(vrf::vrf_id vrf, const uint8_t (*addrs)[16], uint32_t* nh, uint32_t n) const;
    // The same with the keys already made (key6()): a caller that gathers the addresses anyway
    // (the worker's classify loop) saves the copy.
    void lookup6_bulk(vrf::vrf_id vrf, const u128* keys, uint32_t* nh, uint32_t n) const;
    uint32_t lookup4(vrf::vrf_id vrf, uint32_t addr) const;
    uint32_t lookup6(vrf::vrf_id vrf, const uint8_t* addr) const;

    // Never null: an index beyond the table reads as the miss nexthop.
    const compiled_nh& nexthop(uint32_t idx) const { return nexthops()(idx); }
    // nexthop() with the view's facts copied out once: for a loop that also stores bytes (a
    // byte store may alias anything, so GCC reloaded the view's fields for every nexthop).
    struct nh_reader {
        const nh_page* const* pages;
        uint32_t n_pages;
        const compiled_nh* miss;
        const compiled_nh& operator()(uint32_t idx) const {
            const uint32_t page = idx >> nh_page_bits;
            return *(page < n_pages ? pages[page]->at(idx) : miss);
        }
    };
    nh_reader nexthops() const { return {pages(), _n_pages, _miss}; }
    const vrf_lpm& tables(vrf::vrf_id vrf) const;  // {nullptr, nullptr} beyond vrf_count()
    // Indices below this have a slot (possibly the miss nexthop); every LPM value is below it.
    uint32_t nexthop_capacity() const { return _n_pages * nh_page_slots; }

private:
    static constexpr uint32_t view_magic = 0x56494557;  // "VIEW"
    dataplane_view() = default;
    const vrf_lpm* vrfs() const { return reinterpret_cast<const vrf_lpm*>(this + 1); }
    const nh_page* const* pages() const {
        return reinterpret_cast<const nh_page* const*>(vrfs() + _n_vrfs);
    }
    static size_t bytes_for(size_t n_vrfs, size_t n_pages) {
        return sizeof(dataplane_view) + n_vrfs * sizeof(vrf_lpm) + n_pages * sizeof(void*);
    }

    uint32_t _magic = 0;
    uint32_t _n_vrfs = 0;
    uint32_t _n_pages = 0;
    [[maybe_unused]] uint32_t _pad = 0;  // explicit padding (clang: -Wunused-private-field)
    uint64_t _epoch = 0;
    uint64_t _serial = 0;
    const compiled_nh* _miss = nullptr;
};

}  // namespace fib
