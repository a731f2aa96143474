// Flat hash maps for the control side: open addressing with linear probing and backward-shift
// deletion, so a lookup costs one cache miss where std::unordered_map costs a bucket and a node,
// and inserts and deletes never allocate (the slot array grows by doubling, at most half full).
// Control thread only.
//
//   open_table<Traits>: the probing core. Traits says what a slot is:
//       using slot = ...;              // trivially copyable, value-initialised = free
//       using key = ...;
//       static bool used(const slot&);
//       static void set_used(slot&, bool);
//       static bool matches(const slot&, const key&);
//       static uint64_t hash(const key&);
//       static uint64_t hash_of(const slot&);   // hash of the key the slot holds
//   prefix_map<K>: prefix (addr, len) -> nexthop index, for lpm_builder.
//   The compiler's route state (compiler.hh) is another open_table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <rte_prefetch.h>

#include "fib/datapath/lpm_key.hh"
#include "util/huge_alloc.hh"

namespace fib {

inline uint64_t mix64(uint64_t h) {
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64 finaliser
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

template <class Traits>
class open_table {
public:
    using slot = typename Traits::slot;
    using key = typename Traits::key;

    open_table() { _slots.resize(16); }

    slot* find(const key& k) {
        for (size_t i = home(Traits::hash(k));; i = (i + 1) & mask()) {
            slot& s = _slots[i];
            if (!Traits::used(s))
                return nullptr;
            if (Traits::matches(s, k))
                return &s;
        }
    }
    const slot* find(const key& k) const { return const_cast<open_table*>(this)->find(k); }
    // Starts loading k's home slot (a later find or insert of k then hits the cache). A slot
    // whose size does not divide 64 (the route state's 52 bytes) often straddles two cache
    // lines, its used flag in the second: both ends are prefetched.
    // rte_prefetch0 (a volatile asm), not __builtin_prefetch: GCC 12 found this function free of
    // side effects (a const hash and a builtin prefetch) and deleted every call to it as dead
    // code, so neither the compiler's route-state prefetch nor the builder's parent probes
    // were ever emitted.
    void prefetch(const key& k) const {
        const slot* s = &_slots[home(Traits::hash(k))];
        rte_prefetch0(s);
        if constexpr (64 % sizeof(slot) != 0)
            rte_prefetch0(reinterpret_cast<const char*>(s + 1) - 1);
    }

    // The slot for k, and whether it is new. A new slot is value-initialised and marked used:
    // the caller fills in the key (and value). The pointer is valid until the next insert or erase.
    std::pair<slot*, bool> insert(const key& k) {
        if ((_n + 1) * 2 > _slots.size())
            grow();
        for (size_t i = home(Traits::hash(k));; i = (i + 1) & mask()) {
            slot& s = _slots[i];
            if (!Traits::used(s)) {
                s = slot{};
                Traits::set_used(s, true);
                ++_n;
                return {&s, true};
            }
            if (Traits::matches(s, k))
                return {&s, false};
        }
    }

    // Removes a slot found by find() / insert().
    void erase(slot* s) {
        size_t i = static_cast<size_t>(s - _slots.data());
        // Backward shift: pull later members of the probe run into the hole when their home
        // is not between the hole and where they sit.
        for (size_t j = (i + 1) & mask();; j = (j + 1) & mask()) {
            if (!Traits::used(_slots[j]))
                break;
            const size_t h = home(Traits::hash_of(_slots[j]));
            const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (stays)
                continue;
            _slots[i] = _slots[j];
            i = j;
        }
        _slots[i] = slot{};
        --_n;
    }
    bool erase(const key& k) {
        slot* s = find(k);
        if (!s)
            return false;
        erase(s);
        return true;
    }

    // Room for n entries without growing.
    void reserve(size_t n) {
        size_t want = _slots.size();
        while (want < 2 * n)
            want *= 2;
        if (want != _slots.size())
            rehash(want);
    }

    template <class F>
    void for_each(F&& f) const {
        for (const slot& s : _slots)
            if (Traits::used(s))
                f(s);
    }

    size_t size() const { return _n; }
    size_t capacity() const { return _slots.size(); }

private:
    size_t mask() const { return _slots.size() - 1; }
    size_t home(uint64_t h) const { return static_cast<size_t>(h) & mask(); }
    void grow() { rehash(_slots.size() * 2); }
    void rehash(size_t n) {
        slots old(n);
        old.swap(_slots);
        for (const slot& s : old) {
            if (!Traits::used(s))
                continue;
            for (size_t i = home(Traits::hash_of(s));; i = (i + 1) & mask())
                if (!Traits::used(_slots[i])) {
                    _slots[i] = s;
                    break;
                }
        }
    }

    // Power-of-two size, at most half full. Big tables (the route state of millions of routes)
    // sit in huge pages: a probe is one cache miss, not a miss plus a page walk.
    using slots = std::vector<slot, util::huge_allocator<slot>>;
    slots _slots;
    size_t _n = 0;
};

namespace detail {

template <class K>
struct prefix_slot_traits {
    struct slot {
        K addr;
        uint32_t nh;
        uint8_t len;
        uint8_t used;
    };
    struct key {
        K addr;
        uint8_t len;
    };
    static bool used(const slot& s) { return s.used != 0; }
    static void set_used(slot& s, bool u) { s.used = u ? 1 : 0; }
    static bool matches(const slot& s, const key& k) { return s.len == k.len && s.addr == k.addr; }
    static uint64_t hash(K addr, uint8_t len) {
        uint64_t h;
        if constexpr (sizeof(K) == 4)
            h = uint64_t{addr};
        else
            h = static_cast<uint64_t>(addr >> 64) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(addr);
        h ^= uint64_t{len} << 56;
        return mix64(h);
    }
    static uint64_t hash(const key& k) { return hash(k.addr, k.len); }
    static uint64_t hash_of(const slot& s) { return hash(s.addr, s.len); }
};

}  // namespace detail

// prefix -> nexthop index for lpm_builder.
template <class K>
class prefix_map {
    using traits = detail::prefix_slot_traits<K>;

public:
    // The value for (addr, len), or null.
    uint32_t* find(K addr, uint8_t len) {
        auto* s = _t.find({addr, len});
        return s ? &s->nh : nullptr;
    }
    const uint32_t* find(K addr, uint8_t len) const { return const_cast<prefix_map*>(this)->find(addr, len); }

    // Inserts (addr, len) -> nh unless present; returns the value slot and whether it is new.
    std::pair<uint32_t*, bool> try_emplace(K addr, uint8_t len, uint32_t nh) {
        auto [s, fresh] = _t.insert({addr, len});
        if (fresh) {
            s->addr = addr;
            s->len = len;
            s->nh = nh;
        }
        return {&s->nh, fresh};
    }

    bool erase(K addr, uint8_t len) { return _t.erase(typename traits::key{addr, len}); }
    void prefetch(K addr, uint8_t len) const { _t.prefetch({addr, len}); }

    size_t size() const { return _t.size(); }

private:
    open_table<traits> _t;
};

}  // namespace fib
