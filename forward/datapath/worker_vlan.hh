// 802.1Q sub-ports (docs/dataplane.md "VLAN sub-interfaces"): a tagged frame is classified as
// arriving on the sub-port of its (port, VLAN id), its tag removed in place (the 12 address
// bytes move 4 bytes forward: no copy of the payload); a frame to a sub-port gets its tag back
// (in the L2 header the worker writes, or by the NIC when it offers VLAN insertion). Only
// tagged frames and sub-ports reach this code.
#pragma once

#include <rte_mbuf.h>

#include <cstring>

#include "forward/datapath/vlan_tag.hh"
#include "forward/datapath/worker_pkt.hh"
#include "forward/datapath/worker_punt.hh"

namespace fwd {

// A frame on port _in (a DPDK port) with an 802.1Q/802.1ad ethertype `type`, or whose tag the
// NIC stripped. Returns the frame's ethertype when it stays the port's (priority-tagged, VLAN
// id 0: untagged now); vlan_taken when it is taken: dropped, or put into `sub`/`sub_in` for
// its sub-port (untagged). By value, not through a reference: the caller's burst loop keeps
// its ethertype in a register.
inline int32_t worker::vlan_in(pkt& p, uint16_t type, rte_mbuf** sub, const port_info** sub_in, uint16_t& n_sub) {
    rte_mbuf* m = p.m;
    uint16_t vid;
    if (_in->rx_vlan_hw && (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED)) {
        vid = m->vlan_tci & 0xfff;
        m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
    } else {
        // A tag on a sub-port's frame is a second one; 802.1ad is a provider's outer tag.
        if (type == ether_qinq || _in->vlan != 0) {
            drop(p, drop_reason::vlan_qinq);
            return vlan_taken;
        }
        if (m->data_len < eth_len + vlan_len) {
            drop(p, drop_reason::eth_truncated);
            return vlan_taken;
        }
        auto* d = rte_pktmbuf_mtod(m, uint8_t*);
        vid = load_be16(d + 14) & 0xfff;
        std::memmove(d + vlan_len, d, 12);
        rte_pktmbuf_adj(m, vlan_len);
    }
    type = load_be16(rte_pktmbuf_mtod(m, const uint8_t*) + 12);
    const bool stacked = type == ether_vlan || type == ether_qinq;
    const port_info* s = vid == 0 ? nullptr : _av->sub_port(_in->port_id, vid);
    // A second tag is the customer's own on a VPWS circuit, which carries every frame as it is
    // (worker_l2vpn.hh); anywhere else stacked VLANs are not supported.
    if (stacked && (s == nullptr || s->l2vpn == 0)) {
        drop(p, drop_reason::vlan_qinq);
        return vlan_taken;
    }
    if (vid == 0)  // priority-tagged (802.1Q §6.9.1): the port's own frame
        return type;
    if (s == nullptr) {
        drop(p, drop_reason::vlan_unknown);
        return vlan_taken;
    }
    sub[n_sub] = m;
    sub_in[n_sub++] = s;
    p.m = nullptr;
    return vlan_taken;
}

}  // namespace fwd
