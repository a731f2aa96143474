// The VPWS services of the config (`dataplane.vpws`): built with the encap source in force and
// handed to the dataplane when they change; `srv6ctl show l2vpn`.
#include <algorithm>

#include "apps/srv6d/control_plane.hh"
#include "util/log.hh"

namespace srv6d {

using util::level;
using util::log;

void control_plane::update_l2vpn() {
    if (!dp || cfg.vpws.empty())
        return;
    auto built = fwd::build_vpws(cfg.vpws, vrfs.encap());
    auto same = [](const fwd::vpws_state& a, const fwd::vpws_state& b) {
        return a.spec == b.spec && a.active == b.active && a.source == b.source;
    };
    if (built.size() == l2vpn.size() && std::equal(built.begin(), built.end(), l2vpn.begin(), same))
        return;
    for (const auto& s : built) {
        if (s.active)
            log(level::info, "l2vpn: vpws {} on port {}: active, {} SID(s) from {}", s.spec.name, s.spec.port,
                s.spec.segments.size(), rib::to_string(*s.source.addr));
        else
            log(level::warn, "l2vpn: vpws {} on port {}: down: {}", s.spec.name, s.spec.port, s.reason);
    }
    l2vpn = std::move(built);
    dp->set_l2vpn(l2vpn);
}

// Each service with its circuit port's counters (one circuit per service).
void control_plane::fill_l2vpn(::mgmt::pb::L2vpnTable& t) const {
    t.set_dataplane(dp.has_value());
    if (!dp)
        return;
    const fwd::counters_snapshot snap = dp->counters();
    for (const auto& s : l2vpn) {
        auto* o = t.add_services();
        o->set_name(s.spec.name);
        o->set_port(s.spec.port);
        o->set_mode(s.spec.reduced ? "H.Encaps.L2.Red" : "H.Encaps.L2");
        for (const auto& g : s.spec.segments)
            o->add_segments(rib::to_string(g));
        o->set_state(s.active ? "active" : "down");
        o->set_reason(s.reason);
        if (s.source.addr) {
            o->set_source(rib::to_string(*s.source.addr));
            // The line's own source= is what a route's own attribute is to a route.
            o->set_source_origin(s.source.origin == vrf::encap_origin::route ? "vpws"
                                                                             : std::string(vrf::to_string(s.source.origin)));
        }
        for (const auto& p : snap.ports)
            if (p.name == s.spec.port) {
                o->set_rx_packets(p.rx_packets);
                o->set_rx_bytes(p.rx_bytes);
                o->set_tx_packets(p.tx_packets);
                o->set_tx_bytes(p.tx_bytes);
                o->set_mtu(p.mtu);
            }
    }
}

}  // namespace srv6d
