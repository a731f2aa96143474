// A port's TAP mirror and VLAN sub-ports, and the ports' link state followed.
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>

#include <fmt/format.h>
#include <net/if.h>

#include "forward/control/dataplane_impl.hh"
#include "forward/datapath/srv6_headend.hh"
#include "host/vlan_device.hh"
#include "util/log.hh"

namespace fwd {

using util::level;
using util::log;

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
    _carrier.push_back(pi.tap_port != port_none && !pi.tap_tagged ? std::make_unique<tap_carrier>(spec.tap) : nullptr);
    log(level::info, "dataplane: port {} = VLAN {} on {} (id {}), mtu {}, ifindex {}{}, vrf {}{}", spec.name,
        spec.vlan, spec.parent, pi.port_id, pi.mtu, pi.ifindex,
        pi.ifindex == 0 ? " (no kernel interface: no route can name it)" : "", spec.vrf.empty() ? "default" : spec.vrf,
        mirror);
    return true;
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
            // The kernel (and zebra) see the link change as a NIC's: the mirror's carrier, never
            // its admin state (tap_carrier.hh); a VLAN device follows its TAP itself.
            std::string why;
            if (_carrier[i] != nullptr && !_carrier[i]->set(up, why))
                log(level::warn, "dataplane: port {}: cannot show the link {} on its mirror {}: {}", _opt.ports[i].name,
                    up ? "up" : "down", _carrier[i]->name(), why);
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

}  // namespace fwd
