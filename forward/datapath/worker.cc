#include "forward/datapath/worker.hh"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include <cstring>


#include "forward/datapath/worker_classify.hh"
#include "forward/datapath/worker_endpoint.hh"
#include "forward/datapath/worker_forward.hh"
#include "forward/datapath/worker_frag.hh"
#include "forward/datapath/worker_headend.hh"
#include "forward/datapath/worker_hold.hh"
#include "forward/datapath/worker_icmp.hh"
#include "forward/datapath/worker_l2.hh"
#include "forward/datapath/worker_l2vpn.hh"
#include "forward/datapath/worker_local.hh"
#include "forward/datapath/worker_lookup.hh"
#include "forward/datapath/worker_pkt.hh"
#include "forward/datapath/worker_punt.hh"
#include "forward/datapath/worker_trace.hh"
#include "forward/datapath/worker_tx.hh"

// The worker is one translation unit: its stages live in worker_*.hh (inline, so the compiler
// sees the whole per-packet path, as when it was one file) and are only included here.

namespace fwd {

namespace {
const std::atomic<uint64_t> never_armed{0};  // the request word of a worker nobody traces
}  // namespace

worker::worker(std::vector<rx_queue> rx, uint16_t tx_queue, published tables, rte_mempool* hdr_pool,
               worker_counters& counters, rte_ring* resolve, trace_shared* trace)
    : _rx(std::move(rx)), _txq(tx_queue), _tables(tables), _c(counters) {
    _he.hdr_pool = hdr_pool;
    _pol.tsc_hz = static_cast<double>(rte_get_tsc_hz());
    _req.ring = resolve;
    _ts.shared = trace;
    _ts.arm = trace != nullptr ? &trace->arm : &never_armed;
}

worker::~worker() {
    for (hold_table::slot& s : _hold.slots)
        for (uint8_t i = 0; i < s.n; ++i)
            rte_pktmbuf_free(s.pk[i].m);
}

void worker::expire_held(uint64_t now) { expire_old(now); }

void worker::set_icmp_limit(uint32_t rate, uint32_t burst) {
    _pol.icmp_rate = rate;
    _pol.icmp_burst = burst == 0 ? 1 : burst;
    _pol.icmp.tokens = _pol.icmp_burst;
    _pol.icmp.last = rte_rdtsc();
}

uint32_t worker::poll() {
    const fib::dataplane_view* fv = _tables.fib->load();
    const adj_view* av = _tables.adj->load();
    _v.av = av;  // tx() reads it for injected packets too: never one from before a quiescent state
    if (_hold.held != 0) {
        release_held(av);
        expire_old(rte_rdtsc());
    }
    uint32_t got = 0;
    rte_mbuf* pkts[burst_size];
    for (const rx_queue& q : _rx) {
        const uint16_t n = rte_eth_rx_burst(q.port, q.queue, pkts, burst_size);
        if (n == 0)
            continue;
        got += n;
        _c.bursts.add(1);
        if (q.inject_to != port_none)
            inject(pkts, n, q.inject_to);
        else
            process(pkts, n, q.port, fv, av);
    }
    flush();
    _c.polls.add(1);
    return got;
}

void worker::process(rte_mbuf** pkts, uint16_t n, uint16_t in_port, const fib::dataplane_view* fv,
                     const adj_view* av) {
    while (n > burst_size) {  // the per-burst state holds burst_size packets
        process(pkts, burst_size, in_port, fv, av);
        pkts += burst_size;
        n = static_cast<uint16_t>(n - burst_size);
    }
    const port_info* in = av ? av->port(in_port) : nullptr;
    // Packet data 4 ahead, mbuf headers 8 ahead (as DPDK's l3fwd): the first touch of each is a
    // cache miss otherwise, and the classify loop below would wait for every one in turn.
    for (uint16_t i = 0; i < n && i < 8; ++i)
        rte_prefetch0(pkts[i]);
    for (uint16_t i = 0; i < n && i < 4; ++i)
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    if (fv == nullptr || in == nullptr || !in->up) {
        // Before the first publication, or a port that is down / in a VRF that is not active.
        const drop_reason why = fv == nullptr || in == nullptr ? drop_reason::tables_not_ready : drop_reason::port_down;
        port_counters& pc = _c.ports[in_port < max_ports ? in_port : 0];
        pc.rx_packets.add(n);
        for (uint16_t i = 0; i < n; ++i) {
            _c.drop(why);
            pc.rx_bytes.add(pkts[i]->pkt_len);
            rte_pktmbuf_free(pkts[i]);
        }
        return;
    }
    _v.fv = fv;
    _v.av = av;
    _memo.follow(*fv, *av);
    // A reload's ICMP limit (adjacency.hh, icmp_limit): taken when it differs, the bucket full.
    if (const icmp_limit& l = av->icmp(); l.burst != 0 && (l.rate != _pol.icmp_rate || l.burst != _pol.icmp_burst))
        set_icmp_limit(l.rate, l.burst);
    if (_hold.held != 0)
        release_held(av);  // before this burst: held packets leave first
    run(pkts, n, in);
}

// The lookup and act stages, round after round: act's `next` edge is the next round's input.
// `first`: the classify stage's output when it gathered the first round's keys (a burst of one
// family), null otherwise; `looked_up`: the first round's packets have their nexthop already.
[[gnu::always_inline]] inline void worker::rounds(pkt_vec& work, const classify_out* first, bool looked_up) {
    pkt_vec next;
    pkt_vec* const saved = _next;  // a round inside a round (the fragments of one of its packets)
    while (work.n != 0) {
        if (first != nullptr)
            lookup_keys(work.p, work.n, first->n4 != 0 ? 4 : 6, work.p[0]->vrf, first->keys4, first->keys6);
        else if (!looked_up)
            lookup(work);
        first = nullptr;
        looked_up = false;
        next.n = 0;
        _next = &next;
        for (uint16_t i = 0; i < work.n; ++i)
            act(*work.p[i], next);
        for (uint16_t i = 0; i < next.n; ++i)
            work.p[i] = next.p[i];
        work.n = next.n;
    }
    _next = saved;
}

// One burst received on `in`: classify, its edges (refused, for the host), the lookup and act
// rounds; then the tagged frames the classify set aside, sub-port by sub-port, the same way.
void worker::run(rte_mbuf** pkts, uint16_t n, const port_info* in) {
    pkt st[burst_size];
    classify_out cl;
    _v.in = in;
    port_counters& pc = _c.ports[in->port_id];
    pc.rx_packets.add(n);
    // The one test tracing costs when off: the request word, or traced packets still on their way.
    const uint8_t* tr = trace_none;
    if (unlikely((_ts.arm->load(std::memory_order_relaxed) | _ts.watch) != 0))
        tr = trace_begin(pkts, n, in->port_id);
    if (unlikely(in->l2vpn != 0))  // a VPWS attachment circuit: every frame to its pseudowire
        return l2vpn_run(pkts, n, in, tr);

    classify_burst(classify_input(*in, *_v.av, tr), pkts, n, st, cl);
    pc.rx_bytes.add(cl.rx_bytes);
    for (uint16_t i = 0; i < cl.refused.n; ++i)
        drop(*cl.refused.p[i], cl.why[i]);
    for (uint16_t i = 0; i < cl.host.n; ++i)
        punt(*cl.host.p[i]);
    rounds(cl.look, cl.gathered() ? &cl : nullptr, false);

    // Tagged frames: each sub-port's in one run, in arrival order (they are untagged now: a run
    // for a sub-port sets none aside).
    for (uint16_t i = 0; i < cl.n_sub; ++i) {
        if (cl.sub[i] == nullptr)
            continue;
        const port_info* s = cl.sub_in[i];
        rte_mbuf* grp[burst_size];
        uint16_t k = 0;
        for (uint16_t j = i; j < cl.n_sub; ++j)
            if (cl.sub[j] != nullptr && cl.sub_in[j] == s) {
                grp[k++] = cl.sub[j];
                cl.sub[j] = nullptr;
            }
        if (!s->up) {  // its VRF is not active
            _c.ports[s->port_id].rx_packets.add(k);
            for (uint16_t j = 0; j < k; ++j) {
                _c.drop(drop_reason::port_down);
                rte_pktmbuf_free(grp[j]);
            }
            continue;
        }
        run(grp, k, s);
    }
}

}  // namespace fwd
