// The dataplane: ports opened in their VRFs, the adjacency snapshot the workers read (ports,
// neighbors, own addresses) built and published; ports and link state in dataplane_ports.cc,
// the lcores in dataplane_workers.cc, the counters in dataplane_counters.cc.
#include "forward/control/dataplane.hh"

#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>

#include <fmt/format.h>
#include <net/if.h>

#include "forward/control/dataplane_impl.hh"
#include "forward/datapath/srv6_headend.hh"
#include "forward/datapath/worker.hh"
#include "host/vlan_device.hh"
#include "util/log.hh"

namespace fwd {

using util::level;
using util::log;

dataplane::dataplane(fib::qsbr_domain& rcu, const fib::rcu_cell<fib::dataplane_view>& tables)
    : _rcu(rcu), _tables(tables), _baseline(std::make_unique<raw>()) {}

dataplane::~dataplane() {
    stop();
    for (const auto& p : _ports) {
        if (p.vlan == 0)  // a sub-port is no ethdev; its VLAN device goes with its parent's TAP
            port_close(p.port_id);
        if (p.tap_port != port_none && !p.tap_tagged)
            port_close(p.tap_port);
    }
    // Workers are gone: nothing reads the adjacency any more.
    adj_view::destroy(_adj.exchange(nullptr));
    for (auto* r : _resolve)
        rte_ring_free(r);
    for (auto* hp : _hdr_pools)
        rte_mempool_free(hp);
    if (_frag_pool)
        rte_mempool_free(_frag_pool);
    if (_pool)
        rte_mempool_free(_pool);
}

bool dataplane::open(const dataplane_options& o, const vrf_resolver& vrf_of, std::string& err) {
    _opt = o;
    _idle_sleep_us.store(o.idle_sleep_us, std::memory_order_relaxed);
    unsigned n_workers = rte_lcore_count() > 1 ? rte_lcore_count() - 1 : 1;
    if (n_workers > _rcu.max_readers()) {
        err = "dataplane: " + std::to_string(n_workers) + " worker lcores, at most " +
              std::to_string(_rcu.max_readers());
        return false;
    }
    const int socket = static_cast<int>(rte_socket_id());
    _pool = rte_pktmbuf_pool_create("srv6d_pkts", o.mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, socket);
    if (_pool == nullptr) {
        err = "dataplane: cannot allocate " + std::to_string(o.mbufs) + " mbufs (hugepages reserved?)";
        return false;
    }
    // Data room 0: an IPv4 fragment's data is the packet's own, attached (worker_frag.hh).
    _frag_pool = rte_pktmbuf_pool_create("srv6d_frag", o.mbufs, 256, 0, 0, socket);
    if (_frag_pool == nullptr) {
        err = "dataplane: cannot allocate " + std::to_string(o.mbufs) + " indirect mbufs";
        return false;
    }
    for (unsigned w = 0; w < n_workers; ++w) {
        const std::string name = "srv6d_hdr" + std::to_string(w);
        rte_mempool* hp = headend_hdr_pool_create(name.c_str(), 1023, socket);
        if (hp == nullptr) {
            err = "dataplane: cannot allocate header mbufs";
            return false;
        }
        _hdr_pools.push_back(hp);
        // 256 distinct neighbors per control-thread drain (every 20 ms) and worker.
        rte_ring* rr = resolve_ring_create(("srv6d_resolve" + std::to_string(w)).c_str(), 256, socket);
        if (rr == nullptr) {
            err = "dataplane: cannot allocate the neighbor resolution queue";
            return false;
        }
        _resolve.push_back(rr);
    }
    if (!check_ports(_opt.ports, err)) {
        err = "dataplane: " + err;
        return false;
    }
    std::vector<port_handle> handles;
    for (const auto& spec : _opt.ports) {
        if (spec.vlan != 0) {
            if (!open_sub_port(spec, n_workers, err))
                return false;
            handles.emplace_back();
            continue;
        }
        bool has_subs = false;
        for (const auto& s : _opt.ports)
            has_subs |= s.vlan != 0 && s.parent == spec.name;
        port_handle h;
        if (!port_open(spec, static_cast<uint16_t>(n_workers), _pool, o.rx_desc, o.tx_desc, h, err, has_subs))
            return false;
        if (taken_by_sub_port(h.port_id, err))
            return false;
        port_info pi;
        pi.port_id = h.port_id;
        pi.mtu = spec.mtu;
        pi.ifindex = h.ifindex;
        pi.mac = h.mac;
        pi.rx_vlan_hw = h.rx_vlan_hw;
        uint32_t tap_ifindex = 0;
        if (!spec.tap.empty()) {
            if (!open_tap(spec, h.mac, n_workers, pi, tap_ifindex, err))
                return false;
            if (spec.ifindex == 0)
                pi.ifindex = tap_ifindex;
        }
        handles.push_back(h);
        _tx_vlan_hw.push_back(h.tx_vlan_hw);
        _ports.push_back(pi);
        _tap_ifindex.push_back(tap_ifindex);
        _port_vrf.push_back(spec.vrf);
        _parent.push_back(-1);
        _vrf_ok.push_back(0);
        _link_up.push_back(1);
        _carrier.push_back(spec.tap.empty() ? nullptr : std::make_unique<tap_carrier>(spec.tap));
        log(level::info, "dataplane: port {} = DPDK port {} ({}), mac {}, ifindex {}{}, vrf {}{}{}", spec.name,
            h.port_id, spec.devargs, to_string(h.mac), pi.ifindex,
            pi.ifindex == 0 ? " (no kernel interface: no route can name it)" : "",
            spec.vrf.empty() ? "default" : spec.vrf, spec.tap.empty() ? "" : ", mirrored by tap " + spec.tap,
            !has_subs ? ""
                      : fmt::format(", VLAN tags stripped by {}, inserted by {}", h.rx_vlan_hw ? "the NIC" : "srv6d",
                                    h.tx_vlan_hw ? "the NIC" : "srv6d"));
    }
    for (const auto& n : o.neighbors) {
        bool known = false;
        for (const auto& spec : _opt.ports)
            known |= spec.name == n.port;
        if (!known) {
            err = "dataplane: neighbor on unknown port '" + n.port + "'";
            return false;
        }
    }
    _trace = std::make_unique<trace_hub>(n_workers);
    for (unsigned w = 0; w < n_workers; ++w) {
        auto slot = std::make_unique<worker_slot>();
        slot->id = w;
        std::vector<rx_queue> rx;
        for (const auto& p : _ports) {
            if (p.vlan == 0)  // a sub-port's frames come in on its parent
                rx.push_back({p.port_id, static_cast<uint16_t>(w), port_none});
            if (p.tap_port != port_none && !p.tap_tagged)  // what the host sends leaves through the port
                rx.push_back({p.tap_port, static_cast<uint16_t>(w), p.port_id});
        }
        slot->w = std::make_unique<worker>(std::move(rx), static_cast<uint16_t>(w), published{&_tables, &_adj},
                                           _hdr_pools[w], *slot->counters, _resolve[w],
                                           _trace->worker(w));
        slot->w->set_icmp_limit(o.icmp_rate, o.icmp_burst);
        slot->w->set_frag_pool(_frag_pool);
        _workers.push_back(std::move(slot));
    }
    update_vrfs(vrf_of);
    return true;
}

void dataplane::update_vrfs(const vrf_resolver& vrf_of) {
    bool changed = _adj.load() == nullptr;
    for (size_t i = 0; i < _ports.size(); ++i) {
        const std::string& name = _port_vrf[i];
        // A port of a VRF that is not (yet) active forwards nothing rather than in a wrong VRF.
        const auto id = name.empty() ? std::optional<vrf::vrf_id>(vrf::default_vrf_id) : vrf_of(name);
        const vrf::vrf_id v = id.value_or(vrf::default_vrf_id);
        const uint8_t ok = id.has_value();
        changed |= _ports[i].vrf != v || _vrf_ok[i] != ok;
        _ports[i].vrf = v;
        _vrf_ok[i] = ok;
    }
    if (changed) {
        refresh(true);
        return;
    }
    refresh(false);
}

void dataplane::set_punt(uint32_t rate, uint32_t burst) {
    _opt.punt_rate = rate;
    _opt.punt_burst = burst;
    const unsigned n = std::max(1u, workers());
    bool changed = false;
    for (auto& p : _ports) {
        if (p.tap_port == port_none)
            continue;
        const uint32_t r = std::max(1u, rate / n), b = std::max(1u, burst / n);
        changed |= p.punt_rate != r || p.punt_burst != b;
        p.punt_rate = r;
        p.punt_burst = b;
    }
    if (changed)
        publish_adjacency();
}

void dataplane::set_icmp(uint32_t rate, uint32_t burst) {
    if (rate == _opt.icmp_rate && burst == _opt.icmp_burst)
        return;
    _opt.icmp_rate = rate;
    _opt.icmp_burst = burst;
    publish_adjacency();
}

void dataplane::set_kernel_view(const kernel_view& k) {
    _kernel = k;
    publish_adjacency();
}

void dataplane::publish_adjacency() {
    std::vector<neighbor> ns;
    std::vector<own_address> own;
    // The kernel's first, the configured ones after: a configured neighbor wins (insert order).
    for (const auto& n : _kernel.neighbors)
        for (const auto& p : _ports)
            if (p.ifindex == n.ifindex && p.tap_port != port_none)
                ns.push_back({p.port_id, n.addr, n.mac});
    for (const auto& a : _kernel.addresses)
        for (const auto& p : _ports)
            if (p.ifindex == a.ifindex && p.tap_port != port_none)
                own.push_back({p.vrf, a.addr, p.port_id});
    for (const auto& n : _opt.neighbors)
        for (size_t i = 0; i < _opt.ports.size(); ++i)
            if (_opt.ports[i].name == n.port)
                ns.push_back({_ports[i].port_id, n.addr, n.mac});
    // A port that is down or in an inactive VRF stays in the snapshot marked down: what it
    // receives is dropped (tables_not_ready is not it: port_down), nothing is sent out of it.
    const adj_view* old = _adj.exchange(adj_view::create(_ports, ns, ++_adj_epoch, own, _l2,
                                                           icmp_limit{_opt.icmp_rate, std::max(1u, _opt.icmp_burst)}));
    fib::retire_batch b;
    b.add(old);
    _rcu.retire(std::move(b));
}

std::optional<uint16_t> dataplane::port_by_name(const std::string& name) const {
    for (size_t i = 0; i < _ports.size(); ++i)
        if (_opt.ports[i].name == name)
            return _ports[i].port_id;
    return std::nullopt;
}

std::string dataplane::port_name(uint16_t port_id) const {
    for (size_t i = 0; i < _ports.size(); ++i) {
        if (_ports[i].port_id == port_id)
            return _opt.ports[i].name;
        if (_ports[i].tap_port == port_id)
            return _opt.ports[i].name + "/tap";
    }
    return "port " + std::to_string(port_id);
}

void dataplane::take_resolve_requests(std::vector<resolve_request>& out) {
    resolve_request buf[64];
    for (rte_ring* r : _resolve)
        for (unsigned n; (n = resolve_ring_take(r, buf, 64)) != 0;)
            out.insert(out.end(), buf, buf + n);
}

uint32_t dataplane::tap_ifindex(uint16_t port_id) const {
    for (size_t i = 0; i < _ports.size(); ++i)
        if (_ports[i].port_id == port_id)
            return _tap_ifindex[i];
    return 0;
}

}  // namespace fwd
