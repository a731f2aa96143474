// Route compilation - a RIB route to an LPM entry in its VRF, incrementally from the RIB's changes.
#include "fib/control/compiler.hh"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>

#include <boost/container/small_vector.hpp>

namespace fib {

namespace {

bool is_host(const rib::prefix& p) { return p.len == rib::prefix::max_len(p.af); }

}  // namespace

compiler::vrf_tables& compiler::tables(vrf::vrf_id v) {
    if (_vrfs.size() <= v)
        _vrfs.resize(size_t{v} + 1);
    if (!_vrfs[v])
        _vrfs[v] = std::make_unique<vrf_tables>();
    return *_vrfs[v];
}

bool compiler::lpm_set(vrf::vrf_id v, const rib::prefix& p, uint32_t nh) {
    auto& t = tables(v);
    const bool changed = p.af == rib::family::ipv4 ? t.v4.set(key4(p.bytes.data()), p.len, nh)
                                              : t.v6.set(key6(p.bytes.data()), p.len, nh);
    if (changed)
        lpm_changed(v, t);
    return changed;
}

void compiler::lpm_changed(vrf::vrf_id v, vrf_tables& t) {
    ++_stats.lpm_changes;
    _dirty = true;
    if (!t.touched) {
        t.touched = true;
        _touched.push_back(v);
    }
}

bool compiler::lpm_erase(vrf::vrf_id v, const rib::prefix& p) {
    auto& t = tables(v);
    const bool changed =
        p.af == rib::family::ipv4 ? t.v4.erase(key4(p.bytes.data()), p.len) : t.v6.erase(key6(p.bytes.data()), p.len);
    if (changed)
        lpm_changed(v, t);
    return changed;
}

std::optional<vrf::vrf_id> compiler::vrf_of(rib::table_id t, const vrf::registry& reg) {
    auto it = _table_vrf.find(t);
    if (it != _table_vrf.end())
        return it->second;
    const vrf::binding b = reg.lookup_table(t);
    std::optional<vrf::vrf_id> v;
    if (b.active())
        v = b.vrf->id;
    _table_vrf.emplace(t, v);
    return v;
}

// --- routes

uint32_t compiler::route_nh(const rib::route& rt, vrf::vrf_id v, const rib::store& r, const nh_inputs& in, bool& receive,
                            bool& sid) {
    receive = false;
    sid = false;
    switch (rt.type) {
    case rib::route_type::blackhole: return idx_blackhole;
    case rib::route_type::unreachable: return idx_unreachable;
    case rib::route_type::prohibit: return idx_prohibit;
    case rib::route_type::local: receive = true; return idx_receive;
    case rib::route_type::unicast: break;
    }
    // Inline paths are used in place; only nexthop ids need rib::resolve() (which copies).
    rib::resolution res;
    boost::container::small_vector<const rib::nexthop*, 8> paths;
    if (rt.nh_id) {
        res = r.resolve(rt);
        if (res.state == rib::resolve_state::no_paths)
            return idx_blackhole;
        for (const auto& p : res.paths)
            paths.push_back(&p.path);
    } else {
        for (const auto& p : rt.nexthops)
            paths.push_back(&p);
    }
    if (paths.empty())
        return nh_miss;  // unresolved: not installed
    const rib::family af = rt.key.dst.af;
    if (is_host(rt.key.dst) && rt.protocol == rib::proto::kernel &&
        std::all_of(paths.begin(), paths.end(), [](const rib::nexthop* p) { return !p->gateway && !p->seg6 && !p->local; })) {
        receive = true;  // FRR 10's local routes: the router's own address
        return idx_receive;
    }
    // A local SID is its first path (rib::local_sids() agrees); more paths make no sense there.
    // It counts in a slot of its own, kept while the SID exists (a change of its behavior
    // included), whatever nexthop index it compiles to.
    if (paths.front()->local) {
        sid = true;
        return acquire_path(af, *paths.front(), v, in, _sid_slots.acquire(rt.key));
    }
    if (paths.size() == 1)
        return acquire_path(af, *paths.front(), v, in);
    // Scratch reused across routes (no allocation per ECMP route). acquire_path() never reaches
    // route_nh() again, so nothing else uses it meanwhile.
    auto& members = _members_tmp;
    members.clear();
    for (const auto* p : paths)
        members.push_back({acquire_path(af, *p, v, in), p->weight});
    return acquire_group(af, members);
}

void compiler::compile_route(const rib::route_key& k, const rib::route* rt, const rib::store& r, const nh_inputs& in) {
    // One probe: insert the slot up front when the route exists. Nothing below touches _routes
    // until the slot is written or erased at the end, so the pointer stays valid.
    route_traits::slot* slot;
    bool had;
    if (rt) {
        auto [s, fresh] = _routes.insert(k);
        if (fresh)
            s->key = k;
        slot = s;
        had = !fresh;
    } else {
        slot = _routes.find(k);
        had = slot != nullptr;
    }
    const route_entry old = had ? slot->e : route_entry{};
    route_entry now;
    if (rt) {
        if (k.src.len > 0) {
            now.state = route_state::src_specific;
        } else if (auto v = vrf_of(k.table, in.reg)) {
            now.vrf = *v;
            now.nh = route_nh(*rt, now.vrf, r, in, now.receive, now.sid);
            now.state = now.nh != nh_miss ? route_state::installed : route_state::unresolved;
        } else {
            now.state = route_state::unbound;
        }
    }
    const bool was_in = had && old.state == route_state::installed;
    const bool is_in = rt && now.state == route_state::installed;
    if (was_in && (!is_in || old.vrf != now.vrf))
        lpm_erase(old.vrf, k.dst);
    if (is_in)
        lpm_set(now.vrf, k.dst, now.nh);
    if (was_in)
        release(old.nh);  // after the new one was acquired: a shared nexthop survives
    if (old.sid && !now.sid)
        _sid_slots.release(k);  // the SID is gone: a new one at this key starts from 0

    if (had) {
        --_stats.routes[static_cast<size_t>(old.state)];
        _stats.routes_receive -= old.receive ? 1 : 0;
        if (old.state == route_state::unbound) {
            auto u = _unbound.find(k.table);
            if (u != _unbound.end() && --u->second == 0)
                _unbound.erase(u);
        }
    }
    if (rt) {
        ++_stats.routes[static_cast<size_t>(now.state)];
        _stats.routes_receive += now.receive ? 1 : 0;
        if (now.state == route_state::unbound)
            ++_unbound[k.table];
        now.used = true;
        slot->e = now;
    } else if (had) {
        _routes.erase(slot);
    }
    ++_stats.route_updates;
}

void compiler::full_sync(rib::store& r, std::vector<rib::route_key>& todo) {
    r.enable_journal();
    r.drain_changes();  // the full walk below covers whatever it held
    todo.reserve(r.routes().size() + _routes.size());
    for (const auto& [k, rt] : r.routes())
        todo.push_back(k);
    _routes.for_each([&](const route_traits::slot& s) { todo.push_back(s.key); });
    _routes.reserve(r.routes().size());
    ++_stats.full_syncs;
    _synced = true;
}

void compiler::remap_tables(const rib::store& r, const vrf::registry& reg, std::vector<rib::route_key>& todo) {
    std::set<rib::table_id> moved;
    for (auto& [t, cached] : _table_vrf) {
        const vrf::binding b = reg.lookup_table(t);
        std::optional<vrf::vrf_id> now;
        if (b.active())
            now = b.vrf->id;
        if (now == cached)
            continue;
        cached = now;
        moved.insert(t);
    }
    // Every route of those tables moves: one walk over the RIB for all of them.
    // (Routes the RIB no longer has are in the journal already.)
    if (!moved.empty())
        for (const auto& [k, rt] : r.routes())
            if (moved.count(k.table))
                todo.push_back(k);
}

bool compiler::compile(rib::store& r, const vrf::registry& reg, const vrf::encap_source_resolver& src) {
    ++_stats.compiles;
    ++_compiles;
    const nh_inputs in{reg, src, r.sidlists()};
    std::vector<rib::route_key> todo = std::move(_todo);
    todo.clear();
    std::set<std::string> sidlists;
    if (!_synced) {
        full_sync(r, todo);
    } else {
        rib::store::changes& ch = _changes;
        r.drain_changes(ch);
        todo.swap(ch.routes);  // todo was empty: both vectors keep their capacity
        std::sort(ch.nexthops.begin(), ch.nexthops.end());
        ch.nexthops.erase(std::unique(ch.nexthops.begin(), ch.nexthops.end()), ch.nexthops.end());
        for (uint32_t id : ch.nexthops) {
            auto users = r.users_of(id);
            todo.insert(todo.end(), users.begin(), users.end());
        }
        sidlists.insert(ch.sidlists.begin(), ch.sidlists.end());
    }

    // Inputs of the nexthops: rebuild the dependants in place (same index, new object).
    std::set<uint32_t> rebuild;
    if (reg.version() != _reg_version) {
        _reg_version = reg.version();
        remap_tables(r, reg, todo);
        rebuild.insert(_dep_registry.begin(), _dep_registry.end());
    }
    if (src.version() != _src_version) {
        _src_version = src.version();
        rebuild.insert(_dep_src.begin(), _dep_src.end());
    }
    for (const auto& name : sidlists) {
        auto it = _dep_sidlist.find(name);
        if (it != _dep_sidlist.end())
            rebuild.insert(it->second.begin(), it->second.end());
    }
    for (uint32_t idx : rebuild)
        if (_entries[idx].used)
            build(idx, in);

    // Each route is looked up in the RIB once and then compiled in address order within each
    // table (not route_key's length-first order): consecutive changes then land in the same or
    // neighbouring LPM chunks, which are still in cache. The keys are not sorted by route_key
    // first (that sort of 40-byte keys was ~4 % of a 100 000-update compile): a key the journal
    // names twice sorts next to itself below and is compiled once.
    _work.resize(todo.size());
    for (size_t i = 0; i < todo.size(); ++i) {
        // The RIB probes of later keys prefetched (as fpm::apply_batch does): each probe is two
        // dependent cache misses otherwise.
        if (i + 8 < todo.size())
            r.prefetch_route(todo[i + 8], 0);
        if (i + 4 < todo.size())
            r.prefetch_route(todo[i + 4], 1);
        const rib::route_key& k = todo[i];
        uint64_t a;
        std::memcpy(&a, k.dst.bytes.data(), 8);
        _work[i] = {uint64_t{k.table} << 8 | static_cast<uint64_t>(k.dst.af), __builtin_bswap64(a), r.find_route(k),
                    static_cast<uint32_t>(i)};
    }
    std::sort(_work.begin(), _work.end(), [&todo](const work_item& a, const work_item& b) {
        if (a.table_af != b.table_af)
            return a.table_af < b.table_af;
        if (a.addr != b.addr)
            return a.addr < b.addr;
        return todo[a.todo] < todo[b.todo];  // same first 8 bytes: the whole key, so equal keys meet
    });
    constexpr size_t ahead = 8;  // route-state slots being loaded while earlier routes compile
    for (size_t i = 0; i < _work.size(); ++i) {
        if (i + ahead < _work.size())
            _routes.prefetch(todo[_work[i + ahead].todo]);
        const rib::route_key& k = todo[_work[i].todo];
        if (i > 0 && _work[i - 1].table_af == _work[i].table_af && _work[i - 1].addr == _work[i].addr &&
            todo[_work[i - 1].todo] == k)
            continue;  // named twice: compiled once
        compile_route(k, _work[i].rt, r, in);
    }
    _work.clear();
    todo.clear();
    _todo = std::move(todo);  // keep the capacity for the next compile

    if (!_dirty && _cell.load() && !settle_due())
        return false;
    publish();
    return true;
}

}  // namespace fib
