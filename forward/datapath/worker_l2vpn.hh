// L2VPN (VPWS, RFC 8986 §4.9 and §5.3-5.4): a port or sub-port configured as an attachment
// circuit (`[dataplane] vpws = ...`) sends every frame it receives into its pseudowire
// (H.Encaps.L2 / .L2.Red with the service's template); End.DX2 sends the frame it
// decapsulated out of its port.
#pragma once

#include <rte_mbuf.h>

#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/ip6_ext.hh"
#include "forward/datapath/srv6_headend.hh"
#include "forward/datapath/vlan_tag.hh"
#include "forward/datapath/worker_headend.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// End.DX2 S06 "forward the Ethernet frame to the OIF": the frame (the mbuf starts at its
// destination MAC) leaves port `oif` as it came, addresses, type and any customer tag
// included; a sub-port adds its own tag, as a frame sent on a Linux VLAN device gets one. As
// the kernel: the port must be ours and up, and the frame without its 14-byte header must fit
// the port's MTU (a customer tag counts, as in skb->len - ETH_HLEN).
inline void worker::dx2_out(pkt& p, uint32_t oif) {
    const port_info* out = _v.av->port_by_ifindex(oif);
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

// The outer routes of pseudowires share the headend memo with nexthops (outer_route()),
// keyed above any nexthop index.
inline constexpr uint32_t l2vpn_memo_key = 0xff000000u;

// A burst from an attachment circuit: no classify, no lookup of the frame; each frame is the
// payload of its pseudowire, whose outer packet is then routed in the default VRF like any
// headend's (run()'s lookup rounds, repeated here).
[[gnu::noinline]] inline void worker::l2vpn_run(rte_mbuf** pkts, uint16_t n, const port_info* in, const uint8_t* tr) {
    pkt st[burst_size];
    pkt_vec work;
    const l2_service& svc = _v.av->l2_service_of(in->l2vpn);
    uint64_t rx_bytes = 0;
    pkt_vec* const saved = _next;
    _next = &work;  // an ICMP message of the encap (none today) would be routed with the rest
    for (uint16_t i = 0; i < n; ++i) {
        if (i + 4 < n)
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void*));
        rx_bytes += pkts[i]->pkt_len;
        pkt& p = st[i];
        p = pkt{pkts[i], nullptr, 0, in->vrf, eth_len, 0, 0, 0, tr[i]};
        if (unlikely(!svc.active))
            drop(p, drop_reason::l2vpn_down);
        else
            l2vpn_encap(p, svc, work);
    }
    _next = saved;
    _c.ports[in->port_id].rx_bytes.add(rx_bytes);
    rounds(work, nullptr, false);
}

// H.Encaps.L2 (RFC 8986 §5.3; .L2.Red §5.4) of one frame of an attachment circuit: the frame as
// received (after its sub-port's tag, which names the circuit, was removed) is the payload,
// next header 143, whatever its type: ARP, LLDP, a customer's own tag, IP. An IP frame gives
// the traffic class and the flow hash (hence the flow label) when its header is whole; any
// other frame its addresses and type. A frame that would not fit the core once encapsulated
// is dropped (encap_mtu): an L2 payload has no ICMP to answer with, and is not fragmented.
[[gnu::always_inline]] inline void worker::l2vpn_encap(pkt& p, const l2_service& svc, pkt_vec& next) {
    rte_mbuf* m = p.m;
    if (unlikely(m->data_len < eth_len))
        return drop(p, drop_reason::eth_truncated);
    const fib::encap_template& e = svc.tmpl;
    const outer_exit& o = outer_route(l2vpn_memo_key + svc.port_id, e.bytes + 24);
    const uint8_t* d = rte_pktmbuf_mtod(m, const uint8_t*);
    const uint16_t type = load_be16(d + 12);
    const uint32_t avail = m->data_len - eth_len;
    const uint8_t* ip = d + eth_len;
    uint32_t hash = 0;
    uint8_t tc = 0;
    if (type == ether_ipv4 && avail >= 20 && ip[0] >> 4 == 4 && (ip[0] & 0x0fu) * 4u <= avail &&
        (ip[0] & 0x0fu) >= 5) {
        hash = flow_hash_ip4(ip, avail);
        tc = headend_detail::inner_tc(ip, 4);
    } else if (type == ether_ipv6 && avail >= 40 && ip[0] >> 4 == 6) {
        hash = flow_hash_ip6(ip, avail);
        tc = headend_detail::inner_tc(ip, 6);
    }
    if (hash == 0)
        hash = flow_hash_eth(d);
    if (m->pkt_len + e.len > o.mtu)
        return drop(p, drop_reason::encap_mtu);
    uint16_t out;
    const uint8_t* out_eth;
    outer_exit_of(o, hash, out, out_eth);
    headend_push<false>(p, e, o, out, out_eth, 0, fib::ipproto::ethernet, tc, hash, next);
}

}  // namespace fwd
