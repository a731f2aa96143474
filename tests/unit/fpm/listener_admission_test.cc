// Who may feed FPM, who takes over, and where every byte goes (issue 13), over real loopback TCP.
// A peer of another user is a real process: a child forked from the test drops to uid 65534
// (nobody) before it creates its socket, exactly as any local user's process would connect.
#include "fpm/listener.hh"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "fpm/admission.hh"
#include "listener_harness.hh"

namespace fpm {
namespace SRV6D_UNITY_ID {

using namespace listener_harness;
using namespace std::chrono_literals;
using bytes = std::vector<uint8_t>;
namespace nl = fpm::test;

constexpr uint32_t nobody = 65534;

uint64_t count(harness& h, reason r) {
    return h.on_io([&] { return h._stats.reasons[static_cast<size_t>(r)]; });
}

// Every byte received from an admitted peer is in a complete frame or discarded (no
// connection open: nothing buffered).
void expect_balanced(harness& h) {
    const auto s = h.on_io([&] { return h._stats; });
    EXPECT_EQ(s.bytes_received, s.bytes + s.bytes_discarded)
        << "received " << s.bytes_received << ", in frames " << s.bytes << ", discarded " << s.bytes_discarded;
}

listener_options quick_sweep() {
    listener_options o;
    o.resync_quiet = 300ms;
    o.resync_max = 60s;
    return o;
}

// A process of user `uid` (its group too) that connects to 127.0.0.1:port or [::1]:port,
// writes `stream` and then waits for the server to close the connection. Its exit status:
// 0 closed by the server, 1 still open after 10 s, 2 could not connect, 3 could not drop to
// `uid`. Only async-signal-safe calls in the child (the test process has threads).
class user_process {
public:
    user_process(uint32_t uid, bool v6, uint16_t port, const bytes& stream) {
        sockaddr_storage ss{};
        socklen_t len = 0;
        if (v6) {
            auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
            a->sin6_family = AF_INET6;
            a->sin6_port = htons(port);
            a->sin6_addr = in6addr_loopback;
            len = sizeof *a;
        } else {
            auto* a = reinterpret_cast<sockaddr_in*>(&ss);
            a->sin_family = AF_INET;
            a->sin_port = htons(port);
            a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            len = sizeof *a;
        }
        _pid = ::fork();
        if (_pid != 0)
            return;
        if (::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0 || ::geteuid() != uid)
            ::_exit(3);
        const int fd = ::socket(ss.ss_family, SOCK_STREAM, 0);
        if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0)
            ::_exit(2);
        size_t off = 0;
        while (off < stream.size()) {
            const ssize_t n = ::send(fd, stream.data() + off, stream.size() - off, MSG_NOSIGNAL);
            if (n <= 0)
                break;  // closed by the server under our feet: that is the answer too
            off += static_cast<size_t>(n);
        }
        pollfd p{fd, POLLIN, 0};
        for (int i = 0; i < 200; ++i) {
            if (::poll(&p, 1, 50) > 0) {
                uint8_t b[256];
                if (::recv(fd, b, sizeof b, 0) <= 0)
                    ::_exit(0);
            }
        }
        ::_exit(1);
    }
    ~user_process() {
        if (_pid > 0 && !_reaped) {
            ::kill(_pid, SIGKILL);
            ::waitpid(_pid, nullptr, 0);
        }
    }
    user_process(const user_process&) = delete;
    user_process& operator=(const user_process&) = delete;

    int exit_status() {
        int st = 0;
        _reaped = ::waitpid(_pid, &st, 0) == _pid;
        return _reaped && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }

private:
    pid_t _pid = -1;
    bool _reaped = false;
};

// --- admission

class Admission : public ::testing::TestWithParam<const char*> {};

TEST_P(Admission, ANobodyProcessIsRefusedAndRootsIsAdmitted) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (to run a process as nobody)";
    listener_options o = no_sweep_for_a_while();
    o.address = GetParam();
    harness h(o);  // admits root only (the harness: this process's user)
    const bool v6 = std::string(GetParam()) == "::1";
    const auto stream = c1();
    {
        user_process p(nobody, v6, h.port(), stream);
        EXPECT_EQ(p.exit_status(), 0) << "the server did not close nobody's connection";
    }
    ASSERT_TRUE(h.eventually([&] { return h._session.denied_user == 1; }));
    auto s = h.session();
    EXPECT_NE(s.last_denied.find("uid 65534"), std::string::npos) << s.last_denied;
    EXPECT_NE(s.last_denied.find("not in fpm.allow-user"), std::string::npos) << s.last_denied;
    EXPECT_EQ(s.connections, 0u);
    EXPECT_EQ(h.frames(), 0u);
    EXPECT_EQ(h.on_io([&] { return h._stats.bytes_received; }), 0u);  // not a byte was read
    EXPECT_EQ(h.on_io([&] { return h._rib.routes().size(); }), 0u);

    client root(GetParam(), h.port());
    ASSERT_TRUE(root.send(stream));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    s = h.session();
    EXPECT_EQ(s.connections, 1u);
    EXPECT_EQ(s.peer_identity, "uid 0 (root)");
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));
}

// "::" listens for IPv4 too: its IPv4 peers show as ::ffff:127.0.0.1, whose socket is AF_INET.
TEST(AdmissionDualStack, AnIpv4PeerOfAnIpv6ListenerIsLookedUpAsIpv4) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (to run a process as nobody)";
    listener_options o = no_sweep_for_a_while();
    o.address = "::";
    harness h(o);
    {
        user_process p(nobody, false, h.port(), c1());
        EXPECT_EQ(p.exit_status(), 0);
    }
    ASSERT_TRUE(h.eventually([&] { return h._session.denied_user == 1; }));
    EXPECT_EQ(h.session().denied_unknown, 0u);
    client root("127.0.0.1", h.port());
    ASSERT_TRUE(root.send(c1()));
    ASSERT_TRUE(h.wait_frames(c1_frames));
}

INSTANTIATE_TEST_SUITE_P(Loopback, Admission, ::testing::Values("127.0.0.1", "::1"),
                         [](const auto& i) { return std::string(i.param) == "::1" ? "v6" : "v4"; });

TEST(AdmissionPolicy, AllowedUserAndAnyAdmitANobodyProcess) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (to run a process as nobody)";
    for (const bool any : {false, true}) {
        listener_options o = no_sweep_for_a_while();
        if (any)
            o.admission.any_user = true;
        else
            o.admission.uids = {0, nobody};
        harness h(o);
        user_process p(nobody, false, h.port(), c1());
        ASSERT_TRUE(h.wait_frames(c1_frames)) << (any ? "any" : "uid list");
        EXPECT_EQ(h.session().peer_identity, "uid 65534 (nobody)");
        EXPECT_EQ(h.session().denied_user, 0u);
    }
}

TEST(AdmissionPolicy, RemotePeersByAddress) {
    admission_policy p;
    p.uids = {0};
    p.remotes = {*rib::parse_prefix("192.0.2.0/24"), *rib::parse_prefix("2001:db8::/32")};
    const auto end = [](const char* a) { return tcp_end{*rib::parse_addr(a), 40000}; };
    const peer_socket remote;  // absent: not a socket of this host
    EXPECT_EQ(admit(p, end("192.0.2.9"), remote).what, verdict::admitted);
    EXPECT_EQ(admit(p, end("2001:db8:1::2"), remote).what, verdict::admitted);
    const auto refused = admit(p, end("198.51.100.1"), remote);
    EXPECT_EQ(refused.what, verdict::address_refused);
    EXPECT_EQ(refused.why, "remote 198.51.100.1 is not in fpm.allow-address");
    // A loopback peer must be found in the socket table: without it, it is nobody's.
    EXPECT_EQ(admit(p, end("127.0.0.1"), remote).what, verdict::owner_unknown);
    EXPECT_EQ(admit(p, end("::1"), remote).what, verdict::owner_unknown);
    // A local process on a non-loopback address is still judged by its user.
    peer_socket mine{peer_socket::state::owned, 0, 1, {}};
    peer_socket theirs{peer_socket::state::owned, nobody, 1, {}};
    EXPECT_EQ(admit(p, end("198.51.100.1"), mine).what, verdict::admitted);
    EXPECT_EQ(admit(p, end("192.0.2.9"), theirs).what, verdict::user_refused);
    // A socket already closed shows uid 0 in TIME_WAIT: it must not pass for root's.
    peer_socket gone{peer_socket::state::orphaned, 0, 0, {}};
    EXPECT_EQ(admit(p, end("127.0.0.1"), gone).what, verdict::owner_unknown);
}

TEST(AdmissionPolicy, UserWords) {
    std::vector<std::string> missing;
    const auto p = resolve_users({"root", "4242", "no-such-user-here", "nobody"}, missing);
    EXPECT_FALSE(p.any_user);
    EXPECT_EQ(p.uids, (std::vector<uint32_t>{0, 4242, nobody}));
    EXPECT_EQ(missing, std::vector<std::string>{"no-such-user-here"});
    missing.clear();
    EXPECT_TRUE(resolve_users({"any"}, missing).any_user);
}

// --- every byte accounted

TEST(FramingAccounting, HeaderOnlyFrameIsCountedAndTheStreamGoesOn) {
    harness h(no_sweep_for_a_while());
    const auto stream = c1();
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(std::span(stream).first(44)));  // c1's first frame
    ASSERT_TRUE(c.send(nl::frame({})));
    ASSERT_TRUE(c.send(std::span(stream).subspan(44)));
    ASSERT_TRUE(h.wait_frames(c1_frames + 1));
    EXPECT_EQ(count(h, reason::frame_empty), 1u);
    rib::store expected;
    reference_rib(stream, expected);
    EXPECT_TRUE(h.on_io([&] { return h._rib.routes() == expected.routes(); }));
    c.close();
    ASSERT_TRUE(h.wait_connected(false));
    expect_balanced(h);
    EXPECT_EQ(h.on_io([&] { return h._stats.bytes_discarded; }), 0u);
}

TEST(FramingAccounting, AnIncompleteFrameAtTheEndIsCountedWithItsBytes) {
    for (const size_t tail : {size_t{2}, size_t{4}, size_t{30}}) {  // inside the header, after it
        harness h(no_sweep_for_a_while());
        const auto stream = c1();
        client c("127.0.0.1", h.port());
        ASSERT_TRUE(c.send(stream));
        ASSERT_TRUE(c.send(std::span(stream).first(tail)));  // the first frame is 44 bytes
        ASSERT_TRUE(h.wait_frames(c1_frames));
        ASSERT_TRUE(h.eventually([&] { return h._stats.bytes_received == stream.size() + tail; }));
        c.close();
        ASSERT_TRUE(h.wait_connected(false));
        EXPECT_EQ(count(h, reason::frame_truncated), 1u) << tail;
        EXPECT_EQ(h.on_io([&] { return h._stats.bytes_discarded; }), tail);
        expect_balanced(h);
    }
}

TEST(FramingAccounting, BytesAfterLostFramingAreDiscardedAndCounted) {
    harness h(no_sweep_for_a_while());
    const auto stream = c1();
    bytes bad = stream;
    const bytes junk = {9, 1, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8};  // version 9
    bad.insert(bad.end(), junk.begin(), junk.end());
    client c("127.0.0.1", h.port());
    ASSERT_TRUE(c.send(bad));
    EXPECT_TRUE(c.closed_by_peer());
    ASSERT_TRUE(h.wait_connected(false));
    EXPECT_EQ(h.frames(), c1_frames);
    EXPECT_EQ(count(h, reason::frame_bad_version), 1u);
    EXPECT_EQ(count(h, reason::frame_truncated), 0u);  // one reason per loss
    EXPECT_EQ(h.on_io([&] { return h._stats.bytes_discarded; }), junk.size());
    expect_balanced(h);
}

// --- takeover: zebra is never locked out

// A squatter is never zebra's connection: it waits beside, and zebra's first frame makes zebra's
// connection the active one at once; the squatter goes at its first-frame timeout.
TEST(Takeover, ASilentSquatterDoesNotDelayZebra) {
    listener_options o = no_sweep_for_a_while();
    o.first_frame_timeout = 1s;
    harness h(o);
    client squatter("127.0.0.1", h.port());
    ASSERT_TRUE(h.eventually([&] { return h._session.pending == 1; }));
    client zebra("127.0.0.1", h.port());
    ASSERT_TRUE(zebra.send(c1()));
    ASSERT_TRUE(h.wait_frames(c1_frames));
    auto s = h.session();
    EXPECT_TRUE(s.talking);
    EXPECT_EQ(s.pending, 1u);  // the squatter, still waiting
    EXPECT_EQ(s.takeovers, 0u);
    EXPECT_TRUE(squatter.closed_by_peer());
    ASSERT_TRUE(h.eventually([&] { return h._session.pending == 0; }));
    s = h.session();
    EXPECT_EQ(s.first_frame_timeouts, 1u);
    EXPECT_EQ(s.refused, 0u);
    EXPECT_TRUE(s.connected);
    EXPECT_EQ(s.disconnects, 0u);
}

TEST(Takeover, AConnectionWithoutAValidFrameIsClosedAfterTheTimeout) {
    listener_options o = no_sweep_for_a_while();
    o.first_frame_timeout = 400ms;
    harness h(o);
    // Taken before the connection exists: the server's timer starts at admission, which a
    // loaded machine may let pass well before this thread runs again.
    const auto start = std::chrono::steady_clock::now();
    client dribbler("127.0.0.1", h.port());
    ASSERT_TRUE(h.eventually([&] { return h._session.pending == 1; }));
    // One byte at a time of a frame of 4 KiB that never completes: never a valid frame.
    bytes frame = {1, 1, 0x10, 0};
    frame.resize(0x1000, 0xab);
    size_t sent = 0;
    while (sent < frame.size() && dribbler.send(std::span(frame).subspan(sent, 1))) {
        ++sent;
        if (h.session().pending == 0)
            break;
        std::this_thread::sleep_for(20ms);  // the pace of the peer under test, not a wait
    }
    EXPECT_TRUE(dribbler.closed_by_peer());
    ASSERT_TRUE(h.eventually([&] { return h._session.pending == 0; }));
    EXPECT_GE(std::chrono::steady_clock::now() - start, o.first_frame_timeout);
    const auto s = h.session();
    EXPECT_EQ(s.first_frame_timeouts, 1u);
    EXPECT_FALSE(s.connected);
    EXPECT_EQ(s.disconnects, 0u);  // it never was zebra's connection
    // The partial frame is counted once, if any of it arrived before the timer (on a loaded
    // machine, 400 ms may pass before this thread sends its first byte).
    const bool partial = h.on_io([&] { return h._stats.bytes_received; }) > 0;
    EXPECT_EQ(count(h, reason::frame_truncated), partial ? 1u : 0u);
    EXPECT_EQ(h.on_io([&] { return h._rib.routes().size(); }), 0u);
    expect_balanced(h);
}

// zebra's restart or a half-open break: the new connection is of the user of the one that is
// still open (and was talking): it takes over at once, keeps the RIB, replays and sweeps.
TEST(Takeover, TheSameUserReplacesATalkingConnection) {
    harness h(quick_sweep());
    client old_zebra("127.0.0.1", h.port());
    ASSERT_TRUE(old_zebra.send(c1()));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 1; }));
    // old_zebra stays open and silent, as a connection whose peer vanished without a FIN.
    client zebra("127.0.0.1", h.port());
    ASSERT_TRUE(zebra.send(c2_replay()));
    ASSERT_TRUE(h.eventually([&] { return h._session.sweeps == 2; }));
    EXPECT_TRUE(old_zebra.closed_by_peer());
    const auto s = h.session();
    EXPECT_EQ(s.takeovers, 1u);
    EXPECT_NE(s.last_disconnect_reason.find("valid replay"), std::string::npos) << s.last_disconnect_reason;
    EXPECT_NE(s.last_disconnect_reason.find("same user"), std::string::npos) << s.last_disconnect_reason;
    // The replay's sweep, as after a reconnect: 192.0.2.0/24 was removed while away.
    EXPECT_FALSE(h.has_route("192.0.2.0/24"));
    EXPECT_TRUE(h.has_route("203.0.113.0/24"));
    EXPECT_TRUE(h.has_route("198.51.100.0/24"));
    EXPECT_EQ(s.last_sweep_removed, 3u);
}

// Another admitted user's proven connection is kept while it is fresh, even against a peer that
// sends a byte now and then (only valid frames count), and replaced by a valid replay once idle.
TEST(Takeover, AnotherUsersConnectionIsReplacedOnlyOnceIdle) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root (a socket of another user)";
    listener_options o = no_sweep_for_a_while();
    o.admission.uids = {0, nobody};
    o.takeover_idle = 1500ms;
    harness h(o);
    const auto stream = c1();
    client first("127.0.0.1", h.port(), nobody);
    ASSERT_TRUE(first.send(std::span(stream).first(44)));
    ASSERT_TRUE(h.wait_frames(1));
    const auto talked = std::chrono::steady_clock::now();
    // Then a byte at a time of a 4 KiB frame that never completes: busy, but no valid frame.
    bytes dribble = {1, 1, 0x10, 0};
    dribble.resize(0x1000, 0xab);
    size_t sent = 0;
    ASSERT_TRUE(first.send(std::span(dribble).subspan(sent++, 1)));
    // Retry as zebra does (every 3 s; faster here), each time with its replay, until admitted.
    std::unique_ptr<client> zebra;
    while (!zebra && std::chrono::steady_clock::now() - talked < 10s) {
        ASSERT_TRUE(first.send(std::span(dribble).subspan(sent++, 1)));
        auto c = std::make_unique<client>("127.0.0.1", h.port());
        ASSERT_TRUE(c->send(stream));
        // Refused (srv6d closes it) or a takeover: wait for one of the two.
        bool closed = false, admitted = false;
        for (const auto until = std::chrono::steady_clock::now() + 5s;
             !closed && !admitted && std::chrono::steady_clock::now() < until;) {
            closed = c->closed_by_peer(20ms);
            admitted = !closed && h.session().takeovers == 1;
        }
        ASSERT_TRUE(closed || admitted);
        if (admitted)
            zebra = std::move(c);
        else
            std::this_thread::sleep_for(100ms);  // the pace of the peers under test, not a wait
    }
    ASSERT_TRUE(zebra);
    EXPECT_GE(std::chrono::steady_clock::now() - talked, o.takeover_idle);
    EXPECT_TRUE(first.closed_by_peer());
    const auto s = h.session();
    EXPECT_EQ(s.takeovers, 1u);
    EXPECT_GE(s.refused, 1u);
    EXPECT_EQ(s.peer_identity, "uid 0 (root)");
    EXPECT_NE(s.last_disconnect_reason.find("sent no valid frame for"), std::string::npos) << s.last_disconnect_reason;
    EXPECT_TRUE(h.has_route("192.0.2.0/24"));
}

}  // namespace
}  // namespace fpm
