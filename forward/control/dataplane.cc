#include "forward/control/dataplane.hh"

#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <net/if.h>

#include "forward/datapath/srv6_headend.hh"
#include "forward/datapath/worker.hh"
#include "host/vlan_device.hh"
#include "util/log.hh"

namespace fwd {

using util::level;
using util::log;

struct dataplane::worker_slot {
    std::unique_ptr<worker_counters> counters = std::make_unique<worker_counters>();
    std::unique_ptr<worker> w;
    unsigned id = 0;
    // Set by the worker itself when it starts (the control thread reads it for the counters).
    std::atomic<unsigned> lcore{RTE_MAX_LCORE};
};

struct dataplane::raw {
    std::array<std::array<uint64_t, 7>, max_ports> ports{};
    // The device's own counters (rte_eth_stats): missed, rx errors, rx no mbuf, tx errors.
    std::array<std::array<uint64_t, 4>, max_ports> dev{};
    std::array<uint64_t, drop_reason_count> drops{};
    std::vector<sid_count> sids = std::vector<sid_count>(max_sid_counters);
    uint64_t sid_overflow = 0;
    uint64_t chained = 0;
    std::array<uint64_t, headend_modes> headend{};
    uint64_t resolve_queued = 0, resolve_lost = 0, resolve_sent = 0, resolve_limited = 0, resolve_failed = 0;
    uint64_t held = 0, released = 0;
    std::array<uint64_t, icmp_kinds> icmp{};
    uint64_t icmp_rate_limited = 0, icmp_no_source = 0;
    std::vector<std::array<uint64_t, 3>> workers;  // per worker: rx, tx, dropped
};

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
        _workers.push_back(std::move(slot));
    }
    update_vrfs(vrf_of);
    return true;
}

// The kernel mirror: a TAP with the port's MAC, so that what the kernel answers (ARP, ND, BGP)
// carries the address the neighbors see on the wire.
bool dataplane::open_tap(const port_spec& spec, const mac_addr& mac, unsigned n_workers, port_info& pi,
                         uint32_t& tap_ifindex, std::string& err) {
    port_spec ts;
    ts.name = spec.name + "/tap";
    ts.devargs = fmt::format("net_tap_srv6d{},iface={},mac={}", _ports.size(), spec.tap, to_string(mac));
    port_handle th;
    if (!port_open(ts, static_cast<uint16_t>(n_workers), _pool, _opt.rx_desc, _opt.tx_desc, th, err))
        return false;
    if (taken_by_sub_port(th.port_id, err))
        return false;
    pi.tap_port = th.port_id;
    tap_ifindex = if_nametoindex(spec.tap.c_str());
    if (rte_eth_dev_set_mtu(th.port_id, spec.mtu) != 0)
        log(level::warn, "dataplane: port {}: cannot set MTU {} on {}", spec.name, spec.mtu, spec.tap);
    pi.punt_rate = std::max(1u, _opt.punt_rate / n_workers);
    pi.punt_burst = std::max(1u, _opt.punt_burst / n_workers);
    return true;
}

// A sub-port's id is srv6d's own, from the top of the port ids down: DPDK gives new ethdevs the
// lowest free one. An ethdev that got one anyway (max_ports in use) is refused.
bool dataplane::taken_by_sub_port(uint16_t dpdk_id, std::string& err) const {
    for (const auto& p : _ports)
        if (p.vlan != 0 && p.port_id == dpdk_id) {
            err = fmt::format("dataplane: DPDK port {} is a sub-port's id: more than {} ports and sub-ports", dpdk_id,
                              max_ports);
            return true;
        }
    return false;
}

bool dataplane::open_sub_port(const port_spec& spec, unsigned n_workers, std::string& err) {
    size_t pidx = 0;
    while (_opt.ports[pidx].name != spec.parent)  // check_ports: it is there, before this one
        ++pidx;
    const port_info& parent = _ports[pidx];
    port_info pi;
    pi.port_id = port_none;
    for (uint16_t id = max_ports; id-- > 0 && pi.port_id == port_none;) {
        bool used = rte_eth_dev_is_valid_port(id) != 0;
        for (const auto& p : _ports)
            used |= p.port_id == id;
        if (!used)
            pi.port_id = id;
    }
    if (pi.port_id == port_none) {
        err = fmt::format("dataplane: sub-port {}: more than {} ports and sub-ports", spec.name, max_ports);
        return false;
    }
    pi.parent = parent.port_id;
    pi.vlan = spec.vlan;
    pi.mtu = spec.mtu;
    pi.mac = parent.mac;  // as a VLAN device's: its parent's
    pi.tx_vlan_hw = _tx_vlan_hw[pidx];
    pi.ifindex = spec.ifindex;
    uint32_t tap_ifindex = 0;
    std::string mirror;
    if (!spec.tap.empty()) {
        bool own_tap = true;
        if (parent.tap_port != port_none) {
            const host::vlan_device v = host::create_vlan_device(_tap_ifindex[pidx], spec.tap, spec.vlan, spec.mtu);
            if (v.ifindex != 0) {
                own_tap = false;
                pi.tap_port = parent.tap_port;
                pi.tap_tagged = true;
                tap_ifindex = v.ifindex;
                pi.punt_rate = std::max(1u, _opt.punt_rate / n_workers);
                pi.punt_burst = std::max(1u, _opt.punt_burst / n_workers);
                mirror = fmt::format(", mirrored by VLAN device {} on {}", spec.tap, _opt.ports[pidx].tap);
            } else if (!v.unsupported) {
                err = fmt::format("dataplane: sub-port {}: cannot create VLAN device {}: {}", spec.name, spec.tap, v.err);
                return false;
            } else if (!_said_no_vlan_devices) {
                _said_no_vlan_devices = true;
                log(level::warn, "dataplane: the kernel has no VLAN devices (8021q: {}): sub-ports are mirrored by "
                    "TAPs of their own, untagged", v.err);
            }
        }
        if (own_tap) {
            if (!open_tap(spec, parent.mac, n_workers, pi, tap_ifindex, err))
                return false;
            mirror = ", mirrored by tap " + spec.tap;
        }
        if (spec.ifindex == 0)
            pi.ifindex = tap_ifindex;
    } else if (pi.ifindex == 0 && !spec.ifname.empty()) {
        pi.ifindex = if_nametoindex(spec.ifname.c_str());
    }
    _tx_vlan_hw.push_back(false);
    _ports.push_back(pi);
    _tap_ifindex.push_back(tap_ifindex);
    _port_vrf.push_back(spec.vrf);
    _parent.push_back(static_cast<int>(pidx));
    _vrf_ok.push_back(0);
    _link_up.push_back(1);
    log(level::info, "dataplane: port {} = VLAN {} on {} (id {}), mtu {}, ifindex {}{}, vrf {}{}", spec.name,
        spec.vlan, spec.parent, pi.port_id, pi.mtu, pi.ifindex,
        pi.ifindex == 0 ? " (no kernel interface: no route can name it)" : "", spec.vrf.empty() ? "default" : spec.vrf,
        mirror);
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

void dataplane::refresh_links() { refresh(false); }

void dataplane::refresh(bool force) {
    bool changed = force;
    for (size_t i = 0; i < _ports.size(); ++i) {
        rte_eth_link link{};
        // PMDs that cannot tell (rte_eth_link_get_nowait fails) count as up; ports bound to a
        // kernel interface (af_packet, af_xdp) follow that interface's carrier as well; a
        // sub-port, its parent's link (before it: check_ports).
        uint8_t up;
        if (_parent[i] >= 0) {
            up = _link_up[static_cast<size_t>(_parent[i])];
        } else {
            up = rte_eth_link_get_nowait(_ports[i].port_id, &link) != 0 || link.link_status != 0;
            if (const auto carrier = kernel_carrier(_opt.ports[i]))
                up = up && *carrier;
        }
        if (up != _link_up[i]) {
            log(up ? level::info : level::warn, "dataplane: port {} link {}", _opt.ports[i].name, up ? "up" : "down");
            _link_up[i] = up;
            changed = true;
            // The kernel (and zebra) see the link change; a VLAN device follows its TAP itself.
            if (_ports[i].tap_port != port_none && !_ports[i].tap_tagged)
                up ? rte_eth_dev_set_link_up(_ports[i].tap_port) : rte_eth_dev_set_link_down(_ports[i].tap_port);
        }
        _ports[i].up = _vrf_ok[i] && _link_up[i];
    }
    if (changed)
        publish_adjacency();
}

bool dataplane::has_taps() const {
    for (const auto& p : _ports)
        if (p.tap_port != port_none)
            return true;
    return false;
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
    const adj_view* old = _adj.exchange(adj_view::create(_ports, ns, ++_adj_epoch, own));
    fib::retire_batch b;
    b.add(old);
    _rcu.retire(std::move(b));
}

int dataplane::lcore_main(void* arg) {
    auto* ctx = static_cast<std::pair<dataplane*, unsigned>*>(arg);
    ctx->first->worker_loop(ctx->second);
    delete ctx;
    return 0;
}

void dataplane::worker_loop(unsigned w) {
    worker& wk = *_workers[w]->w;
    _workers[w]->lcore.store(rte_lcore_id(), std::memory_order_relaxed);
    fib::qsbr_reader reader(_rcu, w);
    // Polls that found nothing in a row, and the sleep the next idle poll takes.
    constexpr unsigned idle_polls = 256;
    unsigned empty = 0;
    uint32_t sleep_us = 1;
    while (_run.load(std::memory_order_relaxed)) {
        const uint32_t got = wk.poll();
        wk.counters().hdr_chained.set(wk.headend().hdr_chained);
        reader.quiescent();
        const uint32_t max_us = _idle_sleep_us.load(std::memory_order_relaxed);
        if (got != 0 || max_us == 0) {
            empty = 0;
            sleep_us = 1;
            continue;
        }
        if (++empty < idle_polls)
            continue;
        // Offline while asleep: a grace period must not wait for this worker's nap.
        reader.offline();
        std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        reader.online();
        sleep_us = std::min(max_us, sleep_us * 2);
    }
}

unsigned dataplane::launch() {
    _run.store(true);
    unsigned w = 0, launched = 0;
    // RTE_LCORE_FOREACH_WORKER by hand: the macro trips -Wsign-conversion in C++.
    for (unsigned lc = rte_get_next_lcore(static_cast<unsigned>(-1), 1, 0); lc < RTE_MAX_LCORE;
         lc = rte_get_next_lcore(lc, 1, 0)) {
        if (w >= _workers.size())
            break;
        auto* ctx = new std::pair<dataplane*, unsigned>(this, w++);
        if (rte_eal_remote_launch(lcore_main, ctx, lc) != 0) {
            delete ctx;
            continue;
        }
        _lcores.push_back(lc);
        ++launched;
    }
    return launched;
}

void dataplane::run_here() { worker_loop(0); }

void dataplane::stop() {
    _run.store(false);
    for (unsigned lc : _lcores)
        rte_eal_wait_lcore(lc);
    _lcores.clear();
}

unsigned dataplane::lcore_of(unsigned w) const { return w < _lcores.size() ? _lcores[w] : rte_get_main_lcore(); }

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

void dataplane::count_resolutions(uint64_t sent, uint64_t limited, uint64_t failed) {
    _resolve_sent += sent;
    _resolve_limited += limited;
    _resolve_failed += failed;
}

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

}  // namespace fwd
