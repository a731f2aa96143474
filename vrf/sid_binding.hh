// Whether a local SID can be served, and where: first the behavior contract (rib/behaviors.hh:
// a behavior the dataplane has no handler for, or a flavor it does not take, is refused, like
// the kernel's build_state refuses it), then the VRF it decapsulates into (End.DT4/DT6/DT46) or
// looks up in (End.T), bound through the strict registry as the kernel's
// __seg6_end_dt_vrf_build() does at configuration time. A SID whose table or VRF is unbound or
// in conflict is installed but refused, with the exact reason; it is never sent to the main
// table instead, and a refused SID never becomes an active one that drops every packet.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rib/addr.hh"
#include "rib/model.hh"
#include "vrf/registry.hh"
#include "vrf/spec.hh"

namespace vrf {

// True for the behaviors whose table must be bound to a VRF (End.T, End.DT4/DT6/DT46): the
// contract's binds_vrf().
bool needs_vrf(rib::behavior b);

// Why a SID is refused. Names are stable (JSON counters).
enum class sid_refusal : uint8_t {
    none,
    table_unbound,   // "table 100 is not bound to any VRF"
    vrf_unknown,     // SONiC/protobuf name a VRF the registry does not know
    vrf_not_active,  // the table's or name's VRF is refused or in conflict
    vrf_mismatch,    // both a table and a VRF name were given and they disagree
    no_table,        // a DT/End.T behavior that names neither a table nor a VRF
    unsupported,     // the behavior has no datapath handler (End.B6.Encaps, End.DX2, End.BPF...)
    bad_flavor,      // a flavor the behavior does not take, or NEXT-C-SID lengths it cannot apply
};
inline constexpr size_t sid_refusal_count = 8;

std::string_view name(sid_refusal r);

struct sid_binding {
    bool active = true;
    std::optional<vrf_id> vrf;          // set for active End.T / End.DT*
    std::string vrf_name;
    std::optional<rib::table_id> table; // the table the SID named, if any
    sid_refusal why = sid_refusal::none;
    std::string reason;                 // empty when active
    bool operator==(const sid_binding&) const = default;
};

// Pure: the same (sid, registry state) always gives the same answer, so dependents just call it
// again whenever registry::version() moves.
sid_binding bind_sid(const rib::seg6local& sid, const registry& reg);

using sid_refusal_counts = std::array<uint64_t, sid_refusal_count>;

// The SIDs of the RIB with their current binding. Re-evaluates all of them on demand and
// counts refusals once per transition (not once per re-evaluation).
class sid_tracker {
public:
    struct entry {
        rib::seg6local sid;
        sid_binding bound;
    };

    // Install or replace a SID; returns its binding.
    const sid_binding& upsert(const rib::prefix& sid, const rib::seg6local& behavior, const registry& reg);
    bool erase(const rib::prefix& sid);
    // Call when reg.version() changed; returns the SIDs whose binding changed (activated,
    // refused, or moved to another VRF).
    std::vector<rib::prefix> reevaluate(const registry& reg);

    const entry* find(const rib::prefix& sid) const;
    const std::map<rib::prefix, entry>& sids() const { return _sids; }
    // Monotonic: how many times a SID became refused, by reason.
    const sid_refusal_counts& refusals() const { return _refusals; }
    // Gauge: SIDs refused right now, by reason.
    sid_refusal_counts refused_now() const;

private:
    void note(const sid_binding* before, const sid_binding& after);

    std::map<rib::prefix, entry> _sids;
    sid_refusal_counts _refusals{};
};

}  // namespace vrf
