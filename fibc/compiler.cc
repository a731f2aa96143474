#include "fibc/compiler.hh"

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

// What a nexthop is compiled from, hashed without allocating: equal content (compared with
// same_path / the member lists) shares one nexthop index. The weight belongs to the group, and
// MPLS labels play no part in SRv6 forwarding.
class hasher {
public:
    // Eight bytes per multiply (the byte-wise FNV-1a this replaced was a quarter of the cost of
    // sharing a nexthop). Only fields are hashed, never padding.
    template <class T>
    void pod(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes(&v, sizeof(T));
    }
    void str(const std::string& v) {
        pod(v.size());
        bytes(v.data(), v.size());
    }
    void bytes(const void* p, size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (; n >= 8; n -= 8, b += 8) {
            uint64_t w;
            std::memcpy(&w, b, 8);
            word(w);
        }
        if (n) {
            uint64_t w = 0;
            std::memcpy(&w, b, n);
            word(w ^ uint64_t{n} << 59);
        }
    }
    template <class T>
    void opt(const std::optional<T>& v) {
        pod(v.has_value());
        if (v)
            pod(*v);
    }
    void encap(const seg6_encap& e) {
        pod(e.mode);
        pod(e.segments.size());
        for (const auto& sid : e.segments)
            pod(sid.bytes);
        pod(e.source.has_value());
        if (e.source)
            pod(e.source->bytes);
        str(e.sidlist_name);
    }
    uint64_t value() const { return mix64(_h); }

private:
    void word(uint64_t w) {
        _h = (_h ^ w) * 0x9e3779b97f4a7c15ull;
        _h ^= _h >> 29;
    }
    uint64_t _h = 0xcbf29ce484222325ull;
};

uint64_t path_hash(family af, const nexthop& p, vrf::vrf_id owner) {
    hasher h;
    h.pod('P');
    h.pod(af);
    if (p.local)
        h.pod(owner);
    h.pod(p.ifindex);
    h.pod(p.gateway.has_value());
    if (p.gateway) {
        h.pod(p.gateway->af);
        h.pod(p.gateway->bytes);
    }
    h.pod(p.onlink);
    h.pod(p.seg6.has_value());
    if (p.seg6)
        h.encap(*p.seg6);
    h.pod(p.local.has_value());
    if (p.local) {
        const auto& l = *p.local;
        h.pod(l.action);
        h.pod(l.flavors);
        h.opt(l.lcblock_bits);
        h.opt(l.lcnode_fn_bits);
        h.opt(l.table);
        h.opt(l.vrftable);
        h.pod(l.nh4.has_value());
        if (l.nh4)
            h.pod(l.nh4->bytes);
        h.pod(l.nh6.has_value());
        if (l.nh6)
            h.pod(l.nh6->bytes);
        h.opt(l.oif);
        h.pod(l.srh.has_value());
        if (l.srh)
            h.encap(*l.srh);
        h.str(l.vrf_name);
        h.str(l.ifname);
    }
    return h.value();
}

bool same_path(const nexthop& a, const nexthop& b) {
    return a.ifindex == b.ifindex && a.gateway == b.gateway && a.onlink == b.onlink && a.seg6 == b.seg6 &&
           a.local == b.local;
}

uint64_t group_hash(family af, const std::vector<ecmp_member>& members) {
    hasher h;
    h.pod('G');
    h.pod(af);
    for (const auto& m : members) {
        h.pod(m.nh);
        h.pod(m.weight);
    }
    return h.value();
}

bool same_members(const std::vector<ecmp_member>& a, const std::vector<ecmp_member>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const ecmp_member& x, const ecmp_member& y) {
               return x.nh == y.nh && x.weight == y.weight;
           });
}

bool is_host(const prefix& p) { return p.len == prefix::max_len(p.af); }

const compiled_nh* make_fixed(nh_kind k, uint32_t idx) {
    nh_fields f;
    f.kind = k;
    f.index = idx;
    return compiled_nh::create(f, {}, {});
}

}  // namespace

compiler::compiler(qsbr_domain& rcu) : _rcu(rcu), _miss(make_fixed(nh_kind::miss, nh_miss)), _nh(_miss) {
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

std::optional<compiler::route_info> compiler::find(const route_key& k) const {
    const auto* s = _routes.find(k);
    if (!s)
        return std::nullopt;
    return route_info{s->e.state, s->e.vrf, s->e.nh};
}

std::string_view compiler::reason(uint32_t idx) const {
    return idx < _entries.size() && _entries[idx].used ? std::string_view(_entries[idx].reason) : std::string_view();
}

compiler::vrf_tables& compiler::tables(vrf::vrf_id v) {
    if (_vrfs.size() <= v)
        _vrfs.resize(size_t{v} + 1);
    if (!_vrfs[v])
        _vrfs[v] = std::make_unique<vrf_tables>();
    return *_vrfs[v];
}

bool compiler::lpm_set(vrf::vrf_id v, const prefix& p, uint32_t nh) {
    auto& t = tables(v);
    const bool changed = p.af == family::ipv4 ? t.v4.set(key4(p.bytes.data()), p.len, nh)
                                              : t.v6.set(key6(p.bytes.data()), p.len, nh);
    if (changed) {
        ++_stats.lpm_changes;
        _dirty = true;
        if (!t.touched) {
            t.touched = true;
            _touched.push_back(v);
        }
    }
    return changed;
}

bool compiler::lpm_erase(vrf::vrf_id v, const prefix& p) {
    auto& t = tables(v);
    const bool changed =
        p.af == family::ipv4 ? t.v4.erase(key4(p.bytes.data()), p.len) : t.v6.erase(key6(p.bytes.data()), p.len);
    if (changed) {
        ++_stats.lpm_changes;
        _dirty = true;
        if (!t.touched) {
            t.touched = true;
            _touched.push_back(v);
        }
    }
    return changed;
}

std::optional<vrf::vrf_id> compiler::vrf_of(table_id t, const vrf::registry& reg) {
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

// --- nexthops

void compiler::account(const nh_entry& e, int delta) {
    auto bump = [delta](size_t& n) { n = static_cast<size_t>(static_cast<long>(n) + delta); };
    bump(_stats.nexthops[static_cast<size_t>(e.kind)]);
    if (e.kind == nh_kind::refused)
        bump(_stats.refused[static_cast<size_t>(e.refusal)]);
}

void compiler::build(uint32_t idx, const nh_inputs& in) {
    nh_entry& e = _entries[idx];
    nh_built b;
    if (e.group) {
        b.fields.kind = nh_kind::ecmp;
    } else {
        b = build_path_nh(e.af, e.path, in, e.owner);
    }
    b.fields.index = idx;
    const compiled_nh* old = _nh.get(idx);
    if (old != _miss && old->fields().kind == b.fields.kind && e.reason == b.reason &&
        std::equal(b.tmpl.begin(), b.tmpl.end(), old->encap_bytes().begin(), old->encap_bytes().end())) {
        // Same content (the registry or the source moved without affecting this one): keep
        // the published object. Group fields are filled by create(): compare the rest only.
        nh_fields cmp = old->fields();
        cmp.group = b.fields.group;
        cmp.encap.len = b.fields.encap.len;
        if (std::memcmp(&cmp, &b.fields, sizeof(nh_fields)) == 0)
            return;
    }
    if (old != _miss) {
        account(e, -1);
        ++_stats.nexthop_rebuilds;
    }
    _dep_registry.erase(idx);
    _dep_src.erase(idx);
    if (!e.sidlist.empty()) {
        auto it = _dep_sidlist.find(e.sidlist);
        if (it != _dep_sidlist.end() && (it->second.erase(idx), it->second.empty()))
            _dep_sidlist.erase(it);
    }
    e.kind = b.fields.kind;
    e.refusal = b.fields.refusal;
    e.reason = std::move(b.reason);
    e.uses_registry = b.uses_registry;
    e.uses_global_src = b.uses_global_src;
    e.sidlist = std::move(b.sidlist);
    if (e.uses_registry)
        _dep_registry.insert(idx);
    if (e.uses_global_src)
        _dep_src.insert(idx);
    if (!e.sidlist.empty())
        _dep_sidlist[e.sidlist].insert(idx);
    account(e, +1);
    _nh.set(idx, compiled_nh::create(b.fields, b.tmpl, e.members), _batch);
    _dirty = true;
}

void compiler::link_hash(uint32_t idx) {
    nh_entry& e = _entries[idx];
    auto [s, fresh] = _by_hash.insert(e.hash);
    if (fresh) {
        s->hash = e.hash;
        e.next_same = 0;
    } else {
        e.next_same = s->head;
    }
    s->head = idx;
}

void compiler::unlink_hash(uint32_t idx) {
    nh_entry& e = _entries[idx];
    auto* s = _by_hash.find(e.hash);
    if (!s)
        return;
    if (s->head == idx) {
        if (e.next_same)
            s->head = e.next_same;
        else
            _by_hash.erase(s);
    } else {
        for (uint32_t i = s->head; i; i = _entries[i].next_same)
            if (_entries[i].next_same == idx) {
                _entries[i].next_same = e.next_same;
                break;
            }
    }
    e.next_same = 0;
}

uint32_t compiler::find_path(uint64_t hash, family af, vrf::vrf_id owner, const fib::nexthop& p) const {
    for (uint32_t i = first_with(hash); i; i = _entries[i].next_same) {
        const nh_entry& have = _entries[i];
        if (!have.group && have.af == af && have.owner == owner && same_path(have.path, p))
            return i;
    }
    return nh_miss;
}

uint32_t compiler::find_group(uint64_t hash, family af, const std::vector<ecmp_member>& members) const {
    for (uint32_t i = first_with(hash); i; i = _entries[i].next_same) {
        const nh_entry& have = _entries[i];
        if (have.group && have.af == af && have.owner == 0 && same_members(have.members, members))
            return i;
    }
    return nh_miss;
}

uint32_t compiler::acquire_path(family af, const fib::nexthop& p, vrf::vrf_id v, const nh_inputs& in) {
    const vrf::vrf_id owner = p.local ? v : 0;
    const uint64_t hash = path_hash(af, p, owner);
    // Compared in place: no copy of the path (its SID vector, names) unless it is new.
    if (const uint32_t hit = find_path(hash, af, owner, p); hit != nh_miss) {
        ++_entries[hit].refs;
        return hit;
    }
    const uint32_t idx = _nh.alloc();
    if (_entries.size() <= idx)
        _entries.resize(size_t{idx} + 1);
    nh_entry& e = _entries[idx];
    e = nh_entry{};
    e.used = true;
    e.af = af;
    e.owner = owner;
    e.refs = 1;
    e.hash = hash;
    e.path = p;
    e.path.weight = 1;
    link_hash(idx);
    build(idx, in);
    return idx;
}

uint32_t compiler::acquire_group(family af, const std::vector<ecmp_member>& members) {
    const uint64_t hash = group_hash(af, members);
    if (const uint32_t hit = find_group(hash, af, members); hit != nh_miss) {
        for (const auto& m : members)
            release(m.nh);  // the existing group holds its own references
        ++_entries[hit].refs;
        return hit;
    }
    const uint32_t idx = _nh.alloc();
    if (_entries.size() <= idx)
        _entries.resize(size_t{idx} + 1);
    nh_entry& e = _entries[idx];
    e = nh_entry{};
    e.used = true;
    e.group = true;
    e.af = af;
    e.refs = 1;
    e.hash = hash;
    e.members = members;  // takes over the members' references
    link_hash(idx);
    nh_fields f;
    f.kind = nh_kind::ecmp;
    f.index = idx;
    e.kind = nh_kind::ecmp;
    account(e, +1);
    _nh.set(idx, compiled_nh::create(f, {}, e.members), _batch);
    _dirty = true;
    return idx;
}

void compiler::release(uint32_t idx) {
    if (idx <= idx_receive)
        return;  // miss and the fixed nexthops live as long as the compiler
    nh_entry& e = _entries[idx];
    if (--e.refs > 0)
        return;
    account(e, -1);
    unlink_hash(idx);
    _dep_registry.erase(idx);
    _dep_src.erase(idx);
    if (!e.sidlist.empty()) {
        auto it = _dep_sidlist.find(e.sidlist);
        if (it != _dep_sidlist.end() && (it->second.erase(idx), it->second.empty()))
            _dep_sidlist.erase(it);
    }
    std::vector<ecmp_member> members = std::move(e.members);
    e = nh_entry{};
    _nh.release(idx, _batch);
    _dirty = true;
    for (const auto& m : members)
        release(m.nh);
}

// --- routes

uint32_t compiler::route_nh(const route& rt, vrf::vrf_id v, const rib& r, const nh_inputs& in, bool& receive) {
    receive = false;
    switch (rt.type) {
    case route_type::blackhole: return idx_blackhole;
    case route_type::unreachable: return idx_unreachable;
    case route_type::prohibit: return idx_prohibit;
    case route_type::local: receive = true; return idx_receive;
    case route_type::unicast: break;
    }
    // Inline paths are used in place; only nexthop ids need rib::resolve() (which copies).
    resolution res;
    boost::container::small_vector<const fib::nexthop*, 8> paths;
    if (rt.nh_id) {
        res = r.resolve(rt);
        if (res.state == resolve_state::no_paths)
            return idx_blackhole;
        for (const auto& p : res.paths)
            paths.push_back(&p.path);
    } else {
        for (const auto& p : rt.nexthops)
            paths.push_back(&p);
    }
    if (paths.empty())
        return nh_miss;  // unresolved: not installed
    const family af = rt.key.dst.af;
    if (is_host(rt.key.dst) && rt.protocol == proto::kernel &&
        std::all_of(paths.begin(), paths.end(), [](const fib::nexthop* p) { return !p->gateway && !p->seg6 && !p->local; })) {
        receive = true;  // FRR 10's local routes: the router's own address
        return idx_receive;
    }
    // A local SID is its first path (rib::local_sids() agrees); more paths make no sense there.
    if (paths.size() == 1 || paths.front()->local)
        return acquire_path(af, *paths.front(), v, in);
    // Scratch reused across routes (no allocation per ECMP route). acquire_path() never reaches
    // route_nh() again, so nothing else uses it meanwhile.
    auto& members = _members_tmp;
    members.clear();
    for (const auto* p : paths)
        members.push_back({acquire_path(af, *p, v, in), p->weight});
    return acquire_group(af, members);
}

void compiler::compile_route(const route_key& k, const route* rt, const rib& r, const nh_inputs& in) {
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
            now.nh = route_nh(*rt, now.vrf, r, in, now.receive);
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

void compiler::full_sync(rib& r, std::vector<route_key>& todo) {
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

void compiler::remap_tables(const rib& r, const vrf::registry& reg, std::vector<route_key>& todo) {
    std::set<table_id> moved;
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

bool compiler::compile(rib& r, const vrf::registry& reg, const vrf::encap_source_resolver& src) {
    ++_stats.compiles;
    const nh_inputs in{reg, src, r.sidlists()};
    std::vector<route_key> todo = std::move(_todo);
    todo.clear();
    std::set<std::string> sidlists;
    if (!_synced) {
        full_sync(r, todo);
    } else {
        rib::changes ch = r.drain_changes();
        todo.insert(todo.end(), ch.routes.begin(), ch.routes.end());
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

    // Each route is looked up in the RIB once, in the RIB's own order (sorted keys share the
    // upper part of their search path, which stays in cache), and then compiled in address
    // order within each table (not route_key's length-first order): consecutive changes then
    // land in the same or neighbouring LPM chunks, which are still in cache.
    std::sort(todo.begin(), todo.end());
    todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
    _work.resize(todo.size());
    for (size_t i = 0; i < todo.size(); ++i) {
        const route_key& k = todo[i];
        uint64_t a;
        std::memcpy(&a, k.dst.bytes.data(), 8);
        _work[i] = {uint64_t{k.table} << 8 | static_cast<uint64_t>(k.dst.af), __builtin_bswap64(a), r.find_route(k),
                    static_cast<uint32_t>(i)};
    }
    std::sort(_work.begin(), _work.end(), [](const work_item& a, const work_item& b) {
        return a.table_af != b.table_af ? a.table_af < b.table_af : a.addr < b.addr;
    });
    constexpr size_t ahead = 8;  // route-state slots being loaded while earlier routes compile
    for (size_t i = 0; i < _work.size(); ++i) {
        if (i + ahead < _work.size())
            _routes.prefetch(todo[_work[i + ahead].todo]);
        compile_route(todo[_work[i].todo], _work[i].rt, r, in);
    }
    _work.clear();
    todo.clear();
    _todo = std::move(todo);  // keep the capacity for the next compile

    if (!_dirty && _cell.load())
        return false;
    publish();
    return true;
}

void compiler::publish() {
    // Only the VRFs whose LPMs changed are visited (1 000 VRFs, a handful touched per batch).
    if (_pub_vrfs.size() < _vrfs.size())
        _pub_vrfs.resize(_vrfs.size());
    auto& vrfs = _pub_vrfs;
    for (const vrf::vrf_id i : _touched) {
        auto& t = *_vrfs[i];
        t.touched = false;
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
