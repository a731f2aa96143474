// L2 out: the neighbor of the egress port, the Ethernet header written.
#pragma once

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "forward/datapath/worker_hold.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

inline void worker::l2_out(pkt& p, const port_info& port, rib::family naf, const uint8_t* addr) {
    if (!port.up)
        return drop(p, drop_reason::port_down);
    if (p.m->pkt_len - p.l3u() > port.mtu)
        return drop(p, drop_reason::mtu_exceeded);
    const mac_addr* mac = _av->neighbor_mac(port.port_id, naf, addr);
    if (mac == nullptr)
        return hold(p, port.port_id, naf, addr);
    l2_write(p, port, *mac);
}

inline void worker::l2_write(pkt& p, const port_info& port, const mac_addr& mac) {
    uint8_t* eth;
    if (p.l3 >= eth_len) {
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(p.m, static_cast<uint16_t>(p.l3 - eth_len)));
    } else {
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(p.m, static_cast<uint16_t>(eth_len - p.l3)));
        if (eth == nullptr)
            return drop(p, drop_reason::no_headroom);
    }
    std::memcpy(eth, mac.bytes, 6);
    std::memcpy(eth + 6, port.mac.bytes, 6);
    const uint16_t type = p.af == 4 ? ether_ipv4 : ether_ipv6;
    eth[12] = static_cast<uint8_t>(type >> 8);
    eth[13] = static_cast<uint8_t>(type);
    p.m->port = port.port_id;
    enqueue(port.port_id, p.m);
    p.m = nullptr;
}

}  // namespace fwd
