// Resync after a (re)connect - generations, mark-and-sweep, detaching stale routes (docs/rib.md).
#include "rib/rib.hh"

#include <algorithm>
#include <array>
#include <iterator>
#include <tuple>
#include <utility>

namespace rib {

// --- generations: an entry is stale while its stamp is older than _generation.

void store::refresh(uint32_t& gen, bool fresh) {
    if (!fresh && gen < _generation)
        --_stale;
    gen = _generation;
}

void store::forget(uint32_t gen) {
    if (gen < _generation)
        --_stale;
}

void store::unstale_route(uint32_t gen, table_id table) {
    if (!_resync_pending || gen >= _generation)
        return;
    if (_stale_routes)
        --_stale_routes;
    if (auto t = _table_stale.find(table); t != _table_stale.end() && --t->second == 0)
        _table_stale.erase(t);
}

void store::begin_resync() {
    ++_generation;
    _resync_pending = true;
    _detach_stale = false;
    _stale = _routes.size() - _pinned + _nexthops.size() + _pic.size() + _sidlists.size();
    _stale_routes = _routes.size() - _pinned;
    _table_stale = _table_routes;
    for (const auto& [k, c] : _config)
        if (!c.shadowed)
            if (auto t = _table_stale.find(k.table); t != _table_stale.end() && --t->second == 0)
                _table_stale.erase(t);
    ++_counters.resyncs;
}

void store::abandon_resync() {
    if (!_resync_pending)
        return;
    for (uint32_t i = 0; i < static_cast<uint32_t>(_routes.size()); ++i)
        if (auto& e = _routes.at(i); e.gen < _generation)
            e.gen = _generation;
    for (auto& [id, g] : _nh_gen)
        g = std::max(g, _generation);
    for (auto& [id, g] : _pic_gen)
        g = std::max(g, _generation);
    for (auto& [name, g] : _sidlist_gen)
        g = std::max(g, _generation);
    _stale = 0;
    _stale_routes = 0;
    _table_stale.clear();
    _resync_pending = false;
    _detach_stale = false;
    ++_counters.abandoned_resyncs;
}

// --- nexthop objects

void store::detach_stale_users(uint32_t id) {
    if (!_detach_stale)
        return;
    auto g = _nh_gen.find(id);
    if (g == _nh_gen.end() || g->second >= _generation)
        return;  // refreshed by the new zebra already: its users are the new zebra's
    for (const route_key& k : users_of(id)) {
        const uint32_t slot = _routes.find_slot(k);
        if (slot == route_table::npos || _routes.at(slot).gen >= _generation)
            continue;  // re-sent by the new zebra: it follows the new definition
        auto res = resolve(_routes.at(slot).r);
        if (res.paths.empty())
            continue;  // it forwarded nothing; nothing to keep
        detach_route(slot, std::move(res));
        ++_counters.detached_routes;
        touch();
    }
}

// --- sweep

size_t store::sweep() { return sweep(table_filter{}); }

size_t store::sweep(const table_filter& may_sweep) {
    if (!may_sweep)
        return sweep_if(route_filter{});
    return sweep_if([&may_sweep](const route& r) { return may_sweep(r.key.table); });
}

void store::detach_route(uint32_t slot, resolution&& res) {
    std::vector<nexthop> paths;
    paths.reserve(res.paths.size());
    for (auto& p : res.paths)
        paths.push_back(std::move(p.path));
    nexthop_list l(std::move(paths));
    share_paths(l);
    auto& e = _routes.at(slot);
    index_route(slot, false);
    nexthop_list old = std::move(e.r.nexthops);
    e.r.nh_id.reset();
    e.r.nexthops = std::move(l);
    release_paths(std::move(old));
    index_route(slot, true);
    note(e.r.key);
}

size_t store::detach_if(const route_filter& which) {
    size_t n = 0;
    for (uint32_t i = 0; i < static_cast<uint32_t>(_routes.size()); ++i) {
        const auto& e = _routes.at(i);
        if (!e.r.nh_id || !which(e.r))
            continue;
        auto res = resolve(e.r);
        if (res.state != resolve_state::ok || res.paths.empty())
            continue;
        detach_route(i, std::move(res));
        ++n;
    }
    if (n)
        touch();
    return n;
}

size_t store::sweep_if(const route_filter& may_sweep, keep_mode mode) {
    if (!_resync_pending)
        return 0;
    // Objects a kept route uses stay with it. Kept entries are stamped current, as if replayed,
    // so that the stale count (0 after a sweep) stays exact.
    sweep_kept kept;
    const size_t routes = sweep_routes(may_sweep, mode, kept);
    const size_t nexthops = sweep_nexthops(kept);
    size_t other = sweep_pic(kept);
    other += sweep_sidlists();
    _counters.swept_routes += routes;
    _counters.swept_nexthops += nexthops;
    _counters.swept_other += other;
    _counters.kept_routes += kept.routes;
    _counters.kept_nexthops += kept.nexthops;
    // Lists only the pool still holds (a copy of routes() kept one alive past its last route).
    for (auto it = _paths.begin(); it != _paths.end();)
        if (it->second.holders() == 1) {
            _nh_entries -= it->second.size();
            it = _paths.erase(it);
        } else {
            it = std::next(it);
        }
    _stale = 0;
    _stale_routes = 0;
    _table_stale.clear();
    _resync_pending = false;
    _detach_stale = false;
    const size_t total = routes + nexthops + other;
    if (total)
        touch();
    return total;
}

size_t store::sweep_routes(const route_filter& may_sweep, keep_mode mode, sweep_kept& kept) {
    size_t routes = 0;
    // Backwards: removing slot i moves the last slot, already visited, into it.
    for (uint32_t i = static_cast<uint32_t>(_routes.size()); i-- > 0;) {
        auto& e = _routes.at(i);
        if (e.gen >= _generation)
            continue;
        // inline_only: a kept route still on an object could not be detached; the new zebra
        // may be reusing its id for something else.
        const bool keep = may_sweep && !may_sweep(e.r) && (mode == keep_mode::as_is || !e.r.nh_id);
        if (keep) {
            e.gen = _generation;
            ++kept.routes;
            if (e.r.nh_id)
                kept.nh.insert(*e.r.nh_id);
            if (e.r.pic_id)
                kept.pic.insert(*e.r.pic_id);
            continue;
        }
        if (auto c = _config.find(e.r.key); c != _config.end()) {
            restore_config(i, c->second);  // zebra's stale route goes, the config one returns
            ++routes;
            continue;
        }
        note(e.r.key);
        index_route(i, false);
        remove_route_slot(i);
        ++routes;
    }
    return routes;
}

size_t store::sweep_nexthops(sweep_kept& kept) {
    // Groups hold singletons only (docs/rib.md): one level of members.
    for (const uint32_t id : std::vector<uint32_t>(kept.nh.begin(), kept.nh.end()))
        if (const auto* o = find_nexthop(id))
            for (const auto& m : o->group)
                kept.nh.insert(m.id);
    size_t nexthops = 0;
    for (auto it = _nexthops.begin(); it != _nexthops.end();) {
        auto ng = _nh_gen.find(it->first);
        if (ng != _nh_gen.end() && ng->second >= _generation) {
            ++it;
            continue;
        }
        if (kept.nh.count(it->first)) {
            _nh_gen[it->first] = _generation;
            ++kept.nexthops;
            ++it;
            continue;
        }
        index_group(it->second, false);
        if (ng != _nh_gen.end())
            _nh_gen.erase(ng);
        note(it->first);
        _nh_entries -= cost(it->second);
        it = _nexthops.erase(it);
        ++nexthops;
    }
    return nexthops;
}

size_t store::sweep_pic(const sweep_kept& kept) {
    size_t removed = 0;
    for (auto it = _pic.begin(); it != _pic.end();) {
        auto pg = _pic_gen.find(it->first);
        if (pg != _pic_gen.end() && pg->second >= _generation) {
            ++it;
            continue;
        }
        if (kept.pic.count(it->first)) {
            _pic_gen[it->first] = _generation;
            ++it;
            continue;
        }
        if (pg != _pic_gen.end())
            _pic_gen.erase(pg);
        _nh_entries -= cost(it->second);
        it = _pic.erase(it);
        ++removed;
    }
    return removed;
}

size_t store::sweep_sidlists() {
    size_t removed = 0;
    auto sg = _sidlist_gen.begin();  // same keys, same order as _sidlists
    for (auto it = _sidlists.begin(); it != _sidlists.end();) {
        if (sg->second < _generation) {
            note(it->first);
            _nh_entries -= cost(it->second);
            it = _sidlists.erase(it);
            sg = _sidlist_gen.erase(sg);
            ++removed;
        } else {
            ++it;
            ++sg;
        }
    }
    return removed;
}

}  // namespace rib
