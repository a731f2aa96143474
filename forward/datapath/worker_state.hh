// The worker's state, split by who owns it (docs/dataplane.md "The worker's stages"):
// - burst_views: read only, for one burst: the two published snapshots and the input port
//   (the control plane owns them; RCU keeps them alive until the worker's quiescent state);
// - exit_memos: this worker's scratch derived from those views (reset when either changes);
// - tx_buffers, policers, neighbor_requests, hold_table, frag_state, trace_state: this
//   worker's own, touched by no one else (trace_state's shared half aside: trace.hh);
// - the counters (counters.hh): written by this worker only, read by the control thread.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "fib/datapath/dataplane_view.hh"
#include "forward/datapath/adjacency.hh"
#include "forward/datapath/pkt.hh"
#include "forward/datapath/resolve_queue.hh"
#include "forward/datapath/trace.hh"

namespace fwd {

// Packets one worker traces at a time (received, fate not known yet): worker_trace.hh.
inline constexpr unsigned trace_slots = 64;

struct burst_views {
    const fib::dataplane_view* fv = nullptr;
    const adj_view* av = nullptr;
    const port_info* in = nullptr;  // the port the burst came in on
};

// The outer route of a headend template (worker_headend.hh: outer_route()).
struct outer_exit {
    uint32_t from = UINT32_MAX;  // the headend nexthop (template) it is for
    uint32_t nh = 0;             // the outer route: its nexthop in the default VRF
    uint32_t mtu = 0;            // the egress MTU of the outer route
    // When it is a resolved gateway on an untagged port that is up: that port (its own DPDK
    // port) and the gateway's MAC, so the encapsulated packet leaves with its Ethernet header
    // written in the encap's own prepend; port_none: it goes through act as any routed packet.
    uint16_t port = port_none;
    // An ECMP outer route whose every slot's member is such a gateway (port is then
    // port_none): its slots, and the row of its first in exit_memos::ecmp_port / ecmp_eth;
    // 0: none.
    uint8_t ecmp_n = 0;
    uint8_t ecmp_row = 0;
    alignas(16) uint8_t eth[16]{};  // that Ethernet header (gateway MAC, the port's MAC, IPv6)
};

// A gateway nexthop's or an adjacency SID's exit (worker_l2.hh). A slot holds the exit itself,
// not pointers to the port and neighbor it came from: a packet reads that slot only, in place.
struct l2_exit {
    uint32_t from = UINT32_MAX;  // the nexthop
    uint16_t port_id = 0;        // srv6d's port (counters, tx buffer)
    uint16_t dev = 0;            // the DPDK port it leaves on
    uint16_t mtu = 0;
    uint16_t tci_hw = 0;         // the tag the parent's NIC inserts (0: none)
    uint8_t hl = 0;              // Ethernet header bytes: 14, 18 with the 802.1Q tag in eth
    uint8_t eth[16]{};           // neighbor MAC, the port's MAC, [802.1Q tag]
    bool tagged = false;         // a sub-port's (hl 18, or tci_hw): one test for the plain port
};

// What follows from a nexthop is the same for every packet within one pair of snapshots: the
// outer route of a headend template (its destination is fixed), the egress port and neighbor
// MAC of a gateway; kept per nexthop while the views last. Direct-mapped on the nexthop
// index; keyed on the views' serials, not their addresses (a freed view's block is reused for a
// later one). Read in place.
struct exit_memos {
    // The direct exits of an ECMP outer route, per slot of its group (fib::ecmp_slot() of the
    // inner flow hash picks one, as act would pick the member). Group g's slot s at row
    // g * ecmp_exit_slots + s: one add and two indexed loads per packet.
    static constexpr uint32_t ecmp_exit_slots = 8;
    static constexpr uint32_t outer_ecmp_size = 16;
    static constexpr uint32_t outer_size = 64;
    static constexpr uint32_t l2_size = 64;
    std::array<uint32_t, outer_ecmp_size> ecmp_nh{};  // each group's nexthop index
    std::array<uint8_t, outer_ecmp_size> ecmp_n{};    // and its slots
    std::array<uint16_t, outer_ecmp_size * ecmp_exit_slots> ecmp_port{};
    alignas(16) uint8_t ecmp_eth[outer_ecmp_size * ecmp_exit_slots][16]{};
    uint32_t n_ecmp = 0;  // in use, reset with the memos
    // Each template's outer route: VPN traffic to several remote PEs changes template from
    // packet to packet, and the outer route would be resolved again each time.
    std::array<outer_exit, outer_size> outer{};
    // Gateways' and adjacency SIDs' exits: traffic spread over ECMP members or many gateways
    // changes nexthop from packet to packet.
    std::array<l2_exit, l2_size> l2{};
    uint64_t fv_serial = 0, av_serial = 0;  // the serials of the views the memos hold for

    // Forgets everything when the views are not the ones the memos were made from.
    void follow(const fib::dataplane_view& fv, const adj_view& av) {
        if (fv.serial() == fv_serial && av.serial() == av_serial)
            return;
        for (outer_exit& o : outer)
            o.from = UINT32_MAX;
        for (l2_exit& l : l2)
            l.from = UINT32_MAX;
        n_ecmp = 0;
        fv_serial = fv.serial();
        av_serial = av.serial();
    }
};

// Per port: the packets queued for its next tx burst, their count, and the device they go out
// of (a sub-port's parent's), written by the first of them: a buffer lives within one poll,
// whose views decide the device. Count and device apart from the packets, so that a port's row
// is 256 bytes (a shift, not a multiply, per packet).
struct tx_buffers {
    static_assert(max_ports <= 32);
    rte_mbuf* m[max_ports][burst_size];
    uint16_t n[max_ports]{};
    uint16_t dev[max_ports]{};
    uint32_t dirty = 0;  // ports with queued packets

    // Queues `mb` for `port` (sent on `dev`); true when the port's buffer is now full.
    [[gnu::always_inline]] bool push(uint16_t port, rte_mbuf* mb, uint16_t to) {
        uint16_t k = n[port];
        if (k == 0) {  // the first since the last tx: flush sends it, to `to`
            dirty |= 1u << port;
            dev[port] = to;
        }
        m[port][k] = mb;
        n[port] = ++k;
        return k == burst_size;
    }
};

struct token_bucket {
    double tokens = 0;
    uint64_t last = 0;  // TSC of the last refill
};

// This worker's rate limits: its share of each port's punt rate, its ICMP errors.
struct policers {
    token_bucket punt[max_ports];
    double tsc_hz = 0;
    token_bucket icmp;
    double icmp_rate = 1000, icmp_burst = 50;
    uint16_t icmp_id = 0;  // IPv4 identification of the errors it sends
};

// Where the worker asks the control thread to resolve a neighbor (worker_punt.hh). The last
// request queued and when (TSC): a flow towards one unresolved neighbor misses on every packet,
// and one request per 10 ms is plenty for a control thread that rate-limits to one per second
// anyway. Keeps the ring for distinct neighbors.
struct neighbor_requests {
    rte_ring* ring = nullptr;
    resolve_request last;
    uint64_t last_tsc = 0;
};

// Trace and capture (worker_trace.hh). `arm` is read once per burst: the request word of
// `shared`, or one that stays 0. The rest is touched only while a request is armed or traced
// packets are on their way (`watch`).
struct trace_state {
    trace_shared* shared = nullptr;
    const std::atomic<uint64_t>* arm = nullptr;
    uint64_t watch = 0;  // non-zero: tx and lookup look for traced packets
    uint64_t word = 0;   // the request word last seen
    trace_arm req{};
    uint32_t left = 0;   // records this request may still make here
    uint64_t free = ~uint64_t{0};  // slots free (a set bit)
    uint8_t of[burst_size]{};      // per packet of the burst: its slot + 1, 0: not traced
    uint8_t txm[burst_size]{};     // per packet of a tx burst: its slot + 1
    rte_mbuf* m[trace_slots]{};    // the mbuf each slot's packet came in
    uint64_t poll[trace_slots]{};  // the poll it came in
    trace_record slot[trace_slots];
};

// Packets held while their neighbor is resolved, as Linux queues a few per neighbor
// (unres_qlen): preallocated, owned by this worker alone. A slot is one neighbor (port,
// family, address) and holds its packets in arrival order; they leave when a newer adjacency
// snapshot has the neighbor, or are dropped after hold_time (worker_hold.hh).
struct hold_table {
    static constexpr unsigned neighbors = 64, per_neighbor = 3;
    struct held_pkt {
        rte_mbuf* m;
        uint64_t since;  // TSC when held
        uint16_t l3;
        uint8_t af;
    };
    struct slot {
        uint8_t n = 0;  // packets held; 0: free
        uint8_t naf = 0;
        uint16_t port = 0;
        uint8_t addr[16]{};
        held_pkt pk[per_neighbor];
    };
    slot slots[neighbors];
    unsigned held = 0;                  // packets held, all slots
    const adj_view* av = nullptr;       // the snapshot the held packets missed in
    uint64_t epoch = 0;
    uint64_t next_check = 0;            // TSC of the next expiry scan
};

// The fragments of the packet the headend is cutting (worker_frag.hh).
struct frag_state {
    static constexpr uint16_t backlog = burst_size;
    rte_mempool* indirect = nullptr;
    uint16_t n = 0;
    std::unique_ptr<pkt[]> pkts = std::make_unique<pkt[]>(backlog);
};

}  // namespace fwd
