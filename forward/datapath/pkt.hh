// What the worker's stages pass one another (docs/dataplane.md "The worker's stages"): each
// packet's state, and vectors of packets, one per edge between two stages, as grout's nodes and
// VPP's graph nodes pass theirs. A burst's state lives on the stack of the call that received it.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "fib/datapath/dataplane_view.hh"

namespace fwd {

inline constexpr uint16_t burst_size = 32;

// One packet's state along the stages: what its headers and mbuf do not say.
struct pkt {
    rte_mbuf* m;
    const fib::compiled_nh* nhp;  // the nexthop of its last lookup, taken there: act reads it without the page walk
    uint32_t hash;       // flow hash of the current L3 packet; 0 = not computed yet
    vrf::vrf_id vrf;
    uint16_t l3;         // offset of the current L3 header from the data start
    uint8_t af;          // 4 or 6
    uint8_t flags;
    uint8_t lookups;
    uint8_t tr;          // its trace slot + 1 (worker_trace.hh); 0: not traced
    uint32_t l3u() const { return l3; }
};
static_assert(sizeof(pkt) == 32, "two packets' state per cache line");

// An edge: the packets one stage hands the next, in arrival order.
struct pkt_vec {
    pkt* p[burst_size];
    uint16_t n = 0;
    void push(pkt& x) { p[n++] = &x; }
};

}  // namespace fwd
