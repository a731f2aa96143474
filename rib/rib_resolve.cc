// Resolution - a route's nexthop id or inline paths to the paths it forwards on, and who uses an object.
#include "rib/rib.hh"

#include <algorithm>
#include <array>
#include <iterator>
#include <tuple>
#include <utility>

namespace rib {

// --- resolution

resolution store::resolve(const route& r) const {
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

std::vector<route_key> store::users_of(uint32_t nh_id) const {
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

std::vector<local_sid_entry> store::local_sids() const {
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

}  // namespace rib
