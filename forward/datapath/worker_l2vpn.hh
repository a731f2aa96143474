// L2VPN (RFC 8986 §4.9): End.DX2 sends the frame it decapsulated out of its port.
#pragma once

#include <rte_mbuf.h>

#include "forward/datapath/vlan_tag.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// End.DX2 S06 "forward the Ethernet frame to the OIF": the frame (the mbuf starts at its
// destination MAC) leaves port `oif` as it came, addresses, type and any customer tag
// included; a sub-port adds its own tag, as a frame sent on a Linux VLAN device gets one. As
// the kernel: the port must be ours and up, and the frame without its 14-byte header must fit
// the port's MTU (a customer tag counts, as in skb->len - ETH_HLEN).
inline void worker::dx2_out(pkt& p, uint32_t oif) {
    const port_info* out = _av->port_by_ifindex(oif);
    if (out == nullptr)
        return drop(p, drop_reason::no_port);
    if (!out->up)
        return drop(p, drop_reason::port_down);
    if (p.m->pkt_len - eth_len > out->mtu)
        return drop(p, drop_reason::mtu_exceeded);
    if (out->vlan != 0 && !vlan_out(p.m, *out))
        return drop(p, drop_reason::no_headroom);
    p.m->port = out->dev();
    enqueue(out->port_id, p.m, out->dev());
    p.m = nullptr;
}

}  // namespace fwd
