// The FPM listener's test harness: a real client socket (blocking BSD sockets, nothing shared
// with the code under test) and the listener with its io_context on a thread of its own, as in
// the daemon; every look at the RIB or the session goes through that thread. The captures are
// tests/fixtures/frr8/f-reconnect (four reconnects of one zebra).
#pragma once
#include "fpm/listener.hh"

#include <gtest/gtest.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"  // see listener.hh
#include <boost/asio/post.hpp>
#pragma GCC diagnostic pop

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <future>
#include <iterator>
#include <random>
#include <thread>

#include "fpm/apply.hh"
#include "fpm/decoder.hh"
#include "fpm/framer.hh"
#include "fpm_builders.hh"

namespace fpm::listener_harness {

using namespace std::chrono_literals;
using bytes = std::vector<uint8_t>;

inline const std::string f_reconnect = std::string(SRV6D_FIXTURES) + "/frr8/f-reconnect/";

inline bytes read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << path;
    return bytes(std::istreambuf_iterator<char>(in), {});
}

// fpm-c1.bin: zebra's first full replay (21 frames). fpm-c2.bin: the replay after
// 203.0.113.0/24 was added and 192.0.2.0/24 and the SID fc00:0:1::1 were removed while the
// connection was down: 19 frames in its first 1092 bytes, then live deletes (fpm.marks).
constexpr size_t c1_frames = 21;
constexpr size_t c2_replay_bytes = 1092;
constexpr size_t c2_replay_frames = 19;

inline bytes c1() { return read_file(f_reconnect + "fpm-c1.bin"); }
inline bytes c2_replay() {
    auto b = read_file(f_reconnect + "fpm-c2.bin");
    b.resize(std::min(b.size(), c2_replay_bytes));
    return b;
}

inline rib::route_key key(const char* prefix, rib::table_id table = rib::main_table) {
    rib::route_key k;
    k.table = table;
    k.dst = *rib::parse_prefix(prefix);
    return k;
}

// A blocking BSD-socket client: nothing shared with the code under test.
class client {
public:
    // `fsuid`: the socket is created under this fsuid, so the kernel records that user as its
    // owner (what sock_diag reports), as if another user's process had opened it. Root only.
    client(const std::string& addr, uint16_t port, std::optional<uint32_t> fsuid = std::nullopt) {
        sockaddr_storage ss{};
        socklen_t len = 0;
        if (addr.find(':') != std::string::npos) {
            auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
            s6->sin6_family = AF_INET6;
            s6->sin6_port = htons(port);
            ::inet_pton(AF_INET6, addr.c_str(), &s6->sin6_addr);
            len = sizeof(sockaddr_in6);
        } else {
            auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
            s4->sin_family = AF_INET;
            s4->sin_port = htons(port);
            ::inet_pton(AF_INET, addr.c_str(), &s4->sin_addr);
            len = sizeof(sockaddr_in);
        }
        if (fsuid)
            ::setfsuid(*fsuid);  // per thread; the test's thread only
        _fd = ::socket(ss.ss_family, SOCK_STREAM, 0);
        if (fsuid)
            ::setfsuid(0);
        const int one = 1;  // small chunks leave as small segments
        ::setsockopt(_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        connected = ::connect(_fd, reinterpret_cast<sockaddr*>(&ss), len) == 0;
    }
    ~client() { close(); }
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    void close() {
        if (_fd >= 0)
            ::close(_fd);
        _fd = -1;
    }

    bool send(std::span<const uint8_t> b) {
        while (!b.empty()) {
            const ssize_t n = ::send(_fd, b.data(), b.size(), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            b = b.subspan(static_cast<size_t>(n));
        }
        return true;
    }

    // Random chunks of 1..max_chunk bytes, with the occasional pause so the server reads
    // mid-header and mid-frame, not just whole coalesced writes.
    bool send_chunked(std::span<const uint8_t> b, std::mt19937& rng, size_t max_chunk = 97) {
        std::uniform_int_distribution<size_t> size(1, max_chunk);
        std::uniform_int_distribution<int> pause(0, 3);
        while (!b.empty()) {
            const size_t n = std::min(size(rng), b.size());
            if (!send(b.first(n)))
                return false;
            b = b.subspan(n);
            if (pause(rng) == 0)
                std::this_thread::sleep_for(200us);
        }
        return true;
    }

    // True once the server closed the connection (EOF or reset) within `timeout`.
    bool closed_by_peer(std::chrono::milliseconds timeout = 10s) {
        const auto until = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < until) {
            pollfd p{_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) > 0) {
                uint8_t b[256];
                const ssize_t n = ::recv(_fd, b, sizeof b, 0);
                if (n <= 0)
                    return true;
            }
        }
        return false;
    }

    bool connected = false;

private:
    int _fd = -1;
};

// The listener with its io_context running on a thread of its own. Its clients are this
// process's sockets: it admits this process's user (and, for the tests that need a second
// user, `other_user`: a client socket created under that fsuid, see client's constructor).
class harness {
public:
    static constexpr uint32_t other_user = 65534;

    explicit harness(listener_options o, std::function<std::optional<std::vector<rib::route_key>>(
                                             const std::vector<rib::table_id>&)> kernel = {}) {
        o.port = 0;
        if (o.address.empty())
            o.address = "127.0.0.1";
        if (o.admission.uids == std::vector<uint32_t>{0})
            o.admission.uids = {static_cast<uint32_t>(::geteuid())};
        listener_hooks hooks;
        hooks.on_batch_applied = [this](std::span<const update> b) {
            ++batches;
            updates += b.size();
        };
        hooks.on_sweep = [this](size_t) { ++sweep_hooks; };
        hooks.replayed_table = [](rib::table_id t) { return t == vrf_table; };
        hooks.kernel_routes = std::move(kernel);
        _l = std::make_unique<listener>(_io, o, _rib, _stats, _session, std::move(hooks));
        std::string err;
        started = _l->start(err);
        EXPECT_TRUE(started) << err;
        _thread = std::thread([this] { _io.run(); });
    }
    ~harness() {
        _l->stop();
        _thread.join();  // run() returns once stop() closed everything
        _l.reset();
    }

    uint16_t port() const { return _l->port(); }
    void stop() { _l->stop(); }

    // Runs f on the io thread and returns its result.
    template <typename F>
    auto on_io(F f) {
        std::packaged_task<decltype(f())()> task(std::move(f));
        auto fut = task.get_future();
        boost::asio::post(_io, [&task] { task(); });
        return fut.get();
    }

    // Polls `pred` (run on the io thread) until it holds; false after 10 s.
    template <typename F>
    bool eventually(F pred) {
        const auto until = std::chrono::steady_clock::now() + 10s;
        while (std::chrono::steady_clock::now() < until) {
            if (on_io(pred))
                return true;
            std::this_thread::sleep_for(2ms);
        }
        return false;
    }

    session_info session() { return on_io([this] { return _session; }); }
    bool has_route(const char* prefix) {
        return on_io([&] { return _rib.find_route(key(prefix)) != nullptr; });
    }
    bool has_nexthop(uint32_t id) {
        return on_io([&] { return _rib.find_nexthop(id) != nullptr; });
    }
    uint64_t frames() { return on_io([this] { return _stats.frames; }); }
    bool wait_frames(uint64_t n) {
        return eventually([this, n] { return _stats.frames >= n; });
    }
    bool wait_connected(bool c) {
        return eventually([this, c] { return _session.connected == c; });
    }

    bool started = false;
    // A table zebra replays besides main (a VRF's), for the selective sweep.
    static constexpr rib::table_id vrf_table = 10;
    // Written by the hooks on the io thread; read in the test through on_io.
    size_t batches = 0, updates = 0, sweep_hooks = 0;

    rib::store _rib;
    ingest_stats _stats;
    session_info _session;

private:
    boost::asio::io_context _io;
    std::unique_ptr<listener> _l;
    std::thread _thread;
};

inline listener_options no_sweep_for_a_while() {
    listener_options o;
    o.resync_quiet = 60s;
    o.resync_max = 120s;
    return o;
}

// The same stream decoded in one go, without sockets: what the listener's RIB must equal.
inline void reference_rib(const bytes& stream, rib::store& rib) {
    ingest_stats stats;
    decode_ctx ctx(stats);
    framer f;
    f.feed(stream);
    std::vector<update> batch;
    while (auto frame = f.next()) {
        batch.clear();
        decode_frame(*frame, ctx, batch);
        apply_batch(batch, rib);
    }
}
}  // namespace fpm::listener_harness
