// FPM ingest end to end: 1 M IPv4 VPN routes with SRv6 H.Encaps nexthops, encoded in process
// exactly as zebra's dplane_fpm_nl sends them, batched into FPM frames of up to 64 KiB, written
// into a real TCP loopback socket and taken in by the real fpm::listener (wired as srv6d wires
// it, minus the VRF bindings and the compiler). Reported: wall time until the RIB holds every
// route, routes/s, CPU of the listener's thread and of the process, resident bytes per route
// (RSS delta and malloc's in-use delta, divided by the routes). Then the same zebra reconnects
// and replays the same routes unchanged (the reconnect case), followed by its sweep.
//
//   bench_fpm_ingest_bench [--routes N] [--vrfs V] [--pes P] [--mode nhg|inline] [--sorted]
//                          [--inproc]
//
// --mode nhg (zebra's default, `fpm use-next-hop-groups`): one RTM_NEWNEXTHOP per (VRF, remote
//   PE) = gateway + OIF + seg6 encap (H.Encaps, one uDT4 SID), sent first; every route is
//   RTM_NEWROUTE {RTA_DST, RTA_PRIORITY 20, RTA_TABLE, RTA_NH_ID}, 60 bytes (fpm-protocol.md §2.5a,
//   the layout of tests/fixtures/frr10/d-encaps/nhg.txt #20/#22).
// --mode inline (`no fpm use-next-hop-groups`): every route carries its own path: RTA_ENCAP_TYPE 5
//   + RTA_ENCAP {SEG6_IPTUNNEL_SRH} + RTA_VIA (IPv4 over an IPv6 nexthop, FRR >= 10.6) + RTA_OIF,
//   rtm_flags ONLINK, 128 bytes (d-encaps/nonhg.txt #15).
// VRF tables are 1001.. (>= 256, so rtm_table = 0 and RTA_TABLE carries the id, §2.3). Routes are
// /24s, spread over the VRFs, each using one of P remote PEs. The default order is random (BGP
// learning order); --sorted sends them table by table in prefix order, as zebra's replay walks them.
// --inproc also times the same frames decoded only, and decoded + applied, without the socket.
// --compile runs it end to end instead, as srv6d does: the VRF tables bound, the table compiler
//   paced on the listener's thread (srv6d's compile_pacer: at once when idle, else at most every
//   50 ms or at 100 000 waiting updates), a reader thread looking up without pause; the initial
//   replay, then every route moved to another remote PE (a PE failover: as many replaces), each
//   timed until the compiled tables hold it.
#include <boost/asio/post.hpp>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rib/rib.hh"
#include "fpm/apply.hh"
#include "fpm/decoder.hh"
#include "fpm/framer.hh"
#include "fpm/listener.hh"
#include "apps/srv6d/compile_timer.hh"
#include "table_reader.hh"
#include "fib/control/compiler.hh"
#include "fib/datapath/rcu.hh"
#include "util/huge_alloc.hh"
#include "util/log.hh"
#include "vrf/encap_source.hh"
#include "vrf/registry.hh"

namespace {

// ---- clocks and memory

double thread_cpu() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double process_cpu() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return s(ru.ru_utime) + s(ru.ru_stime);
}
double wall() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

long status_kib(const char* field) {
    std::ifstream f("/proc/self/status");
    const size_t n = std::strlen(field);
    for (std::string line; std::getline(f, line);)
        if (line.compare(0, n, field) == 0)
            return std::stol(line.substr(n));
    return 0;
}
// malloc's bytes in use plus the huge-page regions the RIB and the compiler map themselves.
size_t heap_in_use() {
    const auto mi = mallinfo2();
    return mi.uordblks + mi.hblkhd + util::huge_bytes();
}

// ---- wire encoding (host-order integers as zebra on x86, addresses in network order)

struct writer {
    std::vector<uint8_t>& out;
    void bytes(const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        out.insert(out.end(), b, b + n);
    }
    template <typename T>
    void le(T v) { bytes(&v, sizeof v); }
    void pad4() { out.resize((out.size() + 3) & ~size_t{3}, 0); }
    void attr(uint16_t type, const void* p, size_t n) {
        le(static_cast<uint16_t>(4 + n));
        le(type);
        bytes(p, n);
        pad4();
    }
    template <typename T>
    void attr_val(uint16_t type, T v) { attr(type, &v, sizeof v); }
    size_t begin_nest(uint16_t type) {
        const size_t at = out.size();
        le(uint16_t{0});
        le(static_cast<uint16_t>(type | 0x8000));
        return at;
    }
    void end_nest(size_t at) {
        const auto len = static_cast<uint16_t>(out.size() - at);
        std::memcpy(out.data() + at, &len, 2);
    }
    size_t begin_msg(uint16_t type, uint16_t flags, uint32_t pid) {
        const size_t at = out.size();
        le(uint32_t{0});
        le(type);
        le(flags);
        le(uint32_t{0});  // seq
        le(pid);
        return at;
    }
    void end_msg(size_t at) {
        const auto len = static_cast<uint32_t>(out.size() - at);
        std::memcpy(out.data() + at, &len, 4);
    }
};

constexpr uint16_t rtm_newroute = 24, rtm_newnexthop = 104;
constexpr uint16_t rta_dst = 1, rta_oif = 4, rta_priority = 6, rta_table = 15, rta_via = 18,
                   rta_encap_type = 21, rta_encap = 22, rta_nh_id = 30;
constexpr uint16_t nha_id = 1, nha_oif = 5, nha_gateway = 6, nha_encap_type = 7, nha_encap = 8;
constexpr uint16_t lwtunnel_encap_seg6 = 5, seg6_iptunnel_srh = 1;
constexpr uint8_t rtprot_bgp = 186, rtprot_zebra = 11;
constexpr uint32_t zebra_pid = 0xa1edf02b;  // nlmsg_pid: one zebra process throughout

struct pe_path {
    uint32_t nh_id;
    uint8_t gateway[16];
    uint8_t sid[16];
    uint32_t oif;
};

// SEG6_IPTUNNEL_SRH {int mode; ipv6_sr_hdr; segments}: FRR's layout for one SID, H.Encaps.
void seg6_encap(writer& w, const uint8_t sid[16]) {
    uint8_t tun[28] = {};
    const int32_t mode = 1;  // SEG6_IPTUNNEL_ENCAP
    std::memcpy(tun, &mode, 4);
    tun[4] = 0;  // nexthdr
    tun[5] = 2;  // hdrlen: 2 * n
    tun[6] = 4;  // type 4 (SRH)
    tun[7] = 0;  // segments_left = n - 1
    tun[8] = 0;  // first_segment = n - 1
    std::memcpy(tun + 12, sid, 16);
    w.attr(seg6_iptunnel_srh, tun, sizeof tun);
}

void encode_nexthop(writer& w, const pe_path& p) {
    const size_t m = w.begin_msg(rtm_newnexthop, 0x501, zebra_pid);
    const uint8_t nhmsg[8] = {10 /* AF_INET6: the gateway's family */, 0, rtprot_zebra, 0, 0, 0, 0, 0};
    w.bytes(nhmsg, sizeof nhmsg);
    w.attr_val(nha_id, p.nh_id);
    w.attr(nha_gateway, p.gateway, 16);
    w.attr_val(nha_oif, p.oif);
    w.attr_val(nha_encap_type, lwtunnel_encap_seg6);
    const size_t n = w.begin_nest(nha_encap);
    seg6_encap(w, p.sid);
    w.end_nest(n);
    w.end_msg(m);
}

void encode_route(writer& w, uint32_t table, uint32_t dst, uint8_t len, const pe_path& p, bool inline_mode) {
    const size_t m = w.begin_msg(rtm_newroute, 0x501, zebra_pid);
    // rtmsg: family, dst_len, src_len, tos, table (0 = RT_TABLE_UNSPEC for ids >= 256), protocol,
    // scope, type (RTN_UNICAST), flags (RTNH_F_ONLINK for the inline v4-over-v6 path).
    const uint8_t rtm[8] = {2, len, 0, 0, static_cast<uint8_t>(table < 256 ? table : 0), rtprot_bgp, 0, 1};
    w.bytes(rtm, sizeof rtm);
    w.le(static_cast<uint32_t>(inline_mode ? 4 : 0));
    const uint32_t dst_be = htonl(dst);
    w.attr(rta_dst, &dst_be, 4);
    w.attr_val(rta_priority, uint32_t{20});
    w.attr_val(rta_table, table);
    if (!inline_mode) {
        w.attr_val(rta_nh_id, p.nh_id);
    } else {
        w.attr_val(rta_encap_type, lwtunnel_encap_seg6);
        const size_t n = w.begin_nest(rta_encap);
        seg6_encap(w, p.sid);
        w.end_nest(n);
        uint8_t via[18];
        const uint16_t fam = 10;
        std::memcpy(via, &fam, 2);
        std::memcpy(via + 2, p.gateway, 16);
        w.attr(rta_via, via, sizeof via);
        w.attr_val(rta_oif, p.oif);
    }
    w.end_msg(m);
}

// FPM frames of netlink messages, each frame as full as 65535 bytes allow (zebra's batching).
struct framed {
    std::vector<uint8_t> bytes;
    size_t frames = 0;
};

class frame_packer {
public:
    explicit frame_packer(framed& f) : _f(f) {}
    void add(const std::vector<uint8_t>& msg) {
        if (_open && _f.bytes.size() - _start + msg.size() > fpm::fpm_max_frame)
            close();
        if (!_open) {
            _start = _f.bytes.size();
            const uint8_t hdr[4] = {fpm::fpm_version, fpm::fpm_type_netlink, 0, 0};
            _f.bytes.insert(_f.bytes.end(), hdr, hdr + 4);
            _open = true;
        }
        _f.bytes.insert(_f.bytes.end(), msg.begin(), msg.end());
    }
    void close() {
        if (!_open)
            return;
        const size_t len = _f.bytes.size() - _start;
        _f.bytes[_start + 2] = static_cast<uint8_t>(len >> 8);
        _f.bytes[_start + 3] = static_cast<uint8_t>(len);
        ++_f.frames;
        _open = false;
    }

private:
    framed& _f;
    size_t _start = 0;
    bool _open = false;
};

struct options {
    uint32_t routes = 1'000'000;
    uint32_t vrfs = 16;
    uint32_t pes = 16;
    bool inline_mode = false;
    bool sorted = false;
    bool inproc = false;
    bool compile = false;
};

struct workload {
    framed stream;
    std::vector<pe_path> paths;  // vrf * pes + pe
    size_t messages = 0;
    double encode_s = 0;
};

// `shift`: route i uses remote PE (its PE + shift) % P (shift 1: every route moved).
workload encode(const options& o, uint32_t shift = 0) {
    workload wl;
    const double t0 = wall();
    for (uint32_t v = 0; v < o.vrfs; ++v)
        for (uint32_t p = 0; p < o.pes; ++p) {
            pe_path pp{};
            pp.nh_id = 20 + v * o.pes + p;  // zebra's ids count up from small numbers
            const uint8_t gw[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<uint8_t>(1 + p % 4)};
            std::memcpy(pp.gateway, gw, 16);
            // uDT4 SID of VRF v on PE p: fc00:0:<p+2>:e<v>::  (locator fc00:0:<pe>::/48)
            const uint8_t sid[16] = {0xfc, 0, 0, 0, 0, static_cast<uint8_t>(p + 2), static_cast<uint8_t>(0xe0 | (v >> 8)),
                                     static_cast<uint8_t>(v), 0, 0, 0, 0, 0, 0, 0, 0};
            std::memcpy(pp.sid, sid, 16);
            pp.oif = 2 + p % 4;
            wl.paths.push_back(pp);
        }
    // Route i: VRF i % V, its (i / V)-th /24 in 10.0.0.0 upwards (wrapping into 11.., distinct
    // below 2^24 routes per VRF), remote PE by a hash of i.
    std::vector<uint32_t> order(o.routes);
    std::iota(order.begin(), order.end(), 0u);
    if (o.sorted)
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return a % o.vrfs < b % o.vrfs; });
    else
        std::shuffle(order.begin(), order.end(), std::mt19937(42));

    frame_packer pack(wl.stream);
    std::vector<uint8_t> msg;
    writer w{msg};
    if (!o.inline_mode)
        for (const auto& p : wl.paths) {
            msg.clear();
            encode_nexthop(w, p);
            pack.add(msg);
            ++wl.messages;
        }
    wl.stream.bytes.reserve(static_cast<size_t>(o.routes) * (o.inline_mode ? 129 : 61));
    for (const uint32_t i : order) {
        const uint32_t v = i % o.vrfs;
        const uint32_t n = i / o.vrfs;
        const uint32_t pe = ((i * 2654435761u >> 16) + shift) % o.pes;
        msg.clear();
        encode_route(w, 1001 + v, (10u << 24) + (n << 8), 24, wl.paths[v * o.pes + pe], o.inline_mode);
        pack.add(msg);
        ++wl.messages;
    }
    pack.close();
    wl.encode_s = wall() - t0;
    return wl;
}

// ---- the sending side: one zebra, connecting twice (initial replay, then a reconnect)

int connect_to(uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        std::perror("connect");
        std::exit(1);
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

void send_all(int fd, const std::vector<uint8_t>& b) {
    size_t off = 0;
    while (off < b.size()) {
        const ssize_t n = ::write(fd, b.data() + off, b.size() - off);
        if (n <= 0) {
            std::perror("write");
            std::exit(1);
        }
        off += static_cast<size_t>(n);
    }
}

// ---- in-process stages (no socket), to see where the listener's time goes

void inproc(const workload& wl, const options& o) {
    std::printf("\nin process, same frames, no socket (listener thread's work split up):\n");
    {
        fpm::ingest_stats st;
        fpm::decode_ctx ctx(st);
        fpm::framer fr;
        std::vector<fpm::update> batch;
        const double c0 = thread_cpu();
        fr.feed(wl.stream.bytes);
        size_t updates = 0;
        while (const auto f = fr.next()) {
            batch.clear();
            fpm::decode_frame(*f, ctx, batch);
            updates += batch.size();
        }
        const double c = thread_cpu() - c0;
        std::printf("  framer + decode only     : %6.3f s CPU  %6.0f ns/route  (%zu updates)\n", c,
                    c / o.routes * 1e9, updates);
    }
    {
        rib::store rib;
        fpm::ingest_stats st;
        fpm::decode_ctx ctx(st);
        fpm::framer fr;
        std::vector<fpm::update> batch;
        fr.feed(wl.stream.bytes);  // the framer's copy of the stream is not the RIB's
        const size_t h0 = heap_in_use();
        const double c0 = thread_cpu();
        double apply_s = 0;
        while (const auto f = fr.next()) {
            batch.clear();
            fpm::decode_frame(*f, ctx, batch);
            const double a0 = thread_cpu();
            fpm::apply_batch_consume(batch, rib);
            apply_s += thread_cpu() - a0;
        }
        const double c = thread_cpu() - c0;
        const size_t h = heap_in_use() - h0;
        std::printf("  framer + decode + apply  : %6.3f s CPU  %6.0f ns/route  (apply_batch_consume %.3f s = %.0f ns/route)\n",
                    c, c / o.routes * 1e9, apply_s, apply_s / o.routes * 1e9);
        std::printf("  RIB heap (malloc + huge) : %.1f B/route\n", static_cast<double>(h) / o.routes);
        rib.begin_resync();
        fr.reset();
        const double r0 = thread_cpu();
        fr.feed(wl.stream.bytes);
        while (const auto f = fr.next()) {
            batch.clear();
            fpm::decode_frame(*f, ctx, batch);
            fpm::apply_batch_consume(batch, rib);
        }
        const double r1 = thread_cpu();
        const size_t swept = rib.sweep();
        const double r2 = thread_cpu();
        std::printf("  replay unchanged         : %6.3f s CPU  %6.0f ns/route, sweep %.3f s (%zu swept)\n", r1 - r0,
                    (r1 - r0) / o.routes * 1e9, r2 - r1, swept);
    }
}

// ---- end to end: FPM -> RIB -> compiled tables, readers running (--compile)

int run_compile(const options& o) {
    const workload load = encode(o), moved = encode(o, 1);
    std::printf("fpm -> RIB -> compiled tables: %u IPv4 VPN routes in %u VRF tables over %u remote PEs, %s mode, "
                "%s order; encoded in %.2f s\n",
                o.routes, o.vrfs, o.pes, o.inline_mode ? "inline" : "nexthop-group", o.sorted ? "table walk" : "random",
                load.encode_s + moved.encode_s);

    boost::asio::io_context io;
    rib::store rib;
    fpm::ingest_stats stats;
    fpm::session_info session;
    vrf::registry reg;
    std::vector<vrf::vrf_spec> specs;
    for (uint32_t v = 0; v < o.vrfs; ++v)
        specs.push_back({"c" + std::to_string(v), 1001 + v, {}, std::nullopt});
    (void)reg.sync(vrf::source::config, specs);
    std::vector<vrf::vrf_id> ids;
    for (const auto& sp : specs)
        ids.push_back(reg.find(sp.name)->id);
    vrf::encap_source_resolver src;
    (void)src.set_configured(*rib::parse_ip6("2001:db8::1"));
    fib::qsbr_domain rcu{4};
    fib::compiler comp{rcu};

    // The reader: a worker's lookups, on the other CPU when there is one.
    bench::table_reader reader(rcu, comp.cell(), ids);

    const uint64_t want = o.routes;
    int phase = 1;  // 1: initial replay, 2: every route moved
    double t_start[3]{}, t_done[3]{}, cpu_compile[3]{}, cpu_thread[3]{};
    size_t pubs[3]{}, biggest[3]{};
    std::promise<void> done1, done2;
    const double cpu0 = thread_cpu();
    // The phase is over when the RIB took all its routes and a compile published them.
    std::optional<srv6d::compile_timer> compiles;
    auto check_done = [&] {
        const bool in = phase == 1 ? rib.routes().size() >= want : rib.counters().route_upserts >= 2 * want;
        if (!in || compiles->wanted())
            return;
        t_done[phase] = wall();
        cpu_thread[phase] = thread_cpu();
        if (phase == 1) {
            phase = 2;
            done1.set_value();
        } else {
            phase = 3;
            done2.set_value();
            io.stop();
        }
    };
    // srv6d's own pacing (apps/srv6d/compile_timer.hh), as its control plane wires it.
    compiles.emplace(
        io,
        [&](size_t batch) {
            biggest[phase] = std::max(biggest[phase], batch);
            const double c = thread_cpu();
            comp.compile(rib, reg, src);
            cpu_compile[phase] += thread_cpu() - c;
            ++pubs[phase];
            rcu.reclaim();
            boost::asio::post(io, check_done);  // once the pacer has recorded this compile
            return false;  // the run ends with the last publication: no settling compiles
        },
        std::chrono::milliseconds(50), 100'000);
    fpm::listener_options lo;
    lo.port = 0;
    lo.resync_quiet = std::chrono::minutes(10);  // no sweep during the run
    lo.resync_max = std::chrono::minutes(10);
    fpm::listener_hooks hooks;
    hooks.on_batch_applied = [&](std::span<const fpm::update> u) {
        compiles->changed(u.size());
    };
    fpm::listener lst(io, lo, rib, stats, session, hooks);
    std::string error;
    if (!lst.start(error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    std::thread zebra([&, port = lst.port()] {
        t_start[1] = wall();
        const int fd = connect_to(port);
        send_all(fd, load.stream.bytes);
        done1.get_future().wait();
        t_start[2] = wall();
        send_all(fd, moved.stream.bytes);
        done2.get_future().wait();
        ::close(fd);
    });
    io.run();
    zebra.join();
    const uint64_t lookups = reader.stop();
    cpu_thread[0] = cpu0;
    t_start[2] = std::max(t_start[2], t_done[1]);

    const double n = o.routes;
    for (int ph = 1; ph <= 2; ++ph) {
        const double w = t_done[ph] - t_start[ph];
        const double c = cpu_thread[ph] - cpu_thread[ph - 1];
        std::printf("\n%s (connect / first byte -> the compiled tables hold every route):\n",
                    ph == 1 ? "initial replay, adds" : "every route moved to another PE, replaces");
        std::printf("  wall %.3f s = %.0f k updates/s; listener thread CPU %.3f s = %.0f k updates/s (compile %.3f s, "
                    "FPM + RIB %.3f s)\n",
                    w, n / w / 1e3, c, n / c / 1e3, cpu_compile[ph], c - cpu_compile[ph]);
        std::printf("  %zu publications, largest batch %zu updates\n", pubs[ph], biggest[ph]);
    }
    std::printf("\nreader: %.1f M lookups during the run\n", static_cast<double>(lookups) / 1e6);
    // Spot check: route 0 (VRF 0, 10.0.0.0/24) is a headend in the published tables, to the SID
    // of the PE it moved to (its PE + 1: encode()'s hash of 0 is 0, so PE 1).
    const auto* v = comp.cell().load();
    const uint64_t errors = std::accumulate(stats.reasons.begin(), stats.reasons.end(), uint64_t{0});
    const fib::compiled_nh* r0 = v ? &v->nexthop(v->lookup4(ids[0], (10u << 24) | 1)) : nullptr;
    if (v == nullptr || rib.routes().size() != want || errors != 0 || r0->kind() != fib::nh_kind::headend ||
        std::memcmp(r0->encap().bytes + 24, moved.paths[1].sid, 16) != 0) {
        std::fprintf(stderr, "the RIB or the tables do not hold what was sent (%lu decode errors)\n",
                     static_cast<unsigned long>(errors));
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> uint32_t {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return static_cast<uint32_t>(std::stoul(argv[++i]));
        };
        if (a == "--routes")
            o.routes = next();
        else if (a == "--vrfs")
            o.vrfs = std::max(1u, next());
        else if (a == "--pes")
            o.pes = std::max(1u, next());
        else if (a == "--mode" && i + 1 < argc)
            o.inline_mode = std::string(argv[++i]) == "inline";
        else if (a == "--sorted")
            o.sorted = true;
        else if (a == "--inproc")
            o.inproc = true;
        else if (a == "--compile")
            o.compile = true;
        else {
            std::fprintf(stderr,
                         "usage: %s [--routes N] [--vrfs V] [--pes P] [--mode nhg|inline] [--sorted] [--inproc|--compile]\n",
                         argv[0]);
            return 2;
        }
    }
    util::set_level(util::level::warn);
    if (o.compile)
        return run_compile(o);

    const workload wl = encode(o);
    std::printf("fpm ingest: %u IPv4 VPN routes in %u VRF tables over %u remote PEs, %s mode, %s order\n", o.routes,
                o.vrfs, o.pes, o.inline_mode ? "inline (no fpm use-next-hop-groups)" : "nexthop-group",
                o.sorted ? "table walk" : "random");
    std::printf("  encoded %zu netlink messages (%zu nexthop objects) into %zu FPM frames, %.1f MiB, in %.2f s\n",
                wl.messages, o.inline_mode ? size_t{0} : wl.paths.size(), wl.stream.frames,
                static_cast<double>(wl.stream.bytes.size()) / (1 << 20), wl.encode_s);

    boost::asio::io_context io;
    rib::store rib;
    fpm::ingest_stats stats;
    fpm::session_info session;
    fpm::listener_options lo;
    lo.port = 0;
    lo.resync_quiet = std::chrono::milliseconds(300);
    lo.resync_max = std::chrono::minutes(10);

    // Phases, advanced on the io thread by the hooks; the sender thread waits on the promises.
    struct mark {
        double wall = 0, cpu = 0, pcpu = 0;
    };
    const uint64_t want = o.routes;
    mark m_connect1, m_loaded, m_sweep1, m_connect2, m_replayed, m_sweep2;
    std::promise<void> loaded_p, sweep1_p, done_p;
    int phase = 1;
    std::atomic<double> t_send1{0}, t_send2{0};
    long rss0 = 0, rss_loaded = 0, rss_replayed = 0;
    size_t heap0 = 0, heap_loaded = 0;

    auto now = [] { return mark{wall(), thread_cpu(), process_cpu()}; };
    fpm::listener_hooks hooks;
    hooks.on_batch_applied = [&](std::span<const fpm::update>) {
        if (phase == 1 && rib.routes().size() >= want) {
            m_loaded = now();
            rss_loaded = status_kib("VmRSS:");
            heap_loaded = heap_in_use();
            phase = 2;
            loaded_p.set_value();
        } else if (phase == 3 && rib.counters().route_upserts >= 2 * want) {
            m_replayed = now();
            rss_replayed = status_kib("VmRSS:");
            phase = 4;
        }
    };
    hooks.on_sweep = [&](size_t) {
        if (phase == 2) {
            m_sweep1 = now();
            phase = 3;
            sweep1_p.set_value();
        } else if (phase == 4) {
            m_sweep2 = now();
            phase = 5;
            done_p.set_value();
            io.stop();
        }
    };
    hooks.replayed_table = [](rib::table_id t) { return t >= 1001; };  // the VRFs' tables
    fpm::listener lst(io, lo, rib, stats, session, hooks);
    std::string error;
    if (!lst.start(error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    malloc_trim(0);
    rss0 = status_kib("VmRSS:");
    heap0 = heap_in_use();

    std::thread zebra([&, port = lst.port()] {
        m_connect1.wall = wall();
        int fd = connect_to(port);
        send_all(fd, wl.stream.bytes);
        t_send1 = wall();
        loaded_p.get_future().wait();
        sweep1_p.get_future().wait();
        ::close(fd);  // zebra's FPM connection drops; zebra reconnects and replays everything
        m_connect2.wall = wall();
        fd = connect_to(port);
        send_all(fd, wl.stream.bytes);
        t_send2 = wall();
        done_p.get_future().wait();
        ::close(fd);
    });
    const double cpu_start = thread_cpu(), pcpu_start = process_cpu();
    io.run();
    zebra.join();

    const double n = o.routes;
    const double load_wall = m_loaded.wall - m_connect1.wall;
    const double load_cpu = m_loaded.cpu - cpu_start;
    const double load_pcpu = m_loaded.pcpu - pcpu_start;
    const double rss_delta = static_cast<double>(rss_loaded - rss0) * 1024;
    const double heap_delta = static_cast<double>(heap_loaded - heap0);
    std::printf("\ninitial replay over TCP (connect -> RIB holds all %u routes):\n", o.routes);
    std::printf("  wall %.3f s = %.0f k routes/s (sender done writing after %.3f s)\n", load_wall, n / load_wall / 1e3,
                t_send1 - m_connect1.wall);
    std::printf("  listener thread CPU %.3f s = %.0f ns/route; process CPU (both threads, kernel incl.) %.3f s\n",
                load_cpu, load_cpu / n * 1e9, load_pcpu);
    std::printf("  resident: RSS +%.1f MiB = %.0f B/route; malloc in use +%.1f MiB = %.0f B/route; peak RSS %.1f MiB\n",
                rss_delta / (1 << 20), rss_delta / n, heap_delta / (1 << 20), heap_delta / n,
                static_cast<double>(status_kib("VmHWM:")) / 1024);
    std::printf("  first sweep (nothing stale): %.3f s CPU\n", m_sweep1.cpu - m_loaded.cpu);

    const double rp_wall = m_replayed.wall - m_connect2.wall;
    const double rp_cpu = m_replayed.cpu - m_sweep1.cpu;
    const double rp_pcpu = m_replayed.pcpu - m_sweep1.pcpu;
    std::printf("\nreconnect, same zebra replays the same %u routes unchanged:\n", o.routes);
    std::printf("  wall %.3f s = %.0f k routes/s (sender done after %.3f s)\n", rp_wall, n / rp_wall / 1e3,
                t_send2 - m_connect2.wall);
    std::printf("  listener thread CPU %.3f s = %.0f ns/route; process CPU %.3f s\n", rp_cpu, rp_cpu / n * 1e9, rp_pcpu);
    std::printf("  sweep after the quiet period: %.3f s CPU, removed %lu, RSS now %+.1f MiB vs loaded\n",
                m_sweep2.cpu - m_replayed.cpu, static_cast<unsigned long>(session.last_sweep_removed),
                static_cast<double>(rss_replayed - rss_loaded) / 1024);
    std::printf("  RIB: %zu routes, %zu nexthop objects, version %lu, %lu changes; decode errors: %lu\n",
                rib.routes().size(), rib.nexthops().size(), static_cast<unsigned long>(rib.version()),
                static_cast<unsigned long>(rib.counters().route_changes),
                static_cast<unsigned long>(std::accumulate(stats.reasons.begin(), stats.reasons.end(), uint64_t{0})));

    // Spot check: a route resolves to its PE's SID.
    const auto& first = *rib.routes().begin();
    const auto res = rib.resolve(first.second);
    if (res.paths.empty() || !res.paths.front().path.seg6 || res.paths.front().path.seg6->segments.size() != 1) {
        std::fprintf(stderr, "route %s did not resolve to an H.Encaps path\n", rib::to_string(first.first.dst).c_str());
        return 1;
    }
    if (rib.routes().size() != o.routes || rib.counters().route_changes != o.routes) {
        std::fprintf(stderr, "RIB does not hold exactly the routes sent\n");
        return 1;
    }
    if (o.inproc)
        inproc(wl, o);
    return 0;
}
