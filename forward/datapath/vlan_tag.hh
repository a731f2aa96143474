// 802.1Q tags put on frames: in software (4 bytes of headroom, the addresses moved) or by the
// NIC (RTE_MBUF_F_TX_VLAN). Free functions of the worker's tx side and punt path.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>

#include "forward/datapath/adjacency.hh"

namespace fwd {

inline constexpr uint16_t ether_vlan = 0x8100;  // IEEE 802.1Q
inline constexpr uint16_t ether_qinq = 0x88a8;  // IEEE 802.1ad service tag
inline constexpr uint16_t vlan_len = 4;

// Inserts an 802.1Q tag (TPID 0x8100, VLAN id `vid`, priority 0) after the Ethernet addresses
// of the frame at the data start. nullptr when the mbuf has no 4 bytes of headroom.
inline uint8_t* vlan_push(rte_mbuf* m, uint16_t vid) {
    auto* d = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, vlan_len));
    if (d == nullptr)
        return nullptr;
    std::memmove(d, d + vlan_len, 12);
    d[12] = ether_vlan >> 8;
    d[13] = ether_vlan & 0xff;
    d[14] = static_cast<uint8_t>(vid >> 8);
    d[15] = static_cast<uint8_t>(vid);
    return d;
}

// The tag of a frame leaving through sub-port `port`: the NIC's when it inserts tags, else
// ours. false: no headroom (the caller drops).
inline bool vlan_out(rte_mbuf* m, const port_info& port) {
    if (port.tx_vlan_hw) {
        m->ol_flags |= RTE_MBUF_F_TX_VLAN;
        m->vlan_tci = port.vlan;
        return true;
    }
    return vlan_push(m, port.vlan) != nullptr;
}

}  // namespace fwd
