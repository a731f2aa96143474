// The measurement harness of bench_dataplane_bench: two net_ring ethdevs (rte_eth_from_rings,
// configured and started like any port) with a fixed set of mbufs circulating through them. A
// generator restores each mbuf's frame between polls (not timed); the timed part is exactly
// what an lcore does per poll: rx burst on both ports, the processing, tx burst.
#pragma once

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "dataplane_frames.hh"

namespace bench {

struct bench_port {
    uint16_t id = 0;
    rte_ring* rx = nullptr;
    rte_ring* tx = nullptr;
};

inline bench_port make_port(const std::string& n, rte_mempool* pool) {
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
inline uint32_t& frame_of(rte_mbuf* m) { return *static_cast<uint32_t*>(rte_mbuf_to_priv(m)); }

// `rx_flags`: the offload flags a NIC's rx would set (RTE_MBUF_F_RX_IP_CKSUM_GOOD: the NIC
// checked the IPv4 header checksum), none for the ring PMD's own packets.
inline void refill(rte_mbuf* m, const bytes& f, uint64_t rx_flags = 0) {
    rte_pktmbuf_reset(m);
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), f.data(), f.size());
    m->data_len = static_cast<uint16_t>(f.size());
    m->pkt_len = static_cast<uint32_t>(f.size());
    m->ol_flags |= rx_flags;
}

// The packet's bytes, every segment.
inline bytes packet_bytes(const rte_mbuf* m) {
    bytes out;
    for (const rte_mbuf* s = m; s != nullptr; s = s->next) {
        const auto* d = rte_pktmbuf_mtod(s, const uint8_t*);
        out.insert(out.end(), d, d + s->data_len);
    }
    return out;
}

struct run_result {
    double cycles = 0;  // median over polls of the poll's cycles / packets sent
    uint64_t packets = 0;
};

struct harness {
    rte_mempool* pool = nullptr;
    bench_port ce, core;
    uint32_t circulating = 128;
    uint64_t rx_flags = 0;  // set on every frame loaded or restored (refill)

    // Puts `circulating` mbufs carrying `frames` (round robin) into `in`'s rx ring.
    void load(const bench_port& in, const std::vector<bytes>& frames, uint32_t count) {
        std::vector<rte_mbuf*> ms(count);
        if (rte_pktmbuf_alloc_bulk(pool, ms.data(), count) != 0) {
            std::fprintf(stderr, "pool empty\n");
            std::exit(1);
        }
        for (uint32_t i = 0; i < count; ++i) {
            frame_of(ms[i]) = i % static_cast<uint32_t>(frames.size());
            refill(ms[i], frames[frame_of(ms[i])], rx_flags);
        }
        rte_ring_enqueue_bulk(in.rx, reinterpret_cast<void**>(ms.data()), count, nullptr);
    }
    // What came out of either port: back to the input, frames restored. Returns the count.
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
                    refill(m, frames[frame_of(m)], rx_flags);
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

    // Each frame once through `step`: out[i] = the bytes that left for frame i (empty if none).
    template <class Step>
    std::vector<bytes> capture(const bench_port& in, const std::vector<bytes>& frames, Step&& step) {
        load(in, frames, static_cast<uint32_t>(frames.size()));
        std::vector<bytes> out(frames.size());
        for (int polls = 0; polls < 1000 && rte_ring_count(in.rx) != 0; ++polls)
            step();
        rte_mbuf* m;
        for (const bench_port* p : {&ce, &core})
            while (rte_ring_dequeue(p->tx, reinterpret_cast<void**>(&m)) == 0) {
                const rte_mbuf* last = m;
                while (last->next != nullptr)
                    last = last->next;
                out[frame_of(const_cast<rte_mbuf*>(last))] = packet_bytes(m);
                rte_pktmbuf_free(m);
            }
        drain();
        return out;
    }

    // Cycles per packet of `step` (one poll) over `packets` packets: the median over polls of
    // the poll's cycles over the packets it sent. A median per poll, not a total over the run,
    // so that the time slices another process takes on this shared machine do not land in the
    // result. `warmup` packets first, not counted.
    template <class Step>
    run_result run(const bench_port& in, const std::vector<bytes>& frames, uint64_t packets, uint64_t warmup,
                   Step&& step) {
        std::vector<double> per;
        run_result r;
        r.packets = polls(in, frames, packets, warmup, step, per);
        r.cycles = median(per);
        return r;
    }

    // Two steps over the same frames, interleaved: `slices` turns each (A B, B A, A B, ...),
    // `packets` / `slices` per turn after a warm-up of `warmup` / `slices`; each figure is the
    // median over all its polls. A change of the host's speed that lasts a few tens of
    // milliseconds (a KVM guest's vCPU sharing its core) falls on both alike, where two runs back
    // to back could each land on another level (docs/bench-history.md). `before(side)`
    // runs before each turn of A (side 0) or B (1), untimed: where the two sides are one step
    // over two states of the tables (the encapsulation source configured or derived), it sets
    // that side's.
    template <class StepA, class StepB, class Before = void (*)(int)>
    std::pair<run_result, run_result> run_pair(const bench_port& in, const std::vector<bytes>& frames, uint64_t packets,
                                               uint64_t warmup, uint32_t slices, StepA&& a, StepB&& b,
                                               Before&& before = [](int) {}) {
        return run_pair(in, frames, frames, packets, warmup, slices, a, b, before);
    }
    // The same with frames of its own for each side (two cases through one step).
    template <class StepA, class StepB, class Before = void (*)(int)>
    std::pair<run_result, run_result> run_pair(const bench_port& in, const std::vector<bytes>& frames_a,
                                               const std::vector<bytes>& frames_b, uint64_t packets, uint64_t warmup,
                                               uint32_t slices, StepA&& a, StepB&& b, Before&& before = [](int) {}) {
        std::vector<double> per_a, per_b;
        std::pair<run_result, run_result> r;
        const uint64_t n = packets / slices, w = warmup / slices;
        const auto turn_a = [&] {
            before(0);
            r.first.packets += polls(in, frames_a, n, w, a, per_a);
        };
        const auto turn_b = [&] {
            before(1);
            r.second.packets += polls(in, frames_b, n, w, b, per_b);
        };
        for (uint32_t s = 0; s < slices; ++s) {
            if (s % 2 == 0) {
                turn_a();
                turn_b();
            } else {
                turn_b();
                turn_a();
            }
        }
        r.first.cycles = median(per_a);
        r.second.cycles = median(per_b);
        return r;
    }

private:
    // Runs `step` until `packets` were sent after `warmup`; appends each poll's cycles per
    // packet to `per`. Returns the packets counted.
    template <class Step>
    uint64_t polls(const bench_port& in, const std::vector<bytes>& frames, uint64_t packets, uint64_t warmup,
                   Step&& step, std::vector<double>& per) {
        load(in, frames, circulating);
        per.reserve(per.size() + packets / 16 + 16);
        uint64_t counted = 0, warm = 0;
        unsigned idle = 0;
        while (counted < packets && idle < 1000) {
            const uint64_t t0 = rte_rdtsc_precise();
            step();
            const uint64_t dt = rte_rdtsc_precise() - t0;
            const unsigned got = recycle(in, frames);
            if (got == 0) {
                ++idle;  // everything dropped: the case is broken
                continue;
            }
            if (warm < warmup) {
                warm += got;
                continue;
            }
            counted += got;
            per.push_back(static_cast<double>(dt) / got);
        }
        drain();
        return counted;
    }
    static double median(std::vector<double>& v) {
        if (v.empty())
            return 0;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
    }
};

// min / median / max of a few repetitions.
struct spread {
    double min = 0, med = 0, max = 0;
};
inline spread spread_of(std::vector<double> v) {
    if (v.empty())
        return {};
    std::sort(v.begin(), v.end());
    return {v.front(), v[v.size() / 2], v.back()};
}

}  // namespace bench
