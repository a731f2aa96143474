// The carrier of a TAP mirror: what a NIC's driver does when its link goes down
// (netif_carrier_off), so the kernel shows the mirror NO-CARRIER / LOWER_DOWN while it stays
// administratively up, keeps its addresses and routes (marked linkdown), and zebra sees the
// interface go down as it sees a NIC's. docs/host-path.md "Link state".
//
// DPDK's net_tap has no carrier control: rte_eth_dev_set_link_down() clears IFF_UP (admin down),
// and the kernel then deletes the mirror's IPv6 addresses and every route through it. Its queue
// fds are the PMD's own, so this attaches a queue of its own to the same multi-queue TAP
// (TUNSETIFF with IFF_MULTI_QUEUE, as net_tap opens it), sets the carrier with TUNSETCARRIER
// (Linux 4.19+) and detaches the queue again at once (TUNSETQUEUE IFF_DETACH_QUEUE): an
// attached queue nobody reads would take its share of what the kernel sends to the TAP. A
// detached queue keeps its fd (re-attached for the next change) but carries nothing.
#pragma once

#include <string>

namespace fwd {

class tap_carrier {
public:
    explicit tap_carrier(std::string ifname) : _name(std::move(ifname)) {}
    ~tap_carrier();
    tap_carrier(const tap_carrier&) = delete;
    tap_carrier& operator=(const tap_carrier&) = delete;
    tap_carrier(tap_carrier&& o) noexcept : _name(std::move(o._name)), _fd(o._fd) { o._fd = -1; }

    // Carrier on or off; the interface's flags, addresses and MTU are left as they are. False
    // with `err` when the TAP cannot be attached to (not a multi-queue TAP, gone, no
    // CAP_NET_ADMIN) or the kernel has no TUNSETCARRIER.
    bool set(bool up, std::string& err);
    const std::string& name() const { return _name; }

private:
    bool attach(std::string& err);
    std::string _name;
    int _fd = -1;  // our queue of the TAP, detached between changes
};

}  // namespace fwd
