// srv6d's forwarding worker against a floor: a minimal DPDK program doing the same work per
// packet with DPDK's own primitives (bench/dataplane_floor.hh), on the same two net_ring ports,
// with the same frames and the same routes, in the same process. For every case the output
// bytes of both are compared frame by frame before anything is timed (a mismatch aborts).
//
// Method (BENCHMARKS.md): 128 mbufs (--mbufs) circulate through the rings: their buffers
// (~280 KiB) stay inside L2, so a run's figure does not hang on which physical pages the pool
// gave it (512 mbufs, ~1.1 MiB, could not). A generator restores their frames between polls
// (not timed); the timed part is exactly one lcore poll (rx burst on both ports, the
// processing, tx burst). A run's figure is the median over polls of a poll's TSC
// cycles over the packets it sent. Each repetition runs io-forward (rx -> tx to the other port:
// the transport alone), then srv6d and the floor interleaved in `--slices` turns (16: A B, B A,
// ...; 1: back to back), each turn after a warm-up; `--reps` repetitions (7) give min / median
// / max. The H.Encaps.Red case also runs with the encapsulation source configured and FRR's,
// interleaved the same way (recompiled before each turn), and H.Encaps.L2 against H.Encaps.V6
// (both srv6d; a full run only). The lcore is pinned (EAL -l);
// hugepages are used when the machine has free ones (scripts/bench.sh reserves them), else
// 4 KiB pages.
//
//   bench_dataplane_bench [--packets N] [--reps R] [--slices S] [--case SUBSTRING] [--floor6 lpm6|fib6]
//                         [--lcore N] [--mbufs N] [--no-huge] [--worker-cpus A,B]
//
// The "two workers" cases (bench/dataplane_workers.hh) run two workers on two more lcores,
// pinned to CPUs A and B (--worker-cpus, default 0,1), against one worker in the same run.
//
// Tables: srv6d gets 1 000 VRFs x (1 000 IPv4 /24 + 1 000 IPv6 /48) over 4 remote PEs each,
// compiled by the real compiler, plus the case routes. The floor gets the tables its packets
// use, with the same content: the bench VRF (its 2 000 routes + the case routes) and the
// default VRF's routes and SIDs (rte_lpm / rte_lpm6 cost 64 MiB per table: 1 000 VRFs of them
// do not fit in this machine).
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "dataplane_floor.hh"
#include "dataplane_frames.hh"
#include "dataplane_harness.hh"
#include "dataplane_workers.hh"
#include "fib/control/compiler.hh"
#include "fib/control/encap_build.hh"
#include "forward/control/eal.hh"
#include "forward/datapath/worker.hh"
#include "rib/rib.hh"

namespace {

using namespace bench;

rib::ip6_addr a6(const char* s) { return *rib::parse_ip6(s); }

const mac ce_mac{{2, 0, 0, 0, 0, 0xa}}, core_mac{{2, 0, 0, 0, 0, 0xb}};
const mac core_gw_mac{{2, 0, 0, 0, 0xb, 2}}, ce_host_mac{{2, 0, 0, 0, 0xc, 1}};
const mac sender_mac{{2, 0, 0, 0, 0, 9}};

long huge_free() {
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("HugePages_Free:", 0) == 0)
            return std::stol(line.substr(15));
    return 0;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "?";
}

floor_nh fwd_nh(uint16_t port, const mac& dst, const mac& src) {
    floor_nh n;
    n.kind = floor_nh::forward;
    n.port = port;
    std::memcpy(n.eth, dst.b, 6);
    std::memcpy(n.eth + 6, src.b, 6);
    return n;
}

floor_nh encap_nh(uint16_t port, bool l2, bool reduced, uint8_t inner, const std::vector<rib::ip6_addr>& sids,
                  const rib::ip6_addr& src) {
    floor_nh n = fwd_nh(port, core_gw_mac, core_mac);
    n.kind = floor_nh::encap;
    n.l2 = l2;
    const bytes h = encap_header(reduced, l2 ? 143 : inner, sids, src, n.nh_off);
    n.len = static_cast<uint16_t>(h.size());
    std::memcpy(n.tmpl, h.data(), h.size());
    return n;
}

struct bench_case {
    const char* name;
    const bench_port* in;
    std::vector<bytes> f;
    uint64_t rx_flags = 0;  // what the frames carry from rx (harness::rx_flags)
};

struct figures {
    std::vector<double> io, srv6d, floor;
};

}  // namespace

int main(int argc, char** argv) {
    uint64_t packets = 1'000'000;
    int reps = 7;
    uint32_t slices = 16;  // srv6d and the floor interleaved in this many turns per repetition
    uint32_t mbufs = 128;
    std::string only, lcore = "1", worker_cpus = "0,1";
    bool no_huge = false;
    floor_lpm6 f6 = floor_lpm6::lpm6;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has = i + 1 < argc;
        if (a == "--packets" && has)
            packets = std::stoull(argv[++i]);
        else if (a == "--reps" && has)
            reps = std::stoi(argv[++i]);
        else if (a == "--slices" && has)
            slices = std::max<uint32_t>(1, static_cast<uint32_t>(std::stoul(argv[++i])));
        else if (a == "--case" && has)
            only = argv[++i];
        else if (a == "--mbufs" && has)
            mbufs = static_cast<uint32_t>(std::stoul(argv[++i]));
        else if (a == "--lcore" && has)
            lcore = argv[++i];
        else if (a == "--floor6" && has)
            f6 = std::string(argv[++i]) == "fib6" ? floor_lpm6::fib6 : floor_lpm6::lpm6;
        else if (a == "--no-huge")
            no_huge = true;
        else if (a == "--worker-cpus" && has)
            worker_cpus = argv[++i];
    }
    const std::string two_prefix = "two workers: ";
    const bool two = only.empty() || (two_prefix + "IPv4 -> H.Encaps.Red, 1 SID").find(only) != std::string::npos ||
                     (two_prefix + "IPv6 forward (default VRF)").find(only) != std::string::npos;
    // Hugepages when there are enough free ones (the floor's tables and the mbufs: ~300 MiB).
    const bool huge = !no_huge && huge_free() >= 200;
    std::vector<std::string> eal = {"-l", lcore, "--no-pci", "--no-telemetry", "--log-level=lib.eal:error"};
    if (two) {  // lcore 0 where -l would have put the main lcore, lcores 1 and 2 for the workers
        const auto comma = worker_cpus.find(',');
        eal[0] = "--lcores";
        eal[1] = "0@" + lcore + ",1@" + worker_cpus.substr(0, comma) + ",2@" + worker_cpus.substr(comma + 1);
    }
    if (huge) {
        eal.insert(eal.end(), {"--in-memory", "--iova-mode=va"});
    } else {
        eal.insert(eal.end(), {"--no-huge", "-m", "1024"});
    }
    std::string err;
    if (!fwd::eal_init("bench_dataplane", eal, err)) {
        std::fprintf(stderr, "eal: %s\n", err.c_str());
        return 1;
    }
    harness h;
    h.circulating = mbufs;
    h.pool = rte_pktmbuf_pool_create("bench_pkts", 4095, 256, 8, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
    rte_mempool* hdr = fwd::headend_hdr_pool_create("bench_hdr", 1023, 0, 8);
    h.ce = make_port("bench_ce", h.pool);
    h.core = make_port("bench_core", h.pool);

    // ---- srv6d's tables: 1 000 VRFs (tables 1000..1999) x (1 000 IPv4 /24 + 1 000 IPv6 /48)
    // over 4 remote PEs each (H.Encaps.Red, 1 SID); the bench VRF "v1000" also holds the case
    // routes. The floor gets the same routes of the VRFs its packets use.
    auto fl_owner = std::make_unique<floor_fwd>(f6);  // freed before the EAL is
    floor_fwd& fl = *fl_owner;
    fl.make_vrf(0, 1 << 12);  // default
    fl.make_vrf(1, 1 << 12);  // the bench VRF
    if (!fl.ok()) {
        std::fprintf(stderr, "floor: table creation failed\n");
        return 1;
    }
    fl.ports({h.ce.id, h.core.id});
    fl.port_vrf(h.ce.id, 1);
    fl.port_vrf(h.core.id, 0);
    const auto src_cfg = a6("fc00:1::1");

    fib::qsbr_domain rcu{2};
    rib::store r;
    vrf::registry reg;
    vrf::encap_source_resolver src;
    (void)src.set_configured(src_cfg);
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
    // The same route in srv6d and (fvrf >= 0) in the floor's VRF fvrf.
    bool floor_ok = true;
    auto both = [&](rib::table_id t, int fvrf, const std::string& pfx, std::vector<rib::nexthop> nhs, uint32_t fnh) {
        add(t, pfx, std::move(nhs));
        if (fvrf < 0)
            return;
        const rib::prefix p = *rib::parse_prefix(pfx);
        if (p.af == rib::family::ipv4)
            floor_ok &= fl.add4(static_cast<uint8_t>(fvrf), fib::key4(p.bytes.data()), p.len, fnh);
        else
            floor_ok &= fl.add6(static_cast<uint8_t>(fvrf), p.bytes.data(), p.len, fnh);
    };
    auto add_sid = [&](const char* pfx, rib::behavior b, std::optional<rib::table_id> vrftable, uint32_t fnh) {
        rib::nexthop n;
        n.ifindex = 11;
        rib::seg6local l;
        l.action = b;
        l.vrftable = vrftable;
        if (b == rib::behavior::end_dx2)
            l.oif = 11;
        n.local = l;
        rib::route x;
        x.key.dst = *rib::parse_prefix(pfx);
        x.protocol = rib::proto::kernel;
        x.nexthops = {n};
        r.upsert_route(x);
        const rib::prefix p = *rib::parse_prefix(pfx);
        floor_ok &= fl.add6(0, p.bytes.data(), p.len, fnh);
    };
    uint32_t pe_nh4[4], pe_nh6[4];
    for (uint32_t pe = 0; pe < 4; ++pe) {
        const auto sid = a6(("fc00:0:" + std::to_string(10 + pe) + "::1").c_str());
        pe_nh4[pe] = fl.add_nh(encap_nh(h.core.id, false, true, 4, {sid}, src_cfg));
        pe_nh6[pe] = fl.add_nh(encap_nh(h.core.id, false, true, 41, {sid}, src_cfg));
    }
    for (uint32_t v = 0; v < 1000; ++v) {
        const rib::table_id t = 1000 + v;
        (void)reg.set(vrf::source::config, vrf::vrf_spec{"v" + std::to_string(t), t, {}, std::nullopt});
        for (uint32_t i = 0; i < 1000; ++i) {
            const auto pe = a6(("fc00:0:" + std::to_string(10 + i % 4) + "::" + std::to_string(v % 256 + 1)).c_str());
            char p4[32], p6[48];
            std::snprintf(p4, sizeof p4, "10.%u.%u.0/24", (i >> 8) + 100, i & 0xff);
            std::snprintf(p6, sizeof p6, "2001:db8:%x::/48", i + 0x1000);
            const int fv = v == 0 ? 1 : -1;
            both(t, fv, p4, {enc(rib::encap_mode::encap_red, {pe})}, pe_nh4[i % 4]);
            both(t, fv, p6, {enc(rib::encap_mode::encap_red, {pe})}, pe_nh6[i % 4]);
        }
    }
    const rib::table_id bt = 1000;
    const uint16_t core = h.core.id;
    both(bt, 1, "10.99.0.0/16", {enc(rib::encap_mode::encap_red, {a6("fc00:0:2::d4")})},
         fl.add_nh(encap_nh(core, false, true, 4, {a6("fc00:0:2::d4")}, src_cfg)));
    const std::vector<rib::ip6_addr> three = {a6("fc00:0:3::1"), a6("fc00:0:4::1"), a6("fc00:0:2::d6")};
    both(bt, 1, "fd99::/16", {enc(rib::encap_mode::encap, three)}, fl.add_nh(encap_nh(core, false, false, 41, three, src_cfg)));
    both(bt, 1, "fd98::/16", {enc(rib::encap_mode::encap, {a6("fc00:0:2::d6")})},
         fl.add_nh(encap_nh(core, false, false, 41, {a6("fc00:0:2::d6")}, src_cfg)));
    {  // 10.97.0.0/16 to a PE whose locator fc00:0:5::/48 is 2-way ECMP over the core gateways
       // fc00:12::2 and fc00:12::3, both on the core port (two gateways; the floor's too)
        floor_nh n = encap_nh(core, false, true, 4, {a6("fc00:0:5::d4")}, src_cfg);
        n.ecmp2 = true;
        n.port2 = core;
        const mac gw3{{2, 0, 0, 0, 0xb, 3}};
        std::memcpy(n.eth2, gw3.b, 6);
        std::memcpy(n.eth2 + 6, core_mac.b, 6);
        both(bt, 1, "10.97.0.0/16", {enc(rib::encap_mode::encap_red, {a6("fc00:0:5::d4")})}, fl.add_nh(n));
        add(rib::main_table, "fc00:0:5::/48", {via("fc00:12::2", 12), via("fc00:12::3", 12)});
    }
    both(bt, 1, "10.98.0.0/16", {enc(rib::encap_mode::l2encap, {a6("fc00:0:2::d2")})},
         fl.add_nh(encap_nh(core, true, false, 143, {a6("fc00:0:2::d2")}, src_cfg)));
    const uint32_t to_ce = fl.add_nh(fwd_nh(h.ce.id, ce_host_mac, ce_mac));
    both(bt, 1, "10.1.0.0/16", {via("10.1.0.2", 11)}, to_ce);
    both(bt, 1, "fd01::/16", {via("fd01::2", 11)}, to_ce);
    const uint32_t to_core = fl.add_nh(fwd_nh(core, core_gw_mac, core_mac));
    for (const char* p : {"fc00:0:2::/48", "fc00:0:3::/48", "fc00:0:10::/44", "2001:db8:20::/48"})
        both(rib::main_table, 0, p, {via("fc00:12::2", 12)}, to_core);
    // 2001:db8:3g::/48 through gateway fc00:12::1g (g = 0..3), each with its own MAC.
    for (uint8_t g = 0; g < 4; ++g)
        both(rib::main_table, 0, "2001:db8:3" + std::to_string(g) + "::/48", {via(("fc00:12::1" + std::to_string(g)).c_str(), 12)},
             fl.add_nh(fwd_nh(core, mac{{2, 0, 0, 0, 0xb, static_cast<uint8_t>(0x10 + g)}}, core_mac)));
    // fd02::/64 connected on the core port, 256 hosts fd02::h resolved, each its own MAC: the
    // destination is the neighbor. The floor, as a DPDK sample does it, has a /128 per host.
    add(rib::main_table, "fd02::/64", {[] {
            rib::nexthop n;
            n.ifindex = 12;
            return n;
        }()});
    for (uint16_t hst = 0; hst < 256; ++hst) {
        const rib::prefix p = *rib::parse_prefix("fd02::" + std::to_string(hst) + "/128");
        floor_ok &= fl.add6(0, p.bytes.data(), p.len,
                            fl.add_nh(fwd_nh(core, mac{{2, 0, 0, 0, 0xd, static_cast<uint8_t>(hst)}}, core_mac)));
    }
    floor_nh end_nh;
    end_nh.kind = floor_nh::end;
    floor_nh dt46_nh;
    dt46_nh.kind = floor_nh::dt46;
    dt46_nh.vrf = 1;
    add_sid("fc00:0:1::1/128", rib::behavior::end, std::nullopt, fl.add_nh(end_nh));
    {  // End.X to the core's gateway fc00:12::2 (as FRR's `sid ... behavior uA` or End.X gives it)
        rib::nexthop n;
        n.ifindex = 12;
        rib::seg6local l;
        l.action = rib::behavior::end_x;
        l.nh6 = a6("fc00:12::2");
        n.local = l;
        rib::route x;
        x.key.dst = *rib::parse_prefix("fc00:0:1::e1/128");
        x.protocol = rib::proto::kernel;
        x.nexthops = {n};
        r.upsert_route(x);
        floor_nh end_x_nh = fwd_nh(core, core_gw_mac, core_mac);
        end_x_nh.kind = floor_nh::end_x;
        const rib::prefix p = *rib::parse_prefix("fc00:0:1::e1/128");
        floor_ok &= fl.add6(0, p.bytes.data(), p.len, fl.add_nh(end_x_nh));
    }
    add_sid("fc00:0:1::46/128", rib::behavior::end_dt46, bt, fl.add_nh(dt46_nh));
    {  // H.Insert, 1 SID (the kernel's `mode inline`): beside H.Encaps.V6's fd98::/16
        const std::vector<rib::ip6_addr> one = {a6("fc00:0:2::d6")};
        floor_nh ins = fwd_nh(core, core_gw_mac, core_mac);
        ins.kind = floor_nh::insert;
        const auto t = fib::build_encap_template(rib::encap_mode::inline_srh, one, {}, 41);
        ins.len = t.tmpl.len;
        std::memcpy(ins.tmpl, t.tmpl.bytes, t.tmpl.len);
        both(bt, 1, "fd97::/16", {enc(rib::encap_mode::inline_srh, one)}, fl.add_nh(ins));
    }
    {  // End.B6.Encaps fc00:0:1::b6, its policy 2 SIDs (H.Encaps) through the core
        const std::vector<rib::ip6_addr> policy = {a6("fc00:0:3::1"), a6("fc00:0:2::d6")};
        rib::nexthop n;
        n.ifindex = 12;
        rib::seg6local l;
        l.action = rib::behavior::end_b6_encaps;
        l.srh = rib::seg6_encap{rib::encap_mode::encap, policy, std::nullopt, {}};
        n.local = l;
        rib::route x;
        x.key.dst = *rib::parse_prefix("fc00:0:1::b6/128");
        x.protocol = rib::proto::kernel;
        x.nexthops = {n};
        r.upsert_route(x);
        floor_nh b6 = encap_nh(core, false, false, 41, policy, src_cfg);
        b6.kind = floor_nh::b6_encaps;
        const rib::prefix p = *rib::parse_prefix("fc00:0:1::b6/128");
        floor_ok &= fl.add6(0, p.bytes.data(), p.len, fl.add_nh(b6));
    }
    {  // End.DX2 to the ce port (oif 11): a VPWS's far end
        floor_nh dx2_nh;
        dx2_nh.kind = floor_nh::dx2;
        dx2_nh.port = h.ce.id;
        add_sid("fc00:0:1::d2/128", rib::behavior::end_dx2, std::nullopt, fl.add_nh(dx2_nh));
    }
    if (!floor_ok) {
        std::fprintf(stderr, "floor: a route was refused\n");
        return 1;
    }
    fib::compiler c{rcu};
    if (!c.compile(r, reg, src)) {
        std::fprintf(stderr, "compile failed\n");
        return 1;
    }
    while (c.settling())  // the steady state: quiet tables flat, as srv6d gets them
        c.compile(r, reg, src);
    const vrf::vrf_id bench_vrf = reg.find("v1000")->id;

    fwd::port_info pce{h.ce.id, bench_vrf, 1500, true, 11, {}};
    fwd::port_info pcore{h.core.id, vrf::default_vrf_id, 9000, true, 12, {}};
    std::memcpy(pce.mac.bytes, ce_mac.b, 6);
    std::memcpy(pcore.mac.bytes, core_mac.b, 6);
    std::vector<fwd::port_info> ports = {pce, pcore};
    std::vector<fwd::neighbor> ns = {
        {h.core.id, *rib::parse_addr("fc00:12::2"), {{2, 0, 0, 0, 0xb, 2}}},
        {h.core.id, *rib::parse_addr("fc00:12::3"), {{2, 0, 0, 0, 0xb, 3}}},
        {h.ce.id, *rib::parse_addr("10.1.0.2"), {{2, 0, 0, 0, 0xc, 1}}},
        {h.ce.id, *rib::parse_addr("fd01::2"), {{2, 0, 0, 0, 0xc, 1}}},
    };
    for (uint8_t g = 0; g < 4; ++g)
        ns.push_back({h.core.id, *rib::parse_addr("fc00:12::1" + std::to_string(g)), {{2, 0, 0, 0, 0xb, static_cast<uint8_t>(0x10 + g)}}});
    for (uint16_t hst = 0; hst < 256; ++hst)
        ns.push_back({h.core.id, *rib::parse_addr("fd02::" + std::to_string(hst)), {{2, 0, 0, 0, 0xd, static_cast<uint8_t>(hst)}}});
    // The router's own addresses on its ports, as the control thread gives them.
    const std::vector<fwd::own_address> own = {
        {vrf::default_vrf_id, *rib::parse_addr("fc00:12::1"), h.core.id},
        {bench_vrf, *rib::parse_addr("10.1.0.1"), h.ce.id},
        {bench_vrf, *rib::parse_addr("fd01::1"), h.ce.id},
    };
    fib::rcu_cell<fwd::adj_view> adj;
    (void)adj.exchange(fwd::adj_view::create(ports, ns, 0, own));
    auto counters = std::make_unique<fwd::worker_counters>();
    fwd::worker w({{h.ce.id, 0}, {h.core.id, 0}}, 0, fwd::published{&c.cell(), &adj}, hdr, *counters);

    // ---- frames: 256 flows per case
    // 0..255 for flow i, well mixed (MurmurHash3's finalizer): consecutive flows to targets in
    // no order a branch predictor learns, the same one again as often as chance has it.
    auto scramble = [](uint16_t i) {
        uint32_t x = uint32_t{i} + 1;
        x ^= x >> 16;
        x *= 0x85ebca6bu;
        x ^= x >> 13;
        x *= 0xc2b2ae35u;
        x ^= x >> 16;
        return x & 0xffu;
    };
    auto frames = [&](auto make) {
        std::vector<bytes> v;
        for (uint16_t i = 0; i < 256; ++i)
            v.push_back(make(i));
        return v;
    };
    const auto src6 = a6("fc00:0:9::1");
    auto e4 = [&](const bytes& l3) { return eth(ce_mac, sender_mac, 0x0800, l3); };
    auto e6 = [&](const mac& to, const bytes& l3) { return eth(to, sender_mac, 0x86dd, l3); };
    // To `sid` with an SRH {fc00:0:2::d6 (flow i in its last word), sid}, SL 1, an IPv4 payload.
    auto srh_frame = [&](const char* sid, uint16_t i) {
        bytes s(8 + 32);
        s[0] = 4;
        s[1] = 4;
        s[2] = 4;
        s[3] = 1;
        s[4] = 1;
        std::memcpy(s.data() + 8, with_word(a6("fc00:0:2::d6"), 14, i).bytes.data(), 16);
        std::memcpy(s.data() + 24, a6(sid).bytes.data(), 16);
        const bytes in4 = ip4(0x0a090001, 0x0a010002, i);
        s.insert(s.end(), in4.begin(), in4.end());
        return e6(core_mac, ip6(src6, a6(sid), 43, s));
    };
    std::vector<bench_case> cases = {
        {"IPv6 forward (default VRF)", &h.core,
         frames([&](uint16_t i) { return e6(core_mac, ip6(src6, with_word(a6("2001:db8:20::1"), 14, i), 17, udp(i))); })},
        {"IPv4 -> H.Encaps.Red, 1 SID", &h.ce,
         frames([&](uint16_t i) { return e4(ip4(0x0a010002, 0x0a630000u | i, static_cast<uint16_t>(1000 + i))); })},
        {"IPv6 -> H.Encaps, 3 SIDs (SRH)", &h.ce,
         frames([&](uint16_t i) { return e6(ce_mac, ip6(a6("fd01::2"), with_word(a6("fd99:1::"), 14, i), 17, udp(i))); })},
        {"IPv6 -> H.Encaps, 1 SID (V6)", &h.ce,
         frames([&](uint16_t i) { return e6(ce_mac, ip6(a6("fd01::2"), with_word(a6("fd98:1::"), 14, i), 17, udp(i))); })},
        {"frame -> H.Encaps.L2, 1 SID", &h.ce,
         frames([&](uint16_t i) { return e4(ip4(0x0a010002, 0x0a620000u | i, static_cast<uint16_t>(1000 + i))); })},
        {"End (SRH, SL 1 -> 0)", &h.core, frames([&](uint16_t i) { return srh_frame("fc00:0:1::1", i); })},
        {"IPv6 -> H.Insert, 1 SID", &h.ce,
         frames([&](uint16_t i) { return e6(ce_mac, ip6(a6("fd01::2"), with_word(a6("fd97:1::"), 14, i), 17, udp(i))); })},
        {"End.B6.Encaps, 2-SID policy", &h.core, frames([&](uint16_t i) { return srh_frame("fc00:0:1::b6", i); })},
        {"End.X (SRH, SL 1 -> 0)", &h.core, frames([&](uint16_t i) { return srh_frame("fc00:0:1::e1", i); })},
        {"End.DT46, IPv4 inner", &h.core,
         frames([&](uint16_t i) { return e6(core_mac, ip6(src6, a6("fc00:0:1::46"), 4, ip4(0x0a090001, 0x0a010000u | i, i))); })},
        {"End.DT46, IPv6 inner", &h.core, frames([&](uint16_t i) {
             return e6(core_mac, ip6(src6, a6("fc00:0:1::46"), 41, ip6(src6, with_word(a6("fd01::"), 14, i), 17, udp(i))));
         })},
        // A VPWS's far end: H.Encaps.L2.Red with one SID (no SRH), the frame a CE's IPv4 packet.
        {"End.DX2 (frame, no SRH)", &h.core, frames([&](uint16_t i) {
             return e6(core_mac, ip6(src6, a6("fc00:0:1::d2"), 143,
                                     eth(ce_host_mac, sender_mac, 0x0800, ip4(0x0a090001, 0x0a010000u | i, i))));
         })},
    };
    // The two IPv4 headend cases again as a NIC with IPv4 checksum offload hands them over
    // (srv6d enables it where the port has it): srv6d takes the NIC's verdict instead of
    // summing the header; the floor never checks it, so it does the same work in both.
    cases.push_back({"IPv4 -> H.Encaps.Red, NIC cksum", &h.ce, cases[1].f, RTE_MBUF_F_RX_IP_CKSUM_GOOD});
    cases.push_back({"frame -> H.Encaps.L2, NIC cksum", &h.ce, cases[4].f, RTE_MBUF_F_RX_IP_CKSUM_GOOD});
    // VPN traffic to several remote PEs at once: 10.100.j.0/24 of the bench VRF goes to PE
    // j % 4, and packet i is for j = scramble(i), so the PE changes from packet to packet in no
    // order a branch predictor could learn (as flows from many hosts interleave on a real
    // link; PE i % 4 was a fixed cycle of 4 that it did learn). The outer route of each
    // template is needed again and again within a burst; the floor's templates carry it.
    cases.push_back({"IPv4 -> H.Encaps.Red, 4 PEs mixed", &h.ce, frames([&](uint16_t i) {
                         return e4(ip4(0x0a010002, 0x0a640001u | scramble(i) << 8, static_cast<uint16_t>(1000 + i)));
                     })});
    // VPN traffic to a PE reached over 2-way ECMP (two gateways): the outer route is a group,
    // its member picked per flow.
    cases.push_back({"IPv4 -> H.Encaps.Red, outer 2-way ECMP", &h.ce, frames([&](uint16_t i) {
                         return e4(ip4(0x0a010002, 0x0a610000u | i, static_cast<uint16_t>(1000 + i)));
                     })});
    // The same for routed traffic: core traffic spread over 4 gateways (2001:db8:3g::/48 via
    // fc00:12::1g), the gateway of packet i scramble(i) % 4: changing from packet to packet,
    // in no learnable order.
    cases.push_back({"IPv6 forward, 4 gateways mixed", &h.core, frames([&](uint16_t i) {
                         const std::string dst = "2001:db8:3" + std::to_string(scramble(i) % 4) + "::";
                         return e6(core_mac, ip6(src6, with_word(a6(dst.c_str()), 14, i), 17, udp(i)));
                     })});

    // A core port's usual mix: VPN traffic for this PE's End.DT46 SID and transit traffic
    // routed on, the kind of packet i scramble(i) & 1 (no order a branch predictor learns):
    // the dispatch on the nexthop kind changes from packet to packet, for srv6d and the floor.
    cases.push_back({"core mixed: End.DT46 + IPv6 forward", &h.core, frames([&](uint16_t i) {
                         if (scramble(i) & 1)
                             return e6(core_mac, ip6(src6, a6("fc00:0:1::46"), 41,
                                                     ip6(src6, with_word(a6("fd01::"), 14, i), 17, udp(i))));
                         return e6(core_mac, ip6(src6, with_word(a6("2001:db8:20::1"), 14, i), 17, udp(i)));
                     })});

    // Routed traffic to hosts on a connected subnet (fd02::/64 on the core port): the
    // destination is the neighbor, a different one at every packet.
    cases.push_back({"IPv6 forward, connected, 256 hosts", &h.core, frames([&](uint16_t i) {
                         return e6(core_mac, ip6(src6, a6(("fd02::" + std::to_string(i)).c_str()), 17, udp(i)));
                     })});

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
    auto floor_step = [&] { fl.poll(); };

    auto drops = [&] {
        uint64_t d = 0;
        for (size_t k = 0; k < fwd::drop_reason_count; ++k)
            d += counters->drops[k].get();
        return d;
    };

    const double hz = static_cast<double>(rte_get_tsc_hz());
    std::printf("CPU %s, TSC %.0f MHz, lcore %s (pinned), %s\n", cpu_model().c_str(), hz / 1e6, lcore.c_str(),
                huge ? "2 MiB hugepages (--in-memory)" : "4 KiB pages (--no-huge)");
    std::printf("%llu packets per run after a warm-up, %d repetitions (io, then srv6d and the floor interleaved in %u "
                "turns each), %u mbufs circulating, 64-byte-class frames, 256 flows\n",
                static_cast<unsigned long long>(packets), reps, slices, mbufs);
    std::printf("tables: srv6d 1000 VRFs x (1000 IPv4 + 1000 IPv6) routes + the case routes; floor: rte_lpm + %s "
                "with the routes of the VRFs the packets use\n\n",
                f6 == floor_lpm6::lpm6 ? "rte_lpm6" : "rte_fib6 (TRIE)");

    // ---- outputs checked byte for byte, every frame of every case
    for (const auto& k : cases) {
        if (!only.empty() && std::string(k.name).find(only) == std::string::npos)
            continue;
        const uint64_t d0 = drops();
        h.rx_flags = k.rx_flags;
        const auto a = h.capture(*k.in, k.f, worker_step);
        const auto b = h.capture(*k.in, k.f, floor_step);
        for (size_t i = 0; i < k.f.size(); ++i) {
            if (a[i].empty() || a[i] != b[i]) {
                std::fprintf(stderr, "%s: frame %zu: srv6d %zu bytes, floor %zu bytes, differ (srv6d drops %llu)\n",
                             k.name, i, a[i].size(), b[i].size(), static_cast<unsigned long long>(drops() - d0));
                for (const auto* x : {&a[i], &b[i]}) {
                    for (uint8_t byte : *x)
                        std::fprintf(stderr, "%02x", byte);
                    std::fprintf(stderr, "\n");
                }
                return 1;
            }
        }
    }
    std::printf("outputs: srv6d and the floor identical, byte for byte, for every frame of every case\n\n");

    // ---- timing
    const uint64_t warmup = packets / 10;
    std::vector<figures> fig(cases.size());
    std::vector<double> red_cfg, red_frr, l2_over_v6;
    const size_t red = 1;
    size_t l2_case = cases.size(), v6_case = cases.size();
    for (size_t i = 0; i < cases.size(); ++i) {
        if (std::string(cases[i].name).find("L2, 1 SID") != std::string::npos)
            l2_case = i;
        if (std::string(cases[i].name).find("(V6)") != std::string::npos)
            v6_case = i;
    }
    for (int rep = 0; rep < reps; ++rep) {
        for (size_t i = 0; i < cases.size(); ++i) {
            const auto& k = cases[i];
            if (!only.empty() && std::string(k.name).find(only) == std::string::npos)
                continue;
            h.rx_flags = k.rx_flags;
            fig[i].io.push_back(h.run(*k.in, k.f, packets, warmup, io_step).cycles);
            const auto [with_srv6d, with_floor] = h.run_pair(*k.in, k.f, packets, warmup, slices, worker_step, floor_step);
            fig[i].srv6d.push_back(with_srv6d.cycles);
            fig[i].floor.push_back(with_floor.cycles);
        }
        h.rx_flags = 0;
        if (only.empty() || std::string(cases[red].name).find(only) != std::string::npos) {
            // The same H.Encaps.Red case with the source from srv6d's config and from FRR's
            // global source-address (the kernel tunsrc, no encap.source), interleaved as srv6d
            // and the floor are: the templates are recompiled before each turn (~4 ms, untimed),
            // the packet path is the same.
            const auto source = [&](int side) {
                vrf::tunsrc_reading reading;  // side 1: FRR's source-address, as zebra writes it
                reading.ok = true;
                if (side == 1)
                    reading.addr = a6("fc00:1::99");
                (void)src.set_kernel_tunsrc(reading);
                (void)src.set_configured(side == 0 ? std::optional<rib::ip6_addr>(src_cfg) : std::nullopt);
                c.compile(r, reg, src);
                rcu.synchronize();
            };
            const auto [cfg, frr] = h.run_pair(h.ce, cases[red].f, packets, warmup, slices, worker_step, worker_step, source);
            red_cfg.push_back(cfg.cycles);
            red_frr.push_back(frr.cycles);
            source(0);  // as the other cases have it
        }
        if (only.empty() && l2_case < cases.size() && v6_case < cases.size()) {
            // H.Encaps.L2 against H.Encaps.V6, both srv6d, interleaved: their two figures in
            // the table above come from runs tens of milliseconds apart.
            const auto [l2r, v6r] = h.run_pair(h.ce, cases[l2_case].f, cases[v6_case].f, packets, warmup, slices,
                                               worker_step, worker_step);
            l2_over_v6.push_back(v6r.cycles / l2r.cycles);  // throughput: the inverse of cycles
        }
    }

    // The ratio is taken per repetition (srv6d and the floor ran interleaved): the machine's
    // state moves both alike, so the ratio is steadier than either figure.
    std::printf("%-32s %-20s %-20s %-20s %7s %7s %6s\n", "case", "srv6d cycles/pkt", "floor cycles/pkt",
                "srv6d / floor", "Mpps", "floor", "io");
    for (size_t i = 0; i < cases.size(); ++i) {
        if (fig[i].srv6d.empty())
            continue;
        std::vector<double> ratio;
        for (size_t k = 0; k < fig[i].srv6d.size(); ++k)
            ratio.push_back(fig[i].srv6d[k] / fig[i].floor[k]);
        const spread s = spread_of(fig[i].srv6d), f = spread_of(fig[i].floor), io = spread_of(fig[i].io),
                     q = spread_of(ratio);
        char a[32], b[32], c3[32];
        std::snprintf(a, sizeof a, "%.1f (%.1f-%.1f)", s.med, s.min, s.max);
        std::snprintf(b, sizeof b, "%.1f (%.1f-%.1f)", f.med, f.min, f.max);
        std::snprintf(c3, sizeof c3, "%.2f (%.2f-%.2f)", q.med, q.min, q.max);
        std::printf("%-32s %-20s %-20s %-20s %7.1f %7.1f %6.1f\n", cases[i].name, a, b, c3, hz / s.med / 1e6,
                    hz / f.med / 1e6, io.med);
    }
    if (!red_cfg.empty()) {
        std::vector<double> ratio;
        for (size_t k = 0; k < red_cfg.size(); ++k)
            ratio.push_back(red_cfg[k] / red_frr[k]);
        const spread cfg = spread_of(red_cfg), der = spread_of(red_frr), q = spread_of(ratio);
        std::printf("\nIPv4 -> H.Encaps.Red, source configured %.1f (%.1f-%.1f), FRR's source-address %.1f (%.1f-%.1f): "
                    "configured / FRR's %.3f (per repetition %.3f-%.3f)\n",
                    cfg.med, cfg.min, cfg.max, der.med, der.min, der.max, q.med, q.min, q.max);
    }
    if (!l2_over_v6.empty()) {
        const spread q = spread_of(l2_over_v6);
        std::printf("H.Encaps.L2 / H.Encaps.V6 throughput (1 SID each, interleaved): %.3f (per repetition %.3f-%.3f)\n",
                    q.med, q.min, q.max);
    }
    std::printf("(Mpps: per core, TSC Hz / median cycles; io: io-forward, the transport alone)\n");

    if (two) {
        two_workers_setup ts;
        ts.pool = h.pool;
        ts.tables = &c.cell();
        ts.ce = pce;
        ts.core = pcore;
        ts.neighbors = ns;
        ts.ce_id1 = h.ce.id;
        ts.core_id1 = h.core.id;
        ts.packets = packets;
        ts.reps = reps;
        ts.mbufs = mbufs;
        std::vector<two_workers_case> tc;
        for (const char* base : {"IPv4 -> H.Encaps.Red, 1 SID", "IPv6 forward (default VRF)"})
            for (const auto& k : cases) {
                const std::string name = two_prefix + k.name;
                if (k.name != std::string(base) || (!only.empty() && name.find(only) == std::string::npos))
                    continue;
                tc.push_back({name, k.in == &h.ce, &k.f, h.capture(*k.in, k.f, worker_step)});
            }
        if (run_two_workers(ts, tc) != 0)
            return 1;
    }

    fwd::adj_view::destroy(adj.exchange(nullptr));
    fl_owner.reset();
    fwd::eal_cleanup();
    return 0;
}
