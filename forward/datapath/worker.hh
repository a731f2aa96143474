// One forwarding worker (one per lcore): rx burst -> classify -> bulk LPM lookup in the port's
// VRF -> the nexthop's action (IP forwarding, H.Encaps*, an SRv6 endpoint behavior, ECMP pick,
// drop) -> further lookups where the action asks for one (the outer DA after an encap, the
// inner packet after a decap) -> Ethernet rewrite from the neighbor table -> tx burst.
// See docs/dataplane.md. It reads two published snapshots (compiled tables, adjacency), loaded
// once per poll; the caller reports the RCU quiescent state between polls. No locks, no
// allocation (the headend's header-mbuf fallback aside), no virtual calls.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "fib/datapath/dataplane_view.hh"
#include "fib/datapath/rcu.hh"
#include "forward/datapath/adjacency.hh"
#include "forward/datapath/counters.hh"
#include "forward/datapath/resolve_queue.hh"
#include "forward/datapath/srv6_headend.hh"
#include "forward/datapath/trace.hh"

namespace rib {
struct behavior_info;
}  // namespace rib

namespace fwd {

inline constexpr uint16_t burst_size = 32;
// Lookups one packet may need: VRF route -> (encap) outer route, or SID -> (decap) inner route
// -> (re-encap) outer route. More means the tables loop.
inline constexpr uint8_t max_lookups = 4;
// Packets one worker traces at a time (received, fate not known yet): worker_trace.hh.
inline constexpr unsigned trace_slots = 64;

struct rx_queue {
    uint16_t port = 0;
    uint16_t queue = 0;
    uint16_t inject_to = port_none;  // a TAP mirror's queue: what the host sends goes out of this port
};

// The two publication points a worker reads.
struct published {
    const fib::rcu_cell<fib::dataplane_view>* fib = nullptr;
    const fib::rcu_cell<adj_view>* adj = nullptr;
};

class worker {
public:
    // `resolve`: where this worker asks the control thread to resolve a neighbor it misses for
    // a packet it rewrote (resolve_queue.hh); nullptr: nobody to ask. `trace`: where the
    // control thread arms a trace or capture and reads its records (trace.hh); nullptr: never.
    worker(std::vector<rx_queue> rx, uint16_t tx_queue, published tables, rte_mempool* hdr_pool,
           worker_counters& counters, rte_ring* resolve = nullptr, trace_shared* trace = nullptr);
    ~worker();  // frees the packets it still holds
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    // One pass: load both snapshots, receive a burst from every queue, process, transmit.
    // Returns the packets received. Call the RCU quiescent state after it.
    uint32_t poll();

    // Processes `n` packets received on `in_port` against the given snapshots and queues the
    // results for transmission (flush() sends what is left). Takes ownership of every mbuf.
    void process(rte_mbuf** pkts, uint16_t n, uint16_t in_port, const fib::dataplane_view* fv, const adj_view* av);
    void flush();

    worker_counters& counters() { return _c; }
    // Drops what was held for a neighbor longer than the hold time as of TSC `now` (poll() calls
    // it; public so that a test need not wait a second). worker_hold.hh.
    void expire_held(uint64_t now);
    unsigned held() const { return _held; }
    // ICMP messages this worker may send: a token bucket of `rate` per second and `burst`
    // (RFC 4443 §2.4(f)); rate 0: none at all (worker_icmp.hh).
    void set_icmp_limit(uint32_t rate, uint32_t burst);
    // The pool of indirect mbufs IPv4 fragmentation at the headend takes (data room 0); none:
    // an IPv4 packet without DF that does not fit gets fragmentation needed, as one with DF
    // (worker_frag.hh).
    void set_frag_pool(rte_mempool* indirect) { _frag_indirect = indirect; }
    const headend_ctx& headend() const { return _he; }

    struct pkt;  // per-packet state of one burst (worker.cc)

private:
    void run(rte_mbuf** pkts, uint16_t n, const port_info* in);
    uint8_t classify_full(pkt& p, uint64_t my_mac, rte_mbuf** sub, const port_info** sub_in, uint16_t& n_sub);
    static constexpr int32_t vlan_taken = -1;
    int32_t vlan_in(pkt& p, uint16_t type, rte_mbuf** sub, const port_info** sub_in, uint16_t& n_sub);
    void lookup(pkt** ps, uint16_t n);
    void lookup_keys(pkt** ps, uint32_t k, uint8_t af, vrf::vrf_id v, const uint32_t* keys4, const fib::u128* keys6);
    void act(pkt& p, pkt** next, uint16_t& n_next);
    void act_outer(pkt& p, pkt** next, uint16_t& n_next);
    void do_forward(pkt& p, const fib::compiled_nh& nh);
    bool forward_checks(pkt& p, uint8_t* ip, uint32_t mtu);
    void do_headend(pkt& p, const fib::compiled_nh& nh, pkt** next, uint16_t& n_next);
    struct outer_exit;  // below, with the memos
    template <bool insert>
    void headend_push(pkt& p, const fib::encap_template& e, const outer_exit& o, uint16_t out, const uint8_t* out_eth,
                      uint16_t strip, uint8_t inner_type, uint8_t tc, uint32_t hash, pkt** next, uint16_t& n_next);
    void do_insert(pkt& p, const fib::encap_template& e, const outer_exit& o, uint8_t* ip, uint32_t hash, pkt** next,
                   uint16_t& n_next);
    void do_endpoint(pkt& p, const fib::compiled_nh& nh, pkt** next, uint16_t& n_next);
    void do_adjacency(pkt& p, const fib::compiled_nh& nh, rib::family af, const uint8_t* addr);
    bool decap_direct(pkt& p, const rib::behavior_info& row, uint16_t vrf, pkt** next, uint16_t& n_next);
    void l2_out(pkt& p, const port_info& port, rib::family naf, const uint8_t* addr, uint32_t from);
    struct l2_exit;  // below, with the memos
    const l2_exit* l2_recall(uint32_t from) const;
    const l2_exit& l2_remember(uint32_t from, const port_info& port, const mac_addr& mac);
    void l2_send(pkt& p, const l2_exit& x);
    uint8_t* l2_room(pkt& p, uint16_t hl);
    void l2_write(pkt& p, const port_info& port, const mac_addr& mac);
    void l2_finish(pkt& p, uint8_t* eth, uint16_t port_id, uint16_t dev);
    // L2VPN (worker_l2vpn.hh): End.DX2's frame out of its port; an attachment circuit's burst
    // into its pseudowire.
    void dx2_out(pkt& p, uint32_t oif);
    bool dx2_direct(pkt& p);
    void l2vpn_run(rte_mbuf** pkts, uint16_t n, const port_info* in, const uint8_t* tr);
    void l2vpn_encap(pkt& p, const l2_service& svc, pkt** next, uint16_t& n_next);
    void drop(pkt& p, drop_reason r);
    void punt(pkt& p);
    void want_neighbor(uint16_t port, rib::family af, const uint8_t* addr);
    // A rewritten packet whose neighbor is unresolved waits for it (worker_hold.hh).
    void hold(pkt& p, uint16_t port, rib::family naf, const uint8_t* addr);
    void release_held(const adj_view* av);
    void expire_old(uint64_t now);
    bool is_own(const pkt& p) const;
    // ICMP errors and own addresses reached through the VPN (worker_icmp.hh, worker_local.hh).
    bool icmp_send(pkt& p, icmp_kind k, uint8_t type, uint8_t code, uint32_t rest, vrf::vrf_id vrf,
                   const uint8_t* src);
    bool icmp_time_exceeded(pkt& p);
    bool icmp_too_big(pkt& p, uint32_t mtu);
    void expire(pkt& p);
    void encap_too_big(pkt& p, uint32_t mtu);
    // IPv4 fragmentation at the headend (worker_frag.hh).
    void encap_fragment(pkt& p, const fib::compiled_nh& nh, uint32_t fits, uint32_t hash);
    void run_fragments();
    void endpoint_error(pkt& p, const fib::compiled_nh& nh, drop_reason why);
    uint32_t outer_ecmp_mtu(const fib::compiled_nh& o) const;
    void outer_ecmp_exit(uint32_t nh, const fib::compiled_nh& o, outer_exit& x);
    bool direct_exit(const fib::compiled_nh& m, uint16_t& port, uint8_t* eth) const;
    void outer_exit_of(const outer_exit& o, uint32_t hash, uint16_t& out, const uint8_t*& out_eth) const;
    const outer_exit& outer_route(uint32_t from, const uint8_t* dst);
    void outer_resolve(uint32_t from, const uint8_t* dst);
    void to_own(pkt& p);
    void inject(rte_mbuf** pkts, uint16_t n, uint16_t to);
    // `port`: srv6d's port (counters, tx buffer); `dev`: the DPDK port it leaves on (a
    // sub-port's parent).
    void enqueue(uint16_t port, rte_mbuf* m, uint16_t dev);
    void enqueue(uint16_t port, rte_mbuf* m) { enqueue(port, m, port); }
    void tx(uint16_t port);
    drop_reason tx_refused(uint16_t port) const;
    // Trace and capture (worker_trace.hh).
    void trace_sync(uint64_t word);
    void trace_watch();
    const uint8_t* trace_begin(rte_mbuf** pkts, uint16_t n, uint16_t in_port);
    void trace_lookups(pkt** ps, uint32_t n, const uint32_t* res);
    void trace_end(pkt& p, trace_fate f, uint16_t out_port, drop_reason why = {});
    void trace_answered(pkt& p, drop_reason why);
    void trace_emit(unsigned slot);
    void trace_tx(uint16_t port, const rte_mbuf* const* m, uint16_t n);
    void trace_tx_done(uint16_t n, uint16_t sent, drop_reason why);
    trace_record* trace_ring_next();
    void trace_ring_commit();
    // A packet refused with `why` and answered with an ICMP message in its place.
    void answered(pkt& p, drop_reason why);

    std::vector<rx_queue> _rx;
    uint16_t _txq;
    published _tables;
    headend_ctx _he;
    worker_counters& _c;
    const fib::dataplane_view* _fv = nullptr;
    const adj_view* _av = nullptr;
    const port_info* _in = nullptr;  // the port the burst came in on
    // Where act() puts packets that need another lookup (process() sets them per round): an
    // ICMP message replaces its cause there and is routed like any packet.
    pkt** _next = nullptr;
    uint16_t* _n_next = nullptr;
    // Memos: what follows from a nexthop is the same for every packet within one pair of
    // snapshots: the outer route of a headend template (its destination is fixed), the egress
    // port and neighbor MAC of a gateway; kept per nexthop while the views last.
    // The outer route of a headend template (worker_headend.hh: outer_route()).
    struct outer_exit {
        uint32_t from = UINT32_MAX;  // the headend nexthop (template) it is for
        uint32_t nh = 0;             // the outer route: its nexthop in the default VRF
        uint32_t mtu = 0;            // the egress MTU of the outer route
        // When it is a resolved gateway on an untagged port that is up: that port (its own
        // DPDK port) and the gateway's MAC, so the encapsulated packet leaves with its Ethernet
        // header written in the encap's own prepend; port_none: it goes through act() as any
        // routed packet.
        uint16_t port = port_none;
        // An ECMP outer route whose every slot's member is such a gateway (port is then
        // port_none): its slots, and the row of its first in _outer_ecmp_port /
        // _outer_ecmp_eth; 0: none.
        uint8_t ecmp_n = 0;
        uint8_t ecmp_row = 0;
        alignas(16) uint8_t eth[16]{};  // that Ethernet header (gateway MAC, the port's MAC, IPv6)
    };
    // The direct exits of an ECMP outer route, per slot of its group (fib::ecmp_slot() of the
    // inner flow hash picks one, as act() would pick the member): two uplinks, the usual PE,
    // then cost what one does, not a second pass through act().
    // Group g's slot s at row g * ecmp_exit_slots + s: one add and two indexed loads per packet.
    static constexpr uint32_t ecmp_exit_slots = 8;
    static constexpr uint32_t outer_ecmp_size = 16;
    std::array<uint32_t, outer_ecmp_size> _outer_ecmp_nh{};  // each group's nexthop index
    std::array<uint8_t, outer_ecmp_size> _outer_ecmp_n{};    // and its slots
    std::array<uint16_t, outer_ecmp_size * ecmp_exit_slots> _outer_ecmp_port{};
    alignas(16) uint8_t _outer_ecmp_eth[outer_ecmp_size * ecmp_exit_slots][16]{};
    uint32_t _n_outer_ecmp = 0;  // in use, reset with the memos
    // Each template's outer route for as long as the two views it came from are the ones in
    // use: VPN traffic to several remote PEs changes template from packet to packet, and the
    // outer route (a lookup in the default VRF, the port, the gateway's MAC) would be resolved
    // again each time. Direct-mapped on the nexthop index; keyed on the views' serials, not
    // their addresses (a freed view's block is reused for a later one). Read in place.
    static constexpr uint32_t outer_memo_size = 64;
    std::array<outer_exit, outer_memo_size> _outer_memo{};
    // The same for a gateway nexthop's exit (worker_forward.hh) and an adjacency SID's: traffic
    // spread over ECMP members or many gateways changes nexthop from packet to packet. A slot
    // holds the exit itself, not pointers to the port and neighbor it came from: a packet reads
    // that slot only, in place (a copy of the current one out would add a branch per change of
    // gateway).
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
    static constexpr uint32_t l2_memo_size = 64;
    std::array<l2_exit, l2_memo_size> _l2_memo{};
    uint64_t _memo_fv = 0, _memo_av = 0;  // the serials of the views both memos hold for
    // Per port: the packets queued for its next tx burst, their count, and the device they go
    // out of (a sub-port's parent's), written by the first of them: a buffer lives within one
    // poll, whose views decide the device. Count and device apart from the packets, so that a
    // port's row is 256 bytes (a shift, not a multiply, per packet).
    rte_mbuf* _tx_m[max_ports][burst_size];
    uint16_t _tx_n[max_ports]{};
    uint16_t _tx_dev[max_ports]{};
    uint32_t _tx_dirty = 0;  // ports with queued packets
    struct bucket {
        double tokens = 0;
        uint64_t last = 0;  // TSC of the last refill
    };
    bucket _punt[max_ports];  // this worker's share of each port's punt rate
    double _tsc_hz;
    bucket _icmp;  // this worker's ICMP rate limit
    double _icmp_rate = 1000, _icmp_burst = 50;
    uint16_t _icmp_id = 0;  // IPv4 identification of the errors it sends
    rte_ring* _resolve;
    // The last request queued and when (TSC): a flow towards one unresolved neighbor misses on
    // every packet, and one request per 10 ms is plenty for a control thread that rate-limits
    // to one per second anyway. Keeps the ring for distinct neighbors.
    resolve_request _last_req;
    uint64_t _last_req_tsc = 0;
    static_assert(max_ports <= 32);

    // Trace and capture (worker_trace.hh). `_arm` is read once per burst: the request word of
    // `_trace`, or one that stays 0. The rest is touched only while a request is armed or
    // traced packets are on their way (`_tr_watch`).
    trace_shared* _trace;
    const std::atomic<uint64_t>* _arm;
    uint64_t _tr_watch = 0;  // non-zero: tx() and lookup() look for traced packets
    uint64_t _tr_word = 0;   // the request word last seen
    trace_arm _tr{};
    uint32_t _tr_left = 0;   // records this request may still make here
    uint64_t _tr_free = ~uint64_t{0};  // slots free (a set bit)
    uint8_t _tr_of[burst_size]{};      // per packet of the burst: its slot + 1, 0: not traced
    uint8_t _tr_txm[burst_size]{};     // per packet of a tx burst: its slot + 1
    rte_mbuf* _tr_m[trace_slots]{};    // the mbuf each slot's packet came in
    uint64_t _tr_poll[trace_slots]{};  // the poll it came in
    trace_record _tr_slot[trace_slots];

    // Packets held while their neighbor is resolved, as Linux queues a few per neighbor
    // (unres_qlen): preallocated, owned by this worker alone. A slot is one neighbor (port,
    // family, address) and holds its packets in arrival order; they leave when a newer adjacency
    // snapshot has the neighbor, or are dropped after hold_time (worker_hold.hh).
    static constexpr unsigned hold_neighbors = 64, hold_per_neighbor = 3;
    struct held_pkt {
        rte_mbuf* m;
        uint64_t since;  // TSC when held
        uint16_t l3;
        uint8_t af;
    };
    struct hold_slot {
        uint8_t n = 0;  // packets held; 0: free
        uint8_t naf = 0;
        uint16_t port = 0;
        uint8_t addr[16]{};
        held_pkt pk[hold_per_neighbor];
    };
    hold_slot _hold[hold_neighbors];
    // The fragments of the packet the headend is cutting (worker_frag.hh).
    static constexpr uint16_t frag_backlog = burst_size;
    rte_mempool* _frag_indirect = nullptr;
    uint16_t _n_frags = 0;
    std::unique_ptr<pkt[]> _frags;  // frag_backlog of them (pkt is complete in worker.cc only)
    unsigned _held = 0;                // packets held, all slots
    const adj_view* _hold_av = nullptr;  // the snapshot the held packets missed in
    uint64_t _hold_epoch = 0;
    uint64_t _hold_next_check = 0;     // TSC of the next expiry scan
};

}  // namespace fwd
