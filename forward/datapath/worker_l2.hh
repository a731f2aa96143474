// L2 out: the neighbor of the egress port, the Ethernet header written.
#pragma once

#include <rte_ether.h>
#include <rte_mbuf.h>

#include <cstring>

#include "forward/datapath/worker_hold.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// The exit of nexthop `from` (its port, neighbor MAC, MTU) when the memo (worker.hh) has it.
[[gnu::always_inline]] inline const l2_exit* worker::l2_recall(uint32_t from) const {
    const l2_exit& m = _memo.l2[from % exit_memos::l2_size];
    return m.from == from ? &m : nullptr;
}

// Nexthop `from` leaves on `port` to `mac` for as long as the views last: its Ethernet header,
// built once (a sub-port's with its tag, unless the parent's NIC inserts it).
inline const l2_exit& worker::l2_remember(uint32_t from, const port_info& port, const mac_addr& mac) {
    l2_exit& x = _memo.l2[from % exit_memos::l2_size];
    x = l2_exit{};
    x.from = from;
    x.port_id = port.port_id;
    x.dev = port.dev();
    x.mtu = port.mtu;
    x.hl = eth_len;
    std::memcpy(x.eth, mac.bytes, 6);
    std::memcpy(x.eth + 6, port.mac.bytes, 6);
    x.tagged = port.vlan != 0;
    if (port.vlan != 0 && port.tx_vlan_hw) {
        x.tci_hw = port.vlan;
    } else if (port.vlan != 0) {
        x.hl = eth_len + vlan_len;
        x.eth[12] = ether_vlan >> 8;
        x.eth[13] = ether_vlan & 0xff;
        x.eth[14] = static_cast<uint8_t>(port.vlan >> 8);
        x.eth[15] = static_cast<uint8_t>(port.vlan);
    }
    return x;
}

// To neighbor `addr` on `port`, for nexthop `from` (an adjacency SID), whose exit the memo then
// keeps (the caller tries l2_recall() first).
inline void worker::l2_out(pkt& p, const port_info& port, rib::family naf, const uint8_t* addr, uint32_t from) {
    if (!port.up)
        return drop(p, drop_reason::port_down);
    if (p.m->pkt_len - p.l3u() > port.mtu)
        return drop(p, drop_reason::mtu_exceeded);
    const mac_addr* mac = _v.av->neighbor_mac(port.port_id, naf, addr);
    if (mac == nullptr)
        return hold(p, port.port_id, naf, addr);
    l2_send(p, l2_remember(from, port, *mac));
}

// Room for an `hl`-byte Ethernet header in front of the packet's L3 header: a routed frame's
// own header is rewritten where it is. Null (the packet dropped) when the headroom is short.
[[gnu::always_inline]] inline uint8_t* worker::l2_room(pkt& p, uint16_t hl) {
    if (p.l3 == hl)
        return rte_pktmbuf_mtod(p.m, uint8_t*);
    if (p.l3 > hl)
        return reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(p.m, static_cast<uint16_t>(p.l3 - hl)));
    uint8_t* eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(p.m, static_cast<uint16_t>(hl - p.l3)));
    if (eth == nullptr)
        drop(p, drop_reason::no_headroom);
    return eth;
}

// ---- The rewrite stage: a packet whose exit is known gets its Ethernet header, then goes to
// the tx stage (worker_tx.hh). l2_rewrite() reads the exit and the mbuf only: a test runs it
// alone.

// Exit `x`'s Ethernet header (its 802.1Q tag in it, or for the NIC to insert) in front of the
// `af` packet at `l3`: a routed frame's own header is rewritten where it is. False when the
// headroom is short (the packet unchanged).
[[gnu::always_inline]] inline bool l2_rewrite(rte_mbuf* m, uint16_t l3, uint8_t af, const l2_exit& x) {
    uint8_t* eth;
    if (l3 == x.hl)
        eth = rte_pktmbuf_mtod(m, uint8_t*);
    else if (l3 > x.hl)
        eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_adj(m, static_cast<uint16_t>(l3 - x.hl)));
    else if ((eth = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, static_cast<uint16_t>(x.hl - l3)))) == nullptr)
        return false;
    std::memcpy(eth, x.eth, 12);
    if (unlikely(x.tagged)) {
        if (x.hl != eth_len) {
            std::memcpy(eth + 12, x.eth + 12, 4);
            eth += vlan_len;
        } else {
            m->ol_flags |= RTE_MBUF_F_TX_VLAN;
            m->vlan_tci = x.tci_hw;
        }
    }
    const rte_be16_t type = af == 4 ? RTE_BE16(ether_ipv4) : RTE_BE16(ether_ipv6);
    std::memcpy(eth + 12, &type, 2);
    m->port = x.dev;
    return true;
}

// Out through a remembered exit: its header bytes copied, no port or neighbor read.
[[gnu::always_inline]] inline void worker::l2_send(pkt& p, const l2_exit& x) {
    if (unlikely(!l2_rewrite(p.m, p.l3, p.af, x)))
        return drop(p, drop_reason::no_headroom);
    enqueue(x.port_id, p.m, x.dev);
    p.m = nullptr;
}

[[gnu::always_inline]] inline void worker::l2_write(pkt& p, const port_info& port, const mac_addr& mac) {
    // A sub-port's frame carries its 802.1Q tag in the header written here (18 bytes), unless
    // the parent's NIC inserts it.
    const bool tag = port.vlan != 0 && !port.tx_vlan_hw;
    uint8_t* eth = l2_room(p, tag ? eth_len + vlan_len : eth_len);
    if (eth == nullptr)
        return;
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
    l2_finish(p, eth, port.port_id, port.dev());
}

// The Ethernet type after the addresses (and tag) at `eth`, one 16-bit store; then out to
// `port_id`'s tx buffer, sent on `dev`.
[[gnu::always_inline]] inline void worker::l2_finish(pkt& p, uint8_t* eth, uint16_t port_id, uint16_t dev) {
    const rte_be16_t type = p.af == 4 ? RTE_BE16(ether_ipv4) : RTE_BE16(ether_ipv6);
    std::memcpy(eth + 12, &type, 2);
    p.m->port = dev;
    enqueue(port_id, p.m, dev);
    p.m = nullptr;
}

}  // namespace fwd
