// Neighbor miss: a packet we rewrote waits for its neighbor instead of being lost. Linux queues
// a few packets per unresolved neighbor (unres_qlen) and sends them once ARP/ND answers; the
// worker does the same with what it owns: a preallocated table of hold_table::neighbors neighbors, up
// to hold_table::per_neighbor packets each (a full queue pushes out its oldest, as Linux does), held
// until an adjacency snapshot newer than the one they missed in has the neighbor, or until
// hold_time. The control thread never sees them: it publishes the neighbor as for any packet
// (want_neighbor asked it to), the worker notices the new snapshot on its next poll.
// Only the miss path and one comparison per burst touch this.
#pragma once

#include <rte_cycles.h>
#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include <cstring>

#include "forward/datapath/worker_pkt.hh"

namespace fwd {

// Linux gives up on a neighbor after 3 probes 1 s apart; most resolve in milliseconds, and a
// packet a second late is worth little to anyone.
inline constexpr double hold_time_s = 1.0;

inline void worker::hold(pkt& p, uint16_t port, rib::family naf, const uint8_t* addr) {
    want_neighbor(port, naf, addr);
    const uint8_t af = naf == rib::family::ipv4 ? 4 : 6;
    const size_t len = af == 4 ? 4 : 16;
    hold_table::slot* s = nullptr;
    hold_table::slot* free = nullptr;
    for (hold_table::slot& h : _hold.slots) {
        if (h.n == 0) {
            if (free == nullptr)
                free = &h;
        } else if (h.port == port && h.naf == af && std::memcmp(h.addr, addr, len) == 0) {
            s = &h;
            break;
        }
    }
    if (s == nullptr) {
        if (free == nullptr)  // as many neighbors unresolved as we hold for: this one is lost
            return drop(p, drop_reason::neigh_hold_full);
        s = free;
        s->port = port;
        s->naf = af;
        std::memcpy(s->addr, addr, len);
    } else if (s->n == hold_table::per_neighbor) {  // the oldest makes room
        rte_pktmbuf_free(s->pk[0].m);
        _c.drop(drop_reason::neigh_hold_full);
        std::memmove(&s->pk[0], &s->pk[1], sizeof(hold_table::held_pkt) * (hold_table::per_neighbor - 1));
        --s->n;
        --_hold.held;
    }
    const uint64_t now = rte_rdtsc();
    s->pk[s->n++] = hold_table::held_pkt{p.m, now, p.l3, p.af};
    if (_hold.held++ == 0) {
        _hold.av = _v.av;  // only a newer snapshot can have the neighbor
        _hold.epoch = _v.av->epoch();
        _hold.next_check = now + static_cast<uint64_t>(_pol.tsc_hz * hold_time_s);
    }
    _c.held.add(1);
    if (unlikely(p.tr != 0))
        trace_end(p, trace_fate::held, port);
    p.m = nullptr;
}

// A new snapshot: what it resolved leaves, in the order it came, before anything received
// after it (the caller runs this before its burst).
inline void worker::release_held(const adj_view* av) {
    if (_hold.held == 0 || av == nullptr || (av == _hold.av && av->epoch() == _hold.epoch))
        return;
    _hold.av = av;
    _hold.epoch = av->epoch();
    for (hold_table::slot& s : _hold.slots) {
        if (s.n == 0)
            continue;
        const port_info* out = av->port(s.port);
        const mac_addr* mac = av->neighbor_mac(s.port, s.naf == 4 ? rib::family::ipv4 : rib::family::ipv6, s.addr);
        if (mac == nullptr && out != nullptr && out->up)
            continue;  // still unresolved
        for (uint8_t i = 0; i < s.n; ++i) {
            const hold_table::held_pkt& h = s.pk[i];
            pkt p{h.m, nullptr, 0, out ? out->vrf : vrf::default_vrf_id, h.l3, h.af, f_no_ttl, 0, 0};
            if (out == nullptr || !out->up)
                drop(p, drop_reason::port_down);
            else if (p.m->pkt_len - p.l3u() > out->mtu)
                drop(p, drop_reason::mtu_exceeded);
            else {
                _c.released.add(1);
                l2_write(p, *out, *mac);
            }
        }
        _hold.held -= s.n;
        s.n = 0;
    }
}

inline void worker::expire_old(uint64_t now) {
    if (_hold.held == 0 || now < _hold.next_check)
        return;
    const uint64_t ttl = static_cast<uint64_t>(_pol.tsc_hz * hold_time_s);
    uint64_t next = UINT64_MAX;  // when the oldest left over expires
    for (hold_table::slot& s : _hold.slots) {
        uint8_t gone = 0;
        while (gone < s.n && now - s.pk[gone].since >= ttl) {
            rte_pktmbuf_free(s.pk[gone].m);
            _c.drop(drop_reason::neigh_hold_timeout);
            ++gone;
        }
        if (gone != 0) {
            std::memmove(&s.pk[0], &s.pk[gone], sizeof(hold_table::held_pkt) * (s.n - gone));
            s.n = static_cast<uint8_t>(s.n - gone);
            _hold.held -= gone;
        }
        if (s.n != 0 && s.pk[0].since + ttl < next)
            next = s.pk[0].since + ttl;
    }
    _hold.next_check = next;
}

}  // namespace fwd
