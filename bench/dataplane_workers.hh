// The two-worker case of bench_dataplane_bench (BENCHMARKS.md "Two workers"): two multi-queue
// net_ring ethdevs (rte_eth_from_rings, one ring pair per queue), as srv6d configures a
// multi-queue port: each worker polls its rx queue of both ports and sends on the same tx queue
// (run_two_workers: on adjacent queues, and on queues a cache line apart). Each worker
// runs on its own EAL lcore with its own closed loop (128 mbufs circulating through its queue,
// restored by a generator on the same lcore between polls, as in the one-worker cases): what RSS
// would give it, without a NIC. Both share the mbuf pool, the compiled tables and the adjacency.
//
// Figures, per repetition: one worker alone on each of the two lcores (the one-worker figure is
// their mean), then both at once. "Per-poll" is the harness's method (median over polls of the
// poll's cycles / packets: a time slice taken by another process does not land in it); the
// aggregate is the sum of the workers' rates. "Closed loop" is packets over wall time on each
// lcore, generator included, summed: it shows what sharing a CPU costs.
#pragma once

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dataplane_harness.hh"
#include "forward/datapath/srv6_headend.hh"
#include "forward/datapath/worker.hh"

namespace bench {

inline constexpr unsigned two_queues = 2;

// A net_ring ethdev with one ring pair per queue; bench_port views of its queues.
struct mq_port {
    uint16_t id = 0;
    std::vector<rte_ring*> rx, tx;
    bench_port queue(unsigned q) const { return {id, rx[q], tx[q]}; }
};

inline mq_port make_mq_port(const std::string& n, rte_mempool* pool, unsigned queues) {
    mq_port p;
    for (unsigned q = 0; q < queues; ++q) {
        const std::string s = n + "_" + std::to_string(q);
        p.rx.push_back(rte_ring_create((s + "_rx").c_str(), 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ));
        p.tx.push_back(rte_ring_create((s + "_tx").c_str(), 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ));
    }
    p.id = static_cast<uint16_t>(rte_eth_from_rings(n.c_str(), p.rx.data(), static_cast<uint16_t>(queues),
                                                    p.tx.data(), static_cast<uint16_t>(queues), 0));
    rte_eth_conf conf{};
    rte_eth_dev_configure(p.id, static_cast<uint16_t>(queues), static_cast<uint16_t>(queues), &conf);
    for (uint16_t q = 0; q < queues; ++q) {
        rte_eth_rx_queue_setup(p.id, q, 1024, 0, nullptr, pool);
        rte_eth_tx_queue_setup(p.id, q, 1024, 0, nullptr);
    }
    rte_eth_dev_start(p.id);
    return p;
}

// One worker and its closed loop.
struct lane {
    harness h;  // ce/core: this lane's queue of each port
    std::unique_ptr<fwd::worker_counters> counters = std::make_unique<fwd::worker_counters>();
    std::unique_ptr<fwd::worker> w;
    rte_mempool* hdr = nullptr;
    // one run's input and results
    const bench_port* in = nullptr;
    const std::vector<bytes>* frames = nullptr;
    uint64_t packets = 0, warmup = 0;
    double cycles = 0;       // median per poll
    double wall_mpps = 0;    // counted packets / wall time, generator included
    uint64_t counted = 0;
    std::atomic<bool> done{false};

    void run_once() {
        h.load(*in, *frames, h.circulating);
        std::vector<double> per;
        per.reserve(packets / 16 + 16);
        uint64_t warm = 0, t_start = 0;
        unsigned idle = 0;
        counted = 0;
        while (counted < packets && idle < 1000) {
            const uint64_t t0 = rte_rdtsc_precise();
            w->poll();
            const uint64_t dt = rte_rdtsc_precise() - t0;
            const unsigned got = h.recycle(*in, *frames);
            if (got == 0) {
                ++idle;
                continue;
            }
            if (warm < warmup) {
                warm += got;
                t_start = rte_rdtsc_precise();
                continue;
            }
            counted += got;
            per.push_back(static_cast<double>(dt) / got);
        }
        const double secs = static_cast<double>(rte_rdtsc_precise() - t_start) / static_cast<double>(rte_get_tsc_hz());
        h.drain();
        cycles = 0;
        if (!per.empty()) {
            std::nth_element(per.begin(), per.begin() + static_cast<std::ptrdiff_t>(per.size() / 2), per.end());
            cycles = per[per.size() / 2];
        }
        wall_mpps = secs > 0 ? static_cast<double>(counted) / secs / 1e6 : 0;
    }
    static int entry(void* arg) {
        auto* l = static_cast<lane*>(arg);
        l->run_once();
        l->done.store(true, std::memory_order_release);
        return 0;
    }
};

// Runs the given lanes at once, each on its lcore; the main lcore sleeps meanwhile (rte_eal_wait_lcore
// would spin, and it may share a CPU with a worker).
inline bool run_lanes(const std::vector<std::pair<lane*, unsigned>>& lanes) {
    for (auto& [l, lc] : lanes) {
        l->done.store(false);
        if (rte_eal_remote_launch(lane::entry, l, lc) != 0) {
            std::fprintf(stderr, "two workers: cannot launch on lcore %u\n", lc);
            return false;
        }
    }
    for (auto& [l, lc] : lanes) {
        while (!l->done.load(std::memory_order_acquire))
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        rte_eal_wait_lcore(lc);
    }
    return true;
}

// The lcores for the two workers: the first two worker lcores EAL has.
inline std::vector<unsigned> worker_lcores() {
    std::vector<unsigned> out;
    for (unsigned lc = rte_get_next_lcore(static_cast<unsigned>(-1), 1, 0); lc < RTE_MAX_LCORE && out.size() < 2;
         lc = rte_get_next_lcore(lc, 1, 0))
        out.push_back(lc);
    return out;
}

inline int cpu_of(unsigned lcore) {
    const rte_cpuset_t s = rte_lcore_cpuset(lcore);
    for (size_t c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &s))
            return static_cast<int>(c);
    return -1;
}

}  // namespace bench

namespace bench {

// What the two-worker case needs from the bench's set-up.
struct two_workers_setup {
    rte_mempool* pool = nullptr;
    const fib::rcu_cell<fib::dataplane_view>* tables = nullptr;
    fwd::port_info ce, core;                 // ids replaced by the two-queue ports'
    std::vector<fwd::neighbor> neighbors;    // on ce/core by their one-queue ids, remapped
    uint16_t ce_id1 = 0, core_id1 = 0;       // the one-queue ports' ids (for the remap)
    uint64_t packets = 0;
    int reps = 0;
    uint32_t mbufs = 128;
};

struct two_workers_case {
    std::string name;
    bool from_ce = true;               // the frames enter on the CE port (else on the core port)
    const std::vector<bytes>* frames = nullptr;
    std::vector<bytes> expected;       // what one worker on the one-queue ports sent, per frame
};

// Returns 0, or 1 when an output differs from the one-worker bench's.
// One layout: worker q on queue q * stride of devices with (two_queues - 1) * stride + 1 queues.
inline int run_two_workers_layout(const two_workers_setup& s, std::vector<two_workers_case>& cases,
                                  const std::vector<unsigned>& lcs, unsigned stride) {
    const unsigned nq = (two_queues - 1) * stride + 1;
    const std::string sfx = "_s" + std::to_string(stride);
    const mq_port ce = make_mq_port("bench_mq_ce" + sfx, s.pool, nq);
    const mq_port core = make_mq_port("bench_mq_core" + sfx, s.pool, nq);
    fwd::port_info pce = s.ce, pcore = s.core;
    pce.port_id = ce.id;
    pcore.port_id = core.id;
    std::vector<fwd::port_info> ports = {pce, pcore};
    std::vector<fwd::neighbor> ns = s.neighbors;
    for (auto& n : ns)
        n.port_id = n.port_id == s.ce_id1 ? ce.id : core.id;
    fib::rcu_cell<fwd::adj_view> adj;
    (void)adj.exchange(fwd::adj_view::create(ports, ns));
    std::vector<std::unique_ptr<lane>> lanes;
    for (unsigned q = 0; q < two_queues; ++q) {
        auto l = std::make_unique<lane>();
        l->h.pool = s.pool;
        l->h.circulating = s.mbufs;
        const auto qq = static_cast<uint16_t>(q * stride);
        l->h.ce = ce.queue(qq);
        l->h.core = core.queue(qq);
        l->hdr = fwd::headend_hdr_pool_create(("bench_mq_hdr" + sfx + "_" + std::to_string(q)).c_str(), 1023, 0, 8);
        l->w = std::make_unique<fwd::worker>(std::vector<fwd::rx_queue>{{ce.id, qq}, {core.id, qq}}, qq,
                                             fwd::published{s.tables, &adj}, l->hdr, *l->counters);
        lanes.push_back(std::move(l));
    }
    const int cpu0 = cpu_of(lcs[0]), cpu1 = cpu_of(lcs[1]), main_cpu = cpu_of(rte_get_main_lcore());
    std::printf("\ntwo workers: %u-queue net_ring ports, worker q on queue %u * q%s; worker 0 on lcore %u (CPU %d), "
                "worker 1 on lcore %u (CPU %d); main lcore on CPU %d%s\n",
                nq, stride,
                stride == 1 ? " (net_ring's per-queue packet counters share a cache line: both workers write it)"
                            : " (queues a cache line apart in net_ring's per-queue counters, as a NIC PMD keeps them)",
                lcs[0], cpu0, lcs[1], cpu1, main_cpu,
                main_cpu == cpu0 || main_cpu == cpu1 ? " (shared with a worker: it sleeps while they run)" : "");
    // Each lane's output, frame by frame, against the one-worker bench's (same tables, same MACs).
    int rc = 0;
    for (auto& k : cases)
        for (auto& l : lanes) {
            const bench_port& in = k.from_ce ? l->h.ce : l->h.core;
            fwd::worker& w = *l->w;
            const auto out = l->h.capture(in, *k.frames, [&] { w.poll(); });
            for (size_t i = 0; i < out.size(); ++i)
                if (out[i].empty() || out[i] != k.expected[i]) {
                    std::fprintf(stderr, "two workers, %s: frame %zu differs from the one-worker output\n",
                                 k.name.c_str(), i);
                    rc = 1;
                    break;
                }
        }
    if (rc != 0)
        return rc;
    std::printf("outputs: each worker's identical to the one-worker bench's, byte for byte\n");

    const double hz = static_cast<double>(rte_get_tsc_hz());
    std::printf("%-40s %-22s %-13s %-22s %-13s %-18s %-22s\n", "case", "1 worker Mpps", "(each lcore)",
                "2 workers Mpps", "(each lcore)", "ratio", "closed loop 1 / 2 / ratio");
    for (auto& k : cases) {
        std::vector<double> one, two, ratio, wall1, wall2, wratio, alone[two_queues], together[two_queues];
        for (int rep = 0; rep < s.reps; ++rep) {
            for (auto& l : lanes) {
                l->in = k.from_ce ? &l->h.ce : &l->h.core;
                l->frames = k.frames;
                l->packets = s.packets;
                l->warmup = s.packets / 10;
            }
            // one worker: alone on each lcore in turn, the mean of both
            double single = 0, single_wall = 0;
            for (unsigned q = 0; q < two_queues; ++q) {
                if (!run_lanes({{lanes[q].get(), lcs[q]}}))
                    return 1;
                alone[q].push_back(lanes[q]->cycles > 0 ? hz / lanes[q]->cycles / 1e6 : 0);
                single += alone[q].back() / two_queues;
                single_wall += lanes[q]->wall_mpps / two_queues;
            }
            if (!run_lanes({{lanes[0].get(), lcs[0]}, {lanes[1].get(), lcs[1]}}))
                return 1;
            double both = 0, both_wall = 0;
            for (unsigned q = 0; q < two_queues; ++q) {
                together[q].push_back(lanes[q]->cycles > 0 ? hz / lanes[q]->cycles / 1e6 : 0);
                both += together[q].back();
                both_wall += lanes[q]->wall_mpps;
            }
            one.push_back(single);
            two.push_back(both);
            ratio.push_back(single > 0 ? both / single : 0);
            wall1.push_back(single_wall);
            wall2.push_back(both_wall);
            wratio.push_back(single_wall > 0 ? both_wall / single_wall : 0);
        }
        const spread a = spread_of(one), b = spread_of(two), q = spread_of(ratio);
        const spread w1 = spread_of(wall1), w2 = spread_of(wall2), wq = spread_of(wratio);
        char sa[40], sb[40], sq[40], sw[48], se[32], st[32];
        std::snprintf(se, sizeof se, "%.1f / %.1f", spread_of(alone[0]).med, spread_of(alone[1]).med);
        std::snprintf(st, sizeof st, "%.1f / %.1f", spread_of(together[0]).med, spread_of(together[1]).med);
        std::snprintf(sa, sizeof sa, "%.1f (%.1f-%.1f)", a.med, a.min, a.max);
        std::snprintf(sb, sizeof sb, "%.1f (%.1f-%.1f)", b.med, b.min, b.max);
        std::snprintf(sq, sizeof sq, "%.2f (%.2f-%.2f)", q.med, q.min, q.max);
        std::snprintf(sw, sizeof sw, "%.1f / %.1f / %.2f", w1.med, w2.med, wq.med);
        std::printf("%-40s %-22s %-13s %-22s %-13s %-18s %-22s\n", k.name.c_str(), sa, se, sb, st, sq, sw);
    }
    std::printf("(Mpps per-poll: TSC Hz / median cycles per packet of each worker's polls, summed over the workers; "
                "ratio per repetition, 2 workers / 1 worker (the mean of one worker alone on each lcore). Closed loop: packets / wall time, generator included.)\n");
    for (auto& l : lanes) {
        l->w.reset();
        rte_mempool_free(l->hdr);
    }
    fwd::adj_view::destroy(adj.exchange(nullptr));
    return 0;
}

// net_ring keeps each queue's packet counters (24 bytes, written on every rx and tx burst) next
// to the other queues': queues 0 and 1 share a cache line, which then moves between the two
// workers' CPUs at every burst (measured here: each worker at ~70 % of its speed alone). A NIC
// PMD keeps per-queue state apart. So the workers are measured twice: on adjacent queues (what
// the PMD costs) and on queues 0 and 4 (96 bytes apart: never one line), srv6d's own scaling.
inline int run_two_workers(const two_workers_setup& s, std::vector<two_workers_case>& cases) {
    const auto lcs = worker_lcores();
    if (lcs.size() < 2) {
        std::fprintf(stderr, "two workers: EAL has %zu worker lcores, 2 needed\n", lcs.size());
        return 1;
    }
    for (unsigned stride : {1u, 4u})
        if (const int rc = run_two_workers_layout(s, cases, lcs, stride); rc != 0)
            return rc;
    return 0;
}

}  // namespace bench
