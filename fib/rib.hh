// The RIB: an exact model of what zebra has told us, owned and mutated by the control thread
// only. Idempotent under replay; mark-and-sweep across reconnects (zebra sends no deletes for
// what changed while the FPM connection was down).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fib/model.hh"

namespace fib {

// A route's forwarding paths after following nexthop ids and groups.
struct resolved_path {
    nexthop path;
    uint32_t nh_id = 0;  // the singleton object it came from; 0 for inline paths
};

enum class resolve_state : uint8_t {
    ok,           // every referenced object is known
    partial,      // a group lists members not received yet (replay forward references)
    unresolved,   // nh_id unknown, or a unicast route with no usable path
    no_paths,     // blackhole/unreachable/prohibit/local: nothing to resolve by design
};

struct resolution {
    resolve_state state = resolve_state::ok;
    std::vector<resolved_path> paths;
    std::vector<uint32_t> missing_ids;  // referenced but unknown object ids
};

struct local_sid_entry {
    const route* r = nullptr;   // the SID route (table 254 in FRR)
    seg6local sid;              // the endpoint behavior of its (first) path
    uint32_t nh_id = 0;
    uint32_t ifindex = 0;
};

struct rib_counters {
    uint64_t route_upserts = 0, route_changes = 0, route_deletes = 0, route_delete_unknown = 0;
    uint64_t nh_upserts = 0, nh_changes = 0, nh_deletes = 0, nh_delete_unknown = 0;
    uint64_t resyncs = 0, swept_routes = 0, swept_nexthops = 0, swept_other = 0;
};

class rib {
public:
    // --- mutation (control thread). Each returns true if the RIB changed.
    bool upsert_route(route r);                  // RTM_NEWROUTE is always an upsert
    bool delete_route(const route_key& k);       // idempotent: an unknown key is counted, not an error
    bool upsert_nexthop(nexthop_object nh);      // forward references to unknown members are kept
    bool delete_nexthop(uint32_t id);
    bool upsert_pic_context(nexthop_object nh);  // SONiC PIC contexts (own id space)
    bool delete_pic_context(uint32_t id);
    bool upsert_sidlist(std::string name, std::vector<ip6_addr> segments);
    bool delete_sidlist(const std::string& name);

    // --- mark and sweep
    // Everything held now becomes stale until an upsert refreshes it (a new connection starts).
    void begin_resync();
    // Remove everything not refreshed since begin_resync(); returns how many entries went.
    size_t sweep();
    bool resync_pending() const { return _resync_pending; }
    size_t stale_count() const;

    // --- reads
    const std::map<route_key, route>& routes() const { return _routes; }
    const route* find_route(const route_key& k) const;
    const std::map<uint32_t, nexthop_object>& nexthops() const { return _nexthops; }
    const nexthop_object* find_nexthop(uint32_t id) const;
    const std::map<uint32_t, nexthop_object>& pic_contexts() const { return _pic; }
    const std::map<std::string, std::vector<ip6_addr>>& sidlists() const { return _sidlists; }
    resolution resolve(const route& r) const;
    // Routes whose resolved path carries seg6local: the router's local SIDs.
    std::vector<local_sid_entry> local_sids() const;
    // Routes that use nexthop object `id` directly or through a group.
    std::vector<route_key> users_of(uint32_t nh_id) const;
    std::set<table_id> tables() const;
    const rib_counters& counters() const { return _counters; }

    // Monotonic change counter: lets a compiler (issue 3) skip work when nothing changed.
    uint64_t version() const { return _version; }

private:
    void index_route(const route& r, bool add);
    void touch() { ++_version; }

    std::map<route_key, route> _routes;
    std::map<uint32_t, nexthop_object> _nexthops;
    std::map<uint32_t, nexthop_object> _pic;
    std::map<std::string, std::vector<ip6_addr>> _sidlists;
    // Generation of the last refresh of each entry, compared with _generation on sweep.
    std::map<route_key, uint64_t> _route_gen;
    std::unordered_map<uint32_t, uint64_t> _nh_gen, _pic_gen;
    std::map<std::string, uint64_t> _sidlist_gen;
    // nexthop id -> routes whose nh_id is that id (groups are followed at query time).
    std::unordered_map<uint32_t, std::set<route_key>> _nh_users;
    uint64_t _generation = 0;
    bool _resync_pending = false;
    uint64_t _version = 0;
    rib_counters _counters;
};

}  // namespace fib
