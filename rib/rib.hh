// The RIB: an exact model of what zebra has told us, owned and mutated by the control thread
// only. Idempotent under replay; mark-and-sweep across reconnects (zebra sends no deletes for
// what changed while the FPM connection was down). docs/rib.md has the full semantics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rib/model.hh"
#include "rib/route_table.hh"

namespace rib {

// A route's forwarding paths after following nexthop ids and groups.
struct resolved_path {
    nexthop path;        // weight is the group member's weight when it came through a group
    uint32_t nh_id = 0;  // the singleton object it came from; 0 for inline paths
};

enum class resolve_state : uint8_t {
    ok,           // every referenced object is known
    partial,      // a group lists members not received yet (replay forward references)
    unresolved,   // nh_id unknown, or a unicast route with no usable path
    no_paths,     // blackhole/unreachable/prohibit/local, or a blackhole object: drop by design
};

struct resolution {
    resolve_state state = resolve_state::ok;
    std::vector<resolved_path> paths;
    // Referenced ids that gave no path because they are unknown, or because a group lists
    // another group (groups hold singletons only: such a member is treated as missing).
    std::vector<uint32_t> missing_ids;
};

// Who put a route in the RIB: zebra over FPM, or srv6d's own configuration ([sids] lines).
enum class origin : uint8_t { fpm, config };

struct local_sid_entry {
    const route* r = nullptr;   // the SID route (table 254 in FRR); valid until the next mutation
    seg6local sid;              // the endpoint behavior of its (first) path
    uint32_t nh_id = 0;
    uint32_t ifindex = 0;
    origin from = origin::fpm;
};

// A route of srv6d's own configuration, and whether a route of zebra's at its key hides it.
struct config_route {
    route r;
    bool shadowed = false;
};

struct rib_counters {
    uint64_t route_upserts = 0, route_changes = 0, route_deletes = 0, route_delete_unknown = 0;
    uint64_t nh_upserts = 0, nh_changes = 0, nh_deletes = 0, nh_delete_unknown = 0;
    uint64_t resyncs = 0, swept_routes = 0, swept_nexthops = 0, swept_other = 0;
    // Stale entries a selective sweep kept (their table is not one zebra replays).
    uint64_t kept_routes = 0, kept_nexthops = 0;
    // Stale routes given their previous paths inline when a new zebra redefined their object.
    uint64_t detached_routes = 0;
    // Upserts refused at a limit (rib_limits): a new route beyond max_routes or beyond its
    // table's max_routes_per_table, and anything beyond max_nexthops nexthop entries.
    uint64_t refused_routes = 0, refused_table_routes = 0, refused_nexthops = 0;
    // Resyncs ended by abandon_resync(): a replay not trusted to sweep.
    uint64_t abandoned_resyncs = 0;
};

// Bounds on what the peer can make srv6d hold, so that no stream (a hostile one, a corrupted
// one, a misconfigured zebra's) exhausts memory (docs/rib.md, "Limits"). An upsert beyond one is
// refused and counted; the RIB stays as it was for that key. 0 = no bound. During a replay the
// route bounds count stale routes out (they must not block their own replacements), so the
// store may briefly hold up to twice a bound until the sweep.
struct rib_limits {
    size_t max_routes = 4'000'000;            // a full IPv4 + IPv6 table several times over
    size_t max_routes_per_table = 2'000'000;
    // Nexthop entries (nexthop_entries()): nexthop objects and PIC contexts (1 + group members
    // each), SID lists (1 + segments), and the paths of the distinct inline path lists.
    size_t max_nexthops = 1'000'000;
};

class store {
public:
    // --- mutation (control thread). Each returns true if the RIB changed; an upsert of
    // identical content returns false but still refreshes the entry for mark and sweep.
    bool upsert_route(route r);                  // RTM_NEWROUTE is always an upsert
    bool delete_route(const route_key& k);       // idempotent: an unknown key is counted, not an error
    // A batch's hint: the route at `k` is upserted or deleted soon (route_table::prefetch).
    void prefetch_route(const route_key& k, int stage) const { _routes.prefetch(k, stage); }
    bool upsert_nexthop(nexthop_object nh);      // forward references to unknown members are kept
    bool delete_nexthop(uint32_t id);            // routes still using the id become unresolved
    bool upsert_pic_context(nexthop_object nh);  // SONiC PIC contexts (own id space)
    bool delete_pic_context(uint32_t id);
    bool upsert_sidlist(std::string name, std::vector<ip6_addr> segments);
    bool delete_sidlist(const std::string& name);

    // Applies to the upserts that follow; what is held already stays.
    void set_limits(const rib_limits& l) { _limits = l; }
    const rib_limits& limits() const { return _limits; }
    size_t nexthop_entries() const { return _nh_entries; }

    // --- routes of srv6d's own configuration (static local SIDs, docs/rib.md "Config routes").
    // They live in the route table like zebra's, so every reader (local_sids, the compiler's
    // journal, show routes) sees them without a second source; but they are pinned: never stale,
    // never swept. zebra is the authority: its route at the same key replaces (shadows) the
    // config one, which comes back when zebra deletes its route or a sweep removes it.
    // Adds or replaces the config route at r.key; returns true if the installed route changed.
    bool add_config_route(route r);
    // Removes the config route at k (a [sids] line gone at reload); a route of zebra's that
    // shadows it stays. Returns true if the installed route went.
    bool remove_config_route(const route_key& k);
    const std::map<route_key, config_route>& config_routes() const { return _config; }
    // Who installed the route now at k (fpm when there is none).
    origin origin_of(const route_key& k) const;

    // --- mark and sweep
    // Everything held now becomes stale until an upsert refreshes it (a new connection starts).
    // Called again before sweep() (reconnect mid-replay), everything is stale again: zebra
    // replays its whole state on every connect, so only the latest replay decides.
    void begin_resync();
    // Remove everything not refreshed since the last begin_resync(); returns how many entries
    // went. No-op without a pending resync. Until it runs, stale entries keep forwarding.
    size_t sweep();
    // The same, but stale routes of tables where may_sweep(table) is false are kept, with the
    // nexthop objects (a group and its members) and PIC contexts they use: zebra does not replay
    // every table (`ip route ... table N`). Kept entries count as refreshed. An empty filter
    // sweeps every table.
    using table_filter = std::function<bool(table_id)>;
    size_t sweep(const table_filter& may_sweep);
    // The same, decided per stale route: a restarted zebra re-reads the kernel's routes of
    // tables it does not replay but never sends them (docs/rib.md), so only those are kept.
    // An empty filter sweeps everything. keep_mode::inline_only: a route the filter would keep
    // is swept all the same if it still uses a nexthop object (see detach_if).
    enum class keep_mode : uint8_t { as_is, inline_only };
    using route_filter = std::function<bool(const route&)>;
    size_t sweep_if(const route_filter& may_sweep, keep_mode mode = keep_mode::as_is);
    // Every route that uses a nexthop object and matches `which` forwards over that object's
    // resolved paths inline from now on (nh_id cleared), if it resolves `ok`; the others keep
    // their object. Mark-and-sweep stamps do not change. For a zebra restart: the routes it
    // will not replay must leave the old zebra's ids before the new one hands them out again
    // for other nexthops. Returns how many routes were detached.
    size_t detach_if(const route_filter& which);
    // The stale entries came from another zebra (a restart: a new nlmsg_pid). Its nexthop ids
    // are a new namespace, and a restarted zebra 8.4.4 even re-announces its predecessor's ids
    // read back from the kernel without their encap. So while this is on, a stale object that
    // the new zebra redefines or deletes no longer describes the stale routes using it (directly
    // or through a group): before the change they are detached, i.e. keep the paths they had,
    // inline, until the new zebra re-sends them or the sweep removes them. Off after
    // begin_resync() and sweep(); the FPM listener turns it on when it sees the new zebra.
    void set_detach_stale(bool on) { _detach_stale = on; }
    bool detach_stale() const { return _detach_stale; }
    bool resync_pending() const { return _resync_pending; }
    size_t stale_count() const { return _stale; }
    // Stale routes (not re-sent yet by the pending replay): the limits count them out.
    size_t stale_routes() const { return _resync_pending ? _stale_routes : 0; }
    // Ends a pending resync without removing anything: every stale entry counts as current
    // again. For a replay that is not trusted to sweep (the FPM listener's "plausible replay",
    // docs/rib.md): the RIB keeps what it had plus what that session installed.
    void abandon_resync();

    // --- reads
    // Every route, in unspecified order (routes().sorted() for route_key order).
    const route_table& routes() const { return _routes; }
    const route* find_route(const route_key& k) const;
    const std::map<uint32_t, nexthop_object>& nexthops() const { return _nexthops; }
    const nexthop_object* find_nexthop(uint32_t id) const;
    const std::map<uint32_t, nexthop_object>& pic_contexts() const { return _pic; }
    const std::map<std::string, std::vector<ip6_addr>>& sidlists() const { return _sidlists; }
    resolution resolve(const route& r) const;
    // Routes whose resolved first path carries seg6local: the router's local SIDs, sorted by
    // prefix address, then length, then table.
    std::vector<local_sid_entry> local_sids() const;
    // Routes that use nexthop object `id` directly or through a group, sorted, no duplicates.
    std::vector<route_key> users_of(uint32_t nh_id) const;
    std::set<table_id> tables() const;
    const rib_counters& counters() const { return _counters; }

    // Monotonic change counter: lets a compiler (issue 3) skip work when nothing changed.
    uint64_t version() const { return _version; }

    // --- change journal for the table compiler (fib/control/compiler.hh). Off until enabled; then every
    // real change (not a refresh) records its route key, nexthop id or SID list name until the
    // compiler drains them. Entries may repeat; PIC contexts are not recorded.
    struct changes {
        std::vector<route_key> routes;
        std::vector<uint32_t> nexthops;
        std::vector<std::string> sidlists;
        bool empty() const { return routes.empty() && nexthops.empty() && sidlists.empty(); }
    };
    void enable_journal() { _journal_on = true; }
    changes drain_changes() { return std::exchange(_journal, changes{}); }
    // The same into `into` (emptied first), whose storage the journal keeps: a caller that drains
    // every batch hands the capacity back, so the journal does not regrow from nothing each time.
    void drain_changes(changes& into) {
        into.routes.clear();
        into.nexthops.clear();
        into.sidlists.clear();
        std::swap(into, _journal);
    }

private:
    // same_key: a replace in place (unindexed, then indexed again under the same key): the
    // per-table count stays as it is.
    void index_route(uint32_t slot, bool add, bool same_key = false);
    // Inline paths: make `l` share the RIB's copy of an equal list (or become that copy), and
    // drop the RIB's copy once the last route holding it let it go.
    void share_paths(nexthop_list& l);
    void release_paths(nexthop_list&& l);
    void remove_route_slot(uint32_t slot);
    // What an entry costs against rib_limits::max_nexthops.
    static size_t cost(const nexthop_object& o) { return 1 + o.group.size(); }
    static size_t cost(const std::vector<ip6_addr>& segments) { return 1 + segments.size(); }
    // Limits: may a new route go into `table` / may `more` nexthop entries be added?
    bool route_fits(table_id table);
    bool nexthops_fit(size_t more);
    bool inline_paths_fit(const nexthop_list& l) const;
    // The route in `slot` forwards over `res`'s paths inline from now on, without its nexthop
    // object (a restarted zebra hands the old ids out again: detach_if, detach_stale_users).
    void detach_route(uint32_t slot, resolution&& res);
    // Puts the config route back into `slot` (zebra's route there was deleted or swept).
    void restore_config(uint32_t slot, config_route& c);
    // zebra upserts k: a config route there becomes shadowed.
    void shadow_config(const route_key& k);
    // Before stale object `id` changes under _detach_stale: its stale users keep their paths.
    void detach_stale_users(uint32_t id);
    void index_group(const nexthop_object& nh, bool add);
    // sweep_if's passes over the stale entries, in this order: routes (collecting the objects a
    // kept route still uses), nexthop objects, PIC contexts, SID lists. Each returns what it removed.
    struct sweep_kept {
        std::set<uint32_t> nh, pic;  // objects kept routes use: they stay with them
        size_t routes = 0, nexthops = 0;
    };
    size_t sweep_routes(const route_filter& may_sweep, keep_mode mode, sweep_kept& kept);
    size_t sweep_nexthops(sweep_kept& kept);
    size_t sweep_pic(const sweep_kept& kept);
    size_t sweep_sidlists();
    // Stamps an entry as seen by the current replay; `fresh` = it did not exist before.
    void refresh(uint32_t& gen, bool fresh);
    void forget(uint32_t gen);  // an entry with stamp `gen` is going away
    // The route of `table` at a slot stamped `gen` is re-sent or goes: one stale route less.
    void unstale_route(uint32_t gen, table_id table);
    void touch() { ++_version; }
    void note(const route_key& k) {
        if (_journal_on)
            _journal.routes.push_back(k);
    }
    void note(uint32_t nh_id) {
        if (_journal_on)
            _journal.nexthops.push_back(nh_id);
    }
    void note(const std::string& sidlist) {
        if (_journal_on)
            _journal.sidlists.push_back(sidlist);
    }

    route_table _routes;  // each slot holds its route's generation stamp
    std::map<uint32_t, nexthop_object> _nexthops;
    std::map<uint32_t, nexthop_object> _pic;
    std::map<std::string, std::vector<ip6_addr>> _sidlists;
    // Generation of the last refresh of each entry, compared with _generation on sweep.
    std::unordered_map<uint32_t, uint32_t> _nh_gen, _pic_gen;
    std::map<std::string, uint32_t> _sidlist_gen;
    // nexthop id -> route slots whose nh_id is that id (kept even while the id is unknown), in
    // no order; each slot knows its position here (route_table::slot::user_pos).
    std::unordered_map<uint32_t, std::vector<uint32_t>> _nh_users;
    // member id -> groups listing it (forward references included), so that users_of() of a
    // singleton reaches the routes of its groups without a scan.
    std::unordered_map<uint32_t, std::set<uint32_t>> _groups_with;
    // Routes whose first inline nexthop is seg6local; with _local_nh these are the only
    // candidates local_sids() has to resolve.
    std::set<route_key> _inline_local;
    std::set<uint32_t> _local_nh;  // singleton objects whose path is seg6local
    // One copy of each distinct inline path list in use: hash of the paths -> the lists.
    std::unordered_multimap<uint64_t, nexthop_list> _paths;
    std::map<table_id, size_t> _table_routes;
    std::map<route_key, config_route> _config;
    size_t _pinned = 0;  // config routes installed (not shadowed): never counted stale
    size_t _stale = 0;  // entries stamped before _generation
    // Routes among them, in all and per table: what the limits do not count during a replay.
    size_t _stale_routes = 0;
    std::map<table_id, size_t> _table_stale;
    uint32_t _generation = 0;
    bool _resync_pending = false;
    bool _detach_stale = false;
    uint64_t _version = 0;
    rib_counters _counters;
    rib_limits _limits;
    size_t _nh_entries = 0;  // see rib_limits::max_nexthops
    bool _journal_on = false;
    changes _journal;
};

}  // namespace rib
