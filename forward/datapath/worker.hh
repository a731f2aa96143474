// One forwarding worker (one per lcore), made of stages that pass bursts along edges
// (docs/dataplane.md "The worker's stages"): rx -> classify (worker_classify.hh) -> lookup
// (worker_lookup.hh: bulk LPM in the port's VRF) -> act per nexthop kind (forward, headend,
// endpoint, local, ECMP pick, drop) -> again lookup where act asks for one (the outer DA after
// an encap, the inner packet after a decap) -> rewrite (worker_l2.hh: the Ethernet header from
// the neighbor) -> tx (worker_tx.hh). Its state is split by owner (worker_state.hh). It reads
// two published snapshots (compiled tables, adjacency), loaded once per poll; the caller
// reports the RCU quiescent state between polls. No locks, no allocation (the headend's
// header-mbuf fallback aside), no virtual calls.
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
#include "forward/datapath/pkt.hh"
#include "forward/datapath/resolve_queue.hh"
#include "forward/datapath/srv6_headend.hh"
#include "forward/datapath/trace.hh"
#include "forward/datapath/worker_state.hh"

namespace fwd {

struct classify_out;  // worker_classify.hh

// Lookups one packet may need: VRF route -> (encap) outer route, or SID -> (decap) inner route
// -> (re-encap) outer route. More means the tables loop.
inline constexpr uint8_t max_lookups = 4;

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
    unsigned held() const { return _hold.held; }
    // ICMP messages this worker may send: a token bucket of `rate` per second and `burst`
    // (RFC 4443 §2.4(f)); rate 0: none at all (worker_icmp.hh).
    void set_icmp_limit(uint32_t rate, uint32_t burst);
    // The pool of indirect mbufs IPv4 fragmentation at the headend takes (data room 0); none:
    // an IPv4 packet without DF that does not fit gets fragmentation needed, as one with DF
    // (worker_frag.hh).
    void set_frag_pool(rte_mempool* indirect) { _frag.indirect = indirect; }
    const headend_ctx& headend() const { return _he; }

private:
    void run(rte_mbuf** pkts, uint16_t n, const port_info* in);
    void rounds(pkt_vec& work, const classify_out* first, bool looked_up);
    void lookup(const pkt_vec& w);
    void lookup_keys(pkt* const* ps, uint32_t k, uint8_t af, vrf::vrf_id v, const uint32_t* keys4, const fib::u128* keys6);
    void act(pkt& p, pkt_vec& next);
    void act_outer(pkt& p, pkt_vec& next);
    void do_forward(pkt& p, const fib::compiled_nh& nh);
    bool forward_checks(pkt& p, uint8_t* ip, uint32_t mtu);
    void do_headend(pkt& p, const fib::compiled_nh& nh, pkt_vec& next);
    template <bool insert>
    void headend_push(pkt& p, const fib::encap_template& e, const outer_exit& o, uint16_t out, const uint8_t* out_eth,
                      uint16_t strip, uint8_t inner_type, uint8_t tc, uint32_t hash, pkt_vec& next);
    void do_insert(pkt& p, const fib::encap_template& e, const outer_exit& o, uint8_t* ip, uint32_t hash, pkt_vec& next);
    void do_endpoint(pkt& p, const fib::compiled_nh& nh, pkt_vec& next);
    void do_adjacency(pkt& p, const fib::compiled_nh& nh, rib::family af, const uint8_t* addr);
    void l2_out(pkt& p, const port_info& port, rib::family naf, const uint8_t* addr, uint32_t from);
    const l2_exit* l2_recall(uint32_t from) const;
    const l2_exit& l2_remember(uint32_t from, const port_info& port, const mac_addr& mac);
    void l2_send(pkt& p, const l2_exit& x);
    uint8_t* l2_room(pkt& p, uint16_t hl);
    void l2_write(pkt& p, const port_info& port, const mac_addr& mac);
    void l2_finish(pkt& p, uint8_t* eth, uint16_t port_id, uint16_t dev);
    // L2VPN (worker_l2vpn.hh): End.DX2's frame out of its port; an attachment circuit's burst
    // into its pseudowire.
    void dx2_out(pkt& p, uint32_t oif);
    void l2vpn_run(rte_mbuf** pkts, uint16_t n, const port_info* in, const uint8_t* tr);
    void l2vpn_encap(pkt& p, const l2_service& svc, pkt_vec& next);
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
    void trace_lookups(pkt* const* ps, uint32_t n, const uint32_t* res);
    void trace_end(pkt& p, trace_fate f, uint16_t out_port, drop_reason why = {});
    void trace_answered(pkt& p, drop_reason why);
    void trace_emit(unsigned slot);
    void trace_tx(uint16_t port, const rte_mbuf* const* m, uint16_t n);
    void trace_tx_done(uint16_t n, uint16_t sent, drop_reason why);
    trace_record* trace_ring_next();
    void trace_ring_commit();
    // A packet refused with `why` and answered with an ICMP message in its place.
    void answered(pkt& p, drop_reason why);

    // Configuration, fixed at construction.
    std::vector<rx_queue> _rx;
    uint16_t _txq;
    published _tables;
    headend_ctx _he;
    worker_counters& _c;  // written here only; the control thread reads them
    burst_views _v;       // read only: the snapshots of this burst and its input port
    // The edge act writes packets that need another lookup to (run() sets it per round): an
    // ICMP message replaces its cause there and is routed like any packet. Null outside rounds.
    pkt_vec* _next = nullptr;
    exit_memos _memo;  // scratch derived from _v
    tx_buffers _txb;
    policers _pol;
    neighbor_requests _req;
    trace_state _ts;
    hold_table _hold;
    frag_state _frag;
};

}  // namespace fwd
