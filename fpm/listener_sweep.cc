// The resync sweep: when it runs (quiet period, cap), what it may remove (docs/srv6d.md, "Which
// tables a sweep cleans"), and the kernel check of the tables zebra does not replay.
#include "fpm/listener_impl.hh"

#include <algorithm>

namespace fpm {

namespace {

// nlmsg_pids remembered per connection: `zebra -n` has one port id per netns. A bound only.
constexpr size_t max_pids = 8;

}  // namespace

steady::time_point listener::impl::sweep_deadline() const {
    return std::min(_last_rx + _opts.resync_quiet, _connected_at + _opts.resync_max);
}

void listener::impl::arm_resync_timer() {
    _resync_timer.expires_at(sweep_deadline());
    _resync_timer.async_wait([self = shared_from_this(), c = _conn](const error_code& ec) {
        self->on_resync_timer(c, ec);
    });
}

// Only for a local zebra: a remote one programs another kernel than the one we can read.
std::optional<std::set<rib::route_key>> listener::impl::kernel_view() const {
    if (!_hooks.kernel_routes || !_conn || !_conn->who.local)
        return std::nullopt;
    std::vector<rib::table_id> tables;
    for (const rib::table_id t : _rib.tables())
        if (!replayed(t))
            tables.push_back(t);
    if (tables.empty())
        return std::nullopt;
    auto keys = _hooks.kernel_routes(tables);
    if (!keys) {
        util::log(util::level::warn, "fpm: cannot read the kernel's routes of tables zebra does not replay: keeping "
                                     "their stale routes unchecked");
        return std::nullopt;
    }
    return std::set<rib::route_key>(keys->begin(), keys->end());
}

void listener::impl::on_resync_timer(const std::shared_ptr<connection>& c, const error_code& ec) {
    // A timer of an earlier connection (cancelled, or already queued when it ended) never sweeps.
    if (ec || _stopped || c != _conn || !_session.resync_pending)
        return;
    const auto now = steady::now();
    const auto deadline = sweep_deadline();
    if (now < deadline) {  // data arrived since the timer was armed: wait for the new deadline
        arm_resync_timer();
        return;
    }
    const bool capped = now >= _connected_at + _opts.resync_max;
    const std::string ended = capped ? fmt::format("still going after {} ms (resync-max)", _opts.resync_max.count())
                                     : fmt::format("quiet for {} ms", _opts.resync_quiet.count());
    report_replay_limits(c->peer);
    if (const auto why = implausible()) {
        // Nothing proves this stream is zebra's whole state: removing what it did not mention
        // could empty the RIB. What it installed stays, like everything that was there.
        const size_t stale = _rib.stale_count();
        _rib.abandon_resync();
        _session.resync_pending = false;
        ++_session.sweeps_skipped;
        _session.last_skip_reason = *why;
        util::log(util::level::warn,
                  "fpm: replay from {} ({}) {}: no sweep, it is not a plausible replay ({}); its {} stale entries "
                  "are kept as current",
                  c->peer, to_string(c->who), ended, *why, stale);
        return;
    }
    const auto plan = plan_sweep();
    const uint64_t kept_before = _rib.counters().kept_routes;
    // A stale route the scope would keep goes all the same when zebra's kernel has no route at
    // its key: zebra cannot have it (a route written there by a corrupted stream, a kernel route
    // deleted while zebra was away). Without that check such routes would pile up for good.
    const auto kernel = plan.scope == sweep_scope::replayed_tables || plan.scope == sweep_scope::restarted
                            ? kernel_view()
                            : std::nullopt;
    uint64_t not_in_kernel = 0;
    const auto check = [&](const rib::route& r) {
        if (kernel && !kernel->count(r.key)) {
            ++not_in_kernel;
            return true;
        }
        return false;
    };
    size_t removed = 0;
    switch (plan.scope) {
    case sweep_scope::replayed_tables:
        removed = _rib.sweep_if([&](const rib::route& r) { return replayed(r.key.table) || check(r); });
        break;
    case sweep_scope::restarted:
        // The kept routes left the old zebra's nexthop ids when the new one showed up (one that
        // could not is swept: the new zebra may be using its id for something else).
        removed = _rib.sweep_if([&](const rib::route& r) { return !kept_after_restart(r) || check(r); },
                                rib::store::keep_mode::inline_only);
        break;
    case sweep_scope::none:
    case sweep_scope::full:
        removed = _rib.sweep();
        break;
    }
    _session.resync_pending = false;
    ++_session.sweeps;
    _session.last_sweep_removed = removed;
    _session.last_sweep_scope = plan.scope;
    _session.last_sweep_reason = plan.reason;
    _session.last_sweep_kept = _rib.counters().kept_routes - kept_before;
    _session.last_sweep_not_in_kernel = not_in_kernel;
    _rib_pids = _conn_pids;
    _sweep_owed = false;
    _owed_reason.clear();
    util::log(util::level::info, "fpm: replay from {} {}: {} sweep ({}): swept {} stale entries{}{}", c->peer,
              ended, to_string(plan.scope), plan.reason, removed,
              _session.last_sweep_kept
                  ? fmt::format(", kept {} stale {}routes of tables zebra does not replay", _session.last_sweep_kept,
                                plan.scope == sweep_scope::restarted ? "kernel " : "")
                  : std::string{},
              not_in_kernel ? fmt::format(", swept {} of such tables that zebra's kernel does not have", not_in_kernel)
                            : std::string{});
    if (_hooks.on_sweep)
        _hooks.on_sweep(removed);
}

void listener::impl::note_pid(uint32_t pid) {
    if (std::find(_conn_pids.begin(), _conn_pids.end(), pid) != _conn_pids.end())
        return;
    if (_conn_pids.size() >= max_pids) {
        _replay.too_many_pids = true;
        return;
    }
    _conn_pids.push_back(pid);
    if (!_session.zebra_pid)
        _session.zebra_pid = pid;
}

// A new zebra: before its first update, the routes its sweep will keep leave the old zebra's
// nexthop ids, which it hands out again (docs/rib.md, detach_if).
void listener::impl::detach_for_restart() {
    if (_conn_detached || !_session.resync_pending || plan_sweep().scope != sweep_scope::restarted)
        return;
    _conn_detached = true;
    const size_t n = _rib.detach_if([this](const rib::route& r) { return kept_after_restart(r); });
    util::log(util::level::info,
              "fpm: a new zebra ({}): {} kernel routes of tables it does not replay keep their paths inline",
              plan_sweep().reason, n);
}

// A restarted zebra's nexthop ids are not its predecessor's: while the RIB holds the old
// zebra's stale state, the new zebra's redefinitions of those ids must not re-point the stale
// routes (rib::store::set_detach_stale). Exactly when the coming sweep is a full or a restart one.
void listener::impl::update_detach() {
    bool on = false;
    std::string why;
    if (_session.resync_pending && !_conn_foreign && _rib.stale_count() > 0) {
        auto plan = plan_sweep();
        // full: a zebra we cannot tell apart; restarted: a new nlmsg_pid. Either way its ids
        // are not the stale objects' (the kept kernel routes were detached above already).
        on = plan.scope == sweep_scope::full || plan.scope == sweep_scope::restarted;
        why = std::move(plan.reason);
    }
    if (on && !_rib.detach_stale())
        util::log(util::level::info,
                  "fpm: {}: stale routes keep their paths until zebra re-sends them or the sweep removes them", why);
    _rib.set_detach_stale(on);
}

// A plausible replay: frames of one zebra (one netlink port id per namespace, at most max_pids,
// or a SONiC/protobuf stream) that decoded without an error into at least one update, and
// reached its quiet time (or resync-max). Anything less never sweeps (docs/rib.md, "Sessions").
std::optional<std::string> listener::impl::implausible() const {
    if (_replay.errors)
        return fmt::format("{} decode errors in {} frames", _replay.errors, _replay.frames);
    if (_replay.updates == 0)
        return std::string("it installed nothing");
    if (_replay.too_many_pids)
        return fmt::format("more than {} netlink port ids: not one zebra", max_pids);
    if (_conn_pids.empty() && !_conn_foreign)
        return std::string("no netlink port id");
    return std::nullopt;
}

// A replay that met a limit: the counts once, at warning, whatever the rate limit held back.
void listener::impl::report_replay_limits(const std::string& peer) {
    const uint64_t refused = _replay.refused_routes + _replay.refused_table_routes + _replay.refused_nexthops;
    if (refused == 0)
        return;
    const auto& l = _rib.limits();
    util::log(util::level::warn,
              "fpm: the replay from {} met the RIB's limits: {} routes refused at rib.max-routes {}, {} at "
              "rib.max-routes-per-table {}, {} nexthops at rib.max-nexthops {}; the RIB holds {} routes ({} stale, "
              "swept now if the replay is plausible) and {} nexthop entries",
              peer, _replay.refused_routes, l.max_routes, _replay.refused_table_routes, l.max_routes_per_table,
              _replay.refused_nexthops, l.max_nexthops, _rib.routes().size(), _rib.stale_routes(),
              _rib.nexthop_entries());
}

bool listener::impl::replayed(rib::table_id t) const {
    return t == rib::main_table || t == 0 || (_hooks.replayed_table && _hooks.replayed_table(t));
}

// Full unless this connection is provably the zebra whose replay the RIB was last swept against
// (then only the tables it replays) or another zebra after it (then all but the kernel's routes
// of the tables it does not replay).
listener::impl::sweep_plan listener::impl::plan_sweep() const {
    if (_conn_foreign)
        return {sweep_scope::full, "SONiC/protobuf stream: its tables are VRFs, all replayed"};
    if (_conn_pids.empty())
        return {sweep_scope::full, "zebra's nlmsg_pid unknown"};
    if (_rib_pids.empty())
        return {sweep_scope::full, fmt::format("first replay (zebra nlmsg_pid {})", _conn_pids.front())};
    if (_sweep_owed)
        return {_owed_scope, _owed_reason};
    const bool same = std::any_of(_conn_pids.begin(), _conn_pids.end(), [this](uint32_t p) {
        return std::find(_rib_pids.begin(), _rib_pids.end(), p) != _rib_pids.end();
    });
    if (!same)
        return {sweep_scope::restarted,
                fmt::format("zebra restarted (nlmsg_pid {} -> {})", _rib_pids.front(), _conn_pids.front())};
    return {sweep_scope::replayed_tables, fmt::format("same zebra (nlmsg_pid {})", _conn_pids.front())};
}

}  // namespace fpm
