// Makes the kernel resolve a neighbor on one of its interfaces (a TAP mirror), for packets
// srv6d rewrote and could not send (docs/host-path.md). The kernel then sends the ARP request
// or neighbor solicitation out of the TAP (the worker injects it out of the port), the answer
// is punted back, and host::kernel_state sees the neighbor appear. Control thread only.
#pragma once

#include <cstdint>
#include <string>

#include "rib/addr.hh"

struct nl_sock;

namespace host {

class neigh_resolver {
public:
    neigh_resolver() = default;
    ~neigh_resolver();
    neigh_resolver(const neigh_resolver&) = delete;
    neigh_resolver& operator=(const neigh_resolver&) = delete;

    // Empty string on success, else why not.
    [[nodiscard]] std::string open();
    // Asks the kernel to resolve `addr` on `ifindex`. Empty string on success, else the
    // kernel's answer.
    [[nodiscard]] std::string resolve(uint32_t ifindex, const rib::ip_addr& addr);

private:
    nl_sock* _sock = nullptr;
};

}  // namespace host
