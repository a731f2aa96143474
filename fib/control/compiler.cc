#include "fib/control/compiler.hh"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>

#include <boost/container/small_vector.hpp>

namespace fib {

std::string_view name(route_state s) {
    switch (s) {
    case route_state::installed: return "installed";
    case route_state::unbound: return "unbound";
    case route_state::unresolved: return "unresolved";
    case route_state::src_specific: return "src_specific";
    }
    return "unknown";
}

namespace {

const compiled_nh* make_fixed(nh_kind k, uint32_t idx) {
    nh_fields f;
    f.kind = k;
    f.index = idx;
    return compiled_nh::create(f, {}, {});
}

}  // namespace

compiler::compiler(qsbr_domain& rcu, uint32_t sid_counter_slots)
    : _rcu(rcu), _miss(make_fixed(nh_kind::miss, nh_miss)), _nh(_miss), _sid_slots(sid_counter_slots) {
    _entries.resize(idx_receive + 1);
    const std::pair<uint32_t, nh_kind> fixed[] = {{idx_blackhole, nh_kind::blackhole},
                                                  {idx_unreachable, nh_kind::unreachable},
                                                  {idx_prohibit, nh_kind::prohibit},
                                                  {idx_receive, nh_kind::receive}};
    for (auto [idx, kind] : fixed) {
        const uint32_t got = _nh.alloc();
        (void)got;  // 1, 2, 3, 4 in order: a fresh table hands out indices from 1
        _nh.set(idx, make_fixed(kind, idx), _batch);
        _entries[idx].used = true;
        _entries[idx].kind = kind;
        ++_stats.nexthops[static_cast<size_t>(kind)];
    }
    ++_stats.nexthops[static_cast<size_t>(nh_kind::miss)];
}

compiler::~compiler() {
    retire_batch last;
    last.append(std::move(_batch));
    last.add(_cell.exchange(nullptr));
    for (auto& v : _vrfs)
        if (v) {
            v->v4.retire_all(last);
            v->v6.retire_all(last);
        }
    _nh.retire_all(last);
    last.add(_miss);
    _rcu.retire(std::move(last));
    _rcu.synchronize();
}

std::optional<compiler::route_info> compiler::find(const rib::route_key& k) const {
    const auto* s = _routes.find(k);
    if (!s)
        return std::nullopt;
    return route_info{s->e.state, s->e.vrf, s->e.nh};
}

std::string_view compiler::reason(uint32_t idx) const {
    return idx < _entries.size() && _entries[idx].used ? std::string_view(_entries[idx].reason) : std::string_view();
}

bool compiler::settle_due() const {
    for (const vrf::vrf_id i : _settle)
        if (_vrfs[i]->changed_at + settle_after <= _compiles)
            return true;
    return false;
}

void compiler::settle(std::vector<vrf_lpm>& vrfs) {
    size_t budget = settle_budget, kept = 0;
    for (const vrf::vrf_id i : _settle) {
        auto& t = *_vrfs[i];
        if (budget == 0 || t.changed_at + settle_after > _compiles) {
            _settle[kept++] = i;
            continue;
        }
        --budget;
        t.settling = false;
        if (t.v4.routes())
            vrfs[i].v4 = t.v4.flatten(_batch);
        if (t.v6.routes())
            vrfs[i].v6 = t.v6.flatten(_batch);
    }
    _settle.resize(kept);
}

void compiler::publish() {
    // What the previous publication unlinked is usually past its grace period by now (the
    // readers had a whole batch to report): freed before this one allocates, its blocks are
    // reused at once instead of a fresh copy of every changed chunk being carved from new pages
    // (the reclaim() after the swap below only frees batches older than that).
    _rcu.reclaim();
    // Only the VRFs whose LPMs changed are visited (1 000 VRFs, a handful touched per batch).
    if (_pub_vrfs.size() < _vrfs.size())
        _pub_vrfs.resize(_vrfs.size());
    auto& vrfs = _pub_vrfs;
    for (const vrf::vrf_id i : _touched) {
        auto& t = *_vrfs[i];
        t.touched = false;
        t.changed_at = _compiles;
        if (!t.settling) {
            t.settling = true;
            _settle.push_back(i);
        }
        // A family without routes publishes no table at all (lookups miss): most VRFs carry
        // only one family, and 1 000 empty tables are not free.
        if (t.v4.routes())
            vrfs[i].v4 = t.v4.publish(_batch);
        else if (t.v4.published())
            t.v4.retire_all(_batch);
        if (t.v6.routes())
            vrfs[i].v6 = t.v6.publish(_batch);
        else if (t.v6.published())
            t.v6.retire_all(_batch);
        if (!t.v4.routes())
            vrfs[i].v4 = nullptr;
        if (!t.v6.routes())
            vrfs[i].v6 = nullptr;
    }
    _touched.clear();
    settle(vrfs);
    const auto& pages = _nh.publish(_batch);
    const dataplane_view* next = dataplane_view::create(++_epoch, vrfs, pages, _miss);
    _batch.add(_cell.exchange(next));
    _rcu.retire(std::move(_batch));
    _batch = retire_batch{};
    _rcu.reclaim();
    _dirty = false;
    ++_stats.publications;
}

}  // namespace fib
