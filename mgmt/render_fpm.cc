#include <ctime>

#include <fmt/format.h>

#include "fpm/reasons.hh"
#include "mgmt/names.hh"
#include "mgmt/render.hh"

namespace mgmt {
namespace {

std::string rfc3339(std::chrono::system_clock::time_point t) {
    const std::time_t secs = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void render_ingest(const fpm::ingest_stats& s, pb::IngestCounters& out) {
    out.set_frames(s.frames);
    out.set_bytes(s.bytes);
    out.set_netlink_frames(s.netlink_frames);
    out.set_protobuf_frames(s.protobuf_frames);
    out.set_messages(s.messages);
    out.set_updates(s.updates);
    out.set_bytes_received(s.bytes_received);
    out.set_bytes_discarded(s.bytes_discarded);
    for (const auto& [type, count] : s.msg_types) {
        auto* m = out.add_message_types();
        m->set_type(type);
        m->set_name(msg_type_name(type));
        m->set_count(count);
    }
    for (size_t i = 0; i < fpm::reason_count; ++i) {
        const auto r = static_cast<fpm::reason>(i);
        auto* c = out.add_reasons();
        c->set_name(std::string(fpm::name(r)));
        c->set_description(std::string(fpm::describe(r)));
        c->set_error(fpm::is_error(r));
        c->set_count(s.reasons[i]);
    }
}

void render_rib(const rib::store& rib, pb::RibSummary& out) {
    out.set_routes(rib.routes().size());
    out.set_nexthops(rib.nexthops().size());
    out.set_pic_contexts(rib.pic_contexts().size());
    out.set_sidlists(rib.sidlists().size());
    out.set_local_sids(rib.local_sids().size());
    out.set_tables(rib.tables().size());
    out.set_version(rib.version());
    const auto& c = rib.counters();
    out.set_route_upserts(c.route_upserts);
    out.set_route_changes(c.route_changes);
    out.set_route_deletes(c.route_deletes);
    out.set_route_delete_unknown(c.route_delete_unknown);
    out.set_nh_upserts(c.nh_upserts);
    out.set_nh_changes(c.nh_changes);
    out.set_nh_deletes(c.nh_deletes);
    out.set_nh_delete_unknown(c.nh_delete_unknown);
    out.set_resyncs(c.resyncs);
    out.set_swept_routes(c.swept_routes);
    out.set_swept_nexthops(c.swept_nexthops);
    out.set_swept_other(c.swept_other);
    out.set_kept_routes(c.kept_routes);
    out.set_kept_nexthops(c.kept_nexthops);
    out.set_refused_routes(c.refused_routes);
    out.set_refused_table_routes(c.refused_table_routes);
    out.set_refused_nexthops(c.refused_nexthops);
    out.set_nexthop_entries(rib.nexthop_entries());
    out.set_max_routes(rib.limits().max_routes);
    out.set_max_routes_per_table(rib.limits().max_routes_per_table);
    out.set_max_nexthops(rib.limits().max_nexthops);
}

}  // namespace

pb::FpmStatus render_fpm(const fpm::session_info& session, const fpm::ingest_stats& stats,
                         const rib::store& rib, std::chrono::system_clock::time_point now) {
    pb::FpmStatus out;
    out.set_connected(session.connected);
    out.set_listen(session.listen);
    const auto st = fpm::state_of(session);
    switch (st) {
    case fpm::session_state::idle: out.set_state("listening"); break;
    case fpm::session_state::interrupted: out.set_state("interrupted"); break;
    case fpm::session_state::replaying: out.set_state("replaying"); break;
    case fpm::session_state::in_sync: out.set_state("in-sync"); break;
    }
    out.set_state_text(std::string(fpm::to_string(st)));
    out.set_pending(session.pending);
    out.set_probes(session.probes);
    out.set_pending_evicted(session.pending_evicted);
    out.set_sweeps_skipped(session.sweeps_skipped);
    out.set_last_skip_reason(printable(session.last_skip_reason));
    out.set_replay_updates(session.replay_updates);
    out.set_replay_errors(session.replay_errors);
    out.set_replay_refused(session.replay_refused);
    if (session.connected) {
        out.set_peer(session.peer);
        out.set_connected_since(rfc3339(session.connected_since));
        const auto age = std::chrono::duration_cast<std::chrono::seconds>(now - session.connected_since);
        out.set_connected_seconds(age.count() > 0 ? static_cast<uint64_t>(age.count()) : 0);
        out.set_peer_identity(session.peer_identity);
        out.set_talking(session.talking);
        const auto last = session.talking ? session.last_frame_at : session.connected_since;
        const auto idle = std::chrono::duration_cast<std::chrono::seconds>(now - last);
        out.set_idle_seconds(idle.count() > 0 ? static_cast<uint64_t>(idle.count()) : 0);
    }
    out.set_connections(session.connections);
    out.set_refused(session.refused);
    out.set_takeovers(session.takeovers);
    out.set_first_frame_timeouts(session.first_frame_timeouts);
    out.set_denied_user(session.denied_user);
    out.set_denied_address(session.denied_address);
    out.set_denied_unknown(session.denied_unknown);
    out.set_last_denied(printable(session.last_denied));
    out.set_disconnects(session.disconnects);
    out.set_framing_resets(session.framing_resets);
    out.set_last_disconnect_reason(printable(session.last_disconnect_reason));
    out.set_resync_pending(session.resync_pending);
    out.set_sweeps(session.sweeps);
    out.set_last_sweep_removed(session.last_sweep_removed);
    if (session.zebra_pid)
        out.set_zebra_pid(*session.zebra_pid);
    out.set_last_sweep_scope(std::string(fpm::to_string(session.last_sweep_scope)));
    out.set_last_sweep_reason(printable(session.last_sweep_reason));
    out.set_last_sweep_kept(session.last_sweep_kept);
    out.set_last_sweep_not_in_kernel(session.last_sweep_not_in_kernel);
    render_ingest(stats, *out.mutable_ingest());
    render_rib(rib, *out.mutable_rib());
    return out;
}

}  // namespace mgmt
