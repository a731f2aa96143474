#include "rib/route_table.hh"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

namespace rib {

uint32_t route_table::hash(const route_key& k) {
    // route_key is 40 bytes without padding and with zeroed unused address bytes (prefix::make),
    // so its bytes are its identity.
    static_assert(sizeof(route_key) == 40);
    uint64_t w[5];
    std::memcpy(w, &k, sizeof w);
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t x : w) {
        h ^= x;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    h *= 0xc4ceb9fe1a85ec53ull;
    return static_cast<uint32_t>(h ^ (h >> 29));
}

void route_table::prefetch(const route_key& k, int stage) const {
    if (_index.empty())
        return;
    const uint32_t h = hash(k);
    const uint64_t* b = &_index[h & (_index.size() - 1)];
    if (stage == 0) {
        __builtin_prefetch(b);
        return;
    }
    const uint64_t e = *b;  // the first entry of the probe: the route, when the hash is its own
    if (e != 0 && static_cast<uint32_t>(e >> 32) == h)
        __builtin_prefetch(&at(static_cast<uint32_t>(e) - 1));
}

void route_table::add_chunk() {
    const size_t i = _chunks.size();
    if (i % chunks_per_region == 0)
        _regions.emplace_back(util::huge_alloc(util::huge_page));
    auto* p = static_cast<slot*>(_regions.back().get()) + (i % chunks_per_region) * chunk_size;
    std::uninitialized_value_construct_n(p, chunk_size);
    _chunks.emplace_back(p);
}

void route_table::pop_chunk() {
    _chunks.pop_back();
    if (_chunks.size() % chunks_per_region == 0)
        _regions.pop_back();
}

route_table::route_table(const route_table& o) { *this = o; }

route_table& route_table::operator=(route_table&& o) noexcept {
    if (this == &o)
        return *this;
    _chunks.clear();
    _regions = std::move(o._regions);
    _chunks = std::move(o._chunks);
    _size = std::exchange(o._size, 0);
    _index = std::move(o._index);
    o._chunks.clear();
    o._regions.clear();
    o._index.clear();
    return *this;
}

route_table& route_table::operator=(const route_table& o) {
    if (this == &o)
        return *this;
    _chunks.clear();
    _regions.clear();
    _size = 0;
    _index = o._index;
    for (uint32_t i = 0; i < o._size; ++i) {
        if ((i & (chunk_size - 1)) == 0)
            add_chunk();
        at(i) = o.at(i);
        ++_size;
    }
    return *this;
}

uint32_t route_table::find_slot(const route_key& k) const {
    if (_index.empty())
        return npos;
    const uint32_t h = hash(k);
    const size_t mask = _index.size() - 1;
    for (size_t b = h & mask;; b = (b + 1) & mask) {
        const uint64_t e = _index[b];
        if (e == 0)
            return npos;
        if (static_cast<uint32_t>(e >> 32) == h) {
            const uint32_t i = static_cast<uint32_t>(e) - 1;
            if (at(i).r.key == k)
                return i;
        }
    }
}

const route* route_table::find(const route_key& k) const {
    const uint32_t i = find_slot(k);
    return i == npos ? nullptr : &at(i).r;
}

void route_table::grow_index() {
    auto old = std::move(_index);
    _index.assign(old.empty() ? 64 : old.size() * 2, 0);
    const size_t mask = _index.size() - 1;
    for (const uint64_t e : old) {
        if (e == 0)
            continue;
        size_t b = static_cast<uint32_t>(e >> 32) & mask;
        while (_index[b] != 0)
            b = (b + 1) & mask;
        _index[b] = e;
    }
}

uint32_t route_table::insert(route r, uint32_t gen) {
    if ((static_cast<size_t>(_size) + 1) * 2 > _index.size())
        grow_index();
    const uint32_t i = _size;
    if ((i >> chunk_bits) >= _chunks.size())
        add_chunk();
    const uint32_t h = hash(r.key);
    slot& s = at(i);
    s.r = std::move(r);
    s.gen = gen;
    s.user_pos = 0;
    const size_t mask = _index.size() - 1;
    size_t b = h & mask;
    while (_index[b] != 0)
        b = (b + 1) & mask;
    _index[b] = static_cast<uint64_t>(h) << 32 | (static_cast<uint64_t>(i) + 1);
    ++_size;
    return i;
}

size_t route_table::bucket_of_slot(uint32_t i, uint32_t h) const {
    const size_t mask = _index.size() - 1;
    const uint64_t want = static_cast<uint64_t>(h) << 32 | (static_cast<uint64_t>(i) + 1);
    size_t b = h & mask;
    while (_index[b] != want)
        b = (b + 1) & mask;
    return b;
}

uint32_t route_table::erase(uint32_t i) {
    const size_t mask = _index.size() - 1;
    // Backward-shift deletion: later entries of the probe run move up so no search stops early.
    size_t hole = bucket_of_slot(i, hash(at(i).r.key));
    for (size_t b = (hole + 1) & mask; _index[b] != 0; b = (b + 1) & mask) {
        const size_t ideal = static_cast<uint32_t>(_index[b] >> 32) & mask;
        // The entry at b may fill the hole unless its ideal bucket lies cyclically in (hole, b].
        const bool stays = hole <= b ? (ideal > hole && ideal <= b) : (ideal > hole || ideal <= b);
        if (!stays) {
            _index[hole] = _index[b];
            hole = b;
        }
    }
    _index[hole] = 0;

    const uint32_t last = _size - 1;
    uint32_t moved = npos;
    if (i != last) {
        slot& from = at(last);
        const uint32_t h = hash(from.r.key);
        _index[bucket_of_slot(last, h)] = static_cast<uint64_t>(h) << 32 | (static_cast<uint64_t>(i) + 1);
        at(i) = std::move(from);
        moved = i;
    }
    at(last) = slot{};  // frees what the route held
    --_size;
    // Free emptied chunks, but keep one spare so deletes and inserts at a boundary do not churn.
    while (_chunks.size() > ((_size + chunk_size - 1) >> chunk_bits) + 1)
        pop_chunk();
    return moved;
}

std::vector<const route*> route_table::sorted() const {
    std::vector<const route*> out;
    out.reserve(_size);
    for (uint32_t i = 0; i < _size; ++i)
        out.push_back(&at(i).r);
    std::sort(out.begin(), out.end(), [](const route* a, const route* b) { return a->key < b->key; });
    return out;
}

bool route_table::operator==(const route_table& o) const {
    if (_size != o._size)
        return false;
    for (uint32_t i = 0; i < _size; ++i) {
        const route* r = o.find(at(i).r.key);
        if (!r || !(*r == at(i).r))
            return false;
    }
    return true;
}

size_t route_table::memory_bytes() const {
    return _regions.size() * util::huge_page + _chunks.capacity() * sizeof(_chunks[0]) +
           _index.capacity() * sizeof(uint64_t);
}

}  // namespace rib
