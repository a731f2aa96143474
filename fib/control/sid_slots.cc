#include "fib/control/sid_slots.hh"

#include <algorithm>

namespace fib {

sid_slots::sid_slots(uint32_t capacity) : _capacity(std::min(capacity, max_sid_counters)) {}

sid_counter sid_slots::acquire(const rib::route_key& sid) {
    auto it = _held.find(sid);
    if (it != _held.end())
        return it->second;
    sid_counter c;
    if (_fresh < _capacity) {
        c.slot = _fresh++;
    } else if (!_free.empty()) {
        c.slot = _free.front();
        _free.pop_front();
    }
    // The overflow bucket is shared: its generation stays put so that its SIDs add up there.
    c.gen = c.slot == sid_counter_overflow ? 1 : _next_gen++;
    if (_next_gen < 2)
        _next_gen = 2;  // wrapped, 2^32 SIDs later: 0 is "never", 1 the overflow's
    _held.emplace(sid, c);
    return c;
}

void sid_slots::release(const rib::route_key& sid) {
    auto it = _held.find(sid);
    if (it == _held.end())
        return;
    if (it->second.slot != sid_counter_overflow)
        _free.push_back(it->second.slot);
    _held.erase(it);
}

std::optional<sid_counter> sid_slots::find(const rib::route_key& sid) const {
    auto it = _held.find(sid);
    if (it == _held.end())
        return std::nullopt;
    return it->second;
}

}  // namespace fib
