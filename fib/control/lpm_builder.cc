#include "fib/control/lpm_builder.hh"

#include <algorithm>

namespace fib {

template <class K>
lpm_builder<K>::lpm_builder() {
    mchunk c;
    c.iv.reserve(mirror_capacity);
    c.iv.push_back({K{0}, nh_miss, 0});
    _chunks.push_back(std::move(c));
    _first.push_back(K{0});
}

template <class K>
lpm_builder<K>::~lpm_builder() = default;

template <class K>
size_t lpm_builder<K>::intervals() const {
    size_t n = 0;
    for (const auto& c : _chunks)
        n += c.iv.size();
    return n;
}

template <class K>
size_t lpm_builder<K>::chunk_of(K x) const {
    return detail::last_le(_first.data(), static_cast<uint32_t>(_first.size()), x);
}

template <class K>
typename lpm_builder<K>::pos lpm_builder<K>::locate(K x) const {
    const size_t c = chunk_of(x);
    const auto& iv = _chunks[c].iv;
    auto it = std::upper_bound(iv.begin(), iv.end(), x, [](K v, const ival& e) { return v < e.start; });
    return {c, static_cast<size_t>(it - iv.begin()) - 1};
}

template <class K>
typename lpm_builder<K>::pos lpm_builder<K>::split_at(K x) {
    pos p = locate(x);
    auto& iv = _chunks[p.c].iv;
    if (iv[p.p].start == x)
        return p;
    const ival copy{x, iv[p.p].nh, iv[p.p].depth};
    iv.insert(iv.begin() + static_cast<std::ptrdiff_t>(p.p + 1), copy);
    return {p.c, p.p + 1};
}

template <class K>
uint32_t lpm_builder<K>::lookup(K x) const {
    const pos p = locate(x);
    return _chunks[p.c].iv[p.p].nh;
}

template <class K>
std::optional<uint32_t> lpm_builder<K>::find(K addr, unsigned len) const {
    const uint32_t* nh = _routes.find(static_cast<K>(addr & prefix_mask<K>(len)), static_cast<uint8_t>(len));
    if (!nh)
        return std::nullopt;
    return *nh;
}

template <class K>
void lpm_builder<K>::compact(size_t c, size_t from, size_t to) {
    // Merges equal neighbours among positions [from, to] of chunk c (position 0 stays: it is
    // the chunk's first key).
    auto& iv = _chunks[c].iv;
    from = std::max<size_t>(from, 1);
    to = std::min(to, iv.size() - 1);
    if (from > to)
        return;
    size_t w = from;
    for (size_t r = from; r <= to; ++r) {
        if (iv[r].nh == iv[w - 1].nh && iv[r].depth == iv[w - 1].depth)
            continue;
        iv[w++] = iv[r];
    }
    iv.erase(iv.begin() + static_cast<std::ptrdiff_t>(w), iv.begin() + static_cast<std::ptrdiff_t>(to + 1));
}

template <class K>
void lpm_builder<K>::paint(K lo, K hi, bool exact, uint8_t match, uint32_t nh, uint8_t depth) {
    const pos start = split_at(lo);
    if (hi != static_cast<K>(~K{0}))
        split_at(static_cast<K>(hi + 1));
    size_t c = start.c, p = start.p, last = start.c, last_p = start.p;
    bool done = false;
    while (!done && c < _chunks.size()) {
        auto& ch = _chunks[c];
        for (; p < ch.iv.size(); ++p) {
            ival& e = ch.iv[p];
            if (e.start > hi) {
                done = true;
                break;
            }
            if (exact ? e.depth == match : e.depth <= match) {
                e.nh = nh;
                e.depth = depth;
            }
        }
        touch(c);
        last = c;
        last_p = p;  // the first interval after the range (or the chunk's end)
        ++c;
        p = 0;
    }
    // Merge what the paint made equal: from the interval before the range to the one after
    // it. The interval at hi + 1 may equal its left neighbour while being the first of the
    // next chunk: that pair stays (chunks keep their first key), which is harmless.
    for (size_t i = last + 1; i-- > start.c;)
        compact(i, i == start.c ? start.p : 0, i == last ? last_p : _chunks[i].iv.size());
    rebalance(start.c, last);
    _changed = true;
}

template <class K>
void lpm_builder<K>::split_now(size_t i) {
    auto& ch = _chunks[i];
    const size_t n = ch.iv.size();
    std::vector<mchunk> pieces;
    std::vector<K> firsts;
    for (size_t off = chunk_target; off < n; off += chunk_target) {
        mchunk m;
        const size_t end = std::min(n, off + chunk_target);
        m.iv.reserve(mirror_capacity);
        m.iv.assign(ch.iv.begin() + static_cast<std::ptrdiff_t>(off), ch.iv.begin() + static_cast<std::ptrdiff_t>(end));
        firsts.push_back(m.iv[0].start);
        pieces.push_back(std::move(m));
    }
    ch.iv.resize(chunk_target);  // keeps its first key (and its published chunk, to retire)
    ch.dirty = true;
    _layout_changed = true;
    _chunks.insert(_chunks.begin() + static_cast<std::ptrdiff_t>(i + 1), std::make_move_iterator(pieces.begin()),
                   std::make_move_iterator(pieces.end()));
    _first.insert(_first.begin() + static_cast<std::ptrdiff_t>(i + 1), firsts.begin(), firsts.end());
}

template <class K>
void lpm_builder<K>::rebalance(size_t from, size_t to) {
    // Chunk sizes are normalised once per publish (one pass over the chunk vector instead of an
    // insert into it per split); only a runaway chunk is split at once, so that inserts into it
    // stay cheap between publishes.
    for (size_t i = to + 1; i-- > from;) {
        const size_t n = _chunks[i].iv.size();
        if (n > 16 * chunk_target)
            split_now(i);
        else if (n > 2 * chunk_target || n < chunk_target / 4)
            _reshape = true;
    }
}

template <class K>
void lpm_builder<K>::reshape() {
    std::vector<mchunk> out;
    out.reserve(_chunks.size());
    for (auto& ch : _chunks) {
        const size_t n = ch.iv.size();
        if (!out.empty() && n < chunk_target / 4 && out.back().iv.size() + n <= 2 * chunk_target) {
            auto& left = out.back();
            const size_t junction = left.iv.size();
            left.iv.insert(left.iv.end(), ch.iv.begin(), ch.iv.end());
            left.dirty = true;
            if (ch.pub)
                _orphans.push_back(ch.pub);
            auto& iv = left.iv;  // the old boundary pair may be equal
            if (iv[junction].nh == iv[junction - 1].nh && iv[junction].depth == iv[junction - 1].depth)
                iv.erase(iv.begin() + static_cast<std::ptrdiff_t>(junction));
            continue;
        }
        if (n > 2 * chunk_target) {
            for (size_t off = 0; off < n; off += chunk_target) {
                mchunk m;
                const size_t end = std::min(n, off + chunk_target);
                m.iv.reserve(mirror_capacity);
                m.iv.assign(ch.iv.begin() + static_cast<std::ptrdiff_t>(off), ch.iv.begin() + static_cast<std::ptrdiff_t>(end));
                if (off == 0)
                    m.pub = ch.pub;  // retired when the dirty piece is rebuilt
                out.push_back(std::move(m));
            }
            continue;
        }
        out.push_back(std::move(ch));
    }
    _chunks.swap(out);
    _first.resize(_chunks.size());
    for (size_t i = 0; i < _chunks.size(); ++i)
        _first[i] = _chunks[i].iv[0].start;
    _reshape = false;
    _layout_changed = true;
}

template <class K>
std::pair<uint32_t, uint8_t> lpm_builder<K>::parent_of(K addr, unsigned len) const {
    // Every length in use below len is a probe into a big map, i.e. a cache miss each: start
    // them all first so that they overlap, then probe from the longest.
    for (unsigned l = len; l-- > 0;)
        if (_len_count[l] != 0)
            _routes.prefetch(static_cast<K>(addr & prefix_mask<K>(l)), static_cast<uint8_t>(l));
    for (unsigned l = len; l-- > 0;) {
        if (_len_count[l] == 0)
            continue;
        if (const uint32_t* nh = _routes.find(static_cast<K>(addr & prefix_mask<K>(l)), static_cast<uint8_t>(l)))
            return {*nh, static_cast<uint8_t>(l + 1)};
    }
    return {nh_miss, 0};
}

template <class K>
bool lpm_builder<K>::set(K addr, unsigned len, uint32_t nh) {
    addr = static_cast<K>(addr & prefix_mask<K>(len));
    auto [have, fresh] = _routes.try_emplace(addr, static_cast<uint8_t>(len), nh);
    if (!fresh) {
        if (*have == nh)
            return false;
        *have = nh;
    } else {
        ++_len_count[len];
    }
    const auto d = static_cast<uint8_t>(len + 1);
    paint(addr, prefix_last<K>(addr, len), false, d, nh, d);
    return true;
}

template <class K>
bool lpm_builder<K>::erase(K addr, unsigned len) {
    addr = static_cast<K>(addr & prefix_mask<K>(len));
    if (!_routes.erase(addr, static_cast<uint8_t>(len)))
        return false;
    --_len_count[len];
    const auto [pnh, pdepth] = parent_of(addr, len);
    paint(addr, prefix_last<K>(addr, len), true, static_cast<uint8_t>(len + 1), pnh, pdepth);
    return true;
}

template <class K>
const lpm_chunk<K>* lpm_builder<K>::rebuild(mchunk& ch, retire_batch& retired) {
    // The dataplane needs no depth: neighbours with the same nexthop merge.
    _keys_tmp.clear();
    _vals_tmp.clear();
    for (const auto& e : ch.iv) {
        if (!_vals_tmp.empty() && _vals_tmp.back() == e.nh)
            continue;
        _keys_tmp.push_back(e.start);
        _vals_tmp.push_back(e.nh);
    }
    retired.add(ch.pub);
    ch.pub = lpm_chunk<K>::create(_keys_tmp.data(), _vals_tmp.data(), static_cast<uint32_t>(_keys_tmp.size()));
    ch.dirty = false;
    return ch.pub;
}

template <class K>
const lpm_index<K>* lpm_builder<K>::publish_flat(retire_batch& retired) {
    // Only when asked (flatten(): the table was quiet for a while), so there is no hysteresis:
    // a table around the limit is flattened at most once per quiet period.
    const size_t n = intervals();
    if (n > lpm_flat_max_intervals)
        return nullptr;
    // Neighbours with the same nexthop merge; written without a branch per interval (whether
    // one merges is data, a branch on it mispredicts often).
    _keys_tmp.resize(n);
    _vals_tmp.resize(n);
    K* keys = _keys_tmp.data();
    uint32_t* vals = _vals_tmp.data();
    // The mirror of 1 000 VRFs is not in cache: its chunks are separate vectors of 1-2 KiB,
    // which the hardware prefetcher picks up too late each, so the next chunk is prefetched
    // whole while this one is copied.
    auto prefetch_chunk = [&](size_t c) {
        if (c >= _chunks.size())
            return;
        const auto* b = reinterpret_cast<const char*>(_chunks[c].iv.data());
        const size_t bytes = _chunks[c].iv.size() * sizeof(ival);
        for (size_t off = 0; off < bytes; off += 64)
            __builtin_prefetch(b + off);
    };
    prefetch_chunk(0);
    uint32_t w = 0, prev = ~uint32_t{0};  // no nexthop: the first interval is always written
    for (size_t c = 0; c < _chunks.size(); ++c) {
        prefetch_chunk(c + 1);
        for (const auto& e : _chunks[c].iv) {
            keys[w] = e.start;
            vals[w] = e.nh;
            w += e.nh != prev;
            prev = e.nh;
        }
    }
    const lpm_flat<K>* f = lpm_flat<K>::create(keys, vals, w);
    if (!f)
        return nullptr;  // not representable flat (a nexthop index with the top bit set)
    // The chunks published for a two-level form go; the next one rebuilds them all.
    for (auto& ch : _chunks) {
        retired.add(ch.pub);
        ch.pub = nullptr;
        ch.dirty = true;
    }
    _pubs.clear();
    _dirty.clear();
    _layout_changed = true;
    return lpm_index<K>::create_flat(f, _routes.size());
}

template <class K>
const lpm_index<K>* lpm_builder<K>::publish(retire_batch& retired) {
    if (!_changed && _pub)
        return _pub;
    if (_reshape)
        reshape();
    for (const auto* o : _orphans)
        retired.add(o);
    _orphans.clear();
    const lpm_index<K>* same_first = nullptr;
    if (_layout_changed || !_pub || _pubs.size() != _chunks.size()) {
        _pubs.resize(_chunks.size());
        for (size_t i = 0; i < _chunks.size(); ++i) {
            auto& ch = _chunks[i];
            _pubs[i] = ch.dirty || !ch.pub ? rebuild(ch, retired) : ch.pub;
        }
    } else {
        // Same chunks as the published index: only the touched ones change, and the directory
        // (a function of the chunks' first keys) is copied.
        for (uint32_t c : _dirty)
            if (_chunks[c].dirty)
                _pubs[c] = rebuild(_chunks[c], retired);
        same_first = _pub;
    }
    _dirty.clear();
    _layout_changed = false;
    const lpm_index<K>* next = lpm_index<K>::create(_first.data(), _pubs.data(), static_cast<uint32_t>(_pubs.size()),
                                                    _routes.size(), same_first);
    retired.add(_pub);
    _pub = next;
    _changed = false;
    return _pub;
}

template <class K>
const lpm_index<K>* lpm_builder<K>::flatten(retire_batch& retired) {
    if (_changed || !_pub || _pub->flat())
        return _pub;
    if (const lpm_index<K>* flat = publish_flat(retired)) {
        retired.add(_pub);
        _pub = flat;
    }
    return _pub;
}

template <class K>
void lpm_builder<K>::retire_all(retire_batch& retired) {
    for (const auto* o : _orphans)
        retired.add(o);
    _orphans.clear();
    for (auto& ch : _chunks) {
        retired.add(ch.pub);
        ch.pub = nullptr;
        ch.dirty = true;
    }
    retired.add(_pub);
    _pub = nullptr;
    _changed = true;
    _layout_changed = true;
    _dirty.clear();
}

template class lpm_builder<uint32_t>;
template class lpm_builder<u128>;

}  // namespace fib
