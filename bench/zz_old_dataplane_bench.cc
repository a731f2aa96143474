// The forwarding worker on real DPDK ports, against DPDK io-forwarding on the same ports in the
// same run. Two net_ring ethdevs (rte_eth_from_rings): each case keeps 512 mbufs circulating;
// the generator refills their frames between polls (not timed), the timed part is exactly what
// an lcore does per poll: rte_eth_rx_burst on both ports, the worker's processing, and
// rte_eth_tx_burst. The baseline ("io") is rx_burst -> tx_burst to the other port, nothing
// else, measured the same way. Tables: 1 000 VRFs x 1 000 IPv4 + 1 000 IPv6 routes, compiled
// by the real compiler; the customer port is in one of them.
//
//   bench_dataplane_bench [--packets N] [--case SUBSTRING]
//
// Prints TSC cycles/packet, Mpps per core (TSC Hz / cycles) and the ratio to io. See
// BENCHMARKS.md for the numbers and the machine.
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "rib/rib.hh"
#include "fib/control/compiler.hh"
#include "forward/control/eal.hh"
#include "forward/datapath/worker.hh"

namespace {

using bytes = std::vector<uint8_t>;

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }
void put16(bytes& b, size_t at, uint16_t v) {
    b[at] = static_cast<uint8_t>(v >> 8);
    b[at + 1] = static_cast<uint8_t>(v);
}
uint16_t csum(const uint8_t* h, size_t len) {
    uint32_t s = 0;
    for (size_t i = 0; i < len; i += 2)
        s += static_cast<uint32_t>(h[i] << 8 | h[i + 1]);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return static_cast<uint16_t>(~s);
}

const uint8_t port_mac[6] = {2, 0, 0, 0, 0, 1};

bytes eth(uint16_t type, const bytes& l3) {
    bytes f(14 + l3.size());
    const uint8_t src[6] = {2, 0, 0, 0, 0, 9};
    std::memcpy(f.data(), port_mac, 6);
    std::memcpy(f.data() + 6, src, 6);
    put16(f, 12, type);
    std::memcpy(f.data() + 14, l3.data(), l3.size());
    return f;
}

bytes ip4(uint32_t src, uint32_t dst, uint16_t sport) {
    bytes b(20 + 8 + 18);  // 46 bytes: a 64-byte frame with the FCS
    b[0] = 0x45;
    put16(b, 2, static_cast<uint16_t>(b.size()));
    b[8] = 64;
    b[9] = 17;
    for (int i = 0; i < 4; ++i) {
        b[12 + static_cast<size_t>(i)] = static_cast<uint8_t>(src >> (24 - 8 * i));
        b[16 + static_cast<size_t>(i)] = static_cast<uint8_t>(dst >> (24 - 8 * i));
    }
    put16(b, 10, csum(b.data(), 20));
    put16(b, 20, sport);
    put16(b, 22, 4789);
    put16(b, 24, 26);
    return b;
}

bytes ip6(const rib::ip6_addr& src, const rib::ip6_addr& dst, uint8_t nh, const bytes& payload) {
    bytes b(40);
    b[0] = 0x60;
    put16(b, 4, static_cast<uint16_t>(payload.size()));
    b[6] = nh;
    b[7] = 64;
    std::memcpy(b.data() + 8, src.bytes.data(), 16);
    std::memcpy(b.data() + 24, dst.bytes.data(), 16);
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

bytes udp(uint16_t sport) {
    bytes u(8 + 10);
    put16(u, 0, sport);
    put16(u, 2, 4789);
    put16(u, 4, 18);
    return u;
}

rib::ip6_addr with_word(rib::ip6_addr a, size_t at, uint16_t v) {
    a.bytes[at] = static_cast<uint8_t>(v >> 8);
    a.bytes[at + 1] = static_cast<uint8_t>(v);
    return a;
}

struct bench_port {
    uint16_t id = 0;
    rte_ring* rx = nullptr;
    rte_ring* tx = nullptr;
};

bench_port make_port(const std::string& n, rte_mempool* pool) {
    bench_port p;
    p.rx = rte_ring_create((n + "_rx").c_str(), 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    p.tx = rte_ring_create((n + "_tx").c_str(), 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    p.id = static_cast<uint16_t>(rte_eth_from_rings(n.c_str(), &p.rx, 1, &p.tx, 1, 0));
    rte_eth_conf conf{};
    rte_eth_dev_configure(p.id, 1, 1, &conf);
    rte_eth_rx_queue_setup(p.id, 0, 1024, 0, nullptr, pool);
    rte_eth_tx_queue_setup(p.id, 0, 1024, 0, nullptr);
    rte_eth_dev_start(p.id);
    return p;
}

// The frame index an mbuf carries, in its private area.
uint32_t& frame_of(rte_mbuf* m) { return *static_cast<uint32_t*>(rte_mbuf_to_priv(m)); }

void refill(rte_mbuf* m, const bytes& f) {
    rte_pktmbuf_reset(m);
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), f.data(), f.size());
    m->data_len = static_cast<uint16_t>(f.size());
    m->pkt_len = static_cast<uint32_t>(f.size());
}

struct result {
    double cycles = 0;
    uint64_t packets = 0;
    uint64_t dropped = 0;
};

struct harness {
    rte_mempool* pool = nullptr;
    bench_port ce, core;
    uint64_t packets = 4'000'000;

    // Puts 512 mbufs carrying `frames` (round robin) into `in`'s rx ring.
    void load(const bench_port& in, const std::vector<bytes>& frames) {
        rte_mbuf* ms[512];
        if (rte_pktmbuf_alloc_bulk(pool, ms, 512) != 0) {
            std::fprintf(stderr, "pool empty\n");
            std::exit(1);
        }
        for (uint32_t i = 0; i < 512; ++i) {
            frame_of(ms[i]) = i % static_cast<uint32_t>(frames.size());
            refill(ms[i], frames[frame_of(ms[i])]);
        }
        rte_ring_enqueue_bulk(in.rx, reinterpret_cast<void**>(ms), 512, nullptr);
    }
    // Output back to the input, frames restored. Returns how many came out.
    unsigned recycle(const bench_port& in, const std::vector<bytes>& frames) {
        rte_mbuf* ms[64];
        unsigned total = 0;
        for (const bench_port* p : {&ce, &core}) {
            unsigned n;
            while ((n = rte_ring_dequeue_burst(p->tx, reinterpret_cast<void**>(ms), 64, nullptr)) != 0) {
                for (unsigned i = 0; i < n; ++i) {
                    rte_mbuf* m = ms[i];
                    // A chained header mbuf (long SID lists only) goes back to its pool.
                    if (m->next != nullptr && m->pool != pool) {
                        rte_mbuf* seg = m->next;
                        m->next = nullptr;
                        m->nb_segs = 1;
                        rte_pktmbuf_free(m);
                        m = seg;
                    }
                    refill(m, frames[frame_of(m)]);
                    ms[i] = m;
                }
                rte_ring_enqueue_burst(in.rx, reinterpret_cast<void**>(ms), n, nullptr);
                total += n;
            }
        }
        return total;
    }
    void drain() {
        rte_mbuf* m;
        for (const bench_port* p : {&ce, &core})
            for (rte_ring* r : {p->rx, p->tx})
                while (rte_ring_dequeue(r, reinterpret_cast<void**>(&m)) == 0)
                    rte_pktmbuf_free(m);
    }

    // Cycles per packet of `step` (one poll): the median over polls of the poll's cycles over
    // the packets it sent. A median per poll, not a total over the run, so that the time slices
    // another process takes on this shared 2-core machine do not land in the result.
    template <class Step>
    result run(const bench_port& in, const std::vector<bytes>& frames, Step&& step) {
        load(in, frames);
        std::vector<double> per;
        per.reserve(packets / 16);
        result r;
        unsigned idle = 0;
        while (r.packets < packets && idle < 1000) {
            const uint64_t t0 = rte_rdtsc();
            step();
            const uint64_t dt = rte_rdtsc() - t0;
            const unsigned got = recycle(in, frames);
            if (got == 0) {
                ++idle;  // everything dropped: the case is broken, the drop count says why
                continue;
            }
            r.packets += got;
            per.push_back(static_cast<double>(dt) / got);
        }
        drain();
        if (per.empty())
            return r;
        std::nth_element(per.begin(), per.begin() + static_cast<std::ptrdiff_t>(per.size() / 2), per.end());
        r.cycles = per[per.size() / 2];
        return r;
    }
};

}  // namespace

int main(int argc, char** argv) {
    uint64_t packets = 4'000'000;
    std::string only;  // --case SUBSTRING: run the matching cases only (profiling)
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "--packets")
            packets = std::stoull(argv[i + 1]);
        else if (std::string(argv[i]) == "--case")
            only = argv[i + 1];
    }
    std::string err;
    if (!fwd::eal_init("bench_dataplane", {"-l", "0", "--no-pci", "--no-huge", "-m", "1024", "--no-telemetry",
                                           "--log-level=lib.eal:error"},
                       err)) {
        std::fprintf(stderr, "eal: %s\n", err.c_str());
        return 1;
    }
    harness h;
    h.packets = packets;
    h.pool = rte_pktmbuf_pool_create("bench_pkts", 4095, 256, 8, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
    rte_mempool* hdr = fwd::headend_hdr_pool_create("bench_hdr", 1023, 0, 8);
    h.ce = make_port("bench_ce", h.pool);
    h.core = make_port("bench_core", h.pool);

    // ---- tables: 1 000 VRFs (tables 1000..1999) x (1 000 IPv4 /24 + 1 000 IPv6 /48) over 4
    // remote PEs each (H.Encaps.Red, 1 SID); the bench VRF "v1000" also holds the case routes.
    fib::qsbr_domain rcu{2};
    rib::rib r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    (void)src.set_configured(a6("fc00:1::1"));
    auto via = [](const char* gw, uint32_t ifx) {
        rib::nexthop n;
        n.gateway = *rib::parse_addr(gw);
        n.ifindex = ifx;
        return n;
    };
    auto enc = [&](rib::encap_mode m, std::vector<rib::ip6_addr> sids) {
        rib::nexthop n = via("fc00:12::2", 12);
        n.seg6 = rib::seg6_encap{m, std::move(sids), std::nullopt, {}};
        return n;
    };
    auto add = [&](rib::table_id t, const std::string& pfx, std::vector<rib::nexthop> nhs) {
        rib::route x;
        x.key.table = t;
        x.key.dst = *rib::parse_prefix(pfx);
        x.protocol = rib::proto::bgp;
        x.nexthops = std::move(nhs);
        r.upsert_route(x);
    };
    auto add_sid = [&](const char* pfx, rib::behavior b, std::optional<rib::table_id> vrftable) {
        rib::nexthop n;
        n.ifindex = 11;
        rib::seg6local l;
        l.action = b;
        l.vrftable = vrftable;
        n.local = l;
        rib::route x;
        x.key.dst = *rib::parse_prefix(pfx);
        x.protocol = rib::proto::kernel;
        x.nexthops = {n};
        r.upsert_route(x);
    };
    for (uint32_t v = 0; v < 1000; ++v) {
        const rib::table_id t = 1000 + v;
        (void)reg.set(vrf::source::config, vrf::vrf_spec{"v" + std::to_string(t), t, {}, std::nullopt});
        for (uint32_t i = 0; i < 1000; ++i) {
            const auto pe = a6(("fc00:0:" + std::to_string(10 + i % 4) + "::" + std::to_string(v % 256 + 1)).c_str());
            char p4[32], p6[48];
            std::snprintf(p4, sizeof p4, "10.%u.%u.0/24", (i >> 8) + 100, i & 0xff);
            std::snprintf(p6, sizeof p6, "2001:db8:%x::/48", i + 0x1000);
            add(t, p4, {enc(rib::encap_mode::encap_red, {pe})});
            add(t, p6, {enc(rib::encap_mode::encap_red, {pe})});
        }
    }
    const rib::table_id bt = 1000;
    add(bt, "10.99.0.0/16", {enc(rib::encap_mode::encap_red, {a6("fc00:0:2::d4")})});
    add(bt, "fd99::/16", {enc(rib::encap_mode::encap, {a6("fc00:0:3::1"), a6("fc00:0:4::1"), a6("fc00:0:2::d6")})});
    add(bt, "fd98::/16", {enc(rib::encap_mode::encap, {a6("fc00:0:2::d6")})});
    add(bt, "10.98.0.0/16", {enc(rib::encap_mode::l2encap, {a6("fc00:0:2::d2")})});
    add(bt, "10.1.0.0/16", {via("10.1.0.2", 11)});
    add(bt, "fd01::/16", {via("fd01::2", 11)});
    for (const char* p : {"fc00:0:2::/48", "fc00:0:3::/48", "fc00:0:10::/44", "2001:db8:20::/48"})
        add(rib::main_table, p, {via("fc00:12::2", 12)});
    add_sid("fc00:0:1::1/128", rib::behavior::end, std::nullopt);
    add_sid("fc00:0:1::46/128", rib::behavior::end_dt46, bt);
    fib::compiler c{rcu};
    if (!c.compile(r, reg, src)) {
        std::fprintf(stderr, "compile failed\n");
        return 1;
    }
    const vrf::vrf_id bench_vrf = reg.find("v1000")->id;

    std::vector<fwd::port_info> ports = {
        {h.ce.id, bench_vrf, 1500, true, 11, {}},
        {h.core.id, vrf::default_vrf_id, 9000, true, 12, {}},
    };
    std::vector<fwd::neighbor> ns = {
        {h.core.id, *rib::parse_addr("fc00:12::2"), {{2, 0, 0, 0, 0xb, 2}}},
        {h.ce.id, *rib::parse_addr("10.1.0.2"), {{2, 0, 0, 0, 0xc, 1}}},
        {h.ce.id, *rib::parse_addr("fd01::2"), {{2, 0, 0, 0, 0xc, 1}}},
    };
    fib::rcu_cell<fwd::adj_view> adj;
    (void)adj.exchange(fwd::adj_view::create(ports, ns));
    auto counters = std::make_unique<fwd::worker_counters>();
    fwd::worker w({{h.ce.id, 0}, {h.core.id, 0}}, 0, fwd::published{&c.cell(), &adj}, hdr, *counters);

    // ---- frames: 256 flows per case
    auto frames = [&](auto make) {
        std::vector<bytes> v;
        for (uint16_t i = 0; i < 256; ++i)
            v.push_back(make(i));
        return v;
    };
    const auto src6 = a6("fc00:0:9::1");
    struct bench_case {
        const char* name;
        const bench_port* in;
        std::vector<bytes> f;
    };
    std::vector<bench_case> cases = {
        {"IPv6 forward (default VRF)", &h.core,
         frames([&](uint16_t i) { return eth(0x86dd, ip6(src6, with_word(a6("2001:db8:20::1"), 14, i), 17, udp(i))); })},
        {"IPv4 -> H.Encaps.Red, 1 SID", &h.ce,
         frames([&](uint16_t i) { return eth(0x0800, ip4(0x0a010002, 0x0a630000u | i, static_cast<uint16_t>(1000 + i))); })},
        {"IPv6 -> H.Encaps, 3 SIDs (SRH)", &h.ce,
         frames([&](uint16_t i) {
             return eth(0x86dd, ip6(a6("fd01::2"), with_word(a6("fd99:1::"), 14, i), 17, udp(i)));
         })},
        {"IPv6 -> H.Encaps, 1 SID (V6)", &h.ce,
         frames([&](uint16_t i) {
             return eth(0x86dd, ip6(a6("fd01::2"), with_word(a6("fd98:1::"), 14, i), 17, udp(i)));
         })},
        {"frame -> H.Encaps.L2, 1 SID", &h.ce,
         frames([&](uint16_t i) { return eth(0x0800, ip4(0x0a010002, 0x0a620000u | i, static_cast<uint16_t>(1000 + i))); })},
        {"End (SRH, SL 1 -> 0)", &h.core, frames([&](uint16_t i) {
             bytes s(8 + 32);
             s[0] = 4;
             s[1] = 4;
             s[2] = 4;
             s[3] = 1;
             s[4] = 1;
             std::memcpy(s.data() + 8, with_word(a6("fc00:0:2::d6"), 14, i).bytes.data(), 16);
             std::memcpy(s.data() + 24, a6("fc00:0:1::1").bytes.data(), 16);
             const bytes in4 = ip4(0x0a090001, 0x0a010002, i);
             s.insert(s.end(), in4.begin(), in4.end());
             return eth(0x86dd, ip6(src6, a6("fc00:0:1::1"), 43, s));
         })},
        {"End.DT46, IPv4 inner", &h.core,
         frames([&](uint16_t i) { return eth(0x86dd, ip6(src6, a6("fc00:0:1::46"), 4, ip4(0x0a090001, 0x0a010000u | i, i))); })},
        {"End.DT46, IPv6 inner", &h.core, frames([&](uint16_t i) {
             return eth(0x86dd, ip6(src6, a6("fc00:0:1::46"), 41, ip6(src6, with_word(a6("fd01::"), 14, i), 17, udp(i))));
         })},
    };

    const uint16_t ports2[2] = {h.ce.id, h.core.id};
    auto io_step = [&] {
        rte_mbuf* ms[fwd::burst_size];
        for (int p = 0; p < 2; ++p) {
            const uint16_t n = rte_eth_rx_burst(ports2[p], 0, ms, fwd::burst_size);
            if (n == 0)
                continue;
            const uint16_t sent = rte_eth_tx_burst(ports2[1 - p], 0, ms, n);
            for (uint16_t i = sent; i < n; ++i)
                rte_pktmbuf_free(ms[i]);
        }
    };
    auto worker_step = [&] { w.poll(); };

    std::string cpu = "?";
    {
        std::ifstream in("/proc/cpuinfo");
        for (std::string line; std::getline(in, line);)
            if (line.rfind("model name", 0) == 0) {
                cpu = line.substr(line.find(':') + 2);
                break;
            }
    }
    const double hz = static_cast<double>(rte_get_tsc_hz());
    std::printf("CPU %s, TSC %.0f MHz, %llu packets per case (median over polls), 64-byte-class frames, 256 flows\n",
                cpu.c_str(), hz / 1e6, static_cast<unsigned long long>(packets));
    std::printf("tables: 1000 VRFs x (1000 IPv4 + 1000 IPv6) routes + the case routes\n\n");
    std::printf("%-34s %10s %8s %9s %8s\n", "case", "cycles/pkt", "Mpps", "vs io", "drops");
    double l2 = 0, v6 = 0, red_cfg = 0;
    for (const auto& k : cases) {
        if (!only.empty() && std::string(k.name).find(only) == std::string::npos)
            continue;
        const result io = h.run(*k.in, k.f, io_step);
        uint64_t drops_before = 0;
        for (size_t d = 0; d < fwd::drop_reason_count; ++d)
            drops_before += counters->drops[d].get();
        const result x = h.run(*k.in, k.f, worker_step);
        uint64_t drops = 0;
        for (size_t d = 0; d < fwd::drop_reason_count; ++d)
            drops += counters->drops[d].get();
        drops -= drops_before;
        std::printf("%-34s %10.1f %8.1f %8.2fx %8llu   (io %.1f cycles)\n", k.name, x.cycles, hz / x.cycles / 1e6,
                    x.cycles / io.cycles, static_cast<unsigned long long>(drops), io.cycles);
        if (std::string(k.name).find("L2") != std::string::npos)
            l2 = x.cycles;
        if (std::string(k.name).find("(V6)") != std::string::npos)
            v6 = x.cycles;
        if (std::string(k.name).find("Red") != std::string::npos)
            red_cfg = x.cycles;
    }
    // The same H.Encaps.Red case with a derived source (no encap.source, a loopback to derive it
    // from): the templates are rebuilt, the packet path does not change.
    (void)src.set_configured(std::nullopt);
    (void)src.set_derivation(a6("fc00:1::99"), std::nullopt);
    c.compile(r, reg, src);
    rcu.synchronize();
    const result derived = h.run(h.ce, cases[1].f, worker_step);
    std::printf("%-34s %10.1f %8.1f\n", "IPv4 -> H.Encaps.Red, derived src", derived.cycles, hz / derived.cycles / 1e6);
    std::printf("\nsource configured / derived (cycles): %.3f\n", red_cfg / derived.cycles);
    std::printf("H.Encaps.L2 / H.Encaps.V6 throughput (1 SID each): %.3f\n", v6 / l2);

    fwd::adj_view::destroy(adj.exchange(nullptr));
    fwd::eal_cleanup();
    return 0;
}
