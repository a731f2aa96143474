// The VRF registry: which VRF owns which kernel table, bound strictly as Linux does with
// net.vrf.strict_mode=1 (a table belongs to at most one VRF, a VRF has exactly one table).
//
// Two sources feed it, srv6d's config and the kernel's VRF devices. Each source makes *claims*
// (name, table, members); the registry keeps every claim and derives each VRF's state from all
// of them, so removing or fixing one claim re-activates whatever it was blocking, with no
// re-feeding. Rules, in order:
//   - the default VRF ("default", table 254) is builtin and always active; a claim that would
//     take its name or table is rejected outright (never recorded);
//   - within one source, the first claim on a table owns it; a later claim by another name is
//     refused ("vrf blue: table 10 is already bound to vrf red (config)") and waits;
//   - across sources, config and kernel must agree on (name, table): a disagreement puts every
//     VRF involved in conflict, with a reason naming both sides. Neither side wins: guessing
//     would decapsulate a tenant's traffic into another tenant's table.
// Control thread only. Pointers and references returned stay valid until the next mutation.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rib/model.hh"
#include "vrf/spec.hh"

namespace vrf {

enum class vrf_state : uint8_t {
    active,    // bound: SIDs and routes of its table may use it
    refused,   // its source already binds the table to another VRF
    conflict,  // config and kernel disagree about it
};

std::string_view to_string(vrf_state s);

struct vrf_member {
    std::string name;
    uint32_t ifindex = 0;  // 0 when only config names it
    source_set sources;
};

// One VRF as the registry sees it after evaluating every claim.
struct vrf_info {
    std::string name;
    vrf_id id = default_vrf_id;                 // stable while any claim for the name exists
    rib::table_id table = 0;                    // the binding when active; else the first claim's table
    std::optional<rib::table_id> config_table;  // what each source says
    std::optional<rib::table_id> kernel_table;
    std::optional<uint32_t> dev_ifindex;        // kernel VRF device, when the kernel has one
    source_set sources;                         // "config+kernel" when both agree
    std::vector<vrf_member> members;
    vrf_state state = vrf_state::active;
    std::string reason;                         // why not active; empty when active
};

// Answer of a table / interface / device lookup.
struct binding {
    enum class kind : uint8_t { unbound, active, conflict };
    kind state = kind::unbound;
    const vrf_info* vrf = nullptr;  // set for active and conflict
    std::string reason;             // for conflict: why that VRF (or the lookup) is unusable
    bool active() const { return state == kind::active; }
};

// Outcome of one claim.
struct claim_result {
    bool recorded = false;  // false: rejected outright (invalid, or the default VRF's name/table)
    vrf_state state = vrf_state::active;
    std::string error;      // empty iff recorded and active
    bool ok() const { return error.empty(); }
};

class registry {
public:
    registry();
    registry(const registry&) = delete;  // lookups hand out pointers into it
    registry& operator=(const registry&) = delete;

    // --- claims (control thread)
    // Add or replace `s`'s claim for spec.name. Same name + same table keeps the claim's place in
    // line (a member change is not a rebind); a new table is a rebind and queues anew.
    [[nodiscard]] claim_result set(source s, const vrf_spec& spec);
    // Drop `s`'s claim; the VRF goes when no source claims it. True if a claim existed.
    bool remove(source s, std::string_view name);
    // Make `specs` the complete set of `s`'s claims (config reload, kernel dump). Returns one error
    // line per spec that is not active afterwards.
    std::vector<std::string> sync(source s, const std::vector<vrf_spec>& specs);

    // --- reads
    const vrf_info* find(std::string_view name) const;
    const vrf_info* find(vrf_id id) const;
    // Every VRF, by id.
    std::vector<const vrf_info*> vrfs() const;
    size_t size() const { return _infos.size(); }
    // Which VRF a kernel table id decapsulates into (netlink routes and seg6local TABLE/VRFTABLE).
    binding lookup_table(rib::table_id t) const;
    // SONiC and protobuf send the VRF device's ifindex where netlink sends the table; 0 = default.
    binding lookup_device(uint32_t ifindex) const;
    // Which VRF an interface is enslaved to; `unbound` = none (the default VRF, as in Linux).
    binding lookup_interface(std::string_view ifname) const;
    binding lookup_ifindex(uint32_t ifindex) const;

    // --- change tracking: bumps whenever a claim changes, so dependents (SID bindings, compiled
    // tables) re-evaluate. Listeners run after the change, on the caller's thread.
    uint64_t version() const { return _version; }
    void subscribe(std::function<void()> on_change) { _listeners.push_back(std::move(on_change)); }

private:
    struct claim {
        rib::table_id table = 0;
        std::vector<member> members;
        std::optional<uint32_t> dev_ifindex;
        uint64_t seq = 0;  // arrival order: the first claim on a table owns it
    };
    struct entry {
        vrf_id id = default_vrf_id;
        std::array<std::optional<claim>, 3> by{};  // indexed by source
    };

    std::optional<std::string> validate(const vrf_spec& spec) const;
    // Record without evaluating; returns true if anything changed.
    bool put(source s, const vrf_spec& spec, std::string& error);
    bool drop(source s, std::string_view name);
    // evaluate(): _infos and the lookup maps from _entries, in three steps.
    void evaluate();
    // Per source, the VRF that owns each table: the first claim on it by arrival.
    using table_owners = std::array<std::map<rib::table_id, std::string_view>, 3>;
    table_owners owners() const;
    // One VRF's state (conflicts, refusals), tables and merged members.
    vrf_info evaluate_vrf(const std::string& name, const entry& e, const table_owners& owner) const;
    // The table, device and interface lookups, from _infos.
    void bind_tables(const table_owners& owner);
    void bind_interfaces();
    void changed();
    std::optional<vrf_id> alloc_id();

    std::map<std::string, entry, std::less<>> _entries;
    std::vector<bool> _id_used;
    uint64_t _seq = 0;
    uint64_t _version = 0;
    std::vector<std::function<void()>> _listeners;

    // Derived by evaluate() from _entries.
    std::map<std::string, vrf_info, std::less<>> _infos;
    std::vector<const vrf_info*> _by_id;
    std::map<rib::table_id, binding> _tables;
    std::map<uint32_t, binding> _devices;
    std::map<std::string, binding, std::less<>> _interfaces;
    std::map<uint32_t, std::string> _ifindex_names;
};

}  // namespace vrf
