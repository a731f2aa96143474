// The FPM server zebra's dplane_fpm_nl connects to. Only admitted peers are read (by the owner
// of a local peer's socket, by a remote peer's address: fpm/admission.hh); one connection at a
// time, which an admitted newcomer replaces when it is silent, idle or of the same user, so
// zebra is never locked out (docs/srv6d.md, "Who may connect"). Every complete frame is decoded
// and applied to the RIB as one batch; on a connection's first frame the RIB is marked stale and
// swept once zebra's replay is over (see docs/srv6d.md, "Resync"). The sweep is
// limited to the tables zebra replays when the same zebra reconnects, and keeps the kernel's
// routes of the other tables after a zebra restart (a new nlmsg_pid), which zebra re-reads but
// does not replay.
//
// The listener owns its io objects only. The RIB, the counters and the session info are the
// caller's, and are touched on the io_context's thread only: run the io_context on one thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fpm/admission.hh"
#include "fpm/decode_ctx.hh"
#include "fpm/session.hh"
#include "fpm/update.hh"
#include "rib/rib.hh"

// g++ 12 at -O2 reports a null dereference inside Asio's scheduler (thread_info of the running
// thread, set on every path that reaches it). Middle-end warnings are located in the header
// that is first included here, so this silences it for that code only, not for ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <boost/asio/io_context.hpp>
#pragma GCC diagnostic pop

namespace fpm {

struct listener_options {
    std::string address = "127.0.0.1";  // literal IPv4 or IPv6 address ("[::1]" accepted)
    uint16_t port = 2620;               // 0: any free port (tests), see listener::port()
    // zebra sends no end-of-replay marker: sweep after this much silence ...
    std::chrono::milliseconds resync_quiet{10'000};
    // ... or this long after the connect, whichever comes first, so a steady trickle of
    // updates cannot postpone the sweep forever.
    std::chrono::milliseconds resync_max{120'000};
    // Who may connect. The default admits root's local processes only (srv6d's config adds frr).
    admission_policy admission{false, {0}, {}};
    // An admitted newcomer replaces the active connection once that has sent no valid frame for
    // this long (zebra is silent when nothing changes: only an admitted peer can take over).
    std::chrono::milliseconds takeover_idle{30'000};
    // A connection that sends no valid frame this long after it was admitted is closed.
    std::chrono::milliseconds first_frame_timeout{10'000};
};

struct listener_hooks {
    // After all updates of one frame were applied to the RIB (the place to publish tables). The
    // updates' keys, ids and names are intact; their contents were moved into the RIB.
    std::function<void(std::span<const update>)> on_batch_applied;
    // After a resync sweep removed `removed` stale entries (0 included).
    std::function<void(size_t removed)> on_sweep;
    // Tables zebra's replay walks besides main (254) and 0 (SONiC's/protobuf's default VRF): the
    // tables of its VRFs. When the same zebra reconnects, only these are swept; routes of other
    // tables (`ip route ... table N`, never replayed) are kept. Unset: main and 0 only.
    std::function<bool(rib::table_id)> replayed_table;
    // The keys of the routes the kernel of this network namespace has in `tables`; nullopt when
    // it cannot be read. Set, it is asked before a sweep when zebra is local (its socket is in
    // this namespace, so this kernel is the one it programs): a stale route of a table zebra does
    // not replay is kept only while that kernel has a route at its key. Unset: kept as before.
    std::function<std::optional<std::vector<rib::route_key>>(const std::vector<rib::table_id>& tables)> kernel_routes;
};

class listener {
public:
    listener(boost::asio::io_context& io, listener_options opts, rib::store& rib, ingest_stats& stats,
             session_info& session, listener_hooks hooks = {});
    // Closes whatever is still open. Destroy the listener only when the io_context is not
    // running on another thread; handlers still queued then complete as no-ops.
    ~listener();
    listener(const listener&) = delete;
    listener& operator=(const listener&) = delete;

    // Binds (SO_REUSEADDR), listens and starts accepting. False, with `error` naming the
    // address, when the address cannot be used.
    bool start(std::string& error);

    // Closes the acceptor and the connection and cancels the timers, without sweeping (the RIB
    // stays as it is). Safe from any thread: it runs on the io_context's thread.
    void stop();

    // A reload: everything but the address and port applies from now on. Connections the new
    // admission refuses are closed (the active one too: the operator tightened who may feed the
    // RIB); a pending resync's deadline follows the new quiet time and cap. io_context's thread.
    void set_options(listener_options opts);

    // The bound port, once start() succeeded (the chosen one when the options said 0).
    uint16_t port() const;

private:
    class impl;
    std::shared_ptr<impl> _impl;  // shared with in-flight handlers, which may outlive *this
};

}  // namespace fpm
