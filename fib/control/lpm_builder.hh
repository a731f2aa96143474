// Control-thread side of one compiled LPM (one VRF, one family): applies route changes one by
// one and publishes an immutable lpm_index (lpm_table.hh) when asked, rebuilding only the chunks
// the changes touched. A small table (up to lpm_flat_max_intervals) can then be republished
// flat (lpm_flat.hh: a third of the lookup cost, but rebuilt whole from the mirror): flatten(),
// which the compiler calls once the table has been quiet for a while, so that a churn storm
// pays the two-level form's partial rebuilds and the steady state gets the flat lookups.
//
// It keeps a mutable mirror of the interval list, chunked like the published table, where every
// interval also records the length of the prefix that produced it ("depth" = len + 1, 0 = no
// route). That makes a change local, as in rte_lpm:
//   add or replace P/len -> nh: intervals inside P with depth <= len + 1 become (nh, len + 1);
//   delete P/len:              intervals inside P with depth == len + 1 become P's parent
//                              (longest shorter prefix covering P, found by probing the
//                              lengths in use), or "no route".
// The cost of a change is the number of intervals inside the prefix plus O(log n), whatever the
// table size; publish() costs the touched chunks plus one pointer per chunk for the new index.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fib/datapath/lpm_key.hh"
#include "fib/datapath/lpm_table.hh"
#include "fib/control/prefix_map.hh"
#include "fib/datapath/retire.hh"

namespace fib {

template <class K>
class lpm_builder {
public:
    // Intervals per published chunk: at publish, a chunk is split above 2x and merged into its
    // left neighbour below 1/4 of it.
    static constexpr uint32_t chunk_target = 64;

    lpm_builder();
    // Published objects are not freed here: hand them to retire_all() first if any were published.
    ~lpm_builder();
    lpm_builder(const lpm_builder&) = delete;
    lpm_builder& operator=(const lpm_builder&) = delete;

    // Host bits of `addr` are ignored. Each returns true if forwarding changed.
    bool set(K addr, unsigned len, uint32_t nh);
    bool erase(K addr, unsigned len);
    std::optional<uint32_t> find(K addr, unsigned len) const;
    // What the published table will answer after the next publish() (control side, tests).
    uint32_t lookup(K x) const;

    size_t routes() const { return _routes.size(); }
    size_t intervals() const;
    size_t chunk_count() const { return _chunks.size(); }
    bool changed() const { return _changed; }

    // The immutable table for the current content (the previous one when nothing changed).
    // Everything the new table replaces is appended to `retired`.
    const lpm_index<K>* publish(retire_batch& retired);
    const lpm_index<K>* published() const { return _pub; }
    // After publish(), with no change since: the same content republished flat when the table
    // is small enough (the two-level objects retired); else the published table as it is.
    const lpm_index<K>* flatten(retire_batch& retired);
    // Hands every published object to `retired` (the builder is going away or being reset).
    void retire_all(retire_batch& retired);

private:
    struct ival {
        K start;
        uint32_t nh;
        uint8_t depth;
    };
    // A new mirror chunk holds room for what it may grow to before publish() splits it: an
    // insert into a just-split chunk then moves intervals instead of reallocating (a malloc, a
    // copy and a free of 1-4 KiB per route change, which fragmented the heap).
    static constexpr size_t mirror_capacity = 2 * chunk_target;
    struct mchunk {
        std::vector<ival> iv;  // iv[0].start never changes while the chunk exists
        const lpm_chunk<K>* pub = nullptr;
        bool dirty = true;
    };
    struct pos {
        size_t c, p;
    };

    size_t chunk_of(K x) const;
    pos locate(K x) const;
    pos split_at(K x);
    // Rewrites the intervals inside [lo, hi] whose depth satisfies the predicate
    // (exact ? depth == match : depth <= match) to (nh, depth).
    void paint(K lo, K hi, bool exact, uint8_t match, uint32_t nh, uint8_t depth);
    void compact(size_t c, size_t from, size_t to);
    void rebalance(size_t from, size_t to);
    void split_now(size_t i);
    void reshape();
    const lpm_chunk<K>* rebuild(mchunk& ch, retire_batch& retired);
    // The flat form of a small table (null: too big, or not representable flat).
    const lpm_index<K>* publish_flat(retire_batch& retired);
    void touch(size_t c) {
        if (!_chunks[c].dirty) {
            _chunks[c].dirty = true;
            _dirty.push_back(static_cast<uint32_t>(c));
        }
    }
    std::pair<uint32_t, uint8_t> parent_of(K addr, unsigned len) const;

    std::vector<mchunk> _chunks;
    std::vector<K> _first;  // _first[i] = _chunks[i].iv[0].start, for the chunk search
    prefix_map<K> _routes;
    std::array<uint32_t, key_traits<K>::bits + 1> _len_count{};
    const lpm_index<K>* _pub = nullptr;
    std::vector<const lpm_chunk<K>*> _orphans;  // published chunks whose mirror was merged or split
    bool _changed = true;
    bool _reshape = false;  // some chunk is outside [chunk_target / 4, 2 * chunk_target]
    // Chunks were added, removed or reset since the last publish: publish() scans them all.
    // Otherwise it rebuilds only the chunks in _dirty and reuses the index's directory.
    bool _layout_changed = true;
    std::vector<uint32_t> _dirty;          // chunk numbers touched since the last publish
    std::vector<const lpm_chunk<K>*> _pubs;  // published chunk of each mirror chunk (the index's pointers)
    // publish() scratch
    std::vector<K> _keys_tmp;
    std::vector<uint32_t> _vals_tmp;
};

extern template class lpm_builder<uint32_t>;
extern template class lpm_builder<u128>;

using lpm4_builder = lpm_builder<uint32_t>;
using lpm6_builder = lpm_builder<u128>;

}  // namespace fib
