#include <algorithm>

#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {
namespace {

void format_reasons(const pb::IngestCounters& in, bool errors, std::string& out) {
    size_t width = 0;
    for (const auto& r : in.reasons())
        if (r.count() != 0 && r.error() == errors)
            width = std::max(width, r.name().size());
    if (width == 0)
        return;
    out += errors ? "\nErrors (dropped input):\n" : "\nIgnored on purpose:\n";
    for (const auto& r : in.reasons())
        if (r.count() != 0 && r.error() == errors)
            out += fmt::format("  {:<{}}  {:>10}  {}\n", r.name(), width, r.count(), r.description());
}

}  // namespace

std::string format_fpm(const pb::FpmStatus& s) {
    std::string out = fmt::format("FPM listener {}\n", s.listen().empty() ? "-" : s.listen());
    // One state, the first thing said (issue 38: "no zebra connected" and "replay being received"
    // were both printed after an interrupted replay).
    if (s.connected()) {
        out += fmt::format("  State: connected to {} ({}) since {} ({}), {}\n", s.peer(), s.peer_identity(),
                           s.connected_since(), format_duration(s.connected_seconds()),
                           s.resync_pending() ? "replay being received" : "in sync");
        out += fmt::format("  Last valid frame: {} ago\n", format_duration(s.idle_seconds()));
    } else {
        out += fmt::format("  State: listening, no zebra connected{}\n",
                           s.resync_pending() ? "; its last replay was interrupted, nothing swept" : "");
    }
    if (s.pending())
        out += fmt::format("  Pending: {} admitted connection{} waiting for a first frame (zebra's only with a valid "
                           "replay)\n", s.pending(), s.pending() == 1 ? "" : "s");
    out += fmt::format("  Connections: {} admitted ({} took over), {} refused (first frame not a valid replay, or zebra "
                       "active), {} probes, {} closed without a first frame in time, {} disconnects, {} framing "
                       "resets\n",
                       s.connections(), s.takeovers(), s.refused(), s.probes(), s.first_frame_timeouts(),
                       s.disconnects(), s.framing_resets());
    out += fmt::format("  Not admitted: {} local (fpm.allow-user), {} remote (fpm.allow-address), {} owner unknown\n",
                       s.denied_user(), s.denied_address(), s.denied_unknown());
    if (!s.last_denied().empty())
        out += fmt::format("  Last not admitted: {}\n", s.last_denied());
    if (!s.last_disconnect_reason().empty())
        out += fmt::format("  Last disconnect: {}\n", s.last_disconnect_reason());
    if (s.has_zebra_pid())
        out += fmt::format("  zebra: nlmsg_pid {}\n", s.zebra_pid());
    if (s.resync_pending() && s.connected())
        out += fmt::format("  Resync: pending, {} updates, {} decode errors, {} refused at the limits so far ({} sweeps "
                           "before)\n", s.replay_updates(), s.replay_errors(), s.replay_refused(), s.sweeps());
    else if (s.resync_pending())
        out += fmt::format("  Resync: interrupted, the RIB keeps its stale entries until a replay is swept ({} sweeps "
                           "so far)\n", s.sweeps());
    else
        out += fmt::format("  Resync: done, {} sweeps, last removed {}\n", s.sweeps(), s.last_sweep_removed());
    if (s.sweeps_skipped())
        out += fmt::format("  Not swept: {} replay{} not plausible, last: {}\n", s.sweeps_skipped(),
                           s.sweeps_skipped() == 1 ? "" : "s", s.last_skip_reason());
    if (!s.last_sweep_scope().empty() && s.last_sweep_scope() != "none") {
        out += fmt::format("  Last sweep: {}{}", s.last_sweep_scope(),
                           s.last_sweep_reason().empty() ? "" : fmt::format(", {}", s.last_sweep_reason()));
        if (s.last_sweep_kept())
            out += fmt::format("; kept {} stale route{} of tables zebra does not replay", s.last_sweep_kept(),
                               s.last_sweep_kept() == 1 ? "" : "s");
        if (s.last_sweep_not_in_kernel())
            out += fmt::format("; swept {} of such tables that zebra's kernel does not have",
                               s.last_sweep_not_in_kernel());
        out += "\n";
    }

    const auto& in = s.ingest();
    out += "\nIngest:\n";
    out += fmt::format("  Frames:   {} (netlink {}, protobuf {})\n", in.frames(), in.netlink_frames(),
                       in.protobuf_frames());
    out += fmt::format("  Bytes:    {} received: {} in frames, {} discarded (lost framing, incomplete frames)\n",
                       in.bytes_received(), in.bytes(), in.bytes_discarded());
    out += fmt::format("  Messages: {}\n", in.messages());
    out += fmt::format("  Updates:  {}\n", in.updates());
    if (in.message_types_size() > 0) {
        std::vector<std::string> names;
        size_t width = 0;
        for (const auto& m : in.message_types()) {
            const bool protobuf = m.type() & 0x8000;  // fpm::ingest_stats' mark for protobuf types
            const bool known = !m.name().starts_with("type ") && !m.name().starts_with("protobuf type ");
            names.push_back(!known      ? m.name()
                            : protobuf ? fmt::format("{} (protobuf {})", m.name(), m.type() & 0x7fff)
                                       : fmt::format("{} ({})", m.name(), m.type()));
            width = std::max(width, names.back().size());
        }
        out += "\nMessages by type:\n";
        for (int i = 0; i < in.message_types_size(); ++i)
            out += fmt::format("  {:<{}}  {:>10}\n", names[static_cast<size_t>(i)], width,
                               in.message_types(i).count());
    }
    format_reasons(in, true, out);
    format_reasons(in, false, out);

    const auto& r = s.rib();
    out += "\nRIB:\n";
    out += fmt::format("  Routes: {} in {} table{}, {} local SID{}\n", r.routes(), r.tables(),
                       r.tables() == 1 ? "" : "s", r.local_sids(), r.local_sids() == 1 ? "" : "s");
    out += fmt::format("  Nexthop objects: {}, PIC contexts: {}, SID lists: {}\n", r.nexthops(), r.pic_contexts(),
                       r.sidlists());
    out += fmt::format("  Route updates: {} upserts, {} changes, {} deletes, {} deletes of unknown routes\n",
                       r.route_upserts(), r.route_changes(), r.route_deletes(), r.route_delete_unknown());
    out += fmt::format("  Nexthop updates: {} upserts, {} changes, {} deletes, {} deletes of unknown ids\n",
                       r.nh_upserts(), r.nh_changes(), r.nh_deletes(), r.nh_delete_unknown());
    out += fmt::format("  Resyncs: {}, swept: {} routes, {} nexthops, {} other\n", r.resyncs(), r.swept_routes(),
                       r.swept_nexthops(), r.swept_other());
    if (r.kept_routes() || r.kept_nexthops())
        out += fmt::format("  Kept by selective sweeps: {} routes, {} nexthops\n", r.kept_routes(), r.kept_nexthops());
    const auto bound = [](uint64_t v) { return v ? std::to_string(v) : std::string("no limit"); };
    out += fmt::format("  Limits: routes {}, per table {}, nexthop entries {} of {}\n", bound(r.max_routes()),
                       bound(r.max_routes_per_table()), r.nexthop_entries(), bound(r.max_nexthops()));
    if (r.refused_routes() || r.refused_table_routes() || r.refused_nexthops())
        out += fmt::format("  Refused at the limits: {} routes (total), {} routes (per table), {} nexthops\n",
                           r.refused_routes(), r.refused_table_routes(), r.refused_nexthops());
    return out;
}

}  // namespace mgmt
