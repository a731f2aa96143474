// Punt to and inject from the TAP mirrors, neighbor resolution requests, drops.
#pragma once

#include <rte_cycles.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "forward/datapath/worker_pkt.hh"
#include "forward/datapath/vlan_tag.hh"

namespace fwd {

// What the host sends through a port's TAP mirror leaves the port unchanged (ARP and ND
// answers, routing protocols, ICMP errors, packets the kernel forwarded itself); through a
// sub-port's own TAP, with the sub-port's tag (a VLAN device on the parent's TAP tags itself).
inline void worker::inject(rte_mbuf** pkts, uint16_t n, uint16_t to) {
    if (unlikely((_ts.arm->load(std::memory_order_relaxed) | _ts.watch) != 0))
        trace_begin(pkts, 0, to);  // a capture of what `to` sends sees these too
    port_counters& pc = _c.ports[to < max_ports ? to : 0];
    pc.injected.add(n);
    const port_info* sub = _v.av != nullptr ? _v.av->port(to) : nullptr;
    if (sub == nullptr || sub->vlan == 0) {
        for (uint16_t i = 0; i < n; ++i)
            enqueue(to, pkts[i]);
        return;
    }
    for (uint16_t i = 0; i < n; ++i) {
        if (!vlan_out(pkts[i], *sub)) {
            _c.drop(drop_reason::no_headroom);
            rte_pktmbuf_free(pkts[i]);
            continue;
        }
        enqueue(to, pkts[i], sub->dev());
    }
}

// To the host, as received (the frame is still intact: every punt decision is made before a
// packet is modified), through the ingress port's TAP mirror, within its punt rate.
inline void worker::punt(pkt& p) {
    const port_info& in = *_v.in;
    if (in.tap_port == port_none)
        return drop(p, drop_reason::punt_no_host);
    token_bucket& b = _pol.punt[in.port_id];
    const uint64_t now = rte_rdtsc();
    b.tokens += static_cast<double>(now - b.last) * in.punt_rate / _pol.tsc_hz;
    b.last = now;
    if (b.tokens > in.punt_burst)
        b.tokens = in.punt_burst;
    if (b.tokens < 1.0)
        return drop(p, drop_reason::punt_policed);
    b.tokens -= 1.0;
    // To a VLAN device on the parent's TAP: with the tag the classify took off (a NIC-stripped
    // one too), so the kernel hands it to that device.
    if (in.tap_tagged && vlan_push(p.m, in.vlan) == nullptr)
        return drop(p, drop_reason::no_headroom);
    _c.ports[in.port_id].punted.add(1);
    if (unlikely(p.tr != 0))
        trace_end(p, trace_fate::punt, in.tap_port);
    enqueue(in.tap_port, p.m);
    p.m = nullptr;
}

// A packet we rewrote has no neighbor: it cannot go to the host as received, and nothing else
// would make the kernel resolve the neighbor if its owner never sends ARP/ND itself (a CE that
// only answers). Ask the control thread to (docs/host-path.md); only on this miss path.
inline void worker::want_neighbor(uint16_t port, rib::family af, const uint8_t* addr) {
    if (_req.ring == nullptr)
        return;
    resolve_request q;
    q.port_id = port;
    q.af = af == rib::family::ipv4 ? 4 : 6;
    std::memcpy(q.addr, addr, q.af == 4 ? size_t{4} : size_t{16});
    const uint64_t now = rte_rdtsc();
    if (now - _req.last_tsc < static_cast<uint64_t>(_pol.tsc_hz / 100) && q.port_id == _req.last.port_id &&
        q.af == _req.last.af && std::memcmp(q.addr, _req.last.addr, sizeof q.addr) == 0)
        return;
    if (!resolve_ring_put(_req.ring, q)) {
        _c.resolve_lost.add(1);
        return;
    }
    _c.resolve_queued.add(1);
    _req.last = q;
    _req.last_tsc = now;
}

// Out of line and cold: inlined, each of the worker's ~30 drop sites carried a copy of
// rte_pktmbuf_free, and the burst loops around them ran 2-4 cycles per packet slower.
[[gnu::noinline, gnu::cold]] inline void worker::drop(pkt& p, drop_reason r) {
    _c.drop(r);
    if (unlikely(p.tr != 0))
        trace_end(p, trace_fate::drop, port_none, r);
    rte_pktmbuf_free(p.m);
    p.m = nullptr;
}

inline void worker::answered(pkt& p, drop_reason why) {
    _c.drop(why);
    if (unlikely(p.tr != 0))
        trace_answered(p, why);
}

}  // namespace fwd
