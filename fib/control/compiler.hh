// The table compiler: turns the RIB, the VRF registry and the encapsulation source into the
// published dataplane_view (per-VRF IPv4/IPv6 LPMs + nexthop pages), incrementally.
//
//   compile(rib, registry, source) on the control thread, after a batch of RIB updates:
//   - routes: those the RIB journal names (changed keys, users_of() each changed nexthop id),
//     plus every route of a table whose VRF binding changed; each goes into the LPMs of the VRF
//     its table is bound to (vrf::registry::lookup_table), or stays out, counted (unbound table,
//     unresolved, source-specific);
//   - nexthops: shared by content (same path and family = same index); rebuilt in place (same
//     index, new object) when what they depend on moves: the registry (End.T/DT* bindings), the
//     global encap source (templates without a per-route source), a SONiC SID list;
//   - then one publication: the LPM chunks and nexthop pages that changed, a new view, one
//     pointer swap, and the old objects retired through the QSBR domain.
//
// Host-length (/32, /128) routes of protocol kernel whose paths have no gateway are compiled as
// `receive`: FRR 10 sends the router's own addresses that way (an interface's connected /32 is
// indistinguishable and is treated the same).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rib/rib.hh"
#include "fib/datapath/dataplane_view.hh"
#include "fib/control/lpm_builder.hh"
#include "fib/datapath/nexthop.hh"
#include "fib/control/nh_build.hh"
#include "fib/control/nh_table.hh"
#include "fib/control/prefix_map.hh"
#include "fib/control/sid_slots.hh"
#include "fib/datapath/rcu.hh"
#include "vrf/encap_source.hh"
#include "vrf/registry.hh"

namespace fib {

enum class route_state : uint8_t {
    installed,
    unbound,       // its table is not bound to an active VRF: not compiled
    unresolved,    // unicast without a usable path (unknown nexthop id, empty group)
    src_specific,  // IPv6 source-specific (RTA_SRC): no LPM for it
};
constexpr size_t route_state_count = 4;
std::string_view name(route_state s);

struct compiler_stats {
    uint64_t compiles = 0;
    uint64_t publications = 0;
    uint64_t full_syncs = 0;
    uint64_t route_updates = 0;     // routes recompiled (changed, moved VRF, removed)
    uint64_t lpm_changes = 0;       // sets/erases that changed an LPM
    uint64_t nexthop_rebuilds = 0;  // nexthops rebuilt in place with a different content
    std::array<size_t, route_state_count> routes{};  // gauge: RIB routes by state
    size_t routes_receive = 0;                       // gauge: host routes compiled as receive
    std::array<size_t, nh_kind_count> nexthops{};    // gauge: live nexthops by kind
    std::array<size_t, nh_refusal_count> refused{};  // gauge: refused nexthops by reason
};

class compiler {
public:
    // Fixed nexthop indices (0 is nh_miss).
    static constexpr uint32_t idx_blackhole = 1;
    static constexpr uint32_t idx_unreachable = 2;
    static constexpr uint32_t idx_prohibit = 3;
    static constexpr uint32_t idx_receive = 4;

    // `sid_counter_slots`: how many local SIDs get counters of their own (tests use fewer).
    explicit compiler(qsbr_domain& rcu, uint32_t sid_counter_slots = max_sid_counters);
    // Unpublishes and retires everything, then waits for the readers (they must be quiescing).
    ~compiler();
    compiler(const compiler&) = delete;
    compiler& operator=(const compiler&) = delete;

    // Brings the published tables up to date. The first call reads the whole RIB and turns its
    // journal on. Returns true if a new view was published.
    bool compile(rib::store& r, const vrf::registry& reg, const vrf::encap_source_resolver& src);

    // The publication point the workers read.
    const rcu_cell<dataplane_view>& cell() const { return _cell; }
    const dataplane_view* current() const { return _cell.load(); }

    const compiler_stats& stats() const { return _stats; }
    // Tables wait to be republished flat: compile() again after a while, even without changes
    // (srv6d's compile pacer does, every 50 ms until this is false).
    bool settling() const { return !_settle.empty(); }
    // Routes per table that no active VRF binds (visible: `show routes` summary).
    const std::map<rib::table_id, size_t>& unbound_tables() const { return _unbound; }

    struct route_info {
        route_state state = route_state::unbound;
        vrf::vrf_id vrf = 0;
        uint32_t nh = nh_miss;
    };
    std::optional<route_info> find(const rib::route_key& k) const;
    // Control-side view of a nexthop (what the next publication will contain).
    const compiled_nh* nexthop(uint32_t idx) const { return _nh.get(idx); }
    // Why a refused nexthop is refused, in words; empty otherwise.
    std::string_view reason(uint32_t idx) const;
    // A compiled local SID's counter slot and generation (what the workers count it under).
    std::optional<sid_counter> sid_counter_of(const rib::route_key& k) const { return _sid_slots.find(k); }

private:
    struct vrf_tables {
        lpm4_builder v4;
        lpm6_builder v6;
        bool touched = false;  // in _touched: republish at the next publication
        bool settling = false; // in _settle: published two-level, to be flattened once quiet
        uint64_t changed_at = 0;  // the compile (_compiles) that last changed its LPMs
    };
    struct route_entry {
        route_state state = route_state::unbound;
        bool receive = false;
        bool used = false;  // slot of _routes in use
        bool sid = false;   // a local SID: holds a counter slot in _sid_slots
        vrf::vrf_id vrf = 0;
        uint32_t nh = nh_miss;
    };
    // The per-route state: route_key -> route_entry in one flat slot (52 bytes), open addressing.
    struct route_traits {
        struct slot {
            rib::route_key key;
            route_entry e;
        };
        using key = rib::route_key;
        static bool used(const slot& s) { return s.e.used; }
        static void set_used(slot& s, bool u) { s.e.used = u; }
        static bool matches(const slot& s, const rib::route_key& k) { return s.key == k; }
        static uint64_t hash(const rib::route_key& k) {
            uint64_t a, b;
            std::memcpy(&a, k.dst.bytes.data(), 8);
            std::memcpy(&b, k.dst.bytes.data() + 8, 8);
            uint64_t h = a * 0x9e3779b97f4a7c15ull ^ b;
            h ^= (uint64_t{k.table} << 16 | uint64_t{k.dst.len} << 8 | static_cast<uint64_t>(k.dst.af)) *
                 0xc2b2ae3d27d4eb4full;
            if (k.src.len) {
                std::memcpy(&a, k.src.bytes.data(), 8);
                std::memcpy(&b, k.src.bytes.data() + 8, 8);
                h = mix64(h) ^ a * 0x9e3779b97f4a7c15ull ^ b ^ uint64_t{k.src.len} << 56;
            }
            return mix64(h);
        }
        static uint64_t hash_of(const slot& s) { return hash(s.key); }
    };
    struct nh_entry {
        bool used = false;
        bool group = false;
        rib::family af = rib::family::ipv4;
        vrf::vrf_id owner = 0;  // local SIDs: the VRF of their routes (part of the identity)
        sid_counter counter;    // local SIDs: their own counter slot (part of the identity)
        uint32_t refs = 0;
        uint64_t hash = 0;
        uint32_t next_same = 0;            // next entry with the same hash (0: none)
        rib::nexthop path;                 // path entries
        std::vector<ecmp_member> members;  // group entries
        nh_kind kind = nh_kind::miss;
        nh_refusal refusal = nh_refusal::none;
        std::string reason;
        bool uses_registry = false;
        bool uses_global_src = false;
        std::string sidlist;
    };

    void full_sync(rib::store& r, std::vector<rib::route_key>& todo);
    void remap_tables(const rib::store& r, const vrf::registry& reg, std::vector<rib::route_key>& todo);
    std::optional<vrf::vrf_id> vrf_of(rib::table_id t, const vrf::registry& reg);
    void compile_route(const rib::route_key& k, const rib::route* rt, const rib::store& r, const nh_inputs& in);
    uint32_t route_nh(const rib::route& rt, vrf::vrf_id v, const rib::store& r, const nh_inputs& in, bool& receive,
                      bool& sid);
    uint32_t acquire_path(rib::family af, const rib::nexthop& p, vrf::vrf_id v, const nh_inputs& in,
                          sid_counter counter = {});
    uint32_t acquire_group(rib::family af, const std::vector<ecmp_member>& members);
    uint32_t new_entry(rib::family af, uint64_t hash);
    uint32_t find_path(uint64_t hash, rib::family af, vrf::vrf_id owner, sid_counter counter, const rib::nexthop& p) const;
    uint32_t find_group(uint64_t hash, rib::family af, const std::vector<ecmp_member>& members) const;
    void release(uint32_t idx);
    void build(uint32_t idx, const nh_inputs& in);
    void account(const nh_entry& e, int delta);
    vrf_tables& tables(vrf::vrf_id v);
    bool lpm_set(vrf::vrf_id v, const rib::prefix& p, uint32_t nh);
    bool lpm_erase(vrf::vrf_id v, const rib::prefix& p);
    void lpm_changed(vrf::vrf_id v, vrf_tables& t);  // counted, and t republished at the next publication
    void publish();

    qsbr_domain& _rcu;
    rcu_cell<dataplane_view> _cell;
    const compiled_nh* _miss = nullptr;
    nh_table _nh;
    std::vector<nh_entry> _entries;  // by nexthop index
    // content hash -> first nexthop index with that hash (chained through nh_entry::next_same)
    struct hash_traits {
        struct slot {
            uint64_t hash;
            uint32_t head;
            bool used;
        };
        using key = uint64_t;
        static bool used(const slot& s) { return s.used; }
        static void set_used(slot& s, bool u) { s.used = u; }
        static bool matches(const slot& s, uint64_t h) { return s.hash == h; }
        static uint64_t hash(uint64_t h) { return h; }  // already a mixed content hash
        static uint64_t hash_of(const slot& s) { return s.hash; }
    };
    open_table<hash_traits> _by_hash;
    uint32_t first_with(uint64_t hash) const {
        const auto* s = _by_hash.find(hash);
        return s ? s->head : 0;
    }
    void link_hash(uint32_t idx);
    void unlink_hash(uint32_t idx);
    std::vector<ecmp_member> _members_tmp;                // route_nh() scratch
    std::set<uint32_t> _dep_registry, _dep_src;
    std::map<std::string, std::set<uint32_t>> _dep_sidlist;
    std::vector<std::unique_ptr<vrf_tables>> _vrfs;  // by vrf id
    std::vector<vrf::vrf_id> _touched;                // VRFs whose LPMs changed since the last publication
    // Changed tables are published two-level (cheap partial rebuilds under churn); a VRF whose
    // tables then stay unchanged for settle_after compiles is republished flat (fast lookups),
    // at most settle_budget VRFs per compile.
    std::vector<vrf::vrf_id> _settle;
    uint64_t _compiles = 0;
    static constexpr uint64_t settle_after = 16;
    static constexpr size_t settle_budget = 128;
    bool settle_due() const;
    void settle(std::vector<vrf_lpm>& vrfs);
    std::vector<vrf_lpm> _pub_vrfs;                   // the published tables by vrf id (the view's copy)
    open_table<route_traits> _routes;
    std::unordered_map<rib::table_id, std::optional<vrf::vrf_id>> _table_vrf;
    std::map<rib::table_id, size_t> _unbound;
    sid_slots _sid_slots;
    // compile() scratch, kept across calls: the routes to recompile, found in the RIB once.
    struct work_item {
        uint64_t table_af;  // table << 8 | family
        uint64_t addr;      // the first 8 bytes of the destination, big-endian: address order
        const rib::route* rt;
        uint32_t todo;      // index into _todo
    };
    std::vector<rib::route_key> _todo;
    rib::store::changes _changes;  // the drained journal; its storage goes back to the RIB
    std::vector<work_item> _work;
    retire_batch _batch;  // what the next publication unlinks
    bool _synced = false;
    bool _dirty = true;
    uint64_t _reg_version = 0;
    uint64_t _src_version = 0;
    uint64_t _epoch = 0;
    compiler_stats _stats;
};

}  // namespace fib
