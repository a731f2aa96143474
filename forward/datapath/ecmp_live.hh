// Local repair of ECMP groups: when a member's port is down, its flows move to live members at
// once, before zebra withdraws the path. Done by the worker on the published adjacency (which
// carries port state) rather than by recompiling the groups: a link change then costs one
// adjacency publish, no FIB rebuild, and the groups come back unchanged when the port does.
// Flows of live members keep their member (only the dead member's slots are re-picked).
#pragma once

#include <cstdint>

#include "fib/datapath/dataplane_view.hh"
#include "forward/datapath/adjacency.hh"

namespace fwd {

// A member is dead when it forwards out of one of our ports and that port is down; other kinds
// (headend, local SID: their own lookup follows) count as live.
inline bool ecmp_member_live(const fib::dataplane_view& fv, const adj_view& av, uint32_t nh) {
    const fib::compiled_nh& m = fv.nexthop(nh);
    if (m.kind() != fib::nh_kind::forward)
        return true;
    const port_info* p = av.port_by_ifindex(m.via().ifindex);
    return p == nullptr || p->up;
}

// The member of group `g` for `flow_hash`, avoiding members over down ports. Returns the picked
// member when every member is dead (it is then dropped as port_down, counted).
inline uint32_t ecmp_pick_live(const fib::dataplane_view& fv, const adj_view& av, const fib::compiled_nh& g,
                               uint32_t flow_hash) {
    const uint32_t first = g.pick(flow_hash);
    if (!av.any_down() || ecmp_member_live(fv, av, first))
        return first;
    // Re-hash first, so a dead member's flows spread over the live ones instead of all landing
    // on its neighbour in slot order; then walk the slots so one live member is always found.
    const auto slots = g.slots();
    const uint32_t n = static_cast<uint32_t>(slots.size());
    uint32_t h = flow_hash;
    for (int i = 0; i < 4; ++i) {
        h = h * 0x9e3779b1u + 0x7f4a7c15u;
        const uint32_t c = slots[fib::ecmp_slot(h, n)];
        if (c != first && ecmp_member_live(fv, av, c))
            return c;
    }
    const uint32_t s0 = fib::ecmp_slot(flow_hash, n);
    for (uint32_t k = 1; k < n; ++k) {
        const uint32_t c = slots[(s0 + k) % n];
        if (c != first && ecmp_member_live(fv, av, c))
            return c;
    }
    return first;
}

}  // namespace fwd
