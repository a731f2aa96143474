#include "vrf/sid_binding.hh"

#include <fmt/format.h>

#include "rib/behaviors.hh"

namespace vrf {
namespace {

sid_binding refuse(sid_binding b, sid_refusal why, std::string reason) {
    b.active = false;
    b.vrf.reset();
    b.why = why;
    b.reason = std::move(reason);
    return b;
}

std::string_view state_words(const vrf_info& v) {
    return v.state == vrf_state::conflict ? "in conflict" : to_string(v.state);
}

}  // namespace

bool needs_vrf(rib::behavior b) {
    const rib::behavior_info* d = rib::find_behavior(b);
    return d && d->binds_vrf();
}

std::string_view name(sid_refusal r) {
    switch (r) {
    case sid_refusal::none: return "none";
    case sid_refusal::table_unbound: return "table_unbound";
    case sid_refusal::vrf_unknown: return "vrf_unknown";
    case sid_refusal::vrf_not_active: return "vrf_not_active";
    case sid_refusal::vrf_mismatch: return "vrf_mismatch";
    case sid_refusal::no_table: return "no_table";
    case sid_refusal::unsupported: return "unsupported";
    case sid_refusal::bad_flavor: return "bad_flavor";
    }
    return "?";
}

sid_binding bind_sid(const rib::seg6local& sid, const registry& reg) {
    sid_binding b;
    if (const rib::contract_check c = rib::check_contract(sid); !c.ok())
        return refuse(b, c.why == rib::contract_refusal::no_handler ? sid_refusal::unsupported : sid_refusal::bad_flavor,
                      c.reason);
    if (!needs_vrf(sid.action))
        return b;  // End, End.X, End.DX*: no VRF to resolve
    const std::string_view what = rib::behavior_name(sid.action);
    b.table = sid.decap_table();
    b.vrf_name = sid.vrf_name;

    if (!sid.vrf_name.empty()) {  // SONiC / protobuf: the VRF by name
        const vrf_info* v = reg.find(sid.vrf_name);
        if (!v)
            return refuse(b, sid_refusal::vrf_unknown,
                          fmt::format("vrf {} is not known (neither configured nor a kernel VRF device)", sid.vrf_name));
        if (v->state != vrf_state::active)
            return refuse(b, sid_refusal::vrf_not_active,
                          fmt::format("vrf {} is {}: {}", v->name, state_words(*v), v->reason));
        if (b.table && *b.table != v->table)
            return refuse(b, sid_refusal::vrf_mismatch,
                          fmt::format("{} names vrf {} (table {}) and table {}", what, v->name, v->table, *b.table));
        b.vrf = v->id;
        return b;
    }
    if (!b.table)
        return refuse(b, sid_refusal::no_table, fmt::format("{} names neither a table nor a VRF", what));

    const binding t = reg.lookup_table(*b.table);
    switch (t.state) {
    case binding::kind::unbound:
        return refuse(b, sid_refusal::table_unbound, fmt::format("table {} is not bound to any VRF", *b.table));
    case binding::kind::conflict:
        b.vrf_name = t.vrf->name;
        return refuse(b, sid_refusal::vrf_not_active,
                      fmt::format("table {} is bound to vrf {} which is {}: {}", *b.table, t.vrf->name,
                                  state_words(*t.vrf), t.reason));
    case binding::kind::active: break;
    }
    b.vrf = t.vrf->id;
    b.vrf_name = t.vrf->name;
    return b;
}

void sid_tracker::note(const sid_binding* before, const sid_binding& after) {
    if (after.active)
        return;
    if (before && !before->active && before->why == after.why)
        return;  // still refused for the same reason: already counted
    ++_refusals[static_cast<size_t>(after.why)];
}

const sid_binding& sid_tracker::upsert(const rib::prefix& sid, const rib::seg6local& behavior, const registry& reg) {
    sid_binding now = bind_sid(behavior, reg);
    auto it = _sids.find(sid);
    if (it == _sids.end()) {
        note(nullptr, now);
        it = _sids.emplace(sid, entry{behavior, std::move(now)}).first;
    } else {
        note(&it->second.bound, now);
        it->second = entry{behavior, std::move(now)};
    }
    return it->second.bound;
}

bool sid_tracker::erase(const rib::prefix& sid) { return _sids.erase(sid) > 0; }

std::vector<rib::prefix> sid_tracker::reevaluate(const registry& reg) {
    std::vector<rib::prefix> changed;
    for (auto& [key, e] : _sids) {
        sid_binding now = bind_sid(e.sid, reg);
        if (now == e.bound)
            continue;
        note(&e.bound, now);
        e.bound = std::move(now);
        changed.push_back(key);
    }
    return changed;
}

const sid_tracker::entry* sid_tracker::find(const rib::prefix& sid) const {
    auto it = _sids.find(sid);
    return it == _sids.end() ? nullptr : &it->second;
}

sid_refusal_counts sid_tracker::refused_now() const {
    sid_refusal_counts c{};
    for (const auto& [key, e] : _sids)
        if (!e.bound.active)
            ++c[static_cast<size_t>(e.bound.why)];
    return c;
}

}  // namespace vrf
