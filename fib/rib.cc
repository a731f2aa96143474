#include "fib/rib.hh"

#include <algorithm>
#include <array>
#include <iterator>
#include <tuple>
#include <utility>

namespace fib {

// --- generations: an entry is stale while its stamp is older than _generation.

void rib::refresh(uint32_t& gen, bool fresh) {
    if (!fresh && gen < _generation)
        --_stale;
    gen = _generation;
}

void rib::forget(uint32_t gen) {
    if (gen < _generation)
        --_stale;
}

void rib::begin_resync() {
    ++_generation;
    _resync_pending = true;
    _detach_stale = false;
    _stale = _routes.size() - _pinned + _nexthops.size() + _pic.size() + _sidlists.size();
    ++_counters.resyncs;
}

// --- indexes

void rib::index_route(uint32_t slot, bool add) {
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
    auto t = _table_routes.find(r.key.table);
    if (t != _table_routes.end() && --t->second == 0)
        _table_routes.erase(t);
}

// Unindexed already. The last slot moves into `slot`: its user list entry follows it.
void rib::remove_route_slot(uint32_t slot) {
    nexthop_list paths = std::move(_routes.at(slot).r.nexthops);
    const uint32_t moved = _routes.erase(slot);
    release_paths(std::move(paths));
    if (moved == route_table::npos)
        return;
    const auto& e = _routes.at(moved);
    if (e.r.nh_id)
        _nh_users[*e.r.nh_id][e.user_pos] = moved;
}

void rib::index_group(const nexthop_object& nh, bool add) {
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

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

template <size_t N>
uint64_t mix_bytes(uint64_t h, const std::array<uint8_t, N>& b) {
    for (uint8_t x : b)
        h = mix(h, x);
    return h;
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
    return h;
}

}  // namespace

void rib::share_paths(nexthop_list& l) {
    if (l.empty())
        return;
    const uint64_t h = hash_paths(l);
    for (auto [it, end] = _paths.equal_range(h); it != end; ++it)
        if (it->second == l) {
            l = it->second;
            return;
        }
    _paths.emplace(h, l);
}

void rib::release_paths(nexthop_list&& l) {
    // Held by `l` and the pool only: no route uses it any more.
    if (l.empty() || l.holders() != 2)
        return;
    for (auto [it, end] = _paths.equal_range(hash_paths(l)); it != end; ++it)
        if (it->second.shares_with(l)) {
            _paths.erase(it);
            return;
        }
}

// --- routes

bool rib::upsert_route(route r) {
    ++_counters.route_upserts;
    if (!_config.empty())
        shadow_config(r.key);
    const uint32_t slot = _routes.find_slot(r.key);
    if (slot != route_table::npos) {
        auto& e = _routes.at(slot);
        refresh(e.gen, false);
        if (e.r == r)
            return false;
        index_route(slot, false);
        share_paths(r.nexthops);
        nexthop_list old = std::move(e.r.nexthops);
        e.r = std::move(r);
        release_paths(std::move(old));
        index_route(slot, true);
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

bool rib::delete_route(const route_key& k) {
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
        forget(_routes.at(slot).gen);
        restore_config(slot, c->second);
        ++_counters.route_deletes;
        return true;
    }
    forget(_routes.at(slot).gen);
    index_route(slot, false);
    remove_route_slot(slot);
    ++_counters.route_deletes;
    note(k);
    touch();
    return true;
}

const route* rib::find_route(const route_key& k) const { return _routes.find(k); }

std::set<table_id> rib::tables() const {
    std::set<table_id> out;
    for (const auto& [t, n] : _table_routes)
        out.insert(t);
    return out;
}

// --- nexthop objects

void rib::detach_stale_users(uint32_t id) {
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

bool rib::upsert_nexthop(nexthop_object nh) {
    ++_counters.nh_upserts;
    const uint32_t id = nh.id;
    auto it = _nexthops.find(id);
    if (it != _nexthops.end()) {
        if (it->second != nh)
            detach_stale_users(id);  // before the refresh below: the object is still stale here
        refresh(_nh_gen[id], false);
        if (it->second == nh)
            return false;
        index_group(it->second, false);
        it->second = std::move(nh);
        index_group(it->second, true);
    } else {
        refresh(_nh_gen[id], true);
        index_group(nh, true);
        _nexthops.emplace(id, std::move(nh));
    }
    ++_counters.nh_changes;
    note(id);
    touch();
    return true;
}

bool rib::delete_nexthop(uint32_t id) {
    auto it = _nexthops.find(id);
    if (it == _nexthops.end()) {
        ++_counters.nh_delete_unknown;
        return false;
    }
    detach_stale_users(id);
    it = _nexthops.find(id);
    index_group(it->second, false);
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

const nexthop_object* rib::find_nexthop(uint32_t id) const {
    auto it = _nexthops.find(id);
    return it == _nexthops.end() ? nullptr : &it->second;
}

// --- PIC contexts and SID lists (SONiC): no dependants tracked here, the compiler looks them up.

bool rib::upsert_pic_context(nexthop_object nh) {
    const uint32_t id = nh.id;
    auto it = _pic.find(id);
    if (it != _pic.end()) {
        refresh(_pic_gen[id], false);
        if (it->second == nh)
            return false;
        it->second = std::move(nh);
    } else {
        refresh(_pic_gen[id], true);
        _pic.emplace(id, std::move(nh));
    }
    touch();
    return true;
}

bool rib::delete_pic_context(uint32_t id) {
    auto it = _pic.find(id);
    if (it == _pic.end())
        return false;
    _pic.erase(it);
    auto g = _pic_gen.find(id);
    if (g != _pic_gen.end()) {
        forget(g->second);
        _pic_gen.erase(g);
    }
    touch();
    return true;
}

bool rib::upsert_sidlist(std::string name, std::vector<ip6_addr> segments) {
    auto it = _sidlists.find(name);
    if (it != _sidlists.end()) {
        refresh(_sidlist_gen[name], false);
        if (it->second == segments)
            return false;
        it->second = std::move(segments);
        note(name);
    } else {
        refresh(_sidlist_gen[name], true);
        note(name);
        _sidlists.emplace(std::move(name), std::move(segments));
    }
    touch();
    return true;
}

bool rib::delete_sidlist(const std::string& name) {
    auto it = _sidlists.find(name);
    if (it == _sidlists.end())
        return false;
    note(name);
    _sidlists.erase(it);
    auto g = _sidlist_gen.find(name);
    if (g != _sidlist_gen.end()) {
        forget(g->second);
        _sidlist_gen.erase(g);
    }
    touch();
    return true;
}

// --- sweep

size_t rib::sweep() { return sweep(table_filter{}); }

size_t rib::sweep(const table_filter& may_sweep) {
    if (!may_sweep)
        return sweep_if(route_filter{});
    return sweep_if([&may_sweep](const route& r) { return may_sweep(r.key.table); });
}

void rib::detach_route(uint32_t slot, resolution&& res) {
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

size_t rib::detach_if(const route_filter& which) {
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

size_t rib::sweep_if(const route_filter& may_sweep, keep_mode mode) {
    if (!_resync_pending)
        return 0;
    size_t routes = 0, nexthops = 0, other = 0, kept_routes = 0, kept_nexthops = 0;
    // Objects a kept route uses stay with it. Kept entries are stamped current, as if replayed,
    // so that the stale count (0 after a sweep) stays exact.
    std::set<uint32_t> keep_nh, keep_pic;
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
            ++kept_routes;
            if (e.r.nh_id)
                keep_nh.insert(*e.r.nh_id);
            if (e.r.pic_id)
                keep_pic.insert(*e.r.pic_id);
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
    // Groups hold singletons only (docs/rib.md): one level of members.
    for (const uint32_t id : std::vector<uint32_t>(keep_nh.begin(), keep_nh.end()))
        if (const auto* o = find_nexthop(id))
            for (const auto& m : o->group)
                keep_nh.insert(m.id);
    for (auto it = _nexthops.begin(); it != _nexthops.end();) {
        auto ng = _nh_gen.find(it->first);
        if (ng != _nh_gen.end() && ng->second >= _generation) {
            ++it;
            continue;
        }
        if (keep_nh.count(it->first)) {
            _nh_gen[it->first] = _generation;
            ++kept_nexthops;
            ++it;
            continue;
        }
        index_group(it->second, false);
        if (ng != _nh_gen.end())
            _nh_gen.erase(ng);
        note(it->first);
        it = _nexthops.erase(it);
        ++nexthops;
    }
    for (auto it = _pic.begin(); it != _pic.end();) {
        auto pg = _pic_gen.find(it->first);
        if (pg != _pic_gen.end() && pg->second >= _generation) {
            ++it;
            continue;
        }
        if (keep_pic.count(it->first)) {
            _pic_gen[it->first] = _generation;
            ++it;
            continue;
        }
        if (pg != _pic_gen.end())
            _pic_gen.erase(pg);
        it = _pic.erase(it);
        ++other;
    }
    auto sg = _sidlist_gen.begin();  // same keys, same order as _sidlists
    for (auto it = _sidlists.begin(); it != _sidlists.end();) {
        if (sg->second < _generation) {
            note(it->first);
            it = _sidlists.erase(it);
            sg = _sidlist_gen.erase(sg);
            ++other;
        } else {
            ++it;
            ++sg;
        }
    }
    _counters.swept_routes += routes;
    _counters.swept_nexthops += nexthops;
    _counters.swept_other += other;
    _counters.kept_routes += kept_routes;
    _counters.kept_nexthops += kept_nexthops;
    // Lists only the pool still holds (a copy of routes() kept one alive past its last route).
    for (auto it = _paths.begin(); it != _paths.end();)
        it = it->second.holders() == 1 ? _paths.erase(it) : std::next(it);
    _stale = 0;
    _resync_pending = false;
    _detach_stale = false;
    const size_t total = routes + nexthops + other;
    if (total)
        touch();
    return total;
}

// --- resolution

resolution rib::resolve(const route& r) const {
    resolution res;
    if (r.type != route_type::unicast) {
        res.state = resolve_state::no_paths;
        return res;
    }
    if (!r.nh_id) {
        for (const auto& nh : r.nexthops)
            res.paths.push_back({nh, 0});
        res.state = res.paths.empty() ? resolve_state::unresolved : resolve_state::ok;
        return res;
    }
    const nexthop_object* obj = find_nexthop(*r.nh_id);
    if (!obj) {
        res.state = resolve_state::unresolved;
        res.missing_ids.push_back(*r.nh_id);
        return res;
    }
    if (obj->blackhole) {
        res.state = resolve_state::no_paths;
        return res;
    }
    if (!obj->is_group()) {
        if (obj->path)
            res.paths.push_back({*obj->path, obj->id});
        res.state = res.paths.empty() ? resolve_state::unresolved : resolve_state::ok;
        return res;
    }
    bool blackholes = false;
    for (const auto& m : obj->group) {
        const nexthop_object* member = find_nexthop(m.id);
        if (!member || member->is_group()) {
            res.missing_ids.push_back(m.id);
            continue;
        }
        if (member->blackhole || !member->path) {
            blackholes = blackholes || member->blackhole;
            continue;
        }
        resolved_path p{*member->path, member->id};
        p.path.weight = m.weight;  // the group's weight is the one that balances
        res.paths.push_back(std::move(p));
    }
    if (!res.missing_ids.empty())
        res.state = res.paths.empty() ? resolve_state::unresolved : resolve_state::partial;
    else if (res.paths.empty())
        res.state = blackholes ? resolve_state::no_paths : resolve_state::unresolved;
    else
        res.state = resolve_state::ok;
    return res;
}

std::vector<route_key> rib::users_of(uint32_t nh_id) const {
    std::vector<route_key> out;
    auto add = [&](uint32_t id) {
        auto it = _nh_users.find(id);
        if (it != _nh_users.end())
            for (uint32_t slot : it->second)
                out.push_back(_routes.at(slot).r.key);
    };
    add(nh_id);
    if (auto g = _groups_with.find(nh_id); g != _groups_with.end())
        for (uint32_t group : g->second)
            if (group != nh_id)  // a group listing itself: its users are in already
                add(group);
    // Each route has one nh_id, so it is in one user list: no duplicates, only an order to give.
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<local_sid_entry> rib::local_sids() const {
    // Candidates: routes with an inline seg6local first path, and users of seg6local objects.
    std::vector<route_key> cand(_inline_local.begin(), _inline_local.end());
    for (uint32_t id : _local_nh) {
        auto u = users_of(id);
        cand.insert(cand.end(), u.begin(), u.end());
    }
    std::sort(cand.begin(), cand.end());
    cand.erase(std::unique(cand.begin(), cand.end()), cand.end());

    std::vector<local_sid_entry> out;
    for (const auto& k : cand) {
        const route* r = find_route(k);
        if (!r)
            continue;
        auto res = resolve(*r);
        if (res.paths.empty() || !res.paths.front().path.local)
            continue;
        const auto& p = res.paths.front();
        out.push_back({r, *p.path.local, p.nh_id, p.path.ifindex, origin_of(k)});
    }
    std::sort(out.begin(), out.end(), [](const local_sid_entry& a, const local_sid_entry& b) {
        const auto& x = a.r->key;
        const auto& y = b.r->key;
        return std::tie(x.dst.af, x.dst.bytes, x.dst.len, x.table, x.src) <
               std::tie(y.dst.af, y.dst.bytes, y.dst.len, y.table, y.src);
    });
    return out;
}

}  // namespace fib
