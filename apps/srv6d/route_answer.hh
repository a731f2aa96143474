// `srv6ctl show route ADDR [vrf NAME]`: the compiled tables' answer (fib::lookup_route) in the
// management protocol's words, with interface names beside the ifindexes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "fib/control/compiler.hh"
#include "mgmt/proto.hh"
#include "rib/rib.hh"
#include "vrf/registry.hh"

namespace srv6d {

// Names for the ifindexes zebra sent. They are zebra's host's ifindexes: this host's kernel may
// name them only when zebra is local (an admitted local process: FPM is TCP over loopback, so
// the same network namespace). From a remote zebra (fpm.allow-address) an ifindex is another
// host's, and this host's interface at that index (an unrelated ifb1) must not be shown as it:
// then only srv6d's ports name theirs (`ifindex=N` says which of zebra's they are), and the
// rest show their number alone. docs/srv6ctl.md, "Interface names".
struct interface_names {
    // The kernel's name of an ifindex (empty: unknown).
    std::function<std::string(uint32_t)> kernel;
    // srv6d's port whose kernel interface it is (nullopt: none).
    std::function<std::optional<std::string>(uint32_t)> port;
    // zebra's ifindexes are not this namespace's (the state came from a remote peer).
    bool foreign = false;

    // The kernel's name unless `foreign`; "" when none applies.
    std::string kernel_name(uint32_t ifindex) const { return foreign || !kernel ? std::string() : kernel(ifindex); }
    // What srv6ctl shows for an ifindex: the kernel's name, else the port's, else "".
    std::string name(uint32_t ifindex) const {
        std::string n = kernel_name(ifindex);
        if (n.empty() && port)
            if (auto p = port(ifindex))
                n = *p;
        return n;
    }
};

// Fills resp.route(), or resp.error() for an unparsable address or an unknown/inactive VRF.
void answer_show_route(const ::mgmt::pb::ShowRoute& req, const fib::compiler& c, const vrf::registry& reg,
                       const rib::store& r, const interface_names& names, ::mgmt::pb::Response& resp);

}  // namespace srv6d
