// Neighbor resolution requests from the workers to the control thread. A worker that rewrote a
// packet (decapsulated, encapsulated) and finds no neighbor for it cannot hand it to the kernel
// as it is (docs/host-path.md), so it drops it and asks the control thread to make the kernel
// resolve the neighbor. One ring per worker, single producer (that worker) and single consumer
// (the control thread): an enqueue is a few stores, never blocks, and a full ring refuses the
// request (the worker counts it; the next miss asks again).
#pragma once

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <cstdint>

namespace fwd {

struct resolve_request {
    uint16_t port_id = 0;  // the egress port whose neighbor is missing
    uint8_t af = 0;        // 4 or 6
    uint8_t pad = 0;
    uint8_t addr[16]{};    // 4 or 16 network-order bytes
};
static_assert(sizeof(resolve_request) % 4 == 0, "rte_ring elements are multiples of 4 bytes");

// A ring of `count` (a power of two) requests; it holds count - 1. nullptr on failure.
rte_ring* resolve_ring_create(const char* name, unsigned count, int socket);

// Worker side: false when the ring is full. (Non-const: DPDK 22.11 takes `void*`, and only reads.)
inline bool resolve_ring_put(rte_ring* r, resolve_request& q) {
    return rte_ring_sp_enqueue_elem(r, &q, sizeof q) == 0;
}

// Control thread side: up to `max` requests into `out`; returns how many.
unsigned resolve_ring_take(rte_ring* r, resolve_request* out, unsigned max);

}  // namespace fwd
