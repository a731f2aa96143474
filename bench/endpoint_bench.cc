// SRv6 endpoint cost in TSC cycles per packet: process_endpoint over bursts of 32 real mbufs.
// Each burst is rewritten from its template outside the timed region (the behaviors rewrite
// packets in place), so the figure is the endpoint function plus the per-packet dispatch on
// its result, with packet data hot in cache as after an RX burst. Reported: the median burst of
// each run, then the median run. Usage:
//   bench_endpoint_bench [bursts per run = 200000] [runs = 5]
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "forward/control/eal.hh"
#include "forward/datapath/srv6_endpoint.hh"

namespace {

using bytes = std::vector<uint8_t>;
constexpr unsigned burst = 32;

void put16(bytes& b, size_t at, unsigned v) {
    b[at] = static_cast<uint8_t>(v >> 8);
    b[at + 1] = static_cast<uint8_t>(v);
}

// 16-byte address: `prefix` bytes then `last` in the final byte.
void put_addr(bytes& b, size_t at, std::initializer_list<uint8_t> prefix, uint8_t last) {
    std::memset(b.data() + at, 0, 16);
    std::copy(prefix.begin(), prefix.end(), b.begin() + static_cast<long>(at));
    b[at + 15] = last;
}

bytes ip6_hdr(uint8_t nh, const bytes& payload, std::initializer_list<uint8_t> da_prefix, uint8_t da_last) {
    bytes b(40);
    b[0] = 0x60;
    put16(b, 4, static_cast<unsigned>(payload.size()));
    b[6] = nh;
    b[7] = 64;
    put_addr(b, 8, {0xfc, 0x00, 0x00, 0x00, 0x00, 0x0a}, 1);
    put_addr(b, 24, da_prefix, da_last);
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

bytes inner4() {
    bytes b(20 + 8 + 18);
    b[0] = 0x45;
    put16(b, 2, static_cast<unsigned>(b.size()));
    b[8] = 64;
    b[9] = 17;
    b[12] = 10, b[13] = 1, b[15] = 1;
    b[16] = 10, b[17] = 2, b[19] = 1;
    uint32_t sum = 0;
    for (size_t i = 0; i < 20; i += 2)
        sum += static_cast<uint32_t>(b[i] << 8 | b[i + 1]);
    sum = (sum & 0xffff) + (sum >> 16);
    put16(b, 10, ~sum & 0xffff);
    return b;
}

bytes inner6() {
    bytes udp(8 + 18);
    return ip6_hdr(17, udp, {0xfd, 0x02}, 1);
}

// SRH with three segments, Segments Left `sl`, followed by `inner` (protocol `nh`).
bytes srh3(uint8_t sl, uint8_t nh, const bytes& inner) {
    bytes b(8 + 48);
    b[0] = nh;
    b[1] = 6;
    b[2] = 4;
    b[3] = sl;
    b[4] = 2;
    put_addr(b, 8, {0xfc, 0x00, 0x00, 0x00, 0x00, 0x03}, 1);
    put_addr(b, 24, {0xfc, 0x00, 0x00, 0x00, 0x00, 0x02}, 1);
    put_addr(b, 40, {0xfc, 0x00, 0x00, 0x00, 0x00, 0x01}, 0xe);
    b.insert(b.end(), inner.begin(), inner.end());
    return b;
}

struct scenario {
    std::string name;
    bytes pkt;
    fwd::sid_params sid;
    fwd::endpoint_action expect;
};

std::vector<scenario> scenarios() {
    using rib::behavior;
    std::vector<scenario> s;
    fwd::sid_params end;
    end.behavior = behavior::end;
    s.push_back({"End (SRH 3 SIDs, SL 2)", ip6_hdr(43, srh3(2, 4, inner4()), {0xfc, 0, 0, 0, 0, 1}, 0xe), end,
                 fwd::endpoint_action::forward_v6});
    fwd::sid_params psp = end;
    psp.flavors = rib::flavor::psp;
    s.push_back({"End PSP (SL 1 -> pop)", ip6_hdr(43, srh3(1, 4, inner4()), {0xfc, 0, 0, 0, 0, 2}, 1), psp,
                 fwd::endpoint_action::forward_v6});
    fwd::sid_params un = end;
    un.flavors = rib::flavor::next_csid;
    s.push_back({"uN shift (F3216, no SRH)", ip6_hdr(4, inner4(), {0xfc, 0, 0, 0, 0, 1, 0, 2, 0, 3}, 0), un,
                 fwd::endpoint_action::forward_v6});
    fwd::sid_params dt46;
    dt46.behavior = behavior::end_dt46;
    dt46.vrf = 7;
    s.push_back({"End.DT46 IPv4 inner (no SRH)", ip6_hdr(4, inner4(), {0xfc, 0, 0, 0, 0, 1}, 0x46), dt46,
                 fwd::endpoint_action::lookup_v4});
    s.push_back({"End.DT46 IPv6 inner (no SRH)", ip6_hdr(41, inner6(), {0xfc, 0, 0, 0, 0, 1}, 0x46), dt46,
                 fwd::endpoint_action::lookup_v6});
    s.push_back({"End.DT46 IPv4 inner (SRH SL 0)", ip6_hdr(43, srh3(0, 4, inner4()), {0xfc, 0, 0, 0, 0, 3}, 1),
                 dt46, fwd::endpoint_action::lookup_v4});
    fwd::sid_params dx4;
    dx4.behavior = behavior::end_dx4;
    s.push_back({"End.DX4 (no SRH, TTL - 1)", ip6_hdr(4, inner4(), {0xfc, 0, 0, 0, 0, 1}, 0xd4), dx4,
                 fwd::endpoint_action::send_v4});
    return s;
}

void refill(std::array<rte_mbuf*, burst>& ms, const bytes& pkt) {
    for (rte_mbuf* m : ms) {
        rte_pktmbuf_reset(m);
        std::memcpy(rte_pktmbuf_append(m, static_cast<uint16_t>(pkt.size())), pkt.data(), pkt.size());
    }
}

}  // namespace

int main(int argc, char** argv) {
    const unsigned long bursts = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 200000;
    const unsigned runs = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 5;
    std::string err;
    if (!fwd::eal_init("endpoint_bench",
                       {"-l", "0", "--no-huge", "-m", "128", "--no-pci", "--no-shconf", "--no-telemetry",
                        "--log-level=lib.eal:error"},
                       err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
    }
    rte_mempool* pool = rte_pktmbuf_pool_create("endpoint_bench", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    std::array<rte_mbuf*, burst> ms{};
    if (pool == nullptr || rte_pktmbuf_alloc_bulk(pool, ms.data(), burst) != 0) {
        std::fprintf(stderr, "mbuf pool\n");
        return 1;
    }

    // Cost of the timing itself (two rdtsc and an empty loop), subtracted from every burst.
    uint64_t overhead = ~0ull;
    for (int i = 0; i < 1000; ++i) {
        const uint64_t t0 = rte_rdtsc_precise();
        const uint64_t t1 = rte_rdtsc_precise();
        overhead = std::min(overhead, t1 - t0);
    }

    std::printf("# TSC %.0f MHz, %lu bursts of %u per run, median burst, median of %u runs; timing overhead %lu cycles/burst\n",
                static_cast<double>(rte_get_tsc_hz()) / 1e6, bursts, burst, runs,
                static_cast<unsigned long>(overhead));
    std::printf("%-34s %14s %10s\n", "behavior", "cycles/packet", "Mpps");
    for (const scenario& sc : scenarios()) {
        std::vector<double> per_run;
        std::array<unsigned, 8> actions{};
        std::vector<uint64_t> per_burst(bursts);
        for (unsigned r = 0; r < runs; ++r) {
            for (unsigned long b = 0; b < bursts; ++b) {
                refill(ms, sc.pkt);
                const uint64_t t0 = rte_rdtsc_precise();
                for (rte_mbuf* m : ms) {
                    const fwd::endpoint_result res = fwd::process_endpoint(m, sc.sid);
                    ++actions[static_cast<size_t>(res.action)];  // the caller's dispatch
                }
                const uint64_t t1 = rte_rdtsc_precise();
                per_burst[b] = t1 - t0 > overhead ? t1 - t0 - overhead : 0;
            }
            // The median burst: a burst during which the (shared) core was taken away counts
            // as one outlier, not as millions of cycles spread over the average.
            std::nth_element(per_burst.begin(), per_burst.begin() + static_cast<long>(bursts / 2), per_burst.end());
            per_run.push_back(static_cast<double>(per_burst[bursts / 2]) / burst);
        }
        if (actions[static_cast<size_t>(sc.expect)] != runs * bursts * burst) {
            std::fprintf(stderr, "%s: unexpected result (%s expected)\n", sc.name.c_str(),
                         std::string(fwd::name(sc.expect)).c_str());
            return 1;
        }
        std::sort(per_run.begin(), per_run.end());
        const double med = per_run[per_run.size() / 2];
        std::printf("%-34s %14.1f %10.1f\n", sc.name.c_str(), med, static_cast<double>(rte_get_tsc_hz()) / med / 1e6);
    }
    rte_pktmbuf_free_bulk(ms.data(), burst);
    rte_mempool_free(pool);
    fwd::eal_cleanup();
    return 0;
}
