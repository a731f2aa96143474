// `srv6ctl show l2vpn`: the VPWS services, one block each.
#include <fmt/format.h>

#include "mgmt/text.hh"

namespace mgmt {

std::string format_l2vpn(const pb::L2vpnTable& t) {
    if (!t.dataplane())
        return "Dataplane: off (srv6d runs with [dataplane] enabled = false)\n";
    if (t.services_size() == 0)
        return "(no VPWS configured: dataplane.vpws)\n";
    std::string out;
    for (const auto& s : t.services()) {
        std::string segs;
        for (const auto& g : s.segments())
            segs += (segs.empty() ? "" : ", ") + g;
        out += fmt::format("vpws {}: {}{}\n", s.name(), s.state(), s.reason().empty() ? "" : " (" + s.reason() + ")");
        out += fmt::format("  circuit   port {} (mtu {})\n", s.port(), s.mtu());
        out += fmt::format("  encap     {} segs {}\n", s.mode(), segs);
        if (!s.source().empty())
            out += fmt::format("  source    {} ({})\n", s.source(), s.source_origin());
        out += fmt::format("  in        {} frames {} bytes (received on the circuit)\n", s.rx_packets(), s.rx_bytes());
        out += fmt::format("  out       {} frames {} bytes (End.DX2 to the circuit)\n", s.tx_packets(), s.tx_bytes());
    }
    return out;
}

}  // namespace mgmt
