// The tx stage: per-port output buffers (tx_buffers, worker_state.hh), burst transmit, what the
// device did not take freed and counted.
#pragma once

#include <rte_ethdev.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "forward/datapath/worker_pkt.hh"

namespace fwd {

[[gnu::always_inline]] inline void worker::enqueue(uint16_t port, rte_mbuf* m, uint16_t dev) {
    if (_txb.push(port, m, dev))
        tx(port);
}

// A port whose link went down refuses bursts: that is port_down, not a full ring.
inline drop_reason worker::tx_refused(uint16_t port) const {
    const port_info* pi = _v.av != nullptr ? _v.av->port(port) : nullptr;  // null before any rx burst was processed
    return pi != nullptr && !pi->up ? drop_reason::port_down : drop_reason::tx_full;
}

inline void worker::tx(uint16_t port) {
    const uint16_t n = _txb.n[port];
    if (n == 0)
        return;
    rte_mbuf** const ms = _txb.m[port];
    const uint16_t dev = _txb.dev[port];
    const bool traced = _ts.watch != 0;  // once per tx burst
    if (unlikely(traced))
        trace_tx(port, ms, n);
    // The bytes, read before the device owns the mbufs (they are still in cache); what it does
    // not take is subtracted below.
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < n; ++i)
        bytes += ms[i]->pkt_len;
    const uint16_t sent = rte_eth_tx_burst(dev, _txq, ms, n);
    if (unlikely(traced))
        trace_tx_done(n, sent, sent < n ? tx_refused(port) : drop_reason{});
    port_counters& pc = _c.ports[port];
    for (uint16_t i = sent; i < n; ++i)
        bytes -= ms[i]->pkt_len;
    pc.tx_packets.add(sent);
    pc.tx_bytes.add(bytes);
    if (dev != port) {  // a sub-port's frames are its parent's too, as a NIC counts them
        _c.ports[dev].tx_packets.add(sent);
        _c.ports[dev].tx_bytes.add(bytes);
    }
    if (sent < n) {
        const drop_reason why = tx_refused(port);
        for (uint16_t i = sent; i < n; ++i) {
            rte_pktmbuf_free(ms[i]);
            pc.tx_dropped.add(1);
            _c.drop(why);
        }
    }
    _txb.n[port] = 0;
}

inline void worker::flush() {
    for (uint32_t d = _txb.dirty; d != 0; d &= d - 1)
        tx(static_cast<uint16_t>(__builtin_ctz(d)));
    _txb.dirty = 0;
}

}  // namespace fwd
