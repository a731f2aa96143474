// What the control thread shows of the dataplane and the compiled tables: counters, memory,
// interface names, the metrics scrape.
#include "apps/srv6d/control_plane.hh"

#include <net/if.h>
#include <rte_version.h>

#include <memory>

#include "apps/srv6d/compile_metrics.hh"
#include "forward/datapath/drop_reason.hh"
#include "mgmt/metrics.hh"
#include "mgmt/names.hh"
#include "rib/behaviors.hh"

namespace srv6d {
namespace {
// "22.11.4": rte_version() says "DPDK 22.11.4".
std::string dpdk_version() {
    std::string_view v = rte_version();
    if (v.starts_with("DPDK "))
        v.remove_prefix(5);
    return std::string(v);
}
}  // namespace

// The kernel's names (ifindexes are the kernel's: zebra's nexthops name them) and srv6d's ports.
interface_names control_plane::interface_names_of() const {
    interface_names n;
    n.foreign = remote_zebra;
    n.kernel = [](uint32_t ifindex) {
        char buf[IF_NAMESIZE] = {};
        return ::if_indextoname(ifindex, buf) ? std::string(buf) : std::string();
    };
    n.port = [this](uint32_t ifindex) -> std::optional<std::string> {
        const fwd::adj_view* a = dp ? dp->adjacency() : nullptr;
        for (size_t i = 0; i < cfg.ports.size(); ++i) {
            const uint32_t known = a && i < a->ports().size() ? a->ports()[i].ifindex : cfg.ports[i].ifindex;
            if (known != 0 && known == ifindex)
                return cfg.ports[i].name;
        }
        return std::nullopt;
    };
    return n;
}

// The metrics endpoint's body: what `show counters`, `show fpm` and `show memory` answer, and the
// compiler's.
std::string control_plane::scrape(::mgmt::exposition_format f) const {
    std::vector<::mgmt::metric_family> fams;
    ::mgmt::build_metrics(version(), dpdk_version(), started_at, fams);
    ::mgmt::process_metrics(fams);
    ::mgmt::pb::Counters c;
    fill_counters(c);
    // Every drop reason has its sample, 0 without a dataplane (docs/observability.md): a query
    // or alert on one reason finds it whatever the configuration.
    if (!dp)
        for (size_t i = 0; i < fwd::drop_reason_count; ++i)
            c.add_drops()->set_reason(std::string(fwd::name(static_cast<fwd::drop_reason>(i))));
    ::mgmt::counter_metrics(c, fams);
    ::mgmt::fpm_metrics(::mgmt::render_fpm(session, stats, rib), fams);
    compile_metrics(compiler.stats(), fams);
    ::mgmt::pb::Memory mem;
    fill_memory(mem);
    ::mgmt::memory_metrics(mem, fams);
    return ::mgmt::exposition(fams, f);
}

// One snapshot of the workers' counters, read per SID through the compiler's slot of it.
::mgmt::sid_counter_reader control_plane::sid_counters() const {
    auto snap = std::make_shared<fwd::counters_snapshot>(dp->counters());
    return [this, snap](const rib::route_key& k) -> std::optional<std::pair<uint64_t, uint64_t>> {
        const auto counter = compiler.sid_counter_of(k);
        if (!counter)
            return std::nullopt;
        return snap->sid(counter->slot, counter->gen);
    };
}

void control_plane::fill_counters(::mgmt::pb::Counters& c) const {
    c.set_dataplane(dp.has_value());
    if (!dp)
        return;
    const fwd::counters_snapshot s = dp->counters();
    c.set_workers(s.workers);
    for (const auto& p : s.ports) {
        auto* o = c.add_ports();
        o->set_name(p.name);
        o->set_port_id(p.port_id);
        o->set_ifindex(p.ifindex);
        o->set_vrf(p.vrf);
        o->set_rx_packets(p.rx_packets);
        o->set_rx_bytes(p.rx_bytes);
        o->set_tx_packets(p.tx_packets);
        o->set_tx_bytes(p.tx_bytes);
        o->set_tx_dropped(p.tx_dropped);
        o->set_punted(p.punted);
        o->set_injected(p.injected);
        o->set_rx_missed(p.rx_missed);
        o->set_rx_errors(p.rx_errors);
        o->set_rx_nombuf(p.rx_nombuf);
        o->set_tx_errors(p.tx_errors);
        o->set_tap(p.tap);
        o->set_link_up(p.link_up);
        o->set_speed_mbps(p.speed_mbps);
        o->set_mtu(p.mtu);
        o->set_queues(p.queues);
        o->set_parent(p.parent);
        o->set_vlan(p.vlan);
    }
    for (size_t i = 0; i < fwd::drop_reason_count; ++i) {
        const auto r = static_cast<fwd::drop_reason>(i);
        auto* d = c.add_drops();
        d->set_reason(std::string(fwd::name(r)));
        d->set_description(std::string(fwd::describe(r)));
        d->set_packets(s.drops[i]);
    }
    for (const auto& e : rib.local_sids()) {
        const auto counter = compiler.sid_counter_of(e.r->key);
        auto* o = c.add_sids();
        o->set_prefix(rib::to_string(e.r->key.dst));
        o->set_behavior(std::string(rib::behavior_name(e.sid.action)));
        if (counter) {
            const auto [pk, by] = s.sid(counter->slot, counter->gen);
            o->set_packets(pk);
            o->set_bytes(by);
        }
    }
    c.set_sid_overflow_packets(s.sid_overflow_packets);
    c.set_headend_chained(s.headend_chained);
    c.set_ip4_fragmented(s.ip4_fragmented);
    c.set_ip4_fragments(s.ip4_fragments);
    auto* nr = c.mutable_neigh_resolution();
    nr->set_queued(s.resolve_queued);
    nr->set_queue_full(s.resolve_lost);
    nr->set_sent(s.resolve_sent);
    nr->set_rate_limited(s.resolve_limited);
    nr->set_failed(s.resolve_failed);
    nr->set_held(s.held);
    nr->set_released(s.released);
    nr->set_hold_dropped(s.drops[static_cast<size_t>(fwd::drop_reason::neigh_hold_full)] +
                         s.drops[static_cast<size_t>(fwd::drop_reason::neigh_hold_timeout)]);
    auto* ic = c.mutable_icmp();
    for (size_t k = 0; k < fwd::icmp_kinds; ++k) {
        auto* o = ic->add_sent();
        o->set_message(fwd::icmp_kind_names[k]);
        o->set_packets(s.icmp[k]);
    }
    ic->set_rate_limited(s.icmp_rate_limited);
    ic->set_no_source(s.icmp_no_source);
    for (size_t m = 0; m < fwd::headend_modes; ++m) {
        auto* h = c.add_headend();
        h->set_behavior(std::string(::mgmt::encap_mode_name(static_cast<rib::encap_mode>(m))));
        h->set_packets(s.headend[m]);
    }
    for (const auto& w : s.per_worker) {
        auto* o = c.add_per_worker();
        o->set_worker(w.id);
        if (w.lcore)
            o->set_lcore(*w.lcore);
        o->set_rx_packets(w.rx_packets);
        o->set_tx_packets(w.tx_packets);
        o->set_dropped(w.dropped);
    }
}

// The compiled tables' memory (live blocks by kind, pooled) and the dataplane's mbuf pools.
void control_plane::fill_memory(::mgmt::pb::Memory& m) const {
    table_memory(compiler.stats(), m);
    if (dp)
        for (const fwd::pool_usage& p : dp->pools()) {
            auto* o = m.add_pools();
            o->set_name(p.name);
            o->set_size(p.size);
            o->set_in_use(p.in_use);
            o->set_available(p.available);
            o->set_data_room(p.data_room);
        }
}

}  // namespace srv6d
