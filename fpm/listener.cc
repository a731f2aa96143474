// Connections: accept, admission, takeover, reading and framing. The sweep is listener_sweep.cc.
#include "fpm/listener_impl.hh"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // see listener.hh
#include <boost/asio/dispatch.hpp>
#pragma GCC diagnostic pop

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>

#include "fpm/apply.hh"
#include "fpm/decoder.hh"
#include "fpm/update_text.hh"

namespace fpm {

namespace {

// zebra sends no keepalives. Without ours, a zebra host that vanished would leave a half-open
// connection that nothing detects while it is idle: probe after 30 s idle, give up after 3
// unanswered probes 10 s apart. (An admitted newcomer replaces it sooner: takeover_idle.)
constexpr int keepalive_idle_s = 30;
constexpr int keepalive_interval_s = 10;
constexpr int keepalive_count = 3;

// After a failed accept (EMFILE...), wait before retrying instead of spinning.
constexpr std::chrono::seconds accept_retry{1};

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

// An IPv4 peer of an IPv6 socket ("::" listens for both) shows as ::ffff:a.b.c.d; its own
// socket is AF_INET, and that is what sock_diag must be asked about.
tcp_end to_end(const tcp::endpoint& ep) {
    tcp_end e;
    e.port = ep.port();
    auto a = ep.address();
    if (a.is_v6() && a.to_v6().is_v4_mapped())
        a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    if (a.is_v4()) {
        const auto b = a.to_v4().to_bytes();
        e.addr.af = rib::family::ipv4;
        std::copy(b.begin(), b.end(), e.addr.bytes.begin());
    } else {
        const auto b = a.to_v6().to_bytes();
        e.addr.af = rib::family::ipv6;
        std::copy(b.begin(), b.end(), e.addr.bytes.begin());
    }
    return e;
}

}  // namespace

std::string endpoint_text(const tcp::endpoint& ep) {
    const auto a = ep.address();
    if (a.is_v6())
        return fmt::format("[{}]:{}", a.to_string(), ep.port());
    return fmt::format("{}:{}", a.to_string(), ep.port());
}

listener::impl::impl(asio::io_context& io, listener_options opts, rib::rib& rib, ingest_stats& stats,
                     session_info& session, listener_hooks hooks)
    : _io(io), _opts(std::move(opts)), _rib(rib), _stats(stats), _session(session), _hooks(std::move(hooks)),
      _ctx(_stats), _acceptor(io), _resync_timer(io), _accept_timer(io) {}

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
    std::string users;
    if (_opts.admission.any_user)
        users = "any user";
    for (const uint32_t u : _opts.admission.uids)
        users += fmt::format("{}{}", users.empty() ? "" : ", ", to_string(peer_identity{true, u, {}}));
    std::string remotes;
    for (const auto& p : _opts.admission.remotes)
        remotes += fmt::format("{}{}", remotes.empty() ? "" : ", ", rib::to_string(p));
    util::log(util::level::info,
              "fpm: listening on {} (admitted: local processes of {}; remote peers {}; resync: sweep after {} ms "
              "quiet, at most {} ms after the first frame)",
              _session.listen, users.empty() ? "no user" : users, remotes.empty() ? "none" : remotes,
              _opts.resync_quiet.count(), _opts.resync_max.count());
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
        util::log_limited(_accept_errors, util::level::warn, "fpm: accept failed on {}: {}", _session.listen, ec.message());
        _accept_timer.expires_after(accept_retry);
        _accept_timer.async_wait([self = shared_from_this()](const error_code& e) {
            if (!e && !self->_stopped)
                self->accept();
        });
        return;
    }
    accept();  // whatever becomes of this one
    error_code rec, lec;
    const auto remote = s.remote_endpoint(rec);
    const auto local = s.local_endpoint(lec);
    if (rec || lec) {  // reset before we looked: nothing to admit
        error_code ignored;
        s.close(ignored);
        return;
    }
    std::string peer = endpoint_text(remote);
    const tcp_end peer_end = to_end(remote);
    // Before a single byte is read: a refused peer feeds nothing, not even the framer.
    const admission a = admit(_opts.admission, peer_end, _finder.find(peer_end, to_end(local)));
    if (a.what != verdict::admitted) {
        switch (a.what) {
        case verdict::user_refused: ++_session.denied_user; break;
        case verdict::address_refused: ++_session.denied_address; break;
        default: ++_session.denied_unknown; break;
        }
        _session.last_denied = fmt::format("{}: {}", peer, a.why);
        log_limited(_denied_log, util::level::warn, "fpm: refused FPM connection from {}: {}", peer, a.why);
        error_code ignored;
        s.close(ignored);
        return;
    }
    if (_conn) {
        const std::string why = takeover_reason(a.who);
        if (why.empty()) {
            refuse_busy(s, peer, a.who);
            return;
        }
        ++_session.takeovers;
        util::log(util::level::warn, "fpm: connection from {} ({}) replaces the one from {} ({}): {}", peer,
                  to_string(a.who), _conn->peer, to_string(_conn->who), why);
        close(fmt::format("replaced by {} ({}): {}", peer, to_string(a.who), why));
    }
    begin(std::move(s), std::move(peer), a.who);
}

// zebra keeps one FPM connection; two writers would interleave their replays into one RIB. But
// the one we have may be a squatter, or the half-open remains of a zebra that is gone, which
// nothing else would free while it is silent: an admitted newcomer takes over in those cases.
std::string listener::impl::takeover_reason(const peer_identity& who) const {
    if (!_conn->talking)
        return "the active connection has sent no valid frame";
    if (who == _conn->who)
        return fmt::format("same {} (zebra restarted, or its connection broke)", who.local ? "user" : "address");
    const auto idle = steady::now() - _conn->last_frame;
    if (idle >= _opts.takeover_idle)
        return fmt::format("the active connection sent no valid frame for {} ms (fpm.takeover-idle-ms {})",
                           std::chrono::duration_cast<std::chrono::milliseconds>(idle).count(),
                           _opts.takeover_idle.count());
    return {};
}

void listener::impl::refuse_busy(tcp::socket& s, const std::string& peer, const peer_identity& who) {
    ++_session.refused;
    log_limited(_busy_log, util::level::warn,
                "fpm: refusing second FPM connection from {} ({}): {} ({}) is active and sent a frame {} ms ago", peer,
                to_string(who), _conn->peer, to_string(_conn->who),
                std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - _conn->last_frame).count());
    error_code ignored;
    s.close(ignored);
}

void listener::impl::begin(tcp::socket s, std::string peer, peer_identity who) {
    set_keepalive(s);
    _conn = std::make_shared<connection>(std::move(s), std::move(peer), who, _io);
    _conn->admitted_at = _conn->last_frame = steady::now();
    ++_session.connections;
    _session.connected = true;
    _session.talking = false;
    _session.peer = _conn->peer;
    _session.peer_identity = to_string(who);
    _session.connected_since = std::chrono::system_clock::now();
    _session.last_frame_at = {};
    _framer.reset();
    _conn_pids.clear();
    _conn_foreign = false;
    _conn_detached = false;
    _ctx.last_nlmsg_pid.reset();
    _session.zebra_pid.reset();
    util::log(util::level::info, "fpm: zebra connected from {} ({}); its first frame starts the replay", _conn->peer,
              _session.peer_identity);
    _conn->first_frame_timer.expires_after(_opts.first_frame_timeout);
    _conn->first_frame_timer.async_wait([self = shared_from_this(), c = _conn](const error_code& ec) {
        if (ec || self->_stopped || c != self->_conn || c->talking)
            return;
        ++self->_session.first_frame_timeouts;
        self->close(fmt::format("no valid frame within {} ms", self->_opts.first_frame_timeout.count()));
    });
    read(_conn);
}

// The first valid frame: this connection is zebra's replay. Until now it changed nothing, so a
// squatter that never speaks FPM neither marks the RIB stale nor gets it swept.
void listener::impl::start_session() {
    _conn->talking = true;
    _conn->first_frame_timer.cancel();
    _session.talking = true;
    // zebra now replays everything: whatever it does not replay is stale. A sweep pending from
    // an earlier, interrupted connection is superseded: this replay starts it over.
    _rib.begin_resync();
    _session.resync_pending = true;
    _connected_at = _last_rx = steady::now();
    util::log(util::level::info, "fpm: first frame from {}: replay expected, stale entries swept after it",
              _conn->peer);
    arm_resync_timer();
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
    _stats.bytes_received += n;
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
        if (frame->size() > fpm_header_size) {  // a valid frame (a header alone is counted below)
            if (!_conn->talking)
                start_session();
            _conn->last_frame = steady::now();
            _session.last_frame_at = std::chrono::system_clock::now();
        }
        _batch.clear();
        decode_frame(*frame, _ctx, _batch);
        if (_ctx.last_nlmsg_pid) {
            note_pid(*_ctx.last_nlmsg_pid);
            _ctx.last_nlmsg_pid.reset();
        }
        if (_batch.empty())
            continue;
        apply(_batch);
    }
}

void listener::impl::apply(std::vector<update>& batch) {
    for (const auto& u : batch)
        _conn_foreign |= u.from != dialect::netlink;
    detach_for_restart();
    update_detach();
    if (util::current_level() >= util::level::debug)
        for (const auto& u : batch)
            util::log(util::level::debug, "fpm: {}", to_string(u));
    // All updates of one frame together: an 8.4.4 DEL+NEW pair becomes one replace. The
    // contents move into the RIB (no copy of inline paths); keys and ids stay for the hook.
    const rib::rib_counters before = _rib.counters();
    apply_batch_consume(batch, _rib);
    note_limits(before);
    if (_hooks.on_batch_applied)
        _hooks.on_batch_applied(batch);
}

// What the RIB refused at its limits (rib::limits): counted there, logged here, rate-limited.
void listener::impl::note_limits(const rib::rib_counters& before) {
    const auto& now = _rib.counters();
    const uint64_t routes = now.refused_routes - before.refused_routes;
    const uint64_t table = now.refused_table_routes - before.refused_table_routes;
    const uint64_t nexthops = now.refused_nexthops - before.refused_nexthops;
    if (routes + table + nexthops == 0)
        return;
    const auto& l = _rib.limits();
    log_limited(_limit_log, util::level::warn,
                "fpm: RIB full: refused {} routes (rib.max-routes {}), {} routes (rib.max-routes-per-table {}), {} "
                "nexthops (rib.max-nexthops {}) from {}",
                routes, l.max_routes, table, l.max_routes_per_table, nexthops, l.max_nexthops, _conn->peer);
}

// The bytes of an incomplete frame are dropped with the connection: count them.
void listener::impl::account_leftover() {
    const size_t left = _framer.buffered();
    if (left == 0)
        return;
    _stats.bytes_discarded += left;
    if (!_framer.lost())  // a lost frame was reported with its own reason
        _ctx.report(reason::frame_truncated, fmt::format("{} bytes from {}", left, _conn->peer));
}

void listener::impl::close(const std::string& why) {
    if (!_conn)
        return;
    account_leftover();
    error_code ignored;
    _conn->first_frame_timer.cancel();
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
    _session.talking = false;
    _session.peer.clear();
    _session.peer_identity.clear();
    _session.last_disconnect_reason = why;
    // Before the sweep, the replay may be incomplete: sweeping now would remove routes zebra
    // still has. Keep everything (forwarding unchanged); the next connection resyncs again.
    util::log(util::level::info, "fpm: connection from {} ended ({}){}", peer, why,
              _session.resync_pending ? "; replay incomplete, nothing swept" : "");
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
