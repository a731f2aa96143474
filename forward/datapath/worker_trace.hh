// Trace and capture (trace.hh): the worker's side. process() reads the request word once per
// burst; only when it is set (or packets traced earlier are still on their way) does any of
// this run. A traced packet carries its slot in pkt::tr (0: not traced); the fates are
// recorded where they are known: drop(), punt(), hold(), and tx() for what leaves a port
// (matched by mbuf, so that the forwarding path itself carries no per-packet test).
#pragma once

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <cstring>

#include "forward/datapath/trace.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

static_assert(trace_max_steps == max_lookups);
static_assert(trace_slots <= 255, "pkt::tr holds slot + 1");

namespace trace_detail {
inline constexpr uint64_t all_free = trace_slots == 64 ? ~uint64_t{0} : (uint64_t{1} << trace_slots) - 1;

// The first trace_snap bytes of `m` (a chain too) into `to`; returns the packet length.
inline uint32_t copy_bytes(const rte_mbuf* m, uint8_t* to) {
    const uint32_t len = m->pkt_len < trace_snap ? m->pkt_len : trace_snap;
    const void* at = rte_pktmbuf_read(m, 0, len, to);
    if (at != nullptr && at != to)
        std::memcpy(to, at, len);
    return m->pkt_len;
}

inline bool port_matches(uint16_t filter, uint16_t port) { return filter == trace_any_port || filter == port; }
}  // namespace trace_detail

// The request word changed: a new request starts its budget afresh; packets traced for the
// previous one are let go.
inline void worker::trace_sync(uint64_t word) {
    if (word == _ts.word)
        return;
    const trace_arm a = trace_arm::unpack(word);
    if (word == 0 || a.gen != _ts.req.gen || a.mode != _ts.req.mode) {
        _ts.left = a.budget;
        _ts.free = trace_detail::all_free;
    }
    _ts.req = word == 0 ? trace_arm{} : a;
    _ts.word = word;
}

inline trace_record* worker::trace_ring_next() {
    const uint32_t head = _ts.shared->head.load(std::memory_order_relaxed);
    if (head - _ts.shared->tail.load(std::memory_order_acquire) >= trace_ring_size) {
        _ts.shared->lost.add(1);
        return nullptr;
    }
    return &_ts.shared->ring[head % trace_ring_size];
}

inline void worker::trace_ring_commit() {
    _ts.shared->head.store(_ts.shared->head.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

inline void worker::trace_watch() {
    _ts.watch = _ts.free != trace_detail::all_free || (_ts.req.mode == trace_mode::capture_tx && _ts.left != 0);
}

// Once per burst while armed: slots for the packets to trace (returned per packet, 0: none),
// copies of those to capture as received.
inline const uint8_t* worker::trace_begin(rte_mbuf** pkts, uint16_t n, uint16_t in_port) {
    trace_sync(_ts.arm->load(std::memory_order_relaxed));
    const uint64_t poll = _c.polls.get();
    // Slots from an earlier poll: every tx buffer was flushed since, so their packets were
    // let go somewhere no fate is recorded. Counted, not shown.
    for (uint64_t used = ~_ts.free & trace_detail::all_free; used != 0; used &= used - 1) {
        const unsigned s = static_cast<unsigned>(__builtin_ctzll(used));
        if (_ts.poll[s] != poll) {
            _ts.free |= uint64_t{1} << s;
            _ts.shared->lost.add(1);
        }
    }
    const bool want = _ts.req.mode != trace_mode::off && _ts.req.mode != trace_mode::capture_tx && _ts.left != 0 &&
                      trace_detail::port_matches(_ts.req.port, in_port);
    if (!want) {
        trace_watch();
        return trace_none;
    }
    const uint64_t now = rte_rdtsc();
    for (uint16_t i = 0; i < n; ++i) {
        _ts.of[i] = 0;
        rte_mbuf* m = pkts[i];
        if (_ts.req.mode == trace_mode::capture_rx) {
            if (_ts.left == 0)
                continue;
            trace_record* r = trace_ring_next();
            if (r == nullptr)
                continue;
            r->tsc = now;
            r->in_port = in_port;
            r->out_port = trace_any_port;
            r->vrf = _v.in->vrf;
            r->fate = trace_fate::rx;
            r->has_reason = 0;
            r->icmp = 0;
            r->n_steps = 0;
            r->rx_len = trace_detail::copy_bytes(m, r->rx);
            r->out_len = 0;
            trace_ring_commit();
            --_ts.left;
            continue;
        }
        // trace: the budget is spent as packets are picked; capture_drop: as drops are recorded.
        if (_ts.left == 0 || _ts.free == 0) {
            if (_ts.left != 0)
                _ts.shared->lost.add(1);  // more in flight than slots
            continue;
        }
        const unsigned s = static_cast<unsigned>(__builtin_ctzll(_ts.free));
        _ts.free &= ~(uint64_t{1} << s);
        _ts.poll[s] = poll;
        _ts.m[s] = m;
        trace_record& r = _ts.slot[s];
        r.tsc = now;
        r.in_port = in_port;
        r.out_port = trace_any_port;
        r.vrf = _v.in->vrf;
        r.fate = trace_fate::unknown;
        r.has_reason = 0;
        r.icmp = 0;
        r.n_steps = 0;
        r.rx_len = trace_detail::copy_bytes(m, r.rx);
        r.af = 0;
        if (m->data_len >= eth_len) {
            const uint16_t type = load_be16(r.rx + 12);
            r.af = type == ether_ipv4 ? 4 : type == ether_ipv6 ? 6 : 0;
        }
        r.out_len = 0;
        if (_ts.req.mode == trace_mode::trace)
            --_ts.left;
        _ts.of[i] = static_cast<uint8_t>(s + 1);
    }
    trace_watch();
    return _ts.of;
}

// The lookups of a run of packets (one VRF and family), as lookup() made them.
inline void worker::trace_lookups(pkt* const* ps, uint32_t n, const uint32_t* res) {
    for (uint32_t x = 0; x < n; ++x) {
        pkt& p = *ps[x];
        if (p.tr == 0)
            continue;
        trace_record& r = _ts.slot[p.tr - 1];
        if (r.n_steps == trace_max_steps)
            continue;
        trace_step& st = r.steps[r.n_steps++];
        const fib::compiled_nh& nh = _v.fv->nexthop(res[x]);
        st.nh = res[x];
        st.vrf = p.vrf;
        st.af = p.af;
        st.kind = static_cast<uint8_t>(nh.kind());
        st.action = nh.kind() == fib::nh_kind::local_sid ? nh.sid().action : 0;
        const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
        std::memset(st.key, 0, sizeof st.key);
        std::memcpy(st.key, ip + (p.af == 4 ? 16 : 24), p.af == 4 ? 4 : 16);
    }
}

// Slot `s` is done: into the ring if this request records it, then free.
inline void worker::trace_emit(unsigned s) {
    trace_record& r = _ts.slot[s];
    _ts.free |= uint64_t{1} << s;
    bool keep = _ts.req.mode == trace_mode::trace;
    if (_ts.req.mode == trace_mode::capture_drop && r.fate == trace_fate::drop && _ts.left != 0) {
        keep = true;
        --_ts.left;
    }
    if (keep) {
        if (trace_record* to = trace_ring_next()) {
            // The bytes that were never written need no copying.
            std::memcpy(static_cast<void*>(to), &r, offsetof(trace_record, rx));
            std::memcpy(to->rx, r.rx, r.rx_len < trace_snap ? r.rx_len : trace_snap);
            if (r.out_len != 0)
                std::memcpy(to->out, r.out, r.out_len < trace_snap ? r.out_len : trace_snap);
            trace_ring_commit();
        }
    }
    trace_watch();
}

inline void worker::trace_end(pkt& p, trace_fate f, uint16_t out_port, drop_reason why) {
    const unsigned s = p.tr - 1u;
    p.tr = 0;
    trace_record& r = _ts.slot[s];
    r.fate = f;
    r.out_port = out_port;
    if (f == trace_fate::drop) {
        r.reason = why;
        r.has_reason = 1;
    }
    trace_emit(s);
}

// The packet was refused with `why` and answered with an ICMP message written over it: the
// message goes on under the same slot (its fate is the record's), the refusal noted.
inline void worker::trace_answered(pkt& p, drop_reason why) {
    trace_record& r = _ts.slot[p.tr - 1];
    r.reason = why;
    r.has_reason = 1;
    r.icmp = 1;
    if (_ts.req.mode == trace_mode::capture_drop)  // the drop is what it captures; the ICMP is not
        trace_end(p, trace_fate::drop, port_none, why);
}

// Before a tx burst on `port`: copies of what it sends (capture tx), and the traced packets
// among them (by mbuf: the one received, or the header mbuf the headend chained before it).
inline void worker::trace_tx(uint16_t port, const rte_mbuf* const* m, uint16_t n) {
    if (_ts.req.mode == trace_mode::capture_tx && trace_detail::port_matches(_ts.req.port, port)) {
        const uint64_t now = rte_rdtsc();
        for (uint16_t i = 0; i < n && _ts.left != 0; ++i) {
            trace_record* r = trace_ring_next();
            if (r == nullptr)
                break;
            r->tsc = now;
            r->in_port = trace_any_port;
            r->out_port = port;
            r->fate = trace_fate::tx;
            r->has_reason = 0;
            r->icmp = 0;
            r->n_steps = 0;
            r->rx_len = 0;
            r->out_len = trace_detail::copy_bytes(m[i], r->out);
            trace_ring_commit();
            --_ts.left;
        }
    }
    for (uint16_t i = 0; i < n; ++i) {
        _ts.txm[i] = 0;
        for (uint64_t used = ~_ts.free & trace_detail::all_free; used != 0; used &= used - 1) {
            const unsigned s = static_cast<unsigned>(__builtin_ctzll(used));
            if (_ts.m[s] != m[i] && _ts.m[s] != m[i]->next)
                continue;
            trace_record& r = _ts.slot[s];
            r.out_port = port;
            r.out_len = trace_detail::copy_bytes(m[i], r.out);
            _ts.txm[i] = static_cast<uint8_t>(s + 1);
            break;
        }
    }
}

// After it: what the device took was sent, the rest dropped with `why`.
inline void worker::trace_tx_done(uint16_t n, uint16_t sent, drop_reason why) {
    for (uint16_t i = 0; i < n; ++i) {
        if (_ts.txm[i] == 0)
            continue;
        const unsigned s = _ts.txm[i] - 1u;
        _ts.txm[i] = 0;
        trace_record& r = _ts.slot[s];
        r.fate = i < sent ? trace_fate::tx : trace_fate::drop;
        if (i >= sent) {
            r.reason = why;
            r.has_reason = 1;
        }
        trace_emit(s);
    }
}

}  // namespace fwd
