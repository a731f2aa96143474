// The dataplane as srv6d runs it: the packet pool, the ports, one worker per lcore, the
// adjacency snapshot, and the counters the control thread reads. The control thread owns
// this object; workers only read what it publishes (docs/dataplane.md).
//
// Lcores: one worker per EAL worker lcore (`-l 0,1` = one worker on lcore 1); with no worker
// lcore (`-l 0`), one worker runs on the main lcore in run_here() while the control thread
// runs beside it. Worker w polls rx queue w of every port and sends on tx queue w.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fib/datapath/dataplane_view.hh"
#include "fib/datapath/rcu.hh"
#include "forward/datapath/adjacency.hh"
#include "forward/datapath/counters.hh"
#include "forward/control/l2vpn.hh"
#include "forward/control/port.hh"
#include "forward/control/tap_carrier.hh"
#include "forward/control/trace_hub.hh"
#include "forward/datapath/resolve_queue.hh"

struct rte_mempool;

namespace fwd {

struct dataplane_options {
    std::vector<port_spec> ports;
    std::vector<neighbor_spec> neighbors;
    unsigned mbufs = 16383;  // packet pool size (all ports and workers)
    uint16_t rx_desc = 512, tx_desc = 512;
    uint32_t punt_rate = 10000;  // packets/s each port may punt to its TAP (split among workers)
    uint32_t punt_burst = 512;
    // ICMP messages (errors, echo replies through the VPN) each worker may send per second,
    // and its burst (RFC 4443 §2.4(f)); 0: none. Linux: net.ipv4.icmp_msgs_per_sec / _burst.
    uint32_t icmp_rate = 1000;
    uint32_t icmp_burst = 50;
    // An idle worker sleeps between polls, 1 us first, doubling up to this (0: busy polling,
    // the default: a dedicated core at line rate). VPP's poll-sleep-usec, grout's idle sleep: for
    // shared or virtual CPUs, at the cost of that much latency for the first packet after a lull.
    uint32_t idle_sleep_us = 0;
};

// What the kernel knows about the mirrors (host::kernel_state, translated by the caller).
struct kernel_view {
    struct neigh {
        uint32_t ifindex = 0;
        rib::ip_addr addr;
        mac_addr mac;
    };
    struct addr {
        uint32_t ifindex = 0;
        rib::ip_addr addr;
    };
    std::vector<neigh> neighbors;
    std::vector<addr> addresses;
};

// Sums over the workers, minus the baseline of the last clear.
struct counters_snapshot {
    struct port {
        std::string name;
        uint16_t port_id = 0;
        uint32_t ifindex = 0;
        std::string vrf;
        uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0, tx_dropped = 0;
        uint64_t punted = 0, injected = 0;
        // The device's own counters (rte_eth_stats; 0 where the PMD keeps none, and on a
        // sub-port: its parent's device counts them): packets it dropped because the rx ring was
        // full (imissed: the worker did not poll in time), received in error, dropped for want of
        // an mbuf (the pool is empty), and failed to send.
        uint64_t rx_missed = 0, rx_errors = 0, rx_nombuf = 0, tx_errors = 0;
        std::string tap;  // its mirror interface, empty without one
        std::string parent;  // a sub-port's parent port, and its VLAN id (0: not a sub-port)
        uint16_t vlan = 0;
        bool link_up = false;
        uint32_t speed_mbps = 0, mtu = 0, queues = 0;
    };
    std::vector<port> ports;
    std::array<uint64_t, drop_reason_count> drops{};
    // A local SID's packets and bytes, by its counter slot and generation (fib::sid_counter):
    // 0 for a generation no worker has counted under yet.
    std::function<std::pair<uint64_t, uint64_t>(uint32_t slot, uint32_t gen)> sid;
    uint64_t sid_overflow_packets = 0;
    uint64_t headend_chained = 0;
    uint64_t ip4_fragmented = 0, ip4_fragments = 0;  // IPv4 fragmentation at the headend
    std::array<uint64_t, headend_modes> headend{};  // packets encapsulated, by rib::encap_mode
    // Neighbor resolution for rewritten packets: requests the workers queued, those refused by
    // a full queue, and what the control thread did with them (count_resolutions).
    uint64_t resolve_queued = 0, resolve_lost = 0, resolve_sent = 0, resolve_limited = 0, resolve_failed = 0;
    // Packets held for an unresolved neighbor and those sent once it was (worker_hold.hh).
    uint64_t held = 0, released = 0;
    std::array<uint64_t, icmp_kinds> icmp{};  // ICMP messages sent, by icmp_kind
    uint64_t icmp_rate_limited = 0, icmp_no_source = 0;
    unsigned workers = 0;
    // Each worker's share: what it received on the ports (not from their TAP mirrors), sent out
    // of them (as the ports count it) and dropped. Shows how RSS spread the flows over the workers.
    struct worker {
        unsigned id = 0;
        std::optional<unsigned> lcore;  // the EAL lcore it runs on; none until it started
        uint64_t rx_packets = 0, tx_packets = 0, dropped = 0;
    };
    std::vector<worker> per_worker;
};

// One mbuf pool as rte_mempool counts it (show memory).
struct pool_usage {
    std::string name;
    uint64_t size = 0, in_use = 0, available = 0, data_room = 0;
};

class dataplane {
public:
    using vrf_resolver = std::function<std::optional<vrf::vrf_id>(const std::string&)>;

    dataplane(fib::qsbr_domain& rcu, const fib::rcu_cell<fib::dataplane_view>& tables);
    ~dataplane();
    dataplane(const dataplane&) = delete;
    dataplane& operator=(const dataplane&) = delete;

    // Control thread, after EAL init: pools, ports, workers, the first adjacency snapshot.
    bool open(const dataplane_options& o, const vrf_resolver& vrf_of, std::string& err);
    // Re-resolves the ports' VRFs (after a registry change) and reads their link state; publishes
    // a new adjacency when either changed. A port is usable when its link is up and its VRF active.
    void update_vrfs(const vrf_resolver& vrf_of);
    // Link state only (the control thread polls it every second); a port's link is mirrored
    // onto its TAP, so the kernel and FRR see it go down and up.
    void refresh_links();
    // The kernel's neighbors and addresses on the mirrors: merged with the configured neighbors
    // (those win) and published when they changed.
    void set_kernel_view(const kernel_view& k);
    // VPWS attachment circuits (l2vpn.hh): each service's port sends its frames into the
    // service's pseudowire from the next snapshot on (dataplane_l2vpn.cc).
    void set_l2vpn(const std::vector<vpws_state>& services);
    bool has_taps() const;
    // The punt policer of every mirrored port (srv6d's reload): rate and burst per port, split
    // among the workers as at open(); published with a new adjacency snapshot when it changed.
    // The workers' token buckets carry over (capped at the new burst): no packet is dropped for it.
    void set_punt(uint32_t rate, uint32_t burst);
    // Each worker's ICMP limit (srv6d's reload): published with a new adjacency snapshot; a
    // worker takes it at its next burst, its bucket full at the new burst.
    void set_icmp(uint32_t rate, uint32_t burst);
    void set_idle_sleep(uint32_t us) { _idle_sleep_us.store(us, std::memory_order_relaxed); }
    // Polls made by all workers since they started (what dataplane.idle-sleep saves).
    uint64_t polls() const;

    // Starts a worker on every EAL worker lcore; returns how many. With none, the caller runs
    // run_here() on the main lcore.
    unsigned launch();
    void run_here();
    // Asks every worker to stop (any thread)...
    void request_stop() { _run.store(false); }
    // ... and waits for the lcores it launched (the main lcore only).
    void stop();

    // The workers' neighbor resolution requests (resolve_queue.hh), appended to `out`.
    void take_resolve_requests(std::vector<resolve_request>& out);
    // The kernel ifindex of a port's TAP mirror (0: none), where its neighbors are resolved.
    uint32_t tap_ifindex(uint16_t port_id) const;
    // What the control thread did with the requests: asked the kernel, held back (asked
    // recently), the kernel refused.
    void count_resolutions(uint64_t sent, uint64_t limited, uint64_t failed);

    counters_snapshot counters() const;
    void clear_counters();
    // The packet pool, then the workers' header pools (control thread).
    std::vector<pool_usage> pools() const;
    unsigned workers() const { return static_cast<unsigned>(_workers.size()); }
    const adj_view* adjacency() const { return _adj.load(); }
    // Trace and capture (srv6ctl trace / capture): null before open().
    trace_hub* trace() { return _trace.get(); }
    // The lcore worker `w` runs on (the main lcore's when it runs in run_here()).
    unsigned lcore_of(unsigned w) const;
    // A port by its srv6d name, and the name of a DPDK port id (a TAP mirror: "NAME/tap").
    std::optional<uint16_t> port_by_name(const std::string& name) const;
    std::string port_name(uint16_t port_id) const;

private:
    struct raw;
    raw sum() const;
    void publish_adjacency();
    void refresh(bool force);
    bool open_sub_port(const port_spec& spec, unsigned n_workers, std::string& err);
    bool open_tap(const port_spec& spec, const mac_addr& mac, unsigned n_workers, port_info& pi,
                  uint32_t& tap_ifindex, std::string& err);
    bool taken_by_sub_port(uint16_t dpdk_id, std::string& err) const;
    static int lcore_main(void* arg);
    void worker_loop(unsigned w);

    fib::qsbr_domain& _rcu;
    const fib::rcu_cell<fib::dataplane_view>& _tables;
    fib::rcu_cell<adj_view> _adj;
    uint64_t _adj_epoch = 0;
    dataplane_options _opt;
    std::vector<port_info> _ports;
    std::vector<l2_service> _l2;         // the VPWS pseudowires; a circuit's port_info.l2vpn - 1
    std::vector<std::string> _port_vrf;
    std::vector<uint8_t> _vrf_ok, _link_up;
    std::vector<uint32_t> _tap_ifindex;  // per port, as _ports: its mirror's ifindex
    std::vector<int> _parent;            // per port: a sub-port's parent's index, -1 for a port
    std::vector<uint8_t> _tx_vlan_hw;    // per port: its NIC inserts VLAN tags
    bool _said_no_vlan_devices = false;
    std::vector<rte_ring*> _resolve;     // per worker
    uint64_t _resolve_sent = 0, _resolve_limited = 0, _resolve_failed = 0;
    kernel_view _kernel;
    rte_mempool* _pool = nullptr;
    rte_mempool* _frag_pool = nullptr;  // indirect mbufs: IPv4 fragments at the headend
    std::vector<rte_mempool*> _hdr_pools;
    // Per port, as _ports: the carrier of its own TAP mirror (null: none, or a VLAN device).
    std::vector<std::unique_ptr<tap_carrier>> _carrier;
    struct worker_slot;
    std::vector<std::unique_ptr<worker_slot>> _workers;
    std::unique_ptr<trace_hub> _trace;
    std::vector<unsigned> _lcores;
    std::atomic<bool> _run{false};
    std::atomic<uint32_t> _idle_sleep_us{0};
    std::unique_ptr<raw> _baseline;
};

}  // namespace fwd
