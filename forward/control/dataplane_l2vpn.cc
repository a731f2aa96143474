// fwd::dataplane's VPWS attachment circuits: the services built by the control plane go into
// the adjacency snapshot, where each circuit's port_info names its pseudowire.
#include "forward/control/dataplane.hh"

namespace fwd {

void dataplane::set_l2vpn(const std::vector<vpws_state>& services) {
    _l2.clear();
    for (auto& p : _ports)
        p.l2vpn = 0;
    for (const auto& s : services)
        for (size_t i = 0; i < _opt.ports.size() && i < _ports.size(); ++i)
            if (_opt.ports[i].name == s.spec.port && _l2.size() < UINT8_MAX) {
                l2_service l;
                l.port_id = _ports[i].port_id;
                l.active = s.active;
                l.tmpl = s.tmpl;
                _l2.push_back(l);
                _ports[i].l2vpn = static_cast<uint8_t>(_l2.size());
            }
    publish_adjacency();
}

}  // namespace fwd
