// prefix -> nexthop index for lpm_builder: open addressing with linear probing and
// backward-shift deletion, so a lookup costs one cache miss where std::unordered_map costs a
// bucket and a node. Control thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fibc/lpm_key.hh"

namespace fib {

template <class K>
class prefix_map {
public:
    prefix_map() { _slots.resize(16); }

    // The value for (addr, len), or null.
    uint32_t* find(K addr, uint8_t len) {
        for (size_t i = home(addr, len);; i = (i + 1) & mask()) {
            slot& s = _slots[i];
            if (!s.used)
                return nullptr;
            if (s.len == len && s.addr == addr)
                return &s.nh;
        }
    }
    const uint32_t* find(K addr, uint8_t len) const { return const_cast<prefix_map*>(this)->find(addr, len); }

    // Inserts (addr, len) -> nh unless present; returns the value slot and whether it is new.
    std::pair<uint32_t*, bool> try_emplace(K addr, uint8_t len, uint32_t nh) {
        if ((_n + 1) * 2 > _slots.size())
            grow();
        for (size_t i = home(addr, len);; i = (i + 1) & mask()) {
            slot& s = _slots[i];
            if (!s.used) {
                s = slot{addr, nh, len, 1};
                ++_n;
                return {&s.nh, true};
            }
            if (s.len == len && s.addr == addr)
                return {&s.nh, false};
        }
    }

    bool erase(K addr, uint8_t len) {
        size_t i = home(addr, len);
        for (;; i = (i + 1) & mask()) {
            if (!_slots[i].used)
                return false;
            if (_slots[i].len == len && _slots[i].addr == addr)
                break;
        }
        // Backward shift: pull later members of the probe run into the hole when their home
        // is not between the hole and where they sit.
        for (size_t j = (i + 1) & mask();; j = (j + 1) & mask()) {
            if (!_slots[j].used)
                break;
            const size_t h = home(_slots[j].addr, _slots[j].len);
            const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (stays)
                continue;
            _slots[i] = _slots[j];
            i = j;
        }
        _slots[i].used = 0;
        --_n;
        return true;
    }

    size_t size() const { return _n; }

private:
    struct slot {
        K addr;
        uint32_t nh;
        uint8_t len;
        uint8_t used;
    };
    size_t mask() const { return _slots.size() - 1; }
    size_t home(K addr, uint8_t len) const {
        uint64_t h;
        if constexpr (sizeof(K) == 4)
            h = uint64_t{addr};
        else
            h = static_cast<uint64_t>(addr >> 64) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(addr);
        h ^= uint64_t{len} << 56;
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64 finaliser
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
        return static_cast<size_t>(h ^ (h >> 31)) & mask();
    }
    void grow() {
        std::vector<slot> old(_slots.size() * 2);
        old.swap(_slots);
        _n = 0;
        for (const slot& s : old)
            if (s.used)
                try_emplace(s.addr, s.len, s.nh);
    }

    std::vector<slot> _slots;  // power-of-two size, at most half full
    size_t _n = 0;
};

}  // namespace fib
