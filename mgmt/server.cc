// GCC 12 at -O2 warns that Boost.Asio's scheduler::compensating_work_started() may
// dereference a null thread_info (inlined from a system header; the pointer is set on every
// path that reaches it). Middle-end warnings cannot be scoped to the header, so the TU opts out.
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include "mgmt/server.hh"

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <list>
#include <system_error>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "util/log.hh"

namespace mgmt {
namespace asio = boost::asio;
using local = asio::local::stream_protocol;

namespace {
class connection;
}  // namespace

namespace detail {

struct server_state : std::enable_shared_from_this<server_state> {
    server_state(asio::io_context& io_, std::string path_, handler h, server_options o)
        : io(io_), path(std::move(path_)), handle(std::move(h)), opt(o), acceptor(io_), retry(io_) {}

    asio::io_context& io;
    std::string path;
    handler handle;
    server_options opt;
    local::acceptor acceptor;
    asio::steady_timer retry;
    std::list<std::weak_ptr<connection>> conns;
    bool closed = false;
    size_t evicted = 0;
    gid_t gid = static_cast<gid_t>(-1);  // the socket's group; -1: the daemon's own
    bool made_dir = false;  // the socket's directory is ours: its group follows the socket's
    dev_t dev = 0;  // identity of the socket file we created, so close() removes only ours
    ino_t ino = 0;
    // One log line per kind of client misbehaviour per interval, however many clients misbehave.
    util::rate_limit log_framing, log_parse, log_handler, log_accept, log_limit;

    void accept();
    void on_accept(const boost::system::error_code& ec, local::socket s);
    size_t live();
    void make_room();
};

}  // namespace detail

namespace {

std::system_error path_error(std::error_code ec, const std::string& what, const std::string& path) {
    return std::system_error(ec, fmt::format("mgmt socket {}: {}", path, what));
}

std::system_error path_error(const boost::system::error_code& ec, const std::string& what, const std::string& path) {
    return path_error(std::error_code(ec.value(), std::system_category()), what, path);
}

pb::Response error_response(std::string text) {
    pb::Response r;
    r.set_error(std::move(text));
    return r;
}

// One client connection: read requests, answer each in order, one at a time: a request is
// answered and its answer written before the next one is taken, and the socket is read only
// when no complete request is waiting. Each step is a handler of its own, so a client that
// pipelines thousands of requests gets one answered per turn of the io_context, between the FPM
// reads and everybody else's; what it queued stays in its socket (backpressure), and srv6d holds
// at most one read buffer, one request and one answer (or one part of a streamed one) of it.
class connection : public std::enable_shared_from_this<connection> {
public:
    connection(std::shared_ptr<detail::server_state> st, local::socket s)
        : _st(std::move(st)), _sock(std::move(s)), _timer(_st->io), _reader(_st->opt.max_request) {}

    void start() {
        arm_timer();
        read();
    }

    void stop() {
        _timer.cancel();
        boost::system::error_code ignored;
        _sock.close(ignored);
    }

    // Waiting for a request, none begun: the first to go when room is needed.
    bool idle() const { return _out.empty() && !_next && _reader.buffered() == 0; }
    std::chrono::steady_clock::time_point last_active() const { return _last_active; }

private:
    void arm_timer() {
        _last_active = std::chrono::steady_clock::now();
        _timer.expires_after(_st->opt.idle_timeout);
        _timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
            if (ec)
                return;  // cancelled: the connection made progress or is closing
            util::log(util::level::debug, "mgmt: closing idle connection");
            self->stop();
        });
    }

    void read() {
        _sock.async_read_some(asio::buffer(_buf), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                              size_t n) {
            if (ec) {
                self->stop();  // EOF: the client is done; anything else: nothing left to answer
                return;
            }
            self->on_data(n);
        });
    }

    void on_data(size_t n) {
        if (_st->closed) {
            stop();  // the server closed while this read was completing
            return;
        }
        _reader.feed(std::string_view(_buf.data(), n));
        serve();
    }

    // One request, then its answer's write; the write's completion comes back here.
    void serve() {
        if (auto body = _reader.next()) {
            arm_timer();
            answer(*body);
            write();
            return;
        }
        if (const auto len = _reader.oversize()) {
            log_limited(_st->log_framing, util::level::warn,
                        "mgmt: request of {} bytes exceeds the {}-byte limit; closing the connection", *len,
                        _st->opt.max_request);
            append(error_response(fmt::format("request of {} bytes exceeds the {}-byte limit", *len,
                                              _st->opt.max_request)));
            _closing = true;  // the rest of the stream cannot be framed
            write();
            return;
        }
        read();
    }

    void answer(std::string_view body) {
        pb::Request req;
        if (!req.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
            log_limited(_st->log_parse, util::level::warn, "mgmt: request of {} bytes does not parse",
                        body.size());
            append(error_response("malformed request: not a srv6d.wire.mgmt.Request"));
            return;
        }
        try {
            reply r = _st->handle(req);
            r.first.set_more(static_cast<bool>(r.next));
            _next = std::move(r.next);
            append(r.first);
        } catch (const std::exception& e) {
            failed(e);
        }
    }

    // The next part of a streamed answer, in a turn of its own (the previous part is written).
    void next_part() {
        arm_timer();
        pb::Response part;
        try {
            const bool more = _next(part);
            if (!more)
                _next = nullptr;
            part.set_more(more);
            append(part);
        } catch (const std::exception& e) {
            failed(e);
        }
        write();
    }

    void failed(const std::exception& e) {
        _next = nullptr;
        log_limited(_st->log_handler, util::level::error, "mgmt: request failed: {}", e.what());
        append(error_response(fmt::format("internal error: {}", e.what())));
    }

    void append(const pb::Response& r) {
        if (encode_frame(r, _out, _st->opt.max_message))
            return;
        const std::string why = fmt::format("response of {} bytes exceeds the {}-byte limit", r.ByteSizeLong(),
                                            _st->opt.max_message);
        log_limited(_st->log_handler, util::level::error, "mgmt: {}", why);
        _next = nullptr;  // the answer ends with the error
        encode_frame(error_response(why), _out, _st->opt.max_message);
    }

    void write() {
        asio::async_write(_sock, asio::buffer(_out), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                                 size_t) {
            self->_out.clear();
            if (ec || self->_closing || self->_st->closed) {
                self->stop();
                return;
            }
            if (self->_next) {
                self->next_part();  // the buffer keeps its capacity for the next part
                return;
            }
            self->_out.shrink_to_fit();  // a large answer's buffer does not stay with an idle client
            self->serve();
        });
    }

    std::shared_ptr<detail::server_state> _st;
    local::socket _sock;
    asio::steady_timer _timer;
    frame_reader _reader;
    std::array<char, 64 * 1024> _buf{};
    std::string _out;
    continuation _next;  // the rest of a streamed answer
    bool _closing = false;
    std::chrono::steady_clock::time_point _last_active{};
};

// A socket file nobody accepts on is left over from a daemon that died; one that accepts
// belongs to a running daemon, which we must not steal it from.
void remove_stale(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT)
            return;
        throw path_error(std::error_code(errno, std::system_category()), "cannot stat", path);
    }
    if (!S_ISSOCK(st.st_mode))
        throw path_error(std::make_error_code(std::errc::file_exists), "exists and is not a socket", path);
    asio::io_context probe_io;
    local::socket probe(probe_io);
    boost::system::error_code ec;
    probe.connect(local::endpoint(path), ec);
    if (!ec)
        throw path_error(std::make_error_code(std::errc::address_in_use), "another process is serving it", path);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        throw path_error(std::error_code(errno, std::system_category()), "cannot remove stale socket", path);
    util::log(util::level::info, "mgmt: removed stale socket {}", path);
}

std::string group_name(gid_t gid) {
    group gr{};
    group* found = nullptr;
    std::array<char, 4096> buf{};
    if (::getgrgid_r(gid, &gr, buf.data(), buf.size(), &found) == 0 && found)
        return found->gr_name;
    return std::to_string(gid);
}

// A name or a gid; -1 for "" and for a group this host does not have (logged: the socket then
// keeps the daemon's own group, which is the safe side).
gid_t resolve_group(const std::string& name) {
    if (name.empty())
        return static_cast<gid_t>(-1);
    gid_t gid = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), gid);
    if (ec == std::errc{} && end == name.data() + name.size())
        return gid;
    group gr{};
    group* found = nullptr;
    std::array<char, 4096> buf{};
    if (::getgrnam_r(name.c_str(), &gr, buf.data(), buf.size(), &found) == 0 && found)
        return found->gr_gid;
    util::log(util::level::warn, "mgmt: no group '{}' on this host (mgmt.group): the socket keeps srv6d's own group",
              name);
    return static_cast<gid_t>(-1);
}

// A directory we create holds the socket only: root's, the socket's group may enter it (0750),
// nobody else may even look. One that exists is left as it is (it may be shared, like /run).
bool make_parent(const std::filesystem::path& dir, gid_t gid, const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec))
        return false;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw path_error(ec, fmt::format("cannot create directory {}", dir.string()), path);
    if (::chmod(dir.c_str(), gid != static_cast<gid_t>(-1) ? 0750 : 0700) != 0 ||
        (gid != static_cast<gid_t>(-1) && ::chown(dir.c_str(), static_cast<uid_t>(-1), gid) != 0))
        throw path_error(std::error_code(errno, std::system_category()),
                         fmt::format("cannot set the owner of directory {}", dir.string()), path);
    return true;
}

}  // namespace

namespace detail {

size_t server_state::live() {
    conns.remove_if([](const std::weak_ptr<connection>& w) { return w.expired(); });
    return conns.size();
}

void server_state::accept() {
    acceptor.async_accept([self = shared_from_this()](const boost::system::error_code& ec, local::socket s) {
        self->on_accept(ec, std::move(s));
    });
}

void server_state::on_accept(const boost::system::error_code& ec, local::socket s) {
    if (closed || ec == asio::error::operation_aborted)
        return;
    if (ec) {
        // EMFILE and friends: keep serving once the condition passes, without spinning on it.
        log_limited(log_accept, util::level::warn, "mgmt: accept on {} failed: {}", path, ec.message());
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
            if (!e && !self->closed)
                self->accept();
        });
        return;
    }
    while (opt.max_connections && live() >= opt.max_connections)
        make_room();
    auto c = std::make_shared<connection>(shared_from_this(), std::move(s));
    conns.push_back(c);
    c->start();
    accept();
}

// The newcomer is most likely an srv6ctl about to send its request: close the connection idle
// the longest, or, when every one is in a request, the one quiet the longest.
void server_state::make_room() {
    std::shared_ptr<connection> victim;
    for (const auto& w : conns) {
        auto c = w.lock();
        if (!c)
            continue;
        if (!victim || (c->idle() && !victim->idle()) ||
            (c->idle() == victim->idle() && c->last_active() < victim->last_active()))
            victim = std::move(c);
    }
    if (!victim)
        return;
    ++evicted;
    log_limited(log_limit, util::level::warn, "mgmt: {} connections open (mgmt.max-clients): closing one {} for {} ms",
                conns.size(), victim->idle() ? "idle" : "in a request",
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                      victim->last_active())
                    .count());
    victim->stop();
    conns.remove_if([&](const std::weak_ptr<connection>& w) { return w.lock() == victim; });
}

}  // namespace detail

server::server(asio::io_context& io, std::string path, handler h, server_options opt)
    : _state(std::make_shared<detail::server_state>(io, std::move(path), std::move(h), opt)) {
    auto& st = *_state;
    if (!st.handle)
        throw std::invalid_argument("mgmt::server needs a handler");
    st.gid = resolve_group(st.opt.group);
    const std::filesystem::path p(st.path);
    if (p.has_parent_path())
        st.made_dir = make_parent(p.parent_path(), st.gid, st.path);
    remove_stale(st.path);

    boost::system::error_code ec;
    local::endpoint ep;
    try {
        ep = local::endpoint(st.path);
    } catch (const boost::system::system_error& e) {
        throw path_error(e.code(), "not usable as a socket path", st.path);  // longer than sun_path
    }
    if (st.acceptor.open(ep.protocol(), ec); ec)
        throw path_error(ec, "cannot create socket", st.path);
    // Root and the socket's group may ask; nobody else (the answers show the whole RIB). The
    // mode of the socket's inode becomes the file's at bind (less the umask): no window in which
    // others could connect.
    ::fchmod(st.acceptor.native_handle(), 0660);
    if (st.acceptor.bind(ep, ec); ec)
        throw path_error(ec, "cannot bind", st.path);
    struct stat sb {};
    if (::chmod(st.path.c_str(), 0660) != 0 || (st.gid != static_cast<gid_t>(-1) && ::chown(st.path.c_str(), static_cast<uid_t>(-1), st.gid) != 0) ||
        ::stat(st.path.c_str(), &sb) != 0) {
        const std::error_code err(errno, std::system_category());
        ::unlink(st.path.c_str());
        throw path_error(err, "cannot set mode 0660 and the group", st.path);
    }
    st.dev = sb.st_dev;
    st.ino = sb.st_ino;
    if (st.acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) {
        ::unlink(st.path.c_str());
        throw path_error(ec, "cannot listen", st.path);
    }
    util::log(util::level::info, "mgmt: listening on {} (mode 0660, group {}, at most {} clients)", st.path,
              group_name(sb.st_gid), st.opt.max_connections);
    st.accept();
}

server::~server() { close(); }

void server::close() {
    auto& st = *_state;
    if (st.closed)
        return;
    st.closed = true;
    boost::system::error_code ignored;
    st.acceptor.close(ignored);
    st.retry.cancel();
    for (auto& w : st.conns)
        if (auto c = w.lock())
            c->stop();
    st.conns.clear();
    // Another daemon may have replaced the file since; only remove the one we bound.
    struct stat sb {};
    if (::lstat(st.path.c_str(), &sb) == 0 && sb.st_dev == st.dev && sb.st_ino == st.ino)
        ::unlink(st.path.c_str());
}

void server::set_max_connections(size_t n) {
    auto& st = *_state;
    st.opt.max_connections = n;
    while (n && st.live() > n)
        st.make_room();
}

void server::set_group(const std::string& name) {
    auto& st = *_state;
    if (name.empty()) {
        util::log(util::level::warn, "mgmt: mgmt.group emptied: the socket keeps group {} until a restart",
                  group_name(st.gid));
        return;
    }
    const gid_t gid = resolve_group(name);
    if (gid == static_cast<gid_t>(-1))
        return;  // logged; the group in force stays
    const std::filesystem::path p(st.path);
    if ((st.made_dir && (::chown(p.parent_path().c_str(), static_cast<uid_t>(-1), gid) != 0 ||
                         ::chmod(p.parent_path().c_str(), 0750) != 0)) ||
        ::chown(st.path.c_str(), static_cast<uid_t>(-1), gid) != 0) {
        util::log(util::level::error, "mgmt: cannot give {} to group {}: {}", st.path, name, std::strerror(errno));
        return;
    }
    st.gid = gid;
    st.opt.group = name;
    util::log(util::level::info, "mgmt: socket {} now of group {}", st.path, group_name(gid));
}

const std::string& server::path() const { return _state->path; }

size_t server::connections() const { return _state->live(); }

size_t server::evicted() const { return _state->evicted; }

}  // namespace mgmt
