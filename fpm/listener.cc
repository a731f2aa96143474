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

// Admitted connections read before their first frame, beside the active one: a bound, so that
// a flood of silent connections costs a fixed amount; the oldest goes for a newer one.
constexpr size_t max_pending = 8;

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

listener::impl::impl(asio::io_context& io, listener_options opts, rib::store& rib, ingest_stats& stats,
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
    while (!_pending.empty())
        drop_pending(_pending.front(), "srv6d is shutting down", true);
    if (_conn)
        close("srv6d is shutting down");
    _resync_timer.cancel();
}

void listener::impl::set_options(listener_options opts) {
    opts.address = _opts.address;
    opts.port = _opts.port;
    _opts = std::move(opts);
    for (const auto& c : std::vector<std::shared_ptr<connection>>(_pending))
        if (!still_admitted(_opts.admission, c->who))
            drop_pending(c, "no longer admitted after a reload");
    if (_conn && !still_admitted(_opts.admission, _conn->who)) {
        util::log(util::level::warn, "fpm: {} ({}) is no longer admitted (reload): closing zebra's connection; the RIB "
                  "keeps what it has", _conn->peer, to_string(_conn->who));
        close(fmt::format("{} no longer admitted after a reload", to_string(_conn->who)));
    }
    if (_conn && _session.resync_pending)
        arm_resync_timer();
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
    // First of all, before a single byte is read and whatever else is connected: a refused
    // peer feeds nothing, not even the framer, and is counted as such.
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
    add_pending(std::move(s), std::move(peer), a.who);
}

// Never on connect alone: the newcomer is read beside the active connection, and its first
// frame decides (first_frame). A probe that closes, or a squatter that never speaks, changes
// nothing.
void listener::impl::add_pending(tcp::socket s, std::string peer, peer_identity who) {
    set_keepalive(s);
    auto c = std::make_shared<connection>(std::move(s), std::move(peer), who, _io);
    c->admitted_at = c->last_frame = steady::now();
    ++_session.connections;
    if (_pending.size() >= max_pending) {
        // zebra sends its first frame right after connecting: the oldest is the likeliest squatter.
        ++_session.pending_evicted;
        drop_pending(_pending.front(), fmt::format("{} connections wait for their first frame: the oldest goes",
                                                   max_pending));
    }
    _pending.push_back(c);
    _session.pending = _pending.size();
    if (_conn)
        util::log(util::level::info,
                  "fpm: connection from {} ({}) admitted; {} ({}) stays zebra's unless the newcomer's first frame "
                  "is a valid replay or {} stays silent for fpm.takeover-idle-ms",
                  c->peer, to_string(who), _conn->peer, to_string(_conn->who), _conn->peer);
    else
        util::log(util::level::info, "fpm: connection from {} ({}) admitted; its first frame starts the replay",
                  c->peer, to_string(who));
    c->first_frame_timer.expires_after(_opts.first_frame_timeout);
    c->first_frame_timer.async_wait([self = shared_from_this(), c](const error_code& e) {
        if (e || self->_stopped || !self->is_pending(c))
            return;
        ++self->_session.first_frame_timeouts;
        self->drop_pending(c, fmt::format("no valid frame within {} ms", self->_opts.first_frame_timeout.count()));
    });
    read(c);
}

bool listener::impl::is_pending(const std::shared_ptr<connection>& c) const {
    return std::find(_pending.begin(), _pending.end(), c) != _pending.end();
}

void listener::impl::drop_pending(const std::shared_ptr<connection>& c, const std::string& why, bool quiet) {
    auto it = std::find(_pending.begin(), _pending.end(), c);
    if (it == _pending.end())
        return;
    _pending.erase(it);
    _session.pending = _pending.size();
    account_leftover(*c);
    error_code ignored;
    c->first_frame_timer.cancel();
    c->socket.shutdown(tcp::socket::shutdown_both, ignored);
    c->socket.close(ignored);
    if (c->bytes == 0)
        ++_session.probes;
    if (!quiet)
        log_limited(_probe_log, util::level::info, "fpm: connection from {} ({}) closed before it became zebra's ({}): "
                    "nothing changed", c->peer, to_string(c->who), why);
}

std::string listener::impl::takeover_reason(const connection& c, bool proof, size_t updates,
                                            std::optional<uint32_t> pid) const {
    if (!_conn)
        return "no other connection is zebra's";
    if (!proof)
        return {};
    const std::string valid = fmt::format("its first frame is a valid replay ({} updates{}, no decode error)", updates,
                                          pid ? fmt::format(", nlmsg_pid {}", *pid) : std::string{});
    if (!_conn->proven)
        return fmt::format("{}, the active connection's stream is not", valid);
    if (c.who == _conn->who)
        return fmt::format("{}, same {} (zebra restarted, or its connection broke)", valid,
                           c.who.local ? "user" : "address");
    const auto idle = steady::now() - _conn->last_frame;
    if (idle >= _opts.takeover_idle)
        return fmt::format("{}, the active connection sent no valid frame for {} ms (fpm.takeover-idle-ms {})", valid,
                           std::chrono::duration_cast<std::chrono::milliseconds>(idle).count(),
                           _opts.takeover_idle.count());
    return {};
}

// Evidence, not arrival: the first frame with a payload of a pending connection is decoded on
// its own and proves a replay's start when it decodes without an error into updates, from a
// netlink port id (or as a SONiC/protobuf stream). It makes the connection zebra's when there is
// none; otherwise only with that proof, and only if the active connection is not proven itself,
// is of the same identity (a restarted zebra, a half-open connection), or has been silent past
// fpm.takeover-idle-ms. A newcomer that does not qualify is closed, its frame changed nothing.
void listener::impl::first_frame(const std::shared_ptr<connection>& c) {
    while (const auto frame = c->frames.next()) {
        if (frame->size() <= fpm_header_size) {  // a header alone: counted, decides nothing
            _batch.clear();
            decode_frame(*frame, _ctx, _batch);
            continue;
        }
        const uint64_t errors_before = _ctx.errors;
        _ctx.last_nlmsg_pid.reset();
        _batch.clear();
        decode_frame(*frame, _ctx, _batch);
        const uint64_t errors = _ctx.errors - errors_before;
        const auto pid = _ctx.last_nlmsg_pid;
        _ctx.last_nlmsg_pid.reset();
        const bool foreign =
            std::any_of(_batch.begin(), _batch.end(), [](const update& u) { return u.from != dialect::netlink; });
        const bool proof = errors == 0 && !_batch.empty() && (pid || foreign);
        const std::string why = takeover_reason(*c, proof, _batch.size(), pid);
        if (why.empty()) {
            ++_session.refused;
            const std::string what =
                proof ? fmt::format("its first frame is a valid replay, but {} ({}) is zebra's: proven, and its last "
                                    "frame {} ms ago (fpm.takeover-idle-ms {})",
                                    _conn->peer, to_string(_conn->who),
                                    std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() -
                                                                                          _conn->last_frame)
                                        .count(),
                                    _opts.takeover_idle.count())
                      : fmt::format("its first frame is no valid replay ({}), and {} ({}) is zebra's",
                                    errors ? fmt::format("{} decode errors", errors)
                                    : _batch.empty() ? std::string("no route or nexthop in it")
                                                     : std::string("no netlink port id"),
                                    _conn->peer, to_string(_conn->who));
            log_limited(_busy_log, util::level::warn, "fpm: refusing FPM connection from {} ({}): {}", c->peer,
                        to_string(c->who), what);
            drop_pending(c, "refused", true);
            return;
        }
        promote(c, why);
        c->proven = proof;
        _replay.errors += errors;
        _session.replay_errors = _replay.errors;
        if (pid)
            note_pid(*pid);
        frame_seen();
        if (!_batch.empty())
            apply(_batch);
        if (_stopped || c != _conn)
            return;
        process_frames();
        return;
    }
}

void listener::impl::promote(const std::shared_ptr<connection>& c, const std::string& why) {
    if (_conn) {
        ++_session.takeovers;
        util::log(util::level::warn, "fpm: connection from {} ({}) replaces the one from {} ({}): {}", c->peer,
                  to_string(c->who), _conn->peer, to_string(_conn->who), why);
        close(fmt::format("replaced by {} ({}): {}", c->peer, to_string(c->who), why));
    }
    _pending.erase(std::find(_pending.begin(), _pending.end(), c));
    _session.pending = _pending.size();
    c->first_frame_timer.cancel();
    c->talking = true;
    _conn = c;
    _session.connected = true;
    _session.talking = true;
    _session.peer = c->peer;
    _session.peer_identity = to_string(c->who);
    _session.connected_since = std::chrono::system_clock::now();
    _session.last_frame_at = {};
    _conn_pids.clear();
    _conn_foreign = false;
    _conn_detached = false;
    _session.zebra_pid.reset();
    util::log(util::level::info, "fpm: {} ({}) is zebra's connection ({}): replay expected, stale entries swept after "
              "it if it is plausible", c->peer, _session.peer_identity, why);
    start_session();
}

// This connection is zebra's replay now. A sweep pending from an earlier, interrupted
// connection is superseded: this replay starts it over.
void listener::impl::start_session() {
    _rib.begin_resync();
    _session.resync_pending = true;
    _replay = {};
    _session.replay_updates = _session.replay_errors = _session.replay_refused = 0;
    _connected_at = _last_rx = steady::now();
    arm_resync_timer();
}

void listener::impl::read(const std::shared_ptr<connection>& c) {
    c->socket.async_read_some(asio::buffer(c->buf), [self = shared_from_this(), c](const error_code& ec, size_t n) {
        self->on_read(c, ec, n);
    });
}

void listener::impl::on_read(const std::shared_ptr<connection>& c, const error_code& ec, size_t n) {
    if (_stopped)
        return;
    const bool active = c == _conn;
    if (!active && !is_pending(c))
        return;
    if (ec) {
        const std::string why = ec == asio::error::eof ? std::string("closed by peer") : ec.message();
        if (active)
            close(why);
        else
            drop_pending(c, why);
        return;
    }
    _stats.bytes_received += n;
    c->bytes += n;
    c->frames.feed(std::span<const uint8_t>(c->buf.data(), n));
    if (active) {
        _last_rx = steady::now();
        process_frames();
    } else {
        first_frame(c);
    }
    if (_stopped || (c != _conn && !is_pending(c)))  // refused, or a hook stopped the listener
        return;
    if (const auto lost = c->frames.lost()) {
        // The stream cannot be resynchronised: drop it; zebra reconnects in 3 s and replays.
        ++_session.framing_resets;
        _ctx.report(*lost, fmt::format("from {}", c->peer));
        util::log(util::level::warn, "fpm: framing lost on the connection from {} ({}): closing it", c->peer,
                  describe(*lost));
        if (c == _conn)
            close(fmt::format("framing lost: {}", name(*lost)));
        else
            drop_pending(c, fmt::format("framing lost: {}", name(*lost)), true);
        return;
    }
    read(c);
}

void listener::impl::frame_seen() {
    _conn->last_frame = steady::now();
    _session.last_frame_at = std::chrono::system_clock::now();
    if (_session.resync_pending)
        ++_replay.frames;
}

void listener::impl::process_frames() {
    while (const auto frame = _conn->frames.next()) {
        if (frame->size() > fpm_header_size)  // a valid frame (a header alone is counted below)
            frame_seen();
        decode_one(*frame);
        if (_stopped || !_conn)
            return;
    }
}

void listener::impl::decode_one(std::span<const uint8_t> frame) {
    const uint64_t errors_before = _ctx.errors;
    _batch.clear();
    decode_frame(frame, _ctx, _batch);
    if (_ctx.errors != errors_before)
        _conn->proven = false;
    if (_session.resync_pending) {
        _replay.errors += _ctx.errors - errors_before;
        _session.replay_errors = _replay.errors;
    }
    if (_ctx.last_nlmsg_pid) {
        note_pid(*_ctx.last_nlmsg_pid);
        _ctx.last_nlmsg_pid.reset();
    }
    if (!_batch.empty())
        apply(_batch);
}

void listener::impl::apply(std::vector<update>& batch) {
    for (const auto& u : batch)
        _conn_foreign |= u.from != dialect::netlink;
    if (_session.resync_pending) {
        _replay.updates += batch.size();
        _session.replay_updates = _replay.updates;
    }
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
    if (_session.resync_pending) {
        _replay.refused_routes += routes;
        _replay.refused_table_routes += table;
        _replay.refused_nexthops += nexthops;
        _session.replay_refused = _replay.refused_routes + _replay.refused_table_routes + _replay.refused_nexthops;
    }
    const auto& l = _rib.limits();
    log_limited(_limit_log, util::level::warn,
                "fpm: RIB full: refused {} routes (rib.max-routes {}), {} routes (rib.max-routes-per-table {}), {} "
                "nexthops (rib.max-nexthops {}) from {}; it holds {} routes ({} stale, not counted during a replay) "
                "and {} nexthop entries",
                routes, l.max_routes, table, l.max_routes_per_table, nexthops, l.max_nexthops, _conn->peer,
                _rib.routes().size(), _rib.stale_routes(), _rib.nexthop_entries());
}

// The bytes of an incomplete frame are dropped with the connection: count them.
void listener::impl::account_leftover(connection& c) {
    const size_t left = c.frames.buffered();
    if (left == 0)
        return;
    _stats.bytes_discarded += left;
    if (!c.frames.lost())  // a lost frame was reported with its own reason
        _ctx.report(reason::frame_truncated, fmt::format("{} bytes from {}", left, c.peer));
}

void listener::impl::close(const std::string& why) {
    if (!_conn)
        return;
    account_leftover(*_conn);
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

listener::listener(asio::io_context& io, listener_options opts, rib::store& rib, ingest_stats& stats,
                   session_info& session, listener_hooks hooks)
    : _impl(std::make_shared<impl>(io, std::move(opts), rib, stats, session, std::move(hooks))) {}

listener::~listener() { _impl->stop(); }

bool listener::start(std::string& error) { return _impl->start(error); }

void listener::stop() {
    asio::dispatch(_impl->io(), [i = _impl] { i->stop(); });
}

uint16_t listener::port() const { return _impl->port(); }

void listener::set_options(listener_options opts) { _impl->set_options(std::move(opts)); }

}  // namespace fpm
