// The dataplane's own half of the published state: its ports (VRF, MAC, MTU, the kernel ifindex
// zebra names them by) and the neighbors the L2 rewrite reads. One immutable snapshot, built by
// the control thread and published like the compiled tables (rcu_cell + QSBR grace period):
// a change builds a new one. Lookups are open-addressed and allocation-free.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fib/addr.hh"
#include "vrf/spec.hh"

namespace fwd {

inline constexpr uint16_t max_ports = 32;  // RTE_MAX_ETHPORTS in Debian's DPDK 22.11

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
};

struct neighbor {
    uint16_t port_id = 0;
    fib::ip_addr addr;
    mac_addr mac;
};

class adj_view {
public:
    static const adj_view* create(std::span<const port_info> ports, std::span<const neighbor> neighbors,
                                  uint64_t epoch = 0);
    static void destroy(const adj_view* v) noexcept;

    uint64_t epoch() const { return _epoch; }
    // nullptr if the port is not one of ours.
    const port_info* port(uint16_t port_id) const {
        return port_id < max_ports && _by_port[port_id] >= 0 ? &_ports[static_cast<size_t>(_by_port[port_id])]
                                                             : nullptr;
    }
    const port_info* port_by_ifindex(uint32_t ifindex) const;
    // The neighbor's MAC on `port_id`, or nullptr when unresolved. `addr`: 4 or 16 network-order bytes.
    const mac_addr* neighbor_mac(uint16_t port_id, fib::family af, const uint8_t* addr) const;
    std::span<const port_info> ports() const { return _ports; }
    size_t neighbor_count() const { return _neigh_count; }

private:
    struct slot {
        uint8_t used = 0;
        uint8_t af = 0;
        uint16_t port_id = 0;
        mac_addr mac;
        uint8_t addr[16]{};
    };
    adj_view() = default;
    static uint32_t hash(uint16_t port_id, uint8_t af, const uint8_t* addr16);

    uint64_t _epoch = 0;
    std::vector<port_info> _ports;
    int16_t _by_port[max_ports];
    std::vector<slot> _neigh;  // power-of-two size, linear probing, at most half full
    size_t _neigh_count = 0;
};

}  // namespace fwd
