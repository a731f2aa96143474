// The RIB's config routes: srv6d's own static local SIDs beside zebra's routes (docs/rib.md,
// "Config routes"). A config route sits in the route table with a pinned generation stamp, so
// begin_resync() never counts it stale and sweep() never removes it; zebra's route at the same
// key replaces it (zebra is the authority) and hands the slot back when it goes.
#include <cstdint>
#include <utility>

#include "rib/rib.hh"

namespace rib {
namespace {

// Newer than any generation: refresh() and sweep() treat the slot as current forever.
constexpr uint32_t pinned_gen = UINT32_MAX;

}  // namespace

bool store::add_config_route(route r) {
    const uint32_t slot = _routes.find_slot(r.key);
    auto it = _config.find(r.key);
    if (it == _config.end()) {
        // A route already there is zebra's: it keeps the slot.
        it = _config.emplace(r.key, config_route{std::move(r), slot != route_table::npos}).first;
        if (it->second.shadowed)
            return false;
        ++_pinned;
    } else {
        it->second.r = std::move(r);
        if (it->second.shadowed)
            return false;
    }
    if (slot == route_table::npos) {
        nexthop_list paths = it->second.r.nexthops;
        share_paths(paths);
        route copy = it->second.r;
        copy.nexthops = std::move(paths);
        const uint32_t s = _routes.insert(std::move(copy), pinned_gen);
        index_route(s, true);
        note(it->first);
        touch();
        return true;
    }
    if (_routes.at(slot).r == it->second.r)
        return false;
    restore_config(slot, it->second);
    return true;
}

bool store::remove_config_route(const route_key& k) {
    auto it = _config.find(k);
    if (it == _config.end())
        return false;
    const bool shadowed = it->second.shadowed;
    _config.erase(it);
    if (shadowed)
        return false;  // zebra's route holds the slot, and stays
    --_pinned;
    const uint32_t slot = _routes.find_slot(k);
    if (slot == route_table::npos)
        return false;
    // A pinned route is never counted stale (forget() has nothing to undo).
    index_route(slot, false);
    remove_route_slot(slot);
    note(k);
    touch();
    return true;
}

origin store::origin_of(const route_key& k) const {
    if (_config.empty())
        return origin::fpm;
    auto it = _config.find(k);
    return it != _config.end() && !it->second.shadowed ? origin::config : origin::fpm;
}

void store::shadow_config(const route_key& k) {
    auto it = _config.find(k);
    if (it == _config.end() || it->second.shadowed)
        return;
    // upsert_route() replaces the slot's content and stamps it with the current generation.
    it->second.shadowed = true;
    --_pinned;
}

void store::restore_config(uint32_t slot, config_route& c) {
    if (c.shadowed) {
        c.shadowed = false;
        ++_pinned;
    }
    auto& e = _routes.at(slot);
    index_route(slot, false);
    nexthop_list paths = c.r.nexthops;
    share_paths(paths);
    nexthop_list old = std::move(e.r.nexthops);
    e.r = c.r;
    e.r.nexthops = std::move(paths);
    release_paths(std::move(old));
    e.gen = pinned_gen;
    index_route(slot, true);
    note(e.r.key);
    touch();
}

}  // namespace rib
