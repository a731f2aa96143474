// The management server and client over a real unix socket in a temporary directory.
// See mgmt/server.cc: GCC 12 false positive inside Boost.Asio's scheduler.
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <gtest/gtest.h>

#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include "mgmt/client.hh"
#include "mgmt/server.hh"
#include "tests/support/eventually.hh"

namespace mgmt {
namespace SRV6D_UNITY_ID {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A bare socket for what the client never does: dribble bytes, send garbage, not read.
class raw_conn {
public:
    explicit raw_conn(const std::string& path) : _fd(::socket(AF_UNIX, SOCK_STREAM, 0)) {
        sockaddr_un sa{};
        sa.sun_family = AF_UNIX;
        std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
        if (_fd < 0 || ::connect(_fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
            throw std::runtime_error("connect " + path + ": " + std::strerror(errno));
        timeval tv{2, 0};  // a hung server fails the test instead of hanging it
        ::setsockopt(_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    ~raw_conn() { ::close(_fd); }
    raw_conn(const raw_conn&) = delete;
    raw_conn& operator=(const raw_conn&) = delete;

    void write(std::string_view s) {
        while (!s.empty()) {
            const ssize_t n = ::send(_fd, s.data(), s.size(), MSG_NOSIGNAL);
            if (n <= 0)
                throw std::runtime_error("send failed");
            s.remove_prefix(static_cast<size_t>(n));
        }
    }
    // One framed response, or nullopt at EOF / timeout.
    std::optional<pb::Response> read_response() {
        char buf[4096];
        for (;;) {
            if (auto body = _rd.next()) {
                pb::Response r;
                if (!r.ParseFromArray(body->data(), static_cast<int>(body->size())))
                    throw std::runtime_error("response does not parse");
                return r;
            }
            const ssize_t n = ::recv(_fd, buf, sizeof buf, 0);
            if (n <= 0)
                return std::nullopt;
            _rd.feed(std::string_view(buf, static_cast<size_t>(n)));
        }
    }
    // True when the server closed the connection (as opposed to a timeout).
    bool closed_by_peer() {
        char c;
        return ::recv(_fd, &c, 1, 0) == 0;
    }

private:
    int _fd;
    frame_reader _rd;  // responses to pipelined requests may arrive in one read
};

std::string frame(const pb::Request& r) {
    std::string out;
    EXPECT_TRUE(encode_frame(r, out));
    return out;
}

pb::Request show_routes(uint32_t table) {
    pb::Request r;
    r.mutable_show_routes()->set_table(table);
    return r;
}

// Test handler: show fpm -> peer "p"; show routes table N -> one table N; table 666 throws;
// table 777 answers with a big error text.
pb::Response test_handler(const pb::Request& req) {
    pb::Response resp;
    if (req.has_show_fpm()) {
        resp.mutable_fpm()->set_peer("p");
    } else if (req.has_show_routes()) {
        if (req.show_routes().table() == 666)
            throw std::runtime_error("boom");
        if (req.show_routes().table() == 777)
            resp.set_error(std::string(2000, 'x'));
        else
            resp.mutable_routes()->add_tables()->set_table(req.show_routes().table());
    } else {
        resp.set_error("unknown");
    }
    return resp;
}

class ServerTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/srv6d-mgmt-test-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir = tmpl;
        path = dir + "/run/srv6d.sock";  // the server creates run/
    }
    void TearDown() override {
        stop();
        fs::remove_all(dir);
    }

    void start(server_options opt = {}) {
        srv = std::make_unique<server>(io, path, [this](const pb::Request& r) {
            ++calls;
            return test_handler(r);
        }, opt);
        thread = std::thread([this] { io.run(); });
    }
    void stop() {
        if (thread.joinable()) {
            boost::asio::post(io, [this] {
                srv->close();
                guard.reset();
                io.stop();
            });
            thread.join();
        }
        srv.reset();
    }

    std::string dir, path;
    boost::asio::io_context io;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard{io.get_executor()};
    std::unique_ptr<server> srv;
    std::thread thread;
    std::atomic<int> calls{0};

    // The server's count of open connections, read on its own thread.
    size_t open_connections() {
        std::promise<size_t> n;
        boost::asio::post(io, [&] { n.set_value(srv->connections()); });
        return n.get_future().get();
    }
};

TEST_F(ServerTest, SequentialRequestsOnOneConnection) {
    start();
    client c(path);
    ASSERT_TRUE(c.connect()) << c.error();
    pb::Request fpm;
    fpm.mutable_show_fpm();
    auto r = c.call(fpm);
    ASSERT_TRUE(r) << c.error();
    EXPECT_EQ(r->error(), "");
    EXPECT_EQ(r->fpm().peer(), "p");
    for (uint32_t t = 1; t <= 3; ++t) {
        r = c.call(show_routes(t));
        ASSERT_TRUE(r) << c.error();
        ASSERT_EQ(r->routes().tables_size(), 1);
        EXPECT_EQ(r->routes().tables(0).table(), t);
    }
    EXPECT_EQ(calls.load(), 4);
}

TEST_F(ServerTest, SocketFileModeAndParentDirectory) {
    start();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0660u);
    EXPECT_TRUE(fs::is_directory(dir + "/run"));
    EXPECT_EQ(srv->path(), path);
}

TEST_F(ServerTest, PipelinedRequestsAnsweredInOrder) {
    start();
    raw_conn c(path);
    c.write(frame(show_routes(1)) + frame(show_routes(2)) + frame(show_routes(3)));
    for (uint32_t t = 1; t <= 3; ++t) {
        const auto r = c.read_response();
        ASSERT_TRUE(r);
        EXPECT_EQ(r->routes().tables(0).table(), t);
    }
}

TEST_F(ServerTest, RequestDribbledByteByByte) {
    start();
    raw_conn c(path);
    const std::string wire = frame(show_routes(42));
    for (char b : wire) {
        c.write(std::string_view(&b, 1));
        std::this_thread::sleep_for(1ms);
    }
    const auto r = c.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->routes().tables(0).table(), 42u);
}

TEST_F(ServerTest, MalformedRequestGetsAnErrorAndTheConnectionGoesOn) {
    start();
    raw_conn c(path);
    c.write(std::string("\x00\x00\x00\x02\xff\xff", 6));  // an unterminated varint tag
    auto r = c.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->error(), "malformed request: not a srv6d.wire.mgmt.Request");
    c.write(frame(show_routes(9)));
    r = c.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->routes().tables(0).table(), 9u);
    EXPECT_EQ(calls.load(), 1);  // the handler never saw the garbage
}

TEST_F(ServerTest, OversizeRequestGetsAnErrorThenClose) {
    server_options opt;
    opt.max_request = 1024;
    start(opt);
    raw_conn c(path);
    c.write(std::string("\x00\x10\x00\x00", 4));  // announces 1 MiB
    const auto r = c.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->error(), "request of 1048576 bytes exceeds the 1024-byte limit");
    EXPECT_TRUE(c.closed_by_peer());
    EXPECT_EQ(calls.load(), 0);
}

// Issue 36: 32 clients each half-way through a 16 MiB request took RSS from 58 to 573 MB. A
// request's length is checked against max_request (64 KiB) before any of its body is kept.
TEST_F(ServerTest, ARequestBeyondTheRequestLimitIsRefusedAtItsHeader) {
    start();
    std::vector<std::unique_ptr<raw_conn>> conns;
    for (int i = 0; i < 32; ++i) {
        conns.push_back(std::make_unique<raw_conn>(path));
        conns.back()->write(std::string("\x01\x00\x00\x00", 4) + std::string(4096, 'x'));  // 16 MiB announced
    }
    for (auto& c : conns) {
        const auto r = c->read_response();
        ASSERT_TRUE(r);
        EXPECT_EQ(r->error(), "request of 16777216 bytes exceeds the 65536-byte limit");
        EXPECT_TRUE(c->closed_by_peer());
    }
    EXPECT_EQ(calls.load(), 0);
}

// Issue 36: 5 000 pipelined requests from one client held the control thread ~17 s (2 000 here,
// 1 ms each: the old server answered a whole 64 KiB read of them in one turn). Each request
// is now one turn of the io_context: a handler posted meanwhile (the FPM listener's next read)
// waits for one request at most, not for the client's whole queue.
TEST_F(ServerTest, APipelinedFloodDoesNotStarveTheLoop) {
    server_options opt;
    srv = std::make_unique<server>(io, path, [this](const pb::Request& r) {
        ++calls;
        const auto until = std::chrono::steady_clock::now() + 1ms;  // a show of some 1 000 routes
        while (std::chrono::steady_clock::now() < until) {
        }
        return test_handler(r);
    }, opt);
    thread = std::thread([this] { io.run(); });
    constexpr int n = 2000;
    raw_conn c(path);
    std::string wire;
    for (int i = 0; i < n; ++i)
        wire += frame(show_routes(1));
    std::thread writer([&] { c.write(wire); });
    std::thread reader([&] {
        for (int i = 0; i < n; ++i)
            if (!c.read_response())
                break;
    });
    // Probes of the loop's latency while the flood is served, as an FPM read would see it.
    std::chrono::nanoseconds worst{0};
    std::vector<std::chrono::nanoseconds> waits;
    int probes = 0;
    while (calls.load() < n - 50) {
        std::promise<std::chrono::steady_clock::time_point> ran;
        const auto t0 = std::chrono::steady_clock::now();
        boost::asio::post(io, [&ran] { ran.set_value(std::chrono::steady_clock::now()); });
        waits.push_back(ran.get_future().get() - t0);
        worst = std::max(worst, waits.back());
        ++probes;
        std::this_thread::sleep_for(5ms);
    }
    writer.join();
    reader.join();
    // The 95th percentile is bounded: the worst also holds the machine's own preemptions (this
    // runs beside other builds on 2 cores); before the fix nearly every probe waited seconds.
    std::sort(waits.begin(), waits.end());
    const auto p95 = waits.empty() ? std::chrono::nanoseconds{0} : waits[waits.size() * 95 / 100];
    std::printf("%d pipelined requests of 1 ms each: %d loop probes, wait p95 %.2f ms, worst %.2f ms\n", n, probes,
                std::chrono::duration<double, std::milli>(p95).count(),
                std::chrono::duration<double, std::milli>(worst).count());
    EXPECT_EQ(calls.load(), n);
    EXPECT_GT(probes, 10);
    EXPECT_LT(p95, 100ms);
}

TEST_F(ServerTest, HandlerExceptionBecomesAnErrorResponse) {
    start();
    client c(path);
    ASSERT_TRUE(c.connect());
    auto r = c.call(show_routes(666));
    ASSERT_TRUE(r) << c.error();
    EXPECT_EQ(r->error(), "internal error: boom");
    r = c.call(show_routes(1));
    ASSERT_TRUE(r) << c.error();
    EXPECT_EQ(r->error(), "");
}

TEST_F(ServerTest, OversizeResponseBecomesAnErrorResponse) {
    server_options opt;
    opt.max_message = 1024;
    start(opt);
    client c(path);
    ASSERT_TRUE(c.connect());
    const auto r = c.call(show_routes(777));
    ASSERT_TRUE(r) << c.error();
    EXPECT_EQ(r->error(), "response of 2003 bytes exceeds the 1024-byte limit");
}

TEST_F(ServerTest, StaleSocketFileIsReplaced) {
    fs::create_directories(dir + "/run");
    {  // a socket file left behind by a dead daemon: bound, never unlinked
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un sa{};
        sa.sun_family = AF_UNIX;
        std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
        ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
        ::close(fd);
    }
    ASSERT_TRUE(fs::is_socket(path));
    start();
    client c(path);
    ASSERT_TRUE(c.connect()) << c.error();
    EXPECT_TRUE(c.call(show_routes(1)));
}

TEST_F(ServerTest, LiveSocketIsNotStolen) {
    start();
    boost::asio::io_context other;
    try {
        server second(other, path, test_handler);
        FAIL() << "a second server took over a live socket";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find("another process is serving it"), std::string::npos) << e.what();
    }
    client c(path);
    ASSERT_TRUE(c.connect()) << c.error();
    EXPECT_TRUE(c.call(show_routes(1)));
}

TEST_F(ServerTest, OtherFilesAreNeverRemoved) {
    fs::create_directories(dir + "/run");
    std::ofstream(path) << "precious";
    EXPECT_THROW(server(io, path, test_handler), std::system_error);
    std::ifstream in(path);
    std::string content;
    in >> content;
    EXPECT_EQ(content, "precious");
}

TEST_F(ServerTest, BadArguments) {
    EXPECT_THROW(server(io, path, handler{}), std::invalid_argument);
    EXPECT_THROW(server(io, dir + "/" + std::string(120, 'a'), test_handler), std::system_error);  // > sun_path
}

TEST_F(ServerTest, CloseRemovesTheSocketFile) {
    start();
    ASSERT_TRUE(fs::exists(path));
    stop();
    EXPECT_FALSE(fs::exists(path));
    client c(path);
    EXPECT_FALSE(c.connect());
    EXPECT_EQ(c.error(), "cannot connect to srv6d at " + path + ": No such file or directory");
}

TEST_F(ServerTest, ClientTimesOutOnASilentServer) {
    // A listening socket nobody serves: the kernel completes the connect, no answer comes.
    fs::create_directories(dir + "/run");
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    ASSERT_EQ(::listen(fd, 4), 0);
    client c(path, 200ms);
    ASSERT_TRUE(c.connect()) << c.error();
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(c.call(show_routes(1)));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
    EXPECT_EQ(c.error(), "no answer from srv6d at " + path + " within 200 ms");
    EXPECT_FALSE(c.call(show_routes(1)));  // the connection was dropped
    EXPECT_EQ(c.error(), "not connected to srv6d at " + path);
    ::close(fd);
}

TEST_F(ServerTest, IdleConnectionIsClosed) {
    server_options opt;
    opt.idle_timeout = 100ms;
    start(opt);
    raw_conn c(path);
    EXPECT_TRUE(c.closed_by_peer());
}

// The case: forty idle connections, then srv6ctl. The idle ones make room.
TEST_F(ServerTest, IdleConnectionsMakeRoomForANewClient) {
    server_options opt;
    opt.max_connections = 4;
    start(opt);
    std::vector<std::unique_ptr<raw_conn>> idle;
    for (int i = 0; i < 40; ++i)
        idle.push_back(std::make_unique<raw_conn>(path));
    client c(path);
    ASSERT_TRUE(c.connect()) << c.error();
    const auto r = c.call(show_routes(5));
    ASSERT_TRUE(r) << c.error();
    EXPECT_EQ(r->routes().tables(0).table(), 5u);
    // The oldest idle ones went first; never more than the bound at once.
    EXPECT_TRUE(idle.front()->closed_by_peer());
    std::promise<std::pair<size_t, size_t>> counts;
    boost::asio::post(io, [&] { counts.set_value({srv->connections(), srv->evicted()}); });
    const auto [open, evicted] = counts.get_future().get();
    EXPECT_LE(open, 4u);
    EXPECT_GE(evicted, 37u);
}

TEST_F(ServerTest, AConnectionInARequestGoesAfterTheIdleOnes) {
    server_options opt;
    opt.max_connections = 2;
    start(opt);
    raw_conn busy(path);
    const std::string wire = frame(show_routes(7));
    busy.write(std::string_view(wire).substr(0, 3));  // a request begun
    ASSERT_TRUE(test_support::eventually([&] { return open_connections() == 1; }));
    raw_conn idle(path);  // newer, but idle
    ASSERT_TRUE(test_support::eventually([&] { return open_connections() == 2; }));
    raw_conn newcomer(path);  // room is made: the idle one goes
    EXPECT_TRUE(idle.closed_by_peer());
    busy.write(std::string_view(wire).substr(3));
    const auto r = busy.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->routes().tables(0).table(), 7u);
    newcomer.write(frame(show_routes(8)));
    const auto r2 = newcomer.read_response();
    ASSERT_TRUE(r2);
    EXPECT_EQ(r2->routes().tables(0).table(), 8u);
}

// The socket's group, and the directory srv6d creates for it: root's, the group may enter.
TEST_F(ServerTest, GroupOfTheSocketAndItsDirectory) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (chown to another group)";
    server_options opt;
    opt.group = "1";  // a gid: "daemon" on Debian, whatever its name
    start(opt);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_gid, 1u);
    EXPECT_EQ(st.st_mode & 07777, 0660u);
    ASSERT_EQ(::stat((dir + "/run").c_str(), &st), 0);
    EXPECT_EQ(st.st_gid, 1u);
    EXPECT_EQ(st.st_mode & 07777, 0750u);
}

TEST_F(ServerTest, UnknownGroupKeepsTheDaemonsOwn) {
    server_options opt;
    opt.group = "no-such-group-srv6d";
    start(opt);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_gid, ::getegid());
    EXPECT_EQ(st.st_mode & 07777, 0660u);
    ASSERT_EQ(::stat((dir + "/run").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700u);  // nobody else may look in
}

// An operator who is not root: a process of uid 65534, in the socket's group or not, asks
// "show routes" as srv6ctl would. Exit status: 0 answered, 1 connect refused with EACCES, 2 no
// answer, 3 could not become that user, 4 another connect error. A forked child, so only
// async-signal-safe calls (the request is encoded before the fork).
int ask_as(uid_t uid, const gid_t* groups, size_t ngroups, const std::string& path, const std::string& wire) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::setgroups(ngroups, groups) != 0 || ::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0)
            ::_exit(3);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
            ::_exit(errno == EACCES ? 1 : 4);
        if (::send(fd, wire.data(), wire.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(wire.size()))
            ::_exit(2);
        pollfd p{fd, POLLIN, 0};
        char b[64];
        ::_exit(::poll(&p, 1, 5000) > 0 && ::recv(fd, b, sizeof b, 0) > 0 ? 0 : 2);
    }
    int st = 0;
    if (pid < 0 || ::waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

TEST_F(ServerTest, AGroupMemberMayAskAndANonMemberMayNot) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (to run processes as another user)";
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);  // mkdtemp's 0700 would stop everyone but root
    server_options opt;
    opt.group = "1";
    start(opt);
    const std::string wire = frame(show_routes(3));
    const gid_t member[] = {1};
    EXPECT_EQ(ask_as(65534, member, 1, path, wire), 0) << "a member of the socket's group was not answered";
    EXPECT_EQ(ask_as(65534, nullptr, 0, path, wire), 1) << "a non-member reached the socket";
    EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace mgmt
