// The nexthop index space: index -> compiled_nh, published as immutable pages of 256 slots.
// A nexthop index is stable for the life of the nexthop, so rewriting a nexthop (a new encap
// source, a SID that became active) replaces one slot's object, i.e. one page, and leaves every
// LPM that points at the index untouched. Slots never hold null: unused ones point at the
// "miss" nexthop (index 0).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fib/datapath/nexthop.hh"
#include "fib/datapath/nh_page.hh"
#include "fib/datapath/retire.hh"

namespace fib {

// Control thread only.
class nh_table {
public:
    // `miss` fills every unused slot and index 0; the table does not own it.
    explicit nh_table(const compiled_nh* miss);
    ~nh_table();  // published pages must have been handed to retire_all()
    nh_table(const nh_table&) = delete;
    nh_table& operator=(const nh_table&) = delete;

    uint32_t alloc();  // an unused index >= 1
    // Puts `obj` in slot `idx`; the object it replaces (not the miss one) goes to `retired`.
    void set(uint32_t idx, const compiled_nh* obj, retire_batch& retired);
    // Frees `idx` for reuse; its object goes to `retired`. Readers of the previous snapshot still
    // see the old object until the grace period ends, then the index may mean something else.
    void release(uint32_t idx, retire_batch& retired);
    const compiled_nh* get(uint32_t idx) const;
    size_t live() const { return _live; }
    uint32_t capacity() const { return static_cast<uint32_t>(_slots.size()) * nh_page_slots; }

    // The pages for a new snapshot; pages that changed are rebuilt and their old versions retired.
    const std::vector<const nh_page*>& publish(retire_batch& retired);
    void retire_all(retire_batch& retired);  // every object and page (not the miss nexthop)

private:
    const compiled_nh* _miss;
    std::vector<std::array<const compiled_nh*, nh_page_slots>> _slots;
    std::vector<bool> _dirty;
    std::vector<const nh_page*> _pages;
    std::vector<uint32_t> _free;
    uint32_t _next = 1;
    size_t _live = 0;
};

}  // namespace fib
