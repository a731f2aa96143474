#include "rib/rib.hh"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <tuple>
#include <utility>

namespace rib {

// --- indexes

void store::index_route(uint32_t slot, bool add, bool same_key) {
    auto& e = _routes.at(slot);
    const route& r = e.r;
    const bool local = !r.nexthops.empty() && r.nexthops.front().local.has_value();
    if (add) {
        if (r.nh_id) {
            auto& users = _nh_users[*r.nh_id];
            e.user_pos = static_cast<uint32_t>(users.size());
            users.push_back(slot);
        }
        if (local)
            _inline_local.insert(r.key);
        if (!same_key)
            ++_table_routes[r.key.table];
        return;
    }
    if (r.nh_id) {
        auto it = _nh_users.find(*r.nh_id);
        if (it != _nh_users.end()) {
            // Swap-remove; the slot moved into this position learns its new position.
            auto& users = it->second;
            const uint32_t moved = users.back();
            users[e.user_pos] = moved;
            _routes.at(moved).user_pos = e.user_pos;
            users.pop_back();
            if (users.empty())
                _nh_users.erase(it);
        }
    }
    if (local)
        _inline_local.erase(r.key);
    if (same_key)
        return;
    auto t = _table_routes.find(r.key.table);
    if (t != _table_routes.end() && --t->second == 0)
        _table_routes.erase(t);
}

// Unindexed already. The last slot moves into `slot`: its user list entry follows it.
void store::remove_route_slot(uint32_t slot) {
    nexthop_list paths = std::move(_routes.at(slot).r.nexthops);
    const uint32_t moved = _routes.erase(slot);
    release_paths(std::move(paths));
    if (moved == route_table::npos)
        return;
    const auto& e = _routes.at(moved);
    if (e.r.nh_id)
        _nh_users[*e.r.nh_id][e.user_pos] = moved;
}

void store::index_group(const nexthop_object& nh, bool add) {
    if (nh.path && nh.path->local && !nh.is_group()) {
        if (add)
            _local_nh.insert(nh.id);
        else
            _local_nh.erase(nh.id);
    }
    for (const auto& m : nh.group) {
        if (add) {
            _groups_with[m.id].insert(nh.id);
            continue;
        }
        auto it = _groups_with.find(m.id);
        if (it != _groups_with.end()) {
            it->second.erase(nh.id);
            if (it->second.empty())
                _groups_with.erase(it);
        }
    }
}

// --- shared inline paths

namespace {

// Eight bytes per step (the byte-wise mix this replaced was a tenth of an upsert's cost).
uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

template <size_t N>
uint64_t mix_bytes(uint64_t h, const std::array<uint8_t, N>& b) {
    static_assert(N % 8 == 0 || N == 4);
    if constexpr (N == 4) {
        uint32_t w;
        std::memcpy(&w, b.data(), 4);
        return mix(h, w);
    } else {
        for (size_t i = 0; i < N; i += 8) {
            uint64_t w;
            std::memcpy(&w, b.data() + i, 8);
            h = mix(h, w);
        }
        return h;
    }
}

// Over what tells paths apart in practice; equal lists hash equal, the rest is operator==.
uint64_t hash_paths(const nexthop_list& l) {
    uint64_t h = l.size();
    for (const nexthop& n : l) {
        h = mix(h, uint64_t{n.ifindex} << 17 | uint64_t{n.weight} << 1 | (n.onlink ? 1 : 0));
        if (n.gateway)
            h = mix_bytes(h, n.gateway->bytes);
        if (n.seg6) {
            h = mix(h, static_cast<uint64_t>(n.seg6->mode) + 1);
            for (const auto& sid : n.seg6->segments)
                h = mix_bytes(h, sid.bytes);
        }
        if (n.local)
            h = mix(h, static_cast<uint64_t>(n.local->action) << 8);
        for (uint32_t label : n.mpls_labels)
            h = mix(h, label);
    }
    return h ^ (h >> 32);
}

}  // namespace

void store::share_paths(nexthop_list& l) {
    if (l.empty())
        return;
    const uint64_t h = hash_paths(l);
    for (auto [it, end] = _paths.equal_range(h); it != end; ++it)
        if (it->second == l) {
            l = it->second;
            return;
        }
    _paths.emplace(h, l);
    _nh_entries += l.size();
}

bool store::inline_paths_fit(const nexthop_list& l) const {
    if (l.empty() || !_limits.max_nexthops || _nh_entries + l.size() <= _limits.max_nexthops)
        return true;
    for (auto [it, end] = _paths.equal_range(hash_paths(l)); it != end; ++it)
        if (it->second == l)
            return true;  // shared with a list held already: costs nothing
    return false;
}

void store::release_paths(nexthop_list&& l) {
    // Held by `l` and the pool only: no route uses it any more.
    if (l.empty() || l.holders() != 2)
        return;
    for (auto [it, end] = _paths.equal_range(hash_paths(l)); it != end; ++it)
        if (it->second.shares_with(l)) {
            _nh_entries -= l.size();
            _paths.erase(it);
            return;
        }
}

// --- limits (docs/rib.md, "Limits")

// During a replay the stale routes are counted out: they go at the sweep, and must not keep out
// the routes zebra has now (its route set may have changed while it was away). The store itself
// stays within twice the bound.
bool store::route_fits(table_id table) {
    const size_t stale = stale_routes();
    if (_limits.max_routes &&
        (_routes.size() - stale >= _limits.max_routes || _routes.size() >= 2 * _limits.max_routes)) {
        ++_counters.refused_routes;
        return false;
    }
    if (_limits.max_routes_per_table) {
        const auto t = _table_routes.find(table);
        size_t table_stale = 0;
        if (stale)
            if (const auto s = _table_stale.find(table); s != _table_stale.end())
                table_stale = s->second;
        if (t != _table_routes.end() && (t->second - std::min(table_stale, t->second) >= _limits.max_routes_per_table ||
                                         t->second >= 2 * _limits.max_routes_per_table)) {
            ++_counters.refused_table_routes;
            return false;
        }
    }
    return true;
}

bool store::nexthops_fit(size_t more) {
    if (!_limits.max_nexthops || _nh_entries + more <= _limits.max_nexthops)
        return true;
    ++_counters.refused_nexthops;
    return false;
}

// --- routes

bool store::upsert_route(route r) {
    ++_counters.route_upserts;
    const uint32_t slot = _routes.find_slot(r.key);
    // Refused at a limit: nothing changes, not even the mark-and-sweep stamp.
    if (slot == route_table::npos && !route_fits(r.key.table))
        return false;
    if (!inline_paths_fit(r.nexthops)) {
        ++_counters.refused_nexthops;
        return false;
    }
    if (!_config.empty())
        shadow_config(r.key);
    if (slot != route_table::npos) {
        auto& e = _routes.at(slot);
        unstale_route(e.gen, e.r.key.table);
        refresh(e.gen, false);
        // Shared first: a list equal to the route's own is then the same storage, and the
        // comparison below is a pointer compare instead of a walk over both lists.
        share_paths(r.nexthops);
        if (e.r == r) {
            release_paths(std::move(r.nexthops));  // drops a pool entry only this call made
            return false;
        }
        index_route(slot, false, true);
        nexthop_list old = std::move(e.r.nexthops);
        e.r = std::move(r);
        release_paths(std::move(old));
        index_route(slot, true, true);
        note(e.r.key);
    } else {
        uint32_t gen = 0;
        refresh(gen, true);
        share_paths(r.nexthops);
        const uint32_t s = _routes.insert(std::move(r), gen);
        index_route(s, true);
        note(_routes.at(s).r.key);
    }
    ++_counters.route_changes;
    touch();
    return true;
}

bool store::delete_route(const route_key& k) {
    const uint32_t slot = _routes.find_slot(k);
    if (slot == route_table::npos) {
        ++_counters.route_delete_unknown;
        return false;
    }
    if (auto c = _config.find(k); c != _config.end()) {
        // zebra withdraws its route: the config one comes back. A delete of the config route
        // itself is one of something zebra never sent.
        if (!c->second.shadowed) {
            ++_counters.route_delete_unknown;
            return false;
        }
        unstale_route(_routes.at(slot).gen, k.table);
        forget(_routes.at(slot).gen);
        restore_config(slot, c->second);
        ++_counters.route_deletes;
        return true;
    }
    unstale_route(_routes.at(slot).gen, k.table);
    forget(_routes.at(slot).gen);
    index_route(slot, false);
    remove_route_slot(slot);
    ++_counters.route_deletes;
    note(k);
    touch();
    return true;
}

const route* store::find_route(const route_key& k) const { return _routes.find(k); }

std::set<table_id> store::tables() const {
    std::set<table_id> out;
    for (const auto& [t, n] : _table_routes)
        out.insert(t);
    return out;
}

bool store::upsert_nexthop(nexthop_object nh) {
    ++_counters.nh_upserts;
    const uint32_t id = nh.id;
    auto it = _nexthops.find(id);
    const size_t old_cost = it != _nexthops.end() ? cost(it->second) : 0;
    if (cost(nh) > old_cost && !nexthops_fit(cost(nh) - old_cost))
        return false;  // refused at the limit: the object stays as it was
    if (it != _nexthops.end()) {
        if (it->second != nh)
            detach_stale_users(id);  // before the refresh below: the object is still stale here
        refresh(_nh_gen[id], false);
        if (it->second == nh)
            return false;
        index_group(it->second, false);
        _nh_entries += cost(nh) - old_cost;
        it->second = std::move(nh);
        index_group(it->second, true);
    } else {
        refresh(_nh_gen[id], true);
        index_group(nh, true);
        _nh_entries += cost(nh);
        _nexthops.emplace(id, std::move(nh));
    }
    ++_counters.nh_changes;
    note(id);
    touch();
    return true;
}

bool store::delete_nexthop(uint32_t id) {
    auto it = _nexthops.find(id);
    if (it == _nexthops.end()) {
        ++_counters.nh_delete_unknown;
        return false;
    }
    detach_stale_users(id);
    it = _nexthops.find(id);
    index_group(it->second, false);
    _nh_entries -= cost(it->second);
    _nexthops.erase(it);
    auto g = _nh_gen.find(id);
    if (g != _nh_gen.end()) {
        forget(g->second);
        _nh_gen.erase(g);
    }
    ++_counters.nh_deletes;
    note(id);
    touch();
    return true;
}

const nexthop_object* store::find_nexthop(uint32_t id) const {
    auto it = _nexthops.find(id);
    return it == _nexthops.end() ? nullptr : &it->second;
}

// --- PIC contexts and SID lists (SONiC): no dependants tracked here, the compiler looks them up.

bool store::upsert_pic_context(nexthop_object nh) {
    const uint32_t id = nh.id;
    auto it = _pic.find(id);
    const size_t old_cost = it != _pic.end() ? cost(it->second) : 0;
    if (cost(nh) > old_cost && !nexthops_fit(cost(nh) - old_cost))
        return false;
    if (it != _pic.end()) {
        refresh(_pic_gen[id], false);
        if (it->second == nh)
            return false;
        _nh_entries += cost(nh) - old_cost;
        it->second = std::move(nh);
    } else {
        refresh(_pic_gen[id], true);
        _nh_entries += cost(nh);
        _pic.emplace(id, std::move(nh));
    }
    touch();
    return true;
}

bool store::delete_pic_context(uint32_t id) {
    auto it = _pic.find(id);
    if (it == _pic.end())
        return false;
    _nh_entries -= cost(it->second);
    _pic.erase(it);
    auto g = _pic_gen.find(id);
    if (g != _pic_gen.end()) {
        forget(g->second);
        _pic_gen.erase(g);
    }
    touch();
    return true;
}

bool store::upsert_sidlist(std::string name, std::vector<ip6_addr> segments) {
    auto it = _sidlists.find(name);
    const size_t old_cost = it != _sidlists.end() ? cost(it->second) : 0;
    if (cost(segments) > old_cost && !nexthops_fit(cost(segments) - old_cost))
        return false;
    if (it != _sidlists.end()) {
        refresh(_sidlist_gen[name], false);
        if (it->second == segments)
            return false;
        _nh_entries += cost(segments) - old_cost;
        it->second = std::move(segments);
        note(name);
    } else {
        refresh(_sidlist_gen[name], true);
        note(name);
        _nh_entries += cost(segments);
        _sidlists.emplace(std::move(name), std::move(segments));
    }
    touch();
    return true;
}

bool store::delete_sidlist(const std::string& name) {
    auto it = _sidlists.find(name);
    if (it == _sidlists.end())
        return false;
    note(name);
    _nh_entries -= cost(it->second);
    _sidlists.erase(it);
    auto g = _sidlist_gen.find(name);
    if (g != _sidlist_gen.end()) {
        forget(g->second);
        _sidlist_gen.erase(g);
    }
    touch();
    return true;
}

}  // namespace rib
