// The kernel's view of srv6d's mirror interfaces: the neighbors it resolved (ARP, ND) and the
// addresses configured on them, followed live from netlink (libnl route/neigh and route/addr
// caches; the same mechanism as vrf::kernel_monitor). The kernel resolves, srv6d mirrors: the
// dataplane rewrites Ethernet from these neighbors and punts packets for these addresses.
// Async use: wait for fd() to be readable, call process_events(). Control thread only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rib/addr.hh"

struct nl_cache;
struct nl_cache_mngr;
struct nl_object;
struct nl_sock;

namespace host {

struct kernel_neighbor {
    uint32_t ifindex = 0;
    rib::ip_addr addr;
    std::array<uint8_t, 6> mac{};
    std::string state;  // "reachable", "stale", "permanent", ...
    bool operator==(const kernel_neighbor&) const = default;
};

struct kernel_address {
    uint32_t ifindex = 0;
    rib::ip_addr addr;
    bool operator==(const kernel_address&) const = default;
};

class kernel_state {
public:
    kernel_state() = default;
    ~kernel_state();
    kernel_state(const kernel_state&) = delete;
    kernel_state& operator=(const kernel_state&) = delete;

    // Subscribe and dump. Empty string on success, else why not.
    [[nodiscard]] std::string start();
    int fd() const;
    // Applies pending notifications without blocking (a socket overrun re-dumps both caches).
    // True when the usable neighbors or the addresses changed since the last call.
    bool process_events();

    // Neighbors with a link-layer address in a usable state (not incomplete or failed), and
    // unicast addresses, of every interface (the caller keeps those of its mirrors).
    const std::vector<kernel_neighbor>& neighbors() const { return _neigh; }
    const std::vector<kernel_address>& addresses() const { return _addrs; }
    uint64_t events() const { return _events; }

private:
    static void on_change(nl_cache*, nl_object*, int, void* self);
    bool refresh();

    nl_cache_mngr* _mngr = nullptr;
    nl_cache* _neigh_cache = nullptr;  // owned by _mngr
    nl_cache* _addr_cache = nullptr;
    nl_sock* _dump_sock = nullptr;
    std::vector<kernel_neighbor> _neigh;
    std::vector<kernel_address> _addrs;
    uint64_t _events = 0;
};

}  // namespace host
