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
#include "forward/datapath/worker_vlan.hh"

// The worker is one translation unit: its stages live in worker_*.hh (inline, so the compiler
// sees the whole per-packet path, as when it was one file) and are only included here.

namespace fwd {

namespace {
const std::atomic<uint64_t> never_armed{0};  // the request word of a worker nobody traces
}  // namespace

worker::worker(std::vector<rx_queue> rx, uint16_t tx_queue, published tables, rte_mempool* hdr_pool,
               worker_counters& counters, rte_ring* resolve, trace_shared* trace)
    : _rx(std::move(rx)), _txq(tx_queue), _tables(tables), _c(counters),
      _tsc_hz(static_cast<double>(rte_get_tsc_hz())), _resolve(resolve), _trace(trace),
      _arm(trace != nullptr ? &trace->arm : &never_armed) {
    _he.hdr_pool = hdr_pool;
    _frags = std::make_unique<pkt[]>(frag_backlog);
}

worker::~worker() {
    for (hold_slot& s : _hold)
        for (uint8_t i = 0; i < s.n; ++i)
            rte_pktmbuf_free(s.pk[i].m);
}

void worker::expire_held(uint64_t now) { expire_old(now); }

void worker::set_icmp_limit(uint32_t rate, uint32_t burst) {
    _icmp_rate = rate;
    _icmp_burst = burst == 0 ? 1 : burst;
    _icmp.tokens = _icmp_burst;
    _icmp.last = rte_rdtsc();
}

uint32_t worker::poll() {
    const fib::dataplane_view* fv = _tables.fib->load();
    const adj_view* av = _tables.adj->load();
    _av = av;  // tx() reads it for injected packets too: never one from before a quiescent state
    if (_held != 0) {
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
    _fv = fv;
    _av = av;
    if (fv->serial() != _memo_fv || av->serial() != _memo_av) {
        for (outer_exit& o : _outer_memo)
            o.from = UINT32_MAX;
        for (l2_exit& l : _l2_memo)
            l.from = UINT32_MAX;
        _n_outer_ecmp = 0;
        _memo_fv = fv->serial();
        _memo_av = av->serial();
    }
    if (_held != 0)
        release_held(av);  // before this burst: held packets leave first
    run(pkts, n, in);
}

// Every frame plain_frame() did not take: each check in turn, for its reason. Returns the
// family of a packet to look up (its header checked, padding trimmed), or 0 when the frame was
// dropped, punted or set aside for its sub-port. Out of line: rare, and run()'s loop keeps its
// registers for the common frame.
[[gnu::noinline]] uint8_t worker::classify_full(pkt& p, uint64_t my_mac, rte_mbuf** sub, const port_info** sub_in,
                                              uint16_t& n_sub) {
    rte_mbuf* m = p.m;
    if (m->data_len < eth_len) {
        drop(p, drop_reason::eth_truncated);
        return 0;
    }
    const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
    uint16_t type = load_be16(d + 12);
    // A tagged frame goes to its sub-port before the MAC check: the sub-port's own run checks
    // it, unless the sub-port is a VPWS circuit, which takes every frame (worker_l2vpn.hh).
    if ((_in->rx_vlan_hw && (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) || type == ether_vlan || type == ether_qinq) {
        const int32_t t = vlan_in(p, type, sub, sub_in, n_sub);
        if (t == vlan_taken)
            return 0;
        type = static_cast<uint16_t>(t);
        d = rte_pktmbuf_mtod(m, const uint8_t*);  // VLAN id 0: untagged now, the port's
    }
    if (for_other_station(d, my_mac)) {
        drop(p, drop_reason::l2_other_station);
        return 0;
    }
    uint8_t af;
    if (type == ether_ipv4) {
        af = 4;
    } else if (type == ether_ipv6) {
        af = 6;
    } else {
        if (type == ether_arp || osi_llc(d, m->data_len))
            punt(p);
        else
            drop(p, drop_reason::l3_unknown);
        return 0;
    }
    p.af = af;
    drop_reason why{};
    if (!check_l3(m, eth_len, af, why, true)) {
        drop(p, why);
        return 0;
    }
    if (for_host(d + eth_len, af)) {
        punt(p);
        return 0;
    }
    return af;
}

// Classify, then lookup rounds, for packets received on `in`; then the tagged frames the
// classify set aside, sub-port by sub-port (worker_vlan.hh), the same way.
void worker::run(rte_mbuf** pkts, uint16_t n, const port_info* in) {
    pkt st[burst_size];
    pkt* work[burst_size];
    pkt* next[burst_size];
    rte_mbuf* sub[burst_size];
    const port_info* sub_in[burst_size];
    uint16_t n_work = 0, n_sub = 0, n_work4 = 0;
    // The first round's destinations, gathered here while the header is at hand: a burst of one
    // family (the usual case) then needs no second pass over the packets to look them up.
    uint32_t keys4[burst_size];
    fib::u128 keys6[burst_size];
    _in = in;
    port_counters& pc = _c.ports[in->port_id];
    pc.rx_packets.add(n);
    const uint64_t my_mac = mac_word(in->mac.bytes);  // once: the loop's byte stores would reload it
    const uint64_t vlan_flag = in->rx_vlan_hw ? RTE_MBUF_F_RX_VLAN_STRIPPED : 0;
    // The one test tracing costs when off: the request word, or traced packets still on their way.
    const uint8_t* tr = trace_none;
    if (unlikely((_arm->load(std::memory_order_relaxed) | _tr_watch) != 0))
        tr = trace_begin(pkts, n, in->port_id);
    if (unlikely(in->l2vpn != 0))  // a VPWS attachment circuit: every frame to its pseudowire
        return l2vpn_run(pkts, n, in, tr);

    uint64_t rx_bytes = 0;
    // Every packet's state starts as this one, then gets its mbuf and trace slot. The empty asm
    // says it may have changed, so the compiler copies its bytes (two 16-byte stores per
    // packet) instead of storing its known fields one by one.
    alignas(16) pkt start{nullptr, nullptr, 0, in->vrf, eth_len, 0, 0, 0, 0};
    asm("" : "+m"(start));
    const auto classify = [&](uint16_t x) __attribute__((always_inline)) {
        rx_bytes += pkts[x]->pkt_len;
        pkt& p = st[x];
        p = start;
        p.m = pkts[x];
        p.tr = tr[x];
        const uint8_t* d = rte_pktmbuf_mtod(p.m, const uint8_t*);
        uint8_t af = plain_frame(p.m, d, my_mac, vlan_flag);
        if (unlikely(af == 0)) {
            af = classify_full(p, my_mac, sub, sub_in, n_sub);
            if (af == 0)
                return;
            d = rte_pktmbuf_mtod(p.m, const uint8_t*);  // a VLAN tag 0 was stripped: the port's own frame
        }
        p.af = af;
        if (af == 4) {
            keys4[n_work] = load_be32(d + eth_len + 16);
            ++n_work4;
        } else {
            keys6[n_work] = fib::key6(d + eth_len + 24);
        }
        work[n_work++] = &p;
    };
    // Mbuf headers 8 ahead, packet data 4 ahead; the loop is split where those run out, so
    // that the packet loop tests nothing for them.
    uint16_t c = 0;
    for (; c + 8 < n; ++c) {
        rte_prefetch0(pkts[c + 8]);
        rte_prefetch0(rte_pktmbuf_mtod(pkts[c + 4], void*));
        classify(c);
    }
    for (; c + 4 < n; ++c) {
        rte_prefetch0(rte_pktmbuf_mtod(pkts[c + 4], void*));
        classify(c);
    }
    for (; c < n; ++c)
        classify(c);

    pc.rx_bytes.add(rx_bytes);

    bool gathered = n_work4 == 0 || n_work4 == n_work;  // keys4 or keys6 holds every key
    while (n_work != 0) {
        if (gathered)
            lookup_keys(work, n_work, n_work4 != 0 ? 4 : 6, in->vrf, keys4, keys6);
        else
            lookup(work, n_work);
        gathered = false;
        uint16_t n_next = 0;
        _next = next;
        _n_next = &n_next;
        for (uint16_t i = 0; i < n_work; ++i)
            act(*work[i], next, n_next);
        for (uint16_t i = 0; i < n_next; ++i)
            work[i] = next[i];
        n_work = n_next;
    }
    _next = nullptr;  // an ICMP message outside the rounds has nowhere to go
    // Tagged frames: each sub-port's in one run, in arrival order (they are untagged now: a run
    // for a sub-port sets none aside).
    for (uint16_t i = 0; i < n_sub; ++i) {
        if (sub[i] == nullptr)
            continue;
        const port_info* s = sub_in[i];
        rte_mbuf* grp[burst_size];
        uint16_t k = 0;
        for (uint16_t j = i; j < n_sub; ++j)
            if (sub[j] != nullptr && sub_in[j] == s) {
                grp[k++] = sub[j];
                sub[j] = nullptr;
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
