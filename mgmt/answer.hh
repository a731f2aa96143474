// One request in, one response (or one in parts) out: the handler the daemon gives mgmt::server.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "rib/addr.hh"
#include "rib/rib.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/session.hh"
#include "mgmt/proto.hh"
#include "mgmt/render.hh"
#include "mgmt/reply.hh"
#include "mgmt/route_stream.hh"
#include "vrf/encap_source.hh"
#include "vrf/registry.hh"
#include "vrf/sid_binding.hh"
#include "vrf/tunsrc_poller.hh"

namespace mgmt {

// The daemon state the answers read (all of it owned by the control thread). The VRF pieces
// are optional: without a registry `show sids` binds against the default VRF alone and
// `show vrfs` / `show routes vrf` answer with an error; without a resolver `show encap-source` does.
struct daemon_view {
    daemon_view(const rib::store& r, const fpm::ingest_stats& st, const fpm::session_info& se)
        : rib(r), stats(st), session(se) {}

    const rib::store& rib;
    const fpm::ingest_stats& stats;
    const fpm::session_info& session;
    const vrf::registry* vrfs = nullptr;
    const vrf::sid_tracker* sids = nullptr;
    std::string kernel_vrfs;  // state of the kernel VRF monitor, for `show vrfs`
    const vrf::encap_source_resolver* encap = nullptr;
    std::optional<rib::ip6_addr> encap_configured;
    const vrf::tunsrc_poller* tunsrc = nullptr;
    // The dataplane's counters (absent: srv6d runs without one); clear_counters resets them.
    std::function<void(pb::Counters&)> counters;
    std::function<void()> clear_counters;
    // A reader of the local SIDs' counters, taken once per `show sids` (absent: no dataplane).
    std::function<sid_counter_reader()> sid_counters;
    std::function<void(pb::NeighborTable&)> neighbors;
    std::function<void(pb::L2vpnTable&)> l2vpn;  // VPWS services (absent: none configured, no dataplane)
    std::function<void(pb::Memory&)> memory;
    // `show route ADDR`: the compiled tables' answer into the response (absent: no tables).
    std::function<void(const pb::ShowRoute&, pb::Response&)> route_lookup;
    // The name of a kernel ifindex (the kernel's, else srv6d's port; "" when neither knows it):
    // `show routes`, `nexthops` and `sids` print names beside ifindexes. Absent: numbers only.
    std::function<std::string(uint32_t)> ifname;
    // Changes the log level; returns an error text ("" when done). Absent: not supported.
    std::function<std::string(const std::string& level, pb::LogLevel&)> set_log_level;
    // `show version` and `show running-config` (absent: an error answers them).
    std::function<void(pb::Version&)> version;
    std::function<void(pb::RunningConfig&)> running_config;
    // srv6ctl trace / capture: start, read, stop one request; an error text or "" (absent: no dataplane).
    std::function<std::string(const pb::Request&, pb::TraceRecords&)> trace;
};

// Dispatches on the request's command; a request without a known command gets an error
// response (a newer srv6ctl talking to an older srv6d sends commands this one lacks). A whole
// route table is answered in parts (mgmt/route_stream.hh): the view is copied into the reply,
// so what it refers to must outlive the stream (the daemon's state does).
reply respond(const pb::Request& req, const daemon_view& d, const stream_limits& lim = {});
// The same, every part joined in one go.
pb::Response answer(const pb::Request& req, const daemon_view& d);

// The FPM/RIB commands only (no VRF registry, no encap source).
pb::Response answer(const pb::Request& req, const rib::store& rib, const fpm::ingest_stats& stats,
                    const fpm::session_info& session);

}  // namespace mgmt
