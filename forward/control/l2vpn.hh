// VPWS attachment circuits from the config (`[dataplane] vpws = ...` lines): all frames of a
// port or sub-port into one SID list (H.Encaps.L2 / .L2.Red, RFC 8986 §5.3-5.4), with the
// configured encapsulation source. The other direction is an End.DX2 SID (`[sids]`, or from
// zebra) whose oif is the same port. docs/srv6d.md ("L2VPN: VPWS") has the syntax.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fib/datapath/encap_template.hh"
#include "forward/control/port.hh"
#include "rib/addr.hh"
#include "vrf/encap_source.hh"

namespace fwd {

struct vpws_spec {
    std::string name;                    // the service's (srv6ctl, the log)
    std::string port;                    // its attachment circuit: a port or a sub-port
    std::vector<rib::ip6_addr> segments; // in visiting order: the first is the outer destination
    bool reduced = false;                // mode=l2encap.red: H.Encaps.L2.Red
    std::optional<rib::ip6_addr> source; // the service's own; else the global one (docs/encap-source.md)

    bool operator==(const vpws_spec&) const = default;
};

// "NAME port=PORT segs=SID[,SID...] [mode=l2encap|l2encap.red] [source=ADDR]"; nullopt with
// `err` on error.
std::optional<vpws_spec> parse_vpws(std::string_view line, std::string& err);

// Between services and ports: names unique, each names a configured port, one service per
// port, and no service on a port that has sub-ports (a port-based circuit takes every frame,
// tagged or not: its sub-ports would never see one).
bool check_vpws(const std::vector<vpws_spec>& services, const std::vector<port_spec>& ports, std::string& err);

// A service as the control plane built it: its template with the resolved source, or the
// reason it is down (its circuit then drops what it receives: l2vpn_down).
struct vpws_state {
    vpws_spec spec;
    bool active = false;
    std::string reason;    // why not active
    vrf::encap_src source; // what the source resolved to
    fib::encap_template tmpl;
};

// Resolves every service's source (its own > the global one, as for a route) and builds its
// template; run again when the global source changes.
std::vector<vpws_state> build_vpws(const std::vector<vpws_spec>& services, const vrf::encap_source_resolver& src);

}  // namespace fwd
