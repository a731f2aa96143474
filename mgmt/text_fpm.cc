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
    if (s.connected())
        out += fmt::format("  State: connected to {} since {} ({})\n", s.peer(), s.connected_since(),
                           format_duration(s.connected_seconds()));
    else
        out += "  State: listening, no zebra connected\n";
    out += fmt::format("  Connections: {} accepted, {} refused, {} disconnects, {} framing resets\n",
                       s.connections(), s.refused(), s.disconnects(), s.framing_resets());
    if (!s.last_disconnect_reason().empty())
        out += fmt::format("  Last disconnect: {}\n", s.last_disconnect_reason());
    if (s.has_zebra_pid())
        out += fmt::format("  zebra: nlmsg_pid {}\n", s.zebra_pid());
    if (s.resync_pending())
        out += fmt::format("  Resync: pending, replay being received ({} sweeps so far)\n", s.sweeps());
    else
        out += fmt::format("  Resync: done, {} sweeps, last removed {}\n", s.sweeps(), s.last_sweep_removed());
    if (!s.last_sweep_scope().empty() && s.last_sweep_scope() != "none") {
        out += fmt::format("  Last sweep: {}{}", s.last_sweep_scope(),
                           s.last_sweep_reason().empty() ? "" : fmt::format(", {}", s.last_sweep_reason()));
        if (s.last_sweep_kept())
            out += fmt::format("; kept {} stale route{} of tables zebra does not replay", s.last_sweep_kept(),
                               s.last_sweep_kept() == 1 ? "" : "s");
        out += "\n";
    }

    const auto& in = s.ingest();
    out += "\nIngest:\n";
    out += fmt::format("  Frames:   {} (netlink {}, protobuf {})\n", in.frames(), in.netlink_frames(),
                       in.protobuf_frames());
    out += fmt::format("  Bytes:    {}\n", in.bytes());
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
    return out;
}

}  // namespace mgmt
