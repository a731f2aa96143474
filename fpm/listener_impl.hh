// The listener's private state, shared by listener.cc (connections: admission, takeover,
// reading, framing) and listener_sweep.cc (the resync sweep: its scope, its timer). Not part of
// the library's interface.
#pragma once

#include "fpm/listener.hh"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // see listener.hh
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#pragma GCC diagnostic pop

#include <set>
#include <string>
#include <vector>

#include "fpm/framer.hh"
#include "fpm/peer_owner.hh"
#include "util/log.hh"

namespace fpm {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using steady = std::chrono::steady_clock;

// One read can take a whole maximum-size frame (FRR >= 10.4 sends up to 64 KiB).
constexpr size_t read_buffer_size = 64 * 1024;

// An admitted connection. It is pending until its first frame decides what it is (docs/rib.md,
// "Sessions"): zebra's connection from then on (the active one), or closed without effect.
struct connection {
    connection(tcp::socket s, std::string p, peer_identity w, asio::io_context& io)
        : socket(std::move(s)), peer(std::move(p)), who(w), first_frame_timer(io) {}
    tcp::socket socket;
    std::string peer;   // "127.0.0.1:40612"
    peer_identity who;  // its user (local) or address (remote)
    std::vector<uint8_t> buf = std::vector<uint8_t>(read_buffer_size);
    framer frames;      // each connection its own: a pending one is read beside the active one
    asio::steady_timer first_frame_timer;
    steady::time_point admitted_at{};
    steady::time_point last_frame{};  // last valid frame; admitted_at before the first
    bool talking = false;             // the active connection: its stream is zebra's replay
    // Its first frame was a valid replay's start and no frame since had a decode error: only
    // a newcomer of its own identity, or one after it went silent, may replace it.
    bool proven = false;
    uint64_t bytes = 0;               // read from it
};

// What the active connection's replay showed, judged at its sweep: only a plausible replay may
// sweep (docs/rib.md, "Sessions").
struct replay_evidence {
    uint64_t frames = 0;   // with a payload
    uint64_t updates = 0;  // handed to the RIB
    uint64_t errors = 0;   // decode errors (error reasons) in its frames
    bool too_many_pids = false;
    uint64_t refused_routes = 0, refused_table_routes = 0, refused_nexthops = 0;  // at the limits
};

class listener::impl : public std::enable_shared_from_this<listener::impl> {
public:
    impl(asio::io_context& io, listener_options opts, rib::store& rib, ingest_stats& stats, session_info& session,
         listener_hooks hooks);

    bool start(std::string& error);
    void stop();
    void set_options(listener_options opts);
    asio::io_context& io() { return _io; }
    uint16_t port() const { return _port; }

private:
    // --- connections (listener.cc)
    void accept();
    void on_accept(const error_code& ec, tcp::socket s);
    void add_pending(tcp::socket s, std::string peer, peer_identity who);
    bool is_pending(const std::shared_ptr<connection>& c) const;
    // A pending connection's frames until the first with a payload decides it.
    void first_frame(const std::shared_ptr<connection>& c);
    // Why `c`, whose first frame decoded as said, becomes zebra's connection; empty: it may not.
    std::string takeover_reason(const connection& c, bool proof, size_t updates, std::optional<uint32_t> pid) const;
    void promote(const std::shared_ptr<connection>& c, const std::string& why);
    void drop_pending(const std::shared_ptr<connection>& c, const std::string& why, bool quiet = false);
    void start_session();
    void read(const std::shared_ptr<connection>& c);
    void on_read(const std::shared_ptr<connection>& c, const error_code& ec, size_t n);
    void process_frames();
    void frame_seen();
    void decode_one(std::span<const uint8_t> frame);
    void apply(std::vector<update>& batch);
    void close(const std::string& why);
    void account_leftover(connection& c);

    // --- the resync sweep (listener_sweep.cc)
    void arm_resync_timer();
    void on_resync_timer(const std::shared_ptr<connection>& c, const error_code& ec);
    steady::time_point sweep_deadline() const;
    void note_pid(uint32_t pid);
    void update_detach();
    void detach_for_restart();
    struct sweep_plan {
        sweep_scope scope = sweep_scope::full;
        std::string reason;
    };
    sweep_plan plan_sweep() const;
    bool replayed(rib::table_id t) const;
    // A restart's sweep keeps these: the kernel's routes of tables zebra does not replay.
    bool kept_after_restart(const rib::route& r) const {
        return r.protocol == rib::proto::kernel && !replayed(r.key.table);
    }
    // The kernel's routes in the tables zebra does not replay, when zebra is local and the hook
    // is set; nullopt: nothing to check against (keep as the scope says).
    std::optional<std::set<rib::route_key>> kernel_view() const;
    void note_limits(const rib::rib_counters& before);
    // Why the replay must not sweep; nullopt when it is plausible.
    std::optional<std::string> implausible() const;
    void report_replay_limits(const std::string& peer);

    asio::io_context& _io;
    listener_options _opts;
    rib::store& _rib;
    ingest_stats& _stats;
    session_info& _session;
    listener_hooks _hooks;
    decode_ctx _ctx;
    tcp::acceptor _acceptor;
    asio::steady_timer _resync_timer;
    asio::steady_timer _accept_timer;
    uint16_t _port = 0;
    bool _stopped = false;
    peer_finder _finder;

    std::shared_ptr<connection> _conn;  // the active connection; handlers of older ones see a mismatch
    // Admitted, no frame with a payload yet: read beside the active one, oldest first.
    std::vector<std::shared_ptr<connection>> _pending;
    replay_evidence _replay;
    std::vector<update> _batch;
    steady::time_point _connected_at{};  // of the replay: the connection's first valid frame
    steady::time_point _last_rx{};
    util::rate_limit _accept_errors, _denied_log, _busy_log, _limit_log, _probe_log;

    // Which zebra the RIB's state comes from, to choose the sweep's scope. A zebra that merely
    // reconnects does not replay `ip route ... table N` routes (tables that are not a VRF's), so
    // they must survive its sweep. A restarted zebra rebuilt its RIB: what its daemons gave it
    // is sent again, so the stale rest goes, but the kernel's routes of such tables survived in
    // the kernel and it re-read them without sending them: those stay (docs/srv6d.md).
    // Identity = nlmsg_pid, zebra's netlink port id (constant per process; several with `zebra -n`).
    std::vector<uint32_t> _conn_pids;  // seen on the current connection, first one first
    bool _conn_foreign = false;        // it carried SONiC or protobuf updates (tables = VRF ids)
    bool _conn_detached = false;       // routes a restart's sweep keeps were detached for it
    std::vector<uint32_t> _rib_pids;   // of the connection whose replay was swept last
    // A connection of another zebra (or dialect) fed the RIB and ended before its sweep: the next
    // sweep must have that connection's scope (full, or a restart's) even if the zebra before
    // it comes back.
    bool _sweep_owed = false;
    sweep_scope _owed_scope = sweep_scope::full;
    std::string _owed_reason;
};

std::string endpoint_text(const tcp::endpoint& ep);

}  // namespace fpm
