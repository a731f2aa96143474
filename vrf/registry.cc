#include "vrf/registry.hh"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace vrf {
namespace {

constexpr size_t idx(source s) { return static_cast<size_t>(s); }

constexpr std::array<source, 2> claim_sources{source::config, source::kernel};

source other(source s) { return s == source::config ? source::kernel : source::config; }

void add_reason(std::vector<std::string>& v, std::string r) {
    if (std::find(v.begin(), v.end(), r) == v.end())
        v.push_back(std::move(r));
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& r : v) {
        if (!out.empty())
            out += "; ";
        out += r;
    }
    return out;
}

// One source's members into `into`: an interface named or numbered by both is one member.
void merge_members(std::vector<vrf_member>& into, const std::vector<member>& from, source s) {
    for (const auto& m : from) {
        auto it = std::find_if(into.begin(), into.end(), [&](const vrf_member& x) {
            return (!m.name.empty() && x.name == m.name) || (m.ifindex && x.ifindex == m.ifindex);
        });
        if (it == into.end())
            it = into.insert(into.end(), vrf_member{m.name, m.ifindex, {}});
        if (it->name.empty())
            it->name = m.name;
        if (!it->ifindex)
            it->ifindex = m.ifindex;
        it->sources.add(s);
    }
}

// An active VRF binds; any other state is a conflict with its reason.
binding bind_to(const vrf_info& v) {
    binding b;
    b.vrf = &v;
    if (v.state == vrf_state::active) {
        b.state = binding::kind::active;
    } else {
        b.state = binding::kind::conflict;
        b.reason = v.reason;
    }
    return b;
}

}  // namespace

std::string_view to_string(vrf_state s) {
    switch (s) {
    case vrf_state::active: return "active";
    case vrf_state::refused: return "refused";
    case vrf_state::conflict: return "conflict";
    }
    return "?";
}

registry::registry() {
    entry def;
    def.id = default_vrf_id;
    def.by[idx(source::builtin)] = claim{default_vrf_table, {}, std::nullopt, 0};
    _entries.emplace(std::string(default_vrf_name), std::move(def));
    _id_used.assign(1, true);
    evaluate();
}

std::optional<std::string> registry::validate(const vrf_spec& spec) const {
    if (auto e = check_ifname(spec.name))
        return fmt::format("vrf '{}': {}", spec.name, *e);
    if (spec.name == default_vrf_name && spec.table != default_vrf_table)
        return fmt::format("vrf {}: the default VRF is bound to table {} (builtin), not table {}", spec.name,
                           default_vrf_table, spec.table);
    if (spec.name != default_vrf_name && spec.table == default_vrf_table)
        return fmt::format("vrf {}: table {} is already bound to vrf {} (builtin)", spec.name, spec.table,
                           default_vrf_name);
    if (auto e = check_table(spec.table))
        return fmt::format("vrf {}: {}", spec.name, *e);
    std::set<std::string_view> seen;
    for (const auto& m : spec.members) {
        if (m.name.empty() && m.ifindex == 0)
            return fmt::format("vrf {}: a member has neither a name nor an ifindex", spec.name);
        if (!m.name.empty()) {
            if (auto e = check_ifname(m.name))
                return fmt::format("vrf {}: member {}", spec.name, *e);
            if (!seen.insert(m.name).second)
                return fmt::format("vrf {}: interface {} is listed twice", spec.name, m.name);
        }
    }
    return std::nullopt;
}

std::optional<vrf_id> registry::alloc_id() {
    auto it = std::find(_id_used.begin(), _id_used.end(), false);
    if (it != _id_used.end()) {
        *it = true;
        return static_cast<vrf_id>(it - _id_used.begin());
    }
    if (_id_used.size() >= max_vrfs)
        return std::nullopt;
    _id_used.push_back(true);
    return static_cast<vrf_id>(_id_used.size() - 1);
}

bool registry::put(source s, const vrf_spec& spec, std::string& error) {
    if (s == source::builtin) {
        error = fmt::format("vrf {}: builtin bindings cannot be changed", spec.name);
        return false;
    }
    if (auto e = validate(spec)) {
        error = *e;
        return false;
    }
    auto it = _entries.find(spec.name);
    if (it == _entries.end()) {
        auto id = alloc_id();
        if (!id) {
            error = fmt::format("vrf {}: no vrf id left ({} VRFs exist)", spec.name, max_vrfs);
            return false;
        }
        entry e;
        e.id = *id;
        it = _entries.emplace(spec.name, std::move(e)).first;
    }
    auto& slot = it->second.by[idx(s)];
    claim c{spec.table, spec.members, spec.dev_ifindex, 0};
    if (slot && slot->table == spec.table) {
        if (slot->members == spec.members && slot->dev_ifindex == spec.dev_ifindex)
            return false;
        c.seq = slot->seq;  // same binding, new members: keep its place in line
    } else {
        c.seq = ++_seq;     // new or rebound: queues behind claims already there
    }
    slot = std::move(c);
    return true;
}

bool registry::drop(source s, std::string_view name) {
    if (s == source::builtin)
        return false;
    auto it = _entries.find(name);
    if (it == _entries.end() || !it->second.by[idx(s)])
        return false;
    it->second.by[idx(s)].reset();
    const auto& by = it->second.by;
    if (std::none_of(by.begin(), by.end(), [](const auto& c) { return c.has_value(); })) {
        _id_used[it->second.id] = false;
        _entries.erase(it);
    }
    return true;
}

void registry::changed() {
    ++_version;
    for (auto& l : _listeners)
        l();
}

claim_result registry::set(source s, const vrf_spec& spec) {
    claim_result r;
    std::string error;
    if (put(s, spec, error)) {
        evaluate();
        changed();
    }
    if (!error.empty()) {
        r.recorded = false;
        r.state = vrf_state::refused;
        r.error = std::move(error);
        return r;
    }
    r.recorded = true;
    const vrf_info* v = find(spec.name);
    if (v && v->state != vrf_state::active) {
        r.state = v->state;
        r.error = v->reason;
    }
    return r;
}

bool registry::remove(source s, std::string_view name) {
    if (!drop(s, name))
        return false;
    evaluate();
    changed();
    return true;
}

std::vector<std::string> registry::sync(source s, const std::vector<vrf_spec>& specs) {
    std::vector<std::string> errors;
    std::set<std::string, std::less<>> listed;
    bool any = false;
    for (const auto& spec : specs) {
        if (!listed.insert(spec.name).second) {
            errors.push_back(fmt::format("vrf {}: listed twice by {}", spec.name, to_string(s)));
            continue;
        }
        std::string error;
        any |= put(s, spec, error);
        if (!error.empty()) {
            errors.push_back(std::move(error));
            any |= drop(s, spec.name);  // the source no longer makes a valid claim for it
        }
    }
    std::vector<std::string> gone;
    for (const auto& [name, e] : _entries)
        if (e.by[idx(s)] && !listed.contains(name))
            gone.push_back(name);
    for (const auto& name : gone)
        any |= drop(s, name);
    if (any) {
        evaluate();
        changed();
    }
    for (const auto& name : listed) {
        const vrf_info* v = find(name);
        if (v && v->state != vrf_state::active && _entries.at(name).by[idx(s)])
            errors.push_back(v->reason);
    }
    return errors;
}

void registry::evaluate() {
    _infos.clear();
    _by_id.assign(_id_used.size(), nullptr);
    const table_owners owner = owners();
    for (const auto& [name, e] : _entries) {
        auto pos = _infos.emplace(name, evaluate_vrf(name, e, owner)).first;
        _by_id[pos->second.id] = &pos->second;
    }
    bind_tables(owner);
    bind_interfaces();
}

registry::table_owners registry::owners() const {
    table_owners owner;
    for (source s : claim_sources) {
        std::vector<std::tuple<uint64_t, rib::table_id, std::string_view>> line;
        for (const auto& [name, e] : _entries)
            if (const auto& c = e.by[idx(s)])
                line.emplace_back(c->seq, c->table, name);
        std::sort(line.begin(), line.end());
        for (const auto& [seq, table, name] : line)
            owner[idx(s)].emplace(table, name);  // emplace keeps the earlier owner
    }
    return owner;
}

vrf_info registry::evaluate_vrf(const std::string& name, const entry& e, const table_owners& owner) const {
    auto owner_of = [&](source s, rib::table_id t) -> std::optional<std::string_view> {
        auto it = owner[idx(s)].find(t);
        return it == owner[idx(s)].end() ? std::nullopt : std::optional(it->second);
    };
    vrf_info v;
    v.name = name;
    v.id = e.id;
    std::vector<std::string> conflicts, refusals;
    for (source s : {source::builtin, source::config, source::kernel})
        if (e.by[idx(s)])
            v.sources.add(s);
    const auto& cfg = e.by[idx(source::config)];
    const auto& krn = e.by[idx(source::kernel)];
    if (cfg)
        v.config_table = cfg->table;
    if (krn) {
        v.kernel_table = krn->table;
        v.dev_ifindex = krn->dev_ifindex;
    }
    if (cfg && krn && cfg->table != krn->table)
        add_reason(conflicts, fmt::format("vrf {}: config binds table {}, kernel binds table {}", name,
                                          cfg->table, krn->table));
    for (source s : claim_sources) {
        const auto& c = e.by[idx(s)];
        if (!c)
            continue;
        const auto mine = owner_of(s, c->table);
        if (mine != name) {
            refusals.push_back(fmt::format("vrf {}: table {} is already bound to vrf {} ({})", name, c->table,
                                           *mine, to_string(s)));
            continue;
        }
        const auto theirs = owner_of(other(s), c->table);
        if (theirs && *theirs != name) {
            const auto by_cfg = s == source::config ? std::string_view(name) : *theirs;
            const auto by_krn = s == source::kernel ? std::string_view(name) : *theirs;
            add_reason(conflicts, fmt::format("table {}: config binds vrf {}, kernel binds vrf {}", c->table,
                                              by_cfg, by_krn));
        }
    }
    // validate() keeps every claim on the default VRF in agreement with the builtin one.
    const bool builtin = e.by[idx(source::builtin)].has_value();
    v.table = builtin ? default_vrf_table : cfg ? cfg->table : krn->table;
    if (!builtin && !conflicts.empty()) {
        v.state = vrf_state::conflict;
        v.reason = join(conflicts);
    } else if (!builtin && !refusals.empty()) {
        v.state = vrf_state::refused;
        v.reason = join(refusals);
    }
    for (source s : claim_sources)
        if (const auto& c = e.by[idx(s)])
            merge_members(v.members, c->members, s);
    return v;
}

void registry::bind_tables(const table_owners& owner) {
    _tables.clear();
    _devices.clear();
    // Tables: the config's owner is named first when the two sources disagree.
    _tables.emplace(default_vrf_table, bind_to(*_by_id[default_vrf_id]));
    for (source s : claim_sources)
        for (const auto& [t, name] : owner[idx(s)])
            if (!_tables.contains(t))
                _tables.emplace(t, bind_to(_infos.find(name)->second));

    _devices.emplace(0, bind_to(*_by_id[default_vrf_id]));
    for (const auto& [name, v] : _infos)
        if (v.dev_ifindex)
            _devices.emplace(*v.dev_ifindex, bind_to(v));
}

void registry::bind_interfaces() {
    _interfaces.clear();
    _ifindex_names.clear();
    // Interfaces: one VRF each, as a Linux device has one master.
    std::map<std::string, std::vector<std::pair<const vrf_info*, source>>, std::less<>> claims_of;
    for (const auto& [name, e] : _entries) {
        const vrf_info& v = _infos.find(name)->second;
        for (source s : claim_sources) {
            if (!e.by[idx(s)])
                continue;
            for (const auto& m : e.by[idx(s)]->members) {
                std::string ifname = m.name.empty() ? fmt::format("ifindex {}", m.ifindex) : m.name;
                if (m.ifindex && !m.name.empty())
                    _ifindex_names.emplace(m.ifindex, m.name);
                claims_of[ifname].emplace_back(&v, s);
            }
        }
    }
    for (auto& [ifname, claims] : claims_of) {
        std::vector<const vrf_info*> distinct;
        for (const auto& [v, s] : claims)
            if (std::find(distinct.begin(), distinct.end(), v) == distinct.end())
                distinct.push_back(v);
        binding b = bind_to(*distinct.front());
        if (distinct.size() > 1) {
            std::string who;
            for (const auto& [v, s] : claims)
                who += fmt::format("{}vrf {} ({})", who.empty() ? "" : " and ", v->name, to_string(s));
            b.state = binding::kind::conflict;
            b.reason = fmt::format("interface {} is claimed by {}", ifname, who);
        }
        _interfaces.emplace(ifname, std::move(b));
    }
}

const vrf_info* registry::find(std::string_view name) const {
    auto it = _infos.find(name);
    return it == _infos.end() ? nullptr : &it->second;
}

const vrf_info* registry::find(vrf_id id) const { return id < _by_id.size() ? _by_id[id] : nullptr; }

std::vector<const vrf_info*> registry::vrfs() const {
    std::vector<const vrf_info*> out;
    for (const vrf_info* v : _by_id)
        if (v)
            out.push_back(v);
    return out;
}

binding registry::lookup_table(rib::table_id t) const {
    auto it = _tables.find(t);
    return it == _tables.end() ? binding{} : it->second;
}

binding registry::lookup_device(uint32_t ifindex) const {
    auto it = _devices.find(ifindex);
    return it == _devices.end() ? binding{} : it->second;
}

binding registry::lookup_interface(std::string_view ifname) const {
    auto it = _interfaces.find(ifname);
    return it == _interfaces.end() ? binding{} : it->second;
}

binding registry::lookup_ifindex(uint32_t ifindex) const {
    auto n = _ifindex_names.find(ifindex);
    if (n != _ifindex_names.end())
        return lookup_interface(n->second);
    return lookup_interface(fmt::format("ifindex {}", ifindex));
}

}  // namespace vrf
