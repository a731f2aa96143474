// Per-SID counter slots: each local SID (by route key) holds one slot of the workers' SID
// counters for as long as it exists, with a generation no other SID ever had. The worker zeroes
// a slot when it meets a new generation there and the reader sums only that generation, so a
// new SID starts at 0 even in a slot (or at a nexthop index) an old one used; the control
// thread never writes worker memory. Freed slots are reused last (first in, first out): by
// then no worker still counts for the old SID.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "rib/model.hh"
#include "fib/datapath/nexthop.hh"

namespace fib {

struct sid_counter {
    uint32_t slot = sid_counter_overflow;
    uint32_t gen = 0;
    bool operator==(const sid_counter&) const = default;
};

class sid_slots {
public:
    // `capacity` slots (at most max_sid_counters; fewer in tests).
    explicit sid_slots(uint32_t capacity = max_sid_counters);

    // The SID's slot, given now if it has none; sid_counter_overflow (generation 1) when every
    // slot is taken.
    sid_counter acquire(const rib::route_key& sid);
    // The SID is gone: its slot goes to the back of the free list.
    void release(const rib::route_key& sid);
    std::optional<sid_counter> find(const rib::route_key& sid) const;
    size_t size() const { return _held.size(); }

private:
    uint32_t _capacity;
    uint32_t _fresh = 0;     // slots [0, _fresh) have been handed out at least once
    uint32_t _next_gen = 2;  // 0: never counted; 1: the overflow bucket
    std::deque<uint32_t> _free;
    std::map<rib::route_key, sid_counter> _held;
};

}  // namespace fib
