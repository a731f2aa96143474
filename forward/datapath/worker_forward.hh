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

// The TTL / hop limit and MTU of a packet routed out with MTU `mtu`, then its decrement; false
// when it was dropped or answered instead.
[[gnu::always_inline]] inline bool worker::forward_checks(pkt& p, uint8_t* ip, uint32_t mtu) {
    if (!(p.flags & f_no_ttl)) {
        // Routed here (received, or decapsulated into a VRF): ICMP errors from us (worker_icmp.hh).
        if (!ttl_left(ip, p.af)) {
            expire(p);
            return false;
        }
        if (p.m->pkt_len - p.l3u() > mtu) {
            icmp_too_big(p, mtu) ? answered(p, drop_reason::mtu_exceeded) : drop(p, drop_reason::mtu_exceeded);
            return false;
        }
        dec_ttl(ip, p.af);
    } else if (p.m->pkt_len - p.l3u() > mtu) {
        drop(p, drop_reason::mtu_exceeded);
        return false;
    }
    return true;
}

[[gnu::always_inline]] inline void worker::do_forward(pkt& p, const fib::compiled_nh& nh) {
    uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, uint8_t*, p.l3);
    const fib::nh_via& via = nh.via();
    // A gateway's exit is remembered (worker_l2.hh) and written from there: no port or neighbor
    // read, and nothing of the paths below set up.
    if (via.gw_family != 0) {
        if (const l2_exit* x = l2_recall(nh.index())) {
            if (forward_checks(p, ip, x->mtu))
                l2_send(p, *x);
            return;
        }
    }
    const port_info* out = _v.av->port_by_ifindex(via.ifindex);
    if (out == nullptr)
        return pristine(p) ? punt(p) : drop(p, drop_reason::no_port);  // e.g. lo: the host's
    if (!out->up)
        return drop(p, drop_reason::port_down);
    const uint8_t* nb;  // the neighbor
    rib::family naf;
    const mac_addr* mac;
    if (via.gw_family == 0) {
        // A connected route: the destination itself is the neighbor, unless it is us. A
        // resolved neighbor is not us unless the view says an own address is among them:
        // one probe of the view per packet, not two.
        nb = ip + (p.af == 4 ? 16 : 24);
        naf = p.af == 4 ? rib::family::ipv4 : rib::family::ipv6;
        mac = _v.av->neighbor_mac(out->port_id, naf, nb);
        if ((mac == nullptr || _v.av->own_among_neighbors()) && _v.av->is_own(p.vrf, naf, nb))
            return pristine(p) ? punt(p) : to_own(p);  // rewritten (decapsulated) ones: worker_local.hh
    } else {
        nb = via.gw;
        naf = static_cast<rib::family>(via.gw_family);
        mac = _v.av->neighbor_mac(out->port_id, naf, nb);
    }
    if (mac == nullptr) {
        if (!(p.flags & f_no_ttl) && !ttl_left(ip, p.af))  // TTL before the neighbor, as Linux
            return expire(p);
        if (pristine(p))  // the host resolves it and forwards this one itself
            return punt(p);
        // Held once TTL and MTU are done.
        if (forward_checks(p, ip, out->mtu))
            hold(p, out->port_id, naf, nb);
        return;
    }
    if (!forward_checks(p, ip, out->mtu))
        return;
    if (via.gw_family != 0)
        return l2_send(p, l2_remember(nh.index(), *out, *mac));
    l2_write(p, *out, *mac);
}

}  // namespace fwd
