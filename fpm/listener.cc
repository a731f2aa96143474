#include "fpm/listener.hh"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // see listener.hh
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#pragma GCC diagnostic pop

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <vector>

#include "fpm/apply.hh"
#include "fpm/decoder.hh"
#include "fpm/framer.hh"
#include "fpm/update_text.hh"
#include "util/log.hh"

namespace fpm {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using steady = std::chrono::steady_clock;

namespace {

// One read can take a whole maximum-size frame (FRR >= 10.4 sends up to 64 KiB).
constexpr size_t read_buffer_size = 64 * 1024;

// zebra sends no keepalives. Without ours, a zebra host that vanished would leave a half-open
// connection that blocks every reconnect (one connection at a time): probe after 30 s idle,
// give up after 3 unanswered probes 10 s apart.
constexpr int keepalive_idle_s = 30;
constexpr int keepalive_interval_s = 10;
constexpr int keepalive_count = 3;

// After a failed accept (EMFILE...), wait before retrying instead of spinning.
constexpr std::chrono::seconds accept_retry{1};

// nlmsg_pids remembered per connection: `zebra -n` has one port id per netns. A bound only.
constexpr size_t max_pids = 8;

std::string endpoint_text(const tcp::endpoint& ep) {
    const auto a = ep.address();
    if (a.is_v6())
        return fmt::format("[{}]:{}", a.to_string(), ep.port());
    return fmt::format("{}:{}", a.to_string(), ep.port());
}

std::string strip_brackets(const std::string& s) {
    if (s.size() >= 2 && s.front() == '[' && s.back() == ']')
        return s.substr(1, s.size() - 2);
    return s;
}

void set_keepalive(tcp::socket& s) {
    error_code ec;
    s.set_option(asio::socket_base::keep_alive(true), ec);
    const int fd = s.native_handle();
    // Best effort: without these the kernel defaults (2 h) apply, which is still correct.
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &keepalive_idle_s, sizeof keepalive_idle_s);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &keepalive_interval_s, sizeof keepalive_interval_s);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &keepalive_count, sizeof keepalive_count);
}

}  // namespace

struct connection {
    explicit connection(tcp::socket s, std::string p) : socket(std::move(s)), peer(std::move(p)) {}
    tcp::socket socket;
    std::string peer;
    std::vector<uint8_t> buf = std::vector<uint8_t>(read_buffer_size);
};

class listener::impl : public std::enable_shared_from_this<listener::impl> {
public:
    impl(asio::io_context& io, listener_options opts, rib::rib& rib, ingest_stats& stats, session_info& session,
         listener_hooks hooks)
        : _io(io), _opts(std::move(opts)), _rib(rib), _stats(stats), _session(session), _hooks(std::move(hooks)),
          _ctx(_stats), _acceptor(io), _resync_timer(io), _accept_timer(io) {}

    bool start(std::string& error);
    void stop();
    asio::io_context& io() { return _io; }
    uint16_t port() const { return _port; }

private:
    void accept();
    void on_accept(const error_code& ec, tcp::socket s);
    void begin(tcp::socket s, std::string peer);
    void read(const std::shared_ptr<connection>& c);
    void on_read(const std::shared_ptr<connection>& c, const error_code& ec, size_t n);
    void process_frames();
    void close(const std::string& why);
    void arm_resync_timer();
    void on_resync_timer(const std::shared_ptr<connection>& c, const error_code& ec);
    steady::time_point sweep_deadline() const;
    void note_pid(uint32_t pid);
    void update_detach();
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

    asio::io_context& _io;
    listener_options _opts;
    rib::rib& _rib;
    ingest_stats& _stats;
    session_info& _session;
    listener_hooks _hooks;
    decode_ctx _ctx;
    tcp::acceptor _acceptor;
    asio::steady_timer _resync_timer;
    asio::steady_timer _accept_timer;
    uint16_t _port = 0;
    bool _stopped = false;

    std::shared_ptr<connection> _conn;  // the active connection; handlers of older ones see a mismatch
    framer _framer;
    std::vector<update> _batch;
    steady::time_point _connected_at{};
    steady::time_point _last_rx{};
    util::rate_limit _accept_errors;

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


bool listener::impl::start(std::string& error) {
    error_code ec;
    const std::string host = strip_brackets(_opts.address);
    const auto addr = asio::ip::make_address(host, ec);
    if (ec) {
        error = fmt::format("fpm: invalid listen address '{}': {}", _opts.address, ec.message());
        return false;
    }
    const tcp::endpoint ep(addr, _opts.port);
    const auto fail = [&](std::string_view step) {
        error = fmt::format("fpm: cannot {} {}: {}", step, endpoint_text(ep), ec.message());
        error_code ignored;
        _acceptor.close(ignored);
        return false;
    };
    if (_acceptor.open(ep.protocol(), ec); ec)
        return fail("open a socket for");
    // zebra reconnects within seconds of a restart: do not wait out TIME_WAIT of the old socket.
    if (_acceptor.set_option(asio::socket_base::reuse_address(true), ec); ec)
        return fail("set SO_REUSEADDR on");
    if (_acceptor.bind(ep, ec); ec)
        return fail("bind");
    if (_acceptor.listen(asio::socket_base::max_listen_connections, ec); ec)
        return fail("listen on");
    const auto local = _acceptor.local_endpoint(ec);
    _port = ec ? _opts.port : local.port();
    _session.listen = endpoint_text(tcp::endpoint(addr, _port));
    util::log(util::level::info, "fpm: listening on {} (resync: sweep after {} ms quiet, at most {} ms after connect)",
              _session.listen, _opts.resync_quiet.count(), _opts.resync_max.count());
    accept();
    return true;
}

void listener::impl::stop() {
    if (_stopped)
        return;
    _stopped = true;
    error_code ignored;
    _acceptor.close(ignored);
    _accept_timer.cancel();
    if (_conn)
        close("srv6d is shutting down");
    _resync_timer.cancel();
}

void listener::impl::accept() {
    _acceptor.async_accept([self = shared_from_this()](const error_code& ec, tcp::socket s) {
        self->on_accept(ec, std::move(s));
    });
}

void listener::impl::on_accept(const error_code& ec, tcp::socket s) {
    if (_stopped || ec == asio::error::operation_aborted)
        return;
    if (ec) {
        uint64_t held = 0;
        if (_accept_errors.allow(held))
            util::log(util::level::warn, "fpm: accept failed on {}: {} ({} more since last report)", _session.listen,
                      ec.message(), held);
        _accept_timer.expires_after(accept_retry);
        _accept_timer.async_wait([self = shared_from_this()](const error_code& e) {
            if (!e && !self->_stopped)
                self->accept();
        });
        return;
    }
    error_code pec;
    const auto remote = s.remote_endpoint(pec);
    std::string peer = pec ? std::string("unknown peer") : endpoint_text(remote);
    if (_conn) {
        // zebra keeps one FPM connection; a second one is a misconfiguration or a second zebra.
        // Two writers would interleave their replays into one RIB, so the first one keeps it.
        ++_session.refused;
        util::log(util::level::warn, "fpm: refusing second FPM connection from {}: {} is active", peer, _conn->peer);
        error_code ignored;
        s.close(ignored);
    } else {
        begin(std::move(s), std::move(peer));
    }
    accept();
}

void listener::impl::begin(tcp::socket s, std::string peer) {
    set_keepalive(s);
    _conn = std::make_shared<connection>(std::move(s), std::move(peer));
    ++_session.connections;
    _session.connected = true;
    _session.peer = _conn->peer;
    _session.connected_since = std::chrono::system_clock::now();
    _framer.reset();
    _conn_pids.clear();
    _conn_foreign = false;
    _conn_detached = false;
    _ctx.last_nlmsg_pid.reset();
    _session.zebra_pid.reset();
    // zebra now replays everything: whatever it does not replay is stale. A sweep pending from
    // an earlier, interrupted connection is superseded: this replay starts it over.
    _rib.begin_resync();
    _session.resync_pending = true;
    _connected_at = _last_rx = steady::now();
    util::log(util::level::info, "fpm: zebra connected from {}; replay expected, stale entries swept after it",
              _conn->peer);
    arm_resync_timer();
    read(_conn);
}

void listener::impl::read(const std::shared_ptr<connection>& c) {
    c->socket.async_read_some(asio::buffer(c->buf), [self = shared_from_this(), c](const error_code& ec, size_t n) {
        self->on_read(c, ec, n);
    });
}

void listener::impl::on_read(const std::shared_ptr<connection>& c, const error_code& ec, size_t n) {
    if (_stopped || c != _conn)
        return;
    if (ec) {
        close(ec == asio::error::eof ? std::string("closed by peer") : ec.message());
        return;
    }
    _last_rx = steady::now();
    _framer.feed(std::span<const uint8_t>(c->buf.data(), n));
    process_frames();
    if (_stopped || c != _conn)  // a hook stopped the listener
        return;
    if (const auto lost = _framer.lost()) {
        // The stream cannot be resynchronised: drop it; zebra reconnects in 3 s and replays.
        ++_session.framing_resets;
        _ctx.report(*lost, fmt::format("from {}", c->peer));
        util::log(util::level::warn, "fpm: framing lost on the connection from {} ({}): closing it", c->peer,
                  describe(*lost));
        close(fmt::format("framing lost: {}", name(*lost)));
        return;
    }
    read(c);
}

void listener::impl::process_frames() {
    while (const auto frame = _framer.next()) {
        _batch.clear();
        decode_frame(*frame, _ctx, _batch);
        if (_ctx.last_nlmsg_pid) {
            note_pid(*_ctx.last_nlmsg_pid);
            _ctx.last_nlmsg_pid.reset();
        }
        if (_batch.empty())
            continue;
        for (const auto& u : _batch)
            _conn_foreign |= u.from != dialect::netlink;
        if (!_conn_detached && _session.resync_pending && plan_sweep().scope == sweep_scope::restarted) {
            // A new zebra: before its first update, the routes its sweep will keep leave the old
            // zebra's nexthop ids, which it hands out again (docs/rib.md, detach_if).
            _conn_detached = true;
            const size_t n = _rib.detach_if([this](const rib::route& r) { return kept_after_restart(r); });
            util::log(util::level::info,
                      "fpm: a new zebra ({}): {} kernel routes of tables it does not replay keep their paths inline",
                      plan_sweep().reason, n);
        }
        update_detach();
        if (util::current_level() >= util::level::debug)
            for (const auto& u : _batch)
                util::log(util::level::debug, "fpm: {}", to_string(u));
        // All updates of one frame together: an 8.4.4 DEL+NEW pair becomes one replace. The
        // contents move into the RIB (no copy of inline paths); keys and ids stay for the hook.
        apply_batch_consume(_batch, _rib);
        if (_hooks.on_batch_applied)
            _hooks.on_batch_applied(_batch);
    }
}

void listener::impl::close(const std::string& why) {
    if (!_conn)
        return;
    error_code ignored;
    _conn->socket.shutdown(tcp::socket::shutdown_both, ignored);
    _conn->socket.close(ignored);
    const std::string peer = _conn->peer;
    _conn.reset();
    // What this connection applied stays in the RIB until the next sweep: if it came from
    // another zebra than the RIB's, that sweep cannot trust "same zebra" any more.
    if (_session.resync_pending && (!_conn_pids.empty() || _conn_foreign)) {
        auto plan = plan_sweep();
        if (plan.scope != sweep_scope::replayed_tables && !_sweep_owed) {
            _sweep_owed = true;
            _owed_scope = plan.scope;
            _owed_reason = fmt::format("{}, on an earlier connection", plan.reason);
        }
    }
    _resync_timer.cancel();
    _framer.reset();
    ++_session.disconnects;
    _session.connected = false;
    _session.peer.clear();
    _session.last_disconnect_reason = why;
    // Before the sweep, the replay may be incomplete: sweeping now would remove routes zebra
    // still has. Keep everything (forwarding unchanged); the next connection resyncs again.
    util::log(util::level::info, "fpm: connection from {} ended ({}){}", peer, why,
              _session.resync_pending ? "; replay incomplete, nothing swept" : "");
}

steady::time_point listener::impl::sweep_deadline() const {
    return std::min(_last_rx + _opts.resync_quiet, _connected_at + _opts.resync_max);
}

void listener::impl::arm_resync_timer() {
    _resync_timer.expires_at(sweep_deadline());
    _resync_timer.async_wait([self = shared_from_this(), c = _conn](const error_code& ec) {
        self->on_resync_timer(c, ec);
    });
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
    const auto plan = plan_sweep();
    const uint64_t kept_before = _rib.counters().kept_routes;
    size_t removed = 0;
    switch (plan.scope) {
    case sweep_scope::replayed_tables:
        removed = _rib.sweep([this](rib::table_id t) { return replayed(t); });
        break;
    case sweep_scope::restarted:
        // The kept routes left the old zebra's nexthop ids when the new one showed up (one that
        // could not is swept: the new zebra may be using its id for something else).
        removed = _rib.sweep_if([this](const rib::route& r) { return !kept_after_restart(r); },
                                rib::rib::keep_mode::inline_only);
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
    _rib_pids = _conn_pids;
    _sweep_owed = false;
    _owed_reason.clear();
    util::log(util::level::info, "fpm: replay from {} {}: {} sweep ({}): swept {} stale entries{}", c->peer,
              capped ? fmt::format("still going after {} ms (resync-max)", _opts.resync_max.count())
                     : fmt::format("quiet for {} ms", _opts.resync_quiet.count()),
              to_string(plan.scope), plan.reason, removed,
              _session.last_sweep_kept
                  ? fmt::format(", kept {} stale {}routes of tables zebra does not replay", _session.last_sweep_kept,
                                plan.scope == sweep_scope::restarted ? "kernel " : "")
                  : std::string{});
    if (_hooks.on_sweep)
        _hooks.on_sweep(removed);
}

void listener::impl::note_pid(uint32_t pid) {
    if (std::find(_conn_pids.begin(), _conn_pids.end(), pid) != _conn_pids.end() || _conn_pids.size() >= max_pids)
        return;
    _conn_pids.push_back(pid);
    if (!_session.zebra_pid)
        _session.zebra_pid = pid;
}

// A restarted zebra's nexthop ids are not its predecessor's: while the RIB holds the old
// zebra's stale state, the new zebra's redefinitions of those ids must not re-point the stale
// routes (rib::rib::set_detach_stale). Exactly when the coming sweep is a full or a restart one.
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

// --- listener

listener::listener(asio::io_context& io, listener_options opts, rib::rib& rib, ingest_stats& stats,
                   session_info& session, listener_hooks hooks)
    : _impl(std::make_shared<impl>(io, std::move(opts), rib, stats, session, std::move(hooks))) {}

listener::~listener() { _impl->stop(); }

bool listener::start(std::string& error) { return _impl->start(error); }

void listener::stop() {
    asio::dispatch(_impl->io(), [i = _impl] { i->stop(); });
}

uint16_t listener::port() const { return _impl->port(); }

}  // namespace fpm
