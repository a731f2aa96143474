// The dataplane's own half of the published state: its ports (VRF, MAC, MTU, the kernel ifindex
// zebra names them by, the TAP that mirrors each into the kernel), the neighbors the L2 rewrite
// reads, and the router's own addresses (punted to the host). One immutable snapshot, built by
// the control thread and published like the compiled tables (rcu_cell + QSBR grace period):
// a change builds a new one. Lookups are open-addressed and allocation-free.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fib/datapath/encap_template.hh"
#include "rib/addr.hh"
#include "vrf/spec.hh"

namespace fwd {

inline constexpr uint16_t max_ports = 32;  // RTE_MAX_ETHPORTS in Debian's DPDK 22.11
inline constexpr uint16_t port_none = 0xffff;

struct mac_addr {
    uint8_t bytes[6]{};
    bool operator==(const mac_addr&) const = default;
};

struct port_info {
    uint16_t port_id = 0;        // DPDK port id
    vrf::vrf_id vrf = vrf::default_vrf_id;
    uint16_t mtu = 1500;         // largest L3 packet it sends
    bool up = true;
    uint32_t ifindex = 0;        // the kernel interface zebra's nexthops name (0: none)
    mac_addr mac;
    uint16_t tap_port = port_none; // its kernel mirror (net_tap), where punted packets go
    uint32_t punt_rate = 0;      // punts per second and worker (token bucket), 0 = none
    uint32_t punt_burst = 0;
    // An 802.1Q sub-port (vlan != 0; docs/dataplane.md "VLAN sub-interfaces"): its frames come
    // in and go out tagged on `parent`, a DPDK port; its port_id is srv6d's own (no ethdev).
    uint16_t parent = port_none;
    uint16_t vlan = 0;
    bool tap_tagged = false;   // its mirror is a VLAN device on the parent's TAP: punts keep the tag
    bool rx_vlan_hw = false;   // (a parent) the NIC strips tags (RTE_ETH_RX_OFFLOAD_VLAN_STRIP)
    bool tx_vlan_hw = false;   // (a sub-port) the parent's NIC inserts the tag (RTE_ETH_TX_OFFLOAD_VLAN_INSERT)
    // A VPWS attachment circuit: every frame it receives goes into the pseudowire of the view's
    // l2_service(l2vpn) (worker_l2vpn.hh); 0: none, an ordinary routed port.
    uint8_t l2vpn = 0;
    // The DPDK port its frames leave on.
    uint16_t dev() const { return parent == port_none ? port_id : parent; }
};

// A VPWS pseudowire's headend (RFC 8986 §5.3 H.Encaps.L2 / §5.4 .L2.Red): the frames of port
// `port_id` (a port or a sub-port: its attachment circuit) go out encapsulated with `tmpl`,
// built by the control thread with the configured source. The other direction is an End.DX2
// SID whose oif is that port.
struct l2_service {
    uint16_t port_id = port_none;
    bool active = false;  // false: its template could not be built (no source); frames dropped
    fib::encap_template tmpl;
};

struct neighbor {
    uint16_t port_id = 0;
    rib::ip_addr addr;
    mac_addr mac;
};

// An address of the router itself, in the VRF whose port carries it.
struct own_address {
    vrf::vrf_id vrf = vrf::default_vrf_id;
    rib::ip_addr addr;
    uint16_t port_id = port_none;  // the port whose mirror carries it
};

// Each worker's ICMP token bucket (dataplane.icmp-rate / icmp-burst): published with the view so
// that a reload reaches the workers. burst 0: not given, the worker keeps the limit it has.
struct icmp_limit {
    uint32_t rate = 0;  // messages per second and worker, 0 = none
    uint32_t burst = 0;
};

class adj_view {
public:
    // A port whose l2vpn names no entry of `l2` is not a circuit (its l2vpn reads 0 in the view).
    static const adj_view* create(std::span<const port_info> ports, std::span<const neighbor> neighbors,
                                  uint64_t epoch = 0, std::span<const own_address> own = {},
                                  std::span<const l2_service> l2 = {}, icmp_limit icmp = {});
    static void destroy(const adj_view* v) noexcept;

    uint64_t epoch() const { return _epoch; }
    // Unique among all adjacency views this process creates (the caller's epoch need not be):
    // what a worker keys what it derives from a view on.
    uint64_t serial() const { return _serial; }
    // nullptr if the port is not one of ours.
    const port_info* port(uint16_t port_id) const {
        return port_id < max_ports && _by_port[port_id] >= 0 ? &_ports[static_cast<size_t>(_by_port[port_id])]
                                                             : nullptr;
    }
    const port_info* port_by_ifindex(uint32_t ifindex) const;
    // The sub-port of DPDK port `parent` with VLAN id `vid`, or nullptr. A scan of the few
    // sub-ports: tagged frames only.
    const port_info* sub_port(uint16_t parent, uint16_t vid) const {
        for (const uint8_t i : _subs)
            if (_ports[i].parent == parent && _ports[i].vlan == vid)
                return &_ports[i];
        return nullptr;
    }
    // The neighbor's MAC on `port_id`, or nullptr when unresolved. `addr`: 4 or 16 network-order bytes.
    const mac_addr* neighbor_mac(uint16_t port_id, rib::family af, const uint8_t* addr) const {
        const slot* s = find(kind_neighbor, port_id, af, addr);
        return s ? &s->mac : nullptr;
    }
    // Whether `addr` is one of the router's own addresses in `vrf`.
    bool is_own(vrf::vrf_id vrf, rib::family af, const uint8_t* addr) const {
        return _own_count != 0 && find(kind_own, vrf, af, addr) != nullptr;
    }
    // An address of the router in `vrf` to send an ICMP message from: one on `port_id` if that
    // port has one, else the VRF's first; IPv6 global before link-local. 4 or 16 bytes, or
    // nullptr when the VRF has none. A scan: error paths only.
    const uint8_t* own_source(vrf::vrf_id vrf, rib::family af, uint16_t port_id) const;
    // The port whose mirror carries own address `addr` of `vrf`, or nullptr.
    const port_info* own_port(vrf::vrf_id vrf, rib::family af, const uint8_t* addr) const;
    std::span<const neighbor> neighbors() const { return _neigh_list; }
    std::span<const port_info> ports() const { return _ports; }
    // The pseudowire of a port whose l2vpn is `idx` (1-based): never null for a port's own.
    const l2_service& l2_service_of(uint8_t idx) const { return _l2[idx - 1u]; }
    std::span<const l2_service> l2_services() const { return _l2; }
    // Whether some neighbor's address is also one of the router's own (in any VRF): only then
    // can a resolved neighbor be an own address, which the worker otherwise need not ask.
    bool own_among_neighbors() const { return _own_among_neighbors; }
    // Whether any port is down: the worker checks ECMP members' ports only then (ecmp_live.hh).
    bool any_down() const { return _any_down; }
    size_t neighbor_count() const { return _neigh_count; }
    const icmp_limit& icmp() const { return _icmp; }

private:
    static constexpr uint8_t kind_neighbor = 1, kind_own = 2;
    struct slot {
        uint8_t kind = 0;  // 0: free
        uint8_t af = 0;
        uint16_t id = 0;   // port id (neighbors), vrf id (own addresses)
        mac_addr mac;
        uint8_t addr[16]{};
    };
    adj_view() = default;
    static uint32_t hash(uint8_t kind, uint16_t id, uint8_t af, const uint64_t k[2]);
    void insert(uint8_t kind, uint16_t id, const rib::ip_addr& a, const mac_addr& mac);
    const slot* find(uint8_t kind, uint16_t id, rib::family af, const uint8_t* addr) const;

    uint64_t _epoch = 0;
    uint64_t _serial = 0;
    std::vector<port_info> _ports;
    std::vector<uint8_t> _subs;  // indexes of the sub-ports in _ports
    int16_t _by_port[max_ports];
    std::vector<slot> _slots;  // power-of-two size, linear probing, at most half full
    std::vector<neighbor> _neigh_list;
    std::vector<own_address> _own_list;
    std::vector<l2_service> _l2;
    size_t _neigh_count = 0;
    size_t _own_count = 0;
    bool _any_down = false;
    bool _own_among_neighbors = false;
    icmp_limit _icmp;
};

}  // namespace fwd
