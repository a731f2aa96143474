// Lookup: bulk LPM per (VRF, family) run, then dispatch on the nexthop kind.
#pragma once

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "forward/datapath/ecmp_live.hh"
#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// Bulk lookups over runs of packets that share VRF and family (a burst from one port is one
// run; so are the outer lookups after an encap, all in the default VRF).
inline void worker::lookup(pkt** ps, uint16_t n) {
    uint32_t keys4[burst_size];
    fib::u128 keys6[burst_size];
    for (uint16_t i = 0; i < n;) {
        const uint8_t af = ps[i]->af;
        const vrf::vrf_id v = ps[i]->vrf;
        uint16_t j = i;
        for (; j < n && ps[j]->af == af && ps[j]->vrf == v; ++j) {
            const uint8_t* ip = rte_pktmbuf_mtod_offset(ps[j]->m, const uint8_t*, ps[j]->l3);
            if (af == 4)
                keys4[j - i] = load_be32(ip + 16);
            else
                keys6[j - i] = fib::key6(ip + 24);
        }
        lookup_keys(ps + i, j - i, af, v, keys4, keys6);
        i = j;
    }
}

// One bulk lookup of `k` packets of one VRF and family whose destinations are gathered (by
// lookup(), or by run()'s classify loop for a burst of one family), then each packet's nexthop.
[[gnu::always_inline]] inline void worker::lookup_keys(pkt** ps, uint32_t k, uint8_t af, vrf::vrf_id v,
                                                      const uint32_t* keys4, const fib::u128* keys6) {
    uint32_t res[burst_size];
    if (af == 4)
        _fv->lookup4_bulk(v, keys4, res, k);
    else
        _fv->lookup6_bulk(v, keys6, res, k);
    const fib::dataplane_view::nh_reader nexthop = _fv->nexthops();
    for (uint32_t x = 0; x < k; ++x) {
        const fib::compiled_nh* nh = &nexthop(res[x]);
        pkt& p = *ps[x];
        ++p.lookups;
        p.nhp = nh;
        rte_prefetch0(nh);  // act() reads it next
    }
    if (unlikely(_tr_watch != 0))
        trace_lookups(ps, k, res);
}

// always_inline here and on the stages act reaches (do_forward, do_endpoint, l2_write, check_l3,
// enqueue): GCC kept them out of line, a call per stage per packet; inlined, every case of the
// dataplane bench took 10-15 % fewer cycles. do_headend too: its outer packet goes back through
// act_outer(), out of line, which keeps the inlining from being recursive.
[[gnu::always_inline]] inline void worker::act(pkt& p, pkt** next, uint16_t& n_next) {
    const fib::compiled_nh* nh = p.nhp;
    if (nh->kind() == fib::nh_kind::ecmp) {
        if (p.hash == 0) {
            const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
            p.hash = flow_hash_ip(ip, p.m->data_len - p.l3u());
        }
        nh = &_fv->nexthop(ecmp_pick_live(*_fv, *_av, *nh, p.hash));  // members over down ports skipped
    }
    // The common kinds first, as plain branches: a jump table's indirect branch mispredicts when
    // a burst alternates kinds (headend, then the outer route's forward).
    const fib::nh_kind kind = nh->kind();
    if (likely(kind == fib::nh_kind::forward))
        return do_forward(p, *nh);
    if (kind == fib::nh_kind::headend) {
        if (p.lookups >= max_lookups)
            return drop(p, drop_reason::lookup_loop);
        return do_headend(p, *nh, next, n_next);
    }
    if (kind == fib::nh_kind::local_sid) {
        if (p.lookups >= max_lookups)
            return drop(p, drop_reason::lookup_loop);
        return do_endpoint(p, *nh, next, n_next);
    }
    switch (kind) {
    case fib::nh_kind::forward:
    case fib::nh_kind::headend:
    case fib::nh_kind::local_sid: break;  // above
    case fib::nh_kind::miss:
        // The router's own addresses are the host's even before zebra sent their routes.
        if (is_own(p))
            return pristine(p) ? punt(p) : to_own(p);
        return drop(p, drop_reason::no_route);
    case fib::nh_kind::blackhole: return drop(p, drop_reason::blackhole);
    case fib::nh_kind::unreachable:
    case fib::nh_kind::prohibit: return drop(p, drop_reason::unreachable);
    case fib::nh_kind::receive: return pristine(p) ? punt(p) : to_own(p);
    case fib::nh_kind::refused:
        return drop(p, nh->refusal() <= fib::nh_refusal::sid_bad_flavor && nh->refusal() != fib::nh_refusal::none
                           ? drop_reason::sid_refused
                           : drop_reason::refused_encap);
    case fib::nh_kind::ecmp: return drop(p, drop_reason::lookup_loop);  // groups do not nest
    }
    drop(p, drop_reason::no_route);
}

}  // namespace fwd
