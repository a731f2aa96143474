// The lookup stage (bulk LPM per run of VRF and family) and the act stage (dispatch on the
// nexthop kind).
#pragma once

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "forward/datapath/ecmp_live.hh"
#include "forward/datapath/flow_hash.hh"
#include "forward/datapath/pkt.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// ---- The lookup stage: packets in, each one's nexthop out (p.nhp). It reads the compiled
// tables only: a test runs it alone.

// The destinations of the run of packets at the head of `ps` that share VRF and family (a
// burst from one port is one run; so are the outer lookups after an encap, all in the default
// VRF) into keys4 or keys6. Returns the run's length.
[[gnu::always_inline]] inline uint32_t gather_keys(pkt* const* ps, uint32_t n, uint32_t* keys4, fib::u128* keys6) {
    const uint8_t af = ps[0]->af;
    const vrf::vrf_id v = ps[0]->vrf;
    uint32_t j = 0;
    for (; j < n && ps[j]->af == af && ps[j]->vrf == v; ++j) {
        const uint8_t* ip = rte_pktmbuf_mtod_offset(ps[j]->m, const uint8_t*, ps[j]->l3);
        if (af == 4)
            keys4[j] = load_be32(ip + 16);
        else
            keys6[j] = fib::key6(ip + 24);
    }
    return j;
}

// One bulk lookup of `k` packets of VRF `v` and family `af` whose destinations are gathered;
// each packet's nexthop (prefetched: act reads it next), its route's index in `res`.
[[gnu::always_inline]] inline void lookup_burst(const fib::dataplane_view& fv, pkt* const* ps, uint32_t k, uint8_t af,
                                                vrf::vrf_id v, const uint32_t* keys4, const fib::u128* keys6,
                                                uint32_t* res) {
    if (af == 4)
        fv.lookup4_bulk(v, keys4, res, k);
    else
        fv.lookup6_bulk(v, keys6, res, k);
    const fib::dataplane_view::nh_reader nexthop = fv.nexthops();
    for (uint32_t x = 0; x < k; ++x) {
        const fib::compiled_nh* nh = &nexthop(res[x]);
        pkt& p = *ps[x];
        ++p.lookups;
        p.nhp = nh;
        rte_prefetch0(nh);
    }
}

// The stage over a whole edge, run by run.
inline void worker::lookup(const pkt_vec& w) {
    uint32_t keys4[burst_size];
    fib::u128 keys6[burst_size];
    for (uint32_t i = 0; i < w.n;) {
        const uint32_t k = gather_keys(w.p + i, w.n - i, keys4, keys6);
        lookup_keys(w.p + i, k, w.p[i]->af, w.p[i]->vrf, keys4, keys6);
        i += k;
    }
}

// The stage on packets whose keys are gathered (by gather_keys(), or by classify for a burst of
// one family), and what a trace records of it.
[[gnu::always_inline]] inline void worker::lookup_keys(pkt* const* ps, uint32_t k, uint8_t af, vrf::vrf_id v,
                                                      const uint32_t* keys4, const fib::u128* keys6) {
    uint32_t res[burst_size];
    lookup_burst(*_v.fv, ps, k, af, v, keys4, keys6, res);
    if (unlikely(_ts.watch != 0))
        trace_lookups(ps, k, res);
}

// ---- The act stage: per packet, what its nexthop's kind asks for. Its edges: `next` (another
// lookup round: an outer packet without a direct exit, a decapsulated packet, an ICMP message),
// the rewrite and tx stages (worker_l2.hh, worker_tx.hh: a packet leaves), and the drop, punt
// and hold ends (worker_punt.hh, worker_hold.hh).

// always_inline here and on the stages act reaches (do_forward, do_endpoint, l2_write, check_l3,
// enqueue): GCC kept them out of line, a call per stage per packet; inlined, every case of the
// dataplane bench took 10-15 % fewer cycles. do_headend too: its outer packet goes back through
// act_outer(), out of line, which keeps the inlining from being recursive.
[[gnu::always_inline]] inline void worker::act(pkt& p, pkt_vec& next) {
    const fib::compiled_nh* nh = p.nhp;
    if (nh->kind() == fib::nh_kind::ecmp) {
        if (p.hash == 0) {
            const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
            p.hash = flow_hash_ip(ip, p.m->data_len - p.l3u());
        }
        nh = &_v.fv->nexthop(ecmp_pick_live(*_v.fv, *_v.av, *nh, p.hash));  // members over down ports skipped
    }
    // The common kinds first, as plain branches: a jump table's indirect branch mispredicts when
    // a burst alternates kinds (headend, then the outer route's forward).
    const fib::nh_kind kind = nh->kind();
    if (likely(kind == fib::nh_kind::forward))
        return do_forward(p, *nh);
    if (kind == fib::nh_kind::headend) {
        if (p.lookups >= max_lookups)
            return drop(p, drop_reason::lookup_loop);
        return do_headend(p, *nh, next);
    }
    if (kind == fib::nh_kind::local_sid) {
        if (p.lookups >= max_lookups)
            return drop(p, drop_reason::lookup_loop);
        return do_endpoint(p, *nh, next);
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
