#include "apps/srv6d/sid_sync.hh"

#include <map>

#include <fmt/format.h>

#include "rib/behaviors.hh"

namespace srv6d {

std::vector<sid_change> sync_sids(vrf::sid_tracker& tracker, const rib::store& rib, const vrf::registry& reg) {
    // FRR puts every SID in table 254; should two tables hold the same prefix, the first wins.
    std::map<rib::prefix, rib::seg6local> now;
    for (const auto& e : rib.local_sids())
        if (e.r)
            now.emplace(e.r->key.dst, e.sid);

    std::vector<sid_change> changes;
    std::vector<rib::prefix> gone;
    for (const auto& [p, e] : tracker.sids())
        if (!now.count(p))
            gone.push_back(p);
    for (const auto& p : gone) {
        changes.push_back({p, tracker.find(p)->bound, std::nullopt});
        tracker.erase(p);
    }
    for (const auto& [p, sl] : now) {
        const auto* old = tracker.find(p);
        if (old && old->sid == sl && old->bound == vrf::bind_sid(sl, reg))
            continue;
        std::optional<vrf::sid_binding> before;
        if (old)
            before = old->bound;
        const auto& after = tracker.upsert(p, sl, reg);
        if (!before || *before != after)
            changes.push_back({p, std::move(before), after});
    }
    return changes;
}

std::vector<std::string> shadow_changes(const rib::store& rib, std::set<rib::route_key>& shadowed) {
    std::vector<std::string> out;
    for (const auto& [k, c] : rib.config_routes()) {
        const bool was = shadowed.count(k) > 0;
        if (c.shadowed == was)
            continue;
        const auto* l = c.r.nexthops.empty() ? nullptr : &c.r.nexthops.front().local;
        const bool sid = l && *l;
        // [sids] lines carry a behavior; [routes] lines a headend (and may be in a VRF's table).
        const std::string what =
            sid ? fmt::format("sid {} {}", rib::to_string(k.dst), rib::behavior_name((*l)->action))
                : fmt::format("route {}{}", rib::to_string(k.dst), k.table == rib::main_table ? "" : fmt::format(" table {}", k.table));
        if (c.shadowed) {
            shadowed.insert(k);
            out.push_back(fmt::format("config {}: shadowed: zebra sent a route for this prefix, zebra's wins", what));
        } else {
            shadowed.erase(k);
            out.push_back(fmt::format("config {}: in use again: zebra's route for this prefix is gone", what));
        }
    }
    return out;
}

std::string describe(const sid_change& c, const vrf::sid_tracker& tracker) {
    const std::string sid = rib::to_string(c.sid);
    if (!c.after)
        return fmt::format("sid {}: removed", sid);
    const auto* e = tracker.find(c.sid);
    const std::string what =
        e ? fmt::format("{} {}", sid, rib::behavior_name(e->sid.action)) : sid;
    const auto& b = *c.after;
    if (!b.active)
        return fmt::format("sid {}: refused: {}", what, b.reason);
    if (b.vrf)
        return fmt::format("sid {}: active, vrf {} (id {})", what, b.vrf_name, *b.vrf);
    return fmt::format("sid {}: active", what);
}

}  // namespace srv6d
