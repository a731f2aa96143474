// The workers' counters summed for the control thread, and the mbuf pools' use.
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>

#include "forward/control/dataplane_impl.hh"

namespace fwd {

uint64_t dataplane::polls() const {
    uint64_t n = 0;
    for (const auto& s : _workers)
        n += s->counters->polls.get();
    return n;
}

dataplane::raw dataplane::sum() const {
    raw r;
    for (const auto& s : _workers) {
        const worker_counters& c = *s->counters;
        std::array<uint64_t, 3>& mine = r.workers.emplace_back();
        for (const auto& pi : _ports) {
            mine[0] += c.ports[pi.port_id].rx_packets.get();
            mine[1] += c.ports[pi.port_id].tx_packets.get();
        }
        for (size_t d = 0; d < drop_reason_count; ++d)
            mine[2] += c.drops[d].get();
        for (size_t p = 0; p < max_ports; ++p) {
            const port_counters& pc = c.ports[p];
            r.ports[p][0] += pc.rx_packets.get();
            r.ports[p][1] += pc.rx_bytes.get();
            r.ports[p][2] += pc.tx_packets.get();
            r.ports[p][3] += pc.tx_bytes.get();
            r.ports[p][4] += pc.tx_dropped.get();
            r.ports[p][5] += pc.punted.get();
            r.ports[p][6] += pc.injected.get();
        }
        for (size_t d = 0; d < drop_reason_count; ++d)
            r.drops[d] += c.drops[d].get();
        for (size_t i = 0; i < max_sid_counters; ++i)
            sid_merge(r.sids[i], c.sids[i]);
        r.sid_overflow += c.sid_overflow.packets.get();
        r.chained += c.hdr_chained.get();
        r.fragmented += c.ip4_fragmented.get();
        r.fragments += c.ip4_fragments.get();
        for (size_t m = 0; m < headend_modes; ++m)
            r.headend[m] += c.headend[m].get();
        r.resolve_queued += c.resolve_queued.get();
        r.resolve_lost += c.resolve_lost.get();
        r.held += c.held.get();
        r.released += c.released.get();
        for (size_t k = 0; k < icmp_kinds; ++k)
            r.icmp[k] += c.icmp.sent[k].get();
        r.icmp_rate_limited += c.icmp.rate_limited.get();
        r.icmp_no_source += c.icmp.no_source.get();
    }
    for (const auto& pi : _ports) {
        rte_eth_stats st{};
        if (pi.vlan == 0 && rte_eth_stats_get(pi.dev(), &st) == 0)  // a sub-port's are its parent's
            r.dev[pi.port_id] = {st.imissed, st.ierrors, st.rx_nombuf, st.oerrors};
    }
    r.resolve_sent = _resolve_sent;
    r.resolve_limited = _resolve_limited;
    r.resolve_failed = _resolve_failed;
    return r;
}

counters_snapshot dataplane::counters() const {
    const raw now = sum();
    const raw& b = *_baseline;
    counters_snapshot s;
    s.workers = workers();
    for (size_t i = 0; i < _ports.size(); ++i) {
        counters_snapshot::port p;
        p.name = _opt.ports[i].name;
        p.port_id = _ports[i].port_id;
        p.ifindex = _ports[i].ifindex;
        p.vrf = _port_vrf[i].empty() ? "default" : _port_vrf[i];
        const auto& n = now.ports[p.port_id];
        const auto& o = b.ports[p.port_id];
        p.rx_packets = n[0] - o[0];
        p.rx_bytes = n[1] - o[1];
        p.tx_packets = n[2] - o[2];
        p.tx_bytes = n[3] - o[3];
        p.tx_dropped = n[4] - o[4];
        p.punted = n[5] - o[5];
        p.injected = n[6] - o[6];
        const auto& nd = now.dev[p.port_id];
        const auto& od = b.dev[p.port_id];
        p.rx_missed = nd[0] - od[0];
        p.rx_errors = nd[1] - od[1];
        p.rx_nombuf = nd[2] - od[2];
        p.tx_errors = nd[3] - od[3];
        p.tap = _opt.ports[i].tap;
        p.parent = _opt.ports[i].parent;
        p.vlan = _ports[i].vlan;
        p.link_up = _link_up[i] != 0;
        rte_eth_link link{};
        if (rte_eth_link_get_nowait(_ports[i].dev(), &link) == 0 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
            p.speed_mbps = link.link_speed;
        p.mtu = _ports[i].mtu;
        p.queues = std::max(1u, workers());
        s.ports.push_back(std::move(p));
    }
    for (size_t d = 0; d < drop_reason_count; ++d)
        s.drops[d] = now.drops[d] - b.drops[d];
    auto sids = std::make_shared<std::vector<sid_count>>(max_sid_counters);
    for (size_t i = 0; i < max_sid_counters; ++i) {
        sid_count c = now.sids[i];
        if (b.sids[i].gen == c.gen) {  // cleared while this SID held the slot
            c.packets -= b.sids[i].packets;
            c.bytes -= b.sids[i].bytes;
        }
        (*sids)[i] = c;
    }
    s.sid = [sids](uint32_t slot, uint32_t gen) {
        return slot < sids->size() ? sid_counts((*sids)[slot], gen) : std::pair<uint64_t, uint64_t>{0, 0};
    };
    s.sid_overflow_packets = now.sid_overflow - b.sid_overflow;
    s.headend_chained = now.chained - b.chained;
    s.ip4_fragmented = now.fragmented - b.fragmented;
    s.ip4_fragments = now.fragments - b.fragments;
    for (size_t m = 0; m < headend_modes; ++m)
        s.headend[m] = now.headend[m] - b.headend[m];
    s.resolve_queued = now.resolve_queued - b.resolve_queued;
    s.resolve_lost = now.resolve_lost - b.resolve_lost;
    s.held = now.held - b.held;
    s.released = now.released - b.released;
    s.resolve_sent = now.resolve_sent - b.resolve_sent;
    s.resolve_limited = now.resolve_limited - b.resolve_limited;
    s.resolve_failed = now.resolve_failed - b.resolve_failed;
    for (size_t k = 0; k < icmp_kinds; ++k)
        s.icmp[k] = now.icmp[k] - b.icmp[k];
    s.icmp_rate_limited = now.icmp_rate_limited - b.icmp_rate_limited;
    s.icmp_no_source = now.icmp_no_source - b.icmp_no_source;
    for (size_t w = 0; w < now.workers.size(); ++w) {
        const auto& n = now.workers[w];
        const std::array<uint64_t, 3> o = w < b.workers.size() ? b.workers[w] : std::array<uint64_t, 3>{};
        counters_snapshot::worker x;
        x.id = static_cast<unsigned>(w);
        if (const unsigned lc = _workers[w]->lcore.load(std::memory_order_relaxed); lc < RTE_MAX_LCORE)
            x.lcore = lc;
        x.rx_packets = n[0] - o[0];
        x.tx_packets = n[1] - o[1];
        x.dropped = n[2] - o[2];
        s.per_worker.push_back(x);
    }
    return s;
}

void dataplane::clear_counters() { *_baseline = sum(); }

std::vector<pool_usage> dataplane::pools() const {
    std::vector<pool_usage> out;
    auto add = [&out](const rte_mempool* mp) {
        if (mp == nullptr)
            return;
        out.push_back({mp->name, mp->size, rte_mempool_in_use_count(mp), rte_mempool_avail_count(mp),
                       rte_pktmbuf_data_room_size(const_cast<rte_mempool*>(mp))});
    };
    add(_pool);
    for (const rte_mempool* hp : _hdr_pools)
        add(hp);
    return out;
}

void dataplane::count_resolutions(uint64_t sent, uint64_t limited, uint64_t failed) {
    _resolve_sent += sent;
    _resolve_limited += limited;
    _resolve_failed += failed;
}

}  // namespace fwd
