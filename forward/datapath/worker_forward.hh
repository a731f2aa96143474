// Plain IP forwarding to a nexthop (TTL, ECMP member already picked).
#pragma once

#include <rte_mbuf.h>

#include "forward/datapath/worker_classify.hh"
#include "forward/datapath/worker_hold.hh"
#include "forward/datapath/worker_icmp.hh"
#include "forward/datapath/worker_l2.hh"
#include "forward/datapath/worker_local.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

[[gnu::always_inline]] inline void worker::do_forward(pkt& p, const fib::compiled_nh& nh) {
    uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, uint8_t*, p.l3);
    const fib::nh_via& via = nh.via();
    const port_info* out = nullptr;
    const mac_addr* mac = nullptr;
    uint32_t mtu;
    uint16_t miss_port = port_none;  // the neighbor is unresolved: the packet waits for it
    rib::family miss_af{};
    const uint8_t* miss_nb = nullptr;
    // A gateway's exit is remembered (worker_l2.hh) and written from there: no port or neighbor read.
    const l2_exit* x = via.gw_family != 0 ? l2_recall(nh.index()) : nullptr;
    if (x != nullptr) {
        mtu = x->mtu;
    } else {
        out = _av->port_by_ifindex(via.ifindex);
        if (out == nullptr)
            return pristine(p) ? punt(p) : drop(p, drop_reason::no_port);  // e.g. lo: the host's
        if (!out->up)
            return drop(p, drop_reason::port_down);
        mtu = out->mtu;
        const uint8_t* nb;  // the neighbor
        rib::family naf;
        if (via.gw_family == 0) {
            // A connected route: the destination itself is the neighbor, unless it is us. A
            // resolved neighbor is not us unless the view says an own address is among them:
            // one probe of the view per packet, not two.
            nb = ip + (p.af == 4 ? 16 : 24);
            naf = p.af == 4 ? rib::family::ipv4 : rib::family::ipv6;
            mac = _av->neighbor_mac(out->port_id, naf, nb);
            if ((mac == nullptr || _av->own_among_neighbors()) && _av->is_own(p.vrf, naf, nb))
                return pristine(p) ? punt(p) : to_own(p);  // rewritten (decapsulated) ones: worker_local.hh
        } else {
            nb = via.gw;
            naf = static_cast<rib::family>(via.gw_family);
            mac = _av->neighbor_mac(out->port_id, naf, nb);
            if (mac != nullptr)
                x = &l2_remember(nh.index(), *out, *mac);
        }
        if (mac == nullptr) {
            if (!(p.flags & f_no_ttl) && !ttl_left(ip, p.af))  // TTL before the neighbor, as Linux
                return expire(p);
            if (pristine(p))  // the host resolves it and forwards this one itself
                return punt(p);
            miss_port = out->port_id;  // held below, once TTL and MTU are done
            miss_af = naf;
            miss_nb = nb;
        }
    }
    if (!(p.flags & f_no_ttl)) {
        // Routed here (received, or decapsulated into a VRF): ICMP errors from us (worker_icmp.hh).
        if (!ttl_left(ip, p.af))
            return expire(p);
        if (p.m->pkt_len - p.l3u() > mtu)
            return icmp_too_big(p, mtu) ? answered(p, drop_reason::mtu_exceeded) : drop(p, drop_reason::mtu_exceeded);
        dec_ttl(ip, p.af);
    } else if (p.m->pkt_len - p.l3u() > mtu) {
        return drop(p, drop_reason::mtu_exceeded);
    }
    if (x != nullptr)
        return l2_send(p, *x);
    if (miss_port != port_none)
        return hold(p, miss_port, miss_af, miss_nb);
    l2_write(p, *out, *mac);
}

}  // namespace fwd
