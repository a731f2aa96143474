// L2 out: the neighbor of the egress port, the Ethernet header written.
#pragma once

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "forward/datapath/worker_hold.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// The egress port and neighbor MAC of nexthop `from` into _l2, from the memo (worker.hh) when
// it has them: the current nexthop's, or its slot's.
[[gnu::always_inline]] inline bool worker::l2_recall(uint32_t from) {
    if (from == _l2.from)
        return true;
    const l2_exit& m = _l2_memo[from % l2_memo_size];
    if (m.from != from)
        return false;
    _l2 = m;
    return true;
}

inline void worker::l2_remember(uint32_t from, const port_info* port, const mac_addr* mac) {
    _l2 = {from, port, mac};
    _l2_memo[from % l2_memo_size] = _l2;
}

// To neighbor `addr` on `port`, for nexthop `from` (an adjacency SID), whose port and MAC the
// memo then keeps (the caller tries l2_recall() first).
inline void worker::l2_out(pkt& p, const port_info& port, rib::family naf, const uint8_t* addr, uint32_t from) {
    if (!port.up)
        return drop(p, drop_reason::port_down);
    if (p.m->pkt_len - p.l3u() > port.mtu)
        return drop(p, drop_reason::mtu_exceeded);
    const mac_addr* mac = _av->neighbor_mac(port.port_id, naf, addr);
    if (mac == nullptr)
        return hold(p, port.port_id, naf, addr);
    l2_remember(from, &port, mac);
    l2_write(p, port, *mac);
}

[[gnu::always_inline]] inline void worker::l2_write(pkt& p, const port_info& port, const mac_addr& mac) {
    // A sub-port's frame carries its 802.1Q tag in the header written here (18 bytes), unless
    // the parent's NIC inserts it.
    const bool tag = port.vlan != 0 && !port.tx_vlan_hw;
    const uint16_t hl = tag ? eth_len + vlan_len : eth_len;
    uint8_t* eth;
    if (p.l3 == hl) {  // a routed frame: its header is rewritten where it is
        eth = rte_pktmbuf_mtod(p.m, uint8_t*);
    } else if (p.l3 > hl) {
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(p.m, static_cast<uint16_t>(p.l3 - hl)));
    } else {
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(p.m, static_cast<uint16_t>(hl - p.l3)));
        if (eth == nullptr)
            return drop(p, drop_reason::no_headroom);
    }
    std::memcpy(eth, mac.bytes, 6);
    std::memcpy(eth + 6, port.mac.bytes, 6);
    if (tag) {
        eth[12] = ether_vlan >> 8;
        eth[13] = ether_vlan & 0xff;
        eth[14] = static_cast<uint8_t>(port.vlan >> 8);
        eth[15] = static_cast<uint8_t>(port.vlan);
        eth += vlan_len;
    } else if (port.vlan != 0) {
        p.m->ol_flags |= RTE_MBUF_F_TX_VLAN;
        p.m->vlan_tci = port.vlan;
    }
    const uint16_t type = p.af == 4 ? ether_ipv4 : ether_ipv6;
    eth[12] = static_cast<uint8_t>(type >> 8);
    eth[13] = static_cast<uint8_t>(type);
    const uint16_t dev = port.dev();
    p.m->port = dev;
    enqueue(port.port_id, p.m, dev);
    p.m = nullptr;
}

}  // namespace fwd
