// The RIB's route store: routes in fixed-size chunks of slots (dense, no per-route node), found
// through an open-addressing hash index of (32-bit hash, slot) pairs keyed by route_key. Each
// slot also holds the route's mark-and-sweep stamp and its position in its nexthop's user list,
// so that the RIB needs no second map per route. Iteration order is unspecified (slot order);
// sorted() gives route_key order. Mutated by rib::store only; read by everyone through rib::routes().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "rib/model.hh"
#include "util/huge_alloc.hh"

namespace rib {

class store;

class route_table {
public:
    route_table() = default;
    route_table(const route_table& o);
    route_table& operator=(const route_table& o);
    route_table(route_table&&) noexcept = default;
    // Not defaulted: the old chunks must be destroyed before the regions holding them go.
    route_table& operator=(route_table&& o) noexcept;

    class iterator {
    public:
        using value_type = std::pair<const route_key&, const route&>;
        iterator(const route_table* t, uint32_t i) : _t(t), _i(i) {}
        value_type operator*() const {
            const route& r = _t->at(_i).r;
            return {r.key, r};
        }
        iterator& operator++() {
            ++_i;
            return *this;
        }
        bool operator==(const iterator& o) const { return _i == o._i; }

    private:
        const route_table* _t;
        uint32_t _i;
    };

    size_t size() const { return _size; }
    bool empty() const { return _size == 0; }
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, _size}; }
    const route* find(const route_key& k) const;
    // Routes sorted by route_key (table first), e.g. for display; valid until the next mutation.
    std::vector<const route*> sorted() const;
    // The same routes with the same content, whatever the slot order.
    bool operator==(const route_table& o) const;
    // Heap bytes held (slots and index), for benchmarks; heap owned by the routes not included.
    size_t memory_bytes() const;
    // A lookup of `k` soon: prefetch its index bucket (stage 0), or, with the bucket in cache,
    // the route it names (stage 1). A batch runs stage 0 a few updates ahead of stage 1, and
    // stage 1 a few ahead of the update itself, so that the two dependent cache misses of a
    // probe into a large table overlap with other updates' work.
    void prefetch(const route_key& k, int stage) const;

private:
    friend class store;
    static constexpr uint32_t npos = UINT32_MAX;
    static constexpr uint32_t chunk_bits = 12;  // 4096 slots (512 KiB) per chunk
    static constexpr uint32_t chunk_size = 1u << chunk_bits;

    struct slot {
        route r;
        uint32_t gen = 0;       // generation of the last refresh (mark and sweep)
        uint32_t user_pos = 0;  // index in the user list of r.nh_id (when set)
    };
    // Chunks are carved out of 2 MiB huge-page regions (util/huge_alloc.hh), four to a region,
    // and the index is huge-page memory too: a probe into 2 M routes then costs its cache misses
    // without a page walk each. Chunks come and go at the end only, so region r holds chunks
    // 4r .. 4r + 3 and goes with chunk 4r.
    struct chunk_free {
        void operator()(slot* p) const noexcept { std::destroy_n(p, chunk_size); }
    };
    struct region_free {
        void operator()(void* p) const noexcept { util::huge_free(p, util::huge_page); }
    };
    using chunk = std::unique_ptr<slot[], chunk_free>;
    static constexpr uint32_t chunks_per_region = static_cast<uint32_t>(util::huge_page / (sizeof(slot) * chunk_size));
    static_assert(chunks_per_region >= 1);
    void add_chunk();
    void pop_chunk();

    static uint32_t hash(const route_key& k);
    slot& at(uint32_t i) { return _chunks[i >> chunk_bits][i & (chunk_size - 1)]; }
    const slot& at(uint32_t i) const { return _chunks[i >> chunk_bits][i & (chunk_size - 1)]; }
    uint32_t find_slot(const route_key& k) const;
    // Appends a route whose key is absent; returns its slot.
    uint32_t insert(route r, uint32_t gen);
    // Removes slot i by moving the last slot into it. Returns the slot that moved (its old
    // index was size() before the call, now i), or npos when i was the last one.
    uint32_t erase(uint32_t i);
    void grow_index();
    size_t bucket_of_slot(uint32_t i, uint32_t h) const;

    std::vector<std::unique_ptr<void, region_free>> _regions;  // declared first: outlives _chunks
    std::vector<chunk> _chunks;
    uint32_t _size = 0;
    // Buckets: (hash << 32) | (slot + 1); 0 = empty. Linear probing, at most half full.
    std::vector<uint64_t, util::huge_allocator<uint64_t>> _index;
};

static_assert(std::has_unique_object_representations_v<route_key>,
              "route_table hashes route_key's bytes: it must have no padding");

}  // namespace rib
