// Nexthop interning - equal paths and groups share one index, refcounted, built once.
#include "fib/control/compiler.hh"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>

#include <boost/container/small_vector.hpp>

namespace fib {

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
    void encap(const rib::seg6_encap& e) {
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

uint64_t path_hash(rib::family af, const rib::nexthop& p, vrf::vrf_id owner, sid_counter counter) {
    hasher h;
    h.pod('P');
    h.pod(af);
    if (p.local) {
        h.pod(owner);
        h.pod(counter.slot);
        h.pod(counter.gen);
    }
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

bool same_path(const rib::nexthop& a, const rib::nexthop& b) {
    return a.ifindex == b.ifindex && a.gateway == b.gateway && a.onlink == b.onlink && a.seg6 == b.seg6 &&
           a.local == b.local;
}

uint64_t group_hash(rib::family af, const std::vector<ecmp_member>& members) {
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

}  // namespace

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
    if (!e.group && e.path.local) {  // counted per SID, not per (recycled) nexthop index
        b.fields.sid.counter = e.counter.slot;
        b.fields.sid.counter_gen = e.counter.gen;
    }
    const compiled_nh* old = _nh.get(idx);
    if (old != _miss && old->fields().kind == b.fields.kind && e.reason == b.reason &&
        b.tmpl.has_value() == (old->fields().has_encap != 0) &&
        (!b.tmpl || std::memcmp(&*b.tmpl, &old->encap(), sizeof(encap_template)) == 0)) {
        // Same content (the registry or the source moved without affecting this one): keep
        // the published object. Group fields are filled by create(): compare the rest only.
        nh_fields cmp = old->fields();
        cmp.group = b.fields.group;
        cmp.has_encap = b.fields.has_encap;
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
    _nh.set(idx, compiled_nh::create(b.fields, b.tmpl ? &*b.tmpl : nullptr, e.members), _batch);
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

uint32_t compiler::find_path(uint64_t hash, rib::family af, vrf::vrf_id owner, sid_counter counter,
                             const rib::nexthop& p) const {
    for (uint32_t i = first_with(hash); i; i = _entries[i].next_same) {
        const nh_entry& have = _entries[i];
        if (!have.group && have.af == af && have.owner == owner && have.counter == counter && same_path(have.path, p))
            return i;
    }
    return nh_miss;
}

uint32_t compiler::find_group(uint64_t hash, rib::family af, const std::vector<ecmp_member>& members) const {
    for (uint32_t i = first_with(hash); i; i = _entries[i].next_same) {
        const nh_entry& have = _entries[i];
        if (have.group && have.af == af && have.owner == 0 && same_members(have.members, members))
            return i;
    }
    return nh_miss;
}

// A fresh entry with one reference, not yet in the hash (the caller fills it first).
uint32_t compiler::new_entry(rib::family af, uint64_t hash) {
    const uint32_t idx = _nh.alloc();
    if (_entries.size() <= idx)
        _entries.resize(size_t{idx} + 1);
    nh_entry& e = _entries[idx];
    e = nh_entry{};
    e.used = true;
    e.af = af;
    e.refs = 1;
    e.hash = hash;
    return idx;
}

uint32_t compiler::acquire_path(rib::family af, const rib::nexthop& p, vrf::vrf_id v, const nh_inputs& in,
                                sid_counter counter) {
    const vrf::vrf_id owner = p.local ? v : 0;
    if (!p.local)
        counter = {};
    const uint64_t hash = path_hash(af, p, owner, counter);
    // Compared in place: no copy of the path (its SID vector, names) unless it is new.
    if (const uint32_t hit = find_path(hash, af, owner, counter, p); hit != nh_miss) {
        ++_entries[hit].refs;
        return hit;
    }
    const uint32_t idx = new_entry(af, hash);
    nh_entry& e = _entries[idx];
    e.owner = owner;
    e.counter = counter;
    e.path = p;
    e.path.weight = 1;
    link_hash(idx);
    build(idx, in);
    return idx;
}

uint32_t compiler::acquire_group(rib::family af, const std::vector<ecmp_member>& members) {
    const uint64_t hash = group_hash(af, members);
    if (const uint32_t hit = find_group(hash, af, members); hit != nh_miss) {
        for (const auto& m : members)
            release(m.nh);  // the existing group holds its own references
        ++_entries[hit].refs;
        return hit;
    }
    const uint32_t idx = new_entry(af, hash);
    nh_entry& e = _entries[idx];
    e.group = true;
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

}  // namespace fib
