// Headend cost per packet: TSC cycles of h_encaps over bursts of 32 real mbufs from a mempool
// (inner flow hash, traffic class, template copy, length fields; the header-mbuf fallback for
// 8 SIDs). Cache-hot and lookup-free: the encapsulation step alone, the part issue 4's
// "<= 100 cycles/packet" budget must leave room around.
//
//   bench_headend_bench [--bursts N] [--runs R]     (defaults: 50000 bursts per round, 15 rounds)
// EAL arguments come from SRV6D_EAL_ARGS; the default uses ordinary memory (--no-huge), which
// works with no hugepages reserved and changes nothing for 32 cache-hot mbufs.
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "fib/control/encap_build.hh"
#include "rib/addr.hh"
#include "rib/model.hh"
#include "forward/control/eal.hh"
#include "forward/datapath/srv6_headend.hh"

namespace {

using rib::encap_mode;
using bytes = std::vector<uint8_t>;

constexpr unsigned burst = 32;

// The template srv6d's compiler builds (fib::build_encap_template) for n SIDs from source
// fc00:a::1: the bench measures the header the product pushes.
fib::encap_template make_template(encap_mode mode, size_t n, bool v6) {
    std::vector<rib::ip6_addr> sids(n);
    for (size_t i = 0; i < n; ++i) {
        sids[i].bytes[0] = 0xfc;
        sids[i].bytes[3] = static_cast<uint8_t>(0x0b + i);
        sids[i].bytes[15] = static_cast<uint8_t>(i + 1);
    }
    rib::ip6_addr source;
    source.bytes[0] = 0xfc;
    source.bytes[3] = 0x0a;
    source.bytes[15] = 1;
    const auto b = fib::build_encap_template(mode, sids, source, v6 ? fib::ipproto::ipv6 : fib::ipproto::ipip);
    if (!b.ok()) {
        std::fprintf(stderr, "bad template: %s\n", std::string(fib::name(b.refusal)).c_str());
        std::exit(1);
    }
    return b.tmpl;
}

// 64-byte Ethernet frames (IPv4/UDP) and 78-byte ones (IPv6/UDP): the smallest real packets.
bytes make_frame(bool v6, unsigned flow) {
    bytes f = {2, 0, 0, 0, 0, 0x10, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
    if (!v6) {
        const bytes ip = {0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0, 10, 1, 0, 2, 10, 99, 1, 5};
        f.insert(f.end(), ip.begin(), ip.end());
    } else {
        f[12] = 0x86;
        f[13] = 0xdd;
        bytes ip = {0x60, 0, 0, 0, 0, 26, 17, 64};
        ip.resize(40, 0);
        ip[8] = 0xfd;
        ip[9] = 0x01;
        ip[23] = 2;
        ip[24] = 0xfd;
        ip[25] = 0x99;
        ip[39] = 5;
        f.insert(f.end(), ip.begin(), ip.end());
    }
    const bytes udp = {static_cast<uint8_t>(flow >> 8), static_cast<uint8_t>(flow), 0x07, 0xd0, 0, 26, 0, 0};
    f.insert(f.end(), udp.begin(), udp.end());
    f.resize(std::max<size_t>(f.size() + 18, 64), 0xab);
    return f;
}

struct bench_case {
    const char* name;
    encap_mode mode;
    size_t sids;
    bool v6;
    bool hash_given = false;  // the forwarding stage already hashed the flow (VRF ECMP)
};

// One case's packets and template, measured a round at a time so that the cases interleave:
// the machine's load drifts, and ratios between cases must compare like with like.
class bench_state {
public:
    bench_state(const bench_case& c, rte_mempool* pkts, rte_mempool* hdrs)
        : _c(c), _view(make_template(c.mode, c.sids, c.v6)), _ctx{hdrs, 0} {
        for (unsigned i = 0; i < burst; ++i) {
            const bytes f = make_frame(c.v6, 1000 + i);
            _ms[i] = rte_pktmbuf_alloc(pkts);
            std::memcpy(rte_pktmbuf_append(_ms[i], static_cast<uint16_t>(f.size())), f.data(), f.size());
        }
    }
    ~bench_state() {
        for (auto* m : _ms)
            rte_pktmbuf_free(m);
    }
    bench_state(const bench_state&) = delete;
    bench_state& operator=(const bench_state&) = delete;

    // Median TSC cycles per packet over `bursts` bursts. Per burst, not in total: on a shared
    // machine a preemption inside a timed window adds milliseconds; the median burst is what
    // the code costs.
    double round(unsigned bursts) {
        _samples.resize(bursts);
        for (unsigned b = 0; b < bursts; ++b) {
            fwd::drop_reason why{};
            const uint64_t t0 = rte_rdtsc_precise();
            if (_c.hash_given) {
                for (unsigned i = 0; i < burst; ++i)
                    _out[i] = fwd::h_encaps(_ms[i], l3_off, 0x9e3779b9u * i, _view, _ctx, why);
            } else {
                for (unsigned i = 0; i < burst; ++i)
                    _out[i] = fwd::h_encaps(_ms[i], l3_off, _view, _ctx, why);
            }
            _samples[b] = rte_rdtsc_precise() - t0;
            undo(why);
        }
        std::nth_element(_samples.begin(), _samples.begin() + bursts / 2, _samples.end());
        return static_cast<double>(_samples[bursts / 2]) / burst;
    }
    uint64_t chained() const { return _ctx.hdr_chained; }

private:
    static constexpr uint16_t l3_off = 14;

    // Untimed: back to the frames as received.
    void undo(fwd::drop_reason why) {
        for (unsigned i = 0; i < burst; ++i) {
            rte_mbuf* h = _out[i];
            if (h == nullptr) {
                std::fprintf(stderr, "%s: dropped (%s)\n", _c.name, std::string(fwd::name(why)).c_str());
                std::exit(1);
            }
            if (h != _ms[i]) {  // chained: give the header mbuf back
                rte_mbuf* m = h->next;
                m->nb_segs = static_cast<uint16_t>(h->nb_segs - 1);
                m->pkt_len = h->pkt_len - h->data_len;
                h->next = nullptr;
                h->nb_segs = 1;
                rte_pktmbuf_free_seg(h);
            } else {
                rte_pktmbuf_adj(h, _view.len);
            }
            if (!_view.l2)
                rte_pktmbuf_prepend(_ms[i], l3_off);
        }
    }

    bench_case _c;
    fib::encap_template _view;  // as stored in the nexthop
    fwd::headend_ctx _ctx;
    std::array<rte_mbuf*, burst> _ms{};
    std::array<rte_mbuf*, burst> _out{};
    std::vector<uint64_t> _samples;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    unsigned bursts = 50000, runs = 15;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--bursts") == 0)
            bursts = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--runs") == 0)
            runs = static_cast<unsigned>(std::atoi(argv[i + 1]));
    }
    const char* env = std::getenv("SRV6D_EAL_ARGS");
    std::string err;
    const std::vector<std::string> def = {"-l", "0", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
                                          "--no-telemetry", "--log-level=lib.eal:error"};
    if (!fwd::eal_init(argv[0], env ? fwd::split_args(env) : def, err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
    }
    rte_mempool* pkts = rte_pktmbuf_pool_create("hb_pkts", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    rte_mempool* hdrs = fwd::headend_hdr_pool_create("hb_hdrs", 255, SOCKET_ID_ANY);
    if (pkts == nullptr || hdrs == nullptr) {
        std::fprintf(stderr, "mempool creation failed\n");
        return 1;
    }

    const bench_case cases[] = {
        {"H.Encaps.Red 1 SID, IPv4 inner", encap_mode::encap_red, 1, false},
        {"H.Encaps.Red 1 SID, IPv4 inner, hash given", encap_mode::encap_red, 1, false, true},
        {"H.Encaps 3 SIDs, IPv6 inner (H.Encaps.V6)", encap_mode::encap, 3, true},
        {"H.Encaps.L2 3 SIDs, IPv6 in Ethernet", encap_mode::l2encap, 3, true},
        {"H.Encaps.L2 3 SIDs, IPv4 in Ethernet", encap_mode::l2encap, 3, false},
        {"H.Encaps.L2.Red 1 SID, IPv4 in Ethernet", encap_mode::l2encap_red, 1, false},
        {"H.Encaps 8 SIDs, IPv6 inner (header mbuf)", encap_mode::encap, 8, true},
    };
    constexpr size_t v6_case = 2, l2_case = 3;
    const double hz = static_cast<double>(rte_get_tsc_hz());
    constexpr size_t n_cases = std::size(cases);
    std::vector<std::unique_ptr<bench_state>> st;
    for (const auto& c : cases)
        st.push_back(std::make_unique<bench_state>(c, pkts, hdrs));
    std::array<std::vector<double>, n_cases> rounds;
    std::vector<double> l2_over_v6;
    for (unsigned r = 0; r < runs; ++r) {
        for (size_t i = 0; i < n_cases; ++i)
            rounds[i].push_back(st[i]->round(bursts));
        // Throughput ratio H.Encaps.L2 / H.Encaps.V6 (same 3 SIDs, same IPv6 inner) within a round.
        l2_over_v6.push_back(rounds[v6_case].back() / rounds[l2_case].back());
    }
    std::printf("TSC %.0f MHz, burst %u, %u bursts per round, %u interleaved rounds: median [min..max] of the "
                "rounds' median burst\n",
                hz / 1e6, burst, bursts, runs);
    std::printf("%-44s %24s %10s\n", "case", "TSC cycles/packet", "Mpps");
    for (size_t i = 0; i < n_cases; ++i) {
        const auto [lo, hi] = std::minmax_element(rounds[i].begin(), rounds[i].end());
        const double med = median(rounds[i]);
        std::printf("%-44s %8.1f [%5.1f..%5.1f] %10.1f%s\n", cases[i].name, med, *lo, *hi, hz / med / 1e6,
                    st[i]->chained() != 0 ? "  (chained)" : "");
    }
    const auto [rlo, rhi] = std::minmax_element(l2_over_v6.begin(), l2_over_v6.end());
    std::printf("H.Encaps.L2 / H.Encaps.V6 throughput ratio: %.2f [%.2f..%.2f] (issue 4: >= 0.95)\n",
                median(l2_over_v6), *rlo, *rhi);
    st.clear();
    rte_mempool_free(pkts);
    rte_mempool_free(hdrs);
    fwd::eal_cleanup();
    return 0;
}
