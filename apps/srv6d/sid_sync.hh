// Keeps the daemon's vrf::sid_tracker equal to the RIB's local SIDs, each bound to its VRF
// through the registry, so that refusals are counted once per transition and logged.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rib/addr.hh"
#include "rib/rib.hh"
#include "vrf/registry.hh"
#include "vrf/sid_binding.hh"

namespace srv6d {

struct sid_change {
    rib::prefix sid;
    std::optional<vrf::sid_binding> before;  // nullopt: the SID is new
    std::optional<vrf::sid_binding> after;   // nullopt: the SID is gone
};

// After it, `tracker` holds exactly rib.local_sids() (by SID prefix), bound against `reg`.
// Returns every SID that appeared, went, or whose binding changed (activated, refused, another
// VRF or reason). Cost: one bind_sid per SID; call it when the RIB or the registry changed.
std::vector<sid_change> sync_sids(vrf::sid_tracker& tracker, const rib::store& rib, const vrf::registry& reg);

// Config routes ([sids], [routes]) that zebra's route at the same key started or stopped shadowing since
// the last call (`shadowed` carries the state between calls): one log line each, so that a
// replay of zebra's route does not log again.
std::vector<std::string> shadow_changes(const rib::store& rib, std::set<rib::route_key>& shadowed);

// One log line for a change: "sid fc00:0:1::5/128 End.DT6: refused: table 100 is not bound to any VRF".
std::string describe(const sid_change& c, const vrf::sid_tracker& tracker);

}  // namespace srv6d
