// IPv4 fragmentation at the headend (RFC 791 §3.2, RFC 1812 §5.2.6): a packet without DF that
// does not fit the outer route's MTU once encapsulated is fragmented, the inner packet, before
// H.Encaps, as a hardware PE does; each fragment is then encapsulated on its own (the far PE
// decapsulates and forwards fragments; the destination reassembles). DF packets keep getting
// fragmentation needed (worker_icmp.hh). docs/dataplane.md "IPv4 fragmentation".
//
// The slow path of do_headend()'s size test, which it had before (encap_too_big): the fast
// path tests nothing more. DPDK's ip_frag library cuts the packet: a direct mbuf per fragment
// for its IPv4 header (options copied per RFC 791: the copied ones into every fragment), the
// payload by indirect mbufs attached to the packet's own segments: no payload copy. The
// fragments then go through the headend at once (run_fragments()), in the packet's place in
// the burst (a flow's later packets do not overtake them), with the nexthop that sent them
// here: they fit now, get their TTL decremented as the packet would have, and are encapsulated
// and sent as any packet of the flow (its hash: the same ECMP member, the same flow label).
#pragma once

#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_mbuf.h>

#include "forward/datapath/worker_icmp.hh"
#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// The headend's oversized packet `p`; `fits`: the largest inner packet the outer route takes.
[[gnu::noinline, gnu::cold]] inline void worker::encap_fragment(pkt& p, const fib::compiled_nh& nh, uint32_t fits,
                                                               uint32_t hash) {
    const uint8_t* ip = rte_pktmbuf_mtod_offset(p.m, const uint8_t*, p.l3);
    const uint32_t ihl = p.af == 4 ? (ip[0] & 0x0fu) * 4u : 0;
    // Not ours to cut: IPv6 (only its source fragments), DF, an ICMP message of ours, or an
    // MTU that leaves a fragment less than its header and 8 bytes of data (RFC 791: 68).
    if (p.af != 4 || (ip[6] & 0x40) != 0 || (p.flags & f_icmp) != 0 || _frag.indirect == nullptr ||
        fits < ihl + 8)
        return encap_too_big(p, fits);
    const uint32_t per = (fits - ihl) & ~7u;  // data per fragment: a multiple of 8
    const uint32_t need = (p.m->pkt_len - p.l3u() - ihl + per - 1) / per;
    if (need > frag_state::backlog)
        return drop(p, drop_reason::frag_failed);
    rte_pktmbuf_adj(p.m, p.l3);  // the IPv4 header first, as ip_frag wants it
    rte_mbuf* out[frag_state::backlog];
    const int n = rte_ipv4_fragment_packet(p.m, out, static_cast<uint16_t>(frag_state::backlog - _frag.n),
                                           static_cast<uint16_t>(fits), p.m->pool, _frag.indirect);
    if (n <= 0)
        return drop(p, drop_reason::frag_failed);  // no mbufs (ip_frag freed what it had made)
    _c.ip4_fragmented.add(1);
    _c.ip4_fragments.add(static_cast<uint64_t>(n));
    for (int i = 0; i < n; ++i) {
        rte_mbuf* f = out[i];
        auto* h = rte_pktmbuf_mtod(f, rte_ipv4_hdr*);
        h->hdr_checksum = 0;
        h->hdr_checksum = rte_ipv4_cksum(h);
        f->ol_flags = 0;
        f->port = p.m->port;
        pkt& q = _frag.pkts[_frag.n++];
        q = p;
        q.m = f;
        q.nhp = &nh;
        q.hash = hash;
        q.l3 = 0;
        q.tr = i == 0 ? p.tr : 0;  // a traced packet's first fragment carries its record on
    }
    rte_pktmbuf_free(p.m);  // the fragments' indirect mbufs hold its data
    p.m = nullptr;
    run_fragments();
}

// The fragments through act() (their nexthop known), then lookup rounds as run()'s for what
// act() sends on (an outer packet without a direct exit, an ICMP message); inside the round
// of the packet they came from, whose place for those it keeps.
[[gnu::noinline, gnu::cold]] inline void worker::run_fragments() {
    while (_frag.n != 0) {
        pkt st[frag_state::backlog];
        pkt_vec work;
        for (uint16_t i = 0; i < _frag.n; ++i) {
            st[i] = _frag.pkts[i];
            work.push(st[i]);
        }
        _frag.n = 0;
        rounds(work, nullptr, true);
    }
}

}  // namespace fwd
