// Packet trace and capture (`srv6ctl trace`, `srv6ctl capture`; docs/operating.md): what a
// worker decided about a packet, or a copy of it. The control thread arms one request per
// worker (one 64-bit word the worker reads once per burst: off, that is the only cost); the
// worker writes records into its own single-producer ring, the control thread drains it. A
// full ring loses the record, counted, never the packet. No allocation, lock or syscall on the
// worker's side: the records are fixed-size, packet bytes copied up to trace_snap.
#pragma once

#include <atomic>
#include <cstdint>

#include "forward/datapath/counters.hh"
#include "forward/datapath/drop_reason.hh"

namespace fwd {

enum class trace_mode : uint8_t {
    off,
    trace,         // every packet received on the port (or any port): its lookups and fate
    capture_rx,    // copies of packets as received on the port
    capture_tx,    // copies of packets as sent out of the port
    capture_drop,  // copies (as received) of packets received on the port and dropped, with the reason
};

enum class trace_fate : uint8_t {
    unknown,  // the worker lost sight of it (never expected; counted as lost)
    tx,       // sent: out_port, the bytes as sent in `out`
    drop,     // dropped: `reason`
    punt,     // to the host through the port's TAP mirror (out_port)
    held,     // waiting for its neighbor (out_port) to be resolved; sent later if it is
    rx,       // capture_rx: as received
};

inline constexpr uint16_t trace_any_port = 0xffff;
inline constexpr uint16_t trace_snap = 256;  // bytes of a packet kept (as received, as sent)
inline constexpr uint8_t trace_max_steps = 4;  // = the worker's max_lookups
inline constexpr uint32_t trace_ring_size = 64;  // records per worker between two drains

// One lookup: in which VRF, for what key, the result (a compiled nexthop) and what it is.
struct trace_step {
    uint32_t nh = 0;
    uint16_t vrf = 0;
    uint8_t af = 0;      // 4 or 6
    uint8_t kind = 0;    // fib::nh_kind
    uint32_t action = 0;  // rib::behavior of a local SID
    uint8_t key[16]{};   // the destination address looked up (4 bytes for IPv4)
};

struct trace_record {
    uint64_t tsc = 0;  // rte_rdtsc() when received
    uint16_t in_port = 0;
    uint16_t out_port = trace_any_port;  // none
    uint16_t vrf = 0;                    // the ingress port's VRF
    uint8_t af = 0;                      // as received: 4, 6, 0 (neither)
    trace_fate fate = trace_fate::unknown;
    drop_reason reason{};
    uint8_t has_reason = 0;  // `reason` set (a drop, or an error answered with ICMP)
    uint8_t icmp = 0;        // the worker answered it with an ICMP message (whose fate `fate` is)
    uint8_t n_steps = 0;
    trace_step steps[trace_max_steps];
    uint32_t rx_len = 0, out_len = 0;  // packet lengths; the bytes kept are at most trace_snap
    uint8_t rx[trace_snap];
    uint8_t out[trace_snap];
};

// What the control thread publishes. One word: the worker never sees half a request.
struct trace_arm {
    uint16_t gen = 0;  // a new request: the worker starts counting `budget` from 0
    trace_mode mode = trace_mode::off;
    uint16_t port = trace_any_port;
    uint16_t budget = 0;  // records this worker makes at most

    uint64_t pack() const {
        return uint64_t{gen} | uint64_t{static_cast<uint8_t>(mode)} << 16 | uint64_t{port} << 24 |
               uint64_t{budget} << 40;
    }
    static trace_arm unpack(uint64_t v) {
        return {static_cast<uint16_t>(v), static_cast<trace_mode>(static_cast<uint8_t>(v >> 16)),
                static_cast<uint16_t>(v >> 24), static_cast<uint16_t>(v >> 40)};
    }
};

// One worker's side of it, shared with the control thread. `arm` and `tail` are the control
// thread's (the worker only reads them), `head`, `lost` and the ring entries up to head the
// worker's.
struct trace_shared {
    std::atomic<uint64_t> arm{0};    // trace_arm::pack(); 0: off
    std::atomic<uint32_t> tail{0};   // records the control thread has taken
    alignas(64) std::atomic<uint32_t> head{0};  // records the worker has written
    counter lost;                    // records lost: ring full, or too many packets in flight
    trace_record ring[trace_ring_size];
};

}  // namespace fwd
