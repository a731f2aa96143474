// srv6d's ports: what the config says about each (`[dataplane] port = ...` lines) and their
// bring-up as DPDK ethdevs (any PMD: a devargs string is probed at run time, or names a port
// EAL already created from --vdev).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
    // An 802.1Q sub-port (no devargs): VLAN id 1..4094 on port `parent`, a port with devargs.
    // Its mirror `tap` is a VLAN device on the parent's TAP, or a TAP of its own where the
    // kernel has no VLAN devices or the parent no TAP (docs/host-path.md).
    uint16_t vlan = 0;
    std::string parent;

    bool operator==(const port_spec&) const = default;
};

// "NAME DEVARGS [vrf=VRF] [tap=IF] [ifname=IF] [ifindex=N] [mtu=N]", or a sub-port
// "NAME vlan=VID parent=PORT [vrf=VRF] [tap=IF] [ifname=IF] [ifindex=N] [mtu=N]" (its mtu 0
// when not given: check_ports() gives it the parent's). nullopt with `err` on error.
std::optional<port_spec> parse_port(std::string_view line, std::string& err);

// What holds between ports: names unique, a sub-port's parent a port with devargs configured
// before it, one
// sub-port per (parent, VLAN id), a sub-port's MTU at most its parent's (its default).
bool check_ports(std::vector<port_spec>& ports, std::string& err);

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
    bool rx_vlan_hw = false, tx_vlan_hw = false;  // VLAN strip / insert offloads turned on
};

// Probes (unless it exists), configures `n_queues` rx and tx queues, starts the port.
// `vlan_offloads`: it has sub-ports; the NIC strips and inserts their tags if it can.
bool port_open(const port_spec& spec, uint16_t n_queues, rte_mempool* pool, uint16_t rx_desc, uint16_t tx_desc,
               port_handle& out, std::string& err, bool vlan_offloads = false);
void port_close(uint16_t port_id);

// The carrier of the kernel interface a net_af_packet / net_af_xdp port is bound to (its iface=
// devarg), read with SIOCGIFFLAGS (IFF_RUNNING: up with carrier). Those PMDs report a link that
// is always up (DPDK 22.11), so a veth whose peer goes down would otherwise go unnoticed.
// nullopt for other PMDs (their own link state is used) or when the interface is gone.
std::optional<bool> kernel_carrier(const port_spec& spec);

}  // namespace fwd
