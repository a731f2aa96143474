// srv6d's ports: what the config says about each (`[dataplane] port = ...` lines) and their
// bring-up as DPDK ethdevs (any PMD: a devargs string is probed at run time, or names a port
// EAL already created from --vdev).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rib/addr.hh"
#include "forward/datapath/adjacency.hh"

struct rte_mempool;

namespace fwd {

struct port_spec {
    std::string name;      // srv6d's name for it (counters, neighbor lines)
    std::string devargs;   // "net_af_packet0,iface=veth0", "net_ring0", "net_tap0,iface=t0", ...
    std::string vrf;       // the VRF it forwards in; empty = the default VRF
    std::string ifname;    // the kernel interface zebra's nexthops name; default: the iface= devarg
    uint32_t ifindex = 0;  // or that interface's index given directly
    uint16_t mtu = 1500;   // largest L3 packet srv6d sends out of it
    std::string tap;       // kernel mirror interface (net_tap) to create: the host path; empty = none

    bool operator==(const port_spec&) const = default;
};

// "NAME DEVARGS [vrf=VRF] [tap=IF] [ifname=IF] [ifindex=N] [mtu=N]". nullopt with `err` on error.
std::optional<port_spec> parse_port(std::string_view line, std::string& err);

struct neighbor_spec {
    std::string port;
    rib::ip_addr addr;
    mac_addr mac;

    bool operator==(const neighbor_spec&) const = default;
};

// "PORT ADDRESS MAC" (a static neighbor; the kernel's are mirrored by the host path).
std::optional<neighbor_spec> parse_neighbor(std::string_view line, std::string& err);
std::optional<mac_addr> parse_mac(std::string_view s);
std::string to_string(const mac_addr& m);

struct port_handle {
    uint16_t port_id = 0;
    mac_addr mac;
    uint32_t ifindex = 0;  // resolved from spec.ifindex / spec.ifname / iface=
};

// Probes (unless it exists), configures `n_queues` rx and tx queues, starts the port.
bool port_open(const port_spec& spec, uint16_t n_queues, rte_mempool* pool, uint16_t rx_desc, uint16_t tx_desc,
               port_handle& out, std::string& err);
void port_close(uint16_t port_id);

// The carrier of the kernel interface a net_af_packet / net_af_xdp port is bound to (its iface=
// devarg), read with SIOCGIFFLAGS (IFF_RUNNING: up with carrier). Those PMDs report a link that
// is always up (DPDK 22.11), so a veth whose peer goes down would otherwise go unnoticed.
// nullopt for other PMDs (their own link state is used) or when the interface is gone.
std::optional<bool> kernel_carrier(const port_spec& spec);

}  // namespace fwd
